// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_shared_line.c - two transfers from a PCIe IPU into one cache
 * line of host memory at once.
 *
 * libsession splits a host array between replicas at any byte, so two
 * transfers the device writes may share a cache line, and both are mapped
 * for DMA while the first one runs (the second waits for the queue with
 * its pages mapped). The DMA API's debug code (CONFIG_DMA_API_DEBUG, the
 * debug kernel of the matrix) refuses such overlapping mappings with a
 * warning unless the driver does the CPU syncs itself, which it must do
 * (driver/ipu_pci_dma.c). Made deterministic with ipu-emu's hang_dma
 * fault: the first transfer stalls on the device; the second is mapped
 * and waits; a soft reset ends the first (-EIO) and the second lands its
 * bytes. The DMA API saw no error and holds no mapping afterwards; the
 * kernel log check sees no "DMA-API:" report.
 * Skipped without PCI IPUs or without ipu-emu's control port.
 */
#include "kemu.h"
#include "ksimd.h"

#define HALF 40u	/* two of them share a 64-byte line */

static void test_two_transfers_from_the_device_into_one_cache_line(void **state)
{
	uint8_t *shared, *src = kt_alloc(4096), want[HALF];
	struct kt_dma_api dma;
	pid_t first, second;
	int fd, st, i;
	uint32_t bo;

	(void)state;
	fd = ke_open_first();
	bo = kt_bo(fd, 4096, NULL);
	kt_fill(src, 4096, 9);
	assert_int_equal(kt_write_bo(fd, bo, 0, src, 4096), 0);
	memcpy(want, src, HALF);
	/* The children write into the same physical page as the parent. */
	shared = kt_mmap(4096, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(shared != MAP_FAILED);
	memset(shared, 0, 4096);
	dma = kt_dma_api_now();

	ke_fault(0, "hang_dma=1");
	first = kt_fork_opt(true);
	if (first == 0)
		_exit(-kt_read_bo(fd, bo, 0, shared, HALF));
	ks_wait_wchan(first, "ipu_pci_");
	second = kt_fork_opt(true);
	if (second == 0)
		_exit(-kt_read_bo(fd, bo, 0, shared + HALF, HALF));
	/* Mapped, and waiting for the queue the first one holds (the mutex
	 * wait is a scheduler function: wchan names its caller). */
	ks_wait_wchan(second, "ipu_pci_");

	assert_int_equal(kt_reset(fd), 0);
	/* The stalled one ends with the reset; the other one then runs. */
	st = kt_wait(first);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), EIO);
	kt_wait_ok(second);
	assert_memory_equal(shared + HALF, want, HALF);
	for (i = 0; i < KS_POLLS && !kt_dma_api_same(&dma); i++)
		ks_pause();
	assert_dma_api_as_before(&dma);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KS_TEST(test_two_transfers_from_the_device_into_one_cache_line),
	};

	kp_init();
	return KT_RUN(tests);
}
