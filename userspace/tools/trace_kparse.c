// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * trace_kparse.c - ipu.ko's trace events from tracefs's `trace` text to
 * Chrome trace events (trace_kparse.h). A line looks like
 *
 *	 ipu-run-123     [001] .....   100.123456: ipu_xfer_start: ipu0 client=1 handle=2 ...
 *
 * (TASK-PID, [CPU], the irq-info flags when that option is on, the
 * timestamp in seconds, the event, its TP_printk text). Everything but
 * the task's name is the kernel's; the name is whatever the task called
 * itself (prctl(PR_SET_NAME)), so it is never trusted to delimit anything
 * and is escaped on the way out.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_str.h"
#include "trace_kparse.h"

enum { KT_XFER = 1, KT_LAUNCH = 2, KT_OTHER = 3 };

/* Buckets of the index of queues (a power of two, twice the most held). */
#define KT_BUCKETS (2 * KTRACE_MAX_PENDING)

/* A transfer or launch begun (submitted or started) and not yet ended. */
struct kpend {
	int kind;		/* KT_XFER or KT_LAUNCH; 0: a free entry */
	int32_t next;		/* the next younger of its queue (or the next
				 * free entry); -1: none */
	int64_t submit_ns;	/* -1: not seen */
	int64_t start_ns;	/* -1: not seen */
	struct kline first;	/* its first event, for one that never ends */
	char fields[256];	/* its fields: first.fields is set to them when
				 * used, as entries move (realloc) */
};

/*
 * The held transfers or launches of one device, kind and key, oldest
 * first: an end takes the oldest (first in, first out), a start the
 * oldest not yet started. Those started come first: a start that finds
 * none unstarted begins a new entry only when every one held is started,
 * and a submit's new entry is unstarted, so @unstarted and those after it
 * are the unstarted ones, and no line scans the queue.
 */
struct kqueue {
	int kind;		/* 0: a free queue */
	int minor;
	char key[96];		/* the fields that say which one it is */
	int32_t head, tail;	/* oldest, youngest entry */
	int32_t unstarted;	/* the oldest not started; -1: none */
	int32_t hnext;		/* the next in its bucket (or free); -1: none */
};

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Digits only in [@s, @e); at least one. */
static bool all_digits(const char *s, const char *e)
{
	if (s >= e)
		return false;
	for (; s < e; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int small_num(const char *s, const char *e, int max)
{
	long v = 0;

	if (!all_digits(s, e) || e - s > 9)
		return -1;
	for (; s < e; s++)
		v = v * 10 + (*s - '0');
	return v > max ? -1 : (int)v;
}

/*
 * The part before the timestamp at @ts (the line starts at @line): from
 * the right, the flags (optional), "[CPU]", "(TGID)" (optional), "-PID",
 * and the task's name, padded on the left. False if it is not that.
 */
static bool parse_head(const char *line, const char *ts, struct kline *k)
{
	const char *p = ts, *e, *s;
	size_t len;

	while (p > line && p[-1] == ' ')
		p--;
	if (p > line && p[-1] != ']') {		/* irq-info flags */
		while (p > line && p[-1] != ' ')
			p--;
		while (p > line && p[-1] == ' ')
			p--;
	}
	if (p == line || p[-1] != ']')
		return false;
	e = --p;
	while (p > line && p[-1] != '[')
		p--;
	if (p == line)
		return false;
	k->cpu = small_num(p, e, 1 << 20);
	if (k->cpu < 0)
		return false;
	p--;
	while (p > line && p[-1] == ' ')
		p--;
	if (p > line && p[-1] == ')') {		/* record-tgid: "(  123)" */
		while (p > line && p[-1] != '(')
			p--;
		if (p == line)
			return false;
		p--;
		while (p > line && p[-1] == ' ')
			p--;
	}
	e = p;
	while (p > line && isdigit((unsigned char)p[-1]))
		p--;
	k->pid = small_num(p, e, 1 << 30);
	if (k->pid < 0 || p == line || p[-1] != '-')
		return false;
	e = p - 1;
	for (s = line; s < e && *s == ' '; s++)
		;
	len = e - s;
	if (len >= sizeof(k->comm))
		return false;
	memcpy(k->comm, s, len);
	k->comm[len] = '\0';
	return true;
}

/* "SECONDS.FRACTION" in [@s, @e) as nanoseconds; -1 if it is not one. */
static int64_t parse_ts(const char *s, const char *e)
{
	const char *dot = memchr(s, '.', e - s);
	int64_t sec = 0, frac = 0;
	int digits = 0;

	/* Under 10^9 s (31 years of uptime): no overflow in ns. */
	if (!dot || !all_digits(s, dot) || !all_digits(dot + 1, e) ||
	    dot - s > 9 || e - dot - 1 > 9)
		return -1;
	for (; s < dot; s++)
		sec = sec * 10 + (*s - '0');
	for (s = dot + 1; s < e; s++, digits++)
		frac = frac * 10 + (*s - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	return sec * 1000000000 + frac;
}

/*
 * The fields after "ipuN": space-separated KEY=VALUE, the key a name, the
 * value of the characters ipu.ko's formats print (numbers, 0x..., r/n,
 * words), so that it needs no escaping in JSON.
 */
static bool fields_ok(const char *s)
{
	const char *eq;

	while (*s) {
		if (*s == ' ') {
			s++;
			continue;
		}
		eq = s;
		while (is_name_char(*eq))
			eq++;
		if (eq == s || *eq != '=' || !eq[1] || eq[1] == ' ')
			return false;
		for (s = eq + 1; *s && *s != ' '; s++)
			if (!is_name_char(*s) && !strchr("/.+-", *s))
				return false;
	}
	return true;
}

int trace_kparse_line(char *line, struct kline *k)
{
	size_t len = strlen(line);
	const char *tse, *tss;
	char *name, *c, *f;
	int64_t i;

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	for (c = line; *c == ' ' || *c == '\t'; c++)
		;
	if (!*c || *c == '#')
		return 0;
	/*
	 * From the right: the event's own text has no ": " (ipu.ko's), so the
	 * last "TS: NAME:" that a well-formed head precedes is the event, even
	 * when the task's name imitates one.
	 */
	for (i = (int64_t)len - 1; i > 0; i--) {
		if (line[i] != ':' || (line[i + 1] && line[i + 1] != ' '))
			continue;
		name = line + i;
		while (name > line && is_name_char(name[-1]))
			name--;
		if (name == line + i || name - line < 3 || name[-1] != ' ' ||
		    name[-2] != ':')
			continue;
		tse = name - 2;
		tss = tse;
		while (tss > line && (isdigit((unsigned char)tss[-1]) ||
				      tss[-1] == '.'))
			tss--;
		if (tss == line || tss[-1] != ' ')
			continue;
		k->ts_ns = parse_ts(tss, tse);
		if (k->ts_ns < 0 || !parse_head(line, tss, k))
			continue;
		if ((size_t)(line + i - name) >= sizeof(k->event))
			return -1;
		memcpy(k->event, name, line + i - name);
		k->event[line + i - name] = '\0';
		if (strncmp(k->event, "ipu_", 4))
			return 0;
		f = line + i + 1;
		while (*f == ' ')
			f++;
		if (strncmp(f, "ipu", 3))
			return -1;
		c = f + 3;
		while (isdigit((unsigned char)*c))
			c++;
		k->minor = small_num(f + 3, c, KTRACE_MAX_MINOR);
		if (k->minor < 0 || (*c && *c != ' '))
			return -1;
		while (*c == ' ')
			c++;
		if (!fields_ok(c))
			return -1;
		k->fields = c;
		return 1;
	}
	return -1;
}

/* The value of @key in @fields, as [*@v, *@v + return); 0 if absent. */
static size_t field(const char *fields, const char *key, const char **v)
{
	size_t klen = strlen(key);
	const char *p = fields;

	while (*p) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			*v = p + klen + 1;
			return strcspn(*v, " ");
		}
		p += strcspn(p, " ");
		p += strspn(p, " ");
	}
	return 0;
}

/* A JSON number as ipu.ko prints one: -?(0|[1-9][0-9]*), up to 20 digits. */
static bool json_int(const char *v, size_t n)
{
	size_t i = (n && *v == '-') ? 1 : 0;

	if (i >= n || n - i > 20 || (v[i] == '0' && n - i > 1))
		return false;
	for (; i < n; i++)
		if (!isdigit((unsigned char)v[i]))
			return false;
	return true;
}

static void put_us(FILE *f, const char *name, int64_t ns)
{
	fprintf(f, "\"%s\":%" PRId64 ".%03d", name, ns / 1000,
		(int)(ns % 1000));
}

static void mark_track(struct ktrace *kt, int minor, int kind)
{
	kt->tracks[minor] |= 1u << kind;
}

/* "{...,"args":{" of an event of @k's on its track. */
static void put_head(struct ktrace *kt, const struct kline *k, int kind,
		     const char *ph, const char *name, int64_t ts)
{
	FILE *f = kt->f;

	mark_track(kt, k->minor, kind);
	fprintf(f, "%s\n{\"ph\":\"%s\",\"cat\":\"kernel\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",",
		kt->comma ? "," : "", ph, KTRACE_PID, k->minor * 4 + kind,
		name);
	put_us(f, "ts", ts);
	kt->comma = true;
}

/* The args: every field, then the task's. */
static void put_args(struct ktrace *kt, const struct kline *k,
		     const char *extra)
{
	const char *p = k->fields, *eq;
	FILE *f = kt->f;
	size_t n;

	fprintf(f, ",\"args\":{\"device\":\"ipu%d\"", k->minor);
	while (*p) {
		eq = strchr(p, '=');
		n = strcspn(eq + 1, " ");
		fprintf(f, ",\"%.*s\":", (int)(eq - p), p);
		if (json_int(eq + 1, n))
			fprintf(f, "%.*s", (int)n, eq + 1);
		else
			fprintf(f, "\"%.*s\"", (int)n, eq + 1);
		p = eq + 1 + n;
		p += strspn(p, " ");
	}
	fprintf(f, ",\"task\":\"");
	json_str_put(f, k->comm, strlen(k->comm));
	fprintf(f, "\",\"pid\":%d,\"cpu\":%d%s}}", k->pid, k->cpu,
		extra ? extra : "");
}

static void put_instant(struct ktrace *kt, const struct kline *k, int kind,
			const char *why)
{
	char extra[96];

	put_head(kt, k, kind, "i", k->event, k->ts_ns);
	fprintf(kt->f, ",\"s\":\"t\"");
	if (why)
		snprintf(extra, sizeof(extra), ",\"unpaired\":\"%s\"", why);
	put_args(kt, k, why ? extra : NULL);
}

/* The kind of @event and which of begin (0: submit, 1: start) or end (2). */
static int classify(const char *event, int *step)
{
	static const struct {
		const char *name;
		int kind, step;
	} tab[] = {
		{ "ipu_xfer_submit", KT_XFER, 0 },
		{ "ipu_xfer_start", KT_XFER, 1 },
		{ "ipu_xfer_complete", KT_XFER, 2 },
		{ "ipu_launch_submit", KT_LAUNCH, 0 },
		{ "ipu_launch_start", KT_LAUNCH, 1 },
		{ "ipu_launch_complete", KT_LAUNCH, 2 },
		{ "ipu_launch_fail", KT_LAUNCH, 2 },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(event, tab[i].name)) {
			*step = tab[i].step;
			return tab[i].kind;
		}
	return KT_OTHER;
}

/* Which transfer or launch @k is about, as "client=.. handle=.. dir=..". */
static void make_key(const struct kline *k, int kind, char *key, size_t size)
{
	static const char *const xfer[] = { "client", "handle", "dir", NULL };
	static const char *const launch[] = { "client", "id", "replica", NULL };
	const char *const *names = kind == KT_XFER ? xfer : launch;
	const char *v = NULL;
	size_t used = 0, n;
	int w;

	key[0] = '\0';
	for (; *names; names++) {
		n = field(k->fields, *names, &v);
		w = snprintf(key + used, size - used, "%.*s;", (int)n,
			     n ? v : "");
		if (w < 0 || (size_t)w >= size - used)
			return;
		used += w;
	}
}

/* FNV-1a over what names a queue. */
static uint32_t key_hash(int kind, int minor, const char *key)
{
	uint32_t h = 2166136261u;

	h = (h ^ (uint32_t)kind) * 16777619u;
	h = (h ^ (uint32_t)minor) * 16777619u;
	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619u;
	return h & (KT_BUCKETS - 1);
}

/* The queue of (@kind, @minor, @key), or -1. */
static int32_t find_queue(struct ktrace *kt, int kind, int minor,
			  const char *key)
{
	int32_t q = kt->buckets[key_hash(kind, minor, key)];
	struct kqueue *k;

	for (; q >= 0; q = k->hnext) {
		k = &kt->queues[q];
		kt->probes++;
		if (k->kind == kind && k->minor == minor && !strcmp(k->key, key))
			return q;
	}
	return -1;
}

/*
 * Room for one more held entry (and its queue): grown by doubling up to
 * KTRACE_MAX_PENDING; false when full or out of memory.
 */
static bool room(struct ktrace *kt)
{
	size_t cap, i;
	struct kpend *p;
	struct kqueue *q;

	if (kt->free_pend >= 0)
		return true;
	if (kt->cap_pend >= KTRACE_MAX_PENDING)
		return false;
	cap = kt->cap_pend ? kt->cap_pend * 2 : 16;
	p = realloc(kt->pend, cap * sizeof(*p));
	if (!p)
		return false;
	kt->pend = p;
	q = realloc(kt->queues, cap * sizeof(*q));
	if (!q)
		return false;	/* pend grown, cap_pend not: retried later */
	kt->queues = q;
	/* The new entries and queues, free, lowest index first. */
	for (i = cap; i-- > kt->cap_pend;) {
		kt->pend[i].kind = 0;
		kt->pend[i].next = kt->free_pend;
		kt->free_pend = (int32_t)i;
		kt->queues[i].kind = 0;
		kt->queues[i].hnext = kt->free_q;
		kt->free_q = (int32_t)i;
	}
	kt->cap_pend = cap;
	return true;
}

/* A new entry at the young end of (@kind, @minor, @key)'s queue. */
static struct kpend *hold(struct ktrace *kt, int kind, int minor,
			  const char *key)
{
	int32_t qi = find_queue(kt, kind, minor, key), pi;
	struct kqueue *q;
	struct kpend *p;
	uint32_t b;

	/* A queue per held entry at most: a free entry means a free queue. */
	pi = kt->free_pend;
	p = &kt->pend[pi];
	kt->free_pend = p->next;
	p->kind = kind;
	p->next = -1;
	if (qi < 0) {
		qi = kt->free_q;
		q = &kt->queues[qi];
		kt->free_q = q->hnext;
		q->kind = kind;
		q->minor = minor;
		snprintf(q->key, sizeof(q->key), "%s", key);
		q->head = q->tail = q->unstarted = -1;
		b = key_hash(kind, minor, key);
		q->hnext = kt->buckets[b];
		kt->buckets[b] = qi;
	}
	q = &kt->queues[qi];
	if (q->tail >= 0)
		kt->pend[q->tail].next = pi;
	else
		q->head = pi;
	q->tail = pi;
	kt->n_pend++;
	kt->last_queue = qi;
	return p;
}

/* Take the oldest entry off queue @qi (freed; the queue too when empty). */
static void release_oldest(struct ktrace *kt, int32_t qi)
{
	struct kqueue *q = &kt->queues[qi];
	int32_t pi = q->head, *link;
	struct kpend *p = &kt->pend[pi];

	q->head = p->next;
	if (q->unstarted == pi)
		q->unstarted = p->next;
	if (q->head < 0) {
		link = &kt->buckets[key_hash(q->kind, q->minor, q->key)];
		while (*link != qi)
			link = &kt->queues[*link].hnext;
		*link = q->hnext;
		q->kind = 0;
		q->tail = -1;
		q->hnext = kt->free_q;
		kt->free_q = qi;
	}
	p->kind = 0;
	p->next = kt->free_pend;
	kt->free_pend = pi;
	kt->n_pend--;
}

int ktrace_init(struct ktrace *kt, FILE *f, bool comma)
{
	size_t i;

	memset(kt, 0, sizeof(*kt));
	kt->f = f;
	kt->comma = comma;
	kt->free_pend = kt->free_q = -1;
	kt->tracks = calloc(KTRACE_MAX_MINOR + 1, 1);
	kt->buckets = malloc(KT_BUCKETS * sizeof(*kt->buckets));
	if (!kt->tracks || !kt->buckets) {
		free(kt->tracks);
		free(kt->buckets);
		kt->tracks = NULL;
		kt->buckets = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < KT_BUCKETS; i++)
		kt->buckets[i] = -1;
	return 0;
}

static void end_span(struct ktrace *kt, const struct kline *k, int kind,
		     const struct kpend *p)
{
	int64_t begin = p->start_ns >= 0 ? p->start_ns : p->submit_ns;
	const char *dir = NULL;
	char name[64], extra[64] = "";
	size_t n;

	if (kind == KT_XFER) {
		n = field(k->fields, "dir", &dir);
		snprintf(name, sizeof(name), "xfer %.*s", (int)n, n ? dir : "");
	} else {
		snprintf(name, sizeof(name), "%s",
			 strcmp(k->event, "ipu_launch_fail") ? "launch" :
			 "launch (failed)");
	}
	if (begin > k->ts_ns)	/* out of order: not the kernel's text */
		begin = k->ts_ns;
	put_head(kt, k, kind, "X", name, begin);
	fputc(',', kt->f);
	put_us(kt->f, "dur", k->ts_ns - begin);
	if (p->submit_ns >= 0 && p->start_ns >= p->submit_ns) {
		int64_t q = p->start_ns - p->submit_ns;

		snprintf(extra, sizeof(extra), ",\"queued_us\":%" PRId64 ".%03d",
			 q / 1000, (int)(q % 1000));
	}
	put_args(kt, k, extra);
	kt->spans++;
}

void ktrace_line(struct ktrace *kt, char *line)
{
	struct kline k;
	struct kpend *p;
	struct kqueue *q;
	char key[96];
	int kind, step = 0, r;
	int32_t qi;

	kt->lines++;
	if (strlen(line) >= KTRACE_MAX_LINE) {
		kt->malformed++;
		return;
	}
	r = trace_kparse_line(line, &k);
	if (r < 0)
		kt->malformed++;
	if (r <= 0)
		return;
	kt->events++;
	kind = classify(k.event, &step);
	if (kind == KT_OTHER) {
		put_instant(kt, &k, kind, NULL);
		return;
	}
	make_key(&k, kind, key, sizeof(key));
	qi = find_queue(kt, kind, k.minor, key);
	q = qi >= 0 ? &kt->queues[qi] : NULL;
	if (step == 2) {
		if (q) {
			end_span(kt, &k, kind, &kt->pend[q->head]);
			release_oldest(kt, qi);
		} else {
			kt->unpaired++;
			put_instant(kt, &k, kind, "no submit or start");
		}
		return;
	}
	if (step == 1 && q && q->unstarted >= 0) {
		kt->pend[q->unstarted].start_ns = k.ts_ns;
		q->unstarted = kt->pend[q->unstarted].next;
		return;
	}
	if (!room(kt)) {
		kt->overflow++;
		put_instant(kt, &k, kind, "too many in flight");
		return;
	}
	p = hold(kt, kind, k.minor, key);
	q = &kt->queues[kt->last_queue];
	p->submit_ns = step == 0 ? k.ts_ns : -1;
	p->start_ns = step == 1 ? k.ts_ns : -1;
	/* A submit's entry is the queue's youngest unstarted one. */
	if (step == 0 && q->unstarted < 0)
		q->unstarted = q->tail;
	p->first = k;
	snprintf(p->fields, sizeof(p->fields), "%s", k.fields);
	/* Cut at a field's end: a value cut short would be a wrong value. */
	if (strlen(k.fields) >= sizeof(p->fields)) {
		char *sp = strrchr(p->fields, ' ');

		*(sp ? sp : p->fields) = '\0';
	}
}

void ktrace_finish(struct ktrace *kt)
{
	static const char *const what[] = { "", "transfers", "launches",
					    "events" };
	size_t i;
	int m, kind;

	/* What never ended: an instant at its first event, so it is seen. */
	for (i = 0; i < kt->cap_pend; i++) {
		if (!kt->pend[i].kind)
			continue;
		kt->pend[i].first.fields = kt->pend[i].fields;
		put_instant(kt, &kt->pend[i].first, kt->pend[i].kind,
			    "no complete in the trace");
		kt->unpaired++;
	}
	fprintf(kt->f, "%s\n{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"kernel (ipu.ko)\"}},\n"
		"{\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
		kt->comma ? "," : "", KTRACE_PID, KTRACE_PID, KTRACE_PID);
	kt->comma = true;
	for (m = 0; m <= KTRACE_MAX_MINOR; m++)
		for (kind = KT_XFER; kind <= KT_OTHER; kind++)
			if (kt->tracks[m] & (1u << kind))
				fprintf(kt->f, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"ipu%d %s\"}}",
					KTRACE_PID, m * 4 + kind, m, what[kind]);
	free(kt->pend);
	free(kt->queues);
	free(kt->buckets);
	free(kt->tracks);
	kt->pend = NULL;
	kt->queues = NULL;
	kt->buckets = NULL;
	kt->tracks = NULL;
}
