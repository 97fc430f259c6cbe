// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_cfg.c - the function's PCI config space, as docs/hardware.md
 * section 1 lays it out: a byte image with, per byte, the bits a write may
 * change (wmask) and the bits a written 1 clears (w1c). Everything the spec
 * does not list reads 0 and ignores writes, because its masks are 0.
 * Side effects: Initiate FLR (PCIe Device Control bit 15) resets the
 * function; PowerState takes only D0 and D3hot. MSI Enable and Multiple
 * Message Enable choose how interrupts go out (emu_dev_irq.c).
 * AER registers are sticky (PCIe r6 7.8.4): FLR leaves them, only a
 * power-on (emu_cfg_power_on()) restores their reset values.
 */
#include <errno.h>
#include <string.h>

#include "emu_internal.h"

#define PCI_COMMAND		0x04
#define PCI_STATUS		0x06
#define PCI_CACHE_LINE		0x0c
#define PCI_BAR(n)		(0x10 + 4 * (n))
#define PCI_INT_LINE		0x3c

/* Offsets inside the capabilities. */
#define PM_PMCSR		(IPU_CFG_PM_CAP + 4)
#define MSIX_CTRL		(IPU_CFG_MSIX_CAP + 2)
#define MSI_CTRL		(IPU_CFG_MSI_CAP + 2)
#define MSI_ADDR		(IPU_CFG_MSI_CAP + 4)
#define MSI_ADDR_HI		(IPU_CFG_MSI_CAP + 8)
#define MSI_DATA		(IPU_CFG_MSI_CAP + 12)
#define EXP(off)		(IPU_CFG_EXP_CAP + (off))
#define EXP_DEVCTL		EXP(0x08)
#define EXP_DEVSTA		EXP(0x0a)
#define EXP_LNKCTL		EXP(0x10)
#define EXP_LNKSTA		EXP(0x12)
#define EXP_DEVCTL2		EXP(0x28)
#define EXP_LNKCTL2		EXP(0x30)
#define EXP_DEVCTL_FLR		0x8000u
/* Device Control's writable bits: 3:0 error reporting enables, 4 Relaxed
 * Ordering, 7:5 Max_Payload, 8 Extended Tag, 11 No Snoop, 14:12
 * Max_Read_Request. 9 Phantom Functions and 10 Aux Power PM are RO 0 (the
 * function has neither); 15 Initiate FLR is handled on write. */
#define EXP_DEVCTL_WMASK	0x79ffu
#define PCI_COMMAND_MASTER	0x4u
#define MSIX_CTRL_FMASK		0x4000u
#define MSIX_CTRL_ENABLE	0x8000u
#define EXP_LNKSTA_LBMS		0x4000u
#define EXP_DEVSTA_CED		0x0001u
#define EXP_DEVSTA_NFED		0x0002u
#define EXP_DEVSTA_FED		0x0004u

/* AER (PCIe r6 7.8.4), for an Endpoint without ECRC, multiple header
 * recording or TLP prefixes. */
#define AER(off)		(IPU_CFG_AER_CAP + (off))
#define AER_UNCOR_STATUS	AER(0x04)
#define AER_UNCOR_MASK		AER(0x08)
#define AER_UNCOR_SEVER		AER(0x0c)
#define AER_COR_STATUS		AER(0x10)
#define AER_COR_MASK		AER(0x14)
#define AER_CAP_CTRL		AER(0x18)
#define AER_HEADER_LOG		AER(0x1c)
#define AER_HEADER_LOG_SIZE	16
/* Uncorrectable errors the function implements: 4 Data Link Protocol,
 * 12 Poisoned TLP Received, 13 Flow Control Protocol, 14 Completion
 * Timeout, 16 Unexpected Completion, 17 Receiver Overflow, 18 Malformed
 * TLP, 20 Unsupported Request, 22 Uncorrectable Internal Error. */
#define AER_UNCOR_BITS		0x00577010u
/* Severity at reset: DLP, FCP, Receiver Overflow, Malformed TLP and
 * Internal Error fatal; the rest non-fatal. */
#define AER_UNCOR_SEVER_RESET	0x00462010u
/* Correctable: 0 Receiver Error, 6 Bad TLP, 7 Bad DLLP, 8 REPLAY_NUM
 * Rollover, 12 Replay Timer Timeout, 13 Advisory Non-Fatal, 14 Corrected
 * Internal Error. */
#define AER_COR_BITS		0x000071c1u
/* Advisory Non-Fatal and Corrected Internal Error masked at reset. */
#define AER_COR_MASK_RESET	0x00006000u
#define AER_FEP_MASK		0x1fu

static void put8(uint8_t *a, uint32_t off, uint8_t v)
{
	a[off] = v;
}

static void put16(uint8_t *a, uint32_t off, uint16_t v)
{
	a[off] = (uint8_t)v;
	a[off + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *a, uint32_t off, uint32_t v)
{
	put16(a, off, (uint16_t)v);
	put16(a, off + 2, (uint16_t)(v >> 16));
}

static uint16_t get16(const uint8_t *a, uint32_t off)
{
	return (uint16_t)(a[off] | a[off + 1] << 8);
}

static uint32_t get32(const uint8_t *a, uint32_t off)
{
	return get16(a, off) | (uint32_t)get16(a, off + 2) << 16;
}

/* The sticky AER registers' reset values (power-on only, not FLR). */
static void cfg_aer_reset_values(struct emu_dev *dev)
{
	uint8_t *c = dev->cfg;

	put32(c, AER_UNCOR_STATUS, 0);
	put32(c, AER_UNCOR_MASK, 0);
	put32(c, AER_UNCOR_SEVER, AER_UNCOR_SEVER_RESET);
	put32(c, AER_COR_STATUS, 0);
	put32(c, AER_COR_MASK, AER_COR_MASK_RESET);
	put32(c, AER_CAP_CTRL, 0);
	memset(c + AER_HEADER_LOG, 0, AER_HEADER_LOG_SIZE);
}

/* The reset values of the registers FLR restores. */
static void cfg_reset_values(struct emu_dev *dev)
{
	uint8_t *c = dev->cfg;

	put16(c, PCI_COMMAND, 0);
	atomic_store(&dev->bus_master, false);
	put8(c, PCI_CACHE_LINE, 0);
	put16(c, PM_PMCSR, 0x0008);	/* D0, No_Soft_Reset */
	if (dev->opts.msi) {
		put16(c, MSI_CTRL, IPU_MSI_CTRL_MMC | IPU_MSI_CTRL_64BIT);
		put32(c, MSI_ADDR, 0);
		put32(c, MSI_ADDR_HI, 0);
		put16(c, MSI_DATA, 0);
	} else {
		put16(c, MSIX_CTRL, IPU_MSIX_VECTORS - 1);
	}
	put16(c, EXP_DEVCTL, 0x2810);
	put16(c, EXP_DEVSTA, 0);
	put16(c, EXP_LNKCTL, 0);
	put16(c, EXP_DEVCTL2, 0);
	put16(c, EXP_LNKCTL2, IPU_LINK_MAX_SPEED);
}

void emu_cfg_init(struct emu_dev *dev)
{
	uint8_t *c = dev->cfg, *w = dev->cfg_wmask, *x = dev->cfg_w1c;
	uint64_t bar2_mask = ~(dev->mem_size - 1);

	memset(c, 0, EMU_CFG_SIZE);
	memset(w, 0, EMU_CFG_SIZE);
	memset(x, 0, EMU_CFG_SIZE);

	/* Standard header. */
	put16(c, 0x00, IPU_PCI_VENDOR_ID);
	put16(c, 0x02, IPU_PCI_DEVICE_ID);
	put16(w, PCI_COMMAND, 0x0546);
	put16(c, PCI_STATUS, 0x0010);		/* capabilities list */
	put16(x, PCI_STATUS, 0xf900);
	put32(c, 0x08, IPU_PCI_CLASS << 8 | IPU_PCI_REVISION);
	put8(w, PCI_CACHE_LINE, 0xff);
	/* BAR0: 32-bit memory, 64 KiB. */
	put32(w, PCI_BAR(0), ~(uint32_t)(IPU_BAR_REGS_SIZE - 1));
	/* BAR2/3: 64-bit prefetchable memory, mem_size bytes. */
	put32(c, PCI_BAR(2), 0xc);
	put32(w, PCI_BAR(2), (uint32_t)bar2_mask & ~0xfu);
	put32(w, PCI_BAR(3), (uint32_t)(bar2_mask >> 32));
	put16(c, 0x2c, IPU_PCI_SUBSYS_VENDOR_ID);
	put16(c, 0x2e, IPU_PCI_SUBSYS_ID);
	put8(c, 0x34, IPU_CFG_PM_CAP);
	put8(w, PCI_INT_LINE, 0xff);

	/* Power Management, version 3. */
	put8(c, IPU_CFG_PM_CAP, 0x01);
	put8(c, IPU_CFG_PM_CAP + 1, IPU_CFG_MSIX_CAP);
	put16(c, IPU_CFG_PM_CAP + 2, 0x0003);
	put16(w, PM_PMCSR, 0x0003);

	if (dev->opts.msi) {
		/* MSI: 64-bit, 4 messages capable, no per-vector masking. */
		put8(c, IPU_CFG_MSI_CAP, 0x05);
		put8(c, IPU_CFG_MSI_CAP + 1, IPU_CFG_EXP_CAP);
		put16(w, MSI_CTRL, IPU_MSI_CTRL_ENABLE | IPU_MSI_CTRL_MME_MASK);
		put32(w, MSI_ADDR, 0xfffffffc);
		put32(w, MSI_ADDR_HI, 0xffffffff);
		put16(w, MSI_DATA, 0xffff);
	} else {
		/* MSI-X: table and PBA in BAR0. */
		put8(c, IPU_CFG_MSIX_CAP, 0x11);
		put8(c, IPU_CFG_MSIX_CAP + 1, IPU_CFG_EXP_CAP);
		put16(w, MSIX_CTRL, 0xc000);
		put32(c, IPU_CFG_MSIX_CAP + 4, IPU_MSIX_TABLE | IPU_BAR_REGS);
		put32(c, IPU_CFG_MSIX_CAP + 8, IPU_MSIX_PBA | IPU_BAR_REGS);
	}

	/* PCI Express v2, Endpoint. */
	put8(c, IPU_CFG_EXP_CAP, 0x10);
	put8(c, IPU_CFG_EXP_CAP + 1, 0);
	put16(c, EXP(0x02), 0x0002);
	put32(c, EXP(0x04), 0x10008001);	/* MPS 256, RBER, FLR */
	put16(w, EXP_DEVCTL, EXP_DEVCTL_WMASK);
	put16(x, EXP_DEVSTA, 0x000f);
	put32(c, EXP(0x0c), IPU_LINK_MAX_WIDTH << 4 | IPU_LINK_MAX_SPEED);
	put16(w, EXP_LNKCTL, 0x00cb);
	put16(x, EXP_LNKSTA, EXP_LNKSTA_LBMS);
	/* Device Control 2 RO 0: Device Capabilities 2 offers no completion
	 * timeout ranges and no timeout disable for it to choose from. */
	put32(c, EXP(0x2c), 0x1e);		/* 2.5 .. 16 GT/s */
	put16(w, EXP_LNKCTL2, 0x000f);

	/* Device Serial Number. */
	put32(c, IPU_CFG_DSN_CAP, IPU_CFG_AER_CAP << 20 | 0x00010003);
	put32(c, IPU_CFG_DSN_CAP + 4, (uint32_t)dev->opts.serial);
	put32(c, IPU_CFG_DSN_CAP + 8, (uint32_t)(dev->opts.serial >> 32));

	/* Advanced Error Reporting, version 2, last. Status RW1CS, mask
	 * and severity RWS, each of the implemented errors only; Capabilities
	 * and Control (First Error Pointer ROS, no ECRC) and the Header Log
	 * RO. */
	put32(c, IPU_CFG_AER_CAP, 0x00020001);
	put32(x, AER_UNCOR_STATUS, AER_UNCOR_BITS);
	put32(w, AER_UNCOR_MASK, AER_UNCOR_BITS);
	put32(w, AER_UNCOR_SEVER, AER_UNCOR_BITS);
	put32(x, AER_COR_STATUS, AER_COR_BITS);
	put32(w, AER_COR_MASK, AER_COR_BITS);

	cfg_reset_values(dev);
	cfg_aer_reset_values(dev);
	emu_cfg_link_update(dev, false);
}

void emu_cfg_power_on(struct emu_dev *dev)
{
	cfg_aer_reset_values(dev);
}

/*
 * The function detected an error (fault aer_uncor=/aer_cor=): the AER
 * status bit, the First Error Pointer when no other unmasked uncorrectable
 * error is logged, and Device Status' detected bit by severity (set
 * whatever the masks, PCIe r6 7.5.3.5). The message the function would
 * send upstream has no way through vfio-user: the host sees the bits only
 * when it reads them.
 */
bool emu_cfg_aer_implemented(bool uncor, unsigned int bit)
{
	return bit < 32 &&
	       ((uncor ? AER_UNCOR_BITS : AER_COR_BITS) & (1u << bit));
}

int emu_cfg_aer_error_locked(struct emu_dev *dev, bool uncor,
			     unsigned int bit)
{
	uint8_t *c = dev->cfg;
	uint32_t b = 1u << bit, pending;
	uint16_t sta = get16(c, EXP_DEVSTA);

	if (!emu_cfg_aer_implemented(uncor, bit))
		return -EINVAL;
	if (!uncor) {
		put32(c, AER_COR_STATUS, get32(c, AER_COR_STATUS) | b);
		put16(c, EXP_DEVSTA, sta | EXP_DEVSTA_CED);
		return 0;
	}
	pending = get32(c, AER_UNCOR_STATUS) & ~get32(c, AER_UNCOR_MASK);
	if (!(b & get32(c, AER_UNCOR_MASK)) &&
	    !(pending & (1u << (get32(c, AER_CAP_CTRL) & AER_FEP_MASK))))
		put32(c, AER_CAP_CTRL,
		      (get32(c, AER_CAP_CTRL) & ~AER_FEP_MASK) | bit);
	put32(c, AER_UNCOR_STATUS, get32(c, AER_UNCOR_STATUS) | b);
	sta |= (b & get32(c, AER_UNCOR_SEVER)) ? EXP_DEVSTA_FED : EXP_DEVSTA_NFED;
	put16(c, EXP_DEVSTA, sta);
	return 0;
}

void emu_cfg_flr(struct emu_dev *dev)
{
	cfg_reset_values(dev);
	put16(dev->cfg, EXP_LNKSTA, get16(dev->cfg, EXP_LNKSTA) &
				     (uint16_t)~EXP_LNKSTA_LBMS);
}

bool emu_cfg_bus_master_locked(const struct emu_dev *dev)
{
	return get16(dev->cfg, PCI_COMMAND) & PCI_COMMAND_MASTER;
}

bool emu_cfg_msix_enabled_locked(const struct emu_dev *dev)
{
	return !dev->opts.msi && (get16(dev->cfg, MSIX_CTRL) & MSIX_CTRL_ENABLE);
}

bool emu_cfg_msix_function_masked_locked(const struct emu_dev *dev)
{
	return !dev->opts.msi && (get16(dev->cfg, MSIX_CTRL) & MSIX_CTRL_FMASK);
}

int emu_cfg_msi_messages_locked(const struct emu_dev *dev)
{
	uint16_t ctrl = get16(dev->cfg, MSI_CTRL);
	unsigned int mme;

	if (!(ctrl & IPU_MSI_CTRL_ENABLE))
		return 0;
	mme = (ctrl & IPU_MSI_CTRL_MME_MASK) >> IPU_MSI_CTRL_MME_SHIFT;
	/* More than the function is capable of: as many as it is. */
	return mme >= 2 ? IPU_MSI_MESSAGES : 1 << mme;
}

void emu_cfg_link_update(struct emu_dev *dev, bool retrained)
{
	uint16_t sta = (uint16_t)(dev->link_width << 4 | dev->link_speed);

	if (retrained || (get16(dev->cfg, EXP_LNKSTA) & EXP_LNKSTA_LBMS))
		sta |= EXP_LNKSTA_LBMS;
	put16(dev->cfg, EXP_LNKSTA, sta);
}

int emu_dev_cfg_read(struct emu_dev *dev, uint32_t off, void *buf, uint32_t len)
{
	if (!dev || !buf || !len || off >= EMU_CFG_SIZE ||
	    len > EMU_CFG_SIZE - off)
		return -EINVAL;
	if (atomic_load(&dev->off_bus)) {
		memset(buf, 0xff, len);
		return 0;
	}
	pthread_mutex_lock(&dev->lock);
	memcpy(buf, dev->cfg + off, len);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

int emu_dev_cfg_write(struct emu_dev *dev, uint32_t off, const void *buf,
		      uint32_t len)
{
	const uint8_t *v = buf;
	bool flr = false;
	uint16_t pmcsr;
	uint32_t i, o;

	if (!dev || !buf || !len || off >= EMU_CFG_SIZE ||
	    len > EMU_CFG_SIZE - off)
		return -EINVAL;
	if (atomic_load(&dev->off_bus))
		return 0;
	pthread_mutex_lock(&dev->lock);
	pmcsr = get16(dev->cfg, PM_PMCSR);
	for (i = 0; i < len; i++) {
		o = off + i;
		if (o == EXP_DEVCTL + 1 && (v[i] & (EXP_DEVCTL_FLR >> 8)))
			flr = true;
		dev->cfg[o] = (uint8_t)((dev->cfg[o] & ~dev->cfg_wmask[o]) |
					(v[i] & dev->cfg_wmask[o]));
		dev->cfg[o] &= (uint8_t)~(v[i] & dev->cfg_w1c[o]);
	}
	/* Initiate FLR always reads 0. */
	dev->cfg[EXP_DEVCTL + 1] &= (uint8_t)~(EXP_DEVCTL_FLR >> 8);
	/* PowerState: D1 and D2 are not implemented; such a write is ignored. */
	if ((get16(dev->cfg, PM_PMCSR) & 3) == 1 ||
	    (get16(dev->cfg, PM_PMCSR) & 3) == 2)
		put16(dev->cfg, PM_PMCSR, pmcsr);
	atomic_store(&dev->bus_master, emu_cfg_bus_master_locked(dev));
	if (flr)
		emu_flr_locked(dev);
	/*
	 * Into D3hot with power_loss: the platform cuts the power there, as
	 * in D3cold. The function stays in D3 until the host brings it to
	 * D0, where it finds it in its power-on state (1.2).
	 */
	if ((pmcsr & 3) != 3 && (get16(dev->cfg, PM_PMCSR) & 3) == 3 &&
	    dev->faults.power_loss) {
		emu_power_cut_locked(dev);
		put16(dev->cfg, PM_PMCSR, get16(dev->cfg, PM_PMCSR) | 3);
	}
	/* BME set again, Function Mask cleared: what was held goes out. */
	emu_bus_kick_locked(dev);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}
