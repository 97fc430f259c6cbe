// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_bad_writeback.c - a device that lies in its completion
 * writeback (ipu-emu's bad_writeback fault, docs/hardware.md section 11):
 * before the next descriptor starts, the writeback reports a head that is
 * TAIL (early), a slot never published (beyond), outside the ring (range)
 * or backwards (behind), with the queue's interrupt; the descriptor then
 * waits for the host's next TAIL write, a disable or a reset. ipu.ko must
 * complete only what the device really finished:
 *  - DMA queues: the transfer fails with -EIO at once (the queue stopped
 *    and restarted before the pages are let go), and the device never
 *    writes into the buffer after the call returned; the next transfer
 *    works;
 *  - command queue: the launch stays in flight (its buffers referenced)
 *    until the watchdog resets the device and fails it with -ETIMEDOUT,
 *    never -EIO on the lie's word; the next launch runs.
 * Skipped without PCI IPUs or without ipu-emu's control port.
 */
#include "kpci.h"
#include "kemu.h"
#include "kprog.h"
#include "ksimd.h"

#define LEN (64 * 1024)
/* A short deadline: the watchdog fires a second later. */
#define HANG_TIMEOUT_MS 500

/*
 * A transfer from the device under the lie @mode: -EIO; then the buffer
 * is the test's again, and the next transfer (its TAIL write releases
 * what the device held) must not write into it.
 */
static void d2h_lie(const char *mode)
{
	uint8_t *buf = kt_alloc(LEN), *back = kt_alloc(LEN);
	char spec[64];
	int fd = ke_open_first();
	uint32_t bo = kt_bo(fd, LEN, NULL);
	size_t i;

	kt_fill(buf, LEN, 11);
	assert_int_equal(kt_write_bo(fd, bo, 0, buf, LEN), 0);
	snprintf(spec, sizeof(spec), "bad_writeback=%s", mode);
	ke_fault(0, spec);
	assert_int_equal(kt_read_bo(fd, bo, 0, back, LEN), -EIO);
	memset(back, 0x5a, LEN);
	assert_int_equal(kt_read_bo(fd, bo, 0, buf, LEN), 0);
	assert_int_equal(kt_check(buf, LEN, 11), -1);
	for (i = 0; i < LEN; i++)
		if (back[i] != 0x5a)
			fail_msg("byte %zu written by the device after the transfer returned",
				 i);
}

static void test_dma_early_head_fails_the_transfer_and_stops_the_queue(void **state)
{
	(void)state;
	d2h_lie("early");
}

static void test_dma_head_out_of_the_ring_fails_the_transfer(void **state)
{
	(void)state;
	d2h_lie("range");
}

static void test_dma_head_behind_fails_the_transfer(void **state)
{
	(void)state;
	d2h_lie("behind");
}

/*
 * A launch under the lie @mode: still in flight until the watchdog's
 * reset (one), which fails it with -ETIMEDOUT; the next launch runs.
 */
static void launch_lie(const char *mode)
{
	struct kp_prog *p = kp_mlp(1);
	struct ipu_launch l;
	char spec[64];
	uint64_t before;
	int fd = ke_open_first();

	ks_timeout_set(HANG_TIMEOUT_MS);
	kp_launch_bufs(fd, p->image, p->len, p->exe->arena_size, &l);
	before = kt_info(fd).reset_count;
	snprintf(spec, sizeof(spec), "bad_writeback=%s", mode);
	ke_fault(0, spec);
	assert_int_equal(kt_launch_wait(fd, &l), -ETIMEDOUT);
	assert_int_equal(kt_info(fd).reset_count, before + 1);
	/* The next launch is a normal one: under the normal deadline. */
	ks_timeout_restore();
	assert_int_equal(kt_launch_wait(fd, &l), 0);
	kp_free(p);
}

static void test_launch_early_head_is_not_a_completion(void **state)
{
	(void)state;
	launch_lie("early");
}

static void test_launch_head_beyond_tail_is_not_a_completion(void **state)
{
	(void)state;
	launch_lie("beyond");
}

static void test_launch_head_out_of_the_ring_is_not_a_completion(void **state)
{
	(void)state;
	launch_lie("range");
}

static void test_launch_head_behind_is_not_a_completion(void **state)
{
	(void)state;
	launch_lie("behind");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_dma_early_head_fails_the_transfer_and_stops_the_queue),
		KT_TEST(test_dma_head_out_of_the_ring_fails_the_transfer),
		KT_TEST(test_dma_head_behind_fails_the_transfer),
		KS_TEST(test_launch_early_head_is_not_a_completion),
		KS_TEST(test_launch_head_beyond_tail_is_not_a_completion),
		KS_TEST(test_launch_head_out_of_the_ring_is_not_a_completion),
		KS_TEST(test_launch_head_behind_is_not_a_completion),
	};

	kp_init();
	return KT_RUN(tests);
}
