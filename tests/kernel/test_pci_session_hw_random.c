// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_session_hw_random.c - every test of test_session_hw_random.c on the
 * PCIe IPUs alone (IPU_HW_PLATFORM=pci; launches on the device's command
 * queue): see ksession.h. A program needing more IPUs than there are PCI
 * ones skips, saying so; the file skips where no PCI IPU is bound.
 */
#define KT_ON_PCI 1
#include "test_session_hw_random.c"
