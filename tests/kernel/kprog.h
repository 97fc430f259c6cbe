/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprog.h - real programs for the kernel tests: built with the IR
 * (include/ipu/ir.h), compiled, saved as a file image, uploaded to a BO
 * and run through libipu's queue, on "hw:N" (ipu.ko, the firmware being
 * ipu-simd) or "model:N" (the in-process model) alike, so a test can
 * compare the two bit for bit.
 *
 *	struct kp_prog *p = kp_mlp(2);			// a program
 *	struct kp_setup s;
 *	kp_open(&s, p, (const char *[]){ "hw:0", "hw:1" });	// replicas
 *	kp_run(&s, in, out, msg, sizeof(msg));		// one run
 *
 * A run is one batch on one queue: per replica, the H2D transfer of
 * every input slot (linked), the launch (linked), the D2H transfer of
 * every output slot (linked one to the next): io_uring's one submission.
 * Devices and queues are tracked (ktest.h), so teardown releases them.
 */
#ifndef IPU_TESTS_KPROG_H
#define IPU_TESTS_KPROG_H

#include <ipu/exe.h>
#include <ipu/ir.h>

#include "ktest.h"

#define KP_MAX_REP	2
#define KP_MAX_STREAMS	16
/* Longest wait for a run's completions: a bug, not a slow guest. */
#define KP_REAP_NS	(120 * 1000000000ll)

#define KP_SHAPE(...) (sizeof((uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t)), \
	((const uint64_t[]){ __VA_ARGS__ })

/**
 * struct kp_prog - a compiled program and its file image.
 * @exe: the executable.
 * @image, @len: what ipu_exe_save() wrote: the bytes a launch names.
 * @nin, @nout: its host-to-device and device-to-host streams.
 * @in, @out: their indices in @exe->streams.
 */
struct kp_prog {
	struct ipu_exe *exe;
	void *image;
	size_t len;
	uint32_t nin, nout;
	uint32_t in[KP_MAX_STREAMS], out[KP_MAX_STREAMS];
};

/*
 * Group setup of tests that compare with the model: small model IPUs (the
 * guest has little memory) and no IPU_DEVICE.
 */
static inline int kp_group_setup(void **state)
{
	(void)state;
	setenv("IPU_MODEL_DEVICES", "2", 1);
	setenv("IPU_MODEL_MEM_MB", "16", 1);
	unsetenv("IPU_DEVICE");
	return 0;
}

static inline struct ipu_ir *kp_ir(const char *name, uint32_t nrep)
{
	struct ipu_ir *ir = NULL;

	assert_int_equal(ipu_ir_create(name, &ir), 0);
	assert_int_equal(ipu_ir_set_replication_factor(ir, nrep), 0);
	return ir;
}

/* Compile and save @ir (freed), and index the streams. */
static inline struct kp_prog *kp_finish(struct ipu_ir *ir)
{
	struct kp_prog *p = calloc(1, sizeof(*p));
	char msg[256];
	uint32_t i;

	assert_non_null(p);
	if (ipu_ir_compile(ir, &p->exe))
		fail_msg("compiling: %s", ipu_ir_errmsg(ir));
	ipu_ir_destroy(ir);
	if (ipu_exe_save(p->exe, &p->image, &p->len, msg, sizeof(msg)))
		fail_msg("saving: %s", msg);
	for (i = 0; i < p->exe->num_streams; i++) {
		if (p->exe->streams[i].direction == IPU_EXE_STREAM_H2D) {
			assert_true(p->nin < KP_MAX_STREAMS);
			p->in[p->nin++] = i;
		} else {
			assert_true(p->nout < KP_MAX_STREAMS);
			p->out[p->nout++] = i;
		}
	}
	return p;
}

static inline void kp_free(struct kp_prog *p)
{
	if (!p)
		return;
	ipu_exe_free(p->exe);
	free(p->image);
	free(p);
}

/*
 * A small MLP layer: out = gelu(relu(x @ w + b)), x[2][8] from stream
 * "x", w[8][4] a variable (its values depend on @seed), b[4] a constant;
 * with @nrep > 1, out is the sum of every replica's over an all-reduce.
 */
static inline struct kp_prog *kp_mlp_seeded(uint32_t nrep, int seed)
{
	struct ipu_ir *ir = kp_ir("mlp", nrep);
	float w[8 * 4], b[4];
	ipu_tensor x, y;
	ipu_stream in, out;
	int i;

	for (i = 0; i < 32; i++)
		w[i] = (float)((i * 7 + seed) % 11) / 8.0f - 0.6f;
	for (i = 0; i < 4; i++)
		b[i] = 0.25f * (float)i - 0.3f;
	in = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, KP_SHAPE(2, 8));
	out = ipu_ir_d2h_stream(ir, "y", IPU_DTYPE_FLOAT32, KP_SHAPE(2, 4));
	x = ipu_ir_host_load(ir, in, NULL);
	y = ipu_ir_matmul(ir, x, ipu_ir_variable(ir, "w", IPU_DTYPE_FLOAT32,
						KP_SHAPE(8, 4), w, NULL));
	y = ipu_ir_add(ir, y, ipu_ir_constant(ir, "b", IPU_DTYPE_FLOAT32,
					      KP_SHAPE(4), b));
	y = ipu_ir_gelu(ir, ipu_ir_relu(ir, y));
	if (nrep > 1)
		y = ipu_ir_all_reduce(ir, y, IPU_IR_ALL_REDUCE_SUM, NULL);
	assert_int_equal(ipu_ir_host_store(ir, out, y), 0);
	return kp_finish(ir);
}

static inline struct kp_prog *kp_mlp(uint32_t nrep)
{
	return kp_mlp_seeded(nrep, 0);
}

/* @n streams in and @n out: out_i = in_i * 2 + i, 16 floats each. */
static inline struct ipu_ir *kp_streams_ir(uint32_t n)
{
	struct ipu_ir *ir = kp_ir("streams", 1);
	char name[32];
	ipu_stream in, out;
	ipu_tensor t;
	uint32_t i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "in%u", i);
		in = ipu_ir_h2d_stream(ir, name, IPU_DTYPE_FLOAT32, KP_SHAPE(16));
		snprintf(name, sizeof(name), "out%u", i);
		out = ipu_ir_d2h_stream(ir, name, IPU_DTYPE_FLOAT32, KP_SHAPE(16));
		t = ipu_ir_host_load(ir, in, NULL);
		t = ipu_ir_mul(ir, t, ipu_ir_scalar(ir, IPU_DTYPE_FLOAT32, 2));
		t = ipu_ir_add(ir, t, ipu_ir_scalar(ir, IPU_DTYPE_FLOAT32, i));
		assert_int_equal(ipu_ir_host_store(ir, out, t), 0);
	}
	return ir;
}

static inline struct kp_prog *kp_streams(uint32_t n)
{
	return kp_finish(kp_streams_ir(n));
}

/*
 * A program that keeps the firmware busy: @count iterations of
 * acc = acc * 0.5 + x over 64 floats, then out = acc.
 */
static inline struct kp_prog *kp_spin(uint64_t count)
{
	struct ipu_ir *ir = kp_ir("spin", 1);
	ipu_graph body = ipu_ir_create_graph(ir, "body");
	ipu_tensor acc, x, xi, o[1];
	ipu_stream in, out;

	in = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, KP_SHAPE(64));
	out = ipu_ir_d2h_stream(ir, "out", IPU_DTYPE_FLOAT32, KP_SHAPE(64));
	x = ipu_ir_host_load(ir, in, NULL);
	assert_int_equal(ipu_ir_push_graph(ir, body), 0);
	acc = ipu_ir_graph_input(ir, "acc", IPU_DTYPE_FLOAT32, KP_SHAPE(64));
	xi = ipu_ir_graph_input(ir, "xi", IPU_DTYPE_FLOAT32, KP_SHAPE(64));
	acc = ipu_ir_mul(ir, acc, ipu_ir_scalar(ir, IPU_DTYPE_FLOAT32, 0.5));
	acc = ipu_ir_add(ir, acc, xi);
	assert_int_equal(ipu_ir_graph_output(ir, acc), 0);
	assert_int_equal(ipu_ir_pop_graph(ir), 0);
	assert_int_equal(ipu_ir_repeat(ir, body, count, (ipu_tensor[]){ x, x },
				       2, o, 1), 0);
	assert_int_equal(ipu_ir_host_store(ir, out, o[0]), 0);
	return kp_finish(ir);
}

/**
 * struct kp_setup - a program's replicas on devices, ready to run.
 * @p: the program.
 * @nrep: replicas (the program's replication factor).
 * @dev: per replica, its device (attached).
 * @exe: per replica, a BO holding the image.
 * @arena: per replica, a BO holding the arena, variables and constants
 *	loaded.
 * @q: the queue of the runs, on @dev[0]'s backend.
 * @group: the group of the next replicated run.
 */
struct kp_setup {
	const struct kp_prog *p;
	uint32_t nrep;
	struct ipu_device *dev[KP_MAX_REP];
	struct ipu_bo *exe[KP_MAX_REP];
	struct ipu_bo *arena[KP_MAX_REP];
	struct ipu_queue *q;
	uint64_t group;
};

/* Open @name attached and tracked, "hw:N" or "model:N". */
/*
 * @l: a one-replica launch on file @fd of @image (@len bytes, written to a
 * new buffer) over a new arena of @arena bytes, both rounded up to the
 * device's granule.
 */
static inline void kp_launch_bufs(int fd, const void *image, size_t len,
				  uint64_t arena, struct ipu_launch *l)
{
	uint64_t g = kt_granule(fd);

	memset(l, 0, sizeof(*l));
	l->exe_handle = kt_bo(fd, (len + g - 1) / g * g, NULL);
	assert_int_equal(kt_write_bo(fd, l->exe_handle, 0, image, len), 0);
	l->exe_size = len;
	l->arena_size = (arena + g - 1) / g * g;
	l->arena_handle = kt_bo(fd, l->arena_size, NULL);
	l->num_replicas = 1;
}

/* A file of one IPU and a raw launch on it (ioctls, not libipu's queue). */
struct kp_raw {
	int fd;
	struct ipu_launch l;
};

/* kp_weights()'s writer into a raw launch's arena; @ctx: struct kp_raw. */
static inline void kp_raw_put_arena(void *ctx, uint64_t off, const void *data,
				    uint64_t len)
{
	struct kp_raw *x = ctx;

	assert_int_equal(kt_write_bo(x->fd, x->l.arena_handle, off, data, len), 0);
}

static inline struct ipu_device *kp_dev_open(const char *name)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	struct ipu_device *dev = NULL;

	if (ipu_device_open(name, &opts, &dev))
		fail_msg("opening %s: %s", name, ipu_errmsg());
	kt_track(KT_DEV)->dev = dev;
	return dev;
}

static inline struct ipu_bo *kp_bo(struct ipu_device *dev, uint64_t size)
{
	struct ipu_bo *bo = NULL;

	if (ipu_bo_create(dev, size ? size : 1, 0, &bo))
		fail_msg("%s: BO of %llu bytes: %s", ipu_device_name(dev),
			 (unsigned long long)size, ipu_errmsg());
	return bo;
}

/*
 * The initial values of @p's variables and constants for replica @r: @put
 * is called with each one's arena offset, bytes and size (a session's
 * weights_from_host).
 */
static inline void kp_weights(const struct kp_prog *p, uint32_t r,
			      void (*put)(void *ctx, uint64_t off,
					  const void *data, uint64_t len),
			      void *ctx)
{
	const struct ipu_exe *e = p->exe;
	const struct ipu_exe_tensor *t;
	uint32_t i, g;

	for (i = 0; i < e->num_tensors; i++) {
		t = &e->tensors[i];
		if (t->kind == IPU_EXE_TENSOR_INTERMEDIATE || !t->data_size ||
		    t->flags & IPU_EXE_TENSOR_MMAP)
			continue;
		g = t->kind == IPU_EXE_TENSOR_VARIABLE ?
			    ipu_exe_replica_group(t->group_size, t->group_stride, r) :
			    0;
		put(ctx, t->offset, e->data + t->data_offset + g * t->nbytes,
		    t->nbytes);
	}
}

static inline void kp_put_bo(void *ctx, uint64_t off, const void *data,
			     uint64_t len)
{
	if (ipu_xfer_to_device(ctx, off, data, len))
		fail_msg("loading weights: %s", ipu_errmsg());
}

/* Variables and constants of replica @r into its arena. */
static inline void kp_load_weights(struct kp_setup *s, uint32_t r)
{
	kp_weights(s->p, r, kp_put_bo, s->arena[r]);
}

/*
 * Give every replica a fresh arena (weights loaded), for a run that is in
 * flight together with one on the old arenas.
 */
static inline void kp_new_arenas(struct kp_setup *s)
{
	uint32_t r;

	for (r = 0; r < s->nrep; r++) {
		s->arena[r] = kp_bo(s->dev[r], s->p->exe->arena_size);
		kp_load_weights(s, r);
	}
}

/* Replica r of @p on device @names[r], for r < the replication factor. */
static inline void kp_open(struct kp_setup *s, const struct kp_prog *p,
			   const char *const *names)
{
	uint32_t r;

	memset(s, 0, sizeof(*s));
	s->p = p;
	s->nrep = p->exe->replication_factor;
	assert_true(s->nrep <= KP_MAX_REP);
	for (r = 0; r < s->nrep; r++) {
		s->dev[r] = kp_dev_open(names[r]);
		s->exe[r] = kp_bo(s->dev[r], p->len);
		assert_int_equal(ipu_xfer_to_device(s->exe[r], 0, p->image, p->len), 0);
		s->arena[r] = kp_bo(s->dev[r], p->exe->arena_size);
		kp_load_weights(s, r);
	}
	s->q = kt_queue(s->dev[0], 0);
	s->group = 1;
}

/* Bytes of one stream's slots (all host transfers of a run). */
static inline uint64_t kp_stream_bytes(const struct kp_prog *p, uint32_t s)
{
	return p->exe->streams[s].nbytes * p->exe->num_host_transfers;
}

static inline struct ipu_launch_desc kp_launch_desc(struct kp_setup *s,
						    uint32_t r)
{
	struct ipu_launch_desc l = {
		.exe_bo = s->exe[r],
		.exe_size = s->p->len,
		.arena_bo = s->arena[r],
		.replica = r,
		.num_replicas = s->nrep,
		.group = s->group,
	};

	return l;
}

/*
 * The batch of one run into @cmds (room for nrep * (nin + 1 + nout)):
 * @in[r * nin + i] is replica r's input of the program's i-th H2D stream,
 * @out likewise. Returns the number of commands.
 */
static inline size_t kp_batch(struct kp_setup *s, struct ipu_cmd *cmds,
			      void *const *in, void *const *out)
{
	const struct kp_prog *p = s->p;
	struct ipu_launch_desc l;
	struct ipu_xfer_desc x;
	size_t n = 0;
	uint32_t r, i, st;

	for (r = 0; r < s->nrep; r++) {
		for (i = 0; i < p->nin; i++) {
			st = p->in[i];
			x = (struct ipu_xfer_desc){
				.bo = s->arena[r],
				.bo_offset = p->exe->streams[st].slots_offset,
				.host = in[r * p->nin + i],
				.length = kp_stream_bytes(p, st),
				.dir = IPU_XFER_DIR_TO_DEVICE,
			};
			ipu_cmd_prep_xfer(&cmds[n], &x, n);
			cmds[n++].flags = IPU_CMD_F_LINK;
		}
		l = kp_launch_desc(s, r);
		ipu_cmd_prep_launch(&cmds[n], &l, n);
		cmds[n++].flags = IPU_CMD_F_LINK;
		for (i = 0; i < p->nout; i++) {
			st = p->out[i];
			x = (struct ipu_xfer_desc){
				.bo = s->arena[r],
				.bo_offset = p->exe->streams[st].slots_offset,
				.host = out[r * p->nout + i],
				.length = kp_stream_bytes(p, st),
				.dir = IPU_XFER_DIR_FROM_DEVICE,
			};
			ipu_cmd_prep_xfer(&cmds[n], &x, n);
			cmds[n++].flags = i + 1 < p->nout ? IPU_CMD_F_LINK : 0;
		}
	}
	return n;
}

/*
 * Reap @n completions of @q; the result is the first failure that is not
 * a cancellation (else the first cancellation, else 0), its message in
 * @msg.
 */
static inline int kp_reap(struct ipu_queue *q, size_t n, char *msg,
			  size_t msglen)
{
	struct ipu_completion c[64];
	size_t got = 0, k;
	int ret, res = 0;

	if (msg && msglen)
		msg[0] = '\0';
	while (got < n) {
		ret = ipu_queue_reap(q, c, n - got < 64 ? n - got : 64,
				     n - got < 64 ? n - got : 64, KP_REAP_NS);
		if (ret <= 0)
			fail_msg("reaping %zu completions: %d after %zu (%s)", n,
				 ret, got, ipu_errmsg());
		for (k = 0; k < (size_t)ret; k++) {
			if (!c[k].result)
				continue;
			if (!res || (res == -ECANCELED && c[k].result != -ECANCELED)) {
				res = c[k].result;
				if (msg && msglen)
					snprintf(msg, msglen, "%s", c[k].msg);
			}
		}
		got += (size_t)ret;
	}
	return res;
}

/* One run, submitted as one batch and reaped; 0 or the first failure. */
static inline int kp_run(struct kp_setup *s, void *const *in,
			 void *const *out, char *msg, size_t msglen)
{
	struct ipu_cmd cmds[KP_MAX_REP * (2 * KP_MAX_STREAMS + 1)];
	size_t n = kp_batch(s, cmds, in, out);
	int err;

	err = ipu_queue_submit(s->q, cmds, n);
	if (err)
		fail_msg("submitting a run of %zu commands: %s", n, ipu_errmsg());
	err = kp_reap(s->q, n, msg, msglen);
	s->group++;
	return err;
}

#endif /* IPU_TESTS_KPROG_H */
