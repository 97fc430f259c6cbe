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
/* Reserved for later versions; never set by a v1 kernel. */
#define IPU_FEATURE_URING_CMD	(1ULL << 8) /* io_uring passthrough */
#define IPU_FEATURE_LAUNCH	(1ULL << 9) /* LAUNCH and WAIT */

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
 * RESET). Errors: -EBUSY when another file owns the device, -EALREADY when
 * this file does.
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
 * @handle: out: handle of the new buffer object, valid in this file only,
 *	never 0.
 * @device_addr: out: address of the buffer in the device's address space.
 * @mmap_offset: out: offset to pass to mmap() on this file to map the buffer.
 *
 * Allocates device memory, zero-filled: no process sees bytes that an earlier
 * user left. Requires attachment (-EACCES). -ENOSPC when the device has no
 * free range that large, -ENOMEM when the kernel is out of memory.
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
 * Drops the handle; the memory is freed once no mapping and no transfer uses
 * it any more. -ENOENT for a handle this file does not hold.
 */
struct ipu_bo_destroy {
	__u32 handle;
	__u32 pad;
};

/**
 * struct ipu_bo_info - IPU_IOCTL_BO_INFO input and output.
 * @handle: in: handle from BO_CREATE in this file.
 * @pad: zero.
 * @size: out: size in bytes.
 * @device_addr: out: device address.
 * @mmap_offset: out: offset to pass to mmap().
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
 * IPU_XFER_FROM_DEVICE), -ENOENT for an unknown handle, -EINVAL for a range
 * outside the buffer or one that wraps (@bo_offset + @length or @user_ptr +
 * @length past 2^64), -EIO when the device fails the transfer.
 */
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
 * attachment (-EACCES).
 */
struct ipu_reset {
	__u32 flags;
	__u32 pad;
};

#define IPU_RESET_FLAGS_ALL 0u

/*
 * Command numbers. 0x08-0x1f are reserved for the launch and wait commands
 * and for firmware control; io_uring command opcodes (cmd_op) use 0x20 and
 * up, encoded with _IOWR like the ioctls so that size and direction are
 * checked the same way.
 */
#define IPU_IOCTL_GET_INFO	_IOR(IPU_IOCTL_TYPE, 0x00, struct ipu_info)
#define IPU_IOCTL_ATTACH	_IOW(IPU_IOCTL_TYPE, 0x01, struct ipu_attach)
#define IPU_IOCTL_DETACH	_IOW(IPU_IOCTL_TYPE, 0x02, struct ipu_detach)
#define IPU_IOCTL_BO_CREATE	_IOWR(IPU_IOCTL_TYPE, 0x03, struct ipu_bo_create)
#define IPU_IOCTL_BO_DESTROY	_IOW(IPU_IOCTL_TYPE, 0x04, struct ipu_bo_destroy)
#define IPU_IOCTL_BO_INFO	_IOWR(IPU_IOCTL_TYPE, 0x05, struct ipu_bo_info)
#define IPU_IOCTL_XFER		_IOW(IPU_IOCTL_TYPE, 0x06, struct ipu_xfer)
#define IPU_IOCTL_RESET		_IOW(IPU_IOCTL_TYPE, 0x07, struct ipu_reset)

/*
 * mmap(): map a buffer object by passing its mmap_offset (plus a page-aligned
 * offset into the buffer) as the offset. Mappings must be MAP_SHARED; the
 * range must lie inside the buffer (-EINVAL). A mapping keeps the memory alive
 * after BO_DESTROY or close(); access after the device is removed raises
 * SIGBUS for pages not touched before.
 */

#endif /* _UAPI_LINUX_IPU_H */
