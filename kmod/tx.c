// SPDX-License-Identifier: GPL-2.0-only
/*
 * Transmit: copy the frame into one of our Buffers and post a reference on
 * the destination's ref_queue[us]. Full rings, a peer holding its cap of
 * our Buffers and empty Buffer classes stop the queue; returns and grants
 * wake it. A peer that keeps the queue stopped past stall_timeout_ms is
 * stalled: the liveness job wakes the queue and frames to that peer are
 * dropped, so one peer cannot stop traffic to the others.
 */
#include <linux/etherdevice.h>
#include <linux/virtio_net.h>
#include "cxl_delay.h"
#include "device.h"
#include "trace.h"

/*
 * Host ids are encoded in the MAC (drack_host_mac()); the host table's
 * copy is written by peers and is never trusted for delivery.
 */
unsigned int drack_stall_timeout_ms = 250;
module_param_named(stall_timeout_ms, drack_stall_timeout_ms, uint, 0644);
MODULE_PARM_DESC(stall_timeout_ms,
		 "A peer that blocks our transmit queue this long is stalled: frames to it are dropped (default 250)");

unsigned int drack_peer_max_lent_mb = 16;
module_param_named(peer_max_lent_mb, drack_peer_max_lent_mb, uint, 0644);
MODULE_PARM_DESC(peer_max_lent_mb,
		 "Buffers of each class one peer may hold at once, in MB; 0: no cap (default 16)");

int drack_tx_lookup(struct drack_dev *dd, const u8 *dest)
{
	u8 mac[ETH_ALEN];
	u32 h = (u32)dest[4] << 8 | dest[5];

	if (h >= dd->nhosts || h == dd->host)
		return -ENOENT;
	drack_host_mac(mac, dd->pool->id, h);
	return ether_addr_equal(mac, dest) ? (int)h : -ENOENT;
}

void drack_tx_flush(struct drack_dev *dd, u32 q)
{
	struct drack_txq *tq = &dd->txq[q];
	int p;

	drack_cxl_delay();
	tq->tx_batched = 0;
	while (tq->kick_pending) {
		p = __ffs64(tq->kick_pending);
		tq->kick_pending &= ~BIT_ULL(p);
		drack_stat_inc(&dd->stats,
			       drack_peer_flush(&dd->peers[p], q) ?
			       DRACK_S_TX_DOORBELLS :
			       DRACK_S_TX_DOORBELLS_SUPPRESSED);
	}
}

/* Room on @r; a reset of the ring (the peer rejoined) is not a stop. */
static bool drack_tx_room(struct drack_ring *r)
{
	int space = drack_ring_space(r);

	if (space < 0)
		space = drack_ring_space(r);
	return space > 0;
}

/*
 * Post @len bytes to @peer: from @skb, or from @data if @skb is NULL
 * (XDP). -EPIPE: the peer is stalled; -ENOSPC: its ring is full;
 * -EDQUOT: it holds its cap of our Buffers; -ENOBUFS: no Buffer.
 */
static int drack_tx_post(struct drack_dev *dd, u32 q, const struct sk_buff *skb,
			 const void *data, u32 len, u32 peer,
			 const struct virtio_net_hdr *vnet, u16 flags)
{
	struct drack_peer *p = &dd->peers[peer];
	struct drack_ring *r = &p->ref_out[q];
	struct drack_ref *ref;
	u32 buf_class;
	bool scarce;
	void *buf;
	u64 off;

	if (READ_ONCE(p->stalled))
		return -EPIPE;
	if (!drack_tx_room(r))
		return -ENOSPC;
	buf_class = drack_buf_class(len);
	/*
	 * Returns are drained lazily: queue 0 takes them back, then asks the
	 * FM. Now, when short: not every sender that fails stops a queue
	 * (broadcasts, XDP) and so asks for return doorbells.
	 */
	if (drack_buf_peer_capped(&dd->alloc, buf_class, peer)) {
		napi_schedule(drack_dev_napi(dd));
		return -EDQUOT;
	}
	off = drack_buf_get_scarce(&dd->alloc, buf_class, peer, &scarce);
	if (!off) {
		napi_schedule(drack_dev_napi(dd));
		return -ENOBUFS;
	}
	if (drack_alloc_wants_section(&dd->alloc, buf_class))
		napi_schedule(drack_dev_napi(dd));
	if (unlikely(scarce))
		flags |= DRACK_REF_F_SCARCE;

	buf = drack_pool_ptr(dd->pool, off);
	if (!skb)
		memcpy(buf, data, len);
	else if (skb_copy_bits(skb, 0, buf, len)) {
		drack_buf_unget(&dd->alloc, off);
		return -EFAULT;
	}
	ref = drack_ring_next(r);
	ref->off = cpu_to_le64(off);
	ref->len = cpu_to_le32(len);
	ref->src = cpu_to_le16(dd->host);
	ref->flags = cpu_to_le16(flags);
	memcpy(&ref->vnet, vnet, sizeof(*vnet));
	/* Visible now: the peer may be polling; the doorbell is batched. */
	drack_ring_post(r);
	dd->txq[q].kick_pending |= BIT_ULL(peer);
	trace_drack_xmit(dd->ndev, dd->pool->id, dd->host, peer, len, buf_class,
			 off, flags & DRACK_REF_F_BCAST);

	drack_stat_inc(&dd->stats, DRACK_S_TX_REFS);
	if (unlikely(scarce))
		drack_stat_inc(&dd->stats, DRACK_S_TX_SCARCE);
	drack_peer_count(&p->tx[q], len);
	return 0;
}

/* Broadcast from @skb, or from @data if @skb is NULL; copies posted. */
static u32 drack_tx_broadcast(struct drack_dev *dd, u32 q,
			      const struct sk_buff *skb, const void *data,
			      u32 len, const struct virtio_net_hdr *vnet)
{
	u32 h, sent = 0;

	drack_stat_inc(&dd->stats, DRACK_S_TX_BCAST);
	for (h = 0; h < dd->nhosts; h++) {
		if (h == dd->host || !drack_host_reachable(dd->pool, h))
			continue;
		/* Never stop for a broadcast: a copy fewer beats a duplicate. */
		switch (drack_tx_post(dd, q, skb, data, len, h, vnet,
				      DRACK_REF_F_BCAST)) {
		case 0:
			sent++;
			break;
		case -EPIPE:
			drack_stat_inc(&dd->stats, DRACK_S_TX_PEER_STALLED);
			break;
		default:
			drack_stat_inc(&dd->stats, DRACK_S_TX_DROPPED);
		}
	}
	return sent;
}

int drack_tx_frame(struct drack_dev *dd, u32 q, const void *data, u32 len,
		   int peer)
{
	static const struct virtio_net_hdr vnet;	/* complete, not GSO */

	if (len < ETH_HLEN || len > DRACK_MAX_FRAME)
		return -EINVAL;
	if (peer < 0 && is_multicast_ether_addr(data))
		return drack_tx_broadcast(dd, q, NULL, data, len, &vnet) ?
		       0 : -ENOSPC;
	if (peer < 0)
		peer = drack_tx_lookup(dd, data);
	if (peer < 0 || !drack_host_reachable(dd->pool, peer))
		return -ENOENT;
	return drack_tx_post(dd, q, NULL, data, len, peer, &vnet, 0);
}

static void drack_tx_stop(struct drack_dev *dd, struct netdev_queue *txq,
			  u32 q, int peer, int buf_class)
{
	struct drack_txq *tq = &dd->txq[q];

	if (!netif_tx_queue_stopped(txq))
		drack_stat_inc(&dd->stats, DRACK_S_TX_STOPS);
	netif_tx_stop_queue(txq);
	if (peer != DRACK_NO_BLOCK && peer != tq->blocked_peer)
		tq->blocked_since = jiffies;
	tq->blocked_peer = peer;
	tq->blocked_class = buf_class;
	/* Our NAPI re-checks after draining returns: no lost wake-up. */
	napi_schedule(drack_dev_napi(dd));
}

bool drack_tx_any_stopped(struct drack_dev *dd)
{
	u32 q;

	for (q = 0; q < dd->ndev->real_num_tx_queues; q++)
		if (netif_tx_queue_stopped(netdev_get_tx_queue(dd->ndev, q)))
			return true;
	return false;
}

netdev_tx_t drack_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u32 q = skb_get_queue_mapping(skb);
	struct netdev_queue *txq = netdev_get_tx_queue(ndev, q);
	struct virtio_net_hdr vnet;
	u32 len = skb->len;
	int peer, err;

	/* A queue past the pool's ref_queues would share a ring: never. */
	if (unlikely(len < ETH_HLEN || len > DRACK_MAX_FRAME ||
		     q >= dd->max_channels || !drack_dev_active(dd)))
		goto drop;
	/* Only GSO types a peer can rebuild are advertised. */
	if (unlikely(virtio_net_hdr_from_skb(skb, &vnet, true, true, 0)))
		goto drop;

	if (is_multicast_ether_addr(skb->data)) {
		drack_tx_broadcast(dd, q, skb, NULL, len, &vnet);
		goto sent;
	}

	peer = drack_tx_lookup(dd, skb->data);
	if (peer < 0 || !drack_host_reachable(dd->pool, peer)) {
		drack_stat_inc(&dd->stats, DRACK_S_TX_NO_PEER);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	err = drack_tx_post(dd, q, skb, NULL, len, peer, &vnet, 0);
	switch (err) {
	case 0:
		break;
	case -EPIPE:
		drack_stat_inc(&dd->stats, DRACK_S_TX_PEER_STALLED);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	case -ENOSPC:
	case -EDQUOT:
	case -ENOBUFS:
		drack_stat_inc(&dd->stats, err == -ENOSPC ? DRACK_S_TX_RING_FULL :
			       err == -EDQUOT ? DRACK_S_TX_PEER_CAPPED :
			       DRACK_S_TX_NO_BUFFER);
		drack_tx_flush(dd, q);
		drack_tx_stop(dd, txq, q,
			      err == -ENOBUFS ? DRACK_NO_BLOCK : peer,
			      err == -ENOBUFS ? (int)drack_buf_class(len) :
						DRACK_NO_BLOCK);
		return NETDEV_TX_BUSY;
	default:
		goto drop;
	}
	/* Stop before the next frame would find the ring full. */
	if (drack_ring_space(&dd->peers[peer].ref_out[q]) <= 0)
		drack_tx_stop(dd, txq, q, peer, DRACK_NO_BLOCK);
sent:
	skb_tx_timestamp(skb);
	drack_stat_inc(&dd->stats, DRACK_S_TX_PACKETS);
	drack_stat_add(&dd->stats, DRACK_S_TX_BYTES, len);
	drack_peer_count(&dd->txq[q].stats, len);
	if (!netdev_xmit_more() || netif_tx_queue_stopped(txq) ||
	    ++dd->txq[q].tx_batched >= READ_ONCE(dd->tx_max_frames))
		drack_tx_flush(dd, q);
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
drop:
	drack_stat_inc(&dd->stats, DRACK_S_TX_DROPPED);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

/* @p holds its cap of our Buffers in some class. */
static bool drack_tx_peer_capped(struct drack_dev *dd, u32 p)
{
	u32 c;

	for (c = 0; c < DRACK_NR_CLASSES; c++)
		if (drack_buf_peer_capped(&dd->alloc, c, p))
			return true;
	return false;
}

/* @p's ring of TX queue @q has room again (a quarter of it). */
static bool drack_tx_ring_drained(struct drack_peer *p, u32 q)
{
	return drack_ring_space(&p->ref_out[q]) >=
	       (int)p->ref_out[q].size / 4;
}

/*
 * From the liveness job: a peer blocking a TX queue past the timeout is
 * stalled, and a stalled peer that consumes and returns again recovers.
 * Returns the peer newly stalled or recovered in *@changed (or -1) and
 * whether it is stalled now; one change per call.
 */
bool drack_tx_check_stall(struct drack_dev *dd, int *changed)
{
	unsigned long timeout = msecs_to_jiffies(READ_ONCE(drack_stall_timeout_ms));
	struct net_device *ndev = dd->ndev;
	struct drack_peer *peer;
	struct drack_txq *tq;
	bool stalled = false;
	u32 q;
	int p;

	*changed = -1;
	netif_tx_lock_bh(ndev);
	for (q = 0; q < ndev->real_num_tx_queues; q++) {
		tq = &dd->txq[q];
		p = tq->blocked_peer;
		if (p < 0 ||
		    !netif_tx_queue_stopped(netdev_get_tx_queue(ndev, q)) ||
		    !time_after(jiffies, tq->blocked_since + timeout))
			continue;
		tq->blocked_peer = DRACK_NO_BLOCK;
		if (tq->blocked_class == DRACK_NO_BLOCK) {
			drack_stat_inc(&dd->stats, DRACK_S_TX_WAKES);
			netif_tx_wake_queue(netdev_get_tx_queue(ndev, q));
		}
		/* Blocking another queue too: stalled once, reported once. */
		if (dd->peers[p].stalled)
			continue;
		WRITE_ONCE(dd->peers[p].stalled, true);
		*changed = p;
		stalled = true;
		goto out;
	}
	for (p = 0; p < dd->nhosts; p++) {
		peer = &dd->peers[p];
		if (!peer->stalled)
			continue;
		/* Gone, or consuming and returning again: no longer stalled. */
		if (drack_host_reachable(dd->pool, p)) {
			if (drack_tx_peer_capped(dd, p))
				continue;
			for (q = 0; q < peer->nq; q++)
				if (!drack_tx_ring_drained(peer, q))
					break;
			if (q < peer->nq)
				continue;
		}
		WRITE_ONCE(peer->stalled, false);
		*changed = p;
		break;
	}
out:
	netif_tx_unlock_bh(ndev);
	return stalled;
}

/* From NAPI: wake each TX queue once what stopped it has gone away. */
void drack_tx_maybe_wake(struct drack_dev *dd)
{
	struct net_device *ndev = dd->ndev;
	struct netdev_queue *txq;
	struct drack_txq *tq;
	bool wake;
	u32 q;
	int p, c;

	if (!netif_running(ndev))
		return;
	for (q = 0; q < ndev->real_num_tx_queues; q++) {
		txq = netdev_get_tx_queue(ndev, q);
		if (!netif_tx_queue_stopped(txq))
			continue;
		tq = &dd->txq[q];
		wake = true;
		__netif_tx_lock(txq, smp_processor_id());
		/* Another queue's NAPI may have woken it meanwhile. */
		if (!netif_tx_queue_stopped(txq)) {
			__netif_tx_unlock(txq);
			continue;
		}
		p = tq->blocked_peer;
		c = tq->blocked_class;
		if (p >= 0 && drack_host_reachable(dd->pool, p) &&
		    !READ_ONCE(dd->peers[p].stalled) &&
		    (!drack_tx_ring_drained(&dd->peers[p], q) ||
		     drack_tx_peer_capped(dd, p)))
			wake = false;
		if (c >= 0 && !READ_ONCE(dd->alloc.cls[c].nfree))
			wake = false;
		if (wake) {
			tq->blocked_peer = DRACK_NO_BLOCK;
			tq->blocked_class = DRACK_NO_BLOCK;
			drack_stat_inc(&dd->stats, DRACK_S_TX_WAKES);
			netif_tx_wake_queue(txq);
		}
		__netif_tx_unlock(txq);
	}
}
