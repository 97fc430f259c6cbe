// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ipu-run - run a saved IPU executable on NumPy arrays.
 *
 *	ipu-run program.ipux --input x=x.npy --output y=y.npy [--runs N]
 *		[--data-dir DIR] [--instances N] [--trace FILE] [-q]
 *
 * Loads the executable (ipu_exe_read_file()), makes a libsession session
 * from it on the chosen device, attaches (the variables' initial values go
 * to the device), feeds each host-to-device stream from a .npy file, runs
 * N times, and writes the device-to-host streams asked for as .npy files
 * (from the last run). Timing of every run and the total go to stdout
 * (not with -q), errors to stderr; the exit status is 0 on success, 1 on
 * any failure, 2 for a usage error (one line, pointing to --help). SIGINT
 * (Ctrl-C) or SIGTERM stop the run in progress within a fraction of a
 * second (ipu-run-signals.h): ipu-run then says how many runs completed,
 * writes no outputs and exits 130 (143). One that comes after the last
 * run completed stops nothing: the outputs are written, and ipu-run exits
 * 0, saying the signal came late.
 *
 * Output files are opened before the first run, so that a path that
 * cannot be written costs no run; one this run created is removed again
 * when the run fails, and one that was there is left as it was. An
 * output path that is a symbolic link is refused (it could point at any
 * file: a link planted in a shared directory would have ipu-run overwrite
 * it), and so is an existing file that is neither a regular file nor a
 * stream (a FIFO, a character device such as /dev/null).
 *
 * Types. An input array has its stream's dtype, with these exceptions:
 * float64 and int64 arrays feed float32 and int32 streams (libsession
 * downcasts them, S12); float32 and float64 arrays feed float16, bfloat16
 * and FP8 streams (converted here, rounding to nearest even, FP8
 * saturating); uint8 arrays feed FP8 streams as raw codes (S12). Outputs
 * are written in their stream's dtype, except bfloat16 and FP8, which
 * NumPy lacks: they are written as float32 values (exact; the codes can be
 * had back with ml_dtypes or host_pow2scale_cast_to_fp8()).
 *
 * Files of memory-mapped variables. An executable is untrusted input: the
 * files it names for its memory-mapped variables are opened only in the
 * directory given with --data-dir (relative to it, never through a
 * symbolic link or out of it; libsession's ipu_session_opts.data_dir).
 * Without --data-dir, an executable with such a variable is refused,
 * naming the variable and the file; with it, the files are read at
 * start and get the device's values when the run ends.
 *
 * Shapes. An input's shape is its stream's host shape (S11):
 * (num_host_transfers, replicas) + the stream's shape, each leading
 * dimension present only when > 1; the first dimension may be larger than
 * num_host_transfers, and an array whose data dims are all 1 feeds a
 * one-element stream. libsession decides (ipu_session_check_shape(), the
 * checker of its runs), so ipu-run accepts exactly what a run accepts.
 *
 * Instances (docs/instances.md). A program split across processes
 * (instance_replication_factor below replication_factor) runs under
 * `mpirun -np N ipu-run ...` unchanged, or `ipu-run --instances N ...`,
 * which runs that mpirun itself (ipu-run-instances.c). Each instance
 * feeds and drains its own replicas (S11 with the instance's replica
 * count), so files are per instance: "{instance}" in a file name stands
 * for the instance's index, and with several instances every --output
 * must hold it (else they would all write one file).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ipu/session.h"
#include "ipu-run-instances.h"
#include "ipu-run-signals.h"
#include "npy.h"

/* One --input or --output: a stream name and a file. */
struct binding {
	const char *stream;
	const char *path;
	const struct ipu_stream_desc *desc;
	struct npy_array arr;		/* inputs: the file's array */
	struct ipu_host_buffer buf;	/* inputs: what the session gets */
	void *converted;		/* inputs: buf.data when converted here */
	char *owned;			/* @path with {instance} replaced */
	int fd;				/* outputs: open before the run; -1 */
	bool created;			/* outputs: this run made the file */
};

struct options {
	const char *program;
	const char *device;
	const char *data_dir;
	const char *trace;		/* --trace: the timeline's file */
	unsigned long runs;
	unsigned long instances;	/* --instances, 0 without */
	bool quiet;			/* -q: errors only */
	struct binding *in, *out;
	size_t nin, nout;
};

static const char *prog_name = "ipu-run";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s PROGRAM.ipux [--input STREAM=FILE.npy]... [--output STREAM=FILE.npy]...\n"
		"               [--device auto|ipu_model|cpu|ipu_hw] [--runs N] [--data-dir DIR]\n"
		"               [--instances N] [--trace FILE] [-q]\n"
		"\n"
		"Run a saved IPU executable: every host-to-device stream is fed from a\n"
		"NumPy .npy file, the device-to-host streams named are written as .npy\n"
		"files after the last run, and the time of each run is printed.\n"
		"A .ipux is what a program built with the IR saves: libsession's\n"
		"ipu_exe_write_file() of ipu_session_exe() in C (tests/pkg/session_hello.c\n"
		"--save FILE), or the example make_example_exe.\n"
		"\n"
		"  -i, --input STREAM=FILE    feed host-to-device stream STREAM from FILE\n"
		"                             (one for every such stream of the program)\n"
		"  -o, --output STREAM=FILE   write device-to-host stream STREAM to FILE\n"
		"  -d, --device DEVICE        auto (default: hardware if present, else the\n"
		"                             model), ipu_model, cpu (one IPU) or ipu_hw\n"
		"  -n, --runs N               run N times (default 1); outputs are the last's\n"
		"  -D, --data-dir DIR         the directory where the program's memory-mapped\n"
		"                             variables' files are (read at start, written at\n"
		"                             the end); the program names them relative to it\n"
		"                             and cannot reach out of it. Without it, a program\n"
		"                             with such variables is refused\n"
		"      --instances N          run a program split across processes as N\n"
		"                             instances: mpirun -np N over ipu-run-mpi\n"
		"                             (as does mpirun -np N ipu-run); {instance} in\n"
		"                             a FILE name is the instance's index, and each\n"
		"                             --output needs it with several instances\n"
		"      --trace FILE           write a timeline of the session to FILE (Chrome\n"
		"                             trace-event JSON, for Perfetto or ipu-trace;\n"
		"                             as IPU_TRACE=FILE does); an existing regular\n"
		"                             file is replaced, a symbolic link refused\n"
		"  -q, --quiet                print nothing but errors\n"
		"  -h, --help                 this text\n"
		"\n"
		"Shapes: (num_host_transfers, replicas) + the stream's shape, each leading\n"
		"dimension only when > 1. Types: the stream's, or float64/int64 for\n"
		"float32/int32 streams, float32/float64 for float16, bfloat16 and FP8\n"
		"streams (converted, FP8 saturating), uint8 codes for FP8 streams.\n"
		"Outputs keep their type, except bfloat16 and FP8, written as float32.\n"
		"\n"
		"Files: .npy versions 1.0-3.0, C order, dtypes <f4 <f8 <f2 <i4 <i8 |i1\n"
		"|u1 |b1 (big-endian ones are converted).\n",
		prog_name);
}

/* "STREAM=FILE" into @b; -1 with a message when malformed. */
static int parse_binding(const char *opt, char *arg, struct binding *b)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg || !eq[1]) {
		fprintf(stderr, "%s: --%s '%s': expected STREAM=FILE.npy\n",
			prog_name, opt, arg);
		return -1;
	}
	*eq = '\0';
	memset(b, 0, sizeof(*b));
	b->fd = -1;
	b->stream = arg;
	b->path = eq + 1;
	return 0;
}

/* --@opt @arg, a count from 1 to @max, into @n; -1 (reported) if not. */
static int parse_count(const char *opt, const char *arg, unsigned long max,
		       unsigned long *n)
{
	char *end;

	errno = 0;
	*n = strtoul(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || errno || *end || *n < 1 ||
	    *n > max) {
		fprintf(stderr, "%s: --%s '%s': expected a number from 1 to %lu\n",
			prog_name, opt, arg, max);
		return -1;
	}
	return 0;
}

/* 0 to run, 1 after --help, -1 for a usage error (reported). */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, 'd' },
		{ "runs", required_argument, NULL, 'n' },
		{ "data-dir", required_argument, NULL, 'D' },
		{ "instances", required_argument, NULL, 'I' },
		{ "trace", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	o->device = "auto";
	o->runs = 1;
	/* At most one binding per argument. */
	o->in = calloc((size_t)argc, sizeof(*o->in));
	o->out = calloc((size_t)argc, sizeof(*o->out));
	if (!o->in || !o->out) {
		fprintf(stderr, "%s: out of memory\n", prog_name);
		return -1;
	}
	/* Our own one-line messages: getopt's and the usage would be more. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:d:n:D:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (parse_binding("input", optarg, &o->in[o->nin++]))
				return -1;
			break;
		case 'o':
			if (parse_binding("output", optarg, &o->out[o->nout++]))
				return -1;
			break;
		case 'd':
			o->device = optarg;
			break;
		case 'D':
			o->data_dir = optarg;
			break;
		case 'n':
			if (parse_count("runs", optarg, 1000000, &o->runs))
				return -1;
			break;
		case 'I':
			if (parse_count("instances", optarg, 4096, &o->instances))
				return -1;
			break;
		case 'T':
			o->trace = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			fprintf(stderr, "%s: option '%s' needs a value (see --help)\n",
				prog_name, argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n",
				prog_name, argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: %s (see --help)\n", prog_name,
			optind < argc ? "one program, please" :
					"which program? (PROGRAM.ipux)");
		return -1;
	}
	o->program = argv[optind];
	return 0;
}

/* The names of @n streams, ", "-separated, into @buf. */
static const char *stream_names(const struct ipu_stream_desc *d, size_t n,
				char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s'%s'",
					 i ? ", " : "", d[i].name);
	return n ? buf : "none";
}

/*
 * Match each binding of one direction to a stream of the program, and
 * (inputs) check that every stream has one.
 */
static int match_streams(struct binding *b, size_t nb,
			 const struct ipu_stream_desc *d, size_t nd,
			 const char *dir, bool all_needed)
{
	char names[1024];

	for (size_t i = 0; i < nb; i++) {
		for (size_t j = 0; j < nd && !b[i].desc; j++)
			if (!strcmp(b[i].stream, d[j].name))
				b[i].desc = &d[j];
		for (size_t j = 0; j < i && b[i].desc; j++)
			if (b[j].desc == b[i].desc) {
				fprintf(stderr, "%s: stream '%s' is given twice\n",
					prog_name, b[i].stream);
				return -1;
			}
		if (!b[i].desc) {
			fprintf(stderr,
				"%s: %s=%s: the program has no %s stream '%s' (it has: %s)\n",
				prog_name, b[i].stream, b[i].path, dir,
				b[i].stream, stream_names(d, nd, names, sizeof(names)));
			return -1;
		}
	}
	for (size_t j = 0; all_needed && j < nd; j++) {
		size_t i = 0;
		char shape[128];

		while (i < nb && b[i].desc != &d[j])
			i++;
		if (i == nb) {
			fprintf(stderr,
				"%s: no --input for %s stream '%s' (%s %s)\n",
				prog_name, dir, d[j].name,
				ipu_dtype_name(d[j].dtype),
				npy_shape_str(d[j].host_shape, d[j].host_ndim,
					      shape, sizeof(shape)));
			return -1;
		}
	}
	return 0;
}

/* How an array of type @have feeds a stream of type @want. */
enum feed { FEED_NO, FEED_AS_IS, FEED_CONVERT };

static enum feed feed_kind(uint32_t have, uint32_t want)
{
	if (have == want)
		return FEED_AS_IS;
	/* libsession downcasts these (S12) and takes FP8 codes as uint8. */
	if ((want == IPU_DTYPE_FLOAT32 && have == IPU_DTYPE_FLOAT64) ||
	    (want == IPU_DTYPE_INT32 && have == IPU_DTYPE_INT64) ||
	    (ipu_dtype_is_fp8((int)want) && have == IPU_DTYPE_UINT8))
		return FEED_AS_IS;
	/* Types NumPy lacks (or that are awkward in it) come as floats. */
	if ((want == IPU_DTYPE_FLOAT16 || want == IPU_DTYPE_BFLOAT16 ||
	     ipu_dtype_is_fp8((int)want)) &&
	    (have == IPU_DTYPE_FLOAT32 || have == IPU_DTYPE_FLOAT64))
		return FEED_CONVERT;
	return FEED_NO;
}

/* Read @b's file and make the buffer the session gets. */
static int load_input(struct ipu_session *s, struct binding *b)
{
	const struct ipu_stream_desc *d = b->desc;
	char err[1024], have[128], want[128];
	enum feed feed;
	size_t elem;
	int ret;

	ret = npy_read_file(b->path, &b->arr, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: --input %s=%s\n", prog_name, b->stream, err);
		return -1;
	}
	npy_shape_str(b->arr.shape, b->arr.ndim, have, sizeof(have));
	npy_shape_str(d->host_shape, d->host_ndim, want, sizeof(want));
	if (ipu_session_check_shape(s, d->name, b->arr.ndim, b->arr.shape)) {
		fprintf(stderr,
			"%s: --input %s=%s: shape %s does not fit stream '%s': it takes %s\n"
			"  (num_host_transfers, replicas) + the stream's shape, each leading dimension only when > 1:\n"
			"  %s\n",
			prog_name, b->stream, b->path, have, d->name, want,
			ipu_session_errmsg(s));
		return -1;
	}
	feed = feed_kind(b->arr.dtype, d->dtype);
	if (feed == FEED_NO) {
		fprintf(stderr,
			"%s: --input %s=%s: dtype %s ('%s') cannot feed stream '%s' of %s\n",
			prog_name, b->stream, b->path,
			ipu_dtype_name(b->arr.dtype), npy_descr(b->arr.dtype),
			d->name, ipu_dtype_name(d->dtype));
		return -1;
	}
	b->buf.data = b->arr.data;
	b->buf.dtype = b->arr.dtype;
	b->buf.ndim = b->arr.ndim;
	memcpy(b->buf.shape, b->arr.shape, b->arr.ndim * sizeof(uint64_t));
	if (feed == FEED_AS_IS)
		return 0;
	elem = ipu_dtype_size(d->dtype);
	b->converted = malloc(b->arr.count ? b->arr.count * elem : 1);
	if (!b->converted) {
		fprintf(stderr, "%s: --input %s=%s: out of memory\n", prog_name,
			b->stream, b->path);
		return -1;
	}
	/* Cannot fail: both types are valid and the pointers set. */
	ipu_dtype_convert(b->converted, (int)d->dtype, b->arr.data,
			  (int)b->arr.dtype, b->arr.count);
	b->buf.data = b->converted;
	b->buf.dtype = d->dtype;
	return 0;
}

/*
 * Open every output's file before the run: a path that cannot be written
 * fails now, not after the run. A file is created only if missing
 * (O_EXCL tells), never cut yet: a failed run leaves an old one as it was.
 */
/*
 * Open an existing output file: never through a symbolic link (one
 * planted at the path, in a shared directory say, would have us overwrite
 * whatever it points at), and only a regular file, to be truncated, or a
 * stream (a FIFO, a character device such as a terminal or /dev/null),
 * written as it is. O_NONBLOCK keeps the open from waiting for a FIFO's
 * reader before the type is known; it is cleared for the writes.
 */
static int open_existing(struct binding *b)
{
	struct stat st;
	int fd, fl;

	fd = open(b->path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENXIO) /* a FIFO with no reader yet */
		fd = open(b->path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			fprintf(stderr, "%s: --output %s=%s: it is a symbolic link: refused, as it could point at any file; give the path of the file itself\n",
				prog_name, b->stream, b->path);
		else
			fprintf(stderr, "%s: --output %s=%s: cannot open: %s\n",
				prog_name, b->stream, b->path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) ||
	    !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) ||
	      S_ISCHR(st.st_mode))) {
		fprintf(stderr, "%s: --output %s=%s: not a regular file, a FIFO or a character device: refused\n",
			prog_name, b->stream, b->path);
		close(fd);
		return -1;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		fprintf(stderr, "%s: --output %s=%s: %s\n", prog_name,
			b->stream, b->path, strerror(errno));
		close(fd);
		return -1;
	}
	b->fd = fd;
	return 0;
}

static int open_outputs(struct options *o)
{
	struct binding *b;

	for (size_t i = 0; i < o->nout; i++) {
		b = &o->out[i];
		/* O_EXCL never follows a symbolic link, dangling or not. */
		b->fd = open(b->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		b->created = b->fd >= 0;
		if (b->fd >= 0)
			continue;
		if (errno == EEXIST) {
			if (open_existing(b))
				return -1;
			continue;
		}
		fprintf(stderr, "%s: --output %s=%s: cannot create: %s\n",
			prog_name, b->stream, b->path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Close the outputs' files; when @failed, remove those this run made. */
static void close_outputs(struct options *o, bool failed)
{
	struct binding *b;

	for (size_t i = 0; i < o->nout; i++) {
		b = &o->out[i];
		if (b->fd < 0)
			continue;
		close(b->fd);
		b->fd = -1;
		if (failed && b->created)
			unlink(b->path);
	}
}

/* Write output @buf to @b's file, as float32 if NumPy lacks its type. */
static int save_output(const struct binding *b,
		       const struct ipu_host_buffer *buf, bool quiet)
{
	struct npy_array a = { .dtype = buf->dtype, .ndim = buf->ndim,
			       .count = 1, .data = buf->data };
	char err[1024], shape[128];
	void *f32 = NULL;
	int ret;

	for (uint32_t i = 0; i < buf->ndim; i++) {
		a.shape[i] = buf->shape[i];
		a.count *= buf->shape[i];
	}
	if (!npy_descr(buf->dtype)) {
		f32 = malloc(a.count ? a.count * sizeof(float) : 1);
		if (!f32) {
			fprintf(stderr, "%s: --output %s=%s: out of memory\n",
				prog_name, b->stream, b->path);
			return -1;
		}
		ipu_dtype_convert(f32, IPU_DTYPE_FLOAT32, buf->data,
				  (int)buf->dtype, a.count);
		a.dtype = IPU_DTYPE_FLOAT32;
		a.data = f32;
	}
	ret = npy_write_fd(b->fd, b->path, &a, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s: --output %s=%s\n", prog_name, b->stream, err);
	else if (!quiet)
		printf("wrote %s: %s %s to %s\n", b->stream,
		       ipu_dtype_name(buf->dtype),
		       npy_shape_str(a.shape, a.ndim, shape, sizeof(shape)),
		       b->path);
	free(f32);
	return ret ? -1 : 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* run()'s status when a signal stopped it (else 0 or -1). */
#define STOPPED (-2)

/* After a signal stopped the run: what completed, on stdout. */
static void interrupted(unsigned long done, const struct options *o,
			double total)
{
	printf("interrupted by %s after %lu of %lu run%s (total %.3f ms); no outputs written\n",
	       signals_name(), done, o->runs, o->runs == 1 ? "" : "s", total);
}

/* Attach, run @o->runs times with timing, write the outputs, detach. */
static int run(struct ipu_session *s, const struct options *o)
{
	struct ipu_stream_buffer *in, *out = NULL;
	size_t nout = 0;
	double total = 0, best = 0;
	unsigned long done = 0;
	int ret, status = 0;

	in = calloc(o->nin ? o->nin : 1, sizeof(*in));
	if (!in) {
		fprintf(stderr, "%s: out of memory\n", prog_name);
		return -1;
	}
	for (size_t i = 0; i < o->nin; i++) {
		in[i].stream = o->in[i].desc->name;
		in[i].buf = o->in[i].buf;
	}
	ret = ipu_session_create_host_outputs(s, &out, &nout);
	if (ret) {
		fprintf(stderr, "%s: %s\n", prog_name, ipu_session_errmsg(s));
		free(in);
		return -1;
	}
	/* Armed before the check: a signal comes before it, or cancels. */
	signals_session(s);
	ret = signals_caught() ? -ECANCELED : ipu_session_attach(s);
	if (ret && signals_caught()) {
		signals_session(NULL);
		interrupted(0, o, 0);
		status = STOPPED;
		goto out;
	}
	if (ret) {
		fprintf(stderr, "%s: attaching: %s\n", prog_name,
			ipu_session_errmsg(s));
		status = -1;
		goto out;
	}
	for (unsigned long r = 1; r <= o->runs && !signals_caught(); r++) {
		double t0 = now_ms(), dt;

		ret = ipu_session_run_with_outputs(s, in, o->nin, out, nout, 0);
		dt = now_ms() - t0;
		if (ret && signals_caught())
			break;
		if (ret) {
			fprintf(stderr, "%s: run %lu: %s\n", prog_name, r,
				ipu_session_errmsg(s));
			status = -1;
			break;
		}
		done++;
		total += dt;
		best = r == 1 || dt < best ? dt : best;
		if (!o->quiet)
			printf("run %lu: %.3f ms\n", r, dt);
	}
	/* From here a signal stops nothing: the runs are over. */
	signals_session(NULL);
	/* Once interrupted, leave at once: no weights to host, no outputs. */
	if (!status && done < o->runs) {
		interrupted(done, o, total);
		status = STOPPED;
	} else if (!status && !o->quiet) {
		printf("%lu run%s: total %.3f ms, mean %.3f ms, best %.3f ms\n",
		       o->runs, o->runs == 1 ? "" : "s", total,
		       total / (double)o->runs, best);
	}
	ret = ipu_session_detach(s, status ? IPU_DETACH_ERROR : 0);
	if (ret) {
		fprintf(stderr, "%s: detaching: %s\n", prog_name,
			ipu_session_errmsg(s));
		if (!status)
			status = -1;
	}
	for (size_t i = 0; !status && i < o->nout; i++)
		for (size_t j = 0; j < nout; j++)
			if (!strcmp(out[j].stream, o->out[i].desc->name) &&
			    save_output(&o->out[i], &out[j].buf, o->quiet))
				status = -1;
out:
	ipu_session_free_buffers(out, nout);
	free(in);
	return status;
}

static int run_program(struct options *o)
{
	IPU_OPTS(ipu_session_opts, opts, .device = o->device,
		 .data_dir = o->data_dir, .trace = o->trace);
	const struct ipu_stream_desc *ind, *outd;
	struct ipu_session *s;
	struct ipu_exe *exe;
	size_t nind, noutd;
	char err[1024];
	int ret;

	ret = ipu_exe_read_file(o->program, &exe, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", prog_name, o->program, err);
		return -1;
	}
	/* The session takes the executable, whatever happens. */
	ret = ipu_session_create_from_exe(exe, &opts, &s);
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", prog_name, o->program,
			ipu_session_errmsg(NULL));
		return -1;
	}
	ind = ipu_session_expected_inputs(s, &nind);
	outd = ipu_session_expected_outputs(s, &noutd);
	ret = match_streams(o->in, o->nin, ind, nind, "host-to-device", true) ?:
	      match_streams(o->out, o->nout, outd, noutd, "device-to-host",
			    false);
	for (size_t i = 0; !ret && i < o->nin; i++)
		ret = load_input(s, &o->in[i]);
	if (!ret)
		ret = open_outputs(o);
	if (!ret) {
		if (!o->quiet)
			printf("%s: %s on %s (%u IPU%s), %lu run%s\n", prog_name,
			       o->program, ipu_session_device_name(s),
			       ipu_session_num_ipus(s),
			       ipu_session_num_ipus(s) == 1 ? "" : "s", o->runs,
			       o->runs == 1 ? "" : "s");
		ret = run(s, o);
	}
	close_outputs(o, ret != 0);
	ipu_session_destroy(s);
	return ret;
}

/*
 * The exit status of running the program: 128 + a signal that stopped it.
 * A signal that came once every run had completed stopped nothing: the
 * outputs were written, and the status is the run's, saying so.
 */
static int run_status(struct options *o)
{
	int ret;

	if (signals_install(prog_name))
		return 1;
	ret = run_program(o);
	if (ret == STOPPED || (ret && signals_caught()))
		return 128 + signals_caught();
	if (signals_caught())
		fprintf(stderr, "%s: %s came after the last run completed: it stopped nothing, the outputs are written\n",
			prog_name, signals_name());
	return ret ? 1 : 0;
}

/* @b's path with every {instance} replaced by this instance's index. */
static int instance_path(struct binding *b, const char *opt)
{
	const size_t tag = strlen(IPU_RUN_INSTANCE_TAG);
	const char *p = b->path, *at;
	char idx[16];
	size_t len, n = 0;

	if (!strstr(p, IPU_RUN_INSTANCE_TAG)) {
		if (instances_count() > 1 && !strcmp(opt, "output")) {
			fprintf(stderr,
				"%s: --output %s=%s: %u instances would all write this file: put %s in its name\n",
				prog_name, b->stream, b->path, instances_count(),
				IPU_RUN_INSTANCE_TAG);
			return -1;
		}
		return 0;
	}
	snprintf(idx, sizeof(idx), "%u", instances_index());
	len = strlen(p) + 1;
	for (at = p; (at = strstr(at, IPU_RUN_INSTANCE_TAG)); at += tag)
		len += strlen(idx);
	b->owned = malloc(len);
	if (!b->owned) {
		fprintf(stderr, "%s: out of memory\n", prog_name);
		return -1;
	}
	while ((at = strstr(p, IPU_RUN_INSTANCE_TAG))) {
		memcpy(b->owned + n, p, (size_t)(at - p));
		n += (size_t)(at - p);
		memcpy(b->owned + n, idx, strlen(idx));
		n += strlen(idx);
		p = at + tag;
	}
	strcpy(b->owned + n, p);
	b->path = b->owned;
	return 0;
}

static int instance_paths(struct options *o)
{
	for (size_t i = 0; i < o->nin; i++)
		if (instance_path(&o->in[i], "input"))
			return -1;
	for (size_t i = 0; i < o->nout; i++)
		if (instance_path(&o->out[i], "output"))
			return -1;
	return 0;
}

static void free_args(char **args)
{
	for (size_t i = 0; args && args[i]; i++)
		free(args[i]);
	free(args);
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	char **args;
	bool oom;
	int ret;

	/* What --instances passes on is the command line as given:
	 * getopt_long() reorders argv and parse_binding() cuts its strings. */
	args = calloc((size_t)argc + 1, sizeof(*args));
	oom = !args;
	for (int i = 0; !oom && i < argc; i++)
		oom = !(args[i] = strdup(argv[i]));
	if (oom) {
		fprintf(stderr, "%s: out of memory\n", prog_name);
		free_args(args);
		return 1;
	}
	if (instances_enter(argc, argv, prog_name)) {
		free_args(args);
		return 1;
	}
	ret = parse_options(argc, argv, &o);
	if (!ret && o.instances && instances_launch(o.instances, args, prog_name))
		ret = 1;
	else if (!ret && instance_paths(&o))
		ret = 2;
	else if (!ret)
		ret = run_status(&o);
	else
		ret = ret > 0 ? 0 : 2;
	for (size_t i = 0; i < o.nin; i++) {
		npy_free(&o.in[i].arr);
		free(o.in[i].converted);
		free(o.in[i].owned);
	}
	for (size_t i = 0; i < o.nout; i++)
		free(o.out[i].owned);
	free(o.in);
	free(o.out);
	free_args(args);
	instances_leave(ret);
	return ret;
}
