// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_gather.c - the gather of a split program carried from ipu-simd
 * to the launching process (include/ipu/fw_gather.h), both ends on the
 * host: ipu-simd's side (firmware/simd/instances.c, linked in) talks to
 * libsession's service (userspace/session/fw_gather.c) in this process,
 * whose instances are a transport the test plays: this process is
 * instance 1 of 2, instance 0's part is a pattern. The guest test
 * tests/kernel/test_session_hw_split.c runs the same through ipu.ko and
 * ipu-simd with real processes.
 *
 * Hostile ends: a listener that is another process, a hello that does
 * not fit the program, answers of the wrong size, a listener that never
 * answers (the run's reset ends the wait), a client that sends garbage
 * (the service drops it and serves the next), a transport that fails (its
 * error and message reach the firmware).
 *
 * ipu-simd's daemon state is two functions here: simd_stopping() and
 * simd_guard_retired() (whether a run's mapping was retired by a reset).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <ipu/exe.h>
#include <ipu/firmware.h>
#include <ipu/fw_gather.h>
#include <ipu/ipu.h>

#include "../../firmware/simd/simd.h"
#include "../../userspace/session/session_internal.h"

#define BYTES 4099 /* per instance, odd on purpose */

static bool retired;

bool simd_stopping(void)
{
	return false;
}

bool simd_guard_retired(int slot)
{
	(void)slot;
	return retired;
}

/* Instance 0 as the test plays it. */
struct peer {
	int fail;
	unsigned int calls;
};

static struct peer peer;

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 7 + 3);
}

static int fake_gather(void *ctx, void *buf, size_t bytes, char *msg,
		       size_t msglen)
{
	struct peer *p = ctx;
	uint8_t *b = buf;

	p->calls++;
	if (p->fail) {
		snprintf(msg, msglen, "instance 1 of 2: no answer from the other instances within 5 ms");
		return p->fail;
	}
	for (size_t i = 0; i < bytes; i++)
		b[i] = pattern(i);
	return 0;
}

static struct ipufw_instances second_of_two = {
	.index = 1, .count = 2, .allgather = fake_gather, .ctx = &peer,
};

/* A 4-replica program run as 2 instances of 2. */
static struct ipu_exe exe = { .name = "split", .replication_factor = 4,
			      .instance_replication_factor = 2 };
static struct simd_map map = { .refs = 1, .guard = 0 };
static struct simd_launch launches[2];
static struct ipu_session sess;
static char msg[512];

static int setup(void **state)
{
	(void)state;
	retired = false;
	peer = (struct peer){ 0 };
	second_of_two.count = 2;
	for (int r = 0; r < 2; r++)
		launches[r] = (struct simd_launch){
			.map = &map,
			.work = { .pid = (uint32_t)getpid(), .replica = (uint32_t)r,
				  .num_replicas = 2 },
		};
	memset(&sess, 0, sizeof(sess));
	ipu_model_set_instances(&second_of_two);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ipu_sess_fw_gather_stop(&sess);
	ipu_model_set_instances(NULL);
	return 0;
}

static void start(void)
{
	assert_int_equal(ipu_sess_fw_gather_start(&sess), 0);
	assert_true(sess.fw_gather);
}

static int open_run(struct simd_instances **si)
{
	msg[0] = '\0';
	return simd_instances_open(launches, 2, &exe, si, msg, sizeof(msg));
}

static void assert_msg(const char *want)
{
	if (!strstr(msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", msg, want);
}

/* Listen as the service would, for a fake process: the listening fd. */
static int fake_listener(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int n = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "%s%d",
			 IPU_FW_GATHER_NAME, (int)getpid());

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
					  1 + n)), 0);
	assert_int_equal(listen(fd, 1), 0);
	return fd;
}

/* Connect to the service as a client would. */
static int client(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int n = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "%s%d",
			 IPU_FW_GATHER_NAME, (int)getpid());

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&addr,
				 (socklen_t)(offsetof(struct sockaddr_un,
						      sun_path) + 1 + n)), 0);
	return fd;
}

static void test_gather_reaches_the_process(void **state)
{
	const struct ipufw_instances *inst;
	struct simd_instances *si;
	uint8_t buf[2 * BYTES];
	char m[256];

	(void)state;
	start();
	assert_int_equal(open_run(&si), 0);
	inst = simd_instances_get(si);
	assert_int_equal(inst->index, 1);
	assert_int_equal(inst->count, 2);
	for (int round = 0; round < 3; round++) {
		memset(buf, 0, BYTES);
		memset(buf + BYTES, 0xa5, BYTES);
		assert_int_equal(inst->allgather(inst->ctx, buf, BYTES, m,
						 sizeof(m)), 0);
		for (size_t i = 0; i < BYTES; i++) {
			assert_int_equal(buf[i], pattern(i));
			assert_int_equal(buf[BYTES + i], 0xa5);
		}
	}
	assert_int_equal(peer.calls, 3);
	simd_instances_close(si);
	/* The service awaits the next run. */
	assert_int_equal(open_run(&si), 0);
	simd_instances_close(si);
}

static void test_transport_failure_reaches_the_firmware(void **state)
{
	const struct ipufw_instances *inst;
	struct simd_instances *si;
	uint8_t buf[2 * BYTES] = { 0 };
	char m[256] = "";

	(void)state;
	start();
	peer.fail = -ETIMEDOUT;
	assert_int_equal(open_run(&si), 0);
	inst = simd_instances_get(si);
	assert_int_equal(inst->allgather(inst->ctx, buf, BYTES, m, sizeof(m)),
			 -ETIMEDOUT);
	assert_non_null(strstr(m, "no answer from the other instances"));
	/* Out of step after a failure: the run's later gathers fail at once. */
	assert_int_equal(inst->allgather(inst->ctx, buf, BYTES, m, sizeof(m)),
			 -EPIPE);
	assert_int_equal(peer.calls, 1);
	simd_instances_close(si);
}

static void test_no_service_is_a_clear_error(void **state)
{
	struct simd_instances *si;

	(void)state;
	assert_int_equal(open_run(&si), -ECONNREFUSED);
	assert_null(si);
	assert_msg("is split across 2 instances, but its process does not serve their gather");
}

static void test_program_and_process_must_agree(void **state)
{
	struct simd_instances *si;

	(void)state;
	start();
	/* The process says 4 instances; the program is 2 of 2 replicas. */
	second_of_two.count = 4;
	assert_int_equal(open_run(&si), -EPROTO);
	assert_msg("runs as 2 instances; its process says it is instance 1 of 4");
	second_of_two.count = 2;
	/* Launched as 1 replica, but the program runs 2 per instance. */
	assert_int_equal(simd_instances_open(launches, 1, &exe, &si, msg,
					     sizeof(msg)), -EINVAL);
	assert_msg("runs 2 replicas per instance, launched as 1");
}

/* Another process took the launching pid's name: not talked to. */
static void test_listener_of_another_pid_is_refused(void **state)
{
	struct simd_instances *si;
	int go[2], ready[2];
	char c;
	pid_t child;

	(void)state;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		/* Bind the parent's name (getppid) from here. */
		struct sockaddr_un addr = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		int n = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1,
				 "%s%d", IPU_FW_GATHER_NAME, (int)getppid());

		if (fd < 0 || bind(fd, (struct sockaddr *)&addr,
				   (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
					       1 + n)) || listen(fd, 1))
			_exit(1);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(open_run(&si), -EPERM);
	assert_msg("is another process's");
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(waitpid(child, NULL, 0), child);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
}

/* A process that says hello, then answers @rep (NULL: never). */
static int hostile_run(const struct ipu_fw_gather_rep *rep, char *m,
		       size_t mlen)
{
	struct ipu_fw_gather_hello hello = { IPU_FW_GATHER_MAGIC,
					     IPU_FW_GATHER_VERSION, 1, 2 };
	const struct ipufw_instances *inst;
	struct simd_instances *si;
	uint8_t buf[2 * BYTES] = { 0 };
	int lfd = fake_listener(), err;

	if (fork() == 0) {
		int c = accept(lfd, NULL, NULL);
		struct ipu_fw_gather_req req;
		uint8_t part[BYTES];

		if (c < 0 || write(c, &hello, sizeof(hello)) != sizeof(hello))
			_exit(1);
		if (read(c, &req, sizeof(req)) != sizeof(req))
			_exit(1);
		for (size_t got = 0; got < BYTES;) {
			ssize_t n = read(c, part, BYTES - got);

			if (n <= 0)
				_exit(1);
			got += (size_t)n;
		}
		if (rep && write(c, rep, sizeof(*rep)) != sizeof(*rep))
			_exit(1);
		/* Hold the connection until the other end closes it. */
		while (read(c, part, sizeof(part)) > 0)
			;
		_exit(0);
	}
	/* The listener is the forked child's too; SO_PEERCRED names the
	 * binder, this process. */
	err = open_run(&si);
	assert_int_equal(err, 0);
	inst = simd_instances_get(si);
	err = inst->allgather(inst->ctx, buf, BYTES, m, mlen);
	simd_instances_close(si);
	close(lfd);
	assert_true(wait(NULL) > 0);
	return err;
}

static void test_answers_of_the_wrong_size_are_refused(void **state)
{
	struct ipu_fw_gather_rep rep = { .status = 0, .bytes = BYTES };
	char m[256] = "";

	(void)state;
	assert_int_equal(hostile_run(&rep, m, sizeof(m)), -EPROTO);
	assert_non_null(strstr(m, "answered a gather of 8198 bytes with status 0 and 4099 bytes"));
	rep = (struct ipu_fw_gather_rep){ .status = 5 };
	assert_int_equal(hostile_run(&rep, m, sizeof(m)), -EPROTO);
	rep = (struct ipu_fw_gather_rep){ .status = -EIO, .bytes = 2 * BYTES };
	assert_int_equal(hostile_run(&rep, m, sizeof(m)), -EPROTO);
	/* A failure with an unterminated message: cut, not overrun. */
	rep = (struct ipu_fw_gather_rep){ .status = -EIO };
	memset(rep.msg, 'x', sizeof(rep.msg));
	assert_int_equal(hostile_run(&rep, m, sizeof(m)), -EIO);
	assert_int_equal(strlen(m), sizeof(rep.msg) - 1);
}

/* No answer: the run's devices are reset (the kernel's deadline), which
 * ends the wait. */
static void test_reset_ends_a_wait_for_no_answer(void **state)
{
	char m[256] = "";

	(void)state;
	retired = true;
	assert_int_equal(hostile_run(NULL, m, sizeof(m)), -ECANCELED);
	assert_non_null(strstr(m, "the run was cancelled"));
}

/* Garbage from a client: dropped; the next connection is served. */
static void test_garbage_client_is_dropped(void **state)
{
	struct ipu_fw_gather_req bad[] = {
		{ .magic = 0x12345678, .bytes = 8 },
		{ .magic = IPU_FW_GATHER_MAGIC, .bytes = 0 },
		{ .magic = IPU_FW_GATHER_MAGIC, .bytes = 1ull << 40 },
		{ .magic = IPU_FW_GATHER_MAGIC, .pad = 1, .bytes = 8 },
	};
	struct ipu_fw_gather_hello hello;
	struct simd_instances *si;
	char c;
	int fd;

	(void)state;
	start();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fd = client();
		assert_int_equal(read(fd, &hello, sizeof(hello)), sizeof(hello));
		assert_int_equal(hello.index, 1);
		assert_int_equal(write(fd, &bad[i], sizeof(bad[i])),
				 sizeof(bad[i]));
		/* Closed by the service, with nothing said. */
		assert_int_equal(read(fd, &c, 1), 0);
		close(fd);
	}
	/* A client that goes away half way through its part. */
	fd = client();
	assert_int_equal(read(fd, &hello, sizeof(hello)), sizeof(hello));
	assert_int_equal(write(fd, &bad[0], 8), 8);
	close(fd);
	assert_int_equal(open_run(&si), 0);
	simd_instances_close(si);
	assert_int_equal(peer.calls, 0);
}

/* Someone took this process's name first: attach fails, saying so (a
 * squatter can block the process, never pose as it: ipu-simd checks the
 * listener's pid). */
static void test_name_taken_fails_the_start(void **state)
{
	int lfd = fake_listener();

	(void)state;
	assert_int_equal(ipu_sess_fw_gather_start(&sess), -EADDRINUSE);
	assert_false(sess.fw_gather);
	if (!strstr(sess.errmsg, "cannot listen as @" IPU_FW_GATHER_NAME))
		fail_msg("message: %s", sess.errmsg);
	close(lfd);
	/* Free again: it starts. */
	start();
}

/* Stopping while a client is connected and silent ends the service. */
static void test_stop_with_a_client_connected(void **state)
{
	struct ipu_fw_gather_hello hello;
	int fd;

	(void)state;
	start();
	fd = client();
	assert_int_equal(read(fd, &hello, sizeof(hello)), sizeof(hello));
	ipu_sess_fw_gather_stop(&sess);
	assert_false(sess.fw_gather);
	close(fd);
	/* Nobody listens any more. */
	assert_int_equal(open_run(&(struct simd_instances *){ NULL }),
			 -ECONNREFUSED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_gather_reaches_the_process),
		T(test_transport_failure_reaches_the_firmware),
		T(test_no_service_is_a_clear_error),
		T(test_program_and_process_must_agree),
		T(test_listener_of_another_pid_is_refused),
		T(test_answers_of_the_wrong_size_are_refused),
		T(test_reset_ends_a_wait_for_no_answer),
		T(test_garbage_client_is_dropped),
		T(test_name_taken_fails_the_start),
		T(test_stop_with_a_client_connected),
#undef T
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
