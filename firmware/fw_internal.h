/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * fw_internal.h - what the files of the executor share; not installed.
 *
 * The executor (exec.c) runs one program per replica, each in its own
 * thread (a small program's all in one, in lockstep), over that replica's
 * arena. An instruction is carried out by one
 * op function (ops_*.c, allreduce.c, the stream ops in exec.c), which gets
 * the replica's state and the instruction and returns 0 or -errno, leaving
 * a message with fw_fail(). Before a run, exec.c checks that every tensor,
 * stream slot, operand and parameter index of the executable is in range,
 * so op functions index the tables freely but check everything else
 * (shapes, dtypes, parameter values) they rely on.
 *
 * Arithmetic (layout.c, ops_*.c): floating tensors are computed in float32
 * and rounded to the output's dtype after each op; integer tensors in int64
 * (wrapping, as two's complement) and wrapped to the output's width.
 * Accumulations (reductions, all-reduce) run in a fixed order, in double
 * for floats and int64 for integers, and are rounded once.
 */
#ifndef IPU_FW_INTERNAL_H
#define IPU_FW_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ipu/dtype.h>
#include <ipu/exe.h>
#include <ipu/exe_ops.h>
#include <ipu/firmware.h>

/* Arenas are aligned to the largest device element (firmware.h). */
#define FW_ARENA_ALIGN 4

/* Elements converted at a time by ops that work on runs of elements; the
 * temporaries live on the stack, so keep this modest. */
#define FW_CHUNK 1024

/*
 * GCC's -O2 vectorises a loop only when its trip count is known to be a
 * multiple of the vector width; a kernel's is not, and its output may
 * overlap an input, which needs a check at run time. This asks for the
 * cost model that allows both, for a kernel alone.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define FW_VECTORISE __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define FW_VECTORISE
#endif

/* Reusable per-replica temporaries; an op uses the slots it likes. */
#define FW_SCRATCH_SLOTS 3

/* Operands an iterator walks together (out and two inputs). */
#define FW_ITER_MAX_OPS 3

/*
 * fw_spin_until() - spin until @cond holds, for a bounded while; true if
 * it did. Replicas hand over in microseconds, while a futex wake-up costs
 * tens of them on a virtual machine, so waiters spin before they sleep.
 * Every 64 tries the spinner yields: with more replicas than cores, the
 * thread it waits for may need its core.
 */
#define FW_SPIN_TRIES 4096
#if defined(__x86_64__) || defined(__i386__)
#define fw_cpu_relax() __builtin_ia32_pause()
#else
#define fw_cpu_relax() do { } while (0)
#endif
#define fw_spin_until(cond)                                                \
	({                                                                  \
		bool held_ = false;                                         \
		for (unsigned int try_ = 0; try_ < FW_SPIN_TRIES; try_++) { \
			if (cond) {                                         \
				held_ = true;                               \
				break;                                      \
			}                                                   \
			if (try_ % 64 == 63)                                \
				sched_yield();                              \
			else                                                \
				fw_cpu_relax();                             \
		}                                                           \
		held_;                                                      \
	})

/*
 * struct fw_barrier - all replicas of a run meet here (all-reduce). A
 * failing replica aborts it, so that the others return instead of waiting
 * for it forever. Arrivals count atomically; waiters spin, then sleep on
 * @cond.
 */
struct fw_barrier {
	pthread_mutex_t lock;	/* with @cond: sleeping until @generation moves */
	pthread_cond_t cond;
	unsigned int count;	/* replicas of the run; set between runs */
	atomic_uint waiting;	/* arrived in this generation */
	atomic_uint_fast64_t generation; /* bumped each time all have arrived */
	atomic_bool aborted;
};

/*
 * struct fw_gather - a cross-instance all-reduce's copy of every replica's
 * operand, @size bytes at @buf, in replica order; filled by local replica 0
 * between the barriers that order it, with the allgather's result in @rc
 * and @msg (allreduce.c). Owned by the executor, kept across runs.
 */
struct fw_gather {
	void *buf;
	size_t size;
	int rc;
	char msg[200];
};

/*
 * What every replica of a run shares; constant during the run. @nrep
 * replicas run here, replicas @base.. of the program's @rf; @inst (NULL
 * for a program of one instance) gathers from the other instances.
 */
struct fw_run {
	const struct ipu_exe *exe;
	void *const *arenas;
	unsigned int nrep;
	uint32_t rf, base;
	const struct ipufw_instances *inst;
	struct fw_barrier *barrier;
	struct fw_gather *gather;
};

/* One level of LOOP being executed; IPU_EXE_MAX_LOOP_DEPTH of them. */
struct fw_loop {
	uint32_t start, end; /* body: instructions [start, end) */
	int64_t left;	     /* iterations still to run, this one included */
};

/*
 * struct fw_replica - one replica's state. Owned by the executor and kept
 * across runs, so that a run allocates nothing once the buffers have grown.
 */
struct fw_replica {
	struct ipufw_executor *ex;
	const struct fw_run *run;
	unsigned int index;
	uint8_t *arena;
	uint32_t *stream_count; /* host_load/store per stream, this run */
	uint32_t stream_cap;
	struct fw_loop loops[IPU_EXE_MAX_LOOP_DEPTH];
	void *scratch[FW_SCRATCH_SLOTS];
	size_t scratch_size[FW_SCRATCH_SLOTS];
	uint32_t pc; /* the instruction being executed, for messages */
	int rc;
	char msg[256];
};

/* A tensor of the program as an op sees it. */
struct fw_tensor {
	void *p;
	int dtype;
	unsigned int ndim;
	const uint64_t *shape;
	uint64_t nelems;
	size_t esz;
};

/*
 * struct fw_iter - walks the elements of a shape for up to
 * FW_ITER_MAX_OPS operands, each with its own element strides, in
 * row-major order, one run of the innermost dimension at a time.
 * Dimensions of size 1 are dropped and dimensions that are contiguous in
 * every operand merged, so that runs are as long as they can be; the order
 * of elements is unchanged.
 * @n: elements in each run.
 * @off: element offset of the current run's first element, per operand.
 * @step: element stride within a run, per operand.
 */
struct fw_iter {
	unsigned int ndim, nops;
	uint64_t shape[IPU_EXE_MAX_DIMS];
	int64_t stride[FW_ITER_MAX_OPS][IPU_EXE_MAX_DIMS];
	uint64_t idx[IPU_EXE_MAX_DIMS];
	uint64_t n;
	int64_t off[FW_ITER_MAX_OPS];
	int64_t step[FW_ITER_MAX_OPS];
};

typedef int (*fw_op_fn)(struct fw_replica *rep, const struct ipu_exe_instr *in);

/* exec.c: per-run helpers for op functions. */

/**
 * fw_fail() - record a message for the failing instruction and return @err.
 * The executor prefixes it with the replica, the instruction and its op.
 */
int fw_fail(struct fw_replica *rep, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** fw_tensor_at() - tensor @idx of @exe inside the arena at @arena. */
void fw_tensor_at(const struct ipu_exe *exe, void *arena, uint32_t idx,
		  struct fw_tensor *t);

/** fw_operand() - operand @k of @in in this replica's arena; -EINVAL if
 * @in has fewer operands. */
int fw_operand(struct fw_replica *rep, const struct ipu_exe_instr *in,
	       unsigned int k, struct fw_tensor *t);

/**
 * fw_args() - the first @nt operands of @in into @t and its first @np
 * integer parameters into @p; -EINVAL (with a message) if it has fewer.
 */
int fw_args(struct fw_replica *rep, const struct ipu_exe_instr *in,
	    unsigned int nt, struct fw_tensor *t, unsigned int np, int64_t *p);

/**
 * fw_scratch() - a temporary of at least @bytes in slot @slot, kept for
 * later runs; its contents are undefined. NULL when out of memory (the op
 * fails with -ENOMEM).
 */
void *fw_scratch(struct fw_replica *rep, unsigned int slot, size_t bytes);

/* layout.c: strides, iteration, runs of elements. (Shapes print with
 * __ipu_exe_fmt_shape(), exe_ops.h.) */

/** fw_contig_strides() - row-major element strides of @shape. */
void fw_contig_strides(unsigned int ndim, const uint64_t *shape,
		       int64_t *strides);

/**
 * fw_broadcast_strides() - element strides for reading a tensor of shape
 * (@ndim, @shape) as if it had shape (@out_ndim, @out_shape), NumPy's
 * broadcasting: dimensions aligned from the right, a missing or size-1
 * dimension repeated (stride 0).
 *
 * Return: 0, or -EINVAL when the shapes do not broadcast.
 */
int fw_broadcast_strides(unsigned int ndim, const uint64_t *shape,
			 unsigned int out_ndim, const uint64_t *out_shape,
			 int64_t *strides);

/**
 * fw_iter_init() - start walking @shape for @nops operands with element
 * @strides (each operand's first element at offset 0).
 *
 * Return: false if @shape has no elements (nothing to walk).
 */
bool fw_iter_init(struct fw_iter *it, unsigned int ndim, const uint64_t *shape,
		  unsigned int nops,
		  const int64_t (*strides)[IPU_EXE_MAX_DIMS]);

/** fw_iter_next() - move to the next run; false after the last one. */
bool fw_iter_next(struct fw_iter *it);

/**
 * fw_fetch() - @n elements of @t from element @off, @step apart, as type
 * @dt: a pointer to them and, in *@stepp, the element stride to read them
 * with (0 when they are all the same element). Points into @t itself when
 * no conversion is needed, else into @tmp (room for @n elements of @dt).
 */
const void *fw_fetch(const struct fw_tensor *t, int64_t off, int64_t step,
		     size_t n, int dt, void *tmp, int64_t *stepp);

/** fw_elem() - address of element @i of @t. */
static inline void *fw_elem(const struct fw_tensor *t, uint64_t i)
{
	return (uint8_t *)t->p + i * t->esz;
}

/* Op functions, one per family of opcodes; dispatched by exec.c. */
int fw_op_binary(struct fw_replica *rep, const struct ipu_exe_instr *in);
int fw_op_unary(struct fw_replica *rep, const struct ipu_exe_instr *in);
int fw_op_move(struct fw_replica *rep, const struct ipu_exe_instr *in);
int fw_op_matmul(struct fw_replica *rep, const struct ipu_exe_instr *in);
int fw_op_transpose(struct fw_replica *rep, const struct ipu_exe_instr *in);
int fw_op_slice(struct fw_replica *rep, const struct ipu_exe_instr *in);
int fw_op_concat(struct fw_replica *rep, const struct ipu_exe_instr *in);
int fw_op_reduce(struct fw_replica *rep, const struct ipu_exe_instr *in);
int fw_op_softmax(struct fw_replica *rep, const struct ipu_exe_instr *in);
int fw_op_scaled_add(struct fw_replica *rep, const struct ipu_exe_instr *in);
int fw_op_all_reduce(struct fw_replica *rep, const struct ipu_exe_instr *in);
/*
 * fw_all_reduce_phase() - one half of ALL_REDUCE @in for @rep, for replicas
 * run in one thread (exec.c): FW_AR_SUM for every replica, then FW_AR_STORE
 * for every replica; no barrier. Not for a run across instances.
 */
#define FW_AR_SUM	1u
#define FW_AR_STORE	2u
int fw_all_reduce_phase(struct fw_replica *rep,
			const struct ipu_exe_instr *in, unsigned int phase);
int fw_op_stream(struct fw_replica *rep, const struct ipu_exe_instr *in);

/**
 * fw_elementwise() - @out = op(@in[0], @in[1]) element by element, the
 * inputs broadcast to @out's shape; @op an IPU_OP_ of the elementwise
 * families or IPU_OP_SCALED_ADD_INPLACE (with @fp its a, b).
 */
int fw_elementwise(struct fw_replica *rep, uint32_t op,
		   const struct fw_tensor *out, const struct fw_tensor *in,
		   unsigned int nin, const float *fp);

/** fw_move() - @out = @x converted to @out's dtype; equal element counts. */
int fw_move(struct fw_replica *rep, const struct fw_tensor *out,
	    const struct fw_tensor *x);

/* allreduce.c: the replicas' barrier. */
int fw_barrier_init(struct fw_barrier *b);
void fw_barrier_destroy(struct fw_barrier *b);
/** fw_barrier_reset() - before a run of @count replicas (none waiting). */
void fw_barrier_reset(struct fw_barrier *b, unsigned int count);
/** fw_barrier_wait() - 0 once all have arrived; -ECANCELED if aborted. */
int fw_barrier_wait(struct fw_barrier *b);
/** fw_barrier_abort() - wake every waiter, now and until the next reset. */
void fw_barrier_abort(struct fw_barrier *b);

#endif /* IPU_FW_INTERNAL_H */
