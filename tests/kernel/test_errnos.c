// SPDX-License-Identifier: GPL-2.0
/*
 * test_errnos.c - what the independent UAPI fuzzer found (issue 8, item
 * 5b): calls that failed but left something behind, and errnos that the
 * UAPI header (include/uapi/linux/ipu.h) does not document or contradicts.
 *
 * - BO_CREATE and LAUNCH whose struct sits in a read-only page: -EFAULT
 *   and nothing behind (no memory, no handle, no launch at the firmware,
 *   no fence or launch slot lost).
 * - WAIT of a fence this file does not hold (0, past 256, never issued,
 *   another file's): -ENOENT.
 * - A host range at the top of the address space (not mapped, and its
 *   page rounding wraps although its bytes do not): -EFAULT on every
 *   kernel (6.12's GUP says -EOVERFLOW); a range whose bytes wrap:
 *   -EINVAL.
 * - FW_DONE of a firmware revoked by a reset: -ENOLINK.
 * - Every ioctl, mmap and io_uring command on a file of a removed device:
 *   -ENODEV.
 * - io_uring XFER of more than 1 GiB: -EINVAL.
 *
 * The launch tests hold their launches in flight (kheld.h): they play
 * the firmware themselves on a simulated IPU of their own, which the
 * guest's ipu-simd (serving ipu0 and ipu1) leaves alone, or have ipu-emu
 * hold the launches of a PCI IPU.
 */
#include <time.h>

#include "kheld.h"

/* A failed call leaves nothing behind ---------------------------------- */

static void test_bo_create_with_its_struct_read_only_is_efault_and_allocates_nothing(void **state)
{
	int fd = kt_open_attached(0);
	struct ipu_info info = kt_info(fd);
	struct ipu_bo_create bo = { .size = 32768 }, *ro;
	struct ipu_bo_info bi;
	uint32_t h;

	(void)state;
	ro = kt_ro_copy(&bo, sizeof(bo));
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_BO_CREATE, ro), -EFAULT);
	if (kt_info(fd).memory_used != info.memory_used)
		fail_msg("BO_CREATE failed with -EFAULT but holds %" PRIu64 " bytes",
			 kt_info(fd).memory_used - info.memory_used);
	/* No handle of this (new) file survived it. */
	for (h = 1; h <= 4; h++)
		assert_int_equal(kt_bo_info(fd, h, &bi), -ENOENT);
	/* The memory is all there to allocate. */
	kt_bo(fd, info.memory_total - info.memory_used, NULL);
}

/*
 * On a simulated IPU, the firmware has no launch to take: none of the
 * failed ones reached it. (A PCI IPU's command queue is not visible from
 * the host; there, and on both, the held launches say it: one that started
 * would keep its launch slot, and a later LAUNCH would be -EAGAIN.)
 */
static void assert_nothing_at_the_firmware(const struct kfw *f, int i)
{
#ifdef KT_ON_PCI
	(void)f;
	(void)i;
#else
	struct ipu_fw_work w;

	if (kfw_next(f->fw, &w) != -ETIME)
		fail_msg("LAUNCH %d failed with -EFAULT but reached the firmware", i);
#endif
}

static void test_launch_with_its_struct_read_only_is_efault_and_starts_nothing(void **state)
{
	struct kfw f = kh_setup();
	struct ipu_launch *ro = kt_ro_copy(&f.l, sizeof(f.l));
	uint64_t fence;
	int i, status;

	(void)state;
	/* More than the file's 256 fences and launch slots: none may leak. */
	for (i = 0; i < 300; i++) {
		assert_int_equal(kt_ioctl(f.owner, IPU_IOCTL_LAUNCH, ro), -EFAULT);
		assert_nothing_at_the_firmware(&f, i);
	}
	/* The next launch works, and its fence brings its result. */
	assert_int_equal(kfw_launch(&f, &fence), 0);
	kh_assert_in_flight(&f, fence);
	kh_release(&f, kh_take(&f), -ENOEXEC);
	assert_int_equal(kt_wait_fence(f.owner, fence, INT64_MAX, &status), 0);
	assert_int_equal(status, -ENOEXEC);
	assert_nothing_at_the_firmware(&f, i);
}

/* WAIT --------------------------------------------------------------------- */

static void test_wait_for_a_fence_this_file_does_not_hold_is_enoent(void **state)
{
	static const uint64_t unknown[] = { 0, 2, 256, 257, 1000, UINT32_MAX,
					    (uint64_t)UINT32_MAX + 2, UINT64_MAX };
	struct kfw f = kh_setup();
	uint64_t fence;
	int other, status;
	size_t i;

	(void)state;
	assert_int_equal(kfw_launch(&f, &fence), 0);
	for (i = 0; i < KT_ARRAY_SIZE(unknown); i++)
		if (unknown[i] != fence && kt_wait_fence(f.owner, unknown[i], INT64_MAX, NULL) != -ENOENT)
			fail_msg("WAIT of fence %" PRIu64 ": %d, not -ENOENT",
				 unknown[i], kt_wait_fence(f.owner, unknown[i], INT64_MAX, NULL));
	/* Another file's fence. */
	other = kt_open(f.idx);
	assert_int_equal(kt_wait_fence(other, fence, INT64_MAX, NULL), -ENOENT);
	/* The launch is the owner's still, and then consumed. */
	kh_assert_in_flight(&f, fence);
	kh_release(&f, kh_take(&f), 0);
	assert_int_equal(kt_wait_fence(f.owner, fence, INT64_MAX, &status), 0);
	assert_int_equal(status, 0);
	assert_int_equal(kt_wait_fence(f.owner, fence, INT64_MAX, NULL), -ENOENT);
}

/* Host ranges at the end of the address space ------------------------------ */

struct xf {
	int fd;
	uint32_t h;
};

static struct xf xf_setup(void)
{
	struct xf x;

	x.fd = kt_open_attached(0);
	/* Larger than any range below: only the host side is wrong. */
	x.h = kt_bo(x.fd, 4 * kt_granule(x.fd), NULL);
	return x;
}

/* Both directions through the ioctl and io_uring: all must be @want. */
static void xfer_all_ways(const struct xf *x, uint64_t ptr, uint64_t len,
			  int want)
{
	static const uint32_t dirs[] = { IPU_XFER_TO_DEVICE, IPU_XFER_FROM_DEVICE };
	int err;
	size_t d;

	for (d = 0; d < 2; d++) {
		err = kt_xfer(x->fd, x->h, 0, (const void *)(uintptr_t)ptr, len,
			      dirs[d]);
		if (err != want)
			fail_msg("XFER ioctl %s of %#" PRIx64 "+%" PRIu64 ": %d (%s), not %d",
				 d ? "from device" : "to device", ptr, len, err,
				 strerror(-err), want);
		ku_xfer(&ku_r, x->fd, x->h, 0, (const void *)(uintptr_t)ptr, len,
			dirs[d], 0);
		err = ku_one(&ku_r);
		if (err != want)
			fail_msg("io_uring XFER %s of %#" PRIx64 "+%" PRIu64 ": %d (%s), not %d",
				 d ? "from device" : "to device", ptr, len, err,
				 strerror(-err), want);
	}
}

static void test_a_host_range_in_the_last_page_of_the_address_space_is_efault(void **state)
{
	struct xf x = xf_setup();
	uint64_t last = -(uint64_t)kt_page_size();

	(void)state;
	/* Its bytes do not wrap, its page does: "not mapped". */
	xfer_all_ways(&x, last, 16, -EFAULT);
	xfer_all_ways(&x, last + 0x100, 0x100, -EFAULT);
	xfer_all_ways(&x, last + 0xf00, 0xff, -EFAULT);
}

static void test_a_host_range_in_kernel_space_is_efault(void **state)
{
	struct xf x = xf_setup();

	(void)state;
	xfer_all_ways(&x, 0xffff800000000000ull, 4096, -EFAULT);
	xfer_all_ways(&x, 0xffffffff80000000ull, 64, -EFAULT);
	/* A user range running into the non-canonical hole. */
	xfer_all_ways(&x, 0x00007ffffffff000ull, 8192, -EFAULT);
}

static void test_a_host_range_whose_bytes_wrap_is_einval(void **state)
{
	struct xf x = xf_setup();

	(void)state;
	xfer_all_ways(&x, UINT64_MAX - 15, 32, -EINVAL);
	xfer_all_ways(&x, -(uint64_t)kt_page_size(), kt_page_size() + 1, -EINVAL);
}

/* A reset under a launch in flight ----------------------------------------- */

/*
 * The reset revokes the simulated IPU's firmware: its FW_DONE of the launch
 * it took is -ENOLINK. On PCI the reset aborts the launch the device
 * holds (E_RESET). Either way the launch ends with -EIO.
 */
static void test_fw_done_of_a_firmware_revoked_by_a_reset_is_enolink(void **state)
{
	struct kfw f = kh_setup();
	uint64_t fence, id;
	int status;

	(void)state;
	assert_int_equal(kfw_launch(&f, &fence), 0);
	id = kh_take(&f);
	kh_assert_in_flight(&f, fence);
	assert_int_equal(kt_reset(f.owner), 0);
	kh_release_revoked(&f, id);
	assert_int_equal(kt_wait_fence(f.owner, fence, INT64_MAX, &status), 0);
	assert_int_equal(status, -EIO);
}

/* A removed device --------------------------------------------------------- */

static void test_every_call_on_a_file_of_a_removed_device_is_enodev(void **state)
{
	struct kfw f = kh_setup();
	struct ipu_launch l = f.l;
	struct ipu_fw_attach fa = { 0 };
	struct ipu_fw_work w;
	struct ipu_bo_create bo;
	struct ipu_bo_info bi;
	struct ipu_wait wt;
	struct io_uring_sqe *sqe;
	uint64_t fence;
	uint8_t buf[64];
	int idle, fds[3], i;

	(void)state;
	idle = kt_open(f.idx);
	kt_bo(f.owner, 4096, &bo);
	/* A launch in flight and one the firmware (or device) took. */
	assert_int_equal(kfw_launch(&f, &fence), 0);
	(void)kh_take(&f);
	assert_int_equal(kfw_launch(&f, &fence), 0);
	assert_int_equal(kt_remove(f.idx), 0);
	kt_untrack_removed(f.idx);

	fds[0] = f.owner;
	fds[1] = f.fw;
	fds[2] = idle;
	for (i = 0; i < 3; i++) {
		int fd = fds[i];

		print_message("file %d (%s)\n", i,
			      i == 0 ? "owner" : i == 1 ? "firmware (PCI: a second file)" : "idle");
		assert_int_equal(kt_get_info(fd, &(struct ipu_info){ 0 }), -ENODEV);
		assert_int_equal(kt_attach(fd), -ENODEV);
		assert_int_equal(kt_detach(fd), -ENODEV);
		assert_int_equal(kt_bo_create(fd, 4096, &(struct ipu_bo_create){ 0 }),
				 -ENODEV);
		assert_int_equal(kt_bo_info(fd, bo.handle, &bi), -ENODEV);
		assert_int_equal(kt_xfer(fd, bo.handle, 0, buf, sizeof(buf),
					 IPU_XFER_TO_DEVICE), -ENODEV);
		assert_int_equal(kt_reset(fd), -ENODEV);
		l = f.l;
		assert_int_equal(kt_ioctl(fd, IPU_IOCTL_LAUNCH, &l), -ENODEV);
		memset(&wt, 0, sizeof(wt));
		wt.fence = fence;
		wt.timeout_ns = INT64_MAX;
		assert_int_equal(kt_ioctl(fd, IPU_IOCTL_WAIT, &wt), -ENODEV);
		assert_int_equal(kt_ioctl(fd, IPU_IOCTL_FW_ATTACH, &fa), -ENODEV);
		memset(&w, 0, sizeof(w));
		assert_int_equal(kt_ioctl(fd, IPU_IOCTL_FW_NEXT, &w), -ENODEV);
		assert_int_equal(kfw_done(fd, 1, 0), -ENODEV);
		assert_int_equal(kt_bo_destroy(fd, bo.handle), -ENODEV);
		/* mmap: a buffer's offset, and the firmware's (offset 0). */
		assert_int_equal(kt_mmap_err(4096, PROT_READ, MAP_SHARED, fd,
					     (off_t)bo.mmap_offset), -ENODEV);
		assert_int_equal(kt_mmap_err(4096, PROT_READ, MAP_SHARED, fd,
					     IPU_FW_MMAP_OFFSET), -ENODEV);
		/* io_uring: a transfer and a launch. */
		ku_xfer(&ku_r, fd, bo.handle, 0, buf, sizeof(buf),
			IPU_XFER_TO_DEVICE, 0);
		assert_int_equal(ku_one(&ku_r), -ENODEV);
		sqe = ku_sqe(&ku_r, fd, IPU_URING_CMD_LAUNCH, 0);
		memcpy(sqe->cmd, &f.l, sizeof(f.l));
		assert_int_equal(ku_one(&ku_r), -ENODEV);
	}
}

/* io_uring's transfer limit ------------------------------------------------ */

/*
 * Above 1 GiB, an io_uring XFER is -EINVAL (it is pinned whole). No BO
 * that large fits a test guest, so the transfer names a handle this file
 * does not hold: up to 1 GiB that is what is wrong with it (-ENOENT),
 * above it the length is refused first, as the driver checks the
 * arguments before it looks the handle up.
 */
static void test_an_io_uring_xfer_above_1_gib_is_einval(void **state)
{
	const uint64_t gib = 1ull << 30;
	int fd = kt_open_attached(0);
	uint8_t *host = kt_alloc(kt_page_size());

	(void)state;
	ku_xfer(&ku_r, fd, 77, 0, host, gib, IPU_XFER_TO_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), -ENOENT);
	ku_xfer(&ku_r, fd, 77, 0, host, gib + 1, IPU_XFER_TO_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), -EINVAL);
	ku_xfer(&ku_r, fd, 77, 0, host, gib + 1, IPU_XFER_FROM_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), -EINVAL);
	/* The ioctl has no such limit (it goes in chunks). */
	assert_int_equal(kt_xfer(fd, 77, 0, host, gib + 1, IPU_XFER_TO_DEVICE),
			 -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KU_TEST(test_bo_create_with_its_struct_read_only_is_efault_and_allocates_nothing),
		KH_TEST(test_launch_with_its_struct_read_only_is_efault_and_starts_nothing),
		KH_TEST(test_wait_for_a_fence_this_file_does_not_hold_is_enoent),
		KU_TEST(test_a_host_range_in_the_last_page_of_the_address_space_is_efault),
		KU_TEST(test_a_host_range_in_kernel_space_is_efault),
		KU_TEST(test_a_host_range_whose_bytes_wrap_is_einval),
		KH_TEST(test_fw_done_of_a_firmware_revoked_by_a_reset_is_enolink),
		KH_TEST(test_every_call_on_a_file_of_a_removed_device_is_enodev),
		KU_TEST(test_an_io_uring_xfer_above_1_gib_is_einval),
	};

	return KT_RUN(tests);
}
