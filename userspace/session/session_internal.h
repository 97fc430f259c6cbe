/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * session_internal.h - libsession's private objects, shared by its files:
 *
 *	session.c	create, destroy, options, which device (S01-S05, S24)
 *	attach.c	the context manager: acquire and release IPUs (S04, S06-S08)
 *	batch.c		submitting commands to the queue and reaping them (S26)
 *	buffers.c	host buffers: S11 shapes, S12 downcast, host outputs (S15)
 *	run.c		a run (S09-S14)
 *	hostcopy.c	host copies of variables: malloc'ed or file mappings (S22)
 *	weights.c	weights to and from the device, get and write (S17-S21)
 *	errors.c	messages (S25)
 *	cancel.c	ipu_session_cancel(): the flag the waits look at
 *	testing.c	test hooks (include/ipu/testing.h)
 *	trace.c		the session's timeline (IPU_TRACE, docs/trace.md)
 *
 * Not installed; unit tests of an internal module include it by path.
 */
#ifndef IPU_SESSION_INTERNAL_H
#define IPU_SESSION_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ipu/session.h>

#define SESS_ERRMSG_LEN 4096
#define SESS_DEFAULT_ATTACH_TIMEOUT_MS 60000
/* A launch's wait on a device that sets no deadline of its own (the
 * model): long enough for any program the tests and examples run. */
#define SESS_DEFAULT_LAUNCH_MS 300000
/* Beyond the launch deadline: the kernel's watchdog, the reset and the
 * completion's way back, then the transfers at SESS_WAIT_BYTES_PER_MS
 * (16 KiB per ms: slower than a TCG guest under valgrind moves). */
#define SESS_WAIT_MARGIN_MS 10000
#define SESS_WAIT_BYTES_PER_MS 16384
/* The longest a call waiting for the device takes to see a cancel
 * (ipu_session_cancel()): it waits in slices of this long. Short for
 * Ctrl-C; long enough that a short run still waits once (one
 * io_uring_enter() on hardware). */
#define SESS_CANCEL_POLL_MS 100
/* Events a trace keeps in memory (about 80 bytes each); later ones are
 * only counted. A run of one replica makes streams + 2 of them. */
#define SESS_TRACE_MAX_EVENTS (1u << 20)
/* The last "NAME-N" of a trace file another session of the process took. */
#define SESS_TRACE_MAX_NAMES 1000u

/* The backends a session runs on: libipu's "hw:N" and "model:N". */
enum sess_backend {
	SESS_HW,
	SESS_MODEL,
};

/**
 * struct sess_tensor - a variable or constant as the host keeps it.
 * @t: the executable's entry.
 * @index: its index in the tensor table.
 * @num_groups: values the host keeps (1 for constants).
 * @host: the host copy: @num_groups values of @t->nbytes in group order.
 *	Constants point into the executable's data; mapped variables into
 *	their file mapping (@map_len bytes); the others own a malloc()ed
 *	copy.
 * @map_len: bytes mapped at @host, 0 when @host is not a mapping.
 * @readonly: a read-only file mapping (S05).
 * @all_replicas: retrieval all_replicas with group_size > 1: the host
 *	shape is one value per replica (S20).
 * @replicas: for @all_replicas: the values of every replica in replica
 *	order, as last fetched; valid when @replicas_valid. Otherwise the
 *	per-replica view is @host broadcast over each group, which is what
 *	the device holds after weights_from_host.
 * @desc: what ipu_session_tensor_desc() reports.
 */
struct sess_tensor {
	const struct ipu_exe_tensor *t;
	uint32_t index;
	uint32_t num_groups;
	uint8_t *host;
	size_t map_len;
	bool readonly;
	bool all_replicas;
	uint8_t *replicas;
	bool replicas_valid;
	struct ipu_tensor_desc desc;
};

/*
 * struct sess_io - a validated stream buffer: what the transfers of a run
 * need. @host is where slice (iteration i, replica r) starts:
 * @host + (i * replicas + r) * @slice.
 */
struct sess_io {
	uint32_t stream;	/* index in the executable's stream table */
	uint8_t *host;
	uint64_t slice;
	const struct ipu_host_buffer *buf;
	bool downcast;		/* stage through scratch as the stream dtype */
};

/**
 * struct sess_replica - where one replica runs while attached.
 * @dev: the IPU holding its arena (one of ipu_session.devs, not owned).
 * @exe_bo: the executable image, uploaded at attach.
 * @arena_bo: the replica's arena.
 * @staging_bo: a split program's staging area on PCIe IPUs
 *	(pci_gather.c), else NULL.
 */
struct sess_replica {
	struct ipu_device *dev;
	struct ipu_bo *exe_bo;
	struct ipu_bo *arena_bo;
	struct ipu_bo *staging_bo;
};

struct sess_pci_gather;

/**
 * struct ipu_session - see include/ipu/session.h.
 * @exe: the program (owned).
 * @image, @image_size: its file image (ipu_exe_save()), what launches run.
 * @backend: where it runs; @device_name its S02 name.
 * @want_ipu: the backend's index of the IPU IPU_DEVICE names ("model:3"),
 *	the first of the set attach must take (never another); -1: any set.
 *	@want_name is that value, for messages.
 * @num_ipus: IPUs needed (S03); @ipus_per_replica of them per replica.
 * @replicas: the replicas this instance runs (instance_replication_factor),
 *	replicas @base.. of the program's @rf; @base is 0 and @rf @replicas
 *	unless the program is split across instances (docs/instances.md).
 * @transfers: num_host_transfers.
 * @to_host_on_exit: weights_to_host when the context is left (S05, S07).
 * @attach_timeout_ms: how long attaching waits for busy IPUs.
 * @wait_timeout_ms: the caller's bound on a batch's wait, 0 for none
 *	(batch.c works one out).
 * @launch_ms: the longest launch deadline of the IPUs held (0 while
 *	detached), read on attach.
 * @op_profiles: every IPU held records op profiles
 *	(IPU_DEVICE_CAP_PROFILE), read on attach: a traced run asks for them
 *	only then, so that it never asks libipu for records that cannot be
 *	(whose -ENOENT would replace ipu_errmsg()).
 * @ro_mmap: the first read-only mapped variable, or NULL (S05).
 * @data_fd, @data_dir: the data directory the caller granted (an O_PATH
 *	fd and its name; -1 and NULL for none), where the files of mapped
 *	variables are opened (S22). Held during create only: the files are
 *	mapped then.
 * @inputs, @n_inputs, @outputs, @n_outputs: the streams as reported (S16),
 *	in the executable's stream order; @in_idx / @out_idx their indices
 *	in the executable's stream table.
 * @io_in, @io_out: a run's validated buffers, one per stream; @given
 *	which buffer names each stream, for S10. Allocated at create, so a
 *	run allocates nothing but downcast scratch.
 * @tensors, @n_tensors: every variable and constant, in table order.
 * @in_sync: the host copies hold what the device holds (S13, S19).
 * @fw_gather: a split program attached to "ipu_hw"'s simulated IPUs: the
 *	process serves its firmware's gathers to ipu-simd meanwhile
 *	(fw_gather.c).
 * @pci_gather: a split program attached to "ipu_hw"'s PCIe IPUs: the
 *	thread that serves their gather requests (pci_gather.c), else NULL.
 * @depth: enters not yet exited. The device is attached exactly while
 *	@depth > 0: only the outermost enter attaches (S06, S07), and
 *	nothing else attaches a session, so PopXL's stack of "was attached"
 *	flags reduces to this count.
 * @devs: the @num_ipus IPUs held while attached; @reps the replicas on
 *	them; @q the queue every command goes through.
 * @q_entries: the queue's size; @cmds and @cqes have room for as many.
 * @run_id: group id of the next replicated launch.
 * @scratch, @scratch_cap: staging for downcast inputs, kept between runs.
 * @submissions: batches submitted to @q (S26; see the test hook).
 * @fail_flushes: flushes of mapped files left to fail (a test hook).
 * @call: the number of the latest call begun (ipu_sess_call_begin()),
 *	0 before the first; @in_call: a call that holds its number for the
 *	calls it makes (attach, detach) is in progress.
 * @cancel: the number of the call a cancel no call has seen yet was made
 *	in (ipu_session_cancel()), 0 for none. @call and @cancel are only
 *	ever accessed with __atomic builtins, from any thread or a signal
 *	handler (cancel.c).
 * @on_wait, @on_wait_arg: the test hook __ipu_session_on_wait().
 * @trace: the timeline being recorded (trace.c), or NULL: not tracing.
 * @errmsg: the message of the last failed call.
 */
struct ipu_session {
	struct ipu_exe *exe;
	void *image;
	size_t image_size;
	enum sess_backend backend;
	const char *device_name;
	int want_ipu;
	char want_name[32];
	uint32_t num_ipus;
	uint32_t ipus_per_replica;
	uint32_t replicas;
	uint32_t rf, base;
	uint32_t transfers;
	bool to_host_on_exit;
	uint32_t attach_timeout_ms;
	uint32_t wait_timeout_ms;
	uint32_t launch_ms;
	bool op_profiles;
	const struct sess_tensor *ro_mmap;
	int data_fd;
	const char *data_dir;

	struct ipu_stream_desc *inputs, *outputs;
	size_t n_inputs, n_outputs;
	uint32_t *in_idx, *out_idx;
	struct sess_io *io_in, *io_out;
	size_t *given;

	struct sess_tensor *tensors;
	size_t n_tensors;
	bool in_sync;
	bool fw_gather;
	struct sess_pci_gather *pci_gather;

	uint32_t depth;
	struct ipu_device **devs;
	struct sess_replica *reps;
	struct ipu_queue *q;
	uint32_t q_entries;
	struct ipu_cmd *cmds;
	struct ipu_completion *cqes;
	uint64_t run_id;

	void *scratch;
	size_t scratch_cap;

	uint64_t submissions;
	uint32_t fail_flushes;
	unsigned int call;
	bool in_call;
	unsigned int cancel;
	void (*on_wait)(void *arg);
	void *on_wait_arg;
	struct sess_trace *trace;
	char errmsg[SESS_ERRMSG_LEN];
};

/* errors.c */

/*
 * ipu_sess_err() - record the message of a failed call on @s (NULL: the
 * thread's, for create) and return @err.
 */
int ipu_sess_err(struct ipu_session *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ipu_sess_log() - a line on stderr, "libsession: ..." (S04, S05). */
void ipu_sess_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ipu_sess_fmt_shape() - "(4, 2, 3)" into @buf; returns @buf. */
char *ipu_sess_fmt_shape(char *buf, size_t len, uint32_t ndim,
			 const uint64_t *shape);

/* session.c */

/* ipu_sess_backend_prefix() - libipu's name of @b: "hw" or "model". */
const char *ipu_sess_backend_prefix(enum sess_backend b);

/* ipu_sess_backend_has() - whether device @name is @b's ("<prefix>:N"). */
bool ipu_sess_backend_has(enum sess_backend b, const char *name);

/*
 * ipu_sess_list_devices() - a list holding @b's devices (free it with
 * ipu_device_list_free()) and how many of its entries are @b's.
 */
int ipu_sess_list_devices(enum sess_backend b, struct ipu_device_list **listp,
			  size_t *countp);

/* shape.c */

/*
 * ipu_sess_check_shape() - S11: 0 when a host buffer of shape
 * (@ndim, @shape) fits @dir ("input" or "output") stream @d; else -EINVAL
 * with a message naming the stream, the full shape and the given one.
 */
int ipu_sess_check_shape(struct ipu_session *s, const char *dir,
			 const struct ipu_stream_desc *d, uint32_t ndim,
			 const uint64_t *shape);

/* attach.c */

/*
 * ipu_sess_need_attached() - 0 when attached, else -EPERM with S08's
 * "attach first" message naming @what.
 */
int ipu_sess_need_attached(struct ipu_session *s, const char *what);

/* Release the IPUs and everything on them (destroy, failed enter). */
void ipu_sess_release(struct ipu_session *s);

/* batch.c */

/*
 * struct sess_batch - commands on their way to the session's queue. Add
 * commands with ipu_sess_batch_add(); ipu_sess_batch_flush() submits what
 * has been added as one batch and reaps all of it. A batch that fills the
 * queue is flushed on the next add, so any number of commands can go
 * through; callers that need a single submission (a run, S26) keep to
 * s->q_entries commands. After a failure nothing more is submitted and
 * every flush returns the first error.
 * @what: the operation, for messages ("run", "weights_to_host").
 * @launched: a launch completed successfully: the program ran.
 *
 * Every flush waits at most the session's bound (see wait_timeout_ms in
 * include/ipu/session.h); past it, it resets the IPUs and reaps what the
 * reset ends before it returns -ETIMEDOUT: a command's host buffer is
 * never in the device's hands after the call that named it.
 */
struct sess_batch {
	struct ipu_session *s;
	const char *what;
	size_t n;
	int err;
	bool launched;
};

void ipu_sess_batch_init(struct sess_batch *b, struct ipu_session *s,
			 const char *what);

/* ipu_sess_batch_add() - a zeroed command to fill in; never NULL. */
struct ipu_cmd *ipu_sess_batch_add(struct sess_batch *b);

/* ipu_sess_batch_xfer() - add a transfer; @flags are IPU_CMD_F_*. */
void ipu_sess_batch_xfer(struct sess_batch *b, struct ipu_bo *bo,
			 uint64_t offset, void *host, uint64_t len,
			 uint32_t dir, uint32_t flags);

/*
 * ipu_sess_batch_unlink_last() - end the chain at the last command added
 * (it was added with IPU_CMD_F_LINK and no flush came since).
 */
void ipu_sess_batch_unlink_last(struct sess_batch *b);

/*
 * ipu_sess_batch_flush() - submit and reap what was added.
 * Return: 0, or the first error: a command's (the message is "<what>:
 * <the completion's message>", preferring a failure to the cancellations
 * it caused) or the submission's.
 */
int ipu_sess_batch_flush(struct sess_batch *b);

/* cancel.c */

/*
 * ipu_sess_call_begin() - a public call that may wait for the device
 * begins on @s: a cancel made from now on is for it, one made before is
 * not. Within an attach or detach (ipu_sess_call_hold()), the calls they
 * make are part of theirs.
 */
void ipu_sess_call_begin(struct ipu_session *s);

/* ipu_sess_call_hold() - begin a call that makes others (@on), or end it. */
void ipu_sess_call_hold(struct ipu_session *s, bool on);

/*
 * ipu_sess_thread_create() - pthread_create() of a service thread that
 * takes no asynchronous signal: the process's handlers (Ctrl-C calling
 * ipu_session_cancel()) run in its own threads, never in one of ours,
 * which may outlive the session a handler would touch.
 * Return: 0 or -errno.
 */
int ipu_sess_thread_create(pthread_t *t, void *(*fn)(void *), void *arg);

/*
 * ipu_sess_take_cancel() - whether a cancel of the call in progress on
 * @s is pending; takes it (a cancel ends one call). A cancel made before
 * the call began is dropped.
 */
bool ipu_sess_take_cancel(struct ipu_session *s);

/* buffers.c */


/*
 * ipu_sess_check_io() - S10-S12 for one direction: @bufs against the
 * streams @want (indices @idx). Fills @io in @want's order.
 */
int ipu_sess_check_io(struct ipu_session *s, bool input,
		      const struct ipu_stream_buffer *bufs, size_t n,
		      const uint32_t *idx, size_t n_want, unsigned int flags,
		      struct sess_io *io);

/* ipu_sess_streams_init() - the stream descriptions (S16); at create. */
int ipu_sess_streams_init(struct ipu_session *s);

/* ipu_sess_streams_free() - what ipu_sess_streams_init() allocated. */
void ipu_sess_streams_free(struct ipu_session *s);

/* ipu_sess_shape_elems() - product of @shape; false on overflow. */
bool ipu_sess_shape_elems(uint32_t ndim, const uint64_t *shape,
			  uint64_t *elems);

/* run.c */

/* ipu_sess_run_cmds() - commands of a run in one batch (S26). */
uint64_t ipu_sess_run_cmds(const struct ipu_session *s);

/* hostcopy.c */

/* ipu_sess_tensors_init() - host copies of every variable and constant. */
int ipu_sess_tensors_init(struct ipu_session *s);

/* ipu_sess_tensors_free() - release them (unmapping files). */
void ipu_sess_tensors_free(struct ipu_session *s);

/* ipu_sess_flush_mmaps() - msync() every writable mapping (S18, S22). */
int ipu_sess_flush_mmaps(struct ipu_session *s);

/* weights.c */

/*
 * ipu_sess_upload() - the enter's upload (S06): every replica's executable
 * image, then S17, in one batch (one bounded wait, one submission).
 */
int ipu_sess_upload(struct ipu_session *s);

/*
 * ipu_sess_fetch() - device values into the host copies of every
 * variable but read-only mapped ones, all or nothing; marks them in sync.
 */
int ipu_sess_fetch(struct ipu_session *s);

/* Whether a fetch reads @st: variables but read-only mapped ones. */
bool ipu_sess_fetched(const struct sess_tensor *st);

/*
 * What a fetch reads of @st, in slots of one value each: a slot per group,
 * or per replica of the program for all_replicas retrieval (S20);
 * ipu_sess_fetch_source() is the program's replica slot @k comes from (a
 * group's first member: every member holds the group's value).
 */
uint32_t ipu_sess_fetch_slots(const struct ipu_session *s,
			      const struct sess_tensor *st);
uint32_t ipu_sess_fetch_source(const struct ipu_session *s,
			       const struct sess_tensor *st, uint32_t k);

/* fw_gather.c */

/*
 * ipu_sess_fw_gather_start() - while a split program's session is
 * attached to "ipu_hw", serve its firmware's gathers to ipu-simd (the
 * process's listener, shared by its sessions); sets @s->fw_gather.
 * ipu_sess_fw_gather_stop() undoes it (a no-op without it).
 */
int ipu_sess_fw_gather_start(struct ipu_session *s);
void ipu_sess_fw_gather_stop(struct ipu_session *s);

/* pci_gather.c */

/*
 * ipu_sess_pci_gather_start() - while a split program's session is
 * attached to PCIe IPUs: every replica's staging buffer and the thread
 * that serves the IPUs' gather requests with the process's instances;
 * sets @s->pci_gather. ipu_sess_pci_gather_stop() undoes it (a no-op
 * without it; the staging buffers go with the devices).
 */
int ipu_sess_pci_gather_start(struct ipu_session *s);
void ipu_sess_pci_gather_stop(struct ipu_session *s);

/* ipu_sess_pci_gather_launch() - make @l, replica @r's, a split launch
 * (with @s->pci_gather; else a no-op). */
void ipu_sess_pci_gather_launch(const struct ipu_session *s, uint32_t r,
				struct ipu_launch_desc *l);

/*
 * ipu_sess_pci_gather_explain() - after a run that failed with @err: when
 * a gather failed with it, make the session's message the gather's reason
 * (the device passes on only the errno). Forgets the failure either way.
 */
void ipu_sess_pci_gather_explain(struct ipu_session *s, int err);

/* gather.c */

/*
 * ipu_sess_fetch_instances() - ipu_sess_fetch()'s read for a program split
 * across instances: every instance reads its replicas and all of them
 * gather (collectively: every instance must call it, in the same order);
 * @stage gets the slots in ipu_sess_fetch_slots() order.
 */
int ipu_sess_fetch_instances(struct ipu_session *s, uint8_t *stage);

/* trace.c: every function but open and close is a no-op without a trace. */

struct sess_trace;

/* ipu_sess_trace_now() - CLOCK_MONOTONIC in ns: the trace's clock. */
int64_t ipu_sess_trace_now(void);

/*
 * ipu_sess_trace_open() - start a timeline to @path, or to IPU_TRACE's
 * file when @path is NULL; neither: no trace, 0. Opens the file now.
 * Return: 0, or a negative errno with a message naming the path (-ELOOP
 * a symbolic link, -EINVAL not a regular file or "", errors of open()).
 */
int ipu_sess_trace_open(struct ipu_session *s, const char *path);

/* ipu_sess_trace_write() - the file, whole, when events came since the
 * last write (errors on stderr: detach and destroy cannot fail). */
void ipu_sess_trace_write(struct ipu_session *s);

/* ipu_sess_trace_close() - write the file (errors on stderr) and free. */
void ipu_sess_trace_close(struct ipu_session *s);

/* ipu_sess_trace_set_max() - keep at most @max events (tests). */
void ipu_sess_trace_set_max(struct ipu_session *s, size_t max);

/* ipu_sess_trace_host() - a span on the host's track, @start to now. */
void ipu_sess_trace_host(struct ipu_session *s, const char *name,
			 int64_t start);

/* ipu_sess_trace_memory() - the device memory counters, as they are now. */
void ipu_sess_trace_memory(struct ipu_session *s);

/*
 * ipu_sess_trace_batch_begin() - before a traced batch of @n commands
 * (s->cmds) goes: numbers them (user_data) and returns where
 * ipu_sess_trace_reaped() notes their ends; NULL without memory (the
 * batch then goes untraced). Only with s->trace.
 */
int64_t *ipu_sess_trace_batch_begin(struct ipu_session *s, size_t n);

/* ipu_sess_trace_reaped() - @n completions just reaped end now. */
void ipu_sess_trace_reaped(struct ipu_session *s,
			   const struct ipu_completion *c, size_t n);

/* ipu_sess_trace_batch_end() - the batch's spans, submitted at @submitted. */
void ipu_sess_trace_batch_end(struct ipu_session *s, const char *what,
			      size_t n, int64_t submitted);

#endif /* IPU_SESSION_INTERNAL_H */
