// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * fuzz_npy.c - libFuzzer target for ipu-run's .npy reader: npy_parse() on
 * arbitrary bytes must fail cleanly (no array, a message) or give an array
 * that the writer formats and the reader parses back to the same array.
 * Crashes, leaks and sanitizer reports are the bugs.
 *
 *	scripts/fuzz [SECONDS]	builds this with clang and runs it
 *
 * fuzz-build: -Iuserspace/tools userspace/tools/npy.c
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A bug in the library, not a bad input: stop here with a message. */
static void bug(const char *what, const char *msg)
{
	fprintf(stderr, "fuzz_npy: %s: %s\n", what, msg);
	abort();
}

static void check_round_trip(const struct npy_array *a)
{
	struct npy_array b;
	char msg[512] = "", shape[16];
	void *buf;
	size_t len, size = ipu_dtype_size((int)a->dtype);

	if (a->ndim > NPY_MAX_DIMS || !npy_descr(a->dtype))
		bug("a parsed array has an impossible type or rank", "");
	/* Short buffers truncate, never overflow. */
	npy_shape_str(a->shape, a->ndim, shape, sizeof(shape));
	if (strlen(shape) >= sizeof(shape))
		bug("npy_shape_str overflowed", shape);
	if (npy_format(a, &buf, &len, msg, sizeof(msg)))
		bug("a parsed array does not format", msg);
	if (npy_parse(buf, len, &b, msg, sizeof(msg)))
		bug("a formatted array does not parse back", msg);
	if (b.dtype != a->dtype || b.ndim != a->ndim || b.count != a->count ||
	    memcmp(b.shape, a->shape, sizeof(b.shape)) ||
	    memcmp(b.data, a->data, a->count * size))
		bug("an array changed on its way through the writer", "");
	npy_free(&b);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct npy_array a;
	char msg[512] = "";

	if (npy_parse(data, size, &a, msg, sizeof(msg))) {
		if (a.data || !msg[0])
			bug("a failed parse left data or no message", msg);
		return 0;
	}
	check_round_trip(&a);
	npy_free(&a);
	return 0;
}
