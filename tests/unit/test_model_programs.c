// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_model_programs.c - every op of the IR on every device dtype it
 * takes, end to end: a small program built with the IR (inputs through h2d
 * streams, outputs through d2h streams), compiled, saved to bytes with
 * ipu_exe_save(), loaded back with ipu_exe_load(), its image uploaded into
 * a BO of "model:N", its variables, constants and stream slots loaded by
 * transfer, launched through libipu (ipu_launch(), or a queue of linked
 * transfers and launches), its outputs read back by transfer and compared
 * with a reference computed here in plain C on the same input values.
 *
 * References follow the firmware's documented semantics (firmware.h,
 * dtype.h): floats compute in float32 and round to the output dtype after
 * each op (sums in double, rounded once), integers in int64 wrapping to the
 * output's width. The rounding to narrow floats comes from dtype.h's
 * conversions, so arithmetic, movement, casts and reductions are compared
 * bit for bit; transcendental ops and softmax, whose libm differs from the
 * reference's double maths in the last bits, within one unit in the last
 * place of the output dtype (float32: a relative 1e-6).
 *
 * Also: the IR refuses every op x dtype pair outside the matrix, repeats
 * over num_host_transfers = 4, and replication on 2 and 4 model IPUs with
 * all-reduce and grouped variables.
 *
 * Each op x dtype pair is a test of its own, named "op/dtype".
 */
#include "model_helpers.h"

#include <math.h>

#include <ipu/ir.h>

#include "ir_expect.h"

#define F32	IPU_DTYPE_FLOAT32
#define F16	IPU_DTYPE_FLOAT16
#define BF16	IPU_DTYPE_BFLOAT16
#define F8_143	IPU_DTYPE_FLOAT8_143
#define F8_152	IPU_DTYPE_FLOAT8_152
#define I32	IPU_DTYPE_INT32
#define I8	IPU_DTYPE_INT8
#define U8	IPU_DTYPE_UINT8
#define BOOL	IPU_DTYPE_BOOL

static const enum ipu_dtype dts[] = { F32, F16, BF16, F8_143, F8_152,
				      I32, I8, U8, BOOL };
#define NDTS	(sizeof(dts) / sizeof(dts[0]))

/* Dtype sets, as bitmasks over enum ipu_dtype. */
#define M(dt)	(1u << (dt))
#define FLOATS	(M(F32) | M(F16) | M(BF16) | M(F8_143) | M(F8_152))
#define INTS	(M(I32) | M(I8) | M(U8))
#define NUMERIC	(FLOATS | INTS)
#define ANY	(NUMERIC | M(BOOL))

#define MAXN	64	/* elements of any tensor here */
#define MAXREP	4	/* replicas, on model:0 .. model:3 */

static struct ipu_device *devs[MAXREP];
static struct ipu_queue *queue;
static uint64_t next_group = 1;
static const char *ctx = "";	/* "op/dtype" of the running test */

/* ---------------------------------------------------------------------- */
/* Host values                                                              */
/* ---------------------------------------------------------------------- */

/* @n values of dtype @dt: the device's bytes and their exact values. */
struct vals {
	int dt;
	size_t n;
	double v[MAXN];
	_Alignas(8) uint8_t raw[MAXN * 4];
};

static size_t esz(int dt)
{
	return ipu_dtype_size(dt);
}

/* @x = @src converted to @dt (rounded, saturated) and read back exactly. */
static void vals_set(struct vals *x, int dt, size_t n, const double *src)
{
	assert_true(n <= MAXN);
	x->dt = dt;
	x->n = n;
	assert_int_equal(ipu_dtype_convert(x->raw, dt, src, IPU_DTYPE_FLOAT64, n), 0);
	assert_int_equal(ipu_dtype_convert(x->v, IPU_DTYPE_FLOAT64, x->raw, dt, n), 0);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double int_min(int dt)
{
	return dt == I32 ? INT32_MIN : dt == I8 ? INT8_MIN : 0;
}

static double int_max(int dt)
{
	return dt == I32 ? INT32_MAX : dt == I8 ? INT8_MAX : dt == U8 ? UINT8_MAX : 1;
}

/*
 * @n values of @dt from @seed: floats uniform in [@lo, @hi] (multiples of
 * @q when @q > 0), integers over the dtype's whole range, bool 0 or 1.
 */
static void vals_gen(struct vals *x, int dt, size_t n, double lo, double hi,
		     double q, uint64_t seed)
{
	double src[MAXN];

	seed = seed * 1000003u + (uint64_t)dt;
	for (size_t i = 0; i < n; i++) {
		double u = (double)(splitmix(&seed) >> 11) * 0x1p-53;

		if (ipu_dtype_is_float(dt)) {
			src[i] = lo + u * (hi - lo);
			if (q > 0)
				src[i] = round(src[i] / q) * q;
		} else {
			src[i] = floor(int_min(dt) +
				       u * (int_max(dt) - int_min(dt) + 1));
		}
	}
	vals_set(x, dt, n, src);
}

/* Integer results wrap to the output's width. */
static int64_t wrap(int dt, int64_t v)
{
	switch (dt) {
	case I32: return (int32_t)(uint32_t)(uint64_t)v;
	case I8: return (int8_t)(uint8_t)(uint64_t)v;
	case U8: return (uint8_t)(uint64_t)v;
	default: return v != 0;
	}
}

/* Element @i of @w: the float32 @f rounded to w's dtype (an op's result),
 * a double rounded once (sums), or an integer wrapped. */
static void put_f32(struct vals *w, size_t i, float f)
{
	ipu_dtype_convert(w->raw + i * esz(w->dt), w->dt, &f, IPU_DTYPE_FLOAT32, 1);
	ipu_dtype_convert(&w->v[i], IPU_DTYPE_FLOAT64, w->raw + i * esz(w->dt), w->dt, 1);
}

static void put_f64(struct vals *w, size_t i, double d)
{
	ipu_dtype_convert(w->raw + i * esz(w->dt), w->dt, &d, IPU_DTYPE_FLOAT64, 1);
	ipu_dtype_convert(&w->v[i], IPU_DTYPE_FLOAT64, w->raw + i * esz(w->dt), w->dt, 1);
}

static void put_int(struct vals *w, size_t i, int64_t v)
{
	put_f64(w, i, (double)wrap(w->dt, v));
}

static void vals_init(struct vals *w, int dt, size_t n)
{
	memset(w, 0, sizeof(*w));
	w->dt = dt;
	w->n = n;
}

static double get(int dt, const void *raw, size_t i)
{
	double d;

	ipu_dtype_convert(&d, IPU_DTYPE_FLOAT64, (const uint8_t *)raw + i * esz(dt), dt, 1);
	return d;
}

/* @got (w's dtype, w->n elements) is @w exactly: the same bytes, or both
 * NaN when !@bitwise. */
static void expect_vals(const char *what, const struct vals *w, const void *got,
			bool bitwise)
{
	size_t s = esz(w->dt);

	for (size_t i = 0; i < w->n; i++) {
		double g = get(w->dt, got, i);

		if (!memcmp((const uint8_t *)got + i * s, w->raw + i * s, s) ||
		    (!bitwise && isnan(g) && isnan(w->v[i])))
			continue;
		fail_msg("%s %s element %zu: got %.9g, want %.9g", ctx, what, i,
			 g, w->v[i]);
	}
}

/* One unit in the last place of @dt at @v (subnormals included). */
static double ulp(int dt, double v)
{
	static const struct { int mbits, emin; } f[] = {
		[F32] = { 23, -126 }, [F16] = { 10, -14 }, [BF16] = { 7, -126 },
		[F8_143] = { 3, -7 }, [F8_152] = { 2, -15 },
	};
	int e;

	frexp(fabs(v), &e);
	if (v == 0 || e - 1 < f[dt].emin)
		e = f[dt].emin + 1;
	return ldexp(1.0, e - 1 - f[dt].mbits);
}

/* @got within one ulp of the output dtype of the exact @want (float32: a
 * relative @rel, plus @abs for results of a cancellation). */
static void expect_near(const char *what, int dt, const void *got,
			const double *want, size_t n, double rel, double abs)
{
	for (size_t i = 0; i < n; i++) {
		double g = get(dt, got, i);
		double tol = fmax(ulp(dt, want[i]), rel * fabs(want[i]) + abs);

		if (!(fabs(g - want[i]) <= tol))
			fail_msg("%s %s element %zu: got %.9g, want %.9g (+-%.3g)",
				 ctx, what, i, g, want[i], tol);
	}
}

/* Flat index into a tensor of shape @si (@ni dims) broadcast NumPy-style
 * to shape @so (@no dims), of element @flat of @so. */
static size_t bcast(size_t no, const uint64_t *so, size_t flat, size_t ni,
		    const uint64_t *si)
{
	size_t idx = 0, mul = 1;

	for (size_t d = no; d-- > 0;) {
		size_t c = flat % so[d];

		flat /= so[d];
		if (d + ni >= no) {
			size_t di = d + ni - no;

			idx += (si[di] == 1 ? 0 : c) * mul;
			mul *= si[di];
		}
	}
	return idx;
}

/* ---------------------------------------------------------------------- */
/* Compile, save, load, run on the model                                    */
/* ---------------------------------------------------------------------- */

/*
 * A program on the model: the executable loaded back from the bytes
 * ipu_exe_save() wrote, and per replica its image and arena BOs on
 * model:r and a host mirror of the arena, through which stream slots go.
 */
struct mp {
	struct ipu_exe *exe;
	uint32_t nrep;
	struct ipu_bo *exe_bo[MAXREP], *arena[MAXREP];
	struct ipu_launch_desc l[MAXREP];
	uint8_t *mirror[MAXREP];
};

static void upload(struct ipu_bo *bo, uint64_t off, const void *src, uint64_t len)
{
	if (ipu_xfer_to_device(bo, off, src, len))
		fail_msg("%s: transfer in: %s", ctx, ipu_errmsg());
}

static void download(struct ipu_bo *bo, uint64_t off, void *dst, uint64_t len)
{
	if (ipu_xfer_from_device(bo, off, dst, len))
		fail_msg("%s: transfer out: %s", ctx, ipu_errmsg());
}

/* Compile @ir (and destroy it), save, load back, and set the program up
 * on model:0 .. model:R-1 with its weights (S17) loaded. */
static struct mp *mp_build(struct ipu_ir *ir)
{
	struct ipu_exe *compiled = ir_compile_ok(ir);
	struct mp *p = calloc(1, sizeof(*p));
	void *img, *again;
	size_t len, len2;
	char err[512];

	assert_non_null(p);
	ipu_ir_destroy(ir);
	if (ipu_exe_save(compiled, &img, &len, err, sizeof(err)))
		fail_msg("%s: save: %s", ctx, err);
	ipu_exe_free(compiled);
	if (ipu_exe_load(img, len, &p->exe, err, sizeof(err)))
		fail_msg("%s: load: %s", ctx, err);
	/* What was loaded is what was saved: it saves to the same bytes. */
	if (ipu_exe_save(p->exe, &again, &len2, err, sizeof(err)))
		fail_msg("%s: save again: %s", ctx, err);
	assert_true(len2 == len && !memcmp(img, again, len));
	free(again);

	p->nrep = p->exe->replication_factor;
	assert_true(p->nrep >= 1 && p->nrep <= MAXREP);
	for (uint32_t r = 0; r < p->nrep; r++) {
		const struct ipu_exe *e = p->exe;

		p->exe_bo[r] = mh_bo(devs[r], len);
		upload(p->exe_bo[r], 0, img, len);
		p->arena[r] = mh_bo(devs[r], e->arena_size);
		p->mirror[r] = calloc(1, e->arena_size);
		assert_non_null(p->mirror[r]);
		p->l[r] = (struct ipu_launch_desc){
			.exe_bo = p->exe_bo[r], .exe_size = len,
			.arena_bo = p->arena[r], .replica = r,
			.num_replicas = p->nrep,
		};
		for (uint32_t i = 0; i < e->num_tensors; i++) {
			const struct ipu_exe_tensor *t = &e->tensors[i];
			uint32_t g = 0;

			if (t->kind == IPU_EXE_TENSOR_INTERMEDIATE)
				continue;
			assert_false(t->flags & IPU_EXE_TENSOR_MMAP);
			if (t->kind == IPU_EXE_TENSOR_VARIABLE)
				g = ipu_exe_replica_group(t->group_size,
							  t->group_stride, r);
			upload(p->arena[r], t->offset,
			       e->data + t->data_offset + g * t->nbytes, t->nbytes);
		}
	}
	free(img);
	return p;
}

static void mp_free(struct mp *p)
{
	for (uint32_t r = 0; r < p->nrep; r++) {
		ipu_bo_destroy(p->exe_bo[r]);
		ipu_bo_destroy(p->arena[r]);
		free(p->mirror[r]);
	}
	ipu_exe_free(p->exe);
	free(p);
}

/* Slot @iter of stream @name of replica @rep, in the host mirror. */
static void *mp_slot(struct mp *p, const char *name, uint32_t iter, uint32_t rep)
{
	int s = ipu_exe_find_stream(p->exe, name);

	if (s < 0)
		fail_msg("%s: no stream '%s'", ctx, name);
	assert_true(iter < p->exe->num_host_transfers && rep < p->nrep);
	return p->mirror[rep] + p->exe->streams[s].slots_offset +
	       iter * p->exe->streams[s].nbytes;
}

/* Fill a slot of an h2d stream with @x, which must be exactly its size. */
static void mp_put(struct mp *p, const char *name, uint32_t iter, uint32_t rep,
		   const struct vals *x)
{
	int s = ipu_exe_find_stream(p->exe, name);

	assert_true(s >= 0);
	assert_int_equal(p->exe->streams[s].nbytes, x->n * esz(x->dt));
	assert_int_equal(p->exe->streams[s].dtype, x->dt);
	memcpy(mp_slot(p, name, iter, rep), x->raw, x->n * esz(x->dt));
}

/* Variable @name of replica @rep, read from the arena into @dst. */
static void mp_var(struct mp *p, const char *name, uint32_t rep, void *dst)
{
	int t = ipu_exe_find_tensor(p->exe, name);

	assert_true(t >= 0);
	download(p->arena[rep], p->exe->tensors[t].offset, dst,
		 p->exe->tensors[t].nbytes);
}

/* Every slot of every stream of direction @dir, with their byte ranges. */
static size_t mp_slots(struct mp *p, uint32_t dir, uint64_t *off, uint64_t *len)
{
	size_t n = 0;

	for (uint32_t s = 0; s < p->exe->num_streams; s++) {
		const struct ipu_exe_stream *st = &p->exe->streams[s];

		if (st->direction != dir)
			continue;
		for (uint32_t i = 0; i < p->exe->num_host_transfers; i++) {
			if (off) {
				off[n] = st->slots_offset + i * st->nbytes;
				len[n] = st->nbytes;
			}
			n++;
		}
	}
	return n;
}

/*
 * One run through a queue: per replica a chain of transfers into every
 * h2d slot, the launch, and transfers out of every d2h slot, linked; the
 * replicas' launches share one group id.
 */
static void mp_run_queued(struct mp *p)
{
	size_t nin = mp_slots(p, IPU_EXE_STREAM_H2D, NULL, NULL);
	size_t nout = mp_slots(p, IPU_EXE_STREAM_D2H, NULL, NULL);
	size_t per = nin + 1 + nout, n = p->nrep * per, k = 0;
	uint64_t *off = calloc(nin + nout, sizeof(*off));
	uint64_t *len = calloc(nin + nout, sizeof(*len));
	struct ipu_cmd *cmds = calloc(n, sizeof(*cmds));
	struct ipu_completion *c = calloc(n, sizeof(*c));
	uint64_t group = next_group++;

	assert_true(off && len && cmds && c);
	mp_slots(p, IPU_EXE_STREAM_H2D, off, len);
	mp_slots(p, IPU_EXE_STREAM_D2H, off + nin, len + nin);
	for (uint32_t r = 0; r < p->nrep; r++) {
		for (size_t i = 0; i < per; i++, k++) {
			size_t j = i < nin ? i : i - 1;

			if (i == nin) {
				p->l[r].group = group;
				ipu_cmd_prep_launch(&cmds[k], &p->l[r], k);
			} else {
				struct ipu_xfer_desc d = mh_xfer(
					p->arena[r], off[j], p->mirror[r] + off[j],
					len[j], i < nin ? IPU_XFER_DIR_TO_DEVICE :
							  IPU_XFER_DIR_FROM_DEVICE);

				ipu_cmd_prep_xfer(&cmds[k], &d, k);
			}
			if (i + 1 < per)
				cmds[k].flags = IPU_CMD_F_LINK;
		}
	}
	assert_int_equal(ipu_queue_submit(queue, cmds, n), 0);
	mh_reap(queue, c, n);
	for (k = 0; k < n; k++)
		if (c[k].result)
			fail_msg("%s: command %llu of the run: %d (%s)", ctx,
				 (unsigned long long)c[k].user_data, c[k].result,
				 c[k].msg);
	free(off);
	free(len);
	free(cmds);
	free(c);
}

/* One run: a single replica synchronously (transfers, ipu_launch(),
 * transfers), replicated runs through the queue. */
static void mp_run(struct mp *p)
{
	size_t nin, nout, i;
	uint64_t off[64], len[64];
	int ret;

	if (p->nrep > 1) {
		mp_run_queued(p);
		return;
	}
	nin = mp_slots(p, IPU_EXE_STREAM_H2D, NULL, NULL);
	nout = mp_slots(p, IPU_EXE_STREAM_D2H, NULL, NULL);
	assert_true(nin + nout <= 64);
	mp_slots(p, IPU_EXE_STREAM_H2D, off, len);
	mp_slots(p, IPU_EXE_STREAM_D2H, off + nin, len + nin);
	for (i = 0; i < nin; i++)
		upload(p->arena[0], off[i], p->mirror[0] + off[i], len[i]);
	ret = ipu_launch(devs[0], &p->l[0]);
	if (ret)
		fail_msg("%s: launch: %d: %s", ctx, ret, ipu_errmsg());
	for (i = nin; i < nin + nout; i++)
		download(p->arena[0], off[i], p->mirror[0] + off[i], len[i]);
}

/* ---------------------------------------------------------------------- */
/* The matrix                                                               */
/* ---------------------------------------------------------------------- */

enum family {
	UNARY, BINARY, MATMUL, MOVE, REDUCE, SOFTMAX, CAST, SCALED_ADD,
	ASSIGN, ALL_REDUCE, REPEAT,
};

/**
 * struct opcase - one op (or one setting of it) and the dtypes it takes.
 * @name: the tests' name, "name/dtype".
 * @irop: the op's name in the IR's refusals.
 * @fam: how it is built and checked.
 * @op: IPU_OP_* of the op; ALL_REDUCE: enum ipu_ir_collective.
 * @dts: the dtypes the IR takes; the others it must refuse.
 * @nrep: replicas (ALL_REDUCE, REPEAT); 0 is 1.
 * @variant: MATMUL: 1 for batched.
 * @lo, @hi: range of float inputs.
 */
struct opcase {
	const char *name, *irop;
	enum family fam;
	uint32_t op;
	unsigned int dts;
	uint32_t nrep;
	int variant;
	double lo, hi;
	ipu_tensor (*un)(struct ipu_ir *, ipu_tensor);
	ipu_tensor (*bin)(struct ipu_ir *, ipu_tensor, ipu_tensor);
	ipu_tensor (*red)(struct ipu_ir *, ipu_tensor, const int *, size_t, bool);
	ipu_tensor (*sm)(struct ipu_ir *, ipu_tensor, int);
};

#define C(n, i, f, o, d, ...) \
	{ .name = n, .irop = i, .fam = f, .op = o, .dts = d, __VA_ARGS__ }
#define UN(n, o, d, l, h) C(#n, #n, UNARY, o, d, .lo = l, .hi = h, .un = ipu_ir_##n)
#define BIN(n, o) C(#n, #n, BINARY, o, NUMERIC, .lo = -6, .hi = 6, .bin = ipu_ir_##n)
#define RED(n, o, d) C(#n, #n, REDUCE, o, d, .lo = -6, .hi = 6, .red = ipu_ir_##n)
#define SM(n, o) C(#n, #n, SOFTMAX, o, FLOATS, .lo = -6, .hi = 6, .sm = ipu_ir_##n)

static const struct opcase cases[] = {
	BIN(add, IPU_OP_ADD),
	BIN(sub, IPU_OP_SUB),
	BIN(mul, IPU_OP_MUL),
	BIN(div, IPU_OP_DIV),
	UN(neg, IPU_OP_NEG, NUMERIC, -6, 6),
	UN(abs, IPU_OP_ABS, NUMERIC, -6, 6),
	UN(relu, IPU_OP_RELU, NUMERIC, -6, 6),
	UN(gelu, IPU_OP_GELU, FLOATS, -5, 5),
	UN(tanh, IPU_OP_TANH, FLOATS, -5, 5),
	UN(sigmoid, IPU_OP_SIGMOID, FLOATS, -5, 5),
	UN(exp, IPU_OP_EXP, FLOATS, -5, 5),
	UN(log, IPU_OP_LOG, FLOATS, 0.01, 60),
	UN(sqrt, IPU_OP_SQRT, FLOATS, 0, 60),
	C("matmul", "matmul", MATMUL, IPU_OP_MATMUL, NUMERIC, .lo = -2, .hi = 2),
	C("matmul_batched", "matmul", MATMUL, IPU_OP_MATMUL, NUMERIC,
	  .variant = 1, .lo = -2, .hi = 2),
	C("transpose", "transpose", MOVE, IPU_OP_TRANSPOSE, ANY, .lo = -6, .hi = 6),
	C("reshape", "reshape", MOVE, IPU_OP_RESHAPE, ANY, .lo = -6, .hi = 6),
	C("slice", "slice", MOVE, IPU_OP_SLICE, ANY, .lo = -6, .hi = 6),
	C("concat", "concat", MOVE, IPU_OP_CONCAT, ANY, .lo = -6, .hi = 6),
	RED(reduce_sum, IPU_OP_REDUCE_SUM, NUMERIC),
	RED(reduce_mean, IPU_OP_REDUCE_MEAN, FLOATS),
	RED(reduce_max, IPU_OP_REDUCE_MAX, NUMERIC),
	SM(softmax, IPU_OP_SOFTMAX),
	SM(log_softmax, IPU_OP_LOG_SOFTMAX),
	C("cast", "cast", CAST, IPU_OP_CAST, ANY, .lo = 0),
	C("scaled_add_inplace", "scaled_add_inplace", SCALED_ADD,
	  IPU_OP_SCALED_ADD_INPLACE, FLOATS, .lo = -4, .hi = 4),
	C("assign", "assign", ASSIGN, IPU_OP_ASSIGN, ANY, .lo = -6, .hi = 6),
	C("all_reduce_sum_x2", "all_reduce", ALL_REDUCE, IPU_IR_ALL_REDUCE_SUM,
	  NUMERIC, .nrep = 2, .lo = -6, .hi = 6),
	C("all_reduce_sum_x4", "all_reduce", ALL_REDUCE, IPU_IR_ALL_REDUCE_SUM,
	  NUMERIC, .nrep = 4, .lo = -6, .hi = 6),
	C("all_reduce_mean_x2", "all_reduce", ALL_REDUCE, IPU_IR_ALL_REDUCE_MEAN,
	  FLOATS, .nrep = 2, .lo = -6, .hi = 6),
	C("all_reduce_mean_x4", "all_reduce", ALL_REDUCE, IPU_IR_ALL_REDUCE_MEAN,
	  FLOATS, .nrep = 4, .lo = -6, .hi = 6),
	C("repeat", "add", REPEAT, IPU_OP_ADD, NUMERIC, .nrep = 1, .lo = -6, .hi = 6),
	C("repeat_x2", "all_reduce", REPEAT, IPU_OP_ADD, NUMERIC, .nrep = 2,
	  .lo = -6, .hi = 6),
};
#define NCASES	(sizeof(cases) / sizeof(cases[0]))

/* Matmul shapes: 2-D, and batched with broadcast batch dimensions. */
static const struct {
	size_t na, nb, no;
	uint64_t a[4], b[4], o[4];
} mm[2] = {
	{ 2, 2, 2, { 3, 4 }, { 4, 5 }, { 3, 5 } },
	{ 4, 3, 4, { 2, 1, 3, 4 }, { 3, 4, 2 }, { 2, 3, 3, 2 } },
};

/* Every test's x: [2, 3, 4]. */
#define X3	3, SHAPE(2, 3, 4)

/* Input @name: a host_load of a new h2d stream. */
static ipu_tensor load(struct ipu_ir *ir, const char *name, int dt, size_t nd,
		       const uint64_t *shape)
{
	return ipu_ir_host_load(ir, ipu_ir_h2d_stream(ir, name, dt, nd, shape),
				NULL);
}

/* Output @name of dtype @dt and shape @shape (checking what the IR
 * inferred): a host_store to a new d2h stream. A failed @t is returned as
 * it is, its message left alone. */
static int store(struct ipu_ir *ir, const char *name, int dt, size_t nd,
		 const uint64_t *shape, ipu_tensor t)
{
	int err = ipu_tensor_error(t);

	if (err)
		return err;
	return ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, name, dt, nd, shape), t);
}

/* Initial values of the variables: the same at build and check time. */
static void var_init(struct vals *v, int dt, size_t n, const struct opcase *c)
{
	vals_gen(v, dt, n, c->lo, c->hi, c->fam == SCALED_ADD ? 0x1p-6 : 0, 77);
}

/* Variable groupings: R = 2, one value per replica; R = 4, groups {0, 2}
 * and {1, 3}. all-reduce groups: pairs {0, 1} (and {2, 3}); with R = 4
 * also "strided" (stride 2): {0, 2} and {1, 3}. check_all_reduce()
 * spells these groups out rather than asking exe.h's grouping functions,
 * which the firmware uses too. */
static void groupings(struct ipu_ir *ir, uint32_t nrep,
		      struct ipu_replica_grouping *var,
		      struct ipu_replica_grouping *ar,
		      struct ipu_replica_grouping *strided)
{
	assert_int_equal(ipu_ir_replica_grouping(ir, nrep == 4 ? 2 : 1,
						 nrep == 4 ? 2 : 1, var), 0);
	assert_int_equal(ipu_ir_replica_grouping(ir, 1, 2, ar), 0);
	if (nrep == 4)
		assert_int_equal(ipu_ir_replica_grouping(ir, 2, 2, strided), 0);
}

static int build_repeat(struct ipu_ir *ir, const struct opcase *c, int dt)
{
	ipu_graph body = ipu_ir_create_graph(ir, "body");
	ipu_stream in = ipu_ir_h2d_stream(ir, "x", dt, 1, SHAPE(4));
	ipu_stream out = ipu_ir_d2h_stream(ir, "acc", dt, 1, SHAPE(4));
	ipu_tensor acc, x, o[1], final;
	struct vals init;
	int err;

	assert_int_equal(ipu_ir_set_num_host_transfers(ir, 4), 0);
	assert_int_equal(ipu_ir_push_graph(ir, body), 0);
	acc = ipu_ir_graph_input(ir, "acc", dt, 1, SHAPE(4));
	x = ipu_ir_host_load(ir, in, NULL);
	if (c->nrep > 1)
		x = ipu_ir_all_reduce(ir, x, IPU_IR_ALL_REDUCE_SUM, NULL);
	acc = ipu_ir_add(ir, acc, x);
	err = ipu_tensor_error(acc);
	if (!err)
		err = ipu_ir_host_store(ir, out, acc);
	if (!err)
		err = ipu_ir_graph_output(ir, acc);
	assert_int_equal(ipu_ir_pop_graph(ir), 0);
	if (err)
		return err;
	var_init(&init, dt, 4, c);
	acc = ipu_ir_constant(ir, "acc0", dt, 1, SHAPE(4), init.raw);
	err = ipu_ir_repeat(ir, body, 4, &acc, 1, o, 1);
	if (err)
		return err;
	/* The loop's output, in a variable: a stream is used
	 * num_host_transfers times per run, not once after the loop. */
	memset(init.raw, 0, sizeof(init.raw));
	final = ipu_ir_variable(ir, "final", dt, 1, SHAPE(4), init.raw, NULL);
	return ipu_ir_assign(ir, final, o[0]);
}

/* Add case @c's program on dtype @dt to @ir. Return: 0, or the error of
 * the first call that failed, with its message in the ir. */
static int build(struct ipu_ir *ir, const struct opcase *c, int dt)
{
	struct ipu_replica_grouping vg, ag, sg;
	ipu_tensor x, y, v, o;
	struct vals init;
	int err;

	switch (c->fam) {
	case UNARY:
		return store(ir, "out", dt, 2, SHAPE(3, 4),
			     c->un(ir, load(ir, "x", dt, 2, SHAPE(3, 4))));
	case BINARY:
		/* both broadcast: [3, 1] and [4] into [3, 4] */
		x = load(ir, "x", dt, 2, SHAPE(3, 1));
		y = load(ir, "y", dt, 1, SHAPE(4));
		return store(ir, "out", dt, 2, SHAPE(3, 4), c->bin(ir, x, y));
	case MATMUL:
		x = load(ir, "a", dt, mm[c->variant].na, mm[c->variant].a);
		y = load(ir, "b", dt, mm[c->variant].nb, mm[c->variant].b);
		return store(ir, "out", dt, mm[c->variant].no, mm[c->variant].o,
			     ipu_ir_matmul(ir, x, y));
	case MOVE:
		x = load(ir, "x", dt, X3);
		switch (c->op) {
		case IPU_OP_TRANSPOSE:
			return store(ir, "out", dt, 3, SHAPE(4, 2, 3),
				     ipu_ir_transpose(ir, x, (int[]){ -1, 0, 1 }, 3));
		case IPU_OP_RESHAPE:
			return store(ir, "out", dt, 2, SHAPE(4, 6),
				     ipu_ir_reshape(ir, x, (int64_t[]){ 4, -1 }, 2));
		case IPU_OP_SLICE:
			/* x[:, -2:100, 1:4:2] */
			return store(ir, "out", dt, 3, SHAPE(2, 2, 2),
				     ipu_ir_slice(ir, x, 2, (int64_t[]){ -2, 1 },
						  (int64_t[]){ 100, 4 },
						  (int64_t[]){ 1, 2 },
						  (int[]){ 1, -1 }));
		default:
			y = load(ir, "y", dt, 3, SHAPE(2, 1, 4));
			return store(ir, "out", dt, 3, SHAPE(2, 7, 4),
				     ipu_ir_concat(ir, (ipu_tensor[]){ x, y, x }, 3, -2));
		}
	case REDUCE:
		x = load(ir, "x", dt, X3);
		err = store(ir, "out", dt, 1, SHAPE(3),
			    c->red(ir, x, (int[]){ 0, -1 }, 2, false));
		return err ? err : store(ir, "all", dt, 3, SHAPE(1, 1, 1),
					 c->red(ir, x, NULL, 0, true));
	case SOFTMAX:
		return store(ir, "out", dt, X3, c->sm(ir, load(ir, "x", dt, X3), 1));
	case CAST:
		x = load(ir, "x", dt, 1, SHAPE(20));
		for (size_t k = 0; k < NDTS; k++) {
			err = store(ir, ipu_dtype_name(dts[k]), dts[k], 1,
				    SHAPE(20), ipu_ir_cast(ir, x, dts[k]));
			if (err)
				return err;
		}
		return 0;
	case SCALED_ADD:
	case ASSIGN:
		var_init(&init, dt, 6, c);
		v = ipu_ir_variable(ir, "v", dt, 2, SHAPE(2, 3), init.raw, NULL);
		x = load(ir, "x", dt, 2, SHAPE(2, 3));
		err = c->fam == ASSIGN ? ipu_ir_assign(ir, v, x) :
			ipu_ir_scaled_add_inplace(ir, v, x, 0.5f, -1.5f);
		return err ? err : store(ir, "out", dt, 2, SHAPE(2, 3), v);
	case ALL_REDUCE: {
		assert_int_equal(ipu_ir_set_replication_factor(ir, c->nrep), 0);
		groupings(ir, c->nrep, &vg, &ag, &sg);
		IPU_OPTS(ipu_ir_variable_opts, vo, .grouping = &vg);

		var_init(&init, dt, 6 * ipu_exe_num_groups(c->nrep, vg.group_size), c);
		v = ipu_ir_variable(ir, "v", dt, 1, SHAPE(6), init.raw, &vo);
		x = load(ir, "x", dt, 1, SHAPE(6));
		/* bool cannot be added: let the all-reduce refuse it */
		y = dt == BOOL ? x : ipu_ir_add(ir, x, v);
		o = ipu_ir_all_reduce(ir, y, (enum ipu_ir_collective)c->op, NULL);
		err = store(ir, "all", dt, 1, SHAPE(6), o);
		o = ipu_ir_all_reduce(ir, y, (enum ipu_ir_collective)c->op, &ag);
		err = err ? err : store(ir, "pairs", dt, 1, SHAPE(6), o);
		if (err || c->nrep != 4)
			return err;
		o = ipu_ir_all_reduce(ir, y, (enum ipu_ir_collective)c->op, &sg);
		return store(ir, "strided", dt, 1, SHAPE(6), o);
	}
	case REPEAT:
		if (c->nrep > 1)
			assert_int_equal(ipu_ir_set_replication_factor(ir, c->nrep), 0);
		return build_repeat(ir, c, dt);
	}
	return -EINVAL;
}

/* ---------------------------------------------------------------------- */
/* References and checks, one per family                                   */
/* ---------------------------------------------------------------------- */

static float ref_f32(uint32_t op, float x, float y)
{
	switch (op) {
	case IPU_OP_ADD: return x + y;
	case IPU_OP_SUB: return x - y;
	case IPU_OP_MUL: return x * y;
	case IPU_OP_DIV: return x / y;
	case IPU_OP_NEG: return -x;
	case IPU_OP_ABS: return fabsf(x);
	default: return x < 0 ? 0.0f : x;	/* relu */
	}
}

/* Exact in int64 (inputs have at most 32 bits); the caller wraps. */
static int64_t ref_int(uint32_t op, int64_t x, int64_t y)
{
	switch (op) {
	case IPU_OP_ADD: return x + y;
	case IPU_OP_SUB: return x - y;
	case IPU_OP_MUL: return x * y;
	case IPU_OP_DIV: return y ? x / y : 0;	/* x / 0 is 0 */
	case IPU_OP_NEG: return -x;
	case IPU_OP_ABS: return x < 0 ? -x : x;
	default: return x < 0 ? 0 : x;
	}
}

static double sigmoid(double x)
{
	return 1.0 / (1.0 + exp(-x));
}

static double ref_math(uint32_t op, double x)
{
	switch (op) {
	case IPU_OP_GELU:	/* the tanh form: 0.5 x (1 + tanh(u)) = x sigmoid(2u) */
		return x * sigmoid(2 * sqrt(2 / M_PI) * (x + 0.044715 * x * x * x));
	case IPU_OP_TANH: return tanh(x);
	case IPU_OP_SIGMOID: return sigmoid(x);
	case IPU_OP_EXP: return exp(x);
	case IPU_OP_LOG: return log(x);
	default: return sqrt(x);
	}
}

/*
 * Relative tolerance of float32 results of libm functions: a few ulps.
 * GELU's is wider: sigmoid(u) for u down to -17 has a relative error of
 * |u| times that of u, which float32 rounds (5.7e-7 seen at x = -4.9).
 */
#define REL		1e-6
#define REL_GELU	2e-6

static void check_elementwise(const struct opcase *c, int dt, struct mp *p)
{
	bool isf = ipu_dtype_is_float(dt), math = c->dts == FLOATS;
	size_t nx = c->fam == BINARY ? 3 : 12;
	struct vals x, y, w;
	double want[12];

	vals_gen(&x, dt, nx, c->lo, c->hi, 0, 1);
	if (c->fam == BINARY) {
		double ys[4] = { 0, -1, 3, -2.5 };

		if (isf) {	/* divisors away from 0, but one x / 0 */
			vals_gen(&y, dt, 4, 0.25, 4, 0, 2);
			memcpy(ys, y.v, sizeof(ys));
			ys[1] = -ys[1];
			if (c->op == IPU_OP_DIV)
				ys[3] = 0;
		} else if (c->op != IPU_OP_DIV) {
			vals_gen(&y, dt, 4, 0, 0, 0, 2);
			memcpy(ys, y.v, sizeof(ys));
		}
		vals_set(&y, dt, 4, ys);	/* ints: saturated to range */
		mp_put(p, "y", 0, 0, &y);
	}
	if (!isf) {	/* the most negative value: -min wraps, min / -1 too */
		double xs[12];

		memcpy(xs, x.v, nx * sizeof(xs[0]));
		xs[1] = -1e10;
		vals_set(&x, dt, nx, xs);
	}
	mp_put(p, "x", 0, 0, &x);
	mp_run(p);

	vals_init(&w, dt, 12);
	for (size_t i = 0; i < 12; i++) {
		double xi = x.v[c->fam == BINARY ? i / 4 : i];
		double yi = c->fam == BINARY ? y.v[i % 4] : 0;

		if (math)
			want[i] = ref_math(c->op, xi);
		else if (isf)
			put_f32(&w, i, ref_f32(c->op, (float)xi, (float)yi));
		else
			put_int(&w, i, ref_int(c->op, (int64_t)xi, (int64_t)yi));
	}
	if (math)
		expect_near("out", dt, mp_slot(p, "out", 0, 0), want, 12,
			    c->op == IPU_OP_GELU ? REL_GELU : REL, 0);
	else
		expect_vals("out", &w, mp_slot(p, "out", 0, 0), false);
}

static size_t nelems(size_t nd, const uint64_t *s)
{
	size_t n = 1;

	while (nd--)
		n *= s[nd];
	return n;
}

static void check_matmul(const struct opcase *c, int dt, struct mp *p)
{
	const __typeof__(mm[0]) *s = &mm[c->variant];
	size_t m = s->a[s->na - 2], k = s->a[s->na - 1], n = s->b[s->nb - 1];
	size_t nbatch = nelems(s->no - 2, s->o);
	bool isf = ipu_dtype_is_float(dt);
	struct vals a, b, w;

	/* Floats: multiples of 1/4, so that float32 sums are exact in any
	 * order and the result rounds once, from its exact value. */
	vals_gen(&a, dt, nelems(s->na, s->a), c->lo, c->hi, 0.25, 1);
	vals_gen(&b, dt, nelems(s->nb, s->b), c->lo, c->hi, 0.25, 2);
	mp_put(p, "a", 0, 0, &a);
	mp_put(p, "b", 0, 0, &b);
	mp_run(p);

	vals_init(&w, dt, nbatch * m * n);
	for (size_t bi = 0; bi < nbatch; bi++) {
		size_t ba = bcast(s->no - 2, s->o, bi, s->na - 2, s->a);
		size_t bb = bcast(s->no - 2, s->o, bi, s->nb - 2, s->b);

		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++) {
				double sum = 0;
				uint64_t isum = 0;

				for (size_t l = 0; l < k; l++) {
					double av = a.v[(ba * m + i) * k + l];
					double bv = b.v[(bb * k + l) * n + j];

					sum += av * bv;
					isum += (uint64_t)(int64_t)av *
						(uint64_t)(int64_t)bv;
				}
				if (isf)
					put_f64(&w, (bi * m + i) * n + j, sum);
				else
					put_int(&w, (bi * m + i) * n + j, (int64_t)isum);
			}
	}
	expect_vals("out", &w, mp_slot(p, "out", 0, 0), false);
}

/* Element @i of the output of a movement op on x [2, 3, 4] (and y
 * [2, 1, 4]): the index into x, or into y as -1 - index. */
static long move_src(uint32_t op, size_t i)
{
	size_t a, b, d;

	switch (op) {
	case IPU_OP_TRANSPOSE:	/* out [4, 2, 3] = x[a][b][d] at [d][a][b] */
		d = i / 6, a = i / 3 % 2, b = i % 3;
		return (long)((a * 3 + b) * 4 + d);
	case IPU_OP_RESHAPE:
		return (long)i;
	case IPU_OP_SLICE:	/* out [2, 2, 2] = x[a][1 + b][1 + 2d] */
		a = i / 4, b = i / 2 % 2, d = i % 2;
		return (long)((a * 3 + 1 + b) * 4 + 1 + 2 * d);
	default:		/* concat of x, y, x along axis 1: [2, 7, 4] */
		a = i / 28, b = i / 4 % 7, d = i % 4;
		if (b == 3)
			return -1 - (long)(a * 4 + d);
		return (long)((a * 3 + b % 4) * 4 + d);
	}
}

static void check_move(const struct opcase *c, int dt, struct mp *p)
{
	size_t n = c->op == IPU_OP_SLICE ? 8 : c->op == IPU_OP_CONCAT ? 56 : 24;
	struct vals x, y, w;

	vals_gen(&x, dt, 24, c->lo, c->hi, 0, 1);
	mp_put(p, "x", 0, 0, &x);
	if (c->op == IPU_OP_CONCAT) {
		vals_gen(&y, dt, 8, c->lo, c->hi, 0, 2);
		mp_put(p, "y", 0, 0, &y);
	}
	mp_run(p);
	vals_init(&w, dt, n);
	for (size_t i = 0; i < n; i++) {
		long s = move_src(c->op, i);
		const struct vals *from = s < 0 ? &y : &x;
		size_t j = s < 0 ? (size_t)(-1 - s) : (size_t)s;

		memcpy(w.raw + i * esz(dt), from->raw + j * esz(dt), esz(dt));
		w.v[i] = from->v[j];
	}
	expect_vals("out", &w, mp_slot(p, "out", 0, 0), true);
}

static void check_reduce(const struct opcase *c, int dt, struct mp *p)
{
	bool isf = ipu_dtype_is_float(dt), max = c->op == IPU_OP_REDUCE_MAX;
	double acc[4];		/* [3] over axes 0 and 2; [3] all */
	int64_t iacc[4];
	struct vals x, w[2];

	vals_gen(&x, dt, 24, c->lo, c->hi, 0, 1);
	mp_put(p, "x", 0, 0, &x);
	mp_run(p);

	for (int j = 0; j < 4; j++) {
		acc[j] = max ? -INFINITY : 0;
		iacc[j] = max ? INT64_MIN : 0;
	}
	/* In x's row-major order, as the firmware sums. */
	for (size_t i = 0; i < 24; i++) {
		size_t js[2] = { i / 4 % 3, 3 };

		for (int k = 0; k < 2; k++) {
			size_t j = js[k];

			if (max) {
				acc[j] = x.v[i] > acc[j] ? x.v[i] : acc[j];
				iacc[j] = (int64_t)x.v[i] > iacc[j] ?
						  (int64_t)x.v[i] : iacc[j];
			} else {
				acc[j] += x.v[i];
				iacc[j] = (int64_t)((uint64_t)iacc[j] +
						    (uint64_t)(int64_t)x.v[i]);
			}
		}
	}
	vals_init(&w[0], dt, 3);
	vals_init(&w[1], dt, 1);
	for (size_t j = 0; j < 4; j++) {
		struct vals *o = &w[j / 3];
		size_t at = j % 3;

		if (c->op == IPU_OP_REDUCE_MEAN)
			put_f64(o, at, acc[j] / (j < 3 ? 8 : 24));
		else if (isf)
			put_f64(o, at, acc[j]);
		else
			put_int(o, at, iacc[j]);
	}
	expect_vals("out", &w[0], mp_slot(p, "out", 0, 0), false);
	expect_vals("all", &w[1], mp_slot(p, "all", 0, 0), false);
}

static void check_softmax(const struct opcase *c, int dt, struct mp *p)
{
	double want[24];
	struct vals x;

	/* Multiples of 1/256: x - max is exact in float32. */
	vals_gen(&x, dt, 24, c->lo, c->hi, 0x1p-8, 1);
	mp_put(p, "x", 0, 0, &x);
	mp_run(p);
	for (size_t a = 0; a < 2; a++)
		for (size_t d = 0; d < 4; d++) {	/* along axis 1 */
			double m = -INFINITY, s = 0;

			for (size_t b = 0; b < 3; b++)
				m = fmax(m, x.v[(a * 3 + b) * 4 + d]);
			for (size_t b = 0; b < 3; b++)
				s += exp(x.v[(a * 3 + b) * 4 + d] - m);
			for (size_t b = 0; b < 3; b++) {
				size_t i = (a * 3 + b) * 4 + d;

				want[i] = c->op == IPU_OP_SOFTMAX ?
						  exp(x.v[i] - m) / s :
						  x.v[i] - m - log(s);
			}
		}
	expect_near("out", dt, mp_slot(p, "out", 0, 0), want, 24, REL, 1e-7);
}

/* Casts: the documented rules applied to the exact value @v of a @sdt
 * element. Floats round once from the exact value (dtype.h). */
static void ref_cast(struct vals *w, size_t i, int sdt, double v)
{
	int ddt = w->dt;

	if (ddt == BOOL)
		put_int(w, i, v != 0);
	else if (ipu_dtype_is_float(ddt))
		put_f64(w, i, v);
	else if (!ipu_dtype_is_float(sdt))	/* integers wrap */
		put_int(w, i, (int64_t)v);
	else if (isnan(v))			/* floats truncate, saturate */
		put_int(w, i, 0);
	else
		put_int(w, i, (int64_t)fmin(fmax(trunc(v), int_min(ddt)),
					     int_max(ddt)));
}

static void check_cast(const struct opcase *c, int dt, struct mp *p)
{
	static const double src[20] = {
		0, 1, -1, 2.5, -3.75, 0.3, 100.6, -200.7, 255.5, 300,
		-70000.5, 70000, 16842753 /* 2^24 + 2^16 + 1 */, 2147483647,
		-2147483648.0, 1e-5, 240, NAN, INFINITY, -INFINITY,
	};
	struct vals x, w;

	(void)c;
	vals_set(&x, dt, 20, src);
	mp_put(p, "x", 0, 0, &x);
	mp_run(p);
	for (size_t k = 0; k < NDTS; k++) {
		char what[64];

		vals_init(&w, dts[k], 20);
		for (size_t i = 0; i < 20; i++)
			ref_cast(&w, i, dt, x.v[i]);
		snprintf(what, sizeof(what), "to %s", ipu_dtype_name(dts[k]));
		expect_vals(what, &w, mp_slot(p, ipu_dtype_name(dts[k]), 0, 0),
			    false);
	}
}

/* scaled_add_inplace (v = 0.5 v - 1.5 x, twice, in place across runs)
 * and assign (v = x): the variable in the arena and as the program
 * stores it afterwards. */
static void check_update(const struct opcase *c, int dt, struct mp *p)
{
	_Alignas(8) uint8_t var[6 * 4];
	struct vals v, x, w;

	var_init(&v, dt, 6, c);
	for (int run = 0; run < 2; run++) {
		vals_gen(&x, dt, 6, c->lo, c->hi, 0x1p-6, 10 + run);
		mp_put(p, "x", 0, 0, &x);
		mp_run(p);
		vals_init(&w, dt, 6);
		for (size_t i = 0; i < 6; i++) {
			if (c->fam == ASSIGN) {
				memcpy(w.raw + i * esz(dt), x.raw + i * esz(dt), esz(dt));
				w.v[i] = x.v[i];
			} else {
				put_f32(&w, i, 0.5f * (float)v.v[i] +
						       -1.5f * (float)x.v[i]);
			}
		}
		expect_vals("out", &w, mp_slot(p, "out", 0, 0), true);
		mp_var(p, "v", 0, var);
		expect_vals("variable", &w, var, true);
		v = w;
	}
}

/* Sum (or mean) of @ys[r] for the @n replicas @members, rounded once to
 * w's dtype at @i. */
static void ref_all_reduce(struct vals *w, size_t i, const struct vals *ys,
			   const uint32_t *members, uint32_t n, bool mean)
{
	double sum = 0;
	uint64_t isum = 0;

	for (uint32_t k = 0; k < n; k++) {
		const struct vals *y = &ys[members[k]];

		sum += y->v[i];
		isum += (uint64_t)(int64_t)y->v[i];
	}
	if (ipu_dtype_is_float(w->dt))
		put_f64(w, i, mean ? sum / n : sum);
	else
		put_int(w, i, (int64_t)isum);
}

/*
 * The groups of the program of build(), written out (index: replicas / 2,
 * so [0] is R = 2 and [1] is R = 4). var_group: the group whose initial
 * value of "v" each replica holds. all, pairs, strided: the members of
 * each replica's all-reduce group (strided only with R = 4).
 */
static const uint32_t var_group[2][MAXREP] = { { 0, 1 }, { 0, 1, 0, 1 } };
static const uint32_t all_members[2][MAXREP] = { { 0, 1 }, { 0, 1, 2, 3 } };
static const uint32_t pair_members[2][MAXREP][2] = {
	{ { 0, 1 }, { 0, 1 } },
	{ { 0, 1 }, { 0, 1 }, { 2, 3 }, { 2, 3 } },
};
static const uint32_t strided_members[MAXREP][2] = {
	{ 0, 2 }, { 1, 3 }, { 0, 2 }, { 1, 3 },
};

static void check_all_reduce(const struct opcase *c, int dt, struct mp *p)
{
	uint32_t R = c->nrep, ngroups = 2;	/* variable groups */
	uint32_t k = R / 2 - 1;
	bool mean = c->op == IPU_IR_ALL_REDUCE_MEAN;
	struct vals x[MAXREP], y[MAXREP], v, w;

	assert_true(R == 2 || R == 4);
	var_init(&v, dt, 6 * ngroups, c);
	for (uint32_t r = 0; r < R; r++) {
		uint32_t g = var_group[k][r];

		vals_gen(&x[r], dt, 6, c->lo, c->hi, 0, 100 + r);
		mp_put(p, "x", 0, r, &x[r]);
		vals_init(&y[r], dt, 6);	/* y = x + v of r's group */
		for (size_t i = 0; i < 6; i++) {
			double vi = v.v[g * 6 + i];

			if (ipu_dtype_is_float(dt))
				put_f32(&y[r], i, (float)x[r].v[i] + (float)vi);
			else
				put_int(&y[r], i, (int64_t)x[r].v[i] + (int64_t)vi);
		}
	}
	mp_run(p);
	for (uint32_t r = 0; r < R; r++) {
		vals_init(&w, dt, 6);
		for (size_t i = 0; i < 6; i++)
			ref_all_reduce(&w, i, y, all_members[k], R, mean);
		expect_vals("all", &w, mp_slot(p, "all", 0, r), false);
		for (size_t i = 0; i < 6; i++)
			ref_all_reduce(&w, i, y, pair_members[k][r], 2, mean);
		expect_vals("pairs", &w, mp_slot(p, "pairs", 0, r), false);
		if (R != 4)
			continue;
		for (size_t i = 0; i < 6; i++)
			ref_all_reduce(&w, i, y, strided_members[r], 2, mean);
		expect_vals("strided", &w, mp_slot(p, "strided", 0, r), false);
	}
}

/* acc = acc0; 4 times: acc += x (summed over the replicas), stored each
 * iteration; then the final acc. Run twice: the stream counters start
 * again at slot 0. */
static void check_repeat(const struct opcase *c, int dt, struct mp *p)
{
	bool isf = ipu_dtype_is_float(dt);
	struct vals acc, x[MAXREP], t, next;

	for (int run = 0; run < 2; run++) {
		var_init(&acc, dt, 4, c);
		for (uint32_t i = 0; i < 4; i++)
			for (uint32_t r = 0; r < c->nrep; r++) {
				vals_gen(&x[r], dt, 4, c->lo, c->hi, 0,
					 1000 * run + 10 * i + r);
				mp_put(p, "x", i, r, &x[r]);
			}
		mp_run_queued(p);
		for (uint32_t i = 0; i < 4; i++) {
			for (uint32_t r = 0; r < c->nrep; r++)
				vals_gen(&x[r], dt, 4, c->lo, c->hi, 0,
					 1000 * run + 10 * i + r);
			vals_init(&t, dt, 4);
			vals_init(&next, dt, 4);
			for (size_t j = 0; j < 4; j++) {
				if (c->nrep > 1)
					ref_all_reduce(&t, j, x,
						       all_members[c->nrep / 2 - 1],
						       c->nrep, false);
				else
					t.v[j] = x[0].v[j];
				if (isf)
					put_f32(&next, j, (float)acc.v[j] + (float)t.v[j]);
				else
					put_int(&next, j, (int64_t)acc.v[j] +
							  (int64_t)t.v[j]);
			}
			acc = next;
			for (uint32_t r = 0; r < c->nrep; r++)
				expect_vals("acc", &acc, mp_slot(p, "acc", i, r), false);
		}
		for (uint32_t r = 0; r < c->nrep; r++) {
			struct vals got = acc;

			mp_var(p, "final", r, got.raw);
			expect_vals("final", &acc, got.raw, false);
		}
	}
}

static void (*const checks[])(const struct opcase *, int, struct mp *) = {
	[UNARY] = check_elementwise, [BINARY] = check_elementwise,
	[MATMUL] = check_matmul, [MOVE] = check_move, [REDUCE] = check_reduce,
	[SOFTMAX] = check_softmax, [CAST] = check_cast,
	[SCALED_ADD] = check_update, [ASSIGN] = check_update,
	[ALL_REDUCE] = check_all_reduce, [REPEAT] = check_repeat,
};

/* ---------------------------------------------------------------------- */
/* Tests                                                                    */
/* ---------------------------------------------------------------------- */

struct entry {
	const struct opcase *c;
	int dt;
	char name[64];
};

/* One op on one dtype: build, compile, save, load, run, check. */
static void test_op(void **state)
{
	const struct entry *e = *state;
	struct ipu_ir *ir = ir_new();
	struct mp *p;
	int ret;

	ctx = e->name;
	ret = build(ir, e->c, e->dt);
	if (ret)
		fail_msg("%s: build: %d: %s", ctx, ret, ipu_ir_errmsg(ir));
	p = mp_build(ir);
	checks[e->c->fam](e->c, e->dt, p);
	mp_free(p);
}

/* Every pair outside the matrix is refused when the op is added, with
 * -EINVAL and a message naming the op and the dtype. */
static void test_ir_refuses_pairs_outside_the_matrix(void **state)
{
	size_t refused = 0;

	(void)state;
	for (size_t i = 0; i < NCASES; i++)
		for (size_t k = 0; k < NDTS; k++) {
			const struct opcase *c = &cases[i];
			struct ipu_ir *ir;
			int ret;

			if (c->dts & M(dts[k]))
				continue;
			ir = ir_new();
			ret = build(ir, c, dts[k]);
			if (ret != -EINVAL ||
			    !strstr(ipu_ir_errmsg(ir), c->irop) ||
			    !strstr(ipu_ir_errmsg(ir), ipu_dtype_name(dts[k])))
				fail_msg("%s/%s: %d \"%s\", expected a refusal",
					 c->name, ipu_dtype_name(dts[k]), ret,
					 ipu_ir_errmsg(ir));
			ipu_ir_destroy(ir);
			refused++;
		}
	/* 4 binary + 3 unary + matmul x2 + 2 reductions + 2 all-reduce sums +
	 * 2 repeats: bool; 6 float maths + mean + 2 softmaxes + scaled add +
	 * 2 all-reduce means: ints and bool. */
	assert_int_equal(refused, 15 * 1 + 12 * 4);
}

/* And the rest of what the matrix excludes: mixed dtypes (no
 * promotion), host-only dtypes on the device. */
static void test_ir_refuses_mixed_and_host_dtypes(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_tensor x = load(ir, "x", F32, 1, SHAPE(4));
	ipu_tensor h = load(ir, "h", F16, 1, SHAPE(4));
	ipu_tensor m = load(ir, "m", F16, 2, SHAPE(4, 2));

	(void)state;
	ir_expect_refused(ir, ipu_ir_add(ir, x, h).id, -EINVAL, "dtypes differ");
	ir_expect_refused(ir, ipu_ir_matmul(ir, ipu_ir_reshape(ir, x, (int64_t[]){ 1, 4 }, 2), m).id,
			  -EINVAL, "dtypes differ");
	ir_expect_refused(ir, ipu_ir_concat(ir, (ipu_tensor[]){ x, h }, 2, 0).id,
			  -EINVAL, "dtypes differ");
	ir_expect_refused(ir, ipu_ir_cast(ir, x, IPU_DTYPE_FLOAT64).id, -EINVAL,
			  "not a device dtype");
	ir_expect_refused(ir, ipu_ir_cast(ir, x, IPU_DTYPE_INT64).id, -EINVAL,
			  "not a device dtype");
	ir_expect_refused(ir, ipu_ir_h2d_stream(ir, "d", IPU_DTYPE_FLOAT64, 1,
						SHAPE(4)).id, -EINVAL,
			  "not a device dtype");
	/* Any tensor but a constant is updated in place (PopXL's in-place ops). */
	ir_expect_refused(ir, ipu_ir_assign(ir, ipu_ir_scalar(ir, F32, 1.0), x),
			  -EINVAL, "is a constant");
	ipu_ir_destroy(ir);
}

static int group_setup(void **state)
{
	if (mh_group_setup(state))
		return -1;
	for (unsigned int r = 0; r < MAXREP; r++)
		devs[r] = mh_open(r, true);
	queue = mh_queue(devs[0], 256);
	return 0;
}

static int group_teardown(void **state)
{
	ipu_queue_destroy(queue);
	for (unsigned int r = 0; r < MAXREP; r++)
		ipu_device_close(devs[r]);
	return mh_group_teardown(state);
}

int main(void)
{
	static struct entry entries[NCASES * NDTS];
	static struct CMUnitTest tests[NCASES * NDTS + 2];
	size_t n = 0;

	tests[n++] = (struct CMUnitTest)cmocka_unit_test(
		test_ir_refuses_pairs_outside_the_matrix);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(
		test_ir_refuses_mixed_and_host_dtypes);
	for (size_t i = 0; i < NCASES; i++)
		for (size_t k = 0; k < NDTS; k++) {
			struct entry *e = &entries[n - 2];

			if (!(cases[i].dts & M(dts[k])))
				continue;
			e->c = &cases[i];
			e->dt = dts[k];
			snprintf(e->name, sizeof(e->name), "%s/%s",
				 cases[i].name, ipu_dtype_name(dts[k]));
			tests[n++] = (struct CMUnitTest){
				.name = e->name, .test_func = test_op,
				.initial_state = e,
			};
		}
	return _cmocka_run_group_tests("test_model_programs", tests, n,
				       group_setup, group_teardown);
}
