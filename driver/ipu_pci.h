/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCIe IPUs (docs/hardware.md): the second implementation of struct
 * ipu_hw_ops, shared between the files of the PCI backend.
 */
#ifndef _IPU_PCI_H
#define _IPU_PCI_H

#include <linux/completion.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/pm.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <ipu/hw.h>

#include "ipu_drv.h"

struct iov_iter;
struct pci_dev;
struct task_struct;

/* Entries per DMA ring: 256 segments of up to 16 MiB in flight. */
#define IPU_PCI_DMA_RING 256

/* Entries of the command ring: 511 launches on the device at most. */
#define IPU_PCI_CMD_RING 512

/* "ipuNNN-misc" and the like: the names /proc/interrupts shows. */
#define IPU_PCI_IRQ_NAME_LEN 16

struct ipu_pci_dma_req;

/**
 * struct ipu_pci_queue - one DMA queue (ipu_pci_dma.c)
 * @ipu: its device.
 * @index: IPU_QUEUE_H2D or IPU_QUEUE_D2H.
 * @regs: its register block in BAR0.
 * @cause: its IRQ_CAUSE bit.
 * @irq: its vector's Linux interrupt (none with one vector: vector 0's).
 * @ring: IPU_PCI_DMA_RING descriptors, coherent DMA memory.
 * @ring_dma: bus address of @ring.
 * @wb: the completion writeback, coherent DMA memory.
 * @wb_dma: bus address of @wb.
 * @xfer_lock: one batch on the ring at a time; protects @tail and
 *	@enabled's clearing side, the ring's host-owned entries and @owner.
 *	Its holder posts the transfers of @pending (ipu_pci_dma()).
 * @pend_lock: protects @pending and @npending.
 * @pending: transfers mapped and waiting to be posted, in arrival order
 *	(struct ipu_pci_dma_req): the holder of @xfer_lock takes them all
 *	and posts them behind one doorbell.
 * @npending: how many transfers @pending holds (the ipu_dma_queue event).
 * @owner: the transfer each descriptor of the batch on the ring belongs to.
 * @tail: the next entry the host fills (TAIL as last written).
 * @enabled: the ring is programmed and enabled.
 * @gen: bumped by each soft reset, which ends the batches in flight.
 * @resetting: a reset is under way (ipu_pci_dma_reset_prepare() up to
 *	ipu_pci_dma_reset()): transfers post nothing to the ring, and those
 *	that were waiting for @xfer_lock wait for it instead of failing.
 * @held: the ring did not stop when the driver stopped it (the device is
 *	hung): the transfer on it keeps its pages and mapping for good.
 * @stopped: the ring has stopped (a timeout or a lie while a reset was
 *	under way, or suspend) and was left for the reset to enable: if
 *	that reset did not happen (ipu_pci_dma_reset_cancel(), a failed
 *	one at resume), the next holder of @xfer_lock enables it.
 * @wait: transfers waiting for their batch, or for @resetting to clear;
 *	woken by the queue's vector (or vector 0, with one) and by the reset.
 * @post_wait: transfers of @pending waiting to be posted or for the ring
 *	to be free; woken whenever @xfer_lock is let go of (apart from the
 *	interrupts, which would only wake them for nothing).
 */
struct ipu_pci_queue {
	struct ipu_pci *ipu;
	int index;
	void __iomem *regs;
	u32 cause;
	int irq;
	struct ipu_dma_desc *ring;
	dma_addr_t ring_dma;
	struct ipu_queue_wb *wb;
	dma_addr_t wb_dma;
	struct mutex xfer_lock; /* the ring, @tail, @enabled, @owner, @stopped */
	spinlock_t pend_lock; /* @pending, @npending */
	struct list_head pending;
	u32 npending;
	struct ipu_pci_dma_req *owner[IPU_PCI_DMA_RING];
	u32 tail;
	bool enabled;
	u32 gen;
	bool resetting;
	bool held;
	bool stopped;
	wait_queue_head_t wait;
	wait_queue_head_t post_wait;
};

/**
 * struct ipu_pci_cmdq - the command queue (ipu_pci_cmd.c)
 * @regs: its register block in BAR0.
 * @irq: its vector's Linux interrupt (none with one vector: vector 0's).
 * @ring: IPU_PCI_CMD_RING descriptors, coherent DMA memory.
 * @ring_dma: bus address of @ring.
 * @wb: the completion writeback, coherent DMA memory.
 * @wb_dma: bus address of @wb.
 * @lock: protects everything below.
 * @slot: the launch of each descriptor the device owns, referenced.
 * @head: the oldest descriptor not yet reported.
 * @tail: the next entry the host fills (TAIL as last written).
 * @enabled: the ring is programmed and enabled.
 */
struct ipu_pci_cmdq {
	void __iomem *regs;
	int irq;
	struct ipu_cmd_desc *ring;
	dma_addr_t ring_dma;
	struct ipu_queue_wb *wb;
	dma_addr_t wb_dma;
	spinlock_t lock; /* slot, head, tail, enabled */
	struct ipu_launch_req *slot[IPU_PCI_CMD_RING];
	u32 head;
	u32 tail;
	bool enabled;
};

/* Entries of the gather ring: an IPU has one request pending at most. */
#define IPU_PCI_GATHER_RING 16

/**
 * struct ipu_pci_gatherq - the gather ring (ipu_pci_gather.c)
 * @regs: its register block in BAR0.
 * @ring: IPU_PCI_GATHER_RING requests, coherent DMA memory (device-written).
 * @ring_dma: bus address of @ring.
 * @wb: the writeback, coherent DMA memory.
 * @wb_dma: bus address of @wb.
 * @lock: protects @head and @enabled, the ANSWER registers (a status and
 *	its doorbell are two writes) and the bumps of ipu_device.gather_gen.
 * @head: the next request the host takes (HEAD as last written).
 * @enabled: the ring is programmed and enabled (the device has the
 *	capability and it did not refuse the ring).
 */
struct ipu_pci_gatherq {
	void __iomem *regs;
	struct ipu_gather_req *ring;
	dma_addr_t ring_dma;
	struct ipu_gather_wb *wb;
	dma_addr_t wb_dma;
	struct mutex lock; /* head, enabled, ANSWER, gather_gen */
	u32 head;
	bool enabled;
};

/**
 * struct ipu_pci - one PCIe IPU
 * @idev: the core's device; its release frees this structure, which may
 *	outlive the PCI function (files still open after removal).
 * @pdev: the function; NULL-free only while bound (every use is inside the
 *	core's unplug guard or before ipu_device_unregister()).
 * @regs: BAR0, the registers.
 * @mem: BAR2, device memory, mapped write-combining.
 * @mem_phys: bus address of BAR2, for the PFNs of mmap.
 * @serial: from the Device Serial Number capability.
 * @fw_version: FW_VERSION after a successful boot.
 * @fw_image: the firmware image, read and checked once at probe
 *	(ipu_pci_fw.c), kvmalloc'd; every boot stages this copy.
 * @fw_size: its bytes.
 * @fw_region: FW_REGION_ADDR: the device memory offset of the firmware's
 *	region (spec section 8.3), reserved in the buffer pool.
 * @fw_region_size: FW_REGION_SIZE, or 0 once the reservation is given back.
 * @pci_domain: PCI domain, for GET_INFO (kept: @pdev may be gone).
 * @pci_bdf: bus << 8 | devfn, for GET_INFO.
 * @irq_names: the name of each vector's handler (only [0] with one vector).
 * @nvec: vectors allocated: 4 (MSI-X, or MSI with 4 messages) or fewer
 *	(MSI: 1 or 2), when vector 0 serves every cause (ipu_pci_irq.c).
 * @msi: the vectors are MSI messages, not MSI-X.
 * @irq_thread_causes: the causes a hard half left for its thread (IRQ_CAUSE
 *	bits, accumulated until the thread takes them): vector 0's with one
 *	vector, else vector 3's (CMD, GATHER).
 * @irq_unmasked: IRQ_CAUSE bits unmasked; written by probe and reset,
 *	which the core serialises (ipu_device.lock) and the self-test, which
 *	only adds IPU_IRQ_SW, present from probe on.
 * @err_seen: ERR_COUNT up to which the error log was reported; only the
 *	threaded handler of vector 0 touches it once the device is up, but
 *	for the FLR, which restarts the log and waits for the handler.
 * @fw_booted: completed by vector 0 when FW_BOOT is raised.
 * @selftest_lock: serialises interrupt self-tests (probe, debugfs).
 * @selftest_done: completed by vector 0 when the SW cause is raised.
 * @dmaq: the H2D and D2H queues.
 * @cmdq: the command queue.
 * @gatherq: the gather ring, when the device has one (IPU_CAPS_GATHER).
 * @removing: remove() has begun: transfers waiting for the device stop
 *	waiting (they run inside the core's unplug guard, which removal
 *	waits for, and a dead device would hold it for their whole bound).
 * @gone: the function fell off the bus (a register read all ones, spec
 *	section 10): nothing touches it any more, transfers waiting for it
 *	stop as for @removing, and @gone_work unbinds the driver.
 * @gone_work: unbinds the driver from a function that fell off the bus,
 *	so that its files get -ENODEV and its resources go as in remove().
 * @hwmon: the hwmon device (ipu_pci_hwmon.c), whose reads use this
 *	structure: unregistered before remove() drops its reference; NULL
 *	without IPU_CAPS_TELEMETRY.
 * @caps: CAPS as read at probe (ipu_pci_check_caps()).
 * @resets: resets of the function under way (the PCI core's
 *	reset_prepare to reset_done, AER's error_detected to resume): BAR0
 *	may read all ones meanwhile, which then says nothing about removal.
 * @reset_gen: bumped as each of them begins, so that a reader whose reads
 *	overlapped a reset that ended since knows it (ipu_pci_check_gone()).
 * @flr_task: the task in the driver's own FLR (ipu_pci_flr()), whose
 *	reset_prepare/reset_done are its own business.
 * @core_reset: the PCI core reset the function (an FLR it started, or a
 *	slot or bus reset of error recovery): ipu_pci_reset() skips its own
 *	and only brings the function back.
 * @core_reset_entered: reset_prepare took the device's lock: reset_done
 *	recovers and gives it back.
 * @aer_frozen: AER reported a fatal error (error_detected to resume).
 * @aer_recovered: the function was brought back since (by reset_done
 *	of the core's slot or bus reset, or by slot_reset).
 * @hung: a ring did not stop within IPU_STOP_TIMEOUT_MS (spec 2.1): the
 *	device may write what its rings reach at any time, so none of it is
 *	freed (ipu_pci_quiesce.c); @gone is set too, and the driver unbinds.
 * @suspended: system sleep (ipu_pci_pm.c), from suspend to resume, or
 *	shutdown: the rings are stopped, and the reset op leaves the
 *	function alone (it may be in D3hot); set and cleared under
 *	ipu_device.lock, read without it by a DMA queue's poster
 *	(ipu_pci_q_stopping()).
 * @flr_dark_ms: fault injection (ipu_pci_flr_dark.c, debugfs
 *	flr_reads_all_ones): 0, or BAR0 reads all ones during resets of the
 *	function, for at least this many ms.
 * @flr_dark: BAR0 reads all ones now (a reset under way, @flr_dark_ms).
 * @flr_dark_since: when @flr_dark was set.
 * @flr_dark_reads: reads answered all ones by @flr_dark.
 */
struct ipu_pci {
	struct ipu_device idev;
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *mem;
	phys_addr_t mem_phys;
	u64 serial;
	u32 fw_version;
	void *fw_image;
	size_t fw_size;
	u64 fw_region;
	u64 fw_region_size;
	u32 pci_domain;
	u32 pci_bdf;
	char irq_names[IPU_MSIX_VECTORS][IPU_PCI_IRQ_NAME_LEN];
	int nvec;
	bool msi;
	atomic_t irq_thread_causes;
	u32 irq_unmasked;
	u32 err_seen;
	struct completion fw_booted;
	struct mutex selftest_lock; /* one self-test at a time */
	struct completion selftest_done;
	struct ipu_pci_queue dmaq[2];
	struct ipu_pci_cmdq cmdq;
	struct ipu_pci_gatherq gatherq;
	bool removing;
	atomic_t gone;
	struct work_struct gone_work;
	struct device *hwmon;
	u32 caps;
	atomic_t resets;
	atomic_t reset_gen;
	struct task_struct *flr_task;
	bool core_reset;
	bool core_reset_entered;
	bool aer_frozen;
	bool aer_recovered;
	bool hung;
	bool suspended;
	u32 flr_dark_ms;
	bool flr_dark;
	ktime_t flr_dark_since;
	atomic_t flr_dark_reads;
};

static inline struct ipu_pci *to_ipu_pci(struct ipu_device *idev)
{
	return container_of(idev, struct ipu_pci, idev);
}

/*
 * include/ipu/hw.h, shared with userspace, types the little-endian fields
 * of descriptors and writebacks __u32/__u64: these say what they hold.
 */
static inline __u32 ipu_pci_le32(u32 v)
{
	return (__force __u32)cpu_to_le32(v);
}

static inline __u64 ipu_pci_le64(u64 v)
{
	return (__force __u64)cpu_to_le64(v);
}

static inline u32 ipu_pci_from_le32(__u32 v)
{
	return le32_to_cpu((__force __le32)v);
}

/* Whether the function fell off the bus, as far as the driver has seen. */
static inline bool ipu_pci_is_gone(struct ipu_pci *ipu)
{
	return atomic_read(&ipu->gone);
}

u32 ipu_pci_flr_dark_read(struct ipu_pci *ipu);

/*
 * A BAR0 register read: all ones while the fault injection of
 * ipu_pci_flr_dark.c says a reset of the function is under way (one flag
 * tested when it is off).
 */
static inline u32 ipu_pci_readl(struct ipu_pci *ipu, const void __iomem *addr)
{
	if (unlikely(READ_ONCE(ipu->flr_dark)))
		return ipu_pci_flr_dark_read(ipu);
	return readl(addr);
}

static inline u32 ipu_pci_rd(struct ipu_pci *ipu, u32 reg)
{
	return ipu_pci_readl(ipu, ipu->regs + reg);
}

static inline void ipu_pci_wr(struct ipu_pci *ipu, u32 reg, u32 val)
{
	writel(val, ipu->regs + reg);
}

/*
 * Program a disabled queue's ring (@size entries at bus address @ring,
 * writeback of @wb_len bytes at @wb, zeroed) and enable it (spec section
 * 4.1, "Enabling"; the gather ring's registers, section 4.4, are at the
 * same offsets): HEAD = TAIL = 0 afterwards. -EIO when the device refused
 * the ring.
 */
static inline int ipu_pci_ring_enable(void __iomem *qregs, dma_addr_t ring,
				      u32 size, void *wb, size_t wb_len,
				      dma_addr_t wb_dma)
{
	memset(wb, 0, wb_len);
	writeq(ring, qregs + IPU_Q_BASE);
	writel(size, qregs + IPU_Q_SIZE);
	writeq(wb_dma, qregs + IPU_Q_WB_ADDR);
	writel(IPU_Q_CTRL_ENABLE, qregs + IPU_Q_CTRL);
	if (!(readl(qregs + IPU_Q_STATUS) & IPU_Q_STATUS_ENABLED))
		return -EIO;
	return 0;
}

/*
 * Unmask @causes in IRQ_MASK, and rewrite the mask (soft reset sets it back
 * to all masked: @causes 0 restores it).
 */
static inline void ipu_pci_unmask(struct ipu_pci *ipu, u32 causes)
{
	WRITE_ONCE(ipu->irq_unmasked, ipu->irq_unmasked | causes);
	ipu_pci_wr(ipu, IPU_REG_IRQ_MASK, IPU_IRQ_ALL & ~ipu->irq_unmasked);
}

/*
 * Whether vector 0 serves every cause: the function got fewer vectors than
 * it has causes' groups (MSI with 1 or 2 messages, spec section 6).
 */
static inline bool ipu_pci_irq_one(struct ipu_pci *ipu)
{
	return ipu->nvec < IPU_MSIX_VECTORS;
}

bool ipu_pci_check_gone(struct ipu_pci *ipu, u32 val);
int ipu_pci_read_live(struct ipu_pci *ipu, u32 reg, u32 *val);
void ipu_pci_hung(struct ipu_pci *ipu);
void ipu_pci_reset_begin(struct ipu_pci *ipu);
void ipu_pci_reset_end(struct ipu_pci *ipu);
int ipu_pci_core_recover(struct ipu_pci *ipu);

void *ipu_pci_coherent_alloc(struct ipu_pci *ipu, size_t size,
			     dma_addr_t *dma);
void ipu_pci_coherent_leak(struct ipu_pci *ipu, void *cpu);
int ipu_pci_ring_stop(struct ipu_pci *ipu, void __iomem *qregs, u32 busy,
		      const char *name);

int ipu_pci_irq_alloc(struct ipu_pci *ipu);
const char *ipu_pci_irq_kind(struct ipu_pci *ipu);
int ipu_pci_request_irqs(struct ipu_pci *ipu);
void ipu_pci_free_irqs(struct ipu_pci *ipu);
void ipu_pci_irq_quiesce(struct ipu_pci *ipu, u32 causes);
int ipu_pci_irq_selftest(struct ipu_pci *ipu);
void ipu_pci_irq_debugfs(struct ipu_pci *ipu);
void ipu_pci_flr_dark_debugfs(struct ipu_pci *ipu);
void ipu_pci_flr_dark_begin(struct ipu_pci *ipu);
void ipu_pci_flr_dark_end(struct ipu_pci *ipu);
bool ipu_pci_present(struct ipu_pci *ipu);

int ipu_pci_fw_region_init(struct ipu_pci *ipu);
void ipu_pci_fw_region_fini(struct ipu_pci *ipu);
int ipu_pci_fw_read(struct ipu_pci *ipu);
int ipu_pci_fw_boot(struct ipu_pci *ipu);

int ipu_pci_dma(struct ipu_device *idev, u64 dev_off, struct iov_iter *iter,
		bool to_device);
void ipu_pci_dma_prepare(struct ipu_pci *ipu);
int ipu_pci_dma_init(struct ipu_pci *ipu);
void ipu_pci_dma_reset_prepare(struct ipu_pci *ipu);
int ipu_pci_dma_reset(struct ipu_pci *ipu);
void ipu_pci_dma_reset_cancel(struct ipu_pci *ipu);
void ipu_pci_dma_abort(struct ipu_pci *ipu);
void ipu_pci_dma_fini(struct ipu_pci *ipu);

int ipu_pci_cmd_launch(struct ipu_device *idev, struct ipu_launch_req *req);
int ipu_pci_cmd_init(struct ipu_pci *ipu);
int ipu_pci_cmd_reset(struct ipu_pci *ipu);
void ipu_pci_cmd_fini(struct ipu_pci *ipu);
void ipu_pci_cmd_serve(struct ipu_pci *ipu, u32 cause);

struct ipu_launch_req *ipu_pci_cmd_find_split(struct ipu_pci *ipu,
					      const struct ipu_gather_req *gr);

bool ipu_pci_has_gather(struct ipu_pci *ipu);
int ipu_pci_gather_init(struct ipu_pci *ipu);
bool ipu_pci_gather_stop(struct ipu_pci *ipu);
void ipu_pci_gather_reset_cancel(struct ipu_pci *ipu, bool was);
int ipu_pci_gather_reset(struct ipu_pci *ipu);
void ipu_pci_gather_fini(struct ipu_pci *ipu);
void ipu_pci_gather_service(struct ipu_pci *ipu);
int ipu_pci_gather_answer(struct ipu_device *idev, u32 seq, u32 gen,
			  int status);

int ipu_pci_hwmon_init(struct ipu_pci *ipu);
void ipu_pci_hwmon_fini(struct ipu_pci *ipu);

extern const struct attribute_group *ipu_pci_dev_groups[];

extern const struct dev_pm_ops ipu_pci_pm_ops;
void ipu_pci_shutdown(struct pci_dev *pdev);

int ipu_pci_init(void);
void ipu_pci_exit(void);

#endif /* _IPU_PCI_H */
