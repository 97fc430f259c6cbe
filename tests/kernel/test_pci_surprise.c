// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_surprise.c - a PCIe IPU going away under its users, on the
 * rig's last function (ipu-emu's last IPU, reached through its control
 * socket, kemu.h):
 *  - remove() while a transfer is stalled on the device (fault hang_dma):
 *    the unbind returns, the waiting XFER fails with -ENODEV, nothing stays
 *    pinned or mapped, and the function binds again and works;
 *  - a mapping of device memory (BAR2 frames) made before an unbind no
 *    longer reaches device memory once another file owns it (SIGBUS);
 *  - the function falls off the bus mid-transfer (fault link_down: every
 *    read answers all ones, writes are dropped, no DMA or interrupt; not
 *    off_bus, whose closing of the vfio-user socket makes QEMU 11.1's
 *    client abort the whole guest, docs/hardware.md section 11):
 *    the driver notices the all-ones read, every in-flight and later
 *    transfer (ioctl and io_uring) fails with -ENODEV, every open file
 *    gets -ENODEV, the driver unbinds itself, nothing stays pinned or
 *    mapped. Then the function comes back (ipu-emu's link_up: a card
 *    re-seated, in its power-on state) and is found again as pciehp would
 *    find it (the PCI core's removal of the dead function, a rescan): it
 *    probes and moves bytes, so the suite's later binaries have every PCI
 *    IPU of the rig again.
 * Children tell the parent where they are through pipes; the parent waits
 * for the kernel's own states (the child asleep in the driver's DMA wait,
 * the driver unbound), polled, never for a time.
 * Skipped without PCI IPUs or without the control port.
 */
#include "kunplug.h"

#define LEN (4u << 20)
#define DEPTH 4

/* The rig's last function, its index for ipu-emu and its ipuN. */
static const char *last_bdf(unsigned int *emu_idx, unsigned int *n)
{
	int minor;

	require_ipus();
	ke_require();
	*emu_idx = nr_ipus - 1;
	minor = ipu_of(ipus[*emu_idx]);
	if (minor < 0)
		fail_msg("%s has no ipuN (not bound?)", ipus[*emu_idx]);
	*n = (unsigned int)minor;
	return ipus[*emu_idx];
}

/* An attached file of /dev/ipu@n (tracked) and a LEN-byte buffer. */
static int open_with_bo(unsigned int n, uint32_t *bo)
{
	int fd = kt_open(n);

	assert_int_equal(kt_attach(fd), 0);
	*bo = kt_bo(fd, LEN, NULL);
	return fd;
}

/* Poll until the driver is unbound from @bdf. */
static void wait_unbound(const char *bdf)
{
	char drv[64];
	int i;

	for (i = 0; i < KS_POLLS; i++) {
		driver_of(bdf, drv, sizeof(drv));
		if (!drv[0])
			return;
		ks_pause();
	}
	fail_msg("ipu.ko still bound to %s", bdf);
}

/* --- remove() while a DMA is stalled ----------------------------------- */

static void test_remove_ends_a_stalled_transfer(void **state)
{
	unsigned int emu, n;
	const char *bdf = last_bdf(&emu, &n);
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	struct kt_dma_api dma;
	int st, fd, i;
	int64_t pins;
	uint32_t bo;
	pid_t pid;

	(void)state;
	/* What the kernel holds with the function bound and idle. */
	pins = kt_pinned_now();
	dma = kt_dma_api_now();
	fd = open_with_bo(n, &bo);
	/* Stalls on the device until remove() ends it. */
	pid = ku_stalled_transfer(fd, bo, LEN, emu);
	/* The unbind returns, and ends the transfer with -ENODEV. */
	kp_unbind(bdf);
	st = kt_wait(pid);
	assert_int_equal(child_exit_errno(st), ENODEV);
	assert_int_equal(kt_close(fd), 0);

	/* Bound again: nothing pinned or mapped beyond what it was, and it works. */
	kp_bind(bdf);
	n = (unsigned int)ipu_of(bdf);
	for (i = 0; i < KS_POLLS && (kt_pinned_now() != pins || !kt_dma_api_same(&dma)); i++)
		ks_pause();
	assert_int_equal(kt_pinned_now(), pins);
	assert_dma_api_as_before(&dma);
	ku_works_again(n, buf, back, LEN, 11);
}

/* --- mappings of device memory do not outlive the binding -------------- */

/*
 * A buffer mapped (its page of BAR2 faulted in) by a file whose device is
 * then unbound: once the function is bound again and another file owns
 * that device memory, the old mapping must not reach it (SIGBUS), or one
 * process would read and write another's buffers through a stale frame.
 */
static void test_unbind_revokes_mappings_of_device_memory(void **state)
{
	unsigned int emu, n;
	const char *bdf = last_bdf(&emu, &n);
	size_t g = kt_page_size();
	struct ipu_bo_create c, c2;
	uint8_t *buf = kt_alloc(g);
	volatile uint8_t *old;
	uint32_t bo2;
	int fd, fd2, st;
	pid_t pid;

	(void)state;
	fd = kt_open(n);
	assert_int_equal(kt_attach(fd), 0);
	kt_bo(fd, g, &c);
	old = kt_mmap(g, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)c.mmap_offset);
	assert_true(old != MAP_FAILED);
	memset((void *)old, 0x11, g);

	kp_unbind(bdf);
	kp_bind(bdf);
	fd2 = kt_open((unsigned int)ipu_of(bdf));
	assert_int_equal(kt_attach(fd2), 0);
	bo2 = kt_bo(fd2, g, &c2);
	/* The new owner's buffer is where the old one was. */
	assert_int_equal(c2.device_addr, c.device_addr);
	kt_fill(buf, g, 21);
	assert_int_equal(kt_write_bo(fd2, bo2, 0, buf, g), 0);

	pid = kt_fork_opt(true);
	if (pid == 0) {
		size_t i, same = 0;

		for (i = 0; i < g; i++)
			same += old[i] == kt_pat(21, i);
		/* 1: the new owner's bytes; 2: other bytes, still mapped. */
		_exit(same == g ? 1 : 2);
	}
	st = kt_wait(pid);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGBUS)
		fail_msg("the old mapping still reaches device memory (%s)",
			 WIFEXITED(st) && WEXITSTATUS(st) == 1 ?
			 "it reads the new owner's buffer" : "it reads something");
}

/* --- falling off the bus mid-transfer ---------------------------------- */

static void child_ioctl(int fd, uint32_t bo, int ready)
{
	kl_ioctl_loop(fd, bo, LEN, ready);
}

static void child_uring(int fd, uint32_t bo, int ready)
{
	kl_uring_loop(fd, bo, LEN, DEPTH, ready);
}

/* A child running @loop on the attached file @fd, once it is in its loop. */
static pid_t start(void (*loop)(int fd, uint32_t bo, int ready), int fd,
		   uint32_t bo, int ready[2])
{
	pid_t pid;

	kt_pipe(ready);
	pid = kt_fork_opt(true);
	if (pid == 0)
		loop(fd, bo, ready[1]);
	kt_close(ready[1]);
	assert_int_equal(kt_pipe_recv(ready[0]), 'r');
	return pid;
}

static void test_off_the_bus_mid_transfer_unplugs_the_device(void **state)
{
	unsigned int emu, n;
	const char *bdf = last_bdf(&emu, &n);
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	struct kt_dma_api dma;
	struct ipu_bo_create c;
	struct ipu_info info;
	int r1[2], r2[2], st, fd, onlooker, i;
	pid_t p1, p2;
	int64_t pins;
	uint32_t bo;

	(void)state;
	/* The kernel without the function: what must be left at the end. */
	kp_unbind(bdf);
	pins = kt_pinned_now();
	dma = kt_dma_api_now();
	kp_bind(bdf);
	n = (unsigned int)ipu_of(bdf);

	/*
	 * An onlooker's file, and an attached one that two children share,
	 * moving data without end.
	 */
	onlooker = kt_open(n);
	fd = open_with_bo(n, &bo);
	p1 = start(child_ioctl, fd, bo, r1);
	p2 = start(child_uring, fd, bo, r2);
	ku_link_down(emu, bdf);

	/* Every transfer, in flight or later, fails -ENODEV. */
	st = kt_wait(p1);
	assert_int_equal(child_exit_errno(st), ENODEV);
	st = kt_wait(p2);
	assert_int_equal(child_exit_errno(st), ENODEV);
	/* The driver unbinds itself; open files get -ENODEV. */
	wait_unbound(bdf);
	assert_int_equal(kt_get_info(onlooker, &info), -ENODEV);
	assert_int_equal(kt_attach(onlooker), -ENODEV);
	assert_int_equal(kt_bo_create(fd, LEN, &c), -ENODEV);
	assert_int_equal(kt_close(onlooker), 0);
	assert_int_equal(kt_close(fd), 0);
	for (i = 0; i < KS_POLLS && (kt_pinned_now() != pins || !kt_dma_api_same(&dma)); i++)
		ks_pause();
	assert_int_equal(kt_pinned_now(), pins);
	assert_dma_api_as_before(&dma);
	/* A function that is gone does not bind again. */
	assert_true(kt_write_file(KT_PCI_DRIVER "/bind", bdf) < 0);
	assert_int_equal(ipu_of(bdf), -1);

	/* Back on the bus, found again, and it works. */
	ku_relink(emu, bdf);
	ku_works_again((unsigned int)ipu_of(bdf), buf, back, LEN, 41);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_remove_ends_a_stalled_transfer),
		KT_TEST(test_unbind_revokes_mappings_of_device_memory),
		cmocka_unit_test_teardown(test_off_the_bus_mid_transfer_unplugs_the_device,
					  ku_relink_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
