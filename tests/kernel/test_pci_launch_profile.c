// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_launch_profile.c - every test of test_launch_profile.c on the
 * PCIe IPUs (ipu-emu's in the guests): the driver sends a PROFILE
 * descriptor before the profiled LAUNCH (docs/hardware.md section 4.5)
 * and the device writes the records. Device 0 of those tests is the
 * first PCI IPU (ktest.h, KT_ON_PCI). Skipped where no PCI IPU is bound.
 */
#define KT_ON_PCI 1
#include "test_launch_profile.c"
