// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * trace_summary.c - `ipu-trace summary`: where the time of a trace went.
 *
 * Phases are the spans' categories (libsession's: host, batch, h2d, d2h,
 * launch, op; docs/trace.md), host spans by name, summed: nested spans
 * count in each of their phases, so the phases do not add up to the
 * trace's length. A device track's busy time is the union of its
 * transfers, launches and ops; the rest of the trace's time it was idle.
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

/* The entry for @key in @ph (@n of them, room for one more), made. */
static struct phase *phase_of(struct phase *ph, size_t *n, const char *key)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(ph[i].key, key))
			return &ph[i];
	memset(&ph[*n], 0, sizeof(*ph));
	snprintf(ph[*n].key, sizeof(ph[*n].key), "%s", key);
	return &ph[(*n)++];
}

static double ms(double ns)
{
	return ns / 1e6;
}

static void phases(const struct trace *t, struct phase *ph, FILE *f)
{
	const struct trace_span *sp;
	struct phase *p;
	char key[80];
	size_t n = 0, i;

	for (i = 0; i < t->n_spans; i++) {
		sp = &t->spans[i];
		if (!strcmp(sp->cat, "host") || !strcmp(sp->cat, "batch"))
			snprintf(key, sizeof(key), "%s %s", sp->cat, sp->name);
		else
			snprintf(key, sizeof(key), "%s", sp->cat[0] ? sp->cat : "(none)");
		p = phase_of(ph, &n, key);
		p->count++;
		p->total += (double)sp->dur;
	}
	fprintf(f, "\ntime per phase (nested spans count in each of theirs)\n");
	fprintf(f, "  %-32s %8s %12s %12s\n", "phase", "count", "total ms",
		"mean us");
	for (i = 0; i < n; i++)
		fprintf(f, "  %-32s %8" PRIu64 " %12.3f %12.3f\n", ph[i].key,
			ph[i].count, ms(ph[i].total),
			ph[i].total / 1e3 / (double)ph[i].count);
}

static void rates(const struct trace *t, struct phase *ph, FILE *f)
{
	const struct trace_span *sp;
	struct phase *p;
	char key[80];
	size_t n = 0, i;

	for (i = 0; i < t->n_spans; i++) {
		sp = &t->spans[i];
		if (!is_xfer(sp->cat))
			continue;
		snprintf(key, sizeof(key), "%s %s", sp->cat, sp->name);
		p = phase_of(ph, &n, key);
		p->count++;
		p->total += (double)sp->dur;
		p->bytes = add_sat(p->bytes, sp->bytes);
	}
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
	int64_t len = t->t1 - t->t0, busy, end;
	const struct trace_span *sp;
	bool any = false, dev;
	size_t i, k;

	fprintf(f, "\ndevice busy and idle, of the trace's %.3f ms\n", ms(len));
	for (k = 0; k < t->n_tracks; k++) {
		busy = 0;
		end = INT64_MIN;
		dev = false;
		/* Spans of a track are sorted by start: a sweep. */
		for (i = 0; i < t->n_spans; i++) {
			sp = &t->spans[i];
			if (sp->pid != t->tracks[k].pid ||
			    sp->tid != t->tracks[k].tid || !is_device(sp->cat))
				continue;
			dev = true;
			if (sp->ts + sp->dur <= end)
				continue;
			busy += sp->ts + sp->dur - (sp->ts > end ? sp->ts : end);
			end = sp->ts + sp->dur;
		}
		if (!dev)
			continue;
		any = true;
		fprintf(f, "  %-40s busy %6.2f%%  idle %6.2f%%\n",
			t->tracks[k].name,
			len ? 100.0 * (double)busy / (double)len : 0.0,
			len ? 100.0 - 100.0 * (double)busy / (double)len : 100.0);
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

static void slowest(const struct trace *t, FILE *f)
{
	const struct trace_span **v;
	bool ops = false;
	size_t i, n = 0;

	for (i = 0; i < t->n_spans; i++)
		ops |= !strcmp(t->spans[i].cat, "op");
	v = calloc(t->n_spans ? t->n_spans : 1, sizeof(*v));
	if (!v) {
		fprintf(f, "\nslowest: out of memory\n");
		return;
	}
	for (i = 0; i < t->n_spans; i++)
		if (ops ? !strcmp(t->spans[i].cat, "op") :
			  is_device(t->spans[i].cat))
			v[n++] = &t->spans[i];
	qsort(v, n, sizeof(*v), cmp_dur);
	fprintf(f, "\nslowest %s\n", ops ? "ops" :
		"launches and transfers (the trace has no op spans)");
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
	struct phase *ph = calloc(t->n_spans + 1, sizeof(*ph));

	fprintf(f, "%zu spans on %zu tracks over %.3f ms\n", t->n_spans,
		t->n_tracks, ms(t->t1 - t->t0));
	if (!ph) {
		fprintf(f, "out of memory\n");
		return;
	}
	phases(t, ph, f);
	rates(t, ph, f);
	free(ph);
	idle(t, f);
	slowest(t, f);
}
