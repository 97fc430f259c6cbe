// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * ipu-mkfw - write the PCIe IPU's firmware image (docs/hardware.md section
 * 8.1): a 64-byte header and a payload of records (IDENT, EXE_VERSIONS,
 * MAX_REPLICAS), both CRC-32 sealed. The version is libipufw's, the
 * executor the image stands for.
 *
 *	ipu-mkfw -o FILE [--version MAJ.MIN.PATCH] [--ident TEXT]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <ipu/exe.h>
#include <ipu/firmware.h>
#include <ipu/hw.h>

#define PAYLOAD_MAX	4096

struct buf {
	uint8_t b[PAYLOAD_MAX];
	size_t len;
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Append record @tag of @len bytes, zero-padded to 4. */
static int record(struct buf *p, uint32_t tag, const void *data, uint32_t len)
{
	size_t padded = (len + 3u) & ~3u;

	if (padded + 8 > sizeof(p->b) - p->len)
		return -ENOSPC;
	put32(p->b + p->len, tag);
	put32(p->b + p->len + 4, len);
	memcpy(p->b + p->len + 8, data, len);
	memset(p->b + p->len + 8 + len, 0, padded - len);
	p->len += 8 + padded;
	return 0;
}

static uint32_t crc(const uint8_t *p, size_t len)
{
	return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)len);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ipu-mkfw -o FILE [--version MAJ.MIN.PATCH] [--ident TEXT]\n"
		   "Write the PCIe IPU firmware image (docs/hardware.md, section 8).\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "version", required_argument, NULL, 'V' },
		{ "ident", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int maj = IPUFW_VERSION_MAJOR, min = IPUFW_VERSION_MINOR,
		     patch = IPUFW_VERSION_PATCH;
	const char *out = NULL, *ident = NULL;
	uint8_t hdr[IPU_FW_HEADER_SIZE] = { 0 };
	uint32_t versions[2], max_rep;
	char text[256];
	struct buf p = { .len = 0 };
	FILE *f;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'V':
			if (sscanf(optarg, "%u.%u.%u", &maj, &min, &patch) != 3 ||
			    maj > 0xffff || min > 0xff || patch > 0xff) {
				fprintf(stderr, "ipu-mkfw: bad version \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 'i':
			ident = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!out || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (!ident) {
		snprintf(text, sizeof(text), "ipu firmware %u.%u.%u (libipufw executor)",
			 maj, min, patch);
		ident = text;
	}
	put32((uint8_t *)&versions[0], IPU_EXE_VERSION);
	put32((uint8_t *)&versions[1], IPU_EXE_VERSION);
	put32((uint8_t *)&max_rep, IPU_CMD_MAX_REPLICAS);
	if (record(&p, IPU_FW_REC_IDENT, ident, (uint32_t)strlen(ident) + 1) ||
	    record(&p, IPU_FW_REC_EXE_VERSIONS, versions, sizeof(versions)) ||
	    record(&p, IPU_FW_REC_MAX_REPLICAS, &max_rep, sizeof(max_rep))) {
		fprintf(stderr, "ipu-mkfw: the identity string is too long\n");
		return 2;
	}
	put32(hdr + 0x00, IPU_FW_MAGIC);
	hdr[0x04] = IPU_FW_FORMAT;
	hdr[0x06] = IPU_FW_HEADER_SIZE;
	put32(hdr + 0x08, maj << 16 | min << 8 | patch);
	put32(hdr + 0x10, (uint32_t)p.len);
	put32(hdr + 0x14, crc(p.b, p.len));
	put32(hdr + 0x3c, crc(hdr, 0x3c));

	f = fopen(out, "wb");
	if (!f || fwrite(hdr, sizeof(hdr), 1, f) != 1 ||
	    fwrite(p.b, p.len, 1, f) != 1) {
		fprintf(stderr, "ipu-mkfw: %s: %s\n", out, strerror(errno));
		if (f)
			fclose(f);
		return 1;
	}
	if (fclose(f)) {
		fprintf(stderr, "ipu-mkfw: %s: %s\n", out, strerror(errno));
		return 1;
	}
	return 0;
}
