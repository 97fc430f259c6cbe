// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * testing.c - libsession's test hooks (include/ipu/testing.h): what the
 * tests of public behaviour observe and drive beyond the interface.
 */
#include <errno.h>
#include <string.h>

#include <ipu/testing.h>

#include "session_internal.h"

uint64_t __ipu_session_submissions(const struct ipu_session *s)
{
	return s ? s->submissions : 0;
}

uint64_t __ipu_session_run_cmds(const struct ipu_session *s)
{
	return s ? ipu_sess_run_cmds(s) : 0;
}

bool __ipu_session_in_sync(const struct ipu_session *s)
{
	return s && s->in_sync;
}

bool __ipu_session_to_host_on_exit(const struct ipu_session *s)
{
	return s && s->to_host_on_exit;
}

int __ipu_session_host_copy(const struct ipu_session *s, const char *name,
			    bool per_replica, const void **data, size_t *len)
{
	const struct sess_tensor *st;
	size_t i;

	for (i = 0; s && name && i < s->n_tensors; i++) {
		st = &s->tensors[i];
		if (strcmp(st->t->name, name))
			continue;
		if (!per_replica) {
			*data = st->host;
			*len = (size_t)st->num_groups * st->t->nbytes;
			return 0;
		}
		if (!st->all_replicas || !st->replicas_valid)
			return -ENODATA;
		*data = st->replicas;
		*len = (size_t)s->rf * st->t->nbytes;
		return 0;
	}
	return -ENOENT;
}

struct ipu_device *__ipu_session_replica_device(const struct ipu_session *s,
						uint32_t r)
{
	if (!s || !s->reps || r >= s->replicas)
		return NULL;
	return s->reps[r].dev;
}

struct ipu_queue *__ipu_session_queue(const struct ipu_session *s)
{
	return s ? s->q : NULL;
}

void __ipu_session_fail_flushes(struct ipu_session *s, uint32_t n)
{
	if (s)
		s->fail_flushes = n;
}

uint32_t __ipu_session_set_wait_timeout(struct ipu_session *s, uint32_t ms)
{
	uint32_t old;

	if (!s)
		return 0;
	old = s->wait_timeout_ms;
	s->wait_timeout_ms = ms;
	return old;
}

void __ipu_session_on_wait(struct ipu_session *s, void (*fn)(void *arg),
			   void *arg)
{
	if (!s)
		return;
	s->on_wait = fn;
	s->on_wait_arg = arg;
}
