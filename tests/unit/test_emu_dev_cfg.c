// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_cfg.c - the PCIe IPU model's config space against
 * docs/hardware.md section 1: IDs, class, the capability chain (PM, MSI-X
 * with its table in BAR0, PCIe Gen4 x16 Endpoint with FLR, DSN, AER), BAR
 * sizing, read-only and RW1C bits, Initiate FLR, D3hot keeping the state
 * and losing it (power_loss), link degradation, off the bus and back
 * (link_up), and the regions the transport exports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"

static void test_identity_and_class(void **state)
{
	struct th *t = th_new();

	(void)state;
	assert_int_equal(cfg16(t, 0x00), IPU_PCI_VENDOR_ID);
	assert_int_equal(cfg16(t, 0x02), IPU_PCI_DEVICE_ID);
	assert_int_equal(cfg32(t, 0x08), 0x12000001);
	assert_int_equal(cfg16(t, 0x2c), IPU_PCI_SUBSYS_VENDOR_ID);
	assert_int_equal(cfg16(t, 0x2e), IPU_PCI_SUBSYS_ID);
	assert_int_equal(cfg16(t, 0x06) & 0x10, 0x10);
	assert_int_equal(cfg32(t, 0x3c) >> 8 & 0xff, 0); /* no INTx pin */
	th_free(t);
}

static void test_capability_chain_is_pm_msix_pcie(void **state)
{
	struct th *t = th_new();
	uint8_t ids[8];

	(void)state;
	assert_int_equal(th_cap_ids(t, ids, 8), 3);
	assert_int_equal(ids[0], 0x01);
	assert_int_equal(ids[1], 0x11);
	assert_int_equal(ids[2], 0x10);
	th_free(t);
}

static void test_msix_has_4_vectors_table_and_pba_in_bar0(void **state)
{
	struct th *t = th_new();

	(void)state;
	assert_int_equal(cfg16(t, IPU_CFG_MSIX_CAP + 2) & 0x7ff, 3);
	assert_int_equal(cfg32(t, IPU_CFG_MSIX_CAP + 4), IPU_MSIX_TABLE);
	assert_int_equal(cfg32(t, IPU_CFG_MSIX_CAP + 8), IPU_MSIX_PBA);
	assert_int_equal(emu_dev_irq_vectors(t->dev), 4);
	/* Enable and Function Mask are writable, the size is not. */
	cfgw16(t, IPU_CFG_MSIX_CAP + 2, 0xffff);
	assert_int_equal(cfg16(t, IPU_CFG_MSIX_CAP + 2), 0xc003);
	th_free(t);
}

static void test_pcie_endpoint_gen4_x16_with_flr(void **state)
{
	struct th *t = th_new();

	(void)state;
	assert_int_equal(cfg16(t, IPU_CFG_EXP_CAP + 2), 0x0002);
	assert_true(cfg32(t, IPU_CFG_EXP_CAP + 4) & (1u << 28));
	assert_int_equal(cfg32(t, IPU_CFG_EXP_CAP + 0x0c) & 0x3ff, 0x104);
	assert_int_equal(cfg16(t, IPU_CFG_EXP_CAP + 0x12) & 0x3ff, 0x104);
	assert_int_equal(cfg32(t, IPU_CFG_EXP_CAP + 0x2c), 0x1e);
	/* Link Capabilities is read-only. */
	{
		uint32_t v = 0;

		assert_int_equal(emu_dev_cfg_write(t->dev, IPU_CFG_EXP_CAP + 0x0c,
						   &v, 4), 0);
	}
	assert_int_equal(cfg32(t, IPU_CFG_EXP_CAP + 0x0c) & 0x3ff, 0x104);
	th_free(t);
}

static void test_dsn_holds_the_serial(void **state)
{
	struct th *t = th_new_opts(1u << 20, 3, 0xfeedface01020304ull, NULL, NULL);

	(void)state;
	assert_int_equal(cfg32(t, IPU_CFG_DSN_CAP), IPU_CFG_AER_CAP << 20 | 0x00010003);
	assert_int_equal(cfg32(t, IPU_CFG_DSN_CAP + 4), 0x01020304);
	assert_int_equal(cfg32(t, IPU_CFG_DSN_CAP + 8), 0xfeedface);
	assert_int_equal(cfg32(t, IPU_CFG_DSN_CAP + 12), 0);
	th_free(t);
}

static void test_bar_sizing_gives_the_region_sizes(void **state)
{
	struct th *t = th_new_opts(8u << 20, 0, 1, NULL, NULL);
	uint32_t ones = 0xffffffff;
	struct emu_region r;

	(void)state;
	assert_int_equal(emu_dev_cfg_write(t->dev, 0x10, &ones, 4), 0);
	assert_int_equal(cfg32(t, 0x10), 0xffff0000);
	assert_int_equal(emu_dev_cfg_write(t->dev, 0x18, &ones, 4), 0);
	assert_int_equal(emu_dev_cfg_write(t->dev, 0x1c, &ones, 4), 0);
	assert_int_equal(cfg32(t, 0x18), 0xff80000c);
	assert_int_equal(cfg32(t, 0x1c), 0xffffffff);
	assert_int_equal(emu_dev_cfg_write(t->dev, 0x14, &ones, 4), 0);
	assert_int_equal(cfg32(t, 0x14), 0);

	assert_int_equal(emu_dev_region(t->dev, 0, &r), 0);
	assert_int_equal(r.size, IPU_BAR_REGS_SIZE);
	assert_int_equal(r.mmap_fd, -1);
	assert_int_equal(emu_dev_region(t->dev, 2, &r), 0);
	assert_int_equal(r.size, 8u << 20);
	assert_true(r.mmap_fd >= 0);
	assert_true(r.prefetchable && r.is_64bit);
	assert_int_equal(emu_dev_region(t->dev, 1, &r), 0);
	assert_int_equal(r.size, 0);
	assert_int_equal(emu_dev_region(t->dev, EMU_NUM_BARS, &r), -EINVAL);
	th_free(t);
}

static void test_read_only_bytes_keep_their_value(void **state)
{
	struct th *t = th_new();
	uint32_t junk = 0x5a5a5a5a;

	(void)state;
	assert_int_equal(emu_dev_cfg_write(t->dev, 0x00, &junk, 4), 0);
	assert_int_equal(emu_dev_cfg_write(t->dev, 0x08, &junk, 4), 0);
	assert_int_equal(emu_dev_cfg_write(t->dev, 0xf0, &junk, 4), 0);
	assert_int_equal(emu_dev_cfg_write(t->dev, 0x800, &junk, 4), 0);
	assert_int_equal(cfg16(t, 0x00), IPU_PCI_VENDOR_ID);
	assert_int_equal(cfg32(t, 0x08), 0x12000001);
	assert_int_equal(cfg32(t, 0xf0), 0);
	assert_int_equal(cfg32(t, 0x800), 0);
	/* Command: only the spec's bits. */
	cfgw16(t, 0x04, 0xffff);
	assert_int_equal(cfg16(t, 0x04), 0x0546);
	th_free(t);
}

static void test_accesses_outside_config_space_are_refused(void **state)
{
	struct th *t = th_new();
	uint8_t b[8];

	(void)state;
	assert_int_equal(emu_dev_cfg_read(t->dev, EMU_CFG_SIZE, b, 1), -EINVAL);
	assert_int_equal(emu_dev_cfg_read(t->dev, EMU_CFG_SIZE - 2, b, 4), -EINVAL);
	assert_int_equal(emu_dev_cfg_write(t->dev, EMU_CFG_SIZE - 1, b, 2), -EINVAL);
	assert_int_equal(emu_dev_cfg_read(t->dev, 0, b, 0), -EINVAL);
	assert_int_equal(emu_dev_cfg_read(t->dev, EMU_CFG_SIZE - 1, b, 1), 0);
	th_free(t);
}

static void test_initiate_flr_resets_the_function(void **state)
{
	struct th *t = th_new();

	(void)state;
	th_enable(t);
	wr32(t, IPU_REG_SCRATCH, 77);
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	cfgw16(t, IPU_CFG_EXP_CAP + 8, 0x2810 | 0x8000);
	assert_int_equal(cfg16(t, IPU_CFG_EXP_CAP + 8), 0x2810); /* reads 0 */
	assert_int_equal(cfg16(t, 0x04), 0);
	assert_int_equal(rd32(t, IPU_REG_SCRATCH), 0);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_OFF);
	th_free(t);
}

static void test_power_state_takes_d0_and_d3hot_only(void **state)
{
	struct th *t = th_new();

	(void)state;
	cfgw16(t, IPU_CFG_PM_CAP + 4, 3);
	assert_int_equal(cfg16(t, IPU_CFG_PM_CAP + 4) & 3, 3);
	cfgw16(t, IPU_CFG_PM_CAP + 4, 1);
	assert_int_equal(cfg16(t, IPU_CFG_PM_CAP + 4) & 3, 3);
	cfgw16(t, IPU_CFG_PM_CAP + 4, 0);
	assert_int_equal(cfg16(t, IPU_CFG_PM_CAP + 4) & 3, 0);
	th_free(t);
}

#define PMCSR (IPU_CFG_PM_CAP + 4)
#define MEM_PROBE ((1u << 20) - 4)

/* A booted function with ring 0 enabled and a word in device memory. */
static struct th *busy_function(uint32_t word)
{
	struct th *t = th_new();

	th_enable(t);
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	th_ring(t, 0, 16);
	assert_int_equal(emu_dev_bar_write(t->dev, IPU_BAR_MEM, MEM_PROBE, &word, 4), 0);
	return t;
}

static uint32_t mem_probe(struct th *t)
{
	uint32_t m = 1;

	assert_int_equal(emu_dev_bar_read(t->dev, IPU_BAR_MEM, MEM_PROBE, &m, 4), 0);
	return m;
}

/* D3hot and back keeps everything (No_Soft_Reset): firmware, rings, memory. */
static void test_d3hot_keeps_the_state(void **state)
{
	struct th *t = busy_function(0x5a5a5a5a);

	(void)state;
	cfgw16(t, PMCSR, 3);
	cfgw16(t, PMCSR, 0);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_READY);
	assert_int_equal(emu_dev_rings_enabled(t->dev), 1);
	assert_int_equal(mem_probe(t), 0x5a5a5a5a);
	assert_int_equal(cfg16(t, 0x04), 0x0006);
	th_free(t);
}

/*
 * power_loss: entering D3hot cuts the power. The function stays in D3
 * until the host writes D0, and is found in its power-on state: firmware
 * OFF, rings disabled, Command (Bus Master) clear, device memory zeros.
 * Lifted (power_loss=0, or clear), D3hot keeps the state again.
 */
static void test_power_loss_in_d3hot_is_a_power_on(void **state)
{
	struct th *t = busy_function(0x5a5a5a5a);
	uint32_t word = 0x77;

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "power_loss"), 0);
	/* Armed, the function in D0 keeps working. */
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_READY);
	cfgw16(t, PMCSR, 3);
	assert_int_equal(cfg16(t, PMCSR) & 3, 3);
	cfgw16(t, PMCSR, 0);
	assert_int_equal(cfg16(t, PMCSR), 0x0008);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_OFF);
	assert_int_equal(emu_dev_rings_enabled(t->dev), 0);
	assert_int_equal(cfg16(t, 0x04), 0);
	assert_int_equal(mem_probe(t), 0);
	/* It boots again; without the fault, D3hot keeps the state. */
	th_enable(t);
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	assert_int_equal(emu_dev_bar_write(t->dev, IPU_BAR_MEM, MEM_PROBE, &word, 4), 0);
	assert_int_equal(emu_dev_fault(t->dev, "power_loss=0"), 0);
	cfgw16(t, PMCSR, 3);
	cfgw16(t, PMCSR, 0);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_READY);
	assert_int_equal(mem_probe(t), 0x77);
	assert_int_equal(emu_dev_fault(t->dev, "power_loss"), 0);
	assert_int_equal(emu_dev_fault(t->dev, "clear"), 0);
	cfgw16(t, PMCSR, 3);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_READY);
	assert_int_equal(emu_dev_fault(t->dev, "power_loss=2"), -EINVAL);
	th_free(t);
}

/* Already in D3hot, a write of D3hot again cuts nothing: only the entry. */
static void test_power_loss_cuts_on_entry_only(void **state)
{
	struct th *t = busy_function(0x11);

	(void)state;
	cfgw16(t, PMCSR, 3);
	assert_int_equal(emu_dev_fault(t->dev, "power_loss=1"), 0);
	cfgw16(t, PMCSR, 3);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_READY);
	assert_int_equal(mem_probe(t), 0x11);
	th_free(t);
}

static void test_degraded_link_shows_in_link_status(void **state)
{
	struct th *t = th_new();
	uint16_t sta;

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "link_speed=2,link_width=4"), 0);
	sta = cfg16(t, IPU_CFG_EXP_CAP + 0x12);
	assert_int_equal(sta & 0xf, 2);
	assert_int_equal(sta >> 4 & 0x3f, 4);
	assert_true(sta & 0x4000);	/* LBMS */
	assert_true(rd32(t, IPU_REG_STATUS) & IPU_STATUS_LINK_DEGRADED);
	assert_int_equal(th_last_err(t), IPU_ERR_LINK);
	/* The capability is unchanged; LBMS is RW1C. */
	assert_int_equal(cfg32(t, IPU_CFG_EXP_CAP + 0x0c) & 0x3ff, 0x104);
	cfgw16(t, IPU_CFG_EXP_CAP + 0x12, 0x4000);
	assert_false(cfg16(t, IPU_CFG_EXP_CAP + 0x12) & 0x4000);
	assert_int_equal(emu_dev_fault(t->dev, "degrade_link"), 0);
	assert_int_equal(cfg16(t, IPU_CFG_EXP_CAP + 0x12) & 0x3ff, 0x11);
	th_free(t);
}

static void test_off_bus_reads_all_ones(void **state)
{
	struct th *t = th_new();

	(void)state;
	assert_false(emu_dev_off_bus(t->dev));
	assert_int_equal(emu_dev_fault(t->dev, "off_bus"), 0);
	assert_true(emu_dev_off_bus(t->dev));
	assert_int_equal(cfg32(t, 0), 0xffffffff);
	assert_int_equal(rd32(t, IPU_REG_ID), 0xffffffff);
	wr32(t, IPU_REG_SCRATCH, 1);
	assert_int_equal(rd64(t, IPU_REG_SCRATCH), 0xffffffffffffffffull);
	{
		uint32_t m = 0;

		assert_int_equal(emu_dev_bar_read(t->dev, IPU_BAR_MEM, 0, &m, 4), 0);
		assert_int_equal(m, 0xffffffff);
	}
	/* No interrupt leaves a function that is gone. */
	wr32(t, IPU_REG_IRQ_MASK, 0);
	wr32(t, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(th_irqs(t, IPU_VEC_MISC), 0);
	th_free(t);
}

/*
 * link_up after link_down: back on the bus as a re-seated card, in its
 * power-on state (firmware off, config space reset), device memory kept;
 * without link_down first, link_up changes nothing.
 */
static void test_link_up_brings_it_back_in_power_on_state(void **state)
{
	struct th *t = th_new();
	uint32_t m = 0x5a5a5a5a, back = 0;

	(void)state;
	th_enable(t);
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	assert_int_equal(emu_dev_bar_write(t->dev, IPU_BAR_MEM, (1u << 20) - 4, &m, 4), 0);
	assert_int_equal(emu_dev_fault(t->dev, "link_up"), 0);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_READY);
	assert_int_equal(emu_dev_fault(t->dev, "link_down"), 0);
	assert_int_equal(rd32(t, IPU_REG_ID), 0xffffffff);
	assert_int_equal(emu_dev_fault(t->dev, "link_up"), 0);
	assert_false(emu_dev_off_bus(t->dev));
	assert_false(emu_dev_drops_client(t->dev));
	assert_int_equal(cfg16(t, 0x00), IPU_PCI_VENDOR_ID);
	assert_int_equal(cfg16(t, 0x04), 0);
	assert_int_equal(rd32(t, IPU_REG_ID), IPU_ID_VALUE);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_OFF);
	assert_int_equal(emu_dev_bar_read(t->dev, IPU_BAR_MEM, (1u << 20) - 4, &back, 4), 0);
	assert_int_equal(back, m);
	th_free(t);
}

/*
 * Device Control takes exactly its defined bits: 0-3 (error reporting),
 * 4 Relaxed Ordering, 7:5 Max_Payload, 8 Extended Tag, 11 No Snoop, 14:12
 * Max_Read_Request; 9 (Phantom Functions) and 10 (Aux Power PM) are RO 0
 * on a function without them. Device Control 2 is RO 0 while Device
 * Capabilities 2 reads 0 (no completion timeout ranges, no disable).
 */
static void test_device_control_takes_only_defined_bits(void **state)
{
	struct th *t = th_new();

	(void)state;
	cfgw16(t, IPU_CFG_EXP_CAP + 8, 0x7fff);
	assert_int_equal(cfg16(t, IPU_CFG_EXP_CAP + 8), 0x79ff);
	cfgw16(t, IPU_CFG_EXP_CAP + 8, 0x0600);
	assert_int_equal(cfg16(t, IPU_CFG_EXP_CAP + 8), 0);
	assert_int_equal(cfg32(t, IPU_CFG_EXP_CAP + 0x24), 0);
	cfgw16(t, IPU_CFG_EXP_CAP + 0x28, 0xffff);
	assert_int_equal(cfg16(t, IPU_CFG_EXP_CAP + 0x28), 0);
	th_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity_and_class),
		cmocka_unit_test(test_capability_chain_is_pm_msix_pcie),
		cmocka_unit_test(test_msix_has_4_vectors_table_and_pba_in_bar0),
		cmocka_unit_test(test_pcie_endpoint_gen4_x16_with_flr),
		cmocka_unit_test(test_dsn_holds_the_serial),
		cmocka_unit_test(test_bar_sizing_gives_the_region_sizes),
		cmocka_unit_test(test_read_only_bytes_keep_their_value),
		cmocka_unit_test(test_accesses_outside_config_space_are_refused),
		cmocka_unit_test(test_initiate_flr_resets_the_function),
		cmocka_unit_test(test_power_state_takes_d0_and_d3hot_only),
		cmocka_unit_test(test_d3hot_keeps_the_state),
		cmocka_unit_test(test_power_loss_in_d3hot_is_a_power_on),
		cmocka_unit_test(test_power_loss_cuts_on_entry_only),
		cmocka_unit_test(test_degraded_link_shows_in_link_status),
		cmocka_unit_test(test_off_bus_reads_all_ones),
		cmocka_unit_test(test_link_up_brings_it_back_in_power_on_state),
		cmocka_unit_test(test_device_control_takes_only_defined_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
