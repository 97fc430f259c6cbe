// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_cmd.c - the PCIe IPU model's command queue
 * (docs/hardware.md section 4.3): NOP; LAUNCH computing the same bits as
 * libipufw run directly (the model backend's executor); every malformed
 * field; replicated runs across two IPUs of the process; the deadline
 * the device enforces, for a running and for a waiting launch; the
 * hang_launch fault released by soft reset with E_RESET on every
 * published descriptor; hold_launches, lifted or ended by soft reset; FLR aborting a launch; telemetry under load.
 *
 * A launch that must be under way before the test acts is awaited by
 * polling the queue's STATUS.BUSY (the condition itself, no sleep).
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_launch.h"

#define MEM		(16u << 20)
#define EXE_AT		0x0
#define ARENA_AT	0x100000u
#define CQ		IPU_QUEUE_CMD

static struct th *ready_index(unsigned int index)
{
	return th_ready(MEM, index);
}

static struct th *ready(void)
{
	return ready_index(0);
}

static uint32_t put_exe(struct th *t, struct eb *b)
{
	return th_put_exe(t, EXE_AT, b);
}

static struct ipu_cmd_desc *launch(struct th *t, uint32_t idx, uint32_t exe_size,
				   uint64_t arena_size)
{
	return th_launch(t, idx, EXE_AT, exe_size, ARENA_AT, arena_size);
}

static struct ipu_cmd_desc *nop(struct th *t, uint32_t idx)
{
	struct ipu_cmd_desc *d = th_cmd_desc(t, idx);

	memset(d, 0, sizeof(*d));
	d->opcode = IPU_CQ_NOP;
	d->flags = IPU_CQ_F_IRQ;
	return d;
}

static uint32_t status(struct th *t, uint32_t idx)
{
	return th_cmd_status(t, idx);
}

/* Wait for the command queue to take a descriptor (BUSY). */
static void wait_busy(struct th *t)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;

	while (!(rd32(t, QREG(CQ, IPU_Q_STATUS)) & IPU_Q_STATUS_BUSY)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
}

/* Wait for a launch to be running: telemetry says so. */
static void wait_running(struct th *t)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;

	while (rd32(t, IPU_REG_TEMP_MC) != 65000) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
}

/* y = x + 1 forever: only a deadline or a reset ends it. */
static struct eb *forever(uint32_t reps)
{
	struct eb *b = eb_new(reps, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t one = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));

	eb_loop(b, 1ll << 62, 1);
	eb_op(b, IPU_OP_ADD, EB_U32(y, x, one), EB_NONE);
	eb_alloc(b);
	return b;
}

static void test_nop_and_bad_opcodes(void **state)
{
	struct th *t = ready();

	(void)state;
	nop(t, 0)->flags = 0;
	th_cmd_desc(t, 1)->opcode = 7;
	nop(t, 2)->flags = 0x10;	/* reserved; no IRQ: one batch */
	nop(t, 3);
	assert_true(th_kick_wait(t, CQ, 4));
	assert_int_equal(status(t, 0), IPU_DESC_DONE);
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_E_OPCODE);
	assert_int_equal(status(t, 2), IPU_DESC_DONE | IPU_CQ_E_DESC);
	assert_int_equal(status(t, 3), IPU_DESC_DONE);
	assert_int_equal(th_wb(t, CQ)->completed, 4);
	assert_int_equal(th_wb(t, CQ)->errors, 2);
	th_free(t);
}

static void test_launch_computes_the_executor_bits(void **state)
{
	struct th *t = ready();
	uint32_t y, size;
	struct eb *b = th_mlp(&y);
	uint64_t asz = b->exe.arena_size;
	uint8_t *dev_arena = malloc(asz);

	(void)state;
	size = put_exe(t, b);
	th_mem_write(t, ARENA_AT, b->arenas[0], asz);
	launch(t, 0, size, asz);
	assert_true(th_kick_wait(t, CQ, 1));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_OK);
	assert_int_equal(eb_run(b), 0);
	th_mem_read(t, ARENA_AT, dev_arena, asz);
	assert_memory_equal(dev_arena, b->arenas[0], asz);
	assert_true(eb_get(b, 0, y, 0) != 0.0 || eb_get(b, 0, y, 1) != 0.0);
	assert_int_equal(rd32(t, IPU_REG_LAUNCHES), 1);
	free(dev_arena);
	eb_free(b);
	th_free(t);
}

static void test_malformed_launches_fail_alone(void **state)
{
	struct th *t = ready();
	uint32_t y, size, i;
	struct eb *b = th_mlp(&y);
	uint64_t asz = b->exe.arena_size;
	uint8_t junk[64] = { 0 };

	(void)state;
	size = put_exe(t, b);
	launch(t, 0, 0, asz);
	launch(t, 1, size, asz)->replica = 1;
	launch(t, 2, size, asz)->num_replicas = 2;	/* group 0 */
	launch(t, 3, size, asz)->num_replicas = IPU_CQ_MAX_REPLICAS + 1;
	launch(t, 4, size, asz)->arena_size = 0;
	launch(t, 5, size, asz)->exe_addr = MEM - 16;
	launch(t, 6, size, asz)->arena_addr = ARENA_AT + 4;
	launch(t, 7, size, asz - 64);			/* arena too small */
	launch(t, 8, size, (uint64_t)MEM);		/* arena past the end */
	launch(t, 9, size, asz)->exe_addr = 0x200000;	/* zeros: no exe */
	launch(t, 10, size - 8, asz);			/* truncated */
	launch(t, 11, size, asz);
	for (i = 0; i < 11; i++)
		th_cmd_desc(t, i)->flags = 0;
	th_mem_write(t, 0x200000, junk, sizeof(junk));
	assert_true(th_kick_wait(t, CQ, 12));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_E_DESC);
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_E_DESC);
	assert_int_equal(status(t, 2), IPU_DESC_DONE | IPU_CQ_E_DESC);
	assert_int_equal(status(t, 3), IPU_DESC_DONE | IPU_CQ_E_DESC);
	assert_int_equal(status(t, 4), IPU_DESC_DONE | IPU_CQ_E_DESC);
	assert_int_equal(status(t, 5), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	assert_int_equal(status(t, 6), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	assert_int_equal(status(t, 7), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	assert_int_equal(status(t, 8), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	assert_int_equal(status(t, 9), IPU_DESC_DONE | IPU_CQ_E_NOEXEC);
	assert_int_equal(status(t, 10), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	assert_int_equal(status(t, 11), IPU_DESC_DONE | IPU_CQ_OK);
	eb_free(b);
	th_free(t);
}

static void test_reserved_flags_are_a_descriptor_error(void **state)
{
	struct th *t = ready();
	uint32_t y, size;
	struct eb *b = th_mlp(&y);

	(void)state;
	size = put_exe(t, b);
	launch(t, 0, size, b->exe.arena_size)->flags = IPU_CQ_F_IRQ | 0x8;
	assert_true(th_kick_wait(t, CQ, 1));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_E_DESC);
	eb_free(b);
	th_free(t);
}

static void test_replicas_on_two_ipus_run_together(void **state)
{
	struct th *t[2] = { ready_index(0), ready_index(1) };
	struct eb *b = eb_new(2, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 50));
	uint32_t o = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 50));
	uint64_t asz;
	uint32_t size, r;
	uint8_t *back;

	(void)state;
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(o, x),
	      EB_I64(IPU_EXE_REDUCE_SUM, 2, 1));
	eb_alloc(b);
	asz = b->exe.arena_size;
	back = malloc(asz);
	for (r = 0; r < 2; r++) {
		struct ipu_cmd_desc *d;

		eb_fill(b, r, x, 10 + r, -3, 3);
		size = put_exe(t[r], b);
		th_mem_write(t[r], ARENA_AT, b->arenas[r], asz);
		d = launch(t[r], 0, size, asz);
		d->replica = r;
		d->num_replicas = 2;
		d->group = 77;
		d->owner = 1234;
		wr32(t[r], QREG(CQ, IPU_Q_TAIL), 1);
	}
	for (r = 0; r < 2; r++)
		assert_true(th_wait_irqs(t[r], IPU_VEC_CMD, 1));
	assert_int_equal(eb_run(b), 0);
	for (r = 0; r < 2; r++) {
		assert_int_equal(status(t[r], 0), IPU_DESC_DONE | IPU_CQ_OK);
		th_mem_read(t[r], ARENA_AT, back, (uint32_t)asz);
		assert_memory_equal(back, b->arenas[r], asz);
	}
	free(back);
	eb_free(b);
	th_free(t[0]);
	th_free(t[1]);
}

static void test_a_replica_whose_partner_never_comes_times_out(void **state)
{
	struct th *t = ready();
	struct eb *b = eb_new(2, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	struct ipu_cmd_desc *d;
	uint32_t size;

	(void)state;
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(x, x), EB_I64(IPU_EXE_REDUCE_SUM, 2, 1));
	eb_alloc(b);
	size = put_exe(t, b);
	d = launch(t, 0, size, b->exe.arena_size);
	d->num_replicas = 2;
	d->group = 5;
	d->deadline_ms = 20;
	assert_true(th_kick_wait(t, CQ, 1));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_E_TIMEOUT);
	eb_free(b);
	th_free(t);
}

static void test_a_replica_filed_twice_is_refused(void **state)
{
	struct th *t[2] = { ready_index(0), ready_index(1) };
	struct eb *b = eb_new(2, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t size, r, s[2];
	time_t end = time(NULL) + WAIT_LIMIT_S;

	(void)state;
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(x, x), EB_I64(IPU_EXE_REDUCE_SUM, 2, 1));
	eb_alloc(b);
	for (r = 0; r < 2; r++) {
		struct ipu_cmd_desc *d;

		size = put_exe(t[r], b);
		d = launch(t[r], 0, size, b->exe.arena_size);
		d->num_replicas = 2;	/* both say replica 0 */
		d->group = 9;
		wr32(t[r], QREG(CQ, IPU_Q_DEADLINE_MS), 0);	/* no deadline */
		wr32(t[r], QREG(CQ, IPU_Q_TAIL), 1);
	}
	/* Whichever files second is refused at once; the other waits for a
	 * replica 1 that never comes, until a reset releases it. */
	while (!(status(t[0], 0) & IPU_DESC_DONE) &&
	       !(status(t[1], 0) & IPU_DESC_DONE)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
	for (r = 0; r < 2; r++)
		wr32(t[r], IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	s[0] = status(t[0], 0);
	s[1] = status(t[1], 0);
	assert_true((s[0] == (IPU_DESC_DONE | IPU_CQ_E_DESC) &&
		     s[1] == (IPU_DESC_DONE | IPU_CQ_E_RESET)) ||
		    (s[1] == (IPU_DESC_DONE | IPU_CQ_E_DESC) &&
		     s[0] == (IPU_DESC_DONE | IPU_CQ_E_RESET)));
	/* LAUNCHES counts the launch that waited for its run, not the one
	 * refused before it (section 3). */
	r = s[0] == (IPU_DESC_DONE | IPU_CQ_E_DESC) ? 0 : 1;
	assert_int_equal(rd32(t[r], IPU_REG_LAUNCHES), 0);
	assert_int_equal(rd32(t[1 - r], IPU_REG_LAUNCHES), 1);
	eb_free(b);
	th_free(t[0]);
	th_free(t[1]);
}

static void test_the_device_enforces_the_deadline(void **state)
{
	struct th *t = ready();
	struct eb *b = forever(1);
	uint32_t size;

	(void)state;
	size = put_exe(t, b);
	launch(t, 0, size, b->exe.arena_size)->deadline_ms = 30;
	assert_true(th_kick_wait(t, CQ, 1));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_E_TIMEOUT);
	/* The timeout is logged, then the descriptor's error. */
	assert_int_equal(th_err_code(t, rd32(t, IPU_REG_ERR_COUNT) - 2),
			 IPU_ERR_CMD_TIMEOUT);
	assert_int_equal(th_last_err(t), IPU_ERR_DESC);
	/* The queue's default deadline applies when the descriptor says 0. */
	wr32(t, QREG(CQ, IPU_Q_DEADLINE_MS), 20);
	launch(t, 1, size, b->exe.arena_size);
	assert_true(th_kick_wait(t, CQ, 2));
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_E_TIMEOUT);
	/* And the queue goes on. */
	nop(t, 2);
	assert_true(th_kick_wait(t, CQ, 3));
	assert_int_equal(status(t, 2), IPU_DESC_DONE);
	eb_free(b);
	th_free(t);
}

static void test_a_hung_launch_is_released_by_soft_reset(void **state)
{
	struct th *t = ready();
	uint32_t y, size;
	struct eb *b = th_mlp(&y);
	unsigned int before;

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "hang_launch=1"), 0);
	size = put_exe(t, b);
	th_mem_write(t, ARENA_AT, b->arenas[0], b->exe.arena_size);
	launch(t, 0, size, b->exe.arena_size)->deadline_ms = 1;
	nop(t, 1);
	before = th_irqs(t, IPU_VEC_CMD);
	wr32(t, QREG(CQ, IPU_Q_TAIL), 2);
	wait_busy(t);
	assert_int_equal(rd32(t, QREG(CQ, IPU_Q_HEAD)), 0);
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_E_RESET);
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_E_RESET);
	assert_int_equal(th_irqs(t, IPU_VEC_CMD), before);
	assert_int_equal(rd32(t, QREG(CQ, IPU_Q_CTRL)), 0);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_READY);
	/* The next session works. */
	wr32(t, IPU_REG_IRQ_MASK, 0);
	th_ring(t, CQ, 16);
	launch(t, 0, size, b->exe.arena_size);
	assert_true(th_kick_wait(t, CQ, 1));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_OK);
	eb_free(b);
	th_free(t);
}

/* Wait until descriptor @idx is complete (DONE), bounded. */
static void wait_done(struct th *t, uint32_t idx)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;

	while (!(status(t, idx) & IPU_DESC_DONE)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
}

/*
 * @n launches of @b published while hold_launches is set: the queue took
 * the first (BUSY) and none ran. Returns the executable's size.
 */
static uint32_t held_launches(struct th *t, struct eb *b, uint32_t n)
{
	uint32_t size = put_exe(t, b), i;

	th_mem_write(t, ARENA_AT, b->arenas[0], b->exe.arena_size);
	for (i = 0; i < n; i++)
		launch(t, i, size, b->exe.arena_size);
	wr32(t, QREG(CQ, IPU_Q_TAIL), n);
	wait_busy(t);
	for (i = 0; i < n; i++)
		assert_int_equal(status(t, i), 0);
	return size;
}

/*
 * hold_launches: the queue takes the launches and runs none until the
 * fault is lifted; then both run, with the executor's result.
 */
static void test_held_launches_run_once_the_hold_is_lifted(void **state)
{
	struct th *t = ready();
	uint32_t y;
	struct eb *b = th_mlp(&y);

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "hold_launches=2"), -EINVAL);
	assert_int_equal(emu_dev_fault(t->dev, "hold_launches"), 0);
	held_launches(t, b, 2);
	assert_int_equal(rd32(t, IPU_REG_LAUNCHES), 0);
	assert_int_equal(emu_dev_fault(t->dev, "hold_launches=0"), 0);
	wait_done(t, 1);
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_OK);
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_OK);
	assert_int_equal(rd32(t, IPU_REG_LAUNCHES), 2);
	eb_free(b);
	th_free(t);
}

/* A soft reset ends a held launch (E_RESET); `clear` lifts the hold. */
static void test_a_held_launch_is_ended_by_soft_reset(void **state)
{
	struct th *t = ready();
	uint32_t y;
	struct eb *b = th_mlp(&y);

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "hold_launches=1"), 0);
	held_launches(t, b, 1);
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_E_RESET);
	/* Still held after the reset, until cleared. */
	wr32(t, IPU_REG_IRQ_MASK, 0);
	th_ring(t, CQ, 16);
	held_launches(t, b, 1);
	assert_int_equal(emu_dev_fault(t->dev, "clear"), 0);
	wait_done(t, 0);
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_OK);
	eb_free(b);
	th_free(t);
}

/*
 * ignore_reset=1: the next soft reset does nothing (RESET_COUNT stays, the
 * hung launch hangs on), the one after works; FLR releases the launch
 * whatever the fault says, as the driver's fallback needs.
 */
static void test_ignore_reset_leaves_a_hung_launch_to_flr(void **state)
{
	struct th *t = ready();
	uint32_t y, size;
	struct eb *b = th_mlp(&y);

	(void)state;
	assert_int_equal(emu_dev_fault(t->dev, "ignore_reset=1"), 0);
	assert_int_equal(emu_dev_fault(t->dev, "hang_launch=1"), 0);
	size = put_exe(t, b);
	th_mem_write(t, ARENA_AT, b->arenas[0], b->exe.arena_size);
	launch(t, 0, size, b->exe.arena_size);
	wr32(t, QREG(CQ, IPU_Q_TAIL), 1);
	wait_busy(t);
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(rd32(t, IPU_REG_RESET_COUNT), 0);
	assert_int_equal(rd32(t, QREG(CQ, IPU_Q_CTRL)), IPU_Q_CTRL_ENABLE);
	assert_int_equal(status(t, 0), 0);
	assert_int_equal(emu_dev_flr(t->dev), 0);
	/* FLR clears BME first: the driver completes the launch itself. */
	assert_int_equal(status(t, 0), 0);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_OFF);
	/* The fault was one-shot: the next soft reset works. */
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(rd32(t, IPU_REG_RESET_COUNT), 1);
	/* And a bad count is refused whole. */
	assert_int_equal(emu_dev_fault(t->dev, "ignore_reset=0"), -EINVAL);
	eb_free(b);
	th_free(t);
}

/* A device running forever() with no deadline; the program in *@bp. */
static struct th *run_forever(struct eb **bp)
{
	struct th *t = ready();
	struct eb *b = forever(1);

	wr32(t, QREG(CQ, IPU_Q_DEADLINE_MS), 0);	/* none */
	launch(t, 0, put_exe(t, b), b->exe.arena_size);
	wr32(t, QREG(CQ, IPU_Q_TAIL), 1);
	wait_running(t);
	*bp = b;
	return t;
}

static void test_flr_aborts_a_running_launch(void **state)
{
	struct eb *b;
	struct th *t = run_forever(&b);

	(void)state;
	assert_true(rd32(t, IPU_REG_POWER_MW) >= 150000);
	assert_int_equal(emu_dev_flr(t->dev), 0);
	/* Aborted, and no E_RESET word: an FLR writes no host memory. */
	assert_int_equal(status(t, 0), 0);
	assert_int_equal(rd32(t, IPU_REG_FW_STATUS), IPU_FW_STATE_OFF);
	assert_int_equal(rd32(t, IPU_REG_TEMP_MC), 40000);
	eb_free(b);
	th_free(t);
}

static void test_disabling_the_queue_cancels_the_launch(void **state)
{
	struct eb *b;
	struct th *t = run_forever(&b);

	(void)state;
	wr32(t, QREG(CQ, IPU_Q_CTRL), 0);
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_E_RESET);
	assert_int_equal(rd32(t, QREG(CQ, IPU_Q_HEAD)), 1);
	eb_free(b);
	th_free(t);
}

static void test_destroy_with_a_launch_running(void **state)
{
	struct eb *b;
	struct th *t = run_forever(&b);

	(void)state;
	th_free(t);
	eb_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nop_and_bad_opcodes),
		cmocka_unit_test(test_launch_computes_the_executor_bits),
		cmocka_unit_test(test_malformed_launches_fail_alone),
		cmocka_unit_test(test_reserved_flags_are_a_descriptor_error),
		cmocka_unit_test(test_replicas_on_two_ipus_run_together),
		cmocka_unit_test(test_a_replica_whose_partner_never_comes_times_out),
		cmocka_unit_test(test_a_replica_filed_twice_is_refused),
		cmocka_unit_test(test_the_device_enforces_the_deadline),
		cmocka_unit_test(test_a_hung_launch_is_released_by_soft_reset),
		cmocka_unit_test(test_held_launches_run_once_the_hold_is_lifted),
		cmocka_unit_test(test_a_held_launch_is_ended_by_soft_reset),
		cmocka_unit_test(test_ignore_reset_leaves_a_hung_launch_to_flr),
		cmocka_unit_test(test_flr_aborts_a_running_launch),
		cmocka_unit_test(test_disabling_the_queue_cancels_the_launch),
		cmocka_unit_test(test_destroy_with_a_launch_running),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
