// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_queue.c - the rings (docs/hardware.md section 4): their
 * registers, enabling and disabling, and one thread per queue that takes
 * descriptors from HEAD to TAIL, has them processed (emu_dev_dma.c,
 * emu_dev_cmd.c), writes their status word, the writeback record and the
 * interrupt, in that order.
 *
 * Everything the host wrote is checked before use: BASE, SIZE and WB_ADDR
 * at ENABLE, TAIL at each write, the descriptors by their processors. A
 * ring the device cannot read or write halts its queue; nothing the host
 * writes makes a thread misbehave.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "emu_internal.h"

/* The layouts of docs/hardware.md, as hw.h declares them. */
_Static_assert(sizeof(struct ipu_dma_desc) == 32, "DMA descriptor size");
_Static_assert(sizeof(struct ipu_cmd_desc) == 64, "command descriptor size");
_Static_assert(sizeof(struct ipu_queue_wb) == 16, "writeback size");
_Static_assert(offsetof(struct ipu_dma_desc, status) == IPU_DESC_STATUS_OFF,
	       "DMA status offset");
_Static_assert(offsetof(struct ipu_cmd_desc, status) == IPU_CQ_STATUS_OFF,
	       "command status offset");
_Static_assert(offsetof(struct ipu_cmd_desc, group) == 0x30, "group offset");
_Static_assert(sizeof(struct ipu_fw_header) == IPU_FW_HEADER_SIZE,
	       "firmware header size");
/* Registers and descriptors are little-endian; the model copies them as
 * host integers. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "little-endian host");

static const uint32_t status_off[IPU_NUM_QUEUES] = {
	IPU_DESC_STATUS_OFF, IPU_DESC_STATUS_OFF, IPU_CQ_STATUS_OFF
};
static const uint32_t reset_code[IPU_NUM_QUEUES] = {
	IPU_DESC_E_RESET, IPU_DESC_E_RESET, IPU_CQ_E_RESET
};
static const uint32_t cause_bit[IPU_NUM_QUEUES] = {
	IPU_IRQ_H2D, IPU_IRQ_D2H, IPU_IRQ_CMD
};

static bool enabled(const struct emu_queue *q)
{
	return q->ctrl & IPU_Q_CTRL_ENABLE;
}

static bool runnable_locked(const struct emu_queue *q)
{
	return enabled(q) && !(q->status & IPU_Q_STATUS_HALTED) &&
	       q->head != q->tail && !atomic_load(&q->abort) &&
	       !atomic_load(&q->dev->off_bus);
}

static void halt_locked(struct emu_queue *q, uint32_t code, uint32_t idx,
			uint64_t addr)
{
	q->status |= IPU_Q_STATUS_HALTED;
	emu_err_locked(q->dev, code, q->q << 16 | idx, addr);
}

/* An access at @addr failed with @err: BME refused it (IPU_ERR_BUS_MASTER,
 * info the queue) or the host faulted it (@code). */
static void halt_access_locked(struct emu_queue *q, int err, uint32_t code,
			       uint32_t idx, uint64_t addr)
{
	if (err != -EPERM) {
		halt_locked(q, code, idx, addr);
		return;
	}
	q->status |= IPU_Q_STATUS_HALTED;
	emu_err_locked(q->dev, IPU_ERR_BUS_MASTER, q->q, addr);
}

/*
 * A status word or writeback record of @q's thread, dev->lock dropped
 * (emu_bus_write_unlocked()): a client may answer its DMA_WRITE late, and
 * QEMU answers from a main loop that needs the BQL, which a vCPU holds
 * while it reads a register of this device. q->busy stays set meanwhile,
 * so a disable, soft reset or FLR waits for the write as for the data,
 * and the descriptor's registers change only before or after it.
 */
static int bus_write_unlocked(struct emu_queue *q, uint64_t addr,
			      const void *src, size_t len)
{
	return emu_bus_write_unlocked(q->dev, EMU_BUS_CONTROL, addr, src, len);
}

static void writeback_locked(struct emu_queue *q)
{
	struct ipu_queue_wb wb = {
		.head = q->head,
		.errors = q->errors,
		.completed = q->completed64,
	};
	uint64_t at = q->wb_addr;
	int err;

	/* Off the bus since the status word (the lock was dropped). */
	if (!at || atomic_load(&q->dev->off_bus))
		return;
	err = bus_write_unlocked(q, at, &wb, sizeof(wb));
	if (err)
		halt_access_locked(q, err, IPU_ERR_WRITEBACK, wb.head, at);
}

/*
 * The bad_writeback fault, as the descriptor at HEAD starts: a writeback
 * whose head lies (@mode), and the queue's interrupt, before anything
 * moved. The descriptor then waits for the host's next TAIL write (or a
 * disable or reset), so a driver that believed the lie has returned and
 * let go of the buffers when the device touches them: a later transfer
 * shows it, without any race. False when the queue halted instead (the
 * writeback could not be written).
 */
static bool lie_locked(struct emu_queue *q, enum emu_bad_wb mode)
{
	struct emu_dev *dev = q->dev;
	struct ipu_queue_wb wb = {
		.errors = q->errors,
		.completed = q->completed64,
	};
	uint64_t at;
	int err;

	switch (mode) {
	case EMU_BAD_WB_EARLY:
		wb.head = q->tail;
		break;
	case EMU_BAD_WB_BEYOND:
		wb.head = (q->tail + 1) % q->size;
		break;
	case EMU_BAD_WB_RANGE:
		wb.head = q->size + q->head;
		break;
	default:
		wb.head = (q->head + q->size - 1) % q->size;
		break;
	}
	emu_log(dev, "injected fault: queue %u writes back head %u (HEAD %u, TAIL %u)",
		q->q, wb.head, q->head, q->tail);
	at = q->wb_addr;
	err = at ? bus_write_unlocked(q, at, &wb, sizeof(wb)) : 0;
	if (err) {
		halt_access_locked(q, err, IPU_ERR_WRITEBACK, q->head, at);
		return false;
	}
	emu_irq_set_locked(dev, cause_bit[q->q]);
	q->held = true;
	while (q->held && !atomic_load(&q->abort) && !dev->stopping &&
	       !atomic_load(&dev->off_bus))
		pthread_cond_wait(&q->cond, &dev->lock);
	q->held = false;
	return true;
}

/* Descriptor @idx at @addr finished with @code: status word, HEAD,
 * counters, then the writeback and interrupt at the end of a batch. */
static void complete_locked(struct emu_queue *q, uint32_t idx, uint64_t addr,
			    uint32_t code, uint32_t flags)
{
	struct emu_dev *dev = q->dev;
	uint32_t st = IPU_DESC_DONE | code;
	int err;

	if (atomic_load(&dev->off_bus))
		return;
	err = bus_write_unlocked(q, addr + status_off[q->q], &st, sizeof(st));
	if (err) {
		halt_access_locked(q, err, IPU_ERR_WRITEBACK, idx,
				   addr + status_off[q->q]);
		return;
	}
	q->head = (idx + 1) % q->size;
	q->completed++;
	q->completed64++;
	if (code) {
		q->errors++;
		emu_err_locked(dev, IPU_ERR_DESC, q->q << 16 | idx, st);
	}
	if ((flags & 1) || q->head == q->tail)
		writeback_locked(q);
	if ((flags & 1) && !(q->status & IPU_Q_STATUS_HALTED))
		emu_irq_set_locked(dev, cause_bit[q->q]);
}

static void *queue_thread(void *arg)
{
	struct emu_queue *q = arg;
	struct emu_dev *dev = q->dev;
	union {
		struct ipu_dma_desc dma;
		struct ipu_cmd_desc cmd;
	} d;
	uint32_t idx, code, flags;
	uint64_t addr;
	int err;

	pthread_mutex_lock(&dev->lock);
	for (;;) {
		while (!dev->stopping && !runnable_locked(q))
			pthread_cond_wait(&q->cond, &dev->lock);
		if (dev->stopping)
			break;
		idx = q->head;
		addr = q->base + (uint64_t)idx * q->dsize;
		q->busy = true;
		q->status |= IPU_Q_STATUS_BUSY;
		if (dev->faults.bad_writeback) {
			enum emu_bad_wb mode = dev->faults.bad_writeback;

			dev->faults.bad_writeback = EMU_BAD_WB_NONE;
			if (!lie_locked(q, mode)) {
				/* Halted: the descriptor is not started. */
				q->busy = false;
				q->status &= ~IPU_Q_STATUS_BUSY;
				pthread_cond_broadcast(&dev->idle);
				continue;
			}
		}
		pthread_mutex_unlock(&dev->lock);

		err = emu_bus_read(dev, EMU_BUS_CONTROL, addr, &d, q->dsize);
		if (err) {
			code = 0;
			flags = 0;
		} else if (q->q == IPU_QUEUE_CMD) {
			code = (uint32_t)emu_cmd_process(q, &d.cmd);
			flags = d.cmd.flags;
		} else {
			code = emu_dma_process(q, &d.dma);
			flags = d.dma.flags;
		}

		pthread_mutex_lock(&dev->lock);
		if (!err)
			emu_posted_late_wait_locked(q);
		if (err)
			halt_access_locked(q, err, IPU_ERR_RING_FETCH, idx, addr);
		else if (q->discard)
			;	/* reset: no status from here */
		else if (code == EMU_DESC_NO_BUS)
			halt_access_locked(q, -EPERM, 0, idx, d.dma.host_addr);
		else
			complete_locked(q, idx, addr, code, flags);
		q->busy = false;
		q->status &= ~IPU_Q_STATUS_BUSY;
		pthread_cond_broadcast(&dev->idle);
	}
	pthread_mutex_unlock(&dev->lock);
	return NULL;
}

bool emu_ring_config_ok(uint64_t base, uint32_t size, uint32_t dsize,
			uint64_t wb_addr)
{
	uint64_t bytes = (uint64_t)size * dsize;

	return size >= IPU_RING_MIN && size <= IPU_RING_MAX &&
	       !(size & (size - 1)) && base % IPU_RING_ALIGN == 0 &&
	       base <= UINT64_MAX - bytes && wb_addr % 16 == 0 &&
	       wb_addr <= UINT64_MAX - 16;
}

/* Check the ring at ENABLE; 0 or the error to log. */
static uint32_t ring_check_locked(const struct emu_queue *q)
{
	struct emu_dev *dev = q->dev;

	if (!emu_ring_config_ok(q->base, q->size, q->dsize, q->wb_addr))
		return IPU_ERR_RING_CONFIG;
	if (q->q == IPU_QUEUE_CMD &&
	    (dev->fw_status & IPU_FW_STATE_MASK) != IPU_FW_STATE_READY)
		return IPU_ERR_NO_FIRMWARE;
	return 0;
}

/* Wait until no queue thread is busy (dev->lock held, dropped meanwhile). */
static void wait_idle_locked(struct emu_dev *dev, struct emu_queue *only)
{
	unsigned int i;
	bool busy;

	do {
		busy = false;
		for (i = 0; i < IPU_NUM_QUEUES; i++)
			if ((!only || only == &dev->queues[i]) &&
			    dev->queues[i].busy)
				busy = true;
		if (busy)
			pthread_cond_wait(&dev->idle, &dev->lock);
	} while (busy);
}

/* Stop the work of @q in progress: a launch is cancelled (it completes
 * with E_RESET), a DMA descriptor finishes; new descriptors wait. */
static void abort_locked(struct emu_queue *q, bool reset)
{
	atomic_store(&q->abort, true);
	q->discard = reset;
	pthread_cond_broadcast(&q->cond);
}

/*
 * A posted disable: CTRL reads 0 at once and nothing more is fetched; the
 * descriptor in progress goes on (a launch is cancelled) and completes
 * as usual, and the posted thread clears STATUS.ENABLED once @w us have
 * passed and the queue is idle.
 */
static void disable_posted_locked(struct emu_queue *q, uint32_t w)
{
	struct emu_dev *dev = q->dev;

	q->stopping = true;
	q->stop_at = emu_now_us() + w;
	q->late = emu_posted_take_late_locked(dev) && q->busy;
	if (q->busy) {
		abort_locked(q, false);
		emu_run_kick();
	}
	emu_posted_kick_locked(dev);
}

void emu_queue_stop_finish_locked(struct emu_queue *q)
{
	q->stopping = false;
	q->late = false;
	/* A soft reset in progress keeps every queue from fetching. */
	if (!q->dev->resets_pending && !q->dev->reset_writing)
		atomic_store(&q->abort, false);
	q->status &= ~IPU_Q_STATUS_ENABLED;
	if (q->q == IPU_QUEUE_CMD)
		emu_cmd_ctx_forget_locked(q->dev);
}

static void enable_locked(struct emu_queue *q, uint32_t val)
{
	struct emu_dev *dev = q->dev;
	uint32_t err, w;

	if (val & IPU_Q_CTRL_ENABLE && (q->stopping || dev->resets_pending)) {
		/* The ring is the device's until the stop (or the soft
		 * reset) is over. */
		emu_err_locked(dev, IPU_ERR_QUEUE_BUSY, q->q, IPU_Q_CTRL);
	} else if (val & IPU_Q_CTRL_ENABLE && !enabled(q)) {
		err = ring_check_locked(q);
		if (err) {
			emu_err_locked(dev, err, q->q, q->base);
			return;
		}
		q->head = q->tail = 0;
		q->completed = q->errors = 0;
		q->completed64 = 0;
		q->status = IPU_Q_STATUS_ENABLED;
		q->ctrl = IPU_Q_CTRL_ENABLE;
		pthread_cond_broadcast(&q->cond);
	} else if (!(val & IPU_Q_CTRL_ENABLE) && enabled(q)) {
		q->ctrl = 0;
		w = emu_posted_window_locked(dev);
		/* never_idle: the posted stop, which it keeps from finishing. */
		if (w || dev->faults.never_idle) {
			disable_posted_locked(q, w);
			return;
		}
		if (q->busy) {
			abort_locked(q, false);
			emu_run_kick();
			wait_idle_locked(dev, q);
			atomic_store(&q->abort, false);
		}
		q->status &= ~IPU_Q_STATUS_ENABLED;
		if (q->q == IPU_QUEUE_CMD)
			emu_cmd_ctx_forget_locked(dev);
	}
}

uint32_t emu_queue_reg_read_locked(struct emu_dev *dev, unsigned int qi,
				   uint32_t off)
{
	struct emu_queue *q = &dev->queues[qi];

	switch (off) {
	case IPU_Q_BASE:
		return (uint32_t)q->base;
	case IPU_Q_BASE + 4:
		return (uint32_t)(q->base >> 32);
	case IPU_Q_SIZE:
		return q->size;
	case IPU_Q_CTRL:
		return q->ctrl;
	case IPU_Q_TAIL:
		return q->tail;
	case IPU_Q_HEAD:
		return q->head;
	case IPU_Q_WB_ADDR:
		return (uint32_t)q->wb_addr;
	case IPU_Q_WB_ADDR + 4:
		return (uint32_t)(q->wb_addr >> 32);
	case IPU_Q_STATUS:
		return q->status;
	case IPU_Q_COMPLETED:
		return q->completed;
	case IPU_Q_ERRORS:
		return q->errors;
	case IPU_Q_DEADLINE_MS:
		return q->deadline_ms;
	default:
		return 0;
	}
}

static void set_half(uint64_t *reg, uint32_t off, uint32_t val)
{
	if (off % 8)
		*reg = (*reg & 0xffffffffull) | (uint64_t)val << 32;
	else
		*reg = (*reg & ~0xffffffffull) | val;
}

bool emu_ring_config_write_locked(struct emu_dev *dev, unsigned int qi,
				  bool is_enabled, struct emu_ring_config *rc,
				  uint32_t off, uint32_t val)
{
	switch (off) {
	case IPU_Q_BASE:
	case IPU_Q_BASE + 4:
	case IPU_Q_SIZE:
	case IPU_Q_WB_ADDR:
	case IPU_Q_WB_ADDR + 4:
		break;
	default:
		return false;
	}
	if (is_enabled)
		emu_err_locked(dev, IPU_ERR_QUEUE_BUSY, qi, off);
	else if (off == IPU_Q_SIZE)
		*rc->size = val;
	else if (off < IPU_Q_SIZE)
		set_half(rc->base, off, val);
	else
		set_half(rc->wb_addr, off, val);
	return true;
}

/*
 * Ring overrun (docs/hardware.md 4.1, as NVMe's invalid doorbell write): a
 * TAIL that would take back entries the device owns, or publish more than
 * the free ones, lapping HEAD. Measured from HEAD, a valid TAIL never
 * lies before the current one; an unchanged TAIL is no error (a driver
 * may ring twice).
 */
static bool tail_laps_locked(const struct emu_queue *q, uint32_t val)
{
	return (val - q->head) % q->size < (q->tail - q->head) % q->size;
}

void emu_queue_reg_write_locked(struct emu_dev *dev, unsigned int qi,
				uint32_t off, uint32_t val)
{
	struct emu_queue *q = &dev->queues[qi];
	struct emu_ring_config rc = {
		.base = &q->base, .size = &q->size, .wb_addr = &q->wb_addr,
	};

	if (emu_ring_config_write_locked(dev, qi, enabled(q) || q->stopping,
					 &rc, off, val))
		return;
	switch (off) {
	case IPU_Q_CTRL:
		enable_locked(q, val);
		break;
	case IPU_Q_TAIL:
		if (!enabled(q))
			break;
		if (val >= q->size || tail_laps_locked(q, val)) {
			emu_err_locked(dev, IPU_ERR_BAD_TAIL, qi,
				       (uint64_t)q->head << 32 | val);
			break;
		}
		q->tail = val;
		q->held = false;
		pthread_cond_broadcast(&q->cond);
		break;
	case IPU_Q_DEADLINE_MS:
		if (qi == IPU_QUEUE_CMD)
			q->deadline_ms = val;
		break;
	default:
		break;
	}
}

void emu_queue_wait_abort(struct emu_queue *q)
{
	struct emu_dev *dev = q->dev;

	pthread_mutex_lock(&dev->lock);
	while (!atomic_load(&q->abort))
		pthread_cond_wait(&q->cond, &dev->lock);
	pthread_mutex_unlock(&dev->lock);
}

void emu_queues_kick_locked(struct emu_dev *dev)
{
	unsigned int i;

	for (i = 0; i < IPU_NUM_QUEUES; i++)
		pthread_cond_broadcast(&dev->queues[i].cond);
}

static void regs_reset(struct emu_queue *q)
{
	q->base = q->wb_addr = 0;
	q->size = q->ctrl = q->tail = q->head = 0;
	q->status = q->completed = q->errors = 0;
	q->completed64 = 0;
	q->deadline_ms = q->q == IPU_QUEUE_CMD ? IPU_CQ_DEFAULT_DEADLINE_MS : 0;
	q->stopping = false;
	q->late = false;
}

/* What a reset tells a ring's published descriptors, taken under the
 * lock: the ring as it stood when its queue went idle. */
struct reset_words {
	uint64_t base;
	uint32_t head, tail, size, dsize;
	bool tell;
};

/*
 * Write E_RESET into the published descriptors of @rw (dev->lock held,
 * dropped meanwhile). The host may take its time over each word (see
 * emu_bus_write_unlocked()), so no register access waits for them. While
 * they go out, dev->reset_writing is set: the queues keep their abort
 * flags (no thread fetches), another reset waits for this one, and the
 * registers keep their values until the words are written, so RESET_COUNT
 * (a soft reset's end) moves only after them.
 */
static void reset_words_locked(struct emu_dev *dev,
			       const struct reset_words *rw)
{
	uint32_t idx, st;
	unsigned int i;

	dev->reset_writing = true;
	pthread_mutex_unlock(&dev->lock);
	for (i = 0; i < IPU_NUM_QUEUES; i++) {
		if (!rw[i].tell)
			continue;
		st = IPU_DESC_DONE | reset_code[i];
		/* A ring the host unmapped meanwhile cannot be told. */
		for (idx = rw[i].head; idx != rw[i].tail;
		     idx = (idx + 1) % rw[i].size)
			(void)emu_bus_write(dev, EMU_BUS_CONTROL,
					    rw[i].base +
						    (uint64_t)idx * rw[i].dsize +
						    status_off[i],
					    &st, sizeof(st));
	}
	pthread_mutex_lock(&dev->lock);
	dev->reset_writing = false;
	pthread_cond_broadcast(&dev->idle);
}

void emu_queues_reset_locked(struct emu_dev *dev)
{
	struct reset_words rw[IPU_NUM_QUEUES];
	struct emu_queue *q;
	unsigned int i;

	/* Another reset is writing its words: this one comes after it. */
	while (dev->reset_writing)
		pthread_cond_wait(&dev->idle, &dev->lock);
	for (i = 0; i < IPU_NUM_QUEUES; i++)
		abort_locked(&dev->queues[i], true);
	emu_run_kick();
	wait_idle_locked(dev, NULL);
	for (i = 0; i < IPU_NUM_QUEUES; i++) {
		q = &dev->queues[i];
		rw[i] = (struct reset_words){
			.base = q->base, .head = q->head, .tail = q->tail,
			.size = q->size, .dsize = q->dsize,
			.tell = enabled(q) && !atomic_load(&dev->off_bus),
		};
	}
	reset_words_locked(dev, rw);
	for (i = 0; i < IPU_NUM_QUEUES; i++) {
		q = &dev->queues[i];
		regs_reset(q);
		q->discard = false;
		atomic_store(&q->abort, false);
	}
}

void emu_queues_quiesce_locked(struct emu_dev *dev, uint64_t until,
			       bool late)
{
	struct emu_queue *q;
	unsigned int i;

	for (i = 0; i < IPU_NUM_QUEUES; i++) {
		q = &dev->queues[i];
		if (late && q->busy) {
			q->late = true;
			if (q->stop_at < until)
				q->stop_at = until;
		}
		abort_locked(q, false);
	}
	emu_run_kick();
}

int emu_queues_start(struct emu_dev *dev)
{
	struct emu_queue *q;
	pthread_condattr_t attr;
	unsigned int i;
	int err;

	/* late_completion waits on it until a deadline. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	for (i = 0; i < IPU_NUM_QUEUES; i++) {
		q = &dev->queues[i];
		q->dev = dev;
		q->q = i;
		q->dsize = i == IPU_QUEUE_CMD ? sizeof(struct ipu_cmd_desc) :
						sizeof(struct ipu_dma_desc);
		regs_reset(q);
		atomic_init(&q->abort, false);
		pthread_cond_init(&q->cond, &attr);
	}
	pthread_condattr_destroy(&attr);
	for (i = 0; i < IPU_NUM_QUEUES; i++) {
		q = &dev->queues[i];
		err = -pthread_create(&q->thread, NULL, queue_thread, q);
		if (err) {
			emu_queues_stop(dev);
			return err;
		}
		q->started = true;
	}
	return 0;
}

void emu_queues_stop(struct emu_dev *dev)
{
	unsigned int i;

	pthread_mutex_lock(&dev->lock);
	dev->stopping = true;
	for (i = 0; i < IPU_NUM_QUEUES; i++)
		abort_locked(&dev->queues[i], true);
	emu_run_kick();
	pthread_mutex_unlock(&dev->lock);
	for (i = 0; i < IPU_NUM_QUEUES; i++) {
		if (dev->queues[i].started)
			pthread_join(dev->queues[i].thread, NULL);
		dev->queues[i].started = false;
	}
	for (i = 0; i < IPU_NUM_QUEUES; i++)
		pthread_cond_destroy(&dev->queues[i].cond);
}
