/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kfw.h - for the kernel tests that play the firmware themselves: a
 * simulated IPU of their own (the guest's ipu-simd serves ipu0 and ipu1
 * only, so it leaves this one alone), a file attached to it with an
 * executable BO and an arena BO, and a second file that is, or can
 * become, its firmware (FW_ATTACH); then the owner's LAUNCH and the
 * firmware's FW_NEXT and FW_DONE, raw.
 */
#ifndef IPU_TESTS_KFW_H
#define IPU_TESTS_KFW_H

#include "ktest.h"

struct kfw {
	unsigned int idx;
	int owner;		/* attached, with an exe BO and an arena BO */
	int fw;			/* the firmware file */
	struct ipu_launch l;	/* a valid launch of those BOs */
};

/* The device, its owner and firmware files; FW_ATTACH if @attach_fw. */
static inline struct kfw kfw_setup(bool attach_fw)
{
	struct ipu_fw_attach fa = { 0 };
	struct kfw f;

	kt_sim_only("the firmware role (FW_ATTACH, FW_NEXT, FW_DONE)");
	kt_require_sim_ctl();
	f.idx = kt_sim_add(4);
	f.owner = kt_open_attached(f.idx);
	memset(&f.l, 0, sizeof(f.l));
	f.l.exe_handle = kt_bo(f.owner, 4096, NULL);
	f.l.arena_handle = kt_bo(f.owner, 4096, NULL);
	f.l.exe_size = 64;
	f.l.arena_size = 4096;
	f.l.num_replicas = 1;
	f.fw = kt_open(f.idx);
	if (attach_fw)
		assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_ATTACH, &fa), 0);
	return f;
}

/* The owner's LAUNCH of f->l: 0 and *@fence, or -errno. */
static inline int kfw_launch(const struct kfw *f, uint64_t *fence)
{
	struct ipu_launch l = f->l;
	int ret = kt_ioctl(f->owner, IPU_IOCTL_LAUNCH, &l);

	*fence = l.fence;
	return ret;
}

/* FW_NEXT on @fd with a zero struct (timeout 0: polls). */
static inline int kfw_next(int fd, struct ipu_fw_work *w)
{
	memset(w, 0, sizeof(*w));
	return kt_ioctl(fd, IPU_IOCTL_FW_NEXT, w);
}

static inline int kfw_done(int fd, uint64_t id, int32_t status)
{
	struct ipu_fw_done d = { .id = id, .status = status };

	return kt_ioctl(fd, IPU_IOCTL_FW_DONE, &d);
}

/*
 * A device whose firmware is not in userspace (a PCI IPU's runs in the
 * device) refuses the role on file @fd: FW_ATTACH is -EOPNOTSUPP, FW_NEXT
 * and FW_DONE -ENOLINK (@fd is not the firmware), and mmap() of
 * IPU_FW_MMAP_OFFSET (@len bytes) -EINVAL, no buffer being there.
 */
static inline void kfw_assert_refused(int fd, size_t len)
{
	struct ipu_fw_attach fa = { 0 };
	struct ipu_fw_work w;

	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_FW_ATTACH, &fa), -EOPNOTSUPP);
	assert_int_equal(kfw_next(fd, &w), -ENOLINK);
	assert_int_equal(kfw_done(fd, 1, 0), -ENOLINK);
	assert_int_equal(kt_mmap_err(len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				     IPU_FW_MMAP_OFFSET), -EINVAL);
}

#endif /* IPU_TESTS_KFW_H */
