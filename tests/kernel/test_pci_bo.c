// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_bo.c - every test of test_bo.c, on the PCIe IPUs (ipu-emu's
 * in the guests), whose device memory is BAR2: device 0 of those tests
 * is the first PCI IPU, device 1 the second (ktest.h, KT_ON_PCI).
 * Skipped where no PCI IPU is bound.
 */
#define KT_ON_PCI 1
#include "test_bo.c"
