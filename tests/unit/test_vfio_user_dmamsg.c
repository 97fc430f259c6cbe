// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * test_vfio_user_dmamsg.c - the device's DMA to client memory the server
 * cannot map, through VFIO_USER_DMA_READ / DMA_WRITE requests the client
 * answers: memory shared as an unsealed memfd and with no fd at all,
 * transfers cut to the client's max_data_xfer_size, a device call on the
 * server thread that waits for a reply (no deadlock), and a client that
 * never answers (the access fails as an IOMMU fault would, the client is
 * dropped). The device is the test double; its DMA is the host ops, run
 * from a thread of the test as the device's own threads would.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_emu_dev.h"
#include "vfu_client.h"

#define RAM_ADDR	0x40000000ull
#define RAM_SIZE	(64u * 1024)

/* The client's memory: what it answers DMA requests from. */
static uint8_t ram[RAM_SIZE];

/* A DMA of the device, run on its own thread. */
struct dma_call {
	struct tclient *c;
	uint64_t addr;
	uint8_t *buf;
	size_t len;
	bool write;
	bool on_server;		/* through vfu_server_call() */
	int ret;
	pthread_t thread;
};

static int dma_in_device_call(struct emu_dev *dev, void *arg)
{
	struct dma_call *d = arg;

	return d->write ? dev->host.dma_write(dev->host.ctx, d->addr, d->buf,
					      d->len) :
			  dev->host.dma_read(dev->host.ctx, d->addr, d->buf,
					     d->len);
}

static void *dma_thread(void *arg)
{
	struct dma_call *d = arg;
	struct emu_host_ops *h = &d->c->host;

	if (d->on_server)
		d->ret = vfu_server_call(d->c->srv, dma_in_device_call, d);
	else
		d->ret = d->write ? h->dma_write(h->ctx, d->addr, d->buf,
						 d->len) :
				    h->dma_read(h->ctx, d->addr, d->buf,
						d->len);
	return NULL;
}

static void dma_start(struct dma_call *d)
{
	assert_int_equal(pthread_create(&d->thread, NULL, dma_thread, d), 0);
}

static int dma_end(struct dma_call *d)
{
	pthread_join(d->thread, NULL);
	return d->ret;
}

/* Answer one DMA request from ram[]; its count. */
static uint64_t answer_one(struct tclient *c)
{
	struct treply *r = malloc(sizeof(*r));
	uint64_t n;

	assert_non_null(r);
	assert_true(recv_any(c, r));
	n = tclient_answer_dma(c, r, ram, RAM_ADDR, RAM_SIZE);
	free(r);
	return n;
}

/* Answer requests until @len bytes went, each at most @max. */
static void answer(struct tclient *c, size_t len, uint64_t max)
{
	size_t done = 0;

	while (done < len) {
		uint64_t n = answer_one(c);

		assert_true(n <= max);
		done += n;
	}
}

/* VERSION proposing @max_xfer, then DMA_MAP of the client's RAM. */
static void start(struct tclient *c, uint64_t max_xfer, int fd)
{
	char json[128];
	uint8_t p[4 + sizeof(json)] = { 0 };
	int jl = snprintf(json, sizeof(json),
			  "{\"capabilities\":{\"max_data_xfer_size\":%llu}}",
			  (unsigned long long)max_xfer);

	memcpy(p + 4, json, (size_t)jl + 1);
	free_reply(expect_ok(c, send_cmd(c, VFU_CMD_VERSION, p,
					 4 + (size_t)jl + 1, NULL, 0)));
	free_reply(expect_ok(c, send_dma_map(c, RAM_ADDR, RAM_SIZE, fd)));
}

/* Write then read back @len bytes at @off through the client. */
static void write_read_back(struct tclient *c, uint32_t off, size_t len,
			    uint64_t max)
{
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	struct dma_call w = { c, RAM_ADDR + off, src, len, true, false, 0, 0 };
	struct dma_call r = { c, RAM_ADDR + off, dst, len, false, false, 0, 0 };

	assert_non_null(src);
	assert_non_null(dst);
	for (size_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	dma_start(&w);
	answer(c, len, max);
	assert_int_equal(dma_end(&w), 0);
	assert_memory_equal(ram + off, src, len);
	dma_start(&r);
	answer(c, len, max);
	assert_int_equal(dma_end(&r), 0);
	assert_memory_equal(dst, src, len);
	free(src);
	free(dst);
}

/* Memory shared as a memfd not sealed against shrinking. */
static void test_unsealed_memfd_is_reached_by_messages(void **state)
{
	struct tclient *c = *state;
	int fd = memfd_create("unsealed", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, RAM_SIZE), 0);
	start(c, 1u << 20, fd);
	close(fd);
	write_read_back(c, 0x100, 3000, 1u << 20);
}

/* Memory shared with no fd at all; transfers cut to the client's size. */
static void test_fdless_memory_is_reached_in_client_sized_parts(void **state)
{
	struct tclient *c = *state;

	start(c, 4096, -1);
	write_read_back(c, 0x2345, 10000, 4096);
}

/*
 * A device call on the server thread (an FLR would) that waits for a
 * reply: the reply is read all the same, and the call returns.
 */
static void test_a_device_call_waiting_for_a_reply_completes(void **state)
{
	struct tclient *c = *state;
	uint8_t buf[64];
	struct dma_call d = { c, RAM_ADDR + 0x800, buf, sizeof(buf), false,
			      true, 0, 0 };

	start(c, 1u << 20, -1);
	memset(ram + 0x800, 0x6b, sizeof(buf));
	dma_start(&d);
	answer(c, sizeof(buf), 1u << 20);
	assert_int_equal(dma_end(&d), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0x6b);
}

/*
 * A client that takes the request and never answers: the access fails as
 * an IOMMU fault (-EFAULT) within the limit, and the client is dropped.
 */
static void test_a_client_that_never_answers_is_dropped(void **state)
{
	struct tclient *c = *state;
	struct treply *r = malloc(sizeof(*r));
	uint8_t buf[16];
	struct dma_call d = { c, RAM_ADDR, buf, sizeof(buf), false, false, 0,
			      0 };

	assert_non_null(r);
	start(c, 1u << 20, -1);
	dma_start(&d);
	assert_true(recv_any(c, r));
	assert_int_equal(r->hdr.cmd, VFU_CMD_DMA_READ);
	assert_int_equal(dma_end(&d), -EFAULT);
	assert_true(peer_closed(c->sock));
	free(r);
}

/*
 * Without remote DMA (ipu-emu's default, for QEMU's layout differs):
 * the device's DMA to fd-less memory fails as an IOMMU fault would, no
 * request reaches the client, and the client stays served.
 */
static int setup_no_remote(void **state)
{
	int ret;

	tclient_remote_dma = false;
	ret = tclient_setup(state);
	tclient_remote_dma = true;
	return ret;
}

static void test_without_remote_dma_unmappable_memory_faults(void **state)
{
	struct tclient *c = *state;
	uint8_t buf[16];
	struct dma_call d = { c, RAM_ADDR, buf, sizeof(buf), false, false, 0,
			      0 };
	struct pollfd p = { .fd = c->sock, .events = POLLIN };

	start(c, 1u << 20, -1);
	dma_start(&d);
	assert_int_equal(dma_end(&d), -EFAULT);
	assert_int_equal(poll(&p, 1, 0), 0);
	free_reply(expect_ok(c, send_dma_map(c, RAM_ADDR + RAM_SIZE, 4096,
					     -1)));
}

/*
 * QEMU 11's layout (--remote-dma=qemu): its client answers a read with the
 * data at payload offset 12 and takes a write's data from there; the
 * server speaks it, so bytes land unshifted both ways, in client-sized
 * parts, on an unsealed memfd and on fd-less memory.
 */
static int setup_qemu_layout(void **state)
{
	int ret;

	tclient_remote_dma_qemu = true;
	ret = tclient_setup(state);
	tclient_remote_dma_qemu = false;
	return ret;
}

/* The layout back to the specification's, even after a failed test. */
static int teardown_qemu_layout(void **state)
{
	tclient_remote_dma_qemu = false;
	return tclient_teardown(state);
}

static void test_qemu_layout_moves_bytes_unshifted(void **state)
{
	struct tclient *c = *state;
	int fd = memfd_create("unsealed", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, RAM_SIZE), 0);
	tclient_remote_dma_qemu = true;
	start(c, 1u << 20, fd);
	close(fd);
	write_read_back(c, 0x100, 3000, 1u << 20);
	tclient_remote_dma_qemu = false;
}

static void test_qemu_layout_in_client_sized_parts(void **state)
{
	struct tclient *c = *state;

	tclient_remote_dma_qemu = true;
	start(c, 4096, -1);
	write_read_back(c, 0x2345, 10000, 4096);
	tclient_remote_dma_qemu = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, tclient_setup, \
						tclient_teardown)
		T(test_unsealed_memfd_is_reached_by_messages),
		T(test_fdless_memory_is_reached_in_client_sized_parts),
		T(test_a_device_call_waiting_for_a_reply_completes),
		T(test_a_client_that_never_answers_is_dropped),
		cmocka_unit_test_setup_teardown(
			test_without_remote_dma_unmappable_memory_faults,
			setup_no_remote, tclient_teardown),
		cmocka_unit_test_setup_teardown(
			test_qemu_layout_moves_bytes_unshifted,
			setup_qemu_layout, teardown_qemu_layout),
		cmocka_unit_test_setup_teardown(
			test_qemu_layout_in_client_sized_parts,
			setup_qemu_layout, teardown_qemu_layout),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
