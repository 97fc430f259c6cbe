/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCIe IPUs (docs/hardware.md): the second implementation of struct
 * ipu_hw_ops, shared between the files of the PCI backend.
 */
#ifndef _IPU_PCI_H
#define _IPU_PCI_H

#include <linux/completion.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <ipu/hw.h>

#include "ipu_drv.h"

struct pci_dev;

/* "ipuNNN-misc" and the like: the names /proc/interrupts shows. */
#define IPU_PCI_IRQ_NAME_LEN 16

/**
 * struct ipu_pci - one PCIe IPU
 * @idev: the core's device; its release frees this structure, which may
 *	outlive the PCI function (files still open after removal).
 * @pdev: the function; NULL-free only while bound (every use is inside the
 *	core's unplug guard or before ipu_device_unregister()).
 * @regs: BAR0, the registers.
 * @mem: BAR2, device memory, mapped write-combining.
 * @mem_phys: bus address of BAR2, for the PFNs of mmap.
 * @serial: from the Device Serial Number capability.
 * @fw_version: FW_VERSION after a successful boot.
 * @pci_domain: PCI domain, for GET_INFO (kept: @pdev may be gone).
 * @pci_bdf: bus << 8 | devfn, for GET_INFO.
 * @irq_names: the name of each MSI-X vector's handler.
 * @irq_unmasked: IRQ_CAUSE bits unmasked; written by probe and reset,
 *	which the core serialises (ipu_device.lock) and the self-test, which
 *	only adds IPU_IRQ_SW, present from probe on.
 * @err_seen: ERR_COUNT up to which the error log was reported; only the
 *	threaded handler of vector 0 touches it once the device is up.
 * @fw_booted: completed by vector 0 when FW_BOOT is raised.
 * @selftest_lock: serialises interrupt self-tests (probe, debugfs).
 * @selftest_done: completed by vector 0 when the SW cause is raised.
 */
struct ipu_pci {
	struct ipu_device idev;
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *mem;
	phys_addr_t mem_phys;
	u64 serial;
	u32 fw_version;
	u32 pci_domain;
	u32 pci_bdf;
	char irq_names[IPU_MSIX_VECTORS][IPU_PCI_IRQ_NAME_LEN];
	u32 irq_unmasked;
	u32 err_seen;
	struct completion fw_booted;
	struct mutex selftest_lock; /* one self-test at a time */
	struct completion selftest_done;
};

static inline struct ipu_pci *to_ipu_pci(struct ipu_device *idev)
{
	return container_of(idev, struct ipu_pci, idev);
}

static inline u32 ipu_pci_rd(struct ipu_pci *ipu, u32 reg)
{
	return readl(ipu->regs + reg);
}

static inline void ipu_pci_wr(struct ipu_pci *ipu, u32 reg, u32 val)
{
	writel(val, ipu->regs + reg);
}

/*
 * Unmask @causes in IRQ_MASK, and rewrite the mask (soft reset sets it back
 * to all masked: @causes 0 restores it).
 */
static inline void ipu_pci_unmask(struct ipu_pci *ipu, u32 causes)
{
	WRITE_ONCE(ipu->irq_unmasked, ipu->irq_unmasked | causes);
	ipu_pci_wr(ipu, IPU_REG_IRQ_MASK, IPU_IRQ_ALL & ~ipu->irq_unmasked);
}

int ipu_pci_fw_load(struct ipu_pci *ipu);

int ipu_pci_init(void);
void ipu_pci_exit(void);

#endif /* _IPU_PCI_H */
