// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * backend_kernel.c - the "hw" backend: /dev/ipuN through ipu.ko's ioctls.
 *
 * Each call zeroes the UAPI struct, fills it, issues the ioctl (again on
 * EINTR) and returns -errno. Nothing here keeps state the kernel does not
 * have: the attachment and the handles belong to the open file.
 *
 * Queues are io_uring rings (backend_kernel_queue.c): transfers and
 * launches as IORING_OP_URING_CMD, one io_uring_enter() per batch. Where
 * io_uring is missing, batches run synchronously through k_xfer().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/ipu.h>

#include "backend.h"
#include "backend_kernel.h"
#include "internal.h"

/* The UAPI version this backend was written against. */
#define KERNEL_API_MIN 1

static int kfd(const struct ipu_device *dev)
{
	return kdev_of(dev)->fd;
}

static int kioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

static int k_get_info(int fd, struct ipu_info *info)
{
	memset(info, 0, sizeof(*info));
	return kioctl(fd, IPU_IOCTL_GET_INFO, info);
}

/*
 * IPU_HW_PLATFORM: the platform whose IPUs are listed ("sim": the
 * kernel's simulated IPUs, "pci": PCIe IPUs); unset or "": every IPU. It
 * chooses what "auto" and libsession's "ipu_hw" may take, on a machine
 * that has both kinds (a replicated run cannot span them). *@only is
 * NULL for every IPU; -EINVAL for another value.
 */
static const char *const k_platforms[] = { "sim", "pci" };

static int k_platform_filter(const char **only)
{
	const char *s = getenv("IPU_HW_PLATFORM");
	size_t i;

	*only = NULL;
	if (!s || !s[0])
		return 0;
	for (i = 0; i < sizeof(k_platforms) / sizeof(k_platforms[0]); i++) {
		if (!strcmp(s, k_platforms[i])) {
			*only = k_platforms[i];
			return 0;
		}
	}
	return -EINVAL;
}

static int k_enumerate(struct ipu_device_list *list)
{
	const char *only;
	int err = k_platform_filter(&only);

	return err ? err : ipu_sysfs_enumerate(list, "hw", only);
}

/*
 * What a user can do about the failures that are about the machine's
 * set-up rather than a device: a bad IPU_HW_PLATFORM (listing fails with
 * -EINVAL only for that), a node that is not theirs to open, or none at
 * all (no driver).
 */
static const char *k_open_error(int err)
{
	static __thread char hint[PATH_MAX + 160];
	const char *only;

	if (err == -EINVAL && k_platform_filter(&only))
		snprintf(hint, sizeof(hint),
			 "IPU_HW_PLATFORM=\"%.64s\": expected \"sim\" or \"pci\" (unset: every IPU)",
			 getenv("IPU_HW_PLATFORM"));
	else if (err == -EACCES || err == -EPERM)
		snprintf(hint, sizeof(hint),
			 "%s/ipu* belong to the group \"ipu\" (udev rule 70-ipu.rules): add the user to it (adduser USER ipu) and log in again",
			 ipu_dev_root());
	else if (err == -ENOENT)
		snprintf(hint, sizeof(hint),
			 "no such node in %s: is the driver loaded (modprobe ipu)?",
			 ipu_dev_root());
	else
		return NULL;
	return hint;
}

static int k_open(struct ipu_device *dev, unsigned int index)
{
	char path[PATH_MAX];
	struct ipu_info info;
	struct kdev *k;
	int fd, err;

	if (snprintf(path, sizeof(path), "%s/ipu%u", ipu_dev_root(), index) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	do {
		fd = open(path, O_RDWR | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		err = -errno;
		goto err_free;
	}
	/* Is it an IPU, and one that speaks our language? */
	err = k_get_info(fd, &info);
	if (err)
		goto err_close;
	if (info.api_version < KERNEL_API_MIN) {
		err = -EPROTO;
		goto err_close;
	}
	k->fd = fd;
	k->features = info.features;
	dev->priv = k;
	return 0;

err_close:
	close(fd);
err_free:
	free(k);
	return err;
}

static void k_close(struct ipu_device *dev)
{
	struct kdev *k = dev->priv;

	close(k->fd);
	free(k);
	dev->priv = NULL;
}

static unsigned int platform_from_uapi(__u32 platform)
{
	switch (platform) {
	case IPU_PLATFORM_SIM:
		return IPU_DEVICE_PLATFORM_SIM;
	case IPU_PLATFORM_PCI:
		return IPU_DEVICE_PLATFORM_PCI;
	default:
		return IPU_DEVICE_PLATFORM_UNKNOWN;
	}
}

static uint64_t caps_from_uapi(__u64 features)
{
	static const struct {
		__u64 feature;
		uint64_t cap;
	} map[] = {
		{ IPU_FEATURE_BO, IPU_DEVICE_CAP_BO },
		{ IPU_FEATURE_MMAP, IPU_DEVICE_CAP_MAP },
		{ IPU_FEATURE_XFER, IPU_DEVICE_CAP_XFER },
		{ IPU_FEATURE_RESET, IPU_DEVICE_CAP_RESET },
		{ IPU_FEATURE_HOTPLUG, IPU_DEVICE_CAP_HOTPLUG },
		/* Launches go through the io_uring queue. */
		{ IPU_FEATURE_LAUNCH | IPU_FEATURE_URING_CMD,
		  IPU_DEVICE_CAP_LAUNCH },
		/* Split launches too. */
		{ IPU_FEATURE_GATHER | IPU_FEATURE_LAUNCH |
			  IPU_FEATURE_URING_CMD,
		  IPU_DEVICE_CAP_GATHER },
		/* Op profiles: written into a buffer by the firmware, read
		 * back by the io_uring queue (backend_kernel_queue.c). */
		{ IPU_FEATURE_PROFILE | IPU_FEATURE_LAUNCH |
			  IPU_FEATURE_URING_CMD,
		  IPU_DEVICE_CAP_PROFILE },
	};
	uint64_t caps = 0;
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if ((features & map[i].feature) == map[i].feature)
			caps |= map[i].cap;
	return caps;
}

/*
 * The kernel's launch deadline, a module parameter (docs/sim-control.md)
 * that root may change at any time: read as it is now; 0 if unreadable.
 */
static uint32_t k_launch_timeout_ms(void)
{
	char dir[PATH_MAX];
	uint64_t v;

	if (snprintf(dir, sizeof(dir), "%s/module/ipu/parameters",
		     ipu_sysfs_root()) >= (int)sizeof(dir) ||
	    ipu_sysfs_read_u64(dir, "launch_timeout_ms", 10, &v) ||
	    v > UINT32_MAX)
		return 0;
	return (uint32_t)v;
}

static int k_query(struct ipu_device *dev, struct ipu_device_info *out)
{
	struct ipu_info info;
	int err;

	err = k_get_info(kfd(dev), &info);
	if (err)
		return err;
	out->api_version = info.api_version;
	out->platform = platform_from_uapi(info.platform);
	out->caps = caps_from_uapi(info.features);
	out->memory_total = info.memory_total;
	out->memory_used = info.memory_used;
	out->mem_page_size = info.mem_page_size;
	out->owner_pid = info.owner_pid;
	out->firmware_version = info.firmware_version;
	out->serial = info.serial;
	out->reset_count = info.reset_count;
	out->pci_domain = info.pci_domain;
	out->pci_bdf = info.pci_bdf;
	out->launch_timeout_ms = k_launch_timeout_ms();
	return 0;
}

static int k_attach(struct ipu_device *dev)
{
	struct ipu_attach arg;

	memset(&arg, 0, sizeof(arg));
	return kioctl(kfd(dev), IPU_IOCTL_ATTACH, &arg);
}

static int k_detach(struct ipu_device *dev)
{
	struct ipu_detach arg;

	memset(&arg, 0, sizeof(arg));
	return kioctl(kfd(dev), IPU_IOCTL_DETACH, &arg);
}

static int k_reset(struct ipu_device *dev)
{
	struct ipu_reset arg;

	memset(&arg, 0, sizeof(arg));
	return kioctl(kfd(dev), IPU_IOCTL_RESET, &arg);
}

static int k_bo_create(struct ipu_device *dev, struct ipu_bo *bo,
		       uint64_t size, uint32_t flags)
{
	struct ipu_bo_create arg;
	int err;

	(void)flags; /* no library flag maps to a kernel flag yet */
	memset(&arg, 0, sizeof(arg));
	arg.size = size;
	err = kioctl(kfd(dev), IPU_IOCTL_BO_CREATE, &arg);
	if (err)
		return err;
	bo->handle = arg.handle;
	bo->size = arg.size;
	bo->device_addr = arg.device_addr;
	bo->cookie = arg.mmap_offset;
	return 0;
}

static int k_bo_destroy(struct ipu_device *dev, struct ipu_bo *bo)
{
	struct ipu_bo_destroy arg;

	memset(&arg, 0, sizeof(arg));
	arg.handle = bo->handle;
	return kioctl(kfd(dev), IPU_IOCTL_BO_DESTROY, &arg);
}

static int k_bo_query(struct ipu_device *dev, struct ipu_bo *bo,
		      struct ipu_bo_props *props)
{
	struct ipu_bo_info arg;
	int err;

	memset(&arg, 0, sizeof(arg));
	arg.handle = bo->handle;
	err = kioctl(kfd(dev), IPU_IOCTL_BO_INFO, &arg);
	if (err)
		return err;
	props->handle = arg.handle;
	props->size = arg.size;
	props->device_addr = arg.device_addr;
	return 0;
}

static int k_bo_map(struct ipu_device *dev, struct ipu_bo *bo, void **ptrp)
{
	void *p;

	if (bo->size > SIZE_MAX || bo->cookie > (uint64_t)INT64_MAX)
		return -EOVERFLOW;
	p = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED, kfd(dev),
		 (off_t)bo->cookie);
	if (p == MAP_FAILED)
		return -errno;
	*ptrp = p;
	return 0;
}

static void k_bo_unmap(struct ipu_device *dev, struct ipu_bo *bo, void *ptr)
{
	(void)dev;
	munmap(ptr, bo->size);
}

static int k_xfer(struct ipu_device *dev, const struct ipu_xfer_desc *d)
{
	struct ipu_xfer arg;

	memset(&arg, 0, sizeof(arg));
	arg.user_ptr = (__u64)(uintptr_t)d->host;
	arg.bo_offset = d->bo_offset;
	arg.length = d->length;
	arg.handle = d->bo->handle;
	arg.flags = d->dir == IPU_XFER_DIR_TO_DEVICE ? IPU_XFER_TO_DEVICE :
						       IPU_XFER_FROM_DEVICE;
	return kioctl(kfd(dev), IPU_IOCTL_XFER, &arg);
}

/* The file polls readable while a request of its split launches waits. */
static int k_gather_fd(struct ipu_device *dev)
{
	const struct kdev *k = kdev_of(dev);

	return k->features & IPU_FEATURE_GATHER ? k->fd : -EOPNOTSUPP;
}

static int k_gather_next(struct ipu_device *dev,
			 struct ipu_gather_request *req)
{
	struct ipu_gather_next arg;
	int err;

	if (!(kdev_of(dev)->features & IPU_FEATURE_GATHER))
		return -EOPNOTSUPP;
	memset(&arg, 0, sizeof(arg));
	err = kioctl(kfd(dev), IPU_IOCTL_GATHER_NEXT, &arg);
	if (err)
		return err;
	req->token = arg.token;
	req->staging_offset = arg.staging_offset;
	req->bytes = arg.bytes;
	req->staging_handle = arg.staging_handle;
	req->replica = arg.replica;
	req->instance_index = arg.instance_index;
	req->instance_count = arg.instance_count;
	req->collective = arg.collective;
	return 0;
}

static int k_gather_answer(struct ipu_device *dev, uint64_t token, int status)
{
	struct ipu_gather_answer arg;

	if (!(kdev_of(dev)->features & IPU_FEATURE_GATHER))
		return -EOPNOTSUPP;
	memset(&arg, 0, sizeof(arg));
	arg.token = token;
	arg.status = status;
	return kioctl(kfd(dev), IPU_IOCTL_GATHER_ANSWER, &arg);
}

const struct ipu_backend_ops ipu_backend_kernel = {
	.prefix = "hw",
	.enumerate = k_enumerate,
	.open_error = k_open_error,
	.open = k_open,
	.close = k_close,
	.query = k_query,
	.attach = k_attach,
	.detach = k_detach,
	.reset = k_reset,
	.bo_create = k_bo_create,
	.bo_destroy = k_bo_destroy,
	.bo_query = k_bo_query,
	.bo_map = k_bo_map,
	.bo_unmap = k_bo_unmap,
	.xfer = k_xfer,
	.queue_create = kq_create,
	.queue_destroy = kq_destroy,
	.queue_submit = kq_submit,
	.queue_harvest = kq_harvest,
	.queue_register = kq_register,
	.gather_fd = k_gather_fd,
	.gather_next = k_gather_next,
	.gather_answer = k_gather_answer,
};
