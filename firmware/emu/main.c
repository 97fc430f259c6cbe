// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * main.c - ipu-emu: PCIe IPUs (docs/hardware.md) for QEMU guests, one
 * vfio-user server socket per IPU, a control socket for fault injection
 * at run time, a clean stop on SIGTERM/SIGINT.
 *
 * Threads: each IPU's server thread (vfio_user_server.c) is the only one
 * that calls into its device; this main thread serves the control socket
 * and reaches a device through vfu_server_call(). SIGTERM and SIGINT are
 * caught by a handler that writes to a pipe the main loop polls: a
 * handler, not a blocked mask and a signalfd, because OpenBLAS starts its
 * threads before main() and any thread with the signal unblocked would
 * take the default action (exit without removing the sockets).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ipu/hw.h"

#include "emu_dev.h"
#include "vfio_user.h"
#include "vfio_user_dma.h"
#include "vfio_user_sock.h"

#define MAX_IPUS		16
#define MAX_CONTROL_CLIENTS	8
#define CONTROL_LINE_MAX	1024
/* Serial numbers (the DSN capability): "IPUEMU" and the IPU's index. */
#define SERIAL_BASE		0x495055454d550000ull

static const char usage_text[] =
"Usage: ipu-emu [--msi] --socket PATH [[--msi] --socket PATH ...] [OPTION...]\n"
"\n"
"Emulate PCIe IPUs (the device docs/hardware.md specifies) for QEMU guests.\n"
"Each --socket is one IPU, served over the vfio-user protocol to QEMU's\n"
"client, -device '{\"driver\":\"vfio-user-pci\",\"socket\":{\"type\":\"unix\",\n"
"\"path\":\"PATH\"}}' (guest RAM must be shared: -object\n"
"memory-backend-memfd,share=on). The IPUs one process serves form one\n"
"replica group: replicated programs across them run together.\n"
"\n"
"Options:\n"
"  --socket PATH      create the vfio-user socket PATH for the next IPU\n"
"                     (ipu0, ipu1, ... in the order given); a stale socket\n"
"                     there is replaced, any other file is an error\n"
"  --msi              the next --socket's IPU presents an MSI capability\n"
"                     (4 messages, 64-bit) instead of MSI-X\n"
"  --control PATH     create a control socket at PATH: one command per\n"
"                     line, one answer line each (\"ok ...\" or \"error: ...\")\n"
"  --mem-size BYTES   device memory (BAR2) per IPU: a power of two from\n"
"                     1M to 64G, with an optional K, M or G suffix\n"
"                     (default 256M)\n"
"  --faults SPEC      inject faults into every IPU from the start\n"
"  --lenient NAME[,NAME...]\n"
"                     turn a strict (silicon-like) behaviour off in every\n"
"                     IPU, to find which one a failure needs: bme (Bus\n"
"                     Master Enable gates only DMA data, as in v1; the\n"
"                     rest of host memory and interrupts ignore it, and\n"
"                     an FLR writes E_RESET into the status words)\n"
"  --posted-window-us N | rand:N\n"
"                     register writes are posted: a queue or gather ring\n"
"                     disable, a soft reset or a firmware boot finishes up\n"
"                     to N microseconds (0..500000) after the write\n"
"                     returned, and descriptors already fetched may still\n"
"                     complete meanwhile (rand:N: uniform in [0, N] per\n"
"                     write); 0 finishes each before the write returns, as\n"
"                     spec v1 did (default 200)\n"
"  --remote-dma[=spec|qemu]\n"
"                     reach client memory shared without a sealed memfd\n"
"                     with DMA_READ/DMA_WRITE requests, in the vfio-user\n"
"                     specification's layout (spec, the default; QEMU\n"
"                     11.1's) or that of QEMU's patches as posted (qemu:\n"
"                     a 32-bit count, the data at payload offset 12);\n"
"                     without it the device's DMA there faults\n"
"  --trace            log every vfio-user command of every client\n"
"  --log FILE         append log lines (and anything else written to\n"
"                     stderr) to FILE instead of stderr\n"
"  --help             print this help and exit\n"
"\n"
"Once every socket listens, ipu-emu prints \"ipu-emu: ready\" on stdout.\n"
"Each IPU serves one client at a time. When the client is lost (it\n"
"disconnects, its stream breaks or stalls, or the IPU drops it), its DMA\n"
"mappings and interrupt eventfds are dropped and the IPU is reset to its\n"
"power-on state (queues stopped with nothing written to guest memory,\n"
"firmware unloaded, device memory zeroed) before the socket accepts the\n"
"next client. SIGTERM or SIGINT closes every socket, removes the socket\n"
"files and exits with status 0.\n"
"\n"
"Control commands:\n"
"  status             ok, then per IPU: client=connected|listening|retired,\n"
"                     negotiated=yes|no, dma_maps=N, clients=N,\n"
"                     off_bus=yes|no|unknown, stalled=N, rings=M (the\n"
"                     rings enabled: bit q queue q, bit 3 the gather ring;\n"
"                     -errno when unknown) (retired: no new\n"
"                     device memory could be made for a next client, so\n"
"                     none is served)\n"
"  fault ipuN SPEC    inject faults into ipuN at once (SPEC as below)\n"
"  reset ipuN         Function Level Reset of ipuN\n"
"  help               list the commands\n"
"An IPU busy with its client for more than a few seconds answers\n"
"\"error: ... Connection timed out\" (status: off_bus=unknown); a client\n"
"that takes more than 3 seconds to send one message, or to take one\n"
"reply, is dropped.\n"
"\n"
"Fault SPEC: a comma-separated list of name[=value] (docs/hardware.md,\n"
"section 11): fail_dma=K, corrupt_dma=K, hang_launch=K, hang_dma=K,\n"
"ignore_reset=K, bad_writeback=early|beyond|range|behind, hold_launches[=0|1],\n"
"late_completion[=0|1], never_idle[=0|1], power_loss[=0|1], refuse_fw[=0|1], link_speed=S, link_width=W, degrade_link, mem_ce=N, mem_ue=N,\n"
"aer_uncor=B, aer_cor=B (AER status bit B), off_bus, link_down, link_up, clear.\n"
"Counters count from when the fault is set; 1 is the next one.\n"
"An IPU that falls off the bus (off_bus) reads all ones and its client's\n"
"socket is closed; link_down reads all ones and keeps the socket; link_up\n"
"brings it back, in its power-on state.\n"
"\n"
"Exit status: 0 after SIGTERM/SIGINT, 1 on a start-up error, 2 on a usage\n"
"error.\n"
"\n"
"Example:\n"
"  ipu-emu --socket /tmp/ipu0.sock --socket /tmp/ipu1.sock \\\n"
"          --control /tmp/ipu-emu.ctl --log /tmp/ipu-emu.log &\n"
"  qemu-system-x86_64 -M q35 -m 1G \\\n"
"      -object memory-backend-memfd,id=ram,size=1G,share=on \\\n"
"      -machine memory-backend=ram \\\n"
"      -device pcie-root-port,id=rp0,chassis=1 \\\n"
"      -device '{\"driver\":\"vfio-user-pci\",\"bus\":\"rp0\",\n"
"                \"socket\":{\"type\":\"unix\",\"path\":\"/tmp/ipu0.sock\"}}' ...\n"
"  echo 'fault ipu0 fail_dma=3' | socat - UNIX-CONNECT:/tmp/ipu-emu.ctl\n";

struct ipu {
	char name[16];
	const char *path;
	bool msi;		/* MSI instead of MSI-X (--msi) */
	struct vfu_server *srv;
	struct emu_dev *dev;
};

struct control_client {
	int fd;
	size_t len;
	bool overflow;		/* dropping the rest of a too long line */
	char line[CONTROL_LINE_MAX];
};

struct emu {
	struct ipu ipu[MAX_IPUS];
	unsigned int nipu;
	const char *control_path;
	int control_fd;
	struct control_client clients[MAX_CONTROL_CLIENTS];
	FILE *log;
	unsigned int lenient;	/* EMU_LENIENT_* (--lenient) */
	bool remote_dma;	/* --remote-dma */
	bool remote_dma_qemu;	/* --remote-dma=qemu */
};

/* The write end of the pipe the signal handler writes the signal to. */
static int signal_pipe = -1;

static void on_signal(int sig)
{
	unsigned char b = (unsigned char)sig;
	int saved = errno;

	/* A full pipe already holds a stop request. */
	if (write(signal_pipe, &b, 1) < 0)
		(void)0;
	errno = saved;
}

static void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("ipu-emu: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'ipu-emu --help'.\n", stderr);
	exit(2);
}

static void elog(struct emu *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void elog(struct emu *e, const char *fmt, ...)
{
	va_list ap;

	fputs("ipu-emu: ", e->log);
	va_start(ap, fmt);
	vfprintf(e->log, fmt, ap);
	va_end(ap);
	fputc('\n', e->log);
	fflush(e->log);
}

/* "256M", "1G", "1048576": a size in bytes (0 on a malformed one). */
static uint64_t parse_size(const char *s)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return 0;
	return (uint64_t)v << shift;
}

static struct ipu *find_ipu(struct emu *e, const char *name)
{
	for (unsigned int i = 0; i < e->nipu; i++)
		if (!strcmp(e->ipu[i].name, name))
			return &e->ipu[i];
	return NULL;
}

static int call_fault(struct emu_dev *dev, void *arg)
{
	return emu_dev_fault(dev, arg);
}

static int call_flr(struct emu_dev *dev, void *arg)
{
	(void)arg;
	return emu_dev_flr(dev);
}

static int call_off_bus(struct emu_dev *dev, void *arg)
{
	(void)arg;
	return emu_dev_off_bus(dev);
}

static int call_stalled(struct emu_dev *dev, void *arg)
{
	(void)arg;
	return (int)emu_dev_stalled(dev);
}

static int call_rings(struct emu_dev *dev, void *arg)
{
	(void)arg;
	return (int)emu_dev_rings_enabled(dev);
}

/* Carry out one control command into @ans (one line, no newline). */
static void control_command(struct emu *e, char *line, char *ans, size_t size)
{
	char *save = NULL, *cmd, *target, *rest;
	struct ipu *ipu;
	int ret;

	cmd = strtok_r(line, " \t", &save);
	if (!cmd) {
		snprintf(ans, size, "error: empty command (try help)");
		return;
	}
	if (!strcmp(cmd, "help")) {
		snprintf(ans, size, "ok commands: status | fault ipuN SPEC | reset ipuN | help");
		return;
	}
	if (!strcmp(cmd, "status")) {
		size_t used = (size_t)snprintf(ans, size, "ok");

		for (unsigned int i = 0; i < e->nipu && used < size; i++) {
			struct vfu_server_status st;
			int off, stalled, rings;

			vfu_server_status(e->ipu[i].srv, &st);
			off = vfu_server_call(e->ipu[i].srv, call_off_bus, NULL);
			stalled = vfu_server_call(e->ipu[i].srv, call_stalled, NULL);
			rings = vfu_server_call(e->ipu[i].srv, call_rings, NULL);
			used += (size_t)snprintf(ans + used, size - used,
				" %s client=%s negotiated=%s dma_maps=%u clients=%lu off_bus=%s stalled=%d rings=%d",
				e->ipu[i].name,
				st.connected ? "connected" :
				st.retired ? "retired" : "listening",
				st.negotiated ? "yes" : "no", st.dma_maps,
				st.clients,
				off < 0 ? "unknown" : off ? "yes" : "no",
				stalled > 0 ? stalled : 0, rings);
		}
		return;
	}
	if (strcmp(cmd, "fault") && strcmp(cmd, "reset")) {
		snprintf(ans, size, "error: unknown command '%.64s' (try help)",
			 cmd);
		return;
	}
	target = strtok_r(NULL, " \t", &save);
	ipu = target ? find_ipu(e, target) : NULL;
	if (!ipu) {
		snprintf(ans, size, "error: %s: no such IPU '%.32s' (ipu0..ipu%u)",
			 cmd, target ? target : "", e->nipu - 1);
		return;
	}
	rest = strtok_r(NULL, "", &save);
	while (rest && (*rest == ' ' || *rest == '\t'))
		rest++;
	if (!strcmp(cmd, "reset")) {
		if (rest && *rest) {
			snprintf(ans, size, "error: reset takes only an IPU");
			return;
		}
		ret = vfu_server_call(ipu->srv, call_flr, NULL);
	} else {
		if (!rest || !*rest) {
			snprintf(ans, size, "error: fault %s: no fault spec",
				 ipu->name);
			return;
		}
		ret = vfu_server_call(ipu->srv, call_fault, rest);
	}
	if (ret)
		snprintf(ans, size, "error: %s %s: %s", cmd, ipu->name,
			 strerror(-ret));
	else
		snprintf(ans, size, "ok");
	elog(e, "control: %s %s%s%s: %s", cmd, ipu->name, rest ? " " : "",
	     rest ? rest : "", ret ? strerror(-ret) : "ok");
}

static void control_close(struct control_client *cc)
{
	close(cc->fd);
	cc->fd = -1;
}

/* Read what a control client sent; answer each complete line. */
static void control_read(struct emu *e, struct control_client *cc)
{
	char buf[512];
	ssize_t n = recv(cc->fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		control_close(cc);
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		char ans[2048];
		size_t len;

		if (buf[i] != '\n') {
			if (cc->len < sizeof(cc->line) - 1)
				cc->line[cc->len++] = buf[i];
			else
				cc->overflow = true;
			continue;
		}
		cc->line[cc->len] = '\0';
		if (cc->len && cc->line[cc->len - 1] == '\r')
			cc->line[cc->len - 1] = '\0';
		if (cc->overflow)
			snprintf(ans, sizeof(ans), "error: line longer than %d bytes",
				 CONTROL_LINE_MAX - 1);
		else
			control_command(e, cc->line, ans, sizeof(ans));
		cc->len = 0;
		cc->overflow = false;
		len = strlen(ans);
		ans[len++] = '\n';
		if (send(cc->fd, ans, len, MSG_NOSIGNAL | MSG_DONTWAIT) !=
		    (ssize_t)len) {
			/* A client that does not read its answers is dropped. */
			control_close(cc);
			return;
		}
	}
}

static void control_accept(struct emu *e)
{
	int fd = accept4(e->control_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	for (unsigned int i = 0; i < MAX_CONTROL_CLIENTS; i++) {
		if (e->clients[i].fd < 0) {
			e->clients[i].fd = fd;
			e->clients[i].len = 0;
			e->clients[i].overflow = false;
			return;
		}
	}
	send(fd, "error: too many control connections\n", 36,
	     MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

/* Wait for a signal, serving the control socket meanwhile. */
static int main_loop(struct emu *e, int sfd)
{
	for (;;) {
		struct pollfd pfd[2 + MAX_CONTROL_CLIENTS];
		nfds_t n = 0;

		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = e->control_fd, .events = POLLIN };
		for (unsigned int i = 0; i < MAX_CONTROL_CLIENTS; i++)
			pfd[n++] = (struct pollfd){ .fd = e->clients[i].fd,
						    .events = POLLIN };
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[0].revents) {
			unsigned char sig;

			if (read(sfd, &sig, 1) == 1) {
				elog(e, "signal %u: stopping", sig);
				return 0;
			}
		}
		if (pfd[1].revents)
			control_accept(e);
		for (unsigned int i = 0; i < MAX_CONTROL_CLIENTS; i++)
			if (pfd[2 + i].revents && e->clients[i].fd >= 0)
				control_read(e, &e->clients[i]);
	}
}

static void teardown(struct emu *e)
{
	/* Servers first: no more device calls; then the devices (their
	 * threads use the servers' DMA tables to the end); then the rest. */
	for (unsigned int i = 0; i < e->nipu; i++)
		if (e->ipu[i].srv)
			vfu_server_stop(e->ipu[i].srv);
	for (unsigned int i = 0; i < e->nipu; i++) {
		emu_dev_destroy(e->ipu[i].dev);
		vfu_server_destroy(e->ipu[i].srv);
	}
	for (unsigned int i = 0; i < MAX_CONTROL_CLIENTS; i++)
		if (e->clients[i].fd >= 0)
			close(e->clients[i].fd);
	if (e->control_fd >= 0) {
		close(e->control_fd);
		unlink(e->control_path);
	}
}

static int start(struct emu *e, uint64_t mem_size, const char *faults,
		 const struct emu_dev_opts *posted, bool trace)
{
	int ret;

	for (unsigned int i = 0; i < e->nipu; i++) {
		struct ipu *ipu = &e->ipu[i];
		struct vfu_server_opts so = {
			.path = ipu->path, .name = ipu->name, .log = e->log,
			.trace = trace, .remote_dma = e->remote_dma,
			.remote_dma_qemu = e->remote_dma_qemu,
			.max_mmaps = vfu_dma_mmap_share("/proc/sys/vm/max_map_count",
							e->nipu),
		};
		struct emu_dev_opts d = {
			.index = i, .mem_size = mem_size,
			.serial = SERIAL_BASE + i, .faults = faults,
			.msi = ipu->msi, .lenient = e->lenient,
			.posted_window_us = posted->posted_window_us,
			.posted_window_rand = posted->posted_window_rand,
		};
		struct emu_host_ops host;

		ret = vfu_server_create(&so, &ipu->srv);
		if (ret) {
			fprintf(stderr, "ipu-emu: %s: socket %s: %s\n",
				ipu->name, ipu->path, strerror(-ret));
			return ret;
		}
		vfu_server_host_ops(ipu->srv, &host);
		ret = emu_dev_create(&d, &host, &ipu->dev);
		if (ret) {
			fprintf(stderr, "ipu-emu: %s: cannot create the device: %s\n",
				ipu->name, strerror(-ret));
			if (faults)
				fprintf(stderr, "ipu-emu: (with --faults %s)\n",
					faults);
			return ret;
		}
		ret = vfu_server_start(ipu->srv, ipu->dev);
		if (ret) {
			fprintf(stderr, "ipu-emu: %s: cannot start: %s\n",
				ipu->name, strerror(-ret));
			return ret;
		}
		elog(e, "%s: %s, %" PRIu64 " MiB of device memory, %s", ipu->name,
		     ipu->path, mem_size >> 20, ipu->msi ? "MSI" : "MSI-X");
	}
	if (e->control_path) {
		ret = vfu_sock_listen(e->control_path, 8, &e->control_fd);
		if (ret) {
			fprintf(stderr, "ipu-emu: control socket %s: %s\n",
				e->control_path, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "msi", no_argument, NULL, 'M' },
		{ "control", required_argument, NULL, 'c' },
		{ "mem-size", required_argument, NULL, 'm' },
		{ "faults", required_argument, NULL, 'f' },
		{ "lenient", required_argument, NULL, 'L' },
		{ "posted-window-us", required_argument, NULL, 'p' },
		{ "log", required_argument, NULL, 'l' },
		{ "remote-dma", optional_argument, NULL, 'r' },
		{ "trace", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct emu e;
	uint64_t mem_size = IPU_MEM_DEFAULT_SIZE;
	const char *faults = NULL, *log_path = NULL;
	bool trace = false, msi = false;
	/* Strict unless asked: silicon finishes no stop before the write. */
	struct emu_dev_opts posted = {
		.posted_window_us = EMU_POSTED_WINDOW_DEFAULT_US,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	int opt, pipefd[2], ret;

	e.control_fd = -1;
	for (unsigned int i = 0; i < MAX_CONTROL_CLIENTS; i++)
		e.clients[i].fd = -1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (e.nipu == MAX_IPUS)
				die_usage("at most %d --socket options", MAX_IPUS);
			e.ipu[e.nipu].path = optarg;
			e.ipu[e.nipu].msi = msi;
			msi = false;
			snprintf(e.ipu[e.nipu].name, sizeof(e.ipu[0].name),
				 "ipu%u", e.nipu);
			e.nipu++;
			break;
		case 'M':
			msi = true;
			break;
		case 'c':
			e.control_path = optarg;
			break;
		case 'm':
			mem_size = parse_size(optarg);
			if (!mem_size || (mem_size & (mem_size - 1)) ||
			    mem_size < IPU_MEM_MIN_SIZE ||
			    mem_size > IPU_MEM_MAX_SIZE)
				die_usage("--mem-size %s: not a power of two from 1M to 64G",
					  optarg);
			break;
		case 'f':
			faults = optarg;
			break;
		case 'L':
			if (emu_lenient_parse(optarg, &e.lenient))
				die_usage("--lenient %s: the names are: bme", optarg);
			break;
		case 'p':
			if (emu_dev_posted_window_parse(optarg, &posted))
				die_usage("--posted-window-us %s: not N or rand:N with N in 0..%u",
					  optarg, EMU_POSTED_WINDOW_MAX_US);
			break;
		case 'l':
			log_path = optarg;
			break;
		case 't':
			trace = true;
			break;
		case 'r':
			if (optarg && strcmp(optarg, "spec") && strcmp(optarg, "qemu"))
				die_usage("--remote-dma=%s: not spec or qemu", optarg);
			e.remote_dma = true;
			e.remote_dma_qemu = optarg && !strcmp(optarg, "qemu");
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			die_usage("unknown option");
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (!e.nipu)
		die_usage("no --socket: nothing to serve");
	if (msi)
		die_usage("--msi applies to the next --socket, and none follows");

	e.log = stderr;
	if (log_path) {
		int fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
			      0644);

		/* stderr becomes the log too: the device half reports its
		 * events there, and they belong with the transport's. */
		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) {
			fprintf(stderr, "ipu-emu: --log %s: %s\n", log_path,
				strerror(errno));
			return 1;
		}
		close(fd);
		setvbuf(stderr, NULL, _IOLBF, 0);
	}
	if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK)) {
		fprintf(stderr, "ipu-emu: pipe: %s\n", strerror(errno));
		return 1;
	}
	signal_pipe = pipefd[1];
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	ret = start(&e, mem_size, faults, &posted, trace);
	if (!ret) {
		printf("ipu-emu: ready\n");
		fflush(stdout);
		ret = main_loop(&e, pipefd[0]);
		if (ret)
			elog(&e, "main loop failed: %s", strerror(-ret));
	}
	teardown(&e);
	close(pipefd[0]);
	close(pipefd[1]);
	return ret ? 1 : 0;
}
