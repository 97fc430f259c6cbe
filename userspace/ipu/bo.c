// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bo.c - buffer objects: device memory, its handle and its mapping.
 *
 * The device keeps a list of its live BOs so that ipu_device_close() can
 * destroy what the caller left (the kernel would free it with the file, the
 * model backend would not).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "internal.h"

#define IPU_BO_PROPS_SZ_V1 sizeof(struct ipu_bo_props)
#define IPU_BO_FLAGS_ALL 0u

static void bo_link(struct ipu_device *dev, struct ipu_bo *bo)
{
	pthread_mutex_lock(&dev->lock);
	bo->prev = NULL;
	bo->next = dev->bos;
	if (dev->bos)
		dev->bos->prev = bo;
	dev->bos = bo;
	pthread_mutex_unlock(&dev->lock);
}

/* Unlink @bo and take its mapping; returns the mapping (or NULL). */
static void *bo_unlink(struct ipu_device *dev, struct ipu_bo *bo)
{
	void *map;

	pthread_mutex_lock(&dev->lock);
	if (bo->prev)
		bo->prev->next = bo->next;
	else
		dev->bos = bo->next;
	if (bo->next)
		bo->next->prev = bo->prev;
	map = bo->map;
	bo->map = NULL;
	pthread_mutex_unlock(&dev->lock);
	return map;
}

int ipu_bo_create(struct ipu_device *dev, uint64_t size, uint32_t flags,
		  struct ipu_bo **bop)
{
	IPU_KEEP_ERRNO();
	struct ipu_bo *bo;
	int err;

	if (!dev || !bop)
		return ipu_err(-EINVAL, "ipu_bo_create: %s is NULL",
			       dev ? "bop" : "dev");
	*bop = NULL;
	if (size == 0)
		return ipu_err(-EINVAL, "%s: buffer object of 0 bytes", dev->name);
	if (flags & ~IPU_BO_FLAGS_ALL)
		return ipu_err(-EINVAL, "%s: buffer object: unknown flags 0x%x",
			       dev->name, flags & ~IPU_BO_FLAGS_ALL);

	/* Allocated first: nothing can fail once the device object exists. */
	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return ipu_err(-ENOMEM, "%s: buffer object of %llu bytes",
			       dev->name, (unsigned long long)size);
	bo->dev = dev;
	err = dev->ops->bo_create(dev, bo, size, flags);
	if (err) {
		free(bo);
		if (err == -EACCES)
			return ipu_err(err, "%s: buffer object of %llu bytes: attach the device first",
				       dev->name, (unsigned long long)size);
		return ipu_err(err, "%s: buffer object of %llu bytes",
			       dev->name, (unsigned long long)size);
	}
	bo_link(dev, bo);
	*bop = bo;
	return 0;
}

/* Unmap and drop @bo; does not record an error message. */
static int bo_release(struct ipu_bo *bo)
{
	struct ipu_device *dev = bo->dev;
	void *map;
	int err;

	map = bo_unlink(dev, bo);
	if (map)
		dev->ops->bo_unmap(dev, bo, map);
	err = dev->ops->bo_destroy(dev, bo);
	free(bo);
	return err;
}

int ipu_bo_destroy(struct ipu_bo *bo)
{
	IPU_KEEP_ERRNO();
	char name[sizeof(bo->dev->name)];
	uint32_t handle;
	int err;

	if (!bo)
		return ipu_err(-EINVAL, "ipu_bo_destroy: bo is NULL");
	memcpy(name, bo->dev->name, sizeof(name));
	handle = bo->handle;
	err = bo_release(bo);
	if (err)
		return ipu_err(err, "%s: destroying buffer object %u", name,
			       handle);
	return 0;
}

void ipu_bo_destroy_all(struct ipu_device *dev)
{
	while (dev->bos)
		bo_release(dev->bos);
}

uint64_t ipu_bo_size(const struct ipu_bo *bo)
{
	return bo ? bo->size : 0;
}

uint64_t ipu_bo_device_addr(const struct ipu_bo *bo)
{
	return bo ? bo->device_addr : 0;
}

uint32_t ipu_bo_handle(const struct ipu_bo *bo)
{
	return bo ? bo->handle : 0;
}

int ipu_bo_query(struct ipu_bo *bo, struct ipu_bo_props *props)
{
	IPU_KEEP_ERRNO();
	struct ipu_bo_props full;
	int err;

	if (!bo || !props)
		return ipu_err(-EINVAL, "ipu_bo_query: %s is NULL",
			       bo ? "props" : "bo");
	if (props->sz < IPU_BO_PROPS_SZ_V1)
		return ipu_err(-EINVAL, "%s: ipu_bo_props of %zu bytes, at least %zu needed",
			       bo->dev->name, props->sz, IPU_BO_PROPS_SZ_V1);
	memset(&full, 0, sizeof(full));
	full.sz = sizeof(full);
	err = bo->dev->ops->bo_query(bo->dev, bo, &full);
	if (err)
		return ipu_err(err, "%s: querying buffer object %u",
			       bo->dev->name, bo->handle);
	return ipu_out_copy(props, props->sz, &full, IPU_BO_PROPS_SZ_V1,
			    sizeof(full));
}

int ipu_bo_map(struct ipu_bo *bo, void **ptrp)
{
	IPU_KEEP_ERRNO();
	struct ipu_device *dev;
	void *ptr;
	int err = 0;

	if (!bo || !ptrp)
		return ipu_err(-EINVAL, "ipu_bo_map: %s is NULL",
			       bo ? "ptrp" : "bo");
	dev = bo->dev;
	if (!dev->ops->bo_map)
		return ipu_err(-EOPNOTSUPP, "%s: mapping buffer object %u",
			       dev->name, bo->handle);
	/* Under the lock so that two threads get one mapping. */
	pthread_mutex_lock(&dev->lock);
	if (!bo->map) {
		err = dev->ops->bo_map(dev, bo, &ptr);
		if (!err)
			bo->map = ptr;
	}
	ptr = bo->map;
	pthread_mutex_unlock(&dev->lock);
	if (err)
		return ipu_err(err, "%s: mapping buffer object %u (%llu bytes)",
			       dev->name, bo->handle,
			       (unsigned long long)bo->size);
	*ptrp = ptr;
	return 0;
}

int ipu_bo_unmap(struct ipu_bo *bo)
{
	IPU_KEEP_ERRNO();
	struct ipu_device *dev;
	void *map;

	if (!bo)
		return ipu_err(-EINVAL, "ipu_bo_unmap: bo is NULL");
	dev = bo->dev;
	pthread_mutex_lock(&dev->lock);
	map = bo->map;
	bo->map = NULL;
	pthread_mutex_unlock(&dev->lock);
	if (!map)
		return ipu_err(-EINVAL, "%s: buffer object %u is not mapped",
			       dev->name, bo->handle);
	dev->ops->bo_unmap(dev, bo, map);
	return 0;
}
