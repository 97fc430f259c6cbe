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
 * kernel driver, "model:0" the first IPU of the in-process software model
 * (see "The model backend" below). Both offer the same interface. "auto"
 * picks a device (see ipu_device_open()).
 */
#ifndef IPU_IPU_H
#define IPU_IPU_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

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
 * while the list is made are left out. The software model's devices are not
 * listed (see ipu_device_list_create_opts()).
 *
 * The environment variable IPU_HW_PLATFORM picks the hardware devices of
 * one platform: "sim" (ipu.ko's simulated IPUs) or "pci" (PCIe IPUs); the
 * others are left out, so "auto" and libsession's "ipu_hw" never take
 * them (a replicated program runs on linked IPUs of one kind). They keep
 * their names ("hw:N" is /dev/ipuN), and opening one by name still works.
 * Unset or "": every IPU.
 *
 * Return: 0; -EINVAL if @listp is NULL or IPU_HW_PLATFORM is another
 * value (the message names it); -ENOMEM; -errno if sysfs exists but
 * cannot be read.
 */
int ipu_device_list_create(struct ipu_device_list **listp);

/* Flags of ipu_list_opts.flags. */
#define IPU_LIST_MODEL		(1u << 0) /* also list the model's devices */
#define IPU_LIST_FLAGS_ALL	(IPU_LIST_MODEL)

/**
 * struct ipu_list_opts - options of ipu_device_list_create_opts(); declare
 * with IPU_OPTS().
 * @sz: sizeof(struct ipu_list_opts).
 * @flags: IPU_LIST_* flags.
 */
struct ipu_list_opts {
	size_t sz;
	uint32_t flags;
};

/**
 * ipu_device_list_create_opts() - ipu_device_list_create() with options.
 * @opts: options, or NULL for the defaults (as ipu_device_list_create()).
 * @listp: out: the new list; the caller frees it with ipu_device_list_free().
 *
 * The software model's devices ("model:0" ...) are listed only with
 * IPU_LIST_MODEL, after the hardware: there are IPU_MODEL_DEVICES of them
 * (16 by default) in every process, and a tool that lists what is plugged
 * in should not show them unasked.
 *
 * Return: as ipu_device_list_create(); also -EINVAL for unknown flags and
 * -E2BIG for non-zero option bytes this libipu does not know.
 */
int ipu_device_list_create_opts(const struct ipu_list_opts *opts,
				struct ipu_device_list **listp);

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
 * @name: "hw:N" for /dev/ipuN, "model:N" for the software model's IPU N;
 *	"auto" or NULL to pick one (below).
 * @opts: options, or NULL for the defaults.
 * @devp: out: the open device; close it with ipu_device_close().
 *
 * "auto" (or NULL) follows the environment variable IPU_DEVICE:
 *  - unset, "" or "auto": the hardware devices (and devices of backends
 *    registered for tests) in the order ipu_device_list_create() lists
 *    them (only IPU_HW_PLATFORM's, when set), the first that opens (and, with IPU_OPEN_ATTACH, attaches: busy
 *    devices are skipped); when none does, the software model: "model:0",
 *    or with IPU_OPEN_ATTACH the first model device not attached yet;
 *  - a backend's name alone, "hw" or "model": the first device of that
 *    backend that opens (and attaches), with no fallback to another
 *    backend ("hw" insists on hardware);
 *  - a device name, "hw:1" or "model:3": that device.
 * Explicit names given as @name are not affected by IPU_DEVICE.
 *
 * With IPU_OPEN_ATTACH the device is returned attached (ipu_device_attach()),
 * and a device that cannot be attached is closed again.
 *
 * Return: 0; -EINVAL for a NULL @devp, a malformed name, an unknown backend,
 * or unknown flags; -E2BIG for non-zero option bytes this libipu does not
 * know; -ENOENT when the named device does not exist; -ENOTTY when the node
 * is not an IPU; -EPROTO when the kernel speaks an older API than libipu
 * needs; -EBUSY (with IPU_OPEN_ATTACH) when another handle owns the device;
 * -ENOMEM; other -errno from open(2). "auto" with a backend's name:
 * -ENODEV when that backend lists no device, else the error of the last
 * device tried; plain "auto" fails only when the model does too.
 */
/**
 * ipu_device_name_parse() - what a device name, as IPU_DEVICE takes it, asks for.
 * @name: "" or "auto"; a backend's name alone ("hw", "model"); or a
 *	device's, "<backend>:<index>" ("hw:1", "model:3": the index decimal,
 *	no sign, no leading zero, at most INT_MAX).
 * @backend: out: the backend's name, "" for "auto"; @len bytes.
 * @len: the size of @backend (16 is enough for the built-in backends).
 * @index: out: the device's index, -1 when @name names none.
 *
 * The one parser of device names: ipu_device_open() and libsession's
 * "auto" use it, so a value one refuses the other does not take. It does
 * not look whether the device exists.
 *
 * Return: 0; -EINVAL for anything else (a NULL argument, an unknown
 * backend, a malformed index, a @backend too small), ipu_errmsg() naming
 * the value.
 */
int ipu_device_name_parse(const char *name, char *backend, size_t len,
			  int *index);

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
#define IPU_DEVICE_CAP_LAUNCH	(1ull << 5) /* IPU_CMD_LAUNCH runs programs */
#define IPU_DEVICE_CAP_GATHER	(1ull << 6) /* split launches, gather requests */
/* IPU_LAUNCH_F_PROFILE records op profiles (ipu_queue_profile()); libipu 1.7 */
#define IPU_DEVICE_CAP_PROFILE	(1ull << 7)

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
 * @launch_timeout_ms: the longest a launch may run before the device fails
 *	it and resets (for "hw" the kernel's launch_timeout_ms, as it is
 *	now); 0 when the device sets no such limit (the model). Added after
 *	the first version, in what was its tail padding.
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
	uint32_t launch_timeout_ms;
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
 * @user_data: the caller's; libipu does not look at it. (A transfer
 *	submitted to a queue is identified by ipu_cmd.user_data instead.)
 *
 * The same descriptor describes transfers submitted to a queue
 * (struct ipu_cmd); ipu_xfer_run() is the synchronous path.
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
 * each returns when its data has arrived. Underneath, the transfers are one
 * linked batch on a queue the device keeps for synchronous calls
 * (ipu_queue_submit()); calls on one device from several threads take
 * turns on it.
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

/* ------------------------------------------------------------------------ */
/* Launches                                                                 */
/* ------------------------------------------------------------------------ */

/* Alignment of ipu_launch_desc.arena_offset. */
#define IPU_LAUNCH_ARENA_ALIGN		64
/* Most replicas one program may run on (ipu_launch_desc.num_replicas). */
#define IPU_LAUNCH_MAX_REPLICAS		1024
/* Most instances of a split launch (ipu_launch_desc.instance_count). */
#define IPU_LAUNCH_MAX_INSTANCES	4096
/* Alignment of ipu_launch_desc.staging_offset. */
#define IPU_LAUNCH_STAGING_ALIGN	64

/*
 * Flags of ipu_launch_desc.flags. IPU_LAUNCH_F_PROFILE: record when each
 * op of the program started and ended; read the records after the
 * launch's completion with ipu_queue_profile() (libipu 1.7). Devices with
 * IPU_DEVICE_CAP_PROFILE record them (the model; the kernel's simulated
 * IPUs and PCI IPUs of spec 2.1, whose firmware writes them into a buffer
 * libipu reads back);
 * others run the launch as usual and have no records to give.
 */
#define IPU_LAUNCH_F_PROFILE	(1u << 0)

/**
 * struct ipu_launch_desc - one replica's share of running a program.
 * @exe_bo: holds the executable's file image (the bytes ipu_exe_save()
 *	writes) at offset 0; on the device of @arena_bo.
 * @exe_size: bytes of the image, > 0, within @exe_bo.
 * @arena_bo: holds this replica's arena (include/ipu/exe.h: the tensors,
 *	stream slots and variables of one replica, at the offsets the
 *	executable plans).
 * @arena_offset: where the arena starts in @arena_bo; a multiple of
 *	IPU_LAUNCH_ARENA_ALIGN, inside @arena_bo.
 * @arena_size: bytes of the arena; 0: up to the end of @arena_bo. At least
 *	the executable's arena_size when the program runs (else the launch
 *	fails with -EINVAL).
 * @replica: this replica's index, < @num_replicas.
 * @num_replicas: replicas of the run, 1 to IPU_LAUNCH_MAX_REPLICAS; must
 *	equal the executable's replication_factor.
 * @group: with @num_replicas > 1: the id that ties the launches of one
 *	run together (any value the caller likes, unique among the runs in
 *	flight on the queue); ignored for a single replica.
 * @flags: IPU_LAUNCH_F_* flags, or 0.
 * @instance_index: with @instance_count: which instance this process is,
 *	< @instance_count.
 * @instance_count: 0 for a program of one instance (then the fields
 *	below and @instance_index must be 0). A program split across
 *	instances (docs/instances.md: instance_replication_factor below
 *	replication_factor) runs this process's replicas of it as a *split
 *	launch*: the instance count, 1 to IPU_LAUNCH_MAX_INSTANCES, and
 *	@num_replicas is then the instance's replica count. Only devices
 *	with IPU_DEVICE_CAP_GATHER take split launches; the device asks for
 *	the other instances' parts of each gather with a request
 *	(ipu_gather_next()). Every launch of a split run names the same
 *	instance and a staging area.
 * @staging_bo: a split launch's staging area, on the device of @arena_bo:
 *	where the device puts its instance's part of a gather and the host
 *	the other instances' parts (ipu_gather_next()). Kept by the device
 *	until the launch completes; keep it alive until then.
 * @staging_offset: where the staging area starts in @staging_bo, a
 *	multiple of IPU_LAUNCH_STAGING_ALIGN.
 * @staging_size: its bytes, > 0, within @staging_bo: at least
 *	@instance_count times the largest part a gather of the program
 *	moves (the device fails a gather that does not fit).
 *
 * A program of R replicas runs as R launch commands, one per replica, each
 * on the device holding that replica's arena (R devices, or fewer when
 * arenas share one), all with the same @group and @num_replicas. The
 * backend starts the run once it has all R (they may come in several
 * submissions), runs the replicas together (all-reduce needs every one)
 * and then completes each command, with the run's result. All R must carry
 * the same executable image. Launches of one run must not be linked to one
 * another, directly or through a chain (ipu_queue_submit() refuses that:
 * the run would wait for itself); link each replica's transfers to its own
 * launch instead. Likewise, chains that each launch replicas of several
 * runs must reach those runs in the same order, or they wait for one
 * another forever (this is not detected; reap with a timeout).
 */
struct ipu_launch_desc {
	struct ipu_bo *exe_bo;
	uint64_t exe_size;
	struct ipu_bo *arena_bo;
	uint64_t arena_offset;
	uint64_t arena_size;
	uint32_t replica;
	uint32_t num_replicas;
	uint64_t group;
	uint32_t flags;
	uint16_t instance_index;
	uint16_t instance_count;
	struct ipu_bo *staging_bo;
	uint32_t staging_offset;
	uint32_t staging_size;
};

/**
 * ipu_launch() - run a single-replica program synchronously.
 * @dev: the attached device of @desc's buffer objects.
 * @desc: the launch; @num_replicas must be 1 (runs of several replicas go
 *	through a queue, one command per replica).
 *
 * One IPU_CMD_LAUNCH through the device's queue for synchronous calls (see
 * ipu_xfer_run()); returns when the program has finished.
 *
 * Return: 0; the errors of an IPU_CMD_LAUNCH command (see struct ipu_cmd),
 * with the firmware's message in ipu_errmsg(); -EINVAL also for a NULL
 * argument, a buffer object of another device or @num_replicas other than
 * 1.
 */
int ipu_launch(struct ipu_device *dev, const struct ipu_launch_desc *desc);

/* ------------------------------------------------------------------------ */
/* Queues                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * A queue takes commands (transfers and launches) in batches and completes
 * them asynchronously, with a result per command: io_uring's model, which
 * the kernel backend will use underneath. Submit a batch with
 * ipu_queue_submit(), collect completions with ipu_queue_reap().
 *
 * Order and links. Commands that are not linked are independent: they may
 * run in any order and each completes on its own (the model runs them in
 * submission order, except launches waiting for the rest of their run). A
 * command with IPU_CMD_F_LINK is linked to the next command of the same
 * batch, which starts only after it succeeded; when a command of such a
 * chain fails, every command after it in the chain completes with
 * -ECANCELED without running (io_uring's IOSQE_IO_LINK). A chain ends at
 * the first command without the flag, or at the end of the batch (a link
 * on a batch's last command is ignored, as io_uring does).
 *
 * A run of a program, replicated R times:
 *
 *	for each replica r:
 *		H2D transfers of r's input slots, each IPU_CMD_F_LINK
 *		IPU_CMD_LAUNCH of replica r, group g, IPU_CMD_F_LINK
 *		D2H transfers of r's output slots, linked one to the next
 *	one ipu_queue_submit() of it all, then ipu_queue_reap() R chains' worth
 *
 * Devices. A queue belongs to the backend of the device it was created
 * with and carries commands for every device of that backend (a run that
 * spans four IPUs is one batch on one queue); a command for a device of
 * another backend is -EINVAL. A command's device is that of its buffer
 * objects, and the device must be attached when the command runs (else the
 * command completes with -EACCES).
 *
 * Lifetimes. The caller keeps every buffer object, host buffer and device a
 * command names alive and unchanged (host buffers of transfers to the
 * device unchanged, host buffers of transfers from it unread) until the
 * command's completion is reaped, as with io_uring or aio.
 *
 * Backends. The model runs commands on a DMA-engine thread of the queue.
 * The kernel backend ("hw") makes each queue an io_uring ring (SQE128):
 * ipu_queue_submit() turns the batch into IORING_OP_URING_CMD entries
 * (IPU_URING_CMD_XFER, IPU_URING_CMD_LAUNCH on the file of each command's
 * device), IPU_CMD_F_LINK into IOSQE_IO_LINK, and hands them to the kernel
 * in one io_uring_enter(); ipu_queue_reap() collects the CQEs, waiting in
 * at most one io_uring_enter() for those still missing. A run (transfers
 * in, the launch linked after them, transfers out linked after it) thus
 * costs two system calls whatever its number of streams, and one through
 * ipu_queue_submit_and_wait(), which waits in the io_uring_enter() that
 * submits. Launches run on
 * the device's firmware (for the kernel's simulated IPUs: the ipu-simd
 * daemon); the kernel fails a launch the firmware does not finish within
 * its deadline (-ETIMEDOUT, the device is then reset). Where io_uring is
 * unavailable, the queue runs transfers one by one inside
 * ipu_queue_submit() and completes launches with -EOPNOTSUPP, and the
 * devices do not report IPU_DEVICE_CAP_LAUNCH.
 *
 * Threads: one queue may be used from several threads at once (one
 * submitting while another reaps, say). A completion goes to whichever
 * ipu_queue_reap() takes it; its message lives until the next reap by any
 * thread, so when several threads reap one queue, reaping and reading
 * messages need a lock of the caller's.
 */
struct ipu_queue;

/* Values of ipu_cmd.op. */
#define IPU_CMD_XFER		1 /* a transfer: ipu_cmd.xfer */
#define IPU_CMD_LAUNCH		2 /* a replica of a program: ipu_cmd.launch */

/* Flags of ipu_cmd.flags. */
#define IPU_CMD_F_LINK		(1u << 0) /* the next command waits for this one */
#define IPU_CMD_F_ALL		(IPU_CMD_F_LINK)

/**
 * struct ipu_cmd - one command of a batch.
 * @op: IPU_CMD_*.
 * @flags: IPU_CMD_F_* flags.
 * @user_data: the caller's; returned in the command's completion.
 * @xfer: IPU_CMD_XFER: the transfer, checked as ipu_xfer_run() checks
 *	it (its own user_data and the rest are ignored).
 * @launch: IPU_CMD_LAUNCH: the launch.
 * @reserved_: room for the descriptors of later commands.
 *
 * The size of struct ipu_cmd is fixed. Zero a command before filling it
 * (ipu_cmd_prep_xfer() and ipu_cmd_prep_launch() do): the bytes of the
 * union past the descriptor @op uses must be zero, so that a command built
 * for a later libipu is refused (-E2BIG) rather than half understood.
 */
struct ipu_cmd {
	uint32_t op;
	uint32_t flags;
	uint64_t user_data;
	union {
		struct ipu_xfer_desc xfer;
		struct ipu_launch_desc launch;
		uint64_t reserved_[10];
	};
};

/** ipu_cmd_prep_xfer() - zero @cmd and make it the transfer @xfer. */
static inline void ipu_cmd_prep_xfer(struct ipu_cmd *cmd,
				     const struct ipu_xfer_desc *xfer,
				     uint64_t user_data)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->op = IPU_CMD_XFER;
	cmd->user_data = user_data;
	cmd->xfer = *xfer;
}

/** ipu_cmd_prep_launch() - zero @cmd and make it the launch @launch. */
static inline void ipu_cmd_prep_launch(struct ipu_cmd *cmd,
				       const struct ipu_launch_desc *launch,
				       uint64_t user_data)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->op = IPU_CMD_LAUNCH;
	cmd->user_data = user_data;
	cmd->launch = *launch;
}

/**
 * struct ipu_completion - the outcome of one command, from ipu_queue_reap().
 * @user_data: the command's ipu_cmd.user_data.
 * @result: 0, or the command's negative errno value (below).
 * @op: the command's ipu_cmd.op.
 * @msg: "" on success; otherwise a message naming the device, the command
 *	and what went wrong (for a launch, the firmware's words: replica,
 *	instruction, reason). Owned by the queue: valid until the next
 *	ipu_queue_reap() on this queue or ipu_queue_destroy(); copy it to
 *	keep it. Never NULL.
 *
 * Results of IPU_CMD_XFER: as ipu_xfer_run() for one transfer. Results of
 * IPU_CMD_LAUNCH: -ENOEXEC when the image is not an executable (wrong
 * magic, shorter than a header); -EINVAL when it is malformed (the
 * loader's message says how), when its replication_factor is not
 * num_replicas, when the replicas of a run carry different images or when
 * an arena is smaller than the program needs; -ERANGE and others from the
 * firmware as the program runs (include/ipu/firmware.h: ipufw_run());
 * -ENOMEM; -EACCES when a device is not attached; -EOPNOTSUPP on a backend
 * that cannot launch, or for a split launch on a device without
 * IPU_DEVICE_CAP_GATHER. A split launch also fails with the errno
 * ipu_gather_answer() gave a request of its run, -EIO when the device
 * failed a gather itself (e.g. a staging area too small), -ECANCELED when
 * its device's handle was closed with a request pending, and
 * -ETIMEDOUT, like any launch, when nobody answered within the deadline. Every replica of a run completes with the run's
 * result, except that when one replica's executable or device is at fault,
 * the others complete with -ECANCELED. Any command: -ECANCELED when a
 * command it was linked to failed.
 */
struct ipu_completion {
	uint64_t user_data;
	int32_t result;
	uint32_t op;
	const char *msg;
};

/* Most commands one queue holds (ipu_queue_opts.entries). */
#define IPU_QUEUE_MAX_ENTRIES		65536
#define IPU_QUEUE_DEFAULT_ENTRIES	256

/**
 * struct ipu_queue_opts - options of ipu_queue_create(); declare with
 * IPU_OPTS().
 * @sz: sizeof(struct ipu_queue_opts).
 * @entries: most commands in flight (submitted and not yet reaped), 1 to
 *	IPU_QUEUE_MAX_ENTRIES; 0: IPU_QUEUE_DEFAULT_ENTRIES.
 * @flags: 0; no flags are defined yet.
 */
struct ipu_queue_opts {
	size_t sz;
	uint32_t entries;
	uint32_t flags;
};

/**
 * ipu_queue_create() - make a command queue for the backend of @dev.
 * @dev: an open device; the queue takes commands for every device of its
 *	backend. @dev itself is not needed afterwards.
 * @opts: options, or NULL for the defaults.
 * @qp: out: the queue; free it with ipu_queue_destroy().
 *
 * The model backend starts the queue's DMA-engine thread here.
 *
 * Return: 0; -EINVAL for NULL @dev or @qp, an @entries over
 * IPU_QUEUE_MAX_ENTRIES or unknown flags; -E2BIG for non-zero option bytes
 * this libipu does not know; -ENOMEM; -errno of pthread_create().
 */
int ipu_queue_create(struct ipu_device *dev, const struct ipu_queue_opts *opts,
		     struct ipu_queue **qp);

/**
 * ipu_queue_destroy() - stop and free @q. NULL is a no-op.
 *
 * Commands in flight are cancelled: a command already running finishes,
 * the others never run; their completions are discarded, and the messages
 * of reaped completions go with the queue. On the kernel backend every
 * command in flight is already the kernel's, so the call waits for them
 * all to finish (launches end by the device's deadline at the latest):
 * when it returns, no transfer touches the caller's memory any more.
 */
void ipu_queue_destroy(struct ipu_queue *q);

/**
 * ipu_queue_submit() - submit @n commands as one batch.
 * @q: the queue.
 * @cmds: the commands; copied, @cmds may be reused when the call returns
 *	(what they point to may not: see "Lifetimes" above).
 * @n: commands, 1 to the queue's entries.
 *
 * Every command is checked before any is submitted: one bad command
 * rejects the whole batch and nothing runs (ipu_errmsg() names it by its
 * index). The batch is then handed to the backend at once (on io_uring,
 * one io_uring_enter(); a batch needing more submission entries than the
 * ring has free goes in parts, the call waiting for commands in flight
 * to complete between them, since io_uring may still read the entry of a
 * command in flight).
 *
 * Return: 0; -EINVAL for NULL arguments, linked commands needing more
 * submission entries than the kernel backend's ring has, @n of 0 or over the queue's
 * entries, an unknown op or flag, a transfer that ipu_xfer_run() would
 * refuse, a launch with a NULL or foreign buffer object (@exe_bo and
 * @arena_bo on different devices), @exe_size 0 or past the end of
 * @exe_bo, an arena that is misaligned or past the end of @arena_bo,
 * @replica not below @num_replicas, @num_replicas 0 or over
 * IPU_LAUNCH_MAX_REPLICAS, unknown launch flags, a split launch's fields
 * out of range (see struct ipu_launch_desc: @instance_index not below
 * @instance_count, @instance_count over IPU_LAUNCH_MAX_INSTANCES, a NULL
 * @staging_bo or one on another device, a staging area that is empty,
 * misaligned or past the end of @staging_bo, staging fields without
 * @instance_count), two
 * launches of one replica of a run in flight at once, launches of one run
 * that disagree on @num_replicas or are linked to one another, or a device
 * of another backend; -E2BIG for a command with non-zero bytes past its
 * descriptor; -EBUSY when the batch would put more than entries commands
 * in flight (reap first); -EOPNOTSUPP for a split launch on the model
 * (it takes a split program's instances from ipu_model_set_instances());
 * -ENOMEM.
 */
int ipu_queue_submit(struct ipu_queue *q, const struct ipu_cmd *cmds,
		     size_t n);

/**
 * ipu_queue_submit_and_wait() - submit a batch and wait for completions,
 * in one system call where the backend can.
 * @q, @cmds, @n: as for ipu_queue_submit().
 * @min_complete: wait until at least this many completions are ready to
 *	reap (0: do not wait), at most @n.
 * @timeout_ns: longest wait, as for ipu_queue_reap().
 *
 * ipu_queue_submit(), then the wait of ipu_queue_reap(@min_complete,
 * @timeout_ns) without taking anything off @q. On the kernel backend
 * both are one io_uring_enter(), so that a run (submit, then reap the
 * run's completions) costs one system call: the ipu_queue_reap() after it
 * finds them ready. On the model the wait is left to that reap. The
 * wait's outcome is not the call's: a timeout or a signal leaves fewer
 * completions ready, as for ipu_queue_reap(). On the kernel backend the
 * queue takes no other batch while the call waits.
 *
 * Return: as ipu_queue_submit(); also -EINVAL for @min_complete over @n.
 */
int ipu_queue_submit_and_wait(struct ipu_queue *q, const struct ipu_cmd *cmds,
			      size_t n, size_t min_complete,
			      int64_t timeout_ns);

/**
 * ipu_queue_reap() - collect completions.
 * @q: the queue.
 * @cqes: out: room for @max completions, filled in completion order.
 * @max: most completions to return, > 0.
 * @min_complete: wait until at least this many completions are ready (0:
 *	do not wait); at most the commands in flight.
 * @timeout_ns: longest wait in nanoseconds, relative to the call
 *	(CLOCK_MONOTONIC); negative: no limit; 0: do not wait.
 *
 * Takes up to @max ready completions off @q. Fewer than @min_complete
 * are returned only when @timeout_ns ran out first (not an error: the
 * rest come later). Reaping releases the messages of the previous reap.
 *
 * Return: the number of completions written to @cqes (0 to @max);
 * -EINVAL for NULL @q or @cqes, @max of 0, or @min_complete over the
 * commands in flight (the wait could never end).
 */
int ipu_queue_reap(struct ipu_queue *q, struct ipu_completion *cqes,
		   size_t max, size_t min_complete, int64_t timeout_ns);

/*
 * Registered host buffers. A transfer makes the kernel pin the pages of
 * its host range, and unpin them when it is done: for the same buffers
 * moved run after run, that is repeated work. A queue can instead be given
 * the host buffers it will move, once (io_uring's registered buffers):
 * their pages stay pinned while registered, and a transfer on this queue
 * whose host range lies wholly inside one of them goes without pinning
 * (IORING_URING_CMD_FIXED). Other transfers work as before. The model
 * backend, devices without IPU_FEATURE_URING_FIXED and queues without
 * io_uring accept the registration and ignore it.
 */

/* Most host buffers one registration may name. */
#define IPU_QUEUE_MAX_BUFFERS		1024

/**
 * ipu_queue_register_buffers() - register host buffers with @q.
 * @q: the queue.
 * @bufs: @n host ranges (base and length, each > 0 bytes, mapped
 *	read-write); copied. The memory must stay mapped until it is
 *	unregistered or @q destroyed; it is pinned meanwhile (locked-memory
 *	limits apply to unprivileged processes).
 * @n: 1 to IPU_QUEUE_MAX_BUFFERS.
 *
 * One set at a time: to change it, unregister first.
 *
 * Return: 0; -EINVAL for NULL arguments, @n out of range, a NULL, empty
 * or wrapping buffer; -EBUSY when buffers are registered already;
 * -EFAULT when a range is not mapped; -ENOMEM (also past the locked-memory
 * limit); other -errno from io_uring_register(2).
 */
int ipu_queue_register_buffers(struct ipu_queue *q, const struct iovec *bufs,
			       size_t n);

/**
 * ipu_queue_unregister_buffers() - drop the host buffers registered with
 * @q. Transfers in flight that use them finish first (the kernel waits).
 *
 * Return: 0; -EINVAL for NULL @q; -ENOENT when none are registered.
 */
int ipu_queue_unregister_buffers(struct ipu_queue *q);

/**
 * struct ipu_op_record - one op a replica executed, profiled.
 * @index: its index in the program's instructions.
 * @op: its enum ipu_op (include/ipu/exe.h; ipu_exe_op_name() names it).
 * @start_ns, @end_ns: CLOCK_MONOTONIC when it began and ended.
 */
struct ipu_op_record {
	uint32_t index;
	uint32_t op;
	int64_t start_ns;
	int64_t end_ns;
};

/**
 * struct ipu_launch_profile - the op records of one profiled launch.
 * @recs: @n records in the order executed (a loop's body once per
 *	iteration; loop control is not recorded).
 * @n: records.
 * @dropped: ops executed past the records' room (up to
 *	IPU_PROFILE_MAX_RECORDS per launch), counted only.
 */
struct ipu_launch_profile {
	const struct ipu_op_record *recs;
	size_t n;
	uint64_t dropped;
};

/* Most records one profiled launch keeps (ipu_launch_profile.dropped). */
#define IPU_PROFILE_MAX_RECORDS	65536

/**
 * ipu_queue_profile() - the op records of a launch made with
 * IPU_LAUNCH_F_PROFILE, whose completion the last ipu_queue_reap() on @q
 * returned with @user_data (give the launches of a batch distinct
 * user_data to tell them apart; the first match wins).
 * @q: the queue.
 * @user_data: the completion's user_data.
 * @prof: out: the records; owned by the queue and valid, like a
 *	completion's message, until the next ipu_queue_reap() on @q or
 *	ipu_queue_destroy().
 *
 * The records come with the completion, whatever its result (a failed
 * run's records stop at the op that failed). A launch without the flag
 * costs nothing for it.
 *
 * Return: 0; -ENOENT when the last reap returned no profiled launch with
 * @user_data, or when its device records none (without
 * IPU_DEVICE_CAP_PROFILE; on the kernel backend also a queue that fell
 * back to the ioctls). A launch of a device with the cap always has an
 * answer, with no records when the firmware wrote none (it refused the
 * program before running it);
 * -EINVAL for a NULL argument. Added in libipu 1.7 (LIBIPU_1.7).
 */
int ipu_queue_profile(struct ipu_queue *q, uint64_t user_data,
		      struct ipu_launch_profile *prof);

/* ------------------------------------------------------------------------ */
/* Gather requests                                                          */
/* ------------------------------------------------------------------------ */

/*
 * A program split across instances (processes; docs/instances.md) runs
 * this process's replicas with split launches (struct ipu_launch_desc's
 * instance and staging fields). Its all-reduces need the other
 * instances' operands, which only the host can fetch (its transport, e.g.
 * MPI): for each, the device of the run's replica 0 writes its
 * instance's part into the launch's staging area, posts a *gather
 * request* and holds the run until the host answers. The host
 *
 *	1. learns of it: ipu_gather_fd() polls readable (POLLIN) while a
 *	   request waits, and ipu_gather_next() takes the oldest;
 *	2. reads this instance's part from the staging area (part
 *	   @instance_index at @staging_offset + @instance_index * @bytes),
 *	   exchanges the parts with the other instances, and writes every
 *	   other part i at @staging_offset + i * @bytes (ipu_bo_map(), or a
 *	   transfer: the device's DMA queues run beside its held launch);
 *	3. answers: ipu_gather_answer() with 0, and the run goes on with the
 *	   parts; or with a negative errno, and the run's launches fail with
 *	   it (e.g. -ETIMEDOUT for a dead peer: fail rather than let the
 *	   device wait until the launch's deadline).
 *
 * A request unanswered until the launch's deadline fails the launch
 * (-ETIMEDOUT); a reset of the device forgets its requests (their tokens
 * become stale); closing the device's handle fails those pending
 * (-ECANCELED). Devices with IPU_DEVICE_CAP_GATHER (PCIe IPUs) post
 * requests; the kernel's simulated IPUs run the firmware in ipu-simd,
 * which asks the process itself (include/ipu/fw_gather.h), and the model
 * calls the process's instances directly (ipu_model_set_instances()).
 */

/* Largest errno ipu_gather_answer() passes to the device. */
#define IPU_GATHER_MAX_ERRNO	4095

/**
 * struct ipu_gather_request - a device's request, from ipu_gather_next().
 * @sz: in: sizeof(struct ipu_gather_request).
 * @token: names the request to ipu_gather_answer(); never 0, never reused
 *	on one handle of a device.
 * @staging_bo: the launch's staging buffer object (its
 *	ipu_launch_desc.staging_bo), or NULL when the caller destroyed it
 *	meanwhile (the device keeps the memory until the launch ends).
 * @staging_offset: the launch's staging_offset.
 * @bytes: each instance's part; part i is at @staging_offset + i * @bytes.
 *	The device wrote part @instance_index; the host writes the others.
 * @staging_handle: @staging_bo's handle (ipu_bo_handle()).
 * @replica: the launch's replica.
 * @instance_index, @instance_count: the launch's.
 * @collective: which gather of the run this is, from 0.
 */
struct ipu_gather_request {
	size_t sz;
	uint64_t token;
	struct ipu_bo *staging_bo;
	uint64_t staging_offset;
	uint64_t bytes;
	uint32_t staging_handle;
	uint32_t replica;
	uint32_t instance_index;
	uint32_t instance_count;
	uint32_t collective;
};

/**
 * ipu_gather_fd() - a file descriptor that polls readable while a gather
 * request of @dev waits (poll(2)/epoll: POLLIN; never read it).
 * @dev: an open device.
 *
 * The descriptor belongs to @dev: do not close it; it is valid until
 * ipu_device_close().
 *
 * Return: the descriptor, >= 0; -EINVAL for a NULL @dev; -EOPNOTSUPP on a
 * device without IPU_DEVICE_CAP_GATHER (the model, simulated IPUs).
 */
int ipu_gather_fd(struct ipu_device *dev);

/**
 * ipu_gather_next() - take the oldest gather request of @dev's split
 * launches that no call took yet. Never blocks.
 * @dev: the device whose handle launched them.
 * @req: out: set @req->sz first; filled in.
 *
 * Return: 0; -EAGAIN when no request waits (poll ipu_gather_fd());
 * -EINVAL for NULL arguments or a too small @req->sz; -EOPNOTSUPP on a
 * device without IPU_DEVICE_CAP_GATHER; -ENODEV when the device was
 * removed.
 */
int ipu_gather_next(struct ipu_device *dev, struct ipu_gather_request *req);

/**
 * ipu_gather_answer() - answer request @token of @dev.
 * @dev: the device ipu_gather_next() took it from.
 * @token: the request's token.
 * @status: 0 when every other instance's part is in the staging area (the
 *	run goes on), else a negative errno, -1 to -IPU_GATHER_MAX_ERRNO,
 *	which the run's launches then fail with.
 *
 * Return: 0; -EINVAL for a NULL @dev, a @token of 0 or a @status out of
 * range; -ENOENT when @dev has no such request waiting: answered already,
 * never handed out on this handle, or forgotten (a reset of the device,
 * or its launch ended: its deadline passed); -EOPNOTSUPP on a device
 * without IPU_DEVICE_CAP_GATHER; -ENODEV when the device was removed.
 */
int ipu_gather_answer(struct ipu_device *dev, uint64_t token, int status);

/* ------------------------------------------------------------------------ */
/* The model backend                                                        */
/* ------------------------------------------------------------------------ */

/*
 * "model:N" is IPU N of a software model that lives in the process:
 *
 *  - IPU_MODEL_DEVICES IPUs (1 to 256, default 16), each with
 *    IPU_MODEL_MEM_MB MiB of device memory (1 to 1048576, default 4096),
 *    both read from the environment when the model is first used. The
 *    memory is reserved (mmap, MAP_NORESERVE) when a device is first
 *    opened and released when its last handle closes: untouched memory
 *    costs nothing. A bad value makes opening a model device fail with
 *    -EINVAL, naming the variable.
 *  - Attaching is exclusive among the handles of the process (-EBUSY);
 *    another process has a model of its own.
 *  - Buffer objects are page-granular ranges of the device memory, zeroed
 *    when allocated; ipu_bo_map() returns a pointer into that memory.
 *  - Transfers are memcpy() by the queue's DMA-engine thread; they do not
 *    detect bad host pointers (no -EFAULT: like memcpy(), they fault).
 *  - Launches run the firmware executor (libipufw) on the engine thread.
 *  - ipu_device_info: platform IPU_DEVICE_PLATFORM_MODEL, firmware_version
 *    IPUFW_VERSION, serial 0x49505500 + N, caps including
 *    IPU_DEVICE_CAP_LAUNCH, launch_timeout_ms 0 (a launch runs until its
 *    program ends); resets keep memory, stop the program running on the
 *    device (its launch completes with -EIO) and release a hung launch.
 *  - Fault injection, for tests (as the kernel's simulated IPUs have
 *    fail_dma): IPU_MODEL_FAULTS, read with the settings above, is a
 *    comma-separated list of KIND:K (the next K operations of KIND fail
 *    with -EIO) or KIND:%N (every Nth one does); KIND is "dma" (a
 *    transfer, which then moves nothing), "launch" (the program runs,
 *    then its launch fails, as a device failing part way), "hang" (a
 *    launch never finishes, as a firmware that stopped answering: it
 *    completes with -EIO only when a device of its run is reset, or is
 *    dropped with its queue), "xfer_hang" (the same for a transfer,
 *    which moves nothing), "reset" (resetting a device fails with
 *    -EIO and resets nothing), "attach", or "corrupt" (a transfer moves
 *    its bytes with the first and last inverted and succeeds: silent
 *    corruption, which only comparing the bytes finds).
 *    Tests set it at run time with __ipu_model_faults_set() (test-only,
 *    include/ipu/testing.h).
 *  - Instances: a program split across processes (instance_replication_factor
 *    below replication_factor, docs/instances.md) runs its cross-instance
 *    all-reduces through the process's instances, ipu_model_set_instances().
 */

struct ipufw_instances; /* include/ipu/firmware.h */

/**
 * ipu_model_set_instances() - make this process instance @inst->index of
 * @inst->count for the model's launches of split programs; NULL for none
 * (the default: a split program's launch then fails with -EINVAL). The
 * model is in the process, so the process is the instance. @inst is kept,
 * not copied: keep it alive and unchanged until it is replaced; replace it
 * only while no launch runs. libipu-mpi's ipu_mpi_instances_init() calls
 * this.
 */
void ipu_model_set_instances(const struct ipufw_instances *inst);

/** ipu_model_instances() - what ipu_model_set_instances() set, or NULL. */
const struct ipufw_instances *ipu_model_instances(void);

#ifdef __cplusplus
}
#endif

#endif /* IPU_IPU_H */
