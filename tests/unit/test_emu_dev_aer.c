// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_aer.c - the model's Advanced Error Reporting capability
 * against docs/hardware.md section 1.2 (PCIe r6 7.8.4): where it is in
 * the extended chain, its reset values, which bits take writes (only the
 * errors the function implements), RW1C status set by the faults
 * aer_uncor=/aer_cor= with the First Error Pointer and Device Status'
 * detected bits, and stickiness: FLR keeps the registers, only a
 * power-on (link_down then link_up) restores them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"

#define AER(off)	(IPU_CFG_AER_CAP + (off))
#define UNCOR_STATUS	AER(0x04)
#define UNCOR_MASK	AER(0x08)
#define UNCOR_SEVER	AER(0x0c)
#define COR_STATUS	AER(0x10)
#define COR_MASK	AER(0x14)
#define CAP_CTRL	AER(0x18)
#define HEADER_LOG	AER(0x1c)
#define DEVSTA		(IPU_CFG_EXP_CAP + 0x0a)
#define UNCOR_BITS	0x00577010u
#define COR_BITS	0x000071c1u
#define SEVER_RESET	0x00462010u
#define COR_MASK_RESET	0x00006000u
#define UE_CMPL_TIMEOUT	14	/* non-fatal at reset */
#define UE_MALFORMED	18	/* fatal at reset */
#define CE_BAD_TLP	6

static void cfgw32(struct th *t, uint32_t off, uint32_t v)
{
	if (emu_dev_cfg_write(t->dev, off, &v, 4))
		abort();
}

/* The fault spec "NAME=BIT" into the function. */
static int aer_fault(struct th *t, const char *name, unsigned int bit)
{
	char spec[32];

	snprintf(spec, sizeof(spec), "%s=%u", name, bit);
	return emu_dev_fault(t->dev, spec);
}

static void assert_reset_values(struct th *t)
{
	uint32_t off;

	assert_int_equal(cfg32(t, UNCOR_STATUS), 0);
	assert_int_equal(cfg32(t, UNCOR_MASK), 0);
	assert_int_equal(cfg32(t, UNCOR_SEVER), SEVER_RESET);
	assert_int_equal(cfg32(t, COR_STATUS), 0);
	assert_int_equal(cfg32(t, COR_MASK), COR_MASK_RESET);
	assert_int_equal(cfg32(t, CAP_CTRL), 0);
	for (off = HEADER_LOG; off < AER(0x48); off += 4)
		assert_int_equal(cfg32(t, off), 0);
}

static void test_aer_follows_dsn_and_ends_the_chain(void **state)
{
	struct th *t = th_new();

	(void)state;
	assert_int_equal(cfg32(t, IPU_CFG_DSN_CAP) >> 20, IPU_CFG_AER_CAP);
	/* ID 0x0001, version 2, next 0. */
	assert_int_equal(cfg32(t, IPU_CFG_AER_CAP), 0x00020001);
	assert_reset_values(t);
	th_free(t);
}

/*
 * Mask and severity take the implemented errors' bits only; Capabilities
 * and Control (no ECRC, no multiple headers), the Header Log, the header
 * and the Root Port registers an Endpoint lacks are read-only.
 */
static void test_only_implemented_bits_take_writes(void **state)
{
	struct th *t = th_new();
	uint32_t off;

	(void)state;
	cfgw32(t, UNCOR_MASK, 0xffffffff);
	assert_int_equal(cfg32(t, UNCOR_MASK), UNCOR_BITS);
	cfgw32(t, UNCOR_SEVER, 0xffffffff);
	assert_int_equal(cfg32(t, UNCOR_SEVER), UNCOR_BITS);
	cfgw32(t, UNCOR_SEVER, 0);
	assert_int_equal(cfg32(t, UNCOR_SEVER), 0);
	cfgw32(t, COR_MASK, 0xffffffff);
	assert_int_equal(cfg32(t, COR_MASK), COR_BITS);
	for (off = IPU_CFG_AER_CAP; off < AER(0x48); off += 4) {
		if (off == UNCOR_MASK || off == UNCOR_SEVER || off == COR_MASK)
			continue;
		cfgw32(t, off, 0xffffffff);
	}
	assert_int_equal(cfg32(t, IPU_CFG_AER_CAP), 0x00020001);
	assert_int_equal(cfg32(t, UNCOR_STATUS), 0);
	assert_int_equal(cfg32(t, COR_STATUS), 0);
	for (off = CAP_CTRL; off < AER(0x48); off += 4)
		assert_int_equal(cfg32(t, off), 0);
	th_free(t);
}

/*
 * A detected error sets its status bit, which only a written 1 clears;
 * Device Status says which kind (by severity); the First Error Pointer
 * names the first unmasked uncorrectable one while it stays logged.
 */
static void test_status_is_rw1c_and_first_error_pointer(void **state)
{
	struct th *t = th_new();

	(void)state;
	assert_int_equal(aer_fault(t, "aer_cor", CE_BAD_TLP), 0);
	assert_int_equal(cfg32(t, COR_STATUS), 1u << CE_BAD_TLP);
	assert_int_equal(cfg16(t, DEVSTA) & 0xf, 0x1);
	assert_int_equal(aer_fault(t, "aer_uncor", UE_CMPL_TIMEOUT), 0);
	assert_int_equal(cfg16(t, DEVSTA) & 0xf, 0x3);
	assert_int_equal(cfg32(t, CAP_CTRL), UE_CMPL_TIMEOUT);
	assert_int_equal(aer_fault(t, "aer_uncor", UE_MALFORMED), 0);
	assert_int_equal(cfg16(t, DEVSTA) & 0xf, 0x7);
	assert_int_equal(cfg32(t, UNCOR_STATUS),
			 1u << UE_CMPL_TIMEOUT | 1u << UE_MALFORMED);
	assert_int_equal(cfg32(t, CAP_CTRL), UE_CMPL_TIMEOUT);

	/* Zeros and ones elsewhere change nothing. */
	cfgw32(t, UNCOR_STATUS, ~(1u << UE_CMPL_TIMEOUT | 1u << UE_MALFORMED));
	cfgw32(t, COR_STATUS, ~(1u << CE_BAD_TLP));
	assert_int_equal(cfg32(t, UNCOR_STATUS),
			 1u << UE_CMPL_TIMEOUT | 1u << UE_MALFORMED);
	assert_int_equal(cfg32(t, COR_STATUS), 1u << CE_BAD_TLP);

	/* The first one cleared, the next error takes the pointer. */
	cfgw32(t, UNCOR_STATUS, 1u << UE_CMPL_TIMEOUT);
	assert_int_equal(cfg32(t, UNCOR_STATUS), 1u << UE_MALFORMED);
	assert_int_equal(aer_fault(t, "aer_uncor", 20), 0);
	assert_int_equal(cfg32(t, CAP_CTRL), 20);
	cfgw32(t, UNCOR_STATUS, 0xffffffff);
	cfgw32(t, COR_STATUS, 0xffffffff);
	cfgw16(t, DEVSTA, 0x000f);
	assert_int_equal(cfg32(t, UNCOR_STATUS), 0);
	assert_int_equal(cfg32(t, COR_STATUS), 0);
	assert_int_equal(cfg16(t, DEVSTA) & 0xf, 0);
	th_free(t);
}

/* A masked error is logged in the status, never in the pointer. */
static void test_masked_error_keeps_the_pointer(void **state)
{
	struct th *t = th_new();

	(void)state;
	cfgw32(t, UNCOR_MASK, 1u << UE_CMPL_TIMEOUT);
	assert_int_equal(aer_fault(t, "aer_uncor", UE_CMPL_TIMEOUT), 0);
	assert_int_equal(cfg32(t, UNCOR_STATUS), 1u << UE_CMPL_TIMEOUT);
	assert_int_equal(cfg32(t, CAP_CTRL), 0);
	th_free(t);
}

/* An error the function does not implement is a bad spec: nothing set. */
static void test_unimplemented_errors_are_refused(void **state)
{
	struct th *t = th_new();

	(void)state;
	assert_int_equal(aer_fault(t, "aer_uncor", 5), -EINVAL);
	assert_int_equal(aer_fault(t, "aer_uncor", 19), -EINVAL);
	assert_int_equal(aer_fault(t, "aer_cor", 15), -EINVAL);
	assert_int_equal(aer_fault(t, "aer_cor", 32), -EINVAL);
	assert_int_equal(emu_dev_fault(t->dev, "aer_cor"), -EINVAL);
	assert_int_equal(emu_dev_fault(t->dev, "aer_cor=0,aer_uncor=3"), -EINVAL);
	assert_reset_values(t);
	assert_int_equal(cfg16(t, DEVSTA) & 0xf, 0);
	th_free(t);
}

/*
 * The registers are sticky: an FLR (Initiate FLR) keeps status, masks,
 * severity and pointer, while Device Status, not sticky, clears. A
 * power-on (the card re-seated: link_down, link_up) restores them all.
 */
static void test_sticky_across_flr_not_power_on(void **state)
{
	struct th *t = th_new();

	(void)state;
	cfgw32(t, UNCOR_MASK, 1u << 20);
	cfgw32(t, UNCOR_SEVER, 1u << UE_CMPL_TIMEOUT);
	cfgw32(t, COR_MASK, 0);
	assert_int_equal(aer_fault(t, "aer_uncor", UE_CMPL_TIMEOUT), 0);
	assert_int_equal(aer_fault(t, "aer_cor", 0), 0);
	assert_int_equal(cfg16(t, DEVSTA) & 0xf, 0x5);
	cfgw16(t, IPU_CFG_EXP_CAP + 8, 0x2810 | 0x8000);
	assert_int_equal(cfg16(t, DEVSTA) & 0xf, 0);
	assert_int_equal(cfg32(t, UNCOR_MASK), 1u << 20);
	assert_int_equal(cfg32(t, UNCOR_SEVER), 1u << UE_CMPL_TIMEOUT);
	assert_int_equal(cfg32(t, COR_MASK), 0);
	assert_int_equal(cfg32(t, UNCOR_STATUS), 1u << UE_CMPL_TIMEOUT);
	assert_int_equal(cfg32(t, COR_STATUS), 1);
	assert_int_equal(cfg32(t, CAP_CTRL), UE_CMPL_TIMEOUT);

	assert_int_equal(emu_dev_fault(t->dev, "link_down"), 0);
	assert_int_equal(emu_dev_fault(t->dev, "link_up"), 0);
	assert_reset_values(t);
	th_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aer_follows_dsn_and_ends_the_chain),
		cmocka_unit_test(test_only_implemented_bits_take_writes),
		cmocka_unit_test(test_status_is_rw1c_and_first_error_pointer),
		cmocka_unit_test(test_masked_error_keeps_the_pointer),
		cmocka_unit_test(test_unimplemented_errors_are_refused),
		cmocka_unit_test(test_sticky_across_flr_not_power_on),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
