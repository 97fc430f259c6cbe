// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_create.c - making a session: ownership of the program
 * (S01), device descriptions (S02, S24), the IPU count (S03), offline
 * devices (S04), weights to host on exit (S05) and the options' errors.
 */
#include <pthread.h>

#include "session_helpers.h"

/* A program of @replicas replicas whose ops run on @ipus virtual graphs. */
static struct ipu_ir *ipus_ir(uint32_t replicas, uint32_t ipus)
{
	struct ipu_ir *ir = sh_ir(replicas, 1);
	uint64_t n = 2;
	ipu_tensor t = sh_var(ir, "v", n, NULL, NULL);
	uint32_t k;

	for (k = 0; k < ipus; k++) {
		assert_int_equal(ipu_ir_push_ipu(ir, k), 0);
		t = sh_check(ir, ipu_ir_relu(ir, t));
		assert_int_equal(ipu_ir_pop_ipu(ir), 0);
	}
	return ir;
}

static int create(struct ipu_ir *ir, const char *device,
		  struct ipu_session **sp)
{
	IPU_OPTS(ipu_session_opts, opts, .device = device,
		 .attach_timeout_ms = 1);

	return ipu_session_create(ir, &opts, sp);
}

static void assert_create_msg(const char *needle)
{
	if (!strstr(ipu_session_errmsg(NULL), needle))
		fail_msg("message \"%s\" lacks \"%s\"", ipu_session_errmsg(NULL),
			 needle);
}

/* ---------------------------------------------------------------------- */
/* S01                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S01_session_owns_the_compiled_program(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 4, NULL));
	const struct ipu_exe *exe = ipu_session_exe(s);

	(void)state;
	/* The ir is gone (valgrind would see it leak); its program stays. */
	assert_non_null(exe);
	assert_string_equal(exe->name, "test");
	assert_int_equal(exe->num_streams, 2);
	assert_true(ipu_exe_find_tensor(exe, "w") >= 0);
	ipu_session_destroy(s);
}

static void test_S01_program_freed_when_create_fails(void **state)
{
	struct ipu_session *s = (struct ipu_session *)&s;

	(void)state;
	/* Taken over whatever the outcome: valgrind checks nothing leaks. */
	assert_int_equal(create(sh_acc_ir(1, 1, 4, NULL), "gpu", &s), -EINVAL);
	assert_null(s);
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 4, NULL), NULL,
					    NULL),
			 -EINVAL);
	assert_create_msg("sp is NULL");
}

static void test_S01_create_from_an_executable(void **state)
{
	struct ipu_ir *ir = sh_acc_ir(1, 1, 4, NULL);
	struct ipu_session *s = NULL;
	struct ipu_exe *exe = NULL;
	float x[4] = { 1, 1, 1, 1 }, y[4];
	const float want[4] = { 2, 3, 4, 5 };

	(void)state;
	assert_int_equal(ipu_ir_compile(ir, &exe), 0);
	ipu_ir_destroy(ir);
	assert_int_equal(ipu_session_create_from_exe(exe, NULL, &s), 0);
	assert_ptr_equal(ipu_session_exe(s), exe);
	sh_attach(s);
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 4ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 4ull));
	sh_assert_floats(y, want, 4);
	ipu_session_destroy(s);
}

static void test_S01_null_program(void **state)
{
	struct ipu_session *s;

	(void)state;
	assert_int_equal(ipu_session_create(NULL, NULL, &s), -EINVAL);
	assert_create_msg("ir is NULL");
	assert_int_equal(ipu_session_create_from_exe(NULL, NULL, &s), -EINVAL);
	assert_create_msg("executable is NULL");
}

static void test_S01_program_that_does_not_compile(void **state)
{
	struct ipu_ir *ir = sh_ir(1, 1);
	uint64_t n = 2;
	ipu_stream x = sh_stream(ir, true, "x", IPU_DTYPE_FLOAT32, 1, &n);
	struct ipu_session *s;

	(void)state;
	/* Two loads of a stream with one host transfer. */
	sh_check(ir, ipu_ir_host_load(ir, x, "a"));
	sh_check(ir, ipu_ir_host_load(ir, x, "b"));
	assert_int_equal(create(ir, "ipu_model", &s), -EINVAL);
	assert_create_msg("compiling the program");
}

/* ---------------------------------------------------------------------- */
/* S02, S24                                                                */
/* ---------------------------------------------------------------------- */

static void test_S02_model_and_cpu_run_programs(void **state)
{
	static const char *const devices[] = { "ipu_model", "cpu" };
	const float want[2] = { 3, 4 };
	float x[2] = { 2, 2 }, y[2];
	struct ipu_session *s;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		s = sh_session_on(sh_acc_ir(1, 1, 2, NULL), devices[i]);
		assert_string_equal(ipu_session_device_name(s), devices[i]);
		sh_attach(s);
		sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
			  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));
		sh_assert_floats(y, want, 2);
		ipu_session_destroy(s);
	}
}

static void test_S02_unknown_device_lists_the_valid_ones(void **state)
{
	struct ipu_session *s;

	(void)state;
	assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), "gpu", &s), -EINVAL);
	assert_create_msg("unknown device \"gpu\"");
	assert_create_msg("\"auto\", \"ipu_hw\", \"ipu_model\", \"cpu\"");
}

static void test_S02_cpu_rejects_replication(void **state)
{
	struct ipu_session *s;

	(void)state;
	assert_int_equal(create(sh_acc_ir(2, 1, 2, NULL), "cpu", &s), -EINVAL);
	assert_create_msg("device \"cpu\" is one IPU without replication");
	assert_create_msg("needs 2 IPUs");
}

static void test_S02_cpu_rejects_several_ipus_per_replica(void **state)
{
	struct ipu_session *s;

	(void)state;
	assert_int_equal(create(ipus_ir(1, 2), "cpu", &s), -EINVAL);
	assert_create_msg("needs 2 IPUs (2 per replica, 1 replicas)");
}

static void test_S02_ipu_hw_without_hardware(void **state)
{
	struct ipu_session *s;

	(void)state;
	assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), "ipu_hw", &s),
			 -ENODEV);
	assert_create_msg("device \"ipu_hw\" has 0 IPUs, the program needs 1 (see ipu-info)");
}

static void test_S24_auto_is_the_model_without_hardware(void **state)
{
	struct ipu_session *s;

	(void)state;
	assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), NULL, &s), 0);
	assert_string_equal(ipu_session_device_name(s), "ipu_model");
	ipu_session_destroy(s);
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), NULL, &s),
			 0);
	assert_string_equal(ipu_session_device_name(s), "ipu_model");
	ipu_session_destroy(s);
	assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), "auto", &s), 0);
	assert_string_equal(ipu_session_device_name(s), "ipu_model");
	ipu_session_destroy(s);
}

static void test_S24_auto_follows_IPU_DEVICE(void **state)
{
	struct ipu_session *s;

	(void)state;
	setenv("IPU_DEVICE", "hw", 1);
	assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), "auto", &s), -ENODEV);
	assert_create_msg("device \"ipu_hw\"");
	setenv("IPU_DEVICE", "model:3", 1);
	assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), "auto", &s), 0);
	assert_string_equal(ipu_session_device_name(s), "ipu_model");
	ipu_session_destroy(s);
	unsetenv("IPU_DEVICE");
}

/* A value "auto" cannot follow is refused, naming the variable and value:
 * running on the model instead would hide the mistake. */
static void test_S24_a_bad_IPU_DEVICE_is_refused(void **state)
{
	static const char *const bad[] = {
		"junk", "model:-1", "model:1x", "model:", "model:01", "hw:x",
		"modelx", "fake:0", ":0", "model:99999999999",
	};
	struct ipu_session *s = (void *)1;
	char want[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("IPU_DEVICE", bad[i], 1);
		if (create(sh_acc_ir(1, 1, 2, NULL), "auto", &s) != -EINVAL)
			fail_msg("IPU_DEVICE=%s: not -EINVAL (%s)", bad[i],
				 ipu_session_errmsg(NULL));
		snprintf(want, sizeof(want), "IPU_DEVICE=\"%s\"", bad[i]);
		assert_create_msg(want);
	}
	/* Well formed, but the model has no IPU 99. */
	setenv("IPU_DEVICE", "model:99", 1);
	assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), "auto", &s), -ENOENT);
	assert_create_msg("IPU_DEVICE=\"model:99\"");
	/* What it takes still works: "", "auto", "model", "model:N". */
	for (i = 0; i < 4; i++) {
		setenv("IPU_DEVICE", (const char *[]){ "", "auto", "model", "model:1" }[i], 1);
		assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), "auto", &s), 0);
		assert_string_equal(ipu_session_device_name(s), "ipu_model");
		ipu_session_destroy(s);
	}
	unsetenv("IPU_DEVICE");
}

/* ---------------------------------------------------------------------- */
/* S03                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S03_ipus_are_a_power_of_two(void **state)
{
	static const struct { uint32_t replicas, ipus, want; } cases[] = {
		{ 1, 1, 1 }, { 2, 1, 2 }, { 3, 1, 4 }, { 1, 2, 2 },
		{ 1, 3, 4 }, { 3, 2, 8 }, { 5, 1, 8 }, { 4, 4, 16 },
	};
	struct ipu_session *s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(create(ipus_ir(cases[i].replicas, cases[i].ipus),
					"ipu_model", &s),
				 0);
		assert_int_equal(ipu_session_num_ipus(s), cases[i].want);
		ipu_session_destroy(s);
	}
}

static void test_S03_no_graphs(void **state)
{
	struct ipu_session *s;

	(void)state;
	assert_int_equal(create(sh_ir(1, 1), "ipu_model", &s), -EINVAL);
	assert_create_msg("has no graphs");
	assert_create_msg("try adding more operations to your graphs");
}

static void test_S03_model_has_too_few_ipus(void **state)
{
	struct ipu_session *s;

	(void)state;
	assert_int_equal(create(ipus_ir(8, 4), "ipu_model", &s), -ENODEV);
	assert_create_msg("device \"ipu_model\" has " SH_DEVICES " IPUs, the program needs 32");
}

/* ---------------------------------------------------------------------- */
/* S04                                                                     */
/* ---------------------------------------------------------------------- */

static void test_S04_offline_device_builds_without_ipus(void **state)
{
	struct ipu_session *s;

	(void)state;
	setenv("IPU_OFFLINE_DEVICE", "ipu_hw", 1);
	/* No hardware here: building works, entering cannot. */
	assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), "ipu_model", &s), 0);
	unsetenv("IPU_OFFLINE_DEVICE");
	assert_string_equal(ipu_session_device_name(s), "ipu_hw");
	assert_false(ipu_session_is_attached(s));
	assert_int_equal(ipu_session_attach(s), -ENODEV);
	sh_assert_msg(s, "could not attach to device 0");
	sh_assert_msg(s, "see ipu-info for device usage");
	assert_false(ipu_session_is_attached(s));
	ipu_session_destroy(s);
}

static void test_S04_offline_device_is_acquired_on_enter(void **state)
{
	const float want[2] = { 2, 3 };
	float x[2] = { 1, 1 }, y[2];
	struct ipu_session *s;

	(void)state;
	setenv("IPU_OFFLINE_DEVICE", "ipu_model", 1);
	assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), "cpu", &s), 0);
	unsetenv("IPU_OFFLINE_DEVICE");
	assert_string_equal(ipu_session_device_name(s), "ipu_model");
	sh_attach(s);
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));
	sh_assert_floats(y, want, 2);
	assert_int_equal(ipu_session_detach(s, 0), 0);
	ipu_session_destroy(s);
}

static void test_S04_offline_device_must_be_a_type(void **state)
{
	struct ipu_session *s;

	(void)state;
	setenv("IPU_OFFLINE_DEVICE", "ipu21", 1);
	assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), "ipu_model", &s),
			 -EINVAL);
	unsetenv("IPU_OFFLINE_DEVICE");
	assert_create_msg("IPU_OFFLINE_DEVICE=\"ipu21\" is not a device type");
}

/* ---------------------------------------------------------------------- */
/* S05                                                                     */
/* ---------------------------------------------------------------------- */

/* Run once with x = 1 and leave the context; w as the host then sees it. */
static void run_and_exit(uint32_t flags, float *w)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model", .flags = flags);
	struct ipu_session *s;
	float x[2] = { 1, 1 }, y[2];
	uint64_t shape = 2;

	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts,
					    &s),
			 0);
	sh_attach(s);
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));
	assert_int_equal(ipu_session_detach(s, 0), 0);
	sh_get_f32(s, "w", w, 1, &shape);
	ipu_session_destroy(s);
}

static void test_S05_weights_to_host_on_exit_by_default(void **state)
{
	const float want[2] = { 2, 3 };
	float w[2];

	(void)state;
	run_and_exit(0, w);
	sh_assert_floats(w, want, 2);
}

static void test_S05_weights_to_host_on_exit_can_be_disabled(void **state)
{
	const float want[2] = { 1, 2 };
	float w[2];

	(void)state;
	run_and_exit(IPU_SESSION_NO_WEIGHTS_TO_HOST_ON_EXIT, w);
	sh_assert_floats(w, want, 2);
}

/* ---------------------------------------------------------------------- */
/* Options (S25)                                                           */
/* ---------------------------------------------------------------------- */

static void test_S25_options_too_small(void **state)
{
	struct ipu_session_opts opts = { .sz = sizeof(size_t) };
	struct ipu_session *s;

	(void)state;
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts, &s),
			 -EINVAL);
	assert_create_msg("session options of 8 bytes");
}

/* A caller built before data_dir existed: its smaller struct still works. */
static void test_S25_options_of_the_first_version(void **state)
{
	struct ipu_session_opts opts = {
		.sz = offsetof(struct ipu_session_opts, data_dir),
		.device = "ipu_model",
		/* Past the caller's sz: must not be read. */
		.data_dir = "",
	};
	struct ipu_session *s;

	(void)state;
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts, &s),
			 0);
	ipu_session_destroy(s);
	opts.sz = sizeof(opts);
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts, &s),
			 -EINVAL);
	assert_create_msg("data_dir is \"\"");
}

static void test_S25_options_with_unknown_bytes(void **state)
{
	struct {
		struct ipu_session_opts o;
		uint64_t later;
	} big = { .o = { .sz = sizeof(big), .device = "ipu_model" },
		  .later = 1 };
	struct ipu_session *s;

	(void)state;
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &big.o,
					    &s),
			 -E2BIG);
	assert_create_msg("non-zero byte");
	/* Zero bytes past the known ones are fine. */
	big.later = 0;
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &big.o,
					    &s),
			 0);
	ipu_session_destroy(s);
}

static void test_S25_options_with_unknown_flags(void **state)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model", .flags = 1u << 7);
	struct ipu_session *s;

	(void)state;
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts, &s),
			 -EINVAL);
	assert_create_msg("unknown flags 0x80");
}

static void *fresh_thread_msg(void *arg)
{
	(void)arg;
	return (void *)(uintptr_t)(ipu_session_errmsg(NULL)[0] != '\0');
}

static void test_S25_create_message_is_per_thread(void **state)
{
	struct ipu_session *s;
	pthread_t t;
	void *other_has_msg;

	(void)state;
	assert_int_equal(create(sh_acc_ir(1, 1, 2, NULL), "gpu", &s), -EINVAL);
	assert_int_equal(pthread_create(&t, NULL, fresh_thread_msg, NULL), 0);
	assert_int_equal(pthread_join(t, &other_has_msg), 0);
	assert_null(other_has_msg);
	assert_create_msg("unknown device");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S01_session_owns_the_compiled_program),
		cmocka_unit_test(test_S01_program_freed_when_create_fails),
		cmocka_unit_test(test_S01_create_from_an_executable),
		cmocka_unit_test(test_S01_null_program),
		cmocka_unit_test(test_S01_program_that_does_not_compile),
		cmocka_unit_test(test_S02_model_and_cpu_run_programs),
		cmocka_unit_test(test_S02_unknown_device_lists_the_valid_ones),
		cmocka_unit_test(test_S02_cpu_rejects_replication),
		cmocka_unit_test(test_S02_cpu_rejects_several_ipus_per_replica),
		cmocka_unit_test(test_S02_ipu_hw_without_hardware),
		cmocka_unit_test(test_S24_auto_is_the_model_without_hardware),
		cmocka_unit_test(test_S24_auto_follows_IPU_DEVICE),
		cmocka_unit_test(test_S24_a_bad_IPU_DEVICE_is_refused),
		cmocka_unit_test(test_S03_ipus_are_a_power_of_two),
		cmocka_unit_test(test_S03_no_graphs),
		cmocka_unit_test(test_S03_model_has_too_few_ipus),
		cmocka_unit_test(test_S04_offline_device_builds_without_ipus),
		cmocka_unit_test(test_S04_offline_device_is_acquired_on_enter),
		cmocka_unit_test(test_S04_offline_device_must_be_a_type),
		cmocka_unit_test(test_S05_weights_to_host_on_exit_by_default),
		cmocka_unit_test(test_S05_weights_to_host_on_exit_can_be_disabled),
		cmocka_unit_test(test_S25_options_too_small),
		cmocka_unit_test(test_S25_options_of_the_first_version),
		cmocka_unit_test(test_S25_options_with_unknown_bytes),
		cmocka_unit_test(test_S25_options_with_unknown_flags),
		cmocka_unit_test(test_S25_create_message_is_per_thread),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
