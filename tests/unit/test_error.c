// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_error.c - how libipu reports errors: negative errno values that
 * ipu_strerror() describes, a per-thread message naming the device and the
 * operation (ipu_errmsg()), and errno left as the caller had it.
 */
#include <limits.h>
#include <pthread.h>

#include "fake_backend.h"

static void test_strerror_describes_negative_and_positive_codes(void **state)
{
	(void)state;
	assert_string_equal(ipu_strerror(-ENOENT), "No such file or directory");
	assert_string_equal(ipu_strerror(ENOENT), "No such file or directory");
	assert_string_equal(ipu_strerror(-EBUSY), "Device or resource busy");
	assert_string_equal(ipu_strerror(-ENOSPC), "No space left on device");
	assert_string_equal(ipu_strerror(0), "Success");
}

static void test_strerror_of_unknown_codes_is_never_null(void **state)
{
	(void)state;
	assert_string_equal(ipu_strerror(-100000), "Unknown error");
	assert_string_equal(ipu_strerror(100000), "Unknown error");
	assert_string_equal(ipu_strerror(INT_MIN), "Unknown error");
	assert_string_equal(ipu_strerror(INT_MAX), "Unknown error");
}

static void *fresh_thread_errmsg(void *arg)
{
	const char **out = arg;

	*out = ipu_errmsg();
	return (void *)(uintptr_t)(**out == '\0');
}

static void test_errmsg_is_empty_before_any_failure(void **state)
{
	const char *msg = NULL;
	pthread_t t;
	void *empty;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, fresh_thread_errmsg, &msg), 0);
	assert_int_equal(pthread_join(t, &empty), 0);
	assert_non_null(msg);
	assert_true(empty);
}

static void test_errmsg_names_the_device_the_operation_and_the_error(void **state)
{
	struct ipu_device *dev = fake_open_dev(1, 0);

	(void)state;
	fake.reset_err = -EIO;
	assert_int_equal(ipu_device_reset(dev), -EIO);
	assert_non_null(strstr(ipu_errmsg(), "fake:1"));
	assert_non_null(strstr(ipu_errmsg(), "resetting"));
	assert_non_null(strstr(ipu_errmsg(), "Input/output error"));
	ipu_device_close(dev);
}

static void test_errmsg_survives_successful_calls(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, 0);
	char before[512];

	(void)state;
	fake.detach_err = -EACCES;
	assert_int_equal(ipu_device_detach(dev), -EACCES);
	snprintf(before, sizeof(before), "%s", ipu_errmsg());
	assert_int_equal(ipu_device_attach(dev), 0);
	assert_string_equal(ipu_errmsg(), before);
	ipu_device_close(dev);
}

static void *fail_in_thread(void *arg)
{
	struct ipu_device *dev;

	(void)arg;
	return (void *)(intptr_t)ipu_device_open("nonsense", NULL, &dev);
}

static void test_errmsg_is_per_thread(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, 0);
	char mine[512];
	pthread_t t;
	void *ret;

	(void)state;
	fake.reset_err = -EIO;
	assert_int_equal(ipu_device_reset(dev), -EIO);
	snprintf(mine, sizeof(mine), "%s", ipu_errmsg());
	assert_int_equal(pthread_create(&t, NULL, fail_in_thread, NULL), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_int_equal((intptr_t)ret, -EINVAL);
	assert_string_equal(ipu_errmsg(), mine);
	ipu_device_close(dev);
}

static void test_errmsg_of_a_huge_name_is_truncated_safely(void **state)
{
	char name[4096];
	struct ipu_device *dev;

	(void)state;
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(ipu_device_open(name, NULL, &dev), -EINVAL);
	assert_true(strlen(ipu_errmsg()) > 0);
	assert_true(strlen(ipu_errmsg()) < 512);
}

static void test_failing_calls_leave_errno_alone(void **state)
{
	struct ipu_device_list *list;
	struct ipu_device *dev;
	struct ipu_bo *bo;

	(void)state;
	errno = 4321;
	assert_int_equal(ipu_device_open("hw:0", NULL, &dev), -ENOENT);
	assert_int_equal(errno, 4321);
	assert_int_equal(ipu_device_open("nonsense", NULL, &dev), -EINVAL);
	assert_int_equal(errno, 4321);
	dev = fake_open_dev(0, 0);
	errno = 4321;
	fake.bo_create_err = -ENOSPC;
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), -ENOSPC);
	assert_int_equal(errno, 4321);
	assert_int_equal(ipu_bo_create(dev, 0, 0, &bo), -EINVAL);
	assert_int_equal(errno, 4321);
	assert_int_equal(ipu_device_list_create(&list), 0);
	assert_int_equal(errno, 4321);
	ipu_device_list_free(list);
	ipu_device_close(dev);
	assert_int_equal(errno, 4321);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_strerror_describes_negative_and_positive_codes),
		FAKE_TEST(test_strerror_of_unknown_codes_is_never_null),
		FAKE_TEST(test_errmsg_is_empty_before_any_failure),
		FAKE_TEST(test_errmsg_names_the_device_the_operation_and_the_error),
		FAKE_TEST(test_errmsg_survives_successful_calls),
		FAKE_TEST(test_errmsg_is_per_thread),
		FAKE_TEST(test_errmsg_of_a_huge_name_is_truncated_safely),
		FAKE_TEST(test_failing_calls_leave_errno_alone),
	};

	return cmocka_run_group_tests(tests, fake_group_setup, fake_group_teardown);
}
