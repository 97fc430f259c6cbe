// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_external_reset.c - a Function Level Reset the driver did not
 * start (sysfs `reset`, as an operator, a hypervisor or DPC resets a
 * function: docs/hardware.md 9.2 and 12) goes through the driver's
 * reset_prepare/reset_done:
 *  - while idle: the device stays bound, the file opened before it still
 *    works, and launches run again (the firmware booted again from the
 *    image the driver kept) with no rebind;
 *  - mid-launch: the launch the FLR ended fails with -EIO, and the next
 *    one on the same file runs;
 *  - readers of mem_errors_* and hwmon's temp1_input during FLRs (BAR0
 *    reads all ones meanwhile), the PCI core's or the driver's own (RESET
 *    with the soft reset ignored), never make the driver conclude that
 *    the function fell off the bus: no unbind, the device keeps working;
 *  - a buffer mapped at the start of the pool keeps its bytes across the
 *    FLR (the firmware is staged in its own region, section 8.3).
 * Skipped without PCI IPUs or without ipu-emu's control port.
 */
#include <glob.h>
#include <signal.h>
#include <sys/wait.h>

#include "kreset.h"

/* FLRs under the readers: each opens a window of reads of all ones. */
#define READER_FLRS 8

static void test_launches_run_after_an_external_flr_while_idle(void **state)
{
	int fd = ke_open_first(), n = ipu_of(ipus[0]);

	(void)state;
	assert_int_equal(kr_run(fd), 0);
	kr_flr(ipus[0]);
	assert_int_equal(ipu_of(ipus[0]), n);
	assert_int_equal(kr_run(fd), 0);
	kr_flr(ipus[0]);
	kr_flr(ipus[0]);
	assert_int_equal(kr_run(fd), 0);
}

static void test_an_external_flr_mid_launch_fails_it_with_eio(void **state)
{
	int fd = ke_open_first();
	uint64_t held;

	(void)state;
	ke_fault(0, "hold_launches=1");
	held = kr_launch(fd);
	kr_flr(ipus[0]);
	ke_fault(0, "clear");
	assert_int_equal(kr_wait(fd, held), -EIO);
	assert_int_equal(kr_run(fd), 0);
}

/* Read @path once, whatever it says: only the reading matters. */
static void read_once(const char *path)
{
	char buf[64];

	(void)kt_read_file(path, buf, sizeof(buf));
}

/* A child reading @bdf's counters and temperature until it is killed. */
static pid_t start_readers(const char *bdf)
{
	char ce[PATH_MAX], ue[PATH_MAX], pat[PATH_MAX], temp[PATH_MAX] = "";
	glob_t g;
	pid_t pid;

	fn_path(ce, sizeof(ce), bdf, "mem_errors_corrected");
	fn_path(ue, sizeof(ue), bdf, "mem_errors_uncorrected");
	fn_path(pat, sizeof(pat), bdf, "hwmon/hwmon*/temp1_input");
	if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc)
		snprintf(temp, sizeof(temp), "%s", g.gl_pathv[0]);
	globfree(&g);
	if (!temp[0])
		fail_msg("%s has no hwmon temp1_input", bdf);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;) {
			read_once(ce);
			read_once(ue);
			read_once(temp);
		}
	}
	return pid;
}

static void test_readers_during_external_flrs_never_unbind(void **state)
{
	int fd = ke_open_first(), n = ipu_of(ipus[0]), klog, i;
	char line[512];
	pid_t pid;

	(void)state;
	klog = kt_klog_from_now();
	pid = start_readers(ipus[0]);
	for (i = 0; i < READER_FLRS; i++)
		kr_flr(ipus[0]);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(kr_run(fd), 0);
	assert_int_equal(ipu_of(ipus[0]), n);
	if (klog_driver_lines(klog, ipus[0], line, sizeof(line)))
		fail_msg("the driver logged \"%s\" during the FLRs", line);
}

static void test_readers_during_the_driver_s_flrs_never_unbind(void **state)
{
	int fd = ke_open_first(), n = ipu_of(ipus[0]), i;
	struct ipu_reset r = { 0 };
	pid_t pid;

	(void)state;
	pid = start_readers(ipus[0]);
	/* A function taken for gone fails RESET and the launch -ENODEV. */
	for (i = 0; i < READER_FLRS; i++) {
		ke_fault(0, "ignore_reset=1");
		assert_int_equal(kt_ioctl(fd, IPU_IOCTL_RESET, &r), 0);
	}
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(kr_run(fd), 0);
	assert_int_equal(ipu_of(ipus[0]), n);
}

static void test_a_mapped_buffer_keeps_its_bytes_across_an_external_flr(void **state)
{
	const size_t len = 4u << 20;
	struct ipu_bo_create bo;
	int fd = ke_open_first();
	uint8_t *map;

	(void)state;
	map = kr_mapped_bo(fd, len, 77, &bo);
	kr_flr(ipus[0]);
	assert_int_equal(kt_check(map, len, 77), -1);
	assert_int_equal(kr_run(fd), 0);
	assert_int_equal(kt_check(map, len, 77), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_launches_run_after_an_external_flr_while_idle),
		cmocka_unit_test_teardown(test_an_external_flr_mid_launch_fails_it_with_eio,
					  kr_clear_teardown),
		KT_TEST(test_readers_during_external_flrs_never_unbind),
		cmocka_unit_test_teardown(test_readers_during_the_driver_s_flrs_never_unbind,
					  kr_clear_teardown),
		KT_TEST(test_a_mapped_buffer_keeps_its_bytes_across_an_external_flr),
	};

	kp_init();
	return KT_RUN(tests);
}
