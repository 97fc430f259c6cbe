// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bringup_enumerate.c - the checks of what the bus and the driver show
 * before anything runs: `enumerate` (driver bound, node present, IDs and
 * BARs as docs/hardware.md sections 1-2 say), `pcie-link` (trained at
 * the maximum the link is capable of: WARN below, as xbutil validate
 * does) and `firmware` (booted, its version; a function whose probe
 * failed gets the kernel's reason from the log when it is readable).
 */
#include <errno.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>

#include "bringup.h"
#include "ipu/hw.h"

#define SPEC_BAR0_SIZE (64u << 10)
#define SPEC_MSIX_VECTORS 4
#define KLOG_LEN (1 << 20)

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/*
 * Spec 8.3: the driver hands users every byte of BAR2 but the firmware's
 * region, 4 KiB-aligned and at least IPU_FW_MAX_SIZE. (Its exact size is
 * a BAR0 register, which this check does not map.)
 */
static void check_fw_region(struct bu_result *r, uint64_t mem_total,
			    uint64_t bar2)
{
	uint64_t kept = bar2 - mem_total;

	if (mem_total > bar2) {
		bu_worse(r, BU_FAIL, "the driver reports %llu bytes of memory, BAR2 has only %llu",
			 (unsigned long long)mem_total, (unsigned long long)bar2);
		return;
	}
	bu_fig(r, "firmware_region", (double)kept, "B");
	if (kept < IPU_FW_MAX_SIZE || kept % 4096)
		bu_worse(r, BU_FAIL,
			 "the driver reports %llu bytes of memory of BAR2's %llu, keeping %llu; the spec keeps only the firmware's region, 4 KiB-aligned and at least %u bytes",
			 (unsigned long long)mem_total, (unsigned long long)bar2,
			 (unsigned long long)kept, IPU_FW_MAX_SIZE);
}

/* IDs, BARs and vectors of @p against the spec; the first mismatch. */
static void check_pci_identity(const struct info_pci *p, struct bu_result *r,
			       uint64_t mem_total)
{
	const struct info_bar *b0 = &p->bars[0], *b2 = &p->bars[2];

	bu_fig(r, "bar0_size", (double)b0->size, "B");
	bu_fig(r, "bar2_size", (double)b2->size, "B");
	if (p->vendor != INFO_PCI_VENDOR || p->device != INFO_PCI_DEVICE)
		bu_worse(r, BU_FAIL, "IDs %04x:%04x, the spec says %04x:%04x",
			 p->vendor, p->device, INFO_PCI_VENDOR, INFO_PCI_DEVICE);
	if (!b0->mem || b0->is64 || b0->prefetch || b0->size != SPEC_BAR0_SIZE)
		bu_worse(r, BU_FAIL,
			 "BAR0 is %llu bytes%s%s%s; the spec says 64 KiB, 32-bit memory, not prefetchable",
			 (unsigned long long)b0->size, b0->mem ? "" : ", I/O",
			 b0->is64 ? ", 64-bit" : "", b0->prefetch ? ", prefetchable" : "");
	if (!b2->mem || !b2->is64 || !b2->prefetch || !pow2(b2->size) ||
	    b2->size < (1ull << 20) || b2->size > (64ull << 30))
		bu_worse(r, BU_FAIL,
			 "BAR2 is %llu bytes (64-bit %d, prefetchable %d); the spec says 64-bit prefetchable memory, a power of two, 1 MiB to 64 GiB",
			 (unsigned long long)b2->size, b2->is64, b2->prefetch);
	else if (mem_total)
		check_fw_region(r, mem_total, b2->size);
	if (p->have_msix) {
		bu_fig(r, "msix_vectors", p->msix_vectors, "");
		if (p->msix_vectors != SPEC_MSIX_VECTORS)
			bu_worse(r, BU_FAIL, "%u MSI-X vectors, the spec says %u",
				 p->msix_vectors, SPEC_MSIX_VECTORS);
	}
}

void bu_enumerate(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r)
{
	const struct info_pci *p = bu_pci(d);
	struct stat st;

	(void)ctx;
	if (d->unbound) {
		bu_set(r, BU_FAIL, "PCI function %s has an IPU's IDs but no /dev/ipuN: %s",
		       p->addr, p->driver[0] ? "another driver holds it" :
		       "the ipu driver is not bound (not loaded, or its probe failed: see firmware and dmesg)");
		if (p->driver[0])
			snprintf(r->reason + strlen(r->reason),
				 sizeof(r->reason) - strlen(r->reason), " (%s)", p->driver);
		check_pci_identity(p, r, 0);
		return;
	}
	if (!d->ipu->model && stat(d->ipu->node, &st))
		bu_worse(r, BU_FAIL, "%s: %s", d->ipu->node, strerror(errno));
	if (!bu_need_open(d, r))
		return;
	bu_fig(r, "memory", (double)d->info.memory_total, "B");
	bu_fig(r, "api_version", d->info.api_version, "");
	if (p) {
		if (strcmp(p->driver, "ipu"))
			bu_worse(r, BU_FAIL, "bound to \"%s\", not ipu", p->driver);
		check_pci_identity(p, r, d->info.memory_total);
	}
	bu_worse(r, BU_PASS, "%s, %s%s%s", d->ipu->model ? d->name : d->ipu->node,
		 d->ipu->platform, p ? " at " : "", p ? p->addr : "");
}

static double gts(unsigned int speed)
{
	return speed / 10.0;
}

void bu_pcie_link(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r)
{
	const struct info_pci *p = bu_pci(d);

	(void)ctx;
	if (!p) {
		bu_set(r, BU_SKIP, "not a PCI function (%s)",
		       d->ipu ? d->ipu->platform : "?");
		return;
	}
	if (!p->link_cur.known || !p->link_max.known) {
		bu_set(r, BU_WARN, "%s: link speed and width unreadable (%s)", p->addr,
		       p->config_full ? "no PCIe capability" :
		       "config space past 64 bytes needs root, and the PCI core's sysfs had none");
		return;
	}
	bu_fig(r, "speed", gts(p->link_cur.speed), "GT/s");
	bu_fig(r, "width", p->link_cur.width, "lanes");
	bu_fig(r, "max_speed", gts(p->link_max.speed), "GT/s");
	bu_fig(r, "max_width", p->link_max.width, "lanes");
	if (p->degraded)
		bu_set(r, BU_WARN, "degraded: %gGT/s x%u of %gGT/s x%u (retrain, reseat, check the slot)",
		       gts(p->link_cur.speed), p->link_cur.width,
		       gts(p->link_max.speed), p->link_max.width);
	else
		bu_set(r, BU_PASS, "%gGT/s x%u, its maximum", gts(p->link_cur.speed),
		       p->link_cur.width);
}

/*
 * The kernel's last line about @addr's firmware from its log (the probe's
 * "boot failed: ..."), or "" when the log is not readable (root, or
 * kernel.dmesg_restrict).
 */
static void fw_log_line(const char *addr, char *buf, size_t len)
{
	static char klog[KLOG_LEN];
	char *line, *at, *save = NULL;
	int n;

	buf[0] = '\0';
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, klog, sizeof(klog) - 1);
	if (n <= 0)
		return;
	klog[n] = '\0';
	for (line = strtok_r(klog, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		at = strstr(line, addr);
		if (!at || !(strstr(at, "firmware") || strstr(at, "boot")))
			continue;
		/* "ipu 0000:01:00.0: firmware ...": what follows the address. */
		at += strlen(addr);
		at += strspn(at, ": ");
		snprintf(buf, len, "%s", at);
	}
}

void bu_firmware(struct bu_ctx *ctx, struct bu_dev *d, struct bu_result *r)
{
	uint32_t v;
	char why[200];

	(void)ctx;
	if (d->unbound) {
		fw_log_line(d->unbound->addr, why, sizeof(why));
		bu_set(r, BU_FAIL, "no firmware running: %s",
		       why[0] ? why : "no driver bound (the kernel log, readable by root, says why)");
		return;
	}
	if (!bu_need_open(d, r))
		return;
	v = d->info.firmware_version;
	if (!v) {
		bu_set(r, BU_FAIL, "no firmware version: the firmware did not boot");
		return;
	}
	bu_fig(r, "version", (double)v, "");
	bu_set(r, BU_PASS, "version %u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
	if (!bu_can_launch(d))
		bu_set(r, BU_PASS, "version %u.%u.%u; launches unavailable on this device (%s)",
		       v >> 16, (v >> 8) & 0xff, v & 0xff,
		       d->ipu && !strcmp(d->ipu->platform, "sim") ?
		       "is ipu-simd running?" : "no IPU_FEATURE_LAUNCH");
}
