// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * trace_summary.c - `ipu-trace summary`: where the time of a trace went.
 *
 * Phases are the spans' categories (libsession's: host, batch, h2d, d2h,
 * launch, op; docs/trace.md), host spans by name, summed: nested spans
 * count in each of their phases, so the phases do not add up to the
 * trace's length. A device track's busy time is the union of its
 * transfers, launches and ops; the rest of the trace's time it was idle.
 * Ops are ranked by name: how many ran, their total and mean time.
 *
 * Every pass is linear (or n log n) in the spans: a hostile or just large
 * trace (a million spans, each its own name and track) is summed in
 * seconds, names through a hash table, tracks in one sweep.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ipu-trace.h"

struct phase {
	char key[80];
	uint64_t count;
	/* Sums of spans a hostile file may make long: a double never
	 * overflows (ns, as the spans), and bytes saturate. */
	double total;
	uint64_t bytes;
};

/*
 * struct phases - phases by key: an open-addressing hash table of
 * indices into @ph, so that a trace of as many names as spans is
 * summed in linear time. @ph has room for @cap, @slots for 2 * @cap
 * rounded up to a power of two (never full).
 */
struct phases {
	struct phase *ph;
	size_t n, cap;
	size_t *slots;	/* index + 1; 0: empty */
	size_t mask;
};

static int phases_init(struct phases *p, size_t cap)
{
	size_t size = 16;

	while (size < 2 * cap + 2)
		size *= 2;
	p->ph = calloc(cap + 1, sizeof(*p->ph));
	p->slots = calloc(size, sizeof(*p->slots));
	p->n = 0;
	p->cap = cap + 1;
	p->mask = size - 1;
	if (!p->ph || !p->slots) {
		free(p->ph);
		free(p->slots);
		return -1;
	}
	return 0;
}

static void phases_free(struct phases *p)
{
	free(p->ph);
	free(p->slots);
}

static uint64_t hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

static bool is_device(const char *cat)
{
	return !strcmp(cat, "h2d") || !strcmp(cat, "d2h") ||
	       !strcmp(cat, "launch") || !strcmp(cat, "op");
}

static bool is_xfer(const char *cat)
{
	return !strcmp(cat, "h2d") || !strcmp(cat, "d2h");
}

/* The entry for @key (as the entries keep it, cut to 79 bytes), made. */
static struct phase *phase_of(struct phases *p, const char *key)
{
	char k[sizeof(p->ph[0].key)];
	size_t at, i;

	snprintf(k, sizeof(k), "%s", key);
	for (at = hash(k) & p->mask; p->slots[at]; at = (at + 1) & p->mask) {
		i = p->slots[at] - 1;
		if (!strcmp(p->ph[i].key, k))
			return &p->ph[i];
	}
	/* Callers add at most one entry per span: never past @cap. */
	i = p->n++;
	memset(&p->ph[i], 0, sizeof(p->ph[i]));
	memcpy(p->ph[i].key, k, sizeof(k));
	p->slots[at] = i + 1;
	return &p->ph[i];
}

static double ms(double ns)
{
	return ns / 1e6;
}

static void phases(const struct trace *t, struct phases *all, FILE *f)
{
	const struct trace_span *sp;
	struct phase *p, *ph = all->ph;
	char key[80];
	size_t i;

	for (i = 0; i < t->n_spans; i++) {
		sp = &t->spans[i];
		if (!strcmp(sp->cat, "host") || !strcmp(sp->cat, "batch"))
			snprintf(key, sizeof(key), "%s %s", sp->cat, sp->name);
		else
			snprintf(key, sizeof(key), "%s", sp->cat[0] ? sp->cat : "(none)");
		p = phase_of(all, key);
		p->count++;
		p->total += (double)sp->dur;
	}
	fprintf(f, "\ntime per phase (nested spans count in each of theirs)\n");
	fprintf(f, "  %-32s %8s %12s %12s\n", "phase", "count", "total ms",
		"mean us");
	for (i = 0; i < all->n; i++)
		fprintf(f, "  %-32s %8" PRIu64 " %12.3f %12.3f\n", ph[i].key,
			ph[i].count, ms(ph[i].total),
			ph[i].total / 1e3 / (double)ph[i].count);
}

static void rates(const struct trace *t, struct phases *all, FILE *f)
{
	const struct trace_span *sp;
	struct phase *p, *ph = all->ph;
	char key[80];
	size_t n, i;

	for (i = 0; i < t->n_spans; i++) {
		sp = &t->spans[i];
		if (!is_xfer(sp->cat))
			continue;
		snprintf(key, sizeof(key), "%s %s", sp->cat, sp->name);
		p = phase_of(all, key);
		p->count++;
		p->total += (double)sp->dur;
		p->bytes = add_sat(p->bytes, sp->bytes);
	}
	n = all->n;
	fprintf(f, "\ntransfers (rate: bytes over the time their spans took)\n");
	if (!n) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-32s %8s %14s %12s %10s\n", "direction stream", "count",
		"bytes", "total ms", "MB/s");
	for (i = 0; i < n; i++) {
		fprintf(f, "  %-32s %8" PRIu64 " %14" PRIu64 " %12.3f ",
			ph[i].key, ph[i].count, ph[i].bytes, ms(ph[i].total));
		if (ph[i].total > 0)
			fprintf(f, "%10.1f\n",
				(double)ph[i].bytes * 1e3 / ph[i].total);
		else
			fprintf(f, "%10s\n", "-");
	}
}

static void idle(const struct trace *t, FILE *f)
{
	int64_t len = t->t1 - t->t0, busy = 0, end = INT64_MIN;
	const struct trace_span *sp;
	bool any = false, dev = false;
	size_t i, k = 0;

	fprintf(f, "\ndevice busy and idle, of the trace's %.3f ms\n", ms(len));
	/*
	 * Spans are sorted by track, then start, and the tracks in the same
	 * order: one sweep over all of them, a track's line when it ends.
	 */
	for (i = 0; i <= t->n_spans; i++) {
		sp = i < t->n_spans ? &t->spans[i] : NULL;
		if (i && (!sp || sp->pid != sp[-1].pid || sp->tid != sp[-1].tid)) {
			if (dev) {
				any = true;
				fprintf(f, "  %-40s busy %6.2f%%  idle %6.2f%%\n",
					t->tracks[k].name,
					len ? 100.0 * (double)busy / (double)len : 0.0,
					len ? 100.0 - 100.0 * (double)busy / (double)len :
					      100.0);
			}
			k++;
			busy = 0;
			end = INT64_MIN;
			dev = false;
		}
		if (!sp || !is_device(sp->cat))
			continue;
		dev = true;
		if (sp->ts + sp->dur <= end)
			continue;
		busy += sp->ts + sp->dur - (sp->ts > end ? sp->ts : end);
		end = sp->ts + sp->dur;
	}
	if (!any)
		fprintf(f, "  no device spans (transfers, launches, ops)\n");
}

static int cmp_dur(const void *a, const void *b)
{
	const struct trace_span *x = *(const struct trace_span *const *)a,
				*y = *(const struct trace_span *const *)b;

	return x->dur < y->dur ? 1 : x->dur > y->dur ? -1 : 0;
}

static int cmp_total(const void *a, const void *b)
{
	const struct phase *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* Ops by name: count, total and mean, the most time first. */
static void slowest_ops(const struct trace *t, struct phases *all, FILE *f)
{
	struct phase *p;
	size_t i;

	for (i = 0; i < t->n_spans; i++) {
		if (strcmp(t->spans[i].cat, "op"))
			continue;
		p = phase_of(all, t->spans[i].name);
		p->count++;
		p->total += (double)t->spans[i].dur;
	}
	qsort(all->ph, all->n, sizeof(*all->ph), cmp_total);
	fprintf(f, "\nslowest ops (by their total time)\n");
	fprintf(f, "  %-28s %8s %12s %12s\n", "    op", "count", "total ms",
		"mean us");
	for (i = 0; i < all->n && i < TRACE_SLOWEST; i++)
		fprintf(f, "  %2zu. %-24s %8" PRIu64 " %12.3f %12.3f\n", i + 1,
			all->ph[i].key, all->ph[i].count, ms(all->ph[i].total),
			all->ph[i].total / 1e3 / (double)all->ph[i].count);
}

/* Without op spans: the longest launches and transfers, one by one. */
static void slowest(const struct trace *t, FILE *f)
{
	const struct trace_span **v;
	size_t i, n = 0;

	v = calloc(t->n_spans ? t->n_spans : 1, sizeof(*v));
	if (!v) {
		fprintf(f, "\nslowest: out of memory\n");
		return;
	}
	for (i = 0; i < t->n_spans; i++)
		if (is_device(t->spans[i].cat))
			v[n++] = &t->spans[i];
	qsort(v, n, sizeof(*v), cmp_dur);
	fprintf(f, "\nslowest launches and transfers (the trace has no op spans)\n");
	if (!n)
		fprintf(f, "  none\n");
	for (i = 0; i < n && i < TRACE_SLOWEST; i++)
		fprintf(f, "  %2zu. %-24s %-8s %12.3f us at %.3f ms on %s\n",
			i + 1, v[i]->name, v[i]->cat, (double)v[i]->dur / 1e3,
			ms(v[i]->ts - t->t0),
			t->tracks[trace_track_of(t, v[i])].name);
	free(v);
}

void trace_summary(const struct trace *t, FILE *f)
{
	struct phases all;
	bool ops = false;
	size_t i;

	fprintf(f, "%zu spans on %zu tracks over %.3f ms\n", t->n_spans,
		t->n_tracks, ms(t->t1 - t->t0));
	if (phases_init(&all, t->n_spans)) {
		fprintf(f, "out of memory\n");
		return;
	}
	phases(t, &all, f);
	/* Each table anew: at most one entry per span each time. */
	all.n = 0;
	memset(all.slots, 0, (all.mask + 1) * sizeof(*all.slots));
	rates(t, &all, f);
	idle(t, f);
	for (i = 0; i < t->n_spans && !ops; i++)
		ops = !strcmp(t->spans[i].cat, "op");
	if (ops) {
		all.n = 0;
		memset(all.slots, 0, (all.mask + 1) * sizeof(*all.slots));
		slowest_ops(t, &all, f);
	} else {
		slowest(t, f);
	}
	phases_free(&all);
}
