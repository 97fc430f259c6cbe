// SPDX-License-Identifier: GPL-2.0
/*
 * test_fw_revoke.c - a revoked firmware loses its access to device memory
 * at once and for good (issue 8, item 4).
 *
 * The test plays a firmware (FW_ATTACH on a simulated IPU of its own, as
 * test_fw_role.c does) whose writer thread stores, again and again, a tag
 * into every page of its mapping of device memory. The tag carries the
 * phase the test is in when the store is made:
 *
 *   1  attached: the stores land;
 *   2  RESET in progress (it revokes the firmware): either way;
 *   3  RESET has returned: every store must raise SIGBUS;
 *   4  the same file attaches again (FW_ATTACH): either way;
 *   5  attached again: the old mapping still raises SIGBUS (revocation is
 *      per attachment; only a new mmap() sees memory again).
 *
 * In phase 3 a new owner creates a buffer over the pages the writer
 * targets (zero-filled at creation). At the end the buffer must read
 * zeros: a tag in it is a store made after the revoke. A store that did
 * not fault in phase 3 or 5 fails the test as well. As a control, a new
 * mapping made after the second FW_ATTACH does reach the buffer.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "ktest.h"

#define REV_MB 4
#define REV_PAGES 16
#define TAG_MAGIC 0x1f3e5a7c00000000ull
#define PHASES 6
/* Polls of a counter before giving up, and the pause between two. */
#define REV_POLLS 30000
#define REV_POLL_NS 1000000L /* 1 ms: 30 s in all */

struct writer {
	volatile uint64_t *map;	/* REV_PAGES pages of the firmware mapping */
	size_t page;
	atomic_int phase;
	atomic_bool stop;
	atomic_ulong passes[PHASES];	/* whole passes made in one phase */
	atomic_ulong stored[PHASES];	/* stores that did not fault */
	atomic_ulong bus[PHASES];	/* stores that raised SIGBUS */
};

static __thread sigjmp_buf *bus_jb;

/* The test's writer and SIGBUS handler, undone by rev_teardown(). */
static struct writer wr;
static pthread_t wth;
static bool wth_up, sa_set;
static struct sigaction old_sa;

static void on_sigbus(int sig)
{
	(void)sig;
	if (bus_jb)
		siglongjmp(*bus_jb, 1);
	abort();
}

/* Store @tag at @p; false when that raised SIGBUS. */
static bool try_store(volatile uint64_t *p, uint64_t tag)
{
	sigjmp_buf jb;
	bool ok;

	bus_jb = &jb;
	if (sigsetjmp(jb, 1) == 0) {
		p[0] = tag;
		p[1] = ~tag;
		ok = true;
	} else {
		ok = false;
	}
	bus_jb = NULL;
	return ok;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint64_t seq = 0;
	size_t i;

	while (!atomic_load(&w->stop)) {
		int first = atomic_load(&w->phase);

		for (i = 0; i < REV_PAGES; i++) {
			/* The phase read right before the store it tags */
			int ph = atomic_load(&w->phase);
			volatile uint64_t *p = w->map + i * (w->page / 8);

			if (try_store(p, TAG_MAGIC | (uint64_t)ph << 24 |
					 (seq++ & 0xffffff)))
				atomic_fetch_add(&w->stored[ph], 1);
			else
				atomic_fetch_add(&w->bus[ph], 1);
		}
		if (atomic_load(&w->phase) == first)
			atomic_fetch_add(&w->passes[first], 1);
	}
	return NULL;
}

/* Wait until the writer has made @n more whole passes in phase @ph. */
static void wait_passes(struct writer *w, int ph, unsigned long n)
{
	unsigned long want = atomic_load(&w->passes[ph]) + n;
	int i;

	for (i = 0; i < REV_POLLS && atomic_load(&w->passes[ph]) < want; i++)
		nanosleep(&(struct timespec){ .tv_nsec = REV_POLL_NS }, NULL);
	if (atomic_load(&w->passes[ph]) < want)
		fail_msg("the writer made no progress in phase %d", ph);
}

/* Stop the writer (also when an assertion failed) before unmapping. */
static void writer_stop(void)
{
	if (wth_up) {
		atomic_store(&wr.stop, true);
		pthread_join(wth, NULL);
		wth_up = false;
	}
}

static int rev_teardown(void **state)
{
	writer_stop();
	if (sa_set)
		sigaction(SIGBUS, &old_sa, NULL);
	sa_set = false;
	return kt_teardown(state);
}

static void test_a_revoked_firmware_never_writes_device_memory_again(void **state)
{
	struct ipu_fw_attach fa = { 0 };
	struct sigaction sa;
	struct ipu_bo_create bo;
	unsigned int idx;
	uint64_t *back, len, tag;
	uint8_t *fresh;
	bool faulted;
	int owner, fw, newowner, ph;
	size_t i;

	(void)state;
	memset(&wr, 0, sizeof(wr));
	kt_require_sim_ctl();
	idx = kt_sim_add(REV_MB);
	owner = kt_open_attached(idx);
	wr.page = kt_granule(owner);
	len = REV_PAGES * wr.page;
	back = kt_alloc(len);
	fw = kt_open(idx);
	assert_int_equal(kt_ioctl(fw, IPU_IOCTL_FW_ATTACH, &fa), 0);
	wr.map = kt_mmap(len, PROT_READ | PROT_WRITE, MAP_SHARED, fw,
			IPU_FW_MMAP_OFFSET);
	assert_true(wr.map != MAP_FAILED);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGBUS, &sa, &old_sa), 0);
	sa_set = true;

	atomic_store(&wr.phase, 1);
	assert_int_equal(pthread_create(&wth, NULL, writer_main, &wr), 0);
	wth_up = true;
	wait_passes(&wr, 1, 2);

	atomic_store(&wr.phase, 2);
	assert_int_equal(kt_reset(owner), 0);
	atomic_store(&wr.phase, 3);

	/* The new owner: a buffer over the writer's pages, zeroed now */
	assert_int_equal(kt_close(owner), 0);
	newowner = kt_open_attached(idx);
	kt_bo(newowner, len, &bo);
	wait_passes(&wr, 3, 2);

	/* The same file attaches again: the old mapping stays dead */
	atomic_store(&wr.phase, 4);
	assert_int_equal(kt_ioctl(fw, IPU_IOCTL_FW_ATTACH, &fa), 0);
	atomic_store(&wr.phase, 5);
	wait_passes(&wr, 5, 2);

	writer_stop();
	for (ph = 1; ph < PHASES; ph++)
		print_message("phase %d: %lu stores landed, %lu raised SIGBUS\n",
			      ph, atomic_load(&wr.stored[ph]),
			      atomic_load(&wr.bus[ph]));

	/* What the new owner's buffer holds */
	assert_int_equal(kt_read_bo(newowner, bo.handle, 0, back, len), 0);
	for (i = 0; i < len / 8; i++) {
		if (!back[i])
			continue;
		tag = back[i];
		fail_msg("the new owner's buffer holds %#" PRIx64 " at byte "
			 "%zu: %s", tag, i * 8,
			 (tag & 0xffffffff00000000ull) == TAG_MAGIC ?
			 "a store of the revoked firmware" : "not zero");
	}
	assert_int_equal(atomic_load(&wr.stored[3]), 0);
	assert_int_equal(atomic_load(&wr.stored[5]), 0);
	assert_true(atomic_load(&wr.bus[3]) > 0);
	assert_true(atomic_load(&wr.bus[5]) > 0);
	assert_true(atomic_load(&wr.stored[1]) > 0);

	/* Still dead after a new mmap of the re-attached file ... */
	fresh = kt_mmap(wr.page, PROT_READ | PROT_WRITE, MAP_SHARED, fw,
			IPU_FW_MMAP_OFFSET);
	assert_true(fresh != MAP_FAILED);
	faulted = !try_store(wr.map, 0);
	assert_true(faulted);
	/* ... which reaches the new owner's buffer (the check above can see) */
	kt_fill(fresh, wr.page, 9);
	assert_int_equal(kt_read_bo(newowner, bo.handle, 0, back, wr.page), 0);
	assert_pattern(back, wr.page, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_a_revoked_firmware_never_writes_device_memory_again,
					  rev_teardown),
	};

	return KT_RUN(tests);
}
