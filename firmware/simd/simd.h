/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * simd.h - ipu-simd, the firmware of the kernel's simulated IPUs.
 *
 * A simulated IPU has no processor: ipu.ko hands its launches to a
 * userspace process that attached as the device's firmware (the FW_* ioctls
 * of include/uapi/linux/ipu.h). ipu-simd is that process. Its files:
 *
 *   main.c    options, signals, the device scan and the janitor tick
 *   device.c  one device: attach, map its memory, a thread taking launches
 *   run.c     launches gathered into runs, executed by libipufw, reported
 *   cache.c   parsed executables and firmware executors kept for reuse
 *   instances.c  a split program's gather, carried to its process
 *   guard.c   SIGBUS from a revoked mapping: swap in scratch memory
 *   log.c     messages to stderr, errors rate-limited
 *
 * Objects and their lifetimes:
 *  - struct simd_map: one mmap() of a device's memory. Referenced by its
 *    device (while current) and by every launch that points into it; the
 *    last reference unmaps it. When the kernel revokes the firmware (a
 *    reset), the map is "retired": its range is replaced by anonymous
 *    memory so that a program still running writes nowhere that matters,
 *    and that program is cancelled.
 *  - struct simd_dev: one /dev/ipuN. Referenced by the daemon's list and
 *    by every launch taken from it (FW_DONE goes to its file); the last
 *    reference closes the file. Its thread is joined by the main thread.
 */
#ifndef IPU_SIMD_H
#define IPU_SIMD_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/ipu.h>

struct ipu_exe;
struct ipufw_executor;

/* How long one FW_NEXT waits before the thread looks at the stop flag. */
#define SIMD_NEXT_WAIT_MS	1000
/* How often the main thread ticks: group timeouts, device scans. */
#define SIMD_TICK_MS		100
/* Device scans happen every this many ticks (and on SIGHUP). */
#define SIMD_SCAN_TICKS		10
/* Most devices ipu-simd serves at once. */
#define SIMD_MAX_DEVS		64

/**
 * struct simd_map - a mapping of a device's whole memory.
 * @refs: references; atomic.
 * @base: first byte.
 * @len: bytes mapped (the device's memory_total).
 * @guard: slot in guard.c's table, -1 when not registered.
 */
struct simd_map {
	int refs;
	uint8_t *base;
	size_t len;
	int guard;
};

/**
 * struct simd_dev - one simulated IPU served.
 * @refs: references (the daemon's list, launches in flight); atomic.
 * @index: N of /dev/ipuN.
 * @name: "ipuN".
 * @fd: the open device file, the firmware's; closed with the last ref.
 * @mem_size: memory_total from GET_INFO.
 * @lock: protects @map.
 * @map: the current mapping, NULL while not attached.
 * @thread: the thread taking launches (device.c).
 * @started: @thread was created and must be joined.
 * @done: the thread has ended (device gone, or stop); main joins it.
 *	Atomic.
 */
struct simd_dev {
	int refs;
	unsigned int index;
	char name[16];
	int fd;
	uint64_t mem_size;
	pthread_mutex_t lock;
	struct simd_map *map;
	pthread_t thread;
	bool started;
	bool done;
};

/**
 * struct simd_launch - one launch taken with FW_NEXT.
 * @dev: its device (referenced).
 * @map: the mapping current when it was taken (referenced).
 * @work: what FW_NEXT said.
 */
struct simd_launch {
	struct simd_dev *dev;
	struct simd_map *map;
	struct ipu_fw_work work;
};

/* main.c: the daemon's settings and state, shared by the threads. */
struct simd_opts {
	int verbose;
	unsigned int group_timeout_ms; /* 0: half of launch_timeout_ms */
};
extern struct simd_opts simd_opts;

/* True once SIGTERM or SIGINT arrived: every loop winds down. */
bool simd_stopping(void);

/* log.c */

/* A message to stderr: "ipu-simd: <text>". */
void simd_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* As simd_info() when -v was given. */
void simd_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * An error a client can provoke (a bad program, a missing replica): at
 * most SIMD_LOG_BURST per SIMD_LOG_WINDOW_S seconds, then a count of what
 * was left out, so a hostile client cannot flood the log.
 */
#define SIMD_LOG_BURST		20
#define SIMD_LOG_WINDOW_S	10
void simd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* guard.c */

/*
 * simd_guard_install() - the SIGBUS handler: a fault inside a registered
 * range replaces the whole range with anonymous memory and retries; any
 * other SIGBUS kills as usual. Return 0 or -errno.
 */
int simd_guard_install(void);
/* Register [base, base + len); the slot, or -ENOSPC. */
int simd_guard_add(void *base, size_t len);
/* Forget slot @slot (the range is about to be unmapped). */
void simd_guard_del(int slot);
/*
 * Replace the range of slot @slot with anonymous memory, keeping the
 * address range reserved: accesses from a program still running land
 * there. Return 0 or -errno.
 */
int simd_guard_retire(int slot);
/* Whether slot @slot was retired (by simd_guard_retire() or a SIGBUS). */
bool simd_guard_retired(int slot);

/* device.c */

/* Get a reference to @dev. */
void simd_dev_get(struct simd_dev *dev);
/* Drop a reference; the last closes the file and frees @dev. */
void simd_dev_put(struct simd_dev *dev);
/* Get a reference to @map; put it with simd_map_put(). */
void simd_map_get(struct simd_map *map);
void simd_map_put(struct simd_map *map);

/*
 * simd_dev_open() - open /dev/ipu@index, attach as its firmware, map its
 * memory and start its thread. @*devp holds the caller's reference.
 * Return: 0; -EPERM/-EACCES without privileges; -EBUSY when another
 * firmware is attached; -ENODEV, -ENOENT when it vanished; -errno.
 */
int simd_dev_open(unsigned int index, struct simd_dev **devp);

/* Wake @dev's thread from FW_NEXT (it then checks simd_stopping()). */
void simd_dev_kick(struct simd_dev *dev);

/* Join @dev's thread (it has ended or is ending). */
void simd_dev_join(struct simd_dev *dev);

/* Report the result of @l to the kernel and release @l's references. */
void simd_launch_done(struct simd_launch *l, int status);

/* run.c */

/*
 * simd_run_launch() - a launch arrived: run it (single replica), or keep
 * it with the others of its run until all are there and run them. Takes
 * over @l (copied). Runs in the device's thread.
 */
void simd_run_launch(const struct simd_launch *l);

/*
 * simd_run_expire() - fail the runs that waited longer than the group
 * timeout for a replica (all with @stop: ipu-simd is exiting).
 */
void simd_run_expire(bool stop);

/*
 * simd_run_watch() - cancel the runs in progress over a retired mapping
 * (their device was reset): ipufw_cancel(), so that their threads come
 * back. Called on every tick of the main thread.
 */
void simd_run_watch(void);

/* instances.c */

struct simd_instances;
struct ipufw_instances;

/*
 * simd_instances_open() - the instances of a run of @exe, a program split
 * across instances (instance_replication_factor < replication_factor),
 * launched as @l[0..@nrep): connect to the gather its process serves
 * (include/ipu/fw_gather.h) and learn which instance it is. @l must stay
 * valid until simd_instances_close().
 * Return: 0 and *@sip; -EINVAL when @nrep is not the per-instance count;
 * -ECONNREFUSED, -ENOENT... when the process serves no gather; -EPERM
 * when the socket is another process's; -EPROTO for a hello that does
 * not fit the program; -ECANCELED, -EPIPE as a gather's wait; a message
 * in @msg.
 */
int simd_instances_open(const struct simd_launch *l, uint32_t nrep,
			const struct ipu_exe *exe, struct simd_instances **sip,
			char *msg, size_t msglen);
/* What to give ipufw_executor_set_instances(); valid until closed. */
const struct ipufw_instances *
simd_instances_get(const struct simd_instances *si);
/* Close the connection (the process's service then awaits the next run);
 * NULL is a no-op. */
void simd_instances_close(struct simd_instances *si);

/* profile.c: the launches' profile buffers for firmware/devmem/profile.h */

struct devprof;
struct devprof_slots;

/*
 * simd_profile_begin() - profile the run of @l[0..@nrep) on @ex when any
 * launch names a profile buffer (devprof_begin(), @slots its storage for
 * @nrep replicas). Just before ipufw_run(); devprof_end() after it.
 */
bool simd_profile_begin(const struct simd_launch *l, uint32_t nrep,
			const struct devprof_slots *slots,
			struct ipufw_executor *ex, struct devprof *p);

/* cache.c */

struct simd_image;

/*
 * simd_image_get() - the parsed executable of the @len bytes at @bytes
 * (in device memory), from the cache when those same bytes were parsed
 * before, else parsed from a private copy. Return 0; -ENOEXEC when the
 * bytes are no executable; the loader's -EINVAL, -ENOMEM; a message in
 * @msg on failure.
 */
int simd_image_get(const uint8_t *bytes, size_t len, struct simd_image **imgp,
		   char *msg, size_t msglen);
const struct ipu_exe *simd_image_exe(const struct simd_image *img);
void simd_image_put(struct simd_image *img);
/* Whether the @len bytes at @bytes are the image @img was parsed from. */
bool simd_image_same(const struct simd_image *img, const uint8_t *bytes,
		     size_t len);

/* An executor for exactly @nrep replicas, idle; give it back with _put. */
int simd_executor_get(unsigned int nrep, struct ipufw_executor **exp);
void simd_executor_put(unsigned int nrep, struct ipufw_executor *ex);

/* Free everything cached (at exit). */
void simd_cache_drain(void);

#endif /* IPU_SIMD_H */
