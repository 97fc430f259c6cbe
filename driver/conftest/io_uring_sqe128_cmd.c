// SPDX-License-Identifier: GPL-2.0
/*
 * Compile probe: the 80-byte payload of an SQE128 command is
 * io_uring_sqe128_cmd(sqe, type), a typed macro that checks the type's size
 * (7.x; io_uring_sqe_cmd() became the same for the 16 bytes of a 64-byte
 * SQE, too small for ours).
 */
#include "conftest.h"

struct ipu_conftest_payload {
	u8 bytes[80];
};

const void *ipu_conftest_io_uring_sqe128_cmd(struct io_uring_cmd *cmd);

const void *ipu_conftest_io_uring_sqe128_cmd(struct io_uring_cmd *cmd)
{
	return io_uring_sqe128_cmd(cmd->sqe, struct ipu_conftest_payload);
}
