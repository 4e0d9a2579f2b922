// SPDX-License-Identifier: GPL-2.0-only
/*
 * The drack netdev: rtnl_link_ops, joining and leaving a pool, open/stop,
 * carrier from peer presence, Section requests and grants.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <net/rtnetlink.h>
#include "device.h"

#define DRACK_ANY_HOST		U32_MAX
#define DRACK_LEAVE_WAIT_MS	2000
#define DRACK_REQUEST_RETRY	HZ
#define DRACK_NO_SECTIONS_WARN	(2 * HZ)

#define DRACK_FEATURES (NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA | \
			NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_TSO_ECN | \
			NETIF_F_RXCSUM)

static struct drack_host_entry *drack_dev_entry(struct drack_dev *dd)
{
	return drack_host_entry(dd->pool, dd->host);
}

static void drack_dev_set_flags(struct drack_dev *dd, u32 set, u32 clear)
{
	struct drack_host_entry *e = drack_dev_entry(dd);
	u32 flags;

	mutex_lock(&dd->pool->lock);
	/* A fenced host writes nothing in the pool. */
	if (drack_host_state(dd->pool, dd->host) == DRACK_HOST_UP &&
	    !READ_ONCE(dd->fenced)) {
		flags = (le32_to_cpu(e->flags) | set) & ~clear;
		WRITE_ONCE(e->flags, cpu_to_le32(flags));
	}
	mutex_unlock(&dd->pool->lock);
}

int drack_dev_ifindex(struct drack_pool *pool, u32 host)
{
	struct drack_dev *dd;
	int ifindex = 0;

	if (host >= pool->geo.max_hosts)
		return 0;
	rcu_read_lock();
	dd = rcu_dereference(pool->local[host]);
	if (dd)
		ifindex = dd->ndev->ifindex;
	rcu_read_unlock();
	return ifindex;
}

void drack_dev_update_carrier(struct drack_dev *dd)
{
	bool reachable = false;
	u64 peers = 0;
	u32 h, state;

	for (h = 0; h < dd->nhosts; h++) {
		if (h == dd->host)
			continue;
		state = drack_host_state(dd->pool, h);
		if (state == DRACK_HOST_UP || state == DRACK_HOST_LEAVING)
			peers |= BIT_ULL(h);
		reachable |= drack_host_reachable(dd->pool, h);
	}
	WRITE_ONCE(dd->peers, peers);
	if (reachable && !netif_carrier_ok(dd->ndev))
		netif_carrier_on(dd->ndev);
	else if (!reachable && netif_carrier_ok(dd->ndev))
		netif_carrier_off(dd->ndev);
}

static void drack_dev_schedule_napi(struct drack_dev *dd)
{
	local_bh_disable();
	napi_schedule(&dd->napi);
	local_bh_enable();
}

static bool drack_dev_grants_pending(struct drack_dev *dd)
{
	return drack_ring_prod(&dd->grant_in) != drack_ring_cons(&dd->grant_in);
}

/* From a doorbell interrupt or the polling timer: hard irq context. */
void drack_dev_kick_irq(struct drack_dev *dd)
{
	if (netif_running(dd->ndev))
		napi_schedule(&dd->napi);
	drack_nic_kick(dd);
	if (drack_dev_grants_pending(dd))
		schedule_work(&dd->grant_work);
}

/* Is anything waiting for us in the pool? For polling backends. */
bool drack_dev_pending(struct drack_dev *dd)
{
	return drack_dev_active(dd) &&
	       (drack_rx_pending(dd) || drack_dev_grants_pending(dd) ||
		drack_nic_pending(dd));
}

void drack_dev_kick(struct drack_dev *dd)
{
	if (netif_running(dd->ndev))
		drack_dev_schedule_napi(dd);
	local_bh_disable();
	drack_nic_kick(dd);
	local_bh_enable();
	if (drack_dev_grants_pending(dd))
		schedule_work(&dd->grant_work);
}

/* Mark classes short of Buffers as requested and let the work ask the FM. */
void drack_dev_request_sections(struct drack_dev *dd)
{
	struct drack_alloc *a = &dd->alloc;
	bool ask = false;
	u32 c;

	spin_lock_bh(&a->lock);
	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		if (a->cls[c].requested || !drack_alloc_low(a, c))
			continue;
		a->cls[c].requested = true;
		a->cls[c].requested_at = jiffies;
		a->cls[c].asked_at = jiffies;
		ask = true;
	}
	spin_unlock_bh(&a->lock);
	if (ask && !dd->leaving)
		schedule_work(&dd->request_work);
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
	spin_lock_bh(&dd->alloc.lock);
	for (c = 0; c < DRACK_NR_CLASSES; c++)
		wanted[c] = dd->alloc.cls[c].requested;
	spin_unlock_bh(&dd->alloc.lock);

	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		WRITE_ONCE(e->sections_wanted[c], cpu_to_le32(wanted[c]));
		if (!wanted[c])
			continue;
		dd->ctl.section_requests++;
		drack_nl_section_request(dd->pool, dd->host, c, 1);
	}
}

void drack_dev_grant_work(struct work_struct *work)
{
	struct drack_dev *dd = container_of(work, struct drack_dev, grant_work);
	struct drack_pool *pool = dd->pool;
	struct drack_section_entry *e;
	struct drack_grant g;
	u32 cons, section, buf_class;
	int n, got = 0;

	if (!drack_dev_active(dd))
		return;
	n = drack_ring_avail(&dd->grant_in, &cons);
	if (n < 0) {
		dd->ctl.grant_bad++;
		drack_ring_resync(&dd->grant_in);
		return;
	}
	for (; n > 0; n--, cons++) {
		memcpy(&g, drack_ring_slot(&dd->grant_in, cons), sizeof(g));
		section = le32_to_cpu(g.section);
		if (section >= pool->geo.section_count) {
			dd->ctl.grant_bad++;
			continue;
		}
		e = drack_section_entry(pool, section);
		buf_class = READ_ONCE(e->buf_class);
		if (drack_section_owner(pool, section) != dd->host ||
		    le32_to_cpu(READ_ONCE(e->generation)) !=
		    le32_to_cpu(g.generation) ||
		    drack_alloc_add_section(&dd->alloc, section, buf_class)) {
			dd->ctl.grant_bad++;
			continue;
		}
		WRITE_ONCE(drack_dev_entry(dd)->sections_wanted[buf_class], 0);
		dd->ctl.grants++;
		got++;
	}
	drack_ring_consume(&dd->grant_in, cons);
	if (!got)
		return;
	if (netif_running(dd->ndev))
		drack_dev_schedule_napi(dd);	/* wakes the queue */
	drack_dev_request_sections(dd);
}

/* Let go of fenced peers: drop their references, take back our Buffers. */
static void drack_dev_release_dead(struct drack_dev *dd)
{
	u64 released = dd->released;
	u32 h, n;

	for (h = 0; h < dd->nhosts; h++) {
		if (h == dd->host)
			continue;
		if (drack_host_state(dd->pool, h) != DRACK_HOST_DEAD) {
			released &= ~BIT_ULL(h);
			continue;
		}
		if (released & BIT_ULL(h))
			continue;
		spin_lock_bh(&dd->rx_lock);
		drack_rx_forget_peer(dd, h);
		spin_unlock_bh(&dd->rx_lock);
		n = drack_alloc_forget_peer(&dd->alloc, h);
		dd->ctl.peers_released++;
		released |= BIT_ULL(h);
		netdev_info(dd->ndev, "host %u of pool %u was fenced: dropped its references, took back %u Buffers\n",
			    h, dd->pool->id, n);
	}
	if (released != dd->released) {
		dd->released = released;
		WRITE_ONCE(drack_dev_entry(dd)->released, cpu_to_le64(released));
	}
}

/* Does the FM want one of our Sections back, or is one on its way? */
static bool drack_dev_revoke_pending(struct drack_dev *dd)
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
		dd->ctl.revokes++;
		drack_nl_section_notify(pool, s, DRACK_SECTION_FREE, buf_class);
	}
	drack_dev_request_sections(dd);
}

void drack_dev_tick(struct drack_dev *dd)
{
	struct drack_host_entry *e = drack_dev_entry(dd);
	struct drack_alloc *a = &dd->alloc;
	bool retry = false, starved = false;
	u32 c;

	if (READ_ONCE(dd->stalled))
		return;		/* a hung host: no heartbeat */
	if (READ_ONCE(dd->fenced)) {
		if (drack_host_state(dd->pool, dd->host) == DRACK_HOST_FREE)
			schedule_work(&dd->fence_work);	/* rejoin */
		return;
	}
	if (!READ_ONCE(dd->leaving) &&
	    drack_host_state(dd->pool, dd->host) != DRACK_HOST_UP) {
		schedule_work(&dd->fence_work);
		return;
	}

	WRITE_ONCE(e->heartbeat, cpu_to_le64(le64_to_cpu(e->heartbeat) + 1));
	for (c = 0; c < DRACK_NR_CLASSES; c++)
		WRITE_ONCE(e->buffers_free[c],
			   cpu_to_le32(READ_ONCE(a->cls[c].nfree)));
	drack_dev_update_carrier(dd);
	drack_dev_release_dead(dd);
	if (READ_ONCE(dd->leaving))
		return;
	local_bh_disable();	/* NAPIs it schedules run on bh enable */
	drack_nic_tick(dd);
	local_bh_enable();
	if (drack_dev_revoke_pending(dd))
		schedule_work(&dd->revoke_work);
	if (drack_dev_grants_pending(dd))
		schedule_work(&dd->grant_work);

	/* Doorbells can be lost or suppressed wrongly by a peer: poll too. */
	if (netif_running(dd->ndev)) {
		if (drack_rx_pending(dd) || netif_queue_stopped(dd->ndev))
			drack_dev_schedule_napi(dd);
	} else {
		spin_lock_bh(&dd->rx_lock);
		drack_rx_drop_all(dd);
		drack_rx_drain_returns(dd);
		spin_unlock_bh(&dd->rx_lock);
	}

	spin_lock_bh(&a->lock);
	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		struct drack_class_alloc *ca = &a->cls[c];

		if (!ca->requested)
			continue;
		if (time_after(jiffies, ca->asked_at + DRACK_REQUEST_RETRY)) {
			ca->asked_at = jiffies;
			retry = true;
		}
		if (!ca->nfree && time_after(jiffies, ca->requested_at +
					     DRACK_NO_SECTIONS_WARN))
			starved = true;
	}
	spin_unlock_bh(&a->lock);
	if (retry)
		schedule_work(&dd->request_work);
	if (starved && !dd->warned_no_sections) {
		dd->warned_no_sections = true;
		netdev_warn(dd->ndev, "no Sections granted in pool %u: is drack-fmd running? Sending waits for Buffers\n",
			    dd->pool->id);
	}
}

static void drack_dev_init_rings(struct drack_dev *dd)
{
	const struct drack_geometry *g = &dd->pool->geo;
	struct drack_pool *pool = dd->pool;
	u32 p;

	for (p = 0; p < dd->nhosts; p++) {
		drack_ring_init(&dd->ref_in[p], pool,
				drack_ref_ring_off(g, dd->host, p),
				g->ref_ring_entries, sizeof(struct drack_ref));
		drack_ring_init(&dd->ret_in[p], pool,
				drack_ret_ring_off(g, dd->host, p),
				g->ret_ring_entries, sizeof(struct drack_ret));
		drack_ring_init(&dd->ref_out[p], pool,
				drack_ref_ring_off(g, p, dd->host),
				g->ref_ring_entries, sizeof(struct drack_ref));
		drack_ring_init(&dd->ret_out[p], pool,
				drack_ret_ring_off(g, p, dd->host),
				g->ret_ring_entries, sizeof(struct drack_ret));
	}
	drack_ring_init(&dd->grant_in, pool, drack_grant_ring_off(g, dd->host),
			g->grant_ring_entries, sizeof(struct drack_grant));
}

/*
 * Set up the host slot we claimed (state JOINING): reset the rings we
 * consume, withdraw what a previous incarnation left in peers' rings, then
 * show up. After a fence, peers forgot what they had lent us, so our
 * pending returns are withdrawn too. pool->lock held.
 */
static void drack_dev_reset_entry(struct drack_dev *dd, bool after_fence)
{
	struct drack_host_entry *e = drack_dev_entry(dd);
	u32 p;

	WRITE_ONCE(e->state, cpu_to_le32(DRACK_HOST_JOINING));
	e->generation = cpu_to_le32(le32_to_cpu(e->generation) + 1);
	for (p = 0; p < dd->nhosts; p++) {
		drack_ring_reset(&dd->ref_in[p]);
		drack_ring_reset(&dd->ret_in[p]);
	}
	drack_ring_reset(&dd->grant_in);
	for (p = 0; p < dd->nhosts; p++) {
		if (p == dd->host)
			continue;
		drack_ring_produce(&dd->ref_out[p],
				   drack_ring_cons(&dd->ref_out[p]));
		if (after_fence)
			drack_ring_produce(&dd->ret_out[p],
					   drack_ring_cons(&dd->ret_out[p]));
	}
	drack_host_mac(e->mac, dd->pool->id, dd->host);
	e->notify = cpu_to_le16(dd->pool->ops->notify_id ?
				dd->pool->ops->notify_id(dd->pool) : dd->host);
	e->flags = 0;
	e->heartbeat = 0;
	e->released = 0;
	dd->released = 0;
	for (p = 0; p < DRACK_NR_CLASSES; p++) {
		e->sections_wanted[p] = 0;
		e->buffers_free[p] = 0;
	}
	smp_wmb(); /* rings reset before anyone sees us up */
	WRITE_ONCE(e->state, cpu_to_le32(DRACK_HOST_UP));
}

/*
 * The FM fenced us (we stopped heartbeating, or it thinks so). Nothing we
 * had in the pool is ours any more: forget our Buffers without touching
 * the pool, then come back as a new incarnation once the FM has freed the
 * slot.
 */
static void drack_dev_fence_work(struct work_struct *work)
{
	struct drack_dev *dd = container_of(work, struct drack_dev,
					    fence_work);
	struct drack_pool *pool = dd->pool;
	struct net_device *ndev = dd->ndev;
	bool rejoined = false;
	u32 p;

	if (READ_ONCE(dd->leaving) || READ_ONCE(dd->stalled))
		return;
	if (!dd->forgot) {
		if (!READ_ONCE(dd->fenced) &&
		    drack_host_state(pool, dd->host) == DRACK_HOST_UP)
			return;
		WRITE_ONCE(dd->fenced, true);
		dd->forgot = true;
		dd->ctl.fenced++;
		netif_carrier_off(ndev);
		netdev_warn(ndev, "host %u was fenced by the fabric manager of pool %u: dropping its Buffers, rejoining once the slot is free\n",
			    dd->host, pool->id);
		synchronize_net();	/* xmit and NAPI see the fence */
		cancel_work_sync(&dd->request_work);
		cancel_work_sync(&dd->grant_work);
		cancel_work_sync(&dd->revoke_work);
		drack_alloc_release(&dd->alloc);
	}
	if (drack_host_state(pool, dd->host) != DRACK_HOST_FREE)
		return;

	mutex_lock(&pool->lock);
	if (drack_host_claim(pool, dd->host)) {
		drack_dev_reset_entry(dd, true);
		rejoined = true;
	}
	mutex_unlock(&pool->lock);
	if (!rejoined)
		return;

	netif_tx_lock_bh(ndev);
	dd->kick_pending = 0;
	for (p = 0; p < dd->nhosts; p++)
		dd->kick_base[p] = drack_ring_prod(&dd->ref_out[p]);
	dd->blocked_peer = DRACK_NO_BLOCK;
	dd->blocked_class = DRACK_NO_BLOCK;
	netif_tx_unlock_bh(ndev);
	dd->warned_no_sections = false;
	dd->forgot = false;
	WRITE_ONCE(dd->fenced, false);
	netdev_info(ndev, "rejoined pool %u as host %u\n", pool->id, dd->host);
	if (netif_running(ndev))
		drack_dev_set_flags(dd, DRACK_HOST_F_RUNNING, 0);
	drack_dev_request_sections(dd);
	drack_pool_peers_changed(pool);
	if (netif_running(ndev)) {
		netif_wake_queue(ndev);
		drack_dev_schedule_napi(dd);
	}
	drack_nl_host_notify(pool, dd->host, DRACK_HOST_UP);
}

void drack_dev_resume(struct drack_dev *dd)
{
	if (!READ_ONCE(dd->leaving) &&
	    drack_host_state(dd->pool, dd->host) != DRACK_HOST_UP) {
		WRITE_ONCE(dd->fenced, true);	/* before NAPI or xmit look */
		schedule_work(&dd->fence_work);
	}
	WRITE_ONCE(dd->stalled, false);
	if (netif_running(dd->ndev))
		drack_dev_schedule_napi(dd);
}

static int drack_dev_join(struct drack_dev *dd, struct drack_pool *pool,
			  u32 host, struct netlink_ext_ack *extack)
{
	u8 mac[ETH_ALEN];
	int err;

	mutex_lock(&pool->lock);
	if (host == DRACK_ANY_HOST) {
		for (host = 0; host < pool->geo.max_hosts; host++)
			if (!rcu_access_pointer(pool->local[host]) &&
			    drack_host_claim(pool, host))
				break;
		if (host == pool->geo.max_hosts) {
			NL_SET_ERR_MSG(extack, "pool has no free host id");
			err = -ENOSPC;
			goto unlock;
		}
	} else if (host >= pool->geo.max_hosts) {
		NL_SET_ERR_MSG(extack, "host id out of range for this pool");
		err = -EINVAL;
		goto unlock;
	} else if (rcu_access_pointer(pool->local[host]) ||
		   !drack_host_claim(pool, host)) {
		NL_SET_ERR_MSG(extack, "host id is in use");
		err = -EBUSY;
		goto unlock;
	}

	dd->pool = pool;
	dd->host = host;
	dd->nhosts = pool->geo.max_hosts;
	err = drack_alloc_init(&dd->alloc, pool, host);
	if (err) {
		WRITE_ONCE(drack_host_entry(pool, host)->state,
			   cpu_to_le32(DRACK_HOST_FREE));
		goto unlock;
	}
	drack_dev_init_rings(dd);
	drack_host_mac(mac, pool->id, host);
	eth_hw_addr_set(dd->ndev, mac);
	drack_dev_reset_entry(dd, false);
	rcu_assign_pointer(pool->local[host], dd);
unlock:
	mutex_unlock(&pool->lock);
	return err;
}

/*
 * Hand back every Buffer peers queued to us and wait for peers to hand back
 * what we lent them; they may be gone, so give up after a while.
 */
static u32 drack_dev_wait_returns(struct drack_dev *dd)
{
	struct drack_class_counters c;
	u32 lent, i, cls;
	bool holds;

	for (i = 0;; i++) {
		spin_lock_bh(&dd->rx_lock);
		drack_rx_drop_all(dd);
		drack_rx_drain_returns(dd);
		holds = drack_rx_holds_buffers(dd);
		spin_unlock_bh(&dd->rx_lock);
		for (lent = 0, cls = 0; cls < DRACK_NR_CLASSES; cls++) {
			drack_alloc_counters(&dd->alloc, cls, &c);
			lent += c.inflight;
		}
		if ((!lent && !holds) || i * 10 >= DRACK_LEAVE_WAIT_MS)
			return lent;
		usleep_range(10000, 20000);
	}
}

static void drack_dev_leave(struct drack_dev *dd)
{
	struct drack_pool *pool = dd->pool;
	struct drack_host_entry *e = drack_dev_entry(dd);
	bool fenced;
	u32 lent;

	WRITE_ONCE(dd->leaving, true);
	WRITE_ONCE(dd->stalled, false);
	cancel_work_sync(&dd->fence_work);
	/* Fenced: the slot and the Sections are the FM's, not ours. */
	mutex_lock(&pool->lock);
	fenced = READ_ONCE(dd->fenced) ||
		 drack_host_state(pool, dd->host) != DRACK_HOST_UP;
	if (!fenced) {
		WRITE_ONCE(e->flags, 0);
		WRITE_ONCE(e->state, cpu_to_le32(DRACK_HOST_LEAVING));
	}
	mutex_unlock(&pool->lock);
	drack_pool_peers_changed(pool);
	synchronize_net();	/* local senders have seen us leave */
	cancel_work_sync(&dd->request_work);
	cancel_work_sync(&dd->grant_work);
	cancel_work_sync(&dd->revoke_work);

	lent = fenced ? 0 : drack_dev_wait_returns(dd);

	mutex_lock(&pool->lock);
	rcu_assign_pointer(pool->local[dd->host], NULL);
	drack_alloc_release(&dd->alloc);
	/* Granted Sections, including grants never picked up, go back. */
	if (!fenced) {
		drack_pool_free_host_sections(pool, dd->host);
		WRITE_ONCE(e->state, cpu_to_le32(DRACK_HOST_FREE));
	}
	mutex_unlock(&pool->lock);

	synchronize_rcu();	/* no heartbeat or doorbell still sees us */
	cancel_work_sync(&dd->request_work);
	cancel_work_sync(&dd->grant_work);
	cancel_work_sync(&dd->revoke_work);
	cancel_work_sync(&dd->fence_work);
	drack_alloc_free(&dd->alloc);
	if (lent)
		netdev_info(dd->ndev, "left pool %u while peers still held %u of its Buffers\n",
			    pool->id, lent);
	drack_pool_peers_changed(pool);
	if (!fenced)
		drack_nl_host_notify(pool, dd->host, DRACK_HOST_FREE);
}

static int drack_open(struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);

	napi_enable(&dd->napi);
	drack_dev_set_flags(dd, DRACK_HOST_F_RUNNING, 0);
	netif_start_queue(ndev);
	drack_pool_peers_changed(dd->pool);
	drack_dev_schedule_napi(dd);
	return 0;
}

static int drack_stop(struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);

	drack_dev_set_flags(dd, 0, DRACK_HOST_F_RUNNING);
	drack_pool_peers_changed(dd->pool);
	synchronize_net();	/* local senders have seen us stop */
	napi_disable(&dd->napi);
	netif_stop_queue(ndev);

	if (!drack_dev_active(dd))
		return 0;
	spin_lock_bh(&dd->rx_lock);
	drack_rx_drop_all(dd);
	drack_rx_drain_returns(dd);
	spin_unlock_bh(&dd->rx_lock);
	return 0;
}

static void drack_uninit(struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);

	if (dd->pool && !dd->leaving)
		drack_dev_leave(dd);
	netif_napi_del(&dd->napi);
}

static void drack_get_stats64(struct net_device *ndev,
			      struct rtnl_link_stats64 *s)
{
	struct drack_dev *dd = netdev_priv(ndev);

	s->tx_packets = READ_ONCE(dd->tx.packets);
	s->tx_bytes = READ_ONCE(dd->tx.bytes);
	s->tx_dropped = READ_ONCE(dd->tx.dropped) + READ_ONCE(dd->tx.no_peer);
	s->rx_packets = READ_ONCE(dd->rx.packets);
	s->rx_bytes = READ_ONCE(dd->rx.bytes);
	s->rx_dropped = READ_ONCE(dd->rx.dropped) +
			READ_ONCE(dd->rx.alloc_fail);
	s->rx_errors = READ_ONCE(dd->rx.bad_desc) + READ_ONCE(dd->rx.bad_ring);
}

static const struct net_device_ops drack_netdev_ops = {
	.ndo_uninit = drack_uninit,
	.ndo_open = drack_open,
	.ndo_stop = drack_stop,
	.ndo_start_xmit = drack_xmit,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_get_stats64 = drack_get_stats64,
};

static void drack_setup(struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);

	ether_setup(ndev);
	ndev->netdev_ops = &drack_netdev_ops;
	ndev->ethtool_ops = &drack_ethtool_ops;
	ndev->sysfs_groups[0] = &drack_sysfs_group;
	ndev->needs_free_netdev = true;
	ndev->priv_flags &= ~IFF_TX_SKB_SHARING;
	ndev->features |= DRACK_FEATURES;
	ndev->hw_features |= DRACK_FEATURES;
	ndev->vlan_features |= DRACK_FEATURES;
	ndev->min_mtu = ETH_MIN_MTU;
	ndev->max_mtu = DRACK_MAX_FRAME - ETH_HLEN;

	memset(dd, 0, sizeof(*dd));
	dd->ndev = ndev;
	dd->blocked_peer = DRACK_NO_BLOCK;
	dd->blocked_class = DRACK_NO_BLOCK;
	spin_lock_init(&dd->rx_lock);
	INIT_WORK(&dd->request_work, drack_dev_request_work);
	INIT_WORK(&dd->grant_work, drack_dev_grant_work);
	INIT_WORK(&dd->revoke_work, drack_dev_revoke_work);
	INIT_WORK(&dd->fence_work, drack_dev_fence_work);
	drack_nic_dev_init(dd);
}

static int drack_validate(struct nlattr *tb[], struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS]) {
		NL_SET_ERR_MSG_MOD(extack, "the MAC address follows from pool and host id");
		return -EINVAL;
	}
	return 0;
}

static int drack_newlink(struct net *src_net, struct net_device *ndev,
			 struct nlattr *tb[], struct nlattr *data[],
			 struct netlink_ext_ack *extack)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u32 pool_id = 0, host = DRACK_ANY_HOST;
	struct drack_pool *pool;
	int err;

	if (data && data[IFLA_DRACK_POOL])
		pool_id = nla_get_u32(data[IFLA_DRACK_POOL]);
	if (data && data[IFLA_DRACK_HOST])
		host = nla_get_u32(data[IFLA_DRACK_HOST]);

	mutex_lock(&drack_pools_lock);
	pool = drack_pool_find(pool_id);
	if (!pool) {
		NL_SET_ERR_MSG_ATTR(extack, data ? data[IFLA_DRACK_POOL] : NULL,
				    "no such pool");
		err = -ENODEV;
	} else {
		err = drack_dev_join(dd, pool, host, extack);
	}
	mutex_unlock(&drack_pools_lock);
	if (err)
		return err;

	netif_napi_add(ndev, &dd->napi, drack_napi_poll);
	netif_carrier_off(ndev);
	err = register_netdevice(ndev);
	if (err) {
		/* ndo_uninit has run if registration got that far. */
		if (!dd->leaving)
			drack_dev_leave(dd);
		netif_napi_del(&dd->napi);
		return err;
	}
	drack_dev_request_sections(dd);
	drack_pool_peers_changed(pool);
	drack_nl_host_notify(pool, dd->host, DRACK_HOST_UP);
	return 0;
}

static const struct nla_policy drack_policy[IFLA_DRACK_MAX + 1] = {
	[IFLA_DRACK_POOL] = NLA_POLICY_MAX(NLA_U32, U8_MAX),
	[IFLA_DRACK_HOST] = NLA_POLICY_MAX(NLA_U32, DRACK_MAX_HOSTS - 1),
};

static size_t drack_get_size(const struct net_device *ndev)
{
	return nla_total_size(sizeof(u32)) * 2;
}

static int drack_fill_info(struct sk_buff *skb, const struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);

	if (nla_put_u32(skb, IFLA_DRACK_POOL, dd->pool->id) ||
	    nla_put_u32(skb, IFLA_DRACK_HOST, dd->host))
		return -EMSGSIZE;
	return 0;
}

struct rtnl_link_ops drack_link_ops __read_mostly = {
	.kind = "drack",
	.priv_size = sizeof(struct drack_dev),
	.setup = drack_setup,
	.validate = drack_validate,
	.newlink = drack_newlink,
	.maxtype = IFLA_DRACK_MAX,
	.policy = drack_policy,
	.get_size = drack_get_size,
	.fill_info = drack_fill_info,
};
