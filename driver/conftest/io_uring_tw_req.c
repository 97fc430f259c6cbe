// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: io_uring_cmd_complete_in_task() calls back
 * void cb(struct io_tw_req, io_tw_token_t), the command is
 * io_uring_cmd_from_tw(), and the flags to complete with from there are
 * IO_URING_CMD_TASK_WORK_ISSUE_FLAGS (7.x).
 */
#include "conftest.h"

static struct io_uring_cmd *ipu_conftest_cmd;
static unsigned int ipu_conftest_flags;

static void ipu_conftest_tw(struct io_tw_req tw_req, io_tw_token_t tw)
{
	ipu_conftest_cmd = io_uring_cmd_from_tw(tw_req);
	ipu_conftest_flags = IO_URING_CMD_TASK_WORK_ISSUE_FLAGS;
}

void ipu_conftest_tw_req(struct io_uring_cmd *cmd);

void ipu_conftest_tw_req(struct io_uring_cmd *cmd)
{
	io_uring_cmd_complete_in_task(cmd, ipu_conftest_tw);
}
