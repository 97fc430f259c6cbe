// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * xfer.c - transfers between host memory and buffer objects.
 *
 * ipu_xfer_run() takes the descriptors that a transfer queue will take
 * (io_uring, later): it checks them all, then runs them one by one through
 * the backend's synchronous transfer.
 */
#include <errno.h>
#include <stddef.h>

#include "backend.h"
#include "internal.h"

#define IPU_XFER_DESC_FLAGS_ALL 0u

static const char *dir_name(uint32_t dir)
{
	return dir == IPU_XFER_DIR_TO_DEVICE ? "to device" : "from device";
}

static int check_desc(struct ipu_device *dev, const struct ipu_xfer_desc *d,
		      size_t i)
{
	const struct ipu_bo *bo = d->bo;

	if (!bo)
		return ipu_err(-EINVAL, "%s: transfer %zu: bo is NULL", dev->name, i);
	if (bo->dev != dev)
		return ipu_err(-EINVAL, "%s: transfer %zu: buffer object %u belongs to %s",
			       dev->name, i, bo->handle, bo->dev->name);
	if (d->dir != IPU_XFER_DIR_TO_DEVICE && d->dir != IPU_XFER_DIR_FROM_DEVICE)
		return ipu_err(-EINVAL, "%s: transfer %zu: unknown direction %u",
			       dev->name, i, d->dir);
	if (d->flags & ~IPU_XFER_DESC_FLAGS_ALL)
		return ipu_err(-EINVAL, "%s: transfer %zu: unknown flags 0x%x",
			       dev->name, i, d->flags);
	if (!d->host)
		return ipu_err(-EINVAL, "%s: transfer %zu: host buffer is NULL",
			       dev->name, i);
	if (d->length == 0)
		return ipu_err(-EINVAL, "%s: transfer %zu: length 0", dev->name, i);
	if (d->bo_offset > bo->size || d->length > bo->size - d->bo_offset)
		return ipu_err(-EINVAL,
			       "%s: transfer %zu (%s): %llu bytes at offset %llu pass the end of buffer object %u (%llu bytes)",
			       dev->name, i, dir_name(d->dir),
			       (unsigned long long)d->length,
			       (unsigned long long)d->bo_offset, bo->handle,
			       (unsigned long long)bo->size);
	return 0;
}

int ipu_xfer_run(struct ipu_device *dev, const struct ipu_xfer_desc *descs,
		 size_t count, size_t *done)
{
	IPU_KEEP_ERRNO();
	const struct ipu_xfer_desc *d;
	size_t i;
	int err;

	if (done)
		*done = 0;
	if (!dev || !descs)
		return ipu_err(-EINVAL, "ipu_xfer_run: %s is NULL",
			       dev ? "descs" : "dev");
	if (count == 0)
		return ipu_err(-EINVAL, "%s: no transfers", dev->name);
	for (i = 0; i < count; i++) {
		err = check_desc(dev, &descs[i], i);
		if (err)
			return err;
	}
	for (i = 0; i < count; i++) {
		d = &descs[i];
		err = dev->ops->xfer(dev, d);
		if (err) {
			if (err == -EACCES)
				return ipu_err(err, "%s: transfer %zu: attach the device first",
					       dev->name, i);
			return ipu_err(err,
				       "%s: transfer %zu (%s): %llu bytes at offset %llu of buffer object %u",
				       dev->name, i, dir_name(d->dir),
				       (unsigned long long)d->length,
				       (unsigned long long)d->bo_offset,
				       d->bo->handle);
		}
		if (done)
			*done = i + 1;
	}
	return 0;
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
