// SPDX-License-Identifier: GPL-2.0
/*
 * test_uring_rw.c - what /dev/ipuN does not do is refused at once (issue
 * 25, item 10). The file has no read or write: data moves by XFER and
 * mmap. read(2) and write(2) fail EINVAL (the VFS's answer for a file
 * without them), and so must io_uring's READ, WRITE, READV and WRITEV,
 * completing with -EINVAL rather than waiting for a readiness that never
 * comes (io_uring retries a file that cannot say it does not block when
 * poll() says it is ready). poll() answers POLLOUT (a write does not
 * block: it fails at once) and POLLIN only while a gather request waits
 * (none here), also through io_uring's POLL_ADD.
 * Each completion is waited for; KU_RW_LIMIT_S bounds the wait only so
 * that a driver which never completes fails rather than hangs.
 */
#include <poll.h>

#include "kuring.h"

#define KU_RW_LIMIT_S 10

/* The CQE of the one request in flight, failing after the safety limit. */
static int rw_result(const char *what)
{
	struct __kernel_timespec ts = { .tv_sec = KU_RW_LIMIT_S };
	struct io_uring_cqe *cqe;
	int ret, res;

	ret = io_uring_submit(&ku_r);
	if (ret != 1)
		fail_msg("io_uring_submit: %d", ret);
	ret = io_uring_wait_cqe_timeout(&ku_r, &cqe, &ts);
	if (ret == -ETIME)
		fail_msg("%s on /dev/ipuN still waits after %d s (ring torn down at teardown)",
			 what, KU_RW_LIMIT_S);
	if (ret)
		fail_msg("io_uring_wait_cqe_timeout: %s", strerror(-ret));
	res = cqe->res;
	io_uring_cqe_seen(&ku_r, cqe);
	return res;
}

static void test_io_uring_read_fails_einval_at_once(void **state)
{
	int fd = kt_open(0);
	char buf[64];

	(void)state;
	io_uring_prep_read(io_uring_get_sqe(&ku_r), fd, buf, sizeof(buf), 0);
	assert_int_equal(rw_result("READ"), -EINVAL);
}

static void test_io_uring_write_fails_einval_at_once(void **state)
{
	int fd = kt_open(0);
	char buf[64] = "";

	(void)state;
	io_uring_prep_write(io_uring_get_sqe(&ku_r), fd, buf, sizeof(buf), 0);
	assert_int_equal(rw_result("WRITE"), -EINVAL);
}

static void test_io_uring_readv_and_writev_fail_einval_at_once(void **state)
{
	int fd = kt_open(0);
	char buf[64] = "";
	struct iovec iov = { buf, sizeof(buf) };

	(void)state;
	io_uring_prep_readv(io_uring_get_sqe(&ku_r), fd, &iov, 1, 0);
	assert_int_equal(rw_result("READV"), -EINVAL);
	io_uring_prep_writev(io_uring_get_sqe(&ku_r), fd, &iov, 1, 0);
	assert_int_equal(rw_result("WRITEV"), -EINVAL);
}

/* The same on an attached file, and as the VFS answers read/write. */
static void test_read_and_write_fail_einval_on_an_attached_file(void **state)
{
	int fd = kt_open_attached(0);
	char buf[64] = "";

	(void)state;
	assert_int_equal(read(fd, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(write(fd, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EINVAL);
	io_uring_prep_read(io_uring_get_sqe(&ku_r), fd, buf, sizeof(buf), 0);
	assert_int_equal(rw_result("READ"), -EINVAL);
	io_uring_prep_write(io_uring_get_sqe(&ku_r), fd, buf, sizeof(buf), 0);
	assert_int_equal(rw_result("WRITE"), -EINVAL);
}

static void test_poll_reports_writable_and_not_readable(void **state)
{
	struct pollfd pfd = { .fd = kt_open(0), .events = POLLOUT };

	(void)state;
	/* The limit is a safety bound: POLLOUT is there at once. */
	assert_int_equal(poll(&pfd, 1, KU_RW_LIMIT_S * 1000), 1);
	assert_int_equal(pfd.revents, POLLOUT);
	pfd.events = POLLIN | POLLPRI;
	pfd.revents = 0;
	assert_int_equal(poll(&pfd, 1, 0), 0);
	pfd.events = POLLIN | POLLOUT | POLLWRNORM;
	assert_int_equal(poll(&pfd, 1, 0), 1);
	assert_int_equal(pfd.revents, POLLOUT | POLLWRNORM);
}

static void test_io_uring_poll_for_writable_completes(void **state)
{
	int fd = kt_open(0);

	(void)state;
	io_uring_prep_poll_add(io_uring_get_sqe(&ku_r), fd, POLLOUT);
	assert_int_equal(rw_result("POLL_ADD(POLLOUT)"), POLLOUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KU_TEST(test_io_uring_read_fails_einval_at_once),
		KU_TEST(test_io_uring_write_fails_einval_at_once),
		KU_TEST(test_io_uring_readv_and_writev_fail_einval_at_once),
		KU_TEST(test_read_and_write_fail_einval_on_an_attached_file),
		KU_TEST(test_poll_reports_writable_and_not_readable),
		KU_TEST(test_io_uring_poll_for_writable_completes),
	};

	return KT_RUN(tests);
}
