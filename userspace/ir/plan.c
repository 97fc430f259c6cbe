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

int ir_plan_memory(struct ipu_exe *e)
{
	struct range *r = NULL, *loops = NULL;
	struct placed *active = NULL;
	struct born *order = NULL;
	uint32_t nloops = 0, norder = 0, nactive = 0;
	uint64_t at = 0, base, top;
	int ret = -ENOMEM;

	for (uint32_t i = 0; i < e->num_tensors; i++) {
		struct ipu_exe_tensor *t = &e->tensors[i];

		if (t->kind == IPU_EXE_TENSOR_INTERMEDIATE)
			continue;
		t->offset = align_up(at);
		at = t->offset + t->nbytes;
	}
	for (uint32_t i = 0; i < e->num_streams; i++) {
		struct ipu_exe_stream *s = &e->streams[i];

		s->slots_offset = align_up(at);
		at = s->slots_offset + s->nbytes * e->num_host_transfers;
	}
	base = top = align_up(at);

	r = malloc((e->num_tensors ? e->num_tensors : 1) * sizeof(*r));
	loops = malloc((e->num_instrs ? e->num_instrs : 1) * sizeof(*loops));
	order = malloc((e->num_tensors ? e->num_tensors : 1) * sizeof(*order));
	active = malloc((e->num_tensors ? e->num_tensors : 1) * sizeof(*active));
	if (!r || !loops || !order || !active)
		goto out;
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
	return ret;
}
