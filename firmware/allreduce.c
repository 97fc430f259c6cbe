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
 */
#include <errno.h>

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

/* ALL_REDUCE: out, x; mode, group_size, group_stride. */
int fw_op_all_reduce(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	const struct fw_run *run = rep->run;
	struct fw_tensor t[2], *out = &t[0], *x = &t[1], xj;
	int64_t p[3], mode, size, stride;
	uint32_t group, j;
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
	err = __ipu_exe_check_grouping(run->nrep, (uint64_t)size,
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
		return fw_move(rep, out, x);

	cdt = isf ? IPU_DTYPE_FLOAT64 : IPU_DTYPE_INT64;
	acc = fw_scratch(rep, 0, x->nelems * sizeof(double));
	/* Meet even without memory, or the others would wait forever; the
	 * failure then aborts the barrier for them. */
	err = fw_barrier_wait(run->barrier);
	if (err)
		return fw_fail(rep, err, "another replica failed");
	if (!acc)
		return fw_fail(rep, -ENOMEM, "no memory for the accumulators");

	group = ipu_exe_replica_group((uint32_t)size, (uint32_t)stride,
				      rep->index);
	for (i = 0; i < (uint64_t)size; i++) {
		j = ipu_exe_group_replica((uint32_t)size, (uint32_t)stride,
					  group, (uint32_t)i);
		fw_tensor_at(run->exe, run->arenas[j],
			     run->exe->operands[in->first_operand + 1], &xj);
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

	err = fw_barrier_wait(run->barrier);
	if (err)
		return fw_fail(rep, err, "another replica failed");
	return ipu_dtype_convert(out->p, out->dtype, acc, cdt, out->nelems);
}
