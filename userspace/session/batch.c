// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * batch.c - commands through the session's queue: submitted as one batch
 * (one io_uring_enter() on hardware, S26), then every completion reaped
 * before the call returns, so that host buffers a command names are never
 * touched by the device after the call that named them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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

int ipu_sess_batch_flush(struct sess_batch *b)
{
	struct ipu_session *s = b->s;
	size_t n = b->n, got = 0, i;
	int worst = 0, ret;

	b->n = 0;
	if (b->err || !n)
		return b->err;
	ret = ipu_queue_submit(s->q, s->cmds, n);
	if (ret) {
		b->err = ipu_sess_err(s, ret, "%s: submitting %zu commands: %s",
				      b->what, n, ipu_errmsg());
		return b->err;
	}
	s->submissions++;
	while (got < n) {
		/* No time limit: the device bounds every command itself. */
		ret = ipu_queue_reap(s->q, s->cqes, n - got, n - got, -1);
		if (ret < 0) {
			/* Cannot happen with the counts above; say so if it
			 * does rather than wait forever. */
			b->err = ipu_sess_err(s, ret, "%s: reaping: %s",
					      b->what, ipu_errmsg());
			return b->err;
		}
		/* A completion's message lives until the next reap. */
		for (i = 0; i < (size_t)ret; i++)
			note(b, &s->cqes[i], &worst);
		got += (size_t)ret;
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
