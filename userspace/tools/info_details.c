// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_details.c - "ipu-info -d N": every detail of one IPU, a
 * "key: value" line each (unknown values "-"): what the table has, plus
 * GET_INFO's API version, feature bits and page size, and the PCI
 * function's IDs, class, capabilities, BARs, MSI-X vectors and DSN.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

const struct info_ipu *info_find(const struct info_report *rep,
				 const char *name)
{
	bool model = !strncmp(name, "model:", 6);
	const char *num = name;
	unsigned long v;
	char *end;
	size_t i;

	if (model)
		num = name + 6;
	else if (!strncmp(name, "/dev/ipu", 8))
		num = name + 8;
	else if (!strncmp(name, "ipu", 3))
		num = name + 3;
	if (*num < '0' || *num > '9')
		return NULL;
	errno = 0;
	v = strtoul(num, &end, 10);
	if (errno || *end)
		return NULL;
	for (i = 0; i < rep->nipus; i++)
		if (rep->ipus[i].model == model && rep->ipus[i].index == v)
			return &rep->ipus[i];
	return NULL;
}

const struct info_pci *info_find_unbound(const struct info_report *rep,
					 const char *addr)
{
	size_t i;

	for (i = 0; i < rep->nunbound; i++)
		if (!strcmp(rep->unbound[i].addr, addr) ||
		    (!strncmp(rep->unbound[i].addr, "0000:", 5) &&
		     !strcmp(rep->unbound[i].addr + 5, addr)))
			return &rep->unbound[i];
	return NULL;
}

static void kv(FILE *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void kv(FILE *f, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "  %-22s ", key);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void pci_details(FILE *f, const struct info_pci *p)
{
	char buf[256], size[32];
	int i;

	kv(f, "pci address", "%s", p->addr);
	kv(f, "vendor", "%04x %s%s", p->vendor, p->vendor_name,
	   p->names_from_spec ? " (docs/hardware.md: pci.ids lacks it)" : "");
	kv(f, "device", "%04x %s%s", p->device, p->device_name,
	   p->names_from_spec ? " (docs/hardware.md)" : "");
	if (p->have_subsys)
		kv(f, "subsystem", "%04x:%04x", p->subvendor, p->subdevice);
	kv(f, "revision", "%02x", p->revision);
	kv(f, "class", "%06x", p->class_code);
	kv(f, "driver", "%s", p->driver[0] ? p->driver : "none");
	if (p->have_numa)
		kv(f, "numa node", "%d", p->numa_node);
	else
		kv(f, "numa node", "-");
	kv(f, "link", "%s%s%s%s", info_link_str(p, buf, sizeof(buf)),
	   p->link_source ? " (from " : "",
	   p->link_source ? p->link_source : "",
	   p->link_source ? ")" : "");
	kv(f, "capabilities", "%s", p->config_full ?
	   (p->caps[0] ? p->caps : "none") : "- (config space needs root)");
	if (p->have_msix)
		kv(f, "msi-x vectors", "%u", p->msix_vectors);
	else
		kv(f, "msi-x vectors", "-");
	if (p->have_dsn)
		kv(f, "serial (DSN)", "%016" PRIx64, p->dsn);
	else
		kv(f, "serial (DSN)", "-%s", p->config_full ? "" :
		   " (config space needs root)");
	for (i = 0; i < 6; i++) {
		const struct info_bar *b = &p->bars[i];
		char key[16];

		if (!b->size)
			continue;
		snprintf(key, sizeof(key), "bar%d", i);
		kv(f, key, "%s at 0x%" PRIx64 ", %s%s%s", b->mem ? "memory" : "I/O",
		   b->base, info_bytes_str(b->size, size, sizeof(size)),
		   b->is64 ? ", 64-bit" : "", b->prefetch ? ", prefetchable" : "");
	}
}

/* "42 trainer: 1 file, 2 buffers, 8.0 KiB, launch 1.5 ms, xfer 250 ns". */
static void holder_line(FILE *f, const char *key, const struct info_holder *h)
{
	const struct info_usage *u = &h->usage;
	char b[32], l[32], x[32];

	if (!h->have_usage) {
		kv(f, key, "%d %s", h->pid, h->comm[0] ? h->comm : "?");
		return;
	}
	kv(f, key, "%d %s: %u file%s, %" PRIu64 " buffer%s, %s, launch %s, xfer %s",
	   h->pid, h->comm[0] ? h->comm : "?", u->files, u->files == 1 ? "" : "s",
	   u->buffers, u->buffers == 1 ? "" : "s",
	   info_bytes_str(u->bytes, b, sizeof(b)),
	   info_ns_str(u->launch_ns, l, sizeof(l)),
	   info_ns_str(u->xfer_ns, x, sizeof(x)));
}

void info_print_details(FILE *f, const struct info_report *rep,
			const struct info_ipu *ipu)
{
	char buf[512];
	size_t i, n;

	fprintf(f, "%s%s\n", ipu->node, ipu->model ? " (software model)" : "");
	kv(f, "platform", "%s", ipu->platform[0] ? ipu->platform : "-");
	kv(f, "firmware", "%s", ipu->have_fw ? ipu->firmware : "-");
	if (ipu->have_serial)
		kv(f, "serial", "%016" PRIx64, ipu->serial);
	else
		kv(f, "serial", "-");
	kv(f, "memory total", "%s", ipu->have_mem_total ?
	   info_bytes_str(ipu->mem_total, buf, sizeof(buf)) : "-");
	if (ipu->have_mem_total)
		fprintf(f, "  %-22s %" PRIu64 " bytes\n", "", ipu->mem_total);
	kv(f, "memory used", "%s", ipu->have_mem_used ?
	   info_bytes_str(ipu->mem_used, buf, sizeof(buf)) : "-");
	if (ipu->have_resets)
		kv(f, "resets", "%" PRIu64, ipu->resets);
	else
		kv(f, "resets", "-");
	if (ipu->have_mem_errors)
		kv(f, "memory errors", "%" PRIu64 " corrected, %" PRIu64
		   " uncorrected", ipu->mem_ce, ipu->mem_ue);
	else
		kv(f, "memory errors", "-%s", ipu->have_pci ? "" :
		   " (counted by a PCI IPU only)");
	kv(f, "dma errors", "- (ipu.ko does not count them)");
	if (ipu->have_util)
		kv(f, "utilisation", "%.1f %%", ipu->util_pct);
	if (ipu->have_owner && ipu->owner_pid)
		kv(f, "owner (attached)", "%d %s", ipu->owner_pid,
		   ipu->owner_comm[0] ? ipu->owner_comm : "?");
	else
		kv(f, "owner (attached)", "%s", ipu->have_owner ? "none" : "-");
	n = ipu->nholders < INFO_MAX_HOLDERS ? ipu->nholders : INFO_MAX_HOLDERS;
	if (!ipu->nholders)
		kv(f, "open by", "%s", ipu->have_holders ? "nobody" :
		   "- (other users' processes need root)");
	for (i = 0; i < n; i++)
		holder_line(f, i ? "" : "open by", &ipu->holders[i]);
	if (ipu->nholders > n)
		kv(f, "", "and %zu more", ipu->nholders - n);
	if (ipu->have_temp)
		kv(f, "temperature", "%.3f C", ipu->temp_mc / 1000.0);
	else
		kv(f, "temperature", "- (no hwmon sensor)");
	if (ipu->have_power)
		kv(f, "power", "%.3f W", ipu->power_uw / 1e6);
	else
		kv(f, "power", "- (no hwmon sensor)");
	if (ipu->have_ioctl) {
		kv(f, "api version", "%u", ipu->api_version);
		kv(f, "features", "0x%" PRIx64 " %s", ipu->features,
		   info_features_str(ipu, buf, sizeof(buf)));
		kv(f, "page size", "%u", ipu->mem_page_size);
	} else {
		kv(f, "api version", "- (GET_INFO: see notes)");
	}
	if (ipu->have_pci)
		pci_details(f, &ipu->pci);
	for (i = 0; i < rep->nnotes; i++)
		fprintf(f, "note: %s\n", rep->notes[i]);
}

void info_print_pci_details(FILE *f, const struct info_report *rep,
			    const struct info_pci *p)
{
	size_t i;

	fprintf(f, "PCI function %s (IPU IDs, no /dev/ipuN)\n", p->addr);
	pci_details(f, p);
	for (i = 0; i < rep->nnotes; i++)
		fprintf(f, "note: %s\n", rep->notes[i]);
}
