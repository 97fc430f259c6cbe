// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ipu-run-instances.c - ipu-run as instances of a split program
 * (ipu-run-instances.h). Built twice: into ipu-run without MPI, and with
 * IPU_RUN_MPI into ipu-run-mpi over libipu-mpi.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef IPU_RUN_MPI
#include <ipu/mpi.h>
#endif

#include "ipu-run-instances.h"

#ifdef IPU_RUN_MPI
static bool entered;
#endif

/* Started by an MPI launcher: Open MPI's mpirun, or any PMIx one. */
static bool under_launcher(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK");
}

/* ipu-run-mpi next to the running binary, into @buf; false if unknown. */
static bool mpi_build_path(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return false;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return (size_t)snprintf(buf, len, "%s/%s", self, IPU_RUN_MPI_NAME) < len;
}

int instances_enter(int argc, char **argv, const char *prog)
{
#ifdef IPU_RUN_MPI
	char msg[512];

	(void)argc;
	(void)argv;
	if (!under_launcher())
		return 0;
	if (ipu_mpi_instances_init(NULL, NULL, 0, msg, sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		return -1;
	}
	entered = true;
	return 0;
#else
	char path[PATH_MAX];

	(void)argc;
	if (!under_launcher())
		return 0;
	if (mpi_build_path(path, sizeof(path)) && !access(path, X_OK)) {
		execv(path, argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, path,
			strerror(errno));
	}
	fprintf(stderr, "%s: started by an MPI launcher, but without %s next to it (the package ipu-tools-mpi installs it; in a source tree, make mpi builds it): running as a single instance\n",
		prog, IPU_RUN_MPI_NAME);
	return 0;
#endif
}

int instances_launch(unsigned long n, char **argv, const char *prog)
{
	const char *mpirun = getenv("IPU_MPIRUN");
	char path[PATH_MAX], np[24];
	const char **args;
	size_t argc = 0, i;
	long cpus;

	if (under_launcher()) {
		if (instances_count() == n)
			return 0;
		fprintf(stderr, "%s: --instances %lu, but the MPI launcher started %u\n",
			prog, n, instances_count());
		return -1;
	}
	if (!mpi_build_path(path, sizeof(path)) || access(path, X_OK)) {
		fprintf(stderr, "%s: --instances needs %s next to %s (the package ipu-tools-mpi installs it; in a source tree, make mpi builds it)\n",
			prog, IPU_RUN_MPI_NAME, prog);
		return -1;
	}
	while (argv[argc])
		argc++;
	args = calloc(argc + 8, sizeof(*args));
	if (!args) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	if (!mpirun || !*mpirun)
		mpirun = "mpirun";
	snprintf(np, sizeof(np), "%lu", n);
	argc = 0;
	args[argc++] = mpirun;
	/* Open MPI refuses root unless told, and more ranks than cores. */
	if (geteuid() == 0)
		args[argc++] = "--allow-run-as-root";
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus > 0 && n > (unsigned long)cpus)
		args[argc++] = "--oversubscribe";
	args[argc++] = "-np";
	args[argc++] = np;
	args[argc++] = path;
	for (i = 1; argv[i]; i++)
		args[argc++] = argv[i];
	args[argc] = NULL;
	printf("%s:", prog);
	for (i = 0; i < argc; i++)
		printf(" %s", args[i]);
	printf("\n");
	fflush(stdout);
	execvp(mpirun, (char *const *)args);
	fprintf(stderr, "%s: cannot run %s (IPU_MPIRUN; Open MPI's openmpi-bin has it): %s\n",
		prog, mpirun, strerror(errno));
	free(args);
	return -1;
}

unsigned int instances_index(void)
{
#ifdef IPU_RUN_MPI
	return ipu_mpi_instance_index();
#else
	return 0;
#endif
}

unsigned int instances_count(void)
{
#ifdef IPU_RUN_MPI
	return ipu_mpi_instance_count();
#else
	return 1;
#endif
}

void instances_leave(int status)
{
#ifdef IPU_RUN_MPI
	if (!entered)
		return;
	if (status) {
		fflush(NULL);
		_exit(status);
	}
	ipu_mpi_instances_fini();
#else
	(void)status;
#endif
}
