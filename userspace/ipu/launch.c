// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * launch.c - ipu_launch(): one replica's program, waited for.
 *
 * Like ipu_xfer_run(), a command on the device's queue for synchronous
 * calls, so that it runs exactly as a queued launch does; the completion's
 * message (the firmware's words) becomes the thread's error message.
 */
#include <errno.h>

#include "backend.h"
#include "internal.h"

int ipu_launch(struct ipu_device *dev, const struct ipu_launch_desc *desc)
{
	IPU_KEEP_ERRNO();
	struct ipu_completion cqe;
	struct ipu_queue *q;
	/* The completion, waited for as the launch is submitted. */
	struct ipu_submit_wait wait = { .want = 1 };
	struct ipu_cmd cmd;
	char why[256] = "";
	int err;

	if (!dev || !desc)
		return ipu_err(-EINVAL, "ipu_launch: %s is NULL",
			       dev ? "desc" : "dev");
	if (desc->num_replicas != 1)
		return ipu_err(-EINVAL, "%s: ipu_launch() runs one replica, not %u: submit one launch per replica to a queue",
			       dev->name, desc->num_replicas);
	if (desc->arena_bo && desc->arena_bo->dev != dev)
		return ipu_err(-EINVAL, "%s: launch: the arena's buffer object %u belongs to %s",
			       dev->name, desc->arena_bo->handle,
			       desc->arena_bo->dev->name);
	ipu_cmd_prep_launch(&cmd, desc, 0);
	err = ipu_cmd_check_batch(dev->ops, &cmd, 1);
	if (err)
		return err;

	pthread_mutex_lock(&dev->sync_lock);
	err = ipu_device_sync_queue(dev, &q);
	if (!err)
		err = ipu_queue_push(q, &cmd, 1, &wait, why, sizeof(why));
	if (err) {
		pthread_mutex_unlock(&dev->sync_lock);
		if (why[0])
			return ipu_err(err, "%s: launch: %s", dev->name, why);
		return ipu_err(err, "%s: launch", dev->name);
	}
	ipu_queue_pop(q, &cqe, 1, 1, -1);
	/* The message lives in the queue until its next reap: copy it now. */
	if (cqe.result)
		ipu_err_raw(cqe.result, cqe.msg);
	pthread_mutex_unlock(&dev->sync_lock);
	return cqe.result;
}
