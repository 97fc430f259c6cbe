// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: io_uring_cmd_complete_in_task() calls back
 * void cb(struct io_uring_cmd *, unsigned int issue_flags) (6.1 until the
 * task-work token replaced issue_flags).
 */
#include "conftest.h"

static unsigned int ipu_conftest_flags;

static void ipu_conftest_tw(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	ipu_conftest_flags = issue_flags;
}

void ipu_conftest_tw_issue_flags(struct io_uring_cmd *cmd);

void ipu_conftest_tw_issue_flags(struct io_uring_cmd *cmd)
{
	io_uring_cmd_complete_in_task(cmd, ipu_conftest_tw);
}
