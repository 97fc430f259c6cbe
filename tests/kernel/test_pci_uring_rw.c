// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_uring_rw.c - every test of test_uring_rw.c (read, write and poll of /dev/ipuN, refused or answered at once) on the PCIe IPUs
 * (ipu-emu's in the guests): device 0 of those tests is the first PCI IPU,
 * device 1 the second (ktest.h, KT_ON_PCI). What needs something only
 * simulated IPUs have skips with the reason. Skipped where no PCI IPU is
 * bound.
 */
#define KT_ON_PCI 1
#include "test_uring_rw.c"
