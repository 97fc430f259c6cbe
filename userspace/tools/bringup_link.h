/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * bringup_link.h - the rate of a PCIe link, and `dma`'s grade of a
 * bandwidth against it (bringup_link.c; docs/ipu-bringup.md, "DMA
 * thresholds").
 */
#ifndef IPU_TOOLS_BRINGUP_LINK_H
#define IPU_TOOLS_BRINGUP_LINK_H

#include <stddef.h>

#include "bringup.h"

/* Default thresholds, in per cent of the link's payload rate. */
#define BU_DMA_PASS_PCT 70.0
#define BU_DMA_WARN_PCT 25.0

/* A negotiated link and what it carries, in bytes per second. */
struct bu_link {
	unsigned int gen;	/* PCIe generation, 1 to 6 */
	unsigned int speed;	/* GT/s x 10, per lane */
	unsigned int width;	/* lanes */
	double encoding;	/* data bits per line bit: 8/10, 128/130, 236/256 */
	double tlp;		/* payload bytes per TLP byte (256-byte payloads) */
	double raw;		/* after encoding: speed x width x encoding / 8 */
	double payload;		/* raw x tlp: what a DMA can reach, one way */
};

/*
 * The link of @speed (GT/s x 10: 25, 50, 80, 160, 320, 640) and @width
 * lanes into @l. 0, or -EINVAL with @msg naming the bad value (a speed no
 * generation has, a width no link trains to).
 */
int bu_link_rate(unsigned int speed, unsigned int width, struct bu_link *l,
		 char *msg, size_t msglen);
/*
 * The same from sysfs's current_link_speed ("16.0 GT/s PCIe", older
 * kernels "8 GT/s") and current_link_width ("16"), newline removed: a
 * value that is neither ("Unknown", "") is -EINVAL, @msg quoting it.
 */
int bu_link_parse(const char *speed, const char *width, struct bu_link *l,
		  char *msg, size_t msglen);
/*
 * A bandwidth at @pct per cent of the payload rate: PASS from @pass_pct,
 * WARN from @warn_pct, FAIL below.
 */
enum bu_status bu_dma_grade(double pct, double pass_pct, double warn_pct);

#endif /* IPU_TOOLS_BRINGUP_LINK_H */
