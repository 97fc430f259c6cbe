// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * vfio_user_irq.c - MSI-X vectors as eventfds. An interrupt is one 8-byte
 * write of 1 to the vector's eventfd: the client (QEMU) turns it into the
 * guest's MSI-X message. A masked vector keeps a pending bit instead, as
 * the PCI spec's MSI-X Pending Bit Array does, and fires when unmasked.
 *
 * The write goes through an io_uring: the device raises vectors under its
 * own lock, and the eventfd is the client's. A write(2) blocks when the
 * counter is full and the file description is blocking, and the client
 * can make it so at any time (O_NONBLOCK lives in the description it
 * shares with us, F_SETFL is its to call). An io_uring write never blocks
 * the submitter. The common one (counter not full, description
 * non-blocking) completes inside the submit, so the client sees the
 * interrupt as it would after write(2); one that cannot waits in the
 * kernel until it can, or is cancelled when the ring is torn down or the
 * raising thread exits: lost then, but its counter was full, "pending".
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "vfio_user_irq.h"

struct vector {
	int fd;			/* eventfd, or -1 */
	bool masked;
	bool pending;
};

/*
 * Writes a client keeps from completing (its counter full) that one
 * connection may have waiting in the kernel; past them its interrupts are
 * dropped, not queued without bound. A client that reads its eventfds
 * never has any: a write completes inside its submit.
 */
#define RING_INFLIGHT	64u

struct vfu_irq {
	pthread_mutex_t lock;	/* protects every vector's fields, the ring */
	struct io_uring ring;
	bool have_ring;		/* else write(2) (io_uring refused here) */
	unsigned int inflight;	/* submitted writes not yet reaped */
	unsigned int count;
	struct vector vec[];
};

static void ring_open(struct vfu_irq *irq)
{
	irq->inflight = 0;
	irq->have_ring = !io_uring_queue_init(RING_INFLIGHT, &irq->ring, 0);
}

/* The kernel cancels the writes still waiting (they hold their files). */
static void ring_close(struct vfu_irq *irq)
{
	if (irq->have_ring)
		io_uring_queue_exit(&irq->ring);
	irq->have_ring = false;
}

int vfu_irq_create(unsigned int count, struct vfu_irq **out)
{
	struct vfu_irq *irq;

	irq = calloc(1, sizeof(*irq) + (size_t)count * sizeof(irq->vec[0]));
	if (!irq)
		return -ENOMEM;
	pthread_mutex_init(&irq->lock, NULL);
	ring_open(irq);
	irq->count = count;
	for (unsigned int i = 0; i < count; i++)
		irq->vec[i].fd = -1;
	*out = irq;
	return 0;
}

/* Every vector back to no eventfd, unmasked, nothing pending. */
static void clear_vectors(struct vfu_irq *irq)
{
	for (unsigned int i = 0; i < irq->count; i++) {
		struct vector *v = &irq->vec[i];

		if (v->fd >= 0)
			close(v->fd);
		v->fd = -1;
		v->masked = false;
		v->pending = false;
	}
}

void vfu_irq_destroy(struct vfu_irq *irq)
{
	if (!irq)
		return;
	clear_vectors(irq);
	ring_close(irq);
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

/* The counter's value: 1 per interrupt, read by io_uring when it writes. */
static const uint64_t one = 1;

/* Without io_uring: a client that made the eventfd blocking again can
 * block this write. A full counter (2^64 - 2 unread) already means
 * "pending": the -EAGAIN of a non-blocking one loses nothing. */
static void write_nonblocking(int fd)
{
	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

/* With the lock held: forget the writes that completed. */
static void reap(struct vfu_irq *irq)
{
	struct io_uring_cqe *cqe;

	while (!io_uring_peek_cqe(&irq->ring, &cqe)) {
		io_uring_cqe_seen(&irq->ring, cqe);
		irq->inflight--;
	}
}

/* With the lock held: add 1 to the eventfd's counter, never blocking. */
static void signal_fd(struct vfu_irq *irq, int fd)
{
	struct io_uring_sqe *sqe;

	if (!irq->have_ring) {
		write_nonblocking(fd);
		return;
	}
	reap(irq);
	if (irq->inflight >= RING_INFLIGHT)
		return;
	sqe = io_uring_get_sqe(&irq->ring);
	if (!sqe)
		return;
	io_uring_prep_write(sqe, fd, &one, sizeof(one), 0);
	if (io_uring_submit(&irq->ring) != 1) {
		/* The SQE may still be queued, with an fd number the next
		 * submit must not meet once it is closed: a new ring. */
		ring_close(irq);
		ring_open(irq);
		write_nonblocking(fd);
		return;
	}
	irq->inflight++;
	reap(irq);
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
		 * QEMU's eventfds are non-blocking already; make sure of
		 * it. io_uring writes a non-blocking one inside the submit
		 * (a blocking one only from a kernel worker, later), and
		 * write(2), when io_uring is refused here, must not block
		 * on a full counter. The client can clear the flag again
		 * (it lives in the description it shares): see signal_fd().
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
			signal_fd(irq, v->fd);
		}
	}
	pthread_mutex_unlock(&irq->lock);
	return 0;
}

/* With the lock held. */
static int raise_locked(struct vfu_irq *irq, struct vector *v)
{
	if (v->fd < 0)
		return -ENOENT;
	if (v->masked)
		v->pending = true;
	else
		signal_fd(irq, v->fd);
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
			raise_locked(irq, &irq->vec[start + i]);
	pthread_mutex_unlock(&irq->lock);
	return 0;
}

int vfu_irq_raise(struct vfu_irq *irq, unsigned int vector)
{
	int ret;

	if (vector >= irq->count)
		return -EINVAL;
	pthread_mutex_lock(&irq->lock);
	ret = raise_locked(irq, &irq->vec[vector]);
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
	clear_vectors(irq);
	/* Writes a client left waiting die with its ring, and count
	 * against no later client's RING_INFLIGHT. */
	if (irq->have_ring)
		reap(irq);
	if (!irq->have_ring || irq->inflight) {
		ring_close(irq);
		ring_open(irq);
	}
	pthread_mutex_unlock(&irq->lock);
}
