/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * exe_samples.h - helpers shared by the executable and IR tests and the
 * fuzzer's corpus generator: small sample programs built with the IR, and
 * re-sealing a file's CRCs after a deliberate corruption (so that the
 * corruption reaches the checks behind the checksums).
 *
 * Header-only (static inline) because the unit tests are one source file
 * each. No test framework here: failures come back as NULL or -errno.
 */
#ifndef IPU_TESTS_EXE_SAMPLES_H
#define IPU_TESTS_EXE_SAMPLES_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ipu/exe.h"
#include "ipu/ir.h"

/* Recompute the CRC of every blob that lies inside @buf, then the
 * descriptors' CRC; leaves what cannot be parsed alone. */
static inline void exe_refresh_crcs(uint8_t *buf, size_t len)
{
	struct ipu_exe_file_header h;
	size_t dlen;

	if (len < sizeof(h))
		return;
	memcpy(&h, buf, sizeof(h));
	if (h.num_blobs > (len - sizeof(h)) / sizeof(struct ipu_exe_blob_desc))
		return;
	dlen = (size_t)h.num_blobs * sizeof(struct ipu_exe_blob_desc);
	for (uint32_t i = 0; i < h.num_blobs; i++) {
		struct ipu_exe_blob_desc d;
		uint8_t *at = buf + sizeof(h) + i * sizeof(d);

		memcpy(&d, at, sizeof(d));
		if (d.offset > len || d.size > len - d.offset)
			continue;
		d.crc32 = (uint32_t)crc32(0L, buf + d.offset, (uInt)d.size);
		memcpy(at, &d, sizeof(d));
	}
	h.desc_crc32 = (uint32_t)crc32(0L, buf + sizeof(h), (uInt)dlen);
	memcpy(buf, &h, sizeof(h));
}

/*
 * exe_resave_matches() - save @e, load that, save again: the two files
 * must be the same bytes (and everything must succeed).
 * Return: 0; -EILSEQ when the bytes differ; else the failing call's error
 * with its message in @msg.
 */
static inline int exe_resave_matches(const struct ipu_exe *e, char *msg,
				     size_t len)
{
	struct ipu_exe *again = NULL;
	void *b1 = NULL, *b2 = NULL;
	size_t n1 = 0, n2 = 0;
	int ret = ipu_exe_save(e, &b1, &n1, msg, len);

	if (!ret)
		ret = ipu_exe_load(b1, n1, &again, msg, len);
	if (!ret)
		ret = ipu_exe_save(again, &b2, &n2, msg, len);
	if (!ret && (n1 != n2 || memcmp(b1, b2, n1))) {
		snprintf(msg, len, "save, load, save changed the bytes");
		ret = -EILSEQ;
	}
	free(b1);
	free(b2);
	ipu_exe_free(again);
	return ret;
}

/* Sample programs. */
enum exe_sample {
	SAMPLE_MLP,		/* h2d x -> matmul, gelu, softmax -> d2h */
	SAMPLE_TRAIN,		/* SGD steps in a repeat, replicated, grouped */
	SAMPLE_CALLS,		/* nested calls and repeats with carried values */
	SAMPLE_ALL_OPS,		/* every op kind once */
	SAMPLE_MMAP,		/* mapped and grouped variables, all_replicas */
	SAMPLE_COUNT_
};

static inline uint64_t *exe_sample_shape_(uint64_t *s, uint64_t a, uint64_t b)
{
	s[0] = a;
	s[1] = b;
	return s;
}

static inline int exe_sample_mlp_(struct ipu_ir *ir)
{
	static const float w[12] = { 0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f,
				     0.7f, 0.8f, -0.9f, 1.0f, 1.1f, -1.2f };
	uint64_t s[2];
	ipu_stream in = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 2,
					  exe_sample_shape_(s, 2, 4));
	ipu_stream out = ipu_ir_d2h_stream(ir, "probs", IPU_DTYPE_FLOAT32, 2,
					   exe_sample_shape_(s, 2, 3));
	ipu_tensor W = ipu_ir_variable(ir, "w", IPU_DTYPE_FLOAT32, 2,
				       exe_sample_shape_(s, 4, 3), w, NULL);
	ipu_tensor x = ipu_ir_host_load(ir, in, NULL);
	ipu_tensor h = ipu_ir_gelu(ir, ipu_ir_matmul(ir, x, W));

	return ipu_ir_host_store(ir, out, ipu_ir_softmax(ir, h, -1));
}

static inline int exe_sample_train_(struct ipu_ir *ir)
{
	struct ipu_replica_grouping pairs;
	uint64_t s[2];
	ipu_graph step = ipu_ir_create_graph(ir, "step");
	ipu_stream in, out;
	ipu_tensor w, x, loss, g, outs[1];
	int ret;

	ipu_ir_set_replication_factor(ir, 4);
	ipu_ir_set_num_host_transfers(ir, 3);
	ret = ipu_ir_replica_grouping(ir, 1, 2, &pairs);
	if (ret)
		return ret;
	in = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 1,
			       exe_sample_shape_(s, 4, 0));
	out = ipu_ir_d2h_stream(ir, "loss", IPU_DTYPE_FLOAT32, 0, NULL);
	w = ipu_ir_variable(ir, "w", IPU_DTYPE_FLOAT32, 1,
			    exe_sample_shape_(s, 4, 0), NULL, NULL);
	ipu_ir_push_graph(ir, step);
	x = ipu_ir_host_load(ir, in, NULL);
	g = ipu_ir_all_reduce(ir, ipu_ir_sub(ir, w, x), IPU_IR_ALL_REDUCE_MEAN,
			      &pairs);
	ipu_ir_scaled_add_inplace(ir, w, g, 1.0f, -0.5f);
	loss = ipu_ir_reduce_sum(ir, ipu_ir_mul(ir, g, g), NULL, 0, false);
	ipu_ir_host_store(ir, out, loss);
	ipu_ir_pop_graph(ir);
	return ipu_ir_repeat(ir, step, 3, NULL, 0, outs, 0);
}

static inline int exe_sample_calls_(struct ipu_ir *ir)
{
	uint64_t s[2];
	ipu_graph inc = ipu_ir_create_graph(ir, "inc");
	ipu_graph twice = ipu_ir_create_graph(ir, "twice");
	ipu_stream out = ipu_ir_d2h_stream(ir, "acc", IPU_DTYPE_INT32, 1,
					   exe_sample_shape_(s, 2, 0));
	ipu_tensor a, b, o[2], start[2];
	static const int32_t one[2] = { 1, 1 }, zero[2] = { 0, 0 };
	int ret;

	/* inc(a, b) = (b, a + b): Fibonacci, with the carried pair swapped. */
	ipu_ir_push_graph(ir, inc);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_INT32, 1, s);
	b = ipu_ir_graph_input(ir, "b", IPU_DTYPE_INT32, 1, s);
	ipu_ir_graph_output(ir, b);
	ipu_ir_graph_output(ir, ipu_ir_add(ir, a, b));
	ipu_ir_pop_graph(ir);
	/* twice(a, b) = inc(inc(a, b)) */
	ipu_ir_push_graph(ir, twice);
	a = ipu_ir_graph_input(ir, "a", IPU_DTYPE_INT32, 1, s);
	b = ipu_ir_graph_input(ir, "b", IPU_DTYPE_INT32, 1, s);
	start[0] = a;
	start[1] = b;
	ipu_ir_call(ir, inc, start, 2, o, 2);
	ipu_ir_call(ir, inc, o, 2, o, 2);
	ipu_ir_graph_output(ir, o[0]);
	ipu_ir_graph_output(ir, o[1]);
	ipu_ir_pop_graph(ir);
	start[0] = ipu_ir_constant(ir, "zero", IPU_DTYPE_INT32, 1, s, zero);
	start[1] = ipu_ir_constant(ir, "one", IPU_DTYPE_INT32, 1, s, one);
	ret = ipu_ir_repeat(ir, twice, 5, start, 2, o, 2);
	return ret ? ret : ipu_ir_host_store(ir, out, o[1]);
}

static inline int exe_sample_all_ops_(struct ipu_ir *ir)
{
	static const float data[24] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
					1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	uint64_t s[3] = { 2, 3, 4 };
	int perm[3] = { 2, 0, 1 }, swap[3] = { 0, -1, -2 };
	int64_t start[1] = { 1 }, stop[1] = { 4 }, step[1] = { 2 };
	int64_t rs[2] = { 4, -1 };
	int axes[1] = { 1 };
	ipu_tensor x = ipu_ir_constant(ir, "x", IPU_DTYPE_FLOAT32, 3, s, data);
	ipu_tensor v = ipu_ir_variable(ir, "v", IPU_DTYPE_FLOAT32, 3, s, data,
				       NULL);
	ipu_tensor t[8], y;
	uint64_t s2[2] = { 12, 4 };
	ipu_stream out = ipu_ir_d2h_stream(ir, "y", IPU_DTYPE_FLOAT32, 2, s2);

	t[0] = ipu_ir_div(ir, ipu_ir_mul(ir, ipu_ir_sub(ir, ipu_ir_add(ir, x, v), x), v), x);
	t[1] = ipu_ir_sqrt(ir, ipu_ir_log(ir, ipu_ir_exp(ir, ipu_ir_sigmoid(ir,
		ipu_ir_tanh(ir, ipu_ir_gelu(ir, ipu_ir_relu(ir, ipu_ir_abs(ir,
		ipu_ir_neg(ir, t[0])))))))));
	t[2] = ipu_ir_matmul(ir, t[1], ipu_ir_transpose(ir, t[1], swap, 3));
	t[3] = ipu_ir_transpose(ir, t[1], perm, 3);
	t[4] = ipu_ir_slice(ir, t[1], 1, start, stop, step, (int[]){ 2 });
	t[5] = ipu_ir_concat(ir, (ipu_tensor[]){ t[1], t[1] }, 2, 0);
	t[6] = ipu_ir_reduce_max(ir, ipu_ir_reduce_mean(ir, ipu_ir_reduce_sum(ir,
		t[5], axes, 1, true), NULL, 0, true), NULL, 0, false);
	t[7] = ipu_ir_log_softmax(ir, ipu_ir_softmax(ir, t[3], 0), 1);
	y = ipu_ir_cast(ir, ipu_ir_cast(ir, ipu_ir_reshape(ir, t[5], rs, 2),
					IPU_DTYPE_FLOAT16), IPU_DTYPE_FLOAT32);
	y = ipu_ir_add(ir, ipu_ir_reshape(ir, y, (int64_t[]){ 12, 4 }, 2),
		       ipu_ir_add(ir, ipu_ir_reduce_sum(ir, t[2], NULL, 0, false),
				  ipu_ir_add(ir, t[6], ipu_ir_reduce_sum(ir,
					ipu_ir_add(ir, t[4], ipu_ir_reduce_sum(ir,
						t[7], NULL, 0, false)),
					NULL, 0, false))));
	ipu_ir_assign(ir, v, ipu_ir_all_reduce(ir, x, IPU_IR_ALL_REDUCE_SUM,
					       NULL));
	return ipu_ir_host_store(ir, out, y);
}

static inline int exe_sample_mmap_(struct ipu_ir *ir)
{
	struct ipu_replica_grouping orth;
	uint64_t s[2] = { 3, 0 };
	static const int8_t init[6] = { 1, 2, 3, 4, 5, 6 };
	ipu_tensor a, b;
	int ret;

	ipu_ir_set_replication_factor(ir, 2);
	ret = ipu_ir_replica_grouping(ir, 2, 1, &orth);
	if (ret)
		return ret;
	IPU_OPTS(ipu_ir_variable_opts, ro, .mmap_path = "ipu-weights.bin",
		 .mmap_readonly = true);
	IPU_OPTS(ipu_ir_variable_opts, grouped, .grouping = &orth,
		 .retrieval = IPU_EXE_RETRIEVE_ALL_REPLICAS);
	a = ipu_ir_variable(ir, "frozen", IPU_DTYPE_BFLOAT16, 1, s, NULL, &ro);
	b = ipu_ir_variable(ir, "per_replica", IPU_DTYPE_INT8, 1, s, init,
			    &grouped);
	return ipu_ir_assign(ir, b, ipu_ir_add(ir, b, b)) ?:
	       ipu_tensor_error(ipu_ir_cast(ir, a, IPU_DTYPE_FLOAT8_143));
}

/*
 * exe_sample() - build and compile sample @which.
 * @exep: out: the executable.
 * @msg, @len: the ir's message on failure.
 * Return: 0 or -errno.
 */
static inline int exe_sample(enum exe_sample which, struct ipu_exe **exep,
			     char *msg, size_t len)
{
	static const char *const names[SAMPLE_COUNT_] = {
		"mlp", "train", "calls", "all_ops", "mmap"
	};
	struct ipu_ir *ir;
	int ret;

	*exep = NULL;
	ret = ipu_ir_create(names[which], &ir);
	if (ret)
		return ret;
	switch (which) {
	case SAMPLE_MLP:
		ret = exe_sample_mlp_(ir);
		break;
	case SAMPLE_TRAIN:
		ret = exe_sample_train_(ir);
		break;
	case SAMPLE_CALLS:
		ret = exe_sample_calls_(ir);
		break;
	case SAMPLE_ALL_OPS:
		ret = exe_sample_all_ops_(ir);
		break;
	default:
		ret = exe_sample_mmap_(ir);
		break;
	}
	if (!ret)
		ret = ipu_ir_compile(ir, exep);
	if (ret && msg)
		snprintf(msg, len, "%s", ipu_ir_errmsg(ir));
	ipu_ir_destroy(ir);
	return ret;
}

#endif /* IPU_TESTS_EXE_SAMPLES_H */
