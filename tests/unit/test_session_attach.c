// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_attach.c - the context manager: entering attaches and
 * sends the weights (S06), leaving fetches them and detaches, enters nest
 * (S07), runtime calls need attachment (S08); busy IPUs, waiting for them
 * and where replicas are placed.
 */
#include <pthread.h>
#include <time.h>

#include "session_helpers.h"

#define NDEV 16

/* Hold every model IPU, as another user of the machine would. */
static void hold_all(struct ipu_device **devs)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	char name[16];
	int i;

	for (i = 0; i < NDEV; i++) {
		snprintf(name, sizeof(name), "model:%d", i);
		assert_int_equal(ipu_device_open(name, &opts, &devs[i]), 0);
	}
}

static void release_all(struct ipu_device **devs)
{
	int i;

	for (i = 0; i < NDEV; i++)
		ipu_device_close(devs[i]);
}

/* Run the accumulator (n = 2) with x = @x; y in @y. */
static void run2(struct ipu_session *s, float x0, float *y)
{
	float x[2] = { x0, x0 };

	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));
}

static void get_w(struct ipu_session *s, float *w)
{
	uint64_t shape = 2;

	sh_get_f32(s, "w", w, 1, &shape);
}

/* ---------------------------------------------------------------------- */
/* S06                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S06_enter_sends_the_host_weights(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 2, NULL));
	float v[2] = { 10, 20 }, y[2];
	const float want[2] = { 10, 20 };
	struct ipu_host_buffer b = sh_buf(v, IPU_DTYPE_FLOAT32, 1, 2ull);

	(void)state;
	/* Detached, a write changes the host copy only... */
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), 0);
	assert_int_equal(__ipu_session_submissions(s), 0);
	/* ...which the enter sends. */
	sh_attach(s);
	assert_int_equal(__ipu_session_submissions(s), 1);
	run2(s, 0, y);
	sh_assert_floats(y, want, 2);
	ipu_session_destroy(s);
}

static void test_S06_busy_ipus_fail_the_enter(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 2, NULL));
	struct ipu_device *devs[NDEV];

	(void)state;
	hold_all(devs);
	assert_int_equal(ipu_session_attach(s), -EBUSY);
	sh_assert_msg(s, "could not attach to device 15");
	sh_assert_msg(s, "in use after 1 ms), see ipu-info for device usage");
	/* The failed enter is undone: nothing to exit. */
	assert_false(ipu_session_is_attached(s));
	assert_int_equal(ipu_session_detach(s, 0), -EINVAL);
	release_all(devs);
	sh_attach(s);
	ipu_session_destroy(s);
}

static void *release_later(void *arg)
{
	struct timespec t = { 0, 30 * 1000000 };

	nanosleep(&t, NULL);
	ipu_device_close(arg);
	return NULL;
}

static void test_S06_enter_waits_for_busy_ipus(void **state)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model",
		 .attach_timeout_ms = 20000);
	struct ipu_device *devs[NDEV];
	struct ipu_session *s;
	pthread_t t;

	(void)state;
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts, &s),
			 0);
	hold_all(devs);
	/* One IPU comes free while the enter waits (or before it tries). */
	assert_int_equal(pthread_create(&t, NULL, release_later, devs[5]), 0);
	sh_attach(s);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_string_equal(ipu_device_name(__ipu_session_replica_device(s, 0)), "model:5");
	devs[5] = NULL;
	release_all(devs);
	ipu_session_destroy(s);
}

static void test_S06_failed_enter_is_undone(void **state)
{
	struct ipu_session *s;
	uint64_t n = 512 * 1024; /* 2 MiB of float32: more than a 1 MiB IPU */

	(void)state;
	setenv("IPU_MODEL_MEM_MB", "1", 1);
	assert_int_equal(__ipu_model_reinit(), 0);
	{
		struct ipu_ir *ir = sh_ir(1, 1);
		ipu_tensor w = sh_var(ir, "w", n, NULL, NULL);

		sh_check(ir, ipu_ir_relu(ir, w));
		s = sh_session(ir);
	}
	assert_int_equal(ipu_session_attach(s), -ENOSPC);
	sh_assert_msg(s, "placing replica 0");
	assert_false(ipu_session_is_attached(s));
	/* Every IPU was given back. */
	{
		struct ipu_device *dev;

		IPU_OPTS(ipu_open_opts, o, .flags = IPU_OPEN_ATTACH);
		assert_int_equal(ipu_device_open("model:0", &o, &dev), 0);
		ipu_device_close(dev);
	}
	ipu_session_destroy(s);
	setenv("IPU_MODEL_MEM_MB", "64", 1);
	assert_int_equal(__ipu_model_reinit(), 0);
}

/* ---------------------------------------------------------------------- */
/* S07                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S07_exit_fetches_the_weights_and_detaches(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 2, NULL));
	const float want[2] = { 6, 7 };
	float y[2], w[2];

	(void)state;
	sh_attach(s);
	run2(s, 5, y);
	assert_int_equal(ipu_session_detach(s, 0), 0);
	assert_false(ipu_session_is_attached(s));
	get_w(s, w);
	sh_assert_floats(w, want, 2);
	ipu_session_destroy(s);
}

static void test_S07_exit_with_an_error_does_not_fetch(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 2, NULL));
	const float want[2] = { 1, 2 };
	float y[2], w[2];

	(void)state;
	sh_attach(s);
	run2(s, 5, y);
	assert_int_equal(ipu_session_detach(s, IPU_DETACH_ERROR), 0);
	assert_false(ipu_session_is_attached(s));
	get_w(s, w);
	sh_assert_floats(w, want, 2);
	ipu_session_destroy(s);
}

static void test_S07_enters_nest(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 2, NULL));
	const float want1[2] = { 2, 3 }, want2[2] = { 3, 4 };
	uint64_t subs;
	float y[2], w[2];

	(void)state;
	sh_attach(s);
	run2(s, 1, y);
	sh_assert_floats(y, want1, 2);
	subs = __ipu_session_submissions(s);
	/* An inner enter changes nothing: no weights from host. */
	sh_attach(s);
	assert_int_equal(__ipu_session_submissions(s), subs);
	sh_attach(s);
	assert_int_equal(ipu_session_detach(s, 0), 0);
	/* Its exit leaves the device attached, without fetching. */
	assert_int_equal(ipu_session_detach(s, 0), 0);
	assert_true(ipu_session_is_attached(s));
	assert_int_equal(__ipu_session_submissions(s), subs);
	assert_false(__ipu_session_in_sync(s));
	/* The device kept its state across the inner context. */
	run2(s, 1, y);
	sh_assert_floats(y, want2, 2);
	assert_int_equal(ipu_session_detach(s, 0), 0);
	assert_false(ipu_session_is_attached(s));
	get_w(s, w);
	sh_assert_floats(w, want2, 2);
	ipu_session_destroy(s);
}

static void test_S07_exit_without_enter(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 2, NULL));

	(void)state;
	assert_int_equal(ipu_session_detach(s, 0), -EINVAL);
	sh_assert_msg(s, "no attach to match");
	ipu_session_destroy(s);
}

static void test_S07_exit_with_unknown_flags(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 2, NULL));

	(void)state;
	sh_attach(s);
	assert_int_equal(ipu_session_detach(s, 1u << 5), -EINVAL);
	sh_assert_msg(s, "unknown flags 0x20");
	assert_true(ipu_session_is_attached(s));
	ipu_session_destroy(s);
}

static void test_S07_destroy_detaches_without_fetching(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 2, NULL));
	struct ipu_device *dev;
	float y[2];

	(void)state;
	sh_attach(s);
	run2(s, 1, y);
	ipu_session_destroy(s);
	/* The IPU is free again. */
	IPU_OPTS(ipu_open_opts, o, .flags = IPU_OPEN_ATTACH);
	assert_int_equal(ipu_device_open("model:0", &o, &dev), 0);
	ipu_device_close(dev);
}

/* ---------------------------------------------------------------------- */
/* S08                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S08_is_attached_follows_the_context(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 2, NULL));

	(void)state;
	assert_false(ipu_session_is_attached(s));
	sh_attach(s);
	assert_true(ipu_session_is_attached(s));
	assert_int_equal(ipu_session_detach(s, 0), 0);
	assert_false(ipu_session_is_attached(s));
	assert_false(ipu_session_is_attached(NULL));
	ipu_session_destroy(s);
}

static void test_S08_runtime_calls_need_attachment(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 2, NULL));
	struct ipu_stream_buffer in, *out = NULL;
	float x[2] = { 1, 1 }, y[2];
	size_t n = 7;

	(void)state;
	in = sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull));
	{
		struct ipu_stream_buffer o = sh_sb("y", sh_buf(y, IPU_DTYPE_FLOAT32,
							     1, 2ull));

		assert_int_equal(ipu_session_run_with_outputs(s, &in, 1, &o, 1, 0),
				 -EPERM);
		sh_assert_msg(s, "run: the session is not attached: attach first");
	}
	assert_int_equal(ipu_session_run(s, &in, 1, &out, &n, 0), -EPERM);
	assert_null(out);
	assert_int_equal(n, 7);
	assert_int_equal(ipu_session_weights_from_host(s), -EPERM);
	sh_assert_msg(s, "weights_from_host: the session is not attached");
	assert_int_equal(ipu_session_weights_to_host(s), -EPERM);
	sh_assert_msg(s, "weights_to_host: the session is not attached");
	ipu_session_destroy(s);
}

/* ---------------------------------------------------------------------- */
/* Placement                                                               */
/* ---------------------------------------------------------------------- */

static void test_S06_replicas_on_their_first_ipu(void **state)
{
	struct ipu_ir *ir = sh_acc_ir(2, 1, 2, NULL);
	IPU_OPTS(ipu_open_opts, o, .flags = IPU_OPEN_ATTACH);
	struct ipu_session *s;
	struct ipu_device *dev;
	int i;

	(void)state;
	/* The accumulator's ops on two IPUs: 2 replicas x 2 IPUs. */
	assert_int_equal(ipu_ir_push_ipu(ir, 1), 0);
	sh_check(ir, ipu_ir_relu(ir, ipu_ir_scalar(ir, IPU_DTYPE_FLOAT32, 1)));
	assert_int_equal(ipu_ir_pop_ipu(ir), 0);
	s = sh_session(ir);
	assert_int_equal(ipu_session_num_ipus(s), 4);
	sh_attach(s);
	assert_string_equal(ipu_device_name(__ipu_session_replica_device(s, 0)), "model:0");
	assert_string_equal(ipu_device_name(__ipu_session_replica_device(s, 1)), "model:2");
	/* The whole aligned set is held, the IPUs without arenas too. */
	for (i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "model:%d", i);
		assert_int_equal(ipu_device_open(name, &o, &dev), -EBUSY);
	}
	assert_int_equal(ipu_device_open("model:4", &o, &dev), 0);
	ipu_device_close(dev);
	ipu_session_destroy(s);
}

static void test_S06_sessions_share_the_machine(void **state)
{
	struct ipu_session *a = sh_session(sh_acc_ir(2, 1, 2, NULL));
	struct ipu_session *b = sh_session(sh_acc_ir(2, 1, 2, NULL));
	float x[2][2] = { { 1, 1 }, { 2, 2 } }, y[2][2];
	const float want[4] = { 2, 3, 3, 4 };

	(void)state;
	sh_attach(a);
	sh_attach(b);
	assert_string_equal(ipu_device_name(__ipu_session_replica_device(a, 0)), "model:0");
	assert_string_equal(ipu_device_name(__ipu_session_replica_device(b, 0)), "model:2");
	sh_run_xy(b, sh_buf(x, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull));
	sh_assert_floats(&y[0][0], want, 4);
	sh_run_xy(a, sh_buf(x, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull));
	sh_assert_floats(&y[0][0], want, 4);
	ipu_session_destroy(a);
	ipu_session_destroy(b);
}

/* "auto" with IPU_DEVICE=@env, an attach timeout of 1 ms. */
static int create_auto(struct ipu_ir *ir, const char *env,
		       struct ipu_session **s)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "auto",
		 .attach_timeout_ms = 1);
	int ret;

	setenv("IPU_DEVICE", env, 1);
	ret = ipu_session_create(ir, &opts, s);
	unsetenv("IPU_DEVICE");
	return ret;
}

/* IPU_DEVICE names one IPU: the session attaches that one, or fails
 * naming it, never another that happens to be free. */
static void test_S24_IPU_DEVICE_names_the_ipu_attached(void **state)
{
	IPU_OPTS(ipu_open_opts, o, .flags = IPU_OPEN_ATTACH);
	struct ipu_device *held;
	struct ipu_session *s;

	(void)state;
	assert_int_equal(create_auto(sh_acc_ir(1, 1, 2, NULL), "model:3", &s),
			 0);
	sh_attach(s);
	assert_string_equal(ipu_device_name(__ipu_session_replica_device(s, 0)),
			    "model:3");
	assert_int_equal(ipu_session_detach(s, 0), 0);
	/* Busy: refused, naming it, though model:0 is free. */
	assert_int_equal(ipu_device_open("model:3", &o, &held), 0);
	assert_int_equal(ipu_session_attach(s), -EBUSY);
	sh_assert_msg(s, "IPU_DEVICE=\"model:3\"");
	sh_assert_msg(s, "in use");
	assert_false(ipu_session_is_attached(s));
	ipu_device_close(held);
	ipu_session_destroy(s);
	/* A program of 2 IPUs: the aligned set that starts at the named one
	 * (2 replicas of 1 IPU), and none that starts elsewhere. */
	assert_int_equal(create_auto(sh_acc_ir(2, 1, 2, NULL), "model:2", &s),
			 0);
	sh_attach(s);
	assert_string_equal(ipu_device_name(__ipu_session_replica_device(s, 0)),
			    "model:2");
	assert_string_equal(ipu_device_name(__ipu_session_replica_device(s, 1)),
			    "model:3");
	ipu_session_destroy(s);
	assert_int_equal(create_auto(sh_acc_ir(2, 1, 2, NULL), "model:3", &s),
			 -EINVAL);
	if (!strstr(ipu_session_errmsg(NULL), "IPU_DEVICE=\"model:3\""))
		fail_msg("message: %s", ipu_session_errmsg(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S06_enter_sends_the_host_weights),
		cmocka_unit_test(test_S06_busy_ipus_fail_the_enter),
		cmocka_unit_test(test_S06_enter_waits_for_busy_ipus),
		cmocka_unit_test(test_S06_failed_enter_is_undone),
		cmocka_unit_test(test_S06_replicas_on_their_first_ipu),
		cmocka_unit_test(test_S06_sessions_share_the_machine),
		cmocka_unit_test(test_S24_IPU_DEVICE_names_the_ipu_attached),
		cmocka_unit_test(test_S07_exit_fetches_the_weights_and_detaches),
		cmocka_unit_test(test_S07_exit_with_an_error_does_not_fetch),
		cmocka_unit_test(test_S07_enters_nest),
		cmocka_unit_test(test_S07_exit_without_enter),
		cmocka_unit_test(test_S07_exit_with_unknown_flags),
		cmocka_unit_test(test_S07_destroy_detaches_without_fetching),
		cmocka_unit_test(test_S08_is_attached_follows_the_context),
		cmocka_unit_test(test_S08_runtime_calls_need_attachment),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
