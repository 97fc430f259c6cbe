// SPDX-License-Identifier: GPL-2.0
/*
 * The PCIe IPU's firmware: request the image this project builds
 * (ipu-mkfw, docs/hardware.md section 8.1), copy it into device memory
 * through BAR2 and boot it (section 8.2). The device validates the image
 * (sizes, CRCs, records); the driver only refuses what could not fit.
 *
 * Every way the boot can fail ends the probe with one dmesg line that
 * names the file and the reason: missing (request_firmware_direct(): no
 * fallback to a user helper that would wait a minute, no second warning),
 * too large, refused by the device (FW_STATUS's error code by name), or no
 * answer at all.
 */
#include <linux/firmware.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "ipu_pci.h"

#define IPU_PCI_FW_NAME "ipu/ipu-fw.bin"
MODULE_FIRMWARE(IPU_PCI_FW_NAME);

/*
 * Silicon may take up to 1 s to boot (section 8.2): wait for the FW_BOOT
 * interrupt twice as long, then poll FW_STATUS as long again before
 * giving up (a lost interrupt must not fail a boot that worked).
 */
#define IPU_PCI_FW_BOOT_MS 2000
/* The image goes to the start of device memory: BOs may reuse it later. */
#define IPU_PCI_FW_DEV_ADDR 0

static const char *const ipu_pci_fw_errors[] = {
	[IPU_FW_ERR_NONE] = "no error",
	[IPU_FW_ERR_RANGE] = "outside device memory",
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

/**
 * ipu_pci_fw_load - load and boot the firmware
 * @ipu: the device, its vector 0 handler installed
 *
 * On success @ipu->fw_version is the running firmware's version.
 *
 * Return: 0, or a negative errno after one dmesg line saying why.
 */
int ipu_pci_fw_load(struct ipu_pci *ipu)
{
	struct device *dev = &ipu->pdev->dev;
	const struct firmware *fw;
	u32 status, state;
	int ret;

	ret = request_firmware_direct(&fw, IPU_PCI_FW_NAME, dev);
	if (ret) {
		dev_err(dev, "firmware %s: cannot load it: %d\n",
			IPU_PCI_FW_NAME, ret);
		return ret;
	}
	if (fw->size > IPU_FW_MAX_SIZE ||
	    IPU_PCI_FW_DEV_ADDR + fw->size > ipu->idev.mem_size) {
		dev_err(dev, "firmware %s: %zu bytes, more than the device takes\n",
			IPU_PCI_FW_NAME, fw->size);
		ret = -EFBIG;
		goto out_release;
	}

	memcpy_toio(ipu->mem + IPU_PCI_FW_DEV_ADDR, fw->data, fw->size);
	reinit_completion(&ipu->fw_booted);
	ipu_pci_wr(ipu, IPU_REG_IRQ_CAUSE, IPU_IRQ_FW_BOOT);
	ipu_pci_unmask(ipu, IPU_IRQ_FW_BOOT);
	writeq(IPU_PCI_FW_DEV_ADDR, ipu->regs + IPU_REG_FW_ADDR);
	ipu_pci_wr(ipu, IPU_REG_FW_SIZE, fw->size);
	ipu_pci_wr(ipu, IPU_REG_FW_CTRL, IPU_FW_CTRL_BOOT);

	status = ipu_pci_fw_wait(ipu);
	state = status & IPU_FW_STATE_MASK;
	if (status == ~0u) {
		dev_err(dev, "firmware %s: no answer from the device\n",
			IPU_PCI_FW_NAME);
		ret = -ETIMEDOUT;
	} else if (state != IPU_FW_STATE_READY) {
		u32 code = (status >> IPU_FW_ERR_SHIFT) & 0xff;

		dev_err(dev, "firmware %s: boot failed: %s (FW_STATUS %#x)\n",
			IPU_PCI_FW_NAME, ipu_pci_fw_error(code), status);
		ret = -EIO;
	} else {
		ipu->fw_version = ipu_pci_rd(ipu, IPU_REG_FW_VERSION);
		ret = 0;
	}

out_release:
	release_firmware(fw);
	return ret;
}
