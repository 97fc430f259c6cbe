/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * fake_emu_dev.h - a test double of the device half of ipu-emu
 * (firmware/emu/emu_dev.h), for the vfio-user transport's tests: config
 * space that keeps what is written to its writable bytes, a 64 KiB BAR0 of
 * plain registers taking only aligned 4- and 8-byte accesses (as the spec
 * says of BAR0), a BAR2 of device memory in a memfd, 4 MSI-X vectors, and
 * counters of what the transport asked. Included by one test file each.
 */
#ifndef FAKE_EMU_DEV_H
#define FAKE_EMU_DEV_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../firmware/emu/emu_dev.h"

#define FAKE_BAR0_SIZE		(64u * 1024)
#define FAKE_BAR2_SIZE		(1u << 20)
#define FAKE_MSIX		4u
/* Config bytes a write may change (the rest is read-only). */
#define FAKE_CFG_RW_START	0x40u
#define FAKE_CFG_RW_END		0x100u

struct emu_dev {
	struct emu_host_ops host;
	uint8_t cfg[EMU_CFG_SIZE];
	uint8_t bar0[FAKE_BAR0_SIZE];
	int mem_fd;
	unsigned int flr_count, fault_count, lost_count;
	bool off_bus;
};

int emu_dev_create(const struct emu_dev_opts *opts,
		   const struct emu_host_ops *host, struct emu_dev **out)
{
	struct emu_dev *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return -ENOMEM;
	dev->host = *host;
	dev->mem_fd = memfd_create("fake-bar2", MFD_CLOEXEC);
	if (dev->mem_fd < 0 || ftruncate(dev->mem_fd, FAKE_BAR2_SIZE)) {
		if (dev->mem_fd >= 0)
			close(dev->mem_fd);
		free(dev);
		return -ENOMEM;
	}
	/* Vendor/device 0x1d0f:0x0001, a pattern to recognise elsewhere. */
	dev->cfg[0] = 0x0f;
	dev->cfg[1] = 0x1d;
	dev->cfg[2] = 0x01;
	for (unsigned int i = 0x10; i < EMU_CFG_SIZE; i++)
		dev->cfg[i] = (uint8_t)(i ^ opts->index);
	*out = dev;
	return 0;
}

void emu_dev_destroy(struct emu_dev *dev)
{
	if (!dev)
		return;
	close(dev->mem_fd);
	free(dev);
}

int emu_dev_cfg_read(struct emu_dev *dev, uint32_t off, void *buf,
		     uint32_t len)
{
	if (off > EMU_CFG_SIZE || len > EMU_CFG_SIZE - off)
		return -EINVAL;
	if (dev->off_bus)
		memset(buf, 0xff, len);
	else
		memcpy(buf, dev->cfg + off, len);
	return 0;
}

int emu_dev_cfg_write(struct emu_dev *dev, uint32_t off, const void *buf,
		      uint32_t len)
{
	const uint8_t *p = buf;

	if (off > EMU_CFG_SIZE || len > EMU_CFG_SIZE - off)
		return -EINVAL;
	for (uint32_t i = 0; i < len; i++)
		if (off + i >= FAKE_CFG_RW_START && off + i < FAKE_CFG_RW_END)
			dev->cfg[off + i] = p[i];
	return 0;
}

int emu_dev_region(struct emu_dev *dev, unsigned int bar,
		   struct emu_region *out)
{
	if (bar >= EMU_NUM_BARS)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->mmap_fd = -1;
	if (bar == 0) {
		out->size = FAKE_BAR0_SIZE;
	} else if (bar == 2) {
		out->size = FAKE_BAR2_SIZE;
		out->mmap_fd = dev->mem_fd;
		out->prefetchable = true;
		out->is_64bit = true;
	}
	return 0;
}

static int fake_bar0_check(unsigned int bar, uint64_t off, uint32_t len)
{
	if (bar != 0 || (len != 4 && len != 8) || (off & (len - 1)) ||
	    off > FAKE_BAR0_SIZE - len)
		return -EINVAL;
	return 0;
}

int emu_dev_bar_read(struct emu_dev *dev, unsigned int bar, uint64_t off,
		     void *buf, uint32_t len)
{
	int ret = fake_bar0_check(bar, off, len);

	if (ret)
		return ret;
	if (dev->off_bus)
		memset(buf, 0xff, len);
	else
		memcpy(buf, dev->bar0 + off, len);
	return 0;
}

int emu_dev_bar_write(struct emu_dev *dev, unsigned int bar, uint64_t off,
		      const void *buf, uint32_t len)
{
	int ret = fake_bar0_check(bar, off, len);

	if (ret)
		return ret;
	memcpy(dev->bar0 + off, buf, len);
	return 0;
}

unsigned int emu_dev_irq_vectors(const struct emu_dev *dev)
{
	(void)dev;
	return FAKE_MSIX;
}

bool emu_dev_has_msi(const struct emu_dev *dev)
{
	(void)dev;
	return false;
}

int emu_dev_flr(struct emu_dev *dev)
{
	dev->flr_count++;
	memset(dev->bar0, 0, sizeof(dev->bar0));
	return 0;
}

/* The client went: counted, and BAR0 to zeros as FLR. */
int emu_dev_client_lost(struct emu_dev *dev)
{
	dev->lost_count++;
	memset(dev->bar0, 0, sizeof(dev->bar0));
	return 0;
}

/* "off_bus" falls off the bus; "bad" is refused; anything else counts. */
int emu_dev_fault(struct emu_dev *dev, const char *spec)
{
	if (!strcmp(spec, "bad"))
		return -EINVAL;
	if (!strcmp(spec, "off_bus"))
		dev->off_bus = true;
	dev->fault_count++;
	return 0;
}

bool emu_dev_off_bus(const struct emu_dev *dev)
{
	return dev->off_bus;
}

/* The fake knows only off_bus, which drops the client. */
bool emu_dev_drops_client(const struct emu_dev *dev)
{
	return dev->off_bus;
}

#endif /* FAKE_EMU_DEV_H */
