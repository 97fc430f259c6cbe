// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * fuzz_exe_load.c - libFuzzer target for the executable reader:
 * ipu_exe_load() on arbitrary bytes must fail cleanly or give an
 * executable that validates and saves back to a file that loads to the
 * same bytes. Crashes, leaks and sanitizer reports are the bugs.
 *
 * A custom mutator re-seals most mutated inputs (CRCs and the header's
 * file size recomputed), since a random change almost always breaks a
 * checksum first and would never reach the checks behind it.
 *
 *	scripts/fuzz [SECONDS]	builds this with clang and runs it
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exe_samples.h"
#include "ipu/exe.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	size = LLVMFuzzerMutate(data, size, max_size);
	/* One in four stays as mutated, to fuzz the checksums themselves. */
	if ((seed & 3) && size >= sizeof(struct ipu_exe_file_header)) {
		struct ipu_exe_file_header h;

		memcpy(&h, data, sizeof(h));
		h.file_size = size;
		memcpy(data, &h, sizeof(h));
		exe_refresh_crcs(data, size);
	}
	return size;
}

/* A bug in the library, not a bad input: stop here with a message. */
static void bug(const char *what, const char *msg)
{
	fprintf(stderr, "fuzz_exe_load: %s: %s\n", what, msg);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipu_exe *e = NULL;
	char msg[512];

	if (ipu_exe_load(data, size, &e, msg, sizeof(msg))) {
		if (e || !msg[0])
			bug("a failed load left a result or no message", msg);
		return 0;
	}
	if (ipu_exe_validate(e, msg, sizeof(msg)))
		bug("a loaded executable does not validate", msg);
	if (exe_resave_matches(e, msg, sizeof(msg)))
		bug("a loaded executable does not save and load back", msg);
	for (uint32_t i = 0; i < e->num_tensors; i++)
		if (e->tensors[i].name[0] &&
		    ipu_exe_find_tensor(e, e->tensors[i].name) < 0)
			bug("a tensor is not found by its name", e->tensors[i].name);
	ipu_exe_free(e);
	return 0;
}
