// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pool format: laying out a pool and validating the superblock of one
 * some other kernel formatted. Also built in user space (tests/unit/).
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <asm/barrier.h>
#include <asm/byteorder.h>
#endif
#include "format.h"

int drack_format_pool(void *base, u64 size, u32 id, u32 max_hosts,
		      u32 regions, u32 ref_queues, u32 max_nics)
{
	struct drack_superblock *sb = base;
	struct drack_geometry g;
	u32 s, nics;

	if (max_hosts < 2 || max_hosts > DRACK_MAX_HOSTS || id > U8_MAX ||
	    !regions || regions > DRACK_MAX_REGIONS ||
	    !is_power_of_2(ref_queues) || ref_queues > DRACK_MAX_QUEUES)
		return -EINVAL;
	/* What drack_format_validate() would refuse. */
	if (size < DRACK_MIN_POOL_SIZE ||
	    drack_layout(&g, size, max_hosts, ref_queues,
			 DRACK_REF_RING_ENTRIES / ref_queues,
			 DRACK_RET_RING_ENTRIES, DRACK_GRANT_RING_ENTRIES) ||
	    regions > g.section_count - g.meta_sections)
		return -ENOSPC;
	/* As many NIC slots as asked for and the pool has room for. */
	nics = min_t(u32, max_nics, DRACK_MAX_NICS);
	while (drack_layout_nics(&g, nics, DRACK_VQ_RING_ENTRIES) ||
	       regions > g.section_count - g.meta_sections)
		nics--;

	memset(base, 0, nics ? g.nic_area_off + (u64)nics * g.nic_area_size :
		       g.host_area_off + (u64)max_hosts * g.host_area_size);
	for (s = 0; s < g.section_count; s++) {
		struct drack_section_entry *e = (void *)((u8 *)base +
					drack_section_entry_off(&g, s));

		e->owner = cpu_to_le16(s < g.meta_sections ?
				       DRACK_SECTION_META : DRACK_SECTION_FREE);
	}

	/* One queue per pair is version 2's layout: older kernels adopt it. */
	sb->version = cpu_to_le32(ref_queues > 1 ? DRACK_POOL_VERSION : 2);
	sb->sb_size = cpu_to_le32(sizeof(*sb));
	sb->pool_size = cpu_to_le64(g.pool_size);
	sb->section_shift = cpu_to_le32(DRACK_SECTION_SHIFT);
	sb->section_count = cpu_to_le32(g.section_count);
	sb->meta_sections = cpu_to_le32(g.meta_sections);
	sb->max_hosts = cpu_to_le32(max_hosts);
	sb->ref_ring_entries = cpu_to_le32(g.ref_ring_entries);
	sb->ret_ring_entries = cpu_to_le32(g.ret_ring_entries);
	sb->grant_ring_entries = cpu_to_le32(g.grant_ring_entries);
	sb->pool_id = cpu_to_le32(id);
	sb->host_table_off = cpu_to_le64(g.host_table_off);
	sb->section_table_off = cpu_to_le64(g.section_table_off);
	sb->host_area_off = cpu_to_le64(g.host_area_off);
	sb->host_area_size = cpu_to_le64(g.host_area_size);
	sb->regions = cpu_to_le32(regions);
	sb->max_nics = cpu_to_le32(g.max_nics);
	sb->nic_table_off = cpu_to_le64(g.nic_table_off);
	sb->nic_area_off = cpu_to_le64(g.nic_area_off);
	sb->nic_area_size = cpu_to_le64(g.nic_area_size);
	sb->vq_ring_entries = cpu_to_le32(g.vq_ring_entries);
	sb->ref_queues = cpu_to_le32(g.ref_queues);
	/* Readers check the magic first: write it last. */
	smp_wmb();
	WRITE_ONCE(sb->magic, cpu_to_le64(DRACK_POOL_MAGIC));
	return 0;
}

static bool drack_ring_size_ok(u32 n)
{
	return is_power_of_2(n) && n >= DRACK_RING_MIN && n <= DRACK_RING_MAX;
}

static int drack_format_check(const struct drack_superblock *sb, u64 size,
			      struct drack_geometry *g, u32 *id, u32 *regions)
{
	u64 pool_size = le64_to_cpu(sb->pool_size);
	u32 max_hosts = le32_to_cpu(sb->max_hosts);
	u32 ref = le32_to_cpu(sb->ref_ring_entries);
	u32 ret = le32_to_cpu(sb->ret_ring_entries);
	u32 grant = le32_to_cpu(sb->grant_ring_entries);
	u32 version = le32_to_cpu(sb->version);
	u32 nics = version >= 2 ? le32_to_cpu(sb->max_nics) : 0;
	u32 vq = le32_to_cpu(sb->vq_ring_entries);
	u32 queues = version >= 3 ? le32_to_cpu(sb->ref_queues) : 1;

	if (le64_to_cpu(sb->magic) != DRACK_POOL_MAGIC ||
	    version < DRACK_POOL_VERSION_MIN || version > DRACK_POOL_VERSION ||
	    le32_to_cpu(sb->sb_size) != sizeof(*sb) ||
	    le32_to_cpu(sb->section_shift) != DRACK_SECTION_SHIFT)
		return -EPROTO;
	if (pool_size > size || pool_size < DRACK_MIN_POOL_SIZE ||
	    pool_size & (DRACK_SECTION_SIZE - 1) ||
	    max_hosts < 2 || max_hosts > DRACK_MAX_HOSTS ||
	    !drack_ring_size_ok(ref) || !drack_ring_size_ok(ret) ||
	    !drack_ring_size_ok(grant) || le32_to_cpu(sb->pool_id) > U8_MAX)
		return -EINVAL;
	if (nics > DRACK_MAX_NICS || (nics && !drack_ring_size_ok(vq)) ||
	    !is_power_of_2(queues) || queues > DRACK_MAX_QUEUES)
		return -EINVAL;
	if (drack_layout(g, pool_size, max_hosts, queues, ref, ret, grant) ||
	    drack_layout_nics(g, nics, vq))
		return -EINVAL;
	if (nics && (g->nic_table_off != le64_to_cpu(sb->nic_table_off) ||
		     g->nic_area_off != le64_to_cpu(sb->nic_area_off) ||
		     g->nic_area_size != le64_to_cpu(sb->nic_area_size)))
		return -EINVAL;
	if (g->section_count != le32_to_cpu(sb->section_count) ||
	    g->meta_sections != le32_to_cpu(sb->meta_sections) ||
	    g->host_table_off != le64_to_cpu(sb->host_table_off) ||
	    g->section_table_off != le64_to_cpu(sb->section_table_off) ||
	    g->host_area_off != le64_to_cpu(sb->host_area_off) ||
	    g->host_area_size != le64_to_cpu(sb->host_area_size))
		return -EINVAL;
	/* 0: a pool formatted before Regions existed, one device. */
	*regions = max(le32_to_cpu(sb->regions), 1U);
	if (*regions > DRACK_MAX_REGIONS ||
	    *regions > g->section_count - g->meta_sections)
		return -EINVAL;
	*id = le32_to_cpu(sb->pool_id);
	return 0;
}

/*
 * The superblock is as untrusted as the rest of the pool: recompute the
 * layout from its scalar parameters and require the stored offsets to match.
 * Another kernel may rewrite it meanwhile: read it once, check the copy.
 */
int drack_format_validate(const struct drack_superblock *pool_sb, u64 size,
			  struct drack_geometry *g, u32 *id, u32 *regions)
{
	struct drack_superblock copy;

	memcpy(&copy, pool_sb, sizeof(copy));
	return drack_format_check(&copy, size, g, id, regions);
}
