// SPDX-License-Identifier: GPL-2.0
/*
 * test_enomem.c - every allocation the driver makes on a user's behalf may
 * fail, and each failure is clean.
 *
 * With fault injection (the debug kernel of the matrix; Debian's kernels
 * have none, and there every test skips), /proc/self/task/<tid>/fail-nth
 * makes the n-th allocation of this thread fail (slab: failslab, pages:
 * fail_page_alloc, which tests/kernel/guest-init sets up to fail any
 * allocation, silently). Each test takes one operation of the UAPI - open,
 * ATTACH, BO_CREATE, XFER both ways, LAUNCH, WAIT, FW_NEXT, FW_DONE, the
 * io_uring XFER and LAUNCH, mmap and its first fault, new_device - and runs
 * it with n = 1, 2, ... until an attempt no longer reaches its n-th
 * allocation: then every allocation on its path has failed once. After
 * each injected failure the call has either failed with -ENOMEM (or, for
 * io_uring, been refused at submission) or succeeded anyway (the failed
 * allocation had a fallback, e.g. one of kmemleak's or KASAN's own), and
 * the device's memory_used is what it was: nothing leaked, nothing half
 * made. The guest's kmemleak scan after rmmod and the dmesg check (no
 * WARN, lockdep or KASAN report) see the rest.
 *
 * A failed page allocation without __GFP_NOWARN prints a report with a
 * stack (warn_alloc): expected here, so the tests mark their stretch of
 * the kernel log ("IPU-FAULT-INJECTION begin/end" in /dev/kmsg), and
 * scripts/kernel-check ignores those reports, and only those, inside it.
 *
 * The last test runs a mix of every operation many times with failslab and
 * fail_page_alloc at a probability, scoped to this thread
 * (/proc/self/make-it-fail, task-filter=Y), and checks the same.
 *
 * test_pci_enomem.c runs the same on a PCI IPU (ktest.h, KT_ON_PCI): its
 * XFER pins the pages, builds an sg table, maps it (dma_map_sgtable) and
 * writes descriptors; its BOs are ranges of BAR2; a LAUNCH goes through
 * the device's command queue, and the device (ipu-emu) runs a real
 * program (kprog.h) instead of this test playing the firmware, so
 * FW_NEXT, FW_DONE and new_device are the simulated IPUs' alone. There,
 * and on simulated IPUs too, every injected failure must also leave the
 * pinned pages (kt_pinned_now()) and the DMA API's live mappings
 * (kt_dma_api_now(), the debug kernel) where they were.
 *
 * Between arming fail-nth and the call, the test touches no new memory of
 * its own (a failed page fault of its own would count).
 */
#include <liburing.h>
#include <time.h>

#include "kfailnth.h"
#include "ktest.h"
#include "kprog.h"
#include "ksimd.h"

#define FAULT_DIR "/sys/kernel/debug"
/* More allocations than any one call makes: a loop that gets here is stuck. */
#define MAX_SITES 2000
/* XFER's length: pages enough for an sg table and descriptors of several. */
#define XFER_PAGES 16

/*
 * Whether the device runs launches by itself (a PCI IPU's command queue)
 * or waits for this test's firmware file (FW_NEXT, FW_DONE).
 */
#ifdef KT_ON_PCI
#define DEVICE_RUNS_LAUNCHES true
#else
#define DEVICE_RUNS_LAUNCHES false
#endif

/*
 * Whether XFER maps the host pages with the DMA API (a PCI IPU; a
 * simulated IPU copies them), which with CONFIG_DMA_API_DEBUG allocates
 * too: see hold_dma_tracking().
 */
#define XFER_MAPS_FOR_DMA DEVICE_RUNS_LAUNCHES

/* Go on when this kernel has fault injection, else skip the test. */
static void require_fault_injection(void)
{
	if (!nth_open() || access(FAULT_DIR "/failslab/probability", W_OK) ||
	    access(FAULT_DIR "/fail_page_alloc/probability", W_OK)) {
		print_message("no fault injection in this kernel (no fail-nth, failslab or fail_page_alloc): skipped\n");
		kt_skip();
	}
}

static int group_setup(void **state)
{
	(void)state;
	kmsg("IPU-FAULT-INJECTION begin");
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	kmsg("IPU-FAULT-INJECTION end");
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The loop                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * One operation under test: @call does it once and returns 0 or -errno;
 * @undo (may be NULL) reverts a successful @call; both get @ctx.
 * @idx: the device whose memory_used must come back after a failure.
 */
struct op {
	const char *name;
	unsigned int idx;
	int (*call)(void *ctx);
	void (*undo)(void *ctx);
	void *ctx;
	/* errnos a failed attempt may give besides -ENOMEM */
	int also1, also2;
};

/*
 * Fail each allocation of @o's path in turn. Returns the number of
 * attempts that failed with an error (the -ENOMEM paths taken).
 */
static unsigned int enomem_loop(const struct op *o)
{
	unsigned int n, failed = 0, absorbed = 0;
	struct kt_dma_api dma;
	int64_t pins;
	uint64_t used;
	bool fired;
	int ret;

	for (n = 1; n < MAX_SITES; n++) {
		used = kt_sysfs_u64(o->idx, "memory_used");
		pins = kt_pinned_now();
		dma = kt_dma_api_now();
		nth_arm(n);
		ret = o->call(o->ctx);
		fired = nth_disarm();
		if (!fired) {
			/* Every allocation on the path got past: it worked. */
			if (ret)
				fail_msg("%s: %d (%s) with no failure injected",
					 o->name, ret, strerror(-ret));
			if (o->undo)
				o->undo(o->ctx);
			break;
		}
		if (ret == 0) {
			absorbed++;
			if (o->undo)
				o->undo(o->ctx);
		} else if (ret != -ENOMEM && ret != o->also1 && ret != o->also2) {
			fail_msg("%s: allocation %u failed: %d (%s), not -ENOMEM",
				 o->name, n, ret, strerror(-ret));
		} else {
			failed++;
		}
		if (kt_sysfs_u64(o->idx, "memory_used") != used)
			fail_msg("%s: allocation %u failed (%d): memory_used %llu, was %llu",
				 o->name, n, ret,
				 (unsigned long long)kt_sysfs_u64(o->idx, "memory_used"),
				 (unsigned long long)used);
		if (kt_pinned_now() != pins)
			fail_msg("%s: allocation %u failed (%d): %lld pages pinned, were %lld",
				 o->name, n, ret, (long long)kt_pinned_now(),
				 (long long)pins);
		if (!kt_dma_api_same(&dma))
			fail_msg("%s: allocation %u failed (%d): DMA API live mappings %lld, were %lld; errors %llu",
				 o->name, n, ret, (long long)kt_dma_api_now().live,
				 (long long)dma.live,
				 (unsigned long long)kt_dma_api_now().errors);
	}
	if (n == MAX_SITES)
		fail_msg("%s: still failing after %u allocations", o->name, n);
	print_message("%s: %u allocations: %u failed the call cleanly, %u were absorbed\n",
		      o->name, n - 1, failed, absorbed);
	return failed;
}

/* ------------------------------------------------------------------------ */
/* A device of the test's own, attached, with a firmware file               */
/* ------------------------------------------------------------------------ */

struct dev {
	unsigned int idx;
	int owner;	/* attached */
	int fw;		/* FW_ATTACHed */
	uint32_t exe, arena;
	uint64_t exe_size, arena_size;
	void *host;	/* XFER_PAGES pages, touched */
	size_t xfer_len;
	uint32_t handle;
	uint64_t fence;
	struct ipu_fw_work work;
	void *map;
	size_t page;
	struct io_uring ring;
	bool ring_up;
	pid_t holder;	/* hold_dma_tracking()'s child, 0 when none */
	int holder_fd;
};

static struct dev d;

/*
 * The launch's executable: for this test's firmware file, any bytes; for a
 * device that runs it, a real program (an MLP layer over a zeroed arena).
 */
static void exe_setup(void)
{
	struct ipu_launch l;
	struct kp_prog *p;

	if (!DEVICE_RUNS_LAUNCHES) {
		d.exe = kt_bo(d.owner, 4096, NULL);
		d.exe_size = 64;
		d.arena = kt_bo(d.owner, d.xfer_len, NULL);
		d.arena_size = d.xfer_len;
		return;
	}
	p = kp_mlp(1);
	kp_launch_bufs(d.owner, p->image, p->len,
		       p->exe->arena_size > d.xfer_len ? p->exe->arena_size :
							 d.xfer_len, &l);
	d.exe = l.exe_handle;
	d.exe_size = l.exe_size;
	d.arena = l.arena_handle;
	d.arena_size = l.arena_size;
	kp_free(p);
}

/*
 * The DMA API's debug code (CONFIG_DMA_API_DEBUG, the debug kernel: the
 * one kernel of the matrix with fault injection) tracks each mapping the
 * device may write (FROM_DEVICE) in a radix tree of cache lines, whose
 * nodes it allocates atomically in the mapping task: fail-nth reaches
 * them as it reaches the driver's allocations, and a failed one makes
 * dma-debug log "cacheline tracking ENOMEM" and turn itself off for the
 * rest of the boot (no more DMA API checks, stale live counts). That is
 * the checker's own bookkeeping, not a path of the driver. So, where it
 * runs, a transfer from the second PCI IPU into the same host pages is
 * left stalled on the device (ipu-emu's hang_dma) for the whole test:
 * its mapping keeps the tree's entries for those cache lines, and the
 * test's own mappings of them find their entries there (an overlap,
 * allowed with DMA_ATTR_SKIP_CPU_SYNC, which ipu.ko uses) and allocate
 * nothing. The test's transfers then fail only the driver's allocations.
 * Released by a reset of that IPU at teardown (release_dma_tracking()).
 */
static void hold_dma_tracking(void)
{
	uint32_t bo;

	if (!XFER_MAPS_FOR_DMA || !kt_dma_api_now().present)
		return;
	ke_require();
	d.holder_fd = kt_open_attached(1);
	bo = kt_bo(d.holder_fd, d.xfer_len, NULL);
	kt_fault_emu(1, "hang_dma=1");
	/* The child pins the same physical pages (d.host is shared). */
	d.holder = kt_fork_opt(true);
	if (d.holder == 0) {
		/* Not the test's files: closing them must release them. */
		close(d.owner);
		close(d.fw);
		_exit(-kt_read_bo(d.holder_fd, bo, 0, d.host, d.xfer_len));
	}
	/* Mapped, and waiting for the stalled descriptor. */
	ks_wait_wchan(d.holder, "ipu_pci_");
}

/* The stalled transfer ends with its IPU's reset (-EIO). */
static void release_dma_tracking(void)
{
	int st;

	if (!d.holder)
		return;
	assert_int_equal(kt_reset(d.holder_fd), 0);
	st = kt_wait(d.holder);
	d.holder = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != EIO)
		fail_msg("the stalled transfer ended with %s %d, not -EIO",
			 WIFEXITED(st) ? "exit" : "signal",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

/*
 * A device of the test's own (kt_own_dev(): a new simulated IPU of 4 MiB,
 * or the first PCI IPU), attached, an executable and an arena in it, the
 * host buffer of the transfers, and a second file: with @fw (simulated
 * IPUs only), this test's firmware file.
 */
static void dev_setup(bool fw)
{
	struct ipu_fw_attach fa = { 0 };

	require_fault_injection();
	memset(&d, 0, sizeof(d));
	d.page = kt_page_size();
	d.xfer_len = XFER_PAGES * d.page;
	d.idx = kt_own_dev(4);
	d.owner = kt_open_attached(d.idx);
	exe_setup();
	/* Shared: hold_dma_tracking()'s child pins the same pages. */
	d.host = kt_mmap(d.xfer_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(d.host != MAP_FAILED);
	kt_fill(d.host, d.xfer_len, 7);
	d.fw = kt_open(d.idx);
	hold_dma_tracking();
	if (fw && !DEVICE_RUNS_LAUNCHES)
		assert_int_equal(kt_ioctl(d.fw, IPU_IOCTL_FW_ATTACH, &fa), 0);
}

static int teardown(void **state)
{
	if (d.ring_up)
		io_uring_queue_exit(&d.ring);
	d.ring_up = false;
	if (nth_fd >= 0)
		nth_disarm();
	release_dma_tracking();
	return kt_teardown(state);
}

/* ---- open, ATTACH ---- */

static int call_open(void *ctx)
{
	char path[32];
	int fd;

	(void)ctx;
	kt_node(d.idx, path, sizeof(path));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d.handle = (uint32_t)fd;
	return 0;
}

static void undo_open(void *ctx)
{
	(void)ctx;
	close((int)d.handle);
}

static int call_attach(void *ctx)
{
	struct ipu_attach a = { 0 };

	(void)ctx;
	return kt_ioctl((int)d.handle, IPU_IOCTL_ATTACH, &a);
}

static void undo_attach(void *ctx)
{
	struct ipu_detach a = { 0 };

	(void)ctx;
	assert_int_equal(kt_ioctl((int)d.handle, IPU_IOCTL_DETACH, &a), 0);
}

static void test_open_and_attach_fail_cleanly(void **state)
{
	struct op open_op = { "open", 0, call_open, undo_open, NULL, 0, 0 };
	struct op attach_op = { "ATTACH", 0, call_attach, undo_attach, NULL, 0, 0 };

	(void)state;
	dev_setup(false);
	kt_close(d.owner); /* the device is free for the new file */
	open_op.idx = attach_op.idx = d.idx;
	assert_true(enomem_loop(&open_op) > 0);
	assert_int_equal(call_open(NULL), 0);
	kt_track(KT_FD)->fd = (int)d.handle;
	enomem_loop(&attach_op);
}

/* ---- BO_CREATE ---- */

static int call_bo_create(void *ctx)
{
	struct ipu_bo_create bo = { .size = *(uint64_t *)ctx };
	int ret = kt_ioctl(d.owner, IPU_IOCTL_BO_CREATE, &bo);

	d.handle = bo.handle;
	return ret;
}

static void undo_bo_create(void *ctx)
{
	(void)ctx;
	assert_int_equal(kt_bo_destroy(d.owner, d.handle), 0);
}

static void test_bo_create_fails_cleanly(void **state)
{
	uint64_t small = 4096, big = 1 << 20;
	struct op o = { "BO_CREATE 4 KiB", 0, call_bo_create, undo_bo_create,
			&small, 0, 0 };

	(void)state;
	dev_setup(false);
	o.idx = d.idx;
	assert_true(enomem_loop(&o) > 0);
	o.name = "BO_CREATE 1 MiB";
	o.ctx = &big;
	assert_true(enomem_loop(&o) > 0);
}

/* ---- XFER, ioctl and io_uring ---- */

static int call_xfer(void *ctx)
{
	uint32_t dir = *(uint32_t *)ctx;

	return kt_xfer(d.owner, d.arena, 0, d.host, d.xfer_len, dir);
}

static struct io_uring_sqe *uring_sqe(uint32_t op)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d.ring);

	assert_non_null(sqe);
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, d.owner, NULL, 0, 0);
	sqe->cmd_op = op;
	memset(sqe->cmd, 0, 80);
	return sqe;
}

/*
 * Submit the one prepared SQE and get its result. An allocation of
 * io_uring's own that fails refuses the submission (-EAGAIN, -ENOMEM):
 * then no CQE comes.
 */
static int uring_one(void)
{
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_submit(&d.ring);
	if (ret != 1) {
		/* Not submitted: take the SQE back for the next attempt. */
		if (ret >= 0)
			fail_msg("io_uring_submit: %d", ret);
		return ret;
	}
	ret = io_uring_wait_cqe(&d.ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&d.ring, cqe);
	return ret;
}

/* The mix's /proc/self/make-it-fail while it is open, else -1. */
static int mif_fd = -1;

/*
 * Pause (@on false) or resume the injection of this thread: fail-nth's
 * remaining count and the mix's make-it-fail. Reading and writing these
 * files allocates nothing.
 */
static void injection(bool on)
{
	static char nth[16];
	ssize_t k;

	if (!on) {
		k = pread(nth_fd, nth, sizeof(nth) - 1, 0);
		nth[k > 0 ? k : 0] = '\0';
		assert_int_equal(pwrite(nth_fd, "0", 1, 0), 1);
		if (mif_fd >= 0)
			assert_int_equal(write(mif_fd, "0", 1), 1);
		return;
	}
	if (mif_fd >= 0)
		assert_int_equal(write(mif_fd, "1", 1), 1);
	if (strtoul(nth, NULL, 10))
		assert_int_equal(pwrite(nth_fd, nth, strlen(nth), 0),
				 (ssize_t)strlen(nth));
}

/*
 * A refused submission may leave the SQE queued: start a new ring.
 *
 * Its setup runs with the injection paused. io_uring_setup() records the
 * ring in this task's io_uring context (io_uring/tctx.c, an xa_store keyed
 * by the ring's address); an injected failure part-way through that
 * xa_store leaves empty xarray nodes that 6.1's io_uring never frees (its
 * own comment in __io_uring_free() says so), and kmemleak reports them
 * after the run: a leak of the kernel's, not of this driver, and setting
 * up a ring is not what these tests are about.
 */
static void ring_renew(void)
{
	io_uring_queue_exit(&d.ring);
	injection(false);
	assert_int_equal(io_uring_queue_init(8, &d.ring, IORING_SETUP_SQE128), 0);
	injection(true);
}

static int call_uring_xfer(void *ctx)
{
	struct io_uring_sqe *sqe = uring_sqe(IPU_URING_CMD_XFER);
	struct ipu_xfer *x = (struct ipu_xfer *)sqe->cmd;
	int ret;

	x->user_ptr = (uint64_t)(uintptr_t)d.host;
	x->length = d.xfer_len;
	x->handle = d.arena;
	x->flags = *(uint32_t *)ctx;
	ret = uring_one();
	if (ret == -EAGAIN || ret == -ENOMEM)
		ring_renew();
	return ret;
}

static void ring_setup(void)
{
	assert_int_equal(io_uring_queue_init(8, &d.ring, IORING_SETUP_SQE128), 0);
	d.ring_up = true;
}

static void test_xfer_fails_cleanly(void **state)
{
	uint32_t to = IPU_XFER_TO_DEVICE, from = IPU_XFER_FROM_DEVICE;
	struct op o = { "XFER to the device", 0, call_xfer, NULL, &to, 0, 0 };

	(void)state;
	dev_setup(false);
	o.idx = d.idx;
	enomem_loop(&o);
	o.name = "XFER from the device";
	o.ctx = &from;
	enomem_loop(&o);
	ring_setup();
	o.name = "io_uring XFER to the device";
	o.call = call_uring_xfer;
	o.ctx = &to;
	o.also1 = -EAGAIN;
	enomem_loop(&o);
	o.name = "io_uring XFER from the device";
	o.ctx = &from;
	enomem_loop(&o);
	/* The data went there and back. */
	memset(d.host, 0, d.xfer_len);
	assert_int_equal(kt_read_bo(d.owner, d.arena, 0, d.host, d.xfer_len), 0);
	assert_pattern(d.host, d.xfer_len, 7);
}

/* ---- LAUNCH, FW_NEXT, FW_DONE, WAIT ---- */

static struct ipu_launch launch_args(void)
{
	struct ipu_launch l = {
		.exe_handle = d.exe, .arena_handle = d.arena,
		.exe_size = d.exe_size, .arena_size = d.arena_size,
		.num_replicas = 1,
	};

	return l;
}

static int call_launch(void *ctx)
{
	struct ipu_launch l = launch_args();
	int ret;

	(void)ctx;
	ret = kt_ioctl(d.owner, IPU_IOCTL_LAUNCH, &l);
	d.fence = l.fence;
	return ret;
}

/* FW_NEXT, waiting for a launch (an io_uring one may reach the queue
 * from io_uring's worker) unless @poll. */
static int fw_next_opt(bool poll)
{
	struct timespec now;

	memset(&d.work, 0, sizeof(d.work));
	if (!poll) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		d.work.timeout_ns = (int64_t)(now.tv_sec + 120) * 1000000000ll;
	}
	return kt_ioctl(d.fw, IPU_IOCTL_FW_NEXT, &d.work);
}

static int fw_next(void)
{
	return fw_next_opt(false);
}

static int fw_done(void)
{
	struct ipu_fw_done done = { .id = d.work.id, .status = 0 };

	return kt_ioctl(d.fw, IPU_IOCTL_FW_DONE, &done);
}

static int wait_fence(void)
{
	struct ipu_wait w = { .fence = d.fence, .timeout_ns = INT64_MAX };
	int ret = kt_ioctl(d.owner, IPU_IOCTL_WAIT, &w);

	if (!ret && w.status)
		fail_msg("WAIT: launch status %d", w.status);
	return ret;
}

/*
 * A launch that was accepted reaches the device: this test's firmware
 * file takes it and reports it done; a PCI IPU runs it by itself.
 */
static void firmware_runs_the_launch(void)
{
	if (DEVICE_RUNS_LAUNCHES)
		return;
	assert_int_equal(fw_next(), 0);
	assert_int_equal(fw_done(), 0);
}

/* A launch that worked: run it to its end. */
static void undo_launch(void *ctx)
{
	(void)ctx;
	firmware_runs_the_launch();
	assert_int_equal(wait_fence(), 0);
}

static int call_fw_next(void *ctx)
{
	(void)ctx;
	return fw_next();
}

static void undo_fw_next(void *ctx)
{
	(void)ctx;
	assert_int_equal(fw_done(), 0);
	assert_int_equal(wait_fence(), 0);
}

static int call_fw_done(void *ctx)
{
	(void)ctx;
	return fw_done();
}

static void undo_fw_done(void *ctx)
{
	(void)ctx;
	assert_int_equal(wait_fence(), 0);
}

static int call_wait(void *ctx)
{
	(void)ctx;
	return wait_fence();
}

/*
 * No launch is left pending for this test's firmware file (on a device
 * that runs launches, every one was waited for already).
 */
static void assert_nothing_pending(void)
{
	if (!DEVICE_RUNS_LAUNCHES)
		assert_int_equal(fw_next_opt(true), -ETIME);
}

static int call_uring_launch(void *ctx)
{
	struct io_uring_sqe *sqe = uring_sqe(IPU_URING_CMD_LAUNCH);
	struct ipu_launch l = launch_args();
	struct io_uring_cqe *cqe;
	int ret;

	(void)ctx;
	memcpy(sqe->cmd, &l, sizeof(l));
	ret = io_uring_submit(&d.ring);
	if (ret != 1) {
		ring_renew();
		return ret < 0 ? ret : -EIO;
	}
	/* Accepted: the device runs it (and its CQE tells how it went), */
	if (DEVICE_RUNS_LAUNCHES) {
		assert_int_equal(io_uring_wait_cqe(&d.ring, &cqe), 0);
		ret = cqe->res;
		io_uring_cqe_seen(&d.ring, cqe);
		return ret;
	}
	/* or it completes when the firmware is done, or failed already. */
	if (io_uring_peek_cqe(&d.ring, &cqe) == 0) {
		ret = cqe->res;
		io_uring_cqe_seen(&d.ring, cqe);
		if (ret == 0)
			fail_msg("io_uring LAUNCH completed before the firmware took it");
		return ret;
	}
	return 0;
}

static void undo_uring_launch(void *ctx)
{
	struct io_uring_cqe *cqe;

	(void)ctx;
	if (DEVICE_RUNS_LAUNCHES)
		return; /* completed in call_uring_launch() */
	firmware_runs_the_launch();
	assert_int_equal(io_uring_wait_cqe(&d.ring, &cqe), 0);
	assert_int_equal(cqe->res, 0);
	io_uring_cqe_seen(&d.ring, cqe);
}

static void test_launch_and_its_completion_fail_cleanly(void **state)
{
	struct op o = { "LAUNCH", 0, call_launch, undo_launch, NULL, 0, 0 };
	struct ipu_wait w = { 0 };

	(void)state;
	dev_setup(true);
	o.idx = d.idx;
	assert_true(enomem_loop(&o) > 0);

	/* The firmware's side, with a launch pending. */
	if (!DEVICE_RUNS_LAUNCHES) {
		assert_int_equal(call_launch(NULL), 0);
		o = (struct op){ "FW_NEXT", d.idx, call_fw_next, undo_fw_next,
				 NULL, 0, 0 };
		/* An FW_NEXT that failed left the launch pending: the
		 * loop's next attempt takes it. */
		enomem_loop(&o);

		assert_int_equal(call_launch(NULL), 0);
		assert_int_equal(fw_next(), 0);
		o = (struct op){ "FW_DONE", d.idx, call_fw_done, undo_fw_done,
				 NULL, 0, 0 };
		enomem_loop(&o);
	}

	assert_int_equal(call_launch(NULL), 0);
	firmware_runs_the_launch();
	o = (struct op){ "WAIT", d.idx, call_wait, NULL, NULL, 0, 0 };
	enomem_loop(&o);
	/* Consumed once, by the WAIT that worked. */
	w.fence = d.fence;
	assert_int_equal(kt_ioctl(d.owner, IPU_IOCTL_WAIT, &w), -ENOENT);

	ring_setup();
	o = (struct op){ "io_uring LAUNCH", d.idx, call_uring_launch,
			 undo_uring_launch, NULL, -EAGAIN, 0 };
	/*
	 * The driver allocates with GFP_NOWAIT on the non-blocking issue; a
	 * failure there is -EAGAIN, and io_uring re-issues the command from
	 * its io-wq worker, a task that fail-nth (per task) does not reach.
	 * So an injected failure is absorbed (the launch works) or fails
	 * cleanly: both are right; neither may leak.
	 */
	enomem_loop(&o);
	assert_nothing_pending();
}

/* ---- mmap and its first fault ---- */

static int call_mmap(void *ctx)
{
	struct ipu_bo_info info;
	volatile uint8_t *p;
	int ret;

	(void)ctx;
	ret = kt_bo_info(d.owner, d.arena, &info);
	if (ret)
		return ret;
	d.map = mmap(NULL, d.page, PROT_READ | PROT_WRITE, MAP_SHARED, d.owner,
		     (off_t)info.mmap_offset);
	if (d.map == MAP_FAILED)
		return -errno;
	/* The first touch: a fault that inserts the page frame. A failed
	 * allocation there is retried by the kernel. */
	p = d.map;
	p[0] = p[1];
	return 0;
}

static void undo_mmap(void *ctx)
{
	(void)ctx;
	assert_int_equal(munmap(d.map, d.page), 0);
}

static void test_mmap_fails_cleanly(void **state)
{
	struct op o = { "mmap", 0, call_mmap, undo_mmap, NULL, 0, 0 };

	(void)state;
	dev_setup(false);
	o.idx = d.idx;
	assert_true(enomem_loop(&o) > 0);
}

/* ---- new_device ---- */

static int call_new_device(void *ctx)
{
	int fd, ret = 0;

	(void)ctx;
	fd = open(KT_SIM_CTL "/new_device", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "1", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

static void test_new_device_fails_cleanly(void **state)
{
	struct op o = { "new_device", 0, call_new_device, NULL, NULL, 0, 0 };
	uint64_t before, after, added;
	unsigned int n, failed = 0;
	bool fired;
	int ret;

	(void)state;
	require_fault_injection();
	kt_require_sim_ctl();
	o.idx = 0;
	/* Like enomem_loop, with the set of devices as what must not change. */
	for (n = 1; n < MAX_SITES; n++) {
		before = kt_present();
		nth_arm(n);
		ret = o.call(o.ctx);
		fired = nth_disarm();
		after = kt_present();
		added = after & ~before;
		if (ret == 0) {
			if (!added || (added & (added - 1)))
				fail_msg("new_device worked, yet not one new device");
			kt_track(KT_SIMDEV)->idx = (unsigned int)__builtin_ctzll(added);
			assert_int_equal(kt_sim_del((unsigned int)__builtin_ctzll(added)), 0);
			if (!fired)
				break;
			continue;
		}
		if (!fired)
			fail_msg("new_device: %d with no failure injected", ret);
		if (ret != -ENOMEM)
			fail_msg("new_device: allocation %u failed: %d, not -ENOMEM", n, ret);
		if (after != before)
			fail_msg("new_device failed, yet the devices changed (%#llx -> %#llx)",
				 (unsigned long long)before, (unsigned long long)after);
		failed++;
	}
	print_message("new_device: %u allocations, %u failed the call cleanly\n",
		      n - 1, failed);
	assert_true(failed > 0);
}

/* ---- a mix under failslab and fail_page_alloc at a probability ---- */

static int fault_fd(const char *attr, const char *file)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), FAULT_DIR "/%s/%s", attr, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	kt_track(KT_PIPE)->fd = fd;
	return fd;
}

static void put(int fd, const char *val)
{
	/* debugfs attributes are opened non-seekable: pwrite() is -ESPIPE. */
	assert_int_equal(write(fd, val, strlen(val)), (ssize_t)strlen(val));
}

static void test_a_mix_under_random_allocation_failures_leaves_nothing(void **state)
{
	int prob[2], i, ret, failed = 0, worked = 0;
	uint64_t used, big = 65536;

	(void)state;
	dev_setup(true);
	ring_setup();
	used = kt_sysfs_u64(d.idx, "memory_used");
	prob[0] = fault_fd("failslab", "probability");
	prob[1] = fault_fd("fail_page_alloc", "probability");
	mif_fd = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	assert_true(mif_fd >= 0);
	kt_track(KT_PIPE)->fd = mif_fd;

	put(prob[0], "10");
	put(prob[1], "10");
	put(mif_fd, "1");
	for (i = 0; i < 200; i++) {
		uint32_t dir = i & 1 ? IPU_XFER_FROM_DEVICE : IPU_XFER_TO_DEVICE;
		int r[4];
		int k;

		r[0] = call_bo_create(&big);
		if (!r[0])
			r[0] = kt_bo_destroy(d.owner, d.handle);
		r[1] = call_xfer(&dir);
		r[2] = call_uring_xfer(&dir);
		r[3] = call_launch(NULL);
		if (!r[3]) {
			/* Its completion, with failures too: retried until
			 * each step went through. */
			ret = 0;
			while (!DEVICE_RUNS_LAUNCHES && (ret = fw_next()) == -ENOMEM)
				;
			r[3] = ret;
			while (!DEVICE_RUNS_LAUNCHES && !ret &&
			       (ret = fw_done()) == -ENOMEM)
				;
			while (!ret && (ret = wait_fence()) == -ENOMEM)
				;
			if (ret)
				r[3] = ret;
		}
		for (k = 0; k < 4; k++) {
			if (r[k] == 0) {
				worked++;
			} else if (r[k] == -ENOMEM || r[k] == -EAGAIN) {
				failed++;
			} else {
				put(mif_fd, "0");
				fail_msg("round %d, op %d: %d (%s)", i, k, r[k],
					 strerror(-r[k]));
			}
		}
	}
	put(mif_fd, "0");
	put(prob[0], "0");
	put(prob[1], "0");
	print_message("%d calls worked, %d failed cleanly\n", worked, failed);
	assert_true(failed > 0);
	assert_true(worked > 0);
	assert_int_equal(kt_sysfs_u64(d.idx, "memory_used"), used);
	/* Nothing half-launched. */
	assert_nothing_pending();
}

static int teardown_mix(void **state)
{
	int fd;

	mif_fd = -1; /* kt_teardown() closes it */
	/* Whatever happened, the probabilities go back to 0. */
	fd = open(FAULT_DIR "/failslab/probability", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "0", 1) != 1)
			print_message("failslab/probability: %s\n", strerror(errno));
		close(fd);
	}
	fd = open(FAULT_DIR "/fail_page_alloc/probability", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "0", 1) != 1)
			print_message("fail_page_alloc/probability: %s\n", strerror(errno));
		close(fd);
	}
	return teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_open_and_attach_fail_cleanly, teardown),
		cmocka_unit_test_teardown(test_bo_create_fails_cleanly, teardown),
		cmocka_unit_test_teardown(test_xfer_fails_cleanly, teardown),
		cmocka_unit_test_teardown(test_launch_and_its_completion_fail_cleanly, teardown),
		cmocka_unit_test_teardown(test_mmap_fails_cleanly, teardown),
		cmocka_unit_test_teardown(test_new_device_fails_cleanly, teardown),
		cmocka_unit_test_teardown(test_a_mix_under_random_allocation_failures_leaves_nothing,
					  teardown_mix),
	};

	return kt_exit_code(cmocka_run_group_tests(tests, group_setup, group_teardown),
			    KT_ARRAY_SIZE(tests));
}
