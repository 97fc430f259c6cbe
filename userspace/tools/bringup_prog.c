// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bringup_prog.c - the known-answer programs of compute, replicas, reset
 * and stress: one small MLP layer built with the IR (matmul, add, relu,
 * gelu; an all-reduce across replicas), run on the devices under test
 * through libipu's queue as an application runs it (inputs in, launch,
 * outputs out, one linked batch), and run on the firmware executor
 * (libipufw) over host memory for the expected bits. The executor is
 * deterministic, so any difference is the device's (or its path's) fault.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ipu/exe.h>
#include <ipu/firmware.h>
#include <ipu/ir.h>

#include "bringup.h"

#define ROWS 4
#define COLS 16
#define OUTS 8
#define MAX_REP 64

struct bu_prog {
	struct ipu_exe *exe;
	void *image;
	size_t len;
	uint32_t nrep;
	uint32_t in, out;	/* stream indices */
};

int bu_prog_build(uint32_t nrep, struct bu_prog **pp, char *msg,
		  size_t msglen)
{
	const uint64_t xs[2] = { ROWS, COLS }, ws[2] = { COLS, OUTS },
		       ys[2] = { ROWS, OUTS }, bs[1] = { OUTS };
	float w[COLS * OUTS], b[OUTS];
	struct ipu_ir *ir = NULL;
	struct bu_prog *p;
	ipu_tensor x, y;
	ipu_stream in, out;
	int err, i;

	if (nrep == 0 || nrep > MAX_REP)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->nrep = nrep;
	/* Weights with no pattern the hardware could get right by luck. */
	for (i = 0; i < COLS * OUTS; i++)
		w[i] = (float)((i * 37 + 11) % 23) / 16.0f - 0.7f;
	for (i = 0; i < OUTS; i++)
		b[i] = 0.125f * (float)i - 0.4f;
	err = ipu_ir_create("bringup-known-answer", &ir);
	if (!err)
		err = ipu_ir_set_replication_factor(ir, nrep);
	if (err)
		goto fail;
	in = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 2, xs);
	out = ipu_ir_d2h_stream(ir, "y", IPU_DTYPE_FLOAT32, 2, ys);
	x = ipu_ir_host_load(ir, in, NULL);
	y = ipu_ir_matmul(ir, x, ipu_ir_variable(ir, "w", IPU_DTYPE_FLOAT32,
						2, ws, w, NULL));
	y = ipu_ir_add(ir, y, ipu_ir_constant(ir, "b", IPU_DTYPE_FLOAT32, 1,
					      bs, b));
	y = ipu_ir_gelu(ir, ipu_ir_relu(ir, y));
	if (nrep > 1)
		y = ipu_ir_all_reduce(ir, y, IPU_IR_ALL_REDUCE_SUM, NULL);
	err = ipu_ir_host_store(ir, out, y);
	if (!err)
		err = ipu_ir_compile(ir, &p->exe);
	if (err)
		goto fail;
	ipu_ir_destroy(ir);
	ir = NULL;
	err = ipu_exe_save(p->exe, &p->image, &p->len, msg, msglen);
	if (err)
		goto fail_saved;
	p->in = (uint32_t)ipu_exe_find_stream(p->exe, "x");
	p->out = (uint32_t)ipu_exe_find_stream(p->exe, "y");
	*pp = p;
	return 0;
fail:
	snprintf(msg, msglen, "building the program: %s",
		 ir ? ipu_ir_errmsg(ir) : strerror(-err));
	ipu_ir_destroy(ir);
fail_saved:
	bu_prog_free(p);
	return err;
}

void bu_prog_free(struct bu_prog *p)
{
	if (!p)
		return;
	ipu_exe_free(p->exe);
	free(p->image);
	free(p);
}

static uint64_t stream_bytes(const struct bu_prog *p, uint32_t s)
{
	return p->exe->streams[s].nbytes * p->exe->num_host_transfers;
}

size_t bu_prog_in_bytes(const struct bu_prog *p)
{
	return stream_bytes(p, p->in);
}

size_t bu_prog_out_bytes(const struct bu_prog *p)
{
	return stream_bytes(p, p->out);
}

/*
 * Call @put for each variable and constant of replica @r: its arena
 * offset and initial bytes (what a session's weights_from_host sends).
 */
static int for_each_weight(const struct bu_prog *p, uint32_t r,
			   int (*put)(void *ctx, uint64_t off, const void *src,
				      uint64_t len),
			   void *ctx)
{
	const struct ipu_exe *e = p->exe;
	const struct ipu_exe_tensor *t;
	uint32_t i, g;
	int err;

	for (i = 0; i < e->num_tensors; i++) {
		t = &e->tensors[i];
		if (t->kind == IPU_EXE_TENSOR_INTERMEDIATE || !t->data_size)
			continue;
		g = t->kind == IPU_EXE_TENSOR_VARIABLE ?
			    ipu_exe_replica_group(t->group_size, t->group_stride, r) :
			    0;
		err = put(ctx, t->offset, e->data + t->data_offset + g * t->nbytes,
			  t->nbytes);
		if (err)
			return err;
	}
	return 0;
}

static int put_bo(void *ctx, uint64_t off, const void *src, uint64_t len)
{
	return ipu_xfer_to_device(ctx, off, src, len);
}

static int put_host(void *ctx, uint64_t off, const void *src, uint64_t len)
{
	memcpy((char *)ctx + off, src, len);
	return 0;
}

/* Reap @n completions within @timeout_s; the first failure wins. */
static int reap_all(struct ipu_queue *q, size_t n, double timeout_s,
		    char *msg, size_t msglen)
{
	struct ipu_completion c[16];
	double end = bu_now() + timeout_s, left;
	size_t got = 0, k, want;
	int ret, res = 0;

	while (got < n) {
		left = end - bu_now();
		if (left <= 0) {
			if (!res)
				snprintf(msg, msglen,
					 "%zu of %zu commands not completed after %.0f s: the launch hangs",
					 n - got, n, timeout_s);
			return -ETIMEDOUT;
		}
		want = n - got < 16 ? n - got : 16;
		ret = ipu_queue_reap(q, c, want, want, (long long)(left * 1e9));
		if (ret < 0) {
			snprintf(msg, msglen, "reaping: %s", ipu_errmsg());
			return ret;
		}
		for (k = 0; k < (size_t)ret; k++) {
			if (!c[k].result ||
			    (res && !(res == -ECANCELED && c[k].result != -ECANCELED)))
				continue;
			res = c[k].result;
			snprintf(msg, msglen, "%s", c[k].msg[0] ? c[k].msg :
				 strerror(-res));
		}
		got += (size_t)ret;
	}
	return res;
}

int bu_prog_run(const struct bu_prog *p, struct ipu_device *const *devs,
		const void *in, void *out, double timeout_s, char *msg,
		size_t msglen)
{
	struct ipu_bo *exe[MAX_REP] = { 0 }, *arena[MAX_REP] = { 0 };
	struct ipu_cmd cmds[3 * MAX_REP];
	const struct ipu_exe_stream *si = &p->exe->streams[p->in],
				    *so = &p->exe->streams[p->out];
	struct ipu_queue *q = NULL;
	struct ipu_launch_desc l;
	struct ipu_xfer_desc x;
	size_t n = 0;
	uint32_t r;
	int err = 0;

	for (r = 0; r < p->nrep && !err; r++) {
		err = ipu_bo_create(devs[r], p->len, 0, &exe[r]);
		if (!err)
			err = ipu_xfer_to_device(exe[r], 0, p->image, p->len);
		if (!err)
			err = ipu_bo_create(devs[r], p->exe->arena_size, 0,
					    &arena[r]);
		if (!err)
			err = for_each_weight(p, r, put_bo, arena[r]);
		if (err)
			snprintf(msg, msglen, "%s: loading the program: %s",
				 ipu_device_name(devs[r]), ipu_errmsg());
	}
	if (!err) {
		err = ipu_queue_create(devs[0], NULL, &q);
		if (err)
			snprintf(msg, msglen, "queue: %s", ipu_errmsg());
	}
	for (r = 0; r < p->nrep && !err; r++) {
		x = (struct ipu_xfer_desc){
			.bo = arena[r], .bo_offset = si->slots_offset,
			.host = (char *)in + r * bu_prog_in_bytes(p),
			.length = bu_prog_in_bytes(p),
			.dir = IPU_XFER_DIR_TO_DEVICE,
		};
		ipu_cmd_prep_xfer(&cmds[n], &x, n);
		cmds[n++].flags = IPU_CMD_F_LINK;
		l = (struct ipu_launch_desc){
			.exe_bo = exe[r], .exe_size = p->len,
			.arena_bo = arena[r], .replica = r,
			.num_replicas = p->nrep, .group = 1,
		};
		ipu_cmd_prep_launch(&cmds[n], &l, n);
		cmds[n++].flags = IPU_CMD_F_LINK;
		x = (struct ipu_xfer_desc){
			.bo = arena[r], .bo_offset = so->slots_offset,
			.host = (char *)out + r * bu_prog_out_bytes(p),
			.length = bu_prog_out_bytes(p),
			.dir = IPU_XFER_DIR_FROM_DEVICE,
		};
		ipu_cmd_prep_xfer(&cmds[n], &x, n);
		n++;
	}
	if (!err) {
		err = ipu_queue_submit(q, cmds, n);
		if (err)
			snprintf(msg, msglen, "submitting: %s", ipu_errmsg());
		else
			err = reap_all(q, n, timeout_s, msg, msglen);
	}
	/*
	 * A hung launch is the device's: destroying the queue waits for the
	 * kernel's deadline (hw) or drops it (model); the caller resets.
	 */
	ipu_queue_destroy(q);
	for (r = 0; r < p->nrep; r++) {
		ipu_bo_destroy(exe[r]);
		ipu_bo_destroy(arena[r]);
	}
	return err;
}

int bu_prog_expect(const struct bu_prog *p, const void *in, void *out,
		   char *msg, size_t msglen)
{
	const struct ipu_exe_stream *si = &p->exe->streams[p->in],
				    *so = &p->exe->streams[p->out];
	uint64_t size = (p->exe->arena_size + 63) & ~63ull;
	void *arenas[MAX_REP] = { 0 };
	struct ipufw_executor *ex = NULL;
	uint32_t r;
	int err;

	err = ipufw_executor_create(p->nrep, &ex);
	for (r = 0; r < p->nrep && !err; r++) {
		arenas[r] = aligned_alloc(64, size);
		if (!arenas[r]) {
			err = -ENOMEM;
			break;
		}
		memset(arenas[r], 0, size);
		for_each_weight(p, r, put_host, arenas[r]);
		memcpy((char *)arenas[r] + si->slots_offset,
		       (const char *)in + r * bu_prog_in_bytes(p),
		       bu_prog_in_bytes(p));
	}
	if (!err)
		err = ipufw_run(ex, p->exe, arenas, size, msg, msglen);
	else
		snprintf(msg, msglen, "the host's model: %s", strerror(-err));
	for (r = 0; r < p->nrep; r++) {
		if (!err)
			memcpy((char *)out + r * bu_prog_out_bytes(p),
			       (char *)arenas[r] + so->slots_offset,
			       bu_prog_out_bytes(p));
		free(arenas[r]);
	}
	ipufw_executor_destroy(ex);
	return err;
}

double bu_launch_timeout(const struct bu_dev *d)
{
	/*
	 * The kernel fails a launch past its deadline and resets: allow
	 * that, twice over and a margin for a slow (emulated) machine. The
	 * model sets no deadline; its known-answer run takes milliseconds.
	 */
	if (d->info.launch_timeout_ms)
		return 2.0 * d->info.launch_timeout_ms / 1000.0 + 30.0;
	return 5.0;
}
