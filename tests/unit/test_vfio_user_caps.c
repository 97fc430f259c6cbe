// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_vfio_user_caps.c - the VERSION capabilities JSON
 * (firmware/emu/vfio_user_caps.h): QEMU's proposal read member by member,
 * the defaults, unknown members ignored, every kind of malformed document
 * refused, and the reply holding only members the client proposed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../firmware/emu/vfio_user_caps.h"
#include "../../firmware/emu/vfio_user_proto.h"

#define QEMU_CAPS "{\"capabilities\":{\"max_msg_fds\":16,\"max_data_xfer_size\":1048576,\"pgsizes\":4096,\"max_dma_maps\":65535,\"migration\":{\"pgsize\":4096,\"max_bitmap_size\":268435456},\"write_multiple\":true}}"

static int parse(const char *json, struct vfu_caps *c)
{
	return vfu_caps_parse(json, strlen(json), c);
}

static void test_qemus_proposal(void **state)
{
	struct vfu_caps c;

	(void)state;
	assert_int_equal(parse(QEMU_CAPS, &c), 0);
	assert_true(c.has_max_msg_fds && c.max_msg_fds == 16);
	assert_true(c.has_max_data_xfer_size &&
		    c.max_data_xfer_size == 1048576);
	assert_true(c.has_pgsizes && c.pgsizes == 4096);
	assert_true(c.has_max_dma_maps && c.max_dma_maps == 65535);
	assert_true(c.has_migration);
	assert_true(c.has_write_multiple && c.write_multiple);
	assert_false(c.has_twin_socket);
}

static void test_defaults(void **state)
{
	struct vfu_caps c;

	(void)state;
	assert_int_equal(vfu_caps_parse(NULL, 0, &c), 0);
	assert_int_equal(c.max_msg_fds, 1);
	assert_int_equal(c.max_data_xfer_size, 1048576);
	assert_int_equal(c.pgsizes, 4096);
	assert_int_equal(c.max_dma_maps, 65535);
	assert_int_equal(parse("{}", &c), 0);
	assert_false(c.has_max_msg_fds);
	assert_int_equal(parse(" { \"capabilities\" : { } } ", &c), 0);
}

static void test_unknown_members_ignored(void **state)
{
	struct vfu_caps c;

	(void)state;
	assert_int_equal(parse("{\"x\":[1,2.5e3,\"s\\u00e9\\n\",null,{}],"
			       "\"capabilities\":{\"future\":{\"a\":[true]},"
			       "\"max_msg_fds\":4,\"twin_socket\":"
			       "{\"supported\":true}}}", &c), 0);
	assert_int_equal(c.max_msg_fds, 4);
	assert_true(c.has_twin_socket && c.twin_socket);
}

static void test_malformed_documents(void **state)
{
	static const char *const bad[] = {
		"", "[]", "{", "{\"capabilities\"}", "{\"a\":1,}", "{} {}",
		"{\"a\":01}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":tru}",
		"{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\n\"}",
		"{\"capabilities\":[]}", "{\"capabilities\":{\"pgsizes\":-4096}}",
		"{\"capabilities\":{\"pgsizes\":4096.0}}",
		"{\"capabilities\":{\"max_msg_fds\":18446744073709551616}}",
		"{\"capabilities\":{\"write_multiple\":1}}",
		"{\"capabilities\":{\"twin_socket\":true}}",
		"{\"capabilities\":{\"twin_socket\":{\"supported\":1}}}",
		"{\"capabilities\":{\"migration\":4096}}",
		"{\"a\":[[[[[[[[[[1]]]]]]]]]]}",
	};
	struct vfu_caps c;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &c) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
		/* A refused document leaves the defaults. */
		assert_false(c.has_pgsizes);
	}
	/* The largest number that fits is fine. */
	assert_int_equal(parse("{\"capabilities\":{\"pgsizes\":18446744073709551615}}",
			       &c), 0);
	assert_int_equal(c.pgsizes, UINT64_MAX);
}

static void test_reply_is_a_subset(void **state)
{
	const struct vfu_caps ours = {
		.max_msg_fds = 16, .max_data_xfer_size = 1048576,
		.pgsizes = 4096, .max_dma_maps = 1024,
	};
	struct vfu_caps c;
	char buf[256];
	int n;

	(void)state;
	assert_int_equal(parse("{\"capabilities\":{\"max_dma_maps\":9}}", &c), 0);
	n = vfu_caps_reply(&c, &ours, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf, "{\"capabilities\":{\"max_dma_maps\":1024}}");
	assert_int_equal(parse(QEMU_CAPS, &c), 0);
	vfu_caps_reply(&c, &ours, buf, sizeof(buf));
	assert_string_equal(buf, "{\"capabilities\":{\"max_msg_fds\":16,"
			    "\"max_data_xfer_size\":1048576,\"pgsizes\":4096,"
			    "\"max_dma_maps\":1024}}");
	/* The reply parses, as the client will parse it. */
	assert_int_equal(parse(buf, &c), 0);
	assert_int_equal(vfu_caps_reply(&c, &ours, buf, 20), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemus_proposal),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_unknown_members_ignored),
		cmocka_unit_test(test_malformed_documents),
		cmocka_unit_test(test_reply_is_a_subset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
