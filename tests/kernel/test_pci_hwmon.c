// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_hwmon.c - the hwmon sensors of a PCIe IPU read while the
 * function goes away (issue 25, item 2): temp1_input is world-readable,
 * so any user may be inside its read when the driver unbinds, and the
 * read must never outlive the structure it reads through.
 *  - reader processes read temp1_input without pause (each read a fresh
 *    pread of an open file, reopened when its hwmonN went) while the
 *    function is unbound and bound again, several times: every read
 *    answers 40000 (the model's idle temperature, docs/hardware.md
 *    section 3) or fails -ENODEV, and the kernel log stays clean;
 *  - the same readers while the function falls off the bus (ipu-emu's
 *    fault link_down): their own all-ones read makes the driver unbind
 *    itself, with no file of /dev/ipuN open to keep the device alive;
 *    then the function comes back (link_up, the PCI core's removal and a
 *    rescan, as test_pci_surprise does) and reads 40000 again.
 * No /dev/ipuN of the function is open meanwhile: the final reference
 * is remove()'s own, which is what made the use-after-free (the debug
 * kernel's KASAN reports it, and so does this test, from /dev/kmsg).
 * Skipped without PCI IPUs; the second case without the control port.
 */
#include <sys/mman.h>

#include "kunplug.h"

#define READERS 3
#define CYCLES 6

/* What the readers share with the parent (MAP_SHARED). */
struct readers {
	volatile int stop;
	/* Reads that answered, per reader. */
	volatile long ok[READERS];
	/* A read that answered neither 40000 nor -ENODEV, per reader. */
	volatile long bad[READERS];
	volatile long bad_errno[READERS];
};

static struct readers *rd;
static pid_t pids[READERS];

/* temp1_input of @bdf's hwmonN into @path; false while it has none. */
static bool temp_path(const char *bdf, char *path, size_t len)
{
	char dir[256];
	struct dirent *de;
	bool found = false;
	DIR *d;

	fn_path(dir, sizeof(dir), bdf, "hwmon");
	d = opendir(dir);
	if (!d)
		return false;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "hwmon", 5)) {
			snprintf(path, len, "%s/%s/temp1_input", dir, de->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

/* Reader @i: temp1_input of @bdf without pause, until told to stop. */
static void reader(unsigned int i, const char *bdf)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;
	int fd;

	while (!rd->stop) {
		if (!temp_path(bdf, path, sizeof(path)))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* the hwmonN went between readdir and open */
		while (!rd->stop) {
			n = pread(fd, buf, sizeof(buf) - 1, 0);
			if (n < 0) {
				if (errno != ENODEV) {
					rd->bad[i]++;
					rd->bad_errno[i] = errno;
				}
				break;
			}
			buf[n] = '\0';
			if (strtol(buf, NULL, 10) != 40000) {
				rd->bad[i]++;
				rd->bad_errno[i] = 0;
			}
			rd->ok[i]++;
		}
		close(fd);
	}
	_exit(0);
}

static void start_readers(const char *bdf)
{
	unsigned int i;

	rd = mmap(NULL, sizeof(*rd), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(rd != MAP_FAILED);
	memset((void *)rd, 0, sizeof(*rd));
	for (i = 0; i < READERS; i++) {
		pids[i] = kt_fork_opt(false);
		if (pids[i] == 0)
			reader(i, bdf);
	}
}

/* Each reader has read the bound function since the call (an event). */
static void wait_each_reader_reads(void)
{
	long before[READERS];
	unsigned int i;
	int k;

	for (i = 0; i < READERS; i++)
		before[i] = rd->ok[i];
	for (i = 0; i < READERS; i++) {
		for (k = 0; k < KS_POLLS && rd->ok[i] == before[i]; k++)
			ks_pause();
		if (rd->ok[i] == before[i])
			fail_msg("reader %u read nothing of the bound function", i);
	}
}

static void stop_readers(void)
{
	unsigned int i;

	rd->stop = 1;
	for (i = 0; i < READERS; i++) {
		kt_wait_ok(pids[i]);
		if (rd->bad[i])
			fail_msg("reader %u: %ld reads answered neither 40000 nor ENODEV (last errno %ld)",
				 i, rd->bad[i], rd->bad_errno[i]);
	}
}

/* Fail if the log from @klog on has a sign of a kernel bug. */
static void assert_klog_clean(int klog, const char *when)
{
	static const char *const bad[] = { "KASAN", "BUG", "WARNING",
					   "general protection", "Oops",
					   "Call Trace" };
	char line[512];

	if (kt_klog_find(klog, bad, KT_ARRAY_SIZE(bad), line, sizeof(line)))
		fail_msg("%s: the kernel log says %s", when, line);
}

/* The rig's last function, with no /dev/ipuN file of it open. */
static const char *last_fn(unsigned int *emu)
{
	require_ipus();
	*emu = nr_ipus - 1;
	if (ipu_of(ipus[*emu]) < 0)
		fail_msg("%s has no ipuN (not bound?)", ipus[*emu]);
	return ipus[*emu];
}

static void test_hwmon_read_while_the_function_is_unbound(void **state)
{
	unsigned int emu, c;
	const char *bdf = last_fn(&emu);
	int klog = kt_klog_from_now();

	(void)state;
	/* Bound again by the teardown if the test fails while unbound. */
	snprintf(kt_track(KT_PCIFN)->name, sizeof(kt_res[0].name), "%s", bdf);
	start_readers(bdf);
	wait_each_reader_reads();
	for (c = 0; c < CYCLES; c++) {
		kp_unbind(bdf);
		kp_bind(bdf);
		wait_each_reader_reads();
	}
	stop_readers();
	assert_klog_clean(klog, "hwmon read across unbinds");
}

static void test_hwmon_read_while_the_function_falls_off_the_bus(void **state)
{
	unsigned int emu, i;
	const char *bdf = last_fn(&emu);
	char drv[64];
	int klog;

	(void)state;
	ke_require();
	klog = kt_klog_from_now();
	start_readers(bdf);
	wait_each_reader_reads();
	ku_link_down(emu, bdf);
	/* A reader's all-ones read unbinds the driver (its gone work). */
	for (i = 0; i < KS_POLLS; i++) {
		driver_of(bdf, drv, sizeof(drv));
		if (!drv[0])
			break;
		ks_pause();
	}
	if (drv[0])
		fail_msg("ipu.ko still bound to %s after link_down", bdf);

	/* Back on the bus, found again, and read again. */
	ku_relink(emu, bdf);
	wait_each_reader_reads();
	stop_readers();
	assert_klog_clean(klog, "hwmon read across a surprise removal");
}

/* No reader left running (kt_cleanup() kills them), no function off the bus. */
static int hwmon_teardown(void **state)
{
	if (rd)
		rd->stop = 1;
	kt_cleanup();
	if (rd) {
		munmap((void *)rd, sizeof(*rd));
		rd = NULL;
	}
	return ku_relink_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_hwmon_read_while_the_function_is_unbound,
					  hwmon_teardown),
		cmocka_unit_test_teardown(test_hwmon_read_while_the_function_falls_off_the_bus,
					  hwmon_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
