/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * backend_model.h - the model backend's objects, shared by its files:
 * backend_model.c (devices, memory, buffer objects), backend_model_exe.c
 * (the cache of parsed executables) and backend_model_queue.c (the
 * DMA-engine thread of a queue).
 */
#ifndef IPU_BACKEND_MODEL_H
#define IPU_BACKEND_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <ipu/exe.h>

#include "internal.h"

struct model_exe;
struct ipufw_executor;

/**
 * struct model_bo - a buffer object in a model IPU's memory.
 * @prev, @next: the device's BOs in address order, under the device lock.
 * @offset: first byte in the device memory; page-aligned.
 * @size: bytes, a whole number of pages.
 * @gen: bumped whenever the BO's bytes may have changed behind the
 *	executable cache's back: after a transfer into it, after a launch
 *	whose arena it holds, on map and unmap. Atomic.
 * @mapped: ipu_bo_map() handed out a pointer; under the device lock.
 *	While mapped, the bytes can change at any time, so nothing parsed
 *	from them is cached.
 * @exe: the executable last parsed from the BO, or NULL; under the device
 *	lock. Valid while its gen and size match.
 */
struct model_bo {
	struct model_bo *prev, *next;
	uint64_t offset;
	uint64_t size;
	uint64_t gen;
	bool mapped;
	struct model_exe *exe;
};

/**
 * struct model_ipu - one IPU of the model, shared by every handle on it.
 * @lock: protects everything below but @index and @mem_size.
 * @index: N of "model:N".
 * @mem: the device memory, @mem_size bytes; mapped while @opens > 0.
 * @opens: open handles.
 * @owner: the attached handle, or NULL; stored atomically, so that
 *	model_attached() can read it without the lock.
 * @owner_pid: the pid that attached it.
 * @bos: live buffer objects in address order.
 * @used: bytes they hold.
 * @reset_count: resets so far.
 * @next_handle: handle of the next BO.
 * @running: the executor running a program on this IPU's memory, or NULL;
 *	a reset cancels it (ipufw_cancel()).
 */
struct model_ipu {
	pthread_mutex_t lock;
	unsigned int index;
	uint8_t *mem;
	uint64_t mem_size;
	unsigned int opens;
	struct ipu_device *owner;
	pid_t owner_pid;
	struct model_bo *bos;
	uint64_t used;
	uint64_t reset_count;
	uint32_t next_handle;
	struct ipufw_executor *running;
};

static inline struct model_ipu *model_of(const struct ipu_device *dev)
{
	return dev->priv;
}

static inline struct model_bo *model_bo_of(const struct ipu_bo *bo)
{
	return (struct model_bo *)(uintptr_t)bo->cookie;
}

/* Address of byte @offset of @bo in the model's memory. */
static inline uint8_t *model_bo_ptr(const struct ipu_bo *bo, uint64_t offset)
{
	return model_of(bo->dev)->mem + model_bo_of(bo)->offset + offset;
}

/* Note that @bo's bytes may have changed (see model_bo.gen). */
static inline void model_bo_touch(const struct ipu_bo *bo)
{
	__atomic_add_fetch(&model_bo_of(bo)->gen, 1, __ATOMIC_RELEASE);
}

/* Operations that fault injection can fail (IPU_MODEL_FAULTS). */
enum model_fault_kind {
	MODEL_FAULT_DMA,
	MODEL_FAULT_LAUNCH,
	MODEL_FAULT_ATTACH,
	MODEL_FAULT_HANG,
	MODEL_FAULT_RESET,
	MODEL_FAULT_XFER_HANG,
	MODEL_FAULT_CORRUPT,
	MODEL_FAULT_NR
};

/* backend_model.c: whether this operation of @kind is to fail. */
bool model_fault(enum model_fault_kind kind);

/* backend_model.c: whether any fault is set (IPU_MODEL_FAULTS). */
bool model_faults_armed(void);

/* backend_model.c: whether @dev is the attached handle of its IPU. */
bool model_attached(struct ipu_device *dev);

/* backend_model.c: resets of @dev's IPU so far. */
uint64_t model_resets(struct ipu_device *dev);

/*
 * backend_model.c: whether one of the @n devices @devs was reset since
 * @before[i] = model_resets(@devs[i]) was taken.
 */
bool model_reset_since(struct ipu_device *const *devs, uint32_t n,
		       const uint64_t *before);

/*
 * backend_model.c: a launch on the @n devices @devs, whose firmware does
 * not answer (fault "hang"): wait until one of them has been reset since
 * @before, the launch's own snapshot (return -EIO), or *@stop is set (the
 * queue is going; return -ECANCELED).
 */
int model_hang(struct ipu_device *const *devs, uint32_t n,
	       const uint64_t *before, const bool *stop);

/* backend_model.c: wake model_hang() waiters to look at their @stop. */
void model_hang_wake(void);

/*
 * backend_model.c: @ex runs (NULL: stopped running) a program on the
 * memory of the @n devices @devs; a reset of one of them cancels it.
 */
void model_set_running(struct ipu_device *const *devs, uint32_t n,
		       struct ipufw_executor *ex);

/* backend_model_exe.c */

/*
 * model_exe_get() - the executable whose @size-byte image is at offset 0
 * of @bo: the cached one when the BO has not changed since it was parsed,
 * else a fresh parse (cached unless the BO is mapped). Put it back with
 * model_exe_put().
 * Return: 0; -ENOEXEC when the bytes are no executable; -EINVAL when they
 * are a malformed one; -ENOMEM. On failure @msg says why.
 */
int model_exe_get(struct ipu_bo *bo, uint64_t size, struct model_exe **ep,
		  char *msg, size_t len);

/* model_exe_put() - drop a reference; NULL is a no-op. */
void model_exe_put(struct model_exe *e);

/* The parsed executable of @e. */
const struct ipu_exe *model_exe_exe(const struct model_exe *e);

/* Whether @a and @b were parsed from the same image (size and checksums). */
bool model_exe_same(const struct model_exe *a, const struct model_exe *b);

/* Drop @mbo's cached executable (the BO is going away); device lock held. */
void model_exe_uncache_locked(struct model_bo *mbo);

/* backend_model_queue.c: the queue ops. */
int model_queue_create(struct ipu_queue *q);
void model_queue_destroy(struct ipu_queue *q);
int model_queue_submit(struct ipu_queue *q, const struct ipu_cmd *cmds,
		       size_t n, const struct ipu_submit_wait *wait, char *why,
		       size_t whylen);

#endif /* IPU_BACKEND_MODEL_H */
