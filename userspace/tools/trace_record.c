// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * trace_record.c - `ipu-trace record [-o FILE] [-e EVENTS] -- CMD`: ipu.ko's
 * trace events collected through tracefs while CMD runs, merged with the
 * timelines CMD's sessions write (IPU_TRACE) into one file on one clock
 * (docs/trace.md).
 *
 * tracefs's top-level knobs and buffer are everyone's: a recorder that
 * changed them would leave them changed when killed (-9), two recordings
 * at once would restore each other's settings, and clearing the buffer
 * would wipe another user's trace. So the recording has a private tracefs
 * instance, instances/ipu-trace-PID (made by mkdir, with its own buffer,
 * clock, tracing_on and event enables), removed when done, also after
 * SIGINT, SIGTERM or SIGHUP (forwarded to CMD while it runs). One left by
 * a recorder that was killed outright, its pid no longer running, is
 * removed at the next start; one of a live pid is left alone. The global
 * knobs are only read (which events exist).
 *
 * CMD's sessions write DIR/session-%p.json in a private directory
 * (libsession makes %p the pid), so every process of CMD keeps its own
 * timeline; all are merged. A signal during the merge stops it: the
 * private directory is removed and nothing is written.
 *
 * IPU_TRACEFS=DIR takes DIR for tracefs and skips the root check: a
 * testing hook (tests/tools/test_ipu_trace_record.sh fakes a tree).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ipu-trace.h"
#include "trace_kparse.h"

/* The per-CPU buffer it asks for, when the current one is smaller. */
#define RECORD_BUFFER_KB 8192
/* Sessions' files it merges at most (per process: NAME, NAME-2, ...). */
#define RECORD_MAX_SESSIONS 256
/* The instance's name, before the recorder's pid. */
#define RECORD_INSTANCE "ipu-trace-"
/* Session files of one run merge with their pids this far apart. */
#define RECORD_PID_STRIDE 1000

static const char *prog = "ipu-trace record";

struct knob_ev {
	char name[64];
};

struct record {
	char root[256];		/* tracefs */
	char inst[320];		/* our instance, under root; "" until made */
	bool mounted;		/* tracefs mounted by us: unmounted after */
	struct knob_ev *ev;
	size_t n_ev;
	bool *want;		/* per ev: enable it */
	char tmp[64];		/* the private directory */
};

static volatile sig_atomic_t child_pid;
/* The last signal received (0: none since it was last cleared). */
static volatile sig_atomic_t got_signal;

/*
 * Forward a signal someone sent us (kill, a service manager) to CMD. A
 * terminal's Ctrl-C (si_code SI_KERNEL) went to CMD already: the whole
 * foreground process group gets it.
 */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_signal = sig;
	if (child_pid > 0 && si && si->si_code != SI_KERNEL)
		kill(child_pid, sig);
}

static const int fwd_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void set_handlers(bool on)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	if (on) {
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO;
	} else {
		sa.sa_handler = SIG_DFL;
	}
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fwd_signals) / sizeof(fwd_signals[0]); i++)
		sigaction(fwd_signals[i], &sa, NULL);
}

static void block_signals(bool block, sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(fwd_signals) / sizeof(fwd_signals[0]); i++)
		sigaddset(&set, fwd_signals[i]);
	sigprocmask(block ? SIG_BLOCK : SIG_SETMASK, block ? &set : old,
		    block ? old : NULL);
}

static bool exists(const char *dir, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return !access(path, F_OK);
}

/* @rel under our instance once it is made (else tracefs's root), in @buf. */
static const char *path_of(const struct record *r, const char *rel,
			   char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", r->inst[0] ? r->inst : r->root, rel);
	return buf;
}

/* The first line of @rel, without its newline; 0 or -errno. */
static int read_knob(const struct record *r, const char *rel, char *out,
		     size_t size)
{
	char path[512];
	FILE *f = fopen(path_of(r, rel, path, sizeof(path)), "re");

	if (!f)
		return -errno;
	if (!fgets(out, size, f))
		out[0] = '\0';
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* Write @val to @rel (truncating: a fake tree's files are plain files). */
static int write_knob(const struct record *r, const char *rel, const char *val)
{
	char path[512];
	size_t len = strlen(val);
	int fd, err = 0;

	fd = open(path_of(r, rel, path, sizeof(path)),
		  O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (len && write(fd, val, len) != (ssize_t)len)
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static int knob_or_say(const struct record *r, const char *rel,
		       const char *val)
{
	int err = write_knob(r, rel, val);

	if (err)
		fprintf(stderr, "%s: writing '%s' to %s/%s: %s\n", prog, val,
			r->inst[0] ? r->inst : r->root, rel, strerror(-err));
	return err;
}

/* Remove our instance (its buffer goes with it), unmount what we mounted. */
static void release(struct record *r)
{
	if (r->inst[0] && rmdir(r->inst))
		fprintf(stderr, "%s: removing the tracefs instance %s: %s\n",
			prog, r->inst, strerror(errno));
	r->inst[0] = '\0';
	if (r->mounted && umount(r->root))
		fprintf(stderr, "%s: unmounting %s: %s\n", prog, r->root,
			strerror(errno));
	r->mounted = false;
}

/*
 * Remove instances/ipu-trace-PID of a recorder that was killed outright
 * (its pid runs no more); one of a running pid (another recording) or of
 * a pid in use by something else now is left alone, as is any other.
 */
static void remove_stale(const struct record *r)
{
	size_t plen = strlen(RECORD_INSTANCE);
	char path[600], *end;
	struct dirent *de;
	long pid;
	DIR *d;

	snprintf(path, sizeof(path), "%s/instances", r->root);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, RECORD_INSTANCE, plen))
			continue;
		errno = 0;
		pid = strtol(de->d_name + plen, &end, 10);
		if (errno || *end || end == de->d_name + plen || pid <= 0 ||
		    pid > INT32_MAX || pid == getpid() ||
		    !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/instances/%s", r->root,
			 de->d_name);
		if (rmdir(path))
			fprintf(stderr, "%s: %s, of a recording whose pid %ld runs no more: removing it: %s\n",
				prog, path, pid, strerror(errno));
		else
			fprintf(stderr, "%s: removed %s, left by a recording whose pid %ld runs no more\n",
				prog, path, pid);
	}
	if (d)
		closedir(d);
}

/* Our instance, instances/ipu-trace-PID; 0, or 2 with a message. */
static int make_instance(struct record *r)
{
	char path[320];
	int err;

	remove_stale(r);
	snprintf(path, sizeof(path), "%s/instances/%s%ld", r->root,
		 RECORD_INSTANCE, (long)getpid());
	err = mkdir(path, 0700) ? errno : 0;
	/* Ours by name but not made by us: a dead recorder had our pid. */
	if (err == EEXIST && !rmdir(path))
		err = mkdir(path, 0700) ? errno : 0;
	if (err) {
		fprintf(stderr, "%s: %s: making a tracefs instance: %s%s\n", prog,
			path, strerror(err), err == ENOENT ?
			" (a kernel without tracefs instances?)" : "");
		return 2;
	}
	if (!exists(path, "trace")) {
		fprintf(stderr, "%s: %s: the new directory has no 'trace' file: not a tracefs instance\n",
			prog, path);
		rmdir(path);
		return 2;
	}
	snprintf(r->inst, sizeof(r->inst), "%s", path);
	return 0;
}

/* Where tracefs is (mounting it if need be); 0, or 2 with a message. */
static int find_tracefs(struct record *r)
{
	static const char *const where[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	const char *env = secure_getenv("IPU_TRACEFS");
	size_t i;

	if (env && *env) {
		snprintf(r->root, sizeof(r->root), "%s", env);
		if (!exists(r->root, "trace")) {
			fprintf(stderr, "%s: no tracefs at %s (IPU_TRACEFS): it has no 'trace' file\n",
				prog, r->root);
			return 2;
		}
		return 0;
	}
	if (geteuid()) {
		fprintf(stderr, "%s: needs root: tracefs's knobs are root's (run it with sudo)\n",
			prog);
		return 2;
	}
	for (i = 0; i < 2; i++)
		if (exists(where[i], "trace")) {
			snprintf(r->root, sizeof(r->root), "%s", where[i]);
			return 0;
		}
	snprintf(r->root, sizeof(r->root), "%s", where[0]);
	if (mount("nodev", r->root, "tracefs", 0, NULL)) {
		fprintf(stderr, "%s: no tracefs: not at %s or %s, and mounting it at %s failed: %s (a kernel without CONFIG_TRACING?)\n",
			prog, where[0], where[1], r->root, strerror(errno));
		return 2;
	}
	r->mounted = true;
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	return strcmp(((const struct knob_ev *)a)->name,
		      ((const struct knob_ev *)b)->name);
}

/* The events tracefs has in events/ipu; which to turn on (-e). */
static int list_events(struct record *r, const char *only)
{
	char path[512], rel[160], val[16];
	struct dirent *de;
	size_t i, cap = 0;
	DIR *d;

	d = opendir(path_of(r, "events/ipu", path, sizeof(path)));
	if (!d) {
		fprintf(stderr, "%s: %s: %s: ipu.ko is not loaded, or was built without trace events\n",
			prog, path, strerror(errno));
		return 2;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= 64)
			continue;
		snprintf(rel, sizeof(rel), "events/ipu/%s/enable", de->d_name);
		if (read_knob(r, rel, val, sizeof(val)))
			continue;	/* "enable" itself, "filter" */
		if (r->n_ev == cap) {
			struct knob_ev *n;

			cap = cap ? cap * 2 : 32;
			n = realloc(r->ev, cap * sizeof(*n));
			if (!n) {
				closedir(d);
				fprintf(stderr, "%s: out of memory\n", prog);
				return 2;
			}
			r->ev = n;
		}
		snprintf(r->ev[r->n_ev++].name, 64, "%s", de->d_name);
	}
	closedir(d);
	if (!r->n_ev) {
		fprintf(stderr, "%s: %s/events/ipu has no events: ipu.ko was built without trace events\n",
			prog, r->root);
		return 2;
	}
	qsort(r->ev, r->n_ev, sizeof(*r->ev), cmp_ev);
	r->want = calloc(r->n_ev, sizeof(*r->want));
	if (!r->want) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 2;
	}
	for (i = 0; i < r->n_ev; i++)
		r->want[i] = !only;
	while (only && *only) {
		size_t n = strcspn(only, ","), j;
		bool found = false;

		for (j = 0; j < r->n_ev; j++)
			if (strlen(r->ev[j].name) == n &&
			    !strncmp(r->ev[j].name, only, n))
				found = r->want[j] = true;
		if (!found && n) {
			fprintf(stderr, "%s: -e: no event '%.*s' in %s/events/ipu\n",
				prog, (int)n, only, r->root);
			return 2;
		}
		only += n + (only[n] == ',');
	}
	return 0;
}

/*
 * Set our instance up: stopped, the clock "mono" (the session's
 * CLOCK_MONOTONIC), a buffer of RECORD_BUFFER_KB per CPU at least,
 * emptied, the events wanted on, started. 0 or 2 with a message.
 */
static int set_knobs(struct record *r)
{
	char line[512], rel[160], num[32];
	long now;
	size_t i;

	if (read_knob(r, "trace_clock", line, sizeof(line))) {
		fprintf(stderr, "%s: %s/trace_clock: %s\n", prog, r->inst,
			strerror(errno));
		return 2;
	}
	if (!strstr(line, "mono")) {
		fprintf(stderr, "%s: %s/trace_clock offers no 'mono' (it says '%s'): the session's CLOCK_MONOTONIC cannot be matched\n",
			prog, r->inst, line);
		return 2;
	}
	if (knob_or_say(r, "tracing_on", "0") ||
	    knob_or_say(r, "trace_clock", "mono"))
		return 2;
	if (!read_knob(r, "buffer_size_kb", line, sizeof(line))) {
		char *exp = strstr(line, "expanded:");

		now = strtol(exp ? exp + 9 : line, NULL, 10);
		snprintf(num, sizeof(num), "%d", RECORD_BUFFER_KB);
		/* Smaller: a bigger one asked for, kept as it is if refused. */
		if (now > 0 && now < RECORD_BUFFER_KB)
			write_knob(r, "buffer_size_kb", num);
	}
	if (knob_or_say(r, "trace", ""))
		return 2;
	for (i = 0; i < r->n_ev; i++) {
		snprintf(rel, sizeof(rel), "events/ipu/%s/enable", r->ev[i].name);
		if (knob_or_say(r, rel, r->want[i] ? "1" : "0"))
			return 2;
	}
	return knob_or_say(r, "tracing_on", "1") ? 2 : 0;
}

/*
 * Copy `trace` to @dst, at most TRACE_MAX_BYTES (the rest is said to be
 * lost); 0 or -errno.
 */
static int copy_trace(const struct record *r, const char *dst)
{
	char path[512], buf[65536];
	unsigned long long total = 0;
	FILE *in, *out;
	size_t n;
	int err = 0;

	in = fopen(path_of(r, "trace", path, sizeof(path)), "re");
	if (!in)
		return -errno;
	out = fopen(dst, "wxe");
	if (!out) {
		err = -errno;
		fclose(in);
		return err;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (total + n > TRACE_MAX_BYTES) {
			fprintf(stderr, "%s: %s holds more than %llu bytes: kept the first %llu\n",
				prog, path, TRACE_MAX_BYTES, total);
			break;
		}
		if (fwrite(buf, 1, n, out) != n) {
			err = -errno;
			break;
		}
		total += n;
	}
	if (ferror(in) && !err)
		err = -EIO;
	fclose(in);
	if (fclose(out) && !err)
		err = -errno;
	return err;
}

/*
 * The process and libsession's number of a session file:
 * "session-PID.json" (PID, 1), "session-PID-N.json" (PID, N).
 */
static void session_order(const char *name, unsigned long *pid,
			  unsigned long *n)
{
	const char *p = name + strcspn(name, "-");
	char *end;

	*pid = *p ? strtoul(p + 1, &end, 10) : 0;
	*n = *p && *end == '-' ? strtoul(end + 1, NULL, 10) : 1;
}

/*
 * Session files by process, then in the order its sessions were made (by
 * number, not name: -2 before -10).
 */
static int cmp_session(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	unsigned long px, nx, py, ny;

	session_order(x, &px, &nx);
	session_order(y, &py, &ny);
	if (px != py)
		return px < py ? -1 : 1;
	return nx != ny ? (nx < ny ? -1 : 1) : strcmp(x, y);
}

/* Remove the private directory and what is in it. */
static void remove_tmp(const struct record *r)
{
	char path[512];
	struct dirent *de;
	DIR *d;

	if (!r->tmp[0])
		return;
	d = opendir(r->tmp);
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->tmp, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(r->tmp);
}

/*
 * Session files CMD's processes wrote in the private directory
 * (session-PID.json, its -2, -3, ...), sorted; each event's pid moved by
 * RECORD_PID_STRIDE per file after the first, so two sessions' tracks
 * stay apart. Their otherData go to @others. -1 when a signal came.
 */
static int put_sessions(const struct record *r, FILE *f, bool *comma,
			json_object *others)
{
	char *names[RECORD_MAX_SESSIONS], path[512];
	size_t n = 0, i, j, len;
	struct dirent *de;
	int nread = 0;
	DIR *d;

	d = opendir(r->tmp);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "session", 7))
			continue;
		if (n == RECORD_MAX_SESSIONS) {
			fprintf(stderr, "%s: more than %d session timelines: %s and others left out\n",
				prog, RECORD_MAX_SESSIONS, de->d_name);
			break;
		}
		names[n++] = strdup(de->d_name);
	}
	if (d)
		closedir(d);
	for (i = 0; i < n; i++)
		if (!names[i])
			names[i] = strdup("");
	qsort(names, n, sizeof(*names), cmp_session);
	for (i = 0; i < n && !got_signal; i++) {
		json_object *root, *evs, *ev, *pid, *od;

		snprintf(path, sizeof(path), "%s/%s", r->tmp, names[i]);
		root = json_object_from_file(path);
		if (got_signal) {
			json_object_put(root);
			break;
		}
		if (!root || !json_object_object_get_ex(root, "traceEvents", &evs) ||
		    !json_object_is_type(evs, json_type_array)) {
			fprintf(stderr, "%s: the session's timeline %s is not a trace; left out\n",
				prog, names[i]);
			json_object_put(root);
			continue;
		}
		len = json_object_array_length(evs);
		for (j = 0; j < len; j++) {
			ev = json_object_array_get_idx(evs, j);
			if (nread && json_object_object_get_ex(ev, "pid", &pid))
				json_object_object_add(ev, "pid", json_object_new_int64(
					json_object_get_int64(pid) +
					(int64_t)nread * RECORD_PID_STRIDE));
			fprintf(f, "%s\n%s", *comma ? "," : "",
				json_object_to_json_string_ext(ev, JSON_C_TO_STRING_PLAIN));
			*comma = true;
		}
		if (json_object_object_get_ex(root, "otherData", &od))
			json_object_array_add(others, json_object_get(od));
		json_object_put(root);
		nread++;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	return got_signal ? -1 : nread;
}

/*
 * The merged file at @out (beside it, then renamed); 0, 1, or -1 when a
 * signal stopped it (nothing written).
 */
static int merge(const struct record *r, const char *copy, const char *out,
		 char **cmd)
{
	json_object *others = json_object_new_array(), *od;
	char line[KTRACE_MAX_LINE + 2], *tmp = NULL;
	struct ktrace kt;
	bool comma = false, skip = false;
	int sessions, ret = 1;
	FILE *f, *in;

	f = trace_beside(out, &tmp);
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, tmp ? tmp : out,
			strerror(errno));
		free(tmp);
		json_object_put(others);
		return 1;
	}
	fprintf(f, "{\"traceEvents\":[");
	sessions = put_sessions(r, f, &comma, others);
	if (sessions < 0) {
		ret = -1;
		goto out;
	}
	if (ktrace_init(&kt, f, comma)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		goto out;
	}
	in = fopen(copy, "re");
	while (in && !got_signal && fgets(line, sizeof(line), in)) {
		bool whole = strchr(line, '\n') || feof(in);

		/* A line longer than the buffer: malformed, once, not per piece. */
		if (!skip && whole)
			ktrace_line(&kt, line);
		else if (!skip) {
			kt.lines++;
			kt.malformed++;
		}
		skip = !whole;
	}
	if (in)
		fclose(in);
	ktrace_finish(&kt);
	if (got_signal) {
		ret = -1;
		goto out;
	}
	od = json_object_new_object();
	json_object_object_add(od, "program", json_object_new_string(cmd[0]));
	json_object_object_add(od, "tracefs", json_object_new_string(r->root));
	json_object_object_add(od, "kernel_events", json_object_new_int64(kt.events));
	json_object_object_add(od, "kernel_spans", json_object_new_int64(kt.spans));
	json_object_object_add(od, "malformed_lines", json_object_new_int64(kt.malformed));
	json_object_object_add(od, "unpaired_events", json_object_new_int64(kt.unpaired + kt.overflow));
	json_object_object_add(od, "sessions", others);
	others = NULL;
	fprintf(f, "\n],\"displayTimeUnit\":\"ms\",\"otherData\":%s}\n",
		json_object_to_json_string_ext(od, JSON_C_TO_STRING_PLAIN));
	json_object_put(od);
	if (fflush(f) || ferror(f)) {
		fprintf(stderr, "%s: %s: writing it failed: %s\n", prog, tmp,
			strerror(errno));
		goto out;
	}
	if (trace_chmod_like_new(fileno(f)) || fclose(f)) {
		f = NULL;
		fprintf(stderr, "%s: %s: %s\n", prog, tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	f = NULL;
	if (rename(tmp, out)) {
		fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(errno));
		goto out;
	}
	fprintf(stderr, "%s: %s: %llu kernel events (%llu spans), %d session timeline%s",
		prog, out, (unsigned long long)kt.events,
		(unsigned long long)kt.spans, sessions, sessions == 1 ? "" : "s");
	if (kt.malformed)
		fprintf(stderr, "; %llu malformed line%s skipped",
			(unsigned long long)kt.malformed, kt.malformed == 1 ? "" : "s");
	if (kt.unpaired + kt.overflow)
		fprintf(stderr, "; %llu without their other end",
			(unsigned long long)(kt.unpaired + kt.overflow));
	fprintf(stderr, "\n");
	ret = 0;
out:
	if (f) {
		fclose(f);
		unlink(tmp);
	}
	json_object_put(others);
	free(tmp);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ipu-trace record [-o FILE] [-e EVENT[,EVENT...]] -- CMD [ARGS...]\n"
		"\n"
		"Run CMD (as root, with tracefs) with ipu.ko's trace events on, and write\n"
		"them with the timelines of CMD's sessions (IPU_TRACE) to FILE (default\n"
		"ipu-record.json), one timeline on CLOCK_MONOTONIC. -e: only these events\n"
		"(names in events/ipu/). Exit status: CMD's (128+N when signal N ended it),\n"
		"2 without root, tracefs or ipu.ko's events.\n");
}

int trace_record(int argc, char **argv)
{
	const char *out = "ipu-record.json", *only = NULL;
	struct record r;
	char session[96], copy[96];
	sigset_t old, late;
	int i, st = 0, ret, wr;
	pid_t pid;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) &&
		    i + 1 < argc) {
			out = argv[++i];
		} else if ((!strcmp(argv[i], "-e") || !strcmp(argv[i], "--events")) &&
			   i + 1 < argc) {
			only = argv[++i];
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n",
				prog, argv[i]);
			return 2;
		} else {
			break;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "%s: no command: ipu-trace record [-o FILE] -- CMD [ARGS...]\n",
			prog);
		return 2;
	}
	memset(&r, 0, sizeof(r));
	/* From here every way out removes the instance and the directory. */
	block_signals(true, &old);
	set_handlers(true);
	ret = find_tracefs(&r);
	if (!ret)
		ret = list_events(&r, only);
	if (!ret) {
		snprintf(r.tmp, sizeof(r.tmp), "/tmp/ipu-trace-record.XXXXXX");
		if (!mkdtemp(r.tmp)) {	/* mode 0700 */
			fprintf(stderr, "%s: %s: %s\n", prog, r.tmp, strerror(errno));
			r.tmp[0] = '\0';
			ret = 2;
		}
	}
	if (!ret)
		ret = make_instance(&r);
	if (!ret)
		ret = set_knobs(&r);
	if (ret) {
		release(&r);
		goto out;
	}
	/* libsession makes %p the pid: a file per process of CMD. */
	snprintf(session, sizeof(session), "%s/session-%%p.json", r.tmp);
	snprintf(copy, sizeof(copy), "%s/kernel.trace", r.tmp);

	pid = fork();
	if (pid == 0) {
		set_handlers(false);
		block_signals(false, &old);
		setenv("IPU_TRACE", session, 1);
		execvp(argv[i], argv + i);
		fprintf(stderr, "%s: %s: %s\n", prog, argv[i], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
		ret = 2;
	} else {
		child_pid = pid;
		block_signals(false, &old);
		while ((wr = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
			;
		block_signals(true, &old);
		child_pid = 0;
		if (wr < 0)
			st = 0;
		ret = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	}
	/* Stop, keep what was recorded, then drop the instance. */
	write_knob(&r, "tracing_on", "0");
	wr = pid > 0 ? copy_trace(&r, copy) : 0;
	if (wr)
		fprintf(stderr, "%s: reading %s/trace: %s\n", prog, r.inst,
			strerror(-wr));
	release(&r);
	if (got_signal)
		fprintf(stderr, "%s: %s while recording: passed to %s; its tracefs instance removed\n",
			prog, strsignal(got_signal), argv[i]);
	/* A signal from now on stops the merge. */
	got_signal = 0;
	block_signals(false, &old);
	if (pid > 0 && !wr) {
		int m = merge(&r, copy, out, argv + i);

		if (m < 0) {
			fprintf(stderr, "%s: %s during the merge: stopped, %s not written\n",
				prog, strsignal(got_signal), out);
			ret = 128 + got_signal;
		} else if (m && !ret) {
			ret = 1;
		}
	}
out:
	/*
	 * Signals blocked: a late one does not cut the cleaning short. Into
	 * @late, not @old, which keeps the mask to restore (an early error
	 * comes here with them blocked already).
	 */
	block_signals(true, &late);
	remove_tmp(&r);
	set_handlers(false);
	block_signals(false, &old);
	free(r.ev);
	free(r.want);
	return ret;
}
