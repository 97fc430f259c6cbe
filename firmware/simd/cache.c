// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * cache.c - what ipu-simd keeps between launches: parsed executables and
 * idle firmware executors.
 *
 * Executables. An application launches the same program over and over;
 * parsing and validating it each time (CRCs, every table checked) would
 * cost more than a small program's run. So the image in device memory is
 * compared byte for byte with the images parsed before, and only the same
 * bytes reuse a parse. What runs is always a parse of a private copy: the
 * application can rewrite its BO while we read it, and a parser reading
 * bytes that change under it could pass a check on one value and use
 * another. (A comparison racing with such a write at worst misses.) A handful of images are kept, least
 * recently used dropped first; entries are reference counted because
 * several devices' threads run programs at once.
 *
 * Executors. ipufw_run() runs one program at a time per executor, and an
 * executor's worker threads are fixed at creation, so there is a pool of
 * idle executors per replica count: a run takes one (or makes one) and
 * gives it back.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ipu/exe.h>
#include <ipu/firmware.h>

#include "simd.h"

#define IMAGE_SLOTS	8
#define IDLE_EXECUTORS	8

struct simd_image {
	int refs;		/* the cache's, and each user's; atomic */
	size_t len;
	uint8_t *bytes;		/* the image the executable was parsed from */
	struct ipu_exe *exe;
	uint64_t used;		/* cache clock when last handed out */
};

struct idle_ex {
	unsigned int nrep;
	struct ipufw_executor *ex;
};

/* Protects the tables below (never held while parsing or running). */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct simd_image *images[IMAGE_SLOTS];
static uint64_t clock_;
static struct idle_ex idle[IDLE_EXECUTORS];

const struct ipu_exe *simd_image_exe(const struct simd_image *img)
{
	return img->exe;
}

void simd_image_put(struct simd_image *img)
{
	if (img && __atomic_sub_fetch(&img->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		ipu_exe_free(img->exe);
		free(img->bytes);
		free(img);
	}
}

static struct simd_image *lookup_locked(const uint8_t *bytes, size_t len)
{
	struct simd_image *img;
	size_t i;

	for (i = 0; i < IMAGE_SLOTS; i++) {
		img = images[i];
		if (img && img->len == len && !memcmp(img->bytes, bytes, len)) {
			__atomic_add_fetch(&img->refs, 1, __ATOMIC_RELAXED);
			img->used = ++clock_;
			return img;
		}
	}
	return NULL;
}

/* Put @img in the slot of the least recently used; the old one is
 * returned for the caller to put outside the lock. */
static struct simd_image *insert_locked(struct simd_image *img)
{
	struct simd_image *old;
	size_t i, lru = 0;

	for (i = 0; i < IMAGE_SLOTS; i++) {
		if (!images[i]) {
			lru = i;
			break;
		}
		if (images[i]->used < images[lru]->used)
			lru = i;
	}
	old = images[lru];
	__atomic_add_fetch(&img->refs, 1, __ATOMIC_RELAXED);
	img->used = ++clock_;
	images[lru] = img;
	return old;
}

/* Parse a private copy of @bytes and cache it. */
static int parse(const uint8_t *bytes, size_t len, struct simd_image **imgp,
		 char *msg, size_t msglen)
{
	struct simd_image *img, *old;
	uint32_t magic;
	int err;

	if (len < sizeof(struct ipu_exe_file_header)) {
		snprintf(msg, msglen, "%zu bytes cannot hold an executable (its header alone is %zu)",
			 len, sizeof(struct ipu_exe_file_header));
		return -ENOEXEC;
	}
	img = calloc(1, sizeof(*img));
	if (img)
		img->bytes = malloc(len);
	if (!img || !img->bytes) {
		free(img);
		snprintf(msg, msglen, "no memory for an executable of %zu bytes",
			 len);
		return -ENOMEM;
	}
	memcpy(img->bytes, bytes, len);
	/* "Not an executable at all" is told apart from "a broken one", as
	 * the model backend does. */
	memcpy(&magic, img->bytes, sizeof(magic));
	if (magic != IPU_EXE_MAGIC) {
		snprintf(msg, msglen, "not an IPU executable (magic 0x%08x, expected 0x%08x)",
			 magic, IPU_EXE_MAGIC);
		err = -ENOEXEC;
		goto err_free;
	}
	err = ipu_exe_load(img->bytes, len, &img->exe, msg, msglen);
	if (err)
		goto err_free;
	img->len = len;
	img->refs = 1;

	pthread_mutex_lock(&cache_lock);
	old = insert_locked(img);
	pthread_mutex_unlock(&cache_lock);
	simd_image_put(old);
	*imgp = img;
	return 0;

err_free:
	free(img->bytes);
	free(img);
	return err;
}

int simd_image_get(const uint8_t *bytes, size_t len, struct simd_image **imgp,
		   char *msg, size_t msglen)
{
	struct simd_image *img;

	pthread_mutex_lock(&cache_lock);
	img = lookup_locked(bytes, len);
	pthread_mutex_unlock(&cache_lock);
	if (img) {
		*imgp = img;
		return 0;
	}
	return parse(bytes, len, imgp, msg, msglen);
}

bool simd_image_same(const struct simd_image *img, const uint8_t *bytes,
		     size_t len)
{
	return img->len == len && !memcmp(img->bytes, bytes, len);
}

int simd_executor_get(unsigned int nrep, struct ipufw_executor **exp)
{
	size_t i;

	pthread_mutex_lock(&cache_lock);
	for (i = 0; i < IDLE_EXECUTORS; i++) {
		if (idle[i].ex && idle[i].nrep == nrep) {
			*exp = idle[i].ex;
			idle[i].ex = NULL;
			pthread_mutex_unlock(&cache_lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&cache_lock);
	return ipufw_executor_create(nrep, exp);
}

void simd_executor_put(unsigned int nrep, struct ipufw_executor *ex)
{
	struct ipufw_executor *drop = ex;
	size_t i;

	pthread_mutex_lock(&cache_lock);
	for (i = 0; i < IDLE_EXECUTORS; i++) {
		if (!idle[i].ex) {
			idle[i].ex = ex;
			idle[i].nrep = nrep;
			drop = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&cache_lock);
	/* The pool is full: this one's threads are not worth keeping. */
	ipufw_executor_destroy(drop);
}

void simd_cache_drain(void)
{
	struct simd_image *img;
	size_t i;

	for (i = 0; i < IMAGE_SLOTS; i++) {
		pthread_mutex_lock(&cache_lock);
		img = images[i];
		images[i] = NULL;
		pthread_mutex_unlock(&cache_lock);
		simd_image_put(img);
	}
	for (i = 0; i < IDLE_EXECUTORS; i++) {
		pthread_mutex_lock(&cache_lock);
		struct ipufw_executor *ex = idle[i].ex;

		idle[i].ex = NULL;
		pthread_mutex_unlock(&cache_lock);
		ipufw_executor_destroy(ex);
	}
}
