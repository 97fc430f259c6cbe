// SPDX-License-Identifier: GPL-2.0
/*
 * Launches: a program handed to the device's firmware, from the LAUNCH
 * ioctl (completion through a fence and WAIT) or io_uring (completion as a
 * CQE, ipu_uring.c). The firmware is a userspace process for simulated
 * IPUs (FW_NEXT/FW_DONE below) and the device itself for PCI IPUs
 * (ipu_hw_ops.launch: its command queue, ipu_pci_cmd.c).
 *
 * Every launch completes in bounded time whatever the firmware does: it has
 * a deadline (module parameter launch_timeout_ms), and a watchdog, armed
 * for the earliest deadline in flight, fails the launches of a device whose
 * firmware missed one, then resets the device. New submissions never push
 * the watchdog back. That bound is what lets a process exit while launches
 * are in flight on kernels whose io_uring cannot cancel commands (Debian's
 * 6.1).
 *
 * One file has at most IPU_MAX_LAUNCHES launches in flight, on both paths
 * together (-EAGAIN beyond): a fence counts until WAIT consumes it or the
 * file closes, an io_uring launch until its completion is posted.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <uapi/linux/ipu.h>

#include "ipu_bo.h"
#include "ipu_drv.h"
#include "ipu_fdinfo.h"
#include "ipu_file.h"
#include "ipu_fw.h"
#include "ipu_gather.h"
#include "ipu_launch.h"
#include "ipu_trace.h"

static unsigned int launch_timeout_ms = 30000;
module_param(launch_timeout_ms, uint, 0644);
MODULE_PARM_DESC(launch_timeout_ms, "Time the firmware has to finish a launch before the device is reset (ms, default 30000)");

/* Launches one file may have in flight, fences and io_uring together. */
#define IPU_MAX_LAUNCHES 256

static struct ipu_device *lq_to_idev(struct ipu_launch_queue *lq)
{
	return container_of(lq, struct ipu_device, launches);
}

/**
 * ipu_launch_timeout_ms - the deadline a launch has, in milliseconds
 *
 * Return: launch_timeout_ms, at least 1.
 */
unsigned int ipu_launch_timeout_ms(void)
{
	return max(READ_ONCE(launch_timeout_ms), 1U);
}

static unsigned long ipu_launch_deadline(void)
{
	return jiffies + msecs_to_jiffies(ipu_launch_timeout_ms());
}

/*
 * A device with its own command queue enforces the deadline itself (the
 * launch completes with E_TIMEOUT): the watchdog only catches a device
 * that stopped doing so, so it waits a quarter longer, and at least a
 * second more, for the device's own answer.
 */
static unsigned long ipu_launch_hw_deadline(void)
{
	unsigned int ms = ipu_launch_timeout_ms();

	return jiffies + msecs_to_jiffies(ms + max(ms / 4, 1000U));
}

static bool ipu_launch_on_hw(struct ipu_device *idev)
{
	return idev->ops->launch;
}

static void ipu_launch_timeout_fn(struct work_struct *work);

/**
 * ipu_launch_queue_init - set up a device's launch queue
 * @lq: the queue, zeroed
 */
void ipu_launch_queue_init(struct ipu_launch_queue *lq)
{
	spin_lock_init(&lq->lock);
	mutex_init(&lq->fw_lock);
	INIT_LIST_HEAD(&lq->pending);
	INIT_LIST_HEAD(&lq->running);
	lq->next_id = 1;
	init_waitqueue_head(&lq->fw_wq);
	INIT_DELAYED_WORK(&lq->timeout_work, ipu_launch_timeout_fn);
}

static void ipu_launch_release(struct kref *ref)
{
	struct ipu_launch_req *req = container_of(ref, struct ipu_launch_req,
						  ref);

	if (req->exe_bo)
		ipu_bo_put(req->exe_bo);
	if (req->arena_bo)
		ipu_bo_put(req->arena_bo);
	if (req->staging_bo)
		ipu_bo_put(req->staging_bo);
	if (req->profile_bo)
		ipu_bo_put(req->profile_bo);
	if (req->gather)
		ipu_gather_inbox_put(req->gather);
	ipu_usage_put(req->usage);
	kfree(req);
}

/**
 * ipu_launch_put - drop a reference to a launch
 * @req: the launch
 */
void ipu_launch_put(struct ipu_launch_req *req)
{
	kref_put(&req->ref, ipu_launch_release);
}

/**
 * ipu_launch_slot_get - count one more launch of a file in flight
 * @ifile: the file
 *
 * Return: false when the file has IPU_MAX_LAUNCHES already (-EAGAIN).
 */
bool ipu_launch_slot_get(struct ipu_file *ifile)
{
	return atomic_add_unless(&ifile->nr_launches, 1, IPU_MAX_LAUNCHES);
}

/**
 * ipu_launch_slot_put - a launch of a file is no longer in flight
 * @ifile: the file
 */
void ipu_launch_slot_put(struct ipu_file *ifile)
{
	atomic_dec(&ifile->nr_launches);
}

/**
 * ipu_launch_alloc - a launch not yet submitted
 * @idev: the device it is for
 * @complete: called once when the launch completes (may be NULL)
 * @priv: the submitter's
 * @gfp: allocation flags (charged to the caller: include __GFP_ACCOUNT)
 *
 * Return: the launch, holding the submitter's reference, or NULL.
 */
struct ipu_launch_req *ipu_launch_alloc(struct ipu_device *idev,
					void (*complete)(struct ipu_launch_req *),
					void *priv, gfp_t gfp)
{
	struct ipu_launch_req *req = kzalloc(sizeof(*req), gfp);

	if (!req)
		return NULL;
	kref_init(&req->ref);
	INIT_LIST_HEAD(&req->node);
	init_completion(&req->completion);
	req->idev = idev;
	req->complete = complete;
	req->priv = priv;
	return req;
}

/* Record the result; the caller holds lq->lock. False if already done. */
static bool ipu_launch_finish_locked(struct ipu_launch_req *req, int status)
{
	if (req->done)
		return false;
	req->done = true;
	req->status = status;
	list_del_init(&req->node);
	if (req->start_ns && req->usage)
		atomic64_add(ktime_get_ns() - req->start_ns,
			     &req->usage->launch_ns);
	return true;
}

/* After ipu_launch_finish_locked(), without the lock: tell the submitter. */
static void ipu_launch_signal(struct ipu_launch_req *req, bool notify)
{
	/* One of the two, by the status (their TP_CONDITION). */
	trace_ipu_launch_complete(req);
	trace_ipu_launch_fail(req);
	if (req->gather)
		ipu_gather_launch_ended(req);
	complete_all(&req->completion);
	if (notify && req->complete)
		req->complete(req);
	ipu_launch_put(req); /* the queue's reference */
}

static int ipu_launch_check_args(const struct ipu_launch *args)
{
	u64 end;

	if (args->flags & ~IPU_LAUNCH_FLAGS_ALL ||
	    (!(args->flags & IPU_LAUNCH_PROFILE) && args->profile_handle) ||
	    !args->exe_size || !args->arena_size || !args->num_replicas ||
	    args->replica >= args->num_replicas ||
	    (args->num_replicas > 1 && !args->group) ||
	    !IS_ALIGNED(args->arena_offset, 64))
		return -EINVAL;
	if (check_add_overflow(args->arena_offset, args->arena_size, &end))
		return -EINVAL;
	/* A program of one instance: the v1 launch, the split fields 0. */
	if (!args->instance_count)
		return args->instance_index || args->staging_handle ||
		       args->staging_size || args->staging_offset ? -EINVAL : 0;
	if (args->instance_count > IPU_LAUNCH_MAX_INSTANCES ||
	    args->instance_index >= args->instance_count ||
	    !args->staging_size || !IS_ALIGNED(args->staging_offset, 64) ||
	    check_add_overflow((u64)args->staging_offset,
			       (u64)args->staging_size, &end))
		return -EINVAL;
	return 0;
}

/* Resolve the buffers; the device is entered. */
static int ipu_launch_lookup(struct ipu_file *ifile,
			     const struct ipu_launch *args,
			     struct ipu_launch_req *req)
{
	if (!ipu_device_is_owner(ifile->idev, ifile))
		return -EACCES;
	req->exe_bo = ipu_bo_lookup(ifile, args->exe_handle);
	req->arena_bo = ipu_bo_lookup(ifile, args->arena_handle);
	if (!req->exe_bo || !req->arena_bo)
		return -ENOENT;
	if (args->exe_size > req->exe_bo->size ||
	    args->arena_offset + args->arena_size > req->arena_bo->size)
		return -EINVAL;
	if (!args->instance_count)
		return 0;
	/*
	 * Gather requests are the device's own: PCI IPUs with the gather
	 * extension only. Refused here, before the device sees the launch
	 * (it would fail its first gather with E_GATHER, -EIO).
	 */
	if (!ifile->idev->gather)
		return -EOPNOTSUPP;
	req->staging_bo = ipu_bo_lookup(ifile, args->staging_handle);
	if (!req->staging_bo)
		return -ENOENT;
	if ((u64)args->staging_offset + args->staging_size >
	    req->staging_bo->size)
		return -EINVAL;
	req->gather = ipu_gather_inbox_get(ifile->gather);
	return 0;
}

/*
 * The profile buffer (IPU_LAUNCH_PROFILE): a buffer of this file the
 * firmware may write whole, so none the program reads or writes itself:
 * the firmware would overwrite the program or its data.
 */
static int ipu_launch_lookup_profile(struct ipu_file *ifile,
				     const struct ipu_launch *args,
				     struct ipu_launch_req *req)
{
	struct ipu_bo *bo;

	if (!(args->flags & IPU_LAUNCH_PROFILE))
		return 0;
	/*
	 * What GET_INFO's IPU_FEATURE_PROFILE says (ipu_drv.c): a userspace
	 * firmware, or a PCI IPU whose CAPS has PROFILE.
	 */
	if (!ifile->idev->profile)
		return -EOPNOTSUPP;
	bo = ipu_bo_lookup(ifile, args->profile_handle);
	if (!bo)
		return -ENOENT;
	req->profile_bo = bo;
	if (bo == req->exe_bo || bo == req->arena_bo ||
	    bo == req->staging_bo ||
	    bo->size < sizeof(struct ipu_profile_header) ||
	    bo->size > IPU_PROFILE_MAX_BYTES)
		return -EINVAL;
	return 0;
}

/**
 * ipu_launch_prepare - check a request and resolve its buffers
 * @ifile: the submitting file (the owner)
 * @args: the request
 * @req: from ipu_launch_alloc() for @ifile's device; on failure the caller
 *	still holds it and puts it
 *
 * Nothing reaches the device yet: ipu_launch_push() does that.
 *
 * Return: 0; -EINVAL, -EACCES, -ENOENT, -EOPNOTSUPP as the UAPI says;
 * -ENODEV after unplug.
 */
int ipu_launch_prepare(struct ipu_file *ifile, const struct ipu_launch *args,
		       struct ipu_launch_req *req)
{
	int idx, ret;

	ret = ipu_launch_check_args(args);
	if (ret)
		return ret;

	ret = ipu_dev_enter(ifile->idev, &idx);
	if (ret)
		return ret;
	ret = ipu_launch_lookup(ifile, args, req);
	if (!ret)
		ret = ipu_launch_lookup_profile(ifile, args, req);
	ipu_dev_exit(ifile->idev, idx);
	if (ret)
		return ret;

	req->exe_size = args->exe_size;
	req->arena_offset = args->arena_offset;
	req->arena_size = args->arena_size;
	req->replica = args->replica;
	req->num_replicas = args->num_replicas;
	req->group = args->group;
	req->pid = task_tgid_nr(current);
	req->instance_index = args->instance_index;
	req->instance_count = args->instance_count;
	req->staging_handle = args->staging_handle;
	req->staging_offset = args->staging_offset;
	req->staging_size = args->staging_size;
	req->usage = ipu_usage_get(ifile->usage);
	return 0;
}

/*
 * Have the watchdog run by @deadline. Only ever earlier: a submission
 * must not postpone the reset of a firmware that already missed one. The
 * caller holds lq->lock.
 */
static void ipu_launch_arm_locked(struct ipu_launch_queue *lq,
				  unsigned long deadline)
{
	unsigned long now = jiffies;

	lockdep_assert_held(&lq->lock);
	if (lq->timeout_armed && time_before_eq(lq->timeout_at, deadline))
		return;
	lq->timeout_armed = true;
	lq->timeout_at = deadline;
	mod_delayed_work(ipu_wq, &lq->timeout_work,
			 time_after(deadline, now) ? deadline - now : 0);
}

/*
 * Hand pending launches to a device with its own queue, oldest first,
 * until it is full. Those it refused outright are finished and moved to
 * @failed, for the caller to signal once it dropped lq->lock.
 */
static void ipu_launch_kick_locked(struct ipu_device *idev,
				   struct list_head *failed)
{
	struct ipu_launch_queue *lq = &idev->launches;
	struct ipu_launch_req *req, *tmp;
	int ret;

	lockdep_assert_held(&lq->lock);
	/* The queue the reset restarts takes nothing before the failing. */
	if (lq->resetting)
		return;
	list_for_each_entry_safe(req, tmp, &lq->pending, node) {
		ret = idev->ops->launch(idev, req);
		if (ret == -EBUSY)
			break;
		if (ret) {
			ipu_launch_finish_locked(req, ret);
			list_add_tail(&req->node, failed);
		} else {
			req->start_ns = ktime_get_ns();
			trace_ipu_launch_start(req);
			list_move_tail(&req->node, &lq->running);
		}
	}
}

static void ipu_launch_signal_list(struct list_head *list)
{
	struct ipu_launch_req *req, *tmp;

	list_for_each_entry_safe(req, tmp, list, node) {
		list_del_init(&req->node);
		ipu_launch_signal(req, true);
	}
}

/**
 * ipu_launch_kick - give the device the launches waiting for room
 * @idev: a device with ipu_hw_ops.launch, entered (not unplugged)
 *
 * The kind calls it when its queue has room again.
 */
void ipu_launch_kick(struct ipu_device *idev)
{
	struct ipu_launch_queue *lq = &idev->launches;
	LIST_HEAD(failed);

	spin_lock(&lq->lock);
	ipu_launch_kick_locked(idev, &failed);
	spin_unlock(&lq->lock);
	ipu_launch_signal_list(&failed);
}

/**
 * ipu_launch_complete - the device reports a launch's result
 * @req: a launch ipu_hw_ops.launch took
 * @status: 0 or a negative errno
 *
 * Nothing happens when the launch was failed already (a reset, unplug).
 * The device made progress: the launches still in flight get a new
 * watchdog deadline, as a launch the simulated firmware takes does.
 */
void ipu_launch_complete(struct ipu_launch_req *req, int status)
{
	struct ipu_launch_queue *lq = &req->idev->launches;
	unsigned long deadline = ipu_launch_hw_deadline();
	struct ipu_launch_req *pos;
	bool found;

	spin_lock(&lq->lock);
	found = ipu_launch_finish_locked(req, status);
	if (found) {
		list_for_each_entry(pos, &lq->running, node)
			if (time_before(pos->deadline, deadline))
				pos->deadline = deadline;
		list_for_each_entry(pos, &lq->pending, node)
			if (time_before(pos->deadline, deadline))
				pos->deadline = deadline;
	}
	spin_unlock(&lq->lock);
	if (found)
		ipu_launch_signal(req, true);
}

/**
 * ipu_launch_push - hand a prepared launch to the firmware
 * @req: from ipu_launch_prepare()
 *
 * Once pushed, @req may complete (and @req->complete run) before this
 * returns. Never sleeps: io_uring calls it with IO_URING_F_NONBLOCK.
 *
 * Return: 0; -EUNATCH when the device has no firmware; -ENODEV after
 * unplug. On failure the caller still holds @req and puts it.
 */
int ipu_launch_push(struct ipu_launch_req *req)
{
	struct ipu_device *idev = req->idev;
	struct ipu_launch_queue *lq = &idev->launches;
	bool on_hw = ipu_launch_on_hw(idev);
	LIST_HEAD(failed);
	int idx, ret = 0;

	if (ipu_dev_enter(idev, &idx))
		return -ENODEV;
	spin_lock(&lq->lock);
	if (!on_hw && !lq->fw_file) {
		ret = -EUNATCH;
	} else {
		req->id = lq->next_id++;
		req->deadline = on_hw ? ipu_launch_hw_deadline() :
					ipu_launch_deadline();
		kref_get(&req->ref); /* the queue's */
		list_add_tail(&req->node, &lq->pending);
		trace_ipu_launch_submit(req);
		ipu_launch_arm_locked(lq, req->deadline);
		if (on_hw)
			ipu_launch_kick_locked(idev, &failed);
	}
	spin_unlock(&lq->lock);
	if (!ret && !on_hw)
		wake_up(&lq->fw_wq);
	ipu_launch_signal_list(&failed);
	ipu_dev_exit(idev, idx);
	return ret;
}

/**
 * ipu_launch_cancel - withdraw a launch the firmware has not taken yet
 * @req: the launch
 *
 * Return: true if it was withdrawn (its status is -ECANCELED and its
 * complete callback will not run), false if it is running or done.
 */
bool ipu_launch_cancel(struct ipu_launch_req *req)
{
	struct ipu_launch_queue *lq = &req->idev->launches;
	bool found = false;
	struct ipu_launch_req *pos;

	spin_lock(&lq->lock);
	list_for_each_entry(pos, &lq->pending, node) {
		if (pos == req) {
			found = ipu_launch_finish_locked(req, -ECANCELED);
			break;
		}
	}
	spin_unlock(&lq->lock);
	if (found)
		ipu_launch_signal(req, false);
	return found;
}

/*
 * Fail every launch of the device: those past their deadline with
 * @late_status, the others with @status. After a reset of a device with
 * its own queue (lq->resetting), only those in flight when the reset
 * began: the launches pushed since wait on lq->pending, and go to the
 * restarted queue now.
 */
static void ipu_launch_fail(struct ipu_device *idev, int status,
			    int late_status)
{
	struct ipu_launch_queue *lq = &idev->launches;
	struct ipu_launch_req *req;
	unsigned long now = jiffies;
	LIST_HEAD(failed);

	spin_lock(&lq->lock);
	list_splice_tail_init(&lq->running, &failed);
	if (!lq->resetting || !ipu_launch_on_hw(idev))
		list_splice_tail_init(&lq->pending, &failed);
	list_for_each_entry(req, &failed, node) {
		req->done = true;
		req->status = time_after_eq(now, req->deadline) ?
			      late_status : status;
	}
	if (lq->resetting) {
		lq->resetting = false;
		if (ipu_launch_on_hw(idev))
			ipu_launch_kick_locked(idev, &failed);
	}
	spin_unlock(&lq->lock);

	ipu_launch_signal_list(&failed);
}

/**
 * ipu_launch_fail_all - fail every launch of a device
 * @idev: the device
 * @status: their result
 *
 * For unplug. Also revokes the firmware: a firmware that may still be
 * running one of them must not write into memory that is about to be
 * reused.
 */
void ipu_launch_fail_all(struct ipu_device *idev, int status)
{
	ipu_fw_revoke(idev);
	ipu_launch_fail(idev, status, status);
}

/**
 * ipu_launch_reset_locked - reset a device and fail its launches in flight
 * @idev: the device, entered; its lock held (serialises resets)
 * @status: the result of the launches in flight
 * @late_status: the result of those past their deadline
 *
 * The firmware stops first (revoked, or the device reset), and only then
 * do the launches complete and drop their buffers: nothing still running
 * writes into memory that is about to be reused. Counts the reset when it
 * worked.
 *
 * Return: 0 or the reset's negative errno (the launches fail either way).
 */
int ipu_launch_reset_locked(struct ipu_device *idev, int status,
			    int late_status)
{
	struct ipu_launch_queue *lq = &idev->launches;
	int ret;

	lockdep_assert_held(&idev->lock);
	/*
	 * What is in flight now is what the reset ends: the pending
	 * launches count as running (failed below), and nothing reaches
	 * the device's queue until they are. Without this, a launch
	 * pushed once the kind restarted its queue but before the failing
	 * below would be reported failed while the device runs it.
	 */
	spin_lock(&lq->lock);
	lq->resetting = true;
	list_splice_tail_init(&lq->pending, &lq->running);
	spin_unlock(&lq->lock);
	ipu_fw_revoke(idev);
	ret = ipu_hw_reset(idev);
	if (!ret)
		atomic64_inc(&idev->reset_count);
	ipu_launch_fail(idev, status, late_status);
	return ret;
}

static void ipu_launch_timeout_fn(struct work_struct *work)
{
	struct ipu_launch_queue *lq =
		container_of(to_delayed_work(work), struct ipu_launch_queue,
			     timeout_work);
	struct ipu_device *idev = lq_to_idev(lq);
	struct ipu_launch_req *req;
	unsigned long now = jiffies, earliest = 0;
	bool late = false, busy = false;
	int idx, ret;

	spin_lock(&lq->lock);
	lq->timeout_armed = false;
	list_for_each_entry(req, &lq->running, node) {
		late |= time_after_eq(now, req->deadline);
		if (!busy || time_before(req->deadline, earliest))
			earliest = req->deadline;
		busy = true;
	}
	list_for_each_entry(req, &lq->pending, node) {
		late |= time_after_eq(now, req->deadline);
		if (!busy || time_before(req->deadline, earliest))
			earliest = req->deadline;
		busy = true;
	}
	/*
	 * Not late yet (FW_NEXT gave a launch a new deadline, or the device
	 * completed one): look again then.
	 */
	if (!late && busy && !ipu_dev_unplugged(idev))
		ipu_launch_arm_locked(lq, earliest);
	spin_unlock(&lq->lock);

	if (!late)
		return;
	trace_ipu_deadline(idev, ipu_launch_timeout_ms());
	dev_err_ratelimited(&idev->dev,
			    "%s missed a launch deadline (%u ms): resetting the device\n",
			    ipu_launch_on_hw(idev) ? "the device" : "firmware",
			    ipu_launch_timeout_ms());
	/* Unplugged meanwhile: unplug fails the launches. */
	if (ipu_dev_enter(idev, &idx))
		return;
	mutex_lock(&idev->lock);
	ret = ipu_launch_reset_locked(idev, -EIO, -ETIMEDOUT);
	trace_ipu_reset(idev, IPU_TRACE_RESET_DEADLINE, ret);
	mutex_unlock(&idev->lock);
	ipu_dev_exit(idev, idx);
	if (ret)
		dev_err(&idev->dev, "reset failed: %d\n", ret);
}

/**
 * ipu_launch_queue_fini - stop the queue of a device being unplugged
 * @idev: the device, already marked unplugged
 */
void ipu_launch_queue_fini(struct ipu_device *idev)
{
	ipu_launch_fail_all(idev, -ENODEV);
	wake_up_all(&idev->launches.fw_wq);
	cancel_delayed_work_sync(&idev->launches.timeout_work);
}

/*
 * LAUNCH in two steps around the dispatcher's copy-out: the handler
 * prepares the launch and reserves its fence, the fence goes out to the
 * caller, and only then is the launch committed (pushed to the firmware).
 * A caller whose struct cannot take the fence (-EFAULT) starts nothing.
 */
int ipu_ioctl_launch(struct ipu_file *ifile, void *data)
{
	struct ipu_launch_call *call = data;
	struct ipu_launch *args = &call->args;
	struct ipu_launch_req *req;
	u32 fence;
	int ret;

	if (args->fence)
		return -EINVAL;
	if (!ipu_launch_slot_get(ifile))
		return -EAGAIN;
	req = ipu_launch_alloc(ifile->idev, NULL, NULL, GFP_KERNEL_ACCOUNT);
	if (!req) {
		ret = -ENOMEM;
		goto err_slot;
	}
	ret = ipu_launch_prepare(ifile, args, req);
	if (ret)
		goto err_put;
	/* A reserved (NULL) entry: WAIT finds nothing until the commit. */
	ret = xa_alloc(&ifile->fences, &fence, NULL,
		       XA_LIMIT(1, IPU_MAX_LAUNCHES), GFP_KERNEL_ACCOUNT);
	if (ret) {
		ret = ret == -EBUSY ? -EAGAIN : ret;
		goto err_put;
	}
	args->fence = fence;
	call->req = req;
	return 0;

err_put:
	ipu_launch_put(req);
err_slot:
	ipu_launch_slot_put(ifile);
	return ret;
}

/**
 * ipu_ioctl_launch_undo - the fence could not be copied out: start nothing
 * @ifile: the file
 * @data: the call, after a successful ipu_ioctl_launch()
 */
void ipu_ioctl_launch_undo(struct ipu_file *ifile, void *data)
{
	struct ipu_launch_call *call = data;

	xa_release(&ifile->fences, call->args.fence);
	ipu_launch_put(call->req);
	ipu_launch_slot_put(ifile);
}

/**
 * ipu_ioctl_launch_commit - push a launch whose fence the caller has
 * @ifile: the file
 * @data: the call, after a successful ipu_ioctl_launch()
 *
 * Return: 0; -EUNATCH, -ENODEV from ipu_launch_push(), and then the fence
 * is void.
 */
int ipu_ioctl_launch_commit(struct ipu_file *ifile, void *data)
{
	struct ipu_launch_call *call = data;
	int ret;

	ret = ipu_launch_push(call->req);
	if (ret) {
		ipu_ioctl_launch_undo(ifile, data);
		return ret;
	}
	/* The submitter's reference now belongs to the fence. Storing into a
	 * reserved entry allocates nothing, so it cannot fail.
	 */
	xa_store(&ifile->fences, call->args.fence, call->req, GFP_KERNEL);
	return 0;
}

/*
 * WAIT in two steps around the dispatcher's copy-out, like LAUNCH: the
 * handler reads the status and keeps a reference to the launch; only once
 * the status reached the caller does the commit consume the fence. A
 * caller whose struct cannot take the status (-EFAULT) keeps its fence, so
 * no completion is lost.
 */
int ipu_ioctl_wait(struct ipu_file *ifile, void *data)
{
	struct ipu_wait_call *call = data;
	struct ipu_wait *args = &call->args;
	struct ipu_launch_req *req;
	long left = 0;

	if (args->flags & ~IPU_WAIT_FLAGS_ALL || args->status)
		return -EINVAL;

	/* Unknown, reserved, consumed or out of range: -ENOENT alike. */
	xa_lock(&ifile->fences);
	req = args->fence <= IPU_MAX_LAUNCHES ?
	      xa_load(&ifile->fences, args->fence) : NULL;
	if (req)
		kref_get(&req->ref);
	xa_unlock(&ifile->fences);
	if (!req)
		return -ENOENT;

	if (args->timeout_ns > 0) {
		s64 ns = args->timeout_ns - ktime_get_ns();

		left = ns > 0 ? nsecs_to_jiffies(ns) : 0;
	}
	if (!completion_done(&req->completion)) {
		left = left ? wait_for_completion_interruptible_timeout(&req->completion,
									left) : 0;
		if (left <= 0) {
			ipu_launch_put(req);
			/* Absolute timeouts make restarting safe. */
			return left < 0 ? -ERESTARTSYS : -ETIME;
		}
	}

	args->status = req->status;
	call->req = req; /* our reference, until commit or undo */
	return 0;
}

/**
 * ipu_ioctl_wait_commit - the caller has the status: consume the fence
 * @ifile: the file
 * @data: the call, after a successful ipu_ioctl_wait()
 *
 * Return: 0. (Two WAITs of one fence may both deliver its status; one
 * consumes it.)
 */
int ipu_ioctl_wait_commit(struct ipu_file *ifile, void *data)
{
	struct ipu_wait_call *call = data;
	struct ipu_launch_req *req = call->req;

	if (xa_cmpxchg(&ifile->fences, call->args.fence, req, NULL,
		       GFP_KERNEL) == req) {
		ipu_launch_put(req); /* the fence's */
		ipu_launch_slot_put(ifile);
	}
	ipu_launch_put(req);
	return 0;
}

/**
 * ipu_ioctl_wait_undo - the status could not be copied out: keep the fence
 * @ifile: the file
 * @data: the call, after a successful ipu_ioctl_wait()
 */
void ipu_ioctl_wait_undo(struct ipu_file *ifile, void *data)
{
	struct ipu_wait_call *call = data;

	ipu_launch_put(call->req);
}

/**
 * ipu_launch_release_fences - drop the fences of a file being closed
 * @ifile: the file
 *
 * Launches in flight go on; their buffers stay referenced until they end.
 */
void ipu_launch_release_fences(struct ipu_file *ifile)
{
	struct ipu_launch_req *req;
	unsigned long fence;

	xa_for_each(&ifile->fences, fence, req) {
		xa_erase(&ifile->fences, fence);
		ipu_launch_put(req);
		ipu_launch_slot_put(ifile);
	}
}

/* What wakes a firmware waiting in FW_NEXT. */
static bool ipu_fw_has_news(struct ipu_launch_queue *lq, struct ipu_file *ifile)
{
	return !list_empty_careful(&lq->pending) ||
	       READ_ONCE(lq->fw_file) != ifile ||
	       READ_ONCE(lq_to_idev(lq)->unplugged);
}

/**
 * ipu_fw_next - give the firmware the next launch, waiting for one
 * @ifile: the firmware's file
 * @work: in: the timeout; out: the launch
 * @taken: on success, the launch, referenced: the caller either drops the
 *	reference once the firmware learnt of the launch, or hands it to
 *	ipu_fw_next_untake() when it could not tell the firmware
 *
 * Return: 0; -ENOLINK when @ifile is not (or no longer) the firmware;
 * -ETIME when the timeout passed; -ERESTARTSYS on a signal; -ENODEV after
 * unplug.
 */
int ipu_fw_next(struct ipu_file *ifile, struct ipu_fw_work *work,
		struct ipu_launch_req **taken)
{
	struct ipu_device *idev = ifile->idev;
	struct ipu_launch_queue *lq = &idev->launches;
	struct ipu_launch_req *req;
	long left;

	for (;;) {
		if (READ_ONCE(idev->unplugged))
			return -ENODEV;
		spin_lock(&lq->lock);
		if (lq->fw_file != ifile) {
			spin_unlock(&lq->lock);
			return -ENOLINK;
		}
		req = list_first_entry_or_null(&lq->pending,
					       struct ipu_launch_req, node);
		if (req) {
			list_move_tail(&req->node, &lq->running);
			req->start_ns = ktime_get_ns();
			req->deadline = ipu_launch_deadline();
			trace_ipu_launch_start(req);
			work->id = req->id;
			work->exe_offset = ipu_bo_dev_off(req->exe_bo);
			work->exe_size = req->exe_size;
			work->arena_offset = ipu_bo_dev_off(req->arena_bo) +
					     req->arena_offset;
			work->arena_size = req->arena_size;
			work->replica = req->replica;
			work->num_replicas = req->num_replicas;
			work->group = req->group;
			work->pid = req->pid;
			if (req->profile_bo) {
				work->profile_offset =
					ipu_bo_dev_off(req->profile_bo);
				work->profile_size = req->profile_bo->size;
			}
			kref_get(&req->ref);
			spin_unlock(&lq->lock);
			*taken = req;
			return 0;
		}
		spin_unlock(&lq->lock);

		left = 0;
		if (work->timeout_ns > 0) {
			s64 ns = work->timeout_ns - ktime_get_ns();

			left = ns > 0 ? nsecs_to_jiffies(ns) : 0;
		}
		if (!left)
			return -ETIME;
		left = wait_event_interruptible_timeout(lq->fw_wq,
							ipu_fw_has_news(lq, ifile),
							left);
		if (left < 0)
			return -ERESTARTSYS;
	}
}

/**
 * ipu_fw_next_untake - the firmware could not learn of a launch it took
 * @req: from ipu_fw_next(), with the reference it returned (dropped here)
 *
 * FW_NEXT's struct could not be copied out: unless the launch completed
 * meanwhile (a reset, the watchdog), it goes back to the head of the
 * pending list, so the firmware's next FW_NEXT hands it out again instead
 * of it running out its deadline unseen and resetting the device.
 */
void ipu_fw_next_untake(struct ipu_launch_req *req)
{
	struct ipu_launch_queue *lq = &req->idev->launches;
	bool requeued = false;

	spin_lock(&lq->lock);
	if (!req->done) {
		/* Not done: it is on the running list, where FW_NEXT put it. */
		list_move(&req->node, &lq->pending);
		req->start_ns = 0;
		requeued = true;
	}
	spin_unlock(&lq->lock);
	if (requeued)
		wake_up(&lq->fw_wq);
	ipu_launch_put(req);
}

/**
 * ipu_fw_done - the firmware reports a launch's result
 * @ifile: the firmware's file
 * @id: the launch
 * @status: 0 or a negative errno
 *
 * Return: 0; -ENOLINK when @ifile is not the firmware; -ENOENT when no
 * launch @id is running (it may have timed out).
 */
int ipu_fw_done(struct ipu_file *ifile, u64 id, int status)
{
	struct ipu_launch_queue *lq = &ifile->idev->launches;
	struct ipu_launch_req *req, *found = NULL;
	int ret = -ENOENT;

	spin_lock(&lq->lock);
	if (lq->fw_file != ifile) {
		ret = -ENOLINK;
	} else {
		list_for_each_entry(req, &lq->running, node) {
			if (req->id == id) {
				found = req;
				ipu_launch_finish_locked(req, status);
				ret = 0;
				break;
			}
		}
	}
	spin_unlock(&lq->lock);
	if (found)
		ipu_launch_signal(found, true);
	return ret;
}
