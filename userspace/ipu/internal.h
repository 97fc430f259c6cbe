/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * internal.h - libipu's private objects and helpers, shared by its files.
 *
 * Not installed. The unit tests include it (and backend.h) to reach the
 * exported-but-internal hooks, whose names start with "__".
 */
#ifndef IPU_INTERNAL_H
#define IPU_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ipu/ipu.h>
#include <ipu/testing.h>

#include "attr.h"

struct ipu_backend_ops;

/**
 * struct ipu_device - an open device.
 * @ops: the backend that opened it; never changes.
 * @priv: the backend's state.
 * @index: N of "<backend>:N".
 * @name: "<backend>:N".
 * @lock: protects @bos and every bo's @map.
 * @bos: live buffer objects of this device, a NULL-terminated list.
 * @sync_lock: taken for the whole of a synchronous call (ipu_xfer_run(),
 *	ipu_launch()); protects @sync_q, so those calls take turns on it.
 * @sync_q: the queue of synchronous calls, made on first use.
 */
struct ipu_device {
	const struct ipu_backend_ops *ops;
	void *priv;
	unsigned int index;
	char name[32];
	pthread_mutex_t lock;
	struct ipu_bo *bos;
	pthread_mutex_t sync_lock;
	struct ipu_queue *sync_q;
};

/**
 * struct ipu_bo - a buffer object.
 * @dev: its device.
 * @prev, @next: in @dev's list, under @dev->lock.
 * @handle: the backend's handle, never 0.
 * @size: rounded size.
 * @device_addr: device address.
 * @cookie: backend data (the kernel backend's mmap offset).
 * @map: address from ipu_bo_map(), NULL when unmapped; under @dev->lock.
 */
struct ipu_bo {
	struct ipu_device *dev;
	struct ipu_bo *prev, *next;
	uint32_t handle;
	uint64_t size;
	uint64_t device_addr;
	uint64_t cookie;
	void *map;
};

/* struct ipu_queue_stats, __ipu_queue_stats(): include/ipu/testing.h. */

/* queue.c: add @n to counter @field of @q and of the process. */
#define IPU_QUEUE_STAT_ADD(q, field, n)                                   \
	do {                                                              \
		__atomic_add_fetch(&(q)->stats.field, (n), __ATOMIC_RELAXED); \
		__atomic_add_fetch(&ipu_queue_totals.field, (n),          \
				   __ATOMIC_RELAXED);                     \
	} while (0)
extern struct ipu_queue_stats ipu_queue_totals;

/**
 * struct ipu_prof - the op records of a profiled launch (malloc()ed with
 * room for @n records), from the backend's post to the reap after the one
 * that handed it out (ipu_queue_profile()).
 */
struct ipu_prof {
	uint64_t user_data;
	uint64_t dropped;
	size_t n;
	struct ipu_op_record recs[];
};

/**
 * struct ipu_cqe_slot - a posted completion, waiting to be reaped.
 * @msg: malloc()ed message of a failure, or NULL.
 * @prof: a profiled launch's records, or NULL.
 */
struct ipu_cqe_slot {
	uint64_t user_data;
	int32_t result;
	uint32_t op;
	char *msg;
	struct ipu_prof *prof;
};

/**
 * struct ipu_queue - a command queue (queue.c); the backend's part is @priv.
 * @ops: the backend of every command; never changes.
 * @priv: the backend's state (the model's DMA engine).
 * @entries: most commands in flight.
 * @lock: protects everything below.
 * @posted: signalled when a completion is posted.
 * @ring: @entries slots; @ready posted completions start at @head.
 * @inflight: commands submitted and not yet reaped (posted or not). Never
 *	above @entries, so a posted completion always finds a free slot.
 * @old_msgs: messages handed out by the last reap, freed by the next;
 *	@nold of them (room for @entries).
 * @old_profs: likewise the op records (ipu_queue_profile()); @nprofs.
 * @waiters: reapers waiting on @posted.
 * @want: the fewest ready completions one of them waits for (SIZE_MAX:
 *	none waits). A post wakes the waiters only once @ready reaches it,
 *	so a reaper of a batch sleeps through all but the last completion.
 * @nbufs: host buffers registered (ipu_queue_register_buffers()).
 * @stats: counters for __ipu_queue_stats(); updated atomically.
 */
struct ipu_queue {
	const struct ipu_backend_ops *ops;
	void *priv;
	uint32_t entries;
	pthread_mutex_t lock;
	pthread_cond_t posted;
	struct ipu_cqe_slot *ring;
	size_t head, ready;
	size_t inflight;
	char **old_msgs;
	size_t nold;
	struct ipu_prof **old_profs;
	size_t nprofs;
	unsigned int waiters;
	size_t want;
	size_t nbufs;
	struct ipu_queue_stats stats;
};

/* error.c */

/*
 * ipu_err() - record the thread's error message and return @err.
 * The message is "<formatted text>: <strerror(err)>".
 */
int ipu_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * IPU_KEEP_ERRNO() - first statement of every public function: errno is
 * restored to its value on entry when the function returns.
 */
void ipu_errno_restore(const int *saved);
#define IPU_KEEP_ERRNO()                                                  \
	const int ipu_saved_errno_                                        \
		__attribute__((cleanup(ipu_errno_restore), unused)) = errno

/* opts.c */

/*
 * ipu_opts_check() - validate an extensible input struct of @known bytes
 * (this library's sizeof) whose caller says it has @sz bytes.
 * Return: 0; -EINVAL when @sz < @min; -E2BIG when bytes past @known are
 * not zero.
 */
int ipu_opts_check(const void *opts, size_t sz, size_t min, size_t known);

/*
 * ipu_out_copy() - copy @known bytes of @src to an extensible output
 * struct of @sz bytes (sz field included) at @dst, zeroing what @dst has
 * beyond @known and keeping its sz field. Return 0 or -EINVAL when @sz is
 * below @min.
 */
int ipu_out_copy(void *dst, size_t sz, const void *src, size_t min,
		 size_t known);

/* paths.c: where sysfs and the device nodes are; tests can move them. */
const char *ipu_sysfs_root(void);
const char *ipu_dev_root(void);

/* __ipu_set_sysfs_root(), __ipu_set_dev_root(): include/ipu/testing.h. */

/* enumerate.c: used by backends to fill a list. */
int ipu_device_list_add(struct ipu_device_list *list,
			const struct ipu_device_entry *entry);

/* enumerate.c: a list of @ops's devices alone (listed on request or not);
 * records no message. */
int ipu_device_list_of(const struct ipu_backend_ops *ops,
		       struct ipu_device_list **listp);

/* sysfs.c; the attribute readers under it: attr.c */

/* Read the first line of a small sysfs file at "<dir>/<attr>" into @buf. */
int ipu_sysfs_read(const char *dir, const char *attr, char *buf, size_t len);
int ipu_sysfs_read_u64(const char *dir, const char *attr, int base,
		       uint64_t *val);

/* Hardware devices, from <sysfs root>/class/ipu/ipuN; with @only, just
 * those whose platform attribute is @only ("sim", "pci"). */
int ipu_sysfs_enumerate(struct ipu_device_list *list, const char *prefix,
			const char *only);

/* Parse "major.minor.patch" into (major << 16) | (minor << 8) | patch. */
int ipu_parse_fw_version(const char *s, uint32_t *ver);

/* Map a platform name ("sim", "pci") to IPU_DEVICE_PLATFORM_*. */
unsigned int ipu_platform_from_name(const char *name);

/* bo.c: destroy every BO of @dev (ipu_device_close()). */
void ipu_bo_destroy_all(struct ipu_device *dev);

/* error.c: record @msg as the thread's error message, verbatim. */
int ipu_err_raw(int err, const char *msg);

/* cmd.c: checking and describing commands. */

/*
 * ipu_xfer_check() - check one transfer descriptor against its BO and the
 * public constants (not which device it belongs to). @who and @what name
 * it in the message: "<who>: <what> <i>: ...". Records the message.
 */
int ipu_xfer_check(const struct ipu_xfer_desc *d, const char *who,
		   const char *what, size_t i);

/*
 * ipu_cmd_check_batch() - check every command of a batch for a queue of
 * @ops: each command, then the launches of a run against one another.
 * Records the message, naming the command by its index.
 */
int ipu_cmd_check_batch(const struct ipu_backend_ops *ops,
			const struct ipu_cmd *cmds, size_t n);

/*
 * ipu_run_conflict() - for backends that track replicated runs in flight:
 * whether launch @l (command @i of a batch) may join the run of its group
 * in flight, which has @nrep replicas and already has @l's replica in
 * flight when @seen. Return 0, or -EINVAL with the reason in @why.
 */
int ipu_run_conflict(const struct ipu_launch_desc *l, size_t i, uint32_t nrep,
		     bool seen, char *why, size_t whylen);

/* ipu_cmd_device() - the device a (checked) command runs on. */
struct ipu_device *ipu_cmd_device(const struct ipu_cmd *cmd);

/* queue.c: the parts of a queue that backends and sync calls use. */

/*
 * ipu_queue_complete() - post the completion of @cmd with @result. For a
 * failure the message is "<device>: <command>: <detail>: <strerror>"
 * (without "<detail>: " when @detail is NULL). Thread-safe; never fails
 * (without memory for the message, it is strerror's alone).
 */
void ipu_queue_complete(struct ipu_queue *q, const struct ipu_cmd *cmd,
			int result, const char *detail);

/**
 * struct ipu_submit_wait - what a submission waits for before it returns
 * (ipu_queue_submit_and_wait()), where the backend can wait in the same
 * system call; the reap after it takes the completions.
 * @want: ready completions (the front end's and those the backend holds).
 * @deadline: CLOCK_MONOTONIC; NULL: none.
 */
struct ipu_submit_wait {
	size_t want;
	const struct timespec *deadline;
};

/*
 * ipu_queue_complete_prof() - ipu_queue_complete() carrying the op
 * records @prof (or NULL) of a profiled launch; the queue takes them.
 */
void ipu_queue_complete_prof(struct ipu_queue *q, const struct ipu_cmd *cmd,
			     int result, const char *detail,
			     struct ipu_prof *prof);

/*
 * ipu_queue_push() / ipu_queue_pop() - ipu_queue_submit() and
 * ipu_queue_reap() without the argument checks, for calls that made their
 * commands themselves. Record no message; a backend's reason for refusing
 * the batch goes to @why. @wait: NULL, or what to wait for (see struct
 * ipu_submit_wait).
 */
int ipu_queue_push(struct ipu_queue *q, const struct ipu_cmd *cmds, size_t n,
		   const struct ipu_submit_wait *wait, char *why,
		   size_t whylen);
int ipu_queue_pop(struct ipu_queue *q, struct ipu_completion *cqes,
		  size_t max, size_t min_complete, int64_t timeout_ns);

/*
 * ipu_queue_submit_sync() - the queue of a backend without one of its own:
 * runs the batch inside the call, transfers through ops->xfer, and
 * completes launches with -EOPNOTSUPP.
 */
int ipu_queue_submit_sync(struct ipu_queue *q, const struct ipu_cmd *cmds,
			  size_t n);

/*
 * ipu_spin() - poll @done(@arg) for up to IPU_SPIN_NS before a thread goes
 * to sleep on a condition variable: a hand-off between two running
 * threads then costs no futex round trip. Returns what @done last said.
 * @done reads shared state without the lock (atomically); the caller
 * checks again under the lock.
 */
#define IPU_SPIN_NS 20000
bool ipu_spin(bool (*done)(const void *arg), const void *arg);

/* ipu_queue_new() - a queue of @entries for @ops; no message recorded. */
int ipu_queue_new(const struct ipu_backend_ops *ops, uint32_t entries,
		  struct ipu_queue **qp);

/*
 * ipu_device_sync_queue() - @dev's queue for synchronous calls, made on
 * first use. The caller holds @dev->sync_lock. Records no message.
 */
int ipu_device_sync_queue(struct ipu_device *dev, struct ipu_queue **qp);

#endif /* IPU_INTERNAL_H */
