// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * profile.c - op profiles of launches that ask for them (IPU_LAUNCH_PROFILE).
 *
 * The kernel names each such launch's profile buffer in device memory
 * (ipu_fw_work.profile_offset/size); firmware/devmem/profile.c writes it,
 * as ipu-emu does for the PCIe IPU's PROFILE descriptor.
 */
#include <stdint.h>

#include "../devmem/profile.h"
#include "simd.h"

/* Launch r's profile buffer, or NULL (not profiled, or out of the map). */
static struct ipu_profile_header *buffer_of(const void *arg, uint32_t r,
					    uint64_t *size)
{
	const struct simd_launch *l = (const struct simd_launch *)arg + r;

	*size = l->work.profile_size;
	return devprof_buffer(l->map->base, l->map->len,
			      l->work.profile_offset, l->work.profile_size);
}

bool simd_profile_begin(const struct simd_launch *l, uint32_t nrep,
			const struct devprof_slots *slots,
			struct ipufw_executor *ex, struct devprof *p)
{
	return devprof_begin(p, nrep, slots, buffer_of, l, ex);
}
