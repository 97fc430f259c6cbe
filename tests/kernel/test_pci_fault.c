// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_fault.c - every test of test_fault.c on the PCIe IPUs
 * (ipu-emu's in the guests): kt_fault_set() injects the model's twin of
 * each debugfs fault switch through its control port (ktest.h,
 * kemuctl.h); a switch the model has no twin for (fail_dma of more than
 * one transfer, fail_reset) skips with the reason. Device 0 of those tests
 * is the first PCI IPU, device 1 the second (KT_ON_PCI). Skipped where no
 * PCI IPU is bound or the guest has no control port.
 */
#define KT_ON_PCI 1
#include "test_fault.c"
