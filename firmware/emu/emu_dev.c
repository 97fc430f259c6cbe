// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev.c - one PCIe IPU of the device model: creation, its memory (a
 * memfd the transport shares with the client as BAR2), the regions, and
 * the entry points the transport calls (emu_dev.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "emu_internal.h"

uint64_t emu_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

uint64_t emu_now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

void emu_log(const struct emu_dev *dev, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ipu-emu: %s: %s\n", dev->name, line);
}

/* Errors a guest can provoke: at most LOG_BURST per LOG_WINDOW_MS in the
 * whole process, then one line saying how many were left out, so that a
 * hostile guest cannot flood the log. */
#define LOG_BURST	20
#define LOG_WINDOW_MS	10000

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void emu_log_limited(const struct emu_dev *dev, const char *fmt, ...)
{
	static uint64_t window_start;
	static unsigned int in_window, dropped;
	uint64_t now = emu_now_ms();
	unsigned int was_dropped = 0;
	char line[512];
	bool print;
	va_list ap;

	pthread_mutex_lock(&log_lock);
	if (now - window_start >= LOG_WINDOW_MS) {
		was_dropped = dropped;
		window_start = now;
		in_window = 0;
		dropped = 0;
	}
	print = in_window < LOG_BURST;
	if (print)
		in_window++;
	else
		dropped++;
	pthread_mutex_unlock(&log_lock);
	if (was_dropped)
		fprintf(stderr, "ipu-emu: %u messages left out\n", was_dropped);
	if (!print)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	emu_log(dev, "%s", line);
}

bool emu_mem_range_ok(const struct emu_dev *dev, uint64_t addr, uint64_t len)
{
	return len <= dev->mem_size && addr <= dev->mem_size - len;
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* A memfd of the BAR's size, sealed at it; -errno on failure. */
static int mem_fd_new(const struct emu_dev *dev)
{
	int fd, err;

	fd = memfd_create(dev->name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	/* The fd goes to the client: one that shrank the file would have
	 * every device access past the new end take SIGBUS. Its size is
	 * the BAR's for good (the transport asks the same of the client's
	 * memory, vfio_user_dma.c). */
	if (ftruncate(fd, (off_t)dev->mem_size) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static int mem_create(struct emu_dev *dev)
{
	void *p;

	dev->mem_fd = mem_fd_new(dev);
	if (dev->mem_fd < 0)
		return dev->mem_fd;
	p = mmap(NULL, dev->mem_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dev->mem_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	dev->mem = p;
	return 0;
}

/*
 * Device memory for the next client (emu_internal.h). A client that went
 * may keep its mapping of the old memfd (the fd was its own to map), so
 * punching holes in that file would not do: the next client's data would
 * land in pages the last one still maps. A new file is mapped over the
 * old one's pages at the same address (MAP_FIXED replaces a mapping in
 * one step), so a device thread that holds dev->mem never sees it
 * unmapped; the old file lives on only in the old client's mapping.
 */
int emu_mem_renew_locked(struct emu_dev *dev)
{
	int fd = mem_fd_new(dev);

	if (fd < 0)
		return fd;
	if (mmap(dev->mem, dev->mem_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(dev->mem_fd);
	dev->mem_fd = fd;
	return 0;
}

static void mem_destroy(struct emu_dev *dev)
{
	if (dev->mem)
		munmap(dev->mem, dev->mem_size);
	if (dev->mem_fd >= 0)
		close(dev->mem_fd);
}

int emu_dev_create(const struct emu_dev_opts *opts,
		   const struct emu_host_ops *host, struct emu_dev **out)
{
	pthread_condattr_t attr;
	struct emu_dev *dev;
	int err;

	if (!opts || !host || !out || !host->dma_read || !host->dma_write ||
	    !host->irq)
		return -EINVAL;
	if (!pow2(opts->mem_size) || opts->mem_size < IPU_MEM_MIN_SIZE ||
	    opts->mem_size > IPU_MEM_MAX_SIZE ||
	    opts->posted_window_us > EMU_POSTED_WINDOW_MAX_US)
		return -EINVAL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->opts = *opts;
	dev->opts.faults = NULL;
	dev->host = *host;
	dev->mem_size = opts->mem_size;
	dev->mem_fd = -1;
	snprintf(dev->name, sizeof(dev->name), "ipu%u", opts->index);
	pthread_mutex_init(&dev->lock, NULL);
	/* The posted thread waits on it until a deadline. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&dev->idle, &attr);
	pthread_condattr_destroy(&attr);
	emu_gather_init(dev);
	err = mem_create(dev);
	if (err)
		goto err_mem;
	dev->link_speed = IPU_LINK_MAX_SPEED;
	dev->link_width = IPU_LINK_MAX_WIDTH;
	emu_cfg_init(dev);
	pthread_mutex_lock(&dev->lock);
	emu_regs_reset_locked(dev);
	pthread_mutex_unlock(&dev->lock);
	err = emu_run_get();
	if (err)
		goto err_mem;
	err = emu_queues_start(dev);
	if (err)
		goto err_run;
	err = emu_posted_start(dev);
	if (err) {
		emu_dev_destroy(dev);
		return err;
	}
	if (opts->faults) {
		err = emu_dev_fault(dev, opts->faults);
		if (err) {
			emu_dev_destroy(dev);
			return err;
		}
	}
	*out = dev;
	return 0;

err_run:
	emu_run_put();
err_mem:
	mem_destroy(dev);
	emu_gather_destroy(dev);
	pthread_cond_destroy(&dev->idle);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
	return err;
}

void emu_dev_destroy(struct emu_dev *dev)
{
	if (!dev)
		return;
	emu_posted_stop(dev);
	emu_queues_stop(dev);
	emu_run_put();
	mem_destroy(dev);
	emu_gather_destroy(dev);
	pthread_cond_destroy(&dev->idle);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

int emu_dev_region(struct emu_dev *dev, unsigned int bar, struct emu_region *out)
{
	if (!dev || !out || bar >= EMU_NUM_BARS)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->mmap_fd = -1;
	if (bar == IPU_BAR_REGS) {
		out->size = IPU_BAR_REGS_SIZE;
	} else if (bar == IPU_BAR_MEM) {
		out->size = dev->mem_size;
		out->mmap_fd = dev->mem_fd;
		out->prefetchable = true;
		out->is_64bit = true;
	}
	return 0;
}

int emu_dev_bar_read(struct emu_dev *dev, unsigned int bar, uint64_t off,
		     void *buf, uint32_t len)
{
	if (!dev || !buf || bar >= EMU_NUM_BARS)
		return -EINVAL;
	if (bar == IPU_BAR_REGS)
		return emu_regs_read(dev, off, buf, len);
	/* BAR2 is mapped by the client; a trapped access is served all the
	 * same (a transport may not map it). */
	if (bar == IPU_BAR_MEM && len && emu_mem_range_ok(dev, off, len)) {
		if (atomic_load(&dev->off_bus))
			memset(buf, 0xff, len);
		else
			memcpy(buf, dev->mem + off, len);
		return 0;
	}
	return -EINVAL;
}

int emu_dev_bar_write(struct emu_dev *dev, unsigned int bar, uint64_t off,
		      const void *buf, uint32_t len)
{
	if (!dev || !buf || bar >= EMU_NUM_BARS)
		return -EINVAL;
	if (bar == IPU_BAR_REGS)
		return emu_regs_write(dev, off, buf, len);
	if (bar == IPU_BAR_MEM && len && emu_mem_range_ok(dev, off, len)) {
		if (!atomic_load(&dev->off_bus))
			memcpy(dev->mem + off, buf, len);
		return 0;
	}
	return -EINVAL;
}

unsigned int emu_dev_irq_vectors(const struct emu_dev *dev)
{
	return dev->opts.msi ? IPU_MSI_MESSAGES : IPU_MSIX_VECTORS;
}

bool emu_dev_has_msi(const struct emu_dev *dev)
{
	return dev->opts.msi;
}

int emu_dev_flr(struct emu_dev *dev)
{
	if (!dev)
		return -EINVAL;
	pthread_mutex_lock(&dev->lock);
	emu_flr_locked(dev);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

bool emu_dev_off_bus(const struct emu_dev *dev)
{
	return dev && atomic_load(&dev->off_bus);
}

unsigned int emu_dev_stalled(const struct emu_dev *dev)
{
	return dev ? atomic_load(&dev->stalled) : 0;
}

unsigned int emu_dev_rings_enabled(struct emu_dev *dev)
{
	unsigned int q, rings = 0;

	if (!dev)
		return 0;
	pthread_mutex_lock(&dev->lock);
	for (q = 0; q < IPU_NUM_QUEUES; q++)
		if (dev->queues[q].status & IPU_Q_STATUS_ENABLED)
			rings |= 1u << q;
	if (dev->gring.status & IPU_Q_STATUS_ENABLED)
		rings |= 1u << IPU_NUM_QUEUES;
	pthread_mutex_unlock(&dev->lock);
	return rings;
}

bool emu_dev_drops_client(const struct emu_dev *dev)
{
	return emu_dev_off_bus(dev) && !atomic_load(&dev->keep_client);
}
