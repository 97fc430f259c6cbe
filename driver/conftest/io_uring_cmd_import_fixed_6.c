// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: io_uring_cmd_import_fixed(ubuf, len, rw, iter, cmd,
 * issue_flags), six arguments (6.15+: the registered buffer is looked up
 * under the ring's lock, which issue_flags says whether the caller holds).
 */
#include <linux/uio.h>

#include "conftest.h"

int ipu_conftest_import_fixed_6(struct io_uring_cmd *cmd, struct iov_iter *it,
				unsigned int issue_flags);

int ipu_conftest_import_fixed_6(struct io_uring_cmd *cmd, struct iov_iter *it,
				unsigned int issue_flags)
{
	return io_uring_cmd_import_fixed(0, 4096, WRITE, it, cmd, issue_flags);
}
