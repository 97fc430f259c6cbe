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
 *
 * Each client's socket is read by a reader thread of its own, not by the
 * server thread: the device's requests to the client (DMA_READ/WRITE,
 * vfio_user_remote.c) are answered on that socket while the server thread
 * may be inside a device call waiting for the device thread that waits
 * for that answer. The reader hands replies over at once and queues
 * commands (at most QUEUE_MAX_BYTES of them, holding at most
 * QUEUE_MAX_FDS fds) for the server thread, which carries them out in
 * order, one between two looks at its mailbox.
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
/* Commands read and not yet carried out: the reader waits beyond this. */
#define QUEUE_MAX_BYTES		(2 * VFU_MAX_MSG)
/*
 * And beyond this many of the fds they came with: every fd is one of the
 * process's, shared by every IPU it serves, and a client that sent small
 * messages with VFU_MAX_FDS fds each while the server thread was busy
 * would otherwise exhaust them (another IPU's client then cannot connect,
 * nor its device get new memory).
 */
#define QUEUE_MAX_FDS		(2 * VFU_MAX_FDS)

/*
 * One message the reader took from the socket, for the server thread:
 * @n is vfu_sock_recv()'s result (the message's length, or the framing
 * error; 0 or a lost stream ends the queue), @data the message (a framing
 * error's header).
 */
struct inmsg {
	struct inmsg *next;
	ssize_t n;
	int fds[VFU_MAX_FDS];
	unsigned int nfds;
	size_t size;
	uint8_t data[];
};

struct vfu_server {
	struct vfu_conn *conn;
	struct emu_dev *dev;
	char *path;		/* the socket file we created, or NULL */
	char *name;
	FILE *log;
	int listen_fd;		/* -1 without a path */
	int client_fd;		/* the client being served, or -1 */
	int wake_fd;		/* eventfd: mailbox, queue, failure or stop */
	uint8_t *buf;		/* the reader's message, VFU_MAX_MSG bytes */
	pthread_t thread;
	bool started;
	pthread_t reader;	/* reads client_fd while there is one */
	bool reader_started;

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
	/* The device could not be made another client's (no new device
	 * memory, emu_dev_client_lost()): no client is served again. */
	bool retired;
	struct vfu_server_status status;
	/* The reader's queue (under @lock). */
	struct inmsg *queue, **queue_tail;
	size_t queued;			/* bytes (allocated) */
	unsigned int queued_fds;
	bool reader_stop;		/* the client is being dropped */
	pthread_cond_t room;		/* the queue shrank, or reader_stop */
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

static void wake(struct vfu_server *s);

/* A device thread found the client unresponsive: the server drops it. */
static void client_failed(void *ctx)
{
	wake(ctx);
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
	pthread_cond_init(&s->room, NULL);
	s->queue_tail = &s->queue;
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&s->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	s->name = strdup(opts->name ? opts->name : "ipu");
	s->buf = calloc(1, VFU_MAX_MSG);
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
	vfu_conn_set_remote_dma(s->conn, opts->remote_dma, opts->remote_dma_qemu);
	vfu_conn_set_mmap_limit(s->conn, opts->max_mmaps);
	vfu_conn_on_failed(s->conn, client_failed, s);
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

static void free_inmsg(struct inmsg *m)
{
	for (unsigned int i = 0; i < m->nfds; i++)
		if (m->fds[i] >= 0)
			close(m->fds[i]);
	free(m);
}

/*
 * The reader: take messages off the client's socket until it closes or
 * breaks, or the server drops the client (shutdown() of the socket ends
 * any wait). Replies go to the device's waiting requests; the rest is
 * queued for the server thread. Never calls into the device.
 */
static void *reader_main(void *arg)
{
	struct vfu_server *s = arg;

	for (;;) {
		struct pollfd p = { .fd = s->client_fd, .events = POLLIN };
		int fds[VFU_MAX_FDS];
		unsigned int nfds = 0;
		struct vfu_hdr hdr;
		struct inmsg *m;
		bool last;
		ssize_t n;

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
		} else {
			n = vfu_sock_recv(s->client_fd, s->buf, VFU_MAX_MSG,
					  fds, &nfds, MSG_DEADLINE_MS);
		}
		memcpy(&hdr, s->buf, sizeof(hdr));
		/* A reply to a request of ours goes to its waiter; one that
		 * answers none is refused as any malformed message is. */
		if (n > 0 && !nfds &&
		    (hdr.flags & VFU_FLAG_TYPE_MASK) == VFU_TYPE_REPLY &&
		    !vfu_conn_reply(s->conn, s->buf, (size_t)n))
			continue;
		last = n == 0 || (n < 0 && n != -EMSGSIZE && n != -EINVAL &&
				  n != -E2BIG);
		m = malloc(sizeof(*m) + (n > 0 ? (size_t)n : sizeof(hdr)));
		if (!m) {
			for (unsigned int i = 0; i < nfds; i++)
				close(fds[i]);
			n = -ENOMEM;
			last = true;
			m = NULL;
		} else {
			m->next = NULL;
			m->n = n;
			m->nfds = nfds;
			memcpy(m->fds, fds, nfds * sizeof(int));
			m->size = n > 0 ? (size_t)n : sizeof(hdr);
			memcpy(m->data, s->buf, m->size);
		}
		pthread_mutex_lock(&s->lock);
		while (m && s->queue && !s->reader_stop &&
		       (s->queued + sizeof(*m) + m->size > QUEUE_MAX_BYTES ||
			s->queued_fds + m->nfds > QUEUE_MAX_FDS))
			pthread_cond_wait(&s->room, &s->lock);
		if (s->reader_stop) {
			pthread_mutex_unlock(&s->lock);
			if (m)
				free_inmsg(m);
			break;
		}
		if (m) {
			*s->queue_tail = m;
			s->queue_tail = &m->next;
			s->queued += sizeof(*m) + m->size;
			s->queued_fds += m->nfds;
		}
		pthread_mutex_unlock(&s->lock);
		wake(s);
		if (last)
			break;
	}
	return NULL;
}

/* The next message the reader queued, or NULL. */
static struct inmsg *dequeue(struct vfu_server *s)
{
	struct inmsg *m;

	pthread_mutex_lock(&s->lock);
	m = s->queue;
	if (m) {
		s->queue = m->next;
		if (!s->queue)
			s->queue_tail = &s->queue;
		s->queued -= sizeof(*m) + m->size;
		s->queued_fds -= m->nfds;
		pthread_cond_broadcast(&s->room);
	}
	pthread_mutex_unlock(&s->lock);
	return m;
}

static void drop_client(struct vfu_server *s, const char *why, int err)
{
	struct inmsg *m;
	int ret;

	if (s->client_fd < 0)
		return;
	/*
	 * The reader first: its reads and waits end, and it exits. Only the
	 * receiving side is shut: the client sees its socket close once the
	 * device has been reset (a client that saw the end of its stream
	 * finds the next state in the status, a new client a reset device).
	 */
	shutdown(s->client_fd, SHUT_RD);
	pthread_mutex_lock(&s->lock);
	s->reader_stop = true;
	pthread_cond_broadcast(&s->room);
	pthread_mutex_unlock(&s->lock);
	if (s->reader_started) {
		pthread_join(s->reader, NULL);
		s->reader_started = false;
	}
	while ((m = dequeue(s)))
		free_inmsg(m);
	pthread_mutex_lock(&s->lock);
	s->reader_stop = false;
	pthread_mutex_unlock(&s->lock);
	/* Then the device's requests fail, the device resets; then close. */
	ret = vfu_conn_disconnect(s->conn);
	/*
	 * One critical section: a reader of the status never sees the
	 * IPU retired while its client still shows as connected.
	 */
	pthread_mutex_lock(&s->lock);
	if (ret) {
		/* The last client may still map what a next one would use. */
		s->retired = true;
		s->status.retired = true;
	}
	s->status.connected = false;
	s->status.negotiated = false;
	pthread_mutex_unlock(&s->lock);
	if (ret) {
		if (s->listen_fd >= 0) {
			close(s->listen_fd);
			s->listen_fd = -1;
		}
		slog(s, "no new device memory for another client: serving none",
		     -ret);
	}
	slog(s, why, err);
	close(s->client_fd);
	s->client_fd = -1;
}

static void take_client(struct vfu_server *s, int fd)
{
	int ret;

	if (s->retired) {
		close(fd);
		return;
	}
	s->client_fd = fd;
	vfu_conn_connect(s->conn, fd);
	pthread_mutex_lock(&s->lock);
	s->status.connected = true;
	s->status.clients++;
	pthread_mutex_unlock(&s->lock);
	slog(s, "client connected", 0);
	ret = pthread_create(&s->reader, NULL, reader_main, s);
	if (ret) {
		drop_client(s, "client dropped: no reader thread", ret);
		return;
	}
	/* For top -H and gdb; and the tests find it by this name. */
	pthread_setname_np(s->reader, "vfu-reader");
	s->reader_started = true;
}

static void send_reply(struct vfu_server *s, const struct vfu_out *out)
{
	int ret;

	if (!out->send)
		return;
	ret = vfu_conn_send(s->conn, out, MSG_DEADLINE_MS);
	if (ret)
		drop_client(s, "client lost while sending a reply", -ret);
}

/* Answer one message the reader queued (@m, freed here). */
static void serve_one(struct vfu_server *s, struct inmsg *m)
{
	struct vfu_out out;
	struct vfu_hdr hdr;
	ssize_t n = m->n;
	unsigned int nfds = m->nfds;
	int err = 0;

	if (n > 0) {
		vfu_conn_handle(s->conn, m->data, (size_t)n, m->fds, nfds, &out);
		m->nfds = 0;	/* vfu_conn_handle() kept or closed them */
		free_inmsg(m);
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
	memcpy(&hdr, m->data, sizeof(hdr));
	free_inmsg(m);
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
	if (s->client_fd >= 0 && vfu_conn_client_failed(s->conn))
		drop_client(s, "client dropped: a DMA request went unanswered",
			    ETIMEDOUT);
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

		struct inmsg *m;

		/* The client's socket is the reader's; its messages come
		 * through the queue, announced on wake_fd. */
		pfd[1].fd = s->client_fd >= 0 ? -1 : s->listen_fd;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			slog(s, "poll failed", errno);
			break;
		}
		if (pfd[0].revents && run_mailbox(s))
			break;
		/* One message, then the mailbox again if more wait. */
		if (s->client_fd >= 0 && (m = dequeue(s))) {
			serve_one(s, m);
			pthread_mutex_lock(&s->lock);
			if (s->queue)
				wake(s);
			pthread_mutex_unlock(&s->lock);
		}
		if (pfd[1].revents && pfd[1].fd >= 0 && s->client_fd < 0) {
			int fd = accept4(s->listen_fd, NULL, NULL,
					 SOCK_CLOEXEC);

			if (fd >= 0)
				take_client(s, fd);
		}
		/*
		 * A client that left may have an adopted successor, which the
		 * mailbox takes. Only then: a wake with nothing to take would
		 * bring the next poll() back at once, and the one after, and
		 * spin the thread until the next client.
		 */
		if (s->client_fd < 0) {
			pthread_mutex_lock(&s->lock);
			if (s->adopt_fd >= 0)
				wake(s);
			pthread_mutex_unlock(&s->lock);
		}
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
	if (s->stopping || s->adopt_fd >= 0 || s->retired)
		ret = s->stopping ? -ESHUTDOWN : s->retired ? -ENODEV : -EBUSY;
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
	pthread_cond_destroy(&s->room);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->call_lock);
	free(s->buf);
	free(s->name);
	free(s);
}
