// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_vfio_user_dmamsg_emu.c - the real device model's DMA queue working
 * on client memory shared without a file descriptor: descriptor fetch,
 * data and status word all go by DMA_READ / DMA_WRITE requests that the
 * test client answers from its own buffer, and the data lands in device
 * memory. Then an FLR (DEVICE_RESET) while a descriptor waits for an
 * answer: the reset completes, nothing hangs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

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
static struct treply *reply_serving(struct tclient *c, uint16_t id)
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

static void wr(struct tclient *c, uint32_t region, uint64_t off,
	       const void *v, uint32_t len)
{
	uint8_t buf[sizeof(struct vfu_region_rw) + 8];
	struct vfu_region_rw rw = { off, region, len };

	memcpy(buf, &rw, sizeof(rw));
	memcpy(buf + sizeof(rw), v, len);
	free_reply(reply_serving(c, send_cmd(c, VFU_CMD_REGION_WRITE, buf,
					     sizeof(rw) + len, NULL, 0)));
}

static void wr32(struct tclient *c, uint64_t off, uint32_t v)
{
	wr(c, BAR0, off, &v, 4);
}

static uint32_t desc_status(void)
{
	uint32_t st;

	memcpy(&st, ram + RING + IPU_DESC_STATUS_OFF, sizeof(st));
	return st;
}

/* Fd-less RAM mapped, bus mastering on, the H2D ring enabled in it. */
static void setup_ring(struct tclient *c)
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

/* One H2D descriptor, all of its host side answered by the client. */
static void test_a_dma_queue_on_fdless_memory(void **state)
{
	struct tclient *c = *state;
	struct vfu_region_rw rw = { 0x100, VFIO_PCI_BAR2_REGION_INDEX, 64 };
	struct treply *r;

	setup_ring(c);
	wr32(c, QREG(IPU_Q_TAIL), 1);
	/* Each request is an event; the status word ends them. */
	while (!(desc_status() & IPU_DESC_DONE)) {
		r = malloc(sizeof(*r));
		assert_non_null(r);
		assert_true(recv_any(c, r));
		tclient_answer_dma(c, r, ram, RAM_ADDR, RAM_SIZE);
		free(r);
	}
	assert_int_equal(desc_status(), IPU_DESC_DONE | IPU_DESC_OK);
	r = reply_serving(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw),
				      NULL, 0));
	assert_memory_equal(r->payload + sizeof(rw), ram + DATA, 64);
	free_reply(r);
}

/*
 * The queue's descriptor fetch waits for an answer the client holds back
 * while it resets the function: the reset (which waits for the queue)
 * is answered all the same once the request is, and nothing hangs.
 */
static void test_flr_while_a_fetch_waits_for_the_client(void **state)
{
	struct tclient *c = *state;
	struct treply *req = malloc(sizeof(*req)), *r;
	uint32_t tail = 1;
	uint8_t buf[sizeof(struct vfu_region_rw) + 4];
	struct vfu_region_rw rw = { QREG(IPU_Q_TAIL), BAR0, 4 };
	uint16_t id;

	assert_non_null(req);
	setup_ring(c);
	memcpy(buf, &rw, sizeof(rw));
	memcpy(buf + sizeof(rw), &tail, 4);
	id = send_cmd(c, VFU_CMD_REGION_WRITE, buf, sizeof(buf), NULL, 0);
	/* The doorbell's reply and the fetch's request, in either order. */
	for (int got = 0; got != 3;) {
		struct treply *m = malloc(sizeof(*m));

		assert_non_null(m);
		assert_true(recv_any(c, m));
		if ((m->hdr.flags & VFU_FLAG_TYPE_MASK) == VFU_TYPE_REPLY) {
			assert_int_equal(m->hdr.msg_id, id);
			got |= 1;
			free_reply(m);
		} else {
			assert_false(got & 2);
			memcpy(req, m, sizeof(*m));
			got |= 2;
			free(m);
		}
	}
	/* The server thread resets while the queue thread waits for us. */
	id = send_cmd(c, VFU_CMD_DEVICE_RESET, NULL, 0, NULL, 0);
	tclient_answer_dma(c, req, ram, RAM_ADDR, RAM_SIZE);
	r = reply_serving(c, id);
	free_reply(r);
	/* Registers at their reset values: the queue is off. */
	assert_int_equal(treg_read32(c, BAR0, QREG(IPU_Q_CTRL)), 0);
	free(req);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_dma_queue_on_fdless_memory,
						tclient_setup_negotiated,
						tclient_teardown),
		cmocka_unit_test_setup_teardown(
			test_flr_while_a_fetch_waits_for_the_client,
			tclient_setup_negotiated, tclient_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
