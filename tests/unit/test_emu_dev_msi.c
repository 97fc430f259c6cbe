// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_msi.c - the PCIe IPU model presenting MSI instead of MSI-X
 * (ipu-emu --msi), against docs/hardware.md sections 1.2 and 6: the
 * capability in MSI-X's place (64-bit, 4 messages capable, no per-vector
 * masking) with its writable and read-only bits, no MSI-X table in BAR0,
 * CAPS' vector count, and which message each cause goes on when the host
 * enables 1, 2 or 4 messages (and a hostile Multiple Message Enable above
 * the capability), nothing while MSI Enable is clear, FLR back to
 * disabled.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"

#define MSI_CTRL	(IPU_CFG_MSI_CAP + 2)
#define MSI_ENABLE	IPU_MSI_CTRL_ENABLE
#define MME(n)		((uint16_t)((n) << IPU_MSI_CTRL_MME_SHIFT))

static void test_msi_capability_in_msix_place(void **state)
{
	struct th *t = th_new_msi();
	uint8_t ids[8];

	(void)state;
	assert_int_equal(th_cap_ids(t, ids, 8), 3);
	assert_int_equal(ids[0], 0x01);
	assert_int_equal(ids[1], 0x05);	/* MSI, not MSI-X */
	assert_int_equal(ids[2], 0x10);
	assert_int_equal(cfg16(t, IPU_CFG_MSI_CAP) >> 8, IPU_CFG_EXP_CAP);
	/* 64-bit, 4 messages capable, none enabled, no mask bits. */
	assert_int_equal(cfg16(t, MSI_CTRL), 0x0084);
	assert_int_equal(emu_dev_irq_vectors(t->dev), 4);
	assert_true(emu_dev_has_msi(t->dev));
	th_free(t);
}

static void test_msi_writable_bits(void **state)
{
	struct th *t = th_new_msi();
	uint32_t ones = 0xffffffff;

	(void)state;
	/* Enable and Multiple Message Enable only; the rest is RO. */
	cfgw16(t, MSI_CTRL, 0xffff);
	assert_int_equal(cfg16(t, MSI_CTRL), 0x00f5);
	assert_int_equal(emu_dev_cfg_write(t->dev, IPU_CFG_MSI_CAP + 4, &ones, 4), 0);
	assert_int_equal(cfg32(t, IPU_CFG_MSI_CAP + 4), 0xfffffffc);
	assert_int_equal(emu_dev_cfg_write(t->dev, IPU_CFG_MSI_CAP + 8, &ones, 4), 0);
	assert_int_equal(cfg32(t, IPU_CFG_MSI_CAP + 8), 0xffffffff);
	assert_int_equal(emu_dev_cfg_write(t->dev, IPU_CFG_MSI_CAP + 12, &ones, 4), 0);
	assert_int_equal(cfg32(t, IPU_CFG_MSI_CAP + 12), 0x0000ffff);
	/* Past the capability's 0x0e bytes: nothing, up to PCIe's. */
	assert_int_equal(cfg16(t, IPU_CFG_MSI_CAP + IPU_CFG_MSI_CAP_SIZE), 0);
	th_free(t);
}

static void test_no_msix_table_in_bar0_caps_says_4(void **state)
{
	struct th *t = th_new_msi();

	(void)state;
	wr32(t, IPU_MSIX_TABLE, 0x12345678);
	assert_int_equal(rd32(t, IPU_MSIX_TABLE), 0);
	assert_int_equal(rd32(t, IPU_REG_CAPS) >> IPU_CAPS_NVEC_SHIFT & 0xff, 4);
	th_free(t);
}

/* The spec's self-test, acknowledged: SW raised once. */
static void self_test(struct th *t)
{
	wr32(t, IPU_REG_IRQ_MASK, ~IPU_IRQ_SW);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	wr32(t, IPU_REG_IRQ_CAUSE, IPU_IRQ_SW);
}

static void test_nothing_while_msi_is_disabled(void **state)
{
	struct th *t = th_new_msi();

	(void)state;
	cfgw16(t, 0x04, 0x0006);	/* messages need Bus Master (v2) */
	self_test(t);
	for (unsigned int v = 0; v < IPU_MSI_MESSAGES; v++)
		assert_int_equal(th_irqs(t, v), 0);
	/* The cause latched all the same: enabling sends nothing by itself,
	 * the next unmask of a set cause does. */
	wr32(t, IPU_REG_IRQ_MASK, IPU_IRQ_ALL);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	cfgw16(t, MSI_CTRL, MSI_ENABLE);
	assert_int_equal(th_irqs(t, 0), 0);
	wr32(t, IPU_REG_IRQ_MASK, ~IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, 0), 1);
	th_free(t);
}

/* A device with MSI enabled, @mme (Multiple Message Enable), every cause
 * unmasked. */
static struct th *msi_on(unsigned int mme)
{
	struct th *t = th_new_msi();

	th_enable(t);
	cfgw16(t, MSI_CTRL, MSI_ENABLE | MME(mme));
	return t;
}

/* H2D raised: a one-descriptor batch with IRQ on the H2D queue. */
static void raise_h2d(struct th *t)
{
	th_ring(t, IPU_QUEUE_H2D, 4);
	th_dma_put(t, IPU_QUEUE_H2D, 0, GUEST_BASE + G_DATA, 0, 64,
		   IPU_DMA_F_IRQ);
	wr32(t, QREG(IPU_QUEUE_H2D, IPU_Q_TAIL), 1);
}

static void test_one_message_carries_every_cause(void **state)
{
	struct th *t = msi_on(0);

	(void)state;
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, 0), 1);
	/* Raised again before its acknowledgement: no new message. */
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, 0), 1);
	/* Another cause rising on the shared message sends one. */
	wr32(t, IPU_REG_SOFT_RESET, 1);		/* not the magic: ERROR */
	assert_int_equal(th_irqs(t, 0), 2);
	wr32(t, IPU_REG_IRQ_CAUSE, IPU_IRQ_ALL);
	raise_h2d(t);
	assert_true(th_wait_irqs(t, 0, 3));
	assert_true(rd32(t, IPU_REG_IRQ_CAUSE) & IPU_IRQ_H2D);
	for (unsigned int v = 1; v < IPU_MSI_MESSAGES; v++)
		assert_int_equal(th_irqs(t, v), 0);
	th_free(t);
}

static void test_two_messages_use_message_0_only(void **state)
{
	struct th *t = msi_on(1);

	(void)state;
	raise_h2d(t);
	assert_true(th_wait_irqs(t, 0, 1));
	assert_int_equal(th_irqs(t, IPU_VEC_H2D), 0);
	th_free(t);
}

static void test_four_messages_follow_the_vector_table(void **state)
{
	struct th *t = msi_on(2);

	(void)state;
	raise_h2d(t);
	assert_true(th_wait_irqs(t, IPU_VEC_H2D, 1));
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 1);
	assert_int_equal(th_irqs(t, IPU_VEC_D2H), 0);
	assert_int_equal(th_irqs(t, IPU_VEC_CMD), 0);
	th_free(t);
}

/* MME above the capability (the host must not): taken as 4, never more. */
static void test_hostile_mme_is_taken_as_4(void **state)
{
	struct th *t = msi_on(7);

	(void)state;
	assert_int_equal(cfg16(t, MSI_CTRL) & IPU_MSI_CTRL_MME_MASK, MME(7));
	raise_h2d(t);
	assert_true(th_wait_irqs(t, IPU_VEC_H2D, 1));
	assert_int_equal(th_irqs(t, 0), 0);
	th_free(t);
}

static void test_flr_disables_msi(void **state)
{
	struct th *t = th_new_msi();
	uint16_t flr = 0x8000 | 0x2810;

	(void)state;
	cfgw16(t, MSI_CTRL, MSI_ENABLE | MME(2));
	assert_int_equal(emu_dev_cfg_write(t->dev, IPU_CFG_EXP_CAP + 8, &flr, 2), 0);
	assert_int_equal(cfg16(t, MSI_CTRL), 0x0084);
	wr32(t, IPU_REG_IRQ_MASK, ~IPU_IRQ_SW);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, 0), 0);
	th_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msi_capability_in_msix_place),
		cmocka_unit_test(test_msi_writable_bits),
		cmocka_unit_test(test_no_msix_table_in_bar0_caps_says_4),
		cmocka_unit_test(test_nothing_while_msi_is_disabled),
		cmocka_unit_test(test_one_message_carries_every_cause),
		cmocka_unit_test(test_two_messages_use_message_0_only),
		cmocka_unit_test(test_four_messages_follow_the_vector_table),
		cmocka_unit_test(test_hostile_mme_is_taken_as_4),
		cmocka_unit_test(test_flr_disables_msi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
