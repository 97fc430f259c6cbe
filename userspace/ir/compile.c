// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * compile.c - ipu_ir_compile(): from graphs to one flat program.
 *
 * Calls are inlined: each call site gets its own copy of the callee's
 * tensors. Repeats become a LOOP around one inlined copy of the body, with
 * COPY instructions that set up the loop-carried inputs before the loop and
 * carry the outputs back at the end of each iteration. A call passes its
 * inputs by reference, except what must be copied: a variable (the callee
 * must see its value at the call, not after later updates) and an input
 * the callee updates in place, unless the graph takes it by reference
 * (TensorByRef), so the caller's tensor is left alone. Likewise an output
 * that is a variable, or that shares memory with a caller's tensor (one
 * passed in, or another output: a graph may return one tensor twice)
 * while one of the two is updated in place later, is copied out.
 *
 * The result goes through ipu_exe_save() and ipu_exe_load(): the caller
 * gets exactly what a file would give, validated, in one allocation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_internal.h"

struct comp {
	struct ipu_ir *ir;
	struct ipu_exe_tensor *t;
	uint32_t nt, cap_t;
	struct ipu_exe_instr *in;
	uint32_t ni, cap_in;
	uint32_t *opnd;
	uint32_t no, cap_opnd;
	int64_t *par;
	uint32_t np, cap_par;
	int32_t *global;	/* exe index of each variable and constant */
	uint32_t depth;		/* LOOPs open around what is emitted now */
};

static int oom(struct comp *c)
{
	return ir_fail(c->ir, -ENOMEM, "compile: out of memory");
}

/* A new intermediate shaped like ir tensor @like. */
static int32_t new_tensor(struct comp *c, int32_t like)
{
	const struct ir_tensor *src = &c->ir->tensors[like];
	struct ipu_exe_tensor *t;

	if (ir_reserve((void **)&c->t, &c->cap_t, (uint64_t)c->nt + 1,
		       sizeof(*c->t)))
		return oom(c);
	t = &c->t[c->nt];
	memset(t, 0, sizeof(*t));
	t->name = src->name;
	t->kind = IPU_EXE_TENSOR_INTERMEDIATE;
	t->dtype = src->dtype;
	t->ndim = src->ndim;
	memcpy(t->shape, src->shape, sizeof(t->shape));
	__ipu_exe_nelems(t->ndim, t->shape, &t->nelems);
	t->nbytes = src->nbytes;
	return (int32_t)c->nt++;
}

/* Append an instruction; its operands are the last @nops entries added to
 * c->opnd, its params the last @npar of c->par. */
static int emit(struct comp *c, uint32_t op, uint32_t nops, uint32_t npar,
		float a, float b)
{
	if (ir_reserve((void **)&c->in, &c->cap_in, (uint64_t)c->ni + 1,
		       sizeof(*c->in)))
		return oom(c);
	c->in[c->ni++] = (struct ipu_exe_instr){
		.op = op,
		.num_operands = nops,
		.first_operand = c->no - nops,
		.num_params = npar,
		.first_param = c->np - npar,
		.fparams = { a, b },
	};
	return 0;
}

static int push_operand(struct comp *c, int32_t t)
{
	if (ir_reserve((void **)&c->opnd, &c->cap_opnd, (uint64_t)c->no + 1,
		       sizeof(*c->opnd)))
		return oom(c);
	c->opnd[c->no++] = (uint32_t)t;
	return 0;
}

static int push_param(struct comp *c, int64_t p)
{
	if (ir_reserve((void **)&c->par, &c->cap_par, (uint64_t)c->np + 1,
		       sizeof(*c->par)))
		return oom(c);
	c->par[c->np++] = p;
	return 0;
}

static int emit_copy(struct comp *c, int32_t to, int32_t from)
{
	int ret = push_operand(c, to);

	if (!ret)
		ret = push_operand(c, from);
	return ret ? ret : emit(c, IPU_OP_COPY, 2, 0, 0, 0);
}

/* The exe tensor that ir tensor @t stands for in an instance with @map. */
static int32_t resolve(const struct comp *c, const int32_t *map, int32_t t)
{
	uint32_t kind = c->ir->tensors[t].kind;

	return kind == IRT_VARIABLE || kind == IRT_CONSTANT ? c->global[t] :
							      map[t];
}

static bool is_variable(const struct comp *c, int32_t et)
{
	return c->t[et].kind == IPU_EXE_TENSOR_VARIABLE;
}

/* A new tensor shaped like ir tensor @like holding @et's present value. */
static int32_t copy_of(struct comp *c, int32_t et, int32_t like)
{
	int32_t tmp;
	int ret;

	tmp = new_tensor(c, like);
	if (tmp < 0)
		return tmp;
	ret = emit_copy(c, tmp, et);
	return ret ? ret : tmp;
}

/* @et, or for a variable a copy of its present value shaped like @like. */
static int32_t snapshot(struct comp *c, int32_t et, int32_t like)
{
	return is_variable(c, et) ? copy_of(c, et, like) : et;
}

/* @to = @from in place: ASSIGN for a variable, which the executable alone
 * updates in place, else a COPY into the intermediate. */
static int emit_update(struct comp *c, int32_t to, int32_t from)
{
	int ret;

	if (to == from)
		return 0;
	if (!is_variable(c, to))
		return emit_copy(c, to, from);
	ret = push_operand(c, to);
	if (!ret)
		ret = push_operand(c, from);
	return ret ? ret : emit(c, IPU_OP_ASSIGN, 2, 0, 0, 0);
}

static int emit_graph(struct comp *c, int32_t gi, int32_t *map);

static int emit_plain(struct comp *c, const struct ir_op *op, int32_t *map)
{
	const struct __ipu_exe_op_info *info = __ipu_exe_op_info(op->kind);
	int ret = 0;

	if (op->kind == IPU_OP_ASSIGN)
		return emit_update(c, resolve(c, map, op->t[0]),
				   resolve(c, map, op->t[1]));
	for (uint32_t k = 0; k < op->nt && !ret; k++) {
		int32_t et;

		if (k == 0 && info->writes == 1) {
			et = new_tensor(c, op->t[0]);
			if (et < 0)
				return et;
			map[op->t[0]] = et;
		} else {
			et = resolve(c, map, op->t[k]);
		}
		ret = push_operand(c, et);
	}
	for (uint32_t k = 0; k < op->nparams && !ret; k++) {
		int64_t p = op->params[k];

		/* An all-reduce over all replicas is one group of them. */
		if (op->kind == IPU_OP_ALL_REDUCE && k == 1 && !p)
			p = c->ir->replication_factor;
		ret = push_param(c, p);
	}
	return ret ? ret : emit(c, op->kind, op->nt, op->nparams,
				op->fparams[0], op->fparams[1]);
}

/* A fresh tensor map for one instance of a graph. */
static int32_t *new_map(struct comp *c)
{
	int32_t *map = malloc((c->ir->ntensors ? c->ir->ntensors : 1) *
			      sizeof(*map));

	if (map)
		memset(map, 0xff, c->ir->ntensors * sizeof(*map));
	return map;
}

/* Call @op's output @j is updated in place later. */
static bool out_modified(const struct comp *c, const struct ir_op *op,
			 uint32_t j)
{
	return c->ir->tensors[op->t[op->nin + j]].modified;
}

/*
 * Output @j of call @op, exe tensor @et, must be copied out: it shares
 * memory with another tensor of the caller and one of the two is updated
 * in place later. That other tensor is an earlier output from the same
 * exe tensor (@src holds the callee's exe tensor of each earlier output:
 * a graph may return one tensor twice), or, if this instance of the
 * callee did not make @et (exe tensors from @first on are), a caller's
 * tensor passed in or a constant.
 */
static bool aliased(const struct comp *c, const struct ir_op *op,
		    const int32_t *map, uint32_t j, int32_t et, uint32_t first,
		    const int32_t *src)
{
	for (uint32_t k = 0; k < j; k++)
		if (src[k] == et &&
		    (out_modified(c, op, j) || out_modified(c, op, k)))
			return true;
	if ((uint32_t)et >= first)
		return false;
	if (out_modified(c, op, j))
		return true;
	for (uint32_t k = 0; k < op->nin; k++)
		if (resolve(c, map, op->t[k]) == et &&
		    c->ir->tensors[op->t[k]].modified)
			return true;
	return false;
}

static int emit_call(struct comp *c, const struct ir_op *op, int32_t *map)
{
	const struct ir_graph *g = &c->ir->graphs[op->callee];
	int32_t *inner = new_map(c);
	int32_t *src = malloc((g->noutputs ? g->noutputs : 1) * sizeof(*src));
	uint32_t first = c->nt;
	int ret = 0;

	if (!inner || !src) {
		free(inner);
		free(src);
		return oom(c);
	}
	for (uint32_t k = 0; k < op->nin && !ret; k++) {
		const struct ir_tensor *in = &c->ir->tensors[g->inputs[k]];
		int32_t et = resolve(c, map, op->t[k]);

		if (!in->by_ref)
			et = in->modified ? copy_of(c, et, g->inputs[k]) :
					    snapshot(c, et, g->inputs[k]);
		if (et < 0)
			ret = et;
		else
			inner[g->inputs[k]] = et;
	}
	if (!ret)
		ret = emit_graph(c, op->callee, inner);
	for (uint32_t j = 0; j < g->noutputs && !ret; j++) {
		int32_t et = src[j] = resolve(c, inner, g->outputs[j]);

		et = aliased(c, op, map, j, et, first, src) ?
			     copy_of(c, et, op->t[op->nin + j]) :
			     snapshot(c, et, op->t[op->nin + j]);

		if (et < 0)
			ret = et;
		else
			map[op->t[op->nin + j]] = et;
	}
	free(inner);
	free(src);
	return ret;
}

/*
 * After the body, carried output j goes to carried input C[j], for j in
 * order. An output that is itself an input C[k] with k < j would be
 * overwritten before it is read, so it goes through a temporary first (a
 * swap of two costs one).
 */
static int carry_back(struct comp *c, const struct ir_graph *g,
		      const int32_t *inner, const int32_t *C)
{
	uint32_t n = g->noutputs;
	int32_t *src = malloc((n ? n : 1) * sizeof(*src));
	int ret = 0;

	if (!src)
		return oom(c);
	for (uint32_t j = 0; j < n; j++)
		src[j] = resolve(c, inner, g->outputs[j]);
	for (uint32_t j = 0; j < n && !ret; j++) {
		for (uint32_t k = 0; k < j; k++) {
			if (src[j] != C[k])
				continue;
			src[j] = new_tensor(c, g->outputs[j]);
			ret = src[j] < 0 ? src[j] :
					   emit_copy(c, src[j], C[k]);
			break;
		}
	}
	for (uint32_t j = 0; j < n && !ret; j++)
		if (src[j] != C[j])
			ret = emit_copy(c, C[j], src[j]);
	free(src);
	return ret;
}

static int emit_repeat(struct comp *c, const struct ir_op *op, int32_t *map)
{
	const struct ir_graph *g = &c->ir->graphs[op->callee];
	int32_t *inner = new_map(c), *C = NULL, *S = NULL, *L = NULL;
	uint32_t loop_at;
	int ret = 0;

	if (c->depth == IPU_EXE_MAX_LOOP_DEPTH) {
		free(inner);
		return ir_fail(c->ir, -EINVAL,
			       "compile: repeat of graph '%s': repeats nest deeper than %d",
			       g->name, IPU_EXE_MAX_LOOP_DEPTH);
	}
	C = malloc((g->noutputs ? g->noutputs : 1) * sizeof(*C));
	/* Per input: what it is passed from (S) and, for one the body updates
	 * and takes by value, the copy each iteration starts from (L). */
	S = malloc((op->nin ? op->nin : 1) * sizeof(*S));
	L = malloc((op->nin ? op->nin : 1) * sizeof(*L));
	if (!inner || !C || !S || !L) {
		ret = oom(c);
		goto out;
	}
	for (uint32_t k = 0; k < op->nin && !ret; k++) {
		const struct ir_tensor *in = &c->ir->tensors[g->inputs[k]];
		int32_t src = resolve(c, map, op->t[k]), et = src;

		S[k] = src;
		L[k] = -1;
		if (k < g->noutputs) {
			et = C[k] = new_tensor(c, g->inputs[k]);
			ret = et < 0 ? et : emit_copy(c, et, src);
		} else if (!in->by_ref) {
			et = S[k] = snapshot(c, src, g->inputs[k]);
			if (et >= 0 && in->modified)
				et = L[k] = new_tensor(c, g->inputs[k]);
			ret = et < 0 ? et : 0;
		}
		inner[g->inputs[k]] = et;
	}
	if (ret)
		goto out;
	loop_at = c->ni;
	ret = push_param(c, (int64_t)op->count);
	if (!ret)
		ret = push_param(c, 0);
	if (!ret)
		ret = emit(c, IPU_OP_LOOP, 0, 2, 0, 0);
	c->depth++;
	/* Each iteration is a call: it sees the input as passed. */
	for (uint32_t k = 0; k < op->nin && !ret; k++)
		if (L[k] >= 0)
			ret = emit_copy(c, L[k], S[k]);
	if (!ret)
		ret = emit_graph(c, op->callee, inner);
	if (!ret)
		ret = carry_back(c, g, inner, C);
	c->depth--;
	if (ret)
		goto out;
	if (c->ni == loop_at + 1) {
		/* Nothing to repeat. */
		c->ni--;
		c->np -= 2;
	} else {
		c->par[c->in[loop_at].first_param + 1] = c->ni - loop_at - 1;
	}
	/* A carried input taken by reference ends as the repeat's output. */
	for (uint32_t k = 0; k < g->noutputs && !ret; k++)
		if (c->ir->tensors[g->inputs[k]].by_ref &&
		    c->ir->tensors[g->inputs[k]].modified)
			ret = emit_update(c, S[k], C[k]);
	for (uint32_t j = 0; j < g->noutputs; j++)
		map[op->t[op->nin + j]] = C[j];
out:
	free(inner);
	free(C);
	free(S);
	free(L);
	return ret;
}

static int emit_graph(struct comp *c, int32_t gi, int32_t *map)
{
	const struct ir_graph *g = &c->ir->graphs[gi];
	int ret = 0;

	for (uint32_t i = 0; i < g->nops && !ret; i++) {
		const struct ir_op *op = &c->ir->ops[g->ops[i]];

		if (op->kind == IR_OP_CALL)
			ret = emit_call(c, op, map);
		else if (op->kind == IR_OP_REPEAT)
			ret = emit_repeat(c, op, map);
		else
			ret = emit_plain(c, op, map);
	}
	return ret;
}

/* ---------------------------------------------------------------------- */

/* Settings that may have changed since the ops were made. */
static int check_settings(struct ipu_ir *ir)
{
	uint32_t rf = ir->replication_factor;
	char msg[256];

	/* Instances split the replicas evenly (docs/instances.md). */
	if (ir->instance_replication_factor &&
	    rf % ir->instance_replication_factor)
		return ir_fail(ir, -EINVAL,
			       "compile: instance_replication_factor %u does not divide replication_factor %u",
			       ir->instance_replication_factor, rf);
	for (uint32_t i = 0; i < ir->ntensors; i++) {
		const struct ir_tensor *t = &ir->tensors[i];

		if (t->kind != IRT_VARIABLE || !t->group_size)
			continue;
		if (t->group_assignment) {
			if (t->group_assignment_n != rf)
				return ir_fail(ir, -EINVAL,
					       "compile: variable '%s' has a group assignment for %u replicas, but the replication factor is %u: set the replication factor before making grouped variables",
					       t->name, t->group_assignment_n,
					       rf);
			continue;
		}
		if (__ipu_exe_check_grouping(rf, t->group_size,
					     t->group_stride, msg, sizeof(msg)))
			return ir_fail(ir, -EINVAL, "compile: variable '%s': %s",
				       t->name, msg);
		if (rf / t->group_size != t->num_groups)
			return ir_fail(ir, -EINVAL,
				       "compile: variable '%s' holds %u values (one per group), but replication factor %u makes %u groups: set the replication factor before making grouped variables",
				       t->name, t->num_groups, rf,
				       rf / t->group_size);
	}
	for (uint32_t i = 0; i < ir->nops; i++) {
		const struct ir_op *op = &ir->ops[i];

		if (op->kind != IPU_OP_ALL_REDUCE || !op->params[1])
			continue;
		if (__ipu_exe_check_grouping(rf, (uint64_t)op->params[1],
					     (uint64_t)op->params[2], msg,
					     sizeof(msg)))
			return ir_fail(ir, -EINVAL,
				       "compile: all_reduce of '%s': %s",
				       ir->tensors[op->t[1]].name, msg);
	}
	return 0;
}

/* Variables and constants head the tensor table, with their data. */
static int add_globals(struct comp *c, struct ipu_exe *e, uint8_t **datap)
{
	struct ipu_ir *ir = c->ir;
	uint64_t size = 0;
	uint8_t *data;

	for (uint32_t i = 0; i < ir->ntensors; i++) {
		const struct ir_tensor *t = &ir->tensors[i];

		if ((t->kind == IRT_VARIABLE || t->kind == IRT_CONSTANT) &&
		    __builtin_add_overflow((size + 7) & ~7ull, t->data_size,
					   &size))
			return oom(c);
	}
	data = calloc(1, size ? (size_t)size : 1);
	if (!data)
		return oom(c);
	size = 0;
	for (uint32_t i = 0; i < ir->ntensors; i++) {
		const struct ir_tensor *t = &ir->tensors[i];
		struct ipu_exe_tensor *et;
		int32_t ei;

		c->global[i] = -1;
		if (t->kind != IRT_VARIABLE && t->kind != IRT_CONSTANT)
			continue;
		ei = new_tensor(c, (int32_t)i);
		if (ei < 0) {
			free(data);
			return ei;
		}
		c->global[i] = ei;
		et = &c->t[ei];
		if (t->kind == IRT_CONSTANT) {
			et->kind = IPU_EXE_TENSOR_CONSTANT;
		} else {
			et->kind = IPU_EXE_TENSOR_VARIABLE;
			et->group_size = t->group_size ? t->group_size :
						       ir->replication_factor;
			et->group_stride = t->group_size ? t->group_stride : 1;
			et->retrieval = t->retrieval;
			if (t->group_assignment) {
				et->flags |= IPU_EXE_TENSOR_GROUP_ASSIGNED;
				et->group_stride = 0;
				et->group_assignment = t->group_assignment;
			}
			if (t->mmap_path) {
				et->flags |= IPU_EXE_TENSOR_MMAP |
					    (t->mmap_readonly ?
						     IPU_EXE_TENSOR_MMAP_RDONLY : 0);
				et->mmap_path = t->mmap_path;
				continue;
			}
		}
		size = (size + 7) & ~7ull;
		et->data_offset = size;
		et->data_size = t->data_size;
		if (t->data)
			memcpy(data + size, t->data, (size_t)t->data_size);
		size += t->data_size;
	}
	e->data = data;
	e->data_size = size;
	*datap = data;
	return 0;
}

/* A run uses each stream exactly num_host_transfers times. */
static int check_stream_uses(struct ipu_ir *ir, const struct ipu_exe *e)
{
	uint64_t mult[IPU_EXE_MAX_LOOP_DEPTH + 1], *uses;
	uint64_t end[IPU_EXE_MAX_LOOP_DEPTH + 1];
	uint32_t depth = 0;
	int ret = 0;

	uses = calloc(e->num_streams ? e->num_streams : 1, sizeof(*uses));
	if (!uses)
		return ir_fail(ir, -ENOMEM, "compile: out of memory");
	mult[0] = 1;
	end[0] = UINT64_MAX;
	for (uint32_t i = 0; i < e->num_instrs; i++) {
		const struct ipu_exe_instr *in = &e->instrs[i];
		const int64_t *p = e->params + in->first_param;

		while (depth && end[depth] <= i)
			depth--;
		if (in->op == IPU_OP_LOOP) {
			/* Saturating: only "more than allowed" matters. */
			if (__builtin_mul_overflow(mult[depth], (uint64_t)p[0],
						   &mult[depth + 1]))
				mult[depth + 1] = UINT64_MAX;
			end[++depth] = i + 1ull + (uint64_t)p[1];
		} else if (in->op == IPU_OP_HOST_LOAD ||
			   in->op == IPU_OP_HOST_STORE) {
			if (__builtin_add_overflow(uses[p[0]], mult[depth],
						   &uses[p[0]]))
				uses[p[0]] = UINT64_MAX;
		}
	}
	for (uint32_t s = 0; s < e->num_streams && !ret; s++)
		if (uses[s] != ir->num_host_transfers)
			ret = ir_fail(ir, -EINVAL,
				      "compile: stream '%s' is %s %llu times per run, but num_host_transfers is %u",
				      e->streams[s].name,
				      e->streams[s].direction == IPU_EXE_STREAM_H2D ?
					      "loaded" : "stored",
				      (unsigned long long)uses[s],
				      ir->num_host_transfers);
	free(uses);
	return ret;
}

static int add_streams(struct comp *c, struct ipu_exe *e)
{
	struct ipu_ir *ir = c->ir;
	struct ipu_exe_stream *s;

	s = calloc(ir->nstreams ? ir->nstreams : 1, sizeof(*s));
	if (!s)
		return oom(c);
	for (uint32_t i = 0; i < ir->nstreams; i++) {
		const struct ir_stream *is = &ir->streams[i];
		uint64_t n;

		s[i].name = is->name;
		s[i].direction = is->direction;
		s[i].dtype = is->dtype;
		s[i].ndim = is->ndim;
		memcpy(s[i].shape, is->shape, sizeof(s[i].shape));
		__ipu_exe_nelems(is->ndim, is->shape, &n);
		s[i].nbytes = n * ipu_dtype_size((int)is->dtype);
	}
	e->streams = s;
	e->num_streams = ir->nstreams;
	return 0;
}

int ipu_ir_compile(struct ipu_ir *ir, struct ipu_exe **exep)
{
	struct comp c = { .ir = ir };
	struct ipu_exe e = { 0 };
	uint8_t *data = NULL;
	int32_t *main_map = NULL;
	void *buf = NULL;
	size_t len;
	char msg[512];
	int ret;

	if (!ir || !exep)
		return -EINVAL;
	*exep = NULL;
	ret = check_settings(ir);
	if (ret)
		return ret;
	c.global = malloc((ir->ntensors ? ir->ntensors : 1) *
			  sizeof(*c.global));
	main_map = new_map(&c);
	if (!c.global || !main_map) {
		ret = oom(&c);
		goto out;
	}
	ret = add_globals(&c, &e, &data);
	if (!ret)
		ret = emit_graph(&c, 0, main_map);
	if (!ret)
		ret = add_streams(&c, &e);
	if (ret)
		goto out;
	e.name = ir->name;
	e.num_host_transfers = ir->num_host_transfers;
	e.replication_factor = ir->replication_factor;
	e.instance_replication_factor = ir->instance_replication_factor ?
						ir->instance_replication_factor :
						ir->replication_factor;
	e.ipus_per_replica = ipu_ir_ipus_per_replica(ir);
	e.tensors = c.t;
	e.num_tensors = c.nt;
	e.instrs = c.in;
	e.num_instrs = c.ni;
	e.operands = c.opnd;
	e.num_operands = c.no;
	e.params = c.par;
	e.num_params = c.np;
	ret = check_stream_uses(ir, &e);
	if (ret)
		goto out;
	if (ir_plan_memory(&e)) {
		ret = oom(&c);
		goto out;
	}
	ret = ipu_exe_save(&e, &buf, &len, msg, sizeof(msg));
	if (!ret)
		ret = ipu_exe_load(buf, len, exep, msg, sizeof(msg));
	if (ret == -ENOMEM)
		oom(&c);
	else if (ret)
		/* The builder checks what the validator checks, so this is a
		 * bug here, or a limit (like 2^31 IPUs) no op could see. */
		ir_fail(ir, ret, "compile: the program does not validate: %s",
			msg);
out:
	free(buf);
	free(data);
	free((void *)e.streams);
	free(c.t);
	free(c.in);
	free(c.opnd);
	free(c.par);
	free(c.global);
	free(main_map);
	return ret;
}
