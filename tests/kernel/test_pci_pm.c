// SPDX-License-Identifier: GPL-2.0
/*
 * test_pci_pm.c - system sleep of the PCIe IPUs (ipu_pci_pm.c), through
 * the kernel's pm_test (CONFIG_PM_DEBUG: /sys/power/pm_test) and
 * suspend-to-idle: "devices" runs the drivers' suspend and resume,
 * "platform" also the late and noirq phases, where the PCI core saves
 * config space and puts the function in D3hot (docs/hardware.md 1.2),
 * and restores it. The whole guest sleeps: every IPU, the simulated ones
 * and ipu-simd with it, but for the rig's virtio serial device, unbound
 * meanwhile (rig_ports_unbind()). Across each:
 *  - a buffer written by a transfer and one written through a mapping
 *    read back the same (device memory is kept across D3hot), on the
 *    file opened before;
 *  - the MLP launched after resume runs, its output the model's;
 *  - hwmon's temp1_input reads; the kernel log has no driver line and no
 *    WARNING, BUG or KASAN;
 *  - a launch on the device at suspend that does not finish (ipu-emu's
 *    hold_launches) fails with -EIO once suspend has given it its time,
 *    and the next one runs;
 *  - a function that loses its power in the sleep (ipu-emu's power_loss:
 *    D3cold, hibernation's power-off) comes back as after an FLR: the
 *    MLP runs, the launch the suspend stopped fails with -EIO, and its
 *    buffers, kept by their handles and mappings, read zeros (device
 *    memory is initialised at power-on, docs/hardware.md 1.2: what they
 *    held is lost); the kernel log has no driver line;
 *  - a reset at resume that fails (ipu-emu's ignore_reset, no FLR
 *    possible) leaves the DMA rings working: the next transfer enables
 *    the ring suspend stopped, and moves its bytes;
 *  - transfers in flight at suspend, from a process looping over them
 *    (the freezer lets each return first) or queued through io_uring
 *    (the driver's workqueue runs them: suspend finds one on the ring
 *    and others waiting), all complete with their data intact: none
 *    fails, none hangs.
 * .shutdown (reboot, kexec) ends the boot: `test_pci_pm --shutdown-load`
 * (tests/kernel/guest-init, last before its reboot) leaves work in flight
 * on the first function (a process streaming transfers, a launch ipu-emu
 * holds), says "IPU-SHUTDOWN-LOAD ready" and waits for the reboot;
 * ipu-emu logs the state each function was left in at its client's
 * disconnect, and scripts/kernel-check judges it ("shutdown").
 * Skipped without PCI IPUs, ipu-emu's control port, /sys/power/pm_test
 * or suspend-to-idle.
 */
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "kreset.h"
#include "kuring.h"

#define PM_TEST "/sys/power/pm_test"
#define PM_STATE "/sys/power/state"
#define PM_DELAY "/sys/module/suspend/parameters/pm_test_delay"
#define VIRTIO_PCI "/sys/bus/pci/drivers/virtio-pci"
/* A bound on the control port's answer: ipu-emu answers at once. */
#define PORT_WAIT_MS 10000
#define BUF_LEN (1u << 20)
/* Sleeps while the transfers run: enough for some to cross each one. */
#define XFER_CYCLES 3
/* io_uring transfers queued before a sleep: the driver's workqueue runs them. */
#define URING_XFERS 8
#define URING_LEN (4u << 20)

static void pm_require(void)
{
	char buf[256];

	require_ipus();
	ke_require();
	if (access(PM_TEST, W_OK)) {
		print_message("no %s (a kernel without CONFIG_PM_DEBUG): skipped\n",
			      PM_TEST);
		kt_skip();
	}
	if (kt_read_file(PM_STATE, buf, sizeof(buf)) || !strstr(buf, "freeze")) {
		print_message("%s offers no suspend-to-idle (\"%s\"): skipped\n",
			      PM_STATE, buf);
		kt_skip();
	}
}

/*
 * Whether ipu-emu's control port answers "status" within PORT_WAIT_MS:
 * the guest's virtio serial device must come back from the sleep too.
 */
static bool port_answers(void)
{
	struct pollfd p = { .fd = ke_fd, .events = POLLOUT };
	char c = 0;

	if (poll(&p, 1, PORT_WAIT_MS) != 1 || write(ke_fd, "status\n", 7) != 7)
		return false;
	p.events = POLLIN;
	while (c != '\n')
		if (poll(&p, 1, PORT_WAIT_MS) != 1 || read(ke_fd, &c, 1) != 1)
			return false;
	return true;
}

/*
 * The PCI function of the virtio serial device behind the control port,
 * into @bdf: the path component before its "virtioN".
 */
static void port_function(char *bdf, size_t len)
{
	char path[PATH_MAX], name[64], real[PATH_MAX], *v, *b;
	struct dirent *de;
	DIR *d = opendir(KE_PORTS);

	assert_non_null(d);
	bdf[0] = '\0';
	while ((de = readdir(d)) && !bdf[0]) {
		snprintf(path, sizeof(path), KE_PORTS "/%s/name", de->d_name);
		if (kt_read_file(path, name, sizeof(name)) || strcmp(name, KE_NAME))
			continue;
		snprintf(path, sizeof(path), KE_PORTS "/%s", de->d_name);
		if (!realpath(path, real) || !(v = strstr(real, "/virtio")))
			break;
		*v = '\0';
		b = strrchr(real, '/');
		snprintf(bdf, len, "%s", b ? b + 1 : "");
	}
	closedir(d);
	if (!bdf[0])
		fail_msg("no PCI function behind the virtio port " KE_NAME);
}

/*
 * The rig's virtio serial device (ipu-emu's control port, the hot-plug
 * relay's) sits the sleeps out unbound: with 7.3 guests of QEMU 11 it
 * answers nothing after a suspend-to-idle, which would leave this and
 * every later test of the boot without the model's control port. An
 * unbound PCI function is left alone by the PM core (no D3hot either).
 * Its driver's unbind and bind reset it. Into @bdf: the function.
 */
static void rig_ports_unbind(char *bdf, size_t len)
{
	port_function(bdf, len);
	close(ke_fd);
	ke_fd = -1;
	assert_int_equal(kt_write_file(VIRTIO_PCI "/unbind", bdf), 0);
}

/* Bind it again; the ports come as the host announces them. */
static void rig_ports_bind(const char *bdf)
{
	int i;

	assert_int_equal(kt_write_file(VIRTIO_PCI "/bind", bdf), 0);
	/*
	 * A bound, not a pause: the port's node comes when the host names
	 * it. 60 s, as the other waits of a TCG (KASAN) guest are bounded.
	 */
	for (i = 0; i < 600 && !ke_open(); i++)
		usleep(100 * 1000);
	if (ke_fd < 0 || !port_answers())
		fail_msg("ipu-emu's control port did not come back after the sleep");
}

/*
 * Suspend-to-idle the guest as far as pm_test @mode goes, and back: the
 * write returns once every device resumed. pm_test's delay (5 s by
 * default, a busy wait) is set to none meanwhile, and the rig's virtio
 * serial device is unbound; ipu-emu's control port answers after.
 */
static void pm_cycle(const char *mode)
{
	char delay[32] = "", bdf[64];
	int err;

	(void)kt_read_file(PM_DELAY, delay, sizeof(delay));
	if (delay[0])
		assert_int_equal(kt_write_file(PM_DELAY, "0"), 0);
	assert_int_equal(kt_write_file(PM_TEST, mode), 0);
	rig_ports_unbind(bdf, sizeof(bdf));
	err = kt_write_file(PM_STATE, "freeze");
	rig_ports_bind(bdf);
	assert_int_equal(kt_write_file(PM_TEST, "none"), 0);
	if (delay[0])
		assert_int_equal(kt_write_file(PM_DELAY, delay), 0);
	if (err)
		fail_msg("freeze with pm_test %s: %s", mode, strerror(-err));
}

/* temp1_input of the first function reads a number. */
static void assert_hwmon_reads(void)
{
	char pat[PATH_MAX], buf[64];
	glob_t g;

	fn_path(pat, sizeof(pat), ipus[0], "hwmon/hwmon*/temp1_input");
	if (glob(pat, 0, NULL, &g) || !g.gl_pathc)
		fail_msg("%s has no hwmon temp1_input", ipus[0]);
	assert_int_equal(kt_read_file(g.gl_pathv[0], buf, sizeof(buf)), 0);
	globfree(&g);
	if (buf[0] < '0' || buf[0] > '9')
		fail_msg("temp1_input reads \"%s\"", buf);
}

/*
 * The MLP on attached @fd, its output compared with the model's, which is
 * computed once: the model's device stays attached until the teardown.
 */
static void assert_the_mlp_runs(int fd)
{
	static float want[8];
	static bool have_want;
	struct kp_prog *p = kp_mlp(1);
	const struct ipu_exe_stream *in = &p->exe->streams[p->in[0]];
	const struct ipu_exe_stream *out = &p->exe->streams[p->out[0]];
	float x[16], y[8];
	struct kp_raw r = { .fd = fd };
	struct kp_setup m;
	char msg[256];
	int i;

	kp_launch_bufs(fd, p->image, p->len, p->exe->arena_size, &r.l);
	kp_weights(p, 0, kp_raw_put_arena, &r);
	for (i = 0; i < 16; i++)
		x[i] = (float)(i % 7) / 4.0f - 0.75f;
	assert_int_equal(kt_write_bo(fd, r.l.arena_handle, in->slots_offset,
				     x, sizeof(x)), 0);
	r.l.fence = 0;
	assert_int_equal(kt_ioctl(fd, IPU_IOCTL_LAUNCH, &r.l), 0);
	assert_int_equal(kr_wait(fd, r.l.fence), 0);
	assert_int_equal(kt_read_bo(fd, r.l.arena_handle, out->slots_offset,
				    y, sizeof(y)), 0);
	if (!have_want) {
		kp_open(&m, p, (const char *[]){ "model:0" });
		assert_int_equal(kp_run(&m, (void *[]){ x }, (void *[]){ want },
					msg, sizeof(msg)), 0);
		have_want = true;
	}
	assert_memory_equal(y, want, sizeof(y));
	kp_free(p);
}

static void assert_klog_clean(int klog)
{
	static const char *const bad[] = { "KASAN", "BUG", "WARNING",
					   "general protection", "Oops",
					   "Call Trace", "ipu " };
	char line[512];

	if (kt_klog_find(klog, bad, KT_ARRAY_SIZE(bad), line, sizeof(line)))
		fail_msg("across the sleep the kernel log says %s", line);
}

/*
 * The first function's attached file (returned), with two buffers of
 * BUF_LEN bytes: one mapped (*@map) and filled through the mapping with
 * pattern @seed, one (*@bo) written by a transfer from @buf with pattern
 * @seed + 1; and the MLP run once.
 */
static int buffers_before(uint32_t seed, uint8_t **map, uint32_t *bo,
			  uint8_t *buf)
{
	struct ipu_bo_create mapped;
	int fd;

	pm_require();
	fd = ke_open_first();
	*map = kr_mapped_bo(fd, BUF_LEN, seed, &mapped);
	*bo = kt_bo(fd, BUF_LEN, NULL);
	kt_fill(buf, BUF_LEN, seed + 1);
	assert_int_equal(kt_write_bo(fd, *bo, 0, buf, BUF_LEN), 0);
	assert_the_mlp_runs(fd);
	return fd;
}

/* Buffers, a launch and hwmon on the first function across @mode. */
static void everything_survives(const char *mode)
{
	uint8_t *map, *buf = kt_alloc(BUF_LEN);
	uint32_t bo;
	int fd, klog;

	fd = buffers_before(61, &map, &bo, buf);
	memset(buf, 0, BUF_LEN);

	klog = kt_klog_from_now();
	pm_cycle(mode);

	assert_int_equal(kt_check(map, BUF_LEN, 61), -1);
	assert_int_equal(kt_read_bo(fd, bo, 0, buf, BUF_LEN), 0);
	assert_pattern(buf, BUF_LEN, 62);
	assert_the_mlp_runs(fd);
	assert_hwmon_reads();
	assert_klog_clean(klog);
}

static void test_everything_survives_the_devices_phase(void **state)
{
	(void)state;
	everything_survives("devices");
}

static void test_everything_survives_d3hot(void **state)
{
	(void)state;
	everything_survives("platform");
}

static void test_a_launch_that_does_not_finish_fails_with_eio(void **state)
{
	uint64_t held;
	int fd;

	(void)state;
	pm_require();
	fd = ke_open_first();
	ke_fault(0, "hold_launches=1");
	held = kr_launch(fd);
	pm_cycle("devices");
	ke_fault(0, "clear");
	assert_int_equal(kr_wait(fd, held), -EIO);
	assert_int_equal(kr_run(fd), 0);
}

/*
 * The platform cuts the first function's power in D3hot: resume finds
 * FW_STATUS OFF and brings it back as after an FLR (firmware from the
 * image kept since probe). Buffers made before read zeros after, through
 * a transfer and through a mapping made before; the held launch fails.
 */
static void test_power_lost_in_sleep_is_recovered(void **state)
{
	uint8_t *map, *buf = kt_alloc(BUF_LEN), *zero = kt_alloc(BUF_LEN);
	uint64_t held;
	uint32_t bo;
	int fd, klog;

	(void)state;
	fd = buffers_before(63, &map, &bo, buf);
	ke_fault(0, "hold_launches=1");
	held = kr_launch(fd);
	ke_fault(0, "power_loss=1");

	klog = kt_klog_from_now();
	pm_cycle("platform");
	ke_fault(0, "clear");

	assert_int_equal(kr_wait(fd, held), -EIO);
	assert_the_mlp_runs(fd);
	memset(zero, 0, BUF_LEN);
	if (memcmp(map, zero, BUF_LEN))
		fail_msg("a mapped buffer kept bytes across a power loss");
	assert_int_equal(kt_read_bo(fd, bo, 0, buf, BUF_LEN), 0);
	if (memcmp(buf, zero, BUF_LEN))
		fail_msg("a buffer read back bytes other than zeros after a power loss");
	assert_hwmon_reads();
	assert_klog_clean(klog);
}

#define RESUME_FAILED "the rings did not come back after sleep"
static int failed_fd = -1;

/*
 * The reset at resume fails (the soft reset ignored, no FLR possible):
 * nothing was reset, but the DMA rings are stopped all the same, by
 * suspend, and come back for the next transfer, which moves its bytes.
 * A ring left stopped fails the transfer with -ETIMEDOUT after the normal
 * dma_timeout_ms: the transfers are normal ones, and a deadline lowered
 * to fail that sooner would bound them by a time a slow guest (a debug
 * kernel under TCG, the machine loaded) may need.
 */
static void test_a_failed_reset_at_resume_leaves_dma_working(void **state)
{
	uint8_t *buf = kt_alloc(BUF_LEN), *back = kt_alloc(BUF_LEN);
	char line[512];
	uint32_t bo;
	int klog;

	(void)state;
	pm_require();
	failed_fd = ke_open_first();
	bo = kt_bo(failed_fd, BUF_LEN, NULL);
	kt_fill(buf, BUF_LEN, 65);
	ke_fault(0, "ignore_reset=1");
	kr_reset_methods(ipus[0], "\n");

	klog = kt_klog_from_now();
	pm_cycle("devices");
	kr_reset_methods(ipus[0], "default");
	ke_fault(0, "clear");
	/* Else the test would prove nothing. */
	if (!kt_klog_find(klog, (const char *const[]){ RESUME_FAILED }, 1,
			  line, sizeof(line)))
		fail_msg("the reset at resume did not fail");

	assert_int_equal(kt_write_bo(failed_fd, bo, 0, buf, BUF_LEN), 0);
	assert_int_equal(kt_read_bo(failed_fd, bo, 0, back, BUF_LEN), 0);
	if (memcmp(buf, back, BUF_LEN))
		fail_msg("the buffer read back is not the one written");
}

/* The reset methods as they were; a reset that works. */
static int failed_resume_teardown(void **state)
{
	if (failed_fd >= 0) {
		kr_reset_methods(ipus[0], "default");
		ke_fault(0, "clear");
		/* The command queue suspend stopped comes back with it. */
		kt_ioctl(failed_fd, IPU_IOCTL_RESET, &(struct ipu_reset){ 0 });
	}
	failed_fd = -1;
	return kt_teardown(state);
}

static volatile sig_atomic_t xfer_stop;

static void on_usr1(int sig)
{
	(void)sig;
	xfer_stop = 1;
}

/*
 * The child: round trips through a buffer on @fd (the first function's
 * attached file; -1: its own) until SIGUSR1, each with its own pattern;
 * a byte in @ready after the first. Its exit status says what failed:
 * 0 none, 1 a transfer, 2 the data.
 */
static int xfer_loop(int fd, int ready)
{
	uint8_t *src = malloc(BUF_LEN), *dst = malloc(BUF_LEN);
	uint32_t bo = kt_bo(fd, BUF_LEN, NULL), seed;

	if (!src || !dst)
		return 3;
	for (seed = 1; !xfer_stop; seed++) {
		kt_fill(src, BUF_LEN, seed);
		if (kt_write_bo(fd, bo, 0, src, BUF_LEN) ||
		    kt_read_bo(fd, bo, 0, dst, BUF_LEN))
			return 1;
		if (memcmp(src, dst, BUF_LEN))
			return 2;
		if (seed == 1 && write(ready, "", 1) != 1)
			return 3;
	}
	return 0;
}

/*
 * A child running xfer_loop() on @fd (-1: a file of its own), returned
 * once its first round trip is done.
 */
static pid_t xfer_loop_start(int fd)
{
	int pipefd[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		_exit(xfer_loop(fd >= 0 ? fd : ke_open_first(), pipefd[1]));
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	close(pipefd[0]);
	return pid;
}

static void test_transfers_in_flight_complete(void **state)
{
	int status, i;
	pid_t pid;

	(void)state;
	pm_require();
	signal(SIGUSR1, on_usr1);
	pid = xfer_loop_start(-1);
	for (i = 0; i < XFER_CYCLES; i++)
		pm_cycle(i % 2 ? "platform" : "devices");
	kill(pid, SIGUSR1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	signal(SIGUSR1, SIG_DFL);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("the transfers' process ended with status %#x (1: a transfer failed, 2: its data)",
			 status);
}

/*
 * Transfers submitted through io_uring run on the driver's workqueue,
 * which the freezer does not stop: suspend finds one on a DMA ring and
 * others waiting. Each completes (0) and moved its bytes, in @mode.
 */
static void uring_transfers_cross(const char *mode)
{
	uint8_t *host[URING_XFERS];
	uint32_t bo[URING_XFERS];
	int res[URING_XFERS], fd;
	struct io_uring ring;
	unsigned int i;

	pm_require();
	fd = ke_open_first();
	ku_ring(&ring, URING_XFERS, false);
	for (i = 0; i < URING_XFERS; i++) {
		host[i] = kt_alloc(URING_LEN);
		kt_fill(host[i], URING_LEN, 70 + i);
		bo[i] = kt_bo(fd, URING_LEN, NULL);
		ku_xfer(&ring, fd, bo[i], 0, host[i], URING_LEN,
			IPU_XFER_TO_DEVICE, i);
		res[i] = 1;
	}
	assert_int_equal(io_uring_submit(&ring), URING_XFERS);
	pm_cycle(mode);
	ku_reap(&ring, URING_XFERS, res, URING_XFERS);
	io_uring_queue_exit(&ring);
	for (i = 0; i < URING_XFERS; i++) {
		if (res[i])
			fail_msg("transfer %u across the sleep: %s", i,
				 strerror(-res[i]));
		memset(host[i], 0, URING_LEN);
		assert_int_equal(kt_read_bo(fd, bo[i], 0, host[i], URING_LEN), 0);
		assert_pattern(host[i], URING_LEN, 70 + i);
	}
}

static void test_uring_transfers_cross_the_devices_phase(void **state)
{
	(void)state;
	uring_transfers_cross("devices");
}

static void test_uring_transfers_cross_d3hot(void **state)
{
	(void)state;
	uring_transfers_cross("platform");
}

/*
 * Not a test of its own (guest-init runs it before its reboot): work in
 * flight on the first function for ipu_pci_shutdown() to stop, a launch
 * held by the model and a child streaming transfers, kept until the
 * reboot ends both processes; "IPU-SHUTDOWN-LOAD ready" says when.
 */
static void shutdown_load(void **state)
{
	uint64_t held;
	pid_t pid;
	int fd;

	(void)state;
	/* One file: the function takes one attached owner. */
	fd = ke_open_first();
	pid = xfer_loop_start(fd);
	ke_fault(0, "hold_launches=1");
	held = kr_launch(fd);
	printf("IPU-SHUTDOWN-LOAD ready: %s, launch %llu held, transfers of pid %d\n",
	       ipus[0], (unsigned long long)held, (int)pid);
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest load[] = {
		cmocka_unit_test(shutdown_load),
	};
	const struct CMUnitTest tests[] = {
		KT_TEST(test_everything_survives_the_devices_phase),
		KT_TEST(test_everything_survives_d3hot),
		cmocka_unit_test_teardown(test_a_launch_that_does_not_finish_fails_with_eio,
					  kr_clear_teardown),
		cmocka_unit_test_teardown(test_power_lost_in_sleep_is_recovered,
					  kr_clear_teardown),
		cmocka_unit_test_teardown(test_a_failed_reset_at_resume_leaves_dma_working,
					  failed_resume_teardown),
		KT_TEST(test_transfers_in_flight_complete),
		KT_TEST(test_uring_transfers_cross_the_devices_phase),
		KT_TEST(test_uring_transfers_cross_d3hot),
	};

	kp_init();
	if (argc == 2 && !strcmp(argv[1], "--shutdown-load"))
		return KT_RUN(load);
	return KT_RUN(tests);
}
