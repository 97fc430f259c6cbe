// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_failed_reset.c - a reset of the driver's that fails: the soft
 * reset ignored (ipu-emu's ignore_reset fault) and the fallback FLR
 * refused (the function's sysfs `reset_method` emptied, so the PCI core
 * has no way to reset it: what a function whose FLR cannot be done looks
 * like to the driver). docs/hardware.md 9.1, 10: nothing was reset, so
 * the rings run on as they were.
 *  - RESET fails with -EIO (not the PCI core's -ENOTTY), and the device
 *    keeps working: a launch after it runs (test_pci_gather: so do split
 *    runs, through the gather ring the failed reset left running);
 *  - unbinding the driver afterwards stops every ring of the function,
 *    the gather ring with the others, before their memory goes (issue 25
 *    item 7: gq->enabled, cleared by the failed reset, made the driver
 *    skip the gather ring's stop, and devres freed a ring the device
 *    still ran); ipu-emu's status says which rings are enabled.
 * Skipped without PCI IPUs or without ipu-emu's control port.
 */
#include "kreset.h"

static int restore_teardown(void **state)
{
	kr_reset_methods(ipus[0], "default");
	ke_fault(0, "clear");
	if (ipu_of(ipus[0]) < 0)
		kp_bind(ipus[0]);
	return kt_teardown(state);
}

static void test_a_failed_reset_is_eio_and_the_device_works_on(void **state)
{
	int fd = ke_open_first(), n = ipu_of(ipus[0]);

	(void)state;
	assert_int_equal(kr_run(fd), 0);
	assert_int_equal(kr_failed_reset(fd), -EIO);
	kr_reset_methods(ipus[0], "default");
	assert_int_equal(ipu_of(ipus[0]), n);
	assert_int_equal(kr_run(fd), 0);
	/* A reset that works, after: the gather ring restarts with the rest. */
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_RESET, &(struct ipu_reset){ 0 }), 0);
	assert_int_equal(kr_run(fd), 0);
}

static void test_unbind_after_a_failed_reset_stops_every_ring(void **state)
{
	int fd = ke_open_first(), rings;

	(void)state;
	rings = ke_rings(0);
	if (rings < 0 || !(rings & 1 << 3)) {
		print_message("ipu0 has no gather ring enabled (rings=%d)\n", rings);
		kt_skip();
	}
	/* Its errno is the test above's. */
	assert_true(kr_failed_reset(fd) < 0);
	assert_int_equal(kt_close(fd), 0);
	kp_unbind(ipus[0]);
	assert_int_equal(ke_rings(0), 0);
	kr_reset_methods(ipus[0], "default");
	kp_bind(ipus[0]);
	fd = ke_open_first();
	assert_int_equal(kr_run(fd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_a_failed_reset_is_eio_and_the_device_works_on,
					  restore_teardown),
		cmocka_unit_test_teardown(test_unbind_after_a_failed_reset_stops_every_ring,
					  restore_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
