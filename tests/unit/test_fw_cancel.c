// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_cancel.c - ipufw_cancel(): a run that would go on for hours
 * stops with -ECANCELED, alone or with replicas waiting for one another in
 * an all-reduce; a cancel made between runs does not touch the next one.
 * (ipu-simd cancels the runs of a device that was reset under them.)
 * Replicas of a small program (exec.c's FW_LOCKSTEP_ARENA, 1 MiB) run in
 * the caller's thread an instruction at a time for each, larger ones in
 * threads that meet at the all-reduce's barriers: both are cancelled.
 *
 * The canceller does not know when the run has started, so it cancels
 * again and again until the run's thread says it returned: a poll on the
 * condition itself, with no sleep and no timing.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "exe_builder.h"

/* ~2^62 iterations: only a cancel ends it. */
#define FOREVER (1ll << 62)

struct bg {
	struct eb *b;
	int rc;
	int done;
};

static void *run_bg(void *arg)
{
	struct bg *g = arg;

	g->rc = eb_run(g->b);
	__atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Run @b in a thread and cancel it until it returns; its result. */
static int run_and_cancel(struct eb *b)
{
	struct bg g = { .b = b };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, run_bg, &g), 0);
	while (!__atomic_load_n(&g.done, __ATOMIC_ACQUIRE)) {
		ipufw_cancel(b->ex);
		sched_yield();
	}
	pthread_join(t, NULL);
	return g.rc;
}

/* x = x + 1, FOREVER times, on @reps replicas (with an all-reduce when
 * there are several, so that replicas wait for each other); @threads: an
 * arena past FW_LOCKSTEP_ARENA, for replicas in threads. */
static struct eb *forever_in(uint32_t reps, bool threads)
{
	struct eb *b = eb_new(reps, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t one = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));

	eb_loop(b, FOREVER, reps > 1 ? 2 : 1);
	eb_op(b, IPU_OP_ADD, EB_U32(y, x, one), EB_NONE);
	if (reps > 1)
		eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(y, y),
		      EB_I64(IPU_EXE_REDUCE_SUM, reps, 1));
	if (threads)
		eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE((1 << 18) + 1));
	eb_alloc(b);
	assert_true((b->exe.arena_size > (1u << 20)) == threads);
	return b;
}

static struct eb *forever(uint32_t reps)
{
	return forever_in(reps, false);
}

/* After a cancelled run of forever(), the executor runs it to the end
 * when its loop is made finite: nothing of the cancelled run is left. */
static void check_runs_again(struct eb *b)
{
	b->params[0] = 3; /* the LOOP's count */
	assert_int_equal(eb_run(b), 0);
}

static void test_a_cancelled_run_returns_ecanceled(void **state)
{
	struct eb *b = forever(1);

	(void)state;
	assert_int_equal(run_and_cancel(b), -ECANCELED);
	assert_non_null(strstr(b->err, "cancelled"));
	eb_free(b);
}

/* Replicas in threads, waiting for one another at the barriers. */
static void test_replicas_in_an_all_reduce_all_stop(void **state)
{
	struct eb *b = forever_in(4, true);

	(void)state;
	assert_int_equal(run_and_cancel(b), -ECANCELED);
	assert_non_null(strstr(b->err, "cancelled"));
	check_runs_again(b);
	eb_free(b);
}

/* Replicas in lockstep: the caller's thread stops them all. */
static void test_replicas_in_lockstep_all_stop(void **state)
{
	struct eb *b = forever(4);

	(void)state;
	assert_int_equal(run_and_cancel(b), -ECANCELED);
	assert_non_null(strstr(b->err, "cancelled"));
	check_runs_again(b);
	eb_free(b);
}

static void test_a_cancel_between_runs_is_forgotten(void **state)
{
	struct eb *b = eb_new(1, 1);
	uint32_t x = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));
	uint32_t y = eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SHAPE(4));

	(void)state;
	eb_op(b, IPU_OP_NEG, EB_U32(y, x), EB_NONE);
	eb_alloc(b);
	ipufw_cancel(b->ex);
	assert_int_equal(eb_run(b), 0);
	eb_free(b);
}

static void test_cancelling_null_is_a_no_op(void **state)
{
	(void)state;
	ipufw_cancel(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_cancelled_run_returns_ecanceled),
		cmocka_unit_test(test_replicas_in_an_all_reduce_all_stop),
		cmocka_unit_test(test_replicas_in_lockstep_all_stop),
		cmocka_unit_test(test_a_cancel_between_runs_is_forgotten),
		cmocka_unit_test(test_cancelling_null_is_a_no_op),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
