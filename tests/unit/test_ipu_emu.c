// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_ipu_emu.c - the ipu-emu program (firmware/emu/main.c) as the QEMU
 * rig runs it: the fixed command line, "ipu-emu: ready" once every socket
 * listens, a vfio-user client per IPU socket, the control socket's
 * commands and answers, a client disconnect returning the IPU to
 * listening, off_bus closing the client's socket, SIGTERM exiting 0 with
 * the socket files removed, and usage errors exiting 2; a client that
 * trickles its message a byte at a time holds neither another IPU, nor
 * the control socket, nor SIGTERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "ipu/hw.h"
#include "vfu_client.h"

struct emu {
	pid_t pid;
	int out;		/* its stdout */
	char dir[64];
	char sock[2][128], ctl[128];
};

/*
 * The program a test started and has not yet seen exit: a failed assertion
 * leaves the test half way, and the teardown (emu_leftover()) kills it, so
 * that it neither outlives the suite nor holds its sockets for the next.
 * A copy: the test's own struct emu is on a stack frame the failure left.
 */
static struct emu running;
static bool is_running;

/* build/.../tests/unit/test_ipu_emu -> build/.../firmware/ipu-emu */
static void emu_path(char *buf, size_t size)
{
	char self[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, PATH_MAX - 1);
	char *p;

	assert_true(n > 0);
	self[n] = '\0';
	p = strstr(self, "/tests/unit/");
	assert_non_null(p);
	strcpy(p, "/firmware/ipu-emu");
	assert_true(strlen(self) < size);
	strcpy(buf, self);
}

static pid_t spawn(char *const argv[], int *out_fd, int *err_fd)
{
	int out[2], err[2];
	pid_t pid;

	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* Nor does it outlive a test killed at its time limit. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	*out_fd = out[0];
	if (err_fd)
		*err_fd = err[0];
	else
		close(err[0]);
	return pid;
}

/* One line from @fd (bounded wait: a hung program fails the test). */
static bool read_line(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n < size - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 20000) != 1 || read(fd, buf + n, 1) != 1)
			return false;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return true;
}

static void emu_start(struct emu *e)
{
	char path[PATH_MAX], line[128];
	char *argv[16];
	int a = 0;

	emu_path(path, sizeof(path));
	snprintf(e->dir, sizeof(e->dir), "/tmp/test_ipu_emu.XXXXXX");
	assert_non_null(mkdtemp(e->dir));
	for (int i = 0; i < 2; i++)
		snprintf(e->sock[i], sizeof(e->sock[i]), "%s/ipu%d.sock",
			 e->dir, i);
	snprintf(e->ctl, sizeof(e->ctl), "%s/ctl", e->dir);
	argv[a++] = path;
	argv[a++] = "--socket";
	argv[a++] = e->sock[0];
	argv[a++] = "--socket";
	argv[a++] = e->sock[1];
	argv[a++] = "--control";
	argv[a++] = e->ctl;
	argv[a++] = "--mem-size";
	argv[a++] = "1M";
	argv[a++] = NULL;
	e->pid = spawn(argv, &e->out, NULL);
	running = *e;
	is_running = true;
	assert_true(read_line(e->out, line, sizeof(line)));
	assert_string_equal(line, "ipu-emu: ready");
}

/* Safety limit of every wait for the program to exit. */
#define EXIT_LIMIT_MS	20000

/*
 * Whether the program exited within EXIT_LIMIT_MS: its pidfd says so, or
 * (valgrind knows no pidfd_open) the end of its stdout @out, a pipe only
 * the program holds; -1 when that was read to its end already.
 */
static bool exited_in_time(pid_t pid, int out)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd p = { .fd = pidfd >= 0 ? pidfd : out, .events = POLLIN };
	char sink[256];
	bool ok = false;

	if (pidfd < 0 && out < 0)
		return true;
	while (poll(&p, 1, EXIT_LIMIT_MS) == 1) {
		if (pidfd >= 0 || read(out, sink, sizeof(sink)) <= 0) {
			ok = true;
			break;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return ok;
}

/* The program's exit status, once it exited (a bounded wait). */
static int wait_exit(pid_t pid, int out)
{
	int st;

	if (!exited_in_time(pid, out)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		fail_msg("ipu-emu did not exit within %d ms", EXIT_LIMIT_MS);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void emu_stop(struct emu *e)
{
	struct stat st;

	assert_int_equal(kill(e->pid, SIGTERM), 0);
	is_running = false;
	assert_int_equal(wait_exit(e->pid, e->out), 0);
	close(e->out);
	assert_int_equal(lstat(e->sock[0], &st), -1);
	assert_int_equal(lstat(e->sock[1], &st), -1);
	assert_int_equal(lstat(e->ctl, &st), -1);
	assert_int_equal(rmdir(e->dir), 0);
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	strcpy(sa.sun_path, path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* Send a control command, return its answer line. */
static void control(int fd, const char *cmd, char *ans, size_t size)
{
	assert_int_equal(send(fd, cmd, strlen(cmd), MSG_NOSIGNAL),
			 (ssize_t)strlen(cmd));
	assert_true(read_line(fd, ans, size));
}

static void test_serves_each_ipu_and_stops_on_sigterm(void **state)
{
	struct tclient c = { .sock = -1 };
	char ans[1024];
	struct emu e;
	int ctl;

	(void)state;
	emu_start(&e);
	c.sock = connect_to(e.sock[1]);
	negotiate(&c);
	ctl = connect_to(e.ctl);
	control(ctl, "status\n", ans, sizeof(ans));
	assert_non_null(strstr(ans, "ipu1 client=connected negotiated=yes"));
	assert_non_null(strstr(ans, "ipu0 client=listening"));
	assert_true(!strncmp(ans, "ok ", 3));
	control(ctl, "fault ipu1 fail_dma=3\n", ans, sizeof(ans));
	assert_string_equal(ans, "ok");
	control(ctl, "fault ipu1 no_such_fault\n", ans, sizeof(ans));
	assert_true(!strncmp(ans, "error: ", 7));
	control(ctl, "fault ipu7 off_bus\n", ans, sizeof(ans));
	assert_true(!strncmp(ans, "error: ", 7));
	control(ctl, "reset ipu0\n", ans, sizeof(ans));
	assert_string_equal(ans, "ok");
	control(ctl, "frobnicate\n", ans, sizeof(ans));
	assert_true(!strncmp(ans, "error: ", 7));
	/* The client leaves; the IPU takes the next one. */
	close(c.sock);
	c.sock = connect_to(e.sock[1]);
	negotiate(&c);
	control(ctl, "status\n", ans, sizeof(ans));
	assert_non_null(strstr(ans, "ipu1 client=connected negotiated=yes dma_maps=0 clients=2"
				    " off_bus=no stalled=0 rings=0"));
	/* Off the bus: the client's socket closes. */
	control(ctl, "fault ipu1 off_bus\n", ans, sizeof(ans));
	assert_string_equal(ans, "ok");
	assert_true(peer_closed(c.sock));
	close(c.sock);
	control(ctl, "status\n", ans, sizeof(ans));
	assert_non_null(strstr(ans, "off_bus=yes"));
	close(ctl);
	emu_stop(&e);
}

static void test_sigterm_with_a_client_connected(void **state)
{
	struct tclient c = { .sock = -1 };
	struct emu e;

	(void)state;
	emu_start(&e);
	c.sock = connect_to(e.sock[0]);
	negotiate(&c);
	emu_stop(&e);
	assert_true(peer_closed(c.sock));
	close(c.sock);
}

/*
 * A client that sends a message a byte at a time, each byte well within
 * any per-call timeout, until the server closes its socket or it is told
 * to stop (@stop, an eventfd, which also paces it).
 */
struct trickler {
	int sock, stop;
	pthread_t thread;
};

static void *trickle(void *arg)
{
	struct trickler *t = arg;
	struct vfu_hdr h = { .msg_id = 77, .cmd = VFU_CMD_REGION_WRITE,
			     .size = 4096 };
	uint8_t msg[4096] = { 0 };

	memcpy(msg, &h, sizeof(h));
	for (size_t i = 0; i < sizeof(msg); i++) {
		struct pollfd p = { .fd = t->stop, .events = POLLIN };

		if (send(t->sock, msg + i, 1, MSG_NOSIGNAL) != 1)
			break;
		if (poll(&p, 1, 300) != 0)
			break;
	}
	return NULL;
}

static void trickle_start(struct trickler *t, const char *path)
{
	struct tclient c = { .sock = connect_to(path) };

	negotiate(&c);
	t->sock = c.sock;
	t->stop = make_eventfd();
	assert_int_equal(pthread_create(&t->thread, NULL, trickle, t), 0);
}

static void trickle_end(struct trickler *t)
{
	uint64_t one = 1;

	assert_int_equal(write(t->stop, &one, sizeof(one)), sizeof(one));
	pthread_join(t->thread, NULL);
	close(t->stop);
	close(t->sock);
}

/*
 * A client of ipu0 trickles a message: ipu1 serves its own client, the
 * control socket answers (the trickler is dropped at its message's
 * deadline), and SIGTERM, sent while a second trickler is at it, ends
 * the program within the safety limit.
 */
static void test_a_trickling_client_holds_nothing(void **state)
{
	struct tclient c = { .sock = -1 };
	struct trickler t;
	char ans[1024];
	struct emu e;
	int ctl;

	(void)state;
	emu_start(&e);
	trickle_start(&t, e.sock[0]);
	c.sock = connect_to(e.sock[1]);
	negotiate(&c);
	assert_int_equal(treg_read32(&c, VFIO_PCI_BAR0_REGION_INDEX,
				     IPU_REG_ID), IPU_ID_VALUE);
	ctl = connect_to(e.ctl);
	control(ctl, "status\n", ans, sizeof(ans));
	assert_true(!strncmp(ans, "ok ", 3));
	assert_true(peer_closed(t.sock));
	trickle_end(&t);
	control(ctl, "status\n", ans, sizeof(ans));
	assert_non_null(strstr(ans, "ipu0 client=listening"));
	close(ctl);
	close(c.sock);

	trickle_start(&t, e.sock[0]);
	emu_stop(&e);
	trickle_end(&t);
}

/*
 * The read and write system calls the program's threads made so far
 * (/proc/PID/io), or -1 without task I/O accounting.
 */
static long long emu_syscalls(pid_t pid)
{
	long long r = -1, w = -1;
	char path[64], key[32];
	long long v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fscanf(f, "%31s %lld", key, &v) == 2) {
		if (!strcmp(key, "syscr:"))
			r = v;
		else if (!strcmp(key, "syscw:"))
			w = v;
	}
	fclose(f);
	return r < 0 || w < 0 ? -1 : r + w;
}

/*
 * An IPU whose client left goes back to waiting: its server thread makes
 * no system call until the next client, command or signal. (It once woke
 * itself on every pass after a client had left, spinning a core.) The
 * wait is for the IPU to listen again (an event); then a quiet spell in
 * which an idle program makes no read or write at all, and a spinning
 * one thousands, however slow the machine.
 */
static void test_an_ipu_whose_client_left_is_idle(void **state)
{
	struct tclient c = { .sock = -1 };
	long long before, after;
	char ans[1024];
	struct emu e;
	int ctl;

	(void)state;
	emu_start(&e);
	c.sock = connect_to(e.sock[0]);
	negotiate(&c);
	close(c.sock);
	ctl = connect_to(e.ctl);
	for (int i = 0; i < 2000; i++) {
		control(ctl, "status\n", ans, sizeof(ans));
		if (strstr(ans, "ipu0 client=listening"))
			break;
		usleep(10000);
	}
	assert_non_null(strstr(ans, "ipu0 client=listening"));
	before = emu_syscalls(e.pid);
	if (before < 0) {
		close(ctl);
		emu_stop(&e);
		skip();
	}
	usleep(300000);
	after = emu_syscalls(e.pid);
	print_message("ipu-emu: %lld reads and writes in a quiet 300 ms\n",
		      after - before);
	assert_true(after - before < 20);
	close(ctl);
	emu_stop(&e);
}

static int run_usage(const char *a1, const char *a2, char *err, size_t size)
{
	char path[PATH_MAX];
	char *argv[4] = { path, (char *)a1, (char *)a2, NULL };
	int out, efd;
	pid_t pid;
	ssize_t n;

	emu_path(path, sizeof(path));
	char sink[4096];

	pid = spawn(argv, &out, &efd);
	/* Drain stdout (--help) to its end, or the program's write of it
	 * could meet a closed pipe. */
	while (read(out, sink, sizeof(sink)) > 0)
		;
	n = read(efd, err, size - 1);
	err[n > 0 ? n : 0] = '\0';
	close(out);
	close(efd);
	return wait_exit(pid, -1);
}

static void test_usage_errors(void **state)
{
	char err[4096];

	(void)state;
	assert_int_equal(run_usage(NULL, NULL, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "no --socket"));
	assert_int_equal(run_usage("--socket", NULL, err, sizeof(err)), 2);
	assert_int_equal(run_usage("--mem-size", "3M", err, sizeof(err)), 2);
	assert_non_null(strstr(err, "power of two"));
	assert_int_equal(run_usage("--posted-window-us", "500001", err,
				   sizeof(err)), 2);
	assert_non_null(strstr(err, "rand:N"));
	assert_int_equal(run_usage("--posted-window-us", "rand:", err,
				   sizeof(err)), 2);
	assert_int_equal(run_usage("--bogus", NULL, err, sizeof(err)), 2);
	assert_int_equal(run_usage("--remote-dma=qemu11", NULL, err,
				   sizeof(err)), 2);
	assert_non_null(strstr(err, "not spec or qemu"));
	/* A socket path that is a regular file is not replaced. */
	assert_int_equal(run_usage("--socket", "/dev/null", err,
				   sizeof(err)), 1);
	assert_non_null(strstr(err, "File exists"));
	assert_int_equal(run_usage("--help", NULL, err, sizeof(err)), 0);
}

/* Teardown: kill what a failed test left running, and its files. */
static int emu_leftover(void **state)
{
	struct emu *e = &running;
	int st;

	(void)state;
	if (!is_running)
		return 0;
	is_running = false;
	kill(e->pid, SIGKILL);
	waitpid(e->pid, &st, 0);
	close(e->out);
	unlink(e->sock[0]);
	unlink(e->sock[1]);
	unlink(e->ctl);
	rmdir(e->dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_serves_each_ipu_and_stops_on_sigterm, emu_leftover),
		cmocka_unit_test_teardown(test_sigterm_with_a_client_connected, emu_leftover),
		cmocka_unit_test_teardown(test_a_trickling_client_holds_nothing, emu_leftover),
		cmocka_unit_test_teardown(test_an_ipu_whose_client_left_is_idle, emu_leftover),
		cmocka_unit_test_teardown(test_usage_errors, emu_leftover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
