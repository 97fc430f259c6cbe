// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * gather.c - gather requests of split launches (include/ipu/ipu.h,
 * "Gather requests"; docs/instances.md): the device asks the host for the
 * other instances' parts of a gather, the host answers.
 *
 * The front end checks the arguments, turns the request's staging handle
 * back into the caller's struct ipu_bo and names the device in every
 * message. The backend talks to the device (the kernel backend:
 * IPU_IOCTL_GATHER_NEXT / GATHER_ANSWER and the file's poll).
 */
#include <errno.h>
#include <string.h>

#include "backend.h"
#include "internal.h"

#define IPU_GATHER_REQUEST_SZ_V1 sizeof(struct ipu_gather_request)

static int no_gather(const struct ipu_device *dev, const char *what)
{
	return ipu_err(-EOPNOTSUPP,
		       "%s: %s: the device posts no gather requests (only PCIe IPUs do: the model and the simulated IPUs gather through the process's instances)",
		       dev->name, what);
}

int ipu_gather_fd(struct ipu_device *dev)
{
	IPU_KEEP_ERRNO();
	int fd;

	if (!dev)
		return ipu_err(-EINVAL, "ipu_gather_fd: dev is NULL");
	if (!dev->ops->gather_fd)
		return no_gather(dev, "gather fd");
	fd = dev->ops->gather_fd(dev);
	if (fd == -EOPNOTSUPP)
		return no_gather(dev, "gather fd");
	if (fd < 0)
		return ipu_err(fd, "%s: gather fd", dev->name);
	return fd;
}

/* The live buffer object of @dev whose handle is @handle, or NULL. */
static struct ipu_bo *bo_of_handle(struct ipu_device *dev, uint32_t handle)
{
	struct ipu_bo *bo;

	pthread_mutex_lock(&dev->lock);
	for (bo = dev->bos; bo && bo->handle != handle; bo = bo->next)
		;
	pthread_mutex_unlock(&dev->lock);
	return bo;
}

int ipu_gather_next(struct ipu_device *dev, struct ipu_gather_request *req)
{
	IPU_KEEP_ERRNO();
	struct ipu_gather_request full;
	int err;

	if (!dev || !req)
		return ipu_err(-EINVAL, "ipu_gather_next: %s is NULL",
			       dev ? "req" : "dev");
	if (req->sz < IPU_GATHER_REQUEST_SZ_V1)
		return ipu_err(-EINVAL, "%s: ipu_gather_request of %zu bytes, at least %zu needed",
			       dev->name, req->sz, IPU_GATHER_REQUEST_SZ_V1);
	if (!dev->ops->gather_next)
		return no_gather(dev, "taking a gather request");
	memset(&full, 0, sizeof(full));
	full.sz = sizeof(full);
	err = dev->ops->gather_next(dev, &full);
	if (err == -EAGAIN)
		return ipu_err(err, "%s: taking a gather request: none waits (poll ipu_gather_fd())",
			       dev->name);
	if (err == -EOPNOTSUPP)
		return no_gather(dev, "taking a gather request");
	if (err)
		return ipu_err(err, "%s: taking a gather request", dev->name);
	full.staging_bo = bo_of_handle(dev, full.staging_handle);
	return ipu_out_copy(req, req->sz, &full, IPU_GATHER_REQUEST_SZ_V1,
			    sizeof(full));
}

int ipu_gather_answer(struct ipu_device *dev, uint64_t token, int status)
{
	IPU_KEEP_ERRNO();
	int err;

	if (!dev)
		return ipu_err(-EINVAL, "ipu_gather_answer: dev is NULL");
	if (!token)
		return ipu_err(-EINVAL, "%s: answering a gather request: token 0 names none",
			       dev->name);
	if (status > 0 || status < -IPU_GATHER_MAX_ERRNO)
		return ipu_err(-EINVAL, "%s: answering gather request %llu: status %d is neither 0 nor a negative errno from -1 to -%d",
			       dev->name, (unsigned long long)token, status,
			       IPU_GATHER_MAX_ERRNO);
	if (!dev->ops->gather_answer)
		return no_gather(dev, "answering a gather request");
	err = dev->ops->gather_answer(dev, token, status);
	if (err == -ENOENT)
		return ipu_err(err, "%s: answering gather request %llu: no such request waits (answered already, not this handle's, or forgotten by a reset or the end of its launch)",
			       dev->name, (unsigned long long)token);
	if (err == -EOPNOTSUPP)
		return no_gather(dev, "answering a gather request");
	if (err)
		return ipu_err(err, "%s: answering gather request %llu",
			       dev->name, (unsigned long long)token);
	return 0;
}
