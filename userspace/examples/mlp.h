/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * mlp.h - the demo's multi-layer perceptron: a synthetic data set, the IR
 * programs that train and evaluate the network on IPUs, and a small wrapper
 * around a libsession session that feeds them. mlp_train.c (the demo) and
 * tests/unit/test_demo_mlp.c (gradient check, convergence) share it.
 *
 * The network: 2 inputs -> hidden -> hidden -> 3 classes, tanh after each
 * hidden layer, softmax cross-entropy loss averaged over the batch. Its
 * parameters are six float32 variables, w1 [2, H], b1 [H], w2 [H, H],
 * b2 [H], w3 [H, 3], b3 [3], stored on the host back to back in that order
 * (the "flat" layout of mlp_params_layout()).
 *
 * The programs run `steps` iterations per run (num_host_transfers) on
 * `replicas` data-parallel replicas; each iteration of each replica loads
 * `batch` samples. Streams (names are what the session sees):
 *	x      h2d float32 [batch, 2]  inputs
 *	y      h2d float32 [batch, 3]  one-hot labels (no comparison op on
 *	                               the device, so the host encodes them)
 *	loss   d2h float32 []          the replica's batch-mean loss
 *	probs  d2h float32 [batch, 3]  softmax of the logits
 *	grad.<param>  (MLP_GRADS only) the replica-averaged gradients
 *
 * Errors: functions return 0 or a negative errno and leave a message in the
 * caller's buffer or the session wrapper's (mlp_session_errmsg()).
 */
#ifndef IPU_EXAMPLES_MLP_H
#define IPU_EXAMPLES_MLP_H

#include <stddef.h>
#include <stdint.h>

#include "ipu/ir.h"

#define MLP_FEATURES	2	/* inputs per sample: a point in the plane */
#define MLP_CLASSES	3	/* spiral arms */
#define MLP_LAYERS	3	/* weight layers: two hidden, one output */
#define MLP_NUM_PARAMS	(2 * MLP_LAYERS)

/**
 * struct mlp_config - the network and how it is trained.
 * @hidden: units of each hidden layer (>= 1).
 * @batch: samples per replica per step (>= 1).
 * @steps: SGD steps per run, the program's num_host_transfers (>= 1).
 * @replicas: data-parallel replicas (>= 1); each sees its own batch and
 *	the gradients are averaged across them (all-reduce mean).
 * @lr: SGD learning rate (> 0).
 * @instance_replicas: 0 (one instance), or the replicas of each instance
 *	of a program split across instances (docs/instances.md), dividing
 *	@replicas; this process is then instance @instance and feeds only
 *	its replicas' samples (and counts only their losses).
 */
struct mlp_config {
	uint32_t hidden;
	uint32_t batch;
	uint32_t steps;
	uint32_t replicas;
	float lr;
	uint32_t instance_replicas;
	uint32_t instance;
};

/** mlp_config_default() - the demo's settings: 16 hidden units, batches of
 * 16, 8 steps per run, 2 replicas, learning rate 0.5. */
void mlp_config_default(struct mlp_config *cfg);

/** mlp_samples_per_run() - samples one run consumes: steps * replicas *
 * batch. */
size_t mlp_samples_per_run(const struct mlp_config *cfg);

/* Which program mlp_build() makes. */
enum mlp_program {
	MLP_TRAIN,	/* forward, backward, all-reduce, SGD update */
	MLP_EVAL,	/* forward only: loss and probs */
	MLP_GRADS,	/* forward and backward; streams the gradients out
			 * instead of applying them */
};

/**
 * struct mlp_param - where one parameter lives in the flat layout.
 * @name: the variable's name ("w1", "b1", ...); "grad.<name>" is its
 *	gradient stream in MLP_GRADS programs.
 * @ndim, @shape: its shape (1 or 2 dimensions).
 * @count: its elements.
 * @offset: index of its first element in the flat array.
 */
struct mlp_param {
	const char *name;
	uint32_t ndim;
	uint64_t shape[2];
	size_t count;
	size_t offset;
};

/**
 * mlp_params_layout() - describe the parameters of @cfg's network.
 * @p: out: MLP_NUM_PARAMS entries, in flat order; may be NULL.
 *
 * Return: the number of floats of the flat array.
 */
size_t mlp_params_layout(const struct mlp_config *cfg,
			 struct mlp_param p[MLP_NUM_PARAMS]);

/**
 * mlp_params_init() - Glorot-uniform weights and zero biases, from @seed.
 * @params: out: mlp_params_layout() floats.
 */
void mlp_params_init(const struct mlp_config *cfg, float *params,
		     uint64_t seed);

/**
 * mlp_checksum() - FNV-1a (64-bit) of the bytes of @n floats: identical
 * weights give identical checksums, so runs on different backends or
 * machines can be compared at a glance.
 */
uint64_t mlp_checksum(const float *params, size_t n);

/**
 * mlp_build() - an IR holding @prog for @cfg's network.
 * @params: initial values of the variables, flat; NULL for zeros.
 * @irp: out: the ir; the caller owns it (ipu_session_create() takes it).
 * @err, @errlen: out: a message on failure.
 *
 * Return: 0; -EINVAL for a bad @cfg or @prog (or a builder error, whose
 * message is copied); -ENOMEM.
 */
int mlp_build(const struct mlp_config *cfg, enum mlp_program prog,
	      const float *params, struct ipu_ir **irp, char *err,
	      size_t errlen);

/* ---------------------------------------------------------------------- */
/* The data set                                                            */
/* ---------------------------------------------------------------------- */

/**
 * struct mlp_data - a labelled data set.
 * @n: samples.
 * @x: @n * MLP_FEATURES coordinates, sample-major.
 * @label: @n class indices (< MLP_CLASSES).
 */
struct mlp_data {
	size_t n;
	float *x;
	uint8_t *label;
};

/**
 * mlp_data_spiral() - MLP_CLASSES interleaved spiral arms of @per_class
 * points each, one full turn from radius 0.1 to 2, with Gaussian angular
 * noise; deterministic for a given @seed. Not linearly separable, so the
 * hidden layers are needed.
 *
 * Return: 0; -EINVAL for @per_class 0; -ENOMEM. Free with mlp_data_free().
 */
int mlp_data_spiral(struct mlp_data *d, size_t per_class, uint64_t seed);

/** mlp_data_free() - release @d's arrays (and zero it). */
void mlp_data_free(struct mlp_data *d);

/**
 * mlp_rng_next() - the next 64 random bits of the generator whose state
 * is *@state (splitmix64: tiny, fast, and the same on every platform).
 */
uint64_t mlp_rng_next(uint64_t *state);

/** mlp_shuffle() - a uniformly random permutation of @idx[0..@n). */
void mlp_shuffle(size_t *idx, size_t n, uint64_t *state);

/* ---------------------------------------------------------------------- */
/* Running a program                                                       */
/* ---------------------------------------------------------------------- */

struct mlp_session;

/**
 * struct mlp_stats - totals over runs; add up as many runs as wanted.
 * @loss_sum: sum of the per-replica, per-step batch-mean losses.
 * @loss_count: how many were summed; loss_sum / loss_count is the mean
 *	loss per sample (every batch has the same size).
 * @correct: samples whose largest probability was their class.
 * @seen: samples.
 */
struct mlp_stats {
	double loss_sum;
	size_t loss_count;
	size_t correct;
	size_t seen;
};

/**
 * mlp_session_open() - build @prog, create a session on @device and attach
 * (which writes @params to the device).
 * @device: "auto", "ipu_model", "cpu" or "ipu_hw"; NULL is "auto".
 * @msp: out: free with mlp_session_close().
 * @err, @errlen: out: libsession's or the builder's message on failure.
 *
 * Return: 0; errors of mlp_build(), ipu_session_create() and
 * ipu_session_attach(); -ENOMEM.
 */
int mlp_session_open(const struct mlp_config *cfg, enum mlp_program prog,
		     const float *params, const char *device,
		     struct mlp_session **msp, char *err, size_t errlen);

/**
 * mlp_session_close() - detach (weights back to the host) and free. NULL
 * is a no-op.
 */
void mlp_session_close(struct mlp_session *ms);

/** mlp_session_errmsg() - message of the last failed call on @ms. */
const char *mlp_session_errmsg(const struct mlp_session *ms);

/** mlp_session_device() - the device the session runs on ("ipu_model",
 * ...: what "auto" resolved to). */
const char *mlp_session_device(const struct mlp_session *ms);

/**
 * mlp_session_run() - one run over mlp_samples_per_run() samples of @d:
 * sample @idx[i] goes to step i / (replicas * batch), replica
 * (i / batch) % replicas. Adds the run's losses and predictions to @st.
 * An instance of a split program (@instance_replicas) feeds only its
 * replicas' samples and adds only their losses and predictions.
 *
 * Return: 0; -EINVAL for an index or label out of range; errors of
 * ipu_session_run_with_outputs().
 */
int mlp_session_run(struct mlp_session *ms, const struct mlp_data *d,
		    const size_t *idx, struct mlp_stats *st);

/**
 * mlp_session_run_all() - an epoch: mlp_session_run() over @order[0..@d->n)
 * one run's worth at a time; a remainder smaller than a run is left out
 * (as a data loader's drop_last does).
 */
int mlp_session_run_all(struct mlp_session *ms, const struct mlp_data *d,
			const size_t *order, struct mlp_stats *st);

/**
 * mlp_session_get_params() / mlp_session_set_params() - the variables'
 * current values from the device, or new values to it, flat.
 */
int mlp_session_get_params(struct mlp_session *ms, float *params);
int mlp_session_set_params(struct mlp_session *ms, const float *params);

/**
 * mlp_session_get_grads() - MLP_GRADS programs: the gradients of the last
 * run's first step, averaged over the replicas, flat.
 *
 * Return: 0; -EINVAL for another program.
 */
int mlp_session_get_grads(const struct mlp_session *ms, float *grads);

#endif /* IPU_EXAMPLES_MLP_H */
