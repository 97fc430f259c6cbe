// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_errors.c - S25 across the API: every call takes NULL and
 * bad arguments with an error code, never a crash; messages are kept
 * per session.
 */
#include "session_helpers.h"

static void test_S25_null_session_everywhere(void **state)
{
	struct ipu_stream_buffer *out = NULL;
	struct ipu_tensor_desc d;
	struct ipu_host_buffer b = { 0 };
	const char *name = "w";
	size_t n = 0;

	(void)state;
	ipu_session_destroy(NULL);
	ipu_session_free_buffers(NULL, 3);
	assert_null(ipu_session_exe(NULL));
	assert_string_equal(ipu_session_device_name(NULL), "");
	assert_int_equal(ipu_session_num_ipus(NULL), 0);
	assert_false(ipu_session_is_attached(NULL));
	assert_non_null(ipu_session_errmsg(NULL));
	assert_int_equal(ipu_session_attach(NULL), -EINVAL);
	assert_int_equal(ipu_session_detach(NULL, 0), -EINVAL);
	assert_int_equal(ipu_session_run_with_outputs(NULL, NULL, 0, NULL, 0, 0),
			 -EINVAL);
	assert_int_equal(ipu_session_run(NULL, NULL, 0, &out, &n, 0), -EINVAL);
	assert_int_equal(ipu_session_create_host_outputs(NULL, &out, &n),
			 -EINVAL);
	assert_null(ipu_session_expected_outputs(NULL, NULL));
	assert_int_equal(ipu_session_weights_from_host(NULL), -EINVAL);
	assert_int_equal(ipu_session_weights_to_host(NULL), -EINVAL);
	assert_int_equal(ipu_session_tensor_desc(NULL, name, &d), -EINVAL);
	assert_int_equal(ipu_session_get_tensor_data(NULL, name, &b), -EINVAL);
	assert_int_equal(ipu_session_get_tensors_data(NULL, &name, &b, 1),
			 -EINVAL);
	assert_int_equal(ipu_session_write_variable_data(NULL, name, &b),
			 -EINVAL);
	assert_int_equal(ipu_session_write_variables_data(NULL, &name, &b, 1),
			 -EINVAL);
	assert_null(out);
}

static void test_S25_null_out_pointers(void **state)
{
	struct ipu_session *s = sh_session(sh_acc_ir(1, 1, 2, NULL));
	struct ipu_stream_buffer *out;

	(void)state;
	assert_int_equal(ipu_session_create_host_outputs(s, &out, NULL),
			 -EINVAL);
	sh_assert_msg(s, "create_host_outputs: an out pointer is NULL");
	assert_int_equal(ipu_session_tensor_desc(s, "w", NULL), -EINVAL);
	assert_int_equal(ipu_session_write_variables_data(s, NULL, NULL, 1),
			 -EINVAL);
	sh_assert_msg(s, "write_variable_data: names is NULL");
	ipu_session_destroy(s);
}

static void test_S25_messages_are_per_session(void **state)
{
	struct ipu_session *a = sh_session(sh_acc_ir(1, 1, 2, NULL));
	struct ipu_session *b = sh_session(sh_acc_ir(1, 1, 2, NULL));

	(void)state;
	assert_string_equal(ipu_session_errmsg(a), "");
	assert_int_equal(ipu_session_weights_to_host(a), -EPERM);
	assert_int_equal(ipu_session_detach(b, 0), -EINVAL);
	sh_assert_msg(a, "weights_to_host");
	sh_assert_msg(b, "detach");
	/* A call that works leaves the last failure's message. */
	sh_attach(a);
	sh_assert_msg(a, "weights_to_host");
	ipu_session_destroy(a);
	ipu_session_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S25_null_session_everywhere),
		cmocka_unit_test(test_S25_null_out_pointers),
		cmocka_unit_test(test_S25_messages_are_per_session),
	};

	return cmocka_run_group_tests(tests, sh_group_setup, sh_group_teardown);
}
