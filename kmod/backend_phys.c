// SPDX-License-Identifier: GPL-2.0-only
/*
 * The phys backend: a pool in a physical address range other kernels map
 * too, such as a CXL region exposed as devdax or a memmap= reservation.
 * There is no doorbell between hosts: the rings are polled.
 */
#include <linux/io.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "pool.h"

#define DRACK_ATTACH_RETRY	(HZ / 5)

static char *phys_pool;
module_param(phys_pool, charp, 0444);
MODULE_PARM_DESC(phys_pool, "Shared pool in physical memory, SIZE@ADDR (e.g. 256M@0x1090000000: a CXL region or memmap= range)");

struct drack_phys {
	struct drack_pool pool;
	phys_addr_t start;
	u64 size;
	void *base;
	bool registered;
	bool warned_blank;
	struct delayed_work attach;
	struct drack_poller poller;
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
	memunmap(ph->base);
	kfree(ph);
	drack_phys = NULL;
}
