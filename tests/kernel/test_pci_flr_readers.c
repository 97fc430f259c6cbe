// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_flr_readers.c - readers of BAR0 the driver does not serialise
 * with resets meet resets of the function whose BAR0 reads all ones, as on
 * silicon (docs/hardware.md 9.2), and take it for what it is: no value,
 * and no removal. QEMU answers reads of a function whose memory decoding
 * the PCI core turned off with 0, so the driver's fault injection
 * (debugfs flr_reads_all_ones, driver/ipu_pci_flr_dark.c) makes the
 * window what silicon makes it: all ones, for at least DARK_MS; for a
 * stalled transfer, whose liveness read comes once a second (a thread
 * the driver wakes), STALLED_DARK_MS, the knob's maximum. Each test
 * turns it on, hammers the readers in threads while
 * FLRs (sysfs `reset`, and the driver's own: RESET with the soft reset
 * ignored) and soft resets go by, then sees:
 *  - every read gave a valid value or -EAGAIN, never all ones as a value
 *    (a counter of 4294967295, a temperature of -1), and the readers met
 *    the window (-EAGAIN seen, or the driver's count of dark reads moved);
 *  - the device is still bound, the file opened before still works (a
 *    transfer, a launch), and the kernel logged no unplug.
 * One test per reader (hwmon, mem_errors_*, a stalled transfer's liveness
 * read), then all of them at once with ipu-info's sysfs reads: a reader
 * that took the window for a removal fails its own test (its device
 * unbound itself), and the teardown binds it again for the next.
 * Skipped without PCI IPUs or without ipu-emu's control port.
 */
#include <dirent.h>
#include <glob.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "kreset.h"
#include "kunplug.h"

/* Each reset keeps BAR0 dark this long, for readers that hammer. */
#define DARK_MS "1200"
/*
 * And this long for a stalled transfer's liveness read, asserted to fall
 * inside: the driver's thread that makes it sleeps 1 s between reads, and
 * a slow guest (KASAN, TCG, the machine shared) may wake it late. With
 * 1.2 s it had to wake within 0.2 s; with 10 s, the most the knob holds
 * (IPU_PCI_FLR_DARK_MAX_MS), within 9 s, and it gets about ten reads to
 * land one. The window cannot end on the read itself: the driver sleeps
 * it out from the reset's end, which comes before any read.
 */
#define STALLED_DARK_MS "10000"
/* Resets per test, of each kind in turn (flr_round()). */
#define ROUNDS 4
#define ALL_ROUNDS 8
#define MAX_READERS 32
#define LEN (64 * 1024)

enum kind { COUNTER, TEMP, POWER, INFO };

struct reader {
	char path[PATH_MAX];
	enum kind kind;
	unsigned long ok, again;
	char bad[160];
};

static struct reader readers[MAX_READERS];
static unsigned int nr_readers;
static pthread_t threads[MAX_READERS];
static atomic_bool stop;

/* @path's file of the ipuN of the first function. */
static void knob_path(char *buf, size_t len, const char *name)
{
	int n = ipu_of(ipus[0]);

	if (n < 0)
		fail_msg("%s has no ipuN (not bound?)", ipus[0]);
	snprintf(buf, len, KT_DEBUGFS "/ipu%d/%s", n, name);
}

static void dark(const char *ms)
{
	char path[PATH_MAX];
	int err;

	knob_path(path, sizeof(path), "flr_reads_all_ones");
	err = kt_write_file(path, ms);
	if (err)
		fail_msg("write %s to %s: %s", ms, path, strerror(-err));
}

/* Reads the fault injection answered all ones so far. */
static unsigned long dark_reads(void)
{
	char path[PATH_MAX], buf[32];
	int err;

	knob_path(path, sizeof(path), "flr_dark_reads");
	err = kt_read_file(path, buf, sizeof(buf));
	if (err)
		fail_msg("read %s: %s", path, strerror(-err));
	return strtoul(buf, NULL, 10);
}

static void add_reader(const char *path, enum kind kind)
{
	struct reader *r;

	assert_true(nr_readers < MAX_READERS);
	r = &readers[nr_readers++];
	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->kind = kind;
}

static void add_hwmon(void)
{
	char pat[PATH_MAX];
	unsigned int before = nr_readers;
	glob_t g;
	size_t i;

	fn_path(pat, sizeof(pat), ipus[0], "hwmon/hwmon*/*_input");
	if (glob(pat, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++)
			add_reader(g.gl_pathv[i], strstr(g.gl_pathv[i], "/temp") ?
				   TEMP : POWER);
	}
	globfree(&g);
	if (nr_readers == before)
		fail_msg("%s has no hwmon *_input", ipus[0]);
}

static void add_mem_errors(void)
{
	char path[PATH_MAX];

	fn_path(path, sizeof(path), ipus[0], "mem_errors_corrected");
	add_reader(path, COUNTER);
	fn_path(path, sizeof(path), ipus[0], "mem_errors_uncorrected");
	add_reader(path, COUNTER);
}

/* Every readable attribute of /sys/class/ipu/ipuN, as ipu-info reads them. */
static void add_info(void)
{
	char dir[128], path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(dir, sizeof(dir), KT_SYSFS_CLASS "/ipu%d", ipu_of(ipus[0]));
	d = opendir(dir);
	if (!d)
		fail_msg("opendir %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "uevent") ||
		    lstat(path, &st) || !S_ISREG(st.st_mode) ||
		    !(st.st_mode & S_IRUSR))
			continue;
		add_reader(path, INFO);
	}
	closedir(d);
}

/* Whether @text, read from a reader of @kind, is a value (not all ones). */
static bool valid(enum kind kind, const char *text)
{
	long long v;
	char *end;

	if (kind == INFO)
		return !strstr(text, "4294967295") && !strstr(text, "ffffffff");
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || end == text || *end)
		return false;
	switch (kind) {
	case COUNTER:
		return v >= 0 && v < 0xffffffffLL;
	case TEMP:
		/* Millidegrees: all ones is -1 as s32, 4294967 as u32 / 1000. */
		return v != -1 && v > -273150 && v < 4294967;
	default:
		return v >= 0 && v != 0xffffffffLL * 1000;
	}
}

static void *read_loop(void *arg)
{
	struct reader *r = arg;
	char buf[64];
	int err;

	while (!atomic_load(&stop)) {
		err = kt_read_file(r->path, buf, sizeof(buf));
		if (err == -EAGAIN) {
			r->again++;
		} else if (err) {
			snprintf(r->bad, sizeof(r->bad), "%s", strerror(-err));
			break;
		} else if (!valid(r->kind, buf)) {
			snprintf(r->bad, sizeof(r->bad), "\"%s\"", buf);
			break;
		} else {
			r->ok++;
		}
	}
	return NULL;
}

static void start_readers(void)
{
	unsigned int i;

	atomic_store(&stop, false);
	for (i = 0; i < nr_readers; i++)
		assert_int_equal(pthread_create(&threads[i], NULL, read_loop,
						&readers[i]), 0);
}

/* Stop the readers; each got only values or -EAGAIN. */
static void stop_readers(void)
{
	unsigned int i;

	atomic_store(&stop, true);
	for (i = 0; i < nr_readers; i++)
		assert_int_equal(pthread_join(threads[i], NULL), 0);
	for (i = 0; i < nr_readers; i++) {
		print_message("%s: %lu values, %lu EAGAIN\n", readers[i].path,
			      readers[i].ok, readers[i].again);
		if (readers[i].bad[0])
			fail_msg("%s read %s during the resets", readers[i].path,
				 readers[i].bad);
	}
}

/* Whether the reader of @kind met the dark window (-EAGAIN seen). */
static void met_the_window(enum kind kind)
{
	unsigned int i;

	for (i = 0; i < nr_readers; i++)
		if (readers[i].kind == kind && !readers[i].again)
			fail_msg("%s never read during a reset: the test proves nothing",
				 readers[i].path);
}

/*
 * Reset @i of a test, done when this returns: FLRs through the PCI core
 * (sysfs `reset`), a soft reset (RESET) and the driver's own FLR (RESET,
 * its soft reset ignored).
 */
static void flr_round(int fd, unsigned int i)
{
	struct ipu_reset r = { 0 };

	switch (i % 4) {
	case 2:
		assert_int_equal(kt_ioctl(fd, IPU_IOCTL_RESET, &r), 0);
		break;
	case 3:
		ke_fault(0, "ignore_reset=1");
		assert_int_equal(kt_ioctl(fd, IPU_IOCTL_RESET, &r), 0);
		break;
	default:
		kr_flr(ipus[0]);
	}
}

/* The device the test began with: bound, working, nothing logged. */
static void still_working(int fd, int n, int klog)
{
	static const char *const unplug[] = {
		"fell off the bus", "unplugging", "did not come back",
		"WARNING:", "BUG:",
	};
	uint8_t *buf = kl_host(LEN), *back = kl_host(LEN);
	char line[512];
	uint32_t bo;

	assert_int_equal(ipu_of(ipus[0]), n);
	if (kt_klog_find(klog, unplug, KT_ARRAY_SIZE(unplug), line,
			 sizeof(line)))
		fail_msg("the kernel logged \"%s\"", line);
	bo = kt_bo(fd, LEN, NULL);
	kt_fill(buf, LEN, 31);
	assert_int_equal(kt_write_bo(fd, bo, 0, buf, LEN), 0);
	assert_int_equal(kt_read_bo(fd, bo, 0, back, LEN), 0);
	assert_int_equal(kt_check(back, LEN, 31), -1);
	assert_int_equal(kr_run(fd), 0);
}

/* Readers added by @add hammer through @rounds resets. */
static void readers_through_resets(void (*add)(void), enum kind kind)
{
	int fd = ke_open_first(), n = ipu_of(ipus[0]), klog;
	unsigned long before;
	unsigned int i;

	nr_readers = 0;
	add();
	dark(DARK_MS);
	before = dark_reads();
	klog = kt_klog_from_now();
	start_readers();
	for (i = 0; i < ROUNDS; i++)
		flr_round(fd, i);
	stop_readers();
	assert_true(dark_reads() > before);
	met_the_window(kind);
	still_working(fd, n, klog);
}

static void test_hwmon_readers_through_flrs(void **state)
{
	(void)state;
	readers_through_resets(add_hwmon, TEMP);
}

static void test_mem_errors_readers_through_flrs(void **state)
{
	(void)state;
	readers_through_resets(add_mem_errors, COUNTER);
}

/*
 * A transfer stalled on the device (ipu-emu's hang_dma) through reset @i:
 * its liveness read falls in the dark window (STALLED_DARK_MS), and
 * the reset ends it with -EIO (or 0: a soft reset completes it), never
 * -ENODEV. Returns whether the window saw a read.
 */
static bool stalled_through(int fd, uint32_t bo, unsigned int i)
{
	unsigned long before = dark_reads();
	pid_t pid;
	int st;

	pid = ku_stalled_transfer(fd, bo, LEN, 0);
	flr_round(fd, i);
	st = kt_wait(pid);
	st = child_exit_errno(st);
	if (st != 0 && st != EIO)
		fail_msg("the stalled transfer ended with %d (%s) through reset %u",
			 st, strerror(st), i);
	return dark_reads() > before;
}

static void test_a_stalled_transfer_s_liveness_read_through_flrs(void **state)
{
	int fd = ke_open_first(), n = ipu_of(ipus[0]), klog;
	uint32_t bo = kt_bo(fd, LEN, NULL);

	(void)state;
	dark(STALLED_DARK_MS);
	klog = kt_klog_from_now();
	/* The FLRs: the PCI core's (0) and the driver's own (3). */
	if (!stalled_through(fd, bo, 0) || !stalled_through(fd, bo, 3))
		fail_msg("no liveness read of the stalled transfer fell in a %s ms dark window",
			 STALLED_DARK_MS);
	still_working(fd, n, klog);
}

static void test_every_reader_through_flrs_and_resets(void **state)
{
	int fd = ke_open_first(), n = ipu_of(ipus[0]), klog;
	uint32_t bo = kt_bo(fd, LEN, NULL);
	unsigned int i;

	(void)state;
	nr_readers = 0;
	add_hwmon();
	add_mem_errors();
	add_info();
	dark(DARK_MS);
	klog = kt_klog_from_now();
	start_readers();
	for (i = 0; i < ALL_ROUNDS; i++)
		stalled_through(fd, bo, i);
	stop_readers();
	met_the_window(TEMP);
	met_the_window(COUNTER);
	still_working(fd, n, klog);
}

/*
 * The window off, the model's faults cleared, readers stopped; and the
 * function bound again when a reader made the driver unbind it.
 */
static int flr_teardown(void **state)
{
	char path[PATH_MAX], buf[64];
	int n;

	if (!atomic_load(&stop)) {
		atomic_store(&stop, true);
		for (n = 0; n < (int)nr_readers; n++)
			pthread_join(threads[n], NULL);
	}
	n = nr_ipus ? ipu_of(ipus[0]) : -1;
	if (n >= 0) {
		snprintf(path, sizeof(path), KT_DEBUGFS "/ipu%d/flr_reads_all_ones", n);
		kt_write_file(path, "0");
	}
	ke_send("fault", 0, "clear", buf, sizeof(buf));
	kt_teardown(state);
	if (nr_ipus && ipu_of(ipus[0]) < 0)
		kt_write_file(KT_PCI_DRIVER "/bind", ipus[0]);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_hwmon_readers_through_flrs,
					  flr_teardown),
		cmocka_unit_test_teardown(test_mem_errors_readers_through_flrs,
					  flr_teardown),
		cmocka_unit_test_teardown(test_a_stalled_transfer_s_liveness_read_through_flrs,
					  flr_teardown),
		cmocka_unit_test_teardown(test_every_reader_through_flrs_and_resets,
					  flr_teardown),
	};

	atomic_store(&stop, true);
	kp_init();
	return KT_RUN(tests);
}
