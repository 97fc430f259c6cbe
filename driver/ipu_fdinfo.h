/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-file usage, as /proc/<pid>/fdinfo/<fd> of an open /dev/ipuN shows it
 * in the DRM fdinfo key convention (Documentation/gpu/drm-usage-stats.rst),
 * so that generic tools (gputop, nvtop) and ipu-info read it alike.
 */
#ifndef _IPU_FDINFO_H
#define _IPU_FDINFO_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/types.h>

struct file;
struct seq_file;

/**
 * struct ipu_usage - the engine time one open file used
 * @ref: the file holds one, each of its launches in flight one: a launch
 *	may end after the file that submitted it was closed.
 * @client_id: drm-client-id, unique among the files opened since the
 *	module loaded.
 * @launch_ns: nanoseconds the file's launches ran on the device, from the
 *	device (or the simulated firmware) taking each until it ended.
 * @xfer_ns: nanoseconds the file's transfers (XFER, ioctl and io_uring)
 *	spent moving data.
 *
 * The counters are atomics of their own: they are added to from completion
 * paths that hold the launch queue's spinlock, and read without any lock.
 */
struct ipu_usage {
	struct kref ref;
	u64 client_id;
	atomic64_t launch_ns;
	atomic64_t xfer_ns;
};

/**
 * ipu_usage_new - the usage of a newly opened file
 *
 * Return: the usage with one reference, or NULL when out of memory.
 */
struct ipu_usage *ipu_usage_new(void);

/**
 * ipu_usage_put - drop a reference taken by ipu_usage_new() or _get()
 * @usage: the usage, or NULL
 */
void ipu_usage_put(struct ipu_usage *usage);

/**
 * ipu_usage_get - one more reference, for a launch of the file
 * @usage: the usage
 *
 * Return: @usage.
 */
static inline struct ipu_usage *ipu_usage_get(struct ipu_usage *usage)
{
	kref_get(&usage->ref);
	return usage;
}

/**
 * ipu_usage_add_xfer - count a transfer's time
 * @usage: the transferring file's usage
 * @start_ns: ktime_get_ns() when the transfer started
 */
static inline void ipu_usage_add_xfer(struct ipu_usage *usage, u64 start_ns)
{
	atomic64_add(ktime_get_ns() - start_ns, &usage->xfer_ns);
}

/**
 * ipu_show_fdinfo - file_operations.show_fdinfo of /dev/ipuN
 * @m: the fdinfo file being read
 * @filp: the open /dev/ipuN
 */
void ipu_show_fdinfo(struct seq_file *m, struct file *filp);

#endif /* _IPU_FDINFO_H */
