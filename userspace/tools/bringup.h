/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * bringup.h - ipu-bringup: the validation suite run on a new board.
 *
 * Named checks (enumerate, pcie-link, firmware, interrupts, dma, memory,
 * compute, replicas, reset, stress, telemetry), each giving every tested
 * IPU a PASS, WARN, FAIL or SKIP with a reason and its figures. What the
 * machine has comes from ipu-info's gathering (info.h: sysfs, libpci,
 * hwmon); everything the checks do to a device goes through libipu
 * (include/ipu/ipu.h), the same path applications take. One file per
 * check (bringup_<check>.c); ipu-bringup.c selects devices,
 * bringup_jobs.c runs the checks on them (one or several IPUs at once),
 * bringup_report.c prints (docs/ipu-bringup.md).
 */
#ifndef IPU_TOOLS_BRINGUP_H
#define IPU_TOOLS_BRINGUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ipu/ipu.h>

#include "info.h"

/* Version of the JSON report (docs/ipu-bringup.md); bump on any change
 * an existing reader could misread (a removed or retyped member). */
#define BU_JSON_VERSION 1

#define IPU_BRINGUP_VERSION "1.1"

#define BU_REASON_LEN 256
#define BU_MAX_FIGS 16

enum bu_status { BU_PASS, BU_WARN, BU_FAIL, BU_SKIP };

/* A measured figure: "h2d_bandwidth" 812.5 "MB/s". */
struct bu_fig {
	char name[32];
	double value;
	char unit[12];
};

/* The outcome of one check on one IPU (or on all, for "replicas"). */
struct bu_result {
	const char *check;
	char device[32];	/* "hw:0", "model:1"; "all" for replicas */
	enum bu_status status;
	char reason[BU_REASON_LEN];
	size_t nfigs;
	struct bu_fig figs[BU_MAX_FIGS];
	double seconds;		/* how long the check took */
};

/* An IPU under test. */
struct bu_dev {
	char name[32];		/* libipu's name: "hw:N" or "model:N" */
	const struct info_ipu *ipu;	/* what ipu-info gathered */
	/* A function with an IPU's IDs that no /dev/ipuN stands for (the
	 * driver did not bind, or its probe failed): @ipu and @dev NULL. */
	const struct info_pci *unbound;
	struct ipu_device *dev;	/* open and attached; NULL if that failed */
	char open_err[160];	/* why @dev is NULL */
	struct ipu_device_info info;	/* ipu_device_query() after opening */
	/* Sensor readings taken under load (stress), for telemetry. */
	unsigned int load_samples;
	long long load_temp_mc[2], load_power_uw[2];	/* min, max */
};

struct bu_opts {
	bool quick, model;
	bool json;		/* the JSON report on stdout instead of the lines */
	const char *json_file;	/* --json FILE: the JSON there, lines on stdout */
	const char *devices;	/* --device, comma-separated; NULL: default */
	const char *tests;	/* --test, comma-separated; NULL: all */
	const char *log;	/* --log FILE */
	double stress_s;	/* --stress-seconds */
	uint64_t mem_limit;	/* --mem-limit bytes per IPU; 0: default */
	/* dma's thresholds: per cent of the link's payload rate, one way
	 * (--dma-pass, --dma-warn; bringup_link.h has the defaults). */
	double dma_pass, dma_warn;
	unsigned int jobs;	/* -j: IPUs tested at once; 1: one after another */
	int argc;		/* the command line, for the report */
	char **argv;
};

/* What the report says about the run, for an engineer to file it. */
struct bu_env {
	char host[256];		/* uname's nodename */
	char kernel[128];	/* uname's release */
	/* /sys/module/ipu/version, else "srcversion HASH", else "unknown";
	 * "" when ipu.ko is not loaded. */
	char driver[64];
	char started[32];	/* UTC, ISO 8601: "2026-12-06T20:08:58Z" */
};

struct bu_ctx {
	struct bu_opts o;
	struct bu_env env;
	struct info_report rep;
	size_t ndevs;
	struct bu_dev *devs;
	FILE *out;		/* the report: stdout */
	FILE *log;		/* --log, or NULL */
	bool tty;		/* @out is a terminal: progress bars */
	bool bar_shown;		/* a progress bar is on the current line */
	const char *current;	/* the check running, for the bar */
	const char *current_dev;	/* and the IPU it runs on */
	bool interrupted;	/* SIGINT or SIGTERM came: the report is partial */
	/* --jobs above 1: the IPUs' shared progress lines and results
	 * (bringup_jobs.c), and the IPU of this thread's checks; NULL when
	 * one IPU is tested at a time. */
	struct bu_jobs *jobs;
	size_t job_dev;
	size_t nresults;
	struct bu_result *results;
};

/* A check: on one IPU (@dev), or on all of them at once (@dev NULL). */
struct bu_check {
	const char *name;
	const char *what;	/* one line for --list and --help */
	bool all_devices;	/* runs once over every IPU (replicas) */
	void (*run)(struct bu_ctx *ctx, struct bu_dev *dev,
		    struct bu_result *r);
};

extern const struct bu_check bu_checks[];
extern const size_t bu_nchecks;

/* Setting a result: the status and the reason (printf-style). */
void bu_set(struct bu_result *r, enum bu_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A failure overrides a warning, which overrides a pass: the worst wins,
 * and only the first reason of that status is kept. */
void bu_worse(struct bu_result *r, enum bu_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void bu_fig(struct bu_result *r, const char *name, double value,
	    const char *unit);
const char *bu_status_name(enum bu_status st);

/* Progress of a long check, @done of @total (a bar on a terminal). */
void bu_progress(struct bu_ctx *ctx, uint64_t done, uint64_t total);
/* Output of the results (bringup_report.c). */
void bu_print_result(struct bu_ctx *ctx, const struct bu_result *r);
void bu_print_summary(struct bu_ctx *ctx);
void bu_print_json(struct bu_ctx *ctx, FILE *f);
/*
 * Run @checks (in their usual order) on ctx->devs, ctx->o.jobs IPUs at
 * once, appending to ctx->results in the order of a run of one job and
 * printing each result when those before it are printed
 * (bringup_jobs.c). Sets ctx->interrupted.
 */
void bu_run_checks(struct bu_ctx *ctx, const struct bu_check *const *checks,
		   size_t nchecks);
/* With jobs: @line is the progress of this thread's IPU, redrawn. */
void bu_jobs_progress(struct bu_ctx *ctx, const char *line);
/* The run's header: host, kernel, versions, time, devices (not for --json). */
void bu_print_header(struct bu_ctx *ctx);
/* A line into the --log file (and nowhere else), printf-style. */
void bu_log(struct bu_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The checks, one file each (bringup_*.c). */
void bu_enumerate(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r);
void bu_pcie_link(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r);
void bu_firmware(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r);
void bu_interrupts(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r);
void bu_dma(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r);
void bu_memory(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r);
void bu_compute(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r);
void bu_replicas(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r);
void bu_reset(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r);
void bu_stress(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r);
void bu_telemetry(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r);
/*
 * The sensors of @d now (hwmon of a PCI IPU): false when it has none.
 * @temp_mc, @power_uw: -1 for one it lacks.
 */
bool bu_sensors(const struct bu_dev *d, long long *temp_mc, long long *power_uw);

/*
 * Whether SIGINT or SIGTERM came: a long check stops at its next step
 * (its result is then replaced by an "interrupted" SKIP), and no further
 * check starts. Async-signal-safe to set, cheap to poll.
 */
bool bu_interrupted(void);

/* Seconds on CLOCK_MONOTONIC. */
double bu_now(void);
/* Deterministic pseudo-random bytes (xorshift) from @seed. */
void bu_fill(void *buf, size_t len, uint64_t seed);
/* The index of the first byte that differs, or -1. */
long long bu_diff(const void *a, const void *b, size_t len);
/* The device can run programs (GET_INFO's IPU_FEATURE_LAUNCH). */
bool bu_can_launch(const struct bu_dev *d);
/* The PCI function of @d, or NULL. */
const struct info_pci *bu_pci(const struct bu_dev *d);
/*
 * Whether @d is open; if not, @r says why: SKIP for an unbound function
 * (enumerate and firmware tell what is wrong with it), else FAIL.
 */
bool bu_need_open(struct bu_dev *d, struct bu_result *r);

/*
 * Known-answer programs (bringup_prog.c): built with the IR, run on the
 * device under test and on a software model in this process, outputs
 * compared bit for bit.
 */
struct bu_prog;
struct bu_run;

/* A small MLP layer over @nrep replicas (all-reduce when > 1). */
int bu_prog_build(uint32_t nrep, struct bu_prog **pp, char *msg,
		  size_t msglen);
void bu_prog_free(struct bu_prog *p);
/* Bytes of the program's input (per replica) and output (per replica). */
size_t bu_prog_in_bytes(const struct bu_prog *p);
size_t bu_prog_out_bytes(const struct bu_prog *p);
/*
 * Load @p on @devs (one per replica; attached), run it once with @in
 * (nrep inputs back to back) and write the outputs to @out. @timeout_s
 * bounds the wait: a launch that has not completed by then is a hang
 * (-ETIMEDOUT, the queue is left to the caller's reset). 0, or -errno
 * with @msg saying what failed.
 */
int bu_prog_run(const struct bu_prog *p, struct ipu_device *const *devs,
		const void *in, void *out, double timeout_s, char *msg,
		size_t msglen);
/*
 * The same on the software model of this process (model:0..nrep-1 of a
 * small model configured for it): the expected answer.
 */
int bu_prog_expect(const struct bu_prog *p, const void *in, void *out,
		   char *msg, size_t msglen);
/* How long a launch may take on @d before it counts as hung. */
double bu_launch_timeout(const struct bu_dev *d);

#endif /* IPU_TOOLS_BRINGUP_H */
