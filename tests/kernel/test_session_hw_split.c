// SPDX-License-Identifier: GPL-2.0
/*
 * test_session_hw_split.c - a program split across instances on ipu.ko
 * ("ipu_hw"; ipu-simd runs the firmware): docs/instances.md, "ipu_hw".
 *
 * Open MPI's launcher is not in the guest, so the instances are started
 * here, as a launcher other than MPI does: forked processes, each told
 * its index and count with ipu_model_set_instances() and given a
 * transport of the test's (an all-gather over shared memory, bounded by a
 * deadline). The path under test is the one MPI takes: each instance's
 * launches reach ipu-simd, whose firmware gathers the other instances'
 * operands through the instance's process (fw_gather.h), and
 * weights_to_host gathers what other instances hold.
 *
 *  - 2x2 and 4x1 give the bits of 1x4 on the same IPUs: the all-reduces'
 *    outputs and, on every instance, the fetched weights;
 *  - an instance that dies before its run: the other's run fails with its
 *    transport's -ETIMEDOUT (ipu-simd logs the transport's message), in
 *    bounded time, and ipu-simd serves the next split run as before.
 *
 * The PCI variant (test_pci_session_hw_split.c, KT_ON_PCI) runs the same
 * on the guest's PCIe IPUs, whose command queues ask the process for the
 * gathers (gather requests, served by libsession's pci_gather.c): a
 * program of 2 replicas as 1x2 and 2x1 and, as far as the guest's PCI
 * IPUs go (kernel-check's KERNEL-8ipus boot), of 4 replicas as 1x4, 2x2
 * and 4x1 and of 8 as 1x8 to 8x1, each instance on IPUs of its own; the
 * dead instance (with 2 replicas per instance when there are 4 IPUs: the
 * other replica's launch is the consequence, E_CANCELED), whose
 * transport's message is then the survivor's run's message; a reset
 * mid-gather (the session's bound passing while the transport waits);
 * and IPUs without the gather extension (ipu-emu's no_gather), where the
 * split program's attach fails with -EOPNOTSUPP and says why.
 */
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "ksession.h"
#ifdef KT_ON_PCI
#include "kemu.h"
#endif

#include <ipu/firmware.h>

#define MAX_REPLICAS 8
/*
 * The program's replicas: 4 on the simulated IPUs. On PCI (all linked:
 * one ipu-emu) the splits go as wide as the PCIe IPUs there are, up to
 * widest (setup()), and the other tests take 4 replicas when there are
 * 4 IPUs, else 2.
 */
static uint32_t replicas = 4, widest = 4;
#define N 1027
#define XPORT_MAX (MAX_REPLICAS * 2 * N * sizeof(float) + 4096)
/* A transport's bound on a peer, and the short one of the dying test. */
#define PEER_MS 120000
#define DIE_MS 1000

/* Shared by the instances: the transport, and what each got. */
struct shared {
	_Atomic uint32_t arrived;
	_Atomic uint32_t gen;
	uint32_t count;
	uint32_t peer_ms;
	uint8_t data[XPORT_MAX];
	float y[MAX_REPLICAS][N], z[MAX_REPLICAS][N];
	/* Per instance: "own" (a group per replica) and "every" (all_replicas). */
	float w[MAX_REPLICAS][2][MAX_REPLICAS][N];
	char err[MAX_REPLICAS][512];
};

static struct shared *sh;
/* The sessions' bound on a run (wait_timeout_ms), 0: libsession's own. */
static uint32_t wait_ms;

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Every instance arrives, or -ETIMEDOUT past the bound. */
static int barrier(void)
{
	struct timespec nap = { 0, 50000 };
	uint32_t gen = atomic_load(&sh->gen);
	uint64_t end = now_ms() + sh->peer_ms;

	if (atomic_fetch_add(&sh->arrived, 1) + 1 == sh->count) {
		atomic_store(&sh->arrived, 0);
		atomic_fetch_add(&sh->gen, 1);
		return 0;
	}
	while (atomic_load(&sh->gen) == gen) {
		if (now_ms() >= end)
			return -ETIMEDOUT;
		nanosleep(&nap, NULL);
	}
	return 0;
}

static int xport_allgather(void *ctx, void *buf, size_t bytes, char *msg,
			   size_t msglen)
{
	const struct ipufw_instances *me = ctx;

	if (bytes * me->count > sizeof(sh->data)) {
		snprintf(msg, msglen, "the test's transport carries %zu bytes at most",
			 sizeof(sh->data));
		return -E2BIG;
	}
	memcpy(sh->data + me->index * bytes, (uint8_t *)buf + me->index * bytes,
	       bytes);
	if (barrier())
		goto timeout;
	memcpy(buf, sh->data, bytes * me->count);
	if (barrier())
		goto timeout;
	return 0;
timeout:
	snprintf(msg, msglen, "instance %u of %u: no answer from the other instances within %u ms: one died or hangs",
		 me->index, me->count, sh->peer_ms);
	return -ETIMEDOUT;
}

/* x of global replica @g. */
static void fill(float *x, uint32_t g)
{
	uint32_t s = 777u + g * 7919u;

	for (size_t i = 0; i < N; i++) {
		s = s * 1664525u + 1013904223u;
		x[i] = (float)((int32_t)(s >> 8) - (1 << 23)) / (float)(1 << 23);
		x[i] *= (i % 3 == 0) ? 1e4f : (i % 3 == 1) ? 1.0f : 1e-4f;
	}
}

/* The program of tests/mpi/mpi_allreduce.c, as @irf replicas per instance. */
static struct ipu_ir *build(uint32_t irf)
{
	uint64_t shape[1] = { N };
	struct ipu_replica_grouping pairs, ones;
	IPU_OPTS(ipu_ir_variable_opts, own_opts, .grouping = &ones);
	IPU_OPTS(ipu_ir_variable_opts, every_opts,
		 .retrieval = IPU_EXE_RETRIEVE_ALL_REPLICAS);
	struct ipu_ir *ir;
	ipu_stream sx, sy, sz;
	ipu_tensor x, y, z, own, every;

	if (ipu_ir_create("split_hw", &ir))
		return NULL;
	if (ipu_ir_set_replication_factor(ir, replicas) ||
	    ipu_ir_set_instance_replication_factor(ir, irf) ||
	    ipu_ir_replica_grouping(ir, replicas / 2, 2, &pairs) ||
	    ipu_ir_replica_grouping(ir, 1, 1, &ones))
		goto err;
	sx = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 1, shape);
	sy = ipu_ir_d2h_stream(ir, "y", IPU_DTYPE_FLOAT32, 1, shape);
	sz = ipu_ir_d2h_stream(ir, "z", IPU_DTYPE_FLOAT32, 1, shape);
	x = ipu_ir_host_load(ir, sx, NULL);
	y = ipu_ir_all_reduce(ir, x, IPU_IR_ALL_REDUCE_SUM, NULL);
	z = ipu_ir_all_reduce(ir, x, IPU_IR_ALL_REDUCE_MEAN, &pairs);
	own = ipu_ir_variable(ir, "own", IPU_DTYPE_FLOAT32, 1, shape, NULL,
			      &own_opts);
	every = ipu_ir_variable(ir, "every", IPU_DTYPE_FLOAT32, 1, shape, NULL,
				&every_opts);
	if (sx.id <= 0 || sy.id <= 0 || sz.id <= 0 || x.id <= 0 ||
	    y.id <= 0 || z.id <= 0 || own.id <= 0 || every.id <= 0 ||
	    ipu_ir_host_store(ir, sy, y) || ipu_ir_host_store(ir, sz, z) ||
	    ipu_ir_assign(ir, own, ipu_ir_add(ir, own, x)) ||
	    ipu_ir_assign(ir, every, ipu_ir_add(ir, every, x)))
		goto err;
	return ir;
err:
	ipu_ir_destroy(ir);
	return NULL;
}

/*
 * Instance @index of @count (1: the whole program, unsplit): run once on
 * ipu_hw, outputs into sh->y/z at the global replicas, the weights into
 * sh->w[index]. No cmocka here (it may run in a child): 0 or the error,
 * the message in sh->err[index].
 */
static int instance(uint32_t index, uint32_t count)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_hw",
		 .wait_timeout_ms = wait_ms);
	const uint32_t irf = replicas / count, base = index * irf;
	struct ipufw_instances inst = { .index = index, .count = count,
					.allgather = xport_allgather, .ctx = &inst };
	static const char *const names[] = { "own", "every" };
	struct ipu_host_buffer w[2];
	struct ipu_stream_buffer in, out[2];
	struct ipu_session *s = NULL;
	static float x[MAX_REPLICAS][N], y[MAX_REPLICAS][N], z[MAX_REPLICAS][N];
	struct ipu_ir *ir = build(irf);
	int err;

	if (!ir)
		return -EINVAL;
	ipu_model_set_instances(count > 1 ? &inst : NULL);
	for (uint32_t r = 0; r < irf; r++)
		fill(x[r], base + r);
	err = ipu_session_create(ir, &opts, &s);
	if (err) {
		snprintf(sh->err[index], sizeof(sh->err[index]), "%s",
			 ipu_session_errmsg(NULL));
		return err;
	}
	in = (struct ipu_stream_buffer){ "x", { x, IPU_DTYPE_FLOAT32, 2, { irf, N } } };
	if (irf == 1)
		in.buf = (struct ipu_host_buffer){ x, IPU_DTYPE_FLOAT32, 1, { N } };
	out[0] = in;
	out[0].stream = "y";
	out[0].buf.data = y;
	out[1] = in;
	out[1].stream = "z";
	out[1].buf.data = z;
	for (int i = 0; i < 2; i++)
		w[i] = (struct ipu_host_buffer){ sh->w[index][i],
						 IPU_DTYPE_FLOAT32, 2,
						 { replicas, N } };
	err = ipu_session_attach(s);
	if (!err)
		err = ipu_session_run_with_outputs(s, &in, 1, out, 2, 0);
	if (!err)
		err = ipu_session_get_tensors_data(s, names, w, 2);
	if (!err)
		err = ipu_session_detach(s, 0);
	if (err)
		snprintf(sh->err[index], sizeof(sh->err[index]), "%s",
			 ipu_session_errmsg(s));
	memcpy(sh->y[base], y, sizeof(y[0]) * irf);
	memcpy(sh->z[base], z, sizeof(z[0]) * irf);
	ipu_session_destroy(s);
	ipu_model_set_instances(NULL);
	return err;
}

/* Run @count instances in children (@die: that one exits first);
 * the statuses of their exits into @st. */
static void split(uint32_t count, int die, uint32_t peer_ms, int *st)
{
	pid_t pid[MAX_REPLICAS];

	memset(sh, 0, offsetof(struct shared, y));
	memset(sh->err, 0, sizeof(sh->err));
	sh->count = count;
	sh->peer_ms = peer_ms;
	for (uint32_t i = 0; i < count; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (!pid[i]) {
			if ((int)i == die)
				_exit(9);
			_exit(-instance(i, count) & 0xff);
		}
	}
	for (uint32_t i = 0; i < count; i++) {
		assert_int_equal(waitpid(pid[i], &st[i], 0), pid[i]);
		st[i] = WIFEXITED(st[i]) ? WEXITSTATUS(st[i]) : 128;
	}
}

static int setup(void **state)
{
	(void)state;
#ifdef KT_ON_PCI
	kp_init();
	for (widest = 2; widest * 2 <= nr_ipus && widest < MAX_REPLICAS;)
		widest *= 2;
	replicas = widest < 4 ? widest : 4;
#endif
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return sh == MAP_FAILED ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	munmap(sh, sizeof(*sh));
	return 0;
}

/* A program of @r replicas split every way gives the bits of 1x@r. */
static void splits_of(uint32_t r)
{
	static float y[MAX_REPLICAS][N], z[MAX_REPLICAS][N], w[2][MAX_REPLICAS][N];
	int st[MAX_REPLICAS];

	replicas = r;
	memset(sh, 0, sizeof(*sh));
	if (instance(0, 1))
		fail_msg("1x%u: %s", replicas, sh->err[0]);
	memcpy(y, sh->y, sizeof(y));
	memcpy(z, sh->z, sizeof(z));
	memcpy(w, sh->w[0], sizeof(w));
	for (uint32_t count = 2; count <= replicas; count *= 2) {
		memset(sh->y, 0, sizeof(sh->y) * 2 + sizeof(sh->w));
		split(count, -1, PEER_MS, st);
		for (uint32_t i = 0; i < count; i++) {
			if (st[i])
				fail_msg("%ux%u: instance %u: status %d: %s", count,
					 replicas / count, i, st[i], sh->err[i]);
			assert_memory_equal(sh->w[i], w, sizeof(w));
		}
		assert_memory_equal(sh->y, y, sizeof(y));
		assert_memory_equal(sh->z, z, sizeof(z));
		print_message("%ux%u: the bits of 1x%u\n", count,
			      replicas / count, replicas);
	}
}

static void test_splits_give_the_bits_of_one_instance(void **state)
{
	const uint32_t keep = replicas;
	uint32_t r = 4;

	(void)state;
	ks_require_simd();
#ifdef KT_ON_PCI
	r = 2;
#endif
	for (; r <= widest; r *= 2)
		splits_of(r);
	replicas = keep;
}

static void test_dead_instance_fails_the_other_in_bounded_time(void **state)
{
	int st[MAX_REPLICAS];
	uint64_t t0;
	off_t from;

	(void)state;
	ks_require_simd();
	from = ks_log_size();
	t0 = now_ms();
	split(2, 1, DIE_MS, st);
	assert_int_equal(st[1], 9);
	if (st[0] != ETIMEDOUT)
		fail_msg("the survivor: status %d: %s", st[0], sh->err[0]);
#ifdef KT_ON_PCI
	/* The session answered the device's request with the transport's
	 * errno, and says why. */
	(void)from;
	if (!strstr(sh->err[0], "an all-reduce across instances failed: instance 0 of 2: no answer from the other instances within 1000 ms"))
		fail_msg("the survivor's message: %s", sh->err[0]);
#else
	/* The firmware's message is the daemon's to log (FW_DONE carries
	 * only the status). */
	if (!ks_log_wait(from, "no answer from the other instances within 1000 ms"))
		fail_msg("ipu-simd did not log the transport's message");
#endif
	print_message("the survivor failed after %llu ms\n",
		      (unsigned long long)(now_ms() - t0));
	/* The next split run goes as before. */
	split(2, -1, PEER_MS, st);
	if (st[0] || st[1])
		fail_msg("after a dead instance: %s / %s", sh->err[0], sh->err[1]);
}

#ifdef KT_ON_PCI
/* Device memory in use on the (listed: PCI) IPUs. */
static uint64_t memory_used(void)
{
	struct ipu_device_list *list;
	uint64_t used = 0;
	size_t i;

	assert_int_equal(ipu_device_list_create(&list), 0);
	for (i = 0; i < ipu_device_list_count(list); i++)
		used += ipu_device_list_get(list, i)->memory_used;
	ipu_device_list_free(list);
	return used;
}

/*
 * A reset mid-gather: instance 0 of 2 alone, its peer never coming. The
 * session's bound on the run passes while the gather waits for the
 * transport: the session resets the IPU, which forgets the request, and
 * the run fails with -ETIMEDOUT saying so; the transport's answer then
 * finds the request stale, which is no error. Leaving the session waits
 * at most for the transport's own bound, device memory is back, and a
 * split run after it goes as before.
 */
static void test_reset_mid_gather(void **state)
{
	uint64_t used = memory_used(), t0 = now_ms();
	int st[MAX_REPLICAS], err;

	(void)state;
	memset(sh, 0, offsetof(struct shared, y));
	memset(sh->err, 0, sizeof(sh->err));
	sh->count = 2;
	sh->peer_ms = 2500;
	wait_ms = 1000;
	err = instance(0, 2);
	wait_ms = 0;
	assert_int_equal(err, -ETIMEDOUT);
	if (!strstr(sh->err[0], "run: the launch did not complete within 1000 ms"))
		fail_msg("the run's message: %s", sh->err[0]);
	print_message("the run failed and the session went after %llu ms\n",
		      (unsigned long long)(now_ms() - t0));
	assert_int_equal(memory_used(), used);
	split(2, -1, PEER_MS, st);
	if (st[0] || st[1])
		fail_msg("after a reset mid-gather: %s / %s", sh->err[0],
			 sh->err[1]);
}

/* The PCI IPUs are bound without the gather extension (ipu-emu's). */
static bool without_gather;

/*
 * Bind every PCI IPU again with its model's fault @spec (the rig's N-th
 * function is the model's ipuN). With @strict, a step that fails fails
 * the test; a teardown goes on.
 */
static void rebind_all(const char *spec, bool strict)
{
	char ans[128];
	unsigned int i;

	for (i = 0; i < nr_ipus; i++) {
		if (strict) {
			kp_unbind(ipus[i]);
			ke_fault(i, spec);
			kp_bind(ipus[i]);
			continue;
		}
		kt_write_file(KT_PCI_DRIVER "/unbind", ipus[i]);
		ke_send("fault", i, spec, ans, sizeof(ans));
		kt_write_file(KT_PCI_DRIVER "/bind", ipus[i]);
	}
}

/*
 * PCIe IPUs without the gather extension (ipu-emu's no_gather, bound
 * afresh): ipu.ko reports no IPU_FEATURE_GATHER, and the session of a
 * split program refuses to attach (-EOPNOTSUPP) naming the IPU and why,
 * rather than a run failing on the device (-EIO). With the extension back
 * a split run goes as before.
 */
static void test_ipus_without_gather_refuse_the_split_program(void **state)
{
	int st[MAX_REPLICAS], err;

	(void)state;
	kp_init();
	require_ipus();
	ke_require();
	without_gather = true;
	rebind_all("no_gather=1", true);
	memset(sh, 0, offsetof(struct shared, y));
	memset(sh->err, 0, sizeof(sh->err));
	sh->count = 2;
	sh->peer_ms = PEER_MS;
	err = instance(0, 2);
	assert_int_equal(err, -EOPNOTSUPP);
	if (!strstr(sh->err[0], "a PCIe IPU, cannot ask the host for the other instances' data: it has no gather requests"))
		fail_msg("the attach's message: %s", sh->err[0]);
	rebind_all("no_gather=0", true);
	without_gather = false;
	split(2, -1, PEER_MS, st);
	if (st[0] || st[1])
		fail_msg("with the extension back: %s / %s", sh->err[0],
			 sh->err[1]);
}

static int gather_teardown(void **state)
{
	(void)state;
	if (without_gather)
		rebind_all("no_gather=0", false);
	without_gather = false;
	return 0;
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_splits_give_the_bits_of_one_instance),
		cmocka_unit_test(test_dead_instance_fails_the_other_in_bounded_time),
#ifdef KT_ON_PCI
		cmocka_unit_test(test_reset_mid_gather),
		cmocka_unit_test_teardown(test_ipus_without_gather_refuse_the_split_program,
					  gather_teardown),
#endif
	};

	if (setup(NULL))
		return 1;
	return cmocka_run_group_tests(tests, sh_group_setup, teardown);
}
