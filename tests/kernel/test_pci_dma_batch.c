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
 *    bytes in device memory: nothing of the reset was theirs.
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
#include <sys/mount.h>

#include "kemu.h"
#include "ksimd.h"

/* Transfers behind the stalled one: more than a ring's worth (255). */
#define BEHIND 300
#define TR_ROOT "/sys/kernel/tracing"
/* Re-reads of the trace while waiting for events: a bug beyond. */
#define TR_POLLS 100000

static char tr_dir[PATH_MAX];
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

static void tr_write(const char *file, const char *val)
{
	char path[PATH_MAX + 64];
	int err;

	snprintf(path, sizeof(path), "%s/%s", tr_dir, file);
	err = kt_write_file(path, val);
	if (err)
		fail_msg("write %s to %s: %s", val, path, strerror(-err));
}

/* A trace instance of this test's own with the two DMA queue events on. */
static void tr_on(void)
{
	if (access(TR_ROOT "/instances", F_OK)) {
		print_message("no tracefs at " TR_ROOT ": skipped\n");
		kt_skip();
	}
	snprintf(tr_dir, sizeof(tr_dir), TR_ROOT "/instances/ipu_batch_%d",
		 (int)getpid());
	if (mkdir(tr_dir, 0755)) {
		tr_dir[0] = '\0';
		fail_msg("mkdir instance: %s", strerror(errno));
	}
	tr_write("events/ipu/ipu_dma_queue/enable", "1");
	tr_write("events/ipu/ipu_dma_doorbell/enable", "1");
}

/* Empty the instance's buffer (as `> trace`). */
static void tr_clear(void)
{
	char path[PATH_MAX + 16];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", tr_dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		fail_msg("truncate %s: %s", path, strerror(errno));
	close(fd);
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

	snprintf(path, sizeof(path), "%s/trace", tr_dir);
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

static void test_a_reset_fails_only_what_was_on_the_ring(void **state)
{
	struct writer *w = calloc(BEHIND + 1, sizeof(*w));
	unsigned int idx, emu, i, eio = 0, ok = 0, first_tx = 0, bells = 0;
	size_t page = kt_page_size();
	uint8_t *src, *back;
	int fd, minor;
	uint32_t bo;

	(void)state;
	assert_non_null(w);
	ke_require();
	idx = kt_own_dev(0);
	minor = (int)kt_dev(idx);
	fd = kt_open_attached(idx);
	bo = kt_bo(fd, (BEHIND + 1) * page, NULL);
	src = kt_alloc((BEHIND + 1) * page);
	back = kt_alloc((BEHIND + 1) * page);
	for (i = 0; i <= BEHIND; i++)
		memset(src + i * page, (int)(i % 251) + 1, page);
	emu = ke_index_of(idx);
	batch_emu = emu + 1;
	tr_on();

	/* The first transfer alone on the ring, stalled: the ring is held. */
	ke_fault(emu, "hang_dma=1");
	for (i = 0; i <= BEHIND; i++)
		w[i] = (struct writer){ .fd = fd, .bo = bo, .off = i * page,
					.src = src + i * page, .len = page };
	writer_start(&w[0]);
	wait_stalled(emu);
	/* The next batch's second descriptor stalls in its turn. */
	ke_fault(emu, "hang_dma=2");
	tr_clear();
	for (i = 1; i <= BEHIND; i++)
		writer_start(&w[i]);
	wait_queued(minor, BEHIND);

	/* The holder lets go: one of the others posts all of them. */
	assert_int_equal(kt_reset(fd), 0);
	for (i = 0; i < TR_POLLS && !tr_count(minor, "ipu_dma_doorbell",
					       &first_tx); i++)
		ks_pause();
	if (!first_tx || first_tx >= BEHIND)
		fail_msg("the batch's first doorbell carried %u transfers of %u: nothing to show",
			 first_tx, BEHIND);
	wait_stalled(emu);
	assert_int_equal(kt_reset(fd), 0);

	for (i = 0; i <= BEHIND; i++) {
		pthread_join(w[i].thread, NULL);
		if (!i)
			assert_int_equal(w[i].ret, -EIO);
		else if (w[i].ret == -EIO)
			eio++;
		else if (!w[i].ret)
			ok++;
		else
			fail_msg("transfer %u: %s", i, strerror(-w[i].ret));
	}
	bells = tr_count(minor, "ipu_dma_doorbell", NULL);
	print_message("first doorbell: %u transfers; %u doorbells; %u failed, %u moved\n",
		      first_tx, bells, eio, ok);
	/* The first of the ring's worth finished before the reset. */
	if (eio != first_tx - 1)
		fail_msg("%u transfers failed; %u were on the ring when it was reset, one of them done",
			 eio, first_tx);
	assert_int_equal(ok, BEHIND - eio);
	assert_true(bells >= 2);

	/* What succeeded is in device memory (the fault spent). */
	assert_int_equal(kt_read_bo(fd, bo, 0, back, (BEHIND + 1) * page), 0);
	for (i = 1; i <= BEHIND; i++)
		if (!w[i].ret && memcmp(back + i * page, src + i * page, page))
			fail_msg("transfer %u succeeded, its page is not in device memory",
				 i);
	free(w);
}

/* The fault lifted first: a stalled transfer keeps the file busy. */
static int batch_teardown(void **state)
{
	char buf[32];

	if (batch_emu)
		ke_send("fault", batch_emu - 1, "clear", buf, sizeof(buf));
	batch_emu = 0;
	if (tr_dir[0] && rmdir(tr_dir))
		print_message("rmdir %s: %s\n", tr_dir, strerror(errno));
	tr_dir[0] = '\0';
	return ks_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_a_reset_fails_only_what_was_on_the_ring,
					  batch_teardown),
	};
	bool mounted = false;
	int ret;

	/* tracefs where the guest did not mount it (debugfs/tracing aside). */
	if (access(TR_ROOT "/instances", F_OK) &&
	    !mount("tracefs", TR_ROOT, "tracefs", 0, NULL))
		mounted = true;
	ret = KT_RUN(tests);
	if (mounted)
		umount(TR_ROOT);
	return ret;
}
