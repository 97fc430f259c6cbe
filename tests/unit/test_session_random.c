// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_random.c - a fixed-seed random sequence of runs (good and
 * rejected), writes, reads, nested attaches and detaches, and weights to
 * and from host, checked step by step against a reference model of what
 * every replica's variables and the host copies should hold (S06-S08,
 * S13, S17-S21, S25).
 *
 * The program, 2 replicas, 2 host transfers, per transfer:
 *	x = load("x") (float32[3]); z = load("z") (float32[2])
 *	w += x	(ungrouped, one_per_group: replicas diverge, host has 1)
 *	g += z	(groups of one: a value per replica on the host)
 *	a += z	(ungrouped, all_replicas: the host sees every replica)
 *	store("y", w + c)	(c a constant)
 * Inputs and writes are small integers, so every sum is exact.
 */
#include "session_helpers.h"

#define R 2
#define D 2
#define STEPS 400

static const float c0[3] = { 100, 200, 300 };

/* What everything should hold. */
struct model {
	float dev_w[R][3], dev_g[R][2], dev_a[R][2];
	float host_w[3], host_g[R][2], host_a[2];
	float a_rep[R][2];
	bool a_valid; /* host holds every replica of a (fetched) */
	bool in_sync;
	unsigned int depth;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static float small(int range)
{
	return (float)((int)rnd(2 * (uint32_t)range + 1) - range);
}

static struct ipu_session *program(void)
{
	struct ipu_ir *ir = sh_ir(R, D);
	struct ipu_replica_grouping ones;
	uint64_t three = 3, two = 2;
	ipu_tensor w, g, a, c, t;
	ipu_stream x, z, y;
	ipu_graph step;

	assert_int_equal(ipu_ir_replica_grouping(ir, 1, 1, &ones), 0);
	{
		IPU_OPTS(ipu_ir_variable_opts, gopts, .grouping = &ones);
		IPU_OPTS(ipu_ir_variable_opts, aopts,
			 .retrieval = IPU_EXE_RETRIEVE_ALL_REPLICAS);
		static const float w0[3] = { 1, 2, 3 }, g0[R][2] = { { 4, 5 },
								      { 6, 7 } },
				   a0[2] = { 8, 9 };

		w = sh_var(ir, "w", 3, w0, NULL);
		g = sh_var(ir, "g", 2, &g0[0][0], &gopts);
		a = sh_var(ir, "a", 2, a0, &aopts);
	}
	c = sh_check(ir, ipu_ir_constant(ir, "c", IPU_DTYPE_FLOAT32, 1, &three,
					 c0));
	x = sh_stream(ir, true, "x", IPU_DTYPE_FLOAT32, 1, &three);
	z = sh_stream(ir, true, "z", IPU_DTYPE_FLOAT32, 1, &two);
	y = sh_stream(ir, false, "y", IPU_DTYPE_FLOAT32, 1, &three);
	step = ipu_ir_create_graph(ir, "step");
	assert_int_equal(ipu_ir_push_graph(ir, step), 0);
	t = sh_check(ir, ipu_ir_host_load(ir, x, NULL));
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, w, t, 1, 1), 0);
	t = sh_check(ir, ipu_ir_host_load(ir, z, NULL));
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, g, t, 1, 1), 0);
	assert_int_equal(ipu_ir_scaled_add_inplace(ir, a, t, 1, 1), 0);
	assert_int_equal(ipu_ir_host_store(ir, y, sh_check(ir, ipu_ir_add(ir, w, c))),
			 0);
	assert_int_equal(ipu_ir_pop_graph(ir), 0);
	assert_int_equal(ipu_ir_repeat(ir, step, D, NULL, 0, NULL, 0), 0);
	return sh_session(ir);
}

static void model_init(struct model *m)
{
	static const float w0[3] = { 1, 2, 3 }, a0[2] = { 8, 9 };

	memset(m, 0, sizeof(*m));
	memcpy(m->host_w, w0, sizeof(w0));
	m->host_g[0][0] = 4;
	m->host_g[0][1] = 5;
	m->host_g[1][0] = 6;
	m->host_g[1][1] = 7;
	memcpy(m->host_a, a0, sizeof(a0));
	m->in_sync = true;
}

static void model_from_host(struct model *m)
{
	for (int r = 0; r < R; r++) {
		memcpy(m->dev_w[r], m->host_w, sizeof(m->host_w));
		memcpy(m->dev_g[r], m->host_g[r], sizeof(m->host_g[r]));
		memcpy(m->dev_a[r], m->host_a, sizeof(m->host_a));
	}
	m->a_valid = false;
	m->in_sync = true;
}

static void model_fetch(struct model *m)
{
	if (m->in_sync)
		return;
	memcpy(m->host_w, m->dev_w[0], sizeof(m->host_w));
	memcpy(m->host_g, m->dev_g, sizeof(m->host_g));
	memcpy(m->a_rep, m->dev_a, sizeof(m->a_rep));
	memcpy(m->host_a, m->dev_a[0], sizeof(m->host_a));
	m->a_valid = true;
	m->in_sync = true;
}

static void step_attach(struct ipu_session *s, struct model *m)
{
	assert_int_equal(ipu_session_attach(s), 0);
	if (m->depth++ == 0)
		model_from_host(m);
}

static void step_detach(struct ipu_session *s, struct model *m)
{
	unsigned int flags = rnd(4) == 0 ? IPU_DETACH_ERROR : 0;

	if (!m->depth) {
		assert_int_equal(ipu_session_detach(s, flags), -EINVAL);
		return;
	}
	assert_int_equal(ipu_session_detach(s, flags), 0);
	if (--m->depth == 0 && !flags)
		model_fetch(m);
}

static void step_run(struct ipu_session *s, struct model *m)
{
	float x[D][R][3], z[D][R][2], y[D][R][3], want[D][R][3];
	bool bad = rnd(5) == 0;
	struct ipu_stream_buffer in[2] = {
		sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32, 3, (uint64_t)D,
				  (uint64_t)R, 3ull)),
		sh_sb("z", sh_buf(z, IPU_DTYPE_FLOAT32, 3, (uint64_t)D,
				  (uint64_t)R, bad ? 3ull : 2ull)),
	};
	struct ipu_stream_buffer out = sh_sb("y", sh_buf(y, IPU_DTYPE_FLOAT32,
							3, (uint64_t)D,
							(uint64_t)R, 3ull));
	int i, r, k, err;

	for (i = 0; i < D; i++)
		for (r = 0; r < R; r++) {
			for (k = 0; k < 3; k++)
				x[i][r][k] = small(3);
			for (k = 0; k < 2; k++)
				z[i][r][k] = small(3);
		}
	memset(y, 0, sizeof(y));
	err = ipu_session_run_with_outputs(s, in, 2, &out, 1, 0);
	if (!m->depth) {
		assert_int_equal(err, -EPERM);
		return;
	}
	if (bad) {
		assert_int_equal(err, -EINVAL);
		for (i = 0; i < D * R * 3; i++)
			assert_true((&y[0][0][0])[i] == 0);
		return; /* S25: nothing changed */
	}
	assert_int_equal(err, 0);
	for (i = 0; i < D; i++)
		for (r = 0; r < R; r++) {
			for (k = 0; k < 3; k++) {
				m->dev_w[r][k] += x[i][r][k];
				want[i][r][k] = m->dev_w[r][k] + c0[k];
			}
			for (k = 0; k < 2; k++) {
				m->dev_g[r][k] += z[i][r][k];
				m->dev_a[r][k] += z[i][r][k];
			}
		}
	sh_assert_floats(&y[0][0][0], &want[0][0][0], D * R * 3);
	m->in_sync = false;
}

static void step_write(struct ipu_session *s, struct model *m)
{
	float w[3], g[R][2], a[2];
	int64_t scalar = (int64_t)small(50);
	struct ipu_host_buffer b;
	int which = (int)rnd(3), k, r;

	if (which == 2) {
		b = sh_buf(a, IPU_DTYPE_FLOAT32, 1, 2ull);
		a[0] = a[1] = 0;
		assert_int_equal(ipu_session_write_variable_data(s, "a", &b),
				 -EINVAL);
		return;
	}
	/* Attached and stale, the other variables are fetched first. */
	if (m->depth)
		model_fetch(m);
	if (rnd(4) == 0) {
		b = sh_buf(&scalar, IPU_DTYPE_INT64, 0);
		for (k = 0; k < 3 && which == 0; k++)
			m->host_w[k] = (float)scalar;
		for (r = 0; r < R && which == 1; r++)
			m->host_g[r][0] = m->host_g[r][1] = (float)scalar;
	} else if (which == 0) {
		for (k = 0; k < 3; k++)
			m->host_w[k] = w[k] = small(50);
		b = sh_buf(w, IPU_DTYPE_FLOAT32, 1, 3ull);
	} else {
		for (r = 0; r < R; r++)
			for (k = 0; k < 2; k++)
				m->host_g[r][k] = g[r][k] = small(50);
		b = sh_buf(g, IPU_DTYPE_FLOAT32, 2, (uint64_t)R, 2ull);
	}
	assert_int_equal(ipu_session_write_variable_data(s, which ? "g" : "w",
							 &b),
			 0);
	if (m->depth)
		model_from_host(m);
}

static void step_get(struct ipu_session *s, struct model *m)
{
	const char *const names[4] = { "w", "g", "a", "c" };
	float w[3], g[R][2], a[R][2], c[3], want_a[R][2];
	struct ipu_host_buffer dst[4] = {
		sh_buf(w, IPU_DTYPE_FLOAT32, 1, 3ull),
		sh_buf(g, IPU_DTYPE_FLOAT32, 2, (uint64_t)R, 2ull),
		sh_buf(a, IPU_DTYPE_FLOAT32, 2, (uint64_t)R, 2ull),
		sh_buf(c, IPU_DTYPE_FLOAT32, 1, 3ull),
	};
	uint32_t first = rnd(4), n = 1 + rnd(4 - first);
	int r;

	assert_int_equal(ipu_session_get_tensors_data(s, names + first,
						      dst + first, n),
			 0);
	/* Only variables make it fetch, and only attached. */
	if (m->depth && first < 3)
		model_fetch(m);
	for (r = 0; r < R; r++)
		memcpy(want_a[r], m->a_valid ? m->a_rep[r] : m->host_a,
		       sizeof(want_a[r]));
	if (first == 0)
		sh_assert_floats(w, m->host_w, 3);
	if (first <= 1 && first + n > 1)
		sh_assert_floats(&g[0][0], &m->host_g[0][0], R * 2);
	if (first <= 2 && first + n > 2)
		sh_assert_floats(&a[0][0], &want_a[0][0], R * 2);
	if (first + n > 3)
		sh_assert_floats(c, c0, 3);
}

static void step_to_host(struct ipu_session *s, struct model *m)
{
	if (!m->depth) {
		assert_int_equal(ipu_session_weights_to_host(s), -EPERM);
		return;
	}
	assert_int_equal(ipu_session_weights_to_host(s), 0);
	model_fetch(m);
}

static void step_from_host(struct ipu_session *s, struct model *m)
{
	if (!m->depth) {
		assert_int_equal(ipu_session_weights_from_host(s), -EPERM);
		return;
	}
	assert_int_equal(ipu_session_weights_from_host(s), 0);
	model_from_host(m);
}

static void test_S25_random_sequence_matches_the_model(void **state)
{
	static void (*const steps[])(struct ipu_session *, struct model *) = {
		step_attach, step_detach, step_run, step_run, step_run,
		step_write, step_get, step_get, step_to_host, step_from_host,
	};
	struct ipu_session *s = program();
	unsigned int counts[10] = { 0 };
	struct model m;
	int i;

	(void)state;
	model_init(&m);
	for (i = 0; i < STEPS; i++) {
		uint32_t k = rnd(10);

		/* Attaching more than leaving keeps it attached mostly. */
		if (k == 0 && m.depth > 3)
			k = 1;
		counts[k]++;
		steps[k](s, &m);
		assert_int_equal(ipu_session_is_attached(s), m.depth > 0);
		assert_int_equal(s->in_sync, m.in_sync);
	}
	/* Every kind of step ran. */
	for (i = 0; i < 10; i++)
		assert_true(counts[i] > 10);
	ipu_session_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S25_random_sequence_matches_the_model),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
