/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktest.h - shared helpers of the kernel tests (tests/kernel/test_*.c).
 *
 * Each test binary is one C file (see the top-level Makefile), so the helpers
 * are static inline functions here.
 *
 * - Raw ioctls: kt_ioctl() and the kt_<command>() wrappers return 0 or
 *   -errno, so a test reads assert_int_equal(kt_attach(fd), -EBUSY).
 * - Skipping: a test that needs /dev/ipuN calls kt_open(N) (or
 *   kt_require_dev(N)), which skips the test when the device is absent (no
 *   module loaded, as on a build host). KT_RUN() exits 77 only when every
 *   test skipped, 1 when one failed, else 0.
 * - Cleanup: what a test opens through these helpers (files, mappings,
 *   libipu devices and queues, child processes, simulated devices it
 *   added, fault switches it set) is tracked and released by kt_teardown() even when an
 *   assertion fails half way, so one failing test cannot leave the device
 *   attached under the next one. Release things early only through the
 *   kt_close()/kt_munmap()/... helpers, which stop tracking them.
 * - Child processes must not use cmocka's asserts (they would longjmp in the
 *   child): they check with plain code and report through their exit status.
 * - No test sleeps to wait for something or measures time: processes
 *   synchronise through pipes and waitpid().
 */
#ifndef IPU_TESTS_KTEST_H
#define IPU_TESTS_KTEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/ipu.h>
#include <ipu/hw.h>
#include <ipu/ipu.h>

#define KT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define KT_SYSFS_CLASS "/sys/class/ipu"
#define KT_SIM_CTL "/sys/devices/ipu_sim"
#define KT_DEBUGFS "/sys/kernel/debug/ipu"
#define KT_PCI_DEVICES "/sys/bus/pci/devices"
#define KT_PCI_DRIVER "/sys/bus/pci/drivers/ipu"

/* ------------------------------------------------------------------------ */
/* Skipping and the exit status                                             */
/* ------------------------------------------------------------------------ */

static unsigned int kt_skipped __attribute__((unused));

/* Mark the running test skipped (and count it) and leave it. */
#define kt_skip()                                                         \
	do {                                                              \
		kt_skipped++;                                             \
		skip();                                                   \
	} while (0)

static inline int kt_exit_code(int failed, size_t ntests)
{
	if (failed)
		return 1;
	if (ntests && kt_skipped == ntests)
		return 77;
	return 0;
}

/* Run the group of @tests and turn the result into the exit status. */
#define KT_RUN(tests)                                                     \
	kt_exit_code(cmocka_run_group_tests(tests, NULL, NULL),           \
		     KT_ARRAY_SIZE(tests))

/*
 * The same tests on the other kind of IPU, without forking them: a file
 * that defines KT_ON_PCI and then includes another test file (e.g.
 * tests/kernel/test_pci_xfer.c: test_xfer.c) runs that file's tests on
 * the PCIe IPUs. Its device @idx is then the @idx-th PCI IPU by number
 * (sysfs platform "pci"), not /dev/ipu@idx; absent ones skip as usual.
 */
#define KT_NO_DEV 100000u

static inline int kt_read_file(const char *path, char *buf, size_t len);

static inline unsigned int kt_dev(unsigned int idx)
{
#ifdef KT_ON_PCI
	char path[64], buf[16];
	unsigned int n, seen = 0;

	for (n = 0; n < 256; n++) {
		snprintf(path, sizeof(path), "/sys/class/ipu/ipu%u/platform", n);
		if (kt_read_file(path, buf, sizeof(buf)) || strcmp(buf, "pci"))
			continue;
		if (seen++ == idx)
			return n;
	}
	return KT_NO_DEV;
#else
	return idx;
#endif
}

static inline bool kt_have_dev(unsigned int idx)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/ipu%u", kt_dev(idx));
	return access(path, F_OK) == 0;
}

#ifdef KT_ON_PCI
#define KT_KIND "PCI IPU "
/* GET_INFO's platform and the sysfs "platform" of the devices tested. */
#define KT_PLATFORM IPU_PLATFORM_PCI
#define KT_PLATFORM_NAME "pci"
/* Launches run on the device's command queue, not a userspace firmware. */
#define KT_FEATURE_FW_SIM 0
#else
#define KT_KIND "/dev/ipu"
#define KT_PLATFORM IPU_PLATFORM_SIM
#define KT_PLATFORM_NAME "sim"
#define KT_FEATURE_FW_SIM IPU_FEATURE_FW_SIM
#endif

/* "/dev/ipuN" of device @idx (kt_dev()) in @buf; returns @buf. */
static inline const char *kt_node(unsigned int idx, char *buf, size_t len)
{
	snprintf(buf, len, "/dev/ipu%u", kt_dev(idx));
	return buf;
}

/* libipu's name of device @idx (kt_dev()), "hw:N", in @buf; returns @buf. */
static inline const char *kt_hw(unsigned int idx, char *buf, size_t len)
{
	snprintf(buf, len, "hw:%u", kt_dev(idx));
	return buf;
}

/* The same, in a buffer that lives as long as the enclosing block. */
#define KT_NODE(idx) kt_node((idx), (char[32]){ 0 }, 32)
#define KT_HW(idx) kt_hw((idx), (char[32]){ 0 }, 32)

/*
 * Skip the running test on the PCI variant (KT_ON_PCI), saying in one
 * line what only simulated IPUs have that it needs (@why); nothing on
 * simulated IPUs.
 */
#ifdef KT_ON_PCI
#define kt_sim_only(why)                                                  \
	do {                                                              \
		print_message("needs %s, which only simulated IPUs have: skipped\n", \
			      (why));                                     \
		kt_skip();                                                \
	} while (0)
#else
#define kt_sim_only(why) ((void)(why))
#endif

#define kt_require_dev(idx)                                               \
	do {                                                              \
		if (!kt_have_dev(idx)) {                                  \
			print_message(KT_KIND "%u absent: skipped\n",     \
				      (unsigned int)(idx));               \
			kt_skip();                                        \
		}                                                         \
	} while (0)

/* ------------------------------------------------------------------------ */
/* Tracked resources                                                        */
/* ------------------------------------------------------------------------ */

enum kt_kind {
	KT_FREE,
	KT_FD,		/* fd of a device file to close */
	KT_PIPE,	/* other fd to close */
	KT_MAP,		/* addr/len to munmap */
	KT_DEV,		/* libipu device to close */
	KT_CHILD,	/* pid to kill and reap */
	KT_SIMDEV,	/* simulated device to delete */
	KT_FAULT,	/* fault switch (idx, name) to set back to 0 */
	KT_EMUFAULT,	/* ipu-emu's ipu<idx>, whose faults to clear */
	KT_QUEUE,	/* libipu queue to destroy (before its devices) */
	KT_PCIFN,	/* PCI function (name) to bind to ipu.ko again if unbound */
};

struct kt_res {
	enum kt_kind kind;
	int fd;
	void *addr;
	size_t len;
	struct ipu_device *dev;
	struct ipu_queue *q;
	pid_t pid;
	unsigned int idx;
	char name[32];
};

#define KT_MAX_RES 256
static struct kt_res kt_res[KT_MAX_RES] __attribute__((unused));

static inline struct kt_res *kt_track(enum kt_kind kind)
{
	int i;

	for (i = 0; i < KT_MAX_RES; i++) {
		if (kt_res[i].kind == KT_FREE) {
			memset(&kt_res[i], 0, sizeof(kt_res[i]));
			kt_res[i].kind = kind;
			return &kt_res[i];
		}
	}
	fail_msg("ktest: more than %d tracked resources", KT_MAX_RES);
	return NULL;
}

static inline struct kt_res *kt_find(enum kt_kind kind, int fd, void *addr,
				     struct ipu_device *dev, pid_t pid,
				     unsigned int idx)
{
	int i;

	for (i = KT_MAX_RES - 1; i >= 0; i--) {
		struct kt_res *r = &kt_res[i];

		if (r->kind != kind)
			continue;
		if (((kind == KT_FD || kind == KT_PIPE) && r->fd == fd) ||
		    (kind == KT_MAP && r->addr == addr) ||
		    (kind == KT_DEV && r->dev == dev) ||
		    (kind == KT_CHILD && r->pid == pid) ||
		    (kind == KT_SIMDEV && r->idx == idx))
			return r;
	}
	return NULL;
}

static inline void kt_untrack(struct kt_res *r)
{
	if (r)
		r->kind = KT_FREE;
}

static inline int kt_write_file(const char *path, const char *val)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(val))
		err = -EIO;
	close(fd);
	return err;
}

static inline int kt_fault_path(char *buf, size_t len, unsigned int idx,
				const char *name)
{
	return snprintf(buf, len, KT_DEBUGFS "/ipu%u/%s", idx, name);
}

/* ipu-emu's control port (kemuctl.h, included below). */
static inline bool ke_open(void);
static inline int ke_send(const char *cmd, unsigned int ipu, const char *spec,
			  char *ans, size_t len);

static inline void kt_release(struct kt_res *r)
{
	struct ipu_detach detach;
	char path[128];
	int status;

	switch (r->kind) {
	case KT_FD:
		/*
		 * DETACH first: close(2) frees the device only with the last
		 * reference to the file, and io_uring requests hold theirs
		 * until the ring frees them, later, from a kernel worker
		 * (io_ring_exit_work). The next test's ATTACH must not race
		 * that (-EBUSY). Not an ipu file, or not the owner: ignored.
		 */
		memset(&detach, 0, sizeof(detach));
		(void)ioctl(r->fd, IPU_IOCTL_DETACH, &detach);
		close(r->fd);
		break;
	case KT_PIPE:
		close(r->fd);
		break;
	case KT_MAP:
		munmap(r->addr, r->len);
		break;
	case KT_DEV:
		ipu_device_close(r->dev);
		break;
	case KT_QUEUE:
		ipu_queue_destroy(r->q);
		break;
	case KT_CHILD:
		kill(r->pid, SIGKILL);
		while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
			;
		break;
	case KT_SIMDEV:
		snprintf(path, sizeof(path), "%u", r->idx);
		kt_write_file(KT_SIM_CTL "/del_device", path);
		break;
	case KT_FAULT:
		kt_fault_path(path, sizeof(path), r->idx, r->name);
		kt_write_file(path, "0");
		break;
	case KT_EMUFAULT:
		/* Not fired (a test that failed first): not for the next. */
		if (ke_open())
			(void)ke_send("fault", r->idx, "clear", path, sizeof(path));
		break;
	case KT_PCIFN:
		snprintf(path, sizeof(path), KT_PCI_DEVICES "/%s/driver", r->name);
		if (access(path, F_OK))
			kt_write_file(KT_PCI_DRIVER "/bind", r->name);
		break;
	case KT_FREE:
		break;
	}
	r->kind = KT_FREE;
}

/* Release everything tracked, newest first. */
static inline void kt_cleanup(void)
{
	int i;

	/* Children first: they may hold the devices. */
	for (i = KT_MAX_RES - 1; i >= 0; i--)
		if (kt_res[i].kind == KT_CHILD)
			kt_release(&kt_res[i]);
	/* Queues before devices: commands in flight name the devices. */
	for (i = KT_MAX_RES - 1; i >= 0; i--)
		if (kt_res[i].kind == KT_QUEUE)
			kt_release(&kt_res[i]);
	for (i = KT_MAX_RES - 1; i >= 0; i--)
		if (kt_res[i].kind != KT_SIMDEV && kt_res[i].kind != KT_FAULT &&
		    kt_res[i].kind != KT_EMUFAULT && kt_res[i].kind != KT_PCIFN)
			kt_release(&kt_res[i]);
	/* Then what needs the files closed. */
	for (i = KT_MAX_RES - 1; i >= 0; i--)
		kt_release(&kt_res[i]);
}

static inline int kt_teardown(void **state)
{
	(void)state;
	kt_cleanup();
	return 0;
}

/* A test with the tracked-resource teardown. */
#define KT_TEST(f) cmocka_unit_test_teardown(f, kt_teardown)

/* ------------------------------------------------------------------------ */
/* Files, mappings, devices                                                 */
/* ------------------------------------------------------------------------ */

/* Open device @idx (kt_dev()) read-write (skips the test if absent); tracked. */
static inline int kt_open(unsigned int idx)
{
	char path[64];
	int fd;

	kt_require_dev(idx);
	kt_node(idx, path, sizeof(path));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	kt_track(KT_FD)->fd = fd;
	return fd;
}

/* Close a tracked fd now; returns close()'s 0 or -errno. */
static inline int kt_close(int fd)
{
	struct kt_res *r = kt_find(KT_FD, fd, NULL, NULL, 0, 0);

	kt_untrack(r ? r : kt_find(KT_PIPE, fd, NULL, NULL, 0, 0));
	return close(fd) ? -errno : 0;
}

/* mmap(), tracked when it succeeds. Returns the address or MAP_FAILED. */
static inline void *kt_mmap(size_t len, int prot, int flags, int fd,
			    off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p != MAP_FAILED) {
		struct kt_res *r = kt_track(KT_MAP);

		r->addr = p;
		r->len = len;
	}
	return p;
}

/* mmap() that must fail: returns -errno, 0 if it (wrongly) succeeded. */
static inline int kt_mmap_err(size_t len, int prot, int flags, int fd,
			      off_t off)
{
	void *p = kt_mmap(len, prot, flags, fd, off);

	return p == MAP_FAILED ? -errno : 0;
}

static inline int kt_munmap(void *addr, size_t len)
{
	kt_untrack(kt_find(KT_MAP, 0, addr, NULL, 0, 0));
	return munmap(addr, len) ? -errno : 0;
}

/*
 * @len bytes of address space that faults on every access (PROT_NONE),
 * tracked: a host range the kernel cannot pin. (Unmapping a buffer
 * instead leaves a hole the next mmap() may fill.)
 */
static inline void *kt_no_access(size_t len)
{
	void *p = kt_mmap(len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

/* Anonymous read-write memory of @len bytes, tracked. */
static inline void *kt_alloc(size_t len)
{
	void *p = kt_mmap(len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

/* Open device @idx (kt_hw()) with libipu (skips if absent); tracked. */
static inline struct ipu_device *kt_dev_open(unsigned int idx, uint32_t flags)
{
	IPU_OPTS(ipu_open_opts, opts, .flags = flags);
	struct ipu_device *dev = NULL;
	char name[32];
	int err;

	kt_require_dev(idx);
	kt_hw(idx, name, sizeof(name));
	err = ipu_device_open(name, &opts, &dev);
	if (err)
		fail_msg("ipu_device_open(%s): %d (%s)", name, err, ipu_errmsg());
	kt_track(KT_DEV)->dev = dev;
	return dev;
}

static inline void kt_dev_close(struct ipu_device *dev)
{
	kt_untrack(kt_find(KT_DEV, 0, NULL, dev, 0, 0));
	ipu_device_close(dev);
}

/* A queue of @entries (0: the default) for @dev's backend; tracked. */
static inline struct ipu_queue *kt_queue(struct ipu_device *dev,
					 uint32_t entries)
{
	IPU_OPTS(ipu_queue_opts, opts, .entries = entries);
	struct ipu_queue *q = NULL;
	int err;

	err = ipu_queue_create(dev, &opts, &q);
	if (err)
		fail_msg("ipu_queue_create(%s): %d (%s)", ipu_device_name(dev),
			 err, ipu_errmsg());
	kt_track(KT_QUEUE)->q = q;
	return q;
}

/* Destroy a tracked queue now. */
static inline void kt_queue_destroy(struct ipu_queue *q)
{
	int i;

	for (i = KT_MAX_RES - 1; i >= 0; i--)
		if (kt_res[i].kind == KT_QUEUE && kt_res[i].q == q)
			kt_untrack(&kt_res[i]);
	ipu_queue_destroy(q);
}

static inline size_t kt_page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * A size that both device memory and host pages divide: BOs of multiples
 * of it are whole in mmap() and have no rounding slack.
 */
static inline uint64_t kt_granule(int fd);

/* ------------------------------------------------------------------------ */
/* Raw ioctls                                                               */
/* ------------------------------------------------------------------------ */

static inline int kt_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

/*
 * The command @cmd with its size field replaced by @size: how a caller
 * built against an older (smaller) or newer (larger) header calls it.
 */
static inline unsigned long kt_resize(unsigned long cmd, size_t size)
{
	return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), size);
}

/* @cmd with its direction bits replaced by @dir. */
static inline unsigned long kt_redir(unsigned long cmd, unsigned int dir)
{
	return _IOC(dir, _IOC_TYPE(cmd), _IOC_NR(cmd), _IOC_SIZE(cmd));
}

static inline int kt_get_info(int fd, struct ipu_info *info)
{
	memset(info, 0, sizeof(*info));
	return kt_ioctl(fd, IPU_IOCTL_GET_INFO, info);
}

/* GET_INFO that must succeed. */
static inline struct ipu_info kt_info(int fd)
{
	struct ipu_info info;
	int err = kt_get_info(fd, &info);

	if (err)
		fail_msg("GET_INFO: %s", strerror(-err));
	return info;
}

static inline int kt_attach(int fd)
{
	struct ipu_attach a;

	memset(&a, 0, sizeof(a));
	return kt_ioctl(fd, IPU_IOCTL_ATTACH, &a);
}

static inline int kt_detach(int fd)
{
	struct ipu_detach d;

	memset(&d, 0, sizeof(d));
	return kt_ioctl(fd, IPU_IOCTL_DETACH, &d);
}

static inline int kt_reset(int fd)
{
	struct ipu_reset r;

	memset(&r, 0, sizeof(r));
	return kt_ioctl(fd, IPU_IOCTL_RESET, &r);
}

static inline int kt_bo_create(int fd, uint64_t size, struct ipu_bo_create *bo)
{
	memset(bo, 0, sizeof(*bo));
	bo->size = size;
	return kt_ioctl(fd, IPU_IOCTL_BO_CREATE, bo);
}

/* BO_CREATE that must succeed; returns the handle. */
static inline uint32_t kt_bo(int fd, uint64_t size, struct ipu_bo_create *out)
{
	struct ipu_bo_create bo;
	int err = kt_bo_create(fd, size, &bo);

	if (err)
		fail_msg("BO_CREATE of %" PRIu64 " bytes: %s", size, strerror(-err));
	if (out)
		*out = bo;
	return bo.handle;
}

static inline int kt_bo_destroy(int fd, uint32_t handle)
{
	struct ipu_bo_destroy d;

	memset(&d, 0, sizeof(d));
	d.handle = handle;
	return kt_ioctl(fd, IPU_IOCTL_BO_DESTROY, &d);
}

static inline int kt_bo_info(int fd, uint32_t handle, struct ipu_bo_info *info)
{
	memset(info, 0, sizeof(*info));
	info->handle = handle;
	return kt_ioctl(fd, IPU_IOCTL_BO_INFO, info);
}

static inline int kt_xfer(int fd, uint32_t handle, uint64_t bo_offset,
			  const void *ptr, uint64_t length, uint32_t flags)
{
	struct ipu_xfer x;

	memset(&x, 0, sizeof(x));
	x.user_ptr = (uint64_t)(uintptr_t)ptr;
	x.bo_offset = bo_offset;
	x.length = length;
	x.handle = handle;
	x.flags = flags;
	return kt_ioctl(fd, IPU_IOCTL_XFER, &x);
}

static inline int kt_write_bo(int fd, uint32_t handle, uint64_t off,
			      const void *src, uint64_t len)
{
	return kt_xfer(fd, handle, off, src, len, IPU_XFER_TO_DEVICE);
}

static inline int kt_read_bo(int fd, uint32_t handle, uint64_t off, void *dst,
			     uint64_t len)
{
	return kt_xfer(fd, handle, off, dst, len, IPU_XFER_FROM_DEVICE);
}

static inline uint64_t kt_granule(int fd)
{
	struct ipu_info info = kt_info(fd);
	uint64_t page = kt_page_size();

	assert_true(info.mem_page_size > 0);
	return info.mem_page_size > page ? info.mem_page_size : page;
}

/* An open, attached file of /dev/ipu@idx (skips if absent). */
static inline int kt_open_attached(unsigned int idx)
{
	int fd = kt_open(idx);

	assert_int_equal(kt_attach(fd), 0);
	return fd;
}

/* WAIT for @fence until @timeout_ns (absolute); *@status if non-NULL. */
static inline int kt_wait_fence(int fd, uint64_t fence, int64_t timeout_ns,
				int *status)
{
	struct ipu_wait w;
	int err;

	memset(&w, 0, sizeof(w));
	w.fence = fence;
	w.timeout_ns = timeout_ns;
	err = kt_ioctl(fd, IPU_IOCTL_WAIT, &w);
	if (status)
		*status = w.status;
	return err;
}

/* LAUNCH @l on @fd (its fence field ignored) and WAIT for it: its status. */
static inline int kt_launch_wait(int fd, const struct ipu_launch *l)
{
	struct ipu_launch arg = *l;
	int status;

	arg.fence = 0;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_LAUNCH, &arg), 0);
	assert_int_equal(kt_wait_fence(fd, arg.fence, INT64_MAX, &status), 0);
	return status;
}

/*
 * A tracked page holding @len bytes of @src, then made read-only: an ioctl
 * argument the kernel can read but not write back.
 */
static inline void *kt_ro_copy(const void *src, size_t len)
{
	void *p = kt_alloc(kt_page_size());

	memcpy(p, src, len);
	assert_int_equal(mprotect(p, kt_page_size(), PROT_READ), 0);
	return p;
}

/* ------------------------------------------------------------------------ */
/* Data patterns                                                            */
/* ------------------------------------------------------------------------ */

/* Byte @i of pattern @seed: never constant over a page, never all zero. */
static inline uint8_t kt_pat(uint32_t seed, size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u + 1;

	return (uint8_t)((x >> 13) ^ (x >> 24) ^ (i & 0xff) ^ 0x5a);
}

static inline void kt_fill(void *buf, size_t len, uint32_t seed)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = kt_pat(seed, i);
}

/* Index of the first byte of @buf that differs from pattern @seed, or -1. */
static inline ssize_t kt_check(const void *buf, size_t len, uint32_t seed)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != kt_pat(seed, i))
			return (ssize_t)i;
	return -1;
}

/* Index of the first non-zero byte of @buf, or -1. */
static inline ssize_t kt_nonzero(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return (ssize_t)i;
	return -1;
}

#define assert_pattern(buf, len, seed)                                    \
	assert_int_equal(kt_check((buf), (len), (seed)), -1)
#define assert_zeroed(buf, len) assert_int_equal(kt_nonzero((buf), (len)), -1)

/* ------------------------------------------------------------------------ */
/* sysfs, debugfs, simulated devices                                        */
/* ------------------------------------------------------------------------ */

/* First line of a text file into @buf (newline stripped); 0 or -errno. */
static inline int kt_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * /proc/self/fdinfo/@fd into @buf (NUL-terminated, @len bytes at most):
 * 0, or -errno when it cannot be read.
 */
static inline int kt_fdinfo(int fd, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	n = read(f, buf, len - 1);
	close(f);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* /sys/class/ipu/ipu@n/@attr, of the device numbered @n whatever its kind. */
static inline void kt_sysfs_ipu(unsigned int n, const char *attr, char *buf,
				size_t len)
{
	char path[128];
	int err;

	snprintf(path, sizeof(path), KT_SYSFS_CLASS "/ipu%u/%s", n, attr);
	err = kt_read_file(path, buf, len);
	if (err)
		fail_msg("read %s: %s", path, strerror(-err));
}

/* /sys/class/ipu/ipuN/@attr of device @idx (kt_dev()) as a string; fails the
 * test if unreadable. */
static inline void kt_sysfs(unsigned int idx, const char *attr, char *buf,
			    size_t len)
{
	kt_sysfs_ipu(kt_dev(idx), attr, buf, len);
}

/* A decimal sysfs attribute of /sys/class/ipu/ipu@n. */
static inline uint64_t kt_sysfs_ipu_u64(unsigned int n, const char *attr)
{
	char buf[64], *end;
	unsigned long long v;

	kt_sysfs_ipu(n, attr, buf, sizeof(buf));
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end || buf[0] == '-')
		fail_msg("%s of ipu%u is \"%s\", not a decimal", attr, n, buf);
	return v;
}

/* A decimal sysfs attribute of device @idx (kt_dev()). */
static inline uint64_t kt_sysfs_u64(unsigned int idx, const char *attr)
{
	return kt_sysfs_ipu_u64(kt_dev(idx), attr);
}

/*
 * The PCI function (its address, "0000:01:00.0") of ipu@n into @buf;
 * -ENODEV when ipu@n is not a PCI IPU.
 */
static inline int kt_pci_fn_of(unsigned int n, char *buf, size_t len)
{
	char path[64], link[256];
	const char *base;
	ssize_t k;

	snprintf(path, sizeof(path), KT_SYSFS_CLASS "/ipu%u/device", n);
	k = readlink(path, link, sizeof(link) - 1);
	if (k < 0)
		return -ENODEV;
	link[k] = '\0';
	base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	if (!strchr(base, ':'))
		return -ENODEV;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, base, strlen(base) + 1);
	return 0;
}

/* A hexadecimal attribute of PCI function @bdf ("0x1ffe"), or -1. */
static inline long kt_fn_hex(const char *bdf, const char *attr)
{
	char path[320], buf[32], *end;
	long v;

	snprintf(path, sizeof(path), KT_PCI_DEVICES "/%s/%s", bdf, attr);
	if (kt_read_file(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	v = strtol(buf, &end, 16);
	if (errno || end == buf || *end)
		return -1;
	return v;
}

/* Whether PCI function @bdf has the spec's vendor and device ID. */
static inline bool kt_is_ipu_fn(const char *bdf)
{
	return kt_fn_hex(bdf, "vendor") == IPU_PCI_VENDOR_ID &&
	       kt_fn_hex(bdf, "device") == IPU_PCI_DEVICE_ID;
}

/*
 * The PCI domain and bus/device/function (GET_INFO's pci_domain and
 * pci_bdf) of device @idx (kt_dev()), from its function's address; 0
 * and 0 for a device not on a PCI bus.
 */
static inline void kt_pci_addr(unsigned int idx, uint32_t *domain,
			       uint32_t *bdf)
{
	unsigned int dom, bus, dev, fn;
	char addr[32];

	*domain = 0;
	*bdf = 0;
	if (kt_pci_fn_of(kt_dev(idx), addr, sizeof(addr)) ||
	    sscanf(addr, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return;
	*domain = dom;
	*bdf = bus << 8 | dev << 3 | fn;
}

/*
 * The kernel log from now on: /dev/kmsg opened and moved past its last
 * record (SEEK_END), so that reading it returns only what comes later.
 */
static inline int kt_klog_from_now(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		fail_msg("/dev/kmsg: %s", strerror(errno));
	kt_track(KT_PIPE)->fd = fd;
	assert_int_equal(lseek(fd, 0, SEEK_END), 0);
	return fd;
}

/*
 * The first record of @fd (from kt_klog_from_now()) that contains one of
 * the @n strings @bad, copied into @line; false when none (read to the
 * end of the log).
 */
static inline bool kt_klog_find(int fd, const char *const *bad, size_t n,
				char *line, size_t len)
{
	char rec[8192];
	ssize_t got;
	size_t i;

	for (;;) {
		got = read(fd, rec, sizeof(rec) - 1);
		if (got < 0 && (errno == EPIPE || errno == EINTR))
			continue; /* records were overwritten: read on */
		if (got < 0 && errno == EAGAIN)
			return false;
		if (got <= 0)
			fail_msg("reading /dev/kmsg: %s", got ? strerror(errno) : "EOF");
		rec[got] = '\0';
		for (i = 0; i < n; i++) {
			if (strstr(rec, bad[i])) {
				snprintf(line, len, "%.*s", (int)len - 1, rec);
				return true;
			}
		}
	}
}

/* Bit set of the ipuN present in /sys/class/ipu (N < 64). */
static inline uint64_t kt_present(void)
{
	struct dirent *de;
	uint64_t set = 0;
	unsigned int n;
	char c;
	DIR *d;

	d = opendir(KT_SYSFS_CLASS);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "ipu%u%c", &n, &c) == 1 && n < 64)
			set |= 1ull << n;
	closedir(d);
	return set;
}

/*
 * Skip unless the module is loaded, fail if it lacks the sim controls;
 * skip on the PCI variant, whose devices come and go with the PCI bus.
 */
#define kt_require_sim_ctl()                                              \
	do {                                                              \
		kt_sim_only("the sim control file (new_device, del_device)"); \
		kt_require_dev(0);                                        \
		assert_int_equal(access(KT_SIM_CTL "/new_device", W_OK), 0); \
		assert_int_equal(access(KT_SIM_CTL "/del_device", W_OK), 0); \
	} while (0)

/*
 * Add a simulated IPU of @mem_mb MiB (0: the module's default) and return
 * its index; tracked, so teardown deletes it.
 */
static inline unsigned int kt_sim_add(unsigned int mem_mb)
{
	uint64_t before, after, added;
	char val[32];
	int err;

	before = kt_present();
	snprintf(val, sizeof(val), "%u", mem_mb);
	err = kt_write_file(KT_SIM_CTL "/new_device", val);
	if (err)
		fail_msg("write %s to new_device: %s", val, strerror(-err));
	after = kt_present();
	added = after & ~before;
	if (!added || (added & (added - 1)))
		fail_msg("new_device: expected one new ipuN in " KT_SYSFS_CLASS
			 " (before %#" PRIx64 ", after %#" PRIx64 ")",
			 before, after);
	kt_track(KT_SIMDEV)->idx = (unsigned int)__builtin_ctzll(added);
	return (unsigned int)__builtin_ctzll(added);
}

/*
 * A device for the test alone, idle, whose memory is handed out first fit
 * from its start and which the test may remove (kt_remove()): a new
 * simulated IPU of @mem_mb MiB (kt_sim_add(), deleted at teardown), or on
 * the PCI variant the first PCI IPU, which nothing holds between tests
 * (its function is bound to ipu.ko again at teardown if the test unbound
 * it). Returns its index for kt_open() and the other helpers.
 */
static inline unsigned int kt_own_dev(unsigned int mem_mb)
{
#ifdef KT_ON_PCI
	struct kt_res *r;

	(void)mem_mb;
	kt_require_dev(0);
	r = kt_track(KT_PCIFN);
	if (kt_pci_fn_of(kt_dev(0), r->name, sizeof(r->name)))
		fail_msg("ipu%u has no PCI function", kt_dev(0));
	return 0;
#else
	kt_require_sim_ctl();
	return kt_sim_add(mem_mb);
#endif
}

/*
 * Remove device @idx (kt_dev()) the way its kind is removed: del_device
 * of a simulated IPU; the unbind of a PCI IPU's function from ipu.ko (the
 * PCI core's removal path, as on hot unplug). 0 or -errno of the write;
 * tracks nothing, so a child or a thread may call it. The device's
 * tracking by kt_own_dev() stays: kt_untrack_removed() after a removal
 * that worked.
 */
static inline int kt_remove(unsigned int idx)
{
	char val[32];

#ifdef KT_ON_PCI
	if (kt_pci_fn_of(kt_dev(idx), val, sizeof(val)))
		return -ENODEV;
	return kt_write_file(KT_PCI_DRIVER "/unbind", val);
#else
	snprintf(val, sizeof(val), "%u", idx);
	return kt_write_file(KT_SIM_CTL "/del_device", val);
#endif
}

/* Device @idx of kt_own_dev() was removed: teardown must not remove it. */
static inline void kt_untrack_removed(unsigned int idx)
{
#ifdef KT_ON_PCI
	(void)idx;
#else
	kt_untrack(kt_find(KT_SIMDEV, 0, NULL, NULL, 0, idx));
#endif
}

/*
 * Bring back a device like the one kt_own_dev() gave and the test removed:
 * a new simulated IPU of @mem_mb MiB, or the PCI function bound again.
 * Returns its ipuN (the number the device node has, not an index of
 * kt_dev()).
 */
static inline unsigned int kt_readd(unsigned int mem_mb)
{
#ifdef KT_ON_PCI
	uint64_t before, added;
	int i, err;

	(void)mem_mb;
	for (i = KT_MAX_RES - 1; i >= 0 && kt_res[i].kind != KT_PCIFN; i--)
		;
	if (i < 0)
		fail_msg("kt_readd() without kt_own_dev()");
	before = kt_present();
	err = kt_write_file(KT_PCI_DRIVER "/bind", kt_res[i].name);
	if (err)
		fail_msg("bind %s: %s", kt_res[i].name, strerror(-err));
	added = kt_present() & ~before;
	if (!added || (added & (added - 1)))
		fail_msg("bind %s: expected one new ipuN", kt_res[i].name);
	return (unsigned int)__builtin_ctzll(added);
#else
	return kt_sim_add(mem_mb);
#endif
}

/* Delete simulated IPU @idx now; 0 or -errno from the write. */
static inline int kt_sim_del(unsigned int idx)
{
	char val[32];
	int err;

	snprintf(val, sizeof(val), "%u", idx);
	err = kt_write_file(KT_SIM_CTL "/del_device", val);
	if (!err)
		kt_untrack(kt_find(KT_SIMDEV, 0, NULL, NULL, 0, idx));
	return err;
}

#include "kemuctl.h"

/*
 * ipu-emu's fault (docs/hardware.md section 11) for a debugfs fault switch
 * of a simulated IPU set to @k, into @spec; false when the model has
 * none. fail_dma=K of a simulated IPU fails the next K transfers, the
 * model's the K-th descriptor: the same only for K = 1. fail_reset has no
 * twin: the model's ignore_reset makes ipu.ko fall back to FLR, and the
 * reset works.
 */
static inline bool kt_emu_fault_of(const char *name, unsigned int k,
				   char *spec, size_t len)
{
	if (!strcmp(name, "fail_dma") && k == 1) {
		snprintf(spec, len, "fail_dma=1");
		return true;
	}
	return false;
}

/*
 * Inject ipu-emu's fault @spec (docs/hardware.md section 11) into the
 * model's function of PCI IPU @idx (kt_dev()); "clear" at teardown.
 * Skips the test when the guest has no control port.
 */
static inline void kt_fault_emu(unsigned int idx, const char *spec)
{
	unsigned int n = kt_dev(idx);
	int ipu;

	ke_require();
	ipu = ke_model_ipu(n);
	if (ipu < 0)
		fail_msg("ipu%u has no PCI function", n);
	kt_track(KT_EMUFAULT)->idx = (unsigned int)ipu;
	ke_fault((unsigned int)ipu, spec);
}

/*
 * Set fault switch @name of device @idx (kt_dev()) to @k, whatever its
 * kind; teardown takes it back. A simulated IPU's is its debugfs switch
 * (/sys/kernel/debug/ipu/ipuN/@name, set back to 0); a PCI IPU's is the
 * same fault injected into ipu-emu through its control port (kemuctl.h;
 * "clear" at teardown). Skips the test on a PCI IPU when the model has no
 * such fault (kt_emu_fault_of()) or the guest no control port.
 */
static inline void kt_fault_set(unsigned int idx, const char *name,
				unsigned int k)
{
	char path[128], val[32];
	unsigned int n = kt_dev(idx);
	struct kt_res *r;
	int err;

	kt_sysfs_ipu(n, "platform", val, sizeof(val));
	if (!strcmp(val, "pci")) {
		if (!kt_emu_fault_of(name, k, val, sizeof(val))) {
			print_message("ipu-emu has no fault like %s=%u of simulated IPUs: skipped\n",
				      name, k);
			kt_skip();
		}
		kt_fault_emu(idx, val);
		return;
	}
	kt_fault_path(path, sizeof(path), n, name);
	snprintf(val, sizeof(val), "%u", k);
	err = kt_write_file(path, val);
	if (err)
		fail_msg("write %s to %s: %s", val, path, strerror(-err));
	r = kt_track(KT_FAULT);
	r->idx = n;
	snprintf(r->name, sizeof(r->name), "%s", name);
}

/* ------------------------------------------------------------------------ */
/* Child processes                                                          */
/* ------------------------------------------------------------------------ */

/*
 * fork(), tracked in the parent (teardown kills and reaps it). The child
 * forgets the tracking table (it must end with _exit()) and gets the
 * default action back for the signals cmocka catches. Unless @share_files,
 * the child closes its copies of the tracked device files (raw fds), so
 * that the parent's close() really releases a file. A libipu device or a
 * device mapping open at fork() stays shared with the child: fork first.
 */
static inline pid_t kt_fork_opt(bool share_files)
{
	pid_t pid;
	int i;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (i = 0; i < KT_MAX_RES && !share_files; i++)
			if (kt_res[i].kind == KT_FD)
				close(kt_res[i].fd);
		memset(kt_res, 0, sizeof(kt_res));
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		signal(SIGSYS, SIG_DFL);
		return 0;
	}
	kt_track(KT_CHILD)->pid = pid;
	return pid;
}

static inline pid_t kt_fork(void)
{
	return kt_fork_opt(false);
}

/* Reap child @pid; returns its wait status. */
static inline int kt_wait(pid_t pid)
{
	int status = 0;
	pid_t r;

	do {
		r = waitpid(pid, &status, 0);
	} while (r < 0 && errno == EINTR);
	assert_int_equal(r, pid);
	kt_untrack(kt_find(KT_CHILD, 0, NULL, NULL, pid, 0));
	return status;
}

/* Reap child @pid and require that it exited with status 0. */
#define kt_wait_ok(pid)                                                   \
	do {                                                              \
		int st_ = kt_wait(pid);                                   \
		if (!WIFEXITED(st_) || WEXITSTATUS(st_) != 0)             \
			fail_msg("child failed: %s %d (see its message)", \
				 WIFEXITED(st_) ? "exit" : "signal",      \
				 WIFEXITED(st_) ? WEXITSTATUS(st_) :      \
						  WTERMSIG(st_));         \
	} while (0)

/* For children: print why and _exit(@code) when @cond is false. */
#define kt_child_check(cond, code)                                        \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "child %d: %s:%d: %s failed\n",   \
				(int)getpid(), __FILE__, __LINE__, #cond); \
			_exit(code);                                      \
		}                                                         \
	} while (0)

/* Pipes: a one-byte message to wait on (blocking read, never a sleep). */
static inline void kt_pipe_send(int fd, char c)
{
	while (write(fd, &c, 1) < 0 && errno == EINTR)
		;
}

static inline int kt_pipe_recv(int fd)
{
	char c;
	ssize_t n;

	do {
		n = read(fd, &c, 1);
	} while (n < 0 && errno == EINTR);
	return n == 1 ? (unsigned char)c : -1;
}

/* A pipe whose two ends are tracked (closed at teardown). */
static inline void kt_pipe(int p[2])
{
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	kt_track(KT_PIPE)->fd = p[0];
	kt_track(KT_PIPE)->fd = p[1];
}

/*
 * Run the program @argv[0] with @argv (NULL-terminated) to its end, as
 * user @uid when non-zero, its stdout and stderr in @out (NUL-terminated,
 * cut at @outlen - 1 bytes). Returns its exit status, or 128 + the signal
 * that killed it (127: it could not be run).
 */
static inline int kt_run(const char *const *argv, uid_t uid, char *out,
			 size_t outlen)
{
	size_t got = 0;
	int p[2], st;
	ssize_t k;
	pid_t pid;

	kt_pipe(p);
	pid = kt_fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		if (uid && setuid(uid))
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	kt_close(p[1]);
	while (got + 1 < outlen &&
	       (k = read(p[0], out + got, outlen - 1 - got)) > 0)
		got += (size_t)k;
	out[got] = '\0';
	st = kt_wait(pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Pages pinned right now, system-wide (FOLL_PIN): a test that
 * pins must leave this where it found it. */
static inline int64_t kt_pinned_now(void)
{
	unsigned long long v, acq = 0, rel = 0;
	char name[64];
	FILE *f;

	/*
	 * /proc/vmstat shows the global counters, and each CPU keeps a
	 * delta it folds in only past a threshold or on vmstat's periodic
	 * work: two reads can differ with no pin taken or dropped (a base
	 * of -11 seen on 6.1). Writing stat_refresh folds every delta now
	 * (root only; the rig runs the tests as root).
	 */
	f = fopen("/proc/sys/vm/stat_refresh", "we");
	if (f) {
		fputs("1\n", f);
		fclose(f);
	}
	f = fopen("/proc/vmstat", "re");
	assert_non_null(f);
	while (fscanf(f, "%63s %llu", name, &v) == 2) {
		if (!strcmp(name, "nr_foll_pin_acquired"))
			acq = v;
		else if (!strcmp(name, "nr_foll_pin_released"))
			rel = v;
	}
	fclose(f);
	return (int64_t)(acq - rel);
}


/*
 * The DMA API's own bookkeeping (CONFIG_DMA_API_DEBUG: the debug kernel;
 * Debian's kernels have none): /sys/kernel/debug/dma-api counts the
 * mappings alive now (nr_total_entries minus num_free_entries: every
 * dma_map_* and coherent allocation not yet undone) and the errors it
 * found (an unmap of what was never mapped, a wrong size or direction, a
 * mapping left at a device's unbind), which it also logs as "DMA-API:"
 * lines that scripts/kernel-check's dmesg check fails on.
 */
#define KT_DMA_API "/sys/kernel/debug/dma-api"

struct kt_dma_api {
	bool present;		/* the kernel has the debugfs directory */
	int64_t live;		/* mappings alive now */
	uint64_t errors;	/* error_count */
};

static inline struct kt_dma_api kt_dma_api_now(void)
{
	struct kt_dma_api d = { 0 };
	unsigned long long total, nfree, errors;
	char buf[32];

	if (kt_read_file(KT_DMA_API "/nr_total_entries", buf, sizeof(buf)) ||
	    sscanf(buf, "%llu", &total) != 1 ||
	    kt_read_file(KT_DMA_API "/num_free_entries", buf, sizeof(buf)) ||
	    sscanf(buf, "%llu", &nfree) != 1 ||
	    kt_read_file(KT_DMA_API "/error_count", buf, sizeof(buf)) ||
	    sscanf(buf, "%llu", &errors) != 1)
		return d;
	d.present = true;
	d.live = (int64_t)(total - nfree);
	d.errors = errors;
	return d;
}

/*
 * The DMA API's live mappings are where @before found them and it saw no
 * error; where the kernel does not count them, say so (once per call) and
 * check nothing.
 */
static inline bool kt_dma_api_same(const struct kt_dma_api *before)
{
	struct kt_dma_api now = kt_dma_api_now();

	return !before->present ||
	       (now.present && now.live == before->live && !now.errors);
}

#define assert_dma_api_as_before(before)                                  \
	do {                                                              \
		struct kt_dma_api now_ = kt_dma_api_now();                \
		if (!(before)->present) {                                 \
			print_message("no " KT_DMA_API " (a kernel without CONFIG_DMA_API_DEBUG): DMA mappings not counted\n"); \
			break;                                            \
		}                                                         \
		assert_true(now_.present);                                \
		assert_int_equal(now_.errors, 0);                         \
		assert_int_equal(now_.live, (before)->live);              \
	} while (0)

#endif /* IPU_TESTS_KTEST_H */
