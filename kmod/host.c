// SPDX-License-Identifier: GPL-2.0-only
/*
 * A local host's membership of its pool: joining (and rejoining after a
 * fence), leaving, carrier from peer presence and Sections, and letting
 * go of fenced peers.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include "device.h"
#include "trace.h"

#define DRACK_LEAVE_WAIT_MS	2000

void drack_dev_set_flags(struct drack_dev *dd, u32 set, u32 clear)
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

/* Trace @h's state when it changed since we last looked; racers trace once. */
static void drack_dev_seen_state(struct drack_dev *dd, u32 h, u32 state)
{
	u32 *seen = &dd->peers[h].state, old = READ_ONCE(*seen);

	if (old != state && cmpxchg(seen, old, state) == old)
		trace_drack_peer_state(dd->ndev, dd->pool->id, dd->host, h, old,
				       state);
}

/*
 * Can the host send a frame of up to 2 KB (ARP, neighbour discovery, ACKs)?
 * Only with a 2 KB Section it lends Buffers from; if not, why not, as far
 * as this kernel can tell: the pool's Section table, the fabric manager's
 * refusal in our host entry, or a request nobody answered.
 */
static u32 drack_dev_section_reason(struct drack_dev *dd)
{
	struct drack_class_alloc *ca = &dd->alloc.cls[DRACK_CLASS_2K];

	if (READ_ONCE(dd->fenced))
		return DRACK_CARRIER_FENCED;
	if (READ_ONCE(ca->sections) > READ_ONCE(ca->draining))
		return DRACK_CARRIER_OK;
	if (!drack_pool_free_sections(dd->pool))
		return DRACK_CARRIER_POOL_FULL;
	switch (le32_to_cpu(READ_ONCE(drack_dev_entry(dd)->refused))) {
	case DRACK_REFUSED_QUOTA:
		return DRACK_CARRIER_QUOTA;
	case DRACK_REFUSED_POOL_FULL:
		return DRACK_CARRIER_POOL_FULL;
	}
	if (READ_ONCE(ca->requested) &&
	    time_after(jiffies, READ_ONCE(ca->requested_at) + DRACK_SECTION_WAIT))
		return DRACK_CARRIER_NO_FM;
	return DRACK_CARRIER_WAITING;
}

/* Say once why there is no carrier, if the admin has to act on it. */
static void drack_dev_say_carrier(struct drack_dev *dd, u32 why)
{
	struct net_device *ndev = dd->ndev;
	u32 pool = dd->pool->id;

	if (READ_ONCE(dd->leaving))	/* its Sections go back anyway */
		return;
	switch (why) {
	case DRACK_CARRIER_OK:
	case DRACK_CARRIER_NO_PEER:	/* we have a 2 KB Section */
		if (xchg(&dd->carrier_said, DRACK_CARRIER_OK))
			netdev_info(ndev, "got a Section in pool %u\n", pool);
		return;
	case DRACK_CARRIER_NO_FM:
	case DRACK_CARRIER_QUOTA:
	case DRACK_CARRIER_POOL_FULL:
		break;
	default:
		return;
	}
	if (xchg(&dd->carrier_said, why) == why)
		return;
	if (why == DRACK_CARRIER_NO_FM)
		netdev_warn(ndev, "no carrier: no Section granted by a fabric manager for pool %u (is drack-fmd running?)\n",
			    pool);
	else if (why == DRACK_CARRIER_QUOTA)
		netdev_warn(ndev, "no carrier: the fabric manager of pool %u refused a Section: quota reached\n",
			    pool);
	else
		netdev_warn(ndev, "no carrier: no free Section in pool %u\n",
			    pool);
}

void drack_dev_update_carrier(struct drack_dev *dd)
{
	bool reachable = false;
	u64 peers = 0, watch = 0;
	u32 h, state, why;

	for (h = 0; h < dd->nhosts; h++) {
		if (h == dd->host)
			continue;
		state = drack_host_state(dd->pool, h);
		drack_dev_seen_state(dd, h, state);
		if (state == DRACK_HOST_UP || state == DRACK_HOST_LEAVING)
			peers |= BIT_ULL(h);
		/* Gone, but Buffers still out either way: keep looking. */
		if (drack_alloc_peer_lent(&dd->alloc, h) ||
		    READ_ONCE(dd->peers[h].held.live))
			watch |= BIT_ULL(h);
		reachable |= drack_host_reachable(dd->pool, h);
	}
	WRITE_ONCE(dd->present, peers);
	WRITE_ONCE(dd->watch, peers | watch);
	why = drack_dev_section_reason(dd);
	if (why == DRACK_CARRIER_OK && !reachable)
		why = DRACK_CARRIER_NO_PEER;
	WRITE_ONCE(dd->carrier_reason, why);
	drack_dev_say_carrier(dd, why);
	if (why == DRACK_CARRIER_OK && !netif_carrier_ok(dd->ndev))
		netif_carrier_on(dd->ndev);
	else if (why != DRACK_CARRIER_OK && netif_carrier_ok(dd->ndev))
		netif_carrier_off(dd->ndev);
}

/*
 * A peer that left (or whose slot a new incarnation is joining) still
 * holding our Buffers will never hand them back: it returned what it
 * meant to before going FREE, so take its returns, then the rest.
 */
static void drack_dev_release_departed(struct drack_dev *dd, u32 h)
{
	u64 ok = 0, bad = 0;
	u32 n;

	if (!drack_alloc_peer_lent(&dd->alloc, h))
		return;
	spin_lock_bh(&dd->rx_lock);
	drack_peer_take_returns(&dd->peers[h], &dd->alloc, &ok, &bad);
	spin_unlock_bh(&dd->rx_lock);
	n = drack_alloc_forget_peer(&dd->alloc, h);
	if (n)
		netdev_info(dd->ndev, "host %u of pool %u left holding %u of our Buffers: taken back\n",
			    h, dd->pool->id, n);
}

/*
 * Let go of fenced peers: drop their references, take back our Buffers;
 * and of departed ones.
 */
void drack_dev_release_dead(struct drack_dev *dd)
{
	u64 released = dd->released;
	u32 h, n, state;

	for (h = 0; h < dd->nhosts; h++) {
		if (h == dd->host)
			continue;
		state = drack_host_state(dd->pool, h);
		if (state == DRACK_HOST_FREE || state == DRACK_HOST_JOINING)
			drack_dev_release_departed(dd, h);
		if (state != DRACK_HOST_DEAD) {
			released &= ~BIT_ULL(h);
			continue;
		}
		if (released & BIT_ULL(h))
			continue;
		spin_lock_bh(&dd->rx_lock);
		drack_peer_forget(&dd->peers[h]);
		spin_unlock_bh(&dd->rx_lock);
		n = drack_alloc_forget_peer(&dd->alloc, h);
		drack_stat_ctl_inc(&dd->stats, DRACK_S_PEERS_RELEASED);
		released |= BIT_ULL(h);
		netdev_info(dd->ndev, "host %u of pool %u was fenced: dropped its references, took back %u Buffers\n",
			    h, dd->pool->id, n);
	}
	if (released != dd->released) {
		dd->released = released;
		WRITE_ONCE(drack_dev_entry(dd)->released, cpu_to_le64(released));
	}
}

static int drack_dev_init_peers(struct drack_dev *dd)
{
	const struct drack_geometry *g = &dd->pool->geo;
	u32 p;

	dd->peers = kcalloc(dd->nhosts, sizeof(*dd->peers), GFP_KERNEL);
	if (!dd->peers)
		return -ENOMEM;
	for (p = 0; p < dd->nhosts; p++)
		drack_peer_init(&dd->peers[p], dd->pool, dd->host, p);
	if (drack_rxref_init(dd)) {
		kfree(dd->peers);
		dd->peers = NULL;
		return -ENOMEM;
	}
	drack_ring_init(&dd->grant_in,
			drack_pool_ptr(dd->pool,
				       drack_grant_ring_off(g, dd->host)),
			g->grant_ring_entries, sizeof(struct drack_grant));
	return 0;
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

	drack_host_set_state(dd->pool, dd->host, DRACK_HOST_JOINING);
	e->generation = cpu_to_le32(le32_to_cpu(e->generation) + 1);
	for (p = 0; p < dd->nhosts; p++)
		drack_peer_rejoin(&dd->peers[p], after_fence);
	drack_ring_reset(&dd->grant_in);
	for (p = 0; p < DRACK_MAX_QUEUES; p++)
		dd->txq[p].kick_pending = 0;
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
		e->lend_sections[p] = 0;	/* not said until a grant */
	}
	e->refused = cpu_to_le32(DRACK_REFUSED_NONE);
	smp_wmb(); /* rings reset before anyone sees us up */
	drack_host_set_state(dd->pool, dd->host, DRACK_HOST_UP);
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
	u32 q;

	if (READ_ONCE(dd->leaving) || READ_ONCE(dd->stalled))
		return;
	if (!dd->forgot) {
		if (!READ_ONCE(dd->fenced) &&
		    drack_host_state(pool, dd->host) == DRACK_HOST_UP)
			return;
		WRITE_ONCE(dd->fenced, true);
		dd->forgot = true;
		drack_stat_ctl_inc(&dd->stats, DRACK_S_FENCED);
		drack_dev_update_carrier(dd);	/* off: fenced */
		netdev_warn(ndev, "host %u was fenced by the fabric manager of pool %u: dropping its Buffers, rejoining once the slot is free\n",
			    dd->host, pool->id);
		synchronize_net();	/* xmit and NAPI see the fence */
		cancel_work_sync(&dd->request_work);
		cancel_work_sync(&dd->grant_work);
		cancel_work_sync(&dd->revoke_work);
		drack_alloc_release(&dd->alloc);
		/* Owners took back what we held: never hand it back later. */
		spin_lock_bh(&dd->rx_lock);
		drack_rxref_forget(dd);
		spin_unlock_bh(&dd->rx_lock);
	}
	if (drack_host_state(pool, dd->host) != DRACK_HOST_FREE)
		return;

	mutex_lock(&pool->lock);
	if (drack_host_claim(pool, dd->host)) {
		/*
		 * Our side of every ring moves: keep NAPI and xmit out.
		 * rx_lock first: a NAPI redirecting into rack0 takes a TX
		 * queue lock under it.
		 */
		spin_lock_bh(&dd->rx_lock);
		netif_tx_lock(ndev);
		drack_dev_reset_entry(dd, true);
		netif_tx_unlock(ndev);
		spin_unlock_bh(&dd->rx_lock);
		rejoined = true;
	}
	mutex_unlock(&pool->lock);
	if (!rejoined)
		return;

	netif_tx_lock_bh(ndev);
	for (q = 0; q < DRACK_MAX_QUEUES; q++) {
		dd->txq[q].blocked_peer = DRACK_NO_BLOCK;
		dd->txq[q].blocked_class = DRACK_NO_BLOCK;
	}
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
		netif_tx_wake_all_queues(ndev);
		drack_dev_schedule_napi(dd);
	}
	drack_pool_notify_host(pool, dd->host, DRACK_HOST_UP);
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

int drack_dev_join(struct drack_dev *dd, struct drack_pool *pool,
			  u32 host, struct netlink_ext_ack *extack)
{
	u8 mac[ETH_ALEN];
	int err;
	u32 n;

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
	if (!err) {
		err = drack_dev_init_peers(dd);
		if (err)
			drack_alloc_free(&dd->alloc);
	}
	if (err) {
		drack_host_set_state(pool, host, DRACK_HOST_FREE);
		goto unlock;
	}
	drack_host_mac(mac, pool->id, host);
	eth_hw_addr_set(dd->ndev, mac);
	/* A steering left from the slot's previous life is not ours. */
	for (n = 0; n < pool->geo.max_nics; n++)
		WRITE_ONCE(drack_vq_ctl(pool, n, host)->steer, 0);
unlock:
	mutex_unlock(&pool->lock);
	return err;
}

/*
 * Registered: show up in the pool. Not before, so that no peer, doorbell
 * or work item can reach a netdev whose registration may still fail.
 */
void drack_dev_publish(struct drack_dev *dd)
{
	struct drack_pool *pool = dd->pool;

	mutex_lock(&pool->lock);
	drack_dev_reset_entry(dd, false);
	rcu_assign_pointer(pool->local[dd->host], &dd->client);
	mutex_unlock(&pool->lock);
	dd->joined = true;
}

/* Registration failed: give back the slot claimed and nobody saw. */
void drack_dev_unjoin(struct drack_dev *dd)
{
	struct drack_pool *pool = dd->pool;

	mutex_lock(&pool->lock);
	drack_host_cmpxchg(pool, dd->host, DRACK_HOST_JOINING, DRACK_HOST_FREE);
	mutex_unlock(&pool->lock);
	drack_alloc_free(&dd->alloc);
	dd->pool = NULL;
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
		drack_rx_drain_returns(dd, drack_all_peers(dd));
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

/*
 * Leave, first half (ndo_uninit, RTNL): stop our jobs, show the pool we
 * are LEAVING, and unpublish us so that no doorbell or client call
 * reaches this netdev again. Nothing here waits on what peers do.
 */
void drack_dev_leave(struct drack_dev *dd)
{
	struct drack_pool *pool = dd->pool;
	struct drack_host_entry *e = drack_dev_entry(dd);
	bool fenced;

	WRITE_ONCE(dd->leaving, true);
	WRITE_ONCE(dd->stalled, false);
	drack_timers_stop_work(dd);
	cancel_work_sync(&dd->fence_work);
	/* Fenced: the slot and the Sections are the FM's, not ours. */
	mutex_lock(&pool->lock);
	fenced = READ_ONCE(dd->fenced) ||
		 drack_host_state(pool, dd->host) != DRACK_HOST_UP;
	if (!fenced) {
		WRITE_ONCE(e->flags, 0);
		drack_host_set_state(pool, dd->host, DRACK_HOST_LEAVING);
	}
	rcu_assign_pointer(pool->local[dd->host], NULL);
	mutex_unlock(&pool->lock);
	drack_pool_peers_changed(pool);
	synchronize_net();	/* local senders and doorbells have seen us go */
	/* The heartbeat goes on while we wait: it touches only the pool. */
	cancel_delayed_work_sync(&dd->liveness_work);
	cancel_work_sync(&dd->request_work);
	cancel_work_sync(&dd->grant_work);
	cancel_work_sync(&dd->revoke_work);
	cancel_work_sync(&dd->fence_work);
	dd->leave_fenced = fenced;
	dd->leave_pending = true;
}

/*
 * Leave, second half (the netdev's destructor, outside RTNL): wait a
 * bounded while for peers to hand our Buffers back and for sockets to
 * let go of theirs, then give our Sections and the slot back.
 */
void drack_dev_leave_finish(struct drack_dev *dd)
{
	struct drack_pool *pool = dd->pool;
	bool fenced = dd->leave_fenced;
	u32 lent, held;

	if (!dd->leave_pending)
		return;
	dd->leave_pending = false;
	/* NIC ports detached at unregister: their owners let go first. */
	drack_nic_dev_reap_all(dd);
	lent = fenced ? 0 : drack_dev_wait_returns(dd);
	/*
	 * Sockets may keep Buffers received by reference as long as they
	 * like; their owners take them back once we are gone.
	 */
	spin_lock_bh(&dd->rx_lock);
	held = drack_rxref_forget(dd);
	spin_unlock_bh(&dd->rx_lock);
	if (held)
		netdev_warn(dd->ndev, "left pool %u while sockets still held %u Buffers of peers received by reference\n",
			    pool->id, held);

	mutex_lock(&pool->lock);
	drack_alloc_release(&dd->alloc);
	/* Granted Sections, including grants never picked up, go back. */
	if (!fenced) {
		drack_pool_free_host_sections(pool, dd->host);
		drack_host_set_state(pool, dd->host, DRACK_HOST_FREE);
	}
	mutex_unlock(&pool->lock);
	drack_timers_stop(dd);
	cancel_work_sync(&dd->fence_work);
	drack_alloc_free(&dd->alloc);
	if (lent)
		netdev_info(dd->ndev, "left pool %u while peers still held %u of its Buffers\n",
			    pool->id, lent);
	drack_pool_peers_changed(pool);
	if (!fenced)
		drack_pool_notify_host(pool, dd->host, DRACK_HOST_FREE);
}

void drack_host_init(struct drack_dev *dd)
{
	INIT_WORK(&dd->fence_work, drack_dev_fence_work);
}
