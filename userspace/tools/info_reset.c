// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_reset.c - "ipu-info --reset ipuN|PCI-ADDRESS [--force]", as
 * nvidia-smi -r and tt-smi -r: reset one IPU an operator names.
 *
 * Which way: the UAPI's RESET ioctl needs the caller to be the attached
 * owner (include/uapi/linux/ipu.h, struct ipu_reset), so an IPU nobody
 * attached is reset by attaching, RESET and detaching through its node;
 * that works on a simulated and a PCI IPU alike and counts in
 * reset_count. An IPU another process attached cannot be reset that way:
 * its owner would see its runs fail with no say. Unless --force, a held
 * IPU (attached, or open by another process, as /proc shows: a process
 * may attach any moment) is refused with INFO_RESET_HELD, naming the
 * holder. A process whose files of it are all the simulated firmware's
 * (fdinfo's ipu-role: firmware) does not hold it: it runs it, and a
 * reset revokes and restarts it as any RESET does. With --force, one nobody attached is reset through the node as
 * above; an attached PCI IPU through the PCI core's function reset
 * (sysfs "reset" of the function; ipu.ko's reset_prepare/reset_done fail
 * its launches and restore it, as for any external reset); an attached
 * simulated IPU cannot be reset by anyone but its owner, and the message
 * says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/ipu.h>

#include "info.h"

/* @ipu's node below @root: attach, reset, detach. 0 or 1 (said why). */
static int reset_ioctl(const char *root, const struct info_ipu *ipu)
{
	struct ipu_attach attach = { 0 };
	struct ipu_detach detach = { 0 };
	struct ipu_reset reset = { 0 };
	const char *what = "ATTACH";
	char path[PATH_MAX];
	int fd, err = 0;

	info_path(path, sizeof(path), "%s/dev/ipu%u", root, ipu->index);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ipu-info: ipu%u: cannot open %s: %s%s\n",
			ipu->index, path, strerror(errno),
			errno == EACCES ? " (a reset needs write access to the node: root, or its group)" : "");
		return 1;
	}
	if (ioctl(fd, IPU_IOCTL_ATTACH, &attach)) {
		err = errno;
	} else {
		what = "RESET";
		if (ioctl(fd, IPU_IOCTL_RESET, &reset))
			err = errno;
		/* Closing detaches as well; DETACH says it at once. */
		ioctl(fd, IPU_IOCTL_DETACH, &detach);
	}
	close(fd);
	if (err == EBUSY) {
		fprintf(stderr, "ipu-info: ipu%u: attached by another process meanwhile; not reset (try again, or --force on a PCI IPU)\n",
			ipu->index);
		return INFO_RESET_HELD;
	}
	if (err) {
		fprintf(stderr, "ipu-info: ipu%u: %s on %s: %s\n", ipu->index,
			what, path, strerror(err));
		return 1;
	}
	printf("ipu%u: reset (RESET ioctl)\n", ipu->index);
	return 0;
}

/* The PCI core's reset of @ipu's function. 0 or 1 (said why). */
static int reset_pci(const char *root, const struct info_ipu *ipu)
{
	char path[PATH_MAX];
	int fd, err = 0;

	info_path(path, sizeof(path), "%s/sys/bus/pci/devices/%s/reset", root,
		  ipu->pci.addr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1", 1) != 1)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		fprintf(stderr, "ipu-info: ipu%u: writing %s: %s%s\n",
			ipu->index, path, strerror(err),
			err == EACCES ? " (needs root)" : "");
		return 1;
	}
	printf("ipu%u (%s): reset through the PCI core (sysfs reset)\n",
	       ipu->index, ipu->pci.addr);
	return 0;
}

/* The IPU whose PCI address is @addr ("0000:01:00.0" or "01:00.0"). */
static const struct info_ipu *find_by_addr(const struct info_report *rep,
					   const char *addr)
{
	size_t i;

	for (i = 0; i < rep->nipus; i++) {
		const char *a = rep->ipus[i].pci.addr;

		if (!rep->ipus[i].have_pci)
			continue;
		if (!strcmp(a, addr) ||
		    (!strncmp(a, "0000:", 5) && !strcmp(a + 5, addr)))
			return &rep->ipus[i];
	}
	return NULL;
}

/* "attached by 43 (server)", "open by 42 (trainer) +1": who holds @ipu
 * but us; "" for nobody. */
static void held_by(const struct info_ipu *ipu, char *buf, size_t len)
{
	size_t i, n, others = 0;
	const struct info_holder *first = NULL;

	buf[0] = '\0';
	if (ipu->have_owner && ipu->owner_pid) {
		snprintf(buf, len, "attached by %d (%s)", ipu->owner_pid,
			 ipu->owner_comm[0] ? ipu->owner_comm : "?");
		return;
	}
	n = ipu->nholders < INFO_MAX_HOLDERS ? ipu->nholders : INFO_MAX_HOLDERS;
	for (i = 0; i < n; i++) {
		const struct info_holder *h = &ipu->holders[i];

		/* Us, or the simulated firmware's daemon alone: not users. */
		if (h->pid == getpid() ||
		    (h->have_usage && h->usage.fw_files == h->usage.files))
			continue;
		if (!first)
			first = &ipu->holders[i];
		else
			others++;
	}
	others += ipu->nholders - n;
	if (first)
		snprintf(buf, len, "open by %d (%s)%s", first->pid,
			 first->comm[0] ? first->comm : "?",
			 others ? " and others" : "");
	else if (others)
		snprintf(buf, len, "open by %zu processes", others);
	else if (!ipu->have_holders)
		/* Another user's files are not ours to see: not "free". */
		snprintf(buf, len, "perhaps open by another user's process (their /proc/PID/fd cannot be read: run as root)");
}

int info_reset(const char *root, const char *name, bool force)
{
	const struct info_ipu *ipu;
	struct info_report rep;
	char held[128];
	int st;

	if (info_collect(root, INFO_NO_PCI, &rep)) {
		fprintf(stderr, "ipu-info: out of memory\n");
		info_report_free(&rep);
		return 1;
	}
	if (!strncmp(name, "model:", 6)) {
		fprintf(stderr, "ipu-info: --reset '%s': the software model has nothing to reset\n",
			name);
		info_report_free(&rep);
		return 1;
	}
	ipu = info_find(&rep, name);
	if (!ipu)
		ipu = find_by_addr(&rep, name);
	if (!ipu) {
		fprintf(stderr, "ipu-info: --reset '%s': no such IPU (name it as N, ipuN, /dev/ipuN or its PCI address; ipu-info lists them)\n",
			name);
		info_report_free(&rep);
		return 1;
	}
	held_by(ipu, held, sizeof(held));
	if (held[0] && !force) {
		fprintf(stderr, "ipu-info: ipu%u is in use: %s; stop it or add --force\n",
			ipu->index, held);
		st = INFO_RESET_HELD;
	} else if (ipu->have_owner && ipu->owner_pid) {
		/* Forced on an attached IPU: only the PCI core can. */
		if (ipu->have_pci && !strcmp(ipu->platform, "pci")) {
			st = reset_pci(root, ipu);
		} else {
			fprintf(stderr, "ipu-info: ipu%u is %s: a simulated IPU is reset only by the process attached to it (the RESET ioctl needs the owner); stop it first\n",
				ipu->index, held);
			st = INFO_RESET_HELD;
		}
	} else {
		st = reset_ioctl(root, ipu);
	}
	info_report_free(&rep);
	return st;
}
