// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_emu_attack_vfu.c - ipu-emu's vfio-user server (firmware/emu/
 * vfio_user*.c) in front of the real device, attacked by a hostile client:
 * eventfds it filled itself, guest RAM files it shrinks after mapping
 * them, ranges that wrap or run past a region, fds of the wrong kind, and
 * commands after the device fell off the bus. The server must neither
 * block, crash, leak an fd nor hand out what the device would not.
 *
 * Three of these failed on the server as first written (a blocking
 * eventfd hung the device, a shrunk RAM file killed the process with
 * SIGBUS, BAR2 by message ignored off-bus); they guard those fixes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/vfio.h>

#include <ipu/hw.h>

#include "../../firmware/emu/vfio_user_conn.h"
#include "../../firmware/emu/vfio_user_dma.h"
#include "../../firmware/emu/vfio_user_irq.h"
#include "open_fds.h"

#define MEM_SIZE	(1u << 20)
#define RW		(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)

/* One device behind one connection, negotiated. */
struct rig {
	struct vfu_conn *c;
	struct emu_dev *dev;
	uint16_t id;
	int fds_before;
};

/* Send @cmd with @payload and @fds; the reply's error (0 = ok). */
static int cmd(struct rig *r, uint16_t cmd, const void *payload, size_t len,
	       int *fds, unsigned int nfds, struct vfu_out *out)
{
	uint8_t msg[sizeof(struct vfu_hdr) + 256];
	struct vfu_hdr h = { .msg_id = ++r->id, .cmd = cmd,
			     .size = (uint32_t)(sizeof(h) + len) };

	assert_true(len <= sizeof(msg) - sizeof(h));
	memcpy(msg, &h, sizeof(h));
	if (len)	/* memcpy's source must not be NULL, even for 0 bytes */
		memcpy(msg + sizeof(h), payload, len);
	vfu_conn_handle(r->c, msg, sizeof(h) + len, fds, nfds, out);
	assert_true(out->send);
	/* An error reply is a bare header. */
	if (out->hdr.flags & VFU_FLAG_ERROR)
		assert_int_equal(out->len, 0);
	return (int)out->hdr.error;
}

static int rig_setup(void **state)
{
	struct emu_dev_opts o = { .index = 0, .mem_size = MEM_SIZE };
	struct vfu_version v = { 0, 0 };
	struct emu_host_ops ops;
	struct vfu_out out;
	struct rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->fds_before = open_fds();
	assert_true(r->fds_before >= 0);
	assert_int_equal(vfu_conn_create("ipu0", NULL, &r->c), 0);
	vfu_conn_host_ops(r->c, &ops);
	assert_int_equal(emu_dev_create(&o, &ops, &r->dev), 0);
	vfu_conn_attach(r->c, r->dev);
	assert_int_equal(cmd(r, VFU_CMD_VERSION, &v, sizeof(v), NULL, 0, &out), 0);
	*state = r;
	return 0;
}

static int rig_teardown(void **state)
{
	struct rig *r = *state;
	int before = r->fds_before;

	emu_dev_destroy(r->dev);
	vfu_conn_destroy(r->c);
	free(r);
	assert_int_equal(open_fds(), before);
	return 0;
}

static int rw_cmd(struct rig *r, uint16_t c, uint32_t region, uint64_t off,
		  uint32_t count, struct vfu_out *out)
{
	uint8_t buf[sizeof(struct vfu_region_rw) + 64] = { 0 };
	struct vfu_region_rw rw = { off, region, count };
	size_t len = sizeof(rw);

	if (c == VFU_CMD_REGION_WRITE) {
		assert_true(count <= 64);
		len += count;
	}
	memcpy(buf, &rw, sizeof(rw));
	return cmd(r, c, buf, len, NULL, 0, out);
}

/* The eventfd's counter, read without blocking (0: nothing signalled). */
static uint64_t eventfd_count(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

static void *raise_thread(void *arg)
{
	(void)vfu_irq_raise(arg, 0);
	return NULL;
}

/*
 * vfu_irq_raise(@irq, 0) returns (within a bound far above any scheduling
 * delay: it is the failure's, the join is the success's). If it does not,
 * the eventfd's counter is drained through @efd so that the blocked write
 * completes and the thread can be joined; false then.
 */
static bool raise_returns(struct vfu_irq *irq, int efd)
{
	struct timespec bound;
	pthread_t th;
	uint64_t v;

	assert_int_equal(pthread_create(&th, NULL, raise_thread, irq), 0);
	clock_gettime(CLOCK_REALTIME, &bound);
	bound.tv_sec += 10;
	if (!pthread_timedjoin_np(th, NULL, &bound))
		return true;
	assert_int_equal(read(efd, &v, sizeof(v)), sizeof(v));
	pthread_join(th, NULL);
	return false;
}

/*
 * The client owns its eventfds: it can fill one's counter to the maximum
 * (0xfffffffffffffffe) and leave it blocking before it passes it. An
 * interrupt must then be dropped (the counter already says "pending"),
 * not block the device thread that raises it: it holds the device lock
 * there (emu_dev_irq.c calls host.irq under dev->lock), so one blocked
 * write wedges the device, its message loop and ipu-emu's exit.
 */
static void irq_on_a_full_blocking_eventfd_does_not_block(void **state)
{
	uint64_t full = 0xfffffffffffffffeull;
	struct vfu_irq *irq;
	int efd, keep;
	bool returned;

	(void)state;
	efd = eventfd(0, EFD_CLOEXEC);	/* blocking, as a client may pass it */
	assert_true(efd >= 0);
	assert_int_equal(write(efd, &full, sizeof(full)), sizeof(full));
	keep = dup(efd);
	assert_true(keep >= 0);
	assert_int_equal(vfu_irq_create(4, &irq), 0);
	assert_int_equal(vfu_irq_set_eventfds(irq, 0, 1, &efd), 0);
	returned = raise_returns(irq, keep);
	vfu_irq_destroy(irq);
	close(keep);
	assert_true(returned);
}

/*
 * The same, with the client turning hostile after SET_IRQS: O_NONBLOCK
 * lives in the file description it shares with the server, so it can
 * clear it again with F_SETFL, then fill the counter. The interrupt must
 * still not block; once the client reads its counter, interrupts arrive
 * again; and a connection torn down with a write outstanding does not
 * wait for it.
 */
static void irq_on_an_eventfd_made_blocking_later_does_not_block(void **state)
{
	uint64_t full = 0xfffffffffffffffeull, v;
	struct pollfd p = { .events = POLLIN };
	struct vfu_irq *irq;
	int efd, keep;
	bool returned;

	(void)state;
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);	/* as QEMU passes it */
	assert_true(efd >= 0);
	keep = dup(efd);
	assert_true(keep >= 0);
	p.fd = keep;
	assert_int_equal(vfu_irq_create(4, &irq), 0);
	assert_int_equal(vfu_irq_set_eventfds(irq, 0, 1, &efd), 0);
	assert_int_equal(fcntl(keep, F_SETFL, 0), 0);
	assert_int_equal(write(keep, &full, sizeof(full)), sizeof(full));
	returned = raise_returns(irq, keep);
	if (returned) {
		assert_int_equal(read(keep, &v, sizeof(v)), sizeof(v));
		assert_true(v >= full);
		/* Room again: the next interrupt arrives (the one raised
		 * on the full counter may have too, or have been dropped:
		 * the counter said "pending" then). */
		assert_int_equal(vfu_irq_raise(irq, 0), 0);
		assert_int_equal(poll(&p, 1, 10000), 1);
		assert_int_equal(read(keep, &v, sizeof(v)), sizeof(v));
		assert_true(v >= 1 && v <= 2);
		/* Full again, and the write left waiting at the teardown. */
		assert_int_equal(write(keep, &full, sizeof(full)), sizeof(full));
		returned = raise_returns(irq, keep);
	}
	vfu_irq_destroy(irq);
	close(keep);
	assert_true(returned);
}

/*
 * A client leaves as many interrupt writes waiting as the server lets it
 * (counter full, blocking) and disconnects. The next client's interrupts
 * must arrive as they are raised: the first one's leftovers neither
 * count against its budget nor outlive the connection.
 */
static void irq_writes_a_client_left_waiting_end_with_it(void **state)
{
	uint64_t full = 0xfffffffffffffffeull;
	struct vfu_irq *irq;
	int efd, keep;

	(void)state;
	efd = eventfd(0, EFD_CLOEXEC);
	assert_true(efd >= 0);
	assert_int_equal(write(efd, &full, sizeof(full)), sizeof(full));
	keep = dup(efd);
	assert_true(keep >= 0);
	assert_int_equal(vfu_irq_create(4, &irq), 0);
	assert_int_equal(vfu_irq_set_eventfds(irq, 0, 1, &efd), 0);
	assert_int_equal(fcntl(keep, F_SETFL, 0), 0);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(vfu_irq_raise(irq, 0), 0);
	vfu_irq_reset(irq);	/* the client left */
	close(keep);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(efd >= 0);
	keep = dup(efd);
	assert_true(keep >= 0);
	assert_int_equal(vfu_irq_set_eventfds(irq, 1, 1, &efd), 0);
	assert_int_equal(vfu_irq_raise(irq, 1), 0);
	/* Written inside the raise: readable now, without waiting. */
	assert_int_equal(eventfd_count(keep), 1);
	vfu_irq_destroy(irq);
	close(keep);
}

/*
 * A client maps a memfd as guest RAM, then shrinks the file. The device's
 * next DMA there must not kill ipu-emu with SIGBUS (and both IPUs with
 * it): the server must either refuse files the client can shrink (e.g.
 * require F_SEAL_SHRINK, which QEMU's memfd backend sets) or fault the
 * access (-EFAULT). Run in a child, which a SIGBUS kills alone.
 */
static void dma_into_a_shrunk_file_does_not_kill_the_server(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct vfu_dma *dma;
		uint8_t buf[16];
		int fd = memfd_create("ram", MFD_CLOEXEC), keep;

		/* Die of the signal: cmocka's handler would carry on with
		 * the next test in this child. */
		signal(SIGBUS, SIG_DFL);
		signal(SIGSEGV, SIG_DFL);
		if (fd < 0 || ftruncate(fd, 8192) || vfu_dma_create(4, &dma))
			_exit(2);
		keep = dup(fd);
		if (vfu_dma_map(dma, 0x100000, 8192, fd, 0, RW))
			_exit(0);	/* refused: a fine defence */
		if (ftruncate(keep, 0))
			_exit(2);
		_exit(vfu_dma_read(dma, 0x100000 + 4096, buf, sizeof(buf)) ==
		      -EFAULT ? 0 : 3);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		fail_msg("the server died of signal %d", WTERMSIG(st));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/*
 * Off the bus, "every read returns all ones" (emu_dev.h). BAR2 by message
 * is served by the transport straight from the memfd (pread), past the
 * device: the reply that goes out before the socket closes carries device
 * memory, and a write by message still lands.
 */
static void bar2_by_message_off_the_bus_reads_all_ones(void **state)
{
	struct rig *r = *state;
	uint8_t ones[16];
	struct vfu_out out;

	assert_int_equal(rw_cmd(r, VFU_CMD_REGION_WRITE,
				VFIO_PCI_BAR2_REGION_INDEX, 0, 16, &out), 0);
	assert_int_equal(emu_dev_fault(r->dev, "off_bus"), 0);
	memset(ones, 0xff, sizeof(ones));
	assert_int_equal(rw_cmd(r, VFU_CMD_REGION_READ,
				VFIO_PCI_BAR2_REGION_INDEX, 0, 16, &out), 0);
	assert_true(out.close);
	assert_int_equal(out.len, sizeof(struct vfu_region_rw) + 16);
	assert_memory_equal(out.payload + sizeof(struct vfu_region_rw), ones, 16);
}

/* Off the bus, BAR0 and config space read as all ones and the client is
 * disconnected after every reply. */
static void test_off_the_bus_bar0_reads_all_ones_and_closes(void **state)
{
	struct rig *r = *state;
	struct vfu_out out;
	uint32_t v;

	assert_int_equal(emu_dev_fault(r->dev, "off_bus"), 0);
	assert_int_equal(rw_cmd(r, VFU_CMD_REGION_READ,
				VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_ID, 4, &out), 0);
	memcpy(&v, out.payload + sizeof(struct vfu_region_rw), 4);
	assert_int_equal(v, 0xffffffffu);
	assert_true(out.close);
	/* A write is dropped, a reset changes nothing, still all ones. */
	assert_int_equal(rw_cmd(r, VFU_CMD_REGION_WRITE,
				VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_SCRATCH, 4,
				&out), 0);
	assert_true(out.close);
	assert_int_equal(cmd(r, VFU_CMD_DEVICE_RESET, NULL, 0, NULL, 0, &out), 0);
	assert_int_equal(rw_cmd(r, VFU_CMD_REGION_READ,
				VFIO_PCI_BAR0_REGION_INDEX, IPU_REG_SCRATCH, 4,
				&out), 0);
	memcpy(&v, out.payload + sizeof(struct vfu_region_rw), 4);
	assert_int_equal(v, 0xffffffffu);
}

/* Region accesses whose end wraps or runs past the region are refused
 * before the device sees them. */
static void test_region_ranges_that_wrap_or_overrun_are_refused(void **state)
{
	static const struct {
		uint32_t region;
		uint64_t off;
		uint32_t count;
	} bad[] = {
		{ VFIO_PCI_CONFIG_REGION_INDEX, EMU_CFG_SIZE - 2, 4 },
		{ VFIO_PCI_CONFIG_REGION_INDEX, UINT64_MAX - 1, 4 },
		{ VFIO_PCI_CONFIG_REGION_INDEX, 1ull << 32, 4 },
		{ VFIO_PCI_BAR0_REGION_INDEX, IPU_BAR_REGS_SIZE - 4, 8 },
		{ VFIO_PCI_BAR0_REGION_INDEX, UINT64_MAX - 3, 4 },
		{ VFIO_PCI_BAR0_REGION_INDEX, 2, 4 },	/* unaligned */
		{ VFIO_PCI_BAR0_REGION_INDEX, 0, 2 },	/* short */
		{ VFIO_PCI_BAR2_REGION_INDEX, MEM_SIZE - 4, 8 },
		{ VFIO_PCI_BAR2_REGION_INDEX, UINT64_MAX - 7, 8 },
		{ VFIO_PCI_BAR2_REGION_INDEX, 1ull << 63, 8 },
		{ VFIO_PCI_BAR1_REGION_INDEX, 0, 4 },	/* unimplemented */
		{ VFIO_PCI_ROM_REGION_INDEX, 0, 4 },
		{ VFIO_PCI_VGA_REGION_INDEX, 0, 4 },
		{ 99, 0, 4 },
	};
	struct rig *r = *state;
	struct vfu_out out;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rw_cmd(r, VFU_CMD_REGION_READ, bad[i].region,
					bad[i].off, bad[i].count, &out), EINVAL);
		assert_int_equal(rw_cmd(r, VFU_CMD_REGION_WRITE, bad[i].region,
					bad[i].off, bad[i].count, &out), EINVAL);
	}
	/* A transfer longer than any the server takes. */
	assert_int_equal(rw_cmd(r, VFU_CMD_REGION_READ, VFIO_PCI_BAR2_REGION_INDEX,
				0, VFU_MAX_XFER + 1, &out), E2BIG);
}

/* DMA_MAP ranges that wrap the bus or the file are refused, and the fd
 * that came with them is closed (the teardown counts fds). */
static void test_dma_map_ranges_that_wrap_are_refused(void **state)
{
	static const struct vfu_dma_map bad[] = {
		{ 32, RW, 0, UINT64_MAX & ~4095ull, 8192 },	/* bus wraps */
		{ 32, RW, UINT64_MAX & ~4095ull, 0x100000, 8192 }, /* file wraps */
		{ 32, RW, 0, 0x100000, 0 },			/* empty */
		{ 32, RW, 4096, 0x100000, 8192 },		/* past the file */
		{ 32, RW, 0, 0x100000, 1ull << 40 },		/* far past */
		{ 32, 0x4, 0, 0x100000, 8192 },			/* bad flag */
	};
	struct rig *r = *state;
	struct vfu_out out;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int fd = memfd_create("ram", MFD_CLOEXEC);

		assert_true(fd >= 0);
		assert_int_equal(ftruncate(fd, 8192), 0);
		assert_int_not_equal(cmd(r, VFU_CMD_DMA_MAP, &bad[i], sizeof(bad[i]),
					 &fd, 1, &out), 0);
		assert_int_equal(fd, -1);
	}
	assert_int_equal(vfu_conn_dma_maps(r->c), 0);
}

/* Overlapping DMA_MAPs are refused; an unmap must match a mapping
 * exactly (no partial unmap that would leave a stale pointer). */
static void test_dma_map_overlaps_and_partial_unmaps_are_refused(void **state)
{
	struct vfu_dma_map m = { 32, RW, 0, 0x200000, 0x4000 };
	struct vfu_dma_unmap u = { 24, 0, 0x201000, 0x1000 };
	struct rig *r = *state;
	struct vfu_out out;
	/* Straddling either end, inside, around it whole. */
	static const uint64_t over[][2] = {
		{ 0x1ff000, 0x2000 }, { 0x203000, 0x2000 },
		{ 0x201000, 0x1000 }, { 0x1f0000, 0x20000 },
	};
	int fd;

	fd = memfd_create("ram", MFD_CLOEXEC);
	assert_int_equal(ftruncate(fd, 0x10000), 0);
	assert_int_equal(cmd(r, VFU_CMD_DMA_MAP, &m, sizeof(m), &fd, 1, &out), 0);
	for (size_t i = 0; i < sizeof(over) / sizeof(over[0]); i++) {
		struct vfu_dma_map o = { 32, RW, 0, over[i][0], over[i][1] };

		fd = memfd_create("ram", MFD_CLOEXEC);
		assert_int_equal(ftruncate(fd, 0x40000), 0);
		assert_int_equal(cmd(r, VFU_CMD_DMA_MAP, &o, sizeof(o), &fd, 1,
				     &out), EEXIST);
	}
	assert_int_equal(cmd(r, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0, &out),
			 ENOENT);
	u.addr = 0x202000;
	u.size = 0x4000;
	assert_int_equal(cmd(r, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0, &out),
			 ENOENT);
	assert_int_equal(vfu_conn_dma_maps(r->c), 1);
	/* Adjacent is not overlapping. */
	m.addr = 0x204000;
	fd = memfd_create("ram", MFD_CLOEXEC);
	assert_int_equal(ftruncate(fd, 0x10000), 0);
	assert_int_equal(cmd(r, VFU_CMD_DMA_MAP, &m, sizeof(m), &fd, 1, &out), 0);
	u.addr = 0x204000;
	u.size = 0x4000;
	assert_int_equal(cmd(r, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0, &out), 0);
	u.addr = 0x200000;
	assert_int_equal(cmd(r, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0, &out), 0);
	assert_int_equal(vfu_conn_dma_maps(r->c), 0);
}

/* SET_IRQS @s with @fds (@nfds of them, -1 for a fresh eventfd): refused,
 * every fd closed (the teardown counts them). */
/*
 * QEMU behind a guest IOMMU maps page by page and unmaps what the guest
 * invalidated, a range over many of them: it takes every mapping inside
 * it (as Linux VFIO does), so none is left for the device to reach, nor to
 * refuse the next map there; a range that cuts a mapping removes nothing.
 */
static void test_dma_unmap_of_a_range_takes_every_mapping_inside(void **state)
{
	struct vfu_dma_unmap u = { 24, 0, 0x200000, 0x200000 };
	struct rig *r = *state;
	struct vfu_out out;
	int fd;

	for (uint64_t a = 0x5f0000; a < 0x600000; a += 0x1000) {
		struct vfu_dma_map m = { 32, RW, 0, a, 0x1000 };

		fd = memfd_create("ram", MFD_CLOEXEC);
		assert_int_equal(ftruncate(fd, 0x1000), 0);
		assert_int_equal(cmd(r, VFU_CMD_DMA_MAP, &m, sizeof(m), &fd, 1,
				     &out), 0);
	}
	assert_int_equal(vfu_conn_dma_maps(r->c), 16);
	/* Nothing inside: refused, as before. */
	assert_int_equal(cmd(r, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0, &out),
			 ENOENT);
	/* Cutting the last page in two: nothing goes. */
	u.addr = 0x5f0000;
	u.size = 0xf800;
	assert_int_equal(cmd(r, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0, &out),
			 ENOENT);
	assert_int_equal(vfu_conn_dma_maps(r->c), 16);
	/* The first half, then the 2 MiB range around the rest. */
	u.size = 0x8000;
	assert_int_equal(cmd(r, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0, &out), 0);
	assert_int_equal(vfu_conn_dma_maps(r->c), 8);
	u.addr = 0x400000;
	u.size = 0x200000;
	assert_int_equal(cmd(r, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0, &out), 0);
	assert_int_equal(vfu_conn_dma_maps(r->c), 0);
	/* And the same pages map again. */
	for (uint64_t a = 0x5f0000; a < 0x600000; a += 0x1000) {
		struct vfu_dma_map m = { 32, RW, 0, a, 0x1000 };

		fd = memfd_create("ram", MFD_CLOEXEC);
		assert_int_equal(ftruncate(fd, 0x1000), 0);
		assert_int_equal(cmd(r, VFU_CMD_DMA_MAP, &m, sizeof(m), &fd, 1,
				     &out), 0);
	}
	assert_int_equal(vfu_conn_dma_maps(r->c), 16);
}

static void set_irqs_refused(struct rig *r, const struct vfu_irq_set *s,
			     int *fds, unsigned int nfds)
{
	struct vfu_out out;

	for (unsigned int i = 0; i < nfds; i++) {
		if (fds[i] < 0)
			fds[i] = eventfd(0, EFD_CLOEXEC);
		assert_true(fds[i] >= 0);
	}
	assert_int_equal(cmd(r, VFU_CMD_DEVICE_SET_IRQS, s, sizeof(*s), fds,
			     nfds, &out), EINVAL);
}

/* SET_IRQS ranges past the vectors, and fds that are not eventfds (a
 * client could make the device write 8 bytes into any file), are refused
 * and every fd closed. */
static void test_set_irqs_bad_ranges_and_fds_are_refused(void **state)
{
	struct vfu_irq_set s = {
		.argsz = sizeof(s), .index = VFIO_PCI_MSIX_IRQ_INDEX,
		.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
	};
	struct rig *r = *state;
	int fds[2] = { -1, -1 };

	/* Past the last vector, and wrapping uint32. */
	s.start = IPU_MSIX_VECTORS - 1;
	s.count = 2;
	set_irqs_refused(r, &s, (int[]){ -1, -1 }, 2);
	s.start = UINT32_MAX;
	s.count = 1;
	set_irqs_refused(r, &s, (int[]){ -1 }, 1);
	/* A memfd as an "eventfd". */
	s.start = 0;
	fds[0] = memfd_create("notefd", MFD_CLOEXEC);
	set_irqs_refused(r, &s, fds, 1);
	/* The wrong count of fds for the range. */
	s.count = 2;
	set_irqs_refused(r, &s, (int[]){ -1 }, 1);
	/* Another index has no vectors. */
	s.index = VFIO_PCI_INTX_IRQ_INDEX;
	s.count = 1;
	set_irqs_refused(r, &s, (int[]){ -1 }, 1);
}

/* argsz lies: larger or smaller than the payload. */
static void test_argsz_lies_are_refused(void **state)
{
	struct vfu_dma_map m = { 64, RW, 0, 0x100000, 4096 };
	struct vfu_irq_set s = {
		.argsz = sizeof(s) + 4, .index = VFIO_PCI_MSIX_IRQ_INDEX,
		.flags = VFIO_IRQ_SET_DATA_BOOL | VFIO_IRQ_SET_ACTION_TRIGGER,
		.count = 4,
	};
	uint8_t buf[sizeof(s) + 4] = { 0 };
	struct rig *r = *state;
	struct vfu_out out;

	assert_int_equal(cmd(r, VFU_CMD_DMA_MAP, &m, sizeof(m), NULL, 0, &out),
			 EINVAL);
	m.argsz = 16;
	assert_int_equal(cmd(r, VFU_CMD_DMA_MAP, &m, sizeof(m), NULL, 0, &out),
			 EINVAL);
	/* BOOL data: argsz says 4 bools, the message carries none. */
	assert_int_equal(cmd(r, VFU_CMD_DEVICE_SET_IRQS, &s, sizeof(s), NULL, 0,
			     &out), EINVAL);
	/* ... and the other way round. */
	s.argsz = sizeof(s);
	memcpy(buf, &s, sizeof(s));
	assert_int_equal(cmd(r, VFU_CMD_DEVICE_SET_IRQS, buf, sizeof(buf), NULL,
			     0, &out), EINVAL);
	assert_int_equal(vfu_conn_dma_maps(r->c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(irq_on_a_full_blocking_eventfd_does_not_block),
		cmocka_unit_test(irq_on_an_eventfd_made_blocking_later_does_not_block),
		cmocka_unit_test(irq_writes_a_client_left_waiting_end_with_it),
		cmocka_unit_test(dma_into_a_shrunk_file_does_not_kill_the_server),
		cmocka_unit_test_setup_teardown(bar2_by_message_off_the_bus_reads_all_ones,
						rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(test_off_the_bus_bar0_reads_all_ones_and_closes,
						rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(test_region_ranges_that_wrap_or_overrun_are_refused,
						rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(test_dma_map_ranges_that_wrap_are_refused,
						rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(test_dma_map_overlaps_and_partial_unmaps_are_refused,
						rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(test_dma_unmap_of_a_range_takes_every_mapping_inside,
						rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(test_set_irqs_bad_ranges_and_fds_are_refused,
						rig_setup, rig_teardown),
		cmocka_unit_test_setup_teardown(test_argsz_lies_are_refused,
						rig_setup, rig_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
