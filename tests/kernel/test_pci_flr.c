// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_flr.c - what a reset of a PCI IPU leaves behind in the
 * driver's view of the device (docs/hardware.md section 9):
 *  - Function Level Reset (RESET when the soft reset does nothing, fault
 *    ignore_reset) clears the device's error log and ERR_COUNT; the next
 *    device error is one dmesg line, itself, not a replay of the log's
 *    stale (zeroed) entries;
 *  - an FLR whose firmware reload fails (refuse_fw) still leaves the DMA
 *    queues running (they need no firmware): the next transfer works at
 *    once, not after the queue's 30 s bound.
 * Skipped without PCI IPUs or without ipu-emu's control port.
 */
#include <poll.h>

#include "kpci.h"
#include "kemu.h"

/* A failure's bound only: a KASAN guest on TCG is slow. */
#define LINE_WAIT_MS 60000

/*
 * Wait for @n lines ipu.ko logs for @bdf on @klog from now; the first of
 * them into @line.
 */
static void driver_lines(int klog, const char *bdf, unsigned int n,
			 char *line, size_t len)
{
	struct pollfd pfd = { .fd = klog, .events = POLLIN };
	unsigned int got = 0, more;
	char first[512];
	int waited;

	line[0] = '\0';
	for (waited = 0; waited < LINE_WAIT_MS; waited += 100) {
		more = klog_driver_lines(klog, bdf, first, sizeof(first));
		if (more && !got)
			snprintf(line, len, "%s", first);
		got += more;
		if (got >= n)
			return;
		(void)poll(&pfd, 1, 100);
	}
	fail_msg("%u of %u lines from ipu %s in %d ms (first: \"%s\")", got, n,
		 bdf, LINE_WAIT_MS, line);
}

static void test_the_first_error_after_an_flr_is_one_line(void **state)
{
	struct ipu_reset r = { 0 };
	uint64_t before;
	char line[512];
	int fd = ke_open_first(), klog;

	(void)state;
	/* Two errors before the reset, so that ERR_COUNT goes back. */
	klog = kt_klog_from_now();
	ke_fault(0, "mem_ue=1");
	ke_fault(0, "mem_ue=1");
	driver_lines(klog, ipus[0], 2, line, sizeof(line));
	assert_non_null(strstr(line, "device error 10:"));
	close(klog);

	before = kt_info(fd).reset_count;
	ke_fault(0, "ignore_reset=1");
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_RESET, &r), 0);
	assert_int_equal(kt_info(fd).reset_count, before + 1);

	klog = kt_klog_from_now();
	ke_fault(0, "mem_ue=1");
	driver_lines(klog, ipus[0], 1, line, sizeof(line));
	if (!strstr(line, "device error 10:"))
		fail_msg("the first line after the FLR is \"%s\", not the uncorrected memory error",
			 line);
	close(klog);
}

/* The function rebound (its firmware booted again), even after a failure. */
static int rebind_teardown(void **state)
{
	ke_fault(0, "clear");
	kt_teardown(state);
	if (ipu_of(ipus[0]) >= 0)
		kt_write_file(KT_PCI_DRIVER "/unbind", ipus[0]);
	kt_write_file(KT_PCI_DRIVER "/bind", ipus[0]);
	return 0;
}

static void test_dma_works_after_an_flr_whose_firmware_failed(void **state)
{
	uint8_t *buf = kt_alloc(64 * 1024), *back = kt_alloc(64 * 1024);
	struct ipu_reset r = { 0 };
	int fd = ke_open_first();
	uint32_t bo = kt_bo(fd, 64 * 1024, NULL);

	(void)state;
	kt_fill(buf, 64 * 1024, 21);
	ke_fault(0, "ignore_reset=1,refuse_fw=1");
	assert_int_not_equal(kt_ioctl(fd, IPU_IOCTL_RESET, &r), 0);
	assert_int_equal(kt_write_bo(fd, bo, 0, buf, 64 * 1024), 0);
	assert_int_equal(kt_read_bo(fd, bo, 0, back, 64 * 1024), 0);
	assert_int_equal(kt_check(back, 64 * 1024, 21), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_the_first_error_after_an_flr_is_one_line),
		cmocka_unit_test_teardown(test_dma_works_after_an_flr_whose_firmware_failed,
					  rebind_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
