/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * vfu_client.h - a minimal vfio-user client for the transport's tests: a
 * server (firmware/emu/vfio_user.h) serving a device over one end of a
 * socketpair, and helpers that send raw messages (any bytes, any fds) and
 * read replies with their fds. Static functions: one test file includes
 * it, after cmocka.h and the device (a test double or the real one).
 */
#ifndef VFU_CLIENT_H
#define VFU_CLIENT_H

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../firmware/emu/vfio_user.h"
#include "../../firmware/emu/vfio_user_parse.h"
#include "open_fds.h"

/* QEMU 11's proposal, byte for byte (hw/vfio-user/proxy.c caps_json()). */
#define QEMU_CAPS "{\"capabilities\":{\"max_msg_fds\":16,\"max_data_xfer_size\":1048576,\"pgsizes\":4096,\"max_dma_maps\":65535,\"migration\":{\"pgsize\":4096,\"max_bitmap_size\":268435456},\"write_multiple\":true}}"

struct tclient {
	struct vfu_server *srv;
	struct emu_dev *dev;
	struct emu_host_ops host;
	int sock;		/* the client's end */
	uint16_t next_id;
};

struct treply {
	struct vfu_hdr hdr;
	uint8_t payload[VFU_MAX_XFER + 64];
	size_t len;
	int fds[4];
	unsigned int nfds;
};

/* A fresh client socket served by @c->srv. */
static inline void tclient_connect(struct tclient *c)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv), 0);
	assert_int_equal(vfu_server_adopt(c->srv, sv[1]), 0);
	c->sock = sv[0];
}

/*
 * Whether the next server reaches unmappable client memory with DMA_READ /
 * DMA_WRITE (vfu_server_opts.remote_dma): the tests speak the protocol's
 * layout, so on unless a test of the program's default turns it off.
 */
static bool tclient_remote_dma = true;

/*
 * Whether the next server speaks QEMU 11's layout of DMA_READ/DMA_WRITE
 * (vfu_server_opts.remote_dma_qemu), and tclient_answer_dma() answers in
 * it, as QEMU's client does (hw/vfio-user/pci.c).
 */
static bool tclient_remote_dma_qemu;

/* A server for a device made with @dopts, and a client connected to it. */
static inline void tclient_start_opts(struct tclient *c,
				      const struct emu_dev_opts *dopts)
{
	struct vfu_server_opts so = { .path = NULL, .name = "test",
				      .remote_dma = tclient_remote_dma,
				      .remote_dma_qemu = tclient_remote_dma_qemu };

	memset(c, 0, sizeof(*c));
	so.log = getenv("VFU_TEST_LOG") ? stderr : NULL;
	assert_int_equal(vfu_server_create(&so, &c->srv), 0);
	vfu_server_host_ops(c->srv, &c->host);
	assert_int_equal(emu_dev_create(dopts, &c->host, &c->dev), 0);
	assert_int_equal(vfu_server_start(c->srv, c->dev), 0);
	tclient_connect(c);
}

static inline void tclient_stop(struct tclient *c)
{
	if (c->sock >= 0)
		close(c->sock);
	vfu_server_stop(c->srv);
	emu_dev_destroy(c->dev);
	vfu_server_destroy(c->srv);
}

/* Send @len bytes of @msg with @nfds fds. */
static inline void send_raw(int sock, const void *msg, size_t len, const int *fds,
		     unsigned int nfds)
{
	union {
		char buf[CMSG_SPACE(32 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { (void *)msg, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	assert_true(nfds <= 32);
	if (nfds) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	/*
	 * A stream socket may take a long message in parts (a blocking
	 * sendmsg() returns early when a signal arrives after some bytes
	 * went: seen under valgrind with a 1 MiB message). The fds go with
	 * the first part; the rest follows until every byte is sent.
	 */
	for (size_t sent = 0; sent < len;) {
		ssize_t n;

		if (sent) {
			iov.iov_base = (char *)msg + sent;
			iov.iov_len = len - sent;
			mh.msg_control = NULL;
			mh.msg_controllen = 0;
		}
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fail_msg("sendmsg: %zd (%s) after %zu of %zu bytes", n,
				 strerror(errno), sent, len);
		sent += (size_t)n;
	}
}

/* Send command @cmd with @payload (@len bytes), header flags @flags. */
static inline uint16_t send_cmd_flags(struct tclient *c, uint16_t cmd,
			       const void *payload, size_t len,
			       const int *fds, unsigned int nfds,
			       uint32_t flags)
{
	size_t total = sizeof(struct vfu_hdr) + len;
	uint8_t *msg = malloc(total);
	struct vfu_hdr h = {
		.msg_id = ++c->next_id, .cmd = cmd,
		.size = (uint32_t)total, .flags = flags,
	};

	assert_non_null(msg);
	memcpy(msg, &h, sizeof(h));
	if (len)
		memcpy(msg + sizeof(h), payload, len);
	send_raw(c->sock, msg, total, fds, nfds);
	free(msg);
	return h.msg_id;
}

static inline uint16_t send_cmd(struct tclient *c, uint16_t cmd, const void *payload,
			 size_t len, const int *fds, unsigned int nfds)
{
	return send_cmd_flags(c, cmd, payload, len, fds, nfds, 0);
}

/* Read exactly @len bytes (and fds); false at end of stream. */
static inline bool read_full(int sock, void *buf, size_t len, struct treply *r)
{
	size_t done = 0;

	while (done < len) {
		union {
			char buf[CMSG_SPACE(4 * sizeof(int))];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = { (char *)buf + done, len - done };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.buf, .msg_controllen = sizeof(ctl),
		};
		ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);

		if (n <= 0)
			return false;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm;
		     cm = CMSG_NXTHDR(&mh, cm)) {
			unsigned int k = (unsigned int)((cm->cmsg_len -
				CMSG_LEN(0)) / sizeof(int));

			assert_true(r->nfds + k <= 4);
			memcpy(r->fds + r->nfds, CMSG_DATA(cm), k * sizeof(int));
			r->nfds += k;
		}
		done += (size_t)n;
	}
	return true;
}

/* The next message of the server, whatever it is; false at end of
 * stream. */
static inline bool read_msg(struct tclient *c, struct treply *r)
{
	memset(&r->hdr, 0, sizeof(r->hdr));
	r->nfds = 0;
	r->len = 0;
	if (!read_full(c->sock, &r->hdr, sizeof(r->hdr), r))
		return false;
	assert_true(r->hdr.size >= sizeof(r->hdr));
	r->len = r->hdr.size - sizeof(r->hdr);
	assert_true(r->len <= sizeof(r->payload));
	assert_true(read_full(c->sock, r->payload, r->len, r));
	return true;
}

/* The next reply, which must answer message @id; false at end of stream. */
static inline bool recv_reply(struct tclient *c, uint16_t id, struct treply *r)
{
	if (!read_msg(c, r))
		return false;
	assert_int_equal(r->hdr.msg_id, id);
	assert_int_equal(r->hdr.flags & VFU_FLAG_TYPE_MASK, VFU_TYPE_REPLY);
	return true;
}

/*
 * QEMU 11's answer to @r (tclient_remote_dma_qemu): the address and a
 * 32-bit count at payload offset 8, a write's data read at offset 12; a
 * read answered with the same head, the data at 12 and 4 bytes of padding,
 * a write with the bare header. Returns the request's count.
 */
static inline uint64_t tclient_answer_dma_qemu(struct tclient *c,
					       const struct treply *r,
					       uint8_t *ram, uint64_t base,
					       size_t size)
{
	struct vfu_hdr h = r->hdr;
	uint32_t count;
	uint64_t addr;
	uint8_t *out;
	size_t olen = 0;

	assert_true(r->len >= 16);
	memcpy(&addr, r->payload, sizeof(addr));
	memcpy(&count, r->payload + VFU_DMA_QEMU_COUNT, sizeof(count));
	assert_true(addr >= base && count <= size && addr - base <= size - count);
	h.flags = VFU_TYPE_REPLY;
	if (r->hdr.cmd == VFU_CMD_DMA_WRITE) {
		assert_int_equal(r->len, 16 + (size_t)count);
		memcpy(ram + (addr - base), r->payload + VFU_DMA_QEMU_DATA, count);
	} else {
		assert_int_equal(r->hdr.cmd, VFU_CMD_DMA_READ);
		assert_int_equal(r->len, 16);
		olen = 16 + (size_t)count;
	}
	out = calloc(1, sizeof(h) + olen);
	assert_non_null(out);
	h.size = (uint32_t)(sizeof(h) + olen);
	memcpy(out, &h, sizeof(h));
	if (olen) {
		memcpy(out + sizeof(h), r->payload, 12);
		memcpy(out + sizeof(h) + VFU_DMA_QEMU_DATA, ram + (addr - base),
		       count);
	}
	send_raw(c->sock, out, sizeof(h) + olen, NULL, 0);
	free(out);
	return count;
}

/*
 * Answer the server's DMA_READ or DMA_WRITE request @r (already read) from
 * the client memory @ram, which sits at bus address @base (@size bytes),
 * in the specification's layout (QEMU's with tclient_remote_dma_qemu).
 * Returns the request's count.
 */
static inline uint64_t tclient_answer_dma(struct tclient *c,
					  const struct treply *r, uint8_t *ram,
					  uint64_t base, size_t size)
{
	struct vfu_dma_rw rw;
	struct vfu_hdr h = r->hdr;
	uint8_t *out;
	size_t olen;

	assert_int_equal(r->hdr.flags & VFU_FLAG_TYPE_MASK, VFU_TYPE_COMMAND);
	if (tclient_remote_dma_qemu)
		return tclient_answer_dma_qemu(c, r, ram, base, size);
	assert_true(r->len >= sizeof(rw));
	memcpy(&rw, r->payload, sizeof(rw));
	assert_true(rw.addr >= base && rw.count <= size &&
		    rw.addr - base <= size - rw.count);
	h.flags = VFU_TYPE_REPLY;
	if (r->hdr.cmd == VFU_CMD_DMA_WRITE) {
		assert_int_equal(r->len, sizeof(rw) + rw.count);
		memcpy(ram + (rw.addr - base), r->payload + sizeof(rw),
		       rw.count);
		olen = sizeof(rw);
	} else {
		assert_int_equal(r->hdr.cmd, VFU_CMD_DMA_READ);
		assert_int_equal(r->len, sizeof(rw));
		olen = sizeof(rw) + rw.count;
	}
	out = malloc(sizeof(h) + olen);
	assert_non_null(out);
	h.size = (uint32_t)(sizeof(h) + olen);
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), &rw, sizeof(rw));
	if (r->hdr.cmd == VFU_CMD_DMA_READ)
		memcpy(out + sizeof(h) + sizeof(rw), ram + (rw.addr - base),
		       rw.count);
	send_raw(c->sock, out, sizeof(h) + olen, NULL, 0);
	free(out);
	return rw.count;
}

/* The next message of the server, whatever it is (bounded wait); false
 * at the end of the stream. */
static inline bool recv_any(struct tclient *c, struct treply *r)
{
	struct pollfd p = { .fd = c->sock, .events = POLLIN };

	assert_int_equal(poll(&p, 1, 10000), 1);
	return read_msg(c, r);
}

/* A reply must come, and be an error with @err. */
static inline void expect_error(struct tclient *c, uint16_t id, int err)
{
	struct treply *r = malloc(sizeof(*r));

	assert_non_null(r);
	assert_true(recv_reply(c, id, r));
	assert_true(r->hdr.flags & VFU_FLAG_ERROR);
	assert_int_equal(r->hdr.error, err);
	assert_int_equal(r->len, 0);
	assert_int_equal(r->nfds, 0);
	free(r);
}

/* A reply must come without error; returned (caller frees). */
static inline struct treply *expect_ok(struct tclient *c, uint16_t id)
{
	struct treply *r = malloc(sizeof(*r));

	assert_non_null(r);
	assert_true(recv_reply(c, id, r));
	if (r->hdr.flags & VFU_FLAG_ERROR)
		fail_msg("command %u failed: %s", r->hdr.cmd,
			 strerror((int)r->hdr.error));
	return r;
}

static inline void free_reply(struct treply *r)
{
	for (unsigned int i = 0; i < r->nfds; i++)
		close(r->fds[i]);
	free(r);
}

/* A 32-bit REGION_READ of @region at @off, which must succeed. */
static inline uint32_t treg_read32(struct tclient *c, uint32_t region,
				   uint64_t off)
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

/* A REGION_WRITE of @len bytes (at most 8) at @off, which must succeed. */
static inline void treg_write(struct tclient *c, uint32_t region,
			      uint64_t off, const void *v, uint32_t len)
{
	uint8_t buf[sizeof(struct vfu_region_rw) + 8];
	struct vfu_region_rw rw = { off, region, len };

	assert_true(len <= 8);
	memcpy(buf, &rw, sizeof(rw));
	memcpy(buf + sizeof(rw), v, len);
	free_reply(expect_ok(c, send_cmd(c, VFU_CMD_REGION_WRITE, buf,
					 sizeof(rw) + len, NULL, 0)));
}

static inline void treg_write32(struct tclient *c, uint32_t region,
				uint64_t off, uint32_t v)
{
	treg_write(c, region, off, &v, 4);
}

/* DMA_MAP [@addr, @addr + @size) of @fd (-1: none) at offset 0, R/W. */
static inline uint16_t send_dma_map(struct tclient *c, uint64_t addr,
				    uint64_t size, int fd)
{
	struct vfu_dma_map m = {
		.argsz = sizeof(m),
		.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.offset = 0, .addr = addr, .size = size,
	};

	return send_cmd(c, VFU_CMD_DMA_MAP, &m, sizeof(m), &fd, fd >= 0);
}

/* VERSION with QEMU's proposal, checked. */
static inline void negotiate(struct tclient *c)
{
	size_t jl = strlen(QEMU_CAPS) + 1;
	uint8_t *p = malloc(4 + jl);
	struct vfu_version v = { 0, 0 };
	struct treply *r;

	assert_non_null(p);
	memcpy(p, &v, sizeof(v));
	memcpy(p + 4, QEMU_CAPS, jl);
	r = expect_ok(c, send_cmd(c, VFU_CMD_VERSION, p, 4 + jl, NULL, 0));
	free(p);
	assert_true(r->len > 4);
	assert_int_equal(r->payload[r->len - 1], '\0');
	free_reply(r);
}

/*
 * The tests' fixture: a client started (and, for the _negotiated one,
 * past VERSION) as the test's state, stopped again at teardown, which
 * fails the test when it left an fd open (fds_before is per test file).
 */
static int fds_before;

static inline int tclient_setup_opts(void **state,
				     const struct emu_dev_opts *dopts)
{
	struct tclient *c = malloc(sizeof(*c));

	fds_before = open_fds();
	assert_true(fds_before >= 0);
	assert_non_null(c);
	tclient_start_opts(c, dopts);
	*state = c;
	return 0;
}

static inline int tclient_setup(void **state)
{
	struct emu_dev_opts dopts = { .index = 0, .mem_size = 1u << 20 };

	return tclient_setup_opts(state, &dopts);
}

static inline int tclient_setup_negotiated(void **state)
{
	tclient_setup(state);
	negotiate(*state);
	return 0;
}

/* The same for a device that presents MSI (ipu-emu --msi). */
static inline int tclient_setup_msi_negotiated(void **state)
{
	struct emu_dev_opts dopts = { .mem_size = 1u << 20, .msi = true };

	tclient_setup_opts(state, &dopts);
	negotiate(*state);
	return 0;
}

static inline int tclient_teardown(void **state)
{
	tclient_stop(*state);
	free(*state);
	assert_int_equal(open_fds(), fds_before);
	return 0;
}

/*
 * The peer closed: a read sees end of stream, or ECONNRESET (Linux's word
 * for a peer that closed with bytes of ours unread), within a bounded wait.
 */
static inline bool peer_closed(int sock)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	ssize_t n;
	char b;

	if (poll(&p, 1, 10000) != 1)
		return false;
	n = recv(sock, &b, 1, MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno == ECONNRESET);
}

static inline int make_eventfd(void)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	assert_true(fd >= 0);
	return fd;
}

/* The eventfd's counter (0 when nothing was signalled). */
static inline uint64_t eventfd_count(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/*
 * Map BAR2 through the fd the server hands out with its REGION_INFO, which
 * is left in @ri. Unmap with munmap(p, ri->size).
 */
static inline uint8_t *tbar2_map(struct tclient *c, struct vfio_region_info *ri)
{
	struct treply *r;
	uint8_t *p;

	memset(ri, 0, sizeof(*ri));
	ri->argsz = 256;
	ri->index = VFIO_PCI_BAR2_REGION_INDEX;
	r = expect_ok(c, send_cmd(c, VFU_CMD_DEVICE_GET_REGION_INFO, ri,
				  sizeof(*ri), NULL, 0));
	memcpy(ri, r->payload, sizeof(*ri));
	assert_int_equal(r->nfds, 1);
	p = mmap(NULL, ri->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fds[0],
		 (off_t)ri->offset);
	assert_true(p != MAP_FAILED);
	free_reply(r);
	return p;
}

#endif /* VFU_CLIENT_H */
