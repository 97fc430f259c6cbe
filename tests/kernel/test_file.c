// SPDX-License-Identifier: GPL-2.0
/*
 * test_file.c - resources belong to the open file and die with it: closing
 * a file frees its buffer objects and its attachment, from any process,
 * with or without mappings; a dup()ed descriptor is the same file.
 */
#include "ktest.h"

static void test_closing_a_file_frees_its_buffer_objects(void **state)
{
	int fd = kt_open_attached(0);
	int observer = kt_open(0);
	uint64_t g = kt_granule(fd);

	(void)state;
	kt_bo(fd, g, NULL);
	kt_bo(fd, 5 * g, NULL);
	assert_int_equal(kt_info(observer).memory_used, 6 * g);
	assert_int_equal(kt_close(fd), 0);
	assert_int_equal(kt_info(observer).memory_used, 0);
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), 0);
}

static void test_closing_a_detached_file_frees_its_buffer_objects(void **state)
{
	int fd = kt_open_attached(0);
	int observer = kt_open(0);

	(void)state;
	kt_bo(fd, kt_granule(fd), NULL);
	assert_int_equal(kt_detach(fd), 0);
	assert_int_equal(kt_close(fd), 0);
	assert_int_equal(kt_info(observer).memory_used, 0);
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), 0);
}

static void test_closing_a_file_releases_its_attachment(void **state)
{
	int fd = kt_open_attached(0);
	int observer = kt_open(0);

	(void)state;
	assert_int_equal(kt_close(fd), 0);
	assert_int_equal(kt_info(observer).owner_pid, 0);
	assert_int_equal(kt_sysfs_u64(0, "owner_pid"), 0);
}

static void test_closing_a_file_leaves_other_files_buffers_alone(void **state)
{
	int first = kt_open_attached(0);
	int second = kt_open(0);
	uint64_t g = kt_granule(first);
	uint8_t buf[128], back[128];
	uint32_t h1, h2;

	(void)state;
	h1 = kt_bo(first, g, NULL);
	kt_fill(buf, sizeof(buf), 1);
	assert_int_equal(kt_write_bo(first, h1, 0, buf, sizeof(buf)), 0);
	assert_int_equal(kt_detach(first), 0);
	assert_int_equal(kt_attach(second), 0);
	h2 = kt_bo(second, 2 * g, NULL);
	assert_int_equal(kt_detach(second), 0);

	assert_int_equal(kt_close(second), 0);
	assert_int_equal(kt_info(first).memory_used, g);
	assert_int_equal(kt_attach(first), 0);
	assert_int_equal(kt_read_bo(first, h1, 0, back, sizeof(back)), 0);
	assert_pattern(back, sizeof(back), 1);
	(void)h2;
}

static void test_dup_shares_the_file_and_its_resources(void **state)
{
	int fd = kt_open_attached(0);
	int observer = kt_open(0);
	uint32_t h = kt_bo(fd, kt_granule(fd), NULL);
	struct ipu_bo_info bi;
	int copy = dup(fd);

	(void)state;
	assert_true(copy >= 0);
	kt_track(KT_FD)->fd = copy;
	assert_int_equal(kt_close(fd), 0);
	/* the file lives on through the copy */
	assert_int_equal(kt_attach(copy), -EALREADY);
	assert_int_equal(kt_bo_info(copy, h, &bi), 0);
	assert_int_equal(kt_close(copy), 0);
	assert_int_equal(kt_info(observer).memory_used, 0);
	assert_int_equal(kt_info(observer).owner_pid, 0);
}

static void test_exit_of_a_process_frees_its_files(void **state)
{
	int observer = kt_open(0);
	int ready[2], go[2];
	uint64_t g = kt_granule(observer);
	pid_t pid;

	(void)state;
	kt_pipe(ready);
	kt_pipe(go);
	pid = kt_fork();
	if (pid == 0) {
		struct ipu_bo_create bo;
		int fd = open(KT_NODE(0), O_RDWR | O_CLOEXEC);

		kt_child_check(fd >= 0, 10);
		kt_child_check(kt_attach(fd) == 0, 11);
		kt_child_check(kt_bo_create(fd, 2 * g, &bo) == 0, 12);
		kt_pipe_send(ready[1], 'r');
		kt_pipe_recv(go[0]);
		_exit(0); /* without closing anything */
	}
	assert_int_equal(kt_pipe_recv(ready[0]), 'r');
	assert_int_equal(kt_info(observer).memory_used, 2 * g);
	assert_int_equal(kt_info(observer).owner_pid, (uint32_t)pid);
	kt_pipe_send(go[1], 'g');
	kt_wait_ok(pid);
	assert_int_equal(kt_info(observer).memory_used, 0);
	assert_int_equal(kt_info(observer).owner_pid, 0);
}

static void test_killed_process_frees_its_files(void **state)
{
	int observer = kt_open(0);
	int ready[2];
	uint64_t g = kt_granule(observer);
	pid_t pid;
	int status;

	(void)state;
	kt_pipe(ready);
	pid = kt_fork();
	if (pid == 0) {
		struct ipu_bo_create bo;
		int fd = open(KT_NODE(0), O_RDWR | O_CLOEXEC);
		void *p;

		kt_child_check(fd >= 0, 10);
		kt_child_check(kt_attach(fd) == 0, 11);
		kt_child_check(kt_bo_create(fd, g, &bo) == 0, 12);
		p = mmap(NULL, g, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (off_t)bo.mmap_offset);
		kt_child_check(p != MAP_FAILED, 13);
		memset(p, 0x11, g);
		kt_pipe_send(ready[1], 'r');
		for (;;)
			pause();
	}
	assert_int_equal(kt_pipe_recv(ready[0]), 'r');
	assert_int_equal(kill(pid, SIGKILL), 0);
	status = kt_wait(pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(kt_info(observer).memory_used, 0);
	assert_int_equal(kt_info(observer).owner_pid, 0);
	assert_int_equal(kt_attach(observer), 0);
}

static void test_many_buffers_are_all_freed_on_close(void **state)
{
	int fd = kt_open_attached(0);
	int observer = kt_open(0);
	uint64_t g = kt_granule(fd);
	uint64_t total = kt_info(fd).memory_total;
	uint64_t n = total / g > 256 ? 256 : total / g;
	uint64_t i;

	(void)state;
	for (i = 0; i < n; i++)
		kt_bo(fd, g, NULL);
	assert_int_equal(kt_info(observer).memory_used, n * g);
	assert_int_equal(kt_close(fd), 0);
	assert_int_equal(kt_info(observer).memory_used, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_closing_a_file_frees_its_buffer_objects),
		KT_TEST(test_closing_a_detached_file_frees_its_buffer_objects),
		KT_TEST(test_closing_a_file_releases_its_attachment),
		KT_TEST(test_closing_a_file_leaves_other_files_buffers_alone),
		KT_TEST(test_dup_shares_the_file_and_its_resources),
		KT_TEST(test_exit_of_a_process_frees_its_files),
		KT_TEST(test_killed_process_frees_its_files),
		KT_TEST(test_many_buffers_are_all_freed_on_close),
	};

	return KT_RUN(tests);
}
