// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bringup_stress.c - `stress` and `telemetry`.
 *
 * stress: for --stress-seconds, a thread moves data both ways on a queue
 * of its own (each round trip checked) while the check's thread runs
 * known-answer launches (when the device can launch) and samples the
 * sensors; any failed command, wrong byte or wrong answer is a FAIL.
 * telemetry: the sensors exist (hwmon temp1_input, power1_input of a PCI
 * IPU) and read plausibly, idle and under the load stress put on (or a
 * short load of its own when stress did not run): a sensor stuck at 0,
 * out of range, or not answering is what a lab wants to know before it
 * trusts its thermal numbers.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bringup.h"

#define XFER_LEN (1u << 20)
/* Plausible for a running accelerator: 1..110 C, 0.1..1000 W. */
#define TEMP_LO_MC 1000
#define TEMP_HI_MC 110000
#define POWER_LO_UW 100000LL
#define POWER_HI_UW 1000000000000LL

struct dma_load {
	struct bu_dev *d;
	atomic_bool stop;
	uint64_t bytes;
	int err;
	char msg[200];
};

/* Round trips of XFER_LEN until told to stop; the first failure ends it. */
static void *dma_thread(void *arg)
{
	struct dma_load *l = arg;
	unsigned char *src = malloc(XFER_LEN), *dst = malloc(XFER_LEN);
	struct ipu_bo *bo = NULL;
	uint64_t seed = 1;
	long long at;

	l->err = src && dst ? ipu_bo_create(l->d->dev, XFER_LEN, 0, &bo) : -ENOMEM;
	if (l->err)
		snprintf(l->msg, sizeof(l->msg), "DMA buffer: %s", ipu_errmsg());
	while (!l->err && !atomic_load(&l->stop)) {
		bu_fill(src, XFER_LEN, seed++);
		l->err = ipu_xfer_to_device(bo, 0, src, XFER_LEN);
		if (!l->err)
			l->err = ipu_xfer_from_device(bo, 0, dst, XFER_LEN);
		if (l->err) {
			snprintf(l->msg, sizeof(l->msg), "transfer: %s", ipu_errmsg());
			break;
		}
		at = bu_diff(src, dst, XFER_LEN);
		if (at >= 0) {
			l->err = -EIO;
			snprintf(l->msg, sizeof(l->msg),
				 "round trip %llu: byte %lld came back %#x, sent %#x",
				 (unsigned long long)seed - 1, at, dst[at], src[at]);
			break;
		}
		l->bytes += 2 * XFER_LEN;
	}
	ipu_bo_destroy(bo);
	free(src);
	free(dst);
	return NULL;
}

bool bu_sensors(const struct bu_dev *d, long long *temp_mc, long long *power_uw)
{
	struct info_report scratch = { 0 };
	struct info_ipu ipu;
	char dir[96];

	*temp_mc = *power_uw = -1;
	if (!d->ipu || d->ipu->model)
		return false;
	ipu = *d->ipu;
	ipu.have_temp = ipu.have_power = false;
	snprintf(dir, sizeof(dir), "/sys/class/ipu/ipu%u/device", ipu.index);
	info_hwmon_read(&scratch, &ipu, dir);
	if (ipu.have_temp)
		*temp_mc = ipu.temp_mc;
	if (ipu.have_power)
		*power_uw = ipu.power_uw;
	return ipu.have_temp || ipu.have_power;
}

static void sample(struct bu_dev *d)
{
	long long t, p;

	if (!bu_sensors(d, &t, &p))
		return;
	if (!d->load_samples++) {
		d->load_temp_mc[0] = d->load_temp_mc[1] = t;
		d->load_power_uw[0] = d->load_power_uw[1] = p;
		return;
	}
	if (t < d->load_temp_mc[0])
		d->load_temp_mc[0] = t;
	if (t > d->load_temp_mc[1])
		d->load_temp_mc[1] = t;
	if (p < d->load_power_uw[0])
		d->load_power_uw[0] = p;
	if (p > d->load_power_uw[1])
		d->load_power_uw[1] = p;
}

/* Load @d for @secs: DMA in a thread, launches and samples here. */
static void load(struct bu_ctx *ctx, struct bu_dev *d, double secs,
		 struct bu_result *r)
{
	struct dma_load l = { .d = d };
	struct bu_prog *p = NULL;
	double t0 = bu_now(), now;
	unsigned int launches = 0;
	pthread_t th;
	char msg[256];
	void *in = NULL, *out = NULL;
	int err;

	if (pthread_create(&th, NULL, dma_thread, &l)) {
		bu_set(r, BU_FAIL, "cannot start the DMA thread");
		return;
	}
	if (bu_can_launch(d) && !bu_prog_build(1, &p, msg, sizeof(msg))) {
		in = calloc(1, bu_prog_in_bytes(p));
		out = calloc(1, bu_prog_out_bytes(p));
	}
	for (now = t0; now - t0 < secs && !l.err && !bu_interrupted(); now = bu_now()) {
		sample(d);
		if (p && in && out) {
			bu_fill(in, bu_prog_in_bytes(p) & ~3ul, launches);
			/* Random bits may be NaN: compare with the model's bits
			 * in compute; here, the launch must complete. */
			err = bu_prog_run(p, &d->dev, in, out, bu_launch_timeout(d),
					  msg, sizeof(msg));
			if (err) {
				bu_set(r, BU_FAIL, "launch %u under DMA load: %s",
				       launches, msg);
				break;
			}
			launches++;
		} else {
			struct timespec ts = { 0, 50 * 1000 * 1000 };

			/* Nothing to launch: let the DMA thread run. */
			nanosleep(&ts, NULL);
		}
		bu_progress(ctx, (uint64_t)((now - t0) * 1000), (uint64_t)(secs * 1000));
	}
	atomic_store(&l.stop, true);
	pthread_join(th, NULL);
	if (l.err)
		bu_set(r, BU_FAIL, "DMA under load: %s", l.msg);
	now = bu_now() - t0;
	bu_fig(r, "seconds", now, "s");
	bu_fig(r, "dma_bandwidth", (double)l.bytes / now / 1e6, "MB/s");
	bu_fig(r, "launches", launches, "");
	free(in);
	free(out);
	bu_prog_free(p);
}

void bu_stress(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r)
{
	if (!bu_need_open(d, r))
		return;
	load(ctx, d, ctx->o.stress_s, r);
	if (r->status != BU_FAIL)
		bu_set(r, BU_PASS, "%.1f s of DMA both ways%s",
		       ctx->o.stress_s, bu_can_launch(d) ?
		       " and launches at once, every byte and launch right" :
		       ", every byte right (no launches: the device cannot launch yet)");
}

static void judge(struct bu_result *r, const char *when, long long t, long long p)
{
	if (t >= 0 && (t < TEMP_LO_MC || t > TEMP_HI_MC))
		bu_worse(r, BU_FAIL, "%s temperature %.1f C is implausible (1 to 110 C)",
			 when, t / 1000.0);
	if (p >= 0 && (p < POWER_LO_UW || p > POWER_HI_UW))
		bu_worse(r, BU_FAIL, "%s power %.3f W is implausible (0.1 to 1000 W)",
			 when, p / 1e6);
}

void bu_telemetry(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r)
{
	long long t, p;

	if (!bu_need_open(d, r))
		return;
	if (!bu_sensors(d, &t, &p)) {
		bu_set(r, BU_SKIP, "no sensors (hwmon) on a %s IPU",
		       d->ipu ? d->ipu->platform : "?");
		return;
	}
	if (t < 0 || p < 0)
		bu_worse(r, BU_WARN, "no %s sensor", t < 0 ? "temperature" : "power");
	judge(r, "idle", t, p);
	if (!d->load_samples) {
		struct bu_result scratch = { 0 };

		load(ctx, d, ctx->o.quick ? 0.5 : 2, &scratch);
	}
	if (t >= 0)
		bu_fig(r, "temp_idle", t / 1000.0, "C");
	if (p >= 0)
		bu_fig(r, "power_idle", p / 1e6, "W");
	if (d->load_samples) {
		judge(r, "under load", d->load_temp_mc[0], d->load_power_uw[0]);
		judge(r, "under load", d->load_temp_mc[1], d->load_power_uw[1]);
		if (t >= 0)
			bu_fig(r, "temp_load_max", d->load_temp_mc[1] / 1000.0, "C");
		if (p >= 0)
			bu_fig(r, "power_load_max", d->load_power_uw[1] / 1e6, "W");
	}
	bu_worse(r, BU_PASS, "sensors plausible idle and under load (%u samples)",
		 d->load_samples);
}
