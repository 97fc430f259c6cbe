// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_open.c - ipu_device_open() without a device: names, options,
 * "auto" and IPU_DEVICE (falling back to the model, or not with "hw"), a
 * missing node, a node that is no IPU.
 */
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_sysfs.h"

static int setup(void **state)
{
	struct fake_root *r = calloc(1, sizeof(*r));

	if (!r)
		return -1;
	fake_root_make(r);
	unsetenv("IPU_DEVICE");
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	fake_root_remove(*state);
	free(*state);
	unsetenv("IPU_DEVICE");
	return 0;
}

static void test_open_of_a_missing_device_is_enoent(void **state)
{
	struct ipu_device *dev = (void *)1;

	(void)state;
	assert_int_equal(ipu_device_open("hw:0", NULL, &dev), -ENOENT);
	assert_null(dev);
	assert_non_null(strstr(ipu_errmsg(), "hw:0"));
	assert_non_null(strstr(ipu_errmsg(), "No such file or directory"));
}

static void test_open_of_a_missing_device_asks_whether_the_driver_is_loaded(void **state)
{
	struct ipu_device *dev;

	(void)state;
	assert_int_equal(ipu_device_open("hw:3", NULL, &dev), -ENOENT);
	assert_non_null(strstr(ipu_errmsg(), "modprobe ipu"));
}

/* Opening hw:0 is refused, and the message says what to do. */
static bool open_is_refused_with_advice(void)
{
	struct ipu_device *dev;

	return ipu_device_open("hw:0", NULL, &dev) == -EACCES &&
	       strstr(ipu_errmsg(), "hw:0") && strstr(ipu_errmsg(), "/ipu*") &&
	       strstr(ipu_errmsg(), "group \"ipu\"") &&
	       strstr(ipu_errmsg(), "Permission denied");
}

/*
 * A node the user may not open: the message names the nodes and the group
 * that may. Root opens anything, so as root the open runs in a child that
 * has become "nobody" first.
 */
static void test_open_without_permission_names_the_nodes_and_the_group(void **state)
{
	struct fake_root *r = *state;
	char node[PATH_MAX];
	int status;
	pid_t pid;

	fake_root_write(r, "ipu0", "");
	snprintf(node, sizeof(node), "%s/ipu0", r->dir);
	assert_int_equal(chmod(node, 0), 0);
	assert_int_equal(chmod(r->dir, 0755), 0);
	if (geteuid() != 0) {
		assert_true(open_is_refused_with_advice());
		return;
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(open_is_refused_with_advice() ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_open_of_a_missing_device_in_real_dev_is_enoent(void **state)
{
	struct ipu_device *dev;

	(void)state;
	assert_int_equal(__ipu_set_dev_root(NULL), 0);
	/* no machine has 2^31 - 1 IPUs */
	assert_int_equal(ipu_device_open("hw:2147483647", NULL, &dev), -ENOENT);
}

static void test_open_of_a_node_that_is_not_an_ipu_is_enotty(void **state)
{
	struct ipu_device *dev = (void *)1;
	int before = fake_count_fds();

	fake_root_write(*state, "ipu0", "I am a regular file\n");
	assert_int_equal(ipu_device_open("hw:0", NULL, &dev), -ENOTTY);
	assert_null(dev);
	/* the file it opened to ask was closed again */
	assert_int_equal(fake_count_fds(), before);
}

static void test_malformed_names_are_einval(void **state)
{
	static const char *const bad[] = {
		"", "hw", "hw:", ":0", "hw0", "hw:x", "hw:-1", "hw:+1",
		"hw: 1", "hw:01", "hw:1x", "hw:1:2", "hw:99999999999",
		"hw:2147483648",
	};
	struct ipu_device *dev;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		dev = (void *)1;
		if (ipu_device_open(bad[i], NULL, &dev) != -EINVAL)
			fail_msg("\"%s\" was not refused with -EINVAL", bad[i]);
		assert_null(dev);
	}
}

static void test_unknown_backend_is_einval_and_named(void **state)
{
	struct ipu_device *dev;

	(void)state;
	assert_int_equal(ipu_device_open("gpu:0", NULL, &dev), -EINVAL);
	assert_non_null(strstr(ipu_errmsg(), "\"gpu\""));
}

static void test_null_devp_is_einval(void **state)
{
	(void)state;
	assert_int_equal(ipu_device_open("hw:0", NULL, NULL), -EINVAL);
}

static void test_options_smaller_than_v1_are_einval(void **state)
{
	IPU_OPTS(ipu_open_opts, opts);
	struct ipu_device *dev;

	(void)state;
	opts.sz = sizeof(size_t);
	assert_int_equal(ipu_device_open("hw:0", &opts, &dev), -EINVAL);
	opts.sz = 0;
	assert_int_equal(ipu_device_open("hw:0", &opts, &dev), -EINVAL);
}

struct bigger_opts {
	struct ipu_open_opts v1;
	uint64_t future;
};

static void test_options_with_unknown_nonzero_tail_are_e2big(void **state)
{
	struct bigger_opts big;
	struct ipu_device *dev;

	(void)state;
	memset(&big, 0, sizeof(big));
	big.v1.sz = sizeof(big);
	big.future = 1;
	assert_int_equal(ipu_device_open("hw:0", &big.v1, &dev), -E2BIG);
}

static void test_options_with_unknown_zero_tail_are_accepted(void **state)
{
	struct bigger_opts big;
	struct ipu_device *dev;

	(void)state;
	memset(&big, 0, sizeof(big));
	big.v1.sz = sizeof(big);
	/* accepted: the open goes on and finds no device */
	assert_int_equal(ipu_device_open("hw:0", &big.v1, &dev), -ENOENT);
}

static void test_unknown_open_flags_are_einval(void **state)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = 1u << 31);
	struct ipu_device *dev;

	(void)state;
	assert_int_equal(ipu_device_open("hw:0", &opts, &dev), -EINVAL);
	assert_non_null(strstr(ipu_errmsg(), "flags"));
}

static void test_ipu_opts_zeroes_and_sizes_the_struct(void **state)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);

	(void)state;
	assert_int_equal(opts.sz, sizeof(struct ipu_open_opts));
	assert_int_equal(opts.flags, IPU_OPEN_ATTACH);
}

static void test_auto_without_devices_falls_back_to_the_model(void **state)
{
	struct ipu_device *dev = NULL;

	(void)state;
	assert_int_equal(ipu_device_open("auto", NULL, &dev), 0);
	assert_string_equal(ipu_device_name(dev), "model:0");
	ipu_device_close(dev);
	assert_int_equal(ipu_device_open(NULL, NULL, &dev), 0);
	assert_string_equal(ipu_device_name(dev), "model:0");
	ipu_device_close(dev);
}

static void test_auto_hw_without_devices_is_enodev(void **state)
{
	struct ipu_device *dev = (void *)1;

	(void)state;
	setenv("IPU_DEVICE", "hw", 1);
	assert_int_equal(ipu_device_open("auto", NULL, &dev), -ENODEV);
	assert_null(dev);
	assert_int_equal(ipu_device_open(NULL, NULL, &dev), -ENODEV);
	assert_non_null(strstr(ipu_errmsg(), "auto"));
}

static void test_auto_with_listed_but_unopenable_devices_falls_back(void **state)
{
	struct ipu_device *dev = NULL;

	/* sysfs lists ipu0, but its node is missing */
	fake_root_device(*state, 0, "sim", 1 << 20, 0, 0, "1.0.0",
			 "0000000000000001", 0);
	assert_int_equal(ipu_device_open("auto", NULL, &dev), 0);
	assert_string_equal(ipu_device_name(dev), "model:0");
	ipu_device_close(dev);
}

static void test_auto_hw_with_listed_but_unopenable_devices_reports_why(void **state)
{
	struct ipu_device *dev;

	fake_root_device(*state, 0, "sim", 1 << 20, 0, 0, "1.0.0",
			 "0000000000000001", 0);
	setenv("IPU_DEVICE", "hw", 1);
	assert_int_equal(ipu_device_open("auto", NULL, &dev), -ENOENT);
	assert_non_null(strstr(ipu_errmsg(), "hw:0"));
}

static void test_ipu_device_names_the_device_for_auto(void **state)
{
	struct ipu_device *dev;

	(void)state;
	setenv("IPU_DEVICE", "hw:7", 1);
	assert_int_equal(ipu_device_open(NULL, NULL, &dev), -ENOENT);
	assert_non_null(strstr(ipu_errmsg(), "hw:7"));
	assert_int_equal(ipu_device_open("auto", NULL, &dev), -ENOENT);
	assert_non_null(strstr(ipu_errmsg(), "hw:7"));
}

static void test_ipu_device_does_not_override_an_explicit_name(void **state)
{
	struct ipu_device *dev;

	(void)state;
	setenv("IPU_DEVICE", "nonsense", 1);
	assert_int_equal(ipu_device_open("hw:3", NULL, &dev), -ENOENT);
	assert_non_null(strstr(ipu_errmsg(), "hw:3"));
}

static void test_malformed_ipu_device_is_einval(void **state)
{
	struct ipu_device *dev;

	(void)state;
	setenv("IPU_DEVICE", "nonsense", 1);
	assert_int_equal(ipu_device_open(NULL, NULL, &dev), -EINVAL);
	assert_non_null(strstr(ipu_errmsg(), "nonsense"));
}

static void test_ipu_device_auto_or_empty_means_auto(void **state)
{
	struct ipu_device *dev;

	(void)state;
	setenv("IPU_DEVICE", "auto", 1);
	assert_int_equal(ipu_device_open(NULL, NULL, &dev), 0);
	assert_string_equal(ipu_device_name(dev), "model:0");
	ipu_device_close(dev);
	setenv("IPU_DEVICE", "", 1);
	assert_int_equal(ipu_device_open(NULL, NULL, &dev), 0);
	assert_string_equal(ipu_device_name(dev), "model:0");
	ipu_device_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_open_of_a_missing_device_is_enoent),
		T(test_open_of_a_missing_device_asks_whether_the_driver_is_loaded),
	T(test_open_without_permission_names_the_nodes_and_the_group),
	T(test_open_of_a_missing_device_in_real_dev_is_enoent),
		T(test_open_of_a_node_that_is_not_an_ipu_is_enotty),
		T(test_malformed_names_are_einval),
		T(test_unknown_backend_is_einval_and_named),
		T(test_null_devp_is_einval),
		T(test_options_smaller_than_v1_are_einval),
		T(test_options_with_unknown_nonzero_tail_are_e2big),
		T(test_options_with_unknown_zero_tail_are_accepted),
		T(test_unknown_open_flags_are_einval),
		T(test_ipu_opts_zeroes_and_sizes_the_struct),
		T(test_auto_without_devices_falls_back_to_the_model),
		T(test_auto_hw_without_devices_is_enodev),
		T(test_auto_with_listed_but_unopenable_devices_falls_back),
		T(test_auto_hw_with_listed_but_unopenable_devices_reports_why),
		T(test_ipu_device_names_the_device_for_auto),
		T(test_ipu_device_does_not_override_an_explicit_name),
		T(test_malformed_ipu_device_is_einval),
		T(test_ipu_device_auto_or_empty_means_auto),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
