// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of drack-fmd's placement (fmd-place.c) on made-up pools:
 * Sections spread over Regions, and within a Region on the kind of pages
 * that suits the class, as the kernel reports it (page-order; the ram
 * pool follows drack_section_large_pages(): the upper half of each
 * Region for 64 KB Buffers, the lower half for 2 KB ones), falling back
 * to the other kind when one runs out.
 */
#include <stdlib.h>
#include <string.h>
#include "fmd.h"
#include "kselftest_harness.h"

#define HOST	3

/*
 * A pool of @count Sections, @meta of them metadata, all others free,
 * its pages as the ram pool lays them out.
 */
static void view_init(struct fmd_view *v, uint32_t count, uint32_t meta,
		      uint32_t regions)
{
	uint32_t s;

	memset(v, 0, sizeof(*v));
	v->pool.section_count = count;
	v->pool.meta_sections = meta;
	v->pool.regions = regions;
	v->regions = regions;
	v->sec = calloc(count, sizeof(*v->sec));
	v->free = calloc(count, sizeof(*v->free));
	for (s = 0; s < count; s++) {
		v->sec[s].id = s;
		v->sec[s].region = (uint32_t)((uint64_t)s * regions / count);
		v->sec[s].owner = s < meta ? DRACK_SECTION_META : DRACK_SECTION_FREE;
		v->sec[s].page_order =
			drack_section_large_pages(count, regions, s) ? 4 : 0;
		if (s >= meta)
			v->free[v->nfree++] = s;
	}
}

/* What the daemon's next view shows once @s is granted to @host. */
static void view_take(struct fmd_view *v, uint32_t s, uint32_t host,
		      uint32_t cls)
{
	uint32_t i, j = 0;

	v->sec[s].owner = host;
	v->sec[s].buf_class = cls;
	v->owned[host]++;
	v->owned_cls[host][cls]++;
	for (i = 0; i < v->nfree; i++)
		if (v->free[i] != s)
			v->free[j++] = v->free[i];
	v->nfree = j;
}

/* The kinds of pages a kernel reports: @below under Section @mid, @above from it. */
static void view_pages(struct fmd_view *v, uint32_t mid, int below, int above)
{
	uint32_t s;

	for (s = 0; s < v->pool.section_count; s++)
		v->sec[s].page_order = s < mid ? below : above;
}

/* Two picks, in either order: @lo and @hi. */
#define EXPECT_PICKS(lo, hi, out) do {					\
	EXPECT_EQ(lo, (out)[0] < (out)[1] ? (out)[0] : (out)[1]);	\
	EXPECT_EQ(hi, (out)[0] < (out)[1] ? (out)[1] : (out)[0]);	\
} while (0)

static void view_free(struct fmd_view *v)
{
	free(v->sec);
	free(v->free);
}

TEST(kinds_split_each_region_in_halves)
{
	uint32_t s, r, large[2] = { 0 }, first_large[2] = { 64, 64 };

	for (s = 0; s < 64; s++) {
		r = s * 2 / 64;
		if (drack_section_large_pages(64, 2, s)) {
			large[r]++;
			if (first_large[r] == 64)
				first_large[r] = s;
		}
	}
	ASSERT_EQ(16U, large[0]);
	ASSERT_EQ(16U, large[1]);
	ASSERT_EQ(16U, first_large[0]);
	ASSERT_EQ(48U, first_large[1]);
	/* One Region: the upper half; out of range or no Region: single. */
	ASSERT_EQ(0, drack_section_large_pages(32, 1, 15));
	ASSERT_EQ(1, drack_section_large_pages(32, 1, 16));
	ASSERT_EQ(0, drack_section_large_pages(32, 1, 32));
	ASSERT_EQ(0, drack_section_large_pages(32, 0, 20));
}

TEST(classes_go_to_their_kind)
{
	struct fmd_view v;
	uint32_t out[4];

	view_init(&v, 32, 2, 1);
	ASSERT_EQ(1U, fmd_place(&v, HOST, DRACK_CLASS_64K, 1, out));
	EXPECT_EQ(16U, out[0]);
	ASSERT_EQ(1U, fmd_place(&v, HOST, DRACK_CLASS_2K, 1, out));
	EXPECT_EQ(2U, out[0]);
	view_free(&v);
}

TEST(spread_over_regions_on_the_right_kind)
{
	struct fmd_view v;
	uint32_t out[4];

	view_init(&v, 64, 2, 2);
	ASSERT_EQ(2U, fmd_place(&v, HOST, DRACK_CLASS_64K, 2, out));
	EXPECT_PICKS(16U, 48U, out);
	ASSERT_EQ(2U, fmd_place(&v, HOST, DRACK_CLASS_2K, 2, out));
	EXPECT_PICKS(2U, 32U, out);
	view_free(&v);
}

TEST(one_kind_used_up_then_the_other)
{
	struct fmd_view v;
	uint32_t out[4], s;

	view_init(&v, 32, 2, 1);
	for (s = 16; s < 32; s++)
		view_take(&v, s, 1, DRACK_CLASS_64K);
	ASSERT_EQ(1U, fmd_place(&v, HOST, DRACK_CLASS_64K, 1, out));
	EXPECT_EQ(2U, out[0]);
	for (s = 2; s < 16; s++)
		view_take(&v, s, 1, DRACK_CLASS_64K);
	EXPECT_EQ(0U, fmd_place(&v, HOST, DRACK_CLASS_64K, 1, out));
	view_free(&v);
}

TEST(the_kind_before_the_region)
{
	struct fmd_view v;
	uint32_t out[4], s;

	/* Region 0's lower half used up: a 2 KB grant goes to Region 1's. */
	view_init(&v, 64, 2, 2);
	for (s = 2; s < 16; s++)
		view_take(&v, s, 1, DRACK_CLASS_2K);
	view_take(&v, 32, HOST, DRACK_CLASS_2K);
	ASSERT_EQ(1U, fmd_place(&v, HOST, DRACK_CLASS_2K, 1, out));
	EXPECT_EQ(33U, out[0]);
	/* Both lower halves used up: Region 0's upper half, spreading. */
	for (s = 33; s < 48; s++)
		view_take(&v, s, 1, DRACK_CLASS_2K);
	ASSERT_EQ(1U, fmd_place(&v, HOST, DRACK_CLASS_2K, 1, out));
	EXPECT_EQ(16U, out[0]);
	view_free(&v);
}

TEST(the_kind_reported_not_the_rule)
{
	struct fmd_view v;
	uint32_t out[4];

	/*
	 * An ivshmem pool reformatted with two Regions: its pages stay as
	 * mapped at probe, single below Section 32, compound above.
	 */
	view_init(&v, 64, 2, 2);
	view_pages(&v, 32, 0, 4);
	ASSERT_EQ(2U, fmd_place(&v, HOST, DRACK_CLASS_64K, 2, out));
	EXPECT_EQ(32U, out[0]);
	EXPECT_EQ(33U, out[1]);
	ASSERT_EQ(1U, fmd_place(&v, HOST, DRACK_CLASS_2K, 1, out));
	EXPECT_EQ(2U, out[0]);
	view_free(&v);
}

TEST(no_struct_pages_any_kind)
{
	struct fmd_view v;
	uint32_t out[4];

	/* Frames are copied: Regions alone decide, lowest id first. */
	view_init(&v, 64, 2, 2);
	view_pages(&v, 64, -1, -1);
	ASSERT_EQ(2U, fmd_place(&v, HOST, DRACK_CLASS_64K, 2, out));
	EXPECT_PICKS(2U, 32U, out);
	view_free(&v);
}

TEST(several_picks_are_distinct)
{
	struct fmd_view v;
	uint32_t out[20], i, j;

	view_init(&v, 32, 2, 1);
	ASSERT_EQ(20U, fmd_place(&v, HOST, DRACK_CLASS_64K, 20, out));
	/* The 16 large ones first, in order, then the lowest single ones. */
	for (i = 0; i < 16; i++)
		EXPECT_EQ(16 + i, out[i]);
	for (i = 0; i < 20; i++)
		for (j = i + 1; j < 20; j++)
			EXPECT_NE(out[i], out[j]);
	view_free(&v);
}

TEST_HARNESS_MAIN
