/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * testing.h - test hooks of libipu and libsession: not part of their
 * interface, which may change them at any time.
 *
 * Each is exported from the shared library (names start with "__", each
 * library's symbol map lists them) so that the tests of public behaviour
 * can drive and observe what no application should, through this public
 * header alone, and run against the shared libraries as applications do.
 * None is thread-safe with calls on the same object unless it says so.
 */
#ifndef IPU_TESTING_H
#define IPU_TESTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ipu_device;
struct ipu_queue;
struct ipu_session;

/* ---------------------------------------------------------------------- */
/* libipu                                                                  */
/* ---------------------------------------------------------------------- */

/*
 * __ipu_set_sysfs_root() - use @root instead of "/sys" (NULL: back to
 * "/sys"); a test hides the machine's devices or shows a fake sysfs tree.
 * Not thread-safe. Return 0 or -ENAMETOOLONG.
 */
int __ipu_set_sysfs_root(const char *root);

/*
 * __ipu_set_dev_root() - use @root instead of "/dev" for device nodes
 * (NULL: back to "/dev"). Not thread-safe. Return 0 or -ENAMETOOLONG.
 */
int __ipu_set_dev_root(const char *root);

/*
 * __ipu_model_reinit() - forget the model IPUs so that their next use
 * reads IPU_MODEL_DEVICES, IPU_MODEL_MEM_MB and IPU_MODEL_FAULTS again.
 * Not thread-safe with other model calls. Return 0, or -EBUSY while a
 * model device is open.
 */
int __ipu_model_reinit(void);

/*
 * __ipu_model_faults_set() - fault injection in the model backend: @spec
 * as the environment variable IPU_MODEL_FAULTS (include/ipu/ipu.h, "The
 * model backend"), e.g. "dma:1" (the next transfer fails),
 * "launch:2,attach:%3", "hang:1"; NULL or "" clears every fault. Replaces
 * what was set before, and what IPU_MODEL_FAULTS set. Thread-safe. Return
 * 0, or -EINVAL for a bad @spec.
 */
int __ipu_model_faults_set(const char *spec);

/**
 * struct ipu_queue_stats - what a queue (or every queue of the process)
 * did, from __ipu_queue_stats(): for tests and benchmarks that count
 * system calls. All counts since the queue was made (the process started).
 * @batches: batches handed to the backend (ipu_queue_submit(), and the
 *	batches of ipu_xfer_run() and ipu_launch()).
 * @commands: commands in them.
 * @enters: io_uring_enter() system calls: @submit_enters + @wait_enters.
 * @submit_enters: those that submitted a batch (one per batch, unless a
 *	batch is longer than the ring).
 * @wait_enters: those that waited for completions.
 * @fixed_xfers: transfers sent with a registered buffer
 *	(IORING_URING_CMD_FIXED).
 */
struct ipu_queue_stats {
	uint64_t batches;
	uint64_t commands;
	uint64_t enters;
	uint64_t submit_enters;
	uint64_t wait_enters;
	uint64_t fixed_xfers;
};

/*
 * __ipu_queue_stats() - the counters of @q, or with @q NULL the totals of
 * every queue the process made. Exported for tests and benchmarks; not
 * part of the interface. Return 0, or -EINVAL for a NULL @st.
 */
int __ipu_queue_stats(const struct ipu_queue *q, struct ipu_queue_stats *st);

/* ---------------------------------------------------------------------- */
/* libsession                                                              */
/* ---------------------------------------------------------------------- */

/* __ipu_session_submissions() - batches @s submitted to its queue (S26). */
uint64_t __ipu_session_submissions(const struct ipu_session *s);

/* __ipu_session_run_cmds() - the commands of one run of @s in one batch. */
uint64_t __ipu_session_run_cmds(const struct ipu_session *s);

/*
 * __ipu_session_in_sync() - whether @s holds its host copies for the
 * device's values (S13, S19): a get_tensor_data would not fetch.
 */
bool __ipu_session_in_sync(const struct ipu_session *s);

/*
 * __ipu_session_to_host_on_exit() - whether leaving the context fetches
 * the weights (S05, S07).
 */
bool __ipu_session_to_host_on_exit(const struct ipu_session *s);

/*
 * __ipu_session_host_copy() - the host copy of variable or constant @name
 * as @s holds it, without fetching: its bytes in *@data (owned by @s,
 * valid until the next call on it) and their number in *@len. With
 * @per_replica, the values of every replica as last fetched, of a
 * variable retrieved from all replicas (S20).
 * Return: 0; -ENOENT for no such tensor; -ENODATA for @per_replica when
 * the session holds no per-replica values for it.
 */
int __ipu_session_host_copy(const struct ipu_session *s, const char *name,
			    bool per_replica, const void **data, size_t *len);

/*
 * __ipu_session_replica_device() - the IPU holding replica @r's arena,
 * owned by @s (a test may detach it behind the session's back); NULL
 * when detached or @r is out of range.
 */
struct ipu_device *__ipu_session_replica_device(const struct ipu_session *s,
						uint32_t r);

/*
 * __ipu_session_queue() - the queue every command of @s goes through
 * (owned by @s); NULL when detached.
 */
struct ipu_queue *__ipu_session_queue(const struct ipu_session *s);

/*
 * __ipu_session_fail_flushes() - the next @n flushes of memory-mapped
 * variables' files (msync(), S18) fail with -EIO, as a disk error would.
 */
void __ipu_session_fail_flushes(struct ipu_session *s, uint32_t n);

/*
 * __ipu_session_set_wait_timeout() - change the bound of @s's waits (the
 * session option wait_timeout_ms; 0 = the default bound) and return the
 * previous value. Tests shorten the bound around the one call that must
 * time out only, so their other calls never race a short bound on a slow
 * machine (valgrind, a debug kernel).
 */
uint32_t __ipu_session_set_wait_timeout(struct ipu_session *s, uint32_t ms);

/*
 * __ipu_session_on_wait() - call @fn(@arg) whenever @s has submitted a
 * batch and is about to wait for it (NULL @fn: stop), so that a test can
 * cancel a call that is surely waiting (ipu_session_cancel()). @fn runs in
 * the thread of the call, which holds no lock of libsession then.
 */
void __ipu_session_on_wait(struct ipu_session *s, void (*fn)(void *arg),
			   void *arg);

#ifdef __cplusplus
}
#endif

#endif /* IPU_TESTING_H */
