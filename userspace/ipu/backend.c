// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * backend.c - the registry of backends: which one serves "<prefix>:N".
 *
 * Built in: "hw" (the kernel driver), then "model" (the in-process
 * software IPU); tests add fakes with __ipu_backend_register().
 */
#include <errno.h>
#include <string.h>

#include "backend.h"

static const struct ipu_backend_ops *const builtin[] = {
	&ipu_backend_kernel,
	&ipu_backend_model,
};

#define NBUILTIN (sizeof(builtin) / sizeof(builtin[0]))
#define NEXTRA 4

static const struct ipu_backend_ops *extra[NEXTRA];

const struct ipu_backend_ops *ipu_backend_at(size_t i)
{
	size_t j;

	if (i < NBUILTIN)
		return builtin[i];
	i -= NBUILTIN;
	for (j = 0; j < NEXTRA; j++) {
		if (!extra[j])
			continue;
		if (i-- == 0)
			return extra[j];
	}
	return NULL;
}

const struct ipu_backend_ops *ipu_backend_find(const char *prefix, size_t len)
{
	const struct ipu_backend_ops *ops;
	size_t i;

	for (i = 0; (ops = ipu_backend_at(i)); i++)
		if (strlen(ops->prefix) == len && !memcmp(ops->prefix, prefix, len))
			return ops;
	return NULL;
}

int __ipu_backend_register(const struct ipu_backend_ops *ops)
{
	size_t i;

	if (!ops || !ops->prefix || !ops->prefix[0] || !ops->open)
		return -EINVAL;
	if (ipu_backend_find(ops->prefix, strlen(ops->prefix)))
		return -EEXIST;
	for (i = 0; i < NEXTRA; i++) {
		if (!extra[i]) {
			extra[i] = ops;
			return 0;
		}
	}
	return -ENOSPC;
}

int __ipu_backend_unregister(const struct ipu_backend_ops *ops)
{
	size_t i;

	for (i = 0; i < NEXTRA; i++) {
		if (ops && extra[i] == ops) {
			extra[i] = NULL;
			return 0;
		}
	}
	return -ENOENT;
}
