// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_dma.c - the PCIe IPU model's DMA queues (docs/hardware.md
 * section 4): scatter-gather both ways with odd sizes and alignments,
 * one interrupt and one writeback per batch, wrap-around, each
 * per-descriptor error (host fault, device range, length, flags, Bus
 * Master off), ring checks at ENABLE, halting on an unreadable ring, and
 * the fail_dma / corrupt_dma / hang_dma / bad_writeback faults.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		p[i] = (uint8_t)(seed >> 24);
	}
}

static struct th *ready(void)
{
	struct th *t = th_new();

	th_enable(t);
	th_ring(t, IPU_QUEUE_H2D, 16);
	th_ring(t, IPU_QUEUE_D2H, 16);
	return t;
}

static void test_scatter_gather_both_ways_with_odd_sizes(void **state)
{
	static const uint32_t seg[] = { 1, 4095, 3, 65537, 17 };
	struct th *t = ready();
	uint8_t *src = t->h.mem + G_DATA, *dst = t->h.mem + G_DATA + 0x100000;
	uint64_t host = GUEST_BASE + G_DATA + 1, dev = 7, total = 0;
	uint32_t i, n = sizeof(seg) / sizeof(seg[0]);

	(void)state;
	for (i = 0; i < n; i++)
		total += seg[i];
	fill(src + 1, total, 1);
	/* Host segments scattered (a gap of 5 bytes between them), device
	 * range contiguous from an odd address. */
	for (i = 0; i < n; i++) {
		th_dma_put(t, IPU_QUEUE_H2D, i, host, dev, seg[i],
			   i == n - 1 ? IPU_DMA_F_IRQ : 0);
		host += seg[i] + 5;
		dev += seg[i];
	}
	/* Lay the source out as the descriptors scatter it. */
	{
		uint8_t *lin = malloc(total);
		uint64_t at = 0, h = 1;

		memcpy(lin, src + 1, total);
		memset(src, 0, 0x90000);
		for (i = 0; i < n; i++) {
			memcpy(src + h, lin + at, seg[i]);
			at += seg[i];
			h += seg[i] + 5;
		}
		assert_true(th_kick_wait(t, IPU_QUEUE_H2D, n));
		for (i = 0; i < n; i++)
			assert_int_equal(th_dma_desc(t, 0, i)->status, IPU_DESC_DONE);
		{
			uint8_t *back = malloc(total);

			th_mem_read(t, 7, back, (uint32_t)total);
			assert_memory_equal(back, lin, total);
			free(back);
		}
		/* And back to the host in one descriptor. */
		th_dma_put(t, IPU_QUEUE_D2H, 0, GUEST_BASE + G_DATA + 0x100003, 7,
			   (uint32_t)total, IPU_DMA_F_IRQ);
		assert_true(th_kick_wait(t, IPU_QUEUE_D2H, 1));
		assert_int_equal(th_dma_desc(t, 1, 0)->status, IPU_DESC_DONE);
		assert_memory_equal(dst + 3, lin, total);
		free(lin);
	}
	assert_int_equal(th_dma_desc(t, 0, 0)->tag, 0x7a6);
	assert_int_equal(rd64(t, IPU_REG_DMA_H2D_BYTES), total);
	assert_int_equal(rd64(t, IPU_REG_DMA_D2H_BYTES), total);
	th_free(t);
}

static void test_one_interrupt_and_writeback_per_batch(void **state)
{
	struct th *t = ready();
	struct ipu_queue_wb *wb = th_wb(t, IPU_QUEUE_H2D);
	uint32_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		th_dma_put(t, 0, i, GUEST_BASE + G_DATA, 64 * i, 64,
			   i == 2 ? IPU_DMA_F_IRQ : 0);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 3));
	assert_int_equal(th_irqs(t, IPU_VEC_H2D), 1);
	assert_int_equal(th_irqs(t, IPU_VEC_D2H), 0);
	assert_int_equal(wb->head, 3);
	assert_int_equal(wb->completed, 3);
	assert_int_equal(wb->errors, 0);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 3);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_COMPLETED)), 3);
	/* The next batch, after the acknowledgement: its own message. */
	th_dma_put(t, 0, 3, GUEST_BASE + G_DATA, 0, 8, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 4));
	assert_int_equal(th_irqs(t, IPU_VEC_H2D), 2);
	assert_int_equal(wb->completed, 4);
	th_free(t);
}

static void test_the_ring_wraps(void **state)
{
	struct th *t = th_new();
	uint32_t i, idx = 0;

	(void)state;
	th_enable(t);
	th_ring(t, IPU_QUEUE_H2D, 4);
	for (i = 0; i < 10; i++) {
		th_dma_put(t, 0, idx, GUEST_BASE + G_DATA + i, i, 1, IPU_DMA_F_IRQ);
		idx = (idx + 1) % 4;
		assert_true(th_kick_wait(t, IPU_QUEUE_H2D, idx));
		assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), idx);
	}
	assert_int_equal(th_wb(t, 0)->completed, 10);
	th_free(t);
}

static void test_descriptor_errors_complete_alone(void **state)
{
	struct th *t = ready();
	uint64_t g = GUEST_BASE + G_DATA;

	(void)state;
	th_dma_put(t, 0, 0, GUEST_BASE + GUEST_SIZE - 8, 0, 16, 0); /* past RAM */
	th_dma_put(t, 0, 1, g, (1u << 20) - 8, 16, 0);	/* past device memory */
	th_dma_put(t, 0, 2, g, 0, 0, 0);			/* zero length */
	th_dma_put(t, 0, 3, g, 0, IPU_DMA_MAX_LEN + 1, 0);
	th_dma_put(t, 0, 4, g, 0, 8, 0x2);		/* reserved flag */
	th_dma_put(t, 0, 5, 0x10, 0, 8, 0);		/* below RAM */
	th_dma_put(t, 0, 6, g, 0, 8, IPU_DMA_F_IRQ);	/* fine */
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 7));
	assert_int_equal(th_dma_desc(t, 0, 0)->status,
			 IPU_DESC_DONE | IPU_DESC_E_HOST_FAULT);
	assert_int_equal(th_dma_desc(t, 0, 1)->status,
			 IPU_DESC_DONE | IPU_DESC_E_DEV_RANGE);
	assert_int_equal(th_dma_desc(t, 0, 2)->status,
			 IPU_DESC_DONE | IPU_DESC_E_LENGTH);
	assert_int_equal(th_dma_desc(t, 0, 3)->status,
			 IPU_DESC_DONE | IPU_DESC_E_LENGTH);
	assert_int_equal(th_dma_desc(t, 0, 4)->status,
			 IPU_DESC_DONE | IPU_DESC_E_FLAGS);
	assert_int_equal(th_dma_desc(t, 0, 5)->status,
			 IPU_DESC_DONE | IPU_DESC_E_HOST_FAULT);
	assert_int_equal(th_dma_desc(t, 0, 6)->status, IPU_DESC_DONE);
	assert_int_equal(th_wb(t, 0)->errors, 6);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_ERRORS)), 6);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), 6);
	assert_int_equal(th_err_code(t, 0), IPU_ERR_DESC);
	assert_false(rd32(t, QREG(0, IPU_Q_STATUS)) & IPU_Q_STATUS_HALTED);
	th_free(t);
}

static void test_d2h_to_an_unmapped_address_writes_nothing(void **state)
{
	struct th *t = ready();
	uint8_t before[64];

	(void)state;
	memcpy(before, t->h.mem + GUEST_SIZE - 64, 64);
	th_dma_put(t, 1, 0, GUEST_BASE + GUEST_SIZE - 32, 0, 64, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_D2H, 1));
	assert_int_equal(th_dma_desc(t, 1, 0)->status,
			 IPU_DESC_DONE | IPU_DESC_E_HOST_FAULT);
	assert_memory_equal(before, t->h.mem + GUEST_SIZE - 64, 64);
	th_free(t);
}

/* v2: without Bus Master the descriptor is not even fetched; the queue
 * halts (test_emu_dev_bus.c has every path; --lenient bme gives v1's
 * E_NO_MASTER). */
static void test_no_dma_without_bus_master(void **state)
{
	struct th *t = ready();
	time_t end = time(NULL) + WAIT_LIMIT_S;

	(void)state;
	cfgw16(t, 0x04, 0x0002);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 8, IPU_DMA_F_IRQ);
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	while (!(rd32(t, QREG(0, IPU_Q_STATUS)) & IPU_Q_STATUS_HALTED)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
	assert_int_equal(th_dma_desc(t, 0, 0)->status, 0);
	assert_int_equal(th_last_err(t), IPU_ERR_BUS_MASTER);
	th_free(t);
}

static void test_bad_rings_are_not_enabled(void **state)
{
	struct th *t = th_new();
	uint32_t sizes[] = { 0, 1, 3, 8192 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		wr64(t, QREG(0, IPU_Q_BASE), GUEST_BASE);
		wr32(t, QREG(0, IPU_Q_SIZE), sizes[i]);
		wr32(t, QREG(0, IPU_Q_CTRL), 1);
		assert_int_equal(rd32(t, QREG(0, IPU_Q_CTRL)), 0);
		assert_int_equal(th_last_err(t), IPU_ERR_RING_CONFIG);
	}
	wr32(t, QREG(0, IPU_Q_SIZE), 8);
	wr64(t, QREG(0, IPU_Q_BASE), GUEST_BASE + 32);	/* misaligned */
	wr32(t, QREG(0, IPU_Q_CTRL), 1);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_CTRL)), 0);
	wr64(t, QREG(0, IPU_Q_BASE), UINT64_MAX - 63);	/* wraps */
	wr32(t, QREG(0, IPU_Q_CTRL), 1);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_CTRL)), 0);
	wr64(t, QREG(0, IPU_Q_BASE), GUEST_BASE);
	wr64(t, QREG(0, IPU_Q_WB_ADDR), GUEST_BASE + 8); /* misaligned */
	wr32(t, QREG(0, IPU_Q_CTRL), 1);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_CTRL)), 0);
	wr64(t, QREG(0, IPU_Q_WB_ADDR), 0);
	wr32(t, QREG(0, IPU_Q_CTRL), 1);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_CTRL)), 1);
	/* Enabled: reconfiguration refused, TAIL checked. */
	wr32(t, QREG(0, IPU_Q_SIZE), 16);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_SIZE)), 8);
	assert_int_equal(th_last_err(t), IPU_ERR_QUEUE_BUSY);
	wr32(t, QREG(0, IPU_Q_TAIL), 8);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_TAIL)), 0);
	assert_int_equal(th_last_err(t), IPU_ERR_BAD_TAIL);
	th_free(t);
}

/* An error-log entry raises vector 0; wait for the count to reach @n. */
static int wait_errors(struct th *t, unsigned int n)
{
	return th_wait_irqs(t, IPU_VEC_MISC, n);
}

static void test_an_unreadable_ring_halts_the_queue(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_enable(t);
	wr64(t, QREG(0, IPU_Q_BASE), 0x1000);	/* no RAM there */
	wr32(t, QREG(0, IPU_Q_SIZE), 4);
	wr32(t, QREG(0, IPU_Q_CTRL), 1);
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	assert_true(wait_errors(t, 1));
	assert_true(rd32(t, QREG(0, IPU_Q_STATUS)) & IPU_Q_STATUS_HALTED);
	assert_true(rd32(t, IPU_REG_STATUS) & IPU_STATUS_QUEUE_ERROR);
	assert_int_equal(th_last_err(t), IPU_ERR_RING_FETCH);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 0);
	/* Disable and enable clear it. */
	wr32(t, QREG(0, IPU_Q_CTRL), 0);
	wr64(t, QREG(0, IPU_Q_BASE), GUEST_BASE);
	wr32(t, QREG(0, IPU_Q_CTRL), 1);
	assert_false(rd32(t, QREG(0, IPU_Q_STATUS)) & IPU_Q_STATUS_HALTED);
	assert_false(rd32(t, IPU_REG_STATUS) & IPU_STATUS_QUEUE_ERROR);
	th_free(t);
}

static void test_fail_dma_fails_the_kth_descriptor(void **state)
{
	struct th *t = ready();
	uint32_t i;

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "fail_dma=2"), 0);
	fill(t->h.mem + G_DATA, 64, 3);
	for (i = 0; i < 3; i++)
		th_dma_put(t, 0, i, GUEST_BASE + G_DATA, 64 * i, 64,
			   i == 2 ? IPU_DMA_F_IRQ : 0);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 3));
	assert_int_equal(th_dma_desc(t, 0, 0)->status, IPU_DESC_DONE);
	assert_int_equal(th_dma_desc(t, 0, 1)->status,
			 IPU_DESC_DONE | IPU_DESC_E_DATA);
	assert_int_equal(th_dma_desc(t, 0, 2)->status, IPU_DESC_DONE);
	/* Once only. */
	th_dma_put(t, 0, 3, GUEST_BASE + G_DATA, 0, 64, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 4));
	assert_int_equal(th_dma_desc(t, 0, 3)->status, IPU_DESC_DONE);
	th_free(t);
}

static void test_corrupt_dma_changes_bytes_silently(void **state)
{
	struct th *t = ready();
	uint8_t *src = t->h.mem + G_DATA, back[100];

	(void)state;
	fill(src, 100, 9);
	assert_int_equal(emu_dev_fault(t->dev, "corrupt_dma=1"), 0);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 100, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 1));
	assert_int_equal(th_dma_desc(t, 0, 0)->status, IPU_DESC_DONE);
	th_mem_read(t, 0, back, 100);
	assert_int_equal(back[0], (uint8_t)~src[0]);
	assert_int_equal(back[99], (uint8_t)~src[99]);
	assert_memory_equal(back + 1, src + 1, 98);
	/* Device to host too. */
	assert_int_equal(emu_dev_fault(t->dev, "corrupt_dma=1"), 0);
	th_mem_write(t, 0, src, 100);
	th_dma_put(t, 1, 0, GUEST_BASE + G_DATA + 4096, 0, 100, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_D2H, 1));
	assert_int_equal(t->h.mem[G_DATA + 4096], (uint8_t)~src[0]);
	assert_memory_equal(t->h.mem + G_DATA + 4097, src + 1, 98);
	th_free(t);
}

/*
 * hang_dma=1: the next descriptor stalls (moves nothing, never completes
 * by itself) until its queue is disabled, which completes it with E_RESET;
 * the fault is one-shot.
 */
static void test_hang_dma_stalls_until_the_queue_is_disabled(void **state)
{
	struct th *t = ready();
	time_t end = time(NULL) + WAIT_LIMIT_S;

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "hang_dma=1"), 0);
	fill(t->h.mem + G_DATA, 64, 5);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 64, IPU_DMA_F_IRQ);
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	while (!(rd32(t, QREG(0, IPU_Q_STATUS)) & IPU_Q_STATUS_BUSY)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
	/* Held, as the control socket's status says (stalled=1). */
	while (emu_dev_stalled(t->dev) != 1) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
	/* Only disabling can end it: nothing completed so far. */
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 0);
	assert_int_equal(th_dma_desc(t, 0, 0)->status, 0);
	wr32(t, QREG(0, IPU_Q_CTRL), 0);
	assert_int_equal(th_dma_desc(t, 0, 0)->status,
			 IPU_DESC_DONE | IPU_DESC_E_RESET);
	while (emu_dev_stalled(t->dev) != 0) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
	assert_int_equal(rd64(t, IPU_REG_DMA_H2D_BYTES), 0);
	/* It completed as usual, its batch's cause too: acknowledge. */
	wr32(t, IPU_REG_IRQ_CAUSE, IPU_IRQ_H2D);
	/* Once only: enabled again, the queue moves the next descriptor. */
	th_ring(t, IPU_QUEUE_H2D, 16);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 64, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 1));
	assert_int_equal(th_dma_desc(t, 0, 0)->status, IPU_DESC_DONE);
	assert_int_equal(rd64(t, IPU_REG_DMA_H2D_BYTES), 64);
	th_free(t);
}

/*
 * bad_writeback=@mode on a batch of 3 descriptors at 4..6 (after a batch
 * of 4): the writeback says @head with the interrupt, nothing moved and
 * no status written; the host's next TAIL write lets the batch run, and
 * the true writeback follows.
 */
static void bad_writeback(const char *mode, uint32_t head)
{
	struct th *t = ready();
	struct ipu_queue_wb *wb = th_wb(t, IPU_QUEUE_H2D);
	uint8_t back[64], zero[64] = { 0 };
	uint32_t i;

	fill(t->h.mem + G_DATA, 64, 5);
	for (i = 0; i < 4; i++)
		th_dma_put(t, 0, i, GUEST_BASE + G_DATA, 0, 8,
			   i == 3 ? IPU_DMA_F_IRQ : 0);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 4));
	assert_int_equal(emu_dev_fault(t->dev, "bad_writeback=early,bad_writeback=x"),
			 -EINVAL);
	assert_int_equal(emu_dev_fault(t->dev, "bad_writeback"), -EINVAL);
	assert_int_equal(emu_dev_fault(t->dev, mode), 0);
	for (i = 4; i < 7; i++)
		th_dma_put(t, 0, i, GUEST_BASE + G_DATA, 4096, 64,
			   i == 6 ? IPU_DMA_F_IRQ : 0);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 7));
	assert_int_equal(wb->head, head);
	assert_int_equal(wb->completed, 4);
	assert_int_equal(th_dma_desc(t, 0, 4)->status, 0);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 4);
	th_mem_read(t, 4096, back, 64);
	assert_memory_equal(back, zero, 64);
	/* The next TAIL write (the same TAIL) lets it run: the truth. */
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 7));
	assert_int_equal(wb->head, 7);
	assert_int_equal(wb->completed, 7);
	for (i = 4; i < 7; i++)
		assert_int_equal(th_dma_desc(t, 0, i)->status, IPU_DESC_DONE);
	th_mem_read(t, 4096, back, 64);
	assert_memory_equal(back, t->h.mem + G_DATA, 64);
	th_free(t);
}

static void test_bad_writeback_early_says_tail(void **state)
{
	(void)state;
	bad_writeback("bad_writeback=early", 7);
}

static void test_bad_writeback_beyond_says_an_unpublished_slot(void **state)
{
	(void)state;
	bad_writeback("bad_writeback=beyond", 8);
}

static void test_bad_writeback_range_says_outside_the_ring(void **state)
{
	(void)state;
	bad_writeback("bad_writeback=range", 16 + 4);
}

static void test_bad_writeback_behind_goes_backwards(void **state)
{
	(void)state;
	bad_writeback("bad_writeback=behind", 3);
}

/* A disable releases the descriptor the lie holds: it finishes as usual. */
static void test_bad_writeback_is_released_by_disable(void **state)
{
	struct th *t = ready();

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "bad_writeback=early"), 0);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 64, 0);
	th_dma_put(t, 0, 1, GUEST_BASE + G_DATA, 64, 64, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 2));
	assert_int_equal(th_wb(t, IPU_QUEUE_H2D)->head, 2);
	wr32(t, QREG(0, IPU_Q_CTRL), 0);
	assert_int_equal(th_dma_desc(t, 0, 0)->status, IPU_DESC_DONE);
	assert_int_equal(th_dma_desc(t, 0, 1)->status, 0);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 1);
	th_free(t);
}

/* A lie the device cannot write back halts the queue: nothing starts. */
static void test_bad_writeback_to_nowhere_halts(void **state)
{
	struct th *t = th_new();
	unsigned int errs;

	(void)state;
	th_enable(t);
	wr64(t, QREG(0, IPU_Q_BASE), GUEST_BASE + G_RING(0));
	wr32(t, QREG(0, IPU_Q_SIZE), 16);
	wr64(t, QREG(0, IPU_Q_WB_ADDR), 0x10);
	wr32(t, QREG(0, IPU_Q_CTRL), IPU_Q_CTRL_ENABLE);
	assert_int_equal(emu_dev_fault(t->dev, "bad_writeback=range"), 0);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 64, IPU_DMA_F_IRQ);
	errs = th_irqs(t, IPU_VEC_MISC);
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	assert_true(th_wait_irqs(t, IPU_VEC_MISC, errs + 1));
	assert_int_equal(th_last_err(t), IPU_ERR_WRITEBACK);
	assert_true(rd32(t, QREG(0, IPU_Q_STATUS)) & IPU_Q_STATUS_HALTED);
	assert_int_equal(th_dma_desc(t, 0, 0)->status, 0);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 0);
	assert_int_equal(th_irqs(t, IPU_VEC_H2D), 0);
	th_free(t);
}

static void test_the_two_directions_run_concurrently(void **state)
{
	struct th *t = ready();
	uint64_t gate = GUEST_BASE + G_DATA + 0x8000;

	(void)state;
	/* H2D's read of the host stalls (a slow host, a long transfer)... */
	t->h.gate = gate;
	th_dma_put(t, 0, 0, gate, 0, 64, IPU_DMA_F_IRQ);
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	assert_true(th_gate_reached(t));
	/* ...while D2H completes a batch of its own. */
	th_dma_put(t, 1, 0, GUEST_BASE + G_DATA, 128, 64, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_D2H, 1));
	assert_int_equal(th_dma_desc(t, 1, 0)->status, IPU_DESC_DONE);
	assert_int_equal(th_irqs(t, IPU_VEC_H2D), 0);
	assert_true(rd32(t, QREG(0, IPU_Q_STATUS)) & IPU_Q_STATUS_BUSY);
	th_gate_open(t);
	assert_true(th_wait_irqs(t, IPU_VEC_H2D, 1));
	assert_int_equal(th_dma_desc(t, 0, 0)->status, IPU_DESC_DONE);
	th_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scatter_gather_both_ways_with_odd_sizes),
		cmocka_unit_test(test_one_interrupt_and_writeback_per_batch),
		cmocka_unit_test(test_the_ring_wraps),
		cmocka_unit_test(test_descriptor_errors_complete_alone),
		cmocka_unit_test(test_d2h_to_an_unmapped_address_writes_nothing),
		cmocka_unit_test(test_no_dma_without_bus_master),
		cmocka_unit_test(test_bad_rings_are_not_enabled),
		cmocka_unit_test(test_an_unreadable_ring_halts_the_queue),
		cmocka_unit_test(test_fail_dma_fails_the_kth_descriptor),
		cmocka_unit_test(test_corrupt_dma_changes_bytes_silently),
		cmocka_unit_test(test_hang_dma_stalls_until_the_queue_is_disabled),
		cmocka_unit_test(test_bad_writeback_early_says_tail),
		cmocka_unit_test(test_bad_writeback_beyond_says_an_unpublished_slot),
		cmocka_unit_test(test_bad_writeback_range_says_outside_the_ring),
		cmocka_unit_test(test_bad_writeback_behind_goes_backwards),
		cmocka_unit_test(test_bad_writeback_is_released_by_disable),
		cmocka_unit_test(test_bad_writeback_to_nowhere_halts),
		cmocka_unit_test(test_the_two_directions_run_concurrently),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
