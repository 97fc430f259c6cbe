// SPDX-License-Identifier: GPL-2.0
/*
 * test_hotplug.c - simulated IPUs added and removed at run time through
 * /sys/devices/ipu_sim/{new_device,del_device}, and hot removal while files
 * are open: every later call on such a file fails -ENODEV, closing and
 * unmapping work, pages touched before stay readable, untouched ones raise
 * SIGBUS, and a device can be added again.
 */
#include "ktest.h"

#define ADD_MB 4

/* Lowest N with no ipuN: where new_device must put the next device. */
static unsigned int lowest_free_index(void)
{
	uint64_t present = kt_present();

	return (unsigned int)__builtin_ctzll(~present);
}

/* Adding and removing ----------------------------------------------------- */

static void test_new_device_appears_with_the_requested_memory(void **state)
{
	unsigned int idx;
	char buf[32];
	int fd;

	(void)state;
	kt_require_sim_ctl();
	idx = kt_sim_add(ADD_MB);
	fd = kt_open(idx);
	assert_int_equal(kt_info(fd).memory_total, ADD_MB << 20);
	assert_int_equal(kt_info(fd).platform, IPU_PLATFORM_SIM);
	assert_int_equal(kt_sysfs_u64(idx, "memory_total"), ADD_MB << 20);
	kt_sysfs(idx, "platform", buf, sizeof(buf));
	assert_string_equal(buf, "sim");
}

static void test_new_device_of_0_mb_gets_the_module_default(void **state)
{
	unsigned int idx;
	int fd0, fd;

	(void)state;
	kt_require_sim_ctl();
	/* ipu0 was created at load with sim_mem_mb */
	fd0 = kt_open(0);
	idx = kt_sim_add(0);
	fd = kt_open(idx);
	assert_int_equal(kt_info(fd).memory_total, kt_info(fd0).memory_total);
}

static void test_new_device_takes_the_lowest_free_index(void **state)
{
	unsigned int expect, a, b;

	(void)state;
	kt_require_sim_ctl();
	expect = lowest_free_index();
	a = kt_sim_add(ADD_MB);
	assert_int_equal(a, expect);
	expect = lowest_free_index();
	b = kt_sim_add(ADD_MB);
	assert_int_equal(b, expect);
	/* a hole below b is filled first */
	assert_int_equal(kt_sim_del(a), 0);
	assert_int_equal(kt_sim_add(ADD_MB), a);
}

static void test_del_device_removes_node_and_sysfs_entry(void **state)
{
	unsigned int idx;
	char path[64];

	(void)state;
	kt_require_sim_ctl();
	idx = kt_sim_add(ADD_MB);
	assert_int_equal(kt_sim_del(idx), 0);
	assert_false(kt_present() & (1ull << idx));
	snprintf(path, sizeof(path), "/dev/ipu%u", idx);
	assert_int_equal(open(path, O_RDWR | O_CLOEXEC), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_del_device_of_an_absent_device_is_enodev(void **state)
{
	(void)state;
	kt_require_sim_ctl();
	assert_false(kt_present() & (1ull << 63));
	assert_int_equal(kt_write_file(KT_SIM_CTL "/del_device", "63"), -ENODEV);
}

static void test_removing_a_device_leaves_the_others_alone(void **state)
{
	int fd0 = kt_open_attached(0);
	uint32_t h = kt_bo(fd0, kt_granule(fd0), NULL);
	uint8_t buf[64], back[64];
	unsigned int idx;

	(void)state;
	kt_require_sim_ctl();
	idx = kt_sim_add(ADD_MB);
	kt_open_attached(idx);
	assert_int_equal(kt_sim_del(idx), 0);
	kt_fill(buf, sizeof(buf), 1);
	assert_int_equal(kt_write_bo(fd0, h, 0, buf, sizeof(buf)), 0);
	assert_int_equal(kt_read_bo(fd0, h, 0, back, sizeof(back)), 0);
	assert_pattern(back, sizeof(back), 1);
}

/* Removal while open ------------------------------------------------------ */

/*
 * A device added for the test, with an attached file holding a buffer
 * object of two pages whose first page is mapped, written and so touched,
 * a second file that never attached; then the device is removed.
 */
struct removed {
	unsigned int idx;
	int fd;
	int idle_fd;
	struct ipu_bo_create bo;
	uint8_t *map;
	size_t size;
};

static struct removed add_use_remove(void)
{
	struct removed r;

	kt_require_sim_ctl();
	r.idx = kt_sim_add(ADD_MB);
	r.fd = kt_open_attached(r.idx);
	r.idle_fd = kt_open(r.idx);
	r.size = 2 * kt_granule(r.fd);
	kt_bo(r.fd, r.size, &r.bo);
	r.map = kt_mmap(r.size, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd,
			(off_t)r.bo.mmap_offset);
	assert_true(r.map != MAP_FAILED);
	kt_fill(r.map, kt_page_size(), 2); /* touches the first page only */
	assert_int_equal(kt_sim_del(r.idx), 0);
	return r;
}

static void test_removed_device_get_info_is_enodev(void **state)
{
	struct removed r = add_use_remove();
	struct ipu_info info;

	(void)state;
	assert_int_equal(kt_get_info(r.fd, &info), -ENODEV);
	assert_int_equal(kt_get_info(r.idle_fd, &info), -ENODEV);
}

static void test_removed_device_attach_is_enodev(void **state)
{
	struct removed r = add_use_remove();

	(void)state;
	assert_int_equal(kt_attach(r.idle_fd), -ENODEV);
}

static void test_removed_device_attach_by_the_owner_is_enodev(void **state)
{
	struct removed r = add_use_remove();

	(void)state;
	assert_int_equal(kt_attach(r.fd), -ENODEV);
}

static void test_removed_device_detach_is_enodev(void **state)
{
	struct removed r = add_use_remove();

	(void)state;
	assert_int_equal(kt_detach(r.fd), -ENODEV);
}

static void test_removed_device_bo_create_is_enodev(void **state)
{
	struct removed r = add_use_remove();
	struct ipu_bo_create bo;

	(void)state;
	assert_int_equal(kt_bo_create(r.fd, r.size, &bo), -ENODEV);
}

static void test_removed_device_bo_info_is_enodev(void **state)
{
	struct removed r = add_use_remove();
	struct ipu_bo_info bi;

	(void)state;
	assert_int_equal(kt_bo_info(r.fd, r.bo.handle, &bi), -ENODEV);
}

static void test_removed_device_bo_destroy_is_enodev(void **state)
{
	struct removed r = add_use_remove();

	(void)state;
	assert_int_equal(kt_bo_destroy(r.fd, r.bo.handle), -ENODEV);
}

static void test_removed_device_xfer_is_enodev(void **state)
{
	struct removed r = add_use_remove();
	uint8_t buf[64];

	(void)state;
	kt_fill(buf, sizeof(buf), 3);
	assert_int_equal(kt_write_bo(r.fd, r.bo.handle, 0, buf, sizeof(buf)), -ENODEV);
	assert_int_equal(kt_read_bo(r.fd, r.bo.handle, 0, buf, sizeof(buf)), -ENODEV);
}

static void test_removed_device_reset_is_enodev(void **state)
{
	struct removed r = add_use_remove();

	(void)state;
	assert_int_equal(kt_reset(r.fd), -ENODEV);
}

static void test_removed_device_mmap_is_enodev(void **state)
{
	struct removed r = add_use_remove();

	(void)state;
	assert_int_equal(kt_mmap_err(r.size, PROT_READ | PROT_WRITE, MAP_SHARED,
				     r.fd, (off_t)r.bo.mmap_offset), -ENODEV);
}

static void test_removed_device_files_close_and_unmap_cleanly(void **state)
{
	struct removed r = add_use_remove();

	(void)state;
	assert_int_equal(kt_munmap(r.map, r.size), 0);
	assert_int_equal(kt_close(r.fd), 0);
	assert_int_equal(kt_close(r.idle_fd), 0);
}

static void test_removed_device_files_close_before_unmap_cleanly(void **state)
{
	struct removed r = add_use_remove();

	(void)state;
	assert_int_equal(kt_close(r.fd), 0);
	assert_int_equal(kt_close(r.idle_fd), 0);
	assert_pattern(r.map, kt_page_size(), 2);
	assert_int_equal(kt_munmap(r.map, r.size), 0);
}

static void test_removed_device_touched_page_keeps_its_bytes(void **state)
{
	struct removed r = add_use_remove();

	(void)state;
	assert_pattern(r.map, kt_page_size(), 2);
}

static void test_removed_device_untouched_page_raises_sigbus(void **state)
{
	struct removed r = add_use_remove();
	size_t page = kt_page_size();
	pid_t pid;
	int status;

	(void)state;
	/* the child inherits the mapping; its second page was never touched */
	pid = kt_fork();
	if (pid == 0) {
		volatile uint8_t *p = r.map + page;

		(void)*p;
		_exit(0);
	}
	status = kt_wait(pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGBUS);
}

static void test_removed_device_node_cannot_be_opened(void **state)
{
	struct removed r = add_use_remove();
	char path[64];

	(void)state;
	snprintf(path, sizeof(path), "/dev/ipu%u", r.idx);
	assert_int_equal(open(path, O_RDWR | O_CLOEXEC), -1);
	assert_int_equal(errno, ENOENT);
}

/* Adding again ------------------------------------------------------------ */

static void exercise(unsigned int idx)
{
	int fd = kt_open_attached(idx);
	uint64_t g = kt_granule(fd);
	uint32_t h = kt_bo(fd, g, NULL);
	uint8_t buf[128], back[128];

	assert_int_equal(kt_info(fd).memory_used, g);
	kt_fill(buf, sizeof(buf), 4);
	assert_int_equal(kt_write_bo(fd, h, 0, buf, sizeof(buf)), 0);
	assert_int_equal(kt_read_bo(fd, h, 0, back, sizeof(back)), 0);
	assert_pattern(back, sizeof(back), 4);
	assert_int_equal(kt_reset(fd), 0);
}

static void test_readding_after_removal_works(void **state)
{
	struct removed r = add_use_remove();
	unsigned int idx;

	(void)state;
	assert_int_equal(kt_munmap(r.map, r.size), 0);
	assert_int_equal(kt_close(r.fd), 0);
	assert_int_equal(kt_close(r.idle_fd), 0);
	idx = kt_sim_add(ADD_MB);
	assert_int_equal(idx, r.idx);
	exercise(idx);
}

static void test_readding_while_a_stale_file_is_open_works(void **state)
{
	struct removed r = add_use_remove();
	struct ipu_info info;
	unsigned int idx;
	int fd;

	(void)state;
	/*
	 * Which N the new device gets while a file of the removed ipuN is
	 * still open is not specified ("lowest free N"; the driver may keep N
	 * reserved until that file closes): only that it is a working device.
	 */
	idx = kt_sim_add(ADD_MB);
	exercise(idx);
	/* the stale file still talks to the removed device only */
	assert_int_equal(kt_get_info(r.fd, &info), -ENODEV);
	fd = kt_open(idx);
	assert_int_equal(kt_info(fd).owner_pid, (uint32_t)getpid());
	assert_pattern(r.map, kt_page_size(), 2);
	assert_int_equal(kt_close(r.fd), 0);
	/* closing the stale owner did not detach the new device's owner */
	assert_int_equal(kt_info(fd).owner_pid, (uint32_t)getpid());
}

/* libipu on a removed device ---------------------------------------------- */

static void test_libipu_calls_on_a_removed_device_fail_enodev(void **state)
{
	struct ipu_device_info info = { .sz = sizeof(info) };
	struct ipu_bo_props props = { .sz = sizeof(props) };
	struct ipu_bo *mapped, *unmapped, *none = NULL;
	struct ipu_device *dev;
	unsigned int idx;
	uint8_t buf[64];
	void *p;

	(void)state;
	kt_require_sim_ctl();
	idx = kt_sim_add(ADD_MB);
	dev = kt_dev_open(idx, IPU_OPEN_ATTACH);
	assert_int_equal(ipu_bo_create(dev, 8192, 0, &mapped), 0);
	assert_int_equal(ipu_bo_create(dev, 8192, 0, &unmapped), 0);
	assert_int_equal(ipu_bo_map(mapped, &p), 0);
	memset(p, 0x42, 16);
	assert_int_equal(kt_sim_del(idx), 0);

	kt_fill(buf, sizeof(buf), 5);
	assert_int_equal(ipu_device_query(dev, &info), -ENODEV);
	assert_int_equal(ipu_device_attach(dev), -ENODEV);
	assert_int_equal(ipu_device_detach(dev), -ENODEV);
	assert_int_equal(ipu_device_reset(dev), -ENODEV);
	assert_int_equal(ipu_xfer_to_device(mapped, 0, buf, sizeof(buf)), -ENODEV);
	assert_int_equal(ipu_xfer_from_device(mapped, 0, buf, sizeof(buf)), -ENODEV);
	assert_int_equal(ipu_bo_query(mapped, &props), -ENODEV);
	assert_int_equal(ipu_bo_map(unmapped, &p), -ENODEV);
	assert_int_equal(ipu_bo_create(dev, 8192, 0, &none), -ENODEV);
	assert_null(none);
	assert_non_null(strstr(ipu_errmsg(), "hw:"));
	/* destroy still frees what the library holds */
	assert_int_equal(ipu_bo_destroy(mapped), -ENODEV);
	kt_dev_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_new_device_appears_with_the_requested_memory),
		KT_TEST(test_new_device_of_0_mb_gets_the_module_default),
		KT_TEST(test_new_device_takes_the_lowest_free_index),
		KT_TEST(test_del_device_removes_node_and_sysfs_entry),
		KT_TEST(test_del_device_of_an_absent_device_is_enodev),
		KT_TEST(test_removing_a_device_leaves_the_others_alone),
		KT_TEST(test_removed_device_get_info_is_enodev),
		KT_TEST(test_removed_device_attach_is_enodev),
		KT_TEST(test_removed_device_attach_by_the_owner_is_enodev),
		KT_TEST(test_removed_device_detach_is_enodev),
		KT_TEST(test_removed_device_bo_create_is_enodev),
		KT_TEST(test_removed_device_bo_info_is_enodev),
		KT_TEST(test_removed_device_bo_destroy_is_enodev),
		KT_TEST(test_removed_device_xfer_is_enodev),
		KT_TEST(test_removed_device_reset_is_enodev),
		KT_TEST(test_removed_device_mmap_is_enodev),
		KT_TEST(test_removed_device_files_close_and_unmap_cleanly),
		KT_TEST(test_removed_device_files_close_before_unmap_cleanly),
		KT_TEST(test_removed_device_touched_page_keeps_its_bytes),
		KT_TEST(test_removed_device_untouched_page_raises_sigbus),
		KT_TEST(test_removed_device_node_cannot_be_opened),
		KT_TEST(test_readding_after_removal_works),
		KT_TEST(test_readding_while_a_stale_file_is_open_works),
		KT_TEST(test_libipu_calls_on_a_removed_device_fail_enodev),
	};

	return KT_RUN(tests);
}
