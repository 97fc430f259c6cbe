// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_session_hw_timeout.c - test_session_hw_timeout.c on the first
 * PCIe IPU: ipu-emu's hang_launch fault stands for the stopped firmware;
 * the session gives up, resets the device (soft reset), reaps, and the
 * next run computes from what the device holds. Skipped without a PCI
 * IPU or ipu-emu's control port.
 */
#define KT_ON_PCI 1
#include "test_session_hw_timeout.c"
