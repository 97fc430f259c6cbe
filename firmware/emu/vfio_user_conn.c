// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * vfio_user_conn.c - the server side of each vfio-user command, from a
 * message vfu_parse() accepted to the device call and the reply.
 *
 * The device is a PCI function: regions are VFIO's PCI indices (BAR0-5,
 * ROM, config space, VGA), IRQ types VFIO's PCI ones, of which only MSI-X
 * has vectors, or only MSI for a device that presents MSI instead (its
 * vectors are its messages; no per-vector masking). A BAR the device backs with a file descriptor (BAR2's
 * memfd) is offered for mmap() with a sparse-mmap capability covering it
 * whole; every other BAR access, and all of config space, traps into the
 * device.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfio_user_caps.h"
#include "vfio_user_conn.h"
#include "vfio_user_dma.h"
#include "vfio_user_irq.h"
#include "vfio_user_parse.h"
#include "vfio_user_remote.h"

/* Error lines one client may cause before the log goes quiet. */
#define LOG_ERROR_BUDGET	64

struct vfu_conn {
	struct emu_dev *dev;
	struct vfu_dma *dma;
	struct vfu_remote *remote;	/* DMA_READ/WRITE to the client */
	void (*on_failed)(void *ctx);	/* a DMA request went unanswered */
	void *failed_ctx;
	struct vfu_irq *irq;		/* VFU_MAX_IRQ_COUNT slots */
	unsigned int nvec;		/* the device's vectors (messages) */
	uint32_t irq_index;		/* VFIO's MSI-X or MSI index */
	bool negotiated;
	struct vfu_caps client;		/* what the client announced */
	const char *name;
	FILE *log;
	unsigned int log_budget;
	bool trace;
	bool remote_qemu;		/* DMA_READ/WRITE in QEMU 11's layout */
	unsigned int mmap_limit;	/* of mmap()ed DMA ranges; 0: none */
	/* This client's first DMA_READ/WRITE was logged (a rig whose
	 * guest RAM the server cannot map checks that it happened). */
	atomic_bool remote_said;
	uint8_t reply[sizeof(struct vfu_region_rw) + VFU_MAX_XFER];
};

static void logf_(struct vfu_conn *c, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void logf_(struct vfu_conn *c, bool error, const char *fmt, ...)
{
	va_list ap;

	if (!c->log)
		return;
	if (error) {
		if (!c->log_budget)
			return;
		if (!--c->log_budget) {
			fprintf(c->log, "ipu-emu: %s: more protocol errors from this client not logged\n",
				c->name);
			return;
		}
	}
	va_start(ap, fmt);
	fprintf(c->log, "ipu-emu: %s: ", c->name);
	vfprintf(c->log, fmt, ap);
	fputc('\n', c->log);
	fflush(c->log);
	va_end(ap);
}

static int remote_rw(void *ctx, uint64_t addr, void *buf, size_t len,
		     bool write)
{
	struct vfu_conn *c = ctx;

	if (!atomic_exchange(&c->remote_said, true))
		logf_(c, false, "reaching client memory the server cannot map with DMA_READ/DMA_WRITE (%s layout)",
		      c->remote_qemu ? "QEMU 11's" : "the specification's");
	return vfu_remote_rw(c->remote, addr, buf, len, write);
}

static void remote_failed(void *ctx)
{
	struct vfu_conn *c = ctx;

	if (c->on_failed)
		c->on_failed(c->failed_ctx);
}

int vfu_conn_create(const char *name, FILE *log, struct vfu_conn **out)
{
	struct vfu_conn *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return -ENOMEM;
	c->name = name;
	c->log = log;
	c->log_budget = LOG_ERROR_BUDGET;
	ret = vfu_dma_create(VFU_MAX_DMA_MAPS, &c->dma);
	if (!ret)
		ret = vfu_irq_create(VFU_MAX_IRQ_COUNT, &c->irq);
	if (!ret)
		ret = vfu_remote_create(remote_failed, c, &c->remote);
	if (ret) {
		vfu_irq_destroy(c->irq);
		vfu_dma_destroy(c->dma);
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

void vfu_conn_destroy(struct vfu_conn *c)
{
	if (!c)
		return;
	vfu_remote_destroy(c->remote);
	vfu_irq_destroy(c->irq);
	vfu_dma_destroy(c->dma);
	free(c);
}

void vfu_conn_on_failed(struct vfu_conn *c, void (*fn)(void *ctx), void *ctx)
{
	c->on_failed = fn;
	c->failed_ctx = ctx;
}

void vfu_conn_connect(struct vfu_conn *c, int sock)
{
	atomic_store(&c->remote_said, false);
	vfu_remote_attach(c->remote, sock, VFU_DEFAULT_MAX_XFER);
}

int vfu_conn_send(struct vfu_conn *c, const struct vfu_out *out,
		  unsigned int limit_ms)
{
	return vfu_remote_send(c->remote, &out->hdr, out->payload, out->len,
			       out->fd, limit_ms);
}

int vfu_conn_reply(struct vfu_conn *c, const void *msg, size_t len)
{
	int ret = vfu_remote_reply(c->remote, msg, len);
	struct vfu_hdr h;

	if (ret) {
		logf_(c, true, "a reply (%zu bytes) that answers no DMA request of ours: %s",
		      len, ret == -ENOENT ? "late or unknown" : "malformed");
		return ret;
	}
	/* The device reports a fault without the client's reason. */
	memcpy(&h, msg, sizeof(h));
	if (h.flags & VFU_FLAG_ERROR)
		logf_(c, true, "the client failed our %s (errno %u)",
		      h.cmd == VFU_CMD_DMA_WRITE ? "DMA_WRITE" : "DMA_READ",
		      h.error);
	return 0;
}

bool vfu_conn_client_failed(struct vfu_conn *c)
{
	return vfu_remote_failed(c->remote);
}

static int host_dma_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct vfu_conn *c = ctx;

	return vfu_dma_read(c->dma, addr, dst, len);
}

static int host_dma_write(void *ctx, uint64_t addr, const void *src,
			  size_t len)
{
	struct vfu_conn *c = ctx;

	return vfu_dma_write(c->dma, addr, src, len);
}

static int host_irq(void *ctx, unsigned int vector)
{
	struct vfu_conn *c = ctx;

	/* Vectors past the device's count never get an eventfd: -ENOENT. */
	return vfu_irq_raise(c->irq, vector);
}

void vfu_conn_host_ops(struct vfu_conn *c, struct emu_host_ops *ops)
{
	ops->dma_read = host_dma_read;
	ops->dma_write = host_dma_write;
	ops->irq = host_irq;
	ops->ctx = c;
}

void vfu_conn_attach(struct vfu_conn *c, struct emu_dev *dev)
{
	unsigned int n = emu_dev_irq_vectors(dev);

	c->dev = dev;
	c->nvec = n < VFU_MAX_IRQ_COUNT ? n : VFU_MAX_IRQ_COUNT;
	c->irq_index = emu_dev_has_msi(dev) ? VFIO_PCI_MSI_IRQ_INDEX :
					      VFIO_PCI_MSIX_IRQ_INDEX;
}

int vfu_conn_disconnect(struct vfu_conn *c)
{
	int ret = 0;

	/*
	 * Mappings and eventfds first: the reset below may still try to
	 * write status words or raise a vector, and none of it may reach
	 * the memory or the eventfds of the next client, which is not
	 * taken before this returns.
	 */
	vfu_remote_detach(c->remote);	/* waiting device threads fail now */
	vfu_dma_unmap_all(c->dma);
	vfu_irq_reset(c->irq);
	if (c->dev)
		ret = emu_dev_client_lost(c->dev);
	c->negotiated = false;
	c->log_budget = LOG_ERROR_BUDGET;
	memset(&c->client, 0, sizeof(c->client));
	return ret;
}

void vfu_conn_set_trace(struct vfu_conn *c, bool trace)
{
	c->trace = trace;
}

void vfu_conn_set_mmap_limit(struct vfu_conn *c, unsigned int limit)
{
	c->mmap_limit = limit;
	vfu_dma_set_mmap_limit(c->dma, limit);
}

void vfu_conn_set_remote_dma(struct vfu_conn *c, bool on, bool qemu)
{
	c->remote_qemu = qemu;
	vfu_remote_set_qemu_layout(c->remote, qemu);
	vfu_dma_set_remote(c->dma, on ? remote_rw : NULL, c);
}

unsigned int vfu_conn_dma_maps(struct vfu_conn *c)
{
	return vfu_dma_count(c->dma);
}

bool vfu_conn_negotiated(const struct vfu_conn *c)
{
	return c->negotiated;
}

static void reply_hdr(const struct vfu_hdr *req, struct vfu_out *out)
{
	out->hdr.msg_id = req->msg_id;
	out->hdr.cmd = req->cmd;
	out->hdr.flags = VFU_TYPE_REPLY;
	out->hdr.error = 0;
	out->hdr.size = (uint32_t)(sizeof(out->hdr) + out->len);
	out->send = !(req->flags & VFU_FLAG_NO_REPLY);
}

void vfu_conn_error(const struct vfu_hdr *req, int err, struct vfu_out *out)
{
	out->payload = NULL;
	out->len = 0;
	out->fd = -1;
	reply_hdr(req, out);
	/* "If an error occurs, the reply message must only include the
	 * reply header." */
	out->hdr.flags |= VFU_FLAG_ERROR;
	out->hdr.error = (uint32_t)err;
}

/*
 * The reply names only what the client proposed (the specification: a
 * subset), with this server's values; for the rest the client assumes the
 * defaults, which this server must therefore meet. No "migration": its
 * absence says the server does not support it. No "write_multiple"
 * either: QEMU would then send REGION_WRITE_MULTI.
 */
_Static_assert(VFU_MAX_FDS >= VFU_DEFAULT_MAX_FDS, "default max_msg_fds");
_Static_assert(VFU_MAX_XFER >= VFU_DEFAULT_MAX_XFER,
	       "default max_data_xfer_size");
_Static_assert((VFU_PAGE_SIZE & VFU_DEFAULT_PGSIZES) != 0, "default pgsizes");
_Static_assert(VFU_MAX_DMA_MAPS >= VFU_DEFAULT_MAX_DMA_MAPS,
	       "default max_dma_maps");

static int do_version(struct vfu_conn *c, const struct vfu_req *req,
		      struct vfu_out *out)
{
	static const struct vfu_caps ours = {
		.max_msg_fds = VFU_MAX_FDS,
		.max_data_xfer_size = VFU_MAX_XFER,
		.pgsizes = VFU_PAGE_SIZE,
		.max_dma_maps = VFU_MAX_DMA_MAPS,
	};
	struct vfu_version v = { VFU_VERSION_MAJOR, VFU_VERSION_MINOR };
	struct vfu_caps caps;
	int ret, n = 0;

	if (c->negotiated)
		return -EINVAL;
	if (req->version.major != VFU_VERSION_MAJOR) {
		/* The client must then close; we do not wait for it. */
		out->close = true;
		return -ENOTSUP;
	}
	ret = vfu_caps_parse(req->version.json, req->version.json_len, &caps);
	if (ret)
		return ret;
	memcpy(c->reply, &v, sizeof(v));
	if (req->version.json) {
		n = vfu_caps_reply(&caps, &ours, (char *)c->reply + sizeof(v),
				   sizeof(c->reply) - sizeof(v));
		if (n < 0)
			return n;
		n++;	/* the NUL is part of the message */
	}
	out->len = sizeof(v) + (size_t)n;
	c->client = caps;
	c->negotiated = true;
	/* Our DMA_READ/WRITE requests carry at most this much. */
	vfu_remote_set_max_xfer(c->remote, caps.max_data_xfer_size);
	logf_(c, false, "client negotiated vfio-user %u.%u (proposed %u.%u)",
	      v.major, v.minor, req->version.major, req->version.minor);
	return 0;
}

static int do_dma_map(struct vfu_conn *c, const struct vfu_req *req, int *fds)
{
	const struct vfu_dma_map *m = &req->map;
	int fd = req->nfds ? fds[0] : -1;

	int ret;

	if (req->nfds)
		fds[0] = -1;	/* vfu_dma_map() closes it */
	ret = vfu_dma_map(c->dma, m->addr, m->size, fd, m->offset, m->flags);
	if (ret != -EDQUOT)
		return ret;
	logf_(c, true, "DMA_MAP of 0x%llx bytes at 0x%llx refused: this IPU's share of vm.max_map_count (%u mapped ranges) is used up",
	      (unsigned long long)m->size, (unsigned long long)m->addr,
	      c->mmap_limit);
	/* As VFIO refuses a mapping past its dma_entry_limit. */
	return -ENOSPC;
}

static int do_dma_unmap(struct vfu_conn *c, const struct vfu_req *req,
			struct vfu_out *out)
{
	struct vfu_dma_unmap u = req->unmap;
	int ret = 0;

	if (u.flags & VFIO_DMA_UNMAP_FLAG_ALL)
		vfu_dma_unmap_all(c->dma);
	else
		ret = vfu_dma_unmap(c->dma, u.addr, u.size);
	if (ret)
		return ret;
	/* "The server responds with the original DMA entry in the request." */
	u.argsz = sizeof(u);
	memcpy(c->reply, &u, sizeof(u));
	out->len = sizeof(u);
	return 0;
}

static int do_device_info(struct vfu_conn *c, struct vfu_out *out)
{
	uint32_t info[4] = {
		VFU_DEVICE_INFO_SIZE,
		VFIO_DEVICE_FLAGS_RESET | VFIO_DEVICE_FLAGS_PCI,
		VFU_NUM_REGIONS,
		VFU_NUM_IRQS,
	};

	memcpy(c->reply, info, sizeof(info));
	out->len = sizeof(info);
	return 0;
}

/* The device's BAR @bar, or size 0 for one it does not implement. */
static int bar_region(struct vfu_conn *c, unsigned int bar,
		      struct emu_region *r)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->mmap_fd = -1;
	ret = emu_dev_region(c->dev, bar, r);
	if (ret)
		return ret;
	/* The transport maps only what the client may really map. */
	if (r->mmap_fd >= 0 && (r->mmap_offset & (VFU_PAGE_SIZE - 1)))
		r->mmap_fd = -1;
	return 0;
}

static int do_region_info(struct vfu_conn *c, const struct vfu_req *req,
			  struct vfu_out *out)
{
	struct {
		struct vfio_region_info info;
		struct vfu_sparse_mmap_cap sparse;
	} full;
	uint32_t index = req->region_info.index;
	struct vfio_region_info *ri = &full.info;
	size_t len = sizeof(*ri);
	int fd = -1;

	memset(&full, 0, sizeof(full));
	ri->index = index;
	if (index < EMU_NUM_BARS) {
		struct emu_region r;
		int ret = bar_region(c, index, &r);

		if (ret)
			return ret;
		ri->size = r.size;
		if (r.size)
			ri->flags = VFIO_REGION_INFO_FLAG_READ |
				    VFIO_REGION_INFO_FLAG_WRITE;
		/* A client that takes no fds cannot map anything. */
		if (r.size && r.mmap_fd >= 0 && c->client.max_msg_fds) {
			ri->flags |= VFIO_REGION_INFO_FLAG_MMAP |
				     VFIO_REGION_INFO_FLAG_CAPS;
			ri->offset = r.mmap_offset;
			ri->cap_offset = sizeof(*ri);
			full.sparse.header.id = VFIO_REGION_INFO_CAP_SPARSE_MMAP;
			full.sparse.header.version = 1;
			full.sparse.header.next = 0;
			full.sparse.nr_areas = 1;
			full.sparse.area.offset = 0;
			full.sparse.area.size = r.size;
			len = sizeof(full);
			fd = r.mmap_fd;
		}
	} else if (index == VFIO_PCI_CONFIG_REGION_INDEX) {
		ri->size = EMU_CFG_SIZE;
		ri->flags = VFIO_REGION_INFO_FLAG_READ |
			    VFIO_REGION_INFO_FLAG_WRITE;
	}
	/* ROM and VGA: size 0, no access. */
	ri->argsz = (uint32_t)len;
	if (req->region_info.argsz < len) {
		/* Too small for the capabilities: say how much is needed and
		 * send the fixed part only; the client asks again. cap_offset
		 * stays where the capabilities will be: QEMU's client rejects
		 * a CAPS reply whose cap_offset is not past the fixed part
		 * (-EINVAL) before it asks again. */
		len = sizeof(*ri);
		fd = -1;
	}
	memcpy(c->reply, &full, len);
	out->len = len;
	out->fd = fd;
	return 0;
}

static int do_irq_info(struct vfu_conn *c, const struct vfu_req *req,
		       struct vfu_out *out)
{
	struct vfio_irq_info info = {
		.argsz = sizeof(info),
		.flags = VFIO_IRQ_INFO_EVENTFD,
		.index = req->irq_info.index,
	};

	if (info.index == c->irq_index &&
	    info.index == VFIO_PCI_MSIX_IRQ_INDEX) {
		/* No NORESIZE: vectors may be added one at a time. */
		info.flags |= VFIO_IRQ_INFO_MASKABLE;
		info.count = c->nvec;
	} else if (info.index == c->irq_index) {
		/* MSI, as VFIO's kernel driver reports it: every message
		 * enabled at once, no mask bits. */
		info.flags |= VFIO_IRQ_INFO_NORESIZE;
		info.count = c->nvec;
	}
	memcpy(c->reply, &info, sizeof(info));
	out->len = sizeof(info);
	return 0;
}

/* An eventfd, not some other file a client could make us write to. */
static bool is_eventfd(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return !strcmp(target, "anon_inode:[eventfd]");
}

static int do_set_irqs(struct vfu_conn *c, const struct vfu_req *req, int *fds)
{
	const struct vfu_irq_set *s = &req->irqs.set;
	uint32_t data = s->flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
	uint32_t action = s->flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
	unsigned int nvec = s->index == c->irq_index ? c->nvec : 0;
	int ret;

	/*
	 * As Linux VFIO answers it (vfio_set_irqs_validate_and_prepare(),
	 * vfio_pci_set_irqs_ioctl()): a start past the vectors is refused
	 * even with count 0; MSI has no masking (-ENOTTY); count 0 masks
	 * nothing, so MASK/UNMASK with it is refused, as for VFIO's one
	 * maskable index; count 0 with DATA_NONE and TRIGGER turns every
	 * vector of the index off, and with any other data changes nothing.
	 */
	if (s->start >= nvec || s->count > nvec - s->start)
		return -EINVAL;
	if (action != VFIO_IRQ_SET_ACTION_TRIGGER) {
		if (s->index == VFIO_PCI_MSI_IRQ_INDEX)
			return -ENOTTY;
		if (!s->count)
			return -EINVAL;
	} else if (!s->count) {
		if (data == VFIO_IRQ_SET_DATA_NONE)
			vfu_irq_set_eventfds(c->irq, 0, nvec, NULL);
		return 0;
	}
	if (data == VFIO_IRQ_SET_DATA_EVENTFD) {
		/* The server never masks on its own: no mask notifications. */
		if (action != VFIO_IRQ_SET_ACTION_TRIGGER)
			return -EINVAL;
		for (unsigned int i = 0; i < req->nfds; i++)
			if (!is_eventfd(fds[i]))
				return -EINVAL;
		ret = vfu_irq_set_eventfds(c->irq, s->start, s->count,
					   req->nfds ? fds : NULL);
		/* Taken over (kept or closed) either way. */
		for (unsigned int i = 0; i < req->nfds; i++)
			fds[i] = -1;
		return ret;
	}
	if (action == VFIO_IRQ_SET_ACTION_TRIGGER)
		return vfu_irq_trigger(c->irq, s->start, s->count,
				       req->irqs.bools);
	return vfu_irq_mask(c->irq, s->start, s->count, req->irqs.bools,
			    action == VFIO_IRQ_SET_ACTION_MASK);
}

/* Check a REGION_READ/WRITE against the region and carry it out. */
static int region_access(struct vfu_conn *c, const struct vfu_region_rw *rw,
			 void *buf, bool write)
{
	uint64_t end = rw->offset + rw->count;	/* parse: no overflow */
	struct emu_region r;
	ssize_t n;
	int ret;

	if (rw->region == VFIO_PCI_CONFIG_REGION_INDEX) {
		if (end > EMU_CFG_SIZE)
			return -EINVAL;
		return write ? emu_dev_cfg_write(c->dev, (uint32_t)rw->offset,
						 buf, rw->count) :
			       emu_dev_cfg_read(c->dev, (uint32_t)rw->offset,
						buf, rw->count);
	}
	if (rw->region >= EMU_NUM_BARS)
		return -EINVAL;
	ret = bar_region(c, rw->region, &r);
	if (ret)
		return ret;
	if (!r.size || end > r.size)
		return -EINVAL;
	if (r.mmap_fd < 0)
		return write ? emu_dev_bar_write(c->dev, rw->region, rw->offset,
						 buf, rw->count) :
			       emu_dev_bar_read(c->dev, rw->region, rw->offset,
						buf, rw->count);
	/*
	 * A mappable BAR is plain memory in its fd: the protocol still lets
	 * the client access it by message, and the bytes are the same ones
	 * its mapping sees. Off the bus, nothing answers: reads are all
	 * ones and writes are dropped, as for every other region.
	 */
	if (emu_dev_off_bus(c->dev)) {
		if (!write)
			memset(buf, 0xff, rw->count);
		return 0;
	}
	if (write)
		n = pwrite(r.mmap_fd, buf, rw->count,
			   (off_t)(r.mmap_offset + rw->offset));
	else
		n = pread(r.mmap_fd, buf, rw->count,
			  (off_t)(r.mmap_offset + rw->offset));
	if (n < 0)
		return -errno;
	return (size_t)n == rw->count ? 0 : -EIO;
}

static int do_region_rw(struct vfu_conn *c, const struct vfu_req *req,
			bool write, struct vfu_out *out)
{
	struct vfu_region_rw rw = req->rw.rw;
	int ret;

	if (write) {
		ret = region_access(c, &rw, (void *)req->rw.data, true);
		out->len = sizeof(rw);
	} else {
		ret = region_access(c, &rw, c->reply + sizeof(rw), false);
		out->len = sizeof(rw) + rw.count;
	}
	memcpy(c->reply, &rw, sizeof(rw));
	return ret;
}

/* One line per command, with what identifies it, for --trace. */
static void trace_ok(struct vfu_conn *c, const struct vfu_req *req,
		     const struct vfu_out *out)
{
	char what[160] = "";

	switch (req->hdr.cmd) {
	case VFU_CMD_DMA_MAP:
		snprintf(what, sizeof(what), " addr 0x%llx size 0x%llx offset 0x%llx flags %u",
			 (unsigned long long)req->map.addr,
			 (unsigned long long)req->map.size,
			 (unsigned long long)req->map.offset, req->map.flags);
		break;
	case VFU_CMD_DMA_UNMAP:
		snprintf(what, sizeof(what), " addr 0x%llx size 0x%llx flags %u",
			 (unsigned long long)req->unmap.addr,
			 (unsigned long long)req->unmap.size, req->unmap.flags);
		break;
	case VFU_CMD_DEVICE_GET_REGION_INFO:
		snprintf(what, sizeof(what), " index %u argsz %u",
			 req->region_info.index, req->region_info.argsz);
		break;
	case VFU_CMD_DEVICE_GET_IRQ_INFO:
		snprintf(what, sizeof(what), " index %u", req->irq_info.index);
		break;
	case VFU_CMD_DEVICE_SET_IRQS:
		snprintf(what, sizeof(what), " index %u flags 0x%x start %u count %u",
			 req->irqs.set.index, req->irqs.set.flags,
			 req->irqs.set.start, req->irqs.set.count);
		break;
	case VFU_CMD_REGION_READ:
	case VFU_CMD_REGION_WRITE:
		snprintf(what, sizeof(what), " region %u offset 0x%llx count %u",
			 req->rw.rw.region, (unsigned long long)req->rw.rw.offset,
			 req->rw.rw.count);
		break;
	case VFU_CMD_VERSION:
		snprintf(what, sizeof(what), " %u.%u %.120s", req->version.major,
			 req->version.minor,
			 req->version.json ? req->version.json : "");
		break;
	}
	logf_(c, false, "%s id %u%s%s: ok, %zu bytes%s",
	      vfu_cmd_name(req->hdr.cmd), req->hdr.msg_id, what,
	      req->hdr.flags & VFU_FLAG_NO_REPLY ? " (no reply)" : "",
	      out->len, out->fd >= 0 ? " + fd" : "");
}

static int dispatch(struct vfu_conn *c, const struct vfu_req *req, int *fds,
		    struct vfu_out *out)
{
	unsigned int cmd = req->hdr.cmd;

	if (cmd == VFU_CMD_VERSION)
		return do_version(c, req, out);
	/* "the initial client message is VFIO_USER_VERSION" */
	if (!c->negotiated)
		return -EINVAL;
	switch (cmd) {
	case VFU_CMD_DMA_MAP:
		return do_dma_map(c, req, fds);
	case VFU_CMD_DMA_UNMAP:
		return do_dma_unmap(c, req, out);
	case VFU_CMD_DEVICE_GET_INFO:
		return do_device_info(c, out);
	case VFU_CMD_DEVICE_GET_REGION_INFO:
		return do_region_info(c, req, out);
	case VFU_CMD_DEVICE_GET_IRQ_INFO:
		return do_irq_info(c, req, out);
	case VFU_CMD_DEVICE_SET_IRQS:
		return do_set_irqs(c, req, fds);
	case VFU_CMD_REGION_READ:
		return do_region_rw(c, req, false, out);
	case VFU_CMD_REGION_WRITE:
		return do_region_rw(c, req, true, out);
	case VFU_CMD_DEVICE_RESET:
		return emu_dev_flr(c->dev);
	default:
		return -EINVAL;	/* vfu_parse() let through only the above */
	}
}

void vfu_conn_handle(struct vfu_conn *c, const void *msg, size_t len,
		     int *fds, unsigned int nfds, struct vfu_out *out)
{
	struct vfu_req req;
	int ret;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	ret = vfu_parse(msg, len, nfds, &req);
	if (!ret && !c->dev)
		ret = -ENODEV;
	if (!ret)
		ret = dispatch(c, &req, fds, out);
	/* Whatever the command did not keep is closed here. */
	for (unsigned int i = 0; i < nfds; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
	if (ret) {
		bool close_after = out->close;

		logf_(c, true, "%s (id %u, %u bytes, %u fds) refused: %s",
		      vfu_cmd_name(req.hdr.cmd), req.hdr.msg_id, (unsigned int)len,
		      nfds, strerror(-ret));
		vfu_conn_error(&req.hdr, -ret, out);
		out->close = close_after;
	} else {
		out->payload = c->reply;
		reply_hdr(&req.hdr, out);
		if (c->trace)
			trace_ok(c, &req, out);
	}
	if (c->dev && emu_dev_drops_client(c->dev)) {
		if (!out->close)
			logf_(c, false, "device off the bus: closing the client's socket");
		out->close = true;
	}
}
