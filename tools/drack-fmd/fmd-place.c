// SPDX-License-Identifier: GPL-2.0-only
/*
 * Placement: which free Sections a host's grant gets. Pure: it reads a
 * view of the pool (fmd-view.c) and writes nothing, so tests/unit/place
 * runs it on made-up pools.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "fmd.h"

uint32_t fmd_view_region(const struct fmd_view *v, uint32_t id)
{
	uint32_t r;

	if (id >= v->pool.section_count)
		return 0;
	r = v->sec[id].region;
	return r < v->regions ? r : v->regions - 1;
}

/*
 * Whether Section @id's pages suit @large Buffers, as the kernel reports
 * them (page-order): compound pages for 64 KB Buffers, single pages for
 * 2 KB ones. Without struct pages frames are copied: any kind suits.
 */
static bool fmd_kind_is(const struct fmd_view *v, uint32_t id, bool large)
{
	int order = v->sec[id].page_order;

	return order < 0 || (order > 0) == large;
}

/* The lowest free Section in @region on @large pages, else the lowest. */
static uint32_t fmd_pick_in(const struct fmd_view *v, const bool *taken,
			    uint32_t region, bool large)
{
	uint32_t i, any = UINT32_MAX;

	for (i = 0; i < v->nfree; i++) {
		if (taken[i] || fmd_view_region(v, v->free[i]) != region)
			continue;
		if (fmd_kind_is(v, v->free[i], large))
			return i;
		if (any == UINT32_MAX)
			any = i;
	}
	return any;
}

/*
 * Interleave: a pool spanning several memory devices (Regions: CXL
 * interleave sets, NUMA nodes) serves a host fastest when its Sections
 * are spread across all of them. Each pick goes to the Region where
 * @host owns the fewest Sections; ties go to the Region with the most
 * free Sections, then to the one where it owns the fewest of @cls, then
 * to the lowest Region. Within a Region, the lowest free id on the kind
 * of pages that suits @cls (fmd_kind_is()), else the lowest.
 * Only Regions with a free Section of that kind compete while any has
 * one: 32 2 KB Buffers on one compound page go back only together.
 */
uint32_t fmd_place(const struct fmd_view *v, uint32_t host, uint32_t cls,
		   uint32_t want, uint32_t *out)
{
	uint32_t mine[FMD_MAX_REGIONS] = { 0 }, mine_cls[FMD_MAX_REGIONS] = { 0 };
	uint32_t nfree[FMD_MAX_REGIONS] = { 0 }, nkind[FMD_MAX_REGIONS] = { 0 };
	bool large = cls == DRACK_CLASS_64K, kind;
	uint32_t n = 0, i, r, best;
	bool *taken;

	if (want > v->nfree)
		want = v->nfree;
	if (!want)
		return 0;
	taken = calloc(v->nfree, sizeof(*taken));
	if (!taken) {		/* lowest ids: still a valid choice */
		memcpy(out, v->free, want * sizeof(*out));
		return want;
	}
	for (i = 0; i < v->pool.section_count; i++) {
		if (v->sec[i].owner != host)
			continue;
		r = fmd_view_region(v, i);
		mine[r]++;
		if (v->sec[i].buf_class == cls)
			mine_cls[r]++;
	}
	for (i = 0; i < v->nfree; i++) {
		r = fmd_view_region(v, v->free[i]);
		nfree[r]++;
		nkind[r] += fmd_kind_is(v, v->free[i], large);
	}

	while (n < want) {
		best = UINT32_MAX;
		kind = false;
		for (r = 0; r < v->regions; r++)
			kind |= nkind[r] > 0;
		for (r = 0; r < v->regions; r++) {
			if (!nfree[r] || (kind && !nkind[r]))
				continue;
			if (best == UINT32_MAX || mine[r] < mine[best] ||
			    (mine[r] == mine[best] &&
			     (nfree[r] > nfree[best] ||
			      (nfree[r] == nfree[best] &&
			       mine_cls[r] < mine_cls[best]))))
				best = r;
		}
		if (best == UINT32_MAX)
			break;
		i = fmd_pick_in(v, taken, best, large);
		if (i == UINT32_MAX)	/* cannot happen: nfree[best] > 0 */
			break;
		taken[i] = true;
		out[n++] = v->free[i];
		mine[best]++;
		mine_cls[best]++;
		nfree[best]--;
		nkind[best] -= fmd_kind_is(v, v->free[i], large);
	}
	free(taken);
	return n;
}
