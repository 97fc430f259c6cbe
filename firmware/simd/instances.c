// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * instances.c - a run of a program split across instances
 * (docs/instances.md, "ipu_hw"): its all-reduces need the other
 * instances' operands, which only the launching process can get (its
 * transport, MPI under libipu-mpi). The firmware's allgather is carried
 * to that process over the socket it listens on while attached
 * (include/ipu/fw_gather.h is the wire).
 *
 * The process is untrusted: the listener must be the launching pid
 * (SO_PEERCRED), every field it sends is checked, and no wait is
 * unbounded. A wait ends when the answer comes, when the process goes
 * (its end of the socket closes), when the run's devices are reset (the
 * kernel's launch deadline passed: its mapping is retired, as
 * simd_run_watch() sees) or when ipu-simd stops; each but the first fails
 * the gather and with it the run. After a failure the connection is out
 * of step: later gathers of the run fail at once.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <ipu/exe.h>
#include <ipu/firmware.h>
#include <ipu/fw_gather.h>

#include "simd.h"

/* How often a wait looks at the run's devices and the stop flag. */
#define GATHER_POLL_MS	100

struct simd_instances {
	struct ipufw_instances inst;
	int fd;
	bool broken;
	const struct simd_launch *l;	/* the run's launches */
	uint32_t nrep;
};

static void say(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

/* Whether the run should stop waiting: reset devices, or ipu-simd ends. */
static bool abandoned(const struct simd_instances *si)
{
	uint32_t r;

	if (simd_stopping())
		return true;
	for (r = 0; r < si->nrep; r++)
		if (simd_guard_retired(si->l[r].map->guard))
			return true;
	return false;
}

/* Move @len bytes over the socket (@out: send), by the rules above. */
static int move(struct simd_instances *si, void *buf, size_t len, bool out,
		char *msg, size_t msglen)
{
	struct pollfd pfd = { .fd = si->fd, .events = out ? POLLOUT : POLLIN };
	uint8_t *p = buf;
	ssize_t n;
	int rc;

	while (len) {
		rc = poll(&pfd, 1, GATHER_POLL_MS);
		if (rc < 0 && errno != EINTR) {
			rc = -errno;
			say(msg, msglen, "waiting for the launching process: %s",
			    strerror(-rc));
			return rc;
		}
		if (rc <= 0) {
			if (!abandoned(si))
				continue;
			say(msg, msglen, "the run was cancelled (its IPUs were reset, or ipu-simd stops) while it waited for the other instances");
			return -ECANCELED;
		}
		n = out ? send(si->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) :
			  recv(si->fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			say(msg, msglen, "the launching process closed its instances' socket (it died?)");
			return -EPIPE;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int gather(void *ctx, void *buf, size_t bytes, char *msg,
		  size_t msglen)
{
	struct simd_instances *si = ctx;
	struct ipu_fw_gather_req req = { .magic = IPU_FW_GATHER_MAGIC,
					 .bytes = bytes };
	struct ipu_fw_gather_rep rep;
	size_t total = bytes * si->inst.count;
	int err;

	if (si->broken) {
		say(msg, msglen, "an earlier gather of the run failed");
		return -EPIPE;
	}
	if (!bytes || bytes > IPU_FW_GATHER_MAX_BYTES) {
		say(msg, msglen, "%zu bytes per instance: more than a gather carries",
		    bytes);
		return -E2BIG;
	}
	si->broken = true;
	err = move(si, &req, sizeof(req), true, msg, msglen) ?:
	      move(si, (uint8_t *)buf + si->inst.index * bytes, bytes, true,
		   msg, msglen) ?:
	      move(si, &rep, sizeof(rep), false, msg, msglen);
	if (err)
		return err;
	rep.msg[sizeof(rep.msg) - 1] = '\0';
	if (rep.status > 0 || rep.status < -4095 || rep.pad ||
	    rep.bytes != (rep.status ? 0 : total)) {
		say(msg, msglen, "the launching process answered a gather of %zu bytes with status %d and %llu bytes",
		    total, rep.status, (unsigned long long)rep.bytes);
		return -EPROTO;
	}
	if (rep.status) {
		say(msg, msglen, "%s", rep.msg);
		return rep.status;
	}
	err = move(si, buf, total, false, msg, msglen);
	if (!err)
		si->broken = false;
	return err;
}

int simd_instances_open(const struct simd_launch *l, uint32_t nrep,
			const struct ipu_exe *exe, struct simd_instances **sip,
			char *msg, size_t msglen)
{
	uint32_t pid = l[0].work.pid, count;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct ipu_fw_gather_hello hello;
	struct simd_instances *si;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	socklen_t alen;
	int err, n;

	*sip = NULL;
	count = exe->replication_factor / exe->instance_replication_factor;
	if (nrep != exe->instance_replication_factor) {
		say(msg, msglen, "the executable \"%s\" runs %u replicas per instance, launched as %u",
		    exe->name, exe->instance_replication_factor, nrep);
		return -EINVAL;
	}
	si = calloc(1, sizeof(*si));
	if (!si) {
		say(msg, msglen, "no memory");
		return -ENOMEM;
	}
	si->l = l;
	si->nrep = nrep;
	si->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (si->fd < 0) {
		err = -errno;
		say(msg, msglen, "socket: %s", strerror(-err));
		free(si);
		return err;
	}
	/* Abstract: sun_path[0] is NUL, the name follows, not terminated. */
	n = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "%s%u",
		     IPU_FW_GATHER_NAME, pid);
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	if (connect(si->fd, (struct sockaddr *)&addr, alen)) {
		err = -errno;
		say(msg, msglen, "the program \"%s\" is split across %u instances, but its process does not serve their gather (%s): is it attached through libsession with its instances set?",
		    exe->name, count, strerror(-err));
		goto err;
	}
	if (getsockopt(si->fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) ||
	    cred.pid <= 0 || (uint32_t)cred.pid != pid) {
		err = -EPERM;
		say(msg, msglen, "the instances' socket of pid %u is another process's (pid %d)",
		    pid, clen == sizeof(cred) ? (int)cred.pid : -1);
		goto err;
	}
	err = move(si, &hello, sizeof(hello), false, msg, msglen);
	if (err)
		goto err;
	if (hello.magic != IPU_FW_GATHER_MAGIC ||
	    hello.version != IPU_FW_GATHER_VERSION || hello.count != count ||
	    hello.index >= count) {
		err = -EPROTO;
		say(msg, msglen, "the program \"%s\" runs as %u instances; its process says it is instance %u of %u (magic 0x%x, version %u)",
		    exe->name, count, hello.index, hello.count, hello.magic,
		    hello.version);
		goto err;
	}
	si->inst = (struct ipufw_instances){ .index = hello.index,
					     .count = count,
					     .allgather = gather, .ctx = si };
	*sip = si;
	return 0;
err:
	close(si->fd);
	free(si);
	return err;
}

const struct ipufw_instances *
simd_instances_get(const struct simd_instances *si)
{
	return &si->inst;
}

void simd_instances_close(struct simd_instances *si)
{
	if (!si)
		return;
	close(si->fd);
	free(si);
}
