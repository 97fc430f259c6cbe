// SPDX-License-Identifier: GPL-2.0
/*
 * test_simd_kill.c - kill -9 on either side of a launch, and a reset
 * under one.
 *
 * An application killed with a run in flight: its io_uring commands end
 * (the firmware finishes the launch), its file goes, and the next
 * application attaches and runs with correct results and no memory lost.
 *
 * ipu-simd killed while it runs a launch: nobody reports it, so the
 * kernel's launch deadline fails it (-ETIMEDOUT), resets the device
 * (reset_count + 1) and the commands linked after it are cancelled; once
 * ipu-simd is started again, the next run works. The deadline is made
 * short for the test and restored after.
 *
 * A device reset while ipu-simd runs a launch: the launch fails (-EIO),
 * the daemon's mapping is revoked, the program it was running is
 * cancelled (it would otherwise keep the device's thread for hours), and
 * the daemon attaches again and runs the next launch. The test resets only
 * once the program runs (its accumulator moved in the arena): a reset
 * while the daemon still loads the executable fails the run another way.
 */
#include "kprog.h"
#include "ksimd.h"

/* x for the MLP, the same in every run. */
static float x1[16] = { 1, -2, 3, 0.5f, -1, 2, 0, 1, -3, 1, 2, -0.5f, 1, 1, -1, 0 };

/* Run the MLP on hw:0 and on the model; the outputs must be equal. */
static void run_mlp_and_compare(void)
{
	struct kp_prog *p = kp_mlp(1);
	struct kp_setup hw, model;
	float y[8], want[8];
	char msg[512];

	kp_open(&hw, p, (const char *[]){ "hw:0" });
	if (kp_run(&hw, (void *[]){ x1 }, (void *[]){ y }, msg, sizeof(msg)))
		fail_msg("hw:0: %s", msg);
	kp_open(&model, p, (const char *[]){ "model:0" });
	assert_int_equal(kp_run(&model, (void *[]){ x1 }, (void *[]){ want },
				msg, sizeof(msg)), 0);
	assert_memory_equal(y, want, sizeof(y));
	kt_cleanup();
	kp_free(p);
}

/* Wait until nobody owns ipu@idx (the killed file is gone). */
static void wait_unowned(unsigned int idx)
{
	int i;

	for (i = 0; i < KS_POLLS && kt_sysfs_u64(idx, "owner_pid"); i++)
		ks_pause();
	assert_int_equal(kt_sysfs_u64(idx, "owner_pid"), 0);
}

/*
 * Whether the spin program of start_endless_run() has done an iteration:
 * its x is all 1.0, so its accumulator (a tensor in the arena, as every
 * tensor is) goes 1.0, 1.5, 1.75, ... 2.0, while nothing else in the
 * arena (x, the constant 0.5, zeros) lies in (1, 2].
 */
static bool spun(const void *arena, uint64_t size)
{
	const float *f = arena;
	uint64_t i;

	for (i = 0; i < size / sizeof(float); i++)
		if (f[i] > 1.0f && f[i] <= 2.0f)
			return true;
	return false;
}

/*
 * Wait until the program of the launch the daemon took is running. (That
 * the daemon logged the launch says only that it took it: it may still be
 * reading the executable, and a reset then fails the run before it starts,
 * which is another path than cancelling a running program.) A debug kernel
 * is slow to get there: ten times the usual bound on the polls.
 */
static void wait_running(struct kp_setup *s)
{
	uint64_t size = ipu_bo_size(s->arena[0]);
	void *arena;
	int i;

	assert_int_equal(ipu_bo_map(s->arena[0], &arena), 0);
	for (i = 0; i < 10 * KS_POLLS && !spun(arena, size); i++)
		ks_pause();
	if (!spun(arena, size))
		fail_msg("the daemon took the launch, but its program never ran an iteration");
}

/* Submit a run of a program that never ends on hw:0, and wait until the
 * daemon (started with -v) has taken its launch and runs it. */
static void start_endless_run(struct kp_setup *s, struct kp_prog **pp,
			      size_t *n, struct ipu_cmd *cmds)
{
	static const char *const verbose[] = { "--devices", "ipu0,ipu1", "-v", NULL };
	static float x[64], y[64];
	off_t from;
	int i;

	for (i = 0; i < 64; i++)
		x[i] = 1.0f; /* see spun() */
	/* -v: the daemon logs each launch it takes. */
	ks_simd_kill(SIGTERM);
	ks_simd_start(verbose);
	/* Far longer than the test: the daemon is mid-launch after. */
	*pp = kp_spin(1ull << 30);
	kp_open(s, *pp, (const char *[]){ "hw:0" });
	from = ks_log_size();
	*n = kp_batch(s, cmds, (void *[]){ x }, (void *[]){ y });
	assert_int_equal(ipu_queue_submit(s->q, cmds, *n), 0);
	assert_true(ks_log_wait(from, "ipu0: launch"));
	wait_running(s);
}

/* Reap the H2D, launch, D2H of a run: the launch failed with @launch. */
static void reap_failed_run(struct ipu_queue *q, size_t n, int launch)
{
	struct ipu_completion c[3];
	size_t got = 0;
	int ret, k;

	while (got < n) {
		ret = ipu_queue_reap(q, c + got, n - got, n - got, KP_REAP_NS);
		assert_true(ret > 0);
		got += (size_t)ret;
	}
	for (k = 0; k < 3; k++) {
		if (c[k].user_data == 0) /* H2D */
			assert_int_equal(c[k].result, 0);
		else if (c[k].user_data == 1) /* the launch */
			assert_int_equal(c[k].result, launch);
		else /* D2H, linked after it */
			assert_int_equal(c[k].result, -ECANCELED);
	}
}

static void test_kill9_of_an_application_mid_run_leaves_the_device_usable(void **state)
{
	uint64_t used;
	int ready[2], hold[2];
	pid_t pid;

	(void)state;
	ks_require_simd();
	used = kt_sysfs_u64(0, "memory_used");
	kt_pipe(ready);
	kt_pipe(hold);
	pid = kt_fork();
	if (pid == 0) {
		/* The child: a run submitted, never reaped. */
		struct kp_prog *p = kp_mlp(1);
		struct ipu_cmd cmds[3];
		struct kp_setup s;
		float y[8];
		size_t n;

		kp_open(&s, p, (const char *[]){ "hw:0" });
		n = kp_batch(&s, cmds, (void *[]){ x1 }, (void *[]){ y });
		kt_child_check(ipu_queue_submit(s.q, cmds, n) == 0, 1);
		kt_pipe_send(ready[1], 'r');
		kt_pipe_recv(hold[0]); /* killed while waiting here */
		_exit(0);
	}
	assert_int_equal(kt_pipe_recv(ready[0]), 'r');
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_true(WIFSIGNALED(kt_wait(pid)));
	wait_unowned(0);
	run_mlp_and_compare();
	/* Everything the killed process held was freed. */
	for (int i = 0; i < KS_POLLS && kt_sysfs_u64(0, "memory_used") != used; i++)
		ks_pause();
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), used);
}

static void test_kill9_of_the_daemon_mid_launch_resets_and_a_restart_recovers(void **state)
{
	struct kp_prog *p;
	struct kp_setup s;
	struct ipu_cmd cmds[3];
	uint64_t resets;
	size_t n;
	int k;

	(void)state;
	ks_require_simd();
	ks_timeout_set(2000);
	resets = kt_sysfs_u64(0, "reset_count");
	start_endless_run(&s, &p, &n, cmds);
	ks_simd_kill(SIGKILL);
	reap_failed_run(s.q, n, -ETIMEDOUT);
	/* The reset follows the launch's failure: wait for it. */
	for (k = 0; k < KS_POLLS && kt_sysfs_u64(0, "reset_count") == resets; k++)
		ks_pause();
	assert_int_equal(kt_sysfs_u64(0, "reset_count"), resets + 1);
	kt_cleanup();

	/* The recovery run is a normal one: under the normal deadline. */
	ks_timeout_restore();
	ks_simd_start(NULL);
	run_mlp_and_compare();
	kp_free(p);
}

static void test_a_reset_under_a_running_program_cancels_it(void **state)
{
	struct kp_prog *p;
	struct kp_setup s;
	struct ipu_cmd cmds[3];
	off_t from;
	size_t n;

	(void)state;
	ks_require_simd();
	start_endless_run(&s, &p, &n, cmds);
	from = ks_log_size();
	assert_int_equal(ipu_device_reset(s.dev[0]), 0);
	reap_failed_run(s.q, n, -EIO);
	/* The program stopped (the daemon, just started, logs it) and the
	 * daemon came back for ipu0. */
	assert_true(ks_log_wait(from, "the run was cancelled"));
	assert_true(ks_log_wait(from, "ipu0: firmware revoked"));
	kt_cleanup();
	run_mlp_and_compare();
	kp_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KS_TEST(test_kill9_of_an_application_mid_run_leaves_the_device_usable),
		KS_TEST(test_kill9_of_the_daemon_mid_launch_resets_and_a_restart_recovers),
		KS_TEST(test_a_reset_under_a_running_program_cancels_it),
	};

	return kt_exit_code(cmocka_run_group_tests(tests, kp_group_setup, NULL),
			    KT_ARRAY_SIZE(tests));
}
