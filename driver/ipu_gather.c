// SPDX-License-Identifier: GPL-2.0
/*
 * Gather requests of split launches, the file's side (docs/instances.md,
 * "PCIe IPUs"): a program split across instances asks the host for the
 * other instances' operands. The device's kind (ipu_pci_gather.c) matches
 * each request to the split launch in flight it belongs to and posts it
 * in the inbox of the file that launched it; the file polls readable,
 * GATHER_NEXT hands the oldest request out with a token and GATHER_ANSWER
 * answers it (ipu_hw_ops.gather_answer).
 *
 * Tokens are per file and never reused, so a token of another file, or
 * one answered already, is -ENOENT. A reset makes the device forget its
 * requests: it bumps ipu_device.gather_gen, and entries of an older
 * generation, or whose launch ended, are dropped instead of handed out
 * or answered. Closing the file answers its pending requests -ECANCELED
 * (their runs fail), and the inbox stays closed for requests of its
 * launches still running.
 */
#include <linux/slab.h>
#include <linux/xarray.h>

#include "ipu_drv.h"
#include "ipu_file.h"
#include "ipu_gather.h"
#include "ipu_hw.h"
#include "ipu_launch.h"
#include "ipu_trace.h"

/* Requests one file may have waiting: beyond, the device is told ENOBUFS. */
#define IPU_GATHER_MAX_ENTRIES 256

/**
 * struct ipu_gather_entry - one request in an inbox
 * @node: in &ipu_gather_inbox.entries.
 * @info: what GATHER_NEXT reports, token included.
 * @seq: the device's number for it, which the answer names.
 * @gen: &ipu_device.gather_gen when it was posted.
 * @taken: GATHER_NEXT handed it out.
 * @launch: the split launch that asks; referenced.
 */
struct ipu_gather_entry {
	struct list_head node;
	struct ipu_gather_next info;
	u32 seq;
	u32 gen;
	bool taken;
	struct ipu_launch_req *launch;
};

/**
 * ipu_gather_inbox_new - the inbox of a file being opened
 * @idev: its device
 *
 * Return: the inbox, holding the file's reference, or NULL.
 */
struct ipu_gather_inbox *ipu_gather_inbox_new(struct ipu_device *idev)
{
	struct ipu_gather_inbox *inbox = kzalloc(sizeof(*inbox),
						 GFP_KERNEL_ACCOUNT);

	if (!inbox)
		return NULL;
	kref_init(&inbox->ref);
	inbox->idev = idev;
	spin_lock_init(&inbox->lock);
	INIT_LIST_HEAD(&inbox->entries);
	inbox->next_token = 1;
	init_waitqueue_head(&inbox->wait);
	return inbox;
}

/**
 * ipu_gather_inbox_get - one more reference (a split launch's)
 * @inbox: the inbox
 *
 * Return: @inbox.
 */
struct ipu_gather_inbox *ipu_gather_inbox_get(struct ipu_gather_inbox *inbox)
{
	kref_get(&inbox->ref);
	return inbox;
}

static void ipu_gather_inbox_release(struct kref *ref)
{
	struct ipu_gather_inbox *inbox =
		container_of(ref, struct ipu_gather_inbox, ref);

	/* Closed before: ipu_gather_file_release() emptied it. */
	WARN_ON(!list_empty(&inbox->entries));
	kfree(inbox);
}

/**
 * ipu_gather_inbox_put - drop a reference
 * @inbox: the inbox
 */
void ipu_gather_inbox_put(struct ipu_gather_inbox *inbox)
{
	kref_put(&inbox->ref, ipu_gather_inbox_release);
}

static void ipu_gather_entry_free(struct ipu_gather_entry *e)
{
	ipu_launch_put(e->launch);
	kfree(e);
}

/*
 * A request the device no longer waits for: a reset forgot it, or its
 * launch ended (its deadline, a reset). Read without the launch queue's
 * lock: an answer racing the launch's end reaches a device that ignores
 * it (it logs ERR_GATHER), which is harmless.
 */
static bool ipu_gather_stale(struct ipu_gather_inbox *inbox,
			     const struct ipu_gather_entry *e)
{
	return e->gen != READ_ONCE(inbox->idev->gather_gen) ||
	       READ_ONCE(e->launch->done);
}

/* Free the entries that went stale; the caller holds inbox->lock. */
static void ipu_gather_prune_locked(struct ipu_gather_inbox *inbox)
{
	struct ipu_gather_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, &inbox->entries, node) {
		if (ipu_gather_stale(inbox, e)) {
			list_del(&e->node);
			inbox->count--;
			ipu_gather_entry_free(e);
		}
	}
}

/**
 * ipu_gather_post - queue a device's request on the launching file
 * @launch: the split launch that asks, referenced: the reference passes
 *	to the inbox, or is dropped on failure
 * @info: the request as GATHER_NEXT reports it (token 0: assigned here)
 * @seq: the device's number for it
 * @gen: the device's &ipu_device.gather_gen
 *
 * Called by the kind, in process context, with its ring's lock held.
 *
 * Return: 0, or an errno the caller answers the device with at once:
 * -ECANCELED when the file is closed, -ENOBUFS when it has too many
 * requests waiting, -ENOMEM.
 */
int ipu_gather_post(struct ipu_launch_req *launch,
		    const struct ipu_gather_next *info, u32 seq, u32 gen)
{
	struct ipu_gather_inbox *inbox = launch->gather;
	struct ipu_gather_entry *e = kzalloc(sizeof(*e), GFP_KERNEL);
	int ret = 0;

	if (!e) {
		WRITE_ONCE(launch->gather_status, -ENOMEM);
		ipu_launch_put(launch);
		return -ENOMEM;
	}
	e->launch = launch;
	e->info = *info;
	e->seq = seq;
	e->gen = gen;
	spin_lock(&inbox->lock);
	ipu_gather_prune_locked(inbox);
	/* Ended meanwhile: ipu_gather_launch_ended() has been or comes. */
	if (inbox->closed || READ_ONCE(launch->done)) {
		ret = -ECANCELED;
	} else if (inbox->count >= IPU_GATHER_MAX_ENTRIES) {
		ret = -ENOBUFS;
	} else {
		e->info.token = inbox->next_token++;
		list_add_tail(&e->node, &inbox->entries);
		inbox->count++;
		e = NULL;
	}
	/* Under the lock: until it is dropped, no answer can free @launch. */
	trace_ipu_gather_request(launch, info, seq, ret);
	spin_unlock(&inbox->lock);
	if (e) {
		WRITE_ONCE(launch->gather_status, ret);
		ipu_gather_entry_free(e);
	}
	if (!ret)
		wake_up_interruptible_poll(&inbox->wait, EPOLLIN | EPOLLPRI);
	return ret;
}

/* Answer one request taken off the inbox; -ENOENT when it went stale. */
static int ipu_gather_answer_entry(struct ipu_gather_inbox *inbox,
				   struct ipu_gather_entry *e, int status)
{
	struct ipu_device *idev = inbox->idev;
	int idx, ret;

	if (status)
		WRITE_ONCE(e->launch->gather_status, status);
	if (ipu_gather_stale(inbox, e)) {
		ret = -ENOENT;
	} else if (ipu_dev_enter(idev, &idx)) {
		ret = -ENODEV;
	} else {
		/* Before the doorbell: what the answer causes comes after. */
		trace_ipu_gather_answer(idev, e->seq, status);
		ret = idev->ops->gather_answer(idev, e->seq, e->gen, status);
		ipu_dev_exit(idev, idx);
	}
	ipu_gather_entry_free(e);
	return ret;
}

/**
 * ipu_gather_launch_ended - a split launch ended: drop its requests
 * @launch: the launch, done; the caller holds a reference
 *
 * The device no longer waits for their answers. Each holds the launch,
 * and with it the launch's buffers (device memory), which must not wait
 * for the file to look at its inbox again. ipu_gather_post() refuses the
 * requests of a launch that is done, so none is queued after this.
 */
void ipu_gather_launch_ended(struct ipu_launch_req *launch)
{
	struct ipu_gather_inbox *inbox = launch->gather;
	struct ipu_gather_entry *e, *tmp;
	LIST_HEAD(ended);

	spin_lock(&inbox->lock);
	list_for_each_entry_safe(e, tmp, &inbox->entries, node) {
		if (e->launch == launch) {
			list_move_tail(&e->node, &ended);
			inbox->count--;
		}
	}
	spin_unlock(&inbox->lock);
	/* Not the last references to @launch: the caller holds one. */
	list_for_each_entry_safe(e, tmp, &ended, node)
		ipu_gather_entry_free(e);
}

/**
 * ipu_gather_file_release - a file closes: fail its pending requests
 * @ifile: the file
 *
 * Its runs waiting for an answer fail (-ECANCELED); requests its launches
 * post later are answered so at once. Drops the file's reference.
 */
void ipu_gather_file_release(struct ipu_file *ifile)
{
	struct ipu_gather_inbox *inbox = ifile->gather;
	struct ipu_gather_entry *e, *tmp;
	LIST_HEAD(pending);

	spin_lock(&inbox->lock);
	inbox->closed = true;
	list_splice_init(&inbox->entries, &pending);
	inbox->count = 0;
	spin_unlock(&inbox->lock);
	list_for_each_entry_safe(e, tmp, &pending, node) {
		list_del(&e->node);
		ipu_gather_answer_entry(inbox, e, -ECANCELED);
	}
	ipu_gather_inbox_put(inbox);
}

/* The oldest request not handed out yet; the caller holds inbox->lock. */
static struct ipu_gather_entry *
ipu_gather_first_locked(struct ipu_gather_inbox *inbox)
{
	struct ipu_gather_entry *e;

	ipu_gather_prune_locked(inbox);
	list_for_each_entry(e, &inbox->entries, node)
		if (!e->taken)
			return e;
	return NULL;
}

/**
 * ipu_gather_poll - poll() of a file: readable while a request waits
 * @ifile: the file
 * @filp: its struct file
 * @wait: the poll table
 *
 * Return: EPOLLIN | EPOLLPRI | EPOLLRDNORM when GATHER_NEXT has one;
 * EPOLLERR | EPOLLHUP once the device is unplugged.
 */
__poll_t ipu_gather_poll(struct ipu_file *ifile, struct file *filp,
			 poll_table *wait)
{
	struct ipu_gather_inbox *inbox = ifile->gather;
	__poll_t mask = 0;

	poll_wait(filp, &inbox->wait, wait);
	/* No request comes any more: a poller must not sleep forever. */
	if (ipu_dev_unplugged(ifile->idev))
		return EPOLLERR | EPOLLHUP;
	spin_lock(&inbox->lock);
	if (ipu_gather_first_locked(inbox))
		mask = EPOLLIN | EPOLLPRI | EPOLLRDNORM;
	spin_unlock(&inbox->lock);
	return mask;
}

/**
 * ipu_gather_file_unplug - the file's device is gone: wake its pollers
 * @ifile: the file
 *
 * Called once the device is marked unplugged, so that the pollers it
 * wakes see EPOLLHUP (ipu_gather_poll()).
 */
void ipu_gather_file_unplug(struct ipu_file *ifile)
{
	wake_up_interruptible_poll(&ifile->gather->wait, EPOLLERR | EPOLLHUP);
}

/*
 * Whether the handle GATHER_NEXT would report still names the launch's
 * staging buffer in @ifile. The launch holds the buffer, not its handle:
 * once BO_DESTROY dropped the handle, the next BO_CREATE may get the same
 * number for another buffer, where the host would carry the parts while
 * the device reads the old one. Only the pointers are compared (xa_load()
 * under RCU): the launch's reference keeps the old buffer distinct.
 */
static bool ipu_gather_handle_valid(struct ipu_file *ifile,
				    const struct ipu_gather_entry *e)
{
	return xa_load(&ifile->bos, e->info.staging_handle) ==
	       e->launch->staging_bo;
}

/**
 * ipu_ioctl_gather_next - GATHER_NEXT: hand out the oldest request
 * @ifile: the file
 * @data: struct ipu_gather_next, all zero on input
 *
 * A request whose staging buffer's handle was destroyed cannot be served
 * (see ipu_gather_handle_valid()): it is answered -EBADF, which fails its
 * launch, and the next one is looked at.
 *
 * Return: 0; -EAGAIN when none waits; -EINVAL for a non-zero input.
 */
int ipu_ioctl_gather_next(struct ipu_file *ifile, void *data)
{
	struct ipu_gather_inbox *inbox = ifile->gather;
	struct ipu_gather_next *args = data;
	struct ipu_gather_entry *e;
	bool valid;

	if (memchr_inv(args, 0, sizeof(*args)))
		return -EINVAL;
	for (;;) {
		spin_lock(&inbox->lock);
		e = ipu_gather_first_locked(inbox);
		valid = e && ipu_gather_handle_valid(ifile, e);
		if (valid) {
			e->taken = true;
			*args = e->info;
		} else if (e) {
			list_del(&e->node);
			inbox->count--;
		}
		spin_unlock(&inbox->lock);
		if (!e)
			return -EAGAIN;
		if (valid)
			return 0;
		ipu_gather_answer_entry(inbox, e, -EBADF);
	}
}

/* The entry of @token; the caller holds inbox->lock. */
static struct ipu_gather_entry *
ipu_gather_find_locked(struct ipu_gather_inbox *inbox, u64 token)
{
	struct ipu_gather_entry *e;

	list_for_each_entry(e, &inbox->entries, node)
		if (e->info.token == token)
			return e;
	return NULL;
}

/**
 * ipu_ioctl_gather_next_undo - the token could not be copied out
 * @ifile: the file
 * @data: the struct ipu_gather_next handed out
 *
 * The request is handed out again by the next GATHER_NEXT.
 */
void ipu_ioctl_gather_next_undo(struct ipu_file *ifile, void *data)
{
	struct ipu_gather_inbox *inbox = ifile->gather;
	struct ipu_gather_next *args = data;
	struct ipu_gather_entry *e;

	spin_lock(&inbox->lock);
	e = ipu_gather_find_locked(inbox, args->token);
	if (e)
		e->taken = false;
	spin_unlock(&inbox->lock);
}

/**
 * ipu_ioctl_gather_answer - GATHER_ANSWER: answer a request
 * @ifile: the file
 * @data: struct ipu_gather_answer
 *
 * A request not handed out yet may be answered too (its token is known
 * only by guessing, which is harmless: it is this file's own run).
 *
 * Return: 0; -EINVAL for flags or a status out of range; -ENOENT for a
 * token this file has no request of (another file's, answered, stale).
 */
int ipu_ioctl_gather_answer(struct ipu_file *ifile, void *data)
{
	struct ipu_gather_inbox *inbox = ifile->gather;
	struct ipu_gather_answer *args = data;
	struct ipu_gather_entry *e;

	if (args->flags || args->status > 0 ||
	    args->status < -IPU_GATHER_MAX_ERRNO)
		return -EINVAL;
	spin_lock(&inbox->lock);
	ipu_gather_prune_locked(inbox);
	e = args->token ? ipu_gather_find_locked(inbox, args->token) : NULL;
	if (e) {
		list_del(&e->node);
		inbox->count--;
	}
	spin_unlock(&inbox->lock);
	if (!e)
		return -ENOENT;
	return ipu_gather_answer_entry(inbox, e, args->status);
}
