// SPDX-License-Identifier: GPL-2.0
/*
 * A result that cannot be copied out consumes nothing: WAIT and FW_NEXT
 * whose struct sits in a read-only page read their input, fail with
 * -EFAULT, and the fence (WAIT) or the pending launch (FW_NEXT) is still
 * there for the next call. (Before, WAIT consumed the fence and FW_NEXT
 * moved the launch to the running list before the copy-out: a completion
 * was lost, and a launch the firmware never learnt of timed out and reset
 * the device.) Each test works on a simulated IPU of its own, which the
 * guest's ipu-simd leaves alone, and plays the firmware itself.
 */
#include "ktest.h"

struct fw {
	unsigned int idx;
	int owner;	/* attached, with an exe BO and an arena BO */
	int fw;		/* the firmware file */
	uint32_t exe, arena;
};

static struct fw fw_setup(void)
{
	struct ipu_fw_attach fa = { 0 };
	struct fw f;

	kt_require_sim_ctl();
	f.idx = kt_sim_add(4);
	f.owner = kt_open_attached(f.idx);
	f.exe = kt_bo(f.owner, 4096, NULL);
	f.arena = kt_bo(f.owner, 4096, NULL);
	f.fw = kt_open(f.idx);
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_ATTACH, &fa), 0);
	return f;
}

static uint64_t fw_launch(const struct fw *f)
{
	struct ipu_launch l = {
		.exe_handle = f->exe, .arena_handle = f->arena,
		.exe_size = 64, .arena_size = 4096, .num_replicas = 1,
	};

	assert_int_equal(kt_ioctl(f->owner, IPU_IOCTL_LAUNCH, &l), 0);
	assert_int_not_equal(l.fence, 0);
	return l.fence;
}

/* A page holding a copy of @len bytes at @src, then made read-only. */
static void *ro_copy(const void *src, size_t len)
{
	size_t page = kt_page_size();
	void *p = kt_alloc(page);

	memcpy(p, src, len);
	assert_int_equal(mprotect(p, page, PROT_READ), 0);
	return p;
}

static void test_wait_whose_status_cannot_be_copied_out_keeps_the_fence(void **state)
{
	struct ipu_wait wt = { .timeout_ns = 0 }, *ro;
	struct ipu_fw_work w = { 0 };
	struct ipu_fw_done d = { 0 };
	struct fw f = fw_setup();

	(void)state;
	wt.fence = fw_launch(&f);
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_NEXT, &w), 0);
	d.id = w.id;
	d.status = -ENOEXEC;
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_DONE, &d), 0);

	/* Done, so WAIT has a status to give, and nowhere to put it. */
	ro = ro_copy(&wt, sizeof(wt));
	assert_int_equal(kt_ioctl(f.owner, IPU_IOCTL_WAIT, ro), -EFAULT);
	/* The fence is still there, with its status... */
	assert_int_equal(kt_ioctl(f.owner, IPU_IOCTL_WAIT, &wt), 0);
	assert_int_equal(wt.status, -ENOEXEC);
	/* ...and consumed by the WAIT that delivered it. */
	wt.status = 0;
	assert_int_equal(kt_ioctl(f.owner, IPU_IOCTL_WAIT, &wt), -ENOENT);
}

static void test_fw_next_whose_work_cannot_be_copied_out_leaves_it_pending(void **state)
{
	struct ipu_wait wt = { .timeout_ns = INT64_MAX };
	struct ipu_fw_work w = { 0 }, *ro;
	struct ipu_fw_done d = { 0 };
	struct fw f = fw_setup();

	(void)state;
	wt.fence = fw_launch(&f);
	ro = ro_copy(&w, sizeof(w));
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_NEXT, ro), -EFAULT);
	/* The firmware did not learn of the launch: it is still pending. */
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_NEXT, &w), 0);
	assert_int_not_equal(w.id, 0);
	assert_int_equal(w.exe_size, 64);
	d.id = w.id;
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_DONE, &d), 0);
	assert_int_equal(kt_ioctl(f.owner, IPU_IOCTL_WAIT, &wt), 0);
	assert_int_equal(wt.status, 0);
	/* Handed out once: nothing else is pending. */
	memset(&w, 0, sizeof(w));
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_NEXT, &w), -ETIME);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_wait_whose_status_cannot_be_copied_out_keeps_the_fence),
		KT_TEST(test_fw_next_whose_work_cannot_be_copied_out_leaves_it_pending),
	};

	return KT_RUN(tests);
}
