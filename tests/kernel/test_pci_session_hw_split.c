// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_session_hw_split.c - test_session_hw_split.c on the PCIe IPUs:
 * their all-reduces across instances are gather requests, which
 * libsession serves with the process's instances (pci_gather.c).
 */
#define KT_ON_PCI 1
#include "test_session_hw_split.c"
