// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * fuzz_ktrace_parse.c - libFuzzer target for the reader of tracefs's text
 * in `ipu-trace record` (trace_kparse.c): arbitrary bytes, split into
 * lines, go through ktrace_line() and ktrace_finish(); what they write
 * must be JSON that json-c parses (a task's name is the user's: any bytes
 * but NUL and newline), every line counted. Crashes, leaks and sanitizer
 * reports are the bugs.
 *
 *	scripts/fuzz [SECONDS]	builds this with clang and runs it
 *
 * fuzz-build: -Iuserspace/tools -I/usr/include/json-c userspace/tools/trace_kparse.c userspace/tools/trace_read.c -ljson-c
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "trace_kparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void bug(const char *what)
{
	fprintf(stderr, "fuzz_ktrace_parse: %s\n", what);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = NULL, *line, *all;
	size_t outlen = 0, start, i;
	struct ktrace kt;
	json_object *o;
	uint64_t lines = 0;
	FILE *f;

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
