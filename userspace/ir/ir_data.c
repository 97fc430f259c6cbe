// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ir_data.c - what holds or moves data: variables (grouped or mapped),
 * constants, replica groupings, host streams with host_load and
 * host_store, and subgraph inputs and outputs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_internal.h"

int ipu_ir_replica_grouping(struct ipu_ir *ir, uint32_t stride,
			    uint32_t group_size,
			    struct ipu_replica_grouping *out)
{
	char msg[256];

	if (!ir || !out)
		return -EINVAL;
	/* PopXL's default: every stride-th replica, as many as there are. */
	if (!group_size && stride)
		group_size = ir->replication_factor / stride;
	if (__ipu_exe_check_grouping(ir->replication_factor, group_size, stride,
				     msg, sizeof(msg)))
		return ir_fail(ir, -EINVAL, "replica_grouping: %s", msg);
	/* PopART normalises a group of one to stride 1. */
	out->stride = group_size == 1 ? 1 : stride;
	out->group_size = group_size;
	out->assignment = NULL;
	return 0;
}

/*
 * Check @a (PopXL's rules for assignment groupings) and keep a copy owned
 * by @ir in *@copy; *@group_size: the size of each group.
 */
static int keep_assignment(struct ipu_ir *ir, const char *what,
			   const uint32_t *a, size_t n, uint32_t *group_size,
			   const uint32_t **copy)
{
	uint32_t rf = ir->replication_factor, groups = 0, *count, *c;

	if (!a || n != rf)
		return ir_fail(ir, -EINVAL,
			       "%s: %zu group assignments for replication factor %u: give one per replica",
			       what, a ? n : 0, rf);
	for (size_t r = 0; r < n; r++) {
		if (a[r] >= rf)
			return ir_fail(ir, -EINVAL,
				       "%s: replica %zu assigned to group %u, but %u replicas make at most %u groups",
				       what, r, a[r], rf, rf);
		if (a[r] + 1 > groups)
			groups = a[r] + 1;
	}
	count = calloc(groups, sizeof(*count));
	if (!count)
		return ir_fail(ir, -ENOMEM, "%s: out of memory", what);
	for (size_t r = 0; r < n; r++)
		count[a[r]]++;
	for (uint32_t g = 0; g < groups; g++) {
		if (!count[g] || count[g] != count[0]) {
			int ret = !count[g] ?
				ir_fail(ir, -EINVAL,
					"%s: no replica is assigned to group %u: groups must be numbered 0..%u without gaps",
					what, g, groups - 1) :
				ir_fail(ir, -EINVAL,
					"%s: group %u has %u replicas, group 0 has %u: all groups must be the same size",
					what, g, count[g], count[0]);
			free(count);
			return ret;
		}
	}
	*group_size = count[0];
	free(count);
	if (ir_reserve((void **)&ir->assigns, &ir->cap_assigns,
		       (uint64_t)ir->nassigns + 1, sizeof(*ir->assigns)))
		return ir_fail(ir, -ENOMEM, "%s: out of memory", what);
	c = malloc(n * sizeof(*c));
	if (!c)
		return ir_fail(ir, -ENOMEM, "%s: out of memory", what);
	memcpy(c, a, n * sizeof(*c));
	ir->assigns[ir->nassigns++] = c;
	*copy = c;
	return 0;
}

int ipu_ir_replica_grouping_from_assignments(struct ipu_ir *ir,
					     const uint32_t *assignment,
					     size_t n,
					     struct ipu_replica_grouping *out)
{
	uint32_t size;
	const uint32_t *copy;
	int ret;

	if (!ir || !out)
		return -EINVAL;
	ret = keep_assignment(ir, "replica_grouping_from_assignments",
			      assignment, n, &size, &copy);
	if (ret)
		return ret;
	out->stride = 0;
	out->group_size = size;
	out->assignment = copy;
	return 0;
}

/* Variables and constants are host-visible by name (S19). */
static int check_unique_global(struct ipu_ir *ir, const char *what,
			       const char *name)
{
	for (uint32_t i = 0; i < ir->ntensors; i++) {
		const struct ir_tensor *t = &ir->tensors[i];

		if ((t->kind == IRT_VARIABLE || t->kind == IRT_CONSTANT) &&
		    !strcmp(t->name, name))
			return ir_fail(ir, -EINVAL,
				       "%s: a %s named '%s' exists", what,
				       t->kind == IRT_VARIABLE ? "variable" :
								 "constant",
				       name);
	}
	return 0;
}

/* The part of @opts this library knows; unknown trailing bytes must be 0. */
static int read_var_opts(struct ipu_ir *ir, const char *name,
			 const struct ipu_ir_variable_opts *opts,
			 struct ipu_ir_variable_opts *o)
{
	size_t known = sizeof(*o);

	memset(o, 0, sizeof(*o));
	if (!opts)
		return 0;
	if (opts->sz < offsetof(struct ipu_ir_variable_opts, grouping) +
			       sizeof(opts->grouping))
		return ir_fail(ir, -EINVAL,
			       "variable '%s': options size %zu is too small",
			       name, opts->sz);
	for (size_t i = known; i < opts->sz; i++)
		if (((const uint8_t *)opts)[i])
			return ir_fail(ir, -E2BIG,
				       "variable '%s': options carry unknown non-zero bytes",
				       name);
	memcpy(o, opts, opts->sz < known ? opts->sz : known);
	return 0;
}

ipu_tensor ipu_ir_variable(struct ipu_ir *ir, const char *name,
			   enum ipu_dtype dtype, size_t ndim,
			   const uint64_t *shape, const void *data,
			   const struct ipu_ir_variable_opts *opts)
{
	struct ir_tensor t = { .kind = IRT_VARIABLE, .dtype = (uint32_t)dtype,
			       .ndim = (uint32_t)ndim, .num_groups = 1,
			       .group_stride = 1 };
	struct ipu_ir_variable_opts o;
	char msg[256];
	int32_t ti;
	int ret;

	if (!ir)
		return ir_bad(-EINVAL);
	ret = ir_check_name(ir, "variable", name);
	if (!ret)
		ret = read_var_opts(ir, name, opts, &o);
	if (!ret)
		ret = check_unique_global(ir, "variable", name);
	if (!ret)
		ret = ir_check_layout(ir, "variable", name, dtype, ndim, shape,
				      &t.nbytes);
	if (ret)
		return ir_bad(ret);
	if (o.grouping && o.grouping->assignment) {
		char what[64 + IPU_EXE_MAX_NAME];
		uint32_t size;

		snprintf(what, sizeof(what), "variable '%s'", name);
		ret = keep_assignment(ir, what, o.grouping->assignment,
				      ir->replication_factor, &size,
				      &t.group_assignment);
		if (ret)
			return ir_bad(ret);
		if (size != o.grouping->group_size)
			return ir_bad(ir_fail(ir, -EINVAL,
				"variable '%s': grouping says group_size %u, its assignment makes groups of %u",
				name, o.grouping->group_size, size));
		t.group_assignment_n = ir->replication_factor;
		t.group_size = size;
		t.group_stride = 0;
		t.num_groups = ir->replication_factor / size;
	} else if (o.grouping) {
		if (__ipu_exe_check_grouping(ir->replication_factor,
					     o.grouping->group_size,
					     o.grouping->stride, msg,
					     sizeof(msg)))
			return ir_bad(ir_fail(ir, -EINVAL, "variable '%s': %s",
					      name, msg));
		t.group_size = o.grouping->group_size;
		t.group_stride = o.grouping->group_size == 1 ?
					 1 : o.grouping->stride;
		t.num_groups = ir->replication_factor / t.group_size;
	}
	if (o.retrieval > IPU_EXE_RETRIEVE_ALL_REPLICAS)
		return ir_bad(ir_fail(ir, -EINVAL,
			"variable '%s': retrieval mode %u is neither one_per_group nor all_replicas",
			name, o.retrieval));
	t.retrieval = o.retrieval;
	if (__builtin_mul_overflow(t.nbytes, t.num_groups, &t.data_size) ||
	    t.data_size > INT64_MAX)
		return ir_bad(ir_fail(ir, -EINVAL,
			"variable '%s': %u groups overflow the data size", name,
			t.num_groups));
	if (o.mmap_path) {
		if (data)
			return ir_bad(ir_fail(ir, -EINVAL,
				"variable '%s': memory-mapped from '%s', yet data was given too",
				name, o.mmap_path));
		if (!o.mmap_path[0] || strlen(o.mmap_path) >= 4096)
			return ir_bad(ir_fail(ir, -EINVAL,
				"variable '%s': mmap path empty or over 4095 bytes",
				name));
		t.mmap_path = strdup(o.mmap_path);
		t.mmap_readonly = o.mmap_readonly;
		t.data_size = 0;
		if (!t.mmap_path)
			return ir_bad(ir_fail(ir, -ENOMEM,
				"variable '%s': out of memory", name));
	} else if (o.mmap_readonly) {
		return ir_bad(ir_fail(ir, -EINVAL,
			"variable '%s': mmap_readonly without mmap_path", name));
	} else if (data) {
		t.data = malloc((size_t)t.data_size);
		if (!t.data)
			return ir_bad(ir_fail(ir, -ENOMEM,
				"variable '%s': out of memory for %llu bytes",
				name, (unsigned long long)t.data_size));
		memcpy(t.data, data, (size_t)t.data_size);
	}
	if (ndim)
		memcpy(t.shape, shape, ndim * sizeof(*shape));
	ti = ir_add_tensor(ir, &t, name, NULL);
	if (ti < 0) {
		free(t.data);
		free(t.mmap_path);
		return ir_bad(ti);
	}
	return ir_bad(ti + 1);
}

ipu_tensor ipu_ir_constant(struct ipu_ir *ir, const char *name,
			   enum ipu_dtype dtype, size_t ndim,
			   const uint64_t *shape, const void *data)
{
	struct ir_tensor t = { .kind = IRT_CONSTANT, .dtype = (uint32_t)dtype,
			       .ndim = (uint32_t)ndim, .num_groups = 1 };
	char autoname[32];
	int32_t ti;
	int ret;

	if (!ir)
		return ir_bad(-EINVAL);
	if (!name) {
		snprintf(autoname, sizeof(autoname), "const.%u",
			 ir->ntensors + 1);
		name = autoname;
	}
	ret = ir_check_name(ir, "constant", name);
	if (!ret)
		ret = check_unique_global(ir, "constant", name);
	if (!ret)
		ret = ir_check_layout(ir, "constant", name, dtype, ndim, shape,
				      &t.nbytes);
	if (ret)
		return ir_bad(ret);
	if (!data)
		return ir_bad(ir_fail(ir, -EINVAL, "constant '%s': no data",
				      name));
	t.data_size = t.nbytes;
	t.data = malloc(t.nbytes ? (size_t)t.nbytes : 1);
	if (!t.data)
		return ir_bad(ir_fail(ir, -ENOMEM,
				      "constant '%s': out of memory", name));
	memcpy(t.data, data, (size_t)t.nbytes);
	if (ndim)
		memcpy(t.shape, shape, ndim * sizeof(*shape));
	ti = ir_add_tensor(ir, &t, name, NULL);
	if (ti < 0) {
		free(t.data);
		return ir_bad(ti);
	}
	return ir_bad(ti + 1);
}

ipu_tensor ipu_ir_scalar(struct ipu_ir *ir, enum ipu_dtype dtype, double value)
{
	/* Aligned for any element type: the conversion writes one. */
	union {
		uint8_t bytes[8];
		uint64_t align;
	} buf;

	if (!ir)
		return ir_bad(-EINVAL);
	if (!ipu_dtype_on_device((int)dtype))
		return ir_bad(ir_fail(ir, -EINVAL,
			"scalar: dtype %d (%s) is not a device dtype",
			(int)dtype, ipu_dtype_name((int)dtype)));
	if (ipu_dtype_convert(buf.bytes, (int)dtype, &value, IPU_DTYPE_FLOAT64,
			      1))
		return ir_bad(ir_fail(ir, -EINVAL,
			"scalar: cannot convert %g to %s", value,
			ipu_dtype_name((int)dtype)));
	return ipu_ir_constant(ir, NULL, dtype, 0, NULL, buf.bytes);
}

/* ---------------------------------------------------------------------- */
/* Streams                                                                  */
/* ---------------------------------------------------------------------- */

static ipu_stream add_stream(struct ipu_ir *ir, const char *name,
			     uint32_t direction, enum ipu_dtype dtype,
			     size_t ndim, const uint64_t *shape)
{
	const char *what = direction == IPU_EXE_STREAM_H2D ? "h2d_stream" :
							     "d2h_stream";
	struct ir_stream *s;
	char *copy;
	int ret;

	if (!ir)
		return (ipu_stream){ -EINVAL };
	ret = ir_check_name(ir, what, name);
	if (!ret)
		ret = ir_check_layout(ir, what, name, dtype, ndim, shape, NULL);
	if (ret)
		return (ipu_stream){ ret };
	for (uint32_t i = 0; i < ir->nstreams; i++)
		if (!strcmp(ir->streams[i].name, name))
			return (ipu_stream){ ir_fail(ir, -EINVAL,
				"%s: a stream named '%s' exists", what, name) };
	if (ir_reserve((void **)&ir->streams, &ir->cap_streams,
		       (uint64_t)ir->nstreams + 1, sizeof(*ir->streams)) ||
	    !(copy = strdup(name)))
		return (ipu_stream){ ir_fail(ir, -ENOMEM,
			"%s: '%s': out of memory", what, name) };
	s = &ir->streams[ir->nstreams];
	memset(s, 0, sizeof(*s));
	s->name = copy;
	s->direction = direction;
	s->dtype = (uint32_t)dtype;
	s->ndim = (uint32_t)ndim;
	if (ndim)
		memcpy(s->shape, shape, ndim * sizeof(*shape));
	return (ipu_stream){ (int32_t)++ir->nstreams };
}

ipu_stream ipu_ir_h2d_stream(struct ipu_ir *ir, const char *name,
			     enum ipu_dtype dtype, size_t ndim,
			     const uint64_t *shape)
{
	return add_stream(ir, name, IPU_EXE_STREAM_H2D, dtype, ndim, shape);
}

ipu_stream ipu_ir_d2h_stream(struct ipu_ir *ir, const char *name,
			     enum ipu_dtype dtype, size_t ndim,
			     const uint64_t *shape)
{
	return add_stream(ir, name, IPU_EXE_STREAM_D2H, dtype, ndim, shape);
}

/* Index of stream @s for @what, of direction @dir; or -EINVAL. */
static int stream_index(struct ipu_ir *ir, const char *what, ipu_stream s,
			uint32_t dir)
{
	const struct ir_stream *st;

	if (s.id <= 0 || (uint32_t)s.id > ir->nstreams)
		return ir_fail(ir, -EINVAL, "%s: %s", what,
			       s.id < 0 ? "the stream is the result of a failed call" :
					  "no such stream in this ir");
	st = &ir->streams[s.id - 1];
	if (st->direction != dir)
		return ir_fail(ir, -EINVAL, "%s: stream '%s' is %s", what,
			       st->name,
			       st->direction == IPU_EXE_STREAM_H2D ?
				       "host-to-device" : "device-to-host");
	return s.id - 1;
}

ipu_tensor ipu_ir_host_load(struct ipu_ir *ir, ipu_stream s, const char *name)
{
	struct ir_tensor t = { .kind = IRT_VALUE };
	struct ir_op op = { .kind = IPU_OP_HOST_LOAD, .nt = 1, .nparams = 1 };
	const struct ir_stream *st;
	int si, ret;
	int32_t ti;

	if (!ir)
		return ir_bad(-EINVAL);
	ret = ir_check_open(ir, "host_load");
	if (ret)
		return ir_bad(ret);
	si = stream_index(ir, "host_load", s, IPU_EXE_STREAM_H2D);
	if (si < 0)
		return ir_bad(si);
	st = &ir->streams[si];
	if (!name)
		name = st->name;
	ret = ir_check_name(ir, "host_load", name);
	if (ret)
		return ir_bad(ret);
	t.dtype = st->dtype;
	t.ndim = st->ndim;
	memcpy(t.shape, st->shape, sizeof(t.shape));
	/* The stream's layout was checked when it was made. */
	__ipu_exe_nelems(t.ndim, t.shape, &t.nbytes);
	t.nbytes *= ipu_dtype_size((int)t.dtype);
	op.t = malloc(sizeof(*op.t));
	op.params = malloc(sizeof(*op.params));
	if (!op.t || !op.params) {
		ti = ir_fail(ir, -ENOMEM, "host_load: out of memory");
		goto out;
	}
	op.params[0] = si;
	ti = ir_add_tensor(ir, &t, name, &op);
out:
	if (ti < 0) {
		free(op.t);
		free(op.params);
		return ir_bad(ti);
	}
	return ir_bad(ti + 1);
}

int ipu_ir_host_store(struct ipu_ir *ir, ipu_stream s, ipu_tensor t)
{
	struct ir_op op = { .kind = IPU_OP_HOST_STORE, .nt = 1, .nparams = 1 };
	char st_shape[__IPU_EXE_SHAPE_STRLEN], t_shape[__IPU_EXE_SHAPE_STRLEN];
	const struct ir_stream *st;
	const struct ir_tensor *x;
	int si, ret;
	int32_t ti;

	if (!ir)
		return -EINVAL;
	ret = ir_check_open(ir, "host_store");
	if (ret)
		return ret;
	si = stream_index(ir, "host_store", s, IPU_EXE_STREAM_D2H);
	if (si < 0)
		return si;
	ti = ir_input(ir, "host_store", t, 1);
	if (ti < 0)
		return ti;
	st = &ir->streams[si];
	x = &ir->tensors[ti];
	if (x->dtype != st->dtype || x->ndim != st->ndim ||
	    memcmp(x->shape, st->shape, sizeof(x->shape)))
		return ir_fail(ir, -EINVAL,
			       "host_store: '%s' %s %s does not match stream '%s' %s %s",
			       x->name, ipu_dtype_name((int)x->dtype),
			       __ipu_exe_fmt_shape(t_shape, sizeof(t_shape),
						   x->ndim, x->shape),
			       st->name, ipu_dtype_name((int)st->dtype),
			       __ipu_exe_fmt_shape(st_shape, sizeof(st_shape),
						   st->ndim, st->shape));
	op.t = malloc(sizeof(*op.t));
	op.params = malloc(sizeof(*op.params));
	if (!op.t || !op.params) {
		ret = ir_fail(ir, -ENOMEM, "host_store: out of memory");
		goto out;
	}
	op.t[0] = ti;
	op.params[0] = si;
	ret = ir_add_op(ir, &op);
out:
	if (ret) {
		free(op.t);
		free(op.params);
	}
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Subgraph inputs and outputs                                              */
/* ---------------------------------------------------------------------- */

/* The current graph, if it may take inputs and outputs; or -EINVAL. */
static int open_subgraph(struct ipu_ir *ir, const char *what)
{
	int32_t g = ir_cur(ir);
	int ret;

	if (!g)
		return ir_fail(ir, -EINVAL,
			       "%s: the main graph has no inputs or outputs; push a subgraph first",
			       what);
	ret = ir_check_open(ir, what);
	return ret ? ret : g;
}

ipu_tensor ipu_ir_graph_input(struct ipu_ir *ir, const char *name,
			      enum ipu_dtype dtype, size_t ndim,
			      const uint64_t *shape)
{
	struct ir_tensor t = { .kind = IRT_INPUT, .dtype = (uint32_t)dtype,
			       .ndim = (uint32_t)ndim };
	struct ir_graph *g;
	int32_t gi, ti;
	int ret;

	if (!ir)
		return ir_bad(-EINVAL);
	gi = open_subgraph(ir, "graph_input");
	if (gi < 0)
		return ir_bad(gi);
	ret = ir_check_name(ir, "graph_input", name);
	if (!ret)
		ret = ir_check_layout(ir, "graph_input", name, dtype, ndim,
				      shape, &t.nbytes);
	if (ret)
		return ir_bad(ret);
	g = &ir->graphs[gi];
	if (ir_reserve((void **)&g->inputs, &g->cap_inputs,
		       (uint64_t)g->ninputs + 1, sizeof(*g->inputs)))
		return ir_bad(ir_fail(ir, -ENOMEM,
				      "graph_input: out of memory"));
	if (ndim)
		memcpy(t.shape, shape, ndim * sizeof(*shape));
	ti = ir_add_tensor(ir, &t, name, NULL);
	if (ti < 0)
		return ir_bad(ti);
	g->inputs[g->ninputs++] = ti;
	return ir_bad(ti + 1);
}

int ipu_ir_graph_output(struct ipu_ir *ir, ipu_tensor t)
{
	struct ir_graph *g;
	int32_t gi, ti;

	if (!ir)
		return -EINVAL;
	gi = open_subgraph(ir, "graph_output");
	if (gi < 0)
		return gi;
	ti = ir_input(ir, "graph_output", t, 1);
	if (ti < 0)
		return ti;
	g = &ir->graphs[gi];
	if (ir_reserve((void **)&g->outputs, &g->cap_outputs,
		       (uint64_t)g->noutputs + 1, sizeof(*g->outputs)))
		return ir_fail(ir, -ENOMEM, "graph_output: out of memory");
	g->outputs[g->noutputs++] = ti;
	return 0;
}

int ipu_ir_graph_input_by_ref(struct ipu_ir *ir, ipu_tensor t)
{
	int32_t gi, ti;

	if (!ir)
		return -EINVAL;
	gi = open_subgraph(ir, "graph_input_by_ref");
	if (gi < 0)
		return gi;
	ti = ir_input(ir, "graph_input_by_ref", t, 1);
	if (ti < 0)
		return ti;
	if (ir->tensors[ti].kind != IRT_INPUT)
		return ir_fail(ir, -EINVAL,
			       "graph_input_by_ref: '%s' is not an input of graph '%s'",
			       ir_tname(ir, ti), ir->graphs[gi].name);
	ir->tensors[ti].by_ref = true;
	return 0;
}
