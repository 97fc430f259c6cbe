// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_exe_file.c - the executable file format: save and load round-trip
 * bit-exactly, files on disk, and the reader's container checks (header,
 * descriptors, blobs, CRCs, tables, strings), one test per check. Random
 * corruption is test_exe_corrupt.c's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "exe_samples.h"
#include "ipu/exe.h"

struct fx {
	struct ipu_exe *exe;
	uint8_t *buf;
	size_t len;
	char msg[512];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f || exe_sample(SAMPLE_MLP, &f->exe, f->msg, sizeof(f->msg)) ||
	    ipu_exe_save(f->exe, (void **)&f->buf, &f->len, f->msg,
			 sizeof(f->msg))) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ipu_exe_free(f->exe);
	free(f->buf);
	free(f);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Round trips                                                              */
/* ---------------------------------------------------------------------- */

static void assert_tensor_equal(const struct ipu_exe_tensor *a,
				const struct ipu_exe_tensor *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->dtype, b->dtype);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->ndim, b->ndim);
	assert_memory_equal(a->shape, b->shape, sizeof(a->shape));
	assert_int_equal(a->nelems, b->nelems);
	assert_int_equal(a->offset, b->offset);
	assert_int_equal(a->nbytes, b->nbytes);
	assert_int_equal(a->group_size, b->group_size);
	assert_int_equal(a->group_stride, b->group_stride);
	assert_int_equal(a->retrieval, b->retrieval);
	assert_int_equal(a->data_offset, b->data_offset);
	assert_int_equal(a->data_size, b->data_size);
	if (a->mmap_path || b->mmap_path)
		assert_string_equal(a->mmap_path, b->mmap_path);
}

static void assert_exe_equal(const struct ipu_exe *a, const struct ipu_exe *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->num_host_transfers, b->num_host_transfers);
	assert_int_equal(a->replication_factor, b->replication_factor);
	assert_int_equal(a->instance_replication_factor,
			 b->instance_replication_factor);
	assert_int_equal(a->ipus_per_replica, b->ipus_per_replica);
	assert_int_equal(a->arena_size, b->arena_size);
	assert_int_equal(a->num_tensors, b->num_tensors);
	for (uint32_t i = 0; i < a->num_tensors; i++)
		assert_tensor_equal(&a->tensors[i], &b->tensors[i]);
	assert_int_equal(a->num_streams, b->num_streams);
	for (uint32_t i = 0; i < a->num_streams; i++) {
		assert_string_equal(a->streams[i].name, b->streams[i].name);
		assert_memory_equal((const char *)&a->streams[i] + sizeof(char *),
				    (const char *)&b->streams[i] + sizeof(char *),
				    sizeof(a->streams[i]) - sizeof(char *));
	}
	assert_int_equal(a->num_instrs, b->num_instrs);
	assert_memory_equal(a->instrs, b->instrs,
			    a->num_instrs * sizeof(*a->instrs));
	assert_int_equal(a->num_operands, b->num_operands);
	assert_memory_equal(a->operands, b->operands,
			    a->num_operands * sizeof(*a->operands));
	assert_int_equal(a->num_params, b->num_params);
	assert_memory_equal(a->params, b->params,
			    a->num_params * sizeof(*a->params));
	assert_int_equal(a->data_size, b->data_size);
	assert_memory_equal(a->data, b->data, a->data_size);
}

static void test_every_sample_round_trips_bit_exactly(void **state)
{
	(void)state;
	for (int s = 0; s < SAMPLE_COUNT_; s++) {
		struct ipu_exe *e, *l;
		void *buf;
		size_t len;
		char msg[512];

		assert_int_equal(exe_sample(s, &e, msg, sizeof(msg)), 0);
		assert_int_equal(ipu_exe_save(e, &buf, &len, msg, sizeof(msg)), 0);
		assert_int_equal(ipu_exe_load(buf, len, &l, msg, sizeof(msg)), 0);
		assert_exe_equal(e, l);
		if (exe_resave_matches(l, msg, sizeof(msg)))
			fail_msg("%s", msg);
		free(buf);
		ipu_exe_free(l);
		ipu_exe_free(e);
	}
}

static void test_caller_assembled_exe_round_trips(void **state)
{
	struct fx *f = *state;
	struct ipu_exe copy = *f->exe, *l;
	void *buf;
	size_t len;

	/* A struct the caller filled itself: alloc_ NULL, not ours. */
	copy.alloc_ = NULL;
	assert_int_equal(ipu_exe_save(&copy, &buf, &len, f->msg,
				      sizeof(f->msg)), 0);
	assert_int_equal(len, f->len);
	assert_memory_equal(buf, f->buf, len);
	assert_int_equal(ipu_exe_load(buf, len, &l, f->msg, sizeof(f->msg)), 0);
	assert_exe_equal(&copy, l);
	ipu_exe_free(&copy);	/* leaves it be */
	ipu_exe_free(l);
	free(buf);
}

static void test_loaded_buffer_is_not_referenced(void **state)
{
	struct fx *f = *state;
	struct ipu_exe *l;
	uint8_t *tmp = malloc(f->len);

	memcpy(tmp, f->buf, f->len);
	assert_int_equal(ipu_exe_load(tmp, f->len, &l, f->msg, sizeof(f->msg)), 0);
	memset(tmp, 0xa5, f->len);
	free(tmp);
	assert_exe_equal(f->exe, l);
	ipu_exe_free(l);
}

static void test_save_rejects_invalid_exe(void **state)
{
	struct fx *f = *state;
	struct ipu_exe copy = *f->exe;
	void *buf = (void *)1;
	size_t len = 1;

	copy.num_host_transfers = 0;
	assert_int_equal(ipu_exe_save(&copy, &buf, &len, f->msg,
				      sizeof(f->msg)), -EINVAL);
	assert_null(buf);
	assert_int_equal(len, 0);
	assert_non_null(strstr(f->msg, "num_host_transfers is 0"));
}

static void test_null_arguments(void **state)
{
	struct fx *f = *state;
	struct ipu_exe *l = (void *)1;
	void *buf;
	size_t len;

	assert_int_equal(ipu_exe_load(f->buf, f->len, NULL, NULL, 0), -EINVAL);
	assert_int_equal(ipu_exe_load(NULL, 10, &l, NULL, 0), -EINVAL);
	assert_int_equal(ipu_exe_load(NULL, 0, &l, f->msg, sizeof(f->msg)),
			 -EINVAL);
	assert_null(l);
	assert_int_equal(ipu_exe_save(f->exe, NULL, &len, NULL, 0), -EINVAL);
	assert_int_equal(ipu_exe_save(f->exe, &buf, NULL, NULL, 0), -EINVAL);
	assert_int_equal(ipu_exe_save(NULL, &buf, &len, NULL, 0), -EINVAL);
	ipu_exe_free(NULL);
}

static void test_find_by_name(void **state)
{
	struct fx *f = *state;
	int w = ipu_exe_find_tensor(f->exe, "w");

	assert_true(w >= 0);
	assert_string_equal(f->exe->tensors[w].name, "w");
	assert_int_equal(f->exe->tensors[w].kind, IPU_EXE_TENSOR_VARIABLE);
	assert_int_equal(ipu_exe_find_tensor(f->exe, "nope"), -ENOENT);
	assert_int_equal(ipu_exe_find_tensor(NULL, "w"), -ENOENT);
	assert_int_equal(ipu_exe_find_stream(f->exe, "probs"), 1);
	assert_int_equal(ipu_exe_find_stream(f->exe, "x"), 0);
	assert_int_equal(ipu_exe_find_stream(f->exe, "w"), -ENOENT);
	assert_int_equal(ipu_exe_find_stream(f->exe, NULL), -ENOENT);
}

static void test_op_names(void **state)
{
	(void)state;
	assert_string_equal(ipu_exe_op_name(IPU_OP_ADD), "add");
	assert_string_equal(ipu_exe_op_name(IPU_OP_LOG_SOFTMAX), "log_softmax");
	assert_string_equal(ipu_exe_op_name(IPU_OP_SCALED_ADD_INPLACE),
			    "scaled_add_inplace");
	assert_string_equal(ipu_exe_op_name(IPU_OP_LOOP), "loop");
	assert_string_equal(ipu_exe_op_name(IPU_OP_INVALID), "invalid");
	assert_string_equal(ipu_exe_op_name(5), "invalid");
	assert_string_equal(ipu_exe_op_name(IPU_OP_COUNT_), "invalid");
	assert_string_equal(ipu_exe_op_name(UINT32_MAX), "invalid");
}

/* ---------------------------------------------------------------------- */
/* Files                                                                    */
/* ---------------------------------------------------------------------- */

static void test_write_then_read_file(void **state)
{
	struct fx *f = *state;
	char dir[] = "/tmp/ipu-exe-XXXXXX", path[64];
	struct ipu_exe *l;
	struct stat st;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.ipux", dir);
	assert_int_equal(ipu_exe_write_file(f->exe, path, f->msg,
					    sizeof(f->msg)), 0);
	/* Overwriting replaces the file whole. */
	assert_int_equal(ipu_exe_write_file(f->exe, path, f->msg,
					    sizeof(f->msg)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, f->len);
	assert_int_equal(ipu_exe_read_file(path, &l, f->msg, sizeof(f->msg)), 0);
	assert_exe_equal(f->exe, l);
	ipu_exe_free(l);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);	/* no temporary left behind */
}

static void test_read_missing_file(void **state)
{
	struct fx *f = *state;
	struct ipu_exe *l = (void *)1;

	assert_int_equal(ipu_exe_read_file("/nonexistent/p.ipux", &l, f->msg,
					   sizeof(f->msg)), -ENOENT);
	assert_null(l);
	assert_non_null(strstr(f->msg, "cannot open '/nonexistent/p.ipux'"));
}

static void test_read_directory(void **state)
{
	struct fx *f = *state;
	struct ipu_exe *l;

	assert_int_equal(ipu_exe_read_file("/tmp", &l, f->msg,
					   sizeof(f->msg)), -EINVAL);
	assert_null(l);
}

static void test_read_corrupt_file(void **state)
{
	struct fx *f = *state;
	char path[] = "/tmp/ipu-exe-XXXXXX";
	struct ipu_exe *l;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, f->buf, 40), 40);
	close(fd);
	assert_int_equal(ipu_exe_read_file(path, &l, f->msg, sizeof(f->msg)),
			 -EINVAL);
	assert_non_null(strstr(f->msg, "truncated"));
	unlink(path);
}

static void test_write_into_missing_directory(void **state)
{
	struct fx *f = *state;

	assert_int_equal(ipu_exe_write_file(f->exe, "/nonexistent/p.ipux",
					    f->msg, sizeof(f->msg)), -ENOENT);
	assert_int_equal(ipu_exe_write_file(f->exe, NULL, NULL, 0), -EINVAL);
	assert_int_equal(ipu_exe_read_file(NULL, NULL, NULL, 0), -EINVAL);
}

/* ---------------------------------------------------------------------- */
/* Container checks                                                         */
/* ---------------------------------------------------------------------- */

#define HDR	sizeof(struct ipu_exe_file_header)
#define DESC	sizeof(struct ipu_exe_blob_desc)

static struct ipu_exe_file_header *hdr(struct fx *f)
{
	return (struct ipu_exe_file_header *)f->buf;
}

/* Descriptor of blob type @type (the writer puts type t at t - 1). */
static struct ipu_exe_blob_desc *desc(struct fx *f, uint32_t type)
{
	return (struct ipu_exe_blob_desc *)(f->buf + HDR + (type - 1) * DESC);
}

static uint8_t *blob(struct fx *f, uint32_t type)
{
	return f->buf + desc(f, type)->offset;
}

static void expect_load_fails(struct fx *f, bool refresh, const char *what)
{
	struct ipu_exe *l = (void *)1;
	int ret;

	if (refresh)
		exe_refresh_crcs(f->buf, f->len);
	ret = ipu_exe_load(f->buf, f->len, &l, f->msg, sizeof(f->msg));
	if (ret != -EINVAL || !strstr(f->msg, what))
		fail_msg("load returned %d, message \"%s\", expected \"%s\"",
			 ret, f->msg, what);
	assert_null(l);
}

static void test_truncated_header(void **state)
{
	struct fx *f = *state;

	f->len = HDR - 1;
	expect_load_fails(f, false, "truncated: 31 bytes, the header alone is 32");
}

static void test_bad_magic(void **state)
{
	struct fx *f = *state;

	f->buf[0] ^= 1;
	expect_load_fails(f, false, "bad magic 0x58555048");
}

static void test_unknown_version(void **state)
{
	struct fx *f = *state;

	hdr(f)->version = 2;
	expect_load_fails(f, false, "version 2, this reader knows version 1");
}

static void test_header_size_wrong(void **state)
{
	struct fx *f = *state;

	hdr(f)->header_size = 40;
	expect_load_fails(f, false, "header size 40");
}

static void test_header_reserved_set(void **state)
{
	struct fx *f = *state;

	hdr(f)->reserved = 1;
	expect_load_fails(f, false, "reserved header field is 0x1");
}

static void test_file_size_says_more(void **state)
{
	struct fx *f = *state;

	f->len -= 8;
	expect_load_fails(f, false, "truncated: the header says");
}

static void test_trailing_bytes(void **state)
{
	struct fx *f = *state;
	uint8_t *b = realloc(f->buf, f->len + 8);

	assert_non_null(b);
	f->buf = b;
	memset(b + f->len, 0, 8);
	f->len += 8;
	expect_load_fails(f, false, "trailing bytes");
}

static void test_too_many_blobs(void **state)
{
	struct fx *f = *state;

	hdr(f)->num_blobs = (uint32_t)(f->len / DESC);
	expect_load_fails(f, false, "blob descriptors do not fit");
}

static void test_descriptor_crc_mismatch(void **state)
{
	struct fx *f = *state;

	desc(f, IPU_EXE_BLOB_DATA)->size--;
	expect_load_fails(f, false, "descriptor CRC mismatch");
}

static void test_blob_misaligned(void **state)
{
	struct fx *f = *state;

	desc(f, IPU_EXE_BLOB_DATA)->offset += 4;
	desc(f, IPU_EXE_BLOB_DATA)->size -= 4;
	expect_load_fails(f, true, "is not 8-byte aligned");
}

static void test_blob_past_end(void **state)
{
	struct fx *f = *state;

	desc(f, IPU_EXE_BLOB_DATA)->size += 8;
	expect_load_fails(f, true, "lie outside the payload area");
}

static void test_blob_size_overflows(void **state)
{
	struct fx *f = *state;

	desc(f, IPU_EXE_BLOB_DATA)->size = UINT64_MAX;
	expect_load_fails(f, true, "lie outside the payload area");
}

static void test_blob_over_descriptors(void **state)
{
	struct fx *f = *state;

	desc(f, IPU_EXE_BLOB_META)->offset = HDR;
	expect_load_fails(f, true, "lie outside the payload area");
}

static void test_blob_crc_mismatch(void **state)
{
	struct fx *f = *state;

	blob(f, IPU_EXE_BLOB_DATA)[0] ^= 0x40;
	expect_load_fails(f, false, "blob 7 (DATA): CRC mismatch");
}

static void test_duplicate_blob(void **state)
{
	struct fx *f = *state;

	desc(f, IPU_EXE_BLOB_DATA)->type = IPU_EXE_BLOB_PARAMS;
	expect_load_fails(f, true, "blob 7: a second PARAMS blob");
}

static void test_missing_blob(void **state)
{
	struct fx *f = *state;

	/* An unknown type is skipped, so DATA is then missing. */
	desc(f, IPU_EXE_BLOB_DATA)->type = 99;
	expect_load_fails(f, true, "no DATA blob");
}

static void test_blobs_overlap(void **state)
{
	struct fx *f = *state;

	desc(f, IPU_EXE_BLOB_PARAMS)->size += 8;
	expect_load_fails(f, true, "blobs 6 and 7 overlap");
}

static void test_unknown_blob_is_skipped(void **state)
{
	struct fx *f = *state;
	uint64_t at = (f->len + DESC + 7) & ~7ull;
	size_t n = at + 16;
	uint8_t *b = calloc(1, n);
	struct ipu_exe_file_header h;
	struct ipu_exe_blob_desc d = { .type = 200, .offset = at, .size = 16 };
	struct ipu_exe *l;

	/* Insert a ninth descriptor and shift every payload past it. */
	memcpy(&h, f->buf, HDR);
	memcpy(b + HDR, f->buf + HDR, 8 * DESC);
	memcpy(b + HDR + 9 * DESC, f->buf + HDR + 8 * DESC,
	       f->len - HDR - 8 * DESC);
	for (int i = 0; i < 8; i++) {
		struct ipu_exe_blob_desc *p =
			(struct ipu_exe_blob_desc *)(b + HDR + i * DESC);

		p->offset += DESC;
	}
	memcpy(b + HDR + 8 * DESC, &d, DESC);
	memset(b + at, 0x5a, 16);
	h.num_blobs = 9;
	h.file_size = n;
	memcpy(b, &h, HDR);
	exe_refresh_crcs(b, n);
	assert_int_equal(ipu_exe_load(b, n, &l, f->msg, sizeof(f->msg)), 0);
	assert_exe_equal(f->exe, l);
	ipu_exe_free(l);
	free(b);
}

static void test_meta_size_wrong(void **state)
{
	struct fx *f = *state;

	desc(f, IPU_EXE_BLOB_META)->size -= 8;
	expect_load_fails(f, true, "META blob of 24 bytes");
}

static void test_meta_reserved_set(void **state)
{
	struct fx *f = *state;

	((struct ipu_exe_file_meta *)blob(f, IPU_EXE_BLOB_META))->reserved = 2;
	expect_load_fails(f, true, "META: reserved field is 0x2");
}

static void test_strtab_without_leading_nul(void **state)
{
	struct fx *f = *state;

	blob(f, IPU_EXE_BLOB_STRTAB)[0] = 'a';
	expect_load_fails(f, true, "STRTAB must start and end with a NUL");
}

static void test_strtab_without_trailing_nul(void **state)
{
	struct fx *f = *state;

	blob(f, IPU_EXE_BLOB_STRTAB)[desc(f, IPU_EXE_BLOB_STRTAB)->size - 1] = 'a';
	expect_load_fails(f, true, "STRTAB must start and end with a NUL");
}

static void test_table_size_not_multiple(void **state)
{
	struct fx *f = *state;

	desc(f, IPU_EXE_BLOB_TENSORS)->size -= 8;
	expect_load_fails(f, true, "TENSORS blob of");
}

static void test_string_offset_past_table(void **state)
{
	struct fx *f = *state;
	struct ipu_exe_file_tensor *t =
		(struct ipu_exe_file_tensor *)blob(f, IPU_EXE_BLOB_TENSORS);

	t[1].name = (uint32_t)desc(f, IPU_EXE_BLOB_STRTAB)->size;
	expect_load_fails(f, true, "tensor 1: string offset");
}

static void test_tensor_reserved_set(void **state)
{
	struct fx *f = *state;
	struct ipu_exe_file_tensor *t =
		(struct ipu_exe_file_tensor *)blob(f, IPU_EXE_BLOB_TENSORS);

	t[0].reserved = 1;
	expect_load_fails(f, true, "tensor 0: reserved field is 0x1");
}

static void test_instr_reserved_set(void **state)
{
	struct fx *f = *state;
	struct ipu_exe_file_instr *in =
		(struct ipu_exe_file_instr *)blob(f, IPU_EXE_BLOB_INSTRS);

	in[2].reserved = 3;
	expect_load_fails(f, true, "instr 2: reserved field is 0x3");
}

static void test_load_validates(void **state)
{
	struct fx *f = *state;
	struct ipu_exe_file_meta *m =
		(struct ipu_exe_file_meta *)blob(f, IPU_EXE_BLOB_META);

	m->arena_size = 64;
	expect_load_fails(f, true, "passes arena size 64");
}

/* ---------------------------------------------------------------------- */
/* Non-constant-stride groupings (S20): the optional GROUPINGS blob         */
/* ---------------------------------------------------------------------- */

/*
 * Replace f->buf by the file of f->exe with its first ungrouped variable
 * given an assignment grouping (all replicas in group 0, still one group);
 * returns the variable's index and the copy of the exe in *@copy.
 */
static uint32_t save_assigned(struct fx *f, struct ipu_exe *copy,
			      struct ipu_exe_tensor **tensors, uint32_t **a)
{
	uint32_t v, rf = f->exe->replication_factor;

	*copy = *f->exe;
	copy->alloc_ = NULL;
	*tensors = malloc(copy->num_tensors * sizeof(**tensors));
	*a = calloc(rf, sizeof(**a));
	assert_non_null(*tensors);
	assert_non_null(*a);
	memcpy(*tensors, f->exe->tensors, copy->num_tensors * sizeof(**tensors));
	copy->tensors = *tensors;
	for (v = 0; v < copy->num_tensors; v++)
		if (copy->tensors[v].kind == IPU_EXE_TENSOR_VARIABLE &&
		    copy->tensors[v].group_size == rf && !copy->tensors[v].flags)
			break;
	assert_true(v < copy->num_tensors);
	copy->tensors[v].flags = IPU_EXE_TENSOR_GROUP_ASSIGNED;
	copy->tensors[v].group_stride = 0;
	copy->tensors[v].group_assignment = *a;
	free(f->buf);
	f->buf = NULL;
	assert_int_equal(ipu_exe_save(copy, (void **)&f->buf, &f->len, f->msg,
				      sizeof(f->msg)), 0);
	return v;
}

/* The flags word of tensor @v in the TENSORS blob. */
static uint8_t *tensor_flags(struct fx *f, uint32_t v)
{
	return blob(f, IPU_EXE_BLOB_TENSORS) +
	       v * sizeof(struct ipu_exe_file_tensor) +
	       offsetof(struct ipu_exe_file_tensor, flags);
}

static void test_assigned_grouping_round_trips(void **state)
{
	struct fx *f = *state;
	struct ipu_exe copy, *l;
	struct ipu_exe_tensor *t;
	uint32_t *a, v;

	v = save_assigned(f, &copy, &t, &a);
	assert_int_equal(hdr(f)->num_blobs, IPU_EXE_BLOB_GROUPINGS);
	assert_int_equal(desc(f, IPU_EXE_BLOB_GROUPINGS)->size,
			 4 * copy.replication_factor);
	assert_int_equal(ipu_exe_load(f->buf, f->len, &l, f->msg,
				      sizeof(f->msg)), 0);
	assert_exe_equal(&copy, l);
	assert_non_null(l->tensors[v].group_assignment);
	assert_memory_equal(l->tensors[v].group_assignment, a,
			    4 * copy.replication_factor);
	for (uint32_t i = 0; i < l->num_tensors; i++)
		if (i != v)
			assert_null(l->tensors[i].group_assignment);
	ipu_exe_free(l);
	free(t);
	free(a);
}

/* Without assigned groupings the file has the eight blobs it always had. */
static void test_no_groupings_blob_without_assignments(void **state)
{
	struct fx *f = *state;

	assert_int_equal(hdr(f)->num_blobs, IPU_EXE_BLOB_DATA);
}

static void test_assigned_flag_without_groupings_blob(void **state)
{
	struct fx *f = *state;
	struct ipu_exe copy;
	struct ipu_exe_tensor *t;
	uint32_t *a, v, flags = IPU_EXE_TENSOR_GROUP_ASSIGNED;

	/* The flag in the plain file: no GROUPINGS blob. */
	v = save_assigned(f, &copy, &t, &a);
	free(f->buf);
	assert_int_equal(ipu_exe_save(f->exe, (void **)&f->buf, &f->len,
				      f->msg, sizeof(f->msg)), 0);
	memcpy(tensor_flags(f, v), &flags, 4);
	expect_load_fails(f, true, "GROUP_ASSIGNED, but the file has no GROUPINGS blob");
	free(t);
	free(a);
}

static void test_groupings_blob_without_assigned_flag(void **state)
{
	struct fx *f = *state;
	struct ipu_exe copy;
	struct ipu_exe_tensor *t;
	uint32_t *a, v;

	v = save_assigned(f, &copy, &t, &a);
	memset(tensor_flags(f, v), 0, 4);
	expect_load_fails(f, true, "a GROUPINGS blob, but no tensor is GROUP_ASSIGNED");
	free(t);
	free(a);
}

static void test_groupings_blob_not_whole_entries(void **state)
{
	struct fx *f = *state;
	struct ipu_exe copy;
	struct ipu_exe_tensor *t;
	uint32_t *a;

	save_assigned(f, &copy, &t, &a);
	desc(f, IPU_EXE_BLOB_GROUPINGS)->size -= 1;
	expect_load_fails(f, true, "GROUPINGS blob of 3 bytes is not a table of 4-byte entries");
	free(t);
	free(a);
}

static void test_groupings_blob_too_short(void **state)
{
	struct fx *f = *state;
	struct ipu_exe copy;
	struct ipu_exe_tensor *t;
	uint32_t *a;

	save_assigned(f, &copy, &t, &a);
	desc(f, IPU_EXE_BLOB_GROUPINGS)->size -= 4;
	expect_load_fails(f, true, "GROUPINGS blob of 0 entries holds no 1 entries");
	free(t);
	free(a);
}

static void test_groupings_blob_group_out_of_range(void **state)
{
	struct fx *f = *state;
	struct ipu_exe copy;
	struct ipu_exe_tensor *t;
	uint32_t *a, bad = 5;

	save_assigned(f, &copy, &t, &a);
	memcpy(blob(f, IPU_EXE_BLOB_GROUPINGS), &bad, 4);
	expect_load_fails(f, true, "replica 0 assigned to group 5, but there are 1 groups");
	free(t);
	free(a);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_every_sample_round_trips_bit_exactly),
		T(test_caller_assembled_exe_round_trips),
		T(test_loaded_buffer_is_not_referenced),
		T(test_save_rejects_invalid_exe),
		T(test_null_arguments),
		T(test_find_by_name),
		T(test_op_names),
		T(test_write_then_read_file),
		T(test_read_missing_file),
		T(test_read_directory),
		T(test_read_corrupt_file),
		T(test_write_into_missing_directory),
		T(test_truncated_header),
		T(test_bad_magic),
		T(test_unknown_version),
		T(test_header_size_wrong),
		T(test_header_reserved_set),
		T(test_file_size_says_more),
		T(test_trailing_bytes),
		T(test_too_many_blobs),
		T(test_descriptor_crc_mismatch),
		T(test_blob_misaligned),
		T(test_blob_past_end),
		T(test_blob_size_overflows),
		T(test_blob_over_descriptors),
		T(test_blob_crc_mismatch),
		T(test_duplicate_blob),
		T(test_missing_blob),
		T(test_blobs_overlap),
		T(test_unknown_blob_is_skipped),
		T(test_meta_size_wrong),
		T(test_meta_reserved_set),
		T(test_strtab_without_leading_nul),
		T(test_strtab_without_trailing_nul),
		T(test_table_size_not_multiple),
		T(test_string_offset_past_table),
		T(test_tensor_reserved_set),
		T(test_instr_reserved_set),
		T(test_load_validates),
		T(test_assigned_grouping_round_trips),
		T(test_no_groupings_blob_without_assignments),
		T(test_assigned_flag_without_groupings_blob),
		T(test_groupings_blob_without_assigned_flag),
		T(test_groupings_blob_not_whole_entries),
		T(test_groupings_blob_too_short),
		T(test_groupings_blob_group_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
