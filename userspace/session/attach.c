// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * attach.c - the session's context manager (S06-S08): acquiring IPUs on
 * the outermost enter, waiting for busy ones (S04), and putting the
 * program on them; releasing them on the matching exit.
 *
 * Placement. A session holds num_ipus IPUs (S03), an aligned set of the
 * backend's devices: { k*num_ipus, ..., (k+1)*num_ipus - 1 } for the
 * first k whose IPUs all attach, as multi-IPU devices are aligned sets on
 * real systems. Replica r runs on IPU r * ipus_per_replica of the set:
 * its arena and a copy of the executable image live there. The other IPUs
 * of a replica's share are held, so that nobody else takes them, but hold
 * nothing: the model runs a replica's every virtual graph in one arena. So
 * are the IPUs S03's rounding up to a power of two adds. When IPU_DEVICE
 * names an IPU (session.c), the set is the one it starts, or none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "session_internal.h"

/* How often a busy set of IPUs is tried again while attaching waits. */
#define RETRY_NS (20 * 1000000ll)

int ipu_sess_need_attached(struct ipu_session *s, const char *what)
{
	/* Every runtime call asks this first: where it begins (cancel.c). */
	ipu_sess_call_begin(s);
	if (s->depth)
		return 0;
	return ipu_sess_err(s, -EPERM,
			    "%s: the session is not attached: attach first (ipu_session_attach(), PopXL's `with session:`) and call it inside",
			    what);
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void close_devs(struct ipu_device **devs, uint32_t n)
{
	while (n--) {
		ipu_device_close(devs[n]);
		devs[n] = NULL;
	}
}

/*
 * Attach the set of IPUs whose first is entry @first of @list (@n of the
 * backend's entries follow in index order). -EBUSY when one is held.
 */
static int attach_set(struct ipu_session *s, const struct ipu_device_list *list,
		      size_t first)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	uint32_t k;
	int err;

	for (k = 0; k < s->num_ipus; k++) {
		err = ipu_device_open(ipu_device_list_get(list, first + k)->name,
				      &opts, &s->devs[k]);
		if (err) {
			close_devs(s->devs, k);
			return err;
		}
	}
	return 0;
}

/*
 * One attempt at a set: 0; -EBUSY when every set has a held IPU; -ENODEV
 * when the backend has too few IPUs; another error of libipu. *@where
 * names the last set tried.
 */
static int try_acquire(struct ipu_session *s, unsigned int *where)
{
	const struct ipu_device_entry *e;
	struct ipu_device_list *list;
	size_t i, first = 0, count, mine = 0;
	int err;

	err = ipu_sess_list_devices(s->backend, &list, &count);
	if (err)
		return err;
	err = -ENODEV;
	for (i = 0; i < ipu_device_list_count(list); i++) {
		e = ipu_device_list_get(list, i);
		if (!ipu_sess_backend_has(s->backend, e->name))
			continue;
		/* The backend's entries are consecutive, sorted by index. */
		if (mine++ == 0)
			first = i;
		if (mine % s->num_ipus)
			continue;
		*where = ipu_device_list_get(list, first + mine - s->num_ipus)->index;
		if (s->want_ipu >= 0 && *where != (unsigned int)s->want_ipu)
			continue;
		err = attach_set(s, list, first + mine - s->num_ipus);
		if (err != -EBUSY || s->want_ipu >= 0)
			break;
	}
	ipu_device_list_free(list);
	return err;
}

/*
 * S04, S06: try once, then again until the attach timeout, saying so; a
 * cancel ends the wait (RETRY_NS is below SESS_CANCEL_POLL_MS).
 */
static int acquire_ipus(struct ipu_session *s)
{
	int64_t deadline = now_ns() + (int64_t)s->attach_timeout_ms * 1000000;
	struct timespec pause;
	unsigned int where = 0;
	bool said = false;
	int64_t left;
	int err;

	for (;;) {
		err = try_acquire(s, &where);
		if (err != -EBUSY && err != -ENODEV)
			break;
		left = deadline - now_ns();
		if (left <= 0)
			break;
		if (ipu_sess_take_cancel(s))
			return ipu_sess_err(s, -ECANCELED,
					    "attach: cancelled (ipu_session_cancel()) while waiting for %u IPU%s of \"%s\" (%s)",
					    s->num_ipus,
					    s->num_ipus == 1 ? "" : "s",
					    s->device_name,
					    err == -EBUSY ? "in use" : "not present");
		if (!said) {
			/* The test hook: this call now waits. */
			if (s->on_wait)
				s->on_wait(s->on_wait_arg);
			ipu_sess_log("waiting up to %u ms for %u IPU%s of \"%s\" (%s); see ipu-info for device usage",
				     s->attach_timeout_ms, s->num_ipus,
				     s->num_ipus == 1 ? "" : "s", s->device_name,
				     err == -EBUSY ? "in use" : "not present");
			said = true;
		}
		if (left > RETRY_NS)
			left = RETRY_NS;
		pause.tv_sec = left / 1000000000;
		pause.tv_nsec = left % 1000000000;
		nanosleep(&pause, NULL);
	}
	if (!err)
		return 0;
	if ((err == -EBUSY || err == -ENODEV) && s->want_ipu >= 0)
		return ipu_sess_err(s, err,
				    "could not attach to IPU_DEVICE=\"%s\" (%u IPU%s of \"%s\" from %d, %s after %u ms), see ipu-info for device usage",
				    s->want_name, s->num_ipus,
				    s->num_ipus == 1 ? "" : "s", s->device_name,
				    s->want_ipu,
				    err == -EBUSY ? "in use" : "not present",
				    s->attach_timeout_ms);
	if (err == -EBUSY || err == -ENODEV)
		return ipu_sess_err(s, err,
				    "could not attach to device %u (%u IPU%s of \"%s\", %s after %u ms), see ipu-info for device usage",
				    where, s->num_ipus, s->num_ipus == 1 ? "" : "s",
				    s->device_name,
				    err == -EBUSY ? "in use" : "not present",
				    s->attach_timeout_ms);
	return ipu_sess_err(s, err, "could not attach to device %u: %s", where,
			    ipu_errmsg());
}

/* Commands of the biggest batch: a run's, or weights to or from host. */
static uint32_t queue_entries(const struct ipu_session *s)
{
	uint64_t run = ipu_sess_run_cmds(s);
	/* The enter uploads every replica's image with the weights. */
	uint64_t weights = (uint64_t)s->replicas * (s->n_tensors + 1);
	uint64_t n = run > weights ? run : weights;

	return n > IPU_QUEUE_MAX_ENTRIES ? IPU_QUEUE_MAX_ENTRIES : (uint32_t)n;
}

/* What kinds of IPU a session holds: how many are PCIe IPUs, how many
 * ask the host for a split program's gathers themselves, and the first
 * PCIe IPU that does not (-1: none). */
struct ipu_kinds {
	uint32_t pci, gather;
	int64_t pci_without_gather;
};

/*
 * The IPUs held: the longest launch deadline among them, for batch.c's
 * waits, and their kinds into @kinds.
 */
static int survey_ipus(struct ipu_session *s, struct ipu_kinds *kinds)
{
	struct ipu_device_info info = { .sz = sizeof(info) };
	uint32_t i;
	int err;

	s->launch_ms = 0;
	s->op_profiles = s->num_ipus > 0;
	kinds->pci = kinds->gather = 0;
	kinds->pci_without_gather = -1;
	for (i = 0; i < s->num_ipus; i++) {
		err = ipu_device_query(s->devs[i], &info);
		if (err)
			return ipu_sess_err(s, err, "querying %s: %s",
					    ipu_device_name(s->devs[i]),
					    ipu_errmsg());
		if (!info.launch_timeout_ms)
			info.launch_timeout_ms = SESS_DEFAULT_LAUNCH_MS;
		if (info.launch_timeout_ms > s->launch_ms)
			s->launch_ms = info.launch_timeout_ms;
		if (!(info.caps & IPU_DEVICE_CAP_PROFILE))
			s->op_profiles = false;
		kinds->pci += info.platform == IPU_DEVICE_PLATFORM_PCI;
		kinds->gather += !!(info.caps & IPU_DEVICE_CAP_GATHER);
		if (info.platform == IPU_DEVICE_PLATFORM_PCI &&
		    !(info.caps & IPU_DEVICE_CAP_GATHER) &&
		    kinds->pci_without_gather < 0)
			kinds->pci_without_gather = i;
	}
	return 0;
}

/* Each replica's executable image and arena, and the session's queue. */
static int place_program(struct ipu_session *s)
{
	const uint64_t arena = s->exe->arena_size ? s->exe->arena_size : 1;
	struct ipu_queue_opts qopts = { .sz = sizeof(qopts) };
	struct sess_replica *rep;
	uint32_t r;
	int err;

	s->reps = calloc(s->replicas, sizeof(*s->reps));
	if (!s->reps)
		return ipu_sess_err(s, -ENOMEM, "no memory for %u replicas",
				    s->replicas);
	for (r = 0; r < s->replicas; r++) {
		rep = &s->reps[r];
		rep->dev = s->devs[r * s->ipus_per_replica];
		err = ipu_bo_create(rep->dev, s->image_size, 0, &rep->exe_bo);
		if (!err)
			err = ipu_bo_create(rep->dev, arena, 0, &rep->arena_bo);
		if (err)
			return ipu_sess_err(s, err,
					    "placing replica %u (an image of %zu bytes, an arena of %llu) on %s: %s",
					    r, s->image_size,
					    (unsigned long long)arena,
					    ipu_device_name(rep->dev), ipu_errmsg());
	}
	s->q_entries = queue_entries(s);
	qopts.entries = s->q_entries;
	err = ipu_queue_create(s->devs[0], &qopts, &s->q);
	if (err)
		return ipu_sess_err(s, err, "a queue of %u entries: %s",
				    s->q_entries, ipu_errmsg());
	s->cmds = calloc(s->q_entries, sizeof(*s->cmds));
	s->cqes = calloc(s->q_entries, sizeof(*s->cqes));
	if (!s->cmds || !s->cqes)
		return ipu_sess_err(s, -ENOMEM, "no memory for %u commands",
				    s->q_entries);
	return 0;
}

/*
 * A split program's gathers on "ipu_hw" (docs/instances.md): PCIe IPUs ask
 * for them with gather requests, which the session serves; the simulated
 * IPUs' firmware, ipu-simd, connects to the process's listener instead.
 */
static int serve_instances(struct ipu_session *s,
			   const struct ipu_kinds *kinds)
{
	if (!kinds->pci && !kinds->gather)
		return ipu_sess_fw_gather_start(s);
	if (kinds->gather == s->num_ipus)
		return ipu_sess_pci_gather_start(s);
	/* Its launches would be refused (or fail on the device): say why. */
	if (kinds->pci_without_gather >= 0)
		return ipu_sess_err(s, -EOPNOTSUPP,
				    "attach: the program is split across instances, and %s, a PCIe IPU, cannot ask the host for the other instances' data: it has no gather requests (its device lacks the gather extension, CAPS bit GATHER, or ipu.ko predates IPU_FEATURE_GATHER); %u of the session's %u IPUs lack them",
				    ipu_device_name(s->devs[kinds->pci_without_gather]),
				    s->num_ipus - kinds->gather, s->num_ipus);
	return ipu_sess_err(s, -EOPNOTSUPP,
			    "attach: the program is split across instances, and %u of its %u IPUs cannot ask the host for the other instances' data (gather requests: a PCIe IPU and ipu.ko with IPU_FEATURE_GATHER)",
			    s->num_ipus - kinds->gather, s->num_ipus);
}

void ipu_sess_release(struct ipu_session *s)
{
	ipu_sess_pci_gather_stop(s);
	ipu_sess_fw_gather_stop(s);
	/* The queue first: nothing may run on what goes next. Closing a
	 * device frees its buffer objects and drops the attachment. */
	ipu_queue_destroy(s->q);
	s->q = NULL;
	if (s->devs)
		close_devs(s->devs, s->num_ipus);
	free(s->devs);
	s->devs = NULL;
	free(s->reps);
	s->reps = NULL;
	free(s->cmds);
	s->cmds = NULL;
	free(s->cqes);
	s->cqes = NULL;
	s->launch_ms = 0;
	s->depth = 0;
	ipu_sess_trace_memory(s);
}

int ipu_session_attach(struct ipu_session *s)
{
	struct ipu_kinds kinds;
	int64_t t0 = s && s->trace ? ipu_sess_trace_now() : 0;
	bool in_sync;
	int err;

	if (!s)
		return -EINVAL;
	/* S07: an inner enter of an attached session changes nothing. */
	if (s->depth) {
		if (s->depth == UINT32_MAX)
			return ipu_sess_err(s, -EOVERFLOW,
					    "attach: entered %u times already",
					    s->depth);
		s->depth++;
		return 0;
	}
	s->devs = calloc(s->num_ipus, sizeof(*s->devs));
	if (!s->devs)
		return ipu_sess_err(s, -ENOMEM, "no memory for %u IPUs",
				    s->num_ipus);
	ipu_sess_call_hold(s, true);
	in_sync = s->in_sync;
	err = acquire_ipus(s);
	if (!err)
		err = survey_ipus(s, &kinds);
	if (!err)
		err = place_program(s);
	if (!err)
		ipu_sess_trace_memory(s);
	/* A split program's firmware gathers through us. */
	if (!err && s->rf != s->replicas && s->backend == SESS_HW)
		err = serve_instances(s, &kinds);
	s->depth = 1;
	/* S06: weights_from_host on the detached -> attached transition. */
	if (!err)
		err = ipu_sess_upload(s);
	/* A failed enter is undone, as PopXL's exit with an error in flight:
	 * no weights to host, the IPUs released. Detached, the host copies
	 * are what they were (S25). */
	if (err) {
		ipu_sess_release(s);
		s->in_sync = in_sync;
	}
	ipu_sess_call_hold(s, false);
	ipu_sess_trace_host(s, "attach", t0);
	return err;
}

int ipu_session_detach(struct ipu_session *s, unsigned int flags)
{
	int err;

	if (!s)
		return -EINVAL;
	if (flags & ~IPU_DETACH_ERROR)
		return ipu_sess_err(s, -EINVAL, "detach: unknown flags 0x%x",
				    flags & ~IPU_DETACH_ERROR);
	if (!s->depth)
		return ipu_sess_err(s, -EINVAL,
				    "detach: no attach to match: the session is not attached");
	if (s->depth > 1) {
		s->depth--;
		return 0;
	}
	/*
	 * S07: the exit of the enter that attached. When its weights_to_host
	 * fails, the session stays attached, as PopXL's does: releasing the
	 * IPUs would lose the weights that only the device holds. The caller
	 * may try again, or leave with IPU_DETACH_ERROR.
	 */
	if (!(flags & IPU_DETACH_ERROR) && s->to_host_on_exit) {
		ipu_sess_call_hold(s, true);
		err = ipu_session_weights_to_host(s);
		ipu_sess_call_hold(s, false);
		if (err)
			return err;
	}
	ipu_sess_release(s);
	ipu_sess_trace_write(s);
	return 0;
}

bool ipu_session_is_attached(const struct ipu_session *s)
{
	return s && s->depth;
}
