// SPDX-License-Identifier: GPL-2.0-only
/*
 * A pooled NIC as this host sees it (struct drack_nic_port): the host
 * side of the virt_queue pair of (NIC, this host). TX entries name
 * Buffers of ours lent to the NIC's owner, RX posts hand it empty Buffers
 * to fill, and RX completions say which were filled. The owner consumes in order, so
 * which Buffer each slot holds is known here, in kernel memory, and a
 * completion that names another Buffer is refused.
 */
#include <linux/etherdevice.h>
#include <linux/virtio_net.h>
#include "device.h"

#define DRACK_NIC_PORT_POSTS	128	/* RX Buffers kept posted */
#define DRACK_NIC_PORT_DETACH_MS	1000

static u32 drack_nic_port_mask(const struct drack_nic_port *vp)
{
	return vp->post.size - 1;
}

/* Post empty Buffers until DRACK_NIC_PORT_POSTS are out (rx_lock held). */
static void drack_nic_port_refill(struct drack_nic_port *vp)
{
	struct drack_dev *dd = vp->dd;
	struct drack_ret *slot;
	u32 want;
	u64 off;

	want = min_t(u32, DRACK_NIC_PORT_POSTS, vp->post.size);
	while (vp->post.idx - vp->posted_head < want) {
		off = drack_buf_get(&dd->alloc, DRACK_CLASS_2K, vp->owner);
		if (!off)
			break;
		vp->posted[vp->post.idx & drack_nic_port_mask(vp)] = off;
		slot = drack_ring_next(&vp->post);
		WRITE_ONCE(slot->off, cpu_to_le64(off));
		drack_ring_push(&vp->post);
	}
	WRITE_ONCE(vp->refill_short, want - (vp->post.idx - vp->posted_head));
	/* The owner takes posts as frames come: no doorbell. */
	drack_ring_flush(&vp->post);
	if (vp->refill_short && drack_alloc_low(&dd->alloc, DRACK_CLASS_2K))
		napi_schedule(drack_dev_napi(dd));	/* asks the FM for Sections */
}

/*
 * Give back TX Buffers the owner is done with (tx_lock held); returns
 * the free slots, and in @freed whether any Buffer went home. @publish:
 * the caller is about to publish our index.
 */
static u32 drack_nic_port_tx_clean(struct drack_nic_port *vp, bool publish,
				   bool *freed)
{
	u32 cons = drack_ring_consumed(&vp->tx), prod = vp->tx.idx;
	u32 shown = drack_ring_prod(&vp->tx), clean = vp->tx_clean;

	/*
	 * Consumed beyond what we produced: the owner took garbage off the
	 * ring (and dropped it). Our index moved under us: garbage is on
	 * the ring; the owner drops it when it looks, so a poll waits for
	 * that (the owner's index reaching it) unless we publish first.
	 * Either way what we produced is consumed too; go on from the
	 * owner's index.
	 */
	if (cons - clean > prod - clean ||
	    (shown != vp->tx.pub && (publish || cons == shown))) {
		*freed = clean != prod;
		for (; clean != prod; clean++)
			drack_buf_return(&vp->dd->alloc,
					 vp->tx_off[clean & (vp->tx.size - 1)],
					 vp->owner);
		drack_ring_resync_producer(&vp->tx, cons);
		WRITE_ONCE(vp->tx_clean, cons);	/* the poller reads it */
		drack_counter_inc(&vp->st, DRACK_PS_TX_BAD_RING);
		return vp->tx.size;
	}
	*freed = clean != cons;
	for (; clean != cons; clean++)
		drack_buf_return(&vp->dd->alloc,
				 vp->tx_off[clean & (vp->tx.size - 1)],
				 vp->owner);
	WRITE_ONCE(vp->tx_clean, clean);
	/* Counted in our own memory: the owner's index is read once. */
	return vp->tx.size - (vp->tx.idx - vp->tx_clean);
}

/*
 * -ENOSPC: the TX ring is full, the port's poll wakes the vNIC once the
 * owner consumed some. -ENOBUFS: no Buffer to lend the owner (none free,
 * or it holds its cap); the ring may have room, so waking on room would
 * only fail again: the vNIC waits until Buffers come back
 * (drack_nic_port_bufs_back()).
 */
int drack_nic_port_xmit(struct drack_nic_port *vp, struct sk_buff *skb)
{
	struct drack_dev *dd = vp->dd;
	struct virtio_net_hdr vnet;
	u32 len = skb->len, cls;
	struct drack_ref *ref;
	unsigned long flags;
	bool cleaned;
	int err = 0;
	u64 off;

	if (virtio_net_hdr_from_skb(skb, &vnet, true, true, 0))
		return -EINVAL;
	cls = drack_buf_class(len);
	spin_lock_irqsave(&vp->tx_lock, flags);
	if (!drack_nic_port_tx_clean(vp, true, &cleaned)) {
		err = -ENOSPC;
		goto out;
	}
	off = drack_buf_get(&dd->alloc, cls, vp->owner);
	if (!off) {
		if (drack_alloc_low(&dd->alloc, cls))
			napi_schedule(drack_dev_napi(dd));
		drack_nic_port_set_buf_wait(vp, vp->buf_wait | BIT(cls));
		err = -ENOBUFS;
		goto out;
	}
	if (skb_copy_bits(skb, 0, drack_pool_ptr(dd->pool, off), len)) {
		drack_buf_unget(&dd->alloc, off);
		err = -EFAULT;
		goto out;
	}
	vp->tx_off[vp->tx.idx & (vp->tx.size - 1)] = off;
	ref = drack_ring_next(&vp->tx);
	ref->off = cpu_to_le64(off);
	ref->len = cpu_to_le32(len);
	ref->src = cpu_to_le16(dd->host);
	ref->flags = 0;
	memcpy(&ref->vnet, &vnet, sizeof(vnet));
	drack_ring_push(&vp->tx);
	if (drack_ring_flush(&vp->tx))
		drack_pool_kick(dd->pool, vp->owner);
	drack_counter_inc(&vp->st, DRACK_PS_TX_PACKETS);
	drack_counter_add(&vp->st, DRACK_PS_TX_BYTES, len);
out:
	if (err == -ENOSPC || err == -ENOBUFS) {
		if (err == -ENOSPC) {
			drack_counter_inc(&vp->st, DRACK_PS_TX_FULL);
			WRITE_ONCE(vp->tx_wait, true);
		} else {
			drack_counter_inc(&vp->st, DRACK_PS_TX_NO_BUF);
		}
		/*
		 * The owner rings us when it has consumed some: that frees
		 * ring slots and the Buffers lent to it in them.
		 */
		WRITE_ONCE(vp->ctl->flags, cpu_to_le32(DRACK_VQ_F_TX_WAIT));
	}
	spin_unlock_irqrestore(&vp->tx_lock, flags);
	/*
	 * Buffers home: another vNIC may wait for them. Its full barrier
	 * on each such transmit is the price of not waiting for the
	 * heartbeat; small beside the copy of the frame.
	 */
	if (cleaned)
		drack_nic_port_bufs_back(dd);
	return err;
}

/*
 * Does @vn take multicast frame @dest: broadcast, a group it joined, or
 * it is allmulti (or promiscuous)? Exact, where the owner's filter hashes.
 */
static bool drack_nic_port_mc_wanted(struct drack_vnic *vn, const u8 *dest)
{
	struct net_device *ndev = vn->ndev;
	struct netdev_hw_addr *ha;
	bool found = false;

	if (is_broadcast_ether_addr(dest) ||
	    (READ_ONCE(ndev->flags) & (IFF_ALLMULTI | IFF_PROMISC)))
		return true;
	netif_addr_lock_bh(ndev);
	netdev_for_each_mc_addr(ha, ndev)
		if (ether_addr_equal(ha->addr, dest)) {
			found = true;
			break;
		}
	netif_addr_unlock_bh(ndev);
	return found;
}

/* Hand a received frame to the vNICs it is for (RCU, NAPI context). */
static void drack_nic_port_demux(struct drack_nic_port *vp, struct sk_buff *skb)
{
	struct drack_nic_host *nh = &vp->dd->nic;
	const u8 *dest = skb->data;
	struct drack_vnic *vn, *last = NULL;
	struct sk_buff *copy;
	bool mc_seen = false;
	u32 v;

	for (v = 0; v < DRACK_MAX_NICS; v++) {
		vn = rcu_dereference(nh->vnic[v]);
		if (!vn || rcu_access_pointer(vn->vp) != vp)
			continue;
		if (!is_multicast_ether_addr(dest)) {
			if (!ether_addr_equal(vn->ndev->dev_addr, dest))
				continue;
			drack_vnic_rx(vn, &vp->napi, skb);
			return;
		}
		mc_seen = true;
		if (!drack_nic_port_mc_wanted(vn, dest))
			continue;
		if (last) {
			copy = skb_clone(skb, GFP_ATOMIC);
			if (copy)
				drack_vnic_rx(last, &vp->napi, copy);
		}
		last = vn;
	}
	if (last) {
		drack_vnic_rx(last, &vp->napi, skb);
		return;
	}
	drack_counter_inc(&vp->st, mc_seen ? DRACK_PS_RX_FILTERED :
					     DRACK_PS_RX_NO_VNIC);
	kfree_skb(skb);
}

/*
 * Is @off the Buffer posted next? A later one means completions were lost
 * (garbage on the ring made us skip some): the owner consumed the posts
 * before it, so those Buffers come home and we go on from @off.
 */
static bool drack_nic_port_match(struct drack_nic_port *vp, u64 off, u32 pprod)
{
	u32 i, mask = drack_nic_port_mask(vp);

	for (i = vp->posted_head; i != pprod; i++)
		if (vp->posted[i & mask] == off)
			break;
	if (i == pprod)
		return false;
	for (; vp->posted_head != i; vp->posted_head++) {
		drack_buf_return(&vp->dd->alloc,
				 vp->posted[vp->posted_head & mask], vp->owner);
		drack_counter_inc(&vp->st, DRACK_PS_RX_BAD);
	}
	return true;
}

/* Take completed frames (rx_lock held); returns how many. */
static int drack_nic_port_rx(struct drack_nic_port *vp, int budget)
{
	struct drack_pool *pool = vp->dd->pool;
	u32 len, pprod = vp->post.idx;
	struct sk_buff *skb;
	struct drack_ref ref;
	int n, i;
	u64 off;

	n = drack_ring_avail(&vp->done);
	if (n < 0) {
		drack_counter_inc(&vp->st, DRACK_PS_RX_BAD);
		return 0;
	}
	n = min(n, budget);
	for (i = 0; i < n; i++) {
		memcpy(&ref, drack_ring_peek(&vp->done, i), sizeof(ref));
		off = le64_to_cpu(ref.off);
		len = le32_to_cpu(ref.len);
		if (!drack_nic_port_match(vp, off, pprod)) {
			drack_counter_inc(&vp->st, DRACK_PS_RX_BAD);	/* not a Buffer we posted */
			continue;
		}
		vp->posted_head++;
		if (len < ETH_HLEN || len > DRACK_CLASS_SIZE(DRACK_CLASS_2K)) {
			drack_counter_inc(&vp->st, DRACK_PS_RX_BAD);
			drack_buf_return(&vp->dd->alloc, off, vp->owner);
			continue;
		}
		skb = drack_skb_from_buf(&vp->napi, drack_pool_ptr(pool, off),
					 len);
		/* Copied: the Buffer goes back to the pool of ours. */
		drack_buf_return(&vp->dd->alloc, off, vp->owner);
		if (!skb) {
			drack_counter_inc(&vp->st, DRACK_PS_RX_ALLOC_FAIL);
			continue;
		}
		if (ref.vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE ||
		    virtio_net_hdr_to_skb(skb, &ref.vnet, true)) {
			drack_counter_inc(&vp->st, DRACK_PS_RX_BAD);
			kfree_skb(skb);
			continue;
		}
		if (ref.vnet.flags & VIRTIO_NET_HDR_F_DATA_VALID)
			skb->ip_summed = CHECKSUM_UNNECESSARY;
		drack_counter_inc(&vp->st, DRACK_PS_RX_PACKETS);
		drack_counter_add(&vp->st, DRACK_PS_RX_BYTES, len);
		drack_nic_port_demux(vp, skb);
	}
	if (n)
		drack_ring_consume(&vp->done, n);
	return n;
}

static int drack_nic_port_poll(struct napi_struct *napi, int budget)
{
	struct drack_nic_port *vp = container_of(napi, struct drack_nic_port, napi);
	struct drack_dev *dd = vp->dd;
	bool room, freed;
	int done;

	if (unlikely(!budget))	/* netpoll: see drack_napi_poll() */
		return 0;
	if (unlikely(!drack_dev_active(dd))) {
		napi_complete_done(napi, 0);
		return 0;
	}
	/* A NIC that went down or away: let the reconcile work reroute. */
	if (!drack_nic_usable(dd, vp->nic))
		drack_nic_changed(dd);

	/* The vNICs frames go to and wake (nh->vnic[]) are RCU-protected. */
	rcu_read_lock();
	spin_lock(&vp->rx_lock);
	done = drack_nic_port_rx(vp, budget);
	drack_nic_port_refill(vp);
	spin_unlock(&vp->rx_lock);

	spin_lock_irq(&vp->tx_lock);
	room = drack_nic_port_tx_clean(vp, false, &freed) >= vp->tx.size / 4;
	drack_nic_port_wake(vp, room);
	spin_unlock_irq(&vp->tx_lock);
	rcu_read_unlock();
	/* What the owner consumed may be what another port waits for. */
	drack_nic_port_bufs_back(dd);

	if (done < budget && napi_complete_done(napi, done) &&
	    drack_ring_arm(&vp->done))
		napi_schedule(napi);
	return done;
}

/* Which of our vNICs go through this NIC (RTNL). */
void drack_nic_port_set_vnics(struct drack_nic_port *vp, u64 vnics)
{
	WRITE_ONCE(vp->ctl->vnics, cpu_to_le64(vnics));
	drack_pool_kick(vp->dd->pool, vp->owner);	/* refresh its map */
}

u64 drack_nic_port_vnics(struct drack_nic_port *vp)
{
	return le64_to_cpu(READ_ONCE(vp->ctl->vnics));
}

struct drack_nic_port *drack_nic_port_attach(struct drack_dev *dd, u32 nic)
{
	struct drack_pool *pool = dd->pool;
	const struct drack_geometry *g = &pool->geo;
	struct drack_nic_entry *e = drack_nic_entry(pool, nic);
	u32 owner = le16_to_cpu(READ_ONCE(e->owner));
	struct drack_nic_port *vp;

	ASSERT_RTNL();
	if (owner >= dd->nhosts)
		return NULL;
	vp = kzalloc(sizeof(*vp), GFP_KERNEL);
	if (!vp)
		return NULL;
	if (drack_counters_init(&vp->st, DRACK_PS_NR)) {
		kfree(vp);
		return NULL;
	}
	vp->tx_off = kcalloc(g->vq_ring_entries, sizeof(u64), GFP_KERNEL);
	vp->posted = kcalloc(g->vq_ring_entries, sizeof(u64), GFP_KERNEL);
	if (!vp->tx_off || !vp->posted) {
		kfree(vp->tx_off);
		kfree(vp->posted);
		drack_counters_free(&vp->st);
		kfree(vp);
		return NULL;
	}
	vp->dd = dd;
	vp->nic = nic;
	vp->owner = owner;
	vp->gen = le32_to_cpu(READ_ONCE(e->generation));
	spin_lock_init(&vp->tx_lock);
	spin_lock_init(&vp->rx_lock);
	vp->ctl = drack_vq_ctl(pool, nic, dd->host);
	drack_ring_init(&vp->tx,
			drack_pool_ptr(pool, drack_vq_tx_off(g, nic, dd->host)),
			g->vq_ring_entries, sizeof(struct drack_ref));
	drack_ring_init(&vp->post,
			drack_pool_ptr(pool, drack_vq_post_off(g, nic, dd->host)),
			g->vq_ring_entries, sizeof(struct drack_ret));
	drack_ring_init(&vp->done,
			drack_pool_ptr(pool, drack_vq_done_off(g, nic, dd->host)),
			g->vq_ring_entries, sizeof(struct drack_ref));

	/*
	 * The owner does not serve us now: drop what a previous attach left
	 * (our producer indexes back to its consumer's, its completions
	 * skipped). The Buffers those named were taken back at detach.
	 */
	drack_ring_adopt_producer(&vp->tx, false);
	vp->tx_clean = vp->tx.idx;
	drack_ring_adopt_producer(&vp->post, false);
	vp->posted_head = vp->post.idx;
	drack_ring_adopt_consumer(&vp->done);
	WRITE_ONCE(vp->ctl->flags, 0);

	spin_lock_bh(&vp->rx_lock);
	drack_nic_port_refill(vp);
	spin_unlock_bh(&vp->rx_lock);

	WRITE_ONCE(vp->ctl->seq,
		   cpu_to_le32(le32_to_cpu(READ_ONCE(vp->ctl->seq)) + 1));
	smp_wmb();	/* rings and posts before the owner may look */
	WRITE_ONCE(vp->ctl->attached, cpu_to_le32(vp->gen));

	netif_napi_add(dd->ndev, &vp->napi, drack_nic_port_poll);
	napi_enable(&vp->napi);
	/* Counted before the slot is published (rcu_assign_pointer() orders). */
	WRITE_ONCE(dd->nic.busy_slots, dd->nic.busy_slots + 1);
	rcu_assign_pointer(dd->nic.vport[nic], vp);
	drack_pool_kick(pool, owner);
	return vp;
}

/* Every Buffer we track goes home: the owner no longer touches them. */
static void drack_nic_port_take_back(struct drack_nic_port *vp)
{
	struct drack_alloc *a = &vp->dd->alloc;
	u32 prod, clean;

	spin_lock_irq(&vp->tx_lock);
	prod = vp->tx.idx;
	for (clean = vp->tx_clean; clean != prod; clean++)
		drack_buf_return(a, vp->tx_off[clean & (vp->tx.size - 1)],
				 vp->owner);
	WRITE_ONCE(vp->tx_clean, prod);
	spin_unlock_irq(&vp->tx_lock);

	spin_lock_bh(&vp->rx_lock);
	prod = vp->post.idx;
	for (; vp->posted_head != prod; vp->posted_head++)
		drack_buf_return(a, vp->posted[vp->posted_head &
					       drack_nic_port_mask(vp)],
				 vp->owner);
	spin_unlock_bh(&vp->rx_lock);
}

/* Ports were freed (process context): what they lent may be awaited. */
static void drack_nic_port_freed(struct drack_dev *dd)
{
	local_bh_disable();
	drack_nic_port_bufs_back(dd);
	local_bh_enable();
}

static void drack_nic_port_free(struct drack_nic_port *vp)
{
	drack_nic_port_take_back(vp);
	kfree(vp->tx_off);
	kfree(vp->posted);
	drack_counters_free(&vp->st);
	kfree(vp);
}

/*
 * Detach (RTNL): no one reaches the port any more, and the owner is told.
 * With the owner alive its Buffers are taken back once it says it let go
 * of them, or after DRACK_NIC_PORT_DETACH_MS (drack_nic_port_reap(), a
 * work item, not under RTNL: pool contents never make RTNL wait); with
 * @owner_gone (fenced, or its export ended), at once. A Buffer the fence
 * path already took back is refused by drack_buf_return(), so none is
 * freed twice.
 */
void drack_nic_port_detach(struct drack_nic_port *vp, bool owner_gone)
{
	struct drack_dev *dd = vp->dd;
	struct drack_nic_host *nh = &dd->nic;

	ASSERT_RTNL();
	RCU_INIT_POINTER(nh->vport[vp->nic], NULL);
	WRITE_ONCE(nh->busy_slots, nh->busy_slots - 1);
	vp->detach_seq = le32_to_cpu(READ_ONCE(vp->ctl->seq));
	if (drack_dev_active(dd)) {
		WRITE_ONCE(vp->ctl->attached, 0);
		WRITE_ONCE(vp->ctl->vnics, 0);
		drack_pool_kick(dd->pool, vp->owner);
	}
	napi_disable(&vp->napi);
	netif_napi_del(&vp->napi);
	synchronize_net();
	spin_lock_irq(&vp->tx_lock);
	drack_nic_port_set_buf_wait(vp, 0);	/* its vNICs moved on */
	spin_unlock_irq(&vp->tx_lock);
	if (owner_gone || !drack_dev_active(dd)) {
		drack_nic_port_free(vp);
		drack_nic_port_freed(dd);
		return;
	}
	vp->detach_deadline = jiffies + msecs_to_jiffies(DRACK_NIC_PORT_DETACH_MS);
	spin_lock_bh(&nh->detach_lock);
	list_add_tail(&vp->detach_node, &nh->detaching);
	spin_unlock_bh(&nh->detach_lock);
	mod_delayed_work(system_wq, &nh->reap_work, msecs_to_jiffies(5));
}

/* Has the owner let go of what @vp lent it, or may we stop waiting? */
static bool drack_nic_port_let_go(struct drack_nic_port *vp)
{
	struct drack_dev *dd = vp->dd;

	return le32_to_cpu(READ_ONCE(vp->ctl->flushed)) == vp->detach_seq ||
	       drack_host_state(dd->pool, vp->owner) != DRACK_HOST_UP ||
	       !drack_dev_active(dd) ||
	       time_after(jiffies, vp->detach_deadline);
}

bool drack_nic_port_reap(struct drack_dev *dd, bool all)
{
	struct drack_nic_host *nh = &dd->nic;
	struct drack_nic_port *vp, *tmp;
	bool left, freed;
	LIST_HEAD(done);

	for (;;) {
		spin_lock_bh(&nh->detach_lock);
		list_for_each_entry_safe(vp, tmp, &nh->detaching, detach_node)
			if (drack_nic_port_let_go(vp))
				list_move_tail(&vp->detach_node, &done);
		left = !list_empty(&nh->detaching);
		spin_unlock_bh(&nh->detach_lock);
		freed = false;
		list_for_each_entry_safe(vp, tmp, &done, detach_node) {
			list_del(&vp->detach_node);
			drack_nic_port_free(vp);
			freed = true;
		}
		if (freed)
			drack_nic_port_freed(dd);
		if (!all || !left)
			return left;
		usleep_range(5000, 10000);
	}
}
