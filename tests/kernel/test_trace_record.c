// SPDX-License-Identifier: GPL-2.0
/*
 * test_trace_record.c - `ipu-trace record` as root in the guest: the demo
 * (mlp_train, two replicas on ipu0 and ipu1, ipu-simd as the firmware)
 * recorded with ipu.ko's trace events, the merged file then read back:
 * the kernel's launch spans lie inside the session's run spans (one
 * clock: tracefs's mono is the session's CLOCK_MONOTONIC), transfers are
 * there, tracefs's global knobs are as they were found (the recording
 * had its own instance) and the instance is gone. Skipped where the
 * module has no events/ipu (built without trace events), or where the
 * initramfs lacks ipu-trace or the demo.
 *
 * Both writers put one event on a line, so the file is read line by line
 * with plain string matching (the guest has no JSON library for tests).
 */
#include "kprog.h"
#include "ksimd.h"

#define TRACE_TOOL "/usr/bin/ipu-trace"
#define DEMO "/usr/bin/mlp_train"
#define OUT "/tmp/test_trace_record.json"
#define MAX_RUNS 4096

struct span {
	double ts, end;
};

/* "KEY": number in @line, or false. */
static bool num_of(const char *line, const char *key, double *v)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	if (!p)
		return false;
	*v = strtod(p + strlen(pat), NULL);
	return true;
}

/* The tracefs root the tool uses, for reading its knobs. */
static const char *tracefs(void)
{
	return access("/sys/kernel/tracing/trace_clock", F_OK) ?
	       "/sys/kernel/debug/tracing" : "/sys/kernel/tracing";
}

static void knob(const char *name, char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tracefs(), name);
	if (kt_read_file(path, buf, len) < 0)
		buf[0] = '\0';
}

/* Instances named as `record`'s (instances/ipu-trace-PID) in tracefs. */
static int record_instances(void)
{
	char path[256];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/instances", tracefs());
	d = opendir(path);
	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, "ipu-trace-", 10);
	if (d)
		closedir(d);
	return n;
}

static void test_record_the_demo_kernel_spans_inside_its_runs(void **state)
{
	const char *argv[] = { TRACE_TOOL, "record", "-o", OUT, "--", DEMO,
			       "--device", "ipu_hw", "--epochs", "1", NULL };
	static char out[65536], line[65536];
	static struct span runs[MAX_RUNS];
	char clock0[512], clock1[512], on0[16], on1[16];
	size_t n_runs = 0, launches = 0, xfers = 0, i;
	double ts, dur;
	FILE *f;
	int st;

	(void)state;
	if (access(TRACE_TOOL, X_OK) || access(DEMO, X_OK)) {
		print_message(TRACE_TOOL " or " DEMO " absent: skipped\n");
		kt_skip();
	}
	ks_require_simd();
	kt_require_dev(1);
	knob("trace_clock", clock0, sizeof(clock0));
	knob("tracing_on", on0, sizeof(on0));
	unlink(OUT);
	st = kt_run(argv, 0, out, sizeof(out));
	if (st == 2 && strstr(out, "events/ipu")) {
		print_message("ipu.ko without trace events: skipped (%s)\n", out);
		kt_skip();
	}
	if (st)
		fail_msg("ipu-trace record: exit status %d:\n%s", st, out);
	knob("trace_clock", clock1, sizeof(clock1));
	knob("tracing_on", on1, sizeof(on1));
	assert_string_equal(clock0, clock1);
	assert_string_equal(on0, on1);
	assert_int_equal(record_instances(), 0);

	f = fopen(OUT, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "\"name\":\"run\"") && strstr(line, "\"ph\":\"X\"") &&
		    num_of(line, "ts", &ts) && num_of(line, "dur", &dur) &&
		    n_runs < MAX_RUNS)
			runs[n_runs++] = (struct span){ ts, ts + dur };
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		bool launch = strstr(line, "\"name\":\"launch\"") != NULL;
		bool inside = false;

		if (!strstr(line, "\"cat\":\"kernel\"") ||
		    !strstr(line, "\"ph\":\"X\""))
			continue;
		if (strstr(line, "\"name\":\"xfer "))
			xfers++;
		if (!launch)
			continue;
		launches++;
		assert_true(num_of(line, "ts", &ts) && num_of(line, "dur", &dur));
		/* tracefs prints microseconds: a microsecond of rounding. */
		for (i = 0; i < n_runs && !inside; i++)
			inside = ts >= runs[i].ts - 1 && ts + dur <= runs[i].end + 1;
		if (!inside)
			fail_msg("a kernel launch span at %.3f us (%.3f us) lies in no run span:\n%s",
				 ts, dur, line);
	}
	fclose(f);
	print_message("%zu runs, %zu kernel launch spans, %zu transfer spans\n",
		      n_runs, launches, xfers);
	assert_true(n_runs > 0);
	assert_true(launches > 0);
	assert_true(xfers > 0);
	unlink(OUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KS_TEST(test_record_the_demo_kernel_spans_inside_its_runs),
	};

	return kt_exit_code(cmocka_run_group_tests(tests, kp_group_setup, NULL),
			    KT_ARRAY_SIZE(tests));
}
