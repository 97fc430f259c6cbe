// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_regs.c - the BAR0 register file of the PCIe IPU model
 * (docs/hardware.md sections 2, 3, 6, 7): reset values, access rules
 * (size, alignment, offset), RO/RW/RW1C/WO behaviour, interrupt causes,
 * masking and vectors, the error log, telemetry, soft reset, and the
 * fault spec parser.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"

static void test_reset_values(void **state)
{
	struct th *t = th_new_opts(1u << 20, 5, 1, NULL, NULL);
	unsigned int q;

	(void)state;
	assert_int_equal(rd32(t, IPU_REG_ID), IPU_ID_VALUE);
	assert_int_equal(rd32(t, IPU_REG_VERSION), IPU_SPEC_VERSION);
	assert_int_equal(rd32(t, IPU_REG_CAPS), 0x0004037f);
	assert_int_equal(rd32(t, IPU_REG_LINK_INDEX), 5);
	assert_int_equal(rd32(t, IPU_REG_STATUS), 0);
	assert_int_equal(rd32(t, IPU_REG_RESET_COUNT), 0);
	assert_int_equal(rd32(t, IPU_REG_IRQ_CAUSE), 0);
	assert_int_equal(rd32(t, IPU_REG_IRQ_MASK), IPU_IRQ_ALL);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_OFF);
	assert_int_equal(rd32(t, IPU_REG_FW_VERSION), 0);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), 0);
	for (q = 0; q < IPU_NUM_QUEUES; q++) {
		assert_int_equal(rd64(t, QREG(q, IPU_Q_BASE)), 0);
		assert_int_equal(rd32(t, QREG(q, IPU_Q_CTRL)), 0);
		assert_int_equal(rd32(t, QREG(q, IPU_Q_HEAD)), 0);
		assert_int_equal(rd32(t, QREG(q, IPU_Q_TAIL)), 0);
		assert_int_equal(rd32(t, QREG(q, IPU_Q_DEADLINE_MS)),
				 q == IPU_QUEUE_CMD ? IPU_CQ_DEFAULT_DEADLINE_MS : 0);
	}
	th_free(t);
}

static void test_link_id_is_shared_by_the_ipus_of_a_process(void **state)
{
	struct th *a = th_new_opts(1u << 20, 0, 1, NULL, NULL);
	struct th *b = th_new_opts(1u << 20, 1, 2, NULL, NULL);

	(void)state;
	assert_int_equal(rd32(a, IPU_REG_LINK_ID), rd32(b, IPU_REG_LINK_ID));
	assert_int_not_equal(rd32(a, IPU_REG_LINK_ID), 0);
	th_free(a);
	th_free(b);
}

static void test_bad_sizes_alignments_and_offsets_are_refused(void **state)
{
	struct th *t = th_new();
	uint64_t v = 0;

	(void)state;
	assert_int_equal(emu_dev_bar_read(t->dev, 0, 0, &v, 2), -EINVAL);
	assert_int_equal(emu_dev_bar_read(t->dev, 0, 0, &v, 1), -EINVAL);
	assert_int_equal(emu_dev_bar_read(t->dev, 0, 2, &v, 4), -EINVAL);
	assert_int_equal(emu_dev_bar_read(t->dev, 0, 4, &v, 8), -EINVAL);
	assert_int_equal(emu_dev_bar_write(t->dev, 0, 1, &v, 4), -EINVAL);
	assert_int_equal(emu_dev_bar_read(t->dev, 0, IPU_BAR_REGS_SIZE, &v, 4),
			 -EINVAL);
	assert_int_equal(emu_dev_bar_read(t->dev, 0, UINT64_MAX - 3, &v, 4),
			 -EINVAL);
	assert_int_equal(emu_dev_bar_read(t->dev, 1, 0, &v, 4), -EINVAL);
	assert_int_equal(emu_dev_bar_read(t->dev, 2, 1u << 20, &v, 4), -EINVAL);
	assert_int_equal(emu_dev_bar_read(t->dev, EMU_NUM_BARS, 0, &v, 4),
			 -EINVAL);
	/* The last word is fine; unassigned offsets read 0. */
	assert_int_equal(emu_dev_bar_read(t->dev, 0, IPU_BAR_REGS_SIZE - 4, &v, 4), 0);
	assert_int_equal(rd32(t, 0x7000), 0);
	th_free(t);
}

static void test_read_only_registers_ignore_writes(void **state)
{
	struct th *t = th_new();

	(void)state;
	wr32(t, IPU_REG_ID, 0);
	wr32(t, IPU_REG_STATUS, ~0u);
	wr32(t, IPU_REG_RESET_COUNT, 9);
	wr32(t, IPU_REG_FW_STATUS, IPU_FW_STATE_READY);
	wr32(t, QREG(0, IPU_Q_HEAD), 3);
	wr32(t, IPU_REG_ERR_LOG, 42);
	assert_int_equal(rd32(t, IPU_REG_ID), IPU_ID_VALUE);
	assert_int_equal(rd32(t, IPU_REG_STATUS), 0);
	assert_int_equal(rd32(t, IPU_REG_RESET_COUNT), 0);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_OFF);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_HEAD)), 0);
	assert_int_equal(rd32(t, IPU_REG_ERR_LOG), 0);
	th_free(t);
}

static void test_64bit_registers_take_one_or_two_accesses(void **state)
{
	struct th *t = th_new();

	(void)state;
	wr64(t, QREG(1, IPU_Q_BASE), 0x1122334455667780ull);
	assert_int_equal(rd64(t, QREG(1, IPU_Q_BASE)), 0x1122334455667780ull);
	assert_int_equal(rd32(t, QREG(1, IPU_Q_BASE) + 4), 0x11223344);
	wr32(t, QREG(1, IPU_Q_BASE), 0xabcdef00);
	assert_int_equal(rd64(t, QREG(1, IPU_Q_BASE)), 0x11223344abcdef00ull);
	/* An 8-byte access over two 32-bit registers: both. */
	wr64(t, IPU_REG_SCRATCH, 0x0000000700000009ull);
	assert_int_equal(rd32(t, IPU_REG_SCRATCH), 9);
	th_free(t);
}

static void test_a_masked_cause_latches_and_fires_on_unmask(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_msgs_on(t);	/* messages need Bus Master (v2), MSI-X Enable */
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(rd32(t, IPU_REG_IRQ_CAUSE), IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	wr32(t, IPU_REG_IRQ_MASK, ~IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 1);
	assert_int_equal(rd32(t, IPU_REG_IRQ_MASK), IPU_IRQ_ALL & ~IPU_IRQ_SW);
	th_free(t);
}

static void test_self_test_doorbell_fires_vector_0_once(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_msgs_on(t);	/* messages need Bus Master (v2), MSI-X Enable */
	wr32(t, IPU_REG_IRQ_MASK, ~IPU_IRQ_SW);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 1);
	/* Set already: no new message until acknowledged. */
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 1);
	wr32(t, IPU_REG_IRQ_CAUSE, IPU_IRQ_SW);
	assert_int_equal(rd32(t, IPU_REG_IRQ_CAUSE), 0);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 2);
	th_free(t);
}

static void test_each_cause_goes_to_its_vector(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_msgs_on(t);	/* messages need Bus Master (v2), MSI-X Enable */
	wr32(t, IPU_REG_IRQ_MASK, 0);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_H2D | IPU_IRQ_CMD);
	assert_int_equal(th_irqs(t, IPU_VEC_H2D), 1);
	assert_int_equal(th_irqs(t, IPU_VEC_D2H), 0);
	assert_int_equal(th_irqs(t, IPU_VEC_CMD), 1);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_D2H | 0x80);	/* 0x80: no cause */
	assert_int_equal(th_irqs(t, IPU_VEC_D2H), 1);
	assert_int_equal(rd32(t, IPU_REG_IRQ_CAUSE),
			 IPU_IRQ_H2D | IPU_IRQ_D2H | IPU_IRQ_CMD);
	/* GATHER shares the command queue's vector. */
	wr32(t, IPU_REG_IRQ_CAUSE, IPU_IRQ_CMD);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_GATHER);
	assert_int_equal(th_irqs(t, IPU_VEC_CMD), 2);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	th_free(t);
}

static void test_a_vector_without_eventfd_loses_its_message(void **state)
{
	struct th *t = th_new();

	(void)state;
	t->h.missing = 1u << IPU_VEC_MISC;
	wr32(t, IPU_REG_IRQ_MASK, 0);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	assert_int_equal(rd32(t, IPU_REG_IRQ_CAUSE), IPU_IRQ_SW);
	th_free(t);
}

static void test_error_log_wraps_after_16_entries(void **state)
{
	struct th *t = th_new();
	uint32_t i;

	(void)state;
	for (i = 0; i < 20; i++)
		wr32(t, IPU_REG_SOFT_RESET, i);	/* not the magic: logged */
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), 20);
	assert_int_equal(rd32(t, IPU_REG_RESET_COUNT), 0);
	/* Entry 19 sits in slot 3: code, info, detail. */
	assert_int_equal(rd32(t, IPU_REG_ERR_LOG + 3 * 16), IPU_ERR_BAD_RESET);
	assert_int_equal(rd64(t, IPU_REG_ERR_LOG + 3 * 16 + 8), 19);
	assert_int_equal(rd64(t, IPU_REG_ERR_LOG + 4 * 16 + 8), 4);
	assert_true(rd32(t, IPU_REG_IRQ_CAUSE) & IPU_IRQ_ERROR);
	th_free(t);
}

static void test_soft_reset_keeps_firmware_and_log(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_enable(t);
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	wr32(t, IPU_REG_SCRATCH, 5);
	wr32(t, IPU_REG_SOFT_RESET, 1);		/* logged, no reset */
	th_ring(t, IPU_QUEUE_H2D, 8);
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(rd32(t, IPU_REG_RESET_COUNT), 1);
	assert_int_equal(rd32(t, IPU_REG_SCRATCH), 0);
	assert_int_equal(rd32(t, IPU_REG_IRQ_MASK), IPU_IRQ_ALL);
	assert_int_equal(rd32(t, IPU_REG_IRQ_CAUSE), 0);
	assert_int_equal(rd32(t, QREG(0, IPU_Q_CTRL)), 0);
	assert_int_equal(rd64(t, QREG(0, IPU_Q_BASE)), 0);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_READY);
	assert_int_equal(rd32(t, IPU_REG_FW_VERSION), 0x010000);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), 1);
	th_free(t);
}

static void test_flr_returns_to_power_on_but_keeps_memory(void **state)
{
	struct th *t = th_new();
	uint32_t v = 0xcafe, back = 0;

	(void)state;
	th_enable(t);
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	th_mem_write(t, 0x8000, &v, 4);
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(emu_dev_fault(t->dev, "mem_ce=3"), 0);
	assert_int_equal(emu_dev_flr(t->dev), 0);
	assert_int_equal(rd32(t, IPU_REG_RESET_COUNT), 0);
	assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), 0);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_OFF);
	assert_int_equal(rd32(t, IPU_REG_FW_VERSION), 0);
	assert_int_equal(rd32(t, IPU_REG_MEM_CE), 3);
	assert_int_equal(cfg16(t, 0x04), 0);
	th_mem_read(t, 0x8000, &back, 4);
	assert_int_equal(back, 0xcafe);
	th_free(t);
}

static void test_telemetry_idle_values_and_memory_errors(void **state)
{
	struct th *t = th_new();

	(void)state;
	assert_int_equal(rd32(t, IPU_REG_TEMP_MC), 40000);
	assert_int_equal(rd32(t, IPU_REG_POWER_MW), 25000);
	assert_int_equal(rd32(t, IPU_REG_CORE_CLK_MHZ), 1850);
	assert_int_equal(rd32(t, IPU_REG_MEM_CLK_MHZ), 1600);
	assert_int_equal(rd32(t, IPU_REG_MEM_UE), 0);
	assert_int_equal(emu_dev_fault(t->dev, "mem_ue=2,mem_ce=1"), 0);
	assert_int_equal(rd32(t, IPU_REG_MEM_UE), 2);
	assert_int_equal(rd32(t, IPU_REG_MEM_CE), 1);
	assert_int_equal(th_last_err(t), IPU_ERR_MEM_UE);
	assert_int_equal(rd64(t, IPU_REG_DMA_H2D_BYTES), 0);
	th_free(t);
}

/*
 * caps_xor: CAPS reads XOR the value (a device that says something else,
 * for the driver's probe checks), until caps_xor=0 or clear.
 */
static void test_caps_xor_changes_what_caps_says(void **state)
{
	struct th *t = th_new();

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "caps_xor=-1"), -EINVAL);
	assert_int_equal(emu_dev_fault(t->dev, "caps_xor"), -EINVAL);
	assert_int_equal(emu_dev_fault(t->dev, "caps_xor=4294967296"), -EINVAL);
	assert_int_equal(rd32(t, IPU_REG_CAPS), 0x0004037f);
	assert_int_equal(emu_dev_fault(t->dev, "caps_xor=2"), 0);
	assert_int_equal(rd32(t, IPU_REG_CAPS), 0x0004037d);
	assert_int_equal(emu_dev_fault(t->dev, "caps_xor=128"), 0);
	assert_int_equal(rd32(t, IPU_REG_CAPS), 0x000403ff);
	assert_int_equal(emu_dev_fault(t->dev, "caps_xor=0"), 0);
	assert_int_equal(rd32(t, IPU_REG_CAPS), 0x0004037f);
	assert_int_equal(emu_dev_fault(t->dev, "caps_xor=4"), 0);
	assert_int_equal(emu_dev_fault(t->dev, "clear"), 0);
	assert_int_equal(rd32(t, IPU_REG_CAPS), 0x0004037f);
	th_free(t);
}

static void test_bad_fault_specs_change_nothing(void **state)
{
	static const char *const bad[] = {
		"", "nope", "fail_dma", "fail_dma=0", "fail_dma=-1", "fail_dma=1x",
		"link_speed=5", "link_width=3", "link_width=32", "refuse_fw=2",
		"off_bus=1", "mem_ce=1,", ",mem_ce=1", "mem_ce=1,,mem_ue=1",
		"mem_ce=2,bogus", "hang_dma", "hang_dma=0",
	};
	struct th *t = th_new();
	size_t i;
	int err;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(emu_dev_fault(t->dev, bad[i]), -EINVAL);
	assert_int_equal(rd32(t, IPU_REG_MEM_CE), 0);
	assert_int_equal(rd32(t, IPU_REG_STATUS), 0);
	assert_false(emu_dev_off_bus(t->dev));
	assert_int_equal(emu_dev_fault(t->dev, "clear"), 0);
	/* A bad spec at creation fails it. */
	assert_null(th_new_opts(1u << 20, 0, 1, "whatever", &err));
	assert_int_equal(err, -EINVAL);
	th_free(t);
}

static void test_bad_creation_options_are_refused(void **state)
{
	int err;

	(void)state;
	assert_null(th_new_opts(3u << 20, 0, 1, NULL, &err));
	assert_int_equal(err, -EINVAL);
	assert_null(th_new_opts(1u << 19, 0, 1, NULL, &err));
	assert_int_equal(err, -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_values),
		cmocka_unit_test(test_link_id_is_shared_by_the_ipus_of_a_process),
		cmocka_unit_test(test_bad_sizes_alignments_and_offsets_are_refused),
		cmocka_unit_test(test_read_only_registers_ignore_writes),
		cmocka_unit_test(test_64bit_registers_take_one_or_two_accesses),
		cmocka_unit_test(test_a_masked_cause_latches_and_fires_on_unmask),
		cmocka_unit_test(test_self_test_doorbell_fires_vector_0_once),
		cmocka_unit_test(test_each_cause_goes_to_its_vector),
		cmocka_unit_test(test_a_vector_without_eventfd_loses_its_message),
		cmocka_unit_test(test_error_log_wraps_after_16_entries),
		cmocka_unit_test(test_soft_reset_keeps_firmware_and_log),
		cmocka_unit_test(test_flr_returns_to_power_on_but_keeps_memory),
		cmocka_unit_test(test_telemetry_idle_values_and_memory_errors),
		cmocka_unit_test(test_caps_xor_changes_what_caps_says),
		cmocka_unit_test(test_bad_fault_specs_change_nothing),
		cmocka_unit_test(test_bad_creation_options_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
