// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * exec.c - the executor (include/ipu/firmware.h): worker threads, the state
 * of a run, the instruction loop with LOOP, and the host streams.
 *
 * Replica 0 runs in the caller's thread and replicas 1..R-1 in worker
 * threads created once with the executor, so that a run costs a wake-up and
 * not a thread creation; a single-replica run touches no worker, lock or
 * condition variable at all, and the replicas of a small program all run
 * in the caller's thread, in lockstep. One loop, exec_program(), runs the
 * program either way. Per-replica buffers (stream counters, scratch)
 * are kept across runs and only ever grow.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fw_internal.h"

/*
 * Replicas of a program whose arena is at most this big run in the
 * caller's thread in lockstep (exec_program()); larger ones, whose ops
 * take long enough to gain from running side by side, in threads.
 */
#define FW_LOCKSTEP_ARENA (1u << 20)

struct ipufw_executor {
	unsigned int max_replicas;
	struct fw_replica *reps; /* max_replicas of them */
	struct fw_run run;
	struct fw_barrier barrier;
	const struct ipufw_instances *inst; /* ipufw_executor_set_instances() */
	struct ipufw_instances inst_v10; /* a LIBIPUFW_1.0 caller's, widened */
	struct fw_gather gather;
	pthread_t *threads;	/* the workers, of replicas 1.. */
	unsigned int nthreads;	/* started */
	/*
	 * Handing a run to the workers: the caller prepares the run and
	 * @pending, then publishes @go, a run number (high 32 bits) and the
	 * run's replica count (low 32 bits) in one word, so that a worker
	 * late from an earlier run never pairs one run's number with
	 * another's count. Workers spin on @go, then sleep on @start; each
	 * decrements @pending when done, and the last wakes the caller
	 * (spinning, then sleeping on @done). The condition variables are
	 * waited on and signalled under @lock.
	 */
	pthread_mutex_t lock;
	pthread_cond_t start;
	pthread_cond_t done;
	atomic_uint_fast64_t go;
	atomic_uint pending;
	atomic_bool stop;
	/* ipufw_cancel(): every replica stops before its next instruction. */
	atomic_bool cancel;
	uint32_t runs;		/* the caller's run number, for @go */
	/* ipufw_executor_set_profile(): per replica, or NULL. */
	struct ipufw_profile *profile;
};

static const fw_op_fn fw_ops[IPU_OP_COUNT_] = {
	[IPU_OP_ADD] = fw_op_binary,
	[IPU_OP_SUB] = fw_op_binary,
	[IPU_OP_MUL] = fw_op_binary,
	[IPU_OP_DIV] = fw_op_binary,
	[IPU_OP_NEG] = fw_op_unary,
	[IPU_OP_ABS] = fw_op_unary,
	[IPU_OP_RELU] = fw_op_unary,
	[IPU_OP_GELU] = fw_op_unary,
	[IPU_OP_TANH] = fw_op_unary,
	[IPU_OP_SIGMOID] = fw_op_unary,
	[IPU_OP_EXP] = fw_op_unary,
	[IPU_OP_LOG] = fw_op_unary,
	[IPU_OP_SQRT] = fw_op_unary,
	[IPU_OP_CAST] = fw_op_move,
	[IPU_OP_RESHAPE] = fw_op_move,
	[IPU_OP_COPY] = fw_op_move,
	[IPU_OP_MATMUL] = fw_op_matmul,
	[IPU_OP_TRANSPOSE] = fw_op_transpose,
	[IPU_OP_SLICE] = fw_op_slice,
	[IPU_OP_CONCAT] = fw_op_concat,
	[IPU_OP_REDUCE_SUM] = fw_op_reduce,
	[IPU_OP_REDUCE_MEAN] = fw_op_reduce,
	[IPU_OP_REDUCE_MAX] = fw_op_reduce,
	[IPU_OP_SOFTMAX] = fw_op_softmax,
	[IPU_OP_LOG_SOFTMAX] = fw_op_softmax,
	[IPU_OP_SCALED_ADD_INPLACE] = fw_op_scaled_add,
	[IPU_OP_ASSIGN] = fw_op_move,
	[IPU_OP_ALL_REDUCE] = fw_op_all_reduce,
	[IPU_OP_HOST_LOAD] = fw_op_stream,
	[IPU_OP_HOST_STORE] = fw_op_stream,
	/* IPU_OP_LOOP is control flow, handled by exec_program() */
};

/* ---------------------------------------------------------------------- */
/* Helpers for op functions                                                */
/* ---------------------------------------------------------------------- */

int fw_fail(struct fw_replica *rep, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rep->msg, sizeof(rep->msg), fmt, ap);
	va_end(ap);
	return err;
}

void fw_tensor_at(const struct ipu_exe *exe, void *arena, uint32_t idx,
		  struct fw_tensor *t)
{
	const struct ipu_exe_tensor *et = &exe->tensors[idx];

	t->p = (uint8_t *)arena + et->offset;
	t->dtype = (int)et->dtype;
	t->ndim = et->ndim;
	t->shape = et->shape;
	t->nelems = et->nelems;
	t->esz = ipu_dtype_size(t->dtype);
}

int fw_operand(struct fw_replica *rep, const struct ipu_exe_instr *in,
	       unsigned int k, struct fw_tensor *t)
{
	if (k >= in->num_operands)
		return fw_fail(rep, -EINVAL, "operand %u missing (it has %u)",
			       k, in->num_operands);
	fw_tensor_at(rep->run->exe, rep->arena,
		     rep->run->exe->operands[in->first_operand + k], t);
	return 0;
}

int fw_args(struct fw_replica *rep, const struct ipu_exe_instr *in,
	    unsigned int nt, struct fw_tensor *t, unsigned int np, int64_t *p)
{
	unsigned int k;
	int err;

	for (k = 0; k < nt; k++) {
		err = fw_operand(rep, in, k, &t[k]);
		if (err)
			return err;
	}
	if (np > in->num_params)
		return fw_fail(rep, -EINVAL, "%u parameters, it needs %u",
			       in->num_params, np);
	for (k = 0; k < np; k++)
		p[k] = rep->run->exe->params[in->first_param + k];
	return 0;
}

void *fw_scratch(struct fw_replica *rep, unsigned int slot, size_t bytes)
{
	void *p;

	if (slot >= FW_SCRATCH_SLOTS)
		return NULL;
	if (rep->scratch_size[slot] >= bytes && rep->scratch[slot])
		return rep->scratch[slot];
	/* No realloc(): the old contents are not wanted. */
	p = malloc(bytes ? bytes : 1);
	if (!p)
		return NULL;
	free(rep->scratch[slot]);
	rep->scratch[slot] = p;
	rep->scratch_size[slot] = bytes;
	return p;
}

/* ---------------------------------------------------------------------- */
/* Host streams                                                            */
/* ---------------------------------------------------------------------- */

/* HOST_LOAD (out; stream) and HOST_STORE (x; stream): copy between the
 * tensor and the slot of the stream's next iteration, unless they are the
 * same bytes; the iteration counts either way. */
int fw_op_stream(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	const struct ipu_exe *exe = rep->run->exe;
	bool load = in->op == IPU_OP_HOST_LOAD;
	const struct ipu_exe_stream *s;
	struct fw_tensor t;
	uint32_t *count;
	uint8_t *slot;
	int64_t idx;
	int err;

	err = fw_args(rep, in, 1, &t, 1, &idx);
	if (err)
		return err;
	if (idx < 0 || idx >= exe->num_streams)
		return fw_fail(rep, -EINVAL, "no stream %lld", (long long)idx);
	s = &exe->streams[idx];
	if (s->direction != (load ? IPU_EXE_STREAM_H2D : IPU_EXE_STREAM_D2H))
		return fw_fail(rep, -EINVAL, "stream \"%s\" goes the other way",
			       s->name);
	if (t.nelems * t.esz != s->nbytes)
		return fw_fail(rep, -EINVAL,
			       "stream \"%s\" has %llu bytes a slot, the tensor %llu",
			       s->name, (unsigned long long)s->nbytes,
			       (unsigned long long)(t.nelems * t.esz));
	count = &rep->stream_count[idx];
	if (*count >= exe->num_host_transfers)
		return fw_fail(rep, -ERANGE,
			       "stream \"%s\" %s more than num_host_transfers = %u times in one run",
			       s->name, load ? "loaded" : "stored",
			       exe->num_host_transfers);
	slot = rep->arena + s->slots_offset + (uint64_t)*count * s->nbytes;
	(*count)++;
	/* A tensor planned on its slot (copy elision, exe.h) is already
	 * there: copying it onto itself would only cost a pass over it. */
	if (t.p == slot)
		return 0;
	if (load)
		memmove(t.p, slot, s->nbytes);
	else
		memmove(slot, t.p, s->nbytes);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The program                                                             */
/* ---------------------------------------------------------------------- */

/* Enter the LOOP at @pc: push its body, or step over it if it runs no
 * instruction. */
static int enter_loop(struct fw_replica *rep, const struct ipu_exe_instr *in,
		      uint32_t *pc, size_t *sp)
{
	uint32_t limit = *sp ? rep->loops[*sp - 1].end :
			       rep->run->exe->num_instrs;
	int64_t count, body_len;
	struct fw_loop *l;
	int64_t p[2];
	int err;

	err = fw_args(rep, in, 0, NULL, 2, p);
	if (err)
		return err;
	count = p[0];
	body_len = p[1];
	if (count < 0 || body_len < 0 || body_len > limit - *pc - 1)
		return fw_fail(rep, -EINVAL,
			       "loop of count %lld, body %lld instructions does not nest",
			       (long long)count, (long long)body_len);
	if (!count || !body_len) {
		*pc += 1 + (uint32_t)body_len;
		return 0;
	}
	if (*sp == IPU_EXE_MAX_LOOP_DEPTH)
		return fw_fail(rep, -EINVAL, "loops nest deeper than %d",
			       IPU_EXE_MAX_LOOP_DEPTH);
	l = &rep->loops[(*sp)++];
	l->start = *pc + 1;
	l->end = *pc + 1 + (uint32_t)body_len;
	l->left = count;
	*pc = l->start;
	return 0;
}

static int64_t prof_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Record instruction @pc, begun at @start, in @prof. */
static void prof_record(struct ipufw_profile *prof, uint32_t pc, uint32_t op,
			int64_t start)
{
	struct ipufw_op_record *r;

	if (prof->n >= prof->cap) {
		prof->dropped++;
		return;
	}
	r = &prof->recs[prof->n++];
	r->pc = pc;
	r->op = op;
	r->start_ns = start;
	r->end_ns = prof_now();
}

/*
 * Instruction @in, at @pc, for each of the @n replicas at @reps in turn,
 * recorded in the profiles @prof (per replica, or NULL). An ALL_REDUCE of
 * replicas in lockstep (@n > 1) is its two halves, each over all @n, with
 * nothing to wait for; each replica's record of it runs from its start to
 * the end of that replica's second half. A failure stops the @n at once:
 * its replica's rc says so.
 */
static int step(struct fw_replica *reps, unsigned int n,
		const struct ipu_exe_instr *in, uint32_t pc,
		struct ipufw_profile *prof)
{
	unsigned int r, phase;
	int64_t start = 0;
	int err;

	if (n > 1 && in->op == IPU_OP_ALL_REDUCE) {
		if (prof)
			start = prof_now();
		for (phase = FW_AR_SUM; phase <= FW_AR_STORE; phase++)
			for (r = 0; r < n; r++) {
				err = fw_all_reduce_phase(&reps[r], in, phase);
				if (err)
					return reps[r].rc = err;
				if (prof && phase == FW_AR_STORE)
					prof_record(&prof[reps[r].index], pc,
						    in->op, start);
			}
		return 0;
	}
	for (r = 0; r < n; r++) {
		if (prof)
			start = prof_now();
		err = fw_ops[in->op](&reps[r], in);
		if (prof)
			prof_record(&prof[reps[r].index], pc, in->op, start);
		if (err)
			return reps[r].rc = err;
	}
	return 0;
}

/*
 * The program, for the @n replicas at @reps together: one replica in a
 * thread of its own (@n = 1; an ALL_REDUCE meets the other threads at the
 * barriers), or every replica of a small program in the caller's thread,
 * an instruction at a time for each in turn. Waking a worker per replica,
 * and replicas meeting at the all-reduce's barriers, cost more than a
 * small program does; with more replicas than cores, much more (5 us per
 * 4-replica run spinning on 2 cores). @reps[0]'s control flow is every
 * replica's (one program, loop counts in its parameters). The first
 * failure stops the @n and is returned, its replica's rc and message
 * saying it; a cancel or a bad LOOP is @reps[0]'s.
 */
static int exec_program(struct fw_replica *reps, unsigned int n)
{
	struct fw_replica *lead = &reps[0];
	const struct ipu_exe *exe = lead->run->exe;
	struct ipufw_profile *prof = lead->ex->profile;
	const struct ipu_exe_instr *in;
	unsigned int r;
	uint32_t pc = 0;
	size_t sp = 0;
	int err;

	for (;;) {
		/* Relaxed: a cancel only has to be seen soon, not at once. */
		if (atomic_load_explicit(&lead->ex->cancel,
					 memory_order_relaxed))
			return lead->rc = fw_fail(lead, -ECANCELED,
						  "the run was cancelled");
		if (sp && pc == lead->loops[sp - 1].end) {
			struct fw_loop *l = &lead->loops[sp - 1];

			if (--l->left > 0)
				pc = l->start;
			else
				sp--;
			continue;
		}
		if (pc >= exe->num_instrs)
			return 0;
		in = &exe->instrs[pc];
		for (r = 0; r < n; r++)
			reps[r].pc = pc;
		if (in->op == IPU_OP_LOOP) {
			err = enter_loop(lead, in, &pc, &sp);
			if (err)
				return lead->rc = err;
			continue;
		}
		err = step(reps, n, in, pc, prof);
		if (err)
			return err;
		pc++;
	}
}

/* A replica in a thread of its own (replica 0 in the caller's). */
static void run_replica(struct fw_replica *rep)
{
	if (exec_program(rep, 1) && rep->run->nrep > 1)
		fw_barrier_abort(rep->run->barrier);
}

static void *worker_main(void *arg)
{
	struct fw_replica *rep = arg;
	struct ipufw_executor *ex = rep->ex;
	uint64_t seen = 0;

	for (;;) {
		if (!fw_spin_until(atomic_load(&ex->go) != seen)) {
			pthread_mutex_lock(&ex->lock);
			while (atomic_load(&ex->go) == seen)
				pthread_cond_wait(&ex->start, &ex->lock);
			pthread_mutex_unlock(&ex->lock);
		}
		if (atomic_load(&ex->stop))
			return NULL;
		/* What the caller wrote before publishing @go (the run, the
		 * replica's state) is visible: seq_cst atomics order it. */
		seen = atomic_load(&ex->go);
		if (rep->index >= (uint32_t)seen)
			continue; /* not in this run */
		run_replica(rep);
		if (atomic_fetch_sub(&ex->pending, 1) == 1) {
			pthread_mutex_lock(&ex->lock);
			pthread_cond_signal(&ex->done);
			pthread_mutex_unlock(&ex->lock);
		}
	}
}

/* A message for the caller of ipufw_run(), whose buffer may be NULL. */
static void say(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------------- */
/* Checks before a run                                                     */
/* ---------------------------------------------------------------------- */

/*
 * ipu_exe_validate() vouches for the executable, but the firmware must not
 * crash whatever it is handed: check every table index and every byte range
 * an op will touch, so that op functions need not.
 */
static bool check_range(uint64_t offset, uint64_t nbytes, size_t esz,
		       uint64_t arena_size)
{
	return offset % esz == 0 && offset <= arena_size &&
	       nbytes <= arena_size - offset;
}

static bool check_tensor(const struct ipu_exe_tensor *t, uint64_t arena_size)
{
	size_t esz = ipu_dtype_size((int)t->dtype);
	uint64_t n = 1, nbytes;
	unsigned int d;

	if (!ipu_dtype_on_device((int)t->dtype) || t->ndim > IPU_EXE_MAX_DIMS)
		return false;
	for (d = 0; d < t->ndim; d++)
		if (__builtin_mul_overflow(n, t->shape[d], &n))
			return false;
	if (n != t->nelems || __builtin_mul_overflow(n, esz, &nbytes) ||
	    nbytes != t->nbytes)
		return false;
	return check_range(t->offset, nbytes, esz, arena_size);
}

static bool check_stream(const struct ipu_exe *exe,
			const struct ipu_exe_stream *s, uint64_t arena_size)
{
	size_t esz = ipu_dtype_size((int)s->dtype);
	uint64_t all;

	if (!ipu_dtype_on_device((int)s->dtype) || s->nbytes % esz ||
	    __builtin_mul_overflow(s->nbytes, exe->num_host_transfers, &all))
		return false;
	return check_range(s->slots_offset, all, esz, arena_size);
}

static bool check_instr(const struct ipu_exe *exe,
		       const struct ipu_exe_instr *in)
{
	uint32_t k;

	if (in->op >= IPU_OP_COUNT_ ||
	    (in->op != IPU_OP_LOOP && !fw_ops[in->op]))
		return false;
	if ((uint64_t)in->first_operand + in->num_operands > exe->num_operands ||
	    (uint64_t)in->first_param + in->num_params > exe->num_params)
		return false;
	for (k = 0; k < in->num_operands; k++)
		if (exe->operands[in->first_operand + k] >= exe->num_tensors)
			return false;
	return true;
}

static int preflight(const struct ipu_exe *exe, uint64_t arena_size,
		     char *msg, size_t len)
{
	uint32_t i;

	if (!exe->num_host_transfers || !exe->replication_factor ||
	    exe->arena_size > arena_size ||
	    (exe->num_tensors && !exe->tensors) ||
	    (exe->num_streams && !exe->streams) ||
	    (exe->num_instrs && !exe->instrs) ||
	    (exe->num_operands && !exe->operands) ||
	    (exe->num_params && !exe->params)) {
		say(msg, len,
			 "executable \"%s\" is malformed or needs arenas of %llu bytes (given %llu)",
			 exe->name ? exe->name : "",
			 (unsigned long long)exe->arena_size,
			 (unsigned long long)arena_size);
		return -EINVAL;
	}
	for (i = 0; i < exe->num_tensors; i++)
		if (!check_tensor(&exe->tensors[i], arena_size)) {
			say(msg, len,
				 "tensor %u (\"%s\"): dtype, shape, size, alignment or place in the arena is wrong",
				 i, exe->tensors[i].name ? exe->tensors[i].name : "");
			return -EINVAL;
		}
	for (i = 0; i < exe->num_streams; i++)
		if (!check_stream(exe, &exe->streams[i], arena_size)) {
			say(msg, len,
				 "stream %u (\"%s\"): dtype, size, alignment or slots in the arena are wrong",
				 i, exe->streams[i].name ? exe->streams[i].name : "");
			return -EINVAL;
		}
	for (i = 0; i < exe->num_instrs; i++)
		if (!check_instr(exe, &exe->instrs[i])) {
			say(msg, len,
				 "instruction %u: unknown opcode %u or operand or parameter out of range",
				 i, exe->instrs[i].op);
			return -EINVAL;
		}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* API                                                                     */
/* ---------------------------------------------------------------------- */

static void stop_workers(struct ipufw_executor *ex)
{
	unsigned int i;

	pthread_mutex_lock(&ex->lock);
	atomic_store(&ex->stop, true);
	atomic_store(&ex->go, (uint64_t)++ex->runs << 32);
	pthread_cond_broadcast(&ex->start);
	pthread_mutex_unlock(&ex->lock);
	for (i = 0; i < ex->nthreads; i++)
		pthread_join(ex->threads[i], NULL);
	ex->nthreads = 0;
}

void ipufw_executor_destroy(struct ipufw_executor *ex)
{
	unsigned int r, s;

	if (!ex)
		return;
	stop_workers(ex);
	for (r = 0; r < ex->max_replicas; r++) {
		free(ex->reps[r].stream_count);
		for (s = 0; s < FW_SCRATCH_SLOTS; s++)
			free(ex->reps[r].scratch[s]);
	}
	pthread_cond_destroy(&ex->done);
	pthread_cond_destroy(&ex->start);
	pthread_mutex_destroy(&ex->lock);
	fw_barrier_destroy(&ex->barrier);
	free(ex->gather.buf);
	free(ex->threads);
	free(ex->reps);
	free(ex);
}

int ipufw_executor_create(unsigned int max_replicas,
			  struct ipufw_executor **exp)
{
	struct ipufw_executor *ex;
	unsigned int r;
	int err;

	if (!max_replicas || !exp)
		return -EINVAL;
	*exp = NULL;
	ex = calloc(1, sizeof(*ex));
	if (!ex)
		return -ENOMEM;
	ex->max_replicas = max_replicas;
	ex->reps = calloc(max_replicas, sizeof(*ex->reps));
	ex->threads = calloc(max_replicas, sizeof(*ex->threads));
	if (!ex->reps || !ex->threads) {
		free(ex->reps);
		free(ex->threads);
		free(ex);
		return -ENOMEM;
	}
	/* The primitives are initialised in this order and destroyed in
	 * reverse by ipufw_executor_destroy(); default attributes cannot fail
	 * on Linux but a barrier failure is still reported. */
	err = fw_barrier_init(&ex->barrier);
	if (err) {
		free(ex->reps);
		free(ex->threads);
		free(ex);
		return err;
	}
	pthread_mutex_init(&ex->lock, NULL);
	pthread_cond_init(&ex->start, NULL);
	pthread_cond_init(&ex->done, NULL);
	atomic_init(&ex->go, 0);
	atomic_init(&ex->pending, 0);
	atomic_init(&ex->stop, false);
	atomic_init(&ex->cancel, false);
	ex->run.barrier = &ex->barrier;
	ex->run.gather = &ex->gather;
	for (r = 0; r < max_replicas; r++) {
		ex->reps[r].ex = ex;
		ex->reps[r].run = &ex->run;
		ex->reps[r].index = r;
	}
	for (r = 1; r < max_replicas; r++) {
		err = -pthread_create(&ex->threads[r - 1], NULL, worker_main,
				      &ex->reps[r]);
		if (err) {
			ipufw_executor_destroy(ex);
			return err;
		}
		ex->nthreads++;
	}
	*exp = ex;
	return 0;
}

/*
 * The current version (LIBIPUFW_1.2); ipufw_executor_set_instances_v10 below
 * is the old one. Both are named apart here so that neither is the plain
 * symbol, which the version script lists in both nodes.
 */
void ipufw_executor_set_instances_v12(struct ipufw_executor *ex,
				      const struct ipufw_instances *inst);

/* A directive, not GCC's symver attribute: clang (the fuzzers) has none. */
__asm__(".symver ipufw_executor_set_instances_v12,"
	"ipufw_executor_set_instances@@LIBIPUFW_1.2");
void ipufw_executor_set_instances_v12(struct ipufw_executor *ex,
				      const struct ipufw_instances *inst)
{
	if (ex)
		ex->inst = inst;
}

/*
 * LIBIPUFW_1.0's struct ipufw_instances ended at @ctx; a program built
 * then passes that shorter struct, and reading @alltoallv from it would
 * read past its end. Its calls land here (the symbol's old version): the
 * fields it has are copied, the later ones stay NULL (the allgather path).
 * The copy is taken now, where 1.0 kept the pointer: 1.0's contract (keep
 * it alive and unchanged until the next call) makes them the same.
 */
struct ipufw_instances_v10 {
	uint32_t index;
	uint32_t count;
	int (*allgather)(void *ctx, void *buf, size_t bytes, char *msg,
			 size_t msglen);
	void *ctx;
};

void ipufw_executor_set_instances_v10(struct ipufw_executor *ex,
				      const struct ipufw_instances_v10 *inst);

__asm__(".symver ipufw_executor_set_instances_v10,"
	"ipufw_executor_set_instances@LIBIPUFW_1.0");
void ipufw_executor_set_instances_v10(struct ipufw_executor *ex,
				      const struct ipufw_instances_v10 *inst)
{
	if (!ex)
		return;
	if (!inst) {
		ex->inst = NULL;
		return;
	}
	ex->inst_v10 = (struct ipufw_instances){
		.index = inst->index,
		.count = inst->count,
		.allgather = inst->allgather,
		.ctx = inst->ctx,
	};
	ex->inst = &ex->inst_v10;
}

void ipufw_executor_set_profile(struct ipufw_executor *ex,
				struct ipufw_profile *prof)
{
	if (ex)
		ex->profile = prof;
}

/*
 * The instances a run of @exe spans: none (base 0) for a program of one
 * instance, else the executor's, which must be the program's split.
 */
static int split_run(struct ipufw_executor *ex, const struct ipu_exe *exe,
		     char *errbuf, size_t errlen)
{
	uint32_t irf = exe->instance_replication_factor;
	const struct ipufw_instances *inst = ex->inst;

	ex->run.rf = exe->replication_factor;
	ex->run.base = 0;
	ex->run.inst = NULL;
	if (irf == exe->replication_factor)
		return 0;
	if (!inst || !inst->allgather || inst->index >= inst->count ||
	    (uint64_t)inst->count * irf != exe->replication_factor) {
		say(errbuf, errlen,
		    "the program runs %u of its %u replicas per instance, so %u instances; this executor is %s%u of %u",
		    irf, exe->replication_factor,
		    exe->replication_factor / irf,
		    inst ? "instance " : "not split: instance ",
		    inst ? inst->index : 0, inst ? inst->count : 1);
		return -EINVAL;
	}
	ex->run.base = inst->index * irf;
	ex->run.inst = inst;
	return 0;
}

/* Get replica @rep ready for a run: arena, zeroed stream counters. */
static int prepare_replica(struct fw_replica *rep, uint8_t *arena)
{
	const struct ipu_exe *exe = rep->run->exe;

	rep->arena = arena;
	rep->rc = 0;
	rep->msg[0] = '\0';
	if (exe->num_streams > rep->stream_cap) {
		uint32_t *c = realloc(rep->stream_count,
				      exe->num_streams * sizeof(*c));

		if (!c)
			return -ENOMEM;
		rep->stream_count = c;
		rep->stream_cap = exe->num_streams;
	}
	if (exe->num_streams)
		memset(rep->stream_count, 0,
		       exe->num_streams * sizeof(*rep->stream_count));
	return 0;
}

/* The message of the run's failure: the first replica whose error is its
 * own (not the cancellation that another replica's failure caused). */
static int report(struct ipufw_executor *ex, unsigned int nrep, char *errbuf,
		  size_t errlen)
{
	const struct fw_replica *bad = NULL;
	const struct ipu_exe_instr *in;
	const char *msg;
	unsigned int r;

	for (r = 0; r < nrep; r++) {
		const struct fw_replica *rep = &ex->reps[r];

		if (rep->rc && (!bad || (bad->rc == -ECANCELED &&
					 rep->rc != -ECANCELED)))
			bad = rep;
	}
	if (!bad)
		return 0;
	in = &ex->run.exe->instrs[bad->pc];
	/* Cancellations alone, in a cancelled run: whichever replica came
	 * first may be one that met a barrier the cancelled one aborted,
	 * whose "another replica failed" would hide the cause. */
	if (bad->rc == -ECANCELED && atomic_load(&ex->cancel))
		msg = "the run was cancelled";
	else
		msg = bad->msg[0] ? bad->msg : strerror(-bad->rc);
	say(errbuf, errlen, "replica %u, instruction %u (%s): %s",
	    ex->run.base + bad->index, bad->pc, ipu_exe_op_name(in->op), msg);
	return bad->rc;
}

int ipufw_run(struct ipufw_executor *ex, const struct ipu_exe *exe,
	      void *const *arenas, uint64_t arena_size, char *errbuf,
	      size_t errlen)
{
	unsigned int nrep, r;
	int err;

	/* Not say(): formatting nothing cost a run of a small program as
	 * much as its op. */
	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!ex || !exe || !arenas) {
		say(errbuf, errlen, "no executor, executable or arenas");
		return -EINVAL;
	}
	nrep = exe->instance_replication_factor;
	if (nrep > ex->max_replicas) {
		say(errbuf, errlen, "%u replicas asked for, the executor has %u",
		    nrep, ex->max_replicas);
		return -EINVAL;
	}
	/* Tensors are accessed in place as their element type. */
	for (r = 0; r < nrep; r++)
		if (!arenas[r] || (uintptr_t)arenas[r] % FW_ARENA_ALIGN) {
			say(errbuf, errlen,
			    "arena of replica %u is NULL or not %d-byte aligned",
			    r, FW_ARENA_ALIGN);
			return -EINVAL;
		}
	err = preflight(exe, arena_size, errbuf, errlen);
	if (err)
		return err;
	err = split_run(ex, exe, errbuf, errlen);
	if (err)
		return err;

	atomic_store(&ex->cancel, false);
	ex->run.exe = exe;
	ex->run.arenas = arenas;
	ex->run.nrep = nrep;
	for (r = 0; r < nrep; r++) {
		if (prepare_replica(&ex->reps[r], arenas[r])) {
			say(errbuf, errlen, "no memory for the run");
			return -ENOMEM;
		}
	}

	/* A lone replica of a split program still meets the barriers of
	 * its cross-instance all-reduces (allreduce.c). */
	fw_barrier_reset(&ex->barrier, nrep);
	if (nrep == 1) {
		run_replica(&ex->reps[0]);
		return report(ex, 1, errbuf, errlen);
	}
	/* A split run's gather is per replica thread (allreduce.c). */
	if (exe->arena_size <= FW_LOCKSTEP_ARENA && !ex->run.inst) {
		exec_program(ex->reps, nrep);
		return report(ex, nrep, errbuf, errlen);
	}
	atomic_store(&ex->pending, nrep - 1);
	pthread_mutex_lock(&ex->lock);
	atomic_store(&ex->go, (uint64_t)++ex->runs << 32 | nrep);
	pthread_cond_broadcast(&ex->start);
	pthread_mutex_unlock(&ex->lock);

	run_replica(&ex->reps[0]);

	if (!fw_spin_until(atomic_load(&ex->pending) == 0)) {
		pthread_mutex_lock(&ex->lock);
		while (atomic_load(&ex->pending))
			pthread_cond_wait(&ex->done, &ex->lock);
		pthread_mutex_unlock(&ex->lock);
	}
	return report(ex, nrep, errbuf, errlen);
}

void ipufw_cancel(struct ipufw_executor *ex)
{
	if (ex)
		atomic_store(&ex->cancel, true);
}
