// SPDX-License-Identifier: GPL-2.0-only
/*
 * The owner side of an exported NIC, standing in for a vNIC DMA engine:
 * an rx_handler copies frames for the rack's vNICs into Buffers their
 * hosts posted on RX virt_queues, and a NAPI moves the hosts' TX
 * virt_queues to the wire, round robin so that no host starves the
 * others. Every value read from the pool is checked before use.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/virtio_net.h>
#include "device.h"

#define DRACK_XNIC_QUANTUM	16	/* TX entries per host and round */

static rx_handler_result_t drack_xnic_rx_handler(struct sk_buff **pskb);

struct drack_xnic *drack_xnic_of(const struct net_device *lower)
{
	if (rcu_access_pointer(lower->rx_handler) != drack_xnic_rx_handler)
		return NULL;
	return rcu_dereference_rtnl(lower->rx_handler_data);
}

static u32 drack_xnic_state_now(struct net_device *lower)
{
	return netif_running(lower) && netif_carrier_ok(lower) ?
	       DRACK_NIC_UP : DRACK_NIC_DOWN;
}

static void drack_xnic_kick_served(struct drack_xnic *x)
{
	u64 m;

	for (m = READ_ONCE(x->serving); m; m &= m - 1)
		drack_pool_kick(x->dd->pool, __ffs64(m));
}

/* Stop serving @h: from now on its Buffers are not touched (rx_lock). */
static void drack_xnic_let_go(struct drack_xnic *x, u32 h)
{
	x->serving &= ~BIT_ULL(h);
	x->hosts[h].vnics = 0;
	WRITE_ONCE(x->hosts[h].ctl->flushed, cpu_to_le32(x->hosts[h].seq));
	drack_pool_kick(x->dd->pool, h);
}

/*
 * The hosts whose control lines matter: the present ones (as the tick
 * last saw them), ourselves, and those served, so that one that went is
 * let go. Not every slot: a poll's work follows the hosts there are;
 * the NIC tick has every slot looked at (attaches of hosts so new that
 * they are not present yet).
 */
static u64 drack_xnic_hosts(const struct drack_xnic *x)
{
	return READ_ONCE(x->dd->present) | BIT_ULL(x->dd->host) |
	       READ_ONCE(x->serving);
}

/*
 * Follow the hosts' control lines: who is attached, which of their vNICs
 * this NIC serves and with which MACs. Called from the NAPI (rx_lock held),
 * the only place that changes @serving and the MAC map.
 */
static void drack_xnic_refresh(struct drack_xnic *x)
{
	struct drack_pool *pool = x->dd->pool;
	u64 nics_mask = BIT_ULL(pool->geo.max_nics) - 1;
	u64 vn, m, hosts = drack_xnic_hosts(x);
	u32 h, state;

	/* A host that just joined is not present until our liveness tick. */
	if (READ_ONCE(x->scan_all)) {
		WRITE_ONCE(x->scan_all, false);
		hosts = GENMASK_ULL(x->dd->nhosts - 1, 0);
	}
	drack_for_each_in(hosts, h, m) {
		struct drack_vq_ctl *ctl = x->hosts[h].ctl;
		bool attached = le32_to_cpu(READ_ONCE(ctl->attached)) == x->gen;

		state = drack_host_state(pool, h);
		if (state != DRACK_HOST_UP && state != DRACK_HOST_LEAVING) {
			/* Dead or gone: its Buffers may be someone else's. */
			x->serving &= ~BIT_ULL(h);
			x->hosts[h].vnics = 0;
			continue;
		}
		if (!attached) {
			if (x->serving & BIT_ULL(h))
				drack_xnic_let_go(x, h);
			continue;
		}
		if (!(x->serving & BIT_ULL(h))) {
			/* The attach this stands for, echoed at let-go. */
			x->hosts[h].seq = le32_to_cpu(READ_ONCE(ctl->seq));
			x->serving |= BIT_ULL(h);
		}
		vn = le64_to_cpu(READ_ONCE(ctl->vnics)) & nics_mask;
		x->hosts[h].vnics = vn;
	}

	drack_xnic_refresh_map(x);
}

/* Copy a received frame into the next Buffer @h posted (rx_lock held). */
static void drack_xnic_deliver(struct drack_xnic *x, u32 h,
			       const struct sk_buff *skb)
{
	struct drack_pool *pool = x->dd->pool;
	struct drack_ring *post = &x->hosts[h].post, *done = &x->hosts[h].done;
	int mac_len = skb->data - skb_mac_header(skb);
	u32 len = skb->len + mac_len;
	struct virtio_net_hdr vnet = {};
	struct drack_ref *ref;
	int n, cls, space;
	u64 off;

	if (len > DRACK_CLASS_SIZE(DRACK_CLASS_2K) || mac_len < ETH_HLEN) {
		drack_counter_inc(&x->st, DRACK_XS_RX_TOO_BIG);
		return;
	}
	space = drack_ring_space(done);
	if (space < 0) {
		drack_counter_inc(&x->st, DRACK_XS_RX_BAD_POST);	/* its index on our completions */
		space = drack_ring_space(done);
	}
	n = drack_ring_avail(post);
	if (n < 0) {
		drack_counter_inc(&x->st, DRACK_XS_RX_BAD_POST);
		return;
	}
	if (!n || space <= 0) {
		drack_counter_inc(&x->st, DRACK_XS_RX_NO_BUFFER);
		return;
	}
	off = le64_to_cpu(READ_ONCE(((struct drack_ret *)
				     drack_ring_peek(post, 0))->off));
	drack_ring_consume(post, 1);
	cls = drack_nic_buf_class(pool, h, off);
	if (cls < 0) {
		drack_counter_inc(&x->st, DRACK_XS_RX_BAD_POST);
		return;
	}
	if (skb_copy_bits(skb, -mac_len, drack_pool_ptr(pool, off), len)) {
		drack_counter_inc(&x->st, DRACK_XS_RX_TOO_BIG);
		return;
	}
	if (skb->ip_summed == CHECKSUM_UNNECESSARY) {
		vnet.flags = VIRTIO_NET_HDR_F_DATA_VALID;
	} else if (skb->ip_summed == CHECKSUM_PARTIAL) {
		/* From a local sender (veth): the checksum is still to do. */
		vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vnet.csum_start = cpu_to_le16(skb_checksum_start_offset(skb) +
					      mac_len);
		vnet.csum_offset = cpu_to_le16(skb->csum_offset);
	}

	ref = drack_ring_next(done);
	ref->off = cpu_to_le64(off);
	ref->len = cpu_to_le32(len);
	ref->src = cpu_to_le16(x->dd->host);
	ref->flags = 0;
	memcpy(&ref->vnet, &vnet, sizeof(vnet));
	drack_ring_push(done);
	if (drack_ring_flush(done))
		drack_pool_kick(pool, h);
	drack_counter_inc(&x->st, DRACK_XS_RX_PACKETS);
	drack_counter_add(&x->st, DRACK_XS_RX_BYTES, len);
}

static rx_handler_result_t drack_xnic_rx_handler(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct drack_xnic *x = rcu_dereference(skb->dev->rx_handler_data);
	const u8 *dest = eth_hdr(skb)->h_dest;
	const struct drack_xnic_mac *m;
	u64 hosts;

	if (skb->pkt_type == PACKET_LOOPBACK || !drack_dev_active(x->dd))
		return RX_HANDLER_PASS;

	spin_lock(&x->rx_lock);
	if (is_multicast_ether_addr(dest)) {
		/* One copy per host; it hands it to its vNICs that joined. */
		for (hosts = drack_xnic_mc_hosts(x, dest); hosts;
		     hosts &= hosts - 1)
			drack_xnic_deliver(x, __ffs64(hosts), skb);
		spin_unlock(&x->rx_lock);
		return RX_HANDLER_PASS;
	}
	m = drack_xnic_lookup(x, dest);
	if (m)
		drack_xnic_deliver(x, m->host, skb);
	spin_unlock(&x->rx_lock);
	if (!m)
		return RX_HANDLER_PASS;
	consume_skb(skb);
	return RX_HANDLER_CONSUMED;
}

static void drack_xnic_tx_one(struct drack_xnic *x, u32 h,
			      const struct drack_ref *ref)
{
	struct drack_pool *pool = x->dd->pool;
	u64 off = le64_to_cpu(ref->off);
	u32 len = le32_to_cpu(ref->len);
	struct sk_buff *skb;
	const u8 *buf;
	int cls, rc;

	cls = drack_nic_buf_class(pool, h, off);
	if (cls < 0 || le16_to_cpu(ref->src) != h || len < ETH_HLEN ||
	    len > DRACK_CLASS_SIZE(cls)) {
		drack_counter_inc(&x->st, DRACK_XS_TX_BAD);
		return;
	}
	buf = drack_pool_ptr(pool, off);
	skb = drack_skb_from_buf(&x->napi, buf, len);
	if (!skb) {
		drack_counter_inc(&x->st, DRACK_XS_TX_DROPPED);
		return;
	}
	skb->dev = x->lower;
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb->protocol = eth_hdr(skb)->h_proto;
	if (virtio_net_hdr_to_skb(skb, &ref->vnet, true)) {
		drack_counter_inc(&x->st, DRACK_XS_TX_BAD);
		kfree_skb(skb);
		return;
	}
	/* Identity and size, on the copy: the Buffer may change meanwhile. */
	if (!drack_xnic_tx_allowed(x, h, skb)) {
		kfree_skb(skb);
		return;
	}
	/*
	 * Counted if the NIC's queue took it: the FM rates the NIC by it.
	 * (net_xmit_eval() is a macro that evaluates its argument twice.)
	 */
	rc = dev_queue_xmit(skb);
	if (net_xmit_eval(rc)) {
		drack_counter_inc(&x->st, DRACK_XS_TX_DROPPED);
		return;
	}
	drack_counter_inc(&x->st, DRACK_XS_TX_PACKETS);
	drack_counter_add(&x->st, DRACK_XS_TX_BYTES, len);
}

static int drack_xnic_tx_host(struct drack_xnic *x, u32 h, int quota)
{
	struct drack_ring *r = &x->hosts[h].tx;
	struct drack_ref ref;
	bool bad;
	int n, i;

	n = drack_ring_avail(r);
	bad = n < 0;
	if (bad) {
		drack_counter_inc(&x->st, DRACK_XS_TX_BAD);
		n = 0;
	}
	n = min(n, quota);
	for (i = 0; i < n; i++) {
		memcpy(&ref, drack_ring_peek(r, i), sizeof(ref));
		drack_xnic_tx_one(x, h, &ref);
	}
	if (n)
		drack_ring_consume(r, n);
	/* Room made, or a bad index moved ours back: a waiting host looks. */
	if ((n || bad) && (le32_to_cpu(READ_ONCE(x->hosts[h].ctl->flags)) &
			   DRACK_VQ_F_TX_WAIT))
		drack_pool_kick(x->dd->pool, h);
	return n;
}

static bool drack_xnic_arm(struct drack_xnic *x)
{
	bool pending = false;
	u64 m;

	for (m = x->serving; m; m &= m - 1)
		pending |= drack_ring_arm(&x->hosts[__ffs64(m)].tx);
	return pending;
}

static int drack_xnic_poll(struct napi_struct *napi, int budget)
{
	struct drack_xnic *x = container_of(napi, struct drack_xnic, napi);
	u32 nhosts = x->dd->nhosts, h, i;
	int done = 0, n;
	bool more = true;

	if (unlikely(!budget))	/* netpoll: see drack_napi_poll() */
		return 0;
	if (unlikely(!drack_dev_active(x->dd))) {
		napi_complete_done(napi, 0);
		return 0;
	}
	spin_lock(&x->rx_lock);
	drack_xnic_refresh(x);
	spin_unlock(&x->rx_lock);
	/* Fault injection: the owner reads no host's TX ring either. */
	if (unlikely(READ_ONCE(x->dd->deaf))) {
		napi_complete_done(napi, 0);
		return 0;
	}

	while (more && done < budget) {
		more = false;
		for (i = 0; i < nhosts && done < budget; i++) {
			h = (x->next + i) % nhosts;
			if (!(x->serving & BIT_ULL(h)))
				continue;
			n = drack_xnic_tx_host(x, h,
					       min(DRACK_XNIC_QUANTUM,
						   budget - done));
			done += n;
			more |= n == DRACK_XNIC_QUANTUM;
		}
	}
	x->next = (x->next + 1) % nhosts;

	if (done < budget && napi_complete_done(napi, done) &&
	    drack_xnic_arm(x))
		napi_schedule(napi);
	return done;
}

bool drack_xnic_pending(struct drack_xnic *x)
{
	u64 m;
	u32 h;

	drack_for_each_in(drack_xnic_hosts(x), h, m) {
		bool attached = le32_to_cpu(READ_ONCE(x->hosts[h].ctl->attached)) ==
				x->gen;

		if (attached != !!(READ_ONCE(x->serving) & BIT_ULL(h)))
			return true;
		if (attached && drack_ring_pending(&x->hosts[h].tx))
			return true;
	}
	return false;
}

/* The physical link went up or down: tell the hosts at once. */
void drack_xnic_link_changed(struct drack_xnic *x)
{
	struct drack_nic_entry *e = drack_nic_entry(x->dd->pool, x->id);
	u32 state = drack_xnic_state_now(x->lower);

	if (le32_to_cpu(READ_ONCE(e->state)) == state)
		return;
	WRITE_ONCE(e->state, cpu_to_le32(state));
	netdev_info(x->dd->ndev, "exported NIC %s (nic %u) is %s\n",
		    x->lower->name, x->id, state == DRACK_NIC_UP ? "up" : "down");
	drack_xnic_kick_served(x);
	drack_pool_nics_changed(x->dd->pool);
	drack_pool_notify_nic(x->dd->pool, x->id);
}

static u32 drack_xnic_rate(struct net_device *lower)
{
	struct ethtool_link_ksettings ks;

	if (__ethtool_get_link_ksettings(lower, &ks) ||
	    ks.base.speed == (u32)SPEED_UNKNOWN)
		return 0;
	return ks.base.speed;
}

/*
 * A slot for @lower: the one this host had for the same NIC (export
 * again, or after a rejoin), else a free one claimed by compare and
 * exchange. Returns the slot or -ENOSPC.
 */
static int drack_xnic_claim(struct drack_dev *dd, struct net_device *lower)
{
	struct drack_pool *pool = dd->pool;
	u32 n, free_state = cpu_to_le32(DRACK_NIC_FREE);
	struct drack_nic_entry *e;

	for (n = 0; n < pool->geo.max_nics; n++) {
		e = drack_nic_entry(pool, n);
		if (drack_nic_state(pool, n) != DRACK_NIC_FREE &&
		    le16_to_cpu(READ_ONCE(e->owner)) == dd->host &&
		    ether_addr_equal(e->mac, lower->dev_addr) &&
		    !rtnl_dereference(dd->nic.xnic[n]))
			return n;
	}
	for (n = 0; n < pool->geo.max_nics; n++) {
		e = drack_nic_entry(pool, n);
		if (cmpxchg((u32 *)&e->state, free_state,
			    cpu_to_le32(DRACK_NIC_DOWN)) == free_state) {
			WRITE_ONCE(e->assigned, 0);
			return n;
		}
	}
	return -ENOSPC;
}

int drack_xnic_export(struct drack_dev *dd, struct net_device *lower,
		      struct netlink_ext_ack *extack)
{
	struct drack_pool *pool = dd->pool;
	const struct drack_geometry *g = &pool->geo;
	struct rtnl_link_stats64 wire;
	struct drack_nic_entry *e;
	struct drack_xnic *x;
	int id, err;
	u32 h, gen;

	ASSERT_RTNL();
	if (!g->max_nics) {
		NL_SET_ERR_MSG(extack, "the pool has no NIC table (format version 1): format it again");
		return -EOPNOTSUPP;
	}
	if (lower->type != ARPHRD_ETHER || lower->addr_len != ETH_ALEN ||
	    (lower->flags & IFF_LOOPBACK)) {
		NL_SET_ERR_MSG(extack, "only Ethernet devices can be exported");
		return -EINVAL;
	}
	if (lower->rtnl_link_ops == &drack_link_ops || drack_is_vnic(lower)) {
		NL_SET_ERR_MSG(extack, "drack's own devices cannot be exported");
		return -EINVAL;
	}
	if (!drack_dev_active(dd) || dd->leaving || dd->nic.dying) {
		NL_SET_ERR_MSG(extack, "the drack device is not an active member of its pool");
		return -ENETDOWN;
	}
	if (netdev_is_rx_handler_busy(lower)) {
		if (drack_xnic_of(lower))
			NL_SET_ERR_MSG(extack, "the device is exported already");
		else
			NL_SET_ERR_MSG(extack, "the device has an rx handler already (bridge, bond, macvlan...)");
		return -EBUSY;
	}

	x = kvzalloc(sizeof(*x), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	if (drack_counters_init(&x->st, DRACK_XS_NR)) {
		kvfree(x);
		return -ENOMEM;
	}
	id = drack_xnic_claim(dd, lower);
	if (id < 0) {
		drack_counters_free(&x->st);
		kvfree(x);
		NL_SET_ERR_MSG(extack, "the pool's NIC table is full");
		return id;
	}
	x->dd = dd;
	x->lower = lower;
	x->id = id;
	spin_lock_init(&x->rx_lock);
	for (h = 0; h < g->max_hosts; h++) {
		struct drack_xnic_host *xh = &x->hosts[h];

		xh->ctl = drack_vq_ctl(pool, id, h);
		drack_ring_init(&xh->tx,
				drack_pool_ptr(pool, drack_vq_tx_off(g, id, h)),
				g->vq_ring_entries, sizeof(struct drack_ref));
		drack_ring_init(&xh->post,
				drack_pool_ptr(pool, drack_vq_post_off(g, id, h)),
				g->vq_ring_entries, sizeof(struct drack_ret));
		drack_ring_init(&xh->done,
				drack_pool_ptr(pool, drack_vq_done_off(g, id, h)),
				g->vq_ring_entries, sizeof(struct drack_ref));
		drack_ring_reset(&xh->tx);
		drack_ring_reset(&xh->post);
		drack_ring_reset(&xh->done);
	}

	e = drack_nic_entry(pool, id);
	gen = le32_to_cpu(READ_ONCE(e->generation)) + 1;
	x->gen = gen ? gen : 1;
	e->owner = cpu_to_le16(dd->host);
	memcpy(e->mac, lower->dev_addr, ETH_ALEN);
	e->rate_mbps = cpu_to_le32(drack_xnic_rate(lower));
	e->queue_depth = 0;
	e->tx_bytes = 0;
	e->rx_bytes = 0;
	e->drops = 0;
	/* From 0 at every export, like tx_bytes: no jump for the FM. */
	x->wire_base = dev_get_stats(lower, &wire)->tx_bytes;
	x->wire_next = jiffies;
	e->wire_tx_bytes = 0;
	/* Rings reset before hosts may attach to the new generation. */
	smp_wmb();
	WRITE_ONCE(e->generation, cpu_to_le32(x->gen));

	netif_napi_add(dd->ndev, &x->napi, drack_xnic_poll);
	napi_enable(&x->napi);
	err = netdev_rx_handler_register(lower, drack_xnic_rx_handler, x);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot attach to the device");
		goto err_napi;
	}
	/* vNIC MACs arrive on this port; frames must be MTU sized. */
	err = dev_set_promiscuity(lower, 1);
	if (err)
		goto err_handler;
	dev_disable_lro(lower);
	if (lower->wanted_features & NETIF_F_GRO) {
		x->gro_was_on = true;
		lower->wanted_features &= ~NETIF_F_GRO;
		netdev_update_features(lower);
	}
	netdev_hold(lower, &x->lower_tracker, GFP_KERNEL);
	/* Counted before the slot is published (rcu_assign_pointer() orders). */
	WRITE_ONCE(dd->nic.busy_slots, dd->nic.busy_slots + 1);
	rcu_assign_pointer(dd->nic.xnic[id], x);
	WRITE_ONCE(e->state, cpu_to_le32(drack_xnic_state_now(lower)));
	netdev_info(dd->ndev, "exported %s as NIC %u of pool %u (generation %u)\n",
		    lower->name, id, pool->id, x->gen);
	drack_pool_nics_changed(pool);
	drack_pool_notify_nic(pool, id);
	return id;

err_handler:
	netdev_rx_handler_unregister(lower);
err_napi:
	napi_disable(&x->napi);
	netif_napi_del(&x->napi);
	WRITE_ONCE(e->state, cpu_to_le32(DRACK_NIC_FREE));
	drack_counters_free(&x->st);
	kvfree(x);
	return err;
}

void drack_xnic_unexport(struct drack_xnic *x)
{
	struct drack_dev *dd = x->dd;
	struct drack_pool *pool = dd->pool;
	struct drack_nic_entry *e = drack_nic_entry(pool, x->id);
	bool writes = drack_dev_active(dd);
	u32 h;

	ASSERT_RTNL();
	if (writes)
		WRITE_ONCE(e->state, cpu_to_le32(DRACK_NIC_DOWN));
	drack_xnic_kick_served(x);
	netdev_rx_handler_unregister(x->lower);	/* synchronize_net() */
	napi_disable(&x->napi);
	netif_napi_del(&x->napi);
	RCU_INIT_POINTER(dd->nic.xnic[x->id], NULL);
	WRITE_ONCE(dd->nic.busy_slots, dd->nic.busy_slots - 1);
	synchronize_net();

	/* No frame is copied any more: hosts may take their Buffers back. */
	if (writes) {
		for (h = 0; h < dd->nhosts; h++)
			if (x->serving & BIT_ULL(h))
				drack_xnic_let_go(x, h);
		WRITE_ONCE(e->assigned, 0);
		WRITE_ONCE(e->state, cpu_to_le32(DRACK_NIC_FREE));
	}
	dev_set_promiscuity(x->lower, -1);
	if (x->gro_was_on) {
		x->lower->wanted_features |= NETIF_F_GRO;
		netdev_update_features(x->lower);
	}
	netdev_info(dd->ndev, "NIC %u (%s) no longer exported\n", x->id,
		    x->lower->name);
	netdev_put(x->lower, &x->lower_tracker);
	drack_pool_nics_changed(pool);
	drack_pool_notify_nic(pool, x->id);
	drack_counters_free(&x->st);
	kvfree(x);
}
