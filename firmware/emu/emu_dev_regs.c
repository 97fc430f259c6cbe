// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_regs.c - the BAR0 register file (docs/hardware.md sections 2-3):
 * the access rules (aligned 4- and 8-byte accesses inside 64 KiB, anything
 * else refused), and every 32-bit register's read and write. An 8-byte
 * access is two 32-bit ones, low half first, under one hold of the device
 * lock, so a 64-bit register reads and writes atomically.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "emu_internal.h"

/* CAPS 23:16 is the vector count of whichever capability is present. */
_Static_assert(IPU_MSI_MESSAGES == IPU_MSIX_VECTORS, "CAPS vector count");

/*
 * The no_gather fault presents a device without the gather extension; the
 * caps_xor fault changes what CAPS says, and nothing the device does.
 */
static uint32_t caps_locked(const struct emu_dev *dev)
{
	uint32_t caps = IPU_CAPS_DMA | IPU_CAPS_CMDQ | IPU_CAPS_TELEMETRY |
			IPU_CAPS_SOFT_RESET | IPU_CAPS_REPLICAS |
			IPU_NUM_QUEUES << IPU_CAPS_NQUEUES_SHIFT |
			IPU_MSIX_VECTORS << IPU_CAPS_NVEC_SHIFT;

	if (!dev->faults.no_gather)
		caps |= IPU_CAPS_GATHER;
	if (!dev->faults.no_profile)
		caps |= IPU_CAPS_PROFILE;
	return caps ^ dev->faults.caps_xor;
}

/* LINK_ID: the same for every IPU of this process (they are linked). */
static uint32_t link_id(void)
{
	return (uint32_t)getpid() * 2654435761u | 1;
}

static uint32_t status_locked(const struct emu_dev *dev)
{
	uint32_t st = 0, state = dev->fw_status & IPU_FW_STATE_MASK;
	unsigned int q;

	if (state == IPU_FW_STATE_READY)
		st |= IPU_STATUS_FW_READY;
	if (state == IPU_FW_STATE_FAILED)
		st |= IPU_STATUS_FW_FAILED;
	for (q = 0; q < IPU_NUM_QUEUES; q++)
		if (dev->queues[q].status & IPU_Q_STATUS_HALTED)
			st |= IPU_STATUS_QUEUE_ERROR;
	if (dev->gring.status & IPU_Q_STATUS_HALTED)
		st |= IPU_STATUS_QUEUE_ERROR;
	if (dev->link_speed != IPU_LINK_MAX_SPEED ||
	    dev->link_width != IPU_LINK_MAX_WIDTH)
		st |= IPU_STATUS_LINK_DEGRADED;
	return st;
}

static uint32_t read32_locked(struct emu_dev *dev, uint32_t off)
{
	if (off >= IPU_REG_QUEUE(0) && off < IPU_REG_QUEUE(IPU_NUM_QUEUES))
		return emu_queue_reg_read_locked(dev, (off - IPU_REG_QUEUE(0)) / 0x40,
						 (off - IPU_REG_QUEUE(0)) % 0x40);
	if (off >= IPU_REG_GATHER && off < IPU_REG_GATHER + 0x40)
		return emu_gather_reg_read_locked(dev, off - IPU_REG_GATHER);
	if (off >= IPU_REG_TEMP_MC && off < IPU_REG_UPTIME_MS + 8)
		return emu_telemetry_read_locked(dev, off);
	if (off >= IPU_REG_ERR_LOG &&
	    off < IPU_REG_ERR_LOG + IPU_ERR_LOG_LEN * IPU_ERR_ENTRY_SIZE)
		return emu_errlog_read_locked(dev, off - IPU_REG_ERR_LOG);
	/* A function with MSI has no table: the offsets name nothing. */
	if (!dev->opts.msi && off >= IPU_MSIX_TABLE &&
	    off < IPU_MSIX_TABLE + sizeof(dev->msix))
		return dev->msix[(off - IPU_MSIX_TABLE) / 4];
	if (!dev->opts.msi && off >= IPU_MSIX_PBA && off < IPU_MSIX_PBA + 8)
		return emu_bus_pba_read_locked(dev, off - IPU_MSIX_PBA);
	switch (off) {
	case IPU_REG_ID:
		return IPU_ID_VALUE;
	case IPU_REG_VERSION:
		return IPU_SPEC_VERSION;
	case IPU_REG_CAPS:
		return caps_locked(dev);
	case IPU_REG_LINK_ID:
		return link_id();
	case IPU_REG_LINK_INDEX:
		return dev->opts.index;
	case IPU_REG_STATUS:
		return status_locked(dev);
	case IPU_REG_RESET_COUNT:
		return dev->reset_count;
	case IPU_REG_SCRATCH:
		return dev->scratch;
	case IPU_REG_IRQ_CAUSE:
		return dev->irq_cause;
	case IPU_REG_IRQ_MASK:
		return dev->irq_mask;
	case IPU_REG_FW_ADDR:
		return (uint32_t)dev->fw_addr;
	case IPU_REG_FW_ADDR + 4:
		return (uint32_t)(dev->fw_addr >> 32);
	case IPU_REG_FW_SIZE:
		return dev->fw_size;
	case IPU_REG_FW_STATUS:
		return dev->fw_status;
	case IPU_REG_FW_VERSION:
		return dev->fw_version;
	case IPU_REG_FW_REGION_ADDR:
	case IPU_REG_FW_REGION_ADDR + 4:
		/* The first EMU_FW_REGION_SIZE bytes: where ipu.ko stages. */
		return 0;
	case IPU_REG_FW_REGION_SIZE:
		return EMU_FW_REGION_SIZE;
	case IPU_REG_FW_REGION_SIZE + 4:
		return 0;
	case IPU_REG_ERR_COUNT:
		return dev->err_count;
	default:
		/* WO registers and unassigned offsets. */
		return 0;
	}
}

static void write32_locked(struct emu_dev *dev, uint32_t off, uint32_t val)
{
	if (off >= IPU_REG_QUEUE(0) && off < IPU_REG_QUEUE(IPU_NUM_QUEUES)) {
		emu_queue_reg_write_locked(dev, (off - IPU_REG_QUEUE(0)) / 0x40,
					   (off - IPU_REG_QUEUE(0)) % 0x40, val);
		return;
	}
	if (off >= IPU_REG_GATHER && off < IPU_REG_GATHER + 0x40) {
		emu_gather_reg_write_locked(dev, off - IPU_REG_GATHER, val);
		return;
	}
	if (!dev->opts.msi && off >= IPU_MSIX_TABLE &&
	    off < IPU_MSIX_TABLE + sizeof(dev->msix)) {
		dev->msix[(off - IPU_MSIX_TABLE) / 4] = val;
		emu_bus_kick_locked(dev);	/* a vector unmasked */
		return;
	}
	switch (off) {
	case IPU_REG_SOFT_RESET:
		if (val != IPU_SOFT_RESET_MAGIC)
			emu_err_locked(dev, IPU_ERR_BAD_RESET, 0, val);
		else if (dev->faults.ignore_reset &&
			 --dev->faults.ignore_reset == 0)
			/* The ignore_reset fault: a reset that never happens. */
			emu_log(dev, "injected fault: soft reset ignored");
		else
			emu_posted_soft_reset_locked(dev);
		break;
	case IPU_REG_SCRATCH:
		dev->scratch = val;
		break;
	case IPU_REG_IRQ_CAUSE:
		emu_irq_ack_locked(dev, val);
		break;
	case IPU_REG_IRQ_MASK:
		emu_irq_mask_locked(dev, val);
		break;
	case IPU_REG_IRQ_RAISE:
		emu_irq_set_locked(dev, val & IPU_IRQ_ALL);
		break;
	case IPU_REG_FW_ADDR:
		dev->fw_addr = (dev->fw_addr & ~0xffffffffull) | val;
		break;
	case IPU_REG_FW_ADDR + 4:
		dev->fw_addr = (dev->fw_addr & 0xffffffffull) |
			       (uint64_t)val << 32;
		break;
	case IPU_REG_FW_SIZE:
		dev->fw_size = val;
		break;
	case IPU_REG_FW_CTRL:
		if (val & IPU_FW_CTRL_BOOT)
			emu_posted_boot_locked(dev);
		break;
	default:
		/* RO and unassigned: ignored. */
		break;
	}
}

static int check(uint64_t off, uint32_t len)
{
	if (len != 4 && len != 8)
		return -EINVAL;
	if (off % len || off >= IPU_BAR_REGS_SIZE ||
	    len > IPU_BAR_REGS_SIZE - off)
		return -EINVAL;
	return 0;
}

int emu_regs_read(struct emu_dev *dev, uint64_t off, void *buf, uint32_t len)
{
	uint32_t v[2];
	int err = check(off, len);

	if (err)
		return err;
	if (atomic_load(&dev->off_bus)) {
		memset(buf, 0xff, len);
		return 0;
	}
	pthread_mutex_lock(&dev->lock);
	v[0] = read32_locked(dev, (uint32_t)off);
	if (len == 8)
		v[1] = read32_locked(dev, (uint32_t)off + 4);
	pthread_mutex_unlock(&dev->lock);
	memcpy(buf, v, len);
	return 0;
}

int emu_regs_write(struct emu_dev *dev, uint64_t off, const void *buf,
		   uint32_t len)
{
	uint32_t v[2];
	int err = check(off, len);

	if (err)
		return err;
	if (atomic_load(&dev->off_bus))
		return 0;
	memcpy(v, buf, len);
	pthread_mutex_lock(&dev->lock);
	write32_locked(dev, (uint32_t)off, v[0]);
	if (len == 8)
		write32_locked(dev, (uint32_t)off + 4, v[1]);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}
