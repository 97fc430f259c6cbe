// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_queue_submit.c - ipu_queue_create(), ipu_queue_submit() and
 * ipu_queue_submit_and_wait() refusing bad input: one test per check, each a batch of a valid
 * transfer followed by one otherwise valid command with one thing wrong.
 * A refused batch runs nothing (the transfer before the bad command never
 * writes) and leaves nothing in flight. Through the public API on the
 * model (a device of another backend: test_queue_backends.c).
 */
#include "model_helpers.h"

struct fixture {
	struct ipu_device *dev, *dev1;
	struct ipu_bo *exe, *arena, *arena1, *data;
	uint64_t exe_size;
	struct ipu_queue *q;
	struct eb *prog;
	uint8_t pattern[64];
	struct ipu_cmd cmds[4];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->dev = mh_open(0, true);
	f->dev1 = mh_open(1, true);
	f->prog = mh_relu_program(2, 4);
	f->exe = mh_exe_bo(f->dev, &f->prog->exe, &f->exe_size);
	f->arena = mh_bo(f->dev, 2 * 4096);
	f->arena1 = mh_bo(f->dev1, 4096);
	f->data = mh_bo(f->dev, 4096);
	f->q = mh_queue(f->dev, 8);
	memset(f->pattern, 0xee, sizeof(f->pattern));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ipu_queue_destroy(f->q);
	ipu_device_close(f->dev);
	ipu_device_close(f->dev1);
	eb_free(f->prog);
	free(f);
	return 0;
}

/* A valid launch of replica 0 of 2 in group 7. */
static struct ipu_launch_desc launch(struct fixture *f)
{
	struct ipu_launch_desc l = {
		.exe_bo = f->exe,
		.exe_size = f->exe_size,
		.arena_bo = f->arena,
		.replica = 0,
		.num_replicas = 2,
		.group = 7,
	};

	return l;
}

/* cmds[0]: a valid transfer that writes the pattern into f->data. */
static void first_cmd(struct fixture *f)
{
	struct ipu_xfer_desc x = mh_xfer(f->data, 0, f->pattern,
					 sizeof(f->pattern),
					 IPU_XFER_DIR_TO_DEVICE);

	ipu_cmd_prep_xfer(&f->cmds[0], &x, 100);
}

/* Submit cmds[0..n) expecting @err and @msg_part; check nothing ran. */
static void refused(struct fixture *f, size_t n, int err, const char *msg_part)
{
	struct ipu_completion c;
	uint8_t out[64], zero[64] = { 0 };

	assert_int_equal(ipu_queue_submit(f->q, f->cmds, n), err);
	if (msg_part && !strstr(ipu_errmsg(), msg_part))
		fail_msg("message \"%s\" lacks \"%s\"", ipu_errmsg(), msg_part);
	assert_int_equal(ipu_queue_reap(f->q, &c, 1, 0, 0), 0);
	assert_int_equal(ipu_xfer_from_device(f->data, 0, out, sizeof(out)), 0);
	assert_memory_equal(out, zero, sizeof(out));
}

/* cmds[1] = the launch @l; expect the batch refused with @err. */
static void launch_refused(struct fixture *f, const struct ipu_launch_desc *l,
			   int err, const char *msg_part)
{
	first_cmd(f);
	ipu_cmd_prep_launch(&f->cmds[1], l, 101);
	refused(f, 2, err, msg_part);
}

static void test_valid_batch_is_accepted(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);
	struct ipu_completion c[3];
	uint8_t out[64];

	first_cmd(f);
	/* the other replica is never submitted: the launch waits */
	ipu_cmd_prep_launch(&f->cmds[1], &l, 101);
	assert_int_equal(ipu_queue_submit(f->q, f->cmds, 2), 0);
	mh_reap(f->q, c, 1);
	assert_int_equal(c[0].user_data, 100);
	assert_int_equal(ipu_xfer_from_device(f->data, 0, out, sizeof(out)), 0);
	assert_memory_equal(out, f->pattern, sizeof(out));
}

/* Submitted and waited for in one call, the transfer is then reaped. */
static void test_submit_and_wait_leaves_the_completions_to_reap(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c;
	uint8_t out[64];

	first_cmd(f);
	assert_int_equal(ipu_queue_submit_and_wait(f->q, f->cmds, 1, 1, -1), 0);
	assert_int_equal(ipu_queue_reap(f->q, &c, 1, 1, -1), 1);
	assert_int_equal(c.user_data, 100);
	assert_int_equal(c.result, 0);
	assert_int_equal(ipu_xfer_from_device(f->data, 0, out, sizeof(out)), 0);
	assert_memory_equal(out, f->pattern, sizeof(out));
}

/* Waiting for more than the batch could never end: refused, nothing ran. */
static void test_submit_and_wait_for_more_than_the_batch_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c;

	first_cmd(f);
	assert_int_equal(ipu_queue_submit_and_wait(f->q, f->cmds, 1, 2, -1),
			 -EINVAL);
	if (!strstr(ipu_errmsg(), "2 completions of a batch of 1"))
		fail_msg("message \"%s\"", ipu_errmsg());
	assert_int_equal(ipu_queue_reap(f->q, &c, 1, 0, 0), 0);
	assert_int_equal(ipu_queue_submit_and_wait(NULL, f->cmds, 1, 1, 0),
			 -EINVAL);
	assert_int_equal(ipu_queue_submit_and_wait(f->q, NULL, 1, 1, 0),
			 -EINVAL);
}

static void test_null_arguments_are_einval(void **state)
{
	struct fixture *f = *state;

	first_cmd(f);
	assert_int_equal(ipu_queue_submit(NULL, f->cmds, 1), -EINVAL);
	assert_int_equal(ipu_queue_submit(f->q, NULL, 1), -EINVAL);
}

static void test_empty_batch_is_einval(void **state)
{
	struct fixture *f = *state;

	first_cmd(f);
	refused(f, 0, -EINVAL, "batch of 0");
}

static void test_batch_larger_than_the_queue_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_cmd many[9];
	int i;

	first_cmd(f);
	for (i = 0; i < 9; i++)
		many[i] = f->cmds[0];
	assert_int_equal(ipu_queue_submit(f->q, many, 9), -EINVAL);
	assert_non_null(strstr(ipu_errmsg(), "1 to 8"));
}

static void test_unknown_op_is_einval(void **state)
{
	struct fixture *f = *state;

	first_cmd(f);
	f->cmds[1] = f->cmds[0];
	f->cmds[1].op = 3;
	refused(f, 2, -EINVAL, "command 1: unknown op 3");
}

static void test_unknown_command_flags_are_einval(void **state)
{
	struct fixture *f = *state;

	first_cmd(f);
	f->cmds[1] = f->cmds[0];
	f->cmds[1].flags = 1u << 9;
	refused(f, 2, -EINVAL, "command 1: unknown flags");
}

static void test_bad_transfer_is_einval(void **state)
{
	struct fixture *f = *state;

	first_cmd(f);
	f->cmds[1] = f->cmds[0];
	f->cmds[1].xfer.bo_offset = 4096 - 63;
	refused(f, 2, -EINVAL, "pass the end");
}

static void test_transfer_with_a_dirty_tail_is_e2big(void **state)
{
	struct fixture *f = *state;

	first_cmd(f);
	f->cmds[1] = f->cmds[0];
	f->cmds[1].reserved_[9] = 1;
	refused(f, 2, -E2BIG, "command 1");
}

static void test_launch_without_exe_bo_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.exe_bo = NULL;
	launch_refused(f, &l, -EINVAL, "exe_bo is NULL");
}

static void test_launch_without_arena_bo_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.arena_bo = NULL;
	launch_refused(f, &l, -EINVAL, "arena_bo is NULL");
}

static void test_launch_with_bos_of_two_devices_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.arena_bo = f->arena1;
	launch_refused(f, &l, -EINVAL, "model:1");
}

static void test_launch_of_an_empty_image_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.exe_size = 0;
	launch_refused(f, &l, -EINVAL, "executable of 0 bytes");
}

static void test_launch_of_an_image_past_its_bo_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.exe_size = ipu_bo_size(f->exe) + 1;
	launch_refused(f, &l, -EINVAL, "executable of");
}

static void test_misaligned_arena_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.arena_offset = 16;
	launch_refused(f, &l, -EINVAL, "multiple of 64");
}

static void test_arena_offset_past_the_bo_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.arena_offset = ipu_bo_size(f->arena);
	launch_refused(f, &l, -EINVAL, "arena offset");
}

static void test_arena_size_past_the_bo_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.arena_offset = 4096;
	l.arena_size = 4096 + 64;
	launch_refused(f, &l, -EINVAL, "passes the end");
}

static void test_replica_out_of_range_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.replica = 2;
	launch_refused(f, &l, -EINVAL, "replica 2 of 2");
}

static void test_zero_replicas_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.num_replicas = 0;
	launch_refused(f, &l, -EINVAL, "replica 0 of 0");
}

static void test_too_many_replicas_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.num_replicas = IPU_LAUNCH_MAX_REPLICAS + 1;
	launch_refused(f, &l, -EINVAL, "at most");
}

static void test_unknown_launch_flags_are_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	/* Past IPU_LAUNCH_F_PROFILE, the one flag there is. */
	l.flags = IPU_LAUNCH_F_PROFILE << 1;
	launch_refused(f, &l, -EINVAL, "unknown flags 0x2");
}

static void test_split_fields_without_instance_count_are_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	l.instance_index = 1;
	launch_refused(f, &l, -EINVAL, "with instance_count 0");
	l = launch(f);
	l.staging_bo = f->data;
	launch_refused(f, &l, -EINVAL, "with instance_count 0");
	l = launch(f);
	l.staging_size = 64;
	launch_refused(f, &l, -EINVAL, "with instance_count 0");
	l = launch(f);
	l.staging_offset = 64;
	launch_refused(f, &l, -EINVAL, "with instance_count 0");
}

/* A split launch of instance 1 of 2 with a valid staging area in f->data. */
static struct ipu_launch_desc split_launch(struct fixture *f)
{
	struct ipu_launch_desc l = launch(f);

	l.instance_index = 1;
	l.instance_count = 2;
	l.staging_bo = f->data;
	l.staging_offset = 64;
	l.staging_size = 128;
	return l;
}

static void test_split_instance_out_of_range_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = split_launch(f);

	l.instance_index = 2;
	launch_refused(f, &l, -EINVAL, "instance 2 of 2");
	l = split_launch(f);
	l.instance_count = IPU_LAUNCH_MAX_INSTANCES + 1;
	launch_refused(f, &l, -EINVAL, "at most 4096 instances");
}

static void test_split_staging_area_is_checked(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = split_launch(f);

	l.staging_bo = NULL;
	launch_refused(f, &l, -EINVAL, "without a staging buffer object");
	l = split_launch(f);
	l.staging_bo = f->arena1;
	launch_refused(f, &l, -EINVAL, "the staging area is on model:1");
	l = split_launch(f);
	l.staging_size = 0;
	launch_refused(f, &l, -EINVAL, "a staging area of 0 bytes");
	l = split_launch(f);
	l.staging_offset = 32;
	launch_refused(f, &l, -EINVAL, "at a multiple of 64");
	l = split_launch(f);
	l.staging_offset = 4096;
	l.staging_size = 1;
	launch_refused(f, &l, -EINVAL, "at offset 4096");
	/* Offset and size that wrap 32 bits still pass the end. */
	l = split_launch(f);
	l.staging_offset = 64;
	l.staging_size = UINT32_MAX;
	launch_refused(f, &l, -EINVAL, "of 4294967295 bytes at offset 64");
}

static void test_split_launch_on_the_model_is_eopnotsupp(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = split_launch(f);

	launch_refused(f, &l, -EOPNOTSUPP, "ipu_model_set_instances()");
}

static void test_replica_counts_that_disagree_are_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l0 = launch(f), l1 = launch(f);

	l1.replica = 1;
	l1.num_replicas = 3;
	first_cmd(f);
	ipu_cmd_prep_launch(&f->cmds[1], &l0, 101);
	ipu_cmd_prep_launch(&f->cmds[2], &l1, 102);
	refused(f, 3, -EINVAL, "group 7 has 3 replicas");
}

static void test_one_replica_twice_in_a_batch_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);

	first_cmd(f);
	ipu_cmd_prep_launch(&f->cmds[1], &l, 101);
	ipu_cmd_prep_launch(&f->cmds[2], &l, 102);
	refused(f, 3, -EINVAL, "replica 0 of group 7 is command 1 too");
}

static void test_launches_of_one_run_linked_together_are_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l0 = launch(f), l1 = launch(f);

	l1.replica = 1;
	first_cmd(f);
	ipu_cmd_prep_launch(&f->cmds[1], &l0, 101);
	f->cmds[1].flags = IPU_CMD_F_LINK;
	f->cmds[2] = f->cmds[0];
	f->cmds[2].flags = IPU_CMD_F_LINK;
	ipu_cmd_prep_launch(&f->cmds[3], &l1, 103);
	refused(f, 4, -EINVAL, "wait for it forever");
}

static void test_replica_already_in_flight_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);
	struct ipu_cmd cmd;

	ipu_cmd_prep_launch(&cmd, &l, 1);
	assert_int_equal(ipu_queue_submit(f->q, &cmd, 1), 0);
	launch_refused(f, &l, -EINVAL, "in flight already");
}

static void test_replica_count_unlike_the_run_in_flight_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);
	struct ipu_cmd cmd;

	ipu_cmd_prep_launch(&cmd, &l, 1);
	assert_int_equal(ipu_queue_submit(f->q, &cmd, 1), 0);
	l.replica = 1;
	l.num_replicas = 4;
	launch_refused(f, &l, -EINVAL, "has 2 replicas, not 4");
}

static void test_more_than_the_queue_holds_in_flight_is_ebusy(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = launch(f);
	struct ipu_cmd cmds[8];
	int i;

	/* 7 launches of runs that never complete stay in flight */
	for (i = 0; i < 7; i++) {
		l.group = 1000 + i;
		ipu_cmd_prep_launch(&cmds[i], &l, i);
	}
	assert_int_equal(ipu_queue_submit(f->q, cmds, 7), 0);
	first_cmd(f);
	f->cmds[1] = f->cmds[0];
	refused(f, 2, -EBUSY, "reap first");
}

static void test_queue_options_are_checked(void **state)
{
	IPU_OPTS(ipu_queue_opts, big, .entries = IPU_QUEUE_MAX_ENTRIES + 1);
	IPU_OPTS(ipu_queue_opts, flags, .flags = 1);
	IPU_OPTS(ipu_queue_opts, small);
	struct fixture *f = *state;
	struct ipu_queue *q = (void *)1;

	small.sz = sizeof(size_t);
	assert_int_equal(ipu_queue_create(f->dev, &big, &q), -EINVAL);
	assert_null(q);
	assert_int_equal(ipu_queue_create(f->dev, &flags, &q), -EINVAL);
	assert_int_equal(ipu_queue_create(f->dev, &small, &q), -EINVAL);
	assert_int_equal(ipu_queue_create(NULL, NULL, &q), -EINVAL);
	assert_int_equal(ipu_queue_create(f->dev, NULL, NULL), -EINVAL);
	assert_int_equal(ipu_queue_create(f->dev, NULL, &q), 0);
	ipu_queue_destroy(q);
	ipu_queue_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_valid_batch_is_accepted),
		T(test_submit_and_wait_leaves_the_completions_to_reap),
		T(test_submit_and_wait_for_more_than_the_batch_is_einval),
		T(test_null_arguments_are_einval),
		T(test_empty_batch_is_einval),
		T(test_batch_larger_than_the_queue_is_einval),
		T(test_unknown_op_is_einval),
		T(test_unknown_command_flags_are_einval),
		T(test_bad_transfer_is_einval),
		T(test_transfer_with_a_dirty_tail_is_e2big),
		T(test_launch_without_exe_bo_is_einval),
		T(test_launch_without_arena_bo_is_einval),
		T(test_launch_with_bos_of_two_devices_is_einval),
		T(test_launch_of_an_empty_image_is_einval),
		T(test_launch_of_an_image_past_its_bo_is_einval),
		T(test_misaligned_arena_is_einval),
		T(test_arena_offset_past_the_bo_is_einval),
		T(test_arena_size_past_the_bo_is_einval),
		T(test_replica_out_of_range_is_einval),
		T(test_zero_replicas_is_einval),
		T(test_too_many_replicas_is_einval),
		T(test_unknown_launch_flags_are_einval),
		T(test_split_fields_without_instance_count_are_einval),
		T(test_split_instance_out_of_range_is_einval),
		T(test_split_staging_area_is_checked),
		T(test_split_launch_on_the_model_is_eopnotsupp),
		T(test_replica_counts_that_disagree_are_einval),
		T(test_one_replica_twice_in_a_batch_is_einval),
		T(test_launches_of_one_run_linked_together_are_einval),
		T(test_replica_already_in_flight_is_einval),
		T(test_replica_count_unlike_the_run_in_flight_is_einval),
		T(test_more_than_the_queue_holds_in_flight_is_ebusy),
		T(test_queue_options_are_checked),
#undef T
	};

	return cmocka_run_group_tests(tests, mh_group_setup, mh_group_teardown);
}
