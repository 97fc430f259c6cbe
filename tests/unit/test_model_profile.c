// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_model_profile.c - op profiles of launches on the model
 * (IPU_LAUNCH_F_PROFILE, ipu_queue_profile()): a profiled launch's
 * records come with its completion, one per op in program order with
 * ordered times; a launch without the flag has none; the records last
 * until the next reap; each replica of a run has its own; a loop's body
 * is recorded once per iteration, up to IPU_PROFILE_MAX_RECORDS; a queue
 * destroyed with profiled completions unreaped frees them.
 */
#include "model_helpers.h"

#define N 4 /* elements per stream */

/* The ops of one replica of mh_relu_program(1, N). */
static const uint32_t relu_ops[] = { IPU_OP_HOST_LOAD, IPU_OP_RELU,
				     IPU_OP_HOST_STORE };

struct fixture {
	struct ipu_queue *q;
	struct eb *prog;
	struct ipu_device *dev[2];
	struct ipu_launch_desc l[2];
	uint32_t nrep;
	float in[2][N], out[2][N];
};

static int teardown(void **state)
{
	struct fixture *f = *state;
	uint32_t r;

	ipu_queue_destroy(f->q);
	for (r = 0; r < f->nrep; r++)
		ipu_device_close(f->dev[r]);
	eb_free(f->prog);
	free(f);
	return 0;
}

/* @nrep replicas of the relu program, replica r on model:r. */
static int make(void **state, uint32_t nrep)
{
	struct fixture *f = calloc(1, sizeof(*f));
	uint32_t r;

	f->nrep = nrep;
	f->prog = mh_relu_program(nrep, N);
	for (r = 0; r < nrep; r++) {
		f->dev[r] = mh_open(r, true);
		f->l[r].exe_bo = mh_exe_bo(f->dev[r], &f->prog->exe,
					   &f->l[r].exe_size);
		f->l[r].arena_bo = mh_bo(f->dev[r], f->prog->exe.arena_size);
		f->l[r].replica = r;
		f->l[r].num_replicas = nrep;
		f->l[r].group = 7;
	}
	f->q = mh_queue(f->dev[0], 64);
	*state = f;
	return 0;
}

static int setup1(void **state)
{
	return make(state, 1);
}

static int setup2(void **state)
{
	return make(state, 2);
}

/* Submit each replica's chain (user_data 10 * r + 0/1/2) and reap all. */
static void run(struct fixture *f)
{
	struct ipu_completion c[6];
	struct ipu_cmd cmds[6];
	uint32_t r;
	size_t i;

	for (r = 0; r < f->nrep; r++)
		mh_chain(&cmds[3 * r], f->prog, &f->l[r], f->in[r], f->out[r],
			 10 * r);
	assert_int_equal(ipu_queue_submit(f->q, cmds, 3 * f->nrep), 0);
	mh_reap(f->q, c, 3 * f->nrep);
	for (i = 0; i < 3 * f->nrep; i++)
		assert_int_equal(c[i].result, 0);
}

/* The records of the launch with @ud: @n ops of the program, in order. */
static void expect_ops(struct ipu_queue *q, uint64_t ud,
		       const uint32_t *ops, size_t n)
{
	struct ipu_launch_profile p;
	size_t i;

	assert_int_equal(ipu_queue_profile(q, ud, &p), 0);
	assert_int_equal(p.n, n);
	assert_int_equal(p.dropped, 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(p.recs[i].index, i);
		assert_int_equal(p.recs[i].op, ops[i]);
		assert_true(p.recs[i].start_ns <= p.recs[i].end_ns);
		if (i)
			assert_true(p.recs[i - 1].end_ns <= p.recs[i].start_ns);
	}
}

static void test_a_profiled_launch_has_its_ops(void **state)
{
	struct fixture *f = *state;

	f->l[0].flags = IPU_LAUNCH_F_PROFILE;
	run(f);
	expect_ops(f->q, 1, relu_ops, 3);
	/* The transfers have none. */
	assert_int_equal(ipu_queue_profile(f->q, 0, &(struct ipu_launch_profile){ 0 }),
			 -ENOENT);
}

static void test_a_launch_without_the_flag_has_none(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_profile p;

	run(f);
	assert_int_equal(ipu_queue_profile(f->q, 1, &p), -ENOENT);
	assert_non_null(strstr(ipu_errmsg(), "user_data 1"));
	assert_int_equal(ipu_queue_profile(NULL, 1, &p), -EINVAL);
	assert_int_equal(ipu_queue_profile(f->q, 1, NULL), -EINVAL);
}

static void test_the_records_last_until_the_next_reap(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_profile p;

	f->l[0].flags = IPU_LAUNCH_F_PROFILE;
	run(f);
	expect_ops(f->q, 1, relu_ops, 3);
	expect_ops(f->q, 1, relu_ops, 3);
	f->l[0].flags = 0;
	run(f);
	assert_int_equal(ipu_queue_profile(f->q, 1, &p), -ENOENT);
}

static void test_each_replica_of_a_run_has_its_own(void **state)
{
	static const uint32_t ops[] = { IPU_OP_HOST_LOAD, IPU_OP_RELU,
					IPU_OP_ALL_REDUCE, IPU_OP_HOST_STORE };
	struct fixture *f = *state;
	struct ipu_launch_profile p;

	f->l[0].flags = f->l[1].flags = IPU_LAUNCH_F_PROFILE;
	run(f);
	expect_ops(f->q, 1, ops, 4);
	expect_ops(f->q, 11, ops, 4);
	/* Only the replica that asks. */
	f->l[0].flags = 0;
	run(f);
	assert_int_equal(ipu_queue_profile(f->q, 1, &p), -ENOENT);
	expect_ops(f->q, 11, ops, 4);
}

/* Launch a program looping @count times over one op; its profile. */
static struct ipu_launch_profile loop_profile(struct fixture *f,
					      uint32_t count)
{
	struct eb *b = eb_new(1, 1);
	uint32_t one = eb_variable(b, eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SCALAR), 1, 1);
	uint32_t c = eb_variable(b, eb_tensor(b, IPU_DTYPE_FLOAT32, EB_SCALAR), 1, 1);
	struct ipu_launch_profile p;
	struct ipu_launch_desc l = { 0 };
	struct ipu_completion done;
	struct ipu_cmd cmd;

	eb_loop(b, count, 1);
	eb_op(b, IPU_OP_SCALED_ADD_INPLACE, EB_U32(c, one), EB_NONE);
	b->instrs[1].fparams[0] = 1.0f;
	b->instrs[1].fparams[1] = 1.0f;
	l.exe_bo = mh_exe_bo(f->dev[0], &b->exe, &l.exe_size);
	l.arena_bo = mh_bo(f->dev[0], b->exe.arena_size);
	l.num_replicas = 1;
	l.flags = IPU_LAUNCH_F_PROFILE;
	ipu_cmd_prep_launch(&cmd, &l, 5);
	assert_int_equal(ipu_queue_submit(f->q, &cmd, 1), 0);
	mh_reap(f->q, &done, 1);
	assert_int_equal(done.result, 0);
	assert_int_equal(ipu_queue_profile(f->q, 5, &p), 0);
	ipu_bo_destroy(l.exe_bo);
	ipu_bo_destroy(l.arena_bo);
	eb_free(b);
	return p;
}

static void test_loops_are_recorded_up_to_the_cap(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_profile p;

	/* Far more records than instructions: room for every one. */
	p = loop_profile(f, 5000);
	assert_int_equal(p.n, 5000);
	assert_int_equal(p.dropped, 0);
	assert_int_equal(p.recs[4999].index, 1);
	/* Past the cap: the rest counted. */
	p = loop_profile(f, IPU_PROFILE_MAX_RECORDS + 10);
	assert_int_equal(p.n, IPU_PROFILE_MAX_RECORDS);
	assert_int_equal(p.dropped, 10);
}

static void test_unreaped_records_go_with_the_queue(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c;
	struct ipu_cmd cmds[2];

	f->l[0].flags = IPU_LAUNCH_F_PROFILE;
	ipu_cmd_prep_launch(&cmds[0], &f->l[0], 1);
	ipu_cmd_prep_launch(&cmds[1], &f->l[0], 2);
	assert_int_equal(ipu_queue_submit(f->q, cmds, 2), 0);
	/* Both posted, one reaped: the queue holds the records of one
	 * handed out and of one never reaped; destroying it frees both
	 * (ASan and valgrind would see a leak). */
	assert_int_equal(ipu_queue_reap(f->q, &c, 1, 2, MH_WAIT_NS), 1);
	assert_int_equal(c.result, 0);
	ipu_queue_destroy(f->q);
	f->q = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_profiled_launch_has_its_ops, setup1, teardown),
		cmocka_unit_test_setup_teardown(test_a_launch_without_the_flag_has_none, setup1, teardown),
		cmocka_unit_test_setup_teardown(test_the_records_last_until_the_next_reap, setup1, teardown),
		cmocka_unit_test_setup_teardown(test_each_replica_of_a_run_has_its_own, setup2, teardown),
		cmocka_unit_test_setup_teardown(test_loops_are_recorded_up_to_the_cap, setup1, teardown),
		cmocka_unit_test_setup_teardown(test_unreaped_records_go_with_the_queue, setup1, teardown),
	};

	return cmocka_run_group_tests(tests, mh_group_setup, mh_group_teardown);
}
