// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_ir_run.c - programs built with the IR, compiled, and run by the
 * firmware executor (ipufw_run) on plain malloc'ed arenas, with weights and
 * stream slots filled by hand the way a session would; results checked
 * against plain C. Covers repeats with host transfers, calls, carried
 * values, variable updates, replication with groupings and all-reduce,
 * and copy elision (tensors on their stream slots, y = x sharing one).
 */
#include <errno.h>
#include <math.h>
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
#include "ipu/firmware.h"
#include "ipu/ir.h"

struct run {
	struct ipu_exe *e;
	struct ipufw_executor *ex;
	uint8_t **arena;
	uint32_t replicas;
};

/* Arenas for every replica, holding the initial weights (S17). */
static struct run start(struct ipu_exe *e)
{
	struct run r = { .e = e, .replicas = e->replication_factor };

	assert_int_equal(ipufw_executor_create(r.replicas, &r.ex), 0);
	r.arena = calloc(r.replicas, sizeof(*r.arena));
	assert_non_null(r.arena);
	for (uint32_t k = 0; k < r.replicas; k++) {
		r.arena[k] = calloc(1, e->arena_size ? e->arena_size : 1);
		assert_non_null(r.arena[k]);
		for (uint32_t i = 0; i < e->num_tensors; i++) {
			const struct ipu_exe_tensor *t = &e->tensors[i];
			uint32_t g = 0;

			if (t->kind == IPU_EXE_TENSOR_INTERMEDIATE ||
			    (t->flags & IPU_EXE_TENSOR_MMAP))
				continue;
			if (t->kind == IPU_EXE_TENSOR_VARIABLE)
				g = ipu_exe_replica_group(t->group_size,
							  t->group_stride, k);
			memcpy(r.arena[k] + t->offset,
			       e->data + t->data_offset + g * t->nbytes,
			       t->nbytes);
		}
	}
	return r;
}

static void finish(struct run *r)
{
	for (uint32_t k = 0; k < r->replicas; k++)
		free(r->arena[k]);
	free(r->arena);
	ipufw_executor_destroy(r->ex);
	ipu_exe_free(r->e);
}

static void *slot(struct run *r, const char *stream, uint32_t iter,
		  uint32_t replica)
{
	int s = ipu_exe_find_stream(r->e, stream);

	assert_true(s >= 0);
	assert_true(iter < r->e->num_host_transfers);
	return r->arena[replica] + r->e->streams[s].slots_offset +
	       iter * r->e->streams[s].nbytes;
}

static void *tensor(struct run *r, const char *name, uint32_t replica)
{
	int t = ipu_exe_find_tensor(r->e, name);

	assert_true(t >= 0);
	return r->arena[replica] + r->e->tensors[t].offset;
}

static void launch(struct run *r)
{
	char msg[512];
	int ret = ipufw_run(r->ex, r->e, (void *const *)r->arena,
			    r->e->arena_size, msg, sizeof(msg));

	if (ret)
		fail_msg("ipufw_run: %d: %s", ret, msg);
}

/* Compile @ir and free it: the executable is all a run needs. */
static struct ipu_exe *compile_ok(struct ipu_ir *ir)
{
	struct ipu_exe *e = ir_compile_ok(ir);

	ipu_ir_destroy(ir);
	return e;
}

static void assert_close(const float *got, const float *want, size_t n,
			 float tol)
{
	for (size_t i = 0; i < n; i++)
		if (!(fabsf(got[i] - want[i]) <= tol))
			fail_msg("element %zu: got %g, want %g", i, got[i],
				 want[i]);
}

/* ---------------------------------------------------------------------- */

static void test_mlp_matches_reference(void **state)
{
	static const float x[2][4] = { { 1, -2, 0.5f, 3 }, { -1, 0, 2, -0.25f } };
	float want[2][3];
	struct ipu_exe *e;
	struct run r;
	char msg[512];
	const float *w;

	(void)state;
	assert_int_equal(exe_sample(SAMPLE_MLP, &e, msg, sizeof(msg)), 0);
	r = start(e);
	w = tensor(&r, "w", 0);
	for (int i = 0; i < 2; i++) {
		float h[3], max = -INFINITY, sum = 0;

		for (int j = 0; j < 3; j++) {
			h[j] = 0;
			for (int k = 0; k < 4; k++)
				h[j] += x[i][k] * w[k * 3 + j];
			h[j] = 0.5f * h[j] * (1 + erff(h[j] / sqrtf(2)));
			max = fmaxf(max, h[j]);
		}
		for (int j = 0; j < 3; j++)
			sum += want[i][j] = expf(h[j] - max);
		for (int j = 0; j < 3; j++)
			want[i][j] /= sum;
	}
	memcpy(slot(&r, "x", 0, 0), x, sizeof(x));
	launch(&r);
	/* GELU's tanh form and its erf form differ by < 1e-3. */
	assert_close(slot(&r, "probs", 0, 0), &want[0][0], 6, 1e-3f);
	finish(&r);
}

static void test_repeat_reads_and_writes_every_transfer(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph body = ipu_ir_create_graph(ir, "body");
	ipu_stream in, out;
	ipu_tensor acc, o[1];
	struct run r;
	float sum[3] = { 0 };
	static const float zero[3];

	(void)state;
	ipu_ir_set_num_host_transfers(ir, 4);
	in = ipu_ir_h2d_stream(ir, "in", IPU_DTYPE_FLOAT32, 1, SHAPE(3));
	out = ipu_ir_d2h_stream(ir, "out", IPU_DTYPE_FLOAT32, 1, SHAPE(3));
	ipu_ir_push_graph(ir, body);
	acc = ipu_ir_graph_input(ir, "acc", IPU_DTYPE_FLOAT32, 1, SHAPE(3));
	acc = ipu_ir_add(ir, acc, ipu_ir_host_load(ir, in, NULL));
	ipu_ir_host_store(ir, out, acc);
	ipu_ir_graph_output(ir, acc);
	ipu_ir_pop_graph(ir);
	acc = ipu_ir_constant(ir, "zero", IPU_DTYPE_FLOAT32, 1, SHAPE(3), zero);
	assert_int_equal(ipu_ir_repeat(ir, body, 4, &acc, 1, o, 1), 0);
	r = start(compile_ok(ir));
	for (uint32_t i = 0; i < 4; i++) {
		float *s = slot(&r, "in", i, 0);

		for (int j = 0; j < 3; j++)
			s[j] = (float)(i + 1) * (float)(j + 1);
	}
	launch(&r);
	for (uint32_t i = 0; i < 4; i++) {
		for (int j = 0; j < 3; j++)
			sum[j] += (float)(i + 1) * (float)(j + 1);
		assert_close(slot(&r, "out", i, 0), sum, 3, 0);
	}
	/* A second launch starts the stream counters again at 0. */
	launch(&r);
	assert_close(slot(&r, "out", 3, 0), sum, 3, 0);
	finish(&r);
}

static void test_calls_and_carried_values(void **state)
{
	struct ipu_exe *e;
	struct run r;
	char msg[512];
	const int32_t *o;

	(void)state;
	assert_int_equal(exe_sample(SAMPLE_CALLS, &e, msg, sizeof(msg)), 0);
	r = start(e);
	launch(&r);
	/* Ten steps of (a, b) -> (b, a + b) from (0, 1): F(11). */
	o = slot(&r, "acc", 0, 0);
	assert_int_equal(o[0], 89);
	assert_int_equal(o[1], 89);
	finish(&r);
}

static void test_carried_swap(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph g = ipu_ir_create_graph(ir, "swap");
	ipu_tensor a, b, o3[2], o0[2];
	struct run r;
	static const float one[2] = { 1, 1 }, two[2] = { 2, 2 };

	(void)state;
	ipu_ir_push_graph(ir, g);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	b = ipu_ir_graph_input(ir, "b", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	ipu_ir_graph_output(ir, b);
	ipu_ir_graph_output(ir, a);
	ipu_ir_pop_graph(ir);
	a = ipu_ir_constant(ir, "one", IPU_DTYPE_FLOAT32, 1, SHAPE(2), one);
	b = ipu_ir_constant(ir, "two", IPU_DTYPE_FLOAT32, 1, SHAPE(2), two);
	assert_int_equal(ipu_ir_repeat(ir, g, 3, (ipu_tensor[]){ a, b }, 2, o3,
				       2), 0);
	assert_int_equal(ipu_ir_repeat(ir, g, 0, (ipu_tensor[]){ a, b }, 2, o0,
				       2), 0);
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "odd", IPU_DTYPE_FLOAT32, 1,
						SHAPE(2)), o3[0]);
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "none", IPU_DTYPE_FLOAT32, 1,
						SHAPE(2)), o0[0]);
	r = start(compile_ok(ir));
	launch(&r);
	assert_close(slot(&r, "odd", 0, 0), two, 2, 0);
	assert_close(slot(&r, "none", 0, 0), one, 2, 0);
	finish(&r);
}

static void test_call_sees_variable_as_it_was(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph g = ipu_ir_create_graph(ir, "g");
	ipu_tensor v, a, o[1];
	struct run r;
	static const float init[2] = { 1, 2 }, neg[2] = { -1, -2 },
			   twice[2] = { 2, 4 };

	(void)state;
	v = ipu_ir_variable(ir, "v", IPU_DTYPE_FLOAT32, 1, SHAPE(2), init, NULL);
	ipu_ir_push_graph(ir, g);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	ipu_ir_scaled_add_inplace(ir, v, a, 2, 0);
	ipu_ir_graph_output(ir, ipu_ir_neg(ir, a));
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_call(ir, g, &v, 1, o, 1), 0);
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "o", IPU_DTYPE_FLOAT32, 1,
						SHAPE(2)), o[0]);
	r = start(compile_ok(ir));
	launch(&r);
	assert_close(slot(&r, "o", 0, 0), neg, 2, 0);
	assert_close(tensor(&r, "v", 0), twice, 2, 0);
	finish(&r);
}

static void test_all_reduce_over_groupings(void **state)
{
	struct ipu_ir *ir = ir_new();
	struct ipu_replica_grouping pairs, orth;
	ipu_stream in;
	ipu_tensor x;
	struct run r;

	(void)state;
	ipu_ir_set_replication_factor(ir, 4);
	assert_int_equal(ipu_ir_replica_grouping(ir, 1, 2, &pairs), 0);
	assert_int_equal(ipu_ir_replica_grouping(ir, 2, 2, &orth), 0);
	in = ipu_ir_h2d_stream(ir, "in", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	x = ipu_ir_host_load(ir, in, NULL);
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "all", IPU_DTYPE_FLOAT32, 1,
						SHAPE(2)),
			  ipu_ir_all_reduce(ir, x, IPU_IR_ALL_REDUCE_SUM, NULL));
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "pairs", IPU_DTYPE_FLOAT32,
						1, SHAPE(2)),
			  ipu_ir_all_reduce(ir, x, IPU_IR_ALL_REDUCE_MEAN,
					    &pairs));
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "orth", IPU_DTYPE_FLOAT32,
						1, SHAPE(2)),
			  ipu_ir_all_reduce(ir, x, IPU_IR_ALL_REDUCE_SUM, &orth));
	r = start(compile_ok(ir));
	for (uint32_t k = 0; k < 4; k++) {
		float *s = slot(&r, "in", 0, k);

		s[0] = (float)(k + 1);		/* 1 2 3 4 */
		s[1] = (float)(10 * k);		/* 0 10 20 30 */
	}
	launch(&r);
	for (uint32_t k = 0; k < 4; k++) {
		const float all[2] = { 10, 60 };
		/* pairs {0,1} {2,3}; orthogonal {0,2} {1,3} */
		const float pair[2][2] = { { 1.5f, 5 }, { 3.5f, 25 } };
		const float ort[2][2] = { { 4, 20 }, { 6, 40 } };

		assert_close(slot(&r, "all", 0, k), all, 2, 0);
		assert_close(slot(&r, "pairs", 0, k), pair[k / 2], 2, 0);
		assert_close(slot(&r, "orth", 0, k), ort[k % 2], 2, 0);
	}
	finish(&r);
}

static void test_grouped_variable_holds_one_value_per_group(void **state)
{
	struct ipu_ir *ir = ir_new();
	struct ipu_replica_grouping orth;
	static const int32_t per_group[2] = { 10, 20 };
	ipu_tensor v;
	struct run r;

	(void)state;
	ipu_ir_set_replication_factor(ir, 4);
	assert_int_equal(ipu_ir_replica_grouping(ir, 2, 2, &orth), 0);
	IPU_OPTS(ipu_ir_variable_opts, o, .grouping = &orth);
	v = ipu_ir_variable(ir, "v", IPU_DTYPE_INT32, 0, NULL, per_group, &o);
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "v_out", IPU_DTYPE_INT32, 0,
						NULL),
			  ipu_ir_add(ir, v, v));
	r = start(compile_ok(ir));
	launch(&r);
	for (uint32_t k = 0; k < 4; k++)
		assert_int_equal(*(int32_t *)slot(&r, "v_out", 0, k),
				 2 * per_group[k % 2]);
	finish(&r);
}

/* SAMPLE_TRAIN: 3 SGD steps per run, 4 replicas, gradients averaged over
 * pairs of replicas: w -= 0.5 * mean_pair(w - x). */
static void test_sgd_steps_match_reference(void **state)
{
	float w[4][4] = { { 0 } }, x[3][4][4];
	struct ipu_exe *e;
	struct run r;
	char msg[512];

	(void)state;
	assert_int_equal(exe_sample(SAMPLE_TRAIN, &e, msg, sizeof(msg)), 0);
	r = start(e);
	for (uint32_t i = 0; i < 3; i++)
		for (uint32_t k = 0; k < 4; k++) {
			for (int j = 0; j < 4; j++)
				x[i][k][j] = (float)(i + 1) * (float)(k + j) / 4;
			memcpy(slot(&r, "x", i, k), x[i][k], sizeof(x[i][k]));
		}
	launch(&r);
	for (uint32_t i = 0; i < 3; i++) {
		float g[4][4], loss[4] = { 0 };

		for (uint32_t k = 0; k < 4; k++)
			for (int j = 0; j < 4; j++) {
				uint32_t p = k ^ 1;	/* the pair's other */

				g[k][j] = ((w[k][j] - x[i][k][j]) +
					   (w[p][j] - x[i][p][j])) / 2;
			}
		for (uint32_t k = 0; k < 4; k++)
			for (int j = 0; j < 4; j++) {
				w[k][j] -= 0.5f * g[k][j];
				loss[k] += g[k][j] * g[k][j];
			}
		for (uint32_t k = 0; k < 4; k++)
			assert_close(slot(&r, "loss", i, k), &loss[k], 1, 1e-5f);
	}
	for (uint32_t k = 0; k < 4; k++)
		assert_close(tensor(&r, "w", k), w[k], 4, 1e-5f);
	finish(&r);
}

static void test_shape_ops_match_reference(void **state)
{
	struct ipu_ir *ir = ir_new();
	float xs[2][3][4];
	ipu_tensor x, t, s, c, m;
	struct run r;
	static const int64_t start1[1] = { 1 }, step2[1] = { 2 };

	(void)state;
	for (int i = 0; i < 24; i++)
		(&xs[0][0][0])[i] = (float)((i * 7) % 11) - 5;
	x = ipu_ir_constant(ir, "x", IPU_DTYPE_FLOAT32, 3, SHAPE(2, 3, 4), xs);
	/* [2, 3, 4] -> [4, 2, 3] */
	t = ipu_ir_transpose(ir, x, (int[]){ 2, 0, 1 }, 3);
	/* axis 2 from 1 in steps of 2: [2, 3, 2] */
	s = ipu_ir_slice(ir, x, 1, start1, NULL, step2, (int[]){ 2 });
	c = ipu_ir_concat(ir, (ipu_tensor[]){ s, s }, 2, 1);	/* [2, 6, 2] */
	m = ipu_ir_reduce_max(ir, x, (int[]){ 1 }, 1, true);	/* [2, 1, 4] */
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "t", IPU_DTYPE_FLOAT32, 3,
						SHAPE(4, 2, 3)), t);
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "c", IPU_DTYPE_FLOAT32, 3,
						SHAPE(2, 6, 2)), c);
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "m", IPU_DTYPE_FLOAT32, 3,
						SHAPE(2, 1, 4)), m);
	ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, "i", IPU_DTYPE_INT32, 3,
						SHAPE(2, 3, 4)),
			  ipu_ir_cast(ir, ipu_ir_softmax(ir, x, -1),
				      IPU_DTYPE_INT32));
	r = start(compile_ok(ir));
	launch(&r);
	{
		const float *T = slot(&r, "t", 0, 0), *C = slot(&r, "c", 0, 0);
		const float *M = slot(&r, "m", 0, 0);
		const int32_t *I = slot(&r, "i", 0, 0);

		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 3; b++)
				for (int d = 0; d < 4; d++)
					assert_true(T[(d * 2 + a) * 3 + b] ==
						    xs[a][b][d]);
		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 6; b++)
				for (int d = 0; d < 2; d++)
					assert_true(C[(a * 6 + b) * 2 + d] ==
						    xs[a][b % 3][1 + 2 * d]);
		for (int a = 0; a < 2; a++)
			for (int d = 0; d < 4; d++) {
				float want = fmaxf(fmaxf(xs[a][0][d], xs[a][1][d]),
						   xs[a][2][d]);

				assert_true(M[a * 4 + d] == want);
			}
		/* Probabilities below 1 truncate to 0. */
		for (int i = 0; i < 24; i++)
			assert_int_equal(I[i], 0);
	}
	finish(&r);
}

/*
 * Copy elision (one host transfer): a loaded a read by several ops, stored
 * unchanged to two streams (which share its slot), relu(a) stored in
 * place, a * a stored to two streams (copied to both), a + relu(a), and a
 * variable updated from a; @replicas replicas, each its own data, two
 * launches. The results are what plain C computes.
 */
static void run_fan_out(uint32_t replicas)
{
	struct ipu_ir *ir = ir_new();
	ipu_stream x;
	ipu_tensor a, ra, sq, w;
	struct run r;

	ipu_ir_set_replication_factor(ir, replicas);
	x = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 1, SHAPE(4));
	w = ipu_ir_variable(ir, "w", IPU_DTYPE_FLOAT32, 1, SHAPE(4), NULL, NULL);
	a = ipu_ir_host_load(ir, x, "a");
	ra = ipu_ir_relu(ir, a);
	sq = ipu_ir_mul(ir, a, a);
#define OUT(name, t)                                                          \
	assert_int_equal(ipu_ir_host_store(ir, ipu_ir_d2h_stream(ir, name,     \
			IPU_DTYPE_FLOAT32, 1, SHAPE(4)), t), 0)
	OUT("y", a);
	OUT("y2", a);
	OUT("r", ra);
	OUT("m1", sq);
	OUT("m2", sq);
	OUT("s", ipu_ir_add(ir, a, ra));
#undef OUT
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, w, a, 1, 1), 0);
	r = start(compile_ok(ir));
	/* The elision this is about did happen. */
	assert_ptr_equal(slot(&r, "y", 0, 0), slot(&r, "x", 0, 0));
	assert_ptr_equal(slot(&r, "y2", 0, 0), slot(&r, "x", 0, 0));
	assert_ptr_equal(tensor(&r, "a", 0), slot(&r, "x", 0, 0));
	for (int run = 0; run < 2; run++) {
		float xs[4][4];

		for (uint32_t k = 0; k < replicas; k++) {
			for (int i = 0; i < 4; i++)
				xs[k][i] = (float)(i - 2) * (float)(k + 1) +
					   (float)run;
			memcpy(slot(&r, "x", 0, k), xs[k], sizeof(xs[k]));
		}
		launch(&r);
		for (uint32_t k = 0; k < replicas; k++) {
			float relu[4], sqr[4], sum[4], acc[4];

			for (int i = 0; i < 4; i++) {
				relu[i] = fmaxf(xs[k][i], 0);
				sqr[i] = xs[k][i] * xs[k][i];
				sum[i] = xs[k][i] + relu[i];
				/* w gets both launches' inputs. */
				acc[i] = (float)(i - 2) * (float)(k + 1) *
						 (float)(run + 1) +
					 (float)(run * (run + 1) / 2);
			}
			assert_close(slot(&r, "x", 0, k), xs[k], 4, 0);
			assert_close(slot(&r, "y", 0, k), xs[k], 4, 0);
			assert_close(slot(&r, "y2", 0, k), xs[k], 4, 0);
			assert_close(slot(&r, "r", 0, k), relu, 4, 0);
			assert_close(slot(&r, "m1", 0, k), sqr, 4, 0);
			assert_close(slot(&r, "m2", 0, k), sqr, 4, 0);
			assert_close(slot(&r, "s", 0, k), sum, 4, 0);
			assert_close(tensor(&r, "w", k), acc, 4, 0);
		}
	}
	finish(&r);
}

static void test_elided_streams_match_reference(void **state)
{
	(void)state;
	run_fan_out(1);
}

static void test_elided_streams_match_reference_replicated(void **state)
{
	(void)state;
	run_fan_out(4);
}

/*
 * relu(x) made before a repeat whose body stores it: of count 1 it runs
 * once (and may be elided); of count 0 it would never run, and y's slot
 * would return what the host left there: a run must use each stream
 * num_host_transfers times, so the program is refused when compiled.
 */
static void test_store_runs_as_often_as_its_loop(void **state)
{
	(void)state;
	for (uint64_t count = 0; count < 2; count++) {
		struct ipu_ir *ir = ir_new();
		ipu_graph body = ipu_ir_create_graph(ir, "body");
		ipu_stream x, y;
		ipu_tensor a;
		struct run r;
		const float in[4] = { -1, 2, -3, 4 }, relu[4] = { 0, 2, 0, 4 };
		const float old[4] = { 9, 9, 9, 9 };

		x = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 1, SHAPE(4));
		y = ipu_ir_d2h_stream(ir, "y", IPU_DTYPE_FLOAT32, 1, SHAPE(4));
		a = ipu_ir_relu(ir, ipu_ir_host_load(ir, x, NULL));
		ipu_ir_push_graph(ir, body);
		ipu_ir_host_store(ir, y, ipu_ir_graph_input(ir, "t",
				IPU_DTYPE_FLOAT32, 1, SHAPE(4)));
		ipu_ir_pop_graph(ir);
		assert_int_equal(ipu_ir_repeat(ir, body, count, &a, 1, NULL, 0),
				 0);
		if (!count) {
			/* It would leave y's slot as it was: refused. */
			struct ipu_exe *e = NULL;

			ir_expect_refused(ir, ipu_ir_compile(ir, &e), -EINVAL,
					  "compile: stream 'y' is stored 0 times per run, but num_host_transfers is 1");
			ipu_ir_destroy(ir);
			continue;
		}
		r = start(compile_ok(ir));
		memcpy(slot(&r, "x", 0, 0), in, sizeof(in));
		memcpy(slot(&r, "y", 0, 0), old, sizeof(old));
		launch(&r);
		assert_close(slot(&r, "y", 0, 0), count ? relu : old, 4, 0);
		finish(&r);
	}
}

/* ---------------------------------------------------------------------- */
/* In-place updates of tensors that are not variables                      */
/* ---------------------------------------------------------------------- */

/*
 * Store tensor @ts[i] to a new d2h stream @names[i] of two floats, for
 * @n of them; compile and run @ir; each stream must hold @want[i].
 */
static void run_check2(struct ipu_ir *ir, size_t n, const char *const *names,
		       const ipu_tensor *ts, const float (*want)[2])
{
	struct run r;

	for (size_t i = 0; i < n; i++)
		assert_int_equal(ipu_ir_host_store(ir, ipu_ir_d2h_stream(
			ir, names[i], IPU_DTYPE_FLOAT32, 1, SHAPE(2)), ts[i]),
			0);
	r = start(compile_ok(ir));
	launch(&r);
	for (size_t i = 0; i < n; i++)
		assert_close(slot(&r, names[i], 0, 0), want[i], 2, 0);
	finish(&r);
}

static ipu_tensor const2(struct ipu_ir *ir, const char *name, float a,
			 float b)
{
	const float v[2] = { a, b };

	return ipu_ir_constant(ir, name, IPU_DTYPE_FLOAT32, 1, SHAPE(2), v);
}

static void test_update_in_place_seen_by_later_ops_only(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_tensor c = const2(ir, "c", 1, 2), y, before, after;

	(void)state;
	y = ipu_ir_add(ir, c, c);			/* 2, 4 */
	before = ipu_ir_neg(ir, y);
	assert_int_equal(ipu_ir_assign(ir, y, ipu_ir_mul(ir, y, y)), 0);
	after = ipu_ir_sub(ir, y, c);
	run_check2(ir, 3, (const char *[]){ "y", "before", "after" },
		   (ipu_tensor[]){ y, before, after },
		   (const float[][2]){ { 4, 16 }, { -2, -4 }, { 3, 14 } });
}

static void test_scaled_add_in_place_on_a_value(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_tensor c = const2(ir, "c", 1, 2), y;

	(void)state;
	y = ipu_ir_add(ir, c, c);
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, y, c, 2, -3), 0);
	run_check2(ir, 1, (const char *[]){ "y" }, &y,
		   (const float[][2]){ { 2 * 2 - 3 * 1, 2 * 4 - 3 * 2 } });
}

static void test_update_of_a_constant_refused(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_tensor c = const2(ir, "c", 1, 2);

	(void)state;
	ir_expect_refused(ir, ipu_ir_assign(ir, c, ipu_ir_neg(ir, c)), -EINVAL,
			  "'c' is a constant");
	ipu_ir_destroy(ir);
}

/* A graph whose input a is updated in place: a += 1; with an output -a
 * if @output. */
static ipu_graph inc_graph(struct ipu_ir *ir, const char *name, bool by_ref,
			   bool output)
{
	ipu_graph g = ipu_ir_create_graph(ir, name);
	ipu_tensor a;

	ipu_ir_push_graph(ir, g);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	if (by_ref)
		assert_int_equal(ipu_ir_graph_input_by_ref(ir, a), 0);
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, a, const2(
		ir, NULL, 1, 1), 1, 1), 0);
	if (output)
		assert_int_equal(ipu_ir_graph_output(ir, ipu_ir_neg(ir, a)), 0);
	ipu_ir_pop_graph(ir);
	return g;
}

static void test_call_by_ref_updates_the_callers_tensor(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph byref = inc_graph(ir, "byref", true, true),
		  byval = inc_graph(ir, "byval", false, true);
	ipu_tensor c = const2(ir, "c", 1, 2), y, z, v, o[2];
	static const float init[2] = { 5, 6 };

	(void)state;
	v = ipu_ir_variable(ir, "v", IPU_DTYPE_FLOAT32, 1, SHAPE(2), init, NULL);
	y = ipu_ir_add(ir, c, c);
	z = ipu_ir_add(ir, c, c);
	assert_int_equal(ipu_ir_call(ir, byref, &y, 1, &o[0], 1), 0);
	assert_int_equal(ipu_ir_call(ir, byval, &z, 1, &o[1], 1), 0);
	assert_int_equal(ipu_ir_call(ir, byref, &v, 1, NULL, 0), 0);
	assert_int_equal(ipu_ir_call(ir, byref, &v, 1, NULL, 0), 0);
	/* v read after the calls, through an op: 5 + 2, 6 + 2. */
	run_check2(ir, 5, (const char *[]){ "y", "z", "o", "o1", "v2" },
		   (ipu_tensor[]){ y, z, o[0], o[1], ipu_ir_add(ir, v, v) },
		   (const float[][2]){ { 3, 5 }, { 2, 4 }, { -3, -5 },
				       { -3, -5 }, { 14, 16 } });
}

static void test_repeat_by_ref_and_by_value(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph byref = inc_graph(ir, "byref", true, false);
	ipu_graph g = ipu_ir_create_graph(ir, "g");
	ipu_tensor c = const2(ir, "c", 1, 2), y, z, acc, a, o[1];

	(void)state;
	/* g(acc, a): a += a in place, -> acc + a. Passed by value, a is z
	 * again in each iteration: acc = -2z + 3 * 2z. */
	ipu_ir_push_graph(ir, g);
	acc = ipu_ir_graph_input(ir, "acc", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, a, a, 1, 1), 0);
	assert_int_equal(ipu_ir_graph_output(ir, ipu_ir_add(ir, acc, a)), 0);
	ipu_ir_pop_graph(ir);
	y = ipu_ir_add(ir, c, c);			/* 2, 4 */
	z = ipu_ir_add(ir, c, c);
	assert_int_equal(ipu_ir_repeat(ir, byref, 4, &y, 1, NULL, 0), 0);
	assert_int_equal(ipu_ir_repeat(ir, g, 3, (ipu_tensor[]){
					       ipu_ir_neg(ir, ipu_ir_add(ir, z, z)),
					       z }, 2, o, 1), 0);
	run_check2(ir, 3, (const char *[]){ "y", "z", "acc" },
		   (ipu_tensor[]){ y, z, o[0] },
		   (const float[][2]){ { 6, 8 }, { 2, 4 }, { 8, 16 } });
}

static void test_by_ref_through_nested_calls(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph inner = inc_graph(ir, "inner", true, false);
	ipu_graph outer = ipu_ir_create_graph(ir, "outer");
	ipu_tensor c = const2(ir, "c", 1, 2), p, y, z;

	(void)state;
	/* outer(p by reference) calls inner (+1 by reference) on p twice:
	 * repeated three times, y gains 6; z, called inner on once, 1. */
	ipu_ir_push_graph(ir, outer);
	p = ipu_ir_graph_input(ir, "p", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	assert_int_equal(ipu_ir_graph_input_by_ref(ir, p), 0);
	assert_int_equal(ipu_ir_call(ir, inner, &p, 1, NULL, 0), 0);
	assert_int_equal(ipu_ir_call(ir, inner, &p, 1, NULL, 0), 0);
	ipu_ir_pop_graph(ir);
	y = ipu_ir_add(ir, c, c);
	z = ipu_ir_add(ir, c, c);
	assert_int_equal(ipu_ir_repeat(ir, outer, 3, &y, 1, NULL, 0), 0);
	assert_int_equal(ipu_ir_call(ir, inner, &z, 1, NULL, 0), 0);
	run_check2(ir, 2, (const char *[]){ "y", "z" }, (ipu_tensor[]){ y, z },
		   (const float[][2]){ { 8, 10 }, { 3, 5 } });
}

static void test_output_sharing_an_updated_input_is_copied(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph g = ipu_ir_create_graph(ir, "pass");
	ipu_tensor c = const2(ir, "c", 1, 2), y, a, o[1];

	(void)state;
	ipu_ir_push_graph(ir, g);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	ipu_ir_graph_output(ir, a);
	ipu_ir_pop_graph(ir);
	y = ipu_ir_add(ir, c, c);
	assert_int_equal(ipu_ir_call(ir, g, &y, 1, o, 1), 0);
	assert_int_equal(ipu_ir_assign(ir, o[0], ipu_ir_mul(ir, o[0], o[0])),
			 0);
	run_check2(ir, 2, (const char *[]){ "y", "o" },
		   (ipu_tensor[]){ y, o[0] },
		   (const float[][2]){ { 2, 4 }, { 4, 16 } });
}

/* A graph whose two outputs are one tensor: @what of input a, twice. */
static ipu_graph twice_graph(struct ipu_ir *ir, const char *name, bool pass)
{
	ipu_graph g = ipu_ir_create_graph(ir, name);
	ipu_tensor a, y;

	ipu_ir_push_graph(ir, g);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	y = pass ? a : ipu_ir_add(ir, a, a);
	assert_int_equal(ipu_ir_graph_output(ir, y), 0);
	assert_int_equal(ipu_ir_graph_output(ir, y), 0);
	ipu_ir_pop_graph(ir);
	return g;
}

/* return y, y: an update of one output in the caller leaves the other. */
static void test_outputs_of_one_tensor_do_not_share_memory(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph g = twice_graph(ir, "twice", false);
	ipu_tensor c = const2(ir, "c", 1, 2), o[2], p[2];

	(void)state;
	assert_int_equal(ipu_ir_call(ir, g, &c, 1, o, 2), 0);	/* 2, 4 */
	assert_int_equal(ipu_ir_call(ir, g, &c, 1, p, 2), 0);
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, o[0], c, 1, 1), 0);
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, p[1], c, 1, 1), 0);
	run_check2(ir, 4, (const char *[]){ "o0", "o1", "p0", "p1" },
		   (ipu_tensor[]){ o[0], o[1], p[0], p[1] },
		   (const float[][2]){ { 3, 6 }, { 2, 4 }, { 2, 4 },
				       { 3, 6 } });
}

/* The same through a graph that passes its callee's outputs on, and
 * through one returning its input twice. */
static void test_outputs_of_one_tensor_through_calls(void **state)
{
	struct ipu_ir *ir = ir_new();
	ipu_graph inner = twice_graph(ir, "inner", false);
	ipu_graph pass = twice_graph(ir, "pass", true);
	ipu_graph outer = ipu_ir_create_graph(ir, "outer");
	ipu_tensor c = const2(ir, "c", 1, 2), a, y, io[2], o[2], q[2];

	(void)state;
	ipu_ir_push_graph(ir, outer);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_FLOAT32, 1, SHAPE(2));
	assert_int_equal(ipu_ir_call(ir, inner, &a, 1, io, 2), 0);
	assert_int_equal(ipu_ir_graph_output(ir, io[0]), 0);
	assert_int_equal(ipu_ir_graph_output(ir, io[1]), 0);
	ipu_ir_pop_graph(ir);
	assert_int_equal(ipu_ir_call(ir, outer, &c, 1, o, 2), 0);
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, o[1], c, 1, 1), 0);
	y = ipu_ir_add(ir, c, c);				/* 2, 4 */
	assert_int_equal(ipu_ir_call(ir, pass, &y, 1, q, 2), 0);
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, q[0], c, 1, 1), 0);
	run_check2(ir, 5, (const char *[]){ "o0", "o1", "y", "q0", "q1" },
		   (ipu_tensor[]){ o[0], o[1], y, q[0], q[1] },
		   (const float[][2]){ { 2, 4 }, { 3, 6 }, { 2, 4 },
				       { 3, 6 }, { 2, 4 } });
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mlp_matches_reference),
		cmocka_unit_test(test_repeat_reads_and_writes_every_transfer),
		cmocka_unit_test(test_calls_and_carried_values),
		cmocka_unit_test(test_carried_swap),
		cmocka_unit_test(test_call_sees_variable_as_it_was),
		cmocka_unit_test(test_all_reduce_over_groupings),
		cmocka_unit_test(test_grouped_variable_holds_one_value_per_group),
		cmocka_unit_test(test_sgd_steps_match_reference),
		cmocka_unit_test(test_shape_ops_match_reference),
		cmocka_unit_test(test_elided_streams_match_reference),
		cmocka_unit_test(test_elided_streams_match_reference_replicated),
		cmocka_unit_test(test_store_runs_as_often_as_its_loop),
		cmocka_unit_test(test_update_in_place_seen_by_later_ops_only),
		cmocka_unit_test(test_scaled_add_in_place_on_a_value),
		cmocka_unit_test(test_update_of_a_constant_refused),
		cmocka_unit_test(test_call_by_ref_updates_the_callers_tensor),
		cmocka_unit_test(test_repeat_by_ref_and_by_value),
		cmocka_unit_test(test_output_sharing_an_updated_input_is_copied),
		cmocka_unit_test(test_by_ref_through_nested_calls),
		cmocka_unit_test(test_outputs_of_one_tensor_do_not_share_memory),
		cmocka_unit_test(test_outputs_of_one_tensor_through_calls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
