// SPDX-License-Identifier: GPL-2.0
/*
 * test_info.c - IPU_IOCTL_GET_INFO: what an IPU reports (a simulated one;
 * a PCI one in test_pci_info.c, KT_ON_PCI), and that
 * any file may ask, attached or not.
 */
#include "ktest.h"

static void test_get_info_reports_a_v1_ipu_of_its_platform(void **state)
{
	int fd = kt_open(0);
	struct ipu_info info = kt_info(fd);
	uint32_t domain, bdf;

	(void)state;
	kt_pci_addr(0, &domain, &bdf);
	assert_int_equal(info.api_version, IPU_API_VERSION);
	assert_int_equal(info.platform, KT_PLATFORM);
	assert_true(info.memory_total > 0);
	/* The function's address on PCI, zero on a simulated IPU. */
	assert_int_equal(info.pci_domain, domain);
	assert_int_equal(info.pci_bdf, bdf);
	assert_int_equal(info.pad, 0);
}

static void test_get_info_features_cover_the_v1_commands(void **state)
{
	int fd = kt_open(0);
	struct ipu_info info = kt_info(fd);
	const uint64_t v1 = IPU_FEATURE_BO | IPU_FEATURE_MMAP |
			    IPU_FEATURE_XFER | IPU_FEATURE_RESET |
			    IPU_FEATURE_HOTPLUG;

	(void)state;
	assert_int_equal(info.features & v1, v1);
}

/* FW_SIM only where launches run on a userspace firmware (simulated). */
static void test_get_info_reports_uring_launch_and_its_firmware(void **state)
{
	const uint64_t bits = IPU_FEATURE_URING_CMD | IPU_FEATURE_LAUNCH |
			      IPU_FEATURE_URING_FIXED;
	int fd = kt_open(0);
	struct ipu_info info = kt_info(fd);

	(void)state;
	assert_int_equal(info.features & bits, bits);
	assert_int_equal(info.features & IPU_FEATURE_FW_SIM, KT_FEATURE_FW_SIM);
}

static void test_get_info_mem_page_size_is_a_power_of_two(void **state)
{
	int fd = kt_open(0);
	struct ipu_info info = kt_info(fd);

	(void)state;
	assert_true(info.mem_page_size > 0);
	assert_int_equal(info.mem_page_size & (info.mem_page_size - 1), 0);
	assert_int_equal(info.memory_total % info.mem_page_size, 0);
}

static void test_get_info_of_idle_device_shows_no_owner_and_no_memory_used(void **state)
{
	int fd = kt_open(0);
	struct ipu_info info = kt_info(fd);

	(void)state;
	assert_int_equal(info.owner_pid, 0);
	assert_int_equal(info.memory_used, 0);
}

static void test_get_info_works_while_another_file_is_attached(void **state)
{
	int owner = kt_open_attached(0);
	int other = kt_open(0);
	struct ipu_info info;

	(void)state;
	(void)owner;
	assert_int_equal(kt_get_info(other, &info), 0);
	assert_int_equal(info.owner_pid, (uint32_t)getpid());
}

static void test_get_info_counts_memory_used_by_all_files(void **state)
{
	int owner = kt_open_attached(0);
	int other = kt_open(0);
	uint64_t g = kt_granule(owner);
	struct ipu_bo_create bo;

	(void)state;
	kt_bo(owner, 3 * g, &bo);
	assert_int_equal(kt_info(other).memory_used, bo.size);
	assert_int_equal(kt_info(owner).memory_used, bo.size);
}

static void test_get_info_of_each_device_is_its_own(void **state)
{
	int fd0 = kt_open(0);
	int fd1 = kt_open(1);
	uint64_t g = kt_granule(fd0);

	(void)state;
	assert_int_equal(kt_attach(fd0), 0);
	kt_bo(fd0, g, NULL);
	assert_int_equal(kt_info(fd1).owner_pid, 0);
	assert_int_equal(kt_info(fd1).memory_used, 0);
	assert_int_equal(kt_info(fd0).memory_used, g);
}

static void test_get_info_with_null_argument_is_efault(void **state)
{
	int fd = kt_open(0);

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_GET_INFO, NULL), -EFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_get_info_reports_a_v1_ipu_of_its_platform),
		KT_TEST(test_get_info_features_cover_the_v1_commands),
		KT_TEST(test_get_info_reports_uring_launch_and_its_firmware),
		KT_TEST(test_get_info_mem_page_size_is_a_power_of_two),
		KT_TEST(test_get_info_of_idle_device_shows_no_owner_and_no_memory_used),
		KT_TEST(test_get_info_works_while_another_file_is_attached),
		KT_TEST(test_get_info_counts_memory_used_by_all_files),
		KT_TEST(test_get_info_of_each_device_is_its_own),
		KT_TEST(test_get_info_with_null_argument_is_efault),
	};

	return KT_RUN(tests);
}
