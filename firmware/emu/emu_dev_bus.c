// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_bus.c - the device as a bus master. Every access the device
 * makes of host memory (descriptor fetch, data, status word, writeback
 * record, the gather ring's slots and writeback, a reset's E_RESET words)
 * and every interrupt message it sends goes through here, so that Bus
 * Master Enable (Command bit 2) gates all of them, as on silicon, where
 * both are memory writes the function issues as a requester:
 *  - an access while BME is clear is not made (-EPERM): its caller halts
 *    its queue with IPU_ERR_BUS_MASTER, and nothing reaches host memory;
 *  - a message due while BME is clear, or while its MSI-X vector is
 *    masked (Function Mask, or the Mask bit of its table entry as far as
 *    the host writes the table here), is not sent: it becomes pending
 *    (MSI-X: its PBA bit; MSI: a bit per message) and goes out once
 *    nothing holds it any more, when emu_bus_kick_locked() finds it so.
 * With EMU_LENIENT_BME (`--lenient bme`), v1: BME gates only the data.
 */
#include <errno.h>

#include "emu_internal.h"

/* MSI-X table entry @vec's Vector Control, bit 0 Mask. */
#define VCTL_MASK	0x1u

static bool lenient_bme(const struct emu_dev *dev)
{
	return dev->opts.lenient & EMU_LENIENT_BME;
}

bool emu_bus_master(const struct emu_dev *dev, enum emu_bus_use use)
{
	if (atomic_load(&dev->bus_master))
		return true;
	return use == EMU_BUS_CONTROL && lenient_bme(dev);
}

int emu_bus_read(struct emu_dev *dev, enum emu_bus_use use, uint64_t addr,
		 void *dst, size_t len)
{
	if (!emu_bus_master(dev, use))
		return -EPERM;
	return dev->host.dma_read(dev->host.ctx, addr, dst, len);
}

int emu_bus_write(struct emu_dev *dev, enum emu_bus_use use, uint64_t addr,
		  const void *src, size_t len)
{
	if (!emu_bus_master(dev, use))
		return -EPERM;
	return dev->host.dma_write(dev->host.ctx, addr, src, len);
}

int emu_bus_write_unlocked(struct emu_dev *dev, enum emu_bus_use use,
			   uint64_t addr, const void *src, size_t len)
{
	int err;

	pthread_mutex_unlock(&dev->lock);
	err = emu_bus_write(dev, use, addr, src, len);
	pthread_mutex_lock(&dev->lock);
	return err;
}

/* Whether message @vec may go out now (dev->lock held). */
static bool deliverable_locked(const struct emu_dev *dev, unsigned int vec)
{
	if (!emu_bus_master(dev, EMU_BUS_CONTROL))
		return false;
	if (dev->opts.msi)
		return true;
	return !emu_cfg_msix_function_masked_locked(dev) &&
	       !(dev->msix[vec * 4 + 3] & VCTL_MASK);
}

static uint32_t *pending_of(struct emu_dev *dev)
{
	return dev->opts.msi ? &dev->msi_pending : &dev->msix_pending;
}

void emu_bus_msg_locked(struct emu_dev *dev, unsigned int vec)
{
	if (atomic_load(&dev->off_bus) || vec >= IPU_MSIX_VECTORS)
		return;
	if (!deliverable_locked(dev, vec)) {
		*pending_of(dev) |= 1u << vec;
		return;
	}
	/* -ENOENT: no eventfd for it; the message is lost, as on a
	 * function whose host never set the vector up. */
	(void)dev->host.irq(dev->host.ctx, vec);
}

void emu_bus_kick_locked(struct emu_dev *dev)
{
	uint32_t *pending = pending_of(dev);
	unsigned int vec;

	if (!*pending || atomic_load(&dev->off_bus))
		return;
	/* MSI (MSI-X) disabled meanwhile: the function sends nothing (no
	 * INTx) and holds nothing, and enabling it sends nothing by itself
	 * (docs/hardware.md 6). */
	if (dev->opts.msi ? !emu_cfg_msi_messages_locked(dev) :
			    !emu_cfg_msix_enabled_locked(dev)) {
		*pending = 0;
		return;
	}
	for (vec = 0; vec < IPU_MSIX_VECTORS; vec++) {
		if (!(*pending & (1u << vec)) || !deliverable_locked(dev, vec))
			continue;
		*pending &= ~(1u << vec);
		(void)dev->host.irq(dev->host.ctx, vec);
	}
}

uint32_t emu_bus_pba_read_locked(const struct emu_dev *dev, uint32_t off)
{
	/* 4 vectors: the first dword holds every bit, the rest read 0. */
	return off == 0 ? dev->msix_pending : 0;
}
