// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_vfio_user_emu.c - the vfio-user server in front of the real device
 * model (libipuemu, docs/hardware.md), driven the way QEMU's client and a
 * guest driver would: the spec's identity in config space through
 * REGION_READ, BAR0's ID register, BAR2 mapped from the fd of REGION_INFO,
 * the IRQ self-test raising MSI-X vector 0 on the client's eventfd,
 * DEVICE_RESET as FLR, and a fault that takes the device off the bus
 * closing the client's socket.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "ipu/hw.h"
#include "vfu_client.h"

#define MEM_SIZE	(1u << 20)

static uint32_t read32(struct tclient *c, uint32_t region, uint64_t off)
{
	struct vfu_region_rw rw = { off, region, 4 };
	struct treply *r;
	uint32_t v;

	r = expect_ok(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw),
				  NULL, 0));
	assert_int_equal(r->len, sizeof(rw) + 4);
	memcpy(&v, r->payload + sizeof(rw), 4);
	free_reply(r);
	return v;
}

static void write32(struct tclient *c, uint32_t region, uint64_t off,
		    uint32_t v)
{
	uint8_t buf[sizeof(struct vfu_region_rw) + 4];
	struct vfu_region_rw rw = { off, region, 4 };

	memcpy(buf, &rw, sizeof(rw));
	memcpy(buf + sizeof(rw), &v, 4);
	free_reply(expect_ok(c, send_cmd(c, VFU_CMD_REGION_WRITE, buf,
					 sizeof(buf), NULL, 0)));
}

static void test_identity_in_config_space(void **state)
{
	struct tclient *c = *state;
	uint32_t id = read32(c, VFIO_PCI_CONFIG_REGION_INDEX, 0);
	uint32_t class = read32(c, VFIO_PCI_CONFIG_REGION_INDEX, 8);

	assert_int_equal(id & 0xffff, IPU_PCI_VENDOR_ID);
	assert_int_equal(id >> 16, IPU_PCI_DEVICE_ID);
	assert_int_equal(class >> 8, IPU_PCI_CLASS);
}

static void test_bar0_id_register(void **state)
{
	struct tclient *c = *state;

	assert_int_equal(read32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_ID),
			 IPU_ID_VALUE);
}

static void test_bar2_is_the_device_memory(void **state)
{
	struct tclient *c = *state;
	struct vfio_region_info ri = { .argsz = 256,
				       .index = VFIO_PCI_BAR2_REGION_INDEX };
	struct treply *r;
	uint8_t *map;

	r = expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_GET_REGION_INFO, &ri,
				  sizeof(ri), NULL, 0));
	memcpy(&ri, r->payload, sizeof(ri));
	assert_int_equal(ri.size, MEM_SIZE);
	assert_true(ri.flags & VFIO_REGION_INFO_FLAG_MMAP);
	assert_int_equal(r->nfds, 1);
	map = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   r->fds[0], (off_t)ri.offset);
	assert_true(map != MAP_FAILED);
	/* A byte written through the mapping reads back by message. */
	map[4096] = 0x3c;
	assert_int_equal(read32(c, VFIO_PCI_BAR2_REGION_INDEX, 4096) & 0xff,
			 0x3c);
	munmap(map, MEM_SIZE);
	free_reply(r);
}

static void test_irq_self_test_fires_msix_vector_0(void **state)
{
	struct tclient *c = *state;
	struct vfio_irq_info ii = { .argsz = 16, .index = VFIO_PCI_MSIX_IRQ_INDEX };
	struct vfio_irq_set s = {
		.argsz = sizeof(s), .index = VFIO_PCI_MSIX_IRQ_INDEX,
		.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
		.count = IPU_MSIX_VECTORS,
	};
	int efd[IPU_MSIX_VECTORS];
	struct treply *r;

	r = expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_GET_IRQ_INFO, &ii,
				  sizeof(ii), NULL, 0));
	memcpy(&ii, r->payload, sizeof(ii));
	assert_int_equal(ii.count, IPU_MSIX_VECTORS);
	free_reply(r);
	for (unsigned int i = 0; i < IPU_MSIX_VECTORS; i++)
		efd[i] = make_eventfd();
	free_reply(expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_SET_IRQS, &s,
					 sizeof(s), efd, IPU_MSIX_VECTORS)));
	/* The spec's self-test: unmask SW, raise it, vector 0 fires once. */
	write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_MASK, ~IPU_IRQ_SW);
	write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(eventfd_count(efd[0]), 1);
	assert_int_equal(eventfd_count(efd[1]), 0);
	write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_CAUSE, IPU_IRQ_SW);
	for (unsigned int i = 0; i < IPU_MSIX_VECTORS; i++)
		close(efd[i]);
}

static void test_device_reset_restores_reset_values(void **state)
{
	struct tclient *c = *state;

	write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_MASK, 0);
	assert_int_equal(read32(c, VFIO_PCI_BAR0_REGION_INDEX,
				IPU_REG_IRQ_MASK), 0);
	free_reply(expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_RESET, NULL, 0,
					 NULL, 0)));
	/* Reset value of IRQ_MASK: everything masked. */
	assert_int_equal(read32(c, VFIO_PCI_BAR0_REGION_INDEX,
				IPU_REG_IRQ_MASK) & IPU_IRQ_ALL, IPU_IRQ_ALL);
}

static void test_bar0_refuses_odd_access(void **state)
{
	struct tclient *c = *state;
	struct vfu_region_rw rw = { 2, VFIO_PCI_BAR0_REGION_INDEX, 2 };

	expect_error(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw), NULL,
				 0), EINVAL);
}

static int fault_fn(struct emu_dev *dev, void *arg)
{
	return emu_dev_fault(dev, arg);
}

static void test_off_bus_closes_the_socket(void **state)
{
	struct tclient *c = *state;

	assert_int_equal(vfu_server_call(c->srv, fault_fn, "off_bus"), 0);
	assert_true(peer_closed(c->sock));
}

/*
 * link_down: off the bus as for off_bus (every read all ones), but the
 * client stays connected and gets answers (QEMU 11.1's client aborts when
 * its server closes the socket under a running guest).
 */
static void test_link_down_reads_all_ones_and_keeps_the_socket(void **state)
{
	struct tclient *c = *state;

	assert_int_equal(vfu_server_call(c->srv, fault_fn, "link_down"), 0);
	assert_int_equal(read32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_ID),
			 0xffffffffu);
	/* Answered again: the first answer did not close the socket. */
	assert_int_equal(read32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_VERSION),
			 0xffffffffu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, tclient_setup_negotiated, \
							tclient_teardown)
		T(test_identity_in_config_space),
		T(test_bar0_id_register),
		T(test_bar2_is_the_device_memory),
		T(test_irq_self_test_fires_msix_vector_0),
		T(test_device_reset_restores_reset_values),
		T(test_bar0_refuses_odd_access),
		T(test_off_bus_closes_the_socket),
		T(test_link_down_reads_all_ones_and_keeps_the_socket),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
