// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * backend_kernel_prof.c - the "hw" backend's op profiles: the profile
 * buffer of a launch made with IPU_LAUNCH_F_PROFILE.
 *
 * As on silicon, the kernel's firmware writes a launch's op records into a
 * buffer object the launch names (IPU_LAUNCH_PROFILE, struct
 * ipu_profile_header in linux/ipu.h) before the launch completes; the host
 * reads it like any buffer, here through a mapping. Each profiled launch
 * in flight has a buffer of its own, created when it is submitted and
 * destroyed when it completes: launches of a queue run concurrently, and a
 * buffer that outlived its launch would outlive, too, the device file it
 * belongs to (a device may be closed before a queue that used it).
 *
 * The firmware's times count from the launch's start on the device, a
 * moment the host does not see. It sees the completion, which is no
 * earlier than the last op's end: the records are placed so that the last
 * op ends there, their spacing kept. So each op lies no earlier than it
 * really ran (after the submission and after the commands linked before
 * the launch) and no later than the completion.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include <linux/ipu.h>

#include "backend_kernel.h"

/*
 * Bytes of a profile buffer: room for 10921 records; what a launch runs
 * beyond is counted (ipu_launch_profile.dropped).
 */
#define KPROF_BYTES	(256u << 10)

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void kprof_open(struct kprof *p, const struct ipu_device *dev)
{
	struct ipu_bo_create c;
	struct ipu_bo_destroy d;
	void *map;

	memset(p, 0, sizeof(*p));
	p->asked = true;
	if (!(kdev_of(dev)->features & IPU_FEATURE_PROFILE))
		return;
	memset(&c, 0, sizeof(c));
	c.size = KPROF_BYTES;
	if (ioctl(kdev_of(dev)->fd, IPU_IOCTL_BO_CREATE, &c))
		return; /* device memory full: the launch goes unprofiled */
	/* The kernel cleared it: no magic until the firmware writes one. */
	map = mmap(NULL, c.size, PROT_READ, MAP_SHARED, kdev_of(dev)->fd,
		   (off_t)c.mmap_offset);
	if (map == MAP_FAILED) {
		memset(&d, 0, sizeof(d));
		d.handle = c.handle;
		ioctl(kdev_of(dev)->fd, IPU_IOCTL_BO_DESTROY, &d);
		return;
	}
	p->fd = kdev_of(dev)->fd;
	p->handle = c.handle;
	p->size = c.size;
	p->map = map;
}

void kprof_close(struct kprof *p)
{
	struct ipu_bo_destroy d;

	if (p->map) {
		munmap(p->map, p->size);
		memset(&d, 0, sizeof(d));
		d.handle = p->handle;
		ioctl(p->fd, IPU_IOCTL_BO_DESTROY, &d);
	}
	memset(p, 0, sizeof(*p));
}

/* The records of a written buffer, as libipu hands them; NULL: no memory. */
static struct ipu_prof *kprof_read(const struct kprof *p)
{
	const struct ipu_profile_header *h = p->map;
	const struct ipu_profile_record *rec;
	struct ipu_prof *out;
	uint64_t room, n = 0, dropped = 0, last = 0;
	int64_t t0;
	size_t i;

	/* A buffer the firmware did not write (it refused the program
	 * before running it) has no magic: no records. */
	if (p->map &&
	    __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == IPU_PROFILE_MAGIC &&
	    h->record_size == sizeof(*rec)) {
		room = (p->size - sizeof(*h)) / sizeof(*rec);
		n = h->count < room ? h->count : room;
		dropped = h->dropped + (h->count - n);
	}
	out = malloc(sizeof(*out) + n * sizeof(out->recs[0]));
	if (!out)
		return NULL;
	out->n = n;
	out->dropped = dropped;
	/* n is 0 without a mapping: no pointer is made from a NULL one. */
	rec = n ? (const struct ipu_profile_record *)(h + 1) : NULL;
	for (i = 0; i < n; i++)
		if (rec[i].end_ns > last)
			last = rec[i].end_ns;
	/* The device's clock is not the host's: only spans are compared. */
	if (last > INT64_MAX / 2)
		last = INT64_MAX / 2;
	t0 = mono_ns() - (int64_t)last;
	for (i = 0; i < n; i++) {
		out->recs[i].index = rec[i].index;
		out->recs[i].op = rec[i].op;
		out->recs[i].start_ns = t0 + (int64_t)(rec[i].start_ns < last ?
						       rec[i].start_ns : last);
		out->recs[i].end_ns = t0 + (int64_t)(rec[i].end_ns < last ?
						     rec[i].end_ns : last);
	}
	return out;
}

struct ipu_prof *kprof_take(struct kprof *p)
{
	struct ipu_prof *out = NULL;

	if (p->asked)
		out = kprof_read(p);
	kprof_close(p);
	return out;
}
