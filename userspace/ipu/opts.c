// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * opts.c - extensible structs (libbpf's OPTS, the UAPI's size rules).
 *
 * A struct starts with `size_t sz`, the size the caller was built with.
 * Inputs: smaller than the first version is -EINVAL; bytes past what this
 * library knows must be zero (-E2BIG), so a new caller's option is never
 * silently ignored by an old library. Outputs: the library writes what it
 * knows and zeroes the rest of the caller's struct.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

int ipu_opts_check(const void *opts, size_t sz, size_t min, size_t known)
{
	const unsigned char *p = opts;
	size_t i;

	if (sz < min)
		return -EINVAL;
	for (i = known; i < sz; i++)
		if (p[i])
			return -E2BIG;
	return 0;
}

int ipu_out_copy(void *dst, size_t sz, const void *src, size_t min,
		 size_t known)
{
	size_t n = sz < known ? sz : known;

	if (sz < min)
		return -EINVAL;
	/* Keep the caller's sz: copy what follows it. */
	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       n - sizeof(size_t));
	if (sz > known)
		memset((char *)dst + known, 0, sz - known);
	return 0;
}
