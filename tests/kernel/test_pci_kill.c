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
#include "kloop.h"
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

/* The child: its own attached file, and the loop of @uring's kind. */
static void child(bool uring, int ready)
{
	struct ipu_bo_create c;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/ipu%u", kt_dev(0));
	fd = open(path, O_RDWR | O_CLOEXEC);
	kt_child_check(fd >= 0, 110);
	kt_child_check(kt_attach(fd) == 0, 111);
	kt_child_check(kt_bo_create(fd, LEN, &c) == 0, 112);
	if (uring)
		kl_uring_loop(fd, c.handle, LEN, DEPTH, ready);
	kl_ioctl_loop(fd, c.handle, LEN, ready);
}

/* Start a child, kill it once it is in its loop, reap it. */
static void kill_mid_dma(bool uring)
{
	int ready[2], st;
	pid_t pid;

	kt_pipe(ready);
	pid = kt_fork();
	if (pid == 0)
		child(uring, ready[1]);
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

/* The whole test, with an io_uring child or an ioctl one. */
static void kill_leaves_nothing(bool uring)
{
	struct held before;

	kt_require_dev(0);
	before = held_now();
	kill_mid_dma(uring);
	assert_nothing_left(&before);
}

static void test_kill_mid_ioctl_xfer_leaves_nothing(void **state)
{
	(void)state;
	kill_leaves_nothing(false);
}

static void test_kill_mid_uring_xfer_leaves_nothing(void **state)
{
	(void)state;
	kill_leaves_nothing(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_kill_mid_ioctl_xfer_leaves_nothing),
		KT_TEST(test_kill_mid_uring_xfer_leaves_nothing),
	};

	return KT_RUN(tests);
}
