/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * hw.h - the programming interface of the PCIe IPU function, as C
 * constants: docs/hardware.md is the specification, this header its
 * transcription for the two sides that implement it (the device model
 * ipu-emu, firmware/emu/, and the driver's PCI backend). Only macros and
 * structs of <linux/types.h> types, so that kernel and userspace code
 * include the same file. All multi-byte values are little-endian.
 */
#ifndef IPU_HW_H
#define IPU_HW_H

#include <linux/types.h>

/* ---- PCI identity (docs/hardware.md, "PCI identity") ------------------ */
/*
 * Placeholder IDs of this device model: not assigned by PCI-SIG; real
 * silicon replaces them (the only change a driver then needs).
 */
#define IPU_PCI_VENDOR_ID	0x1ffe
#define IPU_PCI_DEVICE_ID	0x0100
#define IPU_PCI_SUBSYS_VENDOR_ID 0x1ffe
#define IPU_PCI_SUBSYS_ID	0x0100
#define IPU_PCI_REVISION	0x01
#define IPU_PCI_CLASS		0x120000 /* processing accelerator */

/* Config space layout. */
#define IPU_CFG_PM_CAP		0x40
#define IPU_CFG_MSIX_CAP	0x50
/* A function presents MSI-X or, in the same place, MSI (section 1.2). */
#define IPU_CFG_MSI_CAP		IPU_CFG_MSIX_CAP
#define IPU_CFG_MSI_CAP_SIZE	0x0e	/* 64-bit, no per-vector masking */
#define IPU_MSI_CTRL_ENABLE	0x0001u	/* Message Control bit 0 */
#define IPU_MSI_CTRL_MMC	0x0004u	/* 3:1 Multiple Message Capable: 4 */
#define IPU_MSI_CTRL_MME_SHIFT	4	/* 6:4 Multiple Message Enable */
#define IPU_MSI_CTRL_MME_MASK	0x0070u
#define IPU_MSI_CTRL_64BIT	0x0080u
#define IPU_CFG_EXP_CAP		0x60
#define IPU_CFG_EXP_CAP_SIZE	0x3c
#define IPU_CFG_DSN_CAP		0x100
#define IPU_CFG_AER_CAP		0x140	/* Advanced Error Reporting, version 2 */

/* Link: Gen4 (16 GT/s) x16 capability. */
#define IPU_LINK_MAX_SPEED	4	/* PCI_EXP_LNKCAP_SLS_16_0GB */
#define IPU_LINK_MAX_WIDTH	16

/* ---- BARs -------------------------------------------------------------- */
#define IPU_BAR_REGS		0	/* 32-bit, non-prefetchable, 64 KiB */
#define IPU_BAR_REGS_SIZE	0x10000
#define IPU_BAR_MEM		2	/* 64-bit, prefetchable: device memory */
#define IPU_MEM_DEFAULT_SIZE	(256ULL << 20)
#define IPU_MEM_MIN_SIZE	0x100000ULL
#define IPU_MEM_MAX_SIZE	(64ULL << 30)

/* ---- BAR0 registers ---------------------------------------------------- */
#define IPU_REG_ID		0x000	/* RO  "IPU0" */
#define  IPU_ID_VALUE		0x49505530u
#define IPU_REG_VERSION		0x004	/* RO  spec version major << 16 | minor */
#define  IPU_SPEC_VERSION	0x00020001u
#define  IPU_SPEC_MAJOR(v)	((v) >> 16)
#define  IPU_SPEC_MINOR(v)	((v) & 0xffffu)
#define IPU_REG_CAPS		0x008	/* RO */
#define  IPU_CAPS_DMA		0x1u
#define  IPU_CAPS_CMDQ		0x2u
#define  IPU_CAPS_TELEMETRY	0x4u
#define  IPU_CAPS_SOFT_RESET	0x8u
#define  IPU_CAPS_REPLICAS	0x10u
#define  IPU_CAPS_GATHER	0x20u	/* gather requests (section 4.4) */
#define  IPU_CAPS_PROFILE	0x40u	/* PROFILE descriptors (section 4.5, 2.1) */
#define  IPU_CAPS_NQUEUES_SHIFT	8	/* [15:8] queues */
#define  IPU_CAPS_NVEC_SHIFT	16	/* [23:16] MSI-X vectors, or MSI messages capable */
#define IPU_REG_LINK_ID		0x00c	/* RO  same on linked IPUs */
#define IPU_REG_LINK_INDEX	0x010	/* RO  index among linked IPUs */
#define IPU_REG_STATUS		0x014	/* RO */
#define  IPU_STATUS_FW_READY	0x1u
#define  IPU_STATUS_FW_FAILED	0x2u
#define  IPU_STATUS_QUEUE_ERROR	0x4u
#define  IPU_STATUS_LINK_DEGRADED 0x8u
#define IPU_REG_SOFT_RESET	0x018	/* WO  write IPU_SOFT_RESET_MAGIC */
#define  IPU_SOFT_RESET_MAGIC	0x52534554u /* "RSET" */
#define IPU_REG_RESET_COUNT	0x01c	/* RO  moves when a soft reset is done */
#define IPU_REG_SCRATCH		0x020	/* RW */
#define IPU_REG_IRQ_CAUSE	0x030	/* RW1C */
#define IPU_REG_IRQ_MASK	0x034	/* RW  1 = masked */
#define IPU_REG_IRQ_RAISE	0x038	/* WO  sets cause bits (self-test) */
#define  IPU_IRQ_H2D		0x1u	/* vector 1 */
#define  IPU_IRQ_D2H		0x2u	/* vector 2 */
#define  IPU_IRQ_CMD		0x4u	/* vector 3 */
#define  IPU_IRQ_FW_BOOT	0x8u	/* vector 0 */
#define  IPU_IRQ_ERROR		0x10u	/* vector 0 */
#define  IPU_IRQ_SW		0x20u	/* vector 0 */
#define  IPU_IRQ_GATHER		0x40u	/* vector 3: a gather request posted */
#define  IPU_IRQ_ALL		0x7fu
#define IPU_MSIX_VECTORS	4
#define IPU_VEC_MISC		0
#define IPU_VEC_H2D		1
#define IPU_VEC_D2H		2
#define IPU_VEC_CMD		3
/*
 * MSI (section 6): with 4 messages enabled, message n carries what MSI-X
 * vector n does; with 1 or 2, every cause goes on message 0.
 */
#define IPU_MSI_MESSAGES	4

/* Firmware boot. */
#define IPU_REG_FW_ADDR		0x100	/* RW64 image offset in device memory */
#define IPU_REG_FW_SIZE		0x108	/* RW  image bytes */
#define IPU_REG_FW_CTRL		0x10c	/* WO  IPU_FW_CTRL_BOOT */
#define  IPU_FW_CTRL_BOOT	1u
#define IPU_REG_FW_STATUS	0x110	/* RO */
#define  IPU_FW_STATE_MASK	0xfu
#define  IPU_FW_STATE_OFF	0u
#define  IPU_FW_STATE_BOOTING	1u
#define  IPU_FW_STATE_READY	2u
#define  IPU_FW_STATE_FAILED	3u
#define  IPU_FW_ERR_SHIFT	8	/* [15:8] IPU_FW_ERR_* */
#define IPU_REG_FW_VERSION	0x114	/* RO  major << 16 | minor << 8 | patch */
#define IPU_FW_ERR_NONE		0
#define IPU_FW_ERR_RANGE	1	/* FW_ADDR/FW_SIZE outside device memory */
#define IPU_FW_ERR_SIZE		2	/* too small/large, or sizes disagree */
#define IPU_FW_ERR_MAGIC	3
#define IPU_FW_ERR_VERSION	4	/* format or firmware major unsupported */
#define IPU_FW_ERR_HEADER_CRC	5
#define IPU_FW_ERR_PAYLOAD_CRC	6
#define IPU_FW_ERR_PAYLOAD	7	/* malformed or missing record */
#define IPU_FW_ERR_REFUSED	8	/* the device refuses it (fault) */
#define IPU_FW_ERR_BUSY		9	/* BOOT refused: booting, READY, rings on */
/*
 * The device memory the firmware owns from BOOT on (section 8.3): the
 * host stages the image inside it and never hands its bytes to users.
 */
#define IPU_REG_FW_REGION_ADDR	0x118	/* RO64 device address */
#define IPU_REG_FW_REGION_SIZE	0x120	/* RO64 bytes, >= IPU_FW_MAX_SIZE */
/* BOOTING lasts at most this long (section 8.2). */
#define IPU_FW_BOOT_TIMEOUT_MS	1000

/* Telemetry (all RO). */
#define IPU_REG_TEMP_MC		0x180	/* millidegrees Celsius */
#define IPU_REG_POWER_MW	0x184	/* milliwatts */
#define IPU_REG_CORE_CLK_MHZ	0x188
#define IPU_REG_MEM_CLK_MHZ	0x18c
#define IPU_REG_MEM_CE		0x190	/* corrected memory errors */
#define IPU_REG_MEM_UE		0x194	/* uncorrected memory errors */
#define IPU_REG_LAUNCHES	0x198	/* launches completed */
/*
 * 64-bit counters (section 2.3): reading the low half latches the high
 * half; read low, then high (lo_hi_readq()), or with one 8-byte read.
 */
#define IPU_REG_DMA_H2D_BYTES	0x1a0	/* RO64 latched */
#define IPU_REG_DMA_D2H_BYTES	0x1a8	/* RO64 latched */
#define IPU_REG_UPTIME_MS	0x1b0	/* RO64 latched, since FLR */

/*
 * Queues: three register blocks, one per queue. (The command queue's
 * names are IPU_CQ_*: libipu's ipu.h has IPU_CMD_* of its own.)
 */
#define IPU_QUEUE_H2D		0
#define IPU_QUEUE_D2H		1
#define IPU_QUEUE_CMD		2
#define IPU_NUM_QUEUES		3
#define IPU_REG_QUEUE(q)	(0x200 + 0x40 * (q))
#define IPU_Q_BASE		0x00	/* RW64 ring bus address, 64-aligned */
#define IPU_Q_SIZE		0x08	/* RW  entries, power of 2 */
#define IPU_Q_CTRL		0x0c	/* RW */
#define  IPU_Q_CTRL_ENABLE	0x1u
#define IPU_Q_TAIL		0x10	/* RW  producer index (doorbell) */
#define IPU_Q_HEAD		0x14	/* RO  consumer index */
#define IPU_Q_WB_ADDR		0x18	/* RW64 writeback bus address, 0 = off */
#define IPU_Q_STATUS		0x20	/* RO */
#define  IPU_Q_STATUS_ENABLED	0x1u	/* clears once the ring has stopped */
#define  IPU_Q_STATUS_BUSY	0x2u
#define  IPU_Q_STATUS_HALTED	0x4u
#define IPU_Q_COMPLETED		0x24	/* RO  descriptors completed */
#define IPU_Q_ERRORS		0x28	/* RO  descriptors completed in error */
#define IPU_Q_DEADLINE_MS	0x2c	/* RW  command queue: default deadline */
#define IPU_RING_MIN		2
#define IPU_RING_MAX		4096
#define IPU_RING_ALIGN		64
#define IPU_CQ_DEFAULT_DEADLINE_MS 10000
/*
 * Register writes are posted (section 2.1): a ring whose ENABLE was
 * cleared, and a soft reset, finish within this long of the write
 * (STATUS reads ENABLED = BUSY = 0; RESET_COUNT has moved). A device that
 * has not by then is hung: Function Level Reset.
 */
#define IPU_STOP_TIMEOUT_MS	1000

/* Error log. */
#define IPU_REG_ERR_COUNT	0x300	/* RO  errors logged since FLR */
#define IPU_REG_ERR_LOG		0x400	/* RO  IPU_ERR_LOG_LEN entries */
#define IPU_ERR_LOG_LEN		16
#define IPU_ERR_ENTRY_SIZE	16	/* code, info, detail (64) */
#define IPU_ERR_RING_CONFIG	1	/* ENABLE with a bad BASE/SIZE */
#define IPU_ERR_RING_FETCH	2	/* descriptor read faulted */
#define IPU_ERR_WRITEBACK	3	/* status or writeback write faulted */
#define IPU_ERR_BAD_TAIL	4	/* TAIL >= SIZE, or lapping HEAD (overrun) */
#define IPU_ERR_NO_FIRMWARE	5	/* CMD queue enabled before READY */
#define IPU_ERR_QUEUE_BUSY	6	/* ring reconfigured while enabled */
#define IPU_ERR_DESC		7	/* a descriptor completed in error */
#define IPU_ERR_FW_BOOT		8	/* boot failed */
#define IPU_ERR_CMD_TIMEOUT	9	/* a launch passed its deadline */
#define IPU_ERR_MEM_UE		10	/* uncorrected memory error */
#define IPU_ERR_LINK		11	/* link retrained below capability */
#define IPU_ERR_BAD_RESET	12	/* SOFT_RESET without the magic */
#define IPU_ERR_GATHER		13	/* an answer to no pending request */
#define IPU_ERR_BUS_MASTER	14	/* host memory needed, BME clear: halted */

/* MSI-X table and PBA, in BAR0. */
#define IPU_MSIX_TABLE		0x8000
#define IPU_MSIX_PBA		0x9000

/* ---- Descriptors ------------------------------------------------------- */
/**
 * struct ipu_dma_desc - one scatter-gather segment of a DMA queue (32 bytes).
 * @host_addr: bus address in host memory.
 * @dev_addr: offset in device memory (BAR2).
 * @length: bytes, 1 .. IPU_DMA_MAX_LEN.
 * @flags: IPU_DMA_F_*.
 * @status: written by the device: IPU_DESC_DONE | IPU_DESC_E_*.
 * @tag: the host's; the device never reads or writes it.
 */
struct ipu_dma_desc {
	__u64 host_addr;
	__u64 dev_addr;
	__u32 length;
	__u32 flags;
	__u32 status;
	__u32 tag;
};

#define IPU_DMA_MAX_LEN		(16u << 20)
#define IPU_DMA_F_IRQ		0x1u	/* end of batch: writeback + IRQ */
#define IPU_DMA_F_ALL		IPU_DMA_F_IRQ
#define IPU_DESC_STATUS_OFF	0x18

/**
 * struct ipu_cmd_desc - one command of the command queue (64 bytes).
 * @opcode: IPU_CQ_*.
 * @flags: IPU_CQ_F_*.
 * @exe_addr, @exe_size: the executable image in device memory.
 * @deadline_ms: 0: the queue's IPU_Q_DEADLINE_MS.
 * @arena_addr, @arena_size: this replica's arena in device memory.
 * @replica, @num_replicas: this launch's replica of the run.
 * @group: the run's id (non-zero when @num_replicas > 1).
 * @owner: with @group identifies the run across linked IPUs (the driver
 *	puts the launching process's id).
 * @status: written by the device: IPU_DESC_DONE | IPU_CQ_E_*.
 */
struct ipu_cmd_desc {
	__u32 opcode;
	__u32 flags;
	__u64 exe_addr;
	__u32 exe_size;
	__u32 deadline_ms;
	__u64 arena_addr;
	__u64 arena_size;
	__u32 replica;
	__u32 num_replicas;
	__u64 group;
	__u32 owner;
	__u32 status;
};

#define IPU_CQ_NOP		0
#define IPU_CQ_LAUNCH		1
/*
 * INSTANCE: a context descriptor for the next LAUNCH of its queue (a
 * program split across instances, section 4.4): @replica = the instance's
 * index, @num_replicas = the instance count, @arena_addr/@arena_size = the
 * gather staging area in device memory; the other fields 0.
 */
#define IPU_CQ_INSTANCE		2
#define IPU_CQ_MAX_INSTANCES	4096
/*
 * PROFILE (spec 2.1): a context descriptor for the next LAUNCH of its
 * queue (section 4.5): @arena_addr/@arena_size = the profile buffer in
 * device memory, laid out as struct ipu_profile_header and its records
 * (include/uapi/linux/ipu.h); the other fields 0.
 */
#define IPU_CQ_PROFILE		3
#define IPU_CQ_PROFILE_ALIGN	8
#define IPU_CQ_PROFILE_MIN	32		/* the header */
#define IPU_CQ_PROFILE_MAX	(4u << 20)	/* IPU_PROFILE_MAX_BYTES */
#define IPU_CQ_F_IRQ		0x1u
#define IPU_CQ_F_ALL		IPU_CQ_F_IRQ
#define IPU_CQ_STATUS_OFF	0x3c
#define IPU_CQ_MAX_REPLICAS	64

/* Status words (both descriptor kinds). */
#define IPU_DESC_DONE		0x80000000u
#define IPU_DESC_ERR_MASK	0xffu
/* DMA descriptor errors. */
#define IPU_DESC_OK		0
#define IPU_DESC_E_HOST_FAULT	1	/* host address outside every mapping */
#define IPU_DESC_E_DEV_RANGE	2	/* device range outside device memory */
#define IPU_DESC_E_LENGTH	3	/* 0 or above IPU_DMA_MAX_LEN */
#define IPU_DESC_E_FLAGS	4	/* unknown flag bit */
#define IPU_DESC_E_RESET	5	/* aborted by a reset */
#define IPU_DESC_E_DATA		6	/* uncorrectable data error */
#define IPU_DESC_E_NO_MASTER	7	/* BME clear: spec 1.x only (4.2) */
/* Command errors. */
#define IPU_CQ_OK		0
#define IPU_CQ_E_NOEXEC	1	/* the image is no executable */
#define IPU_CQ_E_INVAL		2	/* malformed program, arena misfit */
#define IPU_CQ_E_RANGE		3	/* a stream used too often */
#define IPU_CQ_E_NOMEM		4	/* the device ran out of memory */
#define IPU_CQ_E_TIMEOUT	5	/* deadline passed */
#define IPU_CQ_E_CANCELED	6	/* another replica failed */
#define IPU_CQ_E_RESET		7	/* aborted by a reset */
#define IPU_CQ_E_OPCODE	8	/* unknown opcode */
#define IPU_CQ_E_DESC		9	/* bad flags, ranges or replica fields */
#define IPU_CQ_E_INTERNAL	10	/* anything else */
#define IPU_CQ_E_GATHER		11	/* a gather request failed (section 4.4) */

/**
 * struct ipu_queue_wb - completion writeback (16 bytes, at IPU_Q_WB_ADDR).
 * @head: the queue's HEAD after the batch.
 * @errors: IPU_Q_ERRORS.
 * @completed: descriptors completed since the queue was enabled.
 */
struct ipu_queue_wb {
	__u32 head;
	__u32 errors;
	__u64 completed;
};

/* ---- Gather requests (docs/hardware.md section 4.4) ------------------- */
/*
 * A device-to-host ring: the device produces requests at TAIL, the host
 * consumes them and writes HEAD; the host answers each request with
 * GQ_ANSWER_STATUS then GQ_ANSWER = the request's seq (the doorbell that
 * lets the held launch go on).
 */
#define IPU_REG_GATHER		0x2c0
#define IPU_GQ_BASE		0x00	/* RW64 ring bus address, 64-aligned */
#define IPU_GQ_SIZE		0x08	/* RW  entries, power of 2 */
#define IPU_GQ_CTRL		0x0c	/* RW  IPU_Q_CTRL_ENABLE */
#define IPU_GQ_HEAD		0x10	/* RW  consumer index (host) */
#define IPU_GQ_TAIL		0x14	/* RO  producer index (device) */
#define IPU_GQ_WB_ADDR		0x18	/* RW64 writeback bus address, 0 = off */
#define IPU_GQ_STATUS		0x20	/* RO  IPU_Q_STATUS_ENABLED, _HALTED */
#define IPU_GQ_POSTED		0x24	/* RO  requests posted since ENABLE */
#define IPU_GQ_ANSWER_STATUS	0x28	/* RW  0 or a positive errno */
#define IPU_GQ_ANSWER		0x2c	/* WO  a request's seq: the doorbell */
#define IPU_GQ_PENDING		0x30	/* RO  requests posted, not answered */
#define IPU_GQ_MAX_ERRNO	4095

/**
 * struct ipu_gather_req - one gather request (64 bytes), device-written.
 * @seq: the request's number on this IPU, never 0; the answer names it.
 * @flags: 0.
 * @group, @owner: the run (the LAUNCH's fields).
 * @replica: the LAUNCH's replica whose run asks (on this IPU's queue).
 * @collective: which gather of the run, from 0.
 * @staging: device address of the staging area (the INSTANCE's).
 * @bytes: each instance's part; the parts are at @staging + i * @bytes.
 * @index, @count: the instance the run is, of how many.
 */
struct ipu_gather_req {
	__u32 seq;
	__u32 flags;
	__u64 group;
	__u32 owner;
	__u32 replica;
	__u64 staging;
	__u64 bytes;
	__u32 index;
	__u32 count;
	__u32 collective;
	__u32 reserved[3];
};

/**
 * struct ipu_gather_wb - gather ring writeback (16 bytes, at IPU_GQ_WB_ADDR).
 * @tail: TAIL after the request.
 * @pending: IPU_GQ_PENDING.
 * @posted: requests posted since the ring was enabled.
 */
struct ipu_gather_wb {
	__u32 tail;
	__u32 pending;
	__u64 posted;
};

/* ---- Firmware image ---------------------------------------------------- */
#define IPU_FW_MAGIC		0x57465049u	/* "IPFW" as LE u32 */
#define IPU_FW_FORMAT		1
#define IPU_FW_HEADER_SIZE	64
#define IPU_FW_MAX_SIZE		0x100000u
#define IPU_FW_SUPPORTED_MAJOR	1

/**
 * struct ipu_fw_header - the first 64 bytes of a firmware image.
 * @magic: IPU_FW_MAGIC.
 * @format: IPU_FW_FORMAT.
 * @header_size: IPU_FW_HEADER_SIZE.
 * @fw_version: major << 16 | minor << 8 | patch.
 * @flags: zero.
 * @payload_size: bytes after the header; header + payload = image.
 * @payload_crc32: CRC-32 (zlib's, IEEE 802.3) of the payload.
 * @reserved: zero.
 * @header_crc32: CRC-32 of the 60 bytes before it.
 */
struct ipu_fw_header {
	__u32 magic;
	__u16 format;
	__u16 header_size;
	__u32 fw_version;
	__u32 flags;
	__u32 payload_size;
	__u32 payload_crc32;
	__u32 reserved[9];
	__u32 header_crc32;
};

/* Payload records: { __u32 tag; __u32 len; len bytes; pad to 4 }. */
#define IPU_FW_REC_IDENT	1	/* NUL-terminated build string */
#define IPU_FW_REC_EXE_VERSIONS	2	/* __u32 min, max executable version */
#define IPU_FW_REC_MAX_REPLICAS	3	/* __u32 */

#endif /* IPU_HW_H */
