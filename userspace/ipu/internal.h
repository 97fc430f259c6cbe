/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * internal.h - libipu's private objects and helpers, shared by its files.
 *
 * Not installed. The unit tests include it (and backend.h) to reach the
 * exported-but-internal hooks, whose names start with "__".
 */
#ifndef IPU_INTERNAL_H
#define IPU_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ipu/ipu.h>

struct ipu_backend_ops;

/**
 * struct ipu_device - an open device.
 * @ops: the backend that opened it; never changes.
 * @priv: the backend's state.
 * @index: N of "<backend>:N".
 * @name: "<backend>:N".
 * @lock: protects @bos and every bo's @map.
 * @bos: live buffer objects of this device, a NULL-terminated list.
 */
struct ipu_device {
	const struct ipu_backend_ops *ops;
	void *priv;
	unsigned int index;
	char name[32];
	pthread_mutex_t lock;
	struct ipu_bo *bos;
};

/**
 * struct ipu_bo - a buffer object.
 * @dev: its device.
 * @prev, @next: in @dev's list, under @dev->lock.
 * @handle: the backend's handle, never 0.
 * @size: rounded size.
 * @device_addr: device address.
 * @cookie: backend data (the kernel backend's mmap offset).
 * @map: address from ipu_bo_map(), NULL when unmapped; under @dev->lock.
 */
struct ipu_bo {
	struct ipu_device *dev;
	struct ipu_bo *prev, *next;
	uint32_t handle;
	uint64_t size;
	uint64_t device_addr;
	uint64_t cookie;
	void *map;
};

/* error.c */

/*
 * ipu_err() - record the thread's error message and return @err.
 * The message is "<formatted text>: <strerror(err)>".
 */
int ipu_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * IPU_KEEP_ERRNO() - first statement of every public function: errno is
 * restored to its value on entry when the function returns.
 */
void ipu_errno_restore(const int *saved);
#define IPU_KEEP_ERRNO()                                                  \
	const int ipu_saved_errno_                                        \
		__attribute__((cleanup(ipu_errno_restore), unused)) = errno

/* opts.c */

/*
 * ipu_opts_check() - validate an extensible input struct of @known bytes
 * (this library's sizeof) whose caller says it has @sz bytes.
 * Return: 0; -EINVAL when @sz < @min; -E2BIG when bytes past @known are
 * not zero.
 */
int ipu_opts_check(const void *opts, size_t sz, size_t min, size_t known);

/*
 * ipu_out_copy() - copy @known bytes of @src to an extensible output
 * struct of @sz bytes (sz field included) at @dst, zeroing what @dst has
 * beyond @known and keeping its sz field. Return 0 or -EINVAL when @sz is
 * below @min.
 */
int ipu_out_copy(void *dst, size_t sz, const void *src, size_t min,
		 size_t known);

/* paths.c: where sysfs and the device nodes are; tests can move them. */
const char *ipu_sysfs_root(void);
const char *ipu_dev_root(void);

/*
 * __ipu_set_sysfs_root() - use @root instead of "/sys" (NULL: back to
 * "/sys"). For tests; not thread-safe. Return 0 or -ENAMETOOLONG.
 */
int __ipu_set_sysfs_root(const char *root);

/*
 * __ipu_set_dev_root() - use @root instead of "/dev" for device nodes
 * (NULL: back to "/dev"). For tests; not thread-safe.
 * Return 0 or -ENAMETOOLONG.
 */
int __ipu_set_dev_root(const char *root);

/* enumerate.c: used by backends to fill a list. */
int ipu_device_list_add(struct ipu_device_list *list,
			const struct ipu_device_entry *entry);

/* sysfs.c */

/* Read the first line of a small sysfs file at "<dir>/<attr>" into @buf. */
int ipu_sysfs_read(const char *dir, const char *attr, char *buf, size_t len);
int ipu_sysfs_read_u64(const char *dir, const char *attr, int base,
		       uint64_t *val);

/* Hardware devices, from <sysfs root>/class/ipu/ipuN. */
int ipu_sysfs_enumerate(struct ipu_device_list *list, const char *prefix);

/* Parse "major.minor.patch" into (major << 16) | (minor << 8) | patch. */
int ipu_parse_fw_version(const char *s, uint32_t *ver);

/* Map a platform name ("sim", "pci") to IPU_DEVICE_PLATFORM_*. */
unsigned int ipu_platform_from_name(const char *name);

/* bo.c: destroy every BO of @dev (ipu_device_close()). */
void ipu_bo_destroy_all(struct ipu_device *dev);

#endif /* IPU_INTERNAL_H */
