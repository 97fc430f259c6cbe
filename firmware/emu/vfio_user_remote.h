/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * vfio_user_remote.h - the device's DMA to client memory the server cannot
 * map (a DMA_MAP without a file descriptor, or with a file that is not a
 * memfd sealed against shrinking): VFIO_USER_DMA_READ and DMA_WRITE
 * requests from the server to the client, and their replies.
 *
 * Threads: device threads call vfu_remote_rw() and wait for the reply;
 * the transport's reader thread hands each reply to vfu_remote_reply();
 * the server thread attaches and detaches the client's socket and sends
 * its own replies through vfu_remote_send(), which serialises every
 * message on the socket. The design (why it cannot deadlock) is in
 * vfio_user_remote.c.
 */
#ifndef IPU_EMU_VFIO_USER_REMOTE_H
#define IPU_EMU_VFIO_USER_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vfio_user_proto.h"

/* How long a device access waits for the client's reply: less than QEMU's
 * own wait for a reply of ours (x-msg-timeout, 5 s by default), so that a
 * client stuck waiting for us sees its own request answered first. */
#define VFU_REMOTE_LIMIT_MS	2000u

struct vfu_remote;

/**
 * vfu_remote_create() - no client yet. @on_failed(@ctx) is called (from a
 * device thread, no lock held) when a client did not answer in time: the
 * transport must drop it.
 */
int vfu_remote_create(void (*on_failed)(void *ctx), void *ctx,
		      struct vfu_remote **out);
void vfu_remote_destroy(struct vfu_remote *r);

/**
 * vfu_remote_attach() - the client's socket @sock (not owned), whose
 * messages may carry @max_xfer bytes of data (its max_data_xfer_size).
 */
void vfu_remote_attach(struct vfu_remote *r, int sock, uint64_t max_xfer);

/**
 * vfu_remote_set_qemu_layout() - requests and replies in QEMU 11's layout
 * (a 32-bit count, data at payload offset 12, 4 bytes of padding after
 * it) rather than the specification's (@qemu false, the default).
 */
void vfu_remote_set_qemu_layout(struct vfu_remote *r, bool qemu);

/** vfu_remote_set_max_xfer() - the client announced its limit (VERSION). */
void vfu_remote_set_max_xfer(struct vfu_remote *r, uint64_t max_xfer);

/**
 * vfu_remote_detach() - the client is gone: every request waiting fails
 * (-EFAULT) at once, and every later one until the next attach. Returns
 * when no thread uses the socket any more.
 */
void vfu_remote_detach(struct vfu_remote *r);

/** vfu_remote_failed() - a request timed out since the last attach. */
bool vfu_remote_failed(struct vfu_remote *r);

/**
 * vfu_remote_rw() - read (@write false) or write @len bytes at the
 * client's bus address @addr, from or into @buf, by DMA_READ / DMA_WRITE
 * messages of at most the client's transfer size each. Return: 0, or
 * -EFAULT when there is no client, it answered with an error or a bad
 * reply, or not within VFU_REMOTE_LIMIT_MS (then the client is to be
 * dropped): the access fails as an IOMMU fault would; the bytes of a
 * read are then undefined.
 */
int vfu_remote_rw(struct vfu_remote *r, uint64_t addr, void *buf, size_t len,
		  bool write);

/**
 * vfu_remote_reply() - a reply message (@len bytes) the client sent: hand
 * it to the request it answers. Return: 0, or -ENOENT (it answers no
 * request waiting: late, or made up), -EINVAL (malformed).
 */
int vfu_remote_reply(struct vfu_remote *r, const void *msg, size_t len);

/**
 * vfu_remote_send() - send one message to the attached client (the
 * server's replies), in turn with the requests. Return: 0 or a negative
 * errno (-ENOTCONN without a client).
 */
int vfu_remote_send(struct vfu_remote *r, const struct vfu_hdr *hdr,
		    const void *payload, size_t len, int fd,
		    unsigned int limit_ms);

#endif /* IPU_EMU_VFIO_USER_REMOTE_H */
