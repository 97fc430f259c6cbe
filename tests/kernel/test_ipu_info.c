// SPDX-License-Identifier: GPL-2.0
/*
 * test_ipu_info.c - ipu-info's gathering (userspace/tools/info_*.c, linked
 * in) on a booted kernel with ipu.ko and the rig's PCI IPUs: it sees every
 * /dev/ipuN with what GET_INFO says, the process that holds one, and the
 * IPU_EMU_IPUS functions with the spec's IDs (docs/hardware.md section 1)
 * through libpci, bound to ipu.ko or not, with their link, MSI-X vectors,
 * serial number and BARs; the JSON document parses. The guest runs as
 * root, so config space past 64 bytes is read (the capabilities); a child
 * that drops to nobody gets what a normal user can read, and the notes
 * say what needs root.
 */
#include "ktest.h"

#include "json_check.h"
#include "../userspace/tools/info.h"

static unsigned int expected_pci;

/* The report of this machine, checked for what every report must be. */
static void collect(struct info_report *rep, unsigned int flags)
{
	char *json = NULL;
	size_t len = 0;
	FILE *f;
	long bad;

	assert_int_equal(info_collect("/", flags, rep), 0);
	f = open_memstream(&json, &len);
	assert_non_null(f);
	info_print_json(f, rep, NULL, NULL);
	fclose(f);
	bad = json_check(json);
	if (bad >= 0)
		fail_msg("invalid JSON at byte %ld:\n%s", bad, json);
	assert_non_null(strstr(json, "\"schema\": \"ipu-info\""));
	free(json);
}

static void test_every_dev_node_is_listed_with_get_info(void **state)
{
	struct info_report rep;
	struct ipu_info info;
	size_t i;
	int fd;

	(void)state;
	kt_require_dev(0);
	collect(&rep, 0);
	assert_true(rep.nipus >= 1);
	for (i = 0; i < rep.nipus; i++) {
		const struct info_ipu *ipu = &rep.ipus[i];

		if (ipu->index > 63 || !kt_have_dev(ipu->index))
			continue;
		fd = kt_open(ipu->index);
		info = kt_info(fd);
		assert_true(ipu->have_ioctl);
		assert_int_equal(ipu->api_version, info.api_version);
		assert_int_equal(ipu->features, info.features);
		assert_true(ipu->have_mem_total);
		assert_int_equal(ipu->mem_total, info.memory_total);
		assert_true(ipu->have_serial);
		assert_int_equal(ipu->serial, info.serial);
		assert_true(ipu->have_fw);
		assert_string_equal(ipu->platform,
				    info.platform == IPU_PLATFORM_PCI ? "pci" : "sim");
		assert_int_equal(ipu->have_pci,
				 info.platform == IPU_PLATFORM_PCI);
		kt_close(fd);
	}
	info_report_free(&rep);
}

static void test_attached_owner_and_holder_are_this_process(void **state)
{
	struct info_report rep;
	const struct info_ipu *ipu;
	char comm[32];
	size_t i;
	FILE *f;

	(void)state;
	kt_open_attached(0);
	f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	collect(&rep, INFO_NO_PCI);
	ipu = info_find(&rep, "0");
	assert_non_null(ipu);
	assert_true(ipu->have_owner);
	assert_int_equal(ipu->owner_pid, getpid());
	assert_string_equal(ipu->owner_comm, comm);
	/* Root reads every process's fds: the list is complete. */
	assert_true(ipu->have_holders);
	for (i = 0; i < ipu->nholders && i < INFO_MAX_HOLDERS; i++)
		if (ipu->holders[i].pid == getpid())
			break;
	assert_true(i < ipu->nholders);
	info_report_free(&rep);
}

/* Every function with the spec's IDs, whether ipu.ko has it or not. */
static void test_pci_functions_with_the_spec_s_ids_are_seen(void **state)
{
	const struct info_pci *fns[16];
	struct info_report rep;
	size_t n = 0, i, j;

	(void)state;
	if (!expected_pci) {
		print_message("no PCI IPU attached (IPU_EMU_IPUS): skipped\n");
		kt_skip();
	}
	collect(&rep, 0);
	assert_true(rep.pci_scanned);
	for (i = 0; i < rep.nipus && n < 16; i++)
		if (rep.ipus[i].have_pci)
			fns[n++] = &rep.ipus[i].pci;
	for (i = 0; i < rep.nunbound && n < 16; i++)
		fns[n++] = &rep.unbound[i];
	assert_int_equal(n, expected_pci);
	for (i = 0; i < n; i++) {
		const struct info_pci *p = fns[i];

		assert_int_equal(p->vendor, INFO_PCI_VENDOR);
		assert_int_equal(p->device, INFO_PCI_DEVICE);
		assert_int_equal(p->class_code, 0x120000);
		assert_int_equal(p->revision, 1);
		assert_true(p->config_full);
		assert_string_equal(p->link_source, "config");
		assert_int_equal(p->link_max.speed, 160);
		assert_int_equal(p->link_max.width, 16);
		assert_true(p->link_cur.known);
		assert_true(p->have_msix);
		assert_int_equal(p->msix_vectors, 4);
		assert_true(p->have_dsn);
		assert_int_equal(p->bars[0].size, 64 << 10);
		assert_true(p->bars[2].size > 0);
		assert_true(p->bars[2].is64);
		assert_true(p->bars[2].prefetch);
		assert_non_null(strstr(p->caps, "MSI-X"));
		assert_non_null(strstr(p->caps, "PCIe"));
		assert_non_null(strstr(p->caps, "DSN"));
		/* pci.ids does not list the placeholder IDs. */
		assert_true(p->names_from_spec);
		for (j = 0; j < i; j++)
			assert_true(fns[j]->dsn != p->dsn);
	}
	info_report_free(&rep);
}

static void test_table_and_details_name_every_device(void **state)
{
	struct info_report rep;
	char *out = NULL, node[64];
	size_t len = 0, i;
	FILE *f;

	(void)state;
	kt_require_dev(0);
	collect(&rep, 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	info_print_table(f, &rep, 0);
	for (i = 0; i < rep.nipus; i++)
		info_print_details(f, &rep, &rep.ipus[i]);
	for (i = 0; i < rep.nunbound; i++)
		info_print_pci_details(f, &rep, &rep.unbound[i]);
	fclose(f);
	for (i = 0; i < rep.nipus; i++) {
		snprintf(node, sizeof(node), "/dev/ipu%u", rep.ipus[i].index);
		assert_non_null(strstr(out, node));
	}
	for (i = 0; i < rep.nunbound; i++)
		assert_non_null(strstr(out, rep.unbound[i].addr));
	/* The guest's log keeps a real run (IPU_VERBOSE=1 shows it). */
	fputs(out, stdout);
	fflush(stdout);
	free(out);
	info_report_free(&rep);
}

/* What a normal user's report must be here, checked in a child that
 * dropped root (no cmocka there): 0, or the bits of what was wrong. */
static int normal_user_report(void)
{
	struct info_report rep;
	size_t i, npci = 0;
	bool root_note = false;
	int bad = 0;

	if (info_collect("/", 0, &rep))
		return 1;
	for (i = 0; i < rep.nnotes; i++)
		if (strstr(rep.notes[i], "needs root") ||
		    strstr(rep.notes[i], "run as root"))
			root_note = true;
	for (i = 0; i < rep.nipus; i++) {
		/* sysfs is world-readable: the row is there. */
		if (!rep.ipus[i].have_mem_total || !rep.ipus[i].have_fw ||
		    !rep.ipus[i].have_serial)
			bad |= 2;
		/* ipu-simd (root's) holds the simulated IPUs: unreadable. */
		if (rep.ipus[i].have_holders)
			bad |= 4;
	}
	for (i = 0; i < rep.nunbound; i++) {
		const struct info_pci *p = &rep.unbound[i];

		npci++;
		/* 64 bytes of config space; the link from the PCI core. */
		if (p->config_full || p->have_dsn)
			bad |= 8;
		if (!p->link_source || strcmp(p->link_source, "sysfs") ||
		    p->link_max.speed != 160 || p->link_max.width != 16 ||
		    !p->link_cur.known)
			bad |= 16;
	}
	for (i = 0; i < rep.nipus; i++)
		npci += rep.ipus[i].have_pci;
	if (npci != expected_pci)
		bad |= 32;
	if ((npci || rep.nipus) && !root_note)
		bad |= 64;
	info_report_free(&rep);
	return bad;
}

static void test_a_normal_user_gets_what_it_can_read(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	kt_require_dev(0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(127);
		_exit(normal_user_report());
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	/* 2: a sysfs field missing, 4: holders complete, 8: config space
	 * read, 16: no link from sysfs, 32: functions missing, 64: no
	 * note on what needs root. */
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const char *env = getenv("IPU_EMU_IPUS");
	const struct CMUnitTest tests[] = {
		KT_TEST(test_every_dev_node_is_listed_with_get_info),
		KT_TEST(test_attached_owner_and_holder_are_this_process),
		KT_TEST(test_pci_functions_with_the_spec_s_ids_are_seen),
		KT_TEST(test_table_and_details_name_every_device),
		KT_TEST(test_a_normal_user_gets_what_it_can_read),
	};

	expected_pci = env ? (unsigned int)strtoul(env, NULL, 10) : 0;
	return KT_RUN(tests);
}
