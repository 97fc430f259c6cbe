// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: io_uring can cancel pending uring_cmds (6.7+): the driver
 * marks them cancelable and is called with IO_URING_F_CANCEL. Debian's 6.1
 * has neither, so there every command must complete by itself in bounded
 * time.
 */
#include "conftest.h"

void ipu_conftest_mark_cancelable(struct io_uring_cmd *cmd, unsigned int f);

void ipu_conftest_mark_cancelable(struct io_uring_cmd *cmd, unsigned int f)
{
	if (!(f & IO_URING_F_CANCEL))
		io_uring_cmd_mark_cancelable(cmd, f);
}
