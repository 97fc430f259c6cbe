// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * vfio_user_irq.c - MSI-X vectors as eventfds. An interrupt is one 8-byte
 * write of 1 to the vector's eventfd: the client (QEMU) turns it into the
 * guest's MSI-X message. A masked vector keeps a pending bit instead, as
 * the PCI spec's MSI-X Pending Bit Array does, and fires when unmasked.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "vfio_user_irq.h"

struct vector {
	int fd;			/* eventfd, or -1 */
	bool masked;
	bool pending;
};

struct vfu_irq {
	pthread_mutex_t lock;	/* protects every vector's fields */
	unsigned int count;
	struct vector vec[];
};

int vfu_irq_create(unsigned int count, struct vfu_irq **out)
{
	struct vfu_irq *irq;

	irq = calloc(1, sizeof(*irq) + (size_t)count * sizeof(irq->vec[0]));
	if (!irq)
		return -ENOMEM;
	pthread_mutex_init(&irq->lock, NULL);
	irq->count = count;
	for (unsigned int i = 0; i < count; i++)
		irq->vec[i].fd = -1;
	*out = irq;
	return 0;
}

void vfu_irq_destroy(struct vfu_irq *irq)
{
	if (!irq)
		return;
	vfu_irq_reset(irq);
	pthread_mutex_destroy(&irq->lock);
	free(irq);
}

unsigned int vfu_irq_count(const struct vfu_irq *irq)
{
	return irq->count;
}

static bool in_range(const struct vfu_irq *irq, uint32_t start, uint32_t count)
{
	return start <= irq->count && count <= irq->count - start;
}

static void signal_fd(int fd)
{
	uint64_t one = 1;

	/* A full eventfd counter (2^64 - 2 unread) already means "pending". */
	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

int vfu_irq_set_eventfds(struct vfu_irq *irq, uint32_t start, uint32_t count,
			 int *fds)
{
	if (!in_range(irq, start, count)) {
		for (uint32_t i = 0; fds && i < count; i++)
			close(fds[i]);
		return -EINVAL;
	}
	pthread_mutex_lock(&irq->lock);
	for (uint32_t i = 0; i < count; i++) {
		struct vector *v = &irq->vec[start + i];

		if (v->fd >= 0)
			close(v->fd);
		v->fd = fds ? fds[i] : -1;
		/*
		 * signal_fd() runs under the device's locks: a blocking
		 * eventfd whose counter the client filled would hang it
		 * there. QEMU's eventfds are non-blocking already; make
		 * sure of it. (The flag lives in the file description the
		 * client shares, so a client that clears it again hurts
		 * only its own device; see signal_fd().)
		 */
		if (v->fd >= 0)
			fcntl(v->fd, F_SETFL,
			      fcntl(v->fd, F_GETFL) | O_NONBLOCK);
	}
	pthread_mutex_unlock(&irq->lock);
	return 0;
}

int vfu_irq_mask(struct vfu_irq *irq, uint32_t start, uint32_t count,
		 const uint8_t *bools, bool mask)
{
	if (!in_range(irq, start, count))
		return -EINVAL;
	pthread_mutex_lock(&irq->lock);
	for (uint32_t i = 0; i < count; i++) {
		struct vector *v = &irq->vec[start + i];

		if (bools && !bools[i])
			continue;
		v->masked = mask;
		if (!mask && v->pending && v->fd >= 0) {
			v->pending = false;
			signal_fd(v->fd);
		}
	}
	pthread_mutex_unlock(&irq->lock);
	return 0;
}

/* With the lock held. */
static int raise_locked(struct vector *v)
{
	if (v->fd < 0)
		return -ENOENT;
	if (v->masked)
		v->pending = true;
	else
		signal_fd(v->fd);
	return 0;
}

int vfu_irq_trigger(struct vfu_irq *irq, uint32_t start, uint32_t count,
		    const uint8_t *bools)
{
	if (!in_range(irq, start, count))
		return -EINVAL;
	pthread_mutex_lock(&irq->lock);
	for (uint32_t i = 0; i < count; i++)
		if (!bools || bools[i])
			raise_locked(&irq->vec[start + i]);
	pthread_mutex_unlock(&irq->lock);
	return 0;
}

int vfu_irq_raise(struct vfu_irq *irq, unsigned int vector)
{
	int ret;

	if (vector >= irq->count)
		return -EINVAL;
	pthread_mutex_lock(&irq->lock);
	ret = raise_locked(&irq->vec[vector]);
	pthread_mutex_unlock(&irq->lock);
	return ret;
}

bool vfu_irq_pending(struct vfu_irq *irq, unsigned int vector)
{
	bool p;

	if (vector >= irq->count)
		return false;
	pthread_mutex_lock(&irq->lock);
	p = irq->vec[vector].pending;
	pthread_mutex_unlock(&irq->lock);
	return p;
}

void vfu_irq_reset(struct vfu_irq *irq)
{
	pthread_mutex_lock(&irq->lock);
	for (unsigned int i = 0; i < irq->count; i++) {
		struct vector *v = &irq->vec[i];

		if (v->fd >= 0)
			close(v->fd);
		v->fd = -1;
		v->masked = false;
		v->pending = false;
	}
	pthread_mutex_unlock(&irq->lock);
}
