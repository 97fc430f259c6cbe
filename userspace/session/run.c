// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * run.c - one run of the program (S09-S14, S26).
 *
 * Everything is checked before anything moves (S10-S12), and 64-bit
 * inputs are converted into the session's scratch, never in the caller's
 * arrays. Then one batch on the queue, a chain per replica:
 *
 *	H2D of each input stream's slots (linked) -> LAUNCH of the replica
 *	(linked) -> D2H of each output stream's slots
 *
 * The launches of all replicas carry one group id, so the device runs
 * them together. Slot i of a stream holds iteration i; the host buffer's
 * slice (i, r) goes to slot i of replica r's arena. Without replication
 * the slices of a stream are consecutive on both sides, so its d slots
 * move in one transfer. A batch too big for a queue (more than
 * IPU_QUEUE_MAX_ENTRIES commands) goes in three steps instead, inputs,
 * launches, outputs, each waited for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"

uint64_t ipu_sess_run_cmds(const struct ipu_session *s)
{
	uint64_t r = s->replicas, d = s->transfers;
	uint64_t streams = s->n_inputs + s->n_outputs;

	return r == 1 ? streams + 1 : r * (d * streams + 1);
}

/* S12: 64-bit inputs as the stream's 32-bit type, in the scratch. */
static int stage_downcasts(struct ipu_session *s)
{
	uint64_t slices = (uint64_t)s->transfers * s->replicas;
	size_t total = 0, at = 0, j;
	struct sess_io *io;
	int dt;

	for (j = 0; j < s->n_inputs; j++)
		if (s->io_in[j].downcast)
			total += slices * s->io_in[j].slice;
	if (total > s->scratch_cap) {
		free(s->scratch);
		s->scratch_cap = 0;
		s->scratch = malloc(total);
		if (!s->scratch)
			return ipu_sess_err(s, -ENOMEM,
					    "no memory to downcast %zu bytes of inputs",
					    total);
		s->scratch_cap = total;
	}
	for (j = 0; j < s->n_inputs; j++) {
		io = &s->io_in[j];
		if (!io->downcast)
			continue;
		/* Only the first d iterations move; they come first. */
		dt = (int)s->exe->streams[io->stream].dtype;
		ipu_dtype_convert((uint8_t *)s->scratch + at, dt, io->host,
				  (int)io->buf->dtype,
				  slices * io->slice / ipu_dtype_size(dt));
		io->host = (uint8_t *)s->scratch + at;
		at += slices * io->slice;
	}
	return 0;
}

/* Transfers between replica @r's slots and the @n buffers of @io. */
static void add_slots(struct sess_batch *b, uint32_t r,
		      const struct sess_io *io, size_t n, uint32_t dir,
		      uint32_t flags)
{
	struct ipu_session *s = b->s;
	struct ipu_bo *arena = s->reps[r].arena_bo;
	const struct ipu_exe_stream *st;
	uint32_t d = s->transfers, R = s->replicas, i;
	size_t j;

	for (j = 0; j < n; j++) {
		st = &s->exe->streams[io[j].stream];
		if (R == 1) {
			ipu_sess_batch_xfer(b, arena, st->slots_offset,
					    io[j].host, d * io[j].slice, dir,
					    flags);
			continue;
		}
		for (i = 0; i < d; i++)
			ipu_sess_batch_xfer(b, arena,
					    st->slots_offset + i * st->nbytes,
					    io[j].host + ((uint64_t)i * R + r) *
								 io[j].slice,
					    io[j].slice, dir, flags);
	}
}

static void add_launch(struct sess_batch *b, uint32_t r, uint32_t flags)
{
	struct ipu_session *s = b->s;
	struct ipu_cmd *cmd = ipu_sess_batch_add(b);

	cmd->op = IPU_CMD_LAUNCH;
	cmd->flags = flags;
	cmd->launch.exe_bo = s->reps[r].exe_bo;
	cmd->launch.exe_size = s->image_size;
	cmd->launch.arena_bo = s->reps[r].arena_bo;
	cmd->launch.replica = r;
	cmd->launch.num_replicas = s->replicas;
	cmd->launch.group = s->run_id;
	/* A traced run shows each op inside its launch (docs/trace.md),
	 * where the IPUs record them. */
	if (s->trace && s->op_profiles)
		cmd->launch.flags = IPU_LAUNCH_F_PROFILE;
	ipu_sess_pci_gather_launch(s, r, &cmd->launch);
}

static int submit_run(struct ipu_session *s, struct sess_batch *b)
{
	const uint32_t link = IPU_CMD_F_LINK;
	uint32_t r;

	s->run_id++;
	if (ipu_sess_run_cmds(s) <= s->q_entries) {
		for (r = 0; r < s->replicas; r++) {
			add_slots(b, r, s->io_in, s->n_inputs,
				  IPU_XFER_DIR_TO_DEVICE, link);
			add_launch(b, r, link);
			add_slots(b, r, s->io_out, s->n_outputs,
				  IPU_XFER_DIR_FROM_DEVICE, link);
			ipu_sess_batch_unlink_last(b);
		}
		return ipu_sess_batch_flush(b);
	}
	for (r = 0; r < s->replicas; r++)
		add_slots(b, r, s->io_in, s->n_inputs, IPU_XFER_DIR_TO_DEVICE,
			  0);
	ipu_sess_batch_flush(b);
	/* The queue holds at least one command per replica (attach.c). */
	for (r = 0; r < s->replicas; r++)
		add_launch(b, r, 0);
	ipu_sess_batch_flush(b);
	for (r = 0; r < s->replicas; r++)
		add_slots(b, r, s->io_out, s->n_outputs,
			  IPU_XFER_DIR_FROM_DEVICE, 0);
	return ipu_sess_batch_flush(b);
}

int ipu_session_run_with_outputs(struct ipu_session *s,
				 const struct ipu_stream_buffer *inputs,
				 size_t n_inputs,
				 const struct ipu_stream_buffer *outputs,
				 size_t n_outputs, unsigned int flags)
{
	int64_t t0 = s && s->trace ? ipu_sess_trace_now() : 0;
	struct sess_batch b;
	int err;

	if (!s)
		return -EINVAL;
	if (flags & ~IPU_RUN_NO_DOWNCAST)
		return ipu_sess_err(s, -EINVAL, "run: unknown flags 0x%x",
				    flags & ~IPU_RUN_NO_DOWNCAST);
	err = ipu_sess_need_attached(s, "run");
	if (!err)
		err = ipu_sess_check_io(s, true, inputs, n_inputs, s->in_idx,
					s->n_inputs, flags, s->io_in);
	if (!err)
		err = ipu_sess_check_io(s, false, outputs, n_outputs,
					s->out_idx, s->n_outputs, flags,
					s->io_out);
	if (!err) {
		int64_t t1 = s->trace ? ipu_sess_trace_now() : 0;

		err = stage_downcasts(s);
		ipu_sess_trace_host(s, "downcast", t1);
	}
	if (err)
		return err;
	ipu_sess_batch_init(&b, s, "run");
	/* Only this run's failed gathers explain its failure. */
	ipu_sess_pci_gather_explain(s, 0);
	err = submit_run(s, &b);
	ipu_sess_pci_gather_explain(s, err);
	/*
	 * S13: the program may have changed variables. A run that failed
	 * met a device error, after which the batch has already marked the
	 * copies out of sync (S25): a launch that fails may have run part
	 * of the program.
	 */
	if (b.launched)
		s->in_sync = false;
	ipu_sess_trace_host(s, "run", t0);
	return err;
}

int ipu_session_run(struct ipu_session *s,
		    const struct ipu_stream_buffer *inputs, size_t n_inputs,
		    struct ipu_stream_buffer **outputsp, size_t *n_outputsp,
		    unsigned int flags)
{
	struct ipu_stream_buffer *out;
	size_t n;
	int err;

	if (!s)
		return -EINVAL;
	if (!outputsp || !n_outputsp)
		return ipu_sess_err(s, -EINVAL, "run: an out pointer is NULL");
	/* PopXL checks this before it makes the outputs. */
	err = ipu_sess_need_attached(s, "run");
	if (!err)
		err = ipu_session_create_host_outputs(s, &out, &n);
	if (err)
		return err;
	err = ipu_session_run_with_outputs(s, inputs, n_inputs, out, n, flags);
	if (err) {
		ipu_session_free_buffers(out, n);
		return err;
	}
	*outputsp = out;
	*n_outputsp = n;
	return 0;
}
