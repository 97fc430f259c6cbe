// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * enumerate.c - ipu_device_list: a snapshot of the devices of every backend.
 *
 * Each backend adds its devices through ipu_device_list_add(), which copies
 * the entry and its strings into storage the list owns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "internal.h"

struct ipu_device_list {
	struct ipu_device_entry **entries;
	size_t count;
	size_t cap;
};

static size_t str_size(const char *s)
{
	return s ? strlen(s) + 1 : 1;
}

static char *str_put(char **pos, const char *s)
{
	char *start = *pos;
	size_t n = str_size(s);

	if (s)
		memcpy(start, s, n);
	else
		start[0] = '\0';
	*pos += n;
	return start;
}

int ipu_device_list_add(struct ipu_device_list *list,
			const struct ipu_device_entry *entry)
{
	struct ipu_device_entry *e, **tmp;
	size_t cap;
	char *pos;

	if (list->count == list->cap) {
		cap = list->cap ? 2 * list->cap : 8;
		tmp = realloc(list->entries, cap * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		list->entries = tmp;
		list->cap = cap;
	}
	/* The entry and its strings in one block. */
	e = malloc(sizeof(*e) + str_size(entry->name) + str_size(entry->node) +
		   str_size(entry->platform_name));
	if (!e)
		return -ENOMEM;
	*e = *entry;
	pos = (char *)(e + 1);
	e->name = str_put(&pos, entry->name);
	e->node = str_put(&pos, entry->node);
	e->platform_name = str_put(&pos, entry->platform_name);
	list->entries[list->count++] = e;
	return 0;
}

#define IPU_LIST_OPTS_SZ_V1 sizeof(struct ipu_list_opts)

/* Add the devices of @ops to @list. */
static int list_backend(struct ipu_device_list *list,
			const struct ipu_backend_ops *ops)
{
	return ops->enumerate ? ops->enumerate(list) : 0;
}

int ipu_device_list_of(const struct ipu_backend_ops *ops,
		       struct ipu_device_list **listp)
{
	struct ipu_device_list *list;
	int err;

	list = calloc(1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	err = list_backend(list, ops);
	if (err) {
		ipu_device_list_free(list);
		return err;
	}
	*listp = list;
	return 0;
}

int ipu_device_list_create_opts(const struct ipu_list_opts *opts,
				struct ipu_device_list **listp)
{
	IPU_KEEP_ERRNO();
	const struct ipu_backend_ops *ops;
	struct ipu_device_list *list;
	uint32_t flags = 0;
	size_t i;
	int err;

	if (!listp)
		return ipu_err(-EINVAL, "ipu_device_list_create: listp is NULL");
	*listp = NULL;
	if (opts) {
		err = ipu_opts_check(opts, opts->sz, IPU_LIST_OPTS_SZ_V1,
				     sizeof(*opts));
		if (err)
			return ipu_err(err, "ipu_device_list_create_opts: options of %zu bytes (this libipu knows %zu)",
				       opts->sz, sizeof(*opts));
		flags = opts->flags;
		if (flags & ~IPU_LIST_FLAGS_ALL)
			return ipu_err(-EINVAL, "ipu_device_list_create_opts: unknown flags 0x%x",
				       flags & ~IPU_LIST_FLAGS_ALL);
	}
	list = calloc(1, sizeof(*list));
	if (!list)
		return ipu_err(-ENOMEM, "ipu_device_list_create");
	for (i = 0; (ops = ipu_backend_at(i)); i++) {
		if (ops->list_flag && !(flags & ops->list_flag))
			continue;
		err = list_backend(list, ops);
		if (err) {
			/* A bad setting says which, as opening does. */
			const char *hint = ops->open_error ?
						   ops->open_error(err) : NULL;

			ipu_device_list_free(list);
			if (hint && hint[0])
				return ipu_err(err, "listing the \"%s\" devices: %s",
					       ops->prefix, hint);
			return ipu_err(err, "listing the \"%s\" devices",
				       ops->prefix);
		}
	}
	*listp = list;
	return 0;
}

int ipu_device_list_create(struct ipu_device_list **listp)
{
	IPU_KEEP_ERRNO();

	return ipu_device_list_create_opts(NULL, listp);
}

size_t ipu_device_list_count(const struct ipu_device_list *list)
{
	return list ? list->count : 0;
}

const struct ipu_device_entry *
ipu_device_list_get(const struct ipu_device_list *list, size_t i)
{
	if (!list || i >= list->count)
		return NULL;
	return list->entries[i];
}

void ipu_device_list_free(struct ipu_device_list *list)
{
	IPU_KEEP_ERRNO();
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->count; i++)
		free(list->entries[i]);
	free(list->entries);
	free(list);
}
