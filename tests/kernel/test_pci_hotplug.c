// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_hotplug.c - hot removal of a PCIe IPU in use, on the rig's last
 * function: the PCI core's removal (sysfs "remove": what pciehp runs when
 * its slot is unplugged, pci_stop_and_remove_bus_device()), then a rescan
 * (what pciehp runs when a card is plugged). The function in use before,
 * what holds after the removal and after the rescan: kinuse.h, which
 * test_pci_device_del (QEMU's own device_del and device_add, through the
 * guest's pciehp) shares.
 * The suite's later binaries find the rig's functions as before.
 * Skipped without PCI IPUs or ipu-emu's control port.
 */
#include "kinuse.h"

/* The removed function's ipu-emu index, for the teardown of a failed test. */
static int removed_emu = -1;

static void test_removal_with_files_open_and_mappings_live(void **state)
{
	struct ku_in_use u;
	unsigned int n;

	(void)state;
	require_ipus();
	ke_require();
	ku_in_use(&u, nr_ipus - 1);

	removed_emu = (int)u.emu;
	kp_remove(u.bdf);
	ku_assert_gone(&u, "after the removal");

	/* Found again at the same address, and probed. */
	ke_fault(u.emu, "clear");
	n = kp_rescan(u.bdf);
	removed_emu = -1;
	ku_assert_back(&u, n, "after the rescan");
}

/* A test that failed after the removal still leaves the function there. */
static int rescan_teardown(void **state)
{
	kt_cleanup();
	if (removed_emu >= 0) {
		ke_fault((unsigned int)removed_emu, "clear");
		kt_write_file("/sys/bus/pci/rescan", "1");
		removed_emu = -1;
	}
	return kt_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_removal_with_files_open_and_mappings_live,
					  rescan_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
