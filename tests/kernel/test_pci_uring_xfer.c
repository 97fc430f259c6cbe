// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_uring_xfer.c - every test of test_uring_xfer.c, on the PCIe IPUs (ipu-emu's
 * in the guests), whose transfers go through the device's DMA queues:
 * device 0 of those tests is the first PCI IPU, device 1 the second
 * (ktest.h, KT_ON_PCI). Skipped where no PCI IPU is bound.
 */
#define KT_ON_PCI 1
#include "test_uring_xfer.c"
