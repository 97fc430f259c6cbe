// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * device.c - opening devices by name and the calls on a whole device.
 *
 * A name is "<backend>:<index>" ("hw:0"), or "auto": the IPU_DEVICE
 * environment variable if set, else the first device, in the order
 * ipu_device_list_create() lists them (hardware first), that opens (and
 * attaches, with IPU_OPEN_ATTACH), else the first model device that does.
 * IPU_DEVICE may also name a backend alone ("hw", "model"): the first of
 * its devices, without falling back to another backend.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "internal.h"

#define IPU_OPEN_OPTS_SZ_V1 sizeof(struct ipu_open_opts)
#define IPU_DEVICE_INFO_SZ_V1 sizeof(struct ipu_device_info)

/* launch_timeout_ms went into the first version's tail padding, so that
 * callers built before it pass the same sz. */
_Static_assert(sizeof(struct ipu_device_info) == 80,
	       "struct ipu_device_info changed size");

/* Split "<prefix>:<index>"; the index is decimal, no sign, no padding. */
static int parse_name(const char *name, const struct ipu_backend_ops **opsp,
		      unsigned int *index)
{
	const char *colon = strchr(name, ':');
	const char *num;
	unsigned long v;
	char *end;

	if (!colon || colon == name)
		return ipu_err(-EINVAL,
			       "device name \"%s\": expected \"<backend>:<index>\", e.g. \"hw:0\", a backend (\"hw\", \"model\"), or \"auto\"",
			       name);
	num = colon + 1;
	if (*num < '0' || *num > '9' || (num[0] == '0' && num[1]))
		return ipu_err(-EINVAL, "device name \"%s\": bad index", name);
	errno = 0;
	v = strtoul(num, &end, 10);
	if (errno || *end || v > INT_MAX)
		return ipu_err(-EINVAL, "device name \"%s\": bad index", name);
	*opsp = ipu_backend_find(name, colon - name);
	if (!*opsp)
		return ipu_err(-EINVAL, "device name \"%s\": unknown backend \"%.*s\"",
			       name, (int)(colon - name), name);
	*index = v;
	return 0;
}

int ipu_device_name_parse(const char *name, char *backend, size_t len,
			  int *index)
{
	IPU_KEEP_ERRNO();
	const struct ipu_backend_ops *ops;
	unsigned int i;
	int err;

	if (!name || !backend || !index)
		return ipu_err(-EINVAL, "ipu_device_name_parse: %s is NULL",
			       !name ? "name" : !backend ? "backend" : "index");
	*index = -1;
	if (!name[0] || !strcmp(name, "auto")) {
		ops = NULL;
	} else if (!strchr(name, ':') && (ops = ipu_backend_find(name, strlen(name)))) {
		/* a backend alone */
	} else {
		err = parse_name(name, &ops, &i);
		if (err)
			return err;
		*index = (int)i;
	}
	if (len <= (ops ? strlen(ops->prefix) : 0))
		return ipu_err(-EINVAL, "device name \"%s\": %zu bytes for its backend",
			       name, len);
	snprintf(backend, len, "%s", ops ? ops->prefix : "");
	return 0;
}

static int open_one(const struct ipu_backend_ops *ops, unsigned int index,
		    uint32_t flags, struct ipu_device **devp)
{
	struct ipu_device *dev;
	const char *hint;
	int err;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return ipu_err(-ENOMEM, "opening %s:%u", ops->prefix, index);
	dev->ops = ops;
	dev->index = index;
	snprintf(dev->name, sizeof(dev->name), "%s:%u", ops->prefix, index);
	/* Default mutexes cannot fail to initialise on Linux. */
	pthread_mutex_init(&dev->lock, NULL);
	pthread_mutex_init(&dev->sync_lock, NULL);

	err = ops->open(dev, index);
	if (err) {
		hint = ops->open_error ? ops->open_error(err) : NULL;
		if (hint)
			ipu_err(err, "opening %s: %s", dev->name, hint);
		else
			ipu_err(err, "opening %s", dev->name);
		goto err_free;
	}
	if (flags & IPU_OPEN_ATTACH) {
		err = ops->attach(dev);
		if (err) {
			ipu_err(err, "%s: attaching", dev->name);
			goto err_close;
		}
	}
	*devp = dev;
	return 0;

err_close:
	ops->close(dev);
err_free:
	pthread_mutex_destroy(&dev->sync_lock);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
	return err;
}

/* Try the devices of @list in order; the error of the last one tried,
 * -ENODEV when there was none. */
static int open_listed(struct ipu_device_list *list, uint32_t flags,
		       struct ipu_device **devp)
{
	const struct ipu_device_entry *e;
	const struct ipu_backend_ops *ops;
	unsigned int index;
	int last = -ENODEV;
	size_t i;

	for (i = 0; (e = ipu_device_list_get(list, i)); i++) {
		if (parse_name(e->name, &ops, &index))
			continue;
		last = open_one(ops, index, flags, devp);
		if (!last)
			break;
	}
	return last;
}

/* The first device of @only's backend (NULL: of any backend listed by
 * default) that opens. */
static int open_first(const struct ipu_backend_ops *only, uint32_t flags,
		      struct ipu_device **devp)
{
	struct ipu_device_list *list;
	int err;

	if (only)
		err = ipu_device_list_of(only, &list);
	else
		err = ipu_device_list_create(&list);
	if (err)
		return err;
	err = open_listed(list, flags, devp);
	ipu_device_list_free(list);
	return err;
}

static int auto_failed(int err, const char *what, uint32_t flags)
{
	char why[256];

	if (err == -ENODEV)
		return ipu_err(err, "auto: no %s device found", what);
	snprintf(why, sizeof(why), "%s", ipu_errmsg());
	return ipu_err(err, "auto: no %s device could be %s (last: %s)", what,
		       flags & IPU_OPEN_ATTACH ? "attached" : "opened", why);
}

/*
 * "auto": @policy is IPU_DEVICE's backend name, or NULL for hardware (and
 * test backends) first, then the model.
 */
static int open_auto(const char *policy, uint32_t flags,
		     struct ipu_device **devp)
{
	const struct ipu_backend_ops *ops;
	int err;

	if (policy) {
		ops = ipu_backend_find(policy, strlen(policy));
		err = open_first(ops, flags, devp);
		return err ? auto_failed(err, policy, flags) : 0;
	}
	err = open_first(NULL, flags, devp);
	if (err) /* no hardware that opens: the model */
		err = open_first(&ipu_backend_model, flags, devp);
	return err ? auto_failed(err, "IPU", flags) : 0;
}

int ipu_device_open(const char *name, const struct ipu_open_opts *opts,
		    struct ipu_device **devp)
{
	IPU_KEEP_ERRNO();
	const struct ipu_backend_ops *ops;
	unsigned int index;
	uint32_t flags = 0;
	const char *env;
	int err;

	if (!devp)
		return ipu_err(-EINVAL, "ipu_device_open: devp is NULL");
	*devp = NULL;
	if (opts) {
		err = ipu_opts_check(opts, opts->sz, IPU_OPEN_OPTS_SZ_V1,
				     sizeof(*opts));
		if (err)
			return ipu_err(err, "ipu_device_open: options of %zu bytes (this libipu knows %zu)",
				       opts->sz, sizeof(*opts));
		flags = opts->flags;
		if (flags & ~IPU_OPEN_FLAGS_ALL)
			return ipu_err(-EINVAL, "ipu_device_open: unknown flags 0x%x",
				       flags & ~IPU_OPEN_FLAGS_ALL);
	}

	if (!name || !strcmp(name, "auto")) {
		env = getenv("IPU_DEVICE");
		if (!env || !env[0] || !strcmp(env, "auto"))
			return open_auto(NULL, flags, devp);
		if (!strchr(env, ':') && ipu_backend_find(env, strlen(env)))
			return open_auto(env, flags, devp);
		name = env;
		err = parse_name(name, &ops, &index);
		if (err) {
			char why[256];

			/* The caller asked for "auto": say where the name came from. */
			snprintf(why, sizeof(why), "%s", ipu_errmsg());
			return ipu_err(err, "IPU_DEVICE=\"%s\": %s", env, why);
		}
		return open_one(ops, index, flags, devp);
	}
	err = parse_name(name, &ops, &index);
	if (err)
		return err;
	return open_one(ops, index, flags, devp);
}

void ipu_device_close(struct ipu_device *dev)
{
	IPU_KEEP_ERRNO();

	if (!dev)
		return;
	/* Its commands name the BOs: the queue goes first. */
	ipu_queue_destroy(dev->sync_q);
	ipu_bo_destroy_all(dev);
	dev->ops->close(dev);
	pthread_mutex_destroy(&dev->sync_lock);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

const char *ipu_device_name(const struct ipu_device *dev)
{
	return dev ? dev->name : "";
}

int ipu_device_query(struct ipu_device *dev, struct ipu_device_info *info)
{
	IPU_KEEP_ERRNO();
	struct ipu_device_info full;
	int err;

	if (!dev || !info)
		return ipu_err(-EINVAL, "ipu_device_query: %s is NULL",
			       dev ? "info" : "dev");
	if (info->sz < IPU_DEVICE_INFO_SZ_V1)
		return ipu_err(-EINVAL, "%s: ipu_device_info of %zu bytes, at least %zu needed",
			       dev->name, info->sz, IPU_DEVICE_INFO_SZ_V1);
	memset(&full, 0, sizeof(full));
	full.sz = sizeof(full);
	err = dev->ops->query(dev, &full);
	if (err)
		return ipu_err(err, "%s: querying the device", dev->name);
	return ipu_out_copy(info, info->sz, &full, IPU_DEVICE_INFO_SZ_V1,
			    sizeof(full));
}

int ipu_device_attach(struct ipu_device *dev)
{
	IPU_KEEP_ERRNO();
	int err;

	if (!dev)
		return ipu_err(-EINVAL, "ipu_device_attach: dev is NULL");
	err = dev->ops->attach(dev);
	if (err == -EBUSY)
		return ipu_err(err, "%s: attaching: another process owns the device (see its owner_pid)",
			       dev->name);
	if (err)
		return ipu_err(err, "%s: attaching", dev->name);
	return 0;
}

int ipu_device_detach(struct ipu_device *dev)
{
	IPU_KEEP_ERRNO();
	int err;

	if (!dev)
		return ipu_err(-EINVAL, "ipu_device_detach: dev is NULL");
	err = dev->ops->detach(dev);
	if (err)
		return ipu_err(err, "%s: detaching", dev->name);
	return 0;
}

int ipu_device_reset(struct ipu_device *dev)
{
	IPU_KEEP_ERRNO();
	int err;

	if (!dev)
		return ipu_err(-EINVAL, "ipu_device_reset: dev is NULL");
	err = dev->ops->reset(dev);
	if (err)
		return ipu_err(err, "%s: resetting", dev->name);
	return 0;
}
