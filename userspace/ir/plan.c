// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * plan.c - the memory plan: where each tensor lives in a replica's arena.
 *
 * Variables, constants and stream slots own their memory for the whole
 * launch and come first. Intermediates then get memory by a linear scan
 * over instruction indices: a tensor is live from the first instruction
 * that names it to the last, widened by loops (a tensor that is live on
 * entry to a loop body must survive every iteration, so it lives to the
 * end of the body; one made inside a body and read after it lives from the
 * body's start). A tensor whose range has ended gives its memory back, and
 * the next ones take the first gap that fits (first fit), so a long chain
 * of ops runs in the memory of a few of its tensors.
 *
 * Copy elision. With one host transfer per run, each stream has a single
 * slot at a fixed place, and a tensor can live in it rather than be copied
 * to or from it (exe.h lists these forms; the validator allows no others):
 *
 *  - load in place: the output of a stream's only HOST_LOAD, which nothing
 *    else writes, sits on the stream's slot, so the load is a self-copy
 *    (which the executor skips);
 *  - forwarding: a d2h stream whose only HOST_STORE stores such a tensor
 *    takes the h2d stream's slot as its own, so the store is a self-copy
 *    too, and y = x moves its bytes host to device and back, nothing more;
 *  - store in place: any other intermediate written by one instruction,
 *    before the store, and stored by one HOST_STORE alone, the only one of
 *    its stream, sits on that stream's slot.
 *
 * The stores in question must run exactly once per launch (no enclosing
 * loop of a count other than 1): a store that does not run leaves its slot
 * as the host left it, which a tensor sitting there would not. With more
 * host transfers, slots move with the iteration: no elision.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ir_internal.h"

#define NOT_USED	UINT32_MAX

struct range {
	uint32_t first, last;	/* instruction indices, inclusive */
};

struct placed {
	uint64_t offset, end;
	uint32_t last;
};

static uint64_t align_up(uint64_t x)
{
	return (x + IPU_IR_ALIGN - 1) & ~(uint64_t)(IPU_IR_ALIGN - 1);
}

/* Widen @r to the loop bodies @loops it crosses, until nothing changes. */
static void widen(struct range *r, const struct range *loops, uint32_t nloops)
{
	bool changed = true;

	while (changed) {
		changed = false;
		for (uint32_t l = 0; l < nloops; l++) {
			const struct range *b = &loops[l];

			if (r->first < b->first && r->last >= b->first &&
			    r->last < b->last) {
				r->last = b->last;
				changed = true;
			}
			if (r->first > b->first && r->first <= b->last &&
			    r->last > b->last) {
				r->first = b->first;
				changed = true;
			}
		}
	}
}

/* An intermediate in birth order. */
struct born {
	uint32_t first, tensor;
};

static int cmp_born(const void *a, const void *b)
{
	const struct born *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return (x->tensor > y->tensor) - (x->tensor < y->tensor);
}

/* First fit above @base among @active (sorted by offset). */
static uint64_t first_fit(const struct placed *active, uint32_t n,
			  uint64_t base, uint64_t size)
{
	uint64_t at = base;

	for (uint32_t i = 0; i < n; i++) {
		if (at + size <= active[i].offset)
			break;
		if (align_up(active[i].end) > at)
			at = align_up(active[i].end);
	}
	return at;
}

/* What elision needs to know of each stream (d == 1). */
struct stream_use {
	uint32_t instrs;	/* HOST_LOAD/HOST_STORE instructions naming it */
	uint32_t at;		/* the last of them */
	bool once;		/* ... runs exactly once per launch */
};

/*
 * Fill @home (per tensor: the stream whose slot it sits on, or NOT_USED)
 * and @fwd (per d2h stream: the h2d stream whose slot it shares, or
 * NOT_USED) as the header comment says: all NOT_USED unless one host
 * transfer. Return: 0 or -ENOMEM.
 */
static int plan_elision(const struct ipu_exe *e, uint32_t *home, uint32_t *fwd)
{
	uint32_t nt = e->num_tensors ? e->num_tensors : 1;
	uint32_t ns = e->num_streams ? e->num_streams : 1;
	uint32_t *writer = malloc(nt * sizeof(*writer));
	uint32_t *stores = calloc(nt, sizeof(*stores));
	struct stream_use *use = calloc(ns, sizeof(*use));
	uint64_t end[IPU_EXE_MAX_LOOP_DEPTH + 1] = { UINT64_MAX };
	bool once[IPU_EXE_MAX_LOOP_DEPTH + 1] = { true };
	uint32_t depth = 0;
	int ret = -ENOMEM;

	memset(home, 0xff, e->num_tensors * sizeof(*home));
	memset(fwd, 0xff, e->num_streams * sizeof(*fwd));
	if (e->num_host_transfers != 1) {
		ret = 0;
		goto out;
	}
	if (!writer || !stores || !use)
		goto out;
	memset(writer, 0xff, e->num_tensors * sizeof(*writer));
	for (uint32_t i = 0; i < e->num_instrs; i++) {
		const struct ipu_exe_instr *in = &e->instrs[i];
		const uint32_t *opnd = e->operands + in->first_operand;
		const int64_t *p = e->params + in->first_param;

		while (depth && end[depth] <= i)
			depth--;
		if (in->op == IPU_OP_LOOP) {
			end[depth + 1] = i + 1ull + (uint64_t)p[1];
			once[depth + 1] = once[depth] && p[0] == 1;
			depth++;
			continue;
		}
		/* A second writer (a carried value's COPY) rules a tensor
		 * out: NOT_USED - 1 stands for "many". */
		if (__ipu_exe_op_info(in->op)->writes)
			writer[opnd[0]] = writer[opnd[0]] == NOT_USED ?
						  i : NOT_USED - 1;
		if (in->op == IPU_OP_HOST_STORE)
			stores[opnd[0]]++;
		if (in->op == IPU_OP_HOST_LOAD || in->op == IPU_OP_HOST_STORE)
			use[p[0]] = (struct stream_use){ use[p[0]].instrs + 1, i,
							 once[depth] };
	}
	/* Loads first: forwarding looks for the tensors they place. */
	for (uint32_t s = 0; s < e->num_streams; s++) {
		uint32_t t;

		if (e->streams[s].direction != IPU_EXE_STREAM_H2D ||
		    use[s].instrs != 1)
			continue;
		t = e->operands[e->instrs[use[s].at].first_operand];
		if (writer[t] == use[s].at)
			home[t] = s;
	}
	for (uint32_t s = 0; s < e->num_streams; s++) {
		uint32_t t;

		if (e->streams[s].direction != IPU_EXE_STREAM_D2H ||
		    use[s].instrs != 1 || !use[s].once)
			continue;
		t = e->operands[e->instrs[use[s].at].first_operand];
		if (e->tensors[t].kind != IPU_EXE_TENSOR_INTERMEDIATE)
			continue;
		if (home[t] != NOT_USED &&
		    e->streams[home[t]].direction == IPU_EXE_STREAM_H2D)
			fwd[s] = home[t];
		else if (home[t] == NOT_USED && writer[t] < use[s].at &&
			 stores[t] == 1)
			home[t] = s;
	}
	ret = 0;
out:
	free(writer);
	free(stores);
	free(use);
	return ret;
}

int ir_plan_memory(struct ipu_exe *e)
{
	struct range *r = NULL, *loops = NULL;
	struct placed *active = NULL;
	struct born *order = NULL;
	uint32_t *home = NULL, *fwd = NULL;
	uint32_t nloops = 0, norder = 0, nactive = 0;
	uint64_t at = 0, base, top;
	int ret = -ENOMEM;

	r = malloc((e->num_tensors ? e->num_tensors : 1) * sizeof(*r));
	loops = malloc((e->num_instrs ? e->num_instrs : 1) * sizeof(*loops));
	order = malloc((e->num_tensors ? e->num_tensors : 1) * sizeof(*order));
	active = malloc((e->num_tensors ? e->num_tensors : 1) * sizeof(*active));
	home = malloc((e->num_tensors ? e->num_tensors : 1) * sizeof(*home));
	fwd = malloc((e->num_streams ? e->num_streams : 1) * sizeof(*fwd));
	if (!r || !loops || !order || !active || !home || !fwd ||
	    plan_elision(e, home, fwd))
		goto out;

	for (uint32_t i = 0; i < e->num_tensors; i++) {
		struct ipu_exe_tensor *t = &e->tensors[i];

		if (t->kind == IPU_EXE_TENSOR_INTERMEDIATE)
			continue;
		t->offset = align_up(at);
		at = t->offset + t->nbytes;
	}
	for (uint32_t i = 0; i < e->num_streams; i++) {
		struct ipu_exe_stream *s = &e->streams[i];

		if (fwd[i] != NOT_USED)
			continue;
		s->slots_offset = align_up(at);
		at = s->slots_offset + s->nbytes * e->num_host_transfers;
	}
	for (uint32_t i = 0; i < e->num_streams; i++)
		if (fwd[i] != NOT_USED)
			e->streams[i].slots_offset =
				e->streams[fwd[i]].slots_offset;
	base = top = align_up(at);

	for (uint32_t i = 0; i < e->num_tensors; i++)
		r[i] = (struct range){ NOT_USED, 0 };
	for (uint32_t i = 0; i < e->num_instrs; i++) {
		const struct ipu_exe_instr *in = &e->instrs[i];

		for (uint32_t k = 0; k < in->num_operands; k++) {
			struct range *x = &r[e->operands[in->first_operand + k]];

			if (x->first == NOT_USED)
				x->first = i;
			x->last = i;
		}
		if (in->op == IPU_OP_LOOP && e->params[in->first_param + 1] > 0)
			loops[nloops++] = (struct range){
				i + 1,
				i + (uint32_t)e->params[in->first_param + 1]
			};
	}
	for (uint32_t i = 0; i < e->num_tensors; i++) {
		if (e->tensors[i].kind != IPU_EXE_TENSOR_INTERMEDIATE)
			continue;
		if (home[i] != NOT_USED) {
			/* On its slot, which lives for the whole launch. */
			e->tensors[i].offset = e->streams[home[i]].slots_offset;
			continue;
		}
		if (r[i].first == NOT_USED) {
			/* Never touched: any place will do. */
			e->tensors[i].offset = base;
			if (base + e->tensors[i].nbytes > top)
				top = base + e->tensors[i].nbytes;
			continue;
		}
		widen(&r[i], loops, nloops);
		order[norder++] = (struct born){ r[i].first, i };
	}
	qsort(order, norder, sizeof(*order), cmp_born);
	for (uint32_t k = 0; k < norder; k++) {
		struct ipu_exe_tensor *t = &e->tensors[order[k].tensor];
		const struct range *x = &r[order[k].tensor];
		uint32_t j = 0, pos;
		uint64_t off;

		/* Free what died before this one is born. */
		for (uint32_t i = 0; i < nactive; i++)
			if (active[i].last >= x->first)
				active[j++] = active[i];
		nactive = j;
		off = first_fit(active, nactive, base, t->nbytes);
		t->offset = off;
		for (pos = 0; pos < nactive && active[pos].offset < off; pos++)
			;
		memmove(&active[pos + 1], &active[pos],
			(nactive - pos) * sizeof(*active));
		active[pos] = (struct placed){ off, off + t->nbytes, x->last };
		nactive++;
		if (off + t->nbytes > top)
			top = off + t->nbytes;
	}
	e->arena_size = top;
	ret = 0;
out:
	free(r);
	free(loops);
	free(order);
	free(active);
	free(home);
	free(fwd);
	return ret;
}
