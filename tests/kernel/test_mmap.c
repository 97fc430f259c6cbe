// SPDX-License-Identifier: GPL-2.0
/*
 * test_mmap.c - mmap() of buffer objects: a shared view of the same bytes
 * that XFER moves, only MAP_SHARED, only inside a buffer of this file, and
 * alive after BO_DESTROY and close().
 */
#include "ktest.h"

struct fixture {
	int fd;
	struct ipu_bo_create bo;
	size_t size;
};

static struct fixture setup(unsigned int granules)
{
	struct fixture f;

	f.fd = kt_open_attached(0);
	f.size = granules * kt_granule(f.fd);
	kt_bo(f.fd, f.size, &f.bo);
	return f;
}

static uint8_t *map_bo(const struct fixture *f)
{
	uint8_t *p = kt_mmap(f->size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
			     (off_t)f->bo.mmap_offset);

	if (p == MAP_FAILED)
		fail_msg("mmap of a %zu-byte buffer at offset %#llx: %s", f->size,
			 (unsigned long long)f->bo.mmap_offset, strerror(errno));
	return p;
}

/* Sharing with XFER -------------------------------------------------------- */

static void test_mmap_of_new_bo_reads_zero(void **state)
{
	struct fixture f = setup(4);
	uint8_t *p = map_bo(&f);

	(void)state;
	assert_zeroed(p, f.size);
}

static void test_mmap_sees_what_xfer_wrote(void **state)
{
	struct fixture f = setup(4);
	uint8_t *src = kt_alloc(f.size);
	uint8_t *p = map_bo(&f);

	(void)state;
	kt_fill(src, f.size, 1);
	assert_int_equal(kt_write_bo(f.fd, f.bo.handle, 0, src, f.size), 0);
	assert_pattern(p, f.size, 1);
}

static void test_xfer_sees_what_mmap_wrote(void **state)
{
	struct fixture f = setup(4);
	uint8_t *dst = kt_alloc(f.size);
	uint8_t *p = map_bo(&f);

	(void)state;
	kt_fill(p, f.size, 2);
	assert_int_equal(kt_read_bo(f.fd, f.bo.handle, 0, dst, f.size), 0);
	assert_pattern(dst, f.size, 2);
}

static void test_mapping_made_before_xfer_sees_later_xfers(void **state)
{
	struct fixture f = setup(2);
	uint8_t *p = map_bo(&f);
	uint8_t buf[100];

	(void)state;
	assert_int_equal(p[5000], 0); /* fault the page in first */
	kt_fill(buf, sizeof(buf), 3);
	assert_int_equal(kt_write_bo(f.fd, f.bo.handle, 4990, buf, sizeof(buf)), 0);
	assert_pattern(p + 4990, sizeof(buf), 3);
}

static void test_mmap_at_an_offset_inside_the_bo_maps_that_part(void **state)
{
	struct fixture f = setup(4);
	size_t page = kt_page_size();
	uint8_t *src = kt_alloc(f.size), *p;

	(void)state;
	kt_fill(src, f.size, 4);
	assert_int_equal(kt_write_bo(f.fd, f.bo.handle, 0, src, f.size), 0);
	p = kt_mmap(page, PROT_READ, MAP_SHARED, f.fd,
		    (off_t)(f.bo.mmap_offset + 2 * page));
	assert_true(p != MAP_FAILED);
	assert_int_equal(memcmp(p, src + 2 * page, page), 0);
}

static void test_two_mappings_of_one_bo_share_bytes(void **state)
{
	struct fixture f = setup(2);
	uint8_t *a = map_bo(&f), *b = map_bo(&f);

	(void)state;
	assert_true(a != b);
	kt_fill(a, f.size, 5);
	assert_pattern(b, f.size, 5);
}

static void test_read_only_shared_mapping_works(void **state)
{
	struct fixture f = setup(1);
	uint8_t buf[64], *p;

	(void)state;
	kt_fill(buf, sizeof(buf), 6);
	assert_int_equal(kt_write_bo(f.fd, f.bo.handle, 0, buf, sizeof(buf)), 0);
	p = kt_mmap(f.size, PROT_READ, MAP_SHARED, f.fd, (off_t)f.bo.mmap_offset);
	assert_true(p != MAP_FAILED);
	assert_pattern(p, sizeof(buf), 6);
}

static void test_mappings_of_two_bos_are_independent(void **state)
{
	struct fixture f = setup(1);
	struct fixture g = f;
	uint8_t *a, *b;

	(void)state;
	kt_bo(f.fd, f.size, &g.bo);
	a = map_bo(&f);
	b = map_bo(&g);
	kt_fill(a, f.size, 7);
	assert_zeroed(b, g.size);
}

/* Errors ------------------------------------------------------------------ */

static void test_mmap_private_is_einval(void **state)
{
	struct fixture f = setup(1);

	(void)state;
	assert_int_equal(kt_mmap_err(f.size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
				     f.fd, (off_t)f.bo.mmap_offset), -EINVAL);
	assert_int_equal(kt_mmap_err(f.size, PROT_READ, MAP_PRIVATE, f.fd,
				     (off_t)f.bo.mmap_offset), -EINVAL);
}

static void test_mmap_longer_than_the_bo_is_einval(void **state)
{
	struct fixture f = setup(2);

	(void)state;
	assert_int_equal(kt_mmap_err(f.size + kt_page_size(), PROT_READ,
				     MAP_SHARED, f.fd, (off_t)f.bo.mmap_offset),
			 -EINVAL);
}

static void test_mmap_straddling_the_end_of_the_bo_is_einval(void **state)
{
	struct fixture f = setup(2);
	size_t page = kt_page_size();

	(void)state;
	assert_int_equal(kt_mmap_err(f.size, PROT_READ, MAP_SHARED, f.fd,
				     (off_t)(f.bo.mmap_offset + page)), -EINVAL);
}

static void test_mmap_past_the_end_of_the_bo_is_einval(void **state)
{
	struct fixture f = setup(2);

	(void)state;
	assert_int_equal(kt_mmap_err(kt_page_size(), PROT_READ, MAP_SHARED, f.fd,
				     (off_t)(f.bo.mmap_offset + f.size)), -EINVAL);
}

static void test_mmap_of_an_unknown_offset_is_einval(void **state)
{
	struct fixture f = setup(1);
	uint64_t far = f.bo.mmap_offset + f.size + (1ull << 30);

	(void)state;
	assert_int_equal(kt_mmap_err(kt_page_size(), PROT_READ, MAP_SHARED, f.fd,
				     (off_t)far), -EINVAL);
}

static void test_mmap_of_a_destroyed_bo_is_einval(void **state)
{
	struct fixture f = setup(1);

	(void)state;
	assert_int_equal(kt_bo_destroy(f.fd, f.bo.handle), 0);
	assert_int_equal(kt_mmap_err(f.size, PROT_READ, MAP_SHARED, f.fd,
				     (off_t)f.bo.mmap_offset), -EINVAL);
}

static void test_mmap_of_another_files_bo_is_einval(void **state)
{
	struct fixture f = setup(1);
	int other = kt_open(0);

	(void)state;
	/* the other file holds no buffer: the offset names nothing there */
	assert_int_equal(kt_mmap_err(f.size, PROT_READ, MAP_SHARED, other,
				     (off_t)f.bo.mmap_offset), -EINVAL);
}

/* Lifetime ---------------------------------------------------------------- */

static void test_mapping_outlives_bo_destroy(void **state)
{
	struct fixture f = setup(2);
	uint8_t *p = map_bo(&f);

	(void)state;
	kt_fill(p, f.size, 8);
	assert_int_equal(kt_bo_destroy(f.fd, f.bo.handle), 0);
	assert_pattern(p, f.size, 8);
	kt_fill(p, f.size, 9);
	assert_pattern(p, f.size, 9);
	/* the memory is released with the last mapping */
	assert_int_equal(kt_munmap(p, f.size), 0);
	assert_int_equal(kt_info(f.fd).memory_used, 0);
}

static void test_mapping_outlives_close(void **state)
{
	struct fixture f = setup(2);
	int observer = kt_open(0);
	uint8_t *p = map_bo(&f);

	(void)state;
	kt_fill(p, f.size, 10);
	assert_int_equal(kt_close(f.fd), 0);
	assert_pattern(p, f.size, 10);
	assert_int_equal(kt_munmap(p, f.size), 0);
	assert_int_equal(kt_info(observer).memory_used, 0);
	assert_int_equal(kt_info(observer).owner_pid, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_mmap_of_new_bo_reads_zero),
		KT_TEST(test_mmap_sees_what_xfer_wrote),
		KT_TEST(test_xfer_sees_what_mmap_wrote),
		KT_TEST(test_mapping_made_before_xfer_sees_later_xfers),
		KT_TEST(test_mmap_at_an_offset_inside_the_bo_maps_that_part),
		KT_TEST(test_two_mappings_of_one_bo_share_bytes),
		KT_TEST(test_read_only_shared_mapping_works),
		KT_TEST(test_mappings_of_two_bos_are_independent),
		KT_TEST(test_mmap_private_is_einval),
		KT_TEST(test_mmap_longer_than_the_bo_is_einval),
		KT_TEST(test_mmap_straddling_the_end_of_the_bo_is_einval),
		KT_TEST(test_mmap_past_the_end_of_the_bo_is_einval),
		KT_TEST(test_mmap_of_an_unknown_offset_is_einval),
		KT_TEST(test_mmap_of_a_destroyed_bo_is_einval),
		KT_TEST(test_mmap_of_another_files_bo_is_einval),
		KT_TEST(test_mapping_outlives_bo_destroy),
		KT_TEST(test_mapping_outlives_close),
	};

	return KT_RUN(tests);
}
