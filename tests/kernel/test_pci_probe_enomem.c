// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_probe_enomem.c - a probe of a PCIe IPU that fails at any of
 * its allocations leaves none of the function's rings enabled: devres
 * frees their memory once the probe has failed, which the device must
 * no longer reach (docs/hardware.md 2.1). The bind is retried with the
 * n-th allocation of this thread failing (fail-nth, as test_enomem.c
 * does it), n = 1, 2, ... until a bind no longer reaches its n-th
 * allocation; after each failed one, ipu-emu says which rings of the
 * function are enabled: none. The probe that failed setting up the
 * second DMA queue once left the first enabled.
 * Skipped without PCI IPUs, ipu-emu's control port or fault injection
 * (the debug kernel of the matrix has it, Debian's do not). Not in the
 * debug kernel's boot of make check (scripts/lib/kernels.sh says why:
 * the failures reach the kernel's MSI-X setup, where 6.1 once crashed);
 * run it by hand: IPU_KERNELS=debug IPU_KTEST=test_pci_probe_enomem.
 * test_pci_probe_errors fails the probe's steps in make check instead,
 * within ipu.ko (fail_function).
 */
#include "kfailnth.h"
#include "kreset.h"

/* More allocations than a probe makes: a loop that gets here is stuck. */
#define MAX_SITES 5000

static void test_a_failed_probe_leaves_no_ring_enabled(void **state)
{
	unsigned int n, failed = 0;
	bool fired = true;
	int rings;

	(void)state;
	require_ipus();
	ke_require();
	if (!nth_open()) {
		print_message("no fault injection in this kernel (no fail-nth): skipped\n");
		kt_skip();
	}
	kp_unbind(ipus[0]);
	assert_int_equal(ke_rings(0), 0);
	kmsg("IPU-FAULT-INJECTION begin");
	for (n = 1; n < MAX_SITES && fired; n++) {
		nth_arm(n);
		(void)kt_write_file(KT_PCI_DRIVER "/bind", ipus[0]);
		fired = nth_disarm();
		if (ipu_of(ipus[0]) >= 0) {
			/* Bound: the failure had a fallback, or none came. */
			if (fired)
				kp_unbind(ipus[0]);
			continue;
		}
		failed++;
		rings = ke_rings(0);
		if (rings)
			fail_msg("the probe that failed at allocation %u left rings %#x enabled",
				 n, rings);
	}
	kmsg("IPU-FAULT-INJECTION end");
	print_message("%u probes failed, one at each allocation\n", failed);
	if (fired)
		fail_msg("the probe still reached allocation %u", n - 1);
	assert_true(ipu_of(ipus[0]) >= 0);
}

/* Fault injection off, the function bound again. */
static int probe_teardown(void **state)
{
	if (nth_fd >= 0) {
		if (pwrite(nth_fd, "0", 1, 0) != 1)
			print_message("fail-nth: %s\n", strerror(errno));
		close(nth_fd);
		nth_fd = -1;
		kmsg("IPU-FAULT-INJECTION end");
		if (nr_ipus && ipu_of(ipus[0]) < 0)
			kp_bind(ipus[0]);
	}
	return kt_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_a_failed_probe_leaves_no_ring_enabled,
					  probe_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
