// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_gather.c - the PCIe IPU model's gather requests
 * (docs/hardware.md section 4.4): a program split across instances runs
 * each instance on its own IPU, the test playing the host that carries
 * the parts between them, and gets the bits of the unsplit program (one
 * replica per instance, and two on two IPUs asking through replica 0's);
 * replicas naming different instances refused; the
 * host's hostile answers (unknown, duplicate, not an errno, a failure),
 * a HEAD past TAIL, an overwritten own part; a host that never answers
 * (the deadline), a reset or a disabled ring under a waiting run; a
 * launch without its INSTANCE, a malformed INSTANCE, a staging area too
 * small, ring configuration checks and a ring the device cannot write;
 * the bad_gather fault's lies; the no_gather fault's device without the
 * extension.
 *
 * Waits poll the device's registers (TAIL, a status word), never a time.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_launch.h"

#define MEM		(16u << 20)
#define EXE_AT		0x0
#define ARENA_AT	0x100000u
#define STAGING_AT	0x200000u
#define STAGING_SIZE	0x10000u
#define CQ		IPU_QUEUE_CMD
#define GQ		3		/* the gather ring's slot in G_RING/G_WB */
#define GQ_ENTRIES	4
#define GREG(r)		(IPU_REG_GATHER + (r))

/* IPU @index: booted, command ring and gather ring enabled. */
static struct th *ready(unsigned int index)
{
	struct th *t = th_ready(MEM, index);

	wr64(t, GREG(IPU_GQ_BASE), GUEST_BASE + G_RING(GQ));
	wr32(t, GREG(IPU_GQ_SIZE), GQ_ENTRIES);
	wr64(t, GREG(IPU_GQ_WB_ADDR), GUEST_BASE + G_WB(GQ));
	wr32(t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
	return t;
}

/*
 * x (float32, 3 x 40) summed over @rf replicas into s, then s averaged
 * into m: two collectives. Built for @rf replicas (the reference runs it
 * so); put_split_exe() saves it split.
 */
static struct eb *allreduces(uint32_t rf, uint32_t *m)
{
	struct eb *b = eb_new(rf, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 40));
	uint32_t s = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 40));
	uint32_t r;

	*m = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(3, 40));
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(s, x), EB_I64(IPU_EXE_REDUCE_SUM, rf, 1));
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(*m, s),
	      EB_I64(IPU_EXE_REDUCE_MEAN, rf, 1));
	eb_alloc(b);
	for (r = 0; r < rf; r++)
		eb_fill(b, r, x, 40 + r, -5, 5);
	return b;
}

/* Save @b as instances of @irf replicas each into @t at EXE_AT. */
static uint32_t put_split_exe(struct th *t, struct eb *b, uint32_t irf)
{
	uint32_t len;

	b->exe.instance_replication_factor = irf;
	len = th_put_exe(t, EXE_AT, b);
	b->exe.instance_replication_factor = b->exe.replication_factor;
	return len;
}

static void put_instance(struct th *t, uint32_t idx, uint32_t index,
			 uint32_t count, uint64_t staging_size)
{
	struct ipu_cmd_desc *d = th_cmd_desc(t, idx);

	memset(d, 0, sizeof(*d));
	d->opcode = IPU_CQ_INSTANCE;
	d->replica = index;
	d->num_replicas = count;
	d->arena_addr = STAGING_AT;
	d->arena_size = staging_size;
}

static struct ipu_cmd_desc *put_launch(struct th *t, uint32_t idx,
				       uint32_t exe_size, uint64_t arena_size)
{
	struct ipu_cmd_desc *d = th_launch(t, idx, EXE_AT, exe_size, ARENA_AT,
					   arena_size);

	d->owner = 4321;
	return d;
}

static uint32_t status(struct th *t, uint32_t idx)
{
	return th_cmd_status(t, idx);
}

static uint32_t wait_done(struct th *t, uint32_t idx)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;

	while (!(status(t, idx) & IPU_DESC_DONE)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
	return status(t, idx);
}

/* Wait for a request at the ring's HEAD; a copy of it. */
static struct ipu_gather_req wait_request(struct th *t)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;
	uint32_t head = rd32(t, GREG(IPU_GQ_HEAD));

	while (rd32(t, GREG(IPU_GQ_TAIL)) == head) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
	return ((struct ipu_gather_req *)(t->h.mem + G_RING(GQ)))[head];
}

/*
 * Wait for the writeback to show TAIL: the device makes the entry, TAIL,
 * the writeback and the interrupt visible in that order (section 4.4), so
 * a host that saw TAIL move may read the writeback before it is written
 * (seen failing under ASan on a loaded machine: writeback TAIL 0, TAIL 1).
 */
static void wait_writeback(struct th *t)
{
	const struct ipu_gather_wb *wb =
		(const struct ipu_gather_wb *)(t->h.mem + G_WB(GQ));
	uint32_t tail = rd32(t, GREG(IPU_GQ_TAIL));
	time_t end = time(NULL) + WAIT_LIMIT_S;

	while (__atomic_load_n(&wb->tail, __ATOMIC_ACQUIRE) != tail) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
}

/* Take the request at HEAD: HEAD moves on. */
static void consume(struct th *t)
{
	wr32(t, GREG(IPU_GQ_HEAD), (rd32(t, GREG(IPU_GQ_HEAD)) + 1) % GQ_ENTRIES);
}

static void answer(struct th *t, uint32_t seq, uint32_t st)
{
	wr32(t, GREG(IPU_GQ_ANSWER_STATUS), st);
	wr32(t, GREG(IPU_GQ_ANSWER), seq);
}

/* Start instance @index of 2 on @t: INSTANCE, LAUNCH (deadline @ms). */
static void start(struct th *t, struct eb *b, uint32_t index, uint32_t ms)
{
	uint32_t size = put_split_exe(t, b, 1);

	th_mem_write(t, ARENA_AT, b->arenas[index], b->exe.arena_size);
	put_instance(t, 0, index, 2, STAGING_SIZE);
	put_launch(t, 1, size, b->exe.arena_size)->deadline_ms = ms;
	wr32(t, QREG(CQ, IPU_Q_TAIL), 2);
}

static void test_two_instances_give_the_unsplit_bits(void **state)
{
	struct th *t[2] = { ready(0), ready(1) };
	struct ipu_gather_req req[2];
	uint32_t m, i, j, c;
	struct eb *b = allreduces(2, &m);
	uint64_t asz = b->exe.arena_size;
	uint8_t *part, *back = malloc(asz);

	(void)state;
	for (i = 0; i < 2; i++)
		start(t[i], b, i, 0);
	assert_int_equal(eb_run(b), 0);	/* the reference: one instance */
	for (c = 0; c < 2; c++) {
		for (i = 0; i < 2; i++) {
			req[i] = wait_request(t[i]);
			assert_int_not_equal(req[i].seq, 0);
			assert_int_equal(req[i].index, i);
			assert_int_equal(req[i].count, 2);
			assert_int_equal(req[i].collective, c);
			assert_int_equal(req[i].owner, 4321);
			assert_int_equal(req[i].replica, 0);
			assert_int_equal(req[i].staging, STAGING_AT);
			assert_int_equal(req[i].bytes, 3 * 40 * 4);
			assert_int_equal(rd32(t[i], GREG(IPU_GQ_PENDING)), 1);
			wait_writeback(t[i]);
		}
		/* The host's transport: each instance's part to the other. */
		part = malloc(req[0].bytes);
		for (i = 0; i < 2; i++) {
			j = 1 - i;
			th_mem_read(t[i], STAGING_AT + i * req[i].bytes, part,
				    (uint32_t)req[i].bytes);
			th_mem_write(t[j], STAGING_AT + i * req[j].bytes, part,
				     (uint32_t)req[j].bytes);
		}
		free(part);
		for (i = 0; i < 2; i++) {
			consume(t[i]);
			answer(t[i], req[i].seq, 0);
		}
	}
	for (i = 0; i < 2; i++) {
		assert_int_equal(wait_done(t[i], 1), IPU_DESC_DONE | IPU_CQ_OK);
		assert_int_equal(status(t[i], 0), IPU_DESC_DONE | IPU_CQ_OK);
		th_mem_read(t[i], ARENA_AT, back, (uint32_t)asz);
		assert_memory_equal(back, b->arenas[i], asz);
		assert_int_equal(rd32(t[i], GREG(IPU_GQ_POSTED)), 2);
		assert_int_equal(rd32(t[i], GREG(IPU_GQ_PENDING)), 0);
		assert_int_equal(rd32(t[i], IPU_REG_ERR_COUNT), 0);
	}
	free(back);
	eb_free(b);
	th_free(t[0]);
	th_free(t[1]);
}

/*
 * One instance (index 1) on one IPU, the test playing the host of both:
 * the other instance's operand is instance 0's of the reference.
 */
struct solo {
	struct th *t;
	struct eb *b;
	uint32_t m;
	struct ipu_gather_req req;
};

static void solo_start(struct solo *s, uint32_t ms)
{
	s->t = ready(0);
	s->b = allreduces(2, &s->m);
	start(s->t, s->b, 1, ms);
	s->req = wait_request(s->t);
}

static void solo_free(struct solo *s)
{
	eb_free(s->b);
	th_free(s->t);
}

/* The staging part of instance 0 as the reference's replica 0 has it. */
static void solo_fill_other(struct solo *s, uint32_t tensor)
{
	const uint8_t *x = (const uint8_t *)s->b->arenas[0] +
			   s->b->tensors[tensor].offset;

	th_mem_write(s->t, STAGING_AT, x, (uint32_t)s->req.bytes);
}

static void test_unknown_and_duplicate_answers_are_logged_and_ignored(void **state)
{
	struct solo s;
	uint8_t junk[3 * 40 * 4];
	uint64_t asz;
	uint8_t *back;
	uint32_t errs;

	(void)state;
	solo_start(&s, 0);
	asz = s.b->exe.arena_size;
	assert_int_equal(eb_run(s.b), 0);
	/* x of the reference: tensor 0; the device's own part (index 1) is
	 * overwritten by a hostile host, and must not be taken back. */
	solo_fill_other(&s, 0);
	memset(junk, 0x5a, sizeof(junk));
	th_mem_write(s.t, STAGING_AT + s.req.bytes, junk, sizeof(junk));
	answer(s.t, s.req.seq + 7, 0);	/* no such request */
	assert_int_equal(th_last_err(s.t), IPU_ERR_GATHER);
	assert_int_equal(rd32(s.t, GREG(IPU_GQ_PENDING)), 1);
	assert_false(status(s.t, 1) & IPU_DESC_DONE);
	consume(s.t);
	answer(s.t, s.req.seq, 0);
	/* The second collective: s of replica 0 (tensor 1). */
	s.req = wait_request(s.t);
	assert_int_equal(s.req.collective, 1);
	solo_fill_other(&s, 1);
	consume(s.t);
	answer(s.t, s.req.seq, 0);
	assert_int_equal(wait_done(s.t, 1), IPU_DESC_DONE | IPU_CQ_OK);
	back = malloc(asz);
	th_mem_read(s.t, ARENA_AT, back, (uint32_t)asz);
	assert_memory_equal(back, s.b->arenas[1], asz);
	free(back);
	/* A duplicate of an answered request: logged, nothing else. */
	errs = rd32(s.t, IPU_REG_ERR_COUNT);
	answer(s.t, s.req.seq, 0);
	assert_int_equal(rd32(s.t, IPU_REG_ERR_COUNT), errs + 1);
	assert_int_equal(th_last_err(s.t), IPU_ERR_GATHER);
	solo_free(&s);
}

static void test_a_failed_or_garbled_answer_fails_the_launch(void **state)
{
	static const uint32_t answers[] = { 110 /* ETIMEDOUT */, 4096, ~0u };
	struct solo s;
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		solo_start(&s, 0);
		consume(s.t);
		answer(s.t, s.req.seq, answers[i]);
		assert_int_equal(wait_done(s.t, 1),
				 IPU_DESC_DONE | IPU_CQ_E_GATHER);
		assert_int_equal(rd32(s.t, GREG(IPU_GQ_PENDING)), 0);
		if (answers[i] > IPU_GQ_MAX_ERRNO)
			assert_int_equal(th_err_code(s.t, 0), IPU_ERR_GATHER);
		solo_free(&s);
	}
}

static void test_head_may_not_pass_tail(void **state)
{
	struct solo s;

	(void)state;
	solo_start(&s, 0);
	wr32(s.t, GREG(IPU_GQ_HEAD), 2);	/* one posted: 0 -> 1 only */
	assert_int_equal(th_last_err(s.t), IPU_ERR_BAD_TAIL);
	assert_int_equal(rd32(s.t, GREG(IPU_GQ_HEAD)), 0);
	wr32(s.t, GREG(IPU_GQ_HEAD), GQ_ENTRIES);
	assert_int_equal(rd32(s.t, GREG(IPU_GQ_HEAD)), 0);
	consume(s.t);
	assert_int_equal(rd32(s.t, GREG(IPU_GQ_HEAD)), 1);
	answer(s.t, s.req.seq, 1);
	assert_int_equal(wait_done(s.t, 1), IPU_DESC_DONE | IPU_CQ_E_GATHER);
	solo_free(&s);
}

static void test_a_host_that_never_answers_meets_the_deadline(void **state)
{
	struct solo s;

	(void)state;
	solo_start(&s, 50);
	assert_int_equal(wait_done(s.t, 1), IPU_DESC_DONE | IPU_CQ_E_TIMEOUT);
	assert_int_equal(rd32(s.t, GREG(IPU_GQ_PENDING)), 0);
	/* A late answer is stale. */
	answer(s.t, s.req.seq, 0);
	assert_int_equal(th_last_err(s.t), IPU_ERR_GATHER);
	solo_free(&s);
}

static void test_reset_or_disable_ends_a_waiting_gather(void **state)
{
	struct solo s;

	(void)state;
	solo_start(&s, 0);
	wr32(s.t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(status(s.t, 1), IPU_DESC_DONE | IPU_CQ_E_RESET);
	assert_int_equal(rd32(s.t, GREG(IPU_GQ_CTRL)), 0);
	assert_int_equal(rd32(s.t, GREG(IPU_GQ_PENDING)), 0);
	solo_free(&s);

	solo_start(&s, 0);
	wr32(s.t, GREG(IPU_GQ_CTRL), 0);
	assert_int_equal(wait_done(s.t, 1), IPU_DESC_DONE | IPU_CQ_E_GATHER);
	solo_free(&s);
}

/*
 * The host holds the device's write of the request (a client that
 * answers a DMA_WRITE late): a register read of the same IPU from another
 * thread is answered meanwhile, and nothing is posted yet (TAIL has not
 * moved); once the write goes through, the request is posted whole.
 */
static void test_a_held_request_holds_no_register_read(void **state)
{
	struct th *t = ready(0);
	struct ipu_gather_req req;
	struct eb *b = allreduces(2, &(uint32_t){ 0 });
	uint32_t v;

	(void)state;
	t->h.wgate = GUEST_BASE + G_RING(GQ);
	start(t, b, 1, 0);
	assert_true(th_gate_reached(t));
	assert_true(th_read_while_held(t, GREG(IPU_GQ_TAIL), &v));
	assert_int_equal(v, 0);
	th_gate_open(t);
	req = wait_request(t);
	assert_int_equal(req.index, 1);
	assert_int_equal(rd32(t, GREG(IPU_GQ_PENDING)), 1);
	wait_writeback(t);
	assert_int_equal(rd32(t, GREG(IPU_GQ_TAIL)), 1);
	/* A soft reset ends the run, as for any waiting request. */
	wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
	assert_int_equal(wait_done(t, 1), IPU_DESC_DONE | IPU_CQ_E_RESET);
	eb_free(b);
	th_free(t);
}

/* What two_replicas_per_instance() does wrong: nothing, or one of these. */
enum two_fault { TWO_OK, TWO_MISMATCH, TWO_FAILED_ANSWER };

/*
 * Instance 1 of 2, of 2 replicas on two IPUs (rf 4): only replica 0's IPU
 * asks, for both local operands; the test plays instance 0 with the
 * reference's replicas 0 and 1. With TWO_MISMATCH, replica 1 names
 * another instance and the run is refused; with TWO_FAILED_ANSWER, the
 * host fails the first gather.
 */
static void two_replicas_per_instance(enum two_fault fault)
{
	const bool mismatch = fault == TWO_MISMATCH;
	struct th *t[2] = { ready(0), ready(1) };
	struct ipu_gather_req req;
	uint32_t m, r, c, size;
	struct eb *b = allreduces(4, &m);
	uint64_t asz = b->exe.arena_size;
	uint8_t *back = malloc(asz);

	for (r = 0; r < 2; r++) {
		struct ipu_cmd_desc *d;

		size = put_split_exe(t[r], b, 2);
		th_mem_write(t[r], ARENA_AT, b->arenas[2 + r], asz);
		put_instance(t[r], 0, mismatch && r ? 0 : 1, 2, STAGING_SIZE);
		d = put_launch(t[r], 1, size, asz);
		d->replica = r;
		d->num_replicas = 2;
		d->group = 99;
		wr32(t[r], QREG(CQ, IPU_Q_TAIL), 2);
	}
	if (mismatch) {
		for (r = 0; r < 2; r++)
			assert_int_equal(wait_done(t[r], 1),
					 IPU_DESC_DONE | IPU_CQ_E_INVAL);
		goto out;
	}
	assert_int_equal(eb_run(b), 0);
	for (c = 0; c < 2; c++) {
		uint32_t tensor = c;	/* x, then s */
		uint64_t op = 3 * 40 * 4;

		req = wait_request(t[0]);
		assert_int_equal(req.index, 1);
		assert_int_equal(req.group, 99);
		assert_int_equal(req.replica, 0);
		assert_int_equal(req.bytes, 2 * op);
		for (r = 0; r < 2; r++)
			th_mem_write(t[0], STAGING_AT + r * op,
				     (uint8_t *)b->arenas[r] +
					     b->tensors[tensor].offset,
				     (uint32_t)op);
		consume(t[0]);
		if (fault == TWO_FAILED_ANSWER) {
			/* The host's transport failed (a dead peer): the
			 * request's replica fails with E_GATHER, and only it,
			 * so that a driver reporting each launch's own cause
			 * (the answered errno, section 4.4) sees the other
			 * as the consequence it is: E_CANCELED. */
			answer(t[0], req.seq, ETIMEDOUT);
			assert_int_equal(wait_done(t[0], 1),
					 IPU_DESC_DONE | IPU_CQ_E_GATHER);
			assert_int_equal(wait_done(t[1], 1),
					 IPU_DESC_DONE | IPU_CQ_E_CANCELED);
			goto out;
		}
		answer(t[0], req.seq, 0);
	}
	for (r = 0; r < 2; r++) {
		assert_int_equal(wait_done(t[r], 1), IPU_DESC_DONE | IPU_CQ_OK);
		th_mem_read(t[r], ARENA_AT, back, (uint32_t)asz);
		assert_memory_equal(back, b->arenas[2 + r], asz);
	}
	assert_int_equal(rd32(t[1], GREG(IPU_GQ_POSTED)), 0);
out:
	free(back);
	eb_free(b);
	th_free(t[0]);
	th_free(t[1]);
}

static void test_two_replicas_per_instance_ask_through_replica_0(void **state)
{
	(void)state;
	two_replicas_per_instance(TWO_OK);
}

static void test_a_failed_gather_cancels_the_other_replicas(void **state)
{
	(void)state;
	two_replicas_per_instance(TWO_FAILED_ANSWER);
}

static void test_replicas_naming_other_instances_are_refused(void **state)
{
	(void)state;
	two_replicas_per_instance(TWO_MISMATCH);
}

/*
 * A host that answers but does not take its requests: with a ring of 2
 * (one usable entry) the second collective waits for HEAD, then goes on.
 */
static void test_a_full_ring_holds_the_run_until_head_moves(void **state)
{
	struct solo s;
	time_t end;

	(void)state;
	s.t = th_ready(MEM, 0);
	wr64(s.t, GREG(IPU_GQ_BASE), GUEST_BASE + G_RING(GQ));
	wr32(s.t, GREG(IPU_GQ_SIZE), 2);
	wr32(s.t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
	s.b = allreduces(2, &s.m);
	start(s.t, s.b, 1, 0);
	s.req = wait_request(s.t);
	answer(s.t, s.req.seq, 0);		/* HEAD left where it is */
	end = time(NULL) + WAIT_LIMIT_S;
	while (rd32(s.t, GREG(IPU_GQ_PENDING)) != 0) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
	/* Wherever the run is, it cannot post: the ring is full. */
	assert_int_equal(rd32(s.t, GREG(IPU_GQ_TAIL)), 1);
	assert_false(status(s.t, 1) & IPU_DESC_DONE);
	consume(s.t);
	s.req = wait_request(s.t);
	assert_int_equal(s.req.collective, 1);
	assert_int_equal(rd32(s.t, GREG(IPU_GQ_TAIL)), 0);
	consume(s.t);
	answer(s.t, s.req.seq, 0);
	assert_int_equal(wait_done(s.t, 1), IPU_DESC_DONE | IPU_CQ_OK);
	solo_free(&s);
}

/*
 * Answers racing the deadline: each launch ends OK or E_TIMEOUT, never
 * anything else, and leaves nothing pending; a late answer is stale.
 */
static void test_answers_racing_the_deadline(void **state)
{
	struct th *t = ready(0);
	uint32_t m, i, st, size;
	struct eb *b = allreduces(2, &m);
	struct ipu_gather_req req;
	uint32_t tail = 0;

	(void)state;
	size = put_split_exe(t, b, 1);
	for (i = 0; i < 8; i++) {
		th_mem_write(t, ARENA_AT, b->arenas[1], b->exe.arena_size);
		put_instance(t, tail % 16, 1, 2, STAGING_SIZE);
		put_launch(t, (tail + 1) % 16, size, b->exe.arena_size)->deadline_ms =
			1 + i % 4;
		tail = (tail + 2) % 16;
		wr32(t, QREG(CQ, IPU_Q_TAIL), tail);
		/* Answer every request the run posts until it ends. */
		while (!(status(t, (tail + 15) % 16) & IPU_DESC_DONE)) {
			if (rd32(t, GREG(IPU_GQ_TAIL)) != rd32(t, GREG(IPU_GQ_HEAD))) {
				req = wait_request(t);
				consume(t);
				answer(t, req.seq, 0);
			}
			sched_yield();
		}
		st = status(t, (tail + 15) % 16);
		assert_true(st == (IPU_DESC_DONE | IPU_CQ_OK) ||
			    st == (IPU_DESC_DONE | IPU_CQ_E_TIMEOUT));
		assert_int_equal(rd32(t, GREG(IPU_GQ_PENDING)), 0);
	}
	eb_free(b);
	th_free(t);
}

static void test_launches_the_device_refuses(void **state)
{
	struct th *t = ready(0);
	uint32_t m, size;
	struct eb *b = allreduces(2, &m);
	uint64_t asz = b->exe.arena_size;

	(void)state;
	size = put_split_exe(t, b, 1);
	put_launch(t, 0, size, asz)->flags = 0;		/* no INSTANCE */
	put_instance(t, 1, 2, 2, STAGING_SIZE);		/* index >= count */
	put_instance(t, 2, 0, 0, STAGING_SIZE);		/* no instances */
	put_instance(t, 3, 0, 2, 0);			/* no staging */
	put_instance(t, 4, 0, 2, STAGING_SIZE);
	th_cmd_desc(t, 4)->arena_addr = STAGING_AT + 8;	/* unaligned */
	put_instance(t, 5, 0, 2, MEM);			/* past the end */
	put_instance(t, 6, 0, 2, STAGING_SIZE);
	th_cmd_desc(t, 6)->group = 1;			/* not an INSTANCE's */
	put_instance(t, 7, 0, 2, 64);			/* too small */
	put_launch(t, 8, size, asz)->flags = 0;
	put_instance(t, 9, 0, 4, STAGING_SIZE);		/* 4 x 1 != 2 */
	put_launch(t, 10, size, asz);
	assert_true(th_kick_wait(t, CQ, 11));
	assert_int_equal(status(t, 0), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_E_DESC);
	assert_int_equal(status(t, 2), IPU_DESC_DONE | IPU_CQ_E_DESC);
	assert_int_equal(status(t, 3), IPU_DESC_DONE | IPU_CQ_E_DESC);
	assert_int_equal(status(t, 4), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	assert_int_equal(status(t, 5), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	assert_int_equal(status(t, 6), IPU_DESC_DONE | IPU_CQ_E_DESC);
	assert_int_equal(status(t, 7), IPU_DESC_DONE);
	assert_int_equal(status(t, 8), IPU_DESC_DONE | IPU_CQ_E_GATHER);
	assert_int_equal(status(t, 9), IPU_DESC_DONE);
	assert_int_equal(status(t, 10), IPU_DESC_DONE | IPU_CQ_E_INVAL);
	assert_int_equal(rd32(t, GREG(IPU_GQ_POSTED)), 0);
	eb_free(b);
	th_free(t);
}

static void test_no_ring_or_an_unwritable_ring_fails_the_gather(void **state)
{
	struct th *t = ready(0);
	uint32_t m, size;
	struct eb *b = allreduces(2, &m);

	(void)state;
	wr32(t, GREG(IPU_GQ_CTRL), 0);
	size = put_split_exe(t, b, 1);
	put_instance(t, 0, 0, 2, STAGING_SIZE);
	put_launch(t, 1, size, b->exe.arena_size);
	assert_true(th_kick_wait(t, CQ, 2));
	assert_int_equal(status(t, 1), IPU_DESC_DONE | IPU_CQ_E_GATHER);
	/* A ring outside every DMA mapping: the ring halts. */
	wr64(t, GREG(IPU_GQ_BASE), 0x1000);
	wr32(t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
	put_instance(t, 2, 0, 2, STAGING_SIZE);
	put_launch(t, 3, size, b->exe.arena_size);
	assert_true(th_kick_wait(t, CQ, 4));
	assert_int_equal(status(t, 3), IPU_DESC_DONE | IPU_CQ_E_GATHER);
	assert_true(rd32(t, GREG(IPU_GQ_STATUS)) & IPU_Q_STATUS_HALTED);
	assert_true(rd32(t, IPU_REG_STATUS) & IPU_STATUS_QUEUE_ERROR);
	eb_free(b);
	th_free(t);
}

static void test_ring_configuration_is_checked(void **state)
{
	struct th *t = ready(0);

	(void)state;
	assert_true(rd32(t, IPU_REG_CAPS) & IPU_CAPS_GATHER);
	assert_int_equal(rd32(t, GREG(IPU_GQ_STATUS)), IPU_Q_STATUS_ENABLED);
	wr64(t, GREG(IPU_GQ_BASE), 0);			/* enabled: busy */
	assert_int_equal(th_last_err(t), IPU_ERR_QUEUE_BUSY);
	assert_int_equal(rd64(t, GREG(IPU_GQ_BASE)), GUEST_BASE + G_RING(GQ));
	wr32(t, GREG(IPU_GQ_CTRL), 0);
	wr32(t, GREG(IPU_GQ_SIZE), 3);			/* not a power of 2 */
	wr32(t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
	assert_int_equal(th_last_err(t), IPU_ERR_RING_CONFIG);
	assert_int_equal(rd32(t, GREG(IPU_GQ_CTRL)), 0);
	wr32(t, GREG(IPU_GQ_SIZE), 4);
	wr64(t, GREG(IPU_GQ_BASE), GUEST_BASE + 8);	/* unaligned */
	wr32(t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
	assert_int_equal(rd32(t, GREG(IPU_GQ_CTRL)), 0);
	wr64(t, GREG(IPU_GQ_BASE), GUEST_BASE);
	wr64(t, GREG(IPU_GQ_WB_ADDR), GUEST_BASE + 4);	/* unaligned */
	wr32(t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
	assert_int_equal(rd32(t, GREG(IPU_GQ_CTRL)), 0);
	wr32(t, GREG(IPU_GQ_HEAD), 1);			/* disabled: ignored */
	assert_int_equal(rd32(t, GREG(IPU_GQ_HEAD)), 0);
	th_free(t);
}

/*
 * The bad_gather fault (a device that lies, for the driver's tests): the
 * next request names another owner, a part no staging area holds, or
 * another staging area; its answer is awaited as any other's, and the
 * run's next request tells the truth. An unknown mode is refused.
 */
static void test_bad_gather_lies_once(void **state)
{
	static const char *const modes[] = {
		"bad_gather=owner", "bad_gather=bytes", "bad_gather=staging",
	};
	struct ipu_gather_req req;
	struct eb *b;
	struct th *t;
	uint32_t m, i;

	(void)state;
	for (i = 0; i < 3; i++) {
		t = ready(0);
		b = allreduces(2, &m);
		assert_int_not_equal(emu_dev_fault(t->dev, "bad_gather=tail"), 0);
		assert_int_not_equal(emu_dev_fault(t->dev, "bad_gather"), 0);
		assert_int_equal(emu_dev_fault(t->dev, modes[i]), 0);
		start(t, b, 1, 0);
		req = wait_request(t);
		assert_int_equal(req.collective, 0);
		assert_int_equal(req.owner, i == 0 ? 4322 : 4321);
		assert_true(req.bytes == (i == 1 ? UINT64_MAX : 3 * 40 * 4));
		assert_int_equal(req.staging, STAGING_AT + (i == 2 ? 64 : 0));
		/* A host that does not check answers it: the run goes on. */
		consume(t);
		answer(t, req.seq, 0);
		req = wait_request(t);
		assert_int_equal(req.collective, 1);
		assert_int_equal(req.owner, 4321);
		assert_int_equal(req.bytes, 3 * 40 * 4);
		assert_int_equal(req.staging, STAGING_AT);
		consume(t);
		answer(t, req.seq, EPROTO);
		assert_int_equal(wait_done(t, 1), IPU_DESC_DONE | IPU_CQ_E_GATHER);
		eb_free(b);
		th_free(t);
	}
}

/* Every register of the gather ring reads 0 (none there, or at reset). */
static void assert_ring_reads_0(struct th *t)
{
	static const uint32_t regs[] = {
		IPU_GQ_BASE, IPU_GQ_SIZE, IPU_GQ_CTRL, IPU_GQ_HEAD,
		IPU_GQ_TAIL, IPU_GQ_WB_ADDR, IPU_GQ_STATUS, IPU_GQ_POSTED,
		IPU_GQ_ANSWER_STATUS, IPU_GQ_PENDING,
	};
	unsigned int i;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		assert_int_equal(rd32(t, GREG(regs[i])), 0);
}

/* Program and enable the ring as ready() does. */
static void enable_ring(struct th *t)
{
	wr64(t, GREG(IPU_GQ_BASE), GUEST_BASE + G_RING(GQ));
	wr32(t, GREG(IPU_GQ_SIZE), GQ_ENTRIES);
	wr64(t, GREG(IPU_GQ_WB_ADDR), GUEST_BASE + G_WB(GQ));
	wr32(t, GREG(IPU_GQ_CTRL), IPU_Q_CTRL_ENABLE);
}

/* INSTANCE and LAUNCH of instance 1 of 2 at slots @slot, @slot + 1. */
static void start_at(struct th *t, struct eb *b, uint32_t slot)
{
	uint32_t size = put_split_exe(t, b, 1);

	th_mem_write(t, ARENA_AT, b->arenas[1], b->exe.arena_size);
	put_instance(t, slot, 1, 2, STAGING_SIZE);
	put_launch(t, slot + 1, size, b->exe.arena_size);
	wr32(t, QREG(CQ, IPU_Q_TAIL), slot + 2);
}

/*
 * The no_gather fault (a device without the extension, for the driver's
 * tests): CAPS loses GATHER, the run waiting for its answer fails
 * (E_GATHER), the ring's registers read 0 and ignore writes (no error
 * logged: they are unassigned offsets), and the next split run fails its
 * first gather with nothing posted. Lifted (no_gather=0, or clear), the
 * ring is at its reset values and, programmed again, serves requests.
 */
static void test_no_gather_is_a_device_without_the_extension(void **state)
{
	static const char *const lifts[] = { "no_gather=0", "clear" };
	struct ipu_gather_req req;
	uint32_t m, i, errs;
	struct eb *b;
	struct th *t;

	(void)state;
	for (i = 0; i < 2; i++) {
		t = ready(0);
		b = allreduces(2, &m);
		assert_int_not_equal(emu_dev_fault(t->dev, "no_gather=2"), 0);
		assert_int_not_equal(emu_dev_fault(t->dev, "no_gather=yes"), 0);
		assert_true(rd32(t, IPU_REG_CAPS) & IPU_CAPS_GATHER);
		start_at(t, b, 0);
		wait_request(t);
		assert_int_equal(emu_dev_fault(t->dev, i ? "no_gather" :
						       "no_gather=1"), 0);
		assert_int_equal(rd32(t, IPU_REG_CAPS),
				 IPU_CAPS_DMA | IPU_CAPS_CMDQ |
					 IPU_CAPS_TELEMETRY |
					 IPU_CAPS_SOFT_RESET |
					 IPU_CAPS_REPLICAS | IPU_CAPS_PROFILE |
					 IPU_NUM_QUEUES << IPU_CAPS_NQUEUES_SHIFT |
					 IPU_MSIX_VECTORS << IPU_CAPS_NVEC_SHIFT);
		assert_int_equal(wait_done(t, 1),
				 IPU_DESC_DONE | IPU_CQ_E_GATHER);
		errs = rd32(t, IPU_REG_ERR_COUNT);
		assert_ring_reads_0(t);
		enable_ring(t);
		wr32(t, GREG(IPU_GQ_HEAD), 1);
		answer(t, 1, 0);
		assert_ring_reads_0(t);
		assert_int_equal(rd32(t, IPU_REG_ERR_COUNT), errs);
		/* Set again: nothing changes. */
		assert_int_equal(emu_dev_fault(t->dev, "no_gather=1"), 0);
		start_at(t, b, 2);
		assert_int_equal(wait_done(t, 3),
				 IPU_DESC_DONE | IPU_CQ_E_GATHER);
		assert_int_equal(status(t, 2), IPU_DESC_DONE | IPU_CQ_OK);
		assert_ring_reads_0(t);

		assert_int_equal(emu_dev_fault(t->dev, lifts[i]), 0);
		assert_true(rd32(t, IPU_REG_CAPS) & IPU_CAPS_GATHER);
		assert_ring_reads_0(t);
		enable_ring(t);
		assert_int_equal(rd32(t, GREG(IPU_GQ_STATUS)),
				 IPU_Q_STATUS_ENABLED);
		start_at(t, b, 4);
		req = wait_request(t);
		assert_int_equal(req.collective, 0);
		consume(t);
		answer(t, req.seq, EPROTO);
		assert_int_equal(wait_done(t, 5),
				 IPU_DESC_DONE | IPU_CQ_E_GATHER);
		assert_int_equal(rd32(t, GREG(IPU_GQ_POSTED)), 1);
		eb_free(b);
		th_free(t);
	}
}

/* Wait until @reg has any of @bits, or @alt's word is non-zero. */
static void wait_bits_or(struct th *t, uint32_t reg, uint32_t bits,
			 const uint32_t *alt)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;

	while (!(rd32(t, reg) & bits) &&
	       !__atomic_load_n(alt, __ATOMIC_SEQ_CST)) {
		assert_true(time(NULL) < end);
		sched_yield();
	}
}

/*
 * Bus Master Enable clears while the launch is fetched: its gather request is
 * not written (the ring halts with ERR_BUS_MASTER, info 3 = the gather
 * ring), and the launch that then fails gets no status word either (the
 * command queue halts too). Nothing reaches host memory.
 */
static void test_bme_clear_refuses_the_gather_ring(void **state)
{
	struct th *t = ready(0);
	struct ipu_gather_req zero = { 0 };
	uint32_t m, n, i, at;
	struct eb *b = allreduces(2, &m);
	const uint32_t *slot = (const uint32_t *)(t->h.mem + G_RING(GQ));
	bool logged = false;

	(void)state;
	t->h.gate = GUEST_BASE + G_RING(CQ) + sizeof(struct ipu_cmd_desc);
	start(t, b, 0, 0);
	assert_true(th_gate_reached(t));
	cfgw16(t, 0x04, 0x0002);
	th_gate_open(t);
	wait_bits_or(t, GREG(IPU_GQ_STATUS), IPU_Q_STATUS_HALTED, slot);
	assert_memory_equal(t->h.mem + G_RING(GQ), &zero, sizeof(zero));
	assert_int_equal(rd32(t, GREG(IPU_GQ_TAIL)), 0);
	wait_bits_or(t, QREG(CQ, IPU_Q_STATUS), IPU_Q_STATUS_HALTED,
		     &th_cmd_desc(t, 1)->status);
	assert_int_equal(status(t, 1), 0);
	n = rd32(t, IPU_REG_ERR_COUNT);
	for (i = 0; i < n && i < IPU_ERR_LOG_LEN; i++) {
		at = IPU_REG_ERR_LOG + IPU_ERR_ENTRY_SIZE * i;
		if (rd32(t, at) == IPU_ERR_BUS_MASTER &&
		    rd32(t, at + 4) == IPU_NUM_QUEUES &&
		    rd32(t, at + 8) == (uint32_t)(GUEST_BASE + G_RING(GQ)))
			logged = true;
	}
	assert_true(logged);
	assert_true(rd32(t, IPU_REG_STATUS) & IPU_STATUS_QUEUE_ERROR);
	eb_free(b);
	th_free(t);
}

/*
 * emu_dev_rings_enabled(), which the control socket's status reports
 * (rings=): the command and gather rings after ready(), none after FLR.
 */
static void test_rings_enabled_names_the_gather_ring(void **state)
{
	struct th *t = ready(0);

	(void)state;
	assert_int_equal(emu_dev_rings_enabled(t->dev),
			 1u << CQ | 1u << IPU_NUM_QUEUES);
	assert_int_equal(emu_dev_flr(t->dev), 0);
	assert_int_equal(emu_dev_rings_enabled(t->dev), 0);
	assert_int_equal(emu_dev_rings_enabled(NULL), 0);
	th_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_instances_give_the_unsplit_bits),
		cmocka_unit_test(test_unknown_and_duplicate_answers_are_logged_and_ignored),
		cmocka_unit_test(test_a_failed_or_garbled_answer_fails_the_launch),
		cmocka_unit_test(test_head_may_not_pass_tail),
		cmocka_unit_test(test_a_host_that_never_answers_meets_the_deadline),
		cmocka_unit_test(test_reset_or_disable_ends_a_waiting_gather),
		cmocka_unit_test(test_a_held_request_holds_no_register_read),
		cmocka_unit_test(test_two_replicas_per_instance_ask_through_replica_0),
		cmocka_unit_test(test_a_failed_gather_cancels_the_other_replicas),
		cmocka_unit_test(test_replicas_naming_other_instances_are_refused),
		cmocka_unit_test(test_a_full_ring_holds_the_run_until_head_moves),
		cmocka_unit_test(test_answers_racing_the_deadline),
		cmocka_unit_test(test_launches_the_device_refuses),
		cmocka_unit_test(test_no_ring_or_an_unwritable_ring_fails_the_gather),
		cmocka_unit_test(test_ring_configuration_is_checked),
		cmocka_unit_test(test_bad_gather_lies_once),
		cmocka_unit_test(test_no_gather_is_a_device_without_the_extension),
		cmocka_unit_test(test_bme_clear_refuses_the_gather_ring),
		cmocka_unit_test(test_rings_enabled_names_the_gather_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
