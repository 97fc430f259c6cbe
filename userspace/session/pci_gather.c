// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * pci_gather.c - the gathers a split program's PCIe IPUs ask for
 * (docs/instances.md, "PCIe IPUs"; docs/hardware.md section 4.4).
 *
 * A PCIe IPU runs a launch itself, from its command queue, so the
 * firmware's allgather becomes a *gather request*: the IPU of the run's
 * replica 0 writes this instance's part into the launch's staging area,
 * posts the request and holds the run until the host answers. While a
 * session of a split program is attached to such IPUs, this file
 *
 *  - gives each replica a staging buffer: replica 0's holds count parts of
 *    the largest gather the program makes, the others' a granule (every
 *    launch of a split run must name one; only replica 0's is used);
 *  - runs a thread that polls the IPUs' files (ipu_gather_fd(): readable
 *    while a request waits) and serves each request with the process's
 *    instances (ipu_model_instances(): MPI under libipu-mpi), the same
 *    transport ipu-simd's gathers take (fw_gather.c): it reads this
 *    instance's part, gathers every instance's, writes the others' parts
 *    back and answers; a failed exchange is answered with its errno, so
 *    the launch fails at once with it instead of at its deadline, and the
 *    transport's message becomes the run's (ipu_sess_pci_gather_explain()).
 *
 * The parts move by transfers (ipu_xfer_run(): the IPU's DMA queues run
 * beside its held launch), not through the staging buffer's mapping of
 * BAR2: faster from a few hundred KiB on even in the guests (where the
 * mapping costs no more than memcpy; docs/instances.md has the figures),
 * reads of BAR2 are uncached on real PCIe (the mapping is
 * write-combined), and an IPU that falls off the bus mid-gather makes a
 * transfer fail with -ENODEV where touching its mapping raises SIGBUS in
 * the application.
 *
 * The thread calls the transport while the session's thread waits for the
 * run, never both at once (MPI_THREAD_SERIALIZED is enough), as with
 * ipu-simd. Every request is checked against what the session launched
 * (its staging buffer, instance, a part that fits): a device that lies is
 * answered -EPROTO. Bounds: a request waits for the transport, which
 * returns within its own timeout; a reset makes the answer stale
 * (-ENOENT, ignored: the run has failed already); a stop request (detach)
 * ends the thread's wait at once, and its join waits at most for a
 * transport call in progress.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ipu/exe.h>
#include <ipu/firmware.h>
#include <ipu/ipu.h>

#include "session_internal.h"

/**
 * struct sess_pci_gather - the service of one attached session.
 * @s: the session (its devices, replicas and queue stay while attached).
 * @inst: the process's instances, as the session checked them at create.
 * @staging_size: bytes of replica 0's staging area.
 * @stop: a byte on stop[1] ends the thread.
 * @thread: the thread.
 * @buf, @cap: the parts of a gather, kept between gathers.
 * @lock: protects @err and @msg.
 * @err, @msg: the last failed gather since ipu_sess_pci_gather_explain()
 *	last looked, for the run's message.
 */
struct sess_pci_gather {
	struct ipu_session *s;
	const struct ipufw_instances *inst;
	uint32_t staging_size;
	int stop[2];
	pthread_t thread;
	uint8_t *buf;
	size_t cap;
	pthread_mutex_t lock;
	int err;
	char msg[512];
};

/*
 * Bytes of the staging area: the instances' parts of the largest gather a
 * run makes. The firmware gathers for each all-reduce whose groups have
 * several members (firmware/allreduce.c): every replica's operand, so
 * replication_factor operands in all; 0 when the program makes none.
 */
static uint64_t staging_bytes(const struct ipu_exe *exe)
{
	const struct ipu_exe_instr *in;
	uint64_t most = 0, bytes;
	uint32_t i, x;

	for (i = 0; i < exe->num_instrs; i++) {
		in = &exe->instrs[i];
		if (in->op != IPU_OP_ALL_REDUCE || in->num_operands < 2 ||
		    in->num_params < 2 || exe->params[in->first_param + 1] == 1)
			continue;
		x = exe->operands[in->first_operand + 1];
		bytes = exe->tensors[x].nbytes * exe->replication_factor;
		if (bytes > most)
			most = bytes;
	}
	return most;
}

/* Note a failed gather for the run's message. */
static void note_failure(struct sess_pci_gather *pg, int err, const char *msg)
{
	pthread_mutex_lock(&pg->lock);
	pg->err = err;
	snprintf(pg->msg, sizeof(pg->msg), "%s", msg);
	pthread_mutex_unlock(&pg->lock);
}

/* Parts @first.. (@parts of them) of @req between @host and the staging
 * area on @dev, by one transfer. */
static int move(struct ipu_device *dev, const struct ipu_gather_request *req,
		uint8_t *host, uint64_t first, uint64_t parts, uint32_t dir)
{
	return ipu_xfer_run(dev,
			    &(struct ipu_xfer_desc){
				    .bo = req->staging_bo,
				    .bo_offset = req->staging_offset +
						 first * req->bytes,
				    .host = host + first * req->bytes,
				    .length = parts * req->bytes,
				    .dir = dir,
			    },
			    1, NULL);
}

/*
 * Exchange the parts of @req: 0, or the -errno to answer with and the
 * reason in @msg.
 */
static int exchange(struct sess_pci_gather *pg, struct ipu_device *dev,
		    const struct ipu_gather_request *req, char *msg,
		    size_t msglen)
{
	const struct ipufw_instances *inst = pg->inst;
	const uint32_t me = inst->index, n = inst->count;
	uint64_t total;
	uint8_t *p;
	int err;

	if (!req->staging_bo || req->staging_bo != pg->s->reps[0].staging_bo ||
	    req->instance_index != me || req->instance_count != n ||
	    !req->bytes || req->bytes > (uint64_t)SIZE_MAX / n ||
	    req->staging_offset != 0 || req->bytes * n > pg->staging_size) {
		snprintf(msg, msglen,
			 "%s asked for a gather the session did not launch (instance %u of %u, %llu bytes per part at offset %llu of staging buffer %u): refused",
			 ipu_device_name(dev),
			 req->instance_index, req->instance_count,
			 (unsigned long long)req->bytes,
			 (unsigned long long)req->staging_offset,
			 req->staging_handle);
		return -EPROTO;
	}
	total = req->bytes * n;
	if (total > pg->cap) {
		p = realloc(pg->buf, total);
		if (!p) {
			snprintf(msg, msglen, "no memory for a gather of %llu bytes",
				 (unsigned long long)total);
			return -ENOMEM;
		}
		pg->buf = p;
		pg->cap = total;
	}
	err = move(dev, req, pg->buf, me, 1, IPU_XFER_DIR_FROM_DEVICE);
	if (err) {
		snprintf(msg, msglen, "reading this instance's part: %s",
			 ipu_errmsg());
		return err;
	}
	msg[0] = '\0';
	err = inst->allgather(inst->ctx, pg->buf, req->bytes, msg, msglen);
	if (err) {
		if (!msg[0])
			snprintf(msg, msglen, "the instances' gather: %s",
				 strerror(-err));
		return err < 0 && err >= -IPU_GATHER_MAX_ERRNO ? err : -EIO;
	}
	/* The parts before this instance's and after it; the device never
	 * takes its own part back. */
	if (me)
		err = move(dev, req, pg->buf, 0, me, IPU_XFER_DIR_TO_DEVICE);
	if (!err && me + 1 < n)
		err = move(dev, req, pg->buf, me + 1, n - me - 1,
			   IPU_XFER_DIR_TO_DEVICE);
	if (err)
		snprintf(msg, msglen, "writing the other instances' parts: %s",
			 ipu_errmsg());
	return err;
}

/* Take and serve every request of @dev; false when the device is gone. */
static bool serve_device(struct sess_pci_gather *pg, struct ipu_device *dev)
{
	struct ipu_gather_request req = { .sz = sizeof(req) };
	char msg[sizeof(pg->msg) - 64];
	int err, rc;

	for (;;) {
		err = ipu_gather_next(dev, &req);
		if (err == -EAGAIN)
			return true;
		if (err) {
			ipu_sess_log("instance gathers: %s", ipu_errmsg());
			return false;
		}
		rc = exchange(pg, dev, &req, msg, sizeof(msg));
		if (rc) {
			note_failure(pg, rc, msg);
			ipu_sess_log("instance %u of %u: gather %u of the run on %s failed: %s",
				     pg->inst->index, pg->inst->count,
				     req.collective, ipu_device_name(dev), msg);
		}
		/* -ENOENT: a reset or the launch's end forgot the request;
		 * the run has failed already. */
		err = ipu_gather_answer(dev, req.token, rc);
		if (err && err != -ENOENT)
			ipu_sess_log("instance gathers: %s", ipu_errmsg());
	}
}

static void *service(void *arg)
{
	struct sess_pci_gather *pg = arg;
	struct ipu_session *s = pg->s;
	struct pollfd *pfd;
	uint32_t i, n = s->num_ipus;

	pfd = calloc(n + 1, sizeof(*pfd));
	if (!pfd) {
		note_failure(pg, -ENOMEM, "no memory for the gather thread");
		return NULL;
	}
	pfd[0] = (struct pollfd){ .fd = pg->stop[0], .events = POLLIN };
	for (i = 0; i < n; i++)
		pfd[i + 1] = (struct pollfd){ .fd = ipu_gather_fd(s->devs[i]),
					      .events = POLLIN };
	for (;;) {
		if (poll(pfd, n + 1, -1) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		for (i = 0; i < n; i++) {
			if (!pfd[i + 1].revents)
				continue;
			/* A removed IPU polls as an error for ever: stop
			 * watching it (its launches fail with -ENODEV). */
			if (pfd[i + 1].revents & (POLLERR | POLLHUP | POLLNVAL) ||
			    !serve_device(pg, s->devs[i]))
				pfd[i + 1].fd = -1;
		}
	}
	free(pfd);
	return NULL;
}

/* Replica @r's staging buffer; replica 0's of @bytes. */
static int make_staging(struct ipu_session *s, uint32_t r, uint64_t bytes)
{
	struct sess_replica *rep = &s->reps[r];
	int err = ipu_bo_create(rep->dev, bytes, 0, &rep->staging_bo);

	if (err)
		return ipu_sess_err(s, err,
				    "attach: the staging area of replica %u (%llu bytes) on %s: %s",
				    r, (unsigned long long)bytes,
				    ipu_device_name(rep->dev), ipu_errmsg());
	return 0;
}

static void pg_free(struct sess_pci_gather *pg)
{
	if (pg->stop[0] >= 0) {
		close(pg->stop[0]);
		close(pg->stop[1]);
	}
	pthread_mutex_destroy(&pg->lock);
	free(pg->buf);
	free(pg);
}

int ipu_sess_pci_gather_start(struct ipu_session *s)
{
	uint64_t bytes = staging_bytes(s->exe);
	struct sess_pci_gather *pg;
	uint32_t r;
	int err;

	if (bytes > UINT32_MAX)
		return ipu_sess_err(s, -EFBIG,
				    "attach: the program's largest all-reduce gathers %llu bytes from its %u replicas; a PCIe IPU's staging area holds at most %u",
				    (unsigned long long)bytes, s->rf, UINT32_MAX);
	/* A split launch names a staging area even without a gather. */
	if (bytes < IPU_LAUNCH_STAGING_ALIGN)
		bytes = IPU_LAUNCH_STAGING_ALIGN;
	for (r = 0; r < s->replicas; r++) {
		err = make_staging(s, r, r ? IPU_LAUNCH_STAGING_ALIGN : bytes);
		if (err)
			return err;
	}
	pg = calloc(1, sizeof(*pg));
	if (!pg)
		return ipu_sess_err(s, -ENOMEM, "attach: no memory");
	pg->s = s;
	pg->inst = ipu_model_instances();
	pg->staging_size = (uint32_t)bytes;
	pthread_mutex_init(&pg->lock, NULL);
	if (pipe2(pg->stop, O_CLOEXEC | O_NONBLOCK)) {
		err = -errno;
		pg->stop[0] = pg->stop[1] = -1;
		pg_free(pg);
		return ipu_sess_err(s, err, "attach: instance gathers: pipe: %s",
				    strerror(-err));
	}
	err = ipu_sess_thread_create(&pg->thread, service, pg);
	if (err) {
		pg_free(pg);
		return ipu_sess_err(s, err, "attach: instance gathers: a thread: %s",
				    strerror(-err));
	}
	s->pci_gather = pg;
	return 0;
}

void ipu_sess_pci_gather_stop(struct ipu_session *s)
{
	struct sess_pci_gather *pg = s->pci_gather;

	if (!pg)
		return;
	s->pci_gather = NULL;
	if (write(pg->stop[1], "", 1) != 1)
		ipu_sess_log("instance gathers: cannot stop the gather thread: %s",
			     strerror(errno));
	pthread_join(pg->thread, NULL);
	pg_free(pg);
}

void ipu_sess_pci_gather_launch(const struct ipu_session *s, uint32_t r,
				struct ipu_launch_desc *l)
{
	const struct sess_pci_gather *pg = s->pci_gather;

	if (!pg)
		return;
	l->instance_index = (uint16_t)pg->inst->index;
	l->instance_count = (uint16_t)pg->inst->count;
	l->staging_bo = s->reps[r].staging_bo;
	l->staging_offset = 0;
	l->staging_size = r ? IPU_LAUNCH_STAGING_ALIGN : pg->staging_size;
}

void ipu_sess_pci_gather_explain(struct ipu_session *s, int err)
{
	struct sess_pci_gather *pg = s->pci_gather;
	char why[sizeof(pg->msg)];
	int gerr;

	if (!pg)
		return;
	pthread_mutex_lock(&pg->lock);
	gerr = pg->err;
	snprintf(why, sizeof(why), "%s", pg->msg);
	pg->err = 0;
	pg->msg[0] = '\0';
	pthread_mutex_unlock(&pg->lock);
	/* The launch failed with what the gather answered: say why, in
	 * the transport's words (the device knows only the errno). */
	if (err && gerr == err)
		ipu_sess_err(s, err,
			     "run: instance %u of %u: an all-reduce across instances failed: %s",
			     pg->inst->index, pg->inst->count, why);
}
