// SPDX-License-Identifier: GPL-2.0
/*
 * test_small_fixes.c - the smaller items of issue 8 (item 5):
 *
 * - A FROM_DEVICE transfer that fails still marks the host pages it
 *   pinned for writing dirty (the device may have written some before it
 *   failed): seen through /proc/self/pagemap and /proc/kpageflags.
 * - FW_DONE with a kernel-internal code (-ERESTARTSYS, -EIOCBQUEUED)
 *   completes an io_uring launch with -EIO, never with the internal code
 *   (test_fw_role.c checks the ioctl's fence; a positive status is FW_DONE's
 *   -EINVAL and leaves the launch in flight). On PCI IPUs (no firmware
 *   role) FW_DONE is -ENOLINK and the device's completion reaches the ring.
 * - A file opened read-only can map a BO PROT_READ (VM_MAYSHARE), and not
 *   PROT_WRITE.
 * - Output-only fields of BO_CREATE and BO_INFO must be zero on input.
 * - new_device of 4096 MiB on a guest that has not got it fails cleanly:
 *   -ENOMEM, no new device, and no WARNING or Call Trace in the kernel log.
 */
#include <time.h>

#include "kheld.h"

/* Page flags ---------------------------------------------------------------- */

#define KPF_DIRTY_BIT 4

/* Flags of the page behind @addr (mapped), from pagemap and kpageflags. */
static uint64_t page_flags(const void *addr)
{
	uint64_t ent, flags;
	uint64_t vpn = (uintptr_t)addr / kt_page_size();
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &ent, sizeof(ent), (off_t)(vpn * 8)), 8);
	close(fd);
	if (!(ent & (1ull << 63)))
		fail_msg("page at %p not present", addr);
	ent &= (1ull << 55) - 1; /* the PFN (root only) */
	assert_true(ent != 0);
	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("/proc/kpageflags: %s", strerror(errno));
	assert_int_equal(pread(fd, &flags, sizeof(flags), (off_t)(ent * 8)), 8);
	close(fd);
	return flags;
}

static bool page_dirty(const void *addr)
{
	return page_flags(addr) & (1ull << KPF_DIRTY_BIT);
}

/*
 * Two pages of anonymous memory: the first untouched (the transfer's pin
 * faults it in for writing: a new page, not dirty), the second written by
 * the CPU: it must show clean too, else this kernel marks anonymous pages
 * dirty on its own and the test could not tell.
 */
static uint8_t *clean_target(void)
{
	size_t page = kt_page_size();
	uint8_t *buf = kt_alloc(2 * page);

	buf[page] = 1;
	if (page_dirty(buf + page))
		fail_msg("a fresh anonymous page is dirty already: cannot tell");
	return buf;
}

struct bo_fd {
	int fd;
	uint32_t h;
};

static struct bo_fd bo_with_data(void)
{
	uint8_t data[256];
	struct bo_fd b;

	b.fd = kt_open_attached(0);
	b.h = kt_bo(b.fd, kt_granule(b.fd), NULL);
	kt_fill(data, sizeof(data), 51);
	assert_int_equal(kt_write_bo(b.fd, b.h, 0, data, sizeof(data)), 0);
	return b;
}

static void test_a_failed_from_device_xfer_still_dirties_the_pages(void **state)
{
	struct bo_fd b = bo_with_data();
	uint8_t *buf = clean_target();

	(void)state;
	kt_fault_set(0, "fail_dma", 1);
	assert_int_equal(kt_read_bo(b.fd, b.h, 0, buf, 256), -EIO);
	if (!page_dirty(buf))
		fail_msg("FROM_DEVICE failed: the page pinned for it is not dirty");
}

static void test_a_failed_io_uring_from_device_xfer_still_dirties_the_pages(void **state)
{
	struct bo_fd b = bo_with_data();
	uint8_t *buf = clean_target();

	(void)state;
	kt_fault_set(0, "fail_dma", 1);
	ku_xfer(&ku_r, b.fd, b.h, 0, buf, 256, IPU_XFER_FROM_DEVICE, 0);
	assert_int_equal(ku_one(&ku_r), -EIO);
	if (!page_dirty(buf))
		fail_msg("io_uring FROM_DEVICE failed: the page pinned for it is not dirty");
}

/* FW_DONE's status, through io_uring ------------------------------------- */

/*
 * An io_uring launch held in flight (kheld.h); its firmware reports
 * @status, which FW_DONE answers with @done_ret; the launch's CQE must be
 * @want_cqe. A PCI IPU has no firmware role: there FW_DONE is -ENOLINK
 * (after the same check of @status), and the device's completion reaches
 * the ring: E_RESET (a reset under the held launch) as -EIO where the
 * firmware's status was to give -EIO, else the program's 0.
 */
static void fw_uring_done(int32_t status, int done_ret, int want_cqe)
{
	struct kfw f = kh_setup();
	uint64_t id = kh_uring_launch(&f);

	kh_assert_no_cqe();
#ifdef KT_ON_PCI
	/* A positive status is refused first, as on a firmware file. */
	assert_int_equal(kfw_done(f.fw, id, status), done_ret ? done_ret : -ENOLINK);
	assert_int_equal(kfw_done(f.owner, id, status), done_ret ? done_ret : -ENOLINK);
	if (want_cqe == -EIO) {
		assert_int_equal(kt_reset(f.owner), 0);
		kh_release_revoked(&f, id);
	} else {
		kh_release(&f, id, 0);
	}
#else
	assert_int_equal(kfw_done(f.fw, id, status), done_ret);
	/* Refused: the launch is still the firmware's to finish. */
	if (done_ret)
		kh_release(&f, id, 0);
#endif
	assert_int_equal(ku_one(&ku_r), want_cqe);
}

static void test_fw_done_with_erestartsys_completes_the_uring_launch_with_eio(void **state)
{
	(void)state;
	fw_uring_done(-512 /* ERESTARTSYS */, 0, -EIO);
}

static void test_fw_done_with_eiocbqueued_completes_the_uring_launch_with_eio(void **state)
{
	(void)state;
	fw_uring_done(-529 /* EIOCBQUEUED */, 0, -EIO);
}

static void test_fw_done_with_a_positive_status_is_einval_and_keeps_the_uring_launch(void **state)
{
	(void)state;
	fw_uring_done(1, -EINVAL, 0);
}

/* mmap of a read-only file ------------------------------------------------ */

static void test_a_read_only_file_maps_a_bo_read_only(void **state)
{
	struct ipu_bo_create bo;
	uint8_t data[64];
	uint8_t *p;
	int fd;

	(void)state;
	kt_require_dev(0);
	fd = open(KT_NODE(0), O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	kt_track(KT_FD)->fd = fd;
	assert_int_equal(kt_attach(fd), 0);
	kt_bo(fd, kt_granule(fd), &bo);
	kt_fill(data, sizeof(data), 52);
	assert_int_equal(kt_write_bo(fd, bo.handle, 0, data, sizeof(data)), 0);
	p = kt_mmap(bo.size, PROT_READ, MAP_SHARED, fd, (off_t)bo.mmap_offset);
	if (p == MAP_FAILED)
		fail_msg("PROT_READ mmap of a read-only file: %s", strerror(errno));
	assert_pattern(p, sizeof(data), 52);
	/* Writable shared mappings need a file open for writing. */
	assert_int_equal(kt_mmap_err(bo.size, PROT_READ | PROT_WRITE, MAP_SHARED,
				     fd, (off_t)bo.mmap_offset), -EACCES);
	/* mprotect() cannot make the read-only mapping writable either. */
	assert_int_equal(mprotect(p, bo.size, PROT_READ | PROT_WRITE), -1);
	assert_int_equal(errno, EACCES);
}

/* Output-only fields ------------------------------------------------------ */

static void test_bo_create_with_an_output_field_set_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	uint64_t used = kt_info(fd).memory_used;
	struct ipu_bo_create bo;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		memset(&bo, 0, sizeof(bo));
		bo.size = kt_page_size();
		if (i == 0)
			bo.handle = 1;
		else if (i == 1)
			bo.device_addr = 1;
		else
			bo.mmap_offset = 1;
		assert_int_equal(kt_ioctl(fd, IPU_IOCTL_BO_CREATE, &bo), -EINVAL);
	}
	/* Nothing was allocated. */
	assert_int_equal(kt_info(fd).memory_used, used);
}

static void test_bo_info_with_an_output_field_set_is_einval(void **state)
{
	int fd = kt_open_attached(0);
	uint32_t h = kt_bo(fd, kt_page_size(), NULL);
	struct ipu_bo_info bi;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		memset(&bi, 0, sizeof(bi));
		bi.handle = h;
		if (i == 0)
			bi.size = 1;
		else if (i == 1)
			bi.device_addr = 1;
		else
			bi.mmap_offset = 1;
		assert_int_equal(kt_ioctl(fd, IPU_IOCTL_BO_INFO, &bi), -EINVAL);
	}
	assert_int_equal(kt_bo_info(fd, h, &bi), 0);
}

/* new_device of more memory than the guest has ---------------------------- */

/*
 * The first record of @fd (from kt_klog_from_now()) with a sign of a kernel
 * warning, copied into @line; false if none.
 */
static bool klog_bad(int fd, char *line, size_t len)
{
	static const char *const bad[] = { "WARNING", "Call Trace", "BUG",
					   "vmalloc error", "allocation failure",
					   "Oops" };

	return kt_klog_find(fd, bad, KT_ARRAY_SIZE(bad), line, len);
}

static uint64_t mem_total_kib(void)
{
	char line[256];
	unsigned long long kib = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kib) == 1)
			break;
	fclose(f);
	assert_true(kib > 0);
	return kib;
}

static void test_new_device_of_4096_mb_on_a_small_guest_fails_cleanly(void **state)
{
	char line[512];
	uint64_t before;
	int err, klog;

	(void)state;
	kt_sim_only("the sim control file's new_device");
	kt_require_sim_ctl();
	if (mem_total_kib() >= (4096ull << 10)) {
		print_message("guest has 4 GiB or more: skipped\n");
		kt_skip();
	}
	klog = kt_klog_from_now();
	before = kt_present();
	err = kt_write_file(KT_SIM_CTL "/new_device", "4096");
	if (!err) /* tracked, so that teardown deletes it */
		kt_track(KT_SIMDEV)->idx =
			(unsigned int)__builtin_ctzll(kt_present() & ~before);
	assert_int_equal(err, -ENOMEM);
	assert_true(kt_present() == before);
	if (klog_bad(klog, line, sizeof(line)))
		fail_msg("new_device 4096 left in the kernel log: %s", line);
	/* And a device that fits is still added. */
	kt_sim_add(4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KU_TEST(test_a_failed_from_device_xfer_still_dirties_the_pages),
		KU_TEST(test_a_failed_io_uring_from_device_xfer_still_dirties_the_pages),
		KH_TEST(test_fw_done_with_erestartsys_completes_the_uring_launch_with_eio),
		KH_TEST(test_fw_done_with_eiocbqueued_completes_the_uring_launch_with_eio),
		KH_TEST(test_fw_done_with_a_positive_status_is_einval_and_keeps_the_uring_launch),
		KU_TEST(test_a_read_only_file_maps_a_bo_read_only),
		KU_TEST(test_bo_create_with_an_output_field_set_is_einval),
		KU_TEST(test_bo_info_with_an_output_field_set_is_einval),
		KU_TEST(test_new_device_of_4096_mb_on_a_small_guest_fails_cleanly),
	};

	return KT_RUN(tests);
}
