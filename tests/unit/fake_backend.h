/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * fake_backend.h - a scripted libipu backend for host unit tests.
 *
 * Registered as "fake" through the internal __ipu_backend_register(), it
 * lets the tests drive libipu's front end (argument checks, bookkeeping,
 * error messages) without a device: it counts every call, fails the calls
 * a test tells it to, and keeps "device memory" in malloc'ed buffers.
 */
#ifndef IPU_TESTS_FAKE_BACKEND_H
#define IPU_TESTS_FAKE_BACKEND_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ipu/ipu.h>

#include "../../userspace/ipu/backend.h"
#include "../../userspace/ipu/internal.h"

#define FAKE_PAGE 4096u
#define FAKE_DEVICES 2

/* What the fake saw and what it is told to do; reset by fake_setup(). */
struct fake_state {
	/* calls */
	int opens, closes, queries, attaches, detaches, resets;
	int bo_creates, bo_destroys, bo_queries, maps, unmaps, xfers;
	int live_bos;
	/* scripted errors (0: succeed) */
	int open_err[FAKE_DEVICES];
	int attach_err[FAKE_DEVICES];
	int enumerate_err;
	int bo_create_err, bo_destroy_err, map_err;
	int xfer_err;
	int xfer_fail_at;	/* 1-based xfer call that fails with xfer_err */
	int query_err, detach_err, reset_err;
	/* whether fake_enumerate lists the devices */
	int listed;
	uint32_t next_handle;
	/* gather requests: fake_gather_post() queues, GATHER_NEXT takes in
	 * order; answered tokens and their statuses are recorded */
	int gather_fd;		/* what gather_fd returns; 0: -EOPNOTSUPP */
	struct ipu_gather_request gather_q[4];
	int gather_n, gather_taken;
	uint64_t gather_next_token;
	uint64_t answered[4];
	int answer_status[4];
	int answers, gather_calls;
};

static struct fake_state fake __attribute__((unused));

struct fake_bo_mem {
	uint8_t *mem;
};

static inline int fake_enumerate(struct ipu_device_list *list)
{
	struct ipu_device_entry e;
	char name[16];
	unsigned int i;
	int err;

	if (fake.enumerate_err)
		return fake.enumerate_err;
	for (i = 0; fake.listed && i < FAKE_DEVICES; i++) {
		memset(&e, 0, sizeof(e));
		snprintf(name, sizeof(name), "fake:%u", i);
		e.name = name;
		e.node = "";
		e.index = i;
		e.platform = IPU_DEVICE_PLATFORM_MODEL;
		e.platform_name = "model";
		e.memory_total = 1u << 20;
		err = ipu_device_list_add(list, &e);
		if (err)
			return err;
	}
	return 0;
}

static inline int fake_open(struct ipu_device *dev, unsigned int index)
{
	fake.opens++;
	if (index >= FAKE_DEVICES)
		return -ENOENT;
	if (fake.open_err[index])
		return fake.open_err[index];
	dev->priv = &fake;
	return 0;
}

static inline void fake_close(struct ipu_device *dev)
{
	(void)dev;
	fake.closes++;
}

static inline int fake_query(struct ipu_device *dev, struct ipu_device_info *info)
{
	fake.queries++;
	if (fake.query_err)
		return fake.query_err;
	info->api_version = 0;
	info->platform = IPU_DEVICE_PLATFORM_MODEL;
	info->caps = IPU_DEVICE_CAP_BO | IPU_DEVICE_CAP_MAP | IPU_DEVICE_CAP_XFER;
	info->memory_total = 1u << 20;
	info->mem_page_size = FAKE_PAGE;
	info->serial = 0x1234 + dev->index;
	info->firmware_version = 1 << 16;
	return 0;
}

static inline int fake_attach(struct ipu_device *dev)
{
	fake.attaches++;
	return fake.attach_err[dev->index];
}

static inline int fake_detach(struct ipu_device *dev)
{
	(void)dev;
	fake.detaches++;
	return fake.detach_err;
}

static inline int fake_reset(struct ipu_device *dev)
{
	(void)dev;
	fake.resets++;
	return fake.reset_err;
}

static inline int fake_bo_create(struct ipu_device *dev, struct ipu_bo *bo,
				 uint64_t size, uint32_t flags)
{
	(void)dev;
	(void)flags;
	fake.bo_creates++;
	if (fake.bo_create_err)
		return fake.bo_create_err;
	bo->size = (size + FAKE_PAGE - 1) / FAKE_PAGE * FAKE_PAGE;
	bo->handle = ++fake.next_handle;
	bo->device_addr = 0x100000ull * bo->handle;
	bo->cookie = (uint64_t)(uintptr_t)calloc(1, bo->size);
	if (!bo->cookie)
		return -ENOMEM;
	fake.live_bos++;
	return 0;
}

static inline int fake_bo_destroy(struct ipu_device *dev, struct ipu_bo *bo)
{
	(void)dev;
	fake.bo_destroys++;
	/* like the kernel: the handle goes away with the file anyway */
	free((void *)(uintptr_t)bo->cookie);
	fake.live_bos--;
	return fake.bo_destroy_err;
}

static inline int fake_bo_query(struct ipu_device *dev, struct ipu_bo *bo,
				struct ipu_bo_props *props)
{
	(void)dev;
	fake.bo_queries++;
	props->handle = bo->handle;
	props->size = bo->size;
	props->device_addr = bo->device_addr;
	return 0;
}

static inline int fake_bo_map(struct ipu_device *dev, struct ipu_bo *bo,
			      void **ptrp)
{
	(void)dev;
	fake.maps++;
	if (fake.map_err)
		return fake.map_err;
	*ptrp = (void *)(uintptr_t)bo->cookie;
	return 0;
}

static inline void fake_bo_unmap(struct ipu_device *dev, struct ipu_bo *bo,
				 void *ptr)
{
	(void)dev;
	(void)bo;
	(void)ptr;
	fake.unmaps++;
}

static inline int fake_xfer(struct ipu_device *dev, const struct ipu_xfer_desc *d)
{
	uint8_t *mem = (uint8_t *)(uintptr_t)d->bo->cookie;

	(void)dev;
	fake.xfers++;
	if (fake.xfer_err && (!fake.xfer_fail_at || fake.xfer_fail_at == fake.xfers))
		return fake.xfer_err;
	if (d->dir == IPU_XFER_DIR_TO_DEVICE)
		memcpy(mem + d->bo_offset, d->host, d->length);
	else
		memcpy(d->host, mem + d->bo_offset, d->length);
	return 0;
}

/* A request the fake device posts: its token is assigned here. */
static inline uint64_t fake_gather_post(uint32_t staging_handle,
					uint64_t offset, uint64_t bytes)
{
	struct ipu_gather_request *r = &fake.gather_q[fake.gather_n++];

	memset(r, 0, sizeof(*r));
	r->token = ++fake.gather_next_token;
	r->staging_handle = staging_handle;
	r->staging_offset = offset;
	r->bytes = bytes;
	r->instance_index = 1;
	r->instance_count = 2;
	r->collective = (uint32_t)fake.gather_n - 1;
	return r->token;
}

static inline int fake_gather_fd(struct ipu_device *dev)
{
	(void)dev;
	fake.gather_calls++;
	return fake.gather_fd ? fake.gather_fd : -EOPNOTSUPP;
}

static inline int fake_gather_next(struct ipu_device *dev,
				   struct ipu_gather_request *req)
{
	(void)dev;
	fake.gather_calls++;
	if (fake.gather_taken == fake.gather_n)
		return -EAGAIN;
	*req = fake.gather_q[fake.gather_taken++];
	/* The backend does not know the front end's objects. */
	req->staging_bo = NULL;
	return 0;
}

/* Like the kernel: a token is answered once, and only one handed out. */
static inline int fake_gather_answer(struct ipu_device *dev, uint64_t token,
				     int status)
{
	int i;

	(void)dev;
	fake.gather_calls++;
	for (i = 0; i < fake.answers; i++)
		if (fake.answered[i] == token)
			return -ENOENT;
	if (!token || token > (uint64_t)fake.gather_taken)
		return -ENOENT;
	fake.answered[fake.answers] = token;
	fake.answer_status[fake.answers++] = status;
	return 0;
}

static const struct ipu_backend_ops fake_ops __attribute__((unused)) = {
	.prefix = "fake",
	.enumerate = fake_enumerate,
	.open = fake_open,
	.close = fake_close,
	.query = fake_query,
	.attach = fake_attach,
	.detach = fake_detach,
	.reset = fake_reset,
	.bo_create = fake_bo_create,
	.bo_destroy = fake_bo_destroy,
	.bo_query = fake_bo_query,
	.bo_map = fake_bo_map,
	.bo_unmap = fake_bo_unmap,
	.xfer = fake_xfer,
	.gather_fd = fake_gather_fd,
	.gather_next = fake_gather_next,
	.gather_answer = fake_gather_answer,
};

/*
 * Group setup/teardown: register the fake and hide the host's real devices
 * (sysfs and /dev point at an empty directory), so no test depends on the
 * machine it runs on.
 */
static inline int fake_group_setup(void **state)
{
	(void)state;
	if (__ipu_backend_register(&fake_ops))
		return -1;
	if (__ipu_set_sysfs_root("/nonexistent-ipu-sysfs") ||
	    __ipu_set_dev_root("/nonexistent-ipu-dev"))
		return -1;
	return 0;
}

static inline int fake_group_teardown(void **state)
{
	(void)state;
	__ipu_backend_unregister(&fake_ops);
	__ipu_set_sysfs_root(NULL);
	__ipu_set_dev_root(NULL);
	return 0;
}

/* Per-test setup: a fresh script. */
static inline int fake_setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	return 0;
}

/* Open "fake:@index" (must succeed). */
static inline struct ipu_device *fake_open_dev(unsigned int index, uint32_t flags)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = flags);
	struct ipu_device *dev = NULL;
	char name[16];

	snprintf(name, sizeof(name), "fake:%u", index);
	assert_int_equal(ipu_device_open(name, &opts, &dev), 0);
	assert_non_null(dev);
	return dev;
}

#define FAKE_TEST(f) cmocka_unit_test_setup(f, fake_setup)

#endif /* IPU_TESTS_FAKE_BACKEND_H */
