// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_attack_dev.c - the device model (firmware/emu/emu_dev*.c)
 * against a hostile guest: addresses and sizes whose sums wrap 2^64 in
 * rings, writebacks, DMA descriptors, firmware and launches; TAIL out of
 * range; everything after the device fell off the bus. Each must be
 * refused as docs/hardware.md says, without touching memory outside the
 * device's or the guest's, and the device must stay usable afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"
/* White-box: test_off_the_bus_nothing_moves looks at the queue state. */
#include "../../firmware/emu/emu_internal.h"

/* Rings and writebacks whose end wraps 2^64 are not enabled. */
static void test_rings_that_wrap_are_not_enabled(void **state)
{
	static const struct {
		uint64_t base, wb;
		uint32_t size;
	} bad[] = {
		{ 0ull - 4096, GUEST_BASE + G_WB(0), 4096 },	/* base + bytes */
		{ 0ull - 64, GUEST_BASE + G_WB(0), 16 },
		{ GUEST_BASE, 0ull - 16, 16 },			/* writeback */
		{ GUEST_BASE, 0ull - 8, 16 },
		{ GUEST_BASE, GUEST_BASE + G_WB(0), 0x80000000u }, /* size */
		{ GUEST_BASE, GUEST_BASE + G_WB(0), 3 },
	};
	struct th *t = th_new();

	(void)state;
	th_enable(t);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t errs = rd32(t, IPU_REG_ERR_COUNT);

		wr64(t, QREG(0, IPU_Q_BASE), bad[i].base);
		wr32(t, QREG(0, IPU_Q_SIZE), bad[i].size);
		wr64(t, QREG(0, IPU_Q_WB_ADDR), bad[i].wb);
		wr32(t, QREG(0, IPU_Q_CTRL), IPU_Q_CTRL_ENABLE);
		assert_int_equal(rd32(t, QREG(0, IPU_Q_CTRL)), 0);
		assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), errs + 1);
		assert_int_equal(th_last_err(t), IPU_ERR_RING_CONFIG);
		/* TAIL of a disabled queue is ignored. */
		wr32(t, QREG(0, IPU_Q_TAIL), 1);
		assert_int_equal(rd32(t, QREG(0, IPU_Q_TAIL)), 0);
	}
	th_free(t);
}

/* TAIL at or past SIZE is refused and nothing runs; a ring then works. */
static void test_tail_out_of_range_is_refused(void **state)
{
	struct th *t = th_new();
	unsigned long calls;

	(void)state;
	th_enable(t);
	th_ring(t, IPU_QUEUE_H2D, 16);
	calls = __atomic_load_n(&t->h.dma_calls, __ATOMIC_SEQ_CST);
	wr32(t, QREG(0, IPU_Q_TAIL), 16);
	wr32(t, QREG(0, IPU_Q_TAIL), UINT32_MAX);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_TAIL)), 0);
	assert_int_equal(th_last_err(t), IPU_ERR_BAD_TAIL);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 64, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 1));
	assert_int_equal(th_dma_desc(t, 0, 0)->status, IPU_DESC_DONE);
	/* The thread works in ring order and has now drained the ring: had
	 * a refused TAIL started anything, it would show here, with no need
	 * to wait and see. One descriptor moved: fetch, data, status word,
	 * writeback. */
	assert_int_equal(rd32(t, QREG(0, IPU_Q_COMPLETED)), 1);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 1);
	assert_int_equal(th_dma_desc(t, 0, 1)->status, 0);
	assert_int_equal(__atomic_load_n(&t->h.dma_calls, __ATOMIC_SEQ_CST),
			 calls + 4);
	th_free(t);
}

/* DMA descriptors whose device or host range wraps 2^64. */
static void test_dma_ranges_that_wrap_are_refused(void **state)
{
	struct th *t = th_new();
	uint8_t before[64];

	(void)state;
	th_enable(t);
	th_ring(t, IPU_QUEUE_H2D, 16);
	th_ring(t, IPU_QUEUE_D2H, 16);
	memcpy(before, t->h.mem + G_DATA, sizeof(before));
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0ull - 8, 16, 0);
	th_dma_put(t, 0, 1, GUEST_BASE + G_DATA, 0ull - IPU_DMA_MAX_LEN,
		   IPU_DMA_MAX_LEN, 0);
	th_dma_put(t, 0, 2, 0ull - 8, 0, 16, 0);
	th_dma_put(t, 0, 3, GUEST_BASE + G_DATA, (1u << 20) - 8, 16,
		   IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 4));
	assert_int_equal(th_dma_desc(t, 0, 0)->status,
			 IPU_DESC_DONE | IPU_DESC_E_DEV_RANGE);
	assert_int_equal(th_dma_desc(t, 0, 1)->status,
			 IPU_DESC_DONE | IPU_DESC_E_DEV_RANGE);
	assert_int_equal(th_dma_desc(t, 0, 2)->status,
			 IPU_DESC_DONE | IPU_DESC_E_HOST_FAULT);
	assert_int_equal(th_dma_desc(t, 0, 3)->status,
			 IPU_DESC_DONE | IPU_DESC_E_DEV_RANGE);
	/* The other direction: nothing lands in guest memory. */
	th_dma_put(t, 1, 0, GUEST_BASE + G_DATA, 0ull - 8, 16, 0);
	th_dma_put(t, 1, 1, 0ull - 8, 0, 16, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_D2H, 2));
	assert_int_equal(th_dma_desc(t, 1, 0)->status,
			 IPU_DESC_DONE | IPU_DESC_E_DEV_RANGE);
	assert_int_equal(th_dma_desc(t, 1, 1)->status,
			 IPU_DESC_DONE | IPU_DESC_E_HOST_FAULT);
	assert_memory_equal(before, t->h.mem + G_DATA, sizeof(before));
	th_free(t);
}

/* Firmware whose address + size wraps or runs past device memory. */
static void test_firmware_ranges_that_wrap_fail_the_boot(void **state)
{
	static const struct {
		uint64_t addr;
		uint32_t size;
	} bad[] = {
		{ 0ull - 16, 4096 }, { (1u << 20) - 16, 4096 }, { 1ull << 63, 4096 },
	};
	struct th *t = th_new();

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t st;

		wr64(t, IPU_REG_FW_ADDR, bad[i].addr);
		wr32(t, IPU_REG_FW_SIZE, bad[i].size);
		wr32(t, IPU_REG_FW_CTRL, IPU_FW_CTRL_BOOT);
		st = rd32(t, IPU_REG_FW_STATUS);
		assert_int_equal(st & IPU_FW_STATE_MASK, IPU_FW_STATE_FAILED);
		assert_int_equal(st >> IPU_FW_ERR_SHIFT & 0xff, IPU_FW_ERR_RANGE);
	}
	/* A failed boot may be retried with a good image. */
	assert_int_equal(th_boot(t) & IPU_FW_STATE_MASK, IPU_FW_STATE_READY);
	th_free(t);
}

/* LAUNCHes whose executable or arena wraps 2^64 or runs past device
 * memory, and replica fields out of range, complete with an error. */
static void test_launch_ranges_that_wrap_are_refused(void **state)
{
	static const struct ipu_cmd_desc bad[] = {
		{ .opcode = IPU_CQ_LAUNCH, .exe_addr = 0ull - 8, .exe_size = 64,
		  .arena_addr = 0, .arena_size = 64, .num_replicas = 1 },
		{ .opcode = IPU_CQ_LAUNCH, .exe_addr = 0, .exe_size = 64,
		  .arena_addr = 0ull - 64, .arena_size = 128, .num_replicas = 1 },
		{ .opcode = IPU_CQ_LAUNCH, .exe_addr = 0, .exe_size = 64,
		  .arena_addr = 64, .arena_size = 0ull - 64, .num_replicas = 1 },
		{ .opcode = IPU_CQ_LAUNCH, .exe_addr = (1u << 20) - 32,
		  .exe_size = 64, .arena_addr = 0, .arena_size = 64,
		  .num_replicas = 1 },
	};
	static const struct ipu_cmd_desc bad_desc[] = {
		{ .opcode = IPU_CQ_LAUNCH, .exe_size = 64, .arena_size = 64,
		  .num_replicas = IPU_CQ_MAX_REPLICAS + 1, .group = 1 },
		{ .opcode = IPU_CQ_LAUNCH, .exe_size = 64, .arena_size = 64,
		  .num_replicas = 2, .replica = 2, .group = 1 },
		{ .opcode = IPU_CQ_LAUNCH, .exe_size = 64, .arena_size = 64,
		  .num_replicas = 0xffffffffu, .replica = 0, .group = 1 },
		{ .opcode = 0xdead },
	};
	const size_t nb = sizeof(bad) / sizeof(bad[0]);
	const size_t nd = sizeof(bad_desc) / sizeof(bad_desc[0]);
	struct th *t = th_new();
	size_t i;

	(void)state;
	th_enable(t);
	if ((th_boot(t) & IPU_FW_STATE_MASK) != IPU_FW_STATE_READY) {
		th_free(t);
		fail_msg("no firmware image (build firmware/ipu/ipu-fw.bin)");
	}
	th_ring(t, IPU_QUEUE_CMD, 16);
	for (i = 0; i < nb; i++)
		*th_cmd_desc(t, (uint32_t)i) = bad[i];
	for (i = 0; i < nd; i++)
		*th_cmd_desc(t, (uint32_t)(nb + i)) = bad_desc[i];
	th_cmd_desc(t, (uint32_t)(nb + nd - 1))->flags = IPU_CQ_F_IRQ;
	assert_true(th_kick_wait(t, IPU_QUEUE_CMD, (uint32_t)(nb + nd)));
	for (i = 0; i < nb; i++)
		assert_int_equal(th_cmd_desc(t, (uint32_t)i)->status,
				 IPU_DESC_DONE | IPU_CQ_E_INVAL);
	for (i = 0; i + 1 < nd; i++)
		assert_int_equal(th_cmd_desc(t, (uint32_t)(nb + i))->status,
				 IPU_DESC_DONE | IPU_CQ_E_DESC);
	assert_int_equal(th_cmd_desc(t, (uint32_t)(nb + nd - 1))->status,
			 IPU_DESC_DONE | IPU_CQ_E_OPCODE);
	th_free(t);
}

/* A writeback address outside guest RAM (aligned, not wrapping: ENABLE
 * takes it) halts the queue at the first completion, with no queue
 * interrupt; what is published after stays untouched until a soft reset
 * completes it with E_RESET. */
static void test_an_unwritable_writeback_halts_the_queue(void **state)
{
	const uint64_t wb = GUEST_BASE + GUEST_SIZE;
	struct th *t = th_new();
	unsigned int misc, h2d;
	uint32_t n;

	(void)state;
	th_enable(t);
	wr64(t, QREG(0, IPU_Q_BASE), GUEST_BASE + G_RING(0));
	wr32(t, QREG(0, IPU_Q_SIZE), 16);
	wr64(t, QREG(0, IPU_Q_WB_ADDR), wb);
	wr32(t, QREG(0, IPU_Q_CTRL), IPU_Q_CTRL_ENABLE);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_CTRL)), IPU_Q_CTRL_ENABLE);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 64, IPU_DMA_F_IRQ);
	th_dma_put(t, 0, 1, GUEST_BASE + G_DATA, 64, 64, IPU_DMA_F_IRQ);
	misc = th_irqs(t, IPU_VEC_MISC);
	h2d = th_irqs(t, IPU_VEC_H2D);
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	assert_true(th_wait_irqs(t, IPU_VEC_MISC, misc + 1));
	/* The status word went out before the writeback failed. */
	assert_int_equal(th_dma_desc(t, 0, 0)->status, IPU_DESC_DONE);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 1);
	assert_true(rd32(t, QREG(0, IPU_Q_STATUS)) & IPU_Q_STATUS_HALTED);
	assert_true(rd32(t, IPU_REG_STATUS) & IPU_STATUS_QUEUE_ERROR);
	n = rd32(t, IPU_REG_ERR_COUNT) - 1;
	assert_int_equal(th_err_code(t, n), IPU_ERR_WRITEBACK);
	assert_int_equal(rd64(t, IPU_REG_ERR_LOG +
				    IPU_ERR_ENTRY_SIZE * (n % IPU_ERR_LOG_LEN) + 8),
			 wb);
	/* No completion interrupt for a batch whose writeback is lost. */
	assert_false(rd32(t, IPU_REG_IRQ_CAUSE) & IPU_IRQ_H2D);
	assert_int_equal(th_irqs(t, IPU_VEC_H2D), h2d);
	/* Halted: a new doorbell is taken but nothing starts; the reset
	 * completes the published descriptor, the done one keeps its word. */
	wr32(t, QREG(0, IPU_Q_TAIL), 2);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_TAIL)), 2);
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(th_dma_desc(t, 0, 1)->status,
			 IPU_DESC_DONE | IPU_DESC_E_RESET);
	assert_int_equal(th_dma_desc(t, 0, 0)->status, IPU_DESC_DONE);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_CTRL)), 0);
	assert_false(rd32(t, IPU_REG_STATUS) & IPU_STATUS_QUEUE_ERROR);
	/* And the queue works again with a writeback in RAM (reset masked
	 * the interrupts). */
	wr32(t, IPU_REG_IRQ_MASK, 0);
	th_ring(t, IPU_QUEUE_H2D, 16);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 64, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 1));
	assert_int_equal(th_dma_desc(t, 0, 0)->status, IPU_DESC_DONE);
	assert_int_equal(th_wb(t, 0)->head, 1);
	th_free(t);
}

static void *soft_reset_thread(void *arg)
{
	wr32(arg, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	return NULL;
}

/* Whether a reset has told queue @q to drop its descriptor in progress
 * (it then waits, lock released, for the queue to go idle). */
static bool reset_pending(struct th *t, unsigned int q)
{
	bool pending;

	pthread_mutex_lock(&t->dev->lock);
	pending = t->dev->queues[q].discard;
	pthread_mutex_unlock(&t->dev->lock);
	return pending;
}

/* A soft reset while a DMA descriptor is mid-transfer: the reset waits
 * for the transfer, then that descriptor and the one behind it complete
 * with E_RESET; HEAD never moved, no completion interrupt, the one behind
 * never started. */
static void test_soft_reset_during_a_transfer(void **state)
{
	const uint64_t gate = GUEST_BASE + G_DATA + 0x8000;
	struct th *t = th_new();
	time_t end = time(NULL) + WAIT_LIMIT_S;
	unsigned long calls;
	pthread_t thr;

	(void)state;
	th_enable(t);
	th_ring(t, IPU_QUEUE_H2D, 16);
	t->h.gate = gate;
	th_dma_put(t, 0, 0, gate, 0, 64, IPU_DMA_F_IRQ);
	th_dma_put(t, 0, 1, GUEST_BASE + G_DATA, 64, 64, IPU_DMA_F_IRQ);
	wr32(t, QREG(0, IPU_Q_TAIL), 2);
	assert_true(th_gate_reached(t));
	calls = __atomic_load_n(&t->h.dma_calls, __ATOMIC_SEQ_CST);
	assert_int_equal(pthread_create(&thr, NULL, soft_reset_thread, t), 0);
	while (!reset_pending(t, 0)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
	th_gate_open(t);
	assert_int_equal(pthread_join(thr, NULL), 0);
	assert_int_equal(rd32(t, IPU_REG_RESET_COUNT), 1);
	assert_int_equal(th_dma_desc(t, 0, 0)->status,
			 IPU_DESC_DONE | IPU_DESC_E_RESET);
	assert_int_equal(th_dma_desc(t, 0, 1)->status,
			 IPU_DESC_DONE | IPU_DESC_E_RESET);
	assert_int_equal(th_irqs(t, IPU_VEC_H2D), 0);
	assert_int_equal(th_wb(t, 0)->head, 0);
	/* Since the gate (the stalled read counted already): the reset's two
	 * E_RESET words and nothing else; nobody fetched descriptor 1. */
	assert_int_equal(__atomic_load_n(&t->h.dma_calls, __ATOMIC_SEQ_CST),
			 calls + 2);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_CTRL)), 0);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_STATUS)), 0);
	th_free(t);
}

/* BAR2's memfd goes to the client, which maps it; a hostile client could
 * also resize it, and the device's own accesses to a shrunk file would
 * take SIGBUS. The file is sealed: its size stays what the BAR says. */
static void test_the_client_cannot_resize_device_memory(void **state)
{
	struct th *t = th_new();
	struct emu_region r;
	uint8_t m[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, back[8];
	struct stat st;

	(void)state;
	assert_int_equal(emu_dev_region(t->dev, IPU_BAR_MEM, &r), 0);
	assert_true(r.mmap_fd >= 0);
	assert_int_equal(ftruncate(r.mmap_fd, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(r.mmap_fd, (off_t)r.size * 2), -1);
	assert_int_equal(errno, EPERM);
	/* Nor may the seals be lifted: F_SEAL_SEAL is among them. */
	assert_int_equal(fcntl(r.mmap_fd, F_GET_SEALS) &
			 (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
			 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	assert_int_equal(fstat(r.mmap_fd, &st), 0);
	assert_int_equal((uint64_t)st.st_size, r.size);
	/* The device still reaches its last byte. */
	assert_int_equal(emu_dev_bar_write(t->dev, IPU_BAR_MEM, r.size - 8, m, 8), 0);
	assert_int_equal(emu_dev_bar_read(t->dev, IPU_BAR_MEM, r.size - 8, back, 8), 0);
	assert_memory_equal(m, back, 8);
	th_free(t);
}

/* Off the bus: reads are all ones, writes and doorbells do nothing, no
 * DMA and no interrupt. */
static void test_off_the_bus_nothing_moves(void **state)
{
	struct th *t = th_new();
	uint32_t tail, head, resets;
	unsigned long calls;
	uint8_t m[8];
	bool busy;

	(void)state;
	th_enable(t);
	th_ring(t, IPU_QUEUE_H2D, 16);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 64, IPU_DMA_F_IRQ);
	assert_int_equal(emu_dev_fault(t->dev, "off_bus"), 0);
	assert_true(emu_dev_off_bus(t->dev));
	calls = __atomic_load_n(&t->h.dma_calls, __ATOMIC_SEQ_CST);
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	/* Inside, the doorbell and the reset were dropped: with HEAD ==
	 * TAIL no thread can start anything, however long we wait. */
	pthread_mutex_lock(&t->dev->lock);
	tail = t->dev->queues[0].tail;
	head = t->dev->queues[0].head;
	busy = t->dev->queues[0].busy;
	resets = t->dev->reset_count;
	pthread_mutex_unlock(&t->dev->lock);
	assert_int_equal(tail, 0);
	assert_int_equal(head, 0);
	assert_false(busy);
	assert_int_equal(resets, 0);
	assert_int_equal(__atomic_load_n(&t->h.dma_calls, __ATOMIC_SEQ_CST), calls);
	assert_int_equal(th_dma_desc(t, 0, 0)->status, 0);
	assert_int_equal(rd32(t, IPU_REG_ID), 0xffffffffu);
	assert_int_equal(rd64(t, QREG(0, IPU_Q_BASE)), UINT64_MAX);
	th_mem_read(t, 0, m, sizeof(m));
	for (size_t i = 0; i < sizeof(m); i++)
		assert_int_equal(m[i], 0xff);
	assert_int_equal(emu_dev_flr(t->dev), 0);
	assert_int_equal(rd32(t, IPU_REG_ID), 0xffffffffu);
	th_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rings_that_wrap_are_not_enabled),
		cmocka_unit_test(test_tail_out_of_range_is_refused),
		cmocka_unit_test(test_dma_ranges_that_wrap_are_refused),
		cmocka_unit_test(test_firmware_ranges_that_wrap_fail_the_boot),
		cmocka_unit_test(test_launch_ranges_that_wrap_are_refused),
		cmocka_unit_test(test_an_unwritable_writeback_halts_the_queue),
		cmocka_unit_test(test_the_client_cannot_resize_device_memory),
		cmocka_unit_test(test_soft_reset_during_a_transfer),
		cmocka_unit_test(test_off_the_bus_nothing_moves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
