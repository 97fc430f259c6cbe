/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kloop.h - children that move data to and from a buffer object without
 * end, until they are killed or a transfer fails: the applications that
 * tests kill mid-DMA (test_pci_kill.c) or pull the device from under
 * (test_pci_surprise.c). Each tells the parent once its first transfers
 * completed (it is in its loop), through the write end of a pipe, and
 * exits with the errno of the first transfer that failed (other codes,
 * from 100, say what failed before the loop). Children only: no cmocka
 * assert.
 */
#ifndef IPU_TESTS_KLOOP_H
#define IPU_TESTS_KLOOP_H

#include "kuring.h"

/* @len bytes of the child's own memory, touched. */
static inline void *kl_host(size_t len)
{
	void *host = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	kt_child_check(host != MAP_FAILED, 100);
	memset(host, 0x3c, len);
	return host;
}

/* XFER ioctls, to the device and back, on the attached file @fd. */
static inline void kl_ioctl_loop(int fd, uint32_t bo, size_t len, int ready)
{
	void *host = kl_host(len);
	bool told = false;
	int ret;

	for (;;) {
		ret = kt_write_bo(fd, bo, 0, host, len);
		if (!ret)
			ret = kt_read_bo(fd, bo, 0, host, len);
		if (ret)
			_exit(-ret);
		if (!told)
			kt_pipe_send(ready, 'r');
		told = true;
	}
}

/*
 * io_uring XFERs, @depth in flight, each one reaped replaced. Each in
 * flight has host memory of its own: two transfers from the device into
 * the same bytes at once are no application's and make the DMA API's
 * checker (CONFIG_DMA_API_DEBUG) report overlapping mappings.
 */
static inline void kl_uring_loop(int fd, uint32_t bo, size_t len,
				 unsigned int depth, int ready)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct io_uring_params p;
	uint8_t *host = kl_host(len * depth);
	unsigned long i;
	int res;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128;
	kt_child_check(io_uring_queue_init_params(2 * depth, &ring, &p) == 0, 101);
	for (i = 0;; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct ipu_xfer *x;

		kt_child_check(sqe != NULL, 102);
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
		sqe->cmd_op = IPU_URING_CMD_XFER;
		memset(sqe->cmd, 0, KU_CMD_BYTES);
		x = ku_xfer_of(sqe);
		x->user_ptr = (uint64_t)(uintptr_t)(host + (i % depth) * len);
		x->length = len;
		x->handle = bo;
		x->flags = i % 2 ? IPU_XFER_FROM_DEVICE : IPU_XFER_TO_DEVICE;
		kt_child_check(io_uring_submit(&ring) == 1, 103);
		if (i + 1 < depth)
			continue;
		kt_child_check(io_uring_wait_cqe(&ring, &cqe) == 0, 104);
		res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
		if (res)
			_exit(-res);
		if (i + 1 == 2 * depth)
			kt_pipe_send(ready, 'r');
	}
}

#endif /* IPU_TESTS_KLOOP_H */
