// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * exe_save.c - ipu_exe_save(): serialise a validated executable.
 *
 * The output is deterministic (blob order META, STRTAB, TENSORS, STREAMS,
 * INSTRS, OPERANDS, PARAMS, DATA; strings in table order; zero padding), so
 * that saving what ipu_exe_load() read back gives the same bytes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exe_format.h"
#include "ipu/exe.h"

struct strtab {
	char *buf;
	uint64_t len;
};

/* Offset of @s in the table; "" and NULL are offset 0, always "". */
static uint32_t add_string(struct strtab *st, const char *s)
{
	size_t n;
	uint32_t off;

	if (!s || !s[0])
		return 0;
	n = strlen(s) + 1;
	off = (uint32_t)st->len;
	memcpy(st->buf + st->len, s, n);
	st->len += n;
	return off;
}

/* Bytes add_string() takes for @s. */
static uint64_t string_size(const char *s)
{
	return s && s[0] ? strlen(s) + 1 : 0;
}

/* Bytes the string table of @e takes: the leading "" and every string. */
static uint64_t strings_size(const struct ipu_exe *e)
{
	uint64_t n = 1 + string_size(e->name);

	for (uint32_t i = 0; i < e->num_tensors; i++)
		n += string_size(e->tensors[i].name) +
		     string_size(e->tensors[i].mmap_path);
	for (uint32_t i = 0; i < e->num_streams; i++)
		n += string_size(e->streams[i].name);
	return n;
}

static void put_tensor(uint8_t *p, const struct ipu_exe_tensor *t,
		       struct strtab *st)
{
	struct ipu_exe_file_tensor f = {
		.name = add_string(st, t->name),
		.kind = t->kind,
		.dtype = t->dtype,
		.flags = t->flags,
		.ndim = t->ndim,
		.group_size = t->group_size,
		.group_stride = t->group_stride,
		.retrieval = t->retrieval,
		.offset = t->offset,
		.data_offset = t->data_offset,
		.data_size = t->data_size,
		.mmap_path = add_string(st, t->mmap_path),
	};

	memcpy(f.shape, t->shape, sizeof(f.shape));
	__ipu_exe_le_convert(&f, __ipu_exe_layout_tensor);
	memcpy(p, &f, sizeof(f));
}

static void put_stream(uint8_t *p, const struct ipu_exe_stream *s,
		       struct strtab *st)
{
	struct ipu_exe_file_stream f = {
		.name = add_string(st, s->name),
		.direction = s->direction,
		.dtype = s->dtype,
		.ndim = s->ndim,
		.slots_offset = s->slots_offset,
	};

	memcpy(f.shape, s->shape, sizeof(f.shape));
	__ipu_exe_le_convert(&f, __ipu_exe_layout_stream);
	memcpy(p, &f, sizeof(f));
}

static void put_instr(uint8_t *p, const struct ipu_exe_instr *in)
{
	struct ipu_exe_file_instr f = {
		.op = in->op,
		.num_operands = in->num_operands,
		.first_operand = in->first_operand,
		.num_params = in->num_params,
		.first_param = in->first_param,
	};

	memcpy(f.fparams, in->fparams, sizeof(f.fparams));
	__ipu_exe_le_convert(&f, __ipu_exe_layout_instr);
	memcpy(p, &f, sizeof(f));
}

int ipu_exe_save(const struct ipu_exe *exe, void **bufp, size_t *lenp,
		 char *errbuf, size_t errlen)
{
	struct ipu_exe_blob_desc desc[EXE_BLOB_MAX];
	struct ipu_exe_file_header h = { 0 };
	struct ipu_exe_file_meta meta = { 0 };
	struct strtab st = { 0 };
	uint64_t size[EXE_BLOB_MAX + 1], at, ng = 0;
	uint8_t *buf, *blob[EXE_BLOB_MAX + 1];
	uint32_t nblobs = EXE_BLOB_LAST;
	size_t dsize;
	int ret;

	if (!bufp || !lenp) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "no result pointer");
		return -EINVAL;
	}
	*bufp = NULL;
	*lenp = 0;
	ret = ipu_exe_validate(exe, errbuf, errlen);
	if (ret)
		return ret;

	/* Validation bounds every count to 32 bits and every string to
	 * IPU_EXE_MAX_NAME or a path, so these products stay far from
	 * 64-bit overflow; only the string table's 32-bit offsets and the
	 * host's size_t can run out. */
	size[IPU_EXE_BLOB_META] = sizeof(meta);
	size[IPU_EXE_BLOB_STRTAB] = strings_size(exe);
	size[IPU_EXE_BLOB_TENSORS] =
		(uint64_t)exe->num_tensors * sizeof(struct ipu_exe_file_tensor);
	size[IPU_EXE_BLOB_STREAMS] =
		(uint64_t)exe->num_streams * sizeof(struct ipu_exe_file_stream);
	size[IPU_EXE_BLOB_INSTRS] =
		(uint64_t)exe->num_instrs * sizeof(struct ipu_exe_file_instr);
	size[IPU_EXE_BLOB_OPERANDS] = (uint64_t)exe->num_operands * 4;
	size[IPU_EXE_BLOB_PARAMS] = (uint64_t)exe->num_params * 8;
	size[IPU_EXE_BLOB_DATA] = exe->data_size;
	/* The optional GROUPINGS blob only when needed: files without
	 * assigned groupings stay readable by older readers. */
	for (uint32_t i = 0; i < exe->num_tensors; i++)
		if (exe->tensors[i].flags & IPU_EXE_TENSOR_GROUP_ASSIGNED)
			ng += exe->replication_factor;
	size[IPU_EXE_BLOB_GROUPINGS] = ng * 4;
	if (ng)
		nblobs = IPU_EXE_BLOB_GROUPINGS;
	dsize = nblobs * sizeof(desc[0]);
	if (size[IPU_EXE_BLOB_STRTAB] > UINT32_MAX) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "names and paths take over 4 GiB");
		return -EINVAL;
	}
	at = sizeof(h) + dsize;
	for (uint32_t t = 1; t <= nblobs; t++) {
		at = (at + EXE_BLOB_ALIGN - 1) & ~(uint64_t)(EXE_BLOB_ALIGN - 1);
		desc[t - 1] = (struct ipu_exe_blob_desc){ .type = t,
							  .offset = at,
							  .size = size[t] };
		if (__builtin_add_overflow(at, size[t], &at) || at > SIZE_MAX)
			return -ENOMEM;
	}
	buf = calloc(1, (size_t)at);
	if (!buf)
		return -ENOMEM;
	for (uint32_t t = 1; t <= nblobs; t++)
		blob[t] = buf + desc[t - 1].offset;

	st.buf = (char *)blob[IPU_EXE_BLOB_STRTAB];
	st.len = 1;
	meta.name = add_string(&st, exe->name);
	meta.num_host_transfers = exe->num_host_transfers;
	meta.replication_factor = exe->replication_factor;
	meta.instance_replication_factor = exe->instance_replication_factor;
	meta.ipus_per_replica = exe->ipus_per_replica;
	meta.arena_size = exe->arena_size;
	__ipu_exe_le_convert(&meta, __ipu_exe_layout_meta);
	memcpy(blob[IPU_EXE_BLOB_META], &meta, sizeof(meta));
	for (uint32_t i = 0; i < exe->num_tensors; i++)
		put_tensor(blob[IPU_EXE_BLOB_TENSORS] +
				   (size_t)i * sizeof(struct ipu_exe_file_tensor),
			   &exe->tensors[i], &st);
	for (uint32_t i = 0; i < exe->num_streams; i++)
		put_stream(blob[IPU_EXE_BLOB_STREAMS] +
				   (size_t)i * sizeof(struct ipu_exe_file_stream),
			   &exe->streams[i], &st);
	for (uint32_t i = 0; i < exe->num_instrs; i++)
		put_instr(blob[IPU_EXE_BLOB_INSTRS] +
				  (size_t)i * sizeof(struct ipu_exe_file_instr),
			  &exe->instrs[i]);
	for (uint32_t i = 0; i < exe->num_operands; i++) {
		uint32_t v = exe->operands[i];

		__ipu_exe_le_convert(&v, "4");
		memcpy(blob[IPU_EXE_BLOB_OPERANDS] + (size_t)i * 4, &v, 4);
	}
	for (uint32_t i = 0; i < exe->num_params; i++) {
		uint64_t v = (uint64_t)exe->params[i];

		__ipu_exe_le_convert(&v, "8");
		memcpy(blob[IPU_EXE_BLOB_PARAMS] + (size_t)i * 8, &v, 8);
	}
	if (exe->data_size)
		memcpy(blob[IPU_EXE_BLOB_DATA], exe->data, (size_t)exe->data_size);
	ng = 0;
	for (uint32_t i = 0; i < exe->num_tensors && nblobs > EXE_BLOB_LAST;
	     i++) {
		const struct ipu_exe_tensor *t = &exe->tensors[i];

		if (!(t->flags & IPU_EXE_TENSOR_GROUP_ASSIGNED))
			continue;
		for (uint32_t r = 0; r < exe->replication_factor; r++, ng++) {
			uint32_t v = t->group_assignment[r];

			__ipu_exe_le_convert(&v, "4");
			memcpy(blob[IPU_EXE_BLOB_GROUPINGS] + (size_t)ng * 4,
			       &v, 4);
		}
	}

	for (uint32_t t = 1; t <= nblobs; t++) {
		desc[t - 1].crc32 = __ipu_exe_crc32(blob[t], size[t]);
		__ipu_exe_le_convert(&desc[t - 1], __ipu_exe_layout_desc);
	}
	memcpy(buf + sizeof(h), desc, dsize);
	h.magic = IPU_EXE_MAGIC;
	h.version = IPU_EXE_VERSION;
	h.header_size = sizeof(h);
	h.num_blobs = nblobs;
	h.file_size = at;
	h.desc_crc32 = __ipu_exe_crc32(desc, dsize);
	__ipu_exe_le_convert(&h, __ipu_exe_layout_header);
	memcpy(buf, &h, sizeof(h));
	*bufp = buf;
	*lenp = (size_t)at;
	return 0;
}
