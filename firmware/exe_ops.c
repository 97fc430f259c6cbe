// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * exe_ops.c - what each opcode asks of its operands: counts, parameters,
 * dtypes and shapes (exe_ops.h). The validator checks an instruction with
 * it; the IR builder infers an op's output with it, so that whatever the
 * builder accepts, the validator accepts too.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ipu/dtype.h"
#include "ipu/exe_ops.h"

#define W_NONE		0	/* operand 0 is not written */
#define W_NEW		1	/* operand 0 is a new value */
#define W_INPLACE	2	/* operand 0 is a variable, updated */
#define UNBOUNDED	UINT32_MAX

static const struct __ipu_exe_op_info op_table[IPU_OP_COUNT_] = {
	[IPU_OP_ADD] = { "add", 3, 3, 0, W_NEW },
	[IPU_OP_SUB] = { "sub", 3, 3, 0, W_NEW },
	[IPU_OP_MUL] = { "mul", 3, 3, 0, W_NEW },
	[IPU_OP_DIV] = { "div", 3, 3, 0, W_NEW },
	[IPU_OP_NEG] = { "neg", 2, 2, 0, W_NEW },
	[IPU_OP_ABS] = { "abs", 2, 2, 0, W_NEW },
	[IPU_OP_RELU] = { "relu", 2, 2, 0, W_NEW },
	[IPU_OP_GELU] = { "gelu", 2, 2, 0, W_NEW },
	[IPU_OP_TANH] = { "tanh", 2, 2, 0, W_NEW },
	[IPU_OP_SIGMOID] = { "sigmoid", 2, 2, 0, W_NEW },
	[IPU_OP_EXP] = { "exp", 2, 2, 0, W_NEW },
	[IPU_OP_LOG] = { "log", 2, 2, 0, W_NEW },
	[IPU_OP_SQRT] = { "sqrt", 2, 2, 0, W_NEW },
	[IPU_OP_CAST] = { "cast", 2, 2, 0, W_NEW },
	[IPU_OP_RESHAPE] = { "reshape", 2, 2, 0, W_NEW },
	[IPU_OP_COPY] = { "copy", 2, 2, 0, W_NEW },
	[IPU_OP_MATMUL] = { "matmul", 3, 3, 0, W_NEW },
	[IPU_OP_TRANSPOSE] = { "transpose", 2, 2, __IPU_EXE_PARAMS_NDIM, W_NEW },
	[IPU_OP_SLICE] = { "slice", 2, 2, __IPU_EXE_PARAMS_2NDIM, W_NEW },
	[IPU_OP_CONCAT] = { "concat", 2, UNBOUNDED, 1, W_NEW },
	[IPU_OP_REDUCE_SUM] = { "reduce_sum", 2, 2, 2, W_NEW },
	[IPU_OP_REDUCE_MEAN] = { "reduce_mean", 2, 2, 2, W_NEW },
	[IPU_OP_REDUCE_MAX] = { "reduce_max", 2, 2, 2, W_NEW },
	[IPU_OP_SOFTMAX] = { "softmax", 2, 2, 1, W_NEW },
	[IPU_OP_LOG_SOFTMAX] = { "log_softmax", 2, 2, 1, W_NEW },
	[IPU_OP_SCALED_ADD_INPLACE] = { "scaled_add_inplace", 2, 2, 0, W_INPLACE },
	[IPU_OP_ASSIGN] = { "assign", 2, 2, 0, W_INPLACE },
	[IPU_OP_ALL_REDUCE] = { "all_reduce", 2, 2, 3, W_NEW },
	[IPU_OP_HOST_LOAD] = { "host_load", 1, 1, 1, W_NEW },
	[IPU_OP_HOST_STORE] = { "host_store", 1, 1, 1, W_NONE },
	[IPU_OP_LOOP] = { "loop", 0, 0, 2, W_NONE },
};

const struct __ipu_exe_op_info *__ipu_exe_op_info(uint32_t op)
{
	if (op >= IPU_OP_COUNT_ || !op_table[op].name)
		return NULL;
	return &op_table[op];
}

const char *ipu_exe_op_name(uint32_t op)
{
	const struct __ipu_exe_op_info *info = __ipu_exe_op_info(op);

	return info ? info->name : "invalid";
}

char *__ipu_exe_fmt_shape(char *buf, size_t len, uint32_t ndim,
			  const uint64_t *shape)
{
	size_t at = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (ndim > IPU_EXE_MAX_DIMS)
		ndim = IPU_EXE_MAX_DIMS;
	at += (size_t)snprintf(buf, len, "[");
	for (uint32_t d = 0; d < ndim && at < len; d++)
		at += (size_t)snprintf(buf + at, len - at, "%s%llu",
				       d ? ", " : "",
				       (unsigned long long)shape[d]);
	if (at < len)
		snprintf(buf + at, len - at, "]");
	return buf;
}

int __ipu_exe_nelems(uint32_t ndim, const uint64_t *shape, uint64_t *n)
{
	uint64_t p = 1;

	for (uint32_t d = 0; d < ndim; d++)
		if (__builtin_mul_overflow(p, shape[d], &p))
			return -EOVERFLOW;
	*n = p;
	return 0;
}

int __ipu_exe_check_grouping(uint64_t replicas, uint64_t group_size,
			     uint64_t stride, char *err, size_t errlen)
{
	uint64_t span;

	if (!stride)
		return __ipu_exe_fail(err, errlen,
				      "replica grouping stride 0: must be >= 1");
	if (!group_size)
		return __ipu_exe_fail(err, errlen,
				      "replica grouping group_size 0: must be >= 1");
	/* PopART's ReplicaGrouping: groups are laid out in blocks of
	 * stride * group_size replicas, so the replicas must fill whole
	 * blocks. */
	if (__builtin_mul_overflow(stride, group_size, &span) ||
	    !replicas || replicas % span)
		return __ipu_exe_fail(err, errlen,
				      "replica grouping stride %llu, group_size %llu: the replication factor %llu is not a multiple of stride * group_size",
				      (unsigned long long)stride,
				      (unsigned long long)group_size,
				      (unsigned long long)replicas);
	return 0;
}

/* ---------------------------------------------------------------------- */

struct checker {
	const char *op;
	char *err;
	size_t errlen;
};

int __ipu_exe_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

#define fail(c, ...) __ipu_exe_fail((c)->err, (c)->errlen, __VA_ARGS__)

static const char *tname(const struct __ipu_exe_tdesc *t)
{
	return t->name ? t->name : "?";
}

/* "[4, 3]" of @t, in @buf of __IPU_EXE_SHAPE_STRLEN. */
static const char *shp(char *buf, const struct __ipu_exe_tdesc *t)
{
	return __ipu_exe_fmt_shape(buf, __IPU_EXE_SHAPE_STRLEN, t->ndim,
				   t->shape);
}

/* What dtypes an op takes. */
enum dtype_class {
	DT_ANY,		/* data movement: every device dtype, bool too */
	DT_NUMERIC,	/* arithmetic: not bool */
	DT_FLOAT,	/* float-only maths */
};

static int check_class(struct checker *c, const struct __ipu_exe_tdesc *t,
		       enum dtype_class cls)
{
	if (cls != DT_ANY && t->dtype == IPU_DTYPE_BOOL)
		return fail(c, "'%s' is bool: %s takes %s tensors (bool supports only data movement and cast)",
			    tname(t), c->op,
			    cls == DT_FLOAT ? "floating-point" : "numeric");
	if (cls == DT_FLOAT && !ipu_dtype_is_float((int)t->dtype))
		return fail(c, "'%s' is %s: %s takes floating-point tensors",
			    tname(t), ipu_dtype_name((int)t->dtype), c->op);
	return 0;
}

static int same_dtype(struct checker *c, const struct __ipu_exe_tdesc *a,
		      const struct __ipu_exe_tdesc *b)
{
	if (a->dtype == b->dtype)
		return 0;
	return fail(c, "'%s' is %s and '%s' is %s: dtypes differ", tname(a),
		    ipu_dtype_name((int)a->dtype), tname(b),
		    ipu_dtype_name((int)b->dtype));
}

static bool shapes_equal(const struct __ipu_exe_tdesc *a,
			 const struct __ipu_exe_tdesc *b)
{
	return a->ndim == b->ndim &&
	       !memcmp(a->shape, b->shape, a->ndim * sizeof(a->shape[0]));
}

static int same_shape(struct checker *c, const struct __ipu_exe_tdesc *a,
		      const struct __ipu_exe_tdesc *b)
{
	char sa[__IPU_EXE_SHAPE_STRLEN], sb[__IPU_EXE_SHAPE_STRLEN];

	if (shapes_equal(a, b))
		return 0;
	return fail(c, "'%s' %s and '%s' %s: shapes differ", tname(a),
		    shp(sa, a), tname(b), shp(sb, b));
}

/* Two operands of arithmetic: numeric, one dtype. */
static int numeric_pair(struct checker *c, const struct __ipu_exe_tdesc *a,
			const struct __ipu_exe_tdesc *b)
{
	int ret = check_class(c, a, DT_NUMERIC);

	if (!ret)
		ret = check_class(c, b, DT_NUMERIC);
	return ret ? ret : same_dtype(c, a, b);
}

/* out takes x's dtype and shape, keeping its name. */
static void like(struct __ipu_exe_tdesc *out, const struct __ipu_exe_tdesc *x)
{
	out->dtype = x->dtype;
	out->ndim = x->ndim;
	memcpy(out->shape, x->shape, sizeof(out->shape));
}

/*
 * NumPy broadcasting of @na dims @sa with @nb dims @sb (right-aligned;
 * equal, or one of them 1) into @sout. Return: 0, or the 1-based position
 * from the right of the first pair that does not broadcast.
 */
static uint32_t broadcast(uint32_t na, const uint64_t *sa, uint32_t nb,
			  const uint64_t *sb, uint32_t *nout, uint64_t *sout)
{
	uint32_t n = na > nb ? na : nb;

	for (uint32_t i = 1; i <= n; i++) {
		uint64_t da = i <= na ? sa[na - i] : 1;
		uint64_t db = i <= nb ? sb[nb - i] : 1;

		if (da != db && da != 1 && db != 1)
			return i;
		sout[n - i] = da == 1 ? db : da;
	}
	*nout = n;
	return 0;
}

static int check_binary(struct checker *c, struct __ipu_exe_tdesc *ops)
{
	char sa[__IPU_EXE_SHAPE_STRLEN], sb[__IPU_EXE_SHAPE_STRLEN];
	const struct __ipu_exe_tdesc *a = &ops[1], *b = &ops[2];
	uint32_t bad;
	int ret = numeric_pair(c, a, b);

	if (ret)
		return ret;
	bad = broadcast(a->ndim, a->shape, b->ndim, b->shape, &ops[0].ndim,
			ops[0].shape);
	if (bad)
		return fail(c, "'%s' %s and '%s' %s: shapes do not broadcast (%llu and %llu)",
			    tname(a), shp(sa, a), tname(b), shp(sb, b),
			    (unsigned long long)a->shape[a->ndim - bad],
			    (unsigned long long)b->shape[b->ndim - bad]);
	ops[0].dtype = a->dtype;
	return 0;
}

static int check_matmul(struct checker *c, struct __ipu_exe_tdesc *ops)
{
	char sa[__IPU_EXE_SHAPE_STRLEN], sb[__IPU_EXE_SHAPE_STRLEN];
	const struct __ipu_exe_tdesc *a = &ops[1], *b = &ops[2];
	struct __ipu_exe_tdesc *out = &ops[0];
	uint32_t nbatch;
	int ret = numeric_pair(c, a, b);

	if (ret)
		return ret;
	if (a->ndim < 2 || b->ndim < 2)
		return fail(c, "'%s' %s and '%s' %s: operands need at least 2 dimensions",
			    tname(a), shp(sa, a), tname(b), shp(sb, b));
	if (a->shape[a->ndim - 1] != b->shape[b->ndim - 2])
		return fail(c, "'%s' %s and '%s' %s: inner dimensions %llu and %llu differ",
			    tname(a), shp(sa, a), tname(b), shp(sb, b),
			    (unsigned long long)a->shape[a->ndim - 1],
			    (unsigned long long)b->shape[b->ndim - 2]);
	if (broadcast(a->ndim - 2, a->shape, b->ndim - 2, b->shape, &nbatch,
		      out->shape))
		return fail(c, "'%s' %s and '%s' %s: batch dimensions do not broadcast",
			    tname(a), shp(sa, a), tname(b), shp(sb, b));
	out->ndim = nbatch + 2;
	out->shape[nbatch] = a->shape[a->ndim - 2];
	out->shape[nbatch + 1] = b->shape[b->ndim - 1];
	out->dtype = a->dtype;
	return 0;
}

static int check_transpose(struct checker *c, struct __ipu_exe_tdesc *ops,
			   const int64_t *perm)
{
	const struct __ipu_exe_tdesc *x = &ops[1];
	uint32_t seen = 0;

	for (uint32_t i = 0; i < x->ndim; i++) {
		if (perm[i] < 0 || perm[i] >= x->ndim)
			return fail(c, "perm[%u] = %lld is not an axis of '%s' (%u dimensions)",
				    i, (long long)perm[i], tname(x), x->ndim);
		if (seen & (1u << perm[i]))
			return fail(c, "perm[%u] = %lld repeats an axis: perm is not a permutation",
				    i, (long long)perm[i]);
		seen |= 1u << perm[i];
		ops[0].shape[i] = x->shape[perm[i]];
	}
	ops[0].ndim = x->ndim;
	ops[0].dtype = x->dtype;
	return 0;
}

static int check_slice(struct checker *c, struct __ipu_exe_tdesc *ops,
		       const int64_t *params)
{
	char sx[__IPU_EXE_SHAPE_STRLEN], so[__IPU_EXE_SHAPE_STRLEN];
	const struct __ipu_exe_tdesc *x = &ops[1];
	struct __ipu_exe_tdesc *out = &ops[0];
	const int64_t *start = params, *step = params + x->ndim;

	if (out->ndim != x->ndim)
		return fail(c, "out '%s' %s and '%s' %s: a slice keeps the number of dimensions",
			    tname(out), shp(so, out), tname(x), shp(sx, x));
	for (uint32_t d = 0; d < x->ndim; d++) {
		uint64_t last;

		if (step[d] < 1)
			return fail(c, "axis %u: step %lld must be >= 1", d,
				    (long long)step[d]);
		/* out->shape[d] >= 1 holds for every tensor, so the last
		 * element taken is start + (count - 1) * step. */
		if (start[d] < 0 || out->shape[d] < 1 ||
		    __builtin_mul_overflow(out->shape[d] - 1, (uint64_t)step[d],
					   &last) ||
		    __builtin_add_overflow(last, (uint64_t)start[d], &last) ||
		    last >= x->shape[d])
			return fail(c, "axis %u: %llu elements from %lld in steps of %lld do not fit in '%s' %s",
				    d, (unsigned long long)out->shape[d],
				    (long long)start[d], (long long)step[d],
				    tname(x), shp(sx, x));
	}
	out->dtype = x->dtype;
	return 0;
}

static int check_concat(struct checker *c, struct __ipu_exe_tdesc *ops,
			uint32_t nops, int64_t axis)
{
	char s0[__IPU_EXE_SHAPE_STRLEN], si[__IPU_EXE_SHAPE_STRLEN];
	const struct __ipu_exe_tdesc *x0 = &ops[1];
	uint64_t total = 0;

	if (axis < 0 || axis >= x0->ndim)
		return fail(c, "axis %lld is not an axis of '%s' %s",
			    (long long)axis, tname(x0), shp(s0, x0));
	for (uint32_t i = 1; i < nops; i++) {
		const struct __ipu_exe_tdesc *xi = &ops[i];
		int ret = same_dtype(c, x0, xi);

		if (ret)
			return ret;
		for (uint32_t d = 0; d < x0->ndim; d++)
			if (xi->ndim != x0->ndim ||
			    (d != axis && xi->shape[d] != x0->shape[d]))
				return fail(c, "'%s' %s and '%s' %s: shapes differ outside axis %lld",
					    tname(x0), shp(s0, x0), tname(xi),
					    shp(si, xi), (long long)axis);
		if (__builtin_add_overflow(total, xi->shape[axis], &total))
			return fail(c, "axis %lld: the sum of the sizes overflows",
				    (long long)axis);
	}
	like(&ops[0], x0);
	ops[0].shape[axis] = total;
	return 0;
}

static int check_reduce(struct checker *c, struct __ipu_exe_tdesc *ops,
			const int64_t *params)
{
	const struct __ipu_exe_tdesc *x = &ops[1];
	struct __ipu_exe_tdesc *out = &ops[0];
	int64_t mask = params[0], keepdims = params[1];
	uint32_t n = 0;

	if (mask < 0 || (mask >> x->ndim))
		return fail(c, "axes mask 0x%llx names axes '%s' does not have (%u dimensions)",
			    (unsigned long long)mask, tname(x), x->ndim);
	if (keepdims != 0 && keepdims != 1)
		return fail(c, "keepdims %lld must be 0 or 1",
			    (long long)keepdims);
	for (uint32_t d = 0; d < x->ndim; d++) {
		if (!(mask & (1ll << d)))
			out->shape[n++] = x->shape[d];
		else if (keepdims)
			out->shape[n++] = 1;
	}
	for (uint32_t d = n; d < IPU_EXE_MAX_DIMS; d++)
		out->shape[d] = 0;
	out->ndim = n;
	out->dtype = x->dtype;
	return 0;
}

static int check_params_count(struct checker *c,
			      const struct __ipu_exe_op_info *info,
			      const struct __ipu_exe_tdesc *ops, uint32_t nops,
			      uint32_t nparams)
{
	uint32_t want;

	if (nops < info->min_operands || nops > info->max_operands)
		return fail(c, "%u operands, %s takes %u%s", nops, info->name,
			    info->min_operands,
			    info->max_operands == info->min_operands ?
				    "" : " or more");
	if (info->params >= 0)
		want = (uint32_t)info->params;
	else
		want = ops[1].ndim *
		       (info->params == __IPU_EXE_PARAMS_2NDIM ? 2 : 1);
	if (nparams != want)
		return fail(c, "%u parameters, %s takes %u here", nparams,
			    info->name, want);
	return 0;
}

int __ipu_exe_op_check(uint32_t op, struct __ipu_exe_tdesc *ops, uint32_t nops,
		       const int64_t *params, uint32_t nparams, char *err,
		       size_t errlen)
{
	const struct __ipu_exe_op_info *info = __ipu_exe_op_info(op);
	struct checker c = { info ? info->name : "?", err, errlen };
	struct __ipu_exe_tdesc *out = &ops[0], *x = &ops[1];
	uint64_t n_out, n_x;
	int ret;

	if (!info || op == IPU_OP_LOOP || op == IPU_OP_HOST_LOAD ||
	    op == IPU_OP_HOST_STORE)
		return fail(&c, "opcode %u is not a compute op", op);
	/* A new output is what this infers; only its given parts count. */
	for (uint32_t i = info->writes == W_NEW ? 1 : 0; i < nops; i++)
		if (ops[i].ndim > IPU_EXE_MAX_DIMS ||
		    !ipu_dtype_on_device((int)ops[i].dtype))
			return fail(&c, "operand %u '%s' is not a device tensor",
				    i, tname(&ops[i]));
	if ((op == IPU_OP_SLICE || op == IPU_OP_RESHAPE) &&
	    out->ndim > IPU_EXE_MAX_DIMS)
		return fail(&c, "output '%s' has %u dimensions, at most %d",
			    tname(out), out->ndim, IPU_EXE_MAX_DIMS);
	ret = check_params_count(&c, info, ops, nops, nparams);
	if (ret)
		return ret;

	switch (op) {
	case IPU_OP_ADD:
	case IPU_OP_SUB:
	case IPU_OP_MUL:
	case IPU_OP_DIV:
		return check_binary(&c, ops);
	case IPU_OP_NEG:
	case IPU_OP_ABS:
	case IPU_OP_RELU:
		ret = check_class(&c, x, DT_NUMERIC);
		break;
	case IPU_OP_GELU:
	case IPU_OP_TANH:
	case IPU_OP_SIGMOID:
	case IPU_OP_EXP:
	case IPU_OP_LOG:
	case IPU_OP_SQRT:
		ret = check_class(&c, x, DT_FLOAT);
		break;
	case IPU_OP_CAST: {
		uint32_t to = out->dtype;

		if (!ipu_dtype_on_device((int)to))
			return fail(&c, "'%s' to dtype %u, not a device dtype",
				    tname(x), to);

		like(out, x);
		out->dtype = to;
		return 0;
	}
	case IPU_OP_RESHAPE: {
		char so[__IPU_EXE_SHAPE_STRLEN], sx[__IPU_EXE_SHAPE_STRLEN];

		if (__ipu_exe_nelems(out->ndim, out->shape, &n_out) ||
		    __ipu_exe_nelems(x->ndim, x->shape, &n_x) || n_out != n_x)
			return fail(&c, "'%s' %s cannot become %s: element counts differ",
				    tname(x), shp(sx, x), shp(so, out));
		out->dtype = x->dtype;
		return 0;
	}
	case IPU_OP_COPY:
		break;
	case IPU_OP_MATMUL:
		return check_matmul(&c, ops);
	case IPU_OP_TRANSPOSE:
		return check_transpose(&c, ops, params);
	case IPU_OP_SLICE:
		return check_slice(&c, ops, params);
	case IPU_OP_CONCAT:
		return check_concat(&c, ops, nops, params[0]);
	case IPU_OP_REDUCE_SUM:
	case IPU_OP_REDUCE_MAX:
	case IPU_OP_REDUCE_MEAN:
		ret = check_class(&c, x,
				  op == IPU_OP_REDUCE_MEAN ? DT_FLOAT : DT_NUMERIC);
		return ret ? ret : check_reduce(&c, ops, params);
	case IPU_OP_SOFTMAX:
	case IPU_OP_LOG_SOFTMAX:
		ret = check_class(&c, x, DT_FLOAT);
		if (!ret && (params[0] < 0 || params[0] >= x->ndim)) {
			char sx[__IPU_EXE_SHAPE_STRLEN];

			return fail(&c, "axis %lld is not an axis of '%s' %s",
				    (long long)params[0], tname(x), shp(sx, x));
		}
		break;
	case IPU_OP_SCALED_ADD_INPLACE:
	case IPU_OP_ASSIGN:
		/* ops[0] is the variable: checked, never overwritten. */
		ret = check_class(&c, out, op == IPU_OP_ASSIGN ? DT_ANY :
								  DT_FLOAT);
		if (!ret)
			ret = same_dtype(&c, out, x);
		return ret ? ret : same_shape(&c, out, x);
	case IPU_OP_ALL_REDUCE:
		if (params[0] != IPU_EXE_REDUCE_SUM &&
		    params[0] != IPU_EXE_REDUCE_MEAN)
			return fail(&c, "mode %lld is neither sum (%d) nor mean (%d)",
				    (long long)params[0], IPU_EXE_REDUCE_SUM,
				    IPU_EXE_REDUCE_MEAN);
		ret = check_class(&c, x, params[0] == IPU_EXE_REDUCE_MEAN ?
						 DT_FLOAT : DT_NUMERIC);
		break;
	default:
		return fail(&c, "opcode %u has no rule", op);
	}
	if (ret)
		return ret;
	like(out, x);
	return 0;
}
