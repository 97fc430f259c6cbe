// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_vfio_user_lifecycle.c - what one client of an IPU leaves to the
 * next, through the vfio-user server and the real device model: a client
 * that goes (its socket closed) with a queue enabled at its ring
 * addresses, a launch in flight and device memory written leaves nothing
 * for the next client to find: that client's memory, mapped at the same
 * bus addresses, is never written; the registers read their power-on
 * values; BAR2 reads zeros. And a client that keeps its mapping of BAR2
 * after it went (a guest's QEMU still running, or a hostile process)
 * shares no device memory with the next.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ipu/hw.h"
#include "emu_dev_helpers.h"
#include "guest_ram.h"
#include "vfu_client.h"

#define GSIZE		(1u << 20)
#define RING		0x2000u		/* the command ring, in guest RAM */
#define WB		0x4000u		/* its writeback */
#define BAR0		VFIO_PCI_BAR0_REGION_INDEX
#define CFG		VFIO_PCI_CONFIG_REGION_INDEX
#define CQ_REG(r)	(IPU_REG_QUEUE(IPU_QUEUE_CMD) + (r))

/* Guest RAM as QEMU gives it: a sealed memfd, mapped here, all @fill. */
static uint8_t *guest_ram(int *fd, uint8_t fill)
{
	uint8_t *p;

	*fd = guest_ram_fd("guest-ram", GSIZE);
	assert_true(*fd >= 0);
	p = mmap(NULL, GSIZE, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	assert_true(p != MAP_FAILED);
	memset(p, fill, GSIZE);
	return p;
}

static int fault_fn(struct emu_dev *dev, void *arg)
{
	return emu_dev_fault(dev, arg);
}

/* Boot the build's firmware image, written through BAR2's mapping. */
static void boot(struct tclient *c)
{
	struct vfio_region_info ri;
	size_t len = 0;
	uint8_t *img = th_fw_image(&len), *bar2;
	uint64_t zero = 0;

	assert_non_null(img);
	bar2 = tbar2_map(c, &ri);
	assert_true(len <= ri.size);
	memcpy(bar2, img, len);
	munmap(bar2, ri.size);
	free(img);
	treg_write(c, BAR0, IPU_REG_FW_ADDR, &zero, 8);
	treg_write32(c, BAR0, IPU_REG_FW_SIZE, (uint32_t)len);
	treg_write32(c, BAR0, IPU_REG_FW_CTRL, IPU_FW_CTRL_BOOT);
	assert_int_equal(treg_read32(c, BAR0, IPU_REG_FW_STATUS),
			 IPU_FW_STATE_READY);
}

/*
 * Client A: firmware booted, bus mastering on, the command ring enabled in its RAM, one
 * LAUNCH taken and held by the hold_launches fault, a pattern in device
 * memory and in SCRATCH. Returns when the queue is busy with the launch.
 */
static void client_a_busy(struct tclient *c, uint8_t *ram, int fd)
{
	struct ipu_cmd_desc *d = (struct ipu_cmd_desc *)(ram + RING);
	uint16_t cmd = 0x0006;
	uint32_t pattern = 0xdeadbeef;
	uint64_t base = GUEST_BASE + RING, wb = GUEST_BASE + WB;
	time_t end = time(NULL) + WAIT_LIMIT_S;

	free_reply(expect_ok(c, send_dma_map(c, GUEST_BASE, GSIZE, fd)));
	treg_write(c, CFG, 0x04, &cmd, 2);
	boot(c);
	treg_write32(c, BAR0, IPU_REG_IRQ_MASK, 0);
	treg_write32(c, BAR0, IPU_REG_SCRATCH, 0x1234);
	treg_write(c, VFIO_PCI_BAR2_REGION_INDEX, 0x100, &pattern, 4);
	assert_int_equal(vfu_server_call(c->srv, fault_fn, "hold_launches"), 0);
	memset(d, 0, sizeof(*d));
	d->opcode = IPU_CQ_LAUNCH;
	d->flags = IPU_CQ_F_IRQ;
	d->exe_addr = 0x80000;
	d->exe_size = 64;
	d->arena_addr = 0x90000;
	d->arena_size = 64;
	d->num_replicas = 1;
	treg_write(c, BAR0, CQ_REG(IPU_Q_BASE), &base, 8);
	treg_write32(c, BAR0, CQ_REG(IPU_Q_SIZE), 16);
	treg_write(c, BAR0, CQ_REG(IPU_Q_WB_ADDR), &wb, 8);
	treg_write32(c, BAR0, CQ_REG(IPU_Q_CTRL), IPU_Q_CTRL_ENABLE);
	treg_write32(c, BAR0, CQ_REG(IPU_Q_TAIL), 1);
	while (!(treg_read32(c, BAR0, CQ_REG(IPU_Q_STATUS)) &
		 IPU_Q_STATUS_BUSY))
		assert_true(time(NULL) < end);
}

static bool all_bytes(const uint8_t *p, size_t len, uint8_t v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

/*
 * A goes with its launch held; B maps its own RAM at A's bus addresses.
 * B finds a device at power-on: registers, Command, device memory. Then
 * the hold is lifted and B resets the function (which waits until the
 * queues are idle): nothing ever reached B's RAM.
 */
static void test_a_lost_client_leaves_the_next_a_device_at_power_on(void **state)
{
	struct tclient *c = *state;
	int fd_a, fd_b;
	uint8_t *ram_a = guest_ram(&fd_a, 0);
	uint8_t *ram_b;

	client_a_busy(c, ram_a, fd_a);
	close(c->sock);
	tclient_connect(c);
	negotiate(c);
	ram_b = guest_ram(&fd_b, 0x5a);
	free_reply(expect_ok(c, send_dma_map(c, GUEST_BASE, GSIZE, fd_b)));

	assert_int_equal(treg_read32(c, BAR0, CQ_REG(IPU_Q_CTRL)), 0);
	assert_int_equal(treg_read32(c, BAR0, CQ_REG(IPU_Q_BASE)), 0);
	assert_int_equal(treg_read32(c, BAR0, CQ_REG(IPU_Q_STATUS)), 0);
	assert_int_equal(treg_read32(c, BAR0, IPU_REG_SCRATCH), 0);
	assert_int_equal(treg_read32(c, BAR0, IPU_REG_IRQ_MASK) & IPU_IRQ_ALL,
			 IPU_IRQ_ALL);
	assert_int_equal(treg_read32(c, BAR0, IPU_REG_FW_STATUS),
			 IPU_FW_STATE_OFF);
	assert_int_equal(treg_read32(c, CFG, 0x04) & 0xffff, 0);
	assert_int_equal(treg_read32(c, VFIO_PCI_BAR2_REGION_INDEX, 0x100), 0);

	assert_int_equal(vfu_server_call(c->srv, fault_fn, "clear"), 0);
	free_reply(expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_RESET, NULL, 0,
					 NULL, 0)));
	assert_true(all_bytes(ram_b, GSIZE, 0x5a));

	munmap(ram_a, GSIZE);
	munmap(ram_b, GSIZE);
	close(fd_a);
	close(fd_b);
}

/*
 * A maps BAR2 and goes, keeping the mapping. What B then puts in device
 * memory (by the BAR, or the device's own writes) A cannot read, and what
 * A writes through its old mapping B never sees.
 */
static void test_a_lost_client_s_bar2_mapping_is_not_the_next_s(void **state)
{
	struct tclient *c = *state;
	uint32_t secret = 0x5ec2e7, forged = 0xbadc0de;
	struct vfio_region_info ri_a, ri_b;
	uint8_t *old_a, *bar_b;
	uint32_t v;

	old_a = tbar2_map(c, &ri_a);
	memcpy(old_a + 0x300, &forged, 4);
	close(c->sock);
	tclient_connect(c);
	negotiate(c);

	/* A's bytes went with A: B's device memory starts zeroed. */
	assert_int_equal(treg_read32(c, VFIO_PCI_BAR2_REGION_INDEX, 0x300), 0);
	treg_write(c, VFIO_PCI_BAR2_REGION_INDEX, 0x200, &secret, 4);
	bar_b = tbar2_map(c, &ri_b);
	memcpy(&v, bar_b + 0x200, 4);
	assert_int_equal(v, secret);

	memcpy(&v, old_a + 0x200, 4);
	assert_int_equal(v, 0);
	memcpy(old_a + 0x400, &forged, 4);
	assert_int_equal(treg_read32(c, VFIO_PCI_BAR2_REGION_INDEX, 0x400), 0);
	memcpy(&v, bar_b + 0x400, 4);
	assert_int_equal(v, 0);

	munmap(old_a, ri_a.size);
	munmap(bar_b, ri_b.size);
}

/*
 * Every free descriptor of this process taken (the server's thread is
 * ours), so that the next memfd_create() fails with EMFILE; the fds are
 * stored in @held (at most @max) and their count returned.
 */
static int fds_exhaust(int *held, int max, struct rlimit *saved)
{
	struct rlimit lim;
	int n = 0, fd;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, saved), 0);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	close(fd);
	lim = *saved;
	lim.rlim_cur = (rlim_t)fd + (rlim_t)max / 2;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
	while (n < max && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		held[n++] = fd;
	assert_true(n < max);
	return n;
}

static void fds_release(int *held, int n, const struct rlimit *saved)
{
	while (n--)
		close(held[n]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, saved), 0);
}

/*
 * A goes (its stream ends) when no file can be made for new device memory:
 * the IPU retires, serving nobody else (A may still map what B would use).
 * Its old memory is zeroed all the same.
 */
static void test_no_new_device_memory_retires_the_ipu(void **state)
{
	struct tclient *c = *state;
	uint32_t pattern = 0x77777777, v;
	struct vfu_server_status st;
	time_t end = time(NULL) + WAIT_LIMIT_S;
	struct rlimit saved;
	struct vfio_region_info ri;
	int held[64], n, sv[2];
	uint8_t *old_a;

	old_a = tbar2_map(c, &ri);
	memcpy(old_a + 0x500, &pattern, 4);
	n = fds_exhaust(held, 64, &saved);
	assert_int_equal(shutdown(c->sock, SHUT_RDWR), 0);
	do {
		vfu_server_status(c->srv, &st);
		assert_true(time(NULL) < end);
	} while (!st.retired);
	fds_release(held, n, &saved);
	assert_false(st.connected);

	memcpy(&v, old_a + 0x500, 4);
	assert_int_equal(v, 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			 0);
	assert_int_equal(vfu_server_adopt(c->srv, sv[1]), -ENODEV);
	close(sv[0]);
	munmap(old_a, ri.size);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_a_lost_client_leaves_the_next_a_device_at_power_on,
			tclient_setup_negotiated, tclient_teardown),
		cmocka_unit_test_setup_teardown(
			test_a_lost_client_s_bar2_mapping_is_not_the_next_s,
			tclient_setup_negotiated, tclient_teardown),
		cmocka_unit_test_setup_teardown(
			test_no_new_device_memory_retires_the_ipu,
			tclient_setup_negotiated, tclient_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
