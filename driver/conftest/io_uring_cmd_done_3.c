// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: io_uring_cmd_done(cmd, ret, issue_flags), three arguments
 * (the second CQE word went to io_uring_cmd_done32()).
 */
#include "conftest.h"

void ipu_conftest_complete_3(struct io_uring_cmd *cmd, unsigned int f);

void ipu_conftest_complete_3(struct io_uring_cmd *cmd, unsigned int f)
{
	io_uring_cmd_done(cmd, -EIO, f);
}
