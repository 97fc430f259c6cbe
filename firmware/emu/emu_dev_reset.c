// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_reset.c - soft reset and Function Level Reset (docs/hardware.md
 * section 9). Both stop every queue first (launches cancelled, published
 * descriptors completed with E_RESET); they differ in what they keep:
 * soft reset keeps the firmware, the error log and the counters, FLR
 * returns the function to its power-on state but for device memory, the
 * memory error counts and the link.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "emu_internal.h"

/* The registers soft reset and FLR both return to reset values. */
static void common_reset_locked(struct emu_dev *dev)
{
	emu_queues_reset_locked(dev);
	emu_cmd_ctx_forget_locked(dev);
	emu_gather_forget_locked(dev);
	dev->irq_cause = 0;
	dev->irq_mask = IPU_IRQ_ALL;
	dev->scratch = 0;
}

void emu_regs_reset_locked(struct emu_dev *dev)
{
	unsigned int i;

	dev->irq_cause = 0;
	dev->irq_mask = IPU_IRQ_ALL;
	dev->scratch = 0;
	dev->reset_count = 0;
	dev->fw_addr = 0;
	dev->fw_size = 0;
	dev->fw_status = IPU_FW_STATE_OFF;
	dev->fw_version = 0;
	for (i = 0; i < IPU_MSIX_VECTORS * 4; i++)
		dev->msix[i] = 0;
	dev->msix_pending = dev->msi_pending = 0;
	dev->err_count = 0;
	for (i = 0; i < IPU_ERR_LOG_LEN; i++)
		dev->err_log[i][0] = dev->err_log[i][1] = dev->err_log[i][2] =
			dev->err_log[i][3] = 0;
	dev->launches = 0;
	dev->h2d_bytes = dev->d2h_bytes = 0;
	for (i = 0; i < sizeof(dev->counter_hi) / sizeof(dev->counter_hi[0]); i++)
		dev->counter_hi[i] = 0;
	dev->up_since_ms = emu_now_ms();
}

void emu_soft_reset_locked(struct emu_dev *dev)
{
	common_reset_locked(dev);
	dev->reset_count++;
}

void emu_flr_locked(struct emu_dev *dev)
{
	/* The Command register clears first: with BME clear, the work in
	 * flight reaches no host memory (no E_RESET words; the driver
	 * completes it), unless --lenient bme. */
	emu_cfg_flr(dev);
	/* Config writes are not posted: FLR is over when it returns. */
	emu_posted_cancel_locked(dev);
	common_reset_locked(dev);
	emu_regs_reset_locked(dev);
}

/* Device memory to zeros: its pages dropped (they read zero), or written. */
static void mem_scrub_locked(struct emu_dev *dev)
{
	if (fallocate(dev->mem_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      0, (off_t)dev->mem_size))
		memset(dev->mem, 0, dev->mem_size);
}

/*
 * Fault power_loss: the platform cut the power of the function in D3hot
 * (D3cold, hibernation's power-off), and gives it back. What silicon
 * loses (docs/hardware.md 1.2): everything but the link, as at power-on;
 * the work in flight ends with nothing written (the Command register
 * clears first, as in an FLR); the sticky AER registers go too; device
 * memory is initialised to zeros at power-on (ECC needs every word written
 * before it is read), so no byte of what it held survives.
 */
void emu_power_cut_locked(struct emu_dev *dev)
{
	emu_log(dev, "injected fault: power lost in D3hot, the function is in its power-on state");
	emu_flr_locked(dev);
	emu_cfg_power_on(dev);
	mem_scrub_locked(dev);
}

/* BME refusals in the error log (ERR_BUS_MASTER) since the last FLR. */
static unsigned int bme_refusals_locked(const struct emu_dev *dev)
{
	uint32_t i, n = dev->err_count < IPU_ERR_LOG_LEN ? dev->err_count :
							    IPU_ERR_LOG_LEN;
	unsigned int found = 0;

	for (i = 0; i < n; i++)
		found += dev->err_log[i][0] == IPU_ERR_BUS_MASTER;
	return found;
}

/*
 * The transport lost its client (emu_dev.h): an FLR, and more, since the
 * next client is another guest. FLR keeps device memory; a new client
 * must find none of the last one's data there, and must share none with
 * it: the last client may keep its mapping of BAR2's memfd, so the
 * device takes a new one (emu_mem_renew_locked()). Should that fail (no
 * memory for a new file), the old file is scrubbed instead and the error
 * returned: the transport then serves no other client on this device
 * (the old client could still read it). The transport has already
 * dropped the client's mappings and eventfds, so whatever the reset
 * would write to host memory or signal goes nowhere.
 */
int emu_dev_client_lost(struct emu_dev *dev)
{
	unsigned int rings;
	int err;

	if (!dev)
		return -EINVAL;
	rings = emu_dev_rings_enabled(dev);
	pthread_mutex_lock(&dev->lock);
	/*
	 * The state the client left the function in, for the rig: a guest
	 * that rebooted must have stopped every ring and cleared Bus Master
	 * (its driver's .shutdown), and no ring may have wanted host memory
	 * after that (ERR_BUS_MASTER logged since the driver's probe FLR).
	 */
	emu_log(dev, "client lost: rings=%#x bus_master=%d bme_refused=%u",
		rings, emu_cfg_bus_master_locked(dev), bme_refusals_locked(dev));
	emu_flr_locked(dev);
	err = emu_mem_renew_locked(dev);
	if (err)
		mem_scrub_locked(dev);
	pthread_mutex_unlock(&dev->lock);
	return err;
}
