// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * mlp_model.c - the demo network as IR programs: parameters, their
 * initialisation, and the forward and backward passes written out op by op
 * (the IR has no autodiff), with replica-averaged gradients and SGD.
 *
 * One training step, for a batch X of B samples and one-hot labels Y:
 *
 *	h0 = X;  h1 = tanh(h0 W1 + b1);  h2 = tanh(h1 W2 + b2);
 *	z = h2 W3 + b3;  loss = -sum(Y * log_softmax(z)) / B
 *
 * and back, with d_l the loss's gradient at layer l's pre-activation:
 *
 *	d3 = (softmax(z) - Y) / B
 *	dW_l = h_{l-1}^T d_l;  db_l = sum over the batch of d_l
 *	d_{l-1} = (d_l W_l^T) * (1 - h_{l-1}^2)	(tanh' = 1 - tanh^2)
 *
 * Each gradient is then averaged over the replicas (all-reduce mean) and
 * applied: W -= lr * dW (scaled_add_inplace). Every gradient is computed
 * before the first update, since the backward pass reads W2 and W3.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mlp.h"

static const char *const param_names[MLP_NUM_PARAMS] = {
	"w1", "b1", "w2", "b2", "w3", "b3"
};

void mlp_config_default(struct mlp_config *cfg)
{
	*cfg = (struct mlp_config){
		.hidden = 16, .batch = 16, .steps = 8, .replicas = 2,
		.lr = 0.5f,
	};
}

size_t mlp_samples_per_run(const struct mlp_config *cfg)
{
	return (size_t)cfg->steps * cfg->replicas * cfg->batch;
}

/* Widths of the activations: h0 (the input) to h3 (the logits). */
static void layer_widths(const struct mlp_config *cfg,
			 uint64_t w[MLP_LAYERS + 1])
{
	w[0] = MLP_FEATURES;
	w[1] = w[2] = cfg->hidden;
	w[3] = MLP_CLASSES;
}

size_t mlp_params_layout(const struct mlp_config *cfg,
			 struct mlp_param p[MLP_NUM_PARAMS])
{
	uint64_t w[MLP_LAYERS + 1];
	size_t off = 0;

	layer_widths(cfg, w);
	for (int l = 0; l < MLP_LAYERS; l++) {
		struct mlp_param weight = {
			.name = param_names[2 * l], .ndim = 2,
			.shape = { w[l], w[l + 1] }, .count = w[l] * w[l + 1],
		};
		struct mlp_param bias = {
			.name = param_names[2 * l + 1], .ndim = 1,
			.shape = { w[l + 1] }, .count = w[l + 1],
		};

		weight.offset = off;
		off += weight.count;
		bias.offset = off;
		off += bias.count;
		if (p) {
			p[2 * l] = weight;
			p[2 * l + 1] = bias;
		}
	}
	return off;
}

void mlp_params_init(const struct mlp_config *cfg, float *params,
		     uint64_t seed)
{
	struct mlp_param p[MLP_NUM_PARAMS];
	uint64_t rng = seed;

	mlp_params_layout(cfg, p);
	for (int l = 0; l < MLP_LAYERS; l++) {
		const struct mlp_param *w = &p[2 * l], *b = &p[2 * l + 1];
		/* Glorot: keeps tanh out of saturation at the start. */
		double limit = sqrt(6.0 / (double)(w->shape[0] + w->shape[1]));

		for (size_t i = 0; i < w->count; i++) {
			double u = (double)(mlp_rng_next(&rng) >> 11) * 0x1p-53;

			params[w->offset + i] = (float)((2 * u - 1) * limit);
		}
		memset(&params[b->offset], 0, b->count * sizeof(float));
	}
}

uint64_t mlp_checksum(const float *params, size_t n)
{
	const unsigned char *b = (const unsigned char *)params;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n * sizeof(float); i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* What the step graph reads and writes besides the variables. */
struct mlp_streams {
	ipu_stream x, y, loss, probs;
	ipu_stream grad[MLP_NUM_PARAMS];
};

static int declare_streams(struct ipu_ir *ir, const struct mlp_config *cfg,
			   enum mlp_program prog,
			   const struct mlp_param *p, struct mlp_streams *s)
{
	const uint64_t xs[2] = { cfg->batch, MLP_FEATURES };
	const uint64_t ys[2] = { cfg->batch, MLP_CLASSES };
	int ret;

	s->x = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 2, xs);
	s->y = ipu_ir_h2d_stream(ir, "y", IPU_DTYPE_FLOAT32, 2, ys);
	s->loss = ipu_ir_d2h_stream(ir, "loss", IPU_DTYPE_FLOAT32, 0, NULL);
	s->probs = ipu_ir_d2h_stream(ir, "probs", IPU_DTYPE_FLOAT32, 2, ys);
	ret = ipu_stream_error(s->x) ?: ipu_stream_error(s->y) ?:
	      ipu_stream_error(s->loss) ?: ipu_stream_error(s->probs);
	for (int i = 0; !ret && prog == MLP_GRADS && i < MLP_NUM_PARAMS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "grad.%s", p[i].name);
		s->grad[i] = ipu_ir_d2h_stream(ir, name, IPU_DTYPE_FLOAT32,
					       p[i].ndim, p[i].shape);
		ret = ipu_stream_error(s->grad[i]);
	}
	return ret;
}

/*
 * The backward pass from the logits' gradient @d to the replica-averaged
 * gradient of every parameter (@grad, in flat order). @h holds the
 * activations h0..h2, @var the parameters.
 */
static int backward(struct ipu_ir *ir, const ipu_tensor *h,
		    const ipu_tensor *var, ipu_tensor d, ipu_tensor *grad)
{
	const int batch_axis[1] = { 0 };
	ipu_tensor one = ipu_ir_scalar(ir, IPU_DTYPE_FLOAT32, 1.0);

	for (int l = MLP_LAYERS - 1; l >= 0; l--) {
		ipu_tensor hT = ipu_ir_transpose(ir, h[l], NULL, 0);

		grad[2 * l] = ipu_ir_matmul(ir, hT, d);
		grad[2 * l + 1] = ipu_ir_reduce_sum(ir, d, batch_axis, 1, false);
		if (l > 0) {
			ipu_tensor wT = ipu_ir_transpose(ir, var[2 * l], NULL, 0);
			ipu_tensor dtanh = ipu_ir_sub(ir, one,
						      ipu_ir_mul(ir, h[l], h[l]));

			d = ipu_ir_mul(ir, ipu_ir_matmul(ir, d, wT), dtanh);
		}
	}
	for (int i = 0; i < MLP_NUM_PARAMS; i++) {
		/* Each replica saw its own batch: average what they learnt. */
		grad[i] = ipu_ir_all_reduce(ir, grad[i], IPU_IR_ALL_REDUCE_MEAN,
					    NULL);
		if (ipu_tensor_error(grad[i]))
			return ipu_tensor_error(grad[i]);
	}
	return 0;
}

/* One step's ops, in the current graph. */
static int build_step(struct ipu_ir *ir, const struct mlp_config *cfg,
		      enum mlp_program prog, const struct mlp_streams *s,
		      const ipu_tensor *var)
{
	ipu_tensor h[MLP_LAYERS + 1], y, z, loss, probs, d;
	ipu_tensor grad[MLP_NUM_PARAMS];
	float inv_batch = 1.0f / (float)cfg->batch;
	int ret;

	h[0] = ipu_ir_host_load(ir, s->x, NULL);
	y = ipu_ir_host_load(ir, s->y, NULL);
	for (int l = 0; l < MLP_LAYERS; l++) {
		z = ipu_ir_add(ir, ipu_ir_matmul(ir, h[l], var[2 * l]),
			       var[2 * l + 1]);
		h[l + 1] = l + 1 < MLP_LAYERS ? ipu_ir_tanh(ir, z) : z;
	}
	/* log_softmax rather than log(softmax): no log(0) for confident
	 * mistakes. */
	loss = ipu_ir_mul(ir,
			  ipu_ir_reduce_sum(ir, ipu_ir_mul(ir, y,
				ipu_ir_log_softmax(ir, z, -1)), NULL, 0, false),
			  ipu_ir_scalar(ir, IPU_DTYPE_FLOAT32, -inv_batch));
	probs = ipu_ir_softmax(ir, z, -1);
	ret = ipu_ir_host_store(ir, s->loss, loss) ?:
	      ipu_ir_host_store(ir, s->probs, probs);
	if (ret || prog == MLP_EVAL)
		return ret;

	/* Softmax cross-entropy's gradient at the logits. */
	d = ipu_ir_mul(ir, ipu_ir_sub(ir, probs, y),
		       ipu_ir_scalar(ir, IPU_DTYPE_FLOAT32, inv_batch));
	ret = backward(ir, h, var, d, grad);
	for (int i = 0; !ret && i < MLP_NUM_PARAMS; i++)
		ret = prog == MLP_GRADS ?
			      ipu_ir_host_store(ir, s->grad[i], grad[i]) :
			      ipu_ir_scaled_add_inplace(ir, var[i], grad[i],
							1.0f, -cfg->lr);
	return ret;
}

static int check_config(const struct mlp_config *cfg, enum mlp_program prog,
			char *err, size_t errlen)
{
	if (!cfg || !cfg->hidden || !cfg->batch || !cfg->steps ||
	    !cfg->replicas || !(cfg->lr > 0)) {
		snprintf(err, errlen,
			 "mlp: hidden, batch, steps and replicas must be >= 1 and the learning rate > 0");
		return -EINVAL;
	}
	if (prog != MLP_TRAIN && prog != MLP_EVAL && prog != MLP_GRADS) {
		snprintf(err, errlen, "mlp: unknown program %d", (int)prog);
		return -EINVAL;
	}
	return 0;
}

int mlp_build(const struct mlp_config *cfg, enum mlp_program prog,
	      const float *params, struct ipu_ir **irp, char *err,
	      size_t errlen)
{
	static const char *const prog_names[] = {
		[MLP_TRAIN] = "mlp_train", [MLP_EVAL] = "mlp_eval",
		[MLP_GRADS] = "mlp_grads",
	};
	struct mlp_param p[MLP_NUM_PARAMS];
	ipu_tensor var[MLP_NUM_PARAMS];
	struct mlp_streams s;
	struct ipu_ir *ir;
	ipu_graph step;
	int ret, popped;

	ret = check_config(cfg, prog, err, errlen);
	if (ret)
		return ret;
	ret = ipu_ir_create(prog_names[prog], &ir);
	if (ret) {
		snprintf(err, errlen, "mlp: ipu_ir_create: %s", strerror(-ret));
		return ret;
	}
	mlp_params_layout(cfg, p);
	ret = ipu_ir_set_num_host_transfers(ir, cfg->steps) ?:
	      ipu_ir_set_replication_factor(ir, cfg->replicas) ?:
	      (cfg->instance_replicas ?
		       ipu_ir_set_instance_replication_factor(
			       ir, cfg->instance_replicas) :
		       0) ?:
	      declare_streams(ir, cfg, prog, p, &s);
	for (int i = 0; !ret && i < MLP_NUM_PARAMS; i++) {
		var[i] = ipu_ir_variable(ir, p[i].name, IPU_DTYPE_FLOAT32,
					 p[i].ndim, p[i].shape,
					 params ? params + p[i].offset : NULL,
					 NULL);
		ret = ipu_tensor_error(var[i]);
	}
	/* The step is a subgraph repeated once per host transfer, as PopXL
	 * writes a training loop: no carried values, state is in variables. */
	step = ipu_ir_create_graph(ir, "step");
	ret = ret ?: ipu_graph_error(step) ?: ipu_ir_push_graph(ir, step);
	if (!ret) {
		ret = build_step(ir, cfg, prog, &s, var);
		/* Pop even after a failure; the first error is the one. */
		popped = ipu_ir_pop_graph(ir);
		ret = ret ?: popped;
	}
	ret = ret ?: ipu_ir_repeat(ir, step, cfg->steps, NULL, 0, NULL, 0);
	if (ret) {
		snprintf(err, errlen, "mlp: building %s: %s", prog_names[prog],
			 ipu_ir_errmsg(ir));
		ipu_ir_destroy(ir);
		return ret;
	}
	*irp = ir;
	return 0;
}
