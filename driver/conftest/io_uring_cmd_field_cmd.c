// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: the command payload is io_uring_cmd->cmd (6.1 to 6.5,
 * before io_uring_sqe_cmd()).
 */
#include "conftest.h"

const void *ipu_conftest_io_uring_cmd_field_cmd(struct io_uring_cmd *cmd);

const void *ipu_conftest_io_uring_cmd_field_cmd(struct io_uring_cmd *cmd)
{
	return cmd->cmd;
}
