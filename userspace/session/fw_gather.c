// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * fw_gather.c - the gather a split program's firmware needs, served to
 * ipu-simd (docs/instances.md, "ipu_hw"; include/ipu/fw_gather.h is the
 * wire).
 *
 * On "ipu_hw" the kernel's simulated IPUs run their programs in ipu-simd,
 * another process, while the instances' transport (MPI) is this
 * process's (ipu_model_set_instances(), which libipu-mpi calls). So while
 * a session of a split program is attached to "ipu_hw", a thread of this
 * process listens on the abstract socket named after its pid; ipu-simd
 * connects when a run starts and sends each allgather its firmware makes,
 * which the thread performs with the process's instances and answers.
 *
 * One listener per process, shared by its attached split sessions
 * (counted), serving one connection at a time: the instances' collectives
 * must come in the same order on every instance anyway, so one split run
 * at a time. The thread makes the transport's calls while the session's
 * thread waits for the run, never both at once (MPI_THREAD_SERIALIZED is
 * enough). Only root (ipu-simd) or this process's user may connect; every
 * request is checked (magic, size); a stop request ends every wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <ipu/firmware.h>
#include <ipu/fw_gather.h>
#include <ipu/ipu.h>

#include "session_internal.h"

/* Protects @svc. */
static pthread_mutex_t svc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	unsigned int users;	/* attached split sessions on ipu_hw */
	int lfd;		/* the listening socket */
	int stop[2];		/* a byte on stop[1] ends the thread */
	pthread_t thread;
} svc = { .lfd = -1, .stop = { -1, -1 } };

/*
 * Move @len bytes over @fd (@out: send); -EPIPE when the peer closed,
 * -ECANCELED on a stop request.
 */
static int move(int fd, void *buf, size_t len, bool out)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = out ? POLLOUT : POLLIN },
		{ .fd = svc.stop[0], .events = POLLIN },
	};
	uint8_t *p = buf;
	ssize_t n;

	while (len) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[1].revents)
			return -ECANCELED;
		n = out ? send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) :
			  recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Answer a request with @err without gathering: its part is read and
 * dropped, so that the connection stays in step. */
static int refuse(int fd, uint64_t bytes, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int refuse(int fd, uint64_t bytes, int err, const char *fmt, ...)
{
	struct ipu_fw_gather_rep rep = { .status = err };
	uint8_t sink[4096];
	size_t n;
	va_list ap;
	int rc = 0;

	for (; bytes && !rc; bytes -= n) {
		n = bytes < sizeof(sink) ? (size_t)bytes : sizeof(sink);
		rc = move(fd, sink, n, false);
	}
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf(rep.msg, sizeof(rep.msg), fmt, ap);
	va_end(ap);
	return move(fd, &rep, sizeof(rep), true);
}

/* One request of ipu-simd: gather, answer. A failure to talk ends the
 * connection (non-zero); the gather's own failure is answered. */
static int serve_one(int fd, const struct ipufw_instances *inst)
{
	struct ipu_fw_gather_rep rep = { 0 };
	struct ipu_fw_gather_req req;
	uint8_t *buf;
	size_t total;
	int err;

	err = move(fd, &req, sizeof(req), false);
	if (err)
		return err;
	if (req.magic != IPU_FW_GATHER_MAGIC || req.pad || !req.bytes ||
	    req.bytes > IPU_FW_GATHER_MAX_BYTES) {
		ipu_sess_log("ipu_hw instances: a malformed gather request (magic 0x%x, %llu bytes): connection closed",
			     req.magic, (unsigned long long)req.bytes);
		return -EPROTO;
	}
	total = (size_t)req.bytes * inst->count;
	buf = malloc(total);
	if (!buf)
		return refuse(fd, req.bytes, -ENOMEM,
			      "no memory in the launching process for a gather of %zu bytes",
			      total);
	err = move(fd, buf + inst->index * req.bytes, req.bytes, false);
	if (!err) {
		rep.status = inst->allgather(inst->ctx, buf, req.bytes,
					     rep.msg, sizeof(rep.msg));
		rep.msg[sizeof(rep.msg) - 1] = '\0';
		rep.bytes = rep.status ? 0 : total;
		err = move(fd, &rep, sizeof(rep), true);
	}
	if (!err && !rep.status)
		err = move(fd, buf, total, true);
	free(buf);
	return err;
}

/* A connection from ipu-simd, for one run: hello, then its gathers. */
static void serve(int fd)
{
	const struct ipufw_instances *inst = ipu_model_instances();
	struct ipu_fw_gather_hello hello = { .magic = IPU_FW_GATHER_MAGIC,
					     .version = IPU_FW_GATHER_VERSION };
	struct ucred cred;
	socklen_t len = sizeof(cred);

	/* ipu-simd is root's; a process of ours may talk to us anyway. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    (cred.uid != 0 && cred.uid != geteuid())) {
		ipu_sess_log("ipu_hw instances: a connection from uid %d refused",
			     len == sizeof(cred) ? (int)cred.uid : -1);
		return;
	}
	if (!inst)
		return;
	hello.index = inst->index;
	hello.count = inst->count;
	if (move(fd, &hello, sizeof(hello), true))
		return;
	while (!serve_one(fd, inst))
		;
}

static void *service(void *arg)
{
	struct pollfd pfd[2] = { { .fd = svc.lfd, .events = POLLIN },
				 { .fd = svc.stop[0], .events = POLLIN } };
	int fd;

	(void)arg;
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (!pfd[0].revents)
			continue;
		fd = accept4(svc.lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			continue;
		serve(fd);
		close(fd);
	}
	return NULL;
}

static void close_fds(void)
{
	if (svc.lfd >= 0)
		close(svc.lfd);
	if (svc.stop[0] >= 0) {
		close(svc.stop[0]);
		close(svc.stop[1]);
	}
	svc.lfd = svc.stop[0] = svc.stop[1] = -1;
}

static int listen_start(struct ipu_session *s)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	socklen_t alen;
	int n, err;

	if (pipe2(svc.stop, O_CLOEXEC | O_NONBLOCK)) {
		svc.stop[0] = svc.stop[1] = -1;
		return ipu_sess_err(s, -errno, "attach: ipu_hw instances: pipe: %s",
				    strerror(errno));
	}
	svc.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (svc.lfd < 0) {
		err = -errno;
		close_fds();
		return ipu_sess_err(s, err, "attach: ipu_hw instances: socket: %s",
				    strerror(-err));
	}
	n = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "%s%d",
		     IPU_FW_GATHER_NAME, (int)getpid());
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	if (bind(svc.lfd, (struct sockaddr *)&addr, alen) ||
	    listen(svc.lfd, 4)) {
		err = -errno;
		close_fds();
		return ipu_sess_err(s, err,
				    "attach: ipu_hw instances: cannot listen as @%s%d for ipu-simd: %s",
				    IPU_FW_GATHER_NAME, (int)getpid(),
				    strerror(-err));
	}
	err = ipu_sess_thread_create(&svc.thread, service, NULL);
	if (err) {
		close_fds();
		return ipu_sess_err(s, err, "attach: ipu_hw instances: a thread: %s",
				    strerror(-err));
	}
	return 0;
}

int ipu_sess_fw_gather_start(struct ipu_session *s)
{
	int err = 0;

	pthread_mutex_lock(&svc_lock);
	if (!svc.users)
		err = listen_start(s);
	if (!err)
		svc.users++;
	pthread_mutex_unlock(&svc_lock);
	if (!err)
		s->fw_gather = true;
	return err;
}

void ipu_sess_fw_gather_stop(struct ipu_session *s)
{
	if (!s->fw_gather)
		return;
	s->fw_gather = false;
	pthread_mutex_lock(&svc_lock);
	if (!--svc.users) {
		if (write(svc.stop[1], "", 1) != 1)
			ipu_sess_log("ipu_hw instances: cannot stop the gather thread: %s",
				     strerror(errno));
		pthread_join(svc.thread, NULL);
		close_fds();
	}
	pthread_mutex_unlock(&svc_lock);
}
