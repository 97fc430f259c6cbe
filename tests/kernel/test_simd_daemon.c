// SPDX-License-Identifier: GPL-2.0
/*
 * test_simd_daemon.c - ipu-simd as a program: its command line, its
 * refusal to run without privileges, serving devices that appear after it
 * started and dropping removed ones, and stopping on SIGTERM (cleanly,
 * cancelling the runs that waited for a replica). Each test that changes
 * the running daemon leaves the guest's own behind (KS_TEST).
 */
#include "kprog.h"
#include "ksimd.h"

/* Run ipu-simd with @args to its end; its exit status, output in @out. */
static int run_simd(const char *const *args, uid_t uid, char *out,
		    size_t outlen)
{
	const char *argv[8] = { KS_SIMD };
	int n = 1;

	while (*args && n < 7)
		argv[n++] = *args++;
	return kt_run(argv, uid, out, outlen);
}

static void test_help_exits_0(void **state)
{
	char out[4096];

	(void)state;
	if (!ks_have_simd())
		kt_skip();
	assert_int_equal(run_simd((const char *[]){ "--help", NULL }, 0, out,
				  sizeof(out)), 0);
	assert_non_null(strstr(out, "--devices"));
}

static void test_an_unknown_option_exits_2(void **state)
{
	char out[4096];

	(void)state;
	if (!ks_have_simd())
		kt_skip();
	assert_int_equal(run_simd((const char *[]){ "--bogus", NULL }, 0, out,
				  sizeof(out)), 2);
}

static void test_a_bad_device_list_exits_2(void **state)
{
	char out[4096];

	(void)state;
	if (!ks_have_simd())
		kt_skip();
	assert_int_equal(run_simd((const char *[]){ "--devices", "ipu0,gpu1", NULL },
				  0, out, sizeof(out)), 2);
	assert_non_null(strstr(out, "--devices"));
}

static void test_without_root_it_says_so_and_exits_1(void **state)
{
	char out[4096];

	(void)state;
	if (!ks_have_simd())
		kt_skip();
	assert_int_equal(run_simd((const char *[]){ NULL }, 65534, out,
				  sizeof(out)), 1);
	assert_non_null(strstr(out, "must run as root"));
}

static void test_a_device_added_later_is_served_and_dropped_when_removed(void **state)
{
	static const char *const all[] = { NULL }; /* every simulated IPU */
	struct kp_prog *p;
	struct kp_setup s;
	float x[16] = { 1, 2, 3 }, y[8];
	char name[16], what[64], msg[512];
	unsigned int idx, again = 0;
	off_t from;
	int i;

	(void)state;
	ks_require_simd();
	kt_require_sim_ctl();
	ks_simd_kill(SIGTERM);
	ks_simd_start(all);
	from = ks_log_size();
	idx = kt_sim_add(8);
	/* SIGHUP: look now rather than at the next periodic scan. */
	assert_int_equal(kill(ks_simd_pid(), SIGHUP), 0);
	snprintf(what, sizeof(what), "ipu%u: serving", idx);
	assert_true(ks_log_wait(from, what));
	snprintf(name, sizeof(name), "hw:%u", idx);
	p = kp_mlp(1);
	kp_open(&s, p, (const char *[]){ name });
	if (kp_run(&s, (void *[]){ x }, (void *[]){ y }, msg, sizeof(msg)))
		fail_msg("%s: %s", name, msg);
	kt_queue_destroy(s.q);
	kt_dev_close(s.dev[0]);
	kp_free(p);

	from = ks_log_size();
	assert_int_equal(kt_sim_del(idx), 0);
	snprintf(what, sizeof(what), "ipu%u: removed", idx);
	assert_true(ks_log_wait(from, what));
	/* Once the daemon let go of its file, the index is free again (the
	 * lowest free one goes to the next device). */
	for (i = 0; i < KS_POLLS; i++) {
		again = kt_sim_add(8);
		if (again == idx)
			break;
		assert_int_equal(kt_sim_del(again), 0);
		ks_pause();
	}
	assert_int_equal(again, idx);
}

static void test_sigterm_stops_it_with_status_0(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	ks_require_simd();
	ks_simd_kill(SIGTERM);
	pid = ks_simd_start(NULL); /* our child: its status is ours to see */
	assert_int_equal(kill(pid, SIGTERM), 0);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_stopping_cancels_runs_waiting_for_a_replica(void **state)
{
	struct ipu_launch_desc l;
	struct kp_prog *p;
	struct kp_setup s;
	struct ipu_cmd cmd;
	char msg[512];
	off_t from;

	(void)state;
	ks_require_simd();
	kt_require_dev(1);
	ks_simd_kill(SIGTERM);
	ks_simd_start((const char *[]){ "--devices", "ipu0,ipu1", "-v", NULL });
	p = kp_mlp(2);
	kp_open(&s, p, (const char *[]){ "hw:0", "hw:1" });
	from = ks_log_size();
	l = kp_launch_desc(&s, 0); /* replica 1 never comes */
	ipu_cmd_prep_launch(&cmd, &l, 1);
	assert_int_equal(ipu_queue_submit(s.q, &cmd, 1), 0);
	assert_true(ks_log_wait(from, "ipu0: launch"));
	ks_simd_kill(SIGTERM);
	assert_int_equal(kp_reap(s.q, 1, msg, sizeof(msg)), -ECANCELED);
	kp_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_help_exits_0),
		KT_TEST(test_an_unknown_option_exits_2),
		KT_TEST(test_a_bad_device_list_exits_2),
		KT_TEST(test_without_root_it_says_so_and_exits_1),
		KS_TEST(test_a_device_added_later_is_served_and_dropped_when_removed),
		KS_TEST(test_sigterm_stops_it_with_status_0),
		KS_TEST(test_stopping_cancels_runs_waiting_for_a_replica),
	};

	return KT_RUN(tests);
}
