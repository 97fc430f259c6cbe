// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_probe.c - ipu.ko's PCI backend binding the IPUs of the device
 * model (ipu-emu over vfio-user, scripts/lib/emu-rig.sh): every function
 * of the spec's IDs is bound to ipu.ko and is a /dev/ipuN whose GET_INFO
 * and sysfs say what the function is (platform PCI, its address, the DSN
 * serial, BAR2's size, the version of the firmware image installed in
 * /lib/firmware); hwmon shows its temperature and power; its vector 0 is named after the device in
 * /proc/interrupts and counts the self-test doorbell (IRQ_RAISE, the
 * spec's section 6) on every kernel - issue 10's last check, with no
 * vfio-pci; and a firmware that is missing or corrupt (refused on the
 * host: its header CRC) fails the probe with one dmesg line
 * from the driver and leaves no device, after which the good image binds
 * again.
 *
 * IPU_EMU_IPUS (the guest's kernel command line) says how many functions
 * the rig attached: fewer fail, none (or unset) skips every test.
 */
#include "kpci.h"

#include <linux/pci_regs.h>

#define FW_PATH "/lib/firmware/ipu/ipu-fw.bin"
#define FW_SAVED "/lib/firmware/ipu/ipu-fw.bin.test-saved"

/* The serial in the DSN capability where the spec puts it. */
static uint64_t dsn_of(const char *bdf)
{
	uint8_t cfg[4096];

	if (read_config(bdf, cfg, sizeof(cfg)) <= IPU_CFG_DSN_CAP + 8)
		fail_msg("%s: no extended config space", bdf);
	assert_int_equal(PCI_EXT_CAP_ID(cfg32(cfg, IPU_CFG_DSN_CAP)), PCI_EXT_CAP_ID_DSN);
	return cfg32(cfg, IPU_CFG_DSN_CAP + 4) |
	       (uint64_t)cfg32(cfg, IPU_CFG_DSN_CAP + 8) << 32;
}

static uint64_t bar_len(const char *bdf, unsigned int bar)
{
	uint64_t start, end, flags;

	fn_resource(bdf, bar, &start, &end, &flags);
	return end - start + 1;
}

/* fw_version of the installed image's header (offset 8, little-endian). */
static uint32_t installed_fw_version(void)
{
	uint8_t hdr[IPU_FW_HEADER_SIZE];
	int fd = open(FW_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		fail_msg("open %s: %s (kernel-check installs it)", FW_PATH, strerror(errno));
	n = read(fd, hdr, sizeof(hdr));
	close(fd);
	assert_int_equal(n, sizeof(hdr));
	return cfg32(hdr, offsetof(struct ipu_fw_header, fw_version));
}

/* Probe and its results ---------------------------------------------------- */

static void test_every_ipu_function_is_bound_to_ipu_ko(void **state)
{
	char drv[64];
	unsigned int i;

	(void)state;
	require_ipus();
	for (i = 0; i < nr_ipus; i++) {
		driver_of(ipus[i], drv, sizeof(drv));
		if (strcmp(drv, "ipu"))
			fail_msg("%s is bound to \"%s\", not ipu (see dmesg)", ipus[i], drv);
		if (ipu_of(ipus[i]) < 0)
			fail_msg("%s is bound but has no ipuN", ipus[i]);
	}
}

/* Simulated IPUs keep ipu0..: the PCI ones come after the two of guest-init. */
static void test_pci_ipus_come_after_the_simulated_ones(void **state)
{
	char buf[16];
	unsigned int i;

	(void)state;
	require_ipus();
	kt_sysfs(0, "platform", buf, sizeof(buf));
	assert_string_equal(buf, "sim");
	kt_sysfs(1, "platform", buf, sizeof(buf));
	assert_string_equal(buf, "sim");
	for (i = 0; i < nr_ipus; i++)
		assert_true(ipu_of(ipus[i]) >= 2);
}

/*
 * Device memory users get: BAR2 but the firmware's region (spec section
 * 8.3), which ipu-emu makes 1 MiB (docs/hardware.md 14.2).
 */
static uint64_t user_mem(const char *bdf)
{
	return bar_len(bdf, IPU_BAR_MEM) - IPU_FW_MAX_SIZE;
}

static void test_get_info_reports_the_function(void **state)
{
	struct ipu_info info;
	unsigned int i, dom, bus, dev, fn;
	uint32_t fw = installed_fw_version();
	int n, fd;

	(void)state;
	require_ipus();
	for (i = 0; i < nr_ipus; i++) {
		n = ipu_of(ipus[i]);
		assert_true(n >= 0);
		fd = kt_open((unsigned int)n);
		info = kt_info(fd);
		assert_int_equal(info.platform, IPU_PLATFORM_PCI);
		assert_int_equal(sscanf(ipus[i], "%x:%x:%x.%x", &dom, &bus, &dev, &fn), 4);
		assert_int_equal(info.pci_domain, dom);
		assert_int_equal(info.pci_bdf, bus << 8 | dev << 3 | fn);
		assert_int_equal(info.firmware_version, fw);
		assert_true(info.serial != 0);
		assert_int_equal(info.serial, dsn_of(ipus[i]));
		assert_int_equal(info.memory_total, user_mem(ipus[i]));
		assert_int_equal(info.memory_used, 0);
		/* Its firmware is on the device, not an ipu-simd process. */
		assert_int_equal(info.features & IPU_FEATURE_FW_SIM, 0);
		/* Launches run on its command queue. */
		assert_true(info.features & IPU_FEATURE_LAUNCH);
		kt_close(fd);
	}
}

static void test_sysfs_reports_the_function(void **state)
{
	char buf[64], want[64];
	unsigned int i;
	uint32_t fw = installed_fw_version();
	int n;

	(void)state;
	require_ipus();
	for (i = 0; i < nr_ipus; i++) {
		n = ipu_of(ipus[i]);
		assert_true(n >= 0);
		kt_sysfs((unsigned int)n, "platform", buf, sizeof(buf));
		assert_string_equal(buf, "pci");
		kt_sysfs((unsigned int)n, "serial", buf, sizeof(buf));
		snprintf(want, sizeof(want), "%016" PRIx64, dsn_of(ipus[i]));
		assert_string_equal(buf, want);
		kt_sysfs((unsigned int)n, "firmware_version", buf, sizeof(buf));
		snprintf(want, sizeof(want), "%u.%u.%u", fw >> 16, (fw >> 8) & 0xff, fw & 0xff);
		assert_string_equal(buf, want);
		assert_int_equal(kt_sysfs_u64((unsigned int)n, "memory_total"),
				 user_mem(ipus[i]));
	}
}

/* hwmon -------------------------------------------------------------------- */

/* The hwmon directory of @bdf (its one hwmonN) into @dir. */
static void hwmon_dir(const char *bdf, char *dir, size_t len)
{
	char path[128];
	struct dirent *de;
	DIR *d;

	fn_path(path, sizeof(path), bdf, "hwmon");
	d = opendir(path);
	if (!d)
		fail_msg("%s: no hwmon directory: %s", bdf, strerror(errno));
	dir[0] = '\0';
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "hwmon", 5))
			snprintf(dir, len, "%s/%s", path, de->d_name);
	closedir(d);
	if (!dir[0])
		fail_msg("%s: no hwmonN", path);
}

static long hwmon_long(const char *dir, const char *attr)
{
	char path[PATH_MAX], buf[32];
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	err = kt_read_file(path, buf, sizeof(buf));
	if (err)
		fail_msg("read %s: %s", path, strerror(-err));
	return strtol(buf, NULL, 10);
}

/*
 * What `sensors` shows: the model's idle telemetry (docs/hardware.md
 * section 3: 40.000 degrees C, 25 W), nothing running on it now.
 */
static void test_hwmon_reports_temperature_and_power(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX], name[32];
	unsigned int i;

	(void)state;
	require_ipus();
	for (i = 0; i < nr_ipus; i++) {
		hwmon_dir(ipus[i], dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/name", dir);
		assert_int_equal(kt_read_file(path, name, sizeof(name)), 0);
		assert_string_equal(name, "ipu");
		assert_int_equal(hwmon_long(dir, "temp1_input"), 40000);
		assert_int_equal(hwmon_long(dir, "power1_input"), 25000000);
	}
}

/* Interrupts ---------------------------------------------------------------- */

/*
 * Issue 10's check, with the driver bound: the doorbell raises MSI-X
 * vector 0 (MSI message 0 on the rig's MSI function, named ipuN when it
 * is the one vector: kp_vec0_name()), which the guest takes and counts,
 * on every kernel.
 */
static void test_doorbell_raises_msix_vector_0_counted_by_the_guest(void **state)
{
	char name[32], path[PATH_MAX];
	int64_t before, after;
	unsigned int i;
	int n, err;

	(void)state;
	require_ipus();
	for (i = 0; i < nr_ipus; i++) {
		n = ipu_of(ipus[i]);
		assert_true(n >= 0);
		kp_vec0_name(name, sizeof(name), i, n);
		before = kp_proc_interrupts(name);
		if (before < 0)
			fail_msg("no %s line in /proc/interrupts", name);
		/* The probe's self-test and the firmware's boot. */
		assert_true(before >= 2);
		snprintf(path, sizeof(path), KT_DEBUGFS "/ipu%d/irq_selftest", n);
		err = kt_write_file(path, "1");
		if (err)
			fail_msg("write %s: %s", path, strerror(-err));
		after = kp_proc_interrupts(name);
		/* One doorbell, one message. */
		assert_int_equal(after - before, 1);
	}
}

/* Probe failures ------------------------------------------------------------ */

static struct {
	bool saved;
	bool unbound;
	char bdf[16];
} fx;

/* Put the good image back and bind the function again, whatever failed. */
static int fw_teardown(void **state)
{
	if (fx.saved) {
		unlink(FW_PATH);
		if (rename(FW_SAVED, FW_PATH))
			print_error("restore %s: %s\n", FW_PATH, strerror(errno));
		fx.saved = false;
	}
	if (fx.unbound) {
		kt_write_file(KT_PCI_DRIVER "/bind", fx.bdf);
		fx.unbound = false;
	}
	return kt_teardown(state);
}

/* Unbind the last IPU function from ipu.ko and set the good image aside. */
static void unbind_last(void)
{
	snprintf(fx.bdf, sizeof(fx.bdf), "%s", ipus[nr_ipus - 1]);
	kp_unbind(fx.bdf);
	fx.unbound = true;
	if (rename(FW_PATH, FW_SAVED))
		fail_msg("rename %s: %s", FW_PATH, strerror(errno));
	fx.saved = true;
}

/* Rebinding with the good image works: the failure left nothing behind. */
static void bind_again_works(void)
{
	assert_int_equal(rename(FW_SAVED, FW_PATH), 0);
	fx.saved = false;
	kp_bind(fx.bdf);
	fx.unbound = false;
}

static void test_missing_firmware_fails_probe_cleanly(void **state)
{
	(void)state;
	require_ipus();
	unbind_last();
	bind_fails_with(fx.bdf, "firmware ipu/ipu-fw.bin: cannot load it: -2");
	bind_again_works();
}

/* Copy the saved image to FW_PATH with byte @off inverted. */
static void install_corrupt_image(size_t off)
{
	static uint8_t img[IPU_FW_MAX_SIZE];
	ssize_t n;
	int fd;

	fd = open(FW_SAVED, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	n = read(fd, img, sizeof(img));
	close(fd);
	assert_true(n > (ssize_t)off);
	img[off] ^= 0xff;
	fd = open(FW_PATH, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, img, (size_t)n), n);
	close(fd);
}

static void test_corrupt_firmware_refused_on_the_host_fails_probe_cleanly(void **state)
{
	(void)state;
	require_ipus();
	unbind_last();
	/*
	 * fw_version's low byte: only the header CRC can tell, and the
	 * driver checks it before the image goes near the device.
	 */
	install_corrupt_image(offsetof(struct ipu_fw_header, fw_version));
	bind_fails_with(fx.bdf, "not a valid image: header CRC mismatch");
	unlink(FW_PATH);
	bind_again_works();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_every_ipu_function_is_bound_to_ipu_ko),
		KT_TEST(test_pci_ipus_come_after_the_simulated_ones),
		KT_TEST(test_get_info_reports_the_function),
		KT_TEST(test_sysfs_reports_the_function),
		KT_TEST(test_hwmon_reports_temperature_and_power),
		KT_TEST(test_doorbell_raises_msix_vector_0_counted_by_the_guest),
		cmocka_unit_test_teardown(test_missing_firmware_fails_probe_cleanly,
					  fw_teardown),
		cmocka_unit_test_teardown(test_corrupt_firmware_refused_on_the_host_fails_probe_cleanly,
					  fw_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
