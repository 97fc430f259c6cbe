// SPDX-License-Identifier: GPL-2.0
/*
 * fake_tracefs_instances.c - an LD_PRELOAD shim that makes a plain
 * directory behave as tracefs does for its instances: mkdir under
 * ".../instances/" fills the new directory with an instance's files (a
 * copy of $FAKE_TRACEFS_INSTANCE, what a new instance starts with), and
 * rmdir there removes the directory with its files, as the kernel does.
 * tests/tools/test_ipu_trace_record.sh builds it and puts it under
 * `ipu-trace record`; nothing else is touched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int mkdir(const char *path, mode_t mode);
int rmdir(const char *path);

/* Run "sh -c @cmd" with @a and @b as $1 and $2; 0 when it succeeded. */
static int sh(const char *cmd, const char *a, const char *b)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, "sh", a, b ? b : "",
		      (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

static bool is_instance(const char *path)
{
	const char *p = strstr(path, "/instances/");

	return p && p[11] && !strchr(p + 11, '/');
}

int mkdir(const char *path, mode_t mode)
{
	int (*real)(const char *, mode_t) = (int (*)(const char *, mode_t))
		dlsym(RTLD_NEXT, "mkdir");
	const char *tmpl = getenv("FAKE_TRACEFS_INSTANCE");
	int err = real(path, mode);

	if (err || !tmpl || !is_instance(path))
		return err;
	if (sh("cp -R \"$1\"/. \"$2\"", tmpl, path)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int rmdir(const char *path)
{
	int (*real)(const char *) = (int (*)(const char *))
		dlsym(RTLD_NEXT, "rmdir");

	if (!getenv("FAKE_TRACEFS_INSTANCE") || !is_instance(path))
		return real(path);
	if (access(path, F_OK))
		return real(path);	/* its errno */
	return sh("rm -rf \"$1\"", path, NULL) ? (errno = EIO, -1) : 0;
}
