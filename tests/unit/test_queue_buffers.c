// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_queue_buffers.c - registering host buffers with a queue
 * (ipu_queue_register_buffers()) and the queue counters
 * (__ipu_queue_stats()), on the model backend, where registering is
 * accepted and changes nothing: the argument checks, one set at a time,
 * transfers inside and outside a registered buffer, and the counts of
 * batches and commands per queue and per process. (The kernel backend's
 * use of them, IORING_URING_CMD_FIXED and io_uring_enter() counts, is
 * tested in the QEMU guests: tests/kernel/test_libipu_uring.c.)
 */
#include "model_helpers.h"

#define LEN 4096

struct fx {
	struct ipu_device *dev;
	struct ipu_bo *bo;
	struct ipu_queue *q;
	uint8_t buf[2][LEN];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->dev = mh_open(0, true);
	f->bo = mh_bo(f->dev, LEN);
	f->q = mh_queue(f->dev, 8);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ipu_queue_destroy(f->q);
	ipu_device_close(f->dev);
	free(f);
	return 0;
}

static void test_registering_and_unregistering(void **state)
{
	struct fx *f = *state;
	struct iovec iov[2] = { { f->buf[0], LEN }, { f->buf[1], LEN } };

	assert_int_equal(ipu_queue_register_buffers(f->q, iov, 2), 0);
	assert_int_equal(ipu_queue_unregister_buffers(f->q), 0);
	assert_int_equal(ipu_queue_register_buffers(f->q, iov, 1), 0);
}

static void test_a_second_registration_is_ebusy(void **state)
{
	struct fx *f = *state;
	struct iovec iov = { f->buf[0], LEN };

	assert_int_equal(ipu_queue_register_buffers(f->q, &iov, 1), 0);
	assert_int_equal(ipu_queue_register_buffers(f->q, &iov, 1), -EBUSY);
	assert_non_null(strstr(ipu_errmsg(), "unregister"));
}

static void test_unregistering_nothing_is_enoent(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ipu_queue_unregister_buffers(f->q), -ENOENT);
}

static void test_null_arguments_are_einval(void **state)
{
	struct fx *f = *state;
	struct iovec iov = { f->buf[0], LEN };

	assert_int_equal(ipu_queue_register_buffers(NULL, &iov, 1), -EINVAL);
	assert_int_equal(ipu_queue_register_buffers(f->q, NULL, 1), -EINVAL);
	assert_int_equal(ipu_queue_unregister_buffers(NULL), -EINVAL);
}

static void test_no_buffers_or_too_many_is_einval(void **state)
{
	struct fx *f = *state;
	struct iovec iov = { f->buf[0], LEN };

	assert_int_equal(ipu_queue_register_buffers(f->q, &iov, 0), -EINVAL);
	assert_int_equal(ipu_queue_register_buffers(f->q, &iov,
						    IPU_QUEUE_MAX_BUFFERS + 1),
			 -EINVAL);
}

static void test_an_empty_buffer_is_einval(void **state)
{
	struct fx *f = *state;
	struct iovec iov[2] = { { f->buf[0], LEN }, { f->buf[1], 0 } };

	assert_int_equal(ipu_queue_register_buffers(f->q, iov, 2), -EINVAL);
	assert_non_null(strstr(ipu_errmsg(), "buffer 1"));
	/* Refused whole: nothing stays registered. */
	assert_int_equal(ipu_queue_unregister_buffers(f->q), -ENOENT);
}

static void test_a_null_buffer_is_einval(void **state)
{
	struct fx *f = *state;
	struct iovec iov = { NULL, LEN };

	assert_int_equal(ipu_queue_register_buffers(f->q, &iov, 1), -EINVAL);
}

static void test_a_wrapping_buffer_is_einval(void **state)
{
	struct fx *f = *state;
	struct iovec iov = { (void *)(UINTPTR_MAX - 15), 32 };

	assert_int_equal(ipu_queue_register_buffers(f->q, &iov, 1), -EINVAL);
}

static void test_transfers_in_and_out_of_registered_buffers_move_data(void **state)
{
	struct fx *f = *state;
	struct iovec iov = { f->buf[0], LEN };
	struct ipu_completion c[2];
	struct ipu_xfer_desc x;
	struct ipu_cmd cmds[2];

	assert_int_equal(ipu_queue_register_buffers(f->q, &iov, 1), 0);
	memset(f->buf[0], 0x5a, LEN);
	x = mh_xfer(f->bo, 0, f->buf[0], LEN, IPU_XFER_DIR_TO_DEVICE);
	ipu_cmd_prep_xfer(&cmds[0], &x, 0);
	cmds[0].flags = IPU_CMD_F_LINK;
	x = mh_xfer(f->bo, 0, f->buf[1], LEN, IPU_XFER_DIR_FROM_DEVICE);
	ipu_cmd_prep_xfer(&cmds[1], &x, 1);
	assert_int_equal(ipu_queue_submit(f->q, cmds, 2), 0);
	mh_reap(f->q, c, 2);
	assert_int_equal(c[0].result, 0);
	assert_int_equal(c[1].result, 0);
	assert_memory_equal(f->buf[0], f->buf[1], LEN);
}

static void test_stats_count_batches_and_commands(void **state)
{
	struct fx *f = *state;
	struct ipu_queue_stats q0, q1, p0, p1;
	struct ipu_completion c[3];
	struct ipu_xfer_desc x;
	struct ipu_cmd cmds[3];
	int i;

	assert_int_equal(__ipu_queue_stats(f->q, &q0), 0);
	assert_int_equal(__ipu_queue_stats(NULL, &p0), 0);
	x = mh_xfer(f->bo, 0, f->buf[0], 64, IPU_XFER_DIR_TO_DEVICE);
	for (i = 0; i < 3; i++)
		ipu_cmd_prep_xfer(&cmds[i], &x, (uint64_t)i);
	assert_int_equal(ipu_queue_submit(f->q, cmds, 3), 0);
	mh_reap(f->q, c, 3);
	assert_int_equal(ipu_queue_submit(f->q, cmds, 1), 0);
	mh_reap(f->q, c, 1);
	assert_int_equal(__ipu_queue_stats(f->q, &q1), 0);
	assert_int_equal(__ipu_queue_stats(NULL, &p1), 0);
	assert_int_equal(q1.batches - q0.batches, 2);
	assert_int_equal(q1.commands - q0.commands, 4);
	/* The model enters no io_uring. */
	assert_int_equal(q1.enters - q0.enters, 0);
	assert_int_equal(q1.fixed_xfers - q0.fixed_xfers, 0);
	/* The process's totals hold this queue's. */
	assert_true(p1.batches - p0.batches >= 2);
	assert_true(p1.commands - p0.commands >= 4);
}

static void test_stats_without_a_struct_is_einval(void **state)
{
	struct fx *f = *state;

	assert_int_equal(__ipu_queue_stats(f->q, NULL), -EINVAL);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_registering_and_unregistering),
		T(test_a_second_registration_is_ebusy),
		T(test_unregistering_nothing_is_enoent),
		T(test_null_arguments_are_einval),
		T(test_no_buffers_or_too_many_is_einval),
		T(test_an_empty_buffer_is_einval),
		T(test_a_null_buffer_is_einval),
		T(test_a_wrapping_buffer_is_einval),
		T(test_transfers_in_and_out_of_registered_buffers_move_data),
		T(test_stats_count_batches_and_commands),
		T(test_stats_without_a_struct_is_einval),
	};

	return cmocka_run_group_tests(tests, mh_group_setup, mh_group_teardown);
}
