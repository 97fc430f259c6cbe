// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_model_device.c - the model backend's devices: info, attachment,
 * buffer objects (lifecycle, zeroing, accounting, addresses, mapping),
 * reset, listing, and its settings from the environment.
 */
#include <unistd.h>

#include <ipu/firmware.h>

#include "model_helpers.h"

static struct ipu_device_info query(struct ipu_device *dev)
{
	struct ipu_device_info info = { .sz = sizeof(info) };

	assert_int_equal(ipu_device_query(dev, &info), 0);
	return info;
}

static void test_info_describes_a_model_ipu(void **state)
{
	struct ipu_device *dev = mh_open(3, false), *other = mh_open(4, false);
	struct ipu_device_info info = query(dev);

	(void)state;
	assert_string_equal(ipu_device_name(dev), "model:3");
	assert_int_equal(info.platform, IPU_DEVICE_PLATFORM_MODEL);
	assert_int_equal(info.firmware_version, IPUFW_VERSION);
	assert_int_equal(info.memory_total, (uint64_t)MH_MEM_MB << 20);
	assert_int_equal(info.memory_used, 0);
	assert_int_equal(info.owner_pid, 0);
	assert_true(info.mem_page_size >= 4096);
	assert_true(info.caps & IPU_DEVICE_CAP_LAUNCH);
	assert_true(info.caps & IPU_DEVICE_CAP_XFER);
	assert_int_not_equal(info.serial, query(other).serial);
	ipu_device_close(other);
	ipu_device_close(dev);
}

static void test_a_missing_model_device_is_enoent(void **state)
{
	struct ipu_device *dev = (void *)1;

	(void)state;
	assert_int_equal(ipu_device_open("model:8", NULL, &dev), -ENOENT);
	assert_null(dev);
	assert_non_null(strstr(ipu_errmsg(), "model:8"));
}

static void test_attach_is_exclusive_within_the_process(void **state)
{
	struct ipu_device *a = mh_open(0, true), *b = mh_open(0, false);

	(void)state;
	assert_int_equal(ipu_device_attach(b), -EBUSY);
	assert_int_equal(query(b).owner_pid, (uint32_t)getpid());
	ipu_device_close(a);
	/* the owner's close releases the device */
	assert_int_equal(ipu_device_attach(b), 0);
	ipu_device_close(b);
}

static void test_attach_twice_is_ealready(void **state)
{
	struct ipu_device *a = mh_open(0, true);

	(void)state;
	assert_int_equal(ipu_device_attach(a), -EALREADY);
	ipu_device_close(a);
}

static void test_detach_without_attach_is_eacces(void **state)
{
	struct ipu_device *a = mh_open(0, false);

	(void)state;
	assert_int_equal(ipu_device_detach(a), -EACCES);
	ipu_device_close(a);
}

static void test_detach_lets_another_handle_attach(void **state)
{
	struct ipu_device *a = mh_open(0, true), *b = mh_open(0, false);

	(void)state;
	assert_int_equal(ipu_device_detach(a), 0);
	assert_int_equal(query(a).owner_pid, 0);
	assert_int_equal(ipu_device_attach(b), 0);
	ipu_device_close(a);
	ipu_device_close(b);
}

static void test_bo_create_without_attach_is_eacces(void **state)
{
	struct ipu_device *a = mh_open(0, false);
	struct ipu_bo *bo;

	(void)state;
	assert_int_equal(ipu_bo_create(a, 4096, 0, &bo), -EACCES);
	assert_non_null(strstr(ipu_errmsg(), "attach"));
	ipu_device_close(a);
}

static void test_bo_larger_than_the_memory_is_enospc(void **state)
{
	struct ipu_device *a = mh_open(0, true);
	struct ipu_bo *bo;

	(void)state;
	assert_int_equal(ipu_bo_create(a, ((uint64_t)MH_MEM_MB << 20) + 1, 0, &bo),
			 -ENOSPC);
	assert_int_equal(ipu_bo_create(a, UINT64_MAX, 0, &bo), -ENOSPC);
	ipu_device_close(a);
}

static void test_full_memory_is_enospc_and_freeing_makes_room(void **state)
{
	struct ipu_device *a = mh_open(0, true);
	uint64_t half = (uint64_t)MH_MEM_MB << 19;
	struct ipu_bo *x = mh_bo(a, half), *y = mh_bo(a, half), *z;

	(void)state;
	assert_int_equal(ipu_bo_create(a, 4096, 0, &z), -ENOSPC);
	assert_int_equal(ipu_bo_destroy(x), 0);
	z = mh_bo(a, 4096);
	/* first fit: the hole x left */
	assert_int_equal(ipu_bo_device_addr(z), ipu_bo_device_addr(y) - half);
	ipu_device_close(a);
}

static void test_bo_sizes_round_up_and_are_accounted(void **state)
{
	struct ipu_device *a = mh_open(0, true);
	uint32_t page = query(a).mem_page_size;
	struct ipu_bo *x = mh_bo(a, 1), *y = mh_bo(a, page + 1);
	struct ipu_bo_props props = { .sz = sizeof(props) };

	(void)state;
	assert_int_equal(ipu_bo_size(x), page);
	assert_int_equal(ipu_bo_size(y), 2 * page);
	assert_int_equal(query(a).memory_used, 3 * page);
	assert_int_equal(ipu_bo_query(y, &props), 0);
	assert_int_equal(props.size, 2 * page);
	assert_int_equal(props.device_addr, ipu_bo_device_addr(y));
	assert_int_equal(props.handle, ipu_bo_handle(y));
	assert_int_not_equal(ipu_bo_handle(x), ipu_bo_handle(y));
	assert_int_not_equal(ipu_bo_device_addr(x), 0);
	assert_int_equal(ipu_bo_destroy(x), 0);
	assert_int_equal(query(a).memory_used, 2 * page);
	ipu_device_close(a);
	/* closing the handle freed what it held */
	a = mh_open(0, false);
	assert_int_equal(query(a).memory_used, 0);
	ipu_device_close(a);
}

static void test_devices_have_their_own_memory(void **state)
{
	struct ipu_device *a = mh_open(0, true), *b = mh_open(1, true);
	struct ipu_bo *x = mh_bo(a, 4096), *y = mh_bo(b, 4096);

	(void)state;
	assert_int_not_equal(ipu_bo_device_addr(x), ipu_bo_device_addr(y));
	assert_int_equal(query(b).memory_used, 4096);
	assert_int_equal(ipu_bo_destroy(x), 0);
	assert_int_equal(query(a).memory_used, 0);
	assert_int_equal(query(b).memory_used, 4096);
	ipu_device_close(a);
	ipu_device_close(b);
}

static void test_new_bos_never_show_earlier_bytes(void **state)
{
	struct ipu_device *a = mh_open(0, true);
	size_t size = 3 * 4096;
	uint8_t *buf = malloc(size), *zero = calloc(1, size);
	struct ipu_bo *x = mh_bo(a, size), *y;
	void *p;

	(void)state;
	memset(buf, 0xa5, size);
	assert_int_equal(ipu_xfer_to_device(x, 0, buf, size), 0);
	assert_int_equal(ipu_bo_map(x, &p), 0);
	memset(p, 0x5a, 100); /* through the mapping too */
	assert_int_equal(ipu_bo_destroy(x), 0);
	y = mh_bo(a, size);
	assert_int_equal(ipu_xfer_from_device(y, 0, buf, size), 0);
	assert_memory_equal(buf, zero, size);
	free(buf);
	free(zero);
	ipu_device_close(a);
}

static void test_map_shares_bytes_with_transfers(void **state)
{
	struct ipu_device *a = mh_open(0, true);
	struct ipu_bo *x = mh_bo(a, 8192);
	char out[6] = "";
	void *p, *p2;

	(void)state;
	assert_int_equal(ipu_bo_map(x, &p), 0);
	assert_int_equal(ipu_bo_map(x, &p2), 0);
	assert_ptr_equal(p, p2);
	memcpy((char *)p + 5000, "hello", 6);
	assert_int_equal(ipu_xfer_from_device(x, 5000, out, 6), 0);
	assert_string_equal(out, "hello");
	assert_int_equal(ipu_xfer_to_device(x, 7, "world", 6), 0);
	assert_string_equal((char *)p + 7, "world");
	assert_int_equal(ipu_bo_unmap(x), 0);
	assert_int_equal(ipu_bo_unmap(x), -EINVAL);
	ipu_device_close(a);
}

static void test_reset_counts_and_keeps_memory(void **state)
{
	struct ipu_device *a = mh_open(0, true);
	struct ipu_bo *x = mh_bo(a, 4096);
	uint64_t before = query(a).reset_count;
	char out[4];

	(void)state;
	assert_int_equal(ipu_xfer_to_device(x, 0, "abc", 4), 0);
	assert_int_equal(ipu_device_reset(a), 0);
	assert_int_equal(query(a).reset_count, before + 1);
	assert_int_equal(ipu_xfer_from_device(x, 0, out, 4), 0);
	assert_string_equal(out, "abc");
	ipu_device_close(a);
}

static void test_reset_without_attach_is_eacces(void **state)
{
	struct ipu_device *a = mh_open(0, false);

	(void)state;
	assert_int_equal(ipu_device_reset(a), -EACCES);
	ipu_device_close(a);
}

static void test_model_devices_are_listed_only_when_asked(void **state)
{
	IPU_OPTS(ipu_list_opts, opts, .flags = IPU_LIST_MODEL);
	struct ipu_device *a = mh_open(2, true);
	const struct ipu_device_entry *e;
	struct ipu_device_list *list;

	(void)state;
	assert_int_equal(ipu_device_list_create(&list), 0);
	assert_int_equal(ipu_device_list_count(list), 0);
	ipu_device_list_free(list);

	assert_int_equal(ipu_device_list_create_opts(&opts, &list), 0);
	assert_int_equal(ipu_device_list_count(list), MH_DEVICES);
	e = ipu_device_list_get(list, 2);
	assert_string_equal(e->name, "model:2");
	assert_string_equal(e->platform_name, "model");
	assert_int_equal(e->platform, IPU_DEVICE_PLATFORM_MODEL);
	assert_int_equal(e->owner_pid, (uint32_t)getpid());
	assert_int_equal(e->firmware_version, IPUFW_VERSION);
	ipu_device_list_free(list);
	ipu_device_close(a);
}

static void test_list_options_with_unknown_flags_are_einval(void **state)
{
	IPU_OPTS(ipu_list_opts, opts, .flags = 1u << 30);
	struct ipu_device_list *list;

	(void)state;
	assert_int_equal(ipu_device_list_create_opts(&opts, &list), -EINVAL);
	assert_non_null(strstr(ipu_errmsg(), "flags"));
}

/* Re-read the model's settings from the environment; put them back after. */
static int with_env(const char *devices, const char *mem_mb)
{
	setenv("IPU_MODEL_DEVICES", devices, 1);
	setenv("IPU_MODEL_MEM_MB", mem_mb, 1);
	return __ipu_model_reinit();
}

static void test_model_devices_setting_sets_the_count(void **state)
{
	struct ipu_device *dev;

	(void)state;
	assert_int_equal(with_env("2", "1"), 0);
	assert_int_equal(ipu_device_open("model:2", NULL, &dev), -ENOENT);
	dev = mh_open(1, false);
	assert_int_equal(query(dev).memory_total, 1 << 20);
	ipu_device_close(dev);
	assert_int_equal(with_env("8", "64"), 0);
}

static void test_bad_model_settings_are_einval_and_named(void **state)
{
	static const char *const bad[] = { "0", "-1", "x", "3x", "257", " 2" };
	struct ipu_device *dev;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(with_env(bad[i], "64"), 0);
		assert_int_equal(ipu_device_open("model:0", NULL, &dev), -EINVAL);
		assert_non_null(strstr(ipu_errmsg(), "IPU_MODEL_DEVICES"));
	}
	assert_int_equal(with_env("8", "0"), 0);
	assert_int_equal(ipu_device_open("model:0", NULL, &dev), -EINVAL);
	assert_non_null(strstr(ipu_errmsg(), "IPU_MODEL_MEM_MB"));
	assert_int_equal(with_env("8", "64"), 0);
}

static void test_reinit_while_a_device_is_open_is_ebusy(void **state)
{
	struct ipu_device *dev = mh_open(0, false);

	(void)state;
	assert_int_equal(__ipu_model_reinit(), -EBUSY);
	ipu_device_close(dev);
	assert_int_equal(__ipu_model_reinit(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_info_describes_a_model_ipu),
		cmocka_unit_test(test_a_missing_model_device_is_enoent),
		cmocka_unit_test(test_attach_is_exclusive_within_the_process),
		cmocka_unit_test(test_attach_twice_is_ealready),
		cmocka_unit_test(test_detach_without_attach_is_eacces),
		cmocka_unit_test(test_detach_lets_another_handle_attach),
		cmocka_unit_test(test_bo_create_without_attach_is_eacces),
		cmocka_unit_test(test_bo_larger_than_the_memory_is_enospc),
		cmocka_unit_test(test_full_memory_is_enospc_and_freeing_makes_room),
		cmocka_unit_test(test_bo_sizes_round_up_and_are_accounted),
		cmocka_unit_test(test_devices_have_their_own_memory),
		cmocka_unit_test(test_new_bos_never_show_earlier_bytes),
		cmocka_unit_test(test_map_shares_bytes_with_transfers),
		cmocka_unit_test(test_reset_counts_and_keeps_memory),
		cmocka_unit_test(test_reset_without_attach_is_eacces),
		cmocka_unit_test(test_model_devices_are_listed_only_when_asked),
		cmocka_unit_test(test_list_options_with_unknown_flags_are_einval),
		cmocka_unit_test(test_model_devices_setting_sets_the_count),
		cmocka_unit_test(test_bad_model_settings_are_einval_and_named),
		cmocka_unit_test(test_reinit_while_a_device_is_open_is_ebusy),
	};

	return cmocka_run_group_tests(tests, mh_group_setup, mh_group_teardown);
}
