// SPDX-License-Identifier: GPL-2.0
/*
 * test_trace_kparse.c - the pairing of ipu.ko's trace events in
 * `ipu-trace record` (userspace/tools/trace_kparse.c) on generated
 * tracefs lines: each end finds its begin by an index on (device, kind,
 * key), so the work per line does not grow with what is held (counted
 * in kt.probes: no time is measured), and what pairs is unchanged: first
 * in, first out among equal keys, a start joining its submit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../userspace/tools/trace_kparse.h"

static void line(struct ktrace *kt, unsigned long us, const char *ev,
		 const char *fields)
{
	char buf[512];

	snprintf(buf, sizeof(buf),
		 "  ipu-run-42 [001] .....  %lu.%06lu: %s: ipu0 %s\n",
		 us / 1000000, us % 1000000, ev, fields);
	ktrace_line(kt, buf);
}

static void xfer(struct ktrace *kt, unsigned long us, const char *ev,
		 unsigned int handle)
{
	char f[160];

	snprintf(f, sizeof(f),
		 "client=1 handle=%u bytes=4 dir=to_device path=ioctl result=0",
		 handle);
	line(kt, us, ev, f);
}

/*
 * The most held (KTRACE_MAX_PENDING submits never completed), then many
 * transfers that begin and end: each line looks at a few entries, not
 * at every one held.
 */
static void test_pairing_does_not_scan_what_is_held(void **state)
{
	FILE *f = fopen("/dev/null", "w");
	struct ktrace kt;
	unsigned long us = 1000000;
	unsigned int i;
	uint64_t lines;

	(void)state;
	assert_non_null(f);
	assert_int_equal(ktrace_init(&kt, f, false), 0);
	for (i = 0; i < KTRACE_MAX_PENDING - 1; i++)
		xfer(&kt, us++, "ipu_xfer_submit", 100000 + i);
	for (i = 0; i < 50000; i++) {
		xfer(&kt, us++, "ipu_xfer_submit", i % 7);
		xfer(&kt, us++, "ipu_xfer_start", i % 7);
		xfer(&kt, us++, "ipu_xfer_complete", i % 7);
	}
	lines = kt.lines;
	assert_int_equal(kt.spans, 50000);
	assert_int_equal(kt.malformed, 0);
	assert_int_equal(kt.overflow, 0);
	if (kt.probes > 4 * lines)
		fail_msg("%llu entries looked at for %llu lines: a scan",
			 (unsigned long long)kt.probes,
			 (unsigned long long)lines);
	ktrace_finish(&kt);
	assert_int_equal(kt.unpaired, KTRACE_MAX_PENDING - 1);
	fclose(f);
}

/* Equal keys pair first in, first out; a start joins the oldest submit. */
static void test_equal_keys_pair_in_order(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct ktrace kt;
	const char *p;

	(void)state;
	assert_non_null(f);
	assert_int_equal(ktrace_init(&kt, f, false), 0);
	xfer(&kt, 1000, "ipu_xfer_submit", 5);		/* A */
	xfer(&kt, 2000, "ipu_xfer_submit", 5);		/* B */
	xfer(&kt, 3000, "ipu_xfer_start", 5);		/* A starts */
	xfer(&kt, 4000, "ipu_xfer_complete", 5);	/* A: 3000..4000 */
	xfer(&kt, 5000, "ipu_xfer_start", 5);		/* B starts */
	xfer(&kt, 7000, "ipu_xfer_complete", 5);	/* B: 5000..7000 */
	xfer(&kt, 8000, "ipu_xfer_complete", 5);	/* none: unpaired */
	ktrace_finish(&kt);
	fclose(f);
	assert_int_equal(kt.spans, 2);
	assert_int_equal(kt.unpaired, 1);
	p = strstr(out, "\"ts\":3000.000,\"dur\":1000.000");
	assert_non_null(p);
	assert_non_null(strstr(p, "\"queued_us\":2000.000"));
	p = strstr(out, "\"ts\":5000.000,\"dur\":2000.000");
	assert_non_null(p);
	assert_non_null(strstr(p, "\"queued_us\":3000.000"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairing_does_not_scan_what_is_held),
		cmocka_unit_test(test_equal_keys_pair_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
