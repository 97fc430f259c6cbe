// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_json.c - "ipu-info --json": the report as one JSON document, the
 * schema of docs/ipu-info.md ("schema": "ipu-info", "version":
 * INFO_JSON_VERSION). Every member is always present; an unknown value is
 * null, never left out, so a reader tells "not readable" from "absent in
 * this version". Strings come from files and devices: every byte that is
 * not printable ASCII is escaped, so the output is valid UTF-8 JSON
 * whatever sysfs held.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "info.h"

void info_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* "key": (with the comma before every member but the first). */
static void key(FILE *f, bool *first, int indent, const char *k)
{
	fprintf(f, "%s\n%*s", *first ? "" : ",", indent, "");
	*first = false;
	info_json_str(f, k);
	fputs(": ", f);
}

static void u64_or_null(FILE *f, bool have, uint64_t v)
{
	if (have)
		fprintf(f, "%" PRIu64, v);
	else
		fputs("null", f);
}

static void s64_or_null(FILE *f, bool have, long long v)
{
	if (have)
		fprintf(f, "%lld", v);
	else
		fputs("null", f);
}

/* A string, or null for NULL or "" (a value that could not be read). */
static void str_or_null(FILE *f, const char *s)
{
	if (s && *s)
		info_json_str(f, s);
	else
		fputs("null", f);
}

/* 64 bits as 16 hex digits in a string (a serial number, not a count). */
static void hex_or_null(FILE *f, bool have, uint64_t v)
{
	char hex[24];

	if (!have) {
		fputs("null", f);
		return;
	}
	snprintf(hex, sizeof(hex), "%016" PRIx64, v);
	info_json_str(f, hex);
}

static void boolean(FILE *f, bool b)
{
	fputs(b ? "true" : "false", f);
}

static void link_json(FILE *f, const struct info_link *l)
{
	char s[16];

	if (!l->known) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"speed_gts\": %s, \"width\": %u}",
		info_speed_str(l->speed, s, sizeof(s)), l->width);
}

static void pci_json(FILE *f, const struct info_pci *p, int ind)
{
	bool first = true, bfirst = true;
	const char *s, *e;
	int i;

	fputc('{', f);
	key(f, &first, ind, "address");
	info_json_str(f, p->addr);
	key(f, &first, ind, "vendor_id");
	fprintf(f, "%u", p->vendor);
	key(f, &first, ind, "device_id");
	fprintf(f, "%u", p->device);
	key(f, &first, ind, "subsystem_vendor_id");
	u64_or_null(f, p->have_subsys, p->subvendor);
	key(f, &first, ind, "subsystem_id");
	u64_or_null(f, p->have_subsys, p->subdevice);
	key(f, &first, ind, "revision");
	fprintf(f, "%u", p->revision);
	key(f, &first, ind, "class");
	fprintf(f, "%u", p->class_code);
	key(f, &first, ind, "vendor_name");
	info_json_str(f, p->vendor_name);
	key(f, &first, ind, "device_name");
	info_json_str(f, p->device_name);
	key(f, &first, ind, "names_from");
	info_json_str(f, p->names_from_spec ? "spec" : "libpci");
	key(f, &first, ind, "driver");
	str_or_null(f, p->driver);
	key(f, &first, ind, "numa_node");
	s64_or_null(f, p->have_numa, p->numa_node);
	key(f, &first, ind, "link_current");
	link_json(f, &p->link_cur);
	key(f, &first, ind, "link_max");
	link_json(f, &p->link_max);
	key(f, &first, ind, "link_degraded");
	boolean(f, p->degraded);
	key(f, &first, ind, "link_source");
	str_or_null(f, p->link_source);
	key(f, &first, ind, "config_space_full");
	boolean(f, p->config_full);
	key(f, &first, ind, "capabilities");
	if (!p->config_full) {
		fputs("null", f);
	} else {
		fputc('[', f);
		for (s = p->caps; *s; s = *e ? e + 1 : e) {
			char name[32];
			size_t n;

			e = strchr(s, ' ');
			if (!e)
				e = s + strlen(s);
			n = (size_t)(e - s) < sizeof(name) ? (size_t)(e - s) :
				sizeof(name) - 1;
			memcpy(name, s, n);
			name[n] = '\0';
			fputs(s == p->caps ? "" : ", ", f);
			info_json_str(f, name);
		}
		fputc(']', f);
	}
	key(f, &first, ind, "msix_vectors");
	u64_or_null(f, p->have_msix, p->msix_vectors);
	key(f, &first, ind, "dsn");
	hex_or_null(f, p->have_dsn, p->dsn);
	key(f, &first, ind, "bars");
	fputc('[', f);
	for (i = 0; i < 6; i++) {
		const struct info_bar *b = &p->bars[i];

		if (!b->size)
			continue;
		fprintf(f, "%s{\"index\": %d, \"base\": %" PRIu64
			", \"size\": %" PRIu64 ", \"type\": \"%s\", \"is64\": %s, \"prefetchable\": %s}",
			bfirst ? "" : ", ", i, b->base, b->size,
			b->mem ? "memory" : "io", b->is64 ? "true" : "false",
			b->prefetch ? "true" : "false");
		bfirst = false;
	}
	fputc(']', f);
	fprintf(f, "\n%*s}", ind - 2, "");
}

static void ipu_json(FILE *f, const struct info_ipu *ipu, int ind)
{
	bool first = true;
	char hex[24], names[512];
	size_t i, n;
	unsigned int b;

	fputc('{', f);
	key(f, &first, ind, "index");
	fprintf(f, "%u", ipu->index);
	key(f, &first, ind, "node");
	info_json_str(f, ipu->node);
	key(f, &first, ind, "platform");
	str_or_null(f, ipu->platform);
	key(f, &first, ind, "model");
	boolean(f, ipu->model);
	key(f, &first, ind, "firmware_version");
	str_or_null(f, ipu->firmware);
	key(f, &first, ind, "serial");
	hex_or_null(f, ipu->have_serial, ipu->serial);
	key(f, &first, ind, "memory_total");
	u64_or_null(f, ipu->have_mem_total, ipu->mem_total);
	key(f, &first, ind, "memory_used");
	u64_or_null(f, ipu->have_mem_used, ipu->mem_used);
	key(f, &first, ind, "reset_count");
	u64_or_null(f, ipu->have_resets, ipu->resets);
	key(f, &first, ind, "owner");
	if (!ipu->have_owner || !ipu->owner_pid) {
		fputs("null", f);
	} else {
		fprintf(f, "{\"pid\": %d, \"comm\": ", ipu->owner_pid);
		info_json_str(f, ipu->owner_comm);
		fputc('}', f);
	}
	key(f, &first, ind, "owner_known");
	boolean(f, ipu->have_owner);
	key(f, &first, ind, "holders");
	fputc('[', f);
	n = ipu->nholders < INFO_MAX_HOLDERS ? ipu->nholders : INFO_MAX_HOLDERS;
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"pid\": %d, \"comm\": ", i ? ", " : "",
			ipu->holders[i].pid);
		info_json_str(f, ipu->holders[i].comm);
		fputc('}', f);
	}
	fputc(']', f);
	key(f, &first, ind, "holders_total");
	fprintf(f, "%zu", ipu->nholders);
	key(f, &first, ind, "holders_complete");
	boolean(f, ipu->have_holders);
	key(f, &first, ind, "temperature_mc");
	s64_or_null(f, ipu->have_temp, ipu->temp_mc);
	key(f, &first, ind, "power_uw");
	s64_or_null(f, ipu->have_power, ipu->power_uw);
	key(f, &first, ind, "api_version");
	u64_or_null(f, ipu->have_ioctl, ipu->api_version);
	key(f, &first, ind, "features");
	u64_or_null(f, ipu->have_ioctl, ipu->features);
	key(f, &first, ind, "feature_names");
	if (!ipu->have_ioctl) {
		fputs("null", f);
	} else {
		fputc('[', f);
		for (b = 0, names[0] = '\0'; b < 64; b++) {
			const char *nm = info_feature_name(ipu, b);

			if (!(ipu->features >> b & 1))
				continue;
			if (!nm) {
				snprintf(hex, sizeof(hex), "bit%u", b);
				nm = hex;
			}
			fputs(names[0] ? ", " : "", f);
			names[0] = 1;
			info_json_str(f, nm);
		}
		fputc(']', f);
	}
	key(f, &first, ind, "mem_page_size");
	u64_or_null(f, ipu->have_ioctl, ipu->mem_page_size);
	key(f, &first, ind, "pci");
	if (ipu->have_pci)
		pci_json(f, &ipu->pci, ind + 2);
	else
		fputs("null", f);
	fprintf(f, "\n%*s}", ind - 2, "");
}

void info_print_json(FILE *f, const struct info_report *rep,
		     const struct info_ipu *only, const struct info_pci *only_pci)
{
	bool all = !only && !only_pci;
	size_t shown = 0;
	bool first = true;
	size_t i;

	fputc('{', f);
	key(f, &first, 2, "schema");
	info_json_str(f, "ipu-info");
	key(f, &first, 2, "version");
	fprintf(f, "%d", INFO_JSON_VERSION);
	key(f, &first, 2, "ipus");
	fputc('[', f);
	for (i = 0; i < rep->nipus; i++) {
		if (!all && only != &rep->ipus[i])
			continue;
		fprintf(f, "%s\n    ", shown++ ? "," : "");
		ipu_json(f, &rep->ipus[i], 6);
	}
	fputs("\n  ]", f);
	key(f, &first, 2, "unbound_pci");
	fputc('[', f);
	for (shown = 0, i = 0; i < rep->nunbound; i++) {
		if (!all && only_pci != &rep->unbound[i])
			continue;
		fprintf(f, "%s\n    ", shown++ ? "," : "");
		pci_json(f, &rep->unbound[i], 6);
	}
	fputs("\n  ]", f);
	key(f, &first, 2, "pci_scanned");
	boolean(f, rep->pci_scanned);
	key(f, &first, 2, "notes");
	fputc('[', f);
	for (i = 0; i < rep->nnotes; i++) {
		fprintf(f, "%s\n    ", i ? "," : "");
		info_json_str(f, rep->notes[i]);
	}
	fputs("\n  ]\n}\n", f);
}
