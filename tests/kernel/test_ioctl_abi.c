// SPDX-License-Identifier: GPL-2.0
/*
 * test_ioctl_abi.c - how every command treats the size and direction encoded
 * in its ioctl number, and commands the driver does not know.
 *
 * The header's rules: a struct smaller than v1 is -EINVAL; a larger one is
 * accepted when the bytes past v1 are zero (-E2BIG otherwise); bytes the
 * caller asks for beyond what the kernel knows come back zeroed; an unknown
 * command (number, type byte or direction) is -ENOTTY. Every call here is
 * otherwise valid (right state, right arguments), and where a call fails the
 * test also checks that it changed nothing.
 */
#include "ktest.h"

#define TAIL 8

/*
 * Issue @cmd with its size field set to @size; the argument buffer starts
 * with the @v1size bytes at @arg and continues with @tail (TAIL bytes, or
 * zeros when NULL). The first @v1size bytes are copied back to @arg and the
 * tail to @tail_out.
 */
static int call_sized(int fd, unsigned long cmd, void *arg, size_t v1size,
		      size_t size, const uint8_t *tail, uint8_t *tail_out)
{
	uint8_t buf[256];
	int ret;

	assert_true(size <= sizeof(buf) && v1size + TAIL <= sizeof(buf));
	memset(buf, 0, sizeof(buf));
	memcpy(buf, arg, v1size);
	if (tail)
		memcpy(buf + v1size, tail, TAIL);
	ret = kt_ioctl(fd, kt_resize(cmd, size), buf);
	memcpy(arg, buf, v1size);
	if (tail_out)
		memcpy(tail_out, buf + v1size, TAIL);
	return ret;
}

/* A tail whose only non-zero byte is the last: every byte must be checked. */
static const uint8_t nonzero_tail[TAIL] = { 0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t zero_tail[TAIL];

#define SMALLER(type) (sizeof(struct type) - 4)
#define LARGER(type) (sizeof(struct type) + TAIL)

static bool is_attached(int fd)
{
	return kt_info(fd).owner_pid == (uint32_t)getpid() &&
	       kt_attach(fd) == -EALREADY;
}

/* GET_INFO ---------------------------------------------------------------- */

static void test_get_info_smaller_than_v1_is_einval(void **state)
{
	int fd = kt_open(0);
	struct ipu_info info = { 0 };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_GET_INFO, &info, sizeof(info),
				    SMALLER(ipu_info), NULL, NULL), -EINVAL);
}

static void test_get_info_larger_works_and_zeroes_the_unknown_tail(void **state)
{
	int fd = kt_open(0);
	struct ipu_info info = { 0 };
	uint8_t tail[TAIL];

	(void)state;
	memset(tail, 0xa5, sizeof(tail));
	assert_int_equal(call_sized(fd, IPU_IOCTL_GET_INFO, &info, sizeof(info),
				    LARGER(ipu_info), tail, tail), 0);
	assert_int_equal(info.api_version, IPU_API_VERSION);
	assert_zeroed(tail, sizeof(tail));
}

/* ATTACH ------------------------------------------------------------------ */

static void test_attach_smaller_than_v1_is_einval(void **state)
{
	int fd = kt_open(0);
	struct ipu_attach a = { 0 };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_ATTACH, &a, sizeof(a),
				    SMALLER(ipu_attach), NULL, NULL), -EINVAL);
	assert_int_equal(kt_info(fd).owner_pid, 0);
}

static void test_attach_of_size_zero_is_einval(void **state)
{
	int fd = kt_open(0);
	struct ipu_attach a = { 0 };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_ATTACH, &a, sizeof(a), 0,
				    NULL, NULL), -EINVAL);
	assert_int_equal(kt_info(fd).owner_pid, 0);
}

static void test_attach_larger_with_nonzero_tail_is_e2big(void **state)
{
	int fd = kt_open(0);
	struct ipu_attach a = { 0 };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_ATTACH, &a, sizeof(a),
				    LARGER(ipu_attach), nonzero_tail, NULL),
			 -E2BIG);
	assert_int_equal(kt_info(fd).owner_pid, 0);
}

static void test_attach_larger_with_zero_tail_works(void **state)
{
	int fd = kt_open(0);
	struct ipu_attach a = { 0 };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_ATTACH, &a, sizeof(a),
				    LARGER(ipu_attach), zero_tail, NULL), 0);
	assert_true(is_attached(fd));
}

/* DETACH ------------------------------------------------------------------ */

static void test_detach_smaller_than_v1_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_detach d = { 0 };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_DETACH, &d, sizeof(d),
				    SMALLER(ipu_detach), NULL, NULL), -EINVAL);
	assert_true(is_attached(fd));
}

static void test_detach_larger_with_nonzero_tail_is_e2big(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_detach d = { 0 };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_DETACH, &d, sizeof(d),
				    LARGER(ipu_detach), nonzero_tail, NULL),
			 -E2BIG);
	assert_true(is_attached(fd));
}

static void test_detach_larger_with_zero_tail_works(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_detach d = { 0 };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_DETACH, &d, sizeof(d),
				    LARGER(ipu_detach), zero_tail, NULL), 0);
	assert_int_equal(kt_info(fd).owner_pid, 0);
}

/* BO_CREATE --------------------------------------------------------------- */

static void test_bo_create_smaller_than_v1_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_create c = { .size = kt_granule(fd) };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_BO_CREATE, &c, sizeof(c),
				    SMALLER(ipu_bo_create), NULL, NULL),
			 -EINVAL);
	assert_int_equal(kt_info(fd).memory_used, 0);
}

static void test_bo_create_larger_with_nonzero_tail_is_e2big(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_create c = { .size = kt_granule(fd) };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_BO_CREATE, &c, sizeof(c),
				    LARGER(ipu_bo_create), nonzero_tail, NULL),
			 -E2BIG);
	assert_int_equal(kt_info(fd).memory_used, 0);
}

static void test_bo_create_larger_with_zero_tail_works(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t g = kt_granule(fd);
	struct ipu_bo_create c = { .size = g };
	struct ipu_bo_info bi;
	uint8_t tail[TAIL];

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_BO_CREATE, &c, sizeof(c),
				    LARGER(ipu_bo_create), zero_tail, tail), 0);
	assert_int_not_equal(c.handle, 0);
	assert_int_equal(c.size, g);
	assert_zeroed(tail, sizeof(tail));
	assert_int_equal(kt_bo_info(fd, c.handle, &bi), 0);
	assert_int_equal(kt_info(fd).memory_used, g);
}

/* BO_DESTROY -------------------------------------------------------------- */

static void test_bo_destroy_smaller_than_v1_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_destroy d = { .handle = kt_bo(fd, kt_granule(fd), NULL) };
	struct ipu_bo_info bi;

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_BO_DESTROY, &d, sizeof(d),
				    SMALLER(ipu_bo_destroy), NULL, NULL),
			 -EINVAL);
	assert_int_equal(kt_bo_info(fd, d.handle, &bi), 0);
}

static void test_bo_destroy_larger_with_nonzero_tail_is_e2big(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_destroy d = { .handle = kt_bo(fd, kt_granule(fd), NULL) };
	struct ipu_bo_info bi;

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_BO_DESTROY, &d, sizeof(d),
				    LARGER(ipu_bo_destroy), nonzero_tail, NULL),
			 -E2BIG);
	assert_int_equal(kt_bo_info(fd, d.handle, &bi), 0);
}

static void test_bo_destroy_larger_with_zero_tail_works(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_destroy d = { .handle = kt_bo(fd, kt_granule(fd), NULL) };
	struct ipu_bo_info bi;

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_BO_DESTROY, &d, sizeof(d),
				    LARGER(ipu_bo_destroy), zero_tail, NULL), 0);
	assert_int_equal(kt_bo_info(fd, d.handle, &bi), -ENOENT);
	assert_int_equal(kt_info(fd).memory_used, 0);
}

/* BO_INFO ----------------------------------------------------------------- */

static void test_bo_info_smaller_than_v1_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_info i = { .handle = kt_bo(fd, kt_granule(fd), NULL) };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_BO_INFO, &i, sizeof(i),
				    SMALLER(ipu_bo_info), NULL, NULL), -EINVAL);
}

static void test_bo_info_larger_with_nonzero_tail_is_e2big(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_info i = { .handle = kt_bo(fd, kt_granule(fd), NULL) };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_BO_INFO, &i, sizeof(i),
				    LARGER(ipu_bo_info), nonzero_tail, NULL),
			 -E2BIG);
}

static void test_bo_info_larger_with_zero_tail_works_and_zeroes_it(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t g = kt_granule(fd);
	struct ipu_bo_create c;
	struct ipu_bo_info i = { .handle = kt_bo(fd, g, &c) };
	uint8_t tail[TAIL];

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_BO_INFO, &i, sizeof(i),
				    LARGER(ipu_bo_info), zero_tail, tail), 0);
	assert_int_equal(i.size, g);
	assert_int_equal(i.device_addr, c.device_addr);
	assert_int_equal(i.mmap_offset, c.mmap_offset);
	assert_zeroed(tail, sizeof(tail));
}

/* XFER -------------------------------------------------------------------- */

static void xfer_arg(int fd, struct ipu_xfer *x, void *buf, uint64_t len)
{
	memset(x, 0, sizeof(*x));
	x->handle = kt_bo(fd, kt_granule(fd), NULL);
	x->user_ptr = (uintptr_t)buf;
	x->length = len;
	x->flags = IPU_XFER_TO_DEVICE;
}

static void test_xfer_smaller_than_v1_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	uint8_t src[64], back[64];
	struct ipu_xfer x;

	(void)state;
	kt_fill(src, sizeof(src), 1);
	xfer_arg(fd, &x, src, sizeof(src));
	assert_int_equal(call_sized(fd, IPU_IOCTL_XFER, &x, sizeof(x),
				    SMALLER(ipu_xfer), NULL, NULL), -EINVAL);
	assert_int_equal(kt_read_bo(fd, x.handle, 0, back, sizeof(back)), 0);
	assert_zeroed(back, sizeof(back));
}

static void test_xfer_larger_with_nonzero_tail_is_e2big(void **state)
{
	int fd = kt_open_attached(0);
	uint8_t src[64], back[64];
	struct ipu_xfer x;

	(void)state;
	kt_fill(src, sizeof(src), 2);
	xfer_arg(fd, &x, src, sizeof(src));
	assert_int_equal(call_sized(fd, IPU_IOCTL_XFER, &x, sizeof(x),
				    LARGER(ipu_xfer), nonzero_tail, NULL),
			 -E2BIG);
	assert_int_equal(kt_read_bo(fd, x.handle, 0, back, sizeof(back)), 0);
	assert_zeroed(back, sizeof(back));
}

static void test_xfer_larger_with_zero_tail_works(void **state)
{
	int fd = kt_open_attached(0);
	uint8_t src[64], back[64];
	struct ipu_xfer x;

	(void)state;
	kt_fill(src, sizeof(src), 3);
	xfer_arg(fd, &x, src, sizeof(src));
	assert_int_equal(call_sized(fd, IPU_IOCTL_XFER, &x, sizeof(x),
				    LARGER(ipu_xfer), zero_tail, NULL), 0);
	assert_int_equal(kt_read_bo(fd, x.handle, 0, back, sizeof(back)), 0);
	assert_pattern(back, sizeof(back), 3);
}

/* RESET ------------------------------------------------------------------- */

static void test_reset_smaller_than_v1_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t before = kt_info(fd).reset_count;
	struct ipu_reset r = { 0 };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_RESET, &r, sizeof(r),
				    SMALLER(ipu_reset), NULL, NULL), -EINVAL);
	assert_int_equal(kt_info(fd).reset_count, before);
}

static void test_reset_larger_with_nonzero_tail_is_e2big(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t before = kt_info(fd).reset_count;
	struct ipu_reset r = { 0 };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_RESET, &r, sizeof(r),
				    LARGER(ipu_reset), nonzero_tail, NULL),
			 -E2BIG);
	assert_int_equal(kt_info(fd).reset_count, before);
}

static void test_reset_larger_with_zero_tail_works(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t before = kt_info(fd).reset_count;
	struct ipu_reset r = { 0 };

	(void)state;
	assert_int_equal(call_sized(fd, IPU_IOCTL_RESET, &r, sizeof(r),
				    LARGER(ipu_reset), zero_tail, NULL), 0);
	assert_int_equal(kt_info(fd).reset_count, before + 1);
}

/* Unknown commands -------------------------------------------------------- */

static void test_unknown_command_number_is_enotty(void **state)
{
	int fd = kt_open_attached(0);
	uint8_t buf[64] = { 0 };

	(void)state;
	/* The first free number, the reserved range, the uring range. */
	assert_int_equal(kt_ioctl(fd, _IOWR(IPU_IOCTL_TYPE, 0x0c, struct ipu_attach), buf), -ENOTTY);
	assert_int_equal(kt_ioctl(fd, _IOWR(IPU_IOCTL_TYPE, 0x1f, struct ipu_attach), buf), -ENOTTY);
	assert_int_equal(kt_ioctl(fd, _IOWR(IPU_IOCTL_TYPE, 0x20, struct ipu_xfer), buf), -ENOTTY);
	assert_int_equal(kt_ioctl(fd, _IOWR(IPU_IOCTL_TYPE, 0xff, struct ipu_attach), buf), -ENOTTY);
}

static void test_known_number_with_wrong_type_byte_is_enotty(void **state)
{
	int fd = kt_open(0);
	struct ipu_info info = { 0 };
	struct ipu_attach a = { 0 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, _IOR(IPU_IOCTL_TYPE + 1, 0x00, struct ipu_info), &info), -ENOTTY);
	assert_int_equal(kt_ioctl(fd, _IOR(IPU_IOCTL_TYPE - 1, 0x00, struct ipu_info), &info), -ENOTTY);
	assert_int_equal(kt_ioctl(fd, _IOW('i', 0x01, struct ipu_attach), &a), -ENOTTY);
	/* and none of them attached the file */
	assert_int_equal(kt_info(fd).owner_pid, 0);
}

static void test_get_info_with_write_direction_is_enotty(void **state)
{
	int fd = kt_open(0);
	struct ipu_info info = { 0 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, kt_redir(IPU_IOCTL_GET_INFO, _IOC_WRITE), &info), -ENOTTY);
	assert_int_equal(kt_ioctl(fd, kt_redir(IPU_IOCTL_GET_INFO, _IOC_READ | _IOC_WRITE), &info), -ENOTTY);
}

static void test_get_info_without_direction_is_enotty(void **state)
{
	int fd = kt_open(0);
	struct ipu_info info = { 0 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, kt_redir(IPU_IOCTL_GET_INFO, _IOC_NONE), &info), -ENOTTY);
	assert_int_equal(kt_ioctl(fd, _IO(IPU_IOCTL_TYPE, 0x00), &info), -ENOTTY);
}

static void test_attach_with_read_direction_is_enotty(void **state)
{
	int fd = kt_open(0);
	struct ipu_attach a = { 0 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, kt_redir(IPU_IOCTL_ATTACH, _IOC_READ), &a), -ENOTTY);
	assert_int_equal(kt_info(fd).owner_pid, 0);
}

static void test_bo_create_without_read_direction_is_enotty(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_bo_create c = { .size = kt_granule(fd) };

	(void)state;
	assert_int_equal(kt_ioctl(fd, kt_redir(IPU_IOCTL_BO_CREATE, _IOC_WRITE), &c), -ENOTTY);
	assert_int_equal(kt_info(fd).memory_used, 0);
}

static void test_xfer_with_read_write_direction_is_enotty(void **state)
{
	int fd = kt_open_attached(0);
	uint8_t src[64];
	struct ipu_xfer x;

	(void)state;
	kt_fill(src, sizeof(src), 4);
	xfer_arg(fd, &x, src, sizeof(src));
	assert_int_equal(kt_ioctl(fd, kt_redir(IPU_IOCTL_XFER, _IOC_READ | _IOC_WRITE), &x), -ENOTTY);
}

static void test_terminal_ioctl_is_enotty(void **state)
{
	int fd = kt_open(0);

	(void)state;
	assert_false(isatty(fd));
	assert_int_equal(kt_ioctl(fd, TIOCGWINSZ, &(char[64]){ 0 }), -ENOTTY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_get_info_smaller_than_v1_is_einval),
		KT_TEST(test_get_info_larger_works_and_zeroes_the_unknown_tail),
		KT_TEST(test_attach_smaller_than_v1_is_einval),
		KT_TEST(test_attach_of_size_zero_is_einval),
		KT_TEST(test_attach_larger_with_nonzero_tail_is_e2big),
		KT_TEST(test_attach_larger_with_zero_tail_works),
		KT_TEST(test_detach_smaller_than_v1_is_einval),
		KT_TEST(test_detach_larger_with_nonzero_tail_is_e2big),
		KT_TEST(test_detach_larger_with_zero_tail_works),
		KT_TEST(test_bo_create_smaller_than_v1_is_einval),
		KT_TEST(test_bo_create_larger_with_nonzero_tail_is_e2big),
		KT_TEST(test_bo_create_larger_with_zero_tail_works),
		KT_TEST(test_bo_destroy_smaller_than_v1_is_einval),
		KT_TEST(test_bo_destroy_larger_with_nonzero_tail_is_e2big),
		KT_TEST(test_bo_destroy_larger_with_zero_tail_works),
		KT_TEST(test_bo_info_smaller_than_v1_is_einval),
		KT_TEST(test_bo_info_larger_with_nonzero_tail_is_e2big),
		KT_TEST(test_bo_info_larger_with_zero_tail_works_and_zeroes_it),
		KT_TEST(test_xfer_smaller_than_v1_is_einval),
		KT_TEST(test_xfer_larger_with_nonzero_tail_is_e2big),
		KT_TEST(test_xfer_larger_with_zero_tail_works),
		KT_TEST(test_reset_smaller_than_v1_is_einval),
		KT_TEST(test_reset_larger_with_nonzero_tail_is_e2big),
		KT_TEST(test_reset_larger_with_zero_tail_works),
		KT_TEST(test_unknown_command_number_is_enotty),
		KT_TEST(test_known_number_with_wrong_type_byte_is_enotty),
		KT_TEST(test_get_info_with_write_direction_is_enotty),
		KT_TEST(test_get_info_without_direction_is_enotty),
		KT_TEST(test_attach_with_read_direction_is_enotty),
		KT_TEST(test_bo_create_without_read_direction_is_enotty),
		KT_TEST(test_xfer_with_read_write_direction_is_enotty),
		KT_TEST(test_terminal_ioctl_is_enotty),
	};

	return KT_RUN(tests);
}
