/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * json_check.h - a strict JSON (RFC 8259) validator for tests of JSON
 * output, where no Python is at hand (the kernel tests' guest) or a
 * process per check is too slow: json_check() parses the whole text and
 * says where it stops being JSON. It checks syntax only; a test then
 * looks for the members it expects.
 */
#ifndef IPU_TESTS_JSON_CHECK_H
#define IPU_TESTS_JSON_CHECK_H

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

struct json_parser {
	const char *s;
	int depth;
};

static inline void json_ws(struct json_parser *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' ||
	       *p->s == '\r')
		p->s++;
}

static inline bool json_lit(struct json_parser *p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(p->s, lit, n))
		return false;
	p->s += n;
	return true;
}

static inline bool json_string(struct json_parser *p)
{
	int i;

	if (*p->s++ != '"')
		return false;
	for (;;) {
		unsigned char c = (unsigned char)*p->s++;

		if (c == '"')
			return true;
		if (c < 0x20)
			return false;	/* also the end of the text */
		if (c != '\\')
			continue;
		c = (unsigned char)*p->s++;
		if (c == 'u') {
			for (i = 0; i < 4; i++)
				if (!isxdigit((unsigned char)*p->s++))
					return false;
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return false;
		}
	}
}

static inline bool json_number(struct json_parser *p)
{
	if (*p->s == '-')
		p->s++;
	if (*p->s == '0')
		p->s++;
	else if (*p->s >= '1' && *p->s <= '9')
		while (isdigit((unsigned char)*p->s))
			p->s++;
	else
		return false;
	if (*p->s == '.') {
		p->s++;
		if (!isdigit((unsigned char)*p->s))
			return false;
		while (isdigit((unsigned char)*p->s))
			p->s++;
	}
	if (*p->s == 'e' || *p->s == 'E') {
		p->s++;
		if (*p->s == '+' || *p->s == '-')
			p->s++;
		if (!isdigit((unsigned char)*p->s))
			return false;
		while (isdigit((unsigned char)*p->s))
			p->s++;
	}
	return true;
}

static inline bool json_value(struct json_parser *p);

static inline bool json_members(struct json_parser *p, char close, bool obj)
{
	p->s++;
	json_ws(p);
	if (*p->s == close) {
		p->s++;
		return true;
	}
	for (;;) {
		json_ws(p);
		if (obj) {
			if (!json_string(p))
				return false;
			json_ws(p);
			if (*p->s++ != ':')
				return false;
		}
		if (!json_value(p))
			return false;
		json_ws(p);
		if (*p->s == close) {
			p->s++;
			return true;
		}
		if (*p->s++ != ',')
			return false;
	}
}

static inline bool json_value(struct json_parser *p)
{
	bool ok;

	json_ws(p);
	switch (*p->s) {
	case '{':
	case '[':
		if (++p->depth > 64)
			return false;
		ok = json_members(p, *p->s == '{' ? '}' : ']', *p->s == '{');
		p->depth--;
		return ok;
	case '"':
		return json_string(p);
	case 't':
		return json_lit(p, "true");
	case 'f':
		return json_lit(p, "false");
	case 'n':
		return json_lit(p, "null");
	default:
		return json_number(p);
	}
}

/* -1 when @text is one JSON value (and white space), else the offset of
 * the first byte where it is not. */
static inline long json_check(const char *text)
{
	struct json_parser p = { text, 0 };

	if (!json_value(&p))
		return p.s > text ? (long)(p.s - text - 1) : 0;
	json_ws(&p);
	return *p.s ? (long)(p.s - text) : -1;
}

#endif /* IPU_TESTS_JSON_CHECK_H */
