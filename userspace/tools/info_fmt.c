// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_fmt.c - how ipu-info writes values for people: sizes, link speeds,
 * links, holders and feature bits, shared by the table and the details.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <ipu/ipu.h>
#include <linux/ipu.h>

#include "info.h"

const char *info_speed_str(unsigned int speed, char *buf, size_t len)
{
	if (speed % 10)
		snprintf(buf, len, "%u.%u", speed / 10, speed % 10);
	else
		snprintf(buf, len, "%u", speed / 10);
	return buf;
}

const char *info_bytes_str(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB",
					    "PiB", "EiB" };
	unsigned int u = 0;
	double v = (double)bytes;

	while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

const char *info_ns_str(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.1f s", ns / 1e9);
	return buf;
}

/* "16GT/s x16", or "-". */
static const char *one_link(const struct info_link *l, char *buf, size_t len)
{
	char s[16];

	if (!l->known)
		return "-";
	snprintf(buf, len, "%sGT/s x%u", info_speed_str(l->speed, s, sizeof(s)),
		 l->width);
	return buf;
}

const char *info_link_str(const struct info_pci *p, char *buf, size_t len)
{
	char cur[32], max[32];

	if (!p->link_cur.known && !p->link_max.known)
		snprintf(buf, len, "-");
	else if (!p->degraded && p->link_cur.known && p->link_max.known)
		snprintf(buf, len, "%s", one_link(&p->link_cur, cur,
						   sizeof(cur)));
	else
		snprintf(buf, len, "%s of %s%s",
			 one_link(&p->link_cur, cur, sizeof(cur)),
			 one_link(&p->link_max, max, sizeof(max)),
			 p->degraded ? " DEGRADED" : "");
	return buf;
}

const char *info_holder_str(const struct info_ipu *ipu, char *buf,
			    size_t len)
{
	const struct info_holder *h = ipu->nholders ? &ipu->holders[0] : NULL;
	size_t others = 0;
	int n = 0;

	if (ipu->have_owner && ipu->owner_pid) {
		n = snprintf(buf, len, "%d %s", ipu->owner_pid,
			     ipu->owner_comm[0] ? ipu->owner_comm : "?");
		/* The owner usually holds the node too. */
		others = ipu->nholders;
		if (h && others && ipu->holders[0].pid == ipu->owner_pid)
			others--;
	} else if (h) {
		n = snprintf(buf, len, "open: %d %s", h->pid,
			     h->comm[0] ? h->comm : "?");
		others = ipu->nholders - 1;
	} else {
		n = snprintf(buf, len, "-");
	}
	if (others && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " +%zu", others);
	return buf;
}

struct feature {
	uint64_t mask;
	const char *name;
};

/* GET_INFO's IPU_FEATURE_* (include/uapi/linux/ipu.h). */
static const struct feature kernel_features[] = {
	{ IPU_FEATURE_BO, "bo" },
	{ IPU_FEATURE_MMAP, "mmap" },
	{ IPU_FEATURE_XFER, "xfer" },
	{ IPU_FEATURE_RESET, "reset" },
	{ IPU_FEATURE_HOTPLUG, "hotplug" },
	{ IPU_FEATURE_URING_CMD, "uring_cmd" },
	{ IPU_FEATURE_LAUNCH, "launch" },
	{ IPU_FEATURE_URING_FIXED, "uring_fixed" },
	{ IPU_FEATURE_FW_SIM, "fw_sim" },
	{ IPU_FEATURE_GATHER, "gather" },
	{ IPU_FEATURE_PROFILE, "profile" },
	{ 0, NULL },
};

/* The model has no kernel: libipu's IPU_DEVICE_CAP_* (include/ipu/ipu.h). */
static const struct feature model_caps[] = {
	{ IPU_DEVICE_CAP_BO, "bo" },
	{ IPU_DEVICE_CAP_MAP, "map" },
	{ IPU_DEVICE_CAP_XFER, "xfer" },
	{ IPU_DEVICE_CAP_RESET, "reset" },
	{ IPU_DEVICE_CAP_HOTPLUG, "hotplug" },
	{ IPU_DEVICE_CAP_LAUNCH, "launch" },
	{ IPU_DEVICE_CAP_GATHER, "gather" },
	{ IPU_DEVICE_CAP_PROFILE, "profile" },
	{ 0, NULL },
};

const char *info_feature_name(const struct info_ipu *ipu, unsigned int bit)
{
	const struct feature *f = ipu->model ? model_caps : kernel_features;

	for (; bit < 64 && f->name; f++)
		if (f->mask == 1ull << bit)
			return f->name;
	return NULL;
}

const char *info_features_str(const struct info_ipu *ipu, char *buf,
			      size_t len)
{
	const char *name;
	size_t used = 0;
	unsigned int b;
	int n;

	buf[0] = '\0';
	for (b = 0; b < 64; b++) {
		if (!(ipu->features >> b & 1))
			continue;
		name = info_feature_name(ipu, b);
		if (name)
			n = snprintf(buf + used, len - used, "%s%s",
				     used ? " " : "", name);
		else
			n = snprintf(buf + used, len - used, "%sbit%u",
				     used ? " " : "", b);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += n;
	}
	return buf;
}
