// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_unplug_isolation.c - each IPU has its own unplug guard: while
 * a transfer stalls on IPU A (ipu-emu's hang_dma; the transfer waits
 * inside A's guard, for up to the driver's 30 s DMA deadline), unbinding
 * IPU B completes at once. With one SRCU domain for every IPU, B's unbind
 * waited for A's transfer: it returned only once that transfer had given
 * up, which is what this sees fail. Then a reset of A ends its transfer,
 * and B binds again. Skipped without two PCI IPUs or without ipu-emu's
 * control port.
 */
#include "kunplug.h"

#define LEN (64 * 1024)

static void test_unbind_waits_for_no_other_ipu(void **state)
{
	int fd, n, st;
	uint32_t bo;
	pid_t pid;

	(void)state;
	require_ipus();
	ke_require();
	if (nr_ipus < 2) {
		print_message("fewer than two PCI IPUs: skipped\n");
		kt_skip();
	}
	n = ipu_of(ipus[0]);
	if (n < 0 || ipu_of(ipus[1]) < 0)
		fail_msg("%s or %s has no ipuN (not bound?)", ipus[0], ipus[1]);
	fd = kt_open((unsigned int)n);
	assert_int_equal(kt_attach(fd), 0);
	bo = kt_bo(fd, LEN, NULL);
	pid = ku_stalled_transfer(fd, bo, LEN, 0);

	kp_unbind(ipus[1]);
	/* Event order: B is gone while A's transfer still stalls. */
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
	assert_int_equal(ke_stalled(0), 1);

	assert_int_equal(kt_reset(fd), 0);
	st = kt_wait(pid);
	if (child_exit_errno(st) != 0 && child_exit_errno(st) != EIO)
		fail_msg("the stalled transfer ended with %d, not 0 or EIO",
			 child_exit_errno(st));
	kp_bind(ipus[1]);
}

/* B bound again even when the test failed half-way. */
static int isolation_teardown(void **state)
{
	char buf[64];

	ke_send("fault", 0, "clear", buf, sizeof(buf));
	kt_teardown(state);
	if (nr_ipus >= 2 && ipu_of(ipus[1]) < 0)
		kt_write_file(KT_PCI_DRIVER "/bind", ipus[1]);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_unbind_waits_for_no_other_ipu,
					  isolation_teardown),
	};

	kp_init();
	KT_RUN(tests);
}
