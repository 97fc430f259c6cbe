// SPDX-License-Identifier: GPL-2.0
/*
 * Stopping the PCIe IPU's rings the way docs/hardware.md section 2.1 says:
 * clearing a ring's CTRL.ENABLE is a posted write, and until the ring's
 * STATUS reads idle (ENABLED = 0 and, for a queue, BUSY = 0) the device
 * may still complete what it had fetched: data, status words, writeback,
 * interrupt. So the driver reads STATUS, sleeping, until then, bounded by
 * IPU_STOP_TIMEOUT_MS; the read also flushes the write (a read never
 * passes an earlier write).
 *
 * A ring that does not stop in time belongs to a hung device, which may
 * write its ring, its writeback and its buffers at any later moment: what
 * it may write is never freed. The rings' coherent memory is allocated
 * here with a devres whose release leaves it allocated once the ring was
 * found hung (ipu_pci_coherent_leak()); the caller keeps a transfer's
 * pages and mapping itself. The device is marked hung, bus mastering is
 * cleared (a device of the spec then makes no access of host memory, and
 * silicon that does not stop either way still finds its memory kept), and
 * the driver unbinds itself from it as from a function that fell off the
 * bus (ipu_pci.c): its files get -ENODEV.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/error-injection.h>
#include <linux/iopoll.h>
#include <linux/pci.h>

#include "ipu_pci.h"

/* How often a stop's STATUS is read. */
#define IPU_PCI_STOP_POLL_US 20

/**
 * struct ipu_pci_coherent - a ring's coherent memory, managed
 * @cpu: its kernel address.
 * @dma: its bus address.
 * @size: its bytes.
 * @leak: the device may still write it: never freed.
 */
struct ipu_pci_coherent {
	void *cpu;
	dma_addr_t dma;
	size_t size;
	bool leak;
};

static void ipu_pci_coherent_release(struct device *dev, void *res)
{
	struct ipu_pci_coherent *c = res;

	if (!c->leak)
		dma_free_coherent(dev, c->size, c->cpu, c->dma);
}

static int ipu_pci_coherent_match(struct device *dev, void *res, void *data)
{
	return ((struct ipu_pci_coherent *)res)->cpu == data;
}

/**
 * ipu_pci_coherent_alloc - zeroed coherent DMA memory for a ring, managed
 * @ipu: the device
 * @size: bytes
 * @dma: its bus address, out
 *
 * As dmam_alloc_coherent(), but freed at unbind only if the ring stopped:
 * ipu_pci_coherent_leak() keeps it.
 *
 * Return: its kernel address, or NULL.
 */
void *ipu_pci_coherent_alloc(struct ipu_pci *ipu, size_t size,
			     dma_addr_t *dma)
{
	struct device *dev = &ipu->pdev->dev;
	struct ipu_pci_coherent *c;

	c = devres_alloc(ipu_pci_coherent_release, sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->cpu = dma_alloc_coherent(dev, size, &c->dma, GFP_KERNEL);
	if (!c->cpu) {
		devres_free(c);
		return NULL;
	}
	c->size = size;
	*dma = c->dma;
	devres_add(dev, c);
	return c->cpu;
}

ALLOW_ERROR_INJECTION(ipu_pci_coherent_alloc, NULL);

/**
 * ipu_pci_coherent_leak - never free @cpu: a hung device may write it
 * @ipu: the device
 * @cpu: memory of ipu_pci_coherent_alloc(), or NULL
 */
void ipu_pci_coherent_leak(struct ipu_pci *ipu, void *cpu)
{
	struct ipu_pci_coherent *c;

	if (!cpu)
		return;
	c = devres_find(&ipu->pdev->dev, ipu_pci_coherent_release,
			ipu_pci_coherent_match, cpu);
	if (c)
		c->leak = true;
}

/**
 * ipu_pci_ring_stop - disable a ring and wait until it has stopped
 * @ipu: the device
 * @qregs: the ring's register block (a queue's, or the gather ring's: the
 *	same CTRL and STATUS offsets)
 * @busy: the STATUS bits that say it has not stopped: ENABLED and BUSY
 *	for a queue, ENABLED for the gather ring (spec 2.1)
 * @name: the ring, for the kernel log
 *
 * Process context. A function that fell off the bus moves nothing any
 * more: it is stopped. One that was found hung is not waited for again.
 *
 * Return: 0 when the ring has stopped (its memory and its buffers are the
 * host's again); -ETIMEDOUT when it did not within IPU_STOP_TIMEOUT_MS or
 * the device was found hung before: the caller must not free or unmap
 * what the ring may write, and the device is marked hung.
 */
int ipu_pci_ring_stop(struct ipu_pci *ipu, void __iomem *qregs, u32 busy,
		      const char *name)
{
	u32 status;
	int ret;

	if (READ_ONCE(ipu->hung))
		return -ETIMEDOUT;
	if (ipu_pci_is_gone(ipu))
		return 0;
	writel(0, qregs + IPU_Q_CTRL);
	ret = readl_poll_timeout(qregs + IPU_Q_STATUS, status,
				 !(status & busy) || status == ~0u,
				 IPU_PCI_STOP_POLL_US,
				 IPU_STOP_TIMEOUT_MS * USEC_PER_MSEC);
	if (status == ~0u && ipu_pci_check_gone(ipu, status))
		return 0;
	if (!ret)
		return 0;
	dev_err(&ipu->pdev->dev,
		"%s ring did not stop within %d ms (STATUS %#x): its memory stays allocated and mapped for good\n",
		name, IPU_STOP_TIMEOUT_MS, status);
	ipu_pci_hung(ipu);
	return -ETIMEDOUT;
}
