// SPDX-License-Identifier: GPL-2.0-only
/*
 * The phys backend: a pool in a physical address range other kernels map
 * too, such as a CXL region exposed as devdax or a memmap= reservation.
 * There is no doorbell between hosts: the rings are polled. A devdax
 * range has struct pages: frames are received by reference from them.
 */
#include <linux/io.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "pool.h"

#define DRACK_ATTACH_RETRY	(HZ / 5)

static char *phys_pool;
module_param(phys_pool, charp, 0444);
MODULE_PARM_DESC(phys_pool, "Shared pool in physical memory, SIZE@ADDR (e.g. 256M@0x1090000000: a CXL region or memmap= range)");

static bool phys_pages = true;
module_param(phys_pages, bool, 0444);
MODULE_PARM_DESC(phys_pages, "Receive by reference from the struct pages of a devdax phys_pool; off: copied");

/* dev_pagemaps (devdax ranges) a pool may span */
#define DRACK_PHYS_MAX_PGMAPS	8

struct drack_phys {
	struct drack_pool pool;
	phys_addr_t start;
	u64 size;
	void *base;
	bool registered;
	bool warned_blank;
	struct delayed_work attach;
	struct drack_poller poller;
	/* Held while pool->pages is set: the devdax device stays. */
	struct dev_pagemap *pgmap[DRACK_PHYS_MAX_PGMAPS];
};

static struct drack_phys *drack_phys;

static void drack_phys_kick(struct drack_pool *pool, u32 host)
{
	drack_pool_kick_here(pool, host);
	/* Other kernels poll. */
}

static int drack_phys_mmap(struct drack_pool *pool, struct vm_area_struct *vma)
{
	struct drack_phys *ph = container_of(pool, struct drack_phys, pool);

	return vm_iomap_memory(vma, ph->start, ph->size);
}

static void drack_phys_release(struct drack_pool *pool)
{
}

static const struct drack_backend_ops drack_phys_ops = {
	.name = "phys",
	.kick = drack_phys_kick,
	.mmap = drack_phys_mmap,
	.release = drack_phys_release,
};

static void drack_phys_attach(struct work_struct *work)
{
	struct drack_phys *ph = container_of(to_delayed_work(work),
					     struct drack_phys, attach);
	int err;

	err = drack_pool_attach(&ph->pool, ph->base, ph->size, &drack_phys_ops,
				"phys_pool");
	if (err == -EAGAIN) {
		if (!ph->warned_blank)
			pr_info("drack: phys_pool: not formatted yet: waiting for the fabric manager's host (pool_format=1)\n");
		ph->warned_blank = true;
		schedule_delayed_work(&ph->attach, DRACK_ATTACH_RETRY);
		return;
	}
	if (err)
		return;
	WRITE_ONCE(ph->registered, true);
	pr_info("drack: phys_pool: pool %u at %pa, %llu MB, polling\n",
		ph->pool.id, &ph->start, ph->size >> 20);
	drack_poller_start(&ph->poller);
}

static void drack_phys_put_pgmaps(struct drack_phys *ph)
{
	int k;

	for (k = 0; k < ARRAY_SIZE(ph->pgmap) && ph->pgmap[k]; k++)
		put_dev_pagemap(ph->pgmap[k]);
	memset(ph->pgmap, 0, sizeof(ph->pgmap));
}

/*
 * The devdax device's struct pages (ZONE_DEVICE, MEMORY_DEVICE_GENERIC,
 * as ivshmem gets its own) with a reference on their dev_pagemap, which
 * keeps the device bound while they are used. Pages of a devdax aligned
 * to 2 MB are one compound page per Section, which would hand a
 * Section's Buffers back only all together: copied, and said so (create
 * the namespace with --align 4K). So are pages something else holds (the
 * device mapped and pinned): receive by reference takes a page with one
 * reference for one no skb holds. Without ZONE_DEVICE there are no
 * device pages (get_dev_pagemap() returns NULL): copied.
 */
static void drack_phys_map_pages(struct drack_phys *ph)
{
	unsigned long pfn = PHYS_PFN(ph->start), n = ph->size >> PAGE_SHIFT, i;
	struct dev_pagemap *pgmap;
	struct page **pages;
	unsigned int order;
	int k = 0;

	if (!phys_pages || !pfn_valid(pfn))
		return;
	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return;
	for (i = 0; i < n; i++) {
		/* A dev_pagemap spans whole 2 MB subsections: look once each. */
		if (!i || !((pfn + i) & ((SZ_2M >> PAGE_SHIFT) - 1))) {
			pgmap = get_dev_pagemap(pfn + i, NULL);
			if (!pgmap || pgmap->type != MEMORY_DEVICE_GENERIC) {
				pr_info("drack: phys_pool: no device DAX pages at 0x%llx: frames are copied\n",
					(u64)PFN_PHYS(pfn + i));
				goto fail_put;
			}
			if (k && pgmap == ph->pgmap[k - 1]) {
				put_dev_pagemap(pgmap);
			} else if (k == ARRAY_SIZE(ph->pgmap)) {
				pr_info("drack: phys_pool: more than %d device DAX ranges: frames are copied\n",
					k);
				goto fail_put;
			} else {
				ph->pgmap[k++] = pgmap;
			}
		}
		pages[i] = pfn_to_page(pfn + i);
		order = compound_order(compound_head(pages[i]));
		if (order > DRACK_LARGE_PAGE_ORDER) {
			pr_info("drack: phys_pool: device DAX pages of %lu KB would hand Buffers back a Section at a time: frames are copied (create the namespace with --align 4K)\n",
				(PAGE_SIZE << order) >> 10);
			goto fail;
		}
	}
	if (!drack_pool_pages_wait(pages, n, 0)) {
		pr_info("drack: phys_pool: device DAX pages in use by another user: frames are copied\n");
		goto fail;
	}
	ph->pool.pages = pages;
	return;
fail_put:
	if (pgmap)
		put_dev_pagemap(pgmap);
fail:
	drack_phys_put_pgmaps(ph);
	kvfree(pages);
}

/*
 * Sockets may still hold pool pages they received by reference. Wait
 * for them a while; past that, keep the dev_pagemap references for good
 * (the devdax device cannot be unbound) rather than let its struct
 * pages go while an skb points to them.
 */
static void drack_phys_unmap_pages(struct drack_phys *ph)
{
	struct page **pages = ph->pool.pages;

	if (!pages)
		return;
	if (drack_pool_pages_wait(pages, ph->size >> PAGE_SHIFT,
				  DRACK_POOL_DRAIN_MS))
		drack_phys_put_pgmaps(ph);
	else
		pr_warn("drack: phys_pool: pool pages at %pa still held by sockets after %d ms: their device DAX device stays referenced and cannot be unbound\n",
			&ph->start, DRACK_POOL_DRAIN_MS);
	ph->pool.pages = NULL;
	kvfree(pages);
}

int drack_phys_init(void)
{
	struct drack_phys *ph;
	char *at;
	u64 size;

	if (!phys_pool || !*phys_pool)
		return 0;
	size = memparse(phys_pool, &at);
	if (*at != '@' || !size) {
		pr_err("drack: phys_pool=%s: expected SIZE@ADDR\n", phys_pool);
		return -EINVAL;
	}
	ph = kzalloc(sizeof(*ph), GFP_KERNEL);
	if (!ph)
		return -ENOMEM;
	ph->start = memparse(at + 1, &at);
	ph->size = size & ~((u64)DRACK_SECTION_SIZE - 1);
	if (*at || ph->size < DRACK_MIN_POOL_SIZE ||
	    !PAGE_ALIGNED(ph->start)) {
		pr_err("drack: phys_pool=%s: need a page-aligned address and at least %u MB\n",
		       phys_pool, DRACK_MIN_POOL_SIZE >> 20);
		kfree(ph);
		return -EINVAL;
	}
	/* Shared memory, never this kernel's RAM: memremap refuses that. */
	ph->base = memremap(ph->start, ph->size, MEMREMAP_WB);
	if (!ph->base) {
		pr_err("drack: phys_pool: cannot map %pa (+%llu MB)\n",
		       &ph->start, ph->size >> 20);
		kfree(ph);
		return -ENOMEM;
	}
	drack_phys_map_pages(ph);
	INIT_DELAYED_WORK(&ph->attach, drack_phys_attach);
	drack_poller_init(&ph->poller, &ph->pool);
	drack_phys = ph;
	schedule_delayed_work(&ph->attach, 0);
	return 0;
}

void drack_phys_exit(void)
{
	struct drack_phys *ph = drack_phys;

	if (!ph)
		return;
	cancel_delayed_work_sync(&ph->attach);
	drack_poller_stop(&ph->poller);
	if (ph->registered)
		drack_pool_unregister(&ph->pool);
	drack_phys_unmap_pages(ph);
	memunmap(ph->base);
	kfree(ph);
	drack_phys = NULL;
}
