// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bringup_jobs.c - running the selected checks on the IPUs: one after
 * another (--jobs 1), or several IPUs at once (--jobs N), as make -j.
 *
 * One after another, a check runs on every IPU before the next check
 * starts, and each result is printed as it comes. With N jobs, N threads
 * each take the next IPU not yet taken and run its checks in their usual
 * order; a check over all IPUs at once (replicas) waits for every IPU's
 * checks before it and runs alone, the ones after it start when it ends.
 * Results go into slots in the order a run of one job would give them,
 * and are printed in that order as soon as all before them are in: the
 * report does not depend on which IPU finished first. A FAIL on one IPU
 * stops nothing on the others; SIGINT or SIGTERM stops every job at its
 * next step, and what finished is reported.
 *
 * On a terminal, each IPU under test has its progress line below the
 * results (bu_progress()).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bringup.h"

#define LINE_LEN 128

/* The shared state of a parallel stretch of checks. */
struct bu_jobs {
	pthread_mutex_t lock;
	struct bu_ctx *ctx;		/* the run's (results, out, log) */
	const struct bu_check *const *checks;	/* this stretch's */
	size_t nchecks;
	size_t next_dev;		/* the next IPU a job takes */
	struct bu_result *slots;	/* [check * ndevs + dev] */
	bool *done;			/* a slot's check finished */
	size_t printed;			/* slots before this one are printed */
	char (*bars)[LINE_LEN];		/* per IPU: its progress line, or "" */
	unsigned int shown;		/* progress lines on the screen */
};

static void run_one(struct bu_ctx *ctx, const struct bu_check *c,
		    struct bu_dev *d, struct bu_result *r)
{
	double t0 = bu_now();

	memset(r, 0, sizeof(*r));
	r->check = c->name;
	snprintf(r->device, sizeof(r->device), "%s", d ? d->name : "all");
	ctx->current = c->name;
	ctx->current_dev = r->device;
	c->run(ctx, d, r);
	r->seconds = bu_now() - t0;
	/* Cut short, its verdict is not one: keep the figures it has. */
	if (bu_interrupted())
		bu_set(r, BU_SKIP, "interrupted (SIGINT or SIGTERM) before it finished");
}

/* Progress lines off the screen (the cursor is below them). Locked. */
static void bars_clear(struct bu_jobs *j)
{
	if (!j->shown)
		return;
	fprintf(j->ctx->out, "\033[%uA\r\033[J", j->shown);
	j->shown = 0;
}

/* Every IPU's progress line, in the IPUs' order. Locked. */
static void bars_draw(struct bu_jobs *j)
{
	size_t k;

	for (k = 0; k < j->ctx->ndevs; k++) {
		if (!j->bars[k][0])
			continue;
		fprintf(j->ctx->out, "%s\n", j->bars[k]);
		j->shown++;
	}
	fflush(j->ctx->out);
}

void bu_jobs_progress(struct bu_ctx *ctx, const char *line)
{
	struct bu_jobs *j = ctx->jobs;

	pthread_mutex_lock(&j->lock);
	snprintf(j->bars[ctx->job_dev], LINE_LEN, "%s", line);
	bars_clear(j);
	bars_draw(j);
	pthread_mutex_unlock(&j->lock);
}

/* Print the results that are next in order. Locked. */
static void print_ready(struct bu_jobs *j, bool all)
{
	size_t n = j->nchecks * j->ctx->ndevs;
	bool cleared = false;

	for (; j->printed < n; j->printed++) {
		if (!j->done[j->printed]) {
			if (!all)
				break;
			continue;
		}
		if (!cleared)
			bars_clear(j);
		cleared = true;
		bu_print_result(j->ctx, &j->slots[j->printed]);
	}
	if (cleared)
		bars_draw(j);
}

static void *job(void *arg)
{
	struct bu_jobs *j = arg;
	struct bu_ctx ctx = *j->ctx;	/* its own current check, for the bar */
	size_t k, c, slot;

	for (;;) {
		pthread_mutex_lock(&j->lock);
		k = j->next_dev++;
		pthread_mutex_unlock(&j->lock);
		if (k >= ctx.ndevs)
			return NULL;
		ctx.job_dev = k;
		for (c = 0; c < j->nchecks && !bu_interrupted(); c++) {
			slot = c * ctx.ndevs + k;
			run_one(&ctx, j->checks[c], &ctx.devs[k], &j->slots[slot]);
			pthread_mutex_lock(&j->lock);
			j->bars[k][0] = '\0';
			j->done[slot] = true;
			print_ready(j, false);
			pthread_mutex_unlock(&j->lock);
		}
	}
}

/*
 * The per-IPU @checks on every IPU, ctx->o.jobs at a time, their results
 * appended in order. 0, or -1 when no job could start (out of memory or
 * threads: the caller runs them one after another).
 */
static int run_parallel(struct bu_ctx *ctx, const struct bu_check *const *checks,
			size_t nchecks)
{
	struct bu_jobs j = { .ctx = ctx, .checks = checks, .nchecks = nchecks };
	size_t n = nchecks * ctx->ndevs, i, njobs = ctx->o.jobs, started = 0;
	pthread_t *tids;
	int ret = -1;

	if (njobs > ctx->ndevs)
		njobs = ctx->ndevs;
	j.slots = calloc(n ? n : 1, sizeof(*j.slots));
	j.done = calloc(n ? n : 1, sizeof(*j.done));
	j.bars = calloc(ctx->ndevs ? ctx->ndevs : 1, sizeof(*j.bars));
	tids = calloc(njobs ? njobs : 1, sizeof(*tids));
	if (!j.slots || !j.done || !j.bars || !tids)
		goto out;
	pthread_mutex_init(&j.lock, NULL);
	ctx->jobs = &j;
	for (i = 0; i < njobs; i++) {
		if (pthread_create(&tids[i], NULL, job, &j))
			break;
		started++;
	}
	/* Fewer threads than asked: the ones there take every IPU. */
	if (!started)
		job(&j);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	pthread_mutex_lock(&j.lock);
	print_ready(&j, true);
	bars_clear(&j);
	pthread_mutex_unlock(&j.lock);
	ctx->jobs = NULL;
	pthread_mutex_destroy(&j.lock);
	for (i = 0; i < n; i++)
		if (j.done[i])
			ctx->results[ctx->nresults++] = j.slots[i];
	ret = 0;
out:
	free(j.slots);
	free(j.done);
	free(j.bars);
	free(tids);
	return ret;
}

/* @checks (per IPU) one after another, each on every IPU. */
static void run_serial(struct bu_ctx *ctx, const struct bu_check *const *checks,
		       size_t nchecks)
{
	struct bu_result *r;
	size_t i, k;

	for (i = 0; i < nchecks; i++) {
		for (k = 0; k < ctx->ndevs && !bu_interrupted(); k++) {
			r = &ctx->results[ctx->nresults++];
			run_one(ctx, checks[i], &ctx->devs[k], r);
			bu_print_result(ctx, r);
		}
	}
}

void bu_run_checks(struct bu_ctx *ctx, const struct bu_check *const *checks,
		   size_t nchecks)
{
	struct bu_result *r;
	size_t i = 0, n;

	while (i < nchecks && !bu_interrupted()) {
		if (checks[i]->all_devices) {
			r = &ctx->results[ctx->nresults++];
			run_one(ctx, checks[i], NULL, r);
			bu_print_result(ctx, r);
			i++;
			continue;
		}
		/* The stretch of per-IPU checks up to the next over all. */
		for (n = 0; i + n < nchecks && !checks[i + n]->all_devices; n++)
			;
		if (ctx->o.jobs <= 1 || ctx->ndevs <= 1 ||
		    run_parallel(ctx, checks + i, n))
			run_serial(ctx, checks + i, n);
		i += n;
	}
	ctx->interrupted = bu_interrupted();
}
