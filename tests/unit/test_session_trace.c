// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_trace.c - a session's timeline (userspace/session/trace.c,
 * docs/trace.md): the file is trace-event JSON, holds every transfer and
 * launch of each run on its replica's track, spans nest and follow one
 * another, memory counters come and go with attach; nothing is written
 * when off; bad paths are refused, naming them; the event cap counts what
 * it drops; each launch holds a span per op it executed, in order; a
 * traced run leaves ipu_errmsg() alone; spans stay whole and nested when
 * completions are reaped late or out of order (__wrap_ipu_queue_reap()).
 *
 * The writer puts one event on a line; the checks here read those lines
 * after json_check() has seen that the whole file is JSON.
 */
#include "session_helpers.h"
#include "../userspace/tools/json_str.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../json_check.h"
#include "../../userspace/session/session_internal.h"

#define MAX_EV 4096

struct ev {
	char ph;
	char name[64], cat[16];
	unsigned int pid, tid;
	long long ts, dur;	/* ns */
	long long bytes;
	long long index, group;	/* ops: the instruction; launches, ops: run */
};

struct trace {
	char *text;
	struct ev ev[MAX_EV];
	size_t n;
};

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_trace.XXXXXX");
	assert_non_null(mkdtemp(dir));
	unsetenv("IPU_TRACE");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (!getenv("KEEP"))
		assert_int_equal(system(cmd), 0);
	unsetenv("IPU_TRACE");
	return 0;
}

static char *path(const char *name)
{
	static char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static char *slurp(const char *file)
{
	FILE *f = fopen(file, "r");
	char *buf;
	long n;

	if (!f)
		fail_msg("no trace file %s", file);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void field_str(const char *line, const char *key, char *out,
		      size_t len)
{
	char k[32];
	const char *p;
	size_t i = 0;

	snprintf(k, sizeof(k), "\"%s\":\"", key);
	out[0] = '\0';
	p = strstr(line, k);
	if (!p)
		return;
	for (p += strlen(k); *p && *p != '"' && i + 1 < len; p++)
		out[i++] = *p;
	out[i] = '\0';
}

static double field_num(const char *line, const char *key)
{
	char k[32];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(line, k);
	return p ? strtod(p + strlen(k), NULL) : -1;
}

/* Read and check @file: JSON, then its events. */
static struct trace *load(const char *file)
{
	struct trace *t = calloc(1, sizeof(*t));
	char *line, *save = NULL, *copy;
	struct ev *e;
	long bad;

	assert_non_null(t);
	t->text = slurp(file);
	bad = json_check(t->text);
	if (bad >= 0)
		fail_msg("%s is not JSON at byte %ld: %.40s", file, bad,
			 t->text + bad);
	assert_non_null(strstr(t->text, "\"traceEvents\":["));
	copy = strdup(t->text);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, "{\"ph\":\""))
			continue;
		assert_true(t->n < MAX_EV);
		e = &t->ev[t->n++];
		e->ph = strstr(line, "{\"ph\":\"")[7];
		field_str(line, "name", e->name, sizeof(e->name));
		field_str(line, "cat", e->cat, sizeof(e->cat));
		e->pid = (unsigned int)field_num(line, "pid");
		e->tid = (unsigned int)field_num(line, "tid");
		/* Microseconds with three decimals: whole nanoseconds. */
		e->ts = llround(field_num(line, "ts") * 1000);
		e->dur = llround(field_num(line, "dur") * 1000);
		e->bytes = (long long)field_num(line, "bytes");
		e->index = (long long)field_num(line, "index");
		e->group = (long long)field_num(line, "group");
	}
	free(copy);
	return t;
}

static void unload(struct trace *t)
{
	free(t->text);
	free(t);
}

static size_t count(const struct trace *t, const char *cat,
		    const char *name, unsigned int tid)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		if (t->ev[i].ph == 'X' && !strcmp(t->ev[i].cat, cat) &&
		    (!name || !strcmp(t->ev[i].name, name)) &&
		    (!tid || t->ev[i].tid == tid))
			n++;
	return n;
}

/* On the model, or the device of the guest's run (ksession.h). */
static struct ipu_session *traced(struct ipu_ir *ir, const char *file)
{
	IPU_OPTS(ipu_session_opts, opts, .device = SH_DEVICE,
		 .attach_timeout_ms = 1, .trace = file);
	struct ipu_session *s = NULL;
	int err = ipu_session_create(ir, &opts, &s);

	sh_too_few(err);
	if (err)
		fail_msg("ipu_session_create: %s", ipu_session_errmsg(NULL));
	return s;
}

/* @runs runs of the accumulator with @r replicas and @d transfers. */
static void run_acc(struct ipu_session *s, uint32_t r, uint32_t d, int runs)
{
	float x[64] = { 0 }, y[64];
	struct ipu_host_buffer bx = sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
			       by = sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull);
	int i;

	bx.ndim = by.ndim = 3;
	bx.shape[0] = by.shape[0] = d;
	bx.shape[1] = by.shape[1] = r;
	bx.shape[2] = by.shape[2] = 2;
	if (r == 1 && d == 1)
		bx.ndim = by.ndim = 1, bx.shape[0] = by.shape[0] = 2;
	for (i = 0; i < runs; i++)
		sh_run_xy(s, bx, by);
}

static void test_every_transfer_and_launch_is_on_its_replica(void **state)
{
	const uint32_t R = 2, d = 3;
	struct ipu_session *s = traced(sh_acc_ir(R, d, 2, NULL),
				       path("t.json"));
	struct trace *t;
	uint32_t r;

	(void)state;
	sh_attach(s);
	run_acc(s, R, d, 2);
	ipu_session_destroy(s);
	t = load(path("t.json"));
	for (r = 1; r <= R; r++) {
		/* d slots of x in and y out per run, one launch per run. */
		assert_int_equal(count(t, "h2d", "x", r), 2 * d);
		assert_int_equal(count(t, "d2h", "y", r), 2 * d);
		assert_int_equal(count(t, "launch", "launch", r), 2);
		assert_int_equal(count(t, "batch", "run", r), 2);
		/* The enter's upload: the image and the variable. */
		assert_int_equal(count(t, "h2d", "executable", r), 1);
		assert_true(count(t, "h2d", "w", r) >= 1);
	}
	assert_int_equal(count(t, "host", "run", 0), 2);
	assert_true(count(t, "host", "wait", 0) >= 3);
	assert_non_null(strstr(t->text, "\"thread_name\",\"args\":{\"name\":\"replica 1\"}"));
	assert_non_null(strstr(t->text, strcmp(SH_DEVICE, "ipu_model") ?
		"\"process_name\",\"args\":{\"name\":\"IPU 0 (hw:" :
		"\"process_name\",\"args\":{\"name\":\"IPU 0 (model:"));
	unload(t);
}

static void test_transfers_carry_bytes_and_rates(void **state)
{
	struct ipu_session *s = traced(sh_acc_ir(1, 1, 2, NULL),
				       path("t.json"));
	struct trace *t;
	size_t i, seen = 0;

	(void)state;
	sh_attach(s);
	run_acc(s, 1, 1, 1);
	ipu_session_destroy(s);
	t = load(path("t.json"));
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->ev[i].name, "x") ||
		    !strcmp(t->ev[i].name, "y")) {
			assert_int_equal(t->ev[i].bytes, 8);
			seen++;
		}
	assert_int_equal(seen, 2);
	unload(t);
}

/* On every track of @t: spans in time order, each pair nested or
 * disjoint; every command inside a batch span of its track. */
static void spans_nest(const struct trace *t)
{
	const struct ev *a, *b;
	size_t i, j, inside;

	for (i = 0; i < t->n; i++) {
		a = &t->ev[i];
		if (a->ph != 'X')
			continue;
		assert_true(a->ts >= 0 && a->dur >= 0);
		inside = 0;
		for (j = 0; j < t->n; j++) {
			b = &t->ev[j];
			if (j == i || b->ph != 'X' || b->pid != a->pid ||
			    b->tid != a->tid)
				continue;
			/* Same track: one holds the other, or disjoint. */
			if (b->ts <= a->ts && a->ts + a->dur <= b->ts + b->dur) {
				if (!strcmp(b->cat, "batch"))
					inside++;
				continue;
			}
			if (a->ts + a->dur <= b->ts || b->ts + b->dur <= a->ts)
				continue;
			if (a->ts <= b->ts && b->ts + b->dur <= a->ts + a->dur)
				continue;
			fail_msg("%s at %lld+%lld and %s at %lld+%lld ns overlap on %u/%u",
				 a->name, a->ts, a->dur, b->name, b->ts,
				 b->dur, a->pid, a->tid);
		}
		if (strcmp(a->cat, "h2d") && strcmp(a->cat, "d2h") &&
		    strcmp(a->cat, "launch"))
			continue;
		if (inside != 1)
			fail_msg("%s at %lld ns is inside %zu batch spans", a->name,
				 a->ts, inside);
		/* Events of a track come in time order. */
		for (j = 0; j < i; j++)
			if (t->ev[j].ph == 'X' && t->ev[j].pid == a->pid &&
			    t->ev[j].tid == a->tid &&
			    strcmp(t->ev[j].cat, "batch"))
				assert_true(t->ev[j].ts <= a->ts);
	}
}

static void test_spans_nest_and_follow_one_another(void **state)
{
	struct ipu_session *s = traced(sh_acc_ir(4, 2, 2, NULL),
				       path("t.json"));
	struct trace *t;

	(void)state;
	sh_attach(s);
	run_acc(s, 4, 2, 3);
	ipu_session_destroy(s);
	t = load(path("t.json"));
	spans_nest(t);
	unload(t);
}

int __real_ipu_queue_reap(struct ipu_queue *q, struct ipu_completion *cqes,
			  size_t max, size_t min_complete, int64_t timeout_ns);
int __wrap_ipu_queue_reap(struct ipu_queue *q, struct ipu_completion *cqes,
			  size_t max, size_t min_complete, int64_t timeout_ns);

/*
 * How libsession's reaps come back (the test binaries are linked with
 * -Wl,--wrap=ipu_queue_reap, Makefile): as they are; late, each waiting
 * for every command still out, so a run's transfers and its launch come
 * back in one reap, as on a loaded machine or a slow guest; or reversed,
 * one completion a reap, the last submitted first, as commands no link
 * orders may complete (a PCI IPU's small transfers overtaking a large one).
 */
static enum { REAP_AS_IS, REAP_LATE, REAP_REVERSED } reap_mode;
static struct ipu_completion held[64];
static size_t nheld;

int __wrap_ipu_queue_reap(struct ipu_queue *q, struct ipu_completion *cqes,
			  size_t max, size_t min_complete, int64_t timeout_ns)
{
	size_t want = max < 64 ? max : 64;
	int n;

	if (reap_mode == REAP_AS_IS)
		return __real_ipu_queue_reap(q, cqes, max, min_complete,
					     timeout_ns);
	if (reap_mode == REAP_LATE)
		return __real_ipu_queue_reap(q, cqes, max, max, timeout_ns);
	if (!nheld) {
		n = __real_ipu_queue_reap(q, held, want, want, timeout_ns);
		if (n <= 0)
			return n;
		nheld = (size_t)n;
	}
	cqes[0] = held[--nheld];
	return 1;
}

/*
 * Commands reaped together share a reap time, later than the launch's
 * first op: every command before the launch ended by then, and the
 * launch's ops keep their lengths inside it (seen failing: only the
 * command just before the launch was ended at its first op, so the
 * launch began at the reap and its ops, which ended before, were cut to
 * nothing).
 */
static void test_a_late_reap_keeps_ops_inside_their_launch(void **state)
{
	struct ipu_session *s = traced(sh_acc_ir(2, 3, 2, NULL),
				       path("late.json"));
	long long ops_ns = 0;
	struct trace *t;
	size_t i;

	(void)state;
	sh_attach(s);
	reap_mode = REAP_LATE;
	run_acc(s, 2, 3, 3);
	reap_mode = REAP_AS_IS;
	ipu_session_destroy(s);
	t = load(path("late.json"));
	assert_true(count(t, "op", NULL, 0) > 0);
	for (i = 0; i < t->n; i++)
		if (t->ev[i].ph == 'X' && !strcmp(t->ev[i].cat, "op"))
			ops_ns += t->ev[i].dur;
	assert_true(ops_ns > 0);
	spans_nest(t);
	unload(t);
}

/*
 * Completions of one replica's batch in the reverse of their submission:
 * the batch's span still holds each (seen failing on the 8 PCI IPUs' boot,
 * "executable ... is inside 0 batch spans": the span ended with the
 * command submitted last, not with the one that completed last).
 */
static void test_completions_in_any_order_stay_inside_their_batch(void **state)
{
	struct ipu_session *s = traced(sh_acc_ir(1, 1, 2, NULL),
				       path("order.json"));
	struct trace *t;

	(void)state;
	reap_mode = REAP_REVERSED;
	sh_attach(s);
	run_acc(s, 1, 1, 2);
	reap_mode = REAP_AS_IS;
	assert_int_equal(nheld, 0);
	ipu_session_destroy(s);
	t = load(path("order.json"));
	assert_int_equal(count(t, "h2d", "executable", 0), 1);
	spans_nest(t);
	unload(t);
}


/*
 * The instructions a replica executes, in order, from @pc for @end - @pc
 * instructions: a LOOP's body @count times (loop control is not an op
 * span). Appends to @out (room for @cap); returns the new count.
 */
static size_t expand(const struct ipu_exe *exe, uint32_t pc, uint32_t end,
		     uint32_t *out, size_t n, size_t cap)
{
	const struct ipu_exe_instr *in;
	uint32_t count, body, k;

	while (pc < end) {
		in = &exe->instrs[pc];
		if (in->op != IPU_OP_LOOP) {
			assert_true(n < cap);
			out[n++] = pc++;
			continue;
		}
		count = (uint32_t)exe->params[in->first_param];
		body = (uint32_t)exe->params[in->first_param + 1];
		for (k = 0; k < count; k++)
			n = expand(exe, pc + 1, pc + 1 + body, out, n, cap);
		pc += 1 + body;
	}
	return n;
}

static void test_launches_hold_their_ops_in_order(void **state)
{
	struct ipu_session *s = traced(sh_acc_ir(2, 3, 2, NULL),
				       path("t.json"));
	const struct ev *l, *o, *prev;
	uint32_t want[256], op[256];
	size_t nwant, i, j, k, launches = 0, ops = 0;
	struct trace *t;

	(void)state;
	sh_attach(s);
	run_acc(s, 2, 3, 2);
	nwant = expand(s->exe, 0, s->exe->num_instrs, want, 0, 256);
	assert_true(nwant > 3);
	for (k = 0; k < nwant; k++)
		op[k] = s->exe->instrs[want[k]].op;
	ipu_session_destroy(s);
	t = load(path("t.json"));
	for (i = 0; i < t->n; i++) {
		l = &t->ev[i];
		if (l->ph != 'X' || strcmp(l->cat, "launch"))
			continue;
		launches++;
		/* Its ops: the op spans of its track inside it. */
		k = 0;
		prev = NULL;
		for (j = 0; j < t->n; j++) {
			o = &t->ev[j];
			if (o->ph != 'X' || strcmp(o->cat, "op") ||
			    o->pid != l->pid || o->tid != l->tid ||
			    o->group != l->group)
				continue;
			if (o->ts < l->ts || o->ts + o->dur > l->ts + l->dur)
				fail_msg("op %s (%lld) at %lld+%lld ns outside its launch at %lld+%lld",
					 o->name, o->index, o->ts, o->dur,
					 l->ts, l->dur);
			assert_true(k < nwant);
			assert_int_equal(o->index, want[k]);
			assert_string_equal(o->name,
					    ipu_exe_op_name(op[k]));
			if (prev)
				assert_true(prev->ts + prev->dur <= o->ts);
			prev = o;
			k++;
		}
		assert_int_equal(k, nwant);
		ops += k;
	}
	/* Two runs of two replicas; and no op span outside a launch. */
	assert_int_equal(launches, 4);
	assert_int_equal(count(t, "op", NULL, 0), ops);
	unload(t);
}

static void test_memory_counters_follow_attach_and_detach_writes(void **state)
{
	struct ipu_session *s = traced(sh_acc_ir(1, 1, 2, NULL),
				       path("t.json"));
	struct trace *t;
	size_t i, up = 0, down = 0;

	(void)state;
	sh_attach(s);
	assert_int_equal(ipu_session_detach(s, 0), 0);
	/* Detaching wrote the whole file: a `with session:` leaves it. */
	t = load(path("t.json"));
	ipu_session_destroy(s);
	for (i = 0; i < t->n; i++)
		if (t->ev[i].ph == 'C' &&
		    !strcmp(t->ev[i].name, "device memory")) {
			if (t->ev[i].bytes > 0)
				up++;
			else
				down++;
		}
	assert_int_equal(up, 1);
	assert_int_equal(down, 1);
	unload(t);
}

static size_t files_in_dir(void)
{
	char cmd[160];
	FILE *p;
	size_t n = 0;
	int c;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((c = fgetc(p)) != EOF)
		n += c == '\n';
	pclose(p);
	return n;
}

static void test_nothing_is_written_when_off(void **state)
{
	struct ipu_session *s;

	(void)state;
	assert_int_equal(chdir(dir), 0);
	s = sh_session(sh_acc_ir(1, 1, 2, NULL));
	sh_attach(s);
	run_acc(s, 1, 1, 1);
	ipu_session_destroy(s);
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(files_in_dir(), 0);
}

/* @s attached, run @runs times (run_acc()'s @r, @d), destroyed. */
static void run_then_destroy(struct ipu_session *s, uint32_t r, uint32_t d,
			     int runs)
{
	sh_attach(s);
	run_acc(s, r, d, runs);
	ipu_session_destroy(s);
}

/* A session made under IPU_TRACE=@file that runs once, destroyed. */
static void one_run_under_env(const char *file)
{
	struct ipu_session *s;

	setenv("IPU_TRACE", file, 1);
	s = sh_session(sh_acc_ir(1, 1, 2, NULL));
	unsetenv("IPU_TRACE");
	run_then_destroy(s, 1, 1, 1);
}

/* @file (in the test's directory) holds @n launches on thread @tid (0: any). */
static void expect_launches(const char *file, unsigned int tid, size_t n)
{
	struct trace *t = load(path(file));

	assert_int_equal(count(t, "launch", "launch", tid), n);
	unload(t);
}

static void test_ipu_trace_names_the_file(void **state)
{
	(void)state;
	one_run_under_env(path("env.json"));
	expect_launches("env.json", 1, 1);
}

static void test_an_existing_regular_file_is_replaced(void **state)
{
	struct ipu_session *s;
	struct trace *t;
	FILE *f = fopen(path("old.json"), "w");

	(void)state;
	assert_non_null(f);
	fputs("old contents, longer than nothing at all ...", f);
	fclose(f);
	s = traced(sh_acc_ir(1, 1, 2, NULL), path("old.json"));
	ipu_session_destroy(s);
	t = load(path("old.json"));
	assert_null(strstr(t->text, "old contents"));
	unload(t);
}

/* Refused at create, the message naming the path; nothing touched. */
static void refused(const char *file, int err)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model",
		 .attach_timeout_ms = 1, .trace = file);
	struct ipu_session *s = NULL;

	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts,
					    &s),
			 err);
	assert_null(s);
	if (!strstr(ipu_session_errmsg(NULL), file))
		fail_msg("the message does not name %s: %s", file,
			 ipu_session_errmsg(NULL));
}

/* A file holding @text. */
static void put_file(const char *file, const char *text)
{
	FILE *f = fopen(file, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_a_failed_create_leaves_the_file_alone(void **state)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model",
		 .trace = path("keep.json"), .data_dir = "/nonexistent/dir");
	struct ipu_session *s = NULL;
	char *text;

	(void)state;
	put_file(path("keep.json"), "an earlier trace");
	/* Fails after the trace's checks: at the data directory. */
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts,
					    &s),
			 -ENOENT);
	assert_null(s);
	text = slurp(path("keep.json"));
	assert_string_equal(text, "an earlier trace");
	free(text);
	/* Nor is a new file left behind. */
	opts.trace = path("new.json");
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts,
					    &s),
			 -ENOENT);
	assert_int_equal(access(path("new.json"), F_OK), -1);
}

static void test_two_sessions_of_one_file_keep_both_traces(void **state)
{
	struct ipu_session *a, *b, *c;

	(void)state;
	setenv("IPU_TRACE", path("two.json"), 1);
	a = sh_session(sh_acc_ir(1, 1, 2, NULL));
	b = sh_session(sh_acc_ir(2, 2, 2, NULL));
	run_then_destroy(a, 1, 1, 1);
	run_then_destroy(b, 2, 2, 1);
	/* One after the other, too: the third does not replace either. */
	c = sh_session(sh_acc_ir(1, 1, 2, NULL));
	run_then_destroy(c, 1, 1, 2);
	unsetenv("IPU_TRACE");
	expect_launches("two.json", 0, 1);
	expect_launches("two-2.json", 0, 2);
	expect_launches("two-3.json", 0, 2);
}

/*
 * One file spelled two ways ("t.json", "./t.json") is still one file: the
 * second session writes t-2.json, not over the first's timeline.
 */
static void test_one_file_spelled_two_ways_keeps_both_traces(void **state)
{
	struct ipu_session *a, *b;

	(void)state;
	assert_int_equal(chdir(dir), 0);
	setenv("IPU_TRACE", "spelled.json", 1);
	a = sh_session(sh_acc_ir(1, 1, 2, NULL));
	setenv("IPU_TRACE", "./spelled.json", 1);
	b = sh_session(sh_acc_ir(1, 1, 2, NULL));
	unsetenv("IPU_TRACE");
	run_then_destroy(a, 1, 1, 1);
	run_then_destroy(b, 1, 1, 2);
	assert_int_equal(chdir("/"), 0);
	expect_launches("spelled.json", 0, 1);
	expect_launches("spelled-2.json", 0, 2);
}

/* "%p" in the name is the process's id (as in core_pattern); "%%" a '%'. */
static void test_percent_p_is_the_pid(void **state)
{
	struct ipu_session *s;
	char want[48];

	(void)state;
	one_run_under_env(path("pid-%p-100%%.json"));
	snprintf(want, sizeof(want), "pid-%d-100%%.json", (int)getpid());
	expect_launches(want, 0, 1);
	/* The option expands it too. */
	s = traced(sh_acc_ir(1, 1, 2, NULL), path("opt-%p.json"));
	ipu_session_destroy(s);
	snprintf(want, sizeof(want), "opt-%d.json", (int)getpid());
	assert_int_equal(access(path(want), F_OK), 0);
}

/*
 * Past the last "-N" name a session of this process may take, the next
 * is refused, naming the file: it does not overwrite an earlier one's.
 */
static void test_past_the_last_numbered_name_a_session_is_refused(void **state)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model",
		 .attach_timeout_ms = 1, .trace = path("many.json"));
	struct ipu_session *s;
	struct stat st;
	unsigned int i;
	int err = 0, saved, null;

	(void)state;
#ifdef IPU_TESTS_KSESSION_H
	/*
	 * The names are libsession's alone, whatever the device: tested on
	 * the host. A guest's thousand sessions and files took most of this
	 * suite's 33 s under TCG, on every kernel and kind of IPU.
	 */
	skip();
#endif
	/* A thousand "this one goes to" lines are not worth reading. */
	fflush(stderr);
	saved = dup(2);
	null = open("/dev/null", O_WRONLY);
	assert_true(saved >= 0 && null >= 0 && dup2(null, 2) == 2);
	for (i = 0; i < 2000 && !err; i++) {
		s = NULL;
		err = ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts, &s);
		ipu_session_destroy(s);
	}
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(null);
	/* many.json, many-2.json ... many-1000.json; the next refused. */
	assert_int_equal(err, -EEXIST);
	assert_int_equal(i, SESS_TRACE_MAX_NAMES + 1);
	assert_non_null(strstr(ipu_session_errmsg(NULL), "many.json"));
	assert_int_equal(stat(path("many-1000.json"), &st), 0);
	assert_int_not_equal(stat(path("many-1001.json"), &st), 0);
}

static void test_bad_paths_are_refused_clearly(void **state)
{
	char victim[128];
	struct stat st;
	FILE *f;

	(void)state;
	f = fopen(path("victim"), "w");
	assert_non_null(f);
	fputs("keep me", f);
	fclose(f);
	snprintf(victim, sizeof(victim), "%s", path("victim"));
	assert_int_equal(symlink(victim, path("link.json")), 0);
	refused(path("link.json"), -ELOOP);
	assert_int_equal(stat(path("victim"), &st), 0);
	assert_int_equal(st.st_size, 7);
	/* A hard link planted in a shared directory: the victim's bytes stay. */
	assert_int_equal(link(victim, path("hard.json")), 0);
	refused(path("hard.json"), -EPERM);
	assert_int_equal(stat(path("victim"), &st), 0);
	assert_int_equal(st.st_size, 7);
	assert_int_equal(mkfifo(path("fifo.json"), 0600), 0);
	refused(path("fifo.json"), -EINVAL);
	assert_int_equal(mkdir(path("d.json"), 0700), 0);
	refused(path("d.json"), -EISDIR);
	refused(path("no/such/dir.json"), -ENOENT);
	refused("", -EINVAL);
	assert_non_null(strstr(ipu_session_errmsg(NULL), "IPU_TRACE"));
}

static void test_the_cap_counts_dropped_events(void **state)
{
	struct ipu_session *s = traced(sh_acc_ir(1, 1, 2, NULL),
				       path("t.json"));
	struct trace *t;
	size_t i, x = 0;

	(void)state;
	ipu_sess_trace_set_max(s, 6);
	sh_attach(s);
	run_acc(s, 1, 1, 5);
	ipu_session_destroy(s);
	t = load(path("t.json"));
	for (i = 0; i < t->n; i++)
		x += t->ev[i].ph == 'X' || !strcmp(t->ev[i].name, "device memory");
	assert_int_equal(x, 6);
	assert_non_null(strstr(t->text, "\"name\":\"dropped events\""));
	assert_null(strstr(t->text, "\"dropped_events\":0"));
	unload(t);
}

/* The events a run of @runs makes: spans, ops and memory counters. */
static size_t events_made(const struct trace *t)
{
	size_t i, x = 0;

	for (i = 0; i < t->n; i++)
		x += t->ev[i].ph == 'X' ||
		     !strcmp(t->ev[i].name, "device memory");
	return x;
}

/*
 * Every event past the cap is counted, ops too: a launch whose op spans
 * no longer fit drops each of them, not just the first.
 */
/*
 * A traced run that succeeds leaves the thread's libipu message alone: it
 * asks libipu for op records only where the IPUs make them (on ipu.ko's
 * simulated IPUs each reap used to ask, get -ENOENT, and replace it).
 */
/*
 * A program's name is the user's bytes (only its length is checked): the
 * trace stays valid UTF-8 JSON whatever they are, bytes that are no UTF-8
 * becoming U+FFFD (seen failing: written as they were, so that JSON
 * readers refused the file).
 */
static void test_a_program_name_of_any_bytes_is_valid_utf8(void **state)
{
	struct ipu_ir *ir = NULL;
	struct ipu_session *s;
	struct trace *t;
	const unsigned char *p;
	uint32_t cp;
	size_t n, len;
	uint64_t two = 2;
	ipu_tensor w;

	(void)state;
	assert_int_equal(ipu_ir_create("p\xff\x80q\xc3", &ir), 0);
	w = sh_var(ir, "w", two, NULL, NULL);
	assert_int_equal(ipu_ir_host_store(ir, sh_stream(ir, false, "y",
							  IPU_DTYPE_FLOAT32, 1,
							  &two), w), 0);
	s = traced(ir, path("utf8.json"));
	sh_attach(s);
	ipu_session_destroy(s);
	t = load(path("utf8.json"));
	assert_non_null(strstr(t->text,
			       "\"program\":\"p\\ufffd\\ufffdq\\ufffd\""));
	p = (const unsigned char *)t->text;
	len = strlen(t->text);
	for (n = 0; n < len; n += json_utf8_char(p + n, len - n, &cp))
		if (!json_utf8_char(p + n, len - n, &cp))
			fail_msg("byte %zu (0x%02x) is no UTF-8", n, p[n]);
	unload(t);
}

static void test_a_traced_run_leaves_ipu_errmsg_alone(void **state)
{
	struct ipu_session *s = traced(sh_acc_ir(2, 3, 2, NULL),
				       path("m.json"));
	struct ipu_launch_profile p;
	char before[256];

	(void)state;
	sh_attach(s);
	assert_int_equal(ipu_queue_profile(NULL, 0, &p), -EINVAL);
	snprintf(before, sizeof(before), "%s", ipu_errmsg());
	assert_non_null(strstr(before, "q is NULL"));
	run_acc(s, 2, 3, 2);
	assert_string_equal(ipu_errmsg(), before);
	ipu_session_destroy(s);
}

static void test_the_cap_counts_every_dropped_op(void **state)
{
	struct ipu_session *s = traced(sh_acc_ir(1, 1, 2, NULL),
				       path("all.json"));
	const char *p;
	struct trace *t;
	size_t total;

	(void)state;
	sh_attach(s);
	run_acc(s, 1, 1, 5);
	ipu_session_destroy(s);
	t = load(path("all.json"));
	total = events_made(t);
	assert_true(count(t, "op", NULL, 0) > 5);
	unload(t);

	s = traced(sh_acc_ir(1, 1, 2, NULL), path("capped.json"));
	ipu_sess_trace_set_max(s, 6);
	sh_attach(s);
	run_acc(s, 1, 1, 5);
	ipu_session_destroy(s);
	t = load(path("capped.json"));
	assert_int_equal(events_made(t), 6);
	p = strstr(t->text, "\"dropped_events\":");
	assert_non_null(p);
	assert_int_equal(strtoull(p + strlen("\"dropped_events\":"), NULL, 10),
			 total - 6);
	unload(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_transfer_and_launch_is_on_its_replica, setup, teardown),
		cmocka_unit_test_setup_teardown(test_transfers_carry_bytes_and_rates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spans_nest_and_follow_one_another, setup, teardown),
		cmocka_unit_test_setup_teardown(test_launches_hold_their_ops_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_late_reap_keeps_ops_inside_their_launch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_completions_in_any_order_stay_inside_their_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_counters_follow_attach_and_detach_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_is_written_when_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipu_trace_names_the_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_an_existing_regular_file_is_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_failed_create_leaves_the_file_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_sessions_of_one_file_keep_both_traces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_paths_are_refused_clearly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_cap_counts_dropped_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_cap_counts_every_dropped_op, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_program_name_of_any_bytes_is_valid_utf8, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_traced_run_leaves_ipu_errmsg_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_past_the_last_numbered_name_a_session_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_file_spelled_two_ways_keeps_both_traces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_percent_p_is_the_pid, setup, teardown),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
