// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bringup_report.c - how ipu-bringup tells what it found: a result per
 * line ("PASS  dma         hw:0  reason  [figures]"), a progress bar
 * for long checks when the report goes to a terminal (plain lines
 * otherwise: a log must not fill with carriage returns), a summary, the
 * JSON report (docs/ipu-bringup.md) and the --log file, which gets every
 * line and the details the checks log.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "bringup.h"

#define BAR_WIDTH 30

static const char *const status_names[] = {
	[BU_PASS] = "PASS", [BU_WARN] = "WARN",
	[BU_FAIL] = "FAIL", [BU_SKIP] = "SKIP",
};

const char *bu_status_name(enum bu_status st)
{
	return status_names[st];
}

static void vset(struct bu_result *r, enum bu_status st, const char *fmt,
		 va_list ap)
{
	r->status = st;
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
}

void bu_set(struct bu_result *r, enum bu_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(r, st, fmt, ap);
	va_end(ap);
}

/* PASS < SKIP < WARN < FAIL: how bad a status is. */
static int rank(enum bu_status st)
{
	static const int ranks[] = {
		[BU_PASS] = 0, [BU_SKIP] = 1, [BU_WARN] = 2, [BU_FAIL] = 3,
	};

	return ranks[st];
}

void bu_worse(struct bu_result *r, enum bu_status st, const char *fmt, ...)
{
	va_list ap;

	if (rank(st) <= rank(r->status) && r->reason[0])
		return;
	va_start(ap, fmt);
	vset(r, st, fmt, ap);
	va_end(ap);
}

void bu_fig(struct bu_result *r, const char *name, double value,
	    const char *unit)
{
	struct bu_fig *f;

	if (r->nfigs >= BU_MAX_FIGS)
		return;
	f = &r->figs[r->nfigs++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->value = value;
	snprintf(f->unit, sizeof(f->unit), "%s", unit);
}

void bu_log(struct bu_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (!ctx->log)
		return;
	/* Whole lines, whatever the other jobs write meanwhile. */
	flockfile(ctx->log);
	va_start(ap, fmt);
	vfprintf(ctx->log, fmt, ap);
	va_end(ap);
	fputc('\n', ctx->log);
	fflush(ctx->log);
	funlockfile(ctx->log);
}

static void clear_bar(struct bu_ctx *ctx)
{
	if (!ctx->bar_shown)
		return;
	fputs("\r\033[K", ctx->out);
	ctx->bar_shown = false;
}

void bu_progress(struct bu_ctx *ctx, uint64_t done, uint64_t total)
{
	char bar[BAR_WIDTH + 1], line[128];
	unsigned int fill, i;

	if (!ctx->tty || ctx->o.json || !total)
		return;
	if (done > total)
		done = total;
	fill = (unsigned int)(done * BAR_WIDTH / total);
	for (i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[BAR_WIDTH] = '\0';
	snprintf(line, sizeof(line), "      %-11s %-8s [%s] %3u%%", ctx->current,
		 ctx->current_dev ? ctx->current_dev : "", bar,
		 (unsigned int)(done * 100 / total));
	/* Several IPUs at once: a line each, below the results. */
	if (ctx->jobs) {
		bu_jobs_progress(ctx, line);
		return;
	}
	fprintf(ctx->out, "\r\033[K%s", line);
	fflush(ctx->out);
	ctx->bar_shown = true;
}

/*
 * A figure's value for people: whole numbers whole, large ones to the
 * unit, others to 4 significant digits (the JSON has every digit).
 */
static void value_str(double v, char *buf, size_t len)
{
	if (v == (double)(long long)v && v < 1e15 && v > -1e15)
		snprintf(buf, len, "%lld", (long long)v);
	else if (v >= 1000 && v < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

/* " [h2d_bandwidth=812.5 MB/s, ...]" */
static void figs_str(const struct bu_result *r, char *buf, size_t len)
{
	char v[32];
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < r->nfigs && n < len; i++) {
		value_str(r->figs[i].value, v, sizeof(v));
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s%s%s",
				      i ? ", " : " [", r->figs[i].name, v,
				      r->figs[i].unit[0] ? " " : "",
				      r->figs[i].unit);
	}
	if (r->nfigs && n < len)
		snprintf(buf + n, len - n, "]");
}

void bu_print_result(struct bu_ctx *ctx, const struct bu_result *r)
{
	char figs[1024];

	figs_str(r, figs, sizeof(figs));
	clear_bar(ctx);
	if (!ctx->o.json) {
		fprintf(ctx->out, "%s  %-11s %-8s %s%s\n",
			bu_status_name(r->status), r->check, r->device,
			r->reason, figs);
		fflush(ctx->out);
	}
	bu_log(ctx, "%s  %-11s %-8s %s%s (%.2f s)", bu_status_name(r->status),
	       r->check, r->device, r->reason, figs, r->seconds);
}

static void count(const struct bu_ctx *ctx, size_t n[4])
{
	size_t i;

	memset(n, 0, 4 * sizeof(*n));
	for (i = 0; i < ctx->nresults; i++)
		n[ctx->results[i].status]++;
}

/* The run's verdict: "interrupted" whatever finished, else by failures. */
static const char *verdict(const struct bu_ctx *ctx, const size_t n[4])
{
	if (ctx->interrupted)
		return "interrupted";
	return n[BU_FAIL] ? "fail" : "pass";
}

/* What a device is, for the header and the JSON: NULL members unknown. */
struct dev_facts {
	const char *platform, *pci, *firmware, *driver;
	char serial[24];
	long long api;		/* GET_INFO's api_version; -1 unknown */
};

static void dev_facts(const struct bu_dev *d, struct dev_facts *f)
{
	const struct info_pci *pci = bu_pci(d);

	memset(f, 0, sizeof(*f));
	f->platform = d->ipu ? d->ipu->platform : "pci";
	f->pci = pci ? pci->addr : NULL;
	f->driver = pci && pci->driver[0] ? pci->driver : NULL;
	f->firmware = d->ipu && d->ipu->have_fw ? d->ipu->firmware : NULL;
	f->api = d->ipu && d->ipu->have_ioctl ? (long long)d->ipu->api_version : -1;
	if (d->ipu && d->ipu->have_serial)
		snprintf(f->serial, sizeof(f->serial), "%016" PRIx64, d->ipu->serial);
	else if (pci && pci->have_dsn)
		snprintf(f->serial, sizeof(f->serial), "%016" PRIx64, pci->dsn);
}

static void header_line(struct bu_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A header line to the console (unless the JSON goes there) and the log. */
static void header_line(struct bu_ctx *ctx, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!ctx->o.json)
		fprintf(ctx->out, "%s\n", line);
	bu_log(ctx, "%s", line);
}

void bu_print_header(struct bu_ctx *ctx)
{
	struct dev_facts f;
	char cmd[512], api[24];
	size_t i, n = 0;
	int k;

	header_line(ctx, "ipu-bringup %s on %s, kernel %s, ipu.ko %s, %s",
		    IPU_BRINGUP_VERSION, ctx->env.host, ctx->env.kernel,
		    ctx->env.driver[0] ? ctx->env.driver : "not loaded",
		    ctx->env.started);
	cmd[0] = '\0';
	for (k = 1; k < ctx->o.argc && n < sizeof(cmd); k++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " %s", ctx->o.argv[k]);
	header_line(ctx, "options:%s", cmd[0] ? cmd : " (none)");
	for (i = 0; i < ctx->ndevs; i++) {
		dev_facts(&ctx->devs[i], &f);
		if (f.api < 0)
			snprintf(api, sizeof(api), "-");
		else
			snprintf(api, sizeof(api), "%lld", f.api);
		header_line(ctx, "device %s: %s, PCI %s, serial %s, firmware %s, driver %s, API %s",
			    ctx->devs[i].name, f.platform, f.pci ? f.pci : "-",
			    f.serial[0] ? f.serial : "-",
			    f.firmware ? f.firmware : "-", f.driver ? f.driver : "-",
			    api);
	}
	fflush(ctx->out);
}

void bu_print_summary(struct bu_ctx *ctx)
{
	char line[160];
	size_t n[4];

	count(ctx, n);
	snprintf(line, sizeof(line), "%zu passed, %zu warned, %zu failed, %zu skipped%s",
		 n[BU_PASS], n[BU_WARN], n[BU_FAIL], n[BU_SKIP],
		 ctx->interrupted ? ": interrupted" : "");
	if (!ctx->o.json)
		fprintf(ctx->out, "%s\n", line);
	bu_log(ctx, "%s", line);
}

static void json_result(FILE *f, const struct bu_result *r)
{
	size_t i;

	fputs("    {\"check\": ", f);
	info_json_str(f, r->check);
	fputs(", \"device\": ", f);
	info_json_str(f, r->device);
	fputs(", \"status\": ", f);
	info_json_str(f, bu_status_name(r->status));
	fputs(", \"reason\": ", f);
	info_json_str(f, r->reason);
	fprintf(f, ", \"seconds\": %.3f,\n     \"figures\": [", r->seconds);
	for (i = 0; i < r->nfigs; i++) {
		fputs(i ? ", " : "", f);
		fputs("{\"name\": ", f);
		info_json_str(f, r->figs[i].name);
		/* %.17g: the double back exactly; never inf or nan here. */
		fprintf(f, ", \"value\": %.17g, \"unit\": ", r->figs[i].value);
		info_json_str(f, r->figs[i].unit);
		fputc('}', f);
	}
	fputs("]}", f);
}

/* A string member, or null when @s is NULL or empty. */
static void json_str_or_null(FILE *f, const char *name, const char *s)
{
	fprintf(f, "\"%s\": ", name);
	if (s && s[0])
		info_json_str(f, s);
	else
		fputs("null", f);
}

static void json_env(struct bu_ctx *ctx, FILE *f)
{
	struct dev_facts df;
	size_t i;
	int k;

	fputs("  \"tool_version\": ", f);
	info_json_str(f, IPU_BRINGUP_VERSION);
	fputs(",\n  ", f);
	json_str_or_null(f, "host", ctx->env.host);
	fputs(", ", f);
	json_str_or_null(f, "kernel", ctx->env.kernel);
	fputs(", ", f);
	json_str_or_null(f, "driver_version", ctx->env.driver);
	fputs(",\n  ", f);
	json_str_or_null(f, "started", ctx->env.started);
	fputs(",\n  \"command\": [", f);
	for (k = 0; k < ctx->o.argc; k++) {
		fputs(k ? ", " : "", f);
		info_json_str(f, ctx->o.argv[k]);
	}
	fputs("],\n  \"device_info\": [", f);
	for (i = 0; i < ctx->ndevs; i++) {
		dev_facts(&ctx->devs[i], &df);
		fputs(i ? ",\n    {" : "\n    {", f);
		json_str_or_null(f, "name", ctx->devs[i].name);
		fputs(", ", f);
		json_str_or_null(f, "platform", df.platform);
		fputs(", ", f);
		json_str_or_null(f, "pci_address", df.pci);
		fputs(", ", f);
		json_str_or_null(f, "serial", df.serial);
		fputs(", ", f);
		json_str_or_null(f, "firmware", df.firmware);
		fputs(", ", f);
		json_str_or_null(f, "driver", df.driver);
		if (df.api < 0)
			fputs(", \"api_version\": null}", f);
		else
			fprintf(f, ", \"api_version\": %lld}", df.api);
	}
	fputs("],\n", f);
}

void bu_print_json(struct bu_ctx *ctx, FILE *f)
{
	size_t n[4], i;

	count(ctx, n);
	fprintf(f, "{\n  \"schema\": \"ipu-bringup\",\n  \"version\": %d,\n",
		BU_JSON_VERSION);
	json_env(ctx, f);
	fprintf(f, "  \"quick\": %s,\n  \"devices\": [", ctx->o.quick ? "true" : "false");
	for (i = 0; i < ctx->ndevs; i++) {
		fputs(i ? ", " : "", f);
		info_json_str(f, ctx->devs[i].name);
	}
	fputs("],\n  \"results\": [\n", f);
	for (i = 0; i < ctx->nresults; i++) {
		json_result(f, &ctx->results[i]);
		fputs(i + 1 < ctx->nresults ? ",\n" : "\n", f);
	}
	fprintf(f, "  ],\n  \"passed\": %zu, \"warned\": %zu, \"failed\": %zu, \"skipped\": %zu,\n",
		n[BU_PASS], n[BU_WARN], n[BU_FAIL], n[BU_SKIP]);
	fprintf(f, "  \"verdict\": \"%s\",\n", verdict(ctx, n));
	fprintf(f, "  \"ok\": %s\n}\n",
		n[BU_FAIL] || ctx->interrupted ? "false" : "true");
	fflush(f);
}
