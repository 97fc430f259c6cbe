// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * session.c - making and destroying sessions: the options, the IPUs a
 * program needs (S03) and which device runs it (S02, S04, S24).
 *
 * Creating a session touches no device beyond looking at what is there:
 * IPUs are acquired when the session is entered (attach.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ipu/firmware.h>
#include <ipu/ipu.h>

#include "session_internal.h"

/* The device descriptions of S02; "auto" (S24) resolves to one. */
struct device_type {
	const char *name;
	enum sess_backend backend;
	bool one_ipu; /* PopXL's "cpu": no replication */
};

static const struct device_type device_types[] = {
	{ "ipu_hw", SESS_HW, false },
	{ "ipu_model", SESS_MODEL, false },
	{ "cpu", SESS_MODEL, true },
};

#define VALID_DEVICES "\"auto\", \"ipu_hw\", \"ipu_model\", \"cpu\""

static const struct device_type *find_type(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(device_types) / sizeof(device_types[0]); i++)
		if (!strcmp(device_types[i].name, name))
			return &device_types[i];
	return NULL;
}

const char *ipu_sess_backend_prefix(enum sess_backend b)
{
	return b == SESS_HW ? "hw" : "model";
}

/* Whether @name is "<prefix>:N". */
static bool has_prefix(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(name, prefix, n) && name[n] == ':';
}

bool ipu_sess_backend_has(enum sess_backend b, const char *name)
{
	return has_prefix(name, ipu_sess_backend_prefix(b));
}

int ipu_sess_list_devices(enum sess_backend b, struct ipu_device_list **listp,
			  size_t *countp)
{
	IPU_OPTS(ipu_list_opts, opts,
		 .flags = b == SESS_MODEL ? IPU_LIST_MODEL : 0);
	size_t i, count = 0;
	int err;

	err = ipu_device_list_create_opts(&opts, listp);
	if (err)
		return err;
	for (i = 0; i < ipu_device_list_count(*listp); i++)
		if (ipu_sess_backend_has(b, ipu_device_list_get(*listp, i)->name))
			count++;
	*countp = count;
	return 0;
}

/*
 * "auto" on hardware? Only when enough hardware IPUs are free and they can
 * run programs: a kernel driver without launches would take the session
 * and fail every run.
 */
static bool hw_can_run(uint32_t need)
{
	struct ipu_device_info info = { .sz = sizeof(info) };
	const struct ipu_device_entry *e, *first = NULL;
	struct ipu_device_list *list;
	struct ipu_device *dev;
	size_t i, count, free_ipus = 0;
	bool ok = false;

	if (ipu_sess_list_devices(SESS_HW, &list, &count))
		return false;
	for (i = 0; i < ipu_device_list_count(list); i++) {
		e = ipu_device_list_get(list, i);
		if (!ipu_sess_backend_has(SESS_HW, e->name) || e->owner_pid)
			continue;
		if (!first)
			first = e;
		free_ipus++;
	}
	if (first && free_ipus >= need && !ipu_device_open(first->name, NULL, &dev)) {
		ok = !ipu_device_query(dev, &info) &&
		     (info.caps & IPU_DEVICE_CAP_LAUNCH);
		ipu_device_close(dev);
	}
	ipu_device_list_free(list);
	return ok;
}

/*
 * What "auto" is: IPU_DEVICE's backend when it names one, as libipu's
 * "auto" does; else hardware that can run the program; else the model.
 * IPU_DEVICE is read with libipu's parser, and a value it refuses, or a
 * device that does not exist, is an error: running on the model instead
 * would hide the mistake. A value that names an IPU ("model:3") is the
 * one attach takes, the first of the session's set: attaching another,
 * free one would run where the user did not ask.
 */
static int resolve_auto(struct ipu_session *s, uint32_t need,
			const struct device_type **tp)
{
	const char *env = getenv("IPU_DEVICE");
	struct ipu_device_list *list;
	enum sess_backend b;
	char backend[16];
	size_t count;
	int index, err;

	if (env && ipu_device_name_parse(env, backend, sizeof(backend), &index))
		return ipu_sess_err(s, -EINVAL, "IPU_DEVICE=\"%s\": %s", env,
				    ipu_errmsg());
	if (!env || !backend[0]) {
		*tp = hw_can_run(need) ? find_type("ipu_hw") : find_type("ipu_model");
		return 0;
	}
	if (!strcmp(backend, "model"))
		b = SESS_MODEL;
	else if (!strcmp(backend, "hw"))
		b = SESS_HW;
	else /* a backend registered for libipu's tests: not a session's */
		return ipu_sess_err(s, -EINVAL, "IPU_DEVICE=\"%s\": backend \"%s\" has no session device type",
				    env, backend);
	*tp = find_type(b == SESS_MODEL ? "ipu_model" : "ipu_hw");
	if (index < 0)
		return 0;
	err = ipu_sess_list_devices(b, &list, &count);
	if (err)
		return ipu_sess_err(s, err, "IPU_DEVICE=\"%s\": listing IPUs: %s",
				    env, ipu_errmsg());
	ipu_device_list_free(list);
	if ((size_t)index >= count)
		return ipu_sess_err(s, -ENOENT, "IPU_DEVICE=\"%s\": no such IPU (%s has %zu: see ipu-info%s)",
				    env, backend, count, b == SESS_MODEL ? " --model" : "");
	/* Sets of IPUs are aligned (attach.c): the named IPU starts one. */
	if ((uint32_t)index % need)
		return ipu_sess_err(s, -EINVAL, "IPU_DEVICE=\"%s\": the program needs %u IPUs, an aligned set, and %s:%d does not start one (%s:%u or %s:%u does)",
				    env, need, backend, index, backend,
				    (uint32_t)index / need * need, backend,
				    ((uint32_t)index / need + 1) * need);
	if ((uint64_t)index + need > count)
		return ipu_sess_err(s, -ENOENT, "IPU_DEVICE=\"%s\": the program needs %u IPUs from %s:%d, %s has %zu (see ipu-info%s)",
				    env, need, backend, index, backend, count,
				    b == SESS_MODEL ? " --model" : "");
	s->want_ipu = index;
	snprintf(s->want_name, sizeof(s->want_name), "%s", env);
	return 0;
}

/* S03: 2^ceil(log2(ipus_per_replica * instance_replication_factor)). */
static uint32_t ipus_needed(const struct ipu_exe *exe)
{
	uint64_t n = (uint64_t)exe->ipus_per_replica *
		     exe->instance_replication_factor;
	uint64_t p = 1;

	while (p < n)
		p <<= 1;
	return (uint32_t)p; /* the validator keeps n <= 2^31 */
}

static int choose_device(struct ipu_session *s, const char *desc)
{
	const char *offline = getenv("IPU_OFFLINE_DEVICE");
	bool is_offline = offline && offline[0];
	const struct device_type *t = NULL;
	struct ipu_device_list *list;
	size_t count;
	int err;

	if (is_offline) {
		/* S04: build for that type; IPUs are acquired on entry. */
		t = find_type(offline);
		if (!t)
			return ipu_sess_err(s, -EINVAL,
					    "IPU_OFFLINE_DEVICE=\"%s\" is not a device type: use \"ipu_hw\", \"ipu_model\" or \"cpu\"",
					    offline);
	} else if (!desc || !desc[0] || !strcmp(desc, "auto")) {
		err = resolve_auto(s, s->num_ipus, &t);
		if (err)
			return err;
	} else {
		t = find_type(desc);
		if (!t)
			return ipu_sess_err(s, -EINVAL,
					    "unknown device \"%s\": valid devices are " VALID_DEVICES,
					    desc);
	}
	if (t->one_ipu && s->num_ipus > 1)
		return ipu_sess_err(s, -EINVAL,
				    "device \"cpu\" is one IPU without replication; the program needs %u IPUs (%u per replica, %u replicas): use \"ipu_model\"",
				    s->num_ipus, s->ipus_per_replica, s->replicas);
	s->backend = t->backend;
	s->device_name = t->name;
	if (is_offline)
		return 0;
	err = ipu_sess_list_devices(t->backend, &list, &count);
	if (err)
		return ipu_sess_err(s, err, "device \"%s\": listing IPUs: %s",
				    t->name, ipu_errmsg());
	ipu_device_list_free(list);
	if (count < s->num_ipus)
		return ipu_sess_err(s, -ENODEV,
				    "device \"%s\" has %zu IPUs, the program needs %u (see ipu-info)",
				    t->name, count, s->num_ipus);
	return 0;
}

/* The options before data_dir came: what older callers pass. */
#define SESSION_OPTS_SZ_V1 offsetof(struct ipu_session_opts, data_dir)

/*
 * libbpf's rules: the caller's struct may be bigger if the rest is 0, or
 * an older, smaller one (members it lacks are 0). Copies it into @o.
 */
static int check_opts(struct ipu_session *s, const struct ipu_session_opts *in,
		      struct ipu_session_opts *o)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t i;

	if (in->sz < SESSION_OPTS_SZ_V1)
		return ipu_sess_err(s, -EINVAL,
				    "session options of %zu bytes: at least %zu",
				    in->sz, SESSION_OPTS_SZ_V1);
	for (i = sizeof(*o); i < in->sz; i++)
		if (p[i])
			return ipu_sess_err(s, -E2BIG,
					    "session options: non-zero byte %zu past the %zu this libsession knows",
					    i, sizeof(*o));
	memset(o, 0, sizeof(*o));
	memcpy(o, in, in->sz < sizeof(*o) ? in->sz : sizeof(*o));
	if (o->flags & ~IPU_SESSION_FLAGS_ALL)
		return ipu_sess_err(s, -EINVAL,
				    "session options: unknown flags 0x%x",
				    o->flags & ~IPU_SESSION_FLAGS_ALL);
	return 0;
}

/* S22: the directory the caller lets the executable's files come from. */
static int grant_data_dir(struct ipu_session *s, const char *dir)
{
	int err;

	if (!dir)
		return 0;
	if (!dir[0])
		return ipu_sess_err(s, -EINVAL,
				    "session options: data_dir is \"\" (NULL grants no directory)");
	s->data_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->data_fd < 0) {
		err = -errno;
		return ipu_sess_err(s, err, "data directory '%s': %s", dir,
				    strerror(-err));
	}
	s->data_dir = dir;
	return 0;
}

static void drop_data_dir(struct ipu_session *s)
{
	if (s->data_fd >= 0)
		close(s->data_fd);
	s->data_fd = -1;
	s->data_dir = NULL;
}

/*
 * A program split across instances (docs/instances.md) runs as the
 * instance the process is (ipu_model_set_instances(), which libipu-mpi
 * sets from the MPI launcher): its replicas are @base.. of @rf.
 */
static int set_instance(struct ipu_session *s)
{
	const struct ipu_exe *exe = s->exe;
	const struct ipufw_instances *inst = ipu_model_instances();

	s->replicas = exe->instance_replication_factor;
	s->rf = exe->replication_factor;
	s->base = 0;
	if (s->replicas == s->rf)
		return 0;
	if (!inst || (uint64_t)inst->count * s->replicas != s->rf ||
	    inst->index >= inst->count)
		return ipu_sess_err(s, -EINVAL,
				    "the program \"%s\" runs %u of its %u replicas per instance, as %u instances; this process is %s%u of %u (see ipu_mpi_instances_init())",
				    exe->name, s->replicas, s->rf,
				    s->rf / s->replicas,
				    inst ? "instance " : "not split: instance ",
				    inst ? inst->index : 0,
				    inst ? inst->count : 1);
	s->base = inst->index * s->replicas;
	return 0;
}

static int setup(struct ipu_session *s, const struct ipu_session_opts *given)
{
	const struct ipu_exe *exe = s->exe;
	struct ipu_session_opts copy, *opts = NULL;
	char msg[512];
	int err;

	if (given) {
		err = check_opts(s, given, &copy);
		if (err)
			return err;
		opts = &copy;
	}
	if (exe->num_instrs == 0)
		return ipu_sess_err(s, -EINVAL,
				    "the program \"%s\" has no graphs: the graphs may have all been optimised to nothing, try adding more operations to your graphs",
				    exe->name);
	s->ipus_per_replica = exe->ipus_per_replica;
	err = set_instance(s);
	if (err)
		return err;
	s->transfers = exe->num_host_transfers;
	s->num_ipus = ipus_needed(exe);
	s->attach_timeout_ms = opts && opts->attach_timeout_ms ?
				       opts->attach_timeout_ms :
				       SESS_DEFAULT_ATTACH_TIMEOUT_MS;
	s->wait_timeout_ms = opts ? opts->wait_timeout_ms : 0;
	err = choose_device(s, opts ? opts->device : NULL);
	if (err)
		return err;
	/* The image launches run; saving also validates the executable. */
	err = ipu_exe_save(exe, &s->image, &s->image_size, msg, sizeof(msg));
	if (err)
		return ipu_sess_err(s, err, "the executable: %s", msg);
	err = ipu_sess_streams_init(s);
	if (!err)
		err = grant_data_dir(s, opts ? opts->data_dir : NULL);
	if (!err)
		err = ipu_sess_tensors_init(s);
	/* The files are mapped now: the directory is needed no more. */
	drop_data_dir(s);
	/* Last: a create that fails leaves the trace file as it was. */
	if (!err)
		err = ipu_sess_trace_open(s, opts ? opts->trace : NULL);
	if (err)
		return err;
	/* S05: a read-only mapping cannot take the device's values. */
	s->to_host_on_exit = !(opts && opts->flags &
			       IPU_SESSION_NO_WEIGHTS_TO_HOST_ON_EXIT);
	if (s->ro_mmap && s->to_host_on_exit) {
		s->to_host_on_exit = false;
		ipu_sess_log("weights to host on exit has been disabled: the program holds the read-only memory-mapped variable '%s'",
			     s->ro_mmap->t->name);
	}
	return 0;
}

int ipu_session_create_from_exe(struct ipu_exe *exe,
				const struct ipu_session_opts *opts,
				struct ipu_session **sp)
{
	struct ipu_session *s;
	int err;

	if (!exe || !sp) {
		ipu_exe_free(exe);
		return ipu_sess_err(NULL, -EINVAL, "ipu_session_create: %s is NULL",
				    exe ? "sp" : "the executable");
	}
	*sp = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		ipu_exe_free(exe);
		return ipu_sess_err(NULL, -ENOMEM, "no memory for a session");
	}
	s->exe = exe;
	s->data_fd = -1;
	s->want_ipu = -1;
	err = setup(s, opts);
	if (err) {
		ipu_sess_err(NULL, err, "%s", s->errmsg);
		ipu_session_destroy(s);
		return err;
	}
	*sp = s;
	return 0;
}

int ipu_session_create(struct ipu_ir *ir, const struct ipu_session_opts *opts,
		       struct ipu_session **sp)
{
	struct ipu_exe *exe;
	int err;

	if (!ir || !sp) {
		ipu_ir_destroy(ir);
		return ipu_sess_err(NULL, -EINVAL, "ipu_session_create: %s is NULL",
				    ir ? "sp" : "ir");
	}
	*sp = NULL;
	/* S01: the session owns the program from here on. */
	err = ipu_ir_compile(ir, &exe);
	if (err) {
		ipu_sess_err(NULL, err, "compiling the program: %s",
			     ipu_ir_errmsg(ir));
		ipu_ir_destroy(ir);
		return err;
	}
	ipu_ir_destroy(ir);
	return ipu_session_create_from_exe(exe, opts, sp);
}

void ipu_session_destroy(struct ipu_session *s)
{
	if (!s)
		return;
	if (s->depth)
		ipu_sess_release(s);
	/* The trace names streams and variables: before they go. */
	ipu_sess_trace_close(s);
	ipu_sess_tensors_free(s);
	ipu_sess_streams_free(s);
	free(s->scratch);
	free(s->image);
	ipu_exe_free(s->exe);
	free(s);
}

const struct ipu_exe *ipu_session_exe(const struct ipu_session *s)
{
	return s ? s->exe : NULL;
}

const char *ipu_session_device_name(const struct ipu_session *s)
{
	return s && s->device_name ? s->device_name : "";
}

uint32_t ipu_session_num_ipus(const struct ipu_session *s)
{
	return s ? s->num_ipus : 0;
}
