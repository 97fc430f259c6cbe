/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * fake_sysfs.h - a throw-away directory tree that poses as sysfs (and as
 * /dev) for libipu's enumeration and open, via __ipu_set_sysfs_root() and
 * __ipu_set_dev_root().
 */
#ifndef IPU_TESTS_FAKE_SYSFS_H
#define IPU_TESTS_FAKE_SYSFS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ipu/ipu.h>
#include <ipu/testing.h>

struct fake_root {
	char dir[256];
};

/* Create an empty root and point libipu's sysfs and /dev roots at it. */
static inline void fake_root_make(struct fake_root *r)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(r->dir, sizeof(r->dir), "%s/ipu-unit-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(r->dir));
	assert_int_equal(__ipu_set_sysfs_root(r->dir), 0);
	assert_int_equal(__ipu_set_dev_root(r->dir), 0);
}

static inline int fake_root_rm_one(const char *path, const struct stat *sb,
				   int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

static inline void fake_root_remove(struct fake_root *r)
{
	nftw(r->dir, fake_root_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	__ipu_set_sysfs_root(NULL);
	__ipu_set_dev_root(NULL);
}

/* mkdir -p of @rel below the root. */
static inline void fake_root_mkdir(struct fake_root *r, const char *rel)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s/%s", r->dir, rel);
	for (p = path + strlen(r->dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

/* Write @content to the file @rel below the root. */
static inline void fake_root_write(struct fake_root *r, const char *rel,
				   const char *content)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", r->dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(content, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* A device directory class/ipu/ipu@idx with the usual attributes. */
static inline void fake_root_device(struct fake_root *r, unsigned int idx,
				    const char *platform, uint64_t total,
				    uint64_t used, unsigned int owner,
				    const char *fw, const char *serial,
				    uint64_t resets)
{
	char rel[128], val[64];

	snprintf(rel, sizeof(rel), "class/ipu/ipu%u", idx);
	fake_root_mkdir(r, rel);
#define ATTR(name, fmt, v)                                                 \
	do {                                                               \
		snprintf(rel, sizeof(rel), "class/ipu/ipu%u/" name, idx);  \
		snprintf(val, sizeof(val), fmt "\n", v);                   \
		fake_root_write(r, rel, val);                              \
	} while (0)
	ATTR("platform", "%s", platform);
	ATTR("memory_total", "%llu", (unsigned long long)total);
	ATTR("memory_used", "%llu", (unsigned long long)used);
	ATTR("owner_pid", "%u", owner);
	ATTR("firmware_version", "%s", fw);
	ATTR("serial", "%s", serial);
	ATTR("reset_count", "%llu", (unsigned long long)resets);
#undef ATTR
}

/* Number of open file descriptors of this process. */
static inline int fake_count_fds(void)
{
	char path[64];
	int n = 0, fd;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (access(path, F_OK) == 0)
			n++;
	}
	return n;
}

#endif /* IPU_TESTS_FAKE_SYSFS_H */
