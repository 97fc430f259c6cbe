// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * profile.c - op profiles of launches that ask for them, written into the
 * profile buffer in device memory as a device would, and nothing else.
 * The executor's records (struct ipufw_op_record) have the layout of the
 * buffer's (struct ipu_profile_record), so the executor writes them in
 * place, after the header; at the end their CLOCK_MONOTONIC times become
 * times since the launch started, and the header goes last. The header's
 * magic is cleared first, so a run that never ends leaves no header a
 * reader would trust. Shared by ipu-simd and ipu-emu (profile.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <ipu/hw.h>
#include <linux/ipu.h>

#include "profile.h"

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

struct ipu_profile_header *devprof_buffer(uint8_t *base, uint64_t len,
					  uint64_t off, uint64_t size)
{
	if (size < sizeof(struct ipu_profile_header) || size > len ||
	    off > len - size || off % IPU_CQ_PROFILE_ALIGN)
		return NULL;
	return (struct ipu_profile_header *)(base + off);
}

bool devprof_begin(struct devprof *p, uint32_t nrep,
		   const struct devprof_slots *slots, devprof_buf_fn buf,
		   const void *arg, struct ipufw_executor *ex)
{
	struct ipu_profile_header *h;
	uint64_t size;
	uint32_t r;
	bool any = false;

	p->fp = NULL;
	p->h = NULL;
	p->nrep = nrep;
	/*
	 * Every header cleared first, so that a buffer used before never
	 * shows its last launch's magic for this one.
	 */
	for (r = 0; r < nrep; r++) {
		h = buf(arg, r, &size);
		if (h)
			memset(h, 0, sizeof(*h));
		any |= h != NULL;
	}
	if (!any)
		return false;
	p->fp = slots->fp;
	p->h = slots->h;
	for (r = 0; r < nrep; r++) {
		h = buf(arg, r, &size);
		p->h[r] = h;
		memset(&p->fp[r], 0, sizeof(p->fp[r]));
		if (!h)
			continue; /* cap 0: its ops are only counted */
		p->fp[r].recs = (struct ipufw_op_record *)(h + 1);
		p->fp[r].cap = (uint32_t)((size - sizeof(*h)) /
					  sizeof(struct ipu_profile_record));
	}
	ipufw_executor_set_profile(ex, p->fp);
	p->start_ns = mono_ns();
	return true;
}

void devprof_end(struct devprof *p, struct ipufw_executor *ex)
{
	struct ipu_profile_record *rec;
	struct ipu_profile_header *h;
	struct ipufw_op_record *op;
	uint32_t r, i;

	if (!p->fp)
		return;
	ipufw_executor_set_profile(ex, NULL);
	for (r = 0; r < p->nrep; r++) {
		h = p->h[r];
		if (!h)
			continue;
		op = p->fp[r].recs;
		rec = (struct ipu_profile_record *)op;
		for (i = 0; i < p->fp[r].n; i++) {
			int64_t s = op[i].start_ns - p->start_ns;
			int64_t e = op[i].end_ns - p->start_ns;

			rec[i].start_ns = s > 0 ? (uint64_t)s : 0;
			rec[i].end_ns = e > 0 ? (uint64_t)e : 0;
		}
		h->count = p->fp[r].n;
		h->record_size = sizeof(struct ipu_profile_record);
		h->dropped = p->fp[r].dropped;
		h->flags = p->fp[r].dropped ? IPU_PROFILE_OVERFLOW : 0;
		h->reserved = 0;
		/* The magic last: a reader that sees it sees the rest. */
		__atomic_store_n(&h->magic, IPU_PROFILE_MAGIC, __ATOMIC_RELEASE);
	}
	p->fp = NULL;
	p->h = NULL;
}
