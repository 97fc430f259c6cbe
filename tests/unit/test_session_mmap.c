// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_session_mmap.c - memory-mapped variables with real files (S22):
 * writable ones are the host copy and get the device's values on
 * weights_to_host; read-only ones turn weights to host off (S05).
 */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "session_helpers.h"

/*
 * The data directory the tests grant (S22): files of mapped variables are
 * named relative to it.
 */
static char data_dir[64];

static int group_setup(void **state)
{
	strcpy(data_dir, "/tmp/ipu-session-mmap-XXXXXX");
	if (!mkdtemp(data_dir))
		return -1;
	return sh_group_setup(state);
}

static int group_teardown(void **state)
{
	rmdir(data_dir);
	return sh_group_teardown(state);
}

/*
 * A new file in the data directory holding @n floats @v; its name
 * (relative) in @path. unlink_file() removes it.
 */
static void make_file(char *path, const float *v, size_t n)
{
	char full[128];
	int fd;

	snprintf(full, sizeof(full), "%s/w-XXXXXX", data_dir);
	fd = mkstemp(full);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, v, n * sizeof(*v)), (ssize_t)(n * sizeof(*v)));
	close(fd);
	strcpy(path, full + strlen(data_dir) + 1);
}

/* The absolute path of @path, relative to the data directory. */
static const char *full_path(const char *path)
{
	static char full[128];

	snprintf(full, sizeof(full), "%s/%s", data_dir, path);
	return full;
}

static void unlink_file(const char *path)
{
	assert_int_equal(unlink(full_path(path)), 0);
}

/* @path: absolute, or relative to the data directory. */
static void read_file(const char *path, float *v, size_t n)
{
	int fd = open(path[0] == '/' ? path : full_path(path), O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, v, n * sizeof(*v), 0), (ssize_t)(n * sizeof(*v)));
	close(fd);
}

/* The accumulator (n = 2) with w in @path; @groups per the grouping. */
static int mapped(const char *path, bool readonly, uint32_t replicas,
		  bool grouped, struct ipu_session **sp)
{
	struct ipu_replica_grouping g = { .stride = 1, .group_size = 1 };
	IPU_OPTS(ipu_ir_variable_opts, opts, .mmap_path = path,
		 .mmap_readonly = readonly, .grouping = grouped ? &g : NULL);
	IPU_OPTS(ipu_session_opts, sopts, .device = "ipu_model",
		 .data_dir = data_dir);

	return ipu_session_create(sh_acc_ir(replicas, 1, 2, &opts), &sopts, sp);
}

static void run_x(struct ipu_session *s, float x0, float *y)
{
	float x[2] = { x0, x0 };

	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 1, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 1, 2ull));
}

static const uint64_t shape2 = 2;

static void test_S22_file_is_the_initial_value(void **state)
{
	const float v[2] = { 40, 50 }, want[2] = { 41, 51 };
	struct ipu_session *s;
	char path[64];
	float y[2], w[2];

	(void)state;
	make_file(path, v, 2);
	assert_int_equal(mapped(path, false, 1, false, &s), 0);
	sh_get_f32(s, "w", w, 1, &shape2);
	sh_assert_floats(w, v, 2);
	sh_attach(s);
	run_x(s, 1, y);
	sh_assert_floats(y, want, 2);
	ipu_session_destroy(s);
	unlink_file(path);
}

static void test_S22_weights_to_host_writes_the_file(void **state)
{
	const float v[2] = { 1, 1 }, want[2] = { 4, 4 };
	struct ipu_session *s;
	char path[64];
	float y[2], f[2];

	(void)state;
	make_file(path, v, 2);
	assert_int_equal(mapped(path, false, 1, false, &s), 0);
	sh_attach(s);
	run_x(s, 3, y);
	read_file(path, f, 2);
	sh_assert_floats(f, v, 2); /* not before weights_to_host */
	assert_int_equal(ipu_session_weights_to_host(s), 0);
	read_file(path, f, 2);
	sh_assert_floats(f, want, 2);
	/* Leaving the context keeps the file, and so does destroying. */
	run_x(s, 1, y);
	assert_int_equal(ipu_session_detach(s, 0), 0);
	ipu_session_destroy(s);
	read_file(path, f, 2);
	assert_true(f[0] == 5 && f[1] == 5);
	unlink_file(path);
}

static void test_S22_writes_go_to_the_file(void **state)
{
	const float v[2] = { 1, 2 };
	float nv[2] = { -3, -4 }, f[2];
	struct ipu_host_buffer b = sh_buf(nv, IPU_DTYPE_FLOAT32, 1, 2ull);
	struct ipu_session *s;
	char path[64];

	(void)state;
	make_file(path, v, 2);
	assert_int_equal(mapped(path, false, 1, false, &s), 0);
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), 0);
	read_file(path, f, 2);
	sh_assert_floats(f, nv, 2);
	ipu_session_destroy(s);
	unlink_file(path);
}

/*
 * S18, S25: weights_to_host whose flush of the file fails returns the
 * error and changes nothing: not the file, not the host copy, and the
 * session does not claim to be in sync; the next one does it all.
 */
static void test_S18_failed_flush_changes_nothing(void **state)
{
	const float v[2] = { 1, 1 }, want[2] = { 4, 4 };
	struct ipu_session *s;
	char path[64];
	float y[2], f[2], w[2];

	(void)state;
	make_file(path, v, 2);
	assert_int_equal(mapped(path, false, 1, false, &s), 0);
	sh_attach(s);
	run_x(s, 3, y);
	__ipu_session_fail_flushes(s, 1);
	assert_int_equal(ipu_session_weights_to_host(s), -EIO);
	sh_assert_msg(s, "memory-mapped variable 'w': flushing to");
	read_file(path, f, 2);
	sh_assert_floats(f, v, 2);
	sh_host_f32(s, "w", false, w, 2);
	sh_assert_floats(w, v, 2);
	assert_false(__ipu_session_in_sync(s));
	/* S07: an exit whose flush fails stays attached, file untouched. */
	__ipu_session_fail_flushes(s, 1);
	assert_int_equal(ipu_session_detach(s, 0), -EIO);
	assert_true(ipu_session_is_attached(s));
	read_file(path, f, 2);
	sh_assert_floats(f, v, 2);
	assert_int_equal(ipu_session_weights_to_host(s), 0);
	assert_true(__ipu_session_in_sync(s));
	read_file(path, f, 2);
	sh_assert_floats(f, want, 2);
	sh_host_f32(s, "w", false, w, 2);
	sh_assert_floats(w, want, 2);
	ipu_session_destroy(s);
	unlink_file(path);
}

/*
 * S18, S20, S25: a failed flush changes nothing of a variable retrieved
 * from all replicas either: the per-replica values the session held (or
 * that it held none) are what they were, as are the file and host copy.
 */
static void test_S20_failed_flush_keeps_per_replica_values(void **state)
{
	const float v[2] = { 1, 1 }, one[2] = { 2, 2 },
		    each[4] = { 2, 2, 3, 3 };
	IPU_OPTS(ipu_ir_variable_opts, opts,
		 .retrieval = IPU_EXE_RETRIEVE_ALL_REPLICAS);
	IPU_OPTS(ipu_session_opts, sopts, .device = "ipu_model",
		 .data_dir = data_dir);
	float x[2][2] = { { 1, 1 }, { 2, 2 } }, y[2][2], f[2], w[4];
	struct ipu_host_buffer xb = sh_buf(x, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull),
			       yb = sh_buf(y, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull);
	struct ipu_session *s;
	const void *p;
	size_t len;
	char path[64];

	(void)state;
	make_file(path, v, 2);
	opts.mmap_path = path;
	assert_int_equal(ipu_session_create(sh_acc_ir(2, 1, 2, &opts), &sopts,
					    &s), 0);
	sh_attach(s);
	sh_run_xy(s, xb, yb);
	/* No per-replica values yet: a failed flush leaves none. */
	__ipu_session_fail_flushes(s, 1);
	assert_int_equal(ipu_session_weights_to_host(s), -EIO);
	assert_int_equal(__ipu_session_host_copy(s, "w", true, &p, &len),
			 -ENODATA);
	sh_host_f32(s, "w", false, w, 2);
	sh_assert_floats(w, v, 2);
	/* Held ones stay as they were. */
	assert_int_equal(ipu_session_weights_to_host(s), 0);
	sh_host_f32(s, "w", true, w, 4);
	sh_assert_floats(w, each, 4);
	sh_run_xy(s, xb, yb);
	__ipu_session_fail_flushes(s, 1);
	assert_int_equal(ipu_session_weights_to_host(s), -EIO);
	sh_host_f32(s, "w", true, w, 4);
	sh_assert_floats(w, each, 4);
	sh_host_f32(s, "w", false, w, 2);
	sh_assert_floats(w, one, 2);
	read_file(path, f, 2);
	sh_assert_floats(f, one, 2);
	assert_false(__ipu_session_in_sync(s));
	ipu_session_destroy(s);
	unlink_file(path);
}

/* S25: a write the device rejects leaves the file as it was. */
static void test_S22_write_the_device_rejects_leaves_the_file(void **state)
{
	const float v[2] = { 1, 2 };
	float nv[2] = { -3, -4 }, f[2];
	struct ipu_host_buffer b = sh_buf(nv, IPU_DTYPE_FLOAT32, 1, 2ull);
	struct ipu_session *s;
	char path[64];

	(void)state;
	make_file(path, v, 2);
	assert_int_equal(mapped(path, false, 1, false, &s), 0);
	sh_attach(s);
	assert_int_equal(__ipu_model_faults_set("dma:1"), 0);
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), -EIO);
	assert_int_equal(__ipu_model_faults_set(NULL), 0);
	read_file(path, f, 2);
	sh_assert_floats(f, v, 2);
	/* Leaving fetches nothing new: the file still holds the values. */
	assert_int_equal(ipu_session_detach(s, 0), 0);
	ipu_session_destroy(s);
	read_file(path, f, 2);
	sh_assert_floats(f, v, 2);
	unlink_file(path);
}

static void test_S22_grouped_file_holds_a_value_per_group(void **state)
{
	const float v[4] = { 1, 2, 10, 20 }, want[4] = { 2, 3, 12, 22 };
	struct ipu_session *s;
	float x[2][2] = { { 1, 1 }, { 2, 2 } }, y[2][2], f[4];
	char path[64];

	(void)state;
	make_file(path, v, 4);
	assert_int_equal(mapped(path, false, 2, true, &s), 0);
	sh_attach(s);
	sh_run_xy(s, sh_buf(x, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull),
		  sh_buf(y, IPU_DTYPE_FLOAT32, 2, 2ull, 2ull));
	assert_int_equal(ipu_session_detach(s, 0), 0);
	read_file(path, f, 4);
	sh_assert_floats(f, want, 4);
	ipu_session_destroy(s);
	unlink_file(path);
}

static void test_S22_missing_file(void **state)
{
	struct ipu_session *s;

	(void)state;
	assert_int_equal(mapped("nonexistent-dir/w.bin", false, 1, false, &s),
			 -ENOENT);
	if (!strstr(ipu_session_errmsg(NULL),
		    "memory-mapped variable 'w': opening 'nonexistent-dir/w.bin' read-write in the data directory"))
		fail_msg("%s", ipu_session_errmsg(NULL));
}

static void test_S22_short_file(void **state)
{
	const float v[1] = { 1 };
	struct ipu_session *s;
	char path[64];

	(void)state;
	make_file(path, v, 1);
	assert_int_equal(mapped(path, false, 1, false, &s), -EINVAL);
	if (!strstr(ipu_session_errmsg(NULL), "has 4 bytes, the variable needs 8 (1 value of 8 bytes)"))
		fail_msg("%s", ipu_session_errmsg(NULL));
	unlink_file(path);
}

/* ---------------------------------------------------------------------- */
/* S05: read-only mappings                                                 */
/* ---------------------------------------------------------------------- */

static void test_S05_read_only_mapping_disables_weights_to_host(void **state)
{
	const float v[2] = { 7, 8 };
	struct ipu_session *s;
	char path[64];
	float y[2], f[2], w[2];

	(void)state;
	make_file(path, v, 2);
	assert_true(chmod(full_path(path), 0400) == 0);
	assert_int_equal(mapped(path, true, 1, false, &s), 0);
	assert_false(__ipu_session_to_host_on_exit(s));
	sh_attach(s);
	run_x(s, 1, y);
	assert_true(y[0] == 8 && y[1] == 9);
	assert_int_equal(ipu_session_weights_to_host(s), -EROFS);
	sh_assert_msg(s, "the program holds the read-only memory-mapped variable 'w'");
	/* As in PopXL, reading a variable then needs weights_to_host. */
	assert_int_equal(ipu_session_get_tensor_data(
				 s, "w", &(struct ipu_host_buffer){
						 .data = w,
						 .dtype = IPU_DTYPE_FLOAT32,
						 .ndim = 1,
						 .shape = { 2 } }),
			 -EROFS);
	/* Leaving does not try weights_to_host: no error. */
	assert_int_equal(ipu_session_detach(s, 0), 0);
	sh_get_f32(s, "w", w, 1, &shape2);
	sh_assert_floats(w, v, 2);
	read_file(path, f, 2);
	sh_assert_floats(f, v, 2);
	ipu_session_destroy(s);
	unlink_file(path);
}

static void test_S05_read_only_mapping_cannot_be_written(void **state)
{
	const float v[2] = { 7, 8 };
	float nv[2] = { 0, 0 };
	struct ipu_host_buffer b = sh_buf(nv, IPU_DTYPE_FLOAT32, 1, 2ull);
	struct ipu_session *s;
	char path[64];

	(void)state;
	make_file(path, v, 2);
	assert_int_equal(mapped(path, true, 1, false, &s), 0);
	assert_int_equal(ipu_session_write_variable_data(s, "w", &b), -EROFS);
	sh_assert_msg(s, "variable 'w' is a read-only memory-mapped file");
	ipu_session_destroy(s);
	unlink_file(path);
}

static void test_S05_read_only_mapping_with_exit_fetch_off(void **state)
{
	IPU_OPTS(ipu_ir_variable_opts, opts, .mmap_readonly = true);
	IPU_OPTS(ipu_session_opts, sopts, .device = "ipu_model",
		 .flags = IPU_SESSION_NO_WEIGHTS_TO_HOST_ON_EXIT,
		 .data_dir = data_dir);
	const float v[2] = { 7, 8 };
	struct ipu_session *s;
	char path[64];

	(void)state;
	make_file(path, v, 2);
	opts.mmap_path = path;
	assert_int_equal(ipu_session_create(sh_acc_ir(1, 1, 2, &opts), &sopts,
					    &s),
			 0);
	assert_false(__ipu_session_to_host_on_exit(s));
	/* w is the read-only mapping S05 names. */
	assert_int_equal(ipu_session_weights_to_host(s), -EROFS);
	sh_assert_msg(s, "read-only memory-mapped variable 'w'");
	ipu_session_destroy(s);
	unlink_file(path);
}

/* ---------------------------------------------------------------------- */
/* An executable is untrusted: its files stay inside the granted directory */
/* ---------------------------------------------------------------------- */

#define VICTIM_BYTES "the user's own file: must never change\n"

/* A file outside any data directory, holding VICTIM_BYTES. */
static void make_victim(char *path)
{
	int fd;

	strcpy(path, "/tmp/ipu-victim-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, VICTIM_BYTES, strlen(VICTIM_BYTES)),
			 (ssize_t)strlen(VICTIM_BYTES));
	close(fd);
}

static void assert_victim_intact(const char *path)
{
	char buf[128] = { 0 };
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1),
			 (ssize_t)strlen(VICTIM_BYTES));
	close(fd);
	assert_string_equal(buf, VICTIM_BYTES);
}

/*
 * Write @file: the accumulator with w memory-mapped from @mmap_path, made
 * by hand as an attacker would: compiled with a harmless path of the same
 * length, then the string table patched and the checksums redone, so that
 * the file is well formed whatever the path says.
 */
static void craft_exe(const char *file, const char *mmap_path)
{
	size_t len = strlen(mmap_path), size, i;
	char placeholder[256];
	struct ipu_exe_file_header *h;
	struct ipu_exe_blob_desc *d;
	struct ipu_exe *exe;
	uint8_t *buf, *at;
	char msg[256];
	void *image;
	FILE *f;

	assert_true(len < sizeof(placeholder));
	memset(placeholder, 'p', len);
	placeholder[len] = '\0';
	{
		IPU_OPTS(ipu_ir_variable_opts, opts, .mmap_path = placeholder);
		struct ipu_ir *ir = sh_acc_ir(1, 1, 2, &opts);

		if (ipu_ir_compile(ir, &exe))
			fail_msg("compiling the harmless twin: %s",
				 ipu_ir_errmsg(ir));
		ipu_ir_destroy(ir);
	}
	assert_int_equal(ipu_exe_save(exe, &image, &size, msg, sizeof(msg)), 0);
	ipu_exe_free(exe);
	buf = image;
	h = image;
	d = (struct ipu_exe_blob_desc *)(buf + h->header_size);
	for (i = 0; i < h->num_blobs; i++)
		if (d[i].type == IPU_EXE_BLOB_STRTAB)
			break;
	assert_true(i < h->num_blobs);
	at = memmem(buf + d[i].offset, d[i].size, placeholder, len + 1);
	assert_non_null(at);
	memcpy(at, mmap_path, len);
	d[i].crc32 = (uint32_t)crc32(0, buf + d[i].offset, (uInt)d[i].size);
	h->desc_crc32 = (uint32_t)crc32(0, (const Bytef *)d,
					(uInt)(h->num_blobs * sizeof(*d)));
	f = fopen(file, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(image, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
	free(image);
}

/*
 * What `ipu-run FILE` does with @file, granting @grant (NULL: none):
 * read, create, attach, run, leave (weights to host), destroy. Returns
 * the first failure; its message in @msg.
 */
static int attempt(const char *file, const char *grant, char *msg,
		   size_t len)
{
	IPU_OPTS(ipu_session_opts, opts, .device = "ipu_model",
		 .data_dir = grant);
	struct ipu_session *s;
	struct ipu_exe *exe;
	float y[2];
	int err;

	msg[0] = '\0';
	err = ipu_exe_read_file(file, &exe, msg, len);
	if (err)
		return err;
	err = ipu_session_create_from_exe(exe, &opts, &s);
	if (err) {
		snprintf(msg, len, "%s", ipu_session_errmsg(NULL));
		return err;
	}
	sh_attach(s);
	run_x(s, 5, y);
	assert_int_equal(ipu_session_detach(s, 0), 0);
	ipu_session_destroy(s);
	return 0;
}

/* A fresh directory under /tmp: the data directory of a test. */
static void make_dir(char *dir)
{
	strcpy(dir, "/tmp/ipu-data-XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void test_S22_exe_with_an_absolute_path_cannot_touch_a_file(void **state)
{
	char victim[64], dir[64], evil[128], msg[512];
	int err;

	(void)state;
	make_victim(victim);
	make_dir(dir);
	snprintf(evil, sizeof(evil), "%s/evil.ipux", dir);
	craft_exe(evil, victim);
	/* Granted a directory or not, the file is out of reach. */
	err = attempt(evil, dir, msg, sizeof(msg));
	assert_victim_intact(victim);
	assert_int_equal(err, -EINVAL);
	if (!strstr(msg, "'w'") || !strstr(msg, victim))
		fail_msg("%s", msg);
	err = attempt(evil, NULL, msg, sizeof(msg));
	assert_victim_intact(victim);
	assert_int_equal(err, -EINVAL);
	unlink(evil);
	rmdir(dir);
	unlink(victim);
}

static void test_S22_exe_with_dotdot_cannot_touch_a_file(void **state)
{
	char victim[64], dir[64], evil[128], path[128], sub[128], msg[512];
	int err;

	(void)state;
	make_victim(victim);
	make_dir(dir);
	snprintf(evil, sizeof(evil), "%s/evil.ipux", dir);
	/* "../ipu-victim-..." from the data directory, and from the cwd. */
	snprintf(path, sizeof(path), "../%s", victim + strlen("/tmp/"));
	craft_exe(evil, path);
	assert_int_equal(chdir(dir), 0);
	err = attempt(evil, dir, msg, sizeof(msg));
	assert_int_equal(chdir("/"), 0);
	assert_victim_intact(victim);
	assert_int_equal(err, -EINVAL);
	if (!strstr(msg, "'w'") || !strstr(msg, path))
		fail_msg("%s", msg);
	/* A ".." in the middle is no better. */
	snprintf(path, sizeof(path), "x/../../%s", victim + strlen("/tmp/"));
	craft_exe(evil, path);
	snprintf(sub, sizeof(sub), "%s/x", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(chdir(dir), 0);
	err = attempt(evil, dir, msg, sizeof(msg));
	assert_int_equal(chdir("/"), 0);
	assert_victim_intact(victim);
	assert_int_equal(err, -EINVAL);
	unlink(evil);
	rmdir(sub);
	rmdir(dir);
	unlink(victim);
}

/* w.bin, or a directory on the way to it, a symlink out of the dir. */
static void test_S22_exe_cannot_follow_a_symlink_out(void **state)
{
	char victim[64], dir[64], evil[128], link[128], path[128], msg[512];
	int err;

	(void)state;
	make_victim(victim);
	make_dir(dir);
	snprintf(evil, sizeof(evil), "%s/evil.ipux", dir);
	snprintf(link, sizeof(link), "%s/w.bin", dir);
	assert_int_equal(symlink(victim, link), 0);
	craft_exe(evil, "w.bin");
	assert_int_equal(chdir(dir), 0);
	err = attempt(evil, dir, msg, sizeof(msg));
	assert_int_equal(chdir("/"), 0);
	assert_victim_intact(victim);
	assert_int_equal(err, -ELOOP);
	if (!strstr(msg, "'w'") || !strstr(msg, "w.bin"))
		fail_msg("%s", msg);
	unlink(link);

	snprintf(link, sizeof(link), "%s/sub", dir);
	assert_int_equal(symlink("/tmp", link), 0);
	snprintf(path, sizeof(path), "sub/%s", victim + strlen("/tmp/"));
	craft_exe(evil, path);
	assert_int_equal(chdir(dir), 0);
	err = attempt(evil, dir, msg, sizeof(msg));
	assert_int_equal(chdir("/"), 0);
	assert_victim_intact(victim);
	assert_int_equal(err, -ELOOP);
	unlink(link);
	unlink(evil);
	rmdir(dir);
	unlink(victim);
}

/* Without a grant, no file at all: the error names the variable and file. */
static void test_S22_exe_file_needs_a_granted_dir(void **state)
{
	const float v[2] = { 1, 2 };
	char dir[64], evil[128], file[128], msg[512];
	float f[2];
	int err, fd;

	(void)state;
	make_dir(dir);
	snprintf(evil, sizeof(evil), "%s/prog.ipux", dir);
	snprintf(file, sizeof(file), "%s/w.bin", dir);
	fd = open(file, O_CREAT | O_WRONLY | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, v, sizeof(v)), (ssize_t)sizeof(v));
	close(fd);
	craft_exe(evil, "w.bin");
	assert_int_equal(chdir(dir), 0);
	err = attempt(evil, NULL, msg, sizeof(msg));
	assert_int_equal(chdir("/"), 0);
	read_file(file, f, 2);
	sh_assert_floats(f, v, 2);
	assert_int_equal(err, -EACCES);
	if (!strstr(msg, "memory-mapped variable 'w'") ||
	    !strstr(msg, "'w.bin'") || !strstr(msg, "data directory"))
		fail_msg("%s", msg);
	/* Granted, it is the variable's file: the run's values reach it. */
	assert_int_equal(attempt(evil, dir, msg, sizeof(msg)), 0);
	read_file(file, f, 2);
	assert_true(f[0] == 6 && f[1] == 7);
	unlink(file);
	unlink(evil);
	rmdir(dir);
}

/*
 * Where the kernel has no openat2() (before 5.6, or a seccomp filter says
 * ENOSYS), libsession walks the path itself. This makes the calling
 * process such a place; false when seccomp is not available.
 */
static bool hide_openat2(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	return !prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) &&
	       !prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(void)
{
	const struct CMUnitTest walk_tests[] = {
		cmocka_unit_test(test_S22_file_is_the_initial_value),
		cmocka_unit_test(test_S22_missing_file),
		cmocka_unit_test(test_S22_exe_with_an_absolute_path_cannot_touch_a_file),
		cmocka_unit_test(test_S22_exe_with_dotdot_cannot_touch_a_file),
		cmocka_unit_test(test_S22_exe_cannot_follow_a_symlink_out),
		cmocka_unit_test(test_S22_exe_file_needs_a_granted_dir),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_S22_file_is_the_initial_value),
		cmocka_unit_test(test_S22_weights_to_host_writes_the_file),
		cmocka_unit_test(test_S22_writes_go_to_the_file),
		cmocka_unit_test(test_S22_grouped_file_holds_a_value_per_group),
		cmocka_unit_test(test_S22_write_the_device_rejects_leaves_the_file),
		cmocka_unit_test(test_S18_failed_flush_changes_nothing),
		cmocka_unit_test(test_S20_failed_flush_keeps_per_replica_values),
		cmocka_unit_test(test_S22_missing_file),
		cmocka_unit_test(test_S22_short_file),
		cmocka_unit_test(test_S05_read_only_mapping_disables_weights_to_host),
		cmocka_unit_test(test_S05_read_only_mapping_cannot_be_written),
		cmocka_unit_test(test_S05_read_only_mapping_with_exit_fetch_off),
		cmocka_unit_test(test_S22_exe_with_an_absolute_path_cannot_touch_a_file),
		cmocka_unit_test(test_S22_exe_with_dotdot_cannot_touch_a_file),
		cmocka_unit_test(test_S22_exe_cannot_follow_a_symlink_out),
		cmocka_unit_test(test_S22_exe_file_needs_a_granted_dir),
	};

	int ret, st;
	pid_t pid;

	ret = cmocka_run_group_tests(tests, group_setup, group_teardown);
	/* Again without openat2(), in a child: seccomp filters stay. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		if (!hide_openat2()) {
			printf("no seccomp: the walk without openat2() is not tested\n");
			_exit(0);
		}
		_exit(cmocka_run_group_tests_name("without openat2", walk_tests,
						  group_setup, group_teardown));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		ret = ret ? ret : 1;
	return ret;
}
