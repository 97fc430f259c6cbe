// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_xfer.c - transfers in libipu's front end, through a scripted
 * backend: every descriptor is checked before anything moves, batches run
 * in order and stop at the first failure, and *done says how far they got.
 */
#include "fake_backend.h"

struct fixture {
	struct ipu_device *dev;
	struct ipu_bo *bo;
	uint8_t buf[2 * FAKE_PAGE];
};

static int setup(void **state)
{
	struct fixture *f;

	fake_setup(NULL);
	f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	if (ipu_device_open("fake:0", NULL, &f->dev) ||
	    ipu_bo_create(f->dev, 2 * FAKE_PAGE, 0, &f->bo)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ipu_device_close(f->dev);
	free(f);
	return 0;
}

static struct ipu_xfer_desc desc(struct fixture *f, uint64_t off, uint64_t len,
				 uint32_t dir)
{
	struct ipu_xfer_desc d = {
		.bo = f->bo, .bo_offset = off, .host = f->buf, .length = len,
		.dir = dir,
	};

	return d;
}

/* The descriptor must be refused with -EINVAL, nothing reaching the backend. */
static void assert_refused(struct fixture *f, const struct ipu_xfer_desc *d,
			   const char *msg_part)
{
	size_t done = 99;

	assert_int_equal(ipu_xfer_run(f->dev, d, 1, &done), -EINVAL);
	assert_int_equal(done, 0);
	assert_int_equal(fake.xfers, 0);
	if (msg_part && !strstr(ipu_errmsg(), msg_part))
		fail_msg("message \"%s\" lacks \"%s\"", ipu_errmsg(), msg_part);
}

static void test_round_trip_through_the_backend(void **state)
{
	struct fixture *f = *state;
	uint8_t out[100], back[100];
	size_t i;

	for (i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(ipu_xfer_to_device(f->bo, 4000, out, sizeof(out)), 0);
	assert_int_equal(ipu_xfer_from_device(f->bo, 4000, back, sizeof(back)), 0);
	assert_memory_equal(out, back, sizeof(out));
	assert_int_equal(fake.xfers, 2);
}

static void test_whole_buffer_and_last_byte_are_in_range(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(ipu_xfer_to_device(f->bo, 0, f->buf, 2 * FAKE_PAGE), 0);
	assert_int_equal(ipu_xfer_to_device(f->bo, 2 * FAKE_PAGE - 1, f->buf, 1), 0);
}

static void test_zero_length_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_xfer_desc d = desc(f, 0, 0, IPU_XFER_DIR_TO_DEVICE);

	assert_refused(f, &d, "length 0");
}

static void test_range_past_the_end_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_xfer_desc d = desc(f, 1, 2 * FAKE_PAGE, IPU_XFER_DIR_TO_DEVICE);

	assert_refused(f, &d, "pass the end");
}

static void test_offset_past_the_end_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_xfer_desc d = desc(f, 2 * FAKE_PAGE, 1, IPU_XFER_DIR_FROM_DEVICE);

	assert_refused(f, &d, "pass the end");
}

static void test_offset_plus_length_overflow_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_xfer_desc d = desc(f, UINT64_MAX - 9, 20, IPU_XFER_DIR_TO_DEVICE);

	assert_refused(f, &d, "pass the end");
}

static void test_unknown_direction_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_xfer_desc d = desc(f, 0, 16, 0);

	assert_refused(f, &d, "direction");
	d.dir = IPU_XFER_DIR_TO_DEVICE | IPU_XFER_DIR_FROM_DEVICE;
	assert_refused(f, &d, "direction");
}

static void test_unknown_flags_are_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_xfer_desc d = desc(f, 0, 16, IPU_XFER_DIR_TO_DEVICE);

	d.flags = 1;
	assert_refused(f, &d, "flags");
}

static void test_null_host_buffer_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_xfer_desc d = desc(f, 0, 16, IPU_XFER_DIR_TO_DEVICE);

	d.host = NULL;
	assert_refused(f, &d, "host");
}

static void test_null_bo_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_xfer_desc d = desc(f, 0, 16, IPU_XFER_DIR_TO_DEVICE);

	d.bo = NULL;
	assert_refused(f, &d, "bo");
	assert_int_equal(ipu_xfer_to_device(NULL, 0, f->buf, 16), -EINVAL);
	assert_int_equal(ipu_xfer_from_device(NULL, 0, f->buf, 16), -EINVAL);
}

static void test_bo_of_another_device_is_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_device *other;
	struct ipu_bo *theirs;
	struct ipu_xfer_desc d = desc(f, 0, 16, IPU_XFER_DIR_TO_DEVICE);

	assert_int_equal(ipu_device_open("fake:1", NULL, &other), 0);
	assert_int_equal(ipu_bo_create(other, 4096, 0, &theirs), 0);
	d.bo = theirs;
	assert_refused(f, &d, "fake:1");
	ipu_device_close(other);
}

static void test_empty_batch_and_null_arguments_are_einval(void **state)
{
	struct fixture *f = *state;
	struct ipu_xfer_desc d = desc(f, 0, 16, IPU_XFER_DIR_TO_DEVICE);
	size_t done = 99;

	assert_int_equal(ipu_xfer_run(f->dev, &d, 0, &done), -EINVAL);
	assert_int_equal(done, 0);
	assert_int_equal(ipu_xfer_run(f->dev, NULL, 1, &done), -EINVAL);
	assert_int_equal(ipu_xfer_run(NULL, &d, 1, &done), -EINVAL);
	assert_int_equal(ipu_xfer_run(f->dev, &d, 1, NULL), 0);
	assert_int_equal(fake.xfers, 1);
}

static void test_a_bad_descriptor_anywhere_stops_the_whole_batch(void **state)
{
	struct fixture *f = *state;
	struct ipu_xfer_desc d[4];
	size_t done = 99;
	int i;

	for (i = 0; i < 4; i++)
		d[i] = desc(f, 64 * i, 64, IPU_XFER_DIR_TO_DEVICE);
	d[3].length = 0;
	assert_int_equal(ipu_xfer_run(f->dev, d, 4, &done), -EINVAL);
	assert_int_equal(done, 0);
	assert_int_equal(fake.xfers, 0);
	assert_non_null(strstr(ipu_errmsg(), "transfer 3"));
}

static void test_batch_stops_at_the_first_failure(void **state)
{
	struct fixture *f = *state;
	struct ipu_xfer_desc d[4];
	size_t done = 99;
	int i;

	for (i = 0; i < 4; i++)
		d[i] = desc(f, 64 * i, 64, IPU_XFER_DIR_FROM_DEVICE);
	fake.xfer_err = -EIO;
	fake.xfer_fail_at = 3;
	assert_int_equal(ipu_xfer_run(f->dev, d, 4, &done), -EIO);
	assert_int_equal(done, 2);
	assert_int_equal(fake.xfers, 3);
	assert_non_null(strstr(ipu_errmsg(), "transfer 2"));
	assert_non_null(strstr(ipu_errmsg(), "from device"));
}

static void test_eacces_says_to_attach(void **state)
{
	struct fixture *f = *state;

	fake.xfer_err = -EACCES;
	assert_int_equal(ipu_xfer_to_device(f->bo, 0, f->buf, 8), -EACCES);
	assert_non_null(strstr(ipu_errmsg(), "attach"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_round_trip_through_the_backend),
		T(test_whole_buffer_and_last_byte_are_in_range),
		T(test_zero_length_is_einval),
		T(test_range_past_the_end_is_einval),
		T(test_offset_past_the_end_is_einval),
		T(test_offset_plus_length_overflow_is_einval),
		T(test_unknown_direction_is_einval),
		T(test_unknown_flags_are_einval),
		T(test_null_host_buffer_is_einval),
		T(test_null_bo_is_einval),
		T(test_bo_of_another_device_is_einval),
		T(test_empty_batch_and_null_arguments_are_einval),
		T(test_a_bad_descriptor_anywhere_stops_the_whole_batch),
		T(test_batch_stops_at_the_first_failure),
		T(test_eacces_says_to_attach),
#undef T
	};

	return cmocka_run_group_tests(tests, fake_group_setup, fake_group_teardown);
}
