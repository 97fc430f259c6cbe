// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_model.c - the PCIe IPU model computes the model backend's
 * bits: sample programs compiled by the IR (tests/exe_samples.h: an MLP,
 * nested calls, every op kind, replicated SGD training on 4 replicas) run
 * once on libipu's model IPUs and once on as many PCIe IPU models, from
 * the same arenas (variables and constants from the executable, stream
 * slots filled with the same values), and every byte of every arena must
 * agree afterwards.
 */
#include <time.h>

#include "model_helpers.h"
#include "emu_dev_helpers.h"
#include "exe_samples.h"

#define MAX_REP		4
#define EMU_MEM		(16u << 20)
#define EMU_EXE_AT	0x0
#define EMU_ARENA_AT	0x400000u

/* The arenas a launch starts from, replica by replica. */
static void init_arenas(const struct ipu_exe *exe, uint8_t **arenas)
{
	uint32_t r, i, s, slot;
	uint32_t seed = 12345;

	for (r = 0; r < exe->replication_factor; r++) {
		arenas[r] = calloc(1, exe->arena_size);
		assert_non_null(arenas[r]);
		for (i = 0; i < exe->num_tensors; i++) {
			const struct ipu_exe_tensor *t = &exe->tensors[i];
			uint64_t from = t->data_offset;

			if (t->kind == IPU_EXE_TENSOR_INTERMEDIATE)
				continue;
			assert_false(t->flags & IPU_EXE_TENSOR_MMAP);
			if (t->kind == IPU_EXE_TENSOR_VARIABLE)
				from += ipu_exe_tensor_group(t, r) * t->nbytes;
			memcpy(arenas[r] + t->offset,
			       (const uint8_t *)exe->data + from, t->nbytes);
		}
		for (s = 0; s < exe->num_streams; s++) {
			const struct ipu_exe_stream *st = &exe->streams[s];
			uint64_t n = st->nbytes / ipu_dtype_size((int)st->dtype);
			uint64_t k;
			double *v;

			if (st->direction != IPU_EXE_STREAM_H2D)
				continue;
			v = malloc(n * sizeof(*v));
			assert_non_null(v);
			for (slot = 0; slot < exe->num_host_transfers; slot++) {
				for (k = 0; k < n; k++) {
					seed = seed * 1664525u + 1013904223u;
					v[k] = (double)(seed >> 8) / (1 << 24) * 4 - 2;
				}
				assert_int_equal(ipu_dtype_convert(arenas[r] + st->slots_offset +
								   slot * st->nbytes,
								   (int)st->dtype, v,
								   IPU_DTYPE_FLOAT64, n), 0);
			}
			free(v);
		}
	}
}

/* Run @exe from @init on model:0..R-1; the arenas after, into @out. */
static void run_model(const struct ipu_exe *exe, uint8_t **init, uint8_t **out)
{
	uint32_t r, nrep = exe->replication_factor;
	struct ipu_device *dev[MAX_REP];
	struct ipu_launch_desc l[MAX_REP];
	struct ipu_cmd cmds[MAX_REP];
	struct ipu_completion c[MAX_REP];
	struct ipu_queue *q;

	for (r = 0; r < nrep; r++) {
		dev[r] = mh_open(r, true);
		memset(&l[r], 0, sizeof(l[r]));
		l[r].exe_bo = mh_exe_bo(dev[r], exe, &l[r].exe_size);
		l[r].arena_bo = mh_bo(dev[r], exe->arena_size);
		l[r].arena_size = exe->arena_size;
		l[r].replica = r;
		l[r].num_replicas = nrep;
		l[r].group = nrep > 1 ? 99 : 0;
		assert_int_equal(ipu_xfer_to_device(l[r].arena_bo, 0, init[r],
						    exe->arena_size), 0);
		ipu_cmd_prep_launch(&cmds[r], &l[r], r);
	}
	q = mh_queue(dev[0], 16);
	assert_int_equal(ipu_queue_submit(q, cmds, nrep), 0);
	mh_reap(q, c, nrep);
	for (r = 0; r < nrep; r++)
		if (c[r].result)
			fail_msg("model: replica %llu: %d %s",
				 (unsigned long long)c[r].user_data, c[r].result,
				 c[r].msg);
	for (r = 0; r < nrep; r++) {
		out[r] = malloc(exe->arena_size);
		assert_int_equal(ipu_xfer_from_device(l[r].arena_bo, 0, out[r],
						      exe->arena_size), 0);
	}
	ipu_queue_destroy(q);
	for (r = 0; r < nrep; r++)
		ipu_device_close(dev[r]);
}

/* The same on R PCIe IPU models of this process. */
static void run_emu(const struct ipu_exe *exe, uint8_t **init, uint8_t **out)
{
	uint32_t r, nrep = exe->replication_factor;
	struct th *t[MAX_REP];
	char msg[256];
	size_t len;
	void *buf;

	if (ipu_exe_save(exe, &buf, &len, msg, sizeof(msg)))
		fail_msg("ipu_exe_save: %s", msg);
	for (r = 0; r < nrep; r++) {
		struct ipu_cmd_desc *d;

		t[r] = th_new_opts(EMU_MEM, r, 1000 + r, NULL, NULL);
		assert_non_null(t[r]);
		th_enable(t[r]);
		assert_int_equal(th_boot(t[r]), IPU_FW_STATE_READY);
		th_ring(t[r], IPU_QUEUE_CMD, 4);
		th_mem_write(t[r], EMU_EXE_AT, buf, len);
		th_mem_write(t[r], EMU_ARENA_AT, init[r], exe->arena_size);
		d = th_cmd_desc(t[r], 0);
		memset(d, 0, sizeof(*d));
		d->opcode = IPU_CQ_LAUNCH;
		d->flags = IPU_CQ_F_IRQ;
		d->exe_addr = EMU_EXE_AT;
		d->exe_size = (uint32_t)len;
		d->arena_addr = EMU_ARENA_AT;
		d->arena_size = exe->arena_size;
		d->replica = r;
		d->num_replicas = nrep;
		d->group = nrep > 1 ? 99 : 0;
		d->owner = 7;
	}
	for (r = 0; r < nrep; r++)
		wr32(t[r], QREG(IPU_QUEUE_CMD, IPU_Q_TAIL), 1);
	for (r = 0; r < nrep; r++) {
		assert_true(th_wait_irqs(t[r], IPU_VEC_CMD, 1));
		assert_int_equal(th_cmd_desc(t[r], 0)->status,
				 IPU_DESC_DONE | IPU_CQ_OK);
		out[r] = malloc(exe->arena_size);
		th_mem_read(t[r], EMU_ARENA_AT, out[r], exe->arena_size);
	}
	for (r = 0; r < nrep; r++)
		th_free(t[r]);
	free(buf);
}

static void same_bits(enum exe_sample which)
{
	uint8_t *init[MAX_REP], *model[MAX_REP], *emu[MAX_REP];
	struct ipu_exe *exe = NULL;
	char msg[512];
	uint32_t r;

	if (exe_sample(which, &exe, msg, sizeof(msg)))
		fail_msg("sample %d: %s", which, msg);
	assert_true(exe->replication_factor <= MAX_REP);
	init_arenas(exe, init);
	run_model(exe, init, model);
	run_emu(exe, init, emu);
	for (r = 0; r < exe->replication_factor; r++) {
		assert_memory_not_equal(model[r], init[r], exe->arena_size);
		assert_memory_equal(emu[r], model[r], exe->arena_size);
		free(init[r]);
		free(model[r]);
		free(emu[r]);
	}
	ipu_exe_free(exe);
}

static void test_mlp_bits_match_the_model_backend(void **state)
{
	(void)state;
	same_bits(SAMPLE_MLP);
}

static void test_calls_bits_match_the_model_backend(void **state)
{
	(void)state;
	same_bits(SAMPLE_CALLS);
}

static void test_all_ops_bits_match_the_model_backend(void **state)
{
	(void)state;
	same_bits(SAMPLE_ALL_OPS);
}

static void test_replicated_training_bits_match_the_model_backend(void **state)
{
	(void)state;
	same_bits(SAMPLE_TRAIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mlp_bits_match_the_model_backend),
		cmocka_unit_test(test_calls_bits_match_the_model_backend),
		cmocka_unit_test(test_all_ops_bits_match_the_model_backend),
		cmocka_unit_test(test_replicated_training_bits_match_the_model_backend),
	};

	return cmocka_run_group_tests(tests, mh_group_setup, mh_group_teardown);
}
