// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_uring_flood.c - io_uring transfers the device holds (ipu-emu's
 * hang_dma: the first waits on its DMA queue, the others for the queue)
 * neither starve the launch watchdog nor pile up without bound:
 *  - one process floods the owner's file with FLOOD transfers while a
 *    launch is held (hold_launches) past its deadline (launch_timeout_ms
 *    lowered): the watchdog resets the device at that deadline, which
 *    ends the launch (-ETIMEDOUT) and the stalled transfer (-EIO, its
 *    batch ended by the reset). A watchdog queued behind the transfers
 *    on one workqueue runs only once the stalled transfer gave up by its
 *    own 30 s DMA deadline (-ETIMEDOUT), which is what this sees fail;
 *  - a file has at most max_uring_xfers transfers in flight (the module
 *    parameter, lowered here to CAP from its default, a ring's worth):
 *    while the queue is held, the ones beyond complete at once with
 *    -EAGAIN; a reset ends the hold, and the others complete.
 * The stalled transfer goes alone, the others once it is stalled: the
 * transfers pending on a DMA queue share a doorbell (ipu_pci_dma.c), and
 * a reset fails every one of them on the ring, where these tests count
 * one failure.
 * Skipped without PCI IPUs or without ipu-emu's control port.
 */
#define KT_ON_PCI 1
#include "kheld.h"
#include "ksimd.h"

#define FLOOD 300
#define EXTRA 8
#define CAP 64
#define MAX_XFERS "/sys/module/ipu/parameters/max_uring_xfers"
#define TIMEOUT_MS 1000
/* A CQE's bound only: a KASAN guest on TCG is slow. */
#define CQE_WAIT_S 120

static struct io_uring flood;
static unsigned int flood_emu;
static char saved_cap[32];

/*
 * Transfers @from..@to of @len bytes from @host to @bo on @fd (their
 * user_data).
 */
static void flood_submit(int fd, uint32_t bo, const void *host, size_t len,
			 unsigned int from, unsigned int to)
{
	unsigned int i;
	int ret;

	for (i = from; i <= to; i++) {
		ku_xfer(&flood, fd, bo, 0, host, len, IPU_XFER_TO_DEVICE, i);
		if (i % 64 == 0 || i == to) {
			ret = io_uring_submit(&flood);
			if (ret < 0)
				fail_msg("io_uring_submit: %s", strerror(-ret));
		}
	}
}

/* The next CQE of @ring (bounded): its result, its user_data in *@ud. */
static int next_cqe(struct io_uring *ring, uint64_t *ud)
{
	struct __kernel_timespec ts = { .tv_sec = CQE_WAIT_S };
	struct io_uring_cqe *cqe;
	int ret, res;

	ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
	if (ret)
		fail_msg("no CQE in %d s: %s", CQE_WAIT_S, strerror(-ret));
	res = cqe->res;
	*ud = cqe->user_data;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

/* The device's queue holds the first transfer (event: ipu-emu says so). */
static void wait_stalled(unsigned int emu)
{
	int i, stalled = 0;

	for (i = 0; i < KS_POLLS && (stalled = ke_stalled(emu)) == 0; i++)
		ks_pause();
	if (stalled != 1)
		fail_msg("ipu-emu's ipu%u holds %d stalled descriptors, not 1",
			 emu, stalled);
}

static void test_watchdog_fires_under_a_transfer_flood(void **state)
{
	struct kfw f = kh_setup();
	uint64_t g = kt_granule(f.owner), ud;
	unsigned int i, eio = 0, eagain = 0, ok = 0;
	void *host = kt_alloc(g);
	uint32_t bo;
	int res;

	(void)state;
	flood_emu = ke_index_of(f.idx) + 1;
	bo = kt_bo(f.owner, g, NULL);
	ks_timeout_set(TIMEOUT_MS);
	ke_fault(flood_emu - 1, "hang_dma=1");
	flood_submit(f.owner, bo, host, g, 1, 1);
	wait_stalled(flood_emu - 1);
	flood_submit(f.owner, bo, host, g, 2, FLOOD);

	/* Held by the device past its deadline: only the watchdog ends it. */
	kh_uring_launch(&f);
	res = next_cqe(&ku_r, &ud);
	assert_int_equal(res, -ETIMEDOUT);

	for (i = 0; i < FLOOD; i++) {
		res = next_cqe(&flood, &ud);
		if (res == -ETIMEDOUT)
			fail_msg("transfer %llu ended by its own DMA deadline: the watchdog waited behind the transfers",
				 (unsigned long long)ud);
		if (res == -EIO)
			eio++;
		else if (res == -EAGAIN)
			eagain++;
		else if (res == 0)
			ok++;
		else
			fail_msg("transfer %llu: %d", (unsigned long long)ud, res);
	}
	/* The stalled one, ended by the watchdog's reset. */
	assert_int_equal(eio, 1);
	assert_true(eagain > 0);
	assert_true(ok + eio <= CAP);
	kh_release_revoked(&f, 0);
}

static void test_transfers_beyond_the_cap_get_eagain(void **state)
{
	unsigned int idx, i, eio = 0;
	uint64_t g, ud;
	void *host;
	uint32_t bo;
	int fd, res;

	(void)state;
	ke_require();
	idx = kt_own_dev(0);
	fd = kt_open_attached(idx);
	g = kt_granule(fd);
	host = kt_alloc(g);
	bo = kt_bo(fd, g, NULL);
	flood_emu = ke_index_of(idx) + 1;
	ke_fault(flood_emu - 1, "hang_dma=1");
	flood_submit(fd, bo, host, g, 1, 1);
	wait_stalled(flood_emu - 1);
	flood_submit(fd, bo, host, g, 2, CAP + EXTRA);

	/* Nothing else completes while the queue is held. */
	for (i = 0; i < EXTRA; i++) {
		res = next_cqe(&flood, &ud);
		if (res != -EAGAIN)
			fail_msg("transfer %llu: %d, not -EAGAIN",
				 (unsigned long long)ud, res);
	}
	/* A reset ends the stalled one (-EIO); the others then run. */
	assert_int_equal(kt_reset(fd), 0);
	for (i = 0; i < CAP; i++) {
		res = next_cqe(&flood, &ud);
		if (res == -EIO)
			eio++;
		else if (res)
			fail_msg("transfer %llu: %d", (unsigned long long)ud, res);
	}
	assert_int_equal(eio, 1);
}

static int flood_setup(void **state)
{
	ku_setup(state);
	ku_ring(&flood, 512, false);
	assert_int_equal(kt_read_file(MAX_XFERS, saved_cap, sizeof(saved_cap)),
			 0);
	assert_int_equal(kt_write_file(MAX_XFERS, "64"), 0);
	return 0;
}

/* The faults lifted first: a held transfer keeps the ring's exit waiting. */
static int flood_teardown(void **state)
{
	char buf[32];

	if (flood_emu)
		ke_send("fault", flood_emu - 1, "clear", buf, sizeof(buf));
	flood_emu = 0;
	kh_teardown(state);
	io_uring_queue_exit(&flood);
	if (saved_cap[0])
		kt_write_file(MAX_XFERS, saved_cap);
	saved_cap[0] = '\0';
	if (ks_saved_timeout) {
		snprintf(buf, sizeof(buf), "%u", ks_saved_timeout);
		kt_write_file(KS_TIMEOUT, buf);
		ks_saved_timeout = 0;
	}
	return 0;
}

#define FLOOD_TEST(f) cmocka_unit_test_setup_teardown(f, flood_setup, flood_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FLOOD_TEST(test_watchdog_fires_under_a_transfer_flood),
		FLOOD_TEST(test_transfers_beyond_the_cap_get_eagain),
	};

	KT_RUN(tests);
}
