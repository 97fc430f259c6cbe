// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_kill.c - kill -9 of an application mid-DMA on the first PCIe
 * IPU leaves nothing behind.
 *
 * A child attaches, makes a buffer object and moves LEN-byte transfers to
 * and from it without end, through the XFER ioctl or through io_uring
 * (DEPTH commands kept in flight). It tells the parent once its first
 * transfers completed (it is in its loop: a pipe, never a sleep), and the
 * parent kills it with SIGKILL, so the kill lands while transfers are
 * pinned, mapped and queued on the device. Once the child is reaped and
 * its files are released (io_uring's ring goes in a kernel worker after
 * the exit: polled), the device's memory_used, the kernel's pinned pages
 * (kt_pinned_now()) and the DMA API's live mappings (kt_dma_api_now(),
 * where the kernel counts them) are where they were, the DMA API saw no
 * error, and the device still moves bytes correctly.
 * Skipped where no PCI IPU is bound.
 */
#define KT_ON_PCI 1
#include "kuring.h"
#include "ksimd.h"

/* Bytes per transfer: 4 chunks of the ioctl, several descriptors. */
#define LEN (8u << 20)
/* io_uring transfers in flight at once. */
#define DEPTH 4

/* What the device and the kernel hold, to compare after the kill. */
struct held {
	uint64_t used;
	int64_t pins;
	struct kt_dma_api dma;
};

static struct held held_now(void)
{
	struct held h;

	h.used = kt_sysfs_u64(0, "memory_used");
	h.pins = kt_pinned_now();
	h.dma = kt_dma_api_now();
	return h;
}

/* Exit codes of the children, so the parent can say what went wrong. */
enum {
	CHILD_OPEN = 10,
	CHILD_ATTACH,
	CHILD_BO,
	CHILD_MEM,
	CHILD_XFER,
	CHILD_RING,
};

/* The child's device file, attached, with a buffer of LEN bytes. */
static int child_open(uint32_t *bo, void **host)
{
	struct ipu_bo_create c;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/ipu%u", kt_dev(0));
	fd = open(path, O_RDWR | O_CLOEXEC);
	kt_child_check(fd >= 0, CHILD_OPEN);
	kt_child_check(kt_attach(fd) == 0, CHILD_ATTACH);
	kt_child_check(kt_bo_create(fd, LEN, &c) == 0, CHILD_BO);
	*bo = c.handle;
	*host = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	kt_child_check(*host != MAP_FAILED, CHILD_MEM);
	memset(*host, 0x5a, LEN);
	return fd;
}

/* XFER ioctls, to the device and back, until killed. */
static void child_ioctl_loop(int ready)
{
	uint32_t bo;
	void *host;
	int fd = child_open(&bo, &host);
	unsigned long i;

	for (i = 0;; i++) {
		kt_child_check(kt_write_bo(fd, bo, 0, host, LEN) == 0, CHILD_XFER);
		kt_child_check(kt_read_bo(fd, bo, 0, host, LEN) == 0, CHILD_XFER);
		if (i == 0)
			kt_pipe_send(ready, 'r');
	}
}

/* io_uring XFERs, DEPTH in flight, each reaped one replaced, until killed. */
static void child_uring_loop(int ready)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct io_uring_params p;
	uint32_t bo;
	void *host;
	int fd = child_open(&bo, &host);
	unsigned long n;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128;
	kt_child_check(io_uring_queue_init_params(2 * DEPTH, &ring, &p) == 0,
		       CHILD_RING);
	for (n = 0;; n++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct ipu_xfer *x;

		kt_child_check(sqe != NULL, CHILD_RING);
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
		sqe->cmd_op = IPU_URING_CMD_XFER;
		memset(sqe->cmd, 0, KU_CMD_BYTES);
		x = ku_xfer_of(sqe);
		x->user_ptr = (uint64_t)(uintptr_t)host;
		x->length = LEN;
		x->handle = bo;
		x->flags = n % 2 ? IPU_XFER_FROM_DEVICE : IPU_XFER_TO_DEVICE;
		kt_child_check(io_uring_submit(&ring) == 1, CHILD_RING);
		if (n + 1 < DEPTH)
			continue;
		kt_child_check(io_uring_wait_cqe(&ring, &cqe) == 0, CHILD_RING);
		kt_child_check(cqe->res == 0, CHILD_XFER);
		io_uring_cqe_seen(&ring, cqe);
		if (n + 1 == 2 * DEPTH)
			kt_pipe_send(ready, 'r');
	}
}

/* Start @loop in a child, kill it once it is in its loop, reap it. */
static void kill_mid_dma(void (*loop)(int ready))
{
	int ready[2], st;
	pid_t pid;

	kt_pipe(ready);
	pid = kt_fork();
	if (pid == 0)
		loop(ready[1]);
	/* Only the child writes: its death is EOF, not a hang. */
	kt_close(ready[1]);
	if (kt_pipe_recv(ready[0]) != 'r') {
		st = kt_wait(pid);
		fail_msg("the child never reached its loop: %s %d",
			 WIFEXITED(st) ? "exit" : "signal",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	}
	assert_int_equal(kill(pid, SIGKILL), 0);
	st = kt_wait(pid);
	/* Killed in its loop, not ended by an error of its own. */
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
		fail_msg("the child ended on its own (exit %d) before the kill",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Everything back where @before found it, and the device still works. */
static void assert_nothing_left(const struct held *before)
{
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	uint32_t bo;
	int i, fd;

	/* A ring is released by a kernel worker after its task exited. */
	for (i = 0; i < KS_POLLS && (kt_sysfs_u64(0, "memory_used") != before->used ||
				     kt_pinned_now() != before->pins ||
				     !kt_dma_api_same(&before->dma)); i++)
		ks_pause();
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), before->used);
	assert_int_equal(kt_pinned_now(), before->pins);
	assert_dma_api_as_before(&before->dma);

	/* Nobody holds the device and its queues move bytes. */
	fd = kt_open_attached(0);
	bo = kt_bo(fd, LEN, NULL);
	kt_fill(buf, LEN, 7);
	assert_int_equal(kt_write_bo(fd, bo, 0, buf, LEN), 0);
	assert_int_equal(kt_read_bo(fd, bo, 0, back, LEN), 0);
	assert_pattern(back, LEN, 7);
}

/* The whole test around @loop. */
static void kill_leaves_nothing(void (*loop)(int ready))
{
	struct held before;

	kt_require_dev(0);
	before = held_now();
	kill_mid_dma(loop);
	assert_nothing_left(&before);
}

static void test_kill_mid_ioctl_xfer_leaves_nothing(void **state)
{
	(void)state;
	kill_leaves_nothing(child_ioctl_loop);
}

static void test_kill_mid_uring_xfer_leaves_nothing(void **state)
{
	(void)state;
	kill_leaves_nothing(child_uring_loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_kill_mid_ioctl_xfer_leaves_nothing),
		KT_TEST(test_kill_mid_uring_xfer_leaves_nothing),
	};

	return KT_RUN(tests);
}
