// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * trace_svg.c - `ipu-trace svg`: the timeline as a picture any browser or
 * image viewer opens, no trace viewer needed. A row per track, its nested
 * spans one level lower each, coloured by category; hovering a span shows
 * its name, duration and bytes (SVG <title>).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ipu-trace.h"

#define WIDTH 1400	/* the picture, px */
#define LABEL 260	/* the track names' column */
#define LEVEL 16	/* a nesting level's height */
#define GAP 8		/* between tracks */
#define TOP 40		/* title and axis */
#define TICKS 10

static const struct {
	const char *cat, *colour;
} colours[] = {
	{ "host", "#59a14f" },	 { "batch", "#d4d4d4" },
	{ "h2d", "#4e79a7" },	 { "d2h", "#f28e2b" },
	{ "launch", "#e15759" }, { "op", "#76b7b2" },
};

static const char *colour(const char *cat)
{
	size_t i;

	for (i = 0; i < sizeof(colours) / sizeof(colours[0]); i++)
		if (!strcmp(cat, colours[i].cat))
			return colours[i].colour;
	return "#9c755f";
}

/* @s as XML character data. */
static void put_xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* XML 1.0 has no place for other control characters. */
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
	}
}

int trace_svg(const struct trace *t, const char *title, FILE *f)
{
	int64_t len = t->t1 > t->t0 ? t->t1 - t->t0 : 1;
	double scale = (double)(WIDTH - LABEL - 10) / (double)len, x, w;
	unsigned int *levels;
	size_t i, k;
	int *y, height = TOP;

	levels = calloc(t->n_tracks + 1, sizeof(*levels));
	y = calloc(t->n_tracks + 1, sizeof(*y));
	if (!levels || !y) {
		free(levels);
		free(y);
		return -ENOMEM;
	}
	for (i = 0; i < t->n_spans; i++) {
		k = trace_track_of(t, &t->spans[i]);
		if (t->spans[i].depth + 1 > levels[k])
			levels[k] = t->spans[i].depth + 1;
	}
	for (k = 0; k < t->n_tracks; k++) {
		y[k] = height;
		height += (int)levels[k] * LEVEL + GAP;
	}
	height += 10;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		   "<text x=\"4\" y=\"14\" font-size=\"13\">",
		WIDTH, height);
	put_xml(f, title);
	fprintf(f, " (%.3f ms)</text>\n", (double)len / 1e6);
	for (i = 0; i <= TICKS; i++) {
		x = LABEL + (double)i * (WIDTH - LABEL - 10) / TICKS;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
			   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#666\">%.3f ms</text>\n",
			x, TOP - 8, x, height, x, TOP - 12,
			(double)len / 1e6 * (double)i / TICKS);
	}
	for (k = 0; k < t->n_tracks; k++) {
		fprintf(f, "<text x=\"4\" y=\"%d\">", y[k] + LEVEL - 4);
		put_xml(f, t->tracks[k].name);
		fprintf(f, "</text>\n");
	}
	for (i = 0; i < t->n_spans; i++) {
		const struct trace_span *sp = &t->spans[i];

		k = trace_track_of(t, sp);
		x = LABEL + (double)(sp->ts - t->t0) * scale;
		/* Everything at least a hair wide: a short span still shows. */
		w = (double)sp->dur * scale;
		if (w < 0.5)
			w = 0.5;
		fprintf(f, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"white\" stroke-width=\"0.3\"><title>",
			x, y[k] + sp->depth * LEVEL, w, LEVEL - 2,
			colour(sp->cat));
		put_xml(f, sp->cat);
		fputc(' ', f);
		put_xml(f, sp->name);
		fprintf(f, ": %.3f us", (double)sp->dur / 1e3);
		if (sp->bytes)
			fprintf(f, ", %" PRIu64 " bytes", sp->bytes);
		fprintf(f, "</title></rect>\n");
		/* A name where it fits (about 6 px a character). */
		if (w > 6.0 * (double)strlen(sp->name) + 6) {
			fprintf(f, "<text x=\"%.2f\" y=\"%u\" fill=\"white\" pointer-events=\"none\">",
				x + 3, y[k] + sp->depth * LEVEL + LEVEL - 5);
			put_xml(f, sp->name);
			fprintf(f, "</text>\n");
		}
	}
	fprintf(f, "</svg>\n");
	free(levels);
	free(y);
	return ferror(f) ? -EIO : 0;
}
