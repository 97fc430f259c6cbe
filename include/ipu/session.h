/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * session.h - libsession: run IPU programs with the semantics of Graphcore
 * PopXL's Session (docs/session.md, S01-S26).
 *
 *	struct ipu_session *s;
 *	IPU_OPTS(ipu_session_opts, opts, .device = "auto");
 *	err = ipu_session_create(ir, &opts, &s);     // takes the ir (S01)
 *	err = ipu_session_attach(s);                  // "with session:" (S06)
 *	err = ipu_session_run_with_outputs(s, in, nin, out, nout, 0);
 *	err = ipu_session_detach(s, 0);               // weights to host (S07)
 *	ipu_session_destroy(s);
 *
 * Conventions (as libipu's, include/ipu/ipu.h): functions return 0 or a
 * negative errno and never leave errno as their interface; a failure also
 * leaves a message naming the stream, tensor, shape or device at fault
 * (ipu_session_errmsg()); a call that fails changes nothing (S25): a
 * rejected run leaves variables, host copies and their sync state as they
 * were. A device error part way through a call cannot be undone on the
 * device: the host copies stay as they were and count as out of sync until
 * a fetch succeeds. Nothing aborts the process. Option structs start with `size_t sz`
 * (IPU_OPTS() from ipu.h) and zero means "the default" for every member.
 *
 * Threads: one session is used by one thread at a time, except for
 * ipu_session_cancel() and ipu_session_cancel_clear(), which any thread or
 * signal handler may call while another thread is inside a call.
 */
#ifndef IPU_SESSION_H
#define IPU_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "exe.h"
#include "ipu.h"
#include "ir.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ipu_session;

/* Host buffers have at most the two leading dims of S11 plus a tensor's. */
#define IPU_HOST_MAX_DIMS (IPU_EXE_MAX_DIMS + 2)

/**
 * struct ipu_host_buffer - a host array: what a NumPy array is to PopXL.
 * @data: the elements, C order, densely packed; not owned by libsession
 *	unless a function says it allocated them.
 * @dtype: enum ipu_dtype of the elements; host-only types (float64, int64)
 *	are accepted as inputs and downcast (S12).
 * @ndim: number of dimensions, 0 (a scalar) to IPU_HOST_MAX_DIMS.
 * @shape: the dimensions.
 */
struct ipu_host_buffer {
	void *data;
	uint32_t dtype;
	uint32_t ndim;
	uint64_t shape[IPU_HOST_MAX_DIMS];
};

/**
 * struct ipu_stream_buffer - a host buffer bound to a stream by name: one
 * entry of the inputs or outputs of a run (PopXL's dicts keyed by stream).
 * @stream: name of a host-to-device (inputs) or device-to-host (outputs)
 *	stream of the program.
 * @buf: the buffer; shape (d, r) + stream shape as S11 says.
 */
struct ipu_stream_buffer {
	const char *stream;
	struct ipu_host_buffer buf;
};

/**
 * struct ipu_stream_desc - a stream of the program, as a session reports it.
 * @name: the stream's name (owned by the session).
 * @dtype: element type.
 * @ndim, @shape: the shape of one transfer (without S11's leading dims).
 * @host_ndim, @host_shape: the full host buffer shape S11 expects:
 *	(num_host_transfers, replicas) + shape, each leading dim only when > 1.
 */
struct ipu_stream_desc {
	const char *name;
	uint32_t dtype;
	uint32_t ndim;
	uint64_t shape[IPU_EXE_MAX_DIMS];
	uint32_t host_ndim;
	uint64_t host_shape[IPU_HOST_MAX_DIMS];
};

/* Flags of ipu_session_opts.flags. */
#define IPU_SESSION_NO_WEIGHTS_TO_HOST_ON_EXIT (1u << 0) /* S05 default off */
#define IPU_SESSION_FLAGS_ALL IPU_SESSION_NO_WEIGHTS_TO_HOST_ON_EXIT

/**
 * struct ipu_session_opts - options of ipu_session_create(); IPU_OPTS().
 * @sz: sizeof(struct ipu_session_opts).
 * @device: "auto" (default, also for NULL), "ipu_hw", "ipu_model" or "cpu"
 *	(S02, S24). "auto" is the backend IPU_DEVICE names ("hw", "model",
 *	"hw:N", "model:N", read by ipu_device_name_parse(); any other value
 *	fails with -EINVAL, an IPU N that does not exist with -ENOENT, the
 *	message naming the variable), else hardware when enough of its
 *	IPUs are free and can launch programs, else the model. "ipu_hw"
 *	takes the IPUs libipu lists: with IPU_HW_PLATFORM ("sim" or "pci"),
 *	that platform's only (see ipu_device_list_create()). The
 *	environment variable IPU_OFFLINE_DEVICE ("ipu_hw", "ipu_model" or
 *	"cpu") overrides it (S04): the session is built for that type
 *	without looking for its IPUs, which are acquired on attach.
 * @flags: IPU_SESSION_* flags.
 * @attach_timeout_ms: how long attaching waits for busy hardware (S04,
 *	S06); 0 = the default, 60000.
 * @data_dir: the directory the files of memory-mapped variables (S22) may
 *	come from; NULL (the default) grants none. A program is untrusted
 *	input: it names such a file relative to this directory (the
 *	executable format refuses absolute paths and ".."), and the file is
 *	opened beneath it without following any symbolic link (openat2()
 *	RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or an O_NOFOLLOW walk where
 *	the kernel lacks openat2). Without a grant, a program with such a
 *	variable is refused (-EACCES, naming the variable and the file).
 *	Used during create only (the files are mapped then). Added after
 *	the first version: a smaller @sz without it is accepted.
 * @wait_timeout_ms: the longest a call (run, weights to or from the host)
 *	waits for the commands it gave the device; 0 = the default: the
 *	device's launch deadline (ipu_device_info.launch_timeout_ms, read on
 *	attach; 300000 for a device without one, the model) when the batch
 *	holds a launch, plus a margin of 10000 and 1 ms per 16 KiB moved.
 *	When it runs out, the call resets the session's IPUs, waits for the
 *	commands the reset ends (the device may write the call's buffers
 *	until then; should one not end within @wait_timeout_ms, or 10000
 *	ms by default, it resets again and keeps waiting, saying so on
 *	stderr) and fails with -ETIMEDOUT; the host copies are
 *	then out of sync. Added after data_dir (a smaller @sz is accepted).
 * @trace: a file to write the session's timeline to, as Chrome
 *	trace-event JSON (Perfetto, chrome://tracing; docs/trace.md), whole,
 *	at each detach that releases the IPUs and at destroy; NULL (the default): the file the
 *	environment variable IPU_TRACE names, else no timeline. Opened at
 *	create: a new file is made, an existing regular file truncated; a
 *	symbolic link (-ELOOP) or anything but a regular file (-EINVAL) is
 *	refused, naming the path. Added after wait_timeout_ms (a smaller
 *	@sz is accepted).
 */
struct ipu_session_opts {
	size_t sz;
	const char *device;
	uint32_t flags;
	uint32_t attach_timeout_ms;
	const char *data_dir;
	uint32_t wait_timeout_ms;
	const char *trace;
};

/**
 * ipu_session_errmsg() - message of the last failed call on @s; with @s
 * NULL, of the last failed ipu_session_create() in this thread.
 *
 * Return: a string owned by libsession, valid until the next call on @s
 * (or create in this thread); "" when nothing failed. Never NULL.
 */
const char *ipu_session_errmsg(const struct ipu_session *s);

/**
 * ipu_session_create() - a session for the program built in @ir (S01).
 * @ir: the program; the session takes it over whatever the outcome: it is
 *	compiled, frozen and destroyed with the session (or now, on failure).
 * @opts: options or NULL for the defaults.
 * @sp: out: the session; destroy with ipu_session_destroy().
 *
 * Works out the IPUs needed (S03), picks the device (S02, S04, S24) and, for
 * hardware, checks that enough IPUs exist. Does not attach.
 *
 * Memory-mapped variables get their files now, from @opts->data_dir.
 *
 * Return: 0; -EINVAL for NULL @ir or @sp, unknown flags, an unknown device
 * (the message lists the valid ones), "cpu" with more than one IPU, a
 * program with no graph content ("no graphs ... try adding more
 * operations"), or a program that does not compile (the compiler's message);
 * -E2BIG for unknown non-zero option bytes; -ENODEV when the device type has
 * fewer IPUs than needed; -ENOMEM; for a memory-mapped variable's file:
 * -EACCES without a data directory, -ELOOP for a symbolic link on its way,
 * -EXDEV for a way out of the directory, -EINVAL for a short or non-regular
 * file, errors of opening or mapping it.
 */
int ipu_session_create(struct ipu_ir *ir, const struct ipu_session_opts *opts,
		       struct ipu_session **sp);

/**
 * ipu_session_create_from_exe() - as ipu_session_create(), for an already
 * compiled executable (e.g. read with ipu_exe_read_file()).
 * @exe: taken over whatever the outcome.
 */
int ipu_session_create_from_exe(struct ipu_exe *exe,
				const struct ipu_session_opts *opts,
				struct ipu_session **sp);

/**
 * ipu_session_destroy() - detach if still attached (without weights to
 * host), free everything. NULL is a no-op.
 */
void ipu_session_destroy(struct ipu_session *s);

/** ipu_session_exe() - the session's executable (owned by it). */
const struct ipu_exe *ipu_session_exe(const struct ipu_session *s);

/**
 * ipu_session_device_name() - the device type the session runs on
 * ("ipu_hw", "ipu_model" or "cpu"; what "auto" resolved to). Never NULL.
 */
const char *ipu_session_device_name(const struct ipu_session *s);

/** ipu_session_num_ipus() - IPUs the program needs (S03). */
uint32_t ipu_session_num_ipus(const struct ipu_session *s);

/* ---------------------------------------------------------------------- */
/* Attach and detach: the context manager (S06-S08)                        */
/* ---------------------------------------------------------------------- */

/**
 * ipu_session_attach() - enter the session's context (S06).
 *
 * Nests: the outermost attach acquires the IPUs (retrying until the attach
 * timeout while they are busy) and, on that detached -> attached transition,
 * runs weights_from_host; inner ones only count. A failure undoes the enter.
 *
 * Replica r runs on IPU r * ipus_per_replica of an aligned set of
 * num_ipus IPUs; the set's other IPUs are held but hold nothing (the model
 * runs all virtual graphs of a replica in one arena).
 *
 * A program split across instances on "ipu_hw": while attached, a thread
 * of the process serves ipu-simd the gathers of its all-reduces, over the
 * process's instances (docs/instances.md, "On ipu_hw").
 *
 * Return: 0; once the attach timeout has passed, -EBUSY (IPUs held by
 * others) or -ENODEV (too few IPUs present), with "could not attach to
 * device N ..., see ipu-info for device usage"; errors of putting the
 * program on the IPUs (-ENOSPC, -ENOMEM) and of weights_from_host; for a
 * split program on "ipu_hw", errors of setting up the gather's socket and
 * thread (-EADDRINUSE: another process took the process's name).
 */
int ipu_session_attach(struct ipu_session *s);

/* Flags of ipu_session_detach(). */
#define IPU_DETACH_ERROR (1u << 0) /* an error is in flight: no weights_to_host */

/**
 * ipu_session_detach() - exit the session's context (S07).
 * @flags: IPU_DETACH_ERROR when leaving because of an error.
 *
 * Only the exit matching the attach that acquired the IPUs releases them;
 * before it does, weights_to_host runs unless @flags has IPU_DETACH_ERROR or
 * weights_to_host_on_exit is off (S05). When that weights_to_host fails,
 * the session stays attached (as PopXL's does) and its error is returned:
 * releasing the IPUs would lose the weights only the device holds. Call
 * again, or leave with IPU_DETACH_ERROR to give them up.
 *
 * Return: 0; -EINVAL for unknown flags or an exit with no matching enter;
 * errors of weights_to_host (still attached then).
 */
int ipu_session_detach(struct ipu_session *s, unsigned int flags);

/** ipu_session_is_attached() - whether the IPUs are held (S08). */
bool ipu_session_is_attached(const struct ipu_session *s);

/* ---------------------------------------------------------------------- */
/* Running (S09-S16, S26)                                                  */
/* ---------------------------------------------------------------------- */

/* Flags of ipu_session_run_with_outputs() and ipu_session_run(). */
#define IPU_RUN_NO_DOWNCAST (1u << 0) /* reject float64/int64 inputs (S12) */

/**
 * ipu_session_run_with_outputs() - one run (S09): every host-to-device
 * stream's buffer to the device, the program launched once (it loops over
 * num_host_transfers itself), every device-to-host stream's buffer filled
 * in place.
 * @inputs, @n_inputs: one entry per host-to-device stream, exactly (S10).
 * @outputs, @n_outputs: one entry per device-to-host stream, exactly; the
 *	buffers must have the stream's dtype.
 * @flags: IPU_RUN_*.
 *
 * Every buffer is checked before anything moves (S10, S11, S12); float64
 * and int64 inputs are downcast to float32 and int32 unless
 * IPU_RUN_NO_DOWNCAST; FP8 streams take uint8 buffers (their codes) or
 * FP8 ones. Afterwards the host copies of variables are out of sync (S13),
 * also after a device error: the launch may have run part of the program
 * (S25). One run is one batch
 * of submissions (S26) while it fits a queue (IPU_QUEUE_MAX_ENTRIES
 * commands: a transfer per stream per replica per iteration, without
 * replication one per stream, and a launch per replica); a bigger one goes
 * as inputs, launches and outputs in turn.
 *
 * Return: 0; -EPERM when not attached ("attach first"); -EINVAL with a
 * message listing unexpected and missing streams (S10), or naming the
 * stream, the expected and the given shape (S11) or dtype; errors of the
 * device (the run then leaves the session attached and usable);
 * -ECANCELED after ipu_session_cancel() (also attached and usable).
 */
int ipu_session_run_with_outputs(struct ipu_session *s,
				 const struct ipu_stream_buffer *inputs,
				 size_t n_inputs,
				 const struct ipu_stream_buffer *outputs,
				 size_t n_outputs, unsigned int flags);

/**
 * ipu_session_run() - as ipu_session_run_with_outputs(), allocating the
 * outputs (S14) with ipu_session_create_host_outputs().
 * @outputsp, @n_outputsp: out: the outputs; free with
 *	ipu_session_free_buffers(). Untouched on failure.
 */
int ipu_session_run(struct ipu_session *s,
		    const struct ipu_stream_buffer *inputs, size_t n_inputs,
		    struct ipu_stream_buffer **outputsp, size_t *n_outputsp,
		    unsigned int flags);

/**
 * ipu_session_cancel() - end the wait of the call in progress on @s (Ctrl-C).
 *
 * Async-signal-safe and thread-safe: it only sets a flag (a lock-free
 * atomic), so a signal handler or another thread may call it while a
 * thread is inside a call on @s; @s must stay alive meanwhile. The call
 * waiting for the device (a run, weights to or from the host, the fetch
 * of get or write, detach's weights_to_host, attach's upload or its wait
 * for busy IPUs; not the exchange of a split program's instances, bounded
 * by IPU_INSTANCE_TIMEOUT_MS) sees it within 100 ms and fails with
 * -ECANCELED:
 *  - Commands it already gave the device are ended the way a timeout
 *    ends them (wait_timeout_ms in struct ipu_session_opts): the session
 *    resets its IPUs, which stops a launch in progress, and waits for
 *    the commands the reset ends before it returns, so nothing writes
 *    the caller's buffers afterwards. It does not wait for a launch to
 *    finish: a launch may run for minutes, or never end.
 *  - The session stays attached and usable. After a cancelled run or
 *    transfer, outputs are partly written or not at all, and the host
 *    copies of variables count as out of sync (the device's values are
 *    whatever the reset left; a fetch, get or detach reads them).
 *  - A cancel is for the call in progress only (docs/session.md S27):
 *    one made while no call is in progress cancels nothing, neither the
 *    next run nor a detach. A call that ends before it sees the cancel
 *    returns its own result, and the cancel is dropped when the next
 *    call begins. One cancel ends one call.
 *
 * Return: nothing; NULL @s is a no-op.
 */
void ipu_session_cancel(struct ipu_session *s);

/**
 * ipu_session_cancel_clear() - withdraw a cancel no call has seen yet.
 * Async-signal-safe and thread-safe, as ipu_session_cancel().
 *
 * Return: whether one of the latest call (in progress or just ended) was
 * pending (false for NULL @s).
 */
bool ipu_session_cancel_clear(struct ipu_session *s);

/**
 * ipu_session_create_host_outputs() - one zeroed buffer per device-to-host
 * stream, of its dtype, shaped as S11 says (S15). Works detached.
 * @outputsp, @np: out; free with ipu_session_free_buffers(). The buffers'
 *	stream names are the session's: valid while it lives.
 */
int ipu_session_create_host_outputs(struct ipu_session *s,
				    struct ipu_stream_buffer **outputsp,
				    size_t *np);

/**
 * ipu_session_free_buffers() - free an array from
 * ipu_session_create_host_outputs() or ipu_session_run(), with the data of
 * its buffers. NULL is a no-op.
 */
void ipu_session_free_buffers(struct ipu_stream_buffer *bufs, size_t n);

/**
 * ipu_session_expected_inputs() - the host-to-device streams (S16).
 * @np: out: how many.
 *
 * Return: an array owned by the session, in the program's stream order.
 */
const struct ipu_stream_desc *
ipu_session_expected_inputs(const struct ipu_session *s, size_t *np);

/** ipu_session_expected_outputs() - the device-to-host streams. */
const struct ipu_stream_desc *
ipu_session_expected_outputs(const struct ipu_session *s, size_t *np);

/**
 * ipu_session_check_shape() - whether a host buffer of shape (@ndim,
 * @shape) fits stream @stream (S11), checked as a run checks it: the full
 * shape is (num_host_transfers, replicas) + the stream's shape, each
 * leading dim only when > 1; dim 0 may be larger than num_host_transfers;
 * a buffer whose data dims are all 1 fits a one-element stream. For tools
 * that read arrays (ipu-run) and want to refuse one before anything runs,
 * in the words a run would use. Works detached; changes nothing but the
 * message.
 * @stream: the name of an input or output stream.
 *
 * Return: 0; -EINVAL with a message (ipu_session_errmsg()) naming the
 * stream, the full shape it takes and the given one, or saying that the
 * program has no such stream.
 */
int ipu_session_check_shape(struct ipu_session *s, const char *stream,
			    uint32_t ndim, const uint64_t *shape);

/* ---------------------------------------------------------------------- */
/* Weights (S17-S22)                                                       */
/* ---------------------------------------------------------------------- */

/** ipu_session_weights_from_host() - host copies to the device (S17). */
int ipu_session_weights_from_host(struct ipu_session *s);

/**
 * ipu_session_weights_to_host() - device values to the host copies, then
 * flush writable memory-mapped variables to their files (S18).
 *
 * The device's values are staged and become the host copies only once
 * every transfer succeeded; the copies count as in sync only once the
 * files are flushed too (after a failed flush, the next call fetches and
 * flushes again).
 *
 * A program split across instances (docs/instances.md) reads what other
 * instances hold through the process's instances' allgather: the call is
 * then collective (every instance makes it, in the same order), and every
 * instance gets the values one process holding every replica would.
 *
 * Return: 0; -EPERM when not attached; -EROFS when the program has a
 * read-only memory-mapped variable (S05); device errors; errors of msync();
 * for a split program, what the gather returned (e.g. -ETIMEDOUT for a
 * dead instance), the error of an instance whose read failed, -EPROTO for
 * a malformed part from a peer.
 */
int ipu_session_weights_to_host(struct ipu_session *s);

/**
 * struct ipu_tensor_desc - a variable or constant as the host sees it.
 * @name: its name (owned by the session).
 * @is_variable: a variable (else a constant).
 * @dtype: element type.
 * @ndim, @shape: the host shape for the tensor's retrieval mode (S20):
 *	(num_groups,) + shape when grouped (num_groups > 1); for
 *	all_replicas with group_size > 1, (replication_factor,) + shape, one
 *	value per replica in replica order; else shape.
 */
struct ipu_tensor_desc {
	const char *name;
	bool is_variable;
	uint32_t dtype;
	uint32_t ndim;
	uint64_t shape[IPU_HOST_MAX_DIMS];
};

/**
 * ipu_session_tensor_desc() - describe the variable or constant @name.
 *
 * Return: 0; -ENOENT for no tensor of that name; -ENOTSUP (a type error,
 * S19) for a tensor that is neither a variable nor a constant.
 */
int ipu_session_tensor_desc(const struct ipu_session *s, const char *name,
			    struct ipu_tensor_desc *desc);

/**
 * ipu_session_get_tensor_data() - the host value of a variable or constant
 * (S19), fetching from the device first only if a variable is asked for,
 * the session is attached and the host copies are out of sync.
 * @dst: in: data (room for the host shape), dtype and shape as
 *	ipu_session_tensor_desc() gives (uint8 also for FP8 tensors: their
 *	codes); the value is copied there.
 *
 * The fetch is weights_to_host, so, as in PopXL, it fails with -EROFS
 * when the program holds a read-only memory-mapped variable (S05).
 *
 * Return: 0; -ENOENT; -ENOTSUP for other tensors (type error); -EINVAL when
 * @dst's dtype or shape differ (the message says which); -EROFS; device
 * errors.
 */
int ipu_session_get_tensor_data(struct ipu_session *s, const char *name,
				struct ipu_host_buffer *dst);

/**
 * ipu_session_get_tensors_data() - as above for @n tensors, fetching at
 * most once.
 */
int ipu_session_get_tensors_data(struct ipu_session *s,
				 const char *const *names,
				 struct ipu_host_buffer *dsts, size_t n);

/**
 * ipu_session_write_variable_data() - set the host value of variable @name
 * (S21), then, if attached, weights_from_host.
 * @src: the value: the exact dtype (uint8 codes also for FP8 variables)
 *	and host shape; or a scalar (ndim 0), cast and broadcast, except for
 *	FP8 variables.
 *
 * Attached with the host copies out of sync, the device's values are
 * fetched first, so that the weights_from_host that follows does not roll
 * the other variables back to before the last run. The new value becomes
 * the host copy (and a mapped variable's file) only once the device has
 * it: if the device fails, the old values stay and are put back on the
 * device, and the session is as in sync as before (out of sync if putting
 * them back failed too; S25).
 *
 * Return: 0; -ENOENT; -ENOTSUP for a non-variable (type error); -EINVAL for
 * a dtype or shape mismatch (the message says which) or all_replicas with
 * group_size > 1 (not supported); -EROFS for a read-only memory-mapped
 * variable; device errors.
 */
int ipu_session_write_variable_data(struct ipu_session *s, const char *name,
				    const struct ipu_host_buffer *src);

/**
 * ipu_session_write_variables_data() - as above for @n variables, all
 * checked before any is written, one weights_from_host for the batch.
 */
int ipu_session_write_variables_data(struct ipu_session *s,
				     const char *const *names,
				     const struct ipu_host_buffer *srcs,
				     size_t n);

#ifdef __cplusplus
}
#endif

#endif /* IPU_SESSION_H */
