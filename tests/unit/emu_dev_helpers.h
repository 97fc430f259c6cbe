/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * emu_dev_helpers.h - drive the PCIe IPU's device half (firmware/emu/
 * emu_dev.h) without a transport: host ops backed by a plain buffer that
 * plays the guest's RAM at bus address GUEST_BASE, interrupts counted per
 * vector, and register, ring and boot helpers that follow
 * docs/hardware.md. Header-only (static inline): each test is one file.
 *
 * Waiting: completions are awaited on their MSI-X message (a condition
 * variable signalled by the irq op), never by sleeping; the wait gives up
 * after WAIT_LIMIT_S so that a broken device fails the test instead of
 * hanging it.
 */
#ifndef IPU_TESTS_EMU_DEV_HELPERS_H
#define IPU_TESTS_EMU_DEV_HELPERS_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ipu/hw.h>

#include "../../firmware/emu/emu_dev.h"

#define GUEST_BASE	0x10000000ull
#define GUEST_SIZE	(4u << 20)
#define WAIT_LIMIT_S	30

/* Where the tests put things in guest memory (offsets from GUEST_BASE). */
#define G_RING(q)	(0x1000u * (q))		/* rings of queues 0..2 */
#define G_WB(q)		(0x4000u + 0x40u * (q))	/* writebacks */
#define G_DATA		0x10000u			/* data buffers */

struct fake_host {
	uint8_t *mem;
	pthread_mutex_t lock;	/* protects @irqs */
	pthread_cond_t cond;
	unsigned int irqs[IPU_MSIX_VECTORS];
	unsigned int missing;	/* bit per vector with no eventfd */
	/* A dma_read of @gate (a dma_write of @wgate) blocks until
	 * @gate_open (0: no gate). */
	uint64_t gate, wgate;
	int gate_open, gate_waiting;
	unsigned long dma_calls, dma_faults;	/* atomic */
};

struct th {
	struct fake_host h;
	struct emu_dev *dev;
};

static inline int fh_range(uint64_t addr, size_t len)
{
	return addr >= GUEST_BASE && len <= GUEST_SIZE &&
	       addr - GUEST_BASE <= GUEST_SIZE - len;
}

/* An access at the gate: wait until the test opens it. */
static inline void fh_gate_wait(struct fake_host *h)
{
	pthread_mutex_lock(&h->lock);
	h->gate_waiting = 1;
	pthread_cond_broadcast(&h->cond);
	while (!h->gate_open)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
}

static inline int fh_dma_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
	struct fake_host *h = ctx;

	__atomic_add_fetch(&h->dma_calls, 1, __ATOMIC_RELAXED);
	if (!fh_range(addr, len)) {
		__atomic_add_fetch(&h->dma_faults, 1, __ATOMIC_RELAXED);
		return -EFAULT;
	}
	if (h->gate && addr == h->gate)
		fh_gate_wait(h);
	memcpy(dst, h->mem + (addr - GUEST_BASE), len);
	return 0;
}

static inline int fh_dma_write(void *ctx, uint64_t addr, const void *src,
			       size_t len)
{
	struct fake_host *h = ctx;

	__atomic_add_fetch(&h->dma_calls, 1, __ATOMIC_RELAXED);
	if (!fh_range(addr, len)) {
		__atomic_add_fetch(&h->dma_faults, 1, __ATOMIC_RELAXED);
		return -EFAULT;
	}
	if (h->wgate && addr == h->wgate)
		fh_gate_wait(h);
	memcpy(h->mem + (addr - GUEST_BASE), src, len);
	return 0;
}

static inline int fh_irq(void *ctx, unsigned int vector)
{
	struct fake_host *h = ctx;

	if (vector >= IPU_MSIX_VECTORS || (h->missing & (1u << vector)))
		return -ENOENT;
	pthread_mutex_lock(&h->lock);
	h->irqs[vector]++;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static inline unsigned int th_irqs(struct th *t, unsigned int vec)
{
	unsigned int n;

	pthread_mutex_lock(&t->h.lock);
	n = t->h.irqs[vec];
	pthread_mutex_unlock(&t->h.lock);
	return n;
}

/* Wait until vector @vec has fired @n times in all; false on the limit. */
static inline int th_wait_irqs(struct th *t, unsigned int vec, unsigned int n)
{
	struct timespec ts;
	int ok = 1;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_LIMIT_S;
	pthread_mutex_lock(&t->h.lock);
	while (t->h.irqs[vec] < n && ok)
		ok = pthread_cond_timedwait(&t->h.cond, &t->h.lock, &ts) == 0;
	ok = t->h.irqs[vec] >= n;
	pthread_mutex_unlock(&t->h.lock);
	return ok;
}

/* Wait until a dma_read sits at the gate; false on the limit. */
static inline int th_gate_reached(struct th *t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_LIMIT_S;
	pthread_mutex_lock(&t->h.lock);
	while (!t->h.gate_waiting &&
	       !pthread_cond_timedwait(&t->h.cond, &t->h.lock, &ts))
		;
	pthread_mutex_unlock(&t->h.lock);
	return t->h.gate_waiting;
}

static inline void th_gate_open(struct th *t)
{
	pthread_mutex_lock(&t->h.lock);
	t->h.gate_open = 1;
	pthread_cond_broadcast(&t->h.cond);
	pthread_mutex_unlock(&t->h.lock);
}

/*
 * A register read from another thread while the host holds an access at
 * its gate (th_gate_reached()): the device must answer it without the
 * access (nothing it does for host memory holds dev->lock). True when the
 * read returned within a safety limit, its value in *@val; else the gate
 * is opened (so that the reader ends) and false returned.
 */
struct th_reader {
	struct th *t;
	uint32_t off, val;
	int done;
};

static inline void *th_reader_fn(void *arg)
{
	struct th_reader *r = arg;
	uint32_t v = 0xdeadbeef;

	if (emu_dev_bar_read(r->t->dev, IPU_BAR_REGS, r->off, &v, 4))
		abort();
	pthread_mutex_lock(&r->t->h.lock);
	r->val = v;
	r->done = 1;
	pthread_cond_broadcast(&r->t->h.cond);
	pthread_mutex_unlock(&r->t->h.lock);
	return NULL;
}

#define TH_READ_LIMIT_S	5

static inline int th_read_while_held(struct th *t, uint32_t off,
				     uint32_t *val)
{
	struct th_reader r = { .t = t, .off = off };
	struct timespec ts;
	pthread_t tid;
	int done;

	if (pthread_create(&tid, NULL, th_reader_fn, &r))
		abort();
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TH_READ_LIMIT_S;
	pthread_mutex_lock(&t->h.lock);
	while (!r.done &&
	       !pthread_cond_timedwait(&t->h.cond, &t->h.lock, &ts))
		;
	done = r.done;
	pthread_mutex_unlock(&t->h.lock);
	if (!done)
		th_gate_open(t);
	pthread_join(tid, NULL);
	*val = r.val;
	return done;
}

/* A device made with @o, its host the fake; NULL (and *@errp) on error. */
static inline struct th *th_new_dev(const struct emu_dev_opts *o, int *errp)
{
	struct th *t = calloc(1, sizeof(*t));
	struct emu_host_ops ops = {
		.dma_read = fh_dma_read, .dma_write = fh_dma_write,
		.irq = fh_irq,
	};
	int err;

	if (!t)
		abort();
	t->h.mem = calloc(1, GUEST_SIZE);
	if (!t->h.mem)
		abort();
	pthread_mutex_init(&t->h.lock, NULL);
	pthread_cond_init(&t->h.cond, NULL);
	ops.ctx = &t->h;
	err = emu_dev_create(o, &ops, &t->dev);
	if (errp)
		*errp = err;
	if (err) {
		free(t->h.mem);
		free(t);
		return NULL;
	}
	return t;
}

static inline struct th *th_new_opts(uint64_t mem_size, unsigned int index,
				     uint64_t serial, const char *faults,
				     int *errp)
{
	struct emu_dev_opts o = {
		.index = index, .mem_size = mem_size, .serial = serial,
		.faults = faults,
	};

	return th_new_dev(&o, errp);
}

/* A device that presents MSI instead of MSI-X (ipu-emu --msi). */
static inline struct th *th_new_msi(void)
{
	struct emu_dev_opts o = {
		.mem_size = 1u << 20, .serial = 1, .msi = true,
	};

	return th_new_dev(&o, NULL);
}

static inline struct th *th_new(void)
{
	return th_new_opts(1u << 20, 0, 0x1234567890abcdefull, NULL, NULL);
}

static inline void th_free(struct th *t)
{
	if (!t)
		return;
	emu_dev_destroy(t->dev);
	pthread_cond_destroy(&t->h.cond);
	pthread_mutex_destroy(&t->h.lock);
	free(t->h.mem);
	free(t);
}

static inline uint32_t rd32(struct th *t, uint32_t off)
{
	uint32_t v = 0xdeadbeef;

	if (emu_dev_bar_read(t->dev, IPU_BAR_REGS, off, &v, 4))
		abort();
	return v;
}

static inline uint64_t rd64(struct th *t, uint32_t off)
{
	uint64_t v = 0;

	if (emu_dev_bar_read(t->dev, IPU_BAR_REGS, off, &v, 8))
		abort();
	return v;
}

static inline void wr32(struct th *t, uint32_t off, uint32_t v)
{
	if (emu_dev_bar_write(t->dev, IPU_BAR_REGS, off, &v, 4))
		abort();
}

static inline void wr64(struct th *t, uint32_t off, uint64_t v)
{
	if (emu_dev_bar_write(t->dev, IPU_BAR_REGS, off, &v, 8))
		abort();
}

static inline uint32_t cfg32(struct th *t, uint32_t off)
{
	uint32_t v = 0;

	if (emu_dev_cfg_read(t->dev, off, &v, 4))
		abort();
	return v;
}

static inline uint16_t cfg16(struct th *t, uint32_t off)
{
	uint16_t v = 0;

	if (emu_dev_cfg_read(t->dev, off, &v, 2))
		abort();
	return v;
}

static inline void cfgw16(struct th *t, uint32_t off, uint16_t v)
{
	if (emu_dev_cfg_write(t->dev, off, &v, 2))
		abort();
}

/* The IDs of the standard capability list into @ids (at most @max). */
static inline unsigned int th_cap_ids(struct th *t, uint8_t *ids,
				      unsigned int max)
{
	uint8_t ptr = (uint8_t)cfg32(t, 0x34);
	unsigned int n = 0;

	while (ptr && n < max) {
		uint16_t h = cfg16(t, ptr);

		ids[n++] = (uint8_t)h;
		ptr = (uint8_t)(h >> 8);
	}
	return n;
}

/* Memory Space and Bus Master on, MSI-X enabled: what messages need (a
 * function with MSI leaves MSI as its test set it). */
static inline void th_msgs_on(struct th *t)
{
	uint16_t h = cfg16(t, IPU_CFG_MSIX_CAP);

	cfgw16(t, 0x04, 0x0006);
	if ((h & 0xff) == 0x11)	/* MSI-X: Message Control's MSI-X Enable */
		cfgw16(t, IPU_CFG_MSIX_CAP + 2,
		       cfg16(t, IPU_CFG_MSIX_CAP + 2) | 0x8000);
}

/* th_msgs_on(), and every cause unmasked. */
static inline void th_enable(struct th *t)
{
	th_msgs_on(t);
	wr32(t, IPU_REG_IRQ_MASK, 0);
}

#define QREG(q, r)	(IPU_REG_QUEUE(q) + (r))

/* Ring of @size entries for queue @q at G_RING(q), writeback at G_WB(q). */
static inline void th_ring(struct th *t, unsigned int q, uint32_t size)
{
	wr64(t, QREG(q, IPU_Q_BASE), GUEST_BASE + G_RING(q));
	wr32(t, QREG(q, IPU_Q_SIZE), size);
	wr64(t, QREG(q, IPU_Q_WB_ADDR), GUEST_BASE + G_WB(q));
	wr32(t, QREG(q, IPU_Q_CTRL), IPU_Q_CTRL_ENABLE);
}

static inline struct ipu_dma_desc *th_dma_desc(struct th *t, unsigned int q,
					       uint32_t idx)
{
	return (struct ipu_dma_desc *)(t->h.mem + G_RING(q)) + idx;
}

/* Fill DMA descriptor @idx of queue @q; status 0, tag 0x7a6 + @idx (the
 * device must leave the tag alone). */
static inline void th_dma_put(struct th *t, unsigned int q, uint32_t idx,
			      uint64_t host, uint64_t dev, uint32_t len,
			      uint32_t flags)
{
	struct ipu_dma_desc *d = th_dma_desc(t, q, idx);

	memset(d, 0, sizeof(*d));
	d->host_addr = host;
	d->dev_addr = dev;
	d->length = len;
	d->flags = flags;
	d->tag = 0x7a6 + idx;
}

static inline struct ipu_cmd_desc *th_cmd_desc(struct th *t, uint32_t idx)
{
	return (struct ipu_cmd_desc *)(t->h.mem + G_RING(IPU_QUEUE_CMD)) + idx;
}

static inline struct ipu_queue_wb *th_wb(struct th *t, unsigned int q)
{
	return (struct ipu_queue_wb *)(t->h.mem + G_WB(q));
}

/* Publish up to @tail on queue @q and wait for its vector to fire once
 * more (the batch's IRQ descriptor); acknowledge the cause. */
static inline int th_kick_wait(struct th *t, unsigned int q, uint32_t tail)
{
	static const unsigned int vec[] = { IPU_VEC_H2D, IPU_VEC_D2H, IPU_VEC_CMD };
	static const uint32_t cause[] = { IPU_IRQ_H2D, IPU_IRQ_D2H, IPU_IRQ_CMD };
	unsigned int before = th_irqs(t, vec[q]);
	int ok;

	wr32(t, QREG(q, IPU_Q_TAIL), tail);
	ok = th_wait_irqs(t, vec[q], before + 1);
	wr32(t, IPU_REG_IRQ_CAUSE, cause[q]);
	return ok;
}

/* The firmware image the build made ($(O)/firmware/ipu/ipu-fw.bin, found
 * from this binary at $(O)/tests/unit/). */
static inline uint8_t *th_fw_image(size_t *len)
{
	char path[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 64);
	uint8_t *buf;
	FILE *f;
	long sz;

	if (n <= 0)
		return NULL;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	strcpy(slash, "/../../firmware/ipu/ipu-fw.bin");
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	buf = sz > 0 ? malloc((size_t)sz) : NULL;
	if (buf && fread(buf, (size_t)sz, 1, f) != 1) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)sz;
	return buf;
}

/* Copy @len bytes to device address @addr through BAR2. */
static inline void th_mem_write(struct th *t, uint64_t addr, const void *p,
				size_t len)
{
	if (emu_dev_bar_write(t->dev, IPU_BAR_MEM, addr, p, (uint32_t)len))
		abort();
}

static inline void th_mem_read(struct th *t, uint64_t addr, void *p, size_t len)
{
	if (emu_dev_bar_read(t->dev, IPU_BAR_MEM, addr, p, (uint32_t)len))
		abort();
}

/* Boot @img at device address @addr; FW_STATUS after it. */
static inline uint32_t th_boot_image(struct th *t, const uint8_t *img,
				     size_t len, uint64_t addr)
{
	th_mem_write(t, addr, img, len);
	wr64(t, IPU_REG_FW_ADDR, addr);
	wr32(t, IPU_REG_FW_SIZE, (uint32_t)len);
	wr32(t, IPU_REG_FW_CTRL, IPU_FW_CTRL_BOOT);
	return rd32(t, IPU_REG_FW_STATUS);
}

/* Boot the build's image; FW_STATUS (READY expected). */
static inline uint32_t th_boot(struct th *t)
{
	size_t len = 0;
	uint8_t *img = th_fw_image(&len);
	uint32_t st;

	if (!img)
		return UINT32_MAX;
	st = th_boot_image(t, img, len, 0);
	free(img);
	return st;
}

/* Error log entry @n (0 = first since FLR): code. */
static inline uint32_t th_err_code(struct th *t, uint32_t n)
{
	return rd32(t, IPU_REG_ERR_LOG + IPU_ERR_ENTRY_SIZE * (n % IPU_ERR_LOG_LEN));
}

/* The last error logged: code, or 0 when none. */
static inline uint32_t th_last_err(struct th *t)
{
	uint32_t n = rd32(t, IPU_REG_ERR_COUNT);

	return n ? th_err_code(t, n - 1) : 0;
}

#endif /* IPU_TESTS_EMU_DEV_HELPERS_H */
