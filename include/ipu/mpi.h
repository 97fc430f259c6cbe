/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * mpi.h - libipu-mpi: the instances of a split program over Open MPI, the
 * poprun/popdist way (docs/instances.md).
 *
 * A program whose instance_replication_factor is below its
 * replication_factor runs as replication_factor / irf processes (MPI ranks),
 * each attaching and streaming its own irf replicas; its all-reduces span
 * every replica of every instance. This library is where MPI is linked:
 * libsession, libipu and libipufw know only struct ipufw_instances
 * (firmware.h), so programs that never split need no MPI.
 *
 *	ipu_mpi_instances_init(&argc, &argv, 0, msg, sizeof(msg));
 *	... ipu_session_create() / attach / run as on one host ...
 *	ipu_mpi_instances_fini();
 *
 * Threads: MPI is process-wide, and so is this library's state; the
 * model's engine thread makes the collective calls, which MPI therefore
 * must allow from a thread other than the one that initialised it
 * (MPI_THREAD_SERIALIZED; Open MPI gives it).
 */
#ifndef IPU_MPI_H
#define IPU_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How long a collective waits for the other instances when neither the
 * caller nor IPU_INSTANCE_TIMEOUT_MS says. */
#define IPU_MPI_DEFAULT_TIMEOUT_MS 60000

/**
 * ipu_mpi_instances_init() - make this process an instance: initialise MPI
 * (unless the program already did), take the instance index and count
 * from MPI_COMM_WORLD's rank and size (what mpirun, and poprun over it,
 * set), and install the instances for the model backend
 * (ipu_model_set_instances()).
 * @argc, @argv: passed to MPI_Init_thread(); may be NULL.
 * @timeout_ms: how long one collective waits for the other instances
 *	before it fails with -ETIMEDOUT (a dead or stuck peer); 0: the
 *	environment's IPU_INSTANCE_TIMEOUT_MS, else
 *	IPU_MPI_DEFAULT_TIMEOUT_MS.
 * @msg, @msglen: out: what went wrong, on failure.
 *
 * Return: 0; -EALREADY if already initialised; -EPROTO when MPI fails or
 * cannot be used from the engine thread; -EINVAL for a bad
 * IPU_INSTANCE_TIMEOUT_MS.
 */
int ipu_mpi_instances_init(int *argc, char ***argv, uint32_t timeout_ms,
			   char *msg, size_t msglen);

/**
 * ipu_mpi_instances_fini() - remove the instances from the model and
 * finalise MPI if ipu_mpi_instances_init() initialised it. After a
 * collective timed out, MPI is not finalised (a peer is gone; finalising
 * would wait for it): the process should exit with an error. No-op when
 * not initialised.
 */
void ipu_mpi_instances_fini(void);

/** ipu_mpi_instance_index() / _count() - this instance and how many there
 * are (0 and 1 before ipu_mpi_instances_init()). */
uint32_t ipu_mpi_instance_index(void);
uint32_t ipu_mpi_instance_count(void);

#ifdef __cplusplus
}
#endif

#endif /* IPU_MPI_H */
