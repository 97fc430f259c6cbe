// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_fw.c - firmware boot (docs/hardware.md section 8): the image the
 * host put in device memory is copied out (the host may write BAR2 while
 * it is checked) and validated by emu_dev_fwimage.c. Only a valid image
 * makes the device READY, and only READY lets the command queue be
 * enabled.
 */
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"

static void boot_failed_locked(struct emu_dev *dev, uint32_t code)
{
	dev->fw_status = IPU_FW_STATE_FAILED | code << IPU_FW_ERR_SHIFT;
	dev->fw_version = 0;
	emu_err_locked(dev, IPU_ERR_FW_BOOT, code, dev->fw_addr);
	emu_irq_set_locked(dev, IPU_IRQ_FW_BOOT);
}

/*
 * BOOT is refused (docs/hardware.md 8.2) while a boot is under way or
 * done, and while any ring is enabled or still stopping: firmware that
 * changes under a ring would meet descriptors of the one before. The state
 * stays what it was and FW_BOOT stays quiet: the error log entry (and its
 * ERROR cause) says why.
 */
bool emu_fw_boot_refused_locked(struct emu_dev *dev)
{
	uint32_t state = dev->fw_status & IPU_FW_STATE_MASK;
	bool busy = state == IPU_FW_STATE_READY || state == IPU_FW_STATE_BOOTING;
	unsigned int q;

	for (q = 0; q < IPU_NUM_QUEUES; q++)
		if ((dev->queues[q].ctrl & IPU_Q_CTRL_ENABLE) ||
		    dev->queues[q].stopping)
			busy = true;
	if ((dev->gring.ctrl & IPU_Q_CTRL_ENABLE) || dev->gring.stopping)
		busy = true;
	if (busy)
		emu_err_locked(dev, IPU_ERR_FW_BOOT, IPU_FW_ERR_BUSY,
			       dev->fw_addr);
	return busy;
}

void emu_fw_boot_locked(struct emu_dev *dev)
{
	uint32_t code, version = 0;
	uint8_t *copy;

	dev->fw_status = IPU_FW_STATE_BOOTING;
	if (!emu_mem_range_ok(dev, dev->fw_addr, dev->fw_size)) {
		boot_failed_locked(dev, IPU_FW_ERR_RANGE);
		return;
	}
	if (dev->fw_size < IPU_FW_HEADER_SIZE || dev->fw_size > IPU_FW_MAX_SIZE) {
		boot_failed_locked(dev, IPU_FW_ERR_SIZE);
		return;
	}
	/* A copy: the host may write BAR2 while we check it. */
	copy = malloc(dev->fw_size);
	if (!copy) {
		boot_failed_locked(dev, IPU_FW_ERR_SIZE);
		return;
	}
	memcpy(copy, dev->mem + dev->fw_addr, dev->fw_size);
	code = emu_fw_validate(copy, dev->fw_size, &version);
	free(copy);
	if (code == IPU_FW_ERR_NONE && dev->faults.refuse_fw)
		code = IPU_FW_ERR_REFUSED;
	if (code != IPU_FW_ERR_NONE) {
		boot_failed_locked(dev, code);
		return;
	}
	dev->fw_status = IPU_FW_STATE_READY;
	dev->fw_version = version;
	emu_irq_set_locked(dev, IPU_IRQ_FW_BOOT);
}
