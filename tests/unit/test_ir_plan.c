// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_ir_plan.c - the compiler's memory plan: no two tensors that are
 * live at once share bytes (loops included: what a loop body reads from
 * outside lives through every iteration), dead intermediates' memory is
 * reused, owned memory (variables, constants, stream slots) comes first,
 * everything is aligned and inside the arena; with one host transfer,
 * loaded and stored tensors sit on their slots and y = x shares one slot
 * (copy elision), and not where that would be unsound.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir_expect.h"

#include "exe_samples.h"
#include "ipu/exe.h"
#include "ipu/ir.h"

#define SHAPE(...) (const uint64_t[]){ __VA_ARGS__ }
#define NONE UINT32_MAX

struct live {
	uint32_t first, last;
};

/*
 * Live ranges, computed here independently of the compiler: from the
 * first instruction naming a tensor to the last, then stretched over any
 * loop body it is live into (to the body's end) or out of (from its start).
 */
static struct live *live_ranges(const struct ipu_exe *e)
{
	struct live *r = calloc(e->num_tensors + 1, sizeof(*r));
	bool changed = true;

	assert_non_null(r);
	for (uint32_t t = 0; t < e->num_tensors; t++)
		r[t] = (struct live){ NONE, 0 };
	for (uint32_t i = 0; i < e->num_instrs; i++)
		for (uint32_t k = 0; k < e->instrs[i].num_operands; k++) {
			struct live *x = &r[e->operands[e->instrs[i].first_operand + k]];

			if (x->first == NONE)
				x->first = i;
			x->last = i;
		}
	while (changed) {
		changed = false;
		for (uint32_t i = 0; i < e->num_instrs; i++) {
			uint32_t s = i + 1, end;

			if (e->instrs[i].op != IPU_OP_LOOP)
				continue;
			end = i + (uint32_t)e->params[e->instrs[i].first_param + 1];
			for (uint32_t t = 0; t < e->num_tensors; t++) {
				struct live *x = &r[t];

				if (x->first == NONE)
					continue;
				if (x->first < s && x->last >= s && x->last < end) {
					x->last = end;
					changed = true;
				}
				if (x->first > s && x->first <= end && x->last > end) {
					x->first = s;
					changed = true;
				}
			}
		}
	}
	return r;
}

static bool bytes_overlap(const struct ipu_exe_tensor *a,
			  const struct ipu_exe_tensor *b)
{
	return a->offset < b->offset + b->nbytes &&
	       b->offset < a->offset + a->nbytes;
}

/* The stream whose slot intermediate @t sits on (copy elision), or NONE. */
static uint32_t slot_of(const struct ipu_exe *e, uint32_t t)
{
	const struct ipu_exe_tensor *x = &e->tensors[t];

	if (x->kind != IPU_EXE_TENSOR_INTERMEDIATE)
		return NONE;
	for (uint32_t s = 0; s < e->num_streams; s++)
		if (e->streams[s].slots_offset == x->offset &&
		    e->streams[s].nbytes == x->nbytes)
			return s;
	return NONE;
}

/* The h2d stream whose slot starts at @offset, or NONE. */
static uint32_t h2d_at(const struct ipu_exe *e, uint64_t offset)
{
	for (uint32_t s = 0; s < e->num_streams; s++)
		if (e->streams[s].direction == IPU_EXE_STREAM_H2D &&
		    e->streams[s].slots_offset == offset)
			return s;
	return NONE;
}

/*
 * Slots are disjoint, but d2h streams' may be one h2d stream's
 * (forwarding), and then only with one slot per stream; at most one
 * tensor sits on a slot, and only with one slot per stream.
 */
static void check_slots(const struct ipu_exe *e)
{
	for (uint32_t a = 0; a < e->num_streams; a++) {
		const struct ipu_exe_stream *x = &e->streams[a];
		uint64_t xend = x->slots_offset + x->nbytes * e->num_host_transfers;

		for (uint32_t b = a + 1; b < e->num_streams; b++) {
			const struct ipu_exe_stream *y = &e->streams[b];
			uint64_t yend = y->slots_offset +
					y->nbytes * e->num_host_transfers;

			if (x->slots_offset >= yend || y->slots_offset >= xend)
				continue;
			assert_int_equal(e->num_host_transfers, 1);
			assert_int_equal(x->slots_offset, y->slots_offset);
			assert_int_equal(x->nbytes, y->nbytes);
			assert_false(x->direction == IPU_EXE_STREAM_H2D &&
				     y->direction == IPU_EXE_STREAM_H2D);
			assert_int_not_equal(h2d_at(e, x->slots_offset), NONE);
		}
	}
	for (uint32_t a = 0; a < e->num_tensors; a++) {
		if (slot_of(e, a) == NONE)
			continue;
		assert_int_equal(e->num_host_transfers, 1);
		for (uint32_t b = a + 1; b < e->num_tensors; b++)
			assert_true(slot_of(e, b) == NONE ||
				    e->tensors[b].offset != e->tensors[a].offset);
	}
}

static void check_plan(const struct ipu_exe *e)
{
	struct live *r = live_ranges(e);
	uint64_t owned_end = 0;

	for (uint32_t t = 0; t < e->num_tensors; t++) {
		const struct ipu_exe_tensor *x = &e->tensors[t];

		assert_int_equal(x->offset % IPU_IR_ALIGN, 0);
		assert_true(x->offset + x->nbytes <= e->arena_size);
		if (x->kind != IPU_EXE_TENSOR_INTERMEDIATE &&
		    x->offset + x->nbytes > owned_end)
			owned_end = x->offset + x->nbytes;
	}
	for (uint32_t s = 0; s < e->num_streams; s++) {
		const struct ipu_exe_stream *x = &e->streams[s];
		uint64_t end = x->slots_offset + x->nbytes * e->num_host_transfers;

		assert_int_equal(x->slots_offset % IPU_IR_ALIGN, 0);
		assert_true(end <= e->arena_size);
		if (end > owned_end)
			owned_end = end;
	}
	for (uint32_t a = 0; a < e->num_tensors; a++) {
		const struct ipu_exe_tensor *x = &e->tensors[a];

		if (x->kind != IPU_EXE_TENSOR_INTERMEDIATE || r[a].first == NONE)
			continue;
		/* Owned memory first: intermediates above all of it, but
		 * for those sitting on a slot. */
		assert_true(x->offset >= owned_end || slot_of(e, a) != NONE);
		for (uint32_t b = a + 1; b < e->num_tensors; b++) {
			const struct ipu_exe_tensor *y = &e->tensors[b];

			if (y->kind != IPU_EXE_TENSOR_INTERMEDIATE ||
			    r[b].first == NONE)
				continue;
			if (r[a].first > r[b].last || r[b].first > r[a].last)
				continue;
			if (bytes_overlap(x, y))
				fail_msg("tensors %u '%s' [%u, %u] and %u '%s' [%u, %u] are live together and share bytes",
					 a, x->name, r[a].first, r[a].last, b,
					 y->name, r[b].first, r[b].last);
		}
	}
	check_slots(e);
	free(r);
}

static struct ipu_exe *compile_ok(struct ipu_ir *ir)
{
	struct ipu_exe *e = ir_compile_ok(ir);

	check_plan(e);
	return e;
}

static uint64_t sum_of_tensors(const struct ipu_exe *e)
{
	uint64_t n = 0;

	for (uint32_t t = 0; t < e->num_tensors; t++)
		n += e->tensors[t].nbytes;
	for (uint32_t s = 0; s < e->num_streams; s++)
		n += e->streams[s].nbytes * e->num_host_transfers;
	return n;
}

/* Places the linear scan gave out: intermediates not on a slot. */
static uint32_t distinct_intermediate_offsets(const struct ipu_exe *e)
{
	uint32_t n = 0;

	for (uint32_t a = 0; a < e->num_tensors; a++) {
		bool seen = false;

		if (e->tensors[a].kind != IPU_EXE_TENSOR_INTERMEDIATE ||
		    slot_of(e, a) != NONE)
			continue;
		for (uint32_t b = 0; b < a && !seen; b++)
			seen = e->tensors[b].kind == IPU_EXE_TENSOR_INTERMEDIATE &&
			       e->tensors[b].offset == e->tensors[a].offset;
		n += !seen;
	}
	return n;
}

static void test_samples_have_sound_plans(void **state)
{
	(void)state;
	for (int s = 0; s < SAMPLE_COUNT_; s++) {
		struct ipu_exe *e;
		char msg[512];

		assert_int_equal(exe_sample(s, &e, msg, sizeof(msg)), 0);
		check_plan(e);
		ipu_exe_free(e);
	}
}

/* x -> relu -> relu -> ... (n of them) -> out; 1 KiB per tensor. */
static struct ipu_exe *long_chain(int n)
{
	struct ipu_ir *ir;
	ipu_stream in, out;
	ipu_tensor t;
	struct ipu_exe *e;

	assert_int_equal(ipu_ir_create("chain", &ir), 0);
	in = ipu_ir_h2d_stream(ir, "in", IPU_DTYPE_FLOAT32, 1, SHAPE(256));
	out = ipu_ir_d2h_stream(ir, "out", IPU_DTYPE_FLOAT32, 1, SHAPE(256));
	t = ipu_ir_host_load(ir, in, NULL);
	for (int i = 0; i < n; i++)
		t = ipu_ir_relu(ir, t);
	assert_int_equal(ipu_ir_host_store(ir, out, t), 0);
	e = compile_ok(ir);
	ipu_ir_destroy(ir);
	return e;
}

static void test_dead_intermediates_are_reused(void **state)
{
	struct ipu_exe *e = long_chain(100);

	(void)state;
	/* Each relu needs its input and its output: two places suffice
	 * (the first input and the last output sit on their slots). */
	assert_int_equal(e->num_tensors, 101);
	assert_int_equal(distinct_intermediate_offsets(e), 2);
	ipu_exe_free(e);
}

static void test_arena_smaller_than_sum_of_tensors(void **state)
{
	struct ipu_exe *e = long_chain(100);

	(void)state;
	/* 2 slots + 2 live tensors of 1 KiB, against 103 KiB in all. */
	assert_int_equal(e->arena_size, 4 * 1024);
	assert_true(e->arena_size * 25 < sum_of_tensors(e));
	ipu_exe_free(e);
}

/* y = sum of n exps of x, each kept until the end: no reuse possible. */
static void test_live_tensors_are_not_reused(void **state)
{
	struct ipu_ir *ir;
	ipu_tensor x, t[8], y;
	struct ipu_exe *e;
	static const float z[16];

	(void)state;
	assert_int_equal(ipu_ir_create("fan", &ir), 0);
	x = ipu_ir_constant(ir, "x", IPU_DTYPE_FLOAT32, 1, SHAPE(16), z);
	for (int i = 0; i < 8; i++)
		t[i] = ipu_ir_exp(ir, x);
	y = t[0];
	for (int i = 1; i < 8; i++)
		y = ipu_ir_add(ir, y, t[i]);
	(void)y;
	e = compile_ok(ir);
	/* All 8 exps are live when the first add runs. */
	for (int a = 1; a <= 8; a++)
		for (int b = a + 1; b <= 8; b++)
			assert_int_not_equal(e->tensors[a].offset,
					     e->tensors[b].offset);
	ipu_exe_free(e);
	ipu_ir_destroy(ir);
}

/*
 * x is loaded before a repeat whose body reads it at its start, then runs
 * a chain: the chain must never take x's bytes, in any iteration, while
 * the chain's own tensors reuse each other's memory.
 */
static void test_tensor_used_in_loop_lives_through_it(void **state)
{
	struct ipu_ir *ir;
	ipu_graph body;
	ipu_stream in;
	ipu_tensor x, a, b, t, o[1];
	struct ipu_exe *e;
	int xi = -1;

	(void)state;
	assert_int_equal(ipu_ir_create("loop", &ir), 0);
	in = ipu_ir_h2d_stream(ir, "in", IPU_DTYPE_FLOAT32, 1, SHAPE(64));
	x = ipu_ir_host_load(ir, in, "x");
	body = ipu_ir_create_graph(ir, "body");
	ipu_ir_push_graph(ir, body);
	a = ipu_ir_graph_input(ir, "acc", IPU_DTYPE_FLOAT32, 1, SHAPE(64));
	b = ipu_ir_graph_input(ir, "x_in", IPU_DTYPE_FLOAT32, 1, SHAPE(64));
	t = ipu_ir_add(ir, a, b);
	for (int i = 0; i < 20; i++)
		t = ipu_ir_tanh(ir, t);
	ipu_ir_graph_output(ir, t);
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_repeat(ir, body, 4, (ipu_tensor[]){ x, x }, 2,
				       o, 1), 0);
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "out", IPU_DTYPE_FLOAT32, 1,
						SHAPE(64)), o[0]);
	e = compile_ok(ir);
	for (uint32_t i = 0; i < e->num_tensors; i++)
		if (!strcmp(e->tensors[i].name, "x"))
			xi = (int)i;
	assert_true(xi >= 0);
	for (uint32_t i = 0; i < e->num_tensors; i++)
		if ((int)i != xi && !strncmp(e->tensors[i].name, "tanh.", 5))
			assert_false(bytes_overlap(&e->tensors[xi],
						   &e->tensors[i]));
	/* x, the carried acc, and two for the chain. */
	assert_true(distinct_intermediate_offsets(e) <= 5);
	ipu_exe_free(e);
	ipu_ir_destroy(ir);
}

static void test_owned_memory_comes_first(void **state)
{
	struct ipu_exe *e;
	char msg[512];

	(void)state;
	assert_int_equal(exe_sample(SAMPLE_TRAIN, &e, msg, sizeof(msg)), 0);
	/* check_plan() asserts the order; here the owned parts are dense. */
	check_plan(e);
	assert_int_equal(e->tensors[0].kind, IPU_EXE_TENSOR_VARIABLE);
	assert_int_equal(e->tensors[0].offset, 0);
	assert_int_equal(e->streams[0].slots_offset, 64);
	ipu_exe_free(e);
}

/* ---------------------------------------------------------------------- */
/* Copy elision                                                             */
/* ---------------------------------------------------------------------- */

/* An ir with @d host transfers and float32[256] streams "x" (in) and "y"
 * (out), 1 KiB a slot. */
static struct ipu_ir *xy_ir(uint32_t d, ipu_stream *x, ipu_stream *y)
{
	struct ipu_ir *ir;

	assert_int_equal(ipu_ir_create("elide", &ir), 0);
	assert_int_equal(ipu_ir_set_num_host_transfers(ir, d), 0);
	*x = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 1, SHAPE(256));
	*y = ipu_ir_d2h_stream(ir, "y", IPU_DTYPE_FLOAT32, 1, SHAPE(256));
	return ir;
}

static ipu_stream d2h(struct ipu_ir *ir, const char *name)
{
	return ipu_ir_d2h_stream(ir, name, IPU_DTYPE_FLOAT32, 1, SHAPE(256));
}

/* @t, renamed @name so that the executable's table shows it. */
static ipu_tensor named(struct ipu_ir *ir, ipu_tensor t, const char *name)
{
	assert_int_equal(ipu_ir_tensor_set_name(ir, t, name), 0);
	return t;
}

static struct ipu_exe *compile_free(struct ipu_ir *ir)
{
	struct ipu_exe *e = compile_ok(ir);

	ipu_ir_destroy(ir);
	return e;
}

static uint64_t slot_at(const struct ipu_exe *e, const char *stream)
{
	int s = ipu_exe_find_stream(e, stream);

	assert_true(s >= 0);
	return e->streams[s].slots_offset;
}

static uint64_t offset_of(const struct ipu_exe *e, const char *tensor)
{
	int t = ipu_exe_find_tensor(e, tensor);

	assert_true(t >= 0);
	return e->tensors[t].offset;
}

/* Intermediates sitting on a slot. */
static uint32_t on_slots(const struct ipu_exe *e)
{
	uint32_t n = 0;

	for (uint32_t t = 0; t < e->num_tensors; t++)
		n += slot_of(e, t) != NONE;
	return n;
}

/* y = x + x: x sits on its slot, the sum on y's; nothing else in the arena. */
static void test_load_and_store_in_place(void **state)
{
	ipu_stream x, y;
	struct ipu_ir *ir = xy_ir(1, &x, &y);
	ipu_tensor t = ipu_ir_host_load(ir, x, "a");
	struct ipu_exe *e;

	(void)state;
	assert_int_equal(ipu_ir_host_store(ir, y, ipu_ir_add(ir, t, t)), 0);
	e = compile_free(ir);
	assert_int_equal(offset_of(e, "a"), slot_at(e, "x"));
	assert_int_equal(e->tensors[1].offset, slot_at(e, "y"));
	assert_int_not_equal(slot_at(e, "x"), slot_at(e, "y"));
	assert_int_equal(e->arena_size, 2 * 1024);
	ipu_exe_free(e);
}

/* y = x: y's slot is x's, where the loaded tensor sits. */
static void test_identity_forwards_the_slot(void **state)
{
	ipu_stream x, y;
	struct ipu_ir *ir = xy_ir(1, &x, &y);
	struct ipu_exe *e;

	(void)state;
	assert_int_equal(ipu_ir_host_store(ir, y, ipu_ir_host_load(ir, x, "a")),
			 0);
	e = compile_free(ir);
	assert_int_equal(slot_at(e, "y"), slot_at(e, "x"));
	assert_int_equal(offset_of(e, "a"), slot_at(e, "x"));
	assert_int_equal(e->arena_size, 1024);
	ipu_exe_free(e);
}

/*
 * The loaded tensor stored unchanged to two streams and read by two ops:
 * both streams share its slot; relu(a) sits on "r"'s, and a * a, stored
 * twice, sits on neither "m1"'s nor "m2"'s.
 */
static void test_loaded_tensor_used_many_times(void **state)
{
	ipu_stream x, y;
	struct ipu_ir *ir = xy_ir(1, &x, &y);
	ipu_stream y2 = d2h(ir, "y2"), r = d2h(ir, "r");
	ipu_stream m1 = d2h(ir, "m1"), m2 = d2h(ir, "m2");
	ipu_tensor a = ipu_ir_host_load(ir, x, "a"), sq;
	struct ipu_exe *e;

	(void)state;
	assert_int_equal(ipu_ir_host_store(ir, y, a), 0);
	assert_int_equal(ipu_ir_host_store(ir, y2, a), 0);
	assert_int_equal(ipu_ir_host_store(ir, r, named(ir, ipu_ir_relu(ir, a),
							  "ra")), 0);
	sq = named(ir, ipu_ir_mul(ir, a, a), "sq");
	assert_int_equal(ipu_ir_host_store(ir, m1, sq), 0);
	assert_int_equal(ipu_ir_host_store(ir, m2, sq), 0);
	e = compile_free(ir);
	assert_int_equal(slot_at(e, "y"), slot_at(e, "x"));
	assert_int_equal(slot_at(e, "y2"), slot_at(e, "x"));
	assert_int_equal(offset_of(e, "a"), slot_at(e, "x"));
	assert_int_equal(offset_of(e, "ra"), slot_at(e, "r"));
	assert_int_not_equal(offset_of(e, "sq"), slot_at(e, "m1"));
	assert_int_not_equal(offset_of(e, "sq"), slot_at(e, "m2"));
	assert_int_equal(on_slots(e), 2);
	ipu_exe_free(e);
}

/* With two slots a stream, the slot a tensor would sit on moves with the
 * iteration: nothing is elided. */
static void test_no_elision_with_two_transfers(void **state)
{
	ipu_stream x, y;
	struct ipu_ir *ir = xy_ir(2, &x, &y);
	ipu_stream z = d2h(ir, "z");
	ipu_graph body = ipu_ir_create_graph(ir, "body");
	ipu_tensor a;
	struct ipu_exe *e;

	(void)state;
	ipu_ir_push_graph(ir, body);
	a = ipu_ir_host_load(ir, x, "a");
	assert_int_equal(ipu_ir_host_store(ir, y, a), 0);
	assert_int_equal(ipu_ir_host_store(ir, z, ipu_ir_add(ir, a, a)), 0);
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_repeat(ir, body, 2, NULL, 0, NULL, 0), 0);
	e = compile_free(ir);
	assert_int_equal(on_slots(e), 0);
	assert_int_not_equal(slot_at(e, "y"), slot_at(e, "x"));
	assert_int_equal(e->arena_size, 3 * 2048 + 2 * 1024);
	ipu_exe_free(e);
}

/* body(acc) = relu(acc), carried: the carried value is written before the
 * loop and at the end of each iteration, so it cannot sit on y's slot. */
static void test_carried_value_is_not_stored_in_place(void **state)
{
	ipu_stream x, y;
	struct ipu_ir *ir = xy_ir(1, &x, &y);
	ipu_graph body = ipu_ir_create_graph(ir, "body");
	ipu_tensor a = ipu_ir_host_load(ir, x, "a"), o[1];
	struct ipu_exe *e;

	(void)state;
	ipu_ir_push_graph(ir, body);
	ipu_ir_graph_output(ir, ipu_ir_relu(ir, ipu_ir_graph_input(ir, "acc",
			IPU_DTYPE_FLOAT32, 1, SHAPE(256))));
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_repeat(ir, body, 3, &a, 1, o, 1), 0);
	assert_int_equal(ipu_ir_host_store(ir, y, o[0]), 0);
	e = compile_free(ir);
	/* a is written once, by its load: it still sits on x. */
	assert_int_equal(offset_of(e, "a"), slot_at(e, "x"));
	assert_int_equal(on_slots(e), 1);
	assert_int_not_equal(slot_at(e, "y"), slot_at(e, "x"));
	ipu_exe_free(e);
}

/* A load and a store in a loop that runs once are elided like
 * straight-line code. */
static void test_store_in_loop_run_once_is_elided(void **state)
{
	ipu_stream x, y;
	struct ipu_ir *ir = xy_ir(1, &x, &y);
	ipu_graph body = ipu_ir_create_graph(ir, "body");
	struct ipu_exe *e;

	(void)state;
	ipu_ir_push_graph(ir, body);
	assert_int_equal(ipu_ir_host_store(ir, y, named(ir, ipu_ir_relu(ir,
			ipu_ir_host_load(ir, x, "a")), "ra")), 0);
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_repeat(ir, body, 1, NULL, 0, NULL, 0), 0);
	e = compile_free(ir);
	assert_int_equal(offset_of(e, "a"), slot_at(e, "x"));
	assert_int_equal(offset_of(e, "ra"), slot_at(e, "y"));
	ipu_exe_free(e);
}

/* x loaded twice (once in a loop that never runs, so within one
 * transfer): neither load is in place, so y = x is not forwarded. */
static void test_stream_loaded_twice_is_not_elided(void **state)
{
	ipu_stream x, y;
	struct ipu_ir *ir = xy_ir(1, &x, &y);
	ipu_graph body = ipu_ir_create_graph(ir, "body");
	struct ipu_exe *e;

	(void)state;
	ipu_ir_push_graph(ir, body);
	ipu_ir_host_load(ir, x, "b");
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_repeat(ir, body, 0, NULL, 0, NULL, 0), 0);
	assert_int_equal(ipu_ir_host_store(ir, y, ipu_ir_host_load(ir, x, "a")),
			 0);
	e = compile_free(ir);
	assert_int_not_equal(slot_at(e, "y"), slot_at(e, "x"));
	/* a, written by its load alone, may sit on y's slot instead. */
	assert_int_equal(offset_of(e, "a"), slot_at(e, "y"));
	assert_int_not_equal(offset_of(e, "b"), slot_at(e, "x"));
	ipu_exe_free(e);
}

/* A stored variable keeps its own memory; y keeps its slot. */
static void test_stored_variable_is_not_moved(void **state)
{
	ipu_stream x, y;
	struct ipu_ir *ir = xy_ir(1, &x, &y);
	ipu_tensor w = ipu_ir_variable(ir, "w", IPU_DTYPE_FLOAT32, 1,
				       SHAPE(256), NULL, NULL);
	struct ipu_exe *e;

	(void)state;
	ipu_ir_host_load(ir, x, "a");	/* x once per run, as compiling wants */
	assert_int_equal(ipu_ir_host_store(ir, y, w), 0);
	e = compile_free(ir);
	assert_int_equal(offset_of(e, "w"), 0);
	assert_int_not_equal(slot_at(e, "y"), 0);
	assert_int_equal(on_slots(e), 1);	/* a, on x's slot */
	assert_int_equal(offset_of(e, "a"), slot_at(e, "x"));
	ipu_exe_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_have_sound_plans),
		cmocka_unit_test(test_dead_intermediates_are_reused),
		cmocka_unit_test(test_arena_smaller_than_sum_of_tensors),
		cmocka_unit_test(test_live_tensors_are_not_reused),
		cmocka_unit_test(test_tensor_used_in_loop_lives_through_it),
		cmocka_unit_test(test_owned_memory_comes_first),
		cmocka_unit_test(test_load_and_store_in_place),
		cmocka_unit_test(test_identity_forwards_the_slot),
		cmocka_unit_test(test_loaded_tensor_used_many_times),
		cmocka_unit_test(test_no_elision_with_two_transfers),
		cmocka_unit_test(test_carried_value_is_not_stored_in_place),
		cmocka_unit_test(test_store_in_loop_run_once_is_elided),
		cmocka_unit_test(test_stream_loaded_twice_is_not_elided),
		cmocka_unit_test(test_stored_variable_is_not_moved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
