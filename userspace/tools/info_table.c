// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_table.c - ipu-info's default output: one line per IPU, then the
 * PCI functions with IPU IDs that no /dev/ipuN stands for, then the notes
 * (what could not be read, and why).
 *
 * Columns are as wide as their widest cell. On a terminal narrower than
 * the whole table, columns are left out by priority (the device, its
 * platform, memory and holder stay longest) and a line says which, so a
 * row never wraps; "-d N" and "--json" show everything.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

#define CELL 160
#define SEP 2

struct column {
	const char *head;
	unsigned int priority;	/* 0 stays longest */
};

struct table {
	const struct column *cols;
	size_t ncols, nrows;
	char (*cells)[CELL];	/* nrows * ncols */
};

static char *cell(struct table *t, size_t row, size_t col)
{
	return t->cells[row * t->ncols + col];
}

/* Print @t within @width columns (0: unlimited). */
static void table_print(FILE *f, struct table *t, unsigned int width)
{
	size_t w[32] = { 0 }, r, c, total = 0, hidden = 0;
	bool show[32] = { false };
	unsigned int prio;
	char names[256] = "";

	for (c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->cols[c].head);
		for (r = 0; r < t->nrows; r++)
			if (strlen(cell(t, r, c)) > w[c])
				w[c] = strlen(cell(t, r, c));
	}
	/* Take columns by priority while they fit; the first always. */
	for (prio = 0; prio < 32; prio++)
		for (c = 0; c < t->ncols; c++) {
			if (t->cols[c].priority != prio)
				continue;
			if (width && total && total + SEP + w[c] > width)
				continue;
			show[c] = true;
			total += (total ? SEP : 0) + w[c];
		}
	for (c = 0; c < t->ncols; c++)
		if (!show[c]) {
			hidden++;
			if (strlen(names) + strlen(t->cols[c].head) + 3 <
			    sizeof(names))
				sprintf(names + strlen(names), "%s%s",
					names[0] ? ", " : "", t->cols[c].head);
		}
	for (r = 0; r <= t->nrows; r++) {
		bool first = true;
		int pad = 0;

		for (c = 0; c < t->ncols; c++) {
			const char *s = r ? cell(t, r - 1, c) : t->cols[c].head;

			if (!show[c])
				continue;
			fprintf(f, "%*s%s", first ? 0 : pad + SEP, "", s);
			pad = (int)(w[c] - strlen(s));
			first = false;
		}
		fputc('\n', f);
	}
	if (hidden)
		fprintf(f, "(%zu column%s left out for %u columns: %s; see -d N or --json)\n",
			hidden, hidden == 1 ? "" : "s", width, names);
}

static int table_alloc(struct table *t, const struct column *cols,
		       size_t ncols, size_t nrows)
{
	t->cols = cols;
	t->ncols = ncols;
	t->nrows = nrows;
	t->cells = calloc(nrows ? nrows * ncols : 1, sizeof(*t->cells));
	return t->cells ? 0 : -1;
}

/* C_UTIL last: left out of the table but in --watch (info_usage_rates()). */
enum { C_DEV, C_PLAT, C_PCI, C_NAME, C_LINK, C_NUMA, C_DRV, C_FW, C_SERIAL,
       C_MEM, C_TEMP, C_POWER, C_RESETS, C_MEMERR, C_HOLDER, C_UTIL, C_N };

static const struct column ipu_cols[C_N] = {
	[C_DEV] = { "DEVICE", 0 },
	[C_PLAT] = { "PLATFORM", 1 },
	[C_PCI] = { "PCI", 4 },
	[C_NAME] = { "NAME", 13 },
	[C_LINK] = { "LINK", 5 },
	[C_NUMA] = { "NUMA", 11 },
	[C_DRV] = { "DRIVER", 12 },
	[C_FW] = { "FIRMWARE", 6 },
	[C_SERIAL] = { "SERIAL", 8 },
	[C_MEM] = { "MEMORY USED/TOTAL", 2 },
	[C_TEMP] = { "TEMP", 9 },
	[C_POWER] = { "POWER", 10 },
	[C_RESETS] = { "RESETS", 7 },
	[C_MEMERR] = { "MEM ERR CE/UE", 7 },
	[C_HOLDER] = { "HOLDER", 3 },
	[C_UTIL] = { "UTIL", 2 },
};

static void pci_cells(struct table *t, size_t r, const struct info_pci *p,
		      int c_pci, int c_name, int c_link, int c_numa, int c_drv)
{
	snprintf(cell(t, r, c_pci), CELL, "%s", p->addr);
	snprintf(cell(t, r, c_name), CELL, "%s%s", p->device_name,
		 p->names_from_spec ? " (spec)" : "");
	info_link_str(p, cell(t, r, c_link), CELL);
	if (p->have_numa)
		snprintf(cell(t, r, c_numa), CELL, "%d", p->numa_node);
	snprintf(cell(t, r, c_drv), CELL, "%s", p->driver[0] ? p->driver :
		 p->vendor ? "none" : "-");
}

static void ipu_row(struct table *t, size_t r, const struct info_ipu *ipu)
{
	char used[32], total[32];
	size_t c;

	for (c = 0; c < t->ncols; c++)
		strcpy(cell(t, r, c), "-");
	snprintf(cell(t, r, C_DEV), CELL, "%s", ipu->node);
	if (ipu->platform[0])
		snprintf(cell(t, r, C_PLAT), CELL, "%s", ipu->platform);
	if (ipu->have_pci)
		pci_cells(t, r, &ipu->pci, C_PCI, C_NAME, C_LINK, C_NUMA,
			  C_DRV);
	if (ipu->have_fw)
		snprintf(cell(t, r, C_FW), CELL, "%s", ipu->firmware);
	if (ipu->have_serial)
		snprintf(cell(t, r, C_SERIAL), CELL, "%016" PRIx64,
			 ipu->serial);
	if (ipu->have_mem_total || ipu->have_mem_used)
		snprintf(cell(t, r, C_MEM), CELL, "%s / %s",
			 ipu->have_mem_used ?
			 info_bytes_str(ipu->mem_used, used, sizeof(used)) : "-",
			 ipu->have_mem_total ?
			 info_bytes_str(ipu->mem_total, total, sizeof(total)) :
			 "-");
	if (ipu->have_temp)
		snprintf(cell(t, r, C_TEMP), CELL, "%.1f C",
			 ipu->temp_mc / 1000.0);
	if (ipu->have_power)
		snprintf(cell(t, r, C_POWER), CELL, "%.1f W",
			 ipu->power_uw / 1e6);
	if (ipu->have_resets)
		snprintf(cell(t, r, C_RESETS), CELL, "%" PRIu64, ipu->resets);
	if (ipu->have_mem_errors)
		snprintf(cell(t, r, C_MEMERR), CELL, "%" PRIu64 " / %" PRIu64,
			 ipu->mem_ce, ipu->mem_ue);
	info_holder_str(ipu, cell(t, r, C_HOLDER), CELL);
	if (t->ncols > C_UTIL && ipu->have_util)
		snprintf(cell(t, r, C_UTIL), CELL, "%.0f%%", ipu->util_pct);
}

enum { P_DEV, P_PID, P_COMM, P_FILES, P_BUFS, P_MEM, P_LAUNCH, P_XFER,
       P_ROLE, P_N };

static const struct column proc_cols[P_N] = {
	[P_DEV] = { "IPU", 0 },
	[P_PID] = { "PID", 1 },
	[P_COMM] = { "COMMAND", 2 },
	[P_FILES] = { "FILES", 6 },
	[P_BUFS] = { "BUFFERS", 4 },
	[P_MEM] = { "MEMORY", 3 },
	[P_LAUNCH] = { "LAUNCH", 5 },
	[P_XFER] = { "XFER", 7 },
	[P_ROLE] = { "ROLE", 8 },
};

/* The processes with an IPU open and what fdinfo says they use on it. */
static void print_processes(FILE *f, const struct info_report *rep,
			    unsigned int width)
{
	size_t i, j, n, rows = 0, r = 0, c;
	struct table t;

	for (i = 0; i < rep->nipus; i++)
		rows += rep->ipus[i].nholders < INFO_MAX_HOLDERS ?
			rep->ipus[i].nholders : INFO_MAX_HOLDERS;
	if (!rows || table_alloc(&t, proc_cols, P_N, rows))
		return;
	for (i = 0; i < rep->nipus; i++) {
		const struct info_ipu *ipu = &rep->ipus[i];

		n = ipu->nholders < INFO_MAX_HOLDERS ? ipu->nholders :
						       INFO_MAX_HOLDERS;
		for (j = 0; j < n; j++, r++) {
			const struct info_holder *h = &ipu->holders[j];
			const struct info_usage *u = &h->usage;

			for (c = 0; c < P_N; c++)
				strcpy(cell(&t, r, c), "-");
			snprintf(cell(&t, r, P_DEV), CELL, "%s", ipu->node);
			snprintf(cell(&t, r, P_PID), CELL, "%d", h->pid);
			if (h->comm[0])
				snprintf(cell(&t, r, P_COMM), CELL, "%s",
					 h->comm);
			if (!h->have_usage)
				continue;
			snprintf(cell(&t, r, P_FILES), CELL, "%u", u->files);
			snprintf(cell(&t, r, P_BUFS), CELL, "%" PRIu64,
				 u->buffers);
			info_bytes_str(u->bytes, cell(&t, r, P_MEM), CELL);
			info_ns_str(u->launch_ns, cell(&t, r, P_LAUNCH), CELL);
			info_ns_str(u->xfer_ns, cell(&t, r, P_XFER), CELL);
			if (info_usage_role(u))
				snprintf(cell(&t, r, P_ROLE), CELL, "%s",
					 info_usage_role(u));
		}
	}
	fprintf(f, "\nProcesses:\n");
	table_print(f, &t, width);
	free(t.cells);
}

enum { U_PCI, U_ID, U_NAME, U_DRV, U_LINK, U_NUMA, U_N };

static const struct column unbound_cols[U_N] = {
	[U_PCI] = { "PCI", 0 },
	[U_ID] = { "ID", 1 },
	[U_NAME] = { "NAME", 5 },
	[U_DRV] = { "DRIVER", 2 },
	[U_LINK] = { "LINK", 3 },
	[U_NUMA] = { "NUMA", 4 },
};

void info_print_table(FILE *f, const struct info_report *rep,
		      unsigned int width)
{
	struct table t;
	bool util = false;
	size_t i, c;

	for (i = 0; i < rep->nipus; i++)
		util |= rep->ipus[i].have_util;
	if (!rep->nipus) {
		fprintf(f, "no IPU found\n");
	} else if (table_alloc(&t, ipu_cols, util ? C_N : C_UTIL,
			       rep->nipus)) {
		fprintf(f, "ipu-info: out of memory\n");
	} else {
		for (i = 0; i < rep->nipus; i++)
			ipu_row(&t, i, &rep->ipus[i]);
		table_print(f, &t, width);
		free(t.cells);
		print_processes(f, rep, width);
	}

	if (rep->nunbound && !table_alloc(&t, unbound_cols, U_N,
					  rep->nunbound)) {
		fprintf(f, "\nPCI functions with IPU IDs and no /dev/ipuN:\n");
		for (i = 0; i < rep->nunbound; i++) {
			const struct info_pci *p = &rep->unbound[i];

			for (c = 0; c < U_N; c++)
				strcpy(cell(&t, i, c), "-");
			snprintf(cell(&t, i, U_ID), CELL, "%04x:%04x",
				 p->vendor, p->device);
			pci_cells(&t, i, p, U_PCI, U_NAME, U_LINK, U_NUMA,
				  U_DRV);
		}
		table_print(f, &t, width);
		free(t.cells);
	}

	if (rep->nnotes) {
		fprintf(f, "\nnotes:\n");
		for (i = 0; i < rep->nnotes; i++)
			fprintf(f, "  %s\n", rep->notes[i]);
	}
}
