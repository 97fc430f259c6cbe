// SPDX-License-Identifier: GPL-2.0
/*
 * mpi_hello.c - a program against the installed MPI layer, built only
 * with `cc mpi_hello.c $(pkg-config --cflags --libs libipu-mpi)`
 * (tests/pkg/test_install.sh; tests/pkg/test_debs.sh with the packages in
 * a Debian 13 chroot), never with this tree's include path.
 *
 * Each process becomes an instance (ipu_mpi_instances_init()) and prints
 * "mpi_hello: instance I of N"; run under `mpirun -np N`, the N lines
 * show that every rank found the others.
 */
#include <stdio.h>

#include <ipu/mpi.h>

int main(int argc, char **argv)
{
	char msg[256];
	int err = ipu_mpi_instances_init(&argc, &argv, 0, msg, sizeof(msg));

	if (err) {
		fprintf(stderr, "mpi_hello: %s (%d)\n", msg, err);
		return 1;
	}
	printf("mpi_hello: instance %u of %u\n", ipu_mpi_instance_index(),
	       ipu_mpi_instance_count());
	ipu_mpi_instances_fini();
	return 0;
}
