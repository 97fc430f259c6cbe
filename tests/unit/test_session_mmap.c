// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_mmap.c - memory-mapped variables with real files (S22):
 * writable ones are the host copy and get the device's values on
 * weights_to_host; read-only ones turn weights to host off (S05).
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session_helpers.h"

/* A temporary file holding @n floats @v; its path in @path. */
static void make_file(char *path, const float *v, size_t n)
{
	int fd;

	strcpy(path, "/tmp/ipu-session-mmap-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, v, n * sizeof(*v)), (ssize_t)(n * sizeof(*v)));
	close(fd);
}

static void read_file(const char *path, float *v, size_t n)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, v, n * sizeof(*v), 0), (ssize_t)(n * sizeof(*v)));
	close(fd);
}

/* The accumulator (n = 2) with w in @path; @groups per the grouping. */
static int mapped(const char *path, bool readonly, uint32_t replicas,
		  bool grouped, struct ipu_session **sp)
{
	struct ipu_replica_grouping g = { .stride = 1, .group_size = 1 };
	IPU_OPTS(ipu_ir_variable_opts, opts, .mmap_path = path,
		 .mmap_readonly = readonly, .grouping = grouped ? &g : NULL);
	IPU_OPTS(ipu_session_opts, sopts, .device = "ipu_model");

	return ipu_session_create(sh_acc_ir(replicas, 1, 2, &opts), &sopts, sp);
}

static void run_x(struct ipu_session *s, float x0, float *y)
{
	float x[2] = { x0, x0 };

	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));
}

static const uint64_t shape2 = 2;

static void test_S22_file_is_the_initial_value(void **state)
{
	const float v[2] = { 40, 50 }, want[2] = { 41, 51 };
	struct ipu_session *s;
	char path[64];
	float y[2], w[2];

	(void)state;
	make_file(path, v, 2);
	assert_int_equal(mapped(path, false, 1, false, &s), 0);
	sh_get_f32(s, "w", w, 1, &shape2);
	sh_assert_floats(w, v, 2);
	sh_attach(s);
	run_x(s, 1, y);
	sh_assert_floats(y, want, 2);
	ipu_session_destroy(s);
	unlink(path);
}

static void test_S22_weights_to_host_writes_the_file(void **state)
{
	const float v[2] = { 1, 1 }, want[2] = { 4, 4 };
	struct ipu_session *s;
	char path[64];
	float y[2], f[2];

	(void)state;
	make_file(path, v, 2);
	assert_int_equal(mapped(path, false, 1, false, &s), 0);
	sh_attach(s);
	run_x(s, 3, y);
	read_file(path, f, 2);
	sh_assert_floats(f, v, 2); /* not before weights_to_host */
	assert_int_equal(ipu_session_weights_to_host(s), 0);
	read_file(path, f, 2);
	sh_assert_floats(f, want, 2);
	/* Leaving the context keeps the file, and so does destroying. */
	run_x(s, 1, y);
	assert_int_equal(ipu_session_detach(s, 0), 0);
	ipu_session_destroy(s);
	read_file(path, f, 2);
	assert_true(f[0] == 5 && f[1] == 5);
	unlink(path);
}

static void test_S22_writes_go_to_the_file(void **state)
{
	const float v[2] = { 1, 2 };
	float nv[2] = { -3, -4 }, f[2];
	struct ipu_host_buffer b = sh_buf(nv, IPU_DTYPE_FLOAT32, 1, 2ull);
	struct ipu_session *s;
	char path[64];

	(void)state;
	make_file(path, v, 2);
	assert_int_equal(mapped(path, false, 1, false, &s), 0);
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), 0);
	read_file(path, f, 2);
	sh_assert_floats(f, nv, 2);
	ipu_session_destroy(s);
	unlink(path);
}

static void test_S22_grouped_file_holds_a_value_per_group(void **state)
{
	const float v[4] = { 1, 2, 10, 20 }, want[4] = { 2, 3, 12, 22 };
	struct ipu_session *s;
	float x[2][2] = { { 1, 1 }, { 2, 2 } }, y[2][2], f[4];
	char path[64];

	(void)state;
	make_file(path, v, 4);
	assert_int_equal(mapped(path, false, 2, true, &s), 0);
	sh_attach(s);
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull));
	assert_int_equal(ipu_session_detach(s, 0), 0);
	read_file(path, f, 4);
	sh_assert_floats(f, want, 4);
	ipu_session_destroy(s);
	unlink(path);
}

static void test_S22_missing_file(void **state)
{
	struct ipu_session *s;

	(void)state;
	assert_int_equal(mapped("/nonexistent-dir/w.bin", false, 1, false, &s),
			 -ENOENT);
	if (!strstr(ipu_session_errmsg(NULL),
		    "memory-mapped variable 'w': opening '/nonexistent-dir/w.bin' read-write"))
		fail_msg("%s", ipu_session_errmsg(NULL));
}

static void test_S22_short_file(void **state)
{
	const float v[1] = { 1 };
	struct ipu_session *s;
	char path[64];

	(void)state;
	make_file(path, v, 1);
	assert_int_equal(mapped(path, false, 1, false, &s), -EINVAL);
	if (!strstr(ipu_session_errmsg(NULL), "has 4 bytes, the variable needs 8 (1 value of 8 bytes)"))
		fail_msg("%s", ipu_session_errmsg(NULL));
	unlink(path);
}

/* ---------------------------------------------------------------------- */
/* S05: read-only mappings                                                 */
/* ---------------------------------------------------------------------- */

static void test_S05_read_only_mapping_disables_weights_to_host(void **state)
{
	const float v[2] = { 7, 8 };
	struct ipu_session *s;
	char path[64];
	float y[2], f[2], w[2];

	(void)state;
	make_file(path, v, 2);
	assert_true(chmod(path, 0400) == 0);
	assert_int_equal(mapped(path, true, 1, false, &s), 0);
	assert_false(s->to_host_on_exit);
	sh_attach(s);
	run_x(s, 1, y);
	assert_true(y[0] == 8 && y[1] == 9);
	assert_int_equal(ipu_session_weights_to_host(s), -EROFS);
	sh_assert_msg(s, "the program holds the read-only memory-mapped variable 'w'");
	/* As in PopXL, reading a variable then needs weights_to_host. */
	assert_int_equal(ipu_session_get_tensor_data(
				 s, "w", &(struct ipu_host_buffer){
						 .data = w,
						 .dtype = IPU_DTYPE_FLOAT32,
						 .ndim = 1,
						 .shape = { 2 } }),
			 -EROFS);
	/* Leaving does not try weights_to_host: no error. */
	assert_int_equal(ipu_session_detach(s, 0), 0);
	sh_get_f32(s, "w", w, 1, &shape2);
	sh_assert_floats(w, v, 2);
	read_file(path, f, 2);
	sh_assert_floats(f, v, 2);
	ipu_session_destroy(s);
	unlink(path);
}

static void test_S05_read_only_mapping_cannot_be_written(void **state)
{
	const float v[2] = { 7, 8 };
	float nv[2] = { 0, 0 };
	struct ipu_host_buffer b = sh_buf(nv, IPU_DTYPE_FLOAT32, 1, 2ull);
	struct ipu_session *s;
	char path[64];

	(void)state;
	make_file(path, v, 2);
	assert_int_equal(mapped(path, true, 1, false, &s), 0);
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), -EROFS);
	sh_assert_msg(s, "variable 'w' is a read-only memory-mapped file");
	ipu_session_destroy(s);
	unlink(path);
}

static void test_S05_read_only_mapping_with_exit_fetch_off(void **state)
{
	IPU_OPTS(ipu_ir_variable_opts, opts, .mmap_readonly = true);
	IPU_OPTS(ipu_session_opts, sopts, .device = "ipu_model",
		 .flags = IPU_SESSION_NO_WEIGHTS_TO_HOST_ON_EXIT);
	const float v[2] = { 7, 8 };
	struct ipu_session *s;
	char path[64];

	(void)state;
	make_file(path, v, 2);
	opts.mmap_path = path;
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, &opts), &sopts,
					    &s),
			 0);
	assert_false(s->to_host_on_exit);
	assert_ptr_equal(s->ro_mmap, &s->tensors[0]);
	ipu_session_destroy(s);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S22_file_is_the_initial_value),
		cmocka_unit_test(test_S22_weights_to_host_writes_the_file),
		cmocka_unit_test(test_S22_writes_go_to_the_file),
		cmocka_unit_test(test_S22_grouped_file_holds_a_value_per_group),
		cmocka_unit_test(test_S22_missing_file),
		cmocka_unit_test(test_S22_short_file),
		cmocka_unit_test(test_S05_read_only_mapping_disables_weights_to_host),
		cmocka_unit_test(test_S05_read_only_mapping_cannot_be_written),
		cmocka_unit_test(test_S05_read_only_mapping_with_exit_fetch_off),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
