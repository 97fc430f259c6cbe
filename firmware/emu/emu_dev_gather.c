// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_gather.c - gather requests (docs/hardware.md section 4.4): a
 * run of a program split across instances needs the other instances'
 * operands, which only the host can fetch (its transport, MPI). The
 * firmware's allgather (struct ipufw_instances) becomes a request posted
 * on the gather ring of the IPU of the run's replica 0: the device puts
 * its own part in the staging area the INSTANCE context named, posts
 * the request (entry, TAIL, writeback, GATHER cause), and holds the run
 * until the host has written the other parts into the staging area and
 * rung GQ_ANSWER with the request's seq.
 *
 * The host is untrusted: an answer naming no pending request is logged
 * and ignored, a status that is no errno fails the gather with -EPROTO,
 * HEAD may only move over posted entries, and the device's own part is
 * never taken back from the staging area. No wait is unbounded: the
 * run's deadline, a reset or disable of its queues, a disable or reset of
 * the ring, or the device stopping ends it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "emu_internal.h"

_Static_assert(sizeof(struct ipu_gather_req) == 64, "gather request size");
_Static_assert(sizeof(struct ipu_gather_wb) == 16, "gather writeback size");
_Static_assert(IPU_GQ_BASE == IPU_Q_BASE && IPU_GQ_SIZE == IPU_Q_SIZE &&
	       IPU_GQ_WB_ADDR == IPU_Q_WB_ADDR, "ring configuration registers");

/* How often a waiting run looks at its launches (abort, deadline). */
#define GATHER_POLL_MS	10

/**
 * struct emu_gather_wait - one posted request, on its waiter's stack.
 * @seq: its number. @answered: the host answered (@status), or the ring
 * was disabled or reset (@gone).
 */
struct emu_gather_wait {
	struct emu_gather_wait *next;
	uint32_t seq;
	bool answered, gone;
	uint32_t status;
};

static bool ring_enabled(const struct emu_gring *g)
{
	return g->ctrl & IPU_Q_CTRL_ENABLE;
}

/* Every waiter fails (disable, reset): their requests are gone. */
static void drop_waiters_locked(struct emu_gring *g)
{
	struct emu_gather_wait *w;

	for (w = g->waiters; w; w = w->next)
		w->gone = true;
	pthread_cond_broadcast(&g->cond);
}

void emu_gather_init(struct emu_dev *dev)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&dev->gring.cond, &attr);
	pthread_condattr_destroy(&attr);
}

void emu_gather_destroy(struct emu_dev *dev)
{
	pthread_cond_destroy(&dev->gring.cond);
}

/*
 * A request being posted is written whole before the ring changes under
 * it (a disable, a reset): the ring never holds half a request, nor one
 * written after the ring was given back. Bounded: the host's accesses are
 * (the transport's limit).
 */
static void wait_posted_locked(struct emu_dev *dev)
{
	while (dev->gring.posting)
		pthread_cond_wait(&dev->gring.cond, &dev->lock);
}

void emu_gather_forget_locked(struct emu_dev *dev)
{
	struct emu_gring *g = &dev->gring;

	wait_posted_locked(dev);
	drop_waiters_locked(g);
	g->base = g->wb_addr = 0;
	g->size = g->ctrl = g->head = g->tail = 0;
	g->status = g->posted = g->answer_status = 0;
	g->posted64 = 0;
	g->stopping = false;
}

static uint32_t pending_locked(const struct emu_gring *g)
{
	const struct emu_gather_wait *w;
	uint32_t n = 0;

	for (w = g->waiters; w; w = w->next)
		n += !w->answered && !w->gone;
	return n;
}

/*
 * The no_gather fault: a device without the extension (CAPS lacks GATHER)
 * has no registers at 0x2c0: they read 0 and ignore writes, as any
 * unassigned offset does, so its ring never enables and a split run's
 * first gather fails with E_GATHER.
 */
uint32_t emu_gather_reg_read_locked(struct emu_dev *dev, uint32_t off)
{
	struct emu_gring *g = &dev->gring;

	if (dev->faults.no_gather)
		return 0;
	switch (off) {
	case IPU_GQ_BASE:
		return (uint32_t)g->base;
	case IPU_GQ_BASE + 4:
		return (uint32_t)(g->base >> 32);
	case IPU_GQ_SIZE:
		return g->size;
	case IPU_GQ_CTRL:
		return g->ctrl;
	case IPU_GQ_HEAD:
		return g->head;
	case IPU_GQ_TAIL:
		return g->tail;
	case IPU_GQ_WB_ADDR:
		return (uint32_t)g->wb_addr;
	case IPU_GQ_WB_ADDR + 4:
		return (uint32_t)(g->wb_addr >> 32);
	case IPU_GQ_STATUS:
		return g->status;
	case IPU_GQ_POSTED:
		return g->posted;
	case IPU_GQ_ANSWER_STATUS:
		return g->answer_status;
	case IPU_GQ_PENDING:
		return pending_locked(g);
	default:
		return 0;
	}
}

void emu_gather_stop_finish_locked(struct emu_dev *dev)
{
	dev->gring.stopping = false;
	dev->gring.status = 0;
}

/*
 * A disable: no request is posted after it (a request is posted whole,
 * under dev->lock, so none is ever half written), the waiting runs fail.
 * Posted (a window), STATUS.ENABLED clears when the posted thread
 * finishes the stop.
 */
static void enable_locked(struct emu_dev *dev, uint32_t val)
{
	struct emu_gring *g = &dev->gring;
	uint32_t w;

	if ((val & IPU_Q_CTRL_ENABLE) && (g->stopping || dev->resets_pending)) {
		emu_err_locked(dev, IPU_ERR_QUEUE_BUSY, IPU_NUM_QUEUES,
			       IPU_GQ_CTRL);
	} else if ((val & IPU_Q_CTRL_ENABLE) && !ring_enabled(g)) {
		if (!emu_ring_config_ok(g->base, g->size,
					sizeof(struct ipu_gather_req),
					g->wb_addr)) {
			emu_err_locked(dev, IPU_ERR_RING_CONFIG, IPU_NUM_QUEUES,
				       g->base);
			return;
		}
		g->head = g->tail = 0;
		g->posted = 0;
		g->posted64 = 0;
		g->status = IPU_Q_STATUS_ENABLED;
		g->ctrl = IPU_Q_CTRL_ENABLE;
	} else if (!(val & IPU_Q_CTRL_ENABLE) && ring_enabled(g)) {
		g->ctrl = 0;
		drop_waiters_locked(g);
		w = emu_posted_window_locked(dev);
		if (!w && !dev->faults.never_idle) {
			/* v1: the ring is the host's when the write returns. */
			wait_posted_locked(dev);
			g->status = 0;
			return;
		}
		g->stopping = true;
		g->stop_at = emu_now_us() + w;
		emu_posted_kick_locked(dev);
	}
}

/* HEAD may move forward over posted entries only. */
static void head_locked(struct emu_dev *dev, uint32_t val)
{
	struct emu_gring *g = &dev->gring;

	if (!ring_enabled(g))
		return;
	if (val >= g->size ||
	    (val - g->head) % g->size > (g->tail - g->head) % g->size) {
		emu_err_locked(dev, IPU_ERR_BAD_TAIL, IPU_NUM_QUEUES, val);
		return;
	}
	g->head = val;
	pthread_cond_broadcast(&g->cond);
}

/* The doorbell: @seq's request is answered with GQ_ANSWER_STATUS. */
static void answer_locked(struct emu_dev *dev, uint32_t seq)
{
	struct emu_gring *g = &dev->gring;
	struct emu_gather_wait *w;

	for (w = g->waiters; w; w = w->next)
		if (w->seq == seq && !w->answered && !w->gone)
			break;
	if (!w) {
		/* Stale, duplicate or invented: nothing is waiting for it. */
		emu_err_locked(dev, IPU_ERR_GATHER, seq, g->answer_status);
		return;
	}
	w->answered = true;
	w->status = g->answer_status;
	if (w->status > IPU_GQ_MAX_ERRNO) {
		emu_err_locked(dev, IPU_ERR_GATHER, seq, g->answer_status);
		w->status = EPROTO;
	}
	pthread_cond_broadcast(&g->cond);
}

void emu_gather_reg_write_locked(struct emu_dev *dev, uint32_t off,
				 uint32_t val)
{
	struct emu_gring *g = &dev->gring;
	struct emu_ring_config rc = {
		.base = &g->base, .size = &g->size, .wb_addr = &g->wb_addr,
	};

	if (dev->faults.no_gather)
		return;
	/* BASE, SIZE and WB_ADDR sit where the other queues have theirs. */
	if (emu_ring_config_write_locked(dev, IPU_NUM_QUEUES,
					 ring_enabled(g) || g->stopping, &rc,
					 off, val))
		return;
	switch (off) {
	case IPU_GQ_CTRL:
		enable_locked(dev, val);
		break;
	case IPU_GQ_HEAD:
		head_locked(dev, val);
		break;
	case IPU_GQ_ANSWER_STATUS:
		g->answer_status = val;
		break;
	case IPU_GQ_ANSWER:
		answer_locked(dev, val);
		break;
	default:
		break;
	}
}

static int allgather(void *ctx, void *buf, size_t part, char *msg,
		     size_t msglen);

void emu_gather_call_init(struct emu_gather_call *c,
			  const struct emu_instance *li)
{
	c->inst.index = li->index;
	c->inst.count = li->count;
	c->inst.allgather = allgather;
	c->inst.ctx = c;
	c->staging = li->staging;
	c->staging_size = li->staging_size;
	c->collective = 0;
	c->failed = false;
}

static void wait_tick_locked(struct emu_dev *dev)
{
	uint64_t at = emu_now_ms() + GATHER_POLL_MS;
	struct timespec ts = {
		.tv_sec = (time_t)(at / 1000),
		.tv_nsec = (long)(at % 1000) * 1000000,
	};

	pthread_cond_timedwait(&dev->gring.cond, &dev->lock, &ts);
}

/* Whether the run's wait must end: its stop, or the device's. */
static bool abandoned_locked(struct emu_gather_call *c)
{
	return c->dev->stopping || atomic_load(&c->dev->off_bus) ||
	       c->stop(c->stop_arg);
}

/*
 * The bad_gather fault, once: the request names what the host never gave
 * (docs/hardware.md section 11); the run then waits for its answer as for
 * any other, which a host that checks gives at once (EPROTO).
 */
static void lie_locked(struct emu_dev *dev, struct ipu_gather_req *req)
{
	switch (dev->faults.bad_gather) {
	case EMU_BAD_GATHER_OWNER:
		req->owner++;
		break;
	case EMU_BAD_GATHER_BYTES:
		req->bytes = UINT64_MAX;
		break;
	case EMU_BAD_GATHER_STAGING:
		req->staging += 64;
		break;
	case EMU_BAD_GATHER_NONE:
		return;
	}
	emu_log(dev, "injected fault: gather request %u lies", req->seq);
	dev->faults.bad_gather = EMU_BAD_GATHER_NONE;
}

/* A write of the ring at @addr failed with @err: the ring halts, BME
 * refused it (IPU_ERR_BUS_MASTER, info the ring's id) or the host faulted. */
static void ring_write_failed_locked(struct emu_dev *dev, int err,
				     uint64_t addr)
{
	struct emu_gring *g = &dev->gring;

	g->status |= IPU_Q_STATUS_HALTED;
	if (err == -EPERM)
		emu_err_locked(dev, IPU_ERR_BUS_MASTER, IPU_NUM_QUEUES, addr);
	else
		emu_err_locked(dev, IPU_ERR_WRITEBACK,
			       IPU_NUM_QUEUES << 16 | g->tail, addr);
}

/* The request's writes are over: a disable or reset may go on. */
static void posted_locked(struct emu_dev *dev)
{
	dev->gring.posting = false;
	pthread_cond_broadcast(&dev->gring.cond);
	pthread_cond_broadcast(&dev->idle);
}

/*
 * Post the request for part @part (dev->lock held, dropped while host
 * memory is written: emu_bus_write_unlocked(), the host may answer late):
 * wait for a free entry, write it, move TAIL, write back, raise GATHER.
 * 0, or -errno with @msg. One request is posted at a time (g->posting); a
 * disable or reset that comes meanwhile waits for it (wait_posted_locked()),
 * so the entry is written whole, then TAIL moves, all before the ring
 * changes.
 */
static int post_locked(struct emu_gather_call *c, uint64_t part,
		       struct emu_gather_wait *w, char *msg, size_t msglen)
{
	struct emu_dev *dev = c->dev;
	struct emu_gring *g = &dev->gring;
	struct ipu_gather_req req = {
		.group = c->d->group,
		.owner = c->d->owner,
		.replica = c->d->replica,
		.staging = c->staging,
		.bytes = part,
		.index = c->inst.index,
		.count = c->inst.count,
		.collective = c->collective,
	};
	struct ipu_gather_wb wb;
	uint64_t addr;
	int err;

	for (;;) {
		if (abandoned_locked(c))
			return -ECANCELED;
		if (dev->faults.no_gather) {
			snprintf(msg, msglen, "%s has no gather extension (the no_gather fault)",
				 dev->name);
			return -ENOTCONN;
		}
		if (!ring_enabled(g) || (g->status & IPU_Q_STATUS_HALTED)) {
			snprintf(msg, msglen, "the host has no gather ring enabled on %s",
				 dev->name);
			return -ENOTCONN;
		}
		if (!g->posting && (g->tail + 1) % g->size != g->head)
			break;
		wait_tick_locked(dev);	/* full: the host takes some */
	}
	if (++g->seq == 0)
		g->seq = 1;
	req.seq = g->seq;
	lie_locked(dev, &req);
	addr = g->base + (uint64_t)g->tail * sizeof(req);
	g->posting = true;
	err = emu_bus_write_unlocked(dev, EMU_BUS_CONTROL, addr, &req,
				     sizeof(req));
	if (err) {
		ring_write_failed_locked(dev, err, addr);
		posted_locked(dev);
		snprintf(msg, msglen, "%s cannot write its gather ring", dev->name);
		return -EIO;
	}
	if (!ring_enabled(g)) {
		/* Disabled while the entry was written (a reset waits for
		 * it): not posted, TAIL stays; the entry is a free one. */
		posted_locked(dev);
		snprintf(msg, msglen, "%s's gather ring was disabled or reset",
			 dev->name);
		return -ENOTCONN;
	}
	w->seq = req.seq;
	w->next = g->waiters;
	g->waiters = w;
	g->tail = (g->tail + 1) % g->size;
	g->posted++;
	g->posted64++;
	wb.tail = g->tail;
	wb.pending = pending_locked(g);
	wb.posted = g->posted64;
	addr = g->wb_addr;
	err = addr ? emu_bus_write_unlocked(dev, EMU_BUS_CONTROL, addr, &wb,
					    sizeof(wb)) : 0;
	if (err)
		ring_write_failed_locked(dev, err, addr);
	emu_irq_set_locked(dev, IPU_IRQ_GATHER);
	posted_locked(dev);
	return 0;
}

static void unlink_locked(struct emu_gring *g, struct emu_gather_wait *w)
{
	struct emu_gather_wait **pp;

	for (pp = &g->waiters; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			return;
		}
	}
}

/* The firmware's allgather (struct ipufw_instances): @buf holds
 * count * @part bytes, this instance's part at index * @part. */
static int allgather(void *ctx, void *buf, size_t part, char *msg,
		     size_t msglen)
{
	struct emu_gather_call *c = ctx;
	struct emu_dev *dev = c->dev;
	struct emu_gather_wait w = { 0 };
	uint64_t total, own = (uint64_t)c->inst.index * part;
	uint32_t i;
	int rc;

	total = (uint64_t)c->inst.count * part;
	if (!part || total / c->inst.count != part || total > c->staging_size) {
		snprintf(msg, msglen,
			 "the gather needs %zu bytes from each of %u instances; the staging area has %llu",
			 part, c->inst.count, (unsigned long long)c->staging_size);
		c->failed = true;
		return -ENOSPC;
	}
	memcpy(dev->mem + c->staging + own, (uint8_t *)buf + own, part);

	pthread_mutex_lock(&dev->lock);
	rc = post_locked(c, part, &w, msg, msglen);
	while (!rc && !w.answered && !w.gone && !abandoned_locked(c))
		wait_tick_locked(dev);
	if (!rc) {
		unlink_locked(&dev->gring, &w);
		if (w.answered && w.status) {
			snprintf(msg, msglen, "the host failed gather %u with errno %u",
				 w.seq, w.status);
			rc = -(int)w.status;
		} else if (!w.answered && abandoned_locked(c)) {
			rc = -ECANCELED;	/* the run's stop says why */
		} else if (w.gone) {
			snprintf(msg, msglen, "%s's gather ring was disabled or reset",
				 dev->name);
			rc = -ENOTCONN;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	if (rc) {
		c->failed = rc != -ECANCELED;
		return rc;
	}
	/* The other instances' parts; this instance's own stays its own. */
	for (i = 0; i < c->inst.count; i++)
		if (i != c->inst.index)
			memcpy((uint8_t *)buf + (uint64_t)i * part,
			       dev->mem + c->staging + (uint64_t)i * part, part);
	c->collective++;
	return 0;
}
