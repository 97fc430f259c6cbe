// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated IPUs, in the manner of null_blk and netdevsim: a device whose
 * memory is kernel memory (vmalloc, so that it can be mapped page by page)
 * and whose "DMA" copies pinned user pages. It lets the whole stack above run,
 * and be tested, on any machine.
 *
 * Control, documented in docs/sim-control.md:
 *  - module parameters sim_devices and sim_mem_mb, used at load;
 *  - /sys/devices/ipu_sim/new_device and del_device, to add and hot-remove
 *    devices at run time;
 *  - /sys/kernel/debug/ipu/ipuN/fail_dma and fail_reset, fault injection so
 *    that tests can drive every error path.
 */
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include <uapi/linux/ipu.h>

#include "ipu_drv.h"
#include "ipu_sim.h"

#define IPU_SIM_MAX_DEVICES 64
#define IPU_SIM_MAX_MEM_MB 4096
#define IPU_SIM_FW_VERSION ((1 << 16) | (0 << 8) | 0)
/* Serial numbers of simulated IPUs: a recognisable prefix, then a count. */
#define IPU_SIM_SERIAL_BASE 0x51A0000000000000ULL

/*
 * None unless asked for: on a host with PCIe IPUs a simulated one would
 * take /dev/ipu0 ahead of them and be used by mistake.
 */
static unsigned int sim_devices;
module_param(sim_devices, uint, 0444);
MODULE_PARM_DESC(sim_devices, "Simulated IPUs created at load (0-64, default 0)");

static unsigned int sim_mem_mb = 64;
module_param(sim_mem_mb, uint, 0444);
MODULE_PARM_DESC(sim_mem_mb, "Device memory of each simulated IPU in MiB (1-4096, default 64)");

/**
 * struct ipu_sim - one simulated IPU
 * @idev: the core's device; its release frees this structure.
 * @mem: device memory, zeroed vmalloc memory (mapped page frame by page
 *	frame, see ipu_hw_ops.mem_pfn).
 * @serial: serial number.
 * @fail_dma: fault injection: the next @fail_dma DMA operations fail.
 * @fail_reset: fault injection: the next @fail_reset resets fail.
 * @node: entry in ipu_sim_list.
 */
struct ipu_sim {
	struct ipu_device idev;
	void *mem;
	u64 serial;
	atomic_t fail_dma;
	atomic_t fail_reset;
	struct list_head node;
};

static struct device *ipu_sim_root;
/* Protects ipu_sim_list and ipu_sim_next_serial; serialises add and remove. */
static DEFINE_MUTEX(ipu_sim_lock);
static LIST_HEAD(ipu_sim_list);
static u64 ipu_sim_next_serial;

static struct ipu_sim *to_ipu_sim(struct ipu_device *idev)
{
	return container_of(idev, struct ipu_sim, idev);
}

/* Consume one injected failure, if any is armed. */
static bool ipu_sim_should_fail(atomic_t *counter)
{
	return atomic_dec_if_positive(counter) >= 0;
}

static int ipu_sim_dma(struct ipu_device *idev, u64 dev_off,
		       struct iov_iter *iter, bool to_device)
{
	struct ipu_sim *sim = to_ipu_sim(idev);
	u8 *mem = (u8 *)sim->mem + dev_off;
	size_t len = iov_iter_count(iter);
	size_t done;

	if (ipu_sim_should_fail(&sim->fail_dma))
		return -EIO;

	if (to_device)
		done = copy_from_iter(mem, len, iter);
	else
		done = copy_to_iter(mem, len, iter);
	return done == len ? 0 : -EFAULT;
}

static void ipu_sim_mem_clear(struct ipu_device *idev, u64 dev_off, u64 len)
{
	memset((u8 *)to_ipu_sim(idev)->mem + dev_off, 0, len);
}

static int ipu_sim_mem_pfn(struct ipu_device *idev, u64 dev_off,
			   unsigned long *pfn)
{
	*pfn = vmalloc_to_pfn((u8 *)to_ipu_sim(idev)->mem + dev_off);
	return *pfn ? 0 : -EFAULT;
}

/* Nothing executes on a simulated IPU yet: a reset only has to succeed. */
static int ipu_sim_reset(struct ipu_device *idev)
{
	if (ipu_sim_should_fail(&to_ipu_sim(idev)->fail_reset))
		return -EIO;
	return 0;
}

static void ipu_sim_fill_info(struct ipu_device *idev, struct ipu_info *info)
{
	info->serial = to_ipu_sim(idev)->serial;
	info->firmware_version = IPU_SIM_FW_VERSION;
}

static void ipu_sim_release(struct ipu_device *idev)
{
	struct ipu_sim *sim = to_ipu_sim(idev);

	vfree(sim->mem);
	kfree(sim);
}

static const struct ipu_hw_ops ipu_sim_ops = {
	.platform = IPU_PLATFORM_SIM,
	.fw_in_userspace = true,
	.dma = ipu_sim_dma,
	.dma_cpu = true,
	.mem_clear = ipu_sim_mem_clear,
	.mem_pfn = ipu_sim_mem_pfn,
	.reset = ipu_sim_reset,
	.fill_info = ipu_sim_fill_info,
	.release = ipu_sim_release,
};

static int ipu_sim_add_locked(unsigned int mem_mb)
{
	u64 size = (u64)mem_mb << 20;
	struct ipu_sim *sim;
	int ret;

	lockdep_assert_held(&ipu_sim_lock);

	sim = kzalloc(sizeof(*sim), GFP_KERNEL);
	if (!sim)
		return -ENOMEM;
	/*
	 * Up to 4 GiB, asked for by root through new_device: fail cleanly
	 * when the machine has not got it, without a warning (NOWARN) and
	 * without the OOM killer (RETRY_MAYFAIL).
	 */
	sim->mem = __vmalloc(size, GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
			     __GFP_RETRY_MAYFAIL);
	if (!sim->mem) {
		ret = -ENOMEM;
		goto err_free_sim;
	}
	sim->serial = IPU_SIM_SERIAL_BASE + ipu_sim_next_serial;

	ret = ipu_device_init(&sim->idev, ipu_sim_root, &ipu_sim_ops, size);
	if (ret)
		goto err_free_mem;
	/* From here on the device's refcount owns sim: see ipu_sim_release(). */
	ret = ipu_device_register(&sim->idev);
	if (ret) {
		ipu_device_put(&sim->idev);
		return ret;
	}

	debugfs_create_atomic_t("fail_dma", 0600, sim->idev.debugfs,
				&sim->fail_dma);
	debugfs_create_atomic_t("fail_reset", 0600, sim->idev.debugfs,
				&sim->fail_reset);
	ipu_sim_next_serial++;
	list_add_tail(&sim->node, &ipu_sim_list);
	dev_dbg(&sim->idev.dev, "simulated IPU, %u MiB\n", mem_mb);
	return 0;

err_free_mem:
	vfree(sim->mem);
err_free_sim:
	kfree(sim);
	return ret;
}

static void ipu_sim_del_locked(struct ipu_sim *sim)
{
	lockdep_assert_held(&ipu_sim_lock);

	list_del(&sim->node);
	ipu_device_unregister(&sim->idev);
}

static bool ipu_sim_mem_mb_valid(unsigned int mem_mb)
{
	return mem_mb >= 1 && mem_mb <= IPU_SIM_MAX_MEM_MB;
}

/* "echo MEM_MB > new_device": add a simulated IPU (0: sim_mem_mb). */
static ssize_t new_device_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	unsigned int mem_mb;
	int ret;

	ret = kstrtouint(buf, 10, &mem_mb);
	if (ret)
		return ret;
	if (!mem_mb)
		mem_mb = sim_mem_mb;
	if (!ipu_sim_mem_mb_valid(mem_mb))
		return -EINVAL;

	mutex_lock(&ipu_sim_lock);
	ret = ipu_sim_add_locked(mem_mb);
	mutex_unlock(&ipu_sim_lock);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(new_device);

/* "echo N > del_device": hot-remove the simulated /dev/ipuN. */
static ssize_t del_device_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct ipu_sim *sim;
	unsigned int minor;
	int ret;

	ret = kstrtouint(buf, 10, &minor);
	if (ret)
		return ret;

	ret = -ENODEV;
	mutex_lock(&ipu_sim_lock);
	list_for_each_entry(sim, &ipu_sim_list, node) {
		if (sim->idev.minor == minor) {
			ipu_sim_del_locked(sim);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&ipu_sim_lock);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(del_device);

static struct attribute *ipu_sim_root_attrs[] = {
	&dev_attr_new_device.attr,
	&dev_attr_del_device.attr,
	NULL,
};

static const struct attribute_group ipu_sim_root_group = {
	.attrs = ipu_sim_root_attrs,
};

static void ipu_sim_del_all(void)
{
	struct ipu_sim *sim, *tmp;

	mutex_lock(&ipu_sim_lock);
	list_for_each_entry_safe(sim, tmp, &ipu_sim_list, node)
		ipu_sim_del_locked(sim);
	mutex_unlock(&ipu_sim_lock);
}

/**
 * ipu_sim_init - create the control device and the devices asked for at load
 *
 * Return: 0 or a negative errno; on failure nothing is left registered.
 */
int ipu_sim_init(void)
{
	unsigned int i;
	int ret;

	if (sim_devices > IPU_SIM_MAX_DEVICES || !ipu_sim_mem_mb_valid(sim_mem_mb)) {
		pr_err("ipu: sim_devices must be 0-%d and sim_mem_mb 1-%d\n",
		       IPU_SIM_MAX_DEVICES, IPU_SIM_MAX_MEM_MB);
		return -EINVAL;
	}

	ipu_sim_root = root_device_register("ipu_sim");
	if (IS_ERR(ipu_sim_root))
		return PTR_ERR(ipu_sim_root);
	ret = sysfs_create_group(&ipu_sim_root->kobj, &ipu_sim_root_group);
	if (ret)
		goto err_unregister_root;

	mutex_lock(&ipu_sim_lock);
	for (i = 0; i < sim_devices && !ret; i++)
		ret = ipu_sim_add_locked(sim_mem_mb);
	mutex_unlock(&ipu_sim_lock);
	if (ret)
		goto err_del_all;
	return 0;

err_del_all:
	sysfs_remove_group(&ipu_sim_root->kobj, &ipu_sim_root_group);
	ipu_sim_del_all();
err_unregister_root:
	root_device_unregister(ipu_sim_root);
	return ret;
}

/**
 * ipu_sim_exit - remove every simulated device and the control device
 */
void ipu_sim_exit(void)
{
	/*
	 * The control files go first: removing them waits for writers in
	 * progress, so no new_device can add a device after ipu_sim_del_all()
	 * and outlive the module.
	 */
	sysfs_remove_group(&ipu_sim_root->kobj, &ipu_sim_root_group);
	ipu_sim_del_all();
	root_device_unregister(ipu_sim_root);
}
