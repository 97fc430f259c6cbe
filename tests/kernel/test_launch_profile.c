// SPDX-License-Identifier: GPL-2.0
/*
 * test_launch_profile.c - IPU_LAUNCH_PROFILE: a launch names a profile
 * buffer, the firmware (ipu-simd; on a PCI IPU the device, told by a
 * PROFILE descriptor: test_pci_launch_profile.c) writes the op records
 * into it before the launch completes: one record per op executed, in order, inside the
 * launch's duration, a header with the count; a buffer too small keeps
 * what fits and says it overflowed. The buffer is checked like every
 * buffer reference: another file's handle, a destroyed one, the arena or
 * the image, one too large, a handle without the flag are refused; a
 * buffer destroyed while its launch is in flight stays until it ends.
 */
#include <time.h>

#include "kprog.h"
#include "ksimd.h"

#define FAR_NS INT64_MAX
#define HDR sizeof(struct ipu_profile_header)
#define REC sizeof(struct ipu_profile_record)

struct px {
	int fd;
	struct kp_prog *p;
	struct ipu_launch l;
};

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* ipu0 attached, holding @p's image and arena, weights loaded. */
static void px_setup(struct px *x, struct kp_prog *p)
{
	x->fd = kt_open_attached(0);
	x->p = p;
	kp_launch_bufs(x->fd, p->image, p->len, p->exe->arena_size, &x->l);
}

static void put_arena(void *ctx, uint64_t off, const void *data, uint64_t len)
{
	struct px *x = ctx;

	assert_int_equal(kt_write_bo(x->fd, x->l.arena_handle, off, data, len), 0);
}

static int launch(int fd, const struct ipu_launch *l, uint64_t *fence)
{
	struct ipu_launch arg = *l;
	int err;

	arg.fence = 0;
	err = kt_ioctl(fd, IPU_IOCTL_LAUNCH, &arg);
	*fence = arg.fence;
	return err;
}

/* Run @x with a profile buffer of @size bytes; its bytes into @buf. */
static void run_profiled(struct px *x, uint64_t size, void *buf,
			 int64_t *took_ns)
{
	struct ipu_launch l = x->l;
	uint64_t fence;
	int64_t t0;
	int status;

	l.flags = IPU_LAUNCH_PROFILE;
	l.profile_handle = kt_bo(x->fd, size, NULL);
	t0 = mono_ns();
	assert_int_equal(launch(x->fd, &l, &fence), 0);
	assert_int_equal(kt_wait_fence(x->fd, fence, FAR_NS, &status), 0);
	*took_ns = mono_ns() - t0;
	assert_int_equal(status, 0);
	assert_int_equal(kt_read_bo(x->fd, l.profile_handle, 0, buf, size), 0);
}

static void test_a_profiled_launch_has_one_record_per_op(void **state)
{
	struct kp_prog *p = kp_mlp(1);
	size_t size = kt_page_size();
	const struct ipu_profile_record *rec;
	const struct ipu_profile_header *h;
	uint8_t *buf = malloc(size);
	int64_t took;
	struct px x;
	uint32_t i;

	(void)state;
	ks_require_simd();
	assert_non_null(buf);
	px_setup(&x, p);
	kp_weights(p, 0, put_arena, &x);
	/* A program without loops: each instruction once, in order. */
	for (i = 0; i < p->exe->num_instrs; i++)
		assert_int_not_equal(p->exe->instrs[i].op, IPU_OP_LOOP);
	assert_true(HDR + p->exe->num_instrs * REC <= size);
	run_profiled(&x, size, buf, &took);
	h = (const void *)buf;
	rec = (const void *)(buf + HDR);
	assert_int_equal(h->magic, IPU_PROFILE_MAGIC);
	assert_int_equal(h->record_size, REC);
	assert_int_equal(h->flags, 0);
	assert_int_equal(h->dropped, 0);
	assert_int_equal(h->reserved, 0);
	assert_int_equal(h->count, p->exe->num_instrs);
	for (i = 0; i < h->count; i++) {
		assert_int_equal(rec[i].index, i);
		assert_int_equal(rec[i].op, p->exe->instrs[i].op);
		assert_true(rec[i].start_ns <= rec[i].end_ns);
		if (i)
			assert_true(rec[i - 1].end_ns <= rec[i].start_ns);
		/* Since the launch started on the device: within the host's
		 * view of the launch, from submission to WAIT's return. */
		if (rec[i].end_ns > (uint64_t)took)
			fail_msg("op %u ends at %llu ns, the launch took %lld ns",
				 i, (unsigned long long)rec[i].end_ns,
				 (long long)took);
	}
	free(buf);
	kp_free(p);
}

static void test_a_launch_without_the_flag_writes_nothing(void **state)
{
	struct kp_prog *p = kp_mlp(1);
	struct ipu_profile_header h;
	uint32_t other;
	uint64_t fence;
	struct px x;
	int status;

	(void)state;
	ks_require_simd();
	px_setup(&x, p);
	other = kt_bo(x.fd, kt_page_size(), NULL);
	assert_int_equal(launch(x.fd, &x.l, &fence), 0);
	assert_int_equal(kt_wait_fence(x.fd, fence, FAR_NS, &status), 0);
	assert_int_equal(status, 0);
	assert_int_equal(kt_read_bo(x.fd, other, 0, &h, sizeof(h)), 0);
	assert_int_equal(h.magic, 0);
	kp_free(p);
}

static void test_a_small_buffer_keeps_what_fits_and_overflows(void **state)
{
	struct kp_prog *p = kp_spin(400);
	size_t size = kt_page_size();
	const struct ipu_profile_header *h;
	uint8_t *buf = malloc(size);
	int64_t took;
	struct px x;

	(void)state;
	ks_require_simd();
	assert_non_null(buf);
	px_setup(&x, p);
	run_profiled(&x, size, buf, &took);
	h = (const void *)buf;
	assert_int_equal(h->magic, IPU_PROFILE_MAGIC);
	assert_int_equal(h->count, (size - HDR) / REC);
	assert_int_equal(h->flags, IPU_PROFILE_OVERFLOW);
	/* 400 iterations of a body of two ops at least. */
	assert_true(h->count + h->dropped >= 800);
	free(buf);
	kp_free(p);
}

static void test_bad_profile_buffers_are_refused(void **state)
{
	struct kp_prog *p = kp_mlp(1);
	size_t page = kt_page_size();
	struct ipu_bo_create big;
	struct ipu_launch l;
	uint32_t foreign = 0, freed;
	uint64_t fence;
	struct px x;
	int other, i, err;

	(void)state;
	ks_require_simd();
	px_setup(&x, p);
	l = x.l;
	l.flags = IPU_LAUNCH_PROFILE;
	/* Another file's handle (of ipu1: ipu0 has one owner), one this
	 * file never had (its own are 1 and 2: the image and the arena). */
	if (kt_have_dev(1)) {
		other = kt_open_attached(1);
		for (i = 0; i < 4; i++)
			foreign = kt_bo(other, page, NULL);
		l.profile_handle = foreign;
		assert_int_equal(launch(x.fd, &l, &fence), -ENOENT);
	} else {
		print_message("no ipu1: the other file's handle skipped\n");
	}
	/* A destroyed one. */
	freed = kt_bo(x.fd, page, NULL);
	assert_int_equal(kt_bo_destroy(x.fd, freed), 0);
	l.profile_handle = freed;
	assert_int_equal(launch(x.fd, &l, &fence), -ENOENT);
	/* None. */
	l.profile_handle = 0;
	assert_int_equal(launch(x.fd, &l, &fence), -ENOENT);
	/* The program's own buffers: the firmware would overwrite them. */
	l.profile_handle = x.l.arena_handle;
	assert_int_equal(launch(x.fd, &l, &fence), -EINVAL);
	l.profile_handle = x.l.exe_handle;
	assert_int_equal(launch(x.fd, &l, &fence), -EINVAL);
	/* A handle without the flag. */
	l = x.l;
	l.profile_handle = kt_bo(x.fd, page, NULL);
	assert_int_equal(launch(x.fd, &l, &fence), -EINVAL);
	/* Larger than a profile buffer may be. */
	err = kt_bo_create(x.fd, IPU_PROFILE_MAX_BYTES + page, &big);
	if (!err) {
		l.flags = IPU_LAUNCH_PROFILE;
		l.profile_handle = big.handle;
		assert_int_equal(launch(x.fd, &l, &fence), -EINVAL);
	} else {
		assert_int_equal(err, -ENOSPC);
		print_message("no room for a buffer past IPU_PROFILE_MAX_BYTES: that case skipped\n");
	}
	kp_free(p);
}

static void test_a_buffer_destroyed_in_flight_lives_until_the_end(void **state)
{
	struct kp_prog *p = kp_spin(2000);
	struct ipu_profile_header h;
	struct ipu_bo_create c;
	struct ipu_launch l;
	uint64_t fence;
	struct px x;
	int status;
	void *map;

	(void)state;
	ks_require_simd();
	px_setup(&x, p);
	l = x.l;
	l.flags = IPU_LAUNCH_PROFILE;
	l.profile_handle = kt_bo(x.fd, kt_page_size(), NULL);
	assert_int_equal(launch(x.fd, &l, &fence), 0);
	assert_int_equal(kt_bo_destroy(x.fd, l.profile_handle), 0);
	/*
	 * Were the destroyed buffer's memory freed now, the allocator would
	 * hand it to this one (the lowest free place that fits), and the
	 * firmware's records would land in it. No mapping of the destroyed
	 * buffer is kept: a mapping holds the memory by itself.
	 */
	kt_bo(x.fd, kt_page_size(), &c);
	assert_int_equal(kt_wait_fence(x.fd, fence, FAR_NS, &status), 0);
	assert_int_equal(status, 0);
	map = kt_mmap(kt_page_size(), PROT_READ, MAP_SHARED, x.fd,
		      (off_t)c.mmap_offset);
	memcpy(&h, map, sizeof(h));
	assert_int_not_equal(h.magic, IPU_PROFILE_MAGIC);
	assert_int_equal(h.count, 0);
	kp_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KS_TEST(test_a_profiled_launch_has_one_record_per_op),
		KS_TEST(test_a_launch_without_the_flag_writes_nothing),
		KS_TEST(test_a_small_buffer_keeps_what_fits_and_overflows),
		KS_TEST(test_bad_profile_buffers_are_refused),
		KS_TEST(test_a_buffer_destroyed_in_flight_lives_until_the_end),
	};

	return kt_exit_code(cmocka_run_group_tests(tests, kp_group_setup, NULL),
			    KT_ARRAY_SIZE(tests));
}
