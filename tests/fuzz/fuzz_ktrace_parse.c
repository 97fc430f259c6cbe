// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * fuzz_ktrace_parse.c - libFuzzer target for the reader of tracefs's text
 * in `ipu-trace record` (trace_kparse.c): arbitrary bytes, split into
 * lines, go through ktrace_line() and ktrace_finish(); what they write
 * must be JSON that json-c parses (a task's name is the user's: any bytes
 * but NUL and newline), every line counted. The same bytes, whole, go
 * through the tools' escaper (json_str.c) as one string: json-c must
 * parse it and it must be valid UTF-8, each input byte giving at most
 * six. Crashes, leaks and sanitizer reports are the bugs.
 *
 *	scripts/fuzz [SECONDS]	builds this with clang and runs it
 *
 * fuzz-build: -Iuserspace/tools -I/usr/include/json-c userspace/tools/trace_kparse.c userspace/tools/json_str.c -ljson-c
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "json_str.h"
#include "trace_kparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void bug(const char *what)
{
	fprintf(stderr, "fuzz_ktrace_parse: %s\n", what);
	abort();
}

/* @data as one escaped string: JSON, UTF-8 throughout, bounded. */
static void escape_all(const uint8_t *data, size_t size)
{
	char *out = NULL;
	size_t outlen = 0, i, n;
	FILE *f = open_memstream(&out, &outlen);
	json_object *o;
	uint32_t cp;

	if (!f)
		return;
	fputc('"', f);
	json_str_put(f, (const char *)data, size);
	fputc('"', f);
	fclose(f);
	if (outlen > 2 + 6 * size)
		bug("the escaper wrote more than six bytes for one");
	for (i = 0; i < outlen; i += n)
		if (!(n = json_utf8_char((const unsigned char *)out + i,
					 outlen - i, &cp)) || cp < 0x20)
			bug("the escaper wrote a byte that is not UTF-8, or a control");
	o = json_tokener_parse(out);
	if (!o || !json_object_is_type(o, json_type_string))
		bug("the escaped string is not a JSON string");
	json_object_put(o);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = NULL, *line, *all;
	size_t outlen = 0, start, i;
	struct ktrace kt;
	json_object *o;
	uint64_t lines = 0;
	FILE *f;

	escape_all(data, size);
	all = malloc(size + 1);
	f = open_memstream(&out, &outlen);
	if (!all || !f || ktrace_init(&kt, f, false)) {
		free(all);
		if (f)
			fclose(f);
		free(out);
		return 0;
	}
	memcpy(all, data, size);
	all[size] = '\0';
	fputc('[', f);
	for (start = 0, i = 0; i <= size; i++) {
		if (i < size && all[i] != '\n')
			continue;
		all[i] = '\0';
		line = all + start;
		start = i + 1;
		if (i == size && !*line)
			break;
		ktrace_line(&kt, line);
		lines++;
	}
	if (kt.lines != lines || kt.malformed > lines || kt.events > lines)
		bug("the counts do not add up");
	ktrace_finish(&kt);
	fputc(']', f);
	fclose(f);
	o = json_tokener_parse(out);
	if (!o)
		bug("the events written are not JSON");
	json_object_put(o);
	free(out);
	free(all);
	return 0;
}
