// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * queue.c - command queues: submission, completions, reaping.
 *
 * The front end owns the completions of every backend: a ring of @entries
 * slots that backends post into (ipu_queue_complete()) and callers reap
 * from, waiting on a condition variable. Counting every command from
 * submission to reaping (@inflight) against the ring's size is what lets a
 * backend post from any thread without ever finding the ring full.
 *
 * Completions reach the ring in one of two ways. The model's engine
 * thread posts them as commands finish, and reapers sleep on a condition
 * variable until enough are there. The kernel's completions sit in an
 * io_uring CQ ring until someone looks, so its reapers call the backend's
 * queue_harvest instead, which posts them and waits in io_uring_enter()
 * for the rest. Backends without a queue of their own (a test's fake, or
 * the kernel's when io_uring is unavailable) get ipu_queue_submit_sync():
 * the batch runs inside the submit.
 */
#include <errno.h>
#include <limits.h>
#include <sys/uio.h>
#include <sched.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "internal.h"

#define IPU_QUEUE_OPTS_SZ_V1 sizeof(struct ipu_queue_opts)
#define IPU_QUEUE_FLAGS_ALL 0u

struct ipu_queue_stats ipu_queue_totals;

/* What a command is, for its completion's message. */
static void describe(const struct ipu_cmd *cmd, char *buf, size_t len)
{
	const struct ipu_xfer_desc *x = &cmd->xfer;
	const struct ipu_launch_desc *l = &cmd->launch;

	if (cmd->op == IPU_CMD_XFER)
		snprintf(buf, len,
			 "transfer (%s) of %llu bytes at offset %llu of buffer object %u",
			 x->dir == IPU_XFER_DIR_TO_DEVICE ? "to device" :
							    "from device",
			 (unsigned long long)x->length,
			 (unsigned long long)x->bo_offset, x->bo->handle);
	else if (l->num_replicas > 1)
		snprintf(buf, len, "launch of replica %u of %u (group %llu)",
			 l->replica, l->num_replicas,
			 (unsigned long long)l->group);
	else
		snprintf(buf, len, "launch of buffer object %u", l->exe_bo->handle);
}

/* The message of a failed command; NULL without memory. */
static char *fail_msg(const struct ipu_cmd *cmd, int result,
		      const char *detail)
{
	char what[160];
	char *msg;
	int n;

	describe(cmd, what, sizeof(what));
	if (!detail && result == -ECANCELED)
		detail = "not run: a command it was linked to failed";
	else if (!detail && result == -EACCES)
		detail = "the device is not attached (ipu_device_attach())";
	if (detail)
		n = asprintf(&msg, "%s: %s: %s: %s", ipu_cmd_device(cmd)->name,
			     what, detail, ipu_strerror(result));
	else
		n = asprintf(&msg, "%s: %s: %s", ipu_cmd_device(cmd)->name,
			     what, ipu_strerror(result));
	return n < 0 ? NULL : msg;
}

void ipu_queue_complete(struct ipu_queue *q, const struct ipu_cmd *cmd,
			int result, const char *detail)
{
	ipu_queue_complete_prof(q, cmd, result, detail, NULL);
}

void ipu_queue_complete_prof(struct ipu_queue *q, const struct ipu_cmd *cmd,
			     int result, const char *detail,
			     struct ipu_prof *prof)
{
	char *msg = result ? fail_msg(cmd, result, detail) : NULL;
	struct ipu_cqe_slot *slot;

	pthread_mutex_lock(&q->lock);
	slot = &q->ring[(q->head + q->ready) % q->entries];
	slot->user_data = cmd->user_data;
	slot->result = result;
	slot->op = cmd->op;
	slot->msg = msg;
	slot->prof = prof;
	if (prof)
		prof->user_data = cmd->user_data;
	__atomic_store_n(&q->ready, q->ready + 1, __ATOMIC_RELEASE);
	if (q->waiters && q->ready >= q->want)
		pthread_cond_broadcast(&q->posted);
	pthread_mutex_unlock(&q->lock);
}

int ipu_queue_new(const struct ipu_backend_ops *ops, uint32_t entries,
		  struct ipu_queue **qp)
{
	pthread_condattr_t attr;
	struct ipu_queue *q;
	int err;

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->ops = ops;
	q->entries = entries;
	q->want = SIZE_MAX;
	q->ring = calloc(entries, sizeof(*q->ring));
	q->old_msgs = calloc(entries, sizeof(*q->old_msgs));
	q->old_profs = calloc(entries, sizeof(*q->old_profs));
	if (!q->ring || !q->old_msgs || !q->old_profs) {
		err = -ENOMEM;
		goto err_free;
	}
	pthread_mutex_init(&q->lock, NULL);
	/* Waits are measured on the monotonic clock, immune to date changes. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&q->posted, &attr);
	pthread_condattr_destroy(&attr);
	if (ops->queue_create) {
		err = ops->queue_create(q);
		if (err)
			goto err_destroy;
	}
	*qp = q;
	return 0;

err_destroy:
	pthread_cond_destroy(&q->posted);
	pthread_mutex_destroy(&q->lock);
err_free:
	free(q->old_msgs);
	free(q->old_profs);
	free(q->ring);
	free(q);
	return err;
}

int ipu_queue_create(struct ipu_device *dev, const struct ipu_queue_opts *opts,
		     struct ipu_queue **qp)
{
	IPU_KEEP_ERRNO();
	uint32_t entries = IPU_QUEUE_DEFAULT_ENTRIES;
	int err;

	if (!dev || !qp)
		return ipu_err(-EINVAL, "ipu_queue_create: %s is NULL",
			       dev ? "qp" : "dev");
	*qp = NULL;
	if (opts) {
		err = ipu_opts_check(opts, opts->sz, IPU_QUEUE_OPTS_SZ_V1,
				     sizeof(*opts));
		if (err)
			return ipu_err(err, "%s: queue options of %zu bytes (this libipu knows %zu)",
				       dev->name, opts->sz, sizeof(*opts));
		if (opts->flags & ~IPU_QUEUE_FLAGS_ALL)
			return ipu_err(-EINVAL, "%s: queue: unknown flags 0x%x",
				       dev->name, opts->flags & ~IPU_QUEUE_FLAGS_ALL);
		if (opts->entries > IPU_QUEUE_MAX_ENTRIES)
			return ipu_err(-EINVAL, "%s: queue of %u entries (at most %u)",
				       dev->name, opts->entries,
				       IPU_QUEUE_MAX_ENTRIES);
		if (opts->entries)
			entries = opts->entries;
	}
	err = ipu_queue_new(dev->ops, entries, qp);
	if (err)
		return ipu_err(err, "%s: making a queue of %u entries", dev->name,
			       entries);
	return 0;
}

/* Free the messages handed out by the last reap; under @q->lock. */
static void drop_old_msgs_locked(struct ipu_queue *q)
{
	while (q->nold)
		free(q->old_msgs[--q->nold]);
	while (q->nprofs)
		free(q->old_profs[--q->nprofs]);
}

void ipu_queue_destroy(struct ipu_queue *q)
{
	IPU_KEEP_ERRNO();

	if (!q)
		return;
	/* The backend first: after it, nothing posts any more. */
	if (q->ops->queue_destroy)
		q->ops->queue_destroy(q);
	for (; q->ready; q->ready--, q->head = (q->head + 1) % q->entries) {
		free(q->ring[q->head].msg);
		free(q->ring[q->head].prof);
	}
	drop_old_msgs_locked(q);
	pthread_cond_destroy(&q->posted);
	pthread_mutex_destroy(&q->lock);
	free(q->old_msgs);
	free(q->old_profs);
	free(q->ring);
	free(q);
}

int ipu_queue_push(struct ipu_queue *q, const struct ipu_cmd *cmds, size_t n,
		   const struct ipu_submit_wait *wait, char *why,
		   size_t whylen)
{
	int err;

	/* Room is taken before the backend can post anything. */
	pthread_mutex_lock(&q->lock);
	if (n > q->entries - q->inflight) {
		pthread_mutex_unlock(&q->lock);
		return -EBUSY;
	}
	q->inflight += n;
	pthread_mutex_unlock(&q->lock);

	why[0] = '\0';
	if (q->ops->queue_submit)
		err = q->ops->queue_submit(q, cmds, n, wait, why, whylen);
	else
		err = ipu_queue_submit_sync(q, cmds, n);
	if (err) {
		pthread_mutex_lock(&q->lock);
		q->inflight -= n;
		pthread_mutex_unlock(&q->lock);
		return err;
	}
	IPU_QUEUE_STAT_ADD(q, batches, 1);
	IPU_QUEUE_STAT_ADD(q, commands, n);
	return 0;
}

/* The absolute CLOCK_MONOTONIC time @ns from now. */
static struct timespec deadline_in(int64_t ns)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ns / 1000000000;
	t.tv_nsec += ns % 1000000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

/* ipu_queue_submit() and ipu_queue_submit_and_wait(), named @fn. */
static int queue_submit(struct ipu_queue *q, const struct ipu_cmd *cmds,
			size_t n, const struct ipu_submit_wait *wait,
			const char *fn)
{
	char why[256];
	int err;

	if (!q || !cmds)
		return ipu_err(-EINVAL, "%s: %s is NULL", fn, q ? "cmds" : "q");
	if (n == 0 || n > q->entries)
		return ipu_err(-EINVAL, "queue: a batch of %zu commands (1 to %u)",
			       n, q->entries);
	err = ipu_cmd_check_batch(q->ops, cmds, n);
	if (err)
		return err;
	err = ipu_queue_push(q, cmds, n, wait, why, sizeof(why));
	if (err == -EBUSY)
		return ipu_err(err, "queue: %zu more commands would pass the %u in flight it holds: reap first",
			       n, q->entries);
	if (err && why[0])
		return ipu_err(err, "queue: %s", why);
	if (err)
		return ipu_err(err, "queue: submitting %zu commands", n);
	return 0;
}

int ipu_queue_submit(struct ipu_queue *q, const struct ipu_cmd *cmds,
		     size_t n)
{
	IPU_KEEP_ERRNO();

	return queue_submit(q, cmds, n, NULL, "ipu_queue_submit");
}

int ipu_queue_submit_and_wait(struct ipu_queue *q, const struct ipu_cmd *cmds,
			      size_t n, size_t min_complete,
			      int64_t timeout_ns)
{
	IPU_KEEP_ERRNO();
	struct timespec deadline;
	struct ipu_submit_wait wait = { .want = min_complete };

	if (q && cmds && min_complete > n)
		return ipu_err(-EINVAL, "queue: waiting for %zu completions of a batch of %zu",
			       min_complete, n);
	if (timeout_ns > 0) {
		deadline = deadline_in(timeout_ns);
		wait.deadline = &deadline;
	}
	/* Waiting for nothing, or not at all: a plain submission. */
	if (timeout_ns == 0 || min_complete == 0)
		wait.want = 0;
	return queue_submit(q, cmds, n, wait.want ? &wait : NULL,
			    "ipu_queue_submit_and_wait");
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

bool ipu_spin(bool (*done)(const void *arg), const void *arg)
{
	struct timespec start, t;
	unsigned int i;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		for (i = 0; i < 64; i++) {
			if (done(arg))
				return true;
			cpu_relax();
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - start.tv_sec) * 1000000000 +
		    (t.tv_nsec - start.tv_nsec) > IPU_SPIN_NS)
			return done(arg);
		/* On a busy machine the thread we wait for may need our CPU. */
		sched_yield();
	}
}

struct want {
	const struct ipu_queue *q;
	size_t min;
};

static bool enough_ready(const void *arg)
{
	const struct want *w = arg;

	return __atomic_load_n(&w->q->ready, __ATOMIC_ACQUIRE) >= w->min;
}

int ipu_queue_pop(struct ipu_queue *q, struct ipu_completion *cqes,
		  size_t max, size_t min_complete, int64_t timeout_ns)
{
	struct timespec deadline;
	struct ipu_cqe_slot *slot;
	int err = 0;
	size_t k;

	if (timeout_ns > 0)
		deadline = deadline_in(timeout_ns);
	pthread_mutex_lock(&q->lock);
	if (min_complete > q->inflight) {
		pthread_mutex_unlock(&q->lock);
		return -EINVAL;
	}
	if (q->ops->queue_harvest) {
		/* Completions come only when asked for: the harvester posts
		 * them (and waits for them) outside the front end's lock. */
		pthread_mutex_unlock(&q->lock);
		q->ops->queue_harvest(q, min_complete,
				      timeout_ns > 0 ? &deadline : NULL,
				      timeout_ns != 0);
		pthread_mutex_lock(&q->lock);
	} else if (q->ready < min_complete && timeout_ns != 0) {
		struct want w = { q, min_complete };

		/* The engine is likely at work on them right now. */
		pthread_mutex_unlock(&q->lock);
		ipu_spin(enough_ready, &w);
		pthread_mutex_lock(&q->lock);
	}
	while (!q->ops->queue_harvest && q->ready < min_complete &&
	       timeout_ns != 0) {
		/* Another waiter may have lowered it since; never raise it. */
		if (min_complete < q->want)
			q->want = min_complete;
		q->waiters++;
		if (timeout_ns < 0)
			err = pthread_cond_wait(&q->posted, &q->lock);
		else
			err = pthread_cond_timedwait(&q->posted, &q->lock,
						     &deadline);
		if (--q->waiters == 0)
			q->want = SIZE_MAX;
		if (err == ETIMEDOUT)
			break;
	}
	drop_old_msgs_locked(q);
	for (k = 0; k < max && q->ready; k++) {
		slot = &q->ring[q->head];
		cqes[k].user_data = slot->user_data;
		cqes[k].result = slot->result;
		cqes[k].op = slot->op;
		cqes[k].msg = "";
		if (slot->msg) {
			cqes[k].msg = slot->msg;
			q->old_msgs[q->nold++] = slot->msg;
		} else if (slot->result) {
			/* no memory for the message when it was posted */
			cqes[k].msg = ipu_strerror(slot->result);
		}
		if (slot->prof)
			q->old_profs[q->nprofs++] = slot->prof;
		q->head = (q->head + 1) % q->entries;
		__atomic_store_n(&q->ready, q->ready - 1, __ATOMIC_RELAXED);
		q->inflight--;
	}
	pthread_mutex_unlock(&q->lock);
	return (int)k;
}

int ipu_queue_reap(struct ipu_queue *q, struct ipu_completion *cqes,
		   size_t max, size_t min_complete, int64_t timeout_ns)
{
	IPU_KEEP_ERRNO();
	int n;

	if (!q || !cqes)
		return ipu_err(-EINVAL, "ipu_queue_reap: %s is NULL",
			       q ? "cqes" : "q");
	if (max == 0)
		return ipu_err(-EINVAL, "queue: reaping at most 0 completions");
	if (max > q->entries)
		max = q->entries; /* no more can be ready; keeps n an int */
	n = ipu_queue_pop(q, cqes, max, min_complete, timeout_ns);
	if (n == -EINVAL)
		return ipu_err(n, "queue: waiting for %zu completions with fewer commands in flight",
			       min_complete);
	return n;
}

int ipu_queue_submit_sync(struct ipu_queue *q, const struct ipu_cmd *cmds,
			  size_t n)
{
	bool cancel = false;
	size_t i;
	int res;

	for (i = 0; i < n; i++) {
		const struct ipu_cmd *cmd = &cmds[i];

		if (cancel)
			res = -ECANCELED;
		else if (cmd->op == IPU_CMD_XFER)
			res = cmd->xfer.bo->dev->ops->xfer(cmd->xfer.bo->dev,
							   &cmd->xfer);
		else
			res = -EOPNOTSUPP;
		ipu_queue_complete(q, cmd, res,
				   res == -EOPNOTSUPP ?
					   "this backend cannot launch programs yet" :
					   NULL);
		/* A failure cancels the rest of its chain, which ends at the
		 * first command without a link. */
		if (!(cmd->flags & IPU_CMD_F_LINK))
			cancel = false;
		else if (res)
			cancel = true;
	}
	return 0;
}

int ipu_device_sync_queue(struct ipu_device *dev, struct ipu_queue **qp)
{
	int err;

	if (!dev->sync_q) {
		err = ipu_queue_new(dev->ops, IPU_QUEUE_DEFAULT_ENTRIES,
				    &dev->sync_q);
		if (err)
			return err;
	}
	*qp = dev->sync_q;
	return 0;
}

int __ipu_queue_stats(const struct ipu_queue *q, struct ipu_queue_stats *st)
{
	const struct ipu_queue_stats *from = q ? &q->stats : &ipu_queue_totals;

	if (!st)
		return -EINVAL;
	st->batches = __atomic_load_n(&from->batches, __ATOMIC_RELAXED);
	st->commands = __atomic_load_n(&from->commands, __ATOMIC_RELAXED);
	st->enters = __atomic_load_n(&from->enters, __ATOMIC_RELAXED);
	st->submit_enters = __atomic_load_n(&from->submit_enters,
					    __ATOMIC_RELAXED);
	st->wait_enters = __atomic_load_n(&from->wait_enters, __ATOMIC_RELAXED);
	st->fixed_xfers = __atomic_load_n(&from->fixed_xfers, __ATOMIC_RELAXED);
	return 0;
}

int ipu_queue_register_buffers(struct ipu_queue *q, const struct iovec *bufs,
			       size_t n)
{
	IPU_KEEP_ERRNO();
	uintptr_t base;
	size_t i;
	int err;

	if (!q || !bufs)
		return ipu_err(-EINVAL, "ipu_queue_register_buffers: %s is NULL",
			       q ? "bufs" : "q");
	if (n == 0 || n > IPU_QUEUE_MAX_BUFFERS)
		return ipu_err(-EINVAL, "queue: registering %zu host buffers (1 to %u)",
			       n, IPU_QUEUE_MAX_BUFFERS);
	for (i = 0; i < n; i++) {
		base = (uintptr_t)bufs[i].iov_base;
		if (!base || !bufs[i].iov_len ||
		    bufs[i].iov_len > UINTPTR_MAX - base)
			return ipu_err(-EINVAL, "queue: host buffer %zu (%p, %zu bytes) is NULL, empty or wraps",
				       i, bufs[i].iov_base, bufs[i].iov_len);
	}
	pthread_mutex_lock(&q->lock);
	if (q->nbufs) {
		pthread_mutex_unlock(&q->lock);
		return ipu_err(-EBUSY, "queue: %zu host buffers are registered already (unregister them first)",
			       q->nbufs);
	}
	/* Claimed under the lock so that two registrations cannot race. */
	q->nbufs = n;
	pthread_mutex_unlock(&q->lock);
	err = q->ops->queue_register ? q->ops->queue_register(q, bufs, n) : 0;
	if (err) {
		pthread_mutex_lock(&q->lock);
		q->nbufs = 0;
		pthread_mutex_unlock(&q->lock);
		return ipu_err(err, "queue: registering %zu host buffers", n);
	}
	return 0;
}

int ipu_queue_unregister_buffers(struct ipu_queue *q)
{
	IPU_KEEP_ERRNO();
	size_t n;
	int err;

	if (!q)
		return ipu_err(-EINVAL, "ipu_queue_unregister_buffers: q is NULL");
	pthread_mutex_lock(&q->lock);
	n = q->nbufs;
	pthread_mutex_unlock(&q->lock);
	if (!n)
		return ipu_err(-ENOENT, "queue: no host buffers are registered");
	err = q->ops->queue_register ? q->ops->queue_register(q, NULL, 0) : 0;
	if (err)
		return ipu_err(err, "queue: unregistering %zu host buffers", n);
	pthread_mutex_lock(&q->lock);
	q->nbufs = 0;
	pthread_mutex_unlock(&q->lock);
	return 0;
}

int ipu_queue_profile(struct ipu_queue *q, uint64_t user_data,
		      struct ipu_launch_profile *prof)
{
	IPU_KEEP_ERRNO();
	size_t i;
	int err = -ENOENT;

	if (!q || !prof)
		return ipu_err(-EINVAL, "ipu_queue_profile: %s is NULL",
			       q ? "prof" : "q");
	pthread_mutex_lock(&q->lock);
	for (i = 0; i < q->nprofs; i++) {
		if (q->old_profs[i]->user_data != user_data)
			continue;
		prof->recs = q->old_profs[i]->recs;
		prof->n = q->old_profs[i]->n;
		prof->dropped = q->old_profs[i]->dropped;
		err = 0;
		break;
	}
	pthread_mutex_unlock(&q->lock);
	if (err)
		return ipu_err(err, "ipu_queue_profile: the last reap returned no profiled launch with user_data %llu",
			       (unsigned long long)user_data);
	return 0;
}
