/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * vfu_fdless.h - a test client whose memory the server cannot map (shared
 * with no fd): the device reaches it by DMA_READ / DMA_WRITE requests the
 * client answers from its buffer @ram, and an H2D ring of one descriptor
 * in it (test_vfio_user_dmamsg_emu.c, test_emu_attack_slowdma.c).
 * Header-only, over vfu_client.h; one test file each.
 */
#ifndef IPU_TESTS_VFU_FDLESS_H
#define IPU_TESTS_VFU_FDLESS_H

#include "ipu/hw.h"
#include "vfu_client.h"

#define RAM_ADDR	0x10000000ull
#define RAM_SIZE	(64u * 1024)
#define RING		0x1000u
#define WB		0x4000u
#define DATA		0x8000u
#define LEN		4096u
#define BAR0		VFIO_PCI_BAR0_REGION_INDEX
#define QREG(r)		(IPU_REG_QUEUE(IPU_QUEUE_H2D) + (r))

static uint8_t ram[RAM_SIZE];

/*
 * Wait for the reply to @id, answering the device's DMA requests that come
 * first; the reply (caller frees).
 */
static inline struct treply *reply_serving(struct tclient *c, uint16_t id)
{
	struct treply *r = malloc(sizeof(*r));

	assert_non_null(r);
	for (;;) {
		assert_true(recv_any(c, r));
		if ((r->hdr.flags & VFU_FLAG_TYPE_MASK) == VFU_TYPE_REPLY)
			break;
		tclient_answer_dma(c, r, ram, RAM_ADDR, RAM_SIZE);
	}
	assert_int_equal(r->hdr.msg_id, id);
	assert_false(r->hdr.flags & VFU_FLAG_ERROR);
	return r;
}

static inline void wr(struct tclient *c, uint32_t region, uint64_t off,
		     const void *v, uint32_t len)
{
	uint8_t buf[sizeof(struct vfu_region_rw) + 8];
	struct vfu_region_rw rw = { off, region, len };

	memcpy(buf, &rw, sizeof(rw));
	memcpy(buf + sizeof(rw), v, len);
	free_reply(reply_serving(c, send_cmd(c, VFU_CMD_REGION_WRITE, buf,
					     sizeof(rw) + len, NULL, 0)));
}

static inline void wr32(struct tclient *c, uint64_t off, uint32_t v)
{
	wr(c, BAR0, off, &v, 4);
}

/* Fd-less RAM mapped, bus mastering on, the H2D ring enabled in it. */
static inline void setup_ring(struct tclient *c)
{
	uint64_t base = RAM_ADDR + RING, wb = RAM_ADDR + WB;
	struct ipu_dma_desc d = {
		.host_addr = RAM_ADDR + DATA, .dev_addr = 0x100,
		.length = LEN, .flags = IPU_DMA_F_IRQ,
	};
	uint16_t cmd = 0x0006;

	memset(ram, 0, sizeof(ram));
	for (unsigned int i = 0; i < LEN; i++)
		ram[DATA + i] = (uint8_t)(i * 13 + 1);
	memcpy(ram + RING, &d, sizeof(d));
	free_reply(expect_ok(c, send_dma_map(c, RAM_ADDR, RAM_SIZE, -1)));
	wr(c, VFIO_PCI_CONFIG_REGION_INDEX, 0x04, &cmd, 2);
	wr32(c, IPU_REG_IRQ_MASK, 0);
	wr(c, BAR0, QREG(IPU_Q_BASE), &base, 8);
	wr32(c, QREG(IPU_Q_SIZE), 16);
	wr(c, BAR0, QREG(IPU_Q_WB_ADDR), &wb, 8);
	wr32(c, QREG(IPU_Q_CTRL), IPU_Q_CTRL_ENABLE);
}

#endif /* IPU_TESTS_VFU_FDLESS_H */
