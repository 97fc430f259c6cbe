// SPDX-License-Identifier: GPL-2.0
/*
 * session_hello.c - what a developer writes against the installed stack:
 * built only with `cc session_hello.c $(pkg-config --cflags --libs
 * libsession)` (tests/pkg/test_install.sh, and in a Debian 13 chroot with
 * the packages by tests/pkg/test_debs.sh), never with this tree's include
 * path, so a header or library the install forgot fails the build.
 *
 * y = x * w + b on the default device (the software model without an
 * IPU), with w a variable and b a constant; prints the result and exits 0
 * when every element is what the host computes. With `--save FILE`, also
 * writes the compiled executable there, for the installed ipu-run to run.
 *
 * It calls ipu_strerror(), which session.h declares through ipu.h: a
 * function of libipu, so the .pc file must put libipu in Requires (the
 * linker does not take symbols from a library only another one needs).
 */
#include <stdio.h>
#include <string.h>

#include <ipu/session.h>

#define N 4

int main(int argc, char **argv)
{
	const char *save = argc == 3 && !strcmp(argv[1], "--save") ? argv[2] : NULL;
	char err[256];
	const uint64_t shape[1] = { N };
	const float w[N] = { 1.5f, -2.0f, 0.25f, 3.0f };
	const float b[N] = { 1.0f, 2.0f, 3.0f, 4.0f };
	float x[N] = { 2.0f, 3.0f, 4.0f, -1.0f }, y[N] = { 0 };
	struct ipu_stream_buffer in = { "x", { x, IPU_DTYPE_FLOAT32, 1, { N } } };
	struct ipu_stream_buffer out = { "y", { y, IPU_DTYPE_FLOAT32, 1, { N } } };
	IPU_OPTS(ipu_session_opts, opts, .device = "auto");
	struct ipu_session *s = NULL;
	struct ipu_ir *ir = NULL;
	ipu_stream xs, ys;
	ipu_tensor t;
	int i, bad = 0;

	if (argc != 1 && !save) {
		fprintf(stderr, "usage: session_hello [--save FILE]\n");
		return 2;
	}

	if (ipu_ir_create("session_hello", &ir)) {
		fprintf(stderr, "session_hello: ipu_ir_create failed\n");
		return 1;
	}
	xs = ipu_ir_h2d_stream(ir, "x", IPU_DTYPE_FLOAT32, 1, shape);
	ys = ipu_ir_d2h_stream(ir, "y", IPU_DTYPE_FLOAT32, 1, shape);
	t = ipu_ir_mul(ir, ipu_ir_host_load(ir, xs, NULL),
		       ipu_ir_variable(ir, "w", IPU_DTYPE_FLOAT32, 1, shape, w, NULL));
	t = ipu_ir_add(ir, t, ipu_ir_constant(ir, "b", IPU_DTYPE_FLOAT32, 1, shape, b));
	if (ipu_ir_host_store(ir, ys, t)) {
		fprintf(stderr, "session_hello: %s\n", ipu_ir_errmsg(ir));
		ipu_ir_destroy(ir);
		return 1;
	}
	/* The session takes the ir over, whatever the outcome. */
	if ((i = ipu_session_create(ir, &opts, &s))) {
		fprintf(stderr, "session_hello: %s (%s)\n", ipu_session_errmsg(NULL),
			ipu_strerror(i));
		return 1;
	}
	if (ipu_session_attach(s) ||
	    ipu_session_run_with_outputs(s, &in, 1, &out, 1, 0) ||
	    ipu_session_detach(s, 0)) {
		fprintf(stderr, "session_hello: %s\n", ipu_session_errmsg(s));
		ipu_session_destroy(s);
		return 1;
	}
	if (save && ipu_exe_write_file(ipu_session_exe(s), save, err, sizeof(err))) {
		fprintf(stderr, "session_hello: %s: %s\n", save, err);
		ipu_session_destroy(s);
		return 1;
	}
	ipu_session_destroy(s);
	for (i = 0; i < N; i++) {
		/* Exact: one multiply and one add of small binary fractions. */
		float want = x[i] * w[i] + b[i];

		printf("y[%d] = %g (want %g)\n", i, y[i], want);
		bad |= y[i] != want;
	}
	printf("session_hello: %s\n", bad ? "WRONG" : "ok");
	return bad;
}
