// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_dma_batch.c - transfers that share a PCI IPU's DMA doorbell
 * (driver/ipu_pci_dma.c: the holder of a queue posts every transfer
 * pending on it, a ring's worth per doorbell) each get their own result
 * when a reset ends the batch:
 *  - the transfers of the ring's worth on the device when the reset came
 *    fail (-EIO), but the ones the device had finished before it succeed
 *    (their descriptors say DONE);
 *  - the transfers of the batch that had not reached the device (beyond
 *    the first ring's worth) wait for the ring again and succeed, their
 *    bytes in device memory: nothing of the reset was theirs;
 *  - when the ring does not stop (a hung device), only the transfers it
 *    reached keep their pages for good;
 *  - a timeout fails the transfers the device had not finished
 *    (-ETIMEDOUT), not the one it had (dma_timeout_ms lowered).
 * Set up with ipu-emu's hang_dma fault and the driver's trace events
 * (ipu_dma_queue: every transfer is pending before the ring is let go;
 * ipu_dma_doorbell: how many went behind the first doorbell). The
 * transfers are XFER ioctls from threads of their own: io_uring's would
 * wait for workers of a workqueue whose concurrency is a ring's worth.
 * Skipped without PCI IPUs, ipu-emu's control port or tracefs.
 */
#define KT_ON_PCI 1
#include <limits.h>
#include <pthread.h>

#include "kemu.h"
#include "kpci.h"
#include "ksimd.h"
#include "ktrace.h"

/* Transfers behind the stalled one: more than a ring's worth (255). */
#define BEHIND 300
/* Re-reads of the trace while waiting for events: a bug beyond. */
#define TR_POLLS 100000

static unsigned int batch_emu;

struct writer {
	pthread_t thread;
	int fd;
	uint32_t bo;
	uint64_t off;
	const void *src;
	size_t len;
	int ret;
};

static void *writer_run(void *arg)
{
	struct writer *w = arg;

	w->ret = kt_write_bo(w->fd, w->bo, w->off, w->src, w->len);
	return NULL;
}

static void writer_start(struct writer *w)
{
	int err = pthread_create(&w->thread, NULL, writer_run, w);

	if (err)
		fail_msg("pthread_create: %s", strerror(err));
}

/* A trace instance of this test's own with the two DMA queue events on. */
static void tr_on(void)
{
	kr_instance();
	kr_write("events/ipu/ipu_dma_queue/enable", "1");
	kr_write("events/ipu/ipu_dma_doorbell/enable", "1");
}

/*
 * The events @name of ipu@minor's host-to-device queue in the trace:
 * their count; the "transfers=" of the first in *@first_tx (doorbells).
 */
static unsigned int tr_count(int minor, const char *name,
			     unsigned int *first_tx)
{
	char path[PATH_MAX + 16], line[512], pat[96];
	unsigned int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", kr_dir);
	snprintf(pat, sizeof(pat), ": %s: ipu%d dir=to_device ", name, minor);
	f = fopen(path, "re");
	if (!f)
		fail_msg("open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, pat), *tx;

		if (!p)
			continue;
		tx = strstr(p, " transfers=");
		if (!n && first_tx && tx)
			*first_tx = (unsigned int)strtoul(tx + 11, NULL, 10);
		n++;
	}
	fclose(f);
	return n;
}

/* Until ipu@minor's queue had @n transfers join it (event, bounded). */
static void wait_queued(int minor, unsigned int n)
{
	unsigned int i, got = 0;

	for (i = 0; i < TR_POLLS && (got = tr_count(minor, "ipu_dma_queue",
						     NULL)) < n; i++)
		ks_pause();
	if (got != n)
		fail_msg("%u transfers joined the queue, not %u", got, n);
}

/* Until ipu-emu's ipu@emu holds one stalled descriptor (bounded). */
static void wait_stalled(unsigned int emu)
{
	int i, stalled = 0;

	for (i = 0; i < KS_POLLS && (stalled = ke_stalled(emu)) != 1; i++)
		ks_pause();
	if (stalled != 1)
		fail_msg("ipu-emu's ipu%u holds %d stalled descriptors, not 1",
			 emu, stalled);
}

/* Transfers queued behind a stalled one (batch_queue()). */
struct batch {
	struct writer w[BEHIND + 1];
	unsigned int idx, emu, first_tx;
	size_t page;
	uint8_t *src;
	int fd, minor;
	uint32_t bo;
};

/*
 * @b->w[0] alone on the host-to-device ring, stalled by hang_dma, its
 * poster holding the ring; then BEHIND more, one page each, pending
 * behind it. @then: ipu-emu faults for what the batch of those meets.
 */
static void batch_queue(struct batch *b, const char *then)
{
	unsigned int i;

	ke_require();
	b->page = kt_page_size();
	b->idx = kt_own_dev(0);
	b->minor = (int)kt_dev(b->idx);
	b->fd = kt_open_attached(b->idx);
	b->bo = kt_bo(b->fd, (BEHIND + 1) * b->page, NULL);
	b->src = kt_alloc((BEHIND + 1) * b->page);
	for (i = 0; i <= BEHIND; i++) {
		memset(b->src + i * b->page, (int)(i % 251) + 1, b->page);
		b->w[i] = (struct writer){ .fd = b->fd, .bo = b->bo,
					   .off = i * b->page,
					   .src = b->src + i * b->page,
					   .len = b->page };
	}
	b->emu = ke_index_of(b->idx);
	batch_emu = b->emu + 1;
	tr_on();

	ke_fault(b->emu, "hang_dma=1");
	writer_start(&b->w[0]);
	wait_stalled(b->emu);
	ke_fault(b->emu, then);
	kr_clear();
	for (i = 1; i <= BEHIND; i++)
		writer_start(&b->w[i]);
	wait_queued(b->minor, BEHIND);
}

/*
 * A reset ends the stalled transfer and lets go of the ring: one of the
 * others posts them all, a ring's worth behind its first doorbell (how
 * many transfers: @b->first_tx, fewer than BEHIND).
 */
static void batch_release(struct batch *b)
{
	unsigned int i;

	assert_int_equal(kt_reset(b->fd), 0);
	for (i = 0; i < TR_POLLS && !tr_count(b->minor, "ipu_dma_doorbell",
					       &b->first_tx); i++)
		ks_pause();
	if (!b->first_tx || b->first_tx >= BEHIND)
		fail_msg("the batch's first doorbell carried %u transfers of %u: nothing to show",
			 b->first_tx, BEHIND);
}

static void test_a_reset_fails_only_what_was_on_the_ring(void **state)
{
	struct batch *b = calloc(1, sizeof(*b));
	unsigned int i, eio = 0, ok = 0, bells;
	uint8_t *back;

	(void)state;
	assert_non_null(b);
	/* The next batch's second descriptor stalls in its turn. */
	batch_queue(b, "hang_dma=2");
	batch_release(b);
	wait_stalled(b->emu);
	assert_int_equal(kt_reset(b->fd), 0);

	for (i = 0; i <= BEHIND; i++) {
		pthread_join(b->w[i].thread, NULL);
		if (!i)
			assert_int_equal(b->w[i].ret, -EIO);
		else if (b->w[i].ret == -EIO)
			eio++;
		else if (!b->w[i].ret)
			ok++;
		else
			fail_msg("transfer %u: %s", i, strerror(-b->w[i].ret));
	}
	bells = tr_count(b->minor, "ipu_dma_doorbell", NULL);
	print_message("first doorbell: %u transfers; %u doorbells; %u failed, %u moved\n",
		      b->first_tx, bells, eio, ok);
	/* The first of the ring's worth finished before the reset. */
	if (eio != b->first_tx - 1)
		fail_msg("%u transfers failed; %u were on the ring when it was reset, one of them done",
			 eio, b->first_tx);
	assert_int_equal(ok, BEHIND - eio);
	assert_true(bells >= 2);

	/* What succeeded is in device memory (the fault spent). */
	back = kt_alloc((BEHIND + 1) * b->page);
	assert_int_equal(kt_read_bo(b->fd, b->bo, 0, back,
				    (BEHIND + 1) * b->page), 0);
	for (i = 1; i <= BEHIND; i++)
		if (!b->w[i].ret && memcmp(back + i * b->page,
					   b->src + i * b->page, b->page))
			fail_msg("transfer %u succeeded, its page is not in device memory",
				 i);
	free(b);
}

/*
 * A timeout fails only what the device had not finished: the stop that
 * follows it makes the status words final (docs/hardware.md 2.1), so the
 * transfer wholly in the stalled ring's worth whose descriptor says
 * DONE | OK succeeds, its bytes in device memory; the stalled one, and
 * every other of the batch, fail with -ETIMEDOUT (those not yet posted
 * too: a wait stays bounded). The batch's second descriptor stalls and
 * dma_timeout_ms is lowered for the test.
 */
static void test_a_timeout_fails_only_what_the_device_had_not_done(void **state)
{
	struct batch *b = calloc(1, sizeof(*b));
	unsigned int i, timedout = 0, ok = 0, moved = 0;
	uint8_t *back;

	(void)state;
	assert_non_null(b);
	batch_queue(b, "hang_dma=2");
	/* Nothing waits for it but the stalled batch this test makes. */
	kp_dma_timeout_lower("1000");
	batch_release(b);

	for (i = 0; i <= BEHIND; i++) {
		pthread_join(b->w[i].thread, NULL);
		if (!i)
			assert_int_equal(b->w[i].ret, -EIO);
		else if (b->w[i].ret == -ETIMEDOUT)
			timedout++;
		else if (!b->w[i].ret)
			ok++;
		else
			fail_msg("transfer %u: %s", i, strerror(-b->w[i].ret));
	}
	print_message("first doorbell: %u transfers; %u timed out, %u moved\n",
		      b->first_tx, timedout, ok);
	/* The first of the ring's worth finished before the stall. */
	if (ok != 1)
		fail_msg("%u transfers succeeded; the device finished 1 before the stalled one",
			 ok);
	assert_int_equal(timedout, BEHIND - 1);

	back = kt_alloc((BEHIND + 1) * b->page);
	assert_int_equal(kt_read_bo(b->fd, b->bo, 0, back,
				    (BEHIND + 1) * b->page), 0);
	for (i = 1; i <= BEHIND; i++)
		if (!b->w[i].ret) {
			if (memcmp(back + i * b->page, b->src + i * b->page,
				   b->page))
				fail_msg("transfer %u succeeded, its page is not in device memory",
					 i);
			moved++;
		}
	assert_int_equal(moved, 1);
	free(b);
}

#define KEPT "pages stay mapped and allocated for good"

/*
 * A ring that does not stop keeps for good the pages of the transfers it
 * may still reach, and only those: not the ones of the batch it never
 * reached. The batch's first descriptor is announced done by a lying
 * writeback (bad_writeback=early), the driver stops the queue, which never
 * stops (never_idle): each transfer kept says so in the kernel log.
 */
static void test_a_ring_that_never_stops_keeps_only_what_it_reached(void **state)
{
	struct batch *b = calloc(1, sizeof(*b));
	unsigned int i, kept = 0;
	char line[512];
	int klog;

	(void)state;
	assert_non_null(b);
	kp_skip_where_a_leak_lasts();
	batch_queue(b, "bad_writeback=early,never_idle");
	klog = kt_klog_from_now();
	batch_release(b);
	for (i = 0; i <= BEHIND; i++) {
		pthread_join(b->w[i].thread, NULL);
		if (b->w[i].ret != -EIO && b->w[i].ret != -ENODEV)
			fail_msg("transfer %u: %d, not -EIO", i, b->w[i].ret);
	}
	while (kt_klog_find(klog, (const char *const[]){ KEPT }, 1, line,
			    sizeof(line)))
		kept++;
	print_message("first doorbell: %u transfers; %u kept for good\n",
		      b->first_tx, kept);
	if (kept != b->first_tx)
		fail_msg("%u transfers kept for good; the ring reached %u of them",
			 kept, b->first_tx);
	free(b);
}

/* The fault lifted first: a stalled transfer keeps the file busy. */
static int batch_teardown(void **state)
{
	char buf[32];

	if (batch_emu)
		ke_send("fault", batch_emu - 1, "clear", buf, sizeof(buf));
	batch_emu = 0;
	kr_remove();
	return ks_teardown(state);
}

/* dma_timeout_ms as it was, then as batch_teardown(). */
static int timeout_teardown(void **state)
{
	kp_dma_timeout_restore();
	return batch_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_a_reset_fails_only_what_was_on_the_ring,
					  batch_teardown),
		cmocka_unit_test_teardown(test_a_ring_that_never_stops_keeps_only_what_it_reached,
					  batch_teardown),
		cmocka_unit_test_teardown(test_a_timeout_fails_only_what_the_device_had_not_done,
					  timeout_teardown),
	};
	int ret;

	kr_mount();
	ret = KT_RUN(tests);
	kr_umount();
	return ret;
}
