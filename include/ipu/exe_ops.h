/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * exe_ops.h - the per-opcode rules of the executable (operand counts,
 * parameters, dtypes and shapes), shared by the validator (firmware/) and
 * the IR builder (userspace/ir/) so that the builder infers exactly what the
 * validator accepts and both word their errors alike.
 *
 * Internal to libipufw and libipuir: the names start with "__" and carry no
 * stability promise. Everything public is in exe.h.
 */
#ifndef IPU_EXE_OPS_H
#define IPU_EXE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "exe.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct __ipu_exe_tdesc - what the rules need to know of one operand.
 * @name: for messages; NULL reads as "?".
 * @dtype: enum ipu_dtype.
 * @ndim: dimensions, at most IPU_EXE_MAX_DIMS.
 * @shape: the dimensions, each >= 1.
 */
struct __ipu_exe_tdesc {
	const char *name;
	uint32_t dtype;
	uint32_t ndim;
	uint64_t shape[IPU_EXE_MAX_DIMS];
};

/* Values of __ipu_exe_op_info.params beyond a plain count. */
#define __IPU_EXE_PARAMS_NDIM	(-1)	/* ndim of operand 1 (transpose) */
#define __IPU_EXE_PARAMS_2NDIM	(-2)	/* 2 * ndim of operand 1 (slice) */

/**
 * struct __ipu_exe_op_info - the fixed facts of an opcode.
 * @name: as ipu_exe_op_name().
 * @min_operands, @max_operands: operand count range.
 * @params: the number of integer parameters, or __IPU_EXE_PARAMS_*.
 * @writes: operand 0 is written: 0 no (host_store, loop), 1 a new value
 *	(an intermediate), 2 a variable updated in place.
 */
struct __ipu_exe_op_info {
	const char *name;
	uint32_t min_operands;
	uint32_t max_operands;
	int32_t params;
	uint32_t writes;
};

/** __ipu_exe_op_info() - the facts of @op, or NULL for an unknown opcode. */
const struct __ipu_exe_op_info *__ipu_exe_op_info(uint32_t op);

/**
 * __ipu_exe_op_check() - check operands and parameters of one instruction
 * of opcode @op (not LOOP, HOST_LOAD or HOST_STORE, which involve the
 * program and the stream table) and infer its output.
 * @ops: the operands; ops[0] is the output. Its dtype and shape are
 *	overwritten with what the inputs and parameters imply, except the
 *	parts an instruction cannot imply, which are read and checked:
 *	the shape of SLICE and RESHAPE, the dtype of CAST. For in-place ops
 *	(SCALED_ADD_INPLACE, ASSIGN) ops[0] is the variable and is only read.
 * @nops: operands in @ops.
 * @params, @nparams: the integer parameters.
 * @err, @errlen: on failure, a message without the op name: "'x' [4, 3]
 *	and 'w' [4, 5]: inner dimensions 3 and 4 differ".
 *
 * Return: 0 or -EINVAL.
 */
int __ipu_exe_op_check(uint32_t op, struct __ipu_exe_tdesc *ops, uint32_t nops,
		       const int64_t *params, uint32_t nparams, char *err,
		       size_t errlen);

/**
 * __ipu_exe_check_grouping() - PopXL's ReplicaGrouping rules for
 * @replicas replicas: @stride >= 1, @group_size >= 1, and @replicas a
 * multiple of @stride * @group_size.
 *
 * Return: 0 or -EINVAL with a message in @err.
 */
int __ipu_exe_check_grouping(uint64_t replicas, uint64_t group_size,
			     uint64_t stride, char *err, size_t errlen);

/**
 * __ipu_exe_fail() - format a message into @err (if @err and @errlen) and
 * return -EINVAL: every check of the format reports through it.
 */
int __ipu_exe_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * __ipu_exe_fmt_shape() - print a shape as "[4, 3]" ("[]" for a scalar)
 * into @buf, truncating to @len. Return: @buf.
 */
char *__ipu_exe_fmt_shape(char *buf, size_t len, uint32_t ndim,
			  const uint64_t *shape);

/* Enough for any shape __ipu_exe_fmt_shape() prints. */
#define __IPU_EXE_SHAPE_STRLEN	(2 + IPU_EXE_MAX_DIMS * 22)

/**
 * __ipu_exe_nelems() - product of @shape into *@n.
 * Return: 0, or -EOVERFLOW when it does not fit 64 bits.
 */
int __ipu_exe_nelems(uint32_t ndim, const uint64_t *shape, uint64_t *n);

#ifdef __cplusplus
}
#endif

#endif /* IPU_EXE_OPS_H */
