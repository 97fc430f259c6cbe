// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_timeout.c - every wait of a session call is bounded
 * (issue 9.2): a launch the device never completes (the model's fault
 * "hang") fails the call with -ETIMEDOUT and a message that names the
 * device, the time waited and where to look (ipu-info, reset); before the
 * call returns, the session has reset the device and reaped every command
 * of the batch, so that nothing writes the caller's buffers afterwards and
 * no completion is left over for the next call to take as its own.
 */
#include "session_helpers.h"

#include <unistd.h>

static const uint64_t two = 2;

/*
 * Reset counts are checked as "at least one more": after a reset the
 * session waits the same short bound for the commands to end, and on a
 * loaded machine it may pass before the model's engine gets to run, so
 * the session resets again (and says so): correct, and not a failure.
 */

/*
 * The accumulator w = {1, 2}, created with waits bounded to @ms. The
 * bound is lifted again at once (and the option checked to have reached
 * the session): bounded() puts it back around the one call that must
 * time out, so that no other call races @ms on a slow machine.
 */
static struct ipu_session *acc(uint32_t ms)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model",
		 .attach_timeout_ms = 1, .wait_timeout_ms = ms);
	struct ipu_session *s = NULL;

	if (ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts, &s))
		fail_msg("ipu_session_create: %s", ipu_session_errmsg(NULL));
	assert_int_equal(__ipu_session_set_wait_timeout(s, 0), ms);
	return s;
}

/* @err of a call made with the session's waits bounded to @ms. */
#define bounded(s, ms, call)						\
	({								\
		int err_;						\
		__ipu_session_set_wait_timeout((s), (ms));		\
		err_ = (call);						\
		__ipu_session_set_wait_timeout((s), 0);			\
		err_;							\
	})

static void test_S25_hung_launch_times_out_resets_and_reaps(void **state)
{
	const float ran[2] = { 2, 3 };
	struct ipu_session *s = acc(300);
	uint64_t before;
	float y[2], w[2];

	(void)state;
	sh_attach(s);
	before = sh_model_resets(0);
	assert_int_equal(__ipu_model_faults_set("hang:1"), 0);
	assert_int_equal(bounded(s, 300, sh_run_acc(s, 7, y, -1)), -ETIMEDOUT);
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
	sh_assert_msg(s, "run: the launch did not complete within 300 ms on model:0");
	sh_assert_msg(s, "ipu-info");
	sh_assert_msg(s, "reset");
	/* The session reset the device; the output never came. */
	assert_true(sh_model_resets(0) >= before + 1);
	assert_true(y[0] == -1 && y[1] == -1);
	assert_false(__ipu_session_in_sync(s));
	/* Nothing is left in the queue to pass for the next run's. */
	assert_int_equal(sh_run_acc(s, 1, y, -1), 0);
	sh_assert_floats(y, ran, 2);
	sh_get_f32(s, "w", w, 1, &two);
	sh_assert_floats(w, ran, 2);
	ipu_session_destroy(s);
}

/*
 * stderr of @call in @buf (NUL-terminated, at most @len - 1 bytes), by
 * pointing fd 2 at a temporary file around it.
 */
#define stderr_of(buf, len, call)						\
	({								\
		FILE *tmp_ = tmpfile();					\
		int saved_, ret_se_;					\
		size_t n_;						\
									\
		assert_non_null(tmp_);					\
		fflush(stderr);						\
		saved_ = dup(2);					\
		assert_true(saved_ >= 0);				\
		assert_true(dup2(fileno(tmp_), 2) == 2);		\
		ret_se_ = (call);						\
		fflush(stderr);						\
		assert_true(dup2(saved_, 2) == 2);			\
		close(saved_);						\
		rewind(tmp_);						\
		n_ = fread((buf), 1, (len) - 1, tmp_);			\
		(buf)[n_] = '\0';					\
		fclose(tmp_);						\
		ret_se_;							\
	})

/*
 * The reset that should end a hung launch fails (the model's fault
 * "reset"): the message says so, and the session, whose commands are still
 * out (the launch and the output transfer behind it), says on stderr that
 * it resets again after the bound, and does; the
 * call returns only once the second reset has ended the launch, and the
 * device works afterwards.
 */
static void test_S25_failed_reset_is_reported_and_retried(void **state)
{
	const float ran[2] = { 2, 3 };
	struct ipu_session *s = acc(200);
	char err[4096];
	uint64_t before;
	float y[2];

	(void)state;
	sh_attach(s);
	before = sh_model_resets(0);
	assert_int_equal(__ipu_model_faults_set("hang:1,reset:1"), 0);
	assert_int_equal(stderr_of(err, sizeof(err),
				   bounded(s, 200, sh_run_acc(s, 7, y, -1))),
			 -ETIMEDOUT);
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
	sh_assert_msg(s, "the launch did not complete within 200 ms on model:0");
	sh_assert_msg(s, "resetting it failed: model:0: resetting");
	if (!strstr(err, "run: 2 commands on model:0 still out 200 ms after a reset; resetting again"))
		fail_msg("stderr: \"%s\"", err);
	/* A reset happened after the failed one and ended the launch. */
	assert_true(sh_model_resets(0) >= before + 1);
	assert_true(y[0] == -1 && y[1] == -1);
	assert_int_equal(sh_run_acc(s, 1, y, -1), 0);
	sh_assert_floats(y, ran, 2);
	ipu_session_destroy(s);
}

/*
 * A transfer the device never completes (the model's fault "xfer_hang"):
 * weights_from_host, a batch of transfers only, fails with -ETIMEDOUT
 * saying the transfers did not complete, after the session reset the
 * device and reaped; the next call works.
 */
static void test_S25_hung_transfer_times_out_resets_and_reaps(void **state)
{
	struct ipu_session *s = acc(200);
	uint64_t before;

	(void)state;
	sh_attach(s);
	before = sh_model_resets(0);
	assert_int_equal(__ipu_model_faults_set("xfer_hang:1"), 0);
	assert_int_equal(bounded(s, 200, ipu_session_weights_from_host(s)),
			 -ETIMEDOUT);
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
	sh_assert_msg(s, "the transfers did not complete within 200 ms on model:0");
	assert_true(sh_model_resets(0) >= before + 1);
	assert_false(__ipu_session_in_sync(s));
	assert_int_equal(ipu_session_weights_from_host(s), 0);
	ipu_session_destroy(s);
}

/* After a timeout and its reset, the device works: the exit fetches. */
static void test_S07_exit_after_a_timeout_fetches_and_detaches(void **state)
{
	struct ipu_session *s = acc(200);
	float y[2];

	(void)state;
	sh_attach(s);
	assert_int_equal(sh_run_acc(s, 1, y, -1), 0);
	assert_int_equal(__ipu_model_faults_set("hang:1"), 0);
	assert_int_equal(bounded(s, 200, sh_run_acc(s, 1, y, -1)), -ETIMEDOUT);
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
	/* S07: the fetch of the exit works after the reset. */
	assert_int_equal(ipu_session_detach(s, 0), 0);
	assert_false(ipu_session_is_attached(s));
	ipu_session_destroy(s);
}

/* Resets of the IPU holding replica @r of @s, through the session's handle. */
static uint64_t replica_resets(const struct ipu_session *s, uint32_t r)
{
	struct ipu_device_info info = { .sz = sizeof(info) };
	struct ipu_device *dev = __ipu_session_replica_device(s, r);

	assert_non_null(dev);
	assert_int_equal(ipu_device_query(dev, &info), 0);
	return info.reset_count;
}

/*
 * A run over two replicas whose launch hangs: the session resets every
 * IPU it holds (a hung launch of a run may sit on any of them), says so
 * naming both, and reaps both replicas' chains before returning.
 */
static void test_S25_replicated_timeout_resets_every_ipu(void **state)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model",
		 .attach_timeout_ms = 1);
	float x[2][2] = { { 1, 1 }, { 2, 2 } }, y[2][2];
	const float ran[2][2] = { { 2, 3 }, { 3, 4 } };
	struct ipu_host_buffer xb = sh_buf(x, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull),
			       yb = sh_buf(y, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull);
	struct ipu_stream_buffer in = sh_sb("x", xb), out = sh_sb("y", yb);
	struct ipu_session *s = NULL;
	uint64_t before[2];
	char names[64];
	uint32_t r;

	(void)state;
	if (ipu_session_create(sh_acc_ir(2, 1, 2, NULL), &opts, &s))
		fail_msg("ipu_session_create: %s", ipu_session_errmsg(NULL));
	sh_attach(s);
	for (r = 0; r < 2; r++)
		before[r] = replica_resets(s, r);
	memset(y, 0xff, sizeof(y));
	assert_int_equal(__ipu_model_faults_set("hang:1"), 0);
	assert_int_equal(bounded(s, 200, ipu_session_run_with_outputs(s, &in, 1,
								    &out, 1, 0)),
			 -ETIMEDOUT);
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
	snprintf(names, sizeof(names), "on %s, %s;",
		 ipu_device_name(__ipu_session_replica_device(s, 0)),
		 ipu_device_name(__ipu_session_replica_device(s, 1)));
	sh_assert_msg(s, names);
	sh_assert_msg(s, "the session reset the devices and waited");
	for (r = 0; r < 2; r++)
		assert_true(replica_resets(s, r) >= before[r] + 1);
	assert_false(__ipu_session_in_sync(s));
	/* Both replicas' chains were reaped: the next run gets its own. */
	sh_run_xy(s, xb, yb);
	sh_assert_floats(&y[0][0], &ran[0][0], 4);
	ipu_session_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S25_hung_launch_times_out_resets_and_reaps),
		cmocka_unit_test(test_S25_failed_reset_is_reported_and_retried),
		cmocka_unit_test(test_S25_hung_transfer_times_out_resets_and_reaps),
		cmocka_unit_test(test_S07_exit_after_a_timeout_fetches_and_detaches),
		cmocka_unit_test(test_S25_replicated_timeout_resets_every_ipu),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
