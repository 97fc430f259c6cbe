// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_dma.c - one DMA descriptor (docs/hardware.md section 4.2):
 * checked field by field in the spec's order, then the bytes moved
 * between the host (through the transport's DMA mappings) and device
 * memory. Both DMA queues' threads run this at once; they share only the
 * fault counters and statistics, under the device lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"

/* Injected faults for this descriptor, counted down under the lock. */
struct dma_faults {
	bool fail, corrupt, hang;
};

static void take_faults(struct emu_dev *dev, struct dma_faults *f)
{
	pthread_mutex_lock(&dev->lock);
	f->fail = dev->faults.fail_dma && --dev->faults.fail_dma == 0;
	f->corrupt = dev->faults.corrupt_dma && --dev->faults.corrupt_dma == 0;
	f->hang = dev->faults.hang_dma && --dev->faults.hang_dma == 0;
	pthread_mutex_unlock(&dev->lock);
}

/*
 * The hang_dma fault: the descriptor moves nothing and never completes
 * by itself (a stalled transfer); disabling the queue, a soft reset or
 * FLR ends it with E_RESET, as they abort the queue's work (q->abort).
 */
static uint32_t stall(struct emu_queue *q)
{
	emu_log(q->dev, "injected fault: DMA descriptor stalls until its queue stops");
	atomic_fetch_add(&q->dev->stalled, 1);
	emu_queue_wait_abort(q);
	atomic_fetch_sub(&q->dev->stalled, 1);
	return IPU_DESC_E_RESET;
}

/* The first and last byte inverted: a change any checksum sees. */
static void corrupt(uint8_t *p, uint32_t len)
{
	p[0] ^= 0xff;
	if (len > 1)
		p[len - 1] ^= 0xff;
}

/* A data access's outcome: BME refused it (the queue halts), the host
 * faulted it (the descriptor's error), or it was made. */
static uint32_t result(int err)
{
	if (err == -EPERM)
		return EMU_DESC_NO_BUS;
	return err ? IPU_DESC_E_HOST_FAULT : IPU_DESC_OK;
}

static uint32_t move(struct emu_queue *q, const struct ipu_dma_desc *d,
		     bool bad)
{
	struct emu_dev *dev = q->dev;
	uint8_t *at = dev->mem + d->dev_addr, *tmp;
	int err;

	if (q->q == IPU_QUEUE_H2D) {
		err = emu_bus_read(dev, EMU_BUS_DATA, d->host_addr, at,
				   d->length);
		if (!err && bad)
			corrupt(at, d->length);
		return result(err);
	}
	if (!bad) {
		err = emu_bus_write(dev, EMU_BUS_DATA, d->host_addr, at,
				    d->length);
		return result(err);
	}
	tmp = malloc(d->length);
	if (!tmp)
		return IPU_DESC_E_DATA;
	memcpy(tmp, at, d->length);
	corrupt(tmp, d->length);
	err = emu_bus_write(dev, EMU_BUS_DATA, d->host_addr, tmp, d->length);
	free(tmp);
	return result(err);
}

uint32_t emu_dma_process(struct emu_queue *q, const struct ipu_dma_desc *d)
{
	struct emu_dev *dev = q->dev;
	struct dma_faults f;
	uint32_t code;

	/* BME clear: v1 (--lenient bme) completed the descriptor with
	 * E_NO_MASTER; silicon cannot even write that status word. */
	if (!emu_bus_master(dev, EMU_BUS_DATA))
		return dev->opts.lenient & EMU_LENIENT_BME ?
			       IPU_DESC_E_NO_MASTER : EMU_DESC_NO_BUS;
	if (d->flags & ~IPU_DMA_F_ALL)
		return IPU_DESC_E_FLAGS;
	if (!d->length || d->length > IPU_DMA_MAX_LEN)
		return IPU_DESC_E_LENGTH;
	if (!emu_mem_range_ok(dev, d->dev_addr, d->length))
		return IPU_DESC_E_DEV_RANGE;
	take_faults(dev, &f);
	if (f.fail)
		return IPU_DESC_E_DATA;
	if (f.hang)
		return stall(q);
	/* late_completion: the data, too, moves at the end of the window. */
	if (!emu_posted_late_wait(q))
		return IPU_DESC_E_RESET;
	atomic_fetch_add(&dev->dma_busy, 1);
	code = move(q, d, f.corrupt);
	atomic_fetch_sub(&dev->dma_busy, 1);
	if (code == IPU_DESC_OK) {
		pthread_mutex_lock(&dev->lock);
		if (q->q == IPU_QUEUE_H2D)
			dev->h2d_bytes += d->length;
		else
			dev->d2h_bytes += d->length;
		pthread_mutex_unlock(&dev->lock);
	}
	return code;
}
