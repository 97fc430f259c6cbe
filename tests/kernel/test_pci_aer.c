// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_aer.c - PCIe errors reported through AER, injected with the
 * kernel's aer_inject (/dev/aer_inject, Documentation/PCI/pcieaer-howto.rst)
 * into the rig's first IPU, each while a launch is in flight (held by the
 * model's hold_launches) and a thread runs buffer round trips on the
 * same file (a device has one owner file):
 *  - a correctable error (Bad TLP) is counted (aer_dev_correctable) and
 *    nothing else happens: the launch completes OK, no transfer fails;
 *  - an uncorrectable non-fatal one (Completion Timeout, non-fatal by the
 *    function's reset severity) goes through error_detected(normal),
 *    mmio_enabled and resume: no reset, the launch completes OK;
 *  - a fatal one (Malformed TLP) freezes the link: the AER core resets the
 *    Root Port's secondary bus, the driver's slot_reset brings the
 *    function back; the launch in flight fails with -EIO (uapi: "the
 *    device was reset meanwhile"), a transfer in flight succeeds or fails
 *    with -EIO, and the file carries on.
 * After each: a buffer round trip and a launch on the file opened before
 * are right, the IPU keeps its number, device memory in use is what it was,
 * reset_count moved only for a fatal one, and the kernel log has no WARNING,
 * BUG or Oops. aer_inject stands in for the function's and the Root
 * Port's AER registers (ipu-emu's own, docs/hardware.md 1.2, have no way
 * to signal QEMU's Root Port). Skipped without PCI IPUs, ipu-emu's control
 * port or a kernel with aer_inject (CONFIG_PCIEAER_INJECT).
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>

#include "kreset.h"

#define AER_INJECT_DEV	"/dev/aer_inject"
#define UE_CMPL_TIMEOUT	(1u << 14)	/* non-fatal at reset (hardware.md 1.2) */
#define UE_MALFORMED	(1u << 18)	/* fatal at reset */
#define CE_BAD_TLP	(1u << 6)
/* Safety limit of a recovery: a KASAN guest on TCG is slow. */
#define AER_WAIT_S	120
#define XFER_LEN	(64u << 10)

/* aer_inject's write() argument (drivers/pci/pcie/aer_inject.c). */
struct aer_error_inj {
	uint8_t bus;
	uint8_t dev;
	uint8_t fn;
	uint32_t uncor_status;
	uint32_t cor_status;
	uint32_t header_log0;
	uint32_t header_log1;
	uint32_t header_log2;
	uint32_t header_log3;
	uint32_t domain;
};

/* Skip unless the kernel has aer_inject; its fd, tracked. */
static int aer_inject_open(void)
{
	int fd = open(AER_INJECT_DEV, O_WRONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		print_message("no " AER_INJECT_DEV " (kernel without "
			      "CONFIG_PCIEAER_INJECT, or aer_inject not loaded): skipped\n");
		kt_skip();
	}
	if (fd < 0)
		fail_msg(AER_INJECT_DEV ": %s", strerror(errno));
	kt_track(KT_FD)->fd = fd;
	return fd;
}

/* Inject @uncor/@cor status bits into @bdf; fails with aer_inject's why. */
static void aer_inject(int fd, const char *bdf, uint32_t uncor, uint32_t cor)
{
	struct aer_error_inj e = { .uncor_status = uncor, .cor_status = cor };
	unsigned int dom, bus, dev, fn;
	ssize_t n;

	assert_int_equal(sscanf(bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn), 4);
	e.domain = dom;
	e.bus = (uint8_t)bus;
	e.dev = (uint8_t)dev;
	e.fn = (uint8_t)fn;
	n = write(fd, &e, sizeof(e));
	if (n < 0 && errno == EPROTONOSUPPORT)
		fail_msg("aer_inject: %s or its Root Port has no AER capability, "
			 "or the Root Port's AER service is not initialized", bdf);
	if (n < 0 && errno == ENODEV)
		fail_msg("aer_inject: no AER service on %s's Root Port (native AER not granted by _OSC?)", bdf);
	if (n < 0)
		fail_msg("aer_inject %s: %s", bdf, strerror(errno));
	assert_int_equal(n, (ssize_t)sizeof(e));
}

/* TOTAL_ERR_COR of @bdf's aer_dev_correctable. */
static unsigned long total_cor(const char *bdf)
{
	char path[PATH_MAX], buf[2048], *p;
	ssize_t n;
	int fd;

	/* All of it (kt_read_file() keeps the first line only). */
	fn_path(path, sizeof(path), bdf, "aer_dev_correctable");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("%s: %s (the function's AER capability not seen?)", path,
			 strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	p = strstr(buf, "TOTAL_ERR_COR ");
	assert_non_null(p);
	return strtoul(p + strlen("TOTAL_ERR_COR "), NULL, 10);
}

/*
 * Until the kernel log (@klog, from kt_klog_from_now()) has a record with
 * one of @want, or, when @bdf, @bdf's correctable count passes @cor:
 * woken by each new record, and checking again each second (the AER core
 * may rate-limit its lines), AER_WAIT_S at most. The record found, or "".
 */
static void wait_aer(int klog, const char *const *want, size_t n,
		     const char *bdf, unsigned long cor, char *line, size_t len)
{
	struct pollfd p = { .fd = klog, .events = POLLIN };
	time_t end = time(NULL) + AER_WAIT_S;

	line[0] = '\0';
	for (;;) {
		if (n && kt_klog_find(klog, want, n, line, len))
			return;
		if (bdf && total_cor(bdf) > cor)
			return;
		if (time(NULL) > end)
			fail_msg("no end of the AER handling within %d s", AER_WAIT_S);
		(void)poll(&p, 1, 1000);
	}
}

/* No WARNING, BUG or Oops in @klog since it was opened. */
static void assert_klog_clean(int klog)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Oops", "general protection fault",
		"INFO: task", "lockdep", "KASAN",
	};
	char line[512];

	if (kt_klog_find(klog, bad, KT_ARRAY_SIZE(bad), line, sizeof(line)))
		fail_msg("kernel log: %s", line);
}

/*
 * Round trips of XFER_LEN bytes on the test's file (a device has one
 * owner file: a thread of the owner, not another process) until @stop,
 * then one more, which must succeed. Each transfer before succeeds or
 * fails with -EIO (what a reset ends: uapi); a read that succeeds after a
 * write that did gives the bytes back. @result: 0, or the failed check.
 */
struct xfer_load {
	pthread_t thread;
	int fd;
	uint32_t handle;
	atomic_bool stop;
	int result;
	unsigned long trips;
};

static void *xfer_thread(void *arg)
{
	static uint8_t out[XFER_LEN], in[XFER_LEN];
	struct xfer_load *x = arg;
	uint32_t seed = 1;
	bool last;
	int r;

	for (;; seed++, x->trips++) {
		last = atomic_load(&x->stop);
		kt_fill(out, sizeof(out), seed);
		r = kt_write_bo(x->fd, x->handle, 0, out, sizeof(out));
		if (!r)
			r = kt_read_bo(x->fd, x->handle, 0, in, sizeof(in));
		if (last) {
			x->result = r ? r : kt_check(in, sizeof(in), seed) != -1 ? 1 : 0;
			return NULL;
		}
		if (r && r != -EIO) {
			x->result = r;
			return NULL;
		}
		if (!r && kt_check(in, sizeof(in), seed) != -1) {
			x->result = 2;
			return NULL;
		}
	}
}

static const char *const recovered[] = {
	"recovered from the PCIe error", "device recovery failed",
};

/*
 * Inject @uncor/@cor into the first IPU while a launch is held and a child
 * moves buffers; returns the held launch's status once the AER handling is
 * over and the hold lifted. The file, the child's last round trip, a
 * round trip and a launch afterwards must work; the log must stay clean.
 */
static int inject_under_load(uint32_t uncor, uint32_t cor, uint64_t resets)
{
	int fd = ke_open_first(), n = ipu_of(ipus[0]), inj, klog, status;
	struct xfer_load x = { .fd = fd };
	uint8_t out[4096], in[4096];
	unsigned long cor0 = 0;
	char line[512];
	uint64_t held;
	struct ipu_info before;
	uint32_t h;

	inj = aer_inject_open();
	if (cor)
		cor0 = total_cor(ipus[0]);
	klog = kt_klog_from_now();
	x.handle = kt_bo(fd, XFER_LEN, NULL);
	assert_int_equal(pthread_create(&x.thread, NULL, xfer_thread, &x), 0);
	ke_fault(0, "hold_launches=1");
	held = kr_launch(fd);
	/* With every buffer of the test's in use (the launch's too). */
	before = kt_info(fd);

	aer_inject(inj, ipus[0], uncor, cor);
	if (uncor)
		wait_aer(klog, recovered, KT_ARRAY_SIZE(recovered), NULL, 0,
			 line, sizeof(line));
	else
		wait_aer(klog, NULL, 0, ipus[0], cor0, line, sizeof(line));
	if (strstr(line, "device recovery failed"))
		fail_msg("the AER core could not recover %s: %s", ipus[0], line);

	ke_fault(0, "clear");
	status = kr_wait(fd, held);
	atomic_store(&x.stop, true);
	assert_int_equal(pthread_join(x.thread, NULL), 0);
	if (x.result)
		fail_msg("round trips during the error: %d after %lu", x.result,
			 x.trips);

	/* The device works for the file opened before the error, its
	 * memory accounted as before, reset only by a fatal error. */
	assert_int_equal(ipu_of(ipus[0]), n);
	assert_int_equal(kt_info(fd).memory_used, before.memory_used);
	assert_int_equal(kt_info(fd).reset_count, before.reset_count + resets);
	h = kt_bo(fd, sizeof(out), NULL);
	kt_fill(out, sizeof(out), 99);
	assert_int_equal(kt_write_bo(fd, h, 0, out, sizeof(out)), 0);
	assert_int_equal(kt_read_bo(fd, h, 0, in, sizeof(in)), 0);
	assert_int_equal(kt_check(in, sizeof(in), 99), -1);
	assert_int_equal(kr_run(fd), 0);
	assert_klog_clean(klog);
	return status;
}

static void test_a_correctable_error_is_counted_and_changes_nothing(void **state)
{
	(void)state;
	assert_int_equal(inject_under_load(0, CE_BAD_TLP, 0), 0);
}

static void test_a_non_fatal_error_recovers_without_a_reset(void **state)
{
	(void)state;
	assert_int_equal(inject_under_load(UE_CMPL_TIMEOUT, 0, 0), 0);
}

static void test_a_fatal_error_resets_and_the_launch_fails_with_eio(void **state)
{
	(void)state;
	assert_int_equal(inject_under_load(UE_MALFORMED, 0, 1), -EIO);
}

/* Twice in a row: the first recovery left what the second one needs. */
static void test_a_second_fatal_error_recovers_too(void **state)
{
	(void)state;
	assert_int_equal(inject_under_load(UE_MALFORMED, 0, 1), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_a_correctable_error_is_counted_and_changes_nothing,
					  kr_clear_teardown),
		cmocka_unit_test_teardown(test_a_non_fatal_error_recovers_without_a_reset,
					  kr_clear_teardown),
		cmocka_unit_test_teardown(test_a_fatal_error_resets_and_the_launch_fails_with_eio,
					  kr_clear_teardown),
		cmocka_unit_test_teardown(test_a_second_fatal_error_recovers_too,
					  kr_clear_teardown),
	};

	kp_init();
	return KT_RUN(tests);
}
