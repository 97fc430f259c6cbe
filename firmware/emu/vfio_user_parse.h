/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * vfio_user_parse.h - validation and decoding of one vfio-user command
 * message, with no I/O and no state: the bytes and the number of file
 * descriptors that came with them in, a decoded request or a negative
 * errno (the error reply's errno) out. The client is untrusted; this is
 * what the fuzzer drives.
 */
#ifndef IPU_EMU_VFIO_USER_PARSE_H
#define IPU_EMU_VFIO_USER_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vfio_user_proto.h"

/* Regions and IRQ types of a vfio-user PCI device (linux/vfio.h). */
#define VFU_NUM_REGIONS		VFIO_PCI_NUM_REGIONS
#define VFU_NUM_IRQS		VFIO_PCI_NUM_IRQS
/* Largest SET_IRQS range (the PCI spec's MSI-X table size limit). */
#define VFU_MAX_IRQ_COUNT	2048u
/* Largest message this server reads whole: a REGION_WRITE of the largest
 * transfer; anything longer is drained and answered with E2BIG. */
#define VFU_MAX_MSG		(sizeof(struct vfu_hdr) + \
				 sizeof(struct vfu_region_rw) + VFU_MAX_XFER)

/**
 * struct vfu_req - one command, checked and decoded.
 * @hdr: its header.
 * @nfds: file descriptors that came with it (the count was checked
 *	against what the command allows).
 * The member of the union named after the command is valid; pointers
 * point into the message buffer given to vfu_parse().
 */
struct vfu_req {
	struct vfu_hdr hdr;
	unsigned int nfds;
	union {
		struct {
			uint16_t major, minor;
			const char *json;	/* NUL-terminated, or NULL */
			size_t json_len;	/* without the NUL */
		} version;
		struct vfu_dma_map map;
		struct vfu_dma_unmap unmap;
		struct {
			uint32_t argsz;
		} info;
		struct {
			uint32_t argsz;
			uint32_t index;
		} region_info;
		struct {
			uint32_t argsz;
			uint32_t index;
		} irq_info;
		struct {
			struct vfu_irq_set set;
			const uint8_t *bools;	/* DATA_BOOL: set.count bytes */
		} irqs;
		struct {
			struct vfu_region_rw rw;
			const void *data;	/* REGION_WRITE: rw.count bytes */
		} rw;
	};
};

/**
 * vfu_parse() - validate and decode the command message @msg of @len bytes
 * that came with @nfds file descriptors.
 *
 * Checks the header (size equal to @len, a command, known flags, no error
 * field), then the command's payload: its exact size, argsz, reserved
 * fields and flags, indices below the device's region and IRQ counts,
 * offset + length without overflow, transfer sizes, DMA alignment, and
 * that @nfds is what the command may carry. Region sizes and vector
 * counts of the device itself are checked by the caller, which knows them.
 *
 * Return: 0 and @req filled, or -EINVAL (malformed), -E2BIG (a transfer
 * larger than this server accepts), -ENOTSUP (a command this server does
 * not implement or a flag it does not support). @req->hdr is filled
 * whenever @len covers a header, so an error reply can name the message.
 */
int vfu_parse(const void *msg, size_t len, unsigned int nfds,
	      struct vfu_req *req);

/**
 * struct vfu_dma_reply - the client's reply to a DMA_READ or DMA_WRITE
 * request of the server, checked and decoded.
 * @hdr: its header (msg_id and cmd name the request; VFU_FLAG_ERROR set
 *	for an error reply, whose other members are 0).
 * @addr, @count: what the reply says it transferred (a DMA_WRITE reply
 *	may say nothing: 0).
 * @data: a DMA_READ reply's @count bytes, in the message buffer.
 */
struct vfu_dma_reply {
	struct vfu_hdr hdr;
	uint64_t addr, count;
	const void *data;
};

/**
 * vfu_parse_dma_reply() - validate and decode the reply message @msg of
 * @len bytes: a header of the reply type whose size is @len, the command
 * DMA_READ or DMA_WRITE, known flags and no No_reply; an error reply with
 * no payload; a DMA_READ reply's payload the address, the count and
 * exactly count bytes; a DMA_WRITE reply's payload empty, or the address
 * and a 32-bit (the specification) or 64-bit count. With @qemu, a
 * DMA_READ reply in QEMU 11's layout (vfio_user_proto.h,
 * VFU_DMA_QEMU_DATA): the address, a 32-bit count, the count's bytes and 4
 * of padding. Return: 0 and @out filled, or -EINVAL.
 */
int vfu_parse_dma_reply(const void *msg, size_t len, bool qemu,
			struct vfu_dma_reply *out);

/** vfu_cmd_name() - the command's name for logs ("?" when unknown). */
const char *vfu_cmd_name(unsigned int cmd);

#endif /* IPU_EMU_VFIO_USER_PARSE_H */
