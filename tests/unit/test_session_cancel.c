// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_cancel.c - ipu_session_cancel() (issue 27.6, Ctrl-C): from
 * another thread or a signal handler, it ends the wait of the call in
 * progress with -ECANCELED; the session has reset the device and reaped
 * every command before the call returns, and stays attached and usable,
 * its host copies out of sync. A cancel made while no call is in progress
 * cancels nothing; ipu_session_cancel_clear() withdraws one no call saw.
 *
 * The calls cancelled here wait for a launch the model never completes
 * (its fault "hang"): only the cancel, or the reset it makes, ends them.
 * The session's wait bound (SAFETY_MS) is only there so that a broken
 * cancel fails the test with -ETIMEDOUT instead of hanging it. The cancel
 * comes once the call is surely waiting: the test hook
 * __ipu_session_on_wait() posts a semaphore the canceller waits on.
 */
#include "session_helpers.h"

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <unistd.h>

#define SAFETY_MS 20000

static const uint64_t two = 2;

/* The accumulator w = {1, 2}, attached, its waits bounded by SAFETY_MS. */
static struct ipu_session *acc(void)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model",
		 .attach_timeout_ms = 1, .wait_timeout_ms = SAFETY_MS);
	struct ipu_session *s = NULL;

	if (ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts, &s))
		fail_msg("ipu_session_create: %s", ipu_session_errmsg(NULL));
	sh_attach(s);
	return s;
}

/* After a cancelled run of x = 7 on w = {1, 2}: usable, and it never ran. */
static void assert_usable_after_cancel(struct ipu_session *s, const float *y)
{
	const float ran[2] = { 2, 3 };
	float y2[2], w[2];

	sh_assert_msg(s, "run: cancelled");
	sh_assert_msg(s, "ipu_session_cancel()");
	sh_assert_msg(s, "model:0");
	/* The output never came; the host copies count as out of sync. */
	assert_true(y[0] == -1 && y[1] == -1);
	assert_true(ipu_session_is_attached(s));
	assert_false(__ipu_session_in_sync(s));
	/* The cancel was taken: the next run runs, and gets its own
	 * completions, none left over from the cancelled one. */
	assert_false(ipu_session_cancel_clear(s));
	assert_int_equal(sh_run_acc(s, 1, y2, -1), 0);
	sh_assert_floats(y2, ran, 2);
	sh_get_f32(s, "w", w, 1, &two);
	sh_assert_floats(w, ran, 2);
}

/* The canceller: once the call waits, cancel it, one way or the other. */
struct canceller {
	pthread_t thread;
	sem_t waiting;
	struct ipu_session *s;
	pthread_t signal_to;	/* by signal to this thread, if @by_signal */
	bool by_signal;
};

static void post_waiting(void *arg)
{
	sem_post(&((struct canceller *)arg)->waiting);
}

static void *cancel_when_waiting(void *arg)
{
	struct canceller *c = arg;

	while (sem_wait(&c->waiting) && errno == EINTR)
		;
	if (c->by_signal)
		pthread_kill(c->signal_to, SIGUSR1);
	else
		ipu_session_cancel(c->s);
	return NULL;
}

static void canceller_start(struct canceller *c, struct ipu_session *s,
			    bool by_signal)
{
	c->s = s;
	c->by_signal = by_signal;
	c->signal_to = pthread_self();
	assert_int_equal(sem_init(&c->waiting, 0, 0), 0);
	__ipu_session_on_wait(s, post_waiting, c);
	assert_int_equal(pthread_create(&c->thread, NULL, cancel_when_waiting,
					c), 0);
}

static void canceller_join(struct canceller *c)
{
	__ipu_session_on_wait(c->s, NULL, NULL);
	assert_int_equal(pthread_join(c->thread, NULL), 0);
	sem_destroy(&c->waiting);
}

static void test_cancel_from_another_thread_ends_a_hung_run(void **state)
{
	struct ipu_session *s = acc();
	struct canceller c;
	uint64_t before = sh_model_resets(0);
	float y[2];

	(void)state;
	canceller_start(&c, s, false);
	assert_int_equal(__ipu_model_faults_set("hang:1"), 0);
	assert_int_equal(sh_run_acc(s, 7, y, -1), -ECANCELED);
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
	canceller_join(&c);
	/* The launch was stopped by a reset, not waited for. */
	assert_true(sh_model_resets(0) >= before + 1);
	sh_assert_msg(s, "reset");
	assert_usable_after_cancel(s, y);
	ipu_session_destroy(s);
}

/* What the SIGUSR1 handler cancels. */
static struct ipu_session *volatile signalled;

static void on_sigusr1(int sig)
{
	(void)sig;
	ipu_session_cancel(signalled);
}

static void test_cancel_from_a_signal_handler_ends_a_hung_run(void **state)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 }, old;
	struct ipu_session *s = acc();
	struct canceller c;
	float y[2];

	(void)state;
	signalled = s;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	canceller_start(&c, s, true);
	assert_int_equal(__ipu_model_faults_set("hang:1"), 0);
	assert_int_equal(sh_run_acc(s, 7, y, -1), -ECANCELED);
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
	canceller_join(&c);
	assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
	signalled = NULL;
	assert_usable_after_cancel(s, y);
	ipu_session_destroy(s);
}

/* Transfers that never end (the fault "xfer_hang") are ended as well. */
static void test_cancel_ends_weights_to_host_and_detach_fetches(void **state)
{
	const float ran[2] = { 8, 9 };
	struct ipu_session *s = acc();
	struct canceller c;
	float y[2], w[2];

	(void)state;
	assert_int_equal(sh_run_acc(s, 7, y, -1), 0);
	sh_assert_floats(y, ran, 2);
	canceller_start(&c, s, false);
	assert_int_equal(__ipu_model_faults_set("xfer_hang:1"), 0);
	assert_int_equal(ipu_session_weights_to_host(s), -ECANCELED);
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
	canceller_join(&c);
	sh_assert_msg(s, "weights_to_host: cancelled");
	assert_false(__ipu_session_in_sync(s));
	/* The device kept its values (a reset keeps memory); leaving the
	 * context fetches them. */
	assert_int_equal(ipu_session_detach(s, 0), 0);
	sh_host_f32(s, "w", false, w, 2);
	sh_assert_floats(w, ran, 2);
	ipu_session_destroy(s);
}

/* A cancel made while no call is in progress cancels nothing: not the
 * next run, nor the next detach (docs/session.md, S27). */
static void test_cancel_with_no_call_in_progress_is_a_no_op(void **state)
{
	const float ran[2] = { 8, 9 };
	struct ipu_session *s = acc();
	float y[2], w[2];

	(void)state;
	ipu_session_cancel(s);
	assert_int_equal(sh_run_acc(s, 7, y, -1), 0);
	sh_assert_floats(y, ran, 2);
	ipu_session_cancel(s);
	assert_int_equal(ipu_session_detach(s, 0), 0);
	assert_false(ipu_session_is_attached(s));
	sh_host_f32(s, "w", false, w, 2);
	sh_assert_floats(w, ran, 2);
	/* Nor the next attach, with its upload. */
	ipu_session_cancel(s);
	sh_attach(s);
	assert_false(ipu_session_cancel_clear(s));
	ipu_session_destroy(s);
}

static void test_cancel_clear_withdraws_a_pending_cancel(void **state)
{
	struct ipu_session *s = acc();
	float y[2];

	(void)state;
	assert_false(ipu_session_cancel_clear(s));
	ipu_session_cancel(s);
	ipu_session_cancel(s); /* not counted: one cancel is pending */
	assert_true(ipu_session_cancel_clear(s));
	assert_false(ipu_session_cancel_clear(s));
	assert_int_equal(sh_run_acc(s, 1, y, -1), 0);
	ipu_session_cancel(NULL);
	assert_false(ipu_session_cancel_clear(NULL));
	ipu_session_destroy(s);
}

/* Attaching that waits for busy IPUs stops waiting too, when the cancel
 * comes during the wait; the safety bound makes a wait the cancel does
 * not end fail with -EBUSY. */
static void test_cancel_ends_the_wait_for_busy_ipus(void **state)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model",
		 .attach_timeout_ms = SAFETY_MS);
	struct ipu_device *held[16];
	struct ipu_session *s = NULL;
	struct canceller c;
	unsigned int i;

	(void)state;
	if (ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts, &s))
		fail_msg("ipu_session_create: %s", ipu_session_errmsg(NULL));
	for (i = 0; i < 16; i++)
		held[i] = mh_open(i, true);
	canceller_start(&c, s, false);
	assert_int_equal(ipu_session_attach(s), -ECANCELED);
	canceller_join(&c);
	sh_assert_msg(s, "attach: cancelled (ipu_session_cancel()) while waiting");
	assert_false(ipu_session_is_attached(s));
	ipu_device_close(held[0]);
	held[0] = NULL;
	sh_attach(s);
	for (i = 1; i < 16; i++)
		ipu_device_close(held[i]);
	ipu_session_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cancel_from_another_thread_ends_a_hung_run),
		cmocka_unit_test(test_cancel_from_a_signal_handler_ends_a_hung_run),
		cmocka_unit_test(test_cancel_ends_weights_to_host_and_detach_fetches),
		cmocka_unit_test(test_cancel_with_no_call_in_progress_is_a_no_op),
		cmocka_unit_test(test_cancel_clear_withdraws_a_pending_cancel),
		cmocka_unit_test(test_cancel_ends_the_wait_for_busy_ipus),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
