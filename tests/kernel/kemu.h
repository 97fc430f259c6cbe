/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kemu.h - the guest's line to ipu-emu's control socket: a virtio serial
 * port named "ipu-emu.control" (scripts/lib/emu-rig.sh) whose lines are
 * the socket's commands ("fault ipuN SPEC", docs/hardware.md section 11)
 * and answers ("ok", "error: ...").
 *
 * ipu-emu's ipuN is the rig's N-th function: behind the N-th root port,
 * so the N-th PCI address in order (tests pass the function's index).
 */
#ifndef IPU_TESTS_KEMU_H
#define IPU_TESTS_KEMU_H

#include "kpci.h"

#define KE_PORTS "/sys/class/virtio-ports"
#define KE_NAME "ipu-emu.control"

static int ke_fd = -1;

/* Open the port; false (and a message) when the guest has none. */
static inline bool ke_open(void)
{
	char path[PATH_MAX], name[64];
	struct dirent *de;
	DIR *d;

	if (ke_fd >= 0)
		return true;
	d = opendir(KE_PORTS);
	if (!d)
		return false;
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), KE_PORTS "/%s/name", de->d_name);
		if (kt_read_file(path, name, sizeof(name)) || strcmp(name, KE_NAME))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		ke_fd = open(path, O_RDWR | O_CLOEXEC);
		break;
	}
	closedir(d);
	return ke_fd >= 0;
}

#define ke_require()                                                      \
	do {                                                              \
		if (!ke_open()) {                                         \
			print_message("no virtio port " KE_NAME " (ipu-emu's control socket): skipped\n"); \
			kt_skip();                                        \
		}                                                         \
	} while (0)

/*
 * Send "@cmd ipu@ipu @spec" and fail the test unless the answer is "ok".
 * The port is a byte stream: the answer is read up to its newline.
 */
static inline void ke_command(const char *cmd, unsigned int ipu,
			      const char *spec)
{
	char line[256], ans[512];
	size_t len = 0;
	ssize_t n;
	int w;

	w = snprintf(line, sizeof(line), "%s ipu%u%s%s\n", cmd, ipu,
		     spec ? " " : "", spec ? spec : "");
	if (write(ke_fd, line, (size_t)w) != w)
		fail_msg("write to " KE_NAME ": %s", strerror(errno));
	while (len < sizeof(ans) - 1) {
		n = read(ke_fd, ans + len, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fail_msg("read from " KE_NAME ": %s", n ? strerror(errno) : "EOF");
		if (ans[len] == '\n')
			break;
		len++;
	}
	ans[len] = '\0';
	if (strncmp(ans, "ok", 2))
		fail_msg("ipu-emu: \"%.*s\" answered \"%s\"", w - 1, line, ans);
}

/* Inject @spec into the model's ipu@ipu. */
static inline void ke_fault(unsigned int ipu, const char *spec)
{
	ke_command("fault", ipu, spec);
}

/*
 * ipu-emu's number of device @idx (kt_dev()): the rank of its PCI address
 * among the rig's functions, which need not be that of its ipuN (a
 * function unbound and bound again gets a new one).
 */
static inline unsigned int ke_index_of(unsigned int idx)
{
	unsigned int i;

	find_ipus();
	for (i = 0; i < nr_ipus; i++)
		if (ipu_of(ipus[i]) == (int)kt_dev(idx))
			return i;
	fail_msg("ipu%u is none of the rig's %u PCI functions", kt_dev(idx),
		 nr_ipus);
	return 0;
}

/*
 * A file attached to the rig's first function (ipu-emu's ipu0), for a test
 * that injects faults: skipped without PCI IPUs or the control port.
 */
static inline int ke_open_first(void)
{
	int n;

	require_ipus();
	ke_require();
	n = ipu_of(ipus[0]);
	if (n < 0)
		fail_msg("%s has no ipuN (not bound?)", ipus[0]);
	return kt_open_attached((unsigned int)n);
}

/* The function left refusing its firmware, "" when none. */
static char ke_refused_bdf[16];

/*
 * Unbind the rig's last function and make its firmware refused
 * (refuse_fw): binding it again fails the probe. ke_refuse_teardown()
 * undoes it.
 */
static inline void ke_refuse_last_fw(void)
{
	snprintf(ke_refused_bdf, sizeof(ke_refused_bdf), "%s", ipus[nr_ipus - 1]);
	kp_unbind(ke_refused_bdf);
	ke_fault(nr_ipus - 1, "refuse_fw=1");
}

/* The firmware accepted again and the function bound (test's end). */
static inline void ke_unrefuse(void)
{
	ke_fault(nr_ipus - 1, "refuse_fw=0");
	kp_bind(ke_refused_bdf);
	ke_refused_bdf[0] = '\0';
}

/* Teardown of a test that used ke_refuse_last_fw(), even a failed one. */
static inline int ke_refuse_teardown(void **state)
{
	if (ke_refused_bdf[0]) {
		ke_fault(nr_ipus - 1, "refuse_fw=0");
		kt_write_file(PCI_DRIVER "/bind", ke_refused_bdf);
		ke_refused_bdf[0] = '\0';
	}
	return kt_teardown(state);
}

#endif /* IPU_TESTS_KEMU_H */
