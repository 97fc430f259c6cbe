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

/* A transfer or launch begun (submitted or started) and not yet ended. */
struct kpend {
	int kind;		/* KT_XFER or KT_LAUNCH */
	int minor;
	char key[96];		/* the fields that say which one it is */
	int64_t submit_ns;	/* -1: not seen */
	int64_t start_ns;	/* -1: not seen */
	uint64_t seq;		/* first in, first out among equal keys */
	struct kline first;	/* its first event, for one that never ends */
	char fields[256];	/* its fields: first.fields is set to them when
				 * used, as entries move (realloc, removal) */
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

/* The oldest held one of @key; with @need_no_start, one not yet started. */
static struct kpend *find(struct ktrace *kt, int kind, int minor,
			  const char *key, bool need_no_start)
{
	struct kpend *best = NULL, *p;
	size_t i;

	for (i = 0; i < kt->n_pend; i++) {
		p = &kt->pend[i];
		if (p->kind != kind || p->minor != minor || strcmp(p->key, key) ||
		    (need_no_start && p->start_ns >= 0))
			continue;
		if (!best || p->seq < best->seq)
			best = p;
	}
	return best;
}

int ktrace_init(struct ktrace *kt, FILE *f, bool comma)
{
	memset(kt, 0, sizeof(*kt));
	kt->f = f;
	kt->comma = comma;
	kt->tracks = calloc(KTRACE_MAX_MINOR + 1, 1);
	if (!kt->tracks)
		return -ENOMEM;
	return 0;
}

static void end_span(struct ktrace *kt, const struct kline *k, int kind,
		     struct kpend *p)
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
	*p = kt->pend[--kt->n_pend];
}

void ktrace_line(struct ktrace *kt, char *line)
{
	struct kline k;
	struct kpend *p;
	char key[96];
	int kind, step = 0, r;

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
	if (step == 2) {
		p = find(kt, kind, k.minor, key, false);
		if (p) {
			end_span(kt, &k, kind, p);
		} else {
			kt->unpaired++;
			put_instant(kt, &k, kind, "no submit or start");
		}
		return;
	}
	p = step == 1 ? find(kt, kind, k.minor, key, true) : NULL;
	if (p) {
		p->start_ns = k.ts_ns;
		return;
	}
	if (kt->n_pend == kt->cap_pend && kt->cap_pend < KTRACE_MAX_PENDING) {
		size_t cap = kt->cap_pend ? kt->cap_pend * 2 : 16;
		struct kpend *n = realloc(kt->pend, cap * sizeof(*n));

		if (n) {
			kt->pend = n;
			kt->cap_pend = cap;
		}
	}
	if (kt->n_pend == kt->cap_pend) {
		kt->overflow++;
		put_instant(kt, &k, kind, "too many in flight");
		return;
	}
	p = &kt->pend[kt->n_pend++];
	p->kind = kind;
	p->minor = k.minor;
	snprintf(p->key, sizeof(p->key), "%s", key);
	p->submit_ns = step == 0 ? k.ts_ns : -1;
	p->start_ns = step == 1 ? k.ts_ns : -1;
	p->seq = kt->seq++;
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
	for (i = 0; i < kt->n_pend; i++) {
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
	free(kt->tracks);
	kt->pend = NULL;
	kt->tracks = NULL;
}
