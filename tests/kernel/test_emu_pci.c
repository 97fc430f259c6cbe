// SPDX-License-Identifier: GPL-2.0
/*
 * test_emu_pci.c - the IPUs of the device model (ipu-emu, attached over
 * vfio-user by scripts/kernel-check: scripts/lib/emu-rig.sh) as the guest's
 * PCI core sees them, checked against docs/hardware.md (include/ipu/hw.h):
 * both functions enumerate with the spec's IDs and class; their PCI Express
 * capability is an Endpoint's with the spec's link capability; MSI-X (MSI
 * on the rig's MSI functions) and Device Serial Number capabilities are
 * where the spec puts them; BAR0 and
 * BAR2 have the spec's kind; BAR0's ID register, read through a mapping of
 * the sysfs resource0 file, holds the spec's value.
 *
 * The spec's self-test doorbell (IRQ_MASK, IRQ_RAISE) and the MSI-X (or
 * MSI) interrupt the guest counts for it are tested with ipu.ko bound to the
 * functions, on every kernel: tests/kernel/test_pci_probe.c. (This file
 * took it through vfio-pci in no-IOMMU mode before ipu.ko drove them,
 * which only kernels with CONFIG_VFIO_NOIOMMU could do.)
 *
 * How many IPUs the rig attached is in IPU_EMU_IPUS (the guest's kernel
 * command line, handed to init as environment): fewer functions than that
 * fail; none attached (or the variable unset: not booted by the rig)
 * skips every test, saying why.
 */
#include "kpci.h"

#include <linux/pci_regs.h>

/* Offset of capability @id in the standard list, or 0. */
static unsigned int find_cap(const uint8_t *cfg, uint8_t id)
{
	unsigned int off, hops;

	if (!(cfg16(cfg, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return 0;
	off = cfg[PCI_CAPABILITY_LIST] & ~3u;
	/* A malformed list must not loop: 48 capabilities fit in 192 bytes. */
	for (hops = 0; off >= 0x40 && off < 0x100 && hops < 48; hops++) {
		if (cfg[off + PCI_CAP_LIST_ID] == id)
			return off;
		off = cfg[off + PCI_CAP_LIST_NEXT] & ~3u;
	}
	return 0;
}

/* Offset of extended capability @id, or 0. */
static unsigned int find_ext_cap(const uint8_t *cfg, uint16_t id)
{
	unsigned int off = 0x100, hops;
	uint32_t hdr;

	for (hops = 0; off >= 0x100 && off < 0x1000 - 4 && hops < 960; hops++) {
		hdr = cfg32(cfg, off);
		if (hdr == 0 || hdr == ~0u)
			return 0;
		if (PCI_EXT_CAP_ID(hdr) == id)
			return off;
		off = PCI_EXT_CAP_NEXT(hdr);
	}
	return 0;
}

/* Enumeration ------------------------------------------------------------- */

static void test_every_attached_ipu_enumerates(void **state)
{
	(void)state;
	require_ipus();
	assert_int_equal(nr_ipus, expected);
}

static void test_ids_class_and_revision_are_the_spec_s(void **state)
{
	unsigned int i;

	(void)state;
	require_ipus();
	for (i = 0; i < nr_ipus; i++) {
		assert_int_equal(kt_fn_hex(ipus[i], "subsystem_vendor"),
				 IPU_PCI_SUBSYS_VENDOR_ID);
		assert_int_equal(kt_fn_hex(ipus[i], "subsystem_device"),
				 IPU_PCI_SUBSYS_ID);
		assert_int_equal(kt_fn_hex(ipus[i], "class"), IPU_PCI_CLASS);
		assert_int_equal(kt_fn_hex(ipus[i], "revision"), IPU_PCI_REVISION);
	}
}

/* Capabilities ------------------------------------------------------------ */

static void test_pcie_endpoint_with_the_spec_s_link_capability(void **state)
{
	uint8_t cfg[4096];
	unsigned int i, exp;
	uint32_t lnkcap;
	char buf[64];

	(void)state;
	require_ipus();
	for (i = 0; i < nr_ipus; i++) {
		read_config(ipus[i], cfg, sizeof(cfg));
		exp = find_cap(cfg, PCI_CAP_ID_EXP);
		if (!exp)
			fail_msg("%s: no PCI Express capability", ipus[i]);
		assert_int_equal(exp, IPU_CFG_EXP_CAP);
		assert_int_equal((cfg16(cfg, exp + PCI_EXP_FLAGS) & PCI_EXP_FLAGS_TYPE) >> 4,
				 PCI_EXP_TYPE_ENDPOINT);
		lnkcap = cfg32(cfg, exp + PCI_EXP_LNKCAP);
		assert_int_equal(lnkcap & PCI_EXP_LNKCAP_SLS, IPU_LINK_MAX_SPEED);
		assert_int_equal((lnkcap & PCI_EXP_LNKCAP_MLW) >> 4, IPU_LINK_MAX_WIDTH);
		/* What a driver and lspci read: the PCI core's view of it. */
		fn_text(ipus[i], "max_link_width", buf, sizeof(buf));
		assert_int_equal(strtol(buf, NULL, 10), IPU_LINK_MAX_WIDTH);
		fn_text(ipus[i], "max_link_speed", buf, sizeof(buf));
		assert_string_equal(buf, "16.0 GT/s PCIe");
	}
}

/*
 * MSI-X with the spec's 4 vectors and table in BAR0, or, on the rig's MSI
 * functions (IPU_EMU_MSI), MSI in its place: 64-bit, 4 messages capable,
 * no per-vector masking, and no MSI-X.
 */
static void test_msix_or_msi_capability_is_the_spec_s(void **state)
{
	uint8_t cfg[4096];
	unsigned int i, msix, msi;

	(void)state;
	require_ipus();
	for (i = 0; i < nr_ipus; i++) {
		read_config(ipus[i], cfg, sizeof(cfg));
		msix = find_cap(cfg, PCI_CAP_ID_MSIX);
		msi = find_cap(cfg, PCI_CAP_ID_MSI);
		if (kp_is_msi(i)) {
			if (!msi || msix)
				fail_msg("%s: MSI at %#x, MSI-X at %#x: the rig asked for MSI only",
					 ipus[i], msi, msix);
			assert_int_equal(msi, IPU_CFG_MSI_CAP);
			assert_int_equal(cfg16(cfg, msi + PCI_MSI_FLAGS) &
					 (PCI_MSI_FLAGS_QMASK | PCI_MSI_FLAGS_64BIT |
					  PCI_MSI_FLAGS_MASKBIT),
					 IPU_MSI_CTRL_MMC | PCI_MSI_FLAGS_64BIT);
			continue;
		}
		if (!msix || msi)
			fail_msg("%s: MSI-X at %#x, MSI at %#x: the rig asked for MSI-X only",
				 ipus[i], msix, msi);
		assert_int_equal(msix, IPU_CFG_MSIX_CAP);
		assert_int_equal((cfg16(cfg, msix + PCI_MSIX_FLAGS) & PCI_MSIX_FLAGS_QSIZE) + 1,
				 IPU_MSIX_VECTORS);
		assert_int_equal(cfg32(cfg, msix + PCI_MSIX_TABLE),
				 IPU_MSIX_TABLE | IPU_BAR_REGS);
		assert_int_equal(cfg32(cfg, msix + PCI_MSIX_PBA),
				 IPU_MSIX_PBA | IPU_BAR_REGS);
	}
}

static void test_device_serial_numbers_are_present_and_distinct(void **state)
{
	uint64_t serial[MAX_IPUS];
	uint8_t cfg[4096];
	unsigned int i, j, dsn;
	size_t n;

	(void)state;
	require_ipus();
	for (i = 0; i < nr_ipus; i++) {
		n = read_config(ipus[i], cfg, sizeof(cfg));
		if (n <= 0x100)
			fail_msg("%s: only %zu bytes of config space: the kernel does not reach extended config space (MMCONFIG)",
				 ipus[i], n);
		dsn = find_ext_cap(cfg, PCI_EXT_CAP_ID_DSN);
		if (!dsn)
			fail_msg("%s: no Device Serial Number capability", ipus[i]);
		assert_int_equal(dsn, IPU_CFG_DSN_CAP);
		serial[i] = cfg32(cfg, dsn + 4) | (uint64_t)cfg32(cfg, dsn + 8) << 32;
		assert_true(serial[i] != 0);
		for (j = 0; j < i; j++)
			if (serial[j] == serial[i])
				fail_msg("%s and %s share the serial %#" PRIx64,
					 ipus[j], ipus[i], serial[i]);
	}
}

/* BARs -------------------------------------------------------------------- */

/* IORESOURCE_* bits of the "resource" file (include/linux/ioport.h). */
#define RES_MEM		0x00000200
#define RES_PREFETCH	0x00002000
#define RES_MEM_64	0x00100000

static void test_bars_are_of_the_spec_s_kind_and_size(void **state)
{
	uint64_t start, end, flags;
	unsigned int i;

	(void)state;
	require_ipus();
	for (i = 0; i < nr_ipus; i++) {
		fn_resource(ipus[i], IPU_BAR_REGS, &start, &end, &flags);
		assert_true(start != 0);
		assert_int_equal(end - start + 1, IPU_BAR_REGS_SIZE);
		assert_int_equal(flags & (RES_MEM | RES_PREFETCH | RES_MEM_64), RES_MEM);
		fn_resource(ipus[i], IPU_BAR_MEM, &start, &end, &flags);
		assert_true(start != 0);
		/* ipu-emu's default (the rig gives no --mem-size). */
		assert_int_equal(end - start + 1, IPU_MEM_DEFAULT_SIZE);
		assert_int_equal(flags & (RES_MEM | RES_PREFETCH | RES_MEM_64),
				 RES_MEM | RES_PREFETCH | RES_MEM_64);
	}
}

/* Functions this test unbound from ipu.ko, bound again by its teardown. */
static char unbound[MAX_IPUS][16];
static unsigned int nr_unbound;

static int rebind_teardown(void **state)
{
	while (nr_unbound)
		kt_write_file("/sys/bus/pci/drivers/ipu/bind", unbound[--nr_unbound]);
	return kt_teardown(state);
}

/*
 * A driver's claim on BAR0 revokes and refuses mappings of resource0
 * (CONFIG_IO_STRICT_DEVMEM): look at the registers with no driver bound.
 */
static void unbind_driver(const char *bdf)
{
	char path[PATH_MAX];
	int err;

	fn_path(path, sizeof(path), bdf, "driver/unbind");
	if (access(path, W_OK))
		return;
	err = kt_write_file(path, bdf);
	if (err)
		fail_msg("write %s: %s", path, strerror(-err));
	snprintf(unbound[nr_unbound++], sizeof(unbound[0]), "%s", bdf);
}

static void test_bar0_id_register_reads_the_spec_s_value(void **state)
{
	char path[PATH_MAX];
	volatile uint32_t *regs;
	unsigned int i;
	int fd;

	(void)state;
	require_ipus();
	for (i = 0; i < nr_ipus; i++) {
		unbind_driver(ipus[i]);
		fn_path(path, sizeof(path), ipus[i], "resource0");
		fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
		if (fd < 0)
			fail_msg("open %s: %s", path, strerror(errno));
		kt_track(KT_PIPE)->fd = fd;
		regs = kt_mmap(IPU_BAR_REGS_SIZE, PROT_READ, MAP_SHARED, fd, 0);
		assert_int_equal(regs[IPU_REG_ID / 4], IPU_ID_VALUE);
		assert_int_equal(regs[IPU_REG_VERSION / 4], IPU_SPEC_VERSION);
		assert_int_equal((regs[IPU_REG_CAPS / 4] >> IPU_CAPS_NVEC_SHIFT) & 0xff,
				 IPU_MSIX_VECTORS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		KT_TEST(test_every_attached_ipu_enumerates),
		KT_TEST(test_ids_class_and_revision_are_the_spec_s),
		KT_TEST(test_pcie_endpoint_with_the_spec_s_link_capability),
		KT_TEST(test_msix_or_msi_capability_is_the_spec_s),
		KT_TEST(test_device_serial_numbers_are_present_and_distinct),
		KT_TEST(test_bars_are_of_the_spec_s_kind_and_size),
		cmocka_unit_test_teardown(test_bar0_id_register_reads_the_spec_s_value,
					  rebind_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
