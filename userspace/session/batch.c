// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * batch.c - commands through the session's queue: submitted as one batch
 * (one io_uring_enter() on hardware, S26), then every completion reaped
 * before the call returns, so that host buffers a command names are never
 * touched by the device after the call that named them. The wait for them
 * is bounded (the launch deadline plus a margin); past it, the IPUs are
 * reset and what the reset ends is reaped before the call fails. A cancel
 * (ipu_session_cancel()) ends the wait the same way: the wait goes in
 * slices of SESS_CANCEL_POLL_MS and looks for one between them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "session_internal.h"

void ipu_sess_batch_init(struct sess_batch *b, struct ipu_session *s,
			 const char *what)
{
	b->s = s;
	b->what = what;
	b->n = 0;
	b->err = 0;
	b->launched = false;
}

struct ipu_cmd *ipu_sess_batch_add(struct sess_batch *b)
{
	struct ipu_cmd *cmd;

	if (b->n == b->s->q_entries)
		ipu_sess_batch_flush(b);
	/* After a failure the commands are dropped: reuse the first slot. */
	if (b->err)
		b->n = 0;
	cmd = &b->s->cmds[b->n++];
	memset(cmd, 0, sizeof(*cmd));
	return cmd;
}

void ipu_sess_batch_xfer(struct sess_batch *b, struct ipu_bo *bo,
			 uint64_t offset, void *host, uint64_t len,
			 uint32_t dir, uint32_t flags)
{
	struct ipu_cmd *cmd = ipu_sess_batch_add(b);

	cmd->op = IPU_CMD_XFER;
	cmd->flags = flags;
	cmd->xfer.bo = bo;
	cmd->xfer.bo_offset = offset;
	cmd->xfer.host = host;
	cmd->xfer.length = len;
	cmd->xfer.dir = dir;
}

void ipu_sess_batch_unlink_last(struct sess_batch *b)
{
	if (b->n)
		b->s->cmds[b->n - 1].flags &= ~IPU_CMD_F_LINK;
}

/* Keep the most telling failure: a cause beats the cancellations. */
static void note(struct sess_batch *b, const struct ipu_completion *c,
		 int *worst)
{
	if (c->op == IPU_CMD_LAUNCH && !c->result)
		b->launched = true;
	if (!c->result || (*worst && (c->result == -ECANCELED ||
				      *worst != -ECANCELED)))
		return;
	*worst = c->result;
	ipu_sess_err(b->s, c->result, "%s: %s", b->what, c->msg);
}

/* The bound of the wait for @n commands: see wait_timeout_ms (session.h). */
static uint64_t wait_ms(const struct ipu_session *s, size_t n, bool *launch)
{
	uint64_t bytes = 0, ms;
	size_t i;

	*launch = false;
	for (i = 0; i < n; i++) {
		if (s->cmds[i].op == IPU_CMD_LAUNCH)
			*launch = true;
		else
			bytes += s->cmds[i].xfer.length;
	}
	if (s->wait_timeout_ms)
		return s->wait_timeout_ms;
	/* The launches of one batch are one run: one deadline. */
	ms = SESS_WAIT_MARGIN_MS + bytes / SESS_WAIT_BYTES_PER_MS;
	return *launch ? ms + s->launch_ms : ms;
}

/* "model:0, model:1" into @buf: the session's IPUs. */
static const char *dev_names(const struct ipu_session *s, char *buf,
			     size_t len)
{
	size_t at = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < s->num_ipus && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
				       ipu_device_name(s->devs[i]));
	return buf;
}

/* Reset every IPU of @s; the first failure's errno and message. */
static int reset_all(struct ipu_session *s, char *why, size_t len)
{
	int err, first = 0;
	uint32_t i;

	for (i = 0; i < s->num_ipus; i++) {
		err = ipu_device_reset(s->devs[i]);
		if (err && !first) {
			first = err;
			snprintf(why, len, "; resetting it failed: %s",
				 ipu_errmsg());
		}
	}
	return first;
}

/*
 * The commands did not complete in time, or the call was cancelled
 * (@err -ETIMEDOUT or -ECANCELED): reset the IPUs, which ends what runs
 * on them (the kernel fails a launch a reset interrupts, the model too),
 * and reap the @left completions still out before returning: until then
 * the device may still write the host buffers the commands name, which
 * the caller is free to reuse once the call returns. Should they not
 * come, reset again and keep waiting: handing the buffers back while a
 * device may write them is worse than a call that does not return.
 */
static void reset_and_reap(struct sess_batch *b, size_t left, uint64_t ms,
			   bool launch, int err)
{
	struct ipu_session *s = b->s;
	char names[256], why[256] = "";
	const char *ipus = s->num_ipus > 1 ? "s" : "";
	unsigned int again;
	size_t i;
	int ret;

	dev_names(s, names, sizeof(names));
	reset_all(s, why, sizeof(why));
	if (err == -ECANCELED)
		ipu_sess_err(s, err,
			     "%s: cancelled (ipu_session_cancel()) with %zu commands still out on %s; the session reset the device%s and waited for its commands to end%s; the host copies of variables are out of sync",
			     b->what, left, names, ipus, why);
	else
		ipu_sess_err(s, err,
			     "%s: the %s did not complete within %llu ms on %s; the session reset the device%s and waited for its commands to end%s; see ipu-info for the device's state, and reset it (ipu_device_reset()) if it keeps failing",
			     b->what, launch ? "launch" : "transfers",
			     (unsigned long long)ms, names, ipus, why);
	/* The caller's bound, when it gave one, also bounds each wait after
	 * a reset: the margin is for devices the session knows nothing of. */
	again = s->wait_timeout_ms ? s->wait_timeout_ms : SESS_WAIT_MARGIN_MS;
	for (;;) {
		ret = ipu_queue_reap(s->q, s->cqes, left, left,
				     (int64_t)again * 1000000);
		if (ret > 0 && s->trace)
			ipu_sess_trace_reaped(s, s->cqes, (size_t)ret);
		for (i = 0; ret > 0 && i < (size_t)ret; i++)
			if (s->cqes[i].op == IPU_CMD_LAUNCH &&
			    !s->cqes[i].result)
				b->launched = true;
		if (ret > 0)
			left -= (size_t)ret;
		if (!left || ret < 0)
			return;
		ipu_sess_log("%s: %zu commands on %s still out %u ms after a reset; resetting again",
			     b->what, left, names, again);
		reset_all(s, why, sizeof(why));
	}
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/*
 * Reap the @n commands just submitted, noting each completion in @worst,
 * until all are in, @ms have passed or a cancel came. Return how many
 * came, or a negative errno of reaping (with the message set).
 */
static int64_t reap_all(struct sess_batch *b, size_t n, uint64_t ms,
			int *worst, bool *cancelled, bool traced)
{
	struct ipu_session *s = b->s;
	int64_t left = (int64_t)ms * 1000000, deadline = 0, slice, wait;
	size_t got = 0, i;
	int ret;

	*cancelled = false;
	/*
	 * Untraced, the first reap waits for all @n, so it comes back early
	 * only with all of them: the clock is read (for the deadline) only
	 * when it did not, which a run's reap then never does. Traced, each
	 * completion comes on its own: the deadline is read at once.
	 */
	if (traced)
		deadline = now_ns() + left;
	while (got < n) {
		if (deadline)
			left = deadline - now_ns();
		if (left <= 0)
			break;
		slice = (int64_t)SESS_CANCEL_POLL_MS * 1000000;
		wait = left < slice ? left : slice;
		/* Traced, each completion is timed as it comes. */
		ret = ipu_queue_reap(s->q, s->cqes, n - got,
				     traced ? 1 : n - got, wait);
		if (ret < 0)
			/* Cannot happen with the counts above; say so if it
			 * does rather than wait forever. */
			return ipu_sess_err(s, ret, "%s: reaping: %s", b->what,
					    ipu_errmsg());
		if (traced)
			ipu_sess_trace_reaped(s, s->cqes, (size_t)ret);
		/* A completion's message lives until the next reap. */
		for (i = 0; i < (size_t)ret; i++)
			note(b, &s->cqes[i], worst);
		got += (size_t)ret;
		if (got < n && ipu_sess_take_cancel(s)) {
			*cancelled = true;
			break;
		}
		/* Short untraced: its wait ran out, whole. */
		if (!deadline && got < n)
			deadline = now_ns() + left - wait;
	}
	return (int64_t)got;
}

/* The first wait of a batch of @ms: reap_all()'s slice, at most. */
static int64_t first_wait_ns(uint64_t ms)
{
	if (ms > SESS_CANCEL_POLL_MS)
		ms = SESS_CANCEL_POLL_MS;
	return (int64_t)ms * 1000000;
}

int ipu_sess_batch_flush(struct sess_batch *b)
{
	struct ipu_session *s = b->s;
	size_t n = b->n;
	bool launch, cancelled;
	int64_t got, t_sub = 0, t_wait = 0, *traced = NULL;
	int worst = 0;
	uint64_t ms;

	b->n = 0;
	if (b->err || !n)
		return b->err;
	/* A cancel made before the call waited: these commands never go
	 * (a call of one batch, a run, then changes nothing: S25). */
	if (ipu_sess_take_cancel(s)) {
		b->err = ipu_sess_err(s, -ECANCELED,
				      "%s: cancelled (ipu_session_cancel()) before it gave the device %zu more commands; nothing of them ran",
				      b->what, n);
		return b->err;
	}
	ms = wait_ms(s, n, &launch);
	if (s->trace) {
		traced = ipu_sess_trace_batch_begin(s, n);
		t_sub = now_ns();
	}
	/*
	 * Submitted and waited for in one system call (io_uring_enter()
	 * with GETEVENTS), its first wait bounded as reap_all()'s each are;
	 * reap_all() then finds the completions ready. Traced, or with a
	 * hook to run between the two, the submission stays on its own.
	 */
	if (traced || s->on_wait)
		b->err = ipu_queue_submit(s->q, s->cmds, n);
	else
		b->err = ipu_queue_submit_and_wait(s->q, s->cmds, n, n,
						   first_wait_ns(ms));
	if (b->err) {
		b->err = ipu_sess_err(s, b->err,
				      "%s: submitting %zu commands: %s",
				      b->what, n, ipu_errmsg());
		return b->err;
	}
	s->submissions++;
	if (traced) {
		ipu_sess_trace_host(s, "submit", t_sub);
		t_wait = now_ns();
	}
	if (s->on_wait)
		s->on_wait(s->on_wait_arg);
	/* Fewer than @n come back only when the time ran out or a cancel
	 * came. */
	got = reap_all(b, n, ms, &worst, &cancelled, traced);
	if (got < 0) {
		b->err = (int)got;
		return b->err;
	}
	if ((size_t)got < n) {
		worst = cancelled ? -ECANCELED : -ETIMEDOUT;
		reset_and_reap(b, n - (size_t)got, ms, launch, worst);
	}
	if (traced) {
		ipu_sess_trace_host(s, "wait", t_wait);
		ipu_sess_trace_batch_end(s, b->what, n, t_sub);
	}
	/*
	 * S25: after a device error nobody knows what the device holds (a
	 * transfer or launch may have done part of its work): the host
	 * copies are out of sync until a fetch succeeds.
	 */
	if (worst)
		s->in_sync = false;
	b->err = worst;
	return b->err;
}
