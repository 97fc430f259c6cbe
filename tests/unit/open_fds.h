/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * open_fds.h - how many fds this process has open, for the leak checks of
 * tests that run a server (or the code that receives fds) in-process: a
 * count that grows across a test is an fd the code under test kept.
 */
#ifndef IPU_TEST_OPEN_FDS_H
#define IPU_TEST_OPEN_FDS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Open fds (not counting the one that lists them), or -1. */
static inline int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

/*
 * Open fds whose target (readlink of /proc/self/fd/N) starts with one of
 * @kinds (NULL-terminated), or -1: for a process whose runtime opens fds
 * of its own at any time (a sanitizer starting its symbolizer opens pipes
 * and /dev/null when libFuzzer first prints a new function), the count of
 * the kinds the code under test handles.
 */
static inline int open_fds_of(const char *const *kinds)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], target[256];
	ssize_t len;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;	/* the listing's own fd, closed by now */
		target[len] = '\0';
		for (const char *const *k = kinds; *k; k++)
			if (!strncmp(target, *k, strlen(*k))) {
				n++;
				break;
			}
	}
	closedir(d);
	return n;
}

/* Each open fd and what it is, to @f: what a failed leak check shows. */
static inline void open_fds_print(FILE *f)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], target[256];
	ssize_t n;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		fprintf(f, "  fd %s -> %s\n", e->d_name, target);
	}
	closedir(d);
}

#endif /* IPU_TEST_OPEN_FDS_H */
