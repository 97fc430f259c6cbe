// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * guard.c - surviving the revocation of a device mapping.
 *
 * When the kernel resets a simulated IPU (a missed deadline, RESET, the
 * device removed) it revokes its firmware: the mapping of device memory
 * is zapped, and touching it again raises SIGBUS. A program may be running
 * over that memory at that moment, on the executor's threads. Killing the
 * daemon for it would take every other device down too; instead, the
 * SIGBUS handler replaces the faulting range with anonymous memory (the
 * same addresses, MAP_FIXED) and returns, so the program finishes over
 * scratch memory and its results go nowhere. The launch has failed in the
 * kernel already; its FW_DONE is refused, and the device thread attaches
 * again (device.c).
 *
 * Either way the mapping is marked retired, and run.c cancels the runs
 * over it (ipufw_cancel()): a program the reset interrupted must not keep
 * the device's thread, which has to attach again and serve new launches.
 *
 * The ranges live in a fixed table of atomics, which the handler reads
 * without locks. A range is removed only when its mapping's last
 * reference goes, and every access to a mapping holds a reference, so the
 * handler never acts on a range that was unmapped and reused.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "simd.h"

#define GUARD_SLOTS (2 * SIMD_MAX_DEVS + 16)

static struct {
	_Atomic uintptr_t base;
	_Atomic size_t len;
	_Atomic bool retired;	/* now scratch memory */
} slots[GUARD_SLOTS];
/* Serialises adding and removing; the handler only reads. */
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

/* Anonymous memory over [base, base + len); async-signal-safe. */
static int swap_in_scratch(uintptr_t base, size_t len)
{
	void *p = mmap((void *)base, len, PROT_READ | PROT_WRITE,
		       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? -errno : 0;
}

int simd_guard_retire(int slot)
{
	int err;

	if (slot < 0 || slot >= GUARD_SLOTS)
		return -EINVAL;
	err = swap_in_scratch(atomic_load(&slots[slot].base),
			      atomic_load(&slots[slot].len));
	if (!err)
		atomic_store(&slots[slot].retired, true);
	return err;
}

bool simd_guard_retired(int slot)
{
	return slot >= 0 && slot < GUARD_SLOTS &&
	       atomic_load(&slots[slot].retired);
}

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	uintptr_t addr = (uintptr_t)si->si_addr, base;
	int saved = errno;
	size_t i, len;

	(void)uctx;
	for (i = 0; i < GUARD_SLOTS; i++) {
		base = atomic_load(&slots[i].base);
		len = atomic_load(&slots[i].len);
		if (base && addr - base < len) {
			/* Retried on return, now over anonymous memory. */
			if (swap_in_scratch(base, len) == 0) {
				atomic_store(&slots[i].retired, true);
				errno = saved;
				return;
			}
			break;
		}
	}
	/* Not ours (or no memory to retire it): die as SIGBUS would. */
	signal(sig, SIG_DFL);
	errno = saved;
}

int simd_guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL) ? -errno : 0;
}

int simd_guard_add(void *base, size_t len)
{
	int slot = -ENOSPC;
	size_t i;

	pthread_mutex_lock(&slots_lock);
	for (i = 0; i < GUARD_SLOTS; i++) {
		if (atomic_load(&slots[i].base) == 0) {
			/* len first: the handler matches on base. */
			atomic_store(&slots[i].len, len);
			atomic_store(&slots[i].retired, false);
			atomic_store(&slots[i].base, (uintptr_t)base);
			slot = (int)i;
			break;
		}
	}
	pthread_mutex_unlock(&slots_lock);
	return slot;
}

void simd_guard_del(int slot)
{
	if (slot < 0 || slot >= GUARD_SLOTS)
		return;
	pthread_mutex_lock(&slots_lock);
	atomic_store(&slots[slot].base, 0);
	pthread_mutex_unlock(&slots_lock);
}
