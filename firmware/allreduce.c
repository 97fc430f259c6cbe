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
 * process. Then local replica 0 gathers every replica's x, raw, in replica
 * order, through the instances' allgather, and each replica sums its
 * group's members from that copy, in the same order and precision as
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
	if (!(phases & FW_AR_SUM)) /* what this replica's FW_AR_SUM made */
		return ipu_dtype_convert(out->p, out->dtype, rep->scratch[0],
					 cdt, out->nelems);
	acc = fw_scratch(rep, 0, x->nelems * sizeof(double));
	xop = run->exe->operands[in->first_operand + 1];
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
