// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_posted.c - posted register writes (--posted-window-us):
 * a disable, a soft reset, the gather ring's disable and a firmware boot
 * return at once and finish on the device's own time; descriptors already
 * fetched may complete after the write returned (data, status word,
 * writeback, interrupt, in that order) but never once the queue's STATUS
 * (or RESET_COUNT) says the stop is over; late_completion uses the whole
 * window; hang_dma and hang_launch do not keep a stop past the bound;
 * reads stay synchronous; window 0 is v1's synchronous device.
 *
 * The host records every write and interrupt of the device in order, with
 * the time it saw it. A descriptor is held "fetched" by the fake host's
 * gate on its fetch (emu_dev_helpers.h). A register write that might
 * block (as v1's did) is made on a helper thread, so that a device that
 * waits fails the test instead of hanging it.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_launch.h"

/* docs/hardware.md v2's bound on a stop (hw.h IPU_STOP_TIMEOUT_MS). */
#ifndef IPU_STOP_TIMEOUT_MS
#define IPU_STOP_TIMEOUT_MS	1000
#endif

#define WINDOW_US	50000u	/* long enough to see, short enough to wait */
#define LOG_MAX		64
#define GREG(r)		(IPU_REG_GATHER + (r))
#define GQ		3	/* the gather ring's place in guest memory */

struct ev {
	bool irq;
	uint64_t addr;		/* a write's bus address; an irq's vector */
	uint32_t len;
	uint64_t at_us;
};

/* A device over the fake host, every write and interrupt recorded. */
struct rec {
	struct th t;		/* first: the host ops' ctx is &t.h */
	pthread_mutex_t lock;
	struct ev ev[LOG_MAX];
	unsigned int n;
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void rec_add(struct rec *r, bool irq, uint64_t addr, uint32_t len)
{
	pthread_mutex_lock(&r->lock);
	if (r->n < LOG_MAX)
		r->ev[r->n] = (struct ev){ irq, addr, len, now_us() };
	r->n++;
	pthread_mutex_unlock(&r->lock);
}

static int rec_dma_write(void *ctx, uint64_t addr, const void *src, size_t len)
{
	int err = fh_dma_write(ctx, addr, src, len);

	if (!err)
		rec_add(ctx, false, addr, (uint32_t)len);
	return err;
}

static int rec_irq(void *ctx, unsigned int vector)
{
	int err = fh_irq(ctx, vector);

	if (!err)
		rec_add(ctx, true, vector, 0);
	return err;
}

/* Writes only (an error's interrupt is no access of host memory). */
static unsigned int rec_writes(struct rec *r)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->n && i < LOG_MAX; i++)
		n += !r->ev[i].irq;
	pthread_mutex_unlock(&r->lock);
	return n;
}

static unsigned int rec_count(struct rec *r)
{
	unsigned int n;

	pthread_mutex_lock(&r->lock);
	n = r->n;
	pthread_mutex_unlock(&r->lock);
	return n;
}

static struct rec *rec_new_opts(const struct emu_dev_opts *o)
{
	struct rec *r = calloc(1, sizeof(*r));
	struct emu_host_ops ops = {
		.dma_read = fh_dma_read, .dma_write = rec_dma_write,
		.irq = rec_irq, .ctx = NULL,
	};

	assert_non_null(r);
	r->t.h.mem = calloc(1, GUEST_SIZE);
	assert_non_null(r->t.h.mem);
	pthread_mutex_init(&r->t.h.lock, NULL);
	pthread_cond_init(&r->t.h.cond, NULL);
	pthread_mutex_init(&r->lock, NULL);
	ops.ctx = &r->t.h;
	assert_int_equal(emu_dev_create(o, &ops, &r->t.dev), 0);
	th_enable(&r->t);
	return r;
}

static struct rec *rec_new(uint32_t window_us, const char *faults)
{
	struct emu_dev_opts o = {
		.mem_size = 16u << 20, .serial = 7, .faults = faults,
		.posted_window_us = window_us,
	};

	return rec_new_opts(&o);
}

/*
 * Destroy the device (every thread joined), then check that it wrote
 * nothing after the @n events it had made when its stop was over.
 */
static void rec_free_after(struct rec *r, unsigned int n)
{
	emu_dev_destroy(r->t.dev);
	assert_int_equal(rec_count(r), n);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->t.h.cond);
	pthread_mutex_destroy(&r->t.h.lock);
	free(r->t.h.mem);
	free(r);
}

/* A register write on a thread of its own. */
struct bg_write {
	struct th *t;
	uint32_t off, val;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	uint64_t returned_us;
};

static void *bg_write_thread(void *arg)
{
	struct bg_write *w = arg;

	wr32(w->t, w->off, w->val);
	pthread_mutex_lock(&w->lock);
	w->done = true;
	w->returned_us = now_us();
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/*
 * Write @val at @off while the host holds a fetch at its gate, and check
 * that the write returns without waiting for the device: a posted write.
 * (A device that waits would wait for the gate: after WAIT_LIMIT_S the
 * gate is opened, so that the test fails rather than hangs.) Returns when
 * it returned.
 */
static uint64_t posted_write(struct th *t, uint32_t off, uint32_t val)
{
	struct bg_write w = { .t = t, .off = off, .val = val };
	struct timespec ts;
	bool done;

	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	assert_int_equal(pthread_create(&w.thread, NULL, bg_write_thread, &w), 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_LIMIT_S;
	pthread_mutex_lock(&w.lock);
	while (!w.done && !pthread_cond_timedwait(&w.cond, &w.lock, &ts))
		;
	done = w.done;
	pthread_mutex_unlock(&w.lock);
	if (!done)
		th_gate_open(t);
	pthread_join(w.thread, NULL);
	pthread_cond_destroy(&w.cond);
	pthread_mutex_destroy(&w.lock);
	if (!done)
		fail_msg("the write at 0x%x waited for the device", off);
	return w.returned_us;
}

static uint32_t qstatus(struct th *t, unsigned int q)
{
	return rd32(t, QREG(q, IPU_Q_STATUS));
}

/* Poll @off until (value & @mask) == @want, within the stop bound after
 * @since_us (a stop that ends later fails). */
static void wait_reg(struct th *t, uint32_t off, uint32_t mask, uint32_t want,
		     uint64_t since_us)
{
	while ((rd32(t, off) & mask) != want) {
		if (now_us() - since_us > IPU_STOP_TIMEOUT_MS * 1000ull)
			fail_msg("register 0x%x still 0x%x after %u ms", off,
				 rd32(t, off), IPU_STOP_TIMEOUT_MS);
		sched_yield();
	}
}

static void wait_stopped(struct th *t, unsigned int q, uint64_t since_us)
{
	wait_reg(t, QREG(q, IPU_Q_STATUS),
		 IPU_Q_STATUS_ENABLED | IPU_Q_STATUS_BUSY, 0, since_us);
}

/* D2H descriptor @idx: @len bytes of device memory 0 to G_DATA + @idx * 4K. */
static void d2h_put(struct th *t, uint32_t idx, uint32_t flags)
{
	th_dma_put(t, IPU_QUEUE_D2H, idx, GUEST_BASE + G_DATA + idx * 4096u, 0,
		   256, flags);
}

static uint64_t d2h_status_addr(uint32_t idx)
{
	return GUEST_BASE + G_RING(IPU_QUEUE_D2H) +
	       idx * sizeof(struct ipu_dma_desc) + IPU_DESC_STATUS_OFF;
}

/* Event @i of @r is a write at @addr (of @len bytes, unless 0). */
static void assert_write(struct rec *r, unsigned int i, uint64_t addr,
			 uint32_t len)
{
	assert_true(i < r->n && i < LOG_MAX);
	assert_false(r->ev[i].irq);
	assert_int_equal(r->ev[i].addr, addr);
	if (len)
		assert_int_equal(r->ev[i].len, len);
}

/*
 * The D2H queue with descriptor 0 fetched and held at the host's gate
 * (and @more others published behind it): the state a disable or reset
 * meets on silicon at any time.
 */
static void fetched(struct rec *r, uint32_t more)
{
	struct th *t = &r->t;
	uint8_t pattern[256];
	uint32_t i;

	for (i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 1);
	th_mem_write(t, 0, pattern, sizeof(pattern));
	th_ring(t, IPU_QUEUE_D2H, 16);
	for (i = 0; i <= more; i++)
		d2h_put(t, i, i == 0 ? IPU_DMA_F_IRQ : 0);
	t->h.gate = GUEST_BASE + G_RING(IPU_QUEUE_D2H);
	wr32(t, QREG(IPU_QUEUE_D2H, IPU_Q_TAIL), 1 + more);
	assert_true(th_gate_reached(t));
}

/* Events from @from: descriptor 0's data, status word, writeback, then
 * its interrupt; the index after them. */
static unsigned int assert_completion(struct rec *r, unsigned int from)
{
	assert_write(r, from, GUEST_BASE + G_DATA, 256);
	assert_write(r, from + 1, d2h_status_addr(0), 4);
	assert_write(r, from + 2, GUEST_BASE + G_WB(IPU_QUEUE_D2H),
		     sizeof(struct ipu_queue_wb));
	assert_true(from + 3 < r->n);
	assert_true(r->ev[from + 3].irq);
	assert_int_equal(r->ev[from + 3].addr, IPU_VEC_D2H);
	assert_int_equal(r->t.h.mem[G_DATA + 5], 5 * 7 + 1);
	return from + 4;
}

/* A write that stops the D2H queue, and the register that says it has. */
struct stop_case {
	uint32_t off, val;
	uint32_t done_reg, done_mask, done_want;
	bool late;
};

#define DISABLE(late) { QREG(IPU_QUEUE_D2H, IPU_Q_CTRL), 0, \
	QREG(IPU_QUEUE_D2H, IPU_Q_STATUS), \
	IPU_Q_STATUS_ENABLED | IPU_Q_STATUS_BUSY, 0, late }
#define SOFT_RESET(late) { IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC, \
	IPU_REG_RESET_COUNT, ~0u, 1, late }

static const struct stop_case disable = DISABLE(false);
static const struct stop_case disable_late = DISABLE(true);
static const struct stop_case soft_reset = SOFT_RESET(false);
static const struct stop_case soft_reset_late = SOFT_RESET(true);

/*
 * A disable or soft reset (@state, a struct stop_case) meets a fetched
 * descriptor and one published behind it: the write returns at once,
 * the queue is still ENABLED (and a disable's CTRL reads 0), the stop is
 * not over; the fetched descriptor then completes in the spec's order
 * after the write returned, the other is left alone (disable) or gets
 * E_RESET (reset), and nothing is written once the stop is over. With
 * late_completion the data moves no earlier than the whole window after
 * the write.
 */
static void test_a_stop_returns_before_its_fetched_work_completes(void **state)
{
	const struct stop_case *c = *state;
	struct rec *r = rec_new(WINDOW_US, c->late ? "late_completion" : NULL);
	struct th *t = &r->t;
	bool reset = c->off == IPU_REG_SOFT_RESET;
	uint64_t before, returned;
	unsigned int n0, n1, i;

	fetched(r, 1);
	n0 = rec_count(r);
	before = now_us();
	returned = posted_write(t, c->off, c->val);
	assert_int_equal(rd32(t, QREG(IPU_QUEUE_D2H, IPU_Q_CTRL)),
			 reset ? IPU_Q_CTRL_ENABLE : 0);
	assert_int_equal(qstatus(t, IPU_QUEUE_D2H),
			 IPU_Q_STATUS_ENABLED | IPU_Q_STATUS_BUSY);
	assert_int_not_equal(rd32(t, c->done_reg) & c->done_mask, c->done_want);
	assert_int_equal(rec_count(r), n0);
	th_gate_open(t);
	wait_reg(t, c->done_reg, c->done_mask, c->done_want, returned);
	n1 = rec_count(r);
	i = assert_completion(r, n0);
	assert_true(r->ev[n0].at_us >= returned);
	assert_int_equal(th_dma_desc(t, IPU_QUEUE_D2H, 0)->status, IPU_DESC_DONE);
	if (reset) {
		assert_write(r, i++, d2h_status_addr(1), 4);
		assert_int_equal(th_dma_desc(t, IPU_QUEUE_D2H, 1)->status,
				 IPU_DESC_DONE | IPU_DESC_E_RESET);
	} else {
		assert_int_equal(th_dma_desc(t, IPU_QUEUE_D2H, 1)->status, 0);
		assert_int_equal(rd32(t, QREG(IPU_QUEUE_D2H, IPU_Q_HEAD)), 1);
	}
	assert_int_equal(i, n1);
	/* Over: the queue is stopped (as reset left it). */
	assert_int_equal(qstatus(t, IPU_QUEUE_D2H), 0);
	if (c->late)
		assert_true(r->ev[n0].at_us - before >= WINDOW_US);
	rec_free_after(r, n1);
}

/* hang_dma: the stalled descriptor ends with E_RESET, moving nothing,
 * within the bound of the write (a disable, or a soft reset: @state). */
static void test_a_stalled_transfer_stops_within_the_bound(void **state)
{
	const struct stop_case *c = *state;
	struct rec *r = rec_new(WINDOW_US, "hang_dma=1,late_completion");
	struct th *t = &r->t;
	uint64_t returned;
	unsigned int n;

	th_ring(t, IPU_QUEUE_D2H, 16);
	d2h_put(t, 0, IPU_DMA_F_IRQ);
	wr32(t, QREG(IPU_QUEUE_D2H, IPU_Q_TAIL), 1);
	while (emu_dev_stalled(t->dev) != 1)
		sched_yield();
	returned = posted_write(t, c->off, c->val);
	wait_reg(t, c->done_reg, c->done_mask, c->done_want, returned);
	n = rec_count(r);
	assert_int_equal(th_dma_desc(t, IPU_QUEUE_D2H, 0)->status,
			 IPU_DESC_DONE | IPU_DESC_E_RESET);
	assert_write(r, 0, d2h_status_addr(0), 4);
	rec_free_after(r, n);
}

/* Boot the build's image with a posted window: BOOTING when the write
 * returns (READY later); the time just before the write. */
static uint64_t boot_start(struct th *t)
{
	size_t len = 0;
	uint8_t *img = th_fw_image(&len);
	uint64_t before;

	assert_non_null(img);
	th_mem_write(t, 0, img, len);
	free(img);
	wr64(t, IPU_REG_FW_ADDR, 0);
	wr32(t, IPU_REG_FW_SIZE, (uint32_t)len);
	before = now_us();
	wr32(t, IPU_REG_FW_CTRL, IPU_FW_CTRL_BOOT);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_BOOTING);
	return before;
}

/* Booted, its command ring enabled, and a LAUNCH published (its image
 * no executable: a run of it says E_NOEXEC). */
static void launch_published(struct th *t)
{
	wait_reg(t, IPU_REG_FW_STATUS, ~0u, IPU_FW_STATE_READY, boot_start(t));
	th_ring(t, IPU_QUEUE_CMD, 16);
	th_launch(t, 0, 0x200000, 64, 0x100000, 64);
	wr32(t, QREG(IPU_QUEUE_CMD, IPU_Q_TAIL), 1);
}

/* hang_launch: the hung launch ends with E_RESET within the bound. */
static void test_a_hung_launch_stops_within_the_bound(void **state)
{
	struct rec *r = rec_new(WINDOW_US, "hang_launch=1,late_completion");
	struct th *t = &r->t;
	uint64_t returned;

	(void)state;
	launch_published(t);
	while (!(qstatus(t, IPU_QUEUE_CMD) & IPU_Q_STATUS_BUSY))
		sched_yield();
	returned = posted_write(t, QREG(IPU_QUEUE_CMD, IPU_Q_CTRL), 0);
	wait_stopped(t, IPU_QUEUE_CMD, returned);
	assert_int_equal(th_cmd_desc(t, 0)->status,
			 IPU_DESC_DONE | IPU_CQ_E_RESET);
	rec_free_after(r, rec_count(r));
}

/*
 * A launch the bad_writeback fault holds before its fetch, when a soft
 * reset comes: the reset ends the hold, and the launch, whose queue the
 * reset has stopped, is not run (its image here is no executable: a run
 * would say E_NOEXEC); it completes E_RESET when the reset is over.
 */
static void test_a_launch_its_reset_found_waiting_does_not_run(void **state)
{
	struct rec *r = rec_new(WINDOW_US, "bad_writeback=early");
	struct th *t = &r->t;
	uint64_t returned;

	(void)state;
	launch_published(t);
	/* The lie's interrupt: the descriptor is held. */
	assert_true(th_wait_irqs(t, IPU_VEC_CMD, 1));
	returned = posted_write(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	wait_reg(t, IPU_REG_RESET_COUNT, ~0u, 1, returned);
	assert_int_equal(th_cmd_desc(t, 0)->status,
			 IPU_DESC_DONE | IPU_CQ_E_RESET);
	rec_free_after(r, rec_count(r));
}

/*
 * The gather ring's disable: CTRL reads 0 at once, STATUS stays ENABLED
 * until the stop is over; meanwhile the ring is still the device's (BASE
 * and ENABLE refused with ERR_QUEUE_BUSY); then it may be enabled again.
 */
static void test_the_gather_ring_s_disable_is_posted(void **state)
{
	struct rec *r = rec_new(WINDOW_US, NULL);
	struct th *t = &r->t;
	uint64_t returned;
	uint32_t errs;

	(void)state;
	wr64(t, GREG(IPU_GQ_BASE), GUEST_BASE + G_RING(GQ));
	wr32(t, GREG(IPU_GQ_SIZE), 4);
	wr64(t, GREG(IPU_GQ_WB_ADDR), GUEST_BASE + G_WB(GQ));
	wr32(t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
	assert_int_equal(rd32(t, GREG(IPU_GQ_STATUS)), IPU_Q_STATUS_ENABLED);
	wr32(t, GREG(IPU_GQ_CTRL), 0);
	returned = now_us();
	assert_int_equal(rd32(t, GREG(IPU_GQ_CTRL)), 0);
	assert_int_equal(rd32(t, GREG(IPU_GQ_STATUS)), IPU_Q_STATUS_ENABLED);
	errs = rd32(t, IPU_REG_ERR_COUNT);
	wr64(t, GREG(IPU_GQ_BASE), GUEST_BASE);
	wr32(t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
	/* Unless the window was over already (a very slow machine). */
	if (rd32(t, GREG(IPU_GQ_STATUS)) & IPU_Q_STATUS_ENABLED &&
	    now_us() - returned < WINDOW_US) {
		/* BASE's two halves and ENABLE. */
		assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), errs + 3);
		assert_int_equal(th_last_err(t), IPU_ERR_QUEUE_BUSY);
		assert_int_equal(rd64(t, GREG(IPU_GQ_BASE)),
				 GUEST_BASE + G_RING(GQ));
	}
	wait_reg(t, GREG(IPU_GQ_STATUS), ~0u, 0, returned);
	wr32(t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
	assert_int_equal(rd32(t, GREG(IPU_GQ_STATUS)), IPU_Q_STATUS_ENABLED);
	/* The ring posted nothing: the device never wrote to the host. */
	assert_int_equal(rec_writes(r), 0);
	rec_free_after(r, rec_count(r));
}

/*
 * Reads are not posted: each sees every write before it, a disabled
 * queue's CTRL reads 0 while its stop is in progress, and the ring is
 * the device's until then (ENABLE and BASE refused with ERR_QUEUE_BUSY).
 */
static void test_reads_see_every_earlier_write(void **state)
{
	/* the longest stop: half a second */
	struct rec *r = rec_new(EMU_POSTED_WINDOW_MAX_US, NULL);
	struct th *t = &r->t;
	uint32_t i, errs;

	(void)state;
	for (i = 1; i <= 100; i++) {
		wr32(t, IPU_REG_SCRATCH, i);
		assert_int_equal(rd32(t, IPU_REG_SCRATCH), i);
	}
	th_ring(t, IPU_QUEUE_H2D, 16);
	wr32(t, QREG(IPU_QUEUE_H2D, IPU_Q_CTRL), 0);
	assert_int_equal(rd32(t, QREG(IPU_QUEUE_H2D, IPU_Q_CTRL)), 0);
	assert_int_equal(qstatus(t, IPU_QUEUE_H2D), IPU_Q_STATUS_ENABLED);
	errs = rd32(t, IPU_REG_ERR_COUNT);
	wr32(t, QREG(IPU_QUEUE_H2D, IPU_Q_CTRL), IPU_Q_CTRL_ENABLE);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), errs + 1);
	assert_int_equal(th_last_err(t), IPU_ERR_QUEUE_BUSY);
	assert_int_equal(rd32(t, QREG(IPU_QUEUE_H2D, IPU_Q_CTRL)), 0);
	wr32(t, QREG(IPU_QUEUE_H2D, IPU_Q_SIZE), 32);
	assert_int_equal(rd32(t, QREG(IPU_QUEUE_H2D, IPU_Q_SIZE)), 16);
	assert_int_equal(th_last_err(t), IPU_ERR_QUEUE_BUSY);
	/* FLR (a config write: not posted) ends the stop at once. */
	assert_int_equal(emu_dev_flr(t->dev), 0);
	assert_int_equal(qstatus(t, IPU_QUEUE_H2D), 0);
	assert_int_equal(rec_writes(r), 0);
	rec_free_after(r, rec_count(r));
}

/* FW_CTRL BOOT: BOOTING when the write returns, READY later (with the
 * FW_BOOT interrupt); a BOOT while BOOTING is refused (BUSY). */
static void test_a_boot_is_posted_and_a_second_one_refused(void **state)
{
	struct rec *r = rec_new(WINDOW_US, NULL);
	struct th *t = &r->t;
	uint64_t before;

	(void)state;
	before = boot_start(t);
	wr32(t, IPU_REG_FW_CTRL, IPU_FW_CTRL_BOOT);
	if (now_us() - before < WINDOW_US) {
		assert_int_equal(th_last_err(t), IPU_ERR_FW_BOOT);
		assert_int_equal(rd32(t, IPU_REG_ERR_LOG + IPU_ERR_ENTRY_SIZE *
					 (rd32(t, IPU_REG_ERR_COUNT) - 1) + 4),
				 IPU_FW_ERR_BUSY);
	}
	wait_reg(t, IPU_REG_FW_STATUS, ~0u, IPU_FW_STATE_READY, before);
	assert_true(now_us() - before >= WINDOW_US);
	assert_true(rd32(t, IPU_REG_IRQ_CAUSE) & IPU_IRQ_FW_BOOT);
	rec_free_after(r, rec_count(r));
}

/* FLR while late_completion holds a fetched descriptor: FLR returns at
 * once (within the bound), and the descriptor's data never moves. */
static void test_flr_ends_a_late_completion_at_once(void **state)
{
	struct rec *r = rec_new(EMU_POSTED_WINDOW_MAX_US, "late_completion");
	struct th *t = &r->t;
	uint64_t returned, flr;
	unsigned int n0;

	(void)state;
	fetched(r, 0);
	n0 = rec_count(r);
	returned = posted_write(t, QREG(IPU_QUEUE_D2H, IPU_Q_CTRL), 0);
	th_gate_open(t);
	flr = now_us();
	assert_int_equal(emu_dev_flr(t->dev), 0);
	assert_true(now_us() - flr < IPU_STOP_TIMEOUT_MS * 1000ull);
	assert_true(now_us() - returned < EMU_POSTED_WINDOW_MAX_US);
	assert_int_equal(qstatus(t, IPU_QUEUE_D2H), 0);
	assert_int_equal(rec_count(r), n0);
	assert_int_equal(th_dma_desc(t, IPU_QUEUE_D2H, 0)->status, 0);
	rec_free_after(r, n0);
}

/* Window 0: v1's device, every effect complete when the write returns. */
static void test_window_0_acts_before_the_write_returns(void **state)
{
	struct rec *r = rec_new(0, "hang_dma=1,late_completion");
	struct th *t = &r->t;

	(void)state;
	th_ring(t, IPU_QUEUE_D2H, 16);
	d2h_put(t, 0, IPU_DMA_F_IRQ);
	wr32(t, QREG(IPU_QUEUE_D2H, IPU_Q_TAIL), 1);
	while (emu_dev_stalled(t->dev) != 1)
		sched_yield();
	wr32(t, QREG(IPU_QUEUE_D2H, IPU_Q_CTRL), 0);
	assert_int_equal(qstatus(t, IPU_QUEUE_D2H), 0);
	assert_int_equal(th_dma_desc(t, IPU_QUEUE_D2H, 0)->status,
			 IPU_DESC_DONE | IPU_DESC_E_RESET);
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(rd32(t, IPU_REG_RESET_COUNT), 1);
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	rec_free_after(r, rec_count(r));
}

/*
 * never_idle (a hung device): no stop finishes, not even window 0's at
 * the write's return; lifting the fault lets the stops finish, and a soft
 * reset resets the rings whatever it says.
 */
static void test_never_idle_keeps_every_ring_from_stopping(void **state)
{
	struct rec *r = rec_new(0, "never_idle");
	struct th *t = &r->t;
	uint64_t since;

	(void)state;
	th_ring(t, IPU_QUEUE_D2H, 16);
	th_ring(t, IPU_QUEUE_H2D, 16);
	wr64(t, GREG(IPU_GQ_BASE), GUEST_BASE + G_RING(GQ));
	wr32(t, GREG(IPU_GQ_SIZE), 4);
	wr64(t, GREG(IPU_GQ_WB_ADDR), GUEST_BASE + G_WB(GQ));
	wr32(t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
	wr32(t, QREG(IPU_QUEUE_D2H, IPU_Q_CTRL), 0);
	wr32(t, GREG(IPU_GQ_CTRL), 0);
	assert_int_equal(qstatus(t, IPU_QUEUE_D2H), IPU_Q_STATUS_ENABLED);
	assert_int_equal(rd32(t, GREG(IPU_GQ_STATUS)), IPU_Q_STATUS_ENABLED);
	/* Lifted: both stops finish. */
	assert_int_equal(emu_dev_fault(t->dev, "never_idle=0"), 0);
	since = now_us();
	wait_stopped(t, IPU_QUEUE_D2H, since);
	wait_reg(t, GREG(IPU_GQ_STATUS), ~0u, 0, since);
	/* Again; a soft reset ends the stop that never finished. */
	assert_int_equal(emu_dev_fault(t->dev, "never_idle"), 0);
	wr32(t, QREG(IPU_QUEUE_H2D, IPU_Q_CTRL), 0);
	assert_int_equal(qstatus(t, IPU_QUEUE_H2D), IPU_Q_STATUS_ENABLED);
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(rd32(t, IPU_REG_RESET_COUNT), 1);
	assert_int_equal(qstatus(t, IPU_QUEUE_H2D), 0);
	rec_free_after(r, rec_count(r));
}

/* rand:N draws each write's window from [0, N]: every stop still ends
 * within the bound, and some take longer than others. */
static void test_a_random_window_per_write(void **state)
{
	struct emu_dev_opts o = { .mem_size = 1u << 20 };
	struct rec *r;
	uint64_t start, took, shortest = UINT64_MAX, longest = 0;
	unsigned int i;

	(void)state;
	assert_int_equal(emu_dev_posted_window_parse("rand:20000", &o), 0);
	assert_int_equal(o.posted_window_us, 20000);
	assert_true(o.posted_window_rand);
	r = rec_new_opts(&o);
	for (i = 0; i < 40; i++) {
		th_ring(&r->t, IPU_QUEUE_H2D, 16);
		wr32(&r->t, QREG(IPU_QUEUE_H2D, IPU_Q_CTRL), 0);
		start = now_us();
		wait_stopped(&r->t, IPU_QUEUE_H2D, start);
		took = now_us() - start;
		if (took < shortest)
			shortest = took;
		if (took > longest)
			longest = took;
	}
	/* 40 draws from [0, 20 ms]: all within 5 ms of one another has a
	 * chance of about 40 * 0.25^39. */
	assert_true(longest - shortest > 5000);
	rec_free_after(r, 0);
}

static void test_the_option_s_syntax(void **state)
{
	static const char *const bad[] = {
		"", "rand:", "-1", "+5", " 5", "5 ", "1000001", "12x",
		"rand:-1", "rand:1000001", "random:5", "rand5", "0x10",
		"99999999999999999999",
	};
	struct emu_dev_opts o = { .posted_window_us = 7 };
	struct emu_dev *dev = NULL;
	struct emu_host_ops ops = {
		.dma_read = fh_dma_read, .dma_write = fh_dma_write,
		.irq = fh_irq,
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(emu_dev_posted_window_parse(bad[i], &o), -EINVAL);
		assert_int_equal(o.posted_window_us, 7);
		assert_false(o.posted_window_rand);
	}
	assert_int_equal(emu_dev_posted_window_parse("0", &o), 0);
	assert_int_equal(o.posted_window_us, 0);
	assert_int_equal(emu_dev_posted_window_parse("500000", &o), 0);
	assert_int_equal(o.posted_window_us, 500000);
	/* Half the spec's stop bound at most (IPU_STOP_TIMEOUT_MS). */
	assert_int_equal(emu_dev_posted_window_parse("500001", &o), -EINVAL);
	assert_int_equal(emu_dev_posted_window_parse("1000000", &o), -EINVAL);
	assert_int_equal(o.posted_window_us, 500000);
	assert_false(o.posted_window_rand);
	assert_int_equal(emu_dev_posted_window_parse("rand:0", &o), 0);
	assert_int_equal(o.posted_window_us, 0);
	assert_true(o.posted_window_rand);
	/* A device refuses a window beyond the bound. */
	o = (struct emu_dev_opts){ .mem_size = 1u << 20,
				   .posted_window_us = 500001 };
	assert_int_equal(emu_dev_create(&o, &ops, &dev), -EINVAL);
	/* The fault's syntax. */
	o.posted_window_us = 0;
	assert_int_equal(emu_dev_create(&o, &ops, &dev), 0);
	assert_int_equal(emu_dev_fault(dev, "late_completion"), 0);
	assert_int_equal(emu_dev_fault(dev, "late_completion=0"), 0);
	assert_int_equal(emu_dev_fault(dev, "late_completion=2"), -EINVAL);
	assert_int_equal(emu_dev_fault(dev, "never_idle"), 0);
	assert_int_equal(emu_dev_fault(dev, "never_idle=0"), 0);
	assert_int_equal(emu_dev_fault(dev, "never_idle=2"), -EINVAL);
	emu_dev_destroy(dev);
}

/* A test of one struct stop_case, named after both. */
#define STOP_TEST(f, c) { #f "/" #c, f, NULL, NULL, (void *)&c }

int main(void)
{
	const struct CMUnitTest tests[] = {
		STOP_TEST(test_a_stop_returns_before_its_fetched_work_completes, disable),
		STOP_TEST(test_a_stop_returns_before_its_fetched_work_completes, disable_late),
		STOP_TEST(test_a_stop_returns_before_its_fetched_work_completes, soft_reset),
		STOP_TEST(test_a_stop_returns_before_its_fetched_work_completes, soft_reset_late),
		STOP_TEST(test_a_stalled_transfer_stops_within_the_bound, disable),
		STOP_TEST(test_a_stalled_transfer_stops_within_the_bound, soft_reset),
		cmocka_unit_test(test_a_hung_launch_stops_within_the_bound),
		cmocka_unit_test(test_a_launch_its_reset_found_waiting_does_not_run),
		cmocka_unit_test(test_the_gather_ring_s_disable_is_posted),
		cmocka_unit_test(test_reads_see_every_earlier_write),
		cmocka_unit_test(test_a_boot_is_posted_and_a_second_one_refused),
		cmocka_unit_test(test_flr_ends_a_late_completion_at_once),
		cmocka_unit_test(test_window_0_acts_before_the_write_returns),
		cmocka_unit_test(test_never_idle_keeps_every_ring_from_stopping),
		cmocka_unit_test(test_a_random_window_per_write),
		cmocka_unit_test(test_the_option_s_syntax),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
