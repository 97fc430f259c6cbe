/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * json_str.h - the tools' one JSON string escaper (ipu-info, ipu-bringup,
 * ipu-trace): text from sysfs, tracefs or a user's trace written so that
 * the output is valid UTF-8 JSON whatever the bytes were. No system calls,
 * so the fuzz targets run it on any bytes.
 */
#ifndef IPU_TOOLS_JSON_STR_H
#define IPU_TOOLS_JSON_STR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * json_utf8_char() - the length (1 to 4) of the well-formed UTF-8
 * sequence at @s, within @avail bytes, and its code point in *@cp; 0 when
 * the bytes there are not one (a stray continuation byte, an overlong
 * form, a surrogate, past U+10FFFF, cut short by @avail).
 */
size_t json_utf8_char(const unsigned char *s, size_t avail, uint32_t *cp);

/*
 * json_str_put() - @len bytes of @s as the inside of a JSON string (no
 * quotes around it) to @f: well-formed UTF-8 passes as it is; '"' and
 * '\\' are escaped; control characters (C0, DEL, C1) and U+2028/U+2029
 * (line breaks to JavaScript) become \uXXXX; each byte that is not part
 * of a well-formed sequence becomes \ufffd (the replacement character:
 * "\u00XX" would claim a Latin-1 character that was never there). A NUL
 * byte inside @len is \u0000.
 */
void json_str_put(FILE *f, const char *s, size_t len);

#endif /* IPU_TOOLS_JSON_STR_H */
