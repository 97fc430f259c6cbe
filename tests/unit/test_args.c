// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_args.c - every public function of libipu given NULL pointers or
 * zero sizes: -EINVAL (or the documented harmless value), never a crash,
 * and the backend is never reached.
 */
#include "fake_backend.h"

static void test_null_device_is_refused_everywhere(void **state)
{
	struct ipu_device_info info = { .sz = sizeof(info) };
	struct ipu_xfer_desc d = { 0 };
	struct ipu_bo *bo;

	(void)state;
	assert_int_equal(ipu_device_query(NULL, &info), -EINVAL);
	assert_int_equal(ipu_device_attach(NULL), -EINVAL);
	assert_int_equal(ipu_device_detach(NULL), -EINVAL);
	assert_int_equal(ipu_device_reset(NULL), -EINVAL);
	assert_int_equal(ipu_bo_create(NULL, 4096, 0, &bo), -EINVAL);
	assert_int_equal(ipu_xfer_run(NULL, &d, 1, NULL), -EINVAL);
	assert_string_equal(ipu_device_name(NULL), "");
	ipu_device_close(NULL);
}

static void test_null_bo_is_refused_everywhere(void **state)
{
	struct ipu_bo_props props = { .sz = sizeof(props) };
	uint8_t buf[8];
	void *p;

	(void)state;
	assert_int_equal(ipu_bo_destroy(NULL), -EINVAL);
	assert_int_equal(ipu_bo_query(NULL, &props), -EINVAL);
	assert_int_equal(ipu_bo_map(NULL, &p), -EINVAL);
	assert_int_equal(ipu_bo_unmap(NULL), -EINVAL);
	assert_int_equal(ipu_xfer_to_device(NULL, 0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(ipu_xfer_from_device(NULL, 0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(ipu_bo_size(NULL), 0);
	assert_int_equal(ipu_bo_handle(NULL), 0);
	assert_int_equal(ipu_bo_device_addr(NULL), 0);
}

static void test_null_out_pointers_are_refused(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo;

	(void)state;
	assert_int_equal(ipu_device_open("fake:0", NULL, NULL), -EINVAL);
	assert_int_equal(ipu_device_list_create(NULL), -EINVAL);
	assert_int_equal(ipu_device_query(dev, NULL), -EINVAL);
	assert_int_equal(ipu_bo_create(dev, 4096, 0, NULL), -EINVAL);
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), 0);
	assert_int_equal(ipu_bo_query(bo, NULL), -EINVAL);
	assert_int_equal(ipu_bo_map(bo, NULL), -EINVAL);
	assert_int_equal(ipu_xfer_run(dev, NULL, 1, NULL), -EINVAL);
	assert_int_equal(fake.bo_creates, 1);
	assert_int_equal(fake.queries + fake.bo_queries + fake.maps + fake.xfers, 0);
	ipu_device_close(dev);
}

static void test_zero_sizes_are_refused(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_device_info info = { .sz = 0 };
	struct ipu_bo_props props = { .sz = 0 };
	struct ipu_xfer_desc d;
	struct ipu_bo *bo;
	uint8_t buf[8];

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 0, 0, &bo), -EINVAL);
	assert_int_equal(ipu_device_query(dev, &info), -EINVAL);
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), 0);
	assert_int_equal(ipu_bo_query(bo, &props), -EINVAL);
	assert_int_equal(ipu_xfer_to_device(bo, 0, buf, 0), -EINVAL);
	assert_int_equal(ipu_xfer_from_device(bo, 0, buf, 0), -EINVAL);
	d = (struct ipu_xfer_desc){ .bo = bo, .host = buf, .length = 8,
				    .dir = IPU_XFER_DIR_TO_DEVICE };
	assert_int_equal(ipu_xfer_run(dev, &d, 0, NULL), -EINVAL);
	assert_int_equal(fake.bo_creates + fake.queries + fake.bo_queries +
			 fake.xfers, 1);
	ipu_device_close(dev);
}

static void test_null_host_buffers_are_refused(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), 0);
	assert_int_equal(ipu_xfer_to_device(bo, 0, NULL, 8), -EINVAL);
	assert_int_equal(ipu_xfer_from_device(bo, 0, NULL, 8), -EINVAL);
	assert_int_equal(fake.xfers, 0);
	ipu_device_close(dev);
}

static void test_list_accessors_tolerate_null(void **state)
{
	(void)state;
	assert_int_equal(ipu_device_list_count(NULL), 0);
	assert_null(ipu_device_list_get(NULL, 0));
	ipu_device_list_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_null_device_is_refused_everywhere),
		FAKE_TEST(test_null_bo_is_refused_everywhere),
		FAKE_TEST(test_null_out_pointers_are_refused),
		FAKE_TEST(test_zero_sizes_are_refused),
		FAKE_TEST(test_null_host_buffers_are_refused),
		FAKE_TEST(test_list_accessors_tolerate_null),
	};

	return cmocka_run_group_tests(tests, fake_group_setup, fake_group_teardown);
}
