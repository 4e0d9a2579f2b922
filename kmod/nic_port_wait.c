// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a NIC port's stopped vNICs wait for, and who wakes them.
 *
 * A vNIC stops when drack_nic_port_xmit() fails: -ENOSPC, the TX ring is
 * full, so it waits for room (the owner consuming); -ENOBUFS, no Buffer
 * of the frame's class can be lent to the owner (none free, or it holds
 * its cap), so it waits for one to come home. Waking it on room alone
 * would only fail again: a softirq loop for as long as the owner holds
 * them. The port's poll walks its stopped vNICs and wakes those that can
 * send; what the others wait for is kept here, for whoever may end the
 * wait: the owner's doorbell (DRACK_VQ_F_TX_WAIT), Buffers coming home
 * (drack_nic_port_bufs_back()) and the heartbeat (drack_nic_port_retry()).
 */
#include "device.h"

/* Is a Buffer of a class in @mask there for us to lend the owner? */
static bool drack_nic_port_bufs_any(struct drack_nic_port *vp, u32 mask)
{
	u32 c;

	for (c = 0; c < DRACK_NR_CLASSES; c++)
		if ((mask & BIT(c)) &&
		    drack_buf_available(&vp->dd->alloc, c, vp->owner))
			return true;
	return false;
}

/*
 * The classes the port's vNICs wait for (tx_lock held). Counted before
 * the mask is set: drack_nic_port_bufs_back() may see a count with an
 * empty mask, never the reverse.
 */
void drack_nic_port_set_buf_wait(struct drack_nic_port *vp, u8 mask)
{
	atomic_t *waiters = &vp->dd->nic.buf_waiters;

	BUILD_BUG_ON(DRACK_NR_CLASSES > 8);	/* a bit per class in a u8 */
	lockdep_assert_held(&vp->tx_lock);
	if (!vp->buf_wait && mask)
		atomic_inc(waiters);
	else if (vp->buf_wait && !mask)
		atomic_dec(waiters);
	WRITE_ONCE(vp->buf_wait, mask);
}

/*
 * Buffers may have come home (the main NAPI took returns, a port's poll
 * or a vNIC's transmit took back what an owner consumed, a detached port
 * was freed): the ports whose vNICs wait for them poll, and wake them.
 * BH or IRQs off (netpoll transmits).
 */
void drack_nic_port_bufs_back(struct drack_dev *dd)
{
	struct drack_nic_host *nh = &dd->nic;
	struct drack_nic_port *vp;
	u32 n, mask;

	/* No port, no waiter: the main NAPI's cost is this load. */
	if (!READ_ONCE(nh->busy_slots))
		return;
	/*
	 * Buffers freed before the look at the waiters: pairs with the
	 * full barrier of the napi_schedule() a waiter did after it stopped.
	 */
	smp_mb();
	if (likely(!atomic_read(&nh->buf_waiters)))
		return;
	rcu_read_lock();
	for (n = 0; n < dd->pool->geo.max_nics; n++) {
		vp = rcu_dereference(nh->vport[n]);
		mask = vp ? READ_ONCE(vp->buf_wait) : 0;
		if (mask && drack_nic_port_bufs_any(vp, mask))
			napi_schedule(&vp->napi);
	}
	rcu_read_unlock();
}

/*
 * The port's poll, after its TX cleanup (tx_lock held, RCU): wake the
 * stopped vNICs of this port that can send, a quarter of the ring free
 * (@room) and, for one that found no Buffer, one of its class back. What
 * the others wait for becomes the port's waits and its TX-wait flag in
 * the pool: the walk's, not an update of the old ones, so a wake used up
 * before its waiter stopped cannot leave one waiting for nothing. A
 * transmit that fails after the walk stops its vNIC, then schedules this
 * poll again.
 */
void drack_nic_port_wake(struct drack_nic_port *vp, bool room)
{
	struct drack_nic_host *nh = &vp->dd->nic;
	bool room_wait = false;
	struct drack_vnic *vn;
	u8 cls, classes = 0;
	u32 v, flags;

	lockdep_assert_held(&vp->tx_lock);
	for (v = 0; v < DRACK_MAX_NICS; v++) {
		vn = rcu_dereference(nh->vnic[v]);
		if (!vn || rcu_access_pointer(vn->vp) != vp ||
		    !netif_running(vn->ndev) || !netif_queue_stopped(vn->ndev))
			continue;
		cls = READ_ONCE(vn->buf_wait);
		if (cls && !drack_nic_port_bufs_any(vp, cls)) {
			classes |= cls;
			continue;
		}
		if (!room) {
			room_wait = true;
			continue;
		}
		WRITE_ONCE(vn->buf_wait, 0);
		netif_wake_queue(vn->ndev);
	}
	drack_nic_port_set_buf_wait(vp, classes);
	WRITE_ONCE(vp->tx_wait, room_wait);
	/* Ring us when consuming: that frees room and Buffers lent to it. */
	flags = room_wait || classes ? DRACK_VQ_F_TX_WAIT : 0;
	if (le32_to_cpu(READ_ONCE(vp->ctl->flags)) != flags)
		WRITE_ONCE(vp->ctl->flags, cpu_to_le32(flags));
}

/*
 * Work for the poll (the polling backends' poller asks): completions,
 * posts to refill, or TX entries the owner consumed while a vNIC waits
 * (for room, or for the Buffers in them).
 */
bool drack_nic_port_pending(struct drack_nic_port *vp)
{
	return drack_ring_pending(&vp->done) || READ_ONCE(vp->refill_short) ||
	       ((READ_ONCE(vp->tx_wait) || READ_ONCE(vp->buf_wait)) &&
		drack_ring_consumed(&vp->tx) != READ_ONCE(vp->tx_clean));
}

/*
 * ... and what the heartbeat retries: vNICs waiting for TX room (the
 * owner may never ring us, if someone moved our ring's producer index
 * back to where it stands, or cleared DRACK_VQ_F_TX_WAIT; so our own
 * flag, not the pool's) or for Buffers (they may come back by a way that
 * wakes no one: a Section granted, the lending cap raised). Not the
 * poller's: it would spin for as long as a peer holds our Buffers.
 */
bool drack_nic_port_retry(struct drack_nic_port *vp)
{
	return drack_nic_port_pending(vp) || READ_ONCE(vp->tx_wait) ||
	       READ_ONCE(vp->buf_wait);
}
