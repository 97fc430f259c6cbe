/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * exe_format.h - what the executable reader (exe_load.c) and writer
 * (exe_save.c) share: the field layout of each file struct, for the
 * little-endian conversion, and the CRC.
 *
 * Private to firmware/.
 */
#ifndef IPU_FW_EXE_FORMAT_H
#define IPU_FW_EXE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "ipu/exe.h"

/* Required blob types: 1..EXE_BLOB_LAST, each exactly once. */
#define EXE_BLOB_LAST	IPU_EXE_BLOB_DATA
/* Optional blob types this version knows: EXE_BLOB_LAST+1..EXE_BLOB_MAX,
 * at most once each; newer unknown types are skipped. */
#define EXE_BLOB_MAX	IPU_EXE_BLOB_GROUPINGS
/* Alignment of blob payloads in the file. */
#define EXE_BLOB_ALIGN	8

/*
 * The file structs are sequences of __le32 and __le64 with no implicit
 * padding; a layout string gives each field's size in order ("4" or "8"),
 * so that one routine converts every struct.
 */
extern const char __ipu_exe_layout_header[];
extern const char __ipu_exe_layout_desc[];
extern const char __ipu_exe_layout_meta[];
extern const char __ipu_exe_layout_tensor[];
extern const char __ipu_exe_layout_stream[];
extern const char __ipu_exe_layout_instr[];

/*
 * __ipu_exe_le_convert() - convert the struct at @p between file order
 * (little-endian) and CPU order, in place; the same swap both ways, a no-op
 * on little-endian CPUs.
 */
void __ipu_exe_le_convert(void *p, const char *layout);

/* __ipu_exe_crc32() - zlib's CRC32 of @len bytes at @p, any length. */
uint32_t __ipu_exe_crc32(const void *p, uint64_t len);

#endif /* IPU_FW_EXE_FORMAT_H */
