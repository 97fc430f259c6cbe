// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_json.c - "ipu-info --json": the report as one JSON document, the
 * schema of docs/ipu-info.md ("schema": "ipu-info", "version":
 * INFO_JSON_VERSION). Every member is always present; an unknown value is
 * null, never left out, so a reader tells "not readable" from "absent in
 * this version". Strings come from files and devices: they go through the
 * tools' escaper (json_str.h), so the output is valid UTF-8 JSON whatever
 * sysfs held.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "info.h"
#include "json_str.h"

void info_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	json_str_put(f, s, strlen(s));
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

/* A string, or null for NULL or "" (a value that could not be read). */
static void str_or_null(FILE *f, const char *s)
{
	if (s && *s)
		info_json_str(f, s);
	else
		fputs("null", f);
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

/*
 * The members of an object, as a table: each is a kind of value at an
 * offset in the struct, with, for those that may be unknown, the offset
 * of the bool that says whether it was read (null when not). Members that
 * are more than a number or a string print themselves (J_FN).
 */
enum jkind {
	J_UINT,		/* unsigned integer of @size bytes */
	J_INT,		/* signed integer of @size bytes */
	J_STR,		/* char array, always present */
	J_STR_NULL,	/* char array, null when "" */
	J_BOOL,
	J_HEX,		/* uint64_t as 16 hex digits in a string */
	J_FN,		/* @fn prints it */
};

#define NO_HAVE ((size_t)-1)

struct jmember {
	const char *name;
	enum jkind kind;
	size_t off, size;
	size_t have;	/* offset of a bool, or NO_HAVE */
	void (*fn)(FILE *f, const void *obj, int ind);
};

#define JM(T, n, k, field, h) \
	{ n, k, offsetof(T, field), sizeof(((T *)0)->field), h, NULL }
#define JM_HAVE(T, n, k, field, hfield) JM(T, n, k, field, offsetof(T, hfield))
#define JM_FN(n, f) { n, J_FN, 0, 0, NO_HAVE, f }

static uint64_t get_uint(const char *p, size_t size)
{
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;

	switch (size) {
	case 1: return *(const uint8_t *)p;
	case 2: memcpy(&v16, p, 2); return v16;
	case 4: memcpy(&v32, p, 4); return v32;
	default: memcpy(&v64, p, 8); return v64;
	}
}

static long long get_int(const char *p, size_t size)
{
	int64_t v64;
	int32_t v32;

	if (size == 4) {
		memcpy(&v32, p, 4);
		return v32;
	}
	memcpy(&v64, p, 8);
	return v64;
}

static void member(FILE *f, const struct jmember *m, const void *obj, int ind)
{
	const char *p = (const char *)obj + m->off;
	char hex[24];

	if (m->have != NO_HAVE && !*((const bool *)((const char *)obj + m->have))) {
		fputs("null", f);
		return;
	}
	switch (m->kind) {
	case J_UINT:
		fprintf(f, "%" PRIu64, get_uint(p, m->size));
		break;
	case J_INT:
		fprintf(f, "%lld", get_int(p, m->size));
		break;
	case J_STR:
		info_json_str(f, p);
		break;
	case J_STR_NULL:
		str_or_null(f, p);
		break;
	case J_BOOL:
		boolean(f, *(const bool *)p);
		break;
	case J_HEX:
		snprintf(hex, sizeof(hex), "%016" PRIx64, get_uint(p, 8));
		info_json_str(f, hex);
		break;
	case J_FN:
		m->fn(f, obj, ind);
		break;
	}
}

/* An object of @n members of @obj, indented @ind. */
static void object(FILE *f, const struct jmember *m, size_t n,
		   const void *obj, int ind)
{
	bool first = true;
	size_t i;

	fputc('{', f);
	for (i = 0; i < n; i++) {
		key(f, &first, ind, m[i].name);
		member(f, &m[i], obj, ind);
	}
	fprintf(f, "\n%*s}", ind - 2, "");
}

static void pci_names_from(FILE *f, const void *obj, int ind)
{
	(void)ind;
	info_json_str(f, ((const struct info_pci *)obj)->names_from_spec ?
		      "spec" : "libpci");
}

static void pci_link_cur(FILE *f, const void *obj, int ind)
{
	(void)ind;
	link_json(f, &((const struct info_pci *)obj)->link_cur);
}

static void pci_link_max(FILE *f, const void *obj, int ind)
{
	(void)ind;
	link_json(f, &((const struct info_pci *)obj)->link_max);
}

static void pci_link_source(FILE *f, const void *obj, int ind)
{
	(void)ind;
	str_or_null(f, ((const struct info_pci *)obj)->link_source);
}

/* "PM MSI-X PCIe" as ["PM", "MSI-X", "PCIe"]; null without config space. */
static void pci_caps(FILE *f, const void *obj, int ind)
{
	const struct info_pci *p = obj;
	const char *s, *e;
	char name[32];
	size_t n;

	(void)ind;
	if (!p->config_full) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (s = p->caps; *s; s = *e ? e + 1 : e) {
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

static void pci_bars(FILE *f, const void *obj, int ind)
{
	const struct info_pci *p = obj;
	bool first = true;
	int i;

	(void)ind;
	fputc('[', f);
	for (i = 0; i < 6; i++) {
		const struct info_bar *b = &p->bars[i];

		if (!b->size)
			continue;
		fprintf(f, "%s{\"index\": %d, \"base\": %" PRIu64
			", \"size\": %" PRIu64 ", \"type\": \"%s\", \"is64\": %s, \"prefetchable\": %s}",
			first ? "" : ", ", i, b->base, b->size,
			b->mem ? "memory" : "io", b->is64 ? "true" : "false",
			b->prefetch ? "true" : "false");
		first = false;
	}
	fputc(']', f);
}

#define P struct info_pci
static const struct jmember pci_members[] = {
	JM(P, "address", J_STR, addr, NO_HAVE),
	JM(P, "vendor_id", J_UINT, vendor, NO_HAVE),
	JM(P, "device_id", J_UINT, device, NO_HAVE),
	JM_HAVE(P, "subsystem_vendor_id", J_UINT, subvendor, have_subsys),
	JM_HAVE(P, "subsystem_id", J_UINT, subdevice, have_subsys),
	JM(P, "revision", J_UINT, revision, NO_HAVE),
	JM(P, "class", J_UINT, class_code, NO_HAVE),
	JM(P, "vendor_name", J_STR, vendor_name, NO_HAVE),
	JM(P, "device_name", J_STR, device_name, NO_HAVE),
	JM_FN("names_from", pci_names_from),
	JM(P, "driver", J_STR_NULL, driver, NO_HAVE),
	JM_HAVE(P, "numa_node", J_INT, numa_node, have_numa),
	JM_FN("link_current", pci_link_cur),
	JM_FN("link_max", pci_link_max),
	JM(P, "link_degraded", J_BOOL, degraded, NO_HAVE),
	JM_FN("link_source", pci_link_source),
	JM(P, "config_space_full", J_BOOL, config_full, NO_HAVE),
	JM_FN("capabilities", pci_caps),
	JM_HAVE(P, "msix_vectors", J_UINT, msix_vectors, have_msix),
	JM_HAVE(P, "dsn", J_HEX, dsn, have_dsn),
	JM_FN("bars", pci_bars),
};
#undef P

static void pci_json(FILE *f, const struct info_pci *p, int ind)
{
	object(f, pci_members, sizeof(pci_members) / sizeof(pci_members[0]), p,
	       ind);
}

static void ipu_owner(FILE *f, const void *obj, int ind)
{
	const struct info_ipu *ipu = obj;

	(void)ind;
	if (!ipu->have_owner || !ipu->owner_pid) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"pid\": %d, \"comm\": ", ipu->owner_pid);
	info_json_str(f, ipu->owner_comm);
	fputc('}', f);
}

static void ipu_holders(FILE *f, const void *obj, int ind)
{
	const struct info_ipu *ipu = obj;
	size_t i, n;

	(void)ind;
	fputc('[', f);
	n = ipu->nholders < INFO_MAX_HOLDERS ? ipu->nholders : INFO_MAX_HOLDERS;
	for (i = 0; i < n; i++) {
		const struct info_holder *h = &ipu->holders[i];
		const struct info_usage *u = &h->usage;

		fprintf(f, "%s{\"pid\": %d, \"comm\": ", i ? ", " : "",
			h->pid);
		info_json_str(f, h->comm);
		if (h->have_usage)
			fprintf(f, ", \"fdinfo\": true, \"files\": %u, \"buffers\": %" PRIu64
				", \"memory_bytes\": %" PRIu64 ", \"engine_launch_ns\": %" PRIu64
				", \"engine_xfer_ns\": %" PRIu64,
				u->files, u->buffers, u->bytes, u->launch_ns,
				u->xfer_ns);
		else
			fputs(", \"fdinfo\": false, \"files\": null, \"buffers\": null, \"memory_bytes\": null, \"engine_launch_ns\": null, \"engine_xfer_ns\": null",
			      f);
		fputs(", \"role\": ", f);
		if (info_usage_role(u))
			info_json_str(f, info_usage_role(u));
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputc(']', f);
}

/* ipu.ko counts no DMA errors (yet): the member says so for readers. */
static void json_null(FILE *f, const void *obj, int ind)
{
	(void)obj;
	(void)ind;
	fputs("null", f);
}

/* Only --watch has two samples to tell a utilisation from. */
static void ipu_util(FILE *f, const void *obj, int ind)
{
	const struct info_ipu *ipu = obj;

	(void)ind;
	if (ipu->have_util)
		fprintf(f, "%.1f", ipu->util_pct);
	else
		fputs("null", f);
}

/* The feature bits by name ("bitN" for unnamed ones); null without them. */
static void ipu_feature_names(FILE *f, const void *obj, int ind)
{
	const struct info_ipu *ipu = obj;
	bool first = true;
	const char *nm;
	char bit[16];
	unsigned int b;

	(void)ind;
	if (!ipu->have_ioctl) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (b = 0; b < 64; b++) {
		if (!(ipu->features >> b & 1))
			continue;
		nm = info_feature_name(ipu, b);
		if (!nm) {
			snprintf(bit, sizeof(bit), "bit%u", b);
			nm = bit;
		}
		fputs(first ? "" : ", ", f);
		first = false;
		info_json_str(f, nm);
	}
	fputc(']', f);
}

static void ipu_pci(FILE *f, const void *obj, int ind)
{
	const struct info_ipu *ipu = obj;

	if (ipu->have_pci)
		pci_json(f, &ipu->pci, ind + 2);
	else
		fputs("null", f);
}

#define I struct info_ipu
static const struct jmember ipu_members[] = {
	JM(I, "index", J_UINT, index, NO_HAVE),
	JM(I, "node", J_STR, node, NO_HAVE),
	JM(I, "platform", J_STR_NULL, platform, NO_HAVE),
	JM(I, "model", J_BOOL, model, NO_HAVE),
	JM_HAVE(I, "firmware_version", J_STR_NULL, firmware, have_fw),
	JM_HAVE(I, "serial", J_HEX, serial, have_serial),
	JM_HAVE(I, "memory_total", J_UINT, mem_total, have_mem_total),
	JM_HAVE(I, "memory_used", J_UINT, mem_used, have_mem_used),
	JM_HAVE(I, "reset_count", J_UINT, resets, have_resets),
	JM_HAVE(I, "mem_errors_corrected", J_UINT, mem_ce, have_mem_errors),
	JM_HAVE(I, "mem_errors_uncorrected", J_UINT, mem_ue, have_mem_errors),
	JM_FN("dma_errors", json_null),
	JM_FN("owner", ipu_owner),
	JM(I, "owner_known", J_BOOL, have_owner, NO_HAVE),
	JM_FN("holders", ipu_holders),
	JM(I, "holders_total", J_UINT, nholders, NO_HAVE),
	JM(I, "holders_complete", J_BOOL, have_holders, NO_HAVE),
	JM_FN("utilization_pct", ipu_util),
	JM_HAVE(I, "temperature_mc", J_INT, temp_mc, have_temp),
	JM_HAVE(I, "power_uw", J_INT, power_uw, have_power),
	JM_HAVE(I, "api_version", J_UINT, api_version, have_ioctl),
	JM_HAVE(I, "features", J_UINT, features, have_ioctl),
	JM_FN("feature_names", ipu_feature_names),
	JM_HAVE(I, "mem_page_size", J_UINT, mem_page_size, have_ioctl),
	JM_FN("pci", ipu_pci),
};
#undef I

static void ipu_json(FILE *f, const struct info_ipu *ipu, int ind)
{
	object(f, ipu_members, sizeof(ipu_members) / sizeof(ipu_members[0]),
	       ipu, ind);
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
