// SPDX-License-Identifier: GPL-2.0
/*
 * The PCIe IPU's firmware: read the image this project builds (ipu-mkfw,
 * docs/hardware.md section 8.1) once, at probe; check it on the host and
 * keep it in kernel memory; stage it in the region of device memory the
 * firmware owns (section 8.3, FW_REGION_ADDR/SIZE) and boot it (section
 * 8.2), at probe and again after every FLR, the driver's or the PCI
 * core's. The region is taken out of the buffer pool, so no user maps,
 * writes or transfers a byte of it, and a reset never copies the image
 * over a user's buffer; the watchdog's reset needs no file system.
 *
 * The file is read with request_firmware_into_buf(), into the buffer the
 * driver then keeps (IPU_FW_MAX_SIZE, the most an image may be): a read
 * into a caller's buffer bypasses the firmware loader's cache, which the
 * driver has no use for (it keeps the image) and which, filled at every
 * system sleep and emptied only 10 s after resume, would hand a probe in
 * those 10 s the copy of a file since removed or replaced. (The loader
 * also logs "Direct firmware load ... failed" for a missing file; a kernel
 * built with USER_HELPER_FALLBACK would wait for a user helper, which
 * Debian's are not.)
 *
 * Every way the boot can fail ends the probe with one dmesg line of ours
 * that names the file and the reason: missing,
 * not an image the spec allows (checked here: size, magic, format,
 * header and payload CRC), refused by the device (FW_STATUS's error code
 * by name), or no answer at all.
 */
#include <linux/crc32.h>
#include <linux/error-injection.h>
#include <linux/firmware.h>
#include <linux/genalloc.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "ipu_pci.h"

#define IPU_PCI_FW_NAME "ipu/ipu-fw.bin"
MODULE_FIRMWARE(IPU_PCI_FW_NAME);

/*
 * Silicon may take up to 1 s to boot (section 8.2): wait for the FW_BOOT
 * interrupt twice as long, then poll FW_STATUS as long again before
 * giving up (a lost interrupt must not fail a boot that worked).
 */
#define IPU_PCI_FW_BOOT_MS 2000
static const char *const ipu_pci_fw_errors[] = {
	[IPU_FW_ERR_NONE] = "no error",
	[IPU_FW_ERR_RANGE] = "outside the firmware region",
	[IPU_FW_ERR_SIZE] = "bad size",
	[IPU_FW_ERR_MAGIC] = "bad magic",
	[IPU_FW_ERR_VERSION] = "unsupported format or version",
	[IPU_FW_ERR_HEADER_CRC] = "header CRC mismatch",
	[IPU_FW_ERR_PAYLOAD_CRC] = "payload CRC mismatch",
	[IPU_FW_ERR_PAYLOAD] = "malformed payload",
	[IPU_FW_ERR_REFUSED] = "refused by the device",
	[IPU_FW_ERR_BUSY] = "device busy",
};

static const char *ipu_pci_fw_error(u32 code)
{
	if (code < ARRAY_SIZE(ipu_pci_fw_errors) && ipu_pci_fw_errors[code])
		return ipu_pci_fw_errors[code];
	return "unknown error";
}

/* FW_STATUS once it has left BOOTING, or ~0u when it never did. */
static u32 ipu_pci_fw_wait(struct ipu_pci *ipu)
{
	u32 status;
	int ret;

	if (wait_for_completion_timeout(&ipu->fw_booted,
					msecs_to_jiffies(IPU_PCI_FW_BOOT_MS)))
		return ipu_pci_rd(ipu, IPU_REG_FW_STATUS);
	ret = readl_poll_timeout(ipu->regs + IPU_REG_FW_STATUS, status,
				 (status & IPU_FW_STATE_MASK) !=
				 IPU_FW_STATE_BOOTING,
				 1000, IPU_PCI_FW_BOOT_MS * USEC_PER_MSEC);
	if (ret)
		return ~0u;
	dev_dbg(&ipu->pdev->dev, "no FW_BOOT interrupt: polled FW_STATUS\n");
	return status;
}

/* The spec's CRC-32 (zlib's): section 8.1. */
static u32 ipu_pci_fw_crc(const void *data, size_t len)
{
	return crc32_le(~0u, data, len) ^ ~0u;
}

/*
 * Why @data (@size bytes) is not an image the device could boot, as one
 * of FW_STATUS's error codes (section 8.2's checks up to the payload CRC),
 * or IPU_FW_ERR_NONE. The records are left to the device.
 */
static u32 ipu_pci_fw_check(const u8 *data, size_t size, u64 region_size)
{
	const struct ipu_fw_header *h = (const void *)data;
	u32 i;

	if (size < IPU_FW_HEADER_SIZE || size > IPU_FW_MAX_SIZE)
		return IPU_FW_ERR_SIZE;
	if (size > region_size)
		return IPU_FW_ERR_RANGE;
	if (le32_to_cpu((__force __le32)h->magic) != IPU_FW_MAGIC)
		return IPU_FW_ERR_MAGIC;
	if (le16_to_cpu((__force __le16)h->format) != IPU_FW_FORMAT ||
	    le16_to_cpu((__force __le16)h->header_size) != IPU_FW_HEADER_SIZE)
		return IPU_FW_ERR_VERSION;
	if (ipu_pci_fw_crc(data, offsetof(struct ipu_fw_header, header_crc32)) !=
	    le32_to_cpu((__force __le32)h->header_crc32))
		return IPU_FW_ERR_HEADER_CRC;
	if (IPU_FW_HEADER_SIZE + (u64)le32_to_cpu((__force __le32)h->payload_size) !=
	    size)
		return IPU_FW_ERR_SIZE;
	if (h->flags)
		return IPU_FW_ERR_PAYLOAD;
	for (i = 0; i < ARRAY_SIZE(h->reserved); i++)
		if (h->reserved[i])
			return IPU_FW_ERR_PAYLOAD;
	if (ipu_pci_fw_crc(data + IPU_FW_HEADER_SIZE, size - IPU_FW_HEADER_SIZE) !=
	    le32_to_cpu((__force __le32)h->payload_crc32))
		return IPU_FW_ERR_PAYLOAD_CRC;
	if ((le32_to_cpu((__force __le32)h->fw_version) >> 16) !=
	    IPU_FW_SUPPORTED_MAJOR)
		return IPU_FW_ERR_VERSION;
	return IPU_FW_ERR_NONE;
}

/**
 * ipu_pci_fw_region_init - take the firmware's region out of the pool
 * @ipu: the device, its core device initialised (the pool exists)
 *
 * Reads FW_REGION_ADDR and FW_REGION_SIZE (section 8.3) and reserves
 * those device addresses in the buffer pool for the life of the binding:
 * no buffer object, hence no mapping and no transfer of a user, covers
 * them. ipu_pci_fw_region_fini() gives them back.
 *
 * Return: 0, or -ENODEV after a dmesg line when the region is not one the
 * spec allows.
 */
int ipu_pci_fw_region_init(struct ipu_pci *ipu)
{
	struct genpool_data_fixed fixed;
	struct device *dev = &ipu->pdev->dev;
	u64 addr = readq(ipu->regs + IPU_REG_FW_REGION_ADDR);
	u64 size = readq(ipu->regs + IPU_REG_FW_REGION_SIZE);
	unsigned long got;

	if (!IS_ALIGNED(addr | size, SZ_4K) || size < IPU_FW_MAX_SIZE ||
	    size > ipu->idev.mem_size || addr > ipu->idev.mem_size - size ||
	    !PAGE_ALIGNED(addr | size)) {
		dev_err(dev, "firmware region %#llx+%#llx: not inside device memory as the spec says\n",
			addr, size);
		return -ENODEV;
	}
	fixed.offset = addr;
	got = gen_pool_alloc_algo(ipu->idev.pool, size, gen_pool_fixed_alloc,
				  &fixed);
	if (got != IPU_DEV_ADDR_BASE + addr) {
		if (got)
			gen_pool_free(ipu->idev.pool, got, size);
		dev_err(dev, "firmware region %#llx+%#llx: cannot reserve it\n",
			addr, size);
		return -ENODEV;
	}
	ipu->fw_region = addr;
	ipu->fw_region_size = size;
	return 0;
}

ALLOW_ERROR_INJECTION(ipu_pci_fw_region_init, ERRNO);

/**
 * ipu_pci_fw_region_fini - give the firmware's region back to the pool
 * @ipu: the device; the core's device unregistered or never registered
 *	(no buffer is created any more), before the last reference goes
 *	(the pool is destroyed with it, and must be empty by then)
 */
void ipu_pci_fw_region_fini(struct ipu_pci *ipu)
{
	if (!ipu->fw_region_size)
		return;
	gen_pool_free(ipu->idev.pool, IPU_DEV_ADDR_BASE + ipu->fw_region,
		      ipu->fw_region_size);
	ipu->fw_region_size = 0;
}

/**
 * ipu_pci_fw_read - read the firmware image, check it and keep it
 * @ipu: the device, its firmware region reserved
 *
 * The only read of the file: every boot after this one (FLR, the PCI
 * core's resets, error recovery) stages the copy kept here, freed with
 * the device (ipu_pci_release()).
 *
 * Return: 0, or a negative errno after one dmesg line saying why.
 */
int ipu_pci_fw_read(struct ipu_pci *ipu)
{
	struct device *dev = &ipu->pdev->dev;
	const struct firmware *fw;
	void *buf;
	u32 why;
	int ret;

	buf = kvmalloc(IPU_FW_MAX_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;	/* the allocator said so */
	ret = request_firmware_into_buf(&fw, IPU_PCI_FW_NAME, dev, buf,
					IPU_FW_MAX_SIZE);
	if (ret == -EFBIG) {
		dev_err(dev, "firmware %s: not a valid image: %s (more than %u bytes)\n",
			IPU_PCI_FW_NAME, ipu_pci_fw_error(IPU_FW_ERR_SIZE),
			IPU_FW_MAX_SIZE);
		goto out_free;
	}
	if (ret) {
		dev_err(dev, "firmware %s: cannot load it: %d\n",
			IPU_PCI_FW_NAME, ret);
		goto out_free;
	}
	why = ipu_pci_fw_check(fw->data, fw->size, ipu->fw_region_size);
	if (why != IPU_FW_ERR_NONE) {
		dev_err(dev, "firmware %s: not a valid image: %s (%zu bytes)\n",
			IPU_PCI_FW_NAME, ipu_pci_fw_error(why), fw->size);
		ret = why == IPU_FW_ERR_SIZE || why == IPU_FW_ERR_RANGE ?
		      -EFBIG : -EINVAL;
		goto out_release;
	}
	/* The loader read it into @buf, which release_firmware() leaves. */
	ipu->fw_image = buf;
	ipu->fw_size = fw->size;
	buf = NULL;
out_release:
	release_firmware(fw);
out_free:
	kvfree(buf);
	return ret;
}

ALLOW_ERROR_INJECTION(ipu_pci_fw_read, ERRNO);

/**
 * ipu_pci_fw_boot - stage the kept image in the firmware's region and boot it
 * @ipu: the device, its vector 0 handler installed, its firmware off
 *	(power-on or FLR) and its rings disabled
 *
 * Needs no file system and no allocation: the watchdog's reset and the
 * PCI core's reset_done call it under the device's lock.
 * On success @ipu->fw_version is the running firmware's version.
 *
 * Return: 0, or a negative errno after one dmesg line saying why.
 */
int ipu_pci_fw_boot(struct ipu_pci *ipu)
{
	struct device *dev = &ipu->pdev->dev;
	u32 status, state;

	memcpy_toio(ipu->mem + ipu->fw_region, ipu->fw_image, ipu->fw_size);
	reinit_completion(&ipu->fw_booted);
	ipu_pci_wr(ipu, IPU_REG_IRQ_CAUSE, IPU_IRQ_FW_BOOT);
	ipu_pci_unmask(ipu, IPU_IRQ_FW_BOOT);
	writeq(ipu->fw_region, ipu->regs + IPU_REG_FW_ADDR);
	ipu_pci_wr(ipu, IPU_REG_FW_SIZE, ipu->fw_size);
	ipu_pci_wr(ipu, IPU_REG_FW_CTRL, IPU_FW_CTRL_BOOT);

	status = ipu_pci_fw_wait(ipu);
	state = status & IPU_FW_STATE_MASK;
	if (status == ~0u) {
		dev_err(dev, "firmware %s: no answer from the device\n",
			IPU_PCI_FW_NAME);
		return -ETIMEDOUT;
	}
	if (state != IPU_FW_STATE_READY) {
		u32 code = (status >> IPU_FW_ERR_SHIFT) & 0xff;

		dev_err(dev, "firmware %s: boot failed: %s (FW_STATUS %#x)\n",
			IPU_PCI_FW_NAME, ipu_pci_fw_error(code), status);
		return -EIO;
	}
	ipu->fw_version = ipu_pci_rd(ipu, IPU_REG_FW_VERSION);
	return 0;
}

ALLOW_ERROR_INJECTION(ipu_pci_fw_boot, ERRNO);
