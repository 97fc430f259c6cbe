/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * firmware.h - libipufw, the device side of the stack: runs a validated
 * executable (include/ipu/exe.h) over replica arenas in device memory.
 *
 * The model backend of libipu links it in-process; ipu-simd runs it for the
 * kernel's simulated IPUs. It depends on nothing above it: libc, pthreads,
 * CBLAS and exe.h. The same program and inputs give the same bits whichever
 * of them runs it (the executor is deterministic: reductions run in a fixed
 * order, all-reduce sums replicas in index order).
 *
 * Arithmetic. Floating tensors compute in float32 and round (to nearest
 * even) to the output's dtype after each op; integer tensors (int32, int8,
 * uint8) compute in int64 and wrap to the output's width, as NumPy's astype
 * does; integer division truncates toward zero and x / 0 is 0. bool only
 * moves and casts. CAST is ipu_dtype_convert(). GELU is the tanh
 * approximation, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). Sums
 * (REDUCE_SUM/MEAN, ALL_REDUCE) accumulate in double for floats and int64
 * for integers, in index order (x's elements row-major; replicas by index),
 * and round once. softmax and log_softmax subtract the maximum first, so
 * large inputs do not overflow. MATMUL runs float32 on cblas_sgemm (its
 * summation order), other floats through float32, integers exactly.
 */
#ifndef IPU_FIRMWARE_H
#define IPU_FIRMWARE_H

#include <stddef.h>
#include <stdint.h>

#include "exe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Firmware version reported by the model and ipu-simd: major.minor.patch. */
#define IPUFW_VERSION_MAJOR 1
#define IPUFW_VERSION_MINOR 0
#define IPUFW_VERSION_PATCH 0
#define IPUFW_VERSION \
	((IPUFW_VERSION_MAJOR << 16) | (IPUFW_VERSION_MINOR << 8) | IPUFW_VERSION_PATCH)

struct ipufw_executor;

/**
 * struct ipufw_instances - the other instances of a program whose replicas
 * are split across processes (exe.h's instance_replication_factor below
 * replication_factor; docs/instances.md). This executor runs replicas
 * @index * irf .. @index * irf + irf - 1 of the program's replication_factor.
 * @index: this instance, < @count.
 * @count: instances of the program (replication_factor / irf).
 * @allgather: called by one thread of each instance, collectively, in the
 *	same order on every instance: @buf holds @count * @bytes, of which
 *	this instance filled part @index (@buf + @index * @bytes); on success
 *	every part holds what its instance filled. It must return within a
 *	bounded time, failing (-ETIMEDOUT, -EPIPE, ...) with a message in
 *	@msg when a peer does not answer, so that a dead instance makes the
 *	others fail rather than hang.
 * @ctx: passed to @allgather, @alltoallv and @allgatherv.
 * @alltoallv: optional (NULL: an all-reduce gathers every replica's
 *	operand with @allgather); with @allgatherv, an all-reduce moves only
 *	what a reduce-scatter and an all-gather move. Collective, bounded in
 *	time, as @allgather: @send holds @count parts back to back, part k
 *	(@sendbytes[k] bytes) for instance k; on success @recv holds @count
 *	parts back to back, part k (@recvbytes[k] bytes) from instance k.
 *	@send and @recv, which the transport may read and write directly,
 *	are not reused by the caller once a call failed (its reads and
 *	writes may still happen).
 * @allgatherv: optional, with @alltoallv: in place, @buf holds @count parts
 *	back to back, part k @bytes[k] bytes, of which this instance filled
 *	part @index; on success every part holds what its instance filled.
 *	@buf is given up after a failure, as @recv is.
 */
struct ipufw_instances {
	uint32_t index;
	uint32_t count;
	int (*allgather)(void *ctx, void *buf, size_t bytes, char *msg,
			 size_t msglen);
	void *ctx;
	int (*alltoallv)(void *ctx, const void *send, const size_t *sendbytes,
			 void *recv, const size_t *recvbytes, char *msg,
			 size_t msglen);
	int (*allgatherv)(void *ctx, void *buf, const size_t *bytes, char *msg,
			  size_t msglen);
};

/**
 * ipufw_executor_create() - an executor with worker threads for up to
 * @max_replicas replicas running in parallel.
 * @exp: out: the executor; free with ipufw_executor_destroy().
 *
 * Return: 0; -EINVAL for @max_replicas 0 or NULL @exp; -ENOMEM; -errno of
 * pthread_create().
 */
int ipufw_executor_create(unsigned int max_replicas,
			  struct ipufw_executor **exp);

/** ipufw_executor_destroy() - stop the workers and free; NULL is a no-op. */
void ipufw_executor_destroy(struct ipufw_executor *ex);

/**
 * ipufw_executor_set_instances() - make @ex one instance of programs split
 * across instances; NULL (the default) for a single instance. @inst is kept
 * (not copied) until the next call: keep it alive and unchanged meanwhile.
 * LIBIPUFW_1.2: @inst grew @alltoallv and @allgatherv; a program built
 * against 1.0 gets the old version of this symbol, which reads 1.0's
 * shorter struct.
 * Programs whose instance_replication_factor equals their
 * replication_factor ignore it.
 */
void ipufw_executor_set_instances(struct ipufw_executor *ex,
				  const struct ipufw_instances *inst);

/**
 * ipufw_run() - run @exe once: every replica executes the program over its
 * own arena, in parallel; all-reduce synchronises the replicas.
 * @ex: the executor; one run at a time per executor.
 * @exe: a validated executable (ipu_exe_validate()).
 * @arenas: @exe->instance_replication_factor pointers (this instance's
 *	replicas), each to @arena_size bytes
 *	(at least @exe->arena_size) of device memory, each aligned to 4
 *	bytes, the largest device element (tensors, at offsets aligned to
 *	their elements, are then aligned in memory too).
 * @arena_size: bytes available at each arena pointer.
 * @errbuf, @errlen: out: on failure a message naming the replica, the
 *	instruction and what went wrong; may be NULL.
 *
 * An executable that did not validate fails with -EINVAL, never a crash:
 * every table index and every byte range is checked before the run, and
 * each op checks the shapes and dtypes it relies on.
 *
 * Return: 0; -EINVAL when the arenas do not fit the executable or more
 * replicas are asked for than the executor has (or the executable is
 * malformed), or for a program split across instances that the
 * executor's instances (ipufw_executor_set_instances()) do not match;
 * what the instances' allgather returned when it failed; -ERANGE when a stream is loaded or stored more than
 * num_host_transfers times in one run; -ENOMEM when a temporary cannot
 * be allocated; -ECANCELED after ipufw_cancel(). After a failure the
 * arenas hold whatever the replicas had computed up to it.
 */
int ipufw_run(struct ipufw_executor *ex, const struct ipu_exe *exe,
	      void *const *arenas, uint64_t arena_size, char *errbuf,
	      size_t errlen);

/**
 * struct ipufw_op_record - one instruction a replica executed, profiled.
 * @pc: its index in the program's instructions.
 * @op: its enum ipu_op.
 * @start_ns, @end_ns: CLOCK_MONOTONIC when it began and ended.
 */
struct ipufw_op_record {
	uint32_t pc;
	uint32_t op;
	int64_t start_ns;
	int64_t end_ns;
};

/**
 * struct ipufw_profile - where one replica's op records go (the caller's).
 * @recs: room for @cap records.
 * @cap: records @recs holds.
 * @n: records written since the caller last set it to 0; runs append.
 * @dropped: instructions executed while @recs was full.
 */
struct ipufw_profile {
	struct ipufw_op_record *recs;
	uint32_t cap;
	uint32_t n;
	uint64_t dropped;
};

/**
 * ipufw_executor_set_profile() - profile the runs of @ex: replica r of a
 * run (of this instance's) records each instruction it executes, but
 * loop control, in @prof[r], in the order executed (a loop's body once
 * per iteration). @prof has the executor's max_replicas entries, owned by
 * the caller until profiling stops; NULL stops it. Set between runs only.
 * Off, it costs a run one branch per instruction. Added after ipufw_run
 * (symbol version LIBIPUFW_1.1).
 */
void ipufw_executor_set_profile(struct ipufw_executor *ex,
				struct ipufw_profile *prof);

/**
 * ipufw_cancel() - stop the run in progress on @ex: each replica stops
 * before its next instruction (an instruction under way finishes), and
 * ipufw_run() returns -ECANCELED. For a firmware whose device was reset
 * under a run: its arenas are no longer the program's. Callable from any
 * thread, and from a signal handler (one atomic store). A cancel made
 * while no run is in progress is forgotten when the next run starts.
 * NULL is a no-op.
 */
void ipufw_cancel(struct ipufw_executor *ex);

#ifdef __cplusplus
}
#endif

#endif /* IPU_FIRMWARE_H */
