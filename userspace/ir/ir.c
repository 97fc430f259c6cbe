// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ir.c - the ir object: lifetime, messages, settings, graphs and scopes,
 * handles, and the bookkeeping every op shares.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_internal.h"

int ir_fail(struct ipu_ir *ir, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ir->errmsg, sizeof(ir->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

int ir_reserve(void **arr, uint32_t *cap, uint64_t need, size_t esize)
{
	uint64_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	/* Ids are int32 handles: keep every table below INT32_MAX. */
	if (need >= INT32_MAX)
		return -ENOMEM;
	ncap = *cap ? (uint64_t)*cap * 2 : 8;
	if (ncap < need)
		ncap = need;
	if (ncap >= INT32_MAX)
		ncap = INT32_MAX - 1;
	p = realloc(*arr, ncap * esize);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = (uint32_t)ncap;
	return 0;
}

static int add_graph(struct ipu_ir *ir, const char *name)
{
	struct ir_graph *g;
	char *copy;

	if (ir_reserve((void **)&ir->graphs, &ir->cap_graphs,
		       (uint64_t)ir->ngraphs + 1, sizeof(*ir->graphs)))
		return -ENOMEM;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	g = &ir->graphs[ir->ngraphs];
	memset(g, 0, sizeof(*g));
	g->name = copy;
	return (int)ir->ngraphs++;
}

int ipu_ir_create(const char *name, struct ipu_ir **irp)
{
	struct ipu_ir *ir;

	if (!irp)
		return -EINVAL;
	*irp = NULL;
	if (!name)
		name = "";
	if (strlen(name) > IPU_EXE_MAX_NAME)
		return -EINVAL;
	ir = calloc(1, sizeof(*ir));
	if (!ir)
		return -ENOMEM;
	ir->name = strdup(name);
	if (!ir->name || add_graph(ir, "main") < 0) {
		ipu_ir_destroy(ir);
		return -ENOMEM;
	}
	ir->graph_scope[0] = 0;
	ir->ngraph_scopes = 1;
	ir->num_host_transfers = 1;
	ir->replication_factor = 1;
	*irp = ir;
	return 0;
}

void ipu_ir_destroy(struct ipu_ir *ir)
{
	if (!ir)
		return;
	for (uint32_t i = 0; i < ir->ntensors; i++) {
		free(ir->tensors[i].name);
		free(ir->tensors[i].data);
		free(ir->tensors[i].mmap_path);
	}
	for (uint32_t i = 0; i < ir->nops; i++) {
		free(ir->ops[i].t);
		free(ir->ops[i].params);
	}
	for (uint32_t i = 0; i < ir->ngraphs; i++) {
		free(ir->graphs[i].name);
		free(ir->graphs[i].ops);
		free(ir->graphs[i].inputs);
		free(ir->graphs[i].outputs);
	}
	for (uint32_t i = 0; i < ir->nstreams; i++)
		free(ir->streams[i].name);
	for (uint32_t i = 0; i < ir->nassigns; i++)
		free(ir->assigns[i]);
	free(ir->assigns);
	free(ir->tensors);
	free(ir->ops);
	free(ir->graphs);
	free(ir->streams);
	free(ir->name);
	free(ir);
}

const char *ipu_ir_errmsg(const struct ipu_ir *ir)
{
	return ir ? ir->errmsg : "no ir";
}

/* ---------------------------------------------------------------------- */
/* Settings                                                                 */
/* ---------------------------------------------------------------------- */

static int set_count(struct ipu_ir *ir, uint32_t *field, uint32_t n,
		     const char *what)
{
	if (!ir)
		return -EINVAL;
	if (!n)
		return ir_fail(ir, -EINVAL, "%s 0: must be >= 1", what);
	*field = n;
	return 0;
}

int ipu_ir_set_num_host_transfers(struct ipu_ir *ir, uint32_t n)
{
	return set_count(ir, ir ? &ir->num_host_transfers : NULL, n,
			 "num_host_transfers");
}

int ipu_ir_set_replication_factor(struct ipu_ir *ir, uint32_t n)
{
	return set_count(ir, ir ? &ir->replication_factor : NULL, n,
			 "replication_factor");
}

int ipu_ir_set_instance_replication_factor(struct ipu_ir *ir, uint32_t n)
{
	return set_count(ir, ir ? &ir->instance_replication_factor : NULL, n,
			 "instance_replication_factor");
}

uint32_t ipu_ir_num_host_transfers(const struct ipu_ir *ir)
{
	return ir ? ir->num_host_transfers : 0;
}

uint32_t ipu_ir_replication_factor(const struct ipu_ir *ir)
{
	return ir ? ir->replication_factor : 0;
}

uint32_t ipu_ir_instance_replication_factor(const struct ipu_ir *ir)
{
	if (!ir)
		return 0;
	return ir->instance_replication_factor ?
		       ir->instance_replication_factor :
		       ir->replication_factor;
}

uint32_t ipu_ir_ipus_per_replica(const struct ipu_ir *ir)
{
	uint32_t max = 0;

	if (!ir)
		return 0;
	for (uint32_t i = 0; i < ir->nops; i++)
		if (ir->ops[i].vgid > max)
			max = ir->ops[i].vgid;
	return max + 1;
}

/* ---------------------------------------------------------------------- */
/* Graphs and scopes                                                        */
/* ---------------------------------------------------------------------- */

ipu_graph ipu_ir_main_graph(const struct ipu_ir *ir)
{
	return (ipu_graph){ ir ? 1 : -EINVAL };
}

ipu_graph ipu_ir_current_graph(const struct ipu_ir *ir)
{
	return (ipu_graph){ ir ? ir_cur(ir) + 1 : -EINVAL };
}

ipu_graph ipu_ir_create_graph(struct ipu_ir *ir, const char *name)
{
	int ret;

	if (!ir)
		return (ipu_graph){ -EINVAL };
	ret = ir_check_name(ir, "create_graph", name);
	if (ret)
		return (ipu_graph){ ret };
	for (uint32_t i = 0; i < ir->ngraphs; i++)
		if (!strcmp(ir->graphs[i].name, name))
			return (ipu_graph){ ir_fail(ir, -EINVAL,
				"create_graph: a graph named '%s' exists",
				name) };
	ret = add_graph(ir, name);
	if (ret < 0)
		return (ipu_graph){ ir_fail(ir, ret,
				"create_graph: '%s': out of memory", name) };
	return (ipu_graph){ ret + 1 };
}

int ir_graph_index(struct ipu_ir *ir, const char *what, ipu_graph g)
{
	if (g.id < 0)
		return ir_fail(ir, -EINVAL,
			       "%s: the graph is the result of a failed call (%s)",
			       what, strerror(-g.id));
	if (g.id == 0 || (uint32_t)g.id > ir->ngraphs)
		return ir_fail(ir, -EINVAL, "%s: no graph %d in this ir", what,
			       g.id);
	return g.id - 1;
}

int ipu_ir_push_graph(struct ipu_ir *ir, ipu_graph g)
{
	int gi;

	if (!ir)
		return -EINVAL;
	gi = ir_graph_index(ir, "push_graph", g);
	if (gi < 0)
		return gi;
	if (ir->ngraph_scopes == IPU_IR_MAX_SCOPES)
		return ir_fail(ir, -E2BIG,
			       "push_graph: graph scopes nest deeper than %d",
			       IPU_IR_MAX_SCOPES);
	ir->graph_scope[ir->ngraph_scopes++] = gi;
	return 0;
}

int ipu_ir_pop_graph(struct ipu_ir *ir)
{
	if (!ir)
		return -EINVAL;
	if (ir->ngraph_scopes == 1)
		return ir_fail(ir, -EINVAL,
			       "pop_graph: no graph pushed; the main graph stays");
	ir->ngraph_scopes--;
	return 0;
}

int ipu_ir_push_ipu(struct ipu_ir *ir, uint32_t vgid)
{
	if (!ir)
		return -EINVAL;
	if (vgid >= IPU_IR_MAX_VGID)
		return ir_fail(ir, -EINVAL,
			       "push_ipu: virtual graph id %u, at most %d",
			       vgid, IPU_IR_MAX_VGID - 1);
	if (ir->nipu_scopes == IPU_IR_MAX_SCOPES)
		return ir_fail(ir, -E2BIG,
			       "push_ipu: ipu scopes nest deeper than %d",
			       IPU_IR_MAX_SCOPES);
	ir->ipu_scope[ir->nipu_scopes++] = vgid;
	return 0;
}

int ipu_ir_pop_ipu(struct ipu_ir *ir)
{
	if (!ir)
		return -EINVAL;
	if (!ir->nipu_scopes)
		return ir_fail(ir, -EINVAL, "pop_ipu: no ipu scope pushed");
	ir->nipu_scopes--;
	return 0;
}

int ipu_ir_set_ipu(struct ipu_ir *ir, ipu_tensor t, uint32_t vgid)
{
	int32_t ti;

	if (!ir)
		return -EINVAL;
	if (vgid >= IPU_IR_MAX_VGID)
		return ir_fail(ir, -EINVAL,
			       "set_ipu: virtual graph id %u, at most %d", vgid,
			       IPU_IR_MAX_VGID - 1);
	/* Any graph's tensor will do: the op is found through it. */
	if (t.id <= 0 || (uint32_t)t.id > ir->ntensors)
		return ir_input(ir, "set_ipu", t, 1);
	ti = t.id - 1;
	if (ir->tensors[ti].producer < 0)
		return ir_fail(ir, -EINVAL,
			       "set_ipu: '%s' is not the output of an op",
			       ir_tname(ir, ti));
	ir->ops[ir->tensors[ti].producer].vgid = vgid;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Tensors and ops                                                          */
/* ---------------------------------------------------------------------- */

int ir_check_name(struct ipu_ir *ir, const char *what, const char *name)
{
	if (!name || !name[0])
		return ir_fail(ir, -EINVAL, "%s: a name is required", what);
	if (strlen(name) > IPU_EXE_MAX_NAME)
		return ir_fail(ir, -EINVAL,
			       "%s: name '%.32s...' is longer than %d bytes",
			       what, name, IPU_EXE_MAX_NAME);
	return 0;
}

int ir_check_layout(struct ipu_ir *ir, const char *what, const char *name,
		    enum ipu_dtype dtype, size_t ndim, const uint64_t *shape,
		    uint64_t *nbytes)
{
	uint64_t n;

	if (!ipu_dtype_on_device((int)dtype))
		return ir_fail(ir, -EINVAL,
			       "%s: '%s': dtype %d (%s) is not a device dtype",
			       what, name, (int)dtype,
			       ipu_dtype_name((int)dtype));
	if (ndim > IPU_EXE_MAX_DIMS)
		return ir_fail(ir, -EINVAL,
			       "%s: '%s': %zu dimensions, at most %d", what,
			       name, ndim, IPU_EXE_MAX_DIMS);
	if (ndim && !shape)
		return ir_fail(ir, -EINVAL, "%s: '%s': no shape", what, name);
	for (size_t d = 0; d < ndim; d++)
		if (!shape[d])
			return ir_fail(ir, -EINVAL,
				       "%s: '%s': dimension %zu is 0 (empty tensors are not supported)",
				       what, name, d);
	/* Sizes stay below 2^63 so that dimensions and byte counts fit the
	 * signed 64-bit values slices and reshapes work in. */
	if (__ipu_exe_nelems((uint32_t)ndim, shape, &n) ||
	    __builtin_mul_overflow(n, ipu_dtype_size((int)dtype), &n) ||
	    n > INT64_MAX)
		return ir_fail(ir, -EINVAL, "%s: '%s': size overflows", what,
			       name);
	if (nbytes)
		*nbytes = n;
	return 0;
}

int ir_check_open(struct ipu_ir *ir, const char *what)
{
	const struct ir_graph *g = &ir->graphs[ir_cur(ir)];

	if (g->frozen)
		return ir_fail(ir, -EINVAL,
			       "%s: graph '%s' was already called and can no longer change",
			       what, g->name);
	return 0;
}

int ir_input(struct ipu_ir *ir, const char *what, ipu_tensor t, unsigned pos)
{
	const struct ir_tensor *x;
	int32_t cur = ir_cur(ir);

	if (t.id < 0) {
		char prev[sizeof(ir->errmsg)];

		memcpy(prev, ir->errmsg, sizeof(prev));
		return ir_fail(ir, -EINVAL,
			       "%s: input %u is the result of a failed call (%s)%s%s",
			       what, pos, strerror(-t.id),
			       prev[0] ? "; the last error was: " : "", prev);
	}
	if (t.id == 0)
		return ir_fail(ir, -EINVAL,
			       "%s: input %u is an uninitialised tensor handle",
			       what, pos);
	if ((uint32_t)t.id > ir->ntensors)
		return ir_fail(ir, -EINVAL, "%s: input %u: no tensor %d in this ir",
			       what, pos, t.id);
	x = &ir->tensors[t.id - 1];
	if (x->graph != IR_GLOBAL && x->graph != cur)
		return ir_fail(ir, -EINVAL,
			       "%s: '%s' belongs to graph '%s', not to the current graph '%s'",
			       what, x->name, ir->graphs[x->graph].name,
			       ir->graphs[cur].name);
	return t.id - 1;
}

void ir_tdesc(const struct ipu_ir *ir, int32_t t, struct __ipu_exe_tdesc *d)
{
	const struct ir_tensor *x = &ir->tensors[t];

	d->name = x->name;
	d->dtype = x->dtype;
	d->ndim = x->ndim;
	memcpy(d->shape, x->shape, sizeof(d->shape));
}

/* Room for one more op in the table and in the current graph's list. */
int ir_reserve_op(struct ipu_ir *ir)
{
	struct ir_graph *g = &ir->graphs[ir_cur(ir)];

	if (ir_reserve((void **)&ir->ops, &ir->cap_ops, (uint64_t)ir->nops + 1,
		       sizeof(*ir->ops)) ||
	    ir_reserve((void **)&g->ops, &g->cap_ops, (uint64_t)g->nops + 1,
		       sizeof(*g->ops)))
		return -ENOMEM;
	return 0;
}

/* Append @op (whose arrays the ir now owns) to the current graph. */
void ir_commit_op(struct ipu_ir *ir, const struct ir_op *op)
{
	struct ir_graph *g = &ir->graphs[ir_cur(ir)];
	struct ir_op *o = &ir->ops[ir->nops];

	*o = *op;
	o->vgid = ir->nipu_scopes ? ir->ipu_scope[ir->nipu_scopes - 1] : 0;
	g->ops[g->nops++] = (int32_t)ir->nops++;
}

int ir_add_op(struct ipu_ir *ir, const struct ir_op *op)
{
	if (ir_reserve_op(ir))
		return ir_fail(ir, -ENOMEM, "%s: out of memory",
			       ipu_exe_op_name(op->kind));
	ir_commit_op(ir, op);
	return 0;
}

int32_t ir_add_tensor(struct ipu_ir *ir, const struct ir_tensor *tmpl,
		      const char *name, struct ir_op *op)
{
	struct ir_tensor *t;
	char *copy;
	int32_t ti;

	if (ir_reserve((void **)&ir->tensors, &ir->cap_tensors,
		       (uint64_t)ir->ntensors + 1, sizeof(*ir->tensors)) ||
	    (op && ir_reserve_op(ir)))
		return ir_fail(ir, -ENOMEM, "'%s': out of memory", name);
	copy = strdup(name);
	if (!copy)
		return ir_fail(ir, -ENOMEM, "'%s': out of memory", name);
	ti = (int32_t)ir->ntensors++;
	t = &ir->tensors[ti];
	*t = *tmpl;
	t->name = copy;
	t->producer = -1;
	if (t->kind == IRT_VALUE || t->kind == IRT_INPUT)
		t->graph = ir_cur(ir);
	else
		t->graph = IR_GLOBAL;
	if (op) {
		t->producer = (int32_t)ir->nops;
		op->t[0] = ti;
		ir_commit_op(ir, op);
	}
	return ti;
}

/* ---------------------------------------------------------------------- */
/* Tensor queries                                                           */
/* ---------------------------------------------------------------------- */

static const struct ir_tensor *lookup(const struct ipu_ir *ir, ipu_tensor t)
{
	if (!ir || t.id <= 0 || (uint32_t)t.id > ir->ntensors)
		return NULL;
	return &ir->tensors[t.id - 1];
}

const char *ipu_ir_tensor_name(const struct ipu_ir *ir, ipu_tensor t)
{
	const struct ir_tensor *x = lookup(ir, t);

	return x ? x->name : NULL;
}

enum ipu_dtype ipu_ir_tensor_dtype(const struct ipu_ir *ir, ipu_tensor t)
{
	const struct ir_tensor *x = lookup(ir, t);

	return x ? (enum ipu_dtype)x->dtype : IPU_DTYPE_INVALID;
}

int ipu_ir_tensor_shape(const struct ipu_ir *ir, ipu_tensor t, uint64_t *shape)
{
	const struct ir_tensor *x = lookup(ir, t);

	if (!x)
		return -EINVAL;
	if (shape)
		memcpy(shape, x->shape, sizeof(x->shape));
	return (int)x->ndim;
}

int ipu_ir_tensor_set_name(struct ipu_ir *ir, ipu_tensor t, const char *name)
{
	struct ir_tensor *x;
	char *copy;
	int ret;

	if (!ir)
		return -EINVAL;
	if (!lookup(ir, t))
		return ir_input(ir, "set_name", t, 1);
	x = &ir->tensors[t.id - 1];
	ret = ir_check_name(ir, "set_name", name);
	if (ret)
		return ret;
	if (x->kind == IRT_VARIABLE || x->kind == IRT_CONSTANT)
		return ir_fail(ir, -EINVAL,
			       "set_name: '%s' is a %s: its name is its host key",
			       x->name,
			       x->kind == IRT_VARIABLE ? "variable" : "constant");
	copy = strdup(name);
	if (!copy)
		return ir_fail(ir, -ENOMEM, "set_name: out of memory");
	free(x->name);
	x->name = copy;
	return 0;
}
