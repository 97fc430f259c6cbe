// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_mem_errors.c - the device-memory error counters of a PCI IPU
 * (docs/hardware.md section 3, MEM_CE and MEM_UE) as ipu.ko shows them:
 * /sys/bus/pci/devices/<address>/mem_errors_corrected and
 * mem_errors_uncorrected (driver/ipu_pci_sysfs.c). ipu-emu's faults
 * mem_ce=N and mem_ue=N add to them on every function of the rig; the
 * counts are the device's, so a reset keeps them. Skipped without PCI
 * IPUs or without ipu-emu's control port.
 */
#include "kemu.h"

static uint64_t counter(const char *bdf, const char *attr)
{
	char text[32], *end;
	uint64_t v;

	fn_text(bdf, attr, text, sizeof(text));
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || (*end && *end != '\n'))
		fail_msg("%s/%s: \"%s\" is no count", bdf, attr, text);
	return v;
}

static void test_the_counters_follow_the_device(void **state)
{
	uint64_t ce, ue;
	unsigned int i;

	(void)state;
	require_ipus();
	ke_require();
	for (i = 0; i < nr_ipus; i++) {
		ce = counter(ipus[i], "mem_errors_corrected");
		ue = counter(ipus[i], "mem_errors_uncorrected");
		ke_fault(i, "mem_ce=3");
		assert_int_equal(counter(ipus[i], "mem_errors_corrected"), ce + 3);
		assert_int_equal(counter(ipus[i], "mem_errors_uncorrected"), ue);
		ke_fault(i, "mem_ue=1");
		assert_int_equal(counter(ipus[i], "mem_errors_uncorrected"), ue + 1);
		assert_int_equal(counter(ipus[i], "mem_errors_corrected"), ce + 3);
	}
}

static void test_a_reset_keeps_the_counts(void **state)
{
	struct ipu_reset r = { 0 };
	uint64_t ce, ue;
	int fd = ke_open_first();

	(void)state;
	ke_fault(0, "mem_ce=2");
	ce = counter(ipus[0], "mem_errors_corrected");
	ue = counter(ipus[0], "mem_errors_uncorrected");
	assert_true(ce >= 2);
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_RESET, &r), 0);
	assert_int_equal(counter(ipus[0], "mem_errors_corrected"), ce);
	assert_int_equal(counter(ipus[0], "mem_errors_uncorrected"), ue);
	close(fd);
}

static void test_the_counters_are_read_only(void **state)
{
	char path[PATH_MAX];
	int fd;

	(void)state;
	require_ipus();
	fn_path(path, sizeof(path), ipus[0], "mem_errors_corrected");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		fail_msg("%s opens for writing", path);
	}
	assert_int_equal(errno, EACCES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_the_counters_follow_the_device),
		KT_TEST(test_a_reset_keeps_the_counts),
		KT_TEST(test_the_counters_are_read_only),
	};

	kp_init();
	return KT_RUN(tests);
}
