/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * vfio_user_conn.h - one device's vfio-user protocol state and its command
 * handler: a checked message in, the device called, the reply out. No
 * socket here (vfio_user_sock.c frames messages, vfio_user_server.c runs
 * the loop), so tests and the fuzzer call it directly.
 *
 * The state lives as long as the device: the DMA mapping table and the
 * MSI-X eventfds back the device's host ops even between clients. A client
 * that goes away takes its mappings and eventfds with it, and the device
 * is reset to its power-on state before the next client is served
 * (vfu_conn_disconnect()): the next client is another guest, which must
 * find no queue running at the last one's ring addresses. (The
 * specification's "Client Disconnection" section lets a server keep the
 * device's state for a client that reconnects; QEMU's client does not,
 * and a device with DMA running cannot be kept safely.)
 */
#ifndef IPU_EMU_VFIO_USER_CONN_H
#define IPU_EMU_VFIO_USER_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emu_dev.h"
#include "vfio_user_proto.h"

struct vfu_conn;

/**
 * struct vfu_out - the reply to one command.
 * @send: false when the command asked for none (No_reply).
 * @close: the connection must close after the reply (the device fell off
 *	the bus, or the client proposed a major version we do not speak).
 * @hdr: the reply header (size covers @len).
 * @payload, @len: the reply payload (points into the connection's buffer,
 *	valid until the next call).
 * @fd: a file descriptor to pass with the reply (not owned), or -1.
 */
struct vfu_out {
	bool send, close;
	struct vfu_hdr hdr;
	const uint8_t *payload;
	size_t len;
	int fd;
};

/**
 * vfu_conn_create() - protocol state for one device, named @name in log
 * lines written to @log (NULL: no log).
 */
int vfu_conn_create(const char *name, FILE *log, struct vfu_conn **out);
/** vfu_conn_destroy() - after the device is destroyed: unmap, close, free. */
void vfu_conn_destroy(struct vfu_conn *c);

/**
 * vfu_conn_host_ops() - the host ops to create the device with: DMA through
 * this state's mappings, interrupts through its eventfds.
 */
void vfu_conn_host_ops(struct vfu_conn *c, struct emu_host_ops *ops);

/** vfu_conn_attach() - the device the commands go to (once, after create). */
void vfu_conn_attach(struct vfu_conn *c, struct emu_dev *dev);

/**
 * vfu_conn_handle() - carry out the command message @msg (@len bytes, the
 * header's size already known to be @len or the message is refused) that
 * came with the file descriptors @fds[0..@nfds): every fd is either kept
 * (a DMA mapping's memory, an eventfd) or closed before this returns.
 * Malformed or failing commands get the protocol's error reply.
 */
void vfu_conn_handle(struct vfu_conn *c, const void *msg, size_t len,
		     int *fds, unsigned int nfds, struct vfu_out *out);

/**
 * vfu_conn_error() - an error reply with @err (a positive errno) to the
 * command whose header is @req (framing errors: an oversized message).
 */
void vfu_conn_error(const struct vfu_hdr *req, int err, struct vfu_out *out);

/**
 * vfu_conn_connect() - a client connected on @sock (not owned): the
 * device's DMA to memory the server cannot map goes to it as DMA_READ /
 * DMA_WRITE requests (vfio_user_remote.c), until vfu_conn_disconnect().
 */
void vfu_conn_connect(struct vfu_conn *c, int sock);

/**
 * vfu_conn_send() - send the reply @out to the client, in turn with the
 * device's requests, within @limit_ms. Return: 0 or a negative errno.
 */
int vfu_conn_send(struct vfu_conn *c, const struct vfu_out *out,
		  unsigned int limit_ms);

/**
 * vfu_conn_reply() - a reply message of the client (to a DMA_READ or
 * DMA_WRITE request): given to the device thread waiting for it. Any
 * thread but one waiting for a reply. Return: 0, -ENOENT (no request
 * waits for it: logged, harmless) or -EINVAL (malformed: logged).
 */
int vfu_conn_reply(struct vfu_conn *c, const void *msg, size_t len);

/**
 * vfu_conn_on_failed() - @fn(@ctx) is called, from a device thread, when
 * the client left a DMA request unanswered past its limit: the transport
 * must drop it (vfu_conn_client_failed() says so until then).
 */
void vfu_conn_on_failed(struct vfu_conn *c, void (*fn)(void *ctx), void *ctx);
bool vfu_conn_client_failed(struct vfu_conn *c);

/**
 * vfu_conn_disconnect() - the client is gone: fail the device's requests
 * waiting for it, drop its mappings and fds, then reset the device
 * (emu_dev_client_lost()). The socket may be closed once this returns.
 * Returns emu_dev_client_lost()'s error: the device could not be given
 * device memory the last client does not map, and must serve no other.
 */
int vfu_conn_disconnect(struct vfu_conn *c);

/** vfu_conn_set_trace() - log every command and its outcome (debugging). */
void vfu_conn_set_trace(struct vfu_conn *c, bool trace);

/**
 * vfu_conn_set_remote_dma() - reach client memory the server cannot map
 * with DMA_READ/DMA_WRITE requests (@on), or let the device's DMA there
 * fault (off, as after vfu_conn_create()); in QEMU 11's layout with
 * @qemu (vfio_user.h, remote_dma_qemu). Before the first client.
 */
void vfu_conn_set_remote_dma(struct vfu_conn *c, bool on, bool qemu);

/**
 * vfu_conn_set_mmap_limit() - at most @limit client memory ranges mmap()ed
 * at once (0: none): this IPU's share of vm.max_map_count
 * (vfu_dma_mmap_share()). A DMA_MAP past it fails with ENOSPC and a log
 * line. Before the first client.
 */
void vfu_conn_set_mmap_limit(struct vfu_conn *c, unsigned int limit);

/** vfu_conn_dma_maps() / vfu_conn_negotiated() - for status and tests. */
unsigned int vfu_conn_dma_maps(struct vfu_conn *c);
bool vfu_conn_negotiated(const struct vfu_conn *c);

#endif /* IPU_EMU_VFIO_USER_CONN_H */
