// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ops_var.c - scaled_add_inplace, the optimizer step on a variable.
 *
 * (ASSIGN, var = x, is the same data movement as COPY: fw_op_move().)
 */
#include <errno.h>

#include "fw_internal.h"

/* SCALED_ADD_INPLACE: var, x; fparams a, b: var = a * var + b * x, in
 * float32, x broadcast to var's shape; floating variables only. */
int fw_op_scaled_add(struct fw_replica *rep, const struct ipu_exe_instr *in)
{
	struct fw_tensor t[3];
	int err;

	/* var, x -> out = var, inputs var and x */
	err = fw_args(rep, in, 2, &t[1], 0, NULL);
	if (err)
		return err;
	t[0] = t[1];
	return fw_elementwise(rep, in->op, &t[0], &t[1], 2, in->fparams);
}
