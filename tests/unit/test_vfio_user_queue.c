// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_vfio_user_queue.c - the bound on what one client can make the
 * server hold while its thread is busy: the reader takes commands off the
 * socket ahead of the server thread (vfio_user_server.c), and every fd a
 * message brings becomes one of the process's, which all its IPUs share.
 * A client that floods small messages with VFU_MAX_FDS fds each must stop
 * being read long before the process runs out of fds.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <time.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"
#include "vfu_client.h"

/* The reader may hold this many fds at most (QUEUE_MAX_FDS, plus the
 * message it read and waits to queue, plus the one being served). */
#define FDS_BOUND	(4 * (int)VFU_MAX_FDS)
/* Messages sent: far more fds than the bound. */
#define FLOOD		256

/* A device call that holds the server thread until @release (an eventfd)
 * is written; it says it started by writing @entered. */
struct hold {
	int entered, release;
};

static int hold_fn(struct emu_dev *dev, void *arg)
{
	struct hold *h = arg;
	struct pollfd p = { .fd = h->release, .events = POLLIN };
	uint64_t one = 1, v;

	(void)dev;
	if (write(h->entered, &one, sizeof(one)) != sizeof(one))
		return -errno;
	/* Bounded: a test that fails before releasing it must not leave
	 * the server thread (and the teardown that stops it) waiting. */
	if (poll(&p, 1, WAIT_LIMIT_S * 1000) != 1)
		return -ETIMEDOUT;
	if (read(h->release, &v, sizeof(v)) != sizeof(v))
		return -errno;
	return 0;
}

struct call {
	struct tclient *c;
	struct hold h;
	pthread_t thread;
	int ret;
};

static void *call_thread(void *arg)
{
	struct call *k = arg;

	k->ret = vfu_server_call(k->c->srv, hold_fn, &k->h);
	return NULL;
}

/* The reader thread's current system call number, or -1. */
static long reader_syscall(void)
{
	char path[300], buf[64];
	struct dirent *e;
	long nr = -1;
	DIR *d = opendir("/proc/self/task");
	FILE *f;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f) ||
		    strncmp(buf, "vfu-reader", 10)) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/self/task/%s/syscall",
			 e->d_name);
		f = fopen(path, "re");
		if (f) {
			if (fscanf(f, "%ld", &nr) != 1)
				nr = -1;
			fclose(f);
		}
		break;
	}
	closedir(d);
	return nr;
}

/* Bytes the client sent that the server has not read yet. */
static int unread(int sock)
{
	int n = 0;

	assert_int_equal(ioctl(sock, SIOCOUTQ, &n), 0);
	return n;
}

/* Send @msg with @nfds fds without waiting; false when the socket (or the
 * kernel's limit on fds in flight) takes no more. */
static bool send_nowait(int sock, const void *msg, size_t len, const int *fds,
			unsigned int nfds)
{
	union {
		char buf[CMSG_SPACE(VFU_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { (void *)msg, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf,
			     .msg_controllen = CMSG_SPACE(nfds * sizeof(int)) };
	struct cmsghdr *cm;
	ssize_t n;

	memset(&ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == ETOOMANYREFS))
		return false;
	assert_int_equal(n, (ssize_t)len);
	return true;
}

/*
 * With the server thread held, the client sends up to FLOOD small
 * commands with VFU_MAX_FDS fds each. The reader stops reading (it waits
 * for room, the rest stays in the socket) with at most FDS_BOUND fds taken
 * in; when the thread is released every command is answered, and every
 * fd closed.
 */
static void test_a_flood_of_fds_is_not_read_past_a_bound(void **state)
{
	struct tclient *c = *state;
	struct call k = { .c = c };
	struct vfio_device_info di = { .argsz = sizeof(di) };
	time_t end = time(NULL) + WAIT_LIMIT_S;
	int fds[VFU_MAX_FDS], base, sent = 0;
	uint64_t v = 0, one = 1;
	uint8_t msg[sizeof(struct vfu_hdr) + sizeof(di)];
	struct vfu_hdr h = {
		.cmd = VFU_CMD_DEVICE_GET_INFO,
		.size = sizeof(msg),
		.flags = VFU_TYPE_COMMAND,
	};
	struct treply *r = malloc(sizeof(*r));

	assert_non_null(r);
	k.h.entered = eventfd(0, EFD_CLOEXEC);
	k.h.release = eventfd(0, EFD_CLOEXEC);
	assert_true(k.h.entered >= 0 && k.h.release >= 0);
	for (unsigned int i = 0; i < VFU_MAX_FDS; i++) {
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		assert_true(fds[i] >= 0);
	}
	assert_int_equal(pthread_create(&k.thread, NULL, call_thread, &k), 0);
	assert_int_equal(read(k.h.entered, &v, sizeof(v)), sizeof(v));
	base = open_fds();

	memcpy(msg + sizeof(h), &di, sizeof(di));
	while (sent < FLOOD) {
		h.msg_id = (uint16_t)(1000 + sent);
		memcpy(msg, &h, sizeof(h));
		if (!send_nowait(c->sock, msg, sizeof(msg), fds, VFU_MAX_FDS))
			break;
		sent++;
		/* The reader may not keep more than the bound at any time. */
		assert_true(open_fds() - base <= FDS_BOUND);
	}
	assert_true(sent * (int)VFU_MAX_FDS > 2 * FDS_BOUND);
	/* It ends waiting for room, with bytes left unread; without a
	 * bound it would have drained the socket. */
	while (!(unread(c->sock) > 0 && reader_syscall() == SYS_futex)) {
		assert_true(unread(c->sock) > 0);
		assert_true(time(NULL) < end);
	}
	assert_true(open_fds() - base <= FDS_BOUND);

	assert_int_equal(write(k.h.release, &one, sizeof(one)), sizeof(one));
	pthread_join(k.thread, NULL);
	assert_int_equal(k.ret, 0);
	for (int i = 0; i < sent; i++) {
		assert_true(recv_reply(c, (uint16_t)(1000 + i), r));
		for (unsigned int j = 0; j < r->nfds; j++)
			close(r->fds[j]);
	}
	free(r);
	assert_true(open_fds() <= base);
	for (unsigned int i = 0; i < VFU_MAX_FDS; i++)
		close(fds[i]);
	close(k.h.entered);
	close(k.h.release);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_a_flood_of_fds_is_not_read_past_a_bound,
			tclient_setup_negotiated, tclient_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
