// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_leaks.c - test_leaks.c's thousand runs on the first PCIe IPU
 * (ktest.h, KT_ON_PCI): transfers through its DMA queues, launches
 * through its command queue; memory_used and the pinned pages end where
 * they started. Skipped where no PCI IPU is bound.
 */
#define KT_ON_PCI 1
#include "test_leaks.c"
