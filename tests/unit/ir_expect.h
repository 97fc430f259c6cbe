/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * ir_expect.h - cmocka helpers shared by the IR tests: build, compile, and
 * expect a refusal with a given errno and message. Include after
 * <cmocka.h>.
 */
#ifndef IPU_TESTS_IR_EXPECT_H
#define IPU_TESTS_IR_EXPECT_H

#include <stdlib.h>
#include <string.h>

#include "ipu/exe.h"
#include "ipu/ir.h"

#define SHAPE(...) (const uint64_t[]){ __VA_ARGS__ }

/* A call on @ir returned @got: it must be @err, with @what in the message. */
static inline void ir_expect_refused(struct ipu_ir *ir, int got, int err,
				     const char *what)
{
	const char *msg = ipu_ir_errmsg(ir);

	if (got != err || !strstr(msg, what))
		fail_msg("got %d, message \"%s\"; expected %d and \"%s\"", got,
			 msg, err, what);
}

static inline struct ipu_ir *ir_new(void)
{
	struct ipu_ir *ir;

	assert_int_equal(ipu_ir_create("t", &ir), 0);
	return ir;
}

/* Compile @ir, failing the test with the ir's message if it does not. */
static inline struct ipu_exe *ir_compile_ok(struct ipu_ir *ir)
{
	struct ipu_exe *e;
	int ret = ipu_ir_compile(ir, &e);

	if (ret)
		fail_msg("compile: %d: %s", ret, ipu_ir_errmsg(ir));
	return e;
}

/* Teardown of a fixture struct whose first member is its ir: free both. */
static inline int ir_fixture_teardown(void **state)
{
	struct ipu_ir **f = *state;

	ipu_ir_destroy(*f);
	free(f);
	return 0;
}

#endif /* IPU_TESTS_IR_EXPECT_H */
