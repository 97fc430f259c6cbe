// SPDX-License-Identifier: GPL-2.0
/*
 * test_launch_limits.c - the bounds on launches (issue 8, item 3).
 *
 * - One file has at most 256 launches in flight, LAUNCH ioctls (until
 *   WAIT consumes the fence) and io_uring launches (until the CQE)
 *   together: the 257th is -EAGAIN on either path. The cap is per file:
 *   another file can launch while the first one is full.
 * - IOSQE_ASYNC launches (built by an io_uring worker) racing the ring's
 *   exit, which cancels what the firmware has not taken: many times, with
 *   the firmware running and stopped; nothing may oops, warn or leak.
 * - The watchdog cannot be starved: with the firmware stopped (SIGSTOP)
 *   and launches submitted in a tight loop, the first launch still fails
 *   with -ETIMEDOUT, and it ends while the flood goes on: the flood stops
 *   only once it has seen the launch end, so a watchdog that runs only
 *   when submitting stops never ends it. No time is asserted (a slow
 *   KASAN, TCG guest passes); a starved watchdog fails the test at a
 *   bound that only keeps it from hanging (WD_HANG_S).
 * - A transfer too large to pin inline (IO_URING_F_NONBLOCK issue) is
 *   punted to io_uring's worker and still completes, bytes intact.
 *
 * Launches hold an image the firmware refuses (-ENOEXEC): each completes
 * as soon as ipu-simd takes it; to keep them in flight the test stops the
 * daemon (ksimd.h), and lets it go on before reaping.
 */
#include <time.h>

#include "ksimd.h"
#include "kuring.h"

#define CAP 256
#define FAR_NS INT64_MAX

/* An attached file of ipu@idx with a junk image and an arena. */
struct lf {
	int fd;
	struct ipu_launch l;
};

/* Bytes of the junk image: zeros, which no firmware runs (-ENOEXEC). */
#define JUNK_SIZE 256

/*
 * The image is the new buffer's own zeros (BO_CREATE zeroes): no transfer
 * writes it. The watchdog test sets up files while its reset may be under
 * way, and a transfer a reset ends fails with -EIO, as documented; seen
 * once on a PCI IPU (test_pci_launch_limits on 6.1) when this wrote the
 * zeros with XFER.
 */
static struct lf lf_setup(unsigned int idx)
{
	struct lf f;
	uint64_t g;

	f.fd = kt_open_attached(idx);
	g = kt_granule(f.fd);
	memset(&f.l, 0, sizeof(f.l));
	f.l.exe_handle = kt_bo(f.fd, g, NULL);
	f.l.exe_size = JUNK_SIZE;
	f.l.arena_handle = kt_bo(f.fd, g, NULL);
	f.l.arena_size = g;
	f.l.num_replicas = 1;
	return f;
}

/* LAUNCH ioctl: 0 (and the fence) or -errno. */
static int launch(const struct lf *f, uint64_t *fence)
{
	struct ipu_launch arg = f->l;
	int err = kt_ioctl(f->fd, IPU_IOCTL_LAUNCH, &arg);

	*fence = arg.fence;
	return err;
}

/* Queue an io_uring launch of @f (not submitted). */
static struct io_uring_sqe *uring_launch(struct io_uring *ring,
					 const struct lf *f, uint64_t user_data)
{
	struct io_uring_sqe *sqe = ku_sqe(ring, f->fd, IPU_URING_CMD_LAUNCH,
					  user_data);
	struct ipu_launch *l = (struct ipu_launch *)sqe->cmd;

	*l = f->l;
	return sqe;
}

/*
 * The CQE of a launch refused while the firmware is stopped: nothing else
 * can complete, so the first CQE must be it. io_uring retries an -EAGAIN
 * of the inline (non-blocking) issue from its worker, and only then posts
 * it: the refusal is an event a little later, never a given time. The
 * wait is bounded only so that a launch wrongly accepted (and so held
 * with the firmware) fails the test instead of hanging it.
 */
#define REFUSED_WAIT_S 20

static void expect_refused_cqe(struct io_uring *ring, uint64_t user_data)
{
	struct __kernel_timespec ts = { .tv_sec = REFUSED_WAIT_S };
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
	if (ret == -ETIME)
		fail_msg("launch %llu past the cap was not refused (no CQE in %d s)",
			 (unsigned long long)user_data, REFUSED_WAIT_S);
	assert_int_equal(ret, 0);
	if (cqe->user_data != user_data || cqe->res != -EAGAIN)
		fail_msg("first CQE: launch %llu, result %d; expected launch %llu, -EAGAIN",
			 (unsigned long long)cqe->user_data, cqe->res,
			 (unsigned long long)user_data);
	io_uring_cqe_seen(ring, cqe);
}

static void submit_all(struct io_uring *ring, int n)
{
	int ret = io_uring_submit(ring);

	if (ret != n)
		fail_msg("io_uring_submit: %d of %d (%s)", ret, n,
			 ret < 0 ? strerror(-ret) : "short");
}

static size_t count(const int *res, size_t n, int what)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += res[i] == what;
	return k;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The ring of the running test, exited by the teardown too, so that a test
 * failing half way does not leave launches holding its file (and ipu0
 * attached) under the next test.
 */
static struct io_uring ll_r;
static bool ll_live;

static struct io_uring *ll_ring(unsigned int entries)
{
	ku_ring(&ll_r, entries, false);
	ll_live = true;
	return &ll_r;
}

static void ll_ring_exit(void)
{
	if (ll_live)
		io_uring_queue_exit(&ll_r);
	ll_live = false;
}

static int ll_teardown(void **state)
{
	ll_ring_exit();
	return ks_teardown(state);
}

#define LL_TEST(f) cmocka_unit_test_teardown(f, ll_teardown)

/* The cap ------------------------------------------------------------------ */

static void test_io_uring_launches_past_256_in_flight_are_eagain(void **state)
{
	static int res[CAP + 1];
	struct io_uring *ring;
	struct lf f;
	uint64_t fence;
	int i;

	(void)state;
	ks_require_simd();
	f = lf_setup(0);
	ring = ll_ring(512);
	ks_simd_stop();
	for (i = 0; i < CAP; i++)
		uring_launch(ring, &f, (uint64_t)i);
	submit_all(ring, CAP);
	/* The 257th, on its own: all 256 before it are in flight. */
	uring_launch(ring, &f, CAP);
	submit_all(ring, 1);
	expect_refused_cqe(ring, CAP);
	/* The file is full: the ioctl path is refused too. */
	assert_int_equal(launch(&f, &fence), -EAGAIN);
	ks_simd_cont();
	for (i = 0; i <= CAP; i++)
		res[i] = 1;
	ku_reap(ring, CAP, res, CAP + 1);
	ll_ring_exit();
	assert_int_equal(count(res, CAP, -ENOEXEC), CAP);
	/* All done: the file may launch again. */
	assert_int_equal(launch(&f, &fence), 0);
	assert_int_equal(kt_wait_fence(f.fd, fence, FAR_NS, &i), 0);
	assert_int_equal(i, -ENOEXEC);
}

static void test_ioctl_and_io_uring_launches_share_one_cap(void **state)
{
	static int res[CAP / 2];
	uint64_t fences[CAP / 2], extra;
	struct io_uring *ring;
	int i, status;
	struct lf f;

	(void)state;
	ks_require_simd();
	f = lf_setup(0);
	ring = ll_ring(256);
	ks_simd_stop();
	for (i = 0; i < CAP / 2; i++)
		assert_int_equal(launch(&f, &fences[i]), 0);
	for (i = 0; i < CAP / 2; i++)
		uring_launch(ring, &f, (uint64_t)i);
	submit_all(ring, CAP / 2);
	/* 128 fences and 128 io_uring launches: both paths are full. */
	assert_int_equal(launch(&f, &extra), -EAGAIN);
	uring_launch(ring, &f, CAP / 2);
	submit_all(ring, 1);
	expect_refused_cqe(ring, CAP / 2);
	ks_simd_cont();
	ku_reap(ring, CAP / 2, res, CAP / 2);
	ll_ring_exit();
	assert_int_equal(count(res, CAP / 2, -ENOEXEC), CAP / 2);
	for (i = 0; i < CAP / 2; i++) {
		assert_int_equal(kt_wait_fence(f.fd, fences[i], FAR_NS, &status), 0);
		assert_int_equal(status, -ENOEXEC);
	}
}

static void test_the_cap_is_per_file(void **state)
{
	uint64_t fences[CAP], fence_b, extra;
	struct io_uring *ring;
	int i, status, res[1];
	struct lf a, b;

	(void)state;
	ks_require_simd();
	a = lf_setup(0);
	ks_simd_stop();
	for (i = 0; i < CAP; i++)
		assert_int_equal(launch(&a, &fences[i]), 0);
	assert_int_equal(launch(&a, &extra), -EAGAIN);
	/* a's launches go on after it detaches; b owns ipu0 now. */
	assert_int_equal(kt_detach(a.fd), 0);
	b = lf_setup(0);
	assert_int_equal(launch(&b, &fence_b), 0);
	ring = ll_ring(4);
	uring_launch(ring, &b, 0);
	submit_all(ring, 1);
	ks_simd_cont();
	ku_reap(ring, 1, res, 1);
	ll_ring_exit();
	assert_int_equal(res[0], -ENOEXEC);
	assert_int_equal(kt_wait_fence(b.fd, fence_b, FAR_NS, &status), 0);
	assert_int_equal(status, -ENOEXEC);
	for (i = 0; i < CAP; i++) {
		assert_int_equal(kt_wait_fence(a.fd, fences[i], FAR_NS, &status), 0);
		assert_int_equal(status, -ENOEXEC);
	}
}

/* Cancellation at ring exit ------------------------------------------------ */

#define RACE_LOOPS 100
#define RACE_BATCH 4

/*
 * Rings that die with IOSQE_ASYNC launches just submitted: io_uring's
 * worker builds each launch while the ring's exit cancels the cancelable
 * ones. Half of the rounds with the firmware stopped, so that the cancel
 * pass finds launches not yet taken (on kernels that can cancel; 6.1
 * lets them run once the firmware goes on).
 */
static void race_rounds(const struct lf *f)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	int i, k;

	for (i = 0; i < RACE_LOOPS; i++) {
		ku_ring(&ring, RACE_BATCH, false);
		for (k = 0; k < RACE_BATCH; k++) {
			sqe = uring_launch(&ring, f, (uint64_t)k);
			sqe->flags |= IOSQE_ASYNC;
		}
		assert_true(io_uring_submit(&ring) >= 0);
		io_uring_queue_exit(&ring);
	}
}

static void test_async_launches_racing_ring_exit_leak_nothing(void **state)
{
	uint64_t before;
	struct lf f;
	int i;

	(void)state;
	ks_require_simd();
	before = kt_sysfs_u64(0, "memory_used");
	f = lf_setup(0);
	race_rounds(&f);
	ks_simd_stop();
	race_rounds(&f);
	ks_simd_cont();
	/*
	 * The launches hold the file (and so its buffers) until io_uring is
	 * done with them: once the file is closed, the memory comes back
	 * when the last launch has ended, and then the device is unowned.
	 */
	assert_int_equal(kt_close(f.fd), 0);
	for (i = 0; i < KS_POLLS && (kt_sysfs_u64(0, "memory_used") != before ||
				     kt_sysfs_u64(0, "owner_pid")); i++)
		ks_pause();
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), before);
	assert_int_equal(kt_sysfs_u64(0, "owner_pid"), 0);
	/* And the device still runs launches. */
	f = lf_setup(0);
	{
		uint64_t fence;
		int status;

		assert_int_equal(launch(&f, &fence), 0);
		assert_int_equal(kt_wait_fence(f.fd, fence, FAR_NS, &status), 0);
		assert_int_equal(status, -ENOEXEC);
	}
}

/* The watchdog ------------------------------------------------------------- */

#define WD_DEADLINE_MS 250
/*
 * The flood goes on until the first launch has ended, or this long: not
 * a bound on the watchdog (its deadline is 250 ms; a KASAN kernel under
 * TCG ended it within 1.7 s), only on how long a starved one keeps the
 * test from failing; and, as launches a starved watchdog never ends pile
 * up, on the memory they hold.
 */
#define WD_HANG_S 60
/* Launches per file of the flood, below the cap. */
#define WD_PER_FILE 200

/*
 * With the firmware stopped, the first launch is submitted, then a flood
 * of launches from new files, each launch followed by a look whether the
 * first one has ended. The first launch must end while the flood is still
 * submitting (the flood stops only once it has seen it end), with
 * -ETIMEDOUT: the old bug, a watchdog that only ran once submitting
 * stopped, never ends it and fails at WD_HANG_S.
 */
static void test_a_flood_of_launches_cannot_starve_the_watchdog(void **state)
{
	uint64_t fence0, fence;
	unsigned long submitted = 0, refused = 0;
	int64_t t0;
	int i, err = 0, status = 1, done;
	struct lf first, f;

	(void)state;
	ks_require_simd();
	ks_timeout_set(WD_DEADLINE_MS);
	first = lf_setup(0);
	ks_simd_stop();
	t0 = now_ns();
	assert_int_equal(launch(&first, &fence0), 0);
	/* The first launch's file keeps its fence; others flood. */
	assert_int_equal(kt_detach(first.fd), 0);
	done = 0;
	for (;;) {
		f = lf_setup(0);
		for (i = 0; i < WD_PER_FILE && !done; i++) {
			err = launch(&f, &fence);
			/* After the reset the firmware is gone: -EUNATCH. */
			if (err && err != -EUNATCH)
				fail_msg("launch %d of a flood file: %s", i,
					 strerror(-err));
			if (err)
				refused++;
			else
				submitted++;
			done = kt_wait_fence(first.fd, fence0, 0, &status) == 0;
		}
		/* Its launches stay in flight; its fences go with it. */
		assert_int_equal(kt_close(f.fd), 0);
		if (done)
			break;
		if (now_ns() - t0 > (int64_t)WD_HANG_S * 1000000000)
			fail_msg("watchdog starved: the first launch had not ended after %d s of flood (%lu launches submitted), deadline %d ms",
				 WD_HANG_S, submitted, WD_DEADLINE_MS);
	}
	print_message("first launch completed (%d) during the flood, after %lld ms and %lu flood launches (%lu more refused after the reset), deadline %d ms\n",
		      status, (long long)((now_ns() - t0) / 1000000), submitted,
		      refused, WD_DEADLINE_MS);
	assert_int_equal(status, -ETIMEDOUT);
}

/* NONBLOCK issue ----------------------------------------------------------- */

#define HUGE_MB 32

/*
 * A 32 MiB transfer is issued inline with IO_URING_F_NONBLOCK, where the
 * driver must not pin: it answers -EAGAIN, io_uring issues it again from
 * its worker, and it completes. Both directions, one SQE each.
 */
static void test_a_huge_io_uring_transfer_is_punted_and_completes(void **state)
{
	const size_t len = (size_t)HUGE_MB << 20;
	struct io_uring *ring;
	unsigned int idx;
	uint8_t *src, *dst;
	uint32_t h;
	int fd, res[2] = { 1, 1 };

	(void)state;
	idx = kt_own_dev(HUGE_MB);
	fd = kt_open_attached(idx);
	h = kt_bo(fd, len, NULL);
	src = kt_alloc(len);
	dst = kt_alloc(len);
	kt_fill(src, len, 31);
	ring = ll_ring(4);
	ku_xfer(ring, fd, h, 0, src, len, IPU_XFER_TO_DEVICE, 0);
	ku_run(ring, 1, res, 2);
	assert_int_equal(res[0], 0);
	/* Into untouched memory: every page faults in the worker. */
	ku_xfer(ring, fd, h, 0, dst, len, IPU_XFER_FROM_DEVICE, 1);
	ku_run(ring, 1, res, 2);
	ll_ring_exit();
	assert_int_equal(res[1], 0);
	assert_pattern(dst, len, 31);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		LL_TEST(test_io_uring_launches_past_256_in_flight_are_eagain),
		LL_TEST(test_ioctl_and_io_uring_launches_share_one_cap),
		LL_TEST(test_the_cap_is_per_file),
		LL_TEST(test_async_launches_racing_ring_exit_leak_nothing),
		LL_TEST(test_a_flood_of_launches_cannot_starve_the_watchdog),
		LL_TEST(test_a_huge_io_uring_transfer_is_punted_and_completes),
	};

	return KT_RUN(tests);
}
