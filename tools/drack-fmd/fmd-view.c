// SPDX-License-Identifier: GPL-2.0-only
/*
 * A snapshot of one pool for a decision: geometry, used host slots and
 * the Section table, also reduced to per-host counts and the free list.
 * The three dumps are not atomic; the kernel rejects a grant or revoke
 * that no longer fits (Section taken, host gone) and the next pass
 * retries.
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
	v->hosts++;
	if (h->state == DRACK_HOST_UP)
		v->up_hosts++;
	return 0;
}

static int fmd_view_section(const struct drack_section_info *s, void *arg)
{
	struct fmd_view *v = arg;

	if (s->id >= v->pool.section_count)
		return 0;
	v->sec[s->id] = *s;
	if (s->owner == DRACK_SECTION_FREE) {
		if (s->id >= v->pool.meta_sections && v->nfree < v->pool.section_count)
			v->free[v->nfree++] = s->id;
	} else if (s->owner < DRACK_MAX_HOSTS) {
		v->owned[s->owner]++;
		if (s->buf_class < DRACK_NR_CLASSES)
			v->owned_cls[s->owner][s->buf_class]++;
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
	uint32_t n, i;
	int err;

	memset(v, 0, sizeof(*v));
	err = drack_pool_get(nl, pool, &v->pool);
	if (err)
		return err;
	v->regions = v->pool.regions ? v->pool.regions : 1;
	if (v->regions > FMD_MAX_REGIONS)
		v->regions = FMD_MAX_REGIONS;
	n = v->pool.section_count ? v->pool.section_count : 1;
	v->free = calloc(n, sizeof(*v->free));
	v->sec = calloc(n, sizeof(*v->sec));
	if (!v->free || !v->sec) {
		fmd_view_free(v);
		return -ENOMEM;
	}
	/* Sections missing from the dump are nobody's to give or take. */
	for (i = 0; i < n; i++) {
		v->sec[i].pool = pool;
		v->sec[i].id = i;
		v->sec[i].owner = DRACK_SECTION_META;
		v->sec[i].page_order = -1;
	}
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
	free(v->sec);
	v->free = NULL;
	v->sec = NULL;
	v->nfree = 0;
}
