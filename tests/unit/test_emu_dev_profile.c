// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_profile.c - the PCIe IPU model's op profiles
 * (docs/hardware.md section 4.5): CAPS says PROFILE; a PROFILE context
 * descriptor makes the queue's next LAUNCH write one record per executed
 * instruction into the buffer it names (in order, inside the run, then
 * the header, magic last); a buffer too small for them keeps the first
 * ones and counts the rest; every hostile address and size fails the
 * PROFILE and the LAUNCH that takes it, writing nothing; a PROFILE is
 * taken by the next LAUNCH only (NOPs in between do not take it), and is
 * forgotten by a disable, a soft reset of the queue or an FLR; a replica
 * whose PROFILE failed never joins its run, and no buffer is written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <linux/ipu.h>

#include "emu_dev_launch.h"

#define MEM		(16u << 20)
#define EXE_AT		0x0
#define ARENA_AT	0x100000u
#define PROF_AT		0x200000u
#define PROF_SIZE	4096u
#define CQ		IPU_QUEUE_CMD
#define HDR		sizeof(struct ipu_profile_header)
#define REC		sizeof(struct ipu_profile_record)
#define POISON		0xa5

static struct th *ready(void)
{
	return th_ready(MEM, 0);
}

/* th_mlp(): three instructions. */
static struct eb *mlp(void)
{
	uint32_t y;

	return th_mlp(&y);
}

static const uint32_t mlp_ops[] = { IPU_OP_MATMUL, IPU_OP_RELU, IPU_OP_ADD };

/* Command @idx: a PROFILE of [@at, @at + @size), no IRQ. */
static struct ipu_cmd_desc *profile(struct th *t, uint32_t idx, uint64_t at,
				    uint64_t size)
{
	struct ipu_cmd_desc *d = th_cmd_desc(t, idx);

	memset(d, 0, sizeof(*d));
	d->opcode = IPU_CQ_PROFILE;
	d->arena_addr = at;
	d->arena_size = size;
	return d;
}

static struct ipu_cmd_desc *launch(struct th *t, uint32_t idx, uint32_t exe,
				   const struct eb *b)
{
	return th_launch(t, idx, EXE_AT, exe, ARENA_AT, b->exe.arena_size);
}

static struct ipu_cmd_desc *nop(struct th *t, uint32_t idx)
{
	struct ipu_cmd_desc *d = th_cmd_desc(t, idx);

	memset(d, 0, sizeof(*d));
	d->opcode = IPU_CQ_NOP;
	return d;
}

static uint32_t status(struct th *t, uint32_t idx)
{
	return th_cmd_status(t, idx);
}

/* [@at, @at + @len) of device memory set to POISON. */
static void poison(struct th *t, uint64_t at, size_t len)
{
	uint8_t *p = malloc(len);

	memset(p, POISON, len);
	th_mem_write(t, at, p, len);
	free(p);
}

/* A ready IPU with mlp()'s executable at EXE_AT (*@b, its size in
 * *@exe) and a poisoned profile buffer at PROF_AT. */
static struct th *ready_mlp(struct eb **b, uint32_t *exe)
{
	struct th *t = ready();

	*b = mlp();
	*exe = th_put_exe(t, EXE_AT, *b);
	poison(t, PROF_AT, PROF_SIZE);
	return t;
}

/* Whether [@at, @at + @len) still holds POISON only. */
static bool poisoned(struct th *t, uint64_t at, size_t len)
{
	uint8_t *p = malloc(len);
	bool all = true;
	size_t i;

	th_mem_read(t, at, p, len);
	for (i = 0; i < len; i++)
		all &= p[i] == POISON;
	free(p);
	return all;
}

/* The buffer at @at, checked as a written one of @count records; the
 * records, ordered and non-overlapping, into @rec (malloc'd). */
static struct ipu_profile_record *read_profile(struct th *t, uint64_t at,
					       uint32_t count, uint64_t dropped)
{
	struct ipu_profile_header h;
	struct ipu_profile_record *rec = calloc(count + 1, REC);
	uint32_t i;

	th_mem_read(t, at, &h, HDR);
	assert_int_equal(h.magic, IPU_PROFILE_MAGIC);
	assert_int_equal(h.count, count);
	assert_int_equal(h.record_size, REC);
	assert_int_equal(h.dropped, dropped);
	assert_int_equal(h.flags, dropped ? IPU_PROFILE_OVERFLOW : 0);
	assert_int_equal(h.reserved, 0);
	if (count)
		th_mem_read(t, at + HDR, rec, count * REC);
	for (i = 0; i < count; i++) {
		assert_true(rec[i].start_ns <= rec[i].end_ns);
		if (i)
			assert_true(rec[i - 1].end_ns <= rec[i].start_ns);
	}
	return rec;
}

static void test_caps_say_profile(void **state)
{
	struct th *t = ready();

	(void)state;
	assert_true(rd32(t, IPU_REG_CAPS) & IPU_CAPS_PROFILE);
	assert_int_equal(rd32(t, IPU_REG_VERSION), 0x00020001);
	th_free(t);
}

static void test_a_profiled_launch_writes_one_record_per_op(void **state)
{
	struct th *t = ready();
	struct eb *b = mlp();
	struct ipu_profile_record *rec;
	uint64_t asz = b->exe.arena_size;
	uint8_t *dev_arena = malloc(asz);
	uint32_t exe, i;

	(void)state;
	exe = th_put_exe(t, EXE_AT, b);
	th_mem_write(t, ARENA_AT, b->arenas[0], asz);
	poison(t, PROF_AT, PROF_SIZE + 64);
	profile(t, 0, PROF_AT, PROF_SIZE);
	launch(t, 1, exe, b);
	assert_true(th_kick_wait(t, CQ, 2));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_OK);
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_OK);
	rec = read_profile(t, PROF_AT, 3, 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(rec[i].index, i);
		assert_int_equal(rec[i].op, mlp_ops[i]);
	}
	/* Nothing past the records, nothing past the buffer. */
	assert_true(poisoned(t, PROF_AT + HDR + 3 * REC, PROF_SIZE - HDR - 3 * REC + 64));
	/* The program computed what it computes unprofiled. */
	assert_int_equal(eb_run(b), 0);
	th_mem_read(t, ARENA_AT, dev_arena, asz);
	assert_memory_equal(dev_arena, b->arenas[0], asz);
	free(rec);
	free(dev_arena);
	eb_free(b);
	th_free(t);
}

static void test_a_loop_records_its_body_per_iteration(void **state)
{
	struct th *t = ready();
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t one = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t z = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	struct ipu_profile_record *rec;
	uint32_t exe, i;

	(void)state;
	eb_loop(b, 5, 2);
	eb_op(b, IPU_OP_ADD, EB_U32(y, x, one), EB_NONE);
	eb_op(b, IPU_OP_RELU, EB_U32(z, y), EB_NONE);
	eb_alloc(b);
	exe = th_put_exe(t, EXE_AT, b);
	profile(t, 0, PROF_AT, PROF_SIZE);
	launch(t, 1, exe, b);
	assert_true(th_kick_wait(t, CQ, 2));
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_OK);
	rec = read_profile(t, PROF_AT, 10, 0);
	for (i = 0; i < 10; i++) {
		assert_int_equal(rec[i].index, 1 + i % 2);
		assert_int_equal(rec[i].op, i % 2 ? IPU_OP_RELU : IPU_OP_ADD);
	}
	free(rec);
	eb_free(b);
	th_free(t);
}

static void test_records_that_do_not_fit_are_counted(void **state)
{
	struct th *t = ready();
	struct eb *b = mlp();
	struct ipu_profile_record *rec;
	uint32_t exe;

	(void)state;
	exe = th_put_exe(t, EXE_AT, b);
	poison(t, PROF_AT, 4096);
	/* Room for two records and most of a third. */
	profile(t, 0, PROF_AT, HDR + 3 * REC - 8);
	launch(t, 1, exe, b)->flags = 0;	/* one interrupt: the last */
	/* The header alone: every op only counted. */
	profile(t, 2, PROF_AT + 2048, HDR);
	launch(t, 3, exe, b);
	assert_true(th_kick_wait(t, CQ, 4));
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_OK);
	assert_int_equal(status(t, 3), IPU_DESC_DONE | IPU_CQ_OK);
	rec = read_profile(t, PROF_AT, 2, 1);
	assert_int_equal(rec[0].op, IPU_OP_MATMUL);
	assert_int_equal(rec[1].op, IPU_OP_RELU);
	free(rec);
	assert_true(poisoned(t, PROF_AT + HDR + 2 * REC, 2048 - HDR - 2 * REC));
	free(read_profile(t, PROF_AT + 2048, 0, 3));
	assert_true(poisoned(t, PROF_AT + 2048 + HDR, 2048 - HDR));
	eb_free(b);
	th_free(t);
}

/* A PROFILE @edit spoils: it and its LAUNCH fail with @code, nothing
 * written; the LAUNCH after them runs, unprofiled. */
static void hostile(void (*edit)(struct ipu_cmd_desc *d), uint32_t code)
{
	struct th *t = ready();
	struct eb *b = mlp();
	uint32_t exe;

	exe = th_put_exe(t, EXE_AT, b);
	poison(t, PROF_AT, PROF_SIZE);
	poison(t, MEM - 4096, 4096);
	edit(profile(t, 0, PROF_AT, PROF_SIZE));
	launch(t, 1, exe, b)->flags = 0;	/* one interrupt: the last */
	launch(t, 2, exe, b);
	assert_true(th_kick_wait(t, CQ, 3));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | code);
	assert_int_equal(status(t, 1), IPU_DESC_DONE | code);
	assert_int_equal(status(t, 2), IPU_DESC_DONE | IPU_CQ_OK);
	assert_true(poisoned(t, PROF_AT, PROF_SIZE));
	assert_true(poisoned(t, MEM - 4096, 4096));
	assert_int_equal(rd32(t, IPU_REG_LAUNCHES), 1);
	eb_free(b);
	th_free(t);
}

static void past_the_end(struct ipu_cmd_desc *d)
{
	d->arena_addr = MEM - 16;
	d->arena_size = 64;
}

static void wraps(struct ipu_cmd_desc *d)
{
	d->arena_addr = UINT64_MAX - 15;
	d->arena_size = 64;
}

static void misaligned(struct ipu_cmd_desc *d)
{
	d->arena_addr = PROF_AT + 4;
}

static void too_small(struct ipu_cmd_desc *d)
{
	d->arena_size = HDR - 1;
}

static void too_large(struct ipu_cmd_desc *d)
{
	d->arena_size = IPU_CQ_PROFILE_MAX + 8;
}

static void huge(struct ipu_cmd_desc *d)
{
	d->arena_size = UINT64_MAX;
}

static void reserved_flags(struct ipu_cmd_desc *d)
{
	d->flags = 0x8;
}

static void exe_set(struct ipu_cmd_desc *d)
{
	d->exe_size = 1;
}

static void group_set(struct ipu_cmd_desc *d)
{
	d->group = 1;
}

static void replicas_set(struct ipu_cmd_desc *d)
{
	d->num_replicas = 1;
}

static void test_hostile_buffers_fail_profile_and_launch(void **state)
{
	(void)state;
	hostile(past_the_end, IPU_CQ_E_INVAL);
	hostile(wraps, IPU_CQ_E_INVAL);
	hostile(misaligned, IPU_CQ_E_INVAL);
	hostile(too_small, IPU_CQ_E_DESC);
	hostile(too_large, IPU_CQ_E_DESC);
	hostile(huge, IPU_CQ_E_DESC);
	hostile(reserved_flags, IPU_CQ_E_DESC);
	hostile(exe_set, IPU_CQ_E_DESC);
	hostile(group_set, IPU_CQ_E_DESC);
	hostile(replicas_set, IPU_CQ_E_DESC);
}

static void test_only_the_next_launch_takes_the_profile(void **state)
{
	struct th *t = ready();
	struct eb *b = mlp();
	struct ipu_profile_header h;
	uint32_t exe;

	(void)state;
	exe = th_put_exe(t, EXE_AT, b);
	poison(t, PROF_AT, PROF_SIZE);
	poison(t, PROF_AT + PROF_SIZE, PROF_SIZE);
	/* A NOP between does not take it; a second PROFILE replaces it. */
	profile(t, 0, PROF_AT + PROF_SIZE, PROF_SIZE);
	nop(t, 1);
	profile(t, 2, PROF_AT, PROF_SIZE);
	nop(t, 3);
	launch(t, 4, exe, b);
	assert_true(th_kick_wait(t, CQ, 5));
	assert_int_equal(status(t, 4), IPU_DESC_DONE | IPU_CQ_OK);
	free(read_profile(t, PROF_AT, 3, 0));
	assert_true(poisoned(t, PROF_AT + PROF_SIZE, PROF_SIZE));
	/* The next launch is not profiled: the buffer stays as it was. */
	th_mem_read(t, PROF_AT, &h, HDR);
	h.count = 99;
	th_mem_write(t, PROF_AT, &h, HDR);
	launch(t, 5, exe, b);
	assert_true(th_kick_wait(t, CQ, 6));
	assert_int_equal(status(t, 5), IPU_DESC_DONE | IPU_CQ_OK);
	th_mem_read(t, PROF_AT, &h, HDR);
	assert_int_equal(h.count, 99);
	eb_free(b);
	th_free(t);
}

/*
 * A failed PROFILE (outside device memory) replaced by a good one: the
 * LAUNCH takes the second, runs and is profiled (section 4.5: a second
 * PROFILE replaces the first, failed or not).
 */
static void test_a_good_profile_replaces_a_failed_one(void **state)
{
	struct eb *b;
	uint32_t exe;
	struct th *t = ready_mlp(&b, &exe);

	(void)state;
	profile(t, 0, MEM - HDR + 8, PROF_SIZE);
	profile(t, 1, PROF_AT, PROF_SIZE);
	launch(t, 2, exe, b);
	assert_true(th_kick_wait(t, CQ, 3));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_OK);
	assert_int_equal(status(t, 2), IPU_DESC_DONE | IPU_CQ_OK);
	free(read_profile(t, PROF_AT, 3, 0));
	eb_free(b);
	th_free(t);
}

/*
 * A device without op profiles (the no_profile fault, a spec 2.0 IPU):
 * CAPS lacks PROFILE, the descriptor is an unknown opcode and leaves no
 * context, and the LAUNCH behind it runs unprofiled.
 */
static void test_a_device_without_profiles_refuses_the_opcode(void **state)
{
	struct th *t = ready();
	struct eb *b = mlp();
	uint32_t exe;

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "no_profile"), 0);
	assert_int_equal(rd32(t, IPU_REG_CAPS) & IPU_CAPS_PROFILE, 0);
	exe = th_put_exe(t, EXE_AT, b);
	poison(t, PROF_AT, PROF_SIZE);
	profile(t, 0, PROF_AT, PROF_SIZE);
	launch(t, 1, exe, b);
	assert_true(th_kick_wait(t, CQ, 2));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_E_OPCODE);
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_OK);
	assert_true(poisoned(t, PROF_AT, PROF_SIZE));
	/* Lifted, the device has them again. */
	assert_int_equal(emu_dev_fault(t->dev, "no_profile=0"), 0);
	assert_true(rd32(t, IPU_REG_CAPS) & IPU_CAPS_PROFILE);
	eb_free(b);
	th_free(t);
}

/* A PROFILE with no LAUNCH behind it, then @forget (which leaves the
 * command ring enabled); the LAUNCH after is not profiled. */
static void forgotten(void (*forget)(struct th *t))
{
	struct th *t = ready();
	struct eb *b = mlp();
	uint32_t exe, at;

	poison(t, PROF_AT, PROF_SIZE);
	profile(t, 0, PROF_AT, PROF_SIZE)->flags = IPU_CQ_F_IRQ;
	assert_true(th_kick_wait(t, CQ, 1));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_OK);
	assert_true(poisoned(t, PROF_AT, PROF_SIZE));
	forget(t);
	/* After the forgetting: a boot loads its image at the bottom. */
	exe = th_put_exe(t, EXE_AT, b);
	at = rd32(t, QREG(CQ, IPU_Q_HEAD));
	launch(t, at, exe, b);
	assert_true(th_kick_wait(t, CQ, at + 1));
	assert_int_equal(status(t, at), IPU_DESC_DONE | IPU_CQ_OK);
	assert_true(poisoned(t, PROF_AT, PROF_SIZE));
	eb_free(b);
	th_free(t);
}

/*
 * The no_profile fault after the PROFILE: the device is one of spec 2.0
 * from then on, which keeps no context (seen failing: the context stored
 * before was still taken, and the buffer written).
 */
static void loses_profiles(struct th *t)
{
	assert_int_equal(emu_dev_fault(t->dev, "no_profile"), 0);
}

static void disable(struct th *t)
{
	wr32(t, QREG(CQ, IPU_Q_CTRL), 0);
	while (rd32(t, QREG(CQ, IPU_Q_STATUS)) & IPU_Q_STATUS_ENABLED)
		;
	th_ring(t, CQ, 16);
}

static void soft_reset(struct th *t)
{
	uint32_t before = rd32(t, IPU_REG_RESET_COUNT);

	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	while (rd32(t, IPU_REG_RESET_COUNT) == before)
		;
	wr32(t, IPU_REG_IRQ_MASK, 0);
	th_ring(t, CQ, 16);
}

/* An FLR (section 9.2), then what a host does after one: Bus Master and
 * messages on again, the firmware booted again. */
static void flr(struct th *t)
{
	assert_int_equal(emu_dev_flr(t->dev), 0);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_OFF);
	th_enable(t);
	assert_int_equal(th_boot(t), IPU_FW_STATE_READY);
	th_ring(t, CQ, 16);
}

static void test_a_disable_forgets_the_profile(void **state)
{
	(void)state;
	forgotten(disable);
}

static void test_a_soft_reset_forgets_the_profile(void **state)
{
	(void)state;
	forgotten(soft_reset);
}

static void test_an_flr_forgets_the_profile(void **state)
{
	(void)state;
	forgotten(flr);
}

static void test_a_device_that_loses_profiles_forgets_the_context(void **state)
{
	(void)state;
	forgotten(loses_profiles);
}

static void test_a_stale_magic_is_cleared_by_the_next_run(void **state)
{
	struct th *t = ready();
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	struct ipu_profile_header h = { .magic = IPU_PROFILE_MAGIC, .count = 7 };
	uint32_t exe;

	(void)state;
	eb_loop(b, 1ll << 62, 1);
	eb_op(b, IPU_OP_RELU, EB_U32(y, x), EB_NONE);
	eb_alloc(b);
	exe = th_put_exe(t, EXE_AT, b);
	th_mem_write(t, PROF_AT, &h, HDR);
	/* A run the deadline ends still writes what it did. */
	profile(t, 0, PROF_AT, HDR + 4 * REC);
	launch(t, 1, exe, b)->deadline_ms = 20;
	assert_true(th_kick_wait(t, CQ, 2));
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_E_TIMEOUT);
	th_mem_read(t, PROF_AT, &h, HDR);
	assert_int_equal(h.magic, IPU_PROFILE_MAGIC);
	assert_int_equal(h.count, 4);
	assert_true(h.dropped > 0);
	assert_int_equal(h.flags, IPU_PROFILE_OVERFLOW);
	eb_free(b);
	th_free(t);
}

static void test_replicas_profile_into_their_own_buffers(void **state)
{
	struct th *t[2] = { th_ready(MEM, 0), th_ready(MEM, 1) };
	struct eb *b = eb_new(2, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 50));
	uint32_t o = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 50));
	struct ipu_profile_record *rec;
	struct ipu_cmd_desc *d;
	uint32_t exe, r;

	(void)state;
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(o, x),
	      EB_I64(IPU_EXE_REDUCE_SUM, 2, 1));
	eb_alloc(b);
	for (r = 0; r < 2; r++) {
		exe = th_put_exe(t[r], EXE_AT, b);
		poison(t[r], PROF_AT, PROF_SIZE);
		/* Replica 1 is not profiled. */
		if (r == 0)
			profile(t[r], 0, PROF_AT, PROF_SIZE);
		else
			nop(t[r], 0);
		d = launch(t[r], 1, exe, b);
		d->replica = r;
		d->num_replicas = 2;
		d->group = 77;
		d->owner = 1234;
		wr32(t[r], QREG(CQ, IPU_Q_TAIL), 2);
	}
	for (r = 0; r < 2; r++) {
		assert_true(th_wait_irqs(t[r], IPU_VEC_CMD, 1));
		assert_int_equal(status(t[r], 1), IPU_DESC_DONE | IPU_CQ_OK);
	}
	rec = read_profile(t[0], PROF_AT, 1, 0);
	assert_int_equal(rec[0].op, IPU_OP_ALL_REDUCE);
	free(rec);
	assert_true(poisoned(t[1], PROF_AT, PROF_SIZE));
	eb_free(b);
	th_free(t[0]);
	th_free(t[1]);
}

/* Replica @r's LAUNCH of the all-reduce @b (2 replicas, group @group)
 * at @idx, its deadline @ms. */
static void replica_launch(struct th *t, uint32_t r, uint32_t idx,
			   uint32_t exe, const struct eb *b, uint64_t group,
			   uint32_t ms)
{
	struct ipu_cmd_desc *d = launch(t, idx, exe, b);

	d->replica = r;
	d->num_replicas = 2;
	d->group = group;
	d->owner = 1234;
	d->deadline_ms = ms;
}

/*
 * A replica whose PROFILE failed (a hostile buffer, past device memory)
 * never joins its run: its LAUNCH fails with the PROFILE's code, its
 * partner's waits out its deadline (E_TIMEOUT), and neither buffer is
 * touched (a run that never started writes none). Both queues go on: the
 * next run of the two, profiled properly, completes and writes both.
 */
static void test_a_replica_whose_profile_failed_writes_no_buffer(void **state)
{
	struct th *t[2] = { th_ready(MEM, 0), th_ready(MEM, 1) };
	struct eb *b = eb_new(2, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 50));
	uint32_t o = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 50));
	uint32_t exe[2], r;

	(void)state;
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(o, x),
	      EB_I64(IPU_EXE_REDUCE_SUM, 2, 1));
	eb_alloc(b);
	for (r = 0; r < 2; r++) {
		exe[r] = th_put_exe(t[r], EXE_AT, b);
		poison(t[r], PROF_AT, PROF_SIZE);
		profile(t[r], 0, r ? MEM - HDR + 8 : PROF_AT, PROF_SIZE);
		replica_launch(t[r], r, 1, exe[r], b, 77, 50);
		wr32(t[r], QREG(CQ, IPU_Q_TAIL), 2);
	}
	for (r = 0; r < 2; r++) {
		assert_true(th_wait_irqs(t[r], IPU_VEC_CMD, 1));
		wr32(t[r], IPU_REG_IRQ_CAUSE, IPU_IRQ_CMD);
	}
	assert_int_equal(status(t[0], 0), IPU_DESC_DONE | IPU_CQ_OK);
	assert_int_equal(status(t[0], 1), IPU_DESC_DONE | IPU_CQ_E_TIMEOUT);
	assert_int_equal(status(t[1], 0), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	assert_int_equal(status(t[1], 1), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	for (r = 0; r < 2; r++) {
		assert_true(poisoned(t[r], PROF_AT, PROF_SIZE));
		/* Replica 1's LAUNCH was refused before its run (not
		 * counted, as a bad descriptor is); replica 0's waited. */
		assert_int_equal(rd32(t[r], IPU_REG_LAUNCHES), r ? 0 : 1);
	}
	for (r = 0; r < 2; r++) {
		profile(t[r], 2, PROF_AT, PROF_SIZE);
		replica_launch(t[r], r, 3, exe[r], b, 78, 0);
		wr32(t[r], QREG(CQ, IPU_Q_TAIL), 4);
	}
	for (r = 0; r < 2; r++) {
		assert_true(th_wait_irqs(t[r], IPU_VEC_CMD, 2));
		assert_int_equal(status(t[r], 3), IPU_DESC_DONE | IPU_CQ_OK);
		free(read_profile(t[r], PROF_AT, 1, 0));
	}
	eb_free(b);
	th_free(t[0]);
	th_free(t[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps_say_profile),
		cmocka_unit_test(test_a_profiled_launch_writes_one_record_per_op),
		cmocka_unit_test(test_a_loop_records_its_body_per_iteration),
		cmocka_unit_test(test_records_that_do_not_fit_are_counted),
		cmocka_unit_test(test_hostile_buffers_fail_profile_and_launch),
		cmocka_unit_test(test_only_the_next_launch_takes_the_profile),
		cmocka_unit_test(test_a_good_profile_replaces_a_failed_one),
		cmocka_unit_test(test_a_device_without_profiles_refuses_the_opcode),
		cmocka_unit_test(test_a_device_that_loses_profiles_forgets_the_context),
		cmocka_unit_test(test_a_disable_forgets_the_profile),
		cmocka_unit_test(test_a_soft_reset_forgets_the_profile),
		cmocka_unit_test(test_an_flr_forgets_the_profile),
		cmocka_unit_test(test_a_stale_magic_is_cleared_by_the_next_run),
		cmocka_unit_test(test_replicas_profile_into_their_own_buffers),
		cmocka_unit_test(test_a_replica_whose_profile_failed_writes_no_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
