/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Formatting a pool and validating its superblock: pure logic on a piece
 * of memory (no struct drack_pool, no lock), so the same source builds in
 * user space for the unit tests (tests/unit/).
 */
#ifndef _DRACK_FORMAT_H
#define _DRACK_FORMAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#endif
#include "uapi/drack_pool.h"

#define DRACK_MAX_REGIONS	16

/*
 * Ring sizes of the pools this kernel formats. The ref_queues of one pair
 * share DRACK_REF_RING_ENTRIES, so queues cost no metadata.
 */
#define DRACK_REF_RING_ENTRIES		256
#define DRACK_RET_RING_ENTRIES		256
#define DRACK_GRANT_RING_ENTRIES	64
#define DRACK_VQ_RING_ENTRIES		256

/* Ring sizes a superblock may ask for. */
#define DRACK_RING_MIN			8
#define DRACK_RING_MAX			4096

/*
 * Format @base (@size bytes of fresh memory) as pool @id for @max_hosts
 * hosts over @regions memory devices, @ref_queues ref_queues per pair (a
 * power of two, at most DRACK_MAX_QUEUES), with as many of @max_nics NIC
 * slots (at most DRACK_MAX_NICS) as fit. 0, -EINVAL or -ENOSPC.
 */
int drack_format_pool(void *base, u64 size, u32 id, u32 max_hosts,
		      u32 regions, u32 ref_queues, u32 max_nics);

/*
 * Check the superblock of a pool mapped over @size bytes: 0 with its
 * geometry, id and Region count, or -EPROTO (not a pool of a version we
 * know) or -EINVAL (inconsistent).
 */
int drack_format_validate(const struct drack_superblock *sb, u64 size,
			  struct drack_geometry *g, u32 *id, u32 *regions);

#endif /* _DRACK_FORMAT_H */
