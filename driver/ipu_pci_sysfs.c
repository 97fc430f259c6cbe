// SPDX-License-Identifier: GPL-2.0
/*
 * Attributes of the PCIe IPU's function itself (/sys/bus/pci/devices/
 * <address>/), for what only a PCI IPU has: its device-memory error
 * counters (docs/hardware.md section 3, MEM_CE and MEM_UE, kept across
 * resets), so that an operator sees corrected errors accumulate before an
 * uncorrected one fails a run.
 *
 * They are the PCI driver's dev_groups: the driver core adds them once
 * probe succeeded and removes them before remove() runs (draining readers),
 * so the function's drvdata and BAR0 mapping outlive every read. A read
 * during a reset of the function (BAR0 reads all ones) fails -EAGAIN
 * rather than showing all ones or taking the device for gone.
 */
#include <linux/device.h>
#include <linux/pci.h>

#include "ipu_pci.h"

static ssize_t ipu_pci_counter_show(struct device *dev, u32 reg, char *buf)
{
	struct ipu_pci *ipu = pci_get_drvdata(to_pci_dev(dev));
	u32 v;
	int ret;

	/* -ENODEV off the bus (section 10), -EAGAIN during a reset. */
	ret = ipu_pci_read_live(ipu, reg, &v);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%u\n", v);
}

static ssize_t mem_errors_corrected_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	return ipu_pci_counter_show(dev, IPU_REG_MEM_CE, buf);
}
static DEVICE_ATTR_RO(mem_errors_corrected);

static ssize_t mem_errors_uncorrected_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	return ipu_pci_counter_show(dev, IPU_REG_MEM_UE, buf);
}
static DEVICE_ATTR_RO(mem_errors_uncorrected);

static struct attribute *ipu_pci_attrs[] = {
	&dev_attr_mem_errors_corrected.attr,
	&dev_attr_mem_errors_uncorrected.attr,
	NULL,
};

static const struct attribute_group ipu_pci_group = {
	.attrs = ipu_pci_attrs,
};

const struct attribute_group *ipu_pci_dev_groups[] = {
	&ipu_pci_group,
	NULL,
};
