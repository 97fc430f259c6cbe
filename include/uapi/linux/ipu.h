/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ipu.h - user <-> kernel contract of the IPU driver (ipu.ko)
 *
 * Each IPU is a character device /dev/ipuN. The rules this header follows are
 * those of Documentation/process/botching-up-ioctls.rst:
 *
 *  - only fixed-size types, pointers carried in __u64, explicit padding, every
 *    struct a multiple of 8 bytes;
 *  - every flags field has an ..._FLAGS_ALL mask; unknown flags and non-zero
 *    padding or reserved fields are rejected with -EINVAL;
 *  - an unknown command is -ENOTTY.
 *
 * Extending a struct: new members are only ever appended. The size of the
 * struct is encoded in the ioctl number, and the kernel accepts any size that
 * is at least the v1 size (smaller: -EINVAL). Bytes the caller passes beyond
 * what the running kernel knows must be zero (else -E2BIG); bytes the kernel
 * returns beyond what the caller passed are dropped; bytes the caller asked for
 * beyond what the kernel knows are zeroed. So old binaries run on new kernels
 * and new binaries learn from IPU_IOCTL_GET_INFO what the kernel supports.
 *
 * Resources (buffer-object handles, the attachment) belong to the open file
 * and are released when it is closed.
 *
 * Errors every command shares: -ENOTTY for an unknown command; -EINVAL for a
 * struct smaller than v1, unknown flags, non-zero padding, reserved or
 * output-only fields; -E2BIG for non-zero bytes past the struct this kernel
 * knows; -EFAULT for an argument pointer the kernel cannot read or write
 * (a command that fails so has done nothing: no buffer object, no launch);
 * -ENOMEM; and -ENODEV for every command, mmap() and io_uring command on a
 * file whose device was removed (hot unplug). Each command lists its own.
 */
#ifndef _UAPI_LINUX_IPU_H
#define _UAPI_LINUX_IPU_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define IPU_IOCTL_TYPE 0xC3

/** IPU_API_VERSION - version of this interface reported by GET_INFO. */
#define IPU_API_VERSION 1

/* Values of &ipu_info.platform. */
#define IPU_PLATFORM_SIM 1 /* simulated IPU, device memory is kernel memory */
#define IPU_PLATFORM_PCI 2 /* IPU on a PCI bus */

/*
 * Feature bits of &ipu_info.features: what this kernel and this device
 * implement. Userspace must test a bit before it relies on the feature.
 */
#define IPU_FEATURE_BO		(1ULL << 0) /* BO_CREATE, BO_DESTROY, BO_INFO */
#define IPU_FEATURE_MMAP	(1ULL << 1) /* mmap() of buffer objects */
#define IPU_FEATURE_XFER	(1ULL << 2) /* synchronous XFER ioctl */
#define IPU_FEATURE_RESET	(1ULL << 3) /* RESET ioctl */
#define IPU_FEATURE_HOTPLUG	(1ULL << 4) /* device may vanish: -ENODEV */
#define IPU_FEATURE_URING_CMD	(1ULL << 8) /* io_uring passthrough */
#define IPU_FEATURE_LAUNCH	(1ULL << 9) /* LAUNCH and WAIT */
#define IPU_FEATURE_URING_FIXED	(1ULL << 10) /* IORING_URING_CMD_FIXED */
#define IPU_FEATURE_FW_SIM	(1ULL << 11) /* FW_* role: firmware in userspace */
#define IPU_FEATURE_GATHER	(1ULL << 12) /* split launches, GATHER_* */
#define IPU_FEATURE_PROFILE	(1ULL << 13) /* IPU_LAUNCH_PROFILE */

/**
 * struct ipu_info - IPU_IOCTL_GET_INFO output; allowed without attaching.
 * @api_version: IPU_API_VERSION of the running kernel.
 * @platform: IPU_PLATFORM_SIM or IPU_PLATFORM_PCI.
 * @features: IPU_FEATURE_* bits.
 * @memory_total: bytes of device memory.
 * @memory_used: bytes of device memory held by buffer objects of all files.
 * @serial: serial number of the device.
 * @firmware_version: (major << 16) | (minor << 8) | patch.
 * @owner_pid: pid (in the caller's pid namespace) of the process that
 *	attached the device, 0 when the device is not attached.
 * @pci_domain: PCI domain when @platform is IPU_PLATFORM_PCI, else 0.
 * @pci_bdf: (bus << 8) | (device << 3) | function when PCI, else 0.
 * @reset_count: number of resets since the device appeared.
 * @mem_page_size: allocation granule of device memory, in bytes; BO sizes
 *	are rounded up to it.
 * @pad: zero.
 */
struct ipu_info {
	__u32 api_version;
	__u32 platform;
	__u64 features;
	__u64 memory_total;
	__u64 memory_used;
	__u64 serial;
	__u32 firmware_version;
	__u32 owner_pid;
	__u32 pci_domain;
	__u32 pci_bdf;
	__u64 reset_count;
	__u32 mem_page_size;
	__u32 pad;
};

/**
 * struct ipu_attach - IPU_IOCTL_ATTACH input.
 * @flags: zero; no flags are defined in v1.
 * @pad: zero.
 *
 * Makes the calling file the exclusive owner of the device. Owning the device
 * is required to allocate its memory (BO_CREATE) and to drive it (XFER,
 * LAUNCH, RESET). Errors: -EBUSY when another file owns the device,
 * -EALREADY when this file does.
 */
struct ipu_attach {
	__u32 flags;
	__u32 pad;
};

#define IPU_ATTACH_FLAGS_ALL 0u

/**
 * struct ipu_detach - IPU_IOCTL_DETACH input.
 * @flags: zero; no flags are defined in v1.
 * @pad: zero.
 *
 * Gives up ownership. The file's buffer objects stay valid; only the owner
 * may transfer to them. Errors: -EACCES when this file is not the owner.
 */
struct ipu_detach {
	__u32 flags;
	__u32 pad;
};

#define IPU_DETACH_FLAGS_ALL 0u

/**
 * struct ipu_bo_create - IPU_IOCTL_BO_CREATE input and output.
 * @size: in: bytes wanted, > 0; rounded up to &ipu_info.mem_page_size.
 *	out: the rounded size.
 * @flags: zero; no flags are defined in v1.
 * @handle: out (zero on input): handle of the new buffer object, valid in
 *	this file only, never 0.
 * @device_addr: out (zero on input): address of the buffer in the device's
 *	address space.
 * @mmap_offset: out (zero on input): offset to pass to mmap() on this file
 *	to map the buffer.
 *
 * Allocates device memory, zero-filled: no process sees bytes that an earlier
 * user left. Requires attachment (-EACCES). -ENOSPC when the device has no
 * free range that large (or no free handle), -ENOMEM when the kernel is out
 * of memory, -EINVAL for a zero size or a non-zero output field, -EFAULT
 * (and no buffer) when the result cannot be written back.
 */
struct ipu_bo_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u64 device_addr;
	__u64 mmap_offset;
};

#define IPU_BO_CREATE_FLAGS_ALL 0u

/**
 * struct ipu_bo_destroy - IPU_IOCTL_BO_DESTROY input.
 * @handle: handle from BO_CREATE in this file.
 * @pad: zero.
 *
 * Drops the handle; the memory is freed once no mapping, transfer or launch
 * uses it any more. -ENOENT for a handle this file does not hold.
 */
struct ipu_bo_destroy {
	__u32 handle;
	__u32 pad;
};

/**
 * struct ipu_bo_info - IPU_IOCTL_BO_INFO input and output.
 * @handle: in: handle from BO_CREATE in this file.
 * @pad: zero.
 * @size: out (zero on input): size in bytes.
 * @device_addr: out (zero on input): device address.
 * @mmap_offset: out (zero on input): offset to pass to mmap().
 *
 * -ENOENT for a handle this file does not hold; -EINVAL for non-zero @pad
 * or output fields.
 */
struct ipu_bo_info {
	__u32 handle;
	__u32 pad;
	__u64 size;
	__u64 device_addr;
	__u64 mmap_offset;
};

/* Direction of a transfer, &ipu_xfer.flags: exactly one must be set. */
#define IPU_XFER_TO_DEVICE	(1u << 0) /* host memory -> buffer object */
#define IPU_XFER_FROM_DEVICE	(1u << 1) /* buffer object -> host memory */
#define IPU_XFER_FLAGS_ALL	(IPU_XFER_TO_DEVICE | IPU_XFER_FROM_DEVICE)

/**
 * struct ipu_xfer - IPU_IOCTL_XFER input: one DMA transfer.
 * @user_ptr: address of the host buffer in the caller's memory.
 * @bo_offset: byte offset into the buffer object.
 * @length: bytes to move, > 0; @bo_offset + @length must not pass the end of
 *	the buffer object, @user_ptr + @length must not wrap.
 * @handle: buffer object of this file.
 * @flags: exactly one of IPU_XFER_TO_DEVICE, IPU_XFER_FROM_DEVICE.
 * @reserved: zero.
 *
 * The kernel pins the host pages and has the device copy them. Synchronous:
 * returns when the data has arrived. Requires attachment (-EACCES).
 * -EFAULT when the host range is not mapped (or not writable for
 * IPU_XFER_FROM_DEVICE), or is device memory mapped with mmap() (buffer
 * objects and the firmware's mapping cannot be pinned); -ENOENT for an
 * unknown handle; -EINVAL for a zero @length, a range outside the buffer or
 * one that wraps (@bo_offset + @length or @user_ptr + @length past 2^64);
 * -EIO when the device fails the transfer (host pages it may have written
 * are marked dirty all the same); -EINTR when a fatal signal stops it
 * between chunks.
 *
 * Through io_uring (IPU_URING_CMD_XFER), the same, plus: -EINVAL for
 * @length above 1 GiB (the range is pinned whole); with
 * IORING_URING_CMD_FIXED, -EFAULT for a bad sqe->buf_index or a range not
 * inside that registered buffer; -EAGAIN when this file has the module
 * parameter max_uring_xfers (default IPU_MAX_URING_XFERS) io_uring
 * transfers in flight (each counts until its CQE is posted).
 */
/*
 * io_uring transfers one file may have in flight by default (-EAGAIN
 * beyond): as many as one io_uring ring can hold (IORING_MAX_ENTRIES), so
 * that a ring's batch never meets it; ipu.max_uring_xfers changes it.
 */
#define IPU_MAX_URING_XFERS 32768

struct ipu_xfer {
	__u64 user_ptr;
	__u64 bo_offset;
	__u64 length;
	__u32 handle;
	__u32 flags;
	__u64 reserved;
};

/**
 * struct ipu_reset - IPU_IOCTL_RESET input.
 * @flags: zero; no flags are defined in v1.
 * @pad: zero.
 *
 * Resets the device's execution state and increments &ipu_info.reset_count.
 * Buffer objects and their handles survive; what the device memory holds
 * afterwards is device-specific (the simulated IPU keeps it). Requires
 * attachment (-EACCES). -EIO when the device fails to reset: the launches
 * in flight have failed and the firmware is revoked all the same, and
 * &ipu_info.reset_count does not change.
 */
struct ipu_reset {
	__u32 flags;
	__u32 pad;
};

#define IPU_RESET_FLAGS_ALL 0u

/*
 * Flags of &ipu_launch.flags. IPU_LAUNCH_PROFILE: the firmware records when
 * each op of the program started and ended into the profile buffer
 * &ipu_launch.profile_handle (layout: struct ipu_profile_header below).
 */
#define IPU_LAUNCH_PROFILE (1u << 0)
#define IPU_LAUNCH_FLAGS_ALL IPU_LAUNCH_PROFILE

/**
 * struct ipu_launch - IPU_IOCTL_LAUNCH and IPU_URING_CMD_LAUNCH: run a
 * program on the device.
 * @exe_handle: buffer object whose first @exe_size bytes are an executable
 *	image (the format of include/ipu/exe.h; the firmware validates it).
 * @arena_handle: buffer object holding this replica's arena.
 * @exe_size: bytes of the image, > 0, inside the buffer.
 * @arena_offset: where the arena starts in its buffer object; a multiple of
 *	64.
 * @arena_size: bytes of the arena, > 0; the range must lie in the buffer.
 * @replica: this replica's index, < @num_replicas.
 * @num_replicas: replicas of the program. A program with several replicas
 *	is several launches, one per replica, possibly on several devices,
 *	that share @group; the firmware runs them together.
 * @group: identifies the launches of one run of a replicated program; must
 *	be non-zero when @num_replicas > 1. Chosen by userspace, unique among
 *	its launches in flight.
 * @flags: IPU_LAUNCH_PROFILE or zero.
 * @profile_handle: with IPU_LAUNCH_PROFILE, a buffer object of this file
 *	other than @exe_handle, @arena_handle and @staging_handle: the
 *	profile buffer, the whole object (from offset 0, its size), where
 *	the firmware writes the launch's op records (struct
 *	ipu_profile_header) before the launch completes; referenced until
 *	it does. Launches in flight that name one buffer each write all of
 *	it (the last to finish wins): one buffer per launch in flight, as
 *	libipu does. Zero without the flag. -EOPNOTSUPP on a device without
 *	IPU_FEATURE_PROFILE. (In the v1 struct's padding: the
 *	struct fills the 80 bytes of an io_uring command, so the buffer
 *	has no offset or size of its own.)
 * @fence: out (ioctl only; zero on input): pass it to IPU_IOCTL_WAIT;
 *	1-256.
 *
 * Requires attachment (-EACCES). The launch completes when the firmware
 * reports the program done: with io_uring the CQE result is 0 or a negative
 * errno; with the ioctl, WAIT returns it. The ioctl writes @fence back
 * before the launch starts: when it cannot (-EFAULT), nothing starts.
 *
 * Errors of the submission (the ioctl's return, or the CQE): -EINVAL for a
 * malformed argument (or IORING_URING_CMD_FIXED), -ENOENT for an unknown
 * handle, -EUNATCH when no firmware is attached to the device (simulated
 * IPUs: ipu-simd is not running), -EAGAIN when this file has 256 launches
 * in flight (ioctl launches count until WAIT consumes their fence,
 * io_uring launches until their CQE), -ENODEV.
 *
 * Results of the launch (the CQE, or &ipu_wait.status): 0; -ETIMEDOUT when
 * the firmware did not finish within the device timeout (module parameter
 * launch_timeout_ms; the device is then reset); -EIO when the device was
 * reset meanwhile or the firmware failed; -ECANCELED when io_uring
 * cancelled it before it ran (ring exit); -ENODEV when the device was
 * removed; and what the firmware reports for the program: -ENOEXEC when
 * the image is not an executable, -EINVAL when it is malformed or its arena
 * does not fit, other errnos as the program runs (-ERANGE, -ENOMEM, ...;
 * include/ipu/firmware.h). A firmware never passes a kernel-internal code:
 * anything that is not a userspace errno arrives as -EIO.
 *
 * Split launches (IPU_FEATURE_GATHER; docs/instances.md): a program split
 * across instances (processes) runs this process's replicas of it; its
 * all-reduces need the other instances' operands, which the device asks
 * this file for (IPU_IOCTL_GATHER_NEXT, GATHER_ANSWER).
 * @instance_count: 0 for a program of one instance (the v1 launch: the
 *	fields below must be 0), else the instance count, 1..4096.
 * @instance_index: which instance this process is, < @instance_count.
 * @staging_handle: a buffer object of this file: the staging area, where
 *	the device writes its part of a gather and the host the others'.
 *	Referenced until the launch completes.
 * @staging_size: bytes of the staging area, > 0.
 * @staging_offset: where it starts in its buffer object, a multiple of
 *	64; the range must lie in the buffer.
 * (The v1 struct ends at @fence: IPU_LAUNCH_SIZE_V1 bytes.)
 * Errors of a split launch: -EINVAL as above, -ENOENT for an unknown
 * staging handle, -EOPNOTSUPP on a device without gather requests
 * (simulated IPUs: their firmware, ipu-simd, asks libsession directly).
 * Its result: also -EIO (or the errno GATHER_ANSWER gave) when a gather
 * failed, -ECANCELED when the file was closed with the gather pending.
 */
struct ipu_launch {
	__u32 exe_handle;
	__u32 arena_handle;
	__u64 exe_size;
	__u64 arena_offset;
	__u64 arena_size;
	__u32 replica;
	__u32 num_replicas;
	__u64 group;
	__u32 flags;
	__u32 profile_handle;
	__u64 fence;
	__u32 staging_handle;
	__u32 staging_size;
	__u32 staging_offset;
	__u16 instance_index;
	__u16 instance_count;
};

/*
 * Bytes of the v1 struct ipu_launch, without the split launch's fields
 * (which keep the struct within the 80 bytes of an io_uring command).
 */
#define IPU_LAUNCH_SIZE_V1 64
#define IPU_LAUNCH_MAX_INSTANCES 4096
/* Largest errno GATHER_ANSWER may report. */
#define IPU_GATHER_MAX_ERRNO 4095

/*
 * Profile buffers (IPU_LAUNCH_PROFILE). The firmware writes the records of
 * the ops it executed, in the order executed (a loop's body once per
 * iteration; loop control is not recorded), after the header; then the
 * header, last, before the launch completes, whatever the run's result (a
 * failed run's records stop at the op that failed; a launch refused before
 * it ran, e.g. a malformed image, leaves the buffer as it was). A firmware
 * built before profiles writes nothing. Times are nanoseconds of the
 * device's clock since the launch started on the device. What does not fit
 * the buffer is counted in @dropped, with IPU_PROFILE_OVERFLOW set. A
 * buffer smaller than the header, or larger than IPU_PROFILE_MAX_BYTES,
 * is refused (-EINVAL). Devices with IPU_FEATURE_PROFILE take profiled
 * launches (simulated IPUs; PCI IPUs whose CAPS has PROFILE, spec 2.1);
 * others refuse them (-EOPNOTSUPP).
 */
#define IPU_PROFILE_MAGIC	0x46525049u	/* "IPRF", little-endian */
#define IPU_PROFILE_OVERFLOW	(1u << 0)
#define IPU_PROFILE_MAX_BYTES	(4u << 20)

/**
 * struct ipu_profile_header - the start of a written profile buffer.
 * @magic: IPU_PROFILE_MAGIC once the firmware wrote the buffer.
 * @flags: IPU_PROFILE_OVERFLOW when ops were left out for room.
 * @count: records that follow the header.
 * @record_size: bytes of one record, sizeof(struct ipu_profile_record).
 * @dropped: ops executed that had no room left.
 * @reserved: zero.
 */
struct ipu_profile_header {
	__u32 magic;
	__u32 flags;
	__u32 count;
	__u32 record_size;
	__u64 dropped;
	__u64 reserved;
};

/**
 * struct ipu_profile_record - one op a launch executed.
 * @index: its index in the program's instructions.
 * @op: its op code (enum ipu_op of include/ipu/exe.h).
 * @start_ns: when it began, ns since the launch started on the device.
 * @end_ns: when it ended, likewise.
 */
struct ipu_profile_record {
	__u32 index;
	__u32 op;
	__u64 start_ns;
	__u64 end_ns;
};

/**
 * struct ipu_gather_next - IPU_IOCTL_GATHER_NEXT output: the oldest gather
 * request of this file's split launches that no call took yet.
 * @token: out: names the request to GATHER_ANSWER; never 0.
 * @group: out: the launch's &ipu_launch.group.
 * @staging_offset: out: the launch's &ipu_launch.staging_offset.
 * @bytes: out: each instance's part; part i is at @staging_offset +
 *	i * @bytes in the staging buffer object. The device wrote part
 *	@instance_index; the host writes every other before it answers.
 * @staging_handle: out: the launch's staging buffer object.
 * @replica: out: the launch's &ipu_launch.replica.
 * @instance_index: out: the launch's.
 * @instance_count: out: the launch's.
 * @collective: out: which gather of the run, from 0.
 * @flags: zero.
 *
 * Never blocks: -EAGAIN when no request is waiting. The file polls
 * readable (EPOLLIN | EPOLLPRI) while one is, and EPOLLERR | EPOLLHUP once
 * the device is unplugged. Every field must be zero on input (-EINVAL).
 * Requests a reset forgot are not returned, nor is one whose staging
 * buffer's handle was destroyed (the handle may name another buffer now):
 * the kernel answers it -EBADF, which its launch fails with.
 */
struct ipu_gather_next {
	__u64 token;
	__u64 group;
	__u64 staging_offset;
	__u64 bytes;
	__u32 staging_handle;
	__u32 replica;
	__u32 instance_index;
	__u32 instance_count;
	__u32 collective;
	__u32 flags;
};

/**
 * struct ipu_gather_answer - IPU_IOCTL_GATHER_ANSWER input.
 * @token: from GATHER_NEXT in this file.
 * @status: 0 (the other parts are in the staging area: the run goes on) or
 *	a negative errno, -1..-4095 (the launch fails with it).
 * @flags: zero.
 *
 * -ENOENT for a token this file was not given, one answered already, or
 * one a reset (or the launch's end) made stale; -EINVAL for flags or a
 * status out of range.
 */
struct ipu_gather_answer {
	__u64 token;
	__s32 status;
	__u32 flags;
};

/**
 * struct ipu_wait - IPU_IOCTL_WAIT input and output.
 * @fence: from IPU_IOCTL_LAUNCH in this file.
 * @timeout_ns: absolute CLOCK_MONOTONIC time at which to give up; 0 polls.
 * @status: out: the launch's result, 0 or a negative errno.
 * @flags: zero.
 *
 * Waits (interruptibly) for the launch to complete and consumes the fence.
 * Returns -ETIME when the timeout passes first (the fence stays valid),
 * -ENOENT for an unknown or already consumed fence (0, above 256, or of
 * another file), -EINVAL for non-zero @flags or @status on input,
 * -ERESTARTSYS (restarted or -EINTR) on a signal.
 */
struct ipu_wait {
	__u64 fence;
	__s64 timeout_ns;
	__s32 status;
	__u32 flags;
};

#define IPU_WAIT_FLAGS_ALL 0u

/*
 * Firmware role. A simulated IPU has no processor: its firmware runs in
 * userspace (ipu-simd). A file that becomes the device's firmware (FW_ATTACH,
 * CAP_SYS_ADMIN, simulated devices only) can mmap the whole device memory at
 * mmap offset 0 (IPU_FW_MMAP_OFFSET), takes launches with FW_NEXT and reports
 * their results with FW_DONE. One firmware file per device; closing it
 * detaches the firmware (launches in flight then time out).
 */
#define IPU_FW_MMAP_OFFSET 0ULL

/**
 * struct ipu_fw_attach - IPU_IOCTL_FW_ATTACH input.
 * @flags: zero.
 * @pad: zero.
 *
 * Errors: -EPERM without CAP_SYS_ADMIN, -EOPNOTSUPP on a device whose
 * firmware is not in userspace, -EBUSY when another file is the firmware,
 * -EALREADY when this file is.
 *
 * The firmware is revoked (its file stops being the firmware: -ENOLINK from
 * FW_NEXT and FW_DONE) when the device is reset (RESET, or a missed launch
 * deadline); its mapping of device memory is then zapped for good: touching
 * it raises SIGBUS even after the same file attaches again, which needs a
 * new mmap().
 */
struct ipu_fw_attach {
	__u32 flags;
	__u32 pad;
};

/**
 * struct ipu_fw_work - IPU_IOCTL_FW_NEXT output: one launch to run.
 * @timeout_ns: in: absolute CLOCK_MONOTONIC time at which to give up
 *	waiting (-ETIME); 0 polls.
 * @id: out: pass it to FW_DONE.
 * @exe_offset: out: offset of the executable image in device memory.
 * @exe_size: out: its bytes.
 * @arena_offset: out: offset of the replica's arena in device memory.
 * @arena_size: out: its bytes.
 * @replica: out: as &ipu_launch.replica.
 * @num_replicas: out: as &ipu_launch.num_replicas.
 * @group: out: as &ipu_launch.group.
 * @pid: out: thread group (initial pid namespace) that launched; with
 *	@group it identifies the launches of one run across devices.
 * @pad: out: zero.
 * @profile_offset: out: offset of the launch's profile buffer in device
 *	memory (IPU_LAUNCH_PROFILE), or 0.
 * @profile_size: out: its bytes, or 0 when the launch is not profiled.
 *	(Both after the v1 struct, IPU_FW_WORK_SIZE_V1 bytes: a firmware
 *	built before them runs every launch unprofiled.)
 *
 * All fields but @timeout_ns must be zero on input (-EINVAL). -ENOLINK
 * when this file is not (or no longer) the firmware, -ETIME when the
 * timeout passed with no launch, -ERESTARTSYS on a signal.
 */
struct ipu_fw_work {
	__s64 timeout_ns;
	__u64 id;
	__u64 exe_offset;
	__u64 exe_size;
	__u64 arena_offset;
	__u64 arena_size;
	__u32 replica;
	__u32 num_replicas;
	__u64 group;
	__u32 pid;
	__u32 pad;
	__u64 profile_offset;
	__u64 profile_size;
};

#define IPU_FW_WORK_SIZE_V1 64

/**
 * struct ipu_fw_done - IPU_IOCTL_FW_DONE input.
 * @id: from FW_NEXT.
 * @status: the result, 0 or a negative errno (-ENOEXEC: not an executable,
 *	-EINVAL: a malformed program). A value that is not a userspace errno
 *	(below -133, e.g. a kernel-internal -ERESTARTSYS) completes the launch
 *	with -EIO.
 * @pad: zero.
 *
 * -EINVAL for a positive @status; -ENOLINK when this file is not the
 * firmware; -ENOENT for an id that is not in flight (e.g. it timed out
 * meanwhile).
 */
struct ipu_fw_done {
	__u64 id;
	__s32 status;
	__u32 pad;
};

/*
 * Command numbers. 0x0c-0x0f are reserved; 0x10-0x1f are the firmware
 * role's. io_uring command opcodes (cmd_op) use 0x20 and up, encoded with
 * _IOWR like the ioctls, so that size and direction are checked the same
 * way; their payload is the same struct, in the SQE's 80-byte command area
 * (the ring must be set up with IORING_SETUP_SQE128, else -EINVAL).
 *
 * Keep an SQE slot untouched until the command it carried has completed:
 * io_uring may read a uring command's SQE when it issues the command, which
 * can be after io_uring_submit() returned (seen on 6.12 with IOSQE_IO_LINK
 * chains on IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN rings),
 * so reusing the slot early can redirect the command. libipu never does.
 */
#define IPU_IOCTL_GET_INFO	_IOR(IPU_IOCTL_TYPE, 0x00, struct ipu_info)
#define IPU_IOCTL_ATTACH	_IOW(IPU_IOCTL_TYPE, 0x01, struct ipu_attach)
#define IPU_IOCTL_DETACH	_IOW(IPU_IOCTL_TYPE, 0x02, struct ipu_detach)
#define IPU_IOCTL_BO_CREATE	_IOWR(IPU_IOCTL_TYPE, 0x03, struct ipu_bo_create)
#define IPU_IOCTL_BO_DESTROY	_IOW(IPU_IOCTL_TYPE, 0x04, struct ipu_bo_destroy)
#define IPU_IOCTL_BO_INFO	_IOWR(IPU_IOCTL_TYPE, 0x05, struct ipu_bo_info)
#define IPU_IOCTL_XFER		_IOW(IPU_IOCTL_TYPE, 0x06, struct ipu_xfer)
#define IPU_IOCTL_RESET		_IOW(IPU_IOCTL_TYPE, 0x07, struct ipu_reset)
#define IPU_IOCTL_LAUNCH	_IOWR(IPU_IOCTL_TYPE, 0x08, struct ipu_launch)
#define IPU_IOCTL_WAIT		_IOWR(IPU_IOCTL_TYPE, 0x09, struct ipu_wait)
#define IPU_IOCTL_GATHER_NEXT	_IOWR(IPU_IOCTL_TYPE, 0x0a, struct ipu_gather_next)
#define IPU_IOCTL_GATHER_ANSWER	_IOW(IPU_IOCTL_TYPE, 0x0b, struct ipu_gather_answer)

#define IPU_IOCTL_FW_ATTACH	_IOW(IPU_IOCTL_TYPE, 0x10, struct ipu_fw_attach)
#define IPU_IOCTL_FW_NEXT	_IOWR(IPU_IOCTL_TYPE, 0x11, struct ipu_fw_work)
#define IPU_IOCTL_FW_DONE	_IOW(IPU_IOCTL_TYPE, 0x12, struct ipu_fw_done)

/*
 * io_uring passthrough (IORING_OP_URING_CMD). XFER may use a registered
 * buffer: set IORING_URING_CMD_FIXED in sqe->uring_cmd_flags and
 * sqe->buf_index; user_ptr then points into that registered buffer. The
 * CQE's result is 0 or a negative errno, so IOSQE_IO_LINK chains stop at
 * the first failure.
 */
#define IPU_URING_CMD_XFER	_IOWR(IPU_IOCTL_TYPE, 0x20, struct ipu_xfer)
#define IPU_URING_CMD_LAUNCH	_IOWR(IPU_IOCTL_TYPE, 0x21, struct ipu_launch)

/*
 * mmap(): map a buffer object by passing its mmap_offset (plus a page-aligned
 * offset into the buffer) as the offset. Mappings must be MAP_SHARED (a file
 * opened read-only maps read-only: PROT_WRITE gives -EACCES); the range must
 * lie inside the buffer (-EINVAL). A mapping keeps the memory alive after
 * BO_DESTROY or close(); access after the device is removed raises SIGBUS
 * for pages not touched before. Mappings of device memory are page-frame
 * mappings (VM_PFNMAP | VM_IO): they cannot be pinned, so vmsplice(),
 * O_DIRECT, io_uring buffer registration and XFER from or to them fail with
 * -EFAULT.
 */

#endif /* _UAPI_LINUX_IPU_H */
