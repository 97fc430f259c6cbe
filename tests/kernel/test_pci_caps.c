// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_caps.c - what the probe makes of CAPS (docs/hardware.md
 * section 3; issue 25, item 11), on the rig's last function, its CAPS
 * changed by ipu-emu's caps_xor fault (the device itself unchanged):
 *  - without the DMA queues (bit 0) or the command queue (bit 1) the
 *    function cannot be driven: the bind fails with one dmesg line that
 *    names CAPS, and leaves no device;
 *  - bits the spec does not name (7) are ignored, as a later minor
 *    version may add them: the function binds and moves bytes;
 *  - without TELEMETRY (bit 2) the function binds with no hwmon device;
 *  - without PROFILE (bit 6, spec 2.1) it binds, GET_INFO lacks
 *    IPU_FEATURE_PROFILE and profiled launches are refused (-EOPNOTSUPP);
 * and with CAPS as it was, the function binds with its hwmon again.
 * Skipped without PCI IPUs or without the control port.
 */
#include "kunplug.h"

#define LEN (1u << 20)

/* The function whose CAPS the test changed, "" when none. */
static char caps_bdf[16];

/* Unbind the last function and inject @spec into it. */
static const char *caps_fault(const char *spec)
{
	require_ipus();
	ke_require();
	snprintf(caps_bdf, sizeof(caps_bdf), "%s", ipus[nr_ipus - 1]);
	kp_unbind(caps_bdf);
	ke_fault(nr_ipus - 1, spec);
	return caps_bdf;
}

/* Unbind the last function and make its CAPS read XOR @xor. */
static const char *caps_xor(unsigned int xor)
{
	char spec[32];

	snprintf(spec, sizeof(spec), "caps_xor=%u", xor);
	return caps_fault(spec);
}

/* What caps_fault() may have injected, lifted. */
#define CAPS_BACK "caps_xor=0,no_profile=0"

/* CAPS as it was, and the function bound with its hwmon. */
static void caps_back(void)
{
	char path[PATH_MAX];

	ke_fault(nr_ipus - 1, CAPS_BACK);
	kp_bind(caps_bdf);
	fn_path(path, sizeof(path), caps_bdf, "hwmon");
	if (access(path, F_OK))
		fail_msg("%s bound again without its hwmon", caps_bdf);
	caps_bdf[0] = '\0';
}

static void test_caps_without_the_command_queue_fails_the_probe(void **state)
{
	(void)state;
	bind_fails_with(caps_xor(IPU_CAPS_CMDQ), "CAPS 0x4037d");
	caps_back();
}

static void test_caps_without_the_dma_queues_fails_the_probe(void **state)
{
	(void)state;
	bind_fails_with(caps_xor(IPU_CAPS_DMA), "CAPS 0x4037e");
	caps_back();
}

static void test_caps_bits_the_spec_does_not_name_are_ignored(void **state)
{
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	const char *bdf = caps_xor(0x80);

	(void)state;
	kp_bind(bdf);
	ku_works_again((unsigned int)ipu_of(bdf), buf, back, LEN, 5);
	kt_cleanup();
	kp_unbind(bdf);
	caps_back();
}

static void test_caps_without_telemetry_binds_without_hwmon(void **state)
{
	const char *bdf = caps_xor(IPU_CAPS_TELEMETRY);
	char path[PATH_MAX];

	(void)state;
	kp_bind(bdf);
	fn_path(path, sizeof(path), bdf, "hwmon");
	if (!access(path, F_OK))
		fail_msg("%s has a hwmon device without TELEMETRY in CAPS", bdf);
	kp_unbind(bdf);
	caps_back();
}

static void test_caps_without_profile_refuses_profiled_launches(void **state)
{
	/* A device of spec 2.0: no PROFILE in CAPS, nor in what it does. */
	const char *bdf = caps_fault("no_profile");
	size_t page = kt_page_size();
	struct ipu_launch l = { 0 };
	struct ipu_info info;
	int fd;

	(void)state;
	kp_bind(bdf);
	fd = kt_open_attached((unsigned int)ipu_of(bdf));
	assert_int_equal(kt_get_info(fd, &info), 0);
	assert_int_equal(info.features & IPU_FEATURE_PROFILE, 0);
	assert_int_not_equal(info.features & IPU_FEATURE_LAUNCH, 0);
	l.exe_handle = kt_bo(fd, page, NULL);
	l.arena_handle = kt_bo(fd, page, NULL);
	l.exe_size = page;
	l.arena_size = page;
	l.num_replicas = 1;
	l.flags = IPU_LAUNCH_PROFILE;
	l.profile_handle = kt_bo(fd, page, NULL);
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_LAUNCH, &l), -EOPNOTSUPP);
	kt_cleanup();
	kp_unbind(bdf);
	caps_back();
}

/* A failed test still leaves CAPS as it was and the function bound. */
static int caps_teardown(void **state)
{
	kt_cleanup();
	if (caps_bdf[0]) {
		ke_fault(nr_ipus - 1, CAPS_BACK);
		kt_write_file(KT_PCI_DRIVER "/unbind", caps_bdf);
		kt_write_file(KT_PCI_DRIVER "/bind", caps_bdf);
		caps_bdf[0] = '\0';
	}
	return kt_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_caps_without_the_command_queue_fails_the_probe,
					  caps_teardown),
		cmocka_unit_test_teardown(test_caps_without_the_dma_queues_fails_the_probe,
					  caps_teardown),
		cmocka_unit_test_teardown(test_caps_bits_the_spec_does_not_name_are_ignored,
					  caps_teardown),
		cmocka_unit_test_teardown(test_caps_without_telemetry_binds_without_hwmon,
					  caps_teardown),
		cmocka_unit_test_teardown(test_caps_without_profile_refuses_profiled_launches,
					  caps_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
