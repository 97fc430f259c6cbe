// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * device.c - one simulated IPU served by ipu-simd.
 *
 * Opening a device makes ipu-simd its firmware: FW_ATTACH on the device
 * file, then an mmap() of the whole device memory at offset 0, which is
 * where every launch's executable and arenas are (FW_NEXT gives device
 * memory offsets). A thread per device then loops on FW_NEXT, with a
 * timeout so that it notices when the daemon stops, and hands each launch
 * to run.c.
 *
 * What the kernel can say to FW_NEXT, and what the thread does:
 *  -ETIME, -EINTR  nothing came (or the main thread kicked us): loop;
 *  -ENOLINK        the firmware was revoked (the device was reset): the
 *                  old mapping is retired (guard.c) so a program still
 *                  running writes into scratch memory, then the thread
 *                  attaches and maps again;
 *  -ENODEV         the device was removed: the thread ends, and the main
 *                  thread drops the device.
 * The file stays open as long as the device is served, so its descriptor
 * is never reused under a launch that still has to report to it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "simd.h"

static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

void simd_map_get(struct simd_map *map)
{
	__atomic_add_fetch(&map->refs, 1, __ATOMIC_RELAXED);
}

void simd_map_put(struct simd_map *map)
{
	if (!map || __atomic_sub_fetch(&map->refs, 1, __ATOMIC_ACQ_REL))
		return;
	/* Nobody touches it any more: the guard can let go of the range. */
	simd_guard_del(map->guard);
	munmap(map->base, map->len);
	free(map);
}

void simd_dev_get(struct simd_dev *dev)
{
	__atomic_add_fetch(&dev->refs, 1, __ATOMIC_RELAXED);
}

void simd_dev_put(struct simd_dev *dev)
{
	if (!dev || __atomic_sub_fetch(&dev->refs, 1, __ATOMIC_ACQ_REL))
		return;
	simd_map_put(dev->map);
	/* Closing the firmware's file detaches it in the kernel. */
	close(dev->fd);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

/* Resets that may revoke us between FW_ATTACH and mmap() in a row. */
#define ATTACH_TRIES 16

/* FW_ATTACH and a fresh mapping of the whole device memory. */
static int attach(struct simd_dev *dev)
{
	struct ipu_fw_attach arg;
	struct simd_map *map;
	void *p = MAP_FAILED;
	int err = 0, i;

	map = calloc(1, sizeof(*map));
	if (!map)
		return -ENOMEM;
	for (i = 0; i < ATTACH_TRIES && p == MAP_FAILED; i++) {
		memset(&arg, 0, sizeof(arg));
		err = xioctl(dev->fd, IPU_IOCTL_FW_ATTACH, &arg);
		if (err && err != -EALREADY)
			break;
		p = mmap(NULL, dev->mem_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, dev->fd, IPU_FW_MMAP_OFFSET);
		/* -EINVAL: a reset revoked us again in between; attach anew. */
		err = p == MAP_FAILED ? -errno : 0;
		if (err != -EINVAL)
			break;
	}
	if (p == MAP_FAILED) {
		free(map);
		return err;
	}
	map->base = p;
	map->len = dev->mem_size;
	map->refs = 1;
	map->guard = simd_guard_add(p, map->len);
	if (map->guard < 0) {
		munmap(p, map->len);
		free(map);
		return -ENOSPC;
	}
	pthread_mutex_lock(&dev->lock);
	dev->map = map;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

/*
 * The kernel revoked us (or the device is going): make the mapping
 * scratch memory for whoever still runs over it, and drop the device's
 * reference. Launches in flight keep theirs until they report.
 */
static void retire(struct simd_dev *dev)
{
	struct simd_map *map;

	pthread_mutex_lock(&dev->lock);
	map = dev->map;
	dev->map = NULL;
	pthread_mutex_unlock(&dev->lock);
	if (!map)
		return;
	simd_guard_retire(map->guard);
	simd_map_put(map);
}

static int64_t deadline_ns(unsigned int ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec +
	       (int64_t)ms * 1000000;
}

/* Attach again after a revoke; false when the device is gone for good. */
static bool reattach(struct simd_dev *dev)
{
	struct timespec pause = { .tv_nsec = 100 * 1000000 };
	bool said = false;
	int err;

	retire(dev);
	while (!simd_stopping()) {
		err = attach(dev);
		if (!err) {
			simd_info("%s: firmware revoked (device reset): attached again",
				  dev->name);
			return true;
		}
		if (err == -ENODEV)
			return false;
		/* Another firmware took the device meanwhile, or no memory:
		 * try again in a while, saying so once. */
		if (!said)
			simd_info("%s: attaching again failed: %s; retrying",
				  dev->name, strerror(-err));
		said = true;
		nanosleep(&pause, NULL);
	}
	return false;
}

static void *dev_main(void *arg)
{
	struct simd_dev *dev = arg;
	struct simd_launch l;
	int err;

	while (!simd_stopping()) {
		memset(&l, 0, sizeof(l));
		l.work.timeout_ns = deadline_ns(SIMD_NEXT_WAIT_MS);
		err = xioctl(dev->fd, IPU_IOCTL_FW_NEXT, &l.work);
		if (!err) {
			pthread_mutex_lock(&dev->lock);
			l.map = dev->map;
			simd_map_get(l.map);
			pthread_mutex_unlock(&dev->lock);
			l.dev = dev;
			simd_dev_get(dev);
			simd_debug("%s: launch %llu: pid %u, replica %u of %u, group %llu",
				   dev->name, (unsigned long long)l.work.id,
				   l.work.pid, l.work.replica,
				   l.work.num_replicas,
				   (unsigned long long)l.work.group);
			simd_run_launch(&l);
			continue;
		}
		if (err == -ETIME || err == -EINTR)
			continue;
		if (err == -ENOLINK) {
			if (reattach(dev))
				continue;
			break;
		}
		if (err == -ENODEV)
			simd_info("%s: removed; no longer served", dev->name);
		else
			simd_info("%s: FW_NEXT: %s; no longer served", dev->name,
				  strerror(-err));
		break;
	}
	if (!simd_stopping())
		retire(dev);
	__atomic_store_n(&dev->done, true, __ATOMIC_RELEASE);
	return NULL;
}

int simd_dev_open(unsigned int index, struct simd_dev **devp)
{
	struct ipu_info info;
	struct simd_dev *dev;
	char path[64];
	int err;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->refs = 1;
	dev->index = index;
	snprintf(dev->name, sizeof(dev->name), "ipu%u", index);
	pthread_mutex_init(&dev->lock, NULL);
	snprintf(path, sizeof(path), "/dev/ipu%u", index);
	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		err = -errno;
		goto err_free;
	}
	memset(&info, 0, sizeof(info));
	err = xioctl(dev->fd, IPU_IOCTL_GET_INFO, &info);
	if (err)
		goto err_close;
	if (!(info.features & IPU_FEATURE_FW_SIM)) {
		err = -EOPNOTSUPP;
		goto err_close;
	}
	if (!info.memory_total || info.memory_total > SIZE_MAX) {
		err = -EOVERFLOW;
		goto err_close;
	}
	dev->mem_size = info.memory_total;
	err = attach(dev);
	if (err)
		goto err_close;
	err = -pthread_create(&dev->thread, NULL, dev_main, dev);
	if (err)
		goto err_close;
	dev->started = true;
	*devp = dev;
	return 0;

err_close:
	/* The mapping, if any, goes with the device. */
	simd_dev_put(dev);
	return err;
err_free:
	pthread_mutex_destroy(&dev->lock);
	free(dev);
	return err;
}

void simd_dev_kick(struct simd_dev *dev)
{
	if (dev->started && !__atomic_load_n(&dev->done, __ATOMIC_ACQUIRE))
		pthread_kill(dev->thread, SIGUSR1);
}

void simd_dev_join(struct simd_dev *dev)
{
	if (dev->started) {
		pthread_join(dev->thread, NULL);
		dev->started = false;
	}
}

void simd_launch_done(struct simd_launch *l, int status)
{
	struct ipu_fw_done arg;
	int err;

	memset(&arg, 0, sizeof(arg));
	arg.id = l->work.id;
	arg.status = status;
	err = xioctl(l->dev->fd, IPU_IOCTL_FW_DONE, &arg);
	/* -ENOENT: the launch timed out meanwhile; -ENOLINK: we were revoked.
	 * Either way the kernel has failed it already. */
	if (err)
		simd_debug("%s: FW_DONE of launch %llu: %s", l->dev->name,
			   (unsigned long long)l->work.id, strerror(-err));
	simd_map_put(l->map);
	simd_dev_put(l->dev);
	l->map = NULL;
	l->dev = NULL;
}
