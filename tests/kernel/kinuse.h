/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kinuse.h - a PCIe IPU in use, hot-removed and plugged back: the checks
 * that every way of taking it away shares (test_pci_hotplug: the PCI
 * core's removal and a rescan; test_pci_device_del: QEMU's device_del,
 * which the guest's pciehp turns into the same removal, and device_add).
 *
 *	ku_in_use(&u, fn);		// files, mapping, transfer, launch
 *	<take the function away>
 *	ku_assert_gone(&u, "after ...");
 *	<bring it back>: n, its ipuN
 *	ku_assert_back(&u, n, "after ...");
 *
 *  - in use: an onlooker's file, an attached file with a buffer mapped
 *    (its BAR2 frame faulted in) and a child writing there without end, a
 *    transfer stalled on the device (fault hang_dma) and a launch held on
 *    its command queue (fault hold_launches);
 *  - gone: the stalled transfer failed with -ENODEV, the held launch
 *    completed with -ENODEV, every open file gets -ENODEV, the writing
 *    child and any later access of the mapping got SIGBUS, the function is
 *    gone from the bus, and nothing stays pinned;
 *  - back: the DMA API holds what it held before, a transfer and a launch
 *    work, and the old mapping still reaches nothing.
 */
#ifndef IPU_TESTS_KINUSE_H
#define IPU_TESTS_KINUSE_H

#include "kprog.h"
#include "kunplug.h"

#define KU_LEN (4u << 20)
#define KU_FAR_NS INT64_MAX

/* The function in use and what holds it. */
struct ku_in_use {
	unsigned int emu;		/* its index in the rig (ipus[]) */
	char bdf[16];
	int onlooker, fd;
	uint32_t bo;			/* KU_LEN bytes, the stalled transfer's */
	struct ipu_bo_create mc;	/* the mapped buffer */
	volatile uint8_t *map;
	size_t g;			/* the mapping's length: a page */
	pid_t xfer, launch, wr;
	int64_t pins;			/* what was pinned before, idle */
	struct kt_dma_api dma;		/* the DMA API's mappings, idle */
	uint8_t *buf, *back;
};

/* A child reading @p: its wait status (SIGBUS when nothing is mapped there). */
static inline int ku_read_in_child(volatile const uint8_t *p, size_t len)
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

static inline void ku_assert_sigbus(volatile const uint8_t *p, size_t len,
				    const char *when)
{
	int st = ku_read_in_child(p, len);

	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGBUS)
		fail_msg("%s: the mapping of device memory still reads (status %#x)",
			 when, st);
}

/*
 * A child whose launch @l on @fd is queued on the device and held there
 * (hold_launches), waiting for its fence: it exits with WAIT's errno, or
 * 100 + the launch's negated status when WAIT worked.
 */
static inline pid_t ku_held_launch(int fd, const struct ipu_launch *l,
				   unsigned int emu)
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
		err = kt_wait_fence(fd, arg.fence, KU_FAR_NS, &status);
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
static inline pid_t ku_writer(volatile uint8_t *p, size_t len)
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

/* Put the rig's function @emu (bound to ipu.ko) in use, as above. */
static inline void ku_in_use(struct ku_in_use *u, unsigned int emu)
{
	static const uint8_t junk[256];
	struct ipu_launch l;
	int i, n;

	memset(u, 0, sizeof(*u));
	u->emu = emu;
	snprintf(u->bdf, sizeof(u->bdf), "%s", ipus[emu]);
	n = ipu_of(u->bdf);
	if (n < 0)
		fail_msg("%s has no ipuN (not bound?)", u->bdf);
	u->g = kt_page_size();
	u->buf = kt_alloc(KU_LEN);
	u->back = kt_alloc(KU_LEN);
	/* What the kernel holds with the function bound and idle. */
	u->pins = kt_pinned_now();
	u->dma = kt_dma_api_now();

	u->onlooker = kt_open((unsigned int)n);
	u->fd = kt_open((unsigned int)n);
	assert_int_equal(kt_attach(u->fd), 0);
	u->bo = kt_bo(u->fd, KU_LEN, NULL);
	/* A buffer mapped, its frame of BAR2 written through the mapping. */
	kt_bo(u->fd, u->g, &u->mc);
	u->map = kt_mmap(u->g, PROT_READ | PROT_WRITE, MAP_SHARED, u->fd,
			 (off_t)u->mc.mmap_offset);
	u->wr = ku_writer(u->map, u->g);
	/* Its writes reached the buffer. */
	assert_int_equal(kt_read_bo(u->fd, u->mc.handle, 0, u->back, 32), 0);
	for (i = 0; i < 32; i++)
		assert_int_equal(u->back[i], 0x5a);
	kp_launch_bufs(u->fd, junk, sizeof(junk), 4096, &l);
	u->launch = ku_held_launch(u->fd, &l, emu);
	u->xfer = ku_stalled_transfer(u->fd, u->bo, KU_LEN, emu);
}

/* The function @u is gone (@when: how, for the messages), as above. */
static inline void ku_assert_gone(struct ku_in_use *u, const char *when)
{
	static char info_text[4096];
	struct ipu_bo_create c;
	struct ipu_info info;
	int st, i;

	/* In flight: the transfer fails -ENODEV, and so does the launch. */
	st = kt_wait(u->xfer);
	assert_int_equal(child_exit_errno(st), ENODEV);
	st = kt_wait(u->launch);
	/* WAIT works and says the launch ended with -ENODEV. */
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 100 + ENODEV);
	/* Whoever was writing through a mapping of its memory gets SIGBUS. */
	st = kt_wait(u->wr);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGBUS);
	/* The function is gone from the bus, and so is what it backed. */
	assert_int_equal(ipu_of(u->bdf), -1);
	assert_true(kt_fn_hex(u->bdf, "vendor") < 0);
	ku_assert_sigbus(u->map, u->g, when);
	/* Every open file gets -ENODEV. */
	assert_int_equal(kt_get_info(u->onlooker, &info), -ENODEV);
	assert_int_equal(kt_attach(u->onlooker), -ENODEV);
	assert_int_equal(kt_bo_create(u->fd, KU_LEN, &c), -ENODEV);
	assert_int_equal(kt_read_bo(u->fd, u->bo, 0, u->back, u->g), -ENODEV);
	errno = 0;
	assert_true(mmap(NULL, u->g, PROT_READ, MAP_SHARED, u->fd,
			 (off_t)u->mc.mmap_offset) == MAP_FAILED);
	assert_int_equal(errno, ENODEV);
	/*
	 * Its fdinfo still reads, naming no PCI address: the function and
	 * its pci_dev may be freed, and the address was read through them.
	 */
	assert_int_equal(kt_fdinfo(u->fd, info_text, sizeof(info_text)), 0);
	assert_non_null(strstr(info_text, "drm-driver:\tipu\n"));
	if (strstr(info_text, "drm-pdev:"))
		fail_msg("fdinfo %s: %s", when, info_text);
	assert_int_equal(kt_close(u->onlooker), 0);
	assert_int_equal(kt_close(u->fd), 0);
	for (i = 0; i < KS_POLLS && kt_pinned_now() != u->pins; i++)
		ks_pause();
	assert_int_equal(kt_pinned_now(), u->pins);
}

/*
 * The function of @u is back at its address as ipu@n, probed: what the
 * DMA API and pinning hold is what they held before, a transfer and a
 * launch work, and the old mapping reaches nothing (@when: how it came
 * back, for the messages).
 */
static inline void ku_assert_back(struct ku_in_use *u, unsigned int n,
				  const char *when)
{
	static const uint8_t junk[256];
	struct ipu_launch l;
	int fd, i, status;

	for (i = 0; i < KS_POLLS && !kt_dma_api_same(&u->dma); i++)
		ks_pause();
	assert_dma_api_as_before(&u->dma);
	assert_int_equal(kt_pinned_now(), u->pins);
	fd = ku_works_again(n, u->buf, u->back, KU_LEN, 31);
	/* The command queue runs: junk for an image is E_NOEXEC. */
	kp_launch_bufs(fd, junk, sizeof(junk), 4096, &l);
	l.fence = 0;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_LAUNCH, &l), 0);
	assert_int_equal(kt_wait_fence(fd, l.fence, KU_FAR_NS, &status), 0);
	assert_int_equal(status, -ENOEXEC);
	/* The old mapping reaches nothing of the new binding's memory either. */
	ku_assert_sigbus(u->map, u->g, when);
}

#endif /* IPU_TESTS_KINUSE_H */
