// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * model_instances.c - which instance of a split program this process is,
 * for the model backend (docs/instances.md).
 *
 * Process-wide rather than per device or queue: the model lives in the
 * process, and an instance is a process (one MPI rank), so every model
 * launch of the process belongs to the same instance. An atomic pointer,
 * so that the engine threads read it without a lock.
 */
#include <stdatomic.h>

#include <ipu/firmware.h>
#include <ipu/ipu.h>

static _Atomic(const struct ipufw_instances *) model_inst;

void ipu_model_set_instances(const struct ipufw_instances *inst)
{
	atomic_store(&model_inst, inst);
}

const struct ipufw_instances *ipu_model_instances(void)
{
	return atomic_load(&model_inst);
}
