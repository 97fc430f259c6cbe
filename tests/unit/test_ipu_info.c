// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_ipu_info.c - ipu-info's gathering and printing (userspace/tools/
 * info_*.c) over fake trees: sysfs, /proc and /dev below a temporary root,
 * with PCI functions whose config space is a file libpci reads. Complete
 * devices, missing attributes, hostile and truncated files, huge values,
 * degraded links, unbound functions, holders, narrow terminals: each must
 * give clear output (unknowns as "-" or null, a note naming the file),
 * valid JSON and no crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json_check.h"
#include "../userspace/tools/info.h"

static char root[256];

static void mkdirs(const char *rel)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void put_bytes(const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		mkdirs(dir);
	}
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void put(const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(const char *rel, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put_bytes(rel, buf, strlen(buf));
}

static void link_to(const char *rel, const char *target)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;

	snprintf(dir, sizeof(dir), "%s", rel);
	slash = strrchr(dir, '/');
	*slash = '\0';
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(symlink(target, path), 0);
}

static int rm_one(const char *path, const struct stat *sb, int type,
		  struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	chmod(path, 0755);
	return remove(path);
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(root, sizeof(root), "%s/ipu-info-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(root));
	mkdirs("sys/class/ipu");
	mkdirs("sys/bus/pci/devices");
	mkdirs("proc");
	mkdirs("dev");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* A simulated IPU N with every attribute, as ipu.ko writes them. */
static void sim_ipu(unsigned int n)
{
	char d[64];

	snprintf(d, sizeof(d), "sys/class/ipu/ipu%u", n);
	put(strcat(strcpy((char[96]){ 0 }, d), "/platform"), "sim\n");
	put(strcat(strcpy((char[96]){ 0 }, d), "/memory_total"), "67108864\n");
	put(strcat(strcpy((char[96]){ 0 }, d), "/memory_used"), "4096\n");
	put(strcat(strcpy((char[96]){ 0 }, d), "/owner_pid"), "0\n");
	put(strcat(strcpy((char[96]){ 0 }, d), "/firmware_version"), "1.2.3\n");
	put(strcat(strcpy((char[96]){ 0 }, d), "/serial"), "%016x\n",
	    0x5100 + n);
	put(strcat(strcpy((char[96]){ 0 }, d), "/reset_count"), "%u\n", n);
	snprintf(d, sizeof(d), "dev/ipu%u", n);
	put(d, "%s", "");
}

/*
 * A PCI function at @addr as the PCI core shows it, with a 4 KiB config
 * space (or only its first @cfg_len bytes, as a normal user reads it):
 * the spec's header, PM, MSI-X (4 vectors), PCIe (link capability Gen4
 * x16, status @speed x@width) and DSN @dsn (docs/hardware.md 1.2).
 */
static void pci_fn(const char *addr, unsigned int speed, unsigned int width,
		   size_t cfg_len, const char *driver, uint64_t dsn)
{
	uint8_t cfg[4096] = { 0 };
	char d[128], p[192];
	uint32_t v;

	cfg[0] = 0xfe; cfg[1] = 0x1f; cfg[2] = 0x00; cfg[3] = 0x01;
	cfg[6] = 0x10;				/* capabilities list */
	cfg[8] = 0x01;				/* revision */
	cfg[0x0b] = 0x12;			/* class 0x120000 */
	cfg[0x2c] = 0xfe; cfg[0x2d] = 0x1f; cfg[0x2e] = 0x00; cfg[0x2f] = 0x01;
	cfg[0x34] = 0x40;
	cfg[0x40] = 0x01; cfg[0x41] = 0x50;	/* PM -> 0x50 */
	cfg[0x42] = 0x03;
	cfg[0x50] = 0x11; cfg[0x51] = 0x60;	/* MSI-X -> 0x60 */
	cfg[0x52] = 0x03;			/* table size 3: 4 vectors */
	cfg[0x60] = 0x10; cfg[0x61] = 0x00;	/* PCIe, last */
	cfg[0x62] = 0x02;
	v = 0x104;				/* LNKCAP Gen4 x16 */
	memcpy(&cfg[0x6c], &v, 4);
	cfg[0x72] = (uint8_t)(speed | (width << 4));
	cfg[0x73] = (uint8_t)(width >> 4);
	v = 0x00010003;				/* DSN, last */
	memcpy(&cfg[0x100], &v, 4);
	v = (uint32_t)dsn;
	memcpy(&cfg[0x104], &v, 4);
	v = (uint32_t)(dsn >> 32);
	memcpy(&cfg[0x108], &v, 4);

	snprintf(d, sizeof(d), "sys/bus/pci/devices/%s", addr);
	snprintf(p, sizeof(p), "%s/config", d);
	put_bytes(p, cfg, cfg_len);
	snprintf(p, sizeof(p), "%s/vendor", d);
	put(p, "0x1ffe\n");
	snprintf(p, sizeof(p), "%s/device", d);
	put(p, "0x0100\n");
	snprintf(p, sizeof(p), "%s/class", d);
	put(p, "0x120000\n");
	snprintf(p, sizeof(p), "%s/irq", d);
	put(p, "0\n");
	snprintf(p, sizeof(p), "%s/numa_node", d);
	put(p, "0\n");
	snprintf(p, sizeof(p), "%s/revision", d);
	put(p, "0x01\n");
	snprintf(p, sizeof(p), "%s/subsystem_vendor", d);
	put(p, "0x1ffe\n");
	snprintf(p, sizeof(p), "%s/subsystem_device", d);
	put(p, "0x0100\n");
	/* BAR0 64 KiB, BAR2 64-bit prefetchable 64 MiB. */
	snprintf(p, sizeof(p), "%s/resource", d);
	put(p, "0x00000000fe000000 0x00000000fe00ffff 0x0000000000040200\n"
	       "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	       "0x0000000800000000 0x0000000803ffffff 0x000000000014220c\n"
	       "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	       "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	       "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
	       "0x0000000000000000 0x0000000000000000 0x0000000000000000\n");
	snprintf(p, sizeof(p), "%s/current_link_speed", d);
	put(p, "%s GT/s PCIe\n", speed == 4 ? "16.0" : speed == 3 ? "8.0" :
	    speed == 2 ? "5.0" : "2.5");
	snprintf(p, sizeof(p), "%s/current_link_width", d);
	put(p, "%u\n", width);
	snprintf(p, sizeof(p), "%s/max_link_speed", d);
	put(p, "16.0 GT/s PCIe\n");
	snprintf(p, sizeof(p), "%s/max_link_width", d);
	put(p, "16\n");
	if (driver) {
		/* libpci resolves the link: its target must exist. */
		snprintf(p, sizeof(p), "sys/bus/pci/drivers/%s", driver);
		mkdirs(p);
		snprintf(p, sizeof(p), "%s/driver", d);
		link_to(p, strcat(strcpy((char[96]){ 0 }, "../../drivers/"),
				  driver));
	}
}

/* Collect below root and print each way; the text, valid JSON checked. */
struct out {
	struct info_report rep;
	char *table, *json;
};

static char *print_table(const struct info_report *rep, unsigned int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	info_print_table(f, rep, width);
	fclose(f);
	return buf;
}

static void collect(struct out *o, unsigned int flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	long bad;

	assert_int_equal(info_collect(root, flags, &o->rep), 0);
	o->table = print_table(&o->rep, 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	info_print_json(f, &o->rep, NULL, NULL);
	fclose(f);
	o->json = buf;
	bad = json_check(o->json);
	if (bad >= 0)
		fail_msg("invalid JSON at byte %ld: ...%.40s\n%s", bad,
			 o->json + bad, o->json);
	/* Whatever the files held, no control byte reaches a terminal. */
	for (buf = o->table; *buf; buf++)
		if ((unsigned char)*buf < 0x20 && *buf != '\n')
			fail_msg("control byte 0x%02x in the table:\n%s", *buf,
				 o->table);
}

static void out_free(struct out *o)
{
	info_report_free(&o->rep);
	free(o->table);
	free(o->json);
}

static bool has_note(const struct info_report *rep, const char *a,
		     const char *b)
{
	size_t i;

	for (i = 0; i < rep->nnotes; i++)
		if (strstr(rep->notes[i], a) && (!b || strstr(rep->notes[i], b)))
			return true;
	return false;
}

#define assert_contains(hay, needle)                                      \
	do {                                                              \
		if (!strstr((hay), (needle)))                             \
			fail_msg("no \"%s\" in:\n%s", (needle), (hay));   \
	} while (0)

static void test_no_driver_says_so(void **state)
{
	struct out o;

	(void)state;
	assert_int_equal(rmdir(strcat(strcpy((char[PATH_MAX]){ 0 }, root),
				      "/sys/class/ipu")), 0);
	collect(&o, 0);
	assert_int_equal(o.rep.nipus, 0);
	assert_contains(o.table, "no IPU found");
	assert_true(has_note(&o.rep, "ipu.ko is not loaded", NULL));
	assert_contains(o.json, "\"ipus\": [\n  ]");
	out_free(&o);
}

static void test_sim_ipus_every_field(void **state)
{
	struct out o;

	(void)state;
	sim_ipu(1);
	sim_ipu(0);
	put("proc/77/comm", "trainer\n");
	put("sys/class/ipu/ipu1/owner_pid", "77\n");
	collect(&o, 0);
	assert_int_equal(o.rep.nipus, 2);
	/* Sorted by index, whatever readdir() said. */
	assert_int_equal(o.rep.ipus[0].index, 0);
	assert_string_equal(o.rep.ipus[1].node, "/dev/ipu1");
	assert_string_equal(o.rep.ipus[0].platform, "sim");
	assert_string_equal(o.rep.ipus[0].firmware, "1.2.3");
	assert_int_equal(o.rep.ipus[1].serial, 0x5101);
	assert_int_equal(o.rep.ipus[1].owner_pid, 77);
	assert_string_equal(o.rep.ipus[1].owner_comm, "trainer");
	assert_contains(o.table, "4.0 KiB / 64.0 MiB");
	assert_contains(o.table, "77 trainer");
	assert_contains(o.table, "0000000000005101");
	assert_contains(o.json, "\"memory_total\": 67108864");
	assert_contains(o.json, "\"owner\": {\"pid\": 77, \"comm\": \"trainer\"}");
	/* /dev/ipuN is a plain file here: GET_INFO fails, and says so. */
	assert_false(o.rep.ipus[0].have_ioctl);
	assert_true(has_note(&o.rep, "GET_INFO", NULL));
	assert_contains(o.json, "\"api_version\": null");
	out_free(&o);
}

static void test_missing_attributes_are_unknown(void **state)
{
	struct out o;

	(void)state;
	put("sys/class/ipu/ipu3/platform", "sim\n");
	collect(&o, 0);
	assert_int_equal(o.rep.nipus, 1);
	assert_false(o.rep.ipus[0].have_mem_total);
	assert_false(o.rep.ipus[0].have_fw);
	assert_false(o.rep.ipus[0].have_owner);
	/* Absence is not a fault worth a note per attribute. */
	assert_false(has_note(&o.rep, "sysfs", NULL));
	assert_contains(o.table, "/dev/ipu3");
	assert_contains(o.json, "\"memory_total\": null");
	assert_contains(o.json, "\"firmware_version\": null");
	assert_contains(o.json, "\"owner_known\": false");
	out_free(&o);
}

static void test_hostile_files_are_refused_by_name(void **state)
{
	char big[6000];
	struct out o;

	(void)state;
	sim_ipu(0);
	put("sys/class/ipu/ipu0/memory_total", "-5\n");
	put("sys/class/ipu/ipu0/serial", "zz\n");
	put("sys/class/ipu/ipu0/owner_pid", "99999999999\n");
	put("sys/class/ipu/ipu0/firmware_version", "1.2\n");
	put("sys/class/ipu/ipu0/reset_count", "123456789012345678901234567890\n");
	put("sys/class/ipu/ipu0/platform", "s\x1b[31mi\"m\\\n");
	memset(big, '7', sizeof(big));
	put_bytes("sys/class/ipu/ipu0/memory_used", big, sizeof(big));
	put("sys/class/ipu/ipu0/device/hwmon/hwmon0/temp1_input", "abc\n");
	put("sys/class/ipu/ipu0/device/hwmon/hwmon0/power1_input",
	    "999999999999999999\n");
	/* Truncated: empty. */
	put("sys/class/ipu/ipu1/platform", "%s", "");
	put("sys/class/ipu/ipu1/memory_total", "%s", "");
	/* Not IPUs: never listed. */
	mkdirs("sys/class/ipu/ipu01");
	mkdirs("sys/class/ipu/ipu-1");
	mkdirs("sys/class/ipu/ipu99999999999");
	collect(&o, 0);
	assert_int_equal(o.rep.nipus, 2);
	assert_false(o.rep.ipus[0].have_mem_total);
	assert_false(o.rep.ipus[0].have_serial);
	assert_false(o.rep.ipus[0].have_owner);
	assert_false(o.rep.ipus[0].have_fw);
	assert_false(o.rep.ipus[0].have_resets);
	assert_false(o.rep.ipus[0].have_mem_used);
	assert_false(o.rep.ipus[0].have_temp);
	assert_false(o.rep.ipus[0].have_power);
	assert_true(has_note(&o.rep, "ipu0: sysfs memory_total", "malformed"));
	assert_true(has_note(&o.rep, "ipu0: sysfs serial", "malformed"));
	assert_true(has_note(&o.rep, "ipu0: sysfs owner_pid", "malformed"));
	assert_true(has_note(&o.rep, "ipu0: sysfs firmware_version", NULL));
	assert_true(has_note(&o.rep, "ipu0: sysfs reset_count", "malformed"));
	assert_true(has_note(&o.rep, "ipu0: sysfs memory_used", "too long"));
	assert_true(has_note(&o.rep, "ipu0: hwmon temp1_input", "malformed"));
	assert_true(has_note(&o.rep, "ipu0: hwmon power1_input", "implausible"));
	assert_true(has_note(&o.rep, "ipu1: sysfs memory_total", "malformed"));
	/* The escape sequence is defused; quotes are escaped in JSON. */
	assert_string_equal(o.rep.ipus[0].platform, "s?[31mi\"m\\");
	assert_contains(o.json, "\"platform\": \"s?[31mi\\\"m\\\\\"");
	out_free(&o);
}

static void test_huge_values_print_whole(void **state)
{
	struct out o;

	(void)state;
	sim_ipu(0);
	put("sys/class/ipu/ipu0/memory_total", "18446744073709551615\n");
	put("sys/class/ipu/ipu0/memory_used", "18446744073709551615\n");
	put("sys/class/ipu/ipu0/reset_count", "18446744073709551615\n");
	put("sys/class/ipu/ipu0/serial", "ffffffffffffffff\n");
	put("sys/class/ipu/ipu0/firmware_version", "65535.255.255\n");
	collect(&o, 0);
	assert_contains(o.table, "16.0 EiB / 16.0 EiB");
	assert_contains(o.table, "18446744073709551615");
	assert_contains(o.table, "65535.255.255");
	assert_contains(o.json, "\"memory_total\": 18446744073709551615");
	assert_contains(o.json, "\"serial\": \"ffffffffffffffff\"");
	out_free(&o);
}

static void test_sensors_from_hwmon(void **state)
{
	struct out o;

	(void)state;
	sim_ipu(0);
	put("sys/class/ipu/ipu0/device/hwmon/hwmon3/temp1_input", "45250\n");
	put("sys/class/ipu/ipu0/device/hwmon/hwmon3/power1_input", "12500000\n");
	collect(&o, 0);
	assert_true(o.rep.ipus[0].have_temp);
	assert_contains(o.table, "45.2 C");
	assert_contains(o.table, "12.5 W");
	assert_contains(o.json, "\"temperature_mc\": 45250");
	assert_contains(o.json, "\"power_uw\": 12500000");
	out_free(&o);
}

static void test_holders_from_proc(void **state)
{
	struct out o;

	(void)state;
	sim_ipu(0);
	sim_ipu(1);
	put("proc/100/comm", "reader\n");
	link_to("proc/100/fd/3", "/dev/ipu1");
	link_to("proc/100/fd/4", "/dev/ipu1");
	put("proc/200/comm", "other\n");
	link_to("proc/200/fd/5", "/dev/ipu1");
	/* Lookalikes: not holders. */
	link_to("proc/300/fd/3", "/dev/ipu10");
	link_to("proc/300/fd/4", "/dev/ipu1 (deleted)");
	link_to("proc/300/fd/5", "/dev/ipu");
	mkdirs("proc/self");
	collect(&o, 0);
	assert_int_equal(o.rep.ipus[0].nholders, 0);
	assert_int_equal(o.rep.ipus[1].nholders, 2);
	assert_true(o.rep.ipus[1].have_holders);
	assert_contains(o.table, "open: ");
	assert_contains(o.table, " +1");
	assert_contains(o.json, "\"holders_total\": 2");
	out_free(&o);
}

/* ipu.ko's fdinfo keys (driver/ipu_fdinfo.c), summed over a process's
 * files; another driver's, or a malformed value, count for nothing. */
static void test_fdinfo_keys_are_parsed(void **state)
{
	struct info_usage u = { 0 };

	(void)state;
	assert_true(info_fdinfo_parse("pos:\t0\ndrm-driver:\tipu\n"
				      "drm-client-id:\t3\n"
				      "drm-total-memory:\t8 KiB\n"
				      "drm-engine-launch:\t1500 ns\n"
				      "drm-engine-xfer:\t20 ns\n"
				      "ipu-buffers:\t2\n", &u));
	assert_true(info_fdinfo_parse("drm-driver: ipu\n"
				      "drm-total-memory: 1 MiB\n"
				      "drm-engine-launch: 500\n"
				      "ipu-buffers: 1", &u));
	assert_int_equal(u.files, 2);
	assert_int_equal(u.buffers, 3);
	assert_int_equal(u.bytes, (8 << 10) + (1 << 20));
	assert_int_equal(u.launch_ns, 2000);
	assert_int_equal(u.xfer_ns, 20);
	/* Not ours: nothing added. */
	assert_false(info_fdinfo_parse("drm-driver:\tamdgpu\n"
				       "drm-total-memory:\t4 KiB\n", &u));
	assert_false(info_fdinfo_parse("pos:\t0\nflags:\t02\n", &u));
	assert_false(info_fdinfo_parse("", &u));
	/* A value in a unit the convention lacks, or no number: skipped. */
	assert_true(info_fdinfo_parse("drm-driver:\tipu\n"
				      "drm-total-memory:\t4 GiB\n"
				      "ipu-buffers:\tmany\n"
				      "drm-engine-xfer:\t99999999999999999999999 ns\n", &u));
	assert_int_equal(u.files, 3);
	assert_int_equal(u.buffers, 3);
	assert_int_equal(u.bytes, (8 << 10) + (1 << 20));
	assert_int_equal(u.xfer_ns, 20);
}

/* What test_unreadable_fds_need_root checks, as whoever runs it: exit
 * status 0 when the holders are flagged incomplete and a note says root
 * would see them (no cmocka asserts: it may run in a child). */
static int unreadable_fds_check(void)
{
	struct info_report rep;
	int st;

	if (info_collect(root, INFO_NO_PCI, &rep))
		return 2;
	st = rep.nipus == 1 && !rep.ipus[0].have_holders &&
	     has_note(&rep, "holders", "run as root") ? 0 : 1;
	info_report_free(&rep);
	return st;
}

static void test_unreadable_fds_need_root(void **state)
{
	char path[PATH_MAX];
	pid_t pid;
	int st;

	(void)state;
	sim_ipu(0);
	mkdirs("proc/400/fd");
	snprintf(path, sizeof(path), "%s/proc/400/fd", root);
	assert_int_equal(chmod(path, 0), 0);
	if (geteuid() != 0) {
		assert_int_equal(unreadable_fds_check(), 0);
		return;
	}
	/* Root reads every directory: look as nobody instead. */
	assert_int_equal(chmod(root, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		_exit(unreadable_fds_check());
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_pci_ipu_degraded_link_and_caps(void **state)
{
	struct out o;
	char *details = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	sim_ipu(0);
	sim_ipu(2);
	put("sys/class/ipu/ipu2/platform", "pci\n");
	pci_fn("0000:01:00.0", 1, 1, 4096, "ipu",
	       0x1122334455667788ull);
	link_to("sys/class/ipu/ipu2/device", "../../../bus/pci/devices/0000:01:00.0");
	collect(&o, 0);
	assert_true(o.rep.pci_scanned);
	assert_true(o.rep.ipus[1].have_pci);
	assert_false(o.rep.ipus[0].have_pci);
	assert_int_equal(o.rep.nunbound, 0);
	{
		const struct info_pci *p = &o.rep.ipus[1].pci;

		assert_int_equal(p->vendor, 0x1ffe);
		assert_int_equal(p->device, 0x0100);
		assert_true(p->names_from_spec);
		assert_string_equal(p->driver, "ipu");
		assert_true(p->config_full);
		assert_string_equal(p->link_source, "config");
		assert_int_equal(p->link_max.speed, 160);
		assert_int_equal(p->link_max.width, 16);
		assert_int_equal(p->link_cur.speed, 25);
		assert_int_equal(p->link_cur.width, 1);
		assert_true(p->degraded);
		assert_int_equal(p->msix_vectors, 4);
		assert_true(p->have_dsn);
		assert_int_equal(p->dsn, 0x1122334455667788ull);
		assert_string_equal(p->caps, "PM MSI-X PCIe DSN");
		assert_int_equal(p->bars[2].size, 64 << 20);
		assert_true(p->bars[2].is64);
		assert_true(p->bars[2].prefetch);
		assert_int_equal(p->bars[0].size, 64 << 10);
	}
	assert_contains(o.table, "0000:01:00.0");
	assert_contains(o.table, "2.5GT/s x1 of 16GT/s x16 DEGRADED");
	assert_contains(o.table, "(spec)");
	assert_contains(o.json, "\"link_degraded\": true");
	assert_contains(o.json, "\"capabilities\": [\"PM\", \"MSI-X\", \"PCIe\", \"DSN\"]");
	assert_contains(o.json, "\"names_from\": \"spec\"");
	f = open_memstream(&details, &len);
	assert_non_null(f);
	info_print_details(f, &o.rep, info_find(&o.rep, "/dev/ipu2"));
	fclose(f);
	assert_contains(details, "msi-x vectors          4");
	assert_contains(details, "1122334455667788");
	assert_contains(details, "bar2");
	assert_contains(details, "64.0 MiB, 64-bit, prefetchable");
	free(details);
	out_free(&o);
}

static void test_unbound_functions_listed(void **state)
{
	struct out o;

	(void)state;
	sim_ipu(0);
	pci_fn("0000:02:00.0", 4, 16, 4096, NULL, 1);
	pci_fn("0000:03:00.0", 4, 16, 4096, "vfio-pci", 2);
	collect(&o, 0);
	assert_int_equal(o.rep.nipus, 1);
	assert_int_equal(o.rep.nunbound, 2);
	assert_string_equal(o.rep.unbound[0].addr, "0000:02:00.0");
	assert_string_equal(o.rep.unbound[0].driver, "");
	assert_false(o.rep.unbound[0].degraded);
	assert_string_equal(o.rep.unbound[1].driver, "vfio-pci");
	assert_ptr_equal(info_find_unbound(&o.rep, "02:00.0"), &o.rep.unbound[0]);
	assert_ptr_equal(info_find_unbound(&o.rep, "0000:03:00.0"),
			 &o.rep.unbound[1]);
	assert_null(info_find_unbound(&o.rep, "04:00.0"));
	assert_null(info_find_unbound(&o.rep, "0000:02:00"));
	assert_contains(o.table, "PCI functions with IPU IDs and no /dev/ipuN:");
	assert_contains(o.table, "1ffe:0100");
	assert_contains(o.table, "none");
	assert_contains(o.table, "vfio-pci");
	assert_contains(o.json, "\"address\": \"0000:02:00.0\"");
	assert_contains(o.json, "\"driver\": null");
	out_free(&o);
}

/* What a normal user reads: config space stops at 64 bytes. */
static void test_config_64_bytes_link_from_sysfs(void **state)
{
	struct out o;

	(void)state;
	pci_fn("0000:02:00.0", 3, 8, 64, NULL, 1);
	collect(&o, 0);
	assert_int_equal(o.rep.nunbound, 1);
	assert_false(o.rep.unbound[0].config_full);
	assert_string_equal(o.rep.unbound[0].link_source, "sysfs");
	assert_int_equal(o.rep.unbound[0].link_cur.speed, 80);
	assert_int_equal(o.rep.unbound[0].link_cur.width, 8);
	assert_true(o.rep.unbound[0].degraded);
	assert_false(o.rep.unbound[0].have_dsn);
	assert_true(has_note(&o.rep, "pci", "needs root"));
	assert_contains(o.json, "\"capabilities\": null");
	assert_contains(o.json, "\"config_space_full\": false");
	out_free(&o);
}

/* libpci's fatal errors (a function without its files) cost the PCI
 * part, not the run. */
static void test_broken_pci_tree_is_a_note(void **state)
{
	struct out o;

	(void)state;
	sim_ipu(0);
	mkdirs("sys/bus/pci/devices/0000:09:00.0");
	collect(&o, 0);
	assert_int_equal(o.rep.nipus, 1);
	assert_true(has_note(&o.rep, "pci: libpci", NULL));
	out_free(&o);
}

static void test_narrow_terminal_drops_columns(void **state)
{
	struct out o;
	char *t, *line, *save = NULL;

	(void)state;
	sim_ipu(0);
	put("proc/77/comm", "trainer\n");
	put("sys/class/ipu/ipu0/owner_pid", "77\n");
	collect(&o, INFO_NO_PCI);
	t = print_table(&o.rep, 60);
	assert_contains(t, "left out for 60 columns");
	assert_contains(t, "DEVICE");
	assert_contains(t, "77 trainer");
	for (line = strtok_r(t, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "(", 1) && strncmp(line, "  ", 2) &&
		    strlen(line) > 60 && !strstr(line, "notes"))
			fail_msg("line of %zu columns: %s", strlen(line), line);
	free(t);
	out_free(&o);
}

static void test_find_names(void **state)
{
	struct out o;

	(void)state;
	sim_ipu(0);
	sim_ipu(12);
	collect(&o, INFO_NO_PCI);
	assert_ptr_equal(info_find(&o.rep, "12"), &o.rep.ipus[1]);
	assert_ptr_equal(info_find(&o.rep, "ipu12"), &o.rep.ipus[1]);
	assert_ptr_equal(info_find(&o.rep, "/dev/ipu0"), &o.rep.ipus[0]);
	assert_null(info_find(&o.rep, "3"));
	assert_null(info_find(&o.rep, "model:0"));
	assert_null(info_find(&o.rep, "x"));
	assert_null(info_find(&o.rep, "12x"));
	assert_null(info_find(&o.rep, ""));
	out_free(&o);
}

static void test_model_listed_when_asked(void **state)
{
	struct out o;

	(void)state;
	setenv("IPU_MODEL_DEVICES", "3", 1);
	collect(&o, INFO_MODEL | INFO_NO_PCI);
	assert_int_equal(o.rep.nipus, 3);
	assert_true(o.rep.ipus[2].model);
	assert_string_equal(o.rep.ipus[2].node, "model:2");
	assert_string_equal(o.rep.ipus[2].platform, "model");
	assert_true(o.rep.ipus[0].have_ioctl);
	assert_contains(o.table, "model:1");
	assert_contains(o.json, "\"model\": true");
	assert_ptr_equal(info_find(&o.rep, "model:2"), &o.rep.ipus[2]);
	out_free(&o);
}

/*
 * A name from sysfs in UTF-8 stays that text in JSON ("é", not the two
 * Latin-1 characters of its bytes); a byte that is not UTF-8 is U+FFFD.
 */
static void test_json_strings_keep_utf8(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	info_json_str(f, "caf\xc3\xa9 \xe2\x82\xac \xff\x01");
	fclose(f);
	assert_string_equal(buf, "\"caf\xc3\xa9 \xe2\x82\xac \\ufffd\\u0001\"");
	free(buf);
}

static void test_json_checker_rejects(void **state)
{
	(void)state;
	assert_int_equal(json_check("{\"a\": [1, -2.5e3, null, true, \"x\\u00e9\"]}"), -1);
	assert_true(json_check("{\"a\": 1,}") >= 0);
	assert_true(json_check("{\"a\": 01}") >= 0);
	assert_true(json_check("{\"a\": \"\x01\"}") >= 0);
	assert_true(json_check("[1] 2") >= 0);
	assert_true(json_check("{\"a\" 1}") >= 0);
	assert_true(json_check("") >= 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_driver_says_so, setup, teardown),
		cmocka_unit_test(test_fdinfo_keys_are_parsed),
		cmocka_unit_test_setup_teardown(test_sim_ipus_every_field, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_attributes_are_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_files_are_refused_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_values_print_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sensors_from_hwmon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_holders_from_proc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_fds_need_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pci_ipu_degraded_link_and_caps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbound_functions_listed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_64_bytes_link_from_sysfs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken_pci_tree_is_a_note, setup, teardown),
		cmocka_unit_test_setup_teardown(test_narrow_terminal_drops_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_listed_when_asked, setup, teardown),
		cmocka_unit_test(test_json_checker_rejects),
		cmocka_unit_test(test_json_strings_keep_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
