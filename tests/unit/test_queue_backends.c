// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_queue_backends.c - a queue belongs to one backend: a batch naming a
 * device of another is refused whole, nothing of it runs. The other
 * backend is the scripted one of fake_backend.h, registered through
 * libipu's internal registry (so this test runs against the archives).
 */
#include "model_helpers.h"
#include "fake_backend.h"

static void test_device_of_another_backend_is_einval(void **state)
{
	struct ipu_device *dev = mh_open(0, true), *fdev;
	struct ipu_bo *bo = mh_bo(dev, 4096), *fbo;
	struct ipu_queue *q = mh_queue(dev, 8);
	uint8_t in[64], out[64], zero[64] = { 0 };
	struct ipu_completion c;
	struct ipu_xfer_desc x;
	struct ipu_cmd cmds[2];

	(void)state;
	memset(in, 0x5a, sizeof(in));
	assert_int_equal(__ipu_backend_register(&fake_ops), 0);
	memset(&fake, 0, sizeof(fake));
	fdev = fake_open_dev(0, IPU_OPEN_ATTACH);
	assert_int_equal(ipu_bo_create(fdev, 4096, 0, &fbo), 0);
	x = mh_xfer(bo, 0, in, sizeof(in), IPU_XFER_DIR_TO_DEVICE);
	ipu_cmd_prep_xfer(&cmds[0], &x, 1);
	x.bo = fbo;
	ipu_cmd_prep_xfer(&cmds[1], &x, 2);
	assert_int_equal(ipu_queue_submit(q, cmds, 2), -EINVAL);
	if (!strstr(ipu_errmsg(), "\"fake\" backend"))
		fail_msg("message: %s", ipu_errmsg());
	/* Nothing ran: not even the model's own transfer before it. */
	assert_int_equal(ipu_queue_reap(q, &c, 1, 0, 0), 0);
	assert_int_equal(fake.xfers, 0);
	assert_int_equal(ipu_xfer_from_device(bo, 0, out, sizeof(out)), 0);
	assert_memory_equal(out, zero, sizeof(out));
	ipu_device_close(fdev);
	assert_int_equal(__ipu_backend_unregister(&fake_ops), 0);
	ipu_queue_destroy(q);
	ipu_device_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_of_another_backend_is_einval),
	};

	return cmocka_run_group_tests(tests, mh_group_setup, mh_group_teardown);
}
