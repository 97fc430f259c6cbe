// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bench_model_launch.c - the cost of launching a one-op program (y = x + x
 * on 4 floats) through libipu on the model, from submission to reaped
 * completion: a queue's LAUNCH command, ipu_launch(), and runs of 2 and
 * 4 replicas on as many devices (an all-reduce, a launch each). What the
 * firmware alone costs is bench_launch's figure; the difference is
 * libipu's (checks, engine thread hand-off, cached executable lookup).
 * Best of five rounds.
 *
 *	bench model.queue_launch_<r>replica.us_per_launch <x> us
 *	bench model.ipu_launch.us_per_launch <x> us
 *
 * No timing is asserted.
 */
#include <stdio.h>
#include <time.h>

#include <ipu/ipu.h>

#include "unit/exe_builder.h"

#define ROUNDS 5

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(const char *what)
{
	fprintf(stderr, "bench_model_launch: %s: %s\n", what, ipu_errmsg());
	return 1;
}

/* Replica @r of a program of @nrep on model:@r: executable and arena. */
static int place(struct ipu_device **devs, uint32_t r, uint32_t nrep,
		 struct ipu_launch_desc *l)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	struct eb *b = eb_new(nrep, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	char name[16], err[256];
	size_t len;
	void *buf;

	if (nrep == 1)
		eb_op(b, IPU_OP_ADD, EB_U32(y, x, x), EB_NONE);
	else
		eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(y, x),
		      EB_I64(IPU_EXE_REDUCE_SUM, nrep, 1));
	if (ipu_exe_save(&b->exe, &buf, &len, err, sizeof(err))) {
		fprintf(stderr, "bench_model_launch: %s\n", err);
		eb_free(b);
		return 1;
	}
	snprintf(name, sizeof(name), "model:%u", r);
	memset(l, 0, sizeof(*l));
	l->replica = r;
	l->num_replicas = nrep;
	l->group = 1;
	l->exe_size = len;
	if (ipu_device_open(name, &opts, &devs[r]) ||
	    ipu_bo_create(devs[r], len, 0, &l->exe_bo) ||
	    ipu_xfer_to_device(l->exe_bo, 0, buf, len) ||
	    ipu_bo_create(devs[r], b->exe.arena_size, 0, &l->arena_bo)) {
		free(buf);
		eb_free(b);
		return fail(name);
	}
	free(buf);
	eb_free(b);
	return 0;
}

/* Microseconds per run of @nrep replicas through a queue. */
static int bench_queue(uint32_t nrep, int runs)
{
	struct ipu_device *devs[4] = { NULL, NULL, NULL, NULL };
	struct ipu_completion cqes[4];
	struct ipu_launch_desc l[4];
	struct ipu_cmd cmds[4];
	struct ipu_queue *q = NULL;
	double best = 1e30, t;
	int round, i, got, err = 1;
	uint32_t r;

	for (r = 0; r < nrep; r++) {
		if (place(devs, r, nrep, &l[r]))
			goto out;
		ipu_cmd_prep_launch(&cmds[r], &l[r], r);
	}
	if (ipu_queue_create(devs[0], NULL, &q)) {
		fail("queue");
		goto out;
	}
	/* Round 0 warms up: the executable is parsed and cached there. */
	for (round = 0; round <= ROUNDS; round++) {
		t = now();
		for (i = 0; i < runs; i++) {
			if (ipu_queue_submit(q, cmds, nrep)) {
				fail("submit");
				goto out;
			}
			for (got = 0; got < (int)nrep;) {
				int n = ipu_queue_reap(q, cqes, nrep, nrep - got, -1);

				if (n <= 0 || cqes[0].result) {
					fprintf(stderr, "bench_model_launch: %s\n",
						n <= 0 ? ipu_errmsg() : cqes[0].msg);
					goto out;
				}
				got += n;
			}
		}
		t = (now() - t) / runs;
		if (round && t < best)
			best = t;
	}
	printf("bench model.queue_launch_%ureplica.us_per_launch %.3f us\n",
	       nrep, best * 1e6);
	err = 0;
out:
	ipu_queue_destroy(q);
	for (r = 0; r < nrep; r++)
		ipu_device_close(devs[r]);
	return err;
}

/* Microseconds per ipu_launch(). */
static int bench_sync(int runs)
{
	struct ipu_device *dev = NULL;
	struct ipu_launch_desc l;
	double best = 1e30, t;
	int round, i, err = 1;

	if (place(&dev, 0, 1, &l))
		goto out;
	for (round = 0; round <= ROUNDS; round++) {
		t = now();
		for (i = 0; i < runs; i++) {
			if (ipu_launch(dev, &l)) {
				fail("ipu_launch");
				goto out;
			}
		}
		t = (now() - t) / runs;
		if (round && t < best)
			best = t;
	}
	printf("bench model.ipu_launch.us_per_launch %.3f us\n", best * 1e6);
	err = 0;
out:
	ipu_device_close(dev);
	return err;
}

int main(void)
{
	return bench_queue(1, 20000) || bench_sync(20000) ||
	       bench_queue(2, 5000) || bench_queue(4, 2000);
}
