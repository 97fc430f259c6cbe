// SPDX-License-Identifier: GPL-2.0
/*
 * test_uring_syscalls.c - a run costs the same few system calls whatever
 * its number of streams.
 *
 * A run (an H2D transfer per input stream, the launch linked after them,
 * a D2H transfer per output stream linked after the launch) is one batch:
 * one io_uring_enter() submits it, and reaping waits in at most one more
 * for the completions still missing; submitted with
 * ipu_queue_submit_and_wait(), as libsession's runs are, the one
 * io_uring_enter() also waits, and the run costs that one (issue 29). libipu counts its io_uring_enter()
 * calls (__ipu_queue_stats()); the test counts them around one run of a
 * program with 1 stream each way and one with 16, through libipu's queue
 * and through libsession's ipu_session_run_with_outputs() on "ipu_hw".
 */
#include <ipu/session.h>

#include "../../userspace/ipu/internal.h"
#include "kprog.h"
#include "ksimd.h"

#define MAX_ENTERS 2 /* one to submit, one to wait */

/*
 * A run through ipu_queue_submit_and_wait(), then reaped: the reap finds
 * what the submission's io_uring_enter() waited for.
 */
static int run_waited(struct kp_setup *s, void *const *in, void *const *out,
		      char *msg, size_t msglen)
{
	struct ipu_cmd cmds[KP_MAX_REP * (2 * KP_MAX_STREAMS + 1)];
	size_t n = kp_batch(s, cmds, in, out);
	int err;

	if (ipu_queue_submit_and_wait(s->q, cmds, n, n, KP_REAP_NS))
		fail_msg("submitting a run of %zu commands: %s", n, ipu_errmsg());
	err = kp_reap(s->q, n, msg, msglen);
	s->group++;
	return err;
}

static struct ipu_queue_stats totals(void)
{
	struct ipu_queue_stats st;

	assert_int_equal(__ipu_queue_stats(NULL, &st), 0);
	return st;
}

/*
 * io_uring_enter() calls of one libipu run of @n streams each way,
 * submitted with ipu_queue_submit_and_wait() if @waited.
 */
static uint64_t libipu_run_enters(uint32_t n, uint64_t *submits, bool waited)
{
	int (*run)(struct kp_setup *s, void *const *in, void *const *out,
		   char *msg, size_t msglen) = waited ? run_waited : kp_run;
	static float in[KP_MAX_STREAMS][16], out[KP_MAX_STREAMS][16];
	void *pin[KP_MAX_STREAMS], *pout[KP_MAX_STREAMS];
	struct ipu_queue_stats a, b;
	struct kp_prog *p = kp_streams(n);
	struct kp_setup s;
	char msg[512];
	uint32_t i;

	for (i = 0; i < n; i++) {
		pin[i] = in[i];
		pout[i] = out[i];
	}
	kp_open(&s, p, (const char *[]){ KT_HW(0) });
	/* The first run pays for what is set up once (parsing, threads). */
	if (run(&s, pin, pout, msg, sizeof(msg)))
		fail_msg("%s", msg);
	assert_int_equal(__ipu_queue_stats(s.q, &a), 0);
	if (run(&s, pin, pout, msg, sizeof(msg)))
		fail_msg("%s", msg);
	assert_int_equal(__ipu_queue_stats(s.q, &b), 0);
	assert_int_equal(b.batches - a.batches, 1);
	assert_int_equal(b.commands - a.commands, 2 * n + 1);
	kt_cleanup();
	kp_free(p);
	*submits = b.submit_enters - a.submit_enters;
	return b.enters - a.enters;
}

/*
 * Runs of 1 and 16 streams each way, submitted with
 * ipu_queue_submit_and_wait() if @waited: each submits in one
 * io_uring_enter(), and costs that one if @waited, else at most
 * MAX_ENTERS.
 */
static void check_libipu_runs(bool waited)
{
	uint64_t max = waited ? 1 : MAX_ENTERS;
	uint64_t e1, e16, s1, s16;

	ks_require_simd();
	e1 = libipu_run_enters(1, &s1, waited);
	e16 = libipu_run_enters(16, &s16, waited);
	print_message("io_uring_enter() per run%s: %llu with 1 stream, %llu with 16\n",
		      waited ? " with ipu_queue_submit_and_wait()" : "",
		      (unsigned long long)e1, (unsigned long long)e16);
	assert_int_equal(s1, 1);
	assert_int_equal(s16, 1);
	assert_in_range(e1, 1, max);
	assert_in_range(e16, 1, max);
}

static void test_a_libipu_run_costs_the_same_enters_with_1_and_16_streams(void **state)
{
	(void)state;
	check_libipu_runs(false);
}

/* Issue 29: submitting and waiting is one io_uring_enter(). */
static void test_a_libipu_run_submitted_and_waited_costs_one_enter(void **state)
{
	(void)state;
	check_libipu_runs(true);
}

/* io_uring_enter() calls of one ipu_session_run_with_outputs() on hw. */
static uint64_t session_run_enters(uint32_t n)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_hw");
	static float in[KP_MAX_STREAMS][16], out[KP_MAX_STREAMS][16];
	struct ipu_stream_buffer ins[KP_MAX_STREAMS], outs[KP_MAX_STREAMS];
	struct ipu_queue_stats a, b;
	struct ipu_session *s = NULL;
	char name[2][KP_MAX_STREAMS][16];
	uint32_t i;

	if (ipu_session_create(kp_streams_ir(n), &opts, &s))
		fail_msg("ipu_session_create: %s", ipu_session_errmsg(NULL));
	if (ipu_session_attach(s))
		fail_msg("attach: %s", ipu_session_errmsg(s));
	for (i = 0; i < n; i++) {
		snprintf(name[0][i], sizeof(name[0][i]), "in%u", i);
		snprintf(name[1][i], sizeof(name[1][i]), "out%u", i);
		ins[i] = (struct ipu_stream_buffer){
			.stream = name[0][i],
			.buf = { .data = in[i], .dtype = IPU_DTYPE_FLOAT32,
				 .ndim = 1, .shape = { 16 } },
		};
		outs[i] = (struct ipu_stream_buffer){
			.stream = name[1][i],
			.buf = { .data = out[i], .dtype = IPU_DTYPE_FLOAT32,
				 .ndim = 1, .shape = { 16 } },
		};
	}
	if (ipu_session_run_with_outputs(s, ins, n, outs, n, 0))
		fail_msg("run: %s", ipu_session_errmsg(s));
	a = totals();
	if (ipu_session_run_with_outputs(s, ins, n, outs, n, 0))
		fail_msg("run: %s", ipu_session_errmsg(s));
	b = totals();
	assert_int_equal(b.submit_enters - a.submit_enters, 1);
	ipu_session_detach(s, 0);
	ipu_session_destroy(s);
	return b.enters - a.enters;
}

static void test_a_session_run_costs_the_same_enters_with_1_and_16_streams(void **state)
{
	uint64_t e1, e16;

	(void)state;
	ks_require_simd();
	e1 = session_run_enters(1);
	e16 = session_run_enters(16);
	print_message("io_uring_enter() per ipu_session_run: %llu with 1 stream, %llu with 16\n",
		      (unsigned long long)e1, (unsigned long long)e16);
	/* Issue 29: the session submits and waits in one call. */
	assert_int_equal(e1, 1);
	assert_int_equal(e16, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_a_libipu_run_costs_the_same_enters_with_1_and_16_streams),
		KT_TEST(test_a_libipu_run_submitted_and_waited_costs_one_enter),
		KT_TEST(test_a_session_run_costs_the_same_enters_with_1_and_16_streams),
	};

	unsetenv("IPU_DEVICE");
	unsetenv("IPU_OFFLINE_DEVICE");
	return KT_RUN(tests);
}
