// SPDX-License-Identifier: GPL-2.0-only
/*
 * Receive: NAPI polls our ref_queue[peer] rings, validates every reference
 * read from the pool, copies the frame into an skb, hands the Buffer back
 * to its owner on the return ring, and takes back our own Buffers.
 */
#include <linux/etherdevice.h>
#include <linux/virtio_net.h>
#include "device.h"

#define DRACK_RX_LINEAR	256

/* Hosts whose Buffers may still be handed back. */
static bool drack_rx_owner_alive(struct drack_dev *dd, u32 peer)
{
	u32 state = drack_host_state(dd->pool, peer);

	return state == DRACK_HOST_UP || state == DRACK_HOST_LEAVING;
}

/*
 * Check a reference against the pool's Section table. @returnable tells
 * whether the offset is a real Buffer of @peer (to be handed back even if
 * the frame itself is bad).
 */
static bool drack_rx_valid(struct drack_dev *dd, u32 peer,
			   const struct drack_ref *ref, bool *returnable)
{
	const struct drack_geometry *g = &dd->pool->geo;
	u64 off = le64_to_cpu(ref->off);
	u32 len = le32_to_cpu(ref->len);
	u64 section = off >> DRACK_SECTION_SHIFT;
	struct drack_section_entry *e;
	u32 buf_class;

	*returnable = false;
	if (le16_to_cpu(ref->src) != peer || off >= g->pool_size ||
	    section < g->meta_sections)
		return false;
	e = drack_section_entry(dd->pool, section);
	buf_class = READ_ONCE(e->buf_class);
	if (le16_to_cpu(READ_ONCE(e->owner)) != peer ||
	    buf_class >= DRACK_NR_CLASSES ||
	    off & (DRACK_CLASS_SIZE(buf_class) - 1))
		return false;
	*returnable = true;
	return len >= ETH_HLEN && len <= DRACK_CLASS_SIZE(buf_class);
}

struct sk_buff *drack_skb_from_buf(struct napi_struct *napi, const void *buf,
				   u32 len)
{
	u32 linear = min_t(u32, len, DRACK_RX_LINEAR);
	struct sk_buff *skb;
	int err;

	if (len <= DRACK_RX_LINEAR * 8) {
		skb = napi_alloc_skb(napi, len);
		if (skb)
			skb_put_data(skb, buf, len);
		return skb;
	}
	skb = alloc_skb_with_frags(NET_SKB_PAD + NET_IP_ALIGN + linear,
				   len - linear, PAGE_ALLOC_COSTLY_ORDER, &err,
				   GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, NET_SKB_PAD + NET_IP_ALIGN);
	skb_put(skb, linear);
	skb->data_len = len - linear;
	skb->len += len - linear;
	if (skb_store_bits(skb, 0, buf, len)) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

static void drack_rx_deliver(struct drack_dev *dd, u32 peer,
			     const struct drack_ref *ref)
{
	u32 len = le32_to_cpu(ref->len);
	struct sk_buff *skb;

	skb = drack_skb_from_buf(&dd->napi,
				 drack_pool_ptr(dd->pool, le64_to_cpu(ref->off)),
				 len);
	if (!skb) {
		dd->rx.alloc_fail++;
		return;
	}
	if (virtio_net_hdr_to_skb(skb, &ref->vnet, true)) {
		dd->rx.bad_desc++;
		dd->peer[peer].rx_bad++;
		kfree_skb(skb);
		return;
	}
	if (ref->vnet.flags & VIRTIO_NET_HDR_F_DATA_VALID)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb->protocol = eth_type_trans(skb, dd->ndev);
	dd->rx.packets++;
	dd->rx.bytes += len;
	dd->peer[peer].rx_packets++;
	dd->peer[peer].rx_bytes += len;
	napi_gro_receive(&dd->napi, skb);
}

/*
 * Consume up to @budget references from @peer; deliver them when
 * @deliver, else drop them. Returns how many were consumed.
 */
static int drack_rx_ring(struct drack_dev *dd, u32 peer, int budget,
			 bool deliver)
{
	struct drack_ring *r = &dd->ref_in[peer];
	struct drack_ring *ret = &dd->ret_out[peer];
	u32 cons, rprod, rold, space;
	bool alive, returnable, blocked = false;
	struct drack_ref ref;
	int n, done = 0;

	n = drack_ring_avail(r, &cons);
	if (n < 0) {
		dd->rx.bad_ring++;
		dd->peer[peer].rx_bad++;
		drack_ring_resync(r);
		return 0;
	}
	if (!n)
		return 0;
	alive = drack_rx_owner_alive(dd, peer);
	space = drack_ring_space(ret);
	rprod = drack_ring_prod(ret);
	rold = rprod;

	for (; done < n && done < budget; done++, cons++) {
		/* Never take a reference we could not hand back. */
		if (alive && !space) {
			blocked = true;
			break;
		}
		/* One copy out of shared memory: validate what we use. */
		memcpy(&ref, drack_ring_slot(r, cons), sizeof(ref));
		if (!drack_rx_valid(dd, peer, &ref, &returnable)) {
			dd->rx.bad_desc++;
			dd->peer[peer].rx_bad++;
		} else if (deliver) {
			dd->rx.refs++;
			drack_rx_deliver(dd, peer, &ref);
		} else {
			dd->rx.dropped++;
		}
		if (!returnable || !alive)
			continue;
		((struct drack_ret *)drack_ring_slot(ret, rprod))->off = ref.off;
		rprod++;
		space--;
	}
	drack_ring_consume(r, cons);
	/* The owner takes returns back lazily: wake it when we are stuck. */
	if ((rprod != rold && drack_ring_publish(ret, rold, rprod)) ||
	    blocked) {
		dd->rx.ret_doorbells++;
		drack_pool_kick(dd->pool, peer);
	}
	return done;
}

void drack_rx_drain_returns(struct drack_dev *dd)
{
	struct drack_ring *r;
	struct drack_ret *ret;
	u32 peer, cons;
	int n;

	/* Every ring, not just present peers: one that left returned ours. */
	for (peer = 0; peer < dd->nhosts; peer++) {
		if (peer == dd->host)
			continue;
		r = &dd->ret_in[peer];
		n = drack_ring_avail(r, &cons);
		if (n < 0) {
			dd->rx.bad_ring++;
			dd->peer[peer].rx_bad++;
			drack_ring_resync(r);
			continue;
		}
		for (; n > 0; n--, cons++) {
			ret = drack_ring_slot(r, cons);
			if (drack_buf_return(&dd->alloc,
					     le64_to_cpu(READ_ONCE(ret->off)),
					     peer))
				dd->rx.ret_bad++;
			else
				dd->rx.ret_ok++;
		}
		drack_ring_consume(r, cons);
	}
}

/* Interface down or leaving: hand back whatever peers queued to us. */
void drack_rx_drop_all(struct drack_dev *dd)
{
	u32 peer;
	u64 m;

	drack_for_each_peer(dd, peer, m)
		drack_rx_ring(dd, peer, INT_MAX, false);
}

void drack_rx_forget_peer(struct drack_dev *dd, u32 peer)
{
	struct drack_ring *r = &dd->ref_in[peer];

	drack_ring_consume(r, drack_ring_prod(r));
}

/* Do we still hold references to Buffers of live owners? */
bool drack_rx_holds_buffers(struct drack_dev *dd)
{
	u32 peer;
	u64 m;

	drack_for_each_peer(dd, peer, m)
		if (drack_ring_prod(&dd->ref_in[peer]) !=
		    drack_ring_cons(&dd->ref_in[peer]) &&
		    drack_rx_owner_alive(dd, peer))
			return true;
	return false;
}

bool drack_rx_pending(struct drack_dev *dd)
{
	u32 peer;
	u64 m;

	drack_for_each_peer(dd, peer, m)
		if (drack_ring_prod(&dd->ref_in[peer]) !=
		    drack_ring_cons(&dd->ref_in[peer]))
			return true;
	for (peer = 0; peer < dd->nhosts; peer++)
		if (peer != dd->host &&
		    drack_ring_prod(&dd->ret_in[peer]) !=
		    drack_ring_cons(&dd->ret_in[peer]))
			return true;
	return false;
}

/* Returns need a doorbell only when something waits for them. */
static bool drack_rx_want_returns(struct drack_dev *dd)
{
	u32 c;

	if (netif_queue_stopped(dd->ndev))
		return true;
	for (c = 0; c < DRACK_NR_CLASSES; c++)
		if (drack_alloc_low(&dd->alloc, c))
			return true;
	return false;
}

/*
 * Ask peers for a doorbell on their next entry; true if one came. A peer
 * whose return ring is full is left to the heartbeat poll, so one that
 * stops draining cannot keep us spinning.
 */
static bool drack_rx_arm(struct drack_dev *dd)
{
	bool pending = false;
	u32 peer;
	u64 m;

	drack_for_each_peer(dd, peer, m)
		if (drack_ring_arm(&dd->ref_in[peer]) &&
		    (drack_ring_space(&dd->ret_out[peer]) ||
		     !drack_rx_owner_alive(dd, peer)))
			pending = true;
	if (!drack_rx_want_returns(dd))
		return pending;
	for (peer = 0; peer < dd->nhosts; peer++)
		if (peer != dd->host)
			pending |= drack_ring_arm(&dd->ret_in[peer]);
	return pending;
}

int drack_napi_poll(struct napi_struct *napi, int budget)
{
	struct drack_dev *dd = container_of(napi, struct drack_dev, napi);
	u64 peers = READ_ONCE(dd->peers), before, m;
	int done = 0, i;

	/* A fenced or hung host leaves the pool alone. */
	if (unlikely(!drack_dev_active(dd))) {
		napi_complete_done(napi, 0);
		return 0;
	}

	spin_lock(&dd->rx_lock);
	drack_rx_drain_returns(dd);
	spin_unlock(&dd->rx_lock);
	/* Only now, with returns taken back, is a class really short. */
	drack_dev_request_sections(dd);

	/* Round robin: peers from rx_next on first, then those before it. */
	before = peers & (BIT_ULL(dd->rx_next) - 1);
	spin_lock(&dd->rx_lock);
	for (i = 0; i < 2; i++)
		for (m = i ? before : peers & ~before; m && done < budget;
		     m &= m - 1)
			done += drack_rx_ring(dd, __ffs64(m), budget - done,
					      true);
	dd->rx_next = (dd->rx_next + 1) % dd->nhosts;
	spin_unlock(&dd->rx_lock);

	drack_tx_maybe_wake(dd);
	if (done < budget && napi_complete_done(napi, done) &&
	    drack_rx_arm(dd))
		napi_schedule(napi);
	return done;
}
