// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_gather.c - split launches on PCIe IPUs (docs/instances.md,
 * "PCIe IPUs"; docs/hardware.md section 4.4): a 2-replica program split
 * into 2 instances of 1 replica, instance i on IPU i, one file each; the
 * test plays the instances' transport, taking each IPU's gather request
 * (poll, GATHER_NEXT), carrying the parts between the staging buffers and
 * answering (GATHER_ANSWER):
 *  - the outputs equal the unsplit program's on the same two IPUs;
 *  - hostile calls: a wrong token, another file's token, a double answer,
 *    a status out of range, a non-zero GATHER_NEXT input, a split launch
 *    with malformed fields; a failed answer's errno reaches WAIT; struct
 *    sizes (v1, cut, larger) on the ioctl and io_uring paths, and a split
 *    launch through io_uring;
 *  - a device that lies (ipu-emu's bad_gather): requests naming another
 *    process, an oversized part or another staging area are refused;
 *  - closing a file mid-gather fails its launch and leaks nothing
 *    (memory_used back to where it was), as does killing the process
 *    (-9) that owns it; a reset forgets the requests (their tokens
 *    -ENOENT); a request nobody answers meets the launch's deadline
 *    (-ETIMEDOUT); the next split launch runs after each;
 *  - stale state: a staging handle destroyed and reused mid-launch is
 *    never handed out; a launch that ended frees its buffers with its
 *    requests never taken; hot removal mid-gather wakes a poller
 *    (POLLHUP);
 *  - a PCI IPU without the gather extension (ipu-emu's no_gather) does
 *    not report IPU_FEATURE_GATHER and refuses split launches
 *    (-EOPNOTSUPP, ioctl and io_uring) before they reach it.
 * Skipped without two PCI IPUs.
 */
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kemu.h"
#include "kpci.h"
#include "kprog.h"
#include "kreset.h"
#include "ksimd.h"
#include "kuring.h"

#define FAR_NS INT64_MAX
#define GROUP 0x5e11u
/*
 * A bound on the waits for a gather request (or its end): the device
 * sends it within milliseconds; 60 s, as the other waits of a TCG (KASAN)
 * guest, is only a safety limit, so that a driver that never delivers
 * one fails the test saying so instead of hanging it until the guest's
 * per-binary kill.
 */
#define GATHER_WAIT_MS 60000


/* The image of @p split into instances of one replica each. */
static void *split_image(struct kp_prog *p, size_t *len)
{
	void *image = NULL;
	char msg[256];

	p->exe->instance_replication_factor = 1;
	if (ipu_exe_save(p->exe, &image, len, msg, sizeof(msg)))
		fail_msg("saving split: %s", msg);
	p->exe->instance_replication_factor = p->exe->replication_factor;
	return image;
}

/*
 * Replica @r of @p on PCI IPU @r: @image, the replica's weights and input
 * (x = i / 8 - r), and with @split a staging buffer.
 */
/* One instance: a file attached to its IPU, its buffers and launch. */
static struct kp_raw inst_setup(struct kp_prog *p, const void *image,
			      size_t len, uint32_t r, bool split)
{
	const struct ipu_exe_stream *in = &p->exe->streams[p->in[0]];
	float x[16];
	struct kp_raw s;
	int n, i;

	n = ipu_of(ipus[r]);
	if (n < 0)
		fail_msg("%s has no ipuN (not bound?)", ipus[r]);
	s.fd = kt_open_attached((unsigned int)n);
	kp_launch_bufs(s.fd, image, len, p->exe->arena_size, &s.l);
	kp_weights(p, r, kp_raw_put_arena, &s);
	for (i = 0; i < 16; i++)
		x[i] = (float)i / 8.0f - (float)r;
	assert_int_equal(kt_write_bo(s.fd, s.l.arena_handle, in->slots_offset,
				     x, sizeof(x)), 0);
	s.l.replica = r;
	s.l.num_replicas = 2;
	s.l.group = GROUP;
	if (split) {
		s.l.replica = 0;
		s.l.num_replicas = 1;
		s.l.instance_index = r;
		s.l.instance_count = 2;
		s.l.staging_size = (uint32_t)kt_granule(s.fd);
		s.l.staging_handle = kt_bo(s.fd, s.l.staging_size, NULL);
	}
	return s;
}

static uint64_t launch(struct kp_raw *s)
{
	struct ipu_launch arg = s->l;

	arg.fence = 0;
	assert_int_equal(kt_ioctl(s->fd, IPU_IOCTL_LAUNCH, &arg), 0);
	return arg.fence;
}

static int wait_fence(struct kp_raw *s, uint64_t fence)
{
	int status;

	assert_int_equal(kt_wait_fence(s->fd, fence, FAR_NS, &status), 0);
	return status;
}

/* Wait (an event, bounded) until @fd reports @events; @what: for what. */
static short wait_fd(int fd, short events, const char *what)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int n = poll(&pfd, 1, GATHER_WAIT_MS);

	if (n < 0)
		fail_msg("poll for %s: %s", what, strerror(errno));
	if (n == 0)
		fail_msg("no %s within %d s: the driver never delivered it",
			 what, GATHER_WAIT_MS / 1000);
	return pfd.revents;
}

/* Wait (an event, bounded) for @s's request and take it. */
static struct ipu_gather_next take(struct kp_raw *s)
{
	struct ipu_gather_next g;

	assert_true(wait_fd(s->fd, POLLPRI | POLLIN, "gather request") & POLLPRI);
	memset(&g, 0, sizeof(g));
	assert_int_equal(kt_ioctl(s->fd, IPU_IOCTL_GATHER_NEXT, &g), 0);
	assert_true(g.token != 0);
	assert_int_equal(g.group, GROUP);
	assert_int_equal(g.staging_handle, s->l.staging_handle);
	assert_int_equal(g.instance_count, 2);
	assert_int_equal(g.instance_index, s->l.instance_index);
	assert_int_equal(g.collective, 0);
	assert_true(g.bytes > 0 && 2 * g.bytes <= s->l.staging_size);
	return g;
}

static int answer(struct kp_raw *s, uint64_t token, int status)
{
	struct ipu_gather_answer a = { .token = token, .status = status };

	return kt_ioctl(s->fd, IPU_IOCTL_GATHER_ANSWER, &a);
}

/* Carry instance @from's part into instance @to's staging buffer. */
static void carry(struct kp_raw *from, const struct ipu_gather_next *gf,
		  struct kp_raw *to)
{
	uint64_t off = gf->staging_offset + gf->instance_index * gf->bytes;
	uint8_t part[4096];

	assert_true(gf->bytes <= sizeof(part));
	assert_int_equal(kt_read_bo(from->fd, gf->staging_handle, off, part,
				    gf->bytes), 0);
	assert_int_equal(kt_write_bo(to->fd, to->l.staging_handle, off, part,
				     gf->bytes), 0);
}

static void read_y(struct kp_prog *p, struct kp_raw *s, float *y)
{
	const struct ipu_exe_stream *out = &p->exe->streams[p->out[0]];

	assert_int_equal(kt_read_bo(s->fd, s->l.arena_handle, out->slots_offset,
				    y, 8 * sizeof(float)), 0);
}

struct split {
	struct kp_prog *p;
	void *image;
	size_t len;
	struct kp_raw s[2];
	uint64_t fence[2];
};

/* The program and its split image; skipped without two PCI IPUs. */
static void split_prepare(struct split *sp)
{
	require_ipus();
	if (nr_ipus < 2)
		kt_skip();
	sp->p = kp_mlp(2);
	sp->image = split_image(sp->p, &sp->len);
}

/* Both instances set up and launched. */
static void split_start(struct split *sp)
{
	uint32_t r;

	split_prepare(sp);
	for (r = 0; r < 2; r++)
		sp->s[r] = inst_setup(sp->p, sp->image, sp->len, r, true);
	for (r = 0; r < 2; r++)
		sp->fence[r] = launch(&sp->s[r]);
}

static void split_free(struct split *sp)
{
	free(sp->image);
	kp_free(sp->p);
}

/* A file of IPU 1 (not attached) and the device memory it holds now. */
static int watch_ipu1(uint64_t *used)
{
	int fd;

	require_ipus();
	if (nr_ipus < 2)
		kt_skip();
	fd = kt_open(ipu_of(ipus[1]));
	*used = kt_info(fd).memory_used;
	return fd;
}

/*
 * Wait for @fd's device to hold @used bytes again: a launch whose file
 * closed ends on the device (an event), not after a time.
 */
static void wait_memory_used(int fd, uint64_t used)
{
	unsigned int tries;

	for (tries = 0; kt_info(fd).memory_used != used; tries++) {
		if (tries > 100000)
			fail_msg("the IPU still holds %llu bytes more",
				 (unsigned long long)(kt_info(fd).memory_used - used));
		sched_yield();
	}
}

/* The transport: both requests taken, each part carried, both answered 0. */
static void serve_gather(struct split *sp)
{
	struct ipu_gather_next g[2];
	uint32_t r;

	for (r = 0; r < 2; r++)
		g[r] = take(&sp->s[r]);
	carry(&sp->s[0], &g[0], &sp->s[1]);
	carry(&sp->s[1], &g[1], &sp->s[0]);
	for (r = 0; r < 2; r++)
		assert_int_equal(answer(&sp->s[r], g[r].token, 0), 0);
}

static void test_two_instances_give_the_unsplit_bits(void **state)
{
	float y[2][8], want[2][8];
	struct kp_raw u[2];
	struct split sp;
	uint32_t r;

	(void)state;
	split_start(&sp);
	serve_gather(&sp);
	for (r = 0; r < 2; r++) {
		assert_int_equal(wait_fence(&sp.s[r], sp.fence[r]), 0);
		read_y(sp.p, &sp.s[r], y[r]);
		kt_close(sp.s[r].fd);
	}

	/* The unsplit program, replicas 0 and 1 on the same IPUs. */
	for (r = 0; r < 2; r++)
		u[r] = inst_setup(sp.p, sp.p->image, sp.p->len, r, false);
	for (r = 0; r < 2; r++)
		sp.fence[r] = launch(&u[r]);
	for (r = 0; r < 2; r++) {
		assert_int_equal(wait_fence(&u[r], sp.fence[r]), 0);
		read_y(sp.p, &u[r], want[r]);
		kt_close(u[r].fd);
	}
	assert_memory_equal(y, want, sizeof(y));
	split_free(&sp);
}

static void test_hostile_answers_and_a_failed_gather(void **state)
{
	struct ipu_gather_next g[2], junk;
	struct split sp;

	(void)state;
	split_start(&sp);
	g[0] = take(&sp.s[0]);
	g[1] = take(&sp.s[1]);
	/* Nothing else waits; a non-zero input is refused. */
	memset(&junk, 0, sizeof(junk));
	assert_int_equal(kt_ioctl(sp.s[0].fd, IPU_IOCTL_GATHER_NEXT, &junk),
			 -EAGAIN);
	junk.flags = 1;
	assert_int_equal(kt_ioctl(sp.s[0].fd, IPU_IOCTL_GATHER_NEXT, &junk),
			 -EINVAL);
	/* Unknown token, 0, out-of-range status, flags. */
	assert_int_equal(answer(&sp.s[0], g[0].token + 100, 0), -ENOENT);
	assert_int_equal(answer(&sp.s[0], 0, 0), -ENOENT);
	assert_int_equal(answer(&sp.s[0], g[0].token, 1), -EINVAL);
	assert_int_equal(answer(&sp.s[0], g[0].token, -4096), -EINVAL);
	{
		struct ipu_gather_answer a = { .token = g[0].token, .flags = 1 };

		assert_int_equal(kt_ioctl(sp.s[0].fd, IPU_IOCTL_GATHER_ANSWER,
					  &a), -EINVAL);
	}
	/* File 1's token on file 0: not this file's. */
	if (g[1].token != g[0].token)
		assert_int_equal(answer(&sp.s[0], g[1].token, 0), -ENOENT);
	/* A failure's errno reaches WAIT; a second answer is -ENOENT. */
	assert_int_equal(answer(&sp.s[0], g[0].token, -ETIMEDOUT), 0);
	assert_int_equal(answer(&sp.s[0], g[0].token, 0), -ENOENT);
	assert_int_equal(wait_fence(&sp.s[0], sp.fence[0]), -ETIMEDOUT);
	assert_int_equal(answer(&sp.s[1], g[1].token, -EHOSTDOWN), 0);
	assert_int_equal(wait_fence(&sp.s[1], sp.fence[1]), -EHOSTDOWN);
	kt_close(sp.s[0].fd);
	kt_close(sp.s[1].fd);
	split_free(&sp);
}

static void test_malformed_split_launches(void **state)
{
	struct ipu_launch l;
	struct split sp;
	uint32_t r;

	(void)state;
	split_prepare(&sp);
	sp.s[0] = inst_setup(sp.p, sp.image, sp.len, 0, true);
	for (r = 0; r < 7; r++) {
		l = sp.s[0].l;
		switch (r) {
		case 0: l.instance_index = 2; break;
		case 1: l.instance_count = 4097; break;
		case 2: l.staging_size = 0; break;
		case 3: l.staging_offset = 8; break;
		case 4: l.staging_offset = 64; break; /* past the buffer */
		case 5: l.instance_count = 0; break; /* split fields without */
		case 6: l.staging_handle = 9999; break;
		}
		assert_int_equal(kt_ioctl(sp.s[0].fd, IPU_IOCTL_LAUNCH, &l),
				 r == 6 ? -ENOENT : -EINVAL);
	}
	/*
	 * A v1 caller (64 bytes) still launches; the split image without its
	 * INSTANCE is the device's E_INVAL.
	 */
	l = sp.s[0].l;
	l.fence = 0;
	assert_int_equal(kt_ioctl(sp.s[0].fd, kt_resize(IPU_IOCTL_LAUNCH,
						IPU_LAUNCH_SIZE_V1), &l), 0);
	assert_int_equal(wait_fence(&sp.s[0], l.fence), -EINVAL);
	kt_close(sp.s[0].fd);
	split_free(&sp);
}

/*
 * The kernel refused instance 0's request itself: GATHER_NEXT hands
 * nothing out and its launch ends with @status. Instance 1, its peer
 * gone, is answered with the transport's error; both files close.
 */
static void instance_0_refused(struct split *sp, int status)
{
	struct ipu_gather_next g;

	memset(&g, 0, sizeof(g));
	assert_int_equal(kt_ioctl(sp->s[0].fd, IPU_IOCTL_GATHER_NEXT, &g),
			 -EAGAIN);
	assert_int_equal(wait_fence(&sp->s[0], sp->fence[0]), status);
	g = take(&sp->s[1]);
	assert_int_equal(answer(&sp->s[1], g.token, -ECONNRESET), 0);
	assert_int_equal(wait_fence(&sp->s[1], sp->fence[1]), -ECONNRESET);
	kt_close(sp->s[0].fd);
	kt_close(sp->s[1].fd);
	split_free(sp);
}

/*
 * A stale handle: instance 0 destroys its staging buffer's handle while
 * its launch runs (the launch keeps the buffer) and a new buffer takes
 * the same handle. GATHER_NEXT must not name the new buffer, where the
 * host would carry the parts while the device reads the old one: the
 * kernel fails the request (-EBADF reaches WAIT) and hands nothing out.
 */
static void test_staging_handle_destroyed_mid_launch(void **state)
{
	struct split sp;
	uint32_t again;

	(void)state;
	split_start(&sp);
	assert_int_equal(kt_bo_destroy(sp.s[0].fd, sp.s[0].l.staging_handle), 0);
	again = kt_bo(sp.s[0].fd, sp.s[0].l.staging_size, NULL);
	/* The handle is reused (lowest free): the case this guards. */
	assert_int_equal(again, sp.s[0].l.staging_handle);
	(void)wait_fd(sp.s[0].fd, POLLIN, "end of the refused launch");
	instance_0_refused(&sp, -EBADF);
}

/* A struct ipu_launch of a newer caller: 8 bytes this kernel does not know. */
struct launch_v3 {
	struct ipu_launch l;
	uint64_t tail;
};

/* Queue @l on ku_r as command @op (its size the payload's) on @fd. */
static void uring_launch(int fd, uint32_t op, const struct ipu_launch *l)
{
	struct io_uring_sqe *sqe = ku_sqe(&ku_r, fd, op, 0);

	*(struct ipu_launch *)(void *)sqe->cmd = *l;
}

/*
 * Struct sizes on both paths. A 72-byte LAUNCH (the split fields cut
 * after staging_size: instance_count 0 with staging fields) is -EINVAL,
 * an 88-byte one with a non-zero tail -E2BIG, an io_uring payload past
 * the SQE's 80 bytes -EINVAL, a 64-byte (v1) io_uring payload a launch of
 * one instance (the device's E_INVAL for a split image). Then the run:
 * instance 0 through io_uring (the 80-byte payload), instance 1 through
 * an 88-byte LAUNCH with a zero tail; both complete with 0.
 */
static void test_split_launch_sizes_and_io_uring(void **state)
{
	struct ipu_launch l;
	struct launch_v3 big;
	struct split sp;
	uint32_t r;
	int res;

	(void)state;
	split_prepare(&sp);
	for (r = 0; r < 2; r++) {
		sp.s[r] = inst_setup(sp.p, sp.image, sp.len, r, true);
		sp.s[r].l.fence = 0;
	}
	l = sp.s[1].l;
	assert_int_equal(kt_ioctl(sp.s[1].fd, kt_resize(IPU_IOCTL_LAUNCH, 72),
				  &l), -EINVAL);
	memset(&big, 0, sizeof(big));
	big.l = sp.s[1].l;
	big.tail = 1;
	assert_int_equal(kt_ioctl(sp.s[1].fd, kt_resize(IPU_IOCTL_LAUNCH,
							sizeof(big)), &big),
			 -E2BIG);
	uring_launch(sp.s[0].fd, kt_resize(IPU_URING_CMD_LAUNCH, 88), &sp.s[0].l);
	assert_int_equal(ku_one(&ku_r), -EINVAL);
	uring_launch(sp.s[0].fd,
		     kt_resize(IPU_URING_CMD_LAUNCH, IPU_LAUNCH_SIZE_V1),
		     &sp.s[0].l);
	assert_int_equal(ku_one(&ku_r), -EINVAL);

	uring_launch(sp.s[0].fd, IPU_URING_CMD_LAUNCH, &sp.s[0].l);
	assert_int_equal(io_uring_submit(&ku_r), 1);
	big.tail = 0;
	assert_int_equal(kt_ioctl(sp.s[1].fd, kt_resize(IPU_IOCTL_LAUNCH,
							sizeof(big)), &big), 0);
	serve_gather(&sp);
	res = 1;
	ku_reap(&ku_r, 1, &res, 1);
	assert_int_equal(res, 0);
	assert_int_equal(wait_fence(&sp.s[1], big.l.fence), 0);
	kt_close(sp.s[0].fd);
	kt_close(sp.s[1].fd);
	split_free(&sp);
}

/*
 * Instance 1's file closes mid-gather: its launch fails, instance 0's
 * answered with the transport's error; then a reset under a pending
 * request makes its token stale. Nothing stays allocated.
 */
static void test_close_and_reset_mid_gather(void **state)
{
	struct ipu_gather_next g;
	struct split sp;
	struct ipu_reset rs = { 0 };
	uint64_t used;
	int fd;

	(void)state;
	fd = watch_ipu1(&used);
	split_start(&sp);
	take(&sp.s[1]);
	kt_close(sp.s[1].fd);
	g = take(&sp.s[0]);
	assert_int_equal(kt_ioctl(sp.s[0].fd, IPU_IOCTL_RESET, &rs), 0);
	assert_int_equal(answer(&sp.s[0], g.token, 0), -ENOENT);
	assert_int_equal(wait_fence(&sp.s[0], sp.fence[0]), -EIO);
	kt_close(sp.s[0].fd);
	/* Instance 1's launch ends on the device by itself: wait for it. */
	wait_memory_used(fd, used);
	kt_close(fd);
	split_free(&sp);

	/* The next split run works. */
	test_two_instances_give_the_unsplit_bits(state);
}

/*
 * A reset of IPU 0 that fails (its soft reset ignored, no FLR possible:
 * test_pci_failed_reset.c) leaves the device as it was, its gather ring
 * running: the next split run works (the driver had stopped taking the
 * ring's requests for the reset and never took them again, so the run
 * waited for its deadline).
 */
static void test_split_run_after_a_failed_reset(void **state)
{
	int fd;

	require_ipus();
	if (nr_ipus < 2)
		kt_skip();
	fd = ke_open_first();
	assert_int_equal(kr_failed_reset(fd), -EIO);
	kr_reset_methods(ipus[0], "default");
	ke_fault(0, "clear");
	kt_close(fd);
	test_two_instances_give_the_unsplit_bits(state);
}

static int failed_reset_teardown(void **state)
{
	kr_reset_methods(ipus[0], "default");
	return kr_clear_teardown(state);
}

/*
 * Instance 1 is a process killed (-9) while its request waits: its file
 * closes with the process, its launch fails and its buffers go; instance
 * 0, answered with the transport's error, fails with it.
 */
static void test_kill_9_mid_gather(void **state)
{
	struct ipu_gather_next g;
	struct split sp;
	uint64_t used;
	int fd, pfd[2], st;
	pid_t pid;
	char c;

	(void)state;
	fd = watch_ipu1(&used);
	sp.p = kp_mlp(2);
	sp.image = split_image(sp.p, &sp.len);
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sp.s[1] = inst_setup(sp.p, sp.image, sp.len, 1, true);
		sp.fence[1] = launch(&sp.s[1]);
		take(&sp.s[1]);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	sp.s[0] = inst_setup(sp.p, sp.image, sp.len, 0, true);
	sp.fence[0] = launch(&sp.s[0]);
	g = take(&sp.s[0]);
	assert_int_equal(read(pfd[0], &c, 1), 1);
	close(pfd[0]);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(answer(&sp.s[0], g.token, -ECONNRESET), 0);
	assert_int_equal(wait_fence(&sp.s[0], sp.fence[0]), -ECONNRESET);
	kt_close(sp.s[0].fd);
	/* The killed instance's launch ends on the device by itself. */
	wait_memory_used(fd, used);
	kt_close(fd);
	split_free(&sp);
}

/*
 * Nobody answers: the device's deadline fails both launches
 * (-ETIMEDOUT); the next split run works.
 */
static void test_no_answer_meets_the_deadline(void **state)
{
	struct split sp;
	uint32_t r;

	(void)state;
	ks_timeout_set(500);
	split_start(&sp);
	/*
	 * No take(): once the deadline ended a launch its request is stale,
	 * and a file whose requests all are does not poll readable.
	 */
	for (r = 0; r < 2; r++) {
		assert_int_equal(wait_fence(&sp.s[r], sp.fence[r]), -ETIMEDOUT);
		kt_close(sp.s[r].fd);
	}
	split_free(&sp);
	/* The next run is a normal one: under the normal deadline. */
	ks_timeout_restore();
	test_two_instances_give_the_unsplit_bits(state);
}

/*
 * Nobody takes the requests, the deadline ends the launches, and instance
 * 1's process, its file still open, destroys its buffers: the device
 * memory is free again without the process touching its inbox (a request
 * that can no longer be answered must not keep its launch, and the
 * launch's buffers, until the file next polls or closes).
 */
static void test_ended_launch_frees_its_buffers(void **state)
{
	struct split sp;
	uint64_t used;
	uint32_t r;
	int fd;

	(void)state;
	fd = watch_ipu1(&used);
	ks_timeout_set(500);
	split_start(&sp);
	for (r = 0; r < 2; r++)
		assert_int_equal(wait_fence(&sp.s[r], sp.fence[r]), -ETIMEDOUT);
	assert_int_equal(kt_bo_destroy(sp.s[1].fd, sp.s[1].l.exe_handle), 0);
	assert_int_equal(kt_bo_destroy(sp.s[1].fd, sp.s[1].l.arena_handle), 0);
	assert_int_equal(kt_bo_destroy(sp.s[1].fd, sp.s[1].l.staging_handle), 0);
	wait_memory_used(fd, used);
	kt_close(sp.s[0].fd);
	kt_close(sp.s[1].fd);
	kt_close(fd);
	split_free(&sp);
}

/* The model's IPU that test_lying_requests_are_refused makes lie, or -1. */
static int lying_emu = -1;

/*
 * A device that lies (ipu-emu's bad_gather, on instance 0's IPU): a
 * request naming another process, a part no staging area holds, or
 * another staging area matches no launch of the file. The kernel answers
 * it EPROTO at once and hands nothing out: the run fails (-EIO) without
 * waiting for its deadline. Instance 1, answered with the transport's
 * error, fails with it.
 */
static void test_lying_requests_are_refused(void **state)
{
	static const char *const lies[] = {
		"bad_gather=owner", "bad_gather=bytes", "bad_gather=staging",
	};
	struct split sp;
	unsigned int i;

	(void)state;
	require_ipus();
	if (nr_ipus < 2)
		kt_skip();
	ke_require();
	lying_emu = ke_model_ipu((unsigned int)ipu_of(ipus[0]));
	assert_true(lying_emu >= 0);
	for (i = 0; i < 3; i++) {
		ke_fault((unsigned int)lying_emu, lies[i]);
		split_start(&sp);
		instance_0_refused(&sp, -EIO);
	}
}

/* A lie not told (a test that failed first) must not reach the next test. */
static int lie_teardown(void **state)
{
	char ans[128];

	if (lying_emu >= 0)
		ke_send("fault", (unsigned int)lying_emu, "clear", ans,
			sizeof(ans));
	lying_emu = -1;
	return kt_teardown(state);
}

/* The function test_removal_mid_gather removed, for a failed test's teardown. */
static char removed_bdf[16];

/*
 * Reap @pid once it exited by itself, polled (KS_POLLS): its wait status,
 * or the test fails naming @what it never stopped doing.
 */
static int reap_exited(pid_t pid, const char *what)
{
	int i, st = 0;

	for (i = 0; i < KS_POLLS; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			kt_untrack(kt_find(KT_CHILD, 0, NULL, NULL, pid, 0));
			return st;
		}
		ks_pause();
	}
	fail_msg("process %d never stopped %s", (int)pid, what);
	return -1;
}

/*
 * Hot removal (the PCI core's, as pciehp's) of instance 1's IPU while its
 * request is taken and a process sleeps in poll() on its file, waiting
 * for the next: the sleeper wakes with POLLHUP (it would sleep forever
 * otherwise: no request comes any more), a new poll() says so at once,
 * the request's answer is -ENODEV, closing the file frees it. Instance 0,
 * answered with the transport's error, fails with it; once the function
 * is back (rescan) the next split run works.
 */
static void test_removal_mid_gather(void **state)
{
	struct pollfd pfd = { .events = POLLIN | POLLPRI };
	struct ipu_gather_next g[2];
	struct split sp;
	pid_t poller;
	int st;

	split_start(&sp);
	g[0] = take(&sp.s[0]);
	g[1] = take(&sp.s[1]);
	pfd.fd = sp.s[1].fd;
	poller = kt_fork_opt(true);
	if (poller == 0) {
		kt_child_check(poll(&pfd, 1, GATHER_WAIT_MS) == 1, 1);
		kt_child_check(pfd.revents & POLLHUP, 2);
		_exit(0);
	}
	ks_wait_wchan(poller, "poll");
	snprintf(removed_bdf, sizeof(removed_bdf), "%s", ipus[1]);
	kp_remove(removed_bdf);

	st = reap_exited(poller, "polling the removed IPU's file");
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	pfd.revents = 0;
	assert_int_equal(poll(&pfd, 1, 0), 1);
	assert_true(pfd.revents & POLLHUP);
	assert_int_equal(answer(&sp.s[1], g[1].token, 0), -ENODEV);
	kt_close(sp.s[1].fd);
	assert_int_equal(answer(&sp.s[0], g[0].token, -ECONNRESET), 0);
	assert_int_equal(wait_fence(&sp.s[0], sp.fence[0]), -ECONNRESET);
	kt_close(sp.s[0].fd);
	split_free(&sp);

	kp_rescan(removed_bdf);
	removed_bdf[0] = '\0';
	test_two_instances_give_the_unsplit_bits(state);
}

/* A test that failed after the removal still leaves the function there. */
static int rescan_teardown(void **state)
{
	kt_cleanup();
	if (removed_bdf[0]) {
		kt_write_file("/sys/bus/pci/rescan", "1");
		removed_bdf[0] = '\0';
	}
	return kt_teardown(state);
}

/* The function test_no_gather_device_refuses_split_launches bound without
 * the extension, "" when none; and its model's number. */
static char nogather_bdf[16];
static unsigned int nogather_emu;

/* Bind @bdf again with its model's no_gather fault set to @spec. */
static void rebind_with(const char *bdf, unsigned int emu, const char *spec)
{
	kp_unbind(bdf);
	ke_fault(emu, spec);
	kp_bind(bdf);
}

/*
 * A PCI IPU without the gather extension (ipu-emu's no_gather: CAPS lacks
 * GATHER, bound afresh): GET_INFO does not report IPU_FEATURE_GATHER, a
 * split launch is -EOPNOTSUPP on the ioctl and io_uring paths before it
 * reaches the device (its buffers are free at once: no launch holds
 * them), and a launch of one instance still runs. The function is bound
 * again with the extension (here, or in the teardown of a failed test).
 */
static void test_no_gather_device_refuses_split_launches(void **state)
{
	struct kp_prog *one;
	struct ipu_gather_next g;
	struct ipu_launch l;
	struct split sp;
	uint64_t used;
	int n, watch;

	(void)state;
	require_ipus();
	ke_require();
	n = ipu_of(ipus[0]);
	assert_true(n >= 0);
	nogather_emu = (unsigned int)ke_model_ipu((unsigned int)n);
	snprintf(nogather_bdf, sizeof(nogather_bdf), "%s", ipus[0]);
	rebind_with(nogather_bdf, nogather_emu, "no_gather=1");

	watch = kt_open(ipu_of(nogather_bdf));
	used = kt_info(watch).memory_used;
	assert_int_equal(kt_info(watch).features & IPU_FEATURE_GATHER, 0);
	assert_true(kt_info(watch).features & IPU_FEATURE_LAUNCH);

	split_prepare(&sp);
	sp.s[0] = inst_setup(sp.p, sp.image, sp.len, 0, true);
	l = sp.s[0].l;
	assert_int_equal(kt_ioctl(sp.s[0].fd, IPU_IOCTL_LAUNCH, &l),
			 -EOPNOTSUPP);
	assert_int_equal(l.fence, 0);
	uring_launch(sp.s[0].fd, IPU_URING_CMD_LAUNCH, &sp.s[0].l);
	assert_int_equal(ku_one(&ku_r), -EOPNOTSUPP);
	memset(&g, 0, sizeof(g));
	assert_int_equal(kt_ioctl(sp.s[0].fd, IPU_IOCTL_GATHER_NEXT, &g),
			 -EAGAIN);
	/* Nothing holds the buffers: destroyed, the memory is free again. */
	assert_int_equal(kt_bo_destroy(sp.s[0].fd, sp.s[0].l.exe_handle), 0);
	assert_int_equal(kt_bo_destroy(sp.s[0].fd, sp.s[0].l.arena_handle), 0);
	assert_int_equal(kt_bo_destroy(sp.s[0].fd, sp.s[0].l.staging_handle), 0);
	assert_int_equal(kt_info(watch).memory_used, used);
	kt_close(sp.s[0].fd);
	split_free(&sp);

	/* A program of one instance (and one replica) runs as before. */
	one = kp_mlp(1);
	sp.s[0] = inst_setup(one, one->image, one->len, 0, false);
	sp.s[0].l.num_replicas = 1;
	assert_int_equal(wait_fence(&sp.s[0], launch(&sp.s[0])), 0);
	kt_close(sp.s[0].fd);
	kp_free(one);
	wait_memory_used(watch, used);
	kt_close(watch);

	rebind_with(nogather_bdf, nogather_emu, "no_gather=0");
	nogather_bdf[0] = '\0';
	n = ipu_of(ipus[0]);
	assert_true(n >= 0);
	watch = kt_open(n);
	assert_true(kt_info(watch).features & IPU_FEATURE_GATHER);
	kt_close(watch);
}

/* The extension back and the function bound, even after a failure. */
static int nogather_teardown(void **state)
{
	char ans[128];

	kt_cleanup();
	if (nogather_bdf[0]) {
		kt_write_file(KT_PCI_DRIVER "/unbind", nogather_bdf);
		ke_send("fault", nogather_emu, "no_gather=0", ans, sizeof(ans));
		kt_write_file(KT_PCI_DRIVER "/bind", nogather_bdf);
		nogather_bdf[0] = '\0';
	}
	return ku_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_two_instances_give_the_unsplit_bits),
		KT_TEST(test_hostile_answers_and_a_failed_gather),
		KT_TEST(test_malformed_split_launches),
		KT_TEST(test_staging_handle_destroyed_mid_launch),
		KU_TEST(test_split_launch_sizes_and_io_uring),
		KT_TEST(test_close_and_reset_mid_gather),
		cmocka_unit_test_teardown(test_split_run_after_a_failed_reset,
					  failed_reset_teardown),
		KT_TEST(test_kill_9_mid_gather),
		KS_TEST(test_no_answer_meets_the_deadline),
		KS_TEST(test_ended_launch_frees_its_buffers),
		cmocka_unit_test_teardown(test_lying_requests_are_refused,
					  lie_teardown),
		cmocka_unit_test_teardown(test_removal_mid_gather,
					  rescan_teardown),
		cmocka_unit_test_setup_teardown(test_no_gather_device_refuses_split_launches,
						ku_setup, nogather_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
