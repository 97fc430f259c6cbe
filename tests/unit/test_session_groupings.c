// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_groupings.c - replica groupings and retrieval modes (S20),
 * with PopXL's documented examples on 8 replicas. The assignments below
 * (replica -> group) are written out from PopXL's documentation of
 * ReplicaGrouping, not computed with the library's formula. The last
 * tests use a grouping made from an assignment list (non-constant stride).
 */
#include "session_helpers.h"

#define R 8
#define N 2 /* elements of w */

struct example {
	uint32_t stride, group_size;
	uint32_t assignment[R];
};

static const struct example examples[] = {
	{ 1, 8, { 0, 0, 0, 0, 0, 0, 0, 0 } }, /* ungrouped */
	{ 1, 2, { 0, 0, 1, 1, 2, 2, 3, 3 } },
	{ 2, 4, { 0, 1, 0, 1, 0, 1, 0, 1 } },
	{ 4, 2, { 0, 1, 2, 3, 0, 1, 2, 3 } },
	{ 2, 2, { 0, 1, 0, 1, 2, 3, 2, 3 } },
	{ 1, 1, { 0, 1, 2, 3, 4, 5, 6, 7 } },
};

#define NEXAMPLES (sizeof(examples) / sizeof(examples[0]))

/* The accumulator on 8 replicas, w grouped as @ex, retrieved as @mode. */
static struct ipu_session *grouped(const struct example *ex, uint32_t mode)
{
	struct ipu_ir *ir = sh_ir(R, 1);
	struct ipu_replica_grouping g;
	struct ipu_session *s;

	assert_int_equal(ipu_ir_replica_grouping(ir, ex->stride, ex->group_size,
						 &g),
			 0);
	ipu_ir_destroy(ir);
	{
		IPU_OPTS(ipu_ir_variable_opts, opts, .grouping = &g,
			 .retrieval = mode);

		s = sh_session(sh_acc_ir(R, 1, N, &opts));
	}
	sh_attach(s);
	return s;
}

/* Run with x = @x_of(r) in replica r; y in @y. */
static void run_replicas(struct ipu_session *s, float scale, float y[R][N])
{
	float x[R][N];
	uint32_t r, k;

	for (r = 0; r < R; r++)
		for (k = 0; k < N; k++)
			x[r][k] = scale * (float)r;
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 2, (uint64_t)R, (uint64_t)N),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 2, (uint64_t)R, (uint64_t)N));
}

/* Group g starts as 100 g + (1, 2) (sh_acc_ir). */
static float initial(uint32_t g, uint32_t k)
{
	return (float)(100 * g + k + 1);
}

static void test_S20_host_shape_is_one_value_per_group(void **state)
{
	struct ipu_tensor_desc d;
	size_t i;

	(void)state;
	for (i = 0; i < NEXAMPLES; i++) {
		struct ipu_session *s = grouped(&examples[i],
						IPU_EXE_RETRIEVE_ONE_PER_GROUP);
		uint32_t groups = R / examples[i].group_size;

		assert_int_equal(ipu_session_tensor_desc(s, "w", &d), 0);
		if (groups == 1) {
			assert_int_equal(d.ndim, 1);
			assert_int_equal(d.shape[0], N);
		} else {
			assert_int_equal(d.ndim, 2);
			assert_int_equal(d.shape[0], groups);
			assert_int_equal(d.shape[1], N);
		}
		ipu_session_destroy(s);
	}
}

/* weights_from_host gives each replica its group's value. */
static void test_S20_replicas_get_their_group_value(void **state)
{
	float y[R][N];
	uint32_t r, k;
	size_t i;

	(void)state;
	for (i = 0; i < NEXAMPLES; i++) {
		struct ipu_session *s = grouped(&examples[i],
						IPU_EXE_RETRIEVE_ONE_PER_GROUP);

		run_replicas(s, 0, y);
		for (r = 0; r < R; r++)
			for (k = 0; k < N; k++)
				if (y[r][k] != initial(examples[i].assignment[r], k))
					fail_msg("stride %u, group size %u: replica %u got %g",
						 examples[i].stride,
						 examples[i].group_size, r,
						 (double)y[r][k]);
		ipu_session_destroy(s);
	}
}

/* one_per_group reads the first replica of each group. */
static void test_S20_one_per_group_reads_each_groups_first(void **state)
{
	float y[R][N], w[R][N];
	uint64_t shape[2] = { 0, N };
	uint32_t g, r, k;
	size_t i;

	(void)state;
	for (i = 0; i < NEXAMPLES; i++) {
		struct ipu_session *s = grouped(&examples[i],
						IPU_EXE_RETRIEVE_ONE_PER_GROUP);
		uint32_t groups = R / examples[i].group_size;

		/* Replicas diverge: replica r adds r. */
		run_replicas(s, 1, y);
		shape[0] = groups;
		sh_get_f32(s, "w", &w[0][0], groups > 1 ? 2 : 1,
			   groups > 1 ? shape : shape + 1);
		for (g = 0; g < groups; g++) {
			/* The lowest replica assigned to g. */
			for (r = 0; examples[i].assignment[r] != g; r++)
				;
			for (k = 0; k < N; k++)
				assert_true(w[g][k] == initial(g, k) + (float)r);
		}
		ipu_session_destroy(s);
	}
}

/* all_replicas: a value per replica, in replica order. */
static void test_S20_all_replicas_returns_every_replica(void **state)
{
	const uint64_t shape[2] = { R, N };
	struct ipu_tensor_desc d;
	float y[R][N], w[R][N];
	uint32_t r, k;
	size_t i;

	(void)state;
	for (i = 0; i < NEXAMPLES; i++) {
		struct ipu_session *s = grouped(&examples[i],
						IPU_EXE_RETRIEVE_ALL_REPLICAS);
		const uint32_t *a = examples[i].assignment;

		assert_int_equal(ipu_session_tensor_desc(s, "w", &d), 0);
		assert_int_equal(d.ndim, 2);
		assert_int_equal(d.shape[0], R);
		/* Before a run, every replica holds its group's value. */
		sh_get_f32(s, "w", &w[0][0], 2, shape);
		for (r = 0; r < R; r++)
			for (k = 0; k < N; k++)
				assert_true(w[r][k] == initial(a[r], k));
		run_replicas(s, 1, y);
		sh_get_f32(s, "w", &w[0][0], 2, shape);
		for (r = 0; r < R; r++)
			for (k = 0; k < N; k++)
				assert_true(w[r][k] == initial(a[r], k) + (float)r);
		ipu_session_destroy(s);
	}
}

/* Detached after a fetch, all_replicas keeps what every replica held. */
static void test_S20_all_replicas_kept_after_detach(void **state)
{
	const uint64_t shape[2] = { R, N };
	float y[R][N], w[R][N];
	struct ipu_session *s = grouped(&examples[2],
					IPU_EXE_RETRIEVE_ALL_REPLICAS);
	uint32_t r;

	(void)state;
	run_replicas(s, 2, y);
	assert_int_equal(ipu_session_detach(s, 0), 0);
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	for (r = 0; r < R; r++)
		assert_true(w[r][0] == initial(examples[2].assignment[r], 0) +
					       2 * (float)r);
	/* The next enter sends one value per group: the first replica's,
	 * which for stride 2 is replica g of group g. */
	sh_attach(s);
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	for (r = 0; r < R; r++)
		assert_true(w[r][1] == initial(examples[2].assignment[r], 1) +
					       2 * (float)examples[2].assignment[r]);
	ipu_session_destroy(s);
}

static void test_S20_all_replicas_cannot_be_written(void **state)
{
	struct ipu_session *s = grouped(&examples[2],
					IPU_EXE_RETRIEVE_ALL_REPLICAS);
	float w[2][N] = { { 0 } };
	struct ipu_host_buffer b = sh_buf(w, IPU_DTYPE_FLOAT32, 2, 2ull,
					  (uint64_t)N);

	(void)state;
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), -EINVAL);
	sh_assert_msg(s, "copying to variable 'w' with \"all_replicas\" retrieval mode (group size 4) is not yet supported");
	ipu_session_destroy(s);
}

/* Groups of one are one value per replica whatever the mode: writable. */
static void test_S20_groups_of_one_are_writable(void **state)
{
	struct ipu_session *s = grouped(&examples[5],
					IPU_EXE_RETRIEVE_ALL_REPLICAS);
	float w[R][N], y[R][N];
	uint32_t r;

	(void)state;
	for (r = 0; r < R; r++)
		w[r][0] = w[r][1] = (float)(r * r);
	{
		struct ipu_host_buffer b = sh_buf(w, IPU_DTYPE_FLOAT32, 2,
						  (uint64_t)R, (uint64_t)N);

		assert_int_equal(ipu_session_write_variable_data(s, "w", &b), 0);
	}
	run_replicas(s, 0, y);
	for (r = 0; r < R; r++)
		assert_true(y[r][1] == (float)(r * r));
	ipu_session_destroy(s);
}

/* Writes to a grouped variable go to every replica of each group. */
static void test_S20_grouped_write_reaches_each_group(void **state)
{
	struct ipu_session *s = grouped(&examples[3],
					IPU_EXE_RETRIEVE_ONE_PER_GROUP);
	float w[4][N], y[R][N];
	uint32_t g, r;

	(void)state;
	for (g = 0; g < 4; g++)
		w[g][0] = w[g][1] = (float)(-10 * (int)g);
	{
		struct ipu_host_buffer b = sh_buf(w, IPU_DTYPE_FLOAT32, 2, 4ull,
						  (uint64_t)N);

		assert_int_equal(ipu_session_write_variable_data(s, "w", &b), 0);
	}
	run_replicas(s, 0, y);
	for (r = 0; r < R; r++)
		assert_true(y[r][0] == (float)(-10 * (int)examples[3].assignment[r]));
	ipu_session_destroy(s);
}

/*
 * S20: non-constant-stride groupings (PopXL's
 * ir.replica_grouping_from_assignments()). Host value g belongs to the
 * replicas the user assigned g, whatever order the groups first appear in:
 * group 0 is replicas 1 and 4, group 1 is 2 and 3, group 2 is 0 and 5,
 * group 3 is 6 and 7.
 */
static const uint32_t ncs[R] = { 2, 0, 1, 1, 0, 2, 3, 3 };
static const uint32_t ncs_first[4] = { 1, 2, 0, 6 };
#define NCS_GROUPS 4

static struct ipu_session *grouped_assigned(uint32_t mode)
{
	struct ipu_ir *ir = sh_ir(R, 1);
	struct ipu_replica_grouping g;
	struct ipu_session *s;

	assert_int_equal(ipu_ir_replica_grouping_from_assignments(ir, ncs, R,
								  &g), 0);
	assert_int_equal(g.group_size, 2);
	{
		IPU_OPTS(ipu_ir_variable_opts, opts, .grouping = &g,
			 .retrieval = mode);

		/* The variable keeps its own copy of the assignment. */
		s = sh_session(sh_acc_ir(R, 1, N, &opts));
	}
	ipu_ir_destroy(ir);
	sh_attach(s);
	return s;
}

static void test_S20_non_constant_stride_grouping_host_shape(void **state)
{
	struct ipu_tensor_desc d;
	struct ipu_session *s;

	(void)state;
	s = grouped_assigned(IPU_EXE_RETRIEVE_ONE_PER_GROUP);
	assert_int_equal(ipu_session_tensor_desc(s, "w", &d), 0);
	assert_int_equal(d.ndim, 2);
	assert_int_equal(d.shape[0], NCS_GROUPS);
	assert_int_equal(d.shape[1], N);
	ipu_session_destroy(s);
	s = grouped_assigned(IPU_EXE_RETRIEVE_ALL_REPLICAS);
	assert_int_equal(ipu_session_tensor_desc(s, "w", &d), 0);
	assert_int_equal(d.ndim, 2);
	assert_int_equal(d.shape[0], R);
	ipu_session_destroy(s);
}

/* weights_from_host: each replica's arena holds its group's value. */
static void test_S20_non_constant_stride_grouping_replicas_get_their_group_value(void **state)
{
	struct ipu_session *s = grouped_assigned(IPU_EXE_RETRIEVE_ONE_PER_GROUP);
	float y[R][N];
	uint32_t r, k;

	(void)state;
	run_replicas(s, 0, y);
	for (r = 0; r < R; r++)
		for (k = 0; k < N; k++)
			if (y[r][k] != initial(ncs[r], k))
				fail_msg("replica %u (group %u) got %g", r,
					 ncs[r], (double)y[r][k]);
	ipu_session_destroy(s);
}

/* weights_to_host / get_tensor_data: value g from the first replica of g. */
static void test_S20_non_constant_stride_grouping_one_per_group_reads_first(void **state)
{
	struct ipu_session *s = grouped_assigned(IPU_EXE_RETRIEVE_ONE_PER_GROUP);
	const uint64_t shape[2] = { NCS_GROUPS, N };
	float y[R][N], w[NCS_GROUPS][N];
	uint32_t g, k;

	(void)state;
	run_replicas(s, 1, y);
	assert_int_equal(ipu_session_weights_to_host(s), 0);
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	for (g = 0; g < NCS_GROUPS; g++)
		for (k = 0; k < N; k++)
			if (w[g][k] != initial(g, k) + (float)ncs_first[g])
				fail_msg("group %u: %g", g, (double)w[g][k]);
	/* Detached and back: every replica of g gets g's first replica's. */
	assert_int_equal(ipu_session_detach(s, 0), 0);
	sh_attach(s);
	run_replicas(s, 0, y);
	for (uint32_t r = 0; r < R; r++)
		assert_true(y[r][0] == initial(ncs[r], 0) +
					       (float)ncs_first[ncs[r]]);
	ipu_session_destroy(s);
}

/* all_replicas: a value per replica, in replica order. */
static void test_S20_non_constant_stride_grouping_all_replicas_in_replica_order(void **state)
{
	struct ipu_session *s = grouped_assigned(IPU_EXE_RETRIEVE_ALL_REPLICAS);
	const uint64_t shape[2] = { R, N };
	float y[R][N], w[R][N];
	uint32_t r, k;

	(void)state;
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	for (r = 0; r < R; r++)
		for (k = 0; k < N; k++)
			assert_true(w[r][k] == initial(ncs[r], k));
	run_replicas(s, 1, y);
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	for (r = 0; r < R; r++)
		for (k = 0; k < N; k++)
			assert_true(w[r][k] == initial(ncs[r], k) + (float)r);
	/* Kept after a detach; the next enter sends each group's first. */
	assert_int_equal(ipu_session_detach(s, 0), 0);
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	for (r = 0; r < R; r++)
		assert_true(w[r][1] == initial(ncs[r], 1) + (float)r);
	sh_attach(s);
	sh_get_f32(s, "w", &w[0][0], 2, shape);
	for (r = 0; r < R; r++)
		assert_true(w[r][1] == initial(ncs[r], 1) +
					       (float)ncs_first[ncs[r]]);
	ipu_session_destroy(s);
}

/* write_variable_data: host value g reaches the replicas assigned g. */
static void test_S20_non_constant_stride_grouping_write_reaches_each_group(void **state)
{
	struct ipu_session *s = grouped_assigned(IPU_EXE_RETRIEVE_ONE_PER_GROUP);
	const uint64_t shape[2] = { NCS_GROUPS, N };
	float w[NCS_GROUPS][N], back[NCS_GROUPS][N], y[R][N];
	uint32_t g, r;

	(void)state;
	for (g = 0; g < NCS_GROUPS; g++) {
		w[g][0] = (float)(-10 * (int)g);
		w[g][1] = (float)(1000 + g);
	}
	{
		struct ipu_host_buffer b = sh_buf(w, IPU_DTYPE_FLOAT32, 2,
						  (uint64_t)NCS_GROUPS,
						  (uint64_t)N);

		assert_int_equal(ipu_session_write_variable_data(s, "w", &b), 0);
	}
	sh_get_f32(s, "w", &back[0][0], 2, shape);
	assert_memory_equal(back, w, sizeof(w));
	run_replicas(s, 0, y);
	for (r = 0; r < R; r++) {
		assert_true(y[r][0] == (float)(-10 * (int)ncs[r]));
		assert_true(y[r][1] == (float)(1000 + ncs[r]));
	}
	/* And back from the device, in the user's group order. */
	sh_get_f32(s, "w", &back[0][0], 2, shape);
	assert_memory_equal(back, w, sizeof(w));
	ipu_session_destroy(s);
}

static void test_S20_non_constant_stride_grouping_all_replicas_not_writable(void **state)
{
	struct ipu_session *s = grouped_assigned(IPU_EXE_RETRIEVE_ALL_REPLICAS);
	float w[R][N] = { { 0 } };
	struct ipu_host_buffer b = sh_buf(w, IPU_DTYPE_FLOAT32, 2, (uint64_t)R,
					  (uint64_t)N);

	(void)state;
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), -EINVAL);
	sh_assert_msg(s, "\"all_replicas\" retrieval mode (group size 2) is not yet supported");
	ipu_session_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S20_host_shape_is_one_value_per_group),
		cmocka_unit_test(test_S20_replicas_get_their_group_value),
		cmocka_unit_test(test_S20_one_per_group_reads_each_groups_first),
		cmocka_unit_test(test_S20_all_replicas_returns_every_replica),
		cmocka_unit_test(test_S20_all_replicas_kept_after_detach),
		cmocka_unit_test(test_S20_all_replicas_cannot_be_written),
		cmocka_unit_test(test_S20_groups_of_one_are_writable),
		cmocka_unit_test(test_S20_grouped_write_reaches_each_group),
		cmocka_unit_test(test_S20_non_constant_stride_grouping_host_shape),
		cmocka_unit_test(test_S20_non_constant_stride_grouping_replicas_get_their_group_value),
		cmocka_unit_test(test_S20_non_constant_stride_grouping_one_per_group_reads_first),
		cmocka_unit_test(test_S20_non_constant_stride_grouping_all_replicas_in_replica_order),
		cmocka_unit_test(test_S20_non_constant_stride_grouping_write_reaches_each_group),
		cmocka_unit_test(test_S20_non_constant_stride_grouping_all_replicas_not_writable),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
