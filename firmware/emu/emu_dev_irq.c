// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_irq.c - interrupt causes and the error log (docs/hardware.md
 * sections 6 and 7). A vector's message goes out when one of its cause
 * bits rises while unmasked, or when unmasking finds one set; a cause
 * already set sends nothing new, which is why handlers acknowledge before
 * they look at the work. A function with MSI sends the MSI-X vector's
 * number as its message when the host enabled 4 messages, message 0 for
 * every cause when it enabled fewer, nothing while MSI is disabled; a
 * function with MSI-X sends nothing while MSI-X Enable is clear.
 */
#include "emu_internal.h"

/* The MSI-X vector (MSI message, with 4 enabled) of each IRQ_CAUSE bit. */
static unsigned int vector_of(unsigned int bit)
{
	switch (1u << bit) {
	case IPU_IRQ_H2D:
		return IPU_VEC_H2D;
	case IPU_IRQ_D2H:
		return IPU_VEC_D2H;
	case IPU_IRQ_CMD:
	case IPU_IRQ_GATHER:	/* requests of the command queue's runs */
		return IPU_VEC_CMD;
	default:
		return IPU_VEC_MISC;
	}
}

/* Send one message per vector that has a bit in @bits. */
static void fire_locked(struct emu_dev *dev, uint32_t bits)
{
	bool sent[IPU_MSIX_VECTORS] = { false };
	unsigned int bit, vec;
	int msgs = IPU_MSIX_VECTORS;

	if (atomic_load(&dev->off_bus))
		return;
	if (dev->opts.msi)
		msgs = emu_cfg_msi_messages_locked(dev);
	else if (!emu_cfg_msix_enabled_locked(dev))
		msgs = 0;
	/* MSI (MSI-X) disabled and no INTx pin: the causes only latch. */
	if (!msgs)
		return;
	for (bit = 0; bit < 32; bit++) {
		if (!(bits & (1u << bit)))
			continue;
		/* Fewer messages than vectors: all on message 0 (a function
		 * must not use a message it was not granted). */
		vec = msgs == IPU_MSIX_VECTORS ? vector_of(bit) : 0;
		if (sent[vec])
			continue;
		sent[vec] = true;
		emu_bus_msg_locked(dev, vec);
	}
}

void emu_irq_set_locked(struct emu_dev *dev, uint32_t bits)
{
	uint32_t rising = bits & ~dev->irq_cause;

	dev->irq_cause |= bits;
	fire_locked(dev, rising & ~dev->irq_mask);
}

void emu_irq_ack_locked(struct emu_dev *dev, uint32_t bits)
{
	dev->irq_cause &= ~bits;
}

void emu_irq_mask_locked(struct emu_dev *dev, uint32_t mask)
{
	uint32_t unmasked = dev->irq_mask & ~mask;

	dev->irq_mask = mask & IPU_IRQ_ALL;
	fire_locked(dev, unmasked & dev->irq_cause);
}

void emu_err_locked(struct emu_dev *dev, uint32_t code, uint32_t info,
		    uint64_t detail)
{
	uint32_t *e = dev->err_log[dev->err_count % IPU_ERR_LOG_LEN];

	e[0] = code;
	e[1] = info;
	e[2] = (uint32_t)detail;
	e[3] = (uint32_t)(detail >> 32);
	dev->err_count++;
	emu_irq_set_locked(dev, IPU_IRQ_ERROR);
}

uint32_t emu_errlog_read_locked(const struct emu_dev *dev, uint32_t off)
{
	return dev->err_log[off / IPU_ERR_ENTRY_SIZE][off % IPU_ERR_ENTRY_SIZE / 4];
}
