// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_isolation.c - every test of test_isolation.c (device memory never outliving its buffer object, here BAR2 mapped as PFNs) on the PCIe IPUs
 * (ipu-emu's in the guests): device 0 of those tests is the first PCI IPU,
 * device 1 the second (ktest.h, KT_ON_PCI). What needs something only
 * simulated IPUs have skips with the reason. Skipped where no PCI IPU is
 * bound.
 */
#define KT_ON_PCI 1
#include "test_isolation.c"
