// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * run.c - launches become runs of the firmware executor.
 *
 * A program of R replicas arrives as R launches, possibly on R devices,
 * which share the launching process (pid) and a group id. Single-replica
 * launches run at once, in the thread of their device. The others wait in
 * a table of runs keyed by (pid, group) until all R have arrived; the
 * device thread that brings the last one runs the program over all the
 * arenas (all-reduce needs every replica at once) and reports each launch
 * to its own device. A run still missing replicas after the group timeout
 * is failed with -ETIMEDOUT: its process may have died between launches,
 * and the kernel's own deadline would otherwise reset the devices.
 *
 * Everything a launch says is checked before use, though it comes from
 * the kernel: the image and arenas must lie in the device mapping, the
 * image must load and validate (ipu_exe_load treats it as hostile), be the
 * same on every replica and be built for R replicas.
 *
 * A program split across instances (docs/instances.md) arrives as its
 * instance_replication_factor launches from the instance's process; its
 * all-reduces gather the other instances' operands through that process
 * (instances.c).
 *
 * Results follow libipu's model backend: a run that fails as a whole
 * fails every replica with its error; when one replica's executable is at
 * fault, that replica gets the error and the others -ECANCELED.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ipu/exe.h>
#include <ipu/firmware.h>

#include "../devmem/profile.h"
#include "simd.h"

/* Replicas one run may have (libipu's IPU_LAUNCH_MAX_REPLICAS). */
#define SIMD_MAX_REPLICAS	1024
/* Runs waiting for replicas at once; more are refused (-EAGAIN). */
#define SIMD_MAX_PENDING	4096
/* Group timeout when launch_timeout_ms cannot be read. */
#define SIMD_DEFAULT_GROUP_MS	15000
#define LAUNCH_TIMEOUT_PARAM	"/sys/module/ipu/parameters/launch_timeout_ms"

/**
 * struct simd_run - a replicated run waiting for its launches.
 * @pid, @group: identify it.
 * @nrep: its replicas.
 * @arrived: launches that came.
 * @since: CLOCK_MONOTONIC ms of the first.
 * @l: per replica; l[r].dev is NULL until replica r came.
 */
struct simd_run {
	struct simd_run *next;
	uint32_t pid;
	uint64_t group;
	uint32_t nrep;
	uint32_t arrived;
	int64_t since;
	struct simd_launch l[];
};

/* Protects the table of runs. */
static pthread_mutex_t runs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct simd_run *runs;
static unsigned int nruns;

/**
 * struct active - a run the executor is running, for simd_run_watch().
 * @ex: its executor.
 * @l, @nrep: its launches (their maps are referenced while it runs).
 */
struct active {
	struct active *next;
	struct ipufw_executor *ex;
	const struct simd_launch *l;
	uint32_t nrep;
};

/* Protects @actives; held while cancelling, so a run cannot end (and its
 * executor go to another run) under simd_run_watch(). */
static pthread_mutex_t active_lock = PTHREAD_MUTEX_INITIALIZER;
static struct active *actives;

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Per replica: the result, and whether the message was logged for it. */
struct outcome {
	int rc;		/* the run's result (when @bad < 0) */
	int bad;	/* the replica at fault, or -1 */
	char msg[768];
};

static void fail(struct outcome *o, int rc, int bad, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void fail(struct outcome *o, int rc, int bad, const char *fmt, ...)
{
	va_list ap;

	o->rc = rc;
	o->bad = bad;
	va_start(ap, fmt);
	vsnprintf(o->msg, sizeof(o->msg), fmt, ap);
	va_end(ap);
}

/* Where launch @l's bytes are; false (and @o filled) when out of range. */
static bool in_map(const struct simd_launch *l, uint32_t r, struct outcome *o)
{
	const struct ipu_fw_work *w = &l->work;
	uint64_t len = l->map->len;

	if (w->exe_size > len || w->exe_offset > len - w->exe_size) {
		fail(o, -EINVAL, (int)r, "replica %u: an executable of %llu bytes at %llu passes the end of device memory (%llu bytes)",
		     r, (unsigned long long)w->exe_size,
		     (unsigned long long)w->exe_offset, (unsigned long long)len);
		return false;
	}
	if (w->arena_size > len || w->arena_offset > len - w->arena_size ||
	    w->arena_offset % 4) {
		fail(o, -EINVAL, (int)r, "replica %u: an arena of %llu bytes at %llu is outside device memory (%llu bytes) or misaligned",
		     r, (unsigned long long)w->arena_size,
		     (unsigned long long)w->arena_offset,
		     (unsigned long long)len);
		return false;
	}
	return true;
}

/* Run the program of @l[0..@nrep), all arrived; fills @o. */
static void execute(struct simd_launch *l, uint32_t nrep, struct outcome *o)
{
	/*
	 * The arenas' pointers and profiling's per replica: on the stack for
	 * one replica, else one allocation made before the run starts, so
	 * that nothing of a run that started can fail for memory (a profiled
	 * run's buffers are written whatever its end, section 4.5).
	 */
	void *one_arena, **arenas = nrep == 1 ? &one_arena :
				    calloc(nrep, sizeof(*arenas) +
						 DEVPROF_SLOT_BYTES);
	struct ipufw_profile one_fp;
	struct ipu_profile_header *one_h;
	struct devprof_slots slots = { .fp = &one_fp, .h = &one_h };
	struct simd_instances *si = NULL;
	struct simd_image *img = NULL;
	struct devprof prof;
	struct active act, **pp;
	struct ipufw_executor *ex;
	const struct ipu_exe *exe;
	uint64_t size = UINT64_MAX;
	char msg[512] = "";
	uint32_t r;
	int err;

	o->rc = 0;
	o->bad = -1;
	o->msg[0] = '\0';
	if (!arenas) {
		fail(o, -ENOMEM, -1, "no memory for a run of %u replicas",
		     nrep);
		return;
	}
	if (nrep > 1) {
		slots.fp = (struct ipufw_profile *)(arenas + nrep);
		slots.h = (struct ipu_profile_header **)(slots.fp + nrep);
	}
	for (r = 0; r < nrep; r++)
		if (!in_map(&l[r], r, o))
			goto out;
	err = simd_image_get(l[0].map->base + l[0].work.exe_offset,
			     l[0].work.exe_size, &img, msg, sizeof(msg));
	if (err) {
		fail(o, err, 0, "the executable of replica 0 (%llu bytes): %s",
		     (unsigned long long)l[0].work.exe_size, msg);
		goto out;
	}
	for (r = 1; r < nrep; r++) {
		if (!simd_image_same(img, l[r].map->base + l[r].work.exe_offset,
				     l[r].work.exe_size)) {
			fail(o, -EINVAL, (int)r, "replica %u carries another executable than replica 0",
			     r);
			goto out;
		}
	}
	exe = simd_image_exe(img);
	if (exe->instance_replication_factor != exe->replication_factor) {
		err = simd_instances_open(l, nrep, exe, &si, msg, sizeof(msg));
		if (err) {
			fail(o, err, -1, "%s", msg);
			goto out;
		}
	} else if (exe->replication_factor != nrep) {
		fail(o, -EINVAL, -1, "the executable \"%s\" is for %u replicas, launched as %u",
		     exe->name, exe->replication_factor, nrep);
		goto out;
	}
	for (r = 0; r < nrep; r++) {
		arenas[r] = l[r].map->base + l[r].work.arena_offset;
		if (l[r].work.arena_size < size)
			size = l[r].work.arena_size;
	}
	err = simd_executor_get(nrep, &ex);
	if (err) {
		fail(o, err, -1, "no firmware executor for %u replicas", nrep);
		goto out;
	}
	/* Executors are reused: the instances are this run's only. */
	ipufw_executor_set_instances(ex, si ? simd_instances_get(si) : NULL);
	act = (struct active){ .ex = ex, .l = l, .nrep = nrep };
	pthread_mutex_lock(&active_lock);
	act.next = actives;
	actives = &act;
	pthread_mutex_unlock(&active_lock);
	simd_profile_begin(l, nrep, &slots, ex, &prof);
	err = ipufw_run(ex, exe, arenas, size, o->msg, sizeof(o->msg));
	devprof_end(&prof, ex);
	pthread_mutex_lock(&active_lock);
	for (pp = &actives; *pp != &act; pp = &(*pp)->next)
		;
	*pp = act.next;
	pthread_mutex_unlock(&active_lock);
	ipufw_executor_set_instances(ex, NULL);
	simd_executor_put(nrep, ex);
	if (err)
		o->rc = err;
out:
	simd_instances_close(si);
	simd_image_put(img);
	if (nrep > 1)
		free(arenas);
}

/* Report every launch of a run that did @o. */
static void report(struct simd_launch *l, uint32_t nrep, const struct outcome *o)
{
	const struct ipu_fw_work *w = &l[0].work;
	uint32_t r;
	int st;

	if (o->rc)
		simd_error("%s: pid %u: %s run (group %llu, %u replica%s): %s: %s",
			   l[o->bad < 0 ? 0 : o->bad].dev->name, w->pid,
			   o->bad < 0 ? "the" : "a", (unsigned long long)w->group,
			   nrep, nrep == 1 ? "" : "s", o->msg, strerror(-o->rc));
	else
		simd_debug("%s: pid %u: run of %u replica%s done", l[0].dev->name,
			   w->pid, nrep, nrep == 1 ? "" : "s");
	for (r = 0; r < nrep; r++) {
		st = o->rc;
		if (o->rc && o->bad >= 0 && (uint32_t)o->bad != r)
			st = -ECANCELED;
		simd_launch_done(&l[r], st);
	}
}

static void run_now(struct simd_launch *l, uint32_t nrep)
{
	struct outcome *o = malloc(sizeof(*o));
	uint32_t r;

	if (!o) {
		for (r = 0; r < nrep; r++)
			simd_launch_done(&l[r], -ENOMEM);
		return;
	}
	execute(l, nrep, o);
	report(l, nrep, o);
	free(o);
}

static struct simd_run *find_locked(uint32_t pid, uint64_t group)
{
	struct simd_run *run;

	for (run = runs; run; run = run->next)
		if (run->pid == pid && run->group == group)
			return run;
	return NULL;
}

static void unlink_locked(struct simd_run *run)
{
	struct simd_run **pp;

	for (pp = &runs; *pp != run; pp = &(*pp)->next)
		;
	*pp = run->next;
	nruns--;
}

/*
 * File @l into its run. Returns the run when @l completed it (taken off
 * the table), else NULL; a launch that cannot join is reported at once.
 */
static struct simd_run *deposit(const struct simd_launch *l)
{
	const struct ipu_fw_work *w = &l->work;
	struct simd_launch copy = *l;
	struct simd_run *run;
	const char *why = NULL;
	int rc = -EINVAL;

	pthread_mutex_lock(&runs_lock);
	run = find_locked(w->pid, w->group);
	if (!run && w->num_replicas > SIMD_MAX_REPLICAS) {
		why = "too many replicas";
	} else if (!run && nruns >= SIMD_MAX_PENDING) {
		why = "too many runs waiting for replicas";
		rc = -EAGAIN;
	} else if (!run) {
		run = calloc(1, sizeof(*run) +
				       w->num_replicas * sizeof(run->l[0]));
		if (run) {
			run->pid = w->pid;
			run->group = w->group;
			run->nrep = w->num_replicas;
			run->since = now_ms();
			run->next = runs;
			runs = run;
			nruns++;
		} else {
			why = "no memory";
			rc = -ENOMEM;
		}
	} else if (run->nrep != w->num_replicas) {
		why = "another launch of the run has another replica count";
	}
	if (!why && (w->replica >= run->nrep || run->l[w->replica].dev))
		why = "the replica is in flight already (or out of range)";
	if (why) {
		pthread_mutex_unlock(&runs_lock);
		simd_error("%s: pid %u: launch of replica %u of %u (group %llu): %s: %s",
			   l->dev->name, w->pid, w->replica, w->num_replicas,
			   (unsigned long long)w->group, why, strerror(-rc));
		simd_launch_done(&copy, rc);
		return NULL;
	}
	run->l[w->replica] = *l;
	if (++run->arrived < run->nrep) {
		run = NULL;
	} else {
		unlink_locked(run);
	}
	pthread_mutex_unlock(&runs_lock);
	return run;
}

void simd_run_launch(const struct simd_launch *l)
{
	struct simd_launch one = *l;
	struct simd_run *run;

	if (l->work.num_replicas <= 1) {
		run_now(&one, 1);
		return;
	}
	run = deposit(l);
	if (run) {
		run_now(run->l, run->nrep);
		free(run);
	}
}

/* The group timeout: the option, else half the kernel's launch deadline
 * (so a run missing a replica fails before its devices are reset). */
static int64_t group_timeout_ms(void)
{
	unsigned long long ms;
	FILE *f;

	if (simd_opts.group_timeout_ms)
		return simd_opts.group_timeout_ms;
	f = fopen(LAUNCH_TIMEOUT_PARAM, "re");
	if (!f)
		return SIMD_DEFAULT_GROUP_MS;
	if (fscanf(f, "%llu", &ms) != 1)
		ms = 2 * SIMD_DEFAULT_GROUP_MS;
	fclose(f);
	return ms / 2 ? (int64_t)(ms / 2) : 1;
}

void simd_run_expire(bool stop)
{
	struct simd_run *expired = NULL, *run, *next;
	int64_t now, limit;
	uint32_t r;
	int rc = stop ? -ECANCELED : -ETIMEDOUT;

	pthread_mutex_lock(&runs_lock);
	if (!runs) {
		pthread_mutex_unlock(&runs_lock);
		return;
	}
	pthread_mutex_unlock(&runs_lock);

	/* Read outside the lock: it is a sysfs file. */
	limit = group_timeout_ms();
	now = now_ms();
	pthread_mutex_lock(&runs_lock);
	for (run = runs; run; run = next) {
		next = run->next;
		if (stop || now - run->since >= limit) {
			unlink_locked(run);
			run->next = expired;
			expired = run;
		}
	}
	pthread_mutex_unlock(&runs_lock);

	for (run = expired; run; run = next) {
		next = run->next;
		if (!stop)
			simd_error("pid %u: run of group %llu: %u of %u replicas came within %" PRId64 " ms: dropped",
				   run->pid, (unsigned long long)run->group,
				   run->arrived, run->nrep, limit);
		for (r = 0; r < run->nrep; r++)
			if (run->l[r].dev)
				simd_launch_done(&run->l[r], rc);
		free(run);
	}
}

void simd_run_watch(void)
{
	struct active *a;
	uint32_t r;

	pthread_mutex_lock(&active_lock);
	for (a = actives; a; a = a->next) {
		for (r = 0; r < a->nrep; r++) {
			if (simd_guard_retired(a->l[r].map->guard)) {
				/* Again on every tick until it ends: the run
				 * may not have started when first told. */
				ipufw_cancel(a->ex);
				break;
			}
		}
	}
	pthread_mutex_unlock(&active_lock);
}
