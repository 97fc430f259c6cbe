// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_vfio_user.c - ipu-emu's vfio-user server (firmware/emu/vfio_user*)
 * driven by a client over a socketpair, against a test double of the
 * device (fake_emu_dev.h): version negotiation and every command QEMU's
 * vfio-user-pci client sends, with the replies it expects, the fds that
 * travel, the device calls they cause, and the server's behaviour when the
 * client leaves or the device falls off the bus.
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

/* Open fds before each test: every test must leave as many. */
static void test_version_reply_is_a_subset_of_the_proposal(void **state)
{
	struct tclient *c = *state;
	const char *json = "{\"capabilities\":{\"max_msg_fds\":8,\"pgsizes\":4096}}";
	uint8_t p[128] = { 0 };
	struct treply *r;

	memcpy(p + 4, json, strlen(json) + 1);
	r = expect_ok(c, send_cmd(c, VFU_CMD_VERSION, p, 4 + strlen(json) + 1,
				  NULL, 0));
	assert_int_equal(((uint16_t *)r->payload)[0], 0);
	assert_int_equal(((uint16_t *)r->payload)[1], 0);
	assert_int_equal(r->payload[r->len - 1], '\0');
	assert_string_equal((char *)r->payload + 4,
			    "{\"capabilities\":{\"max_msg_fds\":16,\"pgsizes\":4096}}");
	free_reply(r);
}

static void test_version_with_qemus_proposal(void **state)
{
	struct tclient *c = *state;
	size_t jl = strlen(QEMU_CAPS) + 1;
	uint8_t *p = calloc(1, 4 + jl);
	struct treply *r;

	assert_non_null(p);
	memcpy(p + 4, QEMU_CAPS, jl);
	r = expect_ok(c, send_cmd(c, VFU_CMD_VERSION, p, 4 + jl, NULL, 0));
	/* QEMU reads the reply into its request's buffer: no longer. */
	assert_true(r->hdr.size <= sizeof(struct vfu_hdr) + 4 + jl);
	assert_non_null(strstr((char *)r->payload + 4, "\"max_data_xfer_size\":1048576"));
	assert_null(strstr((char *)r->payload + 4, "write_multiple"));
	free_reply(r);
	free(p);
}

static void test_version_without_json(void **state)
{
	struct tclient *c = *state;
	struct vfu_version v = { 0, 3 };
	struct treply *r;

	r = expect_ok(c, send_cmd(c, VFU_CMD_VERSION, &v, sizeof(v), NULL, 0));
	assert_int_equal(r->len, 4);
	/* The minor version is at most what was proposed, and ours is 0. */
	assert_int_equal(((uint16_t *)r->payload)[1], 0);
	free_reply(r);
}

/*
 * A client that proposes no max_dma_maps (here: no JSON at all) assumes
 * the specification's default, 65535 mappings at once: the server must
 * take that many, or announce fewer (it may only announce what the client
 * proposed). QEMU's proposal gets the server's own values, and no
 * migration (not supported: absent means so).
 */
static void test_version_defaults_hold_for_dma_maps(void **state)
{
	struct tclient *c = *state;
	struct vfu_version v = { 0, 0 };
	struct vfu_server_status st;
	size_t jl = strlen(QEMU_CAPS) + 1;
	uint8_t *p = calloc(1, 4 + jl);
	struct treply *r;

	free_reply(expect_ok(c, send_cmd(c, VFU_CMD_VERSION, &v, sizeof(v),
					 NULL, 0)));
	for (uint64_t i = 0; i < 65535; i++)
		send_cmd_flags(c, VFU_CMD_DMA_MAP,
			       &(struct vfu_dma_map){ 32, 3, 0, i << 12, 4096 },
			       sizeof(struct vfu_dma_map), NULL, 0,
			       VFU_FLAG_NO_REPLY);
	expect_error(c, send_dma_map(c, 65535ull << 12, 4096, -1), ENOSPC);
	vfu_server_status(c->srv, &st);
	assert_int_equal(st.dma_maps, 65535);

	close(c->sock);
	tclient_connect(c);
	assert_non_null(p);
	memcpy(p + 4, QEMU_CAPS, jl);
	r = expect_ok(c, send_cmd(c, VFU_CMD_VERSION, p, 4 + jl, NULL, 0));
	assert_string_equal((char *)r->payload + 4,
			    "{\"capabilities\":{\"max_msg_fds\":16,"
			    "\"max_data_xfer_size\":1048576,\"pgsizes\":4096,"
			    "\"max_dma_maps\":65535}}");
	free_reply(r);
	free(p);
}

static void test_version_must_come_first(void **state)
{
	struct tclient *c = *state;
	uint32_t info[4] = { 16, 0, 0, 0 };

	expect_error(c, send_cmd(c, VFU_CMD_DEVICE_GET_INFO, info,
				 sizeof(info), NULL, 0), EINVAL);
	negotiate(c);
	free_reply(expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_GET_INFO, info,
					 sizeof(info), NULL, 0)));
}

static void test_version_only_once(void **state)
{
	struct tclient *c = *state;
	struct vfu_version v = { 0, 0 };

	negotiate(c);
	expect_error(c, send_cmd(c, VFU_CMD_VERSION, &v, sizeof(v), NULL, 0),
		     EINVAL);
}

static void test_version_other_major_closes(void **state)
{
	struct tclient *c = *state;
	struct vfu_version v = { 1, 0 };

	expect_error(c, send_cmd(c, VFU_CMD_VERSION, &v, sizeof(v), NULL, 0),
		     ENOTSUP);
	assert_true(peer_closed(c->sock));
}

static void test_version_bad_json(void **state)
{
	struct tclient *c = *state;
	const char *json = "{\"capabilities\":{\"max_msg_fds\":\"8\"}}";
	uint8_t p[64] = { 0 };

	memcpy(p + 4, json, strlen(json) + 1);
	expect_error(c, send_cmd(c, VFU_CMD_VERSION, p, 4 + strlen(json) + 1,
				 NULL, 0), EINVAL);
	/* Nothing was negotiated: the client may try again. */
	negotiate(c);
}

static void test_device_info(void **state)
{
	struct tclient *c = *state;
	uint32_t info[4] = { 16, 0, 0, 0 };
	struct treply *r;

	negotiate(c);
	r = expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_GET_INFO, info,
				  sizeof(info), NULL, 0));
	assert_int_equal(r->len, 16);
	memcpy(info, r->payload, sizeof(info));
	assert_int_equal(info[0], 16);
	assert_int_equal(info[1], VFIO_DEVICE_FLAGS_RESET | VFIO_DEVICE_FLAGS_PCI);
	assert_int_equal(info[2], VFIO_PCI_NUM_REGIONS);
	assert_int_equal(info[3], VFIO_PCI_NUM_IRQS);
	free_reply(r);
}

static struct treply *region_info(struct tclient *c, uint32_t index,
				  uint32_t argsz)
{
	struct vfio_region_info ri = { .argsz = argsz, .index = index };

	return expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_GET_REGION_INFO, &ri,
				     sizeof(ri), NULL, 0));
}

static void test_region_info_bar0_traps(void **state)
{
	struct tclient *c = *state;
	struct vfio_region_info ri;
	struct treply *r;

	negotiate(c);
	r = region_info(c, VFIO_PCI_BAR0_REGION_INDEX, 256);
	assert_int_equal(r->len, sizeof(ri));
	memcpy(&ri, r->payload, sizeof(ri));
	assert_int_equal(ri.argsz, sizeof(ri));
	assert_int_equal(ri.size, FAKE_BAR0_SIZE);
	assert_int_equal(ri.flags, VFIO_REGION_INFO_FLAG_READ |
				   VFIO_REGION_INFO_FLAG_WRITE);
	assert_int_equal(r->nfds, 0);
	free_reply(r);
}

static void test_region_info_bar2_mmap_with_sparse_cap(void **state)
{
	struct tclient *c = *state;
	struct {
		struct vfio_region_info info;
		struct vfio_region_info_cap_sparse_mmap sparse;
		struct vfio_region_sparse_mmap_area area;
	} full;
	struct treply *r;
	uint8_t *map;

	negotiate(c);
	r = region_info(c, VFIO_PCI_BAR2_REGION_INDEX, 256);
	assert_int_equal(r->len, sizeof(full));
	memcpy(&full, r->payload, sizeof(full));
	assert_int_equal(full.info.argsz, sizeof(full));
	assert_int_equal(full.info.size, FAKE_BAR2_SIZE);
	assert_int_equal(full.info.flags, VFIO_REGION_INFO_FLAG_READ |
		VFIO_REGION_INFO_FLAG_WRITE | VFIO_REGION_INFO_FLAG_MMAP |
		VFIO_REGION_INFO_FLAG_CAPS);
	assert_int_equal(full.info.cap_offset, sizeof(full.info));
	assert_int_equal(full.sparse.header.id, VFIO_REGION_INFO_CAP_SPARSE_MMAP);
	assert_int_equal(full.sparse.header.next, 0);
	assert_int_equal(full.sparse.nr_areas, 1);
	assert_int_equal(full.area.offset, 0);
	assert_int_equal(full.area.size, FAKE_BAR2_SIZE);
	/* The fd is the device's memory: what the client maps, the device
	 * sees. */
	assert_int_equal(r->nfds, 1);
	map = mmap(NULL, FAKE_BAR2_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   r->fds[0], (off_t)full.info.offset);
	assert_true(map != MAP_FAILED);
	map[12345] = 0x5a;
	assert_int_equal(pread(c->dev->mem_fd, &full, 1, 12345), 1);
	assert_int_equal(((uint8_t *)&full)[0], 0x5a);
	munmap(map, FAKE_BAR2_SIZE);
	free_reply(r);
}

static void test_region_info_short_argsz_asks_for_more(void **state)
{
	struct tclient *c = *state;
	struct vfio_region_info ri;
	struct treply *r;

	negotiate(c);
	r = region_info(c, VFIO_PCI_BAR2_REGION_INDEX, sizeof(ri));
	assert_int_equal(r->len, sizeof(ri));
	memcpy(&ri, r->payload, sizeof(ri));
	assert_true(ri.argsz > sizeof(ri));
	/* QEMU's client (hw/vfio-user/device.c) checks cap_offset of a
	 * CAPS reply before it asks again with the larger argsz: below
	 * sizeof(ri) it fails the device with -EINVAL. */
	assert_true(ri.flags & VFIO_REGION_INFO_FLAG_CAPS);
	assert_int_equal(ri.cap_offset, sizeof(ri));
	assert_int_equal(r->nfds, 0);
	free_reply(r);
}

static void test_region_info_config_rom_vga(void **state)
{
	struct tclient *c = *state;
	struct vfio_region_info ri;
	struct treply *r;

	negotiate(c);
	r = region_info(c, VFIO_PCI_CONFIG_REGION_INDEX, 32);
	memcpy(&ri, r->payload, sizeof(ri));
	assert_int_equal(ri.size, EMU_CFG_SIZE);
	assert_int_equal(ri.flags, VFIO_REGION_INFO_FLAG_READ |
				   VFIO_REGION_INFO_FLAG_WRITE);
	free_reply(r);
	r = region_info(c, VFIO_PCI_ROM_REGION_INDEX, 32);
	memcpy(&ri, r->payload, sizeof(ri));
	assert_int_equal(ri.size, 0);
	assert_int_equal(ri.flags, 0);
	free_reply(r);
	r = region_info(c, VFIO_PCI_VGA_REGION_INDEX, 32);
	memcpy(&ri, r->payload, sizeof(ri));
	assert_int_equal(ri.size, 0);
	free_reply(r);
	r = region_info(c, VFIO_PCI_BAR1_REGION_INDEX, 32);
	memcpy(&ri, r->payload, sizeof(ri));
	assert_int_equal(ri.size, 0);
	free_reply(r);
}

static struct treply *region_read(struct tclient *c, uint32_t region,
				  uint64_t off, uint32_t count)
{
	struct vfu_region_rw rw = { off, region, count };

	return expect_ok(c, send_cmd(c, VFU_CMD_REGION_READ, &rw, sizeof(rw),
				     NULL, 0));
}

static uint16_t region_write(struct tclient *c, uint32_t region, uint64_t off,
			     const void *data, uint32_t count, uint32_t flags)
{
	uint8_t buf[64];
	struct vfu_region_rw rw = { off, region, count };

	assert_true(count <= sizeof(buf) - sizeof(rw));
	memcpy(buf, &rw, sizeof(rw));
	memcpy(buf + sizeof(rw), data, count);
	return send_cmd_flags(c, VFU_CMD_REGION_WRITE, buf, sizeof(rw) + count,
			      NULL, 0, flags);
}

static void test_config_space_read_whole_and_write(void **state)
{
	struct tclient *c = *state;
	uint8_t v[2] = { 0xab, 0xcd };
	struct vfu_region_rw rw;
	struct treply *r;

	negotiate(c);
	/* QEMU reads all of config space in one message at realize. */
	r = region_read(c, VFIO_PCI_CONFIG_REGION_INDEX, 0, EMU_CFG_SIZE);
	assert_int_equal(r->len, sizeof(rw) + EMU_CFG_SIZE);
	memcpy(&rw, r->payload, sizeof(rw));
	assert_int_equal(rw.count, EMU_CFG_SIZE);
	assert_memory_equal(r->payload + sizeof(rw), c->dev->cfg, EMU_CFG_SIZE);
	free_reply(r);
	r = expect_ok(c, region_write(c, VFIO_PCI_CONFIG_REGION_INDEX, 0x44, v,
				      2, 0));
	assert_int_equal(r->len, sizeof(rw));
	free_reply(r);
	assert_int_equal(c->dev->cfg[0x44], 0xab);
	assert_int_equal(c->dev->cfg[0x45], 0xcd);
}

static void test_bar0_access_traps_into_device(void **state)
{
	struct tclient *c = *state;
	uint64_t v = 0x1122334455667788ull, got;
	struct treply *r;

	negotiate(c);
	free_reply(expect_ok(c, region_write(c, 0, 0x100, &v, 8, 0)));
	r = region_read(c, 0, 0x104, 4);
	assert_int_equal(r->len, 16 + 4);
	got = 0;
	memcpy(&got, r->payload + 16, 4);
	assert_int_equal(got, 0x11223344);
	free_reply(r);
	/* The device refuses a 2-byte access: an error reply, not a crash. */
	expect_error(c, region_write(c, 0, 0x100, &v, 2, 0), EINVAL);
}

static void test_bar2_access_by_message(void **state)
{
	struct tclient *c = *state;
	uint8_t v[5] = { 1, 2, 3, 4, 5 };
	struct treply *r;

	negotiate(c);
	free_reply(expect_ok(c, region_write(c, 2, FAKE_BAR2_SIZE - 5, v, 5, 0)));
	r = region_read(c, 2, FAKE_BAR2_SIZE - 5, 5);
	assert_memory_equal(r->payload + 16, v, 5);
	free_reply(r);
}

static void test_posted_write_has_no_reply(void **state)
{
	struct tclient *c = *state;
	uint32_t v = 7, got;
	struct treply *r;

	negotiate(c);
	region_write(c, 0, 0x200, &v, 4, VFU_FLAG_NO_REPLY);
	/* The next reply is the read's, and it sees the posted write. */
	r = region_read(c, 0, 0x200, 4);
	memcpy(&got, r->payload + 16, 4);
	assert_int_equal(got, 7);
	free_reply(r);
}

static void test_irq_info(void **state)
{
	struct tclient *c = *state;
	struct vfio_irq_info ii = { .argsz = 16, .index = VFIO_PCI_MSIX_IRQ_INDEX };
	struct treply *r;

	negotiate(c);
	r = expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_GET_IRQ_INFO, &ii,
				  sizeof(ii), NULL, 0));
	memcpy(&ii, r->payload, sizeof(ii));
	assert_int_equal(ii.count, FAKE_MSIX);
	assert_true(ii.flags & VFIO_IRQ_INFO_EVENTFD);
	assert_true(ii.flags & VFIO_IRQ_INFO_MASKABLE);
	free_reply(r);
	ii = (struct vfio_irq_info){ .argsz = 16, .index = VFIO_PCI_INTX_IRQ_INDEX };
	r = expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_GET_IRQ_INFO, &ii,
				  sizeof(ii), NULL, 0));
	memcpy(&ii, r->payload, sizeof(ii));
	assert_int_equal(ii.count, 0);
	free_reply(r);
}

static uint16_t set_irqs(struct tclient *c, uint32_t flags, uint32_t start,
			 uint32_t count, const int *fds, unsigned int nfds,
			 const uint8_t *bools)
{
	uint8_t buf[64];
	struct vfio_irq_set s = {
		.argsz = sizeof(s) + (bools ? count : 0), .flags = flags,
		.index = VFIO_PCI_MSIX_IRQ_INDEX, .start = start, .count = count,
	};

	memcpy(buf, &s, sizeof(s));
	if (bools)
		memcpy(buf + sizeof(s), bools, count);
	return send_cmd(c, VFU_CMD_DEVICE_SET_IRQS, buf, s.argsz, fds, nfds);
}

static void test_msix_eventfds_trigger_mask_unmask(void **state)
{
	struct tclient *c = *state;
	int efd[FAKE_MSIX];
	uint8_t sel[2] = { 0, 1 };

	negotiate(c);
	for (unsigned int i = 0; i < FAKE_MSIX; i++)
		efd[i] = make_eventfd();
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_EVENTFD |
		VFIO_IRQ_SET_ACTION_TRIGGER, 0, FAKE_MSIX, efd, FAKE_MSIX, NULL)));
	/* The device raises vector 2: its eventfd, and only it, fires. */
	assert_int_equal(c->host.irq(c->host.ctx, 2), 0);
	assert_int_equal(eventfd_count(efd[2]), 1);
	assert_int_equal(eventfd_count(efd[1]), 0);
	/* Masked: pending, no event; unmasked: the event comes. */
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_NONE |
		VFIO_IRQ_SET_ACTION_MASK, 3, 1, NULL, 0, NULL)));
	assert_int_equal(c->host.irq(c->host.ctx, 3), 0);
	assert_int_equal(eventfd_count(efd[3]), 0);
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_NONE |
		VFIO_IRQ_SET_ACTION_UNMASK, 3, 1, NULL, 0, NULL)));
	assert_int_equal(eventfd_count(efd[3]), 1);
	/* The client triggers vector 1 of [0, 2) itself (DATA_BOOL). */
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_BOOL |
		VFIO_IRQ_SET_ACTION_TRIGGER, 0, 2, NULL, 0, sel)));
	assert_int_equal(eventfd_count(efd[1]), 1);
	assert_int_equal(eventfd_count(efd[0]), 0);
	/* De-assigned (DATA_EVENTFD, no fds): the interrupt is lost. */
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_EVENTFD |
		VFIO_IRQ_SET_ACTION_TRIGGER, 0, 1, NULL, 0, NULL)));
	assert_int_equal(c->host.irq(c->host.ctx, 0), -ENOENT);
	/* All off: count 0, DATA_NONE. */
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_NONE |
		VFIO_IRQ_SET_ACTION_TRIGGER, 0, 0, NULL, 0, NULL)));
	assert_int_equal(c->host.irq(c->host.ctx, 2), -ENOENT);
	assert_int_equal(c->host.irq(c->host.ctx, FAKE_MSIX), -ENOENT);
	for (unsigned int i = 0; i < FAKE_MSIX; i++)
		close(efd[i]);
}

/*
 * SET_IRQS with count 0 as Linux VFIO answers it (vfio_pci_intrs.c):
 * DATA_NONE with TRIGGER turns every vector of the index off, whatever
 * start says; MASK or UNMASK with count 0 is refused (a maskable index
 * masks the vectors it names, and 0 names none); DATA_BOOL or
 * DATA_EVENTFD with count 0 changes nothing. A start past the vectors is
 * refused even with count 0. Only the first drops eventfds.
 */
static void test_set_irqs_count_0_as_vfio(void **state)
{
	struct tclient *c = *state;
	int efd[FAKE_MSIX];
	uint8_t none = 0;

	negotiate(c);
	for (unsigned int i = 0; i < FAKE_MSIX; i++)
		efd[i] = make_eventfd();
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_EVENTFD |
		VFIO_IRQ_SET_ACTION_TRIGGER, 0, FAKE_MSIX, efd, FAKE_MSIX, NULL)));
	expect_error(c, set_irqs(c, VFIO_IRQ_SET_DATA_NONE |
		VFIO_IRQ_SET_ACTION_MASK, 0, 0, NULL, 0, NULL), EINVAL);
	expect_error(c, set_irqs(c, VFIO_IRQ_SET_DATA_NONE |
		VFIO_IRQ_SET_ACTION_UNMASK, 0, 0, NULL, 0, NULL), EINVAL);
	expect_error(c, set_irqs(c, VFIO_IRQ_SET_DATA_BOOL |
		VFIO_IRQ_SET_ACTION_MASK, 1, 0, NULL, 0, &none), EINVAL);
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_BOOL |
		VFIO_IRQ_SET_ACTION_TRIGGER, 0, 0, NULL, 0, &none)));
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_EVENTFD |
		VFIO_IRQ_SET_ACTION_TRIGGER, 0, 0, NULL, 0, NULL)));
	expect_error(c, set_irqs(c, VFIO_IRQ_SET_DATA_NONE |
		VFIO_IRQ_SET_ACTION_TRIGGER, FAKE_MSIX, 0, NULL, 0, NULL), EINVAL);
	/* Every eventfd is still there, nothing was triggered. */
	for (unsigned int i = 0; i < FAKE_MSIX; i++) {
		assert_int_equal(eventfd_count(efd[i]), 0);
		assert_int_equal(c->host.irq(c->host.ctx, i), 0);
		assert_int_equal(eventfd_count(efd[i]), 1);
	}
	/* DATA_NONE, TRIGGER, count 0: all off, start notwithstanding. */
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_NONE |
		VFIO_IRQ_SET_ACTION_TRIGGER, 2, 0, NULL, 0, NULL)));
	for (unsigned int i = 0; i < FAKE_MSIX; i++)
		assert_int_equal(c->host.irq(c->host.ctx, i), -ENOENT);
	for (unsigned int i = 0; i < FAKE_MSIX; i++)
		close(efd[i]);
}

static void test_msix_vectors_one_at_a_time(void **state)
{
	struct tclient *c = *state;
	int e0 = make_eventfd(), e1 = make_eventfd();

	negotiate(c);
	/* QEMU without NORESIZE enables vectors one by one. */
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_EVENTFD |
		VFIO_IRQ_SET_ACTION_TRIGGER, 0, 1, &e0, 1, NULL)));
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_EVENTFD |
		VFIO_IRQ_SET_ACTION_TRIGGER, 3, 1, &e1, 1, NULL)));
	assert_int_equal(c->host.irq(c->host.ctx, 3), 0);
	assert_int_equal(eventfd_count(e1), 1);
	assert_int_equal(c->host.irq(c->host.ctx, 0), 0);
	assert_int_equal(eventfd_count(e0), 1);
	assert_int_equal(c->host.irq(c->host.ctx, 1), -ENOENT);
	close(e0);
	close(e1);
}

static int make_memfd(size_t size, uint8_t fill)
{
	int fd = guest_ram_fd("guest-ram", size);
	uint8_t *p;

	assert_true(fd >= 0);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	memset(p, fill, size);
	munmap(p, size);
	return fd;
}

static uint16_t dma_map(struct tclient *c, uint64_t addr, uint64_t size,
			uint64_t off, uint32_t flags, int fd)
{
	struct vfu_dma_map m = { 32, flags, off, addr, size };

	return send_cmd(c, VFU_CMD_DMA_MAP, &m, sizeof(m), &fd, fd >= 0);
}

static uint16_t dma_unmap(struct tclient *c, uint64_t addr, uint64_t size,
			  uint32_t flags)
{
	struct vfu_dma_unmap u = { 24, flags, addr, size };

	return send_cmd(c, VFU_CMD_DMA_UNMAP, &u, sizeof(u), NULL, 0);
}

static void test_dma_map_read_write_unmap(void **state)
{
	struct tclient *c = *state;
	int fd = make_memfd(3 * 4096, 0x11);
	struct vfu_dma_unmap u;
	uint8_t buf[8], *guest;
	struct treply *r;

	negotiate(c);
	/* Bus [0x100000, +8 KiB) is the file's [4 KiB, 12 KiB). */
	free_reply(expect_ok(c, dma_map(c, 0x100000, 8192, 4096,
		VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE, fd)));
	guest = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(guest != MAP_FAILED);
	close(fd);
	guest[4096 + 10] = 0x77;
	assert_int_equal(c->host.dma_read(c->host.ctx, 0x100000 + 8, buf, 4), 0);
	assert_int_equal(buf[2], 0x77);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(c->host.dma_write(c->host.ctx, 0x100000 + 8192 - 8,
					   buf, 8), 0);
	assert_int_equal(guest[3 * 4096 - 1], 0xee);
	assert_int_equal(guest[4096 - 1], 0x11);
	/* Outside: -EFAULT, nothing copied. */
	assert_int_equal(c->host.dma_read(c->host.ctx, 0x100000 + 8190, buf, 4),
			 -EFAULT);
	assert_int_equal(c->host.dma_write(c->host.ctx, 0xfff00, buf, 1),
			 -EFAULT);
	r = expect_ok(c, dma_unmap(c, 0x100000, 8192, 0));
	assert_int_equal(r->len, sizeof(u));
	memcpy(&u, r->payload, sizeof(u));
	assert_int_equal(u.addr, 0x100000);
	assert_int_equal(u.size, 8192);
	free_reply(r);
	assert_int_equal(c->host.dma_read(c->host.ctx, 0x100000, buf, 1),
			 -EFAULT);
	munmap(guest, 3 * 4096);
}

static void test_dma_read_only_mapping_refuses_writes(void **state)
{
	struct tclient *c = *state;
	int fd = make_memfd(4096, 0x22);
	uint8_t b = 0;

	negotiate(c);
	free_reply(expect_ok(c, dma_map(c, 0, 4096, 0, VFIO_DMA_MAP_FLAG_READ,
					fd)));
	close(fd);
	assert_int_equal(c->host.dma_read(c->host.ctx, 0, &b, 1), 0);
	assert_int_equal(b, 0x22);
	assert_int_equal(c->host.dma_write(c->host.ctx, 0, &b, 1), -EFAULT);
}

/* Memory with no fd is a mapping (reached by messages: test_vfio_user_dmamsg). */
static void test_dma_map_without_fd_is_a_mapping(void **state)
{
	struct tclient *c = *state;

	negotiate(c);
	free_reply(expect_ok(c, dma_map(c, 0xc0000, 4096, 0,
					VFIO_DMA_MAP_FLAG_READ, -1)));
	/* Overlapping it is refused. */
	expect_error(c, dma_map(c, 0xc0000, 4096, 0, VFIO_DMA_MAP_FLAG_READ,
				-1), EEXIST);
	free_reply(expect_ok(c, dma_unmap(c, 0xc0000, 4096, 0)));
}

static void test_dma_unmap_all(void **state)
{
	struct tclient *c = *state;
	struct vfu_server_status st;
	int a = make_memfd(4096, 0), b = make_memfd(4096, 0);
	uint8_t x;

	negotiate(c);
	free_reply(expect_ok(c, dma_map(c, 0, 4096, 0, 3, a)));
	free_reply(expect_ok(c, dma_map(c, 1 << 20, 4096, 0, 3, b)));
	close(a);
	close(b);
	vfu_server_status(c->srv, &st);
	assert_int_equal(st.dma_maps, 2);
	free_reply(expect_ok(c, dma_unmap(c, 0, 0, VFIO_DMA_UNMAP_FLAG_ALL)));
	vfu_server_status(c->srv, &st);
	assert_int_equal(st.dma_maps, 0);
	assert_int_equal(c->host.dma_read(c->host.ctx, 0, &x, 1), -EFAULT);
}

static void test_device_reset_is_flr(void **state)
{
	struct tclient *c = *state;

	negotiate(c);
	free_reply(expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_RESET, NULL, 0,
					 NULL, 0)));
	assert_int_equal(c->dev->flr_count, 1);
}

static int fault_fn(struct emu_dev *dev, void *arg)
{
	return emu_dev_fault(dev, arg);
}

static void test_fault_call_runs_on_server_thread(void **state)
{
	struct tclient *c = *state;

	assert_int_equal(vfu_server_call(c->srv, fault_fn, "fail_dma=3"), 0);
	assert_int_equal(c->dev->fault_count, 1);
	assert_int_equal(vfu_server_call(c->srv, fault_fn, "bad"), -EINVAL);
}

static void test_off_bus_closes_the_clients_socket(void **state)
{
	struct tclient *c = *state;

	negotiate(c);
	assert_int_equal(vfu_server_call(c->srv, fault_fn, "off_bus"), 0);
	assert_true(peer_closed(c->sock));
}

static void test_disconnect_drops_mappings_and_serves_next_client(void **state)
{
	struct tclient *c = *state;
	int fd = make_memfd(4096, 0), e = make_eventfd();
	struct vfu_server_status st;
	uint8_t b;

	negotiate(c);
	free_reply(expect_ok(c, dma_map(c, 0, 4096, 0, 3, fd)));
	free_reply(expect_ok(c, set_irqs(c, VFIO_IRQ_SET_DATA_EVENTFD |
		VFIO_IRQ_SET_ACTION_TRIGGER, 0, 1, &e, 1, NULL)));
	close(fd);
	close(e);
	/* The next client is queued before this one leaves. */
	close(c->sock);
	tclient_connect(c);
	negotiate(c);
	vfu_server_status(c->srv, &st);
	assert_int_equal(st.dma_maps, 0);
	assert_true(st.connected);
	assert_int_equal(st.clients, 2);
	assert_int_equal(c->host.dma_read(c->host.ctx, 0, &b, 1), -EFAULT);
	assert_int_equal(c->host.irq(c->host.ctx, 0), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, tclient_setup, \
							tclient_teardown)
		T(test_version_reply_is_a_subset_of_the_proposal),
		T(test_version_with_qemus_proposal),
		T(test_version_without_json),
		T(test_version_defaults_hold_for_dma_maps),
		T(test_version_must_come_first),
		T(test_version_only_once),
		T(test_version_other_major_closes),
		T(test_version_bad_json),
		T(test_device_info),
		T(test_region_info_bar0_traps),
		T(test_region_info_bar2_mmap_with_sparse_cap),
		T(test_region_info_short_argsz_asks_for_more),
		T(test_region_info_config_rom_vga),
		T(test_config_space_read_whole_and_write),
		T(test_bar0_access_traps_into_device),
		T(test_bar2_access_by_message),
		T(test_posted_write_has_no_reply),
		T(test_irq_info),
		T(test_msix_eventfds_trigger_mask_unmask),
		T(test_msix_vectors_one_at_a_time),
		T(test_set_irqs_count_0_as_vfio),
		T(test_dma_map_read_write_unmap),
		T(test_dma_read_only_mapping_refuses_writes),
		T(test_dma_map_without_fd_is_a_mapping),
		T(test_dma_unmap_all),
		T(test_device_reset_is_flr),
		T(test_fault_call_runs_on_server_thread),
		T(test_off_bus_closes_the_clients_socket),
		T(test_disconnect_drops_mappings_and_serves_next_client),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
