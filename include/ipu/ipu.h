/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * ipu.h - libipu, the userspace device layer of the IPU driver stack
 *
 * libipu is to /dev/ipuN what libdrm is to /dev/dri: a thin, explicit layer
 * over the kernel interface (include/uapi/linux/ipu.h) that owns no policy.
 *
 * Conventions, for every function below unless it says otherwise:
 *
 *  - Return value: 0 (or a count) on success, a negative errno value on
 *    failure. errno is not part of the interface: libipu saves it on entry to
 *    every public function and restores it on return, so a call never changes
 *    errno whether it succeeds or fails.
 *  - Error messages: a failed call also leaves a readable message naming the
 *    device and the operation at fault, kept per thread; see ipu_errmsg().
 *  - Handles (struct ipu_device, struct ipu_bo, struct ipu_device_list) are
 *    opaque; the library allocates and frees them.
 *  - Threads: calls on different devices are independent. Calls on one
 *    device may come from several threads at once; what they do to the device
 *    is serialised by the kernel (or the backend), not ordered by libipu.
 *    Destroying an object while another thread still uses it is the caller's
 *    bug, as with free().
 *  - Extensible structs start with `size_t sz`, which the caller sets to
 *    sizeof the struct it was compiled with (IPU_OPTS() does it for option
 *    structs). Like the UAPI, libipu accepts any sz at least the size of the
 *    first version (smaller: -EINVAL); option bytes beyond what this libipu
 *    knows must be zero (else -E2BIG); output bytes beyond what it knows are
 *    zeroed.
 *
 * Devices are named "<backend>:<index>": "hw:0" is /dev/ipu0 through the
 * kernel driver. A "model" backend (an in-process software IPU) will join it;
 * the public interface does not change when it does. "auto" picks a device
 * (see ipu_device_open()).
 */
#ifndef IPU_IPU_H
#define IPU_IPU_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ipu_device;	/* an open device */
struct ipu_bo;		/* a buffer object in device memory */
struct ipu_device_list;	/* a snapshot of the devices present */

/*
 * IPU_OPTS - declare and initialise an options struct: zero it whole
 * (padding included), set .sz, then apply the designated initialisers.
 *
 *	IPU_OPTS(ipu_open_opts, opts, .flags = IPU_OPEN_ATTACH);
 *	err = ipu_device_open("hw:0", &opts, &dev);
 */
#define IPU_OPTS(TYPE, NAME, ...)                                         \
	struct TYPE NAME = ({                                             \
		memset(&NAME, 0, sizeof(struct TYPE));                    \
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };  \
	})

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

/**
 * ipu_errmsg() - message of the last failed libipu call in this thread.
 *
 * Return: a NUL-terminated string owned by libipu, valid until the next
 * libipu call in this thread; "" if no call in this thread has failed yet.
 * Successful calls leave it alone. Never NULL.
 */
const char *ipu_errmsg(void);

/**
 * ipu_strerror() - describe an error code returned by libipu.
 * @err: an errno value, negative (as libipu returns it) or positive.
 *
 * Return: a static, constant description ("No space left on device"); for
 * 0 "Success"; for a value that is no errno "Unknown error". Never NULL;
 * thread-safe.
 */
const char *ipu_strerror(int err);

/* ------------------------------------------------------------------------ */
/* Enumeration                                                              */
/* ------------------------------------------------------------------------ */

/* Values of ipu_device_entry.platform and ipu_device_info.platform. */
#define IPU_DEVICE_PLATFORM_UNKNOWN	0 /* a platform this libipu does not know */
#define IPU_DEVICE_PLATFORM_SIM		1 /* simulated by the kernel driver */
#define IPU_DEVICE_PLATFORM_PCI		2 /* hardware on a PCI bus */
#define IPU_DEVICE_PLATFORM_MODEL	3 /* in-process software model */

/**
 * struct ipu_device_entry - one device found by ipu_device_list_create().
 * @name: name to pass to ipu_device_open(), e.g. "hw:0".
 * @node: device node, e.g. "/dev/ipu0"; "" if the backend has none.
 * @index: index of the device within its backend (the N of "hw:N").
 * @platform: IPU_DEVICE_PLATFORM_*.
 * @platform_name: the platform as the backend names it ("sim", "pci").
 * @memory_total: bytes of device memory.
 * @memory_used: bytes of device memory in use when the list was made.
 * @owner_pid: pid of the process attached to the device when the list was
 *	made, 0 if none.
 * @reset_count: resets of the device since it appeared.
 * @serial: serial number.
 * @firmware_version: (major << 16) | (minor << 8) | patch.
 *
 * The strings belong to the list. A value the backend could not read is 0
 * (or "" for a string). Later versions of libipu may append members; the
 * list allocates the entries, so that is compatible.
 */
struct ipu_device_entry {
	const char *name;
	const char *node;
	unsigned int index;
	unsigned int platform;
	const char *platform_name;
	uint64_t memory_total;
	uint64_t memory_used;
	uint32_t owner_pid;
	uint32_t firmware_version;
	uint64_t reset_count;
	uint64_t serial;
};

/**
 * ipu_device_list_create() - take a snapshot of the devices present.
 * @listp: out: the new list; the caller frees it with ipu_device_list_free().
 *
 * Hardware devices come from sysfs (/sys/class/ipu), sorted by index. No
 * device present is not an error: the list is empty. Devices that disappear
 * while the list is made are left out.
 *
 * Return: 0; -EINVAL if @listp is NULL; -ENOMEM; -errno if sysfs exists but
 * cannot be read.
 */
int ipu_device_list_create(struct ipu_device_list **listp);

/**
 * ipu_device_list_count() - number of entries in @list (0 if @list is NULL).
 */
size_t ipu_device_list_count(const struct ipu_device_list *list);

/**
 * ipu_device_list_get() - entry @i of @list.
 *
 * Return: the entry, owned by @list and valid until ipu_device_list_free();
 * NULL if @list is NULL or @i is out of range.
 */
const struct ipu_device_entry *
ipu_device_list_get(const struct ipu_device_list *list, size_t i);

/**
 * ipu_device_list_free() - free @list and its entries. NULL is a no-op.
 */
void ipu_device_list_free(struct ipu_device_list *list);

/* ------------------------------------------------------------------------ */
/* Devices                                                                  */
/* ------------------------------------------------------------------------ */

/* Flags of ipu_open_opts.flags. */
#define IPU_OPEN_ATTACH		(1u << 0) /* attach after opening; see ipu_device_open() */
#define IPU_OPEN_FLAGS_ALL	(IPU_OPEN_ATTACH)

/**
 * struct ipu_open_opts - options of ipu_device_open(); declare with IPU_OPTS().
 * @sz: sizeof(struct ipu_open_opts).
 * @flags: IPU_OPEN_* flags.
 */
struct ipu_open_opts {
	size_t sz;
	uint32_t flags;
};

/**
 * ipu_device_open() - open a device.
 * @name: "hw:N" for /dev/ipuN; "auto" or NULL to pick one (below).
 * @opts: options, or NULL for the defaults.
 * @devp: out: the open device; close it with ipu_device_close().
 *
 * With "auto" (or NULL), the environment variable IPU_DEVICE, when set to
 * something other than "" or "auto", is taken as the name. Otherwise libipu
 * tries the hardware devices in index order and returns the first that it
 * can open (and, with IPU_OPEN_ATTACH, attach: busy devices are skipped),
 * else the software model when this libipu has one.
 *
 * With IPU_OPEN_ATTACH the device is returned attached (ipu_device_attach()),
 * and a device that cannot be attached is closed again.
 *
 * Return: 0; -EINVAL for a NULL @devp, a malformed name, an unknown backend,
 * or unknown flags; -E2BIG for non-zero option bytes this libipu does not
 * know; -ENOENT when the named device does not exist; -ENOTTY when the node
 * is not an IPU; -EPROTO when the kernel speaks an older API than libipu
 * needs; -EBUSY (with IPU_OPEN_ATTACH) when another file owns the device;
 * -ENOMEM; other -errno from open(2). "auto": -ENODEV when no device is
 * listed at all, else the error of the last device tried.
 */
int ipu_device_open(const char *name, const struct ipu_open_opts *opts,
		    struct ipu_device **devp);

/**
 * ipu_device_close() - close @dev and release everything it holds.
 *
 * Buffer objects still alive are destroyed (their struct ipu_bo pointers and
 * their ipu_bo_map() pointers become invalid) and the attachment, if any, is
 * dropped. NULL is a no-op. Closing cannot fail; on a removed device it
 * still frees everything in the process.
 */
void ipu_device_close(struct ipu_device *dev);

/**
 * ipu_device_name() - the name @dev was opened as, e.g. "hw:0".
 *
 * Return: a string owned by @dev; "" if @dev is NULL.
 */
const char *ipu_device_name(const struct ipu_device *dev);

/* Bits of ipu_device_info.caps. */
#define IPU_DEVICE_CAP_BO	(1ull << 0) /* buffer objects */
#define IPU_DEVICE_CAP_MAP	(1ull << 1) /* ipu_bo_map() */
#define IPU_DEVICE_CAP_XFER	(1ull << 2) /* transfers */
#define IPU_DEVICE_CAP_RESET	(1ull << 3) /* ipu_device_reset() */
#define IPU_DEVICE_CAP_HOTPLUG	(1ull << 4) /* may vanish: calls then fail -ENODEV */

/**
 * struct ipu_device_info - state of a device, from ipu_device_query().
 * @sz: in: sizeof(struct ipu_device_info).
 * @api_version: interface version of the kernel driver (0 for backends
 *	without a kernel).
 * @platform: IPU_DEVICE_PLATFORM_*.
 * @caps: IPU_DEVICE_CAP_* bits: what this device and driver implement.
 * @memory_total: bytes of device memory.
 * @memory_used: bytes of device memory held by buffer objects of all users.
 * @mem_page_size: allocation granule; buffer sizes are rounded up to it.
 * @owner_pid: pid of the process attached to the device, 0 if none.
 * @firmware_version: (major << 16) | (minor << 8) | patch.
 * @serial: serial number.
 * @reset_count: resets since the device appeared.
 * @pci_domain: PCI domain for IPU_DEVICE_PLATFORM_PCI, else 0.
 * @pci_bdf: (bus << 8) | (device << 3) | function for PCI, else 0.
 */
struct ipu_device_info {
	size_t sz;
	uint32_t api_version;
	uint32_t platform;
	uint64_t caps;
	uint64_t memory_total;
	uint64_t memory_used;
	uint32_t mem_page_size;
	uint32_t owner_pid;
	uint32_t firmware_version;
	uint32_t pci_domain;
	uint64_t serial;
	uint64_t reset_count;
	uint32_t pci_bdf;
};

/**
 * ipu_device_query() - read the current state of @dev.
 * @dev: an open device; attaching is not required.
 * @info: out: set @info->sz first; filled in.
 *
 * Return: 0; -EINVAL for NULL arguments or a too small @info->sz; -ENODEV
 * when the device was removed; other -errno from the backend.
 */
int ipu_device_query(struct ipu_device *dev, struct ipu_device_info *info);

/**
 * ipu_device_attach() - make this handle the exclusive owner of @dev.
 *
 * The owner may create buffer objects, transfer and reset. Ownership ends
 * with ipu_device_detach() or ipu_device_close().
 *
 * Return: 0; -EINVAL for a NULL @dev; -EBUSY when another handle (in this
 * or another process) owns the device; -EALREADY when this one does;
 * -ENODEV when the device was removed.
 */
int ipu_device_attach(struct ipu_device *dev);

/**
 * ipu_device_detach() - give up ownership of @dev.
 *
 * Buffer objects stay valid, but only an owner may transfer to them.
 *
 * Return: 0; -EINVAL for a NULL @dev; -EACCES when this handle is not the
 * owner; -ENODEV when the device was removed.
 */
int ipu_device_detach(struct ipu_device *dev);

/**
 * ipu_device_reset() - reset the execution state of @dev.
 *
 * Buffer objects survive; whether device memory keeps its contents depends
 * on the device (the simulated IPU keeps it). Requires attachment.
 *
 * Return: 0; -EINVAL for a NULL @dev; -EACCES when not attached; -EIO when
 * the device fails to reset; -ENODEV when the device was removed.
 */
int ipu_device_reset(struct ipu_device *dev);

/* ------------------------------------------------------------------------ */
/* Buffer objects                                                           */
/* ------------------------------------------------------------------------ */

/**
 * ipu_bo_create() - allocate device memory.
 * @dev: an attached device.
 * @size: bytes, > 0; rounded up to ipu_device_info.mem_page_size.
 * @flags: 0; no flags are defined yet.
 * @bop: out: the new buffer object, zero-filled; free it with
 *	ipu_bo_destroy() (or let ipu_device_close() do it).
 *
 * Return: 0; -EINVAL for NULL pointers, zero @size or unknown @flags;
 * -EACCES when @dev is not attached; -ENOSPC when device memory has no free
 * range that large; -ENOMEM; -ENODEV when the device was removed.
 */
int ipu_bo_create(struct ipu_device *dev, uint64_t size, uint32_t flags,
		  struct ipu_bo **bop);

/**
 * ipu_bo_destroy() - free @bo.
 *
 * Unmaps the mapping made by ipu_bo_map(), if any, drops the handle and frees
 * @bo, whatever the return value: @bo is invalid afterwards. Device memory is
 * released once nothing uses it any more.
 *
 * Return: 0; -EINVAL for NULL; the backend's -errno when it failed to drop
 * the handle (-ENODEV after the device was removed), in which case the
 * memory is released when the device is closed.
 */
int ipu_bo_destroy(struct ipu_bo *bo);

/** ipu_bo_size() - size of @bo in bytes (rounded); 0 for NULL. */
uint64_t ipu_bo_size(const struct ipu_bo *bo);

/** ipu_bo_device_addr() - address of @bo in device memory; 0 for NULL. */
uint64_t ipu_bo_device_addr(const struct ipu_bo *bo);

/**
 * ipu_bo_handle() - the backend's handle of @bo (for "hw" the kernel's
 * handle, valid in this device's file only); 0 for NULL, never 0 otherwise.
 */
uint32_t ipu_bo_handle(const struct ipu_bo *bo);

/**
 * struct ipu_bo_props - properties of a buffer object, from ipu_bo_query().
 * @sz: in: sizeof(struct ipu_bo_props).
 * @handle: backend handle (see ipu_bo_handle()).
 * @size: size in bytes.
 * @device_addr: address in device memory.
 */
struct ipu_bo_props {
	size_t sz;
	uint32_t handle;
	uint64_t size;
	uint64_t device_addr;
};

/**
 * ipu_bo_query() - ask the backend for the properties of @bo.
 * @props: out: set @props->sz first; filled in.
 *
 * Return: 0; -EINVAL for NULL arguments or a too small @props->sz; -ENODEV
 * when the device was removed; other -errno from the backend.
 */
int ipu_bo_query(struct ipu_bo *bo, struct ipu_bo_props *props);

/**
 * ipu_bo_map() - map @bo into this process, readable and writable.
 * @ptrp: out: address of the first byte; ipu_bo_size() bytes are mapped.
 *
 * The mapping is shared with the device: what a transfer writes is seen
 * there and the reverse. @bo has at most one mapping: a second call returns
 * the same address. It lasts until ipu_bo_unmap() or ipu_bo_destroy().
 * After the device is removed, touching a page not touched before raises
 * SIGBUS.
 *
 * Return: 0; -EINVAL for NULL arguments; -EOPNOTSUPP when the device cannot
 * map; -ENODEV when the device was removed; -ENOMEM.
 */
int ipu_bo_map(struct ipu_bo *bo, void **ptrp);

/**
 * ipu_bo_unmap() - remove the mapping made by ipu_bo_map().
 *
 * Return: 0; -EINVAL for NULL or when @bo is not mapped.
 */
int ipu_bo_unmap(struct ipu_bo *bo);

/* ------------------------------------------------------------------------ */
/* Transfers                                                                */
/* ------------------------------------------------------------------------ */

/* Values of ipu_xfer_desc.dir. */
#define IPU_XFER_DIR_TO_DEVICE		1 /* host memory -> buffer object */
#define IPU_XFER_DIR_FROM_DEVICE	2 /* buffer object -> host memory */

/**
 * struct ipu_xfer_desc - one transfer between host memory and a buffer object.
 * @bo: the buffer object.
 * @bo_offset: byte offset into @bo.
 * @host: host buffer: read for IPU_XFER_DIR_TO_DEVICE, written for
 *	IPU_XFER_DIR_FROM_DEVICE. Any alignment.
 * @length: bytes, > 0; @bo_offset + @length must not pass the end of @bo.
 * @dir: IPU_XFER_DIR_*.
 * @flags: 0; no flags are defined yet.
 * @user_data: the caller's; libipu does not look at it. (It will identify
 *	the completion of a transfer submitted to a queue.)
 *
 * The same descriptor will describe transfers submitted to a queue
 * (io_uring) in a later version; ipu_xfer_run() is the synchronous path.
 */
struct ipu_xfer_desc {
	struct ipu_bo *bo;
	uint64_t bo_offset;
	void *host;
	uint64_t length;
	uint32_t dir;
	uint32_t flags;
	uint64_t user_data;
};

/**
 * ipu_xfer_run() - run transfers synchronously, in order.
 * @dev: the attached device that owns every descriptor's buffer object.
 * @descs: @count descriptors.
 * @count: number of descriptors, > 0.
 * @done: out (may be NULL): number of transfers that completed.
 *
 * Every descriptor is checked before the first transfer starts, so an
 * invalid one fails the call with nothing moved (*@done = 0). The transfers
 * then run one after the other and the call stops at the first that fails;
 * each returns when its data has arrived.
 *
 * Return: 0 when all completed; -EINVAL for NULL arguments, zero @count or
 * @length, unknown @dir or @flags, a range outside the buffer, or a buffer
 * object of another device; -EACCES when @dev is not attached; -EFAULT when
 * a host range is not mapped (or not writable for IPU_XFER_DIR_FROM_DEVICE);
 * -EIO when the device fails a transfer; -ENODEV when it was removed.
 */
int ipu_xfer_run(struct ipu_device *dev, const struct ipu_xfer_desc *descs,
		 size_t count, size_t *done);

/**
 * ipu_xfer_to_device() - copy @length bytes from @src to @bo at @bo_offset.
 *
 * One synchronous transfer, as ipu_xfer_run() with one descriptor; same
 * errors.
 */
int ipu_xfer_to_device(struct ipu_bo *bo, uint64_t bo_offset, const void *src,
		       uint64_t length);

/**
 * ipu_xfer_from_device() - copy @length bytes from @bo at @bo_offset to @dst.
 *
 * One synchronous transfer, as ipu_xfer_run() with one descriptor; same
 * errors.
 */
int ipu_xfer_from_device(struct ipu_bo *bo, uint64_t bo_offset, void *dst,
			 uint64_t length);

#ifdef __cplusplus
}
#endif

#endif /* IPU_IPU_H */
