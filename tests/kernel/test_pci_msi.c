// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_msi.c - ipu.ko on a PCIe IPU that presents MSI instead of
 * MSI-X (docs/hardware.md section 6; the rig's second function, ipu-emu
 * --msi, IPU_EMU_MSI): x86 without interrupt remapping grants it one
 * message, so one handler serves every cause; with interrupt remapping
 * (the rig's KERNEL-iommu boot, kp_msi_messages()) it grants all 4 the
 * driver asks for, one per cause as with MSI-X. On that function:
 *  - config space has the MSI capability where MSI-X would be, the PCI
 *    core enabled MSI (msi_irqs: the messages granted, mode "msi"), and
 *    /proc/interrupts has its one line, ipuN, and none of the per-queue
 *    vectors (with 4: ipuN-misc and one per queue, and no ipuN); the
 *    doorbell counts on vector 0's;
 *  - a transfer both ways (H2D then D2H) gives the bytes back;
 *  - test_pci_launch.c's tests on this function: a launch runs the MLP
 *    with the model's bits, junk is -ENOEXEC, a hung launch is reset by
 *    the watchdog (soft reset; FLR when that fails, which restores MSI)
 *    and the next launch runs;
 *  - an interrupt storm: two processes, one writing and one reading small
 *    transfers at once on the H2D and D2H queues, every transfer completes
 *    with its bytes (both causes on the one message, acknowledged and
 *    served by the one handler, none lost for good; or each on its own).
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

/* The function's vector names: "" (ipuN, the one vector), then per cause. */
static const char *const vectors[] = { "", "-misc", "-h2d", "-d2h", "-cmd" };

/* Messages counted on all of ipu@n's vectors. */
static int64_t msi_count(unsigned int n)
{
	char name[32];
	int64_t sum = 0, v;
	size_t i;

	for (i = 0; i < KT_ARRAY_SIZE(vectors); i++) {
		snprintf(name, sizeof(name), "ipu%u%s", n, vectors[i]);
		v = kp_proc_interrupts(name);
		if (v > 0)
			sum += v;
	}
	return sum;
}

static void test_the_function_has_the_msi_messages_granted(void **state)
{
	unsigned int fn = kp_msi_fn(), msgs = kp_msi_messages();
	const char *bdf = ipus[fn];
	unsigned int n = msi_ipu();
	char name[32], mode[16], path[PATH_MAX];
	uint8_t cfg[256];
	int64_t before;
	size_t i;
	int err;

	(void)state;
	read_config(bdf, cfg, sizeof(cfg));
	assert_int_equal(cfg[IPU_CFG_MSI_CAP], PCI_CAP_ID_MSI);
	assert_int_equal(cfg16(cfg, IPU_CFG_MSI_CAP + PCI_MSI_FLAGS) &
			 PCI_MSI_FLAGS_ENABLE, PCI_MSI_FLAGS_ENABLE);
	assert_int_equal(msi_irqs(bdf, mode, sizeof(mode)), msgs);
	assert_string_equal(mode, "msi");
	/* One message: ipuN alone; all of them: one per cause, no ipuN. */
	for (i = 0; i < KT_ARRAY_SIZE(vectors); i++) {
		snprintf(name, sizeof(name), "ipu%u%s", n, vectors[i]);
		if ((msgs == 1) == (i == 0))
			assert_true(kp_proc_interrupts(name) >= 0);
		else
			assert_true(kp_proc_interrupts(name) < 0);
	}
	kp_vec0_name(name, sizeof(name), fn, (int)n);
	before = kp_proc_interrupts(name);
	snprintf(path, sizeof(path), KT_DEBUGFS "/ipu%u/irq_selftest", n);
	err = kt_write_file(path, "1");
	if (err)
		fail_msg("write %s: %s", path, strerror(-err));
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
	int64_t before, after;
	pid_t w, r;
	unsigned int i;

	(void)state;
	/* What the reader expects: pattern 7 in each of its 16 slots. */
	kt_fill(pat, STORM_LEN, 7);
	for (i = 0; i < 16; i++)
		assert_int_equal(kt_write_bo(fd, d2h_bo, (uint64_t)i * STORM_LEN,
					     pat, STORM_LEN), 0);
	before = msi_count(msi_ipu());
	w = kt_fork_opt(true);
	if (!w)
		storm(fd, h2d_bo, true);
	r = kt_fork_opt(true);
	if (!r)
		storm(fd, d2h_bo, false);
	kt_wait_ok(w);
	kt_wait_ok(r);
	after = msi_count(msi_ipu());
	print_message("%d transfers each way: %" PRId64 " messages on ipu%u\n",
		      STORM_XFERS, after - before, msi_ipu());
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
		KT_TEST(test_the_function_has_the_msi_messages_granted),
		KT_TEST(test_a_transfer_both_ways),
		KT_TEST(test_an_interrupt_storm_loses_no_completion),
		/* test_pci_launch.c's, on the MSI function. */
		PL_TESTS,
	};

	kp_init();
	return KT_RUN(tests);
}
