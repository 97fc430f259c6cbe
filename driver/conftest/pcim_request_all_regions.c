// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe (see scripts/build-module): compiles only where
 * pcim_request_all_regions() exists (mainline 6.15+), the managed request
 * that replaced pci_request_regions()'s "hybrid" mode (managed after
 * pcim_enable_device()), which later kernels removed.
 */
#include <linux/pci.h>

int ipu_conftest_pcim_request_all_regions(struct pci_dev *pdev);

int ipu_conftest_pcim_request_all_regions(struct pci_dev *pdev)
{
	return pcim_request_all_regions(pdev, "ipu");
}
