// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * exe_file.c - the executable's plumbing: struct layouts and CRCs for the
 * reader and writer, files on disk, freeing, and look-ups by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "exe_format.h"
#include "ipu/exe.h"

/* Header: magic, version, header_size, num_blobs, file_size, desc_crc32,
 * reserved. */
const char __ipu_exe_layout_header[] = "4444844";
const char __ipu_exe_layout_desc[] = "4488";
const char __ipu_exe_layout_meta[] = "4444448";
/* name .. retrieval, shape[8], offset, data_offset, data_size, mmap_path,
 * reserved */
const char __ipu_exe_layout_tensor[] = "44444444" "88888888" "888" "44";
/* name, direction, dtype, ndim, shape[8], slots_offset */
const char __ipu_exe_layout_stream[] = "4444" "88888888" "8";
const char __ipu_exe_layout_instr[] = "44444444";

_Static_assert(sizeof(struct ipu_exe_file_header) == 32, "header layout");
_Static_assert(sizeof(struct ipu_exe_blob_desc) == 24, "desc layout");
_Static_assert(sizeof(struct ipu_exe_file_meta) == 32, "meta layout");
_Static_assert(sizeof(struct ipu_exe_file_tensor) == 128, "tensor layout");
_Static_assert(sizeof(struct ipu_exe_file_stream) == 88, "stream layout");
_Static_assert(sizeof(struct ipu_exe_file_instr) == 32, "instr layout");

void __ipu_exe_le_convert(void *p, const char *layout)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	uint8_t *b = p;

	for (; *layout; layout++) {
		size_t n = (size_t)(*layout - '0');

		for (size_t i = 0; i < n / 2; i++) {
			uint8_t t = b[i];

			b[i] = b[n - 1 - i];
			b[n - 1 - i] = t;
		}
		b += n;
	}
#else
	(void)p;
	(void)layout;
#endif
}

uint32_t __ipu_exe_crc32(const void *p, uint64_t len)
{
	const Bytef *b = p;
	uLong crc = crc32(0L, Z_NULL, 0);

	/* zlib takes uInt lengths: feed big blobs in pieces. */
	while (len) {
		uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;

		crc = crc32(crc, b, n);
		b += n;
		len -= n;
	}
	return (uint32_t)crc;
}

void ipu_exe_free(struct ipu_exe *exe)
{
	if (exe && exe->alloc_)
		free(exe->alloc_);
}

int ipu_exe_find_tensor(const struct ipu_exe *exe, const char *name)
{
	if (!exe || !name)
		return -ENOENT;
	for (uint32_t i = 0; i < exe->num_tensors && i <= INT32_MAX; i++)
		if (exe->tensors[i].name && !strcmp(exe->tensors[i].name, name))
			return (int)i;
	return -ENOENT;
}

int ipu_exe_find_stream(const struct ipu_exe *exe, const char *name)
{
	if (!exe || !name)
		return -ENOENT;
	for (uint32_t i = 0; i < exe->num_streams && i <= INT32_MAX; i++)
		if (exe->streams[i].name && !strcmp(exe->streams[i].name, name))
			return (int)i;
	return -ENOENT;
}

static int io_error(char *errbuf, size_t errlen, const char *what,
		    const char *path, int err)
{
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s '%s': %s", what, path,
			 strerror(-err));
	return err;
}

int ipu_exe_read_file(const char *path, struct ipu_exe **exep, char *errbuf,
		      size_t errlen)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd, ret;

	if (!path || !exep) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "no path or no result pointer");
		return -EINVAL;
	}
	*exep = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return io_error(errbuf, errlen, "cannot open", path, -errno);
	if (fstat(fd, &st) < 0) {
		ret = io_error(errbuf, errlen, "cannot stat", path, -errno);
		goto err_close;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > SIZE_MAX) {
		ret = io_error(errbuf, errlen, "cannot read", path, -EINVAL);
		goto err_close;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		ret = io_error(errbuf, errlen, "cannot read", path, -ENOMEM);
		goto err_close;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* A file that shrank under us reads as truncated. */
			ret = io_error(errbuf, errlen, "cannot read", path,
				       n < 0 ? -errno : -EIO);
			goto err_free;
		}
		got += (size_t)n;
	}
	ret = ipu_exe_load(buf, got, exep, errbuf, errlen);
err_free:
	free(buf);
err_close:
	close(fd);
	return ret;
}

/*
 * Written to a temporary file renamed over @path, so that a reader never
 * sees half an executable and a failed write leaves the old file.
 */
int ipu_exe_write_file(const struct ipu_exe *exe, const char *path,
		       char *errbuf, size_t errlen)
{
	char *tmp = NULL;
	void *buf = NULL;
	size_t len = 0, done = 0;
	int fd, ret;

	if (!path) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "no path");
		return -EINVAL;
	}
	ret = ipu_exe_save(exe, &buf, &len, errbuf, errlen);
	if (ret)
		return ret;
	tmp = malloc(strlen(path) + sizeof(".XXXXXX"));
	if (!tmp) {
		ret = io_error(errbuf, errlen, "cannot write", path, -ENOMEM);
		goto out;
	}
	strcpy(tmp, path);
	strcat(tmp, ".XXXXXX");
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = io_error(errbuf, errlen, "cannot create", tmp, -errno);
		goto out;
	}
	while (done < len) {
		ssize_t n = write(fd, (uint8_t *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = io_error(errbuf, errlen, "cannot write", tmp,
				       n < 0 ? -errno : -EIO);
			break;
		}
		done += (size_t)n;
	}
	if (!ret && fchmod(fd, 0644) < 0)
		ret = io_error(errbuf, errlen, "cannot chmod", tmp, -errno);
	if (close(fd) < 0 && !ret)
		ret = io_error(errbuf, errlen, "cannot write", tmp, -errno);
	if (!ret && rename(tmp, path) < 0)
		ret = io_error(errbuf, errlen, "cannot rename to", path, -errno);
	if (ret)
		unlink(tmp);
out:
	free(tmp);
	free(buf);
	return ret;
}
