// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * make_example_exe - write a small executable for ipu-run to run (the
 * tests use it; ipu-run itself does not compile):
 *
 *	y = relu(x @ w + b)	x [4, 3] in, w [3, 5], b [5] variables, y [4, 5] out
 *
 * repeated over --steps host transfers on --replicas replicas, in --dtype
 * (float32, float16 or bfloat16). --weights PREFIX also writes w and b as
 * PREFIX-w.npy and PREFIX-b.npy (float32, the exact values the program
 * holds), so that a NumPy reference can be computed. --mmap-weights FILE
 * makes w a memory-mapped variable (S22) whose values are in FILE (named
 * relative to the data directory the runner grants, ipu-run --data-dir):
 * the raw elements of w in its dtype, C order. --mean-x feeds the mean
 * of every replica's x instead of x (an all-reduce), and
 * --instance-replicas K splits the program into R / K instances
 * (docs/instances.md), for ipu-run under mpirun.
 *
 *	make_example_exe [--steps D] [--replicas R] [--dtype T]
 *			 [--weights PREFIX] [--mmap-weights FILE]
 *			 [--mean-x] [--instance-replicas K] OUT.ipux
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tools/npy.h"
#include "ipu/exe.h"
#include "ipu/ir.h"

#define ROWS 4
#define IN 3
#define OUT 5

struct options {
	unsigned long steps, replicas, instance_replicas;
	bool mean_x;
	enum ipu_dtype dtype;
	const char *weights, *mmap_weights, *out;
};

/* The weights, rounded to @dt and back to float32. */
static void weights(enum ipu_dtype dt, float *w, float *b)
{
	for (int i = 0; i < IN * OUT; i++)
		w[i] = 0.8f * sinf((float)i + 1.0f);
	for (int j = 0; j < OUT; j++)
		b[j] = 0.1f * (float)j - 0.2f;
	if (dt != IPU_DTYPE_FLOAT32) {
		uint16_t tmp[IN * OUT];

		ipu_dtype_convert(tmp, dt, w, IPU_DTYPE_FLOAT32, IN * OUT);
		ipu_dtype_convert(w, IPU_DTYPE_FLOAT32, tmp, dt, IN * OUT);
		ipu_dtype_convert(tmp, dt, b, IPU_DTYPE_FLOAT32, OUT);
		ipu_dtype_convert(b, IPU_DTYPE_FLOAT32, tmp, dt, OUT);
	}
}

static int build(const struct options *o, const float *w, const float *b,
		 struct ipu_exe **exep, char *err, size_t errlen)
{
	static const uint64_t xs[2] = { ROWS, IN }, ws[2] = { IN, OUT },
			      ys[2] = { ROWS, OUT }, bs[1] = { OUT };
	/* Initial data in the program's dtype (at most 4 bytes an element). */
	uint32_t wd[IN * OUT], bd[OUT];
	struct ipu_ir *ir;
	ipu_tensor W, B, y;
	ipu_stream xin, yout;
	ipu_graph step;
	int ret;

	ret = ipu_ir_create("relu_linear", &ir);
	if (ret) {
		snprintf(err, errlen, "ipu_ir_create: %s", strerror(-ret));
		return ret;
	}
	ipu_dtype_convert(wd, o->dtype, w, IPU_DTYPE_FLOAT32, IN * OUT);
	ipu_dtype_convert(bd, o->dtype, b, IPU_DTYPE_FLOAT32, OUT);
	ret = ipu_ir_set_num_host_transfers(ir, (uint32_t)o->steps);
	if (!ret)
		ret = ipu_ir_set_replication_factor(ir, (uint32_t)o->replicas);
	if (!ret && o->instance_replicas)
		ret = ipu_ir_set_instance_replication_factor(
			ir, (uint32_t)o->instance_replicas);
	xin = ipu_ir_h2d_stream(ir, "x", o->dtype, 2, xs);
	yout = ipu_ir_d2h_stream(ir, "y", o->dtype, 2, ys);
	{
		IPU_OPTS(ipu_ir_variable_opts, wopts,
			 .mmap_path = o->mmap_weights);

		W = ipu_ir_variable(ir, "w", o->dtype, 2, ws,
				    o->mmap_weights ? NULL : wd, &wopts);
	}
	B = ipu_ir_variable(ir, "b", o->dtype, 1, bs, bd, NULL);
	step = ipu_ir_create_graph(ir, "step");
	if (!ret)
		ret = ipu_ir_push_graph(ir, step);
	if (!ret) {
		ipu_tensor x = ipu_ir_host_load(ir, xin, NULL);

		if (o->mean_x)
			x = ipu_ir_all_reduce(ir, x, IPU_IR_ALL_REDUCE_MEAN,
					      NULL);
		y = ipu_ir_relu(ir, ipu_ir_add(ir, ipu_ir_matmul(ir, x, W),
					       B));
		ret = ipu_ir_host_store(ir, yout, y);
		if (!ipu_ir_pop_graph(ir) && !ret)
			ret = ipu_ir_repeat(ir, step, o->steps, NULL, 0, NULL, 0);
	}
	if (!ret)
		ret = ipu_ir_compile(ir, exep);
	if (ret)
		snprintf(err, errlen, "%s", ipu_ir_errmsg(ir));
	ipu_ir_destroy(ir);
	return ret;
}

static int save_weights(const char *prefix, const float *w, const float *b,
			char *err, size_t errlen)
{
	struct npy_array aw = { .dtype = IPU_DTYPE_FLOAT32, .ndim = 2,
				.shape = { IN, OUT }, .count = IN * OUT,
				.data = (void *)w };
	struct npy_array ab = { .dtype = IPU_DTYPE_FLOAT32, .ndim = 1,
				.shape = { OUT }, .count = OUT,
				.data = (void *)b };
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s-w.npy", prefix);
	ret = npy_write_file(path, &aw, err, errlen);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s-b.npy", prefix);
	return npy_write_file(path, &ab, err, errlen);
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "steps", required_argument, NULL, 's' },
		{ "replicas", required_argument, NULL, 'r' },
		{ "dtype", required_argument, NULL, 't' },
		{ "weights", required_argument, NULL, 'w' },
		{ "mmap-weights", required_argument, NULL, 'm' },
		{ "mean-x", no_argument, NULL, 'x' },
		{ "instance-replicas", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	*o = (struct options){ .steps = 1, .replicas = 1,
			       .dtype = IPU_DTYPE_FLOAT32 };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		unsigned long *n = c == 's' ? &o->steps :
				   c == 'k' ? &o->instance_replicas :
					      &o->replicas;

		switch (c) {
		case 's':
		case 'r':
		case 'k':
			*n = strtoul(optarg, &end, 10);
			if (*end || *n < 1 || *n > 64)
				return -1;
			break;
		case 't':
			o->dtype = ipu_dtype_from_name(optarg);
			if (o->dtype != IPU_DTYPE_FLOAT32 &&
			    o->dtype != IPU_DTYPE_FLOAT16 &&
			    o->dtype != IPU_DTYPE_BFLOAT16)
				return -1;
			break;
		case 'w':
			o->weights = optarg;
			break;
		case 'm':
			o->mmap_weights = optarg;
			break;
		case 'x':
			o->mean_x = true;
			break;
		default:
			return -1;
		}
	}
	if (optind != argc - 1)
		return -1;
	o->out = argv[optind];
	return 0;
}

int main(int argc, char **argv)
{
	float w[IN * OUT], b[OUT];
	struct options o;
	struct ipu_exe *exe;
	char err[1024];
	int ret;

	if (parse_options(argc, argv, &o)) {
		fprintf(stderr,
			"usage: %s [--steps 1-64] [--replicas 1-64] [--dtype float32|float16|bfloat16]\n"
			"       [--weights PREFIX] [--mmap-weights FILE] [--mean-x]\n"
			"       [--instance-replicas 1-64] OUT.ipux\n",
			argv[0]);
		return 2;
	}
	weights(o.dtype, w, b);
	ret = build(&o, w, b, &exe, err, sizeof(err));
	if (!ret) {
		ret = ipu_exe_write_file(exe, o.out, err, sizeof(err));
		ipu_exe_free(exe);
	}
	if (!ret && o.weights)
		ret = save_weights(o.weights, w, b, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	return 0;
}
