/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * emu_internal.h - what the files of the device half of ipu-emu share.
 *
 *   emu_dev.c        create/destroy, regions, the device lock, logging
 *   emu_dev_cfg.c    PCI config space (header, PM, MSI-X, PCIe, DSN, AER)
 *   emu_dev_regs.c   the BAR0 register file: access checks and dispatch
 *   emu_dev_irq.c    IRQ_CAUSE/MASK/RAISE -> MSI-X vectors; the error log
 *   emu_dev_bus.c    the device as a bus master: host memory accesses and
 *                    interrupt messages, gated by BME; the MSI-X PBA
 *   emu_dev_queue.c  rings: registers, enable/disable, one thread per queue
 *   emu_dev_dma.c    DMA descriptors (queues 0 and 1)
 *   emu_dev_cmd.c    command descriptors (queue 2): NOP, LAUNCH
 *   emu_dev_run.c    runs of launches across linked IPUs, deadlines
 *   emu_dev_gather.c the gather ring: a split program's run asks the host
 *                    for the other instances' operands
 *   emu_dev_fw.c     firmware boot
 *   emu_dev_fwimage.c  the firmware image format: validation
 *   emu_dev_reset.c  soft reset and FLR
 *   emu_dev_posted.c posted register writes: the stops, soft resets and
 *                    boots they start, finished later on the device's
 *                    posted thread
 *   emu_dev_telemetry.c  temperature, power, clocks, counters
 *   emu_dev_fault.c  fault injection
 *
 * Locking. dev->lock protects every register value and the queues' state;
 * the queue threads drop it while they move data or run a launch. No
 * access of host memory is made with dev->lock held: not the fetch, the
 * data, a status word, a writeback record, reset's E_RESET words nor the
 * gather ring. The host may take its time over any of them (a vfio-user
 * client answers DMA_READ/DMA_WRITE from its main loop, and QEMU's waits
 * for the BQL, which a vCPU holds while it waits for a register read of
 * this device), and no register access may wait for host memory. What
 * keeps the registers and the access in order instead: a queue's q->busy
 * (a disable, reset or FLR waits for it), dev->reset_writing (a reset's
 * words, emu_dev_queue.c), the gather ring's posting (a disable or reset
 * waits for the request being written). Only irq() runs with dev->lock
 * held: the transport sends an interrupt without blocking (an io_uring
 * write of an eventfd). The transport's ops take only leaf locks of their
 * own and never call back into the device. emu_dev_run.c has its own
 * process-wide lock, never taken before dev->lock (reset holds dev->lock
 * and then takes it; a command thread never takes dev->lock while
 * holding it).
 *
 * Posted writes. A register write never waits for a queue, a run or
 * the posted thread (but with a window of 0, v1's synchronous behaviour,
 * where it waits on dev->idle as before): it changes registers, sets
 * abort flags, kicks runs (emu_run_kick(): dev->lock, then the run lock,
 * as reset does) and leaves the rest to the posted thread. That thread
 * takes dev->lock alone, waits on dev->idle (a queue went idle, or new
 * posted work), and finishes a stop or a reset only once the queues
 * concerned are idle, so it never waits for a run while holding the run
 * lock and never holds anything a queue thread needs to get idle. A
 * queue thread that late_completion holds waits on its q->cond, with
 * dev->lock dropped, until its stop's deadline (FLR and destroy end the
 * wait at once).
 */
#ifndef IPU_EMU_INTERNAL_H
#define IPU_EMU_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ipu/firmware.h>
#include <ipu/hw.h>

#include "emu_dev.h"

struct emu_launch;
struct emu_gather_wait;

/**
 * struct emu_instance - an INSTANCE context (docs/hardware.md 4.4).
 * @index, @count: the instance, of how many.
 * @staging, @staging_size: the gather staging area in device memory.
 */
struct emu_instance {
	uint32_t index, count;
	uint64_t staging, staging_size;
};

/**
 * struct emu_profile - a PROFILE context (docs/hardware.md 4.5).
 * @addr, @size: the profile buffer in device memory.
 * @code: IPU_CQ_OK, or the PROFILE's error, which its LAUNCH fails with.
 */
struct emu_profile {
	uint64_t addr, size;
	uint32_t code;
};

/**
 * struct emu_gring - the gather request ring (docs/hardware.md 4.4);
 * protected by dev->lock.
 * @base, @size, @ctrl, @head, @tail, @wb_addr, @status, @posted,
 *	@answer_status: the registers.
 * @seq: the last request's number.
 * @waiters: requests posted and not answered (their runs wait).
 * @cond: an answer, a HEAD write, a disable or reset (CLOCK_MONOTONIC).
 */
struct emu_gring {
	uint64_t base;
	uint32_t size;
	uint32_t ctrl;
	uint32_t head, tail;
	uint64_t wb_addr;
	uint32_t status;
	uint32_t posted;
	uint64_t posted64;
	uint32_t answer_status;
	uint32_t seq;
	struct emu_gather_wait *waiters;
	pthread_cond_t cond;
	bool stopping;		/* CTRL cleared, STATUS.ENABLED until @stop_at */
	uint64_t stop_at;	/* emu_now_us() */
	/* A request is being written, dev->lock dropped (emu_dev_gather.c):
	 * a disable, reset or stop waits for it (@cond, dev->idle). */
	bool posting;
};

/**
 * struct emu_queue - one ring and its thread.
 * @q: IPU_QUEUE_*.
 * @dsize: descriptor bytes.
 * @base, @size, @wb_addr, @ctrl, @tail, @head, @status, @completed,
 *	@errors, @deadline_ms: the registers.
 * @busy: the thread has taken a descriptor and not finished it.
 * @abort: set by disable, reset and destroy: the descriptor in progress is
 *	abandoned (launch cancelled); read without the lock by run.c.
 * @discard: reset: the descriptor in progress gets no status from its
 *	thread (reset writes E_RESET over every published one).
 * @cond: wakes the thread (doorbell, enable, abort, stop).
 * @thread: the queue's thread.
 * @stopping: CTRL.ENABLE was cleared by a posted write and the stop is not
 *	over: STATUS.ENABLED stays set until @stop_at (emu_now_us()) has
 *	passed and the queue is idle.
 * @late: the late_completion fault: the descriptor in progress completes
 *	(data, status, writeback, interrupt) no earlier than @stop_at.
 */
struct emu_queue {
	struct emu_dev *dev;
	unsigned int q;
	uint32_t dsize;
	uint64_t base;
	uint32_t size;
	uint64_t wb_addr;
	uint32_t ctrl;
	uint32_t tail;
	uint32_t head;
	uint32_t status;
	uint32_t completed;
	uint32_t errors;
	uint32_t deadline_ms;
	uint64_t completed64;
	bool busy;
	bool held;	/* bad_writeback: the descriptor waits for TAIL */
	atomic_bool abort;
	bool discard;
	pthread_cond_t cond;
	pthread_t thread;
	bool started;
	bool stopping;
	bool late;
	uint64_t stop_at;
};

/*
 * The bad_writeback fault: the head a hostile writeback reports before the
 * descriptor in progress has even started (docs/hardware.md section 11).
 */
enum emu_bad_wb {
	EMU_BAD_WB_NONE,
	EMU_BAD_WB_EARLY,	/* TAIL: everything published, claimed done */
	EMU_BAD_WB_BEYOND,	/* TAIL + 1: a slot the host never published */
	EMU_BAD_WB_RANGE,	/* SIZE + HEAD: outside the ring */
	EMU_BAD_WB_BEHIND,	/* HEAD - 1: backwards */
};

/*
 * The bad_gather fault: what the next gather request lies about
 * (docs/hardware.md section 11).
 */
enum emu_bad_gather {
	EMU_BAD_GATHER_NONE,
	EMU_BAD_GATHER_OWNER,	/* owner + 1: a process with no such launch */
	EMU_BAD_GATHER_BYTES,	/* UINT64_MAX: a part no staging area holds */
	EMU_BAD_GATHER_STAGING,	/* staging + 64: not the INSTANCE's area */
};

/* Pending injected faults; protected by dev->lock. 0 = none. */
struct emu_faults {
	uint64_t fail_dma;	/* descriptors left until the failing one */
	uint64_t corrupt_dma;
	uint64_t hang_launch;
	uint64_t hang_dma;	/* descriptors left until the stalled one */
	uint64_t ignore_reset;	/* soft resets left until the ignored one */
	enum emu_bad_wb bad_writeback;	/* the next descriptor's lie */
	enum emu_bad_gather bad_gather;	/* the next gather request's lie */
	bool refuse_fw;
	bool hold_launches;	/* launches wait to start until it is lifted */
	bool no_gather;		/* CAPS without GATHER, its registers inert */
	bool no_profile;	/* CAPS without PROFILE, an unknown opcode */
	bool late_completion;	/* the next disable/soft reset's work ends late */
	uint32_t caps_xor;	/* CAPS reads XOR this: what CAPS says, only */
	bool never_idle;	/* no ring's stop finishes (broken silicon) */
	bool power_loss;	/* entering D3hot cuts the power (D3cold) */
};

struct emu_dev {
	struct emu_dev_opts opts;
	struct emu_host_ops host;
	char name[16];

	pthread_mutex_t lock;
	/* A queue went idle (busy cleared), or posted work arrived
	 * (CLOCK_MONOTONIC). */
	pthread_cond_t idle;
	bool stopping;		/* destroy: threads exit */

	/* Posted writes in progress (emu_dev_posted.c). */
	pthread_t posted_thread;
	bool posted_started;
	uint32_t resets_pending;	/* SOFT_RESET writes not finished */
	uint64_t reset_at;		/* emu_now_us() */
	bool boot_pending;		/* FW_CTRL BOOT: FW_STATUS BOOTING */
	uint64_t boot_at;
	uint64_t rand_state;		/* --posted-window-us rand:N */
	/* A reset writes its E_RESET words, dev->lock dropped
	 * (emu_dev_queue.c); dev->idle is broadcast when it is done. */
	bool reset_writing;

	/* Device memory: a memfd, mapped at @mem; a new one mapped there for
	 * each new client (emu_mem_renew_locked()). */
	int mem_fd;
	uint8_t *mem;
	uint64_t mem_size;

	/* Config space (emu_dev_cfg.c). */
	uint8_t cfg[EMU_CFG_SIZE];
	/* Command.BME as last written, for the accesses made without the
	 * lock (emu_dev_bus.c). */
	atomic_bool bus_master;
	uint8_t cfg_wmask[EMU_CFG_SIZE];
	uint8_t cfg_w1c[EMU_CFG_SIZE];

	/* Registers. */
	uint32_t scratch;
	uint32_t irq_cause;
	uint32_t irq_mask;
	uint32_t reset_count;
	uint64_t fw_addr;
	uint32_t fw_size;
	uint32_t fw_status;
	uint32_t fw_version;
	uint32_t msix[IPU_MSIX_VECTORS * 4];
	uint32_t msix_pending;	/* the PBA (emu_dev_bus.c) */
	uint32_t msi_pending;	/* MSI messages held, a bit each */
	uint32_t err_count;
	uint32_t err_log[IPU_ERR_LOG_LEN][4];

	/* Telemetry (emu_dev_telemetry.c). */
	uint32_t mem_ce, mem_ue;
	uint32_t launches;
	uint64_t h2d_bytes, d2h_bytes;
	uint64_t up_since_ms;
	/* The high halves latched by reads of the 64-bit counters' low halves. */
	uint32_t counter_hi[3];
	atomic_int running;	/* launches running now */
	atomic_int dma_busy;	/* DMA descriptors moving now */

	/* Link as trained (fault link_speed/link_width). */
	unsigned int link_speed, link_width;

	struct emu_faults faults;
	atomic_bool off_bus;
	atomic_bool keep_client;	/* off the bus by link_down */
	atomic_uint stalled;		/* descriptors held by hang_dma now */

	struct emu_queue queues[IPU_NUM_QUEUES];
	/* The command queue's INSTANCE context, for its next LAUNCH. */
	struct emu_instance queue_ctx;
	bool has_queue_ctx;
	/* Its PROFILE context, likewise (forgotten with the INSTANCE one). */
	struct emu_profile queue_prof;
	bool has_queue_prof;
	struct emu_gring gring;
};

/* emu_dev.c */
uint64_t emu_now_ms(void);
uint64_t emu_now_us(void);
/* A message to stderr, "ipu-emu: ipuN: ...". */
void emu_log(const struct emu_dev *dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* As emu_log(), rate-limited: for errors a guest can provoke. */
void emu_log_limited(const struct emu_dev *dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Whether [addr, addr + len) lies in device memory. */
bool emu_mem_range_ok(const struct emu_dev *dev, uint64_t addr, uint64_t len);
/* New zeroed device memory at the same address, in a new memfd (the old
 * one's pages stay only with whoever still maps them); -errno. */
int emu_mem_renew_locked(struct emu_dev *dev);

/* emu_dev_cfg.c */
void emu_cfg_init(struct emu_dev *dev);
/* FLR: the config registers a function reset clears. */
void emu_cfg_flr(struct emu_dev *dev);
/* Power-on: also the sticky registers (AER), which FLR keeps. */
void emu_cfg_power_on(struct emu_dev *dev);
/* Whether the function implements AER error @bit (uncorrectable or not). */
bool emu_cfg_aer_implemented(bool uncor, unsigned int bit);
/* An AER error the function detected: @bit of the (un)correctable status. */
int emu_cfg_aer_error_locked(struct emu_dev *dev, bool uncor, unsigned int bit);
/* Bus Master Enable in the Command register (dev->lock held). */
bool emu_cfg_bus_master_locked(const struct emu_dev *dev);
/* MSI messages the host enabled: 0 (MSI Enable clear), 1, 2 or 4. */
int emu_cfg_msi_messages_locked(const struct emu_dev *dev);
/* MSI-X Message Control's MSI-X Enable (false for a function with MSI). */
bool emu_cfg_msix_enabled_locked(const struct emu_dev *dev);
/* MSI-X Message Control's Function Mask. */
bool emu_cfg_msix_function_masked_locked(const struct emu_dev *dev);
/* Link Status from dev->link_speed/width, LBMS set when @retrained. */
void emu_cfg_link_update(struct emu_dev *dev, bool retrained);

/* emu_dev_bus.c: the device as a bus master. */
enum emu_bus_use {
	EMU_BUS_CONTROL,	/* descriptors, status, writeback, gather ring */
	EMU_BUS_DATA,		/* a DMA descriptor's data */
};
/* Whether an access for @use may be made now (BME, or --lenient bme). */
bool emu_bus_master(const struct emu_dev *dev, enum emu_bus_use use);
/* A host-memory access: 0, -EPERM when BME refuses it (nothing is
 * accessed; the caller halts with IPU_ERR_BUS_MASTER), or the host's
 * error (-EFAULT). Lock held or not, as the host ops allow. */
int emu_bus_read(struct emu_dev *dev, enum emu_bus_use use, uint64_t addr,
		 void *dst, size_t len);
int emu_bus_write(struct emu_dev *dev, enum emu_bus_use use, uint64_t addr,
		  const void *src, size_t len);
/*
 * emu_bus_write() for a caller that holds dev->lock (held again on
 * return), made with the lock dropped: the host may take its time over
 * any access (see "Locking" above), and no register access may wait for
 * it. The caller keeps what it writes for from changing meanwhile (a
 * queue's busy, the gather ring's posting) and looks again after it.
 */
int emu_bus_write_unlocked(struct emu_dev *dev, enum emu_bus_use use,
			   uint64_t addr, const void *src, size_t len);
/* Send MSI-X vector (MSI message) @vec, or make it pending (dev->lock). */
void emu_bus_msg_locked(struct emu_dev *dev, unsigned int vec);
/* Send what is pending and no longer held: after BME, Function Mask or a
 * vector's Mask bit changed (dev->lock held). */
void emu_bus_kick_locked(struct emu_dev *dev);
/* The MSI-X PBA's dword at @off (RO). */
uint32_t emu_bus_pba_read_locked(const struct emu_dev *dev, uint32_t off);
/*
 * emu_dma_process()'s answer when the descriptor's data needed bus
 * mastering and BME was clear: the queue halts with IPU_ERR_BUS_MASTER
 * and the descriptor gets no status word. Not a status code.
 */
#define EMU_DESC_NO_BUS		0xffffffffu

/* emu_dev_regs.c */
int emu_regs_read(struct emu_dev *dev, uint64_t off, void *buf, uint32_t len);
int emu_regs_write(struct emu_dev *dev, uint64_t off, const void *buf,
		   uint32_t len);

/* emu_dev_irq.c (dev->lock held) */
void emu_irq_set_locked(struct emu_dev *dev, uint32_t bits);
void emu_irq_ack_locked(struct emu_dev *dev, uint32_t bits);
void emu_irq_mask_locked(struct emu_dev *dev, uint32_t mask);
/* Append to the error log and raise ERROR. */
void emu_err_locked(struct emu_dev *dev, uint32_t code, uint32_t info,
		    uint64_t detail);
uint32_t emu_errlog_read_locked(const struct emu_dev *dev, uint32_t off);

/* emu_dev_queue.c */
int emu_queues_start(struct emu_dev *dev);
/* Stop and join the threads (destroy). */
void emu_queues_stop(struct emu_dev *dev);
uint32_t emu_queue_reg_read_locked(struct emu_dev *dev, unsigned int q,
				   uint32_t off);
void emu_queue_reg_write_locked(struct emu_dev *dev, unsigned int q,
				uint32_t off, uint32_t val);
/*
 * Abort every queue: the work in progress is abandoned and, once the
 * threads are idle, every published descriptor of an enabled queue gets
 * status DONE | E_RESET. Then the registers return to reset values.
 */
void emu_queues_reset_locked(struct emu_dev *dev);
/*
 * Block @q's thread, dev->lock not held, until the queue's work is
 * aborted (disable, soft reset, FLR, the device stopping): the hang_launch
 * and hang_dma faults.
 */
void emu_queue_wait_abort(struct emu_queue *q);

/* A ring's BASE, SIZE and WB_ADDR (the queues' and the gather ring's). */
struct emu_ring_config {
	uint64_t *base;
	uint32_t *size;
	uint64_t *wb_addr;
};
/* Whether a ring of @size entries of @dsize bytes at @base, writeback at
 * @wb_addr, may be enabled (docs/hardware.md 4.1). */
bool emu_ring_config_ok(uint64_t base, uint32_t size, uint32_t dsize,
			uint64_t wb_addr);
/* A write at @off of ring @qi's block, when it is BASE, SIZE or WB_ADDR
 * (ignored and logged while @is_enabled); false for any other @off. */
bool emu_ring_config_write_locked(struct emu_dev *dev, unsigned int qi,
				  bool is_enabled, struct emu_ring_config *rc,
				  uint32_t off, uint32_t val);

/*
 * A posted soft reset begins: no queue fetches any more; the descriptors
 * in progress go on (launches cancelled) and complete with their own
 * status, no earlier than @until when @late (late_completion).
 */
void emu_queues_quiesce_locked(struct emu_dev *dev, uint64_t until,
			       bool late);

/* Wake every queue thread (a doorbell, off_bus). */
void emu_queues_kick_locked(struct emu_dev *dev);

/* emu_dev_dma.c: process one DMA descriptor of queue @q (no lock held);
 * returns its status code (IPU_DESC_*). */
uint32_t emu_dma_process(struct emu_queue *q, const struct ipu_dma_desc *d);

/* emu_dev_cmd.c: one command descriptor; returns IPU_CQ_* (E_RESET when
 * the queue was aborted meanwhile). */
int emu_cmd_process(struct emu_queue *q, const struct ipu_cmd_desc *d);
/* The command queue's pending contexts (INSTANCE, PROFILE) forgotten:
 * a disable, soft reset or FLR (sections 4.4, 4.5); dev->lock held. */
void emu_cmd_ctx_forget_locked(struct emu_dev *dev);

/* emu_dev_run.c */

/**
 * struct emu_launch - one LAUNCH as its command thread hands it to a run.
 * @dev: its device. @d: the descriptor. @deadline_ms: absolute
 * (emu_now_ms()), 0 for none. @abort: the queue's abort flag.
 * @result: IPU_CQ_*, set when @done.
 */
struct emu_launch {
	struct emu_dev *dev;
	struct ipu_cmd_desc d;
	uint64_t deadline_ms;
	atomic_bool *abort;
	int result;
	bool done;
	bool timed_out;
	bool filed;	/* joined its run: LAUNCHES counts it (section 3) */
	bool has_inst;
	struct emu_instance inst;
	bool has_prof;
	struct emu_profile prof;
};
/* Process-wide: start/stop the deadline watchdog (first/last device). */
int emu_run_get(void);
void emu_run_put(void);
/* Run @l (alone, or with the other replicas of its run); blocks until it
 * completes. Returns IPU_CQ_*. */
int emu_run_launch(struct emu_launch *l);
/* Wake the waiters and the watchdog: an abort flag was set. */
void emu_run_kick(void);
/* Map an errno of the loader or executor to IPU_CQ_*. */
int emu_run_errno_to_cmd(int err);

/* emu_dev_gather.c */

/**
 * struct emu_gather_call - a split run's instances, as its executor sees
 * them (the firmware's allgather, struct ipufw_instances, carried to the
 * host through replica 0's IPU).
 * @inst: what the executor gets; @inst.ctx is this call.
 * @dev: the IPU of the run's replica 0, whose ring posts the requests.
 * @d: that launch's descriptor (group, owner, replica for the request).
 * @staging, @staging_size: its INSTANCE's staging area.
 * @collective: gathers made so far.
 * @stop: whether the run must stop waiting (abort, deadline, cancel).
 * @failed: a gather failed for a reason of its own (not a stop).
 */
struct emu_gather_call {
	struct ipufw_instances inst;
	struct emu_dev *dev;
	const struct ipu_cmd_desc *d;
	uint64_t staging, staging_size;
	uint32_t collective;
	bool (*stop)(void *arg);
	void *stop_arg;
	bool failed;
};
/* Fill @c's @inst for @li's context; @c's other fields are the caller's. */
void emu_gather_call_init(struct emu_gather_call *c,
			  const struct emu_instance *li);
void emu_gather_init(struct emu_dev *dev);
void emu_gather_destroy(struct emu_dev *dev);
uint32_t emu_gather_reg_read_locked(struct emu_dev *dev, uint32_t off);
void emu_gather_reg_write_locked(struct emu_dev *dev, uint32_t off,
				 uint32_t val);
/* The ring as reset (soft reset, FLR; the no_gather fault: the extension
 * goes): its registers to reset values, every waiting request failed. */
void emu_gather_forget_locked(struct emu_dev *dev);

/*
 * The device memory the firmware owns (docs/hardware.md 8.3): the model's
 * firmware runs in ipu-emu, not in device memory, but the region is
 * reserved all the same, at device address 0, as silicon would need it.
 * Device memory is never smaller (IPU_MEM_MIN_SIZE).
 */
#define EMU_FW_REGION_SIZE	IPU_FW_MAX_SIZE
_Static_assert(EMU_FW_REGION_SIZE <= IPU_MEM_MIN_SIZE, "region fits");

/* emu_dev_fw.c: FW_CTRL = BOOT (dev->lock held). Whether it is refused
 * (busy: the state stays), then the boot itself (FW_STATUS BOOTING, then
 * READY or FAILED). */
bool emu_fw_boot_refused_locked(struct emu_dev *dev);
void emu_fw_boot_locked(struct emu_dev *dev);

/* emu_dev_fwimage.c: validate the @len bytes at @img; IPU_FW_ERR_*, and
 * the image's version in *@version when it is valid. */
int emu_fw_validate(const uint8_t *img, uint64_t len, uint32_t *version);

/* emu_dev_reset.c */
void emu_soft_reset_locked(struct emu_dev *dev);
void emu_flr_locked(struct emu_dev *dev);
/* The registers' power-on values (create and FLR). */
void emu_regs_reset_locked(struct emu_dev *dev);
/* The platform cut the function's power (fault power_loss): power-on. */
void emu_power_cut_locked(struct emu_dev *dev);

/* emu_dev_posted.c */
int emu_posted_start(struct emu_dev *dev);
/* Destroy: the posted thread exits (dev->stopping set), joined. */
void emu_posted_stop(struct emu_dev *dev);
/* This write's window in microseconds (0: act synchronously, as v1). */
uint32_t emu_posted_window_locked(struct emu_dev *dev);
/* Take the late_completion fault, if armed (a disable or soft reset). */
bool emu_posted_take_late_locked(struct emu_dev *dev);
/* Wake the posted thread: new posted work. */
void emu_posted_kick_locked(struct emu_dev *dev);
/* A queue thread about to complete its descriptor (or move its data):
 * wait while late_completion holds it. The unlocked one (before the
 * data): false when a reset or FLR abandoned the descriptor meanwhile
 * (its data must not move). */
void emu_posted_late_wait_locked(struct emu_queue *q);
bool emu_posted_late_wait(struct emu_queue *q);
/* SOFT_RESET and FW_CTRL BOOT, as written. */
void emu_posted_soft_reset_locked(struct emu_dev *dev);
void emu_posted_boot_locked(struct emu_dev *dev);
/* FLR: every posted stop, reset and boot in progress ends now (their
 * late descriptors are released; the FLR's reset does the rest). */
void emu_posted_cancel_locked(struct emu_dev *dev);
/* The queue's and the ring's posted stops, finished (posted thread). */
void emu_queue_stop_finish_locked(struct emu_queue *q);
void emu_gather_stop_finish_locked(struct emu_dev *dev);

/* emu_dev_telemetry.c */
/* A read of the low half of a 64-bit counter latches its high half. */
uint32_t emu_telemetry_read_locked(struct emu_dev *dev, uint32_t off);

#endif /* IPU_EMU_INTERNAL_H */
