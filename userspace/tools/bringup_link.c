// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * bringup_link.c - what a PCIe link can carry, for `dma` to grade its
 * bandwidth against: the negotiated speed and width, less the line
 * encoding of the generation and the overhead of the TLPs that carry the
 * data (docs/ipu-bringup.md, "DMA thresholds"). Plain arithmetic, no
 * device: tests/unit/test_bringup_link.c covers it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bringup_link.h"

/*
 * Per generation: the speed (GT/s x 10, as info.h has it), the share of
 * the line's bits that are data after encoding, and the share of the
 * data-link bytes that are payload.
 *
 * Encoding: 8b/10b at 2.5 and 5 GT/s, 128b/130b from 8 to 32 GT/s. At
 * 64 GT/s (PAM4) the link runs in flit mode: 256-byte flits of which 236
 * bytes carry TLPs (6 DLLP, 8 CRC, 6 FEC).
 *
 * TLP overhead: a memory write or completion of the usual 256-byte
 * maximum payload carries a 16-byte header (64-bit addresses); up to
 * Gen5 each TLP also has framing, a sequence number and an LCRC, 8 bytes
 * more (STP/END and 2+4 at Gen1-2, the 4-byte STP token and the LCRC from
 * Gen3), so 256 of 280 bytes are payload; in flit mode sequence and CRC
 * belong to the flit (counted above), so 256 of 272. ACK and flow-control
 * DLLPs, and read requests in the other direction, take a few per cent
 * more that depend on the host: the thresholds leave room for them.
 */
static const struct {
	unsigned int speed;
	unsigned int gen;
	double encoding;
	double tlp;
} gens[] = {
	{ 25, 1, 8.0 / 10, 256.0 / 280 },
	{ 50, 2, 8.0 / 10, 256.0 / 280 },
	{ 80, 3, 128.0 / 130, 256.0 / 280 },
	{ 160, 4, 128.0 / 130, 256.0 / 280 },
	{ 320, 5, 128.0 / 130, 256.0 / 280 },
	{ 640, 6, 236.0 / 256, 256.0 / 272 },
};

/* The widths the PCIe spec allows a link to train to. */
static bool valid_width(unsigned int w)
{
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 12 || w == 16 ||
	       w == 32;
}

int bu_link_rate(unsigned int speed, unsigned int width, struct bu_link *l,
		 char *msg, size_t msglen)
{
	size_t i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < sizeof(gens) / sizeof(gens[0]); i++)
		if (gens[i].speed == speed)
			break;
	if (i == sizeof(gens) / sizeof(gens[0])) {
		snprintf(msg, msglen, "link speed %u.%u GT/s is no PCIe generation (1 to 6)",
			 speed / 10, speed % 10);
		return -EINVAL;
	}
	if (!valid_width(width)) {
		snprintf(msg, msglen, "link width x%u is not one a PCIe link trains to",
			 width);
		return -EINVAL;
	}
	l->gen = gens[i].gen;
	l->speed = speed;
	l->width = width;
	l->encoding = gens[i].encoding;
	l->tlp = gens[i].tlp;
	/* GT/s is per lane: one bit per transfer. */
	l->raw = speed / 10.0 * 1e9 * width * l->encoding / 8;
	l->payload = l->raw * l->tlp;
	return 0;
}

/* "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s" -> 160, 80, 25; 0 if none. */
static unsigned int parse_speed(const char *s)
{
	unsigned int whole = 0, tenth = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p) && whole < 1000)
		whole = whole * 10 + (unsigned int)(*p++ - '0');
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return 0;
		tenth = (unsigned int)(*p++ - '0');
		while (*p == '0')
			p++;
	}
	if (strncmp(p, " GT/s", 5) || (p[5] && strcmp(p + 5, " PCIe")))
		return 0;
	return whole * 10 + tenth;
}

int bu_link_parse(const char *speed, const char *width, struct bu_link *l,
		  char *msg, size_t msglen)
{
	unsigned long w;
	unsigned int sp;
	char *end;

	memset(l, 0, sizeof(*l));
	sp = parse_speed(speed);
	if (!sp) {
		snprintf(msg, msglen, "current_link_speed is \"%.40s\", not a speed in GT/s",
			 speed);
		return -EINVAL;
	}
	errno = 0;
	w = strtoul(width, &end, 10);
	if (errno || end == width || *end || !isdigit((unsigned char)width[0]) ||
	    w > 64) {
		snprintf(msg, msglen, "current_link_width is \"%.40s\", not a lane count",
			 width);
		return -EINVAL;
	}
	return bu_link_rate(sp, (unsigned int)w, l, msg, msglen);
}

enum bu_status bu_dma_grade(double pct, double pass_pct, double warn_pct)
{
	if (pct >= pass_pct)
		return BU_PASS;
	return pct >= warn_pct ? BU_WARN : BU_FAIL;
}
