// SPDX-License-Identifier: GPL-2.0
/*
 * bench_uring.c - transfer bandwidth of ipu.ko in the guest, and the
 * system calls of a session run (make kernel-bench; never part of a test).
 *
 * For each size from 4 KiB to 64 MiB (powers of 4), host to device and
 * back, on a simulated IPU of BENCH_DEV_MB added for the purpose:
 *
 *	uring        libipu's queue: IPU_URING_CMD_XFER, batches of up to
 *	             BATCH commands, one io_uring_enter() each, then reaped
 *	uring_fixed  the same with the host buffer registered with the queue
 *	             (IORING_URING_CMD_FIXED: no pinning per transfer)
 *	ioctl        IPU_IOCTL_XFER, one system call per transfer
 *	mmap         memcpy() through the buffer object's mapping
 *	             (ipu_bo_map(): on a PCIe IPU, BAR2, write-combined)
 *	memcpy       the guest copying the same bytes between two buffers
 *
 * each measured in the same run, best of ROUNDS, the rounds of the paths
 * interleaved (one round of each path, then the next) so that a stall of
 * the guest (TCG, a busy host) costs one round of one path, never all the
 * rounds of the path measured first after a change of size or direction,
 * as
 *
 *	bench <path>_<h2d|d2h>_<size>.mbps <x> MB/s
 *	bench <path>_<h2d|d2h>_<size>.ratio_vs_memcpy <x> x
 *
 * then io_uring_enter() calls per ipu_session_run_with_outputs() of a
 * program with 1 and 16 streams each way (libipu's counters):
 *
 *	bench session_run_<n>_streams.io_uring_enter <x> calls
 *
 * The transfer table again on the first PCIe IPU (ipu-emu's, through its
 * DMA queues), each name prefixed pci_, when the guest has one.
 *
 * Then the launch round trip, LAUNCH then WAIT one at a time, of an image
 * the firmware refuses at once (-ENOEXEC: the path, not a program), on a
 * simulated IPU (ipu-simd) and on the PCI IPU (its command queue), best
 * of ROUNDS, against io_uring's own round trip (a NOP submitted and
 * waited for in one io_uring_enter()), the floor of any command through
 * a ring; then, traced, where a launch's time goes (launch_breakdown()):
 *
 *	bench uring_nop.per_s <x> round trips/s
 *	bench <sim|pci>_launch.per_s <x> launches/s
 *	bench <sim|pci>_launch.ratio_vs_nop <x> x
 *	bench <sim|pci>_launch.trace_<interval>_us <x> us
 *
 * TCG makes every number slow in absolute terms; the ratios are the point.
 * No timing is asserted.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include <ipu/ipu.h>
#include <ipu/ir.h>
#include <ipu/session.h>
#include <linux/ipu.h>

#include "../../userspace/ipu/internal.h"

#define BENCH_DEV_MB	"160"
#define MIN_SIZE	(4ull << 10)
#define MAX_SIZE	(64ull << 20)
#define BATCH		32
#define ROUND_BYTES	(32ull << 20) /* bytes moved per timed round, at least */
#define ROUNDS		3
#define SESSION_RUNS	20
#define SIM_CTL		"/sys/devices/ipu_sim"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void size_name(uint64_t size, char *buf, size_t len)
{
	if (size >= 1 << 20)
		snprintf(buf, len, "%lluMiB", (unsigned long long)(size >> 20));
	else
		snprintf(buf, len, "%lluKiB", (unsigned long long)(size >> 10));
}

static uint64_t iters_for(uint64_t size)
{
	uint64_t n = ROUND_BYTES / size;

	return n < 2 ? 2 : n;
}

/* A bitmap of the /dev/ipuN present (N < 64). */
static uint64_t present(void)
{
	char path[32];
	uint64_t set = 0;
	unsigned int n;

	for (n = 0; n < 64; n++) {
		snprintf(path, sizeof(path), "/dev/ipu%u", n);
		if (!access(path, F_OK))
			set |= 1ull << n;
	}
	return set;
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = -EIO;
	close(fd);
	return err;
}

/* ---------------------------------------------------------------------- */
/* The three transfer paths                                                */
/* ---------------------------------------------------------------------- */

/* Seconds for @iters transfers of @size through @q, in batches. */
static double time_queue(struct ipu_queue *q, struct ipu_bo *bo, void *host,
			 uint64_t size, uint32_t dir, uint64_t iters)
{
	struct ipu_completion cqes[BATCH];
	struct ipu_cmd cmds[BATCH];
	struct ipu_xfer_desc x = {
		.bo = bo, .host = host, .length = size, .dir = dir,
	};
	uint64_t done = 0, n, i;
	double t = now();
	int got, k;

	for (i = 0; i < BATCH; i++)
		ipu_cmd_prep_xfer(&cmds[i], &x, i);
	while (done < iters) {
		n = iters - done < BATCH ? iters - done : BATCH;
		if (ipu_queue_submit(q, cmds, n))
			return -1;
		for (i = 0; i < n; i += (uint64_t)got) {
			got = ipu_queue_reap(q, cqes, n - i, n - i, -1);
			if (got <= 0)
				return -1;
			for (k = 0; k < got; k++)
				if (cqes[k].result)
					return -1;
		}
		done += n;
	}
	return now() - t;
}

static double time_ioctl(int fd, uint32_t handle, void *host, uint64_t size,
			 uint32_t flags, uint64_t iters)
{
	struct ipu_xfer x;
	double t = now();
	uint64_t i;

	for (i = 0; i < iters; i++) {
		memset(&x, 0, sizeof(x));
		x.user_ptr = (uint64_t)(uintptr_t)host;
		x.length = size;
		x.handle = handle;
		x.flags = flags;
		if (ioctl(fd, IPU_IOCTL_XFER, &x))
			return -1;
	}
	return now() - t;
}

static double time_memcpy(void *dst, const void *src, uint64_t size,
			  uint64_t iters)
{
	double t = now();
	uint64_t i;

	for (i = 0; i < iters; i++) {
		memcpy(dst, src, size);
		/* Keep the copy: the compiler may not drop it. */
		__asm__ volatile("" : : "r"(dst) : "memory");
	}
	return now() - t;
}

/**
 * struct rig - the device and buffers of the transfer benchmarks.
 * @dev, @bo, @q: libipu's view of the bench device.
 * @fq: a second queue, with @host registered.
 * @fd, @handle: a raw file of the same device for the ioctl (attached
 *	while the ioctl runs, as attaching is exclusive).
 * @host, @other: MAX_SIZE bytes each.
 * @map: @bo's mapping (ipu_bo_map()).
 * @prefix: of the printed names: "" (simulated IPU) or "pci_".
 */
struct rig {
	const char *prefix;
	unsigned int idx;
	struct ipu_device *dev;
	struct ipu_bo *bo;
	void *map;
	struct ipu_queue *q, *fq;
	void *host, *other;
};

enum path { P_URING, P_FIXED, P_IOCTL, P_MMAP, P_MEMCPY, P_COUNT };
static const char *const path_name[P_COUNT] = {
	"uring", "uring_fixed", "ioctl", "mmap", "memcpy",
};

/*
 * Seconds of @iters transfers of one path, direction and size; < 0:
 * failed.
 */
static double one_round(struct rig *r, enum path p, uint32_t dir,
			uint64_t size, uint64_t iters)
{
	double s;
	int fd = -1;
	struct ipu_bo_create bc;
	struct ipu_attach at;
	char path[32];

	if (p == P_IOCTL) {
		/* The libipu handle lets go of the device meanwhile. */
		if (ipu_device_detach(r->dev))
			return -1;
		snprintf(path, sizeof(path), "/dev/ipu%u", r->idx);
		fd = open(path, O_RDWR | O_CLOEXEC);
		memset(&at, 0, sizeof(at));
		memset(&bc, 0, sizeof(bc));
		bc.size = size;
		if (fd < 0 || ioctl(fd, IPU_IOCTL_ATTACH, &at) ||
		    ioctl(fd, IPU_IOCTL_BO_CREATE, &bc)) {
			if (fd >= 0)
				close(fd);
			ipu_device_attach(r->dev);
			return -1;
		}
	}
	switch (p) {
	case P_URING:
		s = time_queue(r->q, r->bo, r->host, size, dir, iters);
		break;
	case P_FIXED:
		s = time_queue(r->fq, r->bo, r->host, size, dir, iters);
		break;
	case P_IOCTL:
		s = time_ioctl(fd, bc.handle, r->host, size,
			       dir == IPU_XFER_DIR_TO_DEVICE ?
				       IPU_XFER_TO_DEVICE :
				       IPU_XFER_FROM_DEVICE, iters);
		break;
	case P_MMAP:
		s = dir == IPU_XFER_DIR_TO_DEVICE ?
			    time_memcpy(r->map, r->host, size, iters) :
			    time_memcpy(r->host, r->map, size, iters);
		break;
	default:
		s = dir == IPU_XFER_DIR_TO_DEVICE ?
			    time_memcpy(r->other, r->host, size, iters) :
			    time_memcpy(r->host, r->other, size, iters);
		break;
	}
	if (p == P_IOCTL) {
		close(fd);
		if (ipu_device_attach(r->dev))
			return -1;
	}
	return s;
}

static int bench_xfers(struct rig *r)
{
	static const uint32_t dirs[2] = { IPU_XFER_DIR_TO_DEVICE,
					  IPU_XFER_DIR_FROM_DEVICE };
	double secs[P_COUNT], mbps[P_COUNT], s;
	char sz[16];
	uint64_t size;
	int d, p, round;

	for (d = 0; d < 2; d++) {
		for (size = MIN_SIZE; size <= MAX_SIZE; size *= 4) {
			size_name(size, sz, sizeof(sz));
			for (p = 0; p < P_COUNT; p++)
				secs[p] = -1;
			for (round = 0; round < ROUNDS; round++) {
				for (p = 0; p < P_COUNT; p++) {
					s = one_round(r, (enum path)p, dirs[d],
						      size, iters_for(size));
					if (s > 0 && (secs[p] < 0 || s < secs[p]))
						secs[p] = s;
				}
			}
			for (p = 0; p < P_COUNT; p++) {
				if (secs[p] <= 0) {
					fprintf(stderr, "bench_uring: %s %s: %s\n",
						path_name[p], sz, ipu_errmsg());
					return 1;
				}
				mbps[p] = (double)(size * iters_for(size)) /
					  secs[p] / 1e6;
			}
			for (p = 0; p < P_COUNT; p++)
				printf("bench %s%s_%s_%s.mbps %.1f MB/s\n",
				       r->prefix, path_name[p],
				       d ? "d2h" : "h2d", sz, mbps[p]);
			for (p = 0; p < P_MEMCPY; p++)
				printf("bench %s%s_%s_%s.ratio_vs_memcpy %.3f x\n",
				       r->prefix, path_name[p],
				       d ? "d2h" : "h2d", sz,
				       mbps[p] / mbps[P_MEMCPY]);
			fflush(stdout);
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Where a small transfer's time goes (trace events)                       */
/* ---------------------------------------------------------------------- */

#define TR_ROOT		"/sys/kernel/tracing"
#define TR_INST		TR_ROOT "/instances/bench_uring"

static const char *const tr_events[] = {
	"ipu_xfer_submit", "ipu_xfer_start", "ipu_xfer_complete", "ipu_irq",
};

/* What the events of one traced run say, in seconds (CLOCK_MONOTONIC). */
struct tr_sum {
	double sum[3], last_complete;
	unsigned int n[3], irqs;
};

/*
 * One line of the instance's buffer: the index in @ev (@n events) of its
 * event when it is one of them on /dev/ipu@idx, its time in @t and what
 * follows the event's name in @rest; else -1.
 */
static int tr_line(char *line, const char *const *ev, unsigned int n,
		   unsigned int idx, double *t, const char **rest)
{
	char tag[48], *p = NULL, *b;
	unsigned int e, minor;

	if (line[0] == '#')
		return -1;
	for (e = 0; e < n; e++) {
		snprintf(tag, sizeof(tag), " %s: ipu", ev[e]);
		p = strstr(line, tag);
		if (p)
			break;
	}
	if (e == n || sscanf(p + strlen(tag), "%u", &minor) != 1 ||
	    minor != idx)
		return -1;
	*rest = p + strlen(tag);
	/* "... 123.456789: ipu_xfer_start: ipu1 ...": the stamp before. */
	*p = '\0';
	b = strrchr(line, ' ');
	if (!b || sscanf(b + 1, "%lf", t) != 1)
		return -1;
	return (int)e;
}

/*
 * @fn(@ctx, index in @ev, time, what follows the name) for each event of
 * @ev (@n of them) on /dev/ipu@idx in the instance's buffer, in order.
 */
static int tr_walk(const char *const *ev, unsigned int n, unsigned int idx,
		   void (*fn)(void *ctx, int e, double t, const char *rest),
		   void *ctx)
{
	FILE *f = fopen(TR_INST "/trace", "re");
	const char *rest;
	char line[512];
	double t;
	int e;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		e = tr_line(line, ev, n, idx, &t, &rest);
		if (e >= 0)
			fn(ctx, e, t, rest);
	}
	fclose(f);
	return 0;
}

static void tr_add(void *ctx, int e, double t, const char *rest)
{
	struct tr_sum *ts = ctx;

	(void)rest;
	if (e == 3) {
		ts->irqs++;
		return;
	}
	ts->sum[e] += t;
	ts->n[e]++;
	if (e == 2 && t > ts->last_complete)
		ts->last_complete = t;
}

/* The events of /dev/ipu@idx in the instance's buffer, summed up. */
static int tr_read(unsigned int idx, struct tr_sum *ts)
{
	memset(ts, 0, sizeof(*ts));
	return tr_walk(tr_events, 4, idx, tr_add, ts);
}

/*
 * The instance's events @ev (@n of them) on or off; its clock
 * CLOCK_MONOTONIC's.
 */
static int tr_switch_events(const char *const *ev, unsigned int n, bool on)
{
	char path[128];
	unsigned int e;

	if (on && (mkdir(TR_INST, 0700) && errno != EEXIST))
		return -1;
	if (on && write_file(TR_INST "/trace_clock", "mono"))
		return -1;
	for (e = 0; e < n; e++) {
		snprintf(path, sizeof(path), TR_INST "/events/ipu/%s/enable",
			 ev[e]);
		if (write_file(path, on ? "1" : "0") && on)
			return -1;
	}
	return 0;
}

static int tr_switch(bool on)
{
	return tr_switch_events(tr_events, 4, on);
}

/* Empty the instance's buffer. */
static int tr_clear(void)
{
	int fd = open(TR_INST "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Mount tracefs if it is not; true when this mounted it. */
static bool tr_mount(void)
{
	return access(TR_ROOT "/instances", F_OK) &&
	       !mount("tracefs", TR_ROOT, "tracefs", 0, NULL);
}

/*
 * One batch of @n transfers of 4 KiB host to device on path @p, traced:
 * per transfer, the wall time, the time from the command's checks
 * (ipu_xfer_submit) to the data starting to move (ipu_xfer_start: on
 * io_uring, a worker of ipu_xfer_wq took it), from there to its end
 * (ipu_xfer_complete: the DMA queue's doorbell, the device, the interrupt,
 * and the wait for the transfers before it on the queue), from the last
 * end to the caller having every result (task work, the CQEs), and the
 * interrupts it took.
 */
static int tr_one(struct rig *r, enum path p, uint64_t n)
{
	struct tr_sum ts;
	double t1, s;

	if (tr_clear())
		return -1;
	s = one_round(r, p, IPU_XFER_DIR_TO_DEVICE, MIN_SIZE, n);
	t1 = now();
	if (s <= 0 || tr_read(r->idx, &ts) || !ts.n[0] ||
	    ts.n[0] != ts.n[1] || ts.n[1] != ts.n[2])
		return -1;
	printf("bench %s%s_h2d_4KiB.trace_per_xfer_us %.1f us\n", r->prefix,
	       path_name[p], s / (double)n * 1e6);
	printf("bench %s%s_h2d_4KiB.trace_submit_to_start_us %.1f us\n",
	       r->prefix, path_name[p], (ts.sum[1] - ts.sum[0]) / ts.n[0] * 1e6);
	printf("bench %s%s_h2d_4KiB.trace_start_to_complete_us %.1f us\n",
	       r->prefix, path_name[p], (ts.sum[2] - ts.sum[1]) / ts.n[0] * 1e6);
	printf("bench %s%s_h2d_4KiB.trace_last_complete_to_return_us %.1f us\n",
	       r->prefix, path_name[p], (t1 - ts.last_complete) * 1e6);
	printf("bench %s%s_h2d_4KiB.trace_irqs_per_xfer %.2f\n", r->prefix,
	       path_name[p], (double)ts.irqs / (double)ts.n[0]);
	fflush(stdout);
	return 0;
}

/*
 * Where the time of a 4 KiB transfer goes, io_uring (a batch of BATCH)
 * against the ioctl (BATCH one after another), through the driver's trace
 * events in an instance of our own. Without tracefs, or when it fails, the
 * figures are missing (a line on stderr says why): the table stands.
 */
static void trace_breakdown(struct rig *r)
{
	static const enum path paths[] = { P_URING, P_FIXED, P_IOCTL };
	bool mounted = false;
	unsigned int i;
	int ret = 0;

	mounted = tr_mount();
	if (tr_switch(true)) {
		fprintf(stderr, "bench_uring: no trace events: breakdown skipped\n");
		goto out;
	}
	/* A first batch of each warms up the workers and the pages. */
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && !ret; i++)
		if (one_round(r, paths[i], IPU_XFER_DIR_TO_DEVICE, MIN_SIZE,
			      BATCH) <= 0 || tr_one(r, paths[i], BATCH))
			ret = -1;
	if (ret)
		fprintf(stderr, "bench_uring: trace breakdown failed: %s\n",
			ipu_errmsg());
	tr_switch(false);
out:
	rmdir(TR_INST);
	if (mounted)
		umount(TR_ROOT);
}

/* ---------------------------------------------------------------------- */
/* System calls of a session run                                           */
/* ---------------------------------------------------------------------- */

/* @n streams in and out, 16 floats each: out_i = in_i + 1. */
static struct ipu_ir *streams_ir(unsigned int n)
{
	const uint64_t shape[1] = { 16 };
	struct ipu_ir *ir = NULL;
	char name[16];
	ipu_stream in, out;
	ipu_tensor t;
	unsigned int i;

	if (ipu_ir_create("bench", &ir))
		return NULL;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "in%u", i);
		in = ipu_ir_h2d_stream(ir, name, IPU_DTYPE_FLOAT32, 1, shape);
		snprintf(name, sizeof(name), "out%u", i);
		out = ipu_ir_d2h_stream(ir, name, IPU_DTYPE_FLOAT32, 1, shape);
		t = ipu_ir_add(ir, ipu_ir_host_load(ir, in, NULL),
			       ipu_ir_scalar(ir, IPU_DTYPE_FLOAT32, 1));
		ipu_ir_host_store(ir, out, t);
	}
	return ir;
}

static int bench_session(unsigned int n)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_hw");
	static float data[2][16][16];
	struct ipu_stream_buffer ins[16], outs[16];
	static char names[2][16][16];
	struct ipu_queue_stats a, b;
	struct ipu_session *s = NULL;
	unsigned int i;
	int k, err;

	err = ipu_session_create(streams_ir(n), &opts, &s);
	if (!err)
		err = ipu_session_attach(s);
	for (i = 0; i < n; i++) {
		snprintf(names[0][i], sizeof(names[0][i]), "in%u", i);
		snprintf(names[1][i], sizeof(names[1][i]), "out%u", i);
		ins[i] = (struct ipu_stream_buffer){
			.stream = names[0][i],
			.buf = { data[0][i], IPU_DTYPE_FLOAT32, 1, { 16 } },
		};
		outs[i] = (struct ipu_stream_buffer){
			.stream = names[1][i],
			.buf = { data[1][i], IPU_DTYPE_FLOAT32, 1, { 16 } },
		};
	}
	/* One run first: what is set up once is not what is measured. */
	if (!err)
		err = ipu_session_run_with_outputs(s, ins, n, outs, n, 0);
	__ipu_queue_stats(NULL, &a);
	for (k = 0; !err && k < SESSION_RUNS; k++)
		err = ipu_session_run_with_outputs(s, ins, n, outs, n, 0);
	__ipu_queue_stats(NULL, &b);
	if (err) {
		fprintf(stderr, "bench_uring: session of %u streams: %s\n", n,
			ipu_session_errmsg(s));
		ipu_session_destroy(s);
		return 1;
	}
	printf("bench session_run_%u_streams.io_uring_enter %.2f calls\n", n,
	       (double)(b.enters - a.enters) / SESSION_RUNS);
	ipu_session_detach(s, 0);
	ipu_session_destroy(s);
	return 0;
}

/* The transfer table on /dev/ipu@idx, its names prefixed @prefix. */
static int bench_device(unsigned int idx, const char *prefix)
{
	IPU_OPTS(ipu_open_opts, oo, .flags = IPU_OPEN_ATTACH);
	IPU_OPTS(ipu_queue_opts, qo, .entries = BATCH);
	struct iovec iov;
	char name[32];
	struct rig r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.prefix = prefix;
	r.idx = idx;
	snprintf(name, sizeof(name), "hw:%u", r.idx);
	r.host = mmap(NULL, MAX_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	r.other = mmap(NULL, MAX_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	iov = (struct iovec){ r.host, MAX_SIZE };
	ret = r.host == MAP_FAILED || r.other == MAP_FAILED ||
	      ipu_device_open(name, &oo, &r.dev) ||
	      ipu_bo_create(r.dev, MAX_SIZE, 0, &r.bo) ||
	      ipu_bo_map(r.bo, &r.map) ||
	      ipu_queue_create(r.dev, &qo, &r.q) ||
	      ipu_queue_create(r.dev, &qo, &r.fq) ||
	      ipu_queue_register_buffers(r.fq, &iov, 1);
	if (ret)
		fprintf(stderr, "bench_uring: setting up %s: %s\n", name,
			ipu_errmsg());
	else
		ret = bench_xfers(&r);
	if (!ret)
		trace_breakdown(&r);
	ipu_queue_destroy(r.fq);
	ipu_queue_destroy(r.q);
	ipu_device_close(r.dev);
	if (r.host != MAP_FAILED)
		munmap(r.host, MAX_SIZE);
	if (r.other != MAP_FAILED)
		munmap(r.other, MAX_SIZE);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Launch round trips                                                      */
/* ---------------------------------------------------------------------- */

#define LAUNCHES	200
#define NOPS		2000

/* A file of /dev/ipu@idx attached, with a 4 KiB buffer of junk. */
struct lrig {
	int fd;
	uint32_t handle;
};

static int lrig_open(unsigned int idx, struct lrig *lr)
{
	static const uint8_t junk[4096];
	struct ipu_bo_create bc = { .size = sizeof(junk) };
	struct ipu_attach at = { 0 };
	struct ipu_xfer x;
	char path[32];

	snprintf(path, sizeof(path), "/dev/ipu%u", idx);
	lr->fd = open(path, O_RDWR | O_CLOEXEC);
	if (lr->fd < 0)
		return -1;
	memset(&x, 0, sizeof(x));
	if (ioctl(lr->fd, IPU_IOCTL_ATTACH, &at) ||
	    ioctl(lr->fd, IPU_IOCTL_BO_CREATE, &bc))
		goto err;
	x.user_ptr = (uint64_t)(uintptr_t)junk;
	x.length = sizeof(junk);
	x.handle = bc.handle;
	x.flags = IPU_XFER_TO_DEVICE;
	if (ioctl(lr->fd, IPU_IOCTL_XFER, &x))
		goto err;
	lr->handle = bc.handle;
	return 0;
err:
	close(lr->fd);
	return -1;
}

/*
 * @n launches of the refused image, LAUNCH then WAIT each; with @t_call
 * and @t_ret, the time before each LAUNCH and after its WAIT returned.
 * Seconds in all, or -1.
 */
static double launch_loop(struct lrig *lr, unsigned int n, double *t_call,
			  double *t_ret)
{
	struct ipu_launch l;
	struct ipu_wait w;
	double t = now();
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(&l, 0, sizeof(l));
		l.exe_handle = lr->handle;
		l.exe_size = 4096;
		l.arena_handle = lr->handle;
		l.arena_size = 4096;
		l.num_replicas = 1;
		if (t_call)
			t_call[i] = now();
		if (ioctl(lr->fd, IPU_IOCTL_LAUNCH, &l))
			return -1;
		memset(&w, 0, sizeof(w));
		w.fence = l.fence;
		w.timeout_ns = INT64_MAX;
		if (ioctl(lr->fd, IPU_IOCTL_WAIT, &w) || w.status != -ENOEXEC)
			return -1;
		if (t_ret)
			t_ret[i] = now();
	}
	return now() - t;
}

/*
 * LAUNCHES launches of a refused image on /dev/ipu@idx, each waited for,
 * best of ROUNDS (a stall of the guest costs one round, not the figure):
 * launches per second. -1 when the device could not be used.
 */
static double launch_rate(unsigned int idx)
{
	double s, best = -1;
	struct lrig lr;
	unsigned int r;

	if (lrig_open(idx, &lr))
		return -1;
	for (r = 0; r < ROUNDS; r++) {
		s = launch_loop(&lr, LAUNCHES, NULL, NULL);
		if (s <= 0) {
			best = -1;
			break;
		}
		if (best < 0 || s < best)
			best = s;
	}
	close(lr.fd);
	return best > 0 ? LAUNCHES / best : -1;
}

/*
 * io_uring's own round trip, the floor of any command through a ring: a
 * NOP submitted and waited for in one io_uring_enter(), NOPS times, per
 * second; -1 without io_uring.
 */
static double nop_rate(void)
{
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	double t, rate = -1;
	unsigned int i;

	if (io_uring_queue_init(8, &ring, 0))
		return -1;
	t = now();
	for (i = 0; i < NOPS; i++) {
		io_uring_prep_nop(io_uring_get_sqe(&ring));
		if (io_uring_submit_and_wait(&ring, 1) != 1 ||
		    io_uring_peek_cqe(&ring, &cqe) || cqe->res)
			goto out;
		io_uring_cqe_seen(&ring, cqe);
	}
	rate = NOPS / (now() - t);
out:
	io_uring_queue_exit(&ring);
	return rate;
}

static const char *const tl_events[] = {
	"ipu_launch_submit", "ipu_launch_start", "ipu_irq",
	"ipu_launch_complete", "ipu_launch_fail",
};
enum { TL_SUBMIT, TL_START, TL_IRQ, TL_COMPLETE, TL_FAIL, TL_N };

/*
 * Where a launch round trip's time goes: per launch, averages in
 * microseconds of the intervals between the caller's LAUNCH, the core's
 * ipu_launch_submit, ipu_launch_start (on a PCI IPU: the doorbell
 * written), the command vector's interrupt (the device fetched, ran and
 * completed the descriptor, and the message reached the guest), the
 * result (ipu_launch_fail: the threaded handler reaped it) and the
 * caller back from WAIT; the interrupts per launch by vector. A
 * simulated IPU has no interrupt: start to result is ipu-simd's; so is a
 * PCI launch whose interrupt came before ipu_launch_start (QEMU's
 * vfio-user client waits for each BAR write's reply, during which the
 * device may finish the launch).
 */
struct tl_sum {
	double call_submit, submit_start, start_irq, irq_done, start_done;
	double done_ret;
	unsigned int n, n_irq, irqs[4];
	/* The caller's times of each of @launches launches. */
	const double *t_call, *t_ret;
	unsigned int launches;
	/* The launch being read: its events' times, its index. */
	double submit, start, irq;
	unsigned int i;
};

static void tl_event(void *ctx, int e, double t, const char *rest)
{
	struct tl_sum *ts = ctx;
	const double *t_call = ts->t_call, *t_ret = ts->t_ret;
	unsigned int n = ts->launches, vec = 0;
	const char *v;

	switch (e) {
	case TL_SUBMIT:
		/* The first launch whose WAIT returned after this. */
		while (ts->i < n && t_ret[ts->i] < t)
			ts->i++;
		ts->submit = t;
		ts->start = ts->irq = 0;
		break;
	case TL_START:
		ts->start = t;
		break;
	case TL_IRQ:
		v = strstr(rest, "vector=");
		if (!v || sscanf(v + 7, "%u", &vec) != 1)
			break;
		if (vec < 4)
			ts->irqs[vec]++;
		if (vec == 3 && ts->start && !ts->irq)
			ts->irq = t;
		break;
	default:
		if (!ts->submit || !ts->start || ts->i >= n)
			break;
		ts->call_submit += ts->submit - t_call[ts->i];
		ts->submit_start += ts->start - ts->submit;
		if (ts->irq) {
			ts->start_irq += ts->irq - ts->start;
			ts->irq_done += t - ts->irq;
			ts->n_irq++;
		} else {
			ts->start_done += t - ts->start;
		}
		ts->done_ret += t_ret[ts->i] - t;
		ts->n++;
		ts->i++;
		ts->submit = 0;
		break;
	}
}

static int tl_read(unsigned int idx, struct tl_sum *ts)
{
	return tr_walk(tl_events, TL_N, idx, tl_event, ts) || !ts->n ? -1 : 0;
}

/* The traced launches of one device; without tracefs, nothing. */
static void launch_breakdown(unsigned int idx, const char *kind)
{
	static double t_call[LAUNCHES], t_ret[LAUNCHES];
	struct tl_sum ts = {
		.t_call = t_call, .t_ret = t_ret, .launches = LAUNCHES,
	};
	bool mounted = tr_mount();
	struct lrig lr;
	double s = -1;

	if (tr_switch_events(tl_events, TL_N, true) || lrig_open(idx, &lr)) {
		fprintf(stderr, "bench_uring: no trace events: launch breakdown skipped\n");
		goto out;
	}
	/* Warm: the first launches of a file fault its pages in. */
	if (launch_loop(&lr, 8, NULL, NULL) > 0 && !tr_clear())
		s = launch_loop(&lr, LAUNCHES, t_call, t_ret);
	close(lr.fd);
	if (s <= 0 || tl_read(idx, &ts)) {
		fprintf(stderr, "bench_uring: launch breakdown failed\n");
		goto out;
	}
	printf("bench %s_launch.trace_per_launch_us %.1f us\n", kind,
	       s / LAUNCHES * 1e6);
	printf("bench %s_launch.trace_call_to_submit_us %.1f us\n", kind,
	       ts.call_submit / ts.n * 1e6);
	printf("bench %s_launch.trace_submit_to_start_us %.1f us\n", kind,
	       ts.submit_start / ts.n * 1e6);
	if (ts.n_irq) {
		printf("bench %s_launch.trace_start_to_irq_us %.1f us\n", kind,
		       ts.start_irq / ts.n_irq * 1e6);
		printf("bench %s_launch.trace_irq_to_result_us %.1f us\n",
		       kind, ts.irq_done / ts.n_irq * 1e6);
	}
	if (ts.n > ts.n_irq)
		printf("bench %s_launch.trace_start_to_result_us %.1f us\n",
		       kind, ts.start_done / (ts.n - ts.n_irq) * 1e6);
	printf("bench %s_launch.trace_result_to_return_us %.1f us\n", kind,
	       ts.done_ret / ts.n * 1e6);
	printf("bench %s_launch.trace_irqs_per_launch %.2f (vector 0: %.2f, 3: %.2f)\n",
	       kind, (double)(ts.irqs[0] + ts.irqs[1] + ts.irqs[2] + ts.irqs[3]) /
	       ts.n, (double)ts.irqs[0] / ts.n, (double)ts.irqs[3] / ts.n);
	fflush(stdout);
out:
	tr_switch_events(tl_events, TL_N, false);
	rmdir(TR_INST);
	if (mounted)
		umount(TR_ROOT);
}

/* The first /dev/ipuN whose platform (sysfs) is @platform, or -1. */
static int first_of(const char *platform)
{
	char path[64], buf[16];
	unsigned int n;
	ssize_t len;
	int fd;

	for (n = 0; n < 64; n++) {
		snprintf(path, sizeof(path), "/sys/class/ipu/ipu%u/platform", n);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len > 0 && buf[len - 1] == '\n')
			len--;
		if (len > 0 && (size_t)len == strlen(platform) &&
		    !memcmp(buf, platform, (size_t)len))
			return (int)n;
	}
	return -1;
}

static int bench_launches(void)
{
	static const char *const kinds[] = { "sim", "pci" };
	double rate, nop = nop_rate();
	unsigned int k;
	int idx;

	if (nop > 0)
		printf("bench uring_nop.per_s %.1f round trips/s\n", nop);
	for (k = 0; k < 2; k++) {
		idx = first_of(kinds[k]);
		if (idx < 0)
			continue;
		rate = launch_rate((unsigned int)idx);
		if (rate < 0) {
			fprintf(stderr, "bench_uring: launches on ipu%d: %s\n",
				idx, strerror(errno));
			return 1;
		}
		printf("bench %s_launch.per_s %.1f launches/s\n", kinds[k], rate);
		if (nop > 0)
			printf("bench %s_launch.ratio_vs_nop %.4f x\n", kinds[k],
			       rate / nop);
		fflush(stdout);
		launch_breakdown((unsigned int)idx, kinds[k]);
	}
	return 0;
}

int main(void)
{
	uint64_t before, added;
	char name[32];
	unsigned int idx;
	int ret, pci;

	before = present();
	/* A device with room for the largest size. */
	if (write_file(SIM_CTL "/new_device", BENCH_DEV_MB)) {
		fprintf(stderr, "bench_uring: no simulated IPU to add: skipped\n");
		return 77;
	}
	added = present() & ~before;
	if (!added)
		return 1;
	idx = (unsigned int)__builtin_ctzll(added);
	ret = bench_device(idx, "");
	snprintf(name, sizeof(name), "%u", idx);
	write_file(SIM_CTL "/del_device", name);
	pci = first_of("pci");
	if (!ret && pci >= 0)
		ret = bench_device((unsigned int)pci, "pci_");
	if (!ret)
		ret = bench_session(1) || bench_session(16);
	if (!ret)
		ret = bench_launches();
	return ret;
}
