// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * buffers.c - host buffers of streams: which streams a run must be given
 * (S10, S16), the shape each buffer must have (S11), the dtypes taken and
 * downcast (S12), and buffers made for the outputs (S15).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"

bool ipu_sess_shape_elems(uint32_t ndim, const uint64_t *shape,
			  uint64_t *elems)
{
	uint64_t n = 1;
	uint32_t i;

	for (i = 0; i < ndim; i++)
		if (__builtin_mul_overflow(n, shape[i], &n))
			return false;
	*elems = n;
	return true;
}

/* S11: (d, r) + shape, d and r each only when > 1. */
static void host_shape(const struct ipu_session *s, struct ipu_stream_desc *d)
{
	uint32_t n = 0;

	if (s->transfers > 1)
		d->host_shape[n++] = s->transfers;
	if (s->replicas > 1)
		d->host_shape[n++] = s->replicas;
	memcpy(&d->host_shape[n], d->shape, d->ndim * sizeof(d->shape[0]));
	d->host_ndim = n + d->ndim;
}

int ipu_sess_streams_init(struct ipu_session *s)
{
	const struct ipu_exe *exe = s->exe;
	size_t n = exe->num_streams ? exe->num_streams : 1;
	struct ipu_stream_desc *d;
	uint32_t i;

	s->inputs = calloc(n, sizeof(*s->inputs));
	s->outputs = calloc(n, sizeof(*s->outputs));
	s->in_idx = calloc(n, sizeof(*s->in_idx));
	s->out_idx = calloc(n, sizeof(*s->out_idx));
	s->io_in = calloc(n, sizeof(*s->io_in));
	s->io_out = calloc(n, sizeof(*s->io_out));
	s->given = calloc(n, sizeof(*s->given));
	if (!s->inputs || !s->outputs || !s->in_idx || !s->out_idx ||
	    !s->io_in || !s->io_out || !s->given)
		return ipu_sess_err(s, -ENOMEM, "no memory for %u streams",
				    exe->num_streams);
	for (i = 0; i < exe->num_streams; i++) {
		const struct ipu_exe_stream *st = &exe->streams[i];

		if (st->direction == IPU_EXE_STREAM_H2D) {
			s->in_idx[s->n_inputs] = i;
			d = &s->inputs[s->n_inputs++];
		} else {
			s->out_idx[s->n_outputs] = i;
			d = &s->outputs[s->n_outputs++];
		}
		d->name = st->name;
		d->dtype = st->dtype;
		d->ndim = st->ndim;
		memcpy(d->shape, st->shape, sizeof(d->shape));
		host_shape(s, d);
	}
	return 0;
}

void ipu_sess_streams_free(struct ipu_session *s)
{
	free(s->inputs);
	free(s->outputs);
	free(s->in_idx);
	free(s->out_idx);
	free(s->io_in);
	free(s->io_out);
	free(s->given);
}

const struct ipu_stream_desc *
ipu_session_expected_inputs(const struct ipu_session *s, size_t *np)
{
	if (np)
		*np = s ? s->n_inputs : 0;
	return s ? s->inputs : NULL;
}

const struct ipu_stream_desc *
ipu_session_expected_outputs(const struct ipu_session *s, size_t *np)
{
	if (np)
		*np = s ? s->n_outputs : 0;
	return s ? s->outputs : NULL;
}

/* ---------------------------------------------------------------------- */
/* S10: exactly the program's streams                                      */
/* ---------------------------------------------------------------------- */

/* Append "'name'" to a set being written at @buf + *@at. */
static void set_add(char *buf, size_t len, size_t *at, const char *name,
		    const char *why)
{
	if (*at < len)
		*at += (size_t)snprintf(buf + *at, len - *at, "%s'%s'%s",
					buf[*at - 1] == '{' ? "" : ", ",
					name ? name : "(null)", why);
}

static void set_close(char *buf, size_t len, size_t *at)
{
	if (*at < len)
		*at += (size_t)snprintf(buf + *at, len - *at, "}");
}

/*
 * The stream of @want streams (indices @idx into the executable's) that
 * buffer @name names, or @n_want if none does. The search starts at
 * @first and wraps: buffers given in the program's order (as
 * create_host_outputs() and the Python binding give them) match at the
 * first compare, so a run's matching costs one strcmp() per stream, not
 * one per pair. Stream names are unique, so where it starts changes
 * nothing but the time.
 */
static size_t find_stream(const struct ipu_exe_stream *streams,
			  const uint32_t *idx, size_t n_want, size_t first,
			  const char *name)
{
	size_t k, j;

	for (k = 0; k < n_want; k++) {
		j = first + k < n_want ? first + k : first + k - n_want;
		if (!strcmp(streams[idx[j]].name, name))
			return j;
	}
	return n_want;
}

/* match_streams() failed: say which buffers and streams, with both sets. */
static int streams_err(struct ipu_session *s, const char *dir,
		       const struct ipu_stream_buffer *bufs, size_t n,
		       const uint32_t *idx, size_t n_want)
{
	const struct ipu_exe_stream *streams = s->exe->streams;
	char unexpected[1536], missing[1536];
	size_t i, j, at_u = 1, at_m = 1;

	strcpy(unexpected, "{");
	strcpy(missing, "{");
	memset(s->given, 0, n_want * sizeof(*s->given));
	for (i = 0; i < n; i++) {
		j = bufs[i].stream ? find_stream(streams, idx, n_want, 0,
						 bufs[i].stream) :
				     n_want;
		if (j == n_want || s->given[j]) {
			set_add(unexpected, sizeof(unexpected), &at_u,
				bufs[i].stream,
				bufs[i].stream && j < n_want ? " (given twice)" : "");
			continue;
		}
		s->given[j] = i + 1;
	}
	for (j = 0; j < n_want; j++)
		if (!s->given[j])
			set_add(missing, sizeof(missing), &at_m,
				streams[idx[j]].name, "");
	set_close(unexpected, sizeof(unexpected), &at_u);
	set_close(missing, sizeof(missing), &at_m);
	return ipu_sess_err(s, -EINVAL,
			    "unexpected/missing %ss: unexpected: %s, missing: %s",
			    dir, unexpected, missing);
}

/*
 * Which buffer names each wanted stream: s->given[j] = 1 + the index of
 * the buffer for stream j, 0 when none does. Any buffer naming no stream
 * (or one already named), or any stream left without a buffer, fails with
 * both lists, as PopXL's "Unexpected/Missing" error. The lists are
 * written only then (streams_err()): a run that matches writes none.
 */
static int match_streams(struct ipu_session *s, const char *dir,
			 const struct ipu_stream_buffer *bufs, size_t n,
			 const uint32_t *idx, size_t n_want)
{
	size_t i, j;

	/* As many buffers as streams, each naming a different stream, is
	 * every stream named once. */
	if (n != n_want)
		return streams_err(s, dir, bufs, n, idx, n_want);
	memset(s->given, 0, n_want * sizeof(*s->given));
	for (i = 0; i < n; i++) {
		j = bufs[i].stream ? find_stream(s->exe->streams, idx, n_want,
						 i, bufs[i].stream) :
				     n_want;
		if (j == n_want || s->given[j])
			return streams_err(s, dir, bufs, n, idx, n_want);
		s->given[j] = i + 1;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* S11, S12: each buffer                                                   */
/* ---------------------------------------------------------------------- */

/* S11: shape.c's ipu_sess_check_shape(). */

/*
 * S12: whether a buffer's dtype fits the stream: its own, uint8 for FP8
 * streams, or for inputs a 64-bit one downcast to it (*@downcast).
 */
static int check_dtype(struct ipu_session *s, bool input,
		       const struct ipu_stream_desc *d,
		       const struct ipu_host_buffer *b, unsigned int flags,
		       bool *downcast)
{
	const char *dir = input ? "input" : "output";
	uint32_t dt = b->dtype;

	*downcast = false;
	if (input && (dt == IPU_DTYPE_FLOAT64 || dt == IPU_DTYPE_INT64)) {
		if (flags & IPU_RUN_NO_DOWNCAST)
			return ipu_sess_err(s, -EINVAL,
					    "input stream '%s': %s data and IPU_RUN_NO_DOWNCAST: the stream takes %s",
					    d->name, ipu_dtype_name(dt),
					    ipu_dtype_name(d->dtype));
		dt = dt == IPU_DTYPE_FLOAT64 ? IPU_DTYPE_FLOAT32 :
					       IPU_DTYPE_INT32;
		*downcast = true;
	}
	/* FP8 data is its codes: uint8 views are what NumPy can hold. */
	if (dt == d->dtype || (ipu_dtype_is_fp8((int)d->dtype) &&
			       dt == IPU_DTYPE_UINT8)) {
		/* ipu_dtype_convert() reads elements as their C type. */
		if (*downcast && (uintptr_t)b->data % 8)
			return ipu_sess_err(s, -EINVAL,
					    "input stream '%s': %s data at %p is not aligned to its 8-byte elements",
					    d->name, ipu_dtype_name(b->dtype),
					    b->data);
		return 0;
	}
	if (*downcast)
		return ipu_sess_err(s, -EINVAL,
				    "input stream '%s': an array of dtype %s (downcast from %s), the stream has dtype %s",
				    d->name, ipu_dtype_name(dt),
				    ipu_dtype_name(b->dtype),
				    ipu_dtype_name(d->dtype));
	return ipu_sess_err(s, -EINVAL,
			    "%s stream '%s': an array of dtype %s, the stream has dtype %s",
			    dir, d->name, ipu_dtype_name(dt),
			    ipu_dtype_name(d->dtype));
}

int ipu_sess_check_io(struct ipu_session *s, bool input,
		      const struct ipu_stream_buffer *bufs, size_t n,
		      const uint32_t *idx, size_t n_want, unsigned int flags,
		      struct sess_io *io)
{
	const char *dir = input ? "input" : "output";
	const struct ipu_stream_desc *descs = input ? s->inputs : s->outputs;
	const struct ipu_host_buffer *b;
	size_t j;
	int err;

	if (n && !bufs)
		return ipu_sess_err(s, -EINVAL, "%zu %ss at NULL", n, dir);
	err = match_streams(s, dir, bufs, n, idx, n_want);
	if (err)
		return err;
	for (j = 0; j < n_want; j++) {
		b = &bufs[s->given[j] - 1].buf;
		err = ipu_sess_check_shape(s, dir, &descs[j], b->ndim, b->shape);
		if (!err)
			err = check_dtype(s, input, &descs[j], b, flags,
					  &io[j].downcast);
		if (err)
			return err;
		if (!b->data)
			return ipu_sess_err(s, -EINVAL,
					    "%s stream '%s': the array's data is NULL",
					    dir, descs[j].name);
		io[j].stream = idx[j];
		io[j].buf = b;
		io[j].host = b->data;
		io[j].slice = s->exe->streams[idx[j]].nbytes;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* S15: buffers for the outputs                                            */
/* ---------------------------------------------------------------------- */

int ipu_session_create_host_outputs(struct ipu_session *s,
				    struct ipu_stream_buffer **outputsp,
				    size_t *np)
{
	struct ipu_stream_buffer *out;
	uint64_t elems;
	size_t i;

	if (!s || !outputsp || !np)
		return s ? ipu_sess_err(s, -EINVAL,
					"create_host_outputs: an out pointer is NULL") :
			   -EINVAL;
	out = calloc(s->n_outputs ? s->n_outputs : 1, sizeof(*out));
	if (!out)
		return ipu_sess_err(s, -ENOMEM, "no memory for %zu outputs",
				    s->n_outputs);
	for (i = 0; i < s->n_outputs; i++) {
		const struct ipu_stream_desc *d = &s->outputs[i];

		out[i].stream = d->name;
		out[i].buf.dtype = d->dtype;
		out[i].buf.ndim = d->host_ndim;
		memcpy(out[i].buf.shape, d->host_shape, sizeof(d->host_shape));
		/* The arena holds d slots of each stream, so no overflow. */
		ipu_sess_shape_elems(d->host_ndim, d->host_shape, &elems);
		out[i].buf.data = calloc(elems, ipu_dtype_size((int)d->dtype));
		if (!out[i].buf.data) {
			ipu_session_free_buffers(out, i);
			return ipu_sess_err(s, -ENOMEM,
					    "no memory for output stream '%s'",
					    d->name);
		}
	}
	*outputsp = out;
	*np = s->n_outputs;
	return 0;
}

void ipu_session_free_buffers(struct ipu_stream_buffer *bufs, size_t n)
{
	size_t i;

	if (!bufs)
		return;
	for (i = 0; i < n; i++)
		free(bufs[i].buf.data);
	free(bufs);
}
