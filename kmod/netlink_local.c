// SPDX-License-Identifier: GPL-2.0-only
/*
 * State only this kernel knows: the peers, Buffer classes and counters of
 * the drack netdevs in the caller's network namespace.
 */
#include <linux/netdevice.h>
#include "device.h"
#include "netlink.h"

/* Returns 0 (message added or nothing to say) or -EMSGSIZE. */
typedef int (*drack_nl_local_fill_t)(struct sk_buff *skb,
				     struct netlink_callback *cb,
				     struct drack_dev *dd, u32 item);

static void *drack_nl_local_hdr(struct sk_buff *skb,
				struct netlink_callback *cb,
				struct drack_dev *dd, u8 cmd)
{
	void *hdr = drack_nl_put_dump(skb, cb, cmd);
	struct nlattr *nest;

	if (!hdr)
		return NULL;
	if (drack_nl_put_id(skb, DRACK_A_POOL, DRACK_A_POOL_ID, dd->pool->id))
		goto cancel;
	nest = nla_nest_start(skb, DRACK_A_HOST);
	if (!nest ||
	    nla_put_u32(skb, DRACK_A_HOST_ID, dd->host) ||
	    nla_put_u32(skb, DRACK_A_HOST_IFINDEX, dd->ndev->ifindex) ||
	    nla_put_string(skb, DRACK_A_HOST_IFNAME, dd->ndev->name))
		goto cancel;
	nla_nest_end(skb, nest);
	return hdr;
cancel:
	genlmsg_cancel(skb, hdr);
	return NULL;
}

/*
 * The request's interface filter, host { ifindex }: 0 for all, else a
 * drack netdev. A host nest without ifindex (a host id only) is refused:
 * the dumps select local hosts by netdev.
 */
static int drack_nl_local_filter(struct netlink_callback *cb, u32 *ifindex)
{
	const struct nlattr *nest, *attr;
	struct net_device *dev;
	bool ok;

	*ifindex = 0;
	nest = drack_nl_dump_attr(cb, DRACK_A_HOST);
	if (!nest)
		return 0;
	attr = drack_nl_nested(nest, DRACK_A_HOST_IFINDEX);
	if (!attr) {
		NL_SET_ERR_MSG(cb->extack, "missing drack interface");
		drack_nl_miss(cb->extack, nest, DRACK_A_HOST,
			      DRACK_A_HOST_IFINDEX);
		return -EINVAL;
	}
	*ifindex = nla_get_u32(attr);
	rcu_read_lock();
	dev = dev_get_by_index_rcu(sock_net(cb->skb->sk), *ifindex);
	ok = dev && dev->rtnl_link_ops == &drack_link_ops;
	rcu_read_unlock();
	if (!ok) {
		NL_SET_ERR_MSG_ATTR(cb->extack, attr, "not a drack interface");
		return -ENODEV;
	}
	return 0;
}

/*
 * Walk pools, their local hosts and @nitems items per host.
 * cb->args[0..2]: position (pool, host, item); args[3]: ifindex filter;
 * args[4]: 1 once the filter was checked.
 */
static int drack_nl_local_dump(struct sk_buff *skb, struct netlink_callback *cb,
			       drack_nl_local_fill_t fill, u32 nitems)
{
	struct net *net = sock_net(cb->skb->sk);
	struct drack_pool *pool;
	struct drack_dev *dd;
	long pidx = 0;
	u32 ifindex, h, i;
	int err;

	if (!cb->args[4]) {
		err = drack_nl_local_filter(cb, &ifindex);
		if (err)
			return err;
		cb->args[3] = ifindex;
		cb->args[4] = 1;
	}
	ifindex = cb->args[3];

	mutex_lock(&drack_pools_lock);
	rcu_read_lock();
	list_for_each_entry(pool, &drack_pools, node) {
		if (pidx++ < cb->args[0])
			continue;
		for (h = cb->args[1]; h < pool->geo.max_hosts; h++) {
			dd = drack_dev_of(rcu_dereference(pool->local[h]));
			if (!dd || !net_eq(dev_net(dd->ndev), net) ||
			    (ifindex && dd->ndev->ifindex != ifindex))
				continue;
			for (i = cb->args[2]; i < nitems; i++) {
				if (fill(skb, cb, dd, i)) {
					cb->args[0] = pidx - 1;
					cb->args[1] = h;
					cb->args[2] = i;
					goto out;
				}
			}
			cb->args[2] = 0;
		}
		cb->args[1] = 0;
		cb->args[0] = pidx;
	}
out:
	rcu_read_unlock();
	mutex_unlock(&drack_pools_lock);
	return skb->len;
}

static int drack_nl_fill_peer(struct sk_buff *skb, struct netlink_callback *cb,
			      struct drack_dev *dd, u32 peer)
{
	u64 txp, txb, rxp, rxb, bad;
	struct nlattr *nest;
	u32 state;
	void *hdr;

	if (peer == dd->host || peer >= dd->nhosts)
		return 0;
	state = drack_host_state(dd->pool, peer);
	drack_peer_tx_read(&dd->peers[peer], &txp, &txb);
	drack_peer_stats_read(&dd->peers[peer].rx, &rxp, &rxb, &bad);
	if (state == DRACK_HOST_FREE && !(txp | rxp | bad))
		return 0;

	hdr = drack_nl_local_hdr(skb, cb, dd, DRACK_CMD_PEER_GET);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, DRACK_A_PEER);
	if (!nest ||
	    nla_put_u32(skb, DRACK_A_PEER_ID, peer) ||
	    nla_put_u32(skb, DRACK_A_PEER_STATE, state) ||
	    nla_put_u32(skb, DRACK_A_PEER_REACHABLE,
			drack_host_reachable(dd->pool, peer)) ||
	    nla_put_u64_64bit(skb, DRACK_A_PEER_TX_PACKETS, txp,
			      DRACK_A_PEER_PAD) ||
	    nla_put_u64_64bit(skb, DRACK_A_PEER_TX_BYTES, txb,
			      DRACK_A_PEER_PAD) ||
	    nla_put_u64_64bit(skb, DRACK_A_PEER_RX_PACKETS, rxp,
			      DRACK_A_PEER_PAD) ||
	    nla_put_u64_64bit(skb, DRACK_A_PEER_RX_BYTES, rxb,
			      DRACK_A_PEER_PAD) ||
	    nla_put_u64_64bit(skb, DRACK_A_PEER_RX_BAD, bad,
			      DRACK_A_PEER_PAD) ||
	    nla_put_u32(skb, DRACK_A_PEER_STALLED,
			READ_ONCE(dd->peers[peer].stalled))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

int drack_nl_peer_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return drack_nl_local_dump(skb, cb, drack_nl_fill_peer, DRACK_MAX_HOSTS);
}

static int drack_nl_fill_class(struct sk_buff *skb,
			       struct netlink_callback *cb,
			       struct drack_dev *dd, u32 buf_class)
{
	struct drack_class_counters c;
	struct nlattr *nest;
	void *hdr;

	drack_alloc_counters(&dd->alloc, buf_class, &c);
	hdr = drack_nl_local_hdr(skb, cb, dd, DRACK_CMD_CLASS_GET);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, DRACK_A_CLASS);
	if (!nest ||
	    nla_put_u32(skb, DRACK_A_CLASS_ID, buf_class) ||
	    nla_put_u32(skb, DRACK_A_CLASS_SECTIONS, c.sections) ||
	    nla_put_u32(skb, DRACK_A_CLASS_TOTAL, c.total) ||
	    nla_put_u32(skb, DRACK_A_CLASS_FREE, c.free) ||
	    nla_put_u32(skb, DRACK_A_CLASS_INFLIGHT, c.inflight) ||
	    nla_put_u32(skb, DRACK_A_CLASS_REQUESTED, c.requested) ||
	    nla_put_u32(skb, DRACK_A_CLASS_DRAINING, c.draining)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

int drack_nl_class_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return drack_nl_local_dump(skb, cb, drack_nl_fill_class,
				   DRACK_NR_CLASSES);
}

static int drack_nl_fill_stats(struct sk_buff *skb,
			       struct netlink_callback *cb,
			       struct drack_dev *dd, u32 item)
{
	struct nlattr *nest;
	u64 v[DRACK_S_NR];
	void *hdr;
	u32 i;

	drack_stats_fold(&dd->stats, v);
	hdr = drack_nl_local_hdr(skb, cb, dd, DRACK_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, DRACK_A_STATS);
	if (!nest)
		goto cancel;
	for (i = 0; i < DRACK_S_NR; i++)
		if (drack_stat_table[i].nl_attr &&
		    nla_put_u64_64bit(skb, drack_stat_table[i].nl_attr, v[i],
				      DRACK_STAT_UNSPEC))
			goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int drack_nl_stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return drack_nl_local_dump(skb, cb, drack_nl_fill_stats, 1);
}
