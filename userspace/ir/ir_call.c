// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ir_call.c - calling and repeating subgraphs (PopXL's ops.call and
 * ops.repeat). The builder only records the call and checks that the
 * inputs fit; compile.c flattens it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_internal.h"

/* "'x' float32 [4]" of tensor @t, into @buf. */
static const char *describe(const struct ipu_ir *ir, int32_t t, char *buf,
			    size_t len)
{
	const struct ir_tensor *x = &ir->tensors[t];
	char shape[__IPU_EXE_SHAPE_STRLEN];

	snprintf(buf, len, "'%s' %s %s", x->name, ipu_dtype_name((int)x->dtype),
		 __ipu_exe_fmt_shape(shape, sizeof(shape), x->ndim, x->shape));
	return buf;
}

static bool same_layout(const struct ir_tensor *a, const struct ir_tensor *b)
{
	return a->dtype == b->dtype && a->ndim == b->ndim &&
	       !memcmp(a->shape, b->shape, sizeof(a->shape));
}

/* Counts, the callee, and for a repeat the carried pairs. */
static int check_callee(struct ipu_ir *ir, const char *what, int32_t gi,
			size_t ninputs, size_t noutputs, bool want_outputs,
			bool repeat)
{
	const struct ir_graph *g = &ir->graphs[gi];
	char a[320], b[320];

	if (!gi)
		return ir_fail(ir, -EINVAL, "%s: the main graph cannot be called",
			       what);
	if (gi == ir_cur(ir))
		return ir_fail(ir, -EINVAL, "%s: graph '%s' cannot call itself",
			       what, g->name);
	if (ninputs != g->ninputs)
		return ir_fail(ir, -EINVAL,
			       "%s: graph '%s' takes %u inputs, %zu given", what,
			       g->name, g->ninputs, ninputs);
	if (want_outputs && noutputs != g->noutputs)
		return ir_fail(ir, -EINVAL,
			       "%s: graph '%s' has %u outputs, room for %zu given",
			       what, g->name, g->noutputs, noutputs);
	if (!repeat)
		return 0;
	if (g->noutputs > g->ninputs)
		return ir_fail(ir, -EINVAL,
			       "%s: graph '%s' has %u outputs but %u inputs: each output is carried to the input at its position",
			       what, g->name, g->noutputs, g->ninputs);
	for (uint32_t j = 0; j < g->noutputs; j++)
		if (!same_layout(&ir->tensors[g->outputs[j]],
				 &ir->tensors[g->inputs[j]]))
			return ir_fail(ir, -EINVAL,
				       "%s: graph '%s' output %u %s is carried to input %u %s: they differ",
				       what, g->name, j,
				       describe(ir, g->outputs[j], a, sizeof(a)),
				       j,
				       describe(ir, g->inputs[j], b, sizeof(b)));
	return 0;
}

/* Input @in of a callee hands its in-place updates back to the caller. */
static bool passes_update(const struct ir_tensor *in)
{
	return in->by_ref && in->modified;
}

static int add_call(struct ipu_ir *ir, uint32_t kind, ipu_graph graph,
		    uint64_t count, const ipu_tensor *inputs, size_t ninputs,
		    ipu_tensor *outputs, size_t noutputs)
{
	const char *what = kind == IR_OP_CALL ? "call" : "repeat";
	bool want = outputs || noutputs;
	struct ir_op op = { .kind = kind, .count = count };
	const struct ir_graph *g;
	char **names = NULL;
	char a[320], b[320];
	uint32_t nout = 0;
	int32_t gi;
	int ret;

	ret = ir_check_open(ir, what);
	if (ret)
		return ret;
	gi = ir_graph_index(ir, what, graph);
	if (gi < 0)
		return gi;
	if (want && !outputs)
		return ir_fail(ir, -EINVAL, "%s: %zu outputs but no array",
			       what, noutputs);
	if (ninputs && !inputs)
		return ir_fail(ir, -EINVAL, "%s: %zu inputs but no array", what,
			       ninputs);
	if (count > INT64_MAX)
		return ir_fail(ir, -EINVAL, "%s: count %llu is too large", what,
			       (unsigned long long)count);
	ret = check_callee(ir, what, gi, ninputs, noutputs, want,
			   kind == IR_OP_REPEAT);
	if (ret)
		return ret;
	g = &ir->graphs[gi];
	nout = g->noutputs;
	op.callee = gi;
	op.nin = (uint32_t)ninputs;
	op.nt = op.nin + nout;
	op.t = malloc((op.nt ? op.nt : 1) * sizeof(*op.t));
	names = calloc(nout ? nout : 1, sizeof(*names));
	if (!op.t || !names) {
		ret = ir_fail(ir, -ENOMEM, "%s: out of memory", what);
		goto out;
	}
	for (uint32_t k = 0; k < op.nin; k++) {
		int32_t ti = ir_input(ir, what, inputs[k], k + 1);

		if (ti < 0) {
			ret = ti;
			goto out;
		}
		if (!same_layout(&ir->tensors[ti], &ir->tensors[g->inputs[k]])) {
			ret = ir_fail(ir, -EINVAL,
				      "%s: input %u %s does not match input %s of graph '%s'",
				      what, k + 1, describe(ir, ti, a, sizeof(a)),
				      describe(ir, g->inputs[k], b, sizeof(b)),
				      g->name);
			goto out;
		}
		if (passes_update(&ir->tensors[g->inputs[k]]) &&
		    ir->tensors[ti].kind == IRT_CONSTANT) {
			ret = ir_fail(ir, -EINVAL,
				      "%s: input %u '%s' is a constant, and graph '%s' updates its input '%s', passed by reference, in place",
				      what, k + 1, ir_tname(ir, ti), g->name,
				      ir_tname(ir, g->inputs[k]));
			goto out;
		}
		op.t[k] = ti;
	}
	/* Everything that can fail comes before the first change. */
	for (uint32_t j = 0; j < nout; j++)
		if (!(names[j] = strdup(ir->tensors[g->outputs[j]].name)))
			ret = -ENOMEM;
	if (ret || ir_reserve((void **)&ir->tensors, &ir->cap_tensors,
			      (uint64_t)ir->ntensors + nout,
			      sizeof(*ir->tensors)) ||
	    ir_reserve_op(ir)) {
		ret = ir_fail(ir, -ENOMEM, "%s: out of memory", what);
		goto out;
	}
	for (uint32_t j = 0; j < nout; j++) {
		struct ir_tensor *t = &ir->tensors[ir->ntensors];

		*t = (struct ir_tensor){ .kind = IRT_VALUE, .name = names[j],
					 .graph = ir_cur(ir),
					 .producer = (int32_t)ir->nops };
		names[j] = NULL;
		t->dtype = ir->tensors[g->outputs[j]].dtype;
		t->ndim = ir->tensors[g->outputs[j]].ndim;
		t->nbytes = ir->tensors[g->outputs[j]].nbytes;
		memcpy(t->shape, ir->tensors[g->outputs[j]].shape,
		       sizeof(t->shape));
		op.t[op.nin + j] = (int32_t)ir->ntensors;
		if (want)
			outputs[j] = (ipu_tensor){ (int32_t)ir->ntensors + 1 };
		ir->ntensors++;
	}
	/* The caller's tensor changes with the callee's input. */
	for (uint32_t k = 0; k < op.nin; k++)
		if (passes_update(&ir->tensors[g->inputs[k]]))
			ir->tensors[op.t[k]].modified = true;
	ir_commit_op(ir, &op);
	op.t = NULL;
	/* Inlined at compile time: a graph that changed after a call would
	 * change the call too. */
	ir->graphs[gi].frozen = true;
out:
	for (uint32_t j = 0; names && j < nout; j++)
		free(names[j]);
	free(names);
	free(op.t);
	return ret;
}

/* A failed call's outputs carry its error, so that using them says so. */
static int call_common(struct ipu_ir *ir, uint32_t kind, ipu_graph graph,
		       uint64_t count, const ipu_tensor *inputs, size_t ninputs,
		       ipu_tensor *outputs, size_t noutputs)
{
	int ret;

	if (!ir)
		ret = -EINVAL;
	else
		ret = add_call(ir, kind, graph, count, inputs, ninputs,
			       outputs, noutputs);
	for (size_t j = 0; ret && outputs && j < noutputs; j++)
		outputs[j] = ir_bad(ret);
	return ret;
}

int ipu_ir_call(struct ipu_ir *ir, ipu_graph g, const ipu_tensor *inputs,
		size_t ninputs, ipu_tensor *outputs, size_t noutputs)
{
	return call_common(ir, IR_OP_CALL, g, 0, inputs, ninputs, outputs,
			   noutputs);
}

int ipu_ir_repeat(struct ipu_ir *ir, ipu_graph g, uint64_t count,
		  const ipu_tensor *inputs, size_t ninputs,
		  ipu_tensor *outputs, size_t noutputs)
{
	return call_common(ir, IR_OP_REPEAT, g, count, inputs, ninputs,
			   outputs, noutputs);
}
