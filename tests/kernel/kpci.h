/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpci.h - what the tests of ipu.ko's PCI backend share: the functions of
 * the spec's IDs (ipu-emu's, attached by scripts/lib/emu-rig.sh; how many
 * is IPU_EMU_IPUS of the guest's command line: fewer fail, none skips;
 * which present MSI is IPU_EMU_MSI), the ipuN of a function, and a probe
 * that must fail with one dmesg line.
 */
#ifndef IPU_TESTS_KPCI_H
#define IPU_TESTS_KPCI_H

#include "ktest.h"

#include <limits.h>

#include <ipu/hw.h>

#define MAX_IPUS 8

static char ipus[MAX_IPUS][16];	/* PCI addresses, sorted */
static unsigned int nr_ipus;
static unsigned int expected;
static const char *why_none;

static inline int fn_path(char *buf, size_t len, const char *bdf, const char *attr)
{
	return snprintf(buf, len, KT_PCI_DEVICES "/%s/%s", bdf, attr);
}

static inline void fn_text(const char *bdf, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	int err;

	fn_path(path, sizeof(path), bdf, attr);
	err = kt_read_file(path, buf, len);
	if (err)
		fail_msg("read %s: %s", path, strerror(-err));
}

static inline int cmp_bdf(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Every function with the spec's vendor and device ID, sorted. */
static inline void find_ipus(void)
{
	struct dirent *de;
	DIR *d;

	nr_ipus = 0;
	d = opendir(KT_PCI_DEVICES);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(ipus[0]))
			continue;
		if (!kt_is_ipu_fn(de->d_name))
			continue;
		if (nr_ipus < MAX_IPUS)
			strcpy(ipus[nr_ipus], de->d_name);
		nr_ipus++;
	}
	closedir(d);
	if (nr_ipus > MAX_IPUS)
		nr_ipus = MAX_IPUS;
	qsort(ipus, nr_ipus, sizeof(ipus[0]), cmp_bdf);
}

/* Skip when the rig attached no IPU; fail when fewer than it attached. */
#define require_ipus()                                                    \
	do {                                                              \
		if (why_none) {                                           \
			print_message("%s: skipped\n", why_none);         \
			kt_skip();                                        \
		}                                                         \
		if (nr_ipus < expected)                                   \
			fail_msg("%u IPU function(s) %04x:%04x found, the rig attached %u", \
				 nr_ipus, IPU_PCI_VENDOR_ID, IPU_PCI_DEVICE_ID, \
				 expected);                               \
	} while (0)

/* The whole 4 KiB of @bdf's config space (sysfs gives root all of it when
 * the kernel reaches extended config space, else only 256 bytes). */
static inline size_t read_config(const char *bdf, uint8_t *cfg, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	fn_path(path, sizeof(path), bdf, "config");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	memset(cfg, 0, len);
	n = pread(fd, cfg, len, 0);
	close(fd);
	if (n < 0)
		fail_msg("read %s: %s", path, strerror(errno));
	return (size_t)n;
}

static inline uint16_t cfg16(const uint8_t *cfg, unsigned int off)
{
	return (uint16_t)(cfg[off] | cfg[off + 1] << 8);
}

static inline uint32_t cfg32(const uint8_t *cfg, unsigned int off)
{
	return (uint32_t)cfg16(cfg, off) | (uint32_t)cfg16(cfg, off + 2) << 16;
}

/* Start, end and flags of BAR @bar of @bdf (line @bar of its "resource"). */
static inline void fn_resource(const char *bdf, unsigned int bar, uint64_t *start,
				      uint64_t *end, uint64_t *flags)
{
	char path[PATH_MAX], line[128];
	unsigned int i;
	FILE *f;

	fn_path(path, sizeof(path), bdf, "resource");
	f = fopen(path, "re");
	if (!f)
		fail_msg("open %s: %s", path, strerror(errno));
	for (i = 0; i <= bar; i++) {
		if (!fgets(line, sizeof(line), f)) {
			fclose(f);
			fail_msg("%s: no line for BAR%u", path, bar);
		}
	}
	fclose(f);
	if (sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNx64, start, end, flags) != 3)
		fail_msg("%s: BAR%u line \"%s\"", path, bar, line);
}

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

static inline bool klog_not_the_driver(const char *msg)
{
	static const char *const others[] = {
		"firmware: ", "probe with driver ", "resetting", "reset done",
		"Direct firmware load for ",
	};
	size_t i;

	for (i = 0; i < KT_ARRAY_SIZE(others); i++)
		if (!strncmp(msg, others[i], strlen(others[i])))
			return true;
	return false;
}

/*
 * Records of @fd whose text starts with ipu.ko's prefix for @bdf
 * ("ipu 0000:01:00.0: "), but for the firmware loader's and the driver
 * core's own: how many, and the first in @first.
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
		/*
		 * Not the driver's: Debian's firmware loader logs every load
		 * under the device, and a file it did not find (a read into
		 * the driver's buffer, ipu_pci_fw.c); from 6.x the driver
		 * core says that the probe failed under it too (before, as
		 * "ipu: probe of"); and 7.x's PCI core logs the FLR that
		 * starts a probe after an earlier binding ("resetting",
		 * "reset done").
		 */
		if (klog_not_the_driver(text + 1 + strlen(prefix)))
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

	fd = kt_klog_from_now();
	err = kt_write_file(KT_PCI_DRIVER "/bind", bdf);
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


/*
 * A hung device's memory is leaked on purpose, mapped for good. The DMA
 * API's debug checks (the debug kernel) report that at every later unbind
 * as a driver's leak, a WARN the boot's dmesg check fails on. Behind the
 * rig's virtual IOMMU the leaked I/O virtual addresses stay mapped in
 * ipu-emu for ever (the guest's domain teardown unmaps in ranges that
 * match no vfio-user mapping: scripts/lib/emu-rig.sh's
 * rig_emu_log_errors): a later
 * removal and rescan of the function (test_pci_surprise) then finds QEMU's
 * new mappings there refused (EEXIST). Skipped on both.
 */
static inline void kp_skip_where_a_leak_lasts(void)
{
	const char *iommu = getenv("IPU_EMU_IOMMU");

	if (kt_dma_api_now().present) {
		print_message("the DMA API's debug checks would report the deliberate leak: skipped\n");
		kt_skip();
	}
	if (iommu && strcmp(iommu, "0")) {
		print_message("behind the rig's IOMMU the leaked mappings outlive the function: skipped\n");
		kt_skip();
	}
}

#define KP_DMA_TIMEOUT "/sys/module/ipu/parameters/dma_timeout_ms"
/* dma_timeout_ms before kp_dma_timeout_lower(); empty when not lowered. */
static char kp_saved_dma_timeout[32];

/*
 * A PCI DMA batch's bound (the module parameter dma_timeout_ms) lowered to
 * @ms, so that a test of a stalled ring waits that long, not 30 s; put
 * back by kp_dma_timeout_restore() (a teardown's).
 */
static inline void kp_dma_timeout_lower(const char *ms)
{
	if (!kp_saved_dma_timeout[0])
		assert_int_equal(kt_read_file(KP_DMA_TIMEOUT, kp_saved_dma_timeout,
					      sizeof(kp_saved_dma_timeout)), 0);
	assert_int_equal(kt_write_file(KP_DMA_TIMEOUT, ms), 0);
}

static inline void kp_dma_timeout_restore(void)
{
	if (kp_saved_dma_timeout[0])
		kt_write_file(KP_DMA_TIMEOUT, kp_saved_dma_timeout);
	kp_saved_dma_timeout[0] = '\0';
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

/*
 * Whether the rig's function @fn (its index in ipus[]) presents MSI
 * instead of MSI-X: IPU_EMU_MSI of the guest's command line, a comma-
 * separated list of indices (scripts/lib/emu-rig.sh, RIG_MSI_IPUS).
 */
static inline bool kp_is_msi(unsigned int fn)
{
	const char *p = getenv("IPU_EMU_MSI");
	char *end;

	while (p && *p) {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p)
			break;
		if (v == fn)
			return true;
		p = *end == ',' ? end + 1 : end;
	}
	return false;
}

/*
 * The MSI messages the guest grants the rig's MSI functions, of the
 * IPU_MSI_MESSAGES the driver asks for: x86 grants more than one only
 * with interrupt remapping, which the rig's KERNEL-iommu boot has
 * (IPU_EMU_IOMMU=1 on the guest's command line, scripts/lib/emu-rig.sh's
 * RIG_IOMMU). With all of them the queues have their own vectors, as with
 * MSI-X; with one, one handler serves every cause.
 */
static inline unsigned int kp_msi_messages(void)
{
	const char *p = getenv("IPU_EMU_IOMMU");

	return p && !strcmp(p, "1") ? IPU_MSI_MESSAGES : 1;
}

/*
 * The /proc/interrupts name (kp_proc_interrupts()) of vector 0 of the
 * rig's function @fn, ipu@n: ipuN-misc when the queues have their own
 * vectors, ipuN when one vector serves every cause.
 */
static inline void kp_vec0_name(char *buf, size_t len, unsigned int fn, int n)
{
	snprintf(buf, len, kp_is_msi(fn) && kp_msi_messages() == 1 ?
		 "ipu%d" : "ipu%d-misc", n);
}

/*
 * The rig's first MSI function, its index in ipus[] (test_pci_msi's
 * subject, and the one function the rig lets test_pci_device_del unplug);
 * skips the test when the rig attached none.
 */
static inline unsigned int kp_msi_fn(void)
{
	unsigned int i;

	require_ipus();
	for (i = 0; i < nr_ipus; i++)
		if (kp_is_msi(i))
			return i;
	print_message("the rig attached no MSI function (IPU_EMU_MSI): skipped\n");
	kt_skip();
	return 0;
}

/* Interrupts counted on the line of @name in /proc/interrupts, all CPUs;
 * -1 when there is no such line. */
static inline int64_t kp_proc_interrupts(const char *name)
{
	char line[2048], *p, *end;
	int64_t sum = -1;
	FILE *f;

	f = fopen("/proc/interrupts", "re");
	if (!f)
		fail_msg("open /proc/interrupts: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		size_t l = strlen(name);

		/* The handler's name is the line's last word. */
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line) < l + 1 || strcmp(line + strlen(line) - l, name) ||
		    line[strlen(line) - l - 1] != ' ')
			continue;
		p = strchr(line, ':');
		if (!p)
			break;
		sum = 0;
		for (p++;; p = end) {
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			sum += v;
		}
	}
	fclose(f);
	return sum;
}

/* Unbind @bdf from ipu.ko; fails the test if that fails. */
static inline void kp_unbind(const char *bdf)
{
	int err = kt_write_file(KT_PCI_DRIVER "/unbind", bdf);

	if (err)
		fail_msg("unbind %s: %s", bdf, strerror(-err));
	assert_int_equal(ipu_of(bdf), -1);
}

/* Bind @bdf to ipu.ko; fails the test unless it probes. */
static inline void kp_bind(const char *bdf)
{
	int err = kt_write_file(KT_PCI_DRIVER "/bind", bdf);

	if (err)
		fail_msg("bind %s: %s", bdf, strerror(-err));
	assert_true(ipu_of(bdf) >= 0);
}

/*
 * The PCI core's hot removal of @bdf, as pciehp's does when its slot is
 * unplugged (pci_stop_and_remove_bus_device()): remove() if bound, then
 * the function is gone from the bus. Returns once it is gone.
 */
static inline void kp_remove(const char *bdf)
{
	char path[PATH_MAX];
	int err;

	fn_path(path, sizeof(path), bdf, "remove");
	err = kt_write_file(path, "1");
	if (err)
		fail_msg("remove %s: %s", bdf, strerror(-err));
	fn_path(path, sizeof(path), bdf, "vendor");
	if (!access(path, F_OK))
		fail_msg("%s still on the bus after its removal", bdf);
}

/*
 * Rescan the PCI buses, as pciehp does when a card is plugged, and fail
 * unless ipu.ko probed @bdf (the probe runs within the rescan): its ipuN.
 */
static inline unsigned int kp_rescan(const char *bdf)
{
	int err = kt_write_file("/sys/bus/pci/rescan", "1"), n;

	if (err)
		fail_msg("rescan: %s", strerror(-err));
	n = ipu_of(bdf);
	if (n < 0)
		fail_msg("ipu.ko not bound to %s after the rescan", bdf);
	return (unsigned int)n;
}

#endif /* IPU_TESTS_KPCI_H */
