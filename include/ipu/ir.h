/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * ir.h - libipuir: build IPU programs the way PopXL's Ir does, and compile
 * them into executables (include/ipu/exe.h).
 *
 * An ir holds a main graph and any number of subgraphs. Ops go into the
 * current graph (ipu_ir_push_graph(), like PopXL's `with graph:`) and run in
 * the order they are created. Shapes and dtypes are inferred as each op is
 * added; a mistake returns a negative errno and leaves a message in
 * ipu_ir_errmsg() naming the op, the tensors and their shapes:
 *
 *	matmul: 'x' [4, 3] and 'w' [4, 5]: inner dimensions 3 and 4 differ
 *
 * Nothing aborts, and after an error the ir is as it was before the call.
 *
 * Handles. Tensors, graphs and streams are small values (ipu_tensor,
 * ipu_graph, ipu_stream) holding an id > 0. A call that makes one returns,
 * on failure, a handle whose id is the negative errno; passing such a
 * handle to another call is itself an error that says so, so calls can be
 * chained and checked once at the end:
 *
 *	ipu_tensor y = ipu_ir_relu(ir, ipu_ir_matmul(ir, x, w));
 *	if (ipu_tensor_error(y))
 *		fprintf(stderr, "%s\n", ipu_ir_errmsg(ir));
 *
 * Where this departs from PopXL, for a C API:
 *  - Variables and constants belong to the ir, not to a graph: any graph's
 *    ops may use them directly. (PopXL passes them into subgraphs as inputs
 *    and marks them modified; passing them by reference works here too.)
 *  - In-place updates (ipu_ir_assign(), ipu_ir_scaled_add_inplace()) take
 *    any tensor of the current graph but a constant: every op created
 *    after the update reads the new value, every op before it the old one
 *    (ops run in the order they are created, so each scope is what PopXL
 *    calls in_sequence). Views that alias memory (PopXL's slice_,
 *    reshape_) are not in the C API: an update changes one tensor.
 *  - A graph is frozen once called or repeated: it can no longer gain
 *    inputs, outputs or ops (which also rules out recursion).
 *  - A program may be split across instances (processes, docs/instances.md):
 *    instance_replication_factor must divide replication_factor when
 *    compiled.
 *
 * Threads: an ir is not thread-safe; different irs are independent.
 */
#ifndef IPU_IR_H
#define IPU_IR_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dtype.h"
#include "exe.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ipu_ir;

/** ipu_tensor - a tensor of an ir: id > 0, or the -errno of the call that
 * failed to make it; a zeroed handle is no tensor. */
typedef struct ipu_tensor {
	int32_t id;
} ipu_tensor;

/** ipu_graph - a graph of an ir, as ipu_tensor. */
typedef struct ipu_graph {
	int32_t id;
} ipu_graph;

/** ipu_stream - a host stream of an ir, as ipu_tensor. */
typedef struct ipu_stream {
	int32_t id;
} ipu_stream;

/* 0 for a handle to something, else its -errno (-EINVAL if zeroed). */
static inline int ipu_tensor_error(ipu_tensor t)
{
	return t.id > 0 ? 0 : t.id < 0 ? t.id : -EINVAL;
}

static inline int ipu_graph_error(ipu_graph g)
{
	return g.id > 0 ? 0 : g.id < 0 ? g.id : -EINVAL;
}

static inline int ipu_stream_error(ipu_stream s)
{
	return s.id > 0 ? 0 : s.id < 0 ? s.id : -EINVAL;
}

/* Byte alignment of every tensor and stream slot the compiler places. */
#define IPU_IR_ALIGN		64
/* Scopes (graphs, IPUs) pushed at once. */
#define IPU_IR_MAX_SCOPES	64
/* Virtual graph ids are below this. */
#define IPU_IR_MAX_VGID		4096

#ifndef IPU_OPTS
/* As in ipu.h: zero the struct whole, set .sz, apply the initialisers. */
#define IPU_OPTS(TYPE, NAME, ...)                                         \
	struct TYPE NAME = ({                                             \
		memset(&NAME, 0, sizeof(struct TYPE));                    \
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };  \
	})
#endif

/* ---------------------------------------------------------------------- */
/* The ir                                                                   */
/* ---------------------------------------------------------------------- */

/**
 * ipu_ir_create() - a new, empty ir: a main graph, replication factor 1,
 * one host transfer.
 * @name: program name for messages and the executable; NULL is "".
 * @irp: out: the ir; free with ipu_ir_destroy().
 *
 * Return: 0; -EINVAL for NULL @irp or a name over IPU_EXE_MAX_NAME bytes;
 * -ENOMEM.
 */
int ipu_ir_create(const char *name, struct ipu_ir **irp);

/** ipu_ir_destroy() - free @ir and everything in it; NULL is a no-op.
 * Executables compiled from it stay valid. */
void ipu_ir_destroy(struct ipu_ir *ir);

/**
 * ipu_ir_errmsg() - the message of the most recent failed call on @ir
 * ("" if none has failed). Owned by @ir, valid until its next failure.
 */
const char *ipu_ir_errmsg(const struct ipu_ir *ir);

/**
 * ipu_ir_set_num_host_transfers() - iterations per run: each stream has
 * this many slots, and a run host_loads (or host_stores) each stream
 * exactly this many times (PopXL's num_host_transfers): ipu_ir_compile()
 * refuses a stream used more or fewer times, or never. Default 1.
 *
 * Return: 0; -EINVAL for 0.
 */
int ipu_ir_set_num_host_transfers(struct ipu_ir *ir, uint32_t n);

/**
 * ipu_ir_set_replication_factor() - replicas the program runs on (PopXL's
 * replication_factor). Replica groupings are checked against it when they
 * are made and again when compiled. Default 1.
 *
 * Return: 0; -EINVAL for 0.
 */
int ipu_ir_set_replication_factor(struct ipu_ir *ir, uint32_t n);

/**
 * ipu_ir_set_instance_replication_factor() - replicas of this instance
 * (PopXL's instance_replication_factor); by default it follows the
 * replication factor. Compiling fails unless it divides the replication
 * factor; the program then runs as replication_factor / n instances, each
 * attaching and streaming n replicas (docs/instances.md).
 *
 * Return: 0; -EINVAL for 0.
 */
int ipu_ir_set_instance_replication_factor(struct ipu_ir *ir, uint32_t n);

/** Getters of the settings above (0 for a NULL @ir). */
uint32_t ipu_ir_num_host_transfers(const struct ipu_ir *ir);
uint32_t ipu_ir_replication_factor(const struct ipu_ir *ir);
uint32_t ipu_ir_instance_replication_factor(const struct ipu_ir *ir);

/** ipu_ir_ipus_per_replica() - highest virtual graph id of any op + 1
 * (1 for an ir without ops). */
uint32_t ipu_ir_ipus_per_replica(const struct ipu_ir *ir);

/* ---------------------------------------------------------------------- */
/* Graphs and scopes                                                        */
/* ---------------------------------------------------------------------- */

/** ipu_ir_main_graph() - the main graph: what a run executes. */
ipu_graph ipu_ir_main_graph(const struct ipu_ir *ir);

/**
 * ipu_ir_create_graph() - a new, empty subgraph. Give it inputs, ops and
 * outputs while it is current (ipu_ir_push_graph()), then call or repeat it.
 * @name: unique among graphs, 1 to IPU_EXE_MAX_NAME bytes.
 *
 * Return: the graph; -EINVAL (bad or duplicate name), -ENOMEM.
 */
ipu_graph ipu_ir_create_graph(struct ipu_ir *ir, const char *name);

/**
 * ipu_ir_push_graph() / ipu_ir_pop_graph() - make @g the current graph
 * until the matching pop (PopXL's `with g:`). Scopes nest up to
 * IPU_IR_MAX_SCOPES deep.
 *
 * Return: 0; -EINVAL for a bad graph or popping the main graph; -E2BIG
 * when too deep.
 */
int ipu_ir_push_graph(struct ipu_ir *ir, ipu_graph g);
int ipu_ir_pop_graph(struct ipu_ir *ir);

/** ipu_ir_current_graph() - the graph new ops go into. */
ipu_graph ipu_ir_current_graph(const struct ipu_ir *ir);

/**
 * ipu_ir_push_ipu() / ipu_ir_pop_ipu() - ops created until the matching
 * pop run on virtual graph (IPU) @vgid of each replica (PopXL's
 * `with popxl.ipu(vgid):`). Without a scope, ops are on IPU 0.
 *
 * Return: 0; -EINVAL for @vgid >= IPU_IR_MAX_VGID or popping no scope;
 * -E2BIG when too deep.
 */
int ipu_ir_push_ipu(struct ipu_ir *ir, uint32_t vgid);
int ipu_ir_pop_ipu(struct ipu_ir *ir);

/**
 * ipu_ir_set_ipu() - move the op that produced @t to virtual graph @vgid
 * (a per-op virtual graph id).
 *
 * Return: 0; -EINVAL for a bad tensor, one no op produced (a variable,
 * constant or graph input) or @vgid >= IPU_IR_MAX_VGID.
 */
int ipu_ir_set_ipu(struct ipu_ir *ir, ipu_tensor t, uint32_t vgid);

/**
 * ipu_ir_graph_input() - add an input to the current graph, which must be
 * a subgraph not yet called (PopXL's popxl.graph_input()).
 * @name: 1 to IPU_EXE_MAX_NAME bytes.
 * @dtype: a device dtype.
 * @ndim, @shape: up to IPU_EXE_MAX_DIMS dimensions, each >= 1.
 *
 * Return: the input tensor; -EINVAL, -ENOMEM.
 */
ipu_tensor ipu_ir_graph_input(struct ipu_ir *ir, const char *name,
			      enum ipu_dtype dtype, size_t ndim,
			      const uint64_t *shape);

/**
 * ipu_ir_graph_output() - make @t the next output of the current graph,
 * a subgraph not yet called (PopXL's popxl.graph_output()). @t belongs to
 * the graph, or is a variable or constant.
 *
 * Return: 0; -EINVAL, -ENOMEM.
 */
int ipu_ir_graph_output(struct ipu_ir *ir, ipu_tensor t);

/**
 * ipu_ir_graph_input_by_ref() - pass input @t of the current graph, a
 * subgraph not yet called, by reference (PopXL's TensorByRef): what the
 * subgraph's in-place updates do to it, they do to the tensor each call
 * or repeat passes (a loop-carried input ends as the repeat's matching
 * output). Other inputs are passed by value: a caller's tensor never
 * changes because its callee updated its copy, and in a repeat each
 * iteration starts from the value passed.
 *
 * Return: 0; -EINVAL for no input of the current subgraph, or a frozen
 * one.
 */
int ipu_ir_graph_input_by_ref(struct ipu_ir *ir, ipu_tensor t);

/**
 * ipu_ir_call() - call subgraph @g from the current graph (PopXL's
 * ops.call). The call's outputs are new tensors of the current graph.
 * @inputs, @ninputs: one tensor per input of @g, matching its dtype and
 *	shape.
 * @outputs, @noutputs: out: one per output of @g; or NULL and 0 to drop
 *	them. On failure each gets the error.
 *
 * @g is frozen from now on.
 *
 * Return: 0; -EINVAL (the message says which input or count is wrong);
 * -ENOMEM.
 */
int ipu_ir_call(struct ipu_ir *ir, ipu_graph g, const ipu_tensor *inputs,
		size_t ninputs, ipu_tensor *outputs, size_t noutputs);

/**
 * ipu_ir_repeat() - run subgraph @g @count times (PopXL's ops.repeat).
 * @g's N outputs are loop-carried: after each iteration output i becomes
 * input i of the next (so @g needs at least as many inputs as outputs,
 * each carried pair of the same dtype and shape); the other inputs stay as
 * given. The repeat's outputs are @g's outputs of the last iteration (the
 * carried inputs when @count is 0).
 * @inputs, @ninputs, @outputs, @noutputs: as ipu_ir_call().
 *
 * Return: 0; -EINVAL; -ENOMEM.
 */
int ipu_ir_repeat(struct ipu_ir *ir, ipu_graph g, uint64_t count,
		  const ipu_tensor *inputs, size_t ninputs,
		  ipu_tensor *outputs, size_t noutputs);

/* ---------------------------------------------------------------------- */
/* Variables, constants, streams                                            */
/* ---------------------------------------------------------------------- */

/**
 * struct ipu_replica_grouping - PopXL's ReplicaGrouping: the replicas are
 * split into groups of @group_size, members @stride apart within blocks of
 * @stride * @group_size replicas (see ipu_exe_replica_group()). Make one
 * with ipu_ir_replica_grouping(), which checks PopXL's rules.
 */
struct ipu_replica_grouping {
	uint32_t stride;
	uint32_t group_size;
	/* NULL, or (from ipu_ir_replica_grouping_from_assignments()) the
	 * group of each replica, owned by the ir; @stride is then 0. */
	const uint32_t *assignment;
};

/**
 * ipu_ir_replica_grouping() - a grouping of @ir's replicas.
 * @stride: >= 1.
 * @group_size: >= 1, or 0 for the replication factor / @stride (PopXL's
 *	default).
 * @out: out: the grouping.
 *
 * Return: 0; -EINVAL when the replication factor is not a multiple of
 * @stride * @group_size.
 */
int ipu_ir_replica_grouping(struct ipu_ir *ir, uint32_t stride,
			    uint32_t group_size,
			    struct ipu_replica_grouping *out);

/**
 * ipu_ir_replica_grouping_from_assignments() - PopXL's
 * ir.replica_grouping_from_assignments(): a non-constant-stride grouping
 * (ReplicaGrouping.is_const false) for variables (S20).
 * @assignment: @n entries, the group of each replica: @n must be the
 *	replication factor, the groups 0..G-1 with none missing, and every
 *	group the same size (PopXL's rules). Copied.
 * @out: out: the grouping (@group_size the size of each group, @stride 0,
 *	@assignment the ir's copy, valid until ipu_ir_destroy()).
 *
 * The host value of a variable so grouped has G values, value g for the
 * replicas assigned g (the user's numbering: PopXL's to-host / to-device
 * maps). all_reduce does not take such groupings.
 *
 * Return: 0; -EINVAL (the message says which rule); -ENOMEM.
 */
int ipu_ir_replica_grouping_from_assignments(struct ipu_ir *ir,
					     const uint32_t *assignment,
					     size_t n,
					     struct ipu_replica_grouping *out);

/**
 * struct ipu_ir_variable_opts - options of ipu_ir_variable(); declare with
 * IPU_OPTS(ipu_ir_variable_opts, opts, ...).
 * @sz: sizeof(struct ipu_ir_variable_opts).
 * @grouping: one value per group of replicas (S20); NULL: one value for
 *	all replicas. Checked against the replication factor, which must not
 *	change afterwards.
 * @retrieval: enum ipu_exe_retrieval: what weights_to_host returns.
 * @mmap_path: back the variable by this file (num_groups values, dtype
 *	@dtype, C order) instead of a copy of @data (S22); @data must then be
 *	NULL. The file is not opened here: a session opens it relative to
 *	the data directory its caller grants (ipu_session_opts.data_dir), so
 *	the path is relative and has no ".." (compiling refuses others).
 * @mmap_readonly: the mapping is read-only (S05).
 */
struct ipu_ir_variable_opts {
	size_t sz;
	const struct ipu_replica_grouping *grouping;
	uint32_t retrieval;
	const char *mmap_path;
	bool mmap_readonly;
};

/**
 * ipu_ir_variable() - a variable: device memory with a value the host
 * writes before a run and reads after (PopXL's popxl.variable).
 * @name: unique among variables and constants, 1 to IPU_EXE_MAX_NAME bytes.
 * @dtype: a device dtype.
 * @ndim, @shape: up to IPU_EXE_MAX_DIMS dimensions, each >= 1.
 * @data: the initial value, copied: num_groups values of the shape, in
 *	group order; NULL for zeros.
 * @opts: NULL for the defaults (ungrouped, one_per_group, a copy).
 *
 * Return: the variable; -EINVAL, -E2BIG (unknown non-zero option bytes),
 * -ENOMEM.
 */
ipu_tensor ipu_ir_variable(struct ipu_ir *ir, const char *name,
			   enum ipu_dtype dtype, size_t ndim,
			   const uint64_t *shape, const void *data,
			   const struct ipu_ir_variable_opts *opts);

/**
 * ipu_ir_constant() - a constant: a value fixed at compile time (PopXL's
 * popxl.constant).
 * @name: as ipu_ir_variable(), or NULL for "const.<id>".
 * @data: the value, copied; required.
 *
 * Return: the constant; -EINVAL, -ENOMEM.
 */
ipu_tensor ipu_ir_constant(struct ipu_ir *ir, const char *name,
			   enum ipu_dtype dtype, size_t ndim,
			   const uint64_t *shape, const void *data);

/**
 * ipu_ir_scalar() - a scalar constant of @dtype holding @value, converted
 * as ipu_dtype_convert() does (from float64). Handy for broadcasting:
 * ipu_ir_mul(ir, x, ipu_ir_scalar(ir, IPU_DTYPE_FLOAT32, 0.5)).
 *
 * Return: the constant; -EINVAL, -ENOMEM.
 */
ipu_tensor ipu_ir_scalar(struct ipu_ir *ir, enum ipu_dtype dtype,
			 double value);

/**
 * ipu_ir_h2d_stream() / ipu_ir_d2h_stream() - a host-to-device or
 * device-to-host stream (PopXL's popxl.h2d_stream / d2h_stream). One
 * transfer is one tensor of @shape per replica.
 * @name: unique among streams, 1 to IPU_EXE_MAX_NAME bytes.
 *
 * Return: the stream; -EINVAL (bad or duplicate name, dtype, shape),
 * -ENOMEM.
 */
ipu_stream ipu_ir_h2d_stream(struct ipu_ir *ir, const char *name,
			     enum ipu_dtype dtype, size_t ndim,
			     const uint64_t *shape);
ipu_stream ipu_ir_d2h_stream(struct ipu_ir *ir, const char *name,
			     enum ipu_dtype dtype, size_t ndim,
			     const uint64_t *shape);

/**
 * ipu_ir_host_load() - the next transfer of host-to-device stream @s, as a
 * new tensor of the current graph (PopXL's ops.host_load).
 * @name: the tensor's name; NULL for the stream's.
 *
 * Return: the tensor; -EINVAL (a device-to-host stream, ...), -ENOMEM.
 */
ipu_tensor ipu_ir_host_load(struct ipu_ir *ir, ipu_stream s,
			    const char *name);

/**
 * ipu_ir_host_store() - send @t as the next transfer of device-to-host
 * stream @s (PopXL's ops.host_store); dtype and shape must match.
 *
 * Return: 0; -EINVAL, -ENOMEM.
 */
int ipu_ir_host_store(struct ipu_ir *ir, ipu_stream s, ipu_tensor t);

/* ---------------------------------------------------------------------- */
/* Tensors                                                                  */
/* ---------------------------------------------------------------------- */

/** ipu_ir_tensor_name() - @t's name, owned by @ir; NULL for no tensor. */
const char *ipu_ir_tensor_name(const struct ipu_ir *ir, ipu_tensor t);

/**
 * ipu_ir_tensor_set_name() - rename @t (not a variable or constant, whose
 * names are host-visible keys).
 *
 * Return: 0; -EINVAL, -ENOMEM.
 */
int ipu_ir_tensor_set_name(struct ipu_ir *ir, ipu_tensor t, const char *name);

/** ipu_ir_tensor_dtype() - @t's dtype; IPU_DTYPE_INVALID for no tensor. */
enum ipu_dtype ipu_ir_tensor_dtype(const struct ipu_ir *ir, ipu_tensor t);

/**
 * ipu_ir_tensor_shape() - @t's shape.
 * @shape: out: IPU_EXE_MAX_DIMS entries, the unused ones 0; may be NULL.
 *
 * Return: the number of dimensions; -EINVAL for no tensor.
 */
int ipu_ir_tensor_shape(const struct ipu_ir *ir, ipu_tensor t,
			uint64_t *shape);

/* ---------------------------------------------------------------------- */
/* Ops. Each adds one op to the current graph and returns its output, or a */
/* failed handle. Inputs belong to the current graph or are variables or   */
/* constants. Elementwise binary ops broadcast NumPy-style; both inputs    */
/* have one dtype (no promotion). Bool takes part only in data movement    */
/* (reshape, transpose, slice, concat, assign, streams) and cast.          */
/* ---------------------------------------------------------------------- */

ipu_tensor ipu_ir_add(struct ipu_ir *ir, ipu_tensor a, ipu_tensor b);
ipu_tensor ipu_ir_sub(struct ipu_ir *ir, ipu_tensor a, ipu_tensor b);
ipu_tensor ipu_ir_mul(struct ipu_ir *ir, ipu_tensor a, ipu_tensor b);
ipu_tensor ipu_ir_div(struct ipu_ir *ir, ipu_tensor a, ipu_tensor b);

/* Numeric types. */
ipu_tensor ipu_ir_neg(struct ipu_ir *ir, ipu_tensor x);
ipu_tensor ipu_ir_abs(struct ipu_ir *ir, ipu_tensor x);
ipu_tensor ipu_ir_relu(struct ipu_ir *ir, ipu_tensor x);
/* Floating-point types only. */
ipu_tensor ipu_ir_gelu(struct ipu_ir *ir, ipu_tensor x);
ipu_tensor ipu_ir_tanh(struct ipu_ir *ir, ipu_tensor x);
ipu_tensor ipu_ir_sigmoid(struct ipu_ir *ir, ipu_tensor x);
ipu_tensor ipu_ir_exp(struct ipu_ir *ir, ipu_tensor x);
ipu_tensor ipu_ir_log(struct ipu_ir *ir, ipu_tensor x);
ipu_tensor ipu_ir_sqrt(struct ipu_ir *ir, ipu_tensor x);

/**
 * ipu_ir_matmul() - [..., m, k] x [..., k, n] -> [..., m, n]; both inputs
 * have at least 2 dimensions, and the batch dimensions broadcast.
 */
ipu_tensor ipu_ir_matmul(struct ipu_ir *ir, ipu_tensor a, ipu_tensor b);

/**
 * ipu_ir_transpose() - permute @x's axes: output axis i is input axis
 * @perm[i] (negative values count from the end); NULL @perm (with @nperm
 * 0) reverses them.
 */
ipu_tensor ipu_ir_transpose(struct ipu_ir *ir, ipu_tensor x, const int *perm,
			    size_t nperm);

/**
 * ipu_ir_reshape() - @x's elements in a new shape; one entry of @shape may
 * be -1, inferred from the others.
 */
ipu_tensor ipu_ir_reshape(struct ipu_ir *ir, ipu_tensor x,
			  const int64_t *shape, size_t ndim);

/**
 * ipu_ir_slice() - x[start:stop:step] along @naxes axes (PopXL's
 * ops.slice): Python rules, negative @start/@stop count from the end and
 * out-of-range ones clamp; @step >= 1. The result may not be empty.
 * @start, @stop, @step: @naxes entries each; NULL means 0, the dimension,
 *	and 1.
 * @axes: the axes sliced (negative count from the end); NULL is 0..@naxes-1.
 */
ipu_tensor ipu_ir_slice(struct ipu_ir *ir, ipu_tensor x, size_t naxes,
			const int64_t *start, const int64_t *stop,
			const int64_t *step, const int *axes);

/** ipu_ir_concat() - join @n >= 1 tensors of one dtype along @axis; their
 * other dimensions agree. */
ipu_tensor ipu_ir_concat(struct ipu_ir *ir, const ipu_tensor *xs, size_t n,
			 int axis);

/**
 * ipu_ir_reduce_sum() / _mean() / _max() - reduce @x over @naxes axes
 * (negative count from the end; NULL and 0 for all axes), keeping them as
 * size-1 dimensions when @keepdims. Mean takes floats only.
 */
ipu_tensor ipu_ir_reduce_sum(struct ipu_ir *ir, ipu_tensor x, const int *axes,
			     size_t naxes, bool keepdims);
ipu_tensor ipu_ir_reduce_mean(struct ipu_ir *ir, ipu_tensor x, const int *axes,
			      size_t naxes, bool keepdims);
ipu_tensor ipu_ir_reduce_max(struct ipu_ir *ir, ipu_tensor x, const int *axes,
			     size_t naxes, bool keepdims);

/** ipu_ir_softmax() / ipu_ir_log_softmax() - along @axis (negative from
 * the end); floats only. */
ipu_tensor ipu_ir_softmax(struct ipu_ir *ir, ipu_tensor x, int axis);
ipu_tensor ipu_ir_log_softmax(struct ipu_ir *ir, ipu_tensor x, int axis);

/** ipu_ir_cast() - @x converted to device dtype @dtype, as
 * ipu_dtype_convert() converts. */
ipu_tensor ipu_ir_cast(struct ipu_ir *ir, ipu_tensor x, enum ipu_dtype dtype);

/**
 * ipu_ir_scaled_add_inplace() - @var = @a * @var + @b * @x, in place on a
 * tensor of a floating-point type (a variable, an input or an op's output
 * in the current graph; not a constant); @x has its dtype and shape. An
 * SGD step is a = 1, b = -learning rate. Ops created afterwards read the
 * new value.
 *
 * Return: 0; -EINVAL, -ENOMEM.
 */
int ipu_ir_scaled_add_inplace(struct ipu_ir *ir, ipu_tensor var, ipu_tensor x,
			      float a, float b);

/**
 * ipu_ir_assign() - @var = @x, in place (PopXL's copy_var_update_, and the
 * way to make any op in place: ipu_ir_assign(ir, t, ipu_ir_relu(ir, t)) is
 * relu_). @var is a variable, an input or an op's output in the current
 * graph, not a constant; same dtype and shape. Ops created afterwards read
 * the new value.
 *
 * Return: 0; -EINVAL, -ENOMEM.
 */
int ipu_ir_assign(struct ipu_ir *ir, ipu_tensor var, ipu_tensor x);

/* Reductions of ipu_ir_all_reduce(). */
enum ipu_ir_collective {
	IPU_IR_ALL_REDUCE_SUM = IPU_EXE_REDUCE_SUM,
	IPU_IR_ALL_REDUCE_MEAN = IPU_EXE_REDUCE_MEAN,
};

/**
 * ipu_ir_all_reduce() - sum or mean of @x over the replicas of each
 * replica's group (PopXL's ops.collectives.replicated_all_reduce).
 * @op: enum ipu_ir_collective; mean takes floats only.
 * @group: a grouping from ipu_ir_replica_grouping(); NULL: all replicas.
 *	Groupings from ipu_ir_replica_grouping_from_assignments() are
 *	refused (-EINVAL).
 */
ipu_tensor ipu_ir_all_reduce(struct ipu_ir *ir, ipu_tensor x,
			     enum ipu_ir_collective op,
			     const struct ipu_replica_grouping *group);

/* ---------------------------------------------------------------------- */
/* Compiling                                                                */
/* ---------------------------------------------------------------------- */

/**
 * ipu_ir_compile() - compile @ir's main graph into an executable: calls
 * and repeats flattened into LOOP and COPY instructions, every tensor
 * placed in the per-replica arena (variables, constants and stream slots
 * first, then intermediates, with dead ones' memory reused), initial data
 * gathered. The result is a loaded image of the file ipu_exe_save() would
 * write, so it has passed ipu_exe_validate(). @ir is unchanged.
 * @exep: out: free with ipu_exe_free().
 *
 * What a session needs of the program (streams, variables, constants,
 * groupings, mmap files) is in the executable; see struct ipu_exe.
 *
 * Return: 0; -EINVAL (settings that do not fit: groupings and the
 * replication factor, a stream used other than num_host_transfers times
 * per run, counting loop trips,
 * repeats nested deeper than IPU_EXE_MAX_LOOP_DEPTH, ...); -ENOMEM.
 */
int ipu_ir_compile(struct ipu_ir *ir, struct ipu_exe **exep);

#ifdef __cplusplus
}
#endif

#endif /* IPU_IR_H */
