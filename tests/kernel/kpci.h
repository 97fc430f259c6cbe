/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpci.h - what the tests of ipu.ko's PCI backend share: the functions of
 * the spec's IDs (ipu-emu's, attached by scripts/lib/emu-rig.sh; how many
 * is IPU_EMU_IPUS of the guest's command line: fewer fail, none skips),
 * the ipuN of a function, and a probe that must fail with one dmesg line.
 */
#ifndef IPU_TESTS_KPCI_H
#define IPU_TESTS_KPCI_H

#include "ktest.h"

#include <limits.h>

#include <ipu/hw.h>

#define PCI_DEVICES "/sys/bus/pci/devices"
#define PCI_DRIVER "/sys/bus/pci/drivers/ipu"
#define MAX_IPUS 8

static char ipus[MAX_IPUS][16];	/* PCI addresses, sorted */
static unsigned int nr_ipus;
static unsigned int expected;
static const char *why_none;

static inline int fn_path(char *buf, size_t len, const char *bdf, const char *attr)
{
	return snprintf(buf, len, PCI_DEVICES "/%s/%s", bdf, attr);
}

static inline long fn_hex(const char *bdf, const char *attr)
{
	char path[PATH_MAX], buf[32], *end;
	long v;

	fn_path(path, sizeof(path), bdf, attr);
	if (kt_read_file(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	v = strtol(buf, &end, 16);
	if (errno || end == buf || *end)
		return -1;
	return v;
}

static inline int cmp_bdf(const void *a, const void *b)
{
	return strcmp(a, b);
}

static inline void find_ipus(void)
{
	struct dirent *de;
	DIR *d;

	nr_ipus = 0;
	d = opendir(PCI_DEVICES);
	if (!d)
		return;
	while ((de = readdir(d)) && nr_ipus < MAX_IPUS) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(ipus[0]))
			continue;
		if (fn_hex(de->d_name, "vendor") == IPU_PCI_VENDOR_ID &&
		    fn_hex(de->d_name, "device") == IPU_PCI_DEVICE_ID)
			strcpy(ipus[nr_ipus++], de->d_name);
	}
	closedir(d);
	qsort(ipus, nr_ipus, sizeof(ipus[0]), cmp_bdf);
}

#define require_ipus()                                                    \
	do {                                                              \
		if (why_none) {                                           \
			print_message("%s: skipped\n", why_none);         \
			kt_skip();                                        \
		}                                                         \
		if (nr_ipus < expected)                                   \
			fail_msg("%u IPU function(s) found, the rig attached %u", \
				 nr_ipus, expected);                      \
	} while (0)

/* The N of the ipuN whose parent is function @bdf, or -1. */
static inline int ipu_of(const char *bdf)
{
	char path[PATH_MAX], link[PATH_MAX];
	struct dirent *de;
	unsigned int n;
	int found = -1;
	ssize_t len;
	char c;
	DIR *d;

	d = opendir(KT_SYSFS_CLASS);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, "ipu%u%c", &n, &c) != 1)
			continue;
		snprintf(path, sizeof(path), KT_SYSFS_CLASS "/%s/device", de->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = '\0';
		if (!strcmp(strrchr(link, '/') + 1, bdf))
			found = (int)n;
	}
	closedir(d);
	return found;
}

/* The driver bound to @bdf ("" when none) into @buf. */
static inline void driver_of(const char *bdf, char *buf, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	fn_path(path, sizeof(path), bdf, "driver");
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		buf[0] = '\0';
		return;
	}
	link[n] = '\0';
	snprintf(buf, len, "%s", strrchr(link, '/') + 1);
}

/* /dev/kmsg from now on (seeked to its end). */
static inline int klog_from_now(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		fail_msg("/dev/kmsg: %s", strerror(errno));
	kt_track(KT_PIPE)->fd = fd;
	assert_int_equal(lseek(fd, 0, SEEK_END), 0);
	return fd;
}

/*
 * Records of @fd whose text starts with ipu.ko's prefix for @bdf
 * ("ipu 0000:01:00.0: "), but for the firmware loader's own ("firmware: "
 * after the prefix): how many, and the first in @first. The PCI core's
 * "ipu: probe of ... failed" line has another prefix.
 */
static inline unsigned int klog_driver_lines(int fd, const char *bdf, char *first,
				      size_t len)
{
	char rec[8192], prefix[64], *text;
	unsigned int count = 0;
	ssize_t n;

	snprintf(prefix, sizeof(prefix), "ipu %s: ", bdf);
	first[0] = '\0';
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue;
		if (n < 0 && errno == EAGAIN)
			return count;
		if (n <= 0)
			fail_msg("reading /dev/kmsg: %s", n ? strerror(errno) : "EOF");
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text || strncmp(text + 1, prefix, strlen(prefix)))
			continue;
		/* Debian's firmware loader logs every load under the device. */
		if (!strncmp(text + 1 + strlen(prefix), "firmware: ", 10))
			continue;
		if (!count++)
			snprintf(first, len, "%.*s", (int)strcspn(text + 1, "\n"), text + 1);
	}
}

/*
 * Bind @bdf (unbound), expecting the probe to fail with @why in the one
 * line the driver logs, and to leave no device behind.
 */
static inline void bind_fails_with(const char *bdf, const char *why)
{
	char line[512];
	unsigned int lines;
	int fd, err;

	fd = klog_from_now();
	err = kt_write_file(PCI_DRIVER "/bind", bdf);
	if (!err)
		fail_msg("bind %s worked", bdf);
	/* No half-made device: no ipuN, no driver. */
	assert_int_equal(ipu_of(bdf), -1);
	driver_of(bdf, line, sizeof(line));
	assert_string_equal(line, "");
	lines = klog_driver_lines(fd, bdf, line, sizeof(line));
	if (lines != 1)
		fail_msg("%u dmesg lines from ipu %s, not 1 (first: \"%s\")",
			 lines, bdf, line);
	if (!strstr(line, why))
		fail_msg("dmesg line \"%s\" does not say \"%s\"", line, why);
	print_message("%s\n", line);
}


/* Call first in main(): how many functions the rig attached, and which. */
static inline void kp_init(void)
{
	const char *env = getenv("IPU_EMU_IPUS");

	expected = env ? (unsigned int)strtoul(env, NULL, 10) : 0;
	if (!env)
		why_none = "IPU_EMU_IPUS unset: not booted by scripts/kernel-check's rig";
	else if (!expected)
		why_none = "the rig attached no IPU (see kernel-check's ipu-emu line)";
	find_ipus();
}

/* Unbind @bdf from ipu.ko; fails the test if that fails. */
static inline void kp_unbind(const char *bdf)
{
	int err = kt_write_file(PCI_DRIVER "/unbind", bdf);

	if (err)
		fail_msg("unbind %s: %s", bdf, strerror(-err));
	assert_int_equal(ipu_of(bdf), -1);
}

/* Bind @bdf to ipu.ko; fails the test unless it probes. */
static inline void kp_bind(const char *bdf)
{
	int err = kt_write_file(PCI_DRIVER "/bind", bdf);

	if (err)
		fail_msg("bind %s: %s", bdf, strerror(-err));
	assert_true(ipu_of(bdf) >= 0);
}

#endif /* IPU_TESTS_KPCI_H */
