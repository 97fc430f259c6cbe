// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_lockstep.c - a replica other than the first failing in a run:
 * the run's error names it and its instruction, no replica runs an
 * instruction past the failing one, nothing leaks, and the executor's
 * next run is whole. Replicas of a small program (exec.c's
 * FW_LOCKSTEP_ARENA, 1 MiB) run in the caller's thread an instruction at
 * a time for each, larger ones in threads; both are tested.
 *
 * Every op fails alike on every replica, but for memory: the test is
 * linked with -Wl,--wrap=malloc (Makefile), so libipufw's archive calls
 * __wrap_malloc() below, which fails the allocations of the reduction's
 * accumulators (ops_reduce.c, a size no other allocation has) that it is
 * told to. Against the archive only, as --wrap reaches no shared library.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "unit/exe_builder.h"

/* y [ROWS, 2] reduced over its last axis: accumulators of ROWS doubles. */
#define ROWS 777
#define ACC_BYTES (ROWS * sizeof(double))

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);

/*
 * What __wrap_malloc() fails, of the allocations of ACC_BYTES: with
 * @fail_after >= 0, the one after that many; with @fail_off_main, every
 * one made outside the test's main thread (the replicas' workers).
 * Atomics: workers allocate concurrently.
 */
static int fail_after = -1;
static bool fail_off_main;
static pthread_t main_thread;

void *__wrap_malloc(size_t size)
{
	if (size == ACC_BYTES) {
		if (__atomic_load_n(&fail_after, __ATOMIC_SEQ_CST) >= 0 &&
		    __atomic_fetch_sub(&fail_after, 1, __ATOMIC_SEQ_CST) <= 0)
			return NULL;
		if (__atomic_load_n(&fail_off_main, __ATOMIC_SEQ_CST) &&
		    !pthread_equal(pthread_self(), main_thread))
			return NULL;
	}
	return __real_malloc(size);
}

/* The injections off. */
static void heal(void)
{
	__atomic_store_n(&fail_after, -1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&fail_off_main, false, __ATOMIC_SEQ_CST);
}

struct prog {
	struct eb *b;
	uint32_t x, y, s, z;
};

/*
 * On @reps replicas: y = x + x; s = sum of y's rows (the allocation that
 * fails); an all-reduce of s (where replicas in threads meet); z = -s.
 * @threads: an arena past FW_LOCKSTEP_ARENA.
 */
static struct prog build(uint32_t reps, bool threads)
{
	struct prog p;

	p.b = eb_new(reps, 1);
	p.x = eb_tensor(p.b, IPU_DTYPE_FLOAT32, EB_SHAPE(ROWS, 2));
	p.y = eb_tensor(p.b, IPU_DTYPE_FLOAT32, EB_SHAPE(ROWS, 2));
	p.s = eb_tensor(p.b, IPU_DTYPE_FLOAT32, EB_SHAPE(ROWS));
	p.z = eb_tensor(p.b, IPU_DTYPE_FLOAT32, EB_SHAPE(ROWS));
	eb_op(p.b, IPU_OP_ADD, EB_U32(p.y, p.x, p.x), EB_NONE);
	eb_op(p.b, IPU_OP_REDUCE_SUM, EB_U32(p.s, p.y), EB_I64(2, 0));
	eb_op(p.b, IPU_OP_ALL_REDUCE, EB_U32(p.s, p.s),
	      EB_I64(IPU_EXE_REDUCE_SUM, reps, 1));
	eb_op(p.b, IPU_OP_NEG, EB_U32(p.z, p.s), EB_NONE);
	if (threads)
		eb_tensor(p.b, IPU_DTYPE_FLOAT32, EB_SHAPE((1 << 18) + 1));
	eb_alloc(p.b);
	assert_true((p.b->exe.arena_size > (1u << 20)) == threads);
	return p;
}

/* Replica @r's x: row i is (i + r, 1). */
static void fill(struct prog *p, uint32_t r)
{
	uint32_t i;

	for (i = 0; i < ROWS; i++) {
		eb_set(p->b, r, p->x, 2 * i, i + r);
		eb_set(p->b, r, p->x, 2 * i + 1, 1);
	}
}

/* A whole run: z[i] = -sum over replicas of 2 (i + r + 1). */
static void check_whole_run(struct prog *p, uint32_t reps)
{
	uint32_t r, i;

	heal();
	assert_int_equal(eb_run(p->b), 0);
	for (r = 0; r < reps; r++)
		for (i = 0; i < ROWS; i += 97) {
			double want = 0;
			uint32_t q;

			for (q = 0; q < reps; q++)
				want -= 2.0 * (i + q + 1);
			assert_true(eb_get(p->b, r, p->z, i) == want);
		}
}

/*
 * Lockstep, @reps replicas: replica @bad fails its reduction after the
 * replicas before it did theirs.
 */
static void check_lockstep_failure(uint32_t reps, uint32_t bad)
{
	struct prog p = build(reps, false);
	char want[64];
	uint32_t r, i;

	for (r = 0; r < reps; r++)
		fill(&p, r);
	__atomic_store_n(&fail_after, (int)bad, __ATOMIC_SEQ_CST);
	assert_int_equal(eb_run(p.b), -ENOMEM);
	heal();
	snprintf(want, sizeof(want),
		 "replica %u, instruction 1 (reduce_sum): no memory", bad);
	assert_non_null(strstr(p.b->err, want));
	for (r = 0; r < reps; r++)
		for (i = 0; i < ROWS; i++) {
			/* Every replica ran instruction 0 ... */
			assert_true(eb_get(p.b, r, p.y, 2 * i) == 2.0 * (i + r));
			/* ... those before @bad instruction 1, and none the
			 * all-reduce or what follows. */
			assert_true(eb_get(p.b, r, p.s, i) ==
				    (r < bad ? 2.0 * (i + r + 1) : 0.0));
			assert_true(eb_get(p.b, r, p.z, i) == 0.0);
		}
	check_whole_run(&p, reps);
	eb_free(p.b);
}

static void test_lockstep_replica_1_fails(void **state)
{
	(void)state;
	check_lockstep_failure(3, 1);
}

/* The last replica: the message is its own. */
static void test_lockstep_last_replica_fails(void **state)
{
	(void)state;
	check_lockstep_failure(4, 3);
}

/*
 * Threads: the workers' replicas fail their reductions; replica 0 stops
 * at the all-reduce's barrier instead of waiting for them, and the error
 * is the first replica's own, not replica 0's "another replica failed".
 */
static void test_threads_replica_1_fails(void **state)
{
	struct prog p = build(3, true);
	uint32_t r;

	(void)state;
	for (r = 0; r < 3; r++)
		fill(&p, r);
	__atomic_store_n(&fail_off_main, true, __ATOMIC_SEQ_CST);
	assert_int_equal(eb_run(p.b), -ENOMEM);
	heal();
	assert_non_null(strstr(p.b->err,
			       "replica 1, instruction 1 (reduce_sum): no memory"));
	for (r = 0; r < 3; r++)
		assert_true(eb_get(p.b, r, p.z, 0) == 0.0);
	check_whole_run(&p, 3);
	eb_free(p.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockstep_replica_1_fails),
		cmocka_unit_test(test_lockstep_last_replica_fails),
		cmocka_unit_test(test_threads_replica_1_fails),
	};

	main_thread = pthread_self();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
