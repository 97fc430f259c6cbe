// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_proc.c - who has an IPU's node open, the way fuser(1) finds out:
 * every ROOT/proc/PID/fd/N is a link to what the descriptor refers to, so
 * a link that reads "/dev/ipuN" is a holder of IPU N. Only the owner of a
 * process (or root) may read its fd directory: as a normal user the list
 * holds one's own processes, and a note says how many were unreadable.
 * (The attached owner, sysfs owner_pid, is readable by everyone.)
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

static void add_holder(struct info_ipu *ipu, const char *root, int pid)
{
	char path[PATH_MAX];
	struct info_holder *h;
	size_t i, n;
	char *s;

	n = ipu->nholders < INFO_MAX_HOLDERS ? ipu->nholders : INFO_MAX_HOLDERS;
	for (i = 0; i < n; i++)
		if (ipu->holders[i].pid == pid)
			return;
	if (ipu->nholders++ >= INFO_MAX_HOLDERS)
		return;
	h = &ipu->holders[n];
	h->pid = pid;
	info_path(path, sizeof(path), "%s/proc/%d/comm", root, pid);
	if (ipu_attr_read(path, h->comm, sizeof(h->comm)))
		h->comm[0] = '\0';
	for (s = h->comm; *s; s++)
		if (!isprint((unsigned char)*s))
			*s = '?';
}

/* The fds of one process; false when its fd directory is not ours to read. */
static bool scan_pid(struct info_report *rep, const char *root, int pid)
{
	char dir[PATH_MAX], path[PATH_MAX], target[64];
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
		if (ipu)
			add_holder(ipu, root, pid);
	}
	closedir(d);
	return true;
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
	for (i = 0; i < rep->nipus; i++)
		rep->ipus[i].have_holders = !denied;
	if (denied)
		info_note(rep, "holders: the open files of %zu processes are not readable (another user's): run as root to see every holder",
			  denied);
}
