// SPDX-License-Identifier: GPL-2.0
/*
 * test_bo.c - buffer objects: IPU_IOCTL_BO_CREATE, BO_INFO, BO_DESTROY,
 * device memory accounting, ENOSPC, and zero-filling of new buffers.
 */
#include "ktest.h"

/* A handle no file has been given: far above anything a test creates. */
#define BOGUS_HANDLE 0x7ffff00du

/* BO_CREATE --------------------------------------------------------------- */

static void test_bo_create_returns_a_usable_buffer_object(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t g = kt_granule(fd);
	struct ipu_bo_create bo;

	(void)state;
	assert_int_equal(kt_bo_create(fd, 4 * g, &bo), 0);
	assert_int_not_equal(bo.handle, 0);
	assert_int_equal(bo.size, 4 * g);
	assert_int_equal(bo.flags, 0);
	assert_int_equal(bo.mmap_offset % kt_page_size(), 0);
}

static void test_bo_create_rounds_size_up_to_mem_page_size(void **state)
{
	int fd = kt_open_attached(0);
	uint32_t mps = kt_info(fd).mem_page_size;
	struct ipu_bo_create bo;
	struct ipu_bo_info bi;

	(void)state;
	assert_int_equal(kt_bo_create(fd, 1, &bo), 0);
	assert_int_equal(bo.size, mps);
	assert_int_equal(kt_bo_info(fd, bo.handle, &bi), 0);
	assert_int_equal(bi.size, mps);

	assert_int_equal(kt_bo_create(fd, mps + 1, &bo), 0);
	assert_int_equal(bo.size, 2 * (uint64_t)mps);
	assert_int_equal(kt_info(fd).memory_used, 3 * (uint64_t)mps);
}

static void test_bo_create_gives_distinct_handles_and_disjoint_memory(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t g = kt_granule(fd);
	struct ipu_bo_create bo[4];
	int i, j;

	(void)state;
	for (i = 0; i < 4; i++)
		assert_int_equal(kt_bo_create(fd, (i + 1) * g, &bo[i]), 0);
	for (i = 0; i < 4; i++) {
		assert_true(bo[i].device_addr + bo[i].size >= bo[i].device_addr);
		for (j = 0; j < i; j++) {
			assert_int_not_equal(bo[i].handle, bo[j].handle);
			assert_int_not_equal(bo[i].mmap_offset, bo[j].mmap_offset);
			/* device ranges do not overlap */
			assert_true(bo[i].device_addr + bo[i].size <= bo[j].device_addr ||
				    bo[j].device_addr + bo[j].size <= bo[i].device_addr);
			/* nor do the mmap ranges */
			assert_true(bo[i].mmap_offset + bo[i].size <= bo[j].mmap_offset ||
				    bo[j].mmap_offset + bo[j].size <= bo[i].mmap_offset);
		}
	}
}

static void test_bo_create_accounts_memory_used(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t g = kt_granule(fd);

	(void)state;
	kt_bo(fd, 2 * g, NULL);
	kt_bo(fd, 3 * g, NULL);
	assert_int_equal(kt_info(fd).memory_used, 5 * g);
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), 5 * g);
}

static void test_bo_create_without_attaching_is_eacces(void **state)
{
	int fd = kt_open(0);
	struct ipu_bo_create bo;

	(void)state;
	assert_int_equal(kt_bo_create(fd, kt_granule(fd), &bo), -EACCES);
	assert_int_equal(kt_info(fd).memory_used, 0);
}

static void test_bo_create_after_detach_is_eacces(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_create bo;

	(void)state;
	assert_int_equal(kt_detach(fd), 0);
	assert_int_equal(kt_bo_create(fd, kt_granule(fd), &bo), -EACCES);
}

static void test_bo_create_from_a_file_that_is_not_owner_is_eacces(void **state)
{
	int owner = kt_open_attached(0);
	int other = kt_open(0);
	struct ipu_bo_create bo;

	(void)state;
	(void)owner;
	assert_int_equal(kt_bo_create(other, kt_granule(other), &bo), -EACCES);
}

static void test_bo_create_of_zero_bytes_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_create bo;

	(void)state;
	assert_int_equal(kt_bo_create(fd, 0, &bo), -EINVAL);
	assert_int_equal(kt_info(fd).memory_used, 0);
}

static void test_bo_create_with_unknown_flags_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_create bo = { .size = kt_granule(fd), .flags = 1 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_BO_CREATE, &bo), -EINVAL);
	bo.flags = 1u << 31;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_BO_CREATE, &bo), -EINVAL);
	assert_int_equal(kt_info(fd).memory_used, 0);
}

static void test_bo_create_with_null_argument_is_efault(void **state)
{
	int fd = kt_open_attached(0);

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_BO_CREATE, NULL), -EFAULT);
	assert_int_equal(kt_info(fd).memory_used, 0);
}

static void test_bo_create_of_all_device_memory_works(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t total = kt_info(fd).memory_total;
	struct ipu_bo_create bo;

	(void)state;
	assert_int_equal(kt_bo_create(fd, total, &bo), 0);
	assert_int_equal(bo.size, total);
	assert_int_equal(kt_info(fd).memory_used, total);
}

static void test_bo_create_larger_than_device_memory_is_enospc(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_info info = kt_info(fd);
	struct ipu_bo_create bo;

	(void)state;
	assert_int_equal(kt_bo_create(fd, info.memory_total + info.mem_page_size, &bo),
			 -ENOSPC);
	assert_int_equal(kt_bo_create(fd, info.memory_total * 2, &bo), -ENOSPC);
	assert_int_equal(kt_info(fd).memory_used, 0);
}

static void test_bo_create_of_u64_max_bytes_is_enospc(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_create bo;

	(void)state;
	/* Rounding it up wraps; still no free range that large. */
	assert_int_equal(kt_bo_create(fd, UINT64_MAX, &bo), -ENOSPC);
	assert_int_equal(kt_bo_create(fd, UINT64_MAX - 4095, &bo), -ENOSPC);
	assert_int_equal(kt_info(fd).memory_used, 0);
}

static void test_bo_create_when_memory_is_full_is_enospc(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_info info = kt_info(fd);
	struct ipu_bo_create bo;

	(void)state;
	kt_bo(fd, info.memory_total - info.mem_page_size, NULL);
	kt_bo(fd, info.mem_page_size, NULL);
	assert_int_equal(kt_bo_create(fd, 1, &bo), -ENOSPC);
	assert_int_equal(kt_info(fd).memory_used, info.memory_total);
}

static void test_memory_freed_by_destroy_can_be_allocated_again(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t total = kt_info(fd).memory_total;
	uint32_t h;

	(void)state;
	h = kt_bo(fd, total, NULL);
	assert_int_equal(kt_bo_destroy(fd, h), 0);
	kt_bo(fd, total, NULL);
}

/* Zero-filling ------------------------------------------------------------ */

static void test_new_bo_is_zero_filled(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t len = 8 * kt_granule(fd);
	uint8_t *buf = kt_alloc(len);
	uint32_t h = kt_bo(fd, len, NULL);

	(void)state;
	memset(buf, 0xee, len);
	assert_int_equal(kt_read_bo(fd, h, 0, buf, len), 0);
	assert_zeroed(buf, len);
}

/* Fill all of device memory with a pattern through @fd; returns its size. */
static uint64_t dirty_all_memory(int fd, uint32_t *handle)
{
	uint64_t total = kt_info(fd).memory_total;
	uint8_t *buf = kt_alloc(total);
	uint32_t h = kt_bo(fd, total, NULL);

	kt_fill(buf, total, 77);
	assert_int_equal(kt_write_bo(fd, h, 0, buf, total), 0);
	*handle = h;
	return total;
}

static void assert_all_memory_zero(int fd, uint64_t total)
{
	uint8_t *buf = kt_alloc(total);
	uint32_t h = kt_bo(fd, total, NULL);

	memset(buf, 0xee, total);
	assert_int_equal(kt_read_bo(fd, h, 0, buf, total), 0);
	assert_zeroed(buf, total);
}

static void test_new_bo_never_shows_bytes_of_a_destroyed_one(void **state)
{
	int fd = kt_open_attached(0);
	uint32_t h;
	uint64_t total = dirty_all_memory(fd, &h);

	(void)state;
	assert_int_equal(kt_bo_destroy(fd, h), 0);
	assert_all_memory_zero(fd, total);
}

static void test_new_bo_never_shows_bytes_of_a_closed_file(void **state)
{
	int first = kt_open_attached(0);
	int second = kt_open(0);
	uint32_t h;
	uint64_t total = dirty_all_memory(first, &h);

	(void)state;
	assert_int_equal(kt_close(first), 0);
	assert_int_equal(kt_attach(second), 0);
	assert_all_memory_zero(second, total);
}

/*
 * A process killed while it creates and destroys buffers of all device
 * memory (each BO_CREATE clears the whole of it, a step at a time, and
 * stops between steps when the process is killed): it dies of the
 * signal, nothing stays allocated, and the device gives all its memory,
 * zeroed, to the next owner.
 */
static void test_killed_in_bo_create_of_all_memory_leaves_nothing(void **state)
{
	int observer = kt_open(0), ready[2], st;
	uint64_t total = kt_info(observer).memory_total;
	char node[32];
	pid_t pid;

	(void)state;
	kt_node(0, node, sizeof(node));
	kt_pipe(ready);
	pid = kt_fork();
	if (pid == 0) {
		struct ipu_attach at = { 0 };
		struct ipu_bo_create c;
		struct ipu_bo_destroy d;
		int fd = open(node, O_RDWR | O_CLOEXEC);

		kt_child_check(fd >= 0, 2);
		kt_child_check(!ioctl(fd, IPU_IOCTL_ATTACH, &at), 3);
		kt_pipe_send(ready[1], 'r');
		for (;;) {
			memset(&c, 0, sizeof(c));
			c.size = total;
			kt_child_check(!ioctl(fd, IPU_IOCTL_BO_CREATE, &c), 4);
			memset(&d, 0, sizeof(d));
			d.handle = c.handle;
			kt_child_check(!ioctl(fd, IPU_IOCTL_BO_DESTROY, &d), 5);
		}
	}
	kt_close(ready[1]);
	assert_int_equal(kt_pipe_recv(ready[0]), 'r');
	assert_int_equal(kill(pid, SIGKILL), 0);
	st = kt_wait(pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_int_equal(kt_info(observer).memory_used, 0);
	assert_int_equal(kt_info(observer).owner_pid, 0);
	assert_int_equal(kt_attach(observer), 0);
	assert_all_memory_zero(observer, total);
}

/* BO_INFO ----------------------------------------------------------------- */

static void test_bo_info_reports_what_bo_create_returned(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_create bo;
	struct ipu_bo_info bi;

	(void)state;
	kt_bo(fd, 3 * kt_granule(fd), &bo);
	assert_int_equal(kt_bo_info(fd, bo.handle, &bi), 0);
	assert_int_equal(bi.handle, bo.handle);
	assert_int_equal(bi.pad, 0);
	assert_int_equal(bi.size, bo.size);
	assert_int_equal(bi.device_addr, bo.device_addr);
	assert_int_equal(bi.mmap_offset, bo.mmap_offset);
}

static void test_bo_info_works_after_detach(void **state)
{
	int fd = kt_open_attached(0);
	uint32_t h = kt_bo(fd, kt_granule(fd), NULL);
	struct ipu_bo_info bi;

	(void)state;
	assert_int_equal(kt_detach(fd), 0);
	assert_int_equal(kt_bo_info(fd, h, &bi), 0);
}

static void test_bo_info_of_unknown_handle_is_enoent(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_info bi;

	(void)state;
	kt_bo(fd, kt_granule(fd), NULL);
	assert_int_equal(kt_bo_info(fd, BOGUS_HANDLE, &bi), -ENOENT);
	assert_int_equal(kt_bo_info(fd, UINT32_MAX, &bi), -ENOENT);
}

static void test_bo_info_of_handle_zero_is_enoent(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_info bi;

	(void)state;
	kt_bo(fd, kt_granule(fd), NULL);
	assert_int_equal(kt_bo_info(fd, 0, &bi), -ENOENT);
}

static void test_bo_info_of_destroyed_handle_is_enoent(void **state)
{
	int fd = kt_open_attached(0);
	uint32_t h = kt_bo(fd, kt_granule(fd), NULL);
	struct ipu_bo_info bi;

	(void)state;
	assert_int_equal(kt_bo_destroy(fd, h), 0);
	assert_int_equal(kt_bo_info(fd, h, &bi), -ENOENT);
}

static void test_bo_info_of_handle_from_another_file_is_enoent(void **state)
{
	int first = kt_open_attached(0);
	int second = kt_open(0);
	uint32_t h = kt_bo(first, kt_granule(first), NULL);
	struct ipu_bo_info bi;

	(void)state;
	/* the second file holds no buffer at all, so no handle is its */
	assert_int_equal(kt_bo_info(second, h, &bi), -ENOENT);
}

static void test_bo_info_with_nonzero_pad_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_info bi = { .handle = kt_bo(fd, kt_granule(fd), NULL),
				  .pad = 1 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_BO_INFO, &bi), -EINVAL);
}

/* BO_DESTROY -------------------------------------------------------------- */

static void test_bo_destroy_returns_memory(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t g = kt_granule(fd);
	uint32_t a = kt_bo(fd, g, NULL), b = kt_bo(fd, 2 * g, NULL);

	(void)state;
	assert_int_equal(kt_bo_destroy(fd, b), 0);
	assert_int_equal(kt_info(fd).memory_used, g);
	assert_int_equal(kt_bo_destroy(fd, a), 0);
	assert_int_equal(kt_info(fd).memory_used, 0);
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), 0);
}

static void test_bo_destroy_works_after_detach(void **state)
{
	int fd = kt_open_attached(0);
	uint32_t h = kt_bo(fd, kt_granule(fd), NULL);

	(void)state;
	assert_int_equal(kt_detach(fd), 0);
	assert_int_equal(kt_bo_destroy(fd, h), 0);
	assert_int_equal(kt_info(fd).memory_used, 0);
}

static void test_bo_destroy_of_destroyed_handle_is_enoent(void **state)
{
	int fd = kt_open_attached(0);
	uint32_t h = kt_bo(fd, kt_granule(fd), NULL);

	(void)state;
	kt_bo(fd, kt_granule(fd), NULL); /* the file still holds a buffer */
	assert_int_equal(kt_bo_destroy(fd, h), 0);
	assert_int_equal(kt_bo_destroy(fd, h), -ENOENT);
}

static void test_bo_destroy_of_unknown_handle_is_enoent(void **state)
{
	int fd = kt_open_attached(0);

	(void)state;
	kt_bo(fd, kt_granule(fd), NULL);
	assert_int_equal(kt_bo_destroy(fd, BOGUS_HANDLE), -ENOENT);
	assert_int_equal(kt_bo_destroy(fd, 0), -ENOENT);
	assert_int_equal(kt_info(fd).memory_used, kt_granule(fd));
}

static void test_bo_destroy_of_handle_from_another_file_is_enoent(void **state)
{
	int first = kt_open_attached(0);
	int second = kt_open(0);
	uint32_t h = kt_bo(first, kt_granule(first), NULL);
	struct ipu_bo_info bi;

	(void)state;
	assert_int_equal(kt_bo_destroy(second, h), -ENOENT);
	/* the first file's buffer is untouched */
	assert_int_equal(kt_bo_info(first, h, &bi), 0);
}

static void test_bo_destroy_with_nonzero_pad_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_destroy d = { .handle = kt_bo(fd, kt_granule(fd), NULL),
				    .pad = 1 };
	struct ipu_bo_info bi;

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_BO_DESTROY, &d), -EINVAL);
	assert_int_equal(kt_bo_info(fd, d.handle, &bi), 0);
}

/* Handles ----------------------------------------------------------------- */

static void test_handles_are_private_to_their_file(void **state)
{
	int first = kt_open_attached(0);
	int second = kt_open(0);
	uint64_t g = kt_granule(first);
	uint8_t buf[256];
	uint32_t h1, h2;

	(void)state;
	h1 = kt_bo(first, g, NULL);
	kt_fill(buf, sizeof(buf), 1);
	assert_int_equal(kt_write_bo(first, h1, 0, buf, sizeof(buf)), 0);
	assert_int_equal(kt_detach(first), 0);

	assert_int_equal(kt_attach(second), 0);
	h2 = kt_bo(second, g, NULL);
	/* whatever number it got, the second file's buffer is its own */
	assert_int_equal(kt_read_bo(second, h2, 0, buf, sizeof(buf)), 0);
	assert_zeroed(buf, sizeof(buf));
	kt_fill(buf, sizeof(buf), 2);
	assert_int_equal(kt_write_bo(second, h2, 0, buf, sizeof(buf)), 0);
	assert_int_equal(kt_detach(second), 0);

	assert_int_equal(kt_attach(first), 0);
	assert_int_equal(kt_read_bo(first, h1, 0, buf, sizeof(buf)), 0);
	assert_pattern(buf, sizeof(buf), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_bo_create_returns_a_usable_buffer_object),
		KT_TEST(test_bo_create_rounds_size_up_to_mem_page_size),
		KT_TEST(test_bo_create_gives_distinct_handles_and_disjoint_memory),
		KT_TEST(test_bo_create_accounts_memory_used),
		KT_TEST(test_bo_create_without_attaching_is_eacces),
		KT_TEST(test_bo_create_after_detach_is_eacces),
		KT_TEST(test_bo_create_from_a_file_that_is_not_owner_is_eacces),
		KT_TEST(test_bo_create_of_zero_bytes_is_einval),
		KT_TEST(test_bo_create_with_unknown_flags_is_einval),
		KT_TEST(test_bo_create_with_null_argument_is_efault),
		KT_TEST(test_bo_create_of_all_device_memory_works),
		KT_TEST(test_killed_in_bo_create_of_all_memory_leaves_nothing),
		KT_TEST(test_bo_create_larger_than_device_memory_is_enospc),
		KT_TEST(test_bo_create_of_u64_max_bytes_is_enospc),
		KT_TEST(test_bo_create_when_memory_is_full_is_enospc),
		KT_TEST(test_memory_freed_by_destroy_can_be_allocated_again),
		KT_TEST(test_new_bo_is_zero_filled),
		KT_TEST(test_new_bo_never_shows_bytes_of_a_destroyed_one),
		KT_TEST(test_new_bo_never_shows_bytes_of_a_closed_file),
		KT_TEST(test_bo_info_reports_what_bo_create_returned),
		KT_TEST(test_bo_info_works_after_detach),
		KT_TEST(test_bo_info_of_unknown_handle_is_enoent),
		KT_TEST(test_bo_info_of_handle_zero_is_enoent),
		KT_TEST(test_bo_info_of_destroyed_handle_is_enoent),
		KT_TEST(test_bo_info_of_handle_from_another_file_is_enoent),
		KT_TEST(test_bo_info_with_nonzero_pad_is_einval),
		KT_TEST(test_bo_destroy_returns_memory),
		KT_TEST(test_bo_destroy_works_after_detach),
		KT_TEST(test_bo_destroy_of_destroyed_handle_is_enoent),
		KT_TEST(test_bo_destroy_of_unknown_handle_is_enoent),
		KT_TEST(test_bo_destroy_of_handle_from_another_file_is_enoent),
		KT_TEST(test_bo_destroy_with_nonzero_pad_is_einval),
		KT_TEST(test_handles_are_private_to_their_file),
	};

	return KT_RUN(tests);
}
