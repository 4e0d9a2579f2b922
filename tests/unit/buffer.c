// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of kmod/buffer.c, the Buffer allocator, on a real pool in
 * user memory: formatted by kmod/format.c, its Section table written as
 * the fabric manager's grant writes it (owner, class, generation).
 */
#include "buffer.h"
#include "kselftest_harness.h"

#define MB		(1ULL << 20)
#define POOL_SIZE	(16 * MB)	/* 8 Sections, 1 of metadata */
#define HOST		1
#define PEER		2
#define OTHER		3

#define N2K	(DRACK_SECTION_SIZE >> DRACK_CLASS_SHIFT(DRACK_CLASS_2K))
#define N64K	(DRACK_SECTION_SIZE >> DRACK_CLASS_SHIFT(DRACK_CLASS_64K))

FIXTURE(alloc) {
	struct drack_pool pool;
	struct drack_alloc a;
};

FIXTURE_SETUP(alloc)
{
	struct drack_pool *pool = &self->pool;

	memset(pool, 0, sizeof(*pool));
	pool->size = POOL_SIZE;
	pool->base = calloc(1, POOL_SIZE);
	ASSERT_NE(NULL, pool->base);
	ASSERT_EQ(0, drack_format_pool(pool->base, POOL_SIZE, 0, 4, 1, 4, 0));
	ASSERT_EQ(0, drack_format_validate(pool->base, POOL_SIZE, &pool->geo,
					   &pool->id, &pool->regions));
	ASSERT_EQ(8U, pool->geo.section_count);
	ASSERT_EQ(1U, pool->geo.meta_sections);
	ASSERT_EQ(0, drack_alloc_init(&self->a, pool, HOST));
}

FIXTURE_TEARDOWN(alloc)
{
	drack_alloc_release(&self->a);
	drack_alloc_free(&self->a);
	free(self->pool.base);
}

/* What the fabric manager writes for a grant; returns the generation. */
static u32 fm_grant(struct drack_pool *pool, u32 section, u32 host,
		    u32 buf_class)
{
	struct drack_section_entry *e = drack_section_entry(pool, section);
	u32 gen = le32_to_cpu(e->generation) + 1;

	e->buf_class = buf_class;
	e->flags = 0;
	e->generation = cpu_to_le32(gen);
	e->owner = cpu_to_le16(host);
	return gen;
}

/* Grant @section to us and take it: 0 or the allocator's error. */
static int grant(struct drack_alloc *a, u32 section, u32 buf_class)
{
	u32 gen = fm_grant(a->pool, section, a->host, buf_class), c;

	return drack_alloc_grant(a, section, gen, &c);
}

static struct drack_class_counters counters(struct drack_alloc *a, u32 c)
{
	struct drack_class_counters cc;

	drack_alloc_counters(a, c, &cc);
	return cc;
}

static u64 section_base(u32 section)
{
	return (u64)section << DRACK_SECTION_SHIFT;
}

TEST_F(alloc, grant_checks)
{
	struct drack_alloc *a = &self->a;
	u32 gen, gen4, c = 99;

	/* A good grant. */
	gen = fm_grant(&self->pool, 2, HOST, DRACK_CLASS_2K);
	ASSERT_EQ(0, drack_alloc_grant(a, 2, gen, &c));
	ASSERT_EQ((u32)DRACK_CLASS_2K, c);
	ASSERT_EQ(1U, counters(a, DRACK_CLASS_2K).sections);
	ASSERT_EQ(N2K, counters(a, DRACK_CLASS_2K).total);
	ASSERT_EQ(N2K, counters(a, DRACK_CLASS_2K).free);
	ASSERT_EQ(0U, counters(a, DRACK_CLASS_64K).total);
	/* The same grant again: already ours. */
	ASSERT_EQ(-EINVAL, drack_alloc_grant(a, 2, gen, &c));
	/* Granted to another host. */
	gen = fm_grant(&self->pool, 3, OTHER, DRACK_CLASS_2K);
	ASSERT_EQ(-EINVAL, drack_alloc_grant(a, 3, gen, &c));
	/* A stale or future generation (the Section was granted again). */
	gen4 = fm_grant(&self->pool, 4, HOST, DRACK_CLASS_64K);
	ASSERT_EQ(-EINVAL, drack_alloc_grant(a, 4, gen4 - 1, &c));
	ASSERT_EQ(-EINVAL, drack_alloc_grant(a, 4, gen4 + 1, &c));
	/* A class that does not exist. */
	gen = fm_grant(&self->pool, 5, HOST, DRACK_NR_CLASSES);
	ASSERT_EQ(-EINVAL, drack_alloc_grant(a, 5, gen, &c));
	/* Free, metadata, beyond the pool. */
	ASSERT_EQ(-EINVAL, drack_alloc_grant(a, 6, 0, &c));
	ASSERT_EQ(-EINVAL, drack_alloc_grant(a, 0, 0, &c));
	ASSERT_EQ(-EINVAL, drack_alloc_grant(a, 8, 0, &c));
	ASSERT_EQ(-EINVAL, drack_alloc_grant(a, 0xffffffffU, 0, &c));
	/* Nothing was added by the refused grants. */
	ASSERT_EQ(1U, counters(a, DRACK_CLASS_2K).sections);
	ASSERT_EQ(0U, counters(a, DRACK_CLASS_64K).sections);
	/* Section 4 at its own generation is fine. */
	ASSERT_EQ(0, drack_alloc_grant(a, 4, gen4, &c));
	ASSERT_EQ((u32)DRACK_CLASS_64K, c);
	ASSERT_EQ(N64K, counters(a, DRACK_CLASS_64K).free);
}

TEST_F(alloc, get_return_round_trip)
{
	struct drack_alloc *a = &self->a;
	u64 off, off2;

	ASSERT_EQ(0, grant(a, 3, DRACK_CLASS_2K));
	ASSERT_EQ(0, grant(a, 5, DRACK_CLASS_64K));
	/* Buffers go out in address order. */
	off = drack_buf_get(a, DRACK_CLASS_2K, PEER);
	ASSERT_EQ(section_base(3), off);
	off2 = drack_buf_get(a, DRACK_CLASS_2K, PEER);
	ASSERT_EQ(section_base(3) + 2048, off2);
	ASSERT_EQ(2U, counters(a, DRACK_CLASS_2K).inflight);
	ASSERT_EQ(N2K - 2, counters(a, DRACK_CLASS_2K).free);
	ASSERT_EQ(section_base(5), drack_buf_get(a, DRACK_CLASS_64K, OTHER));
	ASSERT_EQ(section_base(5) + 65536,
		  drack_buf_get(a, DRACK_CLASS_64K, OTHER));
	ASSERT_EQ(0, drack_buf_return(a, off, PEER));
	ASSERT_EQ(0, drack_buf_return(a, off2, PEER));
	ASSERT_EQ(0, drack_buf_return(a, section_base(5), OTHER));
	ASSERT_EQ(0, drack_buf_return(a, section_base(5) + 65536, OTHER));
	ASSERT_EQ(0U, counters(a, DRACK_CLASS_2K).inflight);
	ASSERT_EQ(N2K, counters(a, DRACK_CLASS_2K).free);
	ASSERT_EQ(N64K, counters(a, DRACK_CLASS_64K).free);
	/* LIFO: the last one home goes out first. */
	ASSERT_EQ(off2, drack_buf_get(a, DRACK_CLASS_2K, PEER));
	ASSERT_EQ(1U, drack_alloc_release(a));	/* one still lent */
}

TEST_F(alloc, return_checks)
{
	struct drack_alloc *a = &self->a;
	u64 off;

	ASSERT_EQ(0, grant(a, 3, DRACK_CLASS_2K));
	off = drack_buf_get(a, DRACK_CLASS_2K, PEER);
	ASSERT_NE(0ULL, off);
	/* Not lent to that peer. */
	ASSERT_EQ(-EINVAL, drack_buf_return(a, off, OTHER));
	/* Never lent at all. */
	ASSERT_EQ(-EINVAL, drack_buf_return(a, off + 2048, PEER));
	/* Not a Buffer boundary, not our Section, not in the pool. */
	ASSERT_EQ(-EINVAL, drack_buf_return(a, off + 1, PEER));
	ASSERT_EQ(-EINVAL, drack_buf_return(a, off + 1024, PEER));
	ASSERT_EQ(-EINVAL, drack_buf_return(a, section_base(4), PEER));
	ASSERT_EQ(-EINVAL, drack_buf_return(a, section_base(0), PEER));
	ASSERT_EQ(-EINVAL, drack_buf_return(a, POOL_SIZE, PEER));
	ASSERT_EQ(-EINVAL, drack_buf_return(a, ~0ULL, PEER));
	ASSERT_EQ(1U, counters(a, DRACK_CLASS_2K).inflight);
	/* The right peer; then a second return is refused. */
	ASSERT_EQ(0, drack_buf_return(a, off, PEER));
	ASSERT_EQ(-EINVAL, drack_buf_return(a, off, PEER));
	ASSERT_EQ(0U, counters(a, DRACK_CLASS_2K).inflight);
	ASSERT_EQ(N2K, counters(a, DRACK_CLASS_2K).free);
}

/* A 64K Buffer's inner 2K boundaries are no Buffers. */
TEST_F(alloc, return_checks_64k)
{
	struct drack_alloc *a = &self->a;
	u64 off;

	ASSERT_EQ(0, grant(a, 6, DRACK_CLASS_64K));
	off = drack_buf_get(a, DRACK_CLASS_64K, PEER);
	ASSERT_EQ(-EINVAL, drack_buf_return(a, off + 2048, PEER));
	ASSERT_EQ(0, drack_buf_return(a, off, PEER));
}

TEST_F(alloc, unget)
{
	struct drack_alloc *a = &self->a;
	u64 off;

	ASSERT_EQ(0, grant(a, 7, DRACK_CLASS_64K));
	off = drack_buf_get(a, DRACK_CLASS_64K, PEER);
	ASSERT_EQ(N64K - 1, counters(a, DRACK_CLASS_64K).free);
	drack_buf_unget(a, off);
	ASSERT_EQ(N64K, counters(a, DRACK_CLASS_64K).free);
	ASSERT_EQ(0U, counters(a, DRACK_CLASS_64K).inflight);
	/* It is no longer lent: the peer cannot return it. */
	ASSERT_EQ(-EINVAL, drack_buf_return(a, off, PEER));
	ASSERT_EQ(off, drack_buf_get(a, DRACK_CLASS_64K, PEER));
	/* Garbage offsets are ignored. */
	drack_buf_unget(a, off + 1);
	drack_buf_unget(a, section_base(2));
	ASSERT_EQ(N64K - 1, counters(a, DRACK_CLASS_64K).free);
}

TEST_F(alloc, exhaustion)
{
	struct drack_alloc *a = &self->a;
	u64 off[N64K];
	u32 i;

	/* No Section: nothing to lend. */
	ASSERT_EQ(0ULL, drack_buf_get(a, DRACK_CLASS_64K, PEER));
	ASSERT_EQ(0, grant(a, 4, DRACK_CLASS_64K));
	for (i = 0; i < N64K; i++) {
		off[i] = drack_buf_get(a, DRACK_CLASS_64K, PEER);
		ASSERT_EQ(section_base(4) + (u64)i * 65536, off[i]);
	}
	ASSERT_EQ(0ULL, drack_buf_get(a, DRACK_CLASS_64K, PEER));
	/* The other class has its own Sections. */
	ASSERT_EQ(0ULL, drack_buf_get(a, DRACK_CLASS_2K, PEER));
	ASSERT_EQ(0, drack_buf_return(a, off[7], PEER));
	ASSERT_EQ(off[7], drack_buf_get(a, DRACK_CLASS_64K, PEER));
	ASSERT_EQ(0ULL, drack_buf_get(a, DRACK_CLASS_64K, PEER));
}

TEST_F(alloc, forget_peer)
{
	struct drack_alloc *a = &self->a;
	u64 peer[10], other[5];
	u32 i;

	ASSERT_EQ(0, grant(a, 2, DRACK_CLASS_2K));
	ASSERT_EQ(0, grant(a, 3, DRACK_CLASS_64K));
	for (i = 0; i < 10; i++)
		peer[i] = drack_buf_get(a, i & 1 ? DRACK_CLASS_64K :
					DRACK_CLASS_2K, PEER);
	for (i = 0; i < 5; i++)
		other[i] = drack_buf_get(a, i & 1 ? DRACK_CLASS_64K :
					 DRACK_CLASS_2K, OTHER);
	ASSERT_EQ(10U, drack_alloc_forget_peer(a, PEER));
	ASSERT_EQ(3U, counters(a, DRACK_CLASS_2K).inflight);
	ASSERT_EQ(2U, counters(a, DRACK_CLASS_64K).inflight);
	/* A forgotten Buffer cannot come back from that peer. */
	ASSERT_EQ(-EINVAL, drack_buf_return(a, peer[0], PEER));
	ASSERT_EQ(0U, drack_alloc_forget_peer(a, PEER));
	/* The other peer's stay lent to it. */
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, drack_buf_return(a, other[i], OTHER));
	ASSERT_EQ(0U, drack_alloc_forget_peer(a, OTHER));
	ASSERT_EQ(N2K, counters(a, DRACK_CLASS_2K).free);
	ASSERT_EQ(N64K, counters(a, DRACK_CLASS_64K).free);
}

TEST_F(alloc, drain_section)
{
	struct drack_alloc *a = &self->a;
	struct drack_class_counters c;
	u64 lent[3], off;
	u32 i;

	ASSERT_EQ(0, grant(a, 2, DRACK_CLASS_64K));
	ASSERT_EQ(0, grant(a, 3, DRACK_CLASS_64K));
	/* The stack hands out Section 3's Buffers first (LIFO). */
	for (i = 0; i < 3; i++) {
		lent[i] = drack_buf_get(a, DRACK_CLASS_64K, PEER);
		ASSERT_EQ(3ULL, lent[i] >> DRACK_SECTION_SHIFT);
	}
	ASSERT_FALSE(drack_alloc_take_drained(a, 3));	/* not draining */
	ASSERT_FALSE(drack_alloc_drain_section(a, 4));	/* not ours */
	ASSERT_FALSE(drack_alloc_drain_section(a, 99));
	ASSERT_TRUE(drack_alloc_drain_section(a, 3));
	ASSERT_TRUE(drack_alloc_drain_section(a, 3));	/* already */
	ASSERT_EQ(1U, drack_alloc_draining(a));
	c = counters(a, DRACK_CLASS_64K);
	ASSERT_EQ(1U, c.draining);
	ASSERT_EQ(N64K, c.free);		/* Section 2's only */
	ASSERT_EQ(3U, c.inflight);
	/* No Buffer of the draining Section goes out again. */
	for (i = 0; i < N64K; i++) {
		off = drack_buf_get(a, DRACK_CLASS_64K, OTHER);
		ASSERT_EQ(2ULL, off >> DRACK_SECTION_SHIFT);
	}
	ASSERT_EQ(0ULL, drack_buf_get(a, DRACK_CLASS_64K, OTHER));
	/* Home one by one: taken only once all are. */
	ASSERT_EQ(0, drack_buf_return(a, lent[0], PEER));
	ASSERT_FALSE(drack_alloc_take_drained(a, 3));
	ASSERT_EQ(0, drack_buf_return(a, lent[1], PEER));
	ASSERT_FALSE(drack_alloc_take_drained(a, 3));
	ASSERT_EQ(0ULL, drack_buf_get(a, DRACK_CLASS_64K, OTHER)); /* parked */
	ASSERT_EQ(0, drack_buf_return(a, lent[2], PEER));
	ASSERT_TRUE(drack_alloc_take_drained(a, 3));
	ASSERT_FALSE(drack_alloc_take_drained(a, 3));	/* only once */
	ASSERT_EQ(0U, drack_alloc_draining(a));
	c = counters(a, DRACK_CLASS_64K);
	ASSERT_EQ(1U, c.sections);
	ASSERT_EQ(N64K, c.total);
	ASSERT_EQ(0U, c.free);
	ASSERT_EQ(N64K, c.inflight);
	/* Gone: its Buffers are no longer ours to take back. */
	ASSERT_EQ(-EINVAL, drack_buf_return(a, lent[0], PEER));
	/* Granted again later, it is a fresh Section. */
	ASSERT_EQ(0, grant(a, 3, DRACK_CLASS_2K));
	ASSERT_EQ(N2K, counters(a, DRACK_CLASS_2K).free);
}

/* A dead peer's Buffers in a draining Section: home, then taken. */
TEST_F(alloc, drain_then_forget_peer)
{
	struct drack_alloc *a = &self->a;

	ASSERT_EQ(0, grant(a, 5, DRACK_CLASS_2K));
	drack_buf_get(a, DRACK_CLASS_2K, PEER);
	drack_buf_get(a, DRACK_CLASS_2K, PEER);
	ASSERT_TRUE(drack_alloc_drain_section(a, 5));
	ASSERT_FALSE(drack_alloc_take_drained(a, 5));
	ASSERT_EQ(2U, drack_alloc_forget_peer(a, PEER));
	ASSERT_TRUE(drack_alloc_take_drained(a, 5));
	ASSERT_EQ(0U, counters(a, DRACK_CLASS_2K).total);
}

/* drack_alloc_low(): below 256 free 2K Buffers, below 16 64K ones. */
TEST_F(alloc, low_water)
{
	struct drack_alloc *a = &self->a;
	u32 i;

	ASSERT_TRUE(drack_alloc_low(a, DRACK_CLASS_2K));
	ASSERT_TRUE(drack_alloc_low(a, DRACK_CLASS_64K));
	ASSERT_EQ(0, grant(a, 2, DRACK_CLASS_2K));
	ASSERT_EQ(0, grant(a, 3, DRACK_CLASS_64K));
	ASSERT_FALSE(drack_alloc_low(a, DRACK_CLASS_2K));
	ASSERT_FALSE(drack_alloc_low(a, DRACK_CLASS_64K));
	for (i = 0; i < N2K - 256; i++)
		drack_buf_get(a, DRACK_CLASS_2K, PEER);
	ASSERT_FALSE(drack_alloc_low(a, DRACK_CLASS_2K));	/* 256 */
	drack_buf_get(a, DRACK_CLASS_2K, PEER);
	ASSERT_TRUE(drack_alloc_low(a, DRACK_CLASS_2K));	/* 255 */
	for (i = 0; i < N64K - 16; i++)
		drack_buf_get(a, DRACK_CLASS_64K, PEER);
	ASSERT_FALSE(drack_alloc_low(a, DRACK_CLASS_64K));	/* 16 */
	drack_buf_get(a, DRACK_CLASS_64K, PEER);
	ASSERT_TRUE(drack_alloc_low(a, DRACK_CLASS_64K));	/* 15 */
	/* A request is forgotten once a grant comes. */
	a->cls[DRACK_CLASS_2K].requested = true;
	ASSERT_TRUE(counters(a, DRACK_CLASS_2K).requested);
	ASSERT_EQ(0, grant(a, 4, DRACK_CLASS_2K));
	ASSERT_FALSE(counters(a, DRACK_CLASS_2K).requested);
	ASSERT_FALSE(drack_alloc_low(a, DRACK_CLASS_2K));
}

/*
 * One peer holding half a class asks for a Section (a reader by
 * reference may hold only half), while the class is below twice what
 * the reader may hold; the flag goes once that peer hands one back.
 */
TEST_F(alloc, half_lent)
{
	struct drack_alloc *a = &self->a;
	u64 off[N64K], other;
	u32 i;

	ASSERT_EQ(0, grant(a, 3, DRACK_CLASS_64K));
	/* No hold said yet: low water only. */
	for (i = 0; i < N64K / 2; i++)
		off[i] = drack_buf_get(a, DRACK_CLASS_64K, PEER);
	ASSERT_FALSE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	for (i = 0; i < N64K / 2; i++)
		ASSERT_EQ(0, drack_buf_return(a, off[i], PEER));

	/* Holding 16 Buffers at most: a class of 32 is big enough. */
	drack_alloc_set_ref_hold(a, 4 * MB, 16);
	for (i = 0; i < N64K / 2; i++)
		off[i] = drack_buf_get(a, DRACK_CLASS_64K, PEER);
	ASSERT_FALSE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	for (i = 0; i < N64K / 2; i++)
		ASSERT_EQ(0, drack_buf_return(a, off[i], PEER));

	drack_alloc_set_ref_hold(a, 4 * MB, 1024);	/* below 8 MB: 128 */
	for (i = 0; i < N64K / 2 - 1; i++)
		off[i] = drack_buf_get(a, DRACK_CLASS_64K, PEER);
	ASSERT_FALSE(drack_alloc_wants_section(a, DRACK_CLASS_64K)); /* 15 */
	off[i] = drack_buf_get(a, DRACK_CLASS_64K, OTHER);
	ASSERT_FALSE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	ASSERT_EQ(0, drack_buf_return(a, off[i], OTHER));
	off[i] = drack_buf_get(a, DRACK_CLASS_64K, PEER);	/* 16 of 32 */
	ASSERT_FALSE(drack_alloc_low(a, DRACK_CLASS_64K));
	ASSERT_TRUE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	/* Another peer's Buffer coming home changes nothing. */
	other = drack_buf_get(a, DRACK_CLASS_64K, OTHER);
	ASSERT_EQ(0, drack_buf_return(a, other, OTHER));
	ASSERT_TRUE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	ASSERT_EQ(0, drack_buf_return(a, off[i], PEER));
	ASSERT_FALSE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	off[i] = drack_buf_get(a, DRACK_CLASS_64K, PEER);
	ASSERT_TRUE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	/* A grant: 16 of 64 is not half. */
	ASSERT_EQ(0, grant(a, 4, DRACK_CLASS_64K));
	ASSERT_FALSE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	/* But of the 32 not being drained it is. */
	ASSERT_TRUE(drack_alloc_drain_section(a, 4));
	ASSERT_TRUE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	ASSERT_EQ(0, drack_buf_return(a, off[i], PEER));
	ASSERT_FALSE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	off[i] = drack_buf_get(a, DRACK_CLASS_64K, PEER);
	ASSERT_TRUE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	ASSERT_TRUE(drack_alloc_take_drained(a, 4));
	ASSERT_EQ(0, grant(a, 4, DRACK_CLASS_64K));
	/* Four Sections, 128 Buffers: the reader's own cap binds first. */
	ASSERT_EQ(0, grant(a, 5, DRACK_CLASS_64K));
	ASSERT_EQ(0, grant(a, 6, DRACK_CLASS_64K));
	for (i = 0; i < 2 * N64K - 16; i++)
		ASSERT_NE(0ULL, drack_buf_get(a, DRACK_CLASS_64K, PEER));
	ASSERT_FALSE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
}

/*
 * Scarce: a Buffer taken leaves fewer than half the low water free (8 of
 * 64 KB), so the receiver should copy (never-readers on two hosts could
 * hold all of a small owner's Buffers, each below its own half). Lent to
 * any peer counts, decided under the lock; a grant or a drain moves it.
 */
TEST_F(alloc, scarce)
{
	struct drack_alloc *a = &self->a;
	u64 off[2 * N64K];
	bool scarce;
	u32 i;

	ASSERT_EQ(0ULL, drack_buf_get_scarce(a, DRACK_CLASS_64K, PEER,
					     &scarce));	/* none owned */
	ASSERT_FALSE(scarce);
	ASSERT_EQ(0, grant(a, 3, DRACK_CLASS_64K));
	for (i = 0; i < N64K / 2; i++) {
		off[i] = drack_buf_get_scarce(a, DRACK_CLASS_64K, PEER,
					      &scarce);
		ASSERT_FALSE(scarce);
	}
	for (; i < N64K - 8; i++) {
		off[i] = drack_buf_get_scarce(a, DRACK_CLASS_64K, OTHER,
					      &scarce);
		ASSERT_FALSE(scarce);			/* 8 left at the last */
	}
	off[i] = drack_buf_get_scarce(a, DRACK_CLASS_64K, OTHER, &scarce);
	ASSERT_TRUE(scarce);				/* 7 left */
	/* A scarce class is low too: a Section is asked for already. */
	ASSERT_TRUE(drack_alloc_wants_section(a, DRACK_CLASS_64K));
	ASSERT_EQ(0, drack_buf_return(a, off[i], OTHER));
	off[i] = drack_buf_get_scarce(a, DRACK_CLASS_64K, OTHER, &scarce);
	ASSERT_TRUE(scarce);
	ASSERT_EQ(0, drack_buf_return(a, off[i], OTHER));
	ASSERT_EQ(0, drack_buf_return(a, off[i - 1], OTHER));
	off[i - 1] = drack_buf_get_scarce(a, DRACK_CLASS_64K, OTHER, &scarce);
	ASSERT_FALSE(scarce);				/* 8 left */
	off[i] = drack_buf_get_scarce(a, DRACK_CLASS_64K, OTHER, &scarce);
	ASSERT_TRUE(scarce);
	/* A grant: 7 + 32 free of 64. */
	ASSERT_EQ(0, grant(a, 4, DRACK_CLASS_64K));
	off[++i] = drack_buf_get_scarce(a, DRACK_CLASS_64K, OTHER, &scarce);
	ASSERT_FALSE(scarce);
	ASSERT_EQ(0, drack_buf_return(a, off[i], OTHER));
	/* Its drain takes its free Buffers off: 7 free again. */
	ASSERT_TRUE(drack_alloc_drain_section(a, 4));
	off[i] = drack_buf_get_scarce(a, DRACK_CLASS_64K, OTHER, &scarce);
	ASSERT_TRUE(scarce);
	ASSERT_EQ(0, drack_buf_return(a, off[i], OTHER));
	ASSERT_TRUE(drack_alloc_take_drained(a, 4));
}

TEST(buf_class)
{
	ASSERT_EQ((u32)DRACK_CLASS_2K, drack_buf_class(0));
	ASSERT_EQ((u32)DRACK_CLASS_2K, drack_buf_class(2048));
	ASSERT_EQ((u32)DRACK_CLASS_64K, drack_buf_class(2049));
	ASSERT_EQ((u32)DRACK_CLASS_64K, drack_buf_class(DRACK_MAX_FRAME));
}

/*
 * The free stacks keep Buffer offsets >> 11 in a u32: offsets below 8 TB
 * round-trip, 8 TB itself would wrap to offset 0 (and the u32 capacity
 * of the 2K stack would wrap too), so drack_alloc_init() refuses pools
 * larger than DRACK_BUF_MAX_POOL.
 */
TEST(limit_8tb)
{
	u64 tb8 = 8ULL << 40, last = tb8 - DRACK_CLASS_SIZE(DRACK_CLASS_2K);
	u64 last64k = tb8 - DRACK_CLASS_SIZE(DRACK_CLASS_64K);
	struct drack_pool pool = { 0 };
	struct drack_alloc a;

	ASSERT_EQ(tb8, DRACK_BUF_MAX_POOL);
	ASSERT_EQ(last, drack_buf_unpack(drack_buf_pack(last)));
	ASSERT_EQ(last64k, drack_buf_unpack(drack_buf_pack(last64k)));
	ASSERT_EQ(0xffffffffU, drack_buf_pack(last));
	ASSERT_EQ(0ULL, drack_buf_unpack(drack_buf_pack(tb8)));
	/* Every 2K Buffer of an 8 TB pool fits a u32 stack slot count. */
	ASSERT_EQ(1ULL << 32, tb8 >> DRACK_CLASS_SHIFT(DRACK_CLASS_2K));
	/* One Section more than 8 TB: refused before any allocation. */
	ASSERT_EQ(0, drack_layout(&pool.geo, tb8 + DRACK_SECTION_SIZE, 2, 1,
				  8, 8, 8));
	ASSERT_EQ(-EINVAL, drack_alloc_init(&a, &pool, 0));
}

TEST_HARNESS_MAIN
