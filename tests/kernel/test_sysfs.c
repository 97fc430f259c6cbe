// SPDX-License-Identifier: GPL-2.0
/*
 * test_sysfs.c - /sys/class/ipu/ipuN/: the attributes docs/sim-control.md
 * lists, and that they agree with GET_INFO.
 */
#include <ctype.h>

#include "ktest.h"

static void test_sysfs_lists_both_devices(void **state)
{
	uint64_t present;

	(void)state;
	kt_require_dev(0);
	kt_require_dev(1);
	present = kt_present();
	assert_true(present & 1ull << kt_dev(0));
	assert_true(present & 1ull << kt_dev(1));
}

static void test_sysfs_platform_is_the_devices(void **state)
{
	char buf[32];

	(void)state;
	kt_require_dev(0);
	kt_sysfs(0, "platform", buf, sizeof(buf));
	assert_string_equal(buf, KT_PLATFORM_NAME);
}

static void test_sysfs_memory_total_matches_get_info(void **state)
{
	int fd = kt_open(0);

	(void)state;
	assert_int_equal(kt_sysfs_u64(0, "memory_total"), kt_info(fd).memory_total);
}

static void test_sysfs_memory_used_follows_bo_create_and_destroy(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t g = kt_granule(fd);
	uint32_t h;

	(void)state;
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), 0);
	h = kt_bo(fd, 3 * g, NULL);
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), 3 * g);
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), kt_info(fd).memory_used);
	assert_int_equal(kt_bo_destroy(fd, h), 0);
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), 0);
}

static void test_sysfs_owner_pid_is_the_attached_process(void **state)
{
	int fd = kt_open(0);

	(void)state;
	assert_int_equal(kt_sysfs_u64(0, "owner_pid"), 0);
	assert_int_equal(kt_attach(fd), 0);
	assert_int_equal(kt_sysfs_u64(0, "owner_pid"), (uint64_t)getpid());
	assert_int_equal(kt_close(fd), 0);
	assert_int_equal(kt_sysfs_u64(0, "owner_pid"), 0);
}

static void test_sysfs_firmware_version_matches_get_info(void **state)
{
	int fd = kt_open(0);
	uint32_t v = kt_info(fd).firmware_version;
	unsigned int maj, min, pat;
	char buf[64], expect[64];
	int n = 0;

	(void)state;
	kt_sysfs(0, "firmware_version", buf, sizeof(buf));
	assert_int_equal(sscanf(buf, "%u.%u.%u%n", &maj, &min, &pat, &n), 3);
	assert_int_equal(buf[n], '\0');
	snprintf(expect, sizeof(expect), "%u.%u.%u", v >> 16, (v >> 8) & 0xff,
		 v & 0xff);
	assert_string_equal(buf, expect);
}

static void test_sysfs_serial_is_16_hex_digits_matching_get_info(void **state)
{
	int fd = kt_open(0);
	uint64_t serial = kt_info(fd).serial;
	char buf[64];
	size_t i;

	(void)state;
	kt_sysfs(0, "serial", buf, sizeof(buf));
	assert_int_equal(strlen(buf), 16);
	for (i = 0; i < 16; i++)
		assert_true(isxdigit((unsigned char)buf[i]));
	assert_int_equal(strtoull(buf, NULL, 16), serial);
}

static void test_sysfs_reset_count_increments_on_reset(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t before = kt_sysfs_u64(0, "reset_count");

	(void)state;
	assert_int_equal(before, kt_info(fd).reset_count);
	assert_int_equal(kt_reset(fd), 0);
	assert_int_equal(kt_sysfs_u64(0, "reset_count"), before + 1);
	assert_int_equal(kt_sysfs_u64(0, "reset_count"), kt_info(fd).reset_count);
}

static void test_sysfs_attributes_are_per_device(void **state)
{
	int fd0 = kt_open_attached(0);
	int fd1 = kt_open(1);

	(void)state;
	kt_bo(fd0, kt_granule(fd0), NULL);
	assert_int_equal(kt_sysfs_u64(1, "memory_used"), 0);
	assert_int_equal(kt_sysfs_u64(1, "owner_pid"), 0);
	assert_int_equal(kt_sysfs_u64(1, "memory_total"), kt_info(fd1).memory_total);
}

static void test_sysfs_attributes_are_read_only(void **state)
{
	static const char *const attrs[] = {
		"platform", "memory_total", "memory_used", "owner_pid",
		"firmware_version", "serial", "reset_count",
	};
	char path[128];
	size_t i;

	(void)state;
	kt_require_dev(0);
	for (i = 0; i < KT_ARRAY_SIZE(attrs); i++) {
		snprintf(path, sizeof(path), KT_SYSFS_CLASS "/ipu0/%s", attrs[i]);
		assert_int_not_equal(kt_write_file(path, "0"), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_sysfs_lists_both_devices),
		KT_TEST(test_sysfs_platform_is_the_devices),
		KT_TEST(test_sysfs_memory_total_matches_get_info),
		KT_TEST(test_sysfs_memory_used_follows_bo_create_and_destroy),
		KT_TEST(test_sysfs_owner_pid_is_the_attached_process),
		KT_TEST(test_sysfs_firmware_version_matches_get_info),
		KT_TEST(test_sysfs_serial_is_16_hex_digits_matching_get_info),
		KT_TEST(test_sysfs_reset_count_increments_on_reset),
		KT_TEST(test_sysfs_attributes_are_per_device),
		KT_TEST(test_sysfs_attributes_are_read_only),
	};

	return KT_RUN(tests);
}
