// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_reset_race.c - a reset fails only the launches it ended: a
 * launch reported failed never ran, one reported done did. One thread
 * pushes LAUNCHES launches (LAUNCH ioctls), each on its own slice of an
 * arena filled with a pattern, while another resets the device (RESET)
 * until the pushing is over. ipu-emu holds every launch until the round
 * is over (hold_launches), so every launch on the ring when a reset comes
 * is ended by it (E_RESET) without running. Then the hold is lifted, all
 * are waited for, and a last launch behind them (the queue runs in
 * order) says the device is done: a launch whose status is -EIO must have
 * left its slice as it was; one whose status is 0 must have written it.
 * Odd rounds let half the launches reach the ring before the first
 * reset, so that the resets have launches to fail. The window: a launch
 * pushed after the reset restarted the command queue but before the core
 * failed the launches in flight was failed (-EIO) and ran all the same.
 * Racing, not deterministic: ROUNDS rounds.
 * Skipped without PCI IPUs or without ipu-emu's control port.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "kemu.h"
#include "kprog.h"
#include "kreset.h"

#define LAUNCHES 64
#define ROUNDS 12
#define PATTERN 0xa5

struct pusher {
	int fd;
	struct ipu_launch l;
	uint64_t slice;
	uint64_t fence[LAUNCHES + 1];
	int err[LAUNCHES];
	atomic_uint pushed;
	atomic_bool done;
};

static void *push_all(void *arg)
{
	struct pusher *p = arg;
	unsigned int i;

	for (i = 0; i < LAUNCHES; i++) {
		struct ipu_launch l = p->l;

		l.arena_offset = i * p->slice;
		l.fence = 0;
		p->err[i] = kt_ioctl(p->fd, IPU_IOCTL_LAUNCH, &l);
		p->fence[i] = l.fence;
		atomic_fetch_add(&p->pushed, 1);
	}
	atomic_store(&p->done, true);
	return NULL;
}

static void test_a_failed_launch_never_ran(void **state)
{
	struct kp_prog *prog = kp_spin(1);
	struct pusher p = { 0 };
	unsigned int round, i, failed = 0, ran = 0, resets;
	size_t len;
	uint8_t *arena, *pat;
	pthread_t t;
	int st[LAUNCHES + 1];

	(void)state;
	p.fd = ke_open_first();
	p.slice = (prog->exe->arena_size + 63) / 64 * 64;
	kp_launch_bufs(p.fd, prog->image, prog->len,
		       p.slice * (LAUNCHES + 1), &p.l);
	p.l.arena_size = prog->exe->arena_size;
	kp_free(prog);
	len = p.slice * (LAUNCHES + 1);
	arena = kt_alloc(len);
	pat = kt_alloc(len);
	memset(pat, PATTERN, len);

	for (round = 0; round < ROUNDS; round++) {
		assert_int_equal(kt_write_bo(p.fd, p.l.arena_handle, 0, pat, len), 0);
		ke_fault(0, "hold_launches=1");
		atomic_store(&p.done, false);
		atomic_store(&p.pushed, 0);
		assert_int_equal(pthread_create(&t, NULL, push_all, &p), 0);
		/*
		 * Odd rounds: half the launches on the ring first, for the
		 * resets to end; even rounds race the resets from the start.
		 */
		while (round % 2 && atomic_load(&p.pushed) < LAUNCHES / 2 &&
		       !atomic_load(&p.done))
			sched_yield();
		for (resets = 0; !atomic_load(&p.done) || !resets; resets++)
			assert_int_equal(kt_reset(p.fd), 0);
		assert_int_equal(pthread_join(t, NULL), 0);
		ke_fault(0, "hold_launches=0");

		for (i = 0; i < LAUNCHES; i++)
			if (p.err[i])
				fail_msg("round %u: launch %u: %d", round, i,
					 p.err[i]);
		/* The last, behind them all: the device is done with them. */
		{
			struct ipu_launch l = p.l;

			l.arena_offset = LAUNCHES * p.slice;
			l.fence = 0;
			assert_int_equal(kt_ioctl(p.fd, IPU_IOCTL_LAUNCH, &l), 0);
			p.fence[LAUNCHES] = l.fence;
		}
		for (i = 0; i <= LAUNCHES; i++)
			st[i] = kr_wait(p.fd, p.fence[i]);
		assert_int_equal(st[LAUNCHES], 0);
		assert_int_equal(kt_read_bo(p.fd, p.l.arena_handle, 0, arena,
					    len), 0);
		for (i = 0; i < LAUNCHES; i++) {
			bool same = !memcmp(arena + i * p.slice, pat, p.slice);

			if (st[i] == -EIO && !same)
				fail_msg("round %u: launch %u reported -EIO, yet it ran (its arena was written)",
					 round, i);
			if (st[i] == 0 && same)
				fail_msg("round %u: launch %u reported 0, yet its arena is untouched",
					 round, i);
			if (st[i] && st[i] != -EIO)
				fail_msg("round %u: launch %u: status %d",
					 round, i, st[i]);
			failed += st[i] != 0;
			ran += st[i] == 0;
		}
	}
	print_message("%u launches failed by resets, %u ran\n", failed, ran);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_a_failed_launch_never_ran,
					  kr_clear_teardown),
	};

	kp_init();
	KT_RUN(tests);
}
