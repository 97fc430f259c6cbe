// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * hostcopy.c - the host's copy of every variable and constant: what
 * weights_from_host sends and weights_to_host refreshes (S17-S22).
 *
 *  - a variable: num_groups values, first the executable's initial data;
 *  - a memory-mapped variable (S22): its file, mapped MAP_SHARED, so that
 *    the file is the copy: read-write, flushed by weights_to_host, or
 *    read-only (PROT_READ, S05);
 *  - a constant: its data in the executable, which never changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "session_internal.h"

/* S20: the host shape, (num_groups,) + shape, or a value per replica. */
static void describe(const struct ipu_session *s, struct sess_tensor *st)
{
	const struct ipu_exe_tensor *t = st->t;
	struct ipu_tensor_desc *d = &st->desc;
	uint32_t lead = 0;

	d->name = t->name;
	d->is_variable = t->kind == IPU_EXE_TENSOR_VARIABLE;
	d->dtype = t->dtype;
	if (st->all_replicas)
		d->shape[lead++] = s->rf;
	else if (st->num_groups > 1)
		d->shape[lead++] = st->num_groups;
	memcpy(&d->shape[lead], t->shape, t->ndim * sizeof(t->shape[0]));
	d->ndim = lead + t->ndim;
}

/*
 * Open @path beneath the directory @dirfd, following no symbolic link
 * (S22). The kernel's openat2() does it in one call where it has one
 * (5.6+): RESOLVE_BENEATH refuses absolute paths and ".." escapes,
 * RESOLVE_NO_SYMLINKS every symlink on the way. Elsewhere (ENOSYS, or a
 * seccomp filter's EPERM) the same walk by hand: each directory opened
 * with O_NOFOLLOW from the one before, never from a path string.
 * Returns the fd or -errno: -ELOOP for a symlink, -EXDEV for a way out.
 */
static int open_beneath(int dirfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	char comp[NAME_MAX + 1];
	const char *c = path;
	int fd, cur, err;
	struct stat sb;
	size_t n;

	fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	if (fd >= 0)
		return fd;
	if (errno != ENOSYS && errno != EPERM)
		return -errno;
	if (path[0] == '/')
		return -EXDEV;
	cur = dirfd;
	for (;;) {
		n = strcspn(c, "/");
		if (n > NAME_MAX) {
			err = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, c, n);
		comp[n] = '\0';
		if (n == 2 && comp[0] == '.' && comp[1] == '.') {
			err = -EXDEV;
			break;
		}
		if (!c[n]) { /* the file itself */
			fd = openat(cur, n ? comp : ".", flags | O_NOFOLLOW | O_CLOEXEC);
			err = fd < 0 ? -errno : fd;
			break;
		}
		c += n + 1;
		if (!n || (n == 1 && comp[0] == '.'))
			continue;
		fd = openat(cur, comp,
			    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			/* O_PATH | O_NOFOLLOW would open a symlink itself;
			 * O_DIRECTORY refuses it as ENOTDIR: say what it is. */
			if (err == -ENOTDIR &&
			    !fstatat(cur, comp, &sb, AT_SYMLINK_NOFOLLOW) &&
			    S_ISLNK(sb.st_mode))
				err = -ELOOP;
			break;
		}
		if (cur != dirfd)
			close(cur);
		cur = fd;
	}
	if (cur != dirfd)
		close(cur);
	return err;
}

/* Why opening an executable's file failed, in words (S22). */
static const char *open_failure(int err)
{
	switch (err) {
	case -ELOOP:
		return "it is, or goes through, a symbolic link, which is not followed";
	case -EXDEV:
		return "it leads out of the data directory";
	default:
		return strerror(-err);
	}
}

/*
 * S22: map @st's file, which holds its num_groups values. The executable
 * names it; the executable is untrusted, so the file is looked up only in
 * the data directory the caller granted (ipu_session_opts.data_dir).
 */
static int map_file(struct ipu_session *s, struct sess_tensor *st,
		    size_t len)
{
	const struct ipu_exe_tensor *t = st->t;
	struct stat sb;
	void *p;
	int fd, err;

	if (s->data_fd < 0)
		return ipu_sess_err(s, -EACCES,
				    "memory-mapped variable '%s' wants the file '%s': an executable's files are opened only in a data directory granted by its user, and none was (ipu_session_opts.data_dir; ipu-run --data-dir DIR)",
				    t->name, t->mmap_path);
	/* O_NONBLOCK: a FIFO put there must not hang the open. */
	fd = open_beneath(s->data_fd, t->mmap_path,
			  (st->readonly ? O_RDONLY : O_RDWR) | O_NONBLOCK);
	if (fd < 0) {
		err = fd;
		return ipu_sess_err(s, err,
				    "memory-mapped variable '%s': opening '%s' %s in the data directory '%s': %s",
				    t->name, t->mmap_path,
				    st->readonly ? "read-only" : "read-write",
				    s->data_dir, open_failure(err));
	}
	if (fstat(fd, &sb) < 0) {
		err = -errno;
		close(fd);
		return ipu_sess_err(s, err, "memory-mapped variable '%s': '%s': %s",
				    t->name, t->mmap_path, strerror(-err));
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return ipu_sess_err(s, -EINVAL,
				    "memory-mapped variable '%s': '%s' is not a regular file",
				    t->name, t->mmap_path);
	}
	if ((uint64_t)sb.st_size < len) {
		close(fd);
		return ipu_sess_err(s, -EINVAL,
				    "memory-mapped variable '%s': '%s' has %lld bytes, the variable needs %zu (%u value%s of %llu bytes)",
				    t->name, t->mmap_path, (long long)sb.st_size,
				    len, st->num_groups,
				    st->num_groups == 1 ? "" : "s",
				    (unsigned long long)t->nbytes);
	}
	p = mmap(NULL, len, PROT_READ | (st->readonly ? 0 : PROT_WRITE),
		 MAP_SHARED, fd, 0);
	err = p == MAP_FAILED ? -errno : 0;
	close(fd); /* the mapping keeps the file */
	if (err)
		return ipu_sess_err(s, err,
				    "memory-mapped variable '%s': mapping '%s': %s",
				    t->name, t->mmap_path, strerror(-err));
	st->host = p;
	st->map_len = len;
	return 0;
}

static int init_one(struct ipu_session *s, struct sess_tensor *st)
{
	const struct ipu_exe_tensor *t = st->t;
	size_t len = (size_t)st->num_groups * t->nbytes;

	if (t->kind == IPU_EXE_TENSOR_CONSTANT) {
		st->host = (uint8_t *)(uintptr_t)(s->exe->data + t->data_offset);
		return 0;
	}
	if (st->all_replicas) {
		st->replicas = malloc((size_t)s->rf * t->nbytes);
		if (!st->replicas)
			return ipu_sess_err(s, -ENOMEM,
					    "no memory for variable '%s'",
					    t->name);
	}
	if (t->flags & IPU_EXE_TENSOR_MMAP)
		return map_file(s, st, len);
	st->host = malloc(len);
	if (!st->host)
		return ipu_sess_err(s, -ENOMEM, "no memory for variable '%s'",
				    t->name);
	/* The validator makes the initial data exactly num_groups values. */
	memcpy(st->host, s->exe->data + t->data_offset, len);
	return 0;
}

int ipu_sess_tensors_init(struct ipu_session *s)
{
	const struct ipu_exe *exe = s->exe;
	struct sess_tensor *st;
	uint32_t i;
	int err;

	s->tensors = calloc(exe->num_tensors ? exe->num_tensors : 1,
			    sizeof(*s->tensors));
	if (!s->tensors)
		return ipu_sess_err(s, -ENOMEM, "no memory for %u tensors",
				    exe->num_tensors);
	for (i = 0; i < exe->num_tensors; i++) {
		const struct ipu_exe_tensor *t = &exe->tensors[i];
		bool var = t->kind == IPU_EXE_TENSOR_VARIABLE;

		if (!var && t->kind != IPU_EXE_TENSOR_CONSTANT)
			continue;
		st = &s->tensors[s->n_tensors++];
		st->t = t;
		st->index = i;
		st->num_groups = var ? ipu_exe_num_groups(s->rf,
							  t->group_size) : 1;
		st->readonly = var && (t->flags & IPU_EXE_TENSOR_MMAP_RDONLY);
		st->all_replicas = var &&
				   t->retrieval == IPU_EXE_RETRIEVE_ALL_REPLICAS &&
				   t->group_size > 1;
		describe(s, st);
		err = init_one(s, st);
		if (err)
			return err;
		if (st->readonly && !s->ro_mmap)
			s->ro_mmap = st;
	}
	/* The copies are what the device gets on the first attach. */
	s->in_sync = true;
	return 0;
}

void ipu_sess_tensors_free(struct ipu_session *s)
{
	struct sess_tensor *st;
	size_t i;

	for (i = 0; i < s->n_tensors; i++) {
		st = &s->tensors[i];
		if (st->map_len)
			munmap(st->host, st->map_len);
		else if (st->t->kind == IPU_EXE_TENSOR_VARIABLE)
			free(st->host);
		free(st->replicas);
	}
	free(s->tensors);
}

int ipu_sess_flush_mmaps(struct ipu_session *s)
{
	const struct sess_tensor *st;
	size_t i;
	int err;

	for (i = 0; i < s->n_tensors; i++) {
		st = &s->tensors[i];
		if (!st->map_len || st->readonly)
			continue;
		err = 0;
		if (s->fail_flushes) {
			s->fail_flushes--;
			err = -EIO;
		} else if (msync(st->host, st->map_len, MS_SYNC) < 0) {
			err = -errno;
		}
		if (err) {
			return ipu_sess_err(s, err,
					    "memory-mapped variable '%s': flushing to '%s': %s",
					    st->t->name, st->t->mmap_path,
					    strerror(-err));
		}
	}
	return 0;
}
