// SPDX-License-Identifier: GPL-2.0-only
/*
 * A snapshot of one pool for a decision: geometry, used host slots and
 * the Section table reduced to per-host counts and the free list. The
 * three dumps are not atomic; the kernel rejects a grant that no longer
 * fits (Section taken, host gone) and the next request retries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fmd.h"

static int fmd_view_host(const struct drack_host_info *h, void *arg)
{
	struct fmd_view *v = arg;

	if (h->id >= DRACK_MAX_HOSTS || h->id >= v->pool.max_hosts)
		return 0;
	v->host[h->id] = *h;
	v->present[h->id] = true;
	if (h->state == DRACK_HOST_UP)
		v->up_hosts++;
	return 0;
}

static int fmd_view_section(const struct drack_section_info *s, void *arg)
{
	struct fmd_view *v = arg;

	if (s->id >= v->pool.section_count)
		return 0;
	if (s->owner == DRACK_SECTION_FREE) {
		if (s->id >= v->pool.meta_sections && v->nfree < v->pool.section_count)
			v->free[v->nfree++] = s->id;
	} else if (s->owner < DRACK_MAX_HOSTS) {
		v->owned[s->owner]++;
	}
	return 0;
}

static int fmd_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int fmd_view_load(struct drack_nl *nl, uint32_t pool, struct fmd_view *v)
{
	int err;

	memset(v, 0, sizeof(*v));
	err = drack_pool_get(nl, pool, &v->pool);
	if (err)
		return err;
	v->free = calloc(v->pool.section_count ? v->pool.section_count : 1,
			 sizeof(*v->free));
	if (!v->free)
		return -ENOMEM;
	err = drack_host_list(nl, pool, fmd_view_host, v);
	if (!err)
		err = drack_section_list(nl, pool, fmd_view_section, v);
	if (err) {
		fmd_view_free(v);
		return err;
	}
	/* the dump is in id order already; do not depend on it */
	qsort(v->free, v->nfree, sizeof(*v->free), fmd_cmp_u32);
	return 0;
}

void fmd_view_free(struct fmd_view *v)
{
	free(v->free);
	v->free = NULL;
	v->nfree = 0;
}
