// SPDX-License-Identifier: GPL-2.0
/*
 * The firmware role of ipu.ko, raw: FW_ATTACH, FW_NEXT, FW_DONE and the
 * firmware's mmap of device memory, every error path with otherwise valid
 * input. Each test works on a simulated IPU of its own, which the guest's
 * ipu-simd (serving ipu0 and ipu1 only) leaves alone, and plays the
 * firmware itself.
 */
#include <sys/wait.h>
#include <time.h>

#include "kfw.h"

static void test_fw_attach_twice_is_ealready_and_from_another_file_ebusy(void **state)
{
	struct ipu_fw_attach fa = { 0 };
	struct kfw f = kfw_setup(true);

	(void)state;
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_ATTACH, &fa), -EALREADY);
	assert_int_equal(kt_ioctl(f.owner, IPU_IOCTL_FW_ATTACH, &fa), -EBUSY);
}

static void test_fw_attach_with_flags_or_pad_is_einval(void **state)
{
	struct ipu_fw_attach flags = { .flags = 1 }, pad = { .pad = 1 };
	struct kfw f = kfw_setup(false);

	(void)state;
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_ATTACH, &flags), -EINVAL);
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_ATTACH, &pad), -EINVAL);
}

static void test_fw_attach_without_cap_sys_admin_is_eperm(void **state)
{
	struct kfw f = kfw_setup(false);
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ipu_fw_attach fa = { 0 };

		/* nobody: the open file stays, the capability goes */
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(kt_ioctl(f.fw, IPU_IOCTL_FW_ATTACH, &fa) == -EPERM ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_fw_next_of_a_file_that_is_not_the_firmware_is_enolink(void **state)
{
	struct ipu_fw_work w;
	struct kfw f = kfw_setup(true);

	(void)state;
	assert_int_equal(kfw_next(f.owner, &w), -ENOLINK);
}

static void test_fw_next_with_output_fields_set_is_einval(void **state)
{
	struct ipu_fw_work w = { .id = 1 };
	struct kfw f = kfw_setup(true);

	(void)state;
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_NEXT, &w), -EINVAL);
	memset(&w, 0, sizeof(w));
	w.pad = 1;
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_NEXT, &w), -EINVAL);
}

static void test_fw_next_with_nothing_pending_polls_with_etime(void **state)
{
	struct ipu_fw_work w;
	struct kfw f = kfw_setup(true);

	(void)state;
	assert_int_equal(kfw_next(f.fw, &w), -ETIME); /* timeout 0: a poll */
	memset(&w, 0, sizeof(w));
	w.timeout_ns = 1; /* long past */
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_NEXT, &w), -ETIME);
}

static void test_fw_next_hands_out_the_launch_and_done_completes_its_fence(void **state)
{
	struct ipu_wait wt = { .timeout_ns = INT64_MAX };
	struct ipu_bo_info exe = { 0 }, arena = { 0 };
	struct ipu_fw_work w;
	struct kfw f = kfw_setup(true);
	uint64_t fence;

	(void)state;
	assert_int_equal(kfw_launch(&f, &fence), 0);
	assert_int_equal(kfw_next(f.fw, &w), 0);
	assert_int_equal(kt_bo_info(f.owner, f.l.exe_handle, &exe), 0);
	assert_int_equal(kt_bo_info(f.owner, f.l.arena_handle, &arena), 0);
	/* device offsets: addresses less the base of the lowest buffer */
	assert_int_equal(arena.device_addr - exe.device_addr,
			 w.arena_offset - w.exe_offset);
	assert_int_equal(w.exe_size, 64);
	assert_int_equal(w.arena_size, 4096);
	assert_int_equal(w.num_replicas, 1);
	assert_int_equal(w.pid, (uint32_t)getpid());
	assert_int_equal(kfw_done(f.fw, w.id, -EINVAL), 0);
	wt.fence = fence;
	assert_int_equal(kt_ioctl(f.owner, IPU_IOCTL_WAIT, &wt), 0);
	assert_int_equal(wt.status, -EINVAL);
	/* reported once: the id is no longer running */
	assert_int_equal(kfw_done(f.fw, w.id, 0), -ENOENT);
}

static int32_t fw_wait(const struct kfw *f, uint64_t fence)
{
	int status;

	assert_int_equal(kt_wait_fence(f->owner, fence, INT64_MAX, &status), 0);
	return status;
}

static void test_fw_done_with_a_positive_status_or_pad_is_einval(void **state)
{
	struct ipu_fw_done pad = { .pad = 1 };
	struct ipu_fw_work w;
	struct kfw f = kfw_setup(true);
	uint64_t fence;

	(void)state;
	assert_int_equal(kfw_launch(&f, &fence), 0);
	assert_int_equal(kfw_next(f.fw, &w), 0);
	assert_int_equal(kfw_done(f.fw, w.id, 1), -EINVAL);
	pad.id = w.id;
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_DONE, &pad), -EINVAL);
	/* none of them consumed the launch */
	assert_int_equal(kfw_done(f.fw, w.id, 0), 0);
	assert_int_equal(fw_wait(&f, fence), 0);
}

/*
 * A status that is no user-visible errno (the kernel-internal restart codes,
 * anything below -EHWPOISON) must never reach the launcher: a CQE of
 * -ERESTARTSYS would make its caller restart a launch that ran.
 */
static void test_fw_done_with_a_status_that_is_no_errno_completes_with_eio(void **state)
{
	static const int32_t statuses[] = { -512 /* ERESTARTSYS */,
					    -529 /* EIOCBQUEUED */, -4096,
					    INT32_MIN };
	struct kfw f = kfw_setup(true);
	struct ipu_fw_work w;
	uint64_t fence;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
		assert_int_equal(kfw_launch(&f, &fence), 0);
		assert_int_equal(kfw_next(f.fw, &w), 0);
		assert_int_equal(kfw_done(f.fw, w.id, statuses[i]), 0);
		assert_int_equal(fw_wait(&f, fence), -EIO);
	}
	/* a real errno passes through unchanged */
	assert_int_equal(kfw_launch(&f, &fence), 0);
	assert_int_equal(kfw_next(f.fw, &w), 0);
	assert_int_equal(kfw_done(f.fw, w.id, -ENOEXEC), 0);
	assert_int_equal(fw_wait(&f, fence), -ENOEXEC);
}

static void test_fw_done_of_an_unknown_id_is_enoent(void **state)
{
	struct kfw f = kfw_setup(true);

	(void)state;
	assert_int_equal(kfw_done(f.fw, 12345, 0), -ENOENT);
}

static void test_fw_done_of_a_file_that_is_not_the_firmware_is_enolink(void **state)
{
	struct kfw f = kfw_setup(true);

	(void)state;
	assert_int_equal(kfw_done(f.owner, 1, 0), -ENOLINK);
}

static void test_fw_mmap_sees_what_xfer_wrote(void **state)
{
	struct ipu_bo_info exe = { 0 }, arena = { 0 };
	struct kfw f = kfw_setup(true);
	uint8_t data[64];
	uint8_t *mem;

	(void)state;
	kt_fill(data, sizeof(data), 7);
	assert_int_equal(kt_write_bo(f.owner, f.l.arena_handle, 0, data, sizeof(data)), 0);
	assert_int_equal(kt_bo_info(f.owner, f.l.exe_handle, &exe), 0);
	assert_int_equal(kt_bo_info(f.owner, f.l.arena_handle, &arena), 0);
	mem = kt_mmap(4 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, f.fw, 0);
	/* BOs are allocated from the bottom: the exe BO is at offset 0 */
	assert_memory_equal(mem + (arena.device_addr - exe.device_addr), data,
			    sizeof(data));
}

static void test_fw_mmap_by_a_file_that_is_not_the_firmware_is_einval(void **state)
{
	struct kfw f = kfw_setup(true);

	(void)state;
	assert_int_equal(kt_mmap_err(4096, PROT_READ, MAP_SHARED, f.owner, 0),
			 -EINVAL);
}

static void test_fw_mmap_past_device_memory_is_einval(void **state)
{
	struct kfw f = kfw_setup(true);

	(void)state;
	assert_int_equal(kt_mmap_err((4 << 20) + 4096, PROT_READ, MAP_SHARED,
				     f.fw, 0), -EINVAL);
}

static void test_reset_revokes_the_firmware_which_may_attach_again(void **state)
{
	struct ipu_fw_attach fa = { 0 };
	struct ipu_fw_work w;
	struct kfw f = kfw_setup(true);

	(void)state;
	assert_int_equal(kt_reset(f.owner), 0);
	assert_int_equal(kfw_next(f.fw, &w), -ENOLINK);
	assert_int_equal(kt_ioctl(f.fw, IPU_IOCTL_FW_ATTACH, &fa), 0);
	assert_int_equal(kfw_next(f.fw, &w), -ETIME);
}

/*
 * -ENOLINK from FW_NEXT tells the firmware it was revoked: by then its
 * mapping of device memory must be dead, or a firmware that writes one more
 * result after learning of the reset writes into memory the reset handed
 * back. A child firmware with every page of a 32 MiB device mapped polls
 * FW_NEXT while the owner resets; on -ENOLINK it writes the last page (the
 * one a zap in address order reaches last) and must get SIGBUS.
 */
static void test_fw_enolink_comes_after_the_mapping_is_dead(void **state)
{
	const size_t len = 32u << 20;
	unsigned int idx, round;

	(void)state;
	kt_sim_only("the firmware role (FW_ATTACH, FW_NEXT, FW_DONE)");
	kt_require_sim_ctl();
	idx = kt_sim_add(32);
	for (round = 0; round < 8; round++) {
		struct ipu_fw_attach fa = { 0 };
		int owner = kt_open_attached(idx);
		int fw = kt_open(idx);
		volatile uint8_t *mem;
		int ready[2], st;
		char c;
		pid_t pid;

		assert_int_equal(kt_ioctl(fw, IPU_IOCTL_FW_ATTACH, &fa), 0);
		mem = kt_mmap(len, PROT_READ | PROT_WRITE, MAP_SHARED, fw,
			      IPU_FW_MMAP_OFFSET);
		assert_int_equal(pipe(ready), 0);
		pid = kt_fork_opt(true);
		if (pid == 0) {
			struct ipu_fw_work w;
			size_t off;
			int ret;

			for (off = 0; off < len; off += 4096)
				mem[off] = 1;
			if (write(ready[1], "r", 1) != 1)
				_exit(2);
			do
				ret = kfw_next(fw, &w);
			while (ret == -ETIME);
			if (ret != -ENOLINK)
				_exit(3);
			mem[len - 4096] = 2;
			_exit(1); /* wrote through a revoked mapping */
		}
		close(ready[1]);
		assert_int_equal(read(ready[0], &c, 1), 1);
		close(ready[0]);
		assert_int_equal(kt_reset(owner), 0);
		st = kt_wait(pid);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGBUS)
			fail_msg("round %u: the firmware %s after FW_NEXT said -ENOLINK",
				 round, WIFEXITED(st) && WEXITSTATUS(st) == 1 ?
				 "wrote through its mapping" : "ended otherwise");
		assert_int_equal(kt_close(fw), 0);
		assert_int_equal(kt_close(owner), 0);
	}
}

static void test_closing_the_firmware_file_detaches_it(void **state)
{
	struct kfw f = kfw_setup(true);
	uint64_t fence;

	(void)state;
	assert_int_equal(kt_close(f.fw), 0);
	assert_int_equal(kfw_launch(&f, &fence), -EUNATCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_fw_attach_twice_is_ealready_and_from_another_file_ebusy),
		KT_TEST(test_fw_attach_with_flags_or_pad_is_einval),
		KT_TEST(test_fw_attach_without_cap_sys_admin_is_eperm),
		KT_TEST(test_fw_next_of_a_file_that_is_not_the_firmware_is_enolink),
		KT_TEST(test_fw_next_with_output_fields_set_is_einval),
		KT_TEST(test_fw_next_with_nothing_pending_polls_with_etime),
		KT_TEST(test_fw_next_hands_out_the_launch_and_done_completes_its_fence),
		KT_TEST(test_fw_done_with_a_positive_status_or_pad_is_einval),
		KT_TEST(test_fw_done_with_a_status_that_is_no_errno_completes_with_eio),
		KT_TEST(test_fw_done_of_an_unknown_id_is_enoent),
		KT_TEST(test_fw_done_of_a_file_that_is_not_the_firmware_is_enolink),
		KT_TEST(test_fw_mmap_sees_what_xfer_wrote),
		KT_TEST(test_fw_mmap_by_a_file_that_is_not_the_firmware_is_einval),
		KT_TEST(test_fw_mmap_past_device_memory_is_einval),
		KT_TEST(test_reset_revokes_the_firmware_which_may_attach_again),
		KT_TEST(test_fw_enolink_comes_after_the_mapping_is_dead),
		KT_TEST(test_closing_the_firmware_file_detaches_it),
	};

	return KT_RUN(tests);
}
