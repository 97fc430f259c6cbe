// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_posted.c - posted register writes, as PCIe has them: a BAR0
 * write is received in order and returns at once (the transport answers
 * REGION_WRITE); the work it starts or stops finishes later, on this
 * file's thread (one per device):
 *  - a queue's or the gather ring's disable: STATUS.ENABLED clears once
 *    the window has passed and nothing fetched is in flight any more;
 *  - SOFT_RESET: the reset proper (E_RESET words, registers) happens, and
 *    RESET_COUNT moves, once the window has passed and every queue is
 *    idle; until then the descriptors in progress complete as usual;
 *  - FW_CTRL BOOT: FW_STATUS reads BOOTING until the window has passed.
 * The window is the device's (--posted-window-us N, or rand:N per write);
 * 0 keeps v1's behaviour, every effect complete when the write returns.
 * The late_completion fault holds the next disable's or soft reset's
 * fetched descriptors until the end of the window: the worst case a
 * driver must survive, on purpose. The never_idle fault keeps every
 * ring's stop from finishing (STATUS keeps ENABLED) until it is lifted,
 * or a soft reset or FLR resets the rings: a hung device.
 *
 * Nothing here is unbounded: a stop waits for a descriptor in progress,
 * which the disable or reset aborted (a launch is cancelled, hang_dma
 * and hang_launch end), and a host op, which the transport bounds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu_internal.h"

int emu_dev_posted_window_parse(const char *s, struct emu_dev_opts *o)
{
	unsigned long long v;
	bool rnd = false;
	char *end;

	if (!s || !o)
		return -EINVAL;
	if (!strncmp(s, "rand:", 5)) {
		rnd = true;
		s += 5;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > EMU_POSTED_WINDOW_MAX_US)
		return -EINVAL;
	o->posted_window_us = (uint32_t)v;
	o->posted_window_rand = rnd;
	return 0;
}

/* xorshift64*, per device under dev->lock: no libc state shared between
 * the devices' threads. */
static uint64_t next_rand_locked(struct emu_dev *dev)
{
	uint64_t x = dev->rand_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	dev->rand_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

uint32_t emu_posted_window_locked(struct emu_dev *dev)
{
	uint32_t n = dev->opts.posted_window_us;

	if (!dev->opts.posted_window_rand || !n)
		return n;
	return (uint32_t)(next_rand_locked(dev) % ((uint64_t)n + 1));
}

bool emu_posted_take_late_locked(struct emu_dev *dev)
{
	if (!dev->faults.late_completion)
		return false;
	dev->faults.late_completion = false;
	emu_log(dev, "injected fault: late_completion: the work in flight completes at the end of the posted window");
	return true;
}

void emu_posted_kick_locked(struct emu_dev *dev)
{
	pthread_cond_broadcast(&dev->idle);
}

/* CLOCK_MONOTONIC, as emu_now_us() counts and the condition waits. */
static void abs_us(uint64_t us, struct timespec *ts)
{
	ts->tv_sec = (time_t)(us / 1000000);
	ts->tv_nsec = (long)(us % 1000000) * 1000;
}

void emu_posted_late_wait_locked(struct emu_queue *q)
{
	struct emu_dev *dev = q->dev;
	struct timespec ts;

	while (q->late && !dev->stopping && emu_now_us() < q->stop_at) {
		abs_us(q->stop_at, &ts);
		pthread_cond_timedwait(&q->cond, &dev->lock, &ts);
	}
}

bool emu_posted_late_wait(struct emu_queue *q)
{
	struct emu_dev *dev = q->dev;
	bool go_on;

	pthread_mutex_lock(&dev->lock);
	emu_posted_late_wait_locked(q);
	go_on = !q->discard && !dev->stopping;
	pthread_mutex_unlock(&dev->lock);
	return go_on;
}

void emu_posted_soft_reset_locked(struct emu_dev *dev)
{
	uint32_t w;

	if (dev->resets_pending) {
		/* The reset in progress covers this one; RESET_COUNT
		 * counts both when it is over. */
		dev->resets_pending++;
		return;
	}
	w = emu_posted_window_locked(dev);
	if (!w) {
		emu_soft_reset_locked(dev);
		return;
	}
	dev->resets_pending = 1;
	dev->reset_at = emu_now_us() + w;
	emu_queues_quiesce_locked(dev, dev->reset_at,
				  emu_posted_take_late_locked(dev));
	/* A run waiting for a gather looks at its (aborted) launches. */
	pthread_cond_broadcast(&dev->gring.cond);
	emu_posted_kick_locked(dev);
}

void emu_posted_boot_locked(struct emu_dev *dev)
{
	uint32_t w;

	if (emu_fw_boot_refused_locked(dev))
		return;
	w = emu_posted_window_locked(dev);
	if (!w) {
		emu_fw_boot_locked(dev);
		return;
	}
	dev->fw_status = IPU_FW_STATE_BOOTING;
	dev->boot_pending = true;
	dev->boot_at = emu_now_us() + w;
	emu_posted_kick_locked(dev);
}

void emu_posted_cancel_locked(struct emu_dev *dev)
{
	unsigned int i;

	for (i = 0; i < IPU_NUM_QUEUES; i++) {
		dev->queues[i].late = false;
		pthread_cond_broadcast(&dev->queues[i].cond);
	}
	dev->resets_pending = 0;
	dev->boot_pending = false;
}

static bool queues_idle_locked(const struct emu_dev *dev)
{
	unsigned int i;

	for (i = 0; i < IPU_NUM_QUEUES; i++)
		if (dev->queues[i].busy)
			return false;
	return true;
}

/* Due: @at has passed; else @next becomes the earliest deadline. */
static bool due(uint64_t at, uint64_t now, uint64_t *next)
{
	if (now >= at)
		return true;
	if (at < *next)
		*next = at;
	return false;
}

/* One pass over the posted work: finish what is due. True when
 * something finished (the state changed: look again before waiting). */
static bool finish_due_locked(struct emu_dev *dev, uint64_t now,
			      uint64_t *next)
{
	struct emu_queue *q;
	uint32_t n;
	unsigned int i;

	if (dev->resets_pending && due(dev->reset_at, now, next) &&
	    queues_idle_locked(dev)) {
		/* Still pending while the reset writes its E_RESET words
		 * (dev->lock dropped): an ENABLE meanwhile is refused, a
		 * SOFT_RESET meanwhile is covered by this one, and an FLR
		 * meanwhile cancels the count (it returns RESET_COUNT to 0
		 * once this reset is out of its way). */
		emu_soft_reset_locked(dev);
		n = dev->resets_pending;
		dev->resets_pending = 0;
		if (n)
			dev->reset_count += n - 1;
		return true;
	}
	for (i = 0; i < IPU_NUM_QUEUES && !dev->faults.never_idle; i++) {
		q = &dev->queues[i];
		if (q->stopping && due(q->stop_at, now, next) && !q->busy) {
			emu_queue_stop_finish_locked(q);
			return true;
		}
	}
	if (dev->gring.stopping && !dev->faults.never_idle &&
	    !dev->gring.posting && due(dev->gring.stop_at, now, next)) {
		emu_gather_stop_finish_locked(dev);
		return true;
	}
	if (dev->boot_pending && due(dev->boot_at, now, next)) {
		dev->boot_pending = false;
		emu_fw_boot_locked(dev);
		return true;
	}
	return false;
}

/*
 * A stop that is due but waits for a busy queue has no deadline left: the
 * queue's thread broadcasts dev->idle when it is done.
 */
static void *posted_thread(void *arg)
{
	struct emu_dev *dev = arg;
	struct timespec ts;
	uint64_t next;

	pthread_mutex_lock(&dev->lock);
	while (!dev->stopping) {
		next = UINT64_MAX;
		if (finish_due_locked(dev, emu_now_us(), &next))
			continue;
		if (next == UINT64_MAX) {
			pthread_cond_wait(&dev->idle, &dev->lock);
		} else {
			abs_us(next, &ts);
			pthread_cond_timedwait(&dev->idle, &dev->lock, &ts);
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return NULL;
}

int emu_posted_start(struct emu_dev *dev)
{
	int err;

	dev->rand_state = (emu_now_us() ^ (uint64_t)getpid() << 32 ^
			   (dev->opts.index + 1ull) * 0x9e3779b97f4a7c15ull) | 1;
	err = -pthread_create(&dev->posted_thread, NULL, posted_thread, dev);
	if (!err)
		dev->posted_started = true;
	return err;
}

void emu_posted_stop(struct emu_dev *dev)
{
	pthread_mutex_lock(&dev->lock);
	dev->stopping = true;
	emu_posted_kick_locked(dev);
	pthread_mutex_unlock(&dev->lock);
	if (dev->posted_started)
		pthread_join(dev->posted_thread, NULL);
	dev->posted_started = false;
}
