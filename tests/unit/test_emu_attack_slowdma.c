// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_attack_slowdma.c - a client that answers the device's
 * DMA_READ / DMA_WRITE requests late holds no register access of the
 * device. QEMU 11 with guest RAM it cannot share (memory-backend-file)
 * answers those requests from its main loop, which needs the BQL, which
 * a vCPU holds while it waits for a BAR0 read: were the device to wait
 * for the answer holding its lock, the read would wait for it, and the
 * request would fail after the transport's limit. Here the client holds
 * one request back (the descriptor fetch, the data, the status word, the
 * writeback record) and reads a register on the same connection
 * meanwhile: the read is answered before the held request is; then the
 * client answers and the transfer completes as usual.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "vfu_fdless.h"

/* Well inside the transport's limit for one request (2 s). */
#define PROMPT_MS	1000

/* The next message, within PROMPT_MS; false when none came. */
static bool recv_prompt(struct tclient *c, struct treply *r)
{
	struct pollfd p = { .fd = c->sock, .events = POLLIN };

	if (poll(&p, 1, PROMPT_MS) != 1)
		return false;
	return read_msg(c, r);
}

/* The address a DMA request @r names (the specification's layout). */
static uint64_t req_addr(const struct treply *r)
{
	uint64_t addr;

	memcpy(&addr, r->payload, sizeof(addr));
	return addr;
}

/*
 * Publish the descriptor; answer the device's requests until the one of
 * command @cmd at @addr, which is held while BAR0's SCRATCH is read: its
 * reply must come first, and promptly. Then answer it and the rest: the
 * descriptor completes, the data in device memory.
 */
static void hold_and_read(struct tclient *c, uint16_t cmd, uint64_t addr)
{
	struct vfu_region_rw rw = { IPU_REG_SCRATCH, BAR0, 4 };
	struct vfu_region_rw mem = { 0x100, VFIO_PCI_BAR2_REGION_INDEX, 64 };
	struct treply *held = malloc(sizeof(*held)), *r;
	uint32_t tail = 1, v, st;
	uint8_t buf[sizeof(rw) + 4];
	uint16_t id, doorbell;
	bool rung = false;

	assert_non_null(held);
	setup_ring(c);
	memcpy(buf, &rw, sizeof(rw));
	rw.offset = QREG(IPU_Q_TAIL);
	memcpy(buf, &rw, sizeof(rw));
	memcpy(buf + sizeof(rw), &tail, 4);
	doorbell = send_cmd(c, VFU_CMD_REGION_WRITE, buf, sizeof(buf), NULL,
			    0);
	for (;;) {
		assert_true(recv_any(c, held));
		if ((held->hdr.flags & VFU_FLAG_TYPE_MASK) == VFU_TYPE_REPLY) {
			assert_int_equal(held->hdr.msg_id, doorbell);
			rung = true;
			continue;
		}
		if (held->hdr.cmd == cmd && req_addr(held) == addr)
			break;
		tclient_answer_dma(c, held, ram, RAM_ADDR, RAM_SIZE);
	}
	/* The device waits for us: read a register meanwhile (the
	 * doorbell's reply, a posted write's, may come first). */
	rw.offset = IPU_REG_SCRATCH;
	id = send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw), NULL, 0);
	r = malloc(sizeof(*r));
	assert_non_null(r);
	do {
		assert_true(recv_prompt(c, r));
		assert_int_equal(r->hdr.flags & VFU_FLAG_TYPE_MASK,
				 VFU_TYPE_REPLY);
	} while (!rung && r->hdr.msg_id == doorbell && (rung = true));
	assert_int_equal(r->hdr.msg_id, id);
	assert_false(r->hdr.flags & VFU_FLAG_ERROR);
	memcpy(&v, r->payload + sizeof(rw), 4);
	assert_int_equal(v, 0);
	free(r);
	tclient_answer_dma(c, held, ram, RAM_ADDR, RAM_SIZE);
	free(held);
	/* The rest, up to the writeback record, the last of them. */
	for (;;) {
		memcpy(&v, ram + WB, 4);	/* the writeback's head */
		if (v == 1)
			break;
		r = malloc(sizeof(*r));
		assert_non_null(r);
		assert_true(recv_any(c, r));
		tclient_answer_dma(c, r, ram, RAM_ADDR, RAM_SIZE);
		free(r);
	}
	memcpy(&st, ram + RING + IPU_DESC_STATUS_OFF, sizeof(st));
	assert_int_equal(st, IPU_DESC_DONE | IPU_DESC_OK);
	r = reply_serving(c, send_cmd(c, VFU_CMD_REGION_READ, &mem,
				      sizeof(mem), NULL, 0));
	assert_memory_equal(r->payload + sizeof(mem), ram + DATA, 64);
	free_reply(r);
}

static void test_a_held_fetch(void **state)
{
	hold_and_read(*state, VFU_CMD_DMA_READ, RAM_ADDR + RING);
}

static void test_held_data(void **state)
{
	hold_and_read(*state, VFU_CMD_DMA_READ, RAM_ADDR + DATA);
}

static void test_a_held_status_word(void **state)
{
	hold_and_read(*state, VFU_CMD_DMA_WRITE,
		      RAM_ADDR + RING + IPU_DESC_STATUS_OFF);
}

static void test_a_held_writeback(void **state)
{
	hold_and_read(*state, VFU_CMD_DMA_WRITE, RAM_ADDR + WB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_held_fetch,
						tclient_setup_negotiated,
						tclient_teardown),
		cmocka_unit_test_setup_teardown(test_held_data,
						tclient_setup_negotiated,
						tclient_teardown),
		cmocka_unit_test_setup_teardown(test_a_held_status_word,
						tclient_setup_negotiated,
						tclient_teardown),
		cmocka_unit_test_setup_teardown(test_a_held_writeback,
						tclient_setup_negotiated,
						tclient_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
