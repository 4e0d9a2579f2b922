// SPDX-License-Identifier: GPL-2.0-only
/*
 * A local host's Sections: asking the fabric manager for more when a
 * Buffer class runs low, taking its grants, giving revoked ones back.
 */
#include "device.h"
#include "trace.h"

/* Mark classes short of Buffers (or half lent) as requested; the work asks. */
void drack_dev_request_sections(struct drack_dev *dd)
{
	struct drack_alloc *a = &dd->alloc;
	unsigned long flags;
	bool ask = false;
	u32 c;

	/* Every poll calls this: mostly nothing to ask, so look first. */
	for (c = 0; c < DRACK_NR_CLASSES; c++)
		if (!READ_ONCE(a->cls[c].requested) &&
		    drack_alloc_wants_section(a, c))
			break;
	if (c == DRACK_NR_CLASSES)
		return;
	spin_lock_irqsave(&a->lock, flags);
	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		if (a->cls[c].requested || !drack_alloc_wants_section(a, c))
			continue;
		WRITE_ONCE(a->cls[c].requested, true);
		a->cls[c].requested_at = jiffies;
		a->cls[c].asked_at = jiffies;
		ask = true;
	}
	spin_unlock_irqrestore(&a->lock, flags);
	if (ask && !dd->leaving)
		schedule_work(&dd->request_work);
}

/*
 * Tell the peers how many Sections of each class we lend Buffers from: a
 * peer holds at most half of them by reference (rxref.c). At each grant
 * and revoke, and every tick.
 */
void drack_dev_publish_sections(struct drack_dev *dd)
{
	struct drack_host_entry *e = drack_dev_entry(dd);
	struct drack_class_counters cc;
	u32 c;

	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		drack_alloc_counters(&dd->alloc, c, &cc);
		WRITE_ONCE(e->lend_sections[c],
			   cpu_to_le16(min_t(u32, cc.sections - cc.draining,
					     U16_MAX)));
	}
}

static void drack_dev_request_work(struct work_struct *work)
{
	struct drack_dev *dd = container_of(work, struct drack_dev,
					    request_work);
	struct drack_host_entry *e = drack_dev_entry(dd);
	bool wanted[DRACK_NR_CLASSES];
	u32 c;

	if (!drack_dev_active(dd))
		return;
	/* Under the lock: a grant clearing the request meanwhile wins. */
	spin_lock_irq(&dd->alloc.lock);
	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		wanted[c] = dd->alloc.cls[c].requested;
		WRITE_ONCE(e->sections_wanted[c], cpu_to_le32(wanted[c]));
	}
	spin_unlock_irq(&dd->alloc.lock);

	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		if (!wanted[c])
			continue;
		drack_stat_ctl_inc(&dd->stats, DRACK_S_SECTION_REQUESTS);
		drack_pool_notify_section_request(dd->pool, dd->host, c, 1);
	}
}

static void drack_dev_grant_work(struct work_struct *work)
{
	struct drack_dev *dd = container_of(work, struct drack_dev, grant_work);
	struct drack_grant g;
	u32 section, buf_class;
	int i, n, got = 0;

	if (!drack_dev_active(dd))
		return;
	n = drack_ring_avail(&dd->grant_in);
	if (n < 0) {
		drack_stat_ctl_inc(&dd->stats, DRACK_S_GRANT_BAD);
		return;
	}
	for (i = 0; i < n; i++) {
		memcpy(&g, drack_ring_peek(&dd->grant_in, i), sizeof(g));
		section = le32_to_cpu(g.section);
		if (drack_alloc_grant(&dd->alloc, section,
				      le32_to_cpu(g.generation), &buf_class)) {
			drack_stat_ctl_inc(&dd->stats, DRACK_S_GRANT_BAD);
			continue;
		}
		/* Unless a new request came since (request work, locked). */
		spin_lock_irq(&dd->alloc.lock);
		if (!dd->alloc.cls[buf_class].requested)
			WRITE_ONCE(drack_dev_entry(dd)->sections_wanted[buf_class],
				   0);
		spin_unlock_irq(&dd->alloc.lock);
		/* Before the counter: who sees the grant counted sees it traced. */
		trace_drack_section_grant(dd->pool->id, section, dd->host,
					  buf_class);
		drack_stat_ctl_inc(&dd->stats, DRACK_S_GRANTS);
		got++;
	}
	if (n)
		drack_ring_consume(&dd->grant_in, n);
	if (!got)
		return;
	drack_dev_publish_sections(dd);
	drack_dev_update_carrier(dd);
	if (netif_running(dd->ndev))
		drack_dev_schedule_napi(dd);	/* wakes the queue */
	drack_dev_request_sections(dd);
}

/* Does the FM want one of our Sections back, or is one on its way? */
bool drack_dev_revoke_pending(struct drack_dev *dd)
{
	struct drack_pool *pool = dd->pool;
	u32 s;

	if (drack_alloc_draining(&dd->alloc))
		return true;
	for (s = pool->geo.meta_sections; s < pool->geo.section_count; s++)
		if (drack_section_owner(pool, s) == dd->host &&
		    READ_ONCE(drack_section_entry(pool, s)->flags) &
		    DRACK_SECTION_F_REVOKE)
			return true;
	return false;
}

/* Give back revoked Sections whose Buffers are all home. */
static void drack_dev_revoke_work(struct work_struct *work)
{
	struct drack_dev *dd = container_of(work, struct drack_dev,
					    revoke_work);
	struct drack_pool *pool = dd->pool;
	struct drack_section_entry *se;
	u32 s, buf_class;
	bool mine;

	for (s = pool->geo.meta_sections; s < pool->geo.section_count; s++) {
		if (!drack_dev_active(dd) || READ_ONCE(dd->leaving))
			return;
		if (drack_section_owner(pool, s) != dd->host)
			continue;
		se = drack_section_entry(pool, s);
		if (READ_ONCE(se->flags) & DRACK_SECTION_F_REVOKE)
			drack_alloc_drain_section(&dd->alloc, s);
		if (!drack_alloc_take_drained(&dd->alloc, s))
			continue;

		mutex_lock(&pool->lock);
		mine = drack_section_owner(pool, s) == dd->host;
		buf_class = READ_ONCE(se->buf_class);
		if (mine) {
			se->generation = cpu_to_le32(le32_to_cpu(se->generation) + 1);
			se->flags = 0;
			smp_wmb(); /* a new owner sees a clean entry */
			WRITE_ONCE(se->owner, cpu_to_le16(DRACK_SECTION_FREE));
		}
		mutex_unlock(&pool->lock);
		if (!mine)
			continue;
		drack_stat_ctl_inc(&dd->stats, DRACK_S_REVOKES);
		trace_drack_section_free(pool->id, s, dd->host, buf_class,
					 DRACK_TRACE_REVOKED);
		drack_pool_notify_section(pool, s, DRACK_SECTION_FREE, buf_class);
	}
	drack_dev_publish_sections(dd);
	drack_dev_request_sections(dd);
}

void drack_sections_init(struct drack_dev *dd)
{
	INIT_WORK(&dd->request_work, drack_dev_request_work);
	INIT_WORK(&dd->grant_work, drack_dev_grant_work);
	INIT_WORK(&dd->revoke_work, drack_dev_revoke_work);
}
