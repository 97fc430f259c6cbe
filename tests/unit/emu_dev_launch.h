/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * emu_dev_launch.h - launches on the PCIe IPU model's command queue, for
 * the tests that run programs on it (test_emu_dev_cmd.c,
 * test_emu_dev_gather.c): a booted IPU with its command ring, an
 * executable of exe_builder.h saved into device memory, a LAUNCH
 * descriptor, a status word read as the device publishes it.
 * Header-only, over emu_dev_helpers.h.
 */
#ifndef IPU_TESTS_EMU_DEV_LAUNCH_H
#define IPU_TESTS_EMU_DEV_LAUNCH_H

#include "emu_dev_helpers.h"
#include "exe_builder.h"

/* IPU @index of @mem bytes, booted, its command ring of 16 enabled. */
static inline struct th *th_ready(uint64_t mem, unsigned int index)
{
	struct th *t = th_new_opts(mem, index, 100 + index, NULL, NULL);

	assert_non_null(t);
	th_enable(t);
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	th_ring(t, IPU_QUEUE_CMD, 16);
	return t;
}

/* Serialise @b's executable into device memory at @at; its size. */
static inline uint32_t th_put_exe(struct th *t, uint64_t at, struct eb *b)
{
	void *buf = NULL;
	size_t len = 0;
	char msg[256];

	if (ipu_exe_save(&b->exe, &buf, &len, msg, sizeof(msg)))
		fail_msg("ipu_exe_save: %s", msg);
	th_mem_write(t, at, buf, len);
	free(buf);
	return (uint32_t)len;
}

/* Command @idx: a LAUNCH of one replica with IRQ; the caller edits it. */
static inline struct ipu_cmd_desc *th_launch(struct th *t, uint32_t idx,
					     uint64_t exe_at, uint32_t exe_size,
					     uint64_t arena_at,
					     uint64_t arena_size)
{
	struct ipu_cmd_desc *d = th_cmd_desc(t, idx);

	memset(d, 0, sizeof(*d));
	d->opcode = IPU_CQ_LAUNCH;
	d->flags = IPU_CQ_F_IRQ;
	d->exe_addr = exe_at;
	d->exe_size = exe_size;
	d->arena_addr = arena_at;
	d->arena_size = arena_size;
	d->num_replicas = 1;
	return d;
}

/* y = relu(x @ w) + x @ w, float32: MATMUL, RELU, ADD; @y's tensor. */
static inline struct eb *th_mlp(uint32_t *y)
{
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(5, 7));
	uint32_t w = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(7, 3));
	uint32_t m = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(5, 3));
	uint32_t r = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(5, 3));

	*y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(5, 3));
	eb_op(b, IPU_OP_MATMUL, EB_U32(m, x, w), EB_NONE);
	eb_op(b, IPU_OP_RELU, EB_U32(r, m), EB_NONE);
	eb_op(b, IPU_OP_ADD, EB_U32(*y, r, m), EB_NONE);
	eb_alloc(b);
	eb_fill(b, 0, x, 1, -2, 2);
	eb_fill(b, 0, w, 2, -1, 1);
	return b;
}

/* Command @idx's status word as the device last wrote it. */
static inline uint32_t th_cmd_status(struct th *t, uint32_t idx)
{
	return __atomic_load_n(&th_cmd_desc(t, idx)->status, __ATOMIC_ACQUIRE);
}

#endif /* IPU_TESTS_EMU_DEV_LAUNCH_H */
