// SPDX-License-Identifier: GPL-2.0
/*
 * test_attach.c - IPU_IOCTL_ATTACH and IPU_IOCTL_DETACH: one owner file per
 * device, its pid reported in GET_INFO and sysfs, across files and processes.
 */
#include "kheld.h"

static void test_attach_makes_the_file_owner_and_detach_ends_it(void **state)
{
	int fd = kt_open(0);

	(void)state;
	assert_int_equal(kt_attach(fd), 0);
	assert_int_equal(kt_info(fd).owner_pid, (uint32_t)getpid());
	assert_int_equal(kt_detach(fd), 0);
	assert_int_equal(kt_info(fd).owner_pid, 0);
}

static void test_attach_twice_from_the_same_file_is_ealready(void **state)
{
	int fd = kt_open_attached(0);

	(void)state;
	assert_int_equal(kt_attach(fd), -EALREADY);
	/* still the owner */
	assert_int_equal(kt_info(fd).owner_pid, (uint32_t)getpid());
	assert_int_equal(kt_detach(fd), 0);
}

static void test_attach_from_a_second_file_is_ebusy(void **state)
{
	int owner = kt_open_attached(0);
	int other = kt_open(0);

	(void)state;
	assert_int_equal(kt_attach(other), -EBUSY);
	/* the owner is unchanged and can still detach */
	assert_int_equal(kt_detach(owner), 0);
}

static void test_attach_with_unknown_flags_is_einval(void **state)
{
	int fd = kt_open(0);
	struct ipu_attach a = { .flags = 1 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_ATTACH, &a), -EINVAL);
	a.flags = 1u << 31;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_ATTACH, &a), -EINVAL);
	assert_int_equal(kt_info(fd).owner_pid, 0);
}

static void test_attach_with_nonzero_pad_is_einval(void **state)
{
	int fd = kt_open(0);
	struct ipu_attach a = { .pad = 1 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_ATTACH, &a), -EINVAL);
	assert_int_equal(kt_info(fd).owner_pid, 0);
}

static void test_attach_with_null_argument_is_efault(void **state)
{
	int fd = kt_open(0);

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_ATTACH, NULL), -EFAULT);
	assert_int_equal(kt_info(fd).owner_pid, 0);
}

static void test_detach_without_attaching_is_eacces(void **state)
{
	int fd = kt_open(0);

	(void)state;
	assert_int_equal(kt_detach(fd), -EACCES);
}

static void test_detach_from_a_file_that_is_not_owner_is_eacces(void **state)
{
	int owner = kt_open_attached(0);
	int other = kt_open(0);

	(void)state;
	assert_int_equal(kt_detach(other), -EACCES);
	/* the owner still is */
	assert_int_equal(kt_attach(owner), -EALREADY);
	assert_int_equal(kt_info(other).owner_pid, (uint32_t)getpid());
}

static void test_detach_twice_is_eacces(void **state)
{
	int fd = kt_open_attached(0);

	(void)state;
	assert_int_equal(kt_detach(fd), 0);
	assert_int_equal(kt_detach(fd), -EACCES);
}

static void test_detach_with_unknown_flags_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_detach d = { .flags = 1 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_DETACH, &d), -EINVAL);
	assert_int_equal(kt_attach(fd), -EALREADY);
}

static void test_detach_with_nonzero_pad_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_detach d = { .pad = 1 };

	(void)state;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_DETACH, &d), -EINVAL);
	assert_int_equal(kt_attach(fd), -EALREADY);
}

static void test_second_file_can_attach_after_detach(void **state)
{
	int first = kt_open_attached(0);
	int second = kt_open(0);

	(void)state;
	assert_int_equal(kt_detach(first), 0);
	assert_int_equal(kt_attach(second), 0);
	assert_int_equal(kt_attach(first), -EBUSY);
}

static void test_closing_the_owner_file_releases_the_device(void **state)
{
	int first = kt_open_attached(0);
	int second = kt_open(0);

	(void)state;
	assert_int_equal(kt_close(first), 0);
	assert_int_equal(kt_info(second).owner_pid, 0);
	assert_int_equal(kt_attach(second), 0);
}

/*
 * A file is released with its last reference, and an io_uring request
 * holds one until the ring frees it (on ring exit, from a kernel worker):
 * closing the owner while its launch is in flight leaves the device
 * attached. DETACH ends the attachment at once, ring or not: libsession
 * and the test rig's teardown detach before they close. The launch is
 * held in flight (kheld.h) by the firmware or, on PCI, the device.
 */
static void test_closing_the_owner_with_a_uring_launch_in_flight_keeps_it(void **state)
{
	struct kfw f = kh_setup();
	uint64_t id = kh_uring_launch(&f);
	int other = kt_open(f.idx);

	(void)state;
	assert_int_equal(kt_close(f.owner), 0);
	assert_int_equal(kt_attach(other), -EBUSY);
	kh_assert_no_cqe();
	kh_release(&f, id, 0);
	assert_int_equal(ku_one(&ku_r), 0);
}

static void test_detach_frees_the_device_while_a_ring_holds_the_file(void **state)
{
	struct kfw f = kh_setup();
	uint64_t id = kh_uring_launch(&f);
	int other = kt_open(f.idx);

	(void)state;
	assert_int_equal(kt_detach(f.owner), 0);
	assert_int_equal(kt_close(f.owner), 0);
	assert_int_equal(kt_attach(other), 0);
	/* The launch it started still completes, to the ring. */
	kh_assert_no_cqe();
	kh_release(&f, id, 0);
	assert_int_equal(ku_one(&ku_r), 0);
}

static void test_attachment_is_per_device(void **state)
{
	int fd0 = kt_open_attached(0);
	int fd1 = kt_open(1);
	int other0 = kt_open(0);

	(void)state;
	(void)fd0;
	assert_int_equal(kt_attach(fd1), 0);
	assert_int_equal(kt_attach(other0), -EBUSY);
}

static void test_sysfs_owner_pid_follows_attach_and_detach(void **state)
{
	int fd = kt_open(0);

	(void)state;
	assert_int_equal(kt_sysfs_u64(0, "owner_pid"), 0);
	assert_int_equal(kt_attach(fd), 0);
	assert_int_equal(kt_sysfs_u64(0, "owner_pid"), (uint64_t)getpid());
	assert_int_equal(kt_detach(fd), 0);
	assert_int_equal(kt_sysfs_u64(0, "owner_pid"), 0);
}

/*
 * The attachment belongs to the open file, not to the process: a child that
 * shares the file (fork) is the owner too, and the pid stays the attacher's.
 */
static void test_attachment_belongs_to_the_file_not_the_process(void **state)
{
	int fd = kt_open_attached(0);
	pid_t parent = getpid();
	pid_t pid;

	(void)state;
	pid = kt_fork_opt(true);
	if (pid == 0) {
		struct ipu_info info;

		kt_child_check(kt_attach(fd) == -EALREADY, 10);
		kt_child_check(kt_get_info(fd, &info) == 0, 11);
		kt_child_check(info.owner_pid == (uint32_t)parent, 12);
		kt_child_check(kt_reset(fd) == 0, 13);
		_exit(0);
	}
	kt_wait_ok(pid);
	/* the child's exit did not close the file: still attached */
	assert_int_equal(kt_attach(fd), -EALREADY);
}

/*
 * Two processes: the parent owns the device; a child opens its own file, is
 * refused with -EBUSY, and sees the parent's pid in GET_INFO and sysfs.
 */
static void test_second_process_gets_ebusy_and_sees_owner_pid(void **state)
{
	pid_t parent = getpid(), pid;
	int fd = kt_open_attached(0);
	char sysfs_owner[64];

	(void)state;
	snprintf(sysfs_owner, sizeof(sysfs_owner), KT_SYSFS_CLASS "/ipu%u/owner_pid",
		 kt_dev(0));
	pid = kt_fork();
	if (pid == 0) {
		struct ipu_info info;
		char buf[32];
		int cfd;

		/* Its own file: the parent's copy was closed by kt_fork(). */
		cfd = open(KT_NODE(0), O_RDWR | O_CLOEXEC);
		kt_child_check(cfd >= 0, 10);
		kt_child_check(kt_attach(cfd) == -EBUSY, 11);
		kt_child_check(kt_get_info(cfd, &info) == 0, 12);
		kt_child_check(info.owner_pid == (uint32_t)parent, 13);
		kt_child_check(kt_read_file(sysfs_owner, buf, sizeof(buf)) == 0,
			       14);
		kt_child_check(strtoul(buf, NULL, 10) == (unsigned long)parent, 15);
		kt_child_check(kt_detach(cfd) == -EACCES, 16);
		_exit(0);
	}
	kt_wait_ok(pid);
	/* The child's refusals changed nothing. */
	assert_int_equal(kt_attach(fd), -EALREADY);
}

/*
 * The child owns the device; the parent is refused and sees the child's
 * pid; once the child exits, the parent can attach.
 */
static void test_second_process_can_attach_after_the_owner_exits(void **state)
{
	int ready[2], go[2];
	pid_t pid;
	int fd;

	(void)state;
	kt_require_dev(0);
	kt_pipe(ready);
	kt_pipe(go);
	pid = kt_fork();
	if (pid == 0) {
		int cfd = open(KT_NODE(0), O_RDWR | O_CLOEXEC);

		kt_child_check(cfd >= 0, 10);
		kt_child_check(kt_attach(cfd) == 0, 11);
		kt_pipe_send(ready[1], 'a');
		/* Hold the device until the parent has looked. */
		kt_pipe_recv(go[0]);
		_exit(0);
	}
	assert_int_equal(kt_pipe_recv(ready[0]), 'a');
	fd = kt_open(0);
	assert_int_equal(kt_attach(fd), -EBUSY);
	assert_int_equal(kt_info(fd).owner_pid, (uint32_t)pid);
	assert_int_equal(kt_sysfs_u64(0, "owner_pid"), (uint64_t)pid);

	kt_pipe_send(go[1], 'g');
	kt_wait_ok(pid);
	/* The child's files were released when it exited. */
	assert_int_equal(kt_info(fd).owner_pid, 0);
	assert_int_equal(kt_attach(fd), 0);
	assert_int_equal(kt_info(fd).owner_pid, (uint32_t)getpid());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_attach_makes_the_file_owner_and_detach_ends_it),
		KT_TEST(test_attach_twice_from_the_same_file_is_ealready),
		KT_TEST(test_attach_from_a_second_file_is_ebusy),
		KT_TEST(test_attach_with_unknown_flags_is_einval),
		KT_TEST(test_attach_with_nonzero_pad_is_einval),
		KT_TEST(test_attach_with_null_argument_is_efault),
		KT_TEST(test_detach_without_attaching_is_eacces),
		KT_TEST(test_detach_from_a_file_that_is_not_owner_is_eacces),
		KT_TEST(test_detach_twice_is_eacces),
		KT_TEST(test_detach_with_unknown_flags_is_einval),
		KT_TEST(test_detach_with_nonzero_pad_is_einval),
		KT_TEST(test_second_file_can_attach_after_detach),
		KT_TEST(test_closing_the_owner_file_releases_the_device),
		KH_TEST(test_closing_the_owner_with_a_uring_launch_in_flight_keeps_it),
		KH_TEST(test_detach_frees_the_device_while_a_ring_holds_the_file),
		KT_TEST(test_attachment_is_per_device),
		KT_TEST(test_sysfs_owner_pid_follows_attach_and_detach),
		KT_TEST(test_attachment_belongs_to_the_file_not_the_process),
		KT_TEST(test_second_process_gets_ebusy_and_sees_owner_pid),
		KT_TEST(test_second_process_can_attach_after_the_owner_exits),
	};

	return KT_RUN(tests);
}
