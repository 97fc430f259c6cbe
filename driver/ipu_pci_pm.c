// SPDX-License-Identifier: GPL-2.0
/*
 * System sleep and shutdown of a PCIe IPU (docs/hardware.md 1.2, 2.1, 9
 * and 12).
 *
 * Suspend runs with user space frozen (the freezer waited for every
 * transfer and launch call in progress to return, or for their waits to
 * be interrupted), so what is left in flight is the device's own work and
 * the driver's workqueue. It stops accepting work and quiesces every ring
 * the way ipu_pci_quiesce.c says (disable, then read STATUS until it has
 * stopped): the ring's worth on a DMA ring finishes first, and so does a
 * transfer it began; the transfers behind them wait for resume, as they
 * wait for a reset (ipu_pci_dma_reset_prepare()); launches on the device get
 * IPU_PCI_PM_DRAIN_MS to finish, and the disable ends those still
 * running after that: they fail with -EIO, as a reset ends a launch
 * (the status word says E_RESET). The interrupt causes are masked, and
 * all ones read from BAR0 until resume says nothing about removal (real
 * silicon does not answer in D3hot). The PCI core saves config space and
 * puts the function in D3hot.
 *
 * Resume: the PCI core has brought the function back to D0 and restored
 * config space (MSI-X or MSI, bus mastering). The spec's function keeps
 * its state across D3hot (PMCSR No_Soft_Reset, section 1.2: firmware
 * READY, device memory in self-refresh, so buffers keep their bytes): the
 * rings come back through the reset op, whose soft reset ends what the
 * stop left on them. A function that lost its power (D3cold, or
 * hibernation's power-off) reads FW_STATUS OFF, as after an FLR: it is
 * brought back as after the PCI core's FLR (ipu_pci_core_recover(): the
 * firmware booted from the image kept since probe, then the rings).
 * Either way the launches the stop ended fail with -EIO, the transfers
 * that waited run, open files carry on, and the reset is counted.
 *
 * Shutdown (reboot, power-off, kexec): the rings are stopped at once and
 * bus mastering cleared, so that the device writes nothing into the next
 * kernel's memory; the firmware is not booted again. The next probe
 * starts with an FLR.
 */
#include <linux/iopoll.h>
#include <linux/pci.h>
#include <linux/pm.h>

#include "ipu_launch.h"
#include "ipu_pci.h"
#include "ipu_trace.h"

/* How long suspend lets the launches on the device finish. */
#define IPU_PCI_PM_DRAIN_MS 2000
#define IPU_PCI_PM_DRAIN_POLL_US 1000

/* Whether the device has handed back every launch of the command ring. */
static bool ipu_pci_pm_cmd_idle(struct ipu_pci *ipu)
{
	struct ipu_pci_cmdq *cq = &ipu->cmdq;
	bool idle;

	spin_lock(&cq->lock);
	idle = cq->head == cq->tail;
	spin_unlock(&cq->lock);
	return idle;
}

/*
 * Stop every ring of @ipu, with its device's lock held. @drain: let the
 * transfers on the DMA rings and, for a while, the launches on the
 * command ring finish first (suspend); else stop at once (shutdown).
 * A ring that does not stop marks the device hung (ipu_pci_ring_stop()),
 * which then unbinds itself: nothing more to do here either way.
 */
static void ipu_pci_pm_quiesce(struct ipu_pci *ipu, bool drain)
{
	static const char *const names[] = { "h2d", "d2h" };
	struct ipu_pci_cmdq *cq = &ipu->cmdq;
	struct ipu_pci_gatherq *gq = &ipu->gatherq;
	bool idle;
	int i;

	/*
	 * No ring's worth starts from here: the holder of a ring, whose
	 * batch may be many ring's worths, ends it after the one on the
	 * device (and the transfer begun, ipu_pci_q_run()) and puts back
	 * the transfers it did not post; they, and those after them, wait
	 * for resume (ipu_pci_dma()), which enables the rings. Set before
	 * the ring is waited for, or its holder would post its whole batch
	 * first, with the device's lock held here.
	 */
	ipu_pci_dma_reset_prepare(ipu);
	for (i = 0; i < ARRAY_SIZE(ipu->dmaq); i++) {
		struct ipu_pci_queue *q = &ipu->dmaq[i];

		if (drain) {
			/* What the holder posted finishes. */
			mutex_lock(&q->xfer_lock);
			/*
			 * Stopped below, for the reset at resume to enable,
			 * or the next transfer if that reset fails.
			 */
			q->enabled = false;
			q->stopped = true;
			mutex_unlock(&q->xfer_lock);
			/* Who lost the ring to us looks again (ipu_pci.h). */
			wake_up(&q->post_wait);
		}
		if (ipu_pci_ring_stop(ipu, q->regs,
				      IPU_Q_STATUS_ENABLED | IPU_Q_STATUS_BUSY,
				      names[i]))
			return;
	}

	/* Launches waiting for room are refused from here on (-EIO). */
	if (drain)
		read_poll_timeout(ipu_pci_pm_cmd_idle, idle, idle,
				  IPU_PCI_PM_DRAIN_POLL_US,
				  IPU_PCI_PM_DRAIN_MS * USEC_PER_MSEC, false, ipu);
	spin_lock(&cq->lock);
	cq->enabled = false;
	spin_unlock(&cq->lock);
	if (ipu_pci_ring_stop(ipu, cq->regs,
			      IPU_Q_STATUS_ENABLED | IPU_Q_STATUS_BUSY, "cmd"))
		return;

	ipu_pci_gather_stop(ipu);
	if (gq->ring && ipu_pci_ring_stop(ipu, gq->regs, IPU_Q_STATUS_ENABLED,
					  "gather"))
		return;

	/* The reset op at resume writes the mask back (ipu_pci_unmask()). */
	ipu_pci_wr(ipu, IPU_REG_IRQ_MASK, IPU_IRQ_ALL);
}

static int ipu_pci_pm_suspend(struct device *dev)
{
	struct ipu_pci *ipu = pci_get_drvdata(to_pci_dev(dev));

	mutex_lock(&ipu->idev.lock);
	WRITE_ONCE(ipu->suspended, true);
	/* Before q->resetting: ipu_pci_q_stopping() reads it after. */
	smp_wmb();
	if (!ipu_pci_is_gone(ipu) && !READ_ONCE(ipu->hung))
		ipu_pci_pm_quiesce(ipu, true);
	mutex_unlock(&ipu->idev.lock);
	/* From here BAR0 may read all ones (D3hot): no removal. */
	ipu_pci_reset_begin(ipu);
	/* A hung device unbinds itself: no reason to refuse the sleep. */
	return 0;
}

static int ipu_pci_pm_resume(struct device *dev)
{
	struct pci_dev *pdev = to_pci_dev(dev);
	struct ipu_pci *ipu = pci_get_drvdata(pdev);
	u32 fw;
	int ret;

	/* Back in D0, config space restored: BAR0 answers again. */
	ipu_pci_reset_end(ipu);
	/* Restored with config space, unless the function lost its power. */
	pci_set_master(pdev);
	mutex_lock(&ipu->idev.lock);
	WRITE_ONCE(ipu->suspended, false);
	fw = ipu_pci_rd(ipu, IPU_REG_FW_STATUS);
	if (ipu_pci_is_gone(ipu) || READ_ONCE(ipu->hung) ||
	    ipu_pci_check_gone(ipu, fw)) {
		ret = 0;
	} else if ((fw & IPU_FW_STATE_MASK) == IPU_FW_STATE_OFF) {
		/* Power lost: as after an FLR (spec 9.2). */
		ret = ipu_pci_core_recover(ipu);
	} else {
		ret = ipu_launch_reset_locked(&ipu->idev, -EIO, -EIO);
		trace_ipu_reset(&ipu->idev, IPU_TRACE_RESET_RESUME, ret);
		if (ret) {
			dev_err(dev, "the rings did not come back after sleep: %d\n",
				ret);
			/*
			 * Suspend's mask, which the reset did not rewrite: the
			 * DMA rings suspend stopped come back with their next
			 * transfer (q->stopped, ipu_pci_q_post()), and complete
			 * by their interrupts.
			 */
			ipu_pci_unmask(ipu, 0);
		}
	}
	mutex_unlock(&ipu->idev.lock);
	/* The device's files report what failed; the system resumes. */
	return 0;
}

/* suspend/resume, and hibernation's freeze/thaw and poweroff/restore */
DEFINE_SIMPLE_DEV_PM_OPS(ipu_pci_pm_ops, ipu_pci_pm_suspend,
			 ipu_pci_pm_resume);

/**
 * ipu_pci_shutdown - pci_driver.shutdown: stop the device's DMA for good
 * @pdev: the function
 *
 * Reboot and kexec: the rings stop at once (their work in flight ends;
 * nobody waits for it), the interrupts are masked and bus mastering is
 * cleared, so that the device makes no access of host memory that the
 * next kernel may own. Nothing is freed and the firmware is left as it
 * is: the next probe resets the function.
 */
void ipu_pci_shutdown(struct pci_dev *pdev)
{
	struct ipu_pci *ipu = pci_get_drvdata(pdev);

	if (!ipu)
		return;
	mutex_lock(&ipu->idev.lock);
	/* After suspend (hibernation's power-off), already stopped. */
	if (!ipu->suspended && !ipu_pci_is_gone(ipu) && !READ_ONCE(ipu->hung))
		ipu_pci_pm_quiesce(ipu, false);
	WRITE_ONCE(ipu->suspended, true);
	mutex_unlock(&ipu->idev.lock);
	pci_clear_master(pdev);
}
