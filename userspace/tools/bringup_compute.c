// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bringup_compute.c - the checks that run programs: `compute` (known-
 * answer launches on each IPU, compared bit for bit with the firmware
 * executor run on the host), `replicas` (the same program replicated
 * over every IPU, its all-reduce joining them) and `reset` (reset the
 * device, see the reset count move, then compute again: the device
 * recovered). A launch that does not complete in time is a hang: compute
 * FAILs, and reset is what brings the device back.
 *
 * Each is keyed on the device's launch capability (GET_INFO's
 * IPU_FEATURE_LAUNCH): a device that cannot launch yet SKIPs with that
 * reason, and the checks run as soon as it can.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bringup.h"

#define MAX_DEVS 64
/* Longest a device may take to serve launches again after a reset. */
#define RECOVER_S 30.0

/*
 * Run @p on @devs with inputs from @seed and compare with the host's
 * answer; 0, or -errno with @r FAIL saying why.
 */
static int known_answer(struct bu_prog *p, struct ipu_device *const *devs,
			uint32_t nrep, uint64_t seed, double timeout_s,
			struct bu_result *r)
{
	size_t in_len = bu_prog_in_bytes(p) * nrep,
	       out_len = bu_prog_out_bytes(p) * nrep;
	float *in = malloc(in_len), *out = calloc(1, out_len),
	      *expect = calloc(1, out_len);
	char msg[256] = "";
	long long at;
	size_t i;
	int err = -ENOMEM;

	if (!in || !out || !expect) {
		bu_set(r, BU_FAIL, "out of host memory");
		goto out;
	}
	/* Floats in [-2, 2): ordinary values, no NaN to compare. */
	for (i = 0; i < in_len / sizeof(float); i++)
		in[i] = (float)((seed * 131 + i * 29) % 64) / 16.0f - 2.0f;
	err = bu_prog_expect(p, in, expect, msg, sizeof(msg));
	if (err) {
		bu_set(r, BU_FAIL, "the host's model failed: %s", msg);
		goto out;
	}
	err = bu_prog_run(p, devs, in, out, timeout_s, msg, sizeof(msg));
	if (err) {
		bu_set(r, BU_FAIL, "%s", msg);
		goto out;
	}
	at = bu_diff(out, expect, out_len);
	if (at >= 0) {
		i = (size_t)at / sizeof(float);
		bu_set(r, BU_FAIL,
		       "wrong answer: output %zu (replica %zu) is %.9g (bits %08x), the model says %.9g (%08x)",
		       i, (size_t)at / bu_prog_out_bytes(p), out[i], ((uint32_t *)out)[i],
		       expect[i], ((uint32_t *)expect)[i]);
		err = -EIO;
	}
out:
	free(in);
	free(out);
	free(expect);
	return err;
}

/* @runs known-answer runs of a 1-replica program on @d. */
static int compute_runs(struct bu_ctx *ctx, struct bu_dev *d, unsigned int runs,
			struct bu_result *r)
{
	struct bu_prog *p = NULL;
	double t0 = bu_now();
	unsigned int i;
	char msg[256];
	int err;

	err = bu_prog_build(1, &p, msg, sizeof(msg));
	if (err) {
		bu_set(r, BU_FAIL, "%s", msg);
		return err;
	}
	for (i = 0; i < runs && !err && !bu_interrupted(); i++) {
		err = known_answer(p, &d->dev, 1, i, bu_launch_timeout(d), r);
		bu_progress(ctx, i + 1, runs);
	}
	if (!err) {
		bu_fig(r, "runs", runs, "");
		bu_fig(r, "run_time", (bu_now() - t0) / runs * 1e3, "ms");
	}
	bu_prog_free(p);
	return err;
}

static bool need_launch(struct bu_dev *d, struct bu_result *r)
{
	if (!bu_need_open(d, r))
		return false;
	if (bu_can_launch(d))
		return true;
	bu_set(r, BU_SKIP, "the device cannot launch programs yet (no IPU_FEATURE_LAUNCH)");
	return false;
}

void bu_compute(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r)
{
	unsigned int runs = ctx->o.quick ? 2 : 8;

	if (!need_launch(d, r))
		return;
	if (!compute_runs(ctx, d, runs, r))
		bu_set(r, BU_PASS, "%u known-answer runs bit for bit as the host's model",
		       runs);
}

/*
 * The all-reduce of @n IPUs, into @r; 0, or -errno with @r FAIL.
 */
static int replicas_run(struct ipu_device *const *devs, uint32_t n,
			double timeout, struct bu_result *r)
{
	struct bu_prog *p = NULL;
	char msg[256];
	int err;

	err = bu_prog_build(n, &p, msg, sizeof(msg));
	if (err) {
		bu_set(r, BU_FAIL, "%s", msg);
		return err;
	}
	err = known_answer(p, devs, n, 3, timeout, r);
	bu_prog_free(p);
	return err;
}

/*
 * One replicated run per platform: IPUs of one kind run a program
 * together (simulated ones through one firmware daemon, PCI ones over
 * their links), and no run mixes kinds, as no application's can.
 */
void bu_replicas(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r)
{
	struct ipu_device *devs[MAX_DEVS];
	bool taken[MAX_DEVS] = { false };
	uint32_t n, total = 0, groups = 0;
	size_t i, j, ndevs = ctx->ndevs < MAX_DEVS ? ctx->ndevs : MAX_DEVS;
	double timeout;

	(void)d;
	for (i = 0; i < ndevs; i++) {
		if (taken[i] || !bu_can_launch(&ctx->devs[i]))
			continue;
		n = 0;
		timeout = 0;
		for (j = i; j < ndevs; j++) {
			if (taken[j] || !bu_can_launch(&ctx->devs[j]) ||
			    ctx->devs[j].info.platform != ctx->devs[i].info.platform)
				continue;
			taken[j] = true;
			devs[n++] = ctx->devs[j].dev;
			if (bu_launch_timeout(&ctx->devs[j]) > timeout)
				timeout = bu_launch_timeout(&ctx->devs[j]);
		}
		if (n < 2)
			continue;
		if (replicas_run(devs, n, timeout, r))
			return;
		total += n;
		groups++;
	}
	if (!groups) {
		bu_set(r, BU_SKIP,
		       "no two IPUs of one kind can launch: an all-reduce needs two or more");
		return;
	}
	bu_fig(r, "replicas", total, "");
	bu_fig(r, "groups", groups, "");
	bu_set(r, BU_PASS, "all-reduce over %u IPUs (%u run%s, one per kind) bit for bit as the host's model",
	       total, groups, groups == 1 ? "" : "s");
}

/*
 * One known-answer run after a reset, into @r. A reset revokes a
 * simulated IPU's firmware (ipu-simd), which attaches again on its own;
 * until then launches fail with -EUNATCH. That is the device recovering:
 * retry while it lasts, up to RECOVER_S, and say how long it took (@t).
 * The run's outcome goes into @r.
 */
static int compute_after_reset(struct bu_ctx *ctx, struct bu_dev *d,
			       struct bu_result *r, double *t)
{
	const struct timespec tick = { 0, 50 * 1000 * 1000 };
	double t0 = bu_now();
	int err;

	for (;;) {
		err = compute_runs(ctx, d, 1, r);
		*t = bu_now() - t0;
		if (err != -EUNATCH || *t > RECOVER_S)
			return err;
		nanosleep(&tick, NULL);
	}
}

void bu_reset(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r)
{
	struct ipu_device_info after = { .sz = sizeof(after) };
	char why[BU_REASON_LEN];
	double t;
	int err;

	if (!bu_need_open(d, r))
		return;
	if (!(d->info.caps & IPU_DEVICE_CAP_RESET)) {
		bu_set(r, BU_SKIP, "the device cannot be reset");
		return;
	}
	if (ipu_device_query(d->dev, &d->info) == 0)
		bu_fig(r, "count_before", (double)d->info.reset_count, "");
	err = ipu_device_reset(d->dev);
	if (err) {
		bu_set(r, BU_FAIL, "reset failed: %s", ipu_errmsg());
		return;
	}
	err = ipu_device_query(d->dev, &after);
	if (err) {
		bu_set(r, BU_FAIL, "the device does not answer after reset: %s",
		       ipu_errmsg());
		return;
	}
	bu_fig(r, "count_after", (double)after.reset_count, "");
	if (after.reset_count <= d->info.reset_count) {
		bu_set(r, BU_FAIL, "the reset count did not move (%llu): no reset happened",
		       (unsigned long long)after.reset_count);
		return;
	}
	d->info = after;
	if (!bu_can_launch(d)) {
		bu_set(r, BU_PASS, "reset (count now %llu); no compute after it: the device cannot launch yet",
		       (unsigned long long)after.reset_count);
		return;
	}
	err = compute_after_reset(ctx, d, r, &t);
	bu_fig(r, "recovery_time", t, "s");
	if (!err) {
		bu_set(r, BU_PASS, "reset (count now %llu), then a known answer again",
		       (unsigned long long)after.reset_count);
	} else {
		snprintf(why, sizeof(why), "%s", r->reason);
		bu_set(r, BU_FAIL, "not recovered: after the reset, %s", why);
	}
}
