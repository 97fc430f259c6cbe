// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bench_xfer.c - transfer bandwidth of the model backend against memcpy().
 *
 * For each size from 4 KiB to 256 MiB (powers of 4), host to device and
 * back: transfers submitted to a queue in batches (io_uring's way: up to
 * 64 commands, one submit, then reap them all) against memcpy() of the
 * same bytes between the same buffers (the BO's mapping standing in for
 * device memory), measured in the same run. Best of three rounds each.
 *
 *	bench model.xfer_<h2d|d2h>_<size>.gbps <x> GB/s
 *	bench memcpy_<h2d|d2h>_<size>.gbps <x> GB/s
 *	bench model.xfer_<h2d|d2h>_<size>.ratio_vs_memcpy <x> x
 *
 * No timing is asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ipu/ipu.h>

#define MAX_SIZE	(256ull << 20)
#define BATCH		64
#define ROUND_BYTES	(512ull << 20) /* bytes moved per timed round, at least */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void size_name(uint64_t size, char *buf, size_t len)
{
	if (size >= 1 << 20)
		snprintf(buf, len, "%lluMiB", (unsigned long long)(size >> 20));
	else
		snprintf(buf, len, "%lluKiB", (unsigned long long)(size >> 10));
}

/* Seconds for @iters transfers of @size through @q, in batches. */
static int time_queue(struct ipu_queue *q, struct ipu_bo *bo, void *host,
		      uint64_t size, uint32_t dir, uint64_t iters, double *secs)
{
	struct ipu_completion cqes[BATCH];
	struct ipu_cmd cmds[BATCH];
	struct ipu_xfer_desc x = {
		.bo = bo, .host = host, .length = size, .dir = dir,
	};
	uint64_t done = 0, n, i;
	double t = now();
	int got;

	for (i = 0; i < BATCH; i++)
		ipu_cmd_prep_xfer(&cmds[i], &x, i);
	while (done < iters) {
		n = iters - done < BATCH ? iters - done : BATCH;
		if (ipu_queue_submit(q, cmds, n)) {
			fprintf(stderr, "bench_xfer: %s\n", ipu_errmsg());
			return 1;
		}
		for (i = 0; i < n; i += (uint64_t)got) {
			got = ipu_queue_reap(q, cqes, BATCH, n - i, -1);
			if (got < 0 || (got > 0 && cqes[0].result)) {
				fprintf(stderr, "bench_xfer: %s\n",
					got < 0 ? ipu_errmsg() : cqes[0].msg);
				return 1;
			}
		}
		done += n;
	}
	*secs = now() - t;
	return 0;
}

static double time_memcpy(void *dst, const void *src, uint64_t size,
			  uint64_t iters)
{
	double t = now();
	uint64_t i;

	for (i = 0; i < iters; i++) {
		memcpy(dst, src, size);
		/* keep the copies: the compiler may not drop them */
		__asm__ volatile("" : : "r"(dst) : "memory");
	}
	return now() - t;
}

static int bench_size(struct ipu_queue *q, struct ipu_bo *bo, uint8_t *dev,
		      uint8_t *src, uint8_t *dst, uint64_t size)
{
	static const char *const dirname[] = { "", "h2d", "d2h" };
	uint64_t iters = ROUND_BYTES / size < 3 ? 3 : ROUND_BYTES / size;
	double best_q, best_m, t;
	char name[16];
	uint32_t dir;
	int round;

	size_name(size, name, sizeof(name));
	for (dir = IPU_XFER_DIR_TO_DEVICE; dir <= IPU_XFER_DIR_FROM_DEVICE; dir++) {
		uint8_t *host = dir == IPU_XFER_DIR_TO_DEVICE ? src : dst;

		best_q = best_m = 1e30;
		/* Round 0 warms up (pages touched, caches filled), untimed. */
		for (round = 0; round < 4; round++) {
			if (time_queue(q, bo, host, size, dir,
				       round ? iters : 1, &t))
				return 1;
			if (round && t < best_q)
				best_q = t;
			t = dir == IPU_XFER_DIR_TO_DEVICE ?
				    time_memcpy(dev, src, size, round ? iters : 1) :
				    time_memcpy(dst, dev, size, round ? iters : 1);
			if (round && t < best_m)
				best_m = t;
		}
		printf("bench model.xfer_%s_%s.gbps %.2f GB/s\n", dirname[dir],
		       name, (double)size * iters / best_q / 1e9);
		printf("bench memcpy_%s_%s.gbps %.2f GB/s\n", dirname[dir], name,
		       (double)size * iters / best_m / 1e9);
		printf("bench model.xfer_%s_%s.ratio_vs_memcpy %.3f x\n",
		       dirname[dir], name, best_m / best_q);
		fflush(stdout);
	}
	return 0;
}

int main(void)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	struct ipu_device *dev;
	struct ipu_queue *q;
	uint8_t *src, *dst;
	struct ipu_bo *bo;
	uint64_t size;
	void *map;
	int err = 1;

	if (ipu_device_open("model", &opts, &dev) &&
	    ipu_device_open("model:0", &opts, &dev)) {
		fprintf(stderr, "bench_xfer: %s\n", ipu_errmsg());
		return 1;
	}
	src = malloc(MAX_SIZE);
	dst = malloc(MAX_SIZE);
	if (!src || !dst || ipu_bo_create(dev, MAX_SIZE, 0, &bo) ||
	    ipu_bo_map(bo, &map) || ipu_queue_create(dev, NULL, &q)) {
		fprintf(stderr, "bench_xfer: %s\n", ipu_errmsg());
		goto out;
	}
	memset(src, 0x5a, MAX_SIZE);
	memset(dst, 0xa5, MAX_SIZE);
	for (size = 4096; size <= MAX_SIZE; size *= 4)
		if (bench_size(q, bo, map, src, dst, size))
			goto out_queue;
	err = 0;
out_queue:
	ipu_queue_destroy(q);
out:
	free(src);
	free(dst);
	ipu_device_close(dev);
	return err;
}
