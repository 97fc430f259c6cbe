// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: the command payload is reached through io_uring_sqe_cmd()
 * (6.6+) rather than io_uring_cmd->cmd (6.1).
 */
#include <linux/io_uring/cmd.h>

const void *ipu_conftest_io_uring_sqe_cmd(struct io_uring_cmd *cmd);

const void *ipu_conftest_io_uring_sqe_cmd(struct io_uring_cmd *cmd)
{
	return io_uring_sqe_cmd(cmd->sqe);
}
