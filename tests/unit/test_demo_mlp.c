// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_demo_mlp.c - the demo's network (userspace/examples/mlp.h) on the
 * model through libsession: the forward pass against plain C, the
 * hand-written backward pass against central finite differences of the
 * device's own loss, the trained weights against plain C's SGD, and
 * training that lowers the loss and ends far above chance, reproducibly.
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

#include "../../userspace/examples/mlp.h"

#define DEVICE "ipu_model"

/* A small network and one step over 2 replicas: cheap enough to take the
 * finite difference of every parameter. */
static const struct mlp_config small = {
	.hidden = 5, .batch = 6, .steps = 1, .replicas = 2, .lr = 0.5f,
};

struct fixture {
	struct mlp_config cfg;
	struct mlp_data data;
	size_t *idx;
	float *params;
	size_t nparams;
};

static int setup_small(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	uint64_t rng = 42;

	if (!f)
		return -1;
	f->cfg = small;
	if (mlp_data_spiral(&f->data, 4, 7))
		return -1;
	f->nparams = mlp_params_layout(&f->cfg, NULL);
	f->params = malloc(f->nparams * sizeof(float));
	f->idx = malloc(f->data.n * sizeof(size_t));
	if (!f->params || !f->idx)
		return -1;
	mlp_params_init(&f->cfg, f->params, 3);
	/* Non-zero biases, so that their gradients are not a special case. */
	for (size_t i = 0; i < f->nparams; i++)
		f->params[i] += (float)((int)(mlp_rng_next(&rng) % 201) - 100) *
				1e-3f;
	for (size_t i = 0; i < f->data.n; i++)
		f->idx[i] = i;
	mlp_shuffle(f->idx, f->data.n, &rng);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	mlp_data_free(&f->data);
	free(f->idx);
	free(f->params);
	free(f);
	return 0;
}

static struct mlp_session *open_ok(const struct mlp_config *cfg,
				   enum mlp_program prog, const float *params,
				   const char *device)
{
	struct mlp_session *ms = NULL;
	char err[1024];
	int ret = mlp_session_open(cfg, prog, params, device, &ms, err,
				   sizeof(err));

	if (ret)
		fail_msg("mlp_session_open: %d: %s", ret, err);
	return ms;
}

static void run_ok(struct mlp_session *ms, const struct mlp_data *d,
		   const size_t *idx, struct mlp_stats *st)
{
	int ret = mlp_session_run(ms, d, idx, st);

	if (ret)
		fail_msg("mlp_session_run: %d: %s", ret, mlp_session_errmsg(ms));
}

/* The loss of one run of the eval program with @params. */
static double eval_loss(struct mlp_session *ms, const struct fixture *f,
			const float *params)
{
	struct mlp_stats st = { 0 };

	assert_int_equal(mlp_session_set_params(ms, params), 0);
	run_ok(ms, &f->data, f->idx, &st);
	return st.loss_sum / (double)st.loss_count;
}

/* Plain C, in double: the mean loss over the samples of one run. */
static double reference_loss(const struct fixture *f, size_t *correct)
{
	struct mlp_param p[MLP_NUM_PARAMS];
	size_t n = mlp_samples_per_run(&f->cfg);
	double loss = 0;

	assert_true(f->cfg.hidden <= 16);
	mlp_params_layout(&f->cfg, p);
	*correct = 0;
	for (size_t s = 0; s < n; s++) {
		double h[3][16] = { { 0 } }, z[MLP_CLASSES], max = -INFINITY,
		       sum = 0;
		const float *x = &f->data.x[f->idx[s] * MLP_FEATURES];
		unsigned int label = f->data.label[f->idx[s]], best = 0;

		for (int k = 0; k < MLP_FEATURES; k++)
			h[0][k] = x[k];
		for (int l = 0; l < MLP_LAYERS; l++) {
			const float *w = f->params + p[2 * l].offset;
			const float *b = f->params + p[2 * l + 1].offset;
			uint64_t in = p[2 * l].shape[0], out = p[2 * l].shape[1];

			for (uint64_t j = 0; j < out; j++) {
				double a = b[j];

				for (uint64_t k = 0; k < in; k++)
					a += h[l][k] * w[k * out + j];
				if (l + 1 < MLP_LAYERS)
					h[l + 1][j] = tanh(a);
				else
					z[j] = a;
			}
		}
		for (int c = 0; c < MLP_CLASSES; c++) {
			max = fmax(max, z[c]);
			if (z[c] > z[best])
				best = c;
		}
		for (int c = 0; c < MLP_CLASSES; c++)
			sum += exp(z[c] - max);
		loss -= z[label] - max - log(sum);
		*correct += best == label;
	}
	return loss / (double)n;
}

static void test_forward_matches_plain_c(void **state)
{
	struct fixture *f = *state;
	struct mlp_session *ms = open_ok(&f->cfg, MLP_EVAL, f->params, DEVICE);
	struct mlp_stats st = { 0 };
	size_t correct;
	double want = reference_loss(f, &correct);

	run_ok(ms, &f->data, f->idx, &st);
	assert_int_equal(st.loss_count, f->cfg.steps * f->cfg.replicas);
	assert_int_equal(st.seen, mlp_samples_per_run(&f->cfg));
	assert_int_equal(st.correct, correct);
	if (!(fabs(st.loss_sum / (double)st.loss_count - want) < 1e-5))
		fail_msg("loss %.8f, plain C %.8f",
			 st.loss_sum / (double)st.loss_count, want);
	mlp_session_close(ms);
}

static void test_gradients_match_finite_differences(void **state)
{
	struct fixture *f = *state;
	struct mlp_param p[MLP_NUM_PARAMS];
	struct mlp_session *gs, *es;
	struct mlp_stats st = { 0 };
	float *grads = calloc(f->nparams, sizeof(float));
	float *w = malloc(f->nparams * sizeof(float));
	const float eps = 1e-2f;
	double norm = 0;

	assert_non_null(grads);
	assert_non_null(w);
	mlp_params_layout(&f->cfg, p);
	gs = open_ok(&f->cfg, MLP_GRADS, f->params, DEVICE);
	run_ok(gs, &f->data, f->idx, &st);
	assert_int_equal(mlp_session_get_grads(gs, grads), 0);
	mlp_session_close(gs);

	es = open_ok(&f->cfg, MLP_EVAL, f->params, DEVICE);
	memcpy(w, f->params, f->nparams * sizeof(float));
	for (int k = 0; k < MLP_NUM_PARAMS; k++) {
		for (size_t i = p[k].offset; i < p[k].offset + p[k].count; i++) {
			double up, down, fd;

			w[i] = f->params[i] + eps;
			up = eval_loss(es, f, w);
			w[i] = f->params[i] - eps;
			down = eval_loss(es, f, w);
			w[i] = f->params[i];
			fd = (up - down) / (2.0 * (double)eps);
			norm += fabs(fd);
			/* float32 losses: about 1e-7 of noise over 2 * eps,
			 * plus the O(eps^2) error of the central difference. */
			if (!(fabs(grads[i] - fd) <= 1e-4 + 1e-2 * fabs(fd)))
				fail_msg("%s[%zu]: backward pass %.6g, finite difference %.6g",
					 p[k].name, i - p[k].offset, grads[i], fd);
		}
	}
	/* Not vacuous: the loss does depend on the parameters. */
	assert_true(norm > 0.1);
	mlp_session_close(es);
	free(w);
	free(grads);
}

/* One epoch of @ms over @d in a fresh order from @rng. */
static struct mlp_stats epoch(struct mlp_session *ms, const struct mlp_data *d,
			      size_t *order, uint64_t *rng)
{
	struct mlp_stats st = { 0 };
	int ret;

	mlp_shuffle(order, d->n, rng);
	ret = mlp_session_run_all(ms, d, order, &st);
	if (ret)
		fail_msg("epoch: %d: %s", ret, mlp_session_errmsg(ms));
	return st;
}

/*
 * Train @cfg for @epochs on a 3 x @per_class spiral from @seed; returns
 * the first and last epoch's stats and the final weights' checksum.
 */
static uint64_t train(const struct mlp_config *cfg, const char *device,
		      unsigned int epochs, size_t per_class, uint64_t seed,
		      struct mlp_stats *first, struct mlp_stats *last)
{
	struct mlp_data d;
	size_t nparams = mlp_params_layout(cfg, NULL);
	float *params = malloc(nparams * sizeof(float));
	size_t *order;
	struct mlp_session *ms;
	uint64_t rng = seed, sum;

	assert_non_null(params);
	assert_int_equal(mlp_data_spiral(&d, per_class, seed), 0);
	order = malloc(d.n * sizeof(*order));
	assert_non_null(order);
	for (size_t i = 0; i < d.n; i++)
		order[i] = i;
	mlp_params_init(cfg, params, seed);
	ms = open_ok(cfg, MLP_TRAIN, params, device);
	for (unsigned int e = 0; e < epochs; e++) {
		struct mlp_stats st = epoch(ms, &d, order, &rng);

		if (e == 0)
			*first = st;
		*last = st;
	}
	assert_int_equal(mlp_session_get_params(ms, params), 0);
	mlp_session_close(ms);
	sum = mlp_checksum(params, nparams);
	mlp_data_free(&d);
	free(order);
	free(params);
	return sum;
}

static void test_training_lowers_loss_and_beats_chance(void **state)
{
	struct mlp_config cfg;
	struct mlp_stats first, last;
	double l0, l1, acc;

	(void)state;
	mlp_config_default(&cfg);
	train(&cfg, DEVICE, 30, 256, 1, &first, &last);
	l0 = first.loss_sum / (double)first.loss_count;
	l1 = last.loss_sum / (double)last.loss_count;
	acc = (double)last.correct / (double)last.seen;
	print_message("loss %.4f -> %.4f, accuracy %.3f\n", l0, l1, acc);
	/* Chance is 1/3 and a loss of ln 3 = 1.0986. */
	if (!(l1 < 0.5 * l0 && acc > 0.8))
		fail_msg("loss %.4f -> %.4f, final accuracy %.3f", l0, l1, acc);
}

static void test_training_is_reproducible(void **state)
{
	struct mlp_config cfg;
	struct mlp_stats first, last;
	uint64_t a, b, c;

	(void)state;
	mlp_config_default(&cfg);
	a = train(&cfg, DEVICE, 2, 64, 5, &first, &last);
	b = train(&cfg, DEVICE, 2, 64, 5, &first, &last);
	c = train(&cfg, DEVICE, 2, 64, 6, &first, &last);
	assert_true(a == b);
	assert_true(a != c);
}

/*
 * Plain C, in double: @runs runs of SGD on @cfg's network from @params
 * (updated in place), fed as mlp_session_run() feeds the device (sample
 * idx[i] of a run goes to step i / (replicas * batch), replica
 * (i / batch) % replicas), each step's gradients averaged over the
 * replicas. Written from the maths of mlp.h, not from the IR program, so
 * that it shares no code with the path under test.
 */
static void reference_train(const struct mlp_config *cfg, float *params,
			    const struct mlp_data *d, const size_t *idx,
			    unsigned int runs)
{
	struct mlp_param p[MLP_NUM_PARAMS];
	size_t nparams = mlp_params_layout(cfg, p);
	double *g = calloc(nparams, sizeof(double));
	size_t per_step = (size_t)cfg->replicas * cfg->batch, next = 0;

	assert_non_null(g);
	assert_true(cfg->hidden <= 16);
	for (unsigned int step = 0; step < runs * cfg->steps; step++) {
		memset(g, 0, nparams * sizeof(double));
		for (size_t i = 0; i < per_step; i++, next++) {
			/* h[l]: layer l's input (h[0] = x, h[3] = logits). */
			double h[MLP_LAYERS + 1][16] = { { 0 } }, dz[16] = { 0 },
			       dprev[16], max = -INFINITY, sum = 0;
			const float *x = &d->x[idx[next] * MLP_FEATURES];
			unsigned int label = d->label[idx[next]];

			for (int k = 0; k < MLP_FEATURES; k++)
				h[0][k] = x[k];
			for (int l = 0; l < MLP_LAYERS; l++) {
				const float *w = params + p[2 * l].offset;
				const float *b = params + p[2 * l + 1].offset;
				uint64_t in = p[2 * l].shape[0];
				uint64_t out = p[2 * l].shape[1];

				for (uint64_t j = 0; j < out; j++) {
					double a = b[j];

					for (uint64_t k = 0; k < in; k++)
						a += h[l][k] * w[k * out + j];
					h[l + 1][j] = l + 1 < MLP_LAYERS ? tanh(a) : a;
				}
			}
			for (int c = 0; c < MLP_CLASSES; c++)
				max = fmax(max, h[MLP_LAYERS][c]);
			for (int c = 0; c < MLP_CLASSES; c++)
				sum += exp(h[MLP_LAYERS][c] - max);
			/* d loss / d logits of this sample's share of the
			 * batch mean, then back through the layers. */
			for (int c = 0; c < MLP_CLASSES; c++)
				dz[c] = (exp(h[MLP_LAYERS][c] - max) / sum -
					 (c == (int)label)) / cfg->batch;
			for (int l = MLP_LAYERS - 1; l >= 0; l--) {
				const float *w = params + p[2 * l].offset;
				double *gw = g + p[2 * l].offset;
				double *gb = g + p[2 * l + 1].offset;
				uint64_t in = p[2 * l].shape[0];
				uint64_t out = p[2 * l].shape[1];

				for (uint64_t k = 0; k < in; k++) {
					double s = 0;

					for (uint64_t j = 0; j < out; j++) {
						gw[k * out + j] += h[l][k] * dz[j];
						s += dz[j] * w[k * out + j];
					}
					dprev[k] = s * (1 - h[l][k] * h[l][k]);
				}
				for (uint64_t j = 0; j < out; j++)
					gb[j] += dz[j];
				memcpy(dz, dprev, in * sizeof(double));
			}
		}
		/* All-reduce mean over the replicas, then SGD. */
		for (size_t i = 0; i < nparams; i++)
			params[i] = (float)(params[i] -
					    cfg->lr * g[i] / cfg->replicas);
	}
	free(g);
}

/*
 * What the demo trains is what the maths says: the weights after a few
 * runs of @cfg's train program on @device equal plain C's SGD (float32 on
 * the device, double here: equal to a tolerance far below one step's
 * change). Two runs of two steps: the second run starts from weights the
 * device computed, and every step sees different samples.
 */
static void check_training(const struct fixture *f,
			   const struct mlp_config *cfg, const char *device)
{
	const unsigned int runs = 2;
	float *want = malloc(f->nparams * sizeof(float));
	float *got = malloc(f->nparams * sizeof(float));
	struct mlp_session *ms;
	struct mlp_data d;
	size_t *idx;
	uint64_t rng = 11;
	double moved = 0;

	assert_non_null(want);
	assert_non_null(got);
	assert_int_equal(mlp_data_spiral(&d, 16, 8), 0);
	assert_true(runs * mlp_samples_per_run(cfg) <= d.n);
	idx = malloc(d.n * sizeof(*idx));
	assert_non_null(idx);
	for (size_t i = 0; i < d.n; i++)
		idx[i] = i;
	mlp_shuffle(idx, d.n, &rng);
	memcpy(want, f->params, f->nparams * sizeof(float));
	reference_train(cfg, want, &d, idx, runs);
	for (size_t i = 0; i < f->nparams; i++)
		moved = fmax(moved, fabs((double)want[i] - f->params[i]));
	/* Not vacuous: training moves some weight by far more than the
	 * tolerance below. */
	if (!(moved > 1e-2))
		fail_msg("plain C SGD moved the weights by only %g", moved);

	ms = open_ok(cfg, MLP_TRAIN, f->params, device);
	for (unsigned int r = 0; r < runs; r++) {
		struct mlp_stats st = { 0 };

		run_ok(ms, &d, idx + r * mlp_samples_per_run(cfg), &st);
	}
	assert_int_equal(mlp_session_get_params(ms, got), 0);
	mlp_session_close(ms);
	for (size_t i = 0; i < f->nparams; i++)
		if (!(fabs((double)got[i] - want[i]) <=
		      1e-5 + 1e-4 * fabs(want[i])))
			fail_msg("%s: parameter %zu after %u runs: %.8g, plain C %.8g (start %.8g)",
				 device, i, runs, got[i], want[i], f->params[i]);
	mlp_data_free(&d);
	free(idx);
	free(got);
	free(want);
}

/* The model with 2 replicas (their gradients averaged), and "cpu", the
 * device name users pick for one IPU without replication: each against
 * the independent reference, never against each other (they are one
 * backend). */
static void test_training_matches_plain_c_sgd(void **state)
{
	struct fixture *f = *state;
	struct mlp_config cfg = f->cfg;

	cfg.steps = 2;
	check_training(f, &cfg, "ipu_model");
	cfg.replicas = 1;
	check_training(f, &cfg, "cpu");
}

static void test_bad_config_is_refused(void **state)
{
	struct mlp_config cfg = small;
	struct ipu_ir *ir = NULL;
	char err[256] = "";

	(void)state;
	cfg.hidden = 0;
	assert_int_equal(mlp_build(&cfg, MLP_TRAIN, NULL, &ir, err,
				   sizeof(err)), -EINVAL);
	assert_null(ir);
	assert_non_null(strstr(err, "hidden"));
}

static void test_out_of_range_sample_is_refused(void **state)
{
	struct fixture *f = *state;
	struct mlp_session *ms = open_ok(&f->cfg, MLP_EVAL, f->params, DEVICE);
	struct mlp_stats st = { 0 };
	size_t saved = f->idx[3];

	f->idx[3] = f->data.n;
	assert_int_equal(mlp_session_run(ms, &f->data, f->idx, &st), -EINVAL);
	f->idx[3] = saved;
	assert_non_null(strstr(mlp_session_errmsg(ms), "out of range"));
	assert_int_equal(st.seen, 0);
	mlp_session_close(ms);
}

static void test_grads_only_from_grads_program(void **state)
{
	struct fixture *f = *state;
	struct mlp_session *ms = open_ok(&f->cfg, MLP_EVAL, f->params, DEVICE);
	float *g = calloc(f->nparams, sizeof(float));

	assert_non_null(g);
	assert_int_equal(mlp_session_get_grads(ms, g), -EINVAL);
	mlp_session_close(ms);
	free(g);
}

static void test_data_is_deterministic_and_balanced(void **state)
{
	struct mlp_data a, b;
	size_t count[MLP_CLASSES] = { 0 };

	(void)state;
	assert_int_equal(mlp_data_spiral(&a, 10, 3), 0);
	assert_int_equal(mlp_data_spiral(&b, 10, 3), 0);
	assert_int_equal(a.n, 30);
	assert_memory_equal(a.x, b.x, a.n * MLP_FEATURES * sizeof(float));
	for (size_t i = 0; i < a.n; i++)
		count[a.label[i]]++;
	for (int c = 0; c < MLP_CLASSES; c++)
		assert_int_equal(count[c], 10);
	mlp_data_free(&b);
	assert_int_equal(mlp_data_spiral(&b, 0, 3), -EINVAL);
	assert_null(b.x);
	mlp_data_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_forward_matches_plain_c,
						setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_gradients_match_finite_differences,
						setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_range_sample_is_refused,
						setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_grads_only_from_grads_program,
						setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_training_matches_plain_c_sgd,
						setup_small, teardown),
		cmocka_unit_test(test_training_lowers_loss_and_beats_chance),
		cmocka_unit_test(test_training_is_reproducible),
		cmocka_unit_test(test_bad_config_is_refused),
		cmocka_unit_test(test_data_is_deterministic_and_balanced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
