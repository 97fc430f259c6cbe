/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * backend.h - the interface between libipu's front end and its backends.
 *
 * The front end (device.c, bo.c, xfer.c) checks arguments, keeps the
 * bookkeeping (which BOs a device holds, their mappings) and records error
 * messages. A backend only talks to a device: the kernel backend
 * (backend_kernel.c) through /dev/ipuN, the model backend
 * (backend_model*.c) to an in-process software IPU. The backend is chosen
 * when a device is opened, by the prefix of its name ("hw:0",
 * "model:0"), and never changes.
 *
 * Queues: a backend with queue ops runs batches its own way (the model: a
 * DMA-engine thread; the kernel: an io_uring ring). The front end checks
 * every command first and keeps the completions: a backend posts each with
 * ipu_queue_complete(). A backend whose completions arrive only when
 * someone asks the kernel for them (io_uring's CQ ring) also has
 * queue_harvest, which reapers call instead of sleeping on the front end's
 * condition variable. A backend without queue_submit gets the synchronous
 * queue of queue.c (ipu_queue_submit_sync()): transfers through @xfer
 * inside the submit, launches -EOPNOTSUPP.
 *
 * Every operation returns 0 or a negative errno value, and records nothing
 * in the thread's error message: the front end does that, naming the
 * device and the operation.
 */
#ifndef IPU_BACKEND_H
#define IPU_BACKEND_H

#include <sys/uio.h>
#include <time.h>

#include "internal.h"

/**
 * struct ipu_backend_ops - one backend.
 * @prefix: device name prefix ("hw" for "hw:N").
 * @list_flag: 0, or the IPU_LIST_* flag without which ipu_device_list_*
 *	leave this backend out (the model's devices are listed on request).
 * @enumerate: add an entry per device to @list; @list names them
 *	"<prefix>:N". NULL: the backend has nothing to list.
 * @open: open device @index into @dev (whose @index and @name are set);
 *	set @dev->priv. -ENOENT when there is no such device.
 * @close: release @dev->priv; all BOs are already destroyed. Cannot fail.
 * @query: fill every member of @info past @sz (the front end copies it
 *	out with the caller's size).
 * @attach, @detach, @reset: as the public functions.
 * @bo_create: create a BO of @size bytes, filling @bo's handle, size,
 *	device_addr and cookie. @bo is allocated by the front end before the
 *	call, so nothing fails after the backend object exists.
 * @bo_destroy: drop @bo's handle (its mapping is already gone).
 * @bo_query: fill @props (handle, size, device_addr) from the device.
 * @bo_map: map all of @bo shared, read-write; NULL if the backend cannot.
 * @bo_unmap: undo @bo_map.
 * @xfer: one synchronous transfer; the front end checked @desc against
 *	the BO's size and the public constants. Used by the synchronous
 *	queue only; NULL for a backend with queue_submit.
 * @queue_create: set up @q->priv for a new queue (may be NULL).
 * @queue_destroy: stop and free @q->priv: finish the command running, drop
 *	the others without posting them (may be NULL).
 * @queue_submit: take a checked batch, all or nothing: either return
 *	-errno having taken nothing (and may say why in @why, which the
 *	front end makes the message), or return 0 and post, in time, one
 *	completion per command. @cmds is the caller's: copy it. @wait:
 *	NULL, or completions to wait for once the batch is taken, in the
 *	same system call (a backend that cannot may ignore it: the reap
 *	waits). NULL: the synchronous queue.
 * @open_error: what made @open fail with @err when the code alone does
 *	not say it (a bad setting), or NULL; may be NULL.
 * @queue_harvest: post what has completed; then, if @wait, wait until
 *	the front end holds at least @want ready completions or @deadline
 *	(CLOCK_MONOTONIC; NULL: none) passes (-ETIME). May be NULL: the
 *	backend posts by itself and reapers sleep until it does.
 * @queue_register: register @n host buffers with @q (@n 0: unregister
 *	the set); the front end checked them. May be NULL: registering is
 *	then accepted and changes nothing.
 * @gather_fd: the descriptor that polls readable while a gather request
 *	of @dev waits, or -EOPNOTSUPP when this device posts none.
 * @gather_next: take the oldest gather request into @req (every member
 *	but @staging_bo, which the front end finds by @staging_handle);
 *	-EAGAIN when none waits.
 * @gather_answer: answer request @token with @status (the front end
 *	checked its range).
 * The three gather ops are NULL for a backend without gather requests.
 */
struct ipu_backend_ops {
	const char *prefix;
	int (*enumerate)(struct ipu_device_list *list);
	int (*open)(struct ipu_device *dev, unsigned int index);
	void (*close)(struct ipu_device *dev);
	int (*query)(struct ipu_device *dev, struct ipu_device_info *info);
	int (*attach)(struct ipu_device *dev);
	int (*detach)(struct ipu_device *dev);
	int (*reset)(struct ipu_device *dev);
	int (*bo_create)(struct ipu_device *dev, struct ipu_bo *bo,
			 uint64_t size, uint32_t flags);
	int (*bo_destroy)(struct ipu_device *dev, struct ipu_bo *bo);
	int (*bo_query)(struct ipu_device *dev, struct ipu_bo *bo,
			struct ipu_bo_props *props);
	int (*bo_map)(struct ipu_device *dev, struct ipu_bo *bo, void **ptrp);
	void (*bo_unmap)(struct ipu_device *dev, struct ipu_bo *bo, void *ptr);
	int (*xfer)(struct ipu_device *dev, const struct ipu_xfer_desc *desc);
	uint32_t list_flag;
	int (*queue_create)(struct ipu_queue *q);
	void (*queue_destroy)(struct ipu_queue *q);
	int (*queue_submit)(struct ipu_queue *q, const struct ipu_cmd *cmds,
			    size_t n, const struct ipu_submit_wait *wait,
			    char *why, size_t whylen);
	const char *(*open_error)(int err);
	int (*queue_harvest)(struct ipu_queue *q, size_t want,
			     const struct timespec *deadline, bool wait);
	int (*queue_register)(struct ipu_queue *q, const struct iovec *bufs,
			      size_t n);
	int (*gather_fd)(struct ipu_device *dev);
	int (*gather_next)(struct ipu_device *dev,
			   struct ipu_gather_request *req);
	int (*gather_answer)(struct ipu_device *dev, uint64_t token,
			     int status);
};

/* The kernel backend: "hw:N" is /dev/ipuN. */
extern const struct ipu_backend_ops ipu_backend_kernel;

/* The model backend: "model:N" is IPU N of the in-process model. */
extern const struct ipu_backend_ops ipu_backend_model;

/* backend.c: the registry of backends, built-in ones first. */

/* The backend whose prefix is the @len bytes at @prefix, or NULL. */
const struct ipu_backend_ops *ipu_backend_find(const char *prefix, size_t len);

/* Backend @i of the registry (built-in ones first), NULL past the end. */
const struct ipu_backend_ops *ipu_backend_at(size_t i);

/*
 * __ipu_backend_register() - add @ops to the registry (tests: a fake
 * backend). Not thread-safe. Return 0; -EINVAL for a NULL or prefix-less
 * @ops; -EEXIST when the prefix is taken; -ENOSPC when the registry is full.
 */
int __ipu_backend_register(const struct ipu_backend_ops *ops);

/* __ipu_backend_unregister() - remove @ops. Return 0 or -ENOENT. */
int __ipu_backend_unregister(const struct ipu_backend_ops *ops);

/* __ipu_model_reinit(), __ipu_model_faults_set(): include/ipu/testing.h. */

#endif /* IPU_BACKEND_H */
