// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ipu-info - what IPUs this machine has and what state they are in.
 *
 *	ipu-info [--json] [--model] [-d DEVICE] [--watch [-n SECONDS]]
 *	ipu-info --reset ipuN|PCI-ADDRESS [--force]
 *
 * One line per IPU (/dev/ipuN of ipu.ko; with --model also the software
 * model's "model:N"): platform, PCI address, names, PCIe link (current
 * and maximum, flagged when degraded), NUMA node, driver, firmware,
 * serial, memory, temperature and power (hwmon), resets, memory error
 * counters and who holds it, and per process (ipu.ko's fdinfo) the
 * buffers, bytes and engine time it uses on each IPU;
 * then the PCI functions with an IPU's IDs that no /dev/ipuN stands for
 * (a board the driver has not taken), then notes on what could not be
 * read. Works as a normal user; the notes say which fields need root.
 * Gathering: info_collect.c (sysfs, GET_INFO), info_pci.c (libpci),
 * info_hwmon.c, info_proc.c (holders), info_model.c; output:
 * info_table.c, info_details.c, info_json.c (docs/ipu-info.md).
 *
 * --watch adds a utilisation column: the share of the time between two
 * samples that the holders' launches ran (fdinfo's drm-engine-launch).
 * --reset: info_reset.c.
 *
 * --watch --json prints JSON Lines: each report on one line, with the
 * time it was taken ("timestamp", UTC), for a log a program can follow.
 *
 * Exit status: 0; 1 when the device of -d does not exist or gathering
 * failed (out of memory); 2 for a usage error; 3 when no IPU was found
 * (no /dev/ipuN, no function with an IPU's IDs, and no model IPU asked
 * for), as a script checking a host must see; --reset: 0 when reset, 1
 * when there is no such IPU or the reset failed, 4 when it is held and
 * --force was not given (or it cannot be forced: a simulated IPU another
 * process attached).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "info.h"

#define IPU_INFO_VERSION "1.0"
#define EXIT_NO_IPU 3

struct options {
	bool json, model, watch, no_pci, force;
	const char *device;	/* -d */
	const char *reset;	/* --reset */
	const char *root;
	double interval;	/* seconds between --watch refreshes */
	long count;		/* --watch refreshes, 0: until interrupted */
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--json] [--model] [-d DEVICE] [--watch [-n SECONDS] [--count N]]\n"
		"       %s --reset ipuN|PCI-ADDRESS [--force]\n"
		"\n"
		"List the IPUs of this machine: one line each with the /dev node, platform\n"
		"(sim, pci, model), PCI address and names, PCIe link (current, and maximum when\n"
		"degraded), NUMA node, driver, firmware, serial, memory used/total,\n"
		"temperature and power, reset count, memory errors (corrected / uncorrected)\n"
		"and the process holding it; then each process with an IPU open and the\n"
		"buffers, memory and engine time it uses there (ipu.ko's fdinfo). Then the PCI\n"
		"functions with IPU IDs that no /dev/ipuN stands for, and notes on what could\n"
		"not be read (config space past 64 bytes and other users' open files need root).\n"
		"\n"
		"  -j, --json           the report as JSON (schema: docs/ipu-info.md)\n"
		"  -d, --device DEVICE  every detail of one IPU: N, ipuN, /dev/ipuN or model:N\n"
		"                       (capabilities, feature bits, BARs, MSI-X vectors, DSN),\n"
		"                       or of a function without /dev/ipuN: its PCI address\n"
		"  -m, --model          also list the software model's IPUs, marked \"model\"\n"
		"  -w, --watch          refresh in place like top(1) until interrupted, with a\n"
		"                       UTIL column (launch engine busy since the last sample)\n"
		"  -n, --interval SECS  seconds between refreshes (default 1; 0.1 to 3600)\n"
		"      --count N        stop after N refreshes\n"
		"      --no-pci         leave libpci out (no PCI columns, no unbound functions)\n"
		"      --root DIR       read DIR/sys, DIR/proc and DIR/dev instead of the\n"
		"                       machine's (a saved or test tree)\n"
		"      --reset IPU      reset IPU (N, ipuN, /dev/ipuN or its PCI address);\n"
		"                       refused while a process holds it (exit status 4)\n"
		"      --force          reset even so: an attached PCI IPU through the PCI\n"
		"                       core's function reset (its owner's runs fail)\n"
		"  -V, --version        print the version and the JSON schema version\n"
		"  -h, --help           this text\n"
		"\n"
		"With --watch, --json prints JSON Lines: one report a line, with its \"timestamp\".\n"
		"\n"
		"Exit status: 0; 1 when DEVICE does not exist (or the reset failed); 2 for a\n"
		"usage error; 3 when no IPU was found; 4 when --reset refused a held IPU.\n",
		prog, prog);
}

/* 0 to run, 1 after --help or --version, -1 for a usage error (reported). */
static int parse_args(int argc, char **argv, struct options *o)
{
	enum { OPT_COUNT = 256, OPT_ROOT, OPT_NO_PCI, OPT_RESET, OPT_FORCE };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "device", required_argument, NULL, 'd' },
		{ "model", no_argument, NULL, 'm' },
		{ "watch", no_argument, NULL, 'w' },
		{ "interval", required_argument, NULL, 'n' },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "no-pci", no_argument, NULL, OPT_NO_PCI },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "reset", required_argument, NULL, OPT_RESET },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->root = "/";
	o->interval = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jd:mwn:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'd':
			o->device = optarg;
			if (!strncmp(optarg, "model:", 6))
				o->model = true;
			break;
		case 'm':
			o->model = true;
			break;
		case 'w':
			o->watch = true;
			break;
		case 'n':
			errno = 0;
			o->interval = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(o->interval >= 0.1 && o->interval <= 3600)) {
				fprintf(stderr, "ipu-info: --interval '%s': not a number of seconds from 0.1 to 3600\n",
					optarg);
				return -1;
			}
			break;
		case OPT_COUNT:
			errno = 0;
			o->count = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->count < 1) {
				fprintf(stderr, "ipu-info: --count '%s': not a positive number\n",
					optarg);
				return -1;
			}
			break;
		case OPT_NO_PCI:
			o->no_pci = true;
			break;
		case OPT_RESET:
			o->reset = optarg;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_ROOT:
			if (!*optarg || strlen(optarg) > 200) {
				fprintf(stderr, "ipu-info: --root: a directory of at most 200 characters\n");
				return -1;
			}
			/* Else every file would be "missing": say why once. */
			if (access(optarg, R_OK | X_OK)) {
				fprintf(stderr, "ipu-info: --root '%s': %s\n",
					optarg, strerror(errno));
				return -1;
			}
			o->root = optarg;
			break;
		case 'V':
			printf("ipu-info %s (JSON schema version %d)\n",
			       IPU_INFO_VERSION, INFO_JSON_VERSION);
			return 1;
		case 'h':
			usage(stdout, program_invocation_short_name);
			return 1;
		case ':':
			fprintf(stderr, "ipu-info: option '%s' needs a value (see --help)\n",
				argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "ipu-info: unknown option '%s' (see --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ipu-info: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return -1;
	}
	if (o->count && !o->watch) {
		fprintf(stderr, "ipu-info: --count needs --watch\n");
		return -1;
	}
	if (o->force && !o->reset) {
		fprintf(stderr, "ipu-info: --force needs --reset\n");
		return -1;
	}
	if (o->reset && (o->json || o->model || o->watch || o->device ||
			 o->no_pci || o->interval != 1)) {
		fprintf(stderr, "ipu-info: --reset takes no other option but --force and --root\n");
		return -1;
	}
	return 0;
}

/* Every holder of @ipu was read, fdinfo and all: its time is whole. */
static bool usage_whole(const struct info_ipu *ipu)
{
	size_t i;

	if (ipu->model || !ipu->have_holders ||
	    ipu->nholders > INFO_MAX_HOLDERS)
		return false;
	for (i = 0; i < ipu->nholders; i++)
		if (!ipu->holders[i].have_usage)
			return false;
	return true;
}

/* The launch engine time of each IPU at the last --watch sample. */
static struct {
	bool taken;
	struct timespec at;
	size_t n;
	struct {
		char node[64];
		bool known;
		uint64_t launch_ns;
	} ipu[64];
} last;

/*
 * Each IPU's utilisation since the last sample: the growth of its
 * holders' drm-engine-launch over the time between. Only where every
 * holder could be read, fdinfo and all (as root, or one's own processes,
 * on an ipu.ko with the keys): another's launches would be missing. A file closed meanwhile takes its time with
 * it, so a negative growth is 0; launches of several files at once may
 * add up to more than the time between, so at most 100.
 */
static void usage_rates(struct info_report *rep)
{
	struct timespec now;
	double dt;
	size_t i, j;

	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = (now.tv_sec - last.at.tv_sec) * 1e9 +
	     (now.tv_nsec - last.at.tv_nsec);
	for (i = 0; i < rep->nipus; i++) {
		struct info_ipu *ipu = &rep->ipus[i];
		uint64_t t = info_launch_ns(ipu);

		if (!last.taken || !usage_whole(ipu) || dt <= 0)
			continue;
		for (j = 0; j < last.n; j++) {
			if (strcmp(last.ipu[j].node, ipu->node) ||
			    !last.ipu[j].known)
				continue;
			ipu->have_util = true;
			ipu->util_pct = t > last.ipu[j].launch_ns ?
				(double)(t - last.ipu[j].launch_ns) / dt * 100 : 0;
			if (ipu->util_pct > 100)
				ipu->util_pct = 100;
		}
	}
	last.taken = true;
	last.at = now;
	last.n = 0;
	for (i = 0; i < rep->nipus && last.n < 64; i++, last.n++) {
		snprintf(last.ipu[last.n].node, sizeof(last.ipu[last.n].node),
			 "%s", rep->ipus[i].node);
		last.ipu[last.n].known = usage_whole(&rep->ipus[i]);
		last.ipu[last.n].launch_ns = info_launch_ns(&rep->ipus[i]);
	}
}

/* One report, printed as asked; 0, 1 (the device of -d is missing), or
 * EXIT_NO_IPU (nothing listed). */
static int report(FILE *f, const struct options *o, unsigned int width)
{
	const struct info_ipu *ipu = NULL;
	const struct info_pci *pci = NULL;
	struct info_report rep;
	int err, st = 0;

	err = info_collect(o->root, (o->model ? INFO_MODEL : 0) |
			   (o->no_pci ? INFO_NO_PCI : 0), &rep);
	if (err) {
		fprintf(stderr, "ipu-info: %s\n", strerror(-err));
		info_report_free(&rep);
		return 1;
	}
	if (o->watch)
		usage_rates(&rep);
	if (o->device) {
		ipu = info_find(&rep, o->device);
		pci = ipu ? NULL : info_find_unbound(&rep, o->device);
		if (!ipu && !pci) {
			if (rep.nipus || rep.nunbound)
				fprintf(stderr, "ipu-info: no IPU '%s' among the %zu listed (name one as N, ipuN, /dev/ipuN, model:N, or the PCI address of a function without /dev/ipuN; run ipu-info%s to see them)\n",
					o->device, rep.nipus + rep.nunbound,
					o->model ? " --model" : "");
			else
				fprintf(stderr, "ipu-info: no IPU '%s': none listed (%s)\n",
					o->device, rep.nnotes ? rep.notes[0] :
					"is ipu.ko loaded?");
			st = 1;
		}
	}
	if (!st) {
		if (o->json)
			info_print_json(f, &rep, ipu, pci);
		else if (ipu)
			info_print_details(f, &rep, ipu);
		else if (pci)
			info_print_pci_details(f, &rep, pci);
		else
			info_print_table(f, &rep, width);
		if (!rep.nipus && !rep.nunbound)
			st = EXIT_NO_IPU;
	}
	info_report_free(&rep);
	return st;
}

/*
 * One report as a line of JSON Lines, with the time it was taken first:
 * the report's own layout is joined (its strings escape every control
 * character, so a newline in it is only layout).
 */
static int report_json_line(const struct options *o)
{
	char *buf = NULL, stamp[32], frac[16];
	struct timespec now;
	size_t len = 0;
	const char *p;
	struct tm tm;
	FILE *m;
	int st;

	clock_gettime(CLOCK_REALTIME, &now);
	m = open_memstream(&buf, &len);
	if (!m)
		return 1;
	st = report(m, o, 0);
	if (fclose(m) || !buf) {
		free(buf);
		return 1;
	}
	if (buf[0] == '{') {
		gmtime_r(&now.tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(frac, sizeof(frac), ".%03dZ", (int)(now.tv_nsec / 1000000));
		printf("{\"timestamp\": \"%s%s\", ", stamp, frac);
		for (p = buf + 1; *p; p++) {
			if (*p != '\n') {
				putchar(*p);
				continue;
			}
			while (p[1] == ' ')
				p++;
		}
		putchar('\n');
	}
	free(buf);
	return st;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_winch(int sig)
{
	(void)sig;
}

static void term_size(unsigned int *cols, unsigned int *rows)
{
	struct winsize ws;

	*cols = 80;
	*rows = 24;
	/* Below 3 rows nothing useful fits; keep the arithmetic sane. */
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col && ws.ws_row >= 3) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}

/*
 * One refresh on a terminal: the frame is made in memory and written at
 * once, from the top left, each line clearing its own rest and the frame
 * clearing below it: nothing is erased before it is redrawn, so nothing
 * flickers. Lines are cut at the terminal's width and the frame at its
 * height, so it never scrolls.
 */
static int draw_frame(const struct options *o)
{
	unsigned int cols, rows, line = 0, total = 0, shown;
	char *buf = NULL, *frame = NULL, *p, *nl, stamp[64];
	size_t len = 0, flen = 0;
	time_t now = time(NULL);
	FILE *m, *out;
	int st;

	term_size(&cols, &rows);
	m = open_memstream(&buf, &len);
	if (!m)
		return 1;
	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
	fprintf(m, "ipu-info  every %g s  %s  (Ctrl-C to quit)\n\n",
		o->interval, stamp);
	st = report(m, o, cols);
	fclose(m);
	out = open_memstream(&frame, &flen);
	if (!out) {
		free(buf);
		return 1;
	}
	for (p = buf; *p; p++)
		total += *p == '\n';
	/* Too tall: the last line that fits says what was left out. */
	shown = total < rows ? total : rows - 2;
	fputs("\033[H", out);
	for (p = buf; *p && line < shown; p = nl + 1, line++) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		fprintf(out, "%.*s\033[K\n",
			(int)((size_t)(nl - p) < cols ? (size_t)(nl - p) : cols),
			p);
	}
	if (shown < total)
		fprintf(out, "(%u more lines: a taller terminal shows them)\033[K\n",
			total - shown);
	fputs("\033[J", out);
	fclose(out);
	if (fwrite(frame, 1, flen, stdout) != flen)
		st = 1;
	fflush(stdout);
	free(frame);
	free(buf);
	return st;
}

static int watch(const struct options *o)
{
	bool tty = isatty(STDOUT_FILENO) && !o->json;
	struct sigaction sa;
	struct timespec ts;
	long n;
	int st = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A resized terminal cuts the wait short: the next frame fits it. */
	sa.sa_handler = on_winch;
	if (tty)
		sigaction(SIGWINCH, &sa, NULL);
	/* The alternate screen, as top uses: the shell's screen comes back. */
	if (tty)
		fputs("\033[?1049h\033[?25l\033[2J", stdout);
	for (n = 0; !stop && (!o->count || n < o->count); n++) {
		if (n) {
			ts.tv_sec = (time_t)o->interval;
			ts.tv_nsec = (long)((o->interval - ts.tv_sec) * 1e9);
			/* A signal cuts the wait short, and stop says why. */
			nanosleep(&ts, NULL);
			if (stop)
				break;
		}
		if (tty) {
			st = draw_frame(o);
		} else if (o->json) {
			st = report_json_line(o);
			fflush(stdout);
		} else {
			/* A pipe or a file: one report after another. */
			if (n)
				putchar('\n');
			st = report(stdout, o, 0);
			fflush(stdout);
		}
		/* None found now may be one plugged in later: keep watching. */
		if (st && st != EXIT_NO_IPU)
			break;
	}
	if (tty) {
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
	}
	return st;
}

int main(int argc, char **argv)
{
	struct options o;
	unsigned int cols, rows;
	int r;

	r = parse_args(argc, argv, &o);
	if (r)
		return r > 0 ? 0 : 2;
	if (o.reset)
		return info_reset(o.root, o.reset, o.force);
	if (o.watch)
		return watch(&o);
	/* The table fits a terminal; piped, it is whole. */
	cols = 0;
	if (isatty(STDOUT_FILENO))
		term_size(&cols, &rows);
	return report(stdout, &o, cols);
}
