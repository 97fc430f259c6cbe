// SPDX-License-Identifier: GPL-2.0
/*
 * test_uring_errors.c - every way an io_uring command on /dev/ipuN is
 * refused, each as the CQE's result of one command that is valid but for
 * the one thing under test: malformed payloads (reserved bits, flags,
 * sizes, ranges that wrap), payload sizes encoded in cmd_op, unknown
 * cmd_ops, a ring without SQE128, handles of another file or destroyed,
 * and the launch's own argument checks. None may leave a kernel warning
 * (the rig scans dmesg).
 */
#include "kuring.h"


/* A valid transfer to a fresh BO of an attached ipu0, to spoil. */
struct xf {
	int fd;
	uint32_t h;
	size_t len;
	uint8_t *buf;
	struct io_uring_sqe *sqe;
	struct ipu_xfer *x;
};

static struct xf xf_valid(void)
{
	struct xf f;

	f.fd = kt_open_attached(0);
	f.len = kt_page_size();
	f.h = kt_bo(f.fd, f.len, NULL);
	f.buf = kt_alloc(f.len);
	f.sqe = ku_xfer(&ku_r, f.fd, f.h, 0, f.buf, f.len, IPU_XFER_TO_DEVICE, 0);
	f.x = ku_xfer_of(f.sqe);
	return f;
}

static void test_the_valid_transfer_succeeds(void **state)
{
	(void)state;
	xf_valid();
	assert_int_equal(ku_one(&ku_r), 0);
}

static void test_nonzero_reserved_is_einval(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.x->reserved = 1;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_no_direction_is_einval(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.x->flags = 0;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_both_directions_is_einval(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.x->flags = IPU_XFER_TO_DEVICE | IPU_XFER_FROM_DEVICE;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_an_unknown_flag_is_einval(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.x->flags |= 1u << 7;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_zero_length_is_einval(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.x->length = 0;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_a_range_past_the_bo_is_einval(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.x->bo_offset = 1;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_an_offset_that_wraps_is_einval(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.x->bo_offset = UINT64_MAX - 8;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_a_host_range_that_wraps_is_einval(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.x->user_ptr = UINT64_MAX - 8;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_a_payload_smaller_than_v1_is_einval(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.sqe->cmd_op = kt_resize(IPU_URING_CMD_XFER, sizeof(struct ipu_xfer) - 8);
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_a_larger_payload_with_zero_tail_is_accepted(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.sqe->cmd_op = kt_resize(IPU_URING_CMD_XFER, sizeof(struct ipu_xfer) + 16);
	assert_int_equal(ku_one(&ku_r), 0);
}

static void test_a_larger_payload_with_nonzero_tail_is_e2big(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.sqe->cmd_op = kt_resize(IPU_URING_CMD_XFER, sizeof(struct ipu_xfer) + 16);
	f.sqe->cmd[sizeof(struct ipu_xfer) + 3] = 1;
	assert_int_equal(ku_one(&ku_r), -E2BIG);
}

static void test_a_payload_past_the_command_area_is_einval(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.sqe->cmd_op = kt_resize(IPU_URING_CMD_XFER, KU_CMD_BYTES + 8);
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_an_unknown_cmd_op_is_enotty(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.sqe->cmd_op = _IOWR(IPU_IOCTL_TYPE, 0x2f, struct ipu_xfer);
	assert_int_equal(ku_one(&ku_r), -ENOTTY);
}

static void test_a_cmd_op_of_another_type_is_enotty(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.sqe->cmd_op = _IOWR(0x42, 0x20, struct ipu_xfer);
	assert_int_equal(ku_one(&ku_r), -ENOTTY);
}

static void test_a_cmd_op_with_another_direction_is_enotty(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.sqe->cmd_op = kt_redir(IPU_URING_CMD_XFER, _IOC_WRITE);
	assert_int_equal(ku_one(&ku_r), -ENOTTY);
}

static void test_the_xfer_ioctl_number_is_not_a_uring_command(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	f.sqe->cmd_op = IPU_IOCTL_XFER;
	assert_int_equal(ku_one(&ku_r), -ENOTTY);
}

static void test_a_ring_without_sqe128_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	size_t len = kt_page_size();
	uint32_t h = kt_bo(fd, len, NULL);
	struct io_uring small;

	(void)state;
	(void)h;
	ku_ring(&small, 4, true);
	/* No room for a payload: the kernel must not read past the SQE. */
	ku_sqe(&small, fd, IPU_URING_CMD_XFER, 0);
	assert_int_equal(ku_one(&small), -EINVAL);
	io_uring_queue_exit(&small);
}

static void test_a_bo_of_another_file_is_enoent(void **state)
{
	int a = kt_open_attached(0), b = kt_open(0);
	size_t len = kt_page_size();
	uint32_t h = kt_bo(a, len, NULL);
	uint8_t *buf = kt_alloc(len);

	(void)state;
	/* b owns the device now, but the handle is a's. */
	assert_int_equal(kt_detach(a), 0);
	assert_int_equal(kt_attach(b), 0);
	ku_xfer(&ku_r, b, h, 0, buf, len, IPU_XFER_TO_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), -ENOENT);
}

static void test_a_handle_after_bo_destroy_is_enoent(void **state)
{
	struct xf f = xf_valid();

	(void)state;
	assert_int_equal(kt_bo_destroy(f.fd, f.h), 0);
	assert_int_equal(ku_one(&ku_r), -ENOENT);
}

/* A valid launch SQE on an attached file (which holds two BOs). */
struct lf {
	int fd;
	struct io_uring_sqe *sqe;
	struct ipu_launch *l;
};

static struct lf lf_valid(unsigned int idx)
{
	struct lf f;
	uint64_t page = kt_page_size();

	f.fd = kt_open_attached(idx);
	f.sqe = ku_sqe(&ku_r, f.fd, IPU_URING_CMD_LAUNCH, 0);
	f.l = (struct ipu_launch *)f.sqe->cmd;
	f.l->exe_handle = kt_bo(f.fd, page, NULL);
	f.l->arena_handle = kt_bo(f.fd, page, NULL);
	f.l->exe_size = page;
	f.l->arena_size = page;
	f.l->num_replicas = 1;
	return f;
}

static void test_a_launch_with_the_fixed_flag_is_einval(void **state)
{
	struct iovec iov = { kt_alloc(kt_page_size()), kt_page_size() };
	struct lf f;

	(void)state;
	/* A registered buffer, so that io_uring itself lets it through. */
	assert_int_equal(io_uring_register_buffers(&ku_r, &iov, 1), 0);
	f = lf_valid(0);
	f.sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	f.sqe->buf_index = 0;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_a_launch_with_a_fence_is_einval(void **state)
{
	struct lf f = lf_valid(0);

	(void)state;
	f.l->fence = 1;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_a_launch_of_replica_past_the_count_is_einval(void **state)
{
	struct lf f = lf_valid(0);

	(void)state;
	f.l->replica = 1;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_a_replicated_launch_without_a_group_is_einval(void **state)
{
	struct lf f = lf_valid(0);

	(void)state;
	f.l->num_replicas = 2;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_a_misaligned_arena_is_einval(void **state)
{
	struct lf f = lf_valid(0);

	(void)state;
	f.l->arena_offset = 8;
	f.l->arena_size = 64;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_an_arena_past_its_bo_is_einval(void **state)
{
	struct lf f = lf_valid(0);

	(void)state;
	f.l->arena_offset = 64;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_an_empty_executable_is_einval(void **state)
{
	struct lf f = lf_valid(0);

	(void)state;
	f.l->exe_size = 0;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_unknown_launch_flags_are_einval(void **state)
{
	struct lf f = lf_valid(0);

	(void)state;
	/* Every bit no flag has (bit 0 is IPU_LAUNCH_PROFILE). */
	f.l->flags = ~IPU_LAUNCH_FLAGS_ALL;
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_the_lowest_unknown_launch_flag_is_einval(void **state)
{
	struct lf f = lf_valid(0);

	(void)state;
	f.l->flags = 1u << __builtin_ctz(~IPU_LAUNCH_FLAGS_ALL);
	assert_int_equal(ku_one(&ku_r), -EINVAL);
}

static void test_an_unknown_executable_handle_is_enoent(void **state)
{
	struct lf f = lf_valid(0);

	(void)state;
	f.l->exe_handle += 100;
	assert_int_equal(ku_one(&ku_r), -ENOENT);
}

static void test_a_launch_by_a_file_that_is_not_the_owner_is_eacces(void **state)
{
	struct lf f = lf_valid(0);

	(void)state;
	assert_int_equal(kt_detach(f.fd), 0);
	assert_int_equal(ku_one(&ku_r), -EACCES);
}

static void test_a_launch_on_a_device_without_firmware_is_eunatch(void **state)
{
	unsigned int idx;

	(void)state;
	kt_sim_only("a device no userspace firmware serves (-EUNATCH)");
	kt_require_sim_ctl();
	/* The guest's ipu-simd serves ipu0 and ipu1 only. */
	idx = kt_sim_add(1);
	lf_valid(idx);
	assert_int_equal(ku_one(&ku_r), -EUNATCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KU_TEST(test_the_valid_transfer_succeeds),
		KU_TEST(test_nonzero_reserved_is_einval),
		KU_TEST(test_no_direction_is_einval),
		KU_TEST(test_both_directions_is_einval),
		KU_TEST(test_an_unknown_flag_is_einval),
		KU_TEST(test_zero_length_is_einval),
		KU_TEST(test_a_range_past_the_bo_is_einval),
		KU_TEST(test_an_offset_that_wraps_is_einval),
		KU_TEST(test_a_host_range_that_wraps_is_einval),
		KU_TEST(test_a_payload_smaller_than_v1_is_einval),
		KU_TEST(test_a_larger_payload_with_zero_tail_is_accepted),
		KU_TEST(test_a_larger_payload_with_nonzero_tail_is_e2big),
		KU_TEST(test_a_payload_past_the_command_area_is_einval),
		KU_TEST(test_an_unknown_cmd_op_is_enotty),
		KU_TEST(test_a_cmd_op_of_another_type_is_enotty),
		KU_TEST(test_a_cmd_op_with_another_direction_is_enotty),
		KU_TEST(test_the_xfer_ioctl_number_is_not_a_uring_command),
		KU_TEST(test_a_ring_without_sqe128_is_einval),
		KU_TEST(test_a_bo_of_another_file_is_enoent),
		KU_TEST(test_a_handle_after_bo_destroy_is_enoent),
		KU_TEST(test_a_launch_with_the_fixed_flag_is_einval),
		KU_TEST(test_a_launch_with_a_fence_is_einval),
		KU_TEST(test_a_launch_of_replica_past_the_count_is_einval),
		KU_TEST(test_a_replicated_launch_without_a_group_is_einval),
		KU_TEST(test_a_misaligned_arena_is_einval),
		KU_TEST(test_an_arena_past_its_bo_is_einval),
		KU_TEST(test_an_empty_executable_is_einval),
		KU_TEST(test_unknown_launch_flags_are_einval),
		KU_TEST(test_the_lowest_unknown_launch_flag_is_einval),
		KU_TEST(test_an_unknown_executable_handle_is_enoent),
		KU_TEST(test_a_launch_by_a_file_that_is_not_the_owner_is_eacces),
		KU_TEST(test_a_launch_on_a_device_without_firmware_is_eunatch),
	};

	return KT_RUN(tests);
}
