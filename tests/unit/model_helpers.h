/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * model_helpers.h - shared setup for the tests of queues and of the model
 * backend: small model IPUs, attached devices, BOs, executables saved into
 * BOs, and reaping with a bound so that a bug fails a test instead of
 * hanging it. Header-only; everything static inline.
 */
#ifndef IPU_TESTS_MODEL_HELPERS_H
#define IPU_TESTS_MODEL_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ipu/exe.h>
#include <ipu/ipu.h>
#include <ipu/testing.h>

#include "exe_builder.h"

#define MH_DEVICES	8
#define MH_MEM_MB	64
#define MH_WAIT_NS	(10 * 1000000000ll) /* a bug, not a slow machine */

/*
 * Group setup: MH_DEVICES model IPUs of MH_MEM_MB each, no IPU_DEVICE, and
 * the host's real devices hidden, so that no test depends on the machine.
 */
static inline int mh_group_setup(void **state)
{
	(void)state;
	setenv("IPU_MODEL_DEVICES", "8", 1);
	setenv("IPU_MODEL_MEM_MB", "64", 1);
	unsetenv("IPU_DEVICE");
	if (__ipu_set_sysfs_root("/nonexistent-ipu-sysfs") ||
	    __ipu_set_dev_root("/nonexistent-ipu-dev"))
		return -1;
	return __ipu_model_reinit();
}

static inline int mh_group_teardown(void **state)
{
	(void)state;
	__ipu_set_sysfs_root(NULL);
	__ipu_set_dev_root(NULL);
	return 0;
}

/* Open "model:@n", attached when @attach (must succeed). */
static inline struct ipu_device *mh_open(unsigned int n, bool attach)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = attach ? IPU_OPEN_ATTACH : 0);
	struct ipu_device *dev = NULL;
	char name[24]; /* "model:" and any unsigned int */

	snprintf(name, sizeof(name), "model:%u", n);
	if (ipu_device_open(name, &opts, &dev))
		fail_msg("opening %s: %s", name, ipu_errmsg());
	return dev;
}

static inline struct ipu_bo *mh_bo(struct ipu_device *dev, uint64_t size)
{
	struct ipu_bo *bo = NULL;

	if (ipu_bo_create(dev, size, 0, &bo))
		fail_msg("BO of %llu bytes: %s", (unsigned long long)size,
			 ipu_errmsg());
	return bo;
}

static inline struct ipu_queue *mh_queue(struct ipu_device *dev,
					 uint32_t entries)
{
	IPU_OPTS(ipu_queue_opts, opts, .entries = entries);
	struct ipu_queue *q = NULL;

	if (ipu_queue_create(dev, &opts, &q))
		fail_msg("queue: %s", ipu_errmsg());
	return q;
}

/* Reap exactly @n completions into @c. */
static inline void mh_reap(struct ipu_queue *q, struct ipu_completion *c,
			   size_t n)
{
	size_t got = 0;
	int ret;

	while (got < n) {
		ret = ipu_queue_reap(q, c + got, n - got, n - got, MH_WAIT_NS);
		if (ret <= 0)
			fail_msg("reaping %zu completions: %d after %zu", n, ret,
				 got);
		got += (size_t)ret;
	}
}

/* The completion for @user_data among @n. */
static inline const struct ipu_completion *
mh_find(const struct ipu_completion *c, size_t n, uint64_t user_data)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i].user_data == user_data)
			return &c[i];
	fail_msg("no completion for user_data %llu",
		 (unsigned long long)user_data);
	return NULL;
}

static inline struct ipu_xfer_desc mh_xfer(struct ipu_bo *bo, uint64_t off,
					   void *host, uint64_t len,
					   uint32_t dir)
{
	struct ipu_xfer_desc d = {
		.bo = bo, .bo_offset = off, .host = host, .length = len,
		.dir = dir,
	};

	return d;
}

/* Save @exe into a new BO of @dev; its size in *@size. */
static inline struct ipu_bo *mh_exe_bo(struct ipu_device *dev,
				       const struct ipu_exe *exe,
				       uint64_t *size)
{
	char err[256];
	struct ipu_bo *bo;
	size_t len;
	void *buf;

	if (ipu_exe_save(exe, &buf, &len, err, sizeof(err)))
		fail_msg("saving the test's executable: %s", err);
	bo = mh_bo(dev, len);
	assert_int_equal(ipu_xfer_to_device(bo, 0, buf, len), 0);
	free(buf);
	*size = len;
	return bo;
}

/*
 * A program of @reps replicas, one host transfer: y = relu(x) for float32
 * x[@n] read from stream 0, y written to stream 1; with @reps > 1, y is
 * the all-reduced sum of relu(x) over the replicas.
 */
static inline struct eb *mh_relu_program(uint32_t reps, uint64_t n)
{
	struct eb *b = eb_new(reps, 1);
	uint32_t in = eb_stream(b, IPU_EXE_STREAM_H2D, IPU_DTYPE_FLOAT32,
				EB_SHAPE(n));
	uint32_t out = eb_stream(b, IPU_EXE_STREAM_D2H, IPU_DTYPE_FLOAT32,
				 EB_SHAPE(n));
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(n));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(n));
	uint32_t s = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(n));

	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(x), EB_I64(in));
	eb_op(b, IPU_OP_RELU, EB_U32(y, x), EB_NONE);
	if (reps > 1) {
		eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(s, y),
		      EB_I64(IPU_EXE_REDUCE_SUM, reps, 1));
		eb_op(b, IPU_OP_HOST_STORE, EB_U32(s), EB_I64(out));
	} else {
		eb_op(b, IPU_OP_HOST_STORE, EB_U32(y), EB_I64(out));
	}
	return b;
}

/* Where stream @s's slot 0 is in an arena of @b's program. */
static inline uint64_t mh_slot(const struct eb *b, uint32_t s)
{
	return b->streams[s].slots_offset;
}

/*
 * One replica of a program in a chain: H2D of @in to stream 0, the launch,
 * D2H of stream 1 to @out, linked; user_data @ud, @ud + 1, @ud + 2.
 */
static inline void mh_chain(struct ipu_cmd *cmds, const struct eb *b,
			    const struct ipu_launch_desc *l, void *in,
			    void *out, uint64_t ud)
{
	struct ipu_xfer_desc x;

	x = mh_xfer(l->arena_bo, l->arena_offset + mh_slot(b, 0), in,
		    b->streams[0].nbytes, IPU_XFER_DIR_TO_DEVICE);
	ipu_cmd_prep_xfer(&cmds[0], &x, ud);
	cmds[0].flags = IPU_CMD_F_LINK;
	ipu_cmd_prep_launch(&cmds[1], l, ud + 1);
	cmds[1].flags = IPU_CMD_F_LINK;
	x = mh_xfer(l->arena_bo, l->arena_offset + mh_slot(b, 1), out,
		    b->streams[1].nbytes, IPU_XFER_DIR_FROM_DEVICE);
	ipu_cmd_prep_xfer(&cmds[2], &x, ud + 2);
}

#endif /* IPU_TESTS_MODEL_HELPERS_H */
