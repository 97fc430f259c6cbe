// SPDX-License-Identifier: GPL-2.0
/*
 * test_json_str.c - the tools' JSON string escaper (userspace/tools/
 * json_str.c): well-formed UTF-8 kept, every malformed byte U+FFFD,
 * control characters escaped, and whatever the bytes, the output is a
 * string a JSON reader (tests/json_check.h) accepts.
 */
#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json_check.h"
#include <wchar.h>
#include "../userspace/tools/json_str.h"

/* @len bytes of @s escaped, in quotes; free it. */
static char *esc(const char *s, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	fputc('"', f);
	json_str_put(f, s, len);
	fputc('"', f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect(const char *in, size_t len, const char *want)
{
	char *got = esc(in, len);

	assert_string_equal(got, want);
	free(got);
}

#define EXPECT(in, want) expect(in, sizeof(in) - 1, want)

static void test_utf8_passes(void **state)
{
	(void)state;
	EXPECT("plain", "\"plain\"");
	EXPECT("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	EXPECT("\xe2\x82\xac \xf0\x9f\x98\x80", "\"\xe2\x82\xac \xf0\x9f\x98\x80\"");
	EXPECT("\xef\xbf\xbf\xf4\x8f\xbf\xbf", "\"\xef\xbf\xbf\xf4\x8f\xbf\xbf\"");
}

static void test_quotes_and_controls_escaped(void **state)
{
	(void)state;
	EXPECT("a\"b\\c", "\"a\\\"b\\\\c\"");
	EXPECT("\x01\n\x1f\x7f", "\"\\u0001\\u000a\\u001f\\u007f\"");
	/* C1 controls (U+0085: NEL) and the JavaScript line breaks. */
	EXPECT("\xc2\x85\xe2\x80\xa8\xe2\x80\xa9", "\"\\u0085\\u2028\\u2029\"");
	EXPECT("a\0b", "\"a\\u0000b\"");
}

static void test_malformed_bytes_are_replacement_characters(void **state)
{
	(void)state;
	/* A stray continuation byte, bytes never in UTF-8. */
	EXPECT("\x80", "\"\\ufffd\"");
	EXPECT("\xc0\xc1\xf5\xff", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	/* Overlong forms, surrogates, past U+10FFFF: each byte replaced. */
	EXPECT("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	EXPECT("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");
	EXPECT("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	EXPECT("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	/* Cut short, by the end or by another character. */
	EXPECT("x\xe2\x82", "\"x\\ufffd\\ufffd\"");
	EXPECT("\xe2\x82x", "\"\\ufffd\\ufffdx\"");
	/* The length given is the end, even where a sequence goes on. */
	expect("\xc3\xa9", 1, "\"\\ufffd\"");
}

/* Every byte string of up to 3 bytes from a mixed alphabet: valid JSON. */
static void test_any_bytes_make_valid_json(void **state)
{
	static const unsigned char alpha[] = { 0x00, 0x01, '"', '\\', 'a', 0x7f,
		0x80, 0xbf, 0xc2, 0xc3, 0xe0, 0xe2, 0xed, 0xf0, 0xf4, 0xff };
	const size_t na = sizeof(alpha);
	unsigned char in[3];
	size_t i, len;
	char *out;

	(void)state;
	assert_non_null(setlocale(LC_CTYPE, "C.UTF-8"));
	for (len = 1; len <= 3; len++)
		for (i = 0; i < na * na * na; i++) {
			in[0] = alpha[i % na];
			in[1] = alpha[i / na % na];
			in[2] = alpha[i / na / na % na];
			out = esc((const char *)in, len);
			/* glibc's decoder, apart from ours, says it is UTF-8. */
			if (json_check(out) != -1 ||
			    mbstowcs(NULL, out, 0) == (size_t)-1)
				fail_msg("not JSON for %zu bytes %02x %02x %02x: %s",
					 len, in[0], in[1], in[2], out);
			free(out);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_passes),
		cmocka_unit_test(test_quotes_and_controls_escaped),
		cmocka_unit_test(test_malformed_bytes_are_replacement_characters),
		cmocka_unit_test(test_any_bytes_make_valid_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
