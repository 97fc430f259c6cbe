/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktrace.h - a tracefs instance of the test's own (instances/NAME: a
 * buffer and event switches of its own), so that reading ipu.ko's trace
 * events (driver/ipu_trace.h) never touches the system's tracing state:
 *
 *	kr_mount();				// main(): tracefs, if not mounted
 *	kr_instance();				// skipped without tracefs
 *	kr_write("events/ipu/enable", "1");
 *	...					// read kr_dir's "trace"
 *	kr_remove();				// teardown
 *	kr_umount();				// main(), at the end
 */
#ifndef IPU_TESTS_KTRACE_H
#define IPU_TESTS_KTRACE_H

#include <limits.h>
#include <sys/mount.h>

#include "ktest.h"

#define KR_ROOT "/sys/kernel/tracing"

/* This test's trace instance, or "" when none is made. */
static char kr_dir[PATH_MAX];
/* Whether kr_mount() mounted tracefs (kr_umount() unmounts it). */
static bool kr_mounted;

/* Write @val to @file of the instance (fails the test on error). */
static inline void kr_write(const char *file, const char *val)
{
	char path[PATH_MAX + 64];
	int err;

	snprintf(path, sizeof(path), "%s/%s", kr_dir, file);
	err = kt_write_file(path, val);
	if (err)
		fail_msg("write %s to %s: %s", val, path, strerror(-err));
}

/*
 * A trace instance for this test, all its events off: skipped without
 * tracefs, failed when tracefs has no events/ipu (ipu.ko without them).
 */
static inline void kr_instance(void)
{
	if (access(KR_ROOT "/instances", F_OK)) {
		print_message("no tracefs at " KR_ROOT ": skipped\n");
		kt_skip();
	}
	if (access(KR_ROOT "/events/ipu", F_OK))
		fail_msg(KR_ROOT "/events/ipu: %s (ipu.ko without its trace events?)",
			 strerror(errno));
	snprintf(kr_dir, sizeof(kr_dir), KR_ROOT "/instances/ipu_test_%d",
		 (int)getpid());
	if (mkdir(kr_dir, 0755)) {
		kr_dir[0] = '\0';
		fail_msg("mkdir instance: %s", strerror(errno));
	}
}

/* Empty the instance's buffer (as `> trace`). */
static inline void kr_clear(void)
{
	char path[PATH_MAX + 16];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", kr_dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		fail_msg("truncate %s: %s", path, strerror(errno));
	close(fd);
}

/* The instance removed, if one was made (teardown: never fails). */
static inline void kr_remove(void)
{
	if (kr_dir[0] && rmdir(kr_dir))
		print_message("rmdir %s: %s\n", kr_dir, strerror(errno));
	kr_dir[0] = '\0';
}

/* tracefs where the guest did not mount it (debugfs/tracing aside). */
static inline void kr_mount(void)
{
	if (access(KR_ROOT "/instances", F_OK) &&
	    !mount("tracefs", KR_ROOT, "tracefs", 0, NULL))
		kr_mounted = true;
}

static inline void kr_umount(void)
{
	if (kr_mounted)
		umount(KR_ROOT);
	kr_mounted = false;
}

#endif /* IPU_TESTS_KTRACE_H */
