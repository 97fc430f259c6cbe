// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * instances_mpi.c - struct ipufw_instances over MPI (include/ipu/mpi.h,
 * docs/instances.md).
 *
 * The allgather is MPI_Iallgather on a duplicate of MPI_COMM_WORLD (so the
 * application's own messages never match ours) with MPI_ERRORS_RETURN (MPI's
 * default handler would abort the job on the first error, before we could
 * say which instance failed), completed by polling MPI_Test against a
 * deadline: a peer that died or hangs makes the call fail with -ETIMEDOUT
 * within the timeout instead of waiting forever. Open MPI 4.1 has no
 * standard way to cancel a collective, so after a timeout the request is
 * abandoned with the staging buffer it writes into (never freed: MPI may
 * still write to it), and every later collective fails at once.
 *
 * An all-reduce is MPI_Ialltoallv (each instance sends each other the
 * share of the operand that one reduces, straight from the firmware's
 * buffers) and MPI_Iallgatherv of the reduced shares, in place: the bytes
 * a ring MPI_Allreduce moves. Why not MPI_Allreduce itself: the firmware
 * sums the operands in replica order and in double, so the bits are the
 * one-host bits whatever the split; MPI's reduction order is its own (it
 * depends on the algorithm, hence on the rank count and the size) and
 * rounds to float at every step. The allgather (MPI_Iallgather through a
 * staging buffer) serves the transports' other users (weights fetched
 * across instances, userspace/session/gather.c).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include <ipu/firmware.h>
#include <ipu/ipu.h>
#include <ipu/mpi.h>

/* How long MPI_Test is polled with only a yield between polls before the
 * poller starts to nap: MPI moves a large message in fragments, each
 * needing a poll (napping 50 us between polls made a 1 MiB all-gather
 * three times slower), while a yield still lets a peer that shares the
 * core (mpirun --oversubscribe) run. A peer that has not answered by then
 * is likely gone or busy for long, and napping saves the core meanwhile. */
#define POLL_YIELD_NS 200000000ull
#define POLL_SLEEP_NS 50000L

static struct {
	bool ready;
	bool we_initialised;	/* MPI_Init_thread() was ours */
	bool broken;		/* a collective timed out or failed */
	MPI_Comm comm;
	uint32_t timeout_ms;
	struct ipufw_instances inst;
	void *stage;		/* the allgather's buffer, @stage_size bytes */
	size_t stage_size;
	int *counts;		/* 4 arrays of @counts_of ints, for the v calls */
	uint32_t counts_of;
} g = { .inst = { .index = 0, .count = 1 } };

static void say(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void mpi_error(char *msg, size_t len, const char *what, int rc)
{
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;

	if (MPI_Error_string(rc, s, &n) != MPI_SUCCESS)
		snprintf(s, sizeof(s), "MPI error %d", rc);
	say(msg, len, "instance %u of %u: %s: %s", g.inst.index, g.inst.count,
	    what, s);
}

/* Complete @req (the collective @what) by the deadline @end_ns, or fail. */
static int wait_bounded(MPI_Request *req, uint64_t end_ns, const char *what,
			char *msg, size_t len)
{
	struct timespec nap = { 0, POLL_SLEEP_NS };
	uint64_t start = now_ns(), t;
	int done = 0, rc;

	for (;;) {
		rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS) {
			mpi_error(msg, len, what, rc);
			return -EPIPE;
		}
		if (done)
			return 0;
		t = now_ns();
		if (t >= end_ns) {
			say(msg, len,
			    "instance %u of %u: no answer from the other instances within %u ms: one died or hangs",
			    g.inst.index, g.inst.count, g.timeout_ms);
			return -ETIMEDOUT;
		}
		if (t - start < POLL_YIELD_NS)
			sched_yield();
		else
			nanosleep(&nap, NULL);
	}
}

/* Whether a collective may start: not after one failed. */
static int usable(char *msg, size_t msglen)
{
	if (!g.broken)
		return 0;
	say(msg, msglen,
	    "instance %u of %u: an earlier collective failed; the instances are out of step",
	    g.inst.index, g.inst.count);
	return -EPIPE;
}

/* Complete the collective @req that MPI started with @rc, within the
 * timeout; after a failure every later collective fails at once. */
static int finish(int rc, MPI_Request *req, const char *what, char *msg,
		  size_t msglen)
{
	int err;

	if (rc != MPI_SUCCESS) {
		mpi_error(msg, msglen, what, rc);
		g.broken = true;
		return -EPIPE;
	}
	err = wait_bounded(req, now_ns() + (uint64_t)g.timeout_ms * 1000000u,
			   what, msg, msglen);
	if (err)
		g.broken = true;
	return err;
}

/* @bytes[0..count) as MPI's int counts and displacements (parts back to
 * back), or -E2BIG naming the part that one MPI call cannot carry. */
static int to_counts(const size_t *bytes, int *counts, int *displs,
		     char *msg, size_t msglen)
{
	size_t at = 0;
	uint32_t k;

	for (k = 0; k < g.inst.count; k++) {
		if (bytes[k] > INT_MAX || at > INT_MAX) {
			say(msg, msglen, "instance %u: %zu bytes at offset %zu for instance %u is more than one MPI call carries",
			    g.inst.index, bytes[k], at, k);
			return -E2BIG;
		}
		counts[k] = (int)bytes[k];
		displs[k] = (int)at;
		at += bytes[k];
	}
	return 0;
}

/*
 * The counts and displacements of a v collective, as MPI's ints: of
 * @first at [0] and [count], of @second (or NULL) at [2 * count] and
 * [3 * count], in arrays kept across calls; NULL with *@err and a message
 * when the call may not start.
 */
static int *v_counts(const size_t *first, const size_t *second, int *err,
		     char *msg, size_t msglen)
{
	uint32_t n = g.inst.count;
	int *p;

	*err = usable(msg, msglen);
	if (*err)
		return NULL;
	if (g.counts_of < n) {
		p = realloc(g.counts, 4 * sizeof(int) * n);
		if (!p) {
			say(msg, msglen, "instance %u: no memory for %u counts",
			    g.inst.index, 4 * n);
			*err = -ENOMEM;
			g.broken = true;
			return NULL;
		}
		g.counts = p;
		g.counts_of = n;
	}
	*err = to_counts(first, g.counts, g.counts + n, msg, msglen);
	if (!*err && second)
		*err = to_counts(second, g.counts + 2 * n, g.counts + 3 * n,
				 msg, msglen);
	/*
	 * A refusal is for good, as a failed collective is: the others
	 * start this collective without this instance, and its next one
	 * would pair with theirs.
	 */
	if (*err)
		g.broken = true;
	return *err ? NULL : g.counts;
}

/* MPI_Ialltoallv of bytes, polled: the firmware's reduce-scatter step
 * (firmware/allreduce.c), straight between its buffers. */
static int mpi_alltoallv(void *ctx, const void *send, const size_t *sendbytes,
			 void *recv, const size_t *recvbytes, char *msg,
			 size_t msglen)
{
	uint32_t n = g.inst.count;
	MPI_Request req;
	int *a, err;

	(void)ctx;
	a = v_counts(sendbytes, recvbytes, &err, msg, msglen);
	if (!a)
		return err;
	return finish(MPI_Ialltoallv(send, a, a + n, MPI_BYTE, recv, a + 2 * n,
				     a + 3 * n, MPI_BYTE, g.comm, &req),
		      &req, "all-to-all", msg, msglen);
}

/* MPI_Iallgatherv in place, polled: the all-reduce's results. */
static int mpi_allgatherv(void *ctx, void *buf, const size_t *bytes,
			  char *msg, size_t msglen)
{
	MPI_Request req;
	int *a, err;

	(void)ctx;
	a = v_counts(bytes, NULL, &err, msg, msglen);
	if (!a)
		return err;
	return finish(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf,
				      a, a + g.inst.count, MPI_BYTE, g.comm,
				      &req),
		      &req, "all-gather", msg, msglen);
}

static int mpi_allgather(void *ctx, void *buf, size_t bytes, char *msg,
			 size_t msglen)
{
	size_t total = bytes * g.inst.count;
	MPI_Request req;
	void *p;
	int err;

	(void)ctx;
	err = usable(msg, msglen);
	if (err)
		return err;
	if (bytes > INT_MAX) {
		say(msg, msglen, "instance %u: %zu bytes per instance is more than one MPI call carries",
		    g.inst.index, bytes);
		return -E2BIG;
	}
	if (g.stage_size < total) {
		p = realloc(g.stage, total);
		if (!p) {
			say(msg, msglen, "instance %u: no memory for %zu bytes",
			    g.inst.index, total);
			return -ENOMEM;
		}
		g.stage = p;
		g.stage_size = total;
	}
	memcpy((uint8_t *)g.stage + g.inst.index * bytes,
	       (uint8_t *)buf + g.inst.index * bytes, bytes);
	err = finish(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
				    g.stage, (int)bytes, MPI_BYTE, g.comm,
				    &req),
		     &req, "all-gather", msg, msglen);
	if (err) {
		/* MPI may still write into the staging buffer: let it go. */
		g.stage = NULL;
		g.stage_size = 0;
		return err;
	}
	memcpy(buf, g.stage, total);
	return 0;
}

static int timeout_from_env(uint32_t *ms, char *msg, size_t len)
{
	const char *s = getenv("IPU_INSTANCE_TIMEOUT_MS");
	unsigned long v;
	char *end;

	*ms = IPU_MPI_DEFAULT_TIMEOUT_MS;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !v || v > UINT32_MAX) {
		say(msg, len, "IPU_INSTANCE_TIMEOUT_MS=\"%s\" is not a number of milliseconds (1 to %u)",
		    s, UINT32_MAX);
		return -EINVAL;
	}
	*ms = (uint32_t)v;
	return 0;
}

int ipu_mpi_instances_init(int *argc, char ***argv, uint32_t timeout_ms,
			   char *msg, size_t msglen)
{
	int inited = 0, provided = 0, rank = 0, size = 1, rc, err;

	say(msg, msglen, "%s", "");
	if (g.ready) {
		say(msg, msglen, "the instances are already initialised");
		return -EALREADY;
	}
	if (timeout_ms) {
		g.timeout_ms = timeout_ms;
	} else {
		err = timeout_from_env(&g.timeout_ms, msg, msglen);
		if (err)
			return err;
	}
	MPI_Initialized(&inited);
	if (!inited) {
		rc = MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED,
				     &provided);
		if (rc != MPI_SUCCESS) {
			mpi_error(msg, msglen, "MPI_Init_thread", rc);
			return -EPROTO;
		}
		g.we_initialised = true;
	} else {
		MPI_Query_thread(&provided);
	}
	if (provided < MPI_THREAD_SERIALIZED) {
		say(msg, msglen, "MPI gives thread level %d; the model's engine thread needs MPI_THREAD_SERIALIZED",
		    provided);
		err = -EPROTO;
		goto err_fini;
	}
	rc = MPI_Comm_dup(MPI_COMM_WORLD, &g.comm);
	if (rc != MPI_SUCCESS) {
		mpi_error(msg, msglen, "MPI_Comm_dup", rc);
		err = -EPROTO;
		goto err_fini;
	}
	MPI_Comm_set_errhandler(g.comm, MPI_ERRORS_RETURN);
	MPI_Comm_rank(g.comm, &rank);
	MPI_Comm_size(g.comm, &size);
	g.inst.index = (uint32_t)rank;
	g.inst.count = (uint32_t)size;
	g.inst.allgather = mpi_allgather;
	g.inst.alltoallv = mpi_alltoallv;
	g.inst.allgatherv = mpi_allgatherv;
	g.inst.ctx = NULL;
	g.broken = false;
	g.ready = true;
	ipu_model_set_instances(&g.inst);
	return 0;

err_fini:
	if (g.we_initialised)
		MPI_Finalize();
	g.we_initialised = false;
	return err;
}

void ipu_mpi_instances_fini(void)
{
	if (!g.ready)
		return;
	ipu_model_set_instances(NULL);
	g.ready = false;
	if (g.broken)
		return;
	MPI_Comm_free(&g.comm);
	free(g.stage);
	g.stage = NULL;
	g.stage_size = 0;
	free(g.counts);
	g.counts = NULL;
	g.counts_of = 0;
	if (g.we_initialised)
		MPI_Finalize();
	g.we_initialised = false;
	g.inst.index = 0;
	g.inst.count = 1;
}

uint32_t ipu_mpi_instance_index(void)
{
	return g.inst.index;
}

uint32_t ipu_mpi_instance_count(void)
{
	return g.inst.count;
}
