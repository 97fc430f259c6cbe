// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * profile.c - op profiles of launches that ask for them (IPU_LAUNCH_PROFILE).
 *
 * The kernel names each such launch's profile buffer in device memory
 * (ipu_fw_work.profile_offset/size). As a device would, the firmware writes
 * the records into that memory and nothing else: the executor's records
 * (struct ipufw_op_record) have the layout of the buffer's (struct
 * ipu_profile_record), so the executor writes them in place, after the
 * header; at the end their CLOCK_MONOTONIC times become times since the
 * launch started, and the header goes last. The header's magic is cleared
 * first, so a run that never ends leaves no header a reader would trust.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ipu/firmware.h>

#include "simd.h"

_Static_assert(sizeof(struct ipufw_op_record) ==
		       sizeof(struct ipu_profile_record) &&
	       offsetof(struct ipufw_op_record, start_ns) ==
		       offsetof(struct ipu_profile_record, start_ns) &&
	       offsetof(struct ipufw_op_record, end_ns) ==
		       offsetof(struct ipu_profile_record, end_ns),
	       "the executor's records are written as the profile buffer's");

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Launch @l's profile buffer, or NULL (not profiled, or out of the map). */
static struct ipu_profile_header *buffer_of(const struct simd_launch *l)
{
	const struct ipu_fw_work *w = &l->work;
	uint64_t len = l->map->len;

	if (w->profile_size < sizeof(struct ipu_profile_header) ||
	    w->profile_size > len || w->profile_offset > len - w->profile_size ||
	    w->profile_offset % 8)
		return NULL;
	return (struct ipu_profile_header *)(l->map->base + w->profile_offset);
}

bool simd_profile_begin(const struct simd_launch *l, uint32_t nrep,
			struct ipufw_executor *ex, struct simd_profile *sp)
{
	struct ipu_profile_header *h;
	uint32_t r;
	bool any = false;

	sp->fp = NULL;
	/*
	 * Every header cleared first, so that a buffer used before never
	 * shows its last launch's magic for this one, even when this one
	 * then runs unprofiled (no memory below).
	 */
	for (r = 0; r < nrep; r++) {
		h = buffer_of(&l[r]);
		if (h)
			memset(h, 0, sizeof(*h));
		any |= h != NULL;
	}
	if (!any)
		return false;
	sp->fp = calloc(nrep, sizeof(*sp->fp));
	if (!sp->fp)
		return false; /* runs unprofiled: no header, no records */
	for (r = 0; r < nrep; r++) {
		h = buffer_of(&l[r]);
		if (!h)
			continue; /* cap 0: its ops are only counted */
		sp->fp[r].recs = (struct ipufw_op_record *)(h + 1);
		sp->fp[r].cap = (uint32_t)((l[r].work.profile_size - sizeof(*h)) /
					   sizeof(struct ipu_profile_record));
	}
	ipufw_executor_set_profile(ex, sp->fp);
	sp->start_ns = mono_ns();
	return true;
}

void simd_profile_end(const struct simd_launch *l, uint32_t nrep,
		      struct ipufw_executor *ex, struct simd_profile *sp)
{
	struct ipu_profile_record *rec;
	struct ipu_profile_header *h;
	struct ipufw_op_record *op;
	uint32_t r, i;

	if (!sp->fp)
		return;
	ipufw_executor_set_profile(ex, NULL);
	for (r = 0; r < nrep; r++) {
		h = buffer_of(&l[r]);
		if (!h)
			continue;
		op = sp->fp[r].recs;
		rec = (struct ipu_profile_record *)op;
		for (i = 0; i < sp->fp[r].n; i++) {
			int64_t s = op[i].start_ns - sp->start_ns;
			int64_t e = op[i].end_ns - sp->start_ns;

			rec[i].start_ns = s > 0 ? (uint64_t)s : 0;
			rec[i].end_ns = e > 0 ? (uint64_t)e : 0;
		}
		h->count = sp->fp[r].n;
		h->record_size = sizeof(struct ipu_profile_record);
		h->dropped = sp->fp[r].dropped;
		h->flags = sp->fp[r].dropped ? IPU_PROFILE_OVERFLOW : 0;
		h->reserved = 0;
		/* The magic last: a reader that sees it sees the rest. */
		__atomic_store_n(&h->magic, IPU_PROFILE_MAGIC, __ATOMIC_RELEASE);
	}
	free(sp->fp);
	sp->fp = NULL;
}
