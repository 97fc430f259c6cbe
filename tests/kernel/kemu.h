/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kemu.h - what the tests of ipu-emu's faults share beyond its control
 * port (kemuctl.h, which ktest.h includes): a file of the rig's first
 * function, and a function left refusing its firmware. Tests pass the
 * model's ipuN, the function's index in the rig's order (kpci.h's ipus[]).
 */
#ifndef IPU_TESTS_KEMU_H
#define IPU_TESTS_KEMU_H

#include "kpci.h"
#include "kemuctl.h"

/*
 * ipu-emu's number of device @idx (kt_dev()): ke_model_ipu() of its ipuN,
 * which need not be the function's index (a function unbound and bound
 * again gets a new ipuN); fails the test when it is no PCI IPU.
 */
static inline unsigned int ke_index_of(unsigned int idx)
{
	int n = ke_model_ipu(kt_dev(idx));

	if (n < 0)
		fail_msg("ipu%u is none of the rig's PCI functions", kt_dev(idx));
	return (unsigned int)n;
}

/*
 * A file attached to the rig's first function (ipu-emu's ipu0), for a test
 * that injects faults: skipped without PCI IPUs or the control port.
 */
static inline int ke_open_first(void)
{
	int n;

	require_ipus();
	ke_require();
	n = ipu_of(ipus[0]);
	if (n < 0)
		fail_msg("%s has no ipuN (not bound?)", ipus[0]);
	return kt_open_attached((unsigned int)n);
}

/* The function left refusing its firmware, "" when none. */
static char ke_refused_bdf[16];

/*
 * Unbind the rig's last function and make its firmware refused
 * (refuse_fw): binding it again fails the probe. ke_refuse_teardown()
 * undoes it.
 */
static inline void ke_refuse_last_fw(void)
{
	snprintf(ke_refused_bdf, sizeof(ke_refused_bdf), "%s", ipus[nr_ipus - 1]);
	kp_unbind(ke_refused_bdf);
	ke_fault(nr_ipus - 1, "refuse_fw=1");
}

/* The firmware accepted again and the function bound (test's end). */
static inline void ke_unrefuse(void)
{
	ke_fault(nr_ipus - 1, "refuse_fw=0");
	kp_bind(ke_refused_bdf);
	ke_refused_bdf[0] = '\0';
}

/* Teardown of a test that used ke_refuse_last_fw(), even a failed one. */
static inline int ke_refuse_teardown(void **state)
{
	if (ke_refused_bdf[0]) {
		ke_fault(nr_ipus - 1, "refuse_fw=0");
		kt_write_file(KT_PCI_DRIVER "/bind", ke_refused_bdf);
		ke_refused_bdf[0] = '\0';
	}
	return kt_teardown(state);
}

#endif /* IPU_TESTS_KEMU_H */
