// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_vfio_user_malformed.c - every class of malformed vfio-user message
 * the server must refuse with the protocol's error reply (never crash,
 * never act on it, never leak a passed fd), each built from an otherwise
 * valid message so that no earlier check hides the one under test; after
 * each, the connection still works (a valid command gets its reply).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "fake_emu_dev.h"
#include "vfu_client.h"
#include "guest_ram.h"

/* The connection still answers a valid command. */
static void still_works(struct tclient *c)
{
	uint32_t info[4] = { 16, 0, 0, 0 };

	free_reply(expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_GET_INFO, info,
					 sizeof(info), NULL, 0)));
}

static void test_short_header_then_close(void **state)
{
	struct tclient *c = *state;
	uint8_t half[10] = { 0 };
	struct vfu_server_status st;

	send_raw(c->sock, half, sizeof(half), NULL, 0);
	close(c->sock);
	/* The server drops that client and serves the next one. */
	tclient_connect(c);
	negotiate(c);
	still_works(c);
	vfu_server_status(c->srv, &st);
	assert_int_equal(st.clients, 2);
}

static void test_size_below_header(void **state)
{
	struct tclient *c = *state;
	struct vfu_hdr h = { .msg_id = 77, .cmd = VFU_CMD_DEVICE_GET_INFO,
			     .size = 8 };

	send_raw(c->sock, &h, sizeof(h), NULL, 0);
	expect_error(c, 77, EINVAL);
	still_works(c);
}

static void test_oversized_message_is_drained(void **state)
{
	struct tclient *c = *state;
	size_t len = VFU_MAX_MSG + 4096;
	uint8_t *msg = calloc(1, len);
	struct vfu_hdr h = { .msg_id = 78, .cmd = VFU_CMD_REGION_WRITE,
			     .size = (uint32_t)len };

	assert_non_null(msg);
	memcpy(msg, &h, sizeof(h));
	/* Written from a thread of its own would be tidier; the socket
	 * buffer plus the server's draining keep this from blocking. */
	send_raw(c->sock, msg, len, NULL, 0);
	free(msg);
	expect_error(c, 78, E2BIG);
	still_works(c);
}

static void test_reply_type_refused(void **state)
{
	struct tclient *c = *state;
	uint32_t info[4] = { 16, 0, 0, 0 };

	expect_error(c, send_cmd_flags(c, VFU_CMD_DEVICE_GET_INFO, info,
				       sizeof(info), NULL, 0, VFU_TYPE_REPLY),
		     EINVAL);
	expect_error(c, send_cmd_flags(c, VFU_CMD_DEVICE_GET_INFO, info,
				       sizeof(info), NULL, 0, 0x100), EINVAL);
	still_works(c);
}

static void test_unknown_and_unimplemented_commands(void **state)
{
	struct tclient *c = *state;
	uint8_t p[16] = { 0 };

	expect_error(c, send_cmd(c, 99, p, sizeof(p), NULL, 0), EINVAL);
	expect_error(c, send_cmd(c, VFU_CMD_DMA_READ, p, sizeof(p), NULL, 0),
		     EINVAL);
	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_FEATURE, p, 8, NULL, 0),
		     ENOTSUP);
	still_works(c);
}

static void test_argsz_lies(void **state)
{
	struct tclient *c = *state;
	struct vfio_region_info ri = { .argsz = 16, .index = 0 };
	struct vfio_irq_set s = {
		.argsz = sizeof(s) + 4, .index = VFIO_PCI_MSIX_IRQ_INDEX,
		.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
		.count = 1,
	};
	struct vfu_dma_map m = { 40, 3, 0, 0, 4096 };
	uint32_t info[4] = { 8, 0, 0, 0 };

	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_GET_REGION_INFO, &ri,
				 sizeof(ri), NULL, 0), EINVAL);
	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_SET_IRQS, &s, sizeof(s),
				 NULL, 0), EINVAL);
	expect_error(c, send_cmd(c, VFU_CMD_DMA_MAP, &m, sizeof(m), NULL, 0),
		     EINVAL);
	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_GET_INFO, info,
				 sizeof(info), NULL, 0), EINVAL);
	still_works(c);
}

static void test_payload_size_wrong(void **state)
{
	struct tclient *c = *state;
	uint8_t p[64] = { 0 };
	struct vfu_region_rw rw = { 0x100, 0, 4 };

	p[0] = 16;	/* argsz of GET_INFO, one byte too few */
	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_GET_INFO, p, 15, NULL, 0),
		     EINVAL);
	/* A write announcing 4 bytes and carrying 3. */
	memcpy(p, &rw, sizeof(rw));
	expect_error(c, send_cmd(c, VFU_CMD_REGION_WRITE, p, sizeof(rw) + 3,
				 NULL, 0), EINVAL);
	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_RESET, p, 4, NULL, 0),
		     EINVAL);
	still_works(c);
}

static void test_too_many_fds(void **state)
{
	struct tclient *c = *state;
	int efd[VFU_MAX_FDS + 1];
	struct vfio_irq_set s = {
		.argsz = sizeof(s), .index = VFIO_PCI_MSIX_IRQ_INDEX,
		.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
		.count = VFU_MAX_FDS + 1,
	};

	for (unsigned int i = 0; i <= VFU_MAX_FDS; i++)
		efd[i] = make_eventfd();
	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_SET_IRQS, &s, sizeof(s),
				 efd, VFU_MAX_FDS + 1), EINVAL);
	for (unsigned int i = 0; i <= VFU_MAX_FDS; i++)
		close(efd[i]);
	still_works(c);	/* teardown checks the server closed its copies */
}

static void test_too_few_fds(void **state)
{
	struct tclient *c = *state;
	int efd[2] = { make_eventfd(), make_eventfd() };
	struct vfio_irq_set s = {
		.argsz = sizeof(s), .index = VFIO_PCI_MSIX_IRQ_INDEX,
		.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
		.count = 4,
	};

	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_SET_IRQS, &s, sizeof(s),
				 efd, 2), EINVAL);
	assert_int_equal(c->host.irq(c->host.ctx, 0), -ENOENT);
	close(efd[0]);
	close(efd[1]);
	still_works(c);
}

static void test_fd_on_a_command_that_takes_none(void **state)
{
	struct tclient *c = *state;
	uint32_t info[4] = { 16, 0, 0, 0 };
	int fd = make_eventfd();

	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_GET_INFO, info,
				 sizeof(info), &fd, 1), EINVAL);
	close(fd);
	still_works(c);
}

static void test_eventfd_that_is_not_one(void **state)
{
	struct tclient *c = *state;
	int fd = memfd_create("not-an-eventfd", MFD_CLOEXEC);
	struct vfio_irq_set s = {
		.argsz = sizeof(s), .index = VFIO_PCI_MSIX_IRQ_INDEX,
		.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
		.count = 1,
	};

	assert_true(fd >= 0);
	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_SET_IRQS, &s, sizeof(s),
				 &fd, 1), EINVAL);
	close(fd);
	still_works(c);
}

static void test_irq_range_beyond_vectors(void **state)
{
	struct tclient *c = *state;
	int fd = make_eventfd();
	struct vfio_irq_set s = {
		.argsz = sizeof(s), .index = VFIO_PCI_MSIX_IRQ_INDEX,
		.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
		.start = FAKE_MSIX, .count = 1,
	};

	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_SET_IRQS, &s, sizeof(s),
				 &fd, 1), EINVAL);
	/* start + count wrapping around 2^32. */
	s.start = UINT32_MAX;
	s.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_MASK;
	s.count = 2;
	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_SET_IRQS, &s, sizeof(s),
				 NULL, 0), EINVAL);
	/* Two data types at once. */
	s.start = 0;
	s.count = 1;
	s.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_DATA_BOOL |
		  VFIO_IRQ_SET_ACTION_MASK;
	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_SET_IRQS, &s, sizeof(s),
				 NULL, 0), EINVAL);
	close(fd);
	still_works(c);
}

static void test_region_index_out_of_range(void **state)
{
	struct tclient *c = *state;
	struct vfio_region_info ri = { .argsz = 32, .index = VFU_NUM_REGIONS };
	struct vfio_irq_info ii = { .argsz = 16, .index = VFU_NUM_IRQS };
	struct vfu_region_rw rw = { 0, VFU_NUM_REGIONS, 4 };

	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_GET_REGION_INFO, &ri,
				 sizeof(ri), NULL, 0), EINVAL);
	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_GET_IRQ_INFO, &ii,
				 sizeof(ii), NULL, 0), EINVAL);
	expect_error(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw), NULL,
				 0), EINVAL);
	/* ROM and an unimplemented BAR: no access. */
	rw.region = VFIO_PCI_ROM_REGION_INDEX;
	expect_error(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw), NULL,
				 0), EINVAL);
	rw.region = 4;
	expect_error(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw), NULL,
				 0), EINVAL);
	still_works(c);
}

static void test_access_past_region_end(void **state)
{
	struct tclient *c = *state;
	struct vfu_region_rw rw = { FAKE_BAR0_SIZE, 0, 4 };

	expect_error(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw), NULL,
				 0), EINVAL);
	rw = (struct vfu_region_rw){ EMU_CFG_SIZE - 2, VFIO_PCI_CONFIG_REGION_INDEX, 4 };
	expect_error(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw), NULL,
				 0), EINVAL);
	rw = (struct vfu_region_rw){ FAKE_BAR2_SIZE - 1, 2, 2 };
	expect_error(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw), NULL,
				 0), EINVAL);
	still_works(c);
}

static void test_overflowing_offset(void **state)
{
	struct tclient *c = *state;
	struct vfu_region_rw rw = { UINT64_MAX - 1, 0, 4 };
	struct vfu_dma_unmap u = { 24, 0, UINT64_MAX - 4095, 8192 };
	int fd = make_eventfd();
	struct vfu_dma_map m = { 32, 3, UINT64_MAX - 4095, 0, 8192 };

	expect_error(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw), NULL,
				 0), EINVAL);
	expect_error(c, send_cmd(c, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0),
		     EINVAL);
	/* fd offset + size past 2^64. */
	expect_error(c, send_cmd(c, VFU_CMD_DMA_MAP, &m, sizeof(m), &fd, 1),
		     EINVAL);
	close(fd);
	still_works(c);
}

static void test_transfer_larger_than_announced(void **state)
{
	struct tclient *c = *state;
	struct vfu_region_rw rw = { 0, VFIO_PCI_CONFIG_REGION_INDEX,
				    VFU_MAX_XFER + 1 };

	expect_error(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw), NULL,
				 0), E2BIG);
	rw.count = 0;
	expect_error(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw), NULL,
				 0), EINVAL);
	still_works(c);
}

static int memfd_of(size_t size)
{
	int fd = guest_ram_fd("ram", size);

	assert_true(fd >= 0);
	return fd;
}

static uint16_t map(struct tclient *c, uint64_t addr, uint64_t size,
		    uint64_t off, int fd)
{
	struct vfu_dma_map m = { 32, 3, off, addr, size };

	return send_cmd(c, VFU_CMD_DMA_MAP, &m, sizeof(m), &fd, fd >= 0);
}

static void test_dma_map_overlapping(void **state)
{
	struct tclient *c = *state;
	int fd = memfd_of(4 * 4096);

	free_reply(expect_ok(c, map(c, 0x10000, 2 * 4096, 0, fd)));
	expect_error(c, map(c, 0x10000 + 4096, 2 * 4096, 0, fd), EEXIST);
	expect_error(c, map(c, 0x10000 - 4096, 2 * 4096, 0, fd), EEXIST);
	expect_error(c, map(c, 0x10000, 2 * 4096, 0, fd), EEXIST);
	/* Adjacent on both sides is fine. */
	free_reply(expect_ok(c, map(c, 0x10000 - 4096, 4096, 0, fd)));
	free_reply(expect_ok(c, map(c, 0x10000 + 2 * 4096, 4096, 0, fd)));
	close(fd);
	still_works(c);
}

static void test_dma_map_unaligned(void **state)
{
	struct tclient *c = *state;
	int fd = memfd_of(4 * 4096);

	expect_error(c, map(c, 0x10010, 4096, 0, fd), EINVAL);
	expect_error(c, map(c, 0x10000, 4000, 0, fd), EINVAL);
	expect_error(c, map(c, 0x10000, 4096, 100, fd), EINVAL);
	expect_error(c, map(c, 0x10000, 0, 0, fd), EINVAL);
	/* Unknown map flag. */
	{
		struct vfu_dma_map m = { 32, 4, 0, 0x10000, 4096 };

		expect_error(c, send_cmd(c, VFU_CMD_DMA_MAP, &m, sizeof(m),
					 &fd, 1), EINVAL);
	}
	close(fd);
	still_works(c);
}

static void test_dma_map_of_an_unmappable_fd(void **state)
{
	struct tclient *c = *state;
	int fd = eventfd(0, EFD_CLOEXEC);

	/* Not a file of guest RAM: refused before mmap() is tried. */
	assert_true(fd >= 0);
	expect_error(c, map(c, 0, 4096, 0, fd), EINVAL);
	close(fd);
	still_works(c);
}

static void test_dma_map_past_end_of_file(void **state)
{
	struct tclient *c = *state;
	int fd = memfd_of(8192);
	uint8_t b = 0;

	/* Device DMA to the part past the file's end would be a SIGBUS:
	 * found by fuzz_vfio_user. The map is refused instead. */
	expect_error(c, map(c, 0x100000, 8192, 4096, fd), EINVAL);
	expect_error(c, map(c, 0x100000, 3 * 4096, 0, fd), EINVAL);
	assert_int_equal(c->host.dma_write(c->host.ctx, 0x100000 + 4096, &b, 1),
			 -EFAULT);
	free_reply(expect_ok(c, map(c, 0x100000, 8192, 0, fd)));
	close(fd);
	still_works(c);
}

static void test_dma_access_outside_maps(void **state)
{
	struct tclient *c = *state;
	int fd = memfd_of(4 * 4096);
	uint8_t buf[2 * 4096];

	free_reply(expect_ok(c, map(c, 0x10000, 4096, 0, fd)));
	free_reply(expect_ok(c, map(c, 0x11000, 4096, 4096, fd)));
	free_reply(expect_ok(c, map(c, 0x13000, 4096, 8192, fd)));
	close(fd);
	/* Adjacent maps: one access may span them. */
	assert_int_equal(c->host.dma_read(c->host.ctx, 0x10800, buf, 4096), 0);
	/* A hole at 0x12000: the access faults whole. */
	assert_int_equal(c->host.dma_read(c->host.ctx, 0x11800, buf, 4096),
			 -EFAULT);
	assert_int_equal(c->host.dma_write(c->host.ctx, 0x12000, buf, 1),
			 -EFAULT);
	assert_int_equal(c->host.dma_read(c->host.ctx, UINT64_MAX, buf, 2),
			 -EFAULT);
	assert_int_equal(c->host.dma_read(c->host.ctx, 0x13fff, buf, 2),
			 -EFAULT);
	still_works(c);
}

static void test_dma_unmap_must_match(void **state)
{
	struct tclient *c = *state;
	int fd = memfd_of(2 * 4096);
	struct vfu_dma_unmap u = { 24, 0, 0x10000, 4096 };
	uint8_t b;

	free_reply(expect_ok(c, map(c, 0x10000, 2 * 4096, 0, fd)));
	close(fd);
	/* Part of a mapping, or nothing mapped: refused, mapping intact. */
	expect_error(c, send_cmd(c, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0),
		     ENOENT);
	u.addr = 0x80000;
	expect_error(c, send_cmd(c, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0),
		     ENOENT);
	assert_int_equal(c->host.dma_read(c->host.ctx, 0x10000, &b, 1), 0);
	/* UNMAP_FLAG_ALL with an address; dirty bitmaps not supported. */
	u = (struct vfu_dma_unmap){ 24, VFIO_DMA_UNMAP_FLAG_ALL, 0x10000, 0 };
	expect_error(c, send_cmd(c, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0),
		     EINVAL);
	u = (struct vfu_dma_unmap){ 24, VFIO_DMA_UNMAP_FLAG_GET_DIRTY_BITMAP,
				    0x10000, 8192 };
	expect_error(c, send_cmd(c, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0),
		     ENOTSUP);
	assert_int_equal(c->host.dma_read(c->host.ctx, 0x10000, &b, 1), 0);
	still_works(c);
}

static void test_version_json_not_terminated(void **state)
{
	struct tclient *c = *state;
	uint8_t p[32] = { 0 };

	/* Start over: the setup negotiated already. */
	close(c->sock);
	tclient_connect(c);
	memcpy(p + 4, "{}", 2);
	expect_error(c, send_cmd(c, VFU_CMD_VERSION, p, 6, NULL, 0), EINVAL);
	memcpy(p + 4, "{}\0{}", 6);
	expect_error(c, send_cmd(c, VFU_CMD_VERSION, p, 10, NULL, 0), EINVAL);
	negotiate(c);
	still_works(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, tclient_setup_negotiated, \
							tclient_teardown)
		T(test_short_header_then_close),
		T(test_size_below_header),
		T(test_oversized_message_is_drained),
		T(test_reply_type_refused),
		T(test_unknown_and_unimplemented_commands),
		T(test_argsz_lies),
		T(test_payload_size_wrong),
		T(test_too_many_fds),
		T(test_too_few_fds),
		T(test_fd_on_a_command_that_takes_none),
		T(test_eventfd_that_is_not_one),
		T(test_irq_range_beyond_vectors),
		T(test_region_index_out_of_range),
		T(test_access_past_region_end),
		T(test_overflowing_offset),
		T(test_transfer_larger_than_announced),
		T(test_dma_map_overlapping),
		T(test_dma_map_unaligned),
		T(test_dma_map_of_an_unmappable_fd),
		T(test_dma_map_past_end_of_file),
		T(test_dma_access_outside_maps),
		T(test_dma_unmap_must_match),
		T(test_version_json_not_terminated),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
