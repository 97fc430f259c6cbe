/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Launches: programs handed to the device's firmware, and their completion.
 */
#ifndef _IPU_LAUNCH_H
#define _IPU_LAUNCH_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <uapi/linux/ipu.h>

struct address_space;
struct ipu_bo;
struct ipu_device;
struct ipu_file;
struct ipu_fw_work;
struct ipu_gather_inbox;
struct ipu_usage;

/**
 * struct ipu_launch_req - one launch in flight
 * @ref: the device's queue holds one while the launch is queued or running,
 *	the submitter (fence or io_uring command) one until it has the result.
 * @node: in &ipu_launch_queue.pending or .running.
 * @idev: the device; set at allocation, before the launch is published.
 * @exe_bo: buffer holding the executable; referenced.
 * @arena_bo: buffer holding the arena; referenced.
 * @id: identifies the launch to the firmware.
 * @exe_size: bytes of the executable image.
 * @arena_offset: arena start in @arena_bo.
 * @arena_size: arena bytes.
 * @replica: replica index.
 * @num_replicas: replicas of the run.
 * @group: the submitter's group id.
 * @pid: thread group of the submitter (initial namespace).
 * @instance_index: split launches: the submitter's instance.
 * @instance_count: split launches: the instance count; 0 for a launch of
 *	a program of one instance.
 * @staging_bo: split launches: the staging area's buffer; referenced.
 * @staging_handle: its handle in the submitting file.
 * @staging_offset: the staging area's start in @staging_bo.
 * @staging_size: its bytes.
 * @profile_bo: the profile buffer (IPU_LAUNCH_PROFILE), or NULL;
 *	referenced.
 * @gather: split launches: the submitting file's inbox, where the
 *	launch's gather requests go; referenced.
 * @gather_status: the non-zero status a gather of it was answered with,
 *	its result when the device fails it with E_GATHER.
 * @deadline: jiffies by which the firmware must have finished.
 * @status: the result once @done.
 * @done: completed; @status is final.
 * @complete: called once, without locks held, when the launch completes.
 * @completion: completed when @done (for WAIT).
 * @priv: the submitter's (the io_uring command).
 * @usage: the submitting file's usage, referenced: the launch's run time
 *	is added to it when it ends (fdinfo's drm-engine-launch).
 * @start_ns: ktime_get_ns() when the device or the firmware took the
 *	launch; 0 while it waits on &ipu_launch_queue.pending.
 */
struct ipu_launch_req {
	struct kref ref;
	struct list_head node;
	struct ipu_device *idev;
	struct ipu_bo *exe_bo;
	struct ipu_bo *arena_bo;
	u64 id;
	u64 exe_size;
	u64 arena_offset;
	u64 arena_size;
	u32 replica;
	u32 num_replicas;
	u64 group;
	u32 pid;
	u32 instance_index;
	u32 instance_count;
	struct ipu_bo *staging_bo;
	u32 staging_handle;
	u64 staging_offset;
	u64 staging_size;
	struct ipu_bo *profile_bo;
	struct ipu_gather_inbox *gather;
	int gather_status;
	unsigned long deadline;
	int status;
	bool done;
	void (*complete)(struct ipu_launch_req *req);
	struct completion completion;
	void *priv;
	struct ipu_usage *usage;
	u64 start_ns;
};

/**
 * struct ipu_launch_queue - a device's launches and its firmware
 * @lock: protects everything below but @fw_lock.
 * @fw_lock: serialises attaching, detaching and revoking the firmware, so
 *	that a revoke can zap @fw_mapping while its file is still open.
 * @pending: launches not yet taken by the firmware, oldest first.
 * @running: launches the firmware took, oldest first.
 * @next_id: id of the next launch.
 * @fw_file: the file acting as the device's firmware, or NULL.
 * @fw_mapping: the address space of @fw_file's mapping of device memory,
 *	zapped when the firmware is revoked.
 * @fw_gen: attach generation, bumped by every revoke; protected by
 *	@fw_lock (ipu_fw.c).
 * @fw_wq: where the firmware waits for work.
 * @timeout_work: the watchdog: fails launches whose deadline passed and
 *	resets the device.
 * @timeout_armed: @timeout_work is queued to run at @timeout_at.
 * @timeout_at: jiffies at which the armed watchdog runs: the earliest
 *	deadline of the launches in flight when it was armed.
 * @resetting: a reset is under way (ipu_launch_reset_locked()): launches
 *	pushed meanwhile wait on @pending and reach the device's own queue
 *	only once the reset has failed the launches it ended, so that no
 *	launch the restarted queue runs is reported failed.
 */
struct ipu_launch_queue {
	spinlock_t lock; /* lists, next_id, fw_file, fw_mapping, timeout_* */
	struct mutex fw_lock; /* attach, detach, revoke, fw_gen, fw faults */
	struct list_head pending;
	struct list_head running;
	u64 next_id;
	struct ipu_file *fw_file;
	struct address_space *fw_mapping;
	u64 fw_gen;
	wait_queue_head_t fw_wq;
	struct delayed_work timeout_work;
	bool timeout_armed;
	unsigned long timeout_at;
	bool resetting;
};

/**
 * struct ipu_launch_call - LAUNCH as the ioctl dispatcher holds it
 * @args: the user's struct; copied out (with the fence) before the launch
 *	is committed, so a caller that cannot learn its fence never starts one.
 * @req: the prepared launch, between the handler and commit or undo.
 *	Kernel-only: past the copied-out bytes.
 */
struct ipu_launch_call {
	struct ipu_launch args;
	struct ipu_launch_req *req;
};

/**
 * struct ipu_wait_call - WAIT as the ioctl dispatcher holds it
 * @args: the user's struct, with the status to copy out.
 * @req: the launch, referenced, between the handler and commit (which
 *	consumes the fence) or undo (the status could not be copied out: the
 *	fence stays, so the next WAIT delivers it). Kernel-only.
 */
struct ipu_wait_call {
	struct ipu_wait args;
	struct ipu_launch_req *req;
};

/**
 * struct ipu_fw_next_call - FW_NEXT as the ioctl dispatcher holds it
 * @args: the user's struct, with the launch to copy out.
 * @req: the launch taken from the pending list, referenced, between the
 *	handler and commit or undo (the firmware could not learn of it: it
 *	goes back to the head of the pending list). Kernel-only.
 */
struct ipu_fw_next_call {
	struct ipu_fw_work args;
	struct ipu_launch_req *req;
};

void ipu_launch_queue_init(struct ipu_launch_queue *lq);
void ipu_launch_queue_fini(struct ipu_device *idev);

bool ipu_launch_slot_get(struct ipu_file *ifile);
void ipu_launch_slot_put(struct ipu_file *ifile);
struct ipu_launch_req *ipu_launch_alloc(struct ipu_device *idev,
					void (*complete)(struct ipu_launch_req *),
					void *priv, gfp_t gfp);
int ipu_launch_prepare(struct ipu_file *ifile, const struct ipu_launch *args,
		       struct ipu_launch_req *req);
int ipu_launch_push(struct ipu_launch_req *req);
bool ipu_launch_cancel(struct ipu_launch_req *req);
void ipu_launch_put(struct ipu_launch_req *req);
void ipu_launch_fail_all(struct ipu_device *idev, int status);
int ipu_launch_reset_locked(struct ipu_device *idev, int status,
			    int late_status);
unsigned int ipu_launch_timeout_ms(void);
void ipu_launch_kick(struct ipu_device *idev);
void ipu_launch_complete(struct ipu_launch_req *req, int status);

int ipu_ioctl_launch(struct ipu_file *ifile, void *data);
int ipu_ioctl_launch_commit(struct ipu_file *ifile, void *data);
void ipu_ioctl_launch_undo(struct ipu_file *ifile, void *data);
int ipu_ioctl_wait(struct ipu_file *ifile, void *data);
int ipu_ioctl_wait_commit(struct ipu_file *ifile, void *data);
void ipu_ioctl_wait_undo(struct ipu_file *ifile, void *data);
void ipu_launch_release_fences(struct ipu_file *ifile);

int ipu_fw_next(struct ipu_file *ifile, struct ipu_fw_work *work,
		struct ipu_launch_req **taken);
void ipu_fw_next_untake(struct ipu_launch_req *req);
int ipu_fw_done(struct ipu_file *ifile, u64 id, int status);

#endif /* _IPU_LAUNCH_H */
