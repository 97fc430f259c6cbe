/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * ir_internal.h - the ir's insides, shared by the builder (ir*.c) and the
 * compiler (compile.c, plan.c). Private to userspace/ir/.
 */
#ifndef IPU_IR_INTERNAL_H
#define IPU_IR_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ipu/exe.h"
#include "ipu/exe_ops.h"
#include "ipu/ir.h"

/* What a tensor of the ir is. */
enum ir_tensor_kind {
	IRT_VALUE,	/* an op's output */
	IRT_INPUT,	/* a subgraph's input */
	IRT_VARIABLE,
	IRT_CONSTANT,
};

/* Graph index of variables and constants, which belong to the ir. */
#define IR_GLOBAL	(-1)

struct ir_tensor {
	char *name;
	uint32_t kind;		/* enum ir_tensor_kind */
	uint32_t dtype;
	uint32_t ndim;
	uint64_t shape[IPU_EXE_MAX_DIMS];
	uint64_t nbytes;
	int32_t graph;		/* owner, or IR_GLOBAL */
	int32_t producer;	/* index of the op that made it, or -1 */
	/* Variables and constants. */
	void *data;		/* NULL: zeros (or a mapped file) */
	uint64_t data_size;
	uint32_t group_size;	/* 0: ungrouped, follows the replication factor */
	uint32_t group_stride;
	uint32_t num_groups;	/* values in @data */
	/* Non-constant-stride grouping: the group of each of
	 * @group_assignment_n replicas (owned by the ir), else NULL. */
	const uint32_t *group_assignment;
	uint32_t group_assignment_n;
	uint32_t retrieval;
	char *mmap_path;
	bool mmap_readonly;
	/* A subgraph input the caller passes by reference (TensorByRef). */
	bool by_ref;
	/* Updated in place by an op of its graph (or, for an input passed
	 * by reference, of a graph it is passed to): calls and repeats copy
	 * what their callee modifies unless it is passed by reference. */
	bool modified;
};

/* Op kinds beyond the executable's opcodes. */
#define IR_OP_CALL	(IPU_OP_COUNT_ + 1)
#define IR_OP_REPEAT	(IPU_OP_COUNT_ + 2)

/*
 * One op. Executable ops keep their operands in the executable's order
 * (t[0] the output or the updated variable); calls and repeats keep the
 * caller's inputs, then the call's outputs.
 */
struct ir_op {
	uint32_t kind;
	uint32_t vgid;
	int32_t *t;
	uint32_t nt;
	uint32_t nin;		/* calls and repeats: inputs among @t */
	int64_t *params;
	uint32_t nparams;
	float fparams[2];
	int32_t callee;		/* calls and repeats: graph index */
	uint64_t count;		/* repeats */
};

struct ir_graph {
	char *name;
	int32_t *ops;
	uint32_t nops, cap_ops;
	int32_t *inputs;
	uint32_t ninputs, cap_inputs;
	int32_t *outputs;
	uint32_t noutputs, cap_outputs;
	bool frozen;		/* called or repeated: no more changes */
};

struct ir_stream {
	char *name;
	uint32_t direction;	/* enum ipu_exe_stream_dir */
	uint32_t dtype;
	uint32_t ndim;
	uint64_t shape[IPU_EXE_MAX_DIMS];
};

struct ipu_ir {
	char *name;
	struct ir_tensor *tensors;
	uint32_t ntensors, cap_tensors;
	struct ir_op *ops;
	uint32_t nops, cap_ops;
	struct ir_graph *graphs;	/* [0] is the main graph */
	uint32_t ngraphs, cap_graphs;
	struct ir_stream *streams;
	uint32_t nstreams, cap_streams;
	int32_t graph_scope[IPU_IR_MAX_SCOPES];	/* [0] is main */
	uint32_t ngraph_scopes;
	uint32_t ipu_scope[IPU_IR_MAX_SCOPES];
	uint32_t nipu_scopes;
	uint32_t num_host_transfers;
	uint32_t replication_factor;
	uint32_t instance_replication_factor;	/* 0: follows the above */
	/* Group assignments of replica groupings, owned by the ir. */
	uint32_t **assigns;
	uint32_t nassigns, cap_assigns;
	char errmsg[1024];
};

/* ---- ir.c ---- */

/* Record a message and return @err (negative). */
int ir_fail(struct ipu_ir *ir, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A handle carrying @err. */
static inline ipu_tensor ir_bad(int err)
{
	return (ipu_tensor){ err };
}

/* Make room for @need entries of @esize bytes in *@arr of capacity *@cap. */
int ir_reserve(void **arr, uint32_t *cap, uint64_t need, size_t esize);

/* The current graph's index. */
static inline int32_t ir_cur(const struct ipu_ir *ir)
{
	return ir->graph_scope[ir->ngraph_scopes - 1];
}

/*
 * The tensor behind handle @t, used as input @pos (1-based, for messages)
 * of @what: it exists and belongs to the current graph or to the ir.
 * Return: its index, or -errno with a message.
 */
int ir_input(struct ipu_ir *ir, const char *what, ipu_tensor t, unsigned pos);

/* Index of graph @g, or -EINVAL with a message naming @what. */
int ir_graph_index(struct ipu_ir *ir, const char *what, ipu_graph g);

/* A name for messages: the tensor's. */
static inline const char *ir_tname(const struct ipu_ir *ir, int32_t t)
{
	return ir->tensors[t].name;
}

/* Check a dtype/shape pair for a new tensor or stream. */
int ir_check_layout(struct ipu_ir *ir, const char *what, const char *name,
		    enum ipu_dtype dtype, size_t ndim, const uint64_t *shape,
		    uint64_t *nbytes);

/* Check a name for something new: 1..IPU_EXE_MAX_NAME bytes. */
int ir_check_name(struct ipu_ir *ir, const char *what, const char *name);

/* The current graph can take ops (not frozen); @what for the message. */
int ir_check_open(struct ipu_ir *ir, const char *what);

/*
 * Add a tensor (a copy of @tmpl with @name) and, if @op is not NULL, the
 * op that produced it, to the current graph; @op->t[0] is set to the new
 * tensor when @op->kind writes one. Nothing changes on failure.
 * Return: the new tensor's index, or -ENOMEM (with a message).
 */
int32_t ir_add_tensor(struct ipu_ir *ir, const struct ir_tensor *tmpl,
		      const char *name, struct ir_op *op);

/* Room for one more op in the ir and in the current graph. 0 or -ENOMEM. */
int ir_reserve_op(struct ipu_ir *ir);
/* Append @op (whose arrays the ir now owns) to the current graph, in the
 * current ipu scope; room must have been reserved. */
void ir_commit_op(struct ipu_ir *ir, const struct ir_op *op);

/* Add an op that makes no tensor. Return: 0 or -ENOMEM. */
int ir_add_op(struct ipu_ir *ir, const struct ir_op *op);

/* Describe tensor @t for __ipu_exe_op_check(). */
void ir_tdesc(const struct ipu_ir *ir, int32_t t, struct __ipu_exe_tdesc *d);

/* ---- compile.c / plan.c ---- */

/*
 * Place every tensor of @e (tensors, streams, instructions filled; offsets
 * not) in the arena: owned memory (variables, constants, stream slots)
 * first, then intermediates by a linear scan over their live ranges; with
 * one host transfer, host loads and stores are elided by putting tensors
 * on their slots (plan.c says when).
 * Sets each offset, the slots' offsets and e->arena_size.
 * Return: 0 or -ENOMEM.
 */
int ir_plan_memory(struct ipu_exe *e);

#endif /* IPU_IR_INTERNAL_H */
