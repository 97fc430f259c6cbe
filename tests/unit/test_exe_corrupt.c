// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_exe_corrupt.c - the reader against damaged files: every byte of
 * small executables flipped, with the CRCs left as they were (the
 * checksums must catch it, unless the byte is padding no CRC covers) and
 * with the CRCs recomputed (the structural and semantic checks must catch
 * it or the file must still be a valid program); and every truncation.
 * Nothing may crash, leak or read out of bounds (the sanitizer and
 * valgrind runs of this test see to that).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exe_samples.h"
#include "ipu/exe.h"

struct file {
	uint8_t *buf;
	size_t len;
};

static struct file sample_file(enum exe_sample which)
{
	struct file f = { 0 };
	struct ipu_exe *e;
	char msg[512];

	assert_int_equal(exe_sample(which, &e, msg, sizeof(msg)), 0);
	assert_int_equal(ipu_exe_save(e, (void **)&f.buf, &f.len, msg,
				      sizeof(msg)), 0);
	ipu_exe_free(e);
	return f;
}

/* Whether byte @at of @f is covered by the header, a descriptor or a blob. */
static bool covered(const struct file *f, size_t at)
{
	struct ipu_exe_file_header h;

	memcpy(&h, f->buf, sizeof(h));
	if (at < sizeof(h) + h.num_blobs * sizeof(struct ipu_exe_blob_desc))
		return true;
	for (uint32_t i = 0; i < h.num_blobs; i++) {
		struct ipu_exe_blob_desc d;

		memcpy(&d, f->buf + sizeof(h) + i * sizeof(d), sizeof(d));
		if (at >= d.offset && at < d.offset + d.size)
			return true;
	}
	return false;
}

/*
 * Load @buf: it must fail with -EINVAL and a message, or succeed with an
 * executable that validates and saves again.
 */
static int load_cleanly(const uint8_t *buf, size_t len)
{
	struct ipu_exe *e = (void *)1;
	char msg[512];
	int ret = ipu_exe_load(buf, len, &e, msg, sizeof(msg));

	if (ret) {
		assert_int_equal(ret, -EINVAL);
		assert_null(e);
		assert_true(msg[0] != '\0');
		return ret;
	}
	assert_int_equal(ipu_exe_validate(e, msg, sizeof(msg)), 0);
	if (exe_resave_matches(e, msg, sizeof(msg)))
		fail_msg("%s", msg);
	ipu_exe_free(e);
	return 0;
}

static void flip_every_byte(enum exe_sample which, bool refresh,
			    const uint8_t *patterns, size_t npatterns)
{
	struct file f = sample_file(which);
	uint8_t *copy = malloc(f.len);
	size_t accepted = 0, rejected = 0;

	assert_non_null(copy);
	for (size_t at = 0; at < f.len; at++) {
		for (size_t p = 0; p < npatterns; p++) {
			memcpy(copy, f.buf, f.len);
			copy[at] ^= patterns[p];
			if (refresh)
				exe_refresh_crcs(copy, f.len);
			if (load_cleanly(copy, f.len)) {
				rejected++;
			} else {
				accepted++;
				/* Without fresh CRCs, only bytes outside
				 * every checked region may change. */
				if (!refresh)
					assert_false(covered(&f, at));
			}
		}
	}
	/* Most damage is caught; some (names, data) is still a program. */
	assert_true(rejected > accepted);
	free(copy);
	free(f.buf);
}

static const uint8_t all_bits[] = { 0xff };
static const uint8_t some_bits[] = { 0x01, 0x80, 0xff, 0x10 };

static void test_flipped_byte_fails_crc_or_is_padding(void **state)
{
	(void)state;
	flip_every_byte(SAMPLE_MLP, false, all_bits, 1);
}

static void test_flipped_byte_behind_fresh_crcs_mlp(void **state)
{
	(void)state;
	flip_every_byte(SAMPLE_MLP, true, some_bits, sizeof(some_bits));
}

static void test_flipped_byte_behind_fresh_crcs_loops(void **state)
{
	(void)state;
	flip_every_byte(SAMPLE_CALLS, true, some_bits, sizeof(some_bits));
}

static void test_flipped_byte_behind_fresh_crcs_groupings(void **state)
{
	(void)state;
	flip_every_byte(SAMPLE_TRAIN, true, some_bits, sizeof(some_bits));
}

static void test_flipped_byte_behind_fresh_crcs_mmap(void **state)
{
	(void)state;
	flip_every_byte(SAMPLE_MMAP, true, some_bits, sizeof(some_bits));
}

static void test_every_truncation_fails(void **state)
{
	struct file f = sample_file(SAMPLE_CALLS);

	(void)state;
	for (size_t len = 0; len < f.len; len++) {
		/* A copy of exactly @len bytes, so that ASan sees any read
		 * past it. */
		uint8_t *copy = malloc(len ? len : 1);

		memcpy(copy, f.buf, len);
		assert_int_equal(load_cleanly(copy, len), -EINVAL);
		free(copy);
	}
	assert_int_equal(load_cleanly(f.buf, f.len), 0);
	free(f.buf);
}

static void test_truncation_behind_fresh_header(void **state)
{
	struct file f = sample_file(SAMPLE_MLP);

	(void)state;
	/* Tell the truth about the size, so the checks behind it run. */
	for (size_t len = sizeof(struct ipu_exe_file_header); len < f.len;
	     len++) {
		uint8_t *copy = malloc(len);
		struct ipu_exe_file_header h;

		memcpy(copy, f.buf, len);
		memcpy(&h, copy, sizeof(h));
		h.file_size = len;
		memcpy(copy, &h, sizeof(h));
		exe_refresh_crcs(copy, len);
		assert_int_equal(load_cleanly(copy, len), -EINVAL);
		free(copy);
	}
	free(f.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flipped_byte_fails_crc_or_is_padding),
		cmocka_unit_test(test_flipped_byte_behind_fresh_crcs_mlp),
		cmocka_unit_test(test_flipped_byte_behind_fresh_crcs_loops),
		cmocka_unit_test(test_flipped_byte_behind_fresh_crcs_groupings),
		cmocka_unit_test(test_flipped_byte_behind_fresh_crcs_mmap),
		cmocka_unit_test(test_every_truncation_fails),
		cmocka_unit_test(test_truncation_behind_fresh_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
