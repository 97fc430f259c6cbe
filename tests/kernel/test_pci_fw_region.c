// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_fw_region.c - the firmware's region of device memory
 * (docs/hardware.md 8.3: FW_REGION_ADDR/SIZE) is the driver's and the
 * firmware's, never a user's:
 *  - no buffer covers a byte of it, even with the whole pool allocated;
 *  - a buffer mapped and filled by its user keeps its bytes across the
 *    driver's own FLR (RESET with the soft reset ignored), and the
 *    firmware boots again from the image the driver read at probe: the
 *    next launch runs.
 * The region's registers are read through resource0 with the driver
 * unbound (a bound driver's claim refuses the mapping). Skipped without
 * PCI IPUs or without ipu-emu's control port.
 */
#include <fcntl.h>

#include "kreset.h"

/*
 * A buffer's device_addr is its device memory offset plus this base
 * (driver/ipu_drv.h IPU_DEV_ADDR_BASE: device addresses start above any
 * offset, so that a zero address is never a buffer's).
 */
#define DEV_ADDR_BASE 0x100000000ULL
/* The pool's buffers, at most: each a slice of memory_total. */
#define MAX_BOS 64

static uint64_t fw_addr, fw_size;

/* FW_REGION_ADDR and FW_REGION_SIZE of @bdf, unbound meanwhile. */
static void read_region(const char *bdf)
{
	volatile uint64_t *regs;
	char path[PATH_MAX];
	int fd;

	kp_unbind(bdf);
	fn_path(path, sizeof(path), bdf, "resource0");
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	regs = mmap(NULL, IPU_BAR_REGS_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (regs == MAP_FAILED)
		fail_msg("mmap %s: %s", path, strerror(errno));
	fw_addr = regs[IPU_REG_FW_REGION_ADDR / 8];
	fw_size = regs[IPU_REG_FW_REGION_SIZE / 8];
	munmap((void *)regs, IPU_BAR_REGS_SIZE);
	close(fd);
	kp_bind(bdf);
	assert_true(fw_size >= IPU_FW_MAX_SIZE);
}

static void test_no_buffer_covers_the_firmware_region(void **state)
{
	struct ipu_bo_create bo;
	uint64_t total, left, chunk, off;
	unsigned int i;
	int fd;

	(void)state;
	require_ipus();
	read_region(ipus[0]);
	fd = ke_open_first();
	total = kt_info(fd).memory_total;
	chunk = total / 8;
	left = total;
	for (i = 0; i < MAX_BOS && left; i++) {
		if (chunk > left)
			chunk = left;
		assert_int_equal(kt_bo_create(fd, chunk, &bo), 0);
		off = bo.device_addr - DEV_ADDR_BASE;
		if (off < fw_addr + fw_size && fw_addr < off + bo.size)
			fail_msg("buffer at device offset %#" PRIx64 " (%#" PRIx64
				 " bytes) covers the firmware region %#" PRIx64
				 "+%#" PRIx64, off, (uint64_t)bo.size, fw_addr,
				 fw_size);
		left -= bo.size;
	}
	assert_int_equal(left, 0);
	assert_int_equal(kt_info(fd).memory_used, total);
}

static void test_a_mapped_buffer_keeps_its_bytes_across_the_driver_s_flr(void **state)
{
	const size_t len = 4u << 20;
	struct ipu_reset r = { 0 };
	struct ipu_bo_create bo;
	int fd = ke_open_first();
	uint64_t before;
	uint8_t *map;

	(void)state;
	map = kr_mapped_bo(fd, len, 55, &bo);
	before = kt_info(fd).reset_count;
	ke_fault(0, "ignore_reset=1");
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_RESET, &r), 0);
	assert_int_equal(kt_info(fd).reset_count, before + 1);
	assert_int_equal(kt_check(map, len, 55), -1);
	/* Rewritten after the boot: nothing of it is the firmware's. */
	kt_fill(map, len, 56);
	assert_int_equal(kr_run(fd), 0);
	assert_int_equal(kt_check(map, len, 56), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_no_buffer_covers_the_firmware_region),
		cmocka_unit_test_teardown(test_a_mapped_buffer_keeps_its_bytes_across_the_driver_s_flr,
					  kr_clear_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
