// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_quiesce.c - ipu.ko lets go of memory the device may write only
 * once the device has stopped (docs/hardware.md 2.1, 4.1, 9.1): a disable
 * and a soft reset are posted writes, and until the queue's STATUS reads
 * idle (RESET_COUNT moved) the device may still complete what it had
 * fetched. ipu-emu's late_completion fault holds that work in flight for
 * the rig's whole posted window (--posted-window-us), the latest the spec
 * allows:
 *  - a transfer whose device lied in its writeback (bad_writeback) is
 *    stopped, and returns only after the stop: the late data never lands
 *    in the user's buffer after the call returned, and the queue, whose
 *    stop the driver waited for, enables again (the next transfer works);
 *  - remove() while a transfer is stalled on the device (hang_dma) with
 *    its completion late: the transfer ends with -ENODEV, the function
 *    binds again and works (on the IOMMU boot, a late write into a ring or
 *    buffer the driver had unmapped would be refused by the model and the
 *    queue found halted);
 *  - transfers racing resets (RESET) end with 0 or -EIO, never with the
 *    -ETIMEDOUT of the driver's DMA deadline (dma_timeout_ms): a transfer
 *    never posts to a ring the reset disabled while the reset waits for
 *    it (the errno says so; how long a transfer took is not asserted);
 *  - a device whose rings never stop (ipu-emu's never_idle, broken
 *    silicon): remove() returns within the stop's bound, leaving the
 *    rings their memory; a transfer whose stop never comes fails, keeps
 *    its pages and unplugs the device (its files get -ENODEV). Nothing
 *    crashes (KASAN on the debug kernel), and the function, its fault
 *    lifted, binds again (probe's FLR) and works. Not on a kernel with the
 *    DMA API's debug checks, which report the deliberate leak (a WARN),
 *    nor behind the rig's IOMMU, where the leaked mappings outlive the
 *    function (skip_where_a_leak_lasts()).
 * Skipped without PCI IPUs or without ipu-emu's control port.
 */
#include <poll.h>

#include "kunplug.h"

#define LEN (64 * 1024)
#define BIG (4u << 20)
#define RESETS 40

static void test_a_lie_is_stopped_before_the_call_returns(void **state)
{
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	uint8_t *seen = kt_alloc(LEN);
	int fd = ke_open_first();
	uint32_t bo = kt_bo(fd, LEN, NULL);
	size_t i;

	(void)state;
	kt_fill(buf, LEN, 23);
	assert_int_equal(kt_write_bo(fd, bo, 0, buf, LEN), 0);
	memset(back, 0x5a, LEN);
	/*
	 * The lie fails the transfer; the disable that follows releases the
	 * held descriptor, whose data moves at the end of the window.
	 */
	ke_fault(0, "bad_writeback=early,late_completion");
	assert_int_equal(kt_read_bo(fd, bo, 0, back, LEN), -EIO);
	/* What moved before the return may be anything (spec 9.3). */
	memcpy(seen, back, LEN);
	/* The driver waited for the stop: the queue enables again. */
	assert_int_equal(kt_read_bo(fd, bo, 0, buf, LEN), 0);
	assert_pattern(buf, LEN, 23);
	for (i = 0; i < LEN; i++)
		if (back[i] != seen[i])
			fail_msg("byte %zu written by the device after the transfer returned",
				 i);
}

/* The rig's last function, which the tests unbind: its bdf and ipuN. */
static const char *last_fn(unsigned int *emu, int *n)
{
	require_ipus();
	ke_require();
	*emu = nr_ipus - 1;
	*n = ipu_of(ipus[*emu]);
	if (*n < 0)
		fail_msg("%s has no ipuN (not bound?)", ipus[*emu]);
	return ipus[*emu];
}

static void test_remove_waits_for_a_late_completion(void **state)
{
	uint8_t *buf = kt_alloc(BIG), *back = kt_alloc(BIG);
	unsigned int emu;
	const char *bdf;
	uint32_t bo;
	int fd, n, st;
	pid_t pid;

	(void)state;
	bdf = last_fn(&emu, &n);
	fd = kt_open((unsigned int)n);
	assert_int_equal(kt_attach(fd), 0);
	bo = kt_bo(fd, BIG, NULL);
	ke_fault(emu, "late_completion");
	pid = ku_stalled_transfer(fd, bo, BIG, emu);
	kp_unbind(bdf);
	st = kt_wait(pid);
	assert_int_equal(child_exit_errno(st), ENODEV);
	assert_int_equal(kt_close(fd), 0);
	kp_bind(bdf);
	ku_works_again((unsigned int)ipu_of(bdf), buf, back, BIG, 29);
}

/*
 * A child moving LEN bytes to and from @bo until the pipe @stop closes
 * (the child closes its copy of the write end, @stop_w): exits 0, or 1
 * when a transfer failed other than with -EIO (a transfer left on a ring
 * the reset disabled would end at the DMA deadline, -ETIMEDOUT).
 */
static void race_child(int fd, uint32_t bo, int ready, int stop, int stop_w)
{
	uint8_t *host = kl_host(LEN);
	unsigned int i;
	struct pollfd p = { .fd = stop, .events = POLLIN };

	close(stop_w);
	kt_pipe_send(ready, 'r');
	for (i = 0; !poll(&p, 1, 0); i++) {
		int err = i & 1 ? kt_read_bo(fd, bo, 0, host, LEN) :
				  kt_write_bo(fd, bo, 0, host, LEN);

		if (err && err != -EIO) {
			fprintf(stderr, "transfer %u: %d\n", i, err);
			_exit(1);
		}
	}
	_exit(0);
}

static void test_transfers_racing_resets_end_at_once(void **state)
{
	int fd = ke_open_first(), ready[2], stop[2], i, k, st;
	uint32_t bo = kt_bo(fd, LEN, NULL);
	pid_t pid[2];

	(void)state;
	kt_pipe(ready);
	kt_pipe(stop);
	for (k = 0; k < 2; k++) {
		pid[k] = kt_fork_opt(true);
		if (pid[k] == 0)
			race_child(fd, bo, ready[1], stop[0], stop[1]);
		assert_int_equal(kt_pipe_recv(ready[0]), 'r');
	}
	for (i = 0; i < RESETS; i++)
		assert_int_equal(kt_reset(fd), 0);
	kt_close(stop[1]);
	for (k = 0; k < 2; k++) {
		st = kt_wait(pid[k]);
		assert_int_equal(child_exit_errno(st), 0);
	}
}

/* The fault lifted and the function bound again, whatever the test did. */
static int never_idle_teardown(void **state)
{
	kt_cleanup();
	if (ke_open()) {
		char ans[256];

		ke_send("fault", nr_ipus - 1, "never_idle=0", ans, sizeof(ans));
		if (ipu_of(ipus[nr_ipus - 1]) < 0)
			kt_write_file(KT_PCI_DRIVER "/bind", ipus[nr_ipus - 1]);
	}
	return kt_teardown(state);
}

static void test_remove_leaves_rings_that_never_stop_their_memory(void **state)
{
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	unsigned int emu;
	const char *bdf;
	struct ipu_info info;
	int fd, n;

	(void)state;
	kp_skip_where_a_leak_lasts();
	bdf = last_fn(&emu, &n);
	fd = ku_works_again((unsigned int)n, buf, back, LEN, 31);
	ke_fault(emu, "never_idle");
	/* Returns: each stop is bounded, the first one found hung. */
	kp_unbind(bdf);
	assert_int_equal(kt_get_info(fd, &info), -ENODEV);
	assert_int_equal(kt_close(fd), 0);
	ke_fault(emu, "never_idle=0");
	kp_bind(bdf);
	ku_works_again((unsigned int)ipu_of(bdf), buf, back, LEN, 37);
}

static void test_a_transfer_whose_queue_never_stops_unplugs_the_device(void **state)
{
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	unsigned int emu, i;
	const char *bdf;
	struct ipu_info info;
	uint32_t bo;
	int fd, n;

	(void)state;
	kp_skip_where_a_leak_lasts();
	bdf = last_fn(&emu, &n);
	fd = kt_open((unsigned int)n);
	assert_int_equal(kt_attach(fd), 0);
	bo = kt_bo(fd, LEN, NULL);
	/* The lie makes the driver stop the queue, which never stops. */
	ke_fault(emu, "bad_writeback=early,never_idle");
	assert_int_equal(kt_read_bo(fd, bo, 0, back, LEN), -EIO);
	/* The driver unbinds itself from the hung device. */
	for (i = 0; i < KS_POLLS && ipu_of(bdf) >= 0; i++)
		ks_pause();
	assert_int_equal(ipu_of(bdf), -1);
	assert_int_equal(kt_get_info(fd, &info), -ENODEV);
	assert_int_equal(kt_close(fd), 0);
	ke_fault(emu, "never_idle=0");
	kp_bind(bdf);
	ku_works_again((unsigned int)ipu_of(bdf), buf, back, LEN, 41);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_a_lie_is_stopped_before_the_call_returns),
		KT_TEST(test_remove_waits_for_a_late_completion),
		KT_TEST(test_transfers_racing_resets_end_at_once),
		cmocka_unit_test_teardown(test_remove_leaves_rings_that_never_stop_their_memory,
					  never_idle_teardown),
		cmocka_unit_test_teardown(test_a_transfer_whose_queue_never_stops_unplugs_the_device,
					  never_idle_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
