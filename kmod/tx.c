// SPDX-License-Identifier: GPL-2.0-only
/*
 * Transmit: copy the frame into one of our Buffers and post a reference on
 * the destination's ref_queue[us]. Full rings and empty Buffer classes stop
 * the queue; returns and grants wake it.
 */
#include <linux/etherdevice.h>
#include <linux/virtio_net.h>
#include "device.h"

/*
 * Host ids are encoded in the MAC (drack_host_mac()); the host table's
 * copy is written by peers and is never trusted for delivery.
 */
static int drack_tx_lookup(struct drack_dev *dd, const u8 *dest)
{
	u8 mac[ETH_ALEN];
	u32 h = (u32)dest[4] << 8 | dest[5];

	if (h >= dd->nhosts || h == dd->host)
		return -ENOENT;
	drack_host_mac(mac, dd->pool->id, h);
	return ether_addr_equal(mac, dest) ? (int)h : -ENOENT;
}

static void drack_tx_flush(struct drack_dev *dd)
{
	struct drack_ring *r;
	u32 prod;
	int p;

	while (dd->kick_pending) {
		p = __ffs64(dd->kick_pending);
		dd->kick_pending &= ~BIT_ULL(p);
		r = &dd->ref_out[p];
		prod = drack_ring_prod(r);
		if (drack_ring_publish(r, dd->kick_base[p], prod)) {
			drack_pool_kick(dd->pool, p);
			dd->tx.doorbells++;
		} else {
			dd->tx.doorbells_suppressed++;
		}
		dd->kick_base[p] = prod;
	}
}

/* Post @skb to @peer. -ENOSPC: ring full; -ENOBUFS: no Buffer. */
static int drack_tx_one(struct drack_dev *dd, struct sk_buff *skb, u32 peer,
			const struct virtio_net_hdr *vnet, u16 flags)
{
	struct drack_ring *r = &dd->ref_out[peer];
	u32 len = skb->len, buf_class, prod;
	struct drack_ref *ref;
	u64 off;

	if (!drack_ring_space(r))
		return -ENOSPC;
	buf_class = drack_buf_class(len);
	off = drack_buf_get(&dd->alloc, buf_class, peer);
	if (!off)
		return -ENOBUFS;
	/* Returns are drained lazily: NAPI takes them back, then asks the FM. */
	if (drack_alloc_low(&dd->alloc, buf_class))
		napi_schedule(&dd->napi);

	if (skb_copy_bits(skb, 0, drack_pool_ptr(dd->pool, off), len)) {
		drack_buf_unget(&dd->alloc, off);
		return -EFAULT;
	}
	prod = drack_ring_prod(r);
	ref = drack_ring_slot(r, prod);
	ref->off = cpu_to_le64(off);
	ref->len = cpu_to_le32(len);
	ref->src = cpu_to_le16(dd->host);
	ref->flags = cpu_to_le16(flags);
	memcpy(&ref->vnet, vnet, sizeof(*vnet));
	drack_ring_produce(r, prod + 1);
	dd->kick_pending |= BIT_ULL(peer);

	dd->tx.refs++;
	dd->peer[peer].tx_packets++;
	dd->peer[peer].tx_bytes += len;
	return 0;
}

static void drack_tx_broadcast(struct drack_dev *dd, struct sk_buff *skb,
			       const struct virtio_net_hdr *vnet)
{
	u32 h;

	dd->tx.bcast++;
	for (h = 0; h < dd->nhosts; h++) {
		if (h == dd->host || !drack_host_reachable(dd->pool, h))
			continue;
		/* Never stop for a broadcast: a copy fewer beats a duplicate. */
		if (drack_tx_one(dd, skb, h, vnet, DRACK_REF_F_BCAST))
			dd->tx.dropped++;
	}
}

static void drack_tx_stop(struct drack_dev *dd, int peer, int buf_class)
{
	netif_stop_queue(dd->ndev);
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
		drack_tx_broadcast(dd, skb, &vnet);
		goto sent;
	}

	peer = drack_tx_lookup(dd, skb->data);
	if (peer < 0 || !drack_host_reachable(dd->pool, peer)) {
		dd->tx.no_peer++;
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	err = drack_tx_one(dd, skb, peer, &vnet, 0);
	if (err == -ENOSPC || err == -ENOBUFS) {
		if (err == -ENOSPC)
			dd->tx.ring_full++;
		else
			dd->tx.no_buffer++;
		drack_tx_flush(dd);
		drack_tx_stop(dd, err == -ENOSPC ? peer : DRACK_NO_BLOCK,
			      err == -ENOBUFS ? (int)drack_buf_class(len) :
						DRACK_NO_BLOCK);
		return NETDEV_TX_BUSY;
	}
	if (err)
		goto drop;
	/* Stop before the next frame would find the ring full. */
	if (!drack_ring_space(&dd->ref_out[peer]))
		drack_tx_stop(dd, peer, DRACK_NO_BLOCK);
sent:
	dd->tx.packets++;
	dd->tx.bytes += len;
	if (!netdev_xmit_more() || netif_queue_stopped(ndev))
		drack_tx_flush(dd);
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
drop:
	dd->tx.dropped++;
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
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
	    drack_ring_space(&dd->ref_out[p]) < dd->ref_out[p].size / 4)
		wake = false;
	if (c >= 0 && !READ_ONCE(dd->alloc.cls[c].nfree))
		wake = false;
	if (wake) {
		dd->blocked_peer = DRACK_NO_BLOCK;
		dd->blocked_class = DRACK_NO_BLOCK;
		netif_wake_queue(ndev);
	}
	netif_tx_unlock(ndev);
}
