// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the owner of an exported NIC publishes with its heartbeat, for
 * the hosts' failover choices and the fabric manager's scheduling: the
 * NIC's queue depth, the bytes its vNICs moved, all it sent, its drops.
 */
#include <net/sch_generic.h>
#include "device.h"

/*
 * Packets waiting in the physical NIC's qdiscs (RCU-bh held): what the
 * wire has not taken yet, the vNICs' frames and the owner's own alike.
 * A racy read of counters; a load figure, not an account.
 */
static u32 drack_xnic_qdisc_len(struct net_device *dev)
{
	struct Qdisc *root = rcu_dereference_bh(dev->qdisc), *q;
	u32 i, len = 0;

	if (!root || (root->flags & TCQ_F_BUILTIN))
		return 0;
	/* One root shared by every TX queue (tbf, htb...) counts once. */
	if (!(root->flags & TCQ_F_MQROOT))
		return qdisc_qlen_sum(root);
	for (i = 0; i < dev->real_num_tx_queues; i++) {
		q = rcu_dereference_bh(netdev_get_tx_queue(dev, i)->qdisc_sleeping);
		if (q && !(q->flags & TCQ_F_BUILTIN))
			len += qdisc_qlen_sum(q);
	}
	return len;
}

/* Heartbeat: publish the load the FM and failover choices look at. */
void drack_xnic_tick(struct drack_xnic *x)
{
	struct drack_nic_entry *e = drack_nic_entry(x->dd->pool, x->id);
	struct rtnl_link_stats64 wire;
	u64 v[DRACK_XS_NR];
	u32 depth = 0, h;

	for (h = 0; h < x->dd->nhosts; h++)
		if (READ_ONCE(x->serving) & BIT_ULL(h))
			depth += min(drack_ring_prod(&x->hosts[h].tx) -
				     READ_ONCE(x->hosts[h].tx.idx),
				     x->hosts[h].tx.size);
	depth += drack_xnic_qdisc_len(x->lower);
	WRITE_ONCE(e->queue_depth, cpu_to_le32(depth));
	drack_counters_fold(&x->st, v);
	WRITE_ONCE(e->tx_bytes, cpu_to_le64(v[DRACK_XS_TX_BYTES]));
	WRITE_ONCE(e->rx_bytes, cpu_to_le64(v[DRACK_XS_RX_BYTES]));
	/*
	 * The owner's own traffic is wire_tx_bytes - tx_bytes. Some drivers
	 * read hardware for their stats: at most five times a second.
	 */
	if (time_after_eq(jiffies, x->wire_next)) {
		dev_get_stats(x->lower, &wire);
		WRITE_ONCE(e->wire_tx_bytes,
			   cpu_to_le64(wire.tx_bytes - x->wire_base));
		x->wire_next = jiffies + HZ / 5;
	}
	WRITE_ONCE(e->drops,
		   cpu_to_le64(v[DRACK_XS_RX_NO_BUFFER] +
			       v[DRACK_XS_TX_DROPPED] + v[DRACK_XS_TX_BAD] +
			       v[DRACK_XS_RX_BAD_POST] + v[DRACK_XS_TX_SPOOFED] +
			       v[DRACK_XS_TX_LINK_LOCAL] +
			       v[DRACK_XS_TX_OVERSIZE]));
	drack_xnic_publish_drops(x);
	/* Attaches, detaches and MAC changes noticed even if nobody rings. */
	WRITE_ONCE(x->scan_all, true);
	napi_schedule(&x->napi);
}
