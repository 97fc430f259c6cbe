// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_reset.c - what a reset of a PCI IPU leaves behind in the
 * driver's view of the device (docs/hardware.md section 9):
 *  - Function Level Reset (RESET when the soft reset does nothing, fault
 *    ignore_reset) clears the device's error log and ERR_COUNT; the next
 *    device error is one dmesg line, itself, not a replay of the log's
 *    stale (zeroed) entries.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_the_first_error_after_an_flr_is_one_line),
	};

	kp_init();
	return KT_RUN(tests);
}
