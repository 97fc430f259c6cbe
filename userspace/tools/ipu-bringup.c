// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ipu-bringup - the validation suite a hardware lab runs on every new
 * board, and an operator on a host that misbehaves.
 *
 *	ipu-bringup [--device D[,D...]] [--model] [--test a,b] [--quick]
 *		    [--jobs N] [--json [FILE]] [--log FILE]
 *
 * Runs named checks (bu_checks[] below, each in bringup_<check>.c) on
 * every IPU selected: PASS, WARN, FAIL or SKIP, each with a reason and
 * its figures; a summary; the JSON report (docs/ipu-bringup.md). Devices:
 * ipu-info's (info.h) IPUs of ipu.ko; with --model: the software model's
 * first two. Without an IPU of ipu.ko the model is never tested unless
 * asked for: a PASS on the model would tell an operator that a host whose
 * driver never loaded is fine. A device is opened and attached through
 * libipu for the whole run, so nothing else uses it meanwhile.
 *
 * With --jobs N, N IPUs are tested at once, each in a thread of its own
 * (bringup_jobs.c), the report in the same order as one after another.
 *
 * SIGINT or SIGTERM stops the check in progress at its next step and
 * runs no other; the report (lines, summary, JSON) still comes, with what
 * finished and an "interrupted" verdict.
 *
 * Exit status: 0 when no check failed (warnings and skips allowed); 1
 * when one did, or a device named does not exist; 2 for a usage error;
 * 3 when there is no IPU of ipu.ko to test (and the model was not asked
 * for); 130 when interrupted.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bringup.h"
#include "bringup_link.h"

#define MAX_DEVS 64

/* Exit statuses besides 0, 1 (a check failed) and 2 (usage). */
#define EXIT_NO_IPU 3
#define EXIT_INTERRUPTED 130	/* 128 + SIGINT, as shells report it */

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

bool bu_interrupted(void)
{
	return stop_requested;
}

/*
 * SA_RESETHAND: a second Ctrl-C kills at once, for a check stuck in a
 * wait it cannot leave. SA_RESTART: a wait the signal cuts short would
 * otherwise fail the check with EINTR, a failure of ours, not the IPU's.
 */
static void catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}


/* In the order they run: each relies on what the ones before it showed. */
const struct bu_check bu_checks[] = {
	{ "enumerate", "driver bound, node present, IDs and BARs as the spec says",
	  false, bu_enumerate },
	{ "pcie-link", "link trained at its maximum speed and width (WARN below)",
	  false, bu_pcie_link },
	{ "firmware", "firmware booted and its version", false, bu_firmware },
	{ "interrupts", "every MSI-X vector fires", false, bu_interrupts },
	{ "dma", "data intact both ways, 1 byte to 64 MiB, odd alignments; bandwidth",
	  false, bu_dma },
	{ "memory", "walking ones, address-in-address, random: through DMA and mmap",
	  false, bu_memory },
	{ "compute", "known-answer launches, bit for bit against the host's model",
	  false, bu_compute },
	{ "replicas", "an all-reduce across all IPUs, against the host's model",
	  true, bu_replicas },
	{ "reset", "reset and recover, then compute again", false, bu_reset },
	{ "stress", "concurrent DMA and launches for a while", false, bu_stress },
	{ "telemetry", "sensors present and plausible under load", false,
	  bu_telemetry },
};

const size_t bu_nchecks = sizeof(bu_checks) / sizeof(bu_checks[0]);

double bu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void bu_fill(void *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!(i & 7)) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		p[i] = (unsigned char)(x >> (8 * (i & 7)));
	}
}

long long bu_diff(const void *a, const void *b, size_t len)
{
	const unsigned char *x = a, *y = b;
	size_t i;

	if (!memcmp(a, b, len))
		return -1;
	for (i = 0; x[i] == y[i]; i++)
		;
	return (long long)i;
}

bool bu_can_launch(const struct bu_dev *d)
{
	return d->dev && (d->info.caps & IPU_DEVICE_CAP_LAUNCH);
}

const struct info_pci *bu_pci(const struct bu_dev *d)
{
	if (d->unbound)
		return d->unbound;
	return d->ipu && d->ipu->have_pci ? &d->ipu->pci : NULL;
}

bool bu_need_open(struct bu_dev *d, struct bu_result *r)
{
	if (d->dev)
		return true;
	if (d->unbound)
		bu_set(r, BU_SKIP, "no /dev/ipuN for %s (see enumerate)", d->name);
	else
		bu_set(r, BU_FAIL, "cannot open %s: %s", d->name, d->open_err);
	return false;
}

static void usage(FILE *f, const char *prog)
{
	size_t i;

	fprintf(f,
		"usage: %s [--device D[,D...]] [--model] [--test CHECK[,CHECK...]] [--quick]\n"
		"       [--jobs N] [--json [FILE]] [--log FILE] [--stress-seconds S]\n"
		"       [--mem-limit MIB] [--dma-pass PCT] [--dma-warn PCT]\n"
		"\n"
		"Validate IPUs: run named checks, each PASS, WARN, FAIL or SKIP with a reason\n"
		"and its figures. Default devices: every /dev/ipuN and every PCI function with\n"
		"an IPU's IDs and no /dev/ipuN; none is a failure (exit status 3). The software\n"
		"model is tested only when asked for: --model, or --device model:N.\n"
		"\n"
		"  -d, --device D[,D]     IPUs to test: N, hw:N, ipuN, /dev/ipuN, model:N, or the PCI\n"
		"                         address of a function with no /dev/ipuN\n"
		"  -m, --model            the software model's IPUs (model:0, model:1)\n"
		"  -t, --test C[,C]       only these checks (below), in their usual order\n"
		"  -q, --quick            small sizes and short runs (seconds on the model)\n"
		"  -j, --jobs N           test N IPUs at once (default 1), as make -j; the report\n"
		"                         keeps their order. Changed in 1.1: -j was --json's\n"
		"  -J, --json [FILE]      the report as JSON (schema: docs/ipu-bringup.md) on\n"
		"                         stdout, or into FILE with the lines and summary on stdout\n"
		"  -l, --log FILE         every result and detail into FILE too\n"
		"      --stress-seconds S length of the stress check (default 10; quick 1)\n"
		"      --mem-limit MIB    device memory the memory check covers, per IPU\n"
		"                         (default all of it; the model's: 64 MiB, quick 4)\n"
		"      --dma-pass PCT     dma passes from PCT %% of the link's payload rate, one\n"
		"                         way (default %g; docs/ipu-bringup.md says why)\n"
		"      --dma-warn PCT     dma warns from PCT %%, fails below (default %g)\n"
		"      --list             the checks, one per line\n"
		"  -V, --version          the version and the JSON schema version\n"
		"  -h, --help             this text\n"
		"\nChecks:\n", prog, BU_DMA_PASS_PCT, BU_DMA_WARN_PCT);
	for (i = 0; i < bu_nchecks; i++)
		fprintf(f, "  %-11s %s\n", bu_checks[i].name, bu_checks[i].what);
	fprintf(f, "\nSIGINT or SIGTERM stops the check in progress; the report comes with what\n"
		"finished and an \"interrupted\" verdict.\n"
		"\nExit status: 0 when no check failed; 1 when one did or a device does\n"
		"not exist; 2 for a usage error; 3 when there is no IPU of ipu.ko (and the\n"
		"model was not asked for); 130 when interrupted.\n");
}

/* Whether @name is one of the comma-separated @list. */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (p && *p) {
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return false;
}

/* Every name of --test is a check; -1 (reported) if not. */
static int check_tests(const char *list, const char *prog)
{
	char buf[256], *tok, *save = NULL;
	size_t i;

	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf) || !buf[0])
		goto bad;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < bu_nchecks && strcmp(tok, bu_checks[i].name); i++)
			;
		if (i == bu_nchecks) {
			fprintf(stderr, "%s: no check named \"%s\" (--list shows them)\n",
				prog, tok);
			return -1;
		}
	}
	return 0;
bad:
	fprintf(stderr, "%s: --test: a comma-separated list of checks\n", prog);
	return -1;
}

static int parse_num(const char *s, double min, double max, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !(*v >= min && *v <= max) ? -1 : 0;
}

/* 0 to run, 1 after --help, --version or --list, -1 for a usage error. */
static int parse_args(int argc, char **argv, struct bu_opts *o)
{
	enum { OPT_STRESS = 256, OPT_MEM, OPT_LIST, OPT_DMA_PASS, OPT_DMA_WARN };
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "model", no_argument, NULL, 'm' },
		{ "test", required_argument, NULL, 't' },
		{ "quick", no_argument, NULL, 'q' },
		{ "json", optional_argument, NULL, 'J' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "dma-pass", required_argument, NULL, OPT_DMA_PASS },
		{ "dma-warn", required_argument, NULL, OPT_DMA_WARN },
		{ "log", required_argument, NULL, 'l' },
		{ "stress-seconds", required_argument, NULL, OPT_STRESS },
		{ "mem-limit", required_argument, NULL, OPT_MEM },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = program_invocation_short_name;
	unsigned int dma_set = 0;
	double v;
	size_t i;
	int c;

	o->argc = argc;
	o->argv = argv;
	while ((c = getopt_long(argc, argv, ":d:mt:qJ::j:l:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->devices = optarg; break;
		case 'm': o->model = true; break;
		case 't':
			if (check_tests(optarg, prog))
				return -1;
			o->tests = optarg;
			break;
		case 'q': o->quick = true; break;
		case 'j':
			if (parse_num(optarg, 1, MAX_DEVS, &v) || v != (unsigned int)v) {
				fprintf(stderr, "%s: --jobs: a number of IPUs, 1 to %d, not \"%s\"%s\n",
					prog, MAX_DEVS, optarg,
					parse_num(optarg, -1e9, 1e9, &v) ?
					" (-j is --jobs since 1.1; --json is -J)" : "");
				return -1;
			}
			o->jobs = (unsigned int)v;
			break;
		case OPT_DMA_PASS:
		case OPT_DMA_WARN:
			if (parse_num(optarg, 0, 1000, &v)) {
				fprintf(stderr, "%s: --%s: per cent of the link, 0 to 1000, not \"%s\"\n",
					prog, c == OPT_DMA_PASS ? "dma-pass" : "dma-warn", optarg);
				return -1;
			}
			*(c == OPT_DMA_PASS ? &o->dma_pass : &o->dma_warn) = v;
			dma_set |= c == OPT_DMA_PASS ? 1 : 2;
			break;
		case 'J':
			/* "--json FILE" as well as "--json=FILE": a word after
			 * --json that is not an option was a usage error
			 * before, so reading it as the file breaks no one. */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			if (optarg && !optarg[0]) {
				fprintf(stderr, "%s: --json: an empty file name\n", prog);
				return -1;
			}
			o->json = !optarg;
			o->json_file = optarg;
			break;
		case 'l': o->log = optarg; break;
		case OPT_STRESS:
			if (parse_num(optarg, 0.1, 86400, &o->stress_s)) {
				fprintf(stderr, "%s: --stress-seconds: 0.1 to 86400, not \"%s\"\n",
					prog, optarg);
				return -1;
			}
			break;
		case OPT_MEM:
			if (parse_num(optarg, 1, 1 << 30, &v)) {
				fprintf(stderr, "%s: --mem-limit: MiB, 1 or more, not \"%s\"\n",
					prog, optarg);
				return -1;
			}
			o->mem_limit = (uint64_t)v << 20;
			break;
		case OPT_LIST:
			for (i = 0; i < bu_nchecks; i++)
				printf("%s\n", bu_checks[i].name);
			return 1;
		case 'V':
			printf("ipu-bringup %s (JSON schema version %d)\n",
			       IPU_BRINGUP_VERSION, BU_JSON_VERSION);
			return 1;
		case 'h':
			usage(stdout, prog);
			return 1;
		case ':':
			fprintf(stderr, "%s: option %s needs a value\n", prog,
				argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "%s: unknown option %s\n", prog,
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument \"%s\"\n", prog,
			argv[optind]);
		return -1;
	}
	if (!o->stress_s)
		o->stress_s = o->quick ? 1 : 10;
	if (!o->jobs)
		o->jobs = 1;
	if (!(dma_set & 1))
		o->dma_pass = BU_DMA_PASS_PCT;
	if (!(dma_set & 2))
		o->dma_warn = o->dma_pass < BU_DMA_WARN_PCT ? o->dma_pass : BU_DMA_WARN_PCT;
	if (o->dma_warn > o->dma_pass) {
		fprintf(stderr, "%s: --dma-warn %g is above --dma-pass %g: a warning below a pass\n",
			prog, o->dma_warn, o->dma_pass);
		return -1;
	}
	return 0;
}

/* libipu's name of an IPU ipu-info found: "hw:N" or "model:N". */
static void lib_name(const struct info_ipu *ipu, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u", ipu->model ? "model" : "hw", ipu->index);
}

static int add_dev(struct bu_ctx *ctx, const struct info_ipu *ipu)
{
	IPU_OPTS(ipu_open_opts, oo, .flags = IPU_OPEN_ATTACH);
	struct bu_dev *d;
	size_t i;
	int err;

	for (i = 0; i < ctx->ndevs; i++)
		if (ctx->devs[i].ipu == ipu)
			return 0;
	if (ctx->ndevs >= MAX_DEVS)
		return -E2BIG;
	d = &ctx->devs[ctx->ndevs++];
	d->ipu = ipu;
	lib_name(ipu, d->name, sizeof(d->name));
	err = ipu_device_open(d->name, &oo, &d->dev);
	if (err) {
		snprintf(d->open_err, sizeof(d->open_err), "%s%s", ipu_errmsg(),
			 err == -EBUSY ? " (another process is attached: ipu-info shows which)" : "");
		d->dev = NULL;
		return 0;
	}
	d->info.sz = sizeof(d->info);
	err = ipu_device_query(d->dev, &d->info);
	if (err) {
		snprintf(d->open_err, sizeof(d->open_err), "query: %s", ipu_errmsg());
		ipu_device_close(d->dev);
		d->dev = NULL;
	}
	return 0;
}

static void add_unbound(struct bu_ctx *ctx, const struct info_pci *pci)
{
	struct bu_dev *d;

	if (ctx->ndevs >= MAX_DEVS)
		return;
	d = &ctx->devs[ctx->ndevs++];
	d->unbound = pci;
	snprintf(d->name, sizeof(d->name), "%s", pci->addr);
	snprintf(d->open_err, sizeof(d->open_err), "no /dev/ipuN");
}

/* The IPUs to test: -1 (reported) when one named does not exist. */
static int select_devices(struct bu_ctx *ctx, const char *prog)
{
	char buf[1024], *tok, *save = NULL;
	const struct info_ipu *ipu;
	const struct info_pci *pci;
	size_t i, n = 0;

	ctx->devs = calloc(MAX_DEVS, sizeof(*ctx->devs));
	if (!ctx->devs)
		return -1;
	if (ctx->o.devices) {
		snprintf(buf, sizeof(buf), "%s", ctx->o.devices);
		for (tok = strtok_r(buf, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			/* libipu's "hw:N", as the results name it, is N. */
			if (!strncmp(tok, "hw:", 3) && tok[3])
				tok += 3;
			ipu = info_find(&ctx->rep, tok);
			pci = ipu ? NULL : info_find_unbound(&ctx->rep, tok);
			if (pci) {
				add_unbound(ctx, pci);
				continue;
			}
			if (!ipu) {
				fprintf(stderr, "%s: no IPU \"%s\" (ipu-info lists them)\n",
					prog, tok);
				return -1;
			}
			add_dev(ctx, ipu);
		}
		return 0;
	}
	for (i = 0; i < ctx->rep.nipus; i++)
		if (!ctx->rep.ipus[i].model && !ctx->o.model)
			add_dev(ctx, &ctx->rep.ipus[i]);
	/* A board the driver did not take is what bring-up is about. */
	for (i = 0; i < ctx->rep.nunbound && !ctx->o.model; i++)
		add_unbound(ctx, &ctx->rep.unbound[i]);
	if (ctx->ndevs)
		return 0;
	if (!ctx->o.model) {
		fprintf(stderr, "%s: no IPU of ipu.ko to test (%s); --model tests the software model\n",
			prog, ctx->rep.nnotes ? ctx->rep.notes[0] : "is ipu.ko loaded?");
		bu_log(ctx, "no IPU of ipu.ko: nothing tested");
		return -EXIT_NO_IPU;
	}
	for (i = 0; i < ctx->rep.nipus && n < 2; i++)
		if (ctx->rep.ipus[i].model && ++n)
			add_dev(ctx, &ctx->rep.ipus[i]);
	if (!ctx->ndevs) {
		fprintf(stderr, "%s: no IPU to test\n", prog);
		return -1;
	}
	return 0;
}

/* The checks --test selects (all without it), in their usual order. */
static void run_checks(struct bu_ctx *ctx)
{
	const struct bu_check *sel[sizeof(bu_checks) / sizeof(bu_checks[0])];
	size_t i, n = 0;

	for (i = 0; i < bu_nchecks; i++)
		if (!ctx->o.tests || in_list(ctx->o.tests, bu_checks[i].name))
			sel[n++] = &bu_checks[i];
	bu_run_checks(ctx, sel, n);
}

/* Reads a short sysfs attribute into @buf; "" when it cannot. */
static void read_attr(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void gather_env(struct bu_env *env)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	if (!uname(&u)) {
		snprintf(env->host, sizeof(env->host), "%s", u.nodename);
		snprintf(env->kernel, sizeof(env->kernel), "%s", u.release);
	}
	/* ipu.ko has no MODULE_VERSION yet: its srcversion (a hash of its
	 * sources) tells builds apart, and "unknown" that it is loaded. */
	read_attr("/sys/module/ipu/version", env->driver, sizeof(env->driver));
	if (!env->driver[0]) {
		read_attr("/sys/module/ipu/srcversion", env->driver + 11,
			  sizeof(env->driver) - 11);
		if (env->driver[11])
			memcpy(env->driver, "srcversion ", 11);
		else if (!access("/sys/module/ipu", F_OK))
			snprintf(env->driver, sizeof(env->driver), "unknown");
	}
	if (gmtime_r(&now, &tm))
		strftime(env->started, sizeof(env->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int main(int argc, char **argv)
{
	const char *prog = program_invocation_short_name;
	struct bu_ctx ctx = { .out = stdout };
	unsigned int flags = 0;
	bool failed = false;
	FILE *json = NULL;
	size_t i;
	int ret;

	ret = parse_args(argc, argv, &ctx.o);
	if (ret)
		return ret > 0 ? 0 : 2;
	if (ctx.o.log) {
		ctx.log = fopen(ctx.o.log, "we");
		if (!ctx.log) {
			fprintf(stderr, "%s: --log %s: %s\n", prog, ctx.o.log,
				strerror(errno));
			return 1;
		}
	}
	/* Before any check: a bad path must not cost the run. */
	if (ctx.o.json_file) {
		json = fopen(ctx.o.json_file, "we");
		if (!json) {
			fprintf(stderr, "%s: --json %s: %s\n", prog,
				ctx.o.json_file, strerror(errno));
			if (ctx.log)
				fclose(ctx.log);
			return 1;
		}
	}
	catch_stop_signals();
	gather_env(&ctx.env);
	ctx.tty = isatty(STDOUT_FILENO);
	/* The model's IPUs are listed always, and picked only when asked
	 * for or when ipu.ko has none. */
	flags |= INFO_MODEL;
	if (info_collect("/", flags, &ctx.rep)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	for (i = 0; i < ctx.rep.nnotes; i++)
		bu_log(&ctx, "note: %s", ctx.rep.notes[i]);
	ret = select_devices(&ctx, prog);
	if (!ret) {
		ctx.results = calloc(bu_nchecks * (ctx.ndevs + 1),
				     sizeof(*ctx.results));
		ret = ctx.results ? 0 : -1;
	}
	if (!ret) {
		bu_print_header(&ctx);
		run_checks(&ctx);
		bu_print_summary(&ctx);
		if (ctx.o.json)
			bu_print_json(&ctx, stdout);
		if (json)
			bu_print_json(&ctx, json);
		for (i = 0; i < ctx.nresults; i++)
			failed |= ctx.results[i].status == BU_FAIL;
	}
	if (json && fclose(json)) {
		fprintf(stderr, "%s: --json %s: %s\n", prog, ctx.o.json_file,
			strerror(errno));
		ret = -1;
	}
	for (i = 0; ctx.devs && i < ctx.ndevs; i++)
		ipu_device_close(ctx.devs[i].dev);
	free(ctx.devs);
	free(ctx.results);
	info_report_free(&ctx.rep);
	if (ctx.log)
		fclose(ctx.log);
	if (ret == -EXIT_NO_IPU)
		return EXIT_NO_IPU;
	if (ctx.interrupted)
		return EXIT_INTERRUPTED;
	return ret || failed ? 1 : 0;
}
