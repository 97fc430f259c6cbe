// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_bringup_link.c - ipu-bringup's `dma` thresholds: the payload rate
 * of a PCIe link of every generation and width (encoding and TLP overhead
 * as docs/ipu-bringup.md says), sysfs's strings read as the kernel writes
 * them, a bad one refused naming its value, and PASS/WARN/FAIL at the
 * thresholds' edges.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "../userspace/tools/bringup_link.h"

/* Relative closeness: the rates are products of exact ratios. */
static void assert_close(double got, double want)
{
	double d = got - want;

	if ((d < 0 ? -d : d) > want * 1e-9)
		fail_msg("%.6f, expected %.6f", got, want);
}

static void test_every_generation_x1(void **state)
{
	/* GT/s x 10, generation, data bits per line bit, payload share. */
	static const struct {
		unsigned int speed, gen;
		double enc, tlp;
	} want[] = {
		{ 25, 1, 0.8, 256.0 / 280 }, { 50, 2, 0.8, 256.0 / 280 },
		{ 80, 3, 128.0 / 130, 256.0 / 280 },
		{ 160, 4, 128.0 / 130, 256.0 / 280 },
		{ 320, 5, 128.0 / 130, 256.0 / 280 },
		{ 640, 6, 236.0 / 256, 256.0 / 272 },
	};
	struct bu_link l;
	char msg[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(bu_link_rate(want[i].speed, 1, &l, msg, sizeof(msg)), 0);
		assert_int_equal(l.gen, want[i].gen);
		assert_close(l.encoding, want[i].enc);
		assert_close(l.raw, want[i].speed / 10.0 * 1e9 * want[i].enc / 8);
		assert_close(l.payload, l.raw * want[i].tlp);
	}
}

static void test_known_figures(void **state)
{
	struct bu_link l;
	char msg[128];

	(void)state;
	/* Gen1 x1: 250 MB/s after 8b/10b, the figure everyone quotes. */
	assert_int_equal(bu_link_rate(25, 1, &l, msg, sizeof(msg)), 0);
	assert_close(l.raw, 250e6);
	/* Gen3 x16: 15.75 GB/s; Gen4 x16 31.5 GB/s (128b/130b). */
	assert_int_equal(bu_link_rate(80, 16, &l, msg, sizeof(msg)), 0);
	assert_close(l.raw, 8e9 * 16 / 8 * 128 / 130);
	assert_true(l.raw > 15.75e9 && l.raw < 15.76e9);
	assert_int_equal(bu_link_rate(160, 16, &l, msg, sizeof(msg)), 0);
	assert_true(l.raw > 31.5e9 && l.raw < 31.51e9);
	/* ... of which 256 of 280 bytes are payload: 28.8 GB/s. */
	assert_true(l.payload > 28.80e9 && l.payload < 28.81e9);
	/* Gen2 x8: 4 GB/s raw. */
	assert_int_equal(bu_link_rate(50, 8, &l, msg, sizeof(msg)), 0);
	assert_close(l.raw, 4e9);
}

static void test_every_width_scales(void **state)
{
	static const unsigned int widths[] = { 1, 2, 4, 8, 12, 16, 32 };
	struct bu_link one, l;
	char msg[128];
	size_t i;

	(void)state;
	assert_int_equal(bu_link_rate(320, 1, &one, msg, sizeof(msg)), 0);
	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		assert_int_equal(bu_link_rate(320, widths[i], &l, msg, sizeof(msg)), 0);
		assert_int_equal(l.width, widths[i]);
		assert_close(l.payload, one.payload * widths[i]);
	}
}

static void test_bad_numbers_say_which(void **state)
{
	struct bu_link l;
	char msg[128];

	(void)state;
	assert_int_equal(bu_link_rate(0, 16, &l, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "link speed 0.0 GT/s is no PCIe generation (1 to 6)");
	assert_int_equal(bu_link_rate(1280, 16, &l, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "128.0 GT/s"));
	assert_int_equal(bu_link_rate(160, 3, &l, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "link width x3 is not one a PCIe link trains to");
	assert_int_equal(bu_link_rate(160, 0, &l, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "x0"));
	assert_close(l.payload + 1, 1);
}

static void test_sysfs_strings(void **state)
{
	static const struct {
		const char *speed;
		unsigned int tenths;
	} ok[] = {
		{ "2.5 GT/s PCIe", 25 }, { "5.0 GT/s PCIe", 50 },
		{ "8.0 GT/s PCIe", 80 }, { "16.0 GT/s PCIe", 160 },
		{ "32.0 GT/s PCIe", 320 }, { "64.0 GT/s PCIe", 640 },
		/* Kernels before 5.x: no "PCIe", whole numbers bare. */
		{ "2.5 GT/s", 25 }, { "5 GT/s", 50 }, { "8 GT/s", 80 },
	};
	struct bu_link l;
	char msg[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(bu_link_parse(ok[i].speed, "4", &l, msg, sizeof(msg)), 0);
		assert_int_equal(l.speed, ok[i].tenths);
		assert_int_equal(l.width, 4);
	}
}

static void test_bad_sysfs_values_are_quoted(void **state)
{
	static const char *const speeds[] = {
		"Unknown", "Unknown speed", "", "16.0", "16.x GT/s", "GT/s",
		"-8 GT/s", "16.0 GT/s PCIe junk",
	};
	static const char *const widths[] = { "", "x16", "16 ", "-1", "99", "abc" };
	struct bu_link l;
	char msg[128], want[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		assert_int_equal(bu_link_parse(speeds[i], "16", &l, msg, sizeof(msg)), -EINVAL);
		snprintf(want, sizeof(want), "current_link_speed is \"%s\", not a speed in GT/s",
			 speeds[i]);
		assert_string_equal(msg, want);
	}
	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		assert_int_equal(bu_link_parse("16.0 GT/s PCIe", widths[i], &l, msg,
					       sizeof(msg)), -EINVAL);
		/* Either read as no number, or a number no link has. */
		if (!strstr(msg, "not one a PCIe link trains to")) {
			snprintf(want, sizeof(want),
				 "current_link_width is \"%s\", not a lane count", widths[i]);
			assert_string_equal(msg, want);
		}
	}
	/* A speed of no generation, well formed. */
	assert_int_equal(bu_link_parse("128.0 GT/s PCIe", "16", &l, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "no PCIe generation"));
}

static void test_grades_at_the_edges(void **state)
{
	(void)state;
	assert_int_equal(bu_dma_grade(70, BU_DMA_PASS_PCT, BU_DMA_WARN_PCT), BU_PASS);
	assert_int_equal(bu_dma_grade(250, BU_DMA_PASS_PCT, BU_DMA_WARN_PCT), BU_PASS);
	assert_int_equal(bu_dma_grade(69.99, BU_DMA_PASS_PCT, BU_DMA_WARN_PCT), BU_WARN);
	assert_int_equal(bu_dma_grade(25, BU_DMA_PASS_PCT, BU_DMA_WARN_PCT), BU_WARN);
	assert_int_equal(bu_dma_grade(24.99, BU_DMA_PASS_PCT, BU_DMA_WARN_PCT), BU_FAIL);
	/* ipu-emu under TCG: 1.6 % of its Gen4 x16. */
	assert_int_equal(bu_dma_grade(1.6, BU_DMA_PASS_PCT, BU_DMA_WARN_PCT), BU_FAIL);
	assert_int_equal(bu_dma_grade(1.6, 0.2, 0.01), BU_PASS);
	/* A warning threshold of 0: never FAIL. */
	assert_int_equal(bu_dma_grade(0, 50, 0), BU_WARN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_generation_x1),
		cmocka_unit_test(test_known_figures),
		cmocka_unit_test(test_every_width_scales),
		cmocka_unit_test(test_bad_numbers_say_which),
		cmocka_unit_test(test_sysfs_strings),
		cmocka_unit_test(test_bad_sysfs_values_are_quoted),
		cmocka_unit_test(test_grades_at_the_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
