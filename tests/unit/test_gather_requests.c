// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_gather_requests.c - libipu's gather requests (ipu_gather_fd(),
 * ipu_gather_next(), ipu_gather_answer(); docs/instances.md) in front of
 * a scripted backend that posts requests as a PCIe IPU's kernel file
 * does, and on the model, which posts none: the arguments checked before
 * the backend is reached, the request's staging handle turned back into
 * the caller's buffer object (NULL once destroyed), the extensible
 * output, and the errors a caller must tell apart, each with a message
 * naming the device: -EAGAIN when nothing waits, -ENOENT for a token
 * answered already or never handed out, -EINVAL for a status that is no
 * errno, -EOPNOTSUPP where no request can come. The kernel's side of the
 * same calls runs in the guests (tests/kernel/test_pci_session_hw_*.c).
 */
#include <unistd.h>

#include "fake_backend.h"

static void assert_msg(const char *part)
{
	if (!strstr(ipu_errmsg(), part))
		fail_msg("message \"%s\" lacks \"%s\"", ipu_errmsg(), part);
}

static void test_null_arguments_are_einval(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_gather_request req = { .sz = sizeof(req) };

	(void)state;
	assert_int_equal(ipu_gather_fd(NULL), -EINVAL);
	assert_int_equal(ipu_gather_next(NULL, &req), -EINVAL);
	assert_int_equal(ipu_gather_next(dev, NULL), -EINVAL);
	assert_int_equal(ipu_gather_answer(NULL, 1, 0), -EINVAL);
	req.sz = sizeof(req) - 1;
	assert_int_equal(ipu_gather_next(dev, &req), -EINVAL);
	assert_msg("at least");
	assert_int_equal(fake.gather_calls, 0);
	ipu_device_close(dev);
}

static void test_nothing_waiting_is_eagain(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_gather_request req = { .sz = sizeof(req) };

	(void)state;
	errno = 1234;
	assert_int_equal(ipu_gather_next(dev, &req), -EAGAIN);
	assert_int_equal(errno, 1234);
	assert_msg("fake:0: taking a gather request: none waits");
	ipu_device_close(dev);
}

static void test_request_names_the_callers_staging_bo(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_gather_request req = { .sz = sizeof(req) };
	struct ipu_bo *staging, *gone;
	uint64_t t1, t2;

	(void)state;
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &staging), 0);
	assert_int_equal(ipu_bo_create(dev, 4096, 0, &gone), 0);
	t1 = fake_gather_post(ipu_bo_handle(staging), 64, 96);
	t2 = fake_gather_post(ipu_bo_handle(gone), 0, 8);
	assert_int_equal(ipu_gather_next(dev, &req), 0);
	assert_int_equal(req.token, t1);
	assert_ptr_equal(req.staging_bo, staging);
	assert_int_equal(req.staging_handle, ipu_bo_handle(staging));
	assert_int_equal(req.staging_offset, 64);
	assert_int_equal(req.bytes, 96);
	assert_int_equal(req.instance_index, 1);
	assert_int_equal(req.instance_count, 2);
	assert_int_equal(req.collective, 0);
	/* A staging buffer object the caller destroyed with its launch in
	 * flight: the handle, no object. */
	assert_int_equal(ipu_bo_destroy(gone), 0);
	assert_int_equal(ipu_gather_next(dev, &req), 0);
	assert_int_equal(req.token, t2);
	assert_null(req.staging_bo);
	assert_int_equal(req.collective, 1);
	assert_int_equal(ipu_gather_next(dev, &req), -EAGAIN);
	ipu_device_close(dev);
}

static void test_a_larger_request_struct_gets_zeros(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct {
		struct ipu_gather_request req;
		uint8_t later[24];
	} big;

	(void)state;
	memset(&big, 0xa5, sizeof(big));
	big.req.sz = sizeof(big);
	fake_gather_post(77, 0, 8);
	assert_int_equal(ipu_gather_next(dev, &big.req), 0);
	assert_int_equal(big.req.sz, sizeof(big));
	assert_int_equal(big.req.staging_handle, 77);
	for (size_t i = 0; i < sizeof(big.later); i++)
		assert_int_equal(big.later[i], 0);
	ipu_device_close(dev);
}

static void test_answers_are_checked_then_passed_on(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, IPU_OPEN_ATTACH);
	struct ipu_gather_request req = { .sz = sizeof(req) };
	uint64_t t;

	(void)state;
	t = fake_gather_post(1, 0, 8);
	fake_gather_post(1, 0, 8);
	assert_int_equal(ipu_gather_next(dev, &req), 0);
	fake.gather_calls = 0;
	/* Out of range: never reaches the device. */
	assert_int_equal(ipu_gather_answer(dev, 0, 0), -EINVAL);
	assert_msg("token 0");
	assert_int_equal(ipu_gather_answer(dev, t, 1), -EINVAL);
	assert_msg("status 1 is neither 0 nor a negative errno");
	assert_int_equal(ipu_gather_answer(dev, t, -IPU_GATHER_MAX_ERRNO - 1),
			 -EINVAL);
	assert_int_equal(ipu_gather_answer(dev, t, INT32_MIN), -EINVAL);
	assert_int_equal(fake.gather_calls, 0);
	/* The largest errno goes through; the token then is spent. */
	assert_int_equal(ipu_gather_answer(dev, t, -IPU_GATHER_MAX_ERRNO), 0);
	assert_int_equal(fake.answer_status[0], -IPU_GATHER_MAX_ERRNO);
	assert_int_equal(ipu_gather_answer(dev, t, 0), -ENOENT);
	assert_msg("fake:0: answering gather request 1: no such request waits");
	/* One never handed out, or never posted: -ENOENT alike. */
	assert_int_equal(ipu_gather_answer(dev, t + 1, 0), -ENOENT);
	assert_int_equal(ipu_gather_answer(dev, 1000, 0), -ENOENT);
	assert_int_equal(ipu_gather_next(dev, &req), 0);
	assert_int_equal(ipu_gather_answer(dev, req.token, 0), 0);
	assert_int_equal(fake.answers, 2);
	assert_int_equal(fake.answer_status[1], 0);
	ipu_device_close(dev);
}

static void test_gather_fd_is_the_backends(void **state)
{
	struct ipu_device *dev = fake_open_dev(0, 0);
	int p[2];

	(void)state;
	assert_int_equal(ipu_gather_fd(dev), -EOPNOTSUPP);
	assert_msg("fake:0: gather fd: the device posts no gather requests");
	assert_int_equal(pipe(p), 0);
	fake.gather_fd = p[0];
	assert_int_equal(ipu_gather_fd(dev), p[0]);
	close(p[0]);
	close(p[1]);
	ipu_device_close(dev);
}

static void test_the_model_posts_no_requests(void **state)
{
	struct ipu_gather_request req = { .sz = sizeof(req) };
	struct ipu_device_info info = { .sz = sizeof(info) };
	struct ipu_device *dev = NULL;

	(void)state;
	assert_int_equal(ipu_device_open("model:0", NULL, &dev), 0);
	assert_int_equal(ipu_device_query(dev, &info), 0);
	assert_false(info.caps & IPU_DEVICE_CAP_GATHER);
	assert_int_equal(ipu_gather_fd(dev), -EOPNOTSUPP);
	assert_msg("model:0: gather fd: the device posts no gather requests");
	assert_int_equal(ipu_gather_next(dev, &req), -EOPNOTSUPP);
	assert_int_equal(ipu_gather_answer(dev, 1, 0), -EOPNOTSUPP);
	assert_msg("model:0: answering a gather request");
	ipu_device_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_null_arguments_are_einval),
		FAKE_TEST(test_nothing_waiting_is_eagain),
		FAKE_TEST(test_request_names_the_callers_staging_bo),
		FAKE_TEST(test_a_larger_request_struct_gets_zeros),
		FAKE_TEST(test_answers_are_checked_then_passed_on),
		FAKE_TEST(test_gather_fd_is_the_backends),
		FAKE_TEST(test_the_model_posts_no_requests),
	};

	setenv("IPU_MODEL_DEVICES", "2", 1);
	setenv("IPU_MODEL_MEM_MB", "4", 1);
	return cmocka_run_group_tests(tests, fake_group_setup,
				      fake_group_teardown);
}
