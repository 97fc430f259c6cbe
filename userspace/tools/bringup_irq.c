// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bringup_irq.c - `interrupts`: every MSI-X vector of a PCI IPU fires.
 *
 * The driver names each vector's handler "ipuN-<what>" in
 * /proc/interrupts (misc, h2d, d2h, and cmd once the command queue takes
 * launches; docs/hardware.md section 6). A function with MSI that got
 * fewer than 4 messages has one handler, "ipuN", for every cause: each
 * cause is then made to happen on its own and must move that count. The check reads their counts,
 * makes each vector's cause happen - a transfer each way, a launch, the
 * spec's doorbell through debugfs irq_selftest (root) - and reads them
 * again: a vector whose cause happened and whose count did not move is
 * a FAIL (a lost MSI-X message: a bad table entry, a masked vector, an
 * IOMMU refusing the write). A vector whose cause could not be made
 * happen is named in the reason, not failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bringup.h"

#define NVEC 4
/* Slot of the counts for the one vector of a function with fewer. */
#define ONE NVEC
#define XFER_LEN 4096
/*
 * An MSI-X message may be handled after the work it signals is seen
 * done: the driver's wait checks the writeback first, so a transfer can
 * return before its interrupt is counted. A vector is given this long
 * to show up before it counts as lost.
 */
#define IRQ_GRACE_S 5.0

static const char *const vec_names[NVEC] = { "misc", "h2d", "d2h", "cmd" };

/*
 * Sum the per-CPU counts of "ipuN-<name>" lines of /proc/interrupts into
 * @counts, and of the "ipuN" line into @counts[ONE] (-1: no such line, the
 * vector has no handler). 0 or -errno.
 */
static int read_counts(unsigned int index, long long counts[NVEC + 1])
{
	char *line = NULL, want[32], *p, *end, *name;
	unsigned long long v, sum;
	size_t cap = 0;
	FILE *f;
	int i;

	for (i = 0; i <= NVEC; i++)
		counts[i] = -1;
	f = fopen("/proc/interrupts", "re");
	if (!f)
		return -errno;
	/* getline(): a machine with many CPUs has long lines. */
	while (getline(&line, &cap, f) > 0) {
		for (i = 0; i <= NVEC; i++) {
			if (i == ONE)
				snprintf(want, sizeof(want), " ipu%u", index);
			else
				snprintf(want, sizeof(want), "ipu%u-%s", index, vec_names[i]);
			name = strstr(line, want);
			if (name && (name[strlen(want)] == '\n' || name[strlen(want)] == ' ' ||
				     !name[strlen(want)]))
				break;
		}
		if (i > NVEC)
			continue;
		p = strchr(line, ':');
		sum = 0;
		/* "IRQ:  c0  c1 ... chip hwirq flow name": the leading numbers. */
		while (p && ++p < name) {
			v = strtoull(p, &end, 10);
			if (end == p)
				break;
			sum += v;
			p = end - 1;
		}
		counts[i] = (long long)sum;
	}
	free(line);
	fclose(f);
	return 0;
}

/*
 * Read the counts into @after until every vector of @caused moved past
 * @before, or IRQ_GRACE_S passed.
 */
static void wait_counts(unsigned int index, const bool caused[NVEC + 1],
			const long long before[NVEC + 1], long long after[NVEC + 1])
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	double end = bu_now() + IRQ_GRACE_S;
	bool all;
	int i;

	for (;;) {
		read_counts(index, after);
		for (all = true, i = 0; i <= NVEC; i++)
			if (caused[i] && before[i] >= 0 && after[i] <= before[i])
				all = false;
		if (all || bu_now() > end)
			return;
		nanosleep(&tick, NULL);
	}
}

/* The spec's doorbell on vector 0; false when debugfs is not writable. */
static bool doorbell(unsigned int index)
{
	char path[96];
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "/sys/kernel/debug/ipu/ipu%u/irq_selftest",
		 index);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = write(fd, "1", 1) == 1;
	close(fd);
	return ok;
}

/* A transfer each way: the causes of the h2d and d2h vectors. */
static int both_ways(struct bu_dev *d)
{
	char *buf = malloc(XFER_LEN);
	struct ipu_bo *bo = NULL;
	int err = -ENOMEM;

	if (buf) {
		bu_fill(buf, XFER_LEN, 7);
		err = ipu_bo_create(d->dev, XFER_LEN, 0, &bo);
		if (!err)
			err = ipu_xfer_to_device(bo, 0, buf, XFER_LEN);
		if (!err)
			err = ipu_xfer_from_device(bo, 0, buf, XFER_LEN);
	}
	ipu_bo_destroy(bo);
	free(buf);
	return err;
}

/* A known-answer launch: the cause of the cmd vector. */
static int one_launch(struct bu_dev *d)
{
	struct bu_prog *p = NULL;
	char msg[256];
	void *in = NULL, *out = NULL;
	int err;

	err = bu_prog_build(1, &p, msg, sizeof(msg));
	if (!err) {
		in = calloc(1, bu_prog_in_bytes(p));
		out = calloc(1, bu_prog_out_bytes(p));
		err = in && out ? 0 : -ENOMEM;
	}
	if (!err)
		err = bu_prog_run(p, &d->dev, in, out, bu_launch_timeout(d), msg,
				  sizeof(msg));
	free(in);
	free(out);
	bu_prog_free(p);
	return err;
}

/*
 * One vector for every cause: make each happen on its own (@cause 0..3 as
 * vec_names) and require that the count of "ipuN" moved after it.
 */
static void one_vector(struct bu_dev *d, unsigned int index,
		       struct bu_result *r)
{
	long long before[NVEC + 1], after[NVEC + 1];
	bool caused[NVEC + 1] = { 0 };
	int i;

	caused[ONE] = true;
	for (i = 0; i < NVEC; i++) {
		bool happened;

		read_counts(index, before);
		if (i == 0)
			happened = doorbell(index);
		else if (i < 3)		/* a transfer each way, twice */
			happened = !both_ways(d);
		else
			happened = bu_can_launch(d) && !one_launch(d);
		if (!happened)
			continue;
		wait_counts(index, caused, before, after);
		bu_fig(r, vec_names[i], (double)(after[ONE] - before[ONE]), "irqs");
		if (after[ONE] <= before[ONE])
			bu_worse(r, BU_FAIL, "the one vector did not fire within %.0f s of a %s cause",
				 IRQ_GRACE_S, vec_names[i]);
	}
	if (r->status != BU_FAIL && !r->nfigs) {
		bu_set(r, BU_WARN, "no cause could be made to happen on the one vector");
		return;
	}
	bu_worse(r, BU_PASS, "the one vector (MSI) fired for every cause exercised");
}

void bu_interrupts(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r)
{
	long long before[NVEC + 1], after[NVEC + 1];
	bool caused[NVEC + 1] = { 0 };
	char untested[128] = "";
	unsigned int index;
	int i, err;

	(void)ctx;
	if (!bu_pci(d)) {
		bu_set(r, BU_SKIP, "no MSI-X: not a PCI function");
		return;
	}
	if (!bu_need_open(d, r))
		return;
	index = d->ipu->index;
	err = read_counts(index, before);
	if (err) {
		bu_set(r, BU_WARN, "/proc/interrupts: %s", strerror(-err));
		return;
	}
	if (before[ONE] >= 0) {
		one_vector(d, index, r);
		return;
	}
	caused[0] = doorbell(index);
	err = both_ways(d);
	if (err) {
		bu_set(r, BU_FAIL, "a transfer failed: %s", ipu_errmsg());
		return;
	}
	caused[1] = caused[2] = true;
	if (bu_can_launch(d))
		caused[3] = !one_launch(d);
	wait_counts(index, caused, before, after);
	for (i = 0; i < NVEC; i++) {
		if (before[i] < 0 || !caused[i]) {
			snprintf(untested + strlen(untested),
				 sizeof(untested) - strlen(untested), "%s%s", untested[0] ? ", " : "",
				 vec_names[i]);
			continue;
		}
		bu_fig(r, vec_names[i], (double)(after[i] - before[i]), "irqs");
		if (after[i] <= before[i])
			bu_worse(r, BU_FAIL, "vector %d (%s) did not fire within %.0f s of its cause",
				 i, vec_names[i], IRQ_GRACE_S);
	}
	if (r->status != BU_FAIL && !r->nfigs) {
		bu_set(r, BU_WARN, "no vector could be exercised (%s)", untested);
		return;
	}
	bu_worse(r, BU_PASS, "every vector exercised fired%s%s%s", untested[0] ?
		 "; not exercised: " : "", untested,
		 untested[0] ? " (no handler yet, no launches, or debugfs irq_selftest needs root)" : "");
}
