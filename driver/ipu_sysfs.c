// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs attributes of every IPU, for tools and people: what the device is,
 * how much of its memory is in use, who holds it. They report the same
 * numbers as GET_INFO (ipu_device_fill_info()), pids in the initial pid
 * namespace.
 */
#include <linux/device.h>
#include <linux/pid.h>
#include <linux/stringify.h>

#include <uapi/linux/ipu.h>

#include "ipu_drv.h"
#include "ipu_sysfs.h"

static void ipu_sysfs_info(struct device *dev, struct ipu_info *info)
{
	memset(info, 0, sizeof(*info));
	ipu_device_fill_info(to_ipu_device(dev), info);
}

static ssize_t platform_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct ipu_info info;

	ipu_sysfs_info(dev, &info);
	return sysfs_emit(buf, "%s\n",
			  info.platform == IPU_PLATFORM_PCI ? "pci" : "sim");
}
static DEVICE_ATTR_RO(platform);

/* An attribute that prints one u64 member of struct ipu_info. */
struct ipu_info_attr {
	struct device_attribute attr;
	size_t offset;
	const char *fmt;
};

static ssize_t ipu_info_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct ipu_info_attr *ia = container_of(attr, struct ipu_info_attr,
						attr);
	struct ipu_info info;
	u64 value;

	ipu_sysfs_info(dev, &info);
	memcpy(&value, (u8 *)&info + ia->offset, sizeof(value));
	return sysfs_emit(buf, ia->fmt, value);
}

#define IPU_INFO_ATTR(_name, _fmt)					\
	static struct ipu_info_attr ipu_attr_##_name = {		\
		.attr = {						\
			.attr = { .name = __stringify(_name), .mode = 0444 }, \
			.show = ipu_info_show,				\
		},							\
		.offset = offsetof(struct ipu_info, _name),		\
		.fmt = _fmt "\n",					\
	}

IPU_INFO_ATTR(memory_total, "%llu");
IPU_INFO_ATTR(memory_used, "%llu");
IPU_INFO_ATTR(serial, "%016llx");
IPU_INFO_ATTR(reset_count, "%llu");

static ssize_t owner_pid_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct ipu_device *idev = to_ipu_device(dev);
	pid_t pid;

	mutex_lock(&idev->lock);
	pid = pid_nr(idev->owner_pid);
	mutex_unlock(&idev->lock);
	return sysfs_emit(buf, "%d\n", pid);
}
static DEVICE_ATTR_RO(owner_pid);

static ssize_t firmware_version_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct ipu_info info;

	ipu_sysfs_info(dev, &info);
	return sysfs_emit(buf, "%u.%u.%u\n", info.firmware_version >> 16,
			  (info.firmware_version >> 8) & 0xff,
			  info.firmware_version & 0xff);
}
static DEVICE_ATTR_RO(firmware_version);

static struct attribute *ipu_dev_attrs[] = {
	&dev_attr_platform.attr,
	&ipu_attr_memory_total.attr.attr,
	&ipu_attr_memory_used.attr.attr,
	&dev_attr_owner_pid.attr,
	&dev_attr_firmware_version.attr,
	&ipu_attr_serial.attr.attr,
	&ipu_attr_reset_count.attr.attr,
	NULL,
};

static const struct attribute_group ipu_dev_group = {
	.attrs = ipu_dev_attrs,
};

const struct attribute_group *ipu_dev_groups[] = {
	&ipu_dev_group,
	NULL,
};
