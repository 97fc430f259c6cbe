// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_exe_validate.c - ipu_exe_validate() rejects each kind of
 * inconsistency, one test per check: a valid hand-built executable with a
 * single field broken, so that no earlier check can hide the one under
 * test, and the message names what is wrong.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ipu/exe.h"

/*
 * The fixture, 2 replicas, 2 host transfers:
 *	0 host_load  x <- in
 *	1 loop 2 times, 2 instructions:
 *	2   add      y = x + w
 *	3   scaled_add_inplace w = 1 * w + -0.1 * y
 *	4 matmul     z = y @ c
 *	5 host_store z -> out
 *	6 all_reduce r = sum(z) over replica groups of 2, stride 1
 */
enum { W, C, X, Y, Z, R, NT };

struct fx {
	struct ipu_exe e;
	struct ipu_exe_tensor t[NT];
	struct ipu_exe_stream s[2];
	struct ipu_exe_instr in[7];
	uint32_t ops[12];
	int64_t par[7];
	uint8_t data[32];
	char msg[512];
};

static struct ipu_exe_tensor f32_22(const char *name, uint32_t kind,
				    uint64_t offset)
{
	return (struct ipu_exe_tensor){
		.name = name, .kind = kind, .dtype = IPU_DTYPE_FLOAT32,
		.ndim = 2, .shape = { 2, 2 }, .nelems = 4, .nbytes = 16,
		.offset = offset,
	};
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	static const uint32_t ops[12] = { X, Y, X, W, W, Y, Z, Y, C, Z, R, Z };
	static const int64_t par[7] = { 0, 2, 2, 1, IPU_EXE_REDUCE_SUM, 2, 1 };

	if (!f)
		return -1;
	f->t[W] = f32_22("w", IPU_EXE_TENSOR_VARIABLE, 0);
	f->t[W].group_size = 2;
	f->t[W].group_stride = 1;
	f->t[W].data_size = 16;
	f->t[C] = f32_22("c", IPU_EXE_TENSOR_CONSTANT, 64);
	f->t[C].data_offset = 16;
	f->t[C].data_size = 16;
	f->t[X] = f32_22("x", IPU_EXE_TENSOR_INTERMEDIATE, 192);
	f->t[Y] = f32_22("y", IPU_EXE_TENSOR_INTERMEDIATE, 256);
	f->t[Z] = f32_22("z", IPU_EXE_TENSOR_INTERMEDIATE, 320);
	f->t[R] = f32_22("r", IPU_EXE_TENSOR_INTERMEDIATE, 384);
	f->s[0] = (struct ipu_exe_stream){ .name = "in", .dtype = IPU_DTYPE_FLOAT32,
		.direction = IPU_EXE_STREAM_H2D, .ndim = 2, .shape = { 2, 2 },
		.nbytes = 16, .slots_offset = 128 };
	f->s[1] = f->s[0];
	f->s[1].name = "out";
	f->s[1].direction = IPU_EXE_STREAM_D2H;
	f->s[1].slots_offset = 160;
	f->in[0] = (struct ipu_exe_instr){ IPU_OP_HOST_LOAD, 1, 0, 1, 0, { 0 } };
	f->in[1] = (struct ipu_exe_instr){ IPU_OP_LOOP, 0, 1, 2, 1, { 0 } };
	f->in[2] = (struct ipu_exe_instr){ IPU_OP_ADD, 3, 1, 0, 0, { 0 } };
	f->in[3] = (struct ipu_exe_instr){ IPU_OP_SCALED_ADD_INPLACE, 2, 4, 0, 0,
					   { 1.0f, -0.1f } };
	f->in[4] = (struct ipu_exe_instr){ IPU_OP_MATMUL, 3, 6, 0, 0, { 0 } };
	f->in[5] = (struct ipu_exe_instr){ IPU_OP_HOST_STORE, 1, 9, 1, 3, { 0 } };
	f->in[6] = (struct ipu_exe_instr){ IPU_OP_ALL_REDUCE, 2, 10, 3, 4, { 0 } };
	memcpy(f->ops, ops, sizeof(ops));
	memcpy(f->par, par, sizeof(par));
	f->e = (struct ipu_exe){
		.name = "fixture", .num_host_transfers = 2,
		.replication_factor = 2, .instance_replication_factor = 2,
		.ipus_per_replica = 1, .arena_size = 448,
		.tensors = f->t, .num_tensors = NT, .streams = f->s,
		.num_streams = 2, .instrs = f->in, .num_instrs = 7,
		.operands = f->ops, .num_operands = 12, .params = f->par,
		.num_params = 7, .data = f->data, .data_size = 32,
	};
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static void test_fixture_is_valid(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ipu_exe_validate(&f->e, f->msg, sizeof(f->msg)), 0);
	assert_string_equal(f->msg, "");
}

static void test_null_executable(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ipu_exe_validate(NULL, f->msg, sizeof(f->msg)),
			 -EINVAL);
	assert_int_equal(ipu_exe_validate(NULL, NULL, 0), -EINVAL);
}

static void test_message_truncates_to_buffer(void **state)
{
	struct fx *f = *state;
	char small[8];

	f->t[X].offset = 4096;
	memset(small, 'x', sizeof(small));
	assert_int_equal(ipu_exe_validate(&f->e, small, sizeof(small)),
			 -EINVAL);
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

static void expect_invalid(struct fx *f, const char *what)
{
	int ret = ipu_exe_validate(&f->e, f->msg, sizeof(f->msg));

	if (ret != -EINVAL || !strstr(f->msg, what))
		fail_msg("validate returned %d, message \"%s\", expected \"%s\"",
			 ret, f->msg, what);
}

/*
 * (test name, the one change, a part of the message). Each becomes
 * test_<name>; the list drives both the functions and the table.
 */
#define CASES(X_)                                                             \
	X_(program_name_missing, f->e.name = NULL, "program name")            \
	X_(host_transfers_zero, f->e.num_host_transfers = 0,                  \
	   "num_host_transfers is 0")                                         \
	X_(replication_factor_zero, f->e.replication_factor = 0,              \
	   "replication_factor is 0")                                         \
	X_(instance_replication_factor_must_divide,                           \
	   f->e.instance_replication_factor = 4,                              \
	   "instance_replication_factor 4 does not divide replication_factor 2") \
	X_(ipus_per_replica_zero, f->e.ipus_per_replica = 0,                  \
	   "ipus_per_replica is 0")                                           \
	X_(too_many_ipus, f->e.ipus_per_replica = 1u << 31,                   \
	   "IPUs per replica times 2 replicas")                               \
	X_(table_without_storage, f->e.operands = NULL, "no storage")         \
	X_(tensor_without_name, f->t[Y].name = NULL, "tensor 3: no name")     \
	X_(tensor_name_too_long, f->t[Y].name = long_name(), "longer than")   \
	X_(variable_name_empty, f->t[W].name = "", "tensor 0: empty name")    \
	X_(tensor_kind_unknown, f->t[Y].kind = 3, "tensor 3 'y': kind 3")     \
	X_(tensor_dtype_invalid, f->t[Y].dtype = 0,                           \
	   "tensor 3 'y': dtype 0 is not a device dtype")                     \
	X_(tensor_dtype_host_only, f->t[Y].dtype = IPU_DTYPE_FLOAT64,         \
	   "tensor 3 'y': dtype 10 is not a device dtype")                    \
	X_(tensor_flags_unknown, f->t[W].flags = 8, "unknown flags 0x8")      \
	X_(assigned_without_assignment, assigned(f, 2, NULL),                 \
	   "variable 0 'w': GROUP_ASSIGNED without a group assignment")      \
	X_(assignment_without_flag, f->t[W].group_assignment = a_00,          \
	   "variable 0 'w': a group assignment without the GROUP_ASSIGNED flag") \
	X_(constant_with_assignment, f->t[C].group_assignment = a_00,         \
	   "tensor 1 'c': only variables have a group assignment")           \
	X_(assigned_with_stride, (assigned(f, 2, a_00), f->t[W].group_stride = 1), \
	   "variable 0 'w': assigned grouping with stride 1, not 0")         \
	X_(assigned_size_not_dividing, assigned(f, 3, a_00),                  \
	   "variable 0 'w': assigned grouping group_size 3 does not divide replication factor 2") \
	X_(assigned_size_zero, assigned(f, 0, a_00),                          \
	   "assigned grouping group_size 0 does not divide")                 \
	X_(assigned_group_out_of_range, assigned(f, 2, a_01),                 \
	   "variable 0 'w': replica 1 assigned to group 1, but there are 1 groups") \
	X_(assigned_group_too_big, assigned(f, 1, a_11),                      \
	   "variable 0 'w': group 1 has more than group_size 1 replicas")     \
	X_(constant_memory_mapped, f->t[C].flags = IPU_EXE_TENSOR_MMAP,       \
	   "only variables may be memory-mapped")                             \
	X_(readonly_without_mmap, f->t[W].flags = IPU_EXE_TENSOR_MMAP_RDONLY, \
	   "read-only mapping flag without the mmap flag")                    \
	X_(tensor_too_many_dims, f->t[Y].ndim = 9, "9 dimensions, at most 8") \
	X_(tensor_dimension_zero, f->t[Y].shape[1] = 0, "dimension 1 is 0")   \
	X_(tensor_unused_dimension_set, f->t[Y].shape[5] = 3,                 \
	   "unused dimension 5 is 3")                                         \
	X_(tensor_shape_overflows,                                            \
	   (f->t[Y].shape[0] = 1ull << 40, f->t[Y].shape[1] = 1ull << 40),    \
	   "size overflows 64 bits")                                          \
	X_(tensor_nelems_wrong, f->t[Y].nelems = 5, "nelems 5 and nbytes 16") \
	X_(tensor_nbytes_wrong, f->t[Y].nbytes = 32, "but its shape makes 4 and 16") \
	X_(tensor_offset_misaligned, f->t[Y].offset = 258,                    \
	   "offset 258 is not aligned to its 4-byte elements")                \
	X_(tensor_past_arena, f->t[R].offset = 440,                           \
	   "tensor 5 'r': offset 440 + 16 bytes passes arena size 448")       \
	X_(tensor_offset_overflows, f->t[R].offset = UINT64_MAX - 3,          \
	   "passes arena size")                                               \
	X_(intermediate_with_data, f->t[Y].data_size = 16,                    \
	   "an intermediate has no initial data")                             \
	X_(variable_grouping_zero, f->t[W].group_size = 0,                    \
	   "replica grouping stride 1, group_size 0")                         \
	X_(variable_grouping_not_dividing, f->t[W].group_stride = 2,          \
	   "replica grouping stride 2, group_size 2 does not fit replication factor 2") \
	X_(variable_retrieval_unknown, f->t[W].retrieval = 2,                 \
	   "retrieval mode 2 unknown")                                        \
	X_(variable_data_size_wrong, f->t[W].group_size = 1,                  \
	   "variable 0 'w': 16 bytes of initial data, expected 32")           \
	X_(variable_data_past_data, f->t[W].data_offset = 24,                 \
	   "data at 24 + 16 bytes passes the data size 32")                   \
	X_(variable_data_offset_overflows, f->t[W].data_offset = UINT64_MAX,  \
	   "passes the data size")                                            \
	X_(mmap_variable_without_path, f->t[W].flags = IPU_EXE_TENSOR_MMAP,   \
	   "memory-mapped without a file path")                               \
	X_(mmap_variable_with_data,                                           \
	   (f->t[W].flags = IPU_EXE_TENSOR_MMAP, f->t[W].mmap_path = "w"),    \
	   "memory-mapped, yet has 16 bytes of data")                         \
	X_(mmap_absolute_path,                                                \
	   (f->t[W].flags = IPU_EXE_TENSOR_MMAP, f->t[W].mmap_path = "/w"),   \
	   "memory-mapped from '/w': an absolute path")                       \
	X_(mmap_dotdot_path,                                                  \
	   (f->t[W].flags = IPU_EXE_TENSOR_MMAP, f->t[W].mmap_path = "..")    \
	   , "memory-mapped from '..': a \"..\" component")                    \
	X_(mmap_inner_dotdot_path,                                            \
	   (f->t[W].flags = IPU_EXE_TENSOR_MMAP, f->t[W].mmap_path = "a/../../w"), \
	   "memory-mapped from 'a/../../w': a \"..\" component")               \
	X_(path_without_mmap_flag, f->t[W].mmap_path = "/w",                  \
	   "a file path without the mmap flag")                               \
	X_(constant_data_size_wrong, f->t[C].data_size = 8,                   \
	   "constant 1 'c': 8 bytes of initial data, expected 16")            \
	X_(stream_without_name, f->s[1].name = NULL, "stream 1: no name")     \
	X_(stream_direction_unknown, f->s[1].direction = 2,                   \
	   "stream 1 'out': direction 2 unknown")                             \
	X_(stream_dtype_invalid, f->s[1].dtype = IPU_DTYPE_INT64,             \
	   "stream 1 'out': dtype 11 is not a device dtype")                  \
	X_(stream_slot_size_wrong, f->s[1].nbytes = 8,                        \
	   "slot of 8 bytes, but its shape makes 16")                         \
	X_(stream_slots_past_arena, f->s[1].slots_offset = 432,               \
	   "stream 1 'out': offset 432 + 32 bytes passes arena size 448")     \
	X_(stream_slots_overflow,                                             \
	   (f->e.num_host_transfers = 0xffffffff, f->s[0].shape[0] = 1ull << 40, \
	    f->s[0].nbytes = 1ull << 43),                                     \
	   "slots overflow 64 bits")                                          \
	X_(duplicate_stream_names, f->s[1].name = "in",                       \
	   "streams 0 and 1 are both named 'in'")                             \
	X_(duplicate_variable_names, f->t[C].name = "w",                      \
	   "tensors 0 and 1 are both named 'w'")                              \
	X_(variables_overlap, f->t[C].offset = 8,                             \
	   "constant 1 'c' at 8 overlaps variable 0 'w' at 0 + 16 bytes")     \
	X_(intermediate_overlaps_variable, f->t[Y].offset = 64,               \
	   "tensor 3 'y' at 64 + 16 bytes overlaps constant 1 'c' at 64")     \
	X_(intermediate_overlaps_slots, f->t[Y].offset = 144,                 \
	   "overlaps slots of stream 0 'in' at 128")                          \
	X_(opcode_unknown, f->in[4].op = 99, "instr 4: opcode 99 unknown")    \
	X_(opcode_zero, f->in[4].op = IPU_OP_INVALID, "instr 4: opcode 0 unknown") \
	X_(operands_past_table, f->in[6].first_operand = 11,                  \
	   "instr 6 (all_reduce): operands 11 + 2 pass the operand table")    \
	X_(operand_range_overflows, f->in[6].first_operand = UINT32_MAX,      \
	   "pass the operand table")                                          \
	X_(params_past_table, f->in[6].first_param = 5,                       \
	   "instr 6 (all_reduce): params 5 + 3 pass the param table")         \
	X_(operand_index_past_tensors, f->ops[11] = NT,                       \
	   "instr 6 (all_reduce): operand 1 is tensor 6, there are 6 tensors") \
	X_(fparams_on_other_op, f->in[4].fparams[0] = 1.0f,                   \
	   "instr 4 (matmul): float parameters must be 0")                    \
	X_(fparams_negative_zero, f->in[4].fparams[1] = -0.0f,                \
	   "float parameters must be 0")                                      \
	X_(operand_count_wrong, f->in[4].num_operands = 2,                    \
	   "instr 4 (matmul): 2 operands, it takes 3")                        \
	X_(loop_param_count_wrong, f->in[1].num_params = 1,                   \
	   "instr 1 (loop): 1 parameters, it takes 2")                        \
	X_(loop_count_negative, f->par[1] = -1,                               \
	   "instr 1 (loop): count -1 is negative")                            \
	X_(loop_body_past_end, f->par[2] = 6,                                 \
	   "instr 1 (loop): body of 6 instructions passes the end")           \
	X_(loop_body_negative, f->par[2] = -1, "body of -1 instructions")     \
	X_(host_load_stream_out_of_range, f->par[0] = 2,                      \
	   "instr 0 (host_load): stream index 2, there are 2 streams")        \
	X_(host_load_stream_negative, f->par[0] = -1, "stream index -1")      \
	X_(host_load_from_d2h_stream, f->par[0] = 1,                          \
	   "instr 0 (host_load): stream 1 'out' is device-to-host")           \
	X_(host_store_to_h2d_stream, f->par[3] = 0,                           \
	   "instr 5 (host_store): stream 0 'in' is host-to-device")           \
	X_(host_load_layout_mismatch, f->s[0].dtype = IPU_DTYPE_INT32,        \
	   "tensor 2 'x' float32 [2, 2] does not match stream 'in' int32 [2, 2]") \
	X_(op_writes_variable, f->ops[0] = W,                                 \
	   "instr 0 (host_load): writes variable 0 'w'")                      \
	X_(op_writes_constant, f->ops[6] = C,                                 \
	   "instr 4 (matmul): writes constant 1 'c'")                         \
	X_(inplace_on_intermediate, f->ops[4] = X,                            \
	   "instr 3 (scaled_add_inplace): updates tensor 2 'x' in place")     \
	X_(output_is_input, f->ops[8] = Z,                                    \
	   "instr 4 (matmul): output 4 'z' overlaps input 4 'z'")             \
	X_(output_overlaps_input, f->t[Z].offset = 264,                       \
	   "instr 4 (matmul): output 4 'z' overlaps input 3 'y'")             \
	X_(output_shape_wrong, (f->t[R].shape[0] = 4, f->t[R].nelems = 8,     \
				f->t[R].nbytes = 32),                         \
	   "instr 6 (all_reduce): output 5 'r' is float32 [4, 2], the inputs make float32 [2, 2]") \
	X_(output_dtype_wrong, (f->t[R].dtype = IPU_DTYPE_INT32),             \
	   "output 5 'r' is int32 [2, 2], the inputs make float32 [2, 2]")    \
	X_(op_rule_broken, f->t[C].dtype = IPU_DTYPE_INT32,                   \
	   "instr 4 (matmul): 'y' is float32 and 'c' is int32: dtypes differ") \
	X_(all_reduce_grouping_invalid, f->par[6] = 2,                        \
	   "instr 6 (all_reduce): replica grouping stride 2, group_size 2")   \
	X_(all_reduce_mode_unknown, f->par[4] = 2,                            \
	   "instr 6 (all_reduce): mode 2 is neither sum (0) nor mean (1)")    \
	X_(all_reduce_params_missing, f->in[6].num_params = 2,                \
	   "instr 6 (all_reduce): 2 parameters, all_reduce takes 3 here")

/* Group assignments for the 2 replicas (S20's non-constant strides). */
static const uint32_t a_00[2] = { 0, 0 }, a_01[2] = { 0, 1 },
		      a_11[2] = { 1, 1 };

/* Make w's grouping an assignment @a with groups of @size. */
static void assigned(struct fx *f, uint32_t size, const uint32_t *a)
{
	f->t[W].flags = IPU_EXE_TENSOR_GROUP_ASSIGNED;
	f->t[W].group_stride = 0;
	f->t[W].group_size = size;
	f->t[W].group_assignment = a;
}

static const char *long_name(void)
{
	static char name[IPU_EXE_MAX_NAME + 2];

	memset(name, 'n', sizeof(name) - 1);
	return name;
}

#define DEFINE_CASE(name, change, what)                  \
	static void test_##name(void **state)            \
	{                                                \
		struct fx *f = *state;                   \
		change;                                  \
		expect_invalid(f, what);                 \
	}
CASES(DEFINE_CASE)

/* Loops: crossing and depth need more than one field changed. */
/* A well-formed assignment grouping validates. */
static void test_assigned_grouping_is_valid(void **state)
{
	struct fx *f = *state;

	assigned(f, 2, a_00);
	assert_int_equal(ipu_exe_validate(&f->e, f->msg, sizeof(f->msg)), 0);
	assert_int_equal(ipu_exe_tensor_group(&f->t[W], 1), 0);
	assert_int_equal(ipu_exe_tensor_group_replica(&f->t[W], 2, 0, 1), 1);
}

static void test_loop_crosses_parent_end(void **state)
{
	struct fx *f = *state;

	/* Instr 2 becomes a loop whose body (3..4) passes the outer body
	 * (2..3). */
	f->in[2] = (struct ipu_exe_instr){ IPU_OP_LOOP, 0, 0, 2, 1, { 0 } };
	f->par[1] = 1;
	f->par[2] = 2;
	expect_invalid(f, "instr 2 (loop): body 3..4 passes the end of the loop at instr 1");
}

static void test_loops_nest_too_deep(void **state)
{
	struct fx *f = *state;
	struct ipu_exe_instr in[IPU_EXE_MAX_LOOP_DEPTH + 2];
	int64_t par[2 * (IPU_EXE_MAX_LOOP_DEPTH + 1)];

	for (int i = 0; i <= IPU_EXE_MAX_LOOP_DEPTH; i++) {
		in[i] = (struct ipu_exe_instr){ IPU_OP_LOOP, 0, 0, 2,
						(uint32_t)(2 * i), { 0 } };
		par[2 * i] = 1;
		par[2 * i + 1] = IPU_EXE_MAX_LOOP_DEPTH + 1 - i;
	}
	in[IPU_EXE_MAX_LOOP_DEPTH + 1] = f->in[4];
	f->e.instrs = in;
	f->e.num_instrs = IPU_EXE_MAX_LOOP_DEPTH + 2;
	f->e.params = par;
	f->e.num_params = 2 * (IPU_EXE_MAX_LOOP_DEPTH + 1);
	expect_invalid(f, "loops nest deeper than 32");
}

static void test_loops_nest_to_the_limit(void **state)
{
	struct fx *f = *state;
	struct ipu_exe_instr in[IPU_EXE_MAX_LOOP_DEPTH + 1];
	int64_t par[2 * IPU_EXE_MAX_LOOP_DEPTH];

	for (int i = 0; i < IPU_EXE_MAX_LOOP_DEPTH; i++) {
		in[i] = (struct ipu_exe_instr){ IPU_OP_LOOP, 0, 0, 2,
						(uint32_t)(2 * i), { 0 } };
		par[2 * i] = 0;
		par[2 * i + 1] = IPU_EXE_MAX_LOOP_DEPTH - i;
	}
	in[IPU_EXE_MAX_LOOP_DEPTH] = f->in[4];
	f->e.instrs = in;
	f->e.num_instrs = IPU_EXE_MAX_LOOP_DEPTH + 1;
	f->e.params = par;
	f->e.num_params = 2 * IPU_EXE_MAX_LOOP_DEPTH;
	assert_int_equal(ipu_exe_validate(&f->e, f->msg, sizeof(f->msg)), 0);
}

/*
 * Shared memory (exe.h): with one host transfer each stream has one slot,
 * and a tensor may sit on it in the three forms listed there, no other.
 * The fixture with num_host_transfers 1: x is loaded (instr 0), z stored
 * (instr 5); slots of "in" at 128, of "out" at 160, 16 bytes each.
 */
static int setup_d1(void **state)
{
	struct fx *f;

	if (setup(state))
		return -1;
	f = *state;
	f->e.num_host_transfers = 1;
	return 0;
}

#define SLOT_IN		128
#define SLOT_OUT	160

/* (test name, the changes, a part of the message or NULL for valid) */
#define SHARED_CASES(X_)                                                     \
	X_(load_in_place, f->t[X].offset = SLOT_IN, NULL)                     \
	X_(store_in_place, f->t[Z].offset = SLOT_OUT, NULL)                   \
	X_(load_and_store_in_place,                                           \
	   (f->t[X].offset = SLOT_IN, f->t[Z].offset = SLOT_OUT), NULL)       \
	X_(forwarded_slots,                                                   \
	   (f->t[X].offset = SLOT_IN, f->ops[9] = X,                          \
	    f->s[1].slots_offset = SLOT_IN), NULL)                            \
	X_(load_in_place_needs_one_slot,                                      \
	   (f->e.num_host_transfers = 2, f->t[X].offset = SLOT_IN),           \
	   "tensor 2 'x' at 128 + 16 bytes overlaps slots of stream 0 'in' at 128") \
	X_(forwarding_needs_one_slot,                                         \
	   (f->e.num_host_transfers = 2, f->ops[9] = X,                       \
	    f->s[1].slots_offset = SLOT_IN),                                  \
	   "slots of stream 1 'out' are those of stream 0 'in', but its host_stores do not all store the tensor loaded in place there") \
	X_(tensor_on_slot_not_loaded, f->t[Y].offset = SLOT_IN,               \
	   "tensor 3 'y' sits on the slots of stream 0 'in', but is not written by one host_load of that stream alone") \
	X_(tensor_on_slot_loaded_twice,                                       \
	   (f->t[X].offset = SLOT_IN, f->ops[10] = X, f->ops[11] = X),        \
	   "tensor 2 'x' sits on the slots of stream 0 'in', but is not written by one host_load") \
	X_(two_tensors_on_one_slot,                                           \
	   (f->t[X].offset = SLOT_IN, f->t[Y].offset = SLOT_IN,               \
	    f->in[2] = (struct ipu_exe_instr){ IPU_OP_HOST_LOAD, 1, 1, 1, 0, { 0 } }), \
	   "tensors 2 'x' and 3 'y' both sit on the slots of stream 0 'in'")  \
	X_(tensor_partly_on_slot, f->t[X].offset = SLOT_IN + 8,               \
	   "tensor 2 'x' at 136 + 16 bytes overlaps slots of stream 0 'in' at 128") \
	X_(loaded_tensor_on_other_slot, f->t[X].offset = SLOT_OUT,            \
	   "tensor 2 'x' sits on the slots of stream 1 'out', but the stream's host_stores do not all store it") \
	X_(stored_tensor_written_after_store,                                 \
	   (f->t[R].offset = SLOT_OUT, f->ops[9] = R),                        \
	   "tensor 5 'r' sits on the slots of stream 1 'out', but is written (instr 6) after it is stored (instr 5)") \
	X_(stored_tensor_written_twice,                                       \
	   (f->t[Z].offset = SLOT_OUT, f->ops[10] = Z, f->ops[11] = Z),       \
	   "tensor 4 'z' sits on the slots of stream 1 'out', but is written by more than one instruction") \
	X_(stored_tensor_written_by_none,                                     \
	   (f->t[R].offset = SLOT_OUT, f->e.num_instrs = 6),                  \
	   "tensor 5 'r' sits on the slots of stream 1 'out', but is written by no instruction") \
	X_(forwarded_without_tensor_in_place,                                 \
	   (f->ops[9] = X, f->s[1].slots_offset = SLOT_IN),                   \
	   "slots of stream 1 'out' are those of stream 0 'in', but its host_stores do not all store the tensor loaded in place there") \
	X_(forwarded_stream_stores_another_tensor,                            \
	   (f->t[X].offset = SLOT_IN, f->s[1].slots_offset = SLOT_IN),        \
	   "slots of stream 1 'out' are those of stream 0 'in', but its host_stores do not all store") \
	X_(slots_partly_shared,                                               \
	   (f->t[X].offset = SLOT_IN, f->ops[9] = X,                          \
	    f->s[1].slots_offset = SLOT_IN + 8),                              \
	   "slots of stream 1 'out' at 136 overlaps slots of stream 0 'in' at 128 + 16 bytes") \
	X_(slots_on_a_variable, f->s[1].slots_offset = 0,                     \
	   "slots of stream 1 'out' at 0 overlaps variable 0 'w' at 0 + 16 bytes") \
	X_(two_h2d_streams_share_slots,                                       \
	   (f->s[1].direction = IPU_EXE_STREAM_H2D, f->s[1].slots_offset = SLOT_IN, \
	    f->in[5].op = IPU_OP_HOST_LOAD, f->ops[9] = R),                   \
	   "slots of stream 1 'out' at 128 overlaps slots of stream 0 'in' at 128 + 16 bytes")

#define DEFINE_SHARED_CASE(name, change, what)                      \
	static void test_shared_##name(void **state)                \
	{                                                           \
		struct fx *f = *state;                              \
		const char *want = what;                            \
		change;                                             \
		if (want)                                           \
			expect_invalid(f, want);                    \
		else                                                \
			assert_int_equal(ipu_exe_validate(&f->e, f->msg,   \
							  sizeof(f->msg)), 0); \
	}
SHARED_CASES(DEFINE_SHARED_CASE)

static void test_all_reduce_in_place_is_allowed(void **state)
{
	struct fx *f = *state;

	/* r = all_reduce(r) after r exists: out may be x. */
	f->ops[11] = R;
	assert_int_equal(ipu_exe_validate(&f->e, f->msg, sizeof(f->msg)), 0);
}

static void test_scaled_add_of_itself_is_allowed(void **state)
{
	struct fx *f = *state;

	f->ops[5] = W;
	assert_int_equal(ipu_exe_validate(&f->e, f->msg, sizeof(f->msg)), 0);
}

#define TABLE_CASE(name, change, what) \
	cmocka_unit_test_setup_teardown(test_##name, setup, teardown),
#define SHARED_TABLE_CASE(name, change, what) \
	cmocka_unit_test_setup_teardown(test_shared_##name, setup_d1, teardown),

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fixture_is_valid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_executable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_truncates_to_buffer, setup, teardown),
		CASES(TABLE_CASE)
		SHARED_CASES(SHARED_TABLE_CASE)
		cmocka_unit_test_setup_teardown(test_assigned_grouping_is_valid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_crosses_parent_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loops_nest_too_deep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loops_nest_to_the_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_reduce_in_place_is_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scaled_add_of_itself_is_allowed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
