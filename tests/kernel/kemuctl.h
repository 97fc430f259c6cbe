/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kemuctl.h - the guest's line to ipu-emu's control socket: a virtio
 * serial port named "ipu-emu.control" (scripts/lib/emu-rig.sh) whose lines
 * are the socket's commands ("fault ipuN SPEC", docs/hardware.md section
 * 11) and answers ("ok", "error: ...").
 *
 * ipu-emu's ipuN is the rig's N-th function: behind the N-th root port,
 * so the N-th PCI address in order (ke_model_ipu() finds it for an ipuN
 * of the guest).
 *
 * ktest.h includes this file, so that kt_fault_set() injects a fault on
 * either kind of IPU: the debugfs switches of a simulated IPU, the
 * model's faults of a PCI IPU.
 */
#ifndef IPU_TESTS_KEMUCTL_H
#define IPU_TESTS_KEMUCTL_H

#include "ktest.h"

#include <limits.h>

#define KE_PORTS "/sys/class/virtio-ports"
#define KE_NAME "ipu-emu.control"

static int ke_fd __attribute__((unused)) = -1;

/*
 * Open the guest's virtio serial port named @name (the rig's ports:
 * this one, and krelay.h's): its fd, or -1 when the guest has none.
 */
static inline int ke_port_open(const char *name)
{
	char path[PATH_MAX], pname[64];
	struct dirent *de;
	int fd = -1;
	DIR *d;

	d = opendir(KE_PORTS);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), KE_PORTS "/%s/name", de->d_name);
		if (kt_read_file(path, pname, sizeof(pname)) || strcmp(pname, name))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		break;
	}
	closedir(d);
	return fd;
}

/* Open the port; false when the guest has none. */
static inline bool ke_open(void)
{
	if (ke_fd < 0)
		ke_fd = ke_port_open(KE_NAME);
	return ke_fd >= 0;
}

/*
 * Write the request @line (@len bytes, its newline included) to the port
 * @fd and read its one answer line into @ans (@size bytes, without the
 * newline): the port is a byte stream, read up to the newline. 0, or
 * -errno when the port failed (-EPIPE: it closed).
 */
static inline int ke_port_ask(int fd, const char *line, size_t len, char *ans,
			      size_t size)
{
	size_t got = 0;
	ssize_t n;

	n = write(fd, line, len);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	while (got < size - 1) {
		n = read(fd, ans + got, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EPIPE;
		if (ans[got] == '\n')
			break;
		got++;
	}
	ans[got] = '\0';
	return 0;
}

#define ke_require()                                                      \
	do {                                                              \
		if (!ke_open()) {                                         \
			print_message("no virtio port " KE_NAME " (ipu-emu's control socket): skipped\n"); \
			kt_skip();                                        \
		}                                                         \
	} while (0)

/*
 * Send "@cmd ipu@ipu @spec" and read the answer up to its newline (the
 * port is a byte stream) into @ans. 0 when the model said "ok", -EINVAL
 * when it answered otherwise, -errno when the port failed. Fails no test,
 * so that a teardown may call it.
 */
static inline int ke_send(const char *cmd, unsigned int ipu, const char *spec,
			  char *ans, size_t len)
{
	char line[256];
	int w, err;

	w = snprintf(line, sizeof(line), "%s ipu%u%s%s\n", cmd, ipu,
		     spec ? " " : "", spec ? spec : "");
	if (w < 0 || (size_t)w >= sizeof(line))
		return -E2BIG;
	err = ke_port_ask(ke_fd, line, (size_t)w, ans, len);
	if (err)
		return err;
	return strncmp(ans, "ok", 2) ? -EINVAL : 0;
}

/* ke_send(), failing the test unless the answer is "ok". */
static inline void ke_command(const char *cmd, unsigned int ipu,
			      const char *spec)
{
	char ans[512];
	int err = ke_send(cmd, ipu, spec, ans, sizeof(ans));

	if (err == -EINVAL)
		fail_msg("ipu-emu: \"%s ipu%u %s\" answered \"%s\"", cmd, ipu,
			 spec ? spec : "", ans);
	if (err)
		fail_msg("%s ipu%u through " KE_NAME ": %s", cmd, ipu,
			 strerror(-err));
}

/* Inject @spec into the model's ipu@ipu. */
static inline void ke_fault(unsigned int ipu, const char *spec)
{
	ke_command("fault", ipu, spec);
}

/*
 * The number after @key (" name=") in ipu@ipu's part of the model's
 * "status" answer: -errno when the port failed, -EPROTO when the answer
 * lacks it.
 */
static inline int ke_status_int(unsigned int ipu, const char *key)
{
	char ans[1024], name[32];
	const char *p;
	int err;

	err = ke_port_ask(ke_fd, "status\n", 7, ans, sizeof(ans));
	if (err)
		return err;
	snprintf(name, sizeof(name), " ipu%u ", ipu);
	p = strstr(ans, name);
	p = p ? strstr(p, key) : NULL;
	return p ? atoi(p + strlen(key)) : -EPROTO;
}

/*
 * How many DMA descriptors the hang_dma fault holds on the model's
 * ipu@ipu now (the "stalled=" of its "status" answer).
 */
static inline int ke_stalled(unsigned int ipu)
{
	return ke_status_int(ipu, " stalled=");
}

/*
 * Which rings of the model's ipu@ipu are enabled now ("rings="): bit q
 * for queue q, bit 3 for the gather ring.
 */
static inline int ke_rings(unsigned int ipu)
{
	return ke_status_int(ipu, " rings=");
}

/*
 * The model's number of the guest's ipu@n: the rank of its function's
 * address among the functions with the spec's IDs (bound or not); -1
 * when ipu@n is not a PCI IPU.
 */
static inline int ke_model_ipu(unsigned int n)
{
	struct dirent *de;
	char bdf[32];
	int rank = 0;
	DIR *d;

	if (kt_pci_fn_of(n, bdf, sizeof(bdf)))
		return -1;
	d = opendir(KT_PCI_DEVICES);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, bdf) < 0 &&
		    kt_is_ipu_fn(de->d_name))
			rank++;
	closedir(d);
	return rank;
}

#endif /* IPU_TESTS_KEMUCTL_H */
