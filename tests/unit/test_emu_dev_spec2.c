// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_spec2.c - rules docs/hardware.md 2.0 adds to the register
 * file, as the device half of ipu-emu keeps them: a TAIL that laps HEAD
 * is refused and logged (4.1, "Ownership"); the 64-bit counters latch
 * their high half when the low half is read (2.3); BOOT is refused while
 * a boot is under way and while a ring is enabled (8.2); the firmware's
 * region of device memory is advertised (8.3).
 *
 * White-box where the black box would need hours or a race: the counter
 * test starts H2D_BYTES just below 2^32, the BOOTING test sets the state
 * a posted boot leaves for a while.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"
#include "../../firmware/emu/emu_internal.h"

#define GREG(r)		(IPU_REG_GATHER + (r))

/* Error log entry @n's info and detail. */
static uint32_t err_info(struct th *t, uint32_t n)
{
	return rd32(t, IPU_REG_ERR_LOG + IPU_ERR_ENTRY_SIZE *
			       (n % IPU_ERR_LOG_LEN) + 4);
}

static uint64_t err_detail(struct th *t, uint32_t n)
{
	return rd64(t, IPU_REG_ERR_LOG + IPU_ERR_ENTRY_SIZE *
			       (n % IPU_ERR_LOG_LEN) + 8);
}

/*
 * A TAIL write that would move TAIL back over published entries, or
 * publish more entries than are free (lapping HEAD), is refused: TAIL
 * keeps its value and ERR_BAD_TAIL says queue, value and HEAD. The
 * device's HEAD is held at 0 by a descriptor fetch that waits at a gate.
 */
static void test_tail_that_laps_head_is_refused(void **state)
{
	struct th *t = th_new();
	uint32_t i, errs;

	(void)state;
	th_enable(t);
	th_ring(t, IPU_QUEUE_H2D, 8);
	for (i = 0; i < 7; i++)
		th_dma_put(t, 0, i, GUEST_BASE + G_DATA + 64 * i, 64 * i, 64,
			   i == 6 ? IPU_DMA_F_IRQ : 0);
	t->h.gate = GUEST_BASE + G_RING(0);
	wr32(t, QREG(0, IPU_Q_TAIL), 3);
	assert_true(th_gate_reached(t));
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 0);

	/* Back over published entries: 3 owned by the device, 2 would be. */
	errs = rd32(t, IPU_REG_ERR_COUNT);
	wr32(t, QREG(0, IPU_Q_TAIL), 2);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_TAIL)), 3);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), errs + 1);
	assert_int_equal(th_last_err(t), IPU_ERR_BAD_TAIL);
	assert_int_equal(err_info(t, errs), IPU_QUEUE_H2D);
	assert_int_equal(err_detail(t, errs), 2);	/* HEAD 0 << 32 | 2 */

	/* Up to the full ring (7 of 8) is fine; one more laps HEAD. */
	wr32(t, QREG(0, IPU_Q_TAIL), 7);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_TAIL)), 7);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), errs + 1);
	wr32(t, QREG(0, IPU_Q_TAIL), 0);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_TAIL)), 7);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), errs + 2);
	assert_int_equal(th_last_err(t), IPU_ERR_BAD_TAIL);
	/* The same TAIL again publishes nothing and is no error. */
	wr32(t, QREG(0, IPU_Q_TAIL), 7);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), errs + 2);

	/* The refused writes changed nothing the device does. */
	th_gate_open(t);
	assert_true(th_wait_irqs(t, IPU_VEC_H2D, 1));
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 7);
	for (i = 0; i < 7; i++)
		assert_int_equal(th_dma_desc(t, 0, i)->status, IPU_DESC_DONE);
	assert_int_equal(th_dma_desc(t, 0, 7)->status, 0);
	/* Empty again at 7: a TAIL of 6 publishes 7 entries, the whole ring. */
	wr32(t, IPU_REG_IRQ_CAUSE, IPU_IRQ_H2D);
	for (i = 0; i < 7; i++)
		th_dma_put(t, 0, (7 + i) % 8, GUEST_BASE + G_DATA, 0, 64,
			   i == 6 ? IPU_DMA_F_IRQ : 0);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 6));
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 6);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), errs + 2);
	th_free(t);
}

/*
 * The low half's read latches the high half: a counter that carries into
 * its high half between the two 4-byte reads is read as it was at the
 * first, never torn. H2D_BYTES starts 64 bytes short of 2^32.
 */
static void test_counter_high_half_is_latched(void **state)
{
	struct th *t = th_new();
	const uint32_t lo = IPU_REG_DMA_H2D_BYTES, hi = lo + 4;

	(void)state;
	th_enable(t);
	pthread_mutex_lock(&t->dev->lock);
	t->dev->h2d_bytes = 0x100000000ull - 64;
	pthread_mutex_unlock(&t->dev->lock);

	assert_int_equal(rd32(t, lo), 0xffffffc0u);
	th_ring(t, IPU_QUEUE_H2D, 8);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 64, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 1));
	/* Carried meanwhile: the high half is the latched one, 0. */
	assert_int_equal(rd32(t, hi), 0);
	assert_int_equal(rd32(t, hi), 0);
	/* A new pair reads the new value; so does one 8-byte read. */
	assert_int_equal(rd32(t, lo), 0);
	assert_int_equal(rd32(t, hi), 1);
	assert_int_equal(rd64(t, lo), 0x100000000ull);
	/* Each counter has its own latch. */
	assert_int_equal(rd32(t, IPU_REG_DMA_D2H_BYTES), 0);
	assert_int_equal(rd32(t, hi), 1);
	assert_int_equal(rd32(t, IPU_REG_DMA_D2H_BYTES + 4), 0);
	/* FLR: counters and latches to 0. */
	assert_int_equal(emu_dev_flr(t->dev), 0);
	assert_int_equal(rd32(t, hi), 0);
	assert_int_equal(rd64(t, lo), 0);
	th_free(t);
}

/* BOOT refused: FW_STATUS kept, ERR_FW_BOOT with BUSY, ERROR not FW_BOOT. */
static void assert_boot_refused(struct th *t, uint32_t fw_status)
{
	uint32_t errs = rd32(t, IPU_REG_ERR_COUNT);

	wr32(t, IPU_REG_IRQ_CAUSE, IPU_IRQ_ALL);
	wr32(t, IPU_REG_FW_CTRL, IPU_FW_CTRL_BOOT);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), fw_status);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), errs + 1);
	assert_int_equal(th_err_code(t, errs), IPU_ERR_FW_BOOT);
	assert_int_equal(err_info(t, errs), IPU_FW_ERR_BUSY);
	assert_int_equal(rd32(t, IPU_REG_IRQ_CAUSE) &
				 (IPU_IRQ_FW_BOOT | IPU_IRQ_ERROR),
			 IPU_IRQ_ERROR);
}

/* The gather ring counts as a ring: no BOOT while it is enabled. */
static void test_boot_refused_while_gather_ring_enabled(void **state)
{
	struct th *t = th_new();
	size_t len = 0;
	uint8_t *img = th_fw_image(&len);

	(void)state;
	assert_non_null(img);
	th_enable(t);
	th_mem_write(t, 0, img, len);
	wr64(t, IPU_REG_FW_ADDR, 0);
	wr32(t, IPU_REG_FW_SIZE, (uint32_t)len);
	wr64(t, GREG(IPU_GQ_BASE), GUEST_BASE + G_RING(3));
	wr32(t, GREG(IPU_GQ_SIZE), 4);
	wr64(t, GREG(IPU_GQ_WB_ADDR), GUEST_BASE + G_WB(3));
	wr32(t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
	assert_int_equal(rd32(t, GREG(IPU_GQ_STATUS)) & IPU_Q_STATUS_ENABLED,
			 IPU_Q_STATUS_ENABLED);

	assert_boot_refused(t, IPU_FW_STATE_OFF);
	assert_int_equal(rd32(t, IPU_REG_STATUS) &
				 (IPU_STATUS_FW_READY | IPU_STATUS_FW_FAILED), 0);

	wr32(t, GREG(IPU_GQ_CTRL), 0);
	assert_int_equal(th_boot_image(t, img, len, 0) & IPU_FW_STATE_MASK,
			 IPU_FW_STATE_READY);
	free(img);
	th_free(t);
}

/* A boot under way (a posted BOOT leaves BOOTING for a while) is not
 * started again; nor is a firmware READY. */
static void test_boot_refused_while_booting_or_ready(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_enable(t);
	pthread_mutex_lock(&t->dev->lock);
	t->dev->fw_status = IPU_FW_STATE_BOOTING;
	pthread_mutex_unlock(&t->dev->lock);
	assert_boot_refused(t, IPU_FW_STATE_BOOTING);

	assert_int_equal(emu_dev_flr(t->dev), 0);
	th_enable(t);
	assert_int_equal(th_boot(t) & IPU_FW_STATE_MASK, IPU_FW_STATE_READY);
	assert_boot_refused(t, IPU_FW_STATE_READY);
	th_free(t);
}

/*
 * The firmware's region: device address and size, RO, page-aligned,
 * inside device memory, large enough for any image, the same after FLR.
 */
static void test_fw_region_is_advertised(void **state)
{
	struct th *t = th_new();
	uint64_t addr, size;

	(void)state;
	assert_int_equal(IPU_SPEC_MAJOR(rd32(t, IPU_REG_VERSION)), 2);
	addr = rd64(t, IPU_REG_FW_REGION_ADDR);
	size = rd64(t, IPU_REG_FW_REGION_SIZE);
	assert_true(size >= IPU_FW_MAX_SIZE);
	assert_int_equal(addr % 4096, 0);
	assert_int_equal(size % 4096, 0);
	assert_true(addr + size <= (1u << 20));
	/* Two 4-byte halves read the same. */
	assert_int_equal(rd32(t, IPU_REG_FW_REGION_SIZE), (uint32_t)size);
	assert_int_equal(rd32(t, IPU_REG_FW_REGION_SIZE + 4),
			 (uint32_t)(size >> 32));
	/* RO, and kept by resets. */
	wr64(t, IPU_REG_FW_REGION_ADDR, 0x100000);
	wr64(t, IPU_REG_FW_REGION_SIZE, 0);
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(emu_dev_flr(t->dev), 0);
	assert_int_equal(rd64(t, IPU_REG_FW_REGION_ADDR), addr);
	assert_int_equal(rd64(t, IPU_REG_FW_REGION_SIZE), size);
	th_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tail_that_laps_head_is_refused),
		cmocka_unit_test(test_counter_high_half_is_latched),
		cmocka_unit_test(test_boot_refused_while_gather_ring_enabled),
		cmocka_unit_test(test_boot_refused_while_booting_or_ready),
		cmocka_unit_test(test_fw_region_is_advertised),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
