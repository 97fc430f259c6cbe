/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * vfio_user_sock.h - vfio-user message framing on a UNIX stream socket:
 * one message is a 16-byte header whose size field covers the whole
 * message, the payload, and file descriptors as SCM_RIGHTS ancillary data
 * on the message's first bytes.
 */
#ifndef IPU_EMU_VFIO_USER_SOCK_H
#define IPU_EMU_VFIO_USER_SOCK_H

#include <stddef.h>
#include <sys/types.h>

#include "vfio_user_proto.h"

/**
 * vfu_sock_recv() - read one message into @buf (@cap bytes) and the fds
 * that came with it into @fds (room for VFU_MAX_FDS; *@nfds set), all of
 * it within @limit_ms of the call (0: no limit). Call it when the first
 * byte is there (poll() said so): the limit is then the message's deadline
 * from its first byte.
 *
 * Return: the message's length; 0 when the peer closed the socket before a
 * message began; -EMSGSIZE when the header announces more than @cap bytes
 * (the rest of the message is read and dropped so the stream stays in
 * step; the header is in @buf), -EINVAL when it announces less than a
 * header, -E2BIG when more fds came than VFU_MAX_FDS (those that did come
 * are in @fds: the caller refuses the message and closes them), or
 * another negative errno when the socket failed mid-message (closed,
 * -ETIMEDOUT past the deadline: the stream is lost). Every fd received is in @fds whatever
 * the return, except when the return is 0.
 */
ssize_t vfu_sock_recv(int sock, void *buf, size_t cap, int *fds,
		      unsigned int *nfds, unsigned int limit_ms);

/**
 * vfu_sock_send() - send @hdr and @len bytes of @payload, with @fd (not
 * closed) as ancillary data unless it is -1, all within @limit_ms (0: no
 * limit). Return: 0 or a negative errno (-ETIMEDOUT: the peer did not
 * take it in time, and the stream is lost).
 */
int vfu_sock_send(int sock, const struct vfu_hdr *hdr, const void *payload,
		  size_t len, int fd, unsigned int limit_ms);

/**
 * vfu_sock_listen() - a UNIX stream socket listening at @path (@backlog
 * pending connections), in *@out. A socket file left at @path by an
 * earlier run is replaced; any other file there is not (-EEXIST).
 * Return: 0 or a negative errno (-ENAMETOOLONG for a @path too long).
 */
int vfu_sock_listen(const char *path, int backlog, int *out);

#endif /* IPU_EMU_VFIO_USER_SOCK_H */
