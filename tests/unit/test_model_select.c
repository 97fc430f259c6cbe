// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_model_select.c - choosing the model: "auto" falling back to it when
 * no hardware opens, IPU_DEVICE=model / model:N / hw, attach skipping
 * model devices already attached.
 */
#include "model_helpers.h"

static int teardown(void **state)
{
	(void)state;
	unsetenv("IPU_DEVICE");
	return 0;
}

static struct ipu_device *open_auto(uint32_t flags)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = flags);
	struct ipu_device *dev = NULL;

	if (ipu_device_open("auto", &opts, &dev))
		fail_msg("auto: %s", ipu_errmsg());
	return dev;
}

static void test_auto_without_hardware_opens_model_0(void **state)
{
	struct ipu_device *dev = open_auto(0);

	(void)state;
	assert_string_equal(ipu_device_name(dev), "model:0");
	ipu_device_close(dev);
}

static void test_auto_without_attach_shares_model_0(void **state)
{
	struct ipu_device *a = open_auto(IPU_OPEN_ATTACH), *b = open_auto(0);

	(void)state;
	/* opening without attaching does not need a free device */
	assert_string_equal(ipu_device_name(b), "model:0");
	ipu_device_close(b);
	ipu_device_close(a);
}

static void test_auto_with_attach_takes_the_next_free_model_device(void **state)
{
	struct ipu_device *a = open_auto(IPU_OPEN_ATTACH);
	struct ipu_device *b = open_auto(IPU_OPEN_ATTACH);
	struct ipu_device *c;

	(void)state;
	assert_string_equal(ipu_device_name(a), "model:0");
	assert_string_equal(ipu_device_name(b), "model:1");
	ipu_device_close(a);
	c = open_auto(IPU_OPEN_ATTACH);
	assert_string_equal(ipu_device_name(c), "model:0");
	ipu_device_close(b);
	ipu_device_close(c);
}

static void test_auto_with_every_model_device_attached_is_ebusy(void **state)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	struct ipu_device *devs[MH_DEVICES], *dev = (void *)1;
	unsigned int i;

	(void)state;
	for (i = 0; i < MH_DEVICES; i++)
		devs[i] = mh_open(i, true);
	assert_int_equal(ipu_device_open("auto", &opts, &dev), -EBUSY);
	assert_null(dev);
	assert_non_null(strstr(ipu_errmsg(), "attached"));
	for (i = 0; i < MH_DEVICES; i++)
		ipu_device_close(devs[i]);
}

static void test_ipu_device_model_picks_the_model(void **state)
{
	struct ipu_device *a, *b;

	(void)state;
	setenv("IPU_DEVICE", "model", 1);
	a = open_auto(IPU_OPEN_ATTACH);
	b = open_auto(IPU_OPEN_ATTACH);
	assert_string_equal(ipu_device_name(a), "model:0");
	assert_string_equal(ipu_device_name(b), "model:1");
	ipu_device_close(a);
	ipu_device_close(b);
}

static void test_ipu_device_names_a_model_device(void **state)
{
	struct ipu_device *dev;

	(void)state;
	setenv("IPU_DEVICE", "model:5", 1);
	dev = open_auto(0);
	assert_string_equal(ipu_device_name(dev), "model:5");
	ipu_device_close(dev);
	assert_int_equal(ipu_device_open(NULL, NULL, &dev), 0);
	assert_string_equal(ipu_device_name(dev), "model:5");
	ipu_device_close(dev);
}

static void test_ipu_device_naming_a_missing_model_device_is_enoent(void **state)
{
	struct ipu_device *dev;

	(void)state;
	setenv("IPU_DEVICE", "model:99", 1);
	assert_int_equal(ipu_device_open("auto", NULL, &dev), -ENOENT);
	assert_non_null(strstr(ipu_errmsg(), "model:99"));
}

static void test_ipu_device_hw_does_not_fall_back(void **state)
{
	struct ipu_device *dev = (void *)1;

	(void)state;
	setenv("IPU_DEVICE", "hw", 1);
	assert_int_equal(ipu_device_open("auto", NULL, &dev), -ENODEV);
	assert_null(dev);
	assert_non_null(strstr(ipu_errmsg(), "hw"));
}

static void test_ipu_device_hw_n_overrides_auto(void **state)
{
	struct ipu_device *dev;

	(void)state;
	setenv("IPU_DEVICE", "hw:0", 1);
	assert_int_equal(ipu_device_open("auto", NULL, &dev), -ENOENT);
	assert_non_null(strstr(ipu_errmsg(), "hw:0"));
}

/* A value that is no device name is refused naming the variable. */
static void test_ipu_device_malformed_names_the_variable(void **state)
{
	struct ipu_device *dev = (void *)1;

	(void)state;
	setenv("IPU_DEVICE", "model:1x", 1);
	assert_int_equal(ipu_device_open("auto", NULL, &dev), -EINVAL);
	assert_null(dev);
	assert_non_null(strstr(ipu_errmsg(), "IPU_DEVICE=\"model:1x\""));
}

/* The parser libsession shares: backends, indexes, what it refuses. */
static void test_device_name_parse(void **state)
{
	static const char *const bad[] = {
		"junk", "model:-1", "model:1x", "model:", "model:01", ":0",
		"fake:0", "model:99999999999", "model:+1", "model: 1",
	};
	char backend[16];
	size_t i;
	int index;

	(void)state;
	assert_int_equal(ipu_device_name_parse("model:12", backend, sizeof(backend), &index), 0);
	assert_string_equal(backend, "model");
	assert_int_equal(index, 12);
	assert_int_equal(ipu_device_name_parse("hw", backend, sizeof(backend), &index), 0);
	assert_string_equal(backend, "hw");
	assert_int_equal(index, -1);
	assert_int_equal(ipu_device_name_parse("auto", backend, sizeof(backend), &index), 0);
	assert_string_equal(backend, "");
	assert_int_equal(index, -1);
	assert_int_equal(ipu_device_name_parse("", backend, sizeof(backend), &index), 0);
	assert_string_equal(backend, "");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (ipu_device_name_parse(bad[i], backend, sizeof(backend), &index) != -EINVAL)
			fail_msg("\"%s\" parsed", bad[i]);
		if (!strstr(ipu_errmsg(), bad[i]))
			fail_msg("\"%s\": message \"%s\" does not name it", bad[i],
				 ipu_errmsg());
	}
	assert_int_equal(ipu_device_name_parse(NULL, backend, sizeof(backend), &index), -EINVAL);
}

static void test_explicit_model_name_ignores_ipu_device(void **state)
{
	struct ipu_device *dev;

	(void)state;
	setenv("IPU_DEVICE", "hw", 1);
	dev = mh_open(2, false);
	assert_string_equal(ipu_device_name(dev), "model:2");
	ipu_device_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_teardown(f, teardown)
		T(test_auto_without_hardware_opens_model_0),
		T(test_auto_without_attach_shares_model_0),
		T(test_auto_with_attach_takes_the_next_free_model_device),
		T(test_auto_with_every_model_device_attached_is_ebusy),
		T(test_ipu_device_model_picks_the_model),
		T(test_ipu_device_names_a_model_device),
		T(test_ipu_device_naming_a_missing_model_device_is_enoent),
		T(test_ipu_device_hw_does_not_fall_back),
		T(test_ipu_device_hw_n_overrides_auto),
		T(test_ipu_device_malformed_names_the_variable),
		T(test_device_name_parse),
		T(test_explicit_model_name_ignores_ipu_device),
#undef T
	};

	return cmocka_run_group_tests(tests, mh_group_setup, mh_group_teardown);
}
