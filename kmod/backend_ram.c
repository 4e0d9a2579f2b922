// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ram backend: one pool in this kernel's memory, shared by every drack
 * netdev of this kernel (emulated hosts, one per netns). Doorbells are
 * direct NAPI schedules.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "pool.h"

static unsigned int ram_pool_mb = 64;
module_param(ram_pool_mb, uint, 0444);
MODULE_PARM_DESC(ram_pool_mb, "Size of the ram pool in MB (0: no ram pool)");

unsigned int drack_max_hosts = 8;
module_param_named(max_hosts, drack_max_hosts, uint, 0444);
MODULE_PARM_DESC(max_hosts, "Hosts per pool this kernel formats (2-64)");

static unsigned int ram_regions = 2;
module_param(ram_regions, uint, 0444);
MODULE_PARM_DESC(ram_regions, "Memory devices the ram pool emulates for interleave placement (1-16)");

static struct drack_pool *drack_ram_pool;

static void drack_ram_kick(struct drack_pool *pool, u32 host)
{
	drack_pool_kick_here(pool, host);
}

/*
 * Page by page as PFNs, not with remap_vmalloc_range(): a mapping must
 * take no page references, or it would look like an skb still holding
 * a Buffer received by reference.
 */
static int drack_ram_mmap(struct drack_pool *pool, struct vm_area_struct *vma)
{
	unsigned long npages = vma_pages(vma), i;
	int err;

	/*
	 * A private (copy-on-write) mapping would need the whole range in
	 * one call. Shared ones only; read-only ones have VM_MAYSHARE.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_pgoff > pool->size >> PAGE_SHIFT ||
	    npages > (pool->size >> PAGE_SHIFT) - vma->vm_pgoff)
		return -EINVAL;
	for (i = 0; i < npages; i++) {
		err = remap_pfn_range(vma, vma->vm_start + (i << PAGE_SHIFT),
				      page_to_pfn(pool->pages[vma->vm_pgoff + i]),
				      PAGE_SIZE, vma->vm_page_prot);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Sections for 64 KB Buffers (drack_section_large_pages()) are made of 64
 * KB compound pages, each aligned to its size: a 64 KB Buffer is then one
 * page, which an skb holds by reference as one frag rather than sixteen.
 * The others, and 64 KB for which memory is too fragmented, are single
 * pages: receive by reference takes either.
 */
#define DRACK_RAM_ORDER	DRACK_LARGE_PAGE_ORDER
#define DRACK_RAM_CHUNK	(1UL << DRACK_RAM_ORDER)
static_assert(DRACK_CLASS_SHIFT(DRACK_CLASS_64K) >= PAGE_SHIFT);

static void drack_ram_free_pages(struct page **pages, unsigned long n)
{
	unsigned long i, j;

	/*
	 * A 64 KB stretch at a time: once its compound page is freed, its
	 * tail pages no longer look like tails, and must not be freed again.
	 */
	for (i = 0; i < n; i += DRACK_RAM_CHUNK) {
		if (pages[i] && PageHead(pages[i])) {
			__free_pages(pages[i], DRACK_RAM_ORDER);
			continue;
		}
		for (j = i; j < i + DRACK_RAM_CHUNK; j++)
			if (pages[j])
				__free_page(pages[j]);
	}
	kvfree(pages);
}

static struct page **drack_ram_alloc_pages(unsigned long n, u32 regions)
{
	u32 sections = n >> (DRACK_SECTION_SHIFT - PAGE_SHIFT);
	gfp_t gfp = GFP_KERNEL | __GFP_ZERO;
	unsigned long i, j, single = 0;
	struct page **pages, *page;
	bool large;

	pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	for (i = 0; i < n; i += DRACK_RAM_CHUNK) {
		page = NULL;
		large = drack_section_large_pages(sections, regions,
						  i >> (DRACK_SECTION_SHIFT - PAGE_SHIFT));
		if (large)
			page = alloc_pages(gfp | __GFP_COMP | __GFP_NOWARN,
					   DRACK_RAM_ORDER);
		single += large && !page;
		for (j = 0; j < DRACK_RAM_CHUNK; j++) {
			pages[i + j] = page ? nth_page(page, j) :
					      alloc_page(gfp);
			if (!pages[i + j]) {
				drack_ram_free_pages(pages, n);
				return NULL;
			}
		}
		cond_resched();
	}
	/* Correct either way, but each such Buffer is 16 frags, not one. */
	if (single)
		pr_warn("drack: ram pool: %lu of its 64 KB compound pages are single pages (memory fragmented)\n",
			single);
	return pages;
}

static void drack_ram_release(struct drack_pool *pool)
{
	vunmap(pool->base);
	drack_ram_free_pages(pool->pages, pool->size >> PAGE_SHIFT);
	kfree(pool);
}

static const struct drack_backend_ops drack_ram_ops = {
	.name = "ram",
	.kick = drack_ram_kick,
	.mmap = drack_ram_mmap,
	.release = drack_ram_release,
};

int drack_ram_init(void)
{
	u64 size = (u64)ram_pool_mb << 20;
	struct drack_pool *pool;
	void *base = NULL;
	int err;

	if (!ram_pool_mb)
		return 0;
	if (size < DRACK_MIN_POOL_SIZE || drack_max_hosts < 2 ||
	    drack_max_hosts > DRACK_MAX_HOSTS || !ram_regions ||
	    ram_regions > DRACK_MAX_REGIONS) {
		pr_err("drack: ram_pool_mb must be >= %u, max_hosts 2..%u and ram_regions 1..%u\n",
		       DRACK_MIN_POOL_SIZE >> 20, DRACK_MAX_HOSTS,
		       DRACK_MAX_REGIONS);
		return -EINVAL;
	}
	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	pool->pages = drack_ram_alloc_pages(size >> PAGE_SHIFT, ram_regions);
	base = pool->pages ? vmap(pool->pages, size >> PAGE_SHIFT, VM_MAP,
				  PAGE_KERNEL) : NULL;
	if (!base) {
		err = -ENOMEM;
		goto fail;
	}
	err = drack_pool_format(base, size, 0, drack_max_hosts, ram_regions);
	if (err) {
		pr_err("drack: %u hosts and %u regions do not fit a %u MB pool\n",
		       drack_max_hosts, ram_regions, ram_pool_mb);
		goto fail;
	}
	err = drack_pool_register(pool, base, size, &drack_ram_ops);
	if (err)
		goto fail;
	drack_ram_pool = pool;
	return 0;
fail:
	if (base)
		vunmap(base);
	if (pool->pages)
		drack_ram_free_pages(pool->pages, size >> PAGE_SHIFT);
	kfree(pool);
	return err;
}

void drack_ram_exit(void)
{
	struct drack_pool *pool = drack_ram_pool;
	u32 s, owner, leaked = 0;

	if (!pool)
		return;
	drack_pool_unregister(pool);
	/* Every host of a ram pool lived in this kernel and has left. */
	for (s = pool->geo.meta_sections; s < pool->geo.section_count; s++) {
		owner = drack_section_owner(pool, s);
		leaked += owner != DRACK_SECTION_FREE;
	}
	if (leaked)
		pr_err("drack: leak: pool %u: %u Sections still owned at unload\n",
		       pool->id, leaked);
	pool->ops->release(pool);
	drack_ram_pool = NULL;
}
