// SPDX-License-Identifier: GPL-2.0
/*
 * test_uring_xfer.c - IPU_URING_CMD_XFER through a raw io_uring ring:
 * both directions, odd offsets and lengths, registered (fixed) buffers,
 * linked chains and their cancellation, several device files on one ring,
 * and the errors of the host side (-EFAULT) and of ownership (-EACCES).
 * What a transfer wrote is checked through the other path (the XFER
 * ioctl), so a test cannot pass by reading back its own mistake.
 */
#include "kuring.h"


static void test_h2d_lands_in_the_bo(void **state)
{
	int fd = kt_open_attached(0);
	size_t len = 3 * kt_page_size();
	uint32_t h = kt_bo(fd, len, NULL);
	uint8_t *src = kt_alloc(len), *back = kt_alloc(len);

	(void)state;
	kt_fill(src, len, 1);
	ku_xfer(&ku_r, fd, h, 0, src, len, IPU_XFER_TO_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), 0);
	assert_int_equal(kt_read_bo(fd, h, 0, back, len), 0);
	assert_pattern(back, len, 1);
}

static void test_d2h_reads_what_the_ioctl_wrote(void **state)
{
	int fd = kt_open_attached(0);
	size_t len = 2 * kt_page_size();
	uint32_t h = kt_bo(fd, len, NULL);
	uint8_t *src = kt_alloc(len), *dst = kt_alloc(len);

	(void)state;
	kt_fill(src, len, 2);
	assert_int_equal(kt_write_bo(fd, h, 0, src, len), 0);
	ku_xfer(&ku_r, fd, h, 0, dst, len, IPU_XFER_FROM_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), 0);
	assert_pattern(dst, len, 2);
}

/*
 * Issued inline, a transfer is pinned without faulting, 2 MiB at a time on
 * a simulated IPU: into a range whose first 2 MiB are present and the rest
 * not, the first chunk moves inline, the second cannot be pinned there,
 * and io_uring issues the whole transfer again from its worker, which
 * faults the rest in. All of it lands, once.
 */
static void test_d2h_into_memory_partly_not_present_lands_whole(void **state)
{
	size_t len = (3u << 20) + 5, half = 2u << 20;
	int fd = kt_open_attached(0);
	uint32_t h = kt_bo(fd, len, NULL);
	uint8_t *src = kt_alloc(len), *dst = kt_alloc(len);

	(void)state;
	kt_fill(src, len, 9);
	assert_int_equal(kt_write_bo(fd, h, 0, src, len), 0);
	memset(dst, 0xa5, half); /* present; the rest never touched */
	ku_xfer(&ku_r, fd, h, 0, dst, len, IPU_XFER_FROM_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), 0);
	assert_pattern(dst, len, 9);
}

static void test_odd_offsets_and_lengths_move_exactly_those_bytes(void **state)
{
	int fd = kt_open_attached(0);
	size_t page = kt_page_size(), len = 2 * page + 7;
	uint32_t h = kt_bo(fd, 4 * page, NULL);
	uint8_t *src = kt_alloc(4 * page), *back = kt_alloc(4 * page);

	(void)state;
	kt_fill(src + 3, len, 3);
	ku_xfer(&ku_r, fd, h, 5, src + 3, len, IPU_XFER_TO_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), 0);
	assert_int_equal(kt_read_bo(fd, h, 0, back, 4 * page), 0);
	assert_zeroed(back, 5);
	assert_pattern(back + 5, len, 3);
	assert_zeroed(back + 5 + len, 4 * page - 5 - len);
}

static void test_fixed_buffers_both_directions(void **state)
{
	int fd = kt_open_attached(0);
	size_t len = 2 * kt_page_size();
	uint32_t h = kt_bo(fd, len, NULL);
	uint8_t *a = kt_alloc(len + 4096), *b = kt_alloc(len);
	struct iovec iov[2] = { { a, len + 4096 }, { b, len } };
	struct io_uring_sqe *sqe;
	uint8_t *check = kt_alloc(len);
	int res[2];

	(void)state;
	assert_int_equal(io_uring_register_buffers(&ku_r, iov, 2), 0);
	kt_fill(a + 100, len, 4);
	/* Inside buffer 0, not at its start. */
	sqe = ku_xfer(&ku_r, fd, h, 0, a + 100, len, IPU_XFER_TO_DEVICE, 0);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 0;
	sqe->flags |= IOSQE_IO_LINK;
	sqe = ku_xfer(&ku_r, fd, h, 0, b, len, IPU_XFER_FROM_DEVICE, 1);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 1;
	ku_run(&ku_r, 2, res, 2);
	assert_int_equal(res[0], 0);
	assert_int_equal(res[1], 0);
	assert_pattern(b, len, 4);
	assert_int_equal(kt_read_bo(fd, h, 0, check, len), 0);
	assert_pattern(check, len, 4);
	assert_int_equal(io_uring_unregister_buffers(&ku_r), 0);
}

static void test_fixed_range_past_its_buffer_is_efault(void **state)
{
	int fd = kt_open_attached(0);
	size_t len = kt_page_size();
	uint32_t h = kt_bo(fd, 2 * len, NULL);
	uint8_t *a = kt_alloc(2 * len);
	struct iovec iov = { a, len };
	struct io_uring_sqe *sqe;

	(void)state;
	assert_int_equal(io_uring_register_buffers(&ku_r, &iov, 1), 0);
	sqe = ku_xfer(&ku_r, fd, h, 0, a + 8, len, IPU_XFER_TO_DEVICE, 0);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 0;
	assert_int_equal(ku_one(&ku_r), -EFAULT);
}

static void test_fixed_buf_index_not_registered_is_efault(void **state)
{
	int fd = kt_open_attached(0);
	size_t len = kt_page_size();
	uint32_t h = kt_bo(fd, len, NULL);
	uint8_t *a = kt_alloc(len);
	struct iovec iov = { a, len };
	struct io_uring_sqe *sqe;

	(void)state;
	assert_int_equal(io_uring_register_buffers(&ku_r, &iov, 1), 0);
	sqe = ku_xfer(&ku_r, fd, h, 0, a, len, IPU_XFER_TO_DEVICE, 0);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 5;
	assert_int_equal(ku_one(&ku_r), -EFAULT);
}

static void test_a_chain_runs_in_order(void **state)
{
	int fd = kt_open_attached(0);
	size_t len = kt_page_size();
	uint32_t h = kt_bo(fd, len, NULL);
	uint8_t *a = kt_alloc(len), *b = kt_alloc(len), *c = kt_alloc(len);
	struct io_uring_sqe *sqe;
	int res[3];

	(void)state;
	kt_fill(a, len, 5);
	kt_fill(c, len, 6);
	/* a -> BO -> b, then c -> BO: b must hold a's bytes, not c's. */
	sqe = ku_xfer(&ku_r, fd, h, 0, a, len, IPU_XFER_TO_DEVICE, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = ku_xfer(&ku_r, fd, h, 0, b, len, IPU_XFER_FROM_DEVICE, 1);
	sqe->flags |= IOSQE_IO_LINK;
	ku_xfer(&ku_r, fd, h, 0, c, len, IPU_XFER_TO_DEVICE, 2);
	ku_run(&ku_r, 3, res, 3);
	assert_int_equal(res[0], 0);
	assert_int_equal(res[1], 0);
	assert_int_equal(res[2], 0);
	assert_pattern(b, len, 5);
}

static void test_a_chain_stops_at_its_first_failure(void **state)
{
	int fd = kt_open_attached(0);
	size_t len = kt_page_size();
	uint32_t h = kt_bo(fd, len, NULL);
	uint8_t *a = kt_alloc(len), *b = kt_alloc(len);
	struct io_uring_sqe *sqe;
	int res[3];

	(void)state;
	kt_fill(a, len, 7);
	sqe = ku_xfer(&ku_r, fd, h, 0, a, len, IPU_XFER_TO_DEVICE, 0);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = ku_xfer(&ku_r, fd, h + 100, 0, a, len, IPU_XFER_TO_DEVICE, 1);
	sqe->flags |= IOSQE_IO_LINK;
	ku_xfer(&ku_r, fd, h, 0, b, len, IPU_XFER_FROM_DEVICE, 2);
	ku_run(&ku_r, 3, res, 3);
	assert_int_equal(res[0], 0);
	assert_int_equal(res[1], -ENOENT);
	assert_int_equal(res[2], -ECANCELED);
	assert_zeroed(b, len); /* never ran */
}

static void test_one_ring_carries_commands_of_two_device_files(void **state)
{
	int fd0 = kt_open_attached(0), fd1;
	size_t len = kt_page_size();
	uint32_t h0 = kt_bo(fd0, len, NULL), h1;
	uint8_t *a = kt_alloc(len), *b = kt_alloc(len), *back = kt_alloc(len);
	int res[2];

	(void)state;
	kt_require_dev(1);
	fd1 = kt_open_attached(1);
	h1 = kt_bo(fd1, len, NULL);
	kt_fill(a, len, 8);
	kt_fill(b, len, 9);
	ku_xfer(&ku_r, fd0, h0, 0, a, len, IPU_XFER_TO_DEVICE, 0);
	ku_xfer(&ku_r, fd1, h1, 0, b, len, IPU_XFER_TO_DEVICE, 1);
	ku_run(&ku_r, 2, res, 2);
	assert_int_equal(res[0], 0);
	assert_int_equal(res[1], 0);
	assert_int_equal(kt_read_bo(fd0, h0, 0, back, len), 0);
	assert_pattern(back, len, 8);
	assert_int_equal(kt_read_bo(fd1, h1, 0, back, len), 0);
	assert_pattern(back, len, 9);
}

static void test_xfer_of_a_file_that_is_not_the_owner_is_eacces(void **state)
{
	int fd = kt_open_attached(0);
	size_t len = kt_page_size();
	uint32_t h = kt_bo(fd, len, NULL);
	uint8_t *a = kt_alloc(len);

	(void)state;
	assert_int_equal(kt_detach(fd), 0);
	ku_xfer(&ku_r, fd, h, 0, a, len, IPU_XFER_TO_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), -EACCES);
}

static void test_a_host_range_without_access_is_efault(void **state)
{
	int fd = kt_open_attached(0);
	size_t len = kt_page_size();
	uint32_t h = kt_bo(fd, len, NULL);
	uint8_t *a = kt_no_access(len);

	(void)state;
	ku_xfer(&ku_r, fd, h, 0, a, len, IPU_XFER_TO_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), -EFAULT);
}

static void test_d2h_into_read_only_memory_is_efault(void **state)
{
	int fd = kt_open_attached(0);
	size_t len = kt_page_size();
	uint32_t h = kt_bo(fd, len, NULL);
	void *ro = kt_mmap(len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(ro != MAP_FAILED);
	ku_xfer(&ku_r, fd, h, 0, ro, len, IPU_XFER_FROM_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), -EFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KU_TEST(test_h2d_lands_in_the_bo),
		KU_TEST(test_d2h_reads_what_the_ioctl_wrote),
		KU_TEST(test_d2h_into_memory_partly_not_present_lands_whole),
		KU_TEST(test_odd_offsets_and_lengths_move_exactly_those_bytes),
		KU_TEST(test_fixed_buffers_both_directions),
		KU_TEST(test_fixed_range_past_its_buffer_is_efault),
		KU_TEST(test_fixed_buf_index_not_registered_is_efault),
		KU_TEST(test_a_chain_runs_in_order),
		KU_TEST(test_a_chain_stops_at_its_first_failure),
		KU_TEST(test_one_ring_carries_commands_of_two_device_files),
		KU_TEST(test_xfer_of_a_file_that_is_not_the_owner_is_eacces),
		KU_TEST(test_a_host_range_without_access_is_efault),
		KU_TEST(test_d2h_into_read_only_memory_is_efault),
	};

	return KT_RUN(tests);
}
