/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * exe.h - the IPU executable: what the compiler (userspace/ir) writes and the
 * firmware (firmware/) runs. Contract 3 of ARCHITECTURE.md.
 *
 * Execution model. A program runs on R replicas (R = replication_factor).
 * Each replica owns an arena of arena_size bytes of device memory, and every
 * tensor lives at a fixed offset in it (the memory plan), the same offset in
 * every replica. Variables and constants are loaded into the arenas by the
 * host before a launch (weights_from_host); each host-to-device stream has
 * num_host_transfers slots in the arena that the host fills before the
 * launch, and each device-to-host stream has as many that the host reads
 * after. The host launches once per run; the program's host_load of a stream
 * reads the slot of that stream's next iteration (a per-stream counter that
 * starts at 0 each launch), host_store writes likewise.
 *
 * The program is a flat list of instructions. Control flow is only LOOP,
 * whose body is the next body_len instructions, run count times; loops nest.
 * Calls and repeats of subgraphs are flattened by the compiler into loops
 * and COPY instructions.
 *
 * File format, all little-endian:
 *
 *	struct ipu_exe_file_header
 *	struct ipu_exe_blob_desc[num_blobs]
 *	blob payloads, each 8-byte aligned, at the offsets the descriptors give
 *
 * Every blob type appears at most once; unknown blob types are skipped (so
 * that a newer compiler can add optional blobs); missing required blobs are
 * errors. Each blob carries a CRC32 (zlib's) of its payload and the header
 * one of the descriptors. Strings are NUL-terminated in the STRTAB blob and
 * referred to by offset. The reader treats every file as hostile.
 */
#ifndef IPU_EXE_H
#define IPU_EXE_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IPU_EXE_MAGIC		0x58555049u /* "IPUX" read as LE u32 */
#define IPU_EXE_VERSION		1
#define IPU_EXE_MAX_DIMS	8
#define IPU_EXE_MAX_NAME	255	/* bytes of a name, without its NUL */
#define IPU_EXE_MAX_LOOP_DEPTH	32	/* LOOPs nested in one another */

/* ---------------------------------------------------------------------- */
/* In-memory form                                                          */
/* ---------------------------------------------------------------------- */

/* Values of ipu_exe_tensor.kind. */
enum ipu_exe_tensor_kind {
	IPU_EXE_TENSOR_INTERMEDIATE = 0, /* computed; no host-visible value */
	IPU_EXE_TENSOR_VARIABLE = 1,	 /* initial data; host reads/writes */
	IPU_EXE_TENSOR_CONSTANT = 2,	 /* initial data; read-only */
};

/* Bits of ipu_exe_tensor.flags. */
#define IPU_EXE_TENSOR_MMAP		(1u << 0) /* host data is a file mapping */
#define IPU_EXE_TENSOR_MMAP_RDONLY	(1u << 1) /* ... mapped read-only */
#define IPU_EXE_TENSOR_GROUP_ASSIGNED	(1u << 2) /* grouping from assignments */
#define IPU_EXE_TENSOR_FLAGS_ALL	(IPU_EXE_TENSOR_MMAP | IPU_EXE_TENSOR_MMAP_RDONLY | \
					 IPU_EXE_TENSOR_GROUP_ASSIGNED)

/* Values of ipu_exe_tensor.retrieval (S20). */
enum ipu_exe_retrieval {
	IPU_EXE_RETRIEVE_ONE_PER_GROUP = 0,
	IPU_EXE_RETRIEVE_ALL_REPLICAS = 1,
};

/**
 * struct ipu_exe_tensor - one tensor of the program.
 * @name: name (variables, constants and stream tensors keep the IR's name).
 * @kind: enum ipu_exe_tensor_kind.
 * @dtype: enum ipu_dtype, a device type.
 * @flags: IPU_EXE_TENSOR_* bits (variables only).
 * @ndim: number of dimensions, 0 (scalar) to IPU_EXE_MAX_DIMS.
 * @shape: the dimensions; unused ones are 0.
 * @nelems: product of @shape (1 for a scalar).
 * @offset: byte offset of the tensor in each replica's arena, a multiple
 *	of ipu_dtype_size(@dtype). Variables and constants never share
 *	bytes with anything else, nor do stream slots but in the forms
 *	"Shared memory" below lists; intermediates share with each other
 *	only when the compiler's plan says they are never live together.
 * @nbytes: @nelems * ipu_dtype_size(@dtype).
 * @group_size: variables: replicas per group sharing one value (S20);
 *	the replication factor when the variable is not grouped.
 * @group_stride: variables: replica index distance between members of a
 *	group (1 = consecutive replicas). PopXL's rules: replication_factor
 *	is a multiple of @group_stride * @group_size; ipu_exe_replica_group()
 *	gives each replica's group. Other kinds ignore both.
 *	IPU_EXE_TENSOR_GROUP_ASSIGNED variables (PopXL's non-constant-stride
 *	groupings, ReplicaGrouping.is_const false) have @group_stride 0 and
 *	@group_assignment instead; @group_size is still the size of every
 *	group.
 * @group_assignment: IPU_EXE_TENSOR_GROUP_ASSIGNED variables:
 *	replication_factor entries, the group (< num_groups) of each replica;
 *	every group has @group_size replicas. Group g's host value is the
 *	g-th (S20's to-host / to-device maps). NULL for all other tensors.
 *	Use ipu_exe_tensor_group() / ipu_exe_tensor_group_replica().
 * @retrieval: variables: enum ipu_exe_retrieval.
 * @data_offset: variables and constants: offset of the initial data in the
 *	DATA blob: num_groups * @nbytes bytes for variables (one value per
 *	group, group order), @nbytes for constants. 0 and @data_size 0 for
 *	memory-mapped variables, whose data is in @mmap_path.
 * @data_size: bytes of initial data.
 * @mmap_path: IPU_EXE_TENSOR_MMAP variables: the file holding the host
 *	data, num_groups * @nbytes bytes; NULL otherwise. Relative to the
 *	data directory the user grants the session, without a ".."
 *	component: an executable is untrusted and ipu_exe_validate()
 *	refuses other paths.
 */
struct ipu_exe_tensor {
	const char *name;
	uint32_t kind;
	uint32_t dtype;
	uint32_t flags;
	uint32_t ndim;
	uint64_t shape[IPU_EXE_MAX_DIMS];
	uint64_t nelems;
	uint64_t offset;
	uint64_t nbytes;
	uint32_t group_size;
	uint32_t group_stride;
	uint32_t retrieval;
	uint64_t data_offset;
	uint64_t data_size;
	const char *mmap_path;
	const uint32_t *group_assignment;
};

/* Values of ipu_exe_stream.direction. */
enum ipu_exe_stream_dir {
	IPU_EXE_STREAM_H2D = 0, /* host to device: read by host_load */
	IPU_EXE_STREAM_D2H = 1, /* device to host: written by host_store */
};

/**
 * struct ipu_exe_stream - one host stream.
 * @name: the stream's name, unique among streams.
 * @direction: enum ipu_exe_stream_dir.
 * @dtype: element type.
 * @ndim: dimensions of one transfer (per replica, per iteration).
 * @shape: the dimensions.
 * @nbytes: bytes of one slot: one transfer for one replica.
 * @slots_offset: arena offset of slot 0; slot i is at @slots_offset +
 *	i * @nbytes, for i < num_host_transfers. Aligned like a tensor.
 *	A d2h stream's slots may be an h2d stream's ("Shared memory").
 */
struct ipu_exe_stream {
	const char *name;
	uint32_t direction;
	uint32_t dtype;
	uint32_t ndim;
	uint64_t shape[IPU_EXE_MAX_DIMS];
	uint64_t nbytes;
	uint64_t slots_offset;
};

/*
 * Shared memory. The slots of the streams, the variables and the constants
 * own their bytes for the whole launch, and no two of them, and no
 * intermediate, may share any byte, with three exceptions, which let the
 * compiler elide host_load's and host_store's copies when each stream has
 * a single slot (num_host_transfers == 1; the memory plan, userspace/ir/
 * plan.c, says when it does). "T sits on stream S" means T's bytes are
 * exactly S's slots: T.offset == S.slots_offset and T.nbytes ==
 * S.nbytes * num_host_transfers (so num_host_transfers is 1).
 *
 *  1. Load in place: an intermediate T may sit on h2d stream X when the
 *     only instruction writing T is a HOST_LOAD of X. The load then copies
 *     the slot onto itself, and the executor skips such a copy; since
 *     nothing else writes those bytes, T holds the host's data from the
 *     start of the launch to its end.
 *  2. Store in place: an intermediate T may sit on d2h stream Y when one
 *     instruction alone writes T, every HOST_STORE of Y (at least one)
 *     stores T, and T's writer comes before the first of them in the
 *     program. The stores copy T onto itself (skipped), and the host reads
 *     T's last value after the launch: the value stored, as a second store
 *     of Y in one launch fails with -ERANGE. (Were no store to run, the
 *     slot would show T rather than whatever it held; the compiler does
 *     not elide stores that may not run.)
 *  3. Forwarding: d2h streams' slots may be exactly those of one h2d
 *     stream X when an intermediate T sits on X (rule 1) and every
 *     HOST_STORE of each of those streams (at least one) stores T. Nothing
 *     then writes the shared bytes during a launch, and the host writes
 *     its inputs before a launch and reads its outputs after it (as
 *     libsession does), so y = x moves the data host to device and back.
 *
 * At most one intermediate sits on a stream. ipu_exe_validate() rejects
 * every other overlap of owned memory.
 */

/*
 * Opcodes. The numbering is part of the file format: only append. Operand
 * lists name tensors by index into the tensor table; "out" is operand 0.
 * Elementwise binary ops broadcast their inputs NumPy-style to out's shape.
 * An out is always an intermediate that shares no memory with the inputs
 * (all-reduce alone may name x as out); only SCALED_ADD_INPLACE and ASSIGN
 * write variables; nothing writes constants. Dtypes: data movement (CAST,
 * RESHAPE, COPY, TRANSPOSE, SLICE, CONCAT, ASSIGN, HOST_*) takes every
 * device dtype; arithmetic rejects bool; GELU, TANH, SIGMOID, EXP, LOG,
 * SQRT, REDUCE_MEAN, SOFTMAX, LOG_SOFTMAX, SCALED_ADD_INPLACE and a mean
 * ALL_REDUCE take floats only (ipu_dtype_is_float()). The exact rules are
 * firmware/exe_ops.c, which both the validator and the IR builder use.
 */
enum ipu_exe_op {
	IPU_OP_INVALID = 0,
	/* out, a, b */
	IPU_OP_ADD = 1, IPU_OP_SUB, IPU_OP_MUL, IPU_OP_DIV,
	/* out, x */
	IPU_OP_NEG = 10, IPU_OP_ABS, IPU_OP_RELU, IPU_OP_GELU, IPU_OP_TANH,
	IPU_OP_SIGMOID, IPU_OP_EXP, IPU_OP_LOG, IPU_OP_SQRT,
	/* out, x: convert x's dtype to out's */
	IPU_OP_CAST = 30,
	/* out, x (same bytes, out's shape); out, x (same dtype and shape) */
	IPU_OP_RESHAPE = 31, IPU_OP_COPY,
	/* out, a, b: [..., m, k] x [..., k, n], batch dims broadcast */
	IPU_OP_MATMUL = 40,
	/* out, x; params: perm[ndim] */
	IPU_OP_TRANSPOSE = 50,
	/* out, x; params: start[ndim], step[ndim] (step >= 1); out's shape
	 * gives the count along each axis */
	IPU_OP_SLICE,
	/* out, x0, x1, ...; params: axis */
	IPU_OP_CONCAT,
	/* out, x; params: axes bitmask (bit i = reduce axis i of x), keepdims */
	IPU_OP_REDUCE_SUM = 60, IPU_OP_REDUCE_MEAN, IPU_OP_REDUCE_MAX,
	/* out, x; params: axis */
	IPU_OP_SOFTMAX = 70, IPU_OP_LOG_SOFTMAX,
	/* var, x; fparams: a, b: var = a * var + b * x (in place; an SGD step
	 * is a = 1, b = -lr) */
	IPU_OP_SCALED_ADD_INPLACE = 80,
	/* var, x: var = x */
	IPU_OP_ASSIGN,
	/* out, x; params: mode (IPU_EXE_REDUCE_SUM/_MEAN), group_size,
	 * group_stride: out = reduction of x over the replicas of this
	 * replica's group; out may be x */
	IPU_OP_ALL_REDUCE = 90,
	/* out; params: stream index */
	IPU_OP_HOST_LOAD = 100,
	/* x; params: stream index */
	IPU_OP_HOST_STORE,
	/* no operands; params: count (>= 0), body_len (>= 0); loops nest at
	 * most IPU_EXE_MAX_LOOP_DEPTH deep, each body inside its parent's */
	IPU_OP_LOOP = 110,
	IPU_OP_COUNT_
};

/* Modes of IPU_OP_ALL_REDUCE. */
#define IPU_EXE_REDUCE_SUM	0
#define IPU_EXE_REDUCE_MEAN	1

/**
 * struct ipu_exe_instr - one instruction.
 * @op: enum ipu_exe_op.
 * @num_operands: entries of the operand array used, from @first_operand.
 * @first_operand: index into ipu_exe.operands.
 * @num_params: entries of the param array used, from @first_param.
 * @first_param: index into ipu_exe.params.
 * @fparams: float parameters (SCALED_ADD_INPLACE: a, b), else 0.
 */
struct ipu_exe_instr {
	uint32_t op;
	uint32_t num_operands;
	uint32_t first_operand;
	uint32_t num_params;
	uint32_t first_param;
	float fparams[2];
};

/**
 * struct ipu_exe - an executable in memory.
 * @name: program name (for messages), may be "".
 * @num_host_transfers: iterations per run (slots per stream), >= 1.
 * @replication_factor: replicas of the program, >= 1, over every
 *	instance; replica groupings (and all-reduce groups) are relative to it.
 * @instance_replication_factor: PopXL's instance_replication_factor, the
 *	replicas one instance runs (S03, S11): the firmware runs this many
 *	arenas. It divides @replication_factor; when smaller, the program is
 *	split across instances (docs/instances.md, firmware.h's
 *	struct ipufw_instances).
 * @ipus_per_replica: IPUs one replica spans (highest virtual graph id + 1);
 *	@ipus_per_replica * @instance_replication_factor <= 2^31.
 * @arena_size: bytes of one replica's arena.
 * @tensors, @num_tensors: the tensor table.
 * @streams, @num_streams: the stream table.
 * @instrs, @num_instrs: the program.
 * @operands, @num_operands: tensor indices used by instructions.
 * @params, @num_params: integer parameters used by instructions.
 * @data, @data_size: initial data of variables and constants.
 *
 * Loaded executables (ipu_exe_load()) own all of it in one allocation, and
 * so do compiled ones (the compiler returns a loaded image of what it
 * wrote): ipu_exe_free() releases it. An ipu_exe a caller assembles
 * itself (alloc_ NULL) stays the caller's: ipu_exe_free() leaves it be.
 *
 * What libsession needs is all here: @streams (h2d and d2h by direction,
 * in the order the IR created them), the VARIABLE and CONSTANT entries of
 * @tensors (name, dtype, shape, grouping, retrieval, mmap flags and path,
 * initial data in @data) and ipus_per_replica; num_instrs == 0 is a
 * program with no graph content (S03).
 */
struct ipu_exe {
	const char *name;
	uint32_t num_host_transfers;
	uint32_t replication_factor;
	uint32_t instance_replication_factor;
	uint32_t ipus_per_replica;
	uint64_t arena_size;
	struct ipu_exe_tensor *tensors;
	uint32_t num_tensors;
	struct ipu_exe_stream *streams;
	uint32_t num_streams;
	struct ipu_exe_instr *instrs;
	uint32_t num_instrs;
	uint32_t *operands;
	uint32_t num_operands;
	int64_t *params;
	uint32_t num_params;
	const uint8_t *data;
	uint64_t data_size;
	/* private: how to free it */
	void *alloc_;
};

/* ---------------------------------------------------------------------- */
/* File format                                                             */
/* ---------------------------------------------------------------------- */

/* Blob types of ipu_exe_blob_desc.type. */
enum ipu_exe_blob_type {
	IPU_EXE_BLOB_META = 1,	   /* struct ipu_exe_file_meta */
	IPU_EXE_BLOB_STRTAB = 2,   /* NUL-terminated strings */
	IPU_EXE_BLOB_TENSORS = 3,  /* struct ipu_exe_file_tensor[] */
	IPU_EXE_BLOB_STREAMS = 4,  /* struct ipu_exe_file_stream[] */
	IPU_EXE_BLOB_INSTRS = 5,   /* struct ipu_exe_file_instr[] */
	IPU_EXE_BLOB_OPERANDS = 6, /* __le32[] */
	IPU_EXE_BLOB_PARAMS = 7,   /* __le64[] (two's complement) */
	IPU_EXE_BLOB_DATA = 8,	   /* initial data */
	/* Optional (present iff a tensor has IPU_EXE_TENSOR_GROUP_ASSIGNED):
	 * __le32[], for each such tensor in table order, its
	 * replication_factor group_assignment entries. */
	IPU_EXE_BLOB_GROUPINGS = 9,
};

/**
 * struct ipu_exe_file_header - first bytes of an executable file.
 * @magic: IPU_EXE_MAGIC.
 * @version: IPU_EXE_VERSION; a reader rejects versions it does not know.
 * @header_size: sizeof(struct ipu_exe_file_header).
 * @num_blobs: descriptors following the header.
 * @file_size: bytes of the whole file.
 * @desc_crc32: CRC32 of the descriptor array.
 * @reserved: zero.
 */
struct ipu_exe_file_header {
	uint32_t magic;
	uint32_t version;
	uint32_t header_size;
	uint32_t num_blobs;
	uint64_t file_size;
	uint32_t desc_crc32;
	uint32_t reserved;
};

/**
 * struct ipu_exe_blob_desc - where one blob is.
 * @type: enum ipu_exe_blob_type.
 * @crc32: CRC32 of the payload.
 * @offset: from the start of the file, 8-byte aligned.
 * @size: bytes of payload.
 */
struct ipu_exe_blob_desc {
	uint32_t type;
	uint32_t crc32;
	uint64_t offset;
	uint64_t size;
};

/* The META blob. Strings are STRTAB offsets. */
struct ipu_exe_file_meta {
	uint32_t name;
	uint32_t num_host_transfers;
	uint32_t replication_factor;
	uint32_t instance_replication_factor;
	uint32_t ipus_per_replica;
	uint32_t reserved;
	uint64_t arena_size;
};

/* One entry of the TENSORS blob: struct ipu_exe_tensor with string offsets
 * (mmap_path: 0 = none, as offset 0 of STRTAB is always ""). */
struct ipu_exe_file_tensor {
	uint32_t name;
	uint32_t kind;
	uint32_t dtype;
	uint32_t flags;
	uint32_t ndim;
	uint32_t group_size;
	uint32_t group_stride;
	uint32_t retrieval;
	uint64_t shape[IPU_EXE_MAX_DIMS];
	uint64_t offset;
	uint64_t data_offset;
	uint64_t data_size;
	uint32_t mmap_path;
	uint32_t reserved;
};

/* One entry of the STREAMS blob. */
struct ipu_exe_file_stream {
	uint32_t name;
	uint32_t direction;
	uint32_t dtype;
	uint32_t ndim;
	uint64_t shape[IPU_EXE_MAX_DIMS];
	uint64_t slots_offset;
};

/* One entry of the INSTRS blob; fparams as IEEE binary32 bits. */
struct ipu_exe_file_instr {
	uint32_t op;
	uint32_t num_operands;
	uint32_t first_operand;
	uint32_t num_params;
	uint32_t first_param;
	uint32_t fparams[2];
	uint32_t reserved;
};

/* ---------------------------------------------------------------------- */
/* API (firmware/exe_*.c)                                                  */
/* ---------------------------------------------------------------------- */

/**
 * ipu_exe_validate() - check that @exe is internally consistent: every
 * index, offset, size, count, dtype, opcode, shape and parameter in range,
 * operand shapes and dtypes as each opcode requires, loops well nested,
 * tensors inside the arena, stream slots inside the arena, initial data
 * inside the data, owned memory shared only as "Shared memory" allows.
 * @errbuf: out: a message naming what is wrong; may be NULL.
 * @errlen: bytes of @errbuf.
 *
 * The firmware runs only validated executables; ipu_exe_load() validates.
 *
 * Return: 0, or -EINVAL (the message says why); -ENOMEM.
 */
int ipu_exe_validate(const struct ipu_exe *exe, char *errbuf, size_t errlen);

/**
 * ipu_exe_load() - parse an executable file held in memory.
 * @buf, @len: the file's bytes; not referenced after the call.
 * @exep: out: the executable, free it with ipu_exe_free().
 * @errbuf, @errlen: as ipu_exe_validate().
 *
 * Return: 0; -EINVAL for anything malformed (bad magic, unknown version,
 * checksum mismatch, truncation, any out-of-range value; the message says
 * which); -ENOMEM.
 */
int ipu_exe_load(const void *buf, size_t len, struct ipu_exe **exep,
		 char *errbuf, size_t errlen);

/**
 * ipu_exe_save() - serialise @exe.
 * @bufp, @lenp: out: a malloc()ed buffer holding the file; the caller frees it.
 *
 * Return: 0; -EINVAL when @exe does not validate; -ENOMEM.
 */
int ipu_exe_save(const struct ipu_exe *exe, void **bufp, size_t *lenp,
		 char *errbuf, size_t errlen);

/**
 * ipu_exe_read_file() / ipu_exe_write_file() - the same, from and to a path.
 *
 * Return: as ipu_exe_load() / ipu_exe_save(), plus -errno of the I/O.
 */
int ipu_exe_read_file(const char *path, struct ipu_exe **exep, char *errbuf,
		      size_t errlen);
int ipu_exe_write_file(const struct ipu_exe *exe, const char *path,
		       char *errbuf, size_t errlen);

/** ipu_exe_free() - free an executable; NULL is a no-op. */
void ipu_exe_free(struct ipu_exe *exe);

/** ipu_exe_find_tensor() - index of the tensor named @name, or -ENOENT. */
int ipu_exe_find_tensor(const struct ipu_exe *exe, const char *name);

/** ipu_exe_find_stream() - index of the stream named @name, or -ENOENT. */
int ipu_exe_find_stream(const struct ipu_exe *exe, const char *name);

/** ipu_exe_op_name() - name of opcode @op ("add", ...), "invalid" if none. */
const char *ipu_exe_op_name(uint32_t op);

/*
 * Replica groupings (S20), as PopART's ReplicaGrouping lays them out:
 * groups fill blocks of @stride * @group_size consecutive replicas; inside
 * a block, group members are @stride apart (with @group_size 1 every
 * replica is its own group, whatever the stride). The arguments must satisfy the validator's
 * rules (every variable and ALL_REDUCE of a validated executable does).
 */

/** ipu_exe_num_groups() - groups of @replicas replicas of @group_size. */
static inline uint32_t ipu_exe_num_groups(uint32_t replicas,
					  uint32_t group_size)
{
	return replicas / group_size;
}

/** ipu_exe_replica_group() - the group that @replica belongs to. */
static inline uint32_t ipu_exe_replica_group(uint32_t group_size,
					     uint32_t stride, uint32_t replica)
{
	return replica % stride + stride * (replica / (stride * group_size));
}

/** ipu_exe_group_replica() - replica number @index (< @group_size) of
 * group @group. */
static inline uint32_t ipu_exe_group_replica(uint32_t group_size,
					     uint32_t stride, uint32_t group,
					     uint32_t index)
{
	return group / stride * (stride * group_size) + group % stride +
	       index * stride;
}

/**
 * ipu_exe_tensor_group() - the group whose value replica @replica of a
 * validated variable @t holds, stride-based or assigned.
 */
static inline uint32_t ipu_exe_tensor_group(const struct ipu_exe_tensor *t,
					    uint32_t replica)
{
	if (t->group_assignment)
		return t->group_assignment[replica];
	return ipu_exe_replica_group(t->group_size, t->group_stride, replica);
}

/**
 * ipu_exe_tensor_group_replica() - replica number @index (< group_size) of
 * group @group of a validated variable @t of an executable of @replicas
 * replicas (for assigned groupings, in replica order).
 */
static inline uint32_t ipu_exe_tensor_group_replica(
	const struct ipu_exe_tensor *t, uint32_t replicas, uint32_t group,
	uint32_t index)
{
	if (t->group_assignment) {
		for (uint32_t r = 0; r < replicas; r++)
			if (t->group_assignment[r] == group && !index--)
				return r;
		return 0; /* not reached for validated arguments */
	}
	return ipu_exe_group_replica(t->group_size, t->group_stride, group,
				     index);
}

#ifdef __cplusplus
}
#endif

#endif /* IPU_EXE_H */
