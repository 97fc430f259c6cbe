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
 * of its global replica's group, that weights_to_host follows PopXL's
 * rules across instances (a group from its first replica, all_replicas
 * from every replica of the program), taking what lives on instance 0
 * from the gather, here a transport the test plays instance 0 in; what a
 * hostile or failing peer makes of it (a failed read, a wrong index, a
 * transport error: clear errors, host copies unchanged); and the
 * refusal of a process that is not the program's instance. On "ipu_hw"
 * (tests/kernel/test_session_hw_instances.c runs this file there),
 * ipu-simd runs the replicas and learns the instance from the process.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <ipu/firmware.h>
#include <ipu/testing.h>

#include "unit/session_helpers.h"

#define N 3

/*
 * Instance 0 as the test plays it. The gather's parts are libsession's
 * (gather.c): a head (int32 status, uint32 index), then per fetched
 * variable its value on each of the instance's replicas; the accumulator
 * has one, "w". Instance 0's replicas 0 and 1 hold w = 5000 + 1000 * r + i.
 */
struct peer {
	int32_t status;		/* its head */
	uint32_t index;
	int fail;		/* the transport fails with it */
	unsigned int calls;
};

static struct peer peer;

static float peer_value(uint32_t r, uint32_t i)
{
	return (float)(5000 + 1000 * r + i);
}

static int fake_gather(void *ctx, void *buf, size_t bytes, char *msg,
		       size_t msglen)
{
	struct peer *p = ctx;
	int32_t head[2] = { p->status, (int32_t)p->index };
	float *w = (float *)(void *)((uint8_t *)buf + sizeof(head));
	uint32_t r, i;

	p->calls++;
	if (p->fail) {
		snprintf(msg, msglen, "instance 1 of 2: no answer from the other instances");
		return p->fail;
	}
	assert_int_equal(bytes, sizeof(head) + 2 * N * sizeof(float));
	memcpy(buf, head, sizeof(head));
	for (r = 0; r < 2; r++)
		for (i = 0; i < N; i++)
			w[r * N + i] = peer_value(r, i);
	return 0;
}

static const struct ipufw_instances second_of_two = {
	.index = 1, .count = 2, .allgather = fake_gather, .ctx = &peer,
};

static int setup(void **state)
{
	(void)state;
	peer = (struct peer){ .index = 0 };
	return 0;
}

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

/* A session of split_acc(@g, @retrieval) as instance 1, run once with x
 * = 10 * (local replica + 1): local replica r (global 2 + r) then holds w
 * = its group's initial value + 10 * (r + 1). */
static struct ipu_session *split_run(const struct ipu_replica_grouping *g,
				     uint32_t retrieval)
{
	float x[2][N], y[2][N];
	struct ipu_session *s;
	uint32_t r, i;

	ipu_model_set_instances(&second_of_two);
	s = sh_session(split_acc(g, retrieval));
	sh_attach(s);
	for (r = 0; r < 2; r++)
		for (i = 0; i < N; i++)
			x[r][i] = (float)(10 * (r + 1));
	/* S11: the replica dimension is the instance's 2 replicas. */
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 2, 2ull, (uint64_t)N),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 2, 2ull, (uint64_t)N));
	return s;
}

/* Groups {0, 1} and {2, 3}: this instance holds group 1 only; group 0
 * comes from instance 0's replica 0. */
static void test_groups_elsewhere_are_gathered(void **state)
{
	struct ipu_replica_grouping halves = { .stride = 1, .group_size = 2 };
	float w[2][N], want[2][N];
	uint64_t shape[2] = { 2, N };
	struct ipu_session *s;
	uint32_t i;

	(void)state;
	s = split_run(&halves, 0);
	for (i = 0; i < N; i++) {
		want[0][i] = peer_value(0, i);
		/* Replica 2, group 1's first member, got x = 10. */
		want[1][i] = (float)(100 + i + 1 + 10);
	}
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	sh_assert_floats(w[0], want[0], 2 * N);
	assert_int_equal(peer.calls, 1);
	ipu_session_destroy(s);
}

/* Groups {0, 2} and {1, 3}: a group's value is its first replica's (0
 * and 1, on instance 0), as on one host, though 2 and 3 are members here. */
static void test_groups_read_from_their_first_replica(void **state)
{
	struct ipu_replica_grouping strided = { .stride = 2, .group_size = 2 };
	float w[2][N], want[2][N];
	uint64_t shape[2] = { 2, N };
	struct ipu_session *s;
	uint32_t g, i;

	(void)state;
	s = split_run(&strided, 0);
	for (g = 0; g < 2; g++)
		for (i = 0; i < N; i++)
			want[g][i] = peer_value(g, i);
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	sh_assert_floats(w[0], want[0], 2 * N);
	ipu_session_destroy(s);
}

/* all_replicas: (replication_factor,) + shape, every replica of the
 * program in replica order: 0 and 1 gathered, 2 and 3 read here. */
static void test_all_replicas_span_the_instances(void **state)
{
	struct ipu_replica_grouping halves = { .stride = 1, .group_size = 2 };
	float w[4][N], want[4][N];
	uint64_t shape[2] = { 4, N };
	struct ipu_tensor_desc d;
	struct ipu_session *s;
	uint32_t r, i;

	(void)state;
	s = split_run(&halves, IPU_EXE_RETRIEVE_ALL_REPLICAS);
	assert_int_equal(ipu_session_tensor_desc(s, "w", &d), 0);
	assert_int_equal(d.ndim, 2);
	assert_int_equal(d.shape[0], 4);
	for (i = 0; i < N; i++) {
		for (r = 0; r < 2; r++)
			want[r][i] = peer_value(r, i);
		for (r = 2; r < 4; r++)
			want[r][i] = (float)(100 + i + 1 + 10 * (r - 1));
	}
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	sh_assert_floats(w[0], want[0], 4 * N);
	ipu_session_destroy(s);
}

/* What a fetch that fails leaves: the host copies of before (S25). */
static void assert_fetch_fails(struct ipu_session *s, int err,
			       const char *msg)
{
	float w[2][N], want[2][N];
	uint64_t shape[2] = { 2, N };
	uint32_t g, i;

	assert_int_equal(ipu_session_weights_to_host(s), err);
	sh_assert_msg(s, msg);
	/* Still the initial values, fetched from the host copies. */
	assert_int_equal(ipu_session_detach(s, IPU_DETACH_ERROR), 0);
	for (g = 0; g < 2; g++)
		for (i = 0; i < N; i++)
			want[g][i] = (float)(g * 100 + i + 1);
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	sh_assert_floats(w[0], want[0], 2 * N);
}

/* A run with groups {0, 1}, {2, 3}, then a fetch that fails so. */
static void run_then_fetch_fails(int err, const char *msg)
{
	struct ipu_replica_grouping halves = { .stride = 1, .group_size = 2 };
	struct ipu_session *s = split_run(&halves, 0);

	assert_fetch_fails(s, err, msg);
	ipu_session_destroy(s);
}

static void test_peer_read_failure_fails_the_fetch(void **state)
{
	(void)state;
	peer.status = -EIO;
	run_then_fetch_fails(-EIO, "weights_to_host: instance 0 of 2 could not read its replicas");
}

/* A part that claims another instance, or a status no errno is: refused. */
static void test_peer_garbage_is_refused(void **state)
{
	(void)state;
	peer.index = 7;
	run_then_fetch_fails(-EPROTO, "instance 0 of 2 could not read its replicas");
	peer = (struct peer){ .status = 1 << 30 };
	run_then_fetch_fails(-EPROTO, "instance 0 of 2 could not read its replicas");
}

/* This instance's read fails: it still takes part in the gather (so the
 * others fail at once, naming it) and fails with its own error. */
static void test_own_read_failure_still_gathers(void **state)
{
	struct ipu_replica_grouping halves = { .stride = 1, .group_size = 2 };
	struct ipu_session *s;

	(void)state;
	if (strcmp(SH_DEVICE, "ipu_model"))
		skip(); /* the model's fault injection */
	s = split_run(&halves, 0);
	assert_int_equal(__ipu_model_faults_set("dma:1"), 0);
	assert_fetch_fails(s, -EIO, "injected fault");
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
	assert_int_equal(peer.calls, 1);
	ipu_session_destroy(s);
}

static void test_transport_failure_fails_the_fetch(void **state)
{
	(void)state;
	peer.fail = -ETIMEDOUT;
	run_then_fetch_fails(-ETIMEDOUT, "weights_to_host: gathering the weights of the other instances: instance 1 of 2: no answer from the other instances");
}

/* ipu_hw runs split programs too (ipu-simd gathers through the process,
 * docs/instances.md): made offline, no IPU needs to be present. */
static void test_split_program_on_ipu_hw_is_made(void **state)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_hw");
	struct ipu_session *s = NULL;

	(void)state;
	ipu_model_set_instances(&second_of_two);
	setenv("IPU_OFFLINE_DEVICE", "ipu_hw", 1);
	assert_int_equal(ipu_session_create(split_acc(NULL, 0), &opts, &s), 0);
	unsetenv("IPU_OFFLINE_DEVICE");
	assert_string_equal(ipu_session_device_name(s), "ipu_hw");
	ipu_session_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_split_program_needs_its_instance,
					  teardown),
		cmocka_unit_test_setup_teardown(test_groups_elsewhere_are_gathered,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_groups_read_from_their_first_replica,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_replicas_span_the_instances,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_read_failure_fails_the_fetch,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_garbage_is_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_read_failure_still_gathers,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_transport_failure_fails_the_fetch,
						setup, teardown),
		cmocka_unit_test_teardown(test_split_program_on_ipu_hw_is_made,
					  teardown),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
