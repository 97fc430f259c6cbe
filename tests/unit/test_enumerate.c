// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_enumerate.c - ipu_device_list_*() over a fake sysfs tree: no tree,
 * an empty class, devices out of order among junk, attributes missing or
 * malformed; IPU_HW_PLATFORM's choice of one platform, and its bad values.
 */
#include "fake_sysfs.h"

static int setup(void **state)
{
	struct fake_root *r = calloc(1, sizeof(*r));

	if (!r)
		return -1;
	fake_root_make(r);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	unsetenv("IPU_HW_PLATFORM");
	fake_root_remove(*state);
	free(*state);
	return 0;
}

static void test_no_sysfs_class_means_no_devices(void **state)
{
	struct ipu_device_list *list = NULL;

	(void)state;
	assert_int_equal(ipu_device_list_create(&list), 0);
	assert_non_null(list);
	assert_int_equal(ipu_device_list_count(list), 0);
	assert_null(ipu_device_list_get(list, 0));
	ipu_device_list_free(list);
}

static void test_empty_class_means_no_devices(void **state)
{
	struct ipu_device_list *list;

	fake_root_mkdir(*state, "class/ipu");
	assert_int_equal(ipu_device_list_create(&list), 0);
	assert_int_equal(ipu_device_list_count(list), 0);
	ipu_device_list_free(list);
}

static void test_class_that_is_a_file_means_no_devices(void **state)
{
	struct ipu_device_list *list;

	fake_root_mkdir(*state, "class");
	fake_root_write(*state, "class/ipu", "not a directory\n");
	assert_int_equal(ipu_device_list_create(&list), 0);
	assert_int_equal(ipu_device_list_count(list), 0);
	ipu_device_list_free(list);
}

static void test_devices_are_listed_by_index_with_their_attributes(void **state)
{
	struct fake_root *r = *state;
	const struct ipu_device_entry *e;
	struct ipu_device_list *list;
	char node[512];

	fake_root_device(r, 10, "sim", 16 << 20, 8192, 0, "1.2.3",
			 "00000000deadbeef", 0);
	fake_root_device(r, 2, "pci", 1ull << 34, 0, 4242, "255.0.17",
			 "0123456789abcdef", 7);
	fake_root_device(r, 0, "sim", 4 << 20, 0, 0, "0.0.1",
			 "0000000000000001", 0);
	assert_int_equal(ipu_device_list_create(&list), 0);
	assert_int_equal(ipu_device_list_count(list), 3);

	e = ipu_device_list_get(list, 0);
	assert_string_equal(e->name, "hw:0");
	assert_int_equal(e->index, 0);
	snprintf(node, sizeof(node), "%s/ipu0", r->dir);
	assert_string_equal(e->node, node);
	assert_int_equal(e->memory_total, 4 << 20);

	e = ipu_device_list_get(list, 1);
	assert_string_equal(e->name, "hw:2");
	assert_int_equal(e->index, 2);
	assert_int_equal(e->platform, IPU_DEVICE_PLATFORM_PCI);
	assert_string_equal(e->platform_name, "pci");
	assert_int_equal(e->memory_total, 1ull << 34);
	assert_int_equal(e->memory_used, 0);
	assert_int_equal(e->owner_pid, 4242);
	assert_int_equal(e->firmware_version, 255 << 16 | 0 << 8 | 17);
	assert_int_equal(e->serial, 0x0123456789abcdefull);
	assert_int_equal(e->reset_count, 7);

	e = ipu_device_list_get(list, 2);
	assert_string_equal(e->name, "hw:10");
	assert_int_equal(e->platform, IPU_DEVICE_PLATFORM_SIM);
	assert_string_equal(e->platform_name, "sim");
	assert_int_equal(e->memory_used, 8192);
	assert_int_equal(e->serial, 0xdeadbeefull);
	assert_int_equal(e->firmware_version, 1 << 16 | 2 << 8 | 3);

	assert_null(ipu_device_list_get(list, 3));
	ipu_device_list_free(list);
}

static void test_entries_that_are_not_ipuN_are_ignored(void **state)
{
	static const char *const junk[] = {
		"class/ipu/ipu", "class/ipu/ipux", "class/ipu/ipu01",
		"class/ipu/ipu-1", "class/ipu/ipu1x", "class/ipu/gpu0",
		"class/ipu/ipu99999999999999999999",
	};
	struct ipu_device_list *list;
	size_t i;

	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		fake_root_mkdir(*state, junk[i]);
	fake_root_device(*state, 1, "sim", 1 << 20, 0, 0, "1.0.0",
			 "0000000000000002", 0);
	assert_int_equal(ipu_device_list_create(&list), 0);
	assert_int_equal(ipu_device_list_count(list), 1);
	assert_string_equal(ipu_device_list_get(list, 0)->name, "hw:1");
	ipu_device_list_free(list);
}

static void test_missing_attributes_read_as_zero(void **state)
{
	const struct ipu_device_entry *e;
	struct ipu_device_list *list;

	fake_root_mkdir(*state, "class/ipu/ipu3");
	assert_int_equal(ipu_device_list_create(&list), 0);
	assert_int_equal(ipu_device_list_count(list), 1);
	e = ipu_device_list_get(list, 0);
	assert_string_equal(e->name, "hw:3");
	assert_string_equal(e->platform_name, "");
	assert_int_equal(e->platform, IPU_DEVICE_PLATFORM_UNKNOWN);
	assert_int_equal(e->memory_total, 0);
	assert_int_equal(e->owner_pid, 0);
	assert_int_equal(e->firmware_version, 0);
	assert_int_equal(e->serial, 0);
	ipu_device_list_free(list);
}

static void test_malformed_attributes_read_as_zero(void **state)
{
	const struct ipu_device_entry *e;
	struct ipu_device_list *list;

	fake_root_device(*state, 0, "quantum", 0, 0, 0, "1.2", "xyz", 0);
	fake_root_write(*state, "class/ipu/ipu0/memory_total", "-5\n");
	fake_root_write(*state, "class/ipu/ipu0/memory_used", "12abc\n");
	fake_root_write(*state, "class/ipu/ipu0/owner_pid", "99999999999\n");
	fake_root_write(*state, "class/ipu/ipu0/reset_count", "");
	assert_int_equal(ipu_device_list_create(&list), 0);
	e = ipu_device_list_get(list, 0);
	assert_non_null(e);
	assert_string_equal(e->platform_name, "quantum");
	assert_int_equal(e->platform, IPU_DEVICE_PLATFORM_UNKNOWN);
	assert_int_equal(e->memory_total, 0);
	assert_int_equal(e->memory_used, 0);
	assert_int_equal(e->owner_pid, 0);
	assert_int_equal(e->reset_count, 0);
	assert_int_equal(e->firmware_version, 0);
	assert_int_equal(e->serial, 0);
	ipu_device_list_free(list);
}

static void test_firmware_version_fields_out_of_range_read_as_zero(void **state)
{
	struct ipu_device_list *list;

	fake_root_device(*state, 0, "sim", 1, 0, 0, "1.256.0", "1", 0);
	fake_root_device(*state, 1, "sim", 1, 0, 0, "1.2.3.4", "1", 0);
	assert_int_equal(ipu_device_list_create(&list), 0);
	assert_int_equal(ipu_device_list_get(list, 0)->firmware_version, 0);
	assert_int_equal(ipu_device_list_get(list, 1)->firmware_version, 0);
	ipu_device_list_free(list);
}

static void test_many_devices_are_all_listed(void **state)
{
	struct ipu_device_list *list;
	unsigned int i;

	for (i = 0; i < 40; i++)
		fake_root_device(*state, 39 - i, "sim", 1 << 20, 0, 0, "1.0.0",
				 "0000000000000003", 0);
	assert_int_equal(ipu_device_list_create(&list), 0);
	assert_int_equal(ipu_device_list_count(list), 40);
	for (i = 0; i < 40; i++)
		assert_int_equal(ipu_device_list_get(list, i)->index, i);
	ipu_device_list_free(list);
}

/* Two IPUs of each platform, interleaved, and one that says none. */
static void mixed_platforms(struct fake_root *r)
{
	fake_root_device(r, 0, "sim", 4 << 20, 0, 0, "0.0.1", "1", 0);
	fake_root_device(r, 1, "sim", 4 << 20, 0, 0, "0.0.1", "2", 0);
	fake_root_device(r, 2, "pci", 8 << 20, 0, 0, "1.0.0", "3", 0);
	fake_root_device(r, 3, "pci", 8 << 20, 0, 0, "1.0.0", "4", 0);
	fake_root_device(r, 4, "sim", 4 << 20, 0, 0, "0.0.1", "5", 0);
	fake_root_mkdir(r, "class/ipu/ipu5");
}

/* The names IPU_HW_PLATFORM=@platform lists, space-separated. */
static void listed_with(const char *platform, char *names, size_t len)
{
	struct ipu_device_list *list;
	size_t i, at = 0;

	assert_int_equal(setenv("IPU_HW_PLATFORM", platform, 1), 0);
	assert_int_equal(ipu_device_list_create(&list), 0);
	names[0] = '\0';
	for (i = 0; i < ipu_device_list_count(list); i++)
		at += (size_t)snprintf(names + at, len - at, "%s%s",
				       i ? " " : "",
				       ipu_device_list_get(list, i)->name);
	ipu_device_list_free(list);
}

static void test_ipu_hw_platform_lists_that_platform_only(void **state)
{
	char names[256];

	mixed_platforms(*state);
	/* Their own indexes: hw:N stays /dev/ipuN. */
	listed_with("pci", names, sizeof(names));
	assert_string_equal(names, "hw:2 hw:3");
	listed_with("sim", names, sizeof(names));
	assert_string_equal(names, "hw:0 hw:1 hw:4");
	/* Empty is unset: every IPU, the one without a platform too. */
	listed_with("", names, sizeof(names));
	assert_string_equal(names, "hw:0 hw:1 hw:2 hw:3 hw:4 hw:5");
}

static void test_ipu_hw_platform_of_no_ipu_lists_none(void **state)
{
	char names[256];

	fake_root_device(*state, 0, "sim", 4 << 20, 0, 0, "0.0.1", "1", 0);
	listed_with("pci", names, sizeof(names));
	assert_string_equal(names, "");
}

/* A value that is not a platform fails the listing and says why. */
static void test_bad_ipu_hw_platform_is_refused_by_name(void **state)
{
	static const char *const bad[] = {
		"PCI", "pci ", " sim", "pci,sim", "model", "auto", "p",
		"pcie", "sim\n", "\xff",
	};
	struct ipu_device_list *list;
	size_t i;

	mixed_platforms(*state);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(setenv("IPU_HW_PLATFORM", bad[i], 1), 0);
		list = (struct ipu_device_list *)&list;
		assert_int_equal(ipu_device_list_create(&list), -EINVAL);
		assert_null(list);
		if (!strstr(ipu_errmsg(), "IPU_HW_PLATFORM"))
			fail_msg("IPU_HW_PLATFORM=\"%s\": message \"%s\"",
				 bad[i], ipu_errmsg());
	}
}

static void test_list_functions_take_null(void **state)
{
	(void)state;
	assert_int_equal(ipu_device_list_create(NULL), -EINVAL);
	assert_int_equal(ipu_device_list_count(NULL), 0);
	assert_null(ipu_device_list_get(NULL, 0));
	ipu_device_list_free(NULL);
}

static void test_overlong_sysfs_root_is_refused(void **state)
{
	char longer[1024];

	(void)state;
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_int_equal(__ipu_set_sysfs_root(longer), -ENAMETOOLONG);
	assert_int_equal(__ipu_set_dev_root(longer), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_no_sysfs_class_means_no_devices),
		T(test_empty_class_means_no_devices),
		T(test_class_that_is_a_file_means_no_devices),
		T(test_devices_are_listed_by_index_with_their_attributes),
		T(test_entries_that_are_not_ipuN_are_ignored),
		T(test_missing_attributes_read_as_zero),
		T(test_malformed_attributes_read_as_zero),
		T(test_firmware_version_fields_out_of_range_read_as_zero),
		T(test_many_devices_are_all_listed),
		T(test_ipu_hw_platform_lists_that_platform_only),
		T(test_ipu_hw_platform_of_no_ipu_lists_none),
		T(test_bad_ipu_hw_platform_is_refused_by_name),
		T(test_list_functions_take_null),
		T(test_overlong_sysfs_root_is_refused),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
