// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_instances.c - a session of a program split across instances
 * (docs/instances.md), as instance 1 of 2 of a 4-replica program, in one
 * process: the process's instances are set by hand, and the program has
 * no all-reduce, so no other instance is needed. (tests/mpi/ runs whole
 * splits under mpirun.)
 *
 * It shows that the session runs and streams the instance's replicas only
 * (S11 with irf), that weights_from_host gives each local replica the value
 * of its global replica's group, that weights_to_host reads each group from
 * a local member, and the refusals: a process that is not the program's
 * instance, a group with no local member, all_replicas retrieval, a
 * device other than the model.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ipu/firmware.h>

#include "unit/session_helpers.h"

#define N 3

static int no_gather(void *ctx, void *buf, size_t bytes, char *msg,
		     size_t msglen)
{
	(void)ctx;
	(void)buf;
	(void)bytes;
	(void)msg;
	(void)msglen;
	fail_msg("the program has no all-reduce: nothing to gather");
	return -EPROTO;
}

static const struct ipufw_instances second_of_two = {
	.index = 1, .count = 2, .allgather = no_gather,
};

static int teardown(void **state)
{
	(void)state;
	ipu_model_set_instances(NULL);
	unsetenv("IPU_OFFLINE_DEVICE");
	return 0;
}

/* The accumulator (session_helpers.h) of 4 replicas, 2 per instance, w
 * grouped as @g (NULL: one group). */
static struct ipu_ir *split_acc(const struct ipu_replica_grouping *g,
				uint32_t retrieval)
{
	IPU_OPTS(ipu_ir_variable_opts, opts, .grouping = g,
		 .retrieval = retrieval);
	struct ipu_ir *ir = sh_acc_ir(4, 1, N, &opts);

	assert_int_equal(ipu_ir_set_instance_replication_factor(ir, 2), 0);
	return ir;
}

static void test_split_program_needs_its_instance(void **state)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model");
	struct ipu_session *s = NULL;

	(void)state;
	assert_int_equal(ipu_session_create(split_acc(NULL, 0), &opts, &s),
			 -EINVAL);
	assert_null(s);
	sh_assert_msg(NULL, "runs 2 of its 4 replicas per instance, as 2 instances; this process is not split");
}

/* Groups {0, 1} and {2, 3}: this instance holds group 1 only. */
static void test_local_replicas_get_their_groups_value(void **state)
{
	struct ipu_replica_grouping halves = { .stride = 1, .group_size = 2 };
	float x[2][N] = { { 0 } }, y[2][N], want[N];
	float w[2][N];
	struct ipu_host_buffer b = sh_buf(w, IPU_DTYPE_FLOAT32, 2, 2ull,
					  (uint64_t)N);
	struct ipu_session *s;
	uint32_t i;

	(void)state;
	ipu_model_set_instances(&second_of_two);
	s = sh_session(split_acc(&halves, 0));
	sh_attach(s);
	for (i = 0; i < N; i++)
		x[1][i] = 1000;
	/* S11: the replica dimension is the instance's 2 replicas. */
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 2, 2ull, (uint64_t)N),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 2, 2ull, (uint64_t)N));
	for (i = 0; i < N; i++)
		want[i] = (float)(100 + i + 1);
	sh_assert_floats(y[0], want, N);
	for (i = 0; i < N; i++)
		want[i] += 1000;
	sh_assert_floats(y[1], want, N);

	/* Group 0 lives on instance 0 only. */
	assert_int_equal(ipu_session_get_tensor_data(s, "w", &b), -EOPNOTSUPP);
	sh_assert_msg(s, "variable 'w': group 0 has no replica on this instance (replicas 2..3 of 4)");
	ipu_session_destroy(s);
}

/* Groups {0, 2} and {1, 3}: each has a member here (2 and 3). */
static void test_groups_read_from_their_local_member(void **state)
{
	struct ipu_replica_grouping strided = { .stride = 2, .group_size = 2 };
	float x[2][N] = { { 0 } }, y[2][N], w[2][N], want[2][N];
	uint64_t shape[2] = { 2, N };
	struct ipu_session *s;
	uint32_t g, i;

	(void)state;
	ipu_model_set_instances(&second_of_two);
	s = sh_session(split_acc(&strided, 0));
	sh_attach(s);
	for (i = 0; i < N; i++) {
		x[0][i] = 10;
		x[1][i] = 20;
	}
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 2, 2ull, (uint64_t)N),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 2, 2ull, (uint64_t)N));
	/* Replica 2 is group 0's, replica 3 group 1's. */
	for (g = 0; g < 2; g++)
		for (i = 0; i < N; i++)
			want[g][i] = (float)(g * 100 + i + 1) + x[g][i];
	sh_assert_floats(y[0], want[0], 2 * N);
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	sh_assert_floats(w[0], want[0], 2 * N);
	ipu_session_destroy(s);
}

static void test_split_program_on_ipu_hw_is_refused(void **state)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_hw");
	struct ipu_session *s = NULL;

	(void)state;
	ipu_model_set_instances(&second_of_two);
	/* Offline: no IPU needs to be present for the choice to be made. */
	setenv("IPU_OFFLINE_DEVICE", "ipu_hw", 1);
	assert_int_equal(ipu_session_create(split_acc(NULL, 0), &opts, &s),
			 -EOPNOTSUPP);
	unsetenv("IPU_OFFLINE_DEVICE");
	sh_assert_msg(NULL, "is split across instances, which only \"ipu_model\" runs so far, not \"ipu_hw\"");
}

static void test_all_replicas_retrieval_is_refused(void **state)
{
	struct ipu_replica_grouping halves = { .stride = 1, .group_size = 2 };
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model");
	struct ipu_session *s = NULL;

	(void)state;
	ipu_model_set_instances(&second_of_two);
	assert_int_equal(ipu_session_create(split_acc(&halves,
						      IPU_EXE_RETRIEVE_ALL_REPLICAS),
					    &opts, &s),
			 -EOPNOTSUPP);
	sh_assert_msg(NULL, "variable 'w': \"all_replicas\" retrieval of a program split across instances is not supported yet");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_split_program_needs_its_instance,
					  teardown),
		cmocka_unit_test_teardown(test_local_replicas_get_their_groups_value,
					  teardown),
		cmocka_unit_test_teardown(test_groups_read_from_their_local_member,
					  teardown),
		cmocka_unit_test_teardown(test_split_program_on_ipu_hw_is_refused,
					  teardown),
		cmocka_unit_test_teardown(test_all_replicas_retrieval_is_refused,
					  teardown),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
