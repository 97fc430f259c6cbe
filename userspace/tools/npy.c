// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * npy.c - NumPy .npy files (see npy.h): a reader for hostile input and a
 * writer that produces what np.save() would.
 *
 * The header is a Python literal, but only the small subset np.save()
 * writes is accepted: a dict of exactly the keys 'descr' (a string),
 * 'fortran_order' (True or False) and 'shape' (a tuple of non-negative
 * integers, Python 2's "3L" included), in any order, strings quoted with
 * ' or " and without escapes. Anything else is refused with the byte
 * offset where parsing stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"

#define MAGIC "\x93NUMPY"
#define MAGIC_LEN 6
/* Magic, version, then a 2-byte (1.0) or 4-byte (2.0, 3.0) header length. */
#define PREAMBLE_V1 (MAGIC_LEN + 2 + 2)
#define PREAMBLE_V2 (MAGIC_LEN + 2 + 4)
/* np.save() aligns the data to this (numpy.lib.format.ARRAY_ALIGN). */
#define DATA_ALIGN 64
/* Longest string value worth reading: type strings are a few bytes. */
#define MAX_STR 64

struct npy_type {
	char kind;		/* NumPy's type character */
	unsigned int size;	/* bytes per element */
	uint32_t dtype;		/* enum ipu_dtype */
	const char *descr;	/* how np.save() writes it on a little-endian host */
};

static const struct npy_type types[] = {
	{ 'f', 4, IPU_DTYPE_FLOAT32, "<f4" },
	{ 'f', 8, IPU_DTYPE_FLOAT64, "<f8" },
	{ 'f', 2, IPU_DTYPE_FLOAT16, "<f2" },
	{ 'i', 4, IPU_DTYPE_INT32, "<i4" },
	{ 'i', 8, IPU_DTYPE_INT64, "<i8" },
	{ 'i', 1, IPU_DTYPE_INT8, "|i1" },
	{ 'u', 1, IPU_DTYPE_UINT8, "|u1" },
	{ 'b', 1, IPU_DTYPE_BOOL, "|b1" },
	{ 'i', 2, IPU_DTYPE_INT16, "<i2" },
	{ 'u', 2, IPU_DTYPE_UINT16, "<u2" },
	{ 'u', 4, IPU_DTYPE_UINT32, "<u4" },
};
#define NUM_TYPES (sizeof(types) / sizeof(types[0]))
#define SUPPORTED "<f4 <f8 <f2 <i4 <i8 |i1 |u1 |b1 <i2 <u2 <u4"

static bool host_is_big_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

const char *npy_descr(uint32_t dtype)
{
	for (size_t i = 0; i < NUM_TYPES; i++)
		if (types[i].dtype == dtype)
			return types[i].descr;
	return NULL;
}

char *npy_shape_str(const uint64_t *shape, uint32_t ndim, char *buf,
		    size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	used += (size_t)snprintf(buf, len, "(");
	for (uint32_t i = 0; i < ndim && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%llu",
					 i ? ", " : "",
					 (unsigned long long)shape[i]);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, "%s)",
					 ndim == 1 ? "," : "");
	if (used >= len && len > 4)
		strcpy(buf + len - 5, "...)");
	return buf;
}

void npy_free(struct npy_array *a)
{
	if (!a)
		return;
	free(a->data);
	memset(a, 0, sizeof(*a));
}

/* Elements of @shape, or -EOVERFLOW when the product does not fit. */
static int shape_count(const uint64_t *shape, uint32_t ndim, uint64_t *count)
{
	uint64_t n = 1;

	for (uint32_t i = 0; i < ndim; i++)
		if (__builtin_mul_overflow(n, shape[i], &n))
			return -EOVERFLOW;
	*count = n;
	return 0;
}

static void swap_bytes(uint8_t *p, uint64_t count, unsigned int size)
{
	for (uint64_t i = 0; i < count; i++, p += size)
		for (unsigned int j = 0; j < size / 2; j++) {
			uint8_t t = p[j];

			p[j] = p[size - 1 - j];
			p[size - 1 - j] = t;
		}
}

/* ---------------------------------------------------------------------- */
/* The header dict                                                         */
/* ---------------------------------------------------------------------- */

struct header {
	const char *s;		/* the header's text (not NUL-terminated) */
	size_t len, pos;
	char *err;
	size_t errlen;
	/* what was read */
	char descr[MAX_STR];
	bool fortran_order;
	uint32_t ndim;
	uint64_t shape[NPY_MAX_DIMS];
};

__attribute__((format(printf, 3, 4)))
static int syntax_error(struct header *h, int ret, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return fail(h->err, h->errlen, ret,
		    "header dict unparsable at byte %zu of %zu: %s", h->pos,
		    h->len, what);
}

static void skip_space(struct header *h)
{
	while (h->pos < h->len && (h->s[h->pos] == ' ' || h->s[h->pos] == '\t' ||
				   h->s[h->pos] == '\n' || h->s[h->pos] == '\r'))
		h->pos++;
}

/* The next non-blank character, or 0 at the end. */
static char peek(struct header *h)
{
	skip_space(h);
	return h->pos < h->len ? h->s[h->pos] : 0;
}

static int expect(struct header *h, char c, const char *where)
{
	if (peek(h) != c)
		return syntax_error(h, -EINVAL, "expected '%c' %s", c, where);
	h->pos++;
	return 0;
}

static int parse_string(struct header *h, char *out, const char *what)
{
	char quote = peek(h);
	size_t n = 0;

	if (quote != '\'' && quote != '"')
		return syntax_error(h, -EINVAL, "expected a quoted %s", what);
	h->pos++;
	/* Python strings end at the line's end too. */
	for (; h->pos < h->len && h->s[h->pos] != quote &&
	       h->s[h->pos] != '\n'; h->pos++, n++) {
		char c = h->s[h->pos];

		if (c == '\\' || c == '\0')
			return syntax_error(h, -EINVAL,
					    "unsupported character 0x%02x in a string",
					    (unsigned char)c);
		if (n + 1 >= MAX_STR)
			return syntax_error(h, -EINVAL, "%s longer than %d bytes",
					    what, MAX_STR - 1);
		out[n] = c;
	}
	if (h->pos >= h->len || h->s[h->pos] != quote)
		return syntax_error(h, -EINVAL, "unterminated string");
	h->pos++;
	out[n] = '\0';
	return 0;
}

static int parse_bool(struct header *h, bool *v)
{
	static const char *const words[2] = { "False", "True" };

	peek(h);
	for (int i = 0; i < 2; i++) {
		size_t n = strlen(words[i]);

		if (h->len - h->pos >= n && !memcmp(h->s + h->pos, words[i], n)) {
			h->pos += n;
			*v = i;
			return 0;
		}
	}
	return syntax_error(h, -EINVAL, "expected True or False");
}

static int parse_dim(struct header *h, uint64_t *v)
{
	uint64_t n = 0;
	size_t start;

	if (peek(h) == '-')
		return syntax_error(h, -EINVAL, "negative dimension");
	start = h->pos;
	for (; h->pos < h->len && h->s[h->pos] >= '0' && h->s[h->pos] <= '9';
	     h->pos++) {
		unsigned int d = (unsigned int)(h->s[h->pos] - '0');

		if (n > (UINT64_MAX - d) / 10)
			return syntax_error(h, -EOVERFLOW,
					    "dimension too large");
		n = n * 10 + d;
	}
	if (h->pos == start)
		return syntax_error(h, -EINVAL, "expected a dimension");
	/* Python 2's long literals: NumPy once wrote (3L, 4L). */
	if (h->pos < h->len && h->s[h->pos] == 'L')
		h->pos++;
	*v = n;
	return 0;
}

/* A tuple: "()", "(3,)", "(2, 3)", "(2, 3,)". */
static int parse_shape(struct header *h)
{
	bool comma = false; /* after the last dimension */
	int ret = expect(h, '(', "to open the shape tuple");

	h->ndim = 0;
	while (!ret && peek(h) != ')') {
		if (h->ndim == NPY_MAX_DIMS)
			return syntax_error(h, -ENOTSUP,
					    "more than %d dimensions",
					    NPY_MAX_DIMS);
		ret = parse_dim(h, &h->shape[h->ndim++]);
		comma = !ret && peek(h) != ')';
		if (comma)
			ret = expect(h, ',', "between dimensions");
	}
	/* "(3)" is an int in Python, not a tuple. */
	if (!ret && h->ndim == 1 && !comma)
		ret = syntax_error(h, -EINVAL,
				   "a one-dimensional shape needs a trailing comma");
	return ret ?: expect(h, ')', "to close the shape tuple");
}

enum { KEY_DESCR, KEY_FORTRAN, KEY_SHAPE, NUM_KEYS };

static int parse_value(struct header *h, int key)
{
	switch (key) {
	case KEY_DESCR:
		if (peek(h) == '[')
			return syntax_error(h, -ENOTSUP,
					    "structured dtypes are not supported");
		return parse_string(h, h->descr, "descr");
	case KEY_FORTRAN:
		return parse_bool(h, &h->fortran_order);
	default:
		return parse_shape(h);
	}
}

static int parse_dict(struct header *h)
{
	static const char *const keys[NUM_KEYS] = { "descr", "fortran_order",
						    "shape" };
	bool seen[NUM_KEYS] = { false };
	int ret = expect(h, '{', "at the start of the header");

	while (!ret && peek(h) != '}') {
		char key[MAX_STR];
		int k = 0;

		ret = parse_string(h, key, "key");
		if (ret)
			return ret;
		while (k < NUM_KEYS && strcmp(key, keys[k]))
			k++;
		if (k == NUM_KEYS)
			return syntax_error(h, -EINVAL, "unexpected key '%s'",
					    key);
		if (seen[k])
			return syntax_error(h, -EINVAL,
					    "key '%s' appears twice", key);
		seen[k] = true;
		ret = expect(h, ':', "after a key") ?: parse_value(h, k);
		if (!ret && peek(h) != '}')
			ret = expect(h, ',', "between entries");
	}
	ret = ret ?: expect(h, '}', "at the end of the dict");
	if (!ret && peek(h))
		ret = syntax_error(h, -EINVAL, "characters after the dict");
	for (int k = 0; !ret && k < NUM_KEYS; k++)
		if (!seen[k])
			ret = fail(h->err, h->errlen, -EINVAL,
				   "header dict lacks the key '%s'", keys[k]);
	return ret;
}

/* The type of a descr such as "<f4", and whether its bytes need swapping. */
static int parse_descr(const char *descr, const struct npy_type **type,
		       bool *swap, char *err, size_t errlen)
{
	char order = descr[0], kind = order ? descr[1] : '\0';
	char *end;
	unsigned long size;

	if (order && strchr("<>|=", order) && kind && descr[2] >= '1' &&
	    descr[2] <= '9') {
		size = strtoul(descr + 2, &end, 10);
		for (size_t i = 0; !*end && i < NUM_TYPES; i++) {
			if (types[i].kind != kind || types[i].size != size)
				continue;
			if (size > 1 && (order == '|' || order == '='))
				return fail(err, errlen, -ENOTSUP,
					    "dtype '%s': byte order '%c' of a multi-byte type is not portable (use '<' or '>')",
					    descr, order);
			*type = &types[i];
			*swap = size > 1 && (order == '>') != host_is_big_endian();
			return 0;
		}
	}
	return fail(err, errlen, -ENOTSUP,
		    "unsupported dtype '%s' (supported: " SUPPORTED ")", descr);
}

/* ---------------------------------------------------------------------- */
/* Reading                                                                 */
/* ---------------------------------------------------------------------- */

/* The header's position and length after the preamble. */
static int parse_preamble(const uint8_t *b, size_t len, size_t *hdr_off,
			  size_t *hdr_len, char *err, size_t errlen)
{
	uint32_t n;

	if (len < MAGIC_LEN || memcmp(b, MAGIC, MAGIC_LEN))
		return fail(err, errlen, -EINVAL,
			    "not a .npy file (bad magic: it must start with \\x93NUMPY)");
	if (len < MAGIC_LEN + 2)
		return fail(err, errlen, -EINVAL,
			    "truncated: %zu bytes end before the version", len);
	if (b[6] < 1 || b[6] > 3 || b[7] != 0)
		return fail(err, errlen, -ENOTSUP,
			    "unsupported format version %u.%u (1.0, 2.0 and 3.0 are)",
			    b[6], b[7]);
	*hdr_off = b[6] == 1 ? PREAMBLE_V1 : PREAMBLE_V2;
	if (len < *hdr_off)
		return fail(err, errlen, -EINVAL,
			    "truncated: %zu bytes end before the header length",
			    len);
	n = (uint32_t)b[8] | (uint32_t)b[9] << 8;
	if (b[6] > 1)
		n |= (uint32_t)b[10] << 16 | (uint32_t)b[11] << 24;
	if (n > len - *hdr_off)
		return fail(err, errlen, -EINVAL,
			    "header truncated: it claims %u bytes, the file has %zu after the preamble",
			    n, len - *hdr_off);
	*hdr_len = n;
	return 0;
}

int npy_parse(const void *buf, size_t len, struct npy_array *a, char *err,
	      size_t errlen)
{
	const uint8_t *b = buf;
	struct header h = { .err = err, .errlen = errlen };
	const struct npy_type *type = NULL;
	size_t hdr_off = 0, data_off;
	uint64_t count, nbytes;
	bool swap = false;
	char shape[96];
	int ret;

	if (!a)
		return fail(err, errlen, -EINVAL, "no array to fill");
	memset(a, 0, sizeof(*a));
	if (!buf && len)
		return fail(err, errlen, -EINVAL, "no buffer");
	ret = parse_preamble(b, len, &hdr_off, &h.len, err, errlen);
	if (ret)
		return ret;
	h.s = (const char *)b + hdr_off;
	ret = parse_dict(&h) ?:
	      parse_descr(h.descr, &type, &swap, err, errlen);
	if (ret)
		return ret;
	if (h.fortran_order)
		return fail(err, errlen, -ENOTSUP,
			    "fortran_order is True: only C order is supported (save np.ascontiguousarray(a))");
	npy_shape_str(h.shape, h.ndim, shape, sizeof(shape));
	if (shape_count(h.shape, h.ndim, &count) ||
	    __builtin_mul_overflow(count, type->size, &nbytes) ||
	    nbytes > SIZE_MAX)
		return fail(err, errlen, -EOVERFLOW,
			    "shape %s of %s is too large", shape, h.descr);
	data_off = hdr_off + h.len;
	if (len - data_off != nbytes)
		return fail(err, errlen, -EINVAL,
			    "data is %zu bytes, but shape %s of '%s' needs %llu",
			    len - data_off, shape, h.descr,
			    (unsigned long long)nbytes);
	/* malloc() aligns for every element type; the file's bytes may not
	 * be aligned at all. */
	a->data = malloc(nbytes ? nbytes : 1);
	if (!a->data)
		return fail(err, errlen, -ENOMEM, "out of memory for %llu bytes",
			    (unsigned long long)nbytes);
	memcpy(a->data, b + data_off, nbytes);
	if (swap)
		swap_bytes(a->data, count, type->size);
	if (type->dtype == IPU_DTYPE_BOOL)
		for (uint64_t i = 0; i < count; i++)
			((uint8_t *)a->data)[i] = ((uint8_t *)a->data)[i] != 0;
	a->dtype = type->dtype;
	a->ndim = h.ndim;
	memcpy(a->shape, h.shape, sizeof(a->shape));
	a->count = count;
	return 0;
}

int npy_read_file(const char *path, struct npy_array *a, char *err,
		  size_t errlen)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	char msg[512];
	FILE *f;
	int ret = 0;

	if (!path || !a)
		return fail(err, errlen, -EINVAL, "no path or no array");
	memset(a, 0, sizeof(*a));
	f = fopen(path, "rb");
	if (!f)
		return fail(err, errlen, -errno, "%s: cannot open: %s", path,
			    strerror(errno));
	/* Read to the end rather than trusting a size: pipes work too. */
	for (;;) {
		size_t n;

		if (len == cap) {
			size_t ncap = cap ? 2 * cap : 1 << 16;
			uint8_t *nbuf = ncap > cap ? realloc(buf, ncap) : NULL;

			if (!nbuf) {
				ret = fail(err, errlen, -ENOMEM,
					   "%s: out of memory reading it", path);
				goto out;
			}
			buf = nbuf;
			cap = ncap;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		ret = fail(err, errlen, -EIO, "%s: read error", path);
		goto out;
	}
	ret = npy_parse(buf, len, a, msg, sizeof(msg));
	if (ret)
		fail(err, errlen, ret, "%s: %s", path, msg);
out:
	free(buf);
	fclose(f);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Writing                                                                 */
/* ---------------------------------------------------------------------- */

int npy_format(const struct npy_array *a, void **bufp, size_t *lenp,
	       char *err, size_t errlen)
{
	char dict[64 + NPY_MAX_DIMS * 24], shape[NPY_MAX_DIMS * 24];
	const char *descr;
	size_t dict_len, preamble, hdr_len, total, size;
	uint64_t count, nbytes;
	uint8_t *out;

	if (!a || !bufp || !lenp)
		return fail(err, errlen, -EINVAL, "no array or no result pointer");
	descr = npy_descr(a->dtype);
	if (!descr)
		return fail(err, errlen, -EINVAL,
			    "dtype %s has no NumPy equivalent: convert it first",
			    ipu_dtype_name(a->dtype));
	if (a->ndim > NPY_MAX_DIMS)
		return fail(err, errlen, -EINVAL, "%u dimensions (at most %d)",
			    a->ndim, NPY_MAX_DIMS);
	size = ipu_dtype_size(a->dtype);
	if (shape_count(a->shape, a->ndim, &count) ||
	    __builtin_mul_overflow(count, size, &nbytes) || nbytes > SIZE_MAX)
		return fail(err, errlen, -EOVERFLOW, "the shape is too large");
	if (count != a->count || (count && !a->data))
		return fail(err, errlen, -EINVAL,
			    "%llu elements, but the shape holds %llu",
			    a->data ? (unsigned long long)a->count : 0ULL,
			    (unsigned long long)count);
	npy_shape_str(a->shape, a->ndim, shape, sizeof(shape));
	dict_len = (size_t)snprintf(dict, sizeof(dict),
				    "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
				    descr, shape);
	/* Spaces, then a newline, up to the alignment (np.save()'s layout). */
	preamble = PREAMBLE_V1;
	hdr_len = dict_len + 1;
	hdr_len += (DATA_ALIGN - (preamble + hdr_len) % DATA_ALIGN) % DATA_ALIGN;
	if (hdr_len > UINT16_MAX) {
		preamble = PREAMBLE_V2;
		hdr_len = dict_len + 1;
		hdr_len += (DATA_ALIGN - (preamble + hdr_len) % DATA_ALIGN) %
			   DATA_ALIGN;
	}
	if (__builtin_add_overflow(preamble + hdr_len, (size_t)nbytes, &total))
		return fail(err, errlen, -EOVERFLOW, "the array is too large");
	out = malloc(total);
	if (!out)
		return fail(err, errlen, -ENOMEM, "out of memory for %zu bytes",
			    total);
	memcpy(out, MAGIC, MAGIC_LEN);
	out[6] = preamble == PREAMBLE_V1 ? 1 : 2;
	out[7] = 0;
	for (size_t i = 0; i < preamble - MAGIC_LEN - 2; i++)
		out[8 + i] = (uint8_t)(hdr_len >> (8 * i));
	memcpy(out + preamble, dict, dict_len);
	memset(out + preamble + dict_len, ' ', hdr_len - dict_len - 1);
	out[preamble + hdr_len - 1] = '\n';
	if (nbytes)
		memcpy(out + preamble + hdr_len, a->data, nbytes);
	/* The descrs say '<': a big-endian host writes swapped bytes. */
	if (host_is_big_endian() && size > 1)
		swap_bytes(out + preamble + hdr_len, count, (unsigned int)size);
	*bufp = out;
	*lenp = total;
	return 0;
}

int npy_write_fd(int fd, const char *path, const struct npy_array *a,
		 char *err, size_t errlen)
{
	void *buf = NULL;
	size_t len = 0, done = 0;
	struct stat st;
	char msg[512];
	ssize_t n;
	int ret;

	ret = npy_format(a, &buf, &len, msg, sizeof(msg));
	if (ret)
		return fail(err, errlen, ret, "%s: %s", path, msg);
	/*
	 * A regular file is rewritten from its start; anything else (a FIFO,
	 * a terminal: -o y=/dev/stdout in a pipe) has no length to cut and
	 * takes the bytes as they come.
	 */
	if (fstat(fd, &st) ||
	    (S_ISREG(st.st_mode) && (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET)))) {
		ret = fail(err, errlen, -errno, "%s: cannot write: %s", path,
			   strerror(errno));
		goto out;
	}
	while (done < len) {
		n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = fail(err, errlen, n ? -errno : -EIO, "%s: cannot write: %s",
				   path, n ? strerror(errno) : "no progress");
			goto out;
		}
		done += (size_t)n;
	}
out:
	free(buf);
	return ret;
}

int npy_write_file(const char *path, const struct npy_array *a, char *err,
		   size_t errlen)
{
	int fd, ret;

	if (!path)
		return fail(err, errlen, -EINVAL, "no path");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return fail(err, errlen, -errno, "%s: cannot create: %s", path,
			    strerror(errno));
	ret = npy_write_fd(fd, path, a, err, errlen);
	if (close(fd) && !ret)
		ret = fail(err, errlen, -errno, "%s: cannot write: %s", path,
			   strerror(errno));
	return ret;
}
