// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bringup_memory.c - `memory`: the device memory holds what is written.
 *
 * The memory is taken in buffer objects of up to 16 MiB until the free
 * memory (or --mem-limit; the model's memory is the host's, so 64 MiB of
 * it by default) is covered, and each gets three patterns: walking ones
 * (64-bit words 1 << (i % 64): stuck and shorted data lines), address in
 * address (each word holds its own device address: address lines that
 * alias) and random bytes. Each pattern is written one way and read the
 * other - through DMA and through mmap of the buffer (BAR2 on a PCI IPU)
 * - so both paths into the memory are proven, and a mismatch names the
 * device address and the path.
 *
 * A PCI IPU counts its device-memory errors (the function's sysfs
 * mem_errors_corrected and mem_errors_uncorrected, kept across resets);
 * both are read before and after the patterns and shown as figures:
 * FAIL when uncorrected errors grew during the check (data was lost under
 * the patterns, whether or not a word read back wrong); WARN when
 * corrected ones grew (the memory is degrading, the patterns still read
 * back) or uncorrected ones had been counted before (since the function
 * appeared: an old fault, or one of another run, to look into); PASS
 * otherwise. Corrected errors counted before the check alone do not warn:
 * a few accumulate over a board's life.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bringup.h"

#define MIB (1ull << 20)
#define CHUNK (16 * MIB)
#define MAX_CHUNKS 4096
#define NPATTERNS 3

static const char *const pattern_names[NPATTERNS] = {
	"walking ones", "address in address", "random",
};

static void make_pattern(int pat, uint64_t *buf, uint64_t len, uint64_t addr)
{
	uint64_t i, n = len / 8;

	switch (pat) {
	case 0:
		for (i = 0; i < n; i++)
			buf[i] = 1ull << (i % 64);
		break;
	case 1:
		for (i = 0; i < n; i++)
			buf[i] = addr + 8 * i;
		break;
	default:
		bu_fill(buf, len, addr ^ 0x5a5a);
		break;
	}
}

/* FAIL @r naming the first word of @got that is not @want's. */
static void mismatch(struct bu_result *r, int pat, const char *path,
		     uint64_t addr, const void *got, const void *want,
		     uint64_t len)
{
	long long at = bu_diff(got, want, len);
	uint64_t g, w, word = (uint64_t)at & ~7ull;

	memcpy(&g, (const char *)got + word, 8);
	memcpy(&w, (const char *)want + word, 8);
	bu_set(r, BU_FAIL, "%s via %s: device address %#llx reads %#018llx, expected %#018llx",
	       pattern_names[pat], path, (unsigned long long)(addr + word),
	       (unsigned long long)g, (unsigned long long)w);
}

/* One pattern over @bo: false (and @r FAIL) on the first mismatch. */
static bool test_chunk(struct ipu_bo *bo, void *map, int pat, uint64_t *want,
		       uint64_t *got, struct bu_result *r)
{
	uint64_t len = ipu_bo_size(bo), addr = ipu_bo_device_addr(bo);
	/* Walking ones and random in by DMA, address-in-address by mmap. */
	bool dma_in = !map || pat != 1;

	make_pattern(pat, want, len, addr);
	if (dma_in ? ipu_xfer_to_device(bo, 0, want, len) :
		     (memcpy(map, want, len), 0)) {
		bu_set(r, BU_FAIL, "%s: writing %llu bytes at %#llx: %s",
		       pattern_names[pat], (unsigned long long)len,
		       (unsigned long long)addr, ipu_errmsg());
		return false;
	}
	if (map && memcmp(map, want, len)) {
		mismatch(r, pat, "mmap", addr, map, want, len);
		return false;
	}
	memset(got, 0, len);
	if (ipu_xfer_from_device(bo, 0, got, len)) {
		bu_set(r, BU_FAIL, "%s: reading %llu bytes at %#llx: %s",
		       pattern_names[pat], (unsigned long long)len,
		       (unsigned long long)addr, ipu_errmsg());
		return false;
	}
	if (memcmp(got, want, len)) {
		mismatch(r, pat, "DMA", addr, got, want, len);
		return false;
	}
	return true;
}

/* @d's memory error counters now; false when it has none (not PCI). */
static bool mem_errors(const struct bu_ctx *ctx, const struct bu_dev *d,
		       uint64_t *ce, uint64_t *ue)
{
	char path[PATH_MAX];

	if (!d->ipu || d->ipu->model)
		return false;
	info_path(path, sizeof(path),
		  "%s/sys/class/ipu/ipu%u/device/mem_errors_corrected",
		  ctx->rep.root, d->ipu->index);
	if (ipu_attr_read_u64(path, 10, ce))
		return false;
	info_path(path, sizeof(path),
		  "%s/sys/class/ipu/ipu%u/device/mem_errors_uncorrected",
		  ctx->rep.root, d->ipu->index);
	return !ipu_attr_read_u64(path, 10, ue);
}

/* The counters' verdict (see the top of the file), after the patterns. */
static void judge_errors(const struct bu_ctx *ctx, const struct bu_dev *d,
			 uint64_t ce0, uint64_t ue0, struct bu_result *r)
{
	uint64_t ce, ue;

	if (!mem_errors(ctx, d, &ce, &ue))
		return;
	bu_fig(r, "mem_errors_corrected", (double)ce, "");
	bu_fig(r, "mem_errors_uncorrected", (double)ue, "");
	if (ue > ue0)
		bu_worse(r, BU_FAIL, "%llu uncorrected device-memory errors during the check (mem_errors_uncorrected %llu -> %llu): data was lost",
			 (unsigned long long)(ue - ue0),
			 (unsigned long long)ue0, (unsigned long long)ue);
	else if (ue)
		bu_worse(r, BU_WARN, "%llu uncorrected device-memory errors counted before the check (mem_errors_uncorrected)",
			 (unsigned long long)ue);
	else if (ce > ce0)
		bu_worse(r, BU_WARN, "%llu corrected device-memory errors during the check (mem_errors_corrected %llu -> %llu)",
			 (unsigned long long)(ce - ce0),
			 (unsigned long long)ce0, (unsigned long long)ce);
}

/* Bytes the check covers on @d. */
static uint64_t coverage(const struct bu_ctx *ctx, const struct bu_dev *d)
{
	uint64_t free_mem = d->info.memory_total - d->info.memory_used;
	uint64_t want;

	if (ctx->o.mem_limit)
		want = ctx->o.mem_limit;
	else if (ctx->o.quick)
		want = 4 * MIB;
	else if (d->info.platform == IPU_DEVICE_PLATFORM_MODEL)
		want = 64 * MIB;
	else
		want = free_mem;
	/* Leave a page or two: the driver may keep some for itself. */
	if (want + 2 * 65536 > free_mem)
		want = free_mem > 2 * 65536 ? free_mem - 2 * 65536 : 0;
	return want & ~(uint64_t)65535;
}

void bu_memory(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r)
{
	struct ipu_bo **bos = NULL;
	uint64_t total, left, len, *want = NULL, *got = NULL, covered = 0;
	size_t n = 0, i, steps, step = 0;
	uint64_t ce0 = 0, ue0 = 0;
	bool mapped = true, counted;
	void *map;
	int pat;

	if (!bu_need_open(d, r))
		return;
	counted = mem_errors(ctx, d, &ce0, &ue0);
	total = coverage(ctx, d);
	if (!total) {
		bu_set(r, BU_WARN, "no free device memory to test");
		return;
	}
	bos = calloc(MAX_CHUNKS, sizeof(*bos));
	want = malloc(CHUNK);
	got = malloc(CHUNK);
	if (!bos || !want || !got) {
		bu_set(r, BU_FAIL, "out of host memory");
		goto out;
	}
	for (left = total; left && n < MAX_CHUNKS; left -= len) {
		len = left < CHUNK ? left : CHUNK;
		if (ipu_bo_create(d->dev, len, 0, &bos[n])) {
			bu_set(r, BU_FAIL, "allocating %llu bytes of device memory (%llu of %llu done): %s",
			       (unsigned long long)len, (unsigned long long)(total - left),
			       (unsigned long long)total, ipu_errmsg());
			goto out;
		}
		n++;
	}
	steps = n * NPATTERNS;
	for (pat = 0; pat < NPATTERNS; pat++) {
		for (i = 0; i < n; i++) {
			if (bu_interrupted())
				goto out;
			map = NULL;
			if (!(d->info.caps & IPU_DEVICE_CAP_MAP) || ipu_bo_map(bos[i], &map))
				mapped = false;
			if (!test_chunk(bos[i], map, pat, want, got, r))
				goto out;
			if (map)
				ipu_bo_unmap(bos[i]);
			covered += pat ? 0 : ipu_bo_size(bos[i]);
			bu_progress(ctx, ++step, steps);
		}
	}
	bu_fig(r, "tested", (double)covered, "B");
	bu_fig(r, "memory", (double)d->info.memory_total, "B");
	bu_set(r, BU_PASS, "%llu MiB: walking ones, address in address, random, through DMA%s",
	       (unsigned long long)(covered >> 20), mapped ? " and mmap" : " (no mmap)");
out:
	if (counted)
		judge_errors(ctx, d, ce0, ue0, r);
	for (i = 0; bos && i < n; i++)
		ipu_bo_destroy(bos[i]);
	free(bos);
	free(want);
	free(got);
}
