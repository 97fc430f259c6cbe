// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_cmd.c - one command descriptor (docs/hardware.md section 4.3):
 * NOP, or LAUNCH checked field by field (the descriptor comes from the
 * host: every size, range and replica field is checked before use) and
 * handed to emu_dev_run.c with its deadline. A launch the hang_launch
 * fault picked waits here, deadline ignored, until the queue is aborted;
 * while the hold_launches fault is set, every launch waits here before it
 * starts, until the fault is lifted or the queue is aborted. INSTANCE
 * (section 4.4) is a context descriptor: checked, kept for the queue's
 * next LAUNCH, which takes it; PROFILE (section 4.5) likewise, but kept
 * also when it failed: its LAUNCH then fails with its code.
 */
#include <linux/ipu.h>

#include "emu_internal.h"

/* A LAUNCH's fields alone; IPU_CQ_OK when they are well formed. */
static int check_launch(const struct emu_dev *dev, const struct ipu_cmd_desc *d)
{
	if (d->flags & ~IPU_CQ_F_ALL)
		return IPU_CQ_E_DESC;
	if (!d->exe_size || !d->arena_size || !d->num_replicas ||
	    d->num_replicas > IPU_CQ_MAX_REPLICAS ||
	    d->replica >= d->num_replicas ||
	    (d->num_replicas > 1 && !d->group))
		return IPU_CQ_E_DESC;
	if (!emu_mem_range_ok(dev, d->exe_addr, d->exe_size) ||
	    !emu_mem_range_ok(dev, d->arena_addr, d->arena_size) ||
	    d->arena_addr % 64)
		return IPU_CQ_E_INVAL;
	return IPU_CQ_OK;
}

/* INSTANCE: the context of the next LAUNCH; IPU_CQ_OK when well formed. */
static int instance(struct emu_queue *q, const struct ipu_cmd_desc *d)
{
	struct emu_dev *dev = q->dev;

	if (d->flags & ~IPU_CQ_F_ALL || d->exe_addr || d->exe_size ||
	    d->deadline_ms || d->group || d->owner || !d->num_replicas ||
	    d->num_replicas > IPU_CQ_MAX_INSTANCES ||
	    d->replica >= d->num_replicas || !d->arena_size)
		return IPU_CQ_E_DESC;
	if (!emu_mem_range_ok(dev, d->arena_addr, d->arena_size) ||
	    d->arena_addr % 64)
		return IPU_CQ_E_INVAL;
	pthread_mutex_lock(&dev->lock);
	dev->queue_ctx.index = d->replica;
	dev->queue_ctx.count = d->num_replicas;
	dev->queue_ctx.staging = d->arena_addr;
	dev->queue_ctx.staging_size = d->arena_size;
	dev->has_queue_ctx = true;
	pthread_mutex_unlock(&dev->lock);
	return IPU_CQ_OK;
}

/* The spec's limits are the UAPI's (section 4.5 says so): one layout. */
_Static_assert(IPU_CQ_PROFILE_MIN == sizeof(struct ipu_profile_header),
	       "PROFILE's minimum is the header");
_Static_assert(IPU_CQ_PROFILE_MAX == IPU_PROFILE_MAX_BYTES,
	       "PROFILE's maximum is the UAPI's");

/* PROFILE: the next LAUNCH's profile buffer; IPU_CQ_OK when well formed. */
static int profile(struct emu_queue *q, const struct ipu_cmd_desc *d)
{
	struct emu_dev *dev = q->dev;
	int code = IPU_CQ_OK;

	if (d->flags & ~IPU_CQ_F_ALL || d->exe_addr || d->exe_size ||
	    d->deadline_ms || d->replica || d->num_replicas || d->group ||
	    d->owner || d->arena_size < IPU_CQ_PROFILE_MIN ||
	    d->arena_size > IPU_CQ_PROFILE_MAX)
		code = IPU_CQ_E_DESC;
	else if (!emu_mem_range_ok(dev, d->arena_addr, d->arena_size) ||
		 d->arena_addr % IPU_CQ_PROFILE_ALIGN)
		code = IPU_CQ_E_INVAL;
	pthread_mutex_lock(&dev->lock);
	dev->queue_prof.addr = d->arena_addr;
	dev->queue_prof.size = d->arena_size;
	dev->queue_prof.code = (uint32_t)code;
	dev->has_queue_prof = true;
	pthread_mutex_unlock(&dev->lock);
	return code;
}

void emu_cmd_ctx_forget_locked(struct emu_dev *dev)
{
	dev->has_queue_ctx = false;
	dev->has_queue_prof = false;
}

/* The hang_launch fault: no completion until reset (or disable). */
static int hang(struct emu_queue *q)
{
	emu_log(q->dev, "injected fault: launch hangs until reset");
	emu_queue_wait_abort(q);
	return IPU_CQ_E_RESET;
}

/*
 * The hold_launches fault: wait until it is lifted, as a device whose
 * firmware is stopped would; false when the queue was aborted (reset, FLR)
 * while the launch was held. A launch that was not held goes on as it
 * would without the fault: whatever abort comes is the run's (or hang's)
 * to see.
 */
static bool wait_unheld(struct emu_queue *q)
{
	struct emu_dev *dev = q->dev;
	bool held;

	pthread_mutex_lock(&dev->lock);
	held = dev->faults.hold_launches;
	if (held)
		emu_log(dev, "injected fault: launch held");
	while (dev->faults.hold_launches && !atomic_load(&q->abort))
		pthread_cond_wait(&q->cond, &dev->lock);
	held = held && atomic_load(&q->abort);
	pthread_mutex_unlock(&dev->lock);
	return !held;
}

int emu_cmd_process(struct emu_queue *q, const struct ipu_cmd_desc *d)
{
	struct emu_dev *dev = q->dev;
	struct emu_launch l = { .dev = dev, .d = *d, .abort = &q->abort };
	uint32_t deadline;
	bool hung;
	int rc;

	if (d->opcode == IPU_CQ_NOP)
		return d->flags & ~IPU_CQ_F_ALL ? IPU_CQ_E_DESC : IPU_CQ_OK;
	if (d->opcode == IPU_CQ_INSTANCE)
		return instance(q, d);
	/* A device without PROFILE (the no_profile fault) knows no opcode 3. */
	if (d->opcode == IPU_CQ_PROFILE && !dev->faults.no_profile)
		return profile(q, d);
	if (d->opcode != IPU_CQ_LAUNCH)
		return IPU_CQ_E_OPCODE;
	/* The context is this launch's, whatever becomes of it. */
	pthread_mutex_lock(&dev->lock);
	l.has_inst = dev->has_queue_ctx;
	l.inst = dev->queue_ctx;
	dev->has_queue_ctx = false;
	l.has_prof = dev->has_queue_prof;
	l.prof = dev->queue_prof;
	dev->has_queue_prof = false;
	pthread_mutex_unlock(&dev->lock);
	rc = check_launch(dev, d);
	if (rc != IPU_CQ_OK)
		return rc;
	/* A PROFILE that failed fails its LAUNCH (section 4.5). */
	if (l.has_prof && l.prof.code != IPU_CQ_OK)
		return (int)l.prof.code;

	/* Counted as it arrives, held or not (hang_launch=K: the K-th). */
	pthread_mutex_lock(&dev->lock);
	hung = dev->faults.hang_launch && --dev->faults.hang_launch == 0;
	deadline = d->deadline_ms ? d->deadline_ms : q->deadline_ms;
	pthread_mutex_unlock(&dev->lock);
	if (!wait_unheld(q))
		return IPU_CQ_E_RESET;
	if (hung)
		return hang(q);
	/* Its queue was stopped (disable, reset) before it started: a
	 * posted stop lets started work finish, it starts none. */
	if (atomic_load(&q->abort))
		return IPU_CQ_E_RESET;
	l.deadline_ms = deadline ? emu_now_ms() + deadline : 0;

	atomic_fetch_add(&dev->running, 1);
	rc = emu_run_launch(&l);
	atomic_fetch_sub(&dev->running, 1);

	pthread_mutex_lock(&dev->lock);
	/* A launch refused before its run (a replica filed twice, no
	 * memory for the run) is not one of LAUNCHES (section 3). */
	if (l.filed)
		dev->launches++;
	if (rc == IPU_CQ_E_TIMEOUT)
		emu_err_locked(dev, IPU_ERR_CMD_TIMEOUT, d->replica, d->group);
	pthread_mutex_unlock(&dev->lock);
	return rc;
}
