/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * vfio_user_proto.h - the vfio-user wire format, as QEMU's
 * docs/interop/vfio-user.rst specifies it: the 16-byte header, the command
 * numbers and each command's fixed payload. The VFIO structures a payload
 * reuses (region info, IRQ info and set, sparse mmap capability) and their
 * flag values come from <linux/vfio.h>, as the specification says.
 *
 * Everything is in the host's byte order (the specification's rule for
 * AF_UNIX peers on one host).
 */
#ifndef IPU_EMU_VFIO_USER_PROTO_H
#define IPU_EMU_VFIO_USER_PROTO_H

#include <stdint.h>
#include <linux/vfio.h>

/* Commands (the specification's table; 14 was dirty-page logging, dropped). */
enum vfu_cmd {
	VFU_CMD_VERSION = 1,
	VFU_CMD_DMA_MAP = 2,
	VFU_CMD_DMA_UNMAP = 3,
	VFU_CMD_DEVICE_GET_INFO = 4,
	VFU_CMD_DEVICE_GET_REGION_INFO = 5,
	VFU_CMD_DEVICE_GET_REGION_IO_FDS = 6,
	VFU_CMD_DEVICE_GET_IRQ_INFO = 7,
	VFU_CMD_DEVICE_SET_IRQS = 8,
	VFU_CMD_REGION_READ = 9,
	VFU_CMD_REGION_WRITE = 10,
	VFU_CMD_DMA_READ = 11,
	VFU_CMD_DMA_WRITE = 12,
	VFU_CMD_DEVICE_RESET = 13,
	VFU_CMD_REGION_WRITE_MULTI = 15,
	VFU_CMD_DEVICE_FEATURE = 16,
	VFU_CMD_MIG_DATA_READ = 17,
	VFU_CMD_MIG_DATA_WRITE = 18,
};

/* Header flags: bits 0-3 the type, bit 4 No_reply, bit 5 Error. */
#define VFU_FLAG_TYPE_MASK	0xfu
#define VFU_TYPE_COMMAND	0x0u
#define VFU_TYPE_REPLY		0x1u
#define VFU_FLAG_NO_REPLY	0x10u
#define VFU_FLAG_ERROR		0x20u
#define VFU_FLAGS_KNOWN		(VFU_FLAG_TYPE_MASK | VFU_FLAG_NO_REPLY | \
				 VFU_FLAG_ERROR)

/* The protocol version QEMU's client proposes, and the only one defined. */
#define VFU_VERSION_MAJOR	0u
#define VFU_VERSION_MINOR	0u

/* Defaults the specification gives for capabilities a peer leaves out. */
#define VFU_DEFAULT_MAX_FDS	1u
#define VFU_DEFAULT_MAX_XFER	(1u << 20)
#define VFU_DEFAULT_PGSIZES	4096u
#define VFU_DEFAULT_MAX_DMA_MAPS 65535u

/* What this server accepts: at most this many fds in one message (QEMU
 * sends one eventfd per MSI-X vector, in chunks of this size), data
 * transfers of at most VFU_MAX_XFER bytes, a VERSION's JSON of at most
 * VFU_MAX_VERSION_DATA bytes and VFU_MAX_DMA_MAPS mappings at once.
 * The VERSION reply may only name capabilities the client proposed, and a
 * client assumes the specification's default for the others: each limit
 * here is at least that default (QEMU 11 refuses a max_dma_maps above it,
 * and a max_msg_fds above 16). */
#define VFU_MAX_FDS		16u
#define VFU_MAX_XFER		(1u << 20)
#define VFU_MAX_VERSION_DATA	4096u
#define VFU_MAX_DMA_MAPS	VFU_DEFAULT_MAX_DMA_MAPS
#define VFU_PAGE_SIZE		4096u

struct vfu_hdr {
	uint16_t msg_id;
	uint16_t cmd;
	uint32_t size;		/* of the whole message, header included */
	uint32_t flags;
	uint32_t error;		/* errno of an error reply; 0 in a command */
};

struct vfu_version {
	uint16_t major;
	uint16_t minor;
	/* followed by optional NUL-terminated JSON */
};

/* DMA_MAP: struct vfio_iommu_type1_dma_map's layout, vaddr -> fd offset. */
struct vfu_dma_map {
	uint32_t argsz;
	uint32_t flags;
	uint64_t offset;
	uint64_t addr;
	uint64_t size;
};

/* DMA_UNMAP: struct vfio_iommu_type1_dma_unmap's layout. */
struct vfu_dma_unmap {
	uint32_t argsz;
	uint32_t flags;
	uint64_t addr;
	uint64_t size;
};

/* REGION_READ / REGION_WRITE (data follows in a write and a read's reply). */
struct vfu_region_rw {
	uint64_t offset;
	uint32_t region;
	uint32_t count;
};

/*
 * DMA_READ / DMA_WRITE, server to client: the request (a write's data
 * follows) and the reply's head (a read's data follows). The
 * specification's layout; a DMA_WRITE reply may also carry a 32-bit count
 * or nothing (QEMU sends the bare header).
 */
struct vfu_dma_rw {
	uint64_t addr;
	uint64_t count;
};

/*
 * QEMU 11's layout of the same messages (hw/vfio-user/protocol.h,
 * VFIOUserDMARW): the address, a 32-bit count at payload offset 8, the
 * data at 12, and 4 bytes of padding after the data (its struct's size,
 * 16 bytes of payload beside the data, which its checks count).
 */
#define VFU_DMA_QEMU_COUNT	8
#define VFU_DMA_QEMU_DATA	12

/* DEVICE_SET_IRQS: struct vfio_irq_set without its flexible data[] (the
 * bools follow; eventfds travel as fds), so it can sit inside a struct. */
struct vfu_irq_set {
	uint32_t argsz;
	uint32_t flags;
	uint32_t index;
	uint32_t start;
	uint32_t count;
};

/* REGION_INFO's sparse-mmap capability with its one area, fixed size. */
struct vfu_sparse_mmap_cap {
	struct vfio_info_cap_header header;
	uint32_t nr_areas;
	uint32_t reserved;
	struct vfio_region_sparse_mmap_area area;
};

_Static_assert(sizeof(struct vfu_hdr) == 16, "vfio-user header is 16 bytes");
_Static_assert(sizeof(struct vfu_dma_map) == 32, "DMA_MAP payload");
_Static_assert(sizeof(struct vfu_dma_unmap) == 24, "DMA_UNMAP payload");
_Static_assert(sizeof(struct vfu_region_rw) == 16, "REGION_READ payload");
_Static_assert(sizeof(struct vfu_dma_rw) == 16, "DMA_READ payload");
_Static_assert(sizeof(struct vfio_device_info) >= 16, "DEVICE_GET_INFO");
_Static_assert(sizeof(struct vfio_region_info) == 32, "REGION_INFO payload");
_Static_assert(sizeof(struct vfio_irq_info) == 16, "IRQ_INFO payload");
_Static_assert(sizeof(struct vfu_irq_set) == sizeof(struct vfio_irq_set),
	       "SET_IRQS payload");
_Static_assert(sizeof(struct vfu_sparse_mmap_cap) ==
	       sizeof(struct vfio_region_info_cap_sparse_mmap) +
	       sizeof(struct vfio_region_sparse_mmap_area), "sparse mmap cap");

/* The fixed part of DEVICE_GET_INFO's payload (newer kernels' struct
 * vfio_device_info grows capability fields vfio-user does not have). */
#define VFU_DEVICE_INFO_SIZE	16u

#endif /* IPU_EMU_VFIO_USER_PROTO_H */
