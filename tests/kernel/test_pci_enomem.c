// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_enomem.c - every test of test_enomem.c (each allocation ipu.ko
 * makes on a user's behalf fails in turn, cleanly) on the PCIe IPUs
 * (ipu-emu's in the guests): XFER's pinning, sg table, DMA mapping and
 * descriptors, BOs in BAR2, launches through the command queue, open and
 * mmap of BAR2 (ktest.h, KT_ON_PCI). What needs something only simulated
 * IPUs have (the firmware file's FW_NEXT and FW_DONE, new_device) skips
 * with the reason; everything skips on kernels without fault injection
 * or where no PCI IPU is bound.
 */
#define KT_ON_PCI 1
#include "test_enomem.c"
