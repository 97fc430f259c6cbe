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
 * @fp: per replica, the executor's profile (NULL: not profiled).
 * @h: per replica, its buffer's header (NULL: replica not profiled).
 * @nrep: replicas of the run.
 * @start_ns: CLOCK_MONOTONIC when the run started: records are relative.
 */
struct devprof {
	struct ipufw_profile *fp;
	struct ipu_profile_header **h;
	uint32_t nrep;
	int64_t start_ns;
};

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
 * straight into the buffers. False when none has one (or without memory:
 * the run goes unprofiled, its headers cleared). Just before ipufw_run().
 */
bool devprof_begin(struct devprof *p, uint32_t nrep, devprof_buf_fn buf,
		   const void *arg, struct ipufw_executor *ex);

/*
 * devprof_end() - finish the buffers after ipufw_run(): times become ns
 * since the run started, then each header, its magic last.
 */
void devprof_end(struct devprof *p, struct ipufw_executor *ex);

#endif /* IPU_DEVMEM_PROFILE_H */
