/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * npy.h - NumPy's .npy array files, read and written: how ipu-run takes
 * inputs from, and gives outputs to, Python.
 *
 * The format (numpy/lib/format.py, NEP 1): the magic "\x93NUMPY", a major
 * and a minor version byte, the header's length (2 bytes little-endian in
 * version 1.0, 4 in 2.0 and 3.0), then the header, a Python dict literal
 *
 *	{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 *
 * padded with spaces and a newline, then the elements. Versions 1.0, 2.0
 * and 3.0 (3.0 only allows UTF-8 in the header) are read.
 *
 * Element types: '<f4' float32, '<f8' float64, '<f2' float16, '<i4'
 * int32, '<i8' int64, '|i1' int8, '|u1' uint8, '|b1' bool (as enum
 * ipu_dtype). Big-endian ('>') files are converted to the host's order; a
 * single-byte type may carry any byte-order mark. NumPy has no bfloat16 or
 * FP8: such arrays cannot be written (convert them first). Only C order:
 * fortran_order True is refused.
 *
 * The reader treats every file as hostile: every length and count is
 * checked, a malformed file is an error whose message says what is wrong,
 * never a crash. Functions return 0 or a negative errno; none touches
 * errno as its interface.
 */
#ifndef IPU_TOOLS_NPY_H
#define IPU_TOOLS_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "ipu/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dimensions of an array: NumPy 1.x's limit (NPY_MAXDIMS). */
#define NPY_MAX_DIMS 32

/**
 * struct npy_array - an array in memory.
 * @dtype: enum ipu_dtype of the elements.
 * @ndim: dimensions, 0 (a scalar) to NPY_MAX_DIMS.
 * @shape: the dimensions; entries from @ndim on are 0.
 * @count: elements: the product of @shape (1 for a scalar, 0 when a
 *	dimension is 0).
 * @data: @count elements in C order and host byte order, aligned for any
 *	element type; owned by the array when npy_parse() or npy_read_file()
 *	filled it (free with npy_free()), else by whoever set it.
 */
struct npy_array {
	uint32_t dtype;
	uint32_t ndim;
	uint64_t shape[NPY_MAX_DIMS];
	uint64_t count;
	void *data;
};

/**
 * npy_parse() - read an array from the bytes of a .npy file.
 * @buf, @len: the file's bytes; not referenced after the call.
 * @a: out: the array, its @data allocated; zeroed on failure.
 * @err, @errlen: out: on failure, what is wrong (bad magic, unsupported
 *	version, truncated header, a header dict that does not parse and
 *	where, unsupported dtype, Fortran order, a data length that does not
 *	match the shape, ...); may be NULL.
 *
 * bool elements other than 0 and 1 read as 1.
 *
 * Return: 0; -EINVAL for a malformed file; -ENOTSUP for a well-formed one
 * that this reader does not support (dtype, Fortran order, version);
 * -EOVERFLOW for a shape whose size does not fit in memory; -ENOMEM.
 */
int npy_parse(const void *buf, size_t len, struct npy_array *a, char *err,
	      size_t errlen);

/**
 * npy_format() - the bytes of a .npy file holding @a: version 1.0 (2.0 if
 * the header needs it), the header padded so the data starts at a multiple
 * of 64 bytes, as NumPy writes it.
 * @bufp, @lenp: out: a malloc()ed buffer; the caller frees it.
 *
 * Return: 0; -EINVAL for a NULL argument, an inconsistent @a (count vs
 * shape, NULL data with elements) or a dtype NumPy lacks (bfloat16, FP8);
 * -EOVERFLOW; -ENOMEM.
 */
int npy_format(const struct npy_array *a, void **bufp, size_t *lenp,
	       char *err, size_t errlen);

/**
 * npy_read_file() - npy_parse() of the file at @path (a regular file or
 * anything readable to its end, e.g. a pipe). Messages start with @path.
 *
 * Return: as npy_parse(), plus the -errno of opening or reading.
 */
int npy_read_file(const char *path, struct npy_array *a, char *err,
		  size_t errlen);

/**
 * npy_write_file() - npy_format() @a into the file at @path, created or
 * truncated. Messages start with @path.
 *
 * Return: as npy_format(), plus the -errno of creating or writing.
 */
int npy_write_file(const char *path, const struct npy_array *a, char *err,
		   size_t errlen);

/**
 * npy_write_fd() - npy_format() @a into the open file @fd, from its start,
 * cutting what was there (a file opened before the data was known, to
 * fail early). @fd stays open. Messages start with @path.
 *
 * Return: as npy_write_file().
 */
int npy_write_fd(int fd, const char *path, const struct npy_array *a,
		 char *err, size_t errlen);

/** npy_free() - free @a's data and zero it; NULL is a no-op. */
void npy_free(struct npy_array *a);

/**
 * npy_descr() - the .npy type string of @dtype ("<f4", "|b1", ...), or
 * NULL for a type NumPy lacks.
 */
const char *npy_descr(uint32_t dtype);

/**
 * npy_shape_str() - @shape as Python prints a tuple: "()", "(3,)",
 * "(2, 3)", truncated with "...)" if @len is too small.
 *
 * Return: @buf.
 */
char *npy_shape_str(const uint64_t *shape, uint32_t ndim, char *buf,
		    size_t len);

#ifdef __cplusplus
}
#endif

#endif /* IPU_TOOLS_NPY_H */
