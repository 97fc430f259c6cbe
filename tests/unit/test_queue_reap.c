// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_queue_reap.c - what a queue does with a batch: links (a failure
 * cancels the rest of its chain, independent commands still complete),
 * reaping (min_complete, max, timeouts), destroying a queue with work in
 * flight, and the synchronous queue of backends without one (the kernel's
 * today), seen through the fake backend.
 */
#include <pthread.h>
#include <sched.h>

#include "model_helpers.h"
#include "fake_backend.h"

struct fixture {
	struct ipu_device *dev, *dev1;
	struct ipu_bo *bo, *bo1;
	struct ipu_queue *q;
	uint8_t data[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->dev = mh_open(0, true);
	f->dev1 = mh_open(1, true);
	f->bo = mh_bo(f->dev, 4096);
	f->bo1 = mh_bo(f->dev1, 4096);
	f->q = mh_queue(f->dev, 16);
	memset(f->data, 0x3c, sizeof(f->data));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ipu_queue_destroy(f->q);
	ipu_device_close(f->dev);
	ipu_device_close(f->dev1);
	free(f);
	return 0;
}

/* cmds[i]: 8 bytes of data to @bo at offset 8 * i, user_data i. */
static void write_cmd(struct fixture *f, struct ipu_cmd *cmds, int i,
		      struct ipu_bo *bo, uint32_t flags)
{
	struct ipu_xfer_desc x = mh_xfer(bo, 8 * i, f->data, 8,
					 IPU_XFER_DIR_TO_DEVICE);

	ipu_cmd_prep_xfer(&cmds[i], &x, i);
	cmds[i].flags = flags;
}

/* Whether command i's 8 bytes arrived in @bo. */
static bool written(struct ipu_bo *bo, int i)
{
	uint8_t out[8];

	assert_int_equal(ipu_xfer_from_device(bo, 8 * i, out, 8), 0);
	return out[0] == 0x3c;
}

static void test_failure_cancels_the_rest_of_its_chain_only(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c[5];
	struct ipu_cmd cmds[5];

	/* chain 0-3, where 1 fails (its device is not attached); 4 alone */
	write_cmd(f, cmds, 0, f->bo, IPU_CMD_F_LINK);
	write_cmd(f, cmds, 1, f->bo1, IPU_CMD_F_LINK);
	write_cmd(f, cmds, 2, f->bo, IPU_CMD_F_LINK);
	write_cmd(f, cmds, 3, f->bo, 0);
	write_cmd(f, cmds, 4, f->bo, 0);
	assert_int_equal(ipu_device_detach(f->dev1), 0);
	assert_int_equal(ipu_queue_submit(f->q, cmds, 5), 0);
	mh_reap(f->q, c, 5);
	assert_int_equal(mh_find(c, 5, 0)->result, 0);
	assert_int_equal(mh_find(c, 5, 1)->result, -EACCES);
	assert_int_equal(mh_find(c, 5, 2)->result, -ECANCELED);
	assert_int_equal(mh_find(c, 5, 3)->result, -ECANCELED);
	assert_int_equal(mh_find(c, 5, 4)->result, 0);
	assert_non_null(strstr(mh_find(c, 5, 2)->msg, "linked"));
	assert_true(written(f->bo, 0));
	assert_false(written(f->bo, 2));
	assert_false(written(f->bo, 3));
	assert_true(written(f->bo, 4));
}

static void test_chain_ends_at_the_first_command_without_link(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c[3];
	struct ipu_cmd cmds[3];

	write_cmd(f, cmds, 0, f->bo1, IPU_CMD_F_LINK);
	write_cmd(f, cmds, 1, f->bo, 0);
	write_cmd(f, cmds, 2, f->bo, 0);
	assert_int_equal(ipu_device_detach(f->dev1), 0);
	assert_int_equal(ipu_queue_submit(f->q, cmds, 3), 0);
	mh_reap(f->q, c, 3);
	assert_int_equal(mh_find(c, 3, 1)->result, -ECANCELED);
	assert_int_equal(mh_find(c, 3, 2)->result, 0);
	assert_true(written(f->bo, 2));
}

static void test_link_on_a_batchs_last_command_is_ignored(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c;
	struct ipu_cmd cmds[2];

	write_cmd(f, cmds, 0, f->bo1, IPU_CMD_F_LINK);
	write_cmd(f, cmds, 1, f->bo, 0);
	assert_int_equal(ipu_device_detach(f->dev1), 0);
	assert_int_equal(ipu_queue_submit(f->q, &cmds[0], 1), 0);
	mh_reap(f->q, &c, 1);
	assert_int_equal(c.result, -EACCES);
	assert_int_equal(ipu_queue_submit(f->q, &cmds[1], 1), 0);
	mh_reap(f->q, &c, 1);
	assert_int_equal(c.result, 0);
}

static void test_reap_returns_at_most_max(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c[4];
	struct ipu_cmd cmds[4];
	int i;

	for (i = 0; i < 4; i++)
		write_cmd(f, cmds, i, f->bo, i < 3 ? IPU_CMD_F_LINK : 0);
	assert_int_equal(ipu_queue_submit(f->q, cmds, 4), 0);
	mh_reap(f->q, c, 1);
	mh_reap(f->q, c + 1, 3);
	for (i = 0; i < 4; i++)
		assert_int_equal(c[i].user_data, i); /* one chain: in order */
}

/* A launch that waits forever: replica 0 of a run of 2, alone. */
static void submit_waiting_launch(struct fixture *f)
{
	struct eb *b = mh_relu_program(2, 4);
	struct ipu_launch_desc l = { .num_replicas = 2, .group = 1 };
	struct ipu_cmd cmd;

	l.exe_bo = mh_exe_bo(f->dev, &b->exe, &l.exe_size);
	l.arena_bo = f->bo;
	ipu_cmd_prep_launch(&cmd, &l, 77);
	assert_int_equal(ipu_queue_submit(f->q, &cmd, 1), 0);
	eb_free(b);
}

static void test_reap_without_waiting_returns_what_is_ready(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c[2];

	submit_waiting_launch(f);
	assert_int_equal(ipu_queue_reap(f->q, c, 2, 0, 0), 0);
	assert_int_equal(ipu_queue_reap(f->q, c, 2, 1, 0), 0);
}

static void test_reap_times_out_with_fewer_than_min(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c[2];
	struct ipu_cmd cmd;

	submit_waiting_launch(f);
	write_cmd(f, &cmd, 0, f->bo, 0);
	assert_int_equal(ipu_queue_submit(f->q, &cmd, 1), 0);
	/* 2 in flight, 1 ever completes: 20 ms, then what there is */
	assert_int_equal(ipu_queue_reap(f->q, c, 2, 2, 20000000), 1);
	assert_int_equal(c[0].user_data, 0);
	assert_int_equal(ipu_queue_reap(f->q, c, 2, 1, 1000000), 0);
}

static void test_waiting_for_more_than_is_in_flight_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c[2];
	struct ipu_cmd cmd;

	assert_int_equal(ipu_queue_reap(f->q, c, 2, 1, -1), -EINVAL);
	assert_non_null(strstr(ipu_errmsg(), "in flight"));
	write_cmd(f, &cmd, 0, f->bo, 0);
	assert_int_equal(ipu_queue_submit(f->q, &cmd, 1), 0);
	assert_int_equal(ipu_queue_reap(f->q, c, 2, 2, -1), -EINVAL);
	mh_reap(f->q, c, 1);
}

static void test_reap_arguments_are_checked(void **state)
{
	struct fixture *f = *state;
	struct ipu_completion c;

	assert_int_equal(ipu_queue_reap(NULL, &c, 1, 0, 0), -EINVAL);
	assert_int_equal(ipu_queue_reap(f->q, NULL, 1, 0, 0), -EINVAL);
	assert_int_equal(ipu_queue_reap(f->q, &c, 0, 0, 0), -EINVAL);
}

static void test_destroying_a_queue_with_work_in_flight(void **state)
{
	struct fixture *f = *state;
	struct ipu_cmd cmds[3];
	int i;

	submit_waiting_launch(f);
	for (i = 0; i < 3; i++)
		write_cmd(f, cmds, i, f->bo, IPU_CMD_F_LINK);
	assert_int_equal(ipu_queue_submit(f->q, cmds, 3), 0);
	/* completions not reaped, a launch parked: all freed (ASan, valgrind) */
	ipu_queue_destroy(f->q);
	f->q = NULL;
}

#define THREADED_CMDS 400

static void *reaper(void *arg)
{
	struct fixture *f = arg;
	struct ipu_completion c[16];
	size_t got = 0;
	int n;

	while (got < THREADED_CMDS) {
		n = ipu_queue_reap(f->q, c, 16, 0, 1000000);
		if (n < 0 || (n > 0 && c[0].result))
			return (void *)1;
		/* Nothing ready: let the submitter and the engine run. */
		if (!n)
			sched_yield();
		got += (size_t)n;
	}
	return NULL;
}

static void test_one_thread_submits_while_another_reaps(void **state)
{
	struct fixture *f = *state;
	struct ipu_cmd cmds[4];
	pthread_t t;
	void *ret;
	int i, err;

	for (i = 0; i < 4; i++)
		write_cmd(f, cmds, i, f->bo, 0);
	assert_int_equal(pthread_create(&t, NULL, reaper, f), 0);
	for (i = 0; i < THREADED_CMDS; i += 4) {
		/* a full queue is not an error: wait for the reaper */
		while ((err = ipu_queue_submit(f->q, cmds, 4)) == -EBUSY)
			sched_yield();
		assert_int_equal(err, 0);
	}
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);
}

/* The synchronous queue, through the fake backend. */

static struct ipu_device *fake_dev(struct ipu_bo **bo)
{
	struct ipu_device *dev;

	memset(&fake, 0, sizeof(fake));
	dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	assert_int_equal(ipu_bo_create(dev, 4096, 0, bo), 0);
	return dev;
}

static int fake_setup_(void **state)
{
	(void)state;
	return __ipu_backend_register(&fake_ops);
}

static int fake_teardown_(void **state)
{
	(void)state;
	return __ipu_backend_unregister(&fake_ops);
}

static void test_sync_queue_completes_transfers_at_submit(void **state)
{
	struct ipu_completion c[3];
	struct ipu_cmd cmds[3];
	struct ipu_queue *q;
	struct ipu_bo *bo;
	struct ipu_device *dev = fake_dev(&bo);
	struct fixture f;
	int i;

	(void)state;
	memset(f.data, 0x3c, sizeof(f.data));
	q = mh_queue(dev, 0);
	for (i = 0; i < 3; i++)
		write_cmd(&f, cmds, i, bo, IPU_CMD_F_LINK);
	fake.xfer_err = -EIO;
	fake.xfer_fail_at = 2;
	assert_int_equal(ipu_queue_submit(q, cmds, 3), 0);
	/* ready without waiting */
	assert_int_equal(ipu_queue_reap(q, c, 3, 0, 0), 3);
	assert_int_equal(c[0].result, 0);
	assert_int_equal(c[1].result, -EIO);
	assert_int_equal(c[2].result, -ECANCELED);
	assert_non_null(strstr(c[1].msg, "fake:0"));
	assert_non_null(strstr(c[1].msg, "Input/output error"));
	assert_int_equal(fake.xfers, 2);
	ipu_queue_destroy(q);
	ipu_device_close(dev);
}

static void test_sync_queue_cannot_launch(void **state)
{
	struct ipu_completion c;
	struct ipu_queue *q;
	struct ipu_bo *bo;
	struct ipu_device *dev = fake_dev(&bo);
	struct ipu_launch_desc l = {
		.exe_bo = bo, .exe_size = 64, .arena_bo = bo,
		.num_replicas = 1,
	};
	struct ipu_cmd cmd;

	(void)state;
	q = mh_queue(dev, 0);
	ipu_cmd_prep_launch(&cmd, &l, 9);
	assert_int_equal(ipu_queue_submit(q, &cmd, 1), 0);
	assert_int_equal(ipu_queue_reap(q, &c, 1, 1, 0), 1);
	assert_int_equal(c.result, -EOPNOTSUPP);
	assert_int_equal(c.op, IPU_CMD_LAUNCH);
	assert_non_null(strstr(c.msg, "cannot launch"));
	assert_int_equal(ipu_launch(dev, &l), -EOPNOTSUPP);
	assert_non_null(strstr(ipu_errmsg(), "fake:0"));
	ipu_queue_destroy(q);
	ipu_device_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_failure_cancels_the_rest_of_its_chain_only),
		T(test_chain_ends_at_the_first_command_without_link),
		T(test_link_on_a_batchs_last_command_is_ignored),
		T(test_reap_returns_at_most_max),
		T(test_reap_without_waiting_returns_what_is_ready),
		T(test_reap_times_out_with_fewer_than_min),
		T(test_waiting_for_more_than_is_in_flight_is_einval),
		T(test_reap_arguments_are_checked),
		T(test_destroying_a_queue_with_work_in_flight),
		T(test_one_thread_submits_while_another_reaps),
#undef T
		cmocka_unit_test_setup_teardown(test_sync_queue_completes_transfers_at_submit,
						fake_setup_, fake_teardown_),
		cmocka_unit_test_setup_teardown(test_sync_queue_cannot_launch,
						fake_setup_, fake_teardown_),
	};

	return cmocka_run_group_tests(tests, mh_group_setup, mh_group_teardown);
}
