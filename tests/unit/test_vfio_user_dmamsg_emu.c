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

#include "vfu_fdless.h"

static uint32_t desc_status(void)
{
	uint32_t st;

	memcpy(&st, ram + RING + IPU_DESC_STATUS_OFF, sizeof(st));
	return st;
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
