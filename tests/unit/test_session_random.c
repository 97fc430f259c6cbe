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
 *	w += x	(ungrouped, one_per_group: replicas diverge, host has 1;
 *		 memory-mapped: its host copy is a file, S22)
 *	g += z	(groups of one: a value per replica on the host)
 *	a += z	(ungrouped, all_replicas: the host sees every replica)
 *	store("y", w + c)	(c a constant)
 * Inputs and writes are small integers, so every sum is exact.
 *
 * Device errors are random steps too: before a step, the model backend
 * may be armed to fail the next transfer, launch or attach
 * (__ipu_model_faults_set()), or the session the next flush of w's file
 * (__ipu_session_fail_flushes()). What a failure does is then part of the
 * reference (S25): a rejected call leaves the host copies, the sync state
 * and the attachment as they were, except that after a device error the
 * host copies are out of sync until a fetch succeeds; a launch that fails
 * after the program ran leaves the device changed. After every step, the
 * host copies themselves are compared with the reference's, and so are
 * the bytes of w's file, besides the values get_tensor_data shows.
 */
#include <unistd.h>

#include "session_helpers.h"

#define R 2
#define D 2
#define STEPS 800

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

/* The fault armed for the current step, if any. */
enum fault { NONE, DMA, LAUNCH, ATTACH, FLUSH };
static enum fault fault;
static unsigned int faults_hit;

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

/* The data directory of w's file, W_FILE (S22). */
#define W_FILE "w.bin"
static char data_dir[64];

/* A fresh data directory holding W_FILE with w's initial values. */
static void make_w_file(void)
{
	static const float w0[3] = { 1, 2, 3 };
	char path[96];
	FILE *f;

	strcpy(data_dir, "/tmp/ipu-session-random-XXXXXX");
	assert_non_null(mkdtemp(data_dir));
	snprintf(path, sizeof(path), "%s/" W_FILE, data_dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(w0, sizeof(w0), 1, f), 1);
	assert_int_equal(fclose(f), 0);
}

static void remove_w_file(void)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/" W_FILE, data_dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(data_dir), 0);
}

/* The bytes of w's file, read as another process would. */
static void read_w_file(float *w)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "%s/" W_FILE, data_dir);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(w, 3 * sizeof(float), 1, f), 1);
	fclose(f);
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
		IPU_OPTS(ipu_ir_variable_opts, wopts, .mmap_path = W_FILE);
		static const float g0[R][2] = { { 4, 5 }, { 6, 7 } },
				   a0[2] = { 8, 9 };

		w = sh_var(ir, "w", 3, NULL, &wopts);
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
	return sh_session_in(ir, data_dir);
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

/*
 * weights_from_host whose first transfer failed (a DMA fault): the model
 * backend moved every other one (a batch's transfers are not linked).
 * The first is replica 0's copy of the session's first tensor, "w".
 */
static void model_from_host_failed(struct model *m)
{
	float w0[3];

	memcpy(w0, m->dev_w[0], sizeof(w0));
	for (int r = 0; r < R; r++) {
		memcpy(m->dev_w[r], m->host_w, sizeof(m->host_w));
		memcpy(m->dev_g[r], m->host_g[r], sizeof(m->host_g[r]));
		memcpy(m->dev_a[r], m->host_a, sizeof(m->host_a));
	}
	memcpy(m->dev_w[0], w0, sizeof(w0));
	m->in_sync = false;
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
	int err = ipu_session_attach(s);

	/* The outermost attach attaches and moves data: it can fail. */
	if (!m->depth && (fault == ATTACH || fault == DMA)) {
		assert_int_equal(err, -EIO);
		faults_hit++;
		return; /* S25: still detached, nothing else changed */
	}
	assert_int_equal(err, 0);
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
	/* The outermost exit fetches first when out of sync (S07). */
	if (m->depth == 1 && !flags && !m->in_sync && fault == DMA) {
		assert_int_equal(ipu_session_detach(s, flags), -EIO);
		faults_hit++;
		return; /* still attached, weights not lost */
	}
	/* Then it flushes w's file: failing, it changes nothing but the
	 * sync state (the next exit fetches and flushes again). */
	if (m->depth == 1 && !flags && fault == FLUSH) {
		assert_int_equal(ipu_session_detach(s, flags), -EIO);
		faults_hit++;
		m->in_sync = false;
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
	if (fault == DMA) {
		/* Replica 0's first input failed: no launch ran. */
		assert_int_equal(err, -EIO);
		faults_hit++;
		for (i = 0; i < D * R * 3; i++)
			assert_true((&y[0][0][0])[i] == 0);
		m->in_sync = false;
		return;
	}
	assert_int_equal(err, fault == LAUNCH ? -EIO : 0);
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
	m->in_sync = false;
	if (fault == LAUNCH) {
		/* The program ran; the outputs, linked after, did not move. */
		faults_hit++;
		for (i = 0; i < D * R * 3; i++)
			assert_true((&y[0][0][0])[i] == 0);
		return;
	}
	sh_assert_floats(&y[0][0][0], &want[0][0][0], D * R * 3);
}

static void build_write(int which, int64_t *scalar, float *w, float (*g)[2],
			struct ipu_host_buffer *bp, struct model *m);

static void step_write(struct ipu_session *s, struct model *m)
{
	float w[3], g[R][2], a[2];
	int64_t scalar = (int64_t)small(50);
	struct ipu_host_buffer b;
	int which = (int)rnd(3), err;
	struct model want;

	if (which == 2) {
		b = sh_buf(a, IPU_DTYPE_FLOAT32, 1, 2ull);
		a[0] = a[1] = 0;
		assert_int_equal(ipu_session_write_variable_data(s, "a", &b),
				 -EINVAL);
		return;
	}
	/* Attached and stale, the other variables are fetched first. */
	want = *m;
	if (want.depth)
		model_fetch(&want);
	build_write(which, &scalar, w, g, &b, &want);
	err = ipu_session_write_variable_data(s, which ? "g" : "w", &b);
	if (m->depth && fault == DMA) {
		assert_int_equal(err, -EIO);
		faults_hit++;
		/* Out of sync, the fetch failed: nothing changed. In sync,
		 * the device did not take the new values: the host copies
		 * keep the old ones, which the session puts back. */
		if (m->in_sync)
			model_from_host(m);
		return;
	}
	assert_int_equal(err, 0);
	*m = want;
	if (m->depth)
		model_from_host(m);
}

/* The value of a write of "w" (@which 0) or "g", in @b and in @m's host. */
static void build_write(int which, int64_t *scalar, float *w, float (*g)[2],
			struct ipu_host_buffer *bp, struct model *m)
{
	struct ipu_host_buffer b;
	int k, r;

	if (rnd(4) == 0) {
		b = sh_buf(scalar, IPU_DTYPE_INT64, 0);
		for (k = 0; k < 3 && which == 0; k++)
			m->host_w[k] = (float)*scalar;
		for (r = 0; r < R && which == 1; r++)
			m->host_g[r][0] = m->host_g[r][1] = (float)*scalar;
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
	*bp = b;
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

	if (m->depth && first < 3 && !m->in_sync &&
	    (fault == DMA || fault == FLUSH)) {
		assert_int_equal(ipu_session_get_tensors_data(s, names + first,
							      dst + first, n),
				 -EIO);
		faults_hit++;
		return;
	}
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
	if ((!m->in_sync && fault == DMA) || fault == FLUSH) {
		assert_int_equal(ipu_session_weights_to_host(s), -EIO);
		faults_hit++;
		/* A failed flush puts the old values back (S25). */
		m->in_sync = false;
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
	if (fault == DMA) {
		assert_int_equal(ipu_session_weights_from_host(s), -EIO);
		faults_hit++;
		model_from_host_failed(m);
		return;
	}
	assert_int_equal(ipu_session_weights_from_host(s), 0);
	model_from_host(m);
}

/* The first variable or constant of the program: the first the session
 * sends to the device. */
static const char *first_variable(const struct ipu_session *s)
{
	const struct ipu_exe *exe = ipu_session_exe(s);
	uint32_t i;

	for (i = 0; i < exe->num_tensors; i++)
		if (exe->tensors[i].kind == IPU_EXE_TENSOR_VARIABLE ||
		    exe->tensors[i].kind == IPU_EXE_TENSOR_CONSTANT)
			return exe->tensors[i].name;
	return "";
}

/* The host copies (what get_tensor_data shows detached) are the model's. */
static void check_host(const struct ipu_session *s, const struct model *m)
{
	float w[3], g[R * 2], a[2], a_rep[R * 2];
	const void *p;
	size_t len;
	int err;

	sh_host_f32(s, "w", false, w, 3);
	sh_assert_floats(w, m->host_w, 3);
	read_w_file(w);
	sh_assert_floats(w, m->host_w, 3);
	sh_host_f32(s, "g", false, g, R * 2);
	sh_assert_floats(g, &m->host_g[0][0], R * 2);
	sh_host_f32(s, "a", false, a, 2);
	sh_assert_floats(a, m->host_a, 2);
	err = __ipu_session_host_copy(s, "a", true, &p, &len);
	assert_int_equal(err == 0, m->a_valid);
	if (m->a_valid) {
		sh_host_f32(s, "a", true, a_rep, R * 2);
		sh_assert_floats(a_rep, &m->a_rep[0][0], R * 2);
	}
}

static void test_S25_random_sequence_matches_the_model(void **state)
{
	static void (*const steps[])(struct ipu_session *, struct model *) = {
		step_attach, step_detach, step_run, step_run, step_run,
		step_write, step_get, step_get, step_to_host, step_from_host,
	};
	struct ipu_session *s;
	unsigned int counts[10] = { 0 };
	struct model m;
	int i;

	static const char *const arm[] = { NULL, "dma:1", "launch:1",
					   "attach:1", NULL };
	/* Faults are the model's: on hardware (the guest's copy of this
	 * test, tests/kernel/test_session_hw_random.c) the steps run
	 * without. */
	bool on_model;

	(void)state;
	make_w_file();
	s = program();
	on_model = !strcmp(ipu_session_device_name(s), "ipu_model");
	model_init(&m);
	/* The reference's failed weights_from_host knows the order. */
	assert_string_equal(first_variable(s), "w");
	for (i = 0; i < STEPS; i++) {
		uint32_t k = rnd(10);

		/* Attaching more than leaving keeps it attached mostly. */
		if (k == 0 && m.depth > 3)
			k = 1;
		counts[k]++;
		/* One step in three meets a device error, if it uses one. */
		fault = rnd(3) ? NONE : (enum fault)(1 + rnd(4));
		if (!on_model)
			fault = NONE;
		assert_int_equal(__ipu_model_faults_set(arm[fault]), 0);
		__ipu_session_fail_flushes(s, fault == FLUSH);
		steps[k](s, &m);
		assert_int_equal(__ipu_model_faults_set(NULL), 0);
		__ipu_session_fail_flushes(s, 0);
		if (ipu_session_is_attached(s) != (m.depth > 0) ||
		    __ipu_session_in_sync(s) != m.in_sync)
			fail_msg("step %d (%u, fault %d): attached %d, want %d; in sync %d, want %d",
				 i, k, fault, ipu_session_is_attached(s),
				 m.depth > 0, __ipu_session_in_sync(s), m.in_sync);
		check_host(s, &m);
	}
	/* Every kind of step ran, and device errors were met often. */
	for (i = 0; i < 10; i++)
		assert_true(counts[i] > 10);
	print_message("%u steps met a device error\n", faults_hit);
	assert_true(faults_hit > 40 || !on_model);
	fault = NONE;
	ipu_session_destroy(s);
	remove_w_file();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S25_random_sequence_matches_the_model),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
