// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * vfio_user_sock.c - framing of vfio-user messages over a UNIX stream
 * socket, with file descriptors as SCM_RIGHTS. Received fds are always
 * close-on-exec (MSG_CMSG_CLOEXEC); fds the kernel had to drop for lack of
 * room (MSG_CTRUNC) are reported as too many, never half-used.
 *
 * Deadlines: a timeout per recvmsg() or sendmsg() (SO_RCVTIMEO) bounds
 * nothing, since a peer that moves one byte now and then restarts it
 * every time. A whole message has one deadline instead: every call is
 * non-blocking, and the waits between them (poll()) share what is left
 * of it.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "vfio_user_sock.h"

/* Collect the SCM_RIGHTS fds of @mh into @fds (room for VFU_MAX_FDS). */
static int take_fds(struct msghdr *mh, int *fds, unsigned int *nfds)
{
	bool too_many = (mh->msg_flags & MSG_CTRUNC) != 0;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm;
	     cm = CMSG_NXTHDR(mh, cm)) {
		size_t n;
		int *in;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		in = (int *)CMSG_DATA(cm);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, in + i, sizeof(fd));
			if (*nfds < VFU_MAX_FDS)
				fds[(*nfds)++] = fd;
			else {
				close(fd);
				too_many = true;
			}
		}
	}
	return too_many ? -E2BIG : 0;
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* A deadline @limit_ms from now, 0 (none) for a @limit_ms of 0. */
static uint64_t deadline_in(unsigned int limit_ms)
{
	return limit_ms ? now_ms() + limit_ms : 0;
}

/*
 * Wait until @sock is ready for @events or @deadline (0: none) passes.
 * Return: 0 or -ETIMEDOUT.
 */
static int wait_ready(int sock, short events, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = sock, .events = events };
		uint64_t now = deadline ? now_ms() : 0;
		int n;

		if (deadline && now >= deadline)
			return -ETIMEDOUT;
		n = poll(&p, 1, deadline ? (int)(deadline - now) : -1);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

/*
 * After a non-blocking call failed with errno: 0 to try it again (it was
 * interrupted, or @sock is ready for @events now), or the error
 * (-ETIMEDOUT past @deadline).
 */
static int after_failure(int sock, short events, uint64_t deadline)
{
	if (errno == EINTR)
		return 0;
	if (errno != EAGAIN)
		return -errno;
	return wait_ready(sock, events, deadline);
}

/*
 * Read exactly @len bytes into @buf (NULL: drop them), collecting fds, by
 * @deadline (0: none).
 * Return: bytes read (< @len only at end of stream) or a negative errno.
 */
static ssize_t read_full(int sock, void *buf, size_t len, int *fds,
			 unsigned int *nfds, int *fd_err, uint64_t deadline)
{
	union {
		char buf[CMSG_SPACE(VFU_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	char scratch[4096];
	size_t done = 0;

	while (done < len) {
		size_t want = len - done;
		struct iovec iov;
		struct msghdr mh;
		ssize_t n;
		int ret;

		if (!buf && want > sizeof(scratch))
			want = sizeof(scratch);
		iov.iov_base = buf ? (char *)buf + done : scratch;
		iov.iov_len = want;
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n < 0) {
			ret = after_failure(sock, POLLIN, deadline);
			if (ret)
				return ret;
			continue;
		}
		ret = take_fds(&mh, fds, nfds);
		if (ret)
			*fd_err = ret;
		if (!n)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t vfu_sock_recv(int sock, void *buf, size_t cap, int *fds,
		      unsigned int *nfds, unsigned int limit_ms)
{
	uint64_t deadline = deadline_in(limit_ms);
	struct vfu_hdr hdr;
	int fd_err = 0;
	ssize_t n;

	*nfds = 0;
	n = read_full(sock, &hdr, sizeof(hdr), fds, nfds, &fd_err, deadline);
	if (n < 0)
		return n;
	if (!n && !*nfds)
		return 0;
	if ((size_t)n < sizeof(hdr))
		return -ECONNRESET;	/* closed mid-header */
	if (cap >= sizeof(hdr))
		memcpy(buf, &hdr, sizeof(hdr));
	if (hdr.size < sizeof(hdr))
		return -EINVAL;
	if (hdr.size > cap) {
		n = read_full(sock, NULL, hdr.size - sizeof(hdr), fds, nfds,
			      &fd_err, deadline);
		if (n < 0)
			return n;
		return (size_t)n < hdr.size - sizeof(hdr) ? -ECONNRESET :
							    -EMSGSIZE;
	}
	n = read_full(sock, (char *)buf + sizeof(hdr), hdr.size - sizeof(hdr),
		      fds, nfds, &fd_err, deadline);
	if (n < 0)
		return n;
	if ((size_t)n < hdr.size - sizeof(hdr))
		return -ECONNRESET;
	if (fd_err)
		return fd_err;
	return (ssize_t)hdr.size;
}

int vfu_sock_send(int sock, const struct vfu_hdr *hdr, const void *payload,
		  size_t len, int fd, unsigned int limit_ms)
{
	uint64_t deadline = deadline_in(limit_ms);
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov[2] = {
		{ (void *)hdr, sizeof(*hdr) },
		{ (void *)payload, len },
	};
	struct msghdr mh;
	size_t total = sizeof(*hdr) + len, sent = 0;
	bool fd_sent = fd < 0;

	while (sent < total) {
		struct iovec part[2];
		int niov = 0;
		size_t skip = sent;
		ssize_t n;

		/* The iovecs past what is already sent. */
		for (int i = 0; i < 2; i++) {
			if (skip >= iov[i].iov_len) {
				skip -= iov[i].iov_len;
				continue;
			}
			part[niov].iov_base = (char *)iov[i].iov_base + skip;
			part[niov].iov_len = iov[i].iov_len - skip;
			niov++;
			skip = 0;
		}
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = part;
		mh.msg_iovlen = (size_t)niov;
		if (!fd_sent) {
			struct cmsghdr *cm;

			memset(&ctl, 0, sizeof(ctl));
			mh.msg_control = ctl.buf;
			mh.msg_controllen = sizeof(ctl.buf);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		}
		n = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			int ret = after_failure(sock, POLLOUT, deadline);

			if (ret)
				return ret;
			continue;
		}
		fd_sent = true;
		sent += (size_t)n;
	}
	return 0;
}

int vfu_sock_listen(const char *path, int backlog, int *out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	/* Replace a stale socket of an earlier run, never another file. */
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		if (unlink(path))
			return -errno;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, backlog)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	*out = fd;
	return 0;
}
