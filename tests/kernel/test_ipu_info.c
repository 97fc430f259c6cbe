// SPDX-License-Identifier: GPL-2.0
/*
 * test_ipu_info.c - the ipu-info binary (/usr/bin/ipu-info, put in the
 * guest by scripts/kernel-check with libpci's closure) on a booted kernel
 * with ipu.ko and the rig's PCI IPUs, as a user runs it: it sees every
 * /dev/ipuN with what GET_INFO says, the process that holds one, and the
 * IPU_EMU_IPUS functions with the spec's IDs (docs/hardware.md section 1)
 * through libpci, bound to ipu.ko or not, with their link, MSI-X vectors,
 * serial number and BARs; the JSON document parses. The guest runs as
 * root, so config space past 64 bytes is read (the capabilities); run as
 * nobody it gets what a normal user can read, and the notes say what
 * needs root. Its --reset, on a simulated and a PCI IPU: done through the
 * node when nobody holds it, refused while one does, forced through the
 * PCI core on an attached PCI IPU.
 */
#include "ktest.h"

#include "json_check.h"

#define INFO "/usr/bin/ipu-info"
#define OUT_LEN (256 * 1024)
#define SPEC_VENDOR 0x1ffe
#define SPEC_DEVICE 0x0100

static unsigned int expected_pci;
/* Of which present MSI instead of MSI-X (IPU_EMU_MSI). */
static unsigned int expected_msi;
static char out[OUT_LEN];

/* Run ipu-info with @args (NULL-terminated) as @uid; its exit status. */
static int info_run(uid_t uid, const char *const *args)
{
	const char *argv[16] = { INFO };
	size_t n = 1;

	if (access(INFO, X_OK)) {
		print_message(INFO " is not in this guest: skipped\n");
		kt_skip();
	}
	while (*args && n < KT_ARRAY_SIZE(argv) - 1)
		argv[n++] = *args++;
	argv[n] = NULL;
	return kt_run(argv, uid, out, sizeof(out));
}

/* The JSON report (--json and @more), checked for what every one must be. */
static void info_json(uid_t uid, const char *more)
{
	long bad;

	assert_int_equal(info_run(uid, (const char *[]){ "--json", more, NULL }), 0);
	bad = json_check(out);
	if (bad >= 0)
		fail_msg("invalid JSON at byte %ld:\n%s", bad, out);
	assert_non_null(strstr(out, "\"schema\": \"ipu-info\""));
}

/* How many times @needle occurs in the last output. */
static unsigned int count(const char *needle)
{
	const char *p = out;
	unsigned int n = 0;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/* The value of "  KEY<padding> VALUE" of -d's output ("" if none). */
static const char *detail(const char *key, char *buf, size_t len)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "\n  %-22s ", key);
	p = strstr(out, want);
	buf[0] = '\0';
	if (p)
		snprintf(buf, len, "%.*s", (int)strcspn(p + strlen(want), "\n"),
			 p + strlen(want));
	return buf;
}

static void assert_detail(const char *key, const char *want)
{
	char got[256];

	detail(key, got, sizeof(got));
	if (strcmp(got, want))
		fail_msg("ipu-info -d: %s is \"%s\", not \"%s\"\n%s", key, got,
			 want, out);
}

static void test_every_dev_node_is_detailed_with_get_info(void **state)
{
	struct ipu_info info;
	char idx[16], want[64], got[256];
	unsigned int i;
	int fd;

	(void)state;
	kt_require_dev(0);
	for (i = 0; i < 64; i++) {
		if (!kt_have_dev(i))
			continue;
		fd = kt_open(i);
		info = kt_info(fd);
		kt_close(fd);
		snprintf(idx, sizeof(idx), "%u", i);
		assert_int_equal(info_run(0, (const char *[]){ "-d", idx, NULL }), 0);
		snprintf(want, sizeof(want), "%u", info.api_version);
		assert_detail("api version", want);
		snprintf(want, sizeof(want), "0x%llx ", (unsigned long long)info.features);
		if (strncmp(detail("features", got, sizeof(got)), want, strlen(want)))
			fail_msg("features \"%s\", GET_INFO says %s", got, want);
		snprintf(want, sizeof(want), "%016llx", (unsigned long long)info.serial);
		assert_detail("serial", want);
		snprintf(want, sizeof(want), "%llu bytes",
			 (unsigned long long)info.memory_total);
		assert_non_null(strstr(out, want));
		assert_detail("platform", info.platform == IPU_PLATFORM_PCI ? "pci" : "sim");
		assert_int_equal(strstr(out, "pci address") != NULL,
				 info.platform == IPU_PLATFORM_PCI);
	}
}

static void test_attached_owner_and_holder_are_this_process(void **state)
{
	char comm[32], want[128];
	FILE *f;

	(void)state;
	kt_open_attached(0);
	f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	assert_int_equal(info_run(0, (const char *[]){ "-d", "0", "--no-pci", NULL }), 0);
	snprintf(want, sizeof(want), "%d %s", getpid(), comm);
	assert_detail("owner (attached)", want);
	/* Root reads every process's fds: this one is among the holders,
	 * with what ipu.ko's fdinfo says of its one file. */
	snprintf(want, sizeof(want), " %d %s: 1 file, 0 buffers, 0 B, launch ",
		 getpid(), comm);
	if (!strstr(out, want))
		fail_msg("no \"%s\" in:\n%s", want, out);
}

/* The first ipuN of sysfs platform @platform, or -1. */
static int first_of(const char *platform)
{
	char path[64], buf[16];
	int n;

	for (n = 0; n < 64; n++) {
		snprintf(path, sizeof(path), KT_SYSFS_CLASS "/ipu%d/platform", n);
		if (!kt_read_file(path, buf, sizeof(buf)) && !strcmp(buf, platform))
			return n;
	}
	return -1;
}

static unsigned long long resets(int n)
{
	char buf[32];

	kt_sysfs_ipu((unsigned int)n, "reset_count", buf, sizeof(buf));
	return strtoull(buf, NULL, 10);
}

/* ipu-info --reset @name [--force] has status @st, saying @msg. */
static void reset_run(const char *name, bool force, int st, const char *msg)
{
	int got = info_run(0, (const char *[]){ "--reset", name,
						force ? "--force" : NULL, NULL });

	if (got != st || !strstr(out, msg))
		fail_msg("ipu-info --reset %s%s: status %d (not %d), output:\n%s\n(wanted \"%s\")",
			 name, force ? " --force" : "", got, st, out, msg);
}

static void test_reset_of_a_simulated_ipu_refused_while_held(void **state)
{
	int n = first_of("sim"), fd;
	unsigned long long r0;
	char name[16], want[64];

	(void)state;
	if (n < 0) {
		print_message("no simulated IPU: skipped\n");
		kt_skip();
	}
	snprintf(name, sizeof(name), "ipu%d", n);
	r0 = resets(n);
	/* Nobody holds it (ipu-simd runs it: its file's ipu-role is
	 * firmware): ATTACH, RESET, DETACH through the node. */
	reset_run(name, false, 0, "reset (RESET ioctl)");
	assert_int_equal(resets(n), r0 + 1);
	/* Attached by this process: refused, even forced (only the owner
	 * resets a simulated IPU). */
	fd = kt_open((unsigned int)n);
	assert_int_equal(kt_attach(fd), 0);
	snprintf(want, sizeof(want), "attached by %d (", getpid());
	reset_run(name, false, 4, want);
	reset_run(name, true, 4, "reset only by the process attached to it");
	assert_int_equal(resets(n), r0 + 1);
	/*
	 * Open but not attached: refused, and forced it goes through. The
	 * holder named may be ipu-simd (lower pid) if it has not attached
	 * as the firmware again since the reset revoked it.
	 */
	assert_int_equal(kt_detach(fd), 0);
	snprintf(want, sizeof(want), "ipu%d is in use: open by ", n);
	reset_run(name, false, 4, want);
	reset_run(name, true, 0, "reset (RESET ioctl)");
	assert_int_equal(resets(n), r0 + 2);
}

static void test_reset_of_a_pci_ipu_by_address_forced_while_held(void **state)
{
	int n = first_of("pci"), fd;
	unsigned long long r0;
	char addr[32], want[96];

	(void)state;
	if (n < 0 || kt_pci_fn_of((unsigned int)n, addr, sizeof(addr))) {
		print_message("no PCI IPU: skipped\n");
		kt_skip();
	}
	r0 = resets(n);
	reset_run(addr, false, 0, "reset (RESET ioctl)");
	assert_int_equal(resets(n), r0 + 1);
	fd = kt_open((unsigned int)n);
	assert_int_equal(kt_attach(fd), 0);
	snprintf(want, sizeof(want), "ipu%d is in use: attached by %d (", n,
		 getpid());
	reset_run(addr, false, 4, want);
	assert_int_equal(resets(n), r0 + 1);
	/* Forced: the PCI core's function reset; the file stays attached. */
	snprintf(want, sizeof(want), "(%s): reset through the PCI core", addr);
	reset_run(addr, true, 0, want);
	assert_int_equal(resets(n), r0 + 2);
	assert_int_equal(kt_attach(fd), -EALREADY);
}

/* Every function with the spec's IDs, whether ipu.ko has it or not. */
static void test_pci_functions_with_the_spec_s_ids_are_seen(void **state)
{
	char want[64], dsn[16][40];
	const char *p;
	unsigned int j, n = 0;

	(void)state;
	if (!expected_pci) {
		print_message("no PCI IPU attached (IPU_EMU_IPUS): skipped\n");
		kt_skip();
	}
	info_json(0, NULL);
	assert_int_equal(count("\"pci_scanned\": true"), 1);
	/* Members of one PCI object, each on a line of its own. */
	snprintf(want, sizeof(want), "\"vendor_id\": %u", SPEC_VENDOR);
	assert_int_equal(count(want), expected_pci);
	snprintf(want, sizeof(want), "\"device_id\": %u", SPEC_DEVICE);
	assert_int_equal(count(want), expected_pci);
	assert_int_equal(count("\"class\": 1179648"), expected_pci); /* 0x120000 */
	assert_int_equal(count("\"revision\": 1,"), expected_pci);
	assert_int_equal(count("\"config_space_full\": true"), expected_pci);
	assert_int_equal(count("\"link_source\": \"config\""), expected_pci);
	assert_int_equal(count("\"link_max\": {\"speed_gts\": 16, \"width\": 16}"),
			 expected_pci);
	/* The rig's MSI functions (IPU_EMU_MSI) have no MSI-X vectors. */
	assert_int_equal(count("\"msix_vectors\": 4"), expected_pci - expected_msi);
	assert_int_equal(count("\"msix_vectors\": null"), expected_msi);
	/* pci.ids does not list the placeholder IDs. */
	assert_int_equal(count("\"names_from\": \"spec\""), expected_pci);
	assert_int_equal(count("\"MSI-X\""), expected_pci - expected_msi);
	assert_int_equal(count("\"MSI\""), expected_msi);
	assert_int_equal(count("\"DSN\""), expected_pci);
	assert_int_equal(count("{\"index\": 0, \"base\": "), expected_pci);
	assert_int_equal(count("\"size\": 65536, \"type\": \"memory\", \"is64\": false"),
			 expected_pci);
	assert_int_equal(count("{\"index\": 2, \"base\": "), expected_pci);
	assert_int_equal(count("\"type\": \"memory\", \"is64\": true, \"prefetchable\": true"),
			 expected_pci);
	/* Every serial number differs. */
	for (p = out; (p = strstr(p, "\"dsn\": \"")) && n < 16; p++) {
		snprintf(dsn[n], sizeof(dsn[n]), "%.16s", p + 8);
		for (j = 0; j < n; j++)
			assert_string_not_equal(dsn[j], dsn[n]);
		n++;
	}
	assert_int_equal(n, expected_pci);
}

static void test_table_and_details_name_every_device(void **state)
{
	char node[64];
	unsigned int i;

	(void)state;
	kt_require_dev(0);
	assert_int_equal(info_run(0, (const char *[]){ NULL }), 0);
	for (i = 0; i < 64; i++) {
		if (!kt_have_dev(i))
			continue;
		snprintf(node, sizeof(node), "/dev/ipu%u", i);
		assert_non_null(strstr(out, node));
	}
	/* The guest's log keeps a real run (IPU_VERBOSE=1 shows it). */
	fputs(out, stdout);
	fflush(stdout);
}

/*
 * What a normal user gets here: sysfs is world-readable, so every row is
 * there; config space past 64 bytes is not (no capabilities, no DSN, the
 * link from the PCI core's sysfs); ipu-simd (root's) holds the simulated
 * IPUs, so the holders are incomplete; and the notes say what needs root.
 */
static void test_a_normal_user_gets_what_it_can_read(void **state)
{
	(void)state;
	kt_require_dev(0);
	info_json(65534, NULL);
	assert_int_equal(count("\"memory_total\": null"), 0);
	assert_int_equal(count("\"firmware_version\": null"), 0);
	assert_int_equal(count("\"serial\": null"), 0);
	assert_int_equal(count("\"holders_complete\": true"), 0);
	assert_int_equal(count("\"config_space_full\": true"), 0);
	assert_int_equal(count("\"config_space_full\": false"), expected_pci);
	assert_int_equal(count("\"dsn\": null"), expected_pci);
	assert_int_equal(count("\"link_source\": \"sysfs\""), expected_pci);
	assert_int_equal(count("\"link_max\": {\"speed_gts\": 16, \"width\": 16}"),
			 expected_pci);
	if (!strstr(out, "needs root") && !strstr(out, "run as root"))
		fail_msg("no note on what needs root:\n%s", out);
}

int main(void)
{
	const char *env = getenv("IPU_EMU_IPUS");
	const char *msi;
	const struct CMUnitTest tests[] = {
		KT_TEST(test_every_dev_node_is_detailed_with_get_info),
		KT_TEST(test_attached_owner_and_holder_are_this_process),
		KT_TEST(test_pci_functions_with_the_spec_s_ids_are_seen),
		KT_TEST(test_table_and_details_name_every_device),
		KT_TEST(test_a_normal_user_gets_what_it_can_read),
		KT_TEST(test_reset_of_a_simulated_ipu_refused_while_held),
		KT_TEST(test_reset_of_a_pci_ipu_by_address_forced_while_held),
	};

	expected_pci = env ? (unsigned int)strtoul(env, NULL, 10) : 0;
	/* IPU_EMU_MSI: a comma-separated list of the functions with MSI. */
	msi = getenv("IPU_EMU_MSI");
	if (expected_pci && msi && *msi)
		for (expected_msi = 1; *msi; msi++)
			expected_msi += *msi == ',';
	return KT_RUN(tests);
}
