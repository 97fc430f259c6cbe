// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_bus.c - the PCIe IPU model as a bus master
 * (docs/hardware.md v2, Bus Master Enable and interrupts): with the Command
 * register's BME clear the device reaches no host memory on any path (the
 * descriptor fetch, the data, the status word, the writeback record) and
 * its queue halts with ERR_BUS_MASTER; interrupt messages due meanwhile
 * become pending (MSI-X: the PBA; MSI: per message) and go out when BME is
 * set again; an FLR writes nothing to host memory. The MSI-X PBA: a vector
 * that fires while masked (Function Mask, the vector's mask bit) is
 * pending until unmasked. `--lenient bme` (EMU_LENIENT_BME) gives v1 back.
 *
 * Waits poll the device's registers or the fake host's memory until the
 * device has done one thing or the other, never a time.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"

#define PCI_COMMAND	0x04
#define CMD_MEM		0x0002
#define CMD_MEM_MASTER	0x0006
#define MSIX_CTRL	(IPU_CFG_MSIX_CAP + 2)
#define MSIX_ENABLE	0x8000
#define MSIX_FMASK	0x4000
#define MSI_CTRL	(IPU_CFG_MSI_CAP + 2)

static void bme(struct th *t, int on)
{
	cfgw16(t, PCI_COMMAND, on ? CMD_MEM_MASTER : CMD_MEM);
}

/* Bus mastering on, every cause unmasked, DMA rings 0 and 1 enabled. */
static struct th *ready_opts(unsigned int lenient)
{
	struct emu_dev_opts o = {
		.mem_size = 1u << 20, .serial = 1, .lenient = lenient,
	};
	struct th *t = th_new_dev(&o, NULL);

	assert_non_null(t);
	th_enable(t);
	th_ring(t, IPU_QUEUE_H2D, 8);
	th_ring(t, IPU_QUEUE_D2H, 8);
	return t;
}

static struct th *ready(void)
{
	return ready_opts(0);
}

static unsigned long host_calls(struct th *t)
{
	return __atomic_load_n(&t->h.dma_calls, __ATOMIC_SEQ_CST);
}

/* Publish descriptors up to @tail on queue 0, the next one the hang_dma
 * fault stalls; wait until the device holds it. */
static void stall_queue_0(struct th *t, uint32_t tail)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;

	assert_int_equal(emu_dev_fault(t->dev, "hang_dma=1"), 0);
	wr32(t, QREG(0, IPU_Q_TAIL), tail);
	while (!emu_dev_stalled(t->dev)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
}

/* Wait until queue @q halted or descriptor @idx got a status word. */
static void wait_halt_or_status(struct th *t, unsigned int q, uint32_t idx)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;

	while (!(rd32(t, QREG(q, IPU_Q_STATUS)) & IPU_Q_STATUS_HALTED) &&
	       !__atomic_load_n(&th_dma_desc(t, q, idx)->status,
				__ATOMIC_SEQ_CST)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
}

/*
 * Queue 0 moves descriptor 0 (8 bytes from G_DATA to device address
 * 0x100); BME clears while the device reads host memory at @addr (a
 * read already under way completes). Wait for the outcome: the
 * descriptor got no status word.
 */
static void clear_bme_during_read(struct th *t, uint64_t addr)
{
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0x100, 8, IPU_DMA_F_IRQ);
	t->h.gate = addr;
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	assert_true(th_gate_reached(t));
	bme(t, 0);
	th_gate_open(t);
	wait_halt_or_status(t, 0, 0);
	assert_int_equal(th_dma_desc(t, 0, 0)->status, 0);
}

/* The last error log entry: code, info, detail. */
static void last_err(struct th *t, uint32_t *code, uint32_t *info,
		     uint64_t *detail)
{
	uint32_t n = rd32(t, IPU_REG_ERR_COUNT);
	uint32_t at = IPU_REG_ERR_LOG + IPU_ERR_ENTRY_SIZE * ((n - 1) % IPU_ERR_LOG_LEN);

	assert_true(n > 0);
	*code = rd32(t, at);
	*info = rd32(t, at + 4);
	*detail = rd32(t, at + 8) | (uint64_t)rd32(t, at + 12) << 32;
}

/*
 * DMA queue @q halted on a refused access at @addr and sent no completion
 * interrupt; the ERROR interrupt of the halt is pending while BME is
 * clear, and sent once when it is set again.
 */
static void assert_bus_halt(struct th *t, unsigned int q, uint64_t addr)
{
	uint32_t code, info;
	uint64_t detail;

	assert_true(rd32(t, QREG(q, IPU_Q_STATUS)) & IPU_Q_STATUS_HALTED);
	assert_true(rd32(t, IPU_REG_STATUS) & IPU_STATUS_QUEUE_ERROR);
	last_err(t, &code, &info, &detail);
	assert_int_equal(code, IPU_ERR_BUS_MASTER);
	assert_int_equal(info, q);
	assert_int_equal(detail, addr);
	assert_int_equal(th_irqs(t, q == IPU_QUEUE_H2D ? IPU_VEC_H2D : IPU_VEC_D2H), 0);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 1u << IPU_VEC_MISC);
	bme(t, 1);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 1);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 0);
}

static void test_bme_clear_refuses_the_descriptor_fetch(void **state)
{
	struct th *t = ready();
	unsigned long calls;

	(void)state;
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 8, IPU_DMA_F_IRQ);
	bme(t, 0);
	calls = host_calls(t);
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	wait_halt_or_status(t, 0, 0);
	assert_int_equal(th_dma_desc(t, 0, 0)->status, 0);
	assert_int_equal(host_calls(t), calls);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 0);
	assert_bus_halt(t, 0, GUEST_BASE + G_RING(0));
	th_free(t);
}

/* BME clears while the descriptor is fetched: its data is not moved. */
static void test_bme_clear_refuses_the_data(void **state)
{
	struct th *t = ready();
	uint8_t zero[8] = { 0 }, got[8];

	(void)state;
	memset(t->h.mem + G_DATA, 0x5a, 8);
	clear_bme_during_read(t, GUEST_BASE + G_RING(0));
	th_mem_read(t, 0x100, got, sizeof(got));
	assert_memory_equal(got, zero, sizeof(got));
	assert_bus_halt(t, 0, GUEST_BASE + G_DATA);
	th_free(t);
}

/* BME clears while the data is read: no status word, no writeback. */
static void test_bme_clear_refuses_the_status_word(void **state)
{
	struct th *t = ready();
	struct ipu_queue_wb zero = { 0 };

	(void)state;
	clear_bme_during_read(t, GUEST_BASE + G_DATA);
	assert_memory_equal(th_wb(t, 0), &zero, sizeof(zero));
	assert_bus_halt(t, 0, GUEST_BASE + G_RING(0) + IPU_DESC_STATUS_OFF);
	th_free(t);
}

/* The writeback record (here the bad_writeback fault's, written before the
 * fetch) is not written either. */
static void test_bme_clear_refuses_the_writeback(void **state)
{
	struct th *t = ready();
	struct ipu_queue_wb zero = { 0 };
	time_t end = time(NULL) + WAIT_LIMIT_S;

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "bad_writeback=early"), 0);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0x100, 8, IPU_DMA_F_IRQ);
	bme(t, 0);
	wr32(t, QREG(0, IPU_Q_TAIL), 1);
	while (!(rd32(t, QREG(0, IPU_Q_STATUS)) & IPU_Q_STATUS_HALTED) &&
	       !__atomic_load_n(&th_wb(t, 0)->head, __ATOMIC_SEQ_CST)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
	assert_memory_equal(th_wb(t, 0), &zero, sizeof(zero));
	assert_bus_halt(t, 0, GUEST_BASE + G_WB(0));
	th_free(t);
}

/* An FLR clears BME first: the descriptors in flight are never completed
 * by the device (no E_RESET words), nothing reaches host memory. */
static void test_flr_writes_nothing_to_host_memory(void **state)
{
	struct th *t = ready();
	unsigned long calls;

	(void)state;
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0x100, 8, IPU_DMA_F_IRQ);
	th_dma_put(t, 0, 1, GUEST_BASE + G_DATA, 0x100, 8, IPU_DMA_F_IRQ);
	stall_queue_0(t, 2);
	calls = host_calls(t);
	assert_int_equal(emu_dev_flr(t->dev), 0);
	assert_int_equal(th_dma_desc(t, 0, 0)->status, 0);
	assert_int_equal(th_dma_desc(t, 0, 1)->status, 0);
	assert_int_equal(host_calls(t), calls);
	assert_int_equal(cfg16(t, PCI_COMMAND), 0);
	th_free(t);
}

/* MSI-X: a message due with BME clear sets the vector's PBA bit; setting
 * BME sends it once and clears the bit. */
static void test_msix_held_while_bme_is_clear(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_enable(t);
	bme(t, 0);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW | IPU_IRQ_D2H);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	assert_int_equal(th_irqs(t, IPU_VEC_D2H), 0);
	assert_int_equal(rd32(t, IPU_MSIX_PBA),
			 1u << IPU_VEC_MISC | 1u << IPU_VEC_D2H);
	bme(t, 0);	/* still clear: nothing */
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	bme(t, 1);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 1);
	assert_int_equal(th_irqs(t, IPU_VEC_D2H), 1);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 0);
	bme(t, 1);	/* once */
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 1);
	th_free(t);
}

/* MSI: held per message while BME is clear, sent when it is set. */
static void test_msi_held_while_bme_is_clear(void **state)
{
	struct th *t = th_new_msi();

	(void)state;
	cfgw16(t, MSI_CTRL, IPU_MSI_CTRL_ENABLE | 2 << IPU_MSI_CTRL_MME_SHIFT);
	wr32(t, IPU_REG_IRQ_MASK, 0);
	bme(t, 0);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW | IPU_IRQ_H2D);
	assert_int_equal(th_irqs(t, 0), 0);
	assert_int_equal(th_irqs(t, IPU_VEC_H2D), 0);
	bme(t, 1);
	assert_int_equal(th_irqs(t, 0), 1);
	assert_int_equal(th_irqs(t, IPU_VEC_H2D), 1);
	assert_int_equal(th_irqs(t, IPU_VEC_D2H), 0);
	bme(t, 1);
	assert_int_equal(th_irqs(t, 0), 1);
	th_free(t);
}

/* MSI-X Function Mask: the vector is pending until the mask clears. */
static void test_pba_function_mask(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_enable(t);
	cfgw16(t, MSIX_CTRL, MSIX_ENABLE | MSIX_FMASK);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 1u << IPU_VEC_MISC);
	/* The PBA is read-only. */
	wr32(t, IPU_MSIX_PBA, 0);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 1u << IPU_VEC_MISC);
	cfgw16(t, MSIX_CTRL, MSIX_ENABLE);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 1);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 0);
	th_free(t);
}

/* MSI-X Enable clear: the function sends nothing (no INTx) and holds
 * nothing; the cause latches, and enabling sends nothing by itself. */
static void test_msix_disabled_sends_and_holds_nothing(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_enable(t);
	cfgw16(t, MSIX_CTRL, 0);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(rd32(t, IPU_REG_IRQ_CAUSE), IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 0);
	cfgw16(t, MSIX_CTRL, MSIX_ENABLE);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	/* Found by a handler, or sent when the host next unmasks it. */
	wr32(t, IPU_REG_IRQ_MASK, IPU_IRQ_SW);
	wr32(t, IPU_REG_IRQ_MASK, 0);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 1);
	th_free(t);
}

/* A message held by Function Mask is dropped when MSI-X is disabled:
 * enabling again (unmasked) sends nothing. */
static void test_msix_disable_drops_what_is_held(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_enable(t);
	cfgw16(t, MSIX_CTRL, MSIX_ENABLE | MSIX_FMASK);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 1u << IPU_VEC_MISC);
	cfgw16(t, MSIX_CTRL, MSIX_FMASK);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 0);
	cfgw16(t, MSIX_CTRL, MSIX_ENABLE);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 0);
	th_free(t);
}

/* A vector's own mask bit (Vector Control bit 0 of its table entry). */
static void test_pba_vector_mask(void **state)
{
	struct th *t = th_new();
	uint32_t vctl = IPU_MSIX_TABLE + 16 * IPU_VEC_CMD + 12;

	(void)state;
	th_enable(t);
	wr32(t, vctl, 1);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_CMD | IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, IPU_VEC_CMD), 0);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 1);
	assert_int_equal(rd64(t, IPU_MSIX_PBA), 1u << IPU_VEC_CMD);
	wr32(t, vctl, 0);
	assert_int_equal(th_irqs(t, IPU_VEC_CMD), 1);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 0);
	/* FLR: the table and the PBA to their reset values. */
	wr32(t, vctl, 1);
	wr32(t, IPU_REG_IRQ_CAUSE, IPU_IRQ_CMD);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_CMD);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 1u << IPU_VEC_CMD);
	assert_int_equal(emu_dev_flr(t->dev), 0);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 0);
	th_free(t);
}

/* --lenient bme: v1. BME gates only the data (E_NO_MASTER), interrupts go
 * out regardless, an FLR writes E_RESET words. */
static void test_lenient_bme_is_v1(void **state)
{
	struct th *t = ready_opts(EMU_LENIENT_BME);

	(void)state;
	bme(t, 0);
	th_dma_put(t, 0, 0, GUEST_BASE + G_DATA, 0, 8, IPU_DMA_F_IRQ);
	assert_true(th_kick_wait(t, IPU_QUEUE_H2D, 1));
	assert_int_equal(th_dma_desc(t, 0, 0)->status,
			 IPU_DESC_DONE | IPU_DESC_E_NO_MASTER);
	assert_int_equal(rd32(t, IPU_MSIX_PBA), 0);
	bme(t, 1);
	th_dma_put(t, 0, 1, GUEST_BASE + G_DATA, 0x100, 8, IPU_DMA_F_IRQ);
	stall_queue_0(t, 2);
	assert_int_equal(emu_dev_flr(t->dev), 0);
	assert_int_equal(th_dma_desc(t, 0, 1)->status,
			 IPU_DESC_DONE | IPU_DESC_E_RESET);
	th_free(t);
}

/* The names --lenient takes. */
static void test_lenient_names(void **state)
{
	unsigned int mask = 7;

	(void)state;
	assert_int_equal(emu_lenient_parse("bme", &mask), 0);
	assert_int_equal(mask, EMU_LENIENT_BME);
	assert_int_equal(emu_lenient_parse("bme,bme", &mask), 0);
	assert_int_equal(mask, EMU_LENIENT_BME);
	mask = 7;
	assert_int_equal(emu_lenient_parse("nope", &mask), -EINVAL);
	assert_int_equal(emu_lenient_parse("bme,", &mask), -EINVAL);
	assert_int_equal(emu_lenient_parse("", &mask), -EINVAL);
	assert_int_equal(emu_lenient_parse("bmex", &mask), -EINVAL);
	assert_int_equal(mask, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bme_clear_refuses_the_descriptor_fetch),
		cmocka_unit_test(test_bme_clear_refuses_the_data),
		cmocka_unit_test(test_bme_clear_refuses_the_status_word),
		cmocka_unit_test(test_bme_clear_refuses_the_writeback),
		cmocka_unit_test(test_flr_writes_nothing_to_host_memory),
		cmocka_unit_test(test_msix_held_while_bme_is_clear),
		cmocka_unit_test(test_msi_held_while_bme_is_clear),
		cmocka_unit_test(test_pba_function_mask),
		cmocka_unit_test(test_msix_disabled_sends_and_holds_nothing),
		cmocka_unit_test(test_msix_disable_drops_what_is_held),
		cmocka_unit_test(test_pba_vector_mask),
		cmocka_unit_test(test_lenient_bme_is_v1),
		cmocka_unit_test(test_lenient_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
