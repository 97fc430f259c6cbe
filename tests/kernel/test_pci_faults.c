// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_faults.c - what ipu.ko does with each fault of the device
 * model that concerns transfers and boot (docs/hardware.md section 11),
 * injected from inside the guest through ipu-emu's control socket
 * (kemu.h):
 *  - fail_dma: the descriptor completes with E_DATA and nothing moved;
 *    the transfer it belongs to, host to device or back, fails with -EIO,
 *    and the next one works;
 *  - corrupt_dma: the data arrive with their first and last bytes
 *    inverted and status OK - silent, as on real links: the transfer
 *    succeeds, and only the bytes tell;
 *  - refuse_fw: the boot fails with REFUSED; the probe fails with one
 *    dmesg line and leaves no device, and binds again once the fault is
 *    cleared.
 * Skipped without PCI IPUs or without the control port.
 */
#include "kpci.h"
#include "kemu.h"

#define LEN (64 * 1024)

/* An attached file of the first PCI IPU (ipu-emu's ipu0) and a buffer. */
static int open_first(uint32_t *bo)
{
	int fd = ke_open_first();

	*bo = kt_bo(fd, LEN, NULL);
	return fd;
}

static void test_fail_dma_fails_the_transfer_to_the_device_with_eio(void **state)
{
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	uint32_t bo;
	int fd = open_first(&bo);

	(void)state;
	kt_fill(buf, LEN, 1);
	ke_fault(0, "fail_dma=1");
	assert_int_equal(kt_write_bo(fd, bo, 0, buf, LEN), -EIO);
	/* One descriptor failed, not the queue: the next transfer works. */
	assert_int_equal(kt_write_bo(fd, bo, 0, buf, LEN), 0);
	assert_int_equal(kt_read_bo(fd, bo, 0, back, LEN), 0);
	assert_int_equal(kt_check(back, LEN, 1), -1);
}

static void test_fail_dma_fails_the_transfer_from_the_device_with_eio(void **state)
{
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	uint32_t bo;
	int fd = open_first(&bo);

	(void)state;
	kt_fill(buf, LEN, 2);
	assert_int_equal(kt_write_bo(fd, bo, 0, buf, LEN), 0);
	ke_fault(0, "fail_dma=1");
	assert_int_equal(kt_read_bo(fd, bo, 0, back, LEN), -EIO);
	assert_int_equal(kt_read_bo(fd, bo, 0, back, LEN), 0);
	assert_int_equal(kt_check(back, LEN, 2), -1);
}

static void test_corrupt_dma_is_silent_but_the_bytes_tell(void **state)
{
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	unsigned int wrong = 0;
	size_t i;
	uint32_t bo;
	int fd = open_first(&bo);

	(void)state;
	kt_fill(buf, LEN, 3);
	ke_fault(0, "corrupt_dma=1");
	assert_int_equal(kt_write_bo(fd, bo, 0, buf, LEN), 0);
	assert_int_equal(kt_read_bo(fd, bo, 0, back, LEN), 0);
	/*
	 * The first and last bytes of the first descriptor: the buffer's
	 * first byte, and the last of however many pages that descriptor
	 * took; every other byte arrived intact.
	 */
	assert_int_equal(back[0], (uint8_t)~buf[0]);
	for (i = 1; i < LEN; i++) {
		if (back[i] == buf[i])
			continue;
		assert_int_equal(back[i], (uint8_t)~buf[i]);
		wrong++;
	}
	assert_int_equal(wrong, 1);
}

static void test_refused_firmware_fails_probe_cleanly(void **state)
{
	(void)state;
	require_ipus();
	ke_require();
	ke_refuse_last_fw();
	bind_fails_with(ke_refused_bdf, "boot failed: refused by the device");
	ke_unrefuse();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_fail_dma_fails_the_transfer_to_the_device_with_eio),
		KT_TEST(test_fail_dma_fails_the_transfer_from_the_device_with_eio),
		KT_TEST(test_corrupt_dma_is_silent_but_the_bytes_tell),
		cmocka_unit_test_teardown(test_refused_firmware_fails_probe_cleanly,
					  ke_refuse_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
