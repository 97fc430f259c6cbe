// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * cmd.c - checking commands before any of a batch runs.
 *
 * Everything that can be known about a command without running it is
 * checked here, in the front end, for every backend alike: a batch that
 * io_uring would take in one io_uring_enter() must not be half accepted.
 * The checks a backend needs its own state for (a replica of a run already
 * in flight on the queue) are the backend's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "internal.h"

#define IPU_XFER_DESC_FLAGS_ALL 0u
#define IPU_LAUNCH_FLAGS_ALL IPU_LAUNCH_F_PROFILE

/* The size of a command is ABI: arrays of them cross the library boundary.
 * Since the split launch's fields, a launch fills the union on 64-bit
 * machines: a later launch field needs a launch flag that says where it
 * is, not the union's tail. */
_Static_assert(sizeof(struct ipu_cmd) == 96, "struct ipu_cmd changed size");
_Static_assert(sizeof(struct ipu_launch_desc) <= sizeof(((struct ipu_cmd *)0)->reserved_) &&
	       sizeof(struct ipu_xfer_desc) <= sizeof(((struct ipu_cmd *)0)->reserved_),
	       "a descriptor outgrew the command");

static const char *dir_name(uint32_t dir)
{
	return dir == IPU_XFER_DIR_TO_DEVICE ? "to device" : "from device";
}

int ipu_xfer_check(const struct ipu_xfer_desc *d, const char *who,
		   const char *what, size_t i)
{
	const struct ipu_bo *bo = d->bo;

	if (!bo)
		return ipu_err(-EINVAL, "%s: %s %zu: bo is NULL", who, what, i);
	if (d->dir != IPU_XFER_DIR_TO_DEVICE && d->dir != IPU_XFER_DIR_FROM_DEVICE)
		return ipu_err(-EINVAL, "%s: %s %zu: unknown direction %u", who,
			       what, i, d->dir);
	if (d->flags & ~IPU_XFER_DESC_FLAGS_ALL)
		return ipu_err(-EINVAL, "%s: %s %zu: unknown flags 0x%x", who,
			       what, i, d->flags);
	if (!d->host)
		return ipu_err(-EINVAL, "%s: %s %zu: host buffer is NULL", who,
			       what, i);
	if (d->length == 0)
		return ipu_err(-EINVAL, "%s: %s %zu: length 0", who, what, i);
	if (d->bo_offset > bo->size || d->length > bo->size - d->bo_offset)
		return ipu_err(-EINVAL,
			       "%s: %s %zu (%s): %llu bytes at offset %llu pass the end of buffer object %u (%llu bytes)",
			       who, what, i, dir_name(d->dir),
			       (unsigned long long)d->length,
			       (unsigned long long)d->bo_offset, bo->handle,
			       (unsigned long long)bo->size);
	return 0;
}

/* A split launch's instance and staging area (struct ipu_launch_desc). */
static int check_split(const struct ipu_launch_desc *l, size_t i)
{
	const struct ipu_bo *arena = l->arena_bo, *st = l->staging_bo;

	if (!l->instance_count) {
		if (l->instance_index || st || l->staging_offset ||
		    l->staging_size)
			return ipu_err(-EINVAL, "%s: command %zu (launch): instance or staging fields set with instance_count 0 (a program of one instance)",
				       arena->dev->name, i);
		return 0;
	}
	if (l->instance_count > IPU_LAUNCH_MAX_INSTANCES ||
	    l->instance_index >= l->instance_count)
		return ipu_err(-EINVAL, "%s: command %zu (launch): instance %u of %u (at most %u instances)",
			       arena->dev->name, i, l->instance_index,
			       l->instance_count, IPU_LAUNCH_MAX_INSTANCES);
	if (!st)
		return ipu_err(-EINVAL, "%s: command %zu (launch): a split launch without a staging buffer object",
			       arena->dev->name, i);
	if (st->dev != arena->dev)
		return ipu_err(-EINVAL, "%s: command %zu (launch): the staging area is on %s: it must be on the device that runs the replica",
			       arena->dev->name, i, st->dev->name);
	if (!l->staging_size || l->staging_offset % IPU_LAUNCH_STAGING_ALIGN ||
	    l->staging_offset > st->size ||
	    l->staging_size > st->size - l->staging_offset)
		return ipu_err(-EINVAL, "%s: command %zu (launch): a staging area of %u bytes at offset %u in buffer object %u of %llu bytes (must be non-empty, inside, at a multiple of %u)",
			       arena->dev->name, i, l->staging_size,
			       l->staging_offset, st->handle,
			       (unsigned long long)st->size,
			       IPU_LAUNCH_STAGING_ALIGN);
	return 0;
}

static int check_launch(const struct ipu_launch_desc *l, size_t i)
{
	const struct ipu_bo *exe = l->exe_bo, *arena = l->arena_bo;
	uint64_t room;

	if (!exe || !arena)
		return ipu_err(-EINVAL, "queue: command %zu (launch): %s is NULL",
			       i, exe ? "arena_bo" : "exe_bo");
	if (exe->dev != arena->dev)
		return ipu_err(-EINVAL,
			       "queue: command %zu (launch): the executable is on %s, the arena on %s: both must be on the device that runs the replica",
			       i, exe->dev->name, arena->dev->name);
	if (l->flags & ~IPU_LAUNCH_FLAGS_ALL)
		return ipu_err(-EINVAL, "%s: command %zu (launch): unknown flags 0x%x",
			       arena->dev->name, i, l->flags);
	if (l->exe_size == 0 || l->exe_size > exe->size)
		return ipu_err(-EINVAL,
			       "%s: command %zu (launch): an executable of %llu bytes in buffer object %u of %llu bytes",
			       exe->dev->name, i,
			       (unsigned long long)l->exe_size, exe->handle,
			       (unsigned long long)exe->size);
	if (l->arena_offset % IPU_LAUNCH_ARENA_ALIGN ||
	    l->arena_offset >= arena->size)
		return ipu_err(-EINVAL,
			       "%s: command %zu (launch): arena offset %llu in buffer object %u of %llu bytes (must be inside and a multiple of %u)",
			       arena->dev->name, i,
			       (unsigned long long)l->arena_offset, arena->handle,
			       (unsigned long long)arena->size,
			       IPU_LAUNCH_ARENA_ALIGN);
	room = arena->size - l->arena_offset;
	if (l->arena_size > room)
		return ipu_err(-EINVAL,
			       "%s: command %zu (launch): an arena of %llu bytes at offset %llu passes the end of buffer object %u (%llu bytes)",
			       arena->dev->name, i,
			       (unsigned long long)l->arena_size,
			       (unsigned long long)l->arena_offset, arena->handle,
			       (unsigned long long)arena->size);
	if (l->num_replicas == 0 || l->num_replicas > IPU_LAUNCH_MAX_REPLICAS ||
	    l->replica >= l->num_replicas)
		return ipu_err(-EINVAL,
			       "%s: command %zu (launch): replica %u of %u (at most %u replicas)",
			       arena->dev->name, i, l->replica, l->num_replicas,
			       IPU_LAUNCH_MAX_REPLICAS);
	return check_split(l, i);
}

struct ipu_device *ipu_cmd_device(const struct ipu_cmd *cmd)
{
	if (cmd->op == IPU_CMD_XFER)
		return cmd->xfer.bo->dev;
	return cmd->launch.arena_bo->dev;
}

/* The union's bytes past the @used bytes of the descriptor must be zero. */
static int check_tail(const struct ipu_cmd *cmd, size_t used, size_t i)
{
	const unsigned char *p = (const unsigned char *)cmd->reserved_;
	size_t k;

	for (k = used; k < sizeof(cmd->reserved_); k++)
		if (p[k])
			return ipu_err(-E2BIG,
				       "queue: command %zu: non-zero byte %zu past its descriptor (zero commands before filling them)",
				       i, k);
	return 0;
}

static int check_one(const struct ipu_backend_ops *ops,
		     const struct ipu_cmd *cmd, size_t i)
{
	const struct ipu_device *dev;
	int err;

	if (cmd->flags & ~IPU_CMD_F_ALL)
		return ipu_err(-EINVAL, "queue: command %zu: unknown flags 0x%x",
			       i, cmd->flags & ~IPU_CMD_F_ALL);
	switch (cmd->op) {
	case IPU_CMD_XFER:
		err = check_tail(cmd, sizeof(cmd->xfer), i);
		if (!err)
			err = ipu_xfer_check(&cmd->xfer, "queue", "command", i);
		break;
	case IPU_CMD_LAUNCH:
		err = check_tail(cmd, sizeof(cmd->launch), i);
		if (!err)
			err = check_launch(&cmd->launch, i);
		break;
	default:
		return ipu_err(-EINVAL, "queue: command %zu: unknown op %u", i,
			       cmd->op);
	}
	if (err)
		return err;
	dev = ipu_cmd_device(cmd);
	if (dev->ops != ops)
		return ipu_err(-EINVAL,
			       "queue: command %zu is for %s, of the \"%s\" backend; this queue is for the \"%s\" backend",
			       i, dev->name, dev->ops->prefix, ops->prefix);
	return 0;
}

static bool in_a_run(const struct ipu_cmd *cmd)
{
	return cmd->op == IPU_CMD_LAUNCH && cmd->launch.num_replicas > 1;
}

/*
 * Launches of one run in the batch: they agree on the replica count, name
 * each replica once, and no chain holds two of them (the second could only
 * start after the first, which waits for the second).
 */
static int check_runs(const struct ipu_cmd *cmds, size_t n)
{
	const struct ipu_launch_desc *a, *b;
	size_t i, j, chain_i, chain_j;

	for (i = 0, chain_i = 0; i < n; i++) {
		if (i && !(cmds[i - 1].flags & IPU_CMD_F_LINK))
			chain_i = i;
		if (!in_a_run(&cmds[i]))
			continue;
		a = &cmds[i].launch;
		for (j = 0, chain_j = 0; j < i; j++) {
			if (j && !(cmds[j - 1].flags & IPU_CMD_F_LINK))
				chain_j = j;
			if (!in_a_run(&cmds[j]) || cmds[j].launch.group != a->group)
				continue;
			b = &cmds[j].launch;
			if (b->num_replicas != a->num_replicas)
				return ipu_err(-EINVAL,
					       "queue: command %zu (launch): group %llu has %u replicas, command %zu says %u",
					       i, (unsigned long long)a->group,
					       a->num_replicas, j, b->num_replicas);
			if (b->replica == a->replica)
				return ipu_err(-EINVAL,
					       "queue: command %zu (launch): replica %u of group %llu is command %zu too",
					       i, a->replica,
					       (unsigned long long)a->group, j);
			if (chain_j == chain_i)
				return ipu_err(-EINVAL,
					       "queue: command %zu (launch): linked after command %zu, a launch of the same run (group %llu), which would wait for it forever",
					       i, j, (unsigned long long)a->group);
		}
	}
	return 0;
}

int ipu_run_conflict(const struct ipu_launch_desc *l, size_t i, uint32_t nrep,
		     bool seen, char *why, size_t whylen)
{
	if (nrep != l->num_replicas) {
		snprintf(why, whylen, "command %zu (launch): group %llu, in flight, has %u replicas, not %u",
			 i, (unsigned long long)l->group, nrep, l->num_replicas);
		return -EINVAL;
	}
	if (seen) {
		snprintf(why, whylen, "command %zu (launch): replica %u of group %llu is in flight already",
			 i, l->replica, (unsigned long long)l->group);
		return -EINVAL;
	}
	return 0;
}

int ipu_cmd_check_batch(const struct ipu_backend_ops *ops,
			const struct ipu_cmd *cmds, size_t n)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		err = check_one(ops, &cmds[i], i);
		if (err)
			return err;
	}
	return check_runs(cmds, n);
}
