/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * vfio_user_caps.h - the capabilities JSON of VFIO_USER_VERSION: reading
 * the client's proposal (a small strict JSON reader, no library) and
 * writing this server's reply, a subset of what the client proposed.
 */
#ifndef IPU_EMU_VFIO_USER_CAPS_H
#define IPU_EMU_VFIO_USER_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct vfu_caps - the capabilities a peer announced.
 * @has_*: the member was present (else the specification's default is in
 *	the value).
 * @max_msg_fds: most fds the peer receives in one message.
 * @max_data_xfer_size: largest data transfer the peer accepts.
 * @pgsizes: DMA page sizes, OR-ed.
 * @max_dma_maps: most DMA mappings at once.
 * @twin_socket: the peer offered twin-socket mode.
 * @write_multiple: the peer supports REGION_WRITE_MULTI.
 * @has_migration: a "migration" object was present (ignored).
 */
struct vfu_caps {
	bool has_max_msg_fds, has_max_data_xfer_size, has_pgsizes;
	bool has_max_dma_maps, has_twin_socket, has_write_multiple;
	bool has_migration;
	uint64_t max_msg_fds, max_data_xfer_size, pgsizes, max_dma_maps;
	bool twin_socket, write_multiple;
};

/**
 * vfu_caps_parse() - read the VERSION JSON @json (@len bytes, no NUL
 * needed) into @caps. A NULL @json gives the defaults. The document must
 * be one JSON object; its "capabilities" member, if any, an object whose
 * known members have the specified types (unknown members are ignored, as
 * later minor versions may add some). Nesting deeper than 8 levels,
 * invalid JSON, wrong types and numbers that are not unsigned integers
 * below 2^64 are -EINVAL.
 */
int vfu_caps_parse(const char *json, size_t len, struct vfu_caps *caps);

/**
 * vfu_caps_reply() - write this server's capabilities into @buf (@size
 * bytes, NUL-terminated): each of max_msg_fds, max_data_xfer_size,
 * pgsizes and max_dma_maps that the client proposed (a reply must be a
 * subset), with this server's values from @ours. Return: the string's
 * length, or -E2BIG when @size is too small.
 */
int vfu_caps_reply(const struct vfu_caps *client, const struct vfu_caps *ours,
		   char *buf, size_t size);

#endif /* IPU_EMU_VFIO_USER_CAPS_H */
