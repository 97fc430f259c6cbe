/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * attr.h - reading sysfs-like attribute files: one short value per file,
 * treated as untrusted (a driver with a bug, a file that changed while
 * read, a fake tree in the tests). A value is taken only when it is
 * whole: too long is -EOVERFLOW; empty, signed, padded or followed by
 * garbage is -EINVAL.
 *
 * Internal to this tree: libipu's enumeration (sysfs.c) uses it, and the
 * tools (ipu-info, ipu-bringup), which link libipu's archive, include
 * this header by its relative path. The shared library does not export
 * it (libipu.map), so it is no part of the ABI.
 */
#ifndef IPU_ATTR_H
#define IPU_ATTR_H

#include <stddef.h>
#include <stdint.h>

/*
 * ipu_attr_read() - the first line of the file at @path into @buf (@len
 * bytes, at least 2), without its newline. 0, or -errno; -EOVERFLOW when
 * the value does not fit.
 */
int ipu_attr_read(const char *path, char *buf, size_t len);

/* An unsigned number in @base (0: C's prefixes): 0 or -errno. */
int ipu_attr_read_u64(const char *path, int base, uint64_t *val);

/* A signed decimal number: 0 or -errno. */
int ipu_attr_read_s64(const char *path, long long *val);

/*
 * ipu_parse_node_name() - N of "ipuN" (decimal, no sign, no leading
 * zero, at most INT_MAX): 0, or -EINVAL for anything else.
 */
int ipu_parse_node_name(const char *s, unsigned int *index);

#endif /* IPU_ATTR_H */
