// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_msi.c - ipu.ko on a PCIe IPU that presents MSI instead of
 * MSI-X (docs/hardware.md section 6; the rig's second function, ipu-emu
 * --msi, IPU_EMU_MSI): x86 without interrupt remapping grants it one
 * message, so one handler serves every cause. On that function:
 *  - config space has the MSI capability where MSI-X would be, the PCI
 *    core enabled MSI (msi_irqs: one vector, mode "msi"), and
 *    /proc/interrupts has its one line, ipuN, and none of the per-queue
 *    vectors; the doorbell counts on it;
 *  - a transfer both ways (H2D then D2H) gives the bytes back;
 *  - test_pci_launch.c's tests on this function: a launch runs the MLP
 *    with the model's bits, junk is -ENOEXEC, a hung launch is reset by
 *    the watchdog (soft reset; FLR when that fails, which restores MSI)
 *    and the next launch runs;
 *  - an interrupt storm: two processes, one writing and one reading small
 *    transfers at once on the H2D and D2H queues, every transfer completes
 *    with its bytes (both causes on the one message, acknowledged and
 *    served by the one handler, none lost for good).
 * Skipped without the rig's MSI function.
 */
#include "kpci.h"

#include <dirent.h>
#include <linux/pci_regs.h>

#define PL_FN kp_msi_fn()
#define PL_NO_MAIN
#include "test_pci_launch.c"

/* Transfers per process of the storm, and their size. */
#define STORM_XFERS 200
#define STORM_LEN 4096

/* The ipuN of the MSI function. */
static unsigned int msi_ipu(void)
{
	int n = ipu_of(ipus[kp_msi_fn()]);

	if (n < 0)
		fail_msg("%s has no ipuN (not bound?)", ipus[kp_msi_fn()]);
	return (unsigned int)n;
}

/* Entries of the function's msi_irqs directory (its enabled vectors). */
static unsigned int msi_irqs(const char *bdf, char *mode, size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned int n = 0;
	DIR *d;

	fn_path(path, sizeof(path), bdf, "msi_irqs");
	d = opendir(path);
	if (!d)
		fail_msg("open %s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!n++) {
			char f[PATH_MAX + 300];
			int err;

			snprintf(f, sizeof(f), "%s/%s", path, de->d_name);
			err = kt_read_file(f, mode, len);
			if (err)
				fail_msg("read %s: %s", f, strerror(-err));
		}
	}
	closedir(d);
	return n;
}

static void test_the_function_has_one_msi_vector(void **state)
{
	const char *bdf = ipus[kp_msi_fn()];
	unsigned int n = msi_ipu();
	char name[32], mode[16], path[PATH_MAX];
	const char *const queues[] = { "misc", "h2d", "d2h", "cmd" };
	uint8_t cfg[256];
	int64_t before;
	size_t i;
	int err;

	(void)state;
	read_config(bdf, cfg, sizeof(cfg));
	assert_int_equal(cfg[IPU_CFG_MSI_CAP], PCI_CAP_ID_MSI);
	assert_int_equal(cfg16(cfg, IPU_CFG_MSI_CAP + PCI_MSI_FLAGS) &
			 PCI_MSI_FLAGS_ENABLE, PCI_MSI_FLAGS_ENABLE);
	assert_int_equal(msi_irqs(bdf, mode, sizeof(mode)), 1);
	assert_string_equal(mode, "msi");
	snprintf(name, sizeof(name), "ipu%u", n);
	before = kp_proc_interrupts(name);
	if (before < 0)
		fail_msg("no %s line in /proc/interrupts", name);
	for (i = 0; i < KT_ARRAY_SIZE(queues); i++) {
		snprintf(name, sizeof(name), "ipu%u-%s", n, queues[i]);
		assert_true(kp_proc_interrupts(name) < 0);
	}
	snprintf(path, sizeof(path), KT_DEBUGFS "/ipu%u/irq_selftest", n);
	err = kt_write_file(path, "1");
	if (err)
		fail_msg("write %s: %s", path, strerror(-err));
	snprintf(name, sizeof(name), "ipu%u", n);
	assert_int_equal(kp_proc_interrupts(name) - before, 1);
}

static void test_a_transfer_both_ways(void **state)
{
	int fd = kt_open_attached(msi_ipu());
	size_t len = 3 * 4096 + 100;
	uint8_t *buf = kt_alloc(len);
	uint32_t bo = kt_bo(fd, 1u << 20, NULL);

	(void)state;
	kt_fill(buf, len, 11);
	assert_int_equal(kt_write_bo(fd, bo, 4096, buf, len), 0);
	memset(buf, 0, len);
	assert_int_equal(kt_read_bo(fd, bo, 4096, buf, len), 0);
	assert_int_equal(kt_check(buf, len, 11), -1);
	kt_close(fd);
}

/* One storm process: STORM_XFERS transfers one way, each checked. */
static void storm(int fd, uint32_t bo, bool to_device)
{
	static uint8_t buf[STORM_LEN];
	unsigned int i;

	for (i = 0; i < STORM_XFERS; i++) {
		uint64_t off = (uint64_t)(i % 16) * STORM_LEN;

		if (to_device) {
			kt_fill(buf, sizeof(buf), 1000 + i);
			kt_child_check(kt_write_bo(fd, bo, off, buf, sizeof(buf)) == 0, 2);
		} else {
			memset(buf, 0, sizeof(buf));
			kt_child_check(kt_read_bo(fd, bo, off, buf, sizeof(buf)) == 0, 3);
			kt_child_check(kt_check(buf, sizeof(buf), 7) == -1, 4);
		}
	}
	_exit(0);
}

static void test_an_interrupt_storm_loses_no_completion(void **state)
{
	int fd = kt_open_attached(msi_ipu());
	uint32_t h2d_bo = kt_bo(fd, 16 * STORM_LEN, NULL);
	uint32_t d2h_bo = kt_bo(fd, 16 * STORM_LEN, NULL);
	uint8_t *pat = kt_alloc(STORM_LEN);
	char name[32];
	int64_t before, after;
	pid_t w, r;
	unsigned int i;

	(void)state;
	/* What the reader expects: pattern 7 in each of its 16 slots. */
	kt_fill(pat, STORM_LEN, 7);
	for (i = 0; i < 16; i++)
		assert_int_equal(kt_write_bo(fd, d2h_bo, (uint64_t)i * STORM_LEN,
					     pat, STORM_LEN), 0);
	snprintf(name, sizeof(name), "ipu%u", msi_ipu());
	before = kp_proc_interrupts(name);
	w = kt_fork_opt(true);
	if (!w)
		storm(fd, h2d_bo, true);
	r = kt_fork_opt(true);
	if (!r)
		storm(fd, d2h_bo, false);
	kt_wait_ok(w);
	kt_wait_ok(r);
	after = kp_proc_interrupts(name);
	print_message("%d transfers each way: %" PRId64 " messages on %s\n",
		      STORM_XFERS, after - before, name);
	/* The writer's last transfer left its pattern behind. */
	assert_int_equal(kt_read_bo(fd, h2d_bo, (uint64_t)((STORM_XFERS - 1) % 16) *
				    STORM_LEN, pat, STORM_LEN), 0);
	assert_int_equal(kt_check(pat, STORM_LEN, 1000 + STORM_XFERS - 1), -1);
	/* Every transfer ends on a message (some may share one). */
	assert_true(after > before);
	kt_close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_the_function_has_one_msi_vector),
		KT_TEST(test_a_transfer_both_ways),
		KT_TEST(test_an_interrupt_storm_loses_no_completion),
		/* test_pci_launch.c's, on the MSI function. */
		PL_TESTS,
	};

	kp_init();
	return KT_RUN(tests);
}
