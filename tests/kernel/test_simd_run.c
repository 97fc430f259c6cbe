// SPDX-License-Identifier: GPL-2.0
/*
 * test_simd_run.c - real programs run by ipu-simd through libipu's
 * io_uring queue, against the same programs on the in-process model.
 *
 * Programs are built with the IR, compiled, saved and uploaded to a BO
 * (kprog.h). A run is one batch: H2D transfers, the launch linked after
 * them, D2H transfers linked after the launch. The same firmware executor
 * runs the program in ipu-simd and in the model, so the outputs must be
 * equal bit for bit, for one replica and for two (ipu0 and ipu1, with an
 * all-reduce across them). Then every way the firmware refuses a launch:
 * a corrupted image (-EINVAL), no image at all (-ENOEXEC), a replica count
 * the program was not built for (-EINVAL), replicas that disagree on the
 * image, a replica that never comes (the daemon's group timeout), and a
 * device reset under the daemon (it attaches again).
 */
#include "kprog.h"
#include "ksimd.h"

/* Inputs of replica @r: x[2][8], distinct per replica. */
static void fill_x(float *x, uint32_t r)
{
	int i;

	for (i = 0; i < 16; i++)
		x[i] = (float)((i * 5 + (int)r * 3) % 13) / 4.0f - 1.5f;
}

/* Run @p with replica r on @names[r] and return out[r][8] in @out. */
static int run_on(const struct kp_prog *p, const char *const *names,
		  float out[][8], char *msg, size_t msglen)
{
	static float x[KP_MAX_REP][16];
	void *in[KP_MAX_REP], *o[KP_MAX_REP];
	struct kp_setup s;
	uint32_t r;

	kp_open(&s, p, names);
	for (r = 0; r < s.nrep; r++) {
		fill_x(x[r], r);
		in[r] = x[r];
		o[r] = out[r];
	}
	return kp_run(&s, in, o, msg, msglen);
}

static void test_one_replica_gives_the_model_bits(void **state)
{
	struct kp_prog *p;
	float hw[1][8], model[1][8];
	char msg[512];

	(void)state;
	ks_require_simd();
	p = kp_mlp(1);
	memset(hw, 0xa5, sizeof(hw));
	if (run_on(p, (const char *[]){ "hw:0" }, hw, msg, sizeof(msg)))
		fail_msg("hw:0: %s", msg);
	assert_int_equal(run_on(p, (const char *[]){ "model:0" }, model, msg,
				sizeof(msg)), 0);
	assert_memory_equal(hw, model, sizeof(hw));
	kp_free(p);
}

static void test_two_replicas_on_ipu0_and_ipu1_give_the_model_bits(void **state)
{
	struct kp_prog *p;
	float hw[2][8], model[2][8];
	char msg[512];

	(void)state;
	ks_require_simd();
	kt_require_dev(1);
	p = kp_mlp(2);
	memset(hw, 0xa5, sizeof(hw));
	if (run_on(p, (const char *[]){ "hw:0", "hw:1" }, hw, msg, sizeof(msg)))
		fail_msg("hw:0 + hw:1: %s", msg);
	assert_int_equal(run_on(p, (const char *[]){ "model:0", "model:1" },
				model, msg, sizeof(msg)), 0);
	assert_memory_equal(hw, model, sizeof(hw));
	/* The all-reduce gave both replicas the same sum. */
	assert_memory_equal(hw[0], hw[1], sizeof(hw[0]));
}

static void test_runs_in_flight_together_each_get_their_results(void **state)
{
	struct ipu_cmd cmds[3][2 * 3];
	static float x[3][2][16], out[3][2][8], model[2][8];
	void *in[2], *o[2];
	struct kp_prog *p;
	struct kp_setup s;
	size_t n[3];
	char msg[512];
	int k, r, err;

	(void)state;
	ks_require_simd();
	kt_require_dev(1);
	p = kp_mlp(2);
	kp_open(&s, p, (const char *[]){ "hw:0", "hw:1" });
	/* Three runs submitted before any is reaped, on other inputs and
	 * arenas each: the group ids keep their replicas apart. */
	for (k = 0; k < 3; k++) {
		if (k)
			kp_new_arenas(&s);
		for (r = 0; r < 2; r++) {
			fill_x(x[k][r], (uint32_t)(r + 2 * k));
			in[r] = x[k][r];
			o[r] = out[k][r];
		}
		n[k] = kp_batch(&s, cmds[k], in, o);
		s.group++;
		assert_int_equal(ipu_queue_submit(s.q, cmds[k], n[k]), 0);
	}
	err = kp_reap(s.q, n[0] + n[1] + n[2], msg, sizeof(msg));
	if (err)
		fail_msg("%s", msg);
	for (k = 0; k < 3; k++) {
		struct kp_setup m;

		kp_open(&m, p, (const char *[]){ "model:0", "model:1" });
		for (r = 0; r < 2; r++) {
			in[r] = x[k][r];
			o[r] = model[r];
		}
		assert_int_equal(kp_run(&m, in, o, msg, sizeof(msg)), 0);
		assert_memory_equal(out[k], model, sizeof(model));
		kt_cleanup();
	}
	kp_free(p);
}

static void test_ipu_launch_runs_a_program_synchronously(void **state)
{
	float x[16], hw[8], model[1][8];
	struct ipu_launch_desc l;
	struct kp_prog *p;
	struct kp_setup s;
	const struct ipu_exe_stream *in, *out;
	char msg[512];

	(void)state;
	ks_require_simd();
	p = kp_mlp(1);
	kp_open(&s, p, (const char *[]){ "hw:0" });
	in = &p->exe->streams[p->in[0]];
	out = &p->exe->streams[p->out[0]];
	fill_x(x, 0);
	assert_int_equal(ipu_xfer_to_device(s.arena[0], in->slots_offset, x,
					    sizeof(x)), 0);
	l = kp_launch_desc(&s, 0);
	if (ipu_launch(s.dev[0], &l))
		fail_msg("ipu_launch: %s", ipu_errmsg());
	assert_int_equal(ipu_xfer_from_device(s.arena[0], out->slots_offset, hw,
					      sizeof(hw)), 0);
	assert_int_equal(run_on(p, (const char *[]){ "model:0" }, model, msg,
				sizeof(msg)), 0);
	assert_memory_equal(hw, model[0], sizeof(hw));
	kp_free(p);
}

/* Launch @image (@len bytes) as replica 0 of 1 on hw:0; the result. */
static int launch_image(const void *image, size_t len, uint32_t arena,
			char *msg, size_t msglen)
{
	struct ipu_device *dev = kp_dev_open("hw:0");
	struct ipu_queue *q = kt_queue(dev, 0);
	struct ipu_launch_desc l = {
		.exe_bo = kp_bo(dev, len),
		.exe_size = len,
		.arena_bo = kp_bo(dev, arena),
		.num_replicas = 1,
	};
	struct ipu_cmd cmd;

	assert_int_equal(ipu_xfer_to_device(l.exe_bo, 0, image, len), 0);
	ipu_cmd_prep_launch(&cmd, &l, 7);
	assert_int_equal(ipu_queue_submit(q, &cmd, 1), 0);
	return kp_reap(q, 1, msg, msglen);
}

static void test_a_corrupted_executable_is_einval(void **state)
{
	struct kp_prog *p;
	uint8_t *bad;
	char msg[512];

	(void)state;
	ks_require_simd();
	p = kp_mlp(1);
	bad = malloc(p->len);
	assert_non_null(bad);
	memcpy(bad, p->image, p->len);
	bad[p->len / 2] ^= 0x40; /* a checksum catches it */
	assert_int_equal(launch_image(bad, p->len, p->exe->arena_size, msg,
				      sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "hw:0"));
	free(bad);
	kp_free(p);
}

static void test_bytes_that_are_no_executable_are_enoexec(void **state)
{
	static const uint8_t zeros[4096];
	char msg[512];

	(void)state;
	ks_require_simd();
	assert_int_equal(launch_image(zeros, sizeof(zeros), 4096, msg,
				      sizeof(msg)), -ENOEXEC);
}

static void test_a_two_replica_program_launched_alone_is_einval(void **state)
{
	struct kp_prog *p;
	char msg[512];

	(void)state;
	ks_require_simd();
	p = kp_mlp(2);
	assert_int_equal(launch_image(p->image, p->len, p->exe->arena_size,
				      msg, sizeof(msg)), -EINVAL);
	kp_free(p);
}

static void test_replicas_with_different_images_fail_the_odd_one(void **state)
{
	struct ipu_completion c[2];
	struct ipu_launch_desc l[2];
	struct kp_prog *p0, *p1;
	struct kp_setup s;
	struct ipu_cmd cmds[2];
	int r;

	(void)state;
	ks_require_simd();
	kt_require_dev(1);
	p0 = kp_mlp_seeded(2, 0);
	p1 = kp_mlp_seeded(2, 3);
	assert_int_equal(p0->len, p1->len);
	kp_open(&s, p0, (const char *[]){ "hw:0", "hw:1" });
	assert_int_equal(ipu_xfer_to_device(s.exe[1], 0, p1->image, p1->len), 0);
	for (r = 0; r < 2; r++) {
		l[r] = kp_launch_desc(&s, (uint32_t)r);
		ipu_cmd_prep_launch(&cmds[r], &l[r], (uint64_t)r);
	}
	assert_int_equal(ipu_queue_submit(s.q, cmds, 2), 0);
	for (r = 0; r < 2;) {
		int got = ipu_queue_reap(s.q, c + r, 2 - r, 2 - r, KP_REAP_NS);

		assert_true(got > 0);
		r += got;
	}
	for (r = 0; r < 2; r++) {
		if (c[r].user_data == 1)
			assert_int_equal(c[r].result, -EINVAL);
		else
			assert_int_equal(c[r].result, -ECANCELED);
	}
	kp_free(p0);
	kp_free(p1);
}

static void test_a_replica_that_never_comes_times_out_in_the_daemon(void **state)
{
	struct ipu_launch_desc l;
	struct ipu_device_info info = { .sz = sizeof(info) };
	struct kp_prog *p;
	struct kp_setup s;
	struct ipu_cmd cmd;
	uint64_t resets;
	float x[2][16], y[2][8];
	char msg[512];
	off_t from;

	(void)state;
	ks_require_simd();
	kt_require_dev(1);
	/*
	 * The daemon's group timeout and the kernel's deadline are two
	 * clocks: which ends the run first is a race, not an event. The
	 * daemon's is set short (the test waits that long) and the kernel's
	 * far beyond it, so that the daemon's answer comes first however
	 * slow the guest is at scheduling it; the device is not reset. (By
	 * default the daemon's is half the kernel's: a lowered kernel
	 * deadline would leave the daemon only that half as its margin.)
	 */
	ks_timeout_set(60000);
	ks_simd_kill(SIGTERM);
	ks_simd_start((const char *[]){ "--devices", "ipu0,ipu1",
					"--group-timeout-ms", "2000", NULL });
	p = kp_mlp(2);
	kp_open(&s, p, (const char *[]){ "hw:0", "hw:1" });
	assert_int_equal(ipu_device_query(s.dev[0], &info), 0);
	resets = info.reset_count;
	from = ks_log_size();
	l = kp_launch_desc(&s, 0);
	ipu_cmd_prep_launch(&cmd, &l, 1);
	assert_int_equal(ipu_queue_submit(s.q, &cmd, 1), 0);
	assert_int_equal(kp_reap(s.q, 1, msg, sizeof(msg)), -ETIMEDOUT);
	/* The daemon's timeout ended it (its log says so), not the kernel's. */
	assert_true(ks_log_wait(from, "replicas came within"));
	assert_int_equal(ipu_device_query(s.dev[0], &info), 0);
	assert_int_equal(info.reset_count, resets);
	/* The next run, whole, works. */
	s.group++;
	fill_x(x[0], 0);
	fill_x(x[1], 1);
	if (kp_run(&s, (void *[]){ x[0], x[1] }, (void *[]){ y[0], y[1] }, msg,
		   sizeof(msg)))
		fail_msg("%s", msg);
	kp_free(p);
}

static void test_after_a_reset_the_daemon_attaches_again(void **state)
{
	struct ipu_device *dev;
	float x[16], y[8];
	struct kp_prog *p;
	struct kp_setup s;
	char msg[512];
	off_t from;

	(void)state;
	ks_require_simd();
	p = kp_mlp(1);
	kp_open(&s, p, (const char *[]){ "hw:0" });
	dev = s.dev[0];
	from = ks_log_size();
	/* A reset revokes the firmware: FW_NEXT says -ENOLINK. */
	assert_int_equal(ipu_device_reset(dev), 0);
	assert_true(ks_log_wait(from, "ipu0: firmware revoked"));
	fill_x(x, 0);
	if (kp_run(&s, (void *[]){ x }, (void *[]){ y }, msg, sizeof(msg)))
		fail_msg("%s", msg);
	kp_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_one_replica_gives_the_model_bits),
		KT_TEST(test_two_replicas_on_ipu0_and_ipu1_give_the_model_bits),
		KT_TEST(test_runs_in_flight_together_each_get_their_results),
		KT_TEST(test_ipu_launch_runs_a_program_synchronously),
		KT_TEST(test_a_corrupted_executable_is_einval),
		KT_TEST(test_bytes_that_are_no_executable_are_enoexec),
		KT_TEST(test_a_two_replica_program_launched_alone_is_einval),
		KT_TEST(test_replicas_with_different_images_fail_the_odd_one),
		KS_TEST(test_a_replica_that_never_comes_times_out_in_the_daemon),
		KS_TEST(test_after_a_reset_the_daemon_attaches_again),
	};

	return kt_exit_code(cmocka_run_group_tests(tests, kp_group_setup, NULL),
			    KT_ARRAY_SIZE(tests));
}
