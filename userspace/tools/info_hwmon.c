// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_hwmon.c - an IPU's sensors through hwmon (Documentation/hwmon/
 * sysfs-interface.rst): DEVDIR/hwmon/hwmonK/temp1_input (millidegrees
 * Celsius) and power1_input (microwatts). Simulated IPUs have none; a PCI
 * IPU's driver registers them on the PCI device. World-readable.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "info.h"

/* Plausibility bounds: beyond them the value is a driver's garbage, not
 * a reading (hwmon's own limits are these orders of magnitude). */
#define TEMP_MIN_MC (-273150LL)
#define TEMP_MAX_MC 1000000LL		/* 1000 C */
#define POWER_MAX_UW 100000000000LL	/* 100 kW */

static bool read_sensor(struct info_report *rep, const struct info_ipu *ipu,
			const char *dir, const char *name, long long lo,
			long long hi, long long *v)
{
	char path[PATH_MAX];
	int err;

	info_path(path, sizeof(path), "%s/%s", dir, name);
	err = ipu_attr_read_s64(path, v);
	if (err == -ENOENT || err == -ENODATA)
		return false;
	if (!err && (*v < lo || *v > hi))
		err = -ERANGE;
	if (err) {
		info_note(rep, "ipu%u: hwmon %s: %s", ipu->index, name,
			  err == -ERANGE ? "implausible value" :
			  err == -EINVAL ? "malformed value" : strerror(-err));
		return false;
	}
	return true;
}

void info_hwmon_read(struct info_report *rep, struct info_ipu *ipu,
		     const char *devdir)
{
	char hwdir[PATH_MAX], dir[PATH_MAX];
	struct dirent *de;
	DIR *d;

	info_path(hwdir, sizeof(hwdir), "%s/hwmon", devdir);
	d = opendir(hwdir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "hwmon", 5))
			continue;
		info_path(dir, sizeof(dir), "%s/%s", hwdir, de->d_name);
		if (!ipu->have_temp)
			ipu->have_temp = read_sensor(rep, ipu, dir,
						     "temp1_input", TEMP_MIN_MC,
						     TEMP_MAX_MC,
						     &ipu->temp_mc);
		if (!ipu->have_power)
			ipu->have_power = read_sensor(rep, ipu, dir,
						      "power1_input", 0,
						      POWER_MAX_UW,
						      &ipu->power_uw);
	}
	closedir(d);
}
