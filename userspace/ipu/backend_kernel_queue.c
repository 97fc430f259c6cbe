// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * backend_kernel_queue.c - the "hw" backend's queues: an io_uring ring.
 *
 * A queue is one ring set up with IORING_SETUP_SQE128 (the commands'
 * payloads, struct ipu_xfer and struct ipu_launch, travel in the SQE's
 * 80-byte command area). A batch becomes one IORING_OP_URING_CMD SQE per
 * command (IPU_URING_CMD_XFER or IPU_URING_CMD_LAUNCH, on the file of the
 * command's device, so one ring serves every /dev/ipuN the process has
 * open), IPU_CMD_F_LINK becomes IOSQE_IO_LINK, and the batch goes to the
 * kernel in one io_uring_enter() (io_uring_submit()). The kernel finishes
 * commands in any order, each with a CQE whose result is 0 or -errno; the
 * CQE's user_data is the index of the command's slot here, which keeps a
 * copy of the command so its completion can name the device and say what
 * it was.
 *
 * Reaping. CQEs sit in the ring until a reaper comes: ipu_queue_reap()
 * calls kq_harvest(), which posts what is there to the front end and, if
 * that is not enough, waits in one io_uring_enter(IORING_ENTER_GETEVENTS)
 * for exactly the number still missing. So a run (its transfers, the
 * launch linked after them, the transfers linked after the launch) costs
 * two system calls however many streams it has: one to submit, one to
 * wait; and one with ipu_queue_submit_and_wait(), whose io_uring_enter()
 * submits the batch and waits for its completions (IORING_ENTER_GETEVENTS
 * with the submission), which the reap after it then finds in the CQ
 * ring. One thread harvests at a time (cq_lock); another reaper waits for
 * the lock, then finds what the first posted.
 *
 * SQE slots. io_uring may read a command's SQE when it issues it, and that
 * can be after io_uring_submit() returned (a linked command waits for the
 * one before it; seen on 6.12 with SINGLE_ISSUER | DEFER_TASKRUN rings), so
 * an SQE stays with its command until the command's completion is posted.
 * liburing hands out SQEs in ring order, which would reuse the slot of a
 * long launch while later transfers come and go; so this file picks SQEs
 * itself from a free list and points the SQ ring's index array at them
 * (kq_take_sqe_locked()). A ring without an index array
 * (IORING_SETUP_NO_SQARRAY, chosen by newer liburing) uses the SQE at each
 * ring position: then a batch whose positions are still busy waits, as
 * one that finds too few free SQEs does, for commands in flight to
 * complete (kq_wait_for_sqes()).
 *
 * Transfers larger than the kernel takes in one command (1 GiB) go as
 * several SQEs linked together, completing the command once; a transfer
 * whose host range lies in a buffer registered with the queue
 * (ipu_queue_register_buffers()) goes with IORING_URING_CMD_FIXED, so the
 * kernel uses the pages pinned at registration instead of pinning them
 * for every transfer.
 *
 * Replicated runs. The kernel ties a run's launches together by the
 * launching process and a non-zero group id, and libipu lets a caller
 * use any group value per queue, so each run gets a group id unique in
 * the process for as long as any of its launches is in flight. That
 * record is also where a replica submitted twice is refused.
 *
 * Fallback: where io_uring cannot be set up (an old kernel, io_uring
 * disabled) or a device does not offer io_uring commands, batches run
 * synchronously through the ioctls (ipu_queue_submit_sync()).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>
#include <linux/ipu.h>

#include "backend.h"
#include "backend_kernel.h"
#include "internal.h"

/* The most SQEs a ring holds (io_uring's IORING_MAX_ENTRIES). */
#define KQ_MAX_SQ		32768u
/* The largest transfer one io_uring command may carry (ipu_uring.c). */
#define KQ_XFER_MAX		(1ull << 30)
/* Bytes of the command area of an SQE128 submission. */
#define KQ_CMD_BYTES		80
/* No slot: ends the free list. */
#define KQ_NONE			UINT32_MAX

/* A split launch's fields travel in the command area too. */
_Static_assert(sizeof(struct ipu_launch) <= KQ_CMD_BYTES,
	       "struct ipu_launch outgrew an SQE128's command area");

/**
 * struct kq_run - a replicated run with launches in flight on this queue.
 * @group: the caller's ipu_launch_desc.group.
 * @kgroup: the group id the kernel sees, unique in the process.
 * @nrep: its replica count.
 * @inflight: its launches submitted and not yet completed.
 * @seen: per replica, whether its launch is in flight.
 */
struct kq_run {
	struct kq_run *next;
	uint64_t group;
	uint64_t kgroup;
	uint32_t nrep;
	uint32_t inflight;
	uint8_t seen[];
};

/**
 * struct kq_slot - a command in flight.
 * @cmd: a copy, for the completion.
 * @parts: its SQEs whose CQE has not come yet (a long transfer has
 *	several).
 * @result: the first failure among its parts (one that is not the
 *	-ECANCELED of a later part).
 * @run: the run of a replicated launch, or NULL.
 * @next_free: the next free slot when this one is free.
 * @sqes: the first of the SQEs it holds (chained through kq.sqe_next), or
 *	KQ_NONE.
 * @prof: a launch's profile buffer (IPU_LAUNCH_F_PROFILE).
 */
struct kq_slot {
	struct ipu_cmd cmd;
	uint32_t parts;
	int32_t result;
	struct kq_run *run;
	uint32_t next_free;
	uint32_t sqes;
	struct kprof prof;
};

/* A registered host buffer, kept sorted by address for the lookup. */
struct kq_buf {
	uintptr_t base;
	size_t len;
	uint16_t index;
};

/**
 * struct kq - the io_uring side of a queue.
 * @ring: the ring.
 * @lock: protects the SQ ring, @slots, @free, @runs and @bufs.
 * @cq_lock: held by the one thread harvesting CQEs (kq_harvest()).
 * @slots: q->entries of them; @free heads the free list.
 * @runs: replicated runs with launches in flight.
 * @bufs, @nbufs: registered host buffers, sorted by base.
 * @sqe_next: per SQE: the next free SQE, or the next SQE of the same
 *	command.
 * @sqe_busy: per SQE: held by a command in flight.
 * @sqe_free, @sqe_nfree: the free SQEs (when the ring has an index array).
 */
struct kq {
	struct io_uring ring;
	pthread_mutex_t lock;
	pthread_mutex_t cq_lock;
	struct kq_slot *slots;
	uint32_t free;
	struct kq_run *runs;
	struct kq_buf *bufs;
	size_t nbufs;
	uint32_t *sqe_next;
	uint8_t *sqe_busy;
	uint32_t sqe_free;
	uint32_t sqe_nfree;
};

/* Group ids handed to the kernel: process-wide, never 0. */
static uint64_t next_kgroup;

static struct kq *kq_of(const struct ipu_queue *q)
{
	return q->priv;
}

static int kfd_of(const struct ipu_device *dev)
{
	return kdev_of(dev)->fd;
}

/* ---------------------------------------------------------------------- */
/* Setting up and tearing down                                             */
/* ---------------------------------------------------------------------- */

int kq_create(struct ipu_queue *q)
{
	struct io_uring_params p;
	struct kq *kq;
	uint32_t i, n;
	int err;

	kq = calloc(1, sizeof(*kq));
	if (!kq)
		return -ENOMEM;
	kq->slots = calloc(q->entries, sizeof(*kq->slots));
	if (!kq->slots) {
		free(kq);
		return -ENOMEM;
	}
	memset(&p, 0, sizeof(p));
	/*
	 * SQE128 for the payloads; SUBMIT_ALL so that a command the kernel
	 * refuses at submission completes with its error instead of
	 * stopping the rest of the batch; a CQ ring with room for every
	 * command in flight (CLAMP: the kernel's limits over ours).
	 */
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_SUBMIT_ALL |
		  IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
	p.cq_entries = q->entries < 2 ? 2 : 2 * q->entries;
	err = io_uring_queue_init_params(q->entries < KQ_MAX_SQ ? q->entries :
				       KQ_MAX_SQ, &kq->ring, &p);
	if (!err && !(p.features & IORING_FEAT_EXT_ARG)) {
		/* Every kernel with io_uring commands has it (5.11). */
		io_uring_queue_exit(&kq->ring);
		err = -EOPNOTSUPP;
	}
	if (err) {
		free(kq->slots);
		free(kq);
		/* No io_uring here: batches run through the ioctls. */
		if (err == -ENOMEM)
			return err;
		q->priv = NULL;
		return 0;
	}
	n = kq->ring.sq.ring_entries;
	kq->sqe_next = calloc(n, sizeof(*kq->sqe_next));
	kq->sqe_busy = calloc(n, sizeof(*kq->sqe_busy));
	if (!kq->sqe_next || !kq->sqe_busy) {
		io_uring_queue_exit(&kq->ring);
		free(kq->sqe_next);
		free(kq->sqe_busy);
		free(kq->slots);
		free(kq);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		kq->sqe_next[i] = i + 1 < n ? i + 1 : KQ_NONE;
	kq->sqe_free = 0;
	kq->sqe_nfree = n;
	for (i = 0; i < q->entries; i++) {
		kq->slots[i].next_free = i + 1 < q->entries ? i + 1 : KQ_NONE;
		kq->slots[i].sqes = KQ_NONE;
	}
	kq->free = 0;
	pthread_mutex_init(&kq->lock, NULL);
	pthread_mutex_init(&kq->cq_lock, NULL);
	q->priv = kq;
	return 0;
}

/*
 * The time left until @deadline as io_uring's timeout; false when it has
 * passed.
 */
static bool ts_until(const struct timespec *deadline,
		     struct __kernel_timespec *ts)
{
	struct timespec now;
	int64_t left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left = (deadline->tv_sec - now.tv_sec) * 1000000000ll +
	       (deadline->tv_nsec - now.tv_nsec);
	if (left <= 0)
		return false;
	ts->tv_sec = left / 1000000000;
	ts->tv_nsec = left % 1000000000;
	return true;
}

/* io_uring_enter() to wait for completions, counted: liburing 2.3's
 * wrappers differ in how they report errors and may enter more than once. */
static int uring_enter(struct ipu_queue *q, unsigned int to_submit,
		       unsigned int min_complete, unsigned int flags,
		       const void *arg, size_t argsz)
{
	long ret;

	IPU_QUEUE_STAT_ADD(q, enters, 1);
	IPU_QUEUE_STAT_ADD(q, wait_enters, 1);
	ret = syscall(__NR_io_uring_enter, kq_of(q)->ring.ring_fd, to_submit,
		      min_complete, flags, arg, argsz);
	return ret < 0 ? -errno : (int)ret;
}

static void drain(struct ipu_queue *q);

void kq_destroy(struct ipu_queue *q)
{
	struct kq *kq = kq_of(q);
	bool busy;
	uint32_t i;

	if (!kq)
		return;
	/*
	 * Commands in flight hold the caller's host memory: the kernel may
	 * still write into it. They all end in bounded time (transfers at
	 * once, launches by the device's deadline), so wait for them here
	 * rather than let the caller free memory the kernel writes to.
	 */
	pthread_mutex_lock(&kq->cq_lock);
	for (;;) {
		drain(q);
		pthread_mutex_lock(&kq->lock);
		busy = false;
		for (i = 0; i < q->entries && !busy; i++)
			busy = kq->slots[i].parts != 0;
		pthread_mutex_unlock(&kq->lock);
		if (!busy)
			break;
		uring_enter(q, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	}
	pthread_mutex_unlock(&kq->cq_lock);
	io_uring_queue_exit(&kq->ring);
	while (kq->runs) {
		struct kq_run *run = kq->runs;

		kq->runs = run->next;
		free(run);
	}
	pthread_mutex_destroy(&kq->cq_lock);
	pthread_mutex_destroy(&kq->lock);
	free(kq->bufs);
	free(kq->sqe_next);
	free(kq->sqe_busy);
	free(kq->slots);
	free(kq);
	q->priv = NULL;
}

/* ---------------------------------------------------------------------- */
/* Registered buffers                                                      */
/* ---------------------------------------------------------------------- */

static int cmp_buf(const void *a, const void *b)
{
	const struct kq_buf *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

int kq_register(struct ipu_queue *q, const struct iovec *bufs, size_t n)
{
	struct kq *kq = kq_of(q);
	struct kq_buf *table = NULL;
	size_t i;
	int err;

	if (!kq)
		return 0; /* transfers pin per call anyway */
	if (n) {
		table = calloc(n, sizeof(*table));
		if (!table)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			table[i].base = (uintptr_t)bufs[i].iov_base;
			table[i].len = bufs[i].iov_len;
			table[i].index = (uint16_t)i;
		}
		qsort(table, n, sizeof(*table), cmp_buf);
	}
	pthread_mutex_lock(&kq->lock);
	err = n ? io_uring_register_buffers(&kq->ring, bufs, (unsigned int)n) :
		  io_uring_unregister_buffers(&kq->ring);
	if (!err) {
		free(kq->bufs);
		kq->bufs = table;
		kq->nbufs = n;
		table = NULL;
	}
	pthread_mutex_unlock(&kq->lock);
	free(table);
	return err;
}

/* The registered buffer holding all of [@host, @host + @len), or -1. */
static int find_buf_locked(const struct kq *kq, const void *host,
			   uint64_t len)
{
	uintptr_t p = (uintptr_t)host;
	size_t lo = 0, hi = kq->nbufs, mid;
	const struct kq_buf *b;

	/* The last buffer starting at or before @p. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (kq->bufs[mid].base <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	b = &kq->bufs[lo - 1];
	if (p - b->base > b->len || len > b->len - (p - b->base))
		return -1;
	return b->index;
}

/* ---------------------------------------------------------------------- */
/* Submitting                                                              */
/* ---------------------------------------------------------------------- */

static uint32_t parts_of(const struct ipu_cmd *cmd)
{
	if (cmd->op != IPU_CMD_XFER)
		return 1;
	return (uint32_t)((cmd->xfer.length + KQ_XFER_MAX - 1) / KQ_XFER_MAX);
}

static bool in_a_run(const struct ipu_cmd *cmd)
{
	return cmd->op == IPU_CMD_LAUNCH && cmd->launch.num_replicas > 1;
}

static struct kq_run *find_run_locked(struct kq *kq, uint64_t group)
{
	struct kq_run *run;

	for (run = kq->runs; run; run = run->next)
		if (run->group == group)
			return run;
	return NULL;
}

/*
 * The launches of runs against the runs in flight (the front end checked
 * the batch against itself), then records for the new runs; all or
 * nothing. Under kq->lock.
 */
static int add_runs_locked(struct kq *kq, const struct ipu_cmd *cmds,
			   size_t n, char *why, size_t whylen)
{
	struct kq_run *fresh = NULL, *run;
	const struct ipu_launch_desc *l;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!in_a_run(&cmds[i]))
			continue;
		l = &cmds[i].launch;
		run = find_run_locked(kq, l->group);
		if (run && ipu_run_conflict(l, i, run->nrep,
					    l->replica < run->nrep &&
						    run->seen[l->replica],
					    why, whylen))
			goto err_free;
		if (run)
			continue;
		for (run = fresh; run && run->group != l->group; run = run->next)
			;
		if (run)
			continue;
		run = calloc(1, sizeof(*run) + l->num_replicas);
		if (!run) {
			snprintf(why, whylen, "no memory for the run of group %llu",
				 (unsigned long long)l->group);
			while ((run = fresh)) {
				fresh = run->next;
				free(run);
			}
			return -ENOMEM;
		}
		run->group = l->group;
		run->nrep = l->num_replicas;
		do {
			run->kgroup = __atomic_add_fetch(&next_kgroup, 1,
							 __ATOMIC_RELAXED);
		} while (!run->kgroup);
		run->next = fresh;
		fresh = run;
	}
	while ((run = fresh)) {
		fresh = run->next;
		run->next = kq->runs;
		kq->runs = run;
	}
	return 0;

err_free:
	while ((run = fresh)) {
		fresh = run->next;
		free(run);
	}
	return -EINVAL;
}

/* A free slot for @cmd; there always is one (the front end counts). */
static uint32_t take_slot_locked(struct kq *kq, const struct ipu_cmd *cmd)
{
	uint32_t s = kq->free;
	struct kq_slot *slot = &kq->slots[s];
	struct kq_run *run = NULL;

	kq->free = slot->next_free;
	slot->cmd = *cmd;
	slot->parts = parts_of(cmd);
	slot->result = 0;
	if (in_a_run(cmd)) {
		run = find_run_locked(kq, cmd->launch.group);
		run->seen[cmd->launch.replica] = 1;
		run->inflight++;
	}
	slot->run = run;
	return s;
}

/*
 * Whether @n more SQEs can be had now without touching one that a command
 * in flight still holds. The SQ ring itself is empty between batches: every
 * batch is submitted whole (SUBMIT_ALL), or what the kernel did not take
 * is taken back out (kq_unsubmit_locked()).
 */
static bool kq_sqes_available_locked(const struct kq *kq, size_t n)
{
	const struct io_uring_sq *sq = &kq->ring.sq;
	size_t k;

	if (sq->array)
		return n <= kq->sqe_nfree;
	if (n > sq->ring_entries)
		return false;
	for (k = 0; k < n; k++)
		if (kq->sqe_busy[(sq->sqe_tail + k) & sq->ring_mask])
			return false;
	return true;
}

/* The next SQE, held by the command in @slot until its completion. */
static struct io_uring_sqe *kq_take_sqe_locked(struct kq *kq, uint32_t slot)
{
	struct io_uring_sq *sq = &kq->ring.sq;
	unsigned int shift = kq->ring.flags & IORING_SETUP_SQE128 ? 1 : 0;
	uint32_t i;

	if (sq->array) {
		i = kq->sqe_free;
		kq->sqe_free = kq->sqe_next[i];
		kq->sqe_nfree--;
		sq->array[sq->sqe_tail & sq->ring_mask] = i;
	} else {
		i = sq->sqe_tail & sq->ring_mask;
	}
	sq->sqe_tail++;
	kq->sqe_busy[i] = 1;
	kq->sqe_next[i] = kq->slots[slot].sqes;
	kq->slots[slot].sqes = i;
	return &sq->sqes[(size_t)i << shift];
}

/* The command in @slot completed: its SQEs may be reused. */
static void kq_put_sqes_locked(struct kq *kq, struct kq_slot *slot)
{
	uint32_t i, next;

	for (i = slot->sqes; i != KQ_NONE; i = next) {
		next = kq->sqe_next[i];
		kq->sqe_busy[i] = 0;
		if (kq->ring.sq.array) {
			kq->sqe_next[i] = kq->sqe_free;
			kq->sqe_free = i;
			kq->sqe_nfree++;
		}
	}
	slot->sqes = KQ_NONE;
}

static struct io_uring_sqe *prep_cmd_sqe(struct kq *kq, int fd, uint32_t op,
					 uint32_t slot)
{
	struct io_uring_sqe *sqe = kq_take_sqe_locked(kq, slot);

	/* The submitter made sure of the whole batch's SQEs first. */
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = op;
	memset(sqe->cmd, 0, KQ_CMD_BYTES);
	sqe->user_data = slot;
	return sqe;
}

/*
 * SQEs of transfer @cmd in slot @s; @link: whether the SQE after the last
 * waits for it. Returns the SQEs queued.
 */
static void prep_xfer(struct ipu_queue *q, const struct ipu_cmd *cmd,
		      uint32_t s, bool link)
{
	struct kq *kq = kq_of(q);
	const struct ipu_xfer_desc *d = &cmd->xfer;
	const struct ipu_device *dev = d->bo->dev;
	uint64_t off, chunk;
	struct io_uring_sqe *sqe;
	struct ipu_xfer *x;
	int buf = -1;

	if (kdev_of(dev)->features & IPU_FEATURE_URING_FIXED && kq->nbufs)
		buf = find_buf_locked(kq, d->host, d->length);
	if (buf >= 0)
		IPU_QUEUE_STAT_ADD(q, fixed_xfers, 1);
	for (off = 0; off < d->length; off += chunk) {
		chunk = d->length - off < KQ_XFER_MAX ? d->length - off :
							KQ_XFER_MAX;
		sqe = prep_cmd_sqe(kq, kfd_of(dev), IPU_URING_CMD_XFER, s);
		x = (struct ipu_xfer *)sqe->cmd;
		x->user_ptr = (uint64_t)(uintptr_t)d->host + off;
		x->bo_offset = d->bo_offset + off;
		x->length = chunk;
		x->handle = d->bo->handle;
		x->flags = d->dir == IPU_XFER_DIR_TO_DEVICE ?
				   IPU_XFER_TO_DEVICE :
				   IPU_XFER_FROM_DEVICE;
		if (buf >= 0) {
			sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
			sqe->buf_index = (uint16_t)buf;
		}
		/* The parts of one transfer run one after the other. */
		if (off + chunk < d->length || link)
			sqe->flags |= IOSQE_IO_LINK;
	}
}

static void prep_launch(struct kq *kq, const struct ipu_cmd *cmd, uint32_t s,
			bool link)
{
	const struct ipu_launch_desc *l = &cmd->launch;
	struct io_uring_sqe *sqe;
	struct ipu_launch *k;

	sqe = prep_cmd_sqe(kq, kfd_of(l->arena_bo->dev), IPU_URING_CMD_LAUNCH,
			   s);
	k = (struct ipu_launch *)sqe->cmd;
	k->exe_handle = l->exe_bo->handle;
	k->arena_handle = l->arena_bo->handle;
	k->exe_size = l->exe_size;
	k->arena_offset = l->arena_offset;
	k->arena_size = l->arena_size ? l->arena_size :
					l->arena_bo->size - l->arena_offset;
	k->replica = l->replica;
	k->num_replicas = l->num_replicas;
	if (l->flags & IPU_LAUNCH_F_PROFILE) {
		kprof_open(&kq->slots[s].prof, l->arena_bo->dev);
		if (kq->slots[s].prof.map) {
			k->flags = IPU_LAUNCH_PROFILE;
			k->profile_handle = kq->slots[s].prof.handle;
		}
	}
	if (in_a_run(cmd))
		k->group = kq->slots[s].run->kgroup;
	/* A split launch: its instance and staging area (the kernel refuses
	 * it with -EOPNOTSUPP where the device posts no gather requests). */
	if (l->instance_count) {
		k->instance_index = l->instance_index;
		k->instance_count = l->instance_count;
		k->staging_handle = l->staging_bo->handle;
		k->staging_offset = l->staging_offset;
		k->staging_size = l->staging_size;
	}
	if (link)
		sqe->flags |= IOSQE_IO_LINK;
}

static size_t ready_of(const struct ipu_queue *q)
{
	return __atomic_load_n(&q->ready, __ATOMIC_ACQUIRE);
}

/*
 * io_uring_submit() that also waits, in the same io_uring_enter(), for
 * @wait's completions still missing: the SQ ring's tail is published as
 * liburing does, then the kernel submits and waits. Its answer is that of
 * a submission: how many SQEs it took if any, whatever came of the wait
 * (a timeout, a signal), else -errno.
 */
static int submit_and_wait(struct ipu_queue *q,
			   const struct ipu_submit_wait *wait)
{
	struct io_uring_sq *sq = &kq_of(q)->ring.sq;
	struct io_uring_getevents_arg arg;
	struct __kernel_timespec ts;
	size_t ready = ready_of(q);
	unsigned int to_submit, min = 0, flags = 0;
	long ret;

	if (sq->sqe_head != sq->sqe_tail) {
		sq->sqe_head = sq->sqe_tail;
		__atomic_store_n(sq->ktail, sq->sqe_tail, __ATOMIC_RELEASE);
	}
	to_submit = sq->sqe_tail - __atomic_load_n(sq->khead, __ATOMIC_ACQUIRE);
	memset(&arg, 0, sizeof(arg));
	if (wait->want > ready &&
	    (!wait->deadline || ts_until(wait->deadline, &ts))) {
		min = (unsigned int)(wait->want - ready);
		flags = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;
		if (wait->deadline)
			arg.ts = (uint64_t)(uintptr_t)&ts;
	}
	ret = syscall(__NR_io_uring_enter, kq_of(q)->ring.ring_fd, to_submit,
		      min, flags, flags ? &arg : NULL,
		      flags ? sizeof(arg) : 0);
	return ret < 0 ? -errno : (int)ret;
}

/*
 * Hand the SQEs queued so far to the kernel, waiting for @wait's
 * completions in the same system call (NULL: not waiting); 0 or -errno.
 */
static int submit_locked(struct ipu_queue *q,
			 const struct ipu_submit_wait *wait)
{
	struct kq *kq = kq_of(q);
	int ret;

	while (io_uring_sq_ready(&kq->ring)) {
		IPU_QUEUE_STAT_ADD(q, enters, 1);
		IPU_QUEUE_STAT_ADD(q, submit_enters, 1);
		ret = wait ? submit_and_wait(q, wait) :
			     io_uring_submit(&kq->ring);
		if (ret >= 0)
			continue; /* short only if the kernel lacked memory */
		if (ret == -EINTR || ret == -EAGAIN || ret == -EBUSY) {
			sched_yield();
			continue;
		}
		return ret;
	}
	return 0;
}

/* Whether every device of the batch takes io_uring commands. */
static bool batch_can_uring(const struct ipu_cmd *cmds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(kdev_of(ipu_cmd_device(&cmds[i]))->features &
		      IPU_FEATURE_URING_CMD))
			return false;
	return true;
}

/*
 * Wait until commands in flight give back SQEs: harvest what the kernel
 * finished (posting it to the front end, whose room the batch already
 * counted), and if nothing was there, wait for one CQE. Called without
 * kq->lock, which complete_cqe() takes.
 */
static int kq_wait_for_sqes(struct ipu_queue *q)
{
	struct kq *kq = kq_of(q);
	int ret = 0;

	pthread_mutex_lock(&kq->cq_lock);
	if (!io_uring_cq_ready(&kq->ring))
		ret = uring_enter(q, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	drain(q);
	pthread_mutex_unlock(&kq->cq_lock);
	return ret < 0 && ret != -EINTR ? ret : 0;
}

/* The SQEs of the chain of commands starting at @i; @end: one past it. */
static size_t chain_sqes(const struct ipu_cmd *cmds, size_t n, size_t i,
			 size_t *end)
{
	size_t sqes = 0;

	for (; i < n; i++) {
		sqes += parts_of(&cmds[i]);
		if (!(cmds[i].flags & IPU_CMD_F_LINK))
			break;
	}
	*end = i < n ? i + 1 : n;
	return sqes;
}

static void put_run_locked(struct kq *kq, struct kq_run *run,
			   uint32_t replica);

/* Release @slot of a command that never reached the kernel. */
static void kq_release_slot_locked(struct kq *kq, uint32_t s)
{
	struct kq_slot *slot = &kq->slots[s];

	if (slot->run)
		put_run_locked(kq, slot->run, slot->cmd.launch.replica);
	slot->run = NULL;
	slot->parts = 0;
	kprof_close(&slot->prof);
	kq_put_sqes_locked(kq, slot);
	slot->next_free = kq->free;
	kq->free = s;
}

/*
 * io_uring_enter() failed: take the SQEs the kernel did not consume out
 * of the SQ ring again, so that no later io_uring_enter() submits them,
 * and free their slots. A failed io_uring_enter() consumed none of what
 * it was given (the kernel returns a count once it took any), and nobody
 * else submits from the ring while kq->lock is held (reapers enter with
 * to_submit 0), so the pending SQEs are exactly those, between the
 * kernel's head and our tail. Then drop the records of runs none of whose
 * launches is in flight.
 */
static void kq_unsubmit_locked(struct kq *kq, uint32_t q_entries)
{
	struct io_uring_sq *sq = &kq->ring.sq;
	unsigned int shift = kq->ring.flags & IORING_SETUP_SQE128 ? 1 : 0;
	unsigned int head = __atomic_load_n(sq->khead, __ATOMIC_ACQUIRE);
	struct kq_run **pp, *run;
	unsigned int pos;
	uint32_t i, s;

	for (pos = head; pos != sq->sqe_tail; pos++) {
		i = sq->array ? sq->array[pos & sq->ring_mask] :
				pos & sq->ring_mask;
		s = (uint32_t)sq->sqes[(size_t)i << shift].user_data;
		/* A long transfer has several SQEs: release it once. */
		if (s < q_entries && kq->slots[s].parts)
			kq_release_slot_locked(kq, s);
	}
	sq->sqe_head = head;
	sq->sqe_tail = head;
	__atomic_store_n(sq->ktail, head, __ATOMIC_RELEASE);
	for (pp = &kq->runs; (run = *pp);) {
		if (run->inflight) {
			pp = &run->next;
			continue;
		}
		*pp = run->next;
		free(run);
	}
}

int kq_submit(struct ipu_queue *q, const struct ipu_cmd *cmds, size_t n,
	      const struct ipu_submit_wait *wait, char *why, size_t whylen)
{
	struct kq *kq = kq_of(q);
	size_t i, end, chain, sent = 0;
	bool link;
	int err;

	if (!kq || !batch_can_uring(cmds, n))
		return ipu_queue_submit_sync(q, cmds, n);

	pthread_mutex_lock(&kq->lock);
	/*
	 * A chain goes to the kernel in one io_uring_enter() (links do not
	 * span submissions), on SQEs no command in flight holds (see the top
	 * of the file); one chain longer than the ring can never go.
	 */
	for (i = 0; i < n; i = end) {
		chain = chain_sqes(cmds, n, i, &end);
		if (chain > kq->ring.sq.ring_entries) {
			snprintf(why, whylen, "commands %zu to %zu, linked, need %zu submission entries; the ring has %u",
				 i, end - 1, chain, kq->ring.sq.ring_entries);
			err = -EINVAL;
			goto out_unlock;
		}
	}
	err = add_runs_locked(kq, cmds, n, why, whylen);
	if (err)
		goto out_unlock;

	/*
	 * Usually the whole batch fits the free SQEs and goes in one
	 * io_uring_enter(). A batch bigger than the ring (a queue holds up
	 * to IPU_QUEUE_MAX_ENTRIES commands, a ring at most KQ_MAX_SQ SQEs),
	 * or one submitted while earlier commands still hold SQEs, goes in
	 * parts: what fits, then the rest as commands in flight complete.
	 * Commands [0, sent) are with the kernel.
	 */
	for (i = 0; i < n; i = end) {
		chain = chain_sqes(cmds, n, i, &end);
		while (!kq_sqes_available_locked(kq, chain)) {
			err = submit_locked(q, NULL);
			if (err)
				goto out_failed;
			sent = i;
			pthread_mutex_unlock(&kq->lock);
			err = kq_wait_for_sqes(q);
			pthread_mutex_lock(&kq->lock);
			if (err)
				goto out_failed;
		}
		for (; i < end; i++) {
			uint32_t s = take_slot_locked(kq, &cmds[i]);

			/* A link on the batch's last command is ignored. */
			link = cmds[i].flags & IPU_CMD_F_LINK && i + 1 < n;
			if (cmds[i].op == IPU_CMD_XFER)
				prep_xfer(q, &cmds[i], s, link);
			else
				prep_launch(kq, &cmds[i], s, link);
		}
	}
	/*
	 * With @wait, the kernel waits for the completions before the call
	 * returns, while kq->lock is held: reapers of other threads post
	 * nothing meanwhile (complete_cqe() takes the lock), which the wait
	 * does not need; the completions come from the kernel alone.
	 */
	err = submit_locked(q, wait);
	if (err)
		goto out_failed;
	pthread_mutex_unlock(&kq->lock);
	return 0;

out_failed:
	/*
	 * The ring cannot take the batch (io_uring_enter() failed: the ring
	 * or its file is gone, or the kernel refuses). What the kernel did
	 * not take comes back out of the ring, so the queue stays usable and
	 * nothing is submitted behind the caller's back. Nothing of the batch
	 * went in: it fails as a whole, all or nothing. Its first part went
	 * in already (a batch in parts): those commands complete as usual,
	 * and every other command completes now with the error.
	 */
	kq_unsubmit_locked(kq, q->entries);
	pthread_mutex_unlock(&kq->lock);
	snprintf(why, whylen, "io_uring_enter() failed: %s%s", ipu_strerror(err),
		 sent ? "" : "; nothing of the batch was submitted");
	if (!sent)
		return err;
	for (i = sent; i < n; i++)
		ipu_queue_complete(q, &cmds[i], err,
				   "not submitted: io_uring_enter() failed");
	return 0;

out_unlock:
	pthread_mutex_unlock(&kq->lock);
	return err;
}

/* ---------------------------------------------------------------------- */
/* Completions                                                             */
/* ---------------------------------------------------------------------- */

/* What a failure means, beyond the errno's own words. */
static const char *detail(const struct ipu_cmd *cmd, int res)
{
	if (cmd->op == IPU_CMD_XFER) {
		switch (res) {
		case -ENOENT:
			return "the kernel knows no such buffer object in this file (destroyed?)";
		case -EFAULT:
			return "the host range is not mapped (or not writable)";
		case -EIO:
			return "the device failed the transfer";
		case -ENODEV:
			return "the device was removed";
		case -EINVAL:
			return "the kernel refused the transfer";
		default:
			return NULL;
		}
	}
	switch (res) {
	case -EUNATCH:
		return "no firmware is attached to the device (for a simulated IPU: is ipu-simd running?)";
	case -ETIMEDOUT:
		return "the firmware did not finish in time (launch_timeout_ms); the device was reset";
	case -EIO:
		/* Not only a reset: the PCIe IPU's E_RESET, E_INTERNAL and
		 * a failed gather without the host's errno, and firmware
		 * that returned a status no errno names, all arrive so. */
		return "the device stopped the launch (a reset while it was in flight, or a fault of the device or its firmware: the kernel log and ipu-info say which)";
	case -ENOEXEC:
		return "the firmware found no executable in the buffer object";
	case -EINVAL:
		return "the firmware rejected the program or its arena (its log says why)";
	case -ENOENT:
		return "the kernel knows no such buffer object in this file (destroyed?)";
	case -ENODEV:
		return "the device was removed";
	default:
		return NULL;
	}
}

/* Release the run of a completed launch; under kq->lock. */
static void put_run_locked(struct kq *kq, struct kq_run *run, uint32_t replica)
{
	struct kq_run **pp;

	run->seen[replica] = 0;
	if (--run->inflight)
		return;
	for (pp = &kq->runs; *pp != run; pp = &(*pp)->next)
		;
	*pp = run->next;
	free(run);
}

/* One CQE; posts the command's completion when it was its last part. */
static void complete_cqe(struct ipu_queue *q, uint64_t user_data, int res)
{
	struct kq *kq = kq_of(q);
	struct kq_slot *slot;
	struct kprof prof;
	struct ipu_cmd cmd;

	if (user_data >= q->entries)
		return; /* not ours: cannot happen */
	pthread_mutex_lock(&kq->lock);
	slot = &kq->slots[user_data];
	if (!slot->parts) {
		pthread_mutex_unlock(&kq->lock);
		return;
	}
	/* A part's own failure beats the cancellation of the parts after. */
	if (res < 0 && (!slot->result || slot->result == -ECANCELED))
		slot->result = res;
	if (--slot->parts) {
		pthread_mutex_unlock(&kq->lock);
		return;
	}
	cmd = slot->cmd;
	res = slot->result;
	prof = slot->prof;
	memset(&slot->prof, 0, sizeof(slot->prof));
	if (slot->run)
		put_run_locked(kq, slot->run, cmd.launch.replica);
	slot->run = NULL;
	kq_put_sqes_locked(kq, slot);
	slot->next_free = kq->free;
	kq->free = (uint32_t)user_data;
	pthread_mutex_unlock(&kq->lock);
	/* The launch completed: the firmware wrote its buffer before. */
	ipu_queue_complete_prof(q, &cmd, res, res ? detail(&cmd, res) : NULL,
				kprof_take(&prof));
}

/*
 * Post every CQE in the ring; the caller holds cq_lock. Reads the ring
 * only (io_uring_peek_cqe() may enter the kernel, and every
 * io_uring_enter() is counted where it is made).
 */
static void drain(struct ipu_queue *q)
{
	struct io_uring *ring = &kq_of(q)->ring;
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;

	io_uring_for_each_cqe(ring, head, cqe) {
		complete_cqe(q, cqe->user_data, cqe->res);
		seen++;
	}
	io_uring_cq_advance(ring, seen);
}


int kq_harvest(struct ipu_queue *q, size_t want,
	       const struct timespec *deadline, bool wait)
{
	struct kq *kq = kq_of(q);
	struct io_uring_getevents_arg arg;
	struct __kernel_timespec ts;
	size_t ready;
	int ret = 0;

	if (!kq)
		return 0; /* the synchronous queue posted everything */
	if (wait && ready_of(q) >= want && want)
		return 0;
	if (!wait)
		ret = pthread_mutex_trylock(&kq->cq_lock);
	else if (deadline)
		ret = pthread_mutex_clocklock(&kq->cq_lock, CLOCK_MONOTONIC,
					      deadline);
	else
		ret = pthread_mutex_lock(&kq->cq_lock);
	if (ret) /* another thread harvests: what it posts is ours too */
		return ret == ETIMEDOUT ? -ETIME : 0;

	for (;;) {
		drain(q);
		ready = ready_of(q);
		if (!wait || ready >= want)
			break;
		memset(&arg, 0, sizeof(arg));
		if (deadline) {
			if (!ts_until(deadline, &ts)) {
				ret = -ETIME;
				break;
			}
			arg.ts = (uint64_t)(uintptr_t)&ts;
		}
		/* The CQ ring is empty: wait for exactly what is missing. */
		ret = uring_enter(q, 0, (unsigned int)(want - ready),
				  IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
				  &arg, sizeof(arg));
		if (ret == -ETIME) {
			drain(q);
			break;
		}
		if (ret < 0 && ret != -EINTR)
			break;
		ret = 0;
	}
	pthread_mutex_unlock(&kq->cq_lock);
	return ret < 0 ? ret : 0;
}
