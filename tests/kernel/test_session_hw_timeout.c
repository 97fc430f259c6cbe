// SPDX-License-Identifier: GPL-2.0
/*
 * test_session_hw_timeout.c - libsession's bounded wait on ipu.ko (issue
 * 9.2): with the firmware stopped (SIGSTOP of ipu-simd) and the kernel's
 * launch deadline far off, a run gives up after the session's
 * wait_timeout_ms, resets the device (reset_count + 1 or more; the kernel fails
 * the launch in flight with -EIO), reaps every command of its batch
 * before returning (nothing is left in flight on the session's queue)
 * and fails with -ETIMEDOUT and a message naming the device; once the
 * daemon goes on, the next run computes from what the device holds.
 * Also: libipu reports the kernel's launch deadline, which the session's
 * default bound starts from. The PCI variant (KT_ON_PCI) hangs the launch
 * with ipu-emu's hang_launch fault instead (see hw_setup() there).
 */
#include "ksimd.h"
#include "kprog.h"
#include "unit/session_helpers.h"

#ifdef KT_ON_PCI
#include "kemu.h"
#include "kpci.h"

/*
 * The PCI variant (test_pci_session_hw_timeout.c): the session on the
 * first PCI IPU (IPU_HW_PLATFORM=pci, ipu-simd away), and ipu-emu's
 * hang_launch=1 for the stopped firmware: the next launch neither runs
 * nor completes, its deadline ignored, until a reset aborts it.
 */
static void hw_setup(void)
{
	kt_require_dev(0);
	require_ipus();
	ke_require();
	assert_int_equal(setenv("IPU_HW_PLATFORM", "pci", 1), 0);
	ks_simd_away();
}

static void hw_hang(struct ipu_device *dev)
{
	unsigned int n;
	int ipu = -1;

	/*
	 * The session's IPU is the lowest hw:N of the PCI ones, which after
	 * earlier tests unbound and bound functions again need not be
	 * ipu-emu's ipu0: hang the model behind it.
	 */
	if (sscanf(ipu_device_name(dev), "hw:%u", &n) == 1)
		ipu = ke_model_ipu(n);
	if (ipu < 0)
		fail_msg("%s is none of the rig's PCI IPUs", ipu_device_name(dev));
	ke_fault((unsigned int)ipu, "hang_launch=1");
}

/* A reset ended the hang: nothing to undo, nothing to wait for. */
static void hw_unhang(void)
{
}

static void hw_served(void)
{
}

static int hw_teardown(void **state)
{
	unsetenv("IPU_HW_PLATFORM");
	return ks_teardown(state);
}
#else
/* The simulated IPUs: their firmware, ipu-simd, stopped (SIGSTOP). */
static void hw_setup(void)
{
	ks_require_simd();
}

static void hw_hang(struct ipu_device *dev)
{
	(void)dev;
	ks_simd_stop();
}

static void hw_unhang(void)
{
	ks_simd_cont();
}

/* The daemon serves the device again after the reset. */
static void hw_served(void)
{
	ks_wait_served();
}

#define hw_teardown ks_teardown
#endif

static void test_session_wait_gives_up_resets_and_reaps(void **state)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_hw",
		 .attach_timeout_ms = 1);
	struct ipu_device_info info = { .sz = sizeof(info) };
	float x[2] = { 1, 1 }, y[2], w[2];
	const float ran[2] = { 2, 3 }, again[2] = { 3, 4 };
	const uint64_t two = 2;
	struct ipu_session *s = NULL;
	struct ipu_completion c;
	struct ipu_device *dev;
	uint64_t resets;
	int err;

	(void)state;
	hw_setup();
	ks_timeout_set(60000);
	if (ipu_session_create(sh_acc_ir(1, 1, 2, NULL), &opts, &s))
		fail_msg("create: %s", ipu_session_errmsg(NULL));
	sh_attach(s);
	dev = __ipu_session_replica_device(s, 0);
	assert_int_equal(ipu_device_query(dev, &info), 0);
	assert_int_equal(info.launch_timeout_ms, 60000);
	resets = info.reset_count;
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));
	sh_assert_floats(y, ran, 2);

	hw_hang(dev);
	y[0] = y[1] = -1;
	{
		struct ipu_stream_buffer in = sh_sb("x", sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull));
		struct ipu_stream_buffer out = sh_sb("y", sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));

		/*
		 * Only this call has the short bound: the others keep the
		 * default (the kernel's deadline + margin), so that none of
		 * them races 1.5 s on a slow (debug) kernel.
		 */
		__ipu_session_set_wait_timeout(s, 1500);
		err = ipu_session_run_with_outputs(s, &in, 1, &out, 1, 0);
		__ipu_session_set_wait_timeout(s, 0);
	}
	hw_unhang();
	assert_int_equal(err, -ETIMEDOUT);
	sh_assert_msg(s, "the launch did not complete within 1500 ms on ");
	sh_assert_msg(s, ipu_device_name(dev));
	sh_assert_msg(s, "ipu-info");
	assert_true(y[0] == -1 && y[1] == -1);
	assert_false(__ipu_session_in_sync(s));
	assert_int_equal(ipu_queue_reap(__ipu_session_queue(s), &c, 1, 1, 0),
			 -EINVAL);
	assert_int_equal(ipu_device_query(dev, &info), 0);
	/* At least one: a wait after the reset has the same short bound,
	 * and on a slow kernel may end first, so the session resets again. */
	assert_true(info.reset_count >= resets + 1);

	/* The device runs again; the launch never ran. */
	hw_served();
	sh_get_f32(s, "w", w, 1, &two);
	sh_assert_floats(w, ran, 2);
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));
	sh_assert_floats(y, again, 2);
	ipu_session_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_session_wait_gives_up_resets_and_reaps,
					  hw_teardown),
	};

#ifdef KT_ON_PCI
	kp_init();
#endif

	return kt_exit_code(cmocka_run_group_tests(tests, kp_group_setup, NULL),
			    KT_ARRAY_SIZE(tests));
}
