// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * main.c - ipu-simd: the firmware daemon of the kernel's simulated IPUs.
 *
 *	ipu-simd [--devices ipu0,ipu1] [--group-timeout-ms MS] [-v] [--help]
 *
 * Serves every simulated IPU (/sys/class/ipu/ipuN/platform is "sim"), or
 * those named. The main thread owns the list of devices; it waits for
 * signals with a timeout, and on each tick fails replicated runs that
 * waited too long for a replica, cancels runs whose device was reset
 * under them (run.c) and, every SIMD_SCAN_TICKS ticks
 * or on SIGHUP, looks for devices that appeared and drops those whose
 * thread ended (removed). SIGTERM and SIGINT stop it: device threads are
 * woken (SIGUSR1 interrupts FW_NEXT), runs still waiting are cancelled,
 * and it exits 0.
 *
 * Every thread ipu-simd starts blocks the stop and rescan signals, so
 * sigtimedwait() in the main thread receives them; SIGBUS is left to
 * guard.c's handler in every thread. Threads started before main() by
 * libraries (OpenBLAS's pool) do not block them, and the kernel may
 * deliver a process-directed signal to one of those: handlers catch it
 * there and set a flag the main thread looks at on its next tick, rather
 * than let the default action kill the daemon.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "simd.h"

#define SYSFS_CLASS "/sys/class/ipu"
#define CAP_SYS_ADMIN_BIT 21

struct simd_opts simd_opts;

static bool stopping;
static struct simd_dev *devs[SIMD_MAX_DEVS];
/* --devices: which ipuN to serve (all simulated ones when none given). */
static uint64_t only;
/* Devices already reported as taken by another firmware. */
static uint64_t busy_said;

bool simd_stopping(void)
{
	return __atomic_load_n(&stopping, __ATOMIC_ACQUIRE);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ipu-simd [--devices ipu0,ipu1] [--group-timeout-ms MS] [-v] [--help]\n"
		"\n"
		"The firmware of the kernel's simulated IPUs (ipu.ko): attaches to each\n"
		"simulated /dev/ipuN as its firmware, takes its launches and runs them\n"
		"with the firmware executor. Needs root (CAP_SYS_ADMIN).\n"
		"\n"
		"  -d, --devices LIST       serve only these devices (default: every\n"
		"                           simulated one, including ones added later)\n"
		"  -t, --group-timeout-ms MS  fail a replicated run whose replicas have\n"
		"                           not all come within MS (default: half of\n"
		"                           /sys/module/ipu/parameters/launch_timeout_ms)\n"
		"  -v, --verbose            log every launch\n"
		"  -h, --help               this text\n"
		"\n"
		"SIGHUP looks for new devices at once (they are also found within a\n"
		"second); SIGTERM or SIGINT stop the daemon.\n");
}

/* "ipu0,ipu3" into the bit set @only. */
static int parse_devices(const char *arg)
{
	const char *p = arg;
	unsigned long n;
	char *end;

	while (*p) {
		if (strncmp(p, "ipu", 3) || p[3] < '0' || p[3] > '9')
			return -EINVAL;
		errno = 0;
		n = strtoul(p + 3, &end, 10);
		if (errno || n >= SIMD_MAX_DEVS || (*end && *end != ','))
			return -EINVAL;
		only |= 1ull << n;
		p = *end ? end + 1 : end;
	}
	return only ? 0 : -EINVAL;
}

/* Whether the process may attach as firmware (CAP_SYS_ADMIN in CapEff). */
static bool have_cap_sys_admin(void)
{
	unsigned long long caps = 0;
	char line[256];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/status", "re");
	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			found = true;
			break;
		}
	}
	fclose(f);
	if (!found)
		return geteuid() == 0;
	return caps & (1ull << CAP_SYS_ADMIN_BIT);
}

static bool is_sim(unsigned int n)
{
	char path[PATH_MAX], buf[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), SYSFS_CLASS "/ipu%u/platform", n);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return !strcmp(buf, "sim\n") || !strcmp(buf, "sim");
}

/* Serve a device found in sysfs. Returns -EPERM when we may not. */
static int add_device(unsigned int n)
{
	struct simd_dev *dev;
	int err;

	err = simd_dev_open(n, &dev);
	if (!err) {
		devs[n] = dev;
		busy_said &= ~(1ull << n);
		simd_info("ipu%u: serving (%llu MiB of device memory)", n,
			  (unsigned long long)(dev->mem_size >> 20));
		return 0;
	}
	switch (err) {
	case -EPERM:
	case -EACCES:
		simd_info("ipu%u: attaching as its firmware needs root (CAP_SYS_ADMIN): %s",
			  n, strerror(-err));
		return -EPERM;
	case -EBUSY:
		if (!(busy_said & (1ull << n)))
			simd_info("ipu%u: another firmware is attached; will try again",
				  n);
		busy_said |= 1ull << n;
		return 0;
	case -ENOENT:
	case -ENODEV:
		return 0; /* removed while we looked */
	default:
		simd_info("ipu%u: cannot serve it: %s", n, strerror(-err));
		return 0;
	}
}

/* Drop devices whose thread ended: removed (or gave up). */
static void reap_devices(void)
{
	unsigned int n;

	for (n = 0; n < SIMD_MAX_DEVS; n++) {
		if (devs[n] && __atomic_load_n(&devs[n]->done, __ATOMIC_ACQUIRE)) {
			simd_dev_join(devs[n]);
			simd_dev_put(devs[n]);
			devs[n] = NULL;
		}
	}
}

static int scan(void)
{
	struct dirent *de;
	unsigned int n;
	char c;
	DIR *d;
	int err = 0;

	reap_devices();
	d = opendir(SYSFS_CLASS);
	if (!d)
		return 0; /* no module loaded (yet) */
	while (!err && (de = readdir(d))) {
		if (sscanf(de->d_name, "ipu%u%c", &n, &c) != 1 ||
		    n >= SIMD_MAX_DEVS || devs[n])
			continue;
		if (only && !(only & (1ull << n)))
			continue;
		if (is_sim(n))
			err = add_device(n);
	}
	closedir(d);
	return err;
}

static void on_usr1(int sig)
{
	(void)sig; /* only interrupts a blocking FW_NEXT */
}

/* Stop and rescan requests that reached a thread other than main's. */
static volatile sig_atomic_t term_caught, hup_caught;

static void on_request(int sig)
{
	if (sig == SIGHUP)
		hup_caught = 1;
	else
		term_caught = 1;
}

static int setup_signals(sigset_t *waited)
{
	struct sigaction sa;
	int err;

	err = simd_guard_install();
	if (err)
		return err;
	/* No SA_RESTART: FW_NEXT must return -EINTR to a kicked thread. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return -errno;
	sa.sa_handler = on_request;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -errno;
	sigemptyset(waited);
	sigaddset(waited, SIGTERM);
	sigaddset(waited, SIGINT);
	sigaddset(waited, SIGHUP);
	/* Blocked before any thread exists, so every thread inherits it. */
	return -pthread_sigmask(SIG_BLOCK, waited, NULL);
}

static void shutdown_all(void)
{
	unsigned int n;

	__atomic_store_n(&stopping, true, __ATOMIC_RELEASE);
	for (n = 0; n < SIMD_MAX_DEVS; n++)
		if (devs[n])
			simd_dev_kick(devs[n]);
	for (n = 0; n < SIMD_MAX_DEVS; n++)
		if (devs[n])
			simd_dev_join(devs[n]);
	/* No thread takes launches any more: cancel the runs left waiting. */
	simd_run_expire(true);
	for (n = 0; n < SIMD_MAX_DEVS; n++) {
		simd_dev_put(devs[n]);
		devs[n] = NULL;
	}
	simd_cache_drain();
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "devices", required_argument, NULL, 'd' },
		{ "group-timeout-ms", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct timespec tick = { 0, SIMD_TICK_MS * 1000000L };
	unsigned long ms;
	unsigned int ticks = 0;
	sigset_t waited;
	siginfo_t si;
	char *end;
	int opt, sig, err;

	while ((opt = getopt_long(argc, argv, "d:t:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (parse_devices(optarg)) {
				fprintf(stderr, "ipu-simd: --devices: expected names like ipu0,ipu1 (N < %d), got \"%s\"\n",
					SIMD_MAX_DEVS, optarg);
				return 2;
			}
			break;
		case 't':
			errno = 0;
			ms = strtoul(optarg, &end, 10);
			if (errno || *end || !ms || ms > UINT_MAX || optarg[0] == '-') {
				fprintf(stderr, "ipu-simd: --group-timeout-ms: expected a positive number of ms, got \"%s\"\n",
					optarg);
				return 2;
			}
			simd_opts.group_timeout_ms = (unsigned int)ms;
			break;
		case 'v':
			simd_opts.verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ipu-simd: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!have_cap_sys_admin()) {
		fprintf(stderr, "ipu-simd: must run as root: attaching as a simulated IPU's firmware needs CAP_SYS_ADMIN\n");
		return 1;
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	err = setup_signals(&waited);
	if (err) {
		fprintf(stderr, "ipu-simd: setting up signals: %s\n", strerror(-err));
		return 1;
	}

	simd_info("started (pid %d)", (int)getpid());
	err = scan();
	while (!err) {
		sig = sigtimedwait(&waited, &si, &tick);
		if (sig == SIGTERM || sig == SIGINT || term_caught)
			break;
		simd_run_expire(false);
		simd_run_watch();
		if (sig == SIGHUP || hup_caught || ++ticks % SIMD_SCAN_TICKS == 0) {
			hup_caught = 0;
			err = scan();
		}
	}
	shutdown_all();
	if (err) {
		simd_info("stopped: no permission to serve the devices");
		return 1;
	}
	simd_info("stopped");
	return 0;
}
