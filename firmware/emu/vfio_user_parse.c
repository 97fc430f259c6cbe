// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * vfio_user_parse.c - check and decode one vfio-user command message
 * (docs/interop/vfio-user.rst in QEMU's tree). Pure: no I/O, no state, so
 * tests/fuzz/fuzz_vfio_user.c can throw arbitrary bytes at it.
 *
 * Where the specification leaves room, the checks are as strict as what
 * QEMU's client actually sends (hw/vfio-user/): exact payload sizes, zero
 * reserved fields, argsz equal to the payload where the payload is the
 * whole argument. Anything else is answered with EINVAL, never acted on.
 */
#include <errno.h>
#include <string.h>

#include "vfio_user_parse.h"

const char *vfu_cmd_name(unsigned int cmd)
{
	static const char *const names[] = {
		[VFU_CMD_VERSION] = "VERSION",
		[VFU_CMD_DMA_MAP] = "DMA_MAP",
		[VFU_CMD_DMA_UNMAP] = "DMA_UNMAP",
		[VFU_CMD_DEVICE_GET_INFO] = "DEVICE_GET_INFO",
		[VFU_CMD_DEVICE_GET_REGION_INFO] = "DEVICE_GET_REGION_INFO",
		[VFU_CMD_DEVICE_GET_REGION_IO_FDS] = "DEVICE_GET_REGION_IO_FDS",
		[VFU_CMD_DEVICE_GET_IRQ_INFO] = "DEVICE_GET_IRQ_INFO",
		[VFU_CMD_DEVICE_SET_IRQS] = "DEVICE_SET_IRQS",
		[VFU_CMD_REGION_READ] = "REGION_READ",
		[VFU_CMD_REGION_WRITE] = "REGION_WRITE",
		[VFU_CMD_DMA_READ] = "DMA_READ",
		[VFU_CMD_DMA_WRITE] = "DMA_WRITE",
		[VFU_CMD_DEVICE_RESET] = "DEVICE_RESET",
		[VFU_CMD_REGION_WRITE_MULTI] = "REGION_WRITE_MULTI",
		[VFU_CMD_DEVICE_FEATURE] = "DEVICE_FEATURE",
		[VFU_CMD_MIG_DATA_READ] = "MIG_DATA_READ",
		[VFU_CMD_MIG_DATA_WRITE] = "MIG_DATA_WRITE",
	};

	if (cmd < sizeof(names) / sizeof(names[0]) && names[cmd])
		return names[cmd];
	return "?";
}

static bool add_overflows(uint64_t a, uint64_t b)
{
	uint64_t sum;

	return __builtin_add_overflow(a, b, &sum);
}

static bool page_aligned(uint64_t v)
{
	return (v & (VFU_PAGE_SIZE - 1)) == 0;
}

static int parse_version(const uint8_t *p, size_t n, struct vfu_req *req)
{
	struct vfu_version v;

	if (n < sizeof(v))
		return -EINVAL;
	memcpy(&v, p, sizeof(v));
	req->version.major = v.major;
	req->version.minor = v.minor;
	req->version.json = NULL;
	req->version.json_len = 0;
	p += sizeof(v);
	n -= sizeof(v);
	if (!n)
		return 0;
	if (n > VFU_MAX_VERSION_DATA)
		return -E2BIG;
	/* One NUL, the last byte: the JSON is a C string of n - 1 bytes. */
	if (p[n - 1] != '\0' || memchr(p, '\0', n - 1))
		return -EINVAL;
	req->version.json = (const char *)p;
	req->version.json_len = n - 1;
	return 0;
}

static int parse_dma_map(const uint8_t *p, size_t n, unsigned int nfds,
			 struct vfu_req *req)
{
	struct vfu_dma_map *m = &req->map;

	if (n != sizeof(*m) || nfds > 1)
		return -EINVAL;
	memcpy(m, p, sizeof(*m));
	if (m->argsz != sizeof(*m))
		return -EINVAL;
	if (m->flags & ~(uint32_t)(VFIO_DMA_MAP_FLAG_READ |
				   VFIO_DMA_MAP_FLAG_WRITE))
		return -EINVAL;
	if (!m->size || add_overflows(m->addr, m->size - 1) ||
	    add_overflows(m->offset, m->size - 1))
		return -EINVAL;
	/* The page size we announce in "pgsizes" (4 KiB only). */
	if (!page_aligned(m->addr) || !page_aligned(m->size) ||
	    !page_aligned(m->offset))
		return -EINVAL;
	/* Without an fd there is nothing to map: the offset means nothing. */
	if (!nfds && m->offset)
		return -EINVAL;
	return 0;
}

static int parse_dma_unmap(const uint8_t *p, size_t n, unsigned int nfds,
			   struct vfu_req *req)
{
	struct vfu_dma_unmap *u = &req->unmap;

	if (n != sizeof(*u) || nfds)
		return -EINVAL;
	memcpy(u, p, sizeof(*u));
	/* argsz bounds the reply, which echoes the 24-byte entry. */
	if (u->argsz < sizeof(*u))
		return -EINVAL;
	if (u->flags & VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP)
		return -ENOTSUP;
	if (u->flags & ~(uint32_t)VFIO_DMA_UNMAP_FLAG_ALL)
		return -EINVAL;
	if (u->flags & VFIO_DMA_UNMAP_FLAG_ALL)
		return u->addr || u->size ? -EINVAL : 0;
	if (!u->size || add_overflows(u->addr, u->size - 1))
		return -EINVAL;
	return 0;
}

/* GET_INFO and GET_IRQ_INFO requests: argsz, then fields that must be 0
 * except the index (IRQ info) at offset 8. */
static int parse_info(const uint8_t *p, size_t n, unsigned int nfds,
		      uint32_t *argsz, uint32_t *index, uint32_t nindex)
{
	uint32_t f[4];

	if (n != sizeof(f) || nfds)
		return -EINVAL;
	memcpy(f, p, sizeof(f));
	if (f[0] < sizeof(f) || f[1] || f[3])
		return -EINVAL;
	*argsz = f[0];
	if (index) {
		if (f[2] >= nindex)
			return -EINVAL;
		*index = f[2];
	} else if (f[2]) {
		return -EINVAL;
	}
	return 0;
}

static int parse_region_info(const uint8_t *p, size_t n, unsigned int nfds,
			     struct vfu_req *req)
{
	struct vfio_region_info ri;

	if (n != sizeof(ri) || nfds)
		return -EINVAL;
	memcpy(&ri, p, sizeof(ri));
	if (ri.argsz < sizeof(ri) || ri.flags || ri.cap_offset || ri.size ||
	    ri.offset)
		return -EINVAL;
	if (ri.index >= VFU_NUM_REGIONS)
		return -EINVAL;
	req->region_info.argsz = ri.argsz;
	req->region_info.index = ri.index;
	return 0;
}

static int parse_set_irqs(const uint8_t *p, size_t n, unsigned int nfds,
			  struct vfu_req *req)
{
	struct vfu_irq_set *s = &req->irqs.set;
	uint32_t data, action, want;

	if (n < sizeof(*s))
		return -EINVAL;
	memcpy(s, p, sizeof(*s));
	req->irqs.bools = NULL;
	data = s->flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
	action = s->flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
	/* Exactly one data type and one action, nothing else. */
	if (s->flags & ~(uint32_t)(VFIO_IRQ_SET_DATA_TYPE_MASK |
				   VFIO_IRQ_SET_ACTION_TYPE_MASK))
		return -EINVAL;
	if (__builtin_popcount(data) != 1 || __builtin_popcount(action) != 1)
		return -EINVAL;
	if (s->index >= VFU_NUM_IRQS || s->count > VFU_MAX_IRQ_COUNT ||
	    (uint64_t)s->start + s->count > UINT32_MAX)
		return -EINVAL;
	/* count 0 is VFIO's to answer (vfio_user_conn.c), whatever the data. */
	/* argsz is the whole request payload; eventfds travel as fds. */
	want = sizeof(*s) + (data == VFIO_IRQ_SET_DATA_BOOL ? s->count : 0);
	if (s->argsz != want || n != want)
		return -EINVAL;
	if (data == VFIO_IRQ_SET_DATA_EVENTFD) {
		/* None de-assigns the range; otherwise one per vector. */
		if (nfds && nfds != s->count)
			return -EINVAL;
	} else if (nfds) {
		return -EINVAL;
	}
	if (data == VFIO_IRQ_SET_DATA_BOOL)
		req->irqs.bools = p + sizeof(*s);
	return 0;
}

static int parse_region_rw(const uint8_t *p, size_t n, unsigned int nfds,
			   bool write, struct vfu_req *req)
{
	struct vfu_region_rw *rw = &req->rw.rw;

	if (n < sizeof(*rw) || nfds)
		return -EINVAL;
	memcpy(rw, p, sizeof(*rw));
	req->rw.data = NULL;
	if (rw->count > VFU_MAX_XFER)
		return -E2BIG;
	if (!rw->count || rw->region >= VFU_NUM_REGIONS ||
	    add_overflows(rw->offset, rw->count))
		return -EINVAL;
	if (n != sizeof(*rw) + (write ? rw->count : 0))
		return -EINVAL;
	if (write)
		req->rw.data = p + sizeof(*rw);
	return 0;
}

int vfu_parse(const void *msg, size_t len, unsigned int nfds,
	      struct vfu_req *req)
{
	const uint8_t *p = msg;
	size_t n;

	memset(req, 0, sizeof(*req));
	req->nfds = nfds;
	if (len < sizeof(req->hdr))
		return -EINVAL;
	memcpy(&req->hdr, p, sizeof(req->hdr));
	if (req->hdr.size != len)
		return -EINVAL;
	if ((req->hdr.flags & ~VFU_FLAGS_KNOWN) ||
	    (req->hdr.flags & VFU_FLAG_TYPE_MASK) != VFU_TYPE_COMMAND ||
	    (req->hdr.flags & VFU_FLAG_ERROR) || req->hdr.error)
		return -EINVAL;
	if (nfds > VFU_MAX_FDS)
		return -EINVAL;
	p += sizeof(req->hdr);
	n = len - sizeof(req->hdr);

	switch (req->hdr.cmd) {
	case VFU_CMD_VERSION:
		return nfds ? -EINVAL : parse_version(p, n, req);
	case VFU_CMD_DMA_MAP:
		return parse_dma_map(p, n, nfds, req);
	case VFU_CMD_DMA_UNMAP:
		return parse_dma_unmap(p, n, nfds, req);
	case VFU_CMD_DEVICE_GET_INFO:
		return parse_info(p, n, nfds, &req->info.argsz, NULL, 0);
	case VFU_CMD_DEVICE_GET_REGION_INFO:
		return parse_region_info(p, n, nfds, req);
	case VFU_CMD_DEVICE_GET_IRQ_INFO:
		return parse_info(p, n, nfds, &req->irq_info.argsz,
				  &req->irq_info.index, VFU_NUM_IRQS);
	case VFU_CMD_DEVICE_SET_IRQS:
		return parse_set_irqs(p, n, nfds, req);
	case VFU_CMD_REGION_READ:
		return parse_region_rw(p, n, nfds, false, req);
	case VFU_CMD_REGION_WRITE:
		return parse_region_rw(p, n, nfds, true, req);
	case VFU_CMD_DEVICE_RESET:
		return n || nfds ? -EINVAL : 0;
	case VFU_CMD_DEVICE_GET_REGION_IO_FDS:
	case VFU_CMD_REGION_WRITE_MULTI:
	case VFU_CMD_DEVICE_FEATURE:
	case VFU_CMD_MIG_DATA_READ:
	case VFU_CMD_MIG_DATA_WRITE:
		/* Optional commands: not announced, so not implemented. */
		return -ENOTSUP;
	default:
		/* DMA_READ/WRITE go server -> client only; the rest is unknown. */
		return -EINVAL;
	}
}

int vfu_parse_dma_reply(const void *msg, size_t len, bool qemu,
			struct vfu_dma_reply *out)
{
	const uint8_t *p = msg;
	struct vfu_dma_rw rw;
	uint32_t type;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(out->hdr))
		return -EINVAL;
	memcpy(&out->hdr, p, sizeof(out->hdr));
	type = out->hdr.flags & VFU_FLAG_TYPE_MASK;
	if (out->hdr.size != len || type != VFU_TYPE_REPLY ||
	    (out->hdr.flags & ~(VFU_FLAG_TYPE_MASK | VFU_FLAG_ERROR)))
		return -EINVAL;
	if (out->hdr.cmd != VFU_CMD_DMA_READ &&
	    out->hdr.cmd != VFU_CMD_DMA_WRITE)
		return -EINVAL;
	p += sizeof(out->hdr);
	n = len - sizeof(out->hdr);
	/* "If an error occurs, the reply message must only include the
	 * reply header." */
	if (out->hdr.flags & VFU_FLAG_ERROR)
		return n ? -EINVAL : 0;
	if (out->hdr.cmd == VFU_CMD_DMA_WRITE) {
		uint32_t count32;

		if (n == 0)
			return 0;
		if (n == sizeof(rw.addr) + sizeof(count32)) {
			memcpy(&out->addr, p, sizeof(out->addr));
			memcpy(&count32, p + sizeof(out->addr), sizeof(count32));
			out->count = count32;
			return 0;
		}
		if (n != sizeof(rw))
			return -EINVAL;
		memcpy(&rw, p, sizeof(rw));
		out->addr = rw.addr;
		out->count = rw.count;
		return 0;
	}
	if (n < sizeof(rw))
		return -EINVAL;
	if (qemu) {
		uint32_t count32;

		/* The address, a 32-bit count, the data, 4 bytes of padding. */
		memcpy(&out->addr, p, sizeof(out->addr));
		memcpy(&count32, p + VFU_DMA_QEMU_COUNT, sizeof(count32));
		if (count32 != n - sizeof(rw))
			return -EINVAL;
		out->count = count32;
		out->data = p + VFU_DMA_QEMU_DATA;
		return 0;
	}
	memcpy(&rw, p, sizeof(rw));
	if (rw.count != n - sizeof(rw))
		return -EINVAL;
	out->addr = rw.addr;
	out->count = rw.count;
	out->data = p + sizeof(rw);
	return 0;
}
