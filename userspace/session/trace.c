// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * trace.c - a session's timeline (docs/trace.md): what the host and the
 * IPUs spent their time on, written as Chrome trace-event JSON,
 * the format Perfetto's UI and chrome://tracing open.
 *
 * Tracks: process 1 is the host (the calling thread's spans: a run, its
 * input checks and downcast copies, each submission and each wait);
 * process 2 + i is the session's IPU i, with a thread per replica that
 * runs on it, where each batch of commands is a span holding its
 * transfers (one per stream slot, with bytes and MB/s) and launches. A
 * counter per IPU says how much device memory the session holds on it.
 *
 * Times are the host's view, CLOCK_MONOTONIC: a command ends when its
 * completion is reaped (a traced batch reaps them one at a time as they
 * come) and starts when the command before it on its replica ended, or at
 * submission. Commands of a replica run in order (the model's engine, the
 * kernel's chains), so the spans of a track never overlap.
 *
 * Off, a trace costs one branch per batch (s->trace is NULL). On, events
 * go to memory, at most SESS_TRACE_MAX_EVENTS of them (then only counted,
 * and the count is written as the "dropped events" counter), and to the
 * file, whole, when the session is detached (the outermost exit) and when
 * it is destroyed: a Python `with session:` leaves a complete file behind.
 *
 * The file: only ever a path the user gave (the option or IPU_TRACE),
 * never one a program names; "%p" in it is the process's id (so every
 * process of a script under one IPU_TRACE keeps its own timeline). It is created anew (O_EXCL, not following a
 * symbolic link), or an existing regular file is truncated; a symbolic
 * link, a directory, a FIFO or a device is refused when the session is
 * created, with a message naming the path. It is opened last at create,
 * so a create that fails leaves it as it was; a file an earlier session
 * of this process traced to is not replaced: the later session writes
 * "NAME-2.json" (then -3, ... up to -1000: past it the create fails
 * rather than overwrite one) instead, and says so.
 *
 * Launches of a traced run ask for op profiles (IPU_LAUNCH_F_PROFILE)
 * where every IPU records them (IPU_DEVICE_CAP_PROFILE: the model, the
 * kernel's simulated IPUs, PCI IPUs of spec 2.1); each op of a launch is then a span inside it
 * (cat "op").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../tools/json_str.h"
#include "session_internal.h"

/* Process ids of the tracks. */
#define PID_HOST 1
#define PID_IPU0 2

enum tev_kind {
	TEV_SPAN,	/* "X" */
	TEV_COUNTER,	/* "C" */
	TEV_OP,		/* "X" of an op inside a launch */
};

/*
 * struct tev - one event. Names are string literals or names the
 * executable owns (streams, variables), which live as long as the session.
 */
struct tev {
	uint8_t kind;
	uint8_t dir;		/* IPU_XFER_DIR_* for a transfer, else 0 */
	uint32_t pid, tid;
	int64_t ts, dur;	/* ns since the trace's start */
	const char *name;
	const char *what;	/* the batch or operation, or NULL */
	uint64_t bytes;		/* transfers: bytes; counters: the value;
				 * ops: the instruction's index */
	int32_t result;
	uint32_t replica;
	uint64_t group;		/* launches: the run's group id */
};

struct sess_trace {
	FILE *f;
	char *path;
	struct tev *ev;
	size_t n, cap, max;
	uint64_t dropped;
	uint64_t written;	/* events and drops when last written */
	int64_t *ends;		/* per command of a batch: when it was reaped */
	int32_t *results;	/* and its result */
	size_t *op_first;	/* and its op records in @ops (launches) */
	size_t *op_n;
	size_t n_ends;
	struct ipu_op_record *ops;	/* the batch's op records */
	size_t n_ops, cap_ops;
	char (*ipu_names)[64];	/* per IPU: libipu's name, while known */
};

/*
 * Timestamps are CLOCK_MONOTONIC itself, not time since the session began:
 * it is the clock tracefs calls "mono", so that `ipu-trace record` lays the
 * kernel's events and every session of a process on one time line as they
 * come (viewers and ipu-trace start their axis at the first event).
 */
int64_t ipu_sess_trace_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Open @path as the tracing rules above say; a stream or NULL (errno). */
static FILE *open_trace_file(const char *path)
{
	const int fl = O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
	struct stat st;
	FILE *f;
	int fd;

	fd = open(path, fl | O_CREAT | O_EXCL, 0644);
	if (fd < 0 && errno == EEXIST) {
		/* O_NONBLOCK: a FIFO must not hang the open; refused below. */
		fd = open(path, fl | O_NONBLOCK);
		/* A FIFO nobody reads, a device with nothing behind it. */
		if (fd < 0 && errno == ENXIO)
			errno = EINVAL;
		if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
			close(fd);
			errno = EINVAL;
			return NULL;
		}
		/*
		 * Someone else's file, or one with another name (a hard link
		 * another user planted in a shared /tmp): not ours to empty.
		 */
		if (fd >= 0 && (st.st_uid != geteuid() || st.st_nlink != 1)) {
			close(fd);
			errno = EPERM;
			return NULL;
		}
		if (fd >= 0 && (fcntl(fd, F_SETFL, 0) || ftruncate(fd, 0))) {
			close(fd);
			return NULL;
		}
	}
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

/*
 * The files this process's sessions have traced to, by inode and by name
 * (its directory resolved, so "t.json", "./t.json" and "/cwd/t.json" are
 * one name): a later session given the same file (two sessions of a
 * program, both under one IPU_TRACE) must not replace an earlier one's
 * timeline. Both must match: an inode alone is reused once its file is
 * removed. Kept for the process's life; a few entries.
 */
static struct {
	pthread_mutex_t lock;
	struct { dev_t dev; ino_t ino; char *path; } *files;
	size_t n;
} traced = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * @path with its directory resolved (realpath) and its last part as
 * given (a symbolic link there is refused when opened, not followed);
 * @path itself when the directory cannot be resolved. Free it.
 */
static char *canonical(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *real, *out = NULL;

	if (slash == path)
		return strdup(path);
	dir = slash ? strndup(path, slash - path) : strdup(".");
	real = dir ? realpath(dir, NULL) : NULL;
	if (!real || asprintf(&out, "%s/%s", strcmp(real, "/") ? real : "",
			      slash ? slash + 1 : path) < 0)
		out = strdup(path);
	free(real);
	free(dir);
	return out;
}

static bool traced_locked(const char *path)
{
	struct stat st;
	char *canon;
	bool found = false;
	size_t i;

	if (lstat(path, &st))
		return false;
	canon = canonical(path);
	for (i = 0; canon && i < traced.n && !found; i++)
		found = traced.files[i].dev == st.st_dev &&
			traced.files[i].ino == st.st_ino &&
			!strcmp(traced.files[i].path, canon);
	free(canon);
	return found;
}

static void remember_locked(FILE *f, const char *path)
{
	struct stat st;
	char *name;
	void *p;

	if (fstat(fileno(f), &st))
		return;
	name = canonical(path);
	p = name ? realloc(traced.files, (traced.n + 1) * sizeof(*traced.files)) :
		   NULL;
	if (!p) {
		free(name);
		return;
	}
	traced.files = p;
	traced.files[traced.n].dev = st.st_dev;
	traced.files[traced.n].ino = st.st_ino;
	traced.files[traced.n].path = name;
	traced.n++;
}

/*
 * @path with "%p" replaced by this process's id and "%%" by "%" (as the
 * kernel's core_pattern and LLVM_PROFILE_FILE do), so that each process
 * under one IPU_TRACE (a script's, `ipu-trace record`'s) writes its own
 * file; another '%' is kept. NULL without memory.
 */
static char *expand_name(const char *path)
{
	char pid[24], *out, *o;
	size_t len = strlen(path) + 1;
	const char *p;

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	for (p = path; (p = strstr(p, "%p")); p += 2)
		len += strlen(pid);
	out = malloc(len);
	if (!out)
		return NULL;
	for (o = out, p = path; *p; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o = stpcpy(o, pid);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			*o++ = '%';
			p++;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

/* "dir/run-N.json" for "dir/run.json": the extension kept, if any. */
static char *nth_name(const char *path, unsigned int n)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	char *out;
	int len;

	if (!dot || dot == (slash ? slash + 1 : path))
		dot = path + strlen(path);
	len = asprintf(&out, "%.*s-%u%s", (int)(dot - path), path, n, dot);
	return len < 0 ? NULL : out;
}

/*
 * Open @t's file, or, when an earlier session of this process traced to
 * it, the first "-N" name that none did; @t->path becomes the name used.
 */
static FILE *open_unused(struct sess_trace *t)
{
	char *name = t->path;
	unsigned int n = 1;
	FILE *f;

	pthread_mutex_lock(&traced.lock);
	while (traced_locked(name)) {
		if (name != t->path)
			free(name);
		/* Every name taken: none is overwritten (EEXIST). */
		name = n < SESS_TRACE_MAX_NAMES ? nth_name(t->path, ++n) : NULL;
		if (!name) {
			pthread_mutex_unlock(&traced.lock);
			errno = n < SESS_TRACE_MAX_NAMES ? ENOMEM : EEXIST;
			return NULL;
		}
	}
	if (name != t->path) {
		ipu_sess_log("trace file '%s' holds the timeline of another session of this process: this one goes to '%s'",
			     t->path, name);
		free(t->path);
		t->path = name;
	}
	f = open_trace_file(t->path);
	if (f)
		remember_locked(f, t->path);
	pthread_mutex_unlock(&traced.lock);
	return f;
}

int ipu_sess_trace_open(struct ipu_session *s, const char *path)
{
	struct sess_trace *t;
	int err;

	/* Not from the environment of a program running with privileges. */
	if (!path)
		path = secure_getenv("IPU_TRACE");
	if (!path)
		return 0;
	if (!path[0])
		return ipu_sess_err(s, -EINVAL,
				    "trace: the file name is empty (IPU_TRACE or the trace option)");
	t = calloc(1, sizeof(*t));
	if (t) {
		t->path = expand_name(path);
		t->ipu_names = calloc(s->num_ipus, sizeof(*t->ipu_names));
	}
	if (!t || !t->path || !t->ipu_names) {
		s->trace = t;
		return ipu_sess_err(s, -ENOMEM, "trace: no memory");
	}
	s->trace = t;
	t->max = SESS_TRACE_MAX_EVENTS;
	t->written = UINT64_MAX;	/* not yet: even an empty trace is */
	t->f = open_unused(t);
	path = t->path;
	if (!t->f) {
		err = -errno;
		if (err == -EPERM)
			return ipu_sess_err(s, err,
					    "trace file '%s': another user's file, or one with other names (hard links): not overwritten",
					    path);
		if (err == -EEXIST)
			return ipu_sess_err(s, err,
					    "trace file '%s': it and its numbered names up to -%u hold the timelines of earlier sessions of this process: give another name",
					    path, SESS_TRACE_MAX_NAMES);
		if (err == -EINVAL)
			return ipu_sess_err(s, err,
					    "trace file '%s': not a regular file; give a new file's name or a regular file to overwrite",
					    path);
		return ipu_sess_err(s, err, "trace file '%s': %s%s", path,
				    strerror(-err),
				    err == -ELOOP ?
					    " (a symbolic link: the trace does not follow one)" :
					    "");
	}
	return 0;
}

void ipu_sess_trace_set_max(struct ipu_session *s, size_t max)
{
	if (s->trace)
		s->trace->max = max;
}

static struct tev *add(struct sess_trace *t)
{
	struct tev *ev;
	size_t cap;

	if (t->n >= t->max) {
		t->dropped++;
		return NULL;
	}
	if (t->n == t->cap) {
		cap = t->cap ? t->cap * 2 : 1024;
		if (cap > t->max)
			cap = t->max;
		ev = realloc(t->ev, cap * sizeof(*ev));
		if (!ev) {
			t->dropped++;
			return NULL;
		}
		t->ev = ev;
		t->cap = cap;
	}
	ev = &t->ev[t->n++];
	memset(ev, 0, sizeof(*ev));
	return ev;
}

static struct tev *span(struct sess_trace *t, uint32_t pid, uint32_t tid,
			const char *name, int64_t start, int64_t end)
{
	struct tev *ev = add(t);

	if (!ev)
		return NULL;
	ev->kind = TEV_SPAN;
	ev->pid = pid;
	ev->tid = tid;
	ev->name = name;
	ev->ts = start;
	ev->dur = end > start ? end - start : 0;
	return ev;
}

void ipu_sess_trace_host(struct ipu_session *s, const char *name,
			 int64_t start)
{
	if (s->trace)
		span(s->trace, PID_HOST, 1, name, start, ipu_sess_trace_now());
}

void ipu_sess_trace_memory(struct ipu_session *s)
{
	struct sess_trace *t = s->trace;
	int64_t now = ipu_sess_trace_now();
	struct tev *ev;
	uint64_t bytes;
	uint32_t i, r;

	if (!t)
		return;
	for (i = 0; i < s->num_ipus; i++) {
		bytes = 0;
		if (s->devs && s->devs[i] && !t->ipu_names[i][0])
			snprintf(t->ipu_names[i], sizeof(t->ipu_names[i]),
				 "%s", ipu_device_name(s->devs[i]));
		for (r = 0; s->reps && r < s->replicas; r++)
			if (s->reps[r].dev == s->devs[i])
				bytes += ipu_bo_size(s->reps[r].exe_bo) +
					 ipu_bo_size(s->reps[r].arena_bo) +
					 ipu_bo_size(s->reps[r].staging_bo);
		ev = add(t);
		if (!ev)
			return;
		ev->kind = TEV_COUNTER;
		ev->pid = PID_IPU0 + i;
		ev->name = "device memory";
		ev->ts = now;
		ev->bytes = bytes;
	}
}

int64_t *ipu_sess_trace_batch_begin(struct ipu_session *s, size_t n)
{
	struct sess_trace *t = s->trace;
	int64_t *ends;
	size_t i;

	int32_t *results;
	size_t *first, *nops;

	if (n > t->n_ends) {
		ends = realloc(t->ends, n * sizeof(*ends));
		if (ends)
			t->ends = ends;
		results = realloc(t->results, n * sizeof(*results));
		if (results)
			t->results = results;
		first = realloc(t->op_first, n * sizeof(*first));
		if (first)
			t->op_first = first;
		nops = realloc(t->op_n, n * sizeof(*nops));
		if (nops)
			t->op_n = nops;
		if (!ends || !results || !first || !nops)
			return NULL;
		t->n_ends = n;
	}
	for (i = 0; i < n; i++) {
		t->ends[i] = 0;
		t->results[i] = 0;
		t->op_n[i] = 0;
		s->cmds[i].user_data = i;
	}
	t->n_ops = 0;
	return t->ends;
}

/* The replica a command works for, or UINT32_MAX. */
static uint32_t cmd_replica(const struct ipu_session *s,
			    const struct ipu_cmd *c)
{
	uint32_t r;

	if (c->op == IPU_CMD_LAUNCH)
		return c->launch.replica;
	for (r = 0; r < s->replicas; r++)
		if (c->xfer.bo == s->reps[r].arena_bo ||
		    c->xfer.bo == s->reps[r].exe_bo ||
		    c->xfer.bo == s->reps[r].staging_bo)
			return r;
	return UINT32_MAX;
}

/* What a transfer moves: a stream's slots, a variable, the executable. */
static const char *xfer_name(const struct ipu_session *s,
			     const struct ipu_cmd *c, uint32_t r)
{
	const struct ipu_exe *exe = s->exe;
	uint64_t off = c->xfer.bo_offset, end;
	uint32_t want, i;

	if (c->xfer.bo == s->reps[r].exe_bo)
		return "executable";
	if (c->xfer.bo == s->reps[r].staging_bo)
		return "staging";
	want = c->xfer.dir == IPU_XFER_DIR_TO_DEVICE ? IPU_EXE_STREAM_H2D :
						       IPU_EXE_STREAM_D2H;
	for (i = 0; i < exe->num_streams; i++) {
		end = exe->streams[i].slots_offset +
		      exe->streams[i].nbytes * (s->transfers ? s->transfers : 1);
		if (exe->streams[i].direction == want &&
		    off >= exe->streams[i].slots_offset && off < end)
			return exe->streams[i].name;
	}
	for (i = 0; i < exe->num_tensors; i++)
		if (off >= exe->tensors[i].offset &&
		    off < exe->tensors[i].offset + exe->tensors[i].nbytes)
			return exe->tensors[i].name;
	return "arena";
}

static uint32_t replica_pid(const struct ipu_session *s, uint32_t r)
{
	return PID_IPU0 + r * s->ipus_per_replica;
}

/*
 * Where the device says a launch began (its first op) and the host saw
 * commands before it on its replica end later (the host reaps after the
 * engine moved on, often several completions in one reap): each of them
 * ended by then, a launch running after the commands linked before it.
 * Ends every one of them there, not only the one just before (the chain
 * of spans below would start the launch at the latest of them, cutting
 * its ops to nothing), so the launch's span holds its ops at their length.
 */
static void ops_bound_ends(struct ipu_session *s, struct sess_trace *t,
			   size_t n, int64_t now)
{
	size_t i, j;
	int64_t first;
	uint32_t r;

	for (i = 0; i < n; i++) {
		if (s->cmds[i].op != IPU_CMD_LAUNCH || !t->op_n[i])
			continue;
		first = t->ops[t->op_first[i]].start_ns;
		r = cmd_replica(s, &s->cmds[i]);
		for (j = 0; j < i; j++)
			if (cmd_replica(s, &s->cmds[j]) == r &&
			    (!t->ends[j] || t->ends[j] > first))
				t->ends[j] = first < now ? first : now;
	}
}

/* The op spans of launch @i, lying in [@start, @end], its span. */
static void op_spans(struct ipu_session *s, struct sess_trace *t, size_t i,
		     uint32_t r, int64_t start, int64_t end)
{
	const struct ipu_op_record *o = t->ops + t->op_first[i];
	int64_t a, b;
	struct tev *ev;
	size_t k;

	for (k = 0; k < t->op_n[i]; k++, o++) {
		a = o->start_ns < start ? start : o->start_ns;
		b = o->end_ns > end ? end : o->end_ns;
		ev = span(t, replica_pid(s, r), r + 1, ipu_exe_op_name(o->op),
			  a, b);
		/* Past the cap: each op is counted as dropped (add()). */
		if (!ev)
			continue;
		ev->kind = TEV_OP;
		ev->what = "op";
		ev->replica = s->base + r;
		ev->bytes = o->index;
		ev->group = s->cmds[i].launch.group;
	}
}

void ipu_sess_trace_batch_end(struct ipu_session *s, const char *what,
			      size_t n, int64_t submitted)
{
	struct sess_trace *t = s->trace;
	int64_t now = ipu_sess_trace_now(), at, end;
	struct tev *ev;
	uint32_t r;
	size_t i;

	if (t->n_ops)
		ops_bound_ends(s, t, n, now);
	for (r = 0; r < s->replicas; r++) {
		/* The batch's span on the replica's track, to the last of
		 * its commands to end (commands no link orders complete in
		 * any order: a small transfer overtakes a large one), then
		 * its commands in order inside it, a launch's ops in it. */
		end = 0;
		for (i = 0; i < n; i++)
			if (cmd_replica(s, &s->cmds[i]) == r &&
			    (t->ends[i] ? t->ends[i] : now) > end)
				end = t->ends[i] ? t->ends[i] : now;
		if (!end)
			continue;
		span(t, replica_pid(s, r), r + 1, what, submitted, end);
		at = submitted;
		for (i = 0; i < n; i++) {
			const struct ipu_cmd *c = &s->cmds[i];

			if (cmd_replica(s, c) != r)
				continue;
			end = t->ends[i] ? t->ends[i] : now;
			if (end < at)
				end = at;
			ev = span(t, replica_pid(s, r), r + 1,
				  c->op == IPU_CMD_LAUNCH ? "launch" :
							    xfer_name(s, c, r),
				  at, end);
			if (ev) {
				ev->what = what;
				ev->replica = s->base + r;
				ev->result = t->results[i];
				if (c->op == IPU_CMD_LAUNCH) {
					ev->group = c->launch.group;
				} else {
					ev->dir = (uint8_t)c->xfer.dir;
					ev->bytes = c->xfer.length;
				}
			}
			if (c->op == IPU_CMD_LAUNCH && t->op_n[i])
				op_spans(s, t, i, r, at, end);
			at = end;
		}
	}
}

/*
 * The op records of launch @i, just reaped (libipu keeps them until the
 * next reap), into the batch's; none where the device records none.
 */
static void take_ops(struct ipu_session *s, struct sess_trace *t, size_t i)
{
	struct ipu_launch_profile p;
	struct ipu_op_record *ops;
	size_t cap;

	if (ipu_queue_profile(s->q, i, &p))
		return;
	t->dropped += p.dropped;
	if (p.n > t->cap_ops - t->n_ops) {
		cap = t->n_ops + p.n;
		if (cap < 2 * t->cap_ops)
			cap = 2 * t->cap_ops;
		ops = realloc(t->ops, cap * sizeof(*ops));
		if (!ops) {
			t->dropped += p.n;
			return;
		}
		t->ops = ops;
		t->cap_ops = cap;
	}
	memcpy(t->ops + t->n_ops, p.recs, p.n * sizeof(*p.recs));
	t->op_first[i] = t->n_ops;
	t->op_n[i] = p.n;
	t->n_ops += p.n;
}

void ipu_sess_trace_reaped(struct ipu_session *s,
			   const struct ipu_completion *c, size_t n)
{
	struct sess_trace *t = s->trace;
	int64_t now = ipu_sess_trace_now();
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i].user_data < t->n_ends) {
			t->ends[c[i].user_data] = now;
			t->results[c[i].user_data] = c[i].result;
			if (c[i].op == IPU_CMD_LAUNCH && s->op_profiles)
				take_ops(s, t, c[i].user_data);
		}
}

/*
 * @str as a JSON string's contents, valid UTF-8 whatever its bytes (a
 * program's or stream's name is the user's: json_str.h).
 */
static void put_str(FILE *f, const char *str)
{
	json_str_put(f, str, strlen(str));
}

/* Microseconds with the nanoseconds kept: "12.345". */
static void put_us(FILE *f, const char *key, int64_t ns)
{
	fprintf(f, "\"%s\":%" PRId64 ".%03" PRId64, key, ns / 1000,
		ns % 1000);
}

static void put_meta(FILE *f, bool *first, uint32_t pid, uint32_t tid,
		     const char *kind, const char *name, uint32_t num)
{
	fprintf(f, "%s\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"%s\",\"args\":{\"name\":\"",
		*first ? "" : ",", pid, tid, kind);
	put_str(f, name);
	fprintf(f, "\"}}");
	if (num != UINT32_MAX)
		fprintf(f, ",\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"%s_sort_index\",\"args\":{\"sort_index\":%u}}",
			pid, tid, kind, num);
	*first = false;
}

static void put_event(FILE *f, const struct tev *e)
{
	const char *cat;

	if (e->kind == TEV_COUNTER) {
		fprintf(f, ",\n{\"ph\":\"C\",\"pid\":%u,\"tid\":0,\"name\":\"%s\",",
			e->pid, e->name);
		put_us(f, "ts", e->ts);
		fprintf(f, ",\"args\":{\"bytes\":%" PRIu64 "}}", e->bytes);
		return;
	}
	if (e->pid == PID_HOST)
		cat = "host";
	else if (e->kind == TEV_OP)
		cat = "op";
	else if (!e->what)
		cat = "batch";
	else if (!e->dir)
		cat = "launch";
	else
		cat = e->dir == IPU_XFER_DIR_TO_DEVICE ? "h2d" : "d2h";
	fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"pid\":%u,\"tid\":%u,\"name\":\"",
		cat, e->pid, e->tid);
	put_str(f, e->name);
	fprintf(f, "\",");
	put_us(f, "ts", e->ts);
	fputc(',', f);
	put_us(f, "dur", e->dur);
	if (!e->what) {
		fputc('}', f);
		return;
	}
	if (e->kind == TEV_OP) {
		fprintf(f, ",\"args\":{\"index\":%" PRIu64 ",\"replica\":%u,\"group\":%" PRIu64 "}}",
			e->bytes, e->replica, e->group);
		return;
	}
	fprintf(f, ",\"args\":{\"batch\":\"%s\",\"replica\":%u,\"result\":%d",
		e->what, e->replica, e->result);
	if (e->dir) {
		fprintf(f, ",\"bytes\":%" PRIu64, e->bytes);
		/* bytes per µs is MB/s; none for a span too short to see. */
		if (e->dur > 0)
			fprintf(f, ",\"MB/s\":%.1f",
				(double)e->bytes * 1000.0 / (double)e->dur);
	} else {
		fprintf(f, ",\"group\":%" PRIu64, e->group);
	}
	fprintf(f, "}}");
}

/* The whole trace to @t->f; 0 or a negative errno. */
static int write_trace(const struct ipu_session *s, struct sess_trace *t)
{
	char name[96];
	bool first = true;
	uint32_t i, r;
	size_t k;

	fprintf(t->f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"CLOCK_MONOTONIC\",\"program\":\"");
	put_str(t->f, s->exe->name);
	fprintf(t->f, "\",\"device\":\"%s\",\"replicas\":%u,\"dropped_events\":%" PRIu64 "},\n\"traceEvents\":[",
		s->device_name ? s->device_name : "", s->replicas, t->dropped);
	put_meta(t->f, &first, PID_HOST, 1, "process_name", "host", 0);
	put_meta(t->f, &first, PID_HOST, 1, "thread_name", "session",
		 UINT32_MAX);
	for (i = 0; i < s->num_ipus; i++) {
		snprintf(name, sizeof(name), "IPU %u%s%s%s", i,
			 t->ipu_names[i][0] ? " (" : "", t->ipu_names[i],
			 t->ipu_names[i][0] ? ")" : "");
		put_meta(t->f, &first, PID_IPU0 + i, 0, "process_name", name,
			 i + 1);
	}
	for (r = 0; r < s->replicas; r++) {
		snprintf(name, sizeof(name), "replica %u", s->base + r);
		put_meta(t->f, &first, replica_pid(s, r), r + 1,
			 "thread_name", name, UINT32_MAX);
	}
	for (k = 0; k < t->n; k++)
		put_event(t->f, &t->ev[k]);
	if (t->dropped) {
		fprintf(t->f, ",\n{\"ph\":\"C\",\"pid\":%u,\"tid\":0,\"name\":\"dropped events\",",
			PID_HOST);
		put_us(t->f, "ts", t->n ? t->ev[t->n - 1].ts : 0);
		fprintf(t->f, ",\"args\":{\"count\":%" PRIu64 "}}", t->dropped);
	}
	fprintf(t->f, "\n]}\n");
	if (fflush(t->f) || ferror(t->f))
		return errno ? -errno : -EIO;
	return 0;
}

void ipu_sess_trace_write(struct ipu_session *s)
{
	struct sess_trace *t = s->trace;
	int err;

	if (!t || !t->f || t->written == t->n + t->dropped)
		return;
	/* The whole timeline so far, over what an earlier write left. */
	errno = 0;
	if (fseek(t->f, 0, SEEK_SET) || ftruncate(fileno(t->f), 0))
		err = -errno;
	else
		err = write_trace(s, t);
	t->written = t->n + t->dropped;
	if (err)
		ipu_sess_log("trace file '%s': writing it failed: %s", t->path,
			     strerror(-err));
	else if (t->dropped)
		ipu_sess_log("trace file '%s': %" PRIu64 " events dropped past the first %zu",
			     t->path, t->dropped, t->max);
}

void ipu_sess_trace_close(struct ipu_session *s)
{
	struct sess_trace *t = s->trace;

	if (!t)
		return;
	ipu_sess_trace_write(s);
	if (t->f && fclose(t->f))
		ipu_sess_log("trace file '%s': closing it failed: %s", t->path,
			     strerror(errno));
	free(t->ev);
	free(t->ends);
	free(t->results);
	free(t->op_first);
	free(t->op_n);
	free(t->ops);
	free(t->ipu_names);
	free(t->path);
	free(t);
	s->trace = NULL;
}
