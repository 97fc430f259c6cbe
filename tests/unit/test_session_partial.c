// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_partial.c - a run whose batch fails part way (issue 9.2):
 * one command in the middle of the batch fails on the device (the model's
 * fault injection fails the Kth transfer), whatever K. The run fails with
 * that command's error; every command of the batch has been reaped when
 * it returns (nothing is left in flight on the session's queue for the
 * next call to take as its own); the host copies are out of sync; and the
 * next run computes from what the device really holds.
 *
 * The batch of a run of 2 replicas, in the order the model moves it:
 * x of replica 0, x of replica 1, (the run), y of replica 0, y of
 * replica 1. The kernel backend's version, an io_uring_enter() failing
 * after part of the batch went in, completes the rest with the error the
 * same way (libipu's kq_submit()); tests/kernel/test_libipu_uring_enter.c
 * drives that path.
 */
#include "session_helpers.h"

#define R 2
/* Elements per stream: enough that a transfer takes a while (a reaper
 * that stopped at the first failure would leave the last one in flight). */
#define N (1u << 20)

/* Whether the session's queue holds a command not reaped yet. */
static bool anything_in_flight(const struct ipu_session *s)
{
	struct ipu_queue *q = __ipu_session_queue(s);
	struct ipu_completion c;

	assert_non_null(q);
	/* Waiting for one more completion than are in flight is refused. */
	return ipu_queue_reap(q, &c, 1, 1, 0) != -EINVAL;
}

/* Run with x = 1 for both replicas; y of each replica into @y. */
static int run(struct ipu_session *s, float *x, float *y)
{
	struct ipu_stream_buffer in = sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32,
							2, (uint64_t)R,
							(uint64_t)N)),
				 out = sh_sb("y", sh_buf(y, IPU_DTYPE_FLOAT32,
							 2, (uint64_t)R,
							 (uint64_t)N));

	memset(y, 0, sizeof(float) * R * N);
	return ipu_session_run_with_outputs(s, &in, 1, &out, 1, 0);
}

/* w[0] and w[N - 1] as the device holds them (fetching). */
static void device_w(struct ipu_session *s, float *w)
{
	const uint64_t n = N;
	float *all = malloc(sizeof(float) * N);

	assert_non_null(all);
	sh_get_f32(s, "w", all, 1, &n);
	w[0] = all[0];
	w[1] = all[N - 1];
	free(all);
}

static void test_S25_middle_of_a_batch_failing_reaps_it_all(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(R, 1, N, NULL));
	float *x = malloc(sizeof(float) * R * N);
	float *y = malloc(sizeof(float) * R * N);
	float w[2], before[2];
	char spec[16];
	uint32_t k, r, i;

	(void)state;
	assert_non_null(x);
	assert_non_null(y);
	for (i = 0; i < R * N; i++)
		x[i] = 1;
	sh_attach(s);
	for (k = 1; k <= 4; k++) {
		device_w(s, before);
		assert_true(__ipu_session_in_sync(s));
		snprintf(spec, sizeof(spec), "dma:%%%u", k);
		assert_int_equal(__ipu_model_faults_set(spec), 0);
		if (run(s, x, y) != -EIO)
			fail_msg("transfer %u failing: %s", k,
				 ipu_session_errmsg(s));
		assert_int_equal(__ipu_model_faults_set(NULL), 0);
		sh_assert_msg(s, "injected fault");
		if (anything_in_flight(s))
			fail_msg("transfer %u failing left commands in flight", k);
		assert_false(__ipu_session_in_sync(s));
		/* An input failed: the run never ran. An output: it did. */
		device_w(s, w);
		for (r = 0; r < 2; r++)
			if (w[r] != before[r] + (k > 2 ? 1.0f : 0.0f))
				fail_msg("transfer %u failing: w[%u] = %g after %g",
					 k, r, (double)w[r], (double)before[r]);
		/* The next run takes only its own completions. */
		assert_int_equal(run(s, x, y), 0);
		assert_false(anything_in_flight(s));
		for (r = 0; r < R; r++)
			if (y[r * N] != w[0] + 1 || y[r * N + N - 1] != w[1] + 1)
				fail_msg("after transfer %u failed: replica %u y = (%g .. %g), w = (%g .. %g)",
					 k, r, (double)y[r * N],
					 (double)y[r * N + N - 1], (double)w[0],
					 (double)w[1]);
	}
	ipu_session_destroy(s);
	free(x);
	free(y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S25_middle_of_a_batch_failing_reaps_it_all),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
