/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * vfio_user.h - ipu-emu's vfio-user transport, as main.c uses it: one
 * server per device, each a thread that listens on the device's UNIX
 * socket, serves one client at a time (QEMU's vfio-user-pci) and goes back
 * to listening when the client leaves. Every emu_dev_* call for the device
 * is made from that thread, as emu_dev.h asks; other threads reach the
 * device through vfu_server_call(). Each client's socket is read by a
 * reader thread of its own, so that the client's answers to the device's
 * DMA_READ/WRITE requests arrive while the server thread is busy.
 *
 * Order of use: vfu_server_create() (binds and listens), emu_dev_create()
 * with vfu_server_host_ops(), vfu_server_start(); at the end
 * vfu_server_stop() (no more device calls, sockets closed and removed),
 * emu_dev_destroy(), vfu_server_destroy() (the DMA mappings the device's
 * threads used until then).
 */
#ifndef IPU_EMU_VFIO_USER_H
#define IPU_EMU_VFIO_USER_H

#include <stdbool.h>
#include <stdio.h>

#include "emu_dev.h"

struct vfu_server;

/**
 * struct vfu_server_opts - one server.
 * @path: the UNIX socket to create (an existing socket file there is
 *	replaced), or NULL for a server fed only by vfu_server_adopt().
 * @name: the device's name in log lines ("ipu0").
 * @log: where protocol events and errors go, or NULL.
 * @trace: also log every command the client sends (debugging).
 * @remote_dma: reach client memory the server cannot map (shared with no
 *	fd, or as a file not sealed against shrinking) with DMA_READ /
 *	DMA_WRITE requests in the vfio-user specification's layout. Off, the
 *	device's DMA there fails as an IOMMU fault would. Off by default:
 *	QEMU 11's client parses these messages in a layout of its own (a
 *	32-bit count, data at payload offset 12), so the specification's
 *	DMA_WRITE would put shifted bytes into such a guest's memory.
 * @remote_dma_qemu: with @remote_dma, speak QEMU 11's layout instead (its
 *	client's only one: a 32-bit count, data at payload offset 12, and 4
 *	bytes of padding after it), for a QEMU guest whose RAM the server
 *	cannot map (memory-backend-file).
 * @max_mmaps: at most this many client memory ranges mmap()ed at once
 *	(0: no limit): the IPU's share of vm.max_map_count
 *	(vfio_user_dma.h's vfu_dma_mmap_share()); a DMA_MAP past it is
 *	refused (ENOSPC) with a log line.
 */
struct vfu_server_opts {
	const char *path;
	const char *name;
	FILE *log;
	bool trace;
	bool remote_dma;
	bool remote_dma_qemu;
	unsigned int max_mmaps;
};

/** vfu_server_create() - bind and listen on @opts->path. */
int vfu_server_create(const struct vfu_server_opts *opts,
		      struct vfu_server **out);

/** vfu_server_host_ops() - the host ops to create the device with. */
void vfu_server_host_ops(struct vfu_server *s, struct emu_host_ops *ops);

/** vfu_server_start() - serve @dev from the server's own thread. */
int vfu_server_start(struct vfu_server *s, struct emu_dev *dev);

/**
 * vfu_server_adopt() - serve the already-connected socket @fd (taken over)
 * as the next client, e.g. one end of a socketpair in a test. -ENODEV
 * (@fd closed) once the server is retired (vfu_server_status).
 */
int vfu_server_adopt(struct vfu_server *s, int fd);

/**
 * vfu_server_call() - run @fn(dev, @arg) on the server's thread and return
 * what it returns; afterwards a device that fell off the bus loses its
 * client. -ESHUTDOWN once the server is stopping; -ETIMEDOUT (@fn not
 * run) when the thread did not take the call within its limit (seconds:
 * it takes a call between two messages, and a message has a deadline).
 */
int vfu_server_call(struct vfu_server *s,
		    int (*fn)(struct emu_dev *dev, void *arg), void *arg);

/**
 * struct vfu_server_status - a snapshot for the control socket.
 * @connected: a client is being served.
 * @negotiated: it completed VERSION.
 * @dma_maps: DMA mappings it made.
 * @clients: clients served since start.
 * @retired: no client is served again: the device could not be given
 *	device memory that its last client does not map.
 */
struct vfu_server_status {
	bool connected, negotiated, retired;
	unsigned int dma_maps;
	unsigned long clients;
};
void vfu_server_status(struct vfu_server *s, struct vfu_server_status *st);

/**
 * vfu_server_stop() - make the thread close its client and listening
 * socket, remove the socket file and exit; wait for it. Idempotent.
 */
void vfu_server_stop(struct vfu_server *s);

/** vfu_server_destroy() - stop, then free (after emu_dev_destroy()). */
void vfu_server_destroy(struct vfu_server *s);

#endif /* IPU_EMU_VFIO_USER_H */
