// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ir_ops.c - the ops: resolve the inputs, turn the friendly arguments
 * (negative axes, -1 in a reshape, Python slices) into the executable's
 * parameters, and let __ipu_exe_op_check() infer the output, so that the
 * builder accepts exactly what the validator will.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_internal.h"

/* Most operands any op here takes, concat aside. */
#define MAX_FIXED_INPUTS	2

/*
 * Add executable op @opc with inputs @ins to the current graph, its output
 * inferred. @out: for slice, reshape and cast, the output's shape or dtype
 * (the parts the inputs cannot imply); else NULL.
 */
static ipu_tensor emit(struct ipu_ir *ir, uint32_t opc, const int32_t *ins,
		       uint32_t nin, const int64_t *params, uint32_t nparams,
		       const struct __ipu_exe_tdesc *out)
{
	const char *opname = ipu_exe_op_name(opc);
	struct __ipu_exe_tdesc stack[MAX_FIXED_INPUTS + 1], *d = stack;
	struct ir_tensor tmpl = { .kind = IRT_VALUE };
	struct ir_op op = { .kind = opc };
	char msg[512], name[64], shape[__IPU_EXE_SHAPE_STRLEN];
	int32_t ti;
	int ret;

	ret = ir_check_open(ir, opname);
	if (ret)
		return ir_bad(ret);
	if (nin > MAX_FIXED_INPUTS) {
		d = calloc(nin + 1, sizeof(*d));
		if (!d)
			return ir_bad(ir_fail(ir, -ENOMEM, "%s: out of memory",
					      opname));
	}
	if (out)
		d[0] = *out;
	else
		memset(&d[0], 0, sizeof(d[0]));
	for (uint32_t i = 0; i < nin; i++)
		ir_tdesc(ir, ins[i], &d[i + 1]);
	ret = __ipu_exe_op_check(opc, d, nin + 1, params, nparams, msg,
				 sizeof(msg));
	if (ret) {
		ir_fail(ir, ret, "%s: %s", opname, msg);
		goto out;
	}
	tmpl.dtype = d[0].dtype;
	tmpl.ndim = d[0].ndim;
	memcpy(tmpl.shape, d[0].shape, sizeof(tmpl.shape));
	if (__ipu_exe_nelems(tmpl.ndim, tmpl.shape, &tmpl.nbytes) ||
	    __builtin_mul_overflow(tmpl.nbytes, ipu_dtype_size((int)tmpl.dtype),
				   &tmpl.nbytes) ||
	    tmpl.nbytes > INT64_MAX) {
		ret = ir_fail(ir, -EINVAL, "%s: the output %s is too large",
			      opname,
			      __ipu_exe_fmt_shape(shape, sizeof(shape),
						  tmpl.ndim, tmpl.shape));
		goto out;
	}
	op.nt = nin + 1;
	op.t = malloc(op.nt * sizeof(*op.t));
	op.nparams = nparams;
	op.params = nparams ? malloc(nparams * sizeof(*op.params)) : NULL;
	if (!op.t || (nparams && !op.params)) {
		ret = ir_fail(ir, -ENOMEM, "%s: out of memory", opname);
		goto out;
	}
	memcpy(op.t + 1, ins, nin * sizeof(*ins));
	if (nparams)
		memcpy(op.params, params, nparams * sizeof(*params));
	snprintf(name, sizeof(name), "%s.%u", opname, ir->ntensors + 1);
	ti = ir_add_tensor(ir, &tmpl, name, &op);
	ret = ti < 0 ? ti : ti + 1;
out:
	if (ret < 0) {
		free(op.t);
		free(op.params);
	}
	if (d != stack)
		free(d);
	return ir_bad(ret);
}

static ipu_tensor unary(struct ipu_ir *ir, uint32_t opc, ipu_tensor x)
{
	int32_t xi;

	if (!ir)
		return ir_bad(-EINVAL);
	xi = ir_input(ir, ipu_exe_op_name(opc), x, 1);
	if (xi < 0)
		return ir_bad(xi);
	return emit(ir, opc, &xi, 1, NULL, 0, NULL);
}

static ipu_tensor binary(struct ipu_ir *ir, uint32_t opc, ipu_tensor a,
			 ipu_tensor b)
{
	int32_t in[2];

	if (!ir)
		return ir_bad(-EINVAL);
	in[0] = ir_input(ir, ipu_exe_op_name(opc), a, 1);
	if (in[0] < 0)
		return ir_bad(in[0]);
	in[1] = ir_input(ir, ipu_exe_op_name(opc), b, 2);
	if (in[1] < 0)
		return ir_bad(in[1]);
	return emit(ir, opc, in, 2, NULL, 0, NULL);
}

ipu_tensor ipu_ir_add(struct ipu_ir *ir, ipu_tensor a, ipu_tensor b)
{
	return binary(ir, IPU_OP_ADD, a, b);
}

ipu_tensor ipu_ir_sub(struct ipu_ir *ir, ipu_tensor a, ipu_tensor b)
{
	return binary(ir, IPU_OP_SUB, a, b);
}

ipu_tensor ipu_ir_mul(struct ipu_ir *ir, ipu_tensor a, ipu_tensor b)
{
	return binary(ir, IPU_OP_MUL, a, b);
}

ipu_tensor ipu_ir_div(struct ipu_ir *ir, ipu_tensor a, ipu_tensor b)
{
	return binary(ir, IPU_OP_DIV, a, b);
}

ipu_tensor ipu_ir_matmul(struct ipu_ir *ir, ipu_tensor a, ipu_tensor b)
{
	return binary(ir, IPU_OP_MATMUL, a, b);
}

ipu_tensor ipu_ir_neg(struct ipu_ir *ir, ipu_tensor x)
{
	return unary(ir, IPU_OP_NEG, x);
}

ipu_tensor ipu_ir_abs(struct ipu_ir *ir, ipu_tensor x)
{
	return unary(ir, IPU_OP_ABS, x);
}

ipu_tensor ipu_ir_relu(struct ipu_ir *ir, ipu_tensor x)
{
	return unary(ir, IPU_OP_RELU, x);
}

ipu_tensor ipu_ir_gelu(struct ipu_ir *ir, ipu_tensor x)
{
	return unary(ir, IPU_OP_GELU, x);
}

ipu_tensor ipu_ir_tanh(struct ipu_ir *ir, ipu_tensor x)
{
	return unary(ir, IPU_OP_TANH, x);
}

ipu_tensor ipu_ir_sigmoid(struct ipu_ir *ir, ipu_tensor x)
{
	return unary(ir, IPU_OP_SIGMOID, x);
}

ipu_tensor ipu_ir_exp(struct ipu_ir *ir, ipu_tensor x)
{
	return unary(ir, IPU_OP_EXP, x);
}

ipu_tensor ipu_ir_log(struct ipu_ir *ir, ipu_tensor x)
{
	return unary(ir, IPU_OP_LOG, x);
}

ipu_tensor ipu_ir_sqrt(struct ipu_ir *ir, ipu_tensor x)
{
	return unary(ir, IPU_OP_SQRT, x);
}

/*
 * Axis @axis of a tensor with @ndim dimensions, negative counting from the
 * end. Return: 0..ndim-1, or -EINVAL with a message.
 */
static int norm_axis(struct ipu_ir *ir, const char *what, int32_t xi,
		     int64_t axis)
{
	int64_t n = ir->tensors[xi].ndim;
	char shape[__IPU_EXE_SHAPE_STRLEN];

	if (axis < -n || axis >= n)
		return ir_fail(ir, -EINVAL, "%s: axis %lld is not an axis of '%s' %s",
			       what, (long long)axis, ir_tname(ir, xi),
			       __ipu_exe_fmt_shape(shape, sizeof(shape),
						   ir->tensors[xi].ndim,
						   ir->tensors[xi].shape));
	return (int)(axis < 0 ? axis + n : axis);
}

ipu_tensor ipu_ir_transpose(struct ipu_ir *ir, ipu_tensor x, const int *perm,
			    size_t nperm)
{
	int64_t p[IPU_EXE_MAX_DIMS];
	uint32_t ndim;
	int32_t xi;

	if (!ir)
		return ir_bad(-EINVAL);
	xi = ir_input(ir, "transpose", x, 1);
	if (xi < 0)
		return ir_bad(xi);
	ndim = ir->tensors[xi].ndim;
	if (!perm && !nperm) {
		for (uint32_t i = 0; i < ndim; i++)
			p[i] = ndim - 1 - i;
	} else {
		if (!perm || nperm != ndim)
			return ir_bad(ir_fail(ir, -EINVAL,
				"transpose: a permutation of %zu axes for '%s', which has %u",
				perm ? nperm : 0, ir_tname(ir, xi), ndim));
		for (uint32_t i = 0; i < ndim; i++) {
			int a = norm_axis(ir, "transpose", xi, perm[i]);

			if (a < 0)
				return ir_bad(a);
			p[i] = a;
		}
	}
	return emit(ir, IPU_OP_TRANSPOSE, &xi, 1, p, ndim, NULL);
}

ipu_tensor ipu_ir_reshape(struct ipu_ir *ir, ipu_tensor x,
			  const int64_t *shape, size_t ndim)
{
	struct __ipu_exe_tdesc out = { 0 };
	char sx[__IPU_EXE_SHAPE_STRLEN];
	uint64_t known = 1, total;
	int infer = -1;
	int32_t xi;

	if (!ir)
		return ir_bad(-EINVAL);
	xi = ir_input(ir, "reshape", x, 1);
	if (xi < 0)
		return ir_bad(xi);
	__ipu_exe_fmt_shape(sx, sizeof(sx), ir->tensors[xi].ndim,
			    ir->tensors[xi].shape);
	if (ndim > IPU_EXE_MAX_DIMS || (ndim && !shape))
		return ir_bad(ir_fail(ir, -EINVAL,
			"reshape: '%s' %s: a new shape of %zu dimensions (at most %d)",
			ir_tname(ir, xi), sx, ndim, IPU_EXE_MAX_DIMS));
	for (size_t d = 0; d < ndim; d++) {
		if (shape[d] == -1 && infer < 0) {
			infer = (int)d;
			continue;
		}
		if (shape[d] < 1 ||
		    __builtin_mul_overflow(known, (uint64_t)shape[d], &known))
			return ir_bad(ir_fail(ir, -EINVAL,
				"reshape: '%s' %s: dimension %zu of the new shape is %lld",
				ir_tname(ir, xi), sx, d, (long long)shape[d]));
		out.shape[d] = (uint64_t)shape[d];
	}
	__ipu_exe_nelems(ir->tensors[xi].ndim, ir->tensors[xi].shape, &total);
	if (infer >= 0) {
		if (total % known)
			return ir_bad(ir_fail(ir, -EINVAL,
				"reshape: '%s' %s: %llu elements do not divide into the new shape",
				ir_tname(ir, xi), sx,
				(unsigned long long)total));
		out.shape[infer] = total / known;
	}
	out.ndim = (uint32_t)ndim;
	return emit(ir, IPU_OP_RESHAPE, &xi, 1, NULL, 0, &out);
}

/* Python's slice.indices() for step >= 1: clamp start and stop into
 * [0, dim]; the count is what remains. */
static uint64_t slice_count(int64_t dim, int64_t *start, int64_t stop,
			    int64_t step)
{
	if (*start < 0)
		*start = *start + dim < 0 ? 0 : *start + dim;
	if (*start > dim)
		*start = dim;
	if (stop < 0)
		stop = stop + dim < 0 ? 0 : stop + dim;
	if (stop > dim)
		stop = dim;
	return stop > *start ? (uint64_t)((stop - *start + step - 1) / step) :
			       0;
}

ipu_tensor ipu_ir_slice(struct ipu_ir *ir, ipu_tensor x, size_t naxes,
			const int64_t *start, const int64_t *stop,
			const int64_t *step, const int *axes)
{
	struct __ipu_exe_tdesc out = { 0 };
	int64_t p[2 * IPU_EXE_MAX_DIMS];
	const struct ir_tensor *t;
	uint32_t done = 0;
	int32_t xi;

	if (!ir)
		return ir_bad(-EINVAL);
	xi = ir_input(ir, "slice", x, 1);
	if (xi < 0)
		return ir_bad(xi);
	t = &ir->tensors[xi];
	if (naxes > t->ndim)
		return ir_bad(ir_fail(ir, -EINVAL,
			"slice: %zu axes for '%s', which has %u", naxes,
			t->name, t->ndim));
	/* Axes not named are taken whole. */
	for (uint32_t d = 0; d < t->ndim; d++) {
		p[d] = 0;
		p[t->ndim + d] = 1;
		out.shape[d] = t->shape[d];
	}
	for (size_t i = 0; i < naxes; i++) {
		int a = norm_axis(ir, "slice", xi, axes ? axes[i] : (int)i);
		int64_t dim, s, e, st;

		if (a < 0)
			return ir_bad(a);
		dim = (int64_t)t->shape[a];
		s = start ? start[i] : 0;
		e = stop ? stop[i] : dim;
		st = step ? step[i] : 1;
		if (done & (1u << a))
			return ir_bad(ir_fail(ir, -EINVAL,
				"slice: axis %d of '%s' is sliced twice", a,
				t->name));
		done |= 1u << a;
		if (st < 1)
			return ir_bad(ir_fail(ir, -EINVAL,
				"slice: axis %d of '%s': step %lld, only steps >= 1 are supported",
				a, t->name, (long long)st));
		out.shape[a] = slice_count(dim, &s, e, st);
		if (!out.shape[a])
			return ir_bad(ir_fail(ir, -EINVAL,
				"slice: axis %d of '%s' (size %lld): [%lld:%lld:%lld] is empty",
				a, t->name, (long long)dim,
				(long long)(start ? start[i] : 0), (long long)e,
				(long long)st));
		p[a] = s;
		p[t->ndim + a] = st;
	}
	out.ndim = t->ndim;
	return emit(ir, IPU_OP_SLICE, &xi, 1, p, 2 * t->ndim, &out);
}

ipu_tensor ipu_ir_concat(struct ipu_ir *ir, const ipu_tensor *xs, size_t n,
			 int axis)
{
	ipu_tensor ret;
	int32_t *in;
	int64_t a;

	if (!ir)
		return ir_bad(-EINVAL);
	if (!xs || !n)
		return ir_bad(ir_fail(ir, -EINVAL, "concat: no inputs"));
	if (n >= UINT32_MAX)
		return ir_bad(ir_fail(ir, -EINVAL, "concat: %zu inputs", n));
	in = malloc(n * sizeof(*in));
	if (!in)
		return ir_bad(ir_fail(ir, -ENOMEM, "concat: out of memory"));
	for (size_t i = 0; i < n; i++) {
		in[i] = ir_input(ir, "concat", xs[i], (unsigned)i + 1);
		if (in[i] < 0) {
			ret = ir_bad(in[i]);
			goto out;
		}
	}
	a = norm_axis(ir, "concat", in[0], axis);
	ret = a < 0 ? ir_bad((int)a) :
		      emit(ir, IPU_OP_CONCAT, in, (uint32_t)n, &a, 1, NULL);
out:
	free(in);
	return ret;
}

static ipu_tensor reduce(struct ipu_ir *ir, uint32_t opc, ipu_tensor x,
			 const int *axes, size_t naxes, bool keepdims)
{
	const char *opname = ipu_exe_op_name(opc);
	int64_t p[2] = { 0, keepdims };
	int32_t xi;

	if (!ir)
		return ir_bad(-EINVAL);
	xi = ir_input(ir, opname, x, 1);
	if (xi < 0)
		return ir_bad(xi);
	if (!axes && !naxes) {
		p[0] = (1ll << ir->tensors[xi].ndim) - 1;
	} else if (!axes) {
		return ir_bad(ir_fail(ir, -EINVAL, "%s: %zu axes, but no array",
				      opname, naxes));
	}
	for (size_t i = 0; axes && i < naxes; i++) {
		int a = norm_axis(ir, opname, xi, axes[i]);

		if (a < 0)
			return ir_bad(a);
		if (p[0] & (1ll << a))
			return ir_bad(ir_fail(ir, -EINVAL,
				"%s: axis %d of '%s' is named twice", opname,
				a, ir_tname(ir, xi)));
		p[0] |= 1ll << a;
	}
	return emit(ir, opc, &xi, 1, p, 2, NULL);
}

ipu_tensor ipu_ir_reduce_sum(struct ipu_ir *ir, ipu_tensor x, const int *axes,
			     size_t naxes, bool keepdims)
{
	return reduce(ir, IPU_OP_REDUCE_SUM, x, axes, naxes, keepdims);
}

ipu_tensor ipu_ir_reduce_mean(struct ipu_ir *ir, ipu_tensor x, const int *axes,
			      size_t naxes, bool keepdims)
{
	return reduce(ir, IPU_OP_REDUCE_MEAN, x, axes, naxes, keepdims);
}

ipu_tensor ipu_ir_reduce_max(struct ipu_ir *ir, ipu_tensor x, const int *axes,
			     size_t naxes, bool keepdims)
{
	return reduce(ir, IPU_OP_REDUCE_MAX, x, axes, naxes, keepdims);
}

static ipu_tensor softmax(struct ipu_ir *ir, uint32_t opc, ipu_tensor x,
			  int axis)
{
	int32_t xi;
	int64_t a;

	if (!ir)
		return ir_bad(-EINVAL);
	xi = ir_input(ir, ipu_exe_op_name(opc), x, 1);
	if (xi < 0)
		return ir_bad(xi);
	a = norm_axis(ir, ipu_exe_op_name(opc), xi, axis);
	if (a < 0)
		return ir_bad((int)a);
	return emit(ir, opc, &xi, 1, &a, 1, NULL);
}

ipu_tensor ipu_ir_softmax(struct ipu_ir *ir, ipu_tensor x, int axis)
{
	return softmax(ir, IPU_OP_SOFTMAX, x, axis);
}

ipu_tensor ipu_ir_log_softmax(struct ipu_ir *ir, ipu_tensor x, int axis)
{
	return softmax(ir, IPU_OP_LOG_SOFTMAX, x, axis);
}

ipu_tensor ipu_ir_cast(struct ipu_ir *ir, ipu_tensor x, enum ipu_dtype dtype)
{
	struct __ipu_exe_tdesc out = { .dtype = (uint32_t)dtype };
	int32_t xi;

	if (!ir)
		return ir_bad(-EINVAL);
	xi = ir_input(ir, "cast", x, 1);
	if (xi < 0)
		return ir_bad(xi);
	if (!ipu_dtype_on_device((int)dtype))
		return ir_bad(ir_fail(ir, -EINVAL,
			"cast: '%s' to dtype %d (%s), which is not a device dtype",
			ir_tname(ir, xi), (int)dtype,
			ipu_dtype_name((int)dtype)));
	return emit(ir, IPU_OP_CAST, &xi, 1, NULL, 0, &out);
}

ipu_tensor ipu_ir_all_reduce(struct ipu_ir *ir, ipu_tensor x,
			     enum ipu_ir_collective op,
			     const struct ipu_replica_grouping *group)
{
	/* Group size 0 stands for "all replicas": the compiler fills in the
	 * replication factor then, which may still change. */
	int64_t p[3] = { op, 0, 1 };
	char msg[256];
	int32_t xi;

	if (!ir)
		return ir_bad(-EINVAL);
	xi = ir_input(ir, "all_reduce", x, 1);
	if (xi < 0)
		return ir_bad(xi);
	if (group && group->assignment)
		return ir_bad(ir_fail(ir, -EINVAL,
			"all_reduce: '%s': groupings made from assignments (non-constant stride) are supported for variables only",
			ir_tname(ir, xi)));
	if (group) {
		if (__ipu_exe_check_grouping(ir->replication_factor,
					     group->group_size, group->stride,
					     msg, sizeof(msg)))
			return ir_bad(ir_fail(ir, -EINVAL, "all_reduce: '%s': %s",
					      ir_tname(ir, xi), msg));
		p[1] = group->group_size;
		p[2] = group->stride;
	}
	return emit(ir, IPU_OP_ALL_REDUCE, &xi, 1, p, 3, NULL);
}

/*
 * a * var + b * x for scaled_add_inplace on a tensor that is not a
 * variable: the executable updates variables alone in place (ASSIGN and
 * SCALED_ADD_INPLACE), so other tensors take the value from ordinary ops
 * and an ASSIGN the compiler turns into a COPY.
 */
static int32_t scaled_sum(struct ipu_ir *ir, int32_t vi, int32_t xi, float a,
			  float b)
{
	enum ipu_dtype dt = (enum ipu_dtype)ir->tensors[vi].dtype;
	ipu_tensor y;

	y = ipu_ir_add(ir,
		       ipu_ir_mul(ir, (ipu_tensor){ vi + 1 },
				  ipu_ir_scalar(ir, dt, a)),
		       ipu_ir_mul(ir, (ipu_tensor){ xi + 1 },
				  ipu_ir_scalar(ir, dt, b)));
	return y.id > 0 ? y.id - 1 : y.id;
}

/*
 * scaled_add_inplace and assign: @var is any tensor of the current graph
 * but a constant. Ops run in the order they are made, so the ones made
 * after this read the new value.
 */
static int update(struct ipu_ir *ir, uint32_t opc, ipu_tensor var,
		  ipu_tensor x, float a, float b)
{
	const char *opname = ipu_exe_op_name(opc);
	struct __ipu_exe_tdesc d[2];
	struct ir_op op = { .kind = opc, .nt = 2, .fparams = { a, b } };
	char msg[512];
	int32_t vi, xi;
	int ret;

	if (!ir)
		return -EINVAL;
	ret = ir_check_open(ir, opname);
	if (ret)
		return ret;
	vi = ir_input(ir, opname, var, 1);
	if (vi < 0)
		return vi;
	xi = ir_input(ir, opname, x, 2);
	if (xi < 0)
		return xi;
	if (ir->tensors[vi].kind == IRT_CONSTANT)
		return ir_fail(ir, -EINVAL,
			       "%s: '%s' is a constant: constants are not updated in place",
			       opname, ir_tname(ir, vi));
	ir_tdesc(ir, vi, &d[0]);
	ir_tdesc(ir, xi, &d[1]);
	ret = __ipu_exe_op_check(opc, d, 2, NULL, 0, msg, sizeof(msg));
	if (ret)
		return ir_fail(ir, ret, "%s: %s", opname, msg);
	if (opc == IPU_OP_SCALED_ADD_INPLACE &&
	    ir->tensors[vi].kind != IRT_VARIABLE) {
		xi = scaled_sum(ir, vi, xi, a, b);
		if (xi < 0)
			return xi;
		op.kind = IPU_OP_ASSIGN;
	}
	op.t = malloc(2 * sizeof(*op.t));
	if (!op.t)
		return ir_fail(ir, -ENOMEM, "%s: out of memory", opname);
	op.t[0] = vi;
	op.t[1] = xi;
	ret = ir_add_op(ir, &op);
	if (ret)
		free(op.t);
	else
		ir->tensors[vi].modified = true;
	return ret;
}

int ipu_ir_scaled_add_inplace(struct ipu_ir *ir, ipu_tensor var, ipu_tensor x,
			      float a, float b)
{
	return update(ir, IPU_OP_SCALED_ADD_INPLACE, var, x, a, b);
}

int ipu_ir_assign(struct ipu_ir *ir, ipu_tensor var, ipu_tensor x)
{
	return update(ir, IPU_OP_ASSIGN, var, x, 0, 0);
}
