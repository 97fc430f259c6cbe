// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_dev_random.c - the PCIe IPU model under a hostile guest: a
 * seeded stream of random config-space and BAR0 writes, rings placed in
 * and out of guest memory, the gather ring's registers and answers,
 * descriptors of random bytes (biased towards
 * plausible values so that they get past the first checks), doorbells,
 * resets and FLRs. The device must answer every access, keep its ID
 * register and config identity, never touch guest memory outside what
 * the descriptors name (ASan and valgrind watch), and be destroyed
 * cleanly with whatever is in flight. The seed is printed; IPU_EMU_SEED
 * replays the guest's side of a run (the device's threads interleave
 * differently each time).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "emu_dev_helpers.h"

#define OPS	20000

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

/* A register offset worth hitting: mostly real ones. */
static uint32_t reg_offset(uint64_t *s)
{
	static const uint32_t regs[] = {
		IPU_REG_SCRATCH, IPU_REG_IRQ_CAUSE, IPU_REG_IRQ_MASK,
		IPU_REG_IRQ_RAISE, IPU_REG_FW_ADDR, IPU_REG_FW_ADDR + 4,
		IPU_REG_FW_SIZE, IPU_REG_FW_CTRL, IPU_REG_SOFT_RESET,
		IPU_MSIX_TABLE, IPU_MSIX_PBA,
	};
	uint32_t q = rnd(s) % IPU_NUM_QUEUES;

	switch (rnd(s) % 4) {
	case 0:
		return regs[rnd(s) % (sizeof(regs) / sizeof(regs[0]))];
	case 1:
		if (rnd(s) % 3 == 0)	/* the gather ring (section 4.4) */
			return IPU_REG_GATHER + (rnd(s) % 13) * 4;
		return IPU_REG_QUEUE(q) + (rnd(s) % 12) * 4;
	case 2:
		return IPU_REG_QUEUE(q) + (rnd(s) % 12) * 4;
	default:
		return (rnd(s) % IPU_BAR_REGS_SIZE) & ~3u;
	}
}

/* A value for register @off: plausible more often than not. */
static uint32_t reg_value(uint64_t *s, uint32_t off)
{
	uint32_t r = rnd(s);

	if (r % 3 == 0)
		return rnd(s);
	if (off == IPU_REG_SOFT_RESET)
		return IPU_SOFT_RESET_MAGIC;
	if (off >= IPU_REG_QUEUE(0) && off < IPU_REG_QUEUE(IPU_NUM_QUEUES)) {
		switch ((off - IPU_REG_QUEUE(0)) % 0x40) {
		case IPU_Q_BASE:
			return (uint32_t)GUEST_BASE + G_RING(rnd(s) % 3);
		case IPU_Q_BASE + 4:
		case IPU_Q_WB_ADDR + 4:
			return 0;
		case IPU_Q_SIZE:
			return 1u << (rnd(s) % 8);
		case IPU_Q_CTRL:
			return rnd(s) & 1;
		case IPU_Q_TAIL:
			return rnd(s) % 16;
		case IPU_Q_WB_ADDR:
			return (uint32_t)GUEST_BASE + G_WB(rnd(s) % 3);
		case IPU_Q_DEADLINE_MS:
			return rnd(s) % 5;
		}
	}
	if (off >= IPU_REG_GATHER && off < IPU_REG_GATHER + 0x40) {
		switch (off - IPU_REG_GATHER) {
		case IPU_GQ_BASE:
			return (uint32_t)GUEST_BASE + G_RING(3);
		case IPU_GQ_SIZE:
			return 1u << (rnd(s) % 5);
		case IPU_GQ_CTRL:
			return rnd(s) & 1;
		case IPU_GQ_WB_ADDR:
			return (uint32_t)GUEST_BASE + G_WB(3);
		case IPU_GQ_ANSWER:
		case IPU_GQ_HEAD:
			return rnd(s) % 16;
		default:
			return 0;
		}
	}
	if (off == IPU_REG_FW_CTRL)
		return 1;
	if (off == IPU_REG_FW_SIZE)
		return rnd(s) % 256;
	return rnd(s) & 0xff;
}

/* Random descriptors in the rings, their addresses mostly plausible. */
static void scribble_rings(struct th *t, uint64_t *s)
{
	uint32_t i, q = rnd(s) % IPU_NUM_QUEUES;
	uint8_t *ring = t->h.mem + G_RING(q);

	for (i = 0; i < 0x1000; i++)
		ring[i] = (uint8_t)rnd(s);
	for (i = 0; i < 0x1000 / 32; i++) {
		struct ipu_dma_desc *d = (struct ipu_dma_desc *)ring + i;

		if (q == IPU_QUEUE_CMD || rnd(s) % 4 == 0)
			continue;
		d->host_addr = GUEST_BASE + rnd(s) % (GUEST_SIZE + 4096);
		d->dev_addr = rnd(s) % ((1u << 20) + 4096);
		d->length = rnd(s) % 8192;
		d->flags &= 1;
	}
	if (q == IPU_QUEUE_CMD) {
		for (i = 0; i < 0x1000 / 64; i++) {
			struct ipu_cmd_desc *c = (struct ipu_cmd_desc *)ring + i;

			if (rnd(s) % 2)
				continue;
			c->opcode = rnd(s) % 3;
			c->flags &= 1;
			c->exe_addr = rnd(s) % (1u << 20);
			c->exe_size = rnd(s) % 4096;
			c->arena_addr = (rnd(s) % (1u << 20)) & ~63u;
			c->arena_size = rnd(s) % 65536;
			c->num_replicas = 1 + rnd(s) % 2;
			c->replica = rnd(s) % 2;
			c->group = rnd(s) % 4;
			c->deadline_ms = 1 + rnd(s) % 3;
		}
	}
}

/* Boot; with posted writes, wait (bounded) until it is no longer BOOTING. */
static uint32_t boot(struct th *t)
{
	time_t end = time(NULL) + WAIT_LIMIT_S;
	uint32_t st = th_boot(t);

	while (st == IPU_FW_STATE_BOOTING && time(NULL) < end)
		st = rd32(t, IPU_REG_FW_STATUS);
	return st;
}

static void random_guest(struct th *t)
{
	const char *env = getenv("IPU_EMU_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) | 1;
	uint64_t s = seed;
	uint8_t cfg_before[64], cfg_after[64];
	uint32_t i, off, val, q;
	uint64_t v64;

	print_message("seed %llu (IPU_EMU_SEED replays it)\n",
		      (unsigned long long)seed);
	assert_int_equal(emu_dev_cfg_read(t->dev, 0, cfg_before, 16), 0);
	th_enable(t);
	assert_int_equal(boot(t), IPU_FW_STATE_READY);
	for (i = 0; i < OPS; i++) {
		switch (rnd(&s) % 10) {
		case 0:
			off = rnd(&s) % EMU_CFG_SIZE;
			val = rnd(&s);
			/* Keep bus mastering on most of the time. */
			if (off <= 5 && rnd(&s) % 4)
				break;
			assert_int_equal(emu_dev_cfg_write(t->dev, off, &val,
					 1 + rnd(&s) % (EMU_CFG_SIZE - off < 4 ?
							EMU_CFG_SIZE - off : 4)), 0);
			break;
		case 1:
			scribble_rings(t, &s);
			break;
		case 3:
			/* What a driver does: a proper ring... */
			q = rnd(&s) % IPU_NUM_QUEUES;
			wr32(t, QREG(q, IPU_Q_CTRL), 0);
			th_ring(t, q, 16);
			break;
		case 4:
		case 5:
			/* ...and doorbells that publish some of it. */
			q = rnd(&s) % IPU_NUM_QUEUES;
			val = rd32(t, QREG(q, IPU_Q_SIZE));
			if (val >= 2 && val <= 4096)
				wr32(t, QREG(q, IPU_Q_TAIL),
				     (rd32(t, QREG(q, IPU_Q_HEAD)) + 1 +
				      rnd(&s) % (val - 1)) % val);
			break;
		case 2:
			off = reg_offset(&s) & ~7u;
			v64 = rnd(&s);
			assert_int_equal(emu_dev_bar_read(t->dev, 0, off, &v64, 8), 0);
			break;
		default:
			off = reg_offset(&s);
			if (off == IPU_REG_SOFT_RESET && rnd(&s) % 8)
				break;
			val = reg_value(&s, off);
			assert_int_equal(emu_dev_bar_write(t->dev, 0, off, &val, 4), 0);
			break;
		}
		if (i % 997 == 0) {
			cfgw16(t, 0x04, 0x0006);
			if ((rd32(t, IPU_REG_FW_STATUS) & IPU_FW_STATE_MASK) !=
			    IPU_FW_STATE_READY) {
				wr32(t, IPU_REG_SOFT_RESET, IPU_SOFT_RESET_MAGIC);
				th_boot(t);
			}
		}
		assert_int_equal(rd32(t, IPU_REG_ID), IPU_ID_VALUE);
	}
	print_message("%lu DMA accesses (%lu faulted); since the last FLR: %u errors logged, %llu bytes in, %llu out, %u launches\n",
		      __atomic_load_n(&t->h.dma_calls, __ATOMIC_RELAXED),
		      __atomic_load_n(&t->h.dma_faults, __ATOMIC_RELAXED),
		      rd32(t, IPU_REG_ERR_COUNT),
		      (unsigned long long)rd64(t, IPU_REG_DMA_H2D_BYTES),
		      (unsigned long long)rd64(t, IPU_REG_DMA_D2H_BYTES),
		      rd32(t, IPU_REG_LAUNCHES));
	assert_int_equal(emu_dev_cfg_read(t->dev, 0, cfg_after, 16), 0);
	/* IDs and class survive anything the guest writes. */
	assert_memory_equal(cfg_before, cfg_after, 4);
	assert_memory_equal(cfg_before + 8, cfg_after + 8, 4);
	th_free(t);
}

static void test_random_guest_cannot_break_the_device(void **state)
{
	(void)state;
	random_guest(th_new());
}

/* The same with posted writes, each with its own window: stops, resets
 * and boots overlap whatever the guest writes next. */
static void test_random_guest_cannot_break_a_posting_device(void **state)
{
	struct emu_dev_opts o = { .mem_size = 1u << 20, .serial = 1 };

	(void)state;
	assert_int_equal(emu_dev_posted_window_parse("rand:300", &o), 0);
	random_guest(th_new_dev(&o, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_guest_cannot_break_the_device),
		cmocka_unit_test(test_random_guest_cannot_break_a_posting_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
