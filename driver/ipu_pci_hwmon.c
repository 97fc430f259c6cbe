// SPDX-License-Identifier: GPL-2.0
/*
 * The PCIe IPU's telemetry as hwmon (docs/hardware.md section 3):
 * temp1_input from TEMP_MC (millidegrees already) and power1_input from
 * POWER_MW (in microwatts, as hwmon counts), so that `sensors` shows the
 * IPU. The attributes are world-readable, so a reader may be inside one
 * at any time: the hwmon device is unregistered first thing in remove()
 * (and on probe's error path), which waits for the reads in progress,
 * while everything a read touches (the structure, BAR0's mapping) is
 * still there. Not devm_: devres would unregister it only after remove()
 * returned, when remove()'s put may have freed the structure already
 * (issue 25, item 2).
 */
#include <linux/error-injection.h>
#include <linux/hwmon.h>
#include <linux/pci.h>

#include "ipu_pci.h"

static umode_t ipu_pci_hwmon_visible(const void *data,
				     enum hwmon_sensor_types type, u32 attr,
				     int channel)
{
	if ((type == hwmon_temp && attr == hwmon_temp_input) ||
	    (type == hwmon_power && attr == hwmon_power_input))
		return 0444;
	return 0;
}

static int ipu_pci_hwmon_read(struct device *dev,
			      enum hwmon_sensor_types type, u32 attr,
			      int channel, long *val)
{
	struct ipu_pci *ipu = dev_get_drvdata(dev);
	u32 reg = type == hwmon_temp ? IPU_REG_TEMP_MC : IPU_REG_POWER_MW;
	u32 v;
	int ret;

	if (type != hwmon_temp && type != hwmon_power)
		return -EOPNOTSUPP;
	/*
	 * -ENODEV when the function fell off the bus (section 10); -EAGAIN
	 * when the read overlapped a reset, whose all ones is no reading.
	 */
	ret = ipu_pci_read_live(ipu, reg, &v);
	if (ret)
		return ret;
	if (type == hwmon_temp)
		*val = (s32)v;
	else
		*val = (long)v * 1000;
	return 0;
}

static const struct hwmon_ops ipu_pci_hwmon_ops = {
	.is_visible = ipu_pci_hwmon_visible,
	.read = ipu_pci_hwmon_read,
};

/* Not const itself: 6.1's hwmon_chip_info.info is a pointer to non-const. */
static const struct hwmon_channel_info *ipu_pci_hwmon_info[] = {
	HWMON_CHANNEL_INFO(temp, HWMON_T_INPUT),
	HWMON_CHANNEL_INFO(power, HWMON_P_INPUT),
	NULL
};

static const struct hwmon_chip_info ipu_pci_hwmon_chip = {
	.ops = &ipu_pci_hwmon_ops,
	.info = ipu_pci_hwmon_info,
};

/**
 * ipu_pci_hwmon_init - register the IPU's temperature and power sensors
 * @ipu: the device; undone by ipu_pci_hwmon_fini()
 *
 * Return: 0, or a negative errno after a dmesg line.
 */
int ipu_pci_hwmon_init(struct ipu_pci *ipu)
{
	struct device *hw;

	/* No sensors to show (CAPS bit 2, spec section 3). */
	if (!(ipu->caps & IPU_CAPS_TELEMETRY))
		return 0;
	hw = hwmon_device_register_with_info(&ipu->pdev->dev, "ipu", ipu,
					     &ipu_pci_hwmon_chip, NULL);
	if (IS_ERR(hw)) {
		dev_err(&ipu->pdev->dev, "cannot register hwmon: %ld\n",
			PTR_ERR(hw));
		return PTR_ERR(hw);
	}
	ipu->hwmon = hw;
	return 0;
}

ALLOW_ERROR_INJECTION(ipu_pci_hwmon_init, ERRNO);

/**
 * ipu_pci_hwmon_fini - unregister the sensors, waiting for reads in progress
 * @ipu: the device (nothing to do when it has no sensors)
 *
 * Before remove() tears down anything a read uses, and before the
 * reference that keeps @ipu is dropped.
 */
void ipu_pci_hwmon_fini(struct ipu_pci *ipu)
{
	if (!ipu->hwmon)
		return;
	hwmon_device_unregister(ipu->hwmon);
	ipu->hwmon = NULL;
}
