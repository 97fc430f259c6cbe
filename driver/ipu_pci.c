// SPDX-License-Identifier: GPL-2.0
/*
 * PCIe IPUs: probe, remove, reset and surprise removal of the function
 * that docs/hardware.md specifies (include/ipu/hw.h is its transcription,
 * shared with the device model ipu-emu). Each function bound here becomes
 * one /dev/ipuN with the same UAPI as a simulated IPU.
 *
 * Probe follows the spec's section 12: enable, map BAR0 and BAR2, check ID
 * and VERSION, 64-bit DMA, bus mastering, the interrupt vectors (four
 * MSI-X, or MSI: ipu_pci_irq.c) and a self-test on vector 0, the firmware
 * boot (ipu_pci_fw.c), the DMA queues (ipu_pci_dma.c), the command queue
 * (ipu_pci_cmd.c), then the character device. Everything up to the core's
 * device is managed (pcim_*, devm_*), so a probe that fails leaves nothing
 * behind.
 *
 * Device numbering: the PCI driver registers after the simulated IPUs are
 * created at module load, and probing is synchronous, so simulated IPUs
 * keep /dev/ipu0.. and PCI IPUs follow them (README, "PCIe IPUs").
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/error-injection.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include <uapi/linux/ipu.h>

#include "compat.h"
#include "ipu_launch.h"
#include "ipu_pci.h"
#include "ipu_trace.h"

/* A soft reset is done within IPU_STOP_TIMEOUT_MS (spec section 9.1). */
#define IPU_PCI_RESET_WAIT_US (IPU_STOP_TIMEOUT_MS * USEC_PER_MSEC)

/* True when a register read says the function fell off the bus. */
static bool ipu_pci_gone(u32 val)
{
	return val == ~0u;
}

/*
 * The driver unbinds itself from a function that fell off the bus, as
 * the PCI core's removal would unbind it: remove() under the device
 * lock. Nothing happens when the driver was unbound meanwhile (rmmod, a
 * sysfs unbind, the PCI core's own removal); a function that is gone
 * cannot have been bound again since (probe reads ID all ones and fails).
 */
static void ipu_pci_gone_work(struct work_struct *work)
{
	struct ipu_pci *ipu = container_of(work, struct ipu_pci, gone_work);
	struct pci_dev *pdev = ipu->pdev;

	device_release_driver(&pdev->dev);
	pci_dev_put(pdev);
	ipu_device_put(&ipu->idev);
}

/*
 * A reset of the function begins or ends (the PCI core's FLR, AER's
 * recovery, the driver's own FLR), or system sleep (ipu_pci_pm.c: D3hot):
 * BAR0 may read all ones in between, which then says nothing about
 * removal (ipu_pci_check_gone()).
 */
void ipu_pci_reset_begin(struct ipu_pci *ipu)
{
	atomic_inc(&ipu->resets);
	atomic_inc(&ipu->reset_gen);
	/* Before the reset's first access makes BAR0 read all ones. */
	smp_mb__after_atomic();
}

void ipu_pci_reset_end(struct ipu_pci *ipu)
{
	/* After the reset's last access: the registers answer again. */
	smp_mb__before_atomic();
	atomic_dec(&ipu->resets);
}

/*
 * Stop using a function that is gone or hung (@ipu->gone just set): wake
 * the transfers waiting for it and queue the driver's unbinding.
 */
static void ipu_pci_unplug(struct ipu_pci *ipu)
{
	ipu_pci_dma_abort(ipu);
	/* The work's own references: removal may run before it. */
	pci_dev_get(ipu->pdev);
	get_device(&ipu->idev.dev);
	queue_work(ipu_wq, &ipu->gone_work);
}

/**
 * ipu_pci_check_gone - surprise removal: whether a read says the function is gone
 * @ipu: the device
 * @val: a register just read
 *
 * A function that fell off the bus answers every read with all ones
 * (spec section 10); ID never reads so otherwise, so an all-ones @val that
 * ID confirms is removal. The first such read stops the driver touching
 * the function, wakes the transfers waiting for it (they fail -ENODEV) and
 * queues the driver's unbinding (ipu_pci_gone_work()), which completes
 * everything else in flight with -ENODEV as remove() does. Reads that
 * may have overlapped a reset of the function (ipu_pci_reset_begin())
 * prove nothing: the function is not taken for gone then. Callable from
 * any context, interrupt handlers included.
 *
 * Return: true when the function is gone.
 */
bool ipu_pci_check_gone(struct ipu_pci *ipu, u32 val)
{
	int gen;

	if (ipu_pci_is_gone(ipu))
		return true;
	if (!ipu_pci_gone(val) || atomic_read(&ipu->resets))
		return false;
	/*
	 * A reset under way when ID is read began after the line above: it
	 * moved reset_gen. One that ended before ID is read left ID readable.
	 */
	gen = atomic_read(&ipu->reset_gen);
	/* The generation before ID's read: pairs with ipu_pci_reset_begin(). */
	rmb();
	if (!ipu_pci_gone(ipu_pci_rd(ipu, IPU_REG_ID)))
		return false;
	/* ID's read before the second look: pairs with ipu_pci_reset_begin(). */
	rmb();
	if (atomic_read(&ipu->resets) || atomic_read(&ipu->reset_gen) != gen)
		return false;
	if (!atomic_xchg(&ipu->gone, 1)) {
		dev_err(&ipu->pdev->dev, "the function fell off the bus (registers read all ones): unplugging\n");
		ipu_pci_unplug(ipu);
	}
	return true;
}

/**
 * ipu_pci_read_live - read a register for a reader beside the device's work
 * @ipu: the device, bound
 * @reg: the register (BAR0 offset)
 * @val: out: its value
 *
 * For readers the driver does not serialise with resets (sysfs, hwmon):
 * all ones read during a reset of the function is no value, and no
 * removal either.
 *
 * Return: 0, -ENODEV when the function fell off the bus, -EAGAIN when the
 * read overlapped a reset (try again once it is done).
 */
int ipu_pci_read_live(struct ipu_pci *ipu, u32 reg, u32 *val)
{
	int gen = atomic_read(&ipu->reset_gen);
	/*
	 * A reset already under way may end before the second look, which
	 * would then find neither it nor a new generation.
	 */
	bool busy = atomic_read(&ipu->resets);

	/* The generation before the read: pairs with ipu_pci_reset_begin(). */
	rmb();
	*val = ipu_pci_rd(ipu, reg);
	if (!ipu_pci_gone(*val))
		return 0;
	if (ipu_pci_check_gone(ipu, *val))
		return -ENODEV;
	/* The read before the second look: pairs with ipu_pci_reset_begin(). */
	rmb();
	if (busy || atomic_read(&ipu->resets) ||
	    atomic_read(&ipu->reset_gen) != gen)
		return -EAGAIN;
	return 0;
}

/**
 * ipu_pci_hung - a ring did not stop in time: the device is hung
 * @ipu: the device
 *
 * Spec 2.1: a device that has not stopped within IPU_STOP_TIMEOUT_MS is
 * hung. Its memory stays its own (ipu_pci_quiesce.c), bus mastering is
 * cleared, and the driver unbinds itself as from a function that fell
 * off the bus: transfers waiting fail with -ENODEV, open files get it.
 * Process context.
 */
void ipu_pci_hung(struct ipu_pci *ipu)
{
	WRITE_ONCE(ipu->hung, true);
	pci_clear_master(ipu->pdev);
	if (atomic_xchg(&ipu->gone, 1))
		return;
	/*
	 * Found by remove() itself: nothing to queue, and an unbinding
	 * queued now would unbind the driver bound next (a hung function,
	 * unlike one that fell off the bus, can be bound again: probe
	 * resets it).
	 */
	if (READ_ONCE(ipu->removing)) {
		dev_err(&ipu->pdev->dev, "the device is hung\n");
		return;
	}
	dev_err(&ipu->pdev->dev, "the device is hung: unplugging\n");
	ipu_pci_unplug(ipu);
}

/**
 * ipu_pci_present - whether the function still answers (reads ID)
 * @ipu: the device
 *
 * For the teardown paths, which skip the registers of a function that is
 * gone: its writes go nowhere, and each access costs a bus timeout.
 *
 * Return: true unless the function fell off the bus.
 */
bool ipu_pci_present(struct ipu_pci *ipu)
{
	return !ipu_pci_is_gone(ipu) &&
	       !ipu_pci_check_gone(ipu, ipu_pci_rd(ipu, IPU_REG_ID));
}

static void ipu_pci_mem_clear(struct ipu_device *idev, u64 dev_off, u64 len)
{
	memset_io(to_ipu_pci(idev)->mem + dev_off, 0, len);
}

/* BAR2 byte n is device address n: the frame is BAR2's plus the offset. */
static int ipu_pci_mem_pfn(struct ipu_device *idev, u64 dev_off,
			   unsigned long *pfn)
{
	struct ipu_pci *ipu = to_ipu_pci(idev);

	if (dev_off >= idev->mem_size)
		return -EFAULT;
	*pfn = PHYS_PFN(ipu->mem_phys + dev_off);
	return 0;
}

/*
 * Soft reset (spec section 9.1): done when RESET_COUNT has moved; the
 * firmware stays READY. -EIO when it did not move.
 */
static int ipu_pci_soft_reset(struct ipu_pci *ipu)
{
	u32 before, now;
	int ret;

	before = ipu_pci_rd(ipu, IPU_REG_RESET_COUNT);
	if (ipu_pci_check_gone(ipu, before))
		return -ENODEV;
	ipu_pci_wr(ipu, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	ret = readl_poll_timeout(ipu->regs + IPU_REG_RESET_COUNT, now,
				 now != before, 10, IPU_PCI_RESET_WAIT_US);
	if (ret)
		return -EIO;
	return ipu_pci_check_gone(ipu, now) ? -ENODEV : 0;
}

/*
 * Function Level Reset (spec section 9.2), when soft reset did not work:
 * the PCI core saves and restores config space (MSI-X, bus mastering);
 * the firmware is unloaded, and booted again by the caller. The _try_
 * variant: remove() holds the device lock while it waits for a reset in
 * progress, and a reset that waited for remove() would deadlock.
 */
static int ipu_pci_flr(struct ipu_pci *ipu)
{
	struct device *dev = &ipu->pdev->dev;
	int ret;

	dev_warn(dev, "soft reset did not complete: Function Level Reset\n");
	/* Its reset_prepare/reset_done are ours: ipu_pci_core_reset_prepare(). */
	WRITE_ONCE(ipu->flr_task, current);
	ret = pci_try_reset_function(ipu->pdev);
	WRITE_ONCE(ipu->flr_task, NULL);
	if (ret) {
		dev_err(dev, "Function Level Reset failed: %d\n", ret);
		/*
		 * -EAGAIN: another reset of the function holds it; try again.
		 * Anything else (-ENOTTY: no way to reset it) is the device's
		 * failure to reset, not a bad request.
		 */
		return ret == -EAGAIN ? ret : -EIO;
	}
	return 0;
}

/*
 * After an FLR (the driver's or the PCI core's): the error log restarts
 * from ERR_COUNT 0 (spec section 7), so the count reported goes back to
 * 0 (without this, the next error would replay a whole log of stale
 * entries, or be lost; the FLR masked every cause, so vector 0's thread,
 * once done with what came before, cannot run meanwhile); the firmware is
 * off, booted again from the kept image.
 */
static int ipu_pci_after_flr(struct ipu_pci *ipu)
{
	synchronize_irq(pci_irq_vector(ipu->pdev, IPU_VEC_MISC));
	ipu->err_seen = 0;
	return ipu_pci_fw_boot(ipu);
}

/*
 * ipu_hw_ops.reset: soft reset, FLR when that fails; then the interrupt
 * mask (reset to all masked) and the queues, whose rings the reset ended.
 * After a reset the PCI core did (@core_reset: reset_done, error
 * recovery) only the second half: the firmware booted and the queues.
 * After an FLR whose firmware does not boot again, the queues are
 * restarted all the same: DMA needs no firmware, and the command queue,
 * which does, then refuses launches at once (-EIO) rather than leaving
 * them to the watchdog; the firmware's error is returned.
 */
static int ipu_pci_reset(struct ipu_device *idev)
{
	struct ipu_pci *ipu = to_ipu_pci(idev);
	int ret, fw_ret = 0, cmd_ret, gather_ret;
	bool gathering;

	if (ipu_pci_is_gone(ipu))
		return -ENODEV;
	/* Asleep (the watchdog): resume resets it (ipu_pci_pm.c). */
	if (ipu->suspended)
		return -EBUSY;
	gathering = ipu_pci_gather_stop(ipu);
	/* No transfer posts to the rings the reset stops. */
	ipu_pci_dma_reset_prepare(ipu);
	if (ipu->core_reset) {
		ipu->core_reset = false;
		fw_ret = ipu_pci_after_flr(ipu);
	} else {
		ret = ipu_pci_soft_reset(ipu);
		if (ret == -EIO) {
			ret = ipu_pci_flr(ipu);
			if (!ret)
				fw_ret = ipu_pci_after_flr(ipu);
		}
		if (ret) {
			/* No reset happened: the rings run on, as they were. */
			ipu_pci_dma_reset_cancel(ipu);
			ipu_pci_gather_reset_cancel(ipu, gathering);
			return ret;
		}
	}
	ipu_pci_unmask(ipu, 0);
	ret = ipu_pci_dma_reset(ipu);
	cmd_ret = ipu_pci_cmd_reset(ipu);
	gather_ret = ipu_pci_gather_reset(ipu);
	return fw_ret ?: ret ?: cmd_ret ?: gather_ret;
}

static void ipu_pci_fill_info(struct ipu_device *idev, struct ipu_info *info)
{
	struct ipu_pci *ipu = to_ipu_pci(idev);

	info->serial = ipu->serial;
	info->firmware_version = ipu->fw_version;
	info->pci_domain = ipu->pci_domain;
	info->pci_bdf = ipu->pci_bdf;
	/* The firmware's region is no user's (spec section 8.3). */
	info->memory_total -= ipu->fw_region_size;
	info->memory_used -= ipu->fw_region_size;
}

static void ipu_pci_release(struct ipu_device *idev)
{
	struct ipu_pci *ipu = to_ipu_pci(idev);

	kvfree(ipu->fw_image);
	kfree(ipu);
}

static const struct ipu_hw_ops ipu_pci_ops = {
	.platform = IPU_PLATFORM_PCI,
	.fw_in_userspace = false,
	.mem_wc = true,
	.dma = ipu_pci_dma,
	.mem_clear = ipu_pci_mem_clear,
	.mem_pfn = ipu_pci_mem_pfn,
	.launch = ipu_pci_cmd_launch,
	.reset = ipu_pci_reset,
	.gather_answer = ipu_pci_gather_answer,
	.fill_info = ipu_pci_fill_info,
	.release = ipu_pci_release,
};

/*
 * BAR2 as the spec's section 2 has it: 64-bit prefetchable memory (mapped
 * write-combining and into users' address spaces, which only memory
 * without read side effects allows), a power of two from 1 MiB to 64 GiB
 * (the device memory the allocator hands out).
 */
static int ipu_pci_check_bar2(struct pci_dev *pdev)
{
	unsigned long flags = pci_resource_flags(pdev, IPU_BAR_MEM);
	u64 len = pci_resource_len(pdev, IPU_BAR_MEM);
	unsigned long want = IORESOURCE_MEM | IORESOURCE_MEM_64 |
			     IORESOURCE_PREFETCH;

	if ((flags & want) != want || !is_power_of_2(len) ||
	    len < IPU_MEM_MIN_SIZE || len > IPU_MEM_MAX_SIZE)
		return dev_err_probe(&pdev->dev, -ENODEV,
				     "BAR2 is not 64-bit prefetchable memory of a power of two from 1 MiB to 64 GiB (flags %#lx, %llu bytes)\n",
				     flags, len);
	return 0;
}

/* What the driver cannot work without: both data paths, and their queues. */
#define IPU_PCI_CAPS_NEEDED (IPU_CAPS_DMA | IPU_CAPS_CMDQ)

/*
 * CAPS (spec section 3): a function without the DMA queues or the command
 * queue cannot be driven, and is refused. Bits the driver does not know
 * are left alone: a later minor version only adds what a driver of a
 * lower one may ignore (spec section 1). GATHER is read where the gather
 * ring is set up (ipu_pci_gather.c); TELEMETRY decides whether hwmon has
 * sensors to show.
 */
static int ipu_pci_check_caps(struct ipu_pci *ipu)
{
	u32 caps = ipu_pci_rd(ipu, IPU_REG_CAPS);
	u32 queues = (caps >> IPU_CAPS_NQUEUES_SHIFT) & 0xff;

	if ((caps & IPU_PCI_CAPS_NEEDED) != IPU_PCI_CAPS_NEEDED ||
	    queues < IPU_NUM_QUEUES)
		return dev_err_probe(&ipu->pdev->dev, -ENODEV,
				     "CAPS %#x: no DMA queues or no command queue, or fewer than %u queues\n",
				     caps, IPU_NUM_QUEUES);
	ipu->caps = caps;
	return 0;
}

/* Enable, claim and map the function, and check it is the spec's. */
static noinline int ipu_pci_enable(struct pci_dev *pdev, struct ipu_pci *ipu)
{
	struct device *dev = &pdev->dev;
	u32 id, version;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot enable the function\n");
	ret = pcim_request_all_regions(pdev, IPU_DRIVER_NAME);
	if (ret)
		return dev_err_probe(dev, ret, "cannot claim the BARs\n");

	if (pci_resource_len(pdev, IPU_BAR_REGS) < IPU_BAR_REGS_SIZE ||
	    !(pci_resource_flags(pdev, IPU_BAR_REGS) & IORESOURCE_MEM))
		return dev_err_probe(dev, -ENODEV, "BAR0 is not memory of %u KiB\n",
				     IPU_BAR_REGS_SIZE >> 10);
	ret = ipu_pci_check_bar2(pdev);
	if (ret)
		return ret;
	ipu->regs = pcim_iomap(pdev, IPU_BAR_REGS, IPU_BAR_REGS_SIZE);
	if (!ipu->regs)
		return dev_err_probe(dev, -ENOMEM, "cannot map BAR0\n");
	ipu->mem_phys = pci_resource_start(pdev, IPU_BAR_MEM);
	/* Plain memory with no read side effects (spec section 2). */
	ipu->mem = devm_ioremap_wc(dev, ipu->mem_phys,
				   pci_resource_len(pdev, IPU_BAR_MEM));
	if (!ipu->mem)
		return dev_err_probe(dev, -ENOMEM, "cannot map BAR2\n");

	id = ipu_pci_rd(ipu, IPU_REG_ID);
	version = ipu_pci_rd(ipu, IPU_REG_VERSION);
	if (ipu_pci_gone(id))
		return dev_err_probe(dev, -ENODEV, "the function is gone (ID reads all ones)\n");
	if (id != IPU_ID_VALUE ||
	    IPU_SPEC_MAJOR(version) != IPU_SPEC_MAJOR(IPU_SPEC_VERSION))
		return dev_err_probe(dev, -ENODEV,
				     "not an IPU of spec %u.x (ID %#x, VERSION %#x)\n",
				     IPU_SPEC_MAJOR(IPU_SPEC_VERSION), id, version);

	ret = ipu_pci_check_caps(ipu);
	if (ret)
		return ret;

	/*
	 * A driver bound before (unbind, rmmod) left the firmware running,
	 * and BOOT while READY is refused (spec section 8.2): start from a
	 * Function Level Reset, which unloads it. The driver core holds the
	 * device lock during probe, as the _locked variant wants.
	 */
	if ((ipu_pci_rd(ipu, IPU_REG_FW_STATUS) & IPU_FW_STATE_MASK) !=
	    IPU_FW_STATE_OFF) {
		ret = pci_reset_function_locked(pdev);
		if (ret)
			return dev_err_probe(dev, ret, "cannot reset the function\n");
	}

	/* Descriptors, rings and writebacks take any 64-bit bus address. */
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return dev_err_probe(dev, ret, "no 64-bit DMA\n");
	pci_set_master(pdev);

	return ipu_pci_irq_alloc(ipu);
}

ALLOW_ERROR_INJECTION(ipu_pci_enable, ERRNO);

/*
 * Each step below that can fail is marked ALLOW_ERROR_INJECTION() where it
 * is defined (static ones noinline, or the mark would miss the inlined
 * call): the kernel's fail_function fails any of them at its n-th call,
 * which test_pci_probe_errors does, step by step, for the error paths.
 */
static int ipu_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct ipu_pci *ipu;
	int ret;

	ipu = kzalloc(sizeof(*ipu), GFP_KERNEL);
	if (!ipu)
		return -ENOMEM;
	ipu->pdev = pdev;
	INIT_WORK(&ipu->gone_work, ipu_pci_gone_work);
	ipu_pci_dma_prepare(ipu);
	init_completion(&ipu->fw_booted);
	init_completion(&ipu->selftest_done);
	mutex_init(&ipu->selftest_lock);
	ret = ipu_pci_enable(pdev, ipu);
	if (ret)
		goto err_free;
	ipu->serial = pci_get_dsn(pdev);
	ipu->pci_domain = pci_domain_nr(pdev->bus);
	ipu->pci_bdf = PCI_DEVID(pdev->bus->number, pdev->devfn);

	ret = ipu_device_init(&ipu->idev, &pdev->dev, &ipu_pci_ops,
			      pci_resource_len(pdev, IPU_BAR_MEM));
	if (ret)
		goto err_free;
	/* Profiled launches need the PROFILE descriptor (spec 4.5). */
	ipu->idev.profile = ipu->caps & IPU_CAPS_PROFILE;
	/* From here on the device's refcount owns ipu: see ipu_pci_release(). */
	ret = ipu_pci_fw_region_init(ipu);
	if (ret)
		goto err_put;
	ret = ipu_pci_fw_read(ipu);
	if (ret)
		goto err_put;
	ret = ipu_pci_request_irqs(ipu);
	if (ret)
		goto err_put;
	ret = ipu_pci_irq_selftest(ipu);
	if (ret) {
		dev_err(&pdev->dev, "%s vector %d did not fire on the self-test doorbell: %d\n",
			ipu_pci_irq_kind(ipu), IPU_VEC_MISC, ret);
		goto err_free_irqs;
	}
	ret = ipu_pci_fw_boot(ipu);
	if (ret)
		goto err_free_irqs;
	ret = ipu_pci_dma_init(ipu);
	if (ret)
		goto err_free_irqs;
	ret = ipu_pci_cmd_init(ipu);
	if (ret)
		goto err_dma_fini;
	ret = ipu_pci_gather_init(ipu);
	if (ret)
		goto err_cmd_fini;
	ret = ipu_pci_hwmon_init(ipu);
	if (ret)
		goto err_gather_fini;
	/* Errors the boot logged are its own, reported already. */
	ipu->err_seen = ipu_pci_rd(ipu, IPU_REG_ERR_COUNT);
	ipu_pci_unmask(ipu, IPU_IRQ_ERROR);

	ret = ipu_device_register(&ipu->idev);
	if (ret)
		goto err_hwmon_fini;
	ipu_pci_irq_debugfs(ipu);
	ipu_pci_flr_dark_debugfs(ipu);
	/*
	 * The config space AER's slot_reset restores after the core reset
	 * the link (Command, BARs, MSI-X): kernels before 6.16 save none of
	 * it themselves, and pci_restore_state() consumes what was saved,
	 * so each restore below saves it again.
	 */
	pci_save_state(pdev);
	pci_set_drvdata(pdev, ipu);
	dev_info(&pdev->dev, "%s: %llu MiB, firmware %u.%u.%u, serial %016llx, %s, %d vector%s\n",
		 dev_name(&ipu->idev.dev), ipu->idev.mem_size >> 20,
		 ipu->fw_version >> 16, (ipu->fw_version >> 8) & 0xff,
		 ipu->fw_version & 0xff, ipu->serial, ipu_pci_irq_kind(ipu),
		 ipu->nvec, ipu->nvec == 1 ? "" : "s");
	return 0;

err_hwmon_fini:
	ipu_pci_hwmon_fini(ipu);
err_gather_fini:
	ipu_pci_gather_fini(ipu);
err_cmd_fini:
	ipu_pci_cmd_fini(ipu);
err_dma_fini:
	ipu_pci_dma_fini(ipu);
err_free_irqs:
	ipu_pci_free_irqs(ipu);
err_put:
	ipu_pci_fw_region_fini(ipu);
	ipu_device_put(&ipu->idev);
	return ret;
err_free:
	kfree(ipu);
	return ret;
}

static void ipu_pci_remove(struct pci_dev *pdev)
{
	struct ipu_pci *ipu = pci_get_drvdata(pdev);

	/* First: its readers use ipu and BAR0 (ipu_pci_hwmon.c). */
	ipu_pci_hwmon_fini(ipu);
	/*
	 * Our own reference: unregistering drops the device's, and open
	 * files may or may not hold others; the interrupt handlers need
	 * the structure until free_irq() has returned.
	 */
	get_device(&ipu->idev.dev);
	/* Before the unplug guard is waited for: nothing inside it waits. */
	WRITE_ONCE(ipu->removing, true);
	ipu_pci_dma_abort(ipu);
	ipu_device_unregister(&ipu->idev);
	ipu_pci_gather_fini(ipu);
	ipu_pci_cmd_fini(ipu);
	ipu_pci_dma_fini(ipu);
	ipu_pci_free_irqs(ipu);
	/* No buffer is created once unregistered: the region goes back. */
	ipu_pci_fw_region_fini(ipu);
	ipu_device_put(&ipu->idev);
}

/*
 * Resets the PCI core does (spec sections 9.2 and 12): an FLR through
 * sysfs `reset`, a hypervisor's or DPC's, and the slot or bus reset of
 * AER's recovery. The core calls reset_prepare before and reset_done
 * after, both under the device lock (remove() cannot run between them),
 * from one task. Between them the driver's work waits: the device's lock
 * (held from prepare to done) keeps the watchdog and RESET out, and
 * readers of BAR0 beside it know that all ones means nothing
 * (ipu_pci_reset_begin()). After it the function is brought back as after
 * the driver's own FLR: the firmware booted from the kept image, the
 * rings enabled again, the launches it ended failed with -EIO (the
 * transfers it ended too, by their ring's generation), and the reset
 * counted; open files carry over.
 */
static void ipu_pci_core_reset_prepare(struct pci_dev *pdev)
{
	struct ipu_pci *ipu = pci_get_drvdata(pdev);

	/* The probe's own FLR (drvdata not set yet). */
	if (!ipu)
		return;
	ipu_pci_reset_begin(ipu);
	/* The driver's own FLR: its caller holds the lock and recovers. */
	if (READ_ONCE(ipu->flr_task) != current) {
		/*
		 * No unplug guard to enter: the device lock the core holds
		 * keeps remove(), the only unplug of a PCI IPU, out until
		 * reset_done.
		 */
		mutex_lock(&ipu->idev.lock);
		ipu->core_reset_entered = true;
		ipu_pci_gather_stop(ipu);
		/* Transfers wait for the rings the reset is about to end. */
		ipu_pci_dma_reset_prepare(ipu);
	}
	/* The core's reset follows: on silicon BAR0 reads all ones. */
	ipu_pci_flr_dark_begin(ipu);
}

/*
 * The function was reset by the PCI core, or lost its state in system
 * sleep (ipu_pci_pm.c): bring it back, under the device's lock. Returns
 * the reset's result (0 when the firmware booted).
 */
int ipu_pci_core_recover(struct ipu_pci *ipu)
{
	struct device *dev = &ipu->pdev->dev;
	int ret;

	lockdep_assert_held(&ipu->idev.lock);
	ipu->core_reset = true;
	ret = ipu_launch_reset_locked(&ipu->idev, -EIO, -EIO);
	trace_ipu_reset(&ipu->idev, IPU_TRACE_RESET_PCI, ret);
	ipu->core_reset = false;
	if (ret)
		dev_err(dev, "the function did not come back from its reset: %d\n",
			ret);
	return ret;
}

static void ipu_pci_core_reset_done(struct pci_dev *pdev)
{
	struct ipu_pci *ipu = pci_get_drvdata(pdev);

	if (!ipu)
		return;
	ipu_pci_flr_dark_end(ipu);
	/* The core restored the state, and forgot it: for the next error. */
	pci_save_state(pdev);
	if (ipu->core_reset_entered) {
		ipu->core_reset_entered = false;
		if (!ipu_pci_core_recover(ipu) && ipu->aer_frozen)
			ipu->aer_recovered = true;
		mutex_unlock(&ipu->idev.lock);
	}
	ipu_pci_reset_end(ipu);
}

/*
 * AER (Documentation/PCI/pci-error-recovery.rst). A non-fatal error
 * leaves the function working: carry on. A fatal one freezes the link:
 * the core resets the slot or bus (its reset_prepare/reset_done above
 * bring the function back), then slot_reset brings it back if that did
 * not. Until then BAR0 may read all ones, which is no removal. A
 * permanent failure is a removal, which the core does.
 */
static pci_ers_result_t ipu_pci_error_detected(struct pci_dev *pdev,
					       pci_channel_state_t state)
{
	struct ipu_pci *ipu = pci_get_drvdata(pdev);

	dev_warn(&pdev->dev, "PCIe error reported (channel state %d)\n",
		 (__force int)state);
	if (state == pci_channel_io_normal)
		return PCI_ERS_RESULT_CAN_RECOVER;
	if (state == pci_channel_io_perm_failure)
		return PCI_ERS_RESULT_DISCONNECT;
	if (!ipu->aer_frozen) {
		ipu->aer_frozen = true;
		ipu->aer_recovered = false;
		ipu_pci_reset_begin(ipu);
	}
	return PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t ipu_pci_mmio_enabled(struct pci_dev *pdev)
{
	return PCI_ERS_RESULT_RECOVERED;
}

static pci_ers_result_t ipu_pci_slot_reset(struct pci_dev *pdev)
{
	struct ipu_pci *ipu = pci_get_drvdata(pdev);
	int ret;

	pci_restore_state(pdev);
	pci_save_state(pdev);
	if (!ipu->aer_frozen || ipu->aer_recovered)
		return PCI_ERS_RESULT_RECOVERED;
	/*
	 * The core reset the slot without reset_prepare/reset_done. It
	 * holds the device lock: remove(), hence unplug, waits.
	 */
	mutex_lock(&ipu->idev.lock);
	ret = ipu_pci_core_recover(ipu);
	mutex_unlock(&ipu->idev.lock);
	ipu->aer_recovered = !ret;
	return ret ? PCI_ERS_RESULT_DISCONNECT : PCI_ERS_RESULT_RECOVERED;
}

static void ipu_pci_resume(struct pci_dev *pdev)
{
	struct ipu_pci *ipu = pci_get_drvdata(pdev);

	if (ipu->aer_frozen) {
		ipu->aer_frozen = false;
		ipu_pci_reset_end(ipu);
	}
	dev_info(&pdev->dev, "recovered from the PCIe error\n");
}

static const struct pci_error_handlers ipu_pci_err_handlers = {
	.error_detected = ipu_pci_error_detected,
	.mmio_enabled = ipu_pci_mmio_enabled,
	.slot_reset = ipu_pci_slot_reset,
	.resume = ipu_pci_resume,
	.reset_prepare = ipu_pci_core_reset_prepare,
	.reset_done = ipu_pci_core_reset_done,
};

static const struct pci_device_id ipu_pci_ids[] = {
	{ PCI_DEVICE_SUB(IPU_PCI_VENDOR_ID, IPU_PCI_DEVICE_ID,
			 IPU_PCI_SUBSYS_VENDOR_ID, IPU_PCI_SUBSYS_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, ipu_pci_ids);

static struct pci_driver ipu_pci_driver = {
	.name = IPU_DRIVER_NAME,
	.id_table = ipu_pci_ids,
	.probe = ipu_pci_probe,
	.remove = ipu_pci_remove,
	.err_handler = &ipu_pci_err_handlers,
	/* ipu_pci_pm.c: system sleep, and quiet DMA for reboot and kexec */
	.shutdown = ipu_pci_shutdown,
	.driver.pm = pm_sleep_ptr(&ipu_pci_pm_ops),
	/* ipu_pci_sysfs.c: the memory error counters */
	.dev_groups = ipu_pci_dev_groups,
};

/**
 * ipu_pci_init - register the PCI driver (probes the functions present)
 *
 * Return: 0 or a negative errno.
 */
int ipu_pci_init(void)
{
	return pci_register_driver(&ipu_pci_driver);
}

/**
 * ipu_pci_exit - unbind every PCI IPU and unregister the driver
 */
void ipu_pci_exit(void)
{
	pci_unregister_driver(&ipu_pci_driver);
}
