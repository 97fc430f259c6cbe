/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * guest_ram.h - guest RAM as QEMU's memory-backend-memfd gives it to a
 * vfio-user server: a memfd of @size bytes sealed against shrinking and
 * growing (its default seal=on). ipu-emu maps only sealed files for DMA.
 * Returns the fd, or -1.
 */
#ifndef IPU_TEST_GUEST_RAM_H
#define IPU_TEST_GUEST_RAM_H

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int guest_ram_fd(const char *name, size_t size)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW)) {
		close(fd);
		return -1;
	}
	return fd;
}

#endif /* IPU_TEST_GUEST_RAM_H */
