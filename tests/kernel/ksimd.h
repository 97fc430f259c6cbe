/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksimd.h - kernel tests that need ipu-simd, the simulated IPUs' firmware.
 *
 * The guest (tests/kernel/guest-init) starts ipu-simd after insmod, serving
 * ipu0 and ipu1, logging to /tmp/ipu-simd.log, its pid in
 * /tmp/ipu-simd.pid. A test that launches programs calls ks_require_simd()
 * first: it skips where there is no ipu-simd (a build host) and starts it
 * again if an earlier test killed it. Tests that stop, kill or restart it,
 * or change launch_timeout_ms, use KS_TEST(), whose teardown puts both
 * back whatever happened: the daemon running (not stopped) and the
 * module's timeout as it was.
 *
 * On PCI IPUs (KT_ON_PCI) launches run on the device's command queue:
 * ks_require_simd() needs only the device, and ks_simd_stop() and
 * ks_simd_cont() hold and release the launches of every PCI IPU through
 * ipu-emu's hold_launches fault (docs/hardware.md section 11), as a
 * stopped firmware would; KS_TEST's teardown releases them.
 *
 * Waiting: the daemon says what it did in its log; ks_log_wait() polls
 * the log for a line, a bounded number of times with a short pause in
 * between (a poll on the condition, never a sleep standing in for one).
 */
#ifndef IPU_TESTS_KSIMD_H
#define IPU_TESTS_KSIMD_H

#include <time.h>

#include "ktest.h"
#ifdef KT_ON_PCI
#include "kemu.h"
#endif

#define KS_SIMD		"/usr/bin/ipu-simd"
#define KS_LOG		"/tmp/ipu-simd.log"
#define KS_PIDFILE	"/tmp/ipu-simd.pid"
#define KS_TIMEOUT	"/sys/module/ipu/parameters/launch_timeout_ms"
/* Polls of the log before giving up, and the pause between two. */
#define KS_POLLS	3000
#define KS_POLL_NS	10000000L /* 10 ms: 30 s in all, for TCG */

/* Launches are held on the PCI IPUs (ks_simd_stop() on PCI). */
static bool ks_held __attribute__((unused));

#ifdef KT_ON_PCI
/* Hold (@on) or release the launches of every PCI IPU of the rig. */
static inline void ks_hold(bool on)
{
	unsigned int i;

	ke_require();
	find_ipus();
	if (!nr_ipus)
		fail_msg("no PCI IPU to hold the launches of");
	for (i = 0; i < nr_ipus; i++)
		ke_fault(i, on ? "hold_launches=1" : "hold_launches=0");
	ks_held = on;
}
#endif

/* launch_timeout_ms before a test changed it; 0 when it did not. */
static unsigned int ks_saved_timeout __attribute__((unused));
/* The running ipu-simd was started with other arguments than the guest's. */
static bool ks_custom __attribute__((unused));

static inline bool ks_alive(pid_t pid)
{
	char path[64], buf[256], *p;
	int err;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	err = kt_read_file(path, buf, sizeof(buf));
	if (err)
		return false;
	/* "pid (comm) S ...": a zombie is dead for our purposes. */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static inline pid_t ks_simd_pid(void)
{
	char buf[32];

	if (kt_read_file(KS_PIDFILE, buf, sizeof(buf)))
		return 0;
	return (pid_t)atoi(buf);
}

static inline bool ks_have_simd(void)
{
	return access(KS_SIMD, X_OK) == 0;
}

/* Bytes in the log now: where to look for what happens next. */
static inline off_t ks_log_size(void)
{
	struct stat st;

	return stat(KS_LOG, &st) ? 0 : st.st_size;
}

/* Whether the log, from byte @from on, has a line containing @what. */
static inline bool ks_log_has(off_t from, const char *what)
{
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	f = fopen(KS_LOG, "re");
	if (!f)
		return false;
	if (fseeko(f, from, SEEK_SET) == 0)
		while (!found && getline(&line, &cap, f) > 0)
			found = strstr(line, what) != NULL;
	free(line);
	fclose(f);
	return found;
}

static inline void ks_pause(void)
{
	struct timespec ts = { 0, KS_POLL_NS };

	nanosleep(&ts, NULL);
}

/*
 * Wait until process @pid sleeps in a kernel function whose name has @what
 * (its /proc/PID/wchan; a mutex or wait-queue sleep names its caller, as
 * they are scheduler functions). Polled, bounded by KS_POLLS.
 */
static inline void ks_wait_wchan(pid_t pid, const char *what)
{
	char path[64], fn[128] = "";
	int i;

	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	for (i = 0; i < KS_POLLS; i++) {
		if (kt_read_file(path, fn, sizeof(fn)))
			fn[0] = '\0';
		if (strstr(fn, what))
			return;
		ks_pause();
	}
	fail_msg("process %d never slept in %s (wchan \"%s\")", (int)pid,
		 what, fn);
}

/* Wait until the log has @what after @from; false when it never came. */
static inline bool ks_log_wait(off_t from, const char *what)
{
	int i;

	for (i = 0; i < KS_POLLS; i++) {
		if (ks_log_has(from, what))
			return true;
		ks_pause();
	}
	return false;
}

/* Wait until @pid is gone (or a zombie). */
static inline bool ks_wait_dead(pid_t pid)
{
	int i;

	for (i = 0; i < KS_POLLS; i++) {
		if (!ks_alive(pid))
			return true;
		ks_pause();
	}
	return false;
}

/*
 * Start ipu-simd with @args (NULL-terminated; NULL: the guest's own,
 * serving ipu0 and ipu1) and wait until it serves ipu0 and ipu1. It runs
 * in a session of its own and outlives the test (KS_TEST's teardown puts
 * the guest's own back after one started with other @args). Returns its
 * pid.
 */
static inline pid_t ks_simd_start(const char *const *args)
{
	static const char *const dflt[] = { "--devices", "ipu0,ipu1", NULL };
	const char *argv[16] = { KS_SIMD };
	off_t from = ks_log_size();
	char pidbuf[32];
	size_t n = 1;
	pid_t pid;
	int fd;

	ks_custom = args != NULL;
	for (args = args ? args : dflt; *args && n < 15; args++)
		argv[n++] = *args;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setsid();
		fd = open(KS_LOG, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			dup2(fd, 0);
		signal(SIGPIPE, SIG_DFL);
		execv(KS_SIMD, (char *const *)argv);
		_exit(127);
	}
	snprintf(pidbuf, sizeof(pidbuf), "%d\n", (int)pid);
	assert_int_equal(kt_write_file(KS_PIDFILE, pidbuf), 0);
	if (!ks_log_wait(from, "ipu0: serving") ||
	    !ks_log_wait(from, "ipu1: serving"))
		fail_msg("ipu-simd (pid %d) did not start serving ipu0 and ipu1",
			 (int)pid);
	return pid;
}

/* Reap @pid if it is our child (ipu-simd started by this test). */
static inline void ks_reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, WNOHANG) < 0 && errno == EINTR)
		;
}

/* Kill ipu-simd with @sig and wait until it is gone. */
static inline void ks_simd_kill(int sig)
{
	pid_t pid = ks_simd_pid();

	assert_true(ks_alive(pid));
	kill(pid, SIGCONT);
	assert_int_equal(kill(pid, sig), 0);
	if (!ks_wait_dead(pid))
		fail_msg("ipu-simd (pid %d) did not die of signal %d", (int)pid,
			 sig);
	ks_reap(pid);
}

/*
 * Whether some file is the firmware of ipu@idx: FW_ATTACH from a file of
 * our own is -EBUSY then. (If it succeeds, nobody was: closing the file
 * detaches again at once.)
 */
static inline bool ks_fw_attached(unsigned int idx)
{
	struct ipu_fw_attach a;
	char path[32];
	int fd, err;

	snprintf(path, sizeof(path), "/dev/ipu%u", idx);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	memset(&a, 0, sizeof(a));
	err = kt_ioctl(fd, IPU_IOCTL_FW_ATTACH, &a);
	close(fd);
	return err == -EBUSY;
}

/*
 * Wait until ipu-simd serves ipu0 and ipu1: after a reset (an earlier
 * test's) it attaches again, and a launch before that is -EUNATCH.
 */
static inline void ks_wait_served(void)
{
	unsigned int idx;
	int i;

	for (idx = 0; idx < 2 && kt_have_dev(idx); idx++) {
		for (i = 0; i < KS_POLLS && !ks_fw_attached(idx); i++)
			ks_pause();
		if (!ks_fw_attached(idx))
			fail_msg("ipu-simd does not serve ipu%u", idx);
	}
}

/* Whether every thread of @pid is stopped (SIGSTOP took effect). */
static inline bool ks_all_stopped(pid_t pid)
{
	char path[320], stat[256], *p;
	struct dirent *de;
	bool all = true;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return false;
	while (all && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid,
			 de->d_name);
		if (kt_read_file(path, stat, sizeof(stat)))
			continue; /* the thread ended */
		p = strrchr(stat, ')');
		all = p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
	}
	closedir(d);
	return all;
}

/*
 * Stop ipu-simd (SIGSTOP) and wait until all its threads are stopped, so
 * that a launch submitted now stays in flight; ks_simd_cont() or
 * KS_TEST's teardown lets it go on. On PCI IPUs: hold their launches.
 */
static inline void ks_simd_stop(void)
{
#ifdef KT_ON_PCI
	ks_hold(true);
#else
	pid_t pid = ks_simd_pid();
	int i;

	assert_int_equal(kill(pid, SIGSTOP), 0);
	for (i = 0; i < KS_POLLS && !ks_all_stopped(pid); i++)
		ks_pause();
	if (!ks_all_stopped(pid))
		fail_msg("ipu-simd (pid %d) did not stop", (int)pid);
#endif
}

static inline void ks_simd_cont(void)
{
#ifdef KT_ON_PCI
	ks_hold(false);
#else
	assert_int_equal(kill(ks_simd_pid(), SIGCONT), 0);
#endif
}

/*
 * For a run that must use the PCIe IPUs alone (a PCI variant): no
 * firmware for the simulated IPUs, so that a launch there fails
 * (-EUNATCH) instead of running, and a test that took one fails. Returns
 * whether ipu-simd ran; ks_simd_start(NULL) (or KS_TEST's teardown)
 * brings it back.
 */
static inline bool ks_simd_away(void)
{
	if (!ks_have_simd() || !ks_alive(ks_simd_pid()))
		return false;
	ks_simd_kill(SIGTERM);
	return true;
}

/*
 * Skip without ipu-simd (a build host); start it if nothing runs it. PCI
 * IPUs (KT_ON_PCI) run launches from their command queue: only the
 * device is needed.
 */
#ifdef KT_ON_PCI
#define ks_require_simd() kt_require_dev(0)
#else
#define ks_require_simd()                                                 \
	do {                                                              \
		kt_require_dev(0);                                        \
		if (!ks_have_simd()) {                                    \
			print_message(KS_SIMD " absent: skipped\n");       \
			kt_skip();                                        \
		}                                                         \
		if (!ks_alive(ks_simd_pid()))                             \
			ks_simd_start(NULL);                              \
		ks_wait_served();                                         \
	} while (0)
#endif

static inline unsigned int ks_timeout_get(void)
{
	char buf[32];

	if (kt_read_file(KS_TIMEOUT, buf, sizeof(buf)))
		fail_msg("cannot read " KS_TIMEOUT);
	return (unsigned int)strtoul(buf, NULL, 10);
}

/* Set launch_timeout_ms; KS_TEST's teardown restores it. */
static inline void ks_timeout_set(unsigned int ms)
{
	char buf[32];

	if (!ks_saved_timeout)
		ks_saved_timeout = ks_timeout_get();
	snprintf(buf, sizeof(buf), "%u", ms);
	assert_int_equal(kt_write_file(KS_TIMEOUT, buf), 0);
}

/*
 * Put launch_timeout_ms back as it was before ks_timeout_set(), if it
 * changed it. A test that lowers the deadline to make one launch time out
 * calls this before any launch meant to succeed: a slow guest (TCG, a
 * debug kernel) must not fail a normal launch on a lowered deadline.
 */
static inline void ks_timeout_restore(void)
{
	char buf[32];

	if (!ks_saved_timeout)
		return;
	snprintf(buf, sizeof(buf), "%u", ks_saved_timeout);
	kt_write_file(KS_TIMEOUT, buf);
	ks_saved_timeout = 0;
}

static inline int ks_teardown(void **state)
{
	pid_t pid;

	kt_teardown(state);
#ifdef KT_ON_PCI
	if (ks_held)
		ks_hold(false);
#endif
	ks_timeout_restore();
	if (!ks_have_simd())
		return 0;
	pid = ks_simd_pid();
	if (ks_alive(pid)) {
		kill(pid, SIGCONT); /* a test may have stopped it */
		if (!ks_custom)
			return 0;
		kill(pid, SIGTERM);
		ks_wait_dead(pid);
	}
	ks_reap(pid);
	ks_simd_start(NULL);
	return 0;
}

/* A test that may stop, kill or restart ipu-simd or change the timeout. */
#define KS_TEST(f) cmocka_unit_test_teardown(f, ks_teardown)

#endif /* IPU_TESTS_KSIMD_H */
