// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * backend_model_exe.c - executables parsed from buffer objects, cached.
 *
 * A launch names the executable by the BO holding its file image; parsing
 * and validating it (ipu_exe_load()) on every launch would cost more than
 * a small program's run. So each BO keeps the executable last parsed from
 * it, tagged with the BO's generation (model_bo.gen) and the image size.
 * Every way the model knows bytes can change bumps the generation (a
 * transfer in, a launch over an arena in it, map and unmap), and a mapped
 * BO, whose bytes the caller may write at any moment, is never cached: a
 * stale executable cannot be run.
 *
 * Entries are reference counted so a launch keeps its executable while
 * another queue replaces the cache entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_model.h"

/**
 * struct model_exe - a parsed executable.
 * @refs: references: the cache's and each launch's. Atomic.
 * @gen: the BO's generation when it was read.
 * @size: bytes of the image.
 * @exe: the executable.
 * @hdr: the image's header: with the checksums in it, enough to tell two
 *	images apart (the descriptors' CRC covers every blob's CRC).
 */
struct model_exe {
	int refs;
	uint64_t gen;
	uint64_t size;
	struct ipu_exe *exe;
	struct ipu_exe_file_header hdr;
};

void model_exe_put(struct model_exe *e)
{
	if (e && __atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		ipu_exe_free(e->exe);
		free(e);
	}
}

const struct ipu_exe *model_exe_exe(const struct model_exe *e)
{
	return e->exe;
}

bool model_exe_same(const struct model_exe *a, const struct model_exe *b)
{
	return a->size == b->size && !memcmp(&a->hdr, &b->hdr, sizeof(a->hdr));
}

void model_exe_uncache_locked(struct model_bo *mbo)
{
	model_exe_put(mbo->exe);
	mbo->exe = NULL;
}

/* Parse the image at @image; the caller holds no lock. */
static int parse(const uint8_t *image, uint64_t size, uint64_t gen,
		 struct model_exe **ep, char *msg, size_t len)
{
	struct model_exe *e;
	uint32_t magic;
	int err;

	/* "Not an executable at all" is told apart from "a broken one". */
	if (size < sizeof(e->hdr)) {
		snprintf(msg, len, "%llu bytes cannot hold an executable (its header alone is %zu)",
			 (unsigned long long)size, sizeof(e->hdr));
		return -ENOEXEC;
	}
	memcpy(&magic, image, sizeof(magic));
	if (magic != IPU_EXE_MAGIC) {
		snprintf(msg, len, "not an IPU executable (magic 0x%08x, expected 0x%08x)",
			 magic, IPU_EXE_MAGIC);
		return -ENOEXEC;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		snprintf(msg, len, "no memory to load the executable");
		return -ENOMEM;
	}
	err = ipu_exe_load(image, size, &e->exe, msg, len);
	if (err) {
		free(e);
		return err;
	}
	e->refs = 1;
	e->gen = gen;
	e->size = size;
	memcpy(&e->hdr, image, sizeof(e->hdr));
	*ep = e;
	return 0;
}

int model_exe_get(struct ipu_bo *bo, uint64_t size, struct model_exe **ep,
		  char *msg, size_t len)
{
	struct model_ipu *m = model_of(bo->dev);
	struct model_bo *mbo = model_bo_of(bo);
	struct model_exe *e, *old = NULL;
	bool cacheable;
	uint64_t gen;
	int err;

	pthread_mutex_lock(&m->lock);
	gen = __atomic_load_n(&mbo->gen, __ATOMIC_ACQUIRE);
	e = mbo->exe;
	cacheable = !mbo->mapped;
	if (e && cacheable && e->gen == gen && e->size == size) {
		__atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&m->lock);
		*ep = e;
		return 0;
	}
	pthread_mutex_unlock(&m->lock);

	/* Outside the lock: loading a large image takes a while. */
	err = parse(model_bo_ptr(bo, 0), size, gen, &e, msg, len);
	if (err)
		return err;
	if (cacheable) {
		pthread_mutex_lock(&m->lock);
		/* Only if nothing changed the bytes while they were read. */
		if (!mbo->mapped &&
		    __atomic_load_n(&mbo->gen, __ATOMIC_ACQUIRE) == gen) {
			old = mbo->exe;
			mbo->exe = e;
			__atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
		}
		pthread_mutex_unlock(&m->lock);
		model_exe_put(old);
	}
	*ep = e;
	return 0;
}
