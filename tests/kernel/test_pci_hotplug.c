// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_hotplug.c - hot removal of a PCIe IPU in use, on the rig's last
 * function: the PCI core's removal (sysfs "remove": what pciehp runs when
 * its slot is unplugged, pci_stop_and_remove_bus_device()), then a rescan
 * (what pciehp runs when a card is plugged):
 *  - before: an onlooker's file, an attached file with a buffer mapped
 *    (its BAR2 frame faulted in) and a child writing there without end, a
 *    transfer stalled on the device (fault hang_dma) and a launch held on
 *    its command queue (fault hold_launches);
 *  - removal: the stalled transfer fails with -ENODEV, the held launch
 *    completes with -ENODEV, every open file gets -ENODEV, the writing
 *    child and any later access of the mapping get SIGBUS, the function
 *    is gone from the bus, and nothing stays pinned;
 *  - rescan: the function comes back at the same address, ipu.ko probes
 *    it, the DMA API holds what it held before, a transfer and a launch
 *    work, and the old mapping still reaches nothing.
 * The suite's later binaries find the rig's functions as before.
 *
 * Not QEMU's device_del: the rig's QEMU (trixie-backports' 11.1) aborts
 * when it finalizes an unplugged vfio-user-pci device with MSI-X (its
 * vfio_user_instance_finalize() deletes the PBA's subregion from a BAR
 * region that QOM already emptied: "memory_region_del_subregion:
 * Assertion `subregion->container == mr' failed"), taking the guest with
 * it. What the guest's kernel does is the same: pciehp's unplug is this
 * removal, after its attention button's 5 s.
 * Skipped without PCI IPUs or ipu-emu's control port.
 */
#include "kprog.h"
#include "kunplug.h"

#define LEN (4u << 20)
#define FAR_NS INT64_MAX

/* The removed function's ipu-emu index, for the teardown of a failed test. */
static int removed_emu = -1;

/* A child reading @p: its wait status (SIGBUS when nothing is mapped there). */
static int read_in_child(volatile const uint8_t *p, size_t len)
{
	pid_t pid = kt_fork_opt(true);

	if (pid == 0) {
		size_t i, sum = 0;

		for (i = 0; i < len; i++)
			sum += p[i];
		_exit(sum ? 1 : 2);
	}
	return kt_wait(pid);
}

static void assert_sigbus(volatile const uint8_t *p, size_t len, const char *when)
{
	int st = read_in_child(p, len);

	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGBUS)
		fail_msg("%s: the mapping of device memory still reads (status %#x)",
			 when, st);
}

/*
 * A child whose launch @l on @fd is queued on the device and held there
 * (hold_launches), waiting for its fence: it exits with WAIT's errno, or
 * 100 + the launch's negated status when WAIT worked.
 */
static pid_t held_launch(int fd, const struct ipu_launch *l, unsigned int emu)
{
	struct ipu_launch arg = *l;
	int ready[2];
	pid_t pid;

	ke_fault(emu, "hold_launches=1");
	arg.fence = 0;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_LAUNCH, &arg), 0);
	kt_pipe(ready);
	pid = kt_fork_opt(true);
	if (pid == 0) {
		int status = 0, err;

		kt_pipe_send(ready[1], 'r');
		err = kt_wait_fence(fd, arg.fence, FAR_NS, &status);
		_exit(err ? -err : 100 - status);
	}
	kt_close(ready[1]);
	assert_int_equal(kt_pipe_recv(ready[0]), 'r');
	return pid;
}

/*
 * A child writing to the mapping @p without end, once it has written
 * there: the removal must take the page from under it (SIGBUS), not leave
 * it writing to where device memory was.
 */
static pid_t writer(volatile uint8_t *p, size_t len)
{
	int ready[2];
	pid_t pid;

	kt_pipe(ready);
	pid = kt_fork_opt(true);
	if (pid == 0) {
		uint8_t v = 0;
		size_t i;

		for (i = 0; i < len; i++)
			p[i] = 0x5a;
		kt_pipe_send(ready[1], 'r');
		/* The last byte of each 64: the first 32 stay 0x5a. */
		for (;;)
			for (i = 63; i < len; i += 64)
				p[i] = v++;
	}
	kt_close(ready[1]);
	assert_int_equal(kt_pipe_recv(ready[0]), 'r');
	return pid;
}

static void test_removal_with_files_open_and_mappings_live(void **state)
{
	static const uint8_t junk[256];
	size_t g = kt_page_size();
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	volatile uint8_t *map;
	struct ipu_bo_create c, mc;
	struct ipu_launch l;
	struct ipu_info info;
	struct kt_dma_api dma;
	unsigned int emu, n;
	int onlooker, fd, st, i, status;
	pid_t xfer, launch, wr;
	int64_t pins;
	uint32_t bo;
	char bdf[16];

	(void)state;
	require_ipus();
	ke_require();
	emu = nr_ipus - 1;
	snprintf(bdf, sizeof(bdf), "%s", ipus[emu]);
	if (ipu_of(bdf) < 0)
		fail_msg("%s has no ipuN (not bound?)", bdf);
	n = (unsigned int)ipu_of(bdf);
	/* What the kernel holds with the function bound and idle. */
	pins = kt_pinned_now();
	dma = kt_dma_api_now();

	onlooker = kt_open(n);
	fd = kt_open(n);
	assert_int_equal(kt_attach(fd), 0);
	bo = kt_bo(fd, LEN, NULL);
	/* A buffer mapped, its frame of BAR2 written through the mapping. */
	kt_bo(fd, g, &mc);
	map = kt_mmap(g, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)mc.mmap_offset);
	wr = writer(map, g);
	/* Its writes reached the buffer. */
	assert_int_equal(kt_read_bo(fd, mc.handle, 0, back, 32), 0);
	for (i = 0; i < 32; i++)
		assert_int_equal(back[i], 0x5a);
	kp_launch_bufs(fd, junk, sizeof(junk), 4096, &l);
	launch = held_launch(fd, &l, emu);
	xfer = ku_stalled_transfer(fd, bo, LEN, emu);

	removed_emu = (int)emu;
	kp_remove(bdf);

	/* In flight: the transfer fails -ENODEV, and so does the launch. */
	st = kt_wait(xfer);
	assert_int_equal(child_exit_errno(st), ENODEV);
	st = kt_wait(launch);
	/* WAIT works and says the launch ended with -ENODEV. */
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 100 + ENODEV);
	/* Whoever was writing through a mapping of its memory gets SIGBUS. */
	st = kt_wait(wr);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGBUS);
	/* The function is gone from the bus, and so is what it backed. */
	assert_int_equal(ipu_of(bdf), -1);
	assert_true(kt_fn_hex(bdf, "vendor") < 0);
	assert_sigbus(map, g, "after the removal");
	/* Every open file gets -ENODEV. */
	assert_int_equal(kt_get_info(onlooker, &info), -ENODEV);
	assert_int_equal(kt_attach(onlooker), -ENODEV);
	assert_int_equal(kt_bo_create(fd, LEN, &c), -ENODEV);
	assert_int_equal(kt_read_bo(fd, bo, 0, back, g), -ENODEV);
	errno = 0;
	assert_true(mmap(NULL, g, PROT_READ, MAP_SHARED, fd, (off_t)mc.mmap_offset) == MAP_FAILED);
	assert_int_equal(errno, ENODEV);
	assert_int_equal(kt_close(onlooker), 0);
	assert_int_equal(kt_close(fd), 0);
	for (i = 0; i < KS_POLLS && kt_pinned_now() != pins; i++)
		ks_pause();
	assert_int_equal(kt_pinned_now(), pins);

	/* Found again at the same address, and probed. */
	ke_fault(emu, "clear");
	n = kp_rescan(bdf);
	removed_emu = -1;
	for (i = 0; i < KS_POLLS && !kt_dma_api_same(&dma); i++)
		ks_pause();
	assert_dma_api_as_before(&dma);
	assert_int_equal(kt_pinned_now(), pins);
	fd = ku_works_again(n, buf, back, LEN, 31);
	/* The command queue runs: junk for an image is E_NOEXEC. */
	kp_launch_bufs(fd, junk, sizeof(junk), 4096, &l);
	l.fence = 0;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_LAUNCH, &l), 0);
	assert_int_equal(kt_wait_fence(fd, l.fence, FAR_NS, &status), 0);
	assert_int_equal(status, -ENOEXEC);
	/* The old mapping reaches nothing of the new binding's memory either. */
	assert_sigbus(map, g, "after the rescan");
}

/* A test that failed after the removal still leaves the function there. */
static int rescan_teardown(void **state)
{
	kt_cleanup();
	if (removed_emu >= 0) {
		ke_fault((unsigned int)removed_emu, "clear");
		kt_write_file("/sys/bus/pci/rescan", "1");
		removed_emu = -1;
	}
	return kt_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_removal_with_files_open_and_mappings_live,
					  rescan_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
