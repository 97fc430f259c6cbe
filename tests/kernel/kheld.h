/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kheld.h - a launch held in flight, then released with a status, on
 * either kind of IPU: for the tests whose subject is what ipu.ko does
 * while a launch is in flight (its file closed or detached, its fence
 * waited for, a reset, the device removed), not who runs the launch.
 *
 *	struct kfw f = kh_setup();
 *	kfw_launch(&f, &fence);			// in flight
 *	id = kh_take(&f);			// it reached the firmware / device
 *	kh_release(&f, id, 0);			// it completes with 0
 *
 *  - Simulated IPUs: what kfw.h does, the test being the firmware of a
 *    simulated IPU of its own: the launch waits until FW_NEXT takes it
 *    (kh_take) and FW_DONE reports the status (kh_release).
 *  - PCI IPUs (KT_ON_PCI): device 0 (kt_own_dev(): the first PCI IPU,
 *    bound again at teardown if the test unbound it), whose launches
 *    ipu-emu holds from kh_setup() on (fault hold_launches,
 *    docs/hardware.md section 11); kh_release() lifts the hold and the
 *    device runs what the launch's executable buffer holds by then: a
 *    real program (kprog.h's kp_spin(1)) for status 0, zeros for -ENOEXEC
 *    (E_NOEXEC). f.fw is a second file of the device: PCI IPUs have no
 *    firmware role (FW_ATTACH is -EOPNOTSUPP there).
 *
 * A reset meanwhile ends the launch with -EIO either way: it revokes the
 * simulated IPU's firmware (FW_DONE is then -ENOLINK) and aborts the held
 * launch on the device (E_RESET); kh_release_revoked() says so.
 * KH_TEST's teardown lifts a hold that a failed test left behind, before
 * the files and the ring go.
 */
#ifndef IPU_TESTS_KHELD_H
#define IPU_TESTS_KHELD_H

#include "kfw.h"
#include "kuring.h"
#ifdef KT_ON_PCI
#include "kemu.h"
#include "kprog.h"
#endif

#ifdef KT_ON_PCI
/* ipu-emu's ipuN + 1 of the device whose launches are held; 0: none. */
static unsigned int kh_held_emu;

/* Lift the hold (teardown too: no test may leave launches held). */
static inline void kh_unhold(void)
{
	if (kh_held_emu)
		ke_fault(kh_held_emu - 1, "hold_launches=0");
	kh_held_emu = 0;
}

/* The launch's executable buffer holds @exe (@len bytes; NULL: zeros). */
static inline void kh_put_exe(const struct kfw *f, const void *exe, size_t len)
{
	void *zeros = NULL;

	if (!exe)
		exe = zeros = calloc(1, len);
	assert_non_null(exe);
	assert_int_equal(kt_write_bo(f->owner, f->l.exe_handle, 0, exe, len), 0);
	free(zeros);
}
#endif

/* The device, its owner and a launch of it that will be held in flight. */
static inline struct kfw kh_setup(void)
{
#ifdef KT_ON_PCI
	struct kp_prog *p;
	struct kfw f;

	ke_require();
	f.idx = kt_own_dev(0);
	f.owner = kt_open_attached(f.idx);
	p = kp_spin(1);
	kp_launch_bufs(f.owner, p->image, p->len, p->exe->arena_size, &f.l);
	kp_free(p);
	f.fw = kt_open(f.idx);
	kh_held_emu = ke_index_of(f.idx) + 1;
	ke_fault(kh_held_emu - 1, "hold_launches=1");
	return f;
#else
	return kfw_setup(true);
#endif
}

/*
 * The oldest launch in flight has reached the firmware (FW_NEXT took it):
 * its id for kh_release(). On PCI the device holds it: 0.
 */
static inline uint64_t kh_take(const struct kfw *f)
{
#ifdef KT_ON_PCI
	(void)f;
	return 0;
#else
	struct ipu_fw_work w;

	assert_int_equal(kfw_next(f->fw, &w), 0);
	return w.id;
#endif
}

/* f->l through io_uring (ku_r), in flight: kh_take()'s id. */
static inline uint64_t kh_uring_launch(const struct kfw *f)
{
	struct io_uring_sqe *sqe = ku_sqe(&ku_r, f->owner,
					  IPU_URING_CMD_LAUNCH, 0);

	memcpy(sqe->cmd, &f->l, sizeof(f->l));
	assert_int_equal(io_uring_submit(&ku_r), 1);
	/* Issued inside the submit: the firmware has it now. */
	return kh_take(f);
}

/* The launch of @fence is in flight still: WAIT polls -ETIME. */
static inline void kh_assert_in_flight(const struct kfw *f, uint64_t fence)
{
	assert_int_equal(kt_wait_fence(f->owner, fence, 0, NULL), -ETIME);
}

/* No io_uring launch has completed yet: ku_r has no CQE. */
static inline void kh_assert_no_cqe(void)
{
	struct io_uring_cqe *cqe;

	assert_int_equal(io_uring_peek_cqe(&ku_r, &cqe), -EAGAIN);
}

/*
 * End the launch @id of kh_take() with @status: FW_DONE; on PCI, the
 * hold lifted over an image that completes with @status (0 or -ENOEXEC:
 * the device's statuses have no other that a test can pick), every held
 * launch then running.
 */
static inline void kh_release(const struct kfw *f, uint64_t id, int status)
{
#ifdef KT_ON_PCI
	(void)id;
	if (status == -ENOEXEC)
		kh_put_exe(f, NULL, f->l.exe_size);
	else if (status)
		fail_msg("kh_release: a PCI IPU's launch ends with 0 or -ENOEXEC, not %d",
			 status);
	kh_unhold();
#else
	assert_int_equal(kfw_done(f->fw, id, status), 0);
#endif
}

/*
 * After a reset: nothing of launch @id is left to run (its fence says
 * -EIO). The revoked firmware's FW_DONE is -ENOLINK; on PCI the reset
 * aborted the held launch (E_RESET) and the hold is lifted.
 */
static inline void kh_release_revoked(const struct kfw *f, uint64_t id)
{
#ifdef KT_ON_PCI
	(void)f;
	(void)id;
	kh_unhold();
#else
	assert_int_equal(kfw_done(f->fw, id, 0), -ENOLINK);
#endif
}

/* The hold lifted first: a held launch would keep the ring's exit waiting. */
static inline int kh_teardown(void **state)
{
#ifdef KT_ON_PCI
	kh_unhold();
#endif
	return ku_teardown(state);
}

/* A test with a fresh ring in ku_r, which may hold a launch (kh_setup). */
#define KH_TEST(f) cmocka_unit_test_setup_teardown(f, ku_setup, kh_teardown)

#endif /* IPU_TESTS_KHELD_H */
