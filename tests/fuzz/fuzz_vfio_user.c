// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * fuzz_vfio_user.c - libFuzzer target for ipu-emu's vfio-user command
 * handling (firmware/emu/vfio_user_parse.c, _caps.c, _conn.c, _dma.c,
 * _irq.c) against the device test double of the unit tests: a stream of
 * client messages, each with file descriptors of the kinds a client
 * passes, then device DMA through the mappings the stream made. Every
 * reply must be well formed (an error reply is a bare header), every fd
 * either kept or closed (none may leak), and no input may crash, leak or
 * trip a sanitizer.
 *
 * Input: byte 0 bit 0 = negotiate VERSION first; then records of
 *   u8 fdspec (bits 0-1: fd count, bit 2: eventfds instead of memfds,
 *   bit 3: the message is a reply of the client to a DMA_READ/WRITE
 *   request, given to the reply parser and vfu_conn_reply()),
 *   u16 length, length bytes of message;
 * the last 16 bytes, if any remain, are a bus address and length for a
 * device read and write.
 *
 *	scripts/fuzz [SECONDS]	builds this with clang and runs it
 *
 * fuzz-build: firmware/emu/vfio_user_parse.c firmware/emu/vfio_user_caps.c firmware/emu/vfio_user_conn.c firmware/emu/vfio_user_dma.c firmware/emu/vfio_user_irq.c firmware/emu/vfio_user_remote.c firmware/emu/vfio_user_sock.c -luring -lpthread
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unit/fake_emu_dev.h"
#include "unit/guest_ram.h"
#include "unit/open_fds.h"
#include "../firmware/emu/vfio_user_conn.h"
#include "../firmware/emu/vfio_user_parse.h"
#include "../firmware/emu/vfio_user_remote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vfu_conn *conn;
static struct emu_dev *dev;
static struct emu_host_ops host;
static int baseline_fds = -1;
/*
 * The kinds of fd the code under test is given (guest RAM memfds,
 * eventfds) or makes (the MSI-X writes' io_uring), and the fake BAR2's
 * memfd. Not every fd: ASan starts its symbolizer (two pipes and
 * /dev/null, kept open) when libFuzzer first prints a new function, and a
 * count of all fds took that for a leak (CI, twice in 4 runs).
 */
static const char *const fd_kinds[] = {
	"/memfd:", "anon_inode:[eventfd]", "anon_inode:[io_uring]", NULL
};
static volatile unsigned int reply_sum;

static void bug(const char *what)
{
	fprintf(stderr, "fuzz_vfio_user: %s\n", what);
	abort();
}

static void init(void)
{
	struct emu_dev_opts o = { .mem_size = FAKE_BAR2_SIZE };

	if (vfu_conn_create("fuzz", NULL, &conn))
		bug("vfu_conn_create failed");
	vfu_conn_set_remote_dma(conn, true, false);
	vfu_conn_host_ops(conn, &host);
	if (emu_dev_create(&o, &host, &dev))
		bug("emu_dev_create failed");
	vfu_conn_attach(conn, dev);
	baseline_fds = open_fds_of(fd_kinds);
	if (baseline_fds < 0)
		bug("cannot list /proc/self/fd");
}

static void check_reply(const struct vfu_out *out, const struct vfu_hdr *in)
{
	if (out->hdr.size != sizeof(out->hdr) + out->len)
		bug("reply size does not cover its payload");
	if ((out->hdr.flags & VFU_FLAG_TYPE_MASK) != VFU_TYPE_REPLY)
		bug("reply not marked as one");
	if ((out->hdr.flags & VFU_FLAG_ERROR) &&
	    (out->len || out->fd >= 0 || !out->hdr.error))
		bug("error reply with a payload, an fd or no errno");
	if (out->hdr.msg_id != in->msg_id)
		bug("reply id differs from the command's");
	if (out->len > sizeof(struct vfu_region_rw) + VFU_MAX_XFER)
		bug("reply larger than any command's");
	/* Reading every byte lets ASan see a reply past its buffer. */
	for (size_t i = 0; i < out->len; i++)
		reply_sum += out->payload[i];
}

static void make_fds(uint8_t spec, int *fds, unsigned int *n)
{
	*n = spec & 3;
	for (unsigned int i = 0; i < *n; i++) {
		if (spec & 4) {
			fds[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		} else {
			fds[i] = guest_ram_fd("fuzz-ram", 8192);
		}
		if (fds[i] < 0)
			bug("cannot make an fd");
	}
}

/*
 * A client's reply: the parser's verdict must hold up (a DMA_READ reply's
 * data inside the message), and with no request waiting nothing may take
 * it.
 */
static void reply(const uint8_t *msg, size_t len)
{
	struct vfu_dma_reply r;

	/* Both layouts: the specification's and QEMU 11's. */
	for (int qemu = 0; qemu < 2; qemu++) {
		const uint8_t *d;

		if (vfu_parse_dma_reply(msg, len, qemu, &r))
			continue;
		d = r.data;
		if (r.hdr.size != len)
			bug("reply accepted with a wrong size");
		if (d && (d < msg || r.count > len ||
			  (size_t)(d - msg) > len - r.count))
			bug("reply data outside the message");
		for (uint64_t i = 0; d && i < r.count; i++)
			reply_sum += d[i];
	}
	if (!vfu_conn_reply(conn, msg, len))
		bug("a reply taken with no request waiting");
}

static void handle(const uint8_t *msg, size_t len, uint8_t spec)
{
	struct vfu_out out;
	struct vfu_hdr in = { 0 };
	unsigned int nfds;
	int fds[4];

	if (spec & 8) {
		reply(msg, len);
		return;
	}

	make_fds(spec, fds, &nfds);
	if (len >= sizeof(in))
		memcpy(&in, msg, sizeof(in));
	vfu_conn_handle(conn, msg, len, fds, nfds, &out);
	for (unsigned int i = 0; i < nfds; i++)
		if (fds[i] != -1)
			bug("an fd neither kept nor closed");
	if (len >= sizeof(in))
		check_reply(&out, &in);
}

static void negotiate(void)
{
	static const char json[] = "{\"capabilities\":{\"max_msg_fds\":16}}";
	uint8_t msg[sizeof(struct vfu_hdr) + 4 + sizeof(json)] = { 0 };
	struct vfu_hdr h = { .msg_id = 1, .cmd = VFU_CMD_VERSION,
			     .size = sizeof(msg) };

	memcpy(msg, &h, sizeof(h));
	memcpy(msg + sizeof(h) + 4, json, sizeof(json));
	handle(msg, sizeof(msg), 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[65536 + 8];

	if (!conn)
		init();
	if (!size)
		return 0;
	if (data[0] & 1)
		negotiate();
	data++;
	size--;
	while (size >= 3 + 16) {
		uint8_t spec = data[0];
		size_t len = (size_t)data[1] | (size_t)data[2] << 8;

		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		/* A copy: the handler may keep pointers only for the call. */
		memcpy(buf, data, len);
		handle(buf, len, spec);
		data += len;
		size -= len;
	}
	if (size >= 16) {
		uint64_t addr, n;
		static uint8_t scratch[16384];

		memcpy(&addr, data, 8);
		memcpy(&n, data + 8, 8);
		n %= sizeof(scratch) + 1;
		host.dma_read(host.ctx, addr, scratch, n);
		host.dma_write(host.ctx, addr, scratch, n);
		host.irq(host.ctx, (unsigned int)(addr & 7));
	}
	vfu_conn_disconnect(conn);
	if (open_fds_of(fd_kinds) != baseline_fds) {
		fprintf(stderr, "fuzz_vfio_user: %d memfds, eventfds and rings open, %d at the start:\n",
			open_fds_of(fd_kinds), baseline_fds);
		open_fds_print(stderr);
		bug("file descriptors leaked");
	}
	return 0;
}
