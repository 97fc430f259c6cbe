// SPDX-License-Identifier: GPL-2.0
/*
 * test_fdinfo.c - /proc/<pid>/fdinfo/<fd> of an open /dev/ipuN
 * (driver/ipu_fdinfo.c) in the DRM fdinfo key convention: a file's keys
 * say how many buffers and bytes it holds and how long its transfers ran,
 * with a client id of its own and its role (owner once attached); what it freed is gone from them, a closed
 * file has no fdinfo, and another user's process reads none of it. A
 * simulated IPU here; a PCI one in test_pci_fdinfo.c (KT_ON_PCI), whose
 * keys also name the function (drm-pdev).
 */
#include "ktest.h"

static char text[4096];

/* The fdinfo of our @fd into text; -errno when it cannot be read. */
static int fdinfo(int fd)
{
	return kt_fdinfo(fd, text, sizeof(text));
}

/* The number of "KEY:\tN[ unit]" in text; fails the test without one. */
static unsigned long long key(const char *k)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "\n%s:\t", k);
	p = strstr(text, want);
	if (!p)
		fail_msg("no \"%s\" in fdinfo:\n%s", k, text);
	return strtoull(p + strlen(want), NULL, 10);
}

static void test_a_file_shows_its_buffers_bytes_and_transfer_time(void **state)
{
	int fd = kt_open(0);
	uint64_t g = kt_granule(fd);
	struct ipu_bo_create a, b;
	static char buf[1 << 20];
	uint32_t ha, hb;

	(void)state;
	assert_int_equal(kt_attach(fd), 0);
	assert_int_equal(fdinfo(fd), 0);
	assert_non_null(strstr(text, "\ndrm-driver:\tipu\n"));
	assert_int_equal(key("ipu-buffers"), 0);
	assert_int_equal(key("drm-total-memory"), 0);
	assert_int_equal(key("drm-engine-xfer"), 0);
	assert_int_equal(key("drm-engine-launch"), 0);
	assert_non_null(strstr(text, "\nipu-role:\towner\n"));

	ha = kt_bo(fd, sizeof(buf), &a);
	hb = kt_bo(fd, g, &b);
	assert_int_equal(fdinfo(fd), 0);
	assert_int_equal(key("ipu-buffers"), 2);
	assert_int_equal(key("drm-total-memory"), (a.size + b.size) >> 10);
	assert_int_equal(key("drm-resident-memory"), (a.size + b.size) >> 10);
	assert_non_null(strstr(text, "\ndrm-total-memory:\t"));
	assert_non_null(strstr(text, " KiB\n"));

	/* A transfer ran: its time counts. */
	kt_fill(buf, sizeof(buf), 7);
	assert_int_equal(kt_write_bo(fd, ha, 0, buf, sizeof(buf)), 0);
	assert_int_equal(fdinfo(fd), 0);
	assert_true(key("drm-engine-xfer") > 0);
	assert_non_null(strstr(text, " ns\n"));

	/* What the file freed is gone from its keys. */
	assert_int_equal(kt_bo_destroy(fd, hb), 0);
	assert_int_equal(fdinfo(fd), 0);
	assert_int_equal(key("ipu-buffers"), 1);
	assert_int_equal(key("drm-total-memory"), a.size >> 10);
}

static void test_each_file_is_its_own_client(void **state)
{
	int fd1 = kt_open(0), fd2 = kt_open(0);
	unsigned long long id1, id2;
	uint32_t domain, bdf;
	char pdev[64];

	(void)state;
	assert_int_equal(fdinfo(fd1), 0);
	id1 = key("drm-client-id");
	assert_int_equal(fdinfo(fd2), 0);
	id2 = key("drm-client-id");
	assert_true(id1 != id2);
	/* Neither attached. */
	assert_non_null(strstr(text, "\nipu-role:\tnone\n"));
	/* A PCI IPU names its function; a simulated one has none. */
	kt_pci_addr(0, &domain, &bdf);
	snprintf(pdev, sizeof(pdev), "\ndrm-pdev:\t%04x:%02x:%02x.%u\n", domain,
		 bdf >> 8 & 0xff, bdf >> 3 & 0x1f, bdf & 7);
	if (KT_PLATFORM == IPU_PLATFORM_PCI)
		assert_non_null(strstr(text, pdev));
	else
		assert_null(strstr(text, "drm-pdev"));
}

static void test_a_closed_file_has_no_fdinfo_and_its_buffers_are_gone(void **state)
{
	int fd = kt_open(0), other = kt_open(0);
	uint64_t g = kt_granule(fd);
	char used0[32], used1[32];

	(void)state;
	assert_int_equal(kt_attach(fd), 0);
	kt_sysfs(0, "memory_used", used0, sizeof(used0));
	kt_bo(fd, g, NULL);
	kt_close(fd);
	assert_int_equal(fdinfo(fd), -ENOENT);
	/* Another file of the same IPU never had them. */
	assert_int_equal(fdinfo(other), 0);
	assert_int_equal(key("ipu-buffers"), 0);
	kt_sysfs(0, "memory_used", used1, sizeof(used1));
	assert_string_equal(used0, used1);
}

static void test_another_user_reads_nothing_of_it(void **state)
{
	int fd = kt_open(0);
	char path[64];
	pid_t pid;
	int f;

	(void)state;
	assert_int_equal(kt_attach(fd), 0);
	kt_bo(fd, kt_granule(fd), NULL);
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", getpid(), fd);
	pid = kt_fork();
	if (pid == 0) {
		/* nobody: procfs asks for ptrace access to read fdinfo. */
		if (setgid(65534) || setuid(65534))
			_exit(2);
		f = open(path, O_RDONLY | O_CLOEXEC);
		if (f >= 0) {
			fprintf(stderr, "nobody opened %s\n", path);
			_exit(1);
		}
		_exit(errno == EACCES ? 0 : 3);
	}
	kt_wait_ok(pid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_a_file_shows_its_buffers_bytes_and_transfer_time),
		KT_TEST(test_each_file_is_its_own_client),
		KT_TEST(test_a_closed_file_has_no_fdinfo_and_its_buffers_are_gone),
		KT_TEST(test_another_user_reads_nothing_of_it),
	};

	return KT_RUN(tests);
}
