// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_ir_data.c - what holds data in an ir: settings, variables (replica
 * groupings with PopXL's rules, retrieval modes, file mappings, extensible
 * options), constants, streams with host_load and host_store. One test per
 * refusal, and what the accepted ones record.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir_expect.h"

#include "ipu/ir.h"

struct fx {
	struct ipu_ir *ir;
	ipu_stream in, out;
	ipu_tensor c;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	static const float z[4];

	if (!f || ipu_ir_create("data", &f->ir))
		return -1;
	/* Four replicas, so that groupings have room. */
	ipu_ir_set_replication_factor(f->ir, 4);
	f->in = ipu_ir_h2d_stream(f->ir, "x", IPU_DTYPE_FLOAT32, 1, SHAPE(4));
	f->out = ipu_ir_d2h_stream(f->ir, "y", IPU_DTYPE_FLOAT32, 2,
				   SHAPE(4, 1));
	f->c = ipu_ir_constant(f->ir, "c", IPU_DTYPE_FLOAT32, 1, SHAPE(4), z);
	*state = f;
	return ipu_stream_error(f->out) || ipu_tensor_error(f->c) ? -1 : 0;
}

static void assert_still_usable(struct fx *f)
{
	assert_int_equal(ipu_tensor_error(ipu_ir_variable(f->ir, "fine",
		IPU_DTYPE_INT8, 1, SHAPE(2), NULL, NULL)), 0);
}

static void expect_error(struct fx *f, int got, int err, const char *what)
{
	ir_expect_refused(f->ir, got, err, what);
	assert_still_usable(f);
}

static const char *long_name(void)
{
	static char name[IPU_EXE_MAX_NAME + 2];

	memset(name, 'n', sizeof(name) - 1);
	return name;
}

static int var(struct fx *f, const char *name, enum ipu_dtype dt, size_t ndim,
	       const uint64_t *shape, const struct ipu_ir_variable_opts *o)
{
	return ipu_ir_variable(f->ir, name, dt, ndim, shape, NULL, o).id;
}

/* Group assignments for the 4 replicas (S20, non-constant strides). */
enum { A_SHORT, A_UNEQUAL, A_GAP, A_HIGH, A_OK };
static const uint32_t assignments[][5] = {
	[A_SHORT] = { 0, 1, 0, 1, 0 }, [A_UNEQUAL] = { 0, 0, 0, 1 },
	[A_GAP] = { 0, 0, 2, 2 },      [A_HIGH] = { 0, 4, 0, 4 },
	[A_OK] = { 0, 1, 1, 0 },
};

/* ipu_ir_replica_grouping_from_assignments() of @n of assignments[@which]
 * (-1: NULL). */
static int assigned(struct fx *f, int which, size_t n)
{
	struct ipu_replica_grouping g;

	return ipu_ir_replica_grouping_from_assignments(f->ir,
		which < 0 ? NULL : assignments[which], n, &g);
}

static int assigned_all_reduce(struct fx *f)
{
	struct ipu_replica_grouping g;

	assert_int_equal(ipu_ir_replica_grouping_from_assignments(f->ir,
		assignments[A_OK], 4, &g), 0);
	return ipu_tensor_error(ipu_ir_all_reduce(f->ir, f->c,
						  IPU_IR_ALL_REDUCE_SUM, &g));
}

/* [0, 1, 1, 0]: two groups of two, not a constant stride. */
static void test_grouping_from_assignments(void **state)
{
	struct fx *f = *state;
	struct ipu_replica_grouping g;
	static const int32_t per_group[4] = { 1, 2, 3, 4 };
	uint32_t a[4] = { 0, 1, 1, 0 };
	ipu_tensor v;

	assert_int_equal(ipu_ir_replica_grouping_from_assignments(f->ir, a, 4,
								  &g), 0);
	assert_int_equal(g.group_size, 2);
	assert_int_equal(g.stride, 0);
	assert_non_null(g.assignment);
	a[0] = 7; /* copied */
	assert_int_equal(g.assignment[0], 0);
	assert_int_equal(g.assignment[1], 1);
	IPU_OPTS(ipu_ir_variable_opts, o, .grouping = &g);
	v = ipu_ir_variable(f->ir, "assigned", IPU_DTYPE_INT32, 1, SHAPE(2),
			    per_group, &o);
	assert_int_equal(ipu_tensor_error(v), 0);
	/* A grouping whose group_size disagrees with its assignment. */
	g.group_size = 1;
	v = ipu_ir_variable(f->ir, "bad", IPU_DTYPE_INT32, 1, SHAPE(2),
			    per_group, &o);
	ir_expect_refused(f->ir, ipu_tensor_error(v), -EINVAL,
			  "variable 'bad': grouping says group_size 1, its assignment makes groups of 2");
	/* The compiled executable carries the assignment. */
	{
		static const int64_t col[2] = { 4, 1 };
		struct ipu_exe *e = NULL;
		int i;

		/* Each stream once per run, as compiling requires. */
		assert_int_equal(ipu_ir_host_store(f->ir, f->out,
			ipu_ir_reshape(f->ir, ipu_ir_host_load(f->ir, f->in, NULL),
				       col, 2)), 0);
		assert_int_equal(ipu_ir_compile(f->ir, &e), 0);
		i = ipu_exe_find_tensor(e, "assigned");
		assert_true(i >= 0);
		assert_int_equal(e->tensors[i].flags,
				 IPU_EXE_TENSOR_GROUP_ASSIGNED);
		assert_int_equal(e->tensors[i].group_size, 2);
		assert_int_equal(e->tensors[i].group_stride, 0);
		assert_int_equal(e->tensors[i].group_assignment[0], 0);
		assert_int_equal(e->tensors[i].group_assignment[1], 1);
		assert_int_equal(e->tensors[i].group_assignment[2], 1);
		assert_int_equal(e->tensors[i].group_assignment[3], 0);
		assert_int_equal(e->tensors[i].data_size, 16);
		ipu_exe_free(e);
		/* It is tied to the replication factor. */
		assert_int_equal(ipu_ir_set_replication_factor(f->ir, 8), 0);
		ir_expect_refused(f->ir, ipu_ir_compile(f->ir, &e), -EINVAL,
				  "compile: variable 'assigned' has a group assignment for 4 replicas, but the replication factor is 8");
	}
	assert_int_equal(ipu_ir_replica_grouping_from_assignments(NULL, a, 4,
								  &g), -EINVAL);
	assert_int_equal(ipu_ir_replica_grouping_from_assignments(f->ir, a, 4,
								  NULL), -EINVAL);
}

static int grouping(struct fx *f, uint32_t stride, uint32_t size)
{
	struct ipu_replica_grouping g;

	return ipu_ir_replica_grouping(f->ir, stride, size, &g);
}

static int var_grouped(struct fx *f, uint32_t stride, uint32_t size)
{
	struct ipu_replica_grouping g = { .stride = stride,
					   .group_size = size };
	IPU_OPTS(ipu_ir_variable_opts, o, .grouping = &g);

	return var(f, "g", IPU_DTYPE_FLOAT32, 1, SHAPE(2), &o);
}

static int var_opts_too_small(struct fx *f)
{
	struct ipu_ir_variable_opts o = { .sz = 4 };

	return var(f, "v", IPU_DTYPE_FLOAT32, 0, NULL, &o);
}

static int var_opts_unknown_bytes(struct fx *f)
{
	struct {
		struct ipu_ir_variable_opts o;
		uint64_t newer;
	} big = { .o = { .sz = sizeof(big) }, .newer = 1 };

	return var(f, "v", IPU_DTYPE_FLOAT32, 0, NULL, &big.o);
}

static int var_with_opts(struct fx *f, struct ipu_ir_variable_opts o,
			 const void *data)
{
	o.sz = sizeof(o);
	return ipu_ir_variable(f->ir, "v", IPU_DTYPE_FLOAT32, 1, SHAPE(2), data,
			       &o).id;
}

static int load_twice_from(struct fx *f, ipu_stream s)
{
	return ipu_ir_host_load(f->ir, s, "a").id;
}

static const float two[2];

/* (name, call, errno, part of the message) */
#define CASES(X_)                                                              \
	X_(host_transfers_zero, ipu_ir_set_num_host_transfers(f->ir, 0), -EINVAL, \
	   "num_host_transfers 0: must be >= 1")                               \
	X_(replication_factor_zero, ipu_ir_set_replication_factor(f->ir, 0),   \
	   -EINVAL, "replication_factor 0: must be >= 1")                      \
	X_(instance_replication_factor_zero,                                   \
	   ipu_ir_set_instance_replication_factor(f->ir, 0), -EINVAL,          \
	   "instance_replication_factor 0: must be >= 1")                      \
	X_(variable_without_name, var(f, NULL, IPU_DTYPE_FLOAT32, 0, NULL, NULL), \
	   -EINVAL, "variable: a name is required")                            \
	X_(variable_name_too_long,                                             \
	   var(f, long_name(), IPU_DTYPE_FLOAT32, 0, NULL, NULL), -EINVAL,     \
	   "is longer than 255 bytes")                                         \
	X_(variable_name_taken_by_constant,                                    \
	   var(f, "c", IPU_DTYPE_FLOAT32, 0, NULL, NULL), -EINVAL,             \
	   "variable: a constant named 'c' exists")                            \
	X_(variable_dtype_invalid, var(f, "v", 42, 0, NULL, NULL), -EINVAL,    \
	   "variable: 'v': dtype 42 (invalid) is not a device dtype")          \
	X_(variable_dtype_host_only,                                           \
	   var(f, "v", IPU_DTYPE_INT64, 0, NULL, NULL), -EINVAL,               \
	   "variable: 'v': dtype 11 (int64) is not a device dtype")            \
	X_(variable_too_many_dimensions,                                       \
	   var(f, "v", IPU_DTYPE_FLOAT32, 9, SHAPE(1, 1, 1, 1, 1, 1, 1, 1, 1), NULL), \
	   -EINVAL, "variable: 'v': 9 dimensions, at most 8")                  \
	X_(variable_dimension_zero,                                            \
	   var(f, "v", IPU_DTYPE_FLOAT32, 2, SHAPE(3, 0), NULL), -EINVAL,      \
	   "variable: 'v': dimension 1 is 0")                                  \
	X_(variable_without_shape, var(f, "v", IPU_DTYPE_FLOAT32, 2, NULL, NULL), \
	   -EINVAL, "variable: 'v': no shape")                                 \
	X_(variable_size_overflows,                                            \
	   var(f, "v", IPU_DTYPE_FLOAT32, 2, SHAPE(1ull << 32, 1ull << 31), NULL), \
	   -EINVAL, "variable: 'v': size overflows")                           \
	X_(assignments_fewer_than_replicas, assigned(f, A_SHORT, 3), -EINVAL,  \
	   "replica_grouping_from_assignments: 3 group assignments for replication factor 4: give one per replica") \
	X_(assignments_more_than_replicas, assigned(f, A_SHORT, 5), -EINVAL,   \
	   "5 group assignments for replication factor 4")                     \
	X_(assignments_missing, assigned(f, -1, 4), -EINVAL,                   \
	   "0 group assignments for replication factor 4")                     \
	X_(assignments_unequal_groups, assigned(f, A_UNEQUAL, 4), -EINVAL,     \
	   "group 1 has 1 replicas, group 0 has 3: all groups must be the same size") \
	X_(assignments_with_a_gap, assigned(f, A_GAP, 4), -EINVAL,             \
	   "no replica is assigned to group 1: groups must be numbered 0..2 without gaps") \
	X_(assignments_group_too_high, assigned(f, A_HIGH, 4), -EINVAL,        \
	   "replica 1 assigned to group 4, but 4 replicas make at most 4 groups") \
	X_(assignments_in_all_reduce, assigned_all_reduce(f), -EINVAL,         \
	   "all_reduce: 'c': groupings made from assignments (non-constant stride) are supported for variables only") \
	X_(variable_grouping_does_not_divide, var_grouped(f, 1, 3), -EINVAL,   \
	   "variable 'g': replica grouping stride 1, group_size 3: the replication factor 4 is not a multiple of stride * group_size") \
	X_(variable_grouping_stride_too_wide, var_grouped(f, 4, 2), -EINVAL,   \
	   "replica grouping stride 4, group_size 2")                          \
	X_(variable_grouping_size_zero, var_grouped(f, 1, 0), -EINVAL,         \
	   "replica grouping group_size 0: must be >= 1")                      \
	X_(variable_retrieval_unknown,                                         \
	   var_with_opts(f, (struct ipu_ir_variable_opts){ .retrieval = 3 }, NULL), \
	   -EINVAL, "variable 'v': retrieval mode 3 is neither one_per_group nor all_replicas") \
	X_(variable_mmap_with_data,                                            \
	   var_with_opts(f, (struct ipu_ir_variable_opts){ .mmap_path = "/w" }, two), \
	   -EINVAL, "variable 'v': memory-mapped from '/w', yet data was given too") \
	X_(variable_mmap_empty_path,                                           \
	   var_with_opts(f, (struct ipu_ir_variable_opts){ .mmap_path = "" }, NULL), \
	   -EINVAL, "variable 'v': mmap path empty")                           \
	X_(variable_readonly_without_mmap,                                     \
	   var_with_opts(f, (struct ipu_ir_variable_opts){ .mmap_readonly = true }, NULL), \
	   -EINVAL, "variable 'v': mmap_readonly without mmap_path")           \
	X_(variable_options_too_small, var_opts_too_small(f), -EINVAL,         \
	   "variable 'v': options size 4 is too small")                        \
	X_(variable_options_unknown_bytes, var_opts_unknown_bytes(f), -E2BIG,  \
	   "variable 'v': options carry unknown non-zero bytes")               \
	X_(grouping_stride_zero, grouping(f, 0, 2), -EINVAL,                   \
	   "replica_grouping: replica grouping stride 0: must be >= 1")        \
	X_(grouping_does_not_divide, grouping(f, 3, 1), -EINVAL,               \
	   "replica_grouping: replica grouping stride 3, group_size 1: the replication factor 4") \
	X_(grouping_product_overflows, grouping(f, 1u << 31, 1u << 31), -EINVAL, \
	   "is not a multiple of stride * group_size")                         \
	X_(constant_without_data,                                              \
	   ipu_ir_constant(f->ir, "k", IPU_DTYPE_FLOAT32, 0, NULL, NULL).id,   \
	   -EINVAL, "constant 'k': no data")                                   \
	X_(constant_name_taken,                                                \
	   ipu_ir_constant(f->ir, "c", IPU_DTYPE_FLOAT32, 0, NULL, two).id,    \
	   -EINVAL, "constant: a constant named 'c' exists")                   \
	X_(constant_dtype_host_only,                                           \
	   ipu_ir_constant(f->ir, "k", IPU_DTYPE_FLOAT64, 0, NULL, two).id,    \
	   -EINVAL, "constant: 'k': dtype 10 (float64) is not a device dtype") \
	X_(scalar_dtype_host_only, ipu_ir_scalar(f->ir, IPU_DTYPE_FLOAT64, 1).id, \
	   -EINVAL, "scalar: dtype 10 (float64) is not a device dtype")        \
	X_(stream_name_taken,                                                  \
	   ipu_ir_d2h_stream(f->ir, "x", IPU_DTYPE_FLOAT32, 0, NULL).id,       \
	   -EINVAL, "d2h_stream: a stream named 'x' exists")                   \
	X_(stream_without_name,                                                \
	   ipu_ir_h2d_stream(f->ir, NULL, IPU_DTYPE_FLOAT32, 0, NULL).id,      \
	   -EINVAL, "h2d_stream: a name is required")                          \
	X_(stream_dtype_invalid, ipu_ir_h2d_stream(f->ir, "z", 0, 0, NULL).id, \
	   -EINVAL, "h2d_stream: 'z': dtype 0 (invalid) is not a device dtype") \
	X_(stream_dimension_zero,                                              \
	   ipu_ir_h2d_stream(f->ir, "z", IPU_DTYPE_INT8, 1, SHAPE(0)).id,      \
	   -EINVAL, "h2d_stream: 'z': dimension 0 is 0")                       \
	X_(host_load_from_d2h_stream, load_twice_from(f, f->out), -EINVAL,     \
	   "host_load: stream 'y' is device-to-host")                          \
	X_(host_load_from_failed_stream, load_twice_from(f, (ipu_stream){ -EINVAL }), \
	   -EINVAL, "host_load: the stream is the result of a failed call")    \
	X_(host_load_from_unknown_stream, load_twice_from(f, (ipu_stream){ 9 }), \
	   -EINVAL, "host_load: no such stream in this ir")                    \
	X_(host_store_to_h2d_stream, ipu_ir_host_store(f->ir, f->in, f->c),    \
	   -EINVAL, "host_store: stream 'x' is host-to-device")                \
	X_(host_store_layout_differs, ipu_ir_host_store(f->ir, f->out, f->c),  \
	   -EINVAL, "host_store: 'c' float32 [4] does not match stream 'y' float32 [4, 1]") \
	X_(host_store_failed_tensor,                                           \
	   ipu_ir_host_store(f->ir, f->out, (ipu_tensor){ -ENOMEM }), -EINVAL, \
	   "host_store: input 1 is the result of a failed call (Cannot allocate memory)")

#define DEFINE_CASE(name, call, err, what)        \
	static void test_##name(void **state)     \
	{                                         \
		struct fx *f = *state;            \
		expect_error(f, call, err, what); \
	}
CASES(DEFINE_CASE)

static void test_create_and_settings(void **state)
{
	struct ipu_ir *ir;
	char name[IPU_EXE_MAX_NAME + 2];

	(void)state;
	assert_int_equal(ipu_ir_create("x", NULL), -EINVAL);
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(ipu_ir_create(name, &ir), -EINVAL);
	assert_null(ir);
	assert_int_equal(ipu_ir_create(NULL, &ir), 0);
	assert_string_equal(ipu_ir_errmsg(ir), "");
	assert_int_equal(ipu_ir_num_host_transfers(ir), 1);
	assert_int_equal(ipu_ir_replication_factor(ir), 1);
	assert_int_equal(ipu_ir_instance_replication_factor(ir), 1);
	assert_int_equal(ipu_ir_set_num_host_transfers(ir, 5), 0);
	assert_int_equal(ipu_ir_set_replication_factor(ir, 8), 0);
	assert_int_equal(ipu_ir_num_host_transfers(ir), 5);
	assert_int_equal(ipu_ir_replication_factor(ir), 8);
	/* Follows the replication factor until set. */
	assert_int_equal(ipu_ir_instance_replication_factor(ir), 8);
	assert_int_equal(ipu_ir_set_instance_replication_factor(ir, 2), 0);
	assert_int_equal(ipu_ir_instance_replication_factor(ir), 2);
	assert_int_equal(ipu_ir_set_num_host_transfers(NULL, 1), -EINVAL);
	assert_int_equal(ipu_ir_num_host_transfers(NULL), 0);
	assert_int_equal(ipu_ir_replication_factor(NULL), 0);
	assert_int_equal(ipu_ir_instance_replication_factor(NULL), 0);
	ipu_ir_destroy(ir);
	ipu_ir_destroy(NULL);
}

static void test_grouping_follows_popxl(void **state)
{
	struct fx *f = *state;
	struct ipu_replica_grouping g;

	/* Default group size: every stride-th replica. */
	assert_int_equal(ipu_ir_replica_grouping(f->ir, 2, 0, &g), 0);
	assert_int_equal(g.stride, 2);
	assert_int_equal(g.group_size, 2);
	assert_int_equal(ipu_ir_replica_grouping(f->ir, 1, 0, &g), 0);
	assert_int_equal(g.group_size, 4);
	/* A group of one ignores its stride, as PopART normalises it. */
	assert_int_equal(ipu_ir_replica_grouping(f->ir, 4, 1, &g), 0);
	assert_int_equal(g.stride, 1);
	assert_int_equal(g.group_size, 1);
	assert_int_equal(ipu_ir_replica_grouping(f->ir, 1, 2, NULL), -EINVAL);
	assert_int_equal(ipu_ir_replica_grouping(NULL, 1, 2, &g), -EINVAL);
}

static void test_replica_group_layout(void **state)
{
	/* 8 replicas, stride 2, groups of 2: blocks of 4, {0,2} {1,3} {4,6}
	 * {5,7}, as PopART's ReplicaGrouping::getGroupAt(). */
	static const uint32_t want[8] = { 0, 1, 0, 1, 2, 3, 2, 3 };

	(void)state;
	for (uint32_t r = 0; r < 8; r++) {
		uint32_t g = ipu_exe_replica_group(2, 2, r);

		assert_int_equal(g, want[r]);
		assert_int_equal(ipu_exe_group_replica(2, 2, g, (r % 4) / 2), r);
	}
	for (uint32_t r = 0; r < 8; r++) {
		assert_int_equal(ipu_exe_replica_group(4, 1, r), r / 4);
		assert_int_equal(ipu_exe_replica_group(4, 2, r), r % 2);
		assert_int_equal(ipu_exe_replica_group(1, 1, r), r);
	}
	assert_int_equal(ipu_exe_num_groups(8, 2), 4);
}

static void test_variable_variants(void **state)
{
	struct fx *f = *state;
	struct ipu_replica_grouping g;
	static const int32_t per_group[4] = { 1, 2, 3, 4 };
	ipu_tensor v;

	assert_int_equal(ipu_ir_replica_grouping(f->ir, 1, 2, &g), 0);
	IPU_OPTS(ipu_ir_variable_opts, grouped, .grouping = &g,
		 .retrieval = IPU_EXE_RETRIEVE_ALL_REPLICAS);
	/* Two groups: two values. */
	v = ipu_ir_variable(f->ir, "grouped", IPU_DTYPE_INT32, 1, SHAPE(2),
			    per_group, &grouped);
	assert_int_equal(ipu_tensor_error(v), 0);
	IPU_OPTS(ipu_ir_variable_opts, mapped, .mmap_path = "tmp/w.bin",
		 .mmap_readonly = true);
	v = ipu_ir_variable(f->ir, "mapped", IPU_DTYPE_FLOAT16, 2, SHAPE(2, 2),
			    NULL, &mapped);
	assert_int_equal(ipu_tensor_error(v), 0);
	/* An older caller's smaller struct: the rest defaults. */
	struct ipu_ir_variable_opts old = {
		.sz = offsetof(struct ipu_ir_variable_opts, retrieval)
	};
	v = ipu_ir_variable(f->ir, "old", IPU_DTYPE_FLOAT32, 0, NULL, NULL, &old);
	assert_int_equal(ipu_tensor_error(v), 0);
	/* A newer caller's bigger struct with a zero tail is fine. */
	struct {
		struct ipu_ir_variable_opts o;
		uint64_t newer;
	} big = { .o = { .sz = sizeof(big) } };
	v = ipu_ir_variable(f->ir, "new", IPU_DTYPE_FLOAT32, 0, NULL, NULL,
			    &big.o);
	assert_int_equal(ipu_tensor_error(v), 0);
}

static void test_scalar_constants(void **state)
{
	struct fx *f = *state;
	ipu_tensor s = ipu_ir_scalar(f->ir, IPU_DTYPE_INT8, -3.7);
	ipu_tensor t = ipu_ir_scalar(f->ir, IPU_DTYPE_FLOAT16, 0.5);

	assert_int_equal(ipu_tensor_error(s), 0);
	assert_int_equal(ipu_ir_tensor_shape(f->ir, s, NULL), 0);
	assert_int_equal(ipu_ir_tensor_dtype(f->ir, t), IPU_DTYPE_FLOAT16);
	assert_non_null(strstr(ipu_ir_tensor_name(f->ir, t), "const."));
	assert_int_equal(ipu_ir_scalar(NULL, IPU_DTYPE_INT8, 0).id, -EINVAL);
}

static void test_host_load_names(void **state)
{
	struct fx *f = *state;
	ipu_tensor a = ipu_ir_host_load(f->ir, f->in, NULL);
	ipu_tensor b = ipu_ir_host_load(f->ir, f->in, "second");
	uint64_t shape[IPU_EXE_MAX_DIMS];

	assert_string_equal(ipu_ir_tensor_name(f->ir, a), "x");
	assert_string_equal(ipu_ir_tensor_name(f->ir, b), "second");
	assert_int_equal(ipu_ir_tensor_shape(f->ir, b, shape), 1);
	assert_int_equal(shape[0], 4);
	assert_int_equal(ipu_ir_host_store(f->ir, f->out,
		ipu_ir_reshape(f->ir, ipu_ir_add(f->ir, a, b),
			       (int64_t[]){ 4, 1 }, 2)), 0);
	assert_int_equal(ipu_ir_host_store(NULL, f->out, a), -EINVAL);
	assert_int_equal(ipu_ir_host_load(NULL, f->in, NULL).id, -EINVAL);
	assert_int_equal(ipu_ir_h2d_stream(NULL, "q", IPU_DTYPE_INT8, 0, NULL).id,
			 -EINVAL);
	assert_int_equal(ipu_stream_error((ipu_stream){ 0 }), -EINVAL);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, ir_fixture_teardown),
#define TABLE_CASE(name, call, err, what) T(test_##name)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASES(TABLE_CASE)
		T(test_create_and_settings)
		T(test_grouping_follows_popxl)
		T(test_grouping_from_assignments)
		T(test_replica_group_layout)
		T(test_variable_variants)
		T(test_scalar_constants)
		T(test_host_load_names)
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
