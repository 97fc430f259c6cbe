// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * xfer.c - synchronous transfers between host memory and buffer objects.
 *
 * ipu_xfer_run() is a queue's linked batch waited for: its descriptors
 * become IPU_CMD_XFER commands, each linked to the next, submitted to the
 * device's queue for synchronous calls and reaped. A chain stops at its
 * first failure as ipu_xfer_run() must, and every backend's transfers take
 * one path whether synchronous or queued.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "backend.h"
#include "internal.h"

static const char *dir_name(uint32_t dir)
{
	return dir == IPU_XFER_DIR_TO_DEVICE ? "to device" : "from device";
}

static int xfer_failed(struct ipu_device *dev, const struct ipu_xfer_desc *d,
		       size_t i, int err)
{
	if (err == -EACCES)
		return ipu_err(err, "%s: transfer %zu: attach the device first",
			       dev->name, i);
	return ipu_err(err,
		       "%s: transfer %zu (%s): %llu bytes at offset %llu of buffer object %u",
		       dev->name, i, dir_name(d->dir),
		       (unsigned long long)d->length,
		       (unsigned long long)d->bo_offset, d->bo->handle);
}

/*
 * Run @descs[@start, @start + @n) as one chain on @q (@cmds and @cqes have
 * room for @n). Returns 0, or the first failure, with its index in *@bad.
 */
static int run_chain(struct ipu_queue *q, const struct ipu_xfer_desc *descs,
		     size_t start, size_t n, struct ipu_cmd *cmds,
		     struct ipu_completion *cqes, size_t *bad)
{
	/* The chain's completions, waited for as it is submitted. */
	struct ipu_submit_wait wait = { .want = n };
	size_t k, got;
	int err, ret = 0;
	char why[256];

	for (k = 0; k < n; k++) {
		ipu_cmd_prep_xfer(&cmds[k], &descs[start + k], start + k);
		cmds[k].flags = IPU_CMD_F_LINK;
	}
	err = ipu_queue_push(q, cmds, n, &wait, why, sizeof(why));
	if (err) {
		*bad = start;
		return err;
	}
	for (got = 0; got < n; got += err) {
		err = ipu_queue_pop(q, cqes, n - got, n - got, -1);
		if (err < 0) /* cannot happen: the commands are in flight */
			return err;
		/* The chain's first failure is the one with the lowest index;
		 * those after it are cancellations. */
		for (k = 0; k < (size_t)err; k++) {
			if (cqes[k].result && (!ret || cqes[k].user_data < *bad)) {
				ret = cqes[k].result;
				*bad = cqes[k].user_data;
			}
		}
	}
	return ret;
}

int ipu_xfer_run(struct ipu_device *dev, const struct ipu_xfer_desc *descs,
		 size_t count, size_t *done)
{
	IPU_KEEP_ERRNO();
	struct ipu_completion *cqes = NULL;
	struct ipu_cmd *cmds = NULL;
	struct ipu_queue *q;
	size_t i, n, bad = 0;
	int err;

	if (done)
		*done = 0;
	if (!dev || !descs)
		return ipu_err(-EINVAL, "ipu_xfer_run: %s is NULL",
			       dev ? "descs" : "dev");
	if (count == 0)
		return ipu_err(-EINVAL, "%s: no transfers", dev->name);
	for (i = 0; i < count; i++) {
		if (descs[i].bo && descs[i].bo->dev != dev)
			return ipu_err(-EINVAL, "%s: transfer %zu: buffer object %u belongs to %s",
				       dev->name, i, descs[i].bo->handle,
				       descs[i].bo->dev->name);
		err = ipu_xfer_check(&descs[i], dev->name, "transfer", i);
		if (err)
			return err;
	}

	pthread_mutex_lock(&dev->sync_lock);
	err = ipu_device_sync_queue(dev, &q);
	if (err)
		goto err_setup;
	n = count < q->entries ? count : q->entries;
	cmds = malloc(n * sizeof(*cmds));
	cqes = malloc(n * sizeof(*cqes));
	if (!cmds || !cqes) {
		err = -ENOMEM;
		goto err_setup;
	}
	/* More descriptors than the queue holds: chains one after the other,
	 * each only once the one before it succeeded. */
	for (i = 0; i < count; i += n) {
		if (n > count - i)
			n = count - i;
		err = run_chain(q, descs, i, n, cmds, cqes, &bad);
		if (err)
			break;
		if (done)
			*done = i + n;
	}
	pthread_mutex_unlock(&dev->sync_lock);
	free(cmds);
	free(cqes);
	if (err) {
		if (done)
			*done = bad;
		return xfer_failed(dev, &descs[bad], bad, err);
	}
	return 0;

err_setup:
	pthread_mutex_unlock(&dev->sync_lock);
	free(cmds);
	free(cqes);
	return ipu_err(err, "%s: setting up %zu transfers", dev->name, count);
}

static int xfer_one(const char *fn, struct ipu_bo *bo, uint64_t bo_offset,
		    void *host, uint64_t length, uint32_t dir)
{
	struct ipu_xfer_desc d = {
		.bo = bo,
		.bo_offset = bo_offset,
		.host = host,
		.length = length,
		.dir = dir,
	};

	if (!bo)
		return ipu_err(-EINVAL, "%s: bo is NULL", fn);
	return ipu_xfer_run(bo->dev, &d, 1, NULL);
}

int ipu_xfer_to_device(struct ipu_bo *bo, uint64_t bo_offset, const void *src,
		       uint64_t length)
{
	IPU_KEEP_ERRNO();

	/* The descriptor's host pointer is read-only for this direction. */
	return xfer_one("ipu_xfer_to_device", bo, bo_offset, (void *)src,
			length, IPU_XFER_DIR_TO_DEVICE);
}

int ipu_xfer_from_device(struct ipu_bo *bo, uint64_t bo_offset, void *dst,
			 uint64_t length)
{
	IPU_KEEP_ERRNO();

	return xfer_one("ipu_xfer_from_device", bo, bo_offset, dst, length,
			IPU_XFER_DIR_FROM_DEVICE);
}
