// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * allreduce.c - ALL_REDUCE across replicas, and the barrier it meets at.
 *
 * Replicas are threads sharing memory, so an all-reduce is: wait until every
 * replica has arrived (its x is final), read the x of each member of this
 * replica's group straight from their arenas, wait until everyone has read
 * (out may be x, and others are reading ours), then write out.
 *
 * Groups follow PopART's ReplicaGrouping (exe.h's ipu_exe_replica_group()):
 * replicas come in blocks of group_size * group_stride; replica r's group
 * is the replicas of r's block congruent to r modulo group_stride. Every
 * member sums the same members
 * in increasing replica index, in double (floats) or int64 (integers), and
 * rounds once, so all members get identical bits.
 *
 * Across instances (docs/instances.md) the members' x are not all in this
 * process. With a transport that has alltoallv and allgatherv (MPI's),
 * each instance reduces a share of the elements, from every replica's x
 * of that share, and the shares' results are gathered (reduce_scattered()).
 * Else local replica 0 gathers every replica's x, raw, in replica order,
 * through the instances' allgather, and each replica sums its group's
 * members from that copy. Either way in the same order and precision as
 * above: the bits do not depend on how the replicas are split, and the
 * transport's own reduction order never enters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_internal.h"

int fw_barrier_init(struct fw_barrier *b)
{
	int err = pthread_mutex_init(&b->lock, NULL);

	if (err)
		return -err;
	err = pthread_cond_init(&b->cond, NULL);
	if (err) {
		pthread_mutex_destroy(&b->lock);
		return -err;
	}
	b->count = 0;
	atomic_init(&b->waiting, 0);
	atomic_init(&b->generation, 0);
	atomic_init(&b->aborted, false);
	return 0;
}

void fw_barrier_destroy(struct fw_barrier *b)
{
	pthread_cond_destroy(&b->cond);
	pthread_mutex_destroy(&b->lock);
}

void fw_barrier_reset(struct fw_barrier *b, unsigned int count)
{
	b->count = count;
	atomic_store(&b->waiting, 0);
	atomic_store(&b->aborted, false);
}

int fw_barrier_wait(struct fw_barrier *b)
{
	uint64_t gen = atomic_load(&b->generation);

	if (atomic_load(&b->aborted))
		return -ECANCELED;
	if (atomic_fetch_add(&b->waiting, 1) + 1 == b->count) {
		/* The last one: reset the count before releasing anyone, so
		 * that a replica racing ahead to the next barrier counts from
		 * zero. */
		atomic_store(&b->waiting, 0);
		pthread_mutex_lock(&b->lock);
		atomic_fetch_add(&b->generation, 1);
		pthread_cond_broadcast(&b->cond);
		pthread_mutex_unlock(&b->lock);
		return 0;
	}
	if (!fw_spin_until(atomic_load(&b->generation) != gen ||
			   atomic_load(&b->aborted))) {
		pthread_mutex_lock(&b->lock);
		while (atomic_load(&b->generation) == gen &&
		       !atomic_load(&b->aborted))
			pthread_cond_wait(&b->cond, &b->lock);
		pthread_mutex_unlock(&b->lock);
	}
	return atomic_load(&b->generation) != gen ? 0 : -ECANCELED;
}

void fw_barrier_abort(struct fw_barrier *b)
{
	pthread_mutex_lock(&b->lock);
	atomic_store(&b->aborted, true);
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

/* Add @n elements of type @dt at @src to the accumulators @acc (double or
 * int64 as @cdt says), a chunk at a time. */
static void accumulate(void *acc, int cdt, const struct fw_tensor *src,
		       uint64_t n)
{
	union {
		double f[FW_CHUNK];
		int64_t i[FW_CHUNK];
	} tmp;
	uint64_t done, i;
	int64_t vs;
	size_t c;

	for (done = 0; done < n; done += c) {
		const void *v;

		c = n - done < FW_CHUNK ? n - done : FW_CHUNK;
		v = fw_fetch(src, (int64_t)done, 1, c, cdt, &tmp, &vs);
		for (i = 0; i < c; i++) {
			if (cdt == IPU_DTYPE_FLOAT64)
				((double *)acc)[done + i] +=
					((const double *)v)[i * vs];
			else
				((int64_t *)acc)[done + i] = (int64_t)
					((uint64_t)((int64_t *)acc)[done + i] +
					 (uint64_t)((const int64_t *)v)[i * vs]);
		}
	}
}

/*
 * Every replica's @x (this replica's operand; all are alike) into
 * run->gather, @rf of them in replica order: local replica 0 copies the
 * local ones and calls the allgather, between two barriers. Returns the
 * gather's result on every replica.
 */
static int gather_instances(struct fw_replica *rep, const struct fw_tensor *x,
			    uint32_t operand)
{
	const struct fw_run *run = rep->run;
	struct fw_gather *g = run->gather;
	size_t bytes = x->nelems * x->esz, part = bytes * run->nrep;
	struct fw_tensor xr;
	uint32_t r;
	void *p;
	int err;

	err = fw_barrier_wait(run->barrier);
	if (err)
		return fw_fail(rep, err, "another replica failed");
	if (rep->index == 0) {
		g->rc = 0;
		if (g->size < bytes * run->rf) {
			p = realloc(g->buf, bytes * run->rf);
			if (p) {
				g->buf = p;
				g->size = bytes * run->rf;
			}
		}
		if (g->size < bytes * run->rf) {
			/* Every instance must still call the allgather, or the
			 * others would wait for it until their timeout; this
			 * one then fails at once, they with a timeout. */
			g->rc = -ENOMEM;
			snprintf(g->msg, sizeof(g->msg),
				 "no memory to gather %zu bytes from %u replicas",
				 bytes * run->rf, run->rf);
		} else {
			for (r = 0; r < run->nrep; r++) {
				fw_tensor_at(run->exe, run->arenas[r], operand,
					     &xr);
				memcpy((uint8_t *)g->buf +
					       run->inst->index * part +
					       r * bytes,
				       xr.p, bytes);
			}
			g->msg[0] = '\0';
			g->rc = run->inst->allgather(
				run->inst->ctx, g->buf, part,
				g->msg, sizeof(g->msg));
		}
	}
	err = fw_barrier_wait(run->barrier);
	if (err)
		return fw_fail(rep, err, "another replica failed");
	if (g->rc)
		return fw_fail(rep, g->rc,
			       "all-reduce across instances: %s",
			       g->msg[0] ? g->msg :
						    strerror(-g->rc));
	return 0;
}

/* Elements [*lo, *lo + *cnt) of @n are instance @k's share of @count. */
static void share(uint64_t n, uint32_t count, uint32_t k, uint64_t *lo,
		  uint64_t *cnt)
{
	uint64_t q = n / count, r = n % count;

	*lo = q * k + (k < r ? k : r);
	*cnt = q + (k < r);
}

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

#define FW_FOLD 512

/* The float32 kernels of fold(), vectorised. */
FW_VECTORISE
static void f32_first(double *restrict a, const float *restrict s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		a[k] = (double)s[k];
}

FW_VECTORISE
static void f32_add(double *restrict a, const float *restrict s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		a[k] += (double)s[k];
}

FW_VECTORISE
static void f32_out(float *restrict d, const double *restrict a, size_t n)
{
	for (size_t k = 0; k < n; k++)
		d[k] = (float)a[k];
}

/* Groups of 2 and 4 in one pass, the sum held in a register: 2.5x faster
 * than through the accumulators. @scale is 1 / the group's size for MEAN,
 * else 1. A multiply, not the division by the size that the one-host path
 * does: both sizes are powers of two, so x * (1 / size) is x / size
 * exactly (the same real number, rounded once), and a vector division
 * made the fold of a 1 MiB share take 100 us instead of 65. */
FW_VECTORISE
static void f32_fold2(float *restrict d, const float *restrict a,
		      const float *restrict b, size_t n, double scale)
{
	for (size_t k = 0; k < n; k++)
		d[k] = (float)(((double)a[k] + (double)b[k]) * scale);
}

FW_VECTORISE
static void f32_fold4(float *restrict d, const float *const restrict *m,
		      size_t n, double scale)
{
	const float *restrict a = m[0], *restrict b = m[1];
	const float *restrict c = m[2], *restrict e = m[3];

	for (size_t k = 0; k < n; k++)
		d[k] = (float)(((((double)a[k] + (double)b[k]) +
				 (double)c[k]) + (double)e[k]) * scale);
}

/*
 * Group @group's reduction of @c elements: member i's operand (type @dt)
 * at @src[j] for its replica j, summed in increasing
 * replica index in double (floats) or int64 (integers), divided for
 * MEAN, rounded once into @res (type @odt): the arithmetic of
 * all_reduce()'s one-host path, element for element. float32, the common
 * case, has loops of its own that the compiler vectorises.
 */
static void fold(void *res, int odt, const uint8_t *const *src, int dt,
		 uint64_t c, uint32_t size, uint32_t stride,
		 uint32_t group, bool mean)
{
	const bool isf = ipu_dtype_is_float(odt);
	const int cdt = isf ? IPU_DTYPE_FLOAT64 : IPU_DTYPE_INT64;
	const bool f32 = isf && dt == IPU_DTYPE_FLOAT32;
	size_t esz = ipu_dtype_size(dt), osz = ipu_dtype_size(odt);
	union {
		double f[FW_FOLD];
		int64_t i[FW_FOLD];
	} acc, tmp;
	uint64_t done, b, k;
	uint32_t i;

	if (f32 && odt == IPU_DTYPE_FLOAT32 && (size == 2 || size == 4)) {
		const float *m[4];

		for (i = 0; i < size; i++)
			m[i] = (const float *)src[
				ipu_exe_group_replica(size, stride, group, i)];
		if (size == 2)
			f32_fold2(res, m[0], m[1], c, mean ? 0.5 : 1.0);
		else
			f32_fold4(res, m, c, mean ? 0.25 : 1.0);
		return;
	}
	for (done = 0; done < c; done += b) {
		b = c - done < FW_FOLD ? c - done : FW_FOLD;
		for (i = 0; i < size; i++) {
			const uint8_t *m = src[ipu_exe_group_replica(
				size, stride, group, i)] + done * esz;

			if (f32 && !i) {
				f32_first(acc.f, (const float *)m, b);
			} else if (f32) {
				f32_add(acc.f, (const float *)m, b);
			} else if (!i) {
				ipu_dtype_convert(&acc, cdt, m, dt, b);
			} else {
				ipu_dtype_convert(&tmp, cdt, m, dt, b);
				for (k = 0; k < b; k++) {
					if (isf)
						acc.f[k] += tmp.f[k];
					else
						acc.i[k] = (int64_t)
							((uint64_t)acc.i[k] +
							 (uint64_t)tmp.i[k]);
				}
			}
		}
		for (k = 0; mean && k < b; k++) {
			if (isf)
				acc.f[k] /= (double)size;
			else
				acc.i[k] /= size;
		}
		if (odt == IPU_DTYPE_FLOAT32) {
			f32_out((float *)res + done, acc.f, b);
		} else {
			ipu_dtype_convert((uint8_t *)res + done * osz, odt,
					  &acc, cdt, b);
		}
	}
}

/*
 * Buffers given up after a failed collective, which the transport may
 * still write into (MPI cannot cancel one): never freed, but held here,
 * so that a leak checker sees them held rather than lost.
 */
static struct {
	pthread_mutex_t lock;
	void **p;
	size_t n;
} lost = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void give_up(void *buf)
{
	void **p;

	pthread_mutex_lock(&lost.lock);
	p = realloc(lost.p, (lost.n + 1) * sizeof(*p));
	if (p) {	/* else it is lost for good: no worse */
		lost.p = p;
		lost.p[lost.n++] = buf;
	}
	pthread_mutex_unlock(&lost.lock);
}

/*
 * Where reduce_scattered() keeps things in run->gather->buf: the counts
 * (3 arrays of count), the operand of each replica j for the owned share
 * (rf pointers: into the arena for the local replicas, else into what
 * was received), what was received from the other instances
 * ([replica][share], in replica order), the results ([owner][group]
 * [share], @out's type) and the local replicas' other shares packed per
 * owner (what is sent).
 */
struct rs_layout {
	size_t src, recv, res, pack, total;
};

static void rs_layout(const struct fw_run *run, uint64_t n, uint64_t mycnt,
		      size_t esz, size_t osz, uint32_t ngroups,
		      struct rs_layout *l)
{
	l->src = align8(3 * run->inst->count * sizeof(size_t));
	l->recv = l->src + align8(run->rf * sizeof(void *));
	l->res = l->recv + align8((run->rf - run->nrep) * mycnt * esz);
	l->pack = l->res + align8(ngroups * n * osz);
	l->total = l->pack + run->nrep * (n - mycnt) * esz;
}

/*
 * Local replica 0's part of reduce_scattered(): instance k owns share k
 * of the elements; every instance sends each other owner that share of
 * its replicas' x (alltoallv), the owner reduces it for every group, its
 * own replicas' share read in place from their arenas (neither copied
 * nor sent: at 2 instances that is half the packing and half the bytes
 * through the transport), and an allgatherv hands every instance every
 * owner's results.
 */
static void scatter_reduce_gather(const struct fw_run *run,
				  const struct fw_tensor *out,
				  const struct fw_tensor *x, uint32_t xop,
				  uint32_t size, uint32_t stride, bool mean)
{
	const struct ipufw_instances *inst = run->inst;
	struct fw_gather *g = run->gather;
	uint32_t count = inst->count, me = inst->index, ngroups = run->rf / size;
	uint64_t n = x->nelems, lo, cnt, mylo, mycnt, at;
	size_t esz = x->esz, osz = out->esz, *sendb, *recvb, *resb;
	const uint8_t **src;
	struct rs_layout l;
	struct fw_tensor xr;
	uint8_t *buf, *res;
	uint32_t k, r, j, grp;

	share(n, count, me, &mylo, &mycnt);
	rs_layout(run, n, mycnt, esz, osz, ngroups, &l);
	if (g->size < l.total) {
		void *p = realloc(g->buf, l.total);

		if (!p) {
			/* The others then wait for this one until their
			 * timeout: what the allgather path does too. */
			g->rc = -ENOMEM;
			snprintf(g->msg, sizeof(g->msg),
				 "no memory to reduce %zu bytes from %u replicas",
				 n * esz, run->rf);
			return;
		}
		g->buf = p;
		g->size = l.total;
	}
	buf = g->buf;
	sendb = (size_t *)buf;
	recvb = sendb + count;
	resb = recvb + count;
	src = (const uint8_t **)(buf + l.src);
	/* Every instance runs nrep replicas: replica j is instance
	 * j / nrep's; the parts received skip this instance's own. */
	for (j = 0; j < run->rf; j++) {
		k = j / run->nrep;
		if (k == me) {
			fw_tensor_at(run->exe, run->arenas[j - run->base], xop,
				     &xr);
			src[j] = (const uint8_t *)xr.p + mylo * esz;
		} else {
			src[j] = buf + l.recv +
				 (j - (k > me ? run->nrep : 0)) * mycnt * esz;
		}
	}
	for (k = 0, at = 0; k < count; k++) {
		share(n, count, k, &lo, &cnt);
		resb[k] = ngroups * cnt * osz;
		if (k == me) {
			sendb[k] = recvb[k] = 0;
			continue;
		}
		sendb[k] = run->nrep * cnt * esz;
		recvb[k] = run->nrep * mycnt * esz;
		for (r = 0; r < run->nrep; r++, at += cnt) {
			fw_tensor_at(run->exe, run->arenas[r], xop, &xr);
			memcpy(buf + l.pack + at * esz,
			       (const uint8_t *)xr.p + lo * esz, cnt * esz);
		}
	}
	/*
	 * Sent from the packed copy even with one local replica, never from
	 * the arena: after a failed call the transport may still read what
	 * it was sending (MPI cannot cancel a collective), and the arena is
	 * the caller's to free; the packed copy is given up with @buf.
	 */
	g->msg[0] = '\0';
	g->rc = inst->alltoallv(inst->ctx, buf + l.pack, sendb, buf + l.recv,
				recvb, g->msg, sizeof(g->msg));
	if (!g->rc) {
		res = buf + l.res + ngroups * mylo * osz;
		for (grp = 0; grp < ngroups; grp++)
			fold(res + grp * mycnt * osz, out->dtype, src,
			     x->dtype, mycnt, size, stride, grp, mean);
		g->rc = inst->allgatherv(inst->ctx, buf + l.res, resb,
					 g->msg, sizeof(g->msg));
	}
	if (g->rc) {
		/* The transport may still write into the buffer: give it up
		 * (the instances are out of step for good anyway). */
		give_up(g->buf);
		g->buf = NULL;
		g->size = 0;
	}
}

/*
 * ALL_REDUCE over instances whose transport has alltoallv and allgatherv:
 * each instance moves 2 (count - 1) / count of the operand, as a ring
 * all-reduce does, instead of every replica's operand, and reduces only
 * its share; the arithmetic is all_reduce()'s, so the bits are still the
 * one-host bits (MPI_Allreduce's would depend on its algorithm and on the
 * split). Between two barriers, as gather_instances().
 */
static int reduce_scattered(struct fw_replica *rep, struct fw_tensor *out,
			    const struct fw_tensor *x, uint32_t xop,
			    uint32_t size, uint32_t stride, bool mean)
{
	const struct fw_run *run = rep->run;
	struct fw_gather *g = run->gather;
	uint32_t count = run->inst->count, ngroups = run->rf / size, k, grp;
	uint64_t n = x->nelems, lo, cnt, mylo, mycnt;
	size_t osz = out->esz;
	const uint8_t *res;
	struct rs_layout l;
	int err;

	err = fw_barrier_wait(run->barrier);
	if (err)
		return fw_fail(rep, err, "another replica failed");
	if (rep->index == 0)
		scatter_reduce_gather(run, out, x, xop, size, stride, mean);
	err = fw_barrier_wait(run->barrier);
	if (err)
		return fw_fail(rep, err, "another replica failed");
	if (g->rc)
		return fw_fail(rep, g->rc, "all-reduce across instances: %s",
			       g->msg[0] ? g->msg : strerror(-g->rc));
	share(n, count, run->inst->index, &mylo, &mycnt);
	rs_layout(run, n, mycnt, x->esz, osz, ngroups, &l);
	res = (const uint8_t *)g->buf + l.res;
	grp = ipu_exe_replica_group(size, stride, run->base + rep->index);
	for (k = 0; k < count; k++) {
		share(n, count, k, &lo, &cnt);
		memcpy((uint8_t *)out->p + lo * osz,
		       res + (ngroups * lo + grp * cnt) * osz, cnt * osz);
	}
	/* The next all-reduce refills the buffer only behind its first
	 * barrier, which this replica meets after its copy. */
	return 0;
}

/*
 * ALL_REDUCE: out, x; mode, group_size, group_stride. @phases: FW_AR_SUM
 * (read the members' x into the accumulators) and FW_AR_STORE (write out
 * from them); with both, as a replica in a thread of its own, between the
 * barriers that order them against the other replicas' phases.
 */
static int all_reduce(struct fw_replica *rep, const struct ipu_exe_instr *in,
		      unsigned int phases)
{
	const bool both = phases == (FW_AR_SUM | FW_AR_STORE);
	const struct fw_run *run = rep->run;
	struct fw_tensor t[2], *out = &t[0], *x = &t[1], xj;
	int64_t p[3], mode, size, stride;
	uint32_t group, j, xop;
	uint64_t i;
	bool isf;
	void *acc;
	int cdt, err;

	err = fw_args(rep, in, 2, t, 3, p);
	if (err)
		return err;
	mode = p[0];
	size = p[1];
	stride = p[2];
	if (mode != IPU_EXE_REDUCE_SUM && mode != IPU_EXE_REDUCE_MEAN)
		return fw_fail(rep, -EINVAL, "mode %lld", (long long)mode);
	/* Negative values read as huge ones, which no replica count fits. */
	err = __ipu_exe_check_grouping(run->rf, (uint64_t)size,
				       (uint64_t)stride, rep->msg,
				       sizeof(rep->msg));
	if (err)
		return err;
	if (out->nelems != x->nelems)
		return fw_fail(rep, -EINVAL, "%llu elements into %llu",
			       (unsigned long long)x->nelems,
			       (unsigned long long)out->nelems);
	if (out->dtype == IPU_DTYPE_BOOL)
		return fw_fail(rep, -EINVAL, "not defined on bool tensors");
	isf = ipu_dtype_is_float(out->dtype);
	/* Every replica takes the same path here: none waits for nothing. */
	if (size == 1)
		return phases & FW_AR_STORE ? fw_move(rep, out, x) : 0;

	cdt = isf ? IPU_DTYPE_FLOAT64 : IPU_DTYPE_INT64;
	xop = run->exe->operands[in->first_operand + 1];
	if (run->inst && both && run->inst->alltoallv &&
	    run->inst->allgatherv)
		return reduce_scattered(rep, out, x, xop, (uint32_t)size,
					(uint32_t)stride,
					mode == IPU_EXE_REDUCE_MEAN);
	if (!(phases & FW_AR_SUM)) /* what this replica's FW_AR_SUM made */
		return ipu_dtype_convert(out->p, out->dtype, rep->scratch[0],
					 cdt, out->nelems);
	acc = fw_scratch(rep, 0, x->nelems * sizeof(double));
	if (run->inst) {
		err = gather_instances(rep, x, xop);
		if (err)
			return err;
	} else if (both) {
		/* Meet even without memory, or the others would wait
		 * forever; the failure then aborts the barrier for them. */
		err = fw_barrier_wait(run->barrier);
		if (err)
			return fw_fail(rep, err, "another replica failed");
	}
	if (!acc)
		return fw_fail(rep, -ENOMEM, "no memory for the accumulators");

	group = ipu_exe_replica_group((uint32_t)size, (uint32_t)stride,
				      run->base + rep->index);
	for (i = 0; i < (uint64_t)size; i++) {
		j = ipu_exe_group_replica((uint32_t)size, (uint32_t)stride,
					  group, (uint32_t)i);
		if (run->inst) {
			xj = *x;
			xj.p = (uint8_t *)run->gather->buf + j * x->nelems * x->esz;
		} else {
			fw_tensor_at(run->exe, run->arenas[j], xop, &xj);
		}
		if (i)
			accumulate(acc, cdt, &xj, x->nelems);
		else
			ipu_dtype_convert(acc, cdt, xj.p, xj.dtype, x->nelems);
	}
	if (mode == IPU_EXE_REDUCE_MEAN) {
		for (i = 0; i < x->nelems; i++) {
			if (isf)
				((double *)acc)[i] /= (double)size;
			else
				((int64_t *)acc)[i] /= size;
		}
	}

	if (!both)
		return 0;
	/* Others read our x from our arena; from the gathered copy, once
	 * it is complete, they need no wait (the next gather is behind the
	 * next all-reduce's first barrier). */
	if (!run->inst) {
		err = fw_barrier_wait(run->barrier);
		if (err)
			return fw_fail(rep, err, "another replica failed");
	}
	return ipu_dtype_convert(out->p, out->dtype, acc, cdt, out->nelems);
}

int fw_op_all_reduce(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	return all_reduce(rep, in, FW_AR_SUM | FW_AR_STORE);
}

int fw_all_reduce_phase(struct fw_replica *rep,
			const struct ipu_exe_instr *in, unsigned int phase)
{
	return all_reduce(rep, in, phase);
}
