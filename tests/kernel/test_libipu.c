// SPDX-License-Identifier: GPL-2.0
/*
 * test_libipu.c - libipu's kernel backend against ipu.ko: enumeration,
 * opening by name and "auto", queries, buffer objects, mappings, transfers
 * and reset, and that libipu reports the kernel's errors unchanged.
 */
#include "ktest.h"

#define MiB (1ull << 20)

/* Every device, simulated or PCI (ipu-emu's, in the guests), as sysfs says. */
static void test_enumeration_lists_the_devices_like_sysfs(void **state)
{
	const struct ipu_device_entry *e;
	struct ipu_device_list *list;
	char name[16], node[32], platform[16];
	size_t i, n;

	(void)state;
	kt_require_dev(0);
	assert_int_equal(ipu_device_list_create(&list), 0);
	n = ipu_device_list_count(list);
	assert_int_equal(n, (size_t)__builtin_popcountll(kt_present()));
	for (i = 0; i < n; i++) {
		e = ipu_device_list_get(list, i);
		assert_non_null(e);
		snprintf(name, sizeof(name), "hw:%u", e->index);
		snprintf(node, sizeof(node), "/dev/ipu%u", e->index);
		assert_string_equal(e->name, name);
		assert_string_equal(e->node, node);
		kt_sysfs_ipu(e->index, "platform", platform, sizeof(platform));
		assert_string_equal(e->platform_name, platform);
		assert_int_equal(e->platform, strcmp(platform, "pci") ?
				 IPU_DEVICE_PLATFORM_SIM : IPU_DEVICE_PLATFORM_PCI);
		assert_int_equal(e->memory_total,
				 kt_sysfs_ipu_u64(e->index, "memory_total"));
		assert_int_not_equal(e->serial, 0);
		if (i)
			assert_true(e->index > ipu_device_list_get(list, i - 1)->index);
	}
	ipu_device_list_free(list);
}

static void test_enumeration_shows_the_owner_pid(void **state)
{
	int fd = kt_open_attached(0);
	const struct ipu_device_entry *e = NULL;
	struct ipu_device_list *list;
	size_t i;

	(void)state;
	(void)fd;
	assert_int_equal(ipu_device_list_create(&list), 0);
	for (i = 0; i < ipu_device_list_count(list) && !e; i++)
		if (ipu_device_list_get(list, i)->index == kt_dev(0))
			e = ipu_device_list_get(list, i);
	assert_non_null(e);
	assert_int_equal(e->owner_pid, (uint32_t)getpid());
	ipu_device_list_free(list);
}

static void test_query_matches_get_info(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, 0);
	struct ipu_device_info info = { .sz = sizeof(info) };
	int fd = kt_open(0);
	struct ipu_info k = kt_info(fd);

	(void)state;
	assert_string_equal(ipu_device_name(dev), KT_HW(0));
	assert_int_equal(ipu_device_query(dev, &info), 0);
	assert_int_equal(info.sz, sizeof(info));
	assert_int_equal(info.api_version, k.api_version);
	/* libipu's platform numbers are the UAPI's. */
	assert_int_equal(info.platform, KT_PLATFORM);
	assert_int_equal(info.memory_total, k.memory_total);
	assert_int_equal(info.mem_page_size, k.mem_page_size);
	assert_int_equal(info.serial, k.serial);
	assert_int_equal(info.firmware_version, k.firmware_version);
	assert_int_equal(info.reset_count, k.reset_count);
	assert_int_equal(info.owner_pid, 0);
	assert_true(info.caps & IPU_DEVICE_CAP_BO);
	assert_true(info.caps & IPU_DEVICE_CAP_MAP);
	assert_true(info.caps & IPU_DEVICE_CAP_XFER);
	assert_true(info.caps & IPU_DEVICE_CAP_RESET);
	assert_true(info.caps & IPU_DEVICE_CAP_HOTPLUG);
}

static void test_open_with_attach_owns_the_device(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	int fd = kt_open(0);

	(void)state;
	assert_int_equal(kt_info(fd).owner_pid, (uint32_t)getpid());
	assert_int_equal(ipu_device_attach(dev), -EALREADY);
	assert_int_equal(ipu_device_detach(dev), 0);
	assert_int_equal(kt_info(fd).owner_pid, 0);
	assert_int_equal(ipu_device_detach(dev), -EACCES);
}

static void test_open_with_attach_of_a_busy_device_is_ebusy(void **state)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	int fd = kt_open_attached(0);
	struct ipu_device *dev = (void *)1;

	(void)state;
	(void)fd;
	assert_int_equal(ipu_device_open(KT_HW(0), &opts, &dev), -EBUSY);
	assert_null(dev);
	assert_non_null(strstr(ipu_errmsg(), KT_HW(0)));
}

static void test_open_of_a_missing_device_is_enoent(void **state)
{
	struct ipu_device *dev;

	(void)state;
	kt_require_dev(0);
	assert_false(kt_present() & (1ull << 63));
	assert_int_equal(ipu_device_open("hw:63", NULL, &dev), -ENOENT);
}

static void test_auto_skips_a_busy_device(void **state)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
	int fd = kt_open_attached(0);
	struct ipu_device *dev = NULL;
	char name[16];

	(void)state;
	(void)fd;
	kt_require_dev(1);
	unsetenv("IPU_DEVICE");
	assert_int_equal(ipu_device_open("auto", &opts, &dev), 0);
	kt_track(KT_DEV)->dev = dev;
	/* The lowest-numbered other one (on PCI, maybe a simulated IPU). */
	snprintf(name, sizeof(name), "hw:%d",
		 __builtin_ctzll(kt_present() & ~(1ull << kt_dev(0))));
	assert_string_equal(ipu_device_name(dev), name);
}

static void test_auto_honours_ipu_device(void **state)
{
	struct ipu_device *dev = NULL;

	(void)state;
	kt_require_dev(1);
	setenv("IPU_DEVICE", KT_HW(1), 1);
	assert_int_equal(ipu_device_open(NULL, NULL, &dev), 0);
	unsetenv("IPU_DEVICE");
	kt_track(KT_DEV)->dev = dev;
	assert_string_equal(ipu_device_name(dev), KT_HW(1));
}

static void test_bo_create_needs_attachment(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, 0);
	struct ipu_bo *bo = NULL;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), -EACCES);
	assert_null(bo);
	assert_non_null(strstr(ipu_errmsg(), KT_HW(0)));
	assert_non_null(strstr(ipu_errmsg(), "attach"));
}

static void test_bo_round_trip_through_xfer_and_map(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_bo_props props = { .sz = sizeof(props) };
	uint8_t *src = kt_alloc(MiB), *dst = kt_alloc(MiB);
	struct ipu_bo *bo;
	void *p, *again;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, MiB, 0, &bo), 0);
	assert_int_equal(ipu_bo_size(bo), MiB);
	assert_int_not_equal(ipu_bo_handle(bo), 0);
	assert_int_equal(ipu_bo_query(bo, &props), 0);
	assert_int_equal(props.size, MiB);
	assert_int_equal(props.handle, ipu_bo_handle(bo));
	assert_int_equal(props.device_addr, ipu_bo_device_addr(bo));

	kt_fill(src, MiB, 1);
	assert_int_equal(ipu_xfer_to_device(bo, 0, src, MiB), 0);
	assert_int_equal(ipu_bo_map(bo, &p), 0);
	assert_int_equal(ipu_bo_map(bo, &again), 0);
	assert_ptr_equal(p, again);
	assert_pattern(p, MiB, 1);
	kt_fill(p, MiB, 2);
	assert_int_equal(ipu_xfer_from_device(bo, 0, dst, MiB), 0);
	assert_pattern(dst, MiB, 2);
	assert_int_equal(ipu_bo_unmap(bo), 0);
	assert_int_equal(ipu_bo_unmap(bo), -EINVAL);
	assert_int_equal(ipu_bo_destroy(bo), 0);
}

static void test_xfer_run_moves_a_batch_in_order(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	uint8_t a[1000], b[3000], back[4000];
	struct ipu_bo *bo;
	size_t done = 99;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 8192, 0, &bo), 0);
	kt_fill(a, sizeof(a), 3);
	kt_fill(b, sizeof(b), 4);
	struct ipu_xfer_desc d[] = {
		{ .bo = bo, .bo_offset = 0, .host = a, .length = sizeof(a),
		  .dir = IPU_XFER_DIR_TO_DEVICE },
		{ .bo = bo, .bo_offset = 1000, .host = b, .length = sizeof(b),
		  .dir = IPU_XFER_DIR_TO_DEVICE },
		{ .bo = bo, .bo_offset = 0, .host = back, .length = sizeof(back),
		  .dir = IPU_XFER_DIR_FROM_DEVICE },
	};
	assert_int_equal(ipu_xfer_run(dev, d, 3, &done), 0);
	assert_int_equal(done, 3);
	assert_pattern(back, sizeof(a), 3);
	assert_pattern(back + 1000, sizeof(b), 4);
}

static void test_xfer_run_checks_every_descriptor_before_moving_any(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	uint8_t a[64], back[64];
	struct ipu_bo *bo;
	size_t done = 99;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), 0);
	kt_fill(a, sizeof(a), 5);
	struct ipu_xfer_desc d[] = {
		{ .bo = bo, .host = a, .length = sizeof(a),
		  .dir = IPU_XFER_DIR_TO_DEVICE },
		{ .bo = bo, .bo_offset = ipu_bo_size(bo), .host = a, .length = 1,
		  .dir = IPU_XFER_DIR_TO_DEVICE },
	};
	assert_int_equal(ipu_xfer_run(dev, d, 2, &done), -EINVAL);
	assert_int_equal(done, 0);
	assert_non_null(strstr(ipu_errmsg(), "transfer 1"));
	assert_int_equal(ipu_xfer_from_device(bo, 0, back, sizeof(back)), 0);
	assert_zeroed(back, sizeof(back));
}

static void test_xfer_run_stops_at_the_first_failure(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	size_t page = kt_page_size();
	uint8_t a[64], *hole = kt_alloc(page), back[64];
	struct ipu_bo *bo;
	size_t done = 99;

	(void)state;
	assert_int_equal(kt_munmap(hole, page), 0);
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), 0);
	kt_fill(a, sizeof(a), 6);
	struct ipu_xfer_desc d[] = {
		{ .bo = bo, .host = a, .length = sizeof(a),
		  .dir = IPU_XFER_DIR_TO_DEVICE },
		{ .bo = bo, .host = hole, .length = 64,
		  .dir = IPU_XFER_DIR_TO_DEVICE },
		{ .bo = bo, .host = a, .length = sizeof(a), .bo_offset = 128,
		  .dir = IPU_XFER_DIR_TO_DEVICE },
	};
	assert_int_equal(ipu_xfer_run(dev, d, 3, &done), -EFAULT);
	assert_int_equal(done, 1);
	assert_int_equal(ipu_xfer_from_device(bo, 0, back, sizeof(back)), 0);
	assert_pattern(back, sizeof(back), 6);
	assert_int_equal(ipu_xfer_from_device(bo, 128, back, sizeof(back)), 0);
	assert_zeroed(back, sizeof(back));
}

static void test_reset_through_libipu_is_counted(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	struct ipu_device_info info = { .sz = sizeof(info) };
	uint64_t before;

	(void)state;
	assert_int_equal(ipu_device_query(dev, &info), 0);
	before = info.reset_count;
	assert_int_equal(ipu_device_reset(dev), 0);
	assert_int_equal(ipu_device_query(dev, &info), 0);
	assert_int_equal(info.reset_count, before + 1);
}

static void test_device_close_frees_buffers_and_attachment(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	int observer = kt_open(0);
	struct ipu_bo *bo;
	void *p;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 65536, 0, &bo), 0);
	assert_int_equal(ipu_bo_map(bo, &p), 0);
	assert_int_equal(ipu_bo_create(dev, 8192, 0, &bo), 0);
	assert_true(kt_info(observer).memory_used >= 65536 + 8192);
	kt_dev_close(dev);
	assert_int_equal(kt_info(observer).memory_used, 0);
	assert_int_equal(kt_info(observer).owner_pid, 0);
}

static void test_libipu_leaves_errno_alone(void **state)
{
	struct ipu_device *dev = kt_dev_open(0, 0);
	struct ipu_bo *bo;

	(void)state;
	errno = 1234;
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &bo), -EACCES);
	assert_int_equal(errno, 1234);
	assert_int_equal(ipu_device_attach(dev), 0);
	assert_int_equal(errno, 1234);
	assert_int_equal(ipu_device_open("hw:63", NULL, &dev), -ENOENT);
	assert_int_equal(errno, 1234);
}

static void test_second_process_sees_ebusy_through_libipu(void **state)
{
	struct ipu_device *dev;
	pid_t parent = getpid(), pid;

	(void)state;
	dev = kt_dev_open(0, IPU_OPEN_ATTACH);
	(void)dev;
	/* the child opens files of its own; it leaves the parent's alone */
	pid = kt_fork();
	if (pid == 0) {
		IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
		struct ipu_device_info info = { .sz = sizeof(info) };
		struct ipu_device *mine = NULL;

		kt_child_check(ipu_device_open(KT_HW(0), &opts, &mine) == -EBUSY, 10);
		kt_child_check(ipu_device_open(KT_HW(0), NULL, &mine) == 0, 11);
		kt_child_check(ipu_device_query(mine, &info) == 0, 12);
		kt_child_check(info.owner_pid == (uint32_t)parent, 13);
		kt_child_check(ipu_device_attach(mine) == -EBUSY, 14);
		_exit(0);
	}
	kt_wait_ok(pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_enumeration_lists_the_devices_like_sysfs),
		KT_TEST(test_enumeration_shows_the_owner_pid),
		KT_TEST(test_query_matches_get_info),
		KT_TEST(test_open_with_attach_owns_the_device),
		KT_TEST(test_open_with_attach_of_a_busy_device_is_ebusy),
		KT_TEST(test_open_of_a_missing_device_is_enoent),
		KT_TEST(test_auto_skips_a_busy_device),
		KT_TEST(test_auto_honours_ipu_device),
		KT_TEST(test_bo_create_needs_attachment),
		KT_TEST(test_bo_round_trip_through_xfer_and_map),
		KT_TEST(test_xfer_run_moves_a_batch_in_order),
		KT_TEST(test_xfer_run_checks_every_descriptor_before_moving_any),
		KT_TEST(test_xfer_run_stops_at_the_first_failure),
		KT_TEST(test_reset_through_libipu_is_counted),
		KT_TEST(test_device_close_frees_buffers_and_attachment),
		KT_TEST(test_libipu_leaves_errno_alone),
		KT_TEST(test_second_process_sees_ebusy_through_libipu),
	};

	return KT_RUN(tests);
}
