// SPDX-License-Identifier: GPL-2.0
/*
 * The PCIe IPU's command queue (docs/hardware.md sections 4.1 and 4.3):
 * launches run on the device, not on a userspace firmware. Each launch
 * the core hands over (ipu_hw_ops.launch) becomes one 64-byte command
 * descriptor with the IRQ flag; the device completes them in ring order
 * and raises vector 3, whose threaded handler reads the status words
 * behind HEAD, maps their codes to errnos (one table, the spec's) and
 * reports them to the core (ipu_launch_complete()), then hands over the
 * launches that waited for room. The same vector carries the gather
 * ring's requests (ipu_pci_gather.c), which its thread serves next. A
 * function with one vector raises vector 0 for both, whose thread does
 * the same (ipu_pci_irq.c).
 *
 * A split launch (docs/hardware.md section 4.4) is two descriptors: an
 * INSTANCE naming the instance and the staging area, then the LAUNCH.
 * The INSTANCE's slot holds no launch (NULL): it completes at once and
 * without an interrupt, and is reaped with the LAUNCH behind it.
 * A profiled launch (section 4.5) likewise has a PROFILE before its
 * LAUNCH, naming the profile buffer object; a PROFILE the device refused
 * (E_INVAL: the buffer outside device memory or misaligned) fails its
 * LAUNCH, whose status alone the driver reads. The one refusal that does
 * not, E_OPCODE from a device without the extension, never comes: the
 * driver sends PROFILE only where CAPS has it (ipu_pci.c, at probe) and
 * refuses profiled launches itself elsewhere.
 *
 * Deadlines: every descriptor carries launch_timeout_ms, which the device
 * enforces itself (E_TIMEOUT, -ETIMEDOUT). The core's watchdog, somewhat
 * longer, catches a device that stopped doing so (fault hang_launch) and
 * resets it (ipu_pci.c: soft reset, FLR when that fails); the reset ends
 * the ring here (ipu_pci_cmd_reset()) and the core fails the launches.
 *
 * Locking: cq->lock protects the ring's host side and its slots; the core
 * calls ipu_pci_cmd_launch() under its launch queue's lock, so the order
 * is launch queue, then cq->lock, and the handler never holds cq->lock
 * while it calls into the core.
 */
#include <linux/dma-mapping.h>
#include <linux/error-injection.h>
#include <linux/interrupt.h>
#include <linux/pci.h>

#include "ipu_bo.h"
#include "ipu_launch.h"
#include "ipu_pci.h"
#include "ipu_trace.h"

/* The spec's status codes (section 4.3) as the errnos the UAPI reports. */
static const int ipu_pci_cmd_errnos[] = {
	[IPU_CQ_OK] = 0,
	[IPU_CQ_E_NOEXEC] = -ENOEXEC,
	[IPU_CQ_E_INVAL] = -EINVAL,
	[IPU_CQ_E_RANGE] = -ERANGE,
	[IPU_CQ_E_NOMEM] = -ENOMEM,
	[IPU_CQ_E_TIMEOUT] = -ETIMEDOUT,
	[IPU_CQ_E_CANCELED] = -ECANCELED,
	[IPU_CQ_E_RESET] = -EIO,
	[IPU_CQ_E_OPCODE] = -EINVAL,
	[IPU_CQ_E_DESC] = -EINVAL,
	[IPU_CQ_E_INTERNAL] = -EIO,
	/* The host's answer is not kept per launch: the device says no more. */
	[IPU_CQ_E_GATHER] = -EIO,
};

/* A status word as an errno: not DONE, or a code the spec lacks, is -EIO. */
static int ipu_pci_cmd_errno(u32 status)
{
	u32 code = status & IPU_DESC_ERR_MASK;

	if (!(status & IPU_DESC_DONE) || code >= ARRAY_SIZE(ipu_pci_cmd_errnos))
		return -EIO;
	return ipu_pci_cmd_errnos[code];
}

static void ipu_pci_cmd_wr(struct ipu_pci_cmdq *cq, u32 reg, u32 val)
{
	writel(val, cq->regs + reg);
}

/* Program and enable the ring; HEAD = TAIL = 0. */
static noinline int ipu_pci_cmd_enable(struct ipu_pci_cmdq *cq)
{
	cq->head = 0;
	cq->tail = 0;
	return ipu_pci_ring_enable(cq->regs, cq->ring_dma, IPU_PCI_CMD_RING,
				   cq->wb, sizeof(*cq->wb), cq->wb_dma);
}

ALLOW_ERROR_INJECTION(ipu_pci_cmd_enable, ERRNO);

/*
 * A context descriptor (INSTANCE, PROFILE) for the LAUNCH behind it, at
 * TAIL, cleared but for @opcode, its slot holding no launch; the caller
 * holds cq->lock and fills in the rest.
 */
static struct ipu_cmd_desc *ipu_pci_cmd_put_ctx(struct ipu_pci_cmdq *cq,
						u32 opcode)
{
	struct ipu_cmd_desc *d = &cq->ring[cq->tail];

	memset(d, 0, sizeof(*d));
	d->opcode = ipu_pci_le32(opcode);
	cq->slot[cq->tail] = NULL;
	cq->tail = (cq->tail + 1) % IPU_PCI_CMD_RING;
	return d;
}

/* The INSTANCE before a split launch (section 4.4). */
static void ipu_pci_cmd_put_instance(struct ipu_pci_cmdq *cq,
				     const struct ipu_launch_req *req)
{
	struct ipu_cmd_desc *d = ipu_pci_cmd_put_ctx(cq, IPU_CQ_INSTANCE);

	d->arena_addr = ipu_pci_le64(ipu_bo_dev_off(req->staging_bo) +
				     req->staging_offset);
	d->arena_size = ipu_pci_le64(req->staging_size);
	d->replica = ipu_pci_le32(req->instance_index);
	d->num_replicas = ipu_pci_le32(req->instance_count);
}

/* The PROFILE before a profiled launch (section 4.5). */
static void ipu_pci_cmd_put_profile(struct ipu_pci_cmdq *cq,
				    const struct ipu_launch_req *req)
{
	struct ipu_cmd_desc *d = ipu_pci_cmd_put_ctx(cq, IPU_CQ_PROFILE);

	d->arena_addr = ipu_pci_le64(ipu_bo_dev_off(req->profile_bo));
	d->arena_size = ipu_pci_le64(req->profile_bo->size);
}

/**
 * ipu_pci_cmd_launch - ipu_hw_ops.launch: the launch's command descriptors
 * @idev: the device (entered; the launch queue's lock held)
 * @req: the launch
 *
 * The LAUNCH, after an INSTANCE and a PROFILE when it needs them, all
 * published with one TAIL write.
 *
 * Return: 0 (the ring holds a reference to @req until it is reaped);
 * -EBUSY when the ring is full; -EIO when the queue is down (a reset
 * failed); -ENODEV when the function fell off the bus; -EINVAL when the
 * image is larger than a descriptor can say.
 */
int ipu_pci_cmd_launch(struct ipu_device *idev, struct ipu_launch_req *req)
{
	struct ipu_pci *ipu = to_ipu_pci(idev);
	struct ipu_pci_cmdq *cq = &ipu->cmdq;
	u32 need = 1 + !!req->instance_count + !!req->profile_bo;
	struct ipu_cmd_desc *d;
	int ret = 0;

	if (req->exe_size > U32_MAX)
		return -EINVAL;
	if (ipu_pci_is_gone(ipu))
		return -ENODEV;
	spin_lock(&cq->lock);
	if (!cq->enabled) {
		ret = -EIO;
	} else if (IPU_PCI_CMD_RING - 1 -
		   (cq->tail - cq->head) % IPU_PCI_CMD_RING < need) {
		ret = -EBUSY;
	} else {
		if (req->instance_count)
			ipu_pci_cmd_put_instance(cq, req);
		if (req->profile_bo)
			ipu_pci_cmd_put_profile(cq, req);
		d = &cq->ring[cq->tail];
		d->opcode = ipu_pci_le32(IPU_CQ_LAUNCH);
		d->flags = ipu_pci_le32(IPU_CQ_F_IRQ);
		d->exe_addr = ipu_pci_le64(ipu_bo_dev_off(req->exe_bo));
		d->exe_size = ipu_pci_le32(req->exe_size);
		d->deadline_ms = ipu_pci_le32(ipu_launch_timeout_ms());
		d->arena_addr = ipu_pci_le64(ipu_bo_dev_off(req->arena_bo) +
					     req->arena_offset);
		d->arena_size = ipu_pci_le64(req->arena_size);
		d->replica = ipu_pci_le32(req->replica);
		d->num_replicas = ipu_pci_le32(req->num_replicas);
		d->group = ipu_pci_le64(req->group);
		d->owner = ipu_pci_le32(req->pid);
		d->status = 0;
		kref_get(&req->ref);
		cq->slot[cq->tail] = req;
		cq->tail = (cq->tail + 1) % IPU_PCI_CMD_RING;
		/* The descriptor before the doorbell (writel orders). */
		ipu_pci_cmd_wr(cq, IPU_Q_TAIL, cq->tail);
	}
	spin_unlock(&cq->lock);
	return ret;
}

/*
 * Whether the device finished the launch at HEAD: the writeback's head
 * past it, no further than TAIL, and its status word DONE. A head out of
 * the ring, beyond what was published or going backwards, or a status
 * not DONE, is a device that lies (docs/hardware.md's bad_writeback
 * fault): the launch stays on the ring, its buffers referenced, until
 * the device really finishes it or the watchdog resets the device.
 */
static bool ipu_pci_cmd_head_done(struct ipu_pci_cmdq *cq, u32 *word)
{
	u32 wb = ipu_pci_from_le32(READ_ONCE(cq->wb->head));

	if (cq->head == cq->tail || wb >= IPU_PCI_CMD_RING ||
	    (wb - cq->head) % IPU_PCI_CMD_RING == 0 ||
	    (wb - cq->head) % IPU_PCI_CMD_RING >
	    (cq->tail - cq->head) % IPU_PCI_CMD_RING)
		return false;
	/* The status word is written before the writeback. */
	dma_rmb();
	*word = ipu_pci_from_le32(READ_ONCE(cq->ring[cq->head].status));
	return *word & IPU_DESC_DONE;
}

/*
 * Take the oldest descriptor the device completed off the ring, with its
 * launch (*@req: NULL for an INSTANCE) and result: false when there is
 * none. The caller owns the ring's reference. Only a launch that ran to
 * its end: not one a reset stopped (E_RESET), which the core fails itself
 * once the reset is over, with -ETIMEDOUT when it was late. A soft reset
 * is posted (spec 9.1): until it is done, the launch it stopped completes
 * as after a disable, with a writeback and an interrupt whose thread
 * runs while the reset is still under way; that E_RESET stays on the
 * ring, which the reset ends (ipu_pci_cmd_reset()).
 */
static bool ipu_pci_cmd_pop_done(struct ipu_pci_cmdq *cq,
				 struct ipu_launch_req **req, int *status)
{
	bool popped = false;
	u32 word;

	spin_lock(&cq->lock);
	if (cq->enabled && ipu_pci_cmd_head_done(cq, &word) &&
	    (word & IPU_DESC_ERR_MASK) != IPU_CQ_E_RESET) {
		*status = ipu_pci_cmd_errno(word);
		*req = cq->slot[cq->head];
		/* E_GATHER: the errno the host failed the gather with. */
		if (*req && (word & IPU_DESC_ERR_MASK) == IPU_CQ_E_GATHER &&
		    READ_ONCE((*req)->gather_status))
			*status = READ_ONCE((*req)->gather_status);
		cq->slot[cq->head] = NULL;
		cq->head = (cq->head + 1) % IPU_PCI_CMD_RING;
		popped = true;
	}
	spin_unlock(&cq->lock);
	return popped;
}

/*
 * Report every launch the device finished (ipu_pci_cmd_pop_done()); then
 * fill the room it left.
 */
static void ipu_pci_cmd_reap(struct ipu_pci *ipu)
{
	struct ipu_launch_req *req;
	bool any = false;
	int status;

	while (ipu_pci_cmd_pop_done(&ipu->cmdq, &req, &status)) {
		if (!req)
			continue;
		ipu_launch_complete(req, status);
		ipu_launch_put(req);
		any = true;
	}
	if (any)
		ipu_launch_kick(&ipu->idev);
}

static irqreturn_t ipu_pci_cmd_irq(int irq, void *data)
{
	struct ipu_pci *ipu = data;
	u32 cause = ipu_pci_rd(ipu, IPU_REG_IRQ_CAUSE);

	if (ipu_pci_check_gone(ipu, cause))
		return IRQ_NONE;
	cause &= IPU_IRQ_CMD | IPU_IRQ_GATHER;
	if (!cause)
		return IRQ_NONE;
	/* Acknowledge first: a completion meanwhile raises a new message. */
	ipu_pci_wr(ipu, IPU_REG_IRQ_CAUSE, cause);
	trace_ipu_irq(ipu->idev.minor, IPU_VEC_CMD, cause);
	/* For the thread, which may run once for several messages. */
	atomic_or(cause, &ipu->irq_thread_causes);
	return IRQ_WAKE_THREAD;
}

/**
 * ipu_pci_cmd_serve - the work of the CMD and GATHER causes
 * @ipu: the device
 * @cause: the causes acknowledged since the thread last ran
 *
 * Completions call into the core (io_uring, waiters), gather requests into
 * the launching files: process context, the thread of vector 3 or, with
 * one vector, of vector 0 (ipu_pci_irq.c). The completions are looked for
 * whichever cause came (the writeback is in host memory: free to look
 * at); the gather ring only after a GATHER, since its TAIL is a register,
 * whose read is a round trip to the device on every launch's interrupt
 * otherwise. A request posted after the acknowledgment raises GATHER
 * again (docs/hardware.md section 6), so none is left without a look.
 */
void ipu_pci_cmd_serve(struct ipu_pci *ipu, u32 cause)
{
	ipu_pci_cmd_reap(ipu);
	if (cause & IPU_IRQ_GATHER)
		ipu_pci_gather_service(ipu);
}

static irqreturn_t ipu_pci_cmd_thread(int irq, void *data)
{
	struct ipu_pci *ipu = data;

	ipu_pci_cmd_serve(ipu, atomic_xchg(&ipu->irq_thread_causes, 0));
	return IRQ_HANDLED;
}

/*
 * Whether the split launch @req is the one @gr (a gather request the
 * device posted) belongs to: the run, the replica, the instance and the
 * staging area the launch gave the device.
 */
static bool ipu_pci_cmd_is_split_of(const struct ipu_launch_req *req,
				    const struct ipu_gather_req *gr)
{
	u64 bytes = le64_to_cpu((__force __le64)gr->bytes);
	u64 staging = le64_to_cpu((__force __le64)gr->staging);
	u32 count = ipu_pci_from_le32(gr->count);

	return req->instance_count &&
	       req->pid == ipu_pci_from_le32(gr->owner) &&
	       req->group == le64_to_cpu((__force __le64)gr->group) &&
	       req->replica == ipu_pci_from_le32(gr->replica) &&
	       req->instance_index == ipu_pci_from_le32(gr->index) &&
	       req->instance_count == count &&
	       staging == ipu_bo_dev_off(req->staging_bo) + req->staging_offset &&
	       bytes && bytes <= req->staging_size / count;
}

/**
 * ipu_pci_cmd_find_split - the launch in flight a gather request names
 * @ipu: the device
 * @gr: the request, as the device wrote it
 *
 * The device posts a request only for the LAUNCH at the head of its
 * queue, but the host may not have reaped the launches before it yet:
 * the first launch on the ring that is not done is the one.
 *
 * Return: that launch, referenced, when the request matches it; else
 * NULL (a device that lies).
 */
struct ipu_launch_req *ipu_pci_cmd_find_split(struct ipu_pci *ipu,
					      const struct ipu_gather_req *gr)
{
	struct ipu_pci_cmdq *cq = &ipu->cmdq;
	struct ipu_launch_req *req = NULL;
	u32 i;

	spin_lock(&cq->lock);
	for (i = cq->head; cq->enabled && i != cq->tail;
	     i = (i + 1) % IPU_PCI_CMD_RING) {
		if (!cq->slot[i] ||
		    ipu_pci_from_le32(READ_ONCE(cq->ring[i].status)) &
		    IPU_DESC_DONE)
			continue;
		if (ipu_pci_cmd_is_split_of(cq->slot[i], gr)) {
			req = cq->slot[i];
			kref_get(&req->ref);
		}
		break;
	}
	spin_unlock(&cq->lock);
	return req;
}

/* Drop the ring's references to the launches it still holds. */
static void ipu_pci_cmd_drop(struct ipu_pci_cmdq *cq)
{
	struct ipu_launch_req *req;

	for (;;) {
		spin_lock(&cq->lock);
		req = NULL;
		while (cq->head != cq->tail && !req) {
			req = cq->slot[cq->head];
			cq->slot[cq->head] = NULL;
			cq->head = (cq->head + 1) % IPU_PCI_CMD_RING;
		}
		spin_unlock(&cq->lock);
		if (!req)
			return;
		ipu_launch_put(req);
	}
}

/**
 * ipu_pci_cmd_reset - end the ring after a soft reset or FLR, and restart it
 * @ipu: the device, just reset (the command queue disabled; the launches
 *	it had not finished say E_RESET)
 *
 * Launches the device finished before the reset are reported as such; the
 * others stay in flight in the core, which fails them (with -ETIMEDOUT
 * when late) once the reset is over.
 *
 * Return: 0 or -EIO when the queue would not enable.
 */
int ipu_pci_cmd_reset(struct ipu_pci *ipu)
{
	struct ipu_pci_cmdq *cq = &ipu->cmdq;
	int ret;

	ipu_pci_cmd_reap(ipu);
	spin_lock(&cq->lock);
	cq->enabled = false;
	spin_unlock(&cq->lock);
	ipu_pci_cmd_drop(cq);

	spin_lock(&cq->lock);
	ret = ipu_pci_cmd_enable(cq);
	cq->enabled = !ret;
	spin_unlock(&cq->lock);
	return ret;
}

/*
 * Vector 3, ipuN-cmd; with one vector, vector 0 serves the queue
 * (ipu_pci_irq.c) and there is nothing to request.
 */
static noinline int ipu_pci_cmd_request_irq(struct ipu_pci *ipu)
{
	struct ipu_pci_cmdq *cq = &ipu->cmdq;

	if (ipu_pci_irq_one(ipu))
		return 0;
	snprintf(ipu->irq_names[IPU_VEC_CMD], IPU_PCI_IRQ_NAME_LEN, "ipu%d-cmd",
		 ipu->idev.minor);
	cq->irq = pci_irq_vector(ipu->pdev, IPU_VEC_CMD);
	return request_threaded_irq(cq->irq, ipu_pci_cmd_irq,
				    ipu_pci_cmd_thread, 0,
				    ipu->irq_names[IPU_VEC_CMD], ipu);
}

ALLOW_ERROR_INJECTION(ipu_pci_cmd_request_irq, ERRNO);

/*
 * After this no handler is at work on the queue: its vector is freed, or,
 * with one vector, its causes masked and the handler waited for.
 */
static void ipu_pci_cmd_free_irq(struct ipu_pci *ipu)
{
	if (ipu_pci_irq_one(ipu))
		ipu_pci_irq_quiesce(ipu, IPU_IRQ_CMD | IPU_IRQ_GATHER);
	else
		free_irq(ipu->cmdq.irq, ipu);
}

/**
 * ipu_pci_cmd_init - allocate, program and enable the command queue
 * @ipu: the device, its firmware READY (the queue refuses to enable
 *	before, spec section 4.1)
 *
 * The ring is managed (ipu_pci_coherent_alloc()); its vector is ipuN-cmd.
 *
 * Return: 0, or a negative errno after a dmesg line.
 */
int ipu_pci_cmd_init(struct ipu_pci *ipu)
{
	struct ipu_pci_cmdq *cq = &ipu->cmdq;
	struct device *dev = &ipu->pdev->dev;
	int ret;

	spin_lock_init(&cq->lock);
	cq->regs = ipu->regs + IPU_REG_QUEUE(IPU_QUEUE_CMD);
	cq->ring = ipu_pci_coherent_alloc(ipu, IPU_PCI_CMD_RING *
					  sizeof(*cq->ring), &cq->ring_dma);
	cq->wb = ipu_pci_coherent_alloc(ipu, sizeof(*cq->wb), &cq->wb_dma);
	if (!cq->ring || !cq->wb) {
		ret = -ENOMEM;
		goto err;
	}
	ret = ipu_pci_cmd_request_irq(ipu);
	if (ret)
		goto err;
	ret = ipu_pci_cmd_enable(cq);
	if (ret) {
		ipu_pci_cmd_free_irq(ipu);
		goto err;
	}
	cq->enabled = true;
	ipu_pci_unmask(ipu, IPU_IRQ_CMD);
	return 0;

err:
	dev_err(dev, "cannot set up the command queue: %d\n", ret);
	return ret;
}

ALLOW_ERROR_INJECTION(ipu_pci_cmd_init, ERRNO);

/**
 * ipu_pci_cmd_fini - stop the command queue and free its vector
 * @ipu: the device, unregistered (its launches failed; none can start)
 *
 * Disabling stops the launch in progress (spec section 4.1), and the
 * queue has stopped once its STATUS says so: only then do the ring's last
 * references to buffers go. A queue that does not stop keeps its ring
 * and writeback (ipu_pci_ring_stop()); the buffers of its launches are
 * device memory, which no file can reach once the device is unplugged.
 */
void ipu_pci_cmd_fini(struct ipu_pci *ipu)
{
	struct ipu_pci_cmdq *cq = &ipu->cmdq;

	spin_lock(&cq->lock);
	cq->enabled = false;
	spin_unlock(&cq->lock);
	if (ipu_pci_ring_stop(ipu, cq->regs,
			      IPU_Q_STATUS_ENABLED | IPU_Q_STATUS_BUSY, "cmd")) {
		ipu_pci_coherent_leak(ipu, cq->ring);
		ipu_pci_coherent_leak(ipu, cq->wb);
	}
	ipu_pci_cmd_free_irq(ipu);
	ipu_pci_cmd_drop(cq);
}
