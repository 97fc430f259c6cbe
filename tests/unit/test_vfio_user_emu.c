// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_vfio_user_emu.c - the vfio-user server in front of the real device
 * model (libipuemu, docs/hardware.md), driven the way QEMU's client and a
 * guest driver would: the spec's identity in config space through
 * REGION_READ, BAR0's ID register, BAR2 mapped from the fd of REGION_INFO,
 * the IRQ self-test raising MSI-X vector 0 on the client's eventfd,
 * DEVICE_RESET as FLR, and a fault that takes the device off the bus
 * closing the client's socket; and a device that presents MSI instead
 * (--msi): its IRQ info, one message enabled as QEMU's client does it,
 * hostile SET_IRQS.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "ipu/hw.h"
#include "vfu_client.h"

#define MEM_SIZE	(1u << 20)

static void test_identity_in_config_space(void **state)
{
	struct tclient *c = *state;
	uint32_t id = treg_read32(c, VFIO_PCI_CONFIG_REGION_INDEX, 0);
	uint32_t class = treg_read32(c, VFIO_PCI_CONFIG_REGION_INDEX, 8);

	assert_int_equal(id & 0xffff, IPU_PCI_VENDOR_ID);
	assert_int_equal(id >> 16, IPU_PCI_DEVICE_ID);
	assert_int_equal(class >> 8, IPU_PCI_CLASS);
}

static void test_bar0_id_register(void **state)
{
	struct tclient *c = *state;

	assert_int_equal(treg_read32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_ID),
			 IPU_ID_VALUE);
}

static void test_bar2_is_the_device_memory(void **state)
{
	struct tclient *c = *state;
	struct vfio_region_info ri;
	uint8_t *map;

	map = tbar2_map(c, &ri);
	assert_int_equal(ri.size, MEM_SIZE);
	assert_true(ri.flags & VFIO_REGION_INFO_FLAG_MMAP);
	/* A byte written through the mapping reads back by message. */
	map[4096] = 0x3c;
	assert_int_equal(treg_read32(c, VFIO_PCI_BAR2_REGION_INDEX, 4096) & 0xff,
			 0x3c);
	munmap(map, MEM_SIZE);
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
	/* The spec's self-test: unmask SW, raise it, vector 0 fires once
	 * (with Bus Master: a message is a write the function makes; and
	 * MSI-X Enable, bit 15 of Message Control, above the RO header). */
	treg_write32(c, VFIO_PCI_CONFIG_REGION_INDEX, 0x04, 0x0006);
	treg_write32(c, VFIO_PCI_CONFIG_REGION_INDEX, IPU_CFG_MSIX_CAP,
		     0x8000u << 16);
	treg_write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_MASK, ~IPU_IRQ_SW);
	treg_write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(eventfd_count(efd[0]), 1);
	assert_int_equal(eventfd_count(efd[1]), 0);
	treg_write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_CAUSE, IPU_IRQ_SW);
	for (unsigned int i = 0; i < IPU_MSIX_VECTORS; i++)
		close(efd[i]);
}

/* SET_IRQS on @index with @nfds of @fds (DATA_EVENTFD, TRIGGER). */
static uint16_t set_eventfds(struct tclient *c, uint32_t index, uint32_t start,
			     uint32_t count, const int *fds, unsigned int nfds)
{
	struct vfio_irq_set s = {
		.argsz = sizeof(s), .index = index, .start = start,
		.count = count,
		.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
	};

	return send_cmd(c, VFU_CMD_DEVICE_SET_IRQS, &s, sizeof(s), fds, nfds);
}

static struct vfio_irq_info irq_info(struct tclient *c, uint32_t index)
{
	struct vfio_irq_info ii = { .argsz = 16, .index = index };
	struct treply *r;

	r = expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_GET_IRQ_INFO, &ii,
				  sizeof(ii), NULL, 0));
	memcpy(&ii, r->payload, sizeof(ii));
	free_reply(r);
	return ii;
}

/* The MSI device's IRQ info: MSI has its 4 messages, MSI-X none. */
static void test_msi_irq_info(void **state)
{
	struct tclient *c = *state;
	struct vfio_irq_info ii = irq_info(c, VFIO_PCI_MSI_IRQ_INDEX);

	assert_int_equal(ii.count, IPU_MSI_MESSAGES);
	assert_true(ii.flags & VFIO_IRQ_INFO_EVENTFD);
	assert_true(ii.flags & VFIO_IRQ_INFO_NORESIZE);
	assert_false(ii.flags & VFIO_IRQ_INFO_MASKABLE);
	assert_int_equal(irq_info(c, VFIO_PCI_MSIX_IRQ_INDEX).count, 0);
	/* The capability QEMU's client reads to emulate MSI. */
	assert_int_equal(treg_read32(c, VFIO_PCI_CONFIG_REGION_INDEX, IPU_CFG_MSI_CAP),
			 0x0084 << 16 | IPU_CFG_EXP_CAP << 8 | 0x05);
}

/*
 * As QEMU's client enables MSI with one message: the guest's write to
 * Message Control reaches the device, then one eventfd on the MSI index;
 * the self-test fires it once.
 */
static void test_msi_self_test_fires_message_0(void **state)
{
	struct tclient *c = *state;
	int efd = make_eventfd();

	treg_write32(c, VFIO_PCI_CONFIG_REGION_INDEX, 0x04, 0x0006);
	treg_write32(c, VFIO_PCI_CONFIG_REGION_INDEX, IPU_CFG_MSI_CAP,
		(uint32_t)IPU_MSI_CTRL_ENABLE << 16);
	free_reply(expect_ok(c, set_eventfds(c, VFIO_PCI_MSI_IRQ_INDEX, 0, 1,
					     &efd, 1)));
	treg_write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_MASK, ~IPU_IRQ_SW);
	treg_write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(eventfd_count(efd), 1);
	treg_write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_CAUSE, IPU_IRQ_SW);
	/* MSI disabled: the cause latches, no message. */
	treg_write32(c, VFIO_PCI_CONFIG_REGION_INDEX, IPU_CFG_MSI_CAP, 0);
	treg_write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(eventfd_count(efd), 0);
	/* All off: count 0, DATA_NONE. */
	{
		struct vfio_irq_set off = {
			.argsz = sizeof(off), .index = VFIO_PCI_MSI_IRQ_INDEX,
			.flags = VFIO_IRQ_SET_DATA_NONE |
				 VFIO_IRQ_SET_ACTION_TRIGGER,
		};

		free_reply(expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_SET_IRQS,
						 &off, sizeof(off), NULL, 0)));
	}
	close(efd);
}

/*
 * A hostile client's SET_IRQS on an MSI device: the MSI-X index (which
 * it does not have), more than 4 messages, a range past them or
 * overflowing 32 bits, fewer fds than messages, non-eventfds, masking
 * (MSI has no mask bits here: -ENOTTY, as Linux VFIO answers it). Each is refused, every fd closed (the
 * teardown counts them), and the device still works afterwards.
 */
static void test_msi_hostile_set_irqs(void **state)
{
	struct tclient *c = *state;
	int efd[5], notev[1];
	uint8_t mask_buf[sizeof(struct vfio_irq_set)];
	struct vfio_irq_set m = {
		.argsz = sizeof(m), .index = VFIO_PCI_MSI_IRQ_INDEX,
		.count = 1,
		.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_MASK,
	};

	for (unsigned int i = 0; i < 5; i++)
		efd[i] = make_eventfd();
	expect_error(c, set_eventfds(c, VFIO_PCI_MSIX_IRQ_INDEX, 0, 1, efd, 1),
		     EINVAL);
	expect_error(c, set_eventfds(c, VFIO_PCI_MSI_IRQ_INDEX, 0, 5, efd, 4),
		     EINVAL);
	expect_error(c, set_eventfds(c, VFIO_PCI_MSI_IRQ_INDEX, 3, 2, efd, 2),
		     EINVAL);
	expect_error(c, set_eventfds(c, VFIO_PCI_MSI_IRQ_INDEX, 0xffffffffu, 2,
				     efd, 2), EINVAL);
	expect_error(c, set_eventfds(c, VFIO_PCI_MSI_IRQ_INDEX, 0, 4, efd, 1),
		     EINVAL);
	expect_error(c, set_eventfds(c, VFIO_PCI_INTX_IRQ_INDEX, 0, 1, efd, 1),
		     EINVAL);
	notev[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(notev[0] >= 0);
	expect_error(c, set_eventfds(c, VFIO_PCI_MSI_IRQ_INDEX, 0, 1, notev, 1),
		     EINVAL);
	close(notev[0]);
	memcpy(mask_buf, &m, sizeof(m));
	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_SET_IRQS, mask_buf,
				 sizeof(m), NULL, 0), ENOTTY);
	/* Still served: 4 messages, each cause on its own. */
	treg_write32(c, VFIO_PCI_CONFIG_REGION_INDEX, 0x04, 0x0006);
	treg_write32(c, VFIO_PCI_CONFIG_REGION_INDEX, IPU_CFG_MSI_CAP,
		(uint32_t)(IPU_MSI_CTRL_ENABLE | 2 << IPU_MSI_CTRL_MME_SHIFT) << 16);
	free_reply(expect_ok(c, set_eventfds(c, VFIO_PCI_MSI_IRQ_INDEX, 0, 4,
					     efd, 4)));
	treg_write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_MASK, ~IPU_IRQ_SW);
	treg_write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_RAISE, IPU_IRQ_SW);
	assert_int_equal(eventfd_count(efd[0]), 1);
	assert_int_equal(eventfd_count(efd[1]), 0);
	for (unsigned int i = 0; i < 5; i++)
		close(efd[i]);
}

static void test_device_reset_restores_reset_values(void **state)
{
	struct tclient *c = *state;

	treg_write32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_IRQ_MASK, 0);
	assert_int_equal(treg_read32(c, VFIO_PCI_BAR0_REGION_INDEX,
				IPU_REG_IRQ_MASK), 0);
	free_reply(expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_RESET, NULL, 0,
					 NULL, 0)));
	/* Reset value of IRQ_MASK: everything masked. */
	assert_int_equal(treg_read32(c, VFIO_PCI_BAR0_REGION_INDEX,
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
	assert_int_equal(treg_read32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_ID),
			 0xffffffffu);
	/* Answered again: the first answer did not close the socket. */
	assert_int_equal(treg_read32(c, VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_VERSION),
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
#define T(name) cmocka_unit_test_setup_teardown(name, \
						tclient_setup_msi_negotiated, \
						tclient_teardown)
		T(test_msi_irq_info),
		T(test_msi_self_test_fires_message_0),
		T(test_msi_hostile_set_irqs),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
