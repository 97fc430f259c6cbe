// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_session_hw_instances.c - test_session_hw_instances.c on the
 * PCIe IPUs: a split program's launches are split launches, each with its
 * instance and a staging area (libsession's pci_gather.c), which the
 * IPUs' command queues take.
 */
#define KT_ON_PCI 1
#include "test_session_hw_instances.c"
