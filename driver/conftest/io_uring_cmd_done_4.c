// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: io_uring_cmd_done(cmd, ret, res2, issue_flags), four
 * arguments (6.1 until res2 moved to io_uring_cmd_done32()).
 */
#include "conftest.h"

void ipu_conftest_complete_4(struct io_uring_cmd *cmd, unsigned int f);

void ipu_conftest_complete_4(struct io_uring_cmd *cmd, unsigned int f)
{
	io_uring_cmd_done(cmd, -EIO, 0, f);
}
