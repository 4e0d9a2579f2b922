// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pool core: the pool list, formatting and registering pools (the format
 * itself is in format.c, the FM commands in pool_fm.c), events and the
 * poller that drives every local host.
 */
#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/rtnetlink.h>
#include "pool.h"
#include "ring.h"
#include "trace.h"

/* Every pool of this kernel; the lock also orders link creation. */
LIST_HEAD(drack_pools);
DEFINE_MUTEX(drack_pools_lock);

unsigned int drack_max_nics = 8;
module_param_named(max_nics, drack_max_nics, uint, 0444);
MODULE_PARM_DESC(max_nics, "NIC table entries of pools this kernel formats (0-16)");

static unsigned int drack_ref_queues = 4;
module_param_named(ref_queues, drack_ref_queues, uint, 0444);
MODULE_PARM_DESC(ref_queues,
		 "ref_queues per pair of hosts in pools this kernel formats: 1, 2, 4 or 8; a host's channels (ethtool -L) are at most this (default 4)");

int drack_pool_format(void *base, u64 size, u32 id, u32 max_hosts,
		      u32 regions)
{
	if (!is_power_of_2(drack_ref_queues) ||
	    drack_ref_queues > DRACK_MAX_QUEUES) {
		pr_err("drack: ref_queues=%u: must be 1, 2, 4 or 8\n",
		       drack_ref_queues);
		return -EINVAL;
	}
	return drack_format_pool(base, size, id, max_hosts, regions,
				 drack_ref_queues, drack_max_nics);
}

struct drack_pool *drack_pool_find(u32 id)
{
	struct drack_pool *pool;

	lockdep_assert_held(&drack_pools_lock);
	list_for_each_entry(pool, &drack_pools, node)
		if (pool->id == id)
			return pool;
	return NULL;
}

static const struct drack_pool_events *drack_pool_events;

void drack_pool_set_events(const struct drack_pool_events *ev)
{
	WRITE_ONCE(drack_pool_events, ev);
}

void drack_pool_notify_section_request(struct drack_pool *pool, u32 host,
				       u32 buf_class, u32 count)
{
	const struct drack_pool_events *ev = READ_ONCE(drack_pool_events);

	if (ev)
		ev->section_request(pool, host, buf_class, count);
}

void drack_pool_notify_host(struct drack_pool *pool, u32 host, u32 state)
{
	const struct drack_pool_events *ev = READ_ONCE(drack_pool_events);

	if (ev)
		ev->host(pool, host, state);
}

void drack_pool_notify_section(struct drack_pool *pool, u32 section,
			       u32 owner, u32 buf_class)
{
	const struct drack_pool_events *ev = READ_ONCE(drack_pool_events);

	if (ev)
		ev->section(pool, section, owner, buf_class);
}

void drack_pool_notify_nic(struct drack_pool *pool, u32 nic)
{
	const struct drack_pool_events *ev = READ_ONCE(drack_pool_events);

	if (ev)
		ev->nic(pool, nic);
}

void drack_pool_notify_peer(struct drack_pool *pool, u32 host, u32 peer,
			    bool stalled)
{
	const struct drack_pool_events *ev = READ_ONCE(drack_pool_events);

	if (ev)
		ev->peer(pool, host, peer, stalled);
}

/* Tell every host of @pool living in this kernel that a table changed. */
static void drack_pool_tell_local(struct drack_pool *pool, bool nics)
{
	struct drack_pool_client *c;
	u32 h;

	rcu_read_lock();
	for (h = 0; h < pool->geo.max_hosts; h++) {
		c = rcu_dereference(pool->local[h]);
		if (!c)
			continue;
		if (nics)
			c->ops->nics_changed(c);
		else
			c->ops->peers_changed(c);
	}
	rcu_read_unlock();
}

int drack_pool_register(struct drack_pool *pool, void *base, u64 size,
			const struct drack_backend_ops *ops)
{
	int err;
	u32 id;

	err = drack_format_validate(base, size, &pool->geo, &id, &pool->regions);
	if (err) {
		pr_err("drack: pool at %p is not a valid version %u pool (%d)\n",
		       base, DRACK_POOL_VERSION, err);
		return err;
	}
	pool->id = id;
	pool->base = base;
	pool->size = size;
	pool->ops = ops;
	mutex_init(&pool->lock);

	mutex_lock(&drack_pools_lock);
	if (drack_pool_find(id)) {
		err = -EEXIST;
		goto unlock;
	}
	err = drack_chardev_register(pool);
	if (err)
		goto unlock;
	list_add_tail(&pool->node, &drack_pools);
	pr_info("drack: pool %u: %s, %llu MB, %u Sections (%u metadata), %u hosts, %u NICs\n",
		id, ops->name, pool->geo.pool_size >> 20,
		pool->geo.section_count, pool->geo.meta_sections,
		pool->geo.max_hosts, pool->geo.max_nics);
unlock:
	mutex_unlock(&drack_pools_lock);
	return err;
}

void drack_pool_unregister(struct drack_pool *pool)
{
	mutex_lock(&drack_pools_lock);
	list_del(&pool->node);
	mutex_unlock(&drack_pools_lock);
	drack_chardev_unregister(pool);
}

/* Both of the host table's state writers trace what they change. */
bool drack_host_cmpxchg(struct drack_pool *pool, u32 host, u32 old, u32 new)
{
	u32 *state = (__force u32 *)&drack_host_entry(pool, host)->state;
	u32 o = (__force u32)cpu_to_le32(old);

	if (cmpxchg(state, o, (__force u32)cpu_to_le32(new)) != o)
		return false;
	trace_drack_host_state(pool->id, host, old, new);
	return true;
}

void drack_host_set_state(struct drack_pool *pool, u32 host, u32 state)
{
	struct drack_host_entry *e = drack_host_entry(pool, host);
	u32 old = le32_to_cpu(READ_ONCE(e->state));

	WRITE_ONCE(e->state, cpu_to_le32(state));
	if (old != state)
		trace_drack_host_state(pool->id, host, old, state);
}

/* The smallest: a 64 KB stretch that fell back to single pages counts. */
int drack_pool_page_order(struct drack_pool *pool, u32 section)
{
	u64 i = ((u64)section << DRACK_SECTION_SHIFT) >> PAGE_SHIFT, end;
	unsigned int order = UINT_MAX, o;

	if (!pool->pages || section >= pool->geo.section_count)
		return -1;
	end = min_t(u64, i + (DRACK_SECTION_SIZE >> PAGE_SHIFT),
		    pool->size >> PAGE_SHIFT);
	for (; i < end; i += 1UL << o) {
		o = compound_order(compound_head(pool->pages[i]));
		order = min(order, o);
	}
	return order == UINT_MAX ? -1 : order;
}

bool drack_pool_pages_wait(struct page **pages, unsigned long n,
			   unsigned int ms)
{
	unsigned int waited = 0;
	unsigned long i = 0;

	while (i < n) {
		/* A compound page counts references on its head only. */
		if (page_ref_count(compound_head(pages[i])) == 1) {
			i++;
			continue;
		}
		if (waited >= ms)
			return false;
		msleep(100);
		waited += 100;
	}
	return true;
}

u32 drack_pool_host_sections(struct drack_pool *pool, u32 host)
{
	u32 s, n = 0;

	for (s = pool->geo.meta_sections; s < pool->geo.section_count; s++)
		n += drack_section_owner(pool, s) == host;
	return n;
}

u32 drack_pool_free_sections(struct drack_pool *pool)
{
	return drack_pool_host_sections(pool, DRACK_SECTION_FREE);
}

void drack_pool_peers_changed(struct drack_pool *pool)
{
	drack_pool_tell_local(pool, false);
}

void drack_pool_nics_changed(struct drack_pool *pool)
{
	drack_pool_tell_local(pool, true);
}


bool drack_pool_format_blank;
module_param_named(pool_format, drack_pool_format_blank, bool, 0444);
MODULE_PARM_DESC(pool_format, "Format shared pools (ivshmem, phys_pool) found blank, as pool 0 (for the fabric manager's host)");

static bool drack_pool_blank(const void *base, u64 len)
{
	return !memchr_inv(base, 0, min_t(u64, len, DRACK_META_ALIGN));
}

int drack_pool_attach(struct drack_pool *pool, void *base, u64 size,
		      const struct drack_backend_ops *ops, const char *what)
{
	const struct drack_superblock *sb = base;
	int err;

	if (le64_to_cpu(READ_ONCE(sb->magic)) != DRACK_POOL_MAGIC) {
		if (!drack_pool_format_blank || !drack_pool_blank(base, size))
			return -EAGAIN;
		err = drack_pool_format(base, size, 0, drack_max_hosts, 1);
		if (err) {
			pr_err("drack: %s: cannot format a %llu MB pool for %u hosts (%d)\n",
			       what, size >> 20, drack_max_hosts, err);
			return err;
		}
		pr_info("drack: %s: formatted a blank pool\n", what);
	}
	smp_rmb(); /* the magic before the rest of the superblock */
	err = drack_pool_register(pool, base, size, ops);
	if (err == -EEXIST)
		pr_err("drack: %s: pool id %u is taken in this kernel (load with ram_pool_mb=0?)\n",
		       what, le32_to_cpu(sb->pool_id));
	return err;
}

void drack_pool_detach_devices(struct drack_pool *pool)
{
	struct drack_pool_client *c;
	u32 h;

	rtnl_lock();
	for (h = 0; h < pool->geo.max_hosts; h++) {
		c = rtnl_dereference(pool->local[h]);
		if (c)
			c->ops->remove(c);
	}
	rtnl_unlock();
}

bool drack_pool_kick_here(struct drack_pool *pool, u32 host)
{
	struct drack_pool_client *c;

	rcu_read_lock();
	c = rcu_dereference(pool->local[host]);
	if (c)
		c->ops->kick(c);
	rcu_read_unlock();
	return c;
}

bool drack_pool_kick_local(struct drack_pool *pool, bool only_pending)
{
	struct drack_pool_client *c;
	bool busy = false;
	u32 h;

	rcu_read_lock();
	for (h = 0; h < pool->geo.max_hosts; h++) {
		c = rcu_dereference(pool->local[h]);
		if (!c || (only_pending && !c->ops->pending(c)))
			continue;
		c->ops->kick_irq(c);
		busy = true;
	}
	rcu_read_unlock();
	return busy;
}

#define DRACK_POLL_MIN_NS	(50 * NSEC_PER_USEC)
#define DRACK_POLL_MAX_NS	(4 * NSEC_PER_MSEC)

static enum hrtimer_restart drack_poller_fire(struct hrtimer *t)
{
	struct drack_poller *p = container_of(t, struct drack_poller, timer);

	if (drack_pool_kick_local(p->pool, true))
		p->ns = DRACK_POLL_MIN_NS;
	else
		p->ns = min_t(u64, p->ns * 2, DRACK_POLL_MAX_NS);
	hrtimer_forward_now(t, ns_to_ktime(p->ns));
	return HRTIMER_RESTART;
}

void drack_poller_init(struct drack_poller *p, struct drack_pool *pool)
{
	hrtimer_init(&p->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	p->timer.function = drack_poller_fire;
	p->pool = pool;
}

void drack_poller_start(struct drack_poller *p)
{
	p->ns = DRACK_POLL_MIN_NS;
	hrtimer_start(&p->timer, ns_to_ktime(p->ns), HRTIMER_MODE_REL);
}

void drack_poller_stop(struct drack_poller *p)
{
	hrtimer_cancel(&p->timer);
}
