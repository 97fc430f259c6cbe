// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_lock.c - no host access of the PCIe IPU model holds its
 * registers: while the host keeps a status word, a writeback record, a
 * reset's E_RESET word or the bad_writeback fault's lie from completing
 * (a client that answers a DMA_WRITE late, QEMU whose main loop waits for
 * the BQL that a vCPU holds while it reads a register), a register read
 * of the same device from another thread is answered; and once the host
 * lets the access through, the descriptor completes as it would have.
 *
 * The host holds the access at the fake host's gate (emu_dev_helpers.h);
 * every wait is for an event, bounded by a safety limit.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"

#define LEN		256u
#define DEV_AT		0x100u

/* IPU with queue 0's ring of 16, descriptor 0 moving LEN bytes of
 * G_DATA to DEV_AT with IRQ; the host holds a write at @wgate. */
static struct th *ready(uint64_t wgate)
{
	struct th *t = th_new();
	unsigned int i;

	assert_non_null(t);
	th_enable(t);
	th_ring(t, 0, 16);
	for (i = 0; i < LEN; i++)
		t->h.mem[G_DATA + i] = (uint8_t)(i * 7 + 3);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, DEV_AT, LEN, IPU_DMA_F_IRQ);
	t->h.wgate = wgate;
	return t;
}

/* The gate opened: the descriptor completes, its data moved. */
static void assert_completes(struct th *t)
{
	uint8_t back[LEN];

	th_gate_open(t);
	assert_true(th_wait_irqs(t, IPU_VEC_H2D, 1));
	assert_int_equal(th_dma_desc(t, 0, 0)->status,
			 IPU_DESC_DONE | IPU_DESC_OK);
	assert_int_equal(th_wb(t, 0)->head, 1);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 1);
	th_mem_read(t, DEV_AT, back, LEN);
	assert_memory_equal(back, t->h.mem + G_DATA, LEN);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), 0);
}

static void test_a_held_status_word_holds_no_register_read(void **state)
{
	struct th *t = ready(GUEST_BASE + G_RING(0) + IPU_DESC_STATUS_OFF);
	uint32_t v;

	(void)state;
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	assert_true(th_gate_reached(t));
	assert_true(th_read_while_held(t, QREG(0, IPU_Q_STATUS), &v));
	/* Still the device's: busy, HEAD not past it yet. */
	assert_true(v & IPU_Q_STATUS_BUSY);
	assert_true(th_read_while_held(t, QREG(0, IPU_Q_HEAD), &v));
	assert_int_equal(v, 0);
	assert_completes(t);
	th_free(t);
}

static void test_a_held_writeback_holds_no_register_read(void **state)
{
	struct th *t = ready(GUEST_BASE + G_WB(0));
	uint32_t v;

	(void)state;
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	assert_true(th_gate_reached(t));
	assert_true(th_read_while_held(t, IPU_REG_SCRATCH, &v));
	assert_int_equal(v, 0);
	assert_completes(t);
	th_free(t);
}

/* The bad_writeback fault's lie, held: the same. */
static void test_a_held_lie_holds_no_register_read(void **state)
{
	struct th *t = ready(GUEST_BASE + G_WB(0));
	uint32_t v;

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "bad_writeback=early"), 0);
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	assert_true(th_gate_reached(t));
	assert_true(th_read_while_held(t, QREG(0, IPU_Q_HEAD), &v));
	assert_int_equal(v, 0);
	th_gate_open(t);
	/* The lie's interrupt; then the descriptor waits for a TAIL write. */
	assert_true(th_wait_irqs(t, IPU_VEC_H2D, 1));
	assert_int_equal(th_wb(t, 0)->head, 1);
	assert_int_equal(th_dma_desc(t, 0, 0)->status, 0);
	th_free(t);
}

struct writer {
	struct th *t;
	uint32_t off, val;
};

static void *write_fn(void *arg)
{
	struct writer *w = arg;

	wr32(w->t, w->off, w->val);
	return NULL;
}

/*
 * A soft reset (window 0: done in the writer's call) writes E_RESET into
 * the published descriptors; the host holds the second one's. A read
 * from another thread is answered meanwhile: the reset is not over
 * (RESET_COUNT has not moved); once the write goes through, it is.
 */
static void test_a_held_reset_word_holds_no_register_read(void **state)
{
	struct th *t = ready(GUEST_BASE + G_RING(0) + sizeof(struct ipu_dma_desc) +
			     IPU_DESC_STATUS_OFF);
	struct writer w = { t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC };
	time_t end = time(NULL) + WAIT_LIMIT_S;
	pthread_t tid;
	uint32_t v, i;

	(void)state;
	for (i = 1; i < 3; i++)
		th_dma_put(t, 0, i, GUEST_BASE + G_DATA, DEV_AT, LEN, 0);
	/* Descriptor 0 stalls: 1 and 2 stay published. */
	assert_int_equal(emu_dev_fault(t->dev, "hang_dma=1"), 0);
	wr32(t, QREG(0, IPU_Q_TAIL), 3);
	while (!emu_dev_stalled(t->dev)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
	assert_int_equal(pthread_create(&tid, NULL, write_fn, &w), 0);
	assert_true(th_gate_reached(t));
	assert_true(th_read_while_held(t, IPU_REG_RESET_COUNT, &v));
	assert_int_equal(v, 0);
	th_gate_open(t);
	pthread_join(tid, NULL);
	assert_int_equal(rd32(t, IPU_REG_RESET_COUNT), 1);
	for (i = 0; i < 3; i++)
		assert_int_equal(th_dma_desc(t, 0, i)->status,
				 IPU_DESC_DONE | IPU_DESC_E_RESET);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_CTRL)), 0);
	th_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_held_status_word_holds_no_register_read),
		cmocka_unit_test(test_a_held_writeback_holds_no_register_read),
		cmocka_unit_test(test_a_held_lie_holds_no_register_read),
		cmocka_unit_test(test_a_held_reset_word_holds_no_register_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
