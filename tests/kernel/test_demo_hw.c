// SPDX-License-Identifier: GPL-2.0
/*
 * test_demo_hw.c - the demo (userspace/examples/mlp_train: an MLP trained
 * with SGD on two data-parallel replicas that all-reduce their gradients)
 * on ipu.ko ("ipu_hw": ipu0 and ipu1, ipu-simd as the firmware) and on the
 * in-process model, in the same guest: the final weights must be the same
 * bits, which the demo prints as a checksum. Its PCI variant
 * (test_pci_demo_hw.c, KT_ON_PCI) runs "ipu_hw" on the PCIe IPUs alone,
 * as a user picks them: IPU_HW_PLATFORM=pci.
 */
#include "kprog.h"
#include "ksimd.h"

#define DEMO "/usr/bin/mlp_train"

/* The checksum line of a run of the demo on @device. */
static void demo_checksum(const char *device, char *sum, size_t len)
{
	const char *argv[] = { DEMO, "--device", device, NULL };
	static char out[65536];
	const char *line;
	int st;

	st = kt_run(argv, 0, out, sizeof(out));
	if (st)
		fail_msg("mlp_train --device %s: exit status %d:\n%s", device,
			 st, out);
	line = strstr(out, "weights checksum");
	if (!line)
		fail_msg("mlp_train --device %s printed no checksum:\n%s",
			 device, out);
	snprintf(sum, len, "%.*s", (int)strcspn(line, "\n"), line);
	print_message("%s: %s\n", device, sum);
}

static void test_the_demo_trains_the_same_bits_on_ipu_hw_as_on_the_model(void **state)
{
	char hw[128], model[128];

	(void)state;
	if (access(DEMO, X_OK)) {
		print_message(DEMO " absent: skipped\n");
		kt_skip();
	}
#ifdef KT_ON_PCI
	/* The demo's process inherits the environment. No firmware for the
	 * simulated IPUs meanwhile: had it taken one, its run would fail.
	 * (KS_TEST's teardown starts ipu-simd again.) */
	kt_require_dev(1);
	assert_int_equal(setenv("IPU_HW_PLATFORM", "pci", 1), 0);
	ks_simd_away();
#else
	ks_require_simd();
	kt_require_dev(1);
#endif
	demo_checksum("ipu_hw", hw, sizeof(hw));
	unsetenv("IPU_HW_PLATFORM");
	demo_checksum("ipu_model", model, sizeof(model));
	assert_string_equal(hw, model);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KS_TEST(test_the_demo_trains_the_same_bits_on_ipu_hw_as_on_the_model),
	};

	return kt_exit_code(cmocka_run_group_tests(tests, kp_group_setup, NULL),
			    KT_ARRAY_SIZE(tests));
}
