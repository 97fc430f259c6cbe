// SPDX-License-Identifier: GPL-2.0
/*
 * test_reset.c - IPU_IOCTL_RESET: counted, owner only, buffers survive (the
 * simulated IPU also keeps their contents).
 */
#include "ktest.h"

static void test_reset_increments_reset_count(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t before = kt_info(fd).reset_count;

	(void)state;
	assert_int_equal(kt_reset(fd), 0);
	assert_int_equal(kt_info(fd).reset_count, before + 1);
	assert_int_equal(kt_reset(fd), 0);
	assert_int_equal(kt_info(fd).reset_count, before + 2);
}

static void test_reset_count_is_per_device(void **state)
{
	int fd0 = kt_open_attached(0);
	int fd1 = kt_open(1);
	uint64_t before1 = kt_info(fd1).reset_count;

	(void)state;
	assert_int_equal(kt_reset(fd0), 0);
	assert_int_equal(kt_info(fd1).reset_count, before1);
}

static void test_reset_keeps_buffer_objects_and_their_contents(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t g = kt_granule(fd);
	struct ipu_bo_create bo;
	struct ipu_bo_info bi;
	uint8_t *src = kt_alloc(g), *dst = kt_alloc(g);

	(void)state;
	kt_bo(fd, g, &bo);
	kt_fill(src, g, 1);
	assert_int_equal(kt_write_bo(fd, bo.handle, 0, src, g), 0);
	assert_int_equal(kt_reset(fd), 0);
	assert_int_equal(kt_bo_info(fd, bo.handle, &bi), 0);
	assert_int_equal(bi.device_addr, bo.device_addr);
	assert_int_equal(kt_read_bo(fd, bo.handle, 0, dst, g), 0);
	assert_pattern(dst, g, 1);
	assert_int_equal(kt_info(fd).memory_used, g);
}

static void test_reset_keeps_the_attachment(void **state)
{
	int fd = kt_open_attached(0);

	(void)state;
	assert_int_equal(kt_reset(fd), 0);
	assert_int_equal(kt_attach(fd), -EALREADY);
	assert_int_equal(kt_info(fd).owner_pid, (uint32_t)getpid());
}

static void test_reset_without_attaching_is_eacces(void **state)
{
	int fd = kt_open(0);
	uint64_t before = kt_info(fd).reset_count;

	(void)state;
	assert_int_equal(kt_reset(fd), -EACCES);
	assert_int_equal(kt_info(fd).reset_count, before);
}

static void test_reset_after_detach_is_eacces(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t before = kt_info(fd).reset_count;

	(void)state;
	assert_int_equal(kt_detach(fd), 0);
	assert_int_equal(kt_reset(fd), -EACCES);
	assert_int_equal(kt_info(fd).reset_count, before);
}

static void test_reset_from_a_file_that_is_not_owner_is_eacces(void **state)
{
	int owner = kt_open_attached(0);
	int other = kt_open(0);
	uint64_t before = kt_info(owner).reset_count;

	(void)state;
	assert_int_equal(kt_reset(other), -EACCES);
	assert_int_equal(kt_info(owner).reset_count, before);
}

static void test_reset_with_unknown_flags_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t before = kt_info(fd).reset_count;
	struct ipu_reset r = { .flags = 1 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_RESET, &r), -EINVAL);
	r.flags = 1u << 31;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_RESET, &r), -EINVAL);
	assert_int_equal(kt_info(fd).reset_count, before);
}

static void test_reset_with_nonzero_pad_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t before = kt_info(fd).reset_count;
	struct ipu_reset r = { .pad = 1 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_RESET, &r), -EINVAL);
	assert_int_equal(kt_info(fd).reset_count, before);
}

static void test_reset_with_null_argument_is_efault(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t before = kt_info(fd).reset_count;

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_RESET, NULL), -EFAULT);
	assert_int_equal(kt_info(fd).reset_count, before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_reset_increments_reset_count),
		KT_TEST(test_reset_count_is_per_device),
		KT_TEST(test_reset_keeps_buffer_objects_and_their_contents),
		KT_TEST(test_reset_keeps_the_attachment),
		KT_TEST(test_reset_without_attaching_is_eacces),
		KT_TEST(test_reset_after_detach_is_eacces),
		KT_TEST(test_reset_from_a_file_that_is_not_owner_is_eacces),
		KT_TEST(test_reset_with_unknown_flags_is_einval),
		KT_TEST(test_reset_with_nonzero_pad_is_einval),
		KT_TEST(test_reset_with_null_argument_is_efault),
	};

	return KT_RUN(tests);
}
