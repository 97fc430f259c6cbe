// SPDX-License-Identifier: GPL-2.0
/*
 * The PCIe IPU's interrupts (docs/hardware.md section 6): the vectors, the
 * handlers of vector 0 and the interrupt self-test.
 *
 * A function presents MSI-X with 4 vectors, or MSI with up to 4 messages.
 * With 4 (MSI-X, or MSI where the host grants 4: interrupt remapping),
 * each cause has its vector: vector 0 (misc: FW_BOOT, ERROR, SW) is served
 * here, the DMA queues' vectors in ipu_pci_dma.c, the command queue's
 * (CMD, GATHER) in ipu_pci_cmd.c. With fewer (x86 without interrupt
 * remapping grants one MSI message) the device sends every cause on
 * message 0, and one handler here serves them all, each as its own
 * vector's handler would: the hard half completes the boot and self-test
 * waits and wakes the transfers, the thread reads the error log and reaps
 * the command queue (its launches' completions and gather requests).
 *
 * MSI-X is taken with all 4 vectors or not at all: the device raises the
 * table entry of each cause, and an entry the host did not allocate stays
 * masked, its messages lost. MSI is the fallback, with 1 to 4 messages.
 *
 * Ordering: vector 0's handler exists from before the self-test to the end
 * of remove(); a queue's own vector only while its queue is set up. With
 * one vector, a queue's teardown masks its causes and waits for the
 * handler (ipu_pci_irq_quiesce()) where it would free its vector.
 */
#include <linux/debugfs.h>
#include <linux/error-injection.h>
#include <linux/interrupt.h>
#include <linux/pci.h>

#include "ipu_pci.h"
#include "ipu_trace.h"

/* Causes vector 0 takes when each queue has its vector. */
#define IPU_PCI_MISC_CAUSES (IPU_IRQ_FW_BOOT | IPU_IRQ_ERROR | IPU_IRQ_SW)
/* Causes whose work is done in process context (the threaded handler). */
#define IPU_PCI_THREAD_CAUSES (IPU_IRQ_ERROR | IPU_IRQ_CMD | IPU_IRQ_GATHER)
/* Bound on waiting for an interrupt the device raises at once (self-test). */
#define IPU_PCI_IRQ_WAIT_MS 1000

/**
 * ipu_pci_irq_alloc - allocate the function's vectors, released with it
 * @ipu: the device, enabled and bus master
 *
 * All 4 MSI-X vectors, else 1 to 4 MSI messages. Sets @ipu->nvec and
 * @ipu->msi.
 *
 * Return: 0, or a negative errno after a dmesg line.
 */
int ipu_pci_irq_alloc(struct ipu_pci *ipu)
{
	struct pci_dev *pdev = ipu->pdev;
	int ret;

	ret = pci_alloc_irq_vectors(pdev, IPU_MSIX_VECTORS, IPU_MSIX_VECTORS,
				    PCI_IRQ_MSIX);
	ipu->msi = ret < 0;
	if (ret < 0)
		ret = pci_alloc_irq_vectors(pdev, 1, IPU_MSI_MESSAGES,
					    PCI_IRQ_MSI);
	if (ret < 0)
		return dev_err_probe(&pdev->dev, ret,
				     "cannot allocate %d MSI-X vectors nor an MSI message\n",
				     IPU_MSIX_VECTORS);
	ipu->nvec = ret;
	/*
	 * Nothing to undo here: on a function pcim_enable_device() enabled,
	 * the PCI core frees the vectors itself when the driver unbinds or
	 * probe fails (its devres action pcim_msi_release, 6.1 to 7.3).
	 */
	return 0;
}

ALLOW_ERROR_INJECTION(ipu_pci_irq_alloc, ERRNO);

/**
 * ipu_pci_irq_kind - "MSI-X" or "MSI", for messages
 * @ipu: the device, its vectors allocated
 *
 * Return: a constant string.
 */
const char *ipu_pci_irq_kind(struct ipu_pci *ipu)
{
	return ipu->msi ? "MSI" : "MSI-X";
}

/*
 * The error log (spec section 7): entries since the last look. Descriptor
 * errors reach their command as -EIO, so they are debug output; anything
 * else is the device's or the driver's fault and worth a (rate-limited)
 * line.
 *
 * Each read is a round trip to the device, and every failed descriptor
 * (a refused launch) logs an entry: code and info come in one 8-byte read
 * (section 2: an 8-byte access, low address first), the detail only for the entries that
 * print it. A descriptor's status word is in its descriptor already.
 */
static void ipu_pci_log_errors(struct ipu_pci *ipu)
{
	u32 count = ipu_pci_rd(ipu, IPU_REG_ERR_COUNT);
	u32 n;

	if (ipu_pci_check_gone(ipu, count))
		return;
	/* Older entries than the log holds were overwritten. */
	if (count - ipu->err_seen > IPU_ERR_LOG_LEN)
		ipu->err_seen = count - IPU_ERR_LOG_LEN;
	for (n = ipu->err_seen; n != count; n++) {
		u32 off = IPU_REG_ERR_LOG + IPU_ERR_ENTRY_SIZE *
			  (n % IPU_ERR_LOG_LEN);
		u64 head = readq(ipu->regs + off);
		u32 code = lower_32_bits(head), info = upper_32_bits(head);

		if (code == IPU_ERR_DESC)
			dev_dbg(&ipu->pdev->dev,
				"descriptor error: queue %u index %u\n",
				info >> 16, info & 0xffff);
		else
			dev_warn_ratelimited(&ipu->pdev->dev,
					     "device error %u: info %#x detail %#llx\n",
					     code, info,
					     readq(ipu->regs + off + 8));
	}
	ipu->err_seen = count;
}

/*
 * Read IRQ_CAUSE and acknowledge the unmasked bits of @causes it holds
 * (spec section 6: acknowledge first, then act, so that an event meanwhile
 * raises a new message). A masked cause latches too: not ours to act on
 * yet. Returns the bits acknowledged, 0 when none or the function is gone.
 */
static u32 ipu_pci_irq_ack(struct ipu_pci *ipu, u32 causes)
{
	u32 cause = ipu_pci_rd(ipu, IPU_REG_IRQ_CAUSE);

	if (ipu_pci_check_gone(ipu, cause))
		return 0;
	cause &= causes & READ_ONCE(ipu->irq_unmasked);
	if (cause)
		ipu_pci_wr(ipu, IPU_REG_IRQ_CAUSE, cause);
	return cause;
}

/* What vector 0's causes ask of hard interrupt context. */
static void ipu_pci_misc_serve(struct ipu_pci *ipu, u32 cause)
{
	if (cause & IPU_IRQ_FW_BOOT)
		complete(&ipu->fw_booted);
	if (cause & IPU_IRQ_SW)
		complete(&ipu->selftest_done);
}

/* Vector 0, when each queue has its own vector. */
static irqreturn_t ipu_pci_misc_irq(int irq, void *data)
{
	struct ipu_pci *ipu = data;
	u32 cause = ipu_pci_irq_ack(ipu, IPU_PCI_MISC_CAUSES);

	if (!cause)
		return IRQ_NONE;
	trace_ipu_irq(ipu->idev.minor, IPU_VEC_MISC, cause);
	ipu_pci_misc_serve(ipu, cause);
	return cause & IPU_IRQ_ERROR ? IRQ_WAKE_THREAD : IRQ_HANDLED;
}

/* Reading up to 16 log entries is slow MMIO: out of hard interrupt context. */
static irqreturn_t ipu_pci_misc_thread(int irq, void *data)
{
	ipu_pci_log_errors(data);
	return IRQ_HANDLED;
}

/*
 * The one vector of a function with fewer than 4: every cause. The bits
 * for the thread accumulate in irq_thread_causes, since the hard half may
 * run again (a new message) before the thread has taken them.
 */
static irqreturn_t ipu_pci_one_irq(int irq, void *data)
{
	struct ipu_pci *ipu = data;
	u32 cause = ipu_pci_irq_ack(ipu, IPU_IRQ_ALL);

	if (!cause)
		return IRQ_NONE;
	trace_ipu_irq(ipu->idev.minor, IPU_VEC_MISC, cause);
	ipu_pci_misc_serve(ipu, cause);
	if (cause & IPU_IRQ_H2D)
		wake_up(&ipu->dmaq[IPU_QUEUE_H2D].wait);
	if (cause & IPU_IRQ_D2H)
		wake_up(&ipu->dmaq[IPU_QUEUE_D2H].wait);
	cause &= IPU_PCI_THREAD_CAUSES;
	if (!cause)
		return IRQ_HANDLED;
	atomic_or(cause, &ipu->irq_thread_causes);
	return IRQ_WAKE_THREAD;
}

static irqreturn_t ipu_pci_one_thread(int irq, void *data)
{
	struct ipu_pci *ipu = data;
	u32 cause = atomic_xchg(&ipu->irq_thread_causes, 0);

	if (cause & IPU_IRQ_ERROR)
		ipu_pci_log_errors(ipu);
	if (cause & (IPU_IRQ_CMD | IPU_IRQ_GATHER))
		ipu_pci_cmd_serve(ipu, cause);
	return IRQ_HANDLED;
}

/**
 * ipu_pci_request_irqs - request vector 0, every cause masked and cleared
 * @ipu: the device, its vectors allocated
 *
 * Vector 0 is ipuN-misc when the queues have their own vectors, ipuN
 * (every cause) when the function has one.
 *
 * Return: 0, or a negative errno after a dmesg line.
 */
int ipu_pci_request_irqs(struct ipu_pci *ipu)
{
	struct pci_dev *pdev = ipu->pdev;
	bool one = ipu_pci_irq_one(ipu);
	int ret;

	snprintf(ipu->irq_names[IPU_VEC_MISC], IPU_PCI_IRQ_NAME_LEN,
		 one ? "ipu%d" : "ipu%d-misc", ipu->idev.minor);
	/* Everything masked until its handler exists; nothing pending. */
	ipu->irq_unmasked = 0;
	atomic_set(&ipu->irq_thread_causes, 0);
	ipu_pci_wr(ipu, IPU_REG_IRQ_MASK, IPU_IRQ_ALL);
	ipu_pci_wr(ipu, IPU_REG_IRQ_CAUSE, IPU_IRQ_ALL);
	ret = request_threaded_irq(pci_irq_vector(pdev, IPU_VEC_MISC),
				   one ? ipu_pci_one_irq : ipu_pci_misc_irq,
				   one ? ipu_pci_one_thread : ipu_pci_misc_thread,
				   0, ipu->irq_names[IPU_VEC_MISC], ipu);
	if (ret)
		dev_err(&pdev->dev, "cannot request %s vector %d: %d\n",
			ipu_pci_irq_kind(ipu), IPU_VEC_MISC, ret);
	return ret;
}

ALLOW_ERROR_INJECTION(ipu_pci_request_irqs, ERRNO);

/**
 * ipu_pci_free_irqs - mask every cause and free vector 0
 * @ipu: the device; the queues' vectors already freed (or quiesced)
 */
void ipu_pci_free_irqs(struct ipu_pci *ipu)
{
	if (ipu_pci_present(ipu))
		ipu_pci_wr(ipu, IPU_REG_IRQ_MASK, IPU_IRQ_ALL);
	free_irq(pci_irq_vector(ipu->pdev, IPU_VEC_MISC), ipu);
}

/**
 * ipu_pci_irq_quiesce - with one vector: a queue's causes stop being served
 * @ipu: the device
 * @causes: the queue's IRQ_CAUSE bits
 *
 * Masks @causes and waits until no handler of the vector (hard half or
 * thread) is still at work on them, as freeing the queue's own vector
 * would when it has one. Teardown only (the reset restores the mask from
 * the bits left unmasked).
 */
void ipu_pci_irq_quiesce(struct ipu_pci *ipu, u32 causes)
{
	WRITE_ONCE(ipu->irq_unmasked, ipu->irq_unmasked & ~causes);
	if (ipu_pci_present(ipu))
		ipu_pci_wr(ipu, IPU_REG_IRQ_MASK,
			   IPU_IRQ_ALL & ~ipu->irq_unmasked);
	/* A hard half that read the old mask has woken the thread: both done. */
	synchronize_irq(pci_irq_vector(ipu->pdev, IPU_VEC_MISC));
}

/**
 * ipu_pci_irq_selftest - the spec's doorbell: raise SW, take vector 0
 * @ipu: the device
 *
 * Proves the whole interrupt path (MSI-X table or MSI capability, the
 * message, the handler): every probe runs it, and so does a write to
 * debugfs irq_selftest.
 *
 * Return: 0, -ETIMEDOUT when the interrupt did not arrive in time (the
 * bound only ends a broken device's hang), -ENODEV when the function is gone.
 */
int ipu_pci_irq_selftest(struct ipu_pci *ipu)
{
	int ret = 0;

	mutex_lock(&ipu->selftest_lock);
	reinit_completion(&ipu->selftest_done);
	ipu_pci_unmask(ipu, IPU_IRQ_SW);
	ipu_pci_wr(ipu, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	if (!wait_for_completion_timeout(&ipu->selftest_done,
					 msecs_to_jiffies(IPU_PCI_IRQ_WAIT_MS)))
		ret = ipu_pci_present(ipu) ? -ETIMEDOUT : -ENODEV;
	mutex_unlock(&ipu->selftest_lock);
	return ret;
}

ALLOW_ERROR_INJECTION(ipu_pci_irq_selftest, ERRNO);

static ssize_t ipu_pci_selftest_write(struct file *file,
				      const char __user *buf, size_t count,
				      loff_t *ppos)
{
	struct ipu_pci *ipu = file->private_data;
	int ret;

	ret = ipu_pci_irq_selftest(ipu);
	return ret ? ret : count;
}

static const struct file_operations ipu_pci_selftest_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = ipu_pci_selftest_write,
	.llseek = noop_llseek,
};

/**
 * ipu_pci_irq_debugfs - the device's debugfs irq_selftest (write: run it)
 * @ipu: the device, registered
 */
void ipu_pci_irq_debugfs(struct ipu_pci *ipu)
{
	debugfs_create_file("irq_selftest", 0200, ipu->idev.debugfs, ipu,
			    &ipu_pci_selftest_fops);
}
