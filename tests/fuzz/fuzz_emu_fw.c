// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * fuzz_emu_fw.c - libFuzzer target for the PCIe IPU model's firmware image
 * validation (firmware/emu/emu_dev_fwimage.c): emu_fw_validate() on
 * arbitrary bytes (and on the same bytes with their CRCs made right) must
 * return one of the spec's codes, and accept only an image whose header
 * and payload CRCs, size and major version are right.
 * Crashes and sanitizer reports are the bugs. The seed is the image
 * ipu-mkfw writes (tests/fuzz/corpus/emu/).
 *
 *	scripts/fuzz [SECONDS]	builds this with clang and runs it
 *
 * fuzz-build: firmware/emu/emu_dev_fwimage.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <ipu/hw.h>

#include "../../firmware/emu/emu_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void bug(const char *what)
{
	fprintf(stderr, "fuzz_emu_fw: %s\n", what);
	abort();
}

static void check(const uint8_t *data, size_t size)
{
	struct ipu_fw_header h;
	uint32_t version = 0;
	int code = emu_fw_validate(data, size, &version);

	if (code < IPU_FW_ERR_NONE || code > IPU_FW_ERR_PAYLOAD)
		bug("a code the validator may not give");
	if (code != IPU_FW_ERR_NONE)
		return;
	/* Accepted: everything the spec requires holds. */
	if (size < IPU_FW_HEADER_SIZE || size > IPU_FW_MAX_SIZE)
		bug("accepted an image of a bad size");
	memcpy(&h, data, sizeof(h));
	if (h.magic != IPU_FW_MAGIC || h.payload_size != size - IPU_FW_HEADER_SIZE ||
	    h.header_crc32 != (uint32_t)crc32(0L, data, IPU_FW_HEADER_SIZE - 4) ||
	    h.payload_crc32 != (uint32_t)crc32(0L, data + IPU_FW_HEADER_SIZE,
						(uInt)h.payload_size) ||
	    version != h.fw_version || version >> 16 != IPU_FW_SUPPORTED_MAJOR)
		bug("accepted an image the spec refuses");
}

/*
 * Each input twice: as it is, and with both CRCs made right, so that the
 * mutations reach the checks behind the checksums (sizes, reserved
 * fields, version, records).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipu_fw_header h;
	uint8_t *copy;

	check(data, size);
	if (size < IPU_FW_HEADER_SIZE || size > IPU_FW_MAX_SIZE)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	memcpy(&h, copy, sizeof(h));
	h.payload_size = (uint32_t)(size - IPU_FW_HEADER_SIZE);
	h.payload_crc32 = (uint32_t)crc32(0L, copy + IPU_FW_HEADER_SIZE,
					  (uInt)h.payload_size);
	memcpy(copy, &h, sizeof(h));
	h.header_crc32 = (uint32_t)crc32(0L, copy, IPU_FW_HEADER_SIZE - 4);
	memcpy(copy, &h, sizeof(h));
	check(copy, size);
	free(copy);
	return 0;
}
