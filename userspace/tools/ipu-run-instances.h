/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * ipu-run-instances.h - ipu-run as the instances of a program split
 * across processes (docs/instances.md): `mpirun -np N ipu-run ...` and
 * `ipu-run --instances N ...`.
 *
 * MPI is linked by libipu-mpi alone, so ipu-run comes in two builds of the
 * same source: ipu-run (no MPI; what every machine has) and ipu-run-mpi
 * (make mpi; ipu-run-instances.c built with IPU_RUN_MPI), installed side
 * by side. ipu-run started by an MPI launcher becomes ipu-run-mpi
 * (exec, same pid and arguments), which makes the process an instance;
 * `--instances N` runs `mpirun -np N ipu-run-mpi` with the same
 * arguments.
 */
#ifndef IPU_RUN_INSTANCES_H
#define IPU_RUN_INSTANCES_H

#include <stdbool.h>

/* The instance build's name, looked for next to the running binary. */
#define IPU_RUN_MPI_NAME "ipu-run-mpi"
/* What a file name may hold to be one per instance. */
#define IPU_RUN_INSTANCE_TAG "{instance}"

/**
 * instances_enter() - called first: under an MPI launcher, the plain
 * build execs ipu-run-mpi with @argv (returning only when it cannot:
 * then the process runs as a single instance, saying so), and the
 * instance build initialises libipu-mpi. @prog names ipu-run in messages.
 *
 * Return: 0; -1 after a message when the instances cannot be set up.
 */
int instances_enter(int argc, char **argv, const char *prog);

/**
 * instances_launch() - `--instances @n`: exec mpirun with the flags it
 * needs here (--oversubscribe when @n exceeds the online CPUs,
 * --allow-run-as-root only as root) over ipu-run-mpi and @argv[1..].
 * Under a launcher already, check that it started @n instances instead.
 *
 * Return: 0 when this process is already instance of @n (run on); -1
 * after a message otherwise (exec failed, or a count mismatch).
 */
int instances_launch(unsigned long n, char **argv, const char *prog);

/** instances_index() / _count() - this instance, and how many (0, 1 when
 * not split). */
unsigned int instances_index(void);
unsigned int instances_count(void);

/**
 * instances_leave() - called last with the exit status: finalise MPI
 * after success; after a failure, leave without it (a peer may be gone,
 * and finalising would wait for it).
 */
void instances_leave(int status);

#endif /* IPU_RUN_INSTANCES_H */
