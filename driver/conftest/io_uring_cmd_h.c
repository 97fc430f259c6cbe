// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: <linux/io_uring/cmd.h> declares struct io_uring_cmd (6.6+;
 * 6.1 declares the uring_cmd API in <linux/io_uring.h>).
 */
#include <linux/io_uring/cmd.h>

int ipu_conftest_io_uring_cmd_h(struct io_uring_cmd *cmd);

int ipu_conftest_io_uring_cmd_h(struct io_uring_cmd *cmd)
{
	return cmd->cmd_op;
}
