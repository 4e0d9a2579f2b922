// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of kmod/format.c: a freshly formatted pool validates, with
 * the geometry drack_layout() computes; every superblock field corrupted
 * in turn is refused; version-1 pools are still adopted; pools too small,
 * or asked for with bad parameters, are not formatted.
 */
#include "format.h"
#include "kselftest_harness.h"

#define MB		(1ULL << 20)
#define POOL_SIZE	(16 * MB)
#define HOSTS		4

static void *pool_alloc(u64 size)
{
	return calloc(1, size);
}

/* Format and validate: 0 with the geometry, or the first error. */
static int format_validate(void *base, u64 size, u32 hosts, u32 regions,
			   u32 nics, struct drack_geometry *g, u32 *id,
			   u32 *r)
{
	int err = drack_format_pool(base, size, 7, hosts, regions, 4, nics);

	return err ? err : drack_format_validate(base, size, g, id, r);
}

TEST(formatted_pool_validates)
{
	struct drack_superblock *sb;
	struct drack_section_entry *e;
	struct drack_geometry g, want;
	void *base = pool_alloc(POOL_SIZE);
	u32 id, regions, s;

	/* Compared with memcmp: zero the padding after grant_ring_entries. */
	memset(&g, 0, sizeof(g));
	memset(&want, 0, sizeof(want));
	ASSERT_EQ(0, drack_format_pool(base, POOL_SIZE, 7, HOSTS, 2, 4, 8));
	sb = base;
	ASSERT_EQ(DRACK_POOL_MAGIC, le64_to_cpu(sb->magic));
	ASSERT_EQ((u32)DRACK_POOL_VERSION, le32_to_cpu(sb->version));
	ASSERT_EQ(0, drack_format_validate(sb, POOL_SIZE, &g, &id, &regions));
	ASSERT_EQ(7U, id);
	ASSERT_EQ(2U, regions);
	/* The geometry every other reader computes from the same numbers. */
	ASSERT_EQ(4U, le32_to_cpu(sb->ref_queues));
	ASSERT_EQ(0, drack_layout(&want, POOL_SIZE, HOSTS, 4,
				  DRACK_REF_RING_ENTRIES / 4,
				  DRACK_RET_RING_ENTRIES,
				  DRACK_GRANT_RING_ENTRIES));
	ASSERT_EQ(0, drack_layout_nics(&want, 8, DRACK_VQ_RING_ENTRIES));
	ASSERT_EQ(0, memcmp(&want, &g, sizeof(g)));
	ASSERT_EQ(8U, g.section_count);
	ASSERT_EQ(8U, g.max_nics);
	ASSERT_LT(g.meta_sections, g.section_count);
	for (s = 0; s < g.section_count; s++) {
		e = (void *)((u8 *)base + drack_section_entry_off(&g, s));
		ASSERT_EQ(s < g.meta_sections ? DRACK_SECTION_META :
						DRACK_SECTION_FREE,
			  le16_to_cpu(e->owner));
	}
	/* A bigger mapping than the pool is fine, a smaller one is not. */
	ASSERT_EQ(0, drack_format_validate(sb, POOL_SIZE + MB, &g, &id,
					   &regions));
	ASSERT_EQ(-EINVAL, drack_format_validate(sb, POOL_SIZE - 1, &g, &id,
						 &regions));
	ASSERT_EQ(-EINVAL, drack_format_validate(sb, POOL_SIZE / 2, &g, &id,
						 &regions));
	free(base);
}

/* format and validate agree over a sweep of sizes, hosts and NICs. */
TEST(format_validate_sweep)
{
	u64 size, max = 48 * MB;
	void *base = pool_alloc(max);
	struct drack_geometry g;
	u32 hosts, nics, id, r, n = 0;
	int err;

	for (size = 8 * MB; size <= max; size += 5 * MB)
		for (hosts = 2; hosts <= 16; hosts += 7)
			for (nics = 0; nics <= 16; nics += 4) {
				err = format_validate(base, size, hosts, 1,
						      nics, &g, &id, &r);
				if (err == -ENOSPC)
					continue;
				ASSERT_EQ(0, err) TH_LOG("size %llu hosts %u nics %u",
						(unsigned long long)size,
						hosts, nics);
				ASSERT_EQ(size & ~(u64)(DRACK_SECTION_SIZE - 1),
					  g.pool_size);
				ASSERT_LE(g.max_nics, nics);
				n++;
			}
	ASSERT_GT(n, 50U);
	free(base);
}

/* Asked for more NICs than the format or the pool holds: fewer. */
TEST(format_nics_fit)
{
	void *base = pool_alloc(64 * MB);
	struct drack_geometry g;
	u32 id, r;

	ASSERT_EQ(0, format_validate(base, 64 * MB, HOSTS, 1, 100, &g, &id,
				     &r));
	ASSERT_EQ((u32)DRACK_MAX_NICS, g.max_nics);
	/* 8 MB for 16 hosts: the NIC areas do not all fit. */
	ASSERT_EQ(0, format_validate(base, 8 * MB, 16, 1, 16, &g, &id, &r));
	ASSERT_LT(g.max_nics, 16U);
	ASSERT_LT(g.meta_sections, g.section_count);
	free(base);
}

/*
 * A pool of one ref_queue per pair is laid out as version 2 was: a
 * version 2 superblock (no ref_queues field) validates with one queue,
 * and ref_queue q of a pair follows q - 1 in a version 3 pool.
 */
TEST(ref_queues_layout)
{
	struct drack_superblock *sb;
	struct drack_geometry g1, g4;
	void *base = pool_alloc(POOL_SIZE);
	u32 id, regions;

	ASSERT_EQ(0, drack_format_pool(base, POOL_SIZE, 7, HOSTS, 1, 1, 0));
	sb = base;
	/* Written as version 2, for kernels that know no ref_queues. */
	ASSERT_EQ(2U, le32_to_cpu(sb->version));
	sb->ref_queues = cpu_to_le32(0xdead);	/* not read before version 3 */
	ASSERT_EQ(0, drack_format_validate(sb, POOL_SIZE, &g1, &id, &regions));
	ASSERT_EQ(1U, g1.ref_queues);
	ASSERT_EQ((u32)DRACK_REF_RING_ENTRIES, g1.ref_ring_entries);
	ASSERT_EQ(drack_ref_ring_off(&g1, 1, 2, 0) +
		  drack_ring_bytes(DRACK_REF_RING_ENTRIES,
				   sizeof(struct drack_ref)),
		  drack_ref_ring_off(&g1, 1, 3, 0));

	memset(base, 0, POOL_SIZE);
	ASSERT_EQ(0, drack_format_pool(base, POOL_SIZE, 7, HOSTS, 1, 4, 0));
	ASSERT_EQ(0, drack_format_validate(sb, POOL_SIZE, &g4, &id, &regions));
	ASSERT_EQ(4U, g4.ref_queues);
	ASSERT_EQ((u32)DRACK_REF_RING_ENTRIES / 4, g4.ref_ring_entries);
	ASSERT_EQ(drack_ref_ring_off(&g4, 1, 2, 3) +
		  drack_ring_bytes(g4.ref_ring_entries,
				   sizeof(struct drack_ref)),
		  drack_ref_ring_off(&g4, 1, 3, 0));
	/* The last ref_queue ends where the return rings start. */
	ASSERT_EQ(drack_ref_ring_off(&g4, 1, HOSTS - 1, 3) +
		  drack_ring_bytes(g4.ref_ring_entries,
				   sizeof(struct drack_ref)),
		  drack_ret_ring_off(&g4, 1, 0));
	/* Queues share the entries of one: no more metadata than one. */
	ASSERT_EQ(g1.meta_sections, g4.meta_sections);
	free(base);
}

TEST(format_refuses)
{
	void *base = pool_alloc(POOL_SIZE);

	ASSERT_EQ(-EINVAL, drack_format_pool(base, POOL_SIZE, 0, 1, 1, 4, 0));
	ASSERT_EQ(-EINVAL, drack_format_pool(base, POOL_SIZE, 0, 65, 1, 4, 0));
	ASSERT_EQ(-EINVAL, drack_format_pool(base, POOL_SIZE, 256, 2, 1, 4, 0));
	ASSERT_EQ(-EINVAL, drack_format_pool(base, POOL_SIZE, 0, 2, 0, 4, 0));
	ASSERT_EQ(-EINVAL, drack_format_pool(base, POOL_SIZE, 0, 2, 17, 4, 0));
	/* ref_queues: a power of two, 1 to DRACK_MAX_QUEUES. */
	ASSERT_EQ(-EINVAL, drack_format_pool(base, POOL_SIZE, 0, 2, 1, 0, 0));
	ASSERT_EQ(-EINVAL, drack_format_pool(base, POOL_SIZE, 0, 2, 1, 3, 0));
	ASSERT_EQ(-EINVAL, drack_format_pool(base, POOL_SIZE, 0, 2, 1,
					     DRACK_MAX_QUEUES * 2, 0));
	/* More Regions than data Sections. */
	ASSERT_EQ(-ENOSPC, drack_format_pool(base, POOL_SIZE, 0, 2, 8, 4, 0));
	/* Nothing was written. */
	ASSERT_EQ(0ULL, ((struct drack_superblock *)base)->magic);
	free(base);
}

/* Pools too small to hold a data Section, or below the format minimum. */
TEST(tiny_pools)
{
	void *base = pool_alloc(POOL_SIZE);
	struct drack_geometry g;
	u32 id, r;

	ASSERT_EQ(-ENOSPC, drack_format_pool(base, 0, 0, 2, 1, 4, 0));
	ASSERT_EQ(-ENOSPC, drack_format_pool(base, DRACK_SECTION_SIZE, 0, 2,
					     1, 4, 0));
	ASSERT_EQ(-ENOSPC, drack_format_pool(base, DRACK_SECTION_SIZE * 2 - 1,
					     0, 2, 1, 4, 0));
	/* 64 hosts' rings take more than 8 MB of metadata. */
	ASSERT_EQ(-ENOSPC, drack_format_pool(base, 8 * MB, 0, 64, 1, 4, 0));
	/* Below DRACK_MIN_POOL_SIZE: what format writes, validate takes. */
	ASSERT_EQ(-ENOSPC, drack_format_pool(base, DRACK_MIN_POOL_SIZE -
					     DRACK_SECTION_SIZE, 0, 2, 1, 4, 0));
	/* The smallest pool: formatted and valid. */
	ASSERT_EQ(0, format_validate(base, DRACK_MIN_POOL_SIZE, 2, 1, 0, &g,
				     &id, &r));
	free(base);
}

/* A pool formatted before the NIC pool: version 1, no NIC table. */
TEST(version1_adopted)
{
	void *base = pool_alloc(POOL_SIZE);
	struct drack_superblock *sb = base;
	struct drack_geometry g;
	u32 id, r;

	ASSERT_EQ(0, drack_format_pool(base, POOL_SIZE, 3, HOSTS, 1, 1, 0));
	sb->version = cpu_to_le32(1);
	/* Fields version 1 did not have mean nothing there. */
	sb->max_nics = cpu_to_le32(5);
	sb->vq_ring_entries = cpu_to_le32(3);
	sb->nic_table_off = cpu_to_le64(1);
	ASSERT_EQ(0, drack_format_validate(sb, POOL_SIZE, &g, &id, &r));
	ASSERT_EQ(0U, g.max_nics);
	ASSERT_EQ(3U, id);
	/* Regions 0: formatted before Regions existed, one device. */
	sb->regions = 0;
	ASSERT_EQ(0, drack_format_validate(sb, POOL_SIZE, &g, &id, &r));
	ASSERT_EQ(1U, r);
	free(base);
	/*
	 * A version 2 pool whose NIC areas take metadata Sections of their
	 * own is no version 1 pool: the metadata Sections disagree.
	 */
	base = pool_alloc(32 * MB);
	sb = base;
	ASSERT_EQ(0, drack_format_pool(base, 32 * MB, 3, 16, 1, 1, 8));
	ASSERT_EQ(0, drack_format_validate(sb, 32 * MB, &g, &id, &r));
	sb->version = cpu_to_le32(1);
	ASSERT_EQ(-EINVAL, drack_format_validate(sb, 32 * MB, &g, &id, &r));
	free(base);
}

/* ---- every superblock field corrupted in turn ---- */

FIXTURE(corrupt) {
	void *base;
	struct drack_superblock *sb;
	struct drack_geometry g;
};

FIXTURE_VARIANT(corrupt) {
	void (*mutate)(struct drack_superblock *sb);
	int err;
};

/*
 * 32 MB for 16 hosts and 8 NICs: 3 metadata Sections, so that the NIC
 * count changes them.
 */
#define CPOOL_SIZE	(32 * MB)

FIXTURE_SETUP(corrupt)
{
	u32 id, r;

	self->base = pool_alloc(CPOOL_SIZE);
	self->sb = self->base;
	ASSERT_EQ(0, drack_format_pool(self->base, CPOOL_SIZE, 1, 16, 2, 4, 8));
	ASSERT_EQ(0, drack_format_validate(self->sb, CPOOL_SIZE, &self->g,
					   &id, &r));
	ASSERT_EQ(8U, self->g.max_nics);
	ASSERT_EQ(3U, self->g.meta_sections);
}

FIXTURE_TEARDOWN(corrupt)
{
	free(self->base);
}

TEST_F(corrupt, refused)
{
	struct drack_geometry g;
	u32 id, r;

	variant->mutate(self->sb);
	ASSERT_EQ(variant->err, drack_format_validate(self->sb, CPOOL_SIZE,
						      &g, &id, &r));
}

#define add32(f, d)	((f) = cpu_to_le32(le32_to_cpu(f) + (d)))
#define add64(f, d)	((f) = cpu_to_le64(le64_to_cpu(f) + (d)))
#define set32(f, v)	((f) = cpu_to_le32(v))

#define CORRUPT(name, e, expr)						\
	static void mutate_##name(struct drack_superblock *sb)		\
	{								\
		expr;							\
	}								\
	FIXTURE_VARIANT_ADD(corrupt, name) {				\
		.mutate = mutate_##name, .err = (e),			\
	}

CORRUPT(magic, -EPROTO, add64(sb->magic, 1));
CORRUPT(magic_zero, -EPROTO, sb->magic = 0);
CORRUPT(version_0, -EPROTO, set32(sb->version, 0));
CORRUPT(version_next, -EPROTO, set32(sb->version, DRACK_POOL_VERSION + 1));
CORRUPT(sb_size_less, -EPROTO, add32(sb->sb_size, -8));
CORRUPT(sb_size_more, -EPROTO, add32(sb->sb_size, 8));
CORRUPT(section_shift, -EPROTO, set32(sb->section_shift, 20));
CORRUPT(pool_size_beyond_mapping, -EINVAL,
	add64(sb->pool_size, DRACK_SECTION_SIZE));
CORRUPT(pool_size_unaligned, -EINVAL, add64(sb->pool_size, -1));
CORRUPT(pool_size_smaller, -EINVAL,
	add64(sb->pool_size, -(u64)DRACK_SECTION_SIZE));
CORRUPT(pool_size_below_min, -EINVAL,
	sb->pool_size = cpu_to_le64(DRACK_MIN_POOL_SIZE - DRACK_SECTION_SIZE));
CORRUPT(section_count, -EINVAL, add32(sb->section_count, 1));
CORRUPT(meta_sections, -EINVAL, add32(sb->meta_sections, -1));
CORRUPT(meta_sections_more, -EINVAL, add32(sb->meta_sections, 1));
CORRUPT(max_hosts_0, -EINVAL, set32(sb->max_hosts, 0));
CORRUPT(max_hosts_1, -EINVAL, set32(sb->max_hosts, 1));
CORRUPT(max_hosts_65, -EINVAL, set32(sb->max_hosts, DRACK_MAX_HOSTS + 1));
CORRUPT(max_hosts_other, -EINVAL, add32(sb->max_hosts, 1));
/*
 * 255 entries take as many bytes as 256 once aligned to a cache line:
 * the layout matches, only the power-of-two check refuses them.
 */
CORRUPT(ref_ring_not_pow2, -EINVAL, set32(sb->ref_ring_entries, 255));
CORRUPT(ref_ring_too_big, -EINVAL,
	set32(sb->ref_ring_entries, DRACK_RING_MAX * 2));
CORRUPT(ref_ring_too_small, -EINVAL,
	set32(sb->ref_ring_entries, DRACK_RING_MIN / 2));
CORRUPT(ref_ring_zero, -EINVAL, set32(sb->ref_ring_entries, 0));
CORRUPT(ref_ring_other, -EINVAL, set32(sb->ref_ring_entries, 128));
CORRUPT(ref_queues_zero, -EINVAL, set32(sb->ref_queues, 0));
CORRUPT(ref_queues_not_pow2, -EINVAL, set32(sb->ref_queues, 3));
CORRUPT(ref_queues_over_limit, -EINVAL,
	set32(sb->ref_queues, DRACK_MAX_QUEUES * 2));
CORRUPT(ref_queues_other, -EINVAL, set32(sb->ref_queues, 2));
/* Version 2 has one ref_queue per pair: this pool's layout is not one. */
CORRUPT(version_2_with_queues, -EINVAL, set32(sb->version, 2));
CORRUPT(ret_ring_not_pow2, -EINVAL, set32(sb->ret_ring_entries, 255));
CORRUPT(ret_ring_too_big, -EINVAL, set32(sb->ret_ring_entries, 1U << 31));
CORRUPT(grant_ring_not_pow2, -EINVAL, set32(sb->grant_ring_entries, 63));
CORRUPT(grant_ring_too_big, -EINVAL,
	set32(sb->grant_ring_entries, DRACK_RING_MAX * 2));
CORRUPT(vq_ring_not_pow2, -EINVAL, set32(sb->vq_ring_entries, 255));
CORRUPT(vq_ring_too_big, -EINVAL, set32(sb->vq_ring_entries, 8192));
CORRUPT(vq_ring_other, -EINVAL, set32(sb->vq_ring_entries, 128));
CORRUPT(pool_id, -EINVAL, set32(sb->pool_id, 256));
CORRUPT(host_table_off, -EINVAL, add64(sb->host_table_off, 1));
CORRUPT(host_table_off_less, -EINVAL, add64(sb->host_table_off, -1));
CORRUPT(section_table_off, -EINVAL, add64(sb->section_table_off, 1));
CORRUPT(host_area_off, -EINVAL, add64(sb->host_area_off, 1));
CORRUPT(host_area_size, -EINVAL, add64(sb->host_area_size, -1));
CORRUPT(nics_over_limit, -EINVAL, set32(sb->max_nics, DRACK_MAX_NICS + 1));
CORRUPT(nics_more, -EINVAL, add32(sb->max_nics, 8));
CORRUPT(nics_none, -EINVAL, set32(sb->max_nics, 0));
CORRUPT(nic_table_off, -EINVAL, add64(sb->nic_table_off, 1));
CORRUPT(nic_area_off, -EINVAL, add64(sb->nic_area_off, -1));
CORRUPT(nic_area_size, -EINVAL, add64(sb->nic_area_size, 1));
CORRUPT(regions_over_limit, -EINVAL, set32(sb->regions, 17));
/* No more Regions than data Sections. */
CORRUPT(regions_over_data, -EINVAL,
	set32(sb->regions, le32_to_cpu(sb->section_count) -
			   le32_to_cpu(sb->meta_sections) + 1));

/*
 * Not refused: one NIC fewer. The layout of 7 NICs is a prefix of that
 * of 8 within the same metadata Sections, so every offset a reader
 * computes still lies where the format put it.
 */
TEST(one_nic_fewer_is_consistent)
{
	void *base = pool_alloc(CPOOL_SIZE);
	struct drack_superblock *sb = base;
	struct drack_geometry g8, g;
	u32 id, r;

	ASSERT_EQ(0, format_validate(base, CPOOL_SIZE, 16, 2, 8, &g8, &id,
				     &r));
	add32(sb->max_nics, -1);
	ASSERT_EQ(0, drack_format_validate(sb, CPOOL_SIZE, &g, &id, &r));
	ASSERT_EQ(7U, g.max_nics);
	ASSERT_EQ(g8.meta_sections, g.meta_sections);
	ASSERT_EQ(g8.nic_area_off, g.nic_area_off);
	free(base);
}

TEST_HARNESS_MAIN
