// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * vfio_user_dma.c - the DMA mapping table: a sorted array of disjoint bus
 * ranges, each an mmap() of the client's file descriptor (QEMU passes the
 * memfd behind guest RAM). Lookups are binary searches.
 *
 * Locking: one rwlock. Device threads hold it for reading across the whole
 * check-and-copy, so a copy never touches memory an unmap has released;
 * map and unmap take it for writing, which waits for copies in progress.
 * The lock prefers writers, so a stream of copies cannot starve an unmap
 * (the client waits for its reply).
 *
 * A range the server could not map (no fd, or a file that could shrink)
 * is reached through the remote hook (DMA_READ/DMA_WRITE messages,
 * vfio_user_remote.c), without the lock: the reply may take a while, and
 * the message loop that maps and unmaps must not wait for it. A copy that
 * needs the hook is therefore checked whole first, then done a mapping at
 * a time, each looked up again (an unmap in between faults the rest).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/vfio.h>

#include "vfio_user_dma.h"
#include "vfio_user_proto.h"

struct dma_map {
	uint64_t addr;		/* first bus address */
	uint64_t size;
	uint8_t *va;		/* NULL: the client shared no fd */
	uint32_t flags;		/* VFIO_DMA_MAP_FLAG_READ/WRITE */
};

struct vfu_dma {
	pthread_rwlock_t lock;	/* protects maps[] and count */
	struct dma_map *maps;	/* sorted by addr, disjoint */
	unsigned int count, max;
	unsigned int mmaps;		/* maps[] with a va */
	unsigned int mmap_limit;	/* of @mmaps; 0: none */
	vfu_dma_remote_fn remote;	/* set once, before any copy */
	void *remote_ctx;
};

int vfu_dma_create(unsigned int max_maps, struct vfu_dma **out)
{
	pthread_rwlockattr_t attr;
	struct vfu_dma *dma;
	int ret;

	if (!max_maps)
		return -EINVAL;
	dma = calloc(1, sizeof(*dma));
	if (!dma)
		return -ENOMEM;
	dma->maps = calloc(max_maps, sizeof(*dma->maps));
	if (!dma->maps) {
		free(dma);
		return -ENOMEM;
	}
	dma->max = max_maps;
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
		PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	ret = pthread_rwlock_init(&dma->lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	if (ret) {
		free(dma->maps);
		free(dma);
		return -ret;
	}
	*out = dma;
	return 0;
}

void vfu_dma_set_remote(struct vfu_dma *dma, vfu_dma_remote_fn fn, void *ctx)
{
	dma->remote = fn;
	dma->remote_ctx = ctx;
}

unsigned int vfu_dma_mmap_share(const char *path, unsigned int nipu)
{
	unsigned long long max = VFU_DMA_MAP_COUNT_DEFAULT, reserve, share;
	FILE *f = fopen(path, "re");

	if (f) {
		if (fscanf(f, "%llu", &max) != 1)
			max = VFU_DMA_MAP_COUNT_DEFAULT;
		fclose(f);
	}
	if (!nipu)
		nipu = 1;
	reserve = VFU_DMA_MAP_RESERVE + (unsigned long long)nipu *
						VFU_DMA_MAP_RESERVE_IPU;
	share = max > reserve ? (max - reserve) / nipu : 0;
	if (!share)
		share = 1;
	return share < VFU_MAX_DMA_MAPS ? (unsigned int)share : VFU_MAX_DMA_MAPS;
}

void vfu_dma_set_mmap_limit(struct vfu_dma *dma, unsigned int limit)
{
	pthread_rwlock_wrlock(&dma->lock);
	dma->mmap_limit = limit;
	pthread_rwlock_unlock(&dma->lock);
}

static void release(struct dma_map *m)
{
	if (m->va)
		munmap(m->va, m->size);
}

/* Release maps[@i], which the table held (lock held for writing). */
static void drop_locked(struct vfu_dma *dma, unsigned int i)
{
	if (dma->maps[i].va)
		dma->mmaps--;
	release(&dma->maps[i]);
}

/* Whether one more mapping would pass the share (lock held). */
static bool mmaps_full_locked(const struct vfu_dma *dma)
{
	return dma->mmap_limit && dma->mmaps >= dma->mmap_limit;
}

void vfu_dma_destroy(struct vfu_dma *dma)
{
	if (!dma)
		return;
	vfu_dma_unmap_all(dma);
	pthread_rwlock_destroy(&dma->lock);
	free(dma->maps);
	free(dma);
}

/* Index of the first mapping whose last byte is at or after @addr. */
static unsigned int lower_bound(const struct vfu_dma *dma, uint64_t addr)
{
	unsigned int lo = 0, hi = dma->count;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		const struct dma_map *m = &dma->maps[mid];

		if (m->addr + (m->size - 1) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int vfu_dma_map(struct vfu_dma *dma, uint64_t addr, uint64_t size, int fd,
		uint64_t offset, uint32_t flags)
{
	struct dma_map m = { addr, size, NULL, flags };
	unsigned int i;
	bool full;
	int ret = 0;

	if (!size || addr + (size - 1) < addr) {
		ret = -EINVAL;
		goto out_close;
	}
	if (fd >= 0) {
		int prot = (flags & VFIO_DMA_MAP_FLAG_READ ? PROT_READ : 0) |
			   (flags & VFIO_DMA_MAP_FLAG_WRITE ? PROT_WRITE : 0);
		void *va;

		struct stat st;
		int seals;

		if (size > SIZE_MAX || offset > (uint64_t)INT64_MAX) {
			ret = -EINVAL;
			goto out_close;
		}
		/*
		 * Guest RAM is a file (memfd, hugetlbfs, a file backend), and
		 * all of the range must be in it: touching a page of a
		 * mapping past the file's end is SIGBUS, which would kill
		 * the model at the device's first DMA there.
		 */
		if (fstat(fd, &st)) {
			ret = -errno;
			goto out_close;
		}
		if (!S_ISREG(st.st_mode) || st.st_size < 0 ||
		    offset + size > (uint64_t)st.st_size) {
			ret = -EINVAL;
			goto out_close;
		}
		/*
		 * The size check above holds only while the file cannot
		 * shrink: the client keeps its own descriptor and could
		 * ftruncate() it under us, and the device's next access
		 * past the new end would be SIGBUS for the whole process.
		 * QEMU's memory-backend-memfd seals its RAM against that
		 * by default (seal=on). An unsealed file is recorded like
		 * memory the client did not share: the range exists, and
		 * the device reaches it through the remote hook (DMA_READ /
		 * DMA_WRITE messages), never by a mapping.
		 */
		seals = fcntl(fd, F_GET_SEALS);
		if (seals < 0 || !(seals & F_SEAL_SHRINK))
			goto record;
		/* Each mapping is a VMA of the whole process: past this
		 * table's share of vm.max_map_count, refused before it is
		 * made (and checked again as it is recorded). */
		pthread_rwlock_rdlock(&dma->lock);
		full = mmaps_full_locked(dma);
		pthread_rwlock_unlock(&dma->lock);
		if (full) {
			ret = -EDQUOT;
			goto out_close;
		}
		va = mmap(NULL, size, prot ? prot : PROT_NONE,
			  MAP_SHARED | MAP_NORESERVE, fd, (off_t)offset);
		if (va == MAP_FAILED) {
			ret = -errno;
			goto out_close;
		}
		m.va = va;
	}
record:
	pthread_rwlock_wrlock(&dma->lock);
	i = lower_bound(dma, addr);
	if (i < dma->count && dma->maps[i].addr <= addr + (size - 1))
		ret = -EEXIST;
	else if (dma->count == dma->max)
		ret = -ENOSPC;
	else if (m.va && mmaps_full_locked(dma))
		ret = -EDQUOT;
	if (!ret) {
		dma->mmaps += m.va != NULL;
		memmove(&dma->maps[i + 1], &dma->maps[i],
			(dma->count - i) * sizeof(*dma->maps));
		dma->maps[i] = m;
		dma->count++;
	}
	pthread_rwlock_unlock(&dma->lock);
	if (ret)
		release(&m);
out_close:
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * The mappings inside [@addr, @addr + @size), as Linux VFIO's type1 unmap
 * takes them: QEMU's client, behind a guest IOMMU, unmaps what the guest
 * invalidated, a range that may cover many of the page-sized mappings it
 * made (the protocol asks for an exact match, which such a range is not).
 * Keeping those would leave the device reaching IOVAs the guest unmapped,
 * and refuse the client's next mapping there (EEXIST). A mapping the range
 * cuts is refused, as VFIO refuses it: no part of a mapping goes.
 */
int vfu_dma_unmap(struct vfu_dma *dma, uint64_t addr, uint64_t size)
{
	uint64_t last = addr + (size - 1);
	unsigned int i, j;

	if (!size || last < addr)
		return -EINVAL;
	pthread_rwlock_wrlock(&dma->lock);
	i = lower_bound(dma, addr);
	for (j = i; j < dma->count && dma->maps[j].addr <= last; j++)
		if (dma->maps[j].addr < addr ||
		    dma->maps[j].addr + (dma->maps[j].size - 1) > last)
			break;
	if (j == i || (j < dma->count && dma->maps[j].addr <= last)) {
		pthread_rwlock_unlock(&dma->lock);
		return -ENOENT;
	}
	/* No copy can be using them: they all hold the lock for reading. */
	for (unsigned int k = i; k < j; k++)
		drop_locked(dma, k);
	memmove(&dma->maps[i], &dma->maps[j],
		(dma->count - j) * sizeof(*dma->maps));
	dma->count -= j - i;
	pthread_rwlock_unlock(&dma->lock);
	return 0;
}

void vfu_dma_unmap_all(struct vfu_dma *dma)
{
	pthread_rwlock_wrlock(&dma->lock);
	for (unsigned int i = 0; i < dma->count; i++)
		drop_locked(dma, i);
	dma->count = 0;
	pthread_rwlock_unlock(&dma->lock);
}

unsigned int vfu_dma_count(struct vfu_dma *dma)
{
	unsigned int n;

	pthread_rwlock_rdlock(&dma->lock);
	n = dma->count;
	pthread_rwlock_unlock(&dma->lock);
	return n;
}

/*
 * With the lock held for reading: check that [addr, addr + len) is covered
 * by consecutive mappings with @flag, mapped or reachable through the
 * remote hook (*@remote set when some are the latter), then (@copy) copy
 * what is mapped.
 */
static int walk_locked(struct vfu_dma *dma, uint64_t addr, uint8_t *buf,
		       size_t len, uint32_t flag, bool to_guest, bool copy,
		       bool *remote)
{
	unsigned int i = lower_bound(dma, addr);
	uint64_t at = addr;
	size_t done = 0;

	while (done < len) {
		const struct dma_map *m;
		uint64_t off, n;

		if (i >= dma->count)
			return -EFAULT;
		m = &dma->maps[i];
		if (m->addr > at || !(m->flags & flag) ||
		    (!m->va && !dma->remote))
			return -EFAULT;
		if (!m->va)
			*remote = true;
		off = at - m->addr;
		n = m->size - off;
		if (n > len - done)
			n = len - done;
		if (copy && m->va) {
			if (to_guest)
				memcpy(m->va + off, buf + done, n);
			else
				memcpy(buf + done, m->va + off, n);
		}
		done += n;
		at += n;
		i++;
	}
	return 0;
}

/*
 * The copy of a range checked whole, some of it reached through the
 * remote hook: one mapping at a time, the lock held only for a memcpy.
 */
static int copy_with_remote(struct vfu_dma *dma, uint64_t addr, uint8_t *buf,
			    size_t len, uint32_t flag, bool to_guest)
{
	size_t done = 0;

	while (done < len) {
		uint64_t at = addr + done, n;
		const struct dma_map *m;
		unsigned int i;
		int ret;

		pthread_rwlock_rdlock(&dma->lock);
		i = lower_bound(dma, at);
		m = i < dma->count ? &dma->maps[i] : NULL;
		if (!m || m->addr > at || !(m->flags & flag)) {
			pthread_rwlock_unlock(&dma->lock);
			return -EFAULT;	/* unmapped meanwhile */
		}
		n = m->size - (at - m->addr);
		if (n > len - done)
			n = len - done;
		if (m->va) {
			if (to_guest)
				memcpy(m->va + (at - m->addr), buf + done, n);
			else
				memcpy(buf + done, m->va + (at - m->addr), n);
			pthread_rwlock_unlock(&dma->lock);
		} else {
			pthread_rwlock_unlock(&dma->lock);
			ret = dma->remote(dma->remote_ctx, at, buf + done, n,
					  to_guest);
			if (ret)
				return ret;
		}
		done += n;
	}
	return 0;
}

static int dma_copy(struct vfu_dma *dma, uint64_t addr, uint8_t *buf,
		    size_t len, bool to_guest)
{
	bool remote = false;
	uint32_t flag = to_guest ? VFIO_DMA_MAP_FLAG_WRITE :
				   VFIO_DMA_MAP_FLAG_READ;
	int ret;

	if (!len)
		return 0;
	if (addr + (len - 1) < addr)
		return -EFAULT;
	pthread_rwlock_rdlock(&dma->lock);
	/* Check all before copying any: a fault copies nothing. */
	ret = walk_locked(dma, addr, buf, len, flag, to_guest, false, &remote);
	if (!ret && !remote)
		ret = walk_locked(dma, addr, buf, len, flag, to_guest, true,
				  &remote);
	pthread_rwlock_unlock(&dma->lock);
	if (ret || !remote)
		return ret;
	return copy_with_remote(dma, addr, buf, len, flag, to_guest);
}

int vfu_dma_read(struct vfu_dma *dma, uint64_t addr, void *dst, size_t len)
{
	return dma_copy(dma, addr, dst, len, false);
}

int vfu_dma_write(struct vfu_dma *dma, uint64_t addr, const void *src,
		  size_t len)
{
	return dma_copy(dma, addr, (uint8_t *)src, len, true);
}
