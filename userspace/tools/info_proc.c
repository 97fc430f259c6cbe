// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_proc.c - who has an IPU's node open, the way fuser(1) finds out:
 * every ROOT/proc/PID/fd/N is a link to what the descriptor refers to, so
 * a link that reads "/dev/ipuN" is a holder of IPU N. Only the owner of a
 * process (or root) may read its fd directory: as a normal user the list
 * holds one's own processes, and a note says how many were unreadable.
 * (The attached owner, sysfs owner_pid, is readable by everyone.)
 *
 * Each such fd's ROOT/proc/PID/fdinfo/N says, in the DRM fdinfo key
 * convention (driver/ipu_fdinfo.c), how many buffers and bytes the file
 * holds and how long its launches and transfers ran; a holder's use is
 * the sum over its files of the IPU. An older ipu.ko without the keys
 * leaves the use unknown.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "info.h"

static struct info_ipu *ipu_of_link(struct info_report *rep, const char *t)
{
	unsigned long v;
	char *end;
	size_t i;

	if (strncmp(t, "/dev/ipu", 8) || !isdigit((unsigned char)t[8]))
		return NULL;
	errno = 0;
	v = strtoul(t + 8, &end, 10);
	if (errno || *end)
		return NULL;
	for (i = 0; i < rep->nipus; i++)
		if (!rep->ipus[i].model && rep->ipus[i].index == v)
			return &rep->ipus[i];
	return NULL;
}

/* A "KEY:<tabs or spaces>N[ UNIT]" line's number in bytes (UNIT "KiB",
 * "MiB", "ns" or none, as drm-usage-stats.rst allows); false if @line is
 * not KEY's or its value is malformed. */
static bool key_u64(const char *line, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	unsigned long long x;
	const char *p;
	char *end;

	if (strncmp(line, key, kl) || line[kl] != ':')
		return false;
	p = line + kl + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	errno = 0;
	x = strtoull(p, &end, 10);
	if (errno)
		return false;
	if (!strcmp(end, " KiB"))
		x <<= 10;
	else if (!strcmp(end, " MiB"))
		x <<= 20;
	else if (*end && strcmp(end, " ns"))
		return false;
	*v = x;
	return true;
}

bool info_fdinfo_parse(const char *text, struct info_usage *u)
{
	struct info_usage add = { .files = 1 };
	bool ours = false;
	char line[256];
	const char *p, *nl;
	uint64_t v;
	size_t n;

	for (p = text; *p; p = *nl ? nl + 1 : nl) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		n = (size_t)(nl - p) < sizeof(line) ? (size_t)(nl - p) :
						      sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		if (!strncmp(line, "drm-driver:", 11)) {
			const char *d = line + 11;

			while (*d == ' ' || *d == '\t')
				d++;
			ours = !strcmp(d, "ipu");
		} else if (key_u64(line, "drm-total-memory", &v)) {
			add.bytes = v;
		} else if (key_u64(line, "drm-engine-launch", &v)) {
			add.launch_ns = v;
		} else if (key_u64(line, "drm-engine-xfer", &v)) {
			add.xfer_ns = v;
		} else if (key_u64(line, "ipu-buffers", &v)) {
			add.buffers = v;
		} else if (!strncmp(line, "ipu-role:", 9)) {
			const char *r = line + 9;

			while (*r == ' ' || *r == '\t')
				r++;
			add.roles = 1;
			add.owner_files = !strcmp(r, "owner");
			add.fw_files = !strcmp(r, "firmware");
		}
	}
	if (!ours)
		return false;
	u->files += add.files;
	u->buffers += add.buffers;
	u->bytes += add.bytes;
	u->launch_ns += add.launch_ns;
	u->xfer_ns += add.xfer_ns;
	u->owner_files += add.owner_files;
	u->fw_files += add.fw_files;
	u->roles += add.roles;
	return true;
}

const char *info_usage_role(const struct info_usage *u)
{
	if (!u->roles)
		return NULL;
	return u->owner_files ? "owner" : u->fw_files ? "firmware" : "none";
}

uint64_t info_launch_ns(const struct info_ipu *ipu)
{
	size_t i, n;
	uint64_t t = 0;

	n = ipu->nholders < INFO_MAX_HOLDERS ? ipu->nholders : INFO_MAX_HOLDERS;
	for (i = 0; i < n; i++)
		if (ipu->holders[i].have_usage)
			t += ipu->holders[i].usage.launch_ns;
	return t;
}

/* What fdinfo says of @fd (of /dev/ipuN) goes to @h, when it is ipu.ko's. */
static void add_fdinfo(struct info_holder *h, const char *root, int pid,
		       const char *fd)
{
	char path[PATH_MAX], text[4096];
	size_t n;
	FILE *f;

	info_path(path, sizeof(path), "%s/proc/%d/fdinfo/%s", root, pid, fd);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	if (info_fdinfo_parse(text, &h->usage))
		h->have_usage = true;
}

/* The holder @pid of @ipu, added if new; NULL past INFO_MAX_HOLDERS. */
static struct info_holder *add_holder(struct info_ipu *ipu, const char *root,
				      int pid)
{
	char path[PATH_MAX];
	struct info_holder *h;
	size_t i, n;
	char *s;

	n = ipu->nholders < INFO_MAX_HOLDERS ? ipu->nholders : INFO_MAX_HOLDERS;
	for (i = 0; i < n; i++)
		if (ipu->holders[i].pid == pid)
			return &ipu->holders[i];
	if (ipu->nholders++ >= INFO_MAX_HOLDERS)
		return NULL;
	h = &ipu->holders[n];
	h->pid = pid;
	info_path(path, sizeof(path), "%s/proc/%d/comm", root, pid);
	if (ipu_attr_read(path, h->comm, sizeof(h->comm)))
		h->comm[0] = '\0';
	for (s = h->comm; *s; s++)
		if (!isprint((unsigned char)*s))
			*s = '?';
	return h;
}

/* The fds of one process; false when its fd directory is not ours to read. */
static bool scan_pid(struct info_report *rep, const char *root, int pid)
{
	char dir[PATH_MAX], path[PATH_MAX], target[64];
	struct info_holder *h;
	struct info_ipu *ipu;
	struct dirent *de;
	ssize_t n;
	DIR *d;

	info_path(dir, sizeof(dir), "%s/proc/%d/fd", root, pid);
	d = opendir(dir);
	if (!d)
		/* Gone since readdir() is not a refusal. */
		return errno != EACCES && errno != EPERM;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		info_path(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		ipu = ipu_of_link(rep, target);
		h = ipu ? add_holder(ipu, root, pid) : NULL;
		if (h)
			add_fdinfo(h, root, pid, de->d_name);
	}
	closedir(d);
	return true;
}

static int cmp_holder(const void *a, const void *b)
{
	const struct info_holder *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

void info_proc_holders(struct info_report *rep, const char *root)
{
	char dir[PATH_MAX];
	unsigned long pid;
	size_t denied = 0, i;
	struct dirent *de;
	char *end;
	DIR *d;

	if (!rep->nipus)
		return;
	info_path(dir, sizeof(dir), "%s/proc", root);
	d = opendir(dir);
	if (!d) {
		info_note(rep, "holders: cannot read %s: %s", dir,
			  strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		errno = 0;
		pid = strtoul(de->d_name, &end, 10);
		if (errno || *end || pid > INT_MAX)
			continue;
		if (!scan_pid(rep, root, (int)pid))
			denied++;
	}
	closedir(d);
	/* By pid, whatever order /proc listed them in. */
	for (i = 0; i < rep->nipus; i++) {
		struct info_ipu *ipu = &rep->ipus[i];

		qsort(ipu->holders, ipu->nholders < INFO_MAX_HOLDERS ?
		      ipu->nholders : INFO_MAX_HOLDERS, sizeof(ipu->holders[0]),
		      cmp_holder);
		ipu->have_holders = !denied;
	}
	if (denied)
		info_note(rep, "holders: the open files of %zu processes are not readable (another user's): run as root to see every holder",
			  denied);
}
