// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_collect.c - the IPUs of ipu.ko as sysfs and GET_INFO show them,
 * then what libpci, hwmon, /proc and the model add (their own files).
 *
 * sysfs (ROOT/sys/class/ipu/ipuN/: docs/sim-control.md) is readable by
 * everyone and gives most of a row; GET_INFO on ROOT/dev/ipuN needs read
 * access to the node (root, or the group udev gives it) and adds the API
 * version, the feature bits and the page size. Whatever cannot be read is
 * left unknown, with a note saying why.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/ipu.h>

#include "info.h"

void info_note(struct info_report *rep, const char *fmt, ...)
{
	va_list ap;

	if (rep->nnotes >= INFO_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(rep->notes[rep->nnotes++], INFO_NOTE_LEN, fmt, ap);
	va_end(ap);
}

/* Non-printable bytes of a value read from a file become '?'. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if (!isprint((unsigned char)*s))
			*s = '?';
}

/* "DDDD:BB:DD.F" as the PCI core names a function. */
static bool is_pci_addr(const char *s)
{
	unsigned int dom, bus, dev, fn;
	int n = 0;

	return strlen(s) == 12 &&
	       sscanf(s, "%4x:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &n) == 4 &&
	       n == 12 && dev < 32 && fn < 8;
}

static const char *errstr(int err)
{
	return err == -EINVAL ? "malformed value" :
	       err == -EOVERFLOW ? "value too long" : strerror(-err);
}

/* Read one u64 attribute of @dir; a failure other than absence is noted. */
static bool attr_u64(struct info_report *rep, const struct info_ipu *ipu,
		     const char *dir, const char *attr, int base, uint64_t *v)
{
	char path[PATH_MAX];
	int err;

	info_path(path, sizeof(path), "%s/%s", dir, attr);
	err = ipu_attr_read_u64(path, base, v);
	if (err && err != -ENOENT)
		info_note(rep, "ipu%u: sysfs %s: %s", ipu->index, attr,
			  errstr(err));
	return !err;
}

static bool attr_str(struct info_report *rep, const struct info_ipu *ipu,
		     const char *dir, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	int err;

	info_path(path, sizeof(path), "%s/%s", dir, attr);
	err = ipu_attr_read(path, buf, len);
	if (err && err != -ENOENT)
		info_note(rep, "ipu%u: sysfs %s: %s", ipu->index, attr,
			  errstr(err));
	if (!err)
		sanitize(buf);
	return !err;
}

/* The command name of @pid from ROOT/proc/PID/comm ("" if gone). */
static void proc_comm(const char *root, int pid, char *buf, size_t len)
{
	char path[PATH_MAX];

	info_path(path, sizeof(path), "%s/proc/%d/comm", root, pid);
	if (ipu_attr_read(path, buf, len))
		buf[0] = '\0';
	sanitize(buf);
}

static void read_fw(struct info_report *rep, struct info_ipu *ipu,
		    const char *dir)
{
	unsigned int maj, min, pat;
	char fw[64];
	int n = 0;

	if (!attr_str(rep, ipu, dir, "firmware_version", fw, sizeof(fw)))
		return;
	if (sscanf(fw, "%u.%u.%u%n", &maj, &min, &pat, &n) != 3 || fw[n] ||
	    maj > 0xffff || min > 0xff || pat > 0xff) {
		info_note(rep, "ipu%u: sysfs firmware_version: malformed value",
			  ipu->index);
		return;
	}
	snprintf(ipu->firmware, sizeof(ipu->firmware), "%u.%u.%u", maj, min,
		 pat);
	ipu->have_fw = true;
}

/* The function the class device hangs off: its "device" link's name. */
static void read_parent(struct info_ipu *ipu, const char *dir)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	info_path(path, sizeof(path), "%s/device", dir);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (is_pci_addr(base)) {
		ipu->have_pci = true;
		snprintf(ipu->pci.addr, sizeof(ipu->pci.addr), "%s", base);
	}
}

static void read_ioctl(struct info_report *rep, struct info_ipu *ipu,
		       const char *root)
{
	char path[PATH_MAX];
	struct ipu_info info;
	int fd, err;

	info_path(path, sizeof(path), "%s/dev/ipu%u", root, ipu->index);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		info_note(rep, "ipu%u: GET_INFO: cannot open %s: %s%s",
			  ipu->index, ipu->node, strerror(err),
			  err == EACCES ? " (API version, features and page size need read access to the node: root, or its group)" : "");
		return;
	}
	memset(&info, 0, sizeof(info));
	do {
		err = ioctl(fd, IPU_IOCTL_GET_INFO, &info) ? errno : 0;
	} while (err == EINTR);
	close(fd);
	if (err) {
		info_note(rep, "ipu%u: GET_INFO on %s: %s", ipu->index,
			  ipu->node, strerror(err));
		return;
	}
	ipu->have_ioctl = true;
	ipu->api_version = info.api_version;
	ipu->features = info.features;
	ipu->mem_page_size = info.mem_page_size;
	/* The PCI address, when sysfs had no link to the function. */
	if (info.platform == IPU_PLATFORM_PCI && !ipu->have_pci) {
		ipu->have_pci = true;
		snprintf(ipu->pci.addr, sizeof(ipu->pci.addr),
			 "%04x:%02x:%02x.%u", info.pci_domain & 0xffff,
			 (info.pci_bdf >> 8) & 0xff, (info.pci_bdf >> 3) & 0x1f,
			 info.pci_bdf & 7);
	}
}

static void read_ipu(struct info_report *rep, struct info_ipu *ipu,
		     const char *root, const char *classdir)
{
	char dir[PATH_MAX];
	uint64_t v;

	info_path(dir, sizeof(dir), "%s/ipu%u", classdir, ipu->index);
	snprintf(ipu->node, sizeof(ipu->node), "/dev/ipu%u", ipu->index);
	if (!attr_str(rep, ipu, dir, "platform", ipu->platform,
		      sizeof(ipu->platform)))
		ipu->platform[0] = '\0';
	ipu->have_mem_total = attr_u64(rep, ipu, dir, "memory_total", 10,
				       &ipu->mem_total);
	ipu->have_mem_used = attr_u64(rep, ipu, dir, "memory_used", 10,
				      &ipu->mem_used);
	ipu->have_serial = attr_u64(rep, ipu, dir, "serial", 16, &ipu->serial);
	ipu->have_resets = attr_u64(rep, ipu, dir, "reset_count", 10,
				    &ipu->resets);
	if (attr_u64(rep, ipu, dir, "owner_pid", 10, &v)) {
		if (v > INT_MAX) {
			info_note(rep, "ipu%u: sysfs owner_pid: malformed value",
				  ipu->index);
		} else {
			ipu->have_owner = true;
			ipu->owner_pid = (int)v;
			if (v)
				proc_comm(root, ipu->owner_pid, ipu->owner_comm,
					  sizeof(ipu->owner_comm));
		}
	}
	read_fw(rep, ipu, dir);
	read_parent(ipu, dir);
	read_ioctl(rep, ipu, root);
	/* hwmon registers on the bus device (PCI) or on the class device. */
	info_path(dir, sizeof(dir), "%s/ipu%u/device", classdir, ipu->index);
	info_hwmon_read(rep, ipu, dir);
	/* A PCI IPU's function counts its memory errors (ipu_pci_sysfs.c). */
	if (attr_u64(rep, ipu, dir, "mem_errors_corrected", 10, &ipu->mem_ce) &&
	    attr_u64(rep, ipu, dir, "mem_errors_uncorrected", 10, &ipu->mem_ue))
		ipu->have_mem_errors = true;
	if (!ipu->have_temp && !ipu->have_power) {
		info_path(dir, sizeof(dir), "%s/ipu%u", classdir, ipu->index);
		info_hwmon_read(rep, ipu, dir);
	}
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* The indexes of ROOT/sys/class/ipu/ipuN, sorted. */
static int list_class(struct info_report *rep, const char *classdir,
		      unsigned int **idxp, size_t *np)
{
	unsigned int *idx = NULL, *tmp, index;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	d = opendir(classdir);
	if (!d) {
		if (errno == ENOENT)
			info_note(rep, "no %s: ipu.ko is not loaded", classdir);
		else
			info_note(rep, "cannot read %s: %s", classdir,
				  strerror(errno));
		*idxp = NULL;
		*np = 0;
		return 0;
	}
	while ((de = readdir(d))) {
		if (ipu_parse_node_name(de->d_name, &index))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			tmp = realloc(idx, cap * sizeof(*idx));
			if (!tmp) {
				closedir(d);
				free(idx);
				return -ENOMEM;
			}
			idx = tmp;
		}
		idx[n++] = index;
	}
	closedir(d);
	if (n)
		qsort(idx, n, sizeof(*idx), cmp_uint);
	*idxp = idx;
	*np = n;
	return 0;
}

int info_collect(const char *root, unsigned int flags,
		 struct info_report *rep)
{
	char classdir[PATH_MAX];
	unsigned int *idx;
	size_t n, i;
	int err;

	memset(rep, 0, sizeof(*rep));
	/* "/" and "" both mean this machine; paths are ROOT + "/sys/...". */
	snprintf(rep->root, sizeof(rep->root), "%s",
		 strcmp(root, "/") ? root : "");
	info_path(classdir, sizeof(classdir), "%s/sys/class/ipu", rep->root);
	err = list_class(rep, classdir, &idx, &n);
	if (err)
		return err;
	if (n) {
		rep->ipus = calloc(n, sizeof(*rep->ipus));
		if (!rep->ipus) {
			free(idx);
			return -ENOMEM;
		}
	}
	for (i = 0; i < n; i++) {
		rep->ipus[i].index = idx[i];
		read_ipu(rep, &rep->ipus[i], rep->root, classdir);
	}
	rep->nipus = n;
	free(idx);

	info_proc_holders(rep, rep->root);
	if (!(flags & INFO_NO_PCI)) {
		err = info_pci_collect(rep, rep->root);
		if (err)
			return err;
	}
	if (flags & INFO_MODEL)
		return info_model_collect(rep);
	return 0;
}

void info_report_free(struct info_report *rep)
{
	free(rep->ipus);
	free(rep->unbound);
	rep->ipus = NULL;
	rep->unbound = NULL;
	rep->nipus = rep->nunbound = 0;
}
