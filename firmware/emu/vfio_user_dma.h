/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * vfio_user_dma.h - the client's DMA mappings (VFIO_USER_DMA_MAP/UNMAP):
 * the guest RAM the device may reach, mmap()ed from the file descriptors
 * the client passed, and the device's bus-address reads and writes through
 * them. Thread-safe: the message loop maps and unmaps while device threads
 * copy; an unmap waits for every copy in progress (the specification: the
 * server releases all references before it replies).
 */
#ifndef IPU_EMU_VFIO_USER_DMA_H
#define IPU_EMU_VFIO_USER_DMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vfu_dma;

/*
 * How a copy reaches a range the server could not map: @len bytes at bus
 * address @addr from or (@write) to @buf; 0 or -EFAULT.
 */
typedef int (*vfu_dma_remote_fn)(void *ctx, uint64_t addr, void *buf,
				 size_t len, bool write);

/** vfu_dma_create() - an empty table allowing @max_maps mappings. */
int vfu_dma_create(unsigned int max_maps, struct vfu_dma **out);
/** vfu_dma_destroy() - unmap everything and free (no copy may be running). */
void vfu_dma_destroy(struct vfu_dma *dma);

/**
 * vfu_dma_set_remote() - reach ranges the server could not map through
 * @fn(@ctx, ...) (before any copy; without it, such ranges fault).
 */
void vfu_dma_set_remote(struct vfu_dma *dma, vfu_dma_remote_fn fn, void *ctx);

/**
 * vfu_dma_set_mmap_limit() - at most @limit of the table's ranges mmap()ed
 * at once (0: no limit). Each is a VMA of the process, and the process
 * has vm.max_map_count of them for all its IPUs, thread stacks and
 * libraries: the share of one IPU, so that one client cannot take the
 * others' (ipu-emu gives each IPU one, main.c).
 */
void vfu_dma_set_mmap_limit(struct vfu_dma *dma, unsigned int limit);

/*
 * vfu_dma_mmap_share() - each of @nipu IPUs' share of the mappings the
 * process may have (vm.max_map_count, read from @path, normally
 * /proc/sys/vm/max_map_count; Linux's default when it cannot be read),
 * less VFU_DMA_MAP_RESERVE for the process and VFU_DMA_MAP_RESERVE_IPU
 * for each IPU's own (thread stacks, device memory, io_uring); at least
 * 1, at most VFU_MAX_DMA_MAPS.
 */
#define VFU_DMA_MAP_COUNT_DEFAULT	65530u
#define VFU_DMA_MAP_RESERVE		1024u
#define VFU_DMA_MAP_RESERVE_IPU		64u
unsigned int vfu_dma_mmap_share(const char *path, unsigned int nipu);

/**
 * vfu_dma_map() - add the bus range [@addr, @addr + @size) backed by @fd at
 * @offset, readable and/or writable by the device as @flags
 * (VFIO_DMA_MAP_FLAG_READ/WRITE) say. @fd is mmap()ed and then closed
 * here whatever the outcome (the mapping keeps the memory); -1 records a
 * range the client did not share, which the device reaches through the
 * remote hook (vfu_dma_set_remote()), or not at all without one. Return: 0, -EEXIST (overlaps
 * a mapping), -ENOSPC (table full), -EDQUOT (the table's share of the
 * process's mappings is used up: vfu_dma_set_mmap_limit()), -EINVAL (@fd
 * is not a regular file or the range runs past its end), or mmap()'s
 * errno.
 *
 * Only a file sealed against shrinking (F_SEAL_SHRINK, as QEMU's
 * memory-backend-memfd is by default) is mapped: a client could shrink
 * any other file under the device and turn its next DMA into SIGBUS. An
 * unsealed file's range is recorded as not shared (reached through the
 * remote hook).
 */
int vfu_dma_map(struct vfu_dma *dma, uint64_t addr, uint64_t size, int fd,
		uint64_t offset, uint32_t flags);

/**
 * vfu_dma_unmap() - remove every mapping inside [@addr, @addr + @size)
 * (one that matches exactly, or the many a guest IOMMU's invalidation
 * covers, as Linux VFIO unmaps), after every copy that uses the table has
 * finished. Return: 0; -ENOENT when the range holds no mapping or cuts
 * one (then nothing is removed); -EINVAL for an empty or wrapping range.
 */
int vfu_dma_unmap(struct vfu_dma *dma, uint64_t addr, uint64_t size);

/** vfu_dma_unmap_all() - remove every mapping (client gone, UNMAP_FLAG_ALL). */
void vfu_dma_unmap_all(struct vfu_dma *dma);

/** vfu_dma_count() - mappings in the table. */
unsigned int vfu_dma_count(struct vfu_dma *dma);

/**
 * vfu_dma_read() / vfu_dma_write() - copy @len bytes at bus address @addr
 * from / to guest memory. The range may span adjacent mappings; every
 * byte must lie in a mapping that allows the access, or nothing is copied
 * and the result is -EFAULT (an IOMMU fault on real hardware). A range
 * reached through the remote hook may also fail part way (-EFAULT).
 */
int vfu_dma_read(struct vfu_dma *dma, uint64_t addr, void *dst, size_t len);
int vfu_dma_write(struct vfu_dma *dma, uint64_t addr, const void *src,
		  size_t len);

#endif /* IPU_EMU_VFIO_USER_DMA_H */
