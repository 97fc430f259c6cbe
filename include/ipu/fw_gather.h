/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * fw_gather.h - the wire between ipu-simd and a process whose program is
 * split across instances (docs/instances.md, "ipu_hw"): not an
 * application interface, the contract of two parts of this stack
 * (libsession and firmware/simd/instances.c), kept in one place.
 *
 * On the kernel's simulated IPUs the firmware runs in ipu-simd, while the
 * instances' transport (MPI, under libipu-mpi) lives in the process that
 * launched the program. So the firmware's allgather
 * (struct ipufw_instances, firmware.h) is carried to that process: while
 * a session of a split program is attached to "ipu_hw", libsession listens
 * on a unix stream socket in the abstract namespace named
 * IPU_FW_GATHER_NAME followed by the process's pid in decimal. When a run
 * of such a program starts, ipu-simd connects to the socket of the pid
 * that launched it (ipu_fw_work.pid), checks that the listener is that
 * pid (SO_PEERCRED: an abstract name can be taken by anyone), and the
 * two talk, each message in the byte order of the machine:
 *
 *   process -> ipu-simd  struct ipu_fw_gather_hello (which instance)
 *   then per allgather of the run:
 *   ipu-simd -> process  struct ipu_fw_gather_req, then @bytes bytes:
 *                        this instance's part
 *   process -> ipu-simd  struct ipu_fw_gather_rep, then, when @status is
 *                        0, @bytes (count * the request's) bytes: every
 *                        instance's part, in instance order
 *
 * ipu-simd closes the connection when the run ends. libsession accepts
 * connections only from root or its own user (the daemon is root's), and
 * each side checks every field the other sends: a malformed message
 * fails the run (-EPROTO), never the daemon.
 */
#ifndef IPU_FW_GATHER_H
#define IPU_FW_GATHER_H

#include <stdint.h>

#define IPU_FW_GATHER_NAME	"ipu-fw-gather."
#define IPU_FW_GATHER_MAGIC	0x47465049u /* "IPFG" */
#define IPU_FW_GATHER_VERSION	1
/* Most bytes of one instance's part (one MPI call carries an int count). */
#define IPU_FW_GATHER_MAX_BYTES	0x7fffffffull

/**
 * struct ipu_fw_gather_hello - the process's first message.
 * @magic: IPU_FW_GATHER_MAGIC.
 * @version: IPU_FW_GATHER_VERSION.
 * @index, @count: the instance the process is, of how many.
 */
struct ipu_fw_gather_hello {
	uint32_t magic;
	uint32_t version;
	uint32_t index;
	uint32_t count;
};

/**
 * struct ipu_fw_gather_req - ipu-simd asks for one allgather.
 * @magic: IPU_FW_GATHER_MAGIC.
 * @pad: zero.
 * @bytes: bytes of each instance's part, 1 to IPU_FW_GATHER_MAX_BYTES.
 */
struct ipu_fw_gather_req {
	uint32_t magic;
	uint32_t pad;
	uint64_t bytes;
};

/**
 * struct ipu_fw_gather_rep - the process's answer.
 * @status: 0, or the negative errno of the gather (-ETIMEDOUT: a peer
 *	died or hangs).
 * @pad: zero.
 * @bytes: bytes following: count * the request's bytes, or 0 on failure.
 * @msg: what went wrong, NUL-terminated ("" on success).
 */
struct ipu_fw_gather_rep {
	int32_t status;
	uint32_t pad;
	uint64_t bytes;
	char msg[256];
};

#endif /* IPU_FW_GATHER_H */
