// SPDX-License-Identifier: GPL-2.0
/*
 * test_libipu_uring.c - libipu's queue on the kernel backend, which is an
 * io_uring ring: transfers both ways through ipu_queue_* and through
 * ipu_xfer_run(), batches spanning two device files, registered host
 * buffers (which transfers use them, and the registration's own errors),
 * completions that name the device and what failed, a chain cancelled
 * after a failure, reaping with a timeout while a launch is held, one
 * thread submitting while another reaps (completions then arrive through
 * the submitter's task work), and SQE slots never reused while the
 * command they carry is in flight (issue 8, item 5b).
 */
#include <pthread.h>

#include "../../userspace/ipu/internal.h"
#include "kprog.h"
#include "ksimd.h"

#define LEN 8192

static struct ipu_bo *bo_of(struct ipu_device *dev, uint64_t size)
{
	return kp_bo(dev, size);
}

static struct ipu_xfer_desc xd(struct ipu_bo *bo, uint64_t off, void *host,
			       uint64_t len, uint32_t dir)
{
	return (struct ipu_xfer_desc){ .bo = bo, .bo_offset = off, .host = host,
				       .length = len, .dir = dir };
}

static void test_hw_devices_can_launch(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, 0);
	struct ipu_device_info info = { .sz = sizeof(info) };

	(void)state;
	assert_int_equal(ipu_device_query(dev, &info), 0);
	assert_true(info.caps & IPU_DEVICE_CAP_LAUNCH);
}

static void test_a_batch_moves_data_both_ways(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo = bo_of(dev, 2 * LEN);
	struct ipu_queue *q = kt_queue(dev, 8);
	uint8_t *a = kt_alloc(LEN), *b = kt_alloc(LEN);
	struct ipu_xfer_desc x;
	struct ipu_cmd cmds[2];
	char msg[256];

	(void)state;
	kt_fill(a, LEN, 11);
	x = xd(bo, LEN, a, LEN, IPU_XFER_DIR_TO_DEVICE);
	ipu_cmd_prep_xfer(&cmds[0], &x, 1);
	cmds[0].flags = IPU_CMD_F_LINK;
	x = xd(bo, LEN, b, LEN, IPU_XFER_DIR_FROM_DEVICE);
	ipu_cmd_prep_xfer(&cmds[1], &x, 2);
	assert_int_equal(ipu_queue_submit(q, cmds, 2), 0);
	assert_int_equal(kp_reap(q, 2, msg, sizeof(msg)), 0);
	assert_pattern(b, LEN, 11);
}

static void test_ipu_xfer_run_of_more_transfers_than_a_queue_holds(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo = bo_of(dev, 600 * 64);
	struct ipu_xfer_desc d[600];
	uint8_t *a = kt_alloc(600 * 64), *b = kt_alloc(600 * 64);
	size_t done = 0;
	int i;

	(void)state;
	kt_fill(a, 600 * 64, 12);
	for (i = 0; i < 600; i++)
		d[i] = xd(bo, (uint64_t)i * 64, a + i * 64, 64,
			  IPU_XFER_DIR_TO_DEVICE);
	assert_int_equal(ipu_xfer_run(dev, d, 600, &done), 0);
	assert_int_equal(done, 600);
	assert_int_equal(ipu_xfer_from_device(bo, 0, b, 600 * 64), 0);
	assert_pattern(b, 600 * 64, 12);
}

static void test_ipu_xfer_run_stops_at_a_host_fault_and_says_where(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo = bo_of(dev, LEN);
	uint8_t *a = kt_alloc(LEN), *gone = kt_no_access(LEN);
	struct ipu_xfer_desc d[3];
	size_t done = 99;

	(void)state;
	d[0] = xd(bo, 0, a, 64, IPU_XFER_DIR_TO_DEVICE);
	d[1] = xd(bo, 64, gone, 64, IPU_XFER_DIR_TO_DEVICE);
	d[2] = xd(bo, 128, a, 64, IPU_XFER_DIR_TO_DEVICE);
	assert_int_equal(ipu_xfer_run(dev, d, 3, &done), -EFAULT);
	assert_int_equal(done, 1);
	assert_non_null(strstr(ipu_errmsg(), KT_HW(0)));
	assert_non_null(strstr(ipu_errmsg(), "transfer 1"));
}

static void test_one_batch_spans_two_device_files(void **state)
{
	struct ipu_device *d0 = kt_dev_open(0, IPU_OPEN_ATTACH), *d1;
	struct ipu_bo *b0 = bo_of(d0, LEN), *b1;
	uint8_t *a = kt_alloc(LEN), *back = kt_alloc(LEN);
	struct ipu_queue *q = kt_queue(d0, 8);
	struct ipu_xfer_desc x;
	struct ipu_cmd cmds[2];

	(void)state;
	kt_require_dev(1);
	d1 = kt_dev_open(1, IPU_OPEN_ATTACH);
	b1 = bo_of(d1, LEN);
	kt_fill(a, LEN, 13);
	x = xd(b0, 0, a, LEN, IPU_XFER_DIR_TO_DEVICE);
	ipu_cmd_prep_xfer(&cmds[0], &x, 0);
	x = xd(b1, 0, a, LEN, IPU_XFER_DIR_TO_DEVICE);
	ipu_cmd_prep_xfer(&cmds[1], &x, 1);
	assert_int_equal(ipu_queue_submit(q, cmds, 2), 0);
	assert_int_equal(kp_reap(q, 2, NULL, 0), 0);
	assert_int_equal(ipu_xfer_from_device(b0, 0, back, LEN), 0);
	assert_pattern(back, LEN, 13);
	memset(back, 0, LEN);
	assert_int_equal(ipu_xfer_from_device(b1, 0, back, LEN), 0);
	assert_pattern(back, LEN, 13);
}

static void test_transfers_inside_registered_buffers_go_fixed(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo = bo_of(dev, 4 * LEN);
	struct ipu_queue *q = kt_queue(dev, 8);
	uint8_t *a = kt_alloc(2 * LEN), *b = kt_alloc(LEN), *other = kt_alloc(LEN);
	struct iovec iov[2] = { { a, 2 * LEN }, { b, LEN } };
	struct ipu_queue_stats s0, s1;
	struct ipu_xfer_desc x;
	struct ipu_cmd cmds[3];

	(void)state;
	assert_int_equal(ipu_queue_register_buffers(q, iov, 2), 0);
	kt_fill(a + 100, LEN, 14);
	x = xd(bo, 0, a + 100, LEN, IPU_XFER_DIR_TO_DEVICE); /* inside a */
	ipu_cmd_prep_xfer(&cmds[0], &x, 0);
	cmds[0].flags = IPU_CMD_F_LINK;
	x = xd(bo, 0, b, LEN, IPU_XFER_DIR_FROM_DEVICE); /* all of b */
	ipu_cmd_prep_xfer(&cmds[1], &x, 1);
	cmds[1].flags = IPU_CMD_F_LINK;
	x = xd(bo, 0, other, LEN, IPU_XFER_DIR_FROM_DEVICE); /* not registered */
	ipu_cmd_prep_xfer(&cmds[2], &x, 2);
	assert_int_equal(__ipu_queue_stats(q, &s0), 0);
	assert_int_equal(ipu_queue_submit(q, cmds, 3), 0);
	assert_int_equal(kp_reap(q, 3, NULL, 0), 0);
	assert_int_equal(__ipu_queue_stats(q, &s1), 0);
	assert_int_equal(s1.fixed_xfers - s0.fixed_xfers, 2);
	assert_pattern(b, LEN, 14);
	assert_pattern(other, LEN, 14);
	assert_int_equal(ipu_queue_unregister_buffers(q), 0);
}

static void test_registering_twice_is_ebusy(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_queue *q = kt_queue(dev, 8);
	struct iovec iov = { kt_alloc(LEN), LEN };

	(void)state;
	assert_int_equal(ipu_queue_register_buffers(q, &iov, 1), 0);
	assert_int_equal(ipu_queue_register_buffers(q, &iov, 1), -EBUSY);
	assert_int_equal(ipu_queue_unregister_buffers(q), 0);
	assert_int_equal(ipu_queue_register_buffers(q, &iov, 1), 0);
}

static void test_unregistering_nothing_is_enoent(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_queue *q = kt_queue(dev, 8);

	(void)state;
	assert_int_equal(ipu_queue_unregister_buffers(q), -ENOENT);
}

static void test_registering_an_empty_buffer_is_einval(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_queue *q = kt_queue(dev, 8);
	struct iovec iov[2] = { { kt_alloc(LEN), LEN }, { kt_alloc(LEN), 0 } };

	(void)state;
	assert_int_equal(ipu_queue_register_buffers(q, iov, 2), -EINVAL);
	/* Nothing stayed registered. */
	assert_int_equal(ipu_queue_unregister_buffers(q), -ENOENT);
}

static void test_registering_unmapped_memory_is_efault(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_queue *q = kt_queue(dev, 8);
	struct iovec iov = { kt_no_access(LEN), LEN };

	(void)state;
	assert_int_equal(ipu_queue_register_buffers(q, &iov, 1), -EFAULT);
	assert_int_equal(ipu_queue_unregister_buffers(q), -ENOENT);
}

static void test_a_failure_cancels_the_rest_of_its_chain(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo = bo_of(dev, LEN);
	struct ipu_queue *q = kt_queue(dev, 8);
	uint8_t *gone = kt_no_access(LEN), *b = kt_alloc(LEN);
	struct ipu_completion c[2];
	struct ipu_xfer_desc x;
	struct ipu_cmd cmds[2];
	int k, got = 0;

	(void)state;
	x = xd(bo, 0, gone, LEN, IPU_XFER_DIR_TO_DEVICE);
	ipu_cmd_prep_xfer(&cmds[0], &x, 0);
	cmds[0].flags = IPU_CMD_F_LINK;
	x = xd(bo, 0, b, LEN, IPU_XFER_DIR_FROM_DEVICE);
	ipu_cmd_prep_xfer(&cmds[1], &x, 1);
	assert_int_equal(ipu_queue_submit(q, cmds, 2), 0);
	while (got < 2) {
		k = ipu_queue_reap(q, c + got, 2 - got, 2 - got, KP_REAP_NS);
		assert_true(k > 0);
		got += k;
	}
	for (k = 0; k < 2; k++) {
		if (c[k].user_data == 0) {
			assert_int_equal(c[k].result, -EFAULT);
			assert_non_null(strstr(c[k].msg, KT_HW(0)));
			assert_non_null(strstr(c[k].msg, "not mapped"));
		} else {
			assert_int_equal(c[k].result, -ECANCELED);
			assert_non_null(strstr(c[k].msg, "not run"));
		}
	}
}

/* Submit a launch of junk (the firmware says -ENOEXEC) on @dev to @q. */
static void submit_junk_launch(struct ipu_device *dev, struct ipu_queue *q)
{
	static const uint8_t junk[64];
	struct ipu_launch_desc l = { .exe_bo = bo_of(dev, 4096),
				     .exe_size = sizeof(junk),
				     .arena_bo = bo_of(dev, 4096),
				     .num_replicas = 1 };
	struct ipu_cmd cmd;

	assert_int_equal(ipu_xfer_to_device(l.exe_bo, 0, junk, sizeof(junk)), 0);
	ipu_cmd_prep_launch(&cmd, &l, 5);
	assert_int_equal(ipu_queue_submit(q, &cmd, 1), 0);
}

static void test_a_launch_without_firmware_says_which_daemon_is_missing(void **state)
{
	struct ipu_device *dev;
	struct ipu_queue *q;
	struct ipu_completion c;
	unsigned int idx;
	char name[16];

	(void)state;
	kt_sim_only("a device no userspace firmware serves (-EUNATCH)");
	kt_require_sim_ctl();
	idx = kt_sim_add(1); /* not served: ipu-simd serves ipu0 and ipu1 */
	snprintf(name, sizeof(name), "hw:%u", idx);
	dev = kp_dev_open(name);
	q = kt_queue(dev, 4);
	submit_junk_launch(dev, q);
	assert_int_equal(ipu_queue_reap(q, &c, 1, 1, KP_REAP_NS), 1);
	assert_int_equal(c.result, -EUNATCH);
	assert_non_null(strstr(c.msg, name));
	assert_non_null(strstr(c.msg, "ipu-simd"));
}

static void test_a_reap_that_times_out_returns_what_it_has(void **state)
{
	struct ipu_device *dev;
	struct ipu_queue *q;
	struct ipu_completion c;

	(void)state;
	ks_require_simd();
	dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	q = kt_queue(dev, 4);
	ks_simd_stop();
	submit_junk_launch(dev, q);
	assert_int_equal(ipu_queue_reap(q, &c, 1, 1, 1000000), 0);
	assert_int_equal(ipu_queue_reap(q, &c, 1, 0, 0), 0);
	ks_simd_cont();
	assert_int_equal(ipu_queue_reap(q, &c, 1, 1, KP_REAP_NS), 1);
	assert_int_equal(c.result, -ENOEXEC);
}

/* Submitting thread of the two-thread test. */
struct two {
	struct ipu_queue *q;
	struct ipu_bo *bo;
	uint8_t *buf;
	int err;
	int done;
};

#define TWO_BATCHES 50
#define TWO_PER 4

static void *submitter(void *arg)
{
	struct two *t = arg;
	struct ipu_cmd cmds[TWO_PER];
	struct ipu_xfer_desc x;
	int i, k;

	for (i = 0; i < TWO_BATCHES && !t->err; i++) {
		for (k = 0; k < TWO_PER; k++) {
			x = xd(t->bo, (uint64_t)k * 64, t->buf + k * 64, 64,
			       IPU_XFER_DIR_TO_DEVICE);
			ipu_cmd_prep_xfer(&cmds[k], &x, (uint64_t)(i * TWO_PER + k));
		}
		/* The queue holds only so many: wait for room. */
		while ((t->err = ipu_queue_submit(t->q, cmds, TWO_PER)) == -EBUSY)
			sched_yield();
	}
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_one_thread_submits_while_another_reaps(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct two t = { .q = kt_queue(dev, 16), .bo = bo_of(dev, LEN),
			 .buf = kt_alloc(LEN) };
	struct ipu_completion c[16];
	pthread_t th;
	int got = 0, n, k, done;

	(void)state;
	kt_fill(t.buf, LEN, 15);
	assert_int_equal(pthread_create(&th, NULL, submitter, &t), 0);
	while (got < TWO_BATCHES * TWO_PER) {
		/* Read before reaping: once the submitter was done before
		 * the reap, nothing in flight means nothing more to come. */
		done = __atomic_load_n(&t.done, __ATOMIC_ACQUIRE);
		n = ipu_queue_reap(t.q, c, 16, 1, KP_REAP_NS);
		if (n == -EINVAL && !done) {
			sched_yield(); /* nothing in flight yet */
			continue;
		}
		if (n <= 0)
			break;
		for (k = 0; k < n; k++)
			assert_int_equal(c[k].result, 0);
		got += n;
	}
	pthread_join(th, NULL);
	assert_int_equal(t.err, 0);
	assert_int_equal(got, TWO_BATCHES * TWO_PER);
}

/*
 * io_uring may read a uring command's SQE when it issues it: for a command
 * linked after a launch that is when the launch completes, long after
 * io_uring_submit() returned (seen on 6.12). A queue must not hand that
 * SQE to another command meanwhile. A run's chain (x in, the launch, y
 * out) waits behind a held launch (ipu-simd stopped) while far more
 * transfers than the ring has SQEs come and go; then the run's y must be
 * the model's, and every transfer of the churn must have moved its own
 * bytes.
 */
#define SQE_ENTRIES 8
#define CHURN (8 * SQE_ENTRIES)
#define CHURN_LEN 64

static void test_an_sqe_is_never_reused_while_its_command_is_in_flight(void **state)
{
	static float x[16] = { 1, -2, 3, 0.5f, -1, 2, 0, 1,
			       -3, 1, 2, -0.5f, 1, 1, -1, 0 };
	struct kp_prog *p = kp_mlp(1);
	struct ipu_cmd cmds[3], c;
	struct ipu_completion done;
	struct kp_setup hw, model;
	struct ipu_xfer_desc xd_;
	struct ipu_queue *q;
	struct ipu_bo *churn;
	uint8_t *src, *back;
	float y[8], want[8];
	char msg[512];
	size_t n;
	int i;

	(void)state;
	ks_require_simd();
	kp_open(&model, p, (const char *[]){ "model:0" });
	assert_int_equal(kp_run(&model, (void *[]){ x }, (void *[]){ want }, msg,
				sizeof(msg)), 0);
	kp_open(&hw, p, (const char *[]){ KT_HW(0) });
	q = kt_queue(hw.dev[0], SQE_ENTRIES);
	churn = bo_of(hw.dev[0], CHURN * CHURN_LEN);
	src = kt_alloc(CHURN * CHURN_LEN);
	back = kt_alloc(CHURN * CHURN_LEN);
	kt_fill(src, CHURN * CHURN_LEN, 16);
	for (i = 0; i < 8; i++)
		y[i] = -1.0f / 0.0f;

	ks_simd_stop();
	n = kp_batch(&hw, cmds, (void *[]){ x }, (void *[]){ y });
	assert_int_equal(n, 3);
	assert_int_equal(ipu_queue_submit(q, cmds, n), 0);
	/* x goes in; then the chain waits behind its launch. */
	assert_int_equal(ipu_queue_reap(q, &done, 1, 1, KP_REAP_NS), 1);
	assert_int_equal(done.user_data, 0);
	assert_int_equal(done.result, 0);
	/* One transfer at a time, each reaped before the next. */
	for (i = 0; i < CHURN; i++) {
		xd_ = xd(churn, (uint64_t)i * CHURN_LEN, src + i * CHURN_LEN,
			 CHURN_LEN, IPU_XFER_DIR_TO_DEVICE);
		ipu_cmd_prep_xfer(&c, &xd_, 100 + (uint64_t)i);
		assert_int_equal(ipu_queue_submit(q, &c, 1), 0);
		assert_int_equal(ipu_queue_reap(q, &done, 1, 1, KP_REAP_NS), 1);
		if (done.user_data != 100 + (uint64_t)i || done.result)
			fail_msg("churn transfer %d: completion of %llu, result %d (%s)",
				 i, (unsigned long long)done.user_data,
				 done.result, done.msg);
	}
	ks_simd_cont();
	if (kp_reap(q, n - 1, msg, sizeof(msg)))
		fail_msg("the run: %s", msg);
	for (i = 0; i < 8; i++)
		if (memcmp(&y[i], &want[i], sizeof(float)))
			fail_msg("y[%d] = %g, the model says %g", i, y[i], want[i]);
	assert_int_equal(ipu_xfer_from_device(churn, 0, back,
					      CHURN * CHURN_LEN), 0);
	assert_pattern(back, CHURN * CHURN_LEN, 16);
	kp_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_hw_devices_can_launch),
		KT_TEST(test_a_batch_moves_data_both_ways),
		KT_TEST(test_ipu_xfer_run_of_more_transfers_than_a_queue_holds),
		KT_TEST(test_ipu_xfer_run_stops_at_a_host_fault_and_says_where),
		KT_TEST(test_one_batch_spans_two_device_files),
		KT_TEST(test_transfers_inside_registered_buffers_go_fixed),
		KT_TEST(test_registering_twice_is_ebusy),
		KT_TEST(test_unregistering_nothing_is_enoent),
		KT_TEST(test_registering_an_empty_buffer_is_einval),
		KT_TEST(test_registering_unmapped_memory_is_efault),
		KT_TEST(test_a_failure_cancels_the_rest_of_its_chain),
		KT_TEST(test_a_launch_without_firmware_says_which_daemon_is_missing),
		KS_TEST(test_a_reap_that_times_out_returns_what_it_has),
		KT_TEST(test_one_thread_submits_while_another_reaps),
		KS_TEST(test_an_sqe_is_never_reused_while_its_command_is_in_flight),
	};

	/* kp_group_setup: small model IPUs, for the model's side of a run. */
	return kt_exit_code(cmocka_run_group_tests(tests, kp_group_setup, NULL),
			    KT_ARRAY_SIZE(tests));
}
