// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_demo_hw.c - test_demo_hw.c on the PCIe IPUs: the demo's two
 * replicas on the guest's two PCI IPUs (IPU_HW_PLATFORM=pci; the launches
 * on their command queues, ipu-emu computing), the same weights checksum
 * as the model's. Skipped with fewer than two PCI IPUs.
 */
#define KT_ON_PCI 1
#include "test_demo_hw.c"
