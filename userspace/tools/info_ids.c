// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_ids.c - the names of our own PCI IDs, for when libpci has none.
 *
 * The IDs of docs/hardware.md section 1 are the device model's
 * placeholders: PCI-SIG assigned 0x1ffe to nobody and pci.ids does not
 * list it, so pci_lookup_name() can only print the numbers. ipu-info then
 * shows the spec's names, marked as such ("names_from": "spec"), so a lab
 * sees what the function is before any database knows it. Real hardware
 * adds its IDs here and to the driver's table.
 */
#include <stddef.h>

#include "info.h"

static const struct {
	uint16_t vendor, device;
	const char *vendor_name, *device_name;
} info_ids[] = {
	{ INFO_PCI_VENDOR, INFO_PCI_DEVICE, "IPU placeholder vendor",
	  "IPU PCIe function" },
};

const char *info_spec_vendor(uint16_t vendor)
{
	size_t i;

	for (i = 0; i < sizeof(info_ids) / sizeof(info_ids[0]); i++)
		if (info_ids[i].vendor == vendor)
			return info_ids[i].vendor_name;
	return NULL;
}

const char *info_spec_device(uint16_t vendor, uint16_t device)
{
	size_t i;

	for (i = 0; i < sizeof(info_ids) / sizeof(info_ids[0]); i++)
		if (info_ids[i].vendor == vendor &&
		    info_ids[i].device == device)
			return info_ids[i].device_name;
	return NULL;
}
