/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * backend_kernel.h - the "hw" backend's objects, shared by its files:
 * backend_kernel.c (devices, BOs, ioctls) and backend_kernel_queue.c (the
 * io_uring queue).
 */
#ifndef IPU_BACKEND_KERNEL_H
#define IPU_BACKEND_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "internal.h"

/**
 * struct kdev - an open /dev/ipuN.
 * @fd: the file; BO handles and the attachment belong to it.
 * @features: IPU_FEATURE_* bits from GET_INFO at open: what the kernel
 *	offers on this device (io_uring commands, registered buffers).
 */
struct kdev {
	int fd;
	uint64_t features;
};

static inline const struct kdev *kdev_of(const struct ipu_device *dev)
{
	return dev->priv;
}

/**
 * struct kprof - the profile buffer of a launch in flight
 * (backend_kernel_prof.c).
 * @asked: the launch asked for a profile (IPU_LAUNCH_F_PROFILE).
 * @fd: the file of its buffer object.
 * @handle: the buffer object; @size its bytes; @map its mapping, NULL when
 *	it has none (the device records no profiles, or no buffer could be
 *	had: the launch runs unprofiled, its completion has no records).
 * A zeroed one is no buffer, not asked.
 */
struct kprof {
	bool asked;
	int fd;
	uint32_t handle;
	uint32_t size;
	void *map;
};

/* A buffer for a launch on @dev that asks for a profile (never fails). */
void kprof_open(struct kprof *p, const struct ipu_device *dev);
/* The records of the completed launch (NULL: none asked, or no memory);
 * the buffer is destroyed. */
struct ipu_prof *kprof_take(struct kprof *p);
/* Destroy the buffer of a launch that never reached the kernel. */
void kprof_close(struct kprof *p);

/* backend_kernel_queue.c: the queue ops. */
int kq_create(struct ipu_queue *q);
void kq_destroy(struct ipu_queue *q);
int kq_submit(struct ipu_queue *q, const struct ipu_cmd *cmds, size_t n,
	      const struct ipu_submit_wait *wait, char *why, size_t whylen);
int kq_harvest(struct ipu_queue *q, size_t want,
	       const struct timespec *deadline, bool wait);
int kq_register(struct ipu_queue *q, const struct iovec *bufs, size_t n);

#endif /* IPU_BACKEND_KERNEL_H */
