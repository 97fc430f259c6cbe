// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_faults.c - device errors in the middle of session calls,
 * made with the model backend's fault injection (IPU_MODEL_FAULTS,
 * __ipu_model_faults_set()): a call the device rejects changes nothing
 * the caller can see (S25), except that the host copies are out of sync
 * until a fetch succeeds; a launch that fails part way leaves them out of
 * sync (S13); an exit whose fetch fails stays attached (S07).
 *
 * Every session here is on "ipu_model", also in the guest's copy of the
 * tests, as the faults are the model's.
 */
#include "session_helpers.h"

static const uint64_t two = 2;

/* The accumulator of session_helpers.h, w = {1, 2}, on the model. */
static struct ipu_session *acc(void)
{
	return sh_session_on(sh_acc_ir(1, 1, 2, NULL), "ipu_model");
}

static void arm(const char *spec)
{
	assert_int_equal(__ipu_model_faults_set(spec), 0);
}

/* The host copy of w, without fetching (what the session holds). */
static void host_w(const struct ipu_session *s, float *w)
{
	sh_host_f32(s, "w", false, w, 2);
}

static void test_S25_write_the_device_rejects_changes_nothing(void **state)
{
	const float old[2] = { 1, 2 }, ran[2] = { 2, 3 };
	float nv[2] = { 7, 8 }, w[2], y[2];
	struct ipu_host_buffer b = sh_buf(nv, IPU_DTYPE_FLOAT32, 1, 2ull);
	struct ipu_session *s = acc();

	(void)state;
	sh_attach(s);
	arm("dma:1");
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), -EIO);
	sh_assert_msg(s, "injected fault");
	arm(NULL);
	/* The old values stay, on the host and on the device, in sync. */
	host_w(s, w);
	sh_assert_floats(w, old, 2);
	assert_true(__ipu_session_in_sync(s));
	sh_get_f32(s, "w", w, 1, &two);
	sh_assert_floats(w, old, 2);
	assert_int_equal(sh_run_acc(s, 1, y, 0), 0);
	sh_assert_floats(y, ran, 2);
	ipu_session_destroy(s);
}

static void test_S25_write_whose_undo_fails_leaves_copies_stale(void **state)
{
	const float old[2] = { 1, 2 };
	float nv[2] = { 7, 8 }, w[2];
	struct ipu_host_buffer b = sh_buf(nv, IPU_DTYPE_FLOAT32, 1, 2ull);
	struct ipu_session *s = acc();

	(void)state;
	sh_attach(s);
	/* The write's transfers fail, and so does putting w back. */
	arm("dma:%1");
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), -EIO);
	arm(NULL);
	sh_assert_msg(s, "putting the old values back failed too");
	host_w(s, w);
	sh_assert_floats(w, old, 2);
	assert_false(__ipu_session_in_sync(s));
	/* The device kept its w: the next fetch says so. */
	sh_get_f32(s, "w", w, 1, &two);
	sh_assert_floats(w, old, 2);
	assert_true(__ipu_session_in_sync(s));
	ipu_session_destroy(s);
}

static void test_S25_write_detached_needs_no_device(void **state)
{
	float nv[2] = { 7, 8 }, w[2];
	struct ipu_host_buffer b = sh_buf(nv, IPU_DTYPE_FLOAT32, 1, 2ull);
	struct ipu_session *s = acc();

	(void)state;
	arm("dma:1");
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), 0);
	arm(NULL);
	sh_get_f32(s, "w", w, 1, &two);
	sh_assert_floats(w, nv, 2);
	ipu_session_destroy(s);
}

static void test_S13_launch_failing_part_way_leaves_copies_stale(void **state)
{
	const float old[2] = { 1, 2 }, ran[2] = { 6, 7 };
	struct ipu_session *s = acc();
	float w[2], y[2];

	(void)state;
	sh_attach(s);
	arm("launch:1");
	assert_int_equal(sh_run_acc(s, 5, y, 0), -EIO);
	sh_assert_msg(s, "injected fault");
	arm(NULL);
	/* The program ran on the device: the host copy is stale. */
	assert_false(__ipu_session_in_sync(s));
	host_w(s, w);
	sh_assert_floats(w, old, 2);
	sh_get_f32(s, "w", w, 1, &two);
	sh_assert_floats(w, ran, 2);
	assert_true(__ipu_session_in_sync(s));
	ipu_session_destroy(s);
}

static void test_S25_any_device_error_leaves_copies_stale(void **state)
{
	struct ipu_session *s = acc();
	float y[2];

	(void)state;
	sh_attach(s);
	assert_true(__ipu_session_in_sync(s));
	/* The first input fails: nothing ran, but the session cannot know
	 * what the device did; it fetches before trusting its copies. */
	arm("dma:1");
	assert_int_equal(sh_run_acc(s, 5, y, 0), -EIO);
	arm(NULL);
	assert_false(__ipu_session_in_sync(s));
	assert_true(y[0] == 0 && y[1] == 0);
	ipu_session_destroy(s);
}

static void test_S07_exit_whose_fetch_fails_stays_attached(void **state)
{
	const float ran[2] = { 2, 3 };
	struct ipu_session *s = acc();
	float w[2], y[2];

	(void)state;
	sh_attach(s);
	assert_int_equal(sh_run_acc(s, 1, y, 0), 0);
	arm("dma:1");
	assert_int_equal(ipu_session_detach(s, 0), -EIO);
	arm(NULL);
	/* As PopXL: still attached, the weights still on the device. */
	assert_true(ipu_session_is_attached(s));
	host_w(s, w);
	sh_assert_floats(w, (const float[]){ 1, 2 }, 2);
	assert_int_equal(ipu_session_detach(s, 0), 0);
	assert_false(ipu_session_is_attached(s));
	sh_get_f32(s, "w", w, 1, &two);
	sh_assert_floats(w, ran, 2);
	ipu_session_destroy(s);
}

static void test_S25_failed_fetch_keeps_the_copies(void **state)
{
	const float ran[2] = { 2, 3 };
	struct ipu_session *s = acc();
	float w[2], y[2];
	struct ipu_host_buffer b = sh_buf(w, IPU_DTYPE_FLOAT32, 1, 2ull);

	(void)state;
	sh_attach(s);
	assert_int_equal(sh_run_acc(s, 1, y, 0), 0);
	arm("dma:1");
	w[0] = w[1] = -1;
	assert_int_equal(ipu_session_get_tensor_data(s, "w", &b), -EIO);
	assert_true(w[0] == -1 && w[1] == -1);
	assert_int_equal(ipu_session_weights_to_host(s), 0); /* fault used */
	arm(NULL);
	sh_get_f32(s, "w", w, 1, &two);
	sh_assert_floats(w, ran, 2);
	ipu_session_destroy(s);
}

static void test_S25_failed_attach_is_undone(void **state)
{
	struct ipu_session *s = acc();
	float y[2];

	(void)state;
	arm("attach:1");
	assert_int_equal(ipu_session_attach(s), -EIO);
	assert_false(ipu_session_is_attached(s));
	arm("dma:1"); /* the program's upload */
	assert_int_equal(ipu_session_attach(s), -EIO);
	assert_false(ipu_session_is_attached(s));
	arm(NULL);
	sh_attach(s);
	assert_int_equal(sh_run_acc(s, 1, y, 0), 0);
	ipu_session_destroy(s);
}

/* The environment variable, read when the model is made, and "every Nth". */
static void test_model_faults_from_the_environment(void **state)
{
	struct ipu_session *s;
	float y[2];
	int i, failed = 0;

	(void)state;
	setenv("IPU_MODEL_FAULTS", "attach:1", 1);
	assert_int_equal(__ipu_model_reinit(), 0);
	s = acc();
	assert_int_equal(ipu_session_attach(s), -EIO);
	sh_attach(s);
	/* Every 3rd transfer: a good run has 2 (x, y); a failed x cancels
	 * the launch and y linked after it. */
	arm("dma:%3");
	for (i = 0; i < 6; i++)
		failed += sh_run_acc(s, 1, y, 0) == -EIO;
	arm(NULL);
	assert_int_equal(failed, 3);
	ipu_session_destroy(s);

	setenv("IPU_MODEL_FAULTS", "dma:x", 1);
	assert_int_equal(__ipu_model_reinit(), 0);
	{
		IPU_OPTS(ipu_session_opts, o, .device = "ipu_model");

		assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL),
						    &o, &s),
				 -EINVAL);
	}
	if (!strstr(ipu_session_errmsg(NULL), "IPU_MODEL_FAULTS=\"dma:x\""))
		fail_msg("%s", ipu_session_errmsg(NULL));
	unsetenv("IPU_MODEL_FAULTS");
	assert_int_equal(__ipu_model_reinit(), 0);
	assert_int_equal(__ipu_model_faults_set("launch"), -EINVAL);
	assert_int_equal(__ipu_model_faults_set("dma:%0"), -EINVAL);
	assert_int_equal(__ipu_model_faults_set("disk:1"), -EINVAL);
	assert_int_equal(__ipu_model_faults_set("dma:1,launch:%2,attach:0"), 0);
	assert_int_equal(__ipu_model_faults_set(""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S25_write_the_device_rejects_changes_nothing),
		cmocka_unit_test(test_S25_write_whose_undo_fails_leaves_copies_stale),
		cmocka_unit_test(test_S25_write_detached_needs_no_device),
		cmocka_unit_test(test_S13_launch_failing_part_way_leaves_copies_stale),
		cmocka_unit_test(test_S25_any_device_error_leaves_copies_stale),
		cmocka_unit_test(test_S07_exit_whose_fetch_fails_stays_attached),
		cmocka_unit_test(test_S25_failed_fetch_keeps_the_copies),
		cmocka_unit_test(test_S25_failed_attach_is_undone),
		cmocka_unit_test(test_model_faults_from_the_environment),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
