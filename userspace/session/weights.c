// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * weights.c - variables and constants between the host copies
 * (hostcopy.c) and the replicas' arenas (S17-S21).
 *
 * Sync state. s->in_sync says the host copies hold what the device holds.
 * A run clears it (S13), and so does any device error (batch.c): what the
 * device holds is then unknown; fetching sets it, and so does
 * weights_from_host, after which the device holds the host copies. A
 * fetch while in sync is skipped, as PopART's copyDeviceWeightsToHost()
 * skips it.
 *
 * Groupings (S20). The host keeps one value per group, in group order;
 * weights_from_host gives every replica its group's value, and a fetch
 * reads the first replica of each group (ipu_exe_group_replica(.., 0)).
 * Variables retrieved from all replicas (group_size > 1) are also read
 * from every replica, into a per-replica copy (sess_tensor.replicas).
 * PopXL's non-constant-stride groupings (made from assignments) carry
 * each replica's group in the executable (ipu_exe_tensor.group_assignment);
 * host value g goes to, and comes from, the replicas assigned g, which is
 * what PopXL's to-device / to-host maps do. all_replicas values stay in
 * replica order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"

/* The group whose value replica @r holds. */
static uint32_t group_of(const struct sess_tensor *st, uint32_t r)
{
	const struct ipu_exe_tensor *t = st->t;

	if (t->kind != IPU_EXE_TENSOR_VARIABLE)
		return 0;
	return ipu_exe_tensor_group(t, r);
}

/*
 * Every tensor's values to every replica: tensor i's from @src[i] (laid
 * out as its host copy) where @src and @src[i] are not NULL, else from
 * its host copy. With @images, every replica's executable image first.
 */
static int from_host(struct ipu_session *s, uint8_t *const *src, bool images)
{
	const struct sess_tensor *st;
	struct sess_batch b;
	const uint8_t *from;
	uint32_t r;
	size_t i;
	int err;

	ipu_sess_batch_init(&b, s, "weights_from_host");
	for (r = 0; images && r < s->replicas; r++)
		ipu_sess_batch_xfer(&b, s->reps[r].exe_bo, 0, s->image,
				    s->image_size, IPU_XFER_DIR_TO_DEVICE, 0);
	for (r = 0; r < s->replicas; r++) {
		for (i = 0; i < s->n_tensors; i++) {
			st = &s->tensors[i];
			from = src && src[i] ? src[i] : st->host;
			ipu_sess_batch_xfer(&b, s->reps[r].arena_bo, st->t->offset,
					    (uint8_t *)(uintptr_t)from +
						    group_of(st, s->base + r) *
							    st->t->nbytes,
					    st->t->nbytes, IPU_XFER_DIR_TO_DEVICE,
					    0);
		}
	}
	err = ipu_sess_batch_flush(&b);
	if (err)
		return err;
	/* Every replica of a group now holds the group's value. */
	for (i = 0; i < s->n_tensors; i++)
		s->tensors[i].replicas_valid = false;
	s->in_sync = true;
	return 0;
}

int ipu_sess_upload(struct ipu_session *s)
{
	return from_host(s, NULL, true);
}

bool ipu_sess_fetched(const struct sess_tensor *st)
{
	return st->t->kind == IPU_EXE_TENSOR_VARIABLE && !st->readonly;
}

uint32_t ipu_sess_fetch_slots(const struct ipu_session *s,
			      const struct sess_tensor *st)
{
	return st->all_replicas ? s->rf : st->num_groups;
}

uint32_t ipu_sess_fetch_source(const struct ipu_session *s,
			       const struct sess_tensor *st, uint32_t k)
{
	return st->all_replicas ? k :
				  ipu_exe_tensor_group_replica(st->t, s->rf, k, 0);
}

/* Bytes a fetch reads of @st: a value per group, or per replica. */
static size_t fetch_bytes(const struct ipu_session *s,
			  const struct sess_tensor *st)
{
	return (size_t)ipu_sess_fetch_slots(s, st) * st->t->nbytes;
}

/* The staged values become the host copies. */
static void commit(struct ipu_session *s, const uint8_t *stage)
{
	const struct ipu_exe_tensor *t;
	struct sess_tensor *st;
	uint32_t g, first;
	size_t i;

	for (i = 0; i < s->n_tensors; i++) {
		st = &s->tensors[i];
		t = st->t;
		if (!ipu_sess_fetched(st))
			continue;
		if (st->all_replicas) {
			memcpy(st->replicas, stage, fetch_bytes(s, st));
			for (g = 0; g < st->num_groups; g++) {
				first = ipu_exe_tensor_group_replica(
					t, s->rf, g, 0);
				memcpy(st->host + g * t->nbytes,
				       st->replicas + first * t->nbytes,
				       t->nbytes);
			}
			st->replicas_valid = true;
		} else {
			memcpy(st->host, stage, fetch_bytes(s, st));
		}
		stage += fetch_bytes(s, st);
	}
}

/* One process holds every replica: each value read from its replica. */
static int fetch_local(struct ipu_session *s, uint8_t *stage)
{
	const struct sess_tensor *st;
	struct sess_batch b;
	size_t at = 0, i;
	uint32_t k;

	ipu_sess_batch_init(&b, s, "weights_to_host");
	for (i = 0; i < s->n_tensors; i++) {
		st = &s->tensors[i];
		if (!ipu_sess_fetched(st))
			continue;
		for (k = 0; k < ipu_sess_fetch_slots(s, st); k++) {
			ipu_sess_batch_xfer(&b,
					    s->reps[ipu_sess_fetch_source(s, st, k)].arena_bo,
					    st->t->offset, stage + at,
					    st->t->nbytes,
					    IPU_XFER_DIR_FROM_DEVICE, 0);
			at += st->t->nbytes;
		}
	}
	return ipu_sess_batch_flush(&b);
}

/*
 * Read the device into a staging buffer first: a fetch that fails half
 * way leaves the host copies (and mapped files) as they were (S25). A
 * program split across instances gathers what the other instances hold
 * (gather.c).
 */
int ipu_sess_fetch(struct ipu_session *s)
{
	size_t total = 0, i;
	uint8_t *stage;
	int err;

	if (s->in_sync)
		return 0;
	for (i = 0; i < s->n_tensors; i++)
		if (ipu_sess_fetched(&s->tensors[i]))
			total += fetch_bytes(s, &s->tensors[i]);
	stage = malloc(total ? total : 1);
	if (!stage)
		return ipu_sess_err(s, -ENOMEM,
				    "weights_to_host: no memory to stage %zu bytes",
				    total);
	err = s->rf == s->replicas ? fetch_local(s, stage) :
				     ipu_sess_fetch_instances(s, stage);
	if (!err) {
		commit(s, stage);
		s->in_sync = true;
	}
	free(stage);
	return err;
}

int ipu_session_weights_from_host(struct ipu_session *s)
{
	int err;

	if (!s)
		return -EINVAL;
	err = ipu_sess_need_attached(s, "weights_from_host");
	return err ? err : from_host(s, NULL, false);
}

/* Whether @s has a file a flush can fail to write (S22). */
static bool has_writable_mapping(const struct ipu_session *s)
{
	size_t i;

	for (i = 0; i < s->n_tensors; i++)
		if (s->tensors[i].map_len && !s->tensors[i].readonly)
			return true;
	return false;
}

/*
 * What a fetch changes, saved: every fetched tensor's host copy, then its
 * per-replica copy (all_replicas), in table order; and which of those were
 * valid. NULL with *@err 0 when there is nothing to save.
 */
static uint8_t *save_copies(struct ipu_session *s, bool **validp, int *err)
{
	const struct sess_tensor *st;
	size_t total = 0, at = 0, i, len;
	uint8_t *buf;

	*err = 0;
	for (i = 0; i < s->n_tensors; i++)
		if (ipu_sess_fetched(&s->tensors[i]))
			total += (size_t)s->tensors[i].num_groups *
					 s->tensors[i].t->nbytes +
				 (s->tensors[i].all_replicas ?
					  fetch_bytes(s, &s->tensors[i]) : 0);
	buf = malloc(total ? total : 1);
	*validp = calloc(s->n_tensors ? s->n_tensors : 1, sizeof(**validp));
	if (!buf || !*validp) {
		free(buf);
		free(*validp);
		*err = ipu_sess_err(s, -ENOMEM,
				    "weights_to_host: no memory to keep %zu bytes of host copies",
				    total);
		return NULL;
	}
	for (i = 0; i < s->n_tensors; i++) {
		st = &s->tensors[i];
		if (!ipu_sess_fetched(st))
			continue;
		len = (size_t)st->num_groups * st->t->nbytes;
		memcpy(buf + at, st->host, len);
		at += len;
		if (st->all_replicas) {
			memcpy(buf + at, st->replicas, fetch_bytes(s, st));
			at += fetch_bytes(s, st);
			(*validp)[i] = st->replicas_valid;
		}
	}
	return buf;
}

/* Put back what save_copies() saved; the mapped files get it too. */
static void restore_copies(struct ipu_session *s, const uint8_t *buf,
			   const bool *valid)
{
	struct sess_tensor *st;
	size_t at = 0, i, len;

	for (i = 0; i < s->n_tensors; i++) {
		st = &s->tensors[i];
		if (!ipu_sess_fetched(st))
			continue;
		len = (size_t)st->num_groups * st->t->nbytes;
		memcpy(st->host, buf + at, len);
		at += len;
		if (st->all_replicas) {
			memcpy(st->replicas, buf + at, fetch_bytes(s, st));
			at += fetch_bytes(s, st);
			st->replicas_valid = valid[i];
		}
	}
}

int ipu_session_weights_to_host(struct ipu_session *s)
{
	uint8_t *saved = NULL;
	bool *valid = NULL;
	int err;

	if (!s)
		return -EINVAL;
	/* PopXL checks this first, attached or not. */
	if (s->ro_mmap)
		return ipu_sess_err(s, -EROFS,
				    "weights_to_host: writing data from device to host is not possible: the program holds the read-only memory-mapped variable '%s'",
				    s->ro_mmap->t->name);
	err = ipu_sess_need_attached(s, "weights_to_host");
	if (err)
		return err;
	/*
	 * A fetch writes the mapped files' pages, which their readers see
	 * at once, before the flush that can fail: keep what it overwrites,
	 * to put back if the flush fails (S25: a failed call changes
	 * nothing).
	 */
	if (!s->in_sync && has_writable_mapping(s)) {
		saved = save_copies(s, &valid, &err);
		if (err)
			return err;
	}
	err = ipu_sess_fetch(s);
	/*
	 * The host copies count as in sync only once their files have the
	 * values too: after a failed flush, the next weights_to_host (or
	 * exit) fetches and flushes again instead of trusting them.
	 */
	if (!err) {
		err = ipu_sess_flush_mmaps(s);
		if (err) {
			if (saved)
				restore_copies(s, saved, valid);
			s->in_sync = false;
		}
	}
	free(saved);
	free(valid);
	return err;
}

/* ---------------------------------------------------------------------- */
/* By name: describe, get, write                                           */
/* ---------------------------------------------------------------------- */

/* The variable or constant @name: -ENOENT, or -ENOTSUP for another kind. */
static int lookup(struct ipu_session *s, const char *name, const char *what,
		  struct sess_tensor **stp)
{
	size_t i;

	if (!name)
		return ipu_sess_err(s, -EINVAL, "%s: the tensor name is NULL",
				    what);
	for (i = 0; i < s->n_tensors; i++) {
		if (!strcmp(s->tensors[i].t->name, name)) {
			*stp = &s->tensors[i];
			return 0;
		}
	}
	if (ipu_exe_find_tensor(s->exe, name) >= 0)
		return ipu_sess_err(s, -ENOTSUP,
				    "%s: '%s' is not of type Constant or Variable: %s is not supported for this type",
				    what, name, what);
	return ipu_sess_err(s, -ENOENT, "%s: the program has no tensor '%s'",
			    what, name);
}

int ipu_session_tensor_desc(const struct ipu_session *s, const char *name,
			    struct ipu_tensor_desc *desc)
{
	struct sess_tensor *st;
	int err;

	if (!s || !desc)
		return -EINVAL;
	/* The message is the session's to keep, whatever the constness. */
	err = lookup((struct ipu_session *)(uintptr_t)s, name, "tensor_desc",
		     &st);
	if (!err)
		*desc = st->desc;
	return err;
}

/* The dtype of the host value: the tensor's, or uint8 codes for FP8. */
static bool dtype_fits(const struct sess_tensor *st, uint32_t dt)
{
	return dt == st->t->dtype ||
	       (ipu_dtype_is_fp8((int)st->t->dtype) && dt == IPU_DTYPE_UINT8);
}

static bool same_shape(const struct ipu_tensor_desc *d,
		       const struct ipu_host_buffer *b)
{
	return b->ndim == d->ndim &&
	       !memcmp(b->shape, d->shape, d->ndim * sizeof(d->shape[0]));
}

static int shape_mismatch(struct ipu_session *s, const char *what,
			  const struct sess_tensor *st,
			  const struct ipu_host_buffer *b)
{
	char want[160], got[160];

	ipu_sess_fmt_shape(want, sizeof(want), st->desc.ndim, st->desc.shape);
	ipu_sess_fmt_shape(got, sizeof(got),
			   b->ndim > IPU_HOST_MAX_DIMS ? 0 : b->ndim, b->shape);
	return ipu_sess_err(s, -EINVAL,
			    "%s: the shape of the array %s must match the shape of the tensor '%s' on the host: %s",
			    what, got, st->t->name, want);
}

static int dtype_mismatch(struct ipu_session *s, const char *what,
			  const struct sess_tensor *st, uint32_t dt)
{
	return ipu_sess_err(s, -EINVAL,
			    "%s: the dtype of the array %s must match the equivalent type of the tensor '%s': %s",
			    what, ipu_dtype_name((int)dt), st->t->name,
			    ipu_dtype_name((int)st->t->dtype));
}

/* Copy the host value of @st (for its retrieval mode) to @dst. */
static void copy_out(const struct ipu_session *s, const struct sess_tensor *st,
		     void *dst)
{
	uint64_t nbytes = st->t->nbytes;
	uint32_t r;

	if (!st->all_replicas) {
		memcpy(dst, st->host, st->num_groups * nbytes);
		return;
	}
	if (st->replicas_valid) {
		memcpy(dst, st->replicas, s->rf * nbytes);
		return;
	}
	/* What the device holds after weights_from_host: the group values. */
	for (r = 0; r < s->rf; r++)
		memcpy((uint8_t *)dst + r * nbytes,
		       st->host + group_of(st, r) * nbytes, nbytes);
}

int ipu_session_get_tensors_data(struct ipu_session *s,
				 const char *const *names,
				 struct ipu_host_buffer *dsts, size_t n)
{
	const char *what = "get_tensor_data";
	struct sess_tensor *st;
	bool any_variable = false;
	size_t i;
	int err;

	if (!s)
		return -EINVAL;
	if (n && (!names || !dsts))
		return ipu_sess_err(s, -EINVAL, "%s: %s is NULL", what,
				    names ? "dsts" : "names");
	for (i = 0; i < n; i++) {
		err = lookup(s, names[i], what, &st);
		if (err)
			return err;
		if (!dtype_fits(st, dsts[i].dtype))
			return dtype_mismatch(s, what, st, dsts[i].dtype);
		if (!same_shape(&st->desc, &dsts[i]))
			return shape_mismatch(s, what, st, &dsts[i]);
		if (!dsts[i].data)
			return ipu_sess_err(s, -EINVAL,
					    "%s: the array for '%s' has NULL data",
					    what, names[i]);
		any_variable |= st->desc.is_variable;
	}
	/* S19: constants never change on the device; detached, the host
	 * copies are all there is; in sync, they are the device's values. */
	if (any_variable && s->depth && !s->in_sync) {
		err = ipu_session_weights_to_host(s);
		if (err)
			return err;
	}
	for (i = 0; i < n; i++) {
		lookup(s, names[i], what, &st);
		copy_out(s, st, dsts[i].data);
	}
	return 0;
}

int ipu_session_get_tensor_data(struct ipu_session *s, const char *name,
				struct ipu_host_buffer *dst)
{
	if (s && !dst)
		return ipu_sess_err(s, -EINVAL, "get_tensor_data: dst is NULL");
	return ipu_session_get_tensors_data(s, &name, dst, dst ? 1 : 0);
}

/* S21's checks of one write, in PopXL's order where it has one. */
static int check_write(struct ipu_session *s, const char *name,
		       const struct ipu_host_buffer *src,
		       struct sess_tensor **stp)
{
	const char *what = "write_variable_data";
	struct sess_tensor *st;
	int err;

	err = lookup(s, name, what, &st);
	if (err)
		return err;
	*stp = st;
	if (!st->desc.is_variable)
		return ipu_sess_err(s, -ENOTSUP,
				    "%s: tensor '%s' is not of type Variable: %s is not supported for this type",
				    what, name, what);
	if (st->readonly)
		return ipu_sess_err(s, -EROFS,
				    "%s: variable '%s' is a read-only memory-mapped file ('%s')",
				    what, name, st->t->mmap_path);
	if (st->all_replicas)
		return ipu_sess_err(s, -EINVAL,
				    "%s: copying to variable '%s' with \"all_replicas\" retrieval mode (group size %u) is not yet supported",
				    what, name, st->t->group_size);
	if (!src->data)
		return ipu_sess_err(s, -EINVAL, "%s: the array for '%s' has NULL data",
				    what, name);
	if (src->ndim == 0) {
		if (ipu_dtype_is_fp8((int)st->t->dtype))
			return ipu_sess_err(s, -EINVAL,
					    "%s: data for variable '%s' must be passed in as an array of dtype %s or uint8 (see host_pow2scale_cast_to_fp8)",
					    what, name,
					    ipu_dtype_name((int)st->t->dtype));
		if (!ipu_dtype_valid((int)src->dtype))
			return dtype_mismatch(s, what, st, src->dtype);
		return 0;
	}
	if (!dtype_fits(st, src->dtype))
		return dtype_mismatch(s, what, st, src->dtype);
	if (!same_shape(&st->desc, src))
		return shape_mismatch(s, what, st, src);
	return 0;
}

/* A scalar cast to the variable's dtype and broadcast to every value of
 * @st, at @dst (laid out as its host copy). */
static void write_scalar(const struct sess_tensor *st, uint8_t *dst,
			 const struct ipu_host_buffer *src)
{
	const size_t esz = ipu_dtype_size((int)st->t->dtype);
	uint64_t in = 0, out = 0, i, n = st->num_groups * st->t->nelems;

	/* ipu_dtype_convert() wants aligned elements: copy in and out. */
	memcpy(&in, src->data, ipu_dtype_size((int)src->dtype));
	ipu_dtype_convert(&out, (int)st->t->dtype, &in, (int)src->dtype, 1);
	for (i = 0; i < n; i++)
		memcpy(dst + i * esz, &out, esz);
}

/* The new value of every variable written, in the order given. */
static void write_values(struct ipu_session *s, const char *const *names,
			 const struct ipu_host_buffer *srcs, size_t n,
			 uint8_t *const *dst)
{
	struct sess_tensor *st;
	size_t i, k;

	for (i = 0; i < n; i++) {
		lookup(s, names[i], "write_variable_data", &st);
		k = (size_t)(st - s->tensors);
		if (srcs[i].ndim == 0)
			write_scalar(st, dst[k], &srcs[i]);
		else
			memcpy(dst[k], srcs[i].data,
			       st->num_groups * st->t->nbytes);
	}
}

/*
 * Attached: the new values go to the device first, from a staging copy;
 * only once it has them do they become the host copies (and the files of
 * mapped variables). If the device fails part way, the host copies keep
 * the old values and go back to the device (S25): then the session is in
 * sync as before; if that fails too, it is out of sync.
 */
static int write_attached(struct ipu_session *s, const char *const *names,
			  const struct ipu_host_buffer *srcs, size_t n)
{
	uint8_t **stage, *buf = NULL;
	size_t total = 0, at = 0, i, len;
	struct sess_tensor *st;
	char msg[SESS_ERRMSG_LEN];
	bool *written;
	int err, err2;

	/* stage[i]: tensor i's new value, for the written ones; NULL else. */
	stage = calloc(s->n_tensors, sizeof(*stage));
	written = calloc(s->n_tensors, sizeof(*written));
	for (i = 0; written && i < n; i++) {
		lookup(s, names[i], "write_variable_data", &st);
		written[st - s->tensors] = true;
	}
	for (i = 0; written && i < s->n_tensors; i++)
		if (written[i])
			total += (size_t)s->tensors[i].num_groups *
				 s->tensors[i].t->nbytes;
	if (stage && written)
		buf = malloc(total ? total : 1);
	if (!buf) {
		free(written);
		free(stage);
		return ipu_sess_err(s, -ENOMEM,
				    "write_variable_data: no memory to stage %zu bytes",
				    total);
	}
	for (i = 0; i < s->n_tensors; i++) {
		if (!written[i])
			continue;
		st = &s->tensors[i];
		len = (size_t)st->num_groups * st->t->nbytes;
		stage[i] = buf + at;
		memcpy(stage[i], st->host, len);
		at += len;
	}
	write_values(s, names, srcs, n, stage);
	err = from_host(s, stage, false);
	if (!err) {
		for (i = 0; i < s->n_tensors; i++)
			if (stage[i])
				memcpy(s->tensors[i].host, stage[i],
				       (size_t)s->tensors[i].num_groups *
					       s->tensors[i].t->nbytes);
	} else {
		snprintf(msg, sizeof(msg), "%s", s->errmsg);
		err2 = from_host(s, NULL, false);
		if (err2) {
			/* Not s->errmsg itself: the call writes it. */
			char again[SESS_ERRMSG_LEN];

			snprintf(again, sizeof(again), "%s", s->errmsg);
			ipu_sess_err(s, err,
				     "%s; putting the old values back failed too (the host copies are out of sync): %s",
				     msg, again);
		} else
			ipu_sess_err(s, err, "%s (the old values are back on the device)",
				     msg);
	}
	free(buf);
	free(written);
	free(stage);
	return err;
}

int ipu_session_write_variables_data(struct ipu_session *s,
				     const char *const *names,
				     const struct ipu_host_buffer *srcs,
				     size_t n)
{
	struct sess_tensor *st;
	uint8_t **dst;
	size_t i;
	int err;

	if (!s)
		return -EINVAL;
	if (n && (!names || !srcs))
		return ipu_sess_err(s, -EINVAL, "write_variable_data: %s is NULL",
				    names ? "srcs" : "names");
	for (i = 0; i < n; i++) {
		err = check_write(s, names[i], &srcs[i], &st);
		if (err)
			return err;
	}
	if (!s->depth) {
		/* Detached, the host copies are all there is. */
		dst = calloc(s->n_tensors ? s->n_tensors : 1, sizeof(*dst));
		if (!dst)
			return ipu_sess_err(s, -ENOMEM,
					    "write_variable_data: no memory");
		for (i = 0; i < s->n_tensors; i++)
			dst[i] = s->tensors[i].host;
		write_values(s, names, srcs, n, dst);
		free(dst);
		return 0;
	}
	/*
	 * weights_from_host sends every host copy: the stale ones must get
	 * the device's values first, or the write would roll the other
	 * variables back to before the last run.
	 */
	ipu_sess_call_begin(s);
	err = ipu_sess_fetch(s);
	return err ? err : write_attached(s, names, srcs, n);
}

int ipu_session_write_variable_data(struct ipu_session *s, const char *name,
				    const struct ipu_host_buffer *src)
{
	if (s && !src)
		return ipu_sess_err(s, -EINVAL, "write_variable_data: src is NULL");
	return ipu_session_write_variables_data(s, &name, src, src ? 1 : 0);
}
