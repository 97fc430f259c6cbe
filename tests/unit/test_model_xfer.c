// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_model_xfer.c - transfers on the model: both directions at odd
 * offsets and lengths, synchronous and queued, one queue for several
 * devices, and the rule that only the attached handle transfers.
 */
#include "model_helpers.h"

#define BO_SIZE (3 * 4096)

struct fixture {
	struct ipu_device *dev;
	struct ipu_bo *bo;
	uint8_t *ref;	/* what the BO should hold */
	uint8_t *buf;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	size_t i;

	if (!f)
		return -1;
	f->dev = mh_open(0, true);
	f->bo = mh_bo(f->dev, BO_SIZE);
	f->ref = calloc(1, BO_SIZE);
	f->buf = calloc(1, BO_SIZE);
	for (i = 0; i < BO_SIZE; i++)
		f->buf[i] = (uint8_t)(i * 7 + 3);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ipu_device_close(f->dev);
	free(f->ref);
	free(f->buf);
	free(f);
	return 0;
}

/* Check the whole BO against f->ref. */
static void check_bo(struct fixture *f)
{
	uint8_t *all = malloc(BO_SIZE);

	assert_int_equal(ipu_xfer_from_device(f->bo, 0, all, BO_SIZE), 0);
	assert_memory_equal(all, f->ref, BO_SIZE);
	free(all);
}

static void test_odd_offsets_and_lengths_round_trip(void **state)
{
	static const uint64_t offs[] = { 0, 1, 3, 4095, 4097, BO_SIZE - 1 };
	static const uint64_t lens[] = { 1, 2, 7, 4096, 5000 };
	struct fixture *f = *state;
	uint8_t out[5000];
	size_t i, j;

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			uint64_t off = offs[i], len = lens[j];

			if (off + len > BO_SIZE)
				continue;
			/* an odd host address as well */
			assert_int_equal(ipu_xfer_to_device(f->bo, off, f->buf + i + j, len), 0);
			memcpy(f->ref + off, f->buf + i + j, len);
			assert_int_equal(ipu_xfer_from_device(f->bo, off, out + 1, len - 1 ? len - 1 : 1), 0);
			assert_memory_equal(out + 1, f->ref + off, len - 1 ? len - 1 : 1);
		}
	}
	check_bo(f);
}

static void test_queued_transfers_both_ways(void **state)
{
	struct fixture *f = *state;
	struct ipu_queue *q = mh_queue(f->dev, 0);
	struct ipu_completion c[4];
	struct ipu_cmd cmds[4];
	struct ipu_xfer_desc x;
	uint8_t out1[333], out2[4099];
	int i;

	x = mh_xfer(f->bo, 5, f->buf, 333, IPU_XFER_DIR_TO_DEVICE);
	ipu_cmd_prep_xfer(&cmds[0], &x, 10);
	x = mh_xfer(f->bo, 4093, f->buf + 1000, 4099, IPU_XFER_DIR_TO_DEVICE);
	ipu_cmd_prep_xfer(&cmds[1], &x, 11);
	/* in order after the ones above: the model runs a queue in order */
	x = mh_xfer(f->bo, 5, out1, 333, IPU_XFER_DIR_FROM_DEVICE);
	ipu_cmd_prep_xfer(&cmds[2], &x, 12);
	x = mh_xfer(f->bo, 4093, out2, 4099, IPU_XFER_DIR_FROM_DEVICE);
	ipu_cmd_prep_xfer(&cmds[3], &x, 13);
	for (i = 0; i < 3; i++)
		cmds[i].flags = IPU_CMD_F_LINK;
	assert_int_equal(ipu_queue_submit(q, cmds, 4), 0);
	mh_reap(q, c, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(c[i].result, 0);
		assert_string_equal(c[i].msg, "");
		assert_int_equal(c[i].op, IPU_CMD_XFER);
	}
	assert_memory_equal(out1, f->buf, 333);
	assert_memory_equal(out2, f->buf + 1000, 4099);
	memcpy(f->ref + 5, f->buf, 333);
	memcpy(f->ref + 4093, f->buf + 1000, 4099);
	check_bo(f);
	ipu_queue_destroy(q);
}

static void test_one_queue_carries_several_devices(void **state)
{
	struct fixture *f = *state;
	struct ipu_device *d1 = mh_open(1, true);
	struct ipu_bo *b1 = mh_bo(d1, 4096);
	struct ipu_queue *q = mh_queue(f->dev, 0);
	struct ipu_completion c[2];
	struct ipu_cmd cmds[2];
	struct ipu_xfer_desc x;
	uint8_t out[100];

	x = mh_xfer(b1, 17, f->buf, 100, IPU_XFER_DIR_TO_DEVICE);
	ipu_cmd_prep_xfer(&cmds[0], &x, 1);
	cmds[0].flags = IPU_CMD_F_LINK;
	x = mh_xfer(f->bo, 0, f->buf + 1, 100, IPU_XFER_DIR_TO_DEVICE);
	ipu_cmd_prep_xfer(&cmds[1], &x, 2);
	assert_int_equal(ipu_queue_submit(q, cmds, 2), 0);
	mh_reap(q, c, 2);
	assert_int_equal(c[0].result | c[1].result, 0);
	assert_int_equal(ipu_xfer_from_device(b1, 17, out, 100), 0);
	assert_memory_equal(out, f->buf, 100);
	memcpy(f->ref, f->buf + 1, 100);
	check_bo(f);
	ipu_queue_destroy(q);
	ipu_device_close(d1);
}

static void test_transfer_by_a_detached_handle_is_eacces(void **state)
{
	struct fixture *f = *state;
	struct ipu_queue *q = mh_queue(f->dev, 0);
	struct ipu_completion c;
	struct ipu_cmd cmd;
	struct ipu_xfer_desc x = mh_xfer(f->bo, 0, f->buf, 8,
					 IPU_XFER_DIR_TO_DEVICE);
	size_t done = 9;

	assert_int_equal(ipu_device_detach(f->dev), 0);
	assert_int_equal(ipu_xfer_run(f->dev, &x, 1, &done), -EACCES);
	assert_int_equal(done, 0);
	assert_non_null(strstr(ipu_errmsg(), "attach"));
	ipu_cmd_prep_xfer(&cmd, &x, 5);
	assert_int_equal(ipu_queue_submit(q, &cmd, 1), 0);
	mh_reap(q, &c, 1);
	assert_int_equal(c.result, -EACCES);
	assert_non_null(strstr(c.msg, "model:0"));
	assert_non_null(strstr(c.msg, "attach"));
	assert_int_equal(ipu_device_attach(f->dev), 0);
	check_bo(f); /* nothing written */
	ipu_queue_destroy(q);
}

static void test_transfer_by_a_handle_another_one_attached_is_eacces(void **state)
{
	struct fixture *f = *state;
	struct ipu_device *other;

	assert_int_equal(ipu_device_detach(f->dev), 0);
	other = mh_open(0, true);
	assert_int_equal(ipu_xfer_to_device(f->bo, 0, f->buf, 8), -EACCES);
	ipu_device_close(other);
}

/*
 * A batch of small transfers runs in the submitter's thread when the
 * queue is idle (backend_model_queue.c): a failure there cancels the rest
 * of its chain and no other chain, as on the engine; and a batch behind
 * one the engine still holds waits its turn.
 */
static void test_a_failure_cancels_its_chain_alone(void **state)
{
	struct fixture *f = *state;
	struct ipu_device *d1 = mh_open(1, true);
	struct ipu_bo *b1 = mh_bo(d1, 4096);
	struct ipu_queue *q = mh_queue(f->dev, 0);
	struct ipu_completion c[4];
	struct ipu_cmd cmds[4];
	struct ipu_xfer_desc x[4];
	int i;

	assert_int_equal(ipu_device_detach(d1), 0);
	x[0] = mh_xfer(b1, 0, f->buf, 64, IPU_XFER_DIR_TO_DEVICE);
	x[1] = mh_xfer(f->bo, 0, f->buf, 64, IPU_XFER_DIR_TO_DEVICE);
	x[2] = mh_xfer(f->bo, 64, f->buf, 64, IPU_XFER_DIR_TO_DEVICE);
	x[3] = mh_xfer(f->bo, 128, f->buf + 1, 64, IPU_XFER_DIR_TO_DEVICE);
	for (i = 0; i < 4; i++)
		ipu_cmd_prep_xfer(&cmds[i], &x[i], 20 + i);
	/* chains: [0 -> 1 -> 2] [3] */
	cmds[0].flags = cmds[1].flags = IPU_CMD_F_LINK;
	assert_int_equal(ipu_queue_submit(q, cmds, 4), 0);
	mh_reap(q, c, 4);
	assert_int_equal(mh_find(c, 4, 20)->result, -EACCES);
	assert_int_equal(mh_find(c, 4, 21)->result, -ECANCELED);
	assert_int_equal(mh_find(c, 4, 22)->result, -ECANCELED);
	assert_int_equal(mh_find(c, 4, 23)->result, 0);
	memcpy(f->ref + 128, f->buf + 1, 64);
	check_bo(f); /* only the last one wrote */
	ipu_queue_destroy(q);
	ipu_device_close(d1);
}

static void test_a_small_transfer_waits_behind_a_large_one(void **state)
{
	const size_t big = 4u << 20; /* past what runs in the submitter's */
	struct fixture *f = *state;
	struct ipu_bo *bo = mh_bo(f->dev, big);
	struct ipu_queue *q = mh_queue(f->dev, 0);
	uint8_t *in = malloc(big), out[64];
	struct ipu_completion c[2];
	struct ipu_cmd cmds[2];
	struct ipu_xfer_desc x[2];
	size_t i;
	int round;

	assert_non_null(in);
	for (round = 0; round < 20; round++) {
		for (i = 0; i < big; i++)
			in[i] = (uint8_t)(i * 13 + (size_t)round);
		x[0] = mh_xfer(bo, 0, in, big, IPU_XFER_DIR_TO_DEVICE);
		x[1] = mh_xfer(bo, big - 64, out, 64, IPU_XFER_DIR_FROM_DEVICE);
		ipu_cmd_prep_xfer(&cmds[0], &x[0], 30);
		ipu_cmd_prep_xfer(&cmds[1], &x[1], 31);
		/* Two batches: the second must not overtake the first. */
		assert_int_equal(ipu_queue_submit(q, &cmds[0], 1), 0);
		assert_int_equal(ipu_queue_submit(q, &cmds[1], 1), 0);
		mh_reap(q, c, 2);
		assert_int_equal(c[0].user_data, 30);
		assert_int_equal(c[0].result | c[1].result, 0);
		assert_memory_equal(out, in + big - 64, 64);
	}
	free(in);
	ipu_queue_destroy(q);
	ipu_bo_destroy(bo);
}

static void test_xfer_run_stops_at_the_first_failure(void **state)
{
	struct fixture *f = *state;
	struct ipu_device *d1 = mh_open(1, true);
	struct ipu_bo *b1 = mh_bo(d1, 4096);
	struct ipu_xfer_desc x[3];
	size_t done = 9;

	x[0] = mh_xfer(b1, 0, f->buf, 8, IPU_XFER_DIR_TO_DEVICE);
	x[1] = mh_xfer(b1, 8, f->buf, 8, IPU_XFER_DIR_TO_DEVICE);
	x[2] = mh_xfer(b1, 16, f->buf, 8, IPU_XFER_DIR_TO_DEVICE);
	assert_int_equal(ipu_xfer_run(d1, x, 3, &done), 0);
	assert_int_equal(done, 3);
	assert_int_equal(ipu_device_detach(d1), 0);
	assert_int_equal(ipu_xfer_run(d1, x, 3, &done), -EACCES);
	assert_int_equal(done, 0);
	assert_non_null(strstr(ipu_errmsg(), "transfer 0"));
	ipu_device_close(d1);
}

static void test_xfer_run_longer_than_the_sync_queue(void **state)
{
	struct fixture *f = *state;
	size_t n = 3 * IPU_QUEUE_DEFAULT_ENTRIES + 5, i, done = 0;
	struct ipu_xfer_desc *x = calloc(n, sizeof(*x));

	for (i = 0; i < n; i++)
		x[i] = mh_xfer(f->bo, i % BO_SIZE, f->buf + i % 100, 1,
			       IPU_XFER_DIR_TO_DEVICE);
	assert_int_equal(ipu_xfer_run(f->dev, x, n, &done), 0);
	assert_int_equal(done, n);
	for (i = 0; i < n; i++)
		f->ref[i % BO_SIZE] = f->buf[i % 100];
	check_bo(f);
	free(x);
}

static void test_large_transfer_round_trips(void **state)
{
	struct fixture *f = *state;
	size_t size = 8u << 20, i;
	struct ipu_bo *big = mh_bo(f->dev, size);
	uint32_t *in = malloc(size), *out = malloc(size);

	for (i = 0; i < size / 4; i++)
		in[i] = (uint32_t)(i * 2654435761u);
	assert_int_equal(ipu_xfer_to_device(big, 0, in, size), 0);
	assert_int_equal(ipu_xfer_from_device(big, 0, out, size), 0);
	assert_memory_equal(in, out, size);
	free(in);
	free(out);
}

/*
 * Fault "corrupt": the next transfer succeeds with its first and last
 * bytes inverted (silent, as ipu-emu's corrupt_dma), either way; the one
 * after it is intact.
 */
static void test_corrupt_fault_inverts_first_and_last_byte_silently(void **state)
{
	struct fixture *f = *state;
	uint8_t out[100];
	size_t i;

	assert_int_equal(__ipu_model_faults_set("corrupt:1"), 0);
	assert_int_equal(ipu_xfer_to_device(f->bo, 0, f->buf, 100), 0);
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
	assert_int_equal(ipu_xfer_from_device(f->bo, 0, out, 100), 0);
	assert_int_equal(out[0], (uint8_t)~f->buf[0]);
	assert_int_equal(out[99], (uint8_t)~f->buf[99]);
	assert_memory_equal(out + 1, f->buf + 1, 98);

	/* From the device: the host's copy is wrong, the device's right. */
	assert_int_equal(ipu_xfer_to_device(f->bo, 0, f->buf, 100), 0);
	assert_int_equal(__ipu_model_faults_set("corrupt:1"), 0);
	assert_int_equal(ipu_xfer_from_device(f->bo, 0, out, 100), 0);
	assert_int_equal(out[0], (uint8_t)~f->buf[0]);
	for (i = 1; i < 99; i++)
		assert_int_equal(out[i], f->buf[i]);
	assert_int_equal(ipu_xfer_from_device(f->bo, 0, out, 100), 0);
	assert_memory_equal(out, f->buf, 100);

	/* A single byte is wrong too (inverted once, not twice). */
	assert_int_equal(__ipu_model_faults_set("corrupt:1"), 0);
	assert_int_equal(ipu_xfer_to_device(f->bo, 0, f->buf, 1), 0);
	assert_int_equal(ipu_xfer_from_device(f->bo, 0, out, 1), 0);
	assert_int_equal(out[0], (uint8_t)~f->buf[0]);
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_odd_offsets_and_lengths_round_trip),
		T(test_queued_transfers_both_ways),
		T(test_one_queue_carries_several_devices),
		T(test_transfer_by_a_detached_handle_is_eacces),
		T(test_transfer_by_a_handle_another_one_attached_is_eacces),
		T(test_a_failure_cancels_its_chain_alone),
		T(test_a_small_transfer_waits_behind_a_large_one),
		T(test_xfer_run_stops_at_the_first_failure),
		T(test_xfer_run_longer_than_the_sync_queue),
		T(test_large_transfer_round_trips),
		T(test_corrupt_fault_inverts_first_and_last_byte_silently),
#undef T
	};

	return cmocka_run_group_tests(tests, mh_group_setup, mh_group_teardown);
}
