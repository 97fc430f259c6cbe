// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * exe_load.c - ipu_exe_load(): parse an executable file into one
 * allocation, then validate it.
 *
 * The file is hostile. The reader first checks the container (header,
 * descriptors, blob bounds, alignment, overlaps, CRCs, table sizes), then
 * converts the tables, resolving string offsets; everything about meaning
 * (indices, shapes, arena ranges, opcodes) is ipu_exe_validate()'s job,
 * which the loader runs last. No byte of @buf is read before the bounds
 * that cover it have been checked.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exe_format.h"
#include "ipu/dtype.h"
#include "ipu/exe.h"
#include "ipu/exe_ops.h"

struct reader {
	const uint8_t *buf;
	size_t len;
	char *err;
	size_t errlen;
	/* The payload of each known blob, by type. */
	const uint8_t *blob[EXE_BLOB_MAX + 1];
	uint64_t blob_size[EXE_BLOB_MAX + 1];
	const char *strtab;
	uint64_t strtab_size;
};

/* Report through @r's message buffer; evaluates to -EINVAL. */
#define fail(r, ...) __ipu_exe_fail((r)->err, (r)->errlen, __VA_ARGS__)

static const char *const blob_names[EXE_BLOB_MAX + 1] = {
	[IPU_EXE_BLOB_META] = "META",	    [IPU_EXE_BLOB_STRTAB] = "STRTAB",
	[IPU_EXE_BLOB_TENSORS] = "TENSORS", [IPU_EXE_BLOB_STREAMS] = "STREAMS",
	[IPU_EXE_BLOB_INSTRS] = "INSTRS",   [IPU_EXE_BLOB_OPERANDS] = "OPERANDS",
	[IPU_EXE_BLOB_PARAMS] = "PARAMS",   [IPU_EXE_BLOB_DATA] = "DATA",
	[IPU_EXE_BLOB_GROUPINGS] = "GROUPINGS",
};

struct span {
	uint64_t start, end;
	uint32_t index;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static int read_header(struct reader *r, struct ipu_exe_file_header *h)
{
	if (r->len < sizeof(*h))
		return fail(r, "truncated: %zu bytes, the header alone is %zu",
			    r->len, sizeof(*h));
	memcpy(h, r->buf, sizeof(*h));
	__ipu_exe_le_convert(h, __ipu_exe_layout_header);
	if (h->magic != IPU_EXE_MAGIC)
		return fail(r, "bad magic 0x%08x: not an IPU executable",
			    h->magic);
	if (h->version != IPU_EXE_VERSION)
		return fail(r, "version %u, this reader knows version %d",
			    h->version, IPU_EXE_VERSION);
	if (h->header_size != sizeof(*h))
		return fail(r, "header size %u, version %d has %zu",
			    h->header_size, IPU_EXE_VERSION, sizeof(*h));
	if (h->reserved)
		return fail(r, "reserved header field is 0x%x, not 0",
			    h->reserved);
	if (h->file_size != r->len)
		return fail(r, "%s: the header says %llu bytes, %zu given",
			    h->file_size > r->len ? "truncated" : "trailing bytes",
			    (unsigned long long)h->file_size, r->len);
	if (h->num_blobs > (r->len - sizeof(*h)) /
				   sizeof(struct ipu_exe_blob_desc))
		return fail(r, "%u blob descriptors do not fit in %zu bytes",
			    h->num_blobs, r->len);
	return 0;
}

/* Bounds, alignment, CRC and uniqueness of every blob; no overlaps. */
static int read_descs(struct reader *r, const struct ipu_exe_file_header *h)
{
	const uint8_t *dbuf = r->buf + sizeof(*h);
	size_t dlen = (size_t)h->num_blobs * sizeof(struct ipu_exe_blob_desc);
	struct span *spans;
	int ret = 0;

	if (__ipu_exe_crc32(dbuf, dlen) != h->desc_crc32)
		return fail(r, "descriptor CRC mismatch: corrupt file");
	spans = malloc((h->num_blobs ? h->num_blobs : 1) * sizeof(*spans));
	if (!spans)
		return -ENOMEM;
	for (uint32_t i = 0; i < h->num_blobs && !ret; i++) {
		struct ipu_exe_blob_desc d;
		uint64_t end = 0;

		memcpy(&d, dbuf + (size_t)i * sizeof(d), sizeof(d));
		__ipu_exe_le_convert(&d, __ipu_exe_layout_desc);
		if (d.offset % EXE_BLOB_ALIGN)
			ret = fail(r, "blob %u: offset %llu is not %d-byte aligned",
				   i, (unsigned long long)d.offset,
				   EXE_BLOB_ALIGN);
		else if (d.offset < sizeof(*h) + dlen ||
			 __builtin_add_overflow(d.offset, d.size, &end) ||
			 end > r->len)
			ret = fail(r, "blob %u: %llu bytes at %llu lie outside the payload area (%zu..%zu)",
				   i, (unsigned long long)d.size,
				   (unsigned long long)d.offset,
				   sizeof(*h) + dlen, r->len);
		else if (__ipu_exe_crc32(r->buf + d.offset, d.size) != d.crc32)
			ret = fail(r, "blob %u (%s): CRC mismatch: corrupt file",
				   i, d.type >= 1 && d.type <= EXE_BLOB_MAX ?
					      blob_names[d.type] : "unknown");
		else if (d.type >= 1 && d.type <= EXE_BLOB_MAX &&
			 r->blob[d.type])
			ret = fail(r, "blob %u: a second %s blob", i,
				   blob_names[d.type]);
		if (ret)
			break;
		/* Unknown types are a newer writer's optional blobs. */
		if (d.type >= 1 && d.type <= EXE_BLOB_MAX) {
			r->blob[d.type] = r->buf + d.offset;
			r->blob_size[d.type] = d.size;
		}
		spans[i] = (struct span){ d.offset, end, i };
	}
	if (!ret) {
		qsort(spans, h->num_blobs, sizeof(*spans), cmp_span);
		for (uint32_t i = 1; i < h->num_blobs && !ret; i++)
			if (spans[i].start < spans[i - 1].end)
				ret = fail(r, "blobs %u and %u overlap",
					   spans[i - 1].index, spans[i].index);
	}
	free(spans);
	for (uint32_t t = 1; t <= EXE_BLOB_LAST && !ret; t++)
		if (!r->blob[t])
			ret = fail(r, "no %s blob", blob_names[t]);
	return ret;
}

/* Entries of a table blob of @esize-byte entries, at most UINT32_MAX. */
static int table_count(struct reader *r, uint32_t type, size_t esize,
		       uint32_t *count)
{
	uint64_t size = r->blob_size[type];

	if (size % esize || size / esize > UINT32_MAX)
		return fail(r, "%s blob of %llu bytes is not a table of %zu-byte entries",
			    blob_names[type], (unsigned long long)size, esize);
	*count = (uint32_t)(size / esize);
	return 0;
}

/* The string at STRTAB offset @off; the table ends in a NUL. */
static int string_at(struct reader *r, uint32_t off, const char *what,
		     uint32_t i, const char **out)
{
	if (off >= r->strtab_size)
		return fail(r, "%s %u: string offset %u passes the string table (%llu bytes)",
			    what, i, off, (unsigned long long)r->strtab_size);
	*out = r->strtab + off;
	return 0;
}

/* Element count and bytes for the in-memory form; 0 where the shape is
 * bad, which validation then reports. */
static void sizes_of(uint32_t dtype, uint32_t ndim, const uint64_t *shape,
		     uint64_t *nelems, uint64_t *nbytes)
{
	*nelems = 0;
	*nbytes = 0;
	if (ndim > IPU_EXE_MAX_DIMS || __ipu_exe_nelems(ndim, shape, nelems) ||
	    __builtin_mul_overflow(*nelems, ipu_dtype_size((int)dtype), nbytes))
		*nelems = *nbytes = 0;
}

static int read_tensors(struct reader *r, struct ipu_exe *e)
{
	const uint8_t *p = r->blob[IPU_EXE_BLOB_TENSORS];

	for (uint32_t i = 0; i < e->num_tensors; i++) {
		struct ipu_exe_file_tensor f;
		struct ipu_exe_tensor *t = &e->tensors[i];
		int ret;

		memcpy(&f, p + (size_t)i * sizeof(f), sizeof(f));
		__ipu_exe_le_convert(&f, __ipu_exe_layout_tensor);
		if (f.reserved)
			return fail(r, "tensor %u: reserved field is 0x%x, not 0",
				    i, f.reserved);
		ret = string_at(r, f.name, "tensor", i, &t->name);
		if (!ret && f.mmap_path)
			ret = string_at(r, f.mmap_path, "tensor", i,
					&t->mmap_path);
		if (ret)
			return ret;
		t->kind = f.kind;
		t->dtype = f.dtype;
		t->flags = f.flags;
		t->ndim = f.ndim;
		memcpy(t->shape, f.shape, sizeof(t->shape));
		sizes_of(f.dtype, f.ndim, f.shape, &t->nelems, &t->nbytes);
		t->offset = f.offset;
		t->group_size = f.group_size;
		t->group_stride = f.group_stride;
		t->retrieval = f.retrieval;
		t->data_offset = f.data_offset;
		t->data_size = f.data_size;
	}
	return 0;
}

/*
 * The GROUPINGS blob: replication_factor group numbers for each
 * IPU_EXE_TENSOR_GROUP_ASSIGNED variable, in table order, and nothing
 * else; the blob is present iff such a variable is. The validator checks
 * the numbers.
 */
static int read_groupings(struct reader *r, struct ipu_exe *e, uint32_t *g,
			  uint64_t n)
{
	const uint8_t *p = r->blob[IPU_EXE_BLOB_GROUPINGS];
	uint64_t at = 0, rf = e->replication_factor;

	for (uint32_t i = 0; i < e->num_tensors; i++) {
		struct ipu_exe_tensor *t = &e->tensors[i];

		if (!(t->flags & IPU_EXE_TENSOR_GROUP_ASSIGNED))
			continue;
		if (!p)
			return fail(r, "tensor %u '%s': GROUP_ASSIGNED, but the file has no GROUPINGS blob",
				    i, t->name);
		if (!rf || n - at < rf)
			return fail(r, "tensor %u '%s': GROUPINGS blob of %llu entries holds no %llu entries for it",
				    i, t->name, (unsigned long long)n,
				    (unsigned long long)rf);
		for (uint64_t k = 0; k < rf; k++) {
			uint32_t v;

			memcpy(&v, p + (size_t)(at + k) * 4, 4);
			__ipu_exe_le_convert(&v, "4");
			g[at + k] = v;
		}
		t->group_assignment = g + at;
		at += rf;
	}
	if (p && !at)
		return fail(r, "a GROUPINGS blob, but no tensor is GROUP_ASSIGNED");
	if (p && at != n)
		return fail(r, "GROUPINGS blob holds %llu entries, but the GROUP_ASSIGNED tensors need %llu",
			    (unsigned long long)n, (unsigned long long)at);
	return 0;
}

static int read_streams(struct reader *r, struct ipu_exe *e)
{
	const uint8_t *p = r->blob[IPU_EXE_BLOB_STREAMS];

	for (uint32_t i = 0; i < e->num_streams; i++) {
		struct ipu_exe_file_stream f;
		struct ipu_exe_stream *s = &e->streams[i];
		uint64_t nelems;
		int ret;

		memcpy(&f, p + (size_t)i * sizeof(f), sizeof(f));
		__ipu_exe_le_convert(&f, __ipu_exe_layout_stream);
		ret = string_at(r, f.name, "stream", i, &s->name);
		if (ret)
			return ret;
		s->direction = f.direction;
		s->dtype = f.dtype;
		s->ndim = f.ndim;
		memcpy(s->shape, f.shape, sizeof(s->shape));
		sizes_of(f.dtype, f.ndim, f.shape, &nelems, &s->nbytes);
		s->slots_offset = f.slots_offset;
	}
	return 0;
}

static int read_instrs(struct reader *r, struct ipu_exe *e)
{
	const uint8_t *p = r->blob[IPU_EXE_BLOB_INSTRS];

	for (uint32_t i = 0; i < e->num_instrs; i++) {
		struct ipu_exe_file_instr f;
		struct ipu_exe_instr *in = &e->instrs[i];

		memcpy(&f, p + (size_t)i * sizeof(f), sizeof(f));
		__ipu_exe_le_convert(&f, __ipu_exe_layout_instr);
		if (f.reserved)
			return fail(r, "instr %u: reserved field is 0x%x, not 0",
				    i, f.reserved);
		in->op = f.op;
		in->num_operands = f.num_operands;
		in->first_operand = f.first_operand;
		in->num_params = f.num_params;
		in->first_param = f.first_param;
		memcpy(in->fparams, f.fparams, sizeof(in->fparams));
	}
	for (uint32_t i = 0; i < e->num_operands; i++) {
		uint32_t v;

		memcpy(&v, r->blob[IPU_EXE_BLOB_OPERANDS] + (size_t)i * 4, 4);
		__ipu_exe_le_convert(&v, "4");
		e->operands[i] = v;
	}
	for (uint32_t i = 0; i < e->num_params; i++) {
		uint64_t v;

		memcpy(&v, r->blob[IPU_EXE_BLOB_PARAMS] + (size_t)i * 8, 8);
		__ipu_exe_le_convert(&v, "8");
		e->params[i] = (int64_t)v;
	}
	return 0;
}

/* Place @n entries of @esize bytes at *@at (8-aligned), advancing it. */
static bool place(uint64_t *at, uint64_t n, uint64_t esize, uint64_t *where)
{
	uint64_t bytes;

	*where = (*at + 7) & ~7ull;
	return !__builtin_mul_overflow(n, esize, &bytes) &&
	       !__builtin_add_overflow(*where, bytes, at) && *at < SIZE_MAX;
}

static int build(struct reader *r, struct ipu_exe **exep)
{
	struct ipu_exe_file_meta meta;
	uint32_t nt = 0, ns = 0, ni = 0, no = 0, np = 0;
	uint64_t at = sizeof(struct ipu_exe), o_t, o_s, o_i, o_o, o_p, o_str,
		 o_data, o_g, data_size = r->blob_size[IPU_EXE_BLOB_DATA],
		 ng = r->blob_size[IPU_EXE_BLOB_GROUPINGS] / 4;
	struct ipu_exe *e;
	uint8_t *block;
	int ret;

	if (r->blob_size[IPU_EXE_BLOB_META] != sizeof(meta))
		return fail(r, "META blob of %llu bytes, version %d has %zu",
			    (unsigned long long)r->blob_size[IPU_EXE_BLOB_META],
			    IPU_EXE_VERSION, sizeof(meta));
	memcpy(&meta, r->blob[IPU_EXE_BLOB_META], sizeof(meta));
	__ipu_exe_le_convert(&meta, __ipu_exe_layout_meta);
	if (meta.reserved)
		return fail(r, "META: reserved field is 0x%x, not 0",
			    meta.reserved);
	r->strtab = (const char *)r->blob[IPU_EXE_BLOB_STRTAB];
	r->strtab_size = r->blob_size[IPU_EXE_BLOB_STRTAB];
	if (!r->strtab_size || r->strtab[0] ||
	    r->strtab[r->strtab_size - 1] || r->strtab_size > UINT32_MAX)
		return fail(r, "STRTAB must start and end with a NUL and stay under 4 GiB");
	ret = table_count(r, IPU_EXE_BLOB_TENSORS,
			  sizeof(struct ipu_exe_file_tensor), &nt);
	if (!ret)
		ret = table_count(r, IPU_EXE_BLOB_STREAMS,
				  sizeof(struct ipu_exe_file_stream), &ns);
	if (!ret)
		ret = table_count(r, IPU_EXE_BLOB_INSTRS,
				  sizeof(struct ipu_exe_file_instr), &ni);
	if (!ret)
		ret = table_count(r, IPU_EXE_BLOB_OPERANDS, 4, &no);
	if (!ret)
		ret = table_count(r, IPU_EXE_BLOB_PARAMS, 8, &np);
	if (!ret && r->blob_size[IPU_EXE_BLOB_GROUPINGS] % 4)
		ret = fail(r, "GROUPINGS blob of %llu bytes is not a table of 4-byte entries",
			   (unsigned long long)r->blob_size[IPU_EXE_BLOB_GROUPINGS]);
	if (ret)
		return ret;

	/* One block: the struct, the tables, the strings, the data. */
	if (!place(&at, nt, sizeof(struct ipu_exe_tensor), &o_t) ||
	    !place(&at, ns, sizeof(struct ipu_exe_stream), &o_s) ||
	    !place(&at, ni, sizeof(struct ipu_exe_instr), &o_i) ||
	    !place(&at, no, sizeof(uint32_t), &o_o) ||
	    !place(&at, np, sizeof(int64_t), &o_p) ||
	    !place(&at, r->strtab_size, 1, &o_str) ||
	    !place(&at, data_size, 1, &o_data) ||
	    !place(&at, ng, sizeof(uint32_t), &o_g))
		return -ENOMEM;
	block = calloc(1, (size_t)at);
	if (!block)
		return -ENOMEM;
	e = (struct ipu_exe *)block;
	e->alloc_ = block;
	e->tensors = (struct ipu_exe_tensor *)(block + o_t);
	e->num_tensors = nt;
	e->streams = (struct ipu_exe_stream *)(block + o_s);
	e->num_streams = ns;
	e->instrs = (struct ipu_exe_instr *)(block + o_i);
	e->num_instrs = ni;
	e->operands = (uint32_t *)(block + o_o);
	e->num_operands = no;
	e->params = (int64_t *)(block + o_p);
	e->num_params = np;
	memcpy(block + o_str, r->strtab, (size_t)r->strtab_size);
	memcpy(block + o_data, r->blob[IPU_EXE_BLOB_DATA], (size_t)data_size);
	e->data = block + o_data;
	e->data_size = data_size;
	/* From here on, strings resolve into the copy. */
	r->strtab = (const char *)(block + o_str);

	e->num_host_transfers = meta.num_host_transfers;
	e->replication_factor = meta.replication_factor;
	e->instance_replication_factor = meta.instance_replication_factor;
	e->ipus_per_replica = meta.ipus_per_replica;
	e->arena_size = meta.arena_size;
	ret = string_at(r, meta.name, "program", 0, &e->name);
	if (!ret)
		ret = read_tensors(r, e);
	if (!ret)
		ret = read_streams(r, e);
	if (!ret)
		ret = read_instrs(r, e);
	if (!ret)
		ret = read_groupings(r, e, (uint32_t *)(block + o_g), ng);
	if (ret) {
		free(block);
		return ret;
	}
	*exep = e;
	return 0;
}

int ipu_exe_load(const void *buf, size_t len, struct ipu_exe **exep,
		 char *errbuf, size_t errlen)
{
	struct reader r = { .buf = buf, .len = len, .err = errbuf,
			    .errlen = errlen };
	struct ipu_exe_file_header h;
	struct ipu_exe *e = NULL;
	int ret;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!exep || (!buf && len))
		return fail(&r, "no buffer or no result pointer");
	*exep = NULL;
	ret = read_header(&r, &h);
	if (!ret)
		ret = read_descs(&r, &h);
	if (!ret)
		ret = build(&r, &e);
	if (!ret) {
		ret = ipu_exe_validate(e, errbuf, errlen);
		if (ret)
			ipu_exe_free(e);
	}
	if (ret == -ENOMEM)
		fail(&r, "out of memory loading %zu bytes", len);
	if (!ret)
		*exep = e;
	return ret;
}
