// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_model_launch.c - running programs on the model: executables built
 * by hand (exe_builder.h), saved with ipu_exe_save() into a BO and
 * launched through a queue or ipu_launch(); runs of 2 and 4 replicas on as
 * many devices doing an all-reduce; the executable cache seeing rewritten
 * images; and every way a launch fails, each with a message that says why.
 */
#include "model_helpers.h"

#define N 4 /* elements per stream */

static const float input[4][N] = {
	{ 1, -2, 3, -4 },
	{ -1, 5, 0.5f, 2 },
	{ 10, 20, -30, 0 },
	{ 0, 0, 1, 1 },
};

/* Replica r of a program: its device, executable and arena. */
struct replica {
	struct ipu_device *dev;
	struct ipu_launch_desc l;
};

struct fixture {
	struct ipu_queue *q;
	struct eb *prog;
	struct replica rep[4];
	uint32_t nrep;
	float out[4][N];
};

static int teardown(void **state)
{
	struct fixture *f = *state;
	uint32_t r;

	ipu_queue_destroy(f->q);
	for (r = 0; r < f->nrep; r++)
		ipu_device_close(f->rep[r].dev);
	eb_free(f->prog);
	free(f);
	return 0;
}

/* @nrep replicas of the relu (all-reduce) program, replica r on model:r. */
static struct fixture *make(void **state, uint32_t nrep)
{
	struct fixture *f = calloc(1, sizeof(*f));
	uint32_t r;

	f->nrep = nrep;
	f->prog = mh_relu_program(nrep, N);
	for (r = 0; r < nrep; r++) {
		struct replica *rep = &f->rep[r];

		rep->dev = mh_open(r, true);
		rep->l.exe_bo = mh_exe_bo(rep->dev, &f->prog->exe,
					  &rep->l.exe_size);
		rep->l.arena_bo = mh_bo(rep->dev, f->prog->exe.arena_size);
		rep->l.replica = r;
		rep->l.num_replicas = nrep;
		rep->l.group = 42;
	}
	f->q = mh_queue(f->rep[0].dev, 64);
	*state = f;
	return f;
}

static int setup1(void **state)
{
	make(state, 1);
	return 0;
}

static int setup2(void **state)
{
	make(state, 2);
	return 0;
}

static int setup4(void **state)
{
	make(state, 4);
	return 0;
}

/* Submit replicas [@from, @to) as chains; user_data 10 * r + 0/1/2. */
static void submit_replicas(struct fixture *f, uint32_t from, uint32_t to)
{
	struct ipu_cmd cmds[12];
	uint32_t r;

	for (r = from; r < to; r++)
		mh_chain(&cmds[3 * (r - from)], f->prog, &f->rep[r].l,
			 (void *)input[r], f->out[r], 10 * r);
	assert_int_equal(ipu_queue_submit(f->q, cmds, 3 * (to - from)), 0);
}

/* Reap the @n completions of chains, each expected to have @res. */
static void expect_all(struct fixture *f, size_t n, int res)
{
	struct ipu_completion c[12];
	size_t i;

	mh_reap(f->q, c, n);
	for (i = 0; i < n; i++)
		if (c[i].result != res)
			fail_msg("command %llu: %d (%s), expected %d",
				 (unsigned long long)c[i].user_data, c[i].result,
				 c[i].msg, res);
}

static float relu(float x)
{
	return x > 0 ? x : 0;
}

/* out[r] = sum over replicas of relu(input), or relu(input[r]) alone. */
static void check_out(struct fixture *f)
{
	uint32_t r, s, i;

	for (r = 0; r < f->nrep; r++) {
		for (i = 0; i < N; i++) {
			float want = 0;

			for (s = 0; s < f->nrep; s++)
				want += relu(input[s][i]);
			if (f->nrep == 1)
				want = relu(input[r][i]);
			if (f->out[r][i] != want)
				fail_msg("replica %u element %u: %g, expected %g",
					 r, i, f->out[r][i], want);
		}
	}
}

/* One launch of replica 0 as a lone command; returns its completion. */
static struct ipu_completion launch_alone(struct fixture *f,
					  const struct ipu_launch_desc *l)
{
	static struct ipu_completion c;
	struct ipu_cmd cmd;

	ipu_cmd_prep_launch(&cmd, l, 1);
	assert_int_equal(ipu_queue_submit(f->q, &cmd, 1), 0);
	mh_reap(f->q, &c, 1);
	return c;
}

static void test_one_replica_through_a_queue(void **state)
{
	struct fixture *f = *state;

	submit_replicas(f, 0, 1);
	expect_all(f, 3, 0);
	check_out(f);
}

static void test_ipu_launch_runs_one_replica(void **state)
{
	struct fixture *f = *state;
	struct replica *rep = &f->rep[0];

	assert_int_equal(ipu_xfer_to_device(rep->l.arena_bo, mh_slot(f->prog, 0),
					    input[0], sizeof(input[0])), 0);
	assert_int_equal(ipu_launch(rep->dev, &rep->l), 0);
	assert_int_equal(ipu_xfer_from_device(rep->l.arena_bo, mh_slot(f->prog, 1),
					      f->out[0], sizeof(f->out[0])), 0);
	check_out(f);
}

static void test_ipu_launch_of_several_replicas_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = f->rep[0].l;

	l.num_replicas = 2;
	assert_int_equal(ipu_launch(f->rep[0].dev, &l), -EINVAL);
	assert_non_null(strstr(ipu_errmsg(), "queue"));
}

static void test_launches_again_and_again(void **state)
{
	struct fixture *f = *state;
	int i;

	for (i = 0; i < 5; i++) {
		memset(f->out, 0, sizeof(f->out));
		submit_replicas(f, 0, 1);
		expect_all(f, 3, 0);
		check_out(f);
	}
}

/* The same program as mh_relu_program(1, N) but negating instead. */
static struct eb *neg_program(void)
{
	struct eb *b = mh_relu_program(1, N);

	b->instrs[1].op = IPU_OP_NEG;
	return b;
}

static void save(const struct eb *b, void **buf, size_t *len)
{
	char err[256];

	if (ipu_exe_save(&b->exe, buf, len, err, sizeof(err)))
		fail_msg("%s", err);
}

static void check_negated(struct fixture *f)
{
	int i;

	for (i = 0; i < N; i++)
		assert_true(f->out[0][i] == -input[0][i]);
}

static void test_rewritten_executable_is_loaded_again(void **state)
{
	struct fixture *f = *state;
	struct eb *b = neg_program();
	size_t len;
	void *buf;

	submit_replicas(f, 0, 1); /* relu: parsed and cached */
	expect_all(f, 3, 0);
	save(b, &buf, &len);
	assert_true(len <= ipu_bo_size(f->rep[0].l.exe_bo));
	assert_int_equal(ipu_xfer_to_device(f->rep[0].l.exe_bo, 0, buf, len), 0);
	f->rep[0].l.exe_size = len;
	submit_replicas(f, 0, 1);
	expect_all(f, 3, 0);
	check_negated(f);
	free(buf);
	eb_free(b);
}

static void test_executable_written_through_a_mapping_is_seen(void **state)
{
	struct fixture *f = *state;
	struct eb *b = neg_program();
	size_t len;
	void *buf, *p;

	submit_replicas(f, 0, 1);
	expect_all(f, 3, 0);
	save(b, &buf, &len);
	assert_int_equal(ipu_bo_map(f->rep[0].l.exe_bo, &p), 0);
	memcpy(p, buf, len);
	f->rep[0].l.exe_size = len;
	submit_replicas(f, 0, 1);
	expect_all(f, 3, 0);
	check_negated(f);
	/* and back, still mapped: read afresh every launch */
	free(buf);
	save(f->prog, &buf, &len);
	memcpy(p, buf, len);
	submit_replicas(f, 0, 1);
	expect_all(f, 3, 0);
	check_out(f);
	free(buf);
	eb_free(b);
}

static void test_malformed_executable_is_einval_with_a_message(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc *l = &f->rep[0].l;
	struct ipu_completion c;
	uint8_t byte;

	/* one byte of a blob changed: the loader's checksum catches it */
	assert_int_equal(ipu_xfer_from_device(l->exe_bo, l->exe_size - 5, &byte, 1), 0);
	byte ^= 0x40;
	assert_int_equal(ipu_xfer_to_device(l->exe_bo, l->exe_size - 5, &byte, 1), 0);
	c = launch_alone(f, l);
	assert_int_equal(c.result, -EINVAL);
	assert_non_null(strstr(c.msg, "model:0"));
	assert_non_null(strstr(c.msg, "executable of replica 0"));
	assert_true(strlen(c.msg) > 80);
	/* the same words from ipu_launch() */
	assert_int_equal(ipu_launch(f->rep[0].dev, l), -EINVAL);
	assert_string_equal(ipu_errmsg(), c.msg);
}

static void test_bytes_that_are_no_executable_are_enoexec(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = f->rep[0].l;
	struct ipu_completion c;

	l.exe_bo = l.arena_bo; /* zeros */
	l.exe_size = 64;
	c = launch_alone(f, &l);
	assert_int_equal(c.result, -ENOEXEC);
	assert_non_null(strstr(c.msg, "not an IPU executable"));
}

static void test_image_shorter_than_a_header_is_enoexec(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = f->rep[0].l;

	l.exe_size = 8;
	assert_int_equal(launch_alone(f, &l).result, -ENOEXEC);
}

static void test_replica_count_unlike_the_executables_is_einval(void **state)
{
	struct fixture *f = *state;
	struct eb *b = mh_relu_program(2, N);
	struct ipu_launch_desc l = f->rep[0].l;
	struct ipu_completion c;

	l.exe_bo = mh_exe_bo(f->rep[0].dev, &b->exe, &l.exe_size);
	c = launch_alone(f, &l);
	assert_int_equal(c.result, -EINVAL);
	assert_non_null(strstr(c.msg, "for 2 replicas, launched as 1"));
	eb_free(b);
}

static void test_arena_smaller_than_the_program_needs_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_launch_desc l = f->rep[0].l;

	l.arena_size = 64;
	assert_int_equal(launch_alone(f, &l).result, -EINVAL);
}

static void test_launch_on_a_detached_device_is_eacces(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c;

	assert_int_equal(ipu_device_detach(f->rep[0].dev), 0);
	c = launch_alone(f, &f->rep[0].l);
	assert_int_equal(c.result, -EACCES);
	assert_non_null(strstr(c.msg, "not attached"));
}

static void test_stream_loaded_too_often_is_erange(void **state)
{
	struct fixture *f = *state;
	struct eb *b = mh_relu_program(1, N);
	struct ipu_launch_desc l = f->rep[0].l;
	struct ipu_completion c;

	/* a second load of stream 0 in a run of one host transfer */
	eb_op(b, IPU_OP_HOST_LOAD, EB_U32(2), EB_I64(0));
	l.exe_bo = mh_exe_bo(f->rep[0].dev, &b->exe, &l.exe_size);
	c = launch_alone(f, &l);
	assert_int_equal(c.result, -ERANGE);
	assert_non_null(strstr(c.msg, "instruction 3"));
	eb_free(b);
}

static void test_two_replicas_on_two_devices_all_reduce(void **state)
{
	struct fixture *f = *state;

	submit_replicas(f, 0, 2);
	expect_all(f, 6, 0);
	check_out(f);
}

static void test_four_replicas_in_two_batches_all_reduce(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c[6];

	submit_replicas(f, 2, 4);
	/* the first two chains wait for replicas 0 and 1: only their
	 * transfers in complete */
	assert_int_equal(ipu_queue_reap(f->q, c, 6, 2, MH_WAIT_NS), 2);
	assert_int_equal(ipu_queue_reap(f->q, c, 6, 0, 1000000), 0);
	submit_replicas(f, 0, 2);
	expect_all(f, 10, 0);
	check_out(f);
}

static void test_group_ids_are_reused_once_a_run_is_done(void **state)
{
	struct fixture *f = *state;

	submit_replicas(f, 0, 2);
	expect_all(f, 6, 0);
	memset(f->out, 0, sizeof(f->out));
	submit_replicas(f, 0, 2);
	expect_all(f, 6, 0);
	check_out(f);
}

static void test_replicas_with_different_executables_are_einval(void **state)
{
	struct fixture *f = *state;
	struct eb *b = mh_relu_program(2, N);
	struct ipu_completion c[6];

	b->instrs[1].op = IPU_OP_ABS;
	f->rep[1].l.exe_bo = mh_exe_bo(f->rep[1].dev, &b->exe,
				       &f->rep[1].l.exe_size);
	submit_replicas(f, 0, 2);
	mh_reap(f->q, c, 6);
	assert_int_equal(mh_find(c, 6, 1)->result, -ECANCELED);
	assert_int_equal(mh_find(c, 6, 11)->result, -EINVAL);
	assert_non_null(strstr(mh_find(c, 6, 11)->msg, "another executable"));
	assert_non_null(strstr(mh_find(c, 6, 1)->msg, "another executable"));
	assert_int_equal(mh_find(c, 6, 2)->result, -ECANCELED);
	assert_int_equal(mh_find(c, 6, 12)->result, -ECANCELED);
	eb_free(b);
}

static void test_a_cancelled_launch_cancels_its_run(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c[6];
	struct ipu_cmd cmds[6];

	mh_chain(&cmds[0], f->prog, &f->rep[0].l, (void *)input[0], f->out[0], 0);
	mh_chain(&cmds[3], f->prog, &f->rep[1].l, (void *)input[1], f->out[1], 10);
	/* replica 1's chain first, so that its launch waits for replica 0,
	 * whose transfer in fails */
	assert_int_equal(ipu_queue_submit(f->q, &cmds[3], 3), 0);
	assert_int_equal(ipu_queue_reap(f->q, c, 1, 1, MH_WAIT_NS), 1);
	assert_int_equal(ipu_device_detach(f->rep[0].dev), 0);
	assert_int_equal(ipu_queue_submit(f->q, &cmds[0], 3), 0);
	mh_reap(f->q, c + 1, 5);
	assert_int_equal(mh_find(c, 6, 0)->result, -EACCES);
	assert_int_equal(mh_find(c, 6, 1)->result, -ECANCELED);
	assert_int_equal(mh_find(c, 6, 11)->result, -ECANCELED);
	assert_non_null(strstr(mh_find(c, 6, 11)->msg, "replica 0 was cancelled"));
	assert_int_equal(mh_find(c, 6, 12)->result, -ECANCELED);
}

/*
 * Fault "hang": the launch does not complete until its device is reset,
 * then with -EIO, and what was linked after it is cancelled.
 */
static void test_hung_launch_ends_with_a_reset(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c[3];
	const struct ipu_completion *l;
	int ret;

	assert_int_equal(__ipu_model_faults_set("hang:1"), 0);
	submit_replicas(f, 0, 1);
	/* The input arrives; then nothing, however long one waits. */
	ret = ipu_queue_reap(f->q, c, 3, 3, 200 * 1000000ll);
	assert_int_equal(ret, 1);
	assert_int_equal(c[0].user_data, 0);
	assert_int_equal(c[0].result, 0);
	assert_int_equal(ipu_device_reset(f->rep[0].dev), 0);
	mh_reap(f->q, c, 2);
	l = mh_find(c, 2, 1);
	assert_int_equal(l->result, -EIO);
	if (!strstr(l->msg, "hang") || !strstr(l->msg, "reset"))
		fail_msg("message: %s", l->msg);
	assert_int_equal(mh_find(c, 2, 2)->result, -ECANCELED);
	/* The fault was used up: the device runs the next one. */
	submit_replicas(f, 0, 1);
	expect_all(f, 3, 0);
	check_out(f);
}

/*
 * Fault "reset": the reset fails with -EIO, counts nothing and releases
 * nothing (the launch stays hung); the next reset works and ends it.
 */
static void test_failed_reset_leaves_a_hung_launch_hung(void **state)
{
	struct fixture *f = *state;
	struct ipu_device_info info = { .sz = sizeof(info) };
	struct ipu_completion c[3];
	uint64_t before;

	assert_int_equal(ipu_device_query(f->rep[0].dev, &info), 0);
	before = info.reset_count;
	assert_int_equal(__ipu_model_faults_set("hang:1,reset:1"), 0);
	submit_replicas(f, 0, 1);
	assert_int_equal(ipu_queue_reap(f->q, c, 3, 3, 100 * 1000000ll), 1);
	assert_int_equal(ipu_device_reset(f->rep[0].dev), -EIO);
	if (!strstr(ipu_errmsg(), "resetting"))
		fail_msg("message: %s", ipu_errmsg());
	assert_int_equal(ipu_device_query(f->rep[0].dev, &info), 0);
	assert_int_equal(info.reset_count, before);
	assert_int_equal(ipu_queue_reap(f->q, c, 2, 2, 100 * 1000000ll), 0);
	assert_int_equal(ipu_device_reset(f->rep[0].dev), 0);
	mh_reap(f->q, c, 2);
	assert_int_equal(mh_find(c, 2, 1)->result, -EIO);
	assert_int_equal(ipu_device_query(f->rep[0].dev, &info), 0);
	assert_int_equal(info.reset_count, before + 1);
}

/* A hung run of two replicas ends with a reset of either device. */
static void test_hung_run_ends_with_a_reset_of_one_device(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c[6];
	int ret;

	assert_int_equal(__ipu_model_faults_set("hang:1"), 0);
	submit_replicas(f, 0, 2);
	ret = ipu_queue_reap(f->q, c, 6, 6, 200 * 1000000ll);
	assert_int_equal(ret, 2); /* the inputs */
	assert_int_equal(ipu_device_reset(f->rep[1].dev), 0);
	mh_reap(f->q, c, 4);
	assert_int_equal(mh_find(c, 4, 1)->result, -EIO);
	assert_int_equal(mh_find(c, 4, 11)->result, -EIO);
}

/* Destroying the queue does not wait for a hung launch forever. */
static void test_hung_launch_goes_with_its_queue(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c[3];

	assert_int_equal(__ipu_model_faults_set("hang:1"), 0);
	submit_replicas(f, 0, 1);
	assert_int_equal(ipu_queue_reap(f->q, c, 3, 3, 100 * 1000000ll), 1);
	ipu_queue_destroy(f->q);
	f->q = mh_queue(f->rep[0].dev, 64);
	submit_replicas(f, 0, 1);
	expect_all(f, 3, 0);
	check_out(f);
}

/* The model sets no launch deadline of its own (ipu_device_info). */
static void test_model_reports_no_launch_deadline(void **state)
{
	struct fixture *f = *state;
	struct ipu_device_info info = { .sz = sizeof(info) };

	info.launch_timeout_ms = 12345;
	assert_int_equal(ipu_device_query(f->rep[0].dev, &info), 0);
	assert_int_equal(info.launch_timeout_ms, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T1(f) cmocka_unit_test_setup_teardown(f, setup1, teardown)
#define T2(f) cmocka_unit_test_setup_teardown(f, setup2, teardown)
#define T4(f) cmocka_unit_test_setup_teardown(f, setup4, teardown)
		T1(test_one_replica_through_a_queue),
		T1(test_ipu_launch_runs_one_replica),
		T1(test_ipu_launch_of_several_replicas_is_einval),
		T1(test_launches_again_and_again),
		T1(test_rewritten_executable_is_loaded_again),
		T1(test_executable_written_through_a_mapping_is_seen),
		T1(test_malformed_executable_is_einval_with_a_message),
		T1(test_bytes_that_are_no_executable_are_enoexec),
		T1(test_image_shorter_than_a_header_is_enoexec),
		T1(test_replica_count_unlike_the_executables_is_einval),
		T1(test_arena_smaller_than_the_program_needs_is_einval),
		T1(test_launch_on_a_detached_device_is_eacces),
		T1(test_stream_loaded_too_often_is_erange),
		T2(test_two_replicas_on_two_devices_all_reduce),
		T4(test_four_replicas_in_two_batches_all_reduce),
		T2(test_group_ids_are_reused_once_a_run_is_done),
		T2(test_replicas_with_different_executables_are_einval),
		T2(test_a_cancelled_launch_cancels_its_run),
		T1(test_hung_launch_ends_with_a_reset),
		T1(test_failed_reset_leaves_a_hung_launch_hung),
		T2(test_hung_run_ends_with_a_reset_of_one_device),
		T1(test_hung_launch_goes_with_its_queue),
		T1(test_model_reports_no_launch_deadline),
#undef T1
#undef T2
#undef T4
	};

	return cmocka_run_group_tests(tests, mh_group_setup, mh_group_teardown);
}
