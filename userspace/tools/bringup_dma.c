// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bringup_dma.c - `dma`: data integrity in both directions, then
 * bandwidth.
 *
 * Integrity: sizes from 1 byte up to 64 MiB (1 MiB with --quick), at odd
 * host and device offsets, each round trip compared byte for byte; with
 * mmap, the device's copy is compared too, so a corruption is pinned on
 * its direction. A link that corrupts silently (status OK, wrong bytes:
 * ipu-emu's corrupt_dma) fails here and nowhere else. Bandwidth: host to
 * device, device to host, and both at once (two transfers in flight on
 * one queue), graded against what the link carries (bringup_link.c):
 * PASS, WARN or FAIL by --dma-pass and --dma-warn, in per cent of its
 * payload rate; with no link (the model, a simulated IPU) the figures
 * alone.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bringup.h"
#include "bringup_link.h"

#define MIB (1ull << 20)

/* The sizes of the integrity pass and the host/device offsets of each. */
static const struct {
	uint64_t len;
	unsigned int host_off, dev_off;
} cases[] = {
	{ 1, 0, 0 }, { 3, 1, 5 }, { 64, 7, 64 }, { 4095, 1, 4097 },
	{ 4097, 3, 1 }, { 65537, 5, 4093 }, { MIB + 1, 1, 7 },
	{ 16 * MIB, 0, 4096 }, { 64 * MIB, 3, 1 },
};

/*
 * The link @d's bandwidth is graded against, into @l: 1 when there is
 * one; 0 when there is none to compare (no PCI function: the model, a
 * simulated IPU; or a kernel without the attributes); -1 when sysfs's
 * values are no link (quoted). @why says which.
 */
static int link_of(const struct bu_ctx *ctx, const struct bu_dev *d,
		   struct bu_link *l, char *why, size_t len)
{
	const struct info_pci *p = bu_pci(d);
	char path[PATH_MAX], speed[64], width[64];

	if (!p) {
		snprintf(why, len, "%s", d->ipu && d->ipu->model ?
			 "the software model" : "no PCIe function");
		return 0;
	}
	if (p->link_cur.known)
		return bu_link_rate(p->link_cur.speed, p->link_cur.width, l, why,
				    len) ? -1 : 1;
	/* What the PCI core says, quoted: ipu-info keeps only good values. */
	if (info_path(path, sizeof(path), "%s/sys/bus/pci/devices/%s/current_link_speed",
		      ctx->rep.root, p->addr) ||
	    ipu_attr_read(path, speed, sizeof(speed)) ||
	    info_path(path, sizeof(path), "%s/sys/bus/pci/devices/%s/current_link_width",
		      ctx->rep.root, p->addr) ||
	    ipu_attr_read(path, width, sizeof(width))) {
		snprintf(why, len, "%s has no current_link_speed and width", p->addr);
		return 0;
	}
	return bu_link_parse(speed, width, l, why, len) ? -1 : 1;
}

/*
 * One round trip of @len bytes from @src + @host_off to @bo at @dev_off
 * and back to @dst + 1 (another alignment); a FAIL in @r when a byte
 * differs. @map, when not NULL, is @bo mapped: the device's copy.
 */
static bool round_trip(struct bu_dev *d, struct ipu_bo *bo, void *map,
		       uint64_t len, unsigned int host_off, unsigned int dev_off,
		       unsigned char *src, unsigned char *dst, struct bu_result *r)
{
	long long at;

	bu_fill(src + host_off, len, len ^ dev_off);
	memset(dst, 0, len + host_off + 8);
	if (ipu_xfer_to_device(bo, dev_off, src + host_off, len)) {
		bu_set(r, BU_FAIL, "%s: %llu bytes to the device at +%u failed: %s",
		       d->name, (unsigned long long)len, dev_off, ipu_errmsg());
		return false;
	}
	at = map ? bu_diff((char *)map + dev_off, src + host_off, len) : -1;
	if (at >= 0) {
		bu_set(r, BU_FAIL,
		       "host to device corrupts data: %llu bytes at +%u, byte %lld is %#x, sent %#x",
		       (unsigned long long)len, dev_off, at,
		       ((unsigned char *)map)[dev_off + at], src[host_off + at]);
		return false;
	}
	if (ipu_xfer_from_device(bo, dev_off, dst + 1, len)) {
		bu_set(r, BU_FAIL, "%s: %llu bytes from the device at +%u failed: %s",
		       d->name, (unsigned long long)len, dev_off, ipu_errmsg());
		return false;
	}
	at = bu_diff(dst + 1, src + host_off, len);
	if (at >= 0) {
		bu_set(r, BU_FAIL, "%s corrupts data: %llu bytes at +%u, byte %lld came back %#x, sent %#x",
		       map ? "device to host" : "a round trip", (unsigned long long)len,
		       dev_off, at, dst[1 + at], src[host_off + at]);
		return false;
	}
	/* Nothing written past the end (the buffer was zeroed). */
	if (dst[1 + len]) {
		bu_set(r, BU_FAIL, "device to host wrote past the end of %llu bytes",
		       (unsigned long long)len);
		return false;
	}
	return true;
}

/* Transfers of @len in @dir (0: both at once) for about @secs: bytes/s. */
static double bandwidth(struct bu_dev *d, struct ipu_queue *q,
			struct ipu_bo *bo[2], void *host[2], uint64_t len,
			int dir, double secs, int *err)
{
	struct ipu_completion c[2];
	struct ipu_xfer_desc x[2];
	struct ipu_cmd cmds[2];
	double t0 = bu_now(), t;
	uint64_t bytes = 0;
	int i, n = dir ? 1 : 2, ret;

	(void)d;
	for (i = 0; i < 2; i++) {
		x[i] = (struct ipu_xfer_desc){
			.bo = bo[i], .host = host[i], .length = len,
			.dir = (dir ? dir : i + 1),
		};
		ipu_cmd_prep_xfer(&cmds[i], &x[dir ? dir - 1 : i], (uint64_t)i);
	}
	do {
		*err = ipu_queue_submit(q, cmds, (size_t)n);
		for (i = 0; !*err && i < n; i += ret) {
			ret = ipu_queue_reap(q, c, 2, (uint32_t)(n - i), -1);
			if (ret <= 0)
				*err = ret ? ret : -ETIMEDOUT;
			else if (c[0].result || (ret > 1 && c[1].result))
				*err = c[0].result ? c[0].result : c[1].result;
		}
		if (*err)
			return 0;
		bytes += len * (uint64_t)n;
		t = bu_now() - t0;
	} while (t < secs);
	return (double)bytes / t;
}

/*
 * The slower of @bw[1] (h2d) and @bw[2] (d2h) against the link's payload
 * rate, one way: PASS, WARN or FAIL at --dma-pass and --dma-warn.
 */
static void grade(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r,
		  const double bw[3], size_t done, uint64_t largest)
{
	double slow = bw[1] < bw[2] ? bw[1] : bw[2], pct;
	const char *dir = bw[1] < bw[2] ? "h2d" : "d2h";
	struct bu_link l;
	char why[160];
	enum bu_status st;
	int have = link_of(ctx, d, &l, why, sizeof(why));

	/* A link the PCI core cannot describe is one to look into. */
	if (have < 0) {
		bu_worse(r, BU_WARN, "data intact; %s %.0f MB/s not graded: %s",
			 dir, slow / 1e6, why);
		return;
	}
	if (!have) {
		bu_worse(r, BU_PASS, "%zu sizes intact both ways (1 byte to %llu, odd offsets); %s %.0f MB/s: no link to compare (%s)",
			 done, (unsigned long long)largest, dir, slow / 1e6, why);
		return;
	}
	pct = 100.0 * slow / l.payload;
	bu_fig(r, "link_rate", l.payload / 1e6, "MB/s");
	bu_fig(r, "h2d_of_link", 100.0 * bw[1] / l.payload, "%");
	bu_fig(r, "d2h_of_link", 100.0 * bw[2] / l.payload, "%");
	/* Both ways at once: a full-duplex link carries twice one way. */
	bu_fig(r, "both_of_link", 100.0 * bw[0] / (2 * l.payload), "%");
	bu_fig(r, "pass_from", ctx->o.dma_pass, "%");
	bu_fig(r, "warn_from", ctx->o.dma_warn, "%");
	st = bu_dma_grade(pct, ctx->o.dma_pass, ctx->o.dma_warn);
	if (st == BU_PASS)
		bu_worse(r, BU_PASS, "%zu sizes intact both ways (1 byte to %llu, odd offsets); %s %.0f MB/s, %.1f%% of Gen%u x%u's %.0f MB/s",
			 done, (unsigned long long)largest, dir, slow / 1e6, pct,
			 l.gen, l.width, l.payload / 1e6);
	else
		bu_worse(r, st, "data intact, but %s %.0f MB/s is %.1f%% of Gen%u x%u's %.0f MB/s (PASS from %g%%, FAIL below %g%%)",
			 dir, slow / 1e6, pct, l.gen, l.width, l.payload / 1e6,
			 ctx->o.dma_pass, ctx->o.dma_warn);
}

/*
 * The bandwidth figures into @r; the progress bar goes on from @step of
 * @steps. @bw: both, h2d, d2h in bytes/s; false (and @r a FAIL) if a
 * transfer failed.
 */
static bool measure(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r,
		    uint64_t len, size_t step, size_t steps, double bw[3])
{
	static const char *const names[3] = { "both", "h2d", "d2h" };
	struct ipu_bo *bo[2] = { 0 };
	struct ipu_queue *q = NULL;
	void *host[2] = { 0 };
	double secs = ctx->o.quick ? 0.2 : 1.0;
	char name[32];
	int i, err = 0;

	for (i = 0; i < 2 && !err; i++) {
		host[i] = aligned_alloc(4096, len);
		err = host[i] ? ipu_bo_create(d->dev, len, 0, &bo[i]) : -ENOMEM;
		if (host[i])
			bu_fill(host[i], len, (uint64_t)i);
	}
	if (!err)
		err = ipu_queue_create(d->dev, NULL, &q);
	for (i = 1; !err && i <= 3; i++) {
		bw[i % 3] = bandwidth(d, q, bo, host, len, i % 3, secs, &err);
		if (err)
			break;
		snprintf(name, sizeof(name), "%s_bandwidth", names[i % 3]);
		bu_fig(r, name, bw[i % 3] / 1e6, "MB/s");
		bu_progress(ctx, step + (uint64_t)i, steps);
	}
	if (err)
		bu_set(r, BU_FAIL, "bandwidth run: %s", ipu_errmsg());
	ipu_queue_destroy(q);
	for (i = 0; i < 2; i++) {
		ipu_bo_destroy(bo[i]);
		free(host[i]);
	}
	return !err;
}

void bu_dma(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r)
{
	uint64_t max = ctx->o.quick ? MIB + 1 : 64 * MIB, room, bo_len;
	unsigned char *src = NULL, *dst = NULL;
	struct ipu_bo *bo = NULL;
	void *map = NULL;
	size_t i, ncases = sizeof(cases) / sizeof(cases[0]), nrun = 0, done = 0;
	double bw[3] = { 0 };

	if (!bu_need_open(d, r))
		return;
	/* Half the free memory at most: the bandwidth pass needs two. */
	room = (d->info.memory_total - d->info.memory_used) / 2;
	while (max > 1 && max + 8192 > room)
		max /= 2;
	bo_len = max + 8192;
	src = malloc(bo_len + 16);
	dst = malloc(bo_len + 16);
	if (!src || !dst || ipu_bo_create(d->dev, bo_len, 0, &bo)) {
		bu_set(r, BU_FAIL, "cannot allocate %llu bytes: %s",
		       (unsigned long long)bo_len, src && dst ? ipu_errmsg() : "host memory");
		goto out;
	}
	if (d->info.caps & IPU_DEVICE_CAP_MAP && ipu_bo_map(bo, &map))
		map = NULL;
	while (nrun < ncases && cases[nrun].len <= max)
		nrun++;
	for (i = 0; i < ncases && cases[i].len <= max; i++) {
		if (bu_interrupted())
			goto out;
		if (!round_trip(d, bo, map, cases[i].len, cases[i].host_off,
				cases[i].dev_off, src, dst, r))
			goto out;
		done++;
		bu_progress(ctx, done, nrun + 3);
	}
	bu_fig(r, "sizes", (double)done, "");
	bu_fig(r, "largest", (double)cases[done - 1].len, "B");
	if (map)
		ipu_bo_unmap(bo);
	map = NULL;
	ipu_bo_destroy(bo);
	bo = NULL;
	if (measure(ctx, d, r, ctx->o.quick && max > MIB ? MIB : max, done,
		    done + 3, bw) && !bu_interrupted())
		grade(ctx, d, r, bw, done, cases[done - 1].len);
out:
	if (map)
		ipu_bo_unmap(bo);
	ipu_bo_destroy(bo);
	free(src);
	free(dst);
}
