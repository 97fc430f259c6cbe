// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * mlp_session.c - run the demo's programs through libsession: the host
 * side of training. The session is PopXL's: attach writes the weights,
 * each run pushes num_host_transfers batches per replica and pulls the
 * losses and probabilities back, get/write_variable_data move weights.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipu/session.h"
#include "mlp.h"

/* Inputs in the program's order of declaration (mlp_model.c). */
enum { IN_X, IN_Y, NUM_INPUTS };

struct mlp_session {
	struct mlp_config cfg;
	enum mlp_program prog;
	struct mlp_param params[MLP_NUM_PARAMS];
	struct ipu_session *s;
	struct ipu_stream_buffer in[NUM_INPUTS];
	struct ipu_stream_buffer *out;
	size_t nout;
	size_t *local; /* the samples a run feeds (local_samples()) */
	char msg[1024];
};

static int fail_session(struct mlp_session *ms, int ret, const char *what)
{
	snprintf(ms->msg, sizeof(ms->msg), "%s: %s", what,
		 ipu_session_errmsg(ms->s));
	return ret;
}

const char *mlp_session_errmsg(const struct mlp_session *ms)
{
	return ms ? ms->msg : "";
}

const char *mlp_session_device(const struct mlp_session *ms)
{
	return ipu_session_device_name(ms->s);
}

static float *find_buffer(const struct ipu_stream_buffer *bufs, size_t n,
			  const char *stream)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(bufs[i].stream, stream))
			return bufs[i].buf.data;
	return NULL;
}

/* Host buffers for the inputs, shaped as the session expects them (S11). */
static int alloc_inputs(struct mlp_session *ms)
{
	static const char *const names[NUM_INPUTS] = { "x", "y" };
	const struct ipu_stream_desc *desc;
	size_t n;

	desc = ipu_session_expected_inputs(ms->s, &n);
	for (size_t i = 0; i < NUM_INPUTS; i++) {
		const struct ipu_stream_desc *dd = NULL;
		struct ipu_host_buffer *b = &ms->in[i].buf;
		size_t count = 1;

		for (size_t j = 0; j < n && !dd; j++)
			if (!strcmp(desc[j].name, names[i]))
				dd = &desc[j];
		if (!dd) {
			snprintf(ms->msg, sizeof(ms->msg),
				 "mlp: the program has no input stream '%s'",
				 names[i]);
			return -EINVAL;
		}
		ms->in[i].stream = dd->name;
		b->dtype = dd->dtype;
		b->ndim = dd->host_ndim;
		for (uint32_t k = 0; k < dd->host_ndim; k++) {
			b->shape[k] = dd->host_shape[k];
			count *= dd->host_shape[k];
		}
		b->data = calloc(count, sizeof(float));
		if (!b->data)
			return -ENOMEM;
	}
	return 0;
}

void mlp_session_close(struct mlp_session *ms)
{
	if (!ms)
		return;
	if (ms->s && ipu_session_is_attached(ms->s))
		ipu_session_detach(ms->s, 0);
	ipu_session_free_buffers(ms->out, ms->nout);
	for (int i = 0; i < NUM_INPUTS; i++)
		free(ms->in[i].buf.data);
	ipu_session_destroy(ms->s);
	free(ms->local);
	free(ms);
}

int mlp_session_open(const struct mlp_config *cfg, enum mlp_program prog,
		     const float *params, const char *device,
		     struct mlp_session **msp, char *err, size_t errlen)
{
	IPU_OPTS(ipu_session_opts, opts, .device = device ? device : "auto");
	struct mlp_session *ms;
	struct ipu_ir *ir;
	int ret;

	ret = mlp_build(cfg, prog, params, &ir, err, errlen);
	if (ret)
		return ret;
	ms = calloc(1, sizeof(*ms));
	if (!ms) {
		ipu_ir_destroy(ir);
		snprintf(err, errlen, "mlp: out of memory");
		return -ENOMEM;
	}
	ms->cfg = *cfg;
	ms->prog = prog;
	ms->local = malloc(mlp_samples_per_run(cfg) * sizeof(*ms->local));
	if (!ms->local) {
		ipu_ir_destroy(ir);
		free(ms);
		snprintf(err, errlen, "mlp: out of memory");
		return -ENOMEM;
	}
	mlp_params_layout(cfg, ms->params);
	/* The session takes the ir whatever happens. */
	ret = ipu_session_create(ir, &opts, &ms->s);
	if (ret) {
		snprintf(err, errlen, "creating the session on '%s': %s",
			 opts.device, ipu_session_errmsg(NULL));
		free(ms->local);
		free(ms);
		return ret;
	}
	ret = alloc_inputs(ms);
	if (!ret) {
		ret = ipu_session_create_host_outputs(ms->s, &ms->out,
						      &ms->nout);
		if (ret)
			fail_session(ms, ret, "allocating the outputs");
	}
	if (!ret) {
		ret = ipu_session_attach(ms->s);
		if (ret)
			fail_session(ms, ret, "attaching");
	}
	if (ret) {
		snprintf(err, errlen, "%s", ms->msg[0] ? ms->msg : strerror(-ret));
		mlp_session_close(ms);
		return ret;
	}
	*msp = ms;
	return 0;
}

/* Copy the samples of one run into the input buffers, one-hot labels. */
static int fill_inputs(struct mlp_session *ms, const struct mlp_data *d,
		       const size_t *idx, size_t n)
{
	float *x = ms->in[IN_X].buf.data, *y = ms->in[IN_Y].buf.data;

	memset(y, 0, n * MLP_CLASSES * sizeof(*y));
	for (size_t i = 0; i < n; i++) {
		size_t k = idx[i];

		if (k >= d->n || d->label[k] >= MLP_CLASSES) {
			snprintf(ms->msg, sizeof(ms->msg),
				 "mlp: sample %zu of the run: index %zu of %zu or its label is out of range",
				 i, k, d->n);
			return -EINVAL;
		}
		memcpy(&x[i * MLP_FEATURES], &d->x[k * MLP_FEATURES],
		       MLP_FEATURES * sizeof(*x));
		y[i * MLP_CLASSES + d->label[k]] = 1.0f;
	}
	return 0;
}

/*
 * The samples of a run this instance feeds, in its buffers' order (step,
 * local replica, sample), from @idx, the run's samples of every replica
 * in (step, replica, sample) order; @local has room for them all. The
 * count.
 */
static size_t local_samples(const struct mlp_config *cfg, const size_t *idx,
			    size_t *local)
{
	uint32_t irf = cfg->instance_replicas ? cfg->instance_replicas :
						cfg->replicas;
	size_t n = 0;

	for (uint32_t s = 0; s < cfg->steps; s++)
		for (uint32_t r = 0; r < irf; r++) {
			size_t g = (size_t)s * cfg->replicas +
				   (size_t)cfg->instance * irf + r;

			memcpy(&local[n], &idx[g * cfg->batch],
			       cfg->batch * sizeof(*local));
			n += cfg->batch;
		}
	return n;
}

int mlp_session_run(struct mlp_session *ms, const struct mlp_data *d,
		    const size_t *all, struct mlp_stats *st)
{
	size_t *idx = ms->local;
	size_t n = local_samples(&ms->cfg, all, idx);
	size_t nloss = n / ms->cfg.batch;
	const float *loss = find_buffer(ms->out, ms->nout, "loss");
	const float *probs = find_buffer(ms->out, ms->nout, "probs");
	int ret;

	if (!loss || !probs) {
		snprintf(ms->msg, sizeof(ms->msg),
			 "mlp: the program lacks the loss or probs stream");
		return -EINVAL;
	}
	ret = fill_inputs(ms, d, idx, n);
	if (ret)
		return ret;
	ret = ipu_session_run_with_outputs(ms->s, ms->in, NUM_INPUTS, ms->out,
					   ms->nout, 0);
	if (ret)
		return fail_session(ms, ret, "run");
	for (size_t i = 0; i < nloss; i++)
		st->loss_sum += loss[i];
	st->loss_count += nloss;
	for (size_t i = 0; i < n; i++) {
		const float *p = &probs[i * MLP_CLASSES];
		unsigned int best = 0;

		for (unsigned int c = 1; c < MLP_CLASSES; c++)
			if (p[c] > p[best])
				best = c;
		st->correct += best == d->label[idx[i]];
	}
	st->seen += n;
	return 0;
}

int mlp_session_run_all(struct mlp_session *ms, const struct mlp_data *d,
			const size_t *order, struct mlp_stats *st)
{
	size_t per_run = mlp_samples_per_run(&ms->cfg);

	for (size_t first = 0; first + per_run <= d->n; first += per_run) {
		int ret = mlp_session_run(ms, d, order + first, st);

		if (ret)
			return ret;
	}
	return 0;
}

/* Host buffers over the flat array, one per parameter. */
static void param_buffers(const struct mlp_session *ms, float *params,
			  struct ipu_host_buffer *bufs, const char **names)
{
	for (int i = 0; i < MLP_NUM_PARAMS; i++) {
		const struct mlp_param *p = &ms->params[i];

		memset(&bufs[i], 0, sizeof(bufs[i]));
		bufs[i].data = params + p->offset;
		bufs[i].dtype = IPU_DTYPE_FLOAT32;
		bufs[i].ndim = p->ndim;
		memcpy(bufs[i].shape, p->shape, sizeof(p->shape));
		names[i] = p->name;
	}
}

int mlp_session_get_params(struct mlp_session *ms, float *params)
{
	struct ipu_host_buffer bufs[MLP_NUM_PARAMS];
	const char *names[MLP_NUM_PARAMS];
	int ret;

	param_buffers(ms, params, bufs, names);
	ret = ipu_session_get_tensors_data(ms->s, names, bufs, MLP_NUM_PARAMS);
	return ret ? fail_session(ms, ret, "reading the weights") : 0;
}

int mlp_session_set_params(struct mlp_session *ms, const float *params)
{
	struct ipu_host_buffer bufs[MLP_NUM_PARAMS];
	const char *names[MLP_NUM_PARAMS];
	int ret;

	/* The buffers are only read: the cast drops const for the struct. */
	param_buffers(ms, (float *)params, bufs, names);
	ret = ipu_session_write_variables_data(ms->s, names, bufs,
					       MLP_NUM_PARAMS);
	return ret ? fail_session(ms, ret, "writing the weights") : 0;
}

int mlp_session_get_grads(const struct mlp_session *ms, float *grads)
{
	if (ms->prog != MLP_GRADS)
		return -EINVAL;
	for (int i = 0; i < MLP_NUM_PARAMS; i++) {
		const struct mlp_param *p = &ms->params[i];
		char name[32];
		const float *g;

		snprintf(name, sizeof(name), "grad.%s", p->name);
		g = find_buffer(ms->out, ms->nout, name);
		if (!g)
			return -EINVAL;
		/* Step 0, replica 0: the all-reduce made every replica's
		 * gradient the same. */
		memcpy(grads + p->offset, g, p->count * sizeof(*g));
	}
	return 0;
}
