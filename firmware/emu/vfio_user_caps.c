// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * vfio_user_caps.c - the VERSION message's capabilities JSON. Debian has no
 * JSON library this project links, and the document is tiny, so this is a
 * strict recursive-descent reader of RFC 8259 JSON with a depth limit: it
 * validates the whole document (a client that sends garbage is refused,
 * not half-understood) and keeps only the members vfio-user defines.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vfio_user_caps.h"
#include "vfio_user_proto.h"

#define MAX_DEPTH	8

struct reader {
	const char *p, *end;
	int depth;
};

/* What a value turned out to be, for the members whose type is checked. */
enum jtype { J_OTHER, J_UINT, J_BOOL, J_OBJECT };

struct jval {
	enum jtype type;
	uint64_t num;
	bool b;
};

static void skip_ws(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
				 *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static bool eat(struct reader *r, char c)
{
	skip_ws(r);
	if (r->p < r->end && *r->p == c) {
		r->p++;
		return true;
	}
	return false;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* A string; its raw bytes (escapes left as they are) go to @out, which is
 * only compared with member names that have no escapes. */
static int read_string(struct reader *r, const char **out, size_t *len)
{
	const char *start;

	if (!eat(r, '"'))
		return -EINVAL;
	start = r->p;
	while (r->p < r->end && *r->p != '"') {
		unsigned char c = (unsigned char)*r->p;

		if (c < 0x20)
			return -EINVAL;
		if (c == '\\') {
			if (++r->p >= r->end)
				return -EINVAL;
			if (*r->p == 'u') {
				if (r->end - r->p < 5 || !is_hex(r->p[1]) ||
				    !is_hex(r->p[2]) || !is_hex(r->p[3]) ||
				    !is_hex(r->p[4]))
					return -EINVAL;
				r->p += 4;
			} else if (!strchr("\"\\/bfnrt", *r->p)) {
				return -EINVAL;
			}
		}
		r->p++;
	}
	if (r->p >= r->end)
		return -EINVAL;
	if (out) {
		*out = start;
		*len = (size_t)(r->p - start);
	}
	r->p++;
	return 0;
}

/* A number; an unsigned integer that fits 64 bits is kept as J_UINT. */
static int read_number(struct reader *r, struct jval *v)
{
	bool neg = false, integer = true, overflow = false;
	uint64_t num = 0;

	if (r->p < r->end && *r->p == '-') {
		neg = true;
		r->p++;
	}
	if (r->p >= r->end || *r->p < '0' || *r->p > '9')
		return -EINVAL;
	if (*r->p == '0') {
		r->p++;
	} else {
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
			unsigned int d = (unsigned int)(*r->p - '0');

			if (__builtin_mul_overflow(num, 10, &num) ||
			    __builtin_add_overflow(num, d, &num))
				overflow = true;
			r->p++;
		}
	}
	if (r->p < r->end && *r->p == '.') {
		integer = false;
		r->p++;
		if (r->p >= r->end || *r->p < '0' || *r->p > '9')
			return -EINVAL;
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		integer = false;
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (r->p >= r->end || *r->p < '0' || *r->p > '9')
			return -EINVAL;
		while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
			r->p++;
	}
	v->type = integer && !neg && !overflow ? J_UINT : J_OTHER;
	v->num = num;
	return 0;
}

static bool read_word(struct reader *r, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
		return false;
	r->p += n;
	return true;
}

typedef int member_fn(struct reader *r, const char *name, size_t len,
		      void *ctx);

static int read_value(struct reader *r, struct jval *v, member_fn *fn,
		      void *ctx);

/* An object; @fn (or skipping, when NULL) reads each member's value. */
static int read_object(struct reader *r, member_fn *fn, void *ctx)
{
	int ret;

	if (!eat(r, '{'))
		return -EINVAL;
	if (++r->depth > MAX_DEPTH)
		return -EINVAL;
	if (eat(r, '}'))
		goto out;
	do {
		const char *name;
		size_t len;
		struct jval v;

		ret = read_string(r, &name, &len);
		if (ret)
			return ret;
		if (!eat(r, ':'))
			return -EINVAL;
		ret = fn ? fn(r, name, len, ctx) : read_value(r, &v, NULL, NULL);
		if (ret)
			return ret;
	} while (eat(r, ','));
	if (!eat(r, '}'))
		return -EINVAL;
out:
	r->depth--;
	return 0;
}

static int read_array(struct reader *r)
{
	struct jval v;
	int ret;

	if (!eat(r, '['))
		return -EINVAL;
	if (++r->depth > MAX_DEPTH)
		return -EINVAL;
	if (!eat(r, ']')) {
		do {
			ret = read_value(r, &v, NULL, NULL);
			if (ret)
				return ret;
		} while (eat(r, ','));
		if (!eat(r, ']'))
			return -EINVAL;
	}
	r->depth--;
	return 0;
}

/* Any value; an object's members go to @fn when given. */
static int read_value(struct reader *r, struct jval *v, member_fn *fn,
		      void *ctx)
{
	v->type = J_OTHER;
	skip_ws(r);
	if (r->p >= r->end)
		return -EINVAL;
	switch (*r->p) {
	case '{':
		v->type = J_OBJECT;
		return read_object(r, fn, ctx);
	case '[':
		return read_array(r);
	case '"':
		return read_string(r, NULL, NULL);
	case 't':
		v->type = J_BOOL;
		v->b = true;
		return read_word(r, "true") ? 0 : -EINVAL;
	case 'f':
		v->type = J_BOOL;
		v->b = false;
		return read_word(r, "false") ? 0 : -EINVAL;
	case 'n':
		return read_word(r, "null") ? 0 : -EINVAL;
	default:
		return read_number(r, v);
	}
}

static bool named(const char *name, size_t len, const char *want)
{
	return strlen(want) == len && !memcmp(name, want, len);
}

static int twin_member(struct reader *r, const char *name, size_t len,
		       void *ctx)
{
	struct vfu_caps *caps = ctx;
	struct jval v;
	int ret = read_value(r, &v, NULL, NULL);

	if (ret)
		return ret;
	if (named(name, len, "supported")) {
		if (v.type != J_BOOL)
			return -EINVAL;
		caps->twin_socket = v.b;
	}
	return 0;
}

static int uint_member(struct reader *r, bool *has, uint64_t *out)
{
	struct jval v;
	int ret = read_value(r, &v, NULL, NULL);

	if (ret)
		return ret;
	if (v.type != J_UINT)
		return -EINVAL;
	*has = true;
	*out = v.num;
	return 0;
}

static int caps_member(struct reader *r, const char *name, size_t len,
		       void *ctx)
{
	struct vfu_caps *c = ctx;
	struct jval v;
	int ret;

	if (named(name, len, "max_msg_fds"))
		return uint_member(r, &c->has_max_msg_fds, &c->max_msg_fds);
	if (named(name, len, "max_data_xfer_size"))
		return uint_member(r, &c->has_max_data_xfer_size,
				   &c->max_data_xfer_size);
	if (named(name, len, "pgsizes"))
		return uint_member(r, &c->has_pgsizes, &c->pgsizes);
	if (named(name, len, "max_dma_maps"))
		return uint_member(r, &c->has_max_dma_maps, &c->max_dma_maps);
	if (named(name, len, "twin_socket")) {
		skip_ws(r);
		if (r->p >= r->end || *r->p != '{')
			return -EINVAL;
		c->has_twin_socket = true;
		return read_object(r, twin_member, c);
	}
	ret = read_value(r, &v, NULL, NULL);
	if (ret)
		return ret;
	if (named(name, len, "write_multiple")) {
		if (v.type != J_BOOL)
			return -EINVAL;
		c->has_write_multiple = true;
		c->write_multiple = v.b;
	} else if (named(name, len, "migration")) {
		if (v.type != J_OBJECT)
			return -EINVAL;
		c->has_migration = true;
	}
	return 0;
}

static int top_member(struct reader *r, const char *name, size_t len,
		      void *ctx)
{
	struct jval v;

	if (!named(name, len, "capabilities"))
		return read_value(r, &v, NULL, NULL);
	skip_ws(r);
	if (r->p >= r->end || *r->p != '{')
		return -EINVAL;
	return read_object(r, caps_member, ctx);
}

static void caps_defaults(struct vfu_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->max_msg_fds = VFU_DEFAULT_MAX_FDS;
	caps->max_data_xfer_size = VFU_DEFAULT_MAX_XFER;
	caps->pgsizes = VFU_DEFAULT_PGSIZES;
	caps->max_dma_maps = VFU_DEFAULT_MAX_DMA_MAPS;
}

int vfu_caps_parse(const char *json, size_t len, struct vfu_caps *caps)
{
	struct reader r = { json, json + len, 0 };
	int ret;

	caps_defaults(caps);
	if (!json)
		return 0;
	skip_ws(&r);
	if (r.p >= r.end || *r.p != '{')
		return -EINVAL;
	ret = read_object(&r, top_member, caps);
	if (ret)
		goto bad;
	skip_ws(&r);
	if (r.p != r.end) {
		ret = -EINVAL;
		goto bad;
	}
	return 0;
bad:
	caps_defaults(caps);
	return ret;
}

int vfu_caps_reply(const struct vfu_caps *client, const struct vfu_caps *ours,
		   char *buf, size_t size)
{
	const struct {
		bool has;
		const char *name;
		uint64_t value;
	} m[] = {
		{ client->has_max_msg_fds, "max_msg_fds", ours->max_msg_fds },
		{ client->has_max_data_xfer_size, "max_data_xfer_size",
		  ours->max_data_xfer_size },
		{ client->has_pgsizes, "pgsizes", ours->pgsizes },
		{ client->has_max_dma_maps, "max_dma_maps",
		  ours->max_dma_maps },
	};
	size_t used = 0;
	const char *sep = "";
	int n;

	n = snprintf(buf, size, "{\"capabilities\":{");
	if (n < 0 || (size_t)n >= size)
		return -E2BIG;
	used = (size_t)n;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		if (!m[i].has)
			continue;
		n = snprintf(buf + used, size - used, "%s\"%s\":%llu", sep,
			     m[i].name, (unsigned long long)m[i].value);
		if (n < 0 || (size_t)n >= size - used)
			return -E2BIG;
		used += (size_t)n;
		sep = ",";
	}
	n = snprintf(buf + used, size - used, "}}");
	if (n < 0 || (size_t)n >= size - used)
		return -E2BIG;
	return (int)(used + (size_t)n);
}
