// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: io_uring_cmd_import_fixed(ubuf, len, rw, iter, cmd), five
 * arguments (6.1 to 6.14).
 */
#include <linux/uio.h>

#include "conftest.h"

int ipu_conftest_import_fixed_5(struct io_uring_cmd *cmd, struct iov_iter *it);

int ipu_conftest_import_fixed_5(struct io_uring_cmd *cmd, struct iov_iter *it)
{
	return io_uring_cmd_import_fixed(0, 4096, WRITE, it, cmd);
}
