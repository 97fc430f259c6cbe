// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_launch.c - launches on the PCIe IPUs go through the device's
 * command queue (docs/hardware.md section 4.3), not a userspace firmware:
 *  - the device runs the program: its outputs equal the userspace model's;
 *  - the spec's status codes reach WAIT as the errnos of its table
 *    (junk for an image: E_NOEXEC, -ENOEXEC);
 *  - hang_launch: the device ignores the deadline; the driver's watchdog
 *    fails the launch with -ETIMEDOUT, soft-resets the device (reset_count
 *    moves by one) and the next launch runs;
 *  - ignore_reset + hang_launch: soft reset does nothing, so the driver
 *    falls back to Function Level Reset and boots the firmware again; the
 *    next launch runs.
 * Skipped without PCI IPUs or without ipu-emu's control port.
 */
#include "kpci.h"
#include "kemu.h"
#include "kprog.h"
#include "ksimd.h"

#define FAR_NS INT64_MAX
/* A short deadline for the hang tests: the watchdog fires a second later. */
#define HANG_TIMEOUT_MS 500

/*
 * The function the tests use, by its index in the rig's order: the first
 * here; test_pci_msi.c includes this file for the rig's MSI function.
 */
#ifndef PL_FN
#define PL_FN 0u
#endif

/*
 * A file attached to the PCI IPU PL_FN (ipu-emu's ipu<PL_FN>), @image in
 * a buffer and an arena of @arena bytes for a launch.
 */
static struct kp_raw pl_setup(const void *image, size_t len, uint64_t arena)
{
	struct kp_raw x;
	int n;

	require_ipus();
	n = ipu_of(ipus[PL_FN]);
	if (n < 0)
		fail_msg("%s has no ipuN (not bound?)", ipus[PL_FN]);
	x.fd = kt_open_attached((unsigned int)n);
	kp_launch_bufs(x.fd, image, len, arena, &x.l);
	return x;
}

/* Launch and wait: the launch's status (WAIT itself must work). */
static int run(struct kp_raw *x)
{
	struct ipu_launch arg = x->l;
	int status;

	arg.fence = 0;
	assert_int_equal(kt_ioctl(x->fd, IPU_IOCTL_LAUNCH, &arg), 0);
	assert_true(arg.fence != 0);
	assert_int_equal(kt_wait_fence(x->fd, arg.fence, FAR_NS, &status), 0);
	return status;
}

/*
 * The MLP on the PCI IPU PL_FN: weights and an input in, a launch, and
 * the output equal to the userspace model's.
 */
static void run_mlp(void)
{
	struct kp_prog *p = kp_mlp(1);
	const struct ipu_exe_stream *in = &p->exe->streams[p->in[0]];
	const struct ipu_exe_stream *out = &p->exe->streams[p->out[0]];
	float x[16], y[8], model[8];
	struct kp_setup m;
	char msg[256];
	struct kp_raw pl;
	int i;

	pl = pl_setup(p->image, p->len, p->exe->arena_size);
	for (i = 0; i < 16; i++)
		x[i] = (float)i / 8.0f - 1.0f;
	kp_weights(p, 0, kp_raw_put_arena, &pl);
	assert_int_equal(kt_write_bo(pl.fd, pl.l.arena_handle, in->slots_offset,
				     x, sizeof(x)), 0);
	assert_int_equal(run(&pl), 0);
	assert_int_equal(kt_read_bo(pl.fd, pl.l.arena_handle, out->slots_offset,
				    y, sizeof(y)), 0);
	kp_open(&m, p, (const char *[]){ "model:0" });
	assert_int_equal(kp_run(&m, (void *[]){ x }, (void *[]){ model }, msg,
				sizeof(msg)), 0);
	assert_memory_equal(y, model, sizeof(y));
	kt_close(pl.fd);
	kp_free(p);
}

static void test_the_device_runs_the_program(void **state)
{
	(void)state;
	run_mlp();
}

/* Garbage for an image: the device says E_NOEXEC, WAIT -ENOEXEC. */
static void test_junk_is_enoexec(void **state)
{
	static const uint8_t junk[256];
	struct kp_raw pl;

	(void)state;
	pl = pl_setup(junk, sizeof(junk), 4096);
	assert_int_equal(run(&pl), -ENOEXEC);
	/* A failed launch does not stop the queue: the same again. */
	assert_int_equal(run(&pl), -ENOEXEC);
}

/*
 * A hung launch (@faults: hang_launch, maybe with ignore_reset): the
 * watchdog fails it with -ETIMEDOUT and resets the device once, by
 * Function Level Reset when @flr (the one line the function logs then);
 * the next launch runs the program.
 */
static void hang_then_run(const char *faults, bool flr)
{
	struct kp_prog *p = kp_mlp(1);
	char line[512];
	uint64_t before;
	unsigned int lines;
	struct kp_raw pl;
	int klog;

	ke_require();
	ks_timeout_set(HANG_TIMEOUT_MS);
	pl = pl_setup(p->image, p->len, p->exe->arena_size);
	kp_weights(p, 0, kp_raw_put_arena, &pl);
	before = kt_info(pl.fd).reset_count;
	klog = kt_klog_from_now();
	ke_fault(PL_FN, faults);
	assert_int_equal(run(&pl), -ETIMEDOUT);
	assert_int_equal(kt_info(pl.fd).reset_count, before + 1);
	lines = klog_driver_lines(klog, ipus[PL_FN], line, sizeof(line));
	if (lines != (flr ? 1u : 0u) ||
	    (flr && !strstr(line, "Function Level Reset")))
		fail_msg("%u lines from ipu %s (first: \"%s\"), expected %s",
			 lines, ipus[PL_FN], line, flr ? "the FLR's" : "none");
	kt_close(pl.fd);
	kp_free(p);
	/*
	 * The next launch is a normal one, maybe behind the firmware's boot
	 * after an FLR: under the normal deadline, not the hang's.
	 */
	ks_timeout_restore();
	run_mlp();
}

static void test_a_hung_launch_is_reset_and_the_next_runs(void **state)
{
	(void)state;
	hang_then_run("hang_launch=1", false);
}

static void test_a_failed_soft_reset_falls_back_to_flr(void **state)
{
	(void)state;
	hang_then_run("ignore_reset=1,hang_launch=1", true);
}

/* This file's tests, for its main() and test_pci_msi.c's. */
#define PL_TESTS							\
	KT_TEST(test_the_device_runs_the_program),			\
	KT_TEST(test_junk_is_enoexec),					\
	KS_TEST(test_a_hung_launch_is_reset_and_the_next_runs),		\
	KS_TEST(test_a_failed_soft_reset_falls_back_to_flr)

#ifndef PL_NO_MAIN
int main(void)
{
	const struct CMUnitTest tests[] = {
		PL_TESTS,
	};

	kp_init();
	return KT_RUN(tests);
}
#endif /* PL_NO_MAIN */
