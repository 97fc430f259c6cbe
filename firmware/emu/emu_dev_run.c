// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_run.c - launches become runs of libipufw, the executor the model
 * backend and ipu-simd run, so every backend computes the same bits.
 *
 * The IPUs one ipu-emu process serves are linked (one LINK_ID): a program
 * of R replicas arrives as R launches on their command queues, with one
 * (owner, group). Each command thread files its launch into a run and
 * waits; the thread that brings the last replica runs the program over all
 * the arenas and hands each launch its result. Single-replica runs go
 * straight to their own thread.
 *
 * Deadlines. A waiting launch gives up by itself when its deadline passes
 * (or its queue is aborted) and leaves its run. A run in progress can only
 * be stopped by ipufw_cancel() from another thread: the watchdog thread
 * (one per process, alive while any device exists) wakes at the earliest
 * deadline of the runs in progress, and whenever a queue is aborted
 * (emu_run_kick), and cancels the runs that must stop. A cancel that
 * arrives just before ipufw_run() starts would be forgotten (firmware.h),
 * so the watchdog repeats it every CANCEL_RETRY_MS until the run ends.
 *
 * A program split across instances runs its local replicas here; its
 * all-reduces ask the host for the other instances' operands through the
 * gather ring of replica 0's IPU (emu_dev_gather.c), with the INSTANCE
 * context each launch brought.
 *
 * A launch that brought a PROFILE context (docs/hardware.md 4.5) has its
 * replica's ops recorded into that buffer in device memory, as ipu-simd
 * does (firmware/devmem/profile.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ipu/exe.h>
#include <ipu/firmware.h>

#include "../devmem/profile.h"
#include "emu_internal.h"

#define CANCEL_RETRY_MS	10

/**
 * struct emu_run - launches of one run.
 * @keyed: found by (owner, group): a replicated run. A single-replica run
 *	is in the list only for the watchdog.
 * @running: all replicas arrived; the executor owns it.
 * @cancelled: the watchdog cancelled it.
 * @ex: the executor while ipufw_run() may run, else NULL.
 */
struct emu_run {
	struct emu_run *next;
	bool keyed;
	uint32_t owner;
	uint64_t group;
	uint32_t nrep, arrived;
	bool running, cancelled;
	struct ipufw_executor *ex;
	struct emu_launch *l[];
};

/* Protects everything below and every emu_launch filed in a run. */
static pthread_mutex_t runs_lock = PTHREAD_MUTEX_INITIALIZER;
/* Signalled when a run ends, a queue is aborted or the watchdog stops. */
static pthread_cond_t runs_cond;
static struct emu_run *runs;
static unsigned int users;
static bool wd_stop;
static pthread_t wd_thread;

/* CLOCK_MONOTONIC, as emu_now_ms() counts and the condition waits. */
static void abs_time(uint64_t ms, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ms / 1000);
	ts->tv_nsec = (long)(ms % 1000) * 1000000;
}

static bool must_stop(const struct emu_launch *l, uint64_t now)
{
	return atomic_load(l->abort) || (l->deadline_ms && now >= l->deadline_ms);
}

static void *watchdog(void *arg)
{
	struct timespec ts;
	struct emu_run *run;
	uint64_t now, next;
	uint32_t r;

	(void)arg;
	pthread_mutex_lock(&runs_lock);
	while (!wd_stop) {
		now = emu_now_ms();
		next = UINT64_MAX;
		for (run = runs; run; run = run->next) {
			if (!run->running)
				continue;
			for (r = 0; r < run->nrep; r++) {
				if (must_stop(run->l[r], now))
					run->cancelled = true;
				else if (run->l[r]->deadline_ms &&
					 run->l[r]->deadline_ms < next)
					next = run->l[r]->deadline_ms;
			}
			if (run->cancelled) {
				ipufw_cancel(run->ex);
				if (now + CANCEL_RETRY_MS < next)
					next = now + CANCEL_RETRY_MS;
			}
		}
		if (next == UINT64_MAX) {
			pthread_cond_wait(&runs_cond, &runs_lock);
		} else {
			abs_time(next, &ts);
			pthread_cond_timedwait(&runs_cond, &runs_lock, &ts);
		}
	}
	pthread_mutex_unlock(&runs_lock);
	return NULL;
}

int emu_run_get(void)
{
	pthread_condattr_t attr;
	int err = 0;

	pthread_mutex_lock(&runs_lock);
	if (users++ == 0) {
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&runs_cond, &attr);
		pthread_condattr_destroy(&attr);
		wd_stop = false;
		err = -pthread_create(&wd_thread, NULL, watchdog, NULL);
		if (err) {
			users--;
			pthread_cond_destroy(&runs_cond);
		}
	}
	pthread_mutex_unlock(&runs_lock);
	return err;
}

void emu_run_put(void)
{
	bool last;

	pthread_mutex_lock(&runs_lock);
	last = --users == 0;
	if (last) {
		wd_stop = true;
		pthread_cond_broadcast(&runs_cond);
	}
	pthread_mutex_unlock(&runs_lock);
	if (last) {
		pthread_join(wd_thread, NULL);
		pthread_cond_destroy(&runs_cond);
	}
}

void emu_run_kick(void)
{
	pthread_mutex_lock(&runs_lock);
	pthread_cond_broadcast(&runs_cond);
	pthread_mutex_unlock(&runs_lock);
}

int emu_run_errno_to_cmd(int err)
{
	switch (err) {
	case 0:
		return IPU_CQ_OK;
	case -ENOEXEC:
		return IPU_CQ_E_NOEXEC;
	case -EINVAL:
		return IPU_CQ_E_INVAL;
	case -ERANGE:
		return IPU_CQ_E_RANGE;
	case -ENOMEM:
		return IPU_CQ_E_NOMEM;
	case -ECANCELED:
		return IPU_CQ_E_CANCELED;
	default:
		return IPU_CQ_E_INTERNAL;
	}
}

static void unlink_locked(struct emu_run *run)
{
	struct emu_run **pp;

	for (pp = &runs; *pp != run; pp = &(*pp)->next)
		;
	*pp = run->next;
}

/* Results per replica: @rc for all, or @bad's @rc and E_CANCELED. */
struct outcome {
	int rc;
	int bad;
};

/* Whether a gather of @arg (a running run) must stop waiting. */
static bool run_stopped(void *arg)
{
	struct emu_run *run = arg;
	uint64_t now = emu_now_ms();
	bool stop;
	uint32_t r;

	pthread_mutex_lock(&runs_lock);
	stop = run->cancelled;
	for (r = 0; r < run->nrep && !stop; r++)
		stop = must_stop(run->l[r], now);
	pthread_mutex_unlock(&runs_lock);
	return stop;
}

/*
 * A split program's instances, from its launches' INSTANCE contexts:
 * every launch must bring one, all naming the same instance. 0, or
 * -EINVAL with @msg.
 */
static int split_setup(struct emu_run *run, struct emu_gather_call *c,
		       char *msg, size_t msglen)
{
	const struct emu_launch *l0 = run->l[0];
	uint32_t r;

	for (r = 0; r < run->nrep; r++) {
		const struct emu_launch *l = run->l[r];

		if (!l->has_inst) {
			snprintf(msg, msglen,
				 "replica %u of a program split across instances came without an INSTANCE",
				 r);
			return -EINVAL;
		}
		if (l->inst.index != l0->inst.index ||
		    l->inst.count != l0->inst.count) {
			snprintf(msg, msglen,
				 "replica %u says instance %u of %u, replica 0 %u of %u",
				 r, l->inst.index, l->inst.count, l0->inst.index,
				 l0->inst.count);
			return -EINVAL;
		}
	}
	c->dev = l0->dev;
	c->d = &l0->d;
	c->stop = run_stopped;
	c->stop_arg = run;
	emu_gather_call_init(c, &l0->inst);
	return 0;
}

/* Replica @r's profile buffer (its launch's PROFILE context), or NULL. */
static struct ipu_profile_header *profile_of(const void *arg, uint32_t r,
					     uint64_t *size)
{
	const struct emu_launch *l = ((const struct emu_run *)arg)->l[r];

	*size = l->prof.size;
	if (!l->has_prof)
		return NULL;
	return devprof_buffer(l->dev->mem, l->dev->mem_size, l->prof.addr,
			      l->prof.size);
}

/* Run the program of @run (all arrived); fills @o. No lock held. */
static void execute(struct emu_run *run, struct outcome *o)
{
	const struct ipu_cmd_desc *d0 = &run->l[0]->d;
	void *arenas[IPU_CQ_MAX_REPLICAS];
	/* Profiling's per replica, here: it must not fail once begun. */
	struct ipufw_profile prof_fp[IPU_CQ_MAX_REPLICAS];
	struct ipu_profile_header *prof_h[IPU_CQ_MAX_REPLICAS];
	const struct devprof_slots slots = { .fp = prof_fp, .h = prof_h };
	struct ipufw_executor *ex = NULL;
	struct emu_gather_call gc = { .failed = false };
	uint64_t size = UINT64_MAX, now;
	bool split = false;
	struct ipu_exe *exe = NULL;
	struct devprof prof;
	uint8_t *image;
	bool cancelled;
	uint32_t r, magic = 0;
	char msg[256];
	int err;

	o->rc = IPU_CQ_OK;
	o->bad = -1;
	/* A private copy: the host may rewrite device memory meanwhile, and
	 * the loader must not see bytes change between check and use. */
	image = malloc(d0->exe_size);
	if (!image) {
		o->rc = IPU_CQ_E_NOMEM;
		return;
	}
	memcpy(image, run->l[0]->dev->mem + d0->exe_addr, d0->exe_size);
	for (r = 1; r < run->nrep; r++) {
		const struct ipu_cmd_desc *d = &run->l[r]->d;

		if (d->exe_size != d0->exe_size ||
		    memcmp(run->l[r]->dev->mem + d->exe_addr, image, d0->exe_size)) {
			o->rc = IPU_CQ_E_INVAL;
			o->bad = (int)r;
			goto out;
		}
	}
	memcpy(&magic, image, d0->exe_size < sizeof(magic) ? d0->exe_size : sizeof(magic));
	if (d0->exe_size < sizeof(struct ipu_exe_file_header) ||
	    magic != IPU_EXE_MAGIC) {
		/* Not an executable at all, told apart from a broken one as the
		 * other backends do. */
		o->rc = IPU_CQ_E_NOEXEC;
		goto out;
	}
	err = ipu_exe_load(image, d0->exe_size, &exe, msg, sizeof(msg));
	if (!err && exe->instance_replication_factor != run->nrep) {
		snprintf(msg, sizeof(msg), "the executable is for %u replicas, launched as %u",
			 exe->instance_replication_factor, run->nrep);
		err = -EINVAL;
	}
	if (!err && exe->instance_replication_factor != exe->replication_factor) {
		split = true;
		err = split_setup(run, &gc, msg, sizeof(msg));
	}
	if (err) {
		o->rc = emu_run_errno_to_cmd(err);
		emu_log_limited(run->l[0]->dev, "launch (group %llu): %s",
				(unsigned long long)d0->group, msg);
		goto out;
	}
	for (r = 0; r < run->nrep; r++) {
		arenas[r] = run->l[r]->dev->mem + run->l[r]->d.arena_addr;
		if (run->l[r]->d.arena_size < size)
			size = run->l[r]->d.arena_size;
	}
	err = ipufw_executor_create(run->nrep, &ex);
	if (err) {
		o->rc = emu_run_errno_to_cmd(err);
		goto out;
	}
	if (split)
		ipufw_executor_set_instances(ex, &gc.inst);
	devprof_begin(&prof, run->nrep, &slots, profile_of, run, ex);
	pthread_mutex_lock(&runs_lock);
	run->ex = ex;
	cancelled = run->cancelled;
	pthread_cond_broadcast(&runs_cond); /* the watchdog may cancel it now */
	pthread_mutex_unlock(&runs_lock);
	msg[0] = '\0';
	err = cancelled ? -ECANCELED :
			  ipufw_run(ex, exe, arenas, size, msg, sizeof(msg));
	/* The records and header before the completion (section 4.5). */
	devprof_end(&prof, ex);
	pthread_mutex_lock(&runs_lock);
	run->ex = NULL;
	if (err == -ECANCELED) {
		/* A gather that stopped waiting: say why, as the watchdog
		 * would have. */
		now = emu_now_ms();
		for (r = 0; r < run->nrep; r++)
			if (must_stop(run->l[r], now))
				run->cancelled = true;
	}
	pthread_mutex_unlock(&runs_lock);
	o->rc = emu_run_errno_to_cmd(err);
	if (err && err != -ECANCELED && gc.failed) {
		/* The request was replica 0's IPU's, and only its launch
		 * can carry what the host answered (the driver keeps the
		 * answer per launch): the others stopped because it failed,
		 * E_CANCELED, as for a bad image (section 4.4). */
		o->rc = IPU_CQ_E_GATHER;
		o->bad = 0;
	}
	if (err && err != -ECANCELED)
		emu_log_limited(run->l[0]->dev, "launch (group %llu): %s",
				(unsigned long long)d0->group, msg);
out:
	ipufw_executor_destroy(ex);
	ipu_exe_free(exe);
	free(image);
}

/* Hand every launch of @run its result; runs_lock held. */
static void finish_locked(struct emu_run *run, const struct outcome *o)
{
	uint64_t now = emu_now_ms();
	struct emu_launch *l;
	uint32_t r;

	for (r = 0; r < run->nrep; r++) {
		l = run->l[r];
		l->result = o->rc;
		if (o->bad >= 0 && (uint32_t)o->bad != r)
			l->result = IPU_CQ_E_CANCELED;
		if (o->rc == IPU_CQ_E_CANCELED && run->cancelled) {
			/* Why it stopped, per launch. */
			if (atomic_load(l->abort))
				l->result = IPU_CQ_E_RESET;
			else if (l->deadline_ms && now >= l->deadline_ms)
				l->result = IPU_CQ_E_TIMEOUT;
		}
		l->done = true;
	}
	unlink_locked(run);
	pthread_cond_broadcast(&runs_cond);
}

static struct emu_run *find_locked(uint32_t owner, uint64_t group)
{
	struct emu_run *run;

	for (run = runs; run; run = run->next)
		if (run->keyed && run->owner == owner && run->group == group)
			return run;
	return NULL;
}

/* File @l; its run, or NULL with @*rc set when it cannot join. */
static struct emu_run *file_locked(struct emu_launch *l, int *rc)
{
	const struct ipu_cmd_desc *d = &l->d;
	struct emu_run *run = NULL;
	uint32_t r;

	if (d->num_replicas > 1)
		run = find_locked(d->owner, d->group);
	if (run) {
		if (run->running || run->nrep != d->num_replicas ||
		    run->l[d->replica]) {
			*rc = IPU_CQ_E_DESC;
			return NULL;
		}
		/* Two replicas on one queue would wait for each other. */
		for (r = 0; r < run->nrep; r++) {
			if (run->l[r] && run->l[r]->dev == l->dev) {
				*rc = IPU_CQ_E_DESC;
				return NULL;
			}
		}
	} else {
		run = calloc(1, sizeof(*run) + d->num_replicas * sizeof(run->l[0]));
		if (!run) {
			*rc = IPU_CQ_E_NOMEM;
			return NULL;
		}
		run->keyed = d->num_replicas > 1;
		run->owner = d->owner;
		run->group = d->group;
		run->nrep = d->num_replicas;
		run->next = runs;
		runs = run;
	}
	run->l[d->replica] = l;
	run->arrived++;
	return run;
}

int emu_run_launch(struct emu_launch *l)
{
	struct outcome o;
	struct emu_run *run;
	struct timespec ts;
	int rc;

	pthread_mutex_lock(&runs_lock);
	run = file_locked(l, &rc);
	if (!run) {
		pthread_mutex_unlock(&runs_lock);
		return rc;	/* refused before its run: not filed */
	}
	l->filed = true;
	if (run->arrived == run->nrep) {
		run->running = true;
		pthread_cond_broadcast(&runs_cond);
		pthread_mutex_unlock(&runs_lock);
		execute(run, &o);
		pthread_mutex_lock(&runs_lock);
		finish_locked(run, &o);
		pthread_mutex_unlock(&runs_lock);
		free(run);
		return l->result;
	}
	while (!l->done) {
		if (!run->running && must_stop(l, emu_now_ms())) {
			/* Leave the run; the others wait for a replacement or
			 * their own deadlines. */
			run->l[l->d.replica] = NULL;
			if (--run->arrived == 0) {
				unlink_locked(run);
				free(run);
			}
			rc = atomic_load(l->abort) ? IPU_CQ_E_RESET :
						     IPU_CQ_E_TIMEOUT;
			pthread_mutex_unlock(&runs_lock);
			return rc;
		}
		if (run->running || !l->deadline_ms) {
			pthread_cond_wait(&runs_cond, &runs_lock);
		} else {
			abs_time(l->deadline_ms, &ts);
			pthread_cond_timedwait(&runs_cond, &runs_lock, &ts);
		}
	}
	rc = l->result;
	pthread_mutex_unlock(&runs_lock);
	return rc;
}
