// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * gen_corpus.c - write the seed corpus of fuzz_exe_load: one small
 * executable per sample program of tests/exe_samples.h, compiled with the
 * IR, into the directory given (tests/fuzz/corpus/exe in the tree).
 *
 *	build/tests/fuzz/gen_corpus tests/fuzz/corpus/exe
 */
#include <stdio.h>

#include "exe_samples.h"
#include "ipu/exe.h"

int main(int argc, char **argv)
{
	static const char *const names[SAMPLE_COUNT_] = {
		"mlp", "train", "calls", "all_ops", "mmap"
	};
	int status = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (int s = 0; s < SAMPLE_COUNT_; s++) {
		struct ipu_exe *e;
		char msg[1024], path[4096];
		int ret = exe_sample(s, &e, msg, sizeof(msg));

		if (!ret) {
			snprintf(path, sizeof(path), "%s/%s.ipux", argv[1],
				 names[s]);
			ret = ipu_exe_write_file(e, path, msg, sizeof(msg));
			ipu_exe_free(e);
		}
		if (ret) {
			fprintf(stderr, "%s: %s\n", names[s], msg);
			status = 1;
		}
	}
	return status;
}
