/* SPDX-License-Identifier: GPL-2.0 */
/*
 * krelay.h - the guest's hot-plug buttons: a virtio serial port named
 * "ipu-rig.hotplug" (scripts/lib/emu-rig.sh) to scripts/lib/hotplug-relay,
 * which turns "device_del ipuN" and "device_add ipuN" into QEMU monitor
 * commands on the rig's N-th IPU (those the rig lets the guest plug:
 * RIG_HOTPLUG_IPUS, its MSI ones), and answers anything else with an
 * error, never passing it on.
 *
 * device_del answers once QEMU has deleted the device: its DEVICE_DELETED
 * event comes after the guest's pciehp took the slot's attention button,
 * waited its 5 s, removed the function (ipu.ko's remove()) and powered
 * the slot off. device_add answers once QEMU has plugged the device; the
 * guest's pciehp then sees the card, enumerates and probes it
 * (kr_add() waits for ipu.ko to be bound to it, woken by the kernel's
 * uevents).
 */
#ifndef IPU_TESTS_KRELAY_H
#define IPU_TESTS_KRELAY_H

#include "kpci.h"
#include "kemuctl.h"

#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#define KR_NAME "ipu-rig.hotplug"
/*
 * Hang guard on the probe after device_add (pciehp's link wait, the
 * firmware's load; the debug kernel is some 5 times slower): 180 s.
 */
#define KR_BIND_MS 180000

static int kr_fd = -1;

#define kr_require()                                                      \
	do {                                                              \
		if (kr_fd < 0)                                            \
			kr_fd = ke_port_open(KR_NAME);                    \
		if (kr_fd < 0) {                                          \
			print_message("no virtio port " KR_NAME " (the rig's hot-plug relay): skipped\n"); \
			kt_skip();                                        \
		}                                                         \
	} while (0)

/*
 * Send the request @line (with its newline) and read the relay's answer
 * into @ans: 0 when it said "ok", -EINVAL when it answered otherwise,
 * -errno when the port failed. Fails no test, so that a teardown may
 * call it.
 */
static inline int kr_ask(const char *line, char *ans, size_t len)
{
	int err = ke_port_ask(kr_fd, line, strlen(line), ans, len);

	if (err)
		return err;
	return strncmp(ans, "ok", 2) ? -EINVAL : 0;
}

/* "@cmd ipu@idx" to the relay: kr_ask()'s result, its answer in @ans. */
static inline int kr_request(const char *cmd, unsigned int idx, char *ans,
			     size_t len)
{
	char line[64];

	snprintf(line, sizeof(line), "%s ipu%u\n", cmd, idx);
	return kr_ask(line, ans, len);
}

/* kr_request(), failing the test unless the answer is "ok". */
static inline void kr_command(const char *cmd, unsigned int idx)
{
	char ans[512];
	int err = kr_request(cmd, idx, ans, sizeof(ans));

	if (err == -EINVAL)
		fail_msg("hotplug-relay: \"%s ipu%u\" answered \"%s\"", cmd, idx, ans);
	if (err)
		fail_msg("%s ipu%u through " KR_NAME ": %s", cmd, idx, strerror(-err));
}

/*
 * Unplug the rig's @idx-th IPU (QEMU's device_del) and return once QEMU
 * has deleted it: the guest's pciehp has removed the function by then.
 */
static inline void kr_del(unsigned int idx)
{
	kr_command("device_del", idx);
}

/* A socket of the kernel's uevents (any device's), or -1. */
static inline int kr_uevents(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		fail_msg("uevent socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		fail_msg("uevent socket bind: %s", strerror(errno));
	return fd;
}

static inline int64_t kr_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Plug the rig's @idx-th IPU back (QEMU's device_add), at its PCI address
 * @bdf, and wait until ipu.ko is bound to it: its ipuN. Each uevent of
 * the kernel (the function added, bound, its ipuN created) wakes the
 * check; KR_BIND_MS bounds the whole only against a hang.
 */
static inline unsigned int kr_add(unsigned int idx, const char *bdf)
{
	int ev = kr_uevents(), n;
	int64_t end = kr_now_ms() + KR_BIND_MS;
	char drain[8192];

	kr_command("device_add", idx);
	while ((n = ipu_of(bdf)) < 0 && kr_now_ms() < end) {
		struct pollfd p = { .fd = ev, .events = POLLIN };

		if (poll(&p, 1, (int)(end - kr_now_ms())) < 0 && errno != EINTR)
			fail_msg("poll on the uevent socket: %s", strerror(errno));
		while (recv(ev, drain, sizeof(drain), 0) > 0)
			;
	}
	close(ev);
	if (n < 0)
		fail_msg("ipu.ko not bound to %s %d s after device_add ipu%u",
			 bdf, KR_BIND_MS / 1000, idx);
	return (unsigned int)n;
}

#endif /* IPU_TESTS_KRELAY_H */
