// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_pci.c - the PCI side of the IPUs, from libpci (pciutils): IDs and
 * their names (pci.ids), class, BARs, NUMA node, bound driver, the
 * capabilities list, the PCIe link (current and maximum, from the PCIe
 * capability), MSI-X vectors and the Device Serial Number. Also every
 * function with an IPU's IDs that no ipu.ko device stands for (no driver
 * yet, or another one such as vfio-pci), so a lab sees a board before the
 * driver takes it.
 *
 * libpci reads ROOT/sys/bus/pci (its "sysfs.path"). Config space past its
 * first 64 bytes is root's: as a normal user the capabilities cannot be
 * read, and the link comes from the PCI core's world-readable attributes
 * (current_link_speed, max_link_width, ...) instead, and MSI-X from
 * msi_irqs/; the notes say which fields needed root.
 *
 * libpci reports a fatal error through pci_access.error, which must not
 * return (its default prints and exits): ours jumps back here, so a
 * broken tree costs the PCI columns, never the run.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pci/pci.h>

#include "info.h"

static jmp_buf pci_env;
static char pci_errbuf[INFO_NOTE_LEN - 16];

static void __attribute__((noreturn, format(printf, 1, 2)))
pci_error(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_errbuf, sizeof(pci_errbuf), msg, ap);
	va_end(ap);
	longjmp(pci_env, 1);
}

/* Warnings (a missing pci.ids, an unreadable config file) are expected as
 * a normal user; what they cost shows as unknown fields and notes. */
static void __attribute__((format(printf, 1, 2))) pci_quiet(char *msg, ...)
{
	(void)msg;
}

/* Link Status / Capabilities speed codes -> GT/s * 10. */
static unsigned int speed_of_code(unsigned int code)
{
	static const unsigned int gts[] = { 0, 25, 50, 80, 160, 320, 640 };

	return code < sizeof(gts) / sizeof(gts[0]) ? gts[code] : 0;
}

static void link_from_config(struct pci_dev *d, struct info_pci *p)
{
	struct pci_cap *cap = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
	uint32_t lnkcap;
	uint16_t lnksta;

	if (!cap)
		return;
	lnkcap = pci_read_long(d, cap->addr + PCI_EXP_LNKCAP);
	lnksta = pci_read_word(d, cap->addr + PCI_EXP_LNKSTA);
	/* All ones: the read failed (or the function left the bus). */
	if (lnkcap == 0xffffffff || lnksta == 0xffff)
		return;
	p->link_max.speed = speed_of_code(lnkcap & PCI_EXP_LNKCAP_SPEED);
	p->link_max.width = (lnkcap & PCI_EXP_LNKCAP_WIDTH) >> 4;
	p->link_cur.speed = speed_of_code(lnksta & PCI_EXP_LNKSTA_SPEED);
	p->link_cur.width = (lnksta & PCI_EXP_LNKSTA_WIDTH) >> 4;
	p->link_max.known = p->link_max.speed && p->link_max.width;
	p->link_cur.known = p->link_cur.speed && p->link_cur.width;
	if (p->link_max.known || p->link_cur.known)
		p->link_source = "config";
}

/* "16.0 GT/s PCIe" or "2.5 GT/s" -> 160, 25; 0 when not a speed. */
static unsigned int parse_speed(const char *s)
{
	unsigned int whole = 0, tenth = 0;
	int n = 0;

	if (sscanf(s, "%3u%n", &whole, &n) != 1)
		return 0;
	s += n;
	if (*s == '.') {
		if (!isdigit((unsigned char)s[1]))
			return 0;
		tenth = s[1] - '0';
		s += 2;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (strncmp(s, " GT/s", 5))
		return 0;
	return whole * 10 + tenth;
}

static void link_attr(const char *dir, const char *speed_attr,
		      const char *width_attr, struct info_link *l)
{
	char path[PATH_MAX], buf[64];
	uint64_t w;

	info_path(path, sizeof(path), "%s/%s", dir, speed_attr);
	if (ipu_attr_read(path, buf, sizeof(buf)))
		return;
	l->speed = parse_speed(buf);
	info_path(path, sizeof(path), "%s/%s", dir, width_attr);
	if (ipu_attr_read_u64(path, 10, &w) || w == 0 || w > 32)
		return;
	l->width = (unsigned int)w;
	l->known = l->speed != 0;
}

/* The PCI core's view of the link, readable by everyone. */
static void link_from_sysfs(const char *devdir, struct info_pci *p)
{
	link_attr(devdir, "current_link_speed", "current_link_width",
		  &p->link_cur);
	link_attr(devdir, "max_link_speed", "max_link_width", &p->link_max);
	if (p->link_cur.known || p->link_max.known)
		p->link_source = "sysfs";
}

/*
 * Enabled MSI-X vectors from msi_irqs/ (one entry per vector, its file
 * saying "msix" or "msi": a function with MSI has no MSI-X vectors).
 */
static void msix_from_sysfs(const char *devdir, struct info_pci *p)
{
	char dir[PATH_MAX], path[PATH_MAX], mode[16];
	struct dirent *de;
	unsigned int n = 0;
	DIR *d;

	info_path(dir, sizeof(dir), "%s/msi_irqs", devdir);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		info_path(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!ipu_attr_read(path, mode, sizeof(mode)) &&
		    !strcmp(mode, "msix"))
			n++;
	}
	closedir(d);
	if (n) {
		p->have_msix = true;
		p->msix_vectors = n;
	}
}

static const char *cap_name(unsigned int id, unsigned int type)
{
	if (type == PCI_CAP_EXTENDED) {
		switch (id) {
		case PCI_EXT_CAP_ID_AER: return "AER";
		case PCI_EXT_CAP_ID_DSN: return "DSN";
		case PCI_EXT_CAP_ID_ACS: return "ACS";
		case PCI_EXT_CAP_ID_ATS: return "ATS";
		case PCI_EXT_CAP_ID_SRIOV: return "SR-IOV";
		default: return "ext";
		}
	}
	switch (id) {
	case PCI_CAP_ID_PM: return "PM";
	case PCI_CAP_ID_MSI: return "MSI";
	case PCI_CAP_ID_MSIX: return "MSI-X";
	case PCI_CAP_ID_EXP: return "PCIe";
	case PCI_CAP_ID_VNDR: return "vendor";
	default: return "other";
	}
}

static void read_caps(struct pci_dev *d, struct info_pci *p)
{
	struct pci_cap *cap;
	size_t len = 0;
	uint16_t ctrl;
	uint32_t lo, hi;
	int n;

	for (cap = d->first_cap; cap; cap = cap->next) {
		n = snprintf(p->caps + len, sizeof(p->caps) - len, "%s%s",
			     len ? " " : "", cap_name(cap->id, cap->type));
		if (n < 0 || (size_t)n >= sizeof(p->caps) - len)
			break;
		len += n;
	}
	cap = pci_find_cap(d, PCI_CAP_ID_MSIX, PCI_CAP_NORMAL);
	if (cap) {
		ctrl = pci_read_word(d, cap->addr + 2 /* Message Control */);
		if (ctrl != 0xffff) {
			p->have_msix = true;
			p->msix_vectors = (ctrl & PCI_MSIX_TABSIZE) + 1;
		}
	}
	cap = pci_find_cap(d, PCI_EXT_CAP_ID_DSN, PCI_CAP_EXTENDED);
	if (cap) {
		lo = pci_read_long(d, cap->addr + 4);
		hi = pci_read_long(d, cap->addr + 8);
		p->have_dsn = true;
		p->dsn = (uint64_t)hi << 32 | lo;
	}
}

static void names(struct pci_access *pacc, struct info_pci *p)
{
	const char *spec_v = info_spec_vendor(p->vendor);
	const char *spec_d = info_spec_device(p->vendor, p->device);
	char *v, *dv;

	v = pci_lookup_name(pacc, p->vendor_name, sizeof(p->vendor_name),
			    PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS,
			    p->vendor);
	dv = pci_lookup_name(pacc, p->device_name, sizeof(p->device_name),
			     PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS,
			     p->vendor, p->device);
	if (!v || !dv) {
		/* What libpci would print: the numbers. */
		if (!v)
			snprintf(p->vendor_name, sizeof(p->vendor_name),
				 "Vendor %04x", p->vendor);
		if (!dv)
			snprintf(p->device_name, sizeof(p->device_name),
				 "Device %04x", p->device);
		if (spec_v && spec_d) {
			snprintf(p->vendor_name, sizeof(p->vendor_name), "%s",
				 spec_v);
			snprintf(p->device_name, sizeof(p->device_name), "%s",
				 spec_d);
			p->names_from_spec = true;
		}
	}
}

static void fill(struct pci_access *pacc, struct pci_dev *d,
		 const char *busdir, struct info_pci *p)
{
	char devdir[PATH_MAX];
	uint8_t b;
	char *drv;
	int i;

	memset(p, 0, sizeof(*p));
	snprintf(p->addr, sizeof(p->addr), "%04x:%02x:%02x.%u",
		 d->domain & 0xffff, d->bus, d->dev, d->func);
	info_path(devdir, sizeof(devdir), "%s/devices/%s", busdir, p->addr);
	pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_BASES |
		      PCI_FILL_SIZES | PCI_FILL_NUMA_NODE | PCI_FILL_DRIVER |
		      PCI_FILL_CLASS_EXT | PCI_FILL_SUBSYS);
	p->vendor = d->vendor_id;
	p->device = d->device_id;
	p->class_code = (uint32_t)d->device_class << 8 | d->prog_if;
	p->revision = d->rev_id;
	if (d->known_fields & PCI_FILL_SUBSYS) {
		p->have_subsys = true;
		p->subvendor = d->subsys_vendor_id;
		p->subdevice = d->subsys_id;
	}
	if (d->known_fields & PCI_FILL_NUMA_NODE && d->numa_node >= 0) {
		p->have_numa = true;
		p->numa_node = d->numa_node;
	}
	drv = pci_get_string_property(d, PCI_FILL_DRIVER);
	if (drv)
		snprintf(p->driver, sizeof(p->driver), "%s", drv);
	for (i = 0; i < 6; i++) {
		pciaddr_t a = d->base_addr[i];

		if (!d->size[i])
			continue;
		p->bars[i].size = d->size[i];
		p->bars[i].mem = !(a & PCI_BASE_ADDRESS_SPACE_IO);
		p->bars[i].base = a & (p->bars[i].mem ?
				       PCI_BASE_ADDRESS_MEM_MASK :
				       PCI_BASE_ADDRESS_IO_MASK);
		p->bars[i].is64 = p->bars[i].mem &&
			(a & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
			PCI_BASE_ADDRESS_MEM_TYPE_64;
		p->bars[i].prefetch = p->bars[i].mem &&
			(a & PCI_BASE_ADDRESS_MEM_PREFETCH);
	}
	names(pacc, p);
	/* Past the standard header: root's, as the PCI core allows. */
	p->config_full = pci_read_block(d, 0x40, &b, 1) != 0;
	if (p->config_full) {
		pci_fill_info(d, PCI_FILL_CAPS | PCI_FILL_EXT_CAPS);
		read_caps(d, p);
		link_from_config(d, p);
	}
	if (!p->link_source)
		link_from_sysfs(devdir, p);
	if (!p->have_msix)
		msix_from_sysfs(devdir, p);
	p->degraded = p->link_cur.known && p->link_max.known &&
		      (p->link_cur.speed < p->link_max.speed ||
		       p->link_cur.width < p->link_max.width);
}

static bool is_ipu_id(uint16_t vendor, uint16_t device)
{
	return info_spec_device(vendor, device) != NULL;
}

static struct info_ipu *ipu_at(struct info_report *rep, const char *addr)
{
	size_t i;

	for (i = 0; i < rep->nipus; i++)
		if (rep->ipus[i].have_pci && !strcmp(rep->ipus[i].pci.addr, addr))
			return &rep->ipus[i];
	return NULL;
}

/* Everything that may end in pci_error(): no locals live across it. */
static int scan(struct pci_access *pacc, struct info_report *rep,
		const char *busdir)
{
	struct info_pci p, *tmp;
	struct info_ipu *ipu;
	struct pci_dev *d;
	size_t i;

	pci_init(pacc);
	pci_scan_bus(pacc);
	rep->pci_scanned = true;
	for (d = pacc->devices; d; d = d->next) {
		char addr[16];

		pci_fill_info(d, PCI_FILL_IDENT);
		snprintf(addr, sizeof(addr), "%04x:%02x:%02x.%u",
			 d->domain & 0xffff, d->bus, d->dev, d->func);
		ipu = ipu_at(rep, addr);
		if (!ipu && !is_ipu_id(d->vendor_id, d->device_id))
			continue;
		fill(pacc, d, busdir, &p);
		if (ipu) {
			ipu->pci = p;
			continue;
		}
		tmp = realloc(rep->unbound, (rep->nunbound + 1) * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		rep->unbound = tmp;
		rep->unbound[rep->nunbound++] = p;
	}
	for (i = 0; i < rep->nipus; i++) {
		ipu = &rep->ipus[i];
		if (ipu->have_pci && !ipu->pci.vendor)
			info_note(rep, "ipu%u: PCI function %s not found by libpci",
				  ipu->index, ipu->pci.addr);
	}
	return 0;
}

/* scan() with libpci's errors caught; 0, or -ENOMEM. */
static int scan_guarded(struct pci_access *pacc, struct info_report *rep,
			const char *busdir)
{
	volatile int err = 0;

	if (setjmp(pci_env) == 0)
		err = scan(pacc, rep, busdir);
	else
		info_note(rep, "pci: libpci: %s", pci_errbuf);
	return err;
}

static int cmp_addr(const void *a, const void *b)
{
	return strcmp(((const struct info_pci *)a)->addr,
		      ((const struct info_pci *)b)->addr);
}

int info_pci_collect(struct info_report *rep, const char *root)
{
	char busdir[PATH_MAX], devs[PATH_MAX];
	struct pci_access *pacc;
	bool partial = false;
	size_t i;
	int err;

	info_path(busdir, sizeof(busdir), "%s/sys/bus/pci", root);
	info_path(devs, sizeof(devs), "%s/devices", busdir);
	if (access(devs, R_OK)) {
		info_note(rep, "pci: cannot read %s: %s", devs, strerror(errno));
		return 0;
	}
	pacc = pci_alloc();
	if (!pacc)
		return -ENOMEM;
	pacc->method = PCI_ACCESS_SYS_BUS_PCI;
	pacc->error = pci_error;
	pacc->warning = pci_quiet;
	pacc->debug = pci_quiet;
	if (pci_set_param(pacc, "sysfs.path", busdir)) {
		pci_cleanup(pacc);
		return 0;
	}
	err = scan_guarded(pacc, rep, busdir);
	pci_cleanup(pacc);
	/* In bus order, whatever order the directory listed them in. */
	if (rep->nunbound)
		qsort(rep->unbound, rep->nunbound, sizeof(*rep->unbound),
		      cmp_addr);
	for (i = 0; i < rep->nipus; i++)
		if (rep->ipus[i].have_pci && rep->ipus[i].pci.vendor &&
		    !rep->ipus[i].pci.config_full)
			partial = true;
	for (i = 0; i < rep->nunbound; i++)
		if (!rep->unbound[i].config_full)
			partial = true;
	if (partial)
		info_note(rep, "pci: config space past 64 bytes needs root: capabilities and DSN not read, link from sysfs");
	return err;
}
