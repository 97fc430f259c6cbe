/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring passthrough (IORING_OP_URING_CMD) on /dev/ipuN.
 */
#ifndef _IPU_URING_H
#define _IPU_URING_H

struct io_uring_cmd;

int ipu_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags);

#endif /* _IPU_URING_H */
