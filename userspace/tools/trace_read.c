// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * trace_read.c - Chrome trace-event JSON into struct trace (trace_read.h).
 *
 * The format (the Trace Event Format document Perfetto and chrome://tracing
 * follow): an object with a "traceEvents" array, or the bare array. Of the
 * events, "X" (complete: ts and dur in µs) become spans and "M" metadata
 * names processes and threads; every other kind is skipped, as a viewer
 * would. Whatever a file holds, it is checked before it is used: a member
 * of the wrong type is an error naming the event, not a guess.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>

#include "json_str.h"
#include "trace_read.h"

/* A name per pid (process_name) or per (pid, tid) (thread_name). */
struct name {
	int64_t pid, tid;	/* tid -1: the process's */
	size_t seq;		/* its place in the file: the first wins */
	const char *name;
};

/*
 * Bytes of the UTF-8 sequence at @s that is safe on a terminal: a
 * printable character's (1 for ASCII, 2 to 4 for others), or 0 for a
 * control character (C0, DEL, C1 U+0080..U+009F, which includes CSI) or
 * a byte that starts no valid sequence.
 */
static size_t trace_utf8_printable(const unsigned char *s)
{
	uint32_t cp;
	size_t n = json_utf8_char(s, strnlen((const char *)s, 4), &cp);

	return n && cp >= 0x20 && !(cp >= 0x7f && cp <= 0x9f) ? n : 0;
}

/*
 * A copy of @s safe to print on a terminal (names come from any file):
 * every byte of a control character or of invalid UTF-8 as "\xNN".
 */
static char *dup_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = 0, k;
	char *out, *o;

	for (k = 0; p[k]; k++)
		len += 4;
	out = malloc(len + 1);
	if (!out)
		return NULL;
	for (o = out; *p;) {
		k = trace_utf8_printable(p);
		if (!k) {
			o += sprintf(o, "\\x%02x", *p++);
			continue;
		}
		memcpy(o, p, k);
		o += k;
		p += k;
	}
	*o = '\0';
	return out;
}

static bool get_num(json_object *o, const char *key, double *v)
{
	json_object *m;

	if (!json_object_object_get_ex(o, key, &m))
		return false;
	if (!json_object_is_type(m, json_type_int) &&
	    !json_object_is_type(m, json_type_double))
		return false;
	*v = json_object_get_double(m);
	return isfinite(*v);
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *m;

	if (!json_object_object_get_ex(o, key, &m) ||
	    !json_object_is_type(m, json_type_string))
		return NULL;
	return json_object_get_string(m);
}

/* µs as ns, refusing what no trace holds (beyond ±31 years), so that
 * sums and differences of times never overflow. */
static bool us_to_ns(double us, int64_t *ns)
{
	double v = us * 1000.0;

	if (!(v > -1e18 && v < 1e18))
		return false;
	*ns = (int64_t)llround(v);
	return true;
}

static int cmp_span(const void *a, const void *b)
{
	const struct trace_span *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* The holder first. */
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return 0;
}

size_t trace_track_of(const struct trace *t, const struct trace_span *sp)
{
	size_t lo = 0, hi = t->n_tracks, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (t->tracks[mid].pid < sp->pid ||
		    (t->tracks[mid].pid == sp->pid &&
		     t->tracks[mid].tid < sp->tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_name(const void *a, const void *b)
{
	const struct name *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The name of (@pid, @tid) in @names, sorted by cmp_name: the first the
 * file gave. A binary search: a trace may name as many tracks as it has
 * events.
 */
static const char *find_name(const struct name *names, size_t n, int64_t pid,
			     int64_t tid)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (names[mid].pid < pid ||
		    (names[mid].pid == pid && names[mid].tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && names[lo].pid == pid && names[lo].tid == tid)
		return names[lo].name;
	return NULL;
}

/* Tracks, their names, and each span's depth (spans sorted). */
static int make_tracks(struct trace *t, const struct name *names, size_t nn)
{
	const char *pname, *tname;
	struct trace_span *sp;
	int64_t *ends = NULL, *grown;
	size_t i, k, open = 0, cap = 0;
	char buf[96];
	int n;

	for (i = 0; i < t->n_spans; i++) {
		sp = &t->spans[i];
		if (i && sp->pid == sp[-1].pid && sp->tid == sp[-1].tid)
			continue;
		k = t->n_tracks++;
		t->tracks[k].pid = sp->pid;
		t->tracks[k].tid = sp->tid;
		pname = find_name(names, nn, sp->pid, -1);
		tname = find_name(names, nn, sp->pid, sp->tid);
		if (pname && tname)
			n = snprintf(buf, sizeof(buf), "%s: %s", pname, tname);
		else if (pname || tname)
			n = snprintf(buf, sizeof(buf), "%s", pname ? pname : tname);
		else
			n = snprintf(buf, sizeof(buf), "%" PRId64 "/%" PRId64,
				     sp->pid, sp->tid);
		(void)n;
		/* Metadata names are the file's too: made safe to print. */
		t->tracks[k].name = dup_str(buf);
		if (!t->tracks[k].name)
			return -ENOMEM;
	}
	/* Depth: the spans still open when each starts, on its track. */
	for (i = 0; i < t->n_spans; i++) {
		sp = &t->spans[i];
		if (i && (sp->pid != sp[-1].pid || sp->tid != sp[-1].tid))
			open = 0;
		while (open && ends[open - 1] <= sp->ts)
			open--;
		sp->depth = (unsigned int)open;
		if (open == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(ends, cap * sizeof(*ends));
			if (!grown) {
				free(ends);
				return -ENOMEM;
			}
			ends = grown;
		}
		ends[open++] = sp->ts + sp->dur;
	}
	free(ends);
	return 0;
}

static int bad(char *msg, size_t len, const char *fmt, size_t i,
	       const char *what)
{
	snprintf(msg, len, fmt, i, what);
	return -EINVAL;
}

/* One "X" event into @sp. */
static int read_span(json_object *e, size_t i, struct trace_span *sp,
		     char *msg, size_t len)
{
	const char *fmt = "event %zu: \"%s\" is missing or not a number";
	json_object *args, *m;
	double v;

	if (!get_num(e, "ts", &v) || !us_to_ns(v, &sp->ts))
		return bad(msg, len, fmt, i, "ts");
	if (!get_num(e, "dur", &v) || !us_to_ns(v, &sp->dur) || sp->dur < 0)
		return bad(msg, len, "event %zu: \"%s\" is missing, not a number or negative",
			   i, "dur");
	if (!get_num(e, "pid", &v) || v != floor(v) || fabs(v) > 1e15)
		return bad(msg, len, "event %zu: \"%s\" is missing or not an integer",
			   i, "pid");
	sp->pid = (int64_t)v;
	sp->tid = 0;
	if (get_num(e, "tid", &v) && v == floor(v) && fabs(v) <= 1e15)
		sp->tid = (int64_t)v;
	if (json_object_object_get_ex(e, "args", &args) &&
	    json_object_is_type(args, json_type_object) &&
	    json_object_object_get_ex(args, "bytes", &m) &&
	    json_object_is_type(m, json_type_int) &&
	    json_object_get_int64(m) > 0)
		sp->bytes = (uint64_t)json_object_get_int64(m);
	sp->name = dup_str(get_str(e, "name"));
	sp->cat = dup_str(get_str(e, "cat"));
	return sp->name && sp->cat ? 0 : -ENOMEM;
}

static int read_events(json_object *evs, struct trace *t, char *msg,
		       size_t len)
{
	size_t n = json_object_array_length(evs), i, nn = 0;
	struct name *names;
	const char *ph, *kind, *name;
	json_object *e, *args;
	double v;
	int err = 0;

	names = calloc(n ? n : 1, sizeof(*names));
	t->spans = calloc(n ? n : 1, sizeof(*t->spans));
	t->tracks = calloc(n ? n : 1, sizeof(*t->tracks));
	if (!names || !t->spans || !t->tracks) {
		free(names);
		return -ENOMEM;
	}
	for (i = 0; i < n && !err; i++) {
		e = json_object_array_get_idx(evs, i);
		if (!json_object_is_type(e, json_type_object)) {
			err = bad(msg, len, "event %zu: %s", i, "not an object");
			break;
		}
		ph = get_str(e, "ph");
		if (!ph) {
			err = bad(msg, len, "event %zu: \"%s\" is missing or not a string",
				  i, "ph");
			break;
		}
		if (!strcmp(ph, "X")) {
			err = read_span(e, i, &t->spans[t->n_spans], msg, len);
			t->n_spans++;
			continue;
		}
		kind = get_str(e, "name");
		if (strcmp(ph, "M") || !kind || !get_num(e, "pid", &v) ||
		    !json_object_object_get_ex(e, "args", &args) ||
		    !(name = get_str(args, "name")))
			continue;
		if (v != floor(v) || fabs(v) > 1e15)
			continue;
		names[nn].pid = (int64_t)v;
		if (!strcmp(kind, "process_name")) {
			names[nn].tid = -1;
		} else if (!strcmp(kind, "thread_name") &&
			   get_num(e, "tid", &v) && v == floor(v) &&
			   fabs(v) <= 1e15) {
			names[nn].tid = (int64_t)v;
		} else {
			continue;
		}
		names[nn].seq = nn;
		names[nn++].name = name;
	}
	if (!err) {
		qsort(t->spans, t->n_spans, sizeof(*t->spans), cmp_span);
		qsort(names, nn, sizeof(*names), cmp_name);
		for (i = 0; i < t->n_spans; i++) {
			if (!i || t->spans[i].ts < t->t0)
				t->t0 = t->spans[i].ts;
			if (!i || t->spans[i].ts + t->spans[i].dur > t->t1)
				t->t1 = t->spans[i].ts + t->spans[i].dur;
		}
		err = make_tracks(t, names, nn);
	}
	free(names);
	return err;
}

int trace_read_buf(const char *buf, size_t len, struct trace *t, char *msg,
		   size_t msglen)
{
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	json_object *root, *evs = NULL;
	size_t end;
	int err;

	memset(t, 0, sizeof(*t));
	msg[0] = '\0';
	if (len > TRACE_MAX_BYTES) {
		snprintf(msg, msglen, "%zu bytes: more than the %llu a trace may have",
			 len, TRACE_MAX_BYTES);
		return -EFBIG;
	}
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (root && jerr == json_tokener_success) {
		/* Only white space may follow the value. */
		while (end < len && strchr(" \t\r\n", buf[end]) && buf[end])
			end++;
		if (end < len) {
			snprintf(msg, msglen, "not JSON at byte %zu: data after the end of the value",
				 end);
			json_object_put(root);
			json_tokener_free(tok);
			return -EINVAL;
		}
	}
	json_tokener_free(tok);
	if (!root || jerr != json_tokener_success) {
		json_object_put(root);
		snprintf(msg, msglen, "not JSON at byte %zu: %s", end,
			 jerr == json_tokener_continue ?
				 "the text ends too soon" :
				 json_tokener_error_desc(jerr));
		return -EINVAL;
	}
	if (json_object_is_type(root, json_type_array))
		evs = root;
	else if (json_object_is_type(root, json_type_object))
		json_object_object_get_ex(root, "traceEvents", &evs);
	if (!evs || !json_object_is_type(evs, json_type_array)) {
		snprintf(msg, msglen, "not a trace: no \"traceEvents\" array (the Chrome trace-event format)");
		json_object_put(root);
		return -EINVAL;
	}
	err = read_events(evs, t, msg, msglen);
	json_object_put(root);
	if (err == -ENOMEM)
		snprintf(msg, msglen, "out of memory");
	return err;
}

int trace_read_file(const char *path, struct trace *t, char *msg,
		    size_t msglen)
{
	struct stat st;
	char *buf, why[256];
	ssize_t got;
	size_t at = 0;
	int fd, err;

	memset(t, 0, sizeof(*t));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		snprintf(msg, msglen, "%s: %s", path, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, msglen, "%s: not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > TRACE_MAX_BYTES) {
		snprintf(msg, msglen, "%s: %lld bytes: larger than the 1 GiB (%llu bytes) ipu-trace reads; libsession's traces stay far below it",
			 path, (long long)st.st_size, TRACE_MAX_BYTES);
		close(fd);
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		snprintf(msg, msglen, "%s: out of memory", path);
		return -ENOMEM;
	}
	while (at < (size_t)st.st_size) {
		got = read(fd, buf + at, (size_t)st.st_size - at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		at += (size_t)got;
	}
	close(fd);
	buf[at] = '\0';
	err = trace_read_buf(buf, at, t, why, sizeof(why));
	free(buf);
	if (err)
		snprintf(msg, msglen, "%s: %s", path, why);
	return err;
}

void trace_free(struct trace *t)
{
	size_t i;

	for (i = 0; t->spans && i < t->n_spans; i++) {
		free(t->spans[i].name);
		free(t->spans[i].cat);
	}
	for (i = 0; t->tracks && i < t->n_tracks; i++)
		free(t->tracks[i].name);
	free(t->spans);
	free(t->tracks);
	memset(t, 0, sizeof(*t));
}
