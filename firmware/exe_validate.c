// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * exe_validate.c - ipu_exe_validate(): an executable is checked whole
 * before the firmware runs it, so that the executor can trust every index,
 * offset and shape it reads. Executables come from files, and files are
 * hostile: every sum and product below is overflow-checked, every count is
 * bounded before it is used, and each error names what it found.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipu/dtype.h"
#include "ipu/exe.h"
#include "ipu/exe_ops.h"

/* Longest mmap path accepted (PATH_MAX less its NUL). */
#define MAX_PATH_LEN	4095
/* IPUs one instance may need (S03 rounds up to a power of two in 32 bits). */
#define MAX_IPUS	(1ull << 31)

struct vctx {
	const struct ipu_exe *exe;
	char *err;
	size_t errlen;
};

/* Report through @v's message buffer; evaluates to -EINVAL. */
#define fail(v, ...) __ipu_exe_fail((v)->err, (v)->errlen, __VA_ARGS__)

static const char *kind_name(uint32_t kind)
{
	switch (kind) {
	case IPU_EXE_TENSOR_VARIABLE:
		return "variable";
	case IPU_EXE_TENSOR_CONSTANT:
		return "constant";
	default:
		return "tensor";
	}
}

static int check_name(struct vctx *v, const char *what, uint32_t i,
		      const char *name, bool required)
{
	if (!name)
		return fail(v, "%s %u: no name", what, i);
	if (strnlen(name, IPU_EXE_MAX_NAME + 1) > IPU_EXE_MAX_NAME)
		return fail(v, "%s %u: name longer than %d bytes", what, i,
			    IPU_EXE_MAX_NAME);
	if (required && !name[0])
		return fail(v, "%s %u: empty name", what, i);
	return 0;
}

static int check_header(struct vctx *v)
{
	const struct ipu_exe *e = v->exe;
	uint64_t ipus;

	if (!e->name || strnlen(e->name, IPU_EXE_MAX_NAME + 1) > IPU_EXE_MAX_NAME)
		return fail(v, "program name missing or longer than %d bytes",
			    IPU_EXE_MAX_NAME);
	if (!e->num_host_transfers)
		return fail(v, "num_host_transfers is 0: must be >= 1");
	if (!e->replication_factor)
		return fail(v, "replication_factor is 0: must be >= 1");
	/* Instances split the replicas evenly (docs/instances.md). */
	if (!e->instance_replication_factor ||
	    e->replication_factor % e->instance_replication_factor)
		return fail(v, "instance_replication_factor %u does not divide replication_factor %u",
			    e->instance_replication_factor,
			    e->replication_factor);
	if (!e->ipus_per_replica)
		return fail(v, "ipus_per_replica is 0: must be >= 1");
	ipus = (uint64_t)e->ipus_per_replica * e->instance_replication_factor;
	if (ipus > MAX_IPUS)
		return fail(v, "%u IPUs per replica times %u replicas is more than %llu IPUs",
			    e->ipus_per_replica, e->instance_replication_factor,
			    MAX_IPUS);
	if ((e->num_tensors && !e->tensors) || (e->num_streams && !e->streams) ||
	    (e->num_instrs && !e->instrs) || (e->num_operands && !e->operands) ||
	    (e->num_params && !e->params) || (e->data_size && !e->data))
		return fail(v, "a table with entries has no storage");
	return 0;
}

/* dtype, ndim and shape of a tensor or stream; *nbytes gets their size. */
static int check_layout(struct vctx *v, const char *what, uint32_t i,
			const char *name, uint32_t dtype, uint32_t ndim,
			const uint64_t *shape, uint64_t *nelems,
			uint64_t *nbytes)
{
	if (!ipu_dtype_on_device((int)dtype))
		return fail(v, "%s %u '%s': dtype %u is not a device dtype",
			    what, i, name, dtype);
	if (ndim > IPU_EXE_MAX_DIMS)
		return fail(v, "%s %u '%s': %u dimensions, at most %d", what,
			    i, name, ndim, IPU_EXE_MAX_DIMS);
	for (uint32_t d = 0; d < IPU_EXE_MAX_DIMS; d++) {
		if (d < ndim && !shape[d])
			return fail(v, "%s %u '%s': dimension %u is 0", what,
				    i, name, d);
		if (d >= ndim && shape[d])
			return fail(v, "%s %u '%s': unused dimension %u is %llu, not 0",
				    what, i, name, d,
				    (unsigned long long)shape[d]);
	}
	if (__ipu_exe_nelems(ndim, shape, nelems) ||
	    __builtin_mul_overflow(*nelems, ipu_dtype_size((int)dtype), nbytes))
		return fail(v, "%s %u '%s': size overflows 64 bits", what, i,
			    name);
	return 0;
}

/* [offset, offset + len) inside the arena, aligned for the dtype. */
static int check_range(struct vctx *v, const char *what, uint32_t i,
		       const char *name, uint32_t dtype, uint64_t offset,
		       uint64_t len)
{
	uint64_t end;

	if (offset % ipu_dtype_size((int)dtype))
		return fail(v, "%s %u '%s': offset %llu is not aligned to its %zu-byte elements",
			    what, i, name, (unsigned long long)offset,
			    ipu_dtype_size((int)dtype));
	if (__builtin_add_overflow(offset, len, &end) ||
	    end > v->exe->arena_size)
		return fail(v, "%s %u '%s': offset %llu + %llu bytes passes arena size %llu",
			    what, i, name, (unsigned long long)offset,
			    (unsigned long long)len,
			    (unsigned long long)v->exe->arena_size);
	return 0;
}

/*
 * PopXL's non-constant-stride groupings (S20): one group number per
 * replica, every group 0..num_groups-1 with exactly group_size replicas.
 */
static int check_assignment(struct vctx *v, uint32_t i,
			    const struct ipu_exe_tensor *t)
{
	const struct ipu_exe *e = v->exe;
	uint32_t rf = e->replication_factor, groups, *count;

	if (!t->group_assignment)
		return fail(v, "variable %u '%s': GROUP_ASSIGNED without a group assignment",
			    i, t->name);
	if (t->group_stride)
		return fail(v, "variable %u '%s': assigned grouping with stride %u, not 0",
			    i, t->name, t->group_stride);
	if (!t->group_size || !rf || rf % t->group_size)
		return fail(v, "variable %u '%s': assigned grouping group_size %u does not divide replication factor %u",
			    i, t->name, t->group_size, rf);
	groups = rf / t->group_size;
	count = calloc(groups, sizeof(*count));
	if (!count)
		return -ENOMEM;
	for (uint32_t r = 0; r < rf; r++) {
		uint32_t g = t->group_assignment[r];

		if (g >= groups) {
			free(count);
			return fail(v, "variable %u '%s': replica %u assigned to group %u, but there are %u groups",
				    i, t->name, r, g, groups);
		}
		if (++count[g] > t->group_size) {
			free(count);
			return fail(v, "variable %u '%s': group %u has more than group_size %u replicas",
				    i, t->name, g, t->group_size);
		}
	}
	/* rf entries, none over group_size per group: all exactly full. */
	free(count);
	return 0;
}

/*
 * Why @path cannot name a memory-mapped variable's file, or NULL. An
 * executable is untrusted input: it may only name a file under the data
 * directory its user grants (libsession's ipu_session_opts.data_dir), so
 * the path must stay there on its face: relative, without a ".."
 * component. (The session also opens it with RESOLVE_BENEATH and no
 * symlinks, which this cannot see.)
 */
static const char *bad_mmap_path(const char *path)
{
	const char *c = path;
	size_t n;

	if (path[0] == '/')
		return "an absolute path: an executable may only name a file relative to the data directory its user grants";
	for (;;) {
		n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return "a \"..\" component: an executable may only name a file inside the data directory its user grants";
		if (!c[n])
			return NULL;
		c += n + 1;
	}
}

static int check_tensor_data(struct vctx *v, uint32_t i,
			     const struct ipu_exe_tensor *t)
{
	const struct ipu_exe *e = v->exe;
	uint64_t want = t->nbytes, end;
	const char *why;
	int ret;

	if (t->kind == IPU_EXE_TENSOR_INTERMEDIATE) {
		if (t->data_offset || t->data_size || t->mmap_path)
			return fail(v, "tensor %u '%s': an intermediate has no initial data",
				    i, t->name);
		return 0;
	}
	if (t->kind != IPU_EXE_TENSOR_VARIABLE && t->group_assignment)
		return fail(v, "tensor %u '%s': only variables have a group assignment",
			    i, t->name);
	if (t->kind == IPU_EXE_TENSOR_VARIABLE &&
	    (t->flags & IPU_EXE_TENSOR_GROUP_ASSIGNED)) {
		ret = check_assignment(v, i, t);
		if (ret)
			return ret;
	} else if (t->kind == IPU_EXE_TENSOR_VARIABLE && t->group_assignment) {
		return fail(v, "variable %u '%s': a group assignment without the GROUP_ASSIGNED flag",
			    i, t->name);
	}
	if (t->kind == IPU_EXE_TENSOR_VARIABLE) {
		ret = (t->flags & IPU_EXE_TENSOR_GROUP_ASSIGNED) ? 0 :
		      __ipu_exe_check_grouping(e->replication_factor,
					       t->group_size, t->group_stride,
					       v->err, v->errlen);
		if (ret)
			return fail(v, "variable %u '%s': replica grouping stride %u, group_size %u does not fit replication factor %u",
				    i, t->name, t->group_stride, t->group_size,
				    e->replication_factor);
		if (t->retrieval > IPU_EXE_RETRIEVE_ALL_REPLICAS)
			return fail(v, "variable %u '%s': retrieval mode %u unknown",
				    i, t->name, t->retrieval);
		/* One value per group (S20). */
		if (__builtin_mul_overflow(t->nbytes,
					   e->replication_factor / t->group_size,
					   &want))
			return fail(v, "variable %u '%s': data size overflows",
				    i, t->name);
	}
	if (t->flags & IPU_EXE_TENSOR_MMAP) {
		if (!t->mmap_path || !t->mmap_path[0] ||
		    strnlen(t->mmap_path, MAX_PATH_LEN + 1) > MAX_PATH_LEN)
			return fail(v, "variable %u '%s': memory-mapped without a file path (or one over %d bytes)",
				    i, t->name, MAX_PATH_LEN);
		why = bad_mmap_path(t->mmap_path);
		if (why)
			return fail(v, "variable %u '%s': memory-mapped from '%s': %s",
				    i, t->name, t->mmap_path, why);
		if (t->data_offset || t->data_size)
			return fail(v, "variable %u '%s': memory-mapped, yet has %llu bytes of data at %llu",
				    i, t->name,
				    (unsigned long long)t->data_size,
				    (unsigned long long)t->data_offset);
		return 0;
	}
	if (t->mmap_path)
		return fail(v, "%s %u '%s': a file path without the mmap flag",
			    kind_name(t->kind), i, t->name);
	if (t->data_size != want)
		return fail(v, "%s %u '%s': %llu bytes of initial data, expected %llu",
			    kind_name(t->kind), i, t->name,
			    (unsigned long long)t->data_size,
			    (unsigned long long)want);
	if (__builtin_add_overflow(t->data_offset, t->data_size, &end) ||
	    end > e->data_size)
		return fail(v, "%s %u '%s': data at %llu + %llu bytes passes the data size %llu",
			    kind_name(t->kind), i, t->name,
			    (unsigned long long)t->data_offset,
			    (unsigned long long)t->data_size,
			    (unsigned long long)e->data_size);
	return 0;
}

static int check_tensor(struct vctx *v, uint32_t i)
{
	const struct ipu_exe_tensor *t = &v->exe->tensors[i];
	uint64_t nelems, nbytes;
	int ret;

	ret = check_name(v, "tensor", i, t->name,
			 t->kind != IPU_EXE_TENSOR_INTERMEDIATE);
	if (ret)
		return ret;
	if (t->kind > IPU_EXE_TENSOR_CONSTANT)
		return fail(v, "tensor %u '%s': kind %u unknown", i, t->name,
			    t->kind);
	if (t->flags & ~IPU_EXE_TENSOR_FLAGS_ALL)
		return fail(v, "tensor %u '%s': unknown flags 0x%x", i, t->name,
			    t->flags & ~IPU_EXE_TENSOR_FLAGS_ALL);
	if (t->flags && t->kind != IPU_EXE_TENSOR_VARIABLE)
		return fail(v, "%s %u '%s': only variables may be memory-mapped",
			    kind_name(t->kind), i, t->name);
	if ((t->flags & IPU_EXE_TENSOR_MMAP_RDONLY) &&
	    !(t->flags & IPU_EXE_TENSOR_MMAP))
		return fail(v, "variable %u '%s': read-only mapping flag without the mmap flag",
			    i, t->name);
	ret = check_layout(v, kind_name(t->kind), i, t->name, t->dtype, t->ndim,
			   t->shape, &nelems, &nbytes);
	if (ret)
		return ret;
	if (t->nelems != nelems || t->nbytes != nbytes)
		return fail(v, "tensor %u '%s': nelems %llu and nbytes %llu, but its shape makes %llu and %llu",
			    i, t->name, (unsigned long long)t->nelems,
			    (unsigned long long)t->nbytes,
			    (unsigned long long)nelems,
			    (unsigned long long)nbytes);
	ret = check_range(v, kind_name(t->kind), i, t->name, t->dtype,
			  t->offset, t->nbytes);
	return ret ? ret : check_tensor_data(v, i, t);
}

static int check_stream(struct vctx *v, uint32_t i)
{
	const struct ipu_exe_stream *s = &v->exe->streams[i];
	uint64_t nelems, nbytes, slots;
	int ret;

	ret = check_name(v, "stream", i, s->name, true);
	if (ret)
		return ret;
	if (s->direction > IPU_EXE_STREAM_D2H)
		return fail(v, "stream %u '%s': direction %u unknown", i,
			    s->name, s->direction);
	ret = check_layout(v, "stream", i, s->name, s->dtype, s->ndim,
			   s->shape, &nelems, &nbytes);
	if (ret)
		return ret;
	if (s->nbytes != nbytes)
		return fail(v, "stream %u '%s': slot of %llu bytes, but its shape makes %llu",
			    i, s->name, (unsigned long long)s->nbytes,
			    (unsigned long long)nbytes);
	if (__builtin_mul_overflow(nbytes, v->exe->num_host_transfers, &slots))
		return fail(v, "stream %u '%s': slots overflow 64 bits", i,
			    s->name);
	return check_range(v, "stream", i, s->name, s->dtype, s->slots_offset,
			   slots);
}

/* ---------------------------------------------------------------------- */
/* Names and memory shared between entries                                 */
/* ---------------------------------------------------------------------- */

struct named {
	const char *name;
	uint32_t index;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Variables and constants are found by name (S19), streams too (S09). */
static int check_unique_names(struct vctx *v)
{
	const struct ipu_exe *e = v->exe;
	uint64_t cap = (uint64_t)e->num_tensors + e->num_streams;
	struct named *n;
	uint32_t nt = 0, ns = 0;
	int ret = 0;

	if (!cap)
		return 0;
	n = malloc(cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (uint32_t i = 0; i < e->num_tensors; i++)
		if (e->tensors[i].kind != IPU_EXE_TENSOR_INTERMEDIATE)
			n[nt++] = (struct named){ e->tensors[i].name, i };
	for (uint32_t i = 0; i < e->num_streams; i++)
		n[nt + ns++] = (struct named){ e->streams[i].name, i };
	qsort(n, nt, sizeof(*n), cmp_named);
	qsort(n + nt, ns, sizeof(*n), cmp_named);
	for (uint32_t i = 1; i < nt && !ret; i++)
		if (!strcmp(n[i - 1].name, n[i].name))
			ret = fail(v, "tensors %u and %u are both named '%s'",
				   n[i - 1].index, n[i].index, n[i].name);
	for (uint32_t i = nt + 1; i < nt + ns && !ret; i++)
		if (!strcmp(n[i - 1].name, n[i].name))
			ret = fail(v, "streams %u and %u are both named '%s'",
				   n[i - 1].index, n[i].index, n[i].name);
	free(n);
	return ret;
}

/* What owns a range of the arena, in the order ranges that coincide sort. */
enum owner_kind { OWN_TENSOR, OWN_H2D, OWN_D2H };

/* A range of the arena that one variable, constant or stream owns. */
struct owned {
	uint64_t start, end;
	uint32_t kind;		/* enum owner_kind */
	const char *what;
	const char *name;
	uint32_t index;
	uint32_t group;		/* first entry of the ranges equal to this */
};

static int cmp_owned(const void *a, const void *b)
{
	const struct owned *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

#define NONE	UINT32_MAX
#define MANY	(UINT32_MAX - 1)

/*
 * Who writes what, for the aliasing rules (exe.h): per tensor the one
 * instruction that writes it (NONE, or MANY when several do); per stream
 * the one tensor its host_stores name (NONE, or MANY when they differ) and
 * the first of those stores. The instructions are valid by now.
 */
struct writes {
	uint32_t *writer;
	uint32_t *stored;
	uint32_t *first_store;
};

/* Record @value in *@at: NONE becomes @value, another value MANY. */
static void note_once(uint32_t *at, uint32_t value)
{
	*at = *at == NONE || *at == value ? value : MANY;
}

static int find_writes(const struct ipu_exe *e, struct writes *w)
{
	w->writer = malloc((e->num_tensors ? e->num_tensors : 1) *
			   sizeof(*w->writer));
	w->stored = malloc((e->num_streams ? e->num_streams : 1) *
			   sizeof(*w->stored));
	w->first_store = malloc((e->num_streams ? e->num_streams : 1) *
				sizeof(*w->first_store));
	if (!w->writer || !w->stored || !w->first_store)
		return -ENOMEM;
	memset(w->writer, 0xff, e->num_tensors * sizeof(*w->writer));
	memset(w->stored, 0xff, e->num_streams * sizeof(*w->stored));
	memset(w->first_store, 0xff, e->num_streams * sizeof(*w->first_store));
	for (uint32_t i = 0; i < e->num_instrs; i++) {
		const struct ipu_exe_instr *in = &e->instrs[i];
		const uint32_t *opnd = e->operands + in->first_operand;

		/* An all-reduce in place on a tensor is a second writer. */
		if (__ipu_exe_op_info(in->op)->writes)
			note_once(&w->writer[opnd[0]], i);
		if (in->op == IPU_OP_HOST_STORE) {
			uint32_t s = (uint32_t)e->params[in->first_param];

			note_once(&w->stored[s], opnd[0]);
			if (w->first_store[s] == NONE)
				w->first_store[s] = i;
		}
	}
	return 0;
}

static int overlap_fail(struct vctx *v, const struct owned *a,
			const struct owned *b)
{
	return fail(v, "%s %u '%s' at %llu overlaps %s %u '%s' at %llu + %llu bytes",
		    a->what, a->index, a->name, (unsigned long long)a->start,
		    b->what, b->index, b->name, (unsigned long long)b->start,
		    (unsigned long long)(b->end - b->start));
}

/*
 * Sort the owned ranges and check that they are disjoint, but for the one
 * coincidence allowed (forwarding): an h2d stream's slots with those of
 * d2h streams. Each entry learns the first entry of its group of equal
 * ranges.
 */
static int check_owned_ranges(struct vctx *v, struct owned *o, uint32_t n)
{
	qsort(o, n, sizeof(*o), cmp_owned);
	for (uint32_t i = 0; i < n; i++) {
		const struct owned *p = i ? &o[o[i - 1].group] : NULL;

		if (p && o[i].start == p->start && o[i].end == p->end) {
			if (p->kind != OWN_H2D || o[i].kind != OWN_D2H)
				return overlap_fail(v, &o[i], p);
			o[i].group = o[i - 1].group;
			continue;
		}
		if (p && o[i].start < p->end)
			return overlap_fail(v, &o[i], p);
		o[i].group = i;
	}
	return 0;
}

/*
 * Intermediate @ti overlaps the owned range @g (the first of its group):
 * allowed only when it covers exactly the slots of a stream, in the two
 * in-place forms of exe.h.
 */
static int check_in_place(struct vctx *v, const struct writes *w,
			  const struct owned *g, uint32_t ti)
{
	const struct ipu_exe *e = v->exe;
	const struct ipu_exe_tensor *t = &e->tensors[ti];
	uint32_t wi = w->writer[ti];
	const struct ipu_exe_instr *in = wi < MANY ? &e->instrs[wi] : NULL;

	if (g->kind == OWN_TENSOR || g->start != t->offset ||
	    g->end != t->offset + t->nbytes)
		return fail(v, "tensor %u '%s' at %llu + %llu bytes overlaps %s %u '%s' at %llu",
			    ti, t->name, (unsigned long long)t->offset,
			    (unsigned long long)t->nbytes, g->what, g->index,
			    g->name, (unsigned long long)g->start);
	if (g->kind == OWN_H2D) {
		/* Load in place: the slot is the tensor, and nothing but
		 * the load (a self-copy) ever writes either. */
		if (!in || in->op != IPU_OP_HOST_LOAD ||
		    e->params[in->first_param] != g->index)
			return fail(v, "tensor %u '%s' sits on the slots of stream %u '%s', but is not written by one host_load of that stream alone",
				    ti, t->name, g->index, g->name);
		return 0;
	}
	/* Store in place: the slot is the tensor, so what the host reads
	 * after the launch is the tensor's last value, which is the value
	 * stored when its one write comes before the stores. */
	if (!in)
		return fail(v, "tensor %u '%s' sits on the slots of stream %u '%s', but is written %s",
			    ti, t->name, g->index, g->name,
			    wi == NONE ? "by no instruction" :
					 "by more than one instruction");
	if (w->stored[g->index] != ti)
		return fail(v, "tensor %u '%s' sits on the slots of stream %u '%s', but the stream's host_stores do not all store it",
			    ti, t->name, g->index, g->name);
	if (wi > w->first_store[g->index])
		return fail(v, "tensor %u '%s' sits on the slots of stream %u '%s', but is written (instr %u) after it is stored (instr %u)",
			    ti, t->name, g->index, g->name, wi,
			    w->first_store[g->index]);
	return 0;
}

/*
 * Each d2h stream forwarded onto an h2d stream's slots stores only the
 * tensor loaded in place there, so that nothing writes the shared bytes.
 */
static int check_forwarded(struct vctx *v, const struct writes *w,
			   const struct owned *o, uint32_t n,
			   const uint32_t *occupant)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct owned *g = &o[o[i].group];

		if (o[i].group == i || o[i].kind != OWN_D2H)
			continue;
		if (occupant[o[i].group] == NONE ||
		    w->stored[o[i].index] != occupant[o[i].group])
			return fail(v, "slots of stream %u '%s' are those of stream %u '%s', but its host_stores do not all store the tensor loaded in place there",
				    o[i].index, o[i].name, g->index, g->name);
	}
	return 0;
}

/*
 * Intermediates may share memory when their lifetimes do not meet (the
 * compiler's plan), but variables, constants and stream slots live for the
 * whole launch: nothing else may touch their bytes, except in the forms
 * exe.h allows (in-place host loads and stores, forwarded slots), which
 * copy elision needs.
 */
static int check_owned_memory(struct vctx *v)
{
	const struct ipu_exe *e = v->exe;
	uint64_t cap = (uint64_t)e->num_tensors + e->num_streams;
	struct writes w = { 0 };
	struct owned *o;
	uint32_t n = 0, *occupant;
	int ret;

	if (!cap)
		return 0;
	o = malloc(cap * sizeof(*o));
	occupant = malloc(cap * sizeof(*occupant));
	ret = !o || !occupant ? -ENOMEM : find_writes(e, &w);
	if (ret)
		goto out;
	memset(occupant, 0xff, cap * sizeof(*occupant));
	for (uint32_t i = 0; i < e->num_tensors; i++) {
		const struct ipu_exe_tensor *t = &e->tensors[i];

		if (t->kind != IPU_EXE_TENSOR_INTERMEDIATE)
			o[n++] = (struct owned){ t->offset,
						 t->offset + t->nbytes,
						 OWN_TENSOR, kind_name(t->kind),
						 t->name, i, 0 };
	}
	for (uint32_t i = 0; i < e->num_streams; i++) {
		const struct ipu_exe_stream *s = &e->streams[i];

		o[n++] = (struct owned){
			s->slots_offset,
			s->slots_offset + s->nbytes * e->num_host_transfers,
			s->direction == IPU_EXE_STREAM_H2D ? OWN_H2D : OWN_D2H,
			"slots of stream", s->name, i, 0
		};
	}
	ret = check_owned_ranges(v, o, n);
	/* The owned ranges are now sorted and disjoint but for equal ones,
	 * so their ends are sorted too: binary-search the first that ends
	 * after t starts. */
	for (uint32_t i = 0; i < e->num_tensors && !ret; i++) {
		const struct ipu_exe_tensor *t = &e->tensors[i];
		uint32_t lo = 0, hi = n;

		if (t->kind != IPU_EXE_TENSOR_INTERMEDIATE)
			continue;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (o[mid].end <= t->offset)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n || o[lo].start >= t->offset + t->nbytes)
			continue;
		ret = check_in_place(v, &w, &o[lo], i);
		if (!ret && occupant[lo] != NONE)
			ret = fail(v, "tensors %u '%s' and %u '%s' both sit on the slots of stream %u '%s'",
				   occupant[lo], e->tensors[occupant[lo]].name,
				   i, t->name, o[lo].index, o[lo].name);
		occupant[lo] = i;
	}
	if (!ret)
		ret = check_forwarded(v, &w, o, n, occupant);
out:
	free(w.writer);
	free(w.stored);
	free(w.first_store);
	free(occupant);
	free(o);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Instructions                                                             */
/* ---------------------------------------------------------------------- */

struct loop_frame {
	uint32_t instr;
	uint64_t end;	/* first instruction after the body */
};

static void to_tdesc(struct __ipu_exe_tdesc *d, const struct ipu_exe_tensor *t)
{
	d->name = t->name;
	d->dtype = t->dtype;
	d->ndim = t->ndim;
	memcpy(d->shape, t->shape, sizeof(d->shape));
}

static bool overlap(const struct ipu_exe_tensor *a,
		    const struct ipu_exe_tensor *b)
{
	return a->offset < b->offset + b->nbytes &&
	       b->offset < a->offset + a->nbytes;
}

static int check_loop(struct vctx *v, uint32_t i, const int64_t *p,
		      struct loop_frame *stack, uint32_t *depth)
{
	uint64_t end;

	if (p[0] < 0)
		return fail(v, "instr %u (loop): count %lld is negative", i,
			    (long long)p[0]);
	if (p[1] < 0 || (uint64_t)p[1] > v->exe->num_instrs - i - 1ull)
		return fail(v, "instr %u (loop): body of %lld instructions passes the end of the program (%u instructions)",
			    i, (long long)p[1], v->exe->num_instrs);
	end = i + 1ull + (uint64_t)p[1];
	if (*depth && end > stack[*depth - 1].end)
		return fail(v, "instr %u (loop): body %u..%llu passes the end of the loop at instr %u (body ends at %llu)",
			    i, i + 1, (unsigned long long)end - 1,
			    stack[*depth - 1].instr,
			    (unsigned long long)stack[*depth - 1].end - 1);
	if (*depth == IPU_EXE_MAX_LOOP_DEPTH)
		return fail(v, "instr %u (loop): loops nest deeper than %d", i,
			    IPU_EXE_MAX_LOOP_DEPTH);
	stack[(*depth)++] = (struct loop_frame){ i, end };
	return 0;
}

static int check_host_io(struct vctx *v, uint32_t i, uint32_t op,
			 const struct ipu_exe_tensor *t, uint32_t ti,
			 int64_t stream)
{
	const struct ipu_exe *e = v->exe;
	uint32_t want = op == IPU_OP_HOST_LOAD ? IPU_EXE_STREAM_H2D :
						 IPU_EXE_STREAM_D2H;
	const struct ipu_exe_stream *s;
	char st[__IPU_EXE_SHAPE_STRLEN], ss[__IPU_EXE_SHAPE_STRLEN];

	if (stream < 0 || stream >= e->num_streams)
		return fail(v, "instr %u (%s): stream index %lld, there are %u streams",
			    i, ipu_exe_op_name(op), (long long)stream,
			    e->num_streams);
	s = &e->streams[stream];
	if (s->direction != want)
		return fail(v, "instr %u (%s): stream %lld '%s' is %s",
			    i, ipu_exe_op_name(op), (long long)stream, s->name,
			    s->direction == IPU_EXE_STREAM_H2D ?
				    "host-to-device" : "device-to-host");
	if (s->dtype != t->dtype || s->ndim != t->ndim ||
	    memcmp(s->shape, t->shape, sizeof(s->shape)))
		return fail(v, "instr %u (%s): tensor %u '%s' %s %s does not match stream '%s' %s %s",
			    i, ipu_exe_op_name(op), ti, t->name,
			    ipu_dtype_name((int)t->dtype),
			    __ipu_exe_fmt_shape(st, sizeof(st), t->ndim,
						t->shape),
			    s->name, ipu_dtype_name((int)s->dtype),
			    __ipu_exe_fmt_shape(ss, sizeof(ss), s->ndim,
						s->shape));
	return 0;
}

/* What the opcode writes must be of a kind that may be written. */
static int check_written(struct vctx *v, uint32_t i, uint32_t op,
			 const struct __ipu_exe_op_info *info,
			 const uint32_t *opnd)
{
	const struct ipu_exe_tensor *t = v->exe->tensors;
	const struct ipu_exe_tensor *out = &t[opnd[0]];
	if (info->writes == 1 && out->kind != IPU_EXE_TENSOR_INTERMEDIATE)
		return fail(v, "instr %u (%s): writes %s %u '%s'; only intermediates take new values",
			    i, info->name, kind_name(out->kind), opnd[0],
			    out->name);
	if (info->writes == 2 && out->kind != IPU_EXE_TENSOR_VARIABLE)
		return fail(v, "instr %u (%s): updates %s %u '%s' in place; only variables may be",
			    i, info->name, kind_name(out->kind), opnd[0],
			    out->name);
	if (info->writes != 1)
		return 0;
	for (uint32_t k = 1; k < v->exe->instrs[i].num_operands; k++) {
		const struct ipu_exe_tensor *in = &t[opnd[k]];

		/* All-reduce may work in place; nothing else may read
		 * memory that it writes. */
		if (opnd[k] == opnd[0] && op == IPU_OP_ALL_REDUCE)
			continue;
		if (opnd[k] == opnd[0] || overlap(out, in))
			return fail(v, "instr %u (%s): output %u '%s' overlaps input %u '%s'",
				    i, info->name, opnd[0], out->name, opnd[k],
				    in->name);
	}
	return 0;
}

static int check_compute(struct vctx *v, uint32_t i, uint32_t op,
			 const uint32_t *opnd, uint32_t nops,
			 const int64_t *params, uint32_t nparams,
			 struct __ipu_exe_tdesc *d)
{
	const struct ipu_exe *e = v->exe;
	const struct ipu_exe_tensor *out = &e->tensors[opnd[0]];
	char msg[512], se[__IPU_EXE_SHAPE_STRLEN], so[__IPU_EXE_SHAPE_STRLEN];
	int ret;

	for (uint32_t k = 0; k < nops; k++)
		to_tdesc(&d[k], &e->tensors[opnd[k]]);
	ret = __ipu_exe_op_check(op, d, nops, params, nparams, msg,
				 sizeof(msg));
	if (ret)
		return fail(v, "instr %u (%s): %s", i, ipu_exe_op_name(op),
			    msg);
	if (d[0].dtype != out->dtype || d[0].ndim != out->ndim ||
	    memcmp(d[0].shape, out->shape, out->ndim * sizeof(out->shape[0])))
		return fail(v, "instr %u (%s): output %u '%s' is %s %s, the inputs make %s %s",
			    i, ipu_exe_op_name(op), opnd[0], out->name,
			    ipu_dtype_name((int)out->dtype),
			    __ipu_exe_fmt_shape(so, sizeof(so), out->ndim,
						out->shape),
			    ipu_dtype_name((int)d[0].dtype),
			    __ipu_exe_fmt_shape(se, sizeof(se), d[0].ndim,
						d[0].shape));
	if (op == IPU_OP_ALL_REDUCE &&
	    __ipu_exe_check_grouping(e->replication_factor, (uint64_t)params[1],
				     (uint64_t)params[2], msg, sizeof(msg)))
		return fail(v, "instr %u (all_reduce): %s (group_size %lld, stride %lld)",
			    i, msg, (long long)params[1], (long long)params[2]);
	return 0;
}

static int check_instr(struct vctx *v, uint32_t i, struct loop_frame *stack,
		       uint32_t *depth, struct __ipu_exe_tdesc *d)
{
	const struct ipu_exe *e = v->exe;
	const struct ipu_exe_instr *in = &e->instrs[i];
	const struct __ipu_exe_op_info *info = __ipu_exe_op_info(in->op);
	const uint32_t *opnd;
	const int64_t *params;
	static const float zero[2];

	if (!info)
		return fail(v, "instr %u: opcode %u unknown", i, in->op);
	if ((uint64_t)in->first_operand + in->num_operands > e->num_operands)
		return fail(v, "instr %u (%s): operands %u + %u pass the operand table (%u entries)",
			    i, info->name, in->first_operand, in->num_operands,
			    e->num_operands);
	if ((uint64_t)in->first_param + in->num_params > e->num_params)
		return fail(v, "instr %u (%s): params %u + %u pass the param table (%u entries)",
			    i, info->name, in->first_param, in->num_params,
			    e->num_params);
	if (in->op != IPU_OP_SCALED_ADD_INPLACE &&
	    memcmp(in->fparams, zero, sizeof(zero)))
		return fail(v, "instr %u (%s): float parameters must be 0",
			    i, info->name);
	opnd = e->operands + in->first_operand;
	params = e->params + in->first_param;
	if (in->num_operands < info->min_operands ||
	    in->num_operands > info->max_operands)
		return fail(v, "instr %u (%s): %u operands, it takes %u%s", i,
			    info->name, in->num_operands, info->min_operands,
			    info->max_operands == info->min_operands ?
				    "" : " or more");
	for (uint32_t k = 0; k < in->num_operands; k++)
		if (opnd[k] >= e->num_tensors)
			return fail(v, "instr %u (%s): operand %u is tensor %u, there are %u tensors",
				    i, info->name, k, opnd[k], e->num_tensors);
	if (in->op == IPU_OP_LOOP || in->op == IPU_OP_HOST_LOAD ||
	    in->op == IPU_OP_HOST_STORE) {
		if (in->num_params != (uint32_t)info->params)
			return fail(v, "instr %u (%s): %u parameters, it takes %d",
				    i, info->name, in->num_params,
				    info->params);
		if (in->op == IPU_OP_LOOP)
			return check_loop(v, i, params, stack, depth);
	}
	if (info->writes) {
		int ret = check_written(v, i, in->op, info, opnd);

		if (ret)
			return ret;
	}
	if (in->op == IPU_OP_HOST_LOAD || in->op == IPU_OP_HOST_STORE)
		return check_host_io(v, i, in->op, &e->tensors[opnd[0]],
				     opnd[0], params[0]);
	return check_compute(v, i, in->op, opnd, in->num_operands, params,
			     in->num_params, d);
}

static int check_instrs(struct vctx *v)
{
	const struct ipu_exe *e = v->exe;
	struct loop_frame stack[IPU_EXE_MAX_LOOP_DEPTH];
	struct __ipu_exe_tdesc *d;
	uint32_t depth = 0, maxops = 0;
	int ret = 0;

	for (uint32_t i = 0; i < e->num_instrs; i++)
		if (e->instrs[i].num_operands > maxops)
			maxops = e->instrs[i].num_operands;
	/* Bounded by the operand table once check_instr() has run, but
	 * sized before: cap at the table so a hostile count cannot ask
	 * for more memory than the file holds. */
	if (maxops > e->num_operands)
		maxops = e->num_operands;
	d = calloc(maxops ? maxops : 1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (uint32_t i = 0; i < e->num_instrs && !ret; i++) {
		while (depth && stack[depth - 1].end <= i)
			depth--;
		ret = check_instr(v, i, stack, &depth, d);
	}
	free(d);
	return ret;
}

int ipu_exe_validate(const struct ipu_exe *exe, char *errbuf, size_t errlen)
{
	struct vctx v = { exe, errbuf, errlen };
	int ret;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!exe)
		return fail(&v, "no executable");
	ret = check_header(&v);
	for (uint32_t i = 0; i < exe->num_tensors && !ret; i++)
		ret = check_tensor(&v, i);
	for (uint32_t i = 0; i < exe->num_streams && !ret; i++)
		ret = check_stream(&v, i);
	if (!ret)
		ret = check_unique_names(&v);
	if (!ret)
		ret = check_instrs(&v);
	/* After the instructions: the aliasing rules ask who writes what. */
	if (!ret)
		ret = check_owned_memory(&v);
	if (ret == -ENOMEM)
		fail(&v, "out of memory while validating");
	return ret;
}
