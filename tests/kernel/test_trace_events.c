// SPDX-License-Identifier: GPL-2.0
/*
 * test_trace_events.c - ipu.ko's trace events (driver/ipu_trace.h), read
 * back through tracefs as trace-cmd and perf would: each test enables
 * events/ipu/ in a trace instance of its own (instances/NAME: a buffer and
 * event switches of its own, removed at teardown, so the system's tracing
 * state is never touched), does one operation and checks that exactly the
 * expected events fired for its device, with the right fields:
 *  - simulated IPU: BO_CREATE and the buffer's destruction; an XFER ioctl
 *    each way; io_uring XFERs from user memory and from a registered
 *    buffer; a launch the firmware completes and one it fails; a launch
 *    that misses its deadline (the watchdog's reset); RESET and unplug;
 *  - with the events off (never enabled, or enabled then disabled) the
 *    same operations leave the buffer empty;
 *  - PCI IPU (when the rig attached one): an XFER, its DMA queue's events
 *    (the transfer pending, its doorbell) and its interrupts, a
 *    launch that completes and one the device fails, and a split launch's
 *    gather request and its answer.
 * Events are written when the operation happens, before the call that
 * caused it returns (or its CQE is posted, or its fence signalled): the
 * tests read the buffer then, and wait (a bounded poll of the buffer) only
 * for interrupts, which the device raises when it will.
 * Skipped where the kernel has no tracefs.
 */
#include <limits.h>
#include <poll.h>
#include <sched.h>

#include "kfw.h"
#include "kpci.h"
#include "kprog.h"
#include "ksimd.h"
#include "ktrace.h"
#include "kuring.h"

#define FAR_NS INT64_MAX
/* Re-reads of the buffer while waiting for an interrupt: a bug beyond. */
#define TR_POLLS 200000


/* One event of the buffer: its name and its printed fields. */
struct tr_ev {
	char name[40];
	char fields[320];
};

#define TR_MAX_EV 256
static struct tr_ev tr_ev[TR_MAX_EV];

/* This test's instance with the ipu events on. */
static void tr_on(void)
{
	kr_instance();
	kr_write("events/ipu/enable", "1");
}


/*
 * The events of ipu@minor in the buffer, oldest first (every ipu event
 * when @minor is negative); their count.
 */
static size_t tr_read(int minor)
{
	char path[PATH_MAX + 16], line[1024], dev[16];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", kr_dir);
	snprintf(dev, sizeof(dev), "ipu%d ", minor);
	f = fopen(path, "re");
	if (!f)
		fail_msg("open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *name, *end, *fields;

		line[strcspn(line, "\n")] = '\0';
		/* "comm-pid [cpu] flags ts: name: fields" */
		name = line[0] == '#' ? NULL : strstr(line, ": ipu_");
		if (!name)
			continue;
		name += 2;
		end = strstr(name, ": ");
		if (!end)
			fail_msg("trace line without fields: %s", line);
		*end = '\0';
		fields = end + 2;
		if (minor >= 0 && strncmp(fields, dev, strlen(dev)))
			continue;
		if (n == TR_MAX_EV)
			fail_msg("more than %d ipu events", TR_MAX_EV);
		snprintf(tr_ev[n].name, sizeof(tr_ev[n].name), "%s", name);
		snprintf(tr_ev[n].fields, sizeof(tr_ev[n].fields), "%s", fields);
		n++;
	}
	fclose(f);
	return n;
}

static void tr_dump(size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		print_message("  %s: %s\n", tr_ev[i].name, tr_ev[i].fields);
}

/* The value of field @key of @e, as printed, in @buf (fail when none). */
static const char *tr_str(const struct tr_ev *e, const char *key, char *buf,
			  size_t len)
{
	char pat[48];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(e->fields, pat);
	if (!p)
		fail_msg("%s has no field %s: %s", e->name, key, e->fields);
	p += strlen(pat);
	snprintf(buf, len, "%.*s", (int)strcspn(p, " "), p);
	return buf;
}

#define TR_STR(e, key) tr_str((e), (key), (char[64]){ 0 }, 64)

/* The value of numeric field @key of @e (decimal, or 0x hex). */
static long long tr_val(const struct tr_ev *e, const char *key)
{
	return strtoll(TR_STR(e, key), NULL, 0);
}

/*
 * The @n events read are exactly @names, in order; events named @skip
 * (NULL: none) are left out of the comparison and of the returned
 * indices: @idx[i] is where @names[i] is in tr_ev.
 */
static void tr_expect(size_t n, const char *const *names, size_t nnames,
		      const char *skip, size_t *idx)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (skip && !strcmp(tr_ev[i].name, skip))
			continue;
		if (k == nnames || strcmp(tr_ev[i].name, names[k])) {
			tr_dump(n);
			fail_msg("event %zu is %s, expected %s", i, tr_ev[i].name,
				 k == nnames ? "none" : names[k]);
		}
		if (idx)
			idx[k] = i;
		k++;
	}
	if (k != nnames) {
		tr_dump(n);
		fail_msg("%zu events, expected %zu (next: %s)", k, nnames,
			 names[k]);
	}
}

#define TR_EXPECT(n, skip, idx, ...)					\
	tr_expect((n), (const char *const[]){ __VA_ARGS__ },		\
		  KT_ARRAY_SIZE(((const char *const[]){ __VA_ARGS__ })),	\
		  (skip), (idx))

/* fdinfo's drm-client-id of @fd: the events' client field. */
static long long client_of(int fd)
{
	char buf[1024], *p;

	assert_int_equal(kt_fdinfo(fd, buf, sizeof(buf)), 0);
	p = strstr(buf, "drm-client-id:");
	if (!p)
		fail_msg("no drm-client-id in fdinfo: %s", buf);
	return strtoll(p + strlen("drm-client-id:"), NULL, 10);
}

/* The three events of one transfer, at @idx in tr_ev. */
static void check_xfer(const size_t *idx, int fd, uint32_t h, size_t bytes,
		       bool to_device, const char *path)
{
	size_t i;

	for (i = 0; i < 3; i++) {
		const struct tr_ev *e = &tr_ev[idx[i]];

		assert_int_equal(tr_val(e, "client"), client_of(fd));
		assert_int_equal(tr_val(e, "handle"), h);
		assert_int_equal(tr_val(e, "bytes"), bytes);
		assert_string_equal(TR_STR(e, "dir"),
				    to_device ? "to_device" : "from_device");
		assert_string_equal(TR_STR(e, "path"), path);
		assert_int_equal(tr_val(e, "result"), 0);
	}
}

static int tr_setup(void **state)
{
	kr_dir[0] = '\0';
	return ku_setup(state);
}

/* The instance goes first: nothing the cleanup does is traced into it. */
static int tr_teardown(void **state)
{
	kr_remove();
	io_uring_queue_exit(&ku_r);
	return ks_teardown(state);
}

#define TR_TEST(f) cmocka_unit_test_setup_teardown(f, tr_setup, tr_teardown)

/*
 * Poll the buffer until ipu@minor's event @name is there, with a cause in
 * @mask (ipu_irq; 0: any event of that name): what a device raises when
 * it will, maybe after the call that caused it returned, or what the
 * watchdog traces after the launches it failed were signalled. Returns
 * the events read then.
 */
static size_t tr_wait(int minor, const char *name, uint32_t mask)
{
	unsigned int tries;
	size_t n = 0, i;

	for (tries = 0; tries < TR_POLLS; tries++) {
		n = tr_read(minor);
		for (i = 0; i < n; i++)
			if (!strcmp(tr_ev[i].name, name) &&
			    (!mask || tr_val(&tr_ev[i], "cause") & mask))
				return n;
		sched_yield();
	}
	tr_dump(n);
	fail_msg("no %s (cause %#x)", name, mask);
	return 0;
}

#define wait_irq(minor, mask) tr_wait((minor), "ipu_irq", (mask))

/* ------------------------------------------------------------------------ */
/* Simulated IPUs                                                           */
/* ------------------------------------------------------------------------ */

static void test_bo_create_and_destroy(void **state)
{
	unsigned int idx = kt_own_dev(4);
	int fd = kt_open_attached(idx);
	struct ipu_bo_create bo;
	size_t n;

	(void)state;
	tr_on();
	assert_int_equal(kt_bo_create(fd, kt_page_size() + 1, &bo), 0);
	assert_int_equal(kt_bo_destroy(fd, bo.handle), 0);
	n = tr_read((int)idx);
	TR_EXPECT(n, NULL, NULL, "ipu_bo_create", "ipu_bo_destroy");
	assert_int_equal(tr_val(&tr_ev[0], "handle"), bo.handle);
	assert_int_equal(tr_val(&tr_ev[0], "size"), 2 * kt_page_size());
	assert_int_equal(tr_val(&tr_ev[0], "dev_addr"), bo.device_addr);
	assert_string_equal(tr_ev[0].fields + strcspn(tr_ev[0].fields, " "),
			    tr_ev[1].fields + strcspn(tr_ev[1].fields, " "));
}

static void test_xfer_ioctl_each_way(void **state)
{
	unsigned int idx = kt_own_dev(4);
	int fd = kt_open_attached(idx);
	size_t page = kt_page_size(), idx6[6];
	uint32_t h = kt_bo(fd, 2 * page, NULL);
	uint8_t *buf = kt_alloc(2 * page);
	size_t n;

	(void)state;
	tr_on();
	assert_int_equal(kt_write_bo(fd, h, 0, buf, page + 7), 0);
	assert_int_equal(kt_read_bo(fd, h, 0, buf, page), 0);
	n = tr_read((int)idx);
	TR_EXPECT(n, NULL, idx6, "ipu_xfer_submit", "ipu_xfer_start",
		  "ipu_xfer_complete", "ipu_xfer_submit", "ipu_xfer_start",
		  "ipu_xfer_complete");
	check_xfer(idx6, fd, h, page + 7, true, "ioctl");
	check_xfer(idx6 + 3, fd, h, page, false, "ioctl");
}

static void test_xfer_uring_user_and_registered(void **state)
{
	unsigned int idx = kt_own_dev(4);
	int fd = kt_open_attached(idx);
	size_t page = kt_page_size(), idx6[6];
	uint32_t h = kt_bo(fd, 4 * page, NULL);
	uint8_t *buf = kt_alloc(4 * page);
	struct iovec iov = { .iov_base = buf, .iov_len = 4 * page };
	struct io_uring_sqe *sqe;
	size_t n;

	(void)state;
	assert_int_equal(io_uring_register_buffers(&ku_r, &iov, 1), 0);
	tr_on();
	ku_xfer(&ku_r, fd, h, 0, buf, 3 * page, IPU_XFER_TO_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), 0);
	sqe = ku_xfer(&ku_r, fd, h, page, buf + 1, 2 * page,
		      IPU_XFER_FROM_DEVICE, 0);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 0;
	assert_int_equal(ku_one(&ku_r), 0);
	n = tr_read((int)idx);
	TR_EXPECT(n, NULL, idx6, "ipu_xfer_submit", "ipu_xfer_start",
		  "ipu_xfer_complete", "ipu_xfer_submit", "ipu_xfer_start",
		  "ipu_xfer_complete");
	check_xfer(idx6, fd, h, 3 * page, true, "io_uring");
	check_xfer(idx6 + 3, fd, h, 2 * page, false, "registered");
	assert_int_equal(io_uring_unregister_buffers(&ku_r), 0);
}

/* The launch events of @f's launch @id: fields of each. */
static void check_launch(const struct kfw *f, const size_t *idx, size_t n,
			 uint64_t id, int status)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct tr_ev *e = &tr_ev[idx[i]];

		assert_int_equal(tr_val(e, "client"), client_of(f->owner));
		assert_int_equal(tr_val(e, "id"), id);
		assert_int_equal(tr_val(e, "exe"), f->l.exe_handle);
		assert_int_equal(tr_val(e, "arena"), f->l.arena_handle);
		assert_string_equal(TR_STR(e, "replica"), "0/1");
		assert_int_equal(tr_val(e, "status"), i == n - 1 ? status : 0);
	}
}

/* The test's firmware takes a launch and reports @status. */
static void fw_launch(int status)
{
	struct kfw f = kfw_setup(true);
	struct ipu_fw_work w;
	uint64_t fence;
	size_t n, idx[3];
	int got;

	tr_on();
	assert_int_equal(kfw_launch(&f, &fence), 0);
	assert_int_equal(kfw_next(f.fw, &w), 0);
	assert_int_equal(kfw_done(f.fw, w.id, status), 0);
	assert_int_equal(kt_wait_fence(f.owner, fence, FAR_NS, &got), 0);
	assert_int_equal(got, status);
	n = tr_read((int)f.idx);
	TR_EXPECT(n, NULL, idx, "ipu_launch_submit", "ipu_launch_start",
		  status ? "ipu_launch_fail" : "ipu_launch_complete");
	check_launch(&f, idx, 3, w.id, status);
}

static void test_launch_completes(void **state)
{
	(void)state;
	fw_launch(0);
}

static void test_launch_fails(void **state)
{
	(void)state;
	fw_launch(-EIO);
}

/*
 * The firmware takes a launch and never answers: the watchdog's deadline
 * event, the launch failed -ETIMEDOUT, the reset that followed.
 */
static void test_deadline_expiry_and_reset(void **state)
{
	struct kfw f = kfw_setup(true);
	struct ipu_fw_work w;
	uint64_t fence;
	size_t n, idx[5];
	int got;

	(void)state;
	ks_timeout_set(200);
	tr_on();
	assert_int_equal(kfw_launch(&f, &fence), 0);
	assert_int_equal(kfw_next(f.fw, &w), 0);
	assert_int_equal(kt_wait_fence(f.owner, fence, FAR_NS, &got), 0);
	assert_int_equal(got, -ETIMEDOUT);
	/* Traced once the reset returned, after the launch was failed. */
	n = tr_wait((int)f.idx, "ipu_reset", 0);
	TR_EXPECT(n, NULL, idx, "ipu_launch_submit", "ipu_launch_start",
		  "ipu_deadline", "ipu_launch_fail", "ipu_reset");
	assert_int_equal(tr_val(&tr_ev[idx[2]], "timeout_ms"), 200);
	assert_int_equal(tr_val(&tr_ev[idx[3]], "status"), -ETIMEDOUT);
	assert_string_equal(TR_STR(&tr_ev[idx[4]], "cause"), "deadline");
	assert_int_equal(tr_val(&tr_ev[idx[4]], "result"), 0);
}

static void test_reset_and_unplug(void **state)
{
	unsigned int idx = kt_own_dev(4);
	int fd = kt_open_attached(idx);
	size_t n;

	(void)state;
	tr_on();
	assert_int_equal(kt_reset(fd), 0);
	assert_int_equal(kt_remove(idx), 0);
	kt_untrack_removed(idx);
	n = tr_read((int)idx);
	TR_EXPECT(n, NULL, NULL, "ipu_reset", "ipu_unplug");
	assert_string_equal(TR_STR(&tr_ev[0], "cause"), "ioctl");
	assert_int_equal(tr_val(&tr_ev[0], "result"), 0);
	assert_int_equal(tr_val(&tr_ev[1], "resets"), 1);
}

/* BO_CREATE, XFER both ways (ioctl and io_uring), RESET, BO_DESTROY. */
static void some_of_everything(int fd)
{
	size_t page = kt_page_size();
	uint32_t h = kt_bo(fd, page, NULL);
	uint8_t *buf = kt_alloc(page);

	assert_int_equal(kt_write_bo(fd, h, 0, buf, page), 0);
	assert_int_equal(kt_read_bo(fd, h, 0, buf, page), 0);
	ku_xfer(&ku_r, fd, h, 0, buf, page, IPU_XFER_TO_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), 0);
	assert_int_equal(kt_reset(fd), 0);
	assert_int_equal(kt_bo_destroy(fd, h), 0);
}

/* Off, whether never enabled or enabled and then disabled: nothing. */
static void test_off_means_none(void **state)
{
	unsigned int idx = kt_own_dev(4);
	int fd = kt_open_attached(idx);

	(void)state;
	kr_instance();
	some_of_everything(fd);
	assert_int_equal(tr_read(-1), 0);

	kr_write("events/ipu/enable", "1");
	kr_write("events/ipu/enable", "0");
	some_of_everything(fd);
	assert_int_equal(tr_read(-1), 0);

	/* And on, the same operations do fire (the test can see them). */
	kr_write("events/ipu/enable", "1");
	some_of_everything(fd);
	assert_int_equal(tr_read((int)idx), 12);
}

/* ------------------------------------------------------------------------ */
/* PCI IPUs                                                                 */
/* ------------------------------------------------------------------------ */

/* ipuN of the rig's PCI IPU @i; skipped without one. */
static int pci_minor(unsigned int i)
{
	int n;

	require_ipus();
	if (nr_ipus <= i)
		kt_skip();
	n = ipu_of(ipus[i]);
	if (n < 0)
		fail_msg("%s has no ipuN (not bound?)", ipus[i]);
	return n;
}

/* The vector of a cause (docs/hardware.md section 6): its own, of 4. */
static long long vec_of(long long cause)
{
	if (cause == IPU_IRQ_H2D)
		return IPU_VEC_H2D;
	if (cause == IPU_IRQ_D2H)
		return IPU_VEC_D2H;
	if (!(cause & ~(long long)(IPU_IRQ_CMD | IPU_IRQ_GATHER)))
		return IPU_VEC_CMD;
	return IPU_VEC_MISC;
}

/*
 * Each interrupt of the @n events has causes in @mask only, each on its
 * own vector or on vector 0 (a function with one vector takes all). A
 * device may raise a transfer's interrupt after the transfer returned
 * (the driver saw its writeback first): one of an earlier transfer may
 * still come, which @mask allows for.
 */
static void check_irqs(size_t n, uint32_t mask)
{
	size_t i;

	for (i = 0; i < n; i++) {
		long long v, c;

		if (strcmp(tr_ev[i].name, "ipu_irq"))
			continue;
		v = tr_val(&tr_ev[i], "vector");
		c = tr_val(&tr_ev[i], "cause");
		if ((v != vec_of(c) && v != IPU_VEC_MISC) || !c ||
		    (c & ~(long long)mask)) {
			tr_dump(n);
			fail_msg("unexpected interrupt: %s", tr_ev[i].fields);
		}
	}
}

/*
 * A transfer alone on its DMA queue (events at @idx[2] and @idx[3]): it
 * was the one pending, and its doorbell carried it alone, its pages' worth
 * of descriptors (one or more: the pages need not be contiguous).
 */
static void check_pci_dma(const size_t *idx, bool to_device)
{
	const char *dir = to_device ? "to_device" : "from_device";

	assert_string_equal(TR_STR(&tr_ev[idx[2]], "dir"), dir);
	assert_int_equal(tr_val(&tr_ev[idx[2]], "pending"), 1);
	assert_string_equal(TR_STR(&tr_ev[idx[3]], "dir"), dir);
	assert_int_equal(tr_val(&tr_ev[idx[3]], "transfers"), 1);
	assert_true(tr_val(&tr_ev[idx[3]], "descriptors") >= 1);
}

static void test_pci_xfer_and_its_interrupts(void **state)
{
	int minor = pci_minor(0);
	int fd = kt_open_attached((unsigned int)minor);
	size_t page = kt_page_size(), idx[5], n;
	uint32_t h = kt_bo(fd, 2 * page, NULL);
	uint8_t *buf = kt_alloc(2 * page);

	(void)state;
	tr_on();
	assert_int_equal(kt_write_bo(fd, h, 0, buf, 2 * page), 0);
	n = wait_irq(minor, IPU_IRQ_H2D);
	TR_EXPECT(n, "ipu_irq", idx, "ipu_xfer_submit", "ipu_xfer_start",
		  "ipu_dma_queue", "ipu_dma_doorbell", "ipu_xfer_complete");
	check_pci_dma(idx, true);
	idx[2] = idx[4];
	check_xfer(idx, fd, h, 2 * page, true, "ioctl");
	check_irqs(n, IPU_IRQ_H2D);

	kr_clear();
	assert_int_equal(kt_read_bo(fd, h, 0, buf, page), 0);
	n = wait_irq(minor, IPU_IRQ_D2H);
	TR_EXPECT(n, "ipu_irq", idx, "ipu_xfer_submit", "ipu_xfer_start",
		  "ipu_dma_queue", "ipu_dma_doorbell", "ipu_xfer_complete");
	check_pci_dma(idx, false);
	idx[2] = idx[4];
	check_xfer(idx, fd, h, page, false, "ioctl");
	check_irqs(n, IPU_IRQ_D2H | IPU_IRQ_H2D);
}

/*
 * The events of a launch on the PCI IPU: the last one @last, @status. A
 * launch the device fails also logs an error (ERROR on vector 0).
 */
static void check_pci_launch(int minor, int fd, const struct ipu_launch *l,
			     const char *last, int status)
{
	size_t n = wait_irq(minor, IPU_IRQ_CMD), idx[3], i;

	TR_EXPECT(n, "ipu_irq", idx, "ipu_launch_submit", "ipu_launch_start",
		  last);
	check_irqs(n, IPU_IRQ_CMD | (status ? IPU_IRQ_ERROR : 0));
	for (i = 0; i < 3; i++) {
		const struct tr_ev *e = &tr_ev[idx[i]];

		assert_int_equal(tr_val(e, "client"), client_of(fd));
		assert_int_equal(tr_val(e, "id"), tr_val(&tr_ev[idx[0]], "id"));
		assert_int_equal(tr_val(e, "exe"), l->exe_handle);
		assert_int_equal(tr_val(e, "status"), i == 2 ? status : 0);
	}
}

static void test_pci_launch_completes_and_fails(void **state)
{
	static const uint8_t junk[256];
	int minor = pci_minor(0);
	int fd = kt_open_attached((unsigned int)minor);
	struct kp_prog *p = kp_mlp(1);
	struct ipu_launch ok, bad;

	(void)state;
	kp_launch_bufs(fd, p->image, p->len, p->exe->arena_size, &ok);
	kp_launch_bufs(fd, junk, sizeof(junk), 4096, &bad);
	tr_on();
	assert_int_equal(kt_launch_wait(fd, &ok), 0);
	check_pci_launch(minor, fd, &ok, "ipu_launch_complete", 0);

	kr_clear();
	assert_int_equal(kt_launch_wait(fd, &bad), -ENOEXEC);
	check_pci_launch(minor, fd, &bad, "ipu_launch_fail", -ENOEXEC);
	kp_free(p);
}

/*
 * Instance 0 of a program split in two: the device asks for the other
 * instance's part (a gather request); answered -EIO, the launch fails.
 */
static void test_pci_gather_request_and_answer(void **state)
{
	int minor = pci_minor(0);
	int fd = kt_open_attached((unsigned int)minor);
	struct kp_prog *p = kp_mlp(2);
	struct pollfd pfd = { .fd = fd, .events = POLLPRI };
	struct ipu_gather_answer a = { .status = -EIO };
	struct ipu_gather_next g;
	struct ipu_launch l;
	void *image = NULL;
	size_t len, n, idx[5];
	uint64_t fence;
	char msg[256];
	int status;

	(void)state;
	if (!(kt_info(fd).features & IPU_FEATURE_GATHER))
		kt_skip();
	p->exe->instance_replication_factor = 1;
	if (ipu_exe_save(p->exe, &image, &len, msg, sizeof(msg)))
		fail_msg("saving split: %s", msg);
	kp_launch_bufs(fd, image, len, p->exe->arena_size, &l);
	l.group = 0x7e57;
	l.instance_index = 0;
	l.instance_count = 2;
	l.staging_size = (uint32_t)kt_granule(fd);
	l.staging_handle = kt_bo(fd, l.staging_size, NULL);
	tr_on();
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_LAUNCH, &l), 0);
	fence = l.fence;
	/* The request is an event; the minute only bounds a broken device. */
	assert_int_equal(poll(&pfd, 1, 60000), 1);
	memset(&g, 0, sizeof(g));
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_GATHER_NEXT, &g), 0);
	a.token = g.token;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_GATHER_ANSWER, &a), 0);
	assert_int_equal(kt_wait_fence(fd, fence, FAR_NS, &status), 0);
	assert_int_equal(status, -EIO);
	n = tr_read(minor);
	TR_EXPECT(n, "ipu_irq", idx, "ipu_launch_submit", "ipu_launch_start",
		  "ipu_gather_request", "ipu_gather_answer", "ipu_launch_fail");
	assert_int_equal(tr_val(&tr_ev[idx[2]], "id"),
			 tr_val(&tr_ev[idx[0]], "id"));
	assert_int_equal(tr_val(&tr_ev[idx[2]], "bytes"), g.bytes);
	assert_string_equal(TR_STR(&tr_ev[idx[2]], "instance"), "0/2");
	assert_int_equal(tr_val(&tr_ev[idx[2]], "result"), 0);
	assert_int_equal(tr_val(&tr_ev[idx[3]], "seq"),
			 tr_val(&tr_ev[idx[2]], "seq"));
	assert_int_equal(tr_val(&tr_ev[idx[3]], "status"), -EIO);
	assert_int_equal(tr_val(&tr_ev[idx[4]], "status"), -EIO);
	free(image);
	kp_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TR_TEST(test_bo_create_and_destroy),
		TR_TEST(test_xfer_ioctl_each_way),
		TR_TEST(test_xfer_uring_user_and_registered),
		TR_TEST(test_launch_completes),
		TR_TEST(test_launch_fails),
		TR_TEST(test_deadline_expiry_and_reset),
		TR_TEST(test_reset_and_unplug),
		TR_TEST(test_off_means_none),
		TR_TEST(test_pci_xfer_and_its_interrupts),
		TR_TEST(test_pci_launch_completes_and_fails),
		TR_TEST(test_pci_gather_request_and_answer),
	};
	int ret;

	kr_mount();
	kp_init();
	ret = KT_RUN(tests);
	kr_umount();
	return ret;
}
