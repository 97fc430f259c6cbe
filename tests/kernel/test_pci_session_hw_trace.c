// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_session_hw_trace.c - every test of test_session_hw_trace.c on
 * the PCIe IPUs alone (IPU_HW_PLATFORM=pci; launches on the device's
 * command queue): the op spans inside each launch come from the profile
 * buffers ipu-emu writes for the PROFILE descriptors ipu.ko sends
 * (docs/hardware.md section 4.5); see ksession.h. Skipped where no PCI
 * IPU is bound.
 */
#define KT_ON_PCI 1
#include "test_session_hw_trace.c"
