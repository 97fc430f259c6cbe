// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * shape.c - S11, the one shape checker: whether a host buffer fits a
 * stream. A run checks every buffer with it (buffers.c), and tools that
 * read arrays from files ask it first through ipu_session_check_shape(),
 * so that they accept exactly what a run accepts and say why not in the
 * same words.
 *
 * The full shape is (d, r) + the stream's shape, d = num_host_transfers
 * and r = the replication factor, each present only when > 1. Dim 0 must
 * be at least d (only the first d iterations are used), the replica dim
 * must equal r, the rest must equal the stream's shape; a buffer whose
 * data dims are all 1 passes when the stream holds one element.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "session_internal.h"

/* "<dir> stream '<name>': " ... ": expected shape (..), got (..)" */
static int shape_err(struct ipu_session *s, const char *dir,
		     const struct ipu_stream_desc *d, uint32_t ndim,
		     const uint64_t *shape, const char *what)
{
	char stream[160], want[160], got[160];

	ipu_sess_fmt_shape(stream, sizeof(stream), d->ndim, d->shape);
	ipu_sess_fmt_shape(want, sizeof(want), d->host_ndim, d->host_shape);
	ipu_sess_fmt_shape(got, sizeof(got),
			   ndim > IPU_HOST_MAX_DIMS ? 0 : ndim, shape);
	return ipu_sess_err(s, -EINVAL,
			    "%s stream '%s': %s: stream shape %s, num_host_transfers %u and replication_factor %u give the full shape %s; got an array of shape %s",
			    dir, d->name, what, stream, s->transfers, s->replicas, want, got);
}

int ipu_sess_check_shape(struct ipu_session *s, const char *dir,
			 const struct ipu_stream_desc *d, uint32_t ndim,
			 const uint64_t *shape)
{
	uint32_t pos = 0, i;
	bool all_one = true;
	char what[160];

	if (ndim > IPU_HOST_MAX_DIMS) {
		snprintf(what, sizeof(what), "%u dimensions (at most %u)",
			 ndim, IPU_HOST_MAX_DIMS);
		return shape_err(s, dir, d, ndim, shape, what);
	}
	/* Dim 0 holds the iterations: at least d of them, only the first d
	 * are used. */
	if (s->transfers > 1) {
		if (ndim < 1 || shape[0] < s->transfers) {
			snprintf(what, sizeof(what),
				 "dimension 0 (%llu) is not large enough: it should be at least num_host_transfers = %u",
				 ndim ? (unsigned long long)shape[0] : 0ull,
				 s->transfers);
			return shape_err(s, dir, d, ndim, shape, what);
		}
		pos++;
	}
	if (s->replicas > 1) {
		if (ndim <= pos || shape[pos] != s->replicas) {
			snprintf(what, sizeof(what),
				 "dimension %u (%llu) is the wrong size: it should be replication_factor = %u",
				 pos,
				 ndim > pos ? (unsigned long long)shape[pos] : 0ull,
				 s->replicas);
			return shape_err(s, dir, d, ndim, shape, what);
		}
		pos++;
	}
	for (i = pos; i < ndim; i++)
		all_one &= shape[i] == 1;
	/*
	 * PopXL lets a buffer whose data dims are all 1 through whatever their
	 * number: one element, however NumPy shaped it. One element is all
	 * such a buffer holds per transfer, so the stream must take one too
	 * (PopXL finds that out later, in PopART).
	 */
	if (all_one) {
		uint64_t elems;

		ipu_sess_shape_elems(d->ndim, d->shape, &elems);
		if (elems == 1)
			return 0;
		snprintf(what, sizeof(what),
			 "the array holds 1 element per transfer, the stream %llu",
			 (unsigned long long)elems);
		return shape_err(s, dir, d, ndim, shape, what);
	}
	if (ndim - pos != d->ndim ||
	    memcmp(&shape[pos], d->shape, d->ndim * sizeof(d->shape[0])))
		return shape_err(s, dir, d, ndim, shape, "shape mismatch");
	return 0;
}

int ipu_session_check_shape(struct ipu_session *s, const char *stream,
			    uint32_t ndim, const uint64_t *shape)
{
	size_t i;

	if (!s)
		return ipu_sess_err(NULL, -EINVAL, "check_shape: no session");
	if (!stream)
		return ipu_sess_err(s, -EINVAL, "check_shape: no stream name");
	if (ndim && !shape)
		return ipu_sess_err(s, -EINVAL,
				    "check_shape: stream '%s': %u dimensions at NULL",
				    stream, ndim);
	for (i = 0; i < s->n_inputs; i++)
		if (!strcmp(s->inputs[i].name, stream))
			return ipu_sess_check_shape(s, "input", &s->inputs[i],
						    ndim, shape);
	for (i = 0; i < s->n_outputs; i++)
		if (!strcmp(s->outputs[i].name, stream))
			return ipu_sess_check_shape(s, "output",
						    &s->outputs[i], ndim, shape);
	return ipu_sess_err(s, -EINVAL,
			    "check_shape: the program has no stream '%s'",
			    stream);
}
