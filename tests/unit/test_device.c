// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_device.c - the device calls of libipu's front end, driven through a
 * scripted backend: open/close, query and its extensible struct, attach,
 * detach, reset, "auto" selection, the backend registry.
 */
#include "fake_backend.h"

static void test_open_and_close_call_the_backend_once(void **state)
{
	struct ipu_device *dev = fake_open_dev(1, 0);

	(void)state;
	assert_string_equal(ipu_device_name(dev), "fake:1");
	assert_int_equal(fake.opens, 1);
	ipu_device_close(dev);
	assert_int_equal(fake.closes, 1);
}

static void test_open_failure_of_the_backend_is_returned(void **state)
{
	struct ipu_device *dev = (void *)1;

	(void)state;
	fake.open_err[0] = -EACCES;
	assert_int_equal(ipu_device_open("fake:0", NULL, &dev), -EACCES);
	assert_null(dev);
	assert_int_equal(fake.closes, 0);
	assert_non_null(strstr(ipu_errmsg(), "fake:0"));
}

static void test_open_with_attach_attaches(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);

	(void)state;
	assert_int_equal(fake.attaches, 1);
	ipu_device_close(dev);
}

static void test_open_with_attach_closes_again_when_attach_fails(void **state)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	struct ipu_device *dev = (void *)1;

	(void)state;
	fake.attach_err[0] = -EBUSY;
	assert_int_equal(ipu_device_open("fake:0", &opts, &dev), -EBUSY);
	assert_null(dev);
	assert_int_equal(fake.opens, 1);
	assert_int_equal(fake.closes, 1);
}

static void test_query_fills_the_callers_struct(void **state)
{
	struct ipu_device *dev = fake_open_dev(1, 0);
	struct ipu_device_info info;

	(void)state;
	memset(&info, 0xff, sizeof(info));
	info.sz = sizeof(info);
	assert_int_equal(ipu_device_query(dev, &info), 0);
	assert_int_equal(info.sz, sizeof(info));
	assert_int_equal(info.platform, IPU_DEVICE_PLATFORM_MODEL);
	assert_int_equal(info.memory_total, 1u << 20);
	assert_int_equal(info.memory_used, 0);
	assert_int_equal(info.mem_page_size, FAKE_PAGE);
	assert_int_equal(info.serial, 0x1235);
	assert_int_equal(info.owner_pid, 0);
	assert_int_equal(info.pci_bdf, 0);
	ipu_device_close(dev);
}

struct bigger_info {
	struct ipu_device_info v1;
	uint64_t future[2];
};

static void test_query_zeroes_what_a_newer_caller_asks_beyond(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, 0);
	struct bigger_info big;

	(void)state;
	memset(&big, 0xff, sizeof(big));
	big.v1.sz = sizeof(big);
	assert_int_equal(ipu_device_query(dev, &big.v1), 0);
	assert_int_equal(big.v1.sz, sizeof(big));
	assert_int_equal(big.v1.memory_total, 1u << 20);
	assert_int_equal(big.future[0], 0);
	assert_int_equal(big.future[1], 0);
	ipu_device_close(dev);
}

static void test_query_with_too_small_struct_is_einval(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, 0);
	struct ipu_device_info info = { .sz = sizeof(info) - 1 };

	(void)state;
	assert_int_equal(ipu_device_query(dev, &info), -EINVAL);
	info.sz = 0;
	assert_int_equal(ipu_device_query(dev, &info), -EINVAL);
	assert_int_equal(fake.queries, 0);
	ipu_device_close(dev);
}

static void test_query_failure_of_the_backend_is_returned(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, 0);
	struct ipu_device_info info = { .sz = sizeof(info) };

	(void)state;
	fake.query_err = -ENODEV;
	assert_int_equal(ipu_device_query(dev, &info), -ENODEV);
	assert_non_null(strstr(ipu_errmsg(), "fake:0"));
	ipu_device_close(dev);
}

static void test_attach_detach_reset_return_the_backends_answer(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, 0);

	(void)state;
	assert_int_equal(ipu_device_attach(dev), 0);
	fake.attach_err[0] = -EALREADY;
	assert_int_equal(ipu_device_attach(dev), -EALREADY);
	assert_int_equal(ipu_device_detach(dev), 0);
	fake.detach_err = -EACCES;
	assert_int_equal(ipu_device_detach(dev), -EACCES);
	assert_non_null(strstr(ipu_errmsg(), "detach"));
	assert_int_equal(ipu_device_reset(dev), 0);
	fake.reset_err = -EIO;
	assert_int_equal(ipu_device_reset(dev), -EIO);
	assert_non_null(strstr(ipu_errmsg(), "reset"));
	assert_int_equal(fake.attaches, 2);
	assert_int_equal(fake.detaches, 2);
	assert_int_equal(fake.resets, 2);
	ipu_device_close(dev);
}

static void test_ebusy_message_says_who_to_look_for(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, 0);

	(void)state;
	fake.attach_err[0] = -EBUSY;
	assert_int_equal(ipu_device_attach(dev), -EBUSY);
	assert_non_null(strstr(ipu_errmsg(), "owner_pid"));
	ipu_device_close(dev);
}

static void test_auto_opens_the_first_listed_device(void **state)
{
	struct ipu_device *dev = NULL;

	(void)state;
	unsetenv("IPU_DEVICE");
	fake.listed = 1;
	assert_int_equal(ipu_device_open("auto", NULL, &dev), 0);
	assert_string_equal(ipu_device_name(dev), "fake:0");
	ipu_device_close(dev);
}

static void test_auto_with_attach_skips_busy_devices(void **state)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	struct ipu_device *dev = NULL;

	(void)state;
	unsetenv("IPU_DEVICE");
	fake.listed = 1;
	fake.attach_err[0] = -EBUSY;
	assert_int_equal(ipu_device_open(NULL, &opts, &dev), 0);
	assert_string_equal(ipu_device_name(dev), "fake:1");
	/* fake:0 was opened, refused, and closed again */
	assert_int_equal(fake.opens, 2);
	assert_int_equal(fake.closes, 1);
	ipu_device_close(dev);
}

static void test_auto_with_all_devices_of_a_backend_busy_is_ebusy(void **state)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	struct ipu_device *dev = (void *)1;

	(void)state;
	setenv("IPU_DEVICE", "fake", 1);
	fake.listed = 1;
	fake.attach_err[0] = -EBUSY;
	fake.attach_err[1] = -EBUSY;
	assert_int_equal(ipu_device_open("auto", &opts, &dev), -EBUSY);
	unsetenv("IPU_DEVICE");
	assert_null(dev);
	assert_non_null(strstr(ipu_errmsg(), "attached"));
	assert_int_equal(fake.opens, fake.closes);
}

static void test_auto_with_all_devices_busy_falls_back_to_the_model(void **state)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	struct ipu_device *dev = NULL;

	(void)state;
	unsetenv("IPU_DEVICE");
	fake.listed = 1;
	fake.attach_err[0] = -EBUSY;
	fake.attach_err[1] = -EBUSY;
	assert_int_equal(ipu_device_open("auto", &opts, &dev), 0);
	assert_string_equal(ipu_device_name(dev), "model:0");
	assert_int_equal(fake.opens, fake.closes);
	ipu_device_close(dev);
}

static void test_enumeration_error_of_a_backend_fails_the_list(void **state)
{
	struct ipu_device_list *list = (void *)1;

	(void)state;
	fake.listed = 1;
	fake.enumerate_err = -EIO;
	assert_int_equal(ipu_device_list_create(&list), -EIO);
	assert_null(list);
	assert_non_null(strstr(ipu_errmsg(), "fake"));
}

static void test_enumeration_includes_every_backend(void **state)
{
	struct ipu_device_list *list;

	(void)state;
	fake.listed = 1;
	assert_int_equal(ipu_device_list_create(&list), 0);
	assert_int_equal(ipu_device_list_count(list), FAKE_DEVICES);
	assert_string_equal(ipu_device_list_get(list, 1)->name, "fake:1");
	assert_string_equal(ipu_device_list_get(list, 1)->node, "");
	assert_int_equal(ipu_device_list_get(list, 1)->platform,
			 IPU_DEVICE_PLATFORM_MODEL);
	ipu_device_list_free(list);
}

static const struct ipu_backend_ops other_ops = {
	.prefix = "other",
	.open = fake_open,
};

static void test_backend_registry_refuses_bad_registrations(void **state)
{
	static const struct ipu_backend_ops dup = { .prefix = "hw", .open = fake_open };
	static const struct ipu_backend_ops noprefix = { .open = fake_open };
	static const struct ipu_backend_ops noopen = { .prefix = "x" };
	static const struct ipu_backend_ops many[4] = {
		{ .prefix = "m0", .open = fake_open },
		{ .prefix = "m1", .open = fake_open },
		{ .prefix = "m2", .open = fake_open },
		{ .prefix = "m3", .open = fake_open },
	};
	int i, err = 0;

	(void)state;
	assert_int_equal(__ipu_backend_register(NULL), -EINVAL);
	assert_int_equal(__ipu_backend_register(&noprefix), -EINVAL);
	assert_int_equal(__ipu_backend_register(&noopen), -EINVAL);
	assert_int_equal(__ipu_backend_register(&dup), -EEXIST);
	assert_int_equal(__ipu_backend_register(&fake_ops), -EEXIST);
	assert_int_equal(__ipu_backend_unregister(&other_ops), -ENOENT);
	for (i = 0; i < 4 && !err; i++)
		err = __ipu_backend_register(&many[i]);
	assert_int_equal(err, -ENOSPC);
	for (i = 0; i < 4; i++)
		__ipu_backend_unregister(&many[i]);
	assert_int_equal(__ipu_backend_register(&other_ops), 0);
	assert_int_equal(__ipu_backend_unregister(&other_ops), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_open_and_close_call_the_backend_once),
		FAKE_TEST(test_open_failure_of_the_backend_is_returned),
		FAKE_TEST(test_open_with_attach_attaches),
		FAKE_TEST(test_open_with_attach_closes_again_when_attach_fails),
		FAKE_TEST(test_query_fills_the_callers_struct),
		FAKE_TEST(test_query_zeroes_what_a_newer_caller_asks_beyond),
		FAKE_TEST(test_query_with_too_small_struct_is_einval),
		FAKE_TEST(test_query_failure_of_the_backend_is_returned),
		FAKE_TEST(test_attach_detach_reset_return_the_backends_answer),
		FAKE_TEST(test_ebusy_message_says_who_to_look_for),
		FAKE_TEST(test_auto_opens_the_first_listed_device),
		FAKE_TEST(test_auto_with_attach_skips_busy_devices),
		FAKE_TEST(test_auto_with_all_devices_of_a_backend_busy_is_ebusy),
		FAKE_TEST(test_auto_with_all_devices_busy_falls_back_to_the_model),
		FAKE_TEST(test_enumeration_error_of_a_backend_fails_the_list),
		FAKE_TEST(test_enumeration_includes_every_backend),
		FAKE_TEST(test_backend_registry_refuses_bad_registrations),
	};

	return cmocka_run_group_tests(tests, fake_group_setup, fake_group_teardown);
}
