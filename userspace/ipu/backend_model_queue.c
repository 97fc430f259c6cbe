// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * backend_model_queue.c - the model's queues: a DMA-engine thread each.
 *
 * A submitted batch is cut into chains (maximal runs of linked commands)
 * and appended to the engine's FIFO. The engine thread takes one chain at
 * a time and runs its commands in order: transfers are a memcpy() straight
 * between the host buffer and the device memory (no bounce buffer, no
 * per-page work, so a large transfer runs at memcpy's speed); a launch of
 * one replica runs the program at once on the queue's firmware executor
 * (a reset of one of its devices cancels it: the launch fails with -EIO).
 * When a command fails, the rest of its chain completes with -ECANCELED.
 *
 * A launch of a replicated run waits for its siblings: its chain is
 * parked in the run's record and the engine moves on to other chains.
 * The chain that brings the last replica runs the program over all the
 * arenas, completes every replica's launch and puts the other parked
 * chains back at the head of the FIFO, so what was linked after them
 * follows. Runs are recorded at submission, which is where a replica
 * submitted twice is refused.
 *
 * Small transfers run inline: a batch of transfers alone, of at most
 * MQ_INLINE_BYTES in all, submitted while the engine is idle and its FIFO
 * empty, is copied in the submitter's thread before the submit returns.
 * Handing a 4 KiB copy to the engine and waiting for its completion cost
 * ten times the copy; in order and with nothing else running, the caller
 * cannot tell the difference, but in the time.
 *
 * Locking: mq.lock protects the FIFO, the runs and @stop; the engine
 * holds it only to take or put back chains. Everything a command touches
 * on a device is under that device's lock (model_attached(), the
 * executable cache) or is memory the caller promised not to touch while
 * the command is in flight.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ipu/firmware.h>

#include "backend.h"
#include "backend_model.h"
#include "internal.h"

/* A chain of linked commands; @pos is the next to run. */
struct mq_chain {
	struct mq_chain *next;
	size_t n, pos;
	struct ipu_cmd cmds[];
};

/**
 * struct mq_run - a replicated run, from its first launch's submission
 * until its program ran.
 * @group: ipu_launch_desc.group.
 * @nrep: replicas.
 * @arrived: launches whose chain reached them, or that were cancelled.
 * @cancelled: 1 + the first replica whose launch was cancelled (a command
 *	linked before it failed), or 0. Such a run cannot run; its other
 *	launches are cancelled too, once they have all arrived.
 * @seen: per replica: its launch was submitted.
 * @chains: per replica: its chain, parked at the launch; NULL for a
 *	cancelled launch.
 */
struct mq_run {
	struct mq_run *next;
	uint64_t group;
	uint32_t nrep;
	uint32_t arrived;
	uint32_t cancelled;
	uint8_t *seen;
	struct mq_chain **chains;
};

/**
 * struct mq - the engine of one queue.
 * @q: its queue, where completions are posted.
 * @thread: the engine thread.
 * @lock: protects @head, @tail, @runs and @stop.
 * @work: signalled when a chain is queued or @stop is set.
 * @head, @tail: chains waiting to run, in order.
 * @runs: replicated runs waiting for launches.
 * @stop: the queue is being destroyed.
 * @busy: a chain is running, in the engine or inline in a submitter;
 *	the engine takes no chain while it is set.
 * @ex, @ex_cap: the firmware executor, for up to @ex_cap replicas; the
 *	engine's alone, made on first launch and grown when needed.
 */
struct mq {
	struct ipu_queue *q;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct mq_chain *head, *tail;
	struct mq_run *runs;
	bool stop;
	bool busy;
	struct ipufw_executor *ex;
	unsigned int ex_cap;
};

/* A batch of transfers alone up to this many bytes may run inline. */
#define MQ_INLINE_BYTES (1u << 20)

static bool in_a_run(const struct ipu_cmd *cmd)
{
	return cmd->op == IPU_CMD_LAUNCH && cmd->launch.num_replicas > 1;
}

/* ---------------------------------------------------------------------- */
/* Running commands (engine thread)                                        */
/* ---------------------------------------------------------------------- */

#define INJECTED_DMA "injected fault (IPU_MODEL_FAULTS dma): nothing moved"
#define INJECTED_LAUNCH "injected fault (IPU_MODEL_FAULTS launch): the program ran, then the launch failed"
#define HUNG_XFER "injected fault (IPU_MODEL_FAULTS xfer_hang): the transfer stopped moving; nothing moved"

/* A transfer; *@detail says more about a failure when not NULL. */
static int run_xfer(struct mq *mq, const struct ipu_xfer_desc *x,
		    const char **detail)
{
	struct ipu_device *dev = x->bo->dev;
	uint64_t before;
	uint8_t *p;

	*detail = NULL;
	if (!model_attached(dev))
		return -EACCES;
	if (model_fault(MODEL_FAULT_DMA)) {
		*detail = INJECTED_DMA;
		return -EIO;
	}
	if (model_fault(MODEL_FAULT_XFER_HANG)) {
		/* As a hung launch: only a reset (or the queue going) ends
		 * it, snapshot taken before the wait so none is missed. */
		before = model_resets(dev);
		*detail = HUNG_XFER;
		return model_hang(&dev, 1, &before, &mq->stop);
	}
	p = model_bo_ptr(x->bo, x->bo_offset);
	if (x->dir == IPU_XFER_DIR_TO_DEVICE) {
		memcpy(p, x->host, x->length);
		model_bo_touch(x->bo);
	} else {
		memcpy(x->host, p, x->length);
	}
	if (model_fault(MODEL_FAULT_CORRUPT)) {
		/* Silent: the data arrive wrong and the transfer succeeds. */
		p = x->dir == IPU_XFER_DIR_TO_DEVICE ? p : x->host;
		p[0] = (uint8_t)~p[0];
		/* One byte is inverted once, not twice (back to right). */
		if (x->length > 1)
			p[x->length - 1] = (uint8_t)~p[x->length - 1];
	}
	return 0;
}

static int grow_executor(struct mq *mq, unsigned int nrep)
{
	struct ipufw_executor *ex;
	int err;

	if (mq->ex_cap >= nrep)
		return 0;
	err = ipufw_executor_create(nrep, &ex);
	if (err)
		return err;
	ipufw_executor_destroy(mq->ex);
	mq->ex = ex;
	mq->ex_cap = nrep;
	return 0;
}

/* Bytes of the arena of @l. */
static uint64_t arena_bytes(const struct ipu_launch_desc *l)
{
	return l->arena_size ? l->arena_size :
			       l->arena_bo->size - l->arena_offset;
}

/**
 * struct launch_out - what a run did.
 * @rc: its result.
 * @bad: the replica at fault, or -1 when the run as a whole failed (then
 *	every replica completes with @rc).
 * @msg: what went wrong.
 * @prof: per replica: its op records when its launch asked for them
 *	(IPU_LAUNCH_F_PROFILE), handed to its completion; else NULL. NULL
 *	when no launch of the run asked.
 */
struct launch_out {
	int rc;
	int bad;
	char msg[768];
	struct ipu_prof **prof;
};

static void fail_at(struct launch_out *out, int rc, int bad, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));
static void fail_at(struct launch_out *out, int rc, int bad, const char *fmt,
		    ...)
{
	va_list ap;

	out->rc = rc;
	out->bad = bad;
	va_start(ap, fmt);
	vsnprintf(out->msg, sizeof(out->msg), fmt, ap);
	va_end(ap);
}

/* Get the executables of @l[0..@nrep) into @e; all or none. */
static int get_exes(const struct ipu_launch_desc *const *l, uint32_t nrep,
		    struct model_exe **e, struct launch_out *out)
{
	char msg[512];
	uint32_t r;
	int err;

	for (r = 0; r < nrep; r++) {
		if (!model_attached(l[r]->arena_bo->dev)) {
			fail_at(out, -EACCES, r, "the device of replica %u is not attached (ipu_device_attach())",
				r);
			break;
		}
		msg[0] = '\0';
		err = model_exe_get(l[r]->exe_bo, l[r]->exe_size, &e[r], msg,
				    sizeof(msg));
		if (err) {
			fail_at(out, err, r, "the executable of replica %u (buffer object %u, %llu bytes): %s",
				r, l[r]->exe_bo->handle,
				(unsigned long long)l[r]->exe_size, msg);
			break;
		}
		if (r && !model_exe_same(e[r], e[0])) {
			fail_at(out, -EINVAL, r, "replica %u carries another executable than replica 0",
				r);
			model_exe_put(e[r]);
			break;
		}
	}
	if (r == nrep)
		return 0;
	while (r--)
		model_exe_put(e[r]);
	return out->rc;
}

/*
 * How many records a replica's run of instructions [@pc, @end) makes, at
 * most IPU_PROFILE_MAX_RECORDS: each op once, a LOOP's body count times
 * (loop control makes none). Loops' counts are in the program (the
 * executable validated: bodies nest inside their parents), so this is
 * known before the run; @depth bounds the recursion as the format does.
 */
static uint64_t ops_executed(const struct ipu_exe *exe, uint32_t pc,
			     uint32_t end, unsigned int depth)
{
	const struct ipu_exe_instr *in;
	uint64_t n = 0, count, body, inner;

	while (pc < end && n < IPU_PROFILE_MAX_RECORDS) {
		in = &exe->instrs[pc];
		if (in->op != IPU_OP_LOOP || in->num_params < 2 ||
		    depth >= IPU_EXE_MAX_LOOP_DEPTH) {
			n++;
			pc++;
			continue;
		}
		count = (uint64_t)exe->params[in->first_param];
		body = (uint64_t)exe->params[in->first_param + 1];
		if (body > end - pc - 1)
			body = end - pc - 1;
		inner = count ? ops_executed(exe, pc + 1,
					     pc + 1 + (uint32_t)body,
					     depth + 1) :
				0;
		/* Both at most the cap: the product fits. */
		n += inner && count >= IPU_PROFILE_MAX_RECORDS ?
			     IPU_PROFILE_MAX_RECORDS :
			     count * inner;
		pc += 1 + (uint32_t)body;
	}
	return n < IPU_PROFILE_MAX_RECORDS ? n : IPU_PROFILE_MAX_RECORDS;
}

/*
 * Room for the op records of the launches of @l that ask for them
 * (IPU_LAUNCH_F_PROFILE), in @out->prof and the executor's profile @fp;
 * false when none asks (the run is not profiled) or without memory (the
 * run goes on unprofiled: its launches complete without records).
 */
static bool profile_begin(struct mq *mq, const struct ipu_launch_desc *const *l,
			  uint32_t nrep, const struct ipu_exe *exe,
			  struct ipufw_profile **fpp, struct launch_out *out)
{
	struct ipufw_profile *fp;
	uint32_t r, cap;
	bool any = false;

	for (r = 0; r < nrep; r++)
		any |= !!(l[r]->flags & IPU_LAUNCH_F_PROFILE);
	if (!any)
		return false;
	/* Room for every op the run executes, up to the cap (what does
	 * not fit is counted as dropped). */
	cap = (uint32_t)ops_executed(exe, 0, exe->num_instrs, 0);
	if (!cap)
		cap = 1;
	out->prof = calloc(nrep, sizeof(*out->prof));
	fp = calloc(mq->ex_cap, sizeof(*fp));
	if (!out->prof || !fp)
		goto fail;
	for (r = 0; r < nrep; r++) {
		if (!(l[r]->flags & IPU_LAUNCH_F_PROFILE))
			continue;
		fp[r].recs = malloc(cap * sizeof(*fp[r].recs));
		if (!fp[r].recs)
			goto fail;
		fp[r].cap = cap;
	}
	ipufw_executor_set_profile(mq->ex, fp);
	*fpp = fp;
	return true;
fail:
	for (r = 0; fp && r < nrep; r++)
		free(fp[r].recs);
	free(fp);
	free(out->prof);
	out->prof = NULL;
	return false;
}

/* The executor's records of @fp into @out->prof, as libipu hands them. */
static void profile_end(struct mq *mq, uint32_t nrep, struct ipufw_profile *fp,
			struct launch_out *out)
{
	struct ipu_prof *p;
	uint32_t r, i;

	ipufw_executor_set_profile(mq->ex, NULL);
	for (r = 0; r < nrep; r++) {
		if (!fp[r].recs)
			continue;
		p = malloc(sizeof(*p) + fp[r].n * sizeof(p->recs[0]));
		if (p) {
			p->n = fp[r].n;
			p->dropped = fp[r].dropped;
			for (i = 0; i < fp[r].n; i++) {
				p->recs[i].index = fp[r].recs[i].pc;
				p->recs[i].op = fp[r].recs[i].op;
				p->recs[i].start_ns = fp[r].recs[i].start_ns;
				p->recs[i].end_ns = fp[r].recs[i].end_ns;
			}
		}
		out->prof[r] = p;
		free(fp[r].recs);
	}
	free(fp);
}

#define HUNG_LAUNCH "injected fault (IPU_MODEL_FAULTS hang): the firmware stopped answering"

/* The program of a run, once its executables and arenas are checked. */
static void run_checked(struct mq *mq, const struct ipu_launch_desc *const *l,
			const struct ipu_exe *exe,
			struct ipu_device *const *devs, void *const *arenas,
			uint32_t nrep, uint64_t size, uint64_t *before,
			struct launch_out *out)
{
	struct ipufw_profile *fp = NULL;
	bool profiled;
	uint32_t r;
	int err;

	for (r = 0; r < nrep; r++)
		before[r] = model_resets(devs[r]);
	if (model_fault(MODEL_FAULT_HANG)) {
		/* From the same snapshot: a reset since the launch began
		 * ends it, even one before the wait starts. */
		err = model_hang(devs, nrep, before, &mq->stop);
		fail_at(out, err, -1, "%s%s", HUNG_LAUNCH,
			err == -EIO ? "; the device was reset" : "");
		return;
	}
	/* A reset of a device stops the program (m_reset()). */
	model_set_running(devs, nrep, mq->ex);
	ipufw_executor_set_instances(mq->ex, ipu_model_instances());
	profiled = profile_begin(mq, l, nrep, exe, &fp, out);
	err = ipufw_run(mq->ex, exe, arenas, size, out->msg, sizeof(out->msg));
	if (profiled)
		profile_end(mq, nrep, fp, out);
	model_set_running(devs, nrep, NULL);
	/* As the kernel's: a launch a reset interrupted fails with -EIO,
	 * whatever the program had done by then. */
	if (model_reset_since(devs, nrep, before))
		fail_at(out, -EIO, -1, "the device was reset while the program ran");
	else if (err)
		out->rc = err;
	else if (model_fault(MODEL_FAULT_LAUNCH))
		fail_at(out, -EIO, -1, "%s", INJECTED_LAUNCH);
}

/*
 * Run the program of a run: @l[r] is replica r's launch. Fills @out; the
 * executables and arenas are checked here, where the BOs' bytes are known.
 */
static void run_program(struct mq *mq, const struct ipu_launch_desc *const *l,
			uint32_t nrep, struct launch_out *out)
{
	struct model_exe *one_e;
	struct model_exe **e = nrep == 1 ? &one_e : calloc(nrep, sizeof(*e));
	void *one_arena, **arenas = nrep == 1 ? &one_arena :
				    calloc(nrep, sizeof(*arenas));
	struct ipu_device *one_dev, **devs = nrep == 1 ? &one_dev :
					     calloc(nrep, sizeof(*devs));
	uint64_t one_before, *before = nrep == 1 ? &one_before :
				       calloc(nrep, sizeof(*before));
	const struct ipu_exe *exe;
	uint64_t size = UINT64_MAX;
	uint32_t r;
	int err;

	out->rc = 0;
	out->bad = -1;
	out->msg[0] = '\0';
	out->prof = NULL;
	if (!e || !arenas || !devs || !before) {
		fail_at(out, -ENOMEM, -1, "no memory for a run of %u replicas",
			nrep);
		goto out_free;
	}
	if (get_exes(l, nrep, e, out))
		goto out_free;
	exe = model_exe_exe(e[0]);
	if (exe->instance_replication_factor != nrep) {
		fail_at(out, -EINVAL, -1, "the executable \"%s\" is for %u replicas (per instance), launched as %u",
			exe->name, exe->instance_replication_factor, nrep);
		goto out_put;
	}
	for (r = 0; r < nrep; r++) {
		arenas[r] = model_bo_ptr(l[r]->arena_bo, l[r]->arena_offset);
		devs[r] = l[r]->arena_bo->dev;
		if (arena_bytes(l[r]) < size)
			size = arena_bytes(l[r]);
	}
	err = grow_executor(mq, nrep);
	if (err) {
		fail_at(out, err, -1, "no firmware executor for %u replicas",
			nrep);
		goto out_put;
	}
	run_checked(mq, l, exe, devs, arenas, nrep, size, before, out);
	/* The program wrote its arenas: an image there is stale. */
	for (r = 0; r < nrep; r++)
		model_bo_touch(l[r]->arena_bo);
out_put:
	for (r = 0; r < nrep; r++)
		model_exe_put(e[r]);
out_free:
	if (nrep > 1) {
		free(e);
		free(arenas);
		free(devs);
		free(before);
	}
}

/* Post the completion of launch @cmd (replica @r) of a run that did @out. */
static int complete_launch(struct mq *mq, const struct ipu_cmd *cmd,
			   uint32_t r, const struct launch_out *out)
{
	struct ipu_prof *prof = out->prof ? out->prof[r] : NULL;
	char msg[900];

	/* The records go with the completion: the queue owns them now. */
	if (out->prof)
		out->prof[r] = NULL;
	if (!out->rc) {
		ipu_queue_complete_prof(mq->q, cmd, 0, NULL, prof);
		return 0;
	}
	if (out->bad < 0 || (uint32_t)out->bad == r) {
		ipu_queue_complete_prof(mq->q, cmd, out->rc, out->msg, prof);
		return out->rc;
	}
	snprintf(msg, sizeof(msg), "not run: %s", out->msg);
	ipu_queue_complete_prof(mq->q, cmd, -ECANCELED, msg, prof);
	return -ECANCELED;
}

static void cancel_rest(struct mq *mq, struct mq_chain *c, size_t pos);

/* Free @out and the records no completion took (a cancelled replica's). */
static void free_out(struct launch_out *out, uint32_t nrep)
{
	uint32_t r;

	if (out && out->prof) {
		for (r = 0; r < nrep; r++)
			free(out->prof[r]);
		free(out->prof);
	}
	free(out);
}

/* Put @c back at the head of the FIFO. */
static void requeue_front(struct mq *mq, struct mq_chain *c)
{
	pthread_mutex_lock(&mq->lock);
	c->next = mq->head;
	mq->head = c;
	if (!mq->tail)
		mq->tail = c;
	pthread_mutex_unlock(&mq->lock);
}

static struct mq_run *find_run_locked(struct mq_run *runs, uint64_t group)
{
	for (; runs; runs = runs->next)
		if (runs->group == group)
			return runs;
	return NULL;
}

static void free_run(struct mq_run *run)
{
	free(run->seen);
	free(run->chains);
	free(run);
}

/*
 * Launch @l of a run has been reached by chain @c, or cancelled (@c NULL).
 * Park @c; when this was the last replica, take the run off the list and
 * return it.
 */
static struct mq_run *arrive(struct mq *mq, const struct ipu_launch_desc *l,
			     struct mq_chain *c)
{
	struct mq_run *run, **pp;

	pthread_mutex_lock(&mq->lock);
	run = find_run_locked(mq->runs, l->group);
	run->chains[l->replica] = c;
	if (!c && !run->cancelled)
		run->cancelled = l->replica + 1;
	if (++run->arrived < run->nrep) {
		pthread_mutex_unlock(&mq->lock);
		return NULL;
	}
	for (pp = &mq->runs; *pp != run; pp = &(*pp)->next)
		;
	*pp = run->next;
	pthread_mutex_unlock(&mq->lock);
	return run;
}

/*
 * Run @run, whose last launch is in @c (NULL: the last was cancelled), and
 * complete its launches. The other chains go on from the FIFO's head, or
 * end if their launch failed. Returns the result of @c's launch.
 */
static int run_replicated(struct mq *mq, struct mq_run *run,
			  struct mq_chain *c)
{
	const struct ipu_launch_desc **l;
	struct launch_out *out;
	struct mq_chain *cr;
	uint32_t r;
	int res, mine = 0;

	l = calloc(run->nrep, sizeof(*l));
	out = calloc(1, sizeof(*out));
	if (out && run->cancelled) {
		fail_at(out, -ECANCELED, -1, "not run: the launch of replica %u was cancelled",
			run->cancelled - 1);
	} else if (l && out) {
		for (r = 0; r < run->nrep; r++)
			l[r] = &run->chains[r]->cmds[run->chains[r]->pos].launch;
		run_program(mq, l, run->nrep, out);
	} else if (out) {
		fail_at(out, -ENOMEM, -1, "no memory for a run of %u replicas",
			run->nrep);
	}
	/* Backwards, so that requeued chains end up in replica order. */
	for (r = run->nrep; r-- > 0;) {
		cr = run->chains[r];
		if (!cr) /* cancelled, and completed as such */
			continue;
		if (out) {
			res = complete_launch(mq, &cr->cmds[cr->pos], r, out);
		} else {
			res = -ENOMEM;
			ipu_queue_complete(mq->q, &cr->cmds[cr->pos], res, NULL);
		}
		if (cr == c) {
			mine = res;
			continue;
		}
		if (res || cr->pos + 1 == cr->n) {
			cancel_rest(mq, cr, cr->pos);
			free(cr);
			continue;
		}
		cr->pos++;
		requeue_front(mq, cr);
	}
	free_out(out, run->nrep);
	free(l);
	free_run(run);
	return mine;
}

/*
 * Complete the commands of @c after the one at @pos with -ECANCELED. A
 * cancelled launch of a run still counts as arrived, so that the run's
 * other launches do not wait for it forever.
 */
static void cancel_rest(struct mq *mq, struct mq_chain *c, size_t pos)
{
	struct mq_run *run;

	while (++pos < c->n) {
		ipu_queue_complete(mq->q, &c->cmds[pos], -ECANCELED, NULL);
		if (!in_a_run(&c->cmds[pos]))
			continue;
		run = arrive(mq, &c->cmds[pos].launch, NULL);
		if (run)
			run_replicated(mq, run, NULL);
	}
}

/* Run chain @c from its position; frees it unless it parks. */
static void run_chain(struct mq *mq, struct mq_chain *c)
{
	const struct ipu_launch_desc *l;
	struct launch_out *out;
	struct mq_run *run;
	struct ipu_cmd *cmd;
	int res;

	for (; c->pos < c->n; c->pos++) {
		/* Destroying the queue cancels what has not started. */
		if (__atomic_load_n(&mq->stop, __ATOMIC_RELAXED))
			break;
		cmd = &c->cmds[c->pos];
		if (in_a_run(cmd)) {
			run = arrive(mq, &cmd->launch, c);
			if (!run)
				return; /* parked */
			res = run_replicated(mq, run, c);
		} else if (cmd->op == IPU_CMD_LAUNCH) {
			l = &cmd->launch;
			out = calloc(1, sizeof(*out));
			if (out) {
				run_program(mq, &l, 1, out);
				res = complete_launch(mq, cmd, 0, out);
				free_out(out, 1);
			} else {
				res = -ENOMEM;
				ipu_queue_complete(mq->q, cmd, res, NULL);
			}
		} else {
			const char *detail;

			res = run_xfer(mq, &cmd->xfer, &detail);
			ipu_queue_complete(mq->q, cmd, res, detail);
		}
		if (res) {
			cancel_rest(mq, c, c->pos);
			break;
		}
	}
	free(c);
}

static bool has_work(const void *arg)
{
	const struct mq *mq = arg;

	return (__atomic_load_n(&mq->head, __ATOMIC_ACQUIRE) &&
		!__atomic_load_n(&mq->busy, __ATOMIC_ACQUIRE)) ||
	       __atomic_load_n(&mq->stop, __ATOMIC_RELAXED);
}

static void *engine_main(void *arg)
{
	struct mq *mq = arg;
	struct mq_chain *c;

	pthread_mutex_lock(&mq->lock);
	for (;;) {
		if ((!mq->head || mq->busy) && !mq->stop) {
			/* A caller that submits, reaps and submits again
			 * finds the engine still awake. */
			pthread_mutex_unlock(&mq->lock);
			ipu_spin(has_work, mq);
			pthread_mutex_lock(&mq->lock);
		}
		while ((!mq->head || mq->busy) && !mq->stop)
			pthread_cond_wait(&mq->work, &mq->lock);
		if (mq->stop)
			break;
		c = mq->head;
		mq->head = c->next;
		if (!mq->head)
			mq->tail = NULL;
		__atomic_store_n(&mq->busy, true, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&mq->lock);
		run_chain(mq, c);
		pthread_mutex_lock(&mq->lock);
		__atomic_store_n(&mq->busy, false, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&mq->lock);
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* Queue ops                                                               */
/* ---------------------------------------------------------------------- */

int model_queue_create(struct ipu_queue *q)
{
	struct mq *mq;
	int err;

	mq = calloc(1, sizeof(*mq));
	if (!mq)
		return -ENOMEM;
	mq->q = q;
	pthread_mutex_init(&mq->lock, NULL);
	pthread_cond_init(&mq->work, NULL);
	err = -pthread_create(&mq->thread, NULL, engine_main, mq);
	if (err) {
		pthread_cond_destroy(&mq->work);
		pthread_mutex_destroy(&mq->lock);
		free(mq);
		return err;
	}
	q->priv = mq;
	return 0;
}

void model_queue_destroy(struct ipu_queue *q)
{
	struct mq *mq = q->priv;
	struct mq_chain *c;
	struct mq_run *run;
	uint32_t r;

	pthread_mutex_lock(&mq->lock);
	__atomic_store_n(&mq->stop, true, __ATOMIC_RELAXED);
	pthread_cond_signal(&mq->work);
	pthread_mutex_unlock(&mq->lock);
	/* A hung launch (fault "hang") gives up when the queue goes. */
	model_hang_wake();
	pthread_join(mq->thread, NULL);

	/* What never ran: queued chains, and chains parked in runs. */
	while ((c = mq->head)) {
		mq->head = c->next;
		free(c);
	}
	while ((run = mq->runs)) {
		mq->runs = run->next;
		for (r = 0; r < run->nrep; r++)
			free(run->chains[r]);
		free_run(run);
	}
	ipufw_executor_destroy(mq->ex);
	pthread_cond_destroy(&mq->work);
	pthread_mutex_destroy(&mq->lock);
	free(mq);
	q->priv = NULL;
}

/* Cut @cmds into chains, linked through ->next in order; NULL on -ENOMEM. */
static struct mq_chain *make_chains(const struct ipu_cmd *cmds, size_t n)
{
	struct mq_chain *first = NULL, **link = &first, *c;
	size_t i, j;

	for (i = 0; i < n; i = j) {
		for (j = i; j + 1 < n && cmds[j].flags & IPU_CMD_F_LINK; j++)
			;
		j++;
		c = malloc(sizeof(*c) + (j - i) * sizeof(c->cmds[0]));
		if (!c) {
			while ((c = first)) {
				first = c->next;
				free(c);
			}
			return NULL;
		}
		c->next = NULL;
		c->n = j - i;
		c->pos = 0;
		memcpy(c->cmds, &cmds[i], c->n * sizeof(c->cmds[0]));
		*link = c;
		link = &c->next;
	}
	return first;
}

/* The launches of runs against the runs in flight; under mq->lock. */
static int check_runs_locked(struct mq *mq, const struct ipu_cmd *cmds,
			     size_t n, char *why, size_t whylen)
{
	const struct ipu_launch_desc *l;
	struct mq_run *run;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		if (!in_a_run(&cmds[i]))
			continue;
		l = &cmds[i].launch;
		run = find_run_locked(mq->runs, l->group);
		if (!run)
			continue;
		err = ipu_run_conflict(l, i, run->nrep,
				       l->replica < run->nrep && run->seen[l->replica],
				       why, whylen);
		if (err)
			return err;
	}
	return 0;
}

/* Record the launches of runs; all or nothing. Under mq->lock. */
static int add_runs_locked(struct mq *mq, const struct ipu_cmd *cmds,
			   size_t n)
{
	struct mq_run *fresh = NULL, *run;
	const struct ipu_launch_desc *l;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!in_a_run(&cmds[i]))
			continue;
		l = &cmds[i].launch;
		if (find_run_locked(mq->runs, l->group) ||
		    find_run_locked(fresh, l->group))
			continue;
		run = calloc(1, sizeof(*run));
		if (run) {
			run->seen = calloc(l->num_replicas, sizeof(*run->seen));
			run->chains = calloc(l->num_replicas,
					     sizeof(*run->chains));
		}
		if (!run || !run->seen || !run->chains) {
			if (run)
				free_run(run);
			while ((run = fresh)) {
				fresh = run->next;
				free_run(run);
			}
			return -ENOMEM;
		}
		run->group = l->group;
		run->nrep = l->num_replicas;
		run->next = fresh;
		fresh = run;
	}
	while ((run = fresh)) {
		fresh = run->next;
		run->next = mq->runs;
		mq->runs = run;
	}
	for (i = 0; i < n; i++) {
		if (in_a_run(&cmds[i])) {
			l = &cmds[i].launch;
			find_run_locked(mq->runs, l->group)->seen[l->replica] = 1;
		}
	}
	return 0;
}

/* Whether @cmds are transfers alone, of at most MQ_INLINE_BYTES in all. */
static bool small_xfers(const struct ipu_cmd *cmds, size_t n)
{
	uint64_t bytes = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (cmds[i].op != IPU_CMD_XFER ||
		    cmds[i].xfer.length > MQ_INLINE_BYTES - bytes)
			return false;
		bytes += cmds[i].xfer.length;
	}
	return true;
}

/*
 * Run the transfers @cmds in the caller's thread if the engine is idle and
 * has nothing queued (nothing to overtake) and no fault is set (a hung
 * transfer would hang the submit). False: they are the engine's to run.
 * Straight from @cmds, with no chains made: a failure cancels the rest of
 * its chain, as run_chain() does (transfers are in no run).
 */
static bool run_inline(struct mq *mq, const struct ipu_cmd *cmds, size_t n)
{
	const char *detail;
	size_t i;
	int res;

	if (model_faults_armed())
		return false;
	pthread_mutex_lock(&mq->lock);
	if (mq->head || mq->busy || mq->stop) {
		pthread_mutex_unlock(&mq->lock);
		return false;
	}
	__atomic_store_n(&mq->busy, true, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&mq->lock);
	for (i = 0; i < n; i++) {
		res = run_xfer(mq, &cmds[i].xfer, &detail);
		ipu_queue_complete(mq->q, &cmds[i], res, detail);
		while (res && cmds[i].flags & IPU_CMD_F_LINK && i + 1 < n)
			ipu_queue_complete(mq->q, &cmds[++i], -ECANCELED, NULL);
	}
	pthread_mutex_lock(&mq->lock);
	__atomic_store_n(&mq->busy, false, __ATOMIC_RELEASE);
	/* What others submitted meanwhile waited for us. */
	if (mq->head)
		pthread_cond_signal(&mq->work);
	pthread_mutex_unlock(&mq->lock);
	return true;
}

int model_queue_submit(struct ipu_queue *q, const struct ipu_cmd *cmds,
		       size_t n, const struct ipu_submit_wait *wait, char *why,
		       size_t whylen)
{
	struct mq *mq = q->priv;
	struct mq_chain *chains, *last;
	size_t i;
	int err;

	/* The engine thread posts as it goes: the reap after this waits. */
	(void)wait;

	/* The model is in the process: it calls the process's instances
	 * (ipu_model_set_instances()), no launch names one. */
	for (i = 0; i < n; i++) {
		if (cmds[i].op == IPU_CMD_LAUNCH &&
		    cmds[i].launch.instance_count) {
			snprintf(why, whylen, "command %zu (launch): a split launch: the model takes a split program's instances from ipu_model_set_instances(), not from its launches",
				 i);
			return -EOPNOTSUPP;
		}
	}
	if (small_xfers(cmds, n) && run_inline(mq, cmds, n))
		return 0;
	chains = make_chains(cmds, n);
	if (!chains)
		return -ENOMEM;
	pthread_mutex_lock(&mq->lock);
	err = check_runs_locked(mq, cmds, n, why, whylen);
	if (!err)
		err = add_runs_locked(mq, cmds, n);
	if (err) {
		pthread_mutex_unlock(&mq->lock);
		while ((last = chains)) {
			chains = last->next;
			free(last);
		}
		return err;
	}
	for (last = chains; last->next; last = last->next)
		;
	if (mq->tail)
		mq->tail->next = chains;
	else
		__atomic_store_n(&mq->head, chains, __ATOMIC_RELEASE);
	mq->tail = last;
	pthread_cond_signal(&mq->work);
	pthread_mutex_unlock(&mq->lock);
	return 0;
}
