// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ivshmem backend: a pool shared by QEMU VMs through the ivshmem PCI
 * device (1af4:1110), whose BAR2 is the pool. With ivshmem-doorbell the
 * ref_queue doorbells are MSI-X interrupts between VMs (our doorbell id
 * is the IVPosition the server gave us); with ivshmem-plain, an adaptive
 * timer polls the rings. BAR2 gets struct pages (ZONE_DEVICE) so that
 * frames are received by reference, as from the ram pool.
 */
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include "pool.h"

#define IVSHMEM_REG_IV_POSITION	0x08
#define IVSHMEM_REG_DOORBELL	0x0c
#define IVSHMEM_BAR_REGS	0
#define IVSHMEM_BAR_SHMEM	2

#define DRACK_ATTACH_RETRY	(HZ / 5)

static bool ivshmem = true;
module_param(ivshmem, bool, 0444);
MODULE_PARM_DESC(ivshmem, "Drive QEMU ivshmem devices (1af4:1110) as shared pools");

static bool ivshmem_pages = true;
module_param(ivshmem_pages, bool, 0444);
MODULE_PARM_DESC(ivshmem_pages, "Give the pool struct pages (ZONE_DEVICE), so frames are received by reference; off: copied");

struct drack_ivshmem {
	struct pci_dev *pdev;
	struct drack_pool *pool;
	void __iomem *regs;
	void *base;
	u64 size;
	/*
	 * ZONE_DEVICE pages of BAR2, single then compound; none (and no
	 * pool->pages): mapped with devm_memremap(), frames copied.
	 */
	struct dev_pagemap *pgmap[2];
	u32 ivpos;
	bool doorbell;			/* MSI-X vectors: ivshmem-doorbell */
	bool registered;
	bool warned_blank;
	struct delayed_work attach;
	struct drack_poller poller;
	char name[32];
};

static struct drack_ivshmem *drack_ivs(struct drack_pool *pool)
{
	return pool->backend_priv;
}

static void drack_ivshmem_kick(struct drack_pool *pool, u32 host)
{
	struct drack_ivshmem *ivs = drack_ivs(pool);
	u16 notify;

	if (drack_pool_kick_here(pool, host) || !ivs->doorbell ||
	    host >= pool->geo.max_hosts)
		return;
	/* Written by the peer: any value only rings some VM's doorbell. */
	notify = le16_to_cpu(READ_ONCE(drack_host_entry(pool, host)->notify));
	writel((u32)notify << 16, ivs->regs + IVSHMEM_REG_DOORBELL);
}

static int drack_ivshmem_mmap(struct drack_pool *pool,
			      struct vm_area_struct *vma)
{
	struct drack_ivshmem *ivs = drack_ivs(pool);

	return vm_iomap_memory(vma, pci_resource_start(ivs->pdev,
						       IVSHMEM_BAR_SHMEM),
			       ivs->size);
}

static void drack_ivshmem_release(struct drack_pool *pool)
{
}

static u16 drack_ivshmem_notify_id(struct drack_pool *pool)
{
	return drack_ivs(pool)->ivpos;
}

static const struct drack_backend_ops drack_ivshmem_ops = {
	.name = "ivshmem",
	.kick = drack_ivshmem_kick,
	.mmap = drack_ivshmem_mmap,
	.release = drack_ivshmem_release,
	.notify_id = drack_ivshmem_notify_id,
};

static irqreturn_t drack_ivshmem_irq(int irq, void *data)
{
	struct drack_ivshmem *ivs = data;

	if (READ_ONCE(ivs->registered))
		drack_pool_kick_local(ivs->pool, false);
	return IRQ_HANDLED;
}

/* Until someone formats the pool, look again every 200 ms. */
static void drack_ivshmem_attach(struct work_struct *work)
{
	struct drack_ivshmem *ivs = container_of(to_delayed_work(work),
						 struct drack_ivshmem, attach);
	int err;

	err = drack_pool_attach(ivs->pool, ivs->base, ivs->size,
				&drack_ivshmem_ops, ivs->name);
	if (err == -EAGAIN) {
		if (!ivs->warned_blank)
			dev_info(&ivs->pdev->dev, "pool not formatted yet: waiting for the fabric manager's host (pool_format=1)\n");
		ivs->warned_blank = true;
		schedule_delayed_work(&ivs->attach, DRACK_ATTACH_RETRY);
		return;
	}
	if (err)
		return;
	WRITE_ONCE(ivs->registered, true);
	dev_info(&ivs->pdev->dev, "pool %u: %llu MB, %s, doorbell id %u\n",
		 ivs->pool->id, ivs->size >> 20,
		 ivs->doorbell ? "MSI-X doorbells" : "polling", ivs->ivpos);
	if (!ivs->doorbell)
		drack_poller_start(&ivs->poller);
}

#ifdef CONFIG_ZONE_DEVICE	/* memremap_pages() has no stub without it */
/* Both kinds meet on a Section: whole subsections, whole 64 KB pages. */
static_assert(DRACK_SECTION_SIZE % SUBSECTION_SIZE == 0);
static_assert(DRACK_SECTION_SIZE % (PAGE_SIZE << DRACK_LARGE_PAGE_ORDER) == 0);

/* Undo drack_ivshmem_map_range() for every mapping made. */
static void drack_ivshmem_unmap(struct drack_ivshmem *ivs)
{
	int k;

	for (k = 0; k < ARRAY_SIZE(ivs->pgmap); k++) {
		if (!ivs->pgmap[k])
			continue;
		memunmap_pages(ivs->pgmap[k]);
		kfree(ivs->pgmap[k]);
		ivs->pgmap[k] = NULL;
	}
}

/*
 * Where BAR2's 64 KB compound pages begin: its upper half, as
 * drack_section_large_pages() puts them for a pool of one Region (how
 * a pool is formatted at attach). The fabric manager reads each
 * Section's kind over netlink (page-order), so a reformat with more
 * Regions still places 64 KB Buffers on compound pages.
 */
static u64 drack_ivshmem_large_start(u64 size)
{
	u32 n = size >> DRACK_SECTION_SHIFT, s;

	for (s = 0; s < n; s++)
		if (drack_section_large_pages(n, 1, s))
			break;
	return (u64)s << DRACK_SECTION_SHIFT;
}

static struct dev_pagemap *drack_ivshmem_map_range(struct drack_ivshmem *ivs,
						   u64 start, u64 len,
						   unsigned int order)
{
	struct dev_pagemap *pgmap;
	void *va;

	pgmap = kzalloc(sizeof(*pgmap), GFP_KERNEL);
	if (!pgmap)
		return ERR_PTR(-ENOMEM);
	pgmap->type = MEMORY_DEVICE_GENERIC;
	pgmap->range.start = start;
	pgmap->range.end = start + len - 1;
	pgmap->nr_range = 1;
	pgmap->vmemmap_shift = order;
	va = memremap_pages(pgmap, dev_to_node(&ivs->pdev->dev));
	if (IS_ERR(va)) {
		kfree(pgmap);
		return ERR_CAST(va);
	}
	return pgmap;
}

/* Mapped by an earlier probe, of a kind we map: one of ours. */
static bool drack_ivshmem_ours(const struct dev_pagemap *pgmap, u64 at,
			       u64 end)
{
	return pgmap->type == MEMORY_DEVICE_GENERIC && pgmap->nr_range == 1 &&
	       pgmap->range.start == at && pgmap->range.end < end &&
	       pgmap->vmemmap_shift <= DRACK_LARGE_PAGE_ORDER;
}

/*
 * The mappings an earlier probe kept while sockets held pages: take
 * them over if they tile BAR2 exactly. -ENOENT: BAR2 has none.
 */
static int drack_ivshmem_take_over(struct drack_ivshmem *ivs, u64 start)
{
	u64 at = start, end = start + ivs->size;
	struct dev_pagemap *pgmap;
	int n = 0;
	bool ours;

	while (at < end) {
		pgmap = get_dev_pagemap(PHYS_PFN(at), NULL);
		if (!pgmap)
			break;
		ours = n < ARRAY_SIZE(ivs->pgmap) &&
		       drack_ivshmem_ours(pgmap, at, end);
		put_dev_pagemap(pgmap);
		if (!ours)
			break;
		ivs->pgmap[n++] = pgmap;
		at = pgmap->range.end + 1;
	}
	if (at == end)
		return 0;
	memset(ivs->pgmap, 0, sizeof(ivs->pgmap));
	if (at != start || pgmap)
		return -EEXIST;
	/* Nothing at the start; anything further on is not ours to map over. */
	pgmap = get_dev_pagemap(PHYS_PFN(end - 1), NULL);
	put_dev_pagemap(pgmap);
	return pgmap ? -EEXIST : -ENOENT;
}

/*
 * BAR2 with struct pages (MEMORY_DEVICE_GENERIC, as device DAX does): the
 * stack can hold pool pages in skbs, so frames are received by reference.
 * Two mappings: single pages below drack_ivshmem_large_start(), 64 KB
 * compound pages above (one vmemmap_shift per mapping). Cacheable (WB),
 * in the direct map. Not devm: it must outlive the device if sockets
 * still hold pages (drack_ivshmem_unmap_pages()).
 */
static void drack_ivshmem_map_pages(struct drack_ivshmem *ivs)
{
	resource_size_t start = pci_resource_start(ivs->pdev, IVSHMEM_BAR_SHMEM);
	unsigned long n = ivs->size >> PAGE_SHIFT, i;
	u64 mid = drack_ivshmem_large_start(ivs->size);
	struct dev_pagemap *pgmap;
	struct page **pages;
	int err;

	if (!ivshmem_pages || !IS_ALIGNED(start | ivs->size, SZ_2M))
		return;
	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return;
	err = drack_ivshmem_take_over(ivs, start);
	if (err == -EEXIST) {
		dev_info(&ivs->pdev->dev, "BAR2 already has struct pages of another kind: frames are copied\n");
		goto fail;
	}
	if (!err)
		goto mapped;
	pgmap = drack_ivshmem_map_range(ivs, start, mid, 0);
	if (IS_ERR(pgmap))
		goto fail_map;
	ivs->pgmap[0] = pgmap;
	if (mid < ivs->size) {
		pgmap = drack_ivshmem_map_range(ivs, start + mid,
						ivs->size - mid,
						DRACK_LARGE_PAGE_ORDER);
		if (IS_ERR(pgmap)) {
			drack_ivshmem_unmap(ivs);
			goto fail_map;
		}
		ivs->pgmap[1] = pgmap;
	}
mapped:
	for (i = 0; i < n; i++)
		pages[i] = pfn_to_page(PHYS_PFN(start) + i);
	/* Receive by reference takes one reference for an idle page. */
	if (err && !drack_pool_pages_wait(pages, n, 0)) {
		dev_info(&ivs->pdev->dev, "BAR2's struct pages do not start with one reference: frames are copied\n");
		drack_ivshmem_unmap(ivs);
		goto fail;
	}
	ivs->base = __va(start);
	ivs->pool->pages = pages;
	return;
fail_map:
	dev_info(&ivs->pdev->dev, "no struct pages for the pool (%ld): frames are copied\n",
		 PTR_ERR(pgmap));
fail:
	kvfree(pages);
}

/*
 * Every host has left; sockets may still hold pool pages they received
 * by reference. Wait for them a while; past that, keep the mappings and
 * their struct pages for good rather than free what an skb points to.
 */
static void drack_ivshmem_unmap_pages(struct drack_ivshmem *ivs)
{
	struct page **pages = ivs->pool->pages;

	if (!pages)
		return;
	if (drack_pool_pages_wait(pages, ivs->size >> PAGE_SHIFT,
				  DRACK_POOL_DRAIN_MS))
		drack_ivshmem_unmap(ivs);
	else	/* the next probe of BAR2 takes the mappings over */
		dev_warn(&ivs->pdev->dev, "pool pages still held by sockets after %d ms: their mapping stays\n",
			 DRACK_POOL_DRAIN_MS);
	memset(ivs->pgmap, 0, sizeof(ivs->pgmap));
	ivs->pool->pages = NULL;
	kvfree(pages);
}
#else
/* Without ZONE_DEVICE the pool has no struct pages: frames are copied. */
static void drack_ivshmem_map_pages(struct drack_ivshmem *ivs)
{
}

static void drack_ivshmem_unmap_pages(struct drack_ivshmem *ivs)
{
}
#endif

static int drack_ivshmem_probe(struct pci_dev *pdev,
			       const struct pci_device_id *id)
{
	struct drack_ivshmem *ivs;
	int err;

	if (!ivshmem)
		return -ENODEV;
	ivs = devm_kzalloc(&pdev->dev, sizeof(*ivs), GFP_KERNEL);
	if (!ivs)
		return -ENOMEM;
	ivs->pool = devm_kzalloc(&pdev->dev, sizeof(*ivs->pool), GFP_KERNEL);
	if (!ivs->pool)
		return -ENOMEM;
	ivs->pdev = pdev;
	ivs->pool->backend_priv = ivs;
	snprintf(ivs->name, sizeof(ivs->name), "ivshmem %s", pci_name(pdev));
	INIT_DELAYED_WORK(&ivs->attach, drack_ivshmem_attach);
	drack_poller_init(&ivs->poller, ivs->pool);

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	err = pcim_iomap_regions(pdev, BIT(IVSHMEM_BAR_REGS), "drack");
	if (err)
		return err;
	ivs->regs = pcim_iomap_table(pdev)[IVSHMEM_BAR_REGS];
	ivs->size = pci_resource_len(pdev, IVSHMEM_BAR_SHMEM);
	if (ivs->size < DRACK_MIN_POOL_SIZE) {
		dev_err(&pdev->dev, "BAR2 of %llu bytes is too small for a pool\n",
			ivs->size);
		return -ENOSPC;
	}
	if (!devm_request_mem_region(&pdev->dev,
				     pci_resource_start(pdev, IVSHMEM_BAR_SHMEM),
				     ivs->size, "drack pool"))
		return -EBUSY;
	drack_ivshmem_map_pages(ivs);
	if (!ivs->pool->pages) {
		/* Plain shared RAM on the QEMU side: cacheable, like any pool. */
		ivs->base = devm_memremap(&pdev->dev,
					  pci_resource_start(pdev, IVSHMEM_BAR_SHMEM),
					  ivs->size, MEMREMAP_WB);
		if (IS_ERR(ivs->base))
			return PTR_ERR(ivs->base);
	}

	if (pdev->msix_cap &&
	    pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSIX) == 1) {
		err = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, 0),
				       drack_ivshmem_irq, 0, "drack-ivshmem",
				       ivs);
		if (err) {
			pci_free_irq_vectors(pdev);
			drack_ivshmem_unmap_pages(ivs);
			return err;
		}
		/*
		 * An MSI-X message is a memory write by the device: QEMU
		 * drops it unless Bus Master is enabled.
		 */
		pci_set_master(pdev);
		ivs->doorbell = true;
		ivs->ivpos = readl(ivs->regs + IVSHMEM_REG_IV_POSITION);
	}
	pci_set_drvdata(pdev, ivs);
	schedule_delayed_work(&ivs->attach, 0);
	return 0;
}

static void drack_ivshmem_remove(struct pci_dev *pdev)
{
	struct drack_ivshmem *ivs = pci_get_drvdata(pdev);

	cancel_delayed_work_sync(&ivs->attach);
	if (ivs->registered) {
		/* Hosts on this pool go first, as at module unload. */
		drack_pool_detach_devices(ivs->pool);
		drack_pool_unregister(ivs->pool);
		WRITE_ONCE(ivs->registered, false);
	}
	drack_poller_stop(&ivs->poller);
	drack_ivshmem_unmap_pages(ivs);
	if (ivs->doorbell) {
		devm_free_irq(&pdev->dev, pci_irq_vector(pdev, 0), ivs);
		pci_free_irq_vectors(pdev);
		pci_clear_master(pdev);
	}
}

static const struct pci_device_id drack_ivshmem_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },
	{ }
};
MODULE_DEVICE_TABLE(pci, drack_ivshmem_ids);

static struct pci_driver drack_ivshmem_driver = {
	.name = "drack-ivshmem",
	.id_table = drack_ivshmem_ids,
	.probe = drack_ivshmem_probe,
	.remove = drack_ivshmem_remove,
};

int drack_ivshmem_init(void)
{
	return pci_register_driver(&drack_ivshmem_driver);
}

void drack_ivshmem_exit(void)
{
	pci_unregister_driver(&drack_ivshmem_driver);
}
