/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kuring.h - raw io_uring for the kernel tests of IORING_OP_URING_CMD on
 * /dev/ipuN: a ring (SQE128 unless asked otherwise), SQEs carrying
 * struct ipu_xfer or struct ipu_launch, and the CQE results by user_data.
 *
 * liburing 2.3 has no io_uring_prep_uring_cmd(): an SQE is prepared with
 * io_uring_prep_rw(IORING_OP_URING_CMD, ...), its cmd_op set, and the
 * 80-byte command area (SQE128) zeroed and filled.
 */
#ifndef IPU_TESTS_KURING_H
#define IPU_TESTS_KURING_H

#include <liburing.h>

#include "ktest.h"

#define KU_CMD_BYTES 80

/* A ring of @entries, SQE128 unless @sqe64; torn down by ku_ring_exit(). */
static inline void ku_ring(struct io_uring *ring, unsigned int entries,
			   bool sqe64)
{
	struct io_uring_params p;
	int err;

	memset(&p, 0, sizeof(p));
	p.flags = sqe64 ? 0 : IORING_SETUP_SQE128;
	err = io_uring_queue_init_params(entries, ring, &p);
	if (err)
		fail_msg("io_uring_queue_init_params: %s", strerror(-err));
}

/* An SQE for command @op on @fd with @user_data; cmd area zeroed. */
static inline struct io_uring_sqe *ku_sqe(struct io_uring *ring, int fd,
					  uint32_t op, uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	assert_non_null(sqe);
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = op;
	if (ring->flags & IORING_SETUP_SQE128)
		memset(sqe->cmd, 0, KU_CMD_BYTES);
	sqe->user_data = user_data;
	return sqe;
}

/* The payload of @sqe, as a struct ipu_xfer. */
static inline struct ipu_xfer *ku_xfer_of(struct io_uring_sqe *sqe)
{
	return (struct ipu_xfer *)sqe->cmd;
}

/* An XFER SQE: @len bytes between @host and BO @handle at @off. */
static inline struct io_uring_sqe *ku_xfer(struct io_uring *ring, int fd,
					   uint32_t handle, uint64_t off,
					   const void *host, uint64_t len,
					   uint32_t flags, uint64_t user_data)
{
	struct io_uring_sqe *sqe = ku_sqe(ring, fd, IPU_URING_CMD_XFER,
					  user_data);
	struct ipu_xfer *x = ku_xfer_of(sqe);

	x->user_ptr = (uint64_t)(uintptr_t)host;
	x->bo_offset = off;
	x->length = len;
	x->handle = handle;
	x->flags = flags;
	return sqe;
}

/*
 * Wait for @n CQEs; res[user_data] gets each result (user_data < @nres;
 * others fail the test).
 */
static inline void ku_reap(struct io_uring *ring, size_t n, int *res,
			   size_t nres)
{
	struct io_uring_cqe *cqe;
	size_t got;
	int ret;

	for (got = 0; got < n; got++) {
		ret = io_uring_wait_cqe(ring, &cqe);
		if (ret)
			fail_msg("io_uring_wait_cqe: %s", strerror(-ret));
		if (cqe->user_data >= nres)
			fail_msg("a CQE for user_data %llu",
				 (unsigned long long)cqe->user_data);
		res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
}

/* Submit what is queued and ku_reap() @n CQEs. */
static inline void ku_run(struct io_uring *ring, size_t n, int *res,
			  size_t nres)
{
	int ret = io_uring_submit(ring);

	if (ret < 0)
		fail_msg("io_uring_submit: %s", strerror(-ret));
	ku_reap(ring, n, res, nres);
}

/* One command alone: its CQE result. */
static inline int ku_one(struct io_uring *ring)
{
	int res = 1;

	ku_run(ring, 1, &res, 1);
	return res;
}

/* The ring of a test file's tests: made before each, torn down after. */
static struct io_uring ku_r __attribute__((unused));

static inline int ku_setup(void **state)
{
	(void)state;
	ku_ring(&ku_r, 64, false);
	return 0;
}

static inline int ku_teardown(void **state)
{
	kt_teardown(state);
	io_uring_queue_exit(&ku_r);
	return 0;
}

/* A test with a fresh ring in ku_r and the tracked-resource teardown. */
#define KU_TEST(f) cmocka_unit_test_setup_teardown(f, ku_setup, ku_teardown)

#endif /* IPU_TESTS_KURING_H */
