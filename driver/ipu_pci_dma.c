// SPDX-License-Identifier: GPL-2.0
/*
 * The PCIe IPU's DMA queues (docs/hardware.md section 4): queue 0 moves
 * host memory to device memory, queue 1 the other way. Each is a ring of
 * 32-byte descriptors and a 16-byte completion writeback in coherent DMA
 * memory, interrupting on its own vector (vector 0 serves it when the
 * function has one: ipu_pci_irq.c).
 *
 * A transfer (ipu_hw_ops.dma) arrives as a bvec iterator over pinned
 * pages (ipu_dma.c, or io_uring's registered buffers): it becomes a
 * scatter-gather table mapped with the DMA API, one descriptor per mapped
 * segment split at IPU_DMA_MAX_LEN, published in batches of at most a
 * ring's worth, the last of each batch with the IRQ flag. Transfers join
 * the queue's pending list; whoever holds the ring (queue->xfer_lock)
 * posts every transfer pending, one doorbell per ring's worth, and books
 * each descriptor's result to its own transfer (q->owner[]). Transfers
 * come in chunks (ipu_xfer.c), so a long one never holds the ring for
 * long, and each queue's transfers complete in order anyway.
 *
 * Completion is what both the writeback's HEAD and the batch's last
 * status word say; a HEAD outside the batch, or at its end before the
 * work is done, is a device that lies (docs/hardware.md's bad_writeback
 * fault): the queue is stopped before the pages go, and every transfer
 * on the ring fails with -EIO (its status words are not believed either:
 * ipu_pci_q_run()).
 *
 * Waiting for a batch is bounded: a device that does not finish in
 * dma_timeout_ms (a module parameter) is stopped, and the transfers it
 * had not finished fail with -ETIMEDOUT; those its status words, final
 * once the queue stopped, say done succeed, as for a reset. Stopping is
 * a posted write and the descriptor in progress may complete after it:
 * the queue has stopped once its STATUS reads ENABLED = 0 and BUSY = 0
 * (spec 2.1), which ipu_pci_ring_stop() waits for, so the pages are
 * never unmapped under a DMA. A queue that does
 * not stop within IPU_STOP_TIMEOUT_MS belongs to a hung device: the
 * transfer keeps its pages and its mapping for good (ipu_pci_dma_keep())
 * and the device is unplugged. A soft reset (the reset op) ends every
 * batch in flight: their descriptors say E_RESET; from
 * ipu_pci_dma_reset_prepare() on no transfer posts to the ring the reset
 * disables. Of a batch the reset ended, a transfer the device had
 * finished succeeds (its status words say DONE), one it had not fails
 * with -EIO, and one not yet posted (beyond the ring's worth on the
 * device, or a reset that began first) waits, as transfers that came
 * during the reset do, for the ring the reset enables again: nothing of
 * the reset was its. After a timeout or a lie, the transfers of the batch
 * not yet posted fail with it: the device just failed, and going round
 * again would make a wait unbounded. Removal ends the wait at once
 * (-ENODEV, the queue stopped the same way): the wait runs inside the
 * core's unplug guard, which removal waits for, and a device that fell
 * off the bus would never finish.
 * Such a device raises no interrupt either: a transfer that waited
 * IPU_PCI_DMA_ALIVE_MS for its batch reads a register, and all ones
 * (ipu_pci_check_gone()) ends it with -ENODEV and unplugs the device.
 */
#include <linux/bvec.h>
#include <linux/dma-mapping.h>
#include <linux/error-injection.h>
#include <linux/interrupt.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "ipu_pci.h"
#include "ipu_trace.h"

/*
 * How long a batch may take (ms): one moves at most 256 x 16 MiB and TCG
 * guests are slow, hence 30 s. Writable, so that a test of a stalled
 * device need not wait that long; a batch keeps the bound it started
 * with.
 */
static unsigned int dma_timeout_ms = 30000;
module_param(dma_timeout_ms, uint, 0644);
MODULE_PARM_DESC(dma_timeout_ms, "Time a PCIe IPU's DMA batch has to complete before its queue is stopped and its transfers fail (ms, default 30000)");

/* dma_timeout_ms, at least 1. */
static unsigned int ipu_pci_dma_wait_ms(void)
{
	return max(READ_ONCE(dma_timeout_ms), 1U);
}

/*
 * How long a transfer waits for its batch before it looks whether the
 * function is still there: one that fell off the bus raises no interrupt
 * and never will, and only a register read (all ones) tells.
 */
#define IPU_PCI_DMA_ALIVE_MS 1000

static const char *const ipu_pci_dma_names[] = { "h2d", "d2h" };

static void ipu_pci_q_wr(struct ipu_pci_queue *q, u32 reg, u32 val)
{
	writel(val, q->regs + reg);
}

/*
 * Disable the queue and wait until it has stopped (spec 2.1). False when
 * it did not: the device is hung, and what the ring reaches stays its.
 */
static bool ipu_pci_q_stop(struct ipu_pci_queue *q)
{
	if (!ipu_pci_ring_stop(q->ipu, q->regs,
			       IPU_Q_STATUS_ENABLED | IPU_Q_STATUS_BUSY,
			       ipu_pci_dma_names[q->index]))
		return true;
	q->held = true;
	return false;
}

/* HEAD as the device last wrote it back. */
static u32 ipu_pci_q_head(struct ipu_pci_queue *q)
{
	return ipu_pci_from_le32(READ_ONCE(q->wb->head));
}

/*
 * Program and enable the ring (spec section 4.1, "Enabling"): HEAD = TAIL
 * = 0 afterwards. Called at probe and after a soft reset, which disables
 * every queue.
 */
static noinline int ipu_pci_q_enable(struct ipu_pci_queue *q)
{
	q->tail = 0;
	return ipu_pci_ring_enable(q->regs, q->ring_dma, IPU_PCI_DMA_RING,
				   q->wb, sizeof(*q->wb), q->wb_dma);
}

ALLOW_ERROR_INJECTION(ipu_pci_q_enable, ERRNO);

/* The queue's vector: acknowledge, then wake the transfer waiting. */
static irqreturn_t ipu_pci_dma_irq(int irq, void *data)
{
	struct ipu_pci_queue *q = data;
	struct ipu_pci *ipu = q->ipu;
	u32 cause = ipu_pci_rd(ipu, IPU_REG_IRQ_CAUSE);

	if (ipu_pci_check_gone(ipu, cause) || !(cause & q->cause))
		return IRQ_NONE;
	ipu_pci_wr(ipu, IPU_REG_IRQ_CAUSE, q->cause);
	trace_ipu_irq(ipu->idev.minor, q->index == IPU_QUEUE_H2D ? IPU_VEC_H2D : IPU_VEC_D2H,
		      q->cause);
	wake_up(&q->wait);
	return IRQ_HANDLED;
}

/*
 * The queue's vector, ipuN-h2d or ipuN-d2h; with one vector, vector 0
 * wakes the queue (ipu_pci_irq.c) and there is nothing to request.
 */
static noinline int ipu_pci_q_request_irq(struct ipu_pci_queue *q)
{
	struct ipu_pci *ipu = q->ipu;
	int vec = q->index == IPU_QUEUE_H2D ? IPU_VEC_H2D : IPU_VEC_D2H;

	if (ipu_pci_irq_one(ipu))
		return 0;
	snprintf(ipu->irq_names[vec], IPU_PCI_IRQ_NAME_LEN, "ipu%d-%s",
		 ipu->idev.minor, ipu_pci_dma_names[q->index]);
	q->irq = pci_irq_vector(ipu->pdev, vec);
	return request_irq(q->irq, ipu_pci_dma_irq, 0, ipu->irq_names[vec], q);
}

ALLOW_ERROR_INJECTION(ipu_pci_q_request_irq, ERRNO);

/*
 * Its own vector freed. With one vector nothing is to be done: vector 0's
 * handler only wakes the queue's waiters, whose wait queue lives as long
 * as the device.
 */
static void ipu_pci_q_free_irq(struct ipu_pci_queue *q)
{
	if (!ipu_pci_irq_one(q->ipu))
		free_irq(q->irq, q);
}

/*
 * Fill the scatter-gather table @sgt with the bytes of @iter (a bvec
 * iterator: pinned pages), leaving @iter untouched.
 */
static int ipu_pci_sgt_from_iter(struct sg_table *sgt, struct iov_iter *iter)
{
	const struct bio_vec *bv = iter->bvec;
	size_t skip = iter->iov_offset, left = iov_iter_count(iter);
	struct scatterlist *sg;
	unsigned int n = 0, i;
	unsigned long seg;
	int ret;

	if (!iov_iter_is_bvec(iter))
		return -EINVAL;
	/* Segments that hold bytes of the range. */
	for (seg = 0, i = 0; seg < iter->nr_segs && left > n; seg++) {
		if (skip >= bv[seg].bv_len) {
			skip -= bv[seg].bv_len;
			continue;
		}
		n += min_t(size_t, bv[seg].bv_len - skip, left - n);
		skip = 0;
		i++;
	}
	ret = sg_alloc_table(sgt, i, GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret;

	skip = iter->iov_offset;
	sg = sgt->sgl;
	for (seg = 0; seg < iter->nr_segs && left; seg++) {
		size_t off, len;

		if (skip >= bv[seg].bv_len) {
			skip -= bv[seg].bv_len;
			continue;
		}
		off = bv[seg].bv_offset + skip;
		len = min_t(size_t, bv[seg].bv_len - skip, left);
		/*
		 * A multi-page bvec (io_uring's, of a folio) is physically
		 * contiguous: its offset may pass the first page, as the DMA
		 * API's page + offset allows.
		 */
		sg_set_page(sg, bv[seg].bv_page, len, off);
		sg = sg_next(sg);
		left -= len;
		skip = 0;
	}
	return 0;
}

/* Removal has begun, or the function fell off the bus. */
static bool ipu_pci_q_leaving(struct ipu_pci_queue *q)
{
	return READ_ONCE(q->ipu->removing) || ipu_pci_is_gone(q->ipu);
}

/* Entries from @from up to @to, going round the ring. */
static u32 ipu_pci_q_dist(u32 from, u32 to)
{
	return (to - from) % IPU_PCI_DMA_RING;
}

/*
 * What the writeback says of the batch [@first, @tail): 0 while it is
 * still moving, 1 when it is done, -EIO when the device lies. Done is
 * HEAD at @tail and the batch's last status word DONE (the device writes
 * it before the writeback, and completes in ring order); a HEAD outside
 * [@first, @tail], or at @tail before the work is done, is a device that
 * claims what it has not finished or was never given: the host must not
 * let go of the pages on its word.
 */
static int ipu_pci_q_done(struct ipu_pci_queue *q, u32 first, u32 tail)
{
	u32 head = ipu_pci_q_head(q);
	u32 last = (tail + IPU_PCI_DMA_RING - 1) % IPU_PCI_DMA_RING;

	if (head >= IPU_PCI_DMA_RING ||
	    ipu_pci_q_dist(first, head) > ipu_pci_q_dist(first, tail))
		return -EIO;
	if (head != tail)
		return 0;
	/* The status word is written before the writeback. */
	dma_rmb();
	if (!(ipu_pci_from_le32(READ_ONCE(q->ring[last].status)) &
	      IPU_DESC_DONE))
		return -EIO;
	return 1;
}

/*
 * Wait for the batch [@first, @tail) to end, for a soft reset (q->gen
 * moved past @gen) to end it, or for removal, looking every
 * IPU_PCI_DMA_ALIVE_MS whether the function fell off the bus. Returns 0 (the batch
 * ended, or a reset ended it), -EPROTO when the device lied about its
 * progress, -ETIMEDOUT or -ENODEV; on an error the queue is stopped and
 * nothing of the batch is still moving.
 */
static int ipu_pci_q_wait(struct ipu_pci_queue *q, u32 first, u32 tail,
			  u32 gen)
{
	unsigned long end = jiffies + msecs_to_jiffies(ipu_pci_dma_wait_ms());
	int ret = -ETIMEDOUT;
	int done;

	for (;;) {
		/* Until the next look at the function, or the bound if sooner. */
		long left = (long)(end - jiffies);

		wait_event_timeout(q->wait,
				   ipu_pci_q_done(q, first, tail) ||
				   READ_ONCE(q->gen) != gen ||
				   ipu_pci_q_leaving(q),
				   clamp_t(long, left, 1,
					   msecs_to_jiffies(IPU_PCI_DMA_ALIVE_MS)));
		done = ipu_pci_q_done(q, first, tail);
		if (READ_ONCE(q->gen) != gen || done > 0)
			return 0;
		if (ipu_pci_q_leaving(q)) {
			ret = -ENODEV;
			break;
		}
		if (done < 0) {
			ret = -EPROTO;
			break;
		}
		if (ipu_pci_check_gone(q->ipu,
				       ipu_pci_readl(q->ipu, q->regs + IPU_Q_HEAD)))
			return -ENODEV;
		if (time_after_eq(jiffies, end))
			break;
	}
	/* The descriptor in progress may complete until the stop is done. */
	ipu_pci_q_stop(q);
	if (ret == -EPROTO)
		dev_err_ratelimited(&q->ipu->pdev->dev,
				    "%s queue: writeback HEAD %u for descriptors %u..%u, stopped\n",
				    ipu_pci_dma_names[q->index], ipu_pci_q_head(q),
				    first, tail);
	return ret;
}

/* The status words of descriptors [@first, @tail): 0 or -EIO. */
static int ipu_pci_q_status(struct ipu_pci_queue *q, u32 first, u32 tail)
{
	int ret = 0;
	u32 i;

	for (i = first; i != tail; i = (i + 1) % IPU_PCI_DMA_RING) {
		u32 status = ipu_pci_from_le32(READ_ONCE(q->ring[i].status));

		if (!(status & IPU_DESC_DONE) ||
		    (status & IPU_DESC_ERR_MASK) != IPU_DESC_OK)
			ret = -EIO;
	}
	return ret;
}

/**
 * struct ipu_pci_dma_req - a transfer waiting for, or on, a DMA queue
 * @node: in the queue's pending list, then in its poster's batch.
 * @sgt: the mapped host pages.
 * @dev_off: device memory offset of the first byte.
 * @ret: the result, once @done.
 * @left: its descriptors posted and not yet complete.
 * @posted: its last descriptor is posted.
 * @complete: every descriptor of it completed (each may have failed).
 * @held: the queue did not stop: the pages stay the device's for good.
 * @started: one of its descriptors is posted: it reached the device.
 * @taken: a poster took it off the pending list (under q->pend_lock).
 * @done: the poster is finished with it (release ordering on @ret, @held).
 */
struct ipu_pci_dma_req {
	struct list_head node;
	struct sg_table *sgt;
	u64 dev_off;
	int ret;
	u32 left;
	bool posted;
	bool complete;
	bool held;
	bool started;
	bool taken;
	bool done;
};

/*
 * Account the batch [@first, @tail) that ended (completed, or its queue
 * stopped or reset: the status words are final) to the transfers it
 * carried: a descriptor that failed, or that the device never reached,
 * fails its transfer with @err.
 */
static void ipu_pci_q_account(struct ipu_pci_queue *q, u32 first, u32 tail,
			      int err)
{
	u32 i;

	for (i = first; i != tail; i = (i + 1) % IPU_PCI_DMA_RING) {
		struct ipu_pci_dma_req *r = q->owner[i];

		if (ipu_pci_q_status(q, i, (i + 1) % IPU_PCI_DMA_RING))
			r->ret = err;
		if (!--r->left && r->posted)
			r->complete = true;
	}
}

/*
 * Whether the ring's worth about to start with a descriptor of @r must
 * not: a reset is under way. Suspend's (which only stops the rings) lets
 * a transfer begun go on to its end, which would otherwise fail with
 * -EIO (ipu_pci_pm.c); a reset would end it anyway.
 */
static bool ipu_pci_q_stopping(struct ipu_pci_queue *q,
			       struct ipu_pci_dma_req *r)
{
	if (!READ_ONCE(q->resetting))
		return false;
	smp_rmb(); /* ipu->suspended is set before q->resetting */
	return !r->started || !READ_ONCE(q->ipu->suspended);
}

/*
 * Move the mapped transfers of @batch to or from device memory, as few
 * doorbells as the ring allows: their descriptors one after another, the
 * IRQ flag on the last of each ring's worth. @gen is q->gen as read before
 * q->resetting was found clear. -EAGAIN at the next ring's worth when a
 * reset began: nothing more is posted to the ring it disables. Returns the error that
 * ended the batch (a wait's, -EIO when a reset ended it, -EAGAIN); each
 * transfer's own result is its ->ret (a failed descriptor). A reset ends
 * a ring's worth where it found it: the descriptors the device finished
 * before it say DONE, the others E_RESET (or nothing, after an FLR), so
 * the transfers wholly in it are accounted as for a batch that completed.
 * So does the stop after a timeout (the descriptors after the stalled
 * one keep the status 0 the host wrote).
 */
static int ipu_pci_q_run(struct ipu_pci_queue *q, struct list_head *batch,
			 u32 gen)
{
	struct ipu_pci_dma_req *r, *prev = NULL;
	u32 first, n = 0, ntx = 0;
	int err;

	first = q->tail;
	list_for_each_entry(r, batch, node) {
		struct scatterlist *sg;
		u64 dev_off = r->dev_off;
		unsigned int i;

		for_each_sgtable_dma_sg(r->sgt, sg, i) {
			dma_addr_t addr = sg_dma_address(sg);
			u32 len = sg_dma_len(sg);

			while (len) {
				u32 part = min_t(u32, len, IPU_DMA_MAX_LEN);
				struct ipu_dma_desc *d = &q->ring[q->tail];
				bool end = part == len &&
					   i == r->sgt->nents - 1;
				bool last = end && list_is_last(&r->node, batch);

				if (!n && ipu_pci_q_stopping(q, r))
					return -EAGAIN;
				d->host_addr = ipu_pci_le64(addr);
				d->dev_addr = ipu_pci_le64(dev_off);
				d->length = ipu_pci_le32(part);
				d->status = 0;
				d->tag = 0;
				/* A full ring ends a batch too: one slot stays unused. */
				last |= ++n == IPU_PCI_DMA_RING - 1;
				d->flags = ipu_pci_le32(last ? IPU_DMA_F_IRQ : 0);
				q->owner[q->tail] = r;
				ntx += r != prev;
				prev = r;
				r->started = true;
				r->left++;
				r->posted = end;
				q->tail = (q->tail + 1) % IPU_PCI_DMA_RING;
				addr += part;
				dev_off += part;
				len -= part;
				if (!last)
					continue;

				/* Descriptors before the doorbell (writel orders). */
				ipu_pci_q_wr(q, IPU_Q_TAIL, q->tail);
				trace_ipu_dma_doorbell(q->ipu->idev.minor,
						       q->index == IPU_QUEUE_H2D,
						       n, ntx);
				err = ipu_pci_q_wait(q, first, q->tail, gen);
				/*
				 * A timeout stopped the queue: once the stop
				 * is done its status words are final (spec
				 * 2.1), and the transfers the device finished
				 * before it stalled succeed, as before a
				 * reset. Not after a lie: a device whose
				 * writeback claimed work it had not done
				 * broke the order "data, status word,
				 * writeback" (spec 4.1) that makes a DONE
				 * mean the bytes moved, so none of its status
				 * words is taken on its word. Nor when the
				 * queue did not stop (held): the words may
				 * still change.
				 */
				if (err == -ETIMEDOUT && !q->held) {
					dma_rmb(); /* after the stop's STATUS read */
					ipu_pci_q_account(q, first, q->tail, err);
				}
				if (err)
					return err;
				/*
				 * The status words are written before HEAD
				 * moves, and a reset is done (q->gen moved)
				 * only once the queue stopped.
				 */
				dma_rmb();
				ipu_pci_q_account(q, first, q->tail, -EIO);
				if (READ_ONCE(q->gen) != gen)
					return -EIO;
				first = q->tail;
				n = 0;
				ntx = 0;
				prev = NULL;
			}
		}
	}
	return 0;
}

/*
 * The transfer's queue did not stop: the device may still write its
 * pages, so they and their mapping (an IOMMU's IOVA, swiotlb's bounce
 * slots) stay the device's for good. A reference on each page outlives
 * the caller's unpinning; the table itself is the host's.
 */
static void ipu_pci_dma_keep(struct ipu_pci *ipu, struct sg_table *sgt)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(sgt, sg, i)
		get_page(sg_page(sg));
	dev_err(&ipu->pdev->dev,
		"a transfer's %u pages stay mapped and allocated for good: the device may still write them\n",
		sgt->orig_nents);
}

/*
 * The batch ended (a reset, a stalled or lying device) before the
 * transfers of @batch that never reached the device were posted: back to
 * the head of the pending list, in order, they wait for the ring as those
 * that came meanwhile do (their waiters take the ring again once it is
 * let go of). Nothing of theirs was on the ring, so nothing of the failure
 * is theirs.
 */
static void ipu_pci_q_putback(struct ipu_pci_queue *q, struct list_head *batch)
{
	struct ipu_pci_dma_req *r, *tmp;
	LIST_HEAD(back);

	list_for_each_entry_safe(r, tmp, batch, node)
		if (!r->started)
			list_move_tail(&r->node, &back);
	spin_lock(&q->pend_lock);
	list_for_each_entry(r, &back, node) {
		WRITE_ONCE(r->taken, false);
		q->npending++;
	}
	list_splice(&back, &q->pending);
	spin_unlock(&q->pend_lock);
}

/*
 * Post every transfer pending on @q and see them through: called holding
 * q->xfer_lock, which is the poster's. Each transfer's ->done is set last,
 * after which its waiter may free it.
 */
static void ipu_pci_q_post(struct ipu_pci_queue *q)
{
	struct ipu_pci *ipu = q->ipu;
	struct ipu_pci_dma_req *r, *tmp;
	LIST_HEAD(batch);
	bool held;
	u32 gen;
	int ret;

	spin_lock(&q->pend_lock);
	list_for_each_entry(r, &q->pending, node)
		WRITE_ONCE(r->taken, true);
	list_splice_init(&q->pending, &batch);
	q->npending = 0;
	spin_unlock(&q->pend_lock);
	if (list_empty(&batch))
		return;
	/*
	 * A reset is under way: these transfers have not reached the
	 * device, so they wait for the ring rather than failing with the
	 * reset's -EIO. Not killable, as the mutex is not: the reset only
	 * waits for this lock, which every holder leaves as soon as the
	 * generation moved. The generation is read first: one the reset has
	 * moved past comes with q->resetting seen set (ipu_pci_dma_reset()),
	 * so a batch never waits with the generation of a reset already
	 * done on a ring it disabled.
	 */
	for (;;) {
		gen = READ_ONCE(q->gen);
		smp_rmb(); /* q->gen before q->resetting */
		if (!READ_ONCE(q->resetting) || ipu_pci_q_leaving(q))
			break;
		mutex_unlock(&q->xfer_lock);
		/* Transfers that came meanwhile may post (and wait) too. */
		wake_up(&q->post_wait);
		wait_event(q->wait, !READ_ONCE(q->resetting) ||
			   ipu_pci_q_leaving(q));
		mutex_lock(&q->xfer_lock);
	}
	/*
	 * Removal, or the function gone: also for a transfer that waited
	 * for the queue while the one before it found out and stopped it.
	 */
	if (ipu_pci_q_leaving(q)) {
		ret = -ENODEV;
	} else {
		/*
		 * Stopped for a reset that did not happen (or failed at
		 * resume): nobody else enables it, and the queue would
		 * refuse every transfer until a reset that works.
		 */
		if (q->stopped) {
			q->stopped = false;
			q->enabled = !q->held && !ipu_pci_q_enable(q);
		}
		ret = q->enabled ? ipu_pci_q_run(q, &batch, gen) : -EIO;
	}
	held = q->held;
	if (ret == -ENODEV) {
		q->enabled = false;
	} else if (ret == -ETIMEDOUT || ret == -EPROTO) {
		if (ret == -ETIMEDOUT)
			dev_err_ratelimited(&ipu->pdev->dev,
					    "%s queue: no completion in %u ms, stopped\n",
					    ipu_pci_dma_names[q->index],
					    ipu_pci_dma_wait_ms());
		else
			ret = -EIO;
		/*
		 * Afresh: HEAD = TAIL = 0, whatever the device claimed; the
		 * queue has stopped (or is held for good). A reset under way
		 * enables it itself, or, should it not happen, the next
		 * holder of the ring (q->stopped).
		 */
		q->enabled = false;
		if (!held && READ_ONCE(q->resetting))
			q->stopped = true;
		else if (!held)
			q->enabled = !ipu_pci_q_enable(q);
	}
	/*
	 * A reset ended it (or came first): the transfers it had not reached
	 * yet wait for the ring the reset enables again. Not after a timeout
	 * or a lie (see the top of this file), nor on removal.
	 */
	if (ret == -EAGAIN || (ret == -EIO && READ_ONCE(q->gen) != gen))
		ipu_pci_q_putback(q, &batch);
	if (ret == -EAGAIN)
		ret = -EIO;
	/* What ended the batch ends every transfer of it not complete. */
	list_for_each_entry_safe(r, tmp, &batch, node) {
		if (ret && !r->complete)
			r->ret = ret;
		/* Only what may still be on a ring that did not stop. */
		r->held = held && r->started && !r->complete;
		/* ->ret and ->held before ->done: its waiter reads them after. */
		smp_store_release(&r->done, true);
	}
}

/*
 * Done waiting for @req: it is done (*@poster false), or it is still
 * pending and the ring is ours (*@poster true), to post what is pending.
 * One a poster took waits for that poster, which may let go of the ring
 * meanwhile (to wait for a reset): taking the ring then would only spin.
 * @req may be done or taken by the time the ring is ours: its poster let
 * go of the ring after we looked.
 */
static bool ipu_pci_q_turn(struct ipu_pci_queue *q,
			   struct ipu_pci_dma_req *req, bool *poster)
{
	*poster = false;
	/* Pairs with ipu_pci_q_post()'s release: ->ret, ->held are final. */
	if (smp_load_acquire(&req->done))
		return true;
	if (READ_ONCE(req->taken))
		return false;
	*poster = mutex_trylock(&q->xfer_lock);
	return *poster;
}

/**
 * ipu_pci_dma - ipu_hw_ops.dma: move @iter through a DMA queue
 * @idev: the device (entered)
 * @dev_off: offset in device memory
 * @iter: pinned host pages, a bvec iterator; not advanced
 * @to_device: direction
 *
 * The transfer, mapped, joins the queue's pending list; whoever holds the
 * ring (q->xfer_lock) posts all that are pending behind one doorbell and
 * one interrupt, and waits for them (ipu_pci_q_post()). Transfers that
 * arrive together (io_uring's, a batch of SQEs each on a worker of
 * ipu_xfer_wq; several threads' ioctls) so share the device's round trip,
 * where each used to take its own: group commit, as a journal does it.
 *
 * Return: 0; -EIO when a descriptor failed (the device's error code:
 * E_DATA, E_RESET...) or a soft reset ended the transfer; -ETIMEDOUT when
 * the device did not finish; -ENODEV when the function is being
 * removed or fell off the bus; -ENOMEM.
 */
int ipu_pci_dma(struct ipu_device *idev, u64 dev_off, struct iov_iter *iter,
		bool to_device)
{
	struct ipu_pci *ipu = to_ipu_pci(idev);
	struct ipu_pci_queue *q = &ipu->dmaq[to_device ? IPU_QUEUE_H2D :
						      IPU_QUEUE_D2H];
	enum dma_data_direction dir = to_device ? DMA_TO_DEVICE :
						  DMA_FROM_DEVICE;
	struct sg_table sgt;
	struct ipu_pci_dma_req req = { .sgt = &sgt, .dev_off = dev_off };
	bool poster;
	int ret;

	if (!iov_iter_count(iter))
		return 0;
	if (ipu_pci_is_gone(ipu))
		return -ENODEV;
	ret = ipu_pci_sgt_from_iter(&sgt, iter);
	if (ret)
		return ret;
	/*
	 * Two transfers from the device may land in one cache line of the
	 * user's memory (libsession splits a host array between replicas
	 * at any byte): the DMA API's debug code refuses overlapping
	 * mappings the device writes unless the driver does the CPU syncs
	 * itself, which it does here, around the transfer. On a coherent
	 * platform they cost nothing; on others, the CPU must not write the
	 * shared line while a transfer into it runs, as for O_DIRECT.
	 */
	ret = dma_map_sgtable(&ipu->pdev->dev, &sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret)
		goto out_free;
	dma_sync_sgtable_for_device(&ipu->pdev->dev, &sgt, dir);

	spin_lock(&q->pend_lock);
	list_add_tail(&req.node, &q->pending);
	trace_ipu_dma_queue(ipu->idev.minor, to_device, ++q->npending);
	spin_unlock(&q->pend_lock);
	/*
	 * Posted by the holder of the ring, or take it and post: a holder
	 * sets ->done of what it took before it lets go of the ring for
	 * good (it lets go meanwhile only to wait for a reset, in
	 * ipu_pci_q_post()), and wakes the queue after, so the transfer is
	 * either done or finds the ring free. Bounded: each holder's wait is
	 * (ipu_pci_q_wait()).
	 */
	for (;;) {
		wait_event(q->post_wait, ipu_pci_q_turn(q, &req, &poster));
		if (!poster)
			break;
		ipu_pci_q_post(q);
		mutex_unlock(&q->xfer_lock);
		wake_up(&q->post_wait);
		/*
		 * Not done: a holder waiting for a reset let go of the ring
		 * with ours in its batch (taken), and posts it once the
		 * reset is over.
		 */
		if (smp_load_acquire(&req.done))
			break;
	}
	ret = req.ret;

	if (req.held) {
		ipu_pci_dma_keep(ipu, &sgt);
		goto out_free;
	}
	dma_sync_sgtable_for_cpu(&ipu->pdev->dev, &sgt, dir);
	dma_unmap_sgtable(&ipu->pdev->dev, &sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
out_free:
	sg_free_table(&sgt);
	return ret;
}

/**
 * ipu_pci_dma_reset_prepare - no transfer posts to the rings a reset stops
 * @ipu: the device, about to be reset
 *
 * From here until ipu_pci_dma_reset() (or ipu_pci_dma_reset_cancel()),
 * transfers start no batch: those that had not reached the device wait
 * for the rings, and those in flight on them fail with -EIO once the
 * reset is done.
 */
void ipu_pci_dma_reset_prepare(struct ipu_pci *ipu)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ipu->dmaq); i++)
		WRITE_ONCE(ipu->dmaq[i].resetting, true);
	/* Seen before the reset's write reaches the device. */
	smp_wmb();
}

/**
 * ipu_pci_dma_reset_cancel - the reset did not happen: transfers go on
 * @ipu: the device, whose reset failed (its rings as they were)
 *
 * A ring stopped meanwhile for the reset to enable (a timeout, a lie) or
 * by suspend is enabled by its next transfer (q->stopped): the one holding
 * it now may wait up to dma_timeout_ms, too long to wait for here.
 */
void ipu_pci_dma_reset_cancel(struct ipu_pci *ipu)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ipu->dmaq); i++) {
		WRITE_ONCE(ipu->dmaq[i].resetting, false);
		wake_up(&ipu->dmaq[i].wait);
		wake_up(&ipu->dmaq[i].post_wait);
	}
}

/**
 * ipu_pci_dma_reset - re-enable the DMA queues after a soft reset
 * @ipu: the device, reset (done: RESET_COUNT moved, or the FLR over), its
 *	queues disabled and stopped, their batches in flight marked
 *	E_RESET; ipu_pci_dma_reset_prepare() called before the reset
 *
 * Ends the batches waiting (they fail with -EIO) and starts the rings
 * afresh.
 *
 * Return: 0 or -EIO when a queue would not enable.
 */
int ipu_pci_dma_reset(struct ipu_pci *ipu)
{
	int i, ret = 0;

	for (i = 0; i < ARRAY_SIZE(ipu->dmaq); i++) {
		struct ipu_pci_queue *q = &ipu->dmaq[i];

		/*
		 * q->resetting is set (prepare): no transfer starts a batch
		 * on the disabled ring; one that gets the lock before us
		 * waits for the ring (ipu_pci_dma()). A transfer that reads
		 * the new generation sees q->resetting set.
		 */
		WRITE_ONCE(q->enabled, false);
		smp_wmb(); /* q->resetting, q->enabled before q->gen */
		WRITE_ONCE(q->gen, q->gen + 1);
		wake_up(&q->wait);
		/* The waiter has left the ring once it holds the lock again. */
		mutex_lock(&q->xfer_lock);
		q->enabled = !ipu_pci_q_enable(q);
		q->stopped = false;
		if (!q->enabled)
			ret = -EIO;
		WRITE_ONCE(q->resetting, false);
		mutex_unlock(&q->xfer_lock);
		wake_up(&q->wait);
		wake_up(&q->post_wait);
	}
	return ret;
}

/**
 * ipu_pci_dma_abort - removal: transfers waiting for the device give up
 * @ipu: the device, @ipu->removing set
 *
 * Each stops its queue and fails with -ENODEV, so the core's unplug
 * guard is released at once rather than after dma_timeout_ms.
 */
void ipu_pci_dma_abort(struct ipu_pci *ipu)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ipu->dmaq); i++) {
		wake_up(&ipu->dmaq[i].wait);
		wake_up(&ipu->dmaq[i].post_wait);
	}
}

/**
 * ipu_pci_dma_prepare - the queues' locks and wait queues, first thing in probe
 * @ipu: the device, zeroed
 *
 * Before any interrupt handler exists: a handler that finds the function
 * gone wakes the queues' waiters (ipu_pci_dma_abort()).
 */
void ipu_pci_dma_prepare(struct ipu_pci *ipu)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ipu->dmaq); i++) {
		mutex_init(&ipu->dmaq[i].xfer_lock);
		spin_lock_init(&ipu->dmaq[i].pend_lock);
		INIT_LIST_HEAD(&ipu->dmaq[i].pending);
		init_waitqueue_head(&ipu->dmaq[i].wait);
		init_waitqueue_head(&ipu->dmaq[i].post_wait);
	}
}

/*
 * Stop @q, enabled, and free its vector; a queue that does not stop keeps
 * its ring and writeback for good.
 */
static void ipu_pci_q_fini(struct ipu_pci_queue *q)
{
	if (!ipu_pci_q_stop(q)) {
		ipu_pci_coherent_leak(q->ipu, q->ring);
		ipu_pci_coherent_leak(q->ipu, q->wb);
	}
	ipu_pci_q_free_irq(q);
}

/**
 * ipu_pci_dma_init - allocate, program and enable the two DMA queues
 * @ipu: the device, its firmware booted (not needed by DMA, but the order
 *	of the spec's section 12)
 *
 * The rings are managed (ipu_pci_coherent_alloc()): they go when the
 * function is unbound, after ipu_pci_dma_fini(), if their queues stopped.
 * The queues' vectors are named ipuN-h2d and ipuN-d2h.
 *
 * Return: 0, or a negative errno after a dmesg line.
 */
int ipu_pci_dma_init(struct ipu_pci *ipu)
{
	struct device *dev = &ipu->pdev->dev;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(ipu->dmaq); i++) {
		struct ipu_pci_queue *q = &ipu->dmaq[i];

		q->ipu = ipu;
		q->index = i;
		q->regs = ipu->regs + IPU_REG_QUEUE(i);
		q->cause = i == IPU_QUEUE_H2D ? IPU_IRQ_H2D : IPU_IRQ_D2H;
		q->ring = ipu_pci_coherent_alloc(ipu, IPU_PCI_DMA_RING *
						 sizeof(*q->ring), &q->ring_dma);
		q->wb = ipu_pci_coherent_alloc(ipu, sizeof(*q->wb), &q->wb_dma);
		if (!q->ring || !q->wb) {
			ret = -ENOMEM;
			goto err_free;
		}
		ret = ipu_pci_q_request_irq(q);
		if (ret)
			goto err_free;
		ret = ipu_pci_q_enable(q);
		if (ret) {
			ipu_pci_q_free_irq(q);
			goto err_free;
		}
		q->enabled = true;
		ipu_pci_unmask(ipu, q->cause);
	}
	return 0;

err_free:
	dev_err(dev, "cannot set up the %s DMA queue: %d\n",
		ipu_pci_dma_names[i], ret);
	/* Those enabled stop before devres frees their rings (spec 2.1). */
	while (i--)
		ipu_pci_q_fini(&ipu->dmaq[i]);
	return ret;
}

ALLOW_ERROR_INJECTION(ipu_pci_dma_init, ERRNO);

/**
 * ipu_pci_dma_fini - stop the DMA queues and free their vectors
 * @ipu: the device, unregistered (no transfer can start any more)
 *
 * Each queue is waited for until it has stopped (spec 2.1); one that does
 * not keeps its ring and writeback for good.
 */
void ipu_pci_dma_fini(struct ipu_pci *ipu)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ipu->dmaq); i++)
		ipu_pci_q_fini(&ipu->dmaq[i]);
}
