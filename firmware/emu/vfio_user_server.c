// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * vfio_user_server.c - one device's vfio-user server thread: listen on the
 * device's UNIX socket, serve one client at a time, and run calls other
 * threads post (the control socket's fault injection) between messages,
 * so that every emu_dev_* call of the device comes from this one thread.
 *
 * Liveness: the thread must stay free for the next client, posted calls
 * and shutdown, whatever the client does. Each message it receives, and
 * each reply it sends, has MSG_DEADLINE_MS from its first byte (not per
 * recvmsg(): a client trickling a byte now and then would restart that
 * for ever); a client past it is dropped. A posted call waits between two
 * messages at most, and its caller gives up after CALL_LIMIT_MS (the
 * control socket answers with an error) if the thread has not taken it
 * by then. So no client holds its IPU's thread, the control socket or a
 * SIGTERM (which stops every thread) longer than about MSG_DEADLINE_MS
 * plus what the device call in progress takes.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "vfio_user.h"
#include "vfio_user_conn.h"
#include "vfio_user_parse.h"
#include "vfio_user_sock.h"

#define MSG_DEADLINE_MS		3000
#define CALL_LIMIT_MS		8000

struct vfu_server {
	struct vfu_conn *conn;
	struct emu_dev *dev;
	char *path;		/* the socket file we created, or NULL */
	char *name;
	FILE *log;
	int listen_fd;		/* -1 without a path */
	int client_fd;		/* the client being served, or -1 */
	int wake_fd;		/* eventfd: mailbox or stop */
	uint8_t *buf;		/* one message, VFU_MAX_MSG bytes */
	pthread_t thread;
	bool started;

	pthread_mutex_t call_lock;	/* one vfu_server_call() at a time */
	pthread_mutex_t lock;		/* protects the mailbox and status */
	pthread_cond_t cond;		/* a posted call finished (monotonic) */
	int (*call_fn)(struct emu_dev *dev, void *arg);
	void *call_arg;
	int call_ret;
	bool call_posted, call_taken, call_done;
	bool running;			/* the thread may still run a call */
	int adopt_fd;			/* next client to serve, or -1 */
	bool stopping;
	struct vfu_server_status status;
};

static void slog(struct vfu_server *s, const char *what, int err)
{
	if (!s->log)
		return;
	if (err)
		fprintf(s->log, "ipu-emu: %s: %s: %s\n", s->name, what,
			strerror(err));
	else
		fprintf(s->log, "ipu-emu: %s: %s\n", s->name, what);
	fflush(s->log);
}

int vfu_server_create(const struct vfu_server_opts *opts,
		      struct vfu_server **out)
{
	struct vfu_server *s = calloc(1, sizeof(*s));
	int ret = -ENOMEM;

	if (!s)
		return -ENOMEM;
	s->listen_fd = -1;
	s->client_fd = -1;
	s->adopt_fd = -1;
	s->log = opts->log;
	pthread_mutex_init(&s->call_lock, NULL);
	pthread_mutex_init(&s->lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&s->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	s->name = strdup(opts->name ? opts->name : "ipu");
	s->buf = malloc(VFU_MAX_MSG);
	s->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!s->name || !s->buf)
		goto err;
	if (s->wake_fd < 0) {
		ret = -errno;
		goto err;
	}
	ret = vfu_conn_create(s->name, s->log, &s->conn);
	if (ret)
		goto err;
	vfu_conn_set_trace(s->conn, opts->trace);
	if (opts->path) {
		s->path = strdup(opts->path);
		if (!s->path) {
			ret = -ENOMEM;
			goto err;
		}
		ret = vfu_sock_listen(s->path, 4, &s->listen_fd);
		if (ret) {
			free(s->path);
			s->path = NULL;
			goto err;
		}
	}
	*out = s;
	return 0;
err:
	vfu_server_destroy(s);
	return ret;
}

void vfu_server_host_ops(struct vfu_server *s, struct emu_host_ops *ops)
{
	vfu_conn_host_ops(s->conn, ops);
}

static void wake(struct vfu_server *s)
{
	uint64_t one = 1;

	if (write(s->wake_fd, &one, sizeof(one)) < 0)
		return;	/* the counter is already non-zero: it is awake */
}

static void drop_client(struct vfu_server *s, const char *why, int err)
{
	if (s->client_fd < 0)
		return;
	close(s->client_fd);
	s->client_fd = -1;
	vfu_conn_disconnect(s->conn);
	pthread_mutex_lock(&s->lock);
	s->status.connected = false;
	s->status.negotiated = false;
	pthread_mutex_unlock(&s->lock);
	slog(s, why, err);
}

static void take_client(struct vfu_server *s, int fd)
{
	s->client_fd = fd;
	pthread_mutex_lock(&s->lock);
	s->status.connected = true;
	s->status.clients++;
	pthread_mutex_unlock(&s->lock);
	slog(s, "client connected", 0);
}

static void send_reply(struct vfu_server *s, const struct vfu_out *out)
{
	int ret;

	if (!out->send)
		return;
	ret = vfu_sock_send(s->client_fd, &out->hdr, out->payload, out->len,
			    out->fd, MSG_DEADLINE_MS);
	if (ret)
		drop_client(s, "client lost while sending a reply", -ret);
}

/* Read and answer one message of the client. */
static void serve_one(struct vfu_server *s)
{
	int fds[VFU_MAX_FDS];
	unsigned int nfds = 0;
	struct vfu_out out;
	struct vfu_hdr hdr;
	ssize_t n;
	int err = 0;

	n = vfu_sock_recv(s->client_fd, s->buf, VFU_MAX_MSG, fds, &nfds,
			  MSG_DEADLINE_MS);
	if (n > 0) {
		vfu_conn_handle(s->conn, s->buf, (size_t)n, fds, nfds, &out);
		/*
		 * The status first: a client that has its reply may ask the
		 * control socket at once, and must see what it negotiated.
		 */
		pthread_mutex_lock(&s->lock);
		s->status.negotiated = vfu_conn_negotiated(s->conn);
		pthread_mutex_unlock(&s->lock);
		send_reply(s, &out);
		if (out.close)
			drop_client(s, "client disconnected by the server", 0);
		return;
	}
	for (unsigned int i = 0; i < nfds; i++)
		close(fds[i]);
	switch (n) {
	case 0:
		drop_client(s, "client disconnected", 0);
		return;
	case -EMSGSIZE:		/* longer than any command we take */
		err = E2BIG;
		break;
	case -EINVAL:		/* size shorter than a header */
	case -E2BIG:		/* more fds than any command takes */
		err = EINVAL;
		break;
	default:
		drop_client(s, "client dropped (stream broken)", (int)-n);
		return;
	}
	memcpy(&hdr, s->buf, sizeof(hdr));
	if (s->log)
		fprintf(s->log, "ipu-emu: %s: message id %u (%u bytes, %u fds) refused: %s\n",
			s->name, hdr.msg_id, hdr.size, nfds, strerror(err));
	vfu_conn_error(&hdr, err, &out);
	send_reply(s, &out);
}

/* Run what other threads posted. Return: true when stopping. */
static bool run_mailbox(struct vfu_server *s)
{
	uint64_t v;
	bool stop;
	int fd;

	if (read(s->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return false;
	pthread_mutex_lock(&s->lock);
	if (s->call_posted && !s->call_taken) {
		int (*fn)(struct emu_dev *, void *) = s->call_fn;
		void *arg = s->call_arg;
		int ret;

		s->call_taken = true;	/* its caller waits for it now */
		pthread_mutex_unlock(&s->lock);
		ret = s->dev ? fn(s->dev, arg) : -ENODEV;
		pthread_mutex_lock(&s->lock);
		s->call_ret = ret;
		s->call_done = true;
		pthread_cond_broadcast(&s->cond);
	}
	stop = s->stopping;
	fd = -1;
	if (s->client_fd < 0 && s->adopt_fd >= 0) {
		fd = s->adopt_fd;
		s->adopt_fd = -1;
	}
	pthread_mutex_unlock(&s->lock);
	if (fd >= 0)
		take_client(s, fd);
	if (s->dev && emu_dev_drops_client(s->dev))
		drop_client(s, "device off the bus: client's socket closed", 0);
	return stop;
}

static void *server_main(void *arg)
{
	struct vfu_server *s = arg;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = s->wake_fd, .events = POLLIN },
			{ .fd = -1, .events = POLLIN },
		};

		pfd[1].fd = s->client_fd >= 0 ? s->client_fd : s->listen_fd;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			slog(s, "poll failed", errno);
			break;
		}
		if (pfd[0].revents && run_mailbox(s))
			break;
		if (!pfd[1].revents || pfd[1].fd < 0)
			continue;
		if (pfd[1].fd == s->client_fd) {
			serve_one(s);
		} else if (pfd[1].fd == s->listen_fd) {
			int fd = accept4(s->listen_fd, NULL, NULL,
					 SOCK_CLOEXEC);

			if (fd >= 0)
				take_client(s, fd);
		}
		/* A client that left may have an adopted successor. */
		if (s->client_fd < 0)
			wake(s);
	}
	drop_client(s, "server stopping: client's socket closed", 0);
	pthread_mutex_lock(&s->lock);
	s->running = false;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int vfu_server_start(struct vfu_server *s, struct emu_dev *dev)
{
	int ret;

	if (s->started)
		return -EBUSY;
	s->dev = dev;
	vfu_conn_attach(s->conn, dev);
	s->running = true;
	ret = pthread_create(&s->thread, NULL, server_main, s);
	if (ret) {
		s->running = false;
		return -ret;
	}
	s->started = true;
	return 0;
}

int vfu_server_adopt(struct vfu_server *s, int fd)
{
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	if (s->stopping || s->adopt_fd >= 0)
		ret = s->stopping ? -ESHUTDOWN : -EBUSY;
	else
		s->adopt_fd = fd;
	pthread_mutex_unlock(&s->lock);
	if (ret)
		close(fd);
	else
		wake(s);
	return ret;
}

int vfu_server_call(struct vfu_server *s,
		    int (*fn)(struct emu_dev *dev, void *arg), void *arg)
{
	struct timespec limit;
	int ret;

	if (!s->started)
		return -ENODEV;
	pthread_mutex_lock(&s->call_lock);
	pthread_mutex_lock(&s->lock);
	if (s->stopping) {
		pthread_mutex_unlock(&s->lock);
		pthread_mutex_unlock(&s->call_lock);
		return -ESHUTDOWN;
	}
	s->call_fn = fn;
	s->call_arg = arg;
	s->call_posted = true;
	s->call_taken = false;
	s->call_done = false;
	pthread_mutex_unlock(&s->lock);
	wake(s);
	clock_gettime(CLOCK_MONOTONIC, &limit);
	limit.tv_sec += CALL_LIMIT_MS / 1000;
	limit.tv_nsec += (CALL_LIMIT_MS % 1000) * 1000000L;
	if (limit.tv_nsec >= 1000000000L) {
		limit.tv_sec++;
		limit.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&s->lock);
	/*
	 * Until it ran, or the thread is gone. A call the thread has not
	 * taken by the limit is withdrawn; one it has taken is waited for,
	 * since @arg must outlive its use (a device call ends).
	 */
	while (!s->call_done && s->running) {
		if (pthread_cond_timedwait(&s->cond, &s->lock, &limit) ==
		    ETIMEDOUT && !s->call_taken)
			break;
	}
	ret = s->call_done ? s->call_ret :
	      s->running ? -ETIMEDOUT : -ESHUTDOWN;
	s->call_posted = false;
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_unlock(&s->call_lock);
	return ret;
}

void vfu_server_status(struct vfu_server *s, struct vfu_server_status *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->status;
	pthread_mutex_unlock(&s->lock);
	st->dma_maps = vfu_conn_dma_maps(s->conn);
}

void vfu_server_stop(struct vfu_server *s)
{
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (s->started) {
		wake(s);
		pthread_join(s->thread, NULL);
		s->started = false;
	}
	if (s->adopt_fd >= 0) {
		close(s->adopt_fd);
		s->adopt_fd = -1;
	}
	if (s->listen_fd >= 0) {
		close(s->listen_fd);
		s->listen_fd = -1;
	}
	if (s->path) {
		unlink(s->path);
		free(s->path);
		s->path = NULL;
	}
}

void vfu_server_destroy(struct vfu_server *s)
{
	if (!s)
		return;
	vfu_server_stop(s);
	vfu_conn_destroy(s->conn);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->call_lock);
	free(s->buf);
	free(s->name);
	free(s);
}
