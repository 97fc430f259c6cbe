// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_bo.c - buffer objects in libipu's front end, through a scripted
 * backend: create (sizes, flags, failures), getters, query, one mapping per
 * buffer, destroy, and what ipu_device_close() cleans up.
 */
#include "fake_backend.h"

static void test_bo_create_fills_the_getters(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo = NULL;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 5000, 0, &bo), 0);
	assert_non_null(bo);
	assert_int_equal(ipu_bo_size(bo), 2 * FAKE_PAGE);
	assert_int_equal(ipu_bo_handle(bo), 1);
	assert_int_equal(ipu_bo_device_addr(bo), 0x100000);
	assert_int_equal(ipu_bo_destroy(bo), 0);
	assert_int_equal(fake.live_bos, 0);
	ipu_device_close(dev);
}

static void test_bo_create_of_zero_bytes_is_einval_before_the_backend(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo = (void *)1;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 0, 0, &bo), -EINVAL);
	assert_null(bo);
	assert_int_equal(fake.bo_creates, 0);
	assert_non_null(strstr(ipu_errmsg(), "0 bytes"));
	ipu_device_close(dev);
}

static void test_bo_create_with_unknown_flags_is_einval(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 4096, 1, &bo), -EINVAL);
	assert_int_equal(ipu_bo_create(dev, 4096, 1u << 31, &bo), -EINVAL);
	assert_int_equal(fake.bo_creates, 0);
	ipu_device_close(dev);
}

static void test_bo_create_failure_leaves_nothing_behind(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo = (void *)1;

	(void)state;
	fake.bo_create_err = -ENOSPC;
	assert_int_equal(ipu_bo_create(dev, 1ull << 40, 0, &bo), -ENOSPC);
	assert_null(bo);
	assert_non_null(strstr(ipu_errmsg(), "1099511627776 bytes"));
	ipu_device_close(dev);
	/* nothing to destroy at close */
	assert_int_equal(fake.bo_destroys, 0);
}

static void test_bo_create_eacces_says_to_attach(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, 0);
	struct ipu_bo *bo;

	(void)state;
	fake.bo_create_err = -EACCES;
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), -EACCES);
	assert_non_null(strstr(ipu_errmsg(), "attach"));
	ipu_device_close(dev);
}

static void test_bo_query_fills_the_callers_struct(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_bo_props props;
	struct ipu_bo *bo;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), 0);
	memset(&props, 0xff, sizeof(props));
	props.sz = sizeof(props);
	assert_int_equal(ipu_bo_query(bo, &props), 0);
	assert_int_equal(props.sz, sizeof(props));
	assert_int_equal(props.handle, ipu_bo_handle(bo));
	assert_int_equal(props.size, ipu_bo_size(bo));
	assert_int_equal(props.device_addr, ipu_bo_device_addr(bo));
	props.sz = sizeof(props) - 1;
	assert_int_equal(ipu_bo_query(bo, &props), -EINVAL);
	assert_int_equal(fake.bo_queries, 1);
	ipu_device_close(dev);
}

static void test_bo_map_maps_once_and_unmap_undoes_it(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo;
	void *a, *b;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), 0);
	assert_int_equal(ipu_bo_map(bo, &a), 0);
	assert_int_equal(ipu_bo_map(bo, &b), 0);
	assert_ptr_equal(a, b);
	assert_int_equal(fake.maps, 1);
	assert_int_equal(ipu_bo_unmap(bo), 0);
	assert_int_equal(fake.unmaps, 1);
	assert_int_equal(ipu_bo_unmap(bo), -EINVAL);
	assert_non_null(strstr(ipu_errmsg(), "not mapped"));
	assert_int_equal(ipu_bo_map(bo, &a), 0);
	assert_int_equal(fake.maps, 2);
	ipu_device_close(dev);
	assert_int_equal(fake.unmaps, 2);
}

static void test_bo_map_failure_is_returned_and_not_cached(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo;
	void *p = (void *)1;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), 0);
	fake.map_err = -ENODEV;
	assert_int_equal(ipu_bo_map(bo, &p), -ENODEV);
	assert_ptr_equal(p, (void *)1);
	fake.map_err = 0;
	assert_int_equal(ipu_bo_map(bo, &p), 0);
	assert_non_null(p);
	ipu_device_close(dev);
}

static void test_bo_map_of_a_backend_without_mmap_is_eopnotsupp(void **state)
{
	static struct ipu_backend_ops nomap;
	struct ipu_device *dev;
	struct ipu_bo *bo;
	void *p;

	(void)state;
	nomap = fake_ops;
	nomap.prefix = "nomap";
	nomap.bo_map = NULL;
	assert_int_equal(__ipu_backend_register(&nomap), 0);
	assert_int_equal(ipu_device_open("nomap:0", NULL, &dev), 0);
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), 0);
	assert_int_equal(ipu_bo_map(bo, &p), -EOPNOTSUPP);
	ipu_device_close(dev);
	assert_int_equal(__ipu_backend_unregister(&nomap), 0);
}

static void test_bo_destroy_unmaps_and_frees_even_when_the_backend_fails(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo;
	void *p;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), 0);
	assert_int_equal(ipu_bo_map(bo, &p), 0);
	fake.bo_destroy_err = -ENODEV;
	assert_int_equal(ipu_bo_destroy(bo), -ENODEV);
	assert_int_equal(fake.unmaps, 1);
	assert_non_null(strstr(ipu_errmsg(), "destroying buffer object 1"));
	ipu_device_close(dev);
	/* it was not destroyed a second time at close */
	assert_int_equal(fake.bo_destroys, 1);
}

static void test_device_close_destroys_what_the_caller_left(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_bo *bo[5];
	void *p;
	int i;

	(void)state;
	for (i = 0; i < 5; i++)
		assert_int_equal(ipu_bo_create(dev, 4096 * (i + 1), 0, &bo[i]), 0);
	assert_int_equal(ipu_bo_map(bo[1], &p), 0);
	assert_int_equal(ipu_bo_map(bo[3], &p), 0);
	assert_int_equal(ipu_bo_destroy(bo[2]), 0);
	ipu_device_close(dev);
	assert_int_equal(fake.bo_destroys, 5);
	assert_int_equal(fake.unmaps, 2);
	assert_int_equal(fake.live_bos, 0);
	assert_int_equal(fake.closes, 1);
}

static void test_buffers_of_two_devices_are_kept_apart(void **state)
{
	struct ipu_device *a = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_device *b = fake_open_dev(1, IPU_OPEN_ATTACH);
	struct ipu_bo *ba, *bb;

	(void)state;
	assert_int_equal(ipu_bo_create(a, 4096, 0, &ba), 0);
	assert_int_equal(ipu_bo_create(b, 4096, 0, &bb), 0);
	ipu_device_close(a);
	assert_int_equal(fake.bo_destroys, 1);
	assert_int_equal(ipu_bo_size(bb), 4096);
	ipu_device_close(b);
	assert_int_equal(fake.bo_destroys, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_bo_create_fills_the_getters),
		FAKE_TEST(test_bo_create_of_zero_bytes_is_einval_before_the_backend),
		FAKE_TEST(test_bo_create_with_unknown_flags_is_einval),
		FAKE_TEST(test_bo_create_failure_leaves_nothing_behind),
		FAKE_TEST(test_bo_create_eacces_says_to_attach),
		FAKE_TEST(test_bo_query_fills_the_callers_struct),
		FAKE_TEST(test_bo_map_maps_once_and_unmap_undoes_it),
		FAKE_TEST(test_bo_map_failure_is_returned_and_not_cached),
		FAKE_TEST(test_bo_map_of_a_backend_without_mmap_is_eopnotsupp),
		FAKE_TEST(test_bo_destroy_unmaps_and_frees_even_when_the_backend_fails),
		FAKE_TEST(test_device_close_destroys_what_the_caller_left),
		FAKE_TEST(test_buffers_of_two_devices_are_kept_apart),
	};

	return cmocka_run_group_tests(tests, fake_group_setup, fake_group_teardown);
}
