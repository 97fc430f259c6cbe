// SPDX-License-Identifier: GPL-2.0
/*
 * test_fault.c - fault injection on simulated IPUs through debugfs
 * (/sys/kernel/debug/ipu/ipuN/fail_dma, fail_reset): the error paths of
 * XFER and RESET, and that the device works again afterwards.
 * test_pci_fault.c runs them on PCI IPUs with ipu-emu's twin faults
 * (kt_fault_set()).
 */
#include "ktest.h"

struct fixture {
	int fd;
	uint32_t handle;
	uint64_t size;
};

static struct fixture setup(void)
{
	struct fixture f;

	f.fd = kt_open_attached(0);
	f.size = kt_granule(f.fd);
	f.handle = kt_bo(f.fd, f.size, NULL);
	return f;
}

static void test_fail_dma_makes_xfer_to_device_eio_then_it_works(void **state)
{
	struct fixture f = setup();
	uint8_t buf[256], back[256];

	(void)state;
	kt_fill(buf, sizeof(buf), 1);
	kt_fault_set(0, "fail_dma", 1);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, buf, sizeof(buf)), -EIO);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, buf, sizeof(buf)), 0);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, back, sizeof(back)), 0);
	assert_pattern(back, sizeof(back), 1);
}

static void test_fail_dma_makes_xfer_from_device_eio_then_it_works(void **state)
{
	struct fixture f = setup();
	uint8_t buf[256], back[256];

	(void)state;
	kt_fill(buf, sizeof(buf), 2);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, buf, sizeof(buf)), 0);
	kt_fault_set(0, "fail_dma", 1);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, back, sizeof(back)), -EIO);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, back, sizeof(back)), 0);
	assert_pattern(back, sizeof(back), 2);
}

static void test_fail_dma_fails_the_next_k_transfers(void **state)
{
	struct fixture f = setup();
	uint8_t buf[64];

	(void)state;
	kt_fill(buf, sizeof(buf), 3);
	kt_fault_set(0, "fail_dma", 3);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, buf, sizeof(buf)), -EIO);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, buf, sizeof(buf)), -EIO);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, buf, sizeof(buf)), -EIO);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, buf, sizeof(buf)), 0);
}

static void test_fail_dma_keeps_the_file_usable(void **state)
{
	struct fixture f = setup();
	uint8_t buf[64];

	(void)state;
	kt_fill(buf, sizeof(buf), 4);
	kt_fault_set(0, "fail_dma", 1);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, buf, sizeof(buf)), -EIO);
	/* attachment, buffers and memory accounting are as they were */
	assert_int_equal(kt_attach(f.fd), -EALREADY);
	assert_int_equal(kt_info(f.fd).memory_used, f.size);
	assert_int_equal(kt_bo_destroy(f.fd, f.handle), 0);
	assert_int_equal(kt_info(f.fd).memory_used, 0);
}

static void test_fail_dma_is_per_device(void **state)
{
	struct fixture f = setup();
	int fd1 = kt_open_attached(1);
	uint32_t h1 = kt_bo(fd1, kt_granule(fd1), NULL);
	uint8_t buf[64];

	(void)state;
	kt_fill(buf, sizeof(buf), 5);
	kt_fault_set(1, "fail_dma", 1);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, buf, sizeof(buf)), 0);
	assert_int_equal(kt_write_bo(fd1, h1, 0, buf, sizeof(buf)), -EIO);
}

static void test_fail_reset_makes_reset_eio_and_keeps_reset_count(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t before = kt_info(fd).reset_count;

	(void)state;
	kt_fault_set(0, "fail_reset", 1);
	assert_int_equal(kt_reset(fd), -EIO);
	assert_int_equal(kt_info(fd).reset_count, before);
	assert_int_equal(kt_sysfs_u64(0, "reset_count"), before);
}

static void test_reset_works_again_after_failed_reset(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t before = kt_info(fd).reset_count;

	(void)state;
	kt_fault_set(0, "fail_reset", 1);
	assert_int_equal(kt_reset(fd), -EIO);
	assert_int_equal(kt_reset(fd), 0);
	assert_int_equal(kt_info(fd).reset_count, before + 1);
}

static void test_failed_reset_keeps_buffers_and_attachment(void **state)
{
	struct fixture f = setup();
	uint8_t buf[64], back[64];

	(void)state;
	kt_fill(buf, sizeof(buf), 6);
	assert_int_equal(kt_write_bo(f.fd, f.handle, 0, buf, sizeof(buf)), 0);
	kt_fault_set(0, "fail_reset", 1);
	assert_int_equal(kt_reset(f.fd), -EIO);
	assert_int_equal(kt_attach(f.fd), -EALREADY);
	assert_int_equal(kt_read_bo(f.fd, f.handle, 0, back, sizeof(back)), 0);
	assert_pattern(back, sizeof(back), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_fail_dma_makes_xfer_to_device_eio_then_it_works),
		KT_TEST(test_fail_dma_makes_xfer_from_device_eio_then_it_works),
		KT_TEST(test_fail_dma_fails_the_next_k_transfers),
		KT_TEST(test_fail_dma_keeps_the_file_usable),
		KT_TEST(test_fail_dma_is_per_device),
		KT_TEST(test_fail_reset_makes_reset_eio_and_keeps_reset_count),
		KT_TEST(test_reset_works_again_after_failed_reset),
		KT_TEST(test_failed_reset_keeps_buffers_and_attachment),
	};

	return KT_RUN(tests);
}
