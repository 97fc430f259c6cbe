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
#include "kfw.h"

static void test_wait_whose_status_cannot_be_copied_out_keeps_the_fence(void **state)
{
	struct ipu_wait wt = { .timeout_ns = 0 }, *ro;
	struct ipu_fw_work w = { 0 };
	struct ipu_fw_done d = { 0 };
	struct kfw f = kfw_setup(true);
	uint64_t fence;

	(void)state;
	assert_int_equal(kfw_launch(&f, &fence), 0);
	wt.fence = fence;
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_NEXT, &w), 0);
	d.id = w.id;
	d.status = -ENOEXEC;
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_DONE, &d), 0);

	/* Done, so WAIT has a status to give, and nowhere to put it. */
	ro = kt_ro_copy(&wt, sizeof(wt));
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
	struct kfw f = kfw_setup(true);
	uint64_t fence;

	(void)state;
	assert_int_equal(kfw_launch(&f, &fence), 0);
	wt.fence = fence;
	ro = kt_ro_copy(&w, sizeof(w));
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
