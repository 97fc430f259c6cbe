// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_fdinfo.c - every test of test_fdinfo.c (the DRM fdinfo keys of
 * an open /dev/ipuN) on the PCIe IPUs (ipu-emu's in the guests): device 0
 * is the first PCI IPU (ktest.h, KT_ON_PCI), whose keys also carry
 * drm-pdev. Skipped where no PCI IPU is bound.
 */
#define KT_ON_PCI 1
#include "test_fdinfo.c"
