// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_elision.c - copy elision seen through libsession on the
 * model. With one host transfer the compiler puts loaded and stored
 * tensors on their stream slots and lets a d2h stream that stores a loaded
 * tensor unchanged share the h2d stream's slot (exe.h, "Shared memory").
 * libsession writes every input before the launch and reads every output
 * after it, so runs must give what plain C gives, run after run, with
 * replicas, and what the same program gives with two host transfers,
 * where nothing is elided.
 */
#include "session_helpers.h"

#define N 5

/* The outputs of the fan-out program, each a d2h stream of float32[N]. */
enum { OUT_Y, OUT_Y2, OUT_R, OUT_M1, OUT_M2, OUT_D, NOUT };
static const char *const out_names[NOUT] = { "y", "y2", "r", "m1", "m2", "d" };

/*
 * Per transfer: a = host_load("x"); y = y2 = a (forwarded); r = relu(a)
 * (stored in place); m1 = m2 = a * a (stored twice: copied); d = a + a.
 * One transfer: straight-line code; more: a repeat of them.
 */
static struct ipu_session *fan_out(uint32_t replicas, uint32_t transfers)
{
	struct ipu_ir *ir = sh_ir(replicas, transfers);
	uint64_t n = N;
	ipu_stream x = sh_stream(ir, true, "x", IPU_DTYPE_FLOAT32, 1, &n);
	ipu_stream y[NOUT];
	ipu_graph step = ipu_ir_create_graph(ir, "step");
	ipu_tensor a, sq, t[NOUT];
	struct ipu_session *s;
	int k;

	for (k = 0; k < NOUT; k++)
		y[k] = sh_stream(ir, false, out_names[k], IPU_DTYPE_FLOAT32, 1,
				 &n);
	if (transfers > 1)
		assert_int_equal(ipu_ir_push_graph(ir, step), 0);
	a = sh_check(ir, ipu_ir_host_load(ir, x, NULL));
	sq = sh_check(ir, ipu_ir_mul(ir, a, a));
	t[OUT_Y] = t[OUT_Y2] = a;
	t[OUT_R] = sh_check(ir, ipu_ir_relu(ir, a));
	t[OUT_M1] = t[OUT_M2] = sq;
	t[OUT_D] = sh_check(ir, ipu_ir_add(ir, a, a));
	for (k = 0; k < NOUT; k++)
		assert_int_equal(ipu_ir_host_store(ir, y[k], t[k]), 0);
	if (transfers > 1) {
		assert_int_equal(ipu_ir_pop_graph(ir), 0);
		assert_int_equal(ipu_ir_repeat(ir, step, transfers, NULL, 0,
					       NULL, 0), 0);
	}
	s = sh_session(ir);
	sh_attach(s);
	return s;
}

/* Run @s on @x (@slices slices of N) into @out, each output prefilled with
 * garbage first so that nothing passes by being left alone. */
static void run_fan_out(struct ipu_session *s, const float *x, size_t slices,
			float (*out)[64][N])
{
	const struct ipu_stream_desc *ins = ipu_session_expected_inputs(s, NULL);
	const struct ipu_stream_desc *outs = ipu_session_expected_outputs(s, NULL);
	struct ipu_stream_buffer in, ob[NOUT];
	int k;

	assert_true(slices <= 64);
	in = sh_sb("x", sh_buf_for(&ins[0], (void *)x));
	for (k = 0; k < NOUT; k++) {
		assert_string_equal(outs[k].name, out_names[k]);
		memset(out[k], 0xa5, sizeof(out[k]));
		ob[k] = sh_sb(out_names[k], sh_buf_for(&outs[k], out[k]));
	}
	if (ipu_session_run_with_outputs(s, &in, 1, ob, NOUT, 0))
		fail_msg("run: %s", ipu_session_errmsg(s));
}

/* What plain C makes of @x, slice by slice. */
static void reference(const float *x, size_t slices, float (*want)[64][N])
{
	for (size_t i = 0; i < slices * N; i++) {
		float v = x[i];

		(&want[OUT_Y][0][0])[i] = v;
		(&want[OUT_Y2][0][0])[i] = v;
		(&want[OUT_R][0][0])[i] = v > 0 ? v : 0;
		(&want[OUT_M1][0][0])[i] = v * v;
		(&want[OUT_M2][0][0])[i] = v * v;
		(&want[OUT_D][0][0])[i] = v + v;
	}
}

static void fill(float *x, size_t n, int seed)
{
	for (size_t i = 0; i < n; i++)
		x[i] = (float)((int)((i * 7 + (size_t)seed * 13) % 17) - 8) / 4;
}

/* The elision happened: y and y2 share x's slot, r's result sits on r's. */
static void assert_elided(struct ipu_session *s)
{
	const struct ipu_exe *e = ipu_session_exe(s);
	uint64_t x = e->streams[ipu_exe_find_stream(e, "x")].slots_offset;
	int on_slots = 0;

	assert_int_equal(e->streams[ipu_exe_find_stream(e, "y")].slots_offset, x);
	assert_int_equal(e->streams[ipu_exe_find_stream(e, "y2")].slots_offset, x);
	for (uint32_t t = 0; t < e->num_tensors; t++) {
		bool on = false;

		for (uint32_t k = 0; k < e->num_streams; k++)
			on |= e->tensors[t].offset == e->streams[k].slots_offset;
		on_slots += on;
	}
	/* a on x, relu(a) on r, a + a on d. */
	assert_int_equal(on_slots, 3);
}

static void check_runs(uint32_t replicas)
{
	struct ipu_session *s = fan_out(replicas, 1);
	static float x[64 * N], got[NOUT][64][N], want[NOUT][64][N];
	int run, k;

	assert_elided(s);
	for (run = 0; run < 3; run++) {
		fill(x, replicas * N, run);
		run_fan_out(s, x, replicas, got);
		reference(x, replicas, want);
		for (k = 0; k < NOUT; k++)
			sh_assert_floats(&got[k][0][0], &want[k][0][0],
					 replicas * N);
	}
	ipu_session_destroy(s);
}

static void test_elided_runs_match_reference(void **state)
{
	(void)state;
	check_runs(1);
}

static void test_elided_runs_match_reference_replicated(void **state)
{
	(void)state;
	check_runs(4);
}

/*
 * Two runs of the one-transfer program against one run of the same
 * program with two transfers (no elision), on the same data: the same
 * outputs, per replica.
 */
static void test_elided_and_plain_programs_agree(void **state)
{
	const uint32_t r = 2;
	struct ipu_session *one = fan_out(r, 1), *two = fan_out(r, 2);
	static float x[2 * 2 * N], got1[NOUT][64][N], got2[NOUT][64][N];
	static float both[NOUT][64][N];
	const struct ipu_exe *e = ipu_session_exe(two);
	int k, i;

	(void)state;
	assert_int_not_equal(e->streams[ipu_exe_find_stream(e, "y")].slots_offset,
			     e->streams[ipu_exe_find_stream(e, "x")].slots_offset);
	fill(x, 2 * r * N, 5);
	/* x is (transfer, replica, N): transfer i is slices [i * r, i * r + r). */
	for (i = 0; i < 2; i++) {
		run_fan_out(one, x + i * r * N, r, got1);
		for (k = 0; k < NOUT; k++)
			memcpy(&both[k][i * r][0], &got1[k][0][0],
			       r * N * sizeof(float));
	}
	run_fan_out(two, x, 2 * r, got2);
	for (k = 0; k < NOUT; k++)
		sh_assert_floats(&both[k][0][0], &got2[k][0][0], 2 * r * N);
	ipu_session_destroy(one);
	ipu_session_destroy(two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elided_runs_match_reference),
		cmocka_unit_test(test_elided_runs_match_reference_replicated),
		cmocka_unit_test(test_elided_and_plain_programs_agree),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
