// SPDX-License-Identifier: GPL-2.0
/*
 * test_launch_ioctl.c - IPU_IOCTL_LAUNCH and IPU_IOCTL_WAIT: a launch
 * gives a fence, WAIT returns the program's status and consumes the
 * fence; a timeout in the past is -ETIME and keeps it; a consumed or
 * unknown fence is -ENOENT; a file holds at most 256 fences (-EAGAIN);
 * without firmware a launch is -EUNATCH; closing a file with launches in
 * flight leaks nothing. The firmware is ipu-simd; to hold a launch in
 * flight, the test stops the daemon (SIGSTOP) and lets it go on after.
 */
#include "kprog.h"
#include "ksimd.h"

#define MAX_FENCES 256
#define FAR_NS INT64_MAX

/* An attached ipu0 holding @p's image and an arena, input slot filled. */
struct lx {
	int fd;
	struct ipu_launch l;
};

static struct lx lx_setup(const void *image, size_t len, uint64_t arena)
{
	struct lx x;

	x.fd = kt_open_attached(0);
	kp_launch_bufs(x.fd, image, len, arena, &x.l);
	return x;
}

static int launch(int fd, struct ipu_launch *l, uint64_t *fence)
{
	struct ipu_launch arg = *l;
	int err;

	arg.fence = 0;
	err = kt_ioctl(fd, IPU_IOCTL_LAUNCH, &arg);
	*fence = arg.fence;
	return err;
}

static void put_arena(void *ctx, uint64_t off, const void *data, uint64_t len)
{
	struct lx *x = ctx;

	assert_int_equal(kt_write_bo(x->fd, x->l.arena_handle, off, data, len), 0);
}

/* Garbage for the firmware: refused at once with -ENOEXEC. */
static const uint8_t junk[256];

/* ipu0 set up with junk for an image, and a launch of it: its fence. */
static uint64_t junk_launch(struct lx *lx)
{
	uint64_t fence;

	*lx = lx_setup(junk, sizeof(junk), 4096);
	assert_int_equal(launch(lx->fd, &lx->l, &fence), 0);
	return fence;
}

static void test_launch_and_wait_run_the_program(void **state)
{
	struct kp_prog *p = kp_mlp(1);
	const struct ipu_exe_stream *in = &p->exe->streams[p->in[0]];
	const struct ipu_exe_stream *out = &p->exe->streams[p->out[0]];
	float x[16], y[8], model[8];
	struct kp_setup m;
	struct lx lx;
	uint64_t fence;
	int status, i;
	char msg[256];

	(void)state;
	ks_require_simd();
	lx = lx_setup(p->image, p->len, p->exe->arena_size);
	for (i = 0; i < 16; i++)
		x[i] = (float)i / 8.0f - 1.0f;
	/* The program's weights, then its input. */
	kp_weights(p, 0, put_arena, &lx);
	assert_int_equal(kt_write_bo(lx.fd, lx.l.arena_handle, in->slots_offset,
				     x, sizeof(x)), 0);
	kp_open(&m, p, (const char *[]){ "model:0" });
	assert_int_equal(launch(lx.fd, &lx.l, &fence), 0);
	assert_true(fence != 0);
	assert_int_equal(kt_wait_fence(lx.fd, fence, FAR_NS, &status), 0);
	assert_int_equal(status, 0);
	assert_int_equal(kt_read_bo(lx.fd, lx.l.arena_handle, out->slots_offset,
				    y, sizeof(y)), 0);
	assert_int_equal(kp_run(&m, (void *[]){ x }, (void *[]){ model }, msg,
				sizeof(msg)), 0);
	assert_memory_equal(y, model, sizeof(y));
	kp_free(p);
}

static void test_wait_returns_the_firmware_status(void **state)
{
	struct lx lx;
	uint64_t fence;
	int status;

	(void)state;
	ks_require_simd();
	fence = junk_launch(&lx);
	assert_int_equal(kt_wait_fence(lx.fd, fence, FAR_NS, &status), 0);
	assert_int_equal(status, -ENOEXEC);
}

static void test_a_past_timeout_is_etime_and_keeps_the_fence(void **state)
{
	struct lx lx;
	uint64_t fence;
	int status;

	(void)state;
	ks_require_simd();
	/* A stopped firmware takes nothing: the launch stays in flight. */
	ks_simd_stop();
	fence = junk_launch(&lx);
	assert_int_equal(kt_wait_fence(lx.fd, fence, 1, &status), -ETIME);
	assert_int_equal(kt_wait_fence(lx.fd, fence, 0, &status), -ETIME);
	ks_simd_cont();
	assert_int_equal(kt_wait_fence(lx.fd, fence, FAR_NS, &status), 0);
	assert_int_equal(status, -ENOEXEC);
}

static void test_a_consumed_fence_is_enoent(void **state)
{
	struct lx lx;
	uint64_t fence;
	int status;

	(void)state;
	ks_require_simd();
	fence = junk_launch(&lx);
	assert_int_equal(kt_wait_fence(lx.fd, fence, FAR_NS, &status), 0);
	assert_int_equal(kt_wait_fence(lx.fd, fence, FAR_NS, &status), -ENOENT);
}

static void test_an_unknown_fence_is_enoent(void **state)
{
	int fd = kt_open_attached(0);

	(void)state;
	assert_int_equal(kt_wait_fence(fd, 77, FAR_NS, NULL), -ENOENT);
}

static void test_past_256_fences_is_eagain(void **state)
{
	uint64_t fences[MAX_FENCES], extra;
	struct lx lx;
	int status, i;

	(void)state;
	ks_require_simd();
	lx = lx_setup(junk, sizeof(junk), 4096);
	for (i = 0; i < MAX_FENCES; i++)
		assert_int_equal(launch(lx.fd, &lx.l, &fences[i]), 0);
	assert_int_equal(launch(lx.fd, &lx.l, &extra), -EAGAIN);
	for (i = 0; i < MAX_FENCES; i++) {
		assert_int_equal(kt_wait_fence(lx.fd, fences[i], FAR_NS, &status), 0);
		assert_int_equal(status, -ENOEXEC);
	}
	/* Waiting gave them back. */
	assert_int_equal(launch(lx.fd, &lx.l, &extra), 0);
	assert_int_equal(kt_wait_fence(lx.fd, extra, FAR_NS, &status), 0);
}

static void test_wait_with_flags_is_einval(void **state)
{
	struct ipu_wait w;
	struct lx lx;
	uint64_t fence;

	(void)state;
	ks_require_simd();
	fence = junk_launch(&lx);
	memset(&w, 0, sizeof(w));
	w.fence = fence;
	w.timeout_ns = FAR_NS;
	w.flags = 1;
	assert_int_equal(kt_ioctl(lx.fd, IPU_IOCTL_WAIT, &w), -EINVAL);
	assert_int_equal(kt_wait_fence(lx.fd, fence, FAR_NS, NULL), 0);
}

static void test_wait_with_a_status_in_is_einval(void **state)
{
	struct ipu_wait w;
	struct lx lx;
	uint64_t fence;

	(void)state;
	ks_require_simd();
	fence = junk_launch(&lx);
	memset(&w, 0, sizeof(w));
	w.fence = fence;
	w.timeout_ns = FAR_NS;
	w.status = -1;
	assert_int_equal(kt_ioctl(lx.fd, IPU_IOCTL_WAIT, &w), -EINVAL);
	assert_int_equal(kt_wait_fence(lx.fd, fence, FAR_NS, NULL), 0);
}

static void test_a_launch_with_a_fence_in_is_einval(void **state)
{
	struct lx lx;

	(void)state;
	lx = lx_setup(junk, sizeof(junk), 4096);
	lx.l.fence = 5;
	assert_int_equal(kt_ioctl(lx.fd, IPU_IOCTL_LAUNCH, &lx.l), -EINVAL);
}

static void test_a_launch_without_firmware_is_eunatch(void **state)
{
	struct ipu_launch l;
	unsigned int idx;
	uint64_t page = kt_page_size();
	int fd;

	(void)state;
	kt_sim_only("a device no userspace firmware serves (-EUNATCH)");
	kt_require_sim_ctl();
	/* The guest's ipu-simd serves ipu0 and ipu1 only. */
	idx = kt_sim_add(1);
	fd = kt_open_attached(idx);
	memset(&l, 0, sizeof(l));
	l.exe_handle = kt_bo(fd, page, NULL);
	l.arena_handle = kt_bo(fd, page, NULL);
	l.exe_size = page;
	l.arena_size = page;
	l.num_replicas = 1;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_LAUNCH, &l), -EUNATCH);
}

/*
 * A split launch (instance_count > 0) needs a device that asks the host
 * for the other instances' parts (IPU_FEATURE_GATHER): PCIe IPUs do
 * (test_pci_gather.c runs them); a simulated IPU, whose firmware gathers
 * through ipu-simd, refuses it with -EOPNOTSUPP and says so in GET_INFO.
 */
static void test_a_split_launch_without_device_gather_is_eopnotsupp(void **state)
{
	struct ipu_info info;
	struct lx lx;

	(void)state;
	lx = lx_setup(junk, sizeof(junk), 4096);
	assert_int_equal(kt_get_info(lx.fd, &info), 0);
	kt_sim_only("a device without gather requests (-EOPNOTSUPP)");
	assert_int_equal(info.features & IPU_FEATURE_GATHER, 0);
	lx.l.instance_count = 2;
	lx.l.instance_index = 1;
	lx.l.staging_handle = kt_bo(lx.fd, 4096, NULL);
	lx.l.staging_size = 4096;
	assert_int_equal(kt_ioctl(lx.fd, IPU_IOCTL_LAUNCH, &lx.l), -EOPNOTSUPP);
	/* The same launch unsplit runs. */
	lx.l.instance_count = 0;
	lx.l.instance_index = 0;
	lx.l.staging_handle = 0;
	lx.l.staging_size = 0;
	assert_int_equal(kt_ioctl(lx.fd, IPU_IOCTL_LAUNCH, &lx.l), 0);
	assert_int_equal(kt_wait_fence(lx.fd, lx.l.fence, FAR_NS, NULL), 0);
}

/*
 * A profiled launch (IPU_LAUNCH_PROFILE) needs a device that writes
 * profiles, which GET_INFO says (IPU_FEATURE_PROFILE): the rig's IPUs all
 * do, simulated ones (their firmware) and ipu-emu's PCI IPUs (CAPS.PROFILE,
 * spec 2.1); test_launch_profile.c and test_pci_launch_profile.c run
 * profiled launches, and test_pci_caps.c makes a device without the
 * feature (no_profile), which refuses them with -EOPNOTSUPP.
 */
static void test_the_rigs_ipus_have_the_profile_feature(void **state)
{
	struct ipu_info info;
	struct lx lx;

	(void)state;
	lx = lx_setup(junk, sizeof(junk), 4096);
	assert_int_equal(kt_get_info(lx.fd, &info), 0);
	assert_int_not_equal(info.features & IPU_FEATURE_PROFILE, 0);
}

static void test_closing_a_file_with_a_launch_in_flight_leaks_nothing(void **state)
{
	uint64_t before;
	struct lx lx;
	int i;

	(void)state;
	ks_require_simd();
	before = kt_sysfs_u64(0, "memory_used");
	ks_simd_stop();
	junk_launch(&lx);
	/* The launch keeps its BOs until the firmware is done with it. */
	assert_int_equal(kt_close(lx.fd), 0);
	assert_true(kt_sysfs_u64(0, "memory_used") > before);
	ks_simd_cont();
	for (i = 0; i < KS_POLLS && kt_sysfs_u64(0, "memory_used") != before; i++)
		ks_pause();
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_launch_and_wait_run_the_program),
		KT_TEST(test_wait_returns_the_firmware_status),
		KS_TEST(test_a_past_timeout_is_etime_and_keeps_the_fence),
		KT_TEST(test_a_consumed_fence_is_enoent),
		KT_TEST(test_an_unknown_fence_is_enoent),
		KT_TEST(test_past_256_fences_is_eagain),
		KT_TEST(test_wait_with_flags_is_einval),
		KT_TEST(test_wait_with_a_status_in_is_einval),
		KT_TEST(test_a_launch_with_a_fence_in_is_einval),
		KT_TEST(test_a_launch_without_firmware_is_eunatch),
		KT_TEST(test_a_split_launch_without_device_gather_is_eopnotsupp),
		KT_TEST(test_the_rigs_ipus_have_the_profile_feature),
		KS_TEST(test_closing_a_file_with_a_launch_in_flight_leaks_nothing),
	};

	return kt_exit_code(cmocka_run_group_tests(tests, kp_group_setup, NULL),
			    KT_ARRAY_SIZE(tests));
}
