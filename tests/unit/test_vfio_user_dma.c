// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_vfio_user_dma.c - the vfio-user server's DMA mapping table
 * (firmware/emu/vfio_user_dma.h) on its own: lookups across many
 * mappings, the table's limit, and unmaps racing device threads that are
 * copying (an unmap must wait for a copy in progress, and no copy may
 * touch memory an unmap released: under ASan or valgrind a use of it is
 * an error, plainly a SIGSEGV).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/vfio.h>

#include "../../firmware/emu/vfio_user_dma.h"
#include "guest_ram.h"

#define RW	(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)

static int memfd_filled(size_t size, uint8_t fill)
{
	int fd = guest_ram_fd("ram", size);
	uint8_t *p;

	assert_true(fd >= 0);
	p = mmap(NULL, size, PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	memset(p, fill, size);
	munmap(p, size);
	return fd;
}

static void test_many_mappings_found_by_address(void **state)
{
	struct vfu_dma *dma;
	uint8_t b;

	(void)state;
	assert_int_equal(vfu_dma_create(64, &dma), 0);
	/* Mapped out of order; each page filled with its index. */
	for (unsigned int k = 0; k < 64; k++) {
		unsigned int i = (k * 37) % 64;

		assert_int_equal(vfu_dma_map(dma, (uint64_t)i * 2 * 4096, 4096,
					     memfd_filled(4096, (uint8_t)i), 0,
					     RW), 0);
	}
	assert_int_equal(vfu_dma_count(dma), 64);
	for (unsigned int i = 0; i < 64; i++) {
		assert_int_equal(vfu_dma_read(dma, (uint64_t)i * 8192 + 100, &b,
					      1), 0);
		assert_int_equal(b, i);
		/* The odd pages are holes. */
		assert_int_equal(vfu_dma_read(dma, (uint64_t)i * 8192 + 4096,
					      &b, 1), -EFAULT);
	}
	/* Full table. */
	assert_int_equal(vfu_dma_map(dma, 1ull << 40, 4096, -1, 0, RW),
			 -ENOSPC);
	vfu_dma_destroy(dma);
}

/*
 * The table's share of vm.max_map_count: mmap()ed ranges past it are
 * refused (-EDQUOT) before they are made; ranges reached by messages
 * (no fd) take no VMA and are not counted; an unmap gives a slot back.
 */
static void test_the_mmap_share_is_kept(void **state)
{
	struct vfu_dma *dma;
	uint8_t b;

	(void)state;
	assert_int_equal(vfu_dma_create(64, &dma), 0);
	vfu_dma_set_mmap_limit(dma, 2);
	assert_int_equal(vfu_dma_map(dma, 0, 4096, memfd_filled(4096, 1), 0,
				     RW), 0);
	assert_int_equal(vfu_dma_map(dma, 8192, 4096, memfd_filled(4096, 2), 0,
				     RW), 0);
	assert_int_equal(vfu_dma_map(dma, 16384, 4096, memfd_filled(4096, 3),
				     0, RW), -EDQUOT);
	assert_int_equal(vfu_dma_map(dma, 1ull << 40, 4096, -1, 0, RW), 0);
	assert_int_equal(vfu_dma_count(dma), 3);
	assert_int_equal(vfu_dma_unmap(dma, 0, 4096), 0);
	assert_int_equal(vfu_dma_map(dma, 16384, 4096, memfd_filled(4096, 3),
				     0, RW), 0);
	assert_int_equal(vfu_dma_read(dma, 16384, &b, 1), 0);
	assert_int_equal(b, 3);
	/* All unmapped: the whole share again. */
	vfu_dma_unmap_all(dma);
	assert_int_equal(vfu_dma_map(dma, 0, 4096, memfd_filled(4096, 1), 0,
				     RW), 0);
	assert_int_equal(vfu_dma_map(dma, 8192, 4096, memfd_filled(4096, 2), 0,
				     RW), 0);
	vfu_dma_destroy(dma);
}

/* @text as the sysctl's file; each IPU's share of it. */
static unsigned int share_of(const char *text, unsigned int nipu)
{
	char path[] = "/tmp/test_vfio_user_dma.XXXXXX";
	int fd = mkstemp(path);
	unsigned int n;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	n = vfu_dma_mmap_share(path, nipu);
	unlink(path);
	return n;
}

static void test_each_ipu_gets_a_share_of_max_map_count(void **state)
{
	(void)state;
	assert_int_equal(share_of("65530\n", 1), 65530 - 1024 - 64);
	assert_int_equal(share_of("65530\n", 8), (65530 - 1024 - 8 * 64) / 8);
	/* Never more than the table holds, never none. */
	assert_int_equal(share_of("2147483647\n", 1), 65535);
	assert_int_equal(share_of("100\n", 4), 1);
	assert_int_equal(share_of("garbage", 1), 65530 - 1024 - 64);
	assert_int_equal(vfu_dma_mmap_share("/nonexistent/max_map_count", 2),
			 (65530 - 1024 - 2 * 64) / 2);
}

static void test_zero_length_copy_is_fine(void **state)
{
	struct vfu_dma *dma;

	(void)state;
	assert_int_equal(vfu_dma_create(1, &dma), 0);
	assert_int_equal(vfu_dma_read(dma, 0, NULL, 0), 0);
	vfu_dma_destroy(dma);
}

struct racer {
	struct vfu_dma *dma;
	atomic_bool stop;
	atomic_ulong ok, faults, torn, other;
};

/*
 * Copies out of the range the main thread maps and unmaps. Each thread has
 * its own buffer (a shared one would mix two threads' copies), and counts
 * what it saw: cmocka's assertions may only fail on the main thread.
 */
static void *copier(void *arg)
{
	struct racer *r = arg;
	uint8_t buf[64 * 1024];

	while (!atomic_load(&r->stop)) {
		int ret = vfu_dma_read(r->dma, 0x100000, buf, sizeof(buf));

		if (!ret && buf[0] == buf[sizeof(buf) - 1])
			atomic_fetch_add(&r->ok, 1);
		else if (!ret) /* a copy that spanned two mappings */
			atomic_fetch_add(&r->torn, 1);
		else if (ret == -EFAULT)
			atomic_fetch_add(&r->faults, 1);
		else
			atomic_fetch_add(&r->other, 1);
	}
	return NULL;
}

static void test_unmap_races_copies(void **state)
{
	struct racer r = { 0 };
	pthread_t t[2];

	(void)state;
	assert_int_equal(vfu_dma_create(4, &r.dma), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, copier, &r), 0);
	/* Map, let copies run, unmap (munmap!), map other memory: a copy
	 * that outlived its mapping would read freed memory. */
	for (unsigned int n = 0; n < 300 || !atomic_load(&r.ok); n++) {
		int fd = memfd_filled(64 * 1024, (uint8_t)n);

		assert_int_equal(vfu_dma_map(r.dma, 0x100000, 64 * 1024, fd, 0,
					     RW), 0);
		sched_yield();
		assert_int_equal(vfu_dma_unmap(r.dma, 0x100000, 64 * 1024), 0);
	}
	atomic_store(&r.stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_true(atomic_load(&r.ok) > 0);
	assert_int_equal(atomic_load(&r.torn), 0);
	assert_int_equal(atomic_load(&r.other), 0);
	vfu_dma_destroy(r.dma);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_mappings_found_by_address),
		cmocka_unit_test(test_zero_length_copy_is_fine),
		cmocka_unit_test(test_the_mmap_share_is_kept),
		cmocka_unit_test(test_each_ipu_gets_a_share_of_max_map_count),
		cmocka_unit_test(test_unmap_races_copies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
