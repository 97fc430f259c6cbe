// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_fw_instances.c - a program split across instances
 * (docs/instances.md), in one process: each instance is an executor of
 * its own running in a thread of its own over its replicas' arenas, and
 * the instances' allgather is a shared buffer between two barriers. What
 * MPI does between processes (tests/mpi/) this does between threads, so
 * the firmware's side is tested on its own, under the sanitizers too.
 *
 * It shows that ALL_REDUCE gives the bits of the one-instance run
 * whatever the split (1x4, 2x2, 4x1), over all replicas and over
 * groupings whose members sit on different instances, with the
 * allgather alone and with alltoallv and allgatherv (the reduce-scatter
 * path, as over MPI), and with LIBIPUFW_1.0's shorter struct given to
 * the old version of ipufw_executor_set_instances; that the
 * reduce-scatter sends no instance its own share; that a failing
 * allgather fails every local replica with its message instead of
 * hanging; and that a split program refuses an executor that is not the
 * instance it needs.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit/exe_builder.h"

#define RF 4

/* What the instances of one run share: the gathered buffer and a barrier
 * of the instances (not of their replicas). */
struct fake_world {
	pthread_barrier_t meet;
	uint8_t *all;
	size_t cap;
	int fail_index;	/* this instance's allgather fails, or -1 */
	/* What each instance passed to alltoallv or allgatherv. */
	const uint8_t *from[RF];
	const size_t *sizes[RF];
};

struct fake_instance {
	struct fake_world *w;
	struct ipufw_instances inst;
	struct ipufw_executor *ex;
	struct eb *b;
	int rc;
	char msg[512];
	size_t self_bytes;	/* what alltoallv moved from it to itself */
};

/*
 * Copy this instance's part in, wait for every instance, copy everything
 * out, wait again (so that no instance refills the buffer while another
 * still copies out). A failing instance still meets the barriers, as a
 * peer that reports its failure would, so the test cannot hang.
 */
static int fake_allgather(void *ctx, void *buf, size_t bytes, char *msg,
			  size_t msglen)
{
	struct fake_instance *fi = ctx;
	struct fake_world *w = fi->w;
	uint32_t n = fi->inst.count, me = fi->inst.index;

	assert_true(bytes * n <= w->cap);
	memcpy(w->all + me * bytes, (uint8_t *)buf + me * bytes, bytes);
	pthread_barrier_wait(&w->meet);
	memcpy(buf, w->all, bytes * n);
	pthread_barrier_wait(&w->meet);
	if ((int)me == w->fail_index) {
		snprintf(msg, msglen, "instance %u lost its peers", me);
		return -EPIPE;
	}
	return 0;
}

/* Where part @k of @sizes starts. */
static size_t part_at(const size_t *sizes, uint32_t k)
{
	size_t at = 0;

	while (k--)
		at += sizes[k];
	return at;
}

/* Each instance's part for this one, from its send buffer, between the
 * barriers that keep the buffers alive and unchanged. */
static int fake_alltoallv(void *ctx, const void *send, const size_t *sendbytes,
			  void *recv, const size_t *recvbytes, char *msg,
			  size_t msglen)
{
	struct fake_instance *fi = ctx;
	struct fake_world *w = fi->w;
	uint32_t n = fi->inst.count, me = fi->inst.index, i;

	(void)msg;
	(void)msglen;
	fi->self_bytes += sendbytes[me] + recvbytes[me];
	w->from[me] = send;
	w->sizes[me] = sendbytes;
	pthread_barrier_wait(&w->meet);
	for (i = 0; i < n; i++) {
		assert_int_equal(w->sizes[i][me], recvbytes[i]);
		memcpy((uint8_t *)recv + part_at(recvbytes, i),
		       w->from[i] + part_at(w->sizes[i], me), recvbytes[i]);
	}
	pthread_barrier_wait(&w->meet);
	return 0;
}

/* In place: every other instance's part from its buffer. A failing
 * instance meets the barriers first, as fake_allgather(). */
static int fake_allgatherv(void *ctx, void *buf, const size_t *bytes,
			   char *msg, size_t msglen)
{
	struct fake_instance *fi = ctx;
	struct fake_world *w = fi->w;
	uint32_t n = fi->inst.count, me = fi->inst.index, i;

	w->from[me] = buf;
	pthread_barrier_wait(&w->meet);
	for (i = 0; i < n; i++)
		if (i != me)
			memcpy((uint8_t *)buf + part_at(bytes, i),
			       w->from[i] + part_at(bytes, i), bytes[i]);
	pthread_barrier_wait(&w->meet);
	if ((int)me == w->fail_index) {
		snprintf(msg, msglen, "instance %u lost its peers", me);
		return -EPIPE;
	}
	return 0;
}

static void *instance_main(void *arg)
{
	struct fake_instance *fi = arg;
	uint32_t irf = fi->b->exe.instance_replication_factor;

	fi->rc = ipufw_run(fi->ex, &fi->b->exe, &fi->b->arenas[fi->inst.index * irf],
			   fi->b->exe.arena_size, fi->msg, sizeof(fi->msg));
	return NULL;
}

/* What the instances give their executors. */
enum how {
	ALLGATHER,	/* the allgather alone */
	V,		/* with alltoallv and allgatherv */
	/*
	 * LIBIPUFW_1.0's struct, which ended at @ctx, through the symbol's
	 * old version, as a program built then calls it: the struct ends
	 * where a page that faults begins, so reading past it crashes.
	 */
	ABI_1_0,
	HOWS
};

struct ipufw_instances_v10 {
	uint32_t index;
	uint32_t count;
	int (*allgather)(void *ctx, void *buf, size_t bytes, char *msg,
			 size_t msglen);
	void *ctx;
};

__asm__(".symver set_instances_v10,ipufw_executor_set_instances@LIBIPUFW_1.0");
void set_instances_v10(struct ipufw_executor *ex,
		       const struct ipufw_instances_v10 *inst);

/* @inst as 1.0's struct, at the end of a page whose next one faults. */
static void give_v10(struct fake_instance *fi, void **mapping)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ipufw_instances_v10 *old;

	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + page, page, PROT_NONE), 0);
	old = (struct ipufw_instances_v10 *)(m + page - sizeof(*old));
	*old = (struct ipufw_instances_v10){
		.index = fi->inst.index, .count = fi->inst.count,
		.allgather = fi->inst.allgather, .ctx = fi->inst.ctx,
	};
	set_instances_v10(fi->ex, old);
	*mapping = m;
}

/* Run @b (RF replicas, arenas filled) as @n instances, each in a thread;
 * their results into @fi. */
static void run_split(struct eb *b, uint32_t n, int fail_index, int how,
		      struct fake_instance *fi)
{
	struct fake_world w = { .fail_index = fail_index };
	long page = sysconf(_SC_PAGESIZE);
	void *v10[RF] = { NULL };
	pthread_t th[RF];
	uint32_t i;

	b->exe.instance_replication_factor = RF / n;
	assert_int_equal(ipu_exe_validate(&b->exe, b->err, sizeof(b->err)), 0);
	w.cap = b->exe.arena_size * RF;
	w.all = malloc(w.cap);
	assert_non_null(w.all);
	assert_int_equal(pthread_barrier_init(&w.meet, NULL, n), 0);
	for (i = 0; i < n; i++) {
		fi[i] = (struct fake_instance){
			.w = &w, .b = b,
			.inst = { .index = i, .count = n,
				  .allgather = fake_allgather, .ctx = &fi[i] },
		};
		if (how == V) {
			fi[i].inst.alltoallv = fake_alltoallv;
			fi[i].inst.allgatherv = fake_allgatherv;
		}
		assert_int_equal(ipufw_executor_create(RF / n, &fi[i].ex), 0);
		if (how == ABI_1_0)
			give_v10(&fi[i], &v10[i]);
		else
			ipufw_executor_set_instances(fi[i].ex, &fi[i].inst);
	}
	for (i = 0; i < n; i++)
		assert_int_equal(pthread_create(&th[i], NULL, instance_main,
						&fi[i]), 0);
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		ipufw_executor_destroy(fi[i].ex);
		if (v10[i])
			munmap(v10[i], 2 * page);
	}
	pthread_barrier_destroy(&w.meet);
	free(w.all);
}

/* A program of RF replicas: out = all_reduce(x) with @mode over groups of
 * @size, @stride apart; x filled per replica. */
static struct eb *all_reduce_program(int dt, int64_t mode, uint32_t size,
				     uint32_t stride, uint32_t *o)
{
	struct eb *b = eb_new(RF, 1);
	uint32_t x = eb_tensor(b, dt, EB_SHAPE(5, 300)); /* > a chunk */
	uint32_t r;

	*o = eb_tensor(b, dt, EB_SHAPE(5, 300));
	eb_op(b, IPU_OP_ALL_REDUCE, EB_U32(*o, x), EB_I64(mode, size, stride));
	eb_alloc(b);
	for (r = 0; r < RF; r++)
		eb_fill(b, r, x, 7 + r, -1000, 1000);
	return b;
}

static void check_same_bits(int dt, int64_t mode, uint32_t size,
			    uint32_t stride)
{
	static const uint32_t splits[] = { 2, 4 };
	struct fake_instance fi[RF];
	uint8_t *want;
	uint32_t o, r, s, i;
	struct eb *b = all_reduce_program(dt, mode, size, stride, &o);
	size_t nb = b->tensors[o].nbytes;

	assert_int_equal(eb_run(b), 0);
	want = malloc(nb * RF);
	assert_non_null(want);
	for (r = 0; r < RF; r++)
		memcpy(want + r * nb, eb_ptr(b, r, o), nb);
	eb_free(b);

	for (s = 0; s < HOWS * sizeof(splits) / sizeof(splits[0]); s++) {
		uint32_t n = splits[s / HOWS];
		int how = s % HOWS;

		b = all_reduce_program(dt, mode, size, stride, &o);
		run_split(b, n, -1, how, fi);
		for (i = 0; i < n; i++)
			if (fi[i].rc)
				fail_msg("%u instances: instance %u: %d: %s",
					 n, i, fi[i].rc, fi[i].msg);
		for (r = 0; r < RF; r++)
			if (memcmp(want + r * nb, eb_ptr(b, r, o), nb))
				fail_msg("%s, group %u stride %u, %u instances%s: replica %u differs from one instance's",
					 ipu_dtype_name(dt), size, stride, n,
					 how == V ? " (alltoallv)" :
					 how == ABI_1_0 ? " (1.0's struct)" : "",
					 r);
		eb_free(b);
	}
	free(want);
}

static void test_all_reduce_same_bits_whatever_the_split(void **state)
{
	(void)state;
	check_same_bits(IPU_DTYPE_FLOAT32, IPU_EXE_REDUCE_SUM, RF, 1);
	check_same_bits(IPU_DTYPE_FLOAT32, IPU_EXE_REDUCE_MEAN, RF, 1);
	check_same_bits(IPU_DTYPE_FLOAT16, IPU_EXE_REDUCE_SUM, RF, 1);
	check_same_bits(IPU_DTYPE_INT32, IPU_EXE_REDUCE_SUM, RF, 1);
	check_same_bits(IPU_DTYPE_FLOAT16, IPU_EXE_REDUCE_MEAN, RF, 1);
	check_same_bits(IPU_DTYPE_BFLOAT16, IPU_EXE_REDUCE_MEAN, RF, 1);
}

/* Groups {0, 2} and {1, 3}: in 2x2, every group spans both instances. */
static void test_groupings_across_instances(void **state)
{
	(void)state;
	check_same_bits(IPU_DTYPE_FLOAT32, IPU_EXE_REDUCE_SUM, 2, 2);
	check_same_bits(IPU_DTYPE_FLOAT32, IPU_EXE_REDUCE_MEAN, 2, 1);
	check_same_bits(IPU_DTYPE_INT8, IPU_EXE_REDUCE_SUM, 2, 2);
}

/* An instance's own replicas' part of its own share is read in place from
 * their arenas: the transport carries none of it (at 2 instances that was
 * half of what it moved). The bits are check_same_bits()'s. */
static void test_own_share_not_through_the_transport(void **state)
{
	struct fake_instance fi[RF];
	uint32_t o, n, i;
	struct eb *b;

	(void)state;
	for (n = 2; n <= RF; n *= 2) {
		b = all_reduce_program(IPU_DTYPE_FLOAT32, IPU_EXE_REDUCE_SUM,
				       RF, 1, &o);
		run_split(b, n, -1, V, fi);
		for (i = 0; i < n; i++) {
			assert_int_equal(fi[i].rc, 0);
			if (fi[i].self_bytes)
				fail_msg("%u instances: instance %u sent itself %zu bytes",
					 n, i, fi[i].self_bytes);
		}
		eb_free(b);
	}
}

static void test_failed_allgather_fails_every_local_replica(void **state)
{
	struct fake_instance fi[RF];
	uint32_t o;
	struct eb *b = all_reduce_program(IPU_DTYPE_FLOAT32,
					  IPU_EXE_REDUCE_SUM, RF, 1, &o);

	(void)state;
	for (int how = 0; how < HOWS; how++) {
		run_split(b, 2, 1, how, fi);
		assert_int_equal(fi[0].rc, 0);
		assert_int_equal(fi[1].rc, -EPIPE);
		assert_non_null(strstr(fi[1].msg,
				       "all-reduce across instances: instance 1 lost its peers"));
	}
	eb_free(b);
}

static void test_split_program_needs_its_instances(void **state)
{
	struct ipufw_instances three = { .index = 0, .count = 3,
					 .allgather = fake_allgather };
	uint32_t o;
	struct eb *b = all_reduce_program(IPU_DTYPE_FLOAT32,
					  IPU_EXE_REDUCE_SUM, RF, 1, &o);

	(void)state;
	b->exe.instance_replication_factor = 2;
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "so 2 instances; this executor is not split"));
	ipufw_executor_set_instances(b->ex, &three);
	assert_int_equal(eb_run_raw(b), -EINVAL);
	assert_non_null(strstr(b->err, "this executor is instance 0 of 3"));
	ipufw_executor_set_instances(b->ex, NULL);
	eb_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_reduce_same_bits_whatever_the_split),
		cmocka_unit_test(test_groupings_across_instances),
		cmocka_unit_test(test_own_share_not_through_the_transport),
		cmocka_unit_test(test_failed_allgather_fails_every_local_replica),
		cmocka_unit_test(test_split_program_needs_its_instances),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
