// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * json_str.c - JSON string escaping for the tools (json_str.h). The
 * decoder follows the Unicode standard's table of well-formed UTF-8 (its
 * Table 3-7): what it accepts, any JSON reader accepts.
 */
#include "json_str.h"

size_t json_utf8_char(const unsigned char *s, size_t avail, uint32_t *cp)
{
	size_t n, i;
	uint32_t c;

	if (!avail)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, past U+10FFFF. */
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return n;
}

void json_str_put(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = p + len;
	uint32_t cp;
	size_t n;

	while (p < end) {
		n = json_utf8_char(p, (size_t)(end - p), &cp);
		if (!n) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (int)cp);
		else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
			 cp == 0x2028 || cp == 0x2029)
			fprintf(f, "\\u%04x", (unsigned int)cp);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
}
