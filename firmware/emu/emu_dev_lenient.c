// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_lenient.c - the names of the strict behaviours `ipu-emu
 * --lenient` turns off. The model acts as silicon would by default; a
 * test rig whose driver still leans on a v1 kindness names it here until
 * the driver is fixed, and a failure is bisected by naming one at a time.
 * A table, so that each strict behaviour added later is one more line.
 */
#include <errno.h>
#include <string.h>

#include "emu_dev.h"

static const struct {
	const char *name;
	unsigned int bit;
} lenient_names[] = {
	{ "bme", EMU_LENIENT_BME },
};

int emu_lenient_parse(const char *names, unsigned int *mask)
{
	unsigned int bits = 0, i;
	const char *p = names, *end;
	size_t len;

	if (!names || !mask)
		return -EINVAL;
	for (;;) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < sizeof(lenient_names) / sizeof(lenient_names[0]); i++)
			if (strlen(lenient_names[i].name) == len &&
			    !strncmp(lenient_names[i].name, p, len))
				break;
		if (i == sizeof(lenient_names) / sizeof(lenient_names[0]))
			return -EINVAL;	/* unknown, or empty */
		bits |= lenient_names[i].bit;
		if (!end)
			break;
		p = end + 1;
	}
	*mask = bits;
	return 0;
}
