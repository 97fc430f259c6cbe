// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_session_hw_instances.c - test_session_hw_instances.c's place
 * on the PCIe IPUs, skipped: a split program's all-reduces gather the
 * other instances' operands through ipu-simd, the firmware of simulated
 * IPUs (fw_gather.h); a PCIe IPU runs its launches itself, on its command
 * queue, and has no way to ask the host for another instance's data
 * (docs/instances.md).
 */
#define KT_ON_PCI 1
#define KSH_PCI_UNSUPPORTED                                                \
	"a split program (instances) gathers through ipu-simd, which PCIe " \
	"IPUs do not use: their command queue has no host gather"
#include "test_session_hw_instances.c"
