/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kunplug.h - what the tests of a PCIe IPU going away under its users
 * share (test_pci_surprise, test_pci_hotplug): a child stalled in a
 * transfer on the device, and the check that a function bound again works.
 */
#ifndef IPU_TESTS_KUNPLUG_H
#define IPU_TESTS_KUNPLUG_H

#include "kemu.h"
#include "kloop.h"
#include "ksimd.h"

/* Exit status of a child: its errno when it failed as expected. */
#define child_exit_errno(st) (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st))

/*
 * A child stalled in a @len-byte transfer to @bo of the attached file @fd
 * (ipu-emu's hang_dma on its @emu-th IPU), asleep in the PCI backend's DMA
 * wait when this returns; it exits with the transfer's errno once
 * something (remove()) ends it.
 *
 * Why also the model's word: the child sleeps in an ipu_pci_ function
 * before its descriptor reaches the device (the queue's lock, its wait
 * for a ring a reset restarts), and a device removed then would keep the
 * fault armed, to stall the first transfer after the bind for the
 * driver's whole DMA deadline (seen on 6.1: -ETIMEDOUT after 30 s).
 */
static inline pid_t ku_stalled_transfer(int fd, uint32_t bo, size_t len,
					unsigned int emu)
{
	int ready[2], stalled = 0, i;
	pid_t pid;

	ke_fault(emu, "hang_dma=1");
	kt_pipe(ready);
	pid = kt_fork_opt(true);
	if (pid == 0) {
		void *host = kl_host(len);

		kt_pipe_send(ready[1], 'r');
		_exit(-kt_write_bo(fd, bo, 0, host, len));
	}
	kt_close(ready[1]);
	assert_int_equal(kt_pipe_recv(ready[0]), 'r');
	for (i = 0; i < KS_POLLS && (stalled = ke_stalled(emu)) == 0; i++)
		ks_pause();
	if (stalled != 1)
		fail_msg("ipu-emu's ipu%u holds %d stalled descriptors, not 1",
			 emu, stalled);
	ks_wait_wchan(pid, "ipu_pci_");
	return pid;
}

/*
 * /dev/ipu@n, bound again, works: a new attached file starts with no
 * device memory used, and a @len-byte buffer of pattern @seed goes there
 * and back through @buf and @back. Returns the file.
 */
static inline int ku_works_again(unsigned int n, uint8_t *buf, uint8_t *back,
				 size_t len, int seed)
{
	int fd = kt_open(n);
	uint32_t bo;

	assert_int_equal(kt_attach(fd), 0);
	assert_int_equal(kt_info(fd).memory_used, 0);
	bo = kt_bo(fd, len, NULL);
	kt_fill(buf, len, seed);
	assert_int_equal(kt_write_bo(fd, bo, 0, buf, len), 0);
	assert_int_equal(kt_read_bo(fd, bo, 0, back, len), 0);
	assert_pattern(back, len, seed);
	return fd;
}

/* The function ku_link_down() took off the bus, for ku_relink_teardown(). */
static int ku_down_emu __attribute__((unused)) = -1;
static char ku_down_remove[PATH_MAX] __attribute__((unused));

/*
 * ipu-emu's function @emu, at @bdf, off the bus (link_down: reads all
 * ones, writes dropped); a failed test's ku_relink_teardown() brings it
 * back for the later tests.
 */
static inline void ku_link_down(unsigned int emu, const char *bdf)
{
	fn_path(ku_down_remove, sizeof(ku_down_remove), bdf, "remove");
	ku_down_emu = (int)emu;
	ke_fault(emu, "link_down");
}

/*
 * ipu-emu's function @emu back on the bus (link_up), and found again at
 * @bdf as pciehp finds a re-seated card: the PCI core removes the dead
 * function, a rescan enumerates it afresh and ipu.ko probes it.
 */
static inline void ku_relink(unsigned int emu, const char *bdf)
{
	ke_fault(emu, "link_up");
	kp_remove(bdf);
	kp_rescan(bdf);
	ku_down_emu = -1;
}

/* kt_teardown(), and no function left off the bus by a failed test. */
static inline int ku_relink_teardown(void **state)
{
	kt_cleanup();
	if (ku_down_emu >= 0) {
		ke_fault((unsigned int)ku_down_emu, "link_up");
		kt_write_file(ku_down_remove, "1");
		kt_write_file("/sys/bus/pci/rescan", "1");
		ku_down_emu = -1;
	}
	return kt_teardown(state);
}

#endif /* IPU_TESTS_KUNPLUG_H */
