// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_session_hw_split.c - test_session_hw_split.c's place on the
 * PCIe IPUs, skipped: see test_pci_session_hw_instances.c.
 */
#define KT_ON_PCI 1
#define KSH_PCI_UNSUPPORTED                                                \
	"a split program (instances) gathers through ipu-simd, which PCIe " \
	"IPUs do not use: their command queue has no host gather"
#include "test_session_hw_split.c"
