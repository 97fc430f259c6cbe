/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Gather requests of split launches, as a file sees them (ipu_gather.c):
 * each file has an inbox where its device posts the requests of the
 * file's split launches, which GATHER_NEXT takes and GATHER_ANSWER
 * answers. The device side is the kind's (ipu_pci_gather.c).
 */
#ifndef _IPU_GATHER_H
#define _IPU_GATHER_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/poll.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <uapi/linux/ipu.h>

struct ipu_device;
struct ipu_file;
struct ipu_launch_req;

/**
 * struct ipu_gather_inbox - one file's gather requests
 * @ref: the file holds one, and each split launch of it one, so that a
 *	request of a launch that outlives its file finds the inbox closed.
 * @idev: the file's device.
 * @lock: protects everything below.
 * @entries: requests not yet answered (struct ipu_gather_entry), oldest
 *	first.
 * @count: entries on @entries.
 * @next_token: the token of the next request; tokens are never reused.
 * @closed: the file is gone: requests are answered -ECANCELED at once.
 * @wait: poll()ers of the file.
 */
struct ipu_gather_inbox {
	struct kref ref;
	struct ipu_device *idev;
	spinlock_t lock; /* entries, count, next_token, closed */
	struct list_head entries;
	unsigned int count;
	u64 next_token;
	bool closed;
	wait_queue_head_t wait;
};

struct ipu_gather_inbox *ipu_gather_inbox_new(struct ipu_device *idev);
void ipu_gather_inbox_put(struct ipu_gather_inbox *inbox);
struct ipu_gather_inbox *ipu_gather_inbox_get(struct ipu_gather_inbox *inbox);
int ipu_gather_post(struct ipu_launch_req *launch,
		    const struct ipu_gather_next *info, u32 seq, u32 gen);
void ipu_gather_launch_ended(struct ipu_launch_req *launch);
void ipu_gather_file_release(struct ipu_file *ifile);
void ipu_gather_file_unplug(struct ipu_file *ifile);
__poll_t ipu_gather_poll(struct ipu_file *ifile, struct file *filp,
			 poll_table *wait);

int ipu_ioctl_gather_next(struct ipu_file *ifile, void *data);
void ipu_ioctl_gather_next_undo(struct ipu_file *ifile, void *data);
int ipu_ioctl_gather_answer(struct ipu_file *ifile, void *data);

#endif /* _IPU_GATHER_H */
