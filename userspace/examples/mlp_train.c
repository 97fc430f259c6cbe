// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * mlp_train.c - the demo (`make demo`): train a small multi-layer
 * perceptron with SGD on IPUs to tell apart three interleaved spirals.
 *
 * Two replicas each take their own batch, average their gradients with an
 * all-reduce and apply the same update, 8 steps per run (one launch, 8
 * host transfers per stream). Prints the loss and the accuracy of every
 * epoch, the accuracy on held-out points, and a checksum of the final
 * weights: the executor is deterministic, so the same seed gives the same
 * checksum on every backend of one machine. Not across machines: float32
 * matmuls go to OpenBLAS, which picks its kernels (summation order, FMA)
 * for the CPU it runs on, so the demo prints which core it picked.
 *
 *	mlp_train [--epochs N] [--device auto|ipu_model|cpu|ipu_hw]
 *		  [--replicas N] [--instance-replicas N] [--seed N]
 *
 * --instance-replicas N splits the replicas across instances of N each
 * (docs/instances.md): the process must then be an instance, which
 * tests/mpi/mpi_main.c makes it under mpirun (libipu-mpi), and it trains
 * its replicas only; every instance ends with the same weights.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>

#include "ipu/firmware.h"
#include "ipu/ipu.h"
#include "mlp.h"

#define POINTS_PER_CLASS 256

struct options {
	unsigned long epochs;
	unsigned long replicas;
	unsigned long instance_replicas; /* 0: one instance */
	unsigned long long seed;
	const char *device;
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--epochs N] [--device DEVICE] [--replicas N]\n"
		"          [--instance-replicas N] [--seed N]\n"
		"\n"
		"Train a 2-16-16-3 tanh MLP with SGD on a 3-class spiral data set,\n"
		"data-parallel over replicas that all-reduce their gradients.\n"
		"\n"
		"  --epochs N     passes over the training set (default 30)\n"
		"  --device D     auto (default: hardware if present, else the model),\n"
		"                 ipu_model, cpu (one IPU: needs --replicas 1) or ipu_hw\n"
		"  --replicas N   data-parallel replicas (default 2)\n"
		"  --instance-replicas N  replicas of each instance of a run split\n"
		"                 across instances (under mpirun, docs/instances.md)\n"
		"  --seed N       data, initial weights and shuffling (default 1)\n"
		"  --help         this text\n",
		prog);
}

/* A whole decimal number in [min, max] for option --@name, or -1 with a
 * message. */
static int parse_number(const char *prog, const char *name, const char *s,
			unsigned long long min, unsigned long long max,
			unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || errno || *end || v < min || v > max) {
		fprintf(stderr, "%s: --%s: '%s' is not a number from %llu to %llu\n",
			prog, name, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* 0 to run, 1 after --help, -1 for a usage error (reported). */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "epochs", required_argument, NULL, 'e' },
		{ "device", required_argument, NULL, 'd' },
		{ "replicas", required_argument, NULL, 'r' },
		{ "instance-replicas", required_argument, NULL, 'i' },
		{ "seed", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned long long v;
	int c;

	*o = (struct options){ .epochs = 30, .replicas = 2, .seed = 1,
			       .device = "auto" };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (parse_number(argv[0], "epochs", optarg, 1, 100000, &v))
				return -1;
			o->epochs = v;
			break;
		case 'r':
			if (parse_number(argv[0], "replicas", optarg, 1, 64, &v))
				return -1;
			o->replicas = v;
			break;
		case 'i':
			if (parse_number(argv[0], "instance-replicas", optarg,
					 1, 64, &v))
				return -1;
			o->instance_replicas = v;
			break;
		case 's':
			if (parse_number(argv[0], "seed", optarg, 0, UINT64_MAX,
					 &v))
				return -1;
			o->seed = v;
			break;
		case 'd':
			o->device = optarg;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 1;
		default:
			usage(stderr, argv[0]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0],
			argv[optind]);
		return -1;
	}
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct demo {
	struct options opt;
	struct mlp_config cfg;
	struct mlp_data train, test;
	size_t *order;
	float *params;
	size_t nparams;
	uint64_t rng;
};

/* A session of @prog holding the current weights, attached. */
static int open_session(struct demo *dm, enum mlp_program prog,
			struct mlp_session **ms)
{
	char err[1024];
	int ret = mlp_session_open(&dm->cfg, prog, dm->params, dm->opt.device,
				   ms, err, sizeof(err));

	if (ret)
		fprintf(stderr, "mlp_train: %s\n", err);
	return ret;
}

static int train(struct demo *dm)
{
	struct mlp_session *ms;
	double start = now_ms();
	int ret;

	ret = open_session(dm, MLP_TRAIN, &ms);
	if (ret)
		return ret;
	printf("device: %s, %u replicas averaging their gradients (all-reduce mean),\n"
	       "        %u SGD steps per run of %u samples per replica\n\n",
	       mlp_session_device(ms), dm->cfg.replicas, dm->cfg.steps,
	       dm->cfg.batch);
	printf("epoch    loss   accuracy      time\n");
	for (unsigned long e = 1; e <= dm->opt.epochs; e++) {
		struct mlp_stats st = { 0 };
		double t0 = now_ms();

		mlp_shuffle(dm->order, dm->train.n, &dm->rng);
		ret = mlp_session_run_all(ms, &dm->train, dm->order, &st);
		if (ret)
			break;
		printf("%5lu  %6.4f    %5.1f %%  %6.1f ms\n", e,
		       st.loss_sum / (double)st.loss_count,
		       100.0 * (double)st.correct / (double)st.seen,
		       now_ms() - t0);
		fflush(stdout);
	}
	ret = ret ?: mlp_session_get_params(ms, dm->params);
	if (ret)
		fprintf(stderr, "mlp_train: %s\n", mlp_session_errmsg(ms));
	else
		printf("trained in %.0f ms\n", now_ms() - start);
	mlp_session_close(ms);
	return ret;
}

static int evaluate(struct demo *dm)
{
	struct mlp_stats st = { 0 };
	struct mlp_session *ms;
	int ret;

	ret = open_session(dm, MLP_EVAL, &ms);
	if (ret)
		return ret;
	for (size_t i = 0; i < dm->test.n; i++)
		dm->order[i] = i;
	ret = mlp_session_run_all(ms, &dm->test, dm->order, &st);
	if (ret)
		fprintf(stderr, "mlp_train: %s\n", mlp_session_errmsg(ms));
	else
		printf("test: loss %.4f, accuracy %.1f %% on %zu held-out points\n",
		       st.loss_sum / (double)st.loss_count,
		       100.0 * (double)st.correct / (double)st.seen, st.seen);
	mlp_session_close(ms);
	return ret;
}

static int setup(struct demo *dm)
{
	uint64_t seeds = dm->opt.seed;
	int ret;

	mlp_config_default(&dm->cfg);
	dm->cfg.replicas = (uint32_t)dm->opt.replicas;
	/* Which instance this process is: the session refuses the program
	 * if it is none, or not one of the split asked for. */
	dm->cfg.instance_replicas = (uint32_t)dm->opt.instance_replicas;
	dm->cfg.instance = ipu_model_instances() ?
				   ipu_model_instances()->index : 0;
	/* Independent streams for the two data sets, the weights and the
	 * shuffling, all from the one seed. */
	ret = mlp_data_spiral(&dm->train, POINTS_PER_CLASS, mlp_rng_next(&seeds));
	ret = ret ?: mlp_data_spiral(&dm->test, POINTS_PER_CLASS,
				     mlp_rng_next(&seeds));
	if (ret)
		return ret;
	dm->nparams = mlp_params_layout(&dm->cfg, NULL);
	dm->params = malloc(dm->nparams * sizeof(*dm->params));
	/* One index array serves both sets, so room for the larger. */
	dm->order = malloc((dm->train.n > dm->test.n ? dm->train.n :
						       dm->test.n) *
			   sizeof(*dm->order));
	if (!dm->params || !dm->order)
		return -ENOMEM;
	mlp_params_init(&dm->cfg, dm->params, mlp_rng_next(&seeds));
	dm->rng = mlp_rng_next(&seeds);
	for (size_t i = 0; i < dm->train.n; i++)
		dm->order[i] = i;
	return 0;
}

int main(int argc, char **argv)
{
	struct demo dm = { 0 };
	int ret;

	ret = parse_options(argc, argv, &dm.opt);
	if (ret)
		return ret > 0 ? 0 : 2;
	ret = setup(&dm);
	if (ret) {
		fprintf(stderr, "mlp_train: setting up: %s\n", strerror(-ret));
	} else {
		printf("MLP demo: 3 interleaved spirals, %zu training and %zu test points, seed %llu\n"
		       "network: %d -> %u -> %u -> %d, tanh, softmax cross-entropy, SGD with learning rate %g\n",
		       dm.train.n, dm.test.n, dm.opt.seed, MLP_FEATURES,
		       dm.cfg.hidden, dm.cfg.hidden, MLP_CLASSES,
		       (double)dm.cfg.lr);
		ret = train(&dm) ?: evaluate(&dm);
	}
	if (!ret) {
		printf("weights checksum (FNV-1a 64): %016" PRIx64 "\n",
		       mlp_checksum(dm.params, dm.nparams));
		/* The model's matmuls run in this process, and ipu-simd on
		 * the same machine picks the same core. */
		printf("OpenBLAS core: %s (%s)\n"
		       "the checksum is this machine's: OpenBLAS picks its kernels per CPU, so another CPU\n"
		       "may give other bits; every backend on one machine gives the same\n",
		       openblas_get_corename(), openblas_get_config());
	}
	mlp_data_free(&dm.train);
	mlp_data_free(&dm.test);
	free(dm.order);
	free(dm.params);
	return ret ? 1 : 0;
}
