// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_npy.c - the .npy reader and writer of ipu-run (userspace/tools/npy.h):
 * round trips of every dtype, the exact bytes np.save() writes, the format
 * versions and byte orders NumPy produces, and one test per way a file can
 * be malformed, each built from an otherwise valid file so that no earlier
 * check hides the one under test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../userspace/tools/npy.h"

#define VALID_DICT "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"

/* A .npy file: version @major.0, header @dict (newline added), then
 * @nbytes of data (a counting pattern). */
struct file {
	uint8_t *buf;
	size_t len;
};

static struct file make_file(unsigned int major, const char *dict,
			     size_t nbytes)
{
	size_t dlen = strlen(dict) + 1, pre = major == 1 ? 10 : 12;
	struct file f = { .len = pre + dlen + nbytes };

	f.buf = malloc(f.len);
	assert_non_null(f.buf);
	memcpy(f.buf, "\x93NUMPY", 6);
	f.buf[6] = (uint8_t)major;
	f.buf[7] = 0;
	for (size_t i = 0; i < pre - 8; i++)
		f.buf[8 + i] = (uint8_t)(dlen >> (8 * i));
	memcpy(f.buf + pre, dict, dlen - 1);
	f.buf[pre + dlen - 1] = '\n';
	for (size_t i = 0; i < nbytes; i++)
		f.buf[pre + dlen + i] = (uint8_t)i;
	return f;
}

/* @dict with 2 x 3 float32s: valid unless @dict is not. */
static struct file with_dict(const char *dict)
{
	return make_file(1, dict, 24);
}

static void expect_error(struct file f, int err, const char *what)
{
	struct npy_array a;
	char msg[512] = "";
	int ret = npy_parse(f.buf, f.len, &a, msg, sizeof(msg));

	free(f.buf);
	if (ret != err || !strstr(msg, what))
		fail_msg("got %d \"%s\"; expected %d and \"%s\"", ret, msg, err,
			 what);
	assert_null(a.data);
	assert_int_equal(a.ndim, 0);
}

static struct npy_array parse_ok(struct file f)
{
	struct npy_array a;
	char msg[512] = "";
	int ret = npy_parse(f.buf, f.len, &a, msg, sizeof(msg));

	free(f.buf);
	if (ret)
		fail_msg("npy_parse: %d: %s", ret, msg);
	return a;
}

/* ---------------------------------------------------------------------- */
/* What works                                                              */
/* ---------------------------------------------------------------------- */

static void test_valid_file_parses(void **state)
{
	struct npy_array a = parse_ok(with_dict(VALID_DICT));

	(void)state;
	assert_int_equal(a.dtype, IPU_DTYPE_FLOAT32);
	assert_int_equal(a.ndim, 2);
	assert_int_equal(a.shape[0], 2);
	assert_int_equal(a.shape[1], 3);
	assert_int_equal(a.count, 6);
	assert_int_equal(((uint8_t *)a.data)[5], 5);
	npy_free(&a);
}

static void test_round_trip_every_dtype(void **state)
{
	static const uint32_t dtypes[] = {
		IPU_DTYPE_FLOAT32, IPU_DTYPE_FLOAT64, IPU_DTYPE_FLOAT16,
		IPU_DTYPE_INT32, IPU_DTYPE_INT64, IPU_DTYPE_INT8,
		IPU_DTYPE_UINT8, IPU_DTYPE_BOOL, IPU_DTYPE_INT16,
		IPU_DTYPE_UINT16, IPU_DTYPE_UINT32,
	};

	(void)state;
	for (size_t t = 0; t < sizeof(dtypes) / sizeof(dtypes[0]); t++) {
		size_t size = ipu_dtype_size((int)dtypes[t]);
		uint8_t data[7 * 3 * 8];
		struct npy_array in = { .dtype = dtypes[t], .ndim = 2,
					.shape = { 7, 3 }, .count = 21,
					.data = data }, out;
		void *buf;
		size_t len;
		char msg[256];

		for (size_t i = 0; i < sizeof(data); i++)
			data[i] = dtypes[t] == IPU_DTYPE_BOOL ? (i & 1) :
								(uint8_t)(i * 37);
		assert_int_equal(npy_format(&in, &buf, &len, msg, sizeof(msg)), 0);
		/* np.save() aligns the data to 64 bytes. */
		assert_int_equal((len - 21 * size) % 64, 0);
		if (npy_parse(buf, len, &out, msg, sizeof(msg)))
			fail_msg("%s: %s", npy_descr(dtypes[t]), msg);
		assert_int_equal(out.dtype, dtypes[t]);
		assert_int_equal(out.ndim, 2);
		assert_int_equal(out.shape[0], 7);
		assert_int_equal(out.shape[1], 3);
		assert_memory_equal(out.data, data, 21 * size);
		npy_free(&out);
		free(buf);
	}
}

static void test_writes_what_np_save_writes(void **state)
{
	float v[6] = { 0, 1, 2, 3, 4, 5 };
	struct npy_array a = { .dtype = IPU_DTYPE_FLOAT32, .ndim = 2,
			       .shape = { 2, 3 }, .count = 6, .data = v };
	void *buf;
	size_t len;
	const char *p;

	(void)state;
	assert_int_equal(npy_format(&a, &buf, &len, NULL, 0), 0);
	/* numpy 1.24: np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)) */
	assert_int_equal(len, 128 + sizeof(v));
	p = buf;
	assert_memory_equal(p, "\x93NUMPY\x01\x00\x76\x00", 10);
	assert_memory_equal(p + 10, VALID_DICT, strlen(VALID_DICT));
	for (size_t i = 10 + strlen(VALID_DICT); i < 127; i++)
		assert_int_equal(p[i], ' ');
	assert_int_equal(p[127], '\n');
	assert_memory_equal(p + 128, v, sizeof(v));
	free(buf);
}

static void test_scalar_vector_and_empty_shapes(void **state)
{
	static const char *const dicts[] = {
		"{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
		"{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }",
		"{'descr': '<i8', 'fortran_order': False, 'shape': (0, 3), }",
	};
	static const uint64_t counts[] = { 1, 1, 0 };

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct npy_array a = parse_ok(make_file(1, dicts[i],
							8 * counts[i]));
		void *buf;
		size_t len;
		struct npy_array b;

		assert_int_equal(a.ndim, i);
		assert_int_equal(a.count, counts[i]);
		/* ...and back, through the writer. */
		assert_int_equal(npy_format(&a, &buf, &len, NULL, 0), 0);
		assert_int_equal(npy_parse(buf, len, &b, NULL, 0), 0);
		assert_int_equal(b.ndim, a.ndim);
		assert_int_equal(b.count, a.count);
		free(buf);
		npy_free(&b);
		npy_free(&a);
	}
}

static void test_versions_2_and_3(void **state)
{
	(void)state;
	for (unsigned int major = 2; major <= 3; major++) {
		struct npy_array a = parse_ok(make_file(major, VALID_DICT, 24));

		assert_int_equal(a.count, 6);
		npy_free(&a);
	}
}

static void test_big_endian_is_converted(void **state)
{
	struct npy_array a = parse_ok(make_file(1,
		"{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", 8));
	const int32_t *v;

	(void)state;
	v = a.data;
	/* Bytes 00 01 02 03 and 04 05 06 07, read most significant first. */
	assert_int_equal(v[0], 0x00010203);
	assert_int_equal(v[1], 0x04050607);
	npy_free(&a);
}

static void test_header_variants_numpy_wrote(void **state)
{
	/* Key order, double quotes, Python 2 longs, no trailing commas,
	 * single-byte types with any byte-order mark. */
	static const char *const dicts[] = {
		"{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}",
		"{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3,), }",
		"{'descr':'<f4','fortran_order':False,'shape':(2,3)}",
	};

	(void)state;
	for (int i = 0; i < 5; i++) {
		struct npy_array a = parse_ok(with_dict(dicts[i]));

		assert_int_equal(a.count, 6);
		npy_free(&a);
	}
	for (int i = 0; i < 3; i++) {
		static const char *const byte_dicts[] = {
			"{'descr': '<u1', 'fortran_order': False, 'shape': (3,), }",
			"{'descr': '>i1', 'fortran_order': False, 'shape': (3,), }",
			"{'descr': '=b1', 'fortran_order': False, 'shape': (3,), }",
		};
		struct npy_array a = parse_ok(make_file(1, byte_dicts[i], 3));

		npy_free(&a);
	}
}

static void test_bool_bytes_read_as_0_or_1(void **state)
{
	struct npy_array a = parse_ok(make_file(1,
		"{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", 4));
	static const uint8_t want[4] = { 0, 1, 1, 1 };

	(void)state;
	assert_int_equal(a.dtype, IPU_DTYPE_BOOL);
	assert_memory_equal(a.data, want, 4);
	npy_free(&a);
}

static void test_file_round_trip(void **state)
{
	char path[] = "/tmp/test_npy.XXXXXX";
	int16_t v[3] = { -1, 2, 3 };
	uint16_t h[3];
	struct npy_array a = { .dtype = IPU_DTYPE_FLOAT16, .ndim = 1,
			       .shape = { 3 }, .count = 3, .data = h }, b;
	char msg[512];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	for (int i = 0; i < 3; i++)
		h[i] = ipu_f32_to_f16((float)v[i]);
	assert_int_equal(npy_write_file(path, &a, msg, sizeof(msg)), 0);
	assert_int_equal(npy_read_file(path, &b, msg, sizeof(msg)), 0);
	assert_int_equal(b.dtype, IPU_DTYPE_FLOAT16);
	assert_memory_equal(b.data, h, sizeof(h));
	npy_free(&b);
	unlink(path);
}

static void test_shape_str(void **state)
{
	char buf[32];
	static const uint64_t s[3] = { 8, 2, 4 };

	(void)state;
	assert_string_equal(npy_shape_str(s, 0, buf, sizeof(buf)), "()");
	assert_string_equal(npy_shape_str(s, 1, buf, sizeof(buf)), "(8,)");
	assert_string_equal(npy_shape_str(s, 3, buf, sizeof(buf)), "(8, 2, 4)");
	assert_string_equal(npy_shape_str(s, 3, buf, 8), "(8,...)");
}

/* ---------------------------------------------------------------------- */
/* The preamble                                                            */
/* ---------------------------------------------------------------------- */

static void test_bad_magic(void **state)
{
	struct file f = with_dict(VALID_DICT);

	(void)state;
	f.buf[1] = 'X';
	expect_error(f, -EINVAL, "bad magic");
}

static void test_empty_file(void **state)
{
	struct file f = with_dict(VALID_DICT);

	(void)state;
	f.len = 0;
	expect_error(f, -EINVAL, "bad magic");
}

static void test_truncated_before_version(void **state)
{
	struct file f = with_dict(VALID_DICT);

	(void)state;
	f.len = 7;
	expect_error(f, -EINVAL, "before the version");
}

static void test_unknown_major_version(void **state)
{
	struct file f = with_dict(VALID_DICT);

	(void)state;
	f.buf[6] = 4;
	expect_error(f, -ENOTSUP, "unsupported format version 4.0");
}

static void test_unknown_minor_version(void **state)
{
	struct file f = with_dict(VALID_DICT);

	(void)state;
	f.buf[7] = 1;
	expect_error(f, -ENOTSUP, "unsupported format version 1.1");
}

static void test_truncated_before_header_length(void **state)
{
	struct file f = make_file(2, VALID_DICT, 24);

	(void)state;
	f.len = 10;
	expect_error(f, -EINVAL, "before the header length");
}

static void test_header_longer_than_file(void **state)
{
	struct file f = with_dict(VALID_DICT);

	(void)state;
	f.len = 40;
	expect_error(f, -EINVAL, "header truncated");
}

/* ---------------------------------------------------------------------- */
/* The header dict                                                         */
/* ---------------------------------------------------------------------- */

static void test_header_not_a_dict(void **state)
{
	(void)state;
	expect_error(with_dict("['descr', '<f4']"), -EINVAL,
		     "expected '{' at the start");
}

static void test_header_unterminated_string(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape"),
		     -EINVAL, "unterminated string");
}

static void test_header_escape_in_string(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f\\4', 'fortran_order': False, 'shape': (2, 3), }"),
		     -EINVAL, "unsupported character 0x5c");
}

static void test_header_key_not_a_string(void **state)
{
	(void)state;
	expect_error(with_dict("{descr: '<f4', 'fortran_order': False, 'shape': (2, 3), }"),
		     -EINVAL, "expected a quoted key");
}

static void test_header_unexpected_key(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1, }"),
		     -EINVAL, "unexpected key 'x'");
}

static void test_header_duplicate_key(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"),
		     -EINVAL, "key 'descr' appears twice");
}

static void test_header_missing_key(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'shape': (2, 3), }"),
		     -EINVAL, "lacks the key 'fortran_order'");
}

static void test_header_missing_colon(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr' '<f4', 'fortran_order': False, 'shape': (2, 3), }"),
		     -EINVAL, "expected ':' after a key");
}

static void test_header_missing_comma(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3), }"),
		     -EINVAL, "expected ',' between entries");
}

static void test_header_unclosed_dict(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), "),
		     -EINVAL, "expected a quoted key");
}

static void test_header_bad_bool(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }"),
		     -EINVAL, "expected True or False");
}

static void test_header_shape_not_a_tuple(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }"),
		     -EINVAL, "expected '(' to open the shape tuple");
}

static void test_header_shape_unclosed(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3 }"),
		     -EINVAL, "expected ',' between dimensions");
}

static void test_header_negative_dimension(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }"),
		     -EINVAL, "negative dimension");
}

static void test_header_dimension_not_a_number(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }"),
		     -EINVAL, "expected a dimension");
}

static void test_header_dimension_too_large(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551616,), }"),
		     -EOVERFLOW, "dimension too large");
}

static void test_header_one_dim_without_comma(void **state)
{
	(void)state;
	expect_error(make_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6), }", 24),
		     -EINVAL, "needs a trailing comma");
}

static void test_header_too_many_dimensions(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': "
			       "(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
			       "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 6), }"),
		     -ENOTSUP, "more than 32 dimensions");
}

static void test_header_junk_after_dict(void **state)
{
	(void)state;
	expect_error(with_dict(VALID_DICT " x"), -EINVAL,
		     "characters after the dict");
}

/* ---------------------------------------------------------------------- */
/* What the header says                                                    */
/* ---------------------------------------------------------------------- */

static void test_structured_dtype(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 3), }"),
		     -ENOTSUP, "structured dtypes are not supported");
}

static void test_unsupported_dtype(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }"),
		     -ENOTSUP, "unsupported dtype '<c8'");
	expect_error(with_dict("{'descr': '<f4x', 'fortran_order': False, 'shape': (2, 3), }"),
		     -ENOTSUP, "unsupported dtype '<f4x'");
	expect_error(with_dict("{'descr': '', 'fortran_order': False, 'shape': (2, 3), }"),
		     -ENOTSUP, "unsupported dtype ''");
}

static void test_multibyte_without_byte_order(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '|f4', 'fortran_order': False, 'shape': (2, 3), }"),
		     -ENOTSUP, "byte order '|' of a multi-byte type");
}

static void test_fortran_order(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }"),
		     -ENOTSUP, "only C order");
}

static void test_data_shorter_than_shape(void **state)
{
	(void)state;
	expect_error(make_file(1, VALID_DICT, 23), -EINVAL,
		     "data is 23 bytes, but shape (2, 3) of '<f4' needs 24");
}

static void test_data_longer_than_shape(void **state)
{
	(void)state;
	expect_error(make_file(1, VALID_DICT, 25), -EINVAL,
		     "data is 25 bytes, but shape (2, 3) of '<f4' needs 24");
}

static void test_shape_size_overflows(void **state)
{
	(void)state;
	expect_error(with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"),
		     -EOVERFLOW, "too large");
	expect_error(with_dict("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }"),
		     -EOVERFLOW, "too large");
}

static void test_parse_null_arguments(void **state)
{
	struct npy_array a;

	(void)state;
	assert_int_equal(npy_parse(NULL, 10, &a, NULL, 0), -EINVAL);
	assert_int_equal(npy_parse("x", 1, NULL, NULL, 0), -EINVAL);
}

/* ---------------------------------------------------------------------- */
/* Writing and files                                                       */
/* ---------------------------------------------------------------------- */

static void test_write_refuses_types_numpy_lacks(void **state)
{
	uint16_t v[2] = { 0 };
	struct npy_array a = { .dtype = IPU_DTYPE_BFLOAT16, .ndim = 1,
			       .shape = { 2 }, .count = 2, .data = v };
	void *buf = NULL;
	size_t len;
	char msg[256];

	(void)state;
	assert_int_equal(npy_format(&a, &buf, &len, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "bfloat16 has no NumPy equivalent"));
	a.dtype = IPU_DTYPE_FLOAT8_143;
	assert_int_equal(npy_format(&a, &buf, &len, msg, sizeof(msg)), -EINVAL);
	assert_null(buf);
}

static void test_write_refuses_inconsistent_arrays(void **state)
{
	float v[2] = { 0 };
	struct npy_array a = { .dtype = IPU_DTYPE_FLOAT32, .ndim = 1,
			       .shape = { 2 }, .count = 3, .data = v };
	void *buf = NULL;
	size_t len;
	char msg[256];

	(void)state;
	assert_int_equal(npy_format(&a, &buf, &len, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "3 elements, but the shape holds 2"));
	a.count = 2;
	a.data = NULL;
	assert_int_equal(npy_format(&a, &buf, &len, msg, sizeof(msg)), -EINVAL);
	a.data = v;
	a.ndim = NPY_MAX_DIMS + 1;
	assert_int_equal(npy_format(&a, &buf, &len, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(npy_format(NULL, &buf, &len, msg, sizeof(msg)), -EINVAL);
	assert_null(buf);
}

static void test_read_missing_file(void **state)
{
	struct npy_array a;
	char msg[512];

	(void)state;
	assert_int_equal(npy_read_file("/nonexistent/x.npy", &a, msg,
				       sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "/nonexistent/x.npy: cannot open"));
}

static void test_read_names_the_file(void **state)
{
	char path[] = "/tmp/test_npy.XXXXXX";
	struct npy_array a;
	char msg[512];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "garbage", 7), 7);
	close(fd);
	assert_int_equal(npy_read_file(path, &a, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, path));
	assert_non_null(strstr(msg, "bad magic"));
	unlink(path);
}

static void test_write_to_missing_directory(void **state)
{
	float v = 1;
	struct npy_array a = { .dtype = IPU_DTYPE_FLOAT32, .count = 1,
			       .data = &v };
	char msg[512];

	(void)state;
	assert_int_equal(npy_write_file("/nonexistent/y.npy", &a, msg,
					sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "/nonexistent/y.npy: cannot create"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_file_parses),
		cmocka_unit_test(test_round_trip_every_dtype),
		cmocka_unit_test(test_writes_what_np_save_writes),
		cmocka_unit_test(test_scalar_vector_and_empty_shapes),
		cmocka_unit_test(test_versions_2_and_3),
		cmocka_unit_test(test_big_endian_is_converted),
		cmocka_unit_test(test_header_variants_numpy_wrote),
		cmocka_unit_test(test_bool_bytes_read_as_0_or_1),
		cmocka_unit_test(test_file_round_trip),
		cmocka_unit_test(test_shape_str),
		cmocka_unit_test(test_bad_magic),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_truncated_before_version),
		cmocka_unit_test(test_unknown_major_version),
		cmocka_unit_test(test_unknown_minor_version),
		cmocka_unit_test(test_truncated_before_header_length),
		cmocka_unit_test(test_header_longer_than_file),
		cmocka_unit_test(test_header_not_a_dict),
		cmocka_unit_test(test_header_unterminated_string),
		cmocka_unit_test(test_header_escape_in_string),
		cmocka_unit_test(test_header_key_not_a_string),
		cmocka_unit_test(test_header_unexpected_key),
		cmocka_unit_test(test_header_duplicate_key),
		cmocka_unit_test(test_header_missing_key),
		cmocka_unit_test(test_header_missing_colon),
		cmocka_unit_test(test_header_missing_comma),
		cmocka_unit_test(test_header_unclosed_dict),
		cmocka_unit_test(test_header_bad_bool),
		cmocka_unit_test(test_header_shape_not_a_tuple),
		cmocka_unit_test(test_header_shape_unclosed),
		cmocka_unit_test(test_header_negative_dimension),
		cmocka_unit_test(test_header_dimension_not_a_number),
		cmocka_unit_test(test_header_dimension_too_large),
		cmocka_unit_test(test_header_one_dim_without_comma),
		cmocka_unit_test(test_header_too_many_dimensions),
		cmocka_unit_test(test_header_junk_after_dict),
		cmocka_unit_test(test_structured_dtype),
		cmocka_unit_test(test_unsupported_dtype),
		cmocka_unit_test(test_multibyte_without_byte_order),
		cmocka_unit_test(test_fortran_order),
		cmocka_unit_test(test_data_shorter_than_shape),
		cmocka_unit_test(test_data_longer_than_shape),
		cmocka_unit_test(test_shape_size_overflows),
		cmocka_unit_test(test_parse_null_arguments),
		cmocka_unit_test(test_write_refuses_types_numpy_lacks),
		cmocka_unit_test(test_write_refuses_inconsistent_arrays),
		cmocka_unit_test(test_read_missing_file),
		cmocka_unit_test(test_read_names_the_file),
		cmocka_unit_test(test_write_to_missing_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
