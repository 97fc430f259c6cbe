/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * profile.h - op profiles written into device memory, the device's side of
 * struct ipu_profile_header (include/uapi/linux/ipu.h): the one code the
 * simulated IPUs' firmware (ipu-simd) and the PCIe IPU's model (ipu-emu,
 * docs/hardware.md's PROFILE descriptor) run, so both write the same bytes.
 */
#ifndef IPU_DEVMEM_PROFILE_H
#define IPU_DEVMEM_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include <ipu/firmware.h>

struct ipu_profile_header;

/**
 * struct devprof - one run's op profiling, between begin and end.
 * @fp: per replica, the executor's profile (NULL: the run not profiled).
 * @h: per replica, its buffer's header (NULL: replica not profiled).
 * @nrep: replicas of the run.
 * @start_ns: CLOCK_MONOTONIC when the run started: records are relative.
 *
 * @fp and @h are the caller's (struct devprof_slots), never allocated
 * here: the spec has the device write every profiled run's buffer
 * (docs/hardware.md section 4.5), so profiling must not be able to fail
 * once the run has started.
 */
struct devprof {
	struct ipufw_profile *fp;
	struct ipu_profile_header **h;
	uint32_t nrep;
	int64_t start_ns;
};

/**
 * struct devprof_slots - what profiling a run keeps per replica: the
 * caller's storage for @nrep replicas, made with the run's own (on the
 * stack, or in the one allocation the run makes before it starts).
 * @fp: the executor's profiles, @nrep of them.
 * @h: their buffers' headers, @nrep of them.
 */
struct devprof_slots {
	struct ipufw_profile *fp;
	struct ipu_profile_header **h;
};

/* Bytes of storage per replica a struct devprof_slots points into. */
#define DEVPROF_SLOT_BYTES \
	(sizeof(struct ipufw_profile) + sizeof(struct ipu_profile_header *))

/*
 * devprof_buffer() - the profile buffer of @size bytes at @off in device
 * memory [@base, @base + @len), or NULL when it is no buffer: smaller
 * than the header, outside the memory, or not 8-aligned.
 */
struct ipu_profile_header *devprof_buffer(uint8_t *base, uint64_t len,
					  uint64_t off, uint64_t size);

/* Replica @r's profile buffer (of *@size bytes), or NULL: none. */
typedef struct ipu_profile_header *(*devprof_buf_fn)(const void *arg,
						      uint32_t r,
						      uint64_t *size);

/*
 * devprof_begin() - profile the run of @nrep replicas on @ex when any has
 * a buffer (@buf): every header's magic is cleared first, the records go
 * straight into the buffers, @slots (room for @nrep) holding the rest.
 * False when none has one. Cannot fail. Just before ipufw_run().
 */
bool devprof_begin(struct devprof *p, uint32_t nrep,
		   const struct devprof_slots *slots, devprof_buf_fn buf,
		   const void *arg, struct ipufw_executor *ex);

/*
 * devprof_end() - finish the buffers after ipufw_run(): times become ns
 * since the run started, then each header, its magic last.
 */
void devprof_end(struct devprof *p, struct ipufw_executor *ex);

#endif /* IPU_DEVMEM_PROFILE_H */
