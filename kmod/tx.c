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

void drack_tx_flush(struct drack_dev *dd)
{
	int p;

	drack_cxl_delay();
	dd->tx_batched = 0;
	while (dd->kick_pending) {
		p = __ffs64(dd->kick_pending);
		dd->kick_pending &= ~BIT_ULL(p);
		drack_stat_inc(&dd->stats,
			       drack_peer_flush(&dd->peers[p]) ?
			       DRACK_S_TX_DOORBELLS :
			       DRACK_S_TX_DOORBELLS_SUPPRESSED);
	}
}

/* Room on @p's ref_queue; a reset of the ring (it rejoined) is not a stop. */
static bool drack_tx_room(struct drack_peer *p)
{
	int space = drack_ring_space(&p->ref_out);

	if (space < 0)
		space = drack_ring_space(&p->ref_out);
	return space > 0;
}

/*
 * Post @len bytes to @peer: from @skb, or from @data if @skb is NULL
 * (XDP). -EPIPE: the peer is stalled; -ENOSPC: its ring is full;
 * -EDQUOT: it holds its cap of our Buffers; -ENOBUFS: no Buffer.
 */
static int drack_tx_post(struct drack_dev *dd, const struct sk_buff *skb,
			 const void *data, u32 len, u32 peer,
			 const struct virtio_net_hdr *vnet, u16 flags)
{
	struct drack_peer *p = &dd->peers[peer];
	struct drack_ref *ref;
	u32 buf_class;
	void *buf;
	u64 off;

	if (READ_ONCE(p->stalled))
		return -EPIPE;
	if (!drack_tx_room(p))
		return -ENOSPC;
	buf_class = drack_buf_class(len);
	if (drack_buf_peer_capped(&dd->alloc, buf_class, peer))
		return -EDQUOT;
	off = drack_buf_get(&dd->alloc, buf_class, peer);
	if (!off)
		return -ENOBUFS;
	/* Returns are drained lazily: NAPI takes them back, then asks the FM. */
	if (drack_alloc_low(&dd->alloc, buf_class))
		napi_schedule(&dd->napi);

	buf = drack_pool_ptr(dd->pool, off);
	if (!skb)
		memcpy(buf, data, len);
	else if (skb_copy_bits(skb, 0, buf, len)) {
		drack_buf_unget(&dd->alloc, off);
		return -EFAULT;
	}
	ref = drack_ring_next(&p->ref_out);
	ref->off = cpu_to_le64(off);
	ref->len = cpu_to_le32(len);
	ref->src = cpu_to_le16(dd->host);
	ref->flags = cpu_to_le16(flags);
	memcpy(&ref->vnet, vnet, sizeof(*vnet));
	/* Visible now: the peer may be polling; the doorbell is batched. */
	drack_ring_post(&p->ref_out);
	dd->kick_pending |= BIT_ULL(peer);
	trace_drack_xmit(dd->ndev, dd->pool->id, dd->host, peer, len, buf_class,
			 off, flags & DRACK_REF_F_BCAST);

	drack_stat_inc(&dd->stats, DRACK_S_TX_REFS);
	drack_peer_count(&p->tx, len);
	return 0;
}

static int drack_tx_one(struct drack_dev *dd, struct sk_buff *skb, u32 peer,
			const struct virtio_net_hdr *vnet, u16 flags)
{
	return drack_tx_post(dd, skb, NULL, skb->len, peer, vnet, flags);
}

/* Broadcast from @skb, or from @data if @skb is NULL; copies posted. */
static u32 drack_tx_broadcast(struct drack_dev *dd, const struct sk_buff *skb,
			      const void *data, u32 len,
			      const struct virtio_net_hdr *vnet)
{
	u32 h, sent = 0;

	drack_stat_inc(&dd->stats, DRACK_S_TX_BCAST);
	for (h = 0; h < dd->nhosts; h++) {
		if (h == dd->host || !drack_host_reachable(dd->pool, h))
			continue;
		/* Never stop for a broadcast: a copy fewer beats a duplicate. */
		switch (drack_tx_post(dd, skb, data, len, h, vnet,
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

int drack_tx_frame(struct drack_dev *dd, const void *data, u32 len, int peer)
{
	static const struct virtio_net_hdr vnet;	/* complete, not GSO */

	if (len < ETH_HLEN || len > DRACK_MAX_FRAME)
		return -EINVAL;
	if (peer < 0 && is_multicast_ether_addr(data))
		return drack_tx_broadcast(dd, NULL, data, len, &vnet) ?
		       0 : -ENOSPC;
	if (peer < 0)
		peer = drack_tx_lookup(dd, data);
	if (peer < 0 || !drack_host_reachable(dd->pool, peer))
		return -ENOENT;
	return drack_tx_post(dd, NULL, data, len, peer, &vnet, 0);
}

static void drack_tx_stop(struct drack_dev *dd, int peer, int buf_class)
{
	if (!netif_queue_stopped(dd->ndev))
		drack_stat_inc(&dd->stats, DRACK_S_TX_STOPS);
	netif_stop_queue(dd->ndev);
	if (peer != DRACK_NO_BLOCK && peer != dd->blocked_peer)
		dd->blocked_since = jiffies;
	dd->blocked_peer = peer;
	dd->blocked_class = buf_class;
	/* Our NAPI re-checks after draining returns: no lost wake-up. */
	napi_schedule(&dd->napi);
}

netdev_tx_t drack_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);
	struct virtio_net_hdr vnet;
	u32 len = skb->len;
	int peer, err;

	if (unlikely(len < ETH_HLEN || len > DRACK_MAX_FRAME ||
		     !drack_dev_active(dd)))
		goto drop;
	/* Only GSO types a peer can rebuild are advertised. */
	if (unlikely(virtio_net_hdr_from_skb(skb, &vnet, true, true, 0)))
		goto drop;

	if (is_multicast_ether_addr(skb->data)) {
		drack_tx_broadcast(dd, skb, NULL, len, &vnet);
		goto sent;
	}

	peer = drack_tx_lookup(dd, skb->data);
	if (peer < 0 || !drack_host_reachable(dd->pool, peer)) {
		drack_stat_inc(&dd->stats, DRACK_S_TX_NO_PEER);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	err = drack_tx_one(dd, skb, peer, &vnet, 0);
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
		drack_tx_flush(dd);
		drack_tx_stop(dd, err == -ENOBUFS ? DRACK_NO_BLOCK : peer,
			      err == -ENOBUFS ? (int)drack_buf_class(len) :
						DRACK_NO_BLOCK);
		return NETDEV_TX_BUSY;
	default:
		goto drop;
	}
	/* Stop before the next frame would find the ring full. */
	if (drack_ring_space(&dd->peers[peer].ref_out) <= 0)
		drack_tx_stop(dd, peer, DRACK_NO_BLOCK);
sent:
	skb_tx_timestamp(skb);
	drack_stat_inc(&dd->stats, DRACK_S_TX_PACKETS);
	drack_stat_add(&dd->stats, DRACK_S_TX_BYTES, len);
	if (!netdev_xmit_more() || netif_queue_stopped(ndev) ||
	    ++dd->tx_batched >= READ_ONCE(dd->tx_max_frames))
		drack_tx_flush(dd);
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

/*
 * From the liveness job: the peer blocking our queue past the timeout is
 * stalled, and a stalled peer that consumes and returns again recovers.
 * Returns the peer newly stalled or recovered in *@changed (or -1) and
 * whether it is stalled now; one change per call.
 */
bool drack_tx_check_stall(struct drack_dev *dd, int *changed)
{
	unsigned long timeout = msecs_to_jiffies(READ_ONCE(drack_stall_timeout_ms));
	struct net_device *ndev = dd->ndev;
	struct drack_peer *peer;
	bool stalled = false;
	int p;

	*changed = -1;
	netif_tx_lock_bh(ndev);
	p = dd->blocked_peer;
	if (p >= 0 && netif_queue_stopped(ndev) &&
	    time_after(jiffies, dd->blocked_since + timeout)) {
		WRITE_ONCE(dd->peers[p].stalled, true);
		dd->blocked_peer = DRACK_NO_BLOCK;
		if (dd->blocked_class == DRACK_NO_BLOCK) {
			drack_stat_inc(&dd->stats, DRACK_S_TX_WAKES);
			netif_wake_queue(ndev);
		}
		*changed = p;
		stalled = true;
		goto out;
	}
	for (p = 0; p < dd->nhosts; p++) {
		peer = &dd->peers[p];
		/* Gone, or consuming and returning again: no longer stalled. */
		if (!peer->stalled ||
		    (drack_host_reachable(dd->pool, p) &&
		     (drack_tx_peer_capped(dd, p) ||
		      drack_ring_space(&peer->ref_out) <
		      (int)peer->ref_out.size / 4)))
			continue;
		WRITE_ONCE(peer->stalled, false);
		*changed = p;
		break;
	}
out:
	netif_tx_unlock_bh(ndev);
	return stalled;
}

/* From NAPI: wake the queue once what stopped it has gone away. */
void drack_tx_maybe_wake(struct drack_dev *dd)
{
	struct net_device *ndev = dd->ndev;
	bool wake = true;
	int p, c;

	if (!netif_queue_stopped(ndev) || !netif_running(ndev))
		return;
	netif_tx_lock(ndev);
	p = dd->blocked_peer;
	c = dd->blocked_class;
	if (p >= 0 && drack_host_reachable(dd->pool, p) &&
	    !READ_ONCE(dd->peers[p].stalled) &&
	    (drack_ring_space(&dd->peers[p].ref_out) <
	     (int)dd->peers[p].ref_out.size / 4 || drack_tx_peer_capped(dd, p)))
		wake = false;
	if (c >= 0 && !READ_ONCE(dd->alloc.cls[c].nfree))
		wake = false;
	if (wake) {
		dd->blocked_peer = DRACK_NO_BLOCK;
		dd->blocked_class = DRACK_NO_BLOCK;
		drack_stat_inc(&dd->stats, DRACK_S_TX_WAKES);
		netif_wake_queue(ndev);
	}
	netif_tx_unlock(ndev);
}
