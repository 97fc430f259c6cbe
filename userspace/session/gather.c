// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * gather.c - weights_to_host of a program split across instances
 * (docs/instances.md, "Weights across instances"), PopXL's rules: a
 * group's value comes from its first replica and all_replicas retrieval
 * returns every replica of the program, wherever they run; what lives on
 * another instance is gathered with the process's instances' allgather
 * (MPI under libipu-mpi), as PopXL gathers it with MPI.
 *
 * Every instance reads all its replicas' values of every fetched variable
 * into its part of one buffer and the parts are gathered; each instance
 * then takes every slot from its source replica's part. The rule that
 * picks a slot's replica is the one-host rule (ipu_sess_fetch_source()),
 * so every instance gets the bits one process holding every replica
 * reads. The gather is collective: it runs even when this instance's read
 * failed, with the failure in the part's head, so that the others fail at
 * once naming the instance instead of waiting for it until their timeout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ipu/firmware.h>
#include <ipu/ipu.h>

#include "session_internal.h"

/* The head of an instance's part: its read's result. */
struct part_head {
	int32_t status;		/* 0 or the -errno of the read */
	uint32_t index;		/* the instance: a check of the transport */
};

/* Bytes of one replica's values of every fetched variable. */
static size_t replica_bytes(const struct ipu_session *s)
{
	size_t n = 0, i;

	for (i = 0; i < s->n_tensors; i++)
		if (ipu_sess_fetched(&s->tensors[i]))
			n += s->tensors[i].t->nbytes;
	return n;
}

/* Read this instance's replicas into @part (after its head): per fetched
 * variable, its value on each local replica, in replica order. */
static int read_local(struct ipu_session *s, uint8_t *part)
{
	const struct sess_tensor *st;
	uint8_t *at = part + sizeof(struct part_head);
	struct sess_batch b;
	size_t i;
	uint32_t r;

	ipu_sess_batch_init(&b, s, "weights_to_host");
	for (i = 0; i < s->n_tensors; i++) {
		st = &s->tensors[i];
		if (!ipu_sess_fetched(st))
			continue;
		for (r = 0; r < s->replicas; r++) {
			ipu_sess_batch_xfer(&b, s->reps[r].arena_bo,
					    st->t->offset, at, st->t->nbytes,
					    IPU_XFER_DIR_FROM_DEVICE, 0);
			at += st->t->nbytes;
		}
	}
	return ipu_sess_batch_flush(&b);
}

/* The slots of every fetched variable from the gathered parts. */
static void pick(const struct ipu_session *s, const uint8_t *parts,
		 size_t part_size, uint8_t *stage)
{
	const struct sess_tensor *st;
	size_t off = sizeof(struct part_head), i;
	uint32_t k, j;

	for (i = 0; i < s->n_tensors; i++) {
		st = &s->tensors[i];
		if (!ipu_sess_fetched(st))
			continue;
		for (k = 0; k < ipu_sess_fetch_slots(s, st); k++) {
			j = ipu_sess_fetch_source(s, st, k);
			memcpy(stage, parts + (j / s->replicas) * part_size +
					      off + (size_t)(j % s->replicas) *
							    st->t->nbytes,
			       st->t->nbytes);
			stage += st->t->nbytes;
		}
		off += (size_t)s->replicas * st->t->nbytes;
	}
}

int ipu_sess_fetch_instances(struct ipu_session *s, uint8_t *stage)
{
	const struct ipufw_instances *inst = ipu_model_instances();
	struct part_head head, *mine;
	size_t part_size, total;
	uint8_t *parts;
	char msg[512] = "";
	uint32_t i;
	int err, rc;

	/* set_instance() checked them at create; they may have changed. */
	if (!inst || (uint64_t)inst->count * s->replicas != s->rf ||
	    s->base != inst->index * s->replicas)
		return ipu_sess_err(s, -EINVAL,
				    "weights_to_host: the process is no longer instance %u of %u of the program \"%s\" (see ipu_model_set_instances())",
				    s->base / s->replicas, s->rf / s->replicas,
				    s->exe->name);
	if (__builtin_mul_overflow(replica_bytes(s), s->replicas, &part_size) ||
	    __builtin_add_overflow(part_size, sizeof(head), &part_size) ||
	    __builtin_mul_overflow(part_size, inst->count, &total))
		return ipu_sess_err(s, -E2BIG,
				    "weights_to_host: the variables of %u replicas are too large to gather",
				    s->rf);
	parts = calloc(1, total);
	if (!parts)
		return ipu_sess_err(s, -ENOMEM,
				    "weights_to_host: no memory to gather %zu bytes from the instances",
				    total);
	mine = (struct part_head *)(void *)(parts + inst->index * part_size);
	err = read_local(s, (uint8_t *)mine);
	head = (struct part_head){ .status = err, .index = inst->index };
	memcpy(mine, &head, sizeof(head));
	rc = inst->allgather(inst->ctx, parts, part_size, msg, sizeof(msg));
	if (rc) {
		/* Our own read's message, if any, says more. */
		if (!err)
			err = ipu_sess_err(s, rc,
					   "weights_to_host: gathering the weights of the other instances: %s",
					   msg);
		goto out;
	}
	if (err)
		goto out;
	for (i = 0; i < inst->count; i++) {
		memcpy(&head, parts + i * part_size, sizeof(head));
		/* A peer's word, checked: an errno, from the instance. */
		if (head.index != i || head.status > 0 || head.status < -4095)
			head.status = -EPROTO;
		if (head.status) {
			err = ipu_sess_err(s, head.status,
					   "weights_to_host: instance %u of %u could not read its replicas (%s); see its messages",
					   i, inst->count, strerror(-head.status));
			goto out;
		}
	}
	pick(s, parts, part_size, stage);
out:
	free(parts);
	return err;
}
