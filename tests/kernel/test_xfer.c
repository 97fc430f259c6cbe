// SPDX-License-Identifier: GPL-2.0
/*
 * test_xfer.c - IPU_IOCTL_XFER: data moves both ways, at any alignment and
 * across pages, and every malformed transfer is refused with the header's
 * error, moving nothing.
 */
#include "ktest.h"

#define BOGUS_HANDLE 0x7ffff00du

struct fixture {
	int fd;
	uint32_t handle;
	uint64_t size;
};

/* An attached file of ipu0 holding one buffer of 4 granules. */
static struct fixture setup(void)
{
	struct fixture f;

	f.fd = kt_open_attached(0);
	f.size = 4 * kt_granule(f.fd);
	f.handle = kt_bo(f.fd, f.size, NULL);
	return f;
}

/* The buffer must still be all zero (a refused transfer moved nothing). */
static void assert_bo_untouched(const struct fixture *f)
{
	uint8_t *buf = kt_alloc(f->size);

	assert_int_equal(kt_read_bo(f->fd, f->handle, 0, buf, f->size), 0);
	assert_zeroed(buf, f->size);
}

static int xfer_raw(int fd, struct ipu_xfer *x)
{
	return kt_ioctl(fd, IPU_IOCTL_XFER, x);
}

/* Success paths ----------------------------------------------------------- */

static void test_xfer_round_trip_of_a_whole_buffer(void **state)
{
	struct fixture f = setup();
	uint8_t *src = kt_alloc(f.size), *dst = kt_alloc(f.size);

	(void)state;
	kt_fill(src, f.size, 1);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, src, f.size), 0);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, dst, f.size), 0);
	assert_pattern(dst, f.size, 1);
}

static void test_xfer_to_device_touches_only_its_range(void **state)
{
	struct fixture f = setup();
	uint8_t *src = kt_alloc(f.size), *dst = kt_alloc(f.size);
	const uint64_t off = 1000, len = 3000;

	(void)state;
	kt_fill(src, len, 2);
	assert_int_equal(kt_write_bo(f.fd, f.handle, off, src, len), 0);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, dst, f.size), 0);
	assert_zeroed(dst, off);
	assert_pattern(dst + off, len, 2);
	assert_zeroed(dst + off + len, f.size - off - len);
}

static void test_xfer_from_device_writes_only_length_bytes(void **state)
{
	struct fixture f = setup();
	uint8_t *src = kt_alloc(f.size), *dst = kt_alloc(f.size);
	const uint64_t len = 777;

	(void)state;
	kt_fill(src, f.size, 3);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, src, f.size), 0);
	memset(dst, 0xcc, f.size);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 100, dst, len), 0);
	assert_int_equal(memcmp(dst, src + 100, len), 0);
	for (uint64_t i = len; i < f.size; i++)
		assert_int_equal(dst[i], 0xcc);
}

static void test_xfer_with_unaligned_user_pointer_works(void **state)
{
	struct fixture f = setup();
	uint8_t *src = kt_alloc(f.size + 64), *dst = kt_alloc(f.size + 64);
	const uint64_t len = 5000;

	(void)state;
	kt_fill(src + 3, len, 4);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, src + 3, len), 0);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, dst + 61, len), 0);
	assert_pattern(dst + 61, len, 4);
}

static void test_xfer_at_unaligned_bo_offset_works(void **state)
{
	struct fixture f = setup();
	uint8_t src[300], dst[300];

	(void)state;
	kt_fill(src, sizeof(src), 5);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 4093, src, sizeof(src)), 0);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 4093, dst, sizeof(dst)), 0);
	assert_pattern(dst, sizeof(dst), 5);
}

static void test_xfer_crossing_several_host_pages_works(void **state)
{
	struct fixture f = setup();
	size_t page = kt_page_size();
	uint8_t *src = kt_alloc(4 * page), *dst = kt_alloc(4 * page);
	/* starts 3 bytes before a page end, spans two whole pages and more */
	const uint64_t len = 2 * page + 3 + 17;
	uint8_t *s = src + page - 3, *d = dst + page - 7;

	(void)state;
	kt_fill(s, len, 6);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 11, s, len), 0);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 11, d, len), 0);
	assert_pattern(d, len, 6);
}

static void test_xfer_of_the_last_byte_works(void **state)
{
	struct fixture f = setup();
	uint8_t b = 0x5a, r = 0;

	(void)state;
	assert_int_equal(kt_write_bo(f.fd, f.handle, f.size - 1, &b, 1), 0);
	assert_int_equal(kt_read_bo(f.fd, f.handle, f.size - 1, &r, 1), 0);
	assert_int_equal(r, 0x5a);
}

static void test_xfer_of_all_device_memory_works(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t total = kt_info(fd).memory_total;
	uint8_t *src = kt_alloc(total), *dst = kt_alloc(total);
	uint32_t h = kt_bo(fd, total, NULL);

	(void)state;
	kt_fill(src, total, 7);
	assert_int_equal(kt_write_bo(fd, h, 0, src, total), 0);
	assert_int_equal(kt_read_bo(fd, h, 0, dst, total), 0);
	assert_pattern(dst, total, 7);
}

static void test_xfer_to_device_from_a_read_only_buffer_works(void **state)
{
	struct fixture f = setup();
	size_t page = kt_page_size();
	uint8_t *ro = kt_alloc(page), dst[128];

	(void)state;
	kt_fill(ro, page, 8);
	assert_int_equal(mprotect(ro, page, PROT_READ), 0);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, ro, sizeof(dst)), 0);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, dst, sizeof(dst)), 0);
	assert_pattern(dst, sizeof(dst), 8);
}

static void test_xfer_keeps_buffers_of_two_files_apart(void **state)
{
	int fd0 = kt_open_attached(0);
	int fd1 = kt_open_attached(1);
	uint64_t g = kt_granule(fd0);
	uint32_t h0 = kt_bo(fd0, g, NULL), h1 = kt_bo(fd1, g, NULL);
	uint8_t a[512], b[512];

	(void)state;
	kt_fill(a, sizeof(a), 9);
	assert_int_equal(kt_write_bo(fd0, h0, 0, a, sizeof(a)), 0);
	assert_int_equal(kt_read_bo(fd1, h1, 0, b, sizeof(b)), 0);
	assert_zeroed(b, sizeof(b));
}

/* Attachment -------------------------------------------------------------- */

static void test_xfer_without_attaching_is_eacces(void **state)
{
	int owner = kt_open_attached(0);
	uint32_t h = kt_bo(owner, kt_granule(owner), NULL);
	uint8_t buf[64] = { 1 };

	(void)state;
	/* the same file, detached: the buffer is valid, attachment is not */
	assert_int_equal(kt_detach(owner), 0);
	assert_int_equal(kt_write_bo(owner, h, 0, buf, sizeof(buf)), -EACCES);
	assert_int_equal(kt_read_bo(owner, h, 0, buf, sizeof(buf)), -EACCES);
}

static void test_xfer_while_another_file_is_attached_is_eacces(void **state)
{
	int first = kt_open_attached(0);
	uint32_t h = kt_bo(first, kt_granule(first), NULL);
	int second = kt_open(0);
	uint8_t buf[64] = { 1 };

	(void)state;
	assert_int_equal(kt_detach(first), 0);
	assert_int_equal(kt_attach(second), 0);
	/* the first file owns the buffer but not the device */
	assert_int_equal(kt_write_bo(first, h, 0, buf, sizeof(buf)), -EACCES);
}

/* Flags and reserved fields ----------------------------------------------- */

static void test_xfer_without_direction_is_einval(void **state)
{
	struct fixture f = setup();
	uint8_t buf[64];

	(void)state;
	kt_fill(buf, sizeof(buf), 10);
	assert_int_equal(kt_xfer(f.fd, f.handle, 0, buf, sizeof(buf), 0), -EINVAL);
	assert_bo_untouched(&f);
}

static void test_xfer_with_both_directions_is_einval(void **state)
{
	struct fixture f = setup();
	uint8_t buf[64];

	(void)state;
	kt_fill(buf, sizeof(buf), 11);
	assert_int_equal(kt_xfer(f.fd, f.handle, 0, buf, sizeof(buf),
				 IPU_XFER_TO_DEVICE | IPU_XFER_FROM_DEVICE),
			 -EINVAL);
	assert_bo_untouched(&f);
}

static void test_xfer_with_unknown_flag_is_einval(void **state)
{
	struct fixture f = setup();
	uint8_t buf[64];

	(void)state;
	kt_fill(buf, sizeof(buf), 12);
	assert_int_equal(kt_xfer(f.fd, f.handle, 0, buf, sizeof(buf),
				 IPU_XFER_TO_DEVICE | (1u << 2)), -EINVAL);
	assert_int_equal(kt_xfer(f.fd, f.handle, 0, buf, sizeof(buf),
				 IPU_XFER_TO_DEVICE | (1u << 31)), -EINVAL);
	assert_bo_untouched(&f);
}

static void test_xfer_with_nonzero_reserved_is_einval(void **state)
{
	struct fixture f = setup();
	uint8_t buf[64];
	struct ipu_xfer x = { .handle = f.handle, .length = sizeof(buf),
			      .user_ptr = (uintptr_t)buf,
			      .flags = IPU_XFER_TO_DEVICE, .reserved = 1 };

	(void)state;
	kt_fill(buf, sizeof(buf), 13);
	assert_int_equal(xfer_raw(f.fd, &x), -EINVAL);
	x.reserved = 1ull << 63;
	assert_int_equal(xfer_raw(f.fd, &x), -EINVAL);
	assert_bo_untouched(&f);
}

/* Ranges ------------------------------------------------------------------ */

static void test_xfer_of_zero_length_is_einval(void **state)
{
	struct fixture f = setup();
	uint8_t buf[64];

	(void)state;
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, buf, 0), -EINVAL);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, buf, 0), -EINVAL);
}

static void test_xfer_past_the_end_of_the_bo_is_einval(void **state)
{
	struct fixture f = setup();
	uint8_t *buf = kt_alloc(f.size + 1);

	(void)state;
	kt_fill(buf, f.size + 1, 14);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, buf, f.size + 1), -EINVAL);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 1, buf, f.size), -EINVAL);
	assert_int_equal(kt_read_bo(f.fd, f.handle, f.size - 1, buf, 2), -EINVAL);
	assert_bo_untouched(&f);
}

static void test_xfer_at_offset_past_the_end_is_einval(void **state)
{
	struct fixture f = setup();
	uint8_t buf[64];

	(void)state;
	kt_fill(buf, sizeof(buf), 15);
	assert_int_equal(kt_write_bo(f.fd, f.handle, f.size, buf, 1), -EINVAL);
	assert_int_equal(kt_write_bo(f.fd, f.handle, UINT64_MAX, buf, 1), -EINVAL);
	assert_bo_untouched(&f);
}

static void test_xfer_offset_plus_length_overflow_is_einval(void **state)
{
	struct fixture f = setup();
	uint8_t buf[64];
	/* offset + length wraps around to 64: inside the buffer if unchecked */
	const uint64_t len = sizeof(buf) + 128;
	const uint64_t off = UINT64_MAX - 127;

	(void)state;
	kt_fill(buf, sizeof(buf), 16);
	assert_int_equal(kt_write_bo(f.fd, f.handle, off, buf, len), -EINVAL);
	assert_int_equal(kt_read_bo(f.fd, f.handle, off, buf, len), -EINVAL);
	assert_bo_untouched(&f);
}

static void test_xfer_with_wrapping_user_range_is_refused(void **state)
{
	struct fixture f = setup();
	int err;

	(void)state;
	/*
	 * The header says the user range "must not wrap" without naming the
	 * error: a wrapped range is both invalid and not mapped.
	 */
	err = kt_xfer(f.fd, f.handle, 0, (void *)(uintptr_t)(UINT64_MAX - 100),
		      4096, IPU_XFER_TO_DEVICE);
	assert_true(err == -EFAULT || err == -EINVAL);
	err = kt_xfer(f.fd, f.handle, 0, (void *)(uintptr_t)(UINT64_MAX - 100),
		      4096, IPU_XFER_FROM_DEVICE);
	assert_true(err == -EFAULT || err == -EINVAL);
	assert_bo_untouched(&f);
}

/* Handles ----------------------------------------------------------------- */

static void test_xfer_to_unknown_handle_is_enoent(void **state)
{
	struct fixture f = setup();
	uint8_t buf[64] = { 1 };

	(void)state;
	assert_int_equal(kt_write_bo(f.fd, BOGUS_HANDLE, 0, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(kt_write_bo(f.fd, 0, 0, buf, sizeof(buf)), -ENOENT);
}

static void test_xfer_to_destroyed_handle_is_enoent(void **state)
{
	struct fixture f = setup();
	uint32_t h = kt_bo(f.fd, kt_granule(f.fd), NULL);
	uint8_t buf[64] = { 1 };

	(void)state;
	assert_int_equal(kt_bo_destroy(f.fd, h), 0);
	assert_int_equal(kt_write_bo(f.fd, h, 0, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(kt_read_bo(f.fd, h, 0, buf, sizeof(buf)), -ENOENT);
}

static void test_xfer_to_handle_of_another_file_is_enoent(void **state)
{
	int first = kt_open_attached(0);
	uint32_t h = kt_bo(first, kt_granule(first), NULL);
	int second = kt_open(0);
	uint8_t buf[64];

	(void)state;
	kt_fill(buf, sizeof(buf), 17);
	assert_int_equal(kt_detach(first), 0);
	assert_int_equal(kt_attach(second), 0);
	/* the second file is attached and holds no buffer */
	assert_int_equal(kt_write_bo(second, h, 0, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(kt_read_bo(second, h, 0, buf, sizeof(buf)), -ENOENT);
}

/* Host memory ------------------------------------------------------------- */

static void test_xfer_from_device_into_read_only_buffer_is_efault(void **state)
{
	struct fixture f = setup();
	size_t page = kt_page_size();
	uint8_t *ro = kt_alloc(page);

	(void)state;
	memset(ro, 0xcc, page);
	assert_int_equal(mprotect(ro, page, PROT_READ), 0);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, ro, 128), -EFAULT);
	for (size_t i = 0; i < page; i++)
		assert_int_equal(ro[i], 0xcc);
}

static void test_xfer_to_device_from_unmapped_buffer_is_efault(void **state)
{
	struct fixture f = setup();
	size_t page = kt_page_size();
	uint8_t *p = kt_alloc(page);

	(void)state;
	assert_int_equal(kt_munmap(p, page), 0);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, p, 128), -EFAULT);
	assert_bo_untouched(&f);
}

static void test_xfer_from_device_into_unmapped_buffer_is_efault(void **state)
{
	struct fixture f = setup();
	size_t page = kt_page_size();
	uint8_t *p = kt_alloc(page);

	(void)state;
	assert_int_equal(kt_munmap(p, page), 0);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, p, 128), -EFAULT);
}

static void test_xfer_running_into_an_unmapped_page_is_efault(void **state)
{
	struct fixture f = setup();
	size_t page = kt_page_size();
	uint8_t *p = kt_alloc(3 * page);

	(void)state;
	/* mapped, hole, mapped: a transfer over the hole fails as a whole */
	kt_fill(p, page, 18);
	assert_int_equal(munmap(p + page, page), 0);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, p + page - 16, 32), -EFAULT);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, p + page - 16, 32), -EFAULT);
}

static void test_xfer_with_null_user_pointer_is_efault(void **state)
{
	struct fixture f = setup();

	(void)state;
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, NULL, 64), -EFAULT);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, NULL, 64), -EFAULT);
}

static void test_xfer_with_null_argument_is_efault(void **state)
{
	struct fixture f = setup();

	(void)state;
	assert_int_equal(kt_ioctl(f.fd, IPU_IOCTL_XFER, NULL), -EFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_xfer_round_trip_of_a_whole_buffer),
		KT_TEST(test_xfer_to_device_touches_only_its_range),
		KT_TEST(test_xfer_from_device_writes_only_length_bytes),
		KT_TEST(test_xfer_with_unaligned_user_pointer_works),
		KT_TEST(test_xfer_at_unaligned_bo_offset_works),
		KT_TEST(test_xfer_crossing_several_host_pages_works),
		KT_TEST(test_xfer_of_the_last_byte_works),
		KT_TEST(test_xfer_of_all_device_memory_works),
		KT_TEST(test_xfer_to_device_from_a_read_only_buffer_works),
		KT_TEST(test_xfer_keeps_buffers_of_two_files_apart),
		KT_TEST(test_xfer_without_attaching_is_eacces),
		KT_TEST(test_xfer_while_another_file_is_attached_is_eacces),
		KT_TEST(test_xfer_without_direction_is_einval),
		KT_TEST(test_xfer_with_both_directions_is_einval),
		KT_TEST(test_xfer_with_unknown_flag_is_einval),
		KT_TEST(test_xfer_with_nonzero_reserved_is_einval),
		KT_TEST(test_xfer_of_zero_length_is_einval),
		KT_TEST(test_xfer_past_the_end_of_the_bo_is_einval),
		KT_TEST(test_xfer_at_offset_past_the_end_is_einval),
		KT_TEST(test_xfer_offset_plus_length_overflow_is_einval),
		KT_TEST(test_xfer_with_wrapping_user_range_is_refused),
		KT_TEST(test_xfer_to_unknown_handle_is_enoent),
		KT_TEST(test_xfer_to_destroyed_handle_is_enoent),
		KT_TEST(test_xfer_to_handle_of_another_file_is_enoent),
		KT_TEST(test_xfer_from_device_into_read_only_buffer_is_efault),
		KT_TEST(test_xfer_to_device_from_unmapped_buffer_is_efault),
		KT_TEST(test_xfer_from_device_into_unmapped_buffer_is_efault),
		KT_TEST(test_xfer_running_into_an_unmapped_page_is_efault),
		KT_TEST(test_xfer_with_null_user_pointer_is_efault),
		KT_TEST(test_xfer_with_null_argument_is_efault),
	};

	return KT_RUN(tests);
}
