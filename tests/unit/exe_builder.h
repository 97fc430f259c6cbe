/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * exe_builder.h - build small executables by hand, in memory, for tests of
 * the firmware executor (header-only; everything static inline).
 *
 *	struct eb *b = eb_new(1, 1);         // replicas, num_host_transfers
 *	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(2, 3));
 *	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(2, 3));
 *	eb_op(b, IPU_OP_RELU, EB_U32(y, x), EB_NONE);
 *	eb_alloc(b);                         // zeroed arenas
 *	... fill eb_ptr(b, 0, x) ...
 *	assert_int_equal(eb_run(b), 0);      // validates, then runs
 *	eb_free(b);
 *
 * Tensors get 64-byte aligned offsets of their own, one after the other;
 * every tensor is an intermediate unless made a variable (eb_variable()),
 * with a zeroed value per group in the DATA blob. eb_run() checks the
 * executable with ipu_exe_validate() first (a test of the executor should
 * only feed it what the contract allows); eb_run_raw() does not, for the
 * tests of the executor's own defences.
 */
#ifndef IPU_TESTS_EXE_BUILDER_H
#define IPU_TESTS_EXE_BUILDER_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ipu/exe.h>
#include <ipu/firmware.h>

#define EB_MAX_TENSORS	64
#define EB_MAX_STREAMS	8
#define EB_MAX_INSTRS	64
#define EB_MAX_OPERANDS	256
#define EB_MAX_PARAMS	256
#define EB_MAX_DATA	(1 << 16)
#define EB_MAX_REPLICAS	16
#define EB_ALIGN	64

struct eb {
	struct ipu_exe exe;
	struct ipu_exe_tensor tensors[EB_MAX_TENSORS];
	struct ipu_exe_stream streams[EB_MAX_STREAMS];
	struct ipu_exe_instr instrs[EB_MAX_INSTRS];
	uint32_t operands[EB_MAX_OPERANDS];
	int64_t params[EB_MAX_PARAMS];
	uint8_t data[EB_MAX_DATA];
	char names[EB_MAX_TENSORS + EB_MAX_STREAMS][16];
	void *arenas[EB_MAX_REPLICAS];
	struct ipufw_executor *ex;
	char err[512];
};

/* A shape as (pointer, ndim) arguments: EB_SHAPE(2, 3). EB_SCALAR: ndim 0. */
#define EB_SHAPE(...)                                                          \
	(const uint64_t[]){ __VA_ARGS__ },                                     \
		(unsigned int)(sizeof((uint64_t[]){ __VA_ARGS__ }) /            \
			       sizeof(uint64_t))
#define EB_SCALAR NULL, 0u
/* Operands and integer parameters as (pointer, count) arguments. */
#define EB_U32(...)                                                            \
	(const uint32_t[]){ __VA_ARGS__ },                                     \
		(unsigned int)(sizeof((uint32_t[]){ __VA_ARGS__ }) /            \
			       sizeof(uint32_t))
#define EB_I64(...)                                                            \
	(const int64_t[]){ __VA_ARGS__ },                                      \
		(unsigned int)(sizeof((int64_t[]){ __VA_ARGS__ }) /             \
			       sizeof(int64_t))
#define EB_NONE NULL, 0u

/* Aborting is right here: a builder overflow is a bug in the test. */
static inline void eb_check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "exe_builder: %s\n", what);
		abort();
	}
}

/* A builder for @replicas replicas and @nht host transfers; its own
 * executor with room for @replicas. */
static inline struct eb *eb_new(uint32_t replicas, uint32_t nht)
{
	struct eb *b = calloc(1, sizeof(*b));

	eb_check(b && replicas <= EB_MAX_REPLICAS, "eb_new");
	b->exe.name = "test";
	b->exe.num_host_transfers = nht;
	b->exe.replication_factor = replicas;
	b->exe.instance_replication_factor = replicas;
	b->exe.ipus_per_replica = 1;
	b->exe.tensors = b->tensors;
	b->exe.streams = b->streams;
	b->exe.instrs = b->instrs;
	b->exe.operands = b->operands;
	b->exe.params = b->params;
	b->exe.data = b->data;
	eb_check(!ipufw_executor_create(replicas, &b->ex), "executor");
	return b;
}

static inline void eb_free(struct eb *b)
{
	uint32_t r;

	if (!b)
		return;
	for (r = 0; r < EB_MAX_REPLICAS; r++)
		free(b->arenas[r]);
	ipufw_executor_destroy(b->ex);
	free(b);
}

/* @bytes of arena, aligned for anything. */
static inline uint64_t eb_place(struct eb *b, uint64_t bytes)
{
	uint64_t at = b->exe.arena_size;

	b->exe.arena_size = (at + bytes + EB_ALIGN - 1) / EB_ALIGN * EB_ALIGN;
	return at;
}

/* A new intermediate tensor; returns its index. */
static inline uint32_t eb_tensor(struct eb *b, int dtype,
				 const uint64_t *shape, unsigned int ndim)
{
	uint32_t i = b->exe.num_tensors++;
	struct ipu_exe_tensor *t = &b->tensors[i];
	unsigned int d;

	eb_check(i < EB_MAX_TENSORS && ndim <= IPU_EXE_MAX_DIMS, "eb_tensor");
	snprintf(b->names[i], sizeof(b->names[i]), "t%u", i);
	t->name = b->names[i];
	t->dtype = (uint32_t)dtype;
	t->ndim = ndim;
	t->nelems = 1;
	for (d = 0; d < ndim; d++) {
		t->shape[d] = shape[d];
		t->nelems *= shape[d];
	}
	t->nbytes = t->nelems * ipu_dtype_size(dtype);
	t->offset = eb_place(b, t->nbytes);
	t->group_size = b->exe.replication_factor;
	t->group_stride = 1;
	return i;
}

/* Make tensor @t a variable, one value per group of @group_size replicas
 * @group_stride apart (initial data: zeros). Returns @t. */
static inline uint32_t eb_variable(struct eb *b, uint32_t t,
				   uint32_t group_size, uint32_t group_stride)
{
	struct ipu_exe_tensor *v = &b->tensors[t];
	uint64_t size = v->nbytes * (b->exe.replication_factor / group_size);

	eb_check(b->exe.data_size + size <= EB_MAX_DATA, "eb_variable");
	v->kind = IPU_EXE_TENSOR_VARIABLE;
	v->group_size = group_size;
	v->group_stride = group_stride;
	v->data_offset = b->exe.data_size;
	v->data_size = size;
	b->exe.data_size += (size + 7) / 8 * 8;
	return t;
}

/* A new stream of direction @dir with num_host_transfers slots. */
static inline uint32_t eb_stream(struct eb *b, int dir, int dtype,
				 const uint64_t *shape, unsigned int ndim)
{
	uint32_t i = b->exe.num_streams++;
	struct ipu_exe_stream *s = &b->streams[i];
	uint64_t n = 1;
	unsigned int d;

	eb_check(i < EB_MAX_STREAMS && ndim <= IPU_EXE_MAX_DIMS, "eb_stream");
	snprintf(b->names[EB_MAX_TENSORS + i], 16, "s%u", i);
	s->name = b->names[EB_MAX_TENSORS + i];
	s->direction = (uint32_t)dir;
	s->dtype = (uint32_t)dtype;
	s->ndim = ndim;
	for (d = 0; d < ndim; d++) {
		s->shape[d] = shape[d];
		n *= shape[d];
	}
	s->nbytes = n * ipu_dtype_size(dtype);
	s->slots_offset = eb_place(b, s->nbytes * b->exe.num_host_transfers);
	return i;
}

/* Append an instruction; returns its index. */
static inline uint32_t eb_op(struct eb *b, uint32_t op, const uint32_t *ops,
			     unsigned int nops, const int64_t *params,
			     unsigned int nparams)
{
	uint32_t i = b->exe.num_instrs++;
	struct ipu_exe_instr *in = &b->instrs[i];

	eb_check(i < EB_MAX_INSTRS &&
		 b->exe.num_operands + nops <= EB_MAX_OPERANDS &&
		 b->exe.num_params + nparams <= EB_MAX_PARAMS, "eb_op");
	in->op = op;
	in->num_operands = nops;
	in->first_operand = b->exe.num_operands;
	in->num_params = nparams;
	in->first_param = b->exe.num_params;
	if (nops)
		memcpy(&b->operands[b->exe.num_operands], ops,
		       nops * sizeof(*ops));
	if (nparams)
		memcpy(&b->params[b->exe.num_params], params,
		       nparams * sizeof(*params));
	b->exe.num_operands += nops;
	b->exe.num_params += nparams;
	return i;
}

/* A LOOP of @count over the @body_len instructions that follow it. */
static inline uint32_t eb_loop(struct eb *b, int64_t count, int64_t body_len)
{
	return eb_op(b, IPU_OP_LOOP, EB_NONE, EB_I64(count, body_len));
}

/* Zeroed arenas for every replica (after the last tensor and stream). */
static inline void eb_alloc(struct eb *b)
{
	uint64_t size = b->exe.arena_size ? b->exe.arena_size : EB_ALIGN;
	uint32_t r;

	for (r = 0; r < b->exe.replication_factor; r++) {
		free(b->arenas[r]);
		b->arenas[r] = aligned_alloc(EB_ALIGN, size);
		eb_check(b->arenas[r] != NULL, "eb_alloc");
		memset(b->arenas[r], 0, size);
	}
}

/* Tensor @t in replica @r's arena. */
static inline void *eb_ptr(struct eb *b, uint32_t r, uint32_t t)
{
	return (uint8_t *)b->arenas[r] + b->tensors[t].offset;
}

/* Slot @slot of stream @s in replica @r's arena. */
static inline void *eb_slot(struct eb *b, uint32_t r, uint32_t s,
			    uint32_t slot)
{
	return (uint8_t *)b->arenas[r] + b->streams[s].slots_offset +
	       slot * b->streams[s].nbytes;
}

/* Run without validating; the message, if any, is in b->err. */
static inline int eb_run_raw(struct eb *b)
{
	return ipufw_run(b->ex, &b->exe, b->arenas, b->exe.arena_size, b->err,
			 sizeof(b->err));
}

/* Validate (a failure is a bug in the test: it says so) and run. */
static inline int eb_run(struct eb *b)
{
	int err = ipu_exe_validate(&b->exe, b->err, sizeof(b->err));

	if (err) {
		fprintf(stderr, "exe_builder: the test's executable does not validate: %s\n",
			b->err);
		return err;
	}
	err = eb_run_raw(b);
	if (err)
		fprintf(stderr, "exe_builder: run: %d: %s\n", err, b->err);
	return err;
}

/* ---------------------------------------------------------------------- */
/* Reading and filling tensors, for reference computations                 */
/* ---------------------------------------------------------------------- */

/* Element @i of tensor @t in replica @r, as @dt (IPU_DTYPE_FLOAT64 or
 * IPU_DTYPE_INT64) into @v. */
static inline void eb_get_as(struct eb *b, uint32_t r, uint32_t t, uint64_t i,
			     int dt, void *v)
{
	const struct ipu_exe_tensor *et = &b->tensors[t];

	ipu_dtype_convert(v, dt,
			  (uint8_t *)eb_ptr(b, r, t) + i * ipu_dtype_size((int)et->dtype),
			  (int)et->dtype, 1);
}

/* Element @i as a double (exact for every device dtype). */
static inline double eb_get(struct eb *b, uint32_t r, uint32_t t, uint64_t i)
{
	double v;

	eb_get_as(b, r, t, i, IPU_DTYPE_FLOAT64, &v);
	return v;
}

/* Element @i as an int64 (integer and bool tensors). */
static inline int64_t eb_geti(struct eb *b, uint32_t r, uint32_t t, uint64_t i)
{
	int64_t v;

	eb_get_as(b, r, t, i, IPU_DTYPE_INT64, &v);
	return v;
}

/* Set element @i to @v, converted as ipu_dtype_convert() does. */
static inline void eb_set(struct eb *b, uint32_t r, uint32_t t, uint64_t i,
			  double v)
{
	const struct ipu_exe_tensor *et = &b->tensors[t];

	ipu_dtype_convert((uint8_t *)eb_ptr(b, r, t) +
				  i * ipu_dtype_size((int)et->dtype),
			  (int)et->dtype, &v, IPU_DTYPE_FLOAT64, 1);
}

/* A reproducible pseudo-random number in [0, 1). */
static inline double eb_rand(uint32_t *seed)
{
	*seed = *seed * 1664525u + 1013904223u;
	return (double)(*seed >> 8) / (double)(1u << 24);
}

/* Fill tensor @t of replica @r with values in [@lo, @hi): integers for
 * integer dtypes, anything (then rounded to the dtype) for floats. */
static inline void eb_fill(struct eb *b, uint32_t r, uint32_t t,
			   uint32_t seed, double lo, double hi)
{
	bool isf = ipu_dtype_is_float((int)b->tensors[t].dtype);
	uint64_t i;

	for (i = 0; i < b->tensors[t].nelems; i++) {
		double v = lo + (hi - lo) * eb_rand(&seed);

		eb_set(b, r, t, i, isf ? v : floor(v));
	}
}

/* The element of tensor @t that NumPy broadcasting reads for element @i of
 * a tensor of shape (@ndim, @shape). */
static inline uint64_t eb_bcast(const struct ipu_exe_tensor *t,
				unsigned int ndim, const uint64_t *shape,
				uint64_t i)
{
	uint64_t idx = 0, mul = 1;
	unsigned int d;

	for (d = ndim; d-- > 0;) {
		uint64_t c = i % shape[d];
		unsigned int lead = ndim - t->ndim;

		i /= shape[d];
		if (d >= lead) {
			if (t->shape[d - lead] != 1)
				idx += c * mul;
			mul *= t->shape[d - lead];
		}
	}
	return idx;
}

/* Whether element @i of tensors @t (replica @r) and of a reference value
 * @v rounded to @t's dtype have the same bits. */
static inline bool eb_same(struct eb *b, uint32_t r, uint32_t t, uint64_t i,
			   const void *v, int vdt)
{
	int dt = (int)b->tensors[t].dtype;
	size_t sz = ipu_dtype_size(dt);
	uint8_t want[8];

	ipu_dtype_convert(want, dt, v, vdt, 1);
	return !memcmp(want, (uint8_t *)eb_ptr(b, r, t) + i * sz, sz);
}

#endif /* IPU_TESTS_EXE_BUILDER_H */
