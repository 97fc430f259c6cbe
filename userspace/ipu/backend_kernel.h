/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * backend_kernel.h - the "hw" backend's objects, shared by its files:
 * backend_kernel.c (devices, BOs, ioctls) and backend_kernel_queue.c (the
 * io_uring queue).
 */
#ifndef IPU_BACKEND_KERNEL_H
#define IPU_BACKEND_KERNEL_H

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

/* backend_kernel_queue.c: the queue ops. */
int kq_create(struct ipu_queue *q);
void kq_destroy(struct ipu_queue *q);
int kq_submit(struct ipu_queue *q, const struct ipu_cmd *cmds, size_t n,
	      const struct ipu_submit_wait *wait, char *why, size_t whylen);
int kq_harvest(struct ipu_queue *q, size_t want,
	       const struct timespec *deadline, bool wait);
int kq_register(struct ipu_queue *q, const struct iovec *bufs, size_t n);

#endif /* IPU_BACKEND_KERNEL_H */
