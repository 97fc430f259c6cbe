// SPDX-License-Identifier: GPL-2.0
/*
 * The PCIe IPU's gather ring (docs/hardware.md section 4.4): a program
 * split across instances asks the host for the other instances' operands.
 * The device posts a request on this device-to-host ring and raises the
 * GATHER cause on vector 3, whose thread (ipu_pci_cmd.c) calls
 * ipu_pci_gather_service(): each request is matched to the split launch
 * in flight it names (ipu_pci_cmd_find_split()) and posted in the inbox
 * of the file that launched it (ipu_gather.c); a request that names no
 * such launch comes from a device that lies and is answered EPROTO at
 * once, so its run fails instead of waiting for its deadline. The file's
 * answer comes back through ipu_pci_gather_answer().
 *
 * The ring is programmed with the other queues, at probe and after every
 * reset, which makes the device forget its pending requests: the reset
 * bumps ipu_device.gather_gen under gq->lock, so answers to requests of
 * an older generation (whose seq the device may reuse) never reach it.
 */
#include <linux/dma-mapping.h>
#include <linux/error-injection.h>
#include <linux/pci.h>

#include "ipu_gather.h"
#include "ipu_launch.h"
#include "ipu_pci.h"

static u32 ipu_pci_gather_rd(struct ipu_pci_gatherq *gq, u32 reg)
{
	return readl(gq->regs + reg);
}

static void ipu_pci_gather_wr(struct ipu_pci_gatherq *gq, u32 reg, u32 val)
{
	writel(val, gq->regs + reg);
}

/**
 * ipu_pci_has_gather - whether the device has a gather ring
 * @ipu: the device
 *
 * Return: true when its CAPS has IPU_CAPS_GATHER.
 */
bool ipu_pci_has_gather(struct ipu_pci *ipu)
{
	return ipu_pci_rd(ipu, IPU_REG_CAPS) & IPU_CAPS_GATHER;
}

/* Program and enable the ring; HEAD = TAIL = 0. The caller holds gq->lock. */
static noinline int ipu_pci_gather_enable(struct ipu_pci_gatherq *gq)
{
	int ret;

	gq->head = 0;
	ret = ipu_pci_ring_enable(gq->regs, gq->ring_dma, IPU_PCI_GATHER_RING,
				  gq->wb, sizeof(*gq->wb), gq->wb_dma);
	gq->enabled = !ret;
	return ret;
}

ALLOW_ERROR_INJECTION(ipu_pci_gather_enable, ERRNO);

/* Answer request @seq with @status (0 or -errno); the caller holds gq->lock. */
static void ipu_pci_gather_answer_locked(struct ipu_pci_gatherq *gq, u32 seq,
					 int status)
{
	ipu_pci_gather_wr(gq, IPU_GQ_ANSWER_STATUS, -status);
	/* The status before the doorbell (writel orders). */
	ipu_pci_gather_wr(gq, IPU_GQ_ANSWER, seq);
}

/* One request, taken off the ring: to its launch's file, or refused. */
static void ipu_pci_gather_dispatch(struct ipu_pci *ipu,
				    const struct ipu_gather_req *gr)
{
	struct ipu_pci_gatherq *gq = &ipu->gatherq;
	u32 seq = ipu_pci_from_le32(gr->seq);
	struct ipu_gather_next info = {};
	struct ipu_launch_req *req;
	int ret;

	req = ipu_pci_cmd_find_split(ipu, gr);
	if (!req) {
		dev_err_ratelimited(&ipu->idev.dev,
				    "gather request %u names no split launch in flight: refused\n",
				    seq);
		ipu_pci_gather_answer_locked(gq, seq, -EPROTO);
		return;
	}
	info.group = req->group;
	info.staging_offset = req->staging_offset;
	info.bytes = le64_to_cpu((__force __le64)gr->bytes);
	info.staging_handle = req->staging_handle;
	info.replica = req->replica;
	info.instance_index = req->instance_index;
	info.instance_count = req->instance_count;
	info.collective = ipu_pci_from_le32(gr->collective);
	ret = ipu_gather_post(req, &info, seq, READ_ONCE(ipu->idev.gather_gen));
	if (ret)
		ipu_pci_gather_answer_locked(gq, seq, ret);
}

/**
 * ipu_pci_gather_service - take the requests the device posted
 * @ipu: the device
 *
 * Vector 3's thread. A TAIL out of the ring is a device that lies: the
 * requests stay where they are (their runs meet their deadline). At most
 * one ring's worth per call: a device that keeps moving TAIL must not
 * hold the thread (and the ring's lock, which answers take) forever. A
 * request posted meanwhile set the GATHER cause again after this thread
 * acknowledged it (docs/hardware.md section 6), so its message brings the
 * thread back; one posted with no message waits for the next.
 */
void ipu_pci_gather_service(struct ipu_pci *ipu)
{
	struct ipu_pci_gatherq *gq = &ipu->gatherq;
	struct ipu_gather_req gr;
	unsigned int n;
	u32 tail;

	mutex_lock(&gq->lock);
	for (n = 0; n < IPU_PCI_GATHER_RING && gq->enabled &&
	     !ipu_pci_is_gone(ipu); n++) {
		tail = ipu_pci_gather_rd(gq, IPU_GQ_TAIL);
		if (ipu_pci_check_gone(ipu, tail) || tail == gq->head)
			break;
		if (tail >= IPU_PCI_GATHER_RING) {
			dev_err_ratelimited(&ipu->idev.dev,
					    "gather ring TAIL %u out of the ring\n",
					    tail);
			break;
		}
		/* The entry is written before TAIL moves. */
		dma_rmb();
		memcpy(&gr, &gq->ring[gq->head], sizeof(gr));
		gq->head = (gq->head + 1) % IPU_PCI_GATHER_RING;
		ipu_pci_gather_wr(gq, IPU_GQ_HEAD, gq->head);
		ipu_pci_gather_dispatch(ipu, &gr);
	}
	mutex_unlock(&gq->lock);
}

/**
 * ipu_pci_gather_answer - ipu_hw_ops.gather_answer
 * @idev: the device, entered
 * @seq: the request's number
 * @gen: &ipu_device.gather_gen when it was posted
 * @status: 0 or a negative errno, -1..-IPU_GATHER_MAX_ERRNO
 *
 * Return: 0, or -ENOENT when a reset made the device forget the request.
 */
int ipu_pci_gather_answer(struct ipu_device *idev, u32 seq, u32 gen,
			  int status)
{
	struct ipu_pci *ipu = to_ipu_pci(idev);
	struct ipu_pci_gatherq *gq = &ipu->gatherq;
	int ret = 0;

	mutex_lock(&gq->lock);
	if (!gq->enabled || gen != idev->gather_gen || ipu_pci_is_gone(ipu))
		ret = -ENOENT;
	else
		ipu_pci_gather_answer_locked(gq, seq, status);
	mutex_unlock(&gq->lock);
	return ret;
}

/**
 * ipu_pci_gather_stop - take no request until the ring is enabled again
 * @ipu: the device, about to be reset
 *
 * A reset empties the device's ring (HEAD = TAIL = 0) while the host's
 * HEAD still says where it stopped: vector 3's thread, woken meanwhile
 * (a completion's cause, pending until the mask is restored), would take
 * every slot from there to the ring's end for a request, and answer junk
 * to the device. ipu_pci_gather_reset() enables the ring again, or
 * ipu_pci_gather_reset_cancel() when no reset happened.
 *
 * Return: whether the host was taking the ring's requests.
 */
bool ipu_pci_gather_stop(struct ipu_pci *ipu)
{
	struct ipu_pci_gatherq *gq = &ipu->gatherq;
	bool was;

	mutex_lock(&gq->lock);
	was = gq->enabled;
	gq->enabled = false;
	mutex_unlock(&gq->lock);
	return was;
}

/**
 * ipu_pci_gather_reset_cancel - the reset did not happen: take requests again
 * @ipu: the device, whose reset failed (its ring running as it was)
 * @was: what ipu_pci_gather_stop() returned
 *
 * The ring kept its requests and the host's HEAD still matches it. Those
 * posted while the host took none found vector 3's thread refusing to
 * look, and no message brings it back: take them now.
 */
void ipu_pci_gather_reset_cancel(struct ipu_pci *ipu, bool was)
{
	struct ipu_pci_gatherq *gq = &ipu->gatherq;

	if (!was)
		return;
	mutex_lock(&gq->lock);
	gq->enabled = true;
	mutex_unlock(&gq->lock);
	ipu_pci_gather_service(ipu);
}

/**
 * ipu_pci_gather_reset - restart the ring after a soft reset or FLR
 * @ipu: the device, just reset (its requests forgotten)
 *
 * Return: 0 (also without a gather ring) or -EIO when it would not enable.
 */
int ipu_pci_gather_reset(struct ipu_pci *ipu)
{
	struct ipu_pci_gatherq *gq = &ipu->gatherq;
	int ret = 0;

	if (!gq->ring)
		return 0;
	mutex_lock(&gq->lock);
	WRITE_ONCE(ipu->idev.gather_gen, ipu->idev.gather_gen + 1);
	ret = ipu_pci_gather_enable(gq);
	mutex_unlock(&gq->lock);
	return ret;
}

/**
 * ipu_pci_gather_init - allocate, program and enable the gather ring
 * @ipu: the device, its command queue up (vector 3 requested)
 *
 * A device without IPU_CAPS_GATHER has no ring, and its split launches
 * are refused before they reach it (&ipu_device.gather stays false: no
 * IPU_FEATURE_GATHER in GET_INFO). The ring is managed
 * (ipu_pci_coherent_alloc()).
 *
 * Return: 0, or a negative errno after a dmesg line.
 */
int ipu_pci_gather_init(struct ipu_pci *ipu)
{
	struct ipu_pci_gatherq *gq = &ipu->gatherq;
	struct device *dev = &ipu->pdev->dev;
	int ret;

	mutex_init(&gq->lock);
	if (!ipu_pci_has_gather(ipu))
		return 0;
	gq->regs = ipu->regs + IPU_REG_GATHER;
	gq->ring = ipu_pci_coherent_alloc(ipu, IPU_PCI_GATHER_RING *
					  sizeof(*gq->ring), &gq->ring_dma);
	gq->wb = ipu_pci_coherent_alloc(ipu, sizeof(*gq->wb), &gq->wb_dma);
	if (!gq->ring || !gq->wb) {
		gq->ring = NULL;
		ret = -ENOMEM;
		goto err;
	}
	mutex_lock(&gq->lock);
	ret = ipu_pci_gather_enable(gq);
	mutex_unlock(&gq->lock);
	if (ret)
		goto err;
	ipu_pci_unmask(ipu, IPU_IRQ_GATHER);
	ipu->idev.gather = true;
	return 0;

err:
	dev_err(dev, "cannot set up the gather ring: %d\n", ret);
	return ret;
}

ALLOW_ERROR_INJECTION(ipu_pci_gather_init, ERRNO);

/**
 * ipu_pci_gather_fini - stop the gather ring, and wait until it has stopped
 * @ipu: the device, unregistered; before vector 3 is freed
 *
 * Whatever the host last thought of the ring: a reset that failed left it
 * running on the device with gq->enabled clear (ipu_pci_gather_stop()),
 * and devres frees its memory next. A ring that does not stop is left
 * its memory (ipu_pci_ring_stop()). The files' inboxes still hold
 * requests: their answers then find the ring disabled (-ENOENT) and are
 * dropped.
 */
void ipu_pci_gather_fini(struct ipu_pci *ipu)
{
	struct ipu_pci_gatherq *gq = &ipu->gatherq;

	if (!gq->ring)
		return;
	mutex_lock(&gq->lock);
	gq->enabled = false;
	if (ipu_pci_ring_stop(ipu, gq->regs, IPU_Q_STATUS_ENABLED, "gather")) {
		ipu_pci_coherent_leak(ipu, gq->ring);
		ipu_pci_coherent_leak(ipu, gq->wb);
	}
	mutex_unlock(&gq->lock);
}
