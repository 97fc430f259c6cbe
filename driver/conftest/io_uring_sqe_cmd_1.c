// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: the command payload is io_uring_sqe_cmd(sqe), one
 * argument, returning const void * (6.6 until it became a typed macro).
 */
#include "conftest.h"

const void *ipu_conftest_io_uring_sqe_cmd_1(struct io_uring_cmd *cmd);

const void *ipu_conftest_io_uring_sqe_cmd_1(struct io_uring_cmd *cmd)
{
	return io_uring_sqe_cmd(cmd->sqe);
}
