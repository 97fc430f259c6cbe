// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * vfio_user_remote.c - DMA_READ / DMA_WRITE from the server to the client,
 * for client memory the server could not map.
 *
 * Design: who waits for whom, and why nothing waits for ever.
 *
 *  - A device thread (a DMA queue, the command queue, a run) that must
 *    reach such memory sends a request and waits on this object's
 *    condition variable for the reply with the same message id, at most
 *    VFU_REMOTE_LIMIT_MS. It never holds dev->lock meanwhile
 *    (emu_internal.h): QEMU answers from its main loop, which needs the
 *    BQL, and a vCPU holds that while it waits for a register read, which
 *    takes dev->lock. A device call of the server thread that waits for
 *    the device's threads (a reset) drops dev->lock while it waits.
 *
 *  - Replies are read from the client's socket by the transport's reader
 *    thread (vfio_user_server.c), never by the server thread. The server
 *    thread makes every device call; a device call (an FLR, a soft
 *    reset, the lost client's reset) may wait for a device thread that
 *    waits for a reply. Were the server thread the one reading the
 *    socket, that reply would never be read: the reader thread exists to
 *    break that cycle. It does nothing but read messages, hand replies to
 *    vfu_remote_reply() (which takes only this object's lock), and queue
 *    commands for the server thread; it never calls into the device.
 *    Its queue of commands is bounded: when the server thread is behind
 *    (inside a device call) and the client keeps sending commands, the
 *    reader stops reading, and a reply behind those commands waits; the
 *    request's time limit then fails the access and the cycle is broken
 *    (the client is dropped as one that did not answer).
 *
 *  - A client that does not answer in time fails that one access with
 *    -EFAULT, as an IOMMU fault would on silicon (the device reports it as
 *    any DMA fault), and is dropped: on_failed() asks the transport to.
 *    Detaching (the client lost) fails every request waiting at once,
 *    before the transport resets the device, whose threads may be the
 *    ones waiting.
 *
 *  - Every message on the socket, request or reply, is sent whole under
 *    send_lock, within a deadline: a client that stops reading blocks a
 *    sender for that long at most.
 *
 * Lock order: r->lock or r->send_lock, never both at once; no caller
 * holds dev->lock.
 *
 * Wire format: the specification's (docs/interop/vfio-user.rst), a 64-bit
 * address and a 64-bit count, data at payload offset 16; or QEMU 11's
 * (vfu_remote_set_qemu_layout()), whose client knows only its own: a
 * 64-bit address, a 32-bit count, data at payload offset 12, then 4 bytes
 * of padding (its struct's size, which its checks count). Both are 16
 * bytes of payload beside the data, so a reply in the other layout is not
 * refused by its size: the layout is the server's option, not guessed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vfio_user_parse.h"
#include "vfio_user_remote.h"
#include "vfio_user_sock.h"

struct pending {
	struct pending *next;
	uint16_t id, cmd;
	uint64_t addr;
	void *buf;		/* a read's destination */
	size_t len;
	bool done;
	int err;
};

struct vfu_remote {
	pthread_mutex_t lock;		/* everything below but send_lock */
	pthread_cond_t cond;		/* a reply, a detach, a sender done */
	pthread_mutex_t send_lock;	/* one whole message at a time */
	int sock;			/* -1: no client */
	uint64_t max_xfer;
	uint16_t next_id;
	bool qemu;			/* QEMU 11's layout */
	unsigned int senders;		/* threads using @sock now */
	bool failed;
	struct pending *pending;
	void (*on_failed)(void *ctx);
	void *ctx;
};

int vfu_remote_create(void (*on_failed)(void *ctx), void *ctx,
		      struct vfu_remote **out)
{
	struct vfu_remote *r = calloc(1, sizeof(*r));
	pthread_condattr_t ca;

	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->send_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cond, &ca);
	pthread_condattr_destroy(&ca);
	r->sock = -1;
	r->max_xfer = VFU_DEFAULT_MAX_XFER;
	r->on_failed = on_failed;
	r->ctx = ctx;
	*out = r;
	return 0;
}

void vfu_remote_destroy(struct vfu_remote *r)
{
	if (!r)
		return;
	vfu_remote_detach(r);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->send_lock);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

void vfu_remote_attach(struct vfu_remote *r, int sock, uint64_t max_xfer)
{
	pthread_mutex_lock(&r->lock);
	r->sock = sock;
	r->max_xfer = max_xfer;
	r->failed = false;
	pthread_mutex_unlock(&r->lock);
}

void vfu_remote_set_qemu_layout(struct vfu_remote *r, bool qemu)
{
	pthread_mutex_lock(&r->lock);
	r->qemu = qemu;
	pthread_mutex_unlock(&r->lock);
}

void vfu_remote_set_max_xfer(struct vfu_remote *r, uint64_t max_xfer)
{
	pthread_mutex_lock(&r->lock);
	r->max_xfer = max_xfer;
	pthread_mutex_unlock(&r->lock);
}

void vfu_remote_detach(struct vfu_remote *r)
{
	pthread_mutex_lock(&r->lock);
	r->sock = -1;
	for (struct pending *p = r->pending; p; p = p->next) {
		if (!p->done) {
			p->done = true;
			p->err = -EFAULT;
		}
	}
	pthread_cond_broadcast(&r->cond);
	/* The caller closes the socket next: nobody may be sending on it. */
	while (r->senders)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

bool vfu_remote_failed(struct vfu_remote *r)
{
	bool failed;

	pthread_mutex_lock(&r->lock);
	failed = r->failed;
	pthread_mutex_unlock(&r->lock);
	return failed;
}

/* Take the socket for a send (r->lock held): -ENOTCONN without a client. */
static int sender_get_locked(struct vfu_remote *r, int *sock)
{
	if (r->sock < 0)
		return -ENOTCONN;
	*sock = r->sock;
	r->senders++;
	return 0;
}

static void sender_put(struct vfu_remote *r)
{
	pthread_mutex_lock(&r->lock);
	r->senders--;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

static int send_on(struct vfu_remote *r, int sock, const struct vfu_hdr *hdr,
		   const void *payload, size_t len, int fd,
		   unsigned int limit_ms)
{
	int ret;

	pthread_mutex_lock(&r->send_lock);
	ret = vfu_sock_send(sock, hdr, payload, len, fd, limit_ms);
	pthread_mutex_unlock(&r->send_lock);
	return ret;
}

int vfu_remote_send(struct vfu_remote *r, const struct vfu_hdr *hdr,
		    const void *payload, size_t len, int fd,
		    unsigned int limit_ms)
{
	int sock, ret;

	pthread_mutex_lock(&r->lock);
	ret = sender_get_locked(r, &sock);
	pthread_mutex_unlock(&r->lock);
	if (ret)
		return ret;
	ret = send_on(r, sock, hdr, payload, len, fd, limit_ms);
	sender_put(r);
	return ret;
}

static void unlink_pending_locked(struct vfu_remote *r, struct pending *p)
{
	for (struct pending **pp = &r->pending; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			return;
		}
	}
}

/* One request of at most the client's transfer size, and its reply. */
static int rw_chunk(struct vfu_remote *r, uint64_t addr, void *buf,
		    size_t len, bool write)
{
	struct pending p = {
		.cmd = write ? VFU_CMD_DMA_WRITE : VFU_CMD_DMA_READ,
		.addr = addr, .buf = buf, .len = len,
	};
	size_t plen = sizeof(struct vfu_dma_rw) + (write ? len : 0);
	struct vfu_dma_rw rw = { addr, len };
	struct vfu_hdr hdr = { .cmd = p.cmd, .flags = VFU_TYPE_COMMAND };
	struct timespec limit;
	bool timed_out = false, qemu;
	uint32_t count32 = (uint32_t)len;
	uint8_t *payload;
	int sock, ret;

	pthread_mutex_lock(&r->lock);
	qemu = r->qemu;
	pthread_mutex_unlock(&r->lock);
	/* Zeroed: QEMU's padding (and a read's high half of the count). */
	payload = calloc(1, plen);
	if (!payload)
		return -EFAULT;
	if (qemu) {
		/* Chunks are at most VFU_MAX_XFER: the count fits 32 bits. */
		memcpy(payload, &rw.addr, sizeof(rw.addr));
		memcpy(payload + VFU_DMA_QEMU_COUNT, &count32, sizeof(count32));
		if (write)
			memcpy(payload + VFU_DMA_QEMU_DATA, buf, len);
	} else {
		memcpy(payload, &rw, sizeof(rw));
		if (write)
			memcpy(payload + sizeof(rw), buf, len);
	}
	hdr.size = (uint32_t)(sizeof(hdr) + plen);

	pthread_mutex_lock(&r->lock);
	ret = sender_get_locked(r, &sock);
	if (ret) {
		pthread_mutex_unlock(&r->lock);
		free(payload);
		return -EFAULT;
	}
	p.id = r->next_id++;
	hdr.msg_id = p.id;
	p.next = r->pending;
	r->pending = &p;
	pthread_mutex_unlock(&r->lock);

	ret = send_on(r, sock, &hdr, payload, plen, -1, VFU_REMOTE_LIMIT_MS);
	free(payload);
	clock_gettime(CLOCK_MONOTONIC, &limit);
	limit.tv_sec += VFU_REMOTE_LIMIT_MS / 1000;
	limit.tv_nsec += (long)(VFU_REMOTE_LIMIT_MS % 1000) * 1000000L;
	if (limit.tv_nsec >= 1000000000L) {
		limit.tv_sec++;
		limit.tv_nsec -= 1000000000L;
	}

	pthread_mutex_lock(&r->lock);
	r->senders--;
	pthread_cond_broadcast(&r->cond);
	if (ret) {
		/* The stream is lost: the reader sees it too. */
		timed_out = ret == -ETIMEDOUT;
		ret = -EFAULT;
	} else {
		while (!p.done && r->sock >= 0) {
			if (pthread_cond_timedwait(&r->cond, &r->lock, &limit) ==
			    ETIMEDOUT)
				break;
		}
		if (p.done) {
			ret = p.err;
		} else {
			timed_out = r->sock >= 0;
			ret = -EFAULT;
		}
	}
	unlink_pending_locked(r, &p);
	if (timed_out)
		r->failed = true;
	pthread_mutex_unlock(&r->lock);
	if (timed_out && r->on_failed)
		r->on_failed(r->ctx);
	return ret;
}

int vfu_remote_rw(struct vfu_remote *r, uint64_t addr, void *buf, size_t len,
		  bool write)
{
	uint64_t chunk;
	size_t done = 0;

	pthread_mutex_lock(&r->lock);
	chunk = r->max_xfer;
	pthread_mutex_unlock(&r->lock);
	/* Our reader takes replies of at most VFU_MAX_XFER bytes of data. */
	if (chunk > VFU_MAX_XFER)
		chunk = VFU_MAX_XFER;
	if (!chunk)
		return -EFAULT;
	while (done < len) {
		size_t n = len - done < chunk ? len - done : (size_t)chunk;
		int ret = rw_chunk(r, addr + done, (uint8_t *)buf + done, n,
				   write);

		if (ret)
			return ret;
		done += n;
	}
	return 0;
}

int vfu_remote_reply(struct vfu_remote *r, const void *msg, size_t len)
{
	struct vfu_dma_reply rep;
	struct pending *p;
	bool qemu;
	int ret;

	pthread_mutex_lock(&r->lock);
	qemu = r->qemu;
	pthread_mutex_unlock(&r->lock);
	ret = vfu_parse_dma_reply(msg, len, qemu, &rep);
	if (ret)
		return ret;
	pthread_mutex_lock(&r->lock);
	for (p = r->pending; p; p = p->next)
		if (!p->done && p->id == rep.hdr.msg_id && p->cmd == rep.hdr.cmd)
			break;
	if (!p) {
		pthread_mutex_unlock(&r->lock);
		return -ENOENT;
	}
	p->err = 0;
	if (rep.hdr.flags & VFU_FLAG_ERROR)
		p->err = -EFAULT;
	else if (p->cmd == VFU_CMD_DMA_READ &&
		 (rep.addr != p->addr || rep.count != p->len))
		p->err = -EFAULT;	/* not what was asked: use none of it */
	else if (p->cmd == VFU_CMD_DMA_READ)
		memcpy(p->buf, rep.data, p->len);
	p->done = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return 0;
}
