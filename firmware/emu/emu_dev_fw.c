// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_fw.c - firmware boot (docs/hardware.md section 8): the image the
 * host put in device memory is copied out and validated in the spec's
 * order (range, size, magic, format, header CRC, sizes, reserved fields,
 * payload CRC, version, records). Only a valid image makes the device
 * READY, and only READY lets the command queue be enabled.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <ipu/exe.h>

#include "emu_internal.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint32_t crc(const uint8_t *p, uint32_t len)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, len);
}

/* The payload's records: IDENT and EXE_VERSIONS (with ours) required. */
static int check_records(const uint8_t *p, uint32_t len)
{
	bool ident = false, versions = false;
	uint32_t tag, rlen, at = 0;

	while (at < len) {
		if (len - at < 8)
			return IPU_FW_ERR_PAYLOAD;
		tag = le32(p + at);
		rlen = le32(p + at + 4);
		at += 8;
		if (rlen > len - at || ((rlen + 3) & ~3u) > len - at)
			return IPU_FW_ERR_PAYLOAD;
		if (tag == IPU_FW_REC_IDENT) {
			if (!rlen || memchr(p + at, 0, rlen) == NULL)
				return IPU_FW_ERR_PAYLOAD;
			ident = true;
		} else if (tag == IPU_FW_REC_EXE_VERSIONS) {
			if (rlen != 8 || le32(p + at) > IPU_EXE_VERSION ||
			    le32(p + at + 4) < IPU_EXE_VERSION)
				return IPU_FW_ERR_PAYLOAD;
			versions = true;
		} else if (tag == IPU_FW_REC_MAX_REPLICAS) {
			if (rlen != 4 || !le32(p + at))
				return IPU_FW_ERR_PAYLOAD;
		}
		at += (rlen + 3) & ~3u;
	}
	return ident && versions ? IPU_FW_ERR_NONE : IPU_FW_ERR_PAYLOAD;
}

int emu_fw_validate(const uint8_t *img, uint64_t len, uint32_t *version)
{
	struct ipu_fw_header h;
	uint32_t i;

	if (len < IPU_FW_HEADER_SIZE || len > IPU_FW_MAX_SIZE)
		return IPU_FW_ERR_SIZE;
	memcpy(&h, img, sizeof(h));
	if (h.magic != IPU_FW_MAGIC)
		return IPU_FW_ERR_MAGIC;
	if (h.format != IPU_FW_FORMAT || h.header_size != IPU_FW_HEADER_SIZE)
		return IPU_FW_ERR_VERSION;
	if (h.header_crc32 != crc(img, IPU_FW_HEADER_SIZE - 4))
		return IPU_FW_ERR_HEADER_CRC;
	if (h.payload_size != len - IPU_FW_HEADER_SIZE)
		return IPU_FW_ERR_SIZE;
	if (h.flags)
		return IPU_FW_ERR_PAYLOAD;
	for (i = 0; i < sizeof(h.reserved) / sizeof(h.reserved[0]); i++)
		if (h.reserved[i])
			return IPU_FW_ERR_PAYLOAD;
	if (h.payload_crc32 != crc(img + IPU_FW_HEADER_SIZE, h.payload_size))
		return IPU_FW_ERR_PAYLOAD_CRC;
	if (h.fw_version >> 16 != IPU_FW_SUPPORTED_MAJOR)
		return IPU_FW_ERR_VERSION;
	*version = h.fw_version;
	return check_records(img + IPU_FW_HEADER_SIZE, h.payload_size);
}

static void boot_failed_locked(struct emu_dev *dev, uint32_t code)
{
	dev->fw_status = IPU_FW_STATE_FAILED | code << IPU_FW_ERR_SHIFT;
	dev->fw_version = 0;
	emu_err_locked(dev, IPU_ERR_FW_BOOT, code, dev->fw_addr);
	emu_irq_set_locked(dev, IPU_IRQ_FW_BOOT);
}

void emu_fw_boot_locked(struct emu_dev *dev)
{
	uint32_t code, version = 0;
	unsigned int q;
	uint8_t *copy;

	for (q = 0; q < IPU_NUM_QUEUES; q++) {
		if ((dev->fw_status & IPU_FW_STATE_MASK) == IPU_FW_STATE_READY ||
		    (dev->queues[q].ctrl & IPU_Q_CTRL_ENABLE)) {
			/* Refused; the state stays what it was. */
			emu_err_locked(dev, IPU_ERR_FW_BOOT, IPU_FW_ERR_BUSY,
				       dev->fw_addr);
			return;
		}
	}
	dev->fw_status = IPU_FW_STATE_BOOTING;
	if (!emu_mem_range_ok(dev, dev->fw_addr, dev->fw_size)) {
		boot_failed_locked(dev, IPU_FW_ERR_RANGE);
		return;
	}
	if (dev->fw_size < IPU_FW_HEADER_SIZE || dev->fw_size > IPU_FW_MAX_SIZE) {
		boot_failed_locked(dev, IPU_FW_ERR_SIZE);
		return;
	}
	/* A copy: the host may write BAR2 while we check it. */
	copy = malloc(dev->fw_size);
	if (!copy) {
		boot_failed_locked(dev, IPU_FW_ERR_SIZE);
		return;
	}
	memcpy(copy, dev->mem + dev->fw_addr, dev->fw_size);
	code = emu_fw_validate(copy, dev->fw_size, &version);
	free(copy);
	if (code == IPU_FW_ERR_NONE && dev->faults.refuse_fw)
		code = IPU_FW_ERR_REFUSED;
	if (code != IPU_FW_ERR_NONE) {
		boot_failed_locked(dev, code);
		return;
	}
	dev->fw_status = IPU_FW_STATE_READY;
	dev->fw_version = version;
	emu_irq_set_locked(dev, IPU_IRQ_FW_BOOT);
}
