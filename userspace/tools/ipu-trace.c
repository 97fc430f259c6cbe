// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ipu-trace - read a session's timeline (docs/trace.md): what libsession
 * writes with IPU_TRACE=FILE, ipu-run --trace or Session(..., trace=).
 *
 *	ipu-trace summary FILE			time per phase, transfer rates,
 *						device idle share, slowest ops
 *	ipu-trace svg FILE -o OUT.svg|OUT.png	the timeline as a picture
 *	ipu-trace record [-o FILE] -- CMD	ipu.ko's trace events while CMD
 *						runs, merged with its sessions'
 *						timelines (trace_record.c)
 *
 * PNG goes through rsvg-convert (librsvg2-bin) when it is installed. Exit
 * status: 0, 1 for a file that cannot be read or is not a trace (the
 * message says where), 2 for a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipu-trace.h"

extern char **environ;

static const char *prog = "ipu-trace";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s summary FILE\n"
		"       %s svg FILE -o OUT.svg|OUT.png\n"
		"       %s record [-o FILE] [-e EVENTS] -- CMD [ARGS...]\n"
		"\n"
		"Read a timeline libsession wrote (IPU_TRACE=FILE, ipu-run --trace FILE,\n"
		"ipu.Session(..., trace=FILE); Chrome trace-event JSON).\n"
		"\n"
		"  summary   time per phase, transfer rates, each device track's idle\n"
		"            share and the slowest ops (or launches and transfers)\n"
		"  svg       draw the timeline: an SVG picture, or PNG when OUT ends in\n"
		"            .png and rsvg-convert is installed; -o - writes SVG to stdout\n"
		"  record    as root: run CMD with ipu.ko's trace events on and merge\n"
		"            them with its sessions' timelines (record --help)\n",
		prog, prog, prog);
}

static bool ends_with(const char *s, const char *end)
{
	size_t a = strlen(s), b = strlen(end);

	return a >= b && !strcasecmp(s + a - b, end);
}

/* rsvg-convert @svg to @png; 0 or 1 with a message. */
static int to_png(const char *svg, const char *png, const char *out)
{
	char *argv[] = { "rsvg-convert", "-o", (char *)png, (char *)svg, NULL };
	pid_t pid;
	int st, err;

	err = posix_spawnp(&pid, "rsvg-convert", NULL, NULL, argv, environ);
	if (err) {
		fprintf(stderr, "%s: %s: PNG needs rsvg-convert (Debian: librsvg2-bin): %s; write .svg instead\n",
			prog, out, strerror(err));
		return 1;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "%s: %s: rsvg-convert failed\n", prog, out);
		return 1;
	}
	return 0;
}

FILE *trace_beside(const char *out, char **tmp)
{
	const char *slash = strrchr(out, '/');
	int fd, len;
	FILE *f;

	len = asprintf(tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - out + 1) : 0,
		       out, slash ? slash + 1 : out);
	if (len < 0) {
		*tmp = NULL;
		errno = ENOMEM;
		return NULL;
	}
	fd = mkstemp(*tmp);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(*tmp);
	}
	return f;
}

int trace_chmod_like_new(int fd)
{
	mode_t mask = umask(0);

	umask(mask);
	return fchmod(fd, 0666 & ~mask);
}

/*
 * A directory of our own beside @out, "DIR/.NAME.XXXXXX" (mode 0700, on
 * @out's file system so that a file in it renames over @out); its name
 * (free it) or NULL with errno.
 */
static char *private_dir_beside(const char *out)
{
	const char *slash = strrchr(out, '/');
	char *dir;

	if (asprintf(&dir, "%.*s.%s.XXXXXX", slash ? (int)(slash - out + 1) : 0,
		     out, slash ? slash + 1 : out) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	if (!mkdtemp(dir)) {
		int err = errno;

		free(dir);
		errno = err;
		return NULL;
	}
	return dir;
}

/*
 * PNG: the SVG and rsvg-convert's PNG are files in a private directory
 * (mode 0700) beside @out, which nobody else can swap between our write
 * and the converter's read, or its write and our rename (the directory
 * @out is in may be shared and not sticky). The PNG, opened without
 * following a link and checked to be a regular file, gets a new file's
 * mode on its descriptor, then is renamed over @out.
 */
static int draw_png(const struct trace *t, const char *in, const char *out)
{
	char *dir, svg[PATH_MAX], png[PATH_MAX];
	struct stat st;
	bool notreg = false;
	int fd, err, ret = 1;
	FILE *f;

	dir = private_dir_beside(out);
	if (!dir) {
		fprintf(stderr, "%s: %s: a directory beside it: %s\n", prog, out,
			strerror(errno));
		return 1;
	}
	snprintf(svg, sizeof(svg), "%s/picture.svg", dir);
	snprintf(png, sizeof(png), "%s/picture.png", dir);
	fd = open(svg, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, svg, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	err = trace_svg(t, in, f);
	if (fclose(f) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "%s: %s: writing it failed: %s\n", prog, svg,
			strerror(-err));
		goto out;
	}
	if (to_png(svg, png, out))
		goto out;
	fd = open(png, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || (notreg = !S_ISREG(st.st_mode)) ||
	    trace_chmod_like_new(fd) || rename(png, out)) {
		fprintf(stderr, "%s: %s: %s\n", prog, out,
			notreg ? "rsvg-convert did not write a regular file" :
			strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	ret = 0;
out:
	unlink(svg);
	unlink(png);
	rmdir(dir);
	free(dir);
	return ret;
}

/*
 * Draw @t to @out: written to a temporary file beside it, then renamed
 * over it, so that @out is never half written and a symbolic link there
 * is replaced, never followed (the picture cannot land in a file the link
 * points to). PNG: draw_png().
 */
static int draw(const struct trace *t, const char *in, const char *out)
{
	char *tmp = NULL;
	FILE *f;
	int err;

	if (!strcmp(out, "-"))
		return trace_svg(t, in, stdout) ? 1 : 0;
	if (ends_with(out, ".png"))
		return draw_png(t, in, out);
	f = trace_beside(out, &tmp);
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, tmp ? tmp : out,
			strerror(errno));
		free(tmp);
		return 1;
	}
	err = trace_svg(t, in, f);
	if (!err && (fflush(f) || trace_chmod_like_new(fileno(f))))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, out))
		err = -errno;
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(-err));
		unlink(tmp);
	}
	free(tmp);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *cmd, *in, *out = NULL;
	struct trace t;
	char msg[512];
	int i, ret;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "record"))
		return trace_record(argc - 1, argv + 1);
	if (argc < 3) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	in = argv[2];
	for (i = 3; i < argc; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) &&
		    i + 1 < argc) {
			out = argv[++i];
			continue;
		}
		fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n",
			prog, argv[i]);
		return 2;
	}
	if (strcmp(cmd, "summary") && strcmp(cmd, "svg")) {
		fprintf(stderr, "%s: unknown command '%s': summary or svg (see --help)\n",
			prog, cmd);
		return 2;
	}
	if (!strcmp(cmd, "svg") && !out) {
		fprintf(stderr, "%s: svg needs -o OUT.svg (or .png, or - for stdout)\n",
			prog);
		return 2;
	}
	if (!strcmp(cmd, "summary") && out) {
		fprintf(stderr, "%s: summary writes to stdout; no -o\n", prog);
		return 2;
	}
	if (trace_read_file(in, &t, msg, sizeof(msg))) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		trace_free(&t);
		return 1;
	}
	if (!strcmp(cmd, "summary")) {
		printf("%s: ", in);
		trace_summary(&t, stdout);
		ret = fflush(stdout) ? 1 : 0;
	} else {
		ret = draw(&t, in, out);
	}
	trace_free(&t);
	return ret;
}
