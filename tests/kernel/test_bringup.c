// SPDX-License-Identifier: GPL-2.0
/*
 * test_bringup.c - the ipu-bringup binary (/usr/bin/ipu-bringup, put in
 * the guest by scripts/kernel-check) on ipu.ko's simulated IPUs and the
 * rig's PCI IPUs, as a lab runs it: a clean --quick run passes, and what
 * it exists to catch, it catches, with the devices' fault injection:
 *  - a simulated IPU's fail_dma (debugfs): `dma` FAILs;
 *  - ipu-emu's corrupt_dma (silent, status OK): `dma` FAILs;
 *  - ipu-emu's degrade_link: `pcie-link` WARNs, and the run still exits 0;
 *  - ipu-emu's refuse_fw: the function is left without /dev/ipuN and
 *    `firmware` FAILs, quoting the kernel's reason;
 *  - ipu-emu's hang_launch, where PCI IPUs launch: `compute` FAILs and
 *    `reset` recovers (skipped while they cannot launch);
 *  - ipu-emu's mem_ue (an uncorrected device-memory error counted before
 *    the check): `memory` WARNs and shows the counters (last: the count
 *    stays for the rest of the boot).
 *  - `dma` graded against the PCI IPU's link (thresholds no speed can
 *    meet: WARN, then FAIL), and a simulated IPU's with no link to compare;
 *  - --jobs 2 over every IPU: the verdicts of one at a time.
 * Runs are --quick with a short stress: seconds on TCG, and with DMA
 * thresholds every rate meets (bringup() says why).
 */
#include "kemu.h"
#include "ksimd.h"
#include "json_check.h"

#define BRINGUP "/usr/bin/ipu-bringup"
#define OUT_LEN (64 * 1024)

static char out[OUT_LEN];

/*
 * Run ipu-bringup --quick with @args (NULL-terminated); its exit status.
 * The DMA thresholds are 0 % of the link (every rate passes): ipu-emu
 * under QEMU's TCG moves 0.1 to 2 % of the Gen4 x16 it reports (every
 * byte goes through a socket and an emulated CPU), a tenth of that on the
 * debug kernel beside another boot, and a rate is never what a test
 * asserts (0.1 % was: the CI's debug boot saw 0.07 % with two devices at
 * once in test_jobs_give_the_verdicts_of_one_at_a_time, a WARN). The
 * grading itself is test_dma_is_graded_against_the_link's, with
 * thresholds no speed meets. A later --dma-pass or --dma-warn in @args
 * overrides these.
 */
static int bringup(const char *const *args)
{
	const char *argv[32] = { BRINGUP, "--quick", "--stress-seconds", "0.3",
				 "--dma-pass", "0", "--dma-warn", "0" };
	size_t n = 8;
	int st;

	if (access(BRINGUP, X_OK)) {
		print_message(BRINGUP " is not in this guest: skipped\n");
		kt_skip();
	}
	while (*args && n < KT_ARRAY_SIZE(argv) - 1)
		argv[n++] = *args++;
	argv[n] = NULL;
	st = kt_run(argv, 0, out, sizeof(out));
	/* The guest's log keeps every run (IPU_VERBOSE=1 shows it);
	 * print_message() would cut it short. */
	printf("ipu-bringup exited %d:\n%s", st, out);
	fflush(stdout);
	return st;
}

/* The last run printed "@status  @check ... @device". */
static void assert_result(const char *status, const char *check,
			  const char *device)
{
	char want[96];
	const char *line;

	snprintf(want, sizeof(want), "%s  %s", status, check);
	for (line = out; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *nl = strchr(line, '\n');
		const char *dev = strstr(line, device);

		if (!strncmp(line, want, strlen(want)) && dev && (!nl || dev < nl))
			return;
	}
	fail_msg("no \"%s ... %s\" line", want, device);
}

static void assert_said(const char *what)
{
	if (!strstr(out, what))
		fail_msg("the output does not say \"%s\"", what);
}

/* "hw:N" of PCI function @i of the rig (bound). */
static void pci_name(unsigned int i, char *buf, size_t len)
{
	int n = ipu_of(ipus[i]);

	if (n < 0)
		fail_msg("%s has no ipuN (not bound?)", ipus[i]);
	snprintf(buf, len, "%d", n);
}

static void test_a_quick_run_on_every_ipu_passes(void **state)
{
	(void)state;
	kt_require_dev(0);
	assert_int_equal(bringup((const char *[]){ NULL }), 0);
	assert_said(" 0 failed, ");
	assert_result("PASS", "enumerate", "hw:0");
	assert_result("PASS", "dma", "hw:0");
	assert_result("PASS", "memory", "hw:0");
	assert_result("PASS", "reset", "hw:0");
}

static void test_the_json_report_is_valid(void **state)
{
	const char *json;
	long bad;

	(void)state;
	kt_require_dev(0);
	assert_int_equal(bringup((const char *[]){ "--json", "--test",
						    "enumerate,firmware", NULL }), 0);
	json = strchr(out, '{');
	assert_non_null(json);
	bad = json_check(json);
	if (bad >= 0)
		fail_msg("invalid JSON at byte %ld", bad);
	assert_said("\"schema\": \"ipu-bringup\"");
	assert_said("\"ok\": true");
}

/* The first simulated IPU, or skip. */
static unsigned int first_sim(void)
{
	char platform[16];
	unsigned int i;

	for (i = 0; i < 64; i++) {
		if (!kt_have_dev(i))
			continue;
		kt_sysfs(i, "platform", platform, sizeof(platform));
		if (!strcmp(platform, "sim"))
			return i;
	}
	print_message("no simulated IPU: skipped\n");
	kt_skip();
	return 0;
}

static void test_sim_fail_dma_makes_dma_fail(void **state)
{
	unsigned int i = first_sim();
	char dev[16], name[16];

	(void)state;
	snprintf(dev, sizeof(dev), "%u", i);
	snprintf(name, sizeof(name), "hw:%u", i);
	kt_fault_set(i, "fail_dma", 1);
	assert_int_equal(bringup((const char *[]){ "--test", "dma", "--device",
						    dev, NULL }), 1);
	assert_result("FAIL", "dma", name);
	assert_said("Input/output error");
}

static void test_corrupt_dma_makes_dma_fail(void **state)
{
	char dev[16];

	(void)state;
	require_ipus();
	ke_require();
	pci_name(0, dev, sizeof(dev));
	ke_fault(0, "corrupt_dma=1");
	assert_int_equal(bringup((const char *[]){ "--test", "dma", "--device",
						    dev, NULL }), 1);
	assert_result("FAIL", "dma", "hw:");
	assert_said("corrupts data");
}

static int link_teardown(void **state)
{
	if (ke_fd >= 0)
		ke_fault(0, "link_speed=4,link_width=16");
	return kt_teardown(state);
}

static void test_degraded_link_makes_pcie_link_warn(void **state)
{
	char dev[16];

	(void)state;
	require_ipus();
	ke_require();
	pci_name(0, dev, sizeof(dev));
	ke_fault(0, "degrade_link");
	/* A warning is not a failure: exit 0. */
	assert_int_equal(bringup((const char *[]){ "--test", "pcie-link,dma",
						    "--device", dev, NULL }), 0);
	assert_result("WARN", "pcie-link", "hw:");
	assert_said("degraded: 2.5GT/s x1 of 16GT/s x16");
	assert_result("PASS", "dma", "hw:");
}

static void test_refused_firmware_makes_firmware_fail(void **state)
{
	const char *bdf = ke_refused_bdf;

	(void)state;
	require_ipus();
	ke_require();
	ke_refuse_last_fw();
	assert_int_not_equal(kt_write_file(KT_PCI_DRIVER "/bind", bdf), 0);
	/* Named by its address: it has no /dev/ipuN. */
	assert_int_equal(bringup((const char *[]){ "--test", "enumerate,firmware",
						    "--device", bdf, NULL }), 1);
	assert_result("FAIL", "enumerate", bdf);
	assert_result("FAIL", "firmware", bdf);
	assert_said("refused by the device");
	/* ... and by default, with the bound ones. */
	assert_int_equal(bringup((const char *[]){ "--test", "firmware", NULL }), 1);
	assert_result("FAIL", "firmware", bdf);
	ke_unrefuse();
}

/* launch_timeout_ms as it was (ks_timeout_set()). */
static int hang_teardown(void **state)
{
	ks_timeout_restore();
	return kt_teardown(state);
}

static void test_hung_launch_fails_compute_and_reset_recovers(void **state)
{
	struct ipu_info info;
	char dev[16];
	int fd, n;

	(void)state;
	require_ipus();
	ke_require();
	n = ipu_of(ipus[0]);
	assert_true(n >= 0);
	fd = kt_open((unsigned int)n);
	info = kt_info(fd);
	kt_close(fd);
	if (!(info.features & IPU_FEATURE_LAUNCH)) {
		print_message("PCI IPUs cannot launch yet: skipped\n");
		kt_skip();
	}
	snprintf(dev, sizeof(dev), "%d", n);
	/* The kernel's watchdog catches the hang soon. */
	ks_timeout_set(2000);
	ke_fault(0, "hang_launch=1");
	assert_int_equal(bringup((const char *[]){ "--test", "compute",
						    "--device", dev, NULL }), 1);
	assert_result("FAIL", "compute", "hw:");
	/*
	 * The reset check's launches are normal ones: a run of its own,
	 * under the normal deadline, not the hang's (a slow guest may take
	 * longer than that to compute after the reset).
	 */
	ks_timeout_restore();
	assert_int_equal(bringup((const char *[]){ "--test", "reset",
						    "--device", dev, NULL }), 0);
	assert_result("PASS", "reset", "hw:");
}

static void test_dma_is_graded_against_the_link(void **state)
{
	char dev[16];

	(void)state;
	require_ipus();
	pci_name(0, dev, sizeof(dev));
	/* No link carries 1000 % of its rate: a WARN, exit 0 ... */
	assert_int_equal(bringup((const char *[]){ "--test", "dma", "--device", dev,
						    "--dma-pass", "1000", "--dma-warn", "0",
						    NULL }), 0);
	assert_result("WARN", "dma", "hw:");
	assert_said("data intact, but ");
	assert_said("% of Gen4 x16's ");
	assert_said("(PASS from 1000%, FAIL below 0%)");
	assert_said("h2d_of_link=");
	assert_said("link_rate=");
	/* ... or a FAIL, exit 1. */
	assert_int_equal(bringup((const char *[]){ "--test", "dma", "--device", dev,
						    "--dma-pass", "1000", "--dma-warn", "999",
						    NULL }), 1);
	assert_result("FAIL", "dma", "hw:");
}

static void test_a_simulated_ipu_has_no_link_to_compare(void **state)
{
	char dev[16];

	(void)state;
	snprintf(dev, sizeof(dev), "%u", first_sim());
	/* Thresholds no link meets: there is none, so no grade. */
	assert_int_equal(bringup((const char *[]){ "--test", "dma", "--device", dev,
						    "--dma-pass", "1000", "--dma-warn", "999",
						    NULL }), 0);
	assert_result("PASS", "dma", "hw:");
	assert_said("no link to compare (no PCIe function)");
}

/* ipu.ko's IPU 0 and the rig's first PCI IPU, two at a time. */
static void test_jobs_give_the_verdicts_of_one_at_a_time(void **state)
{
	char dev[16], devs[40], pci[24];

	(void)state;
	kt_require_dev(0);
	require_ipus();
	pci_name(0, dev, sizeof(dev));
	snprintf(devs, sizeof(devs), "0,%s", dev);
	snprintf(pci, sizeof(pci), "hw:%s", dev);
	assert_int_equal(bringup((const char *[]){ "-j", "2", "--test", "enumerate,dma",
						    "--device", devs, NULL }), 0);
	assert_said(" 0 failed, ");
	assert_result("PASS", "enumerate", "hw:0");
	assert_result("PASS", "dma", "hw:0");
	assert_result("PASS", "dma", pci);
}

static void test_counted_memory_errors_make_memory_warn(void **state)
{
	char dev[16];

	(void)state;
	require_ipus();
	ke_require();
	pci_name(0, dev, sizeof(dev));
	ke_fault(0, "mem_ue=1");
	assert_int_equal(bringup((const char *[]){ "--test", "memory",
						    "--device", dev, NULL }), 0);
	assert_result("WARN", "memory", "hw:");
	assert_said("uncorrected device-memory errors counted before the check");
	assert_said("mem_errors_uncorrected");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_a_quick_run_on_every_ipu_passes),
		KT_TEST(test_the_json_report_is_valid),
		KT_TEST(test_sim_fail_dma_makes_dma_fail),
		KT_TEST(test_corrupt_dma_makes_dma_fail),
		cmocka_unit_test_teardown(test_degraded_link_makes_pcie_link_warn,
					  link_teardown),
		cmocka_unit_test_teardown(test_refused_firmware_makes_firmware_fail,
					  ke_refuse_teardown),
		cmocka_unit_test_teardown(test_hung_launch_fails_compute_and_reset_recovers,
					  hang_teardown),
		KT_TEST(test_dma_is_graded_against_the_link),
		KT_TEST(test_a_simulated_ipu_has_no_link_to_compare),
		KT_TEST(test_jobs_give_the_verdicts_of_one_at_a_time),
		KT_TEST(test_counted_memory_errors_make_memory_warn),
	};

	kp_init();
	return KT_RUN(tests);
}
