// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * mpi_main.c - make a program an instance (docs/instances.md) without
 * changing it: initialise libipu-mpi, call the program's own main (built
 * from its source with -Dmain=instance_main, see the Makefile), finalise.
 * tests/mpi/test_mpi.sh runs the demo's trainer this way under mpirun.
 */
#include <stdio.h>
#include <unistd.h>

#include <ipu/mpi.h>

int instance_main(int argc, char **argv);

int main(int argc, char **argv)
{
	char msg[256];
	int ret;

	ret = ipu_mpi_instances_init(&argc, &argv, 0, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[0], msg);
		return 1;
	}
	ret = instance_main(argc, argv);
	if (ret) {
		/* A failed instance may have lost its peers: leave without
		 * MPI_Finalize(), which would wait for them. */
		fflush(NULL);
		_exit(ret);
	}
	ipu_mpi_instances_fini();
	return 0;
}
