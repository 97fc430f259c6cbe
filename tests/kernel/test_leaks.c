// SPDX-License-Identifier: GPL-2.0
/*
 * test_leaks.c - a thousand runs leave nothing behind.
 *
 * Each run is a small program through libipu's io_uring queue on device
 * 0 (H2D, launch, D2H: pages pinned and unpinned by the kernel, a launch
 * served by ipu-simd, or by the device's command queue on a PCI IPU:
 * test_pci_leaks.c, KT_ON_PCI). Half of the runs go with the host buffers
 * registered with the queue (pinned once, IORING_URING_CMD_FIXED). When
 * everything is closed, the device's memory_used and the kernel's count
 * of pinned pages (/proc/vmstat nr_foll_pin_acquired minus
 * nr_foll_pin_released) are back where they started, and so are the DMA
 * API's live mappings, with no DMA-API error (where the kernel counts them:
 * CONFIG_DMA_API_DEBUG, the debug kernel; ktest.h's kt_dma_api_now()).
 */
#include "../../userspace/ipu/internal.h"
#include "kprog.h"
#include "ksimd.h"

#define RUNS 1000

static void test_a_thousand_runs_leave_memory_and_pins_as_they_were(void **state)
{
	struct ipu_queue_stats st0, st1;
	struct kt_dma_api dma;
	struct kp_prog *p;
	struct kp_setup s;
	float *x, *y, want[8];
	struct iovec iov[2];
	uint64_t used;
	int64_t pins;
	char msg[512], name[16];
	int i;

	(void)state;
	ks_require_simd();
	kt_hw(0, name, sizeof(name));
	used = kt_sysfs_u64(0, "memory_used");
	pins = kt_pinned_now();
	dma = kt_dma_api_now();
	p = kp_mlp(1);
	/* Whole pages of their own, as registering pins whole pages. */
	x = kt_alloc(kt_page_size());
	y = kt_alloc(kt_page_size());
	for (i = 0; i < 16; i++)
		x[i] = (float)(i % 5) - 2.0f;
	kp_open(&s, p, (const char *[]){ name });
	assert_int_equal(__ipu_queue_stats(s.q, &st0), 0);
	for (i = 0; i < RUNS; i++) {
		if (i == RUNS / 2) {
			iov[0] = (struct iovec){ x, kt_page_size() };
			iov[1] = (struct iovec){ y, kt_page_size() };
			assert_int_equal(ipu_queue_register_buffers(s.q, iov, 2), 0);
		}
		if (kp_run(&s, (void *[]){ x }, (void *[]){ y }, msg, sizeof(msg)))
			fail_msg("run %d: %s", i, msg);
		if (i == 0)
			memcpy(want, y, sizeof(want));
		else if (memcmp(want, y, sizeof(want)))
			fail_msg("run %d computed other bits than run 0", i);
	}
	assert_int_equal(__ipu_queue_stats(s.q, &st1), 0);
	assert_int_equal(st1.batches - st0.batches, RUNS);
	/* Both transfers of each run after the registration. */
	assert_int_equal(st1.fixed_xfers - st0.fixed_xfers, RUNS);
	assert_int_equal(ipu_queue_unregister_buffers(s.q), 0);
	kt_cleanup();
	kp_free(p);

	/* Files are released as their last command completes: poll. */
	for (i = 0; i < KS_POLLS && (kt_sysfs_u64(0, "memory_used") != used ||
				     kt_pinned_now() != pins ||
				     !kt_dma_api_same(&dma)); i++)
		ks_pause();
	assert_int_equal(kt_sysfs_u64(0, "memory_used"), used);
	assert_int_equal(kt_pinned_now(), pins);
	assert_dma_api_as_before(&dma);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_a_thousand_runs_leave_memory_and_pins_as_they_were),
	};

	return KT_RUN(tests);
}
