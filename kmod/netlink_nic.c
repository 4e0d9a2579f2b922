// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NIC pool's commands: export and unexport a physical NIC of this
 * kernel, dump a pool's NIC table (with this netns' side of each NIC:
 * the physical device if it is here, the vNIC), and the fabric manager's
 * assignment of vNICs to hosts.
 *
 * Locking: RTNL first (export changes netdevs), then drack_pools_lock.
 */
#include <linux/etherdevice.h>
#include <net/rtnetlink.h>
#include "device.h"
#include "netlink.h"

/*
 * A netdev of the request's netns by the ifindex in nest @nest (host: the
 * drack netdev, nic: the physical NIC), under RTNL. *@attr: the ifindex.
 */
static struct net_device *drack_nl_dev(struct genl_info *info, int nest,
				       const struct nlattr **attr)
{
	int type = nest == DRACK_A_HOST ? DRACK_A_HOST_IFINDEX :
					  DRACK_A_NIC_IFINDEX;
	struct net_device *dev;

	*attr = DRACK_NL_ATTR(info, nest, type);
	if (!*attr) {
		if (nest == DRACK_A_HOST)
			NL_SET_ERR_MSG(info->extack, "missing drack interface");
		else
			NL_SET_ERR_MSG(info->extack,
				       "missing physical interface");
		drack_nl_miss(info->extack, info->attrs[nest], nest, type);
		return ERR_PTR(-EINVAL);
	}
	dev = __dev_get_by_index(genl_info_net(info), nla_get_u32(*attr));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, *attr, "no such interface");
		return ERR_PTR(-ENODEV);
	}
	return dev;
}

int drack_nl_nic_export_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net_device *rack, *lower;
	const struct nlattr *attr;
	struct drack_dev *dd;
	struct sk_buff *msg;
	void *hdr;
	int id;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	rack = drack_nl_dev(info, DRACK_A_HOST, &attr);
	if (IS_ERR(rack)) {
		id = PTR_ERR(rack);
		goto out;
	}
	if (rack->rtnl_link_ops != &drack_link_ops) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "not a drack interface");
		id = -EINVAL;
		goto out;
	}
	lower = drack_nl_dev(info, DRACK_A_NIC, &attr);
	if (IS_ERR(lower)) {
		id = PTR_ERR(lower);
		goto out;
	}
	dd = netdev_priv(rack);
	id = drack_xnic_export(dd, lower, info->extack);
	if (id < 0)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &drack_genl_family, 0,
				DRACK_CMD_NIC_EXPORT);
	if (!hdr ||
	    drack_nl_put_id(msg, DRACK_A_POOL, DRACK_A_POOL_ID, dd->pool->id) ||
	    drack_nl_put_id(msg, DRACK_A_NIC, DRACK_A_NIC_ID, id)) {
		id = -EMSGSIZE;	/* exported all the same; show tells */
		goto out;
	}
	genlmsg_end(msg, hdr);
	rtnl_unlock();
	return genlmsg_reply(msg, info);
out:
	rtnl_unlock();
	nlmsg_free(msg);
	return id;
}

int drack_nl_nic_unexport_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *attr;
	struct net_device *lower;
	struct drack_xnic *x;
	int err = 0;

	rtnl_lock();
	lower = drack_nl_dev(info, DRACK_A_NIC, &attr);
	if (IS_ERR(lower)) {
		err = PTR_ERR(lower);
		goto out;
	}
	x = drack_xnic_of(lower);
	if (!x) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "the interface is not exported");
		err = -ENOENT;
		goto out;
	}
	drack_xnic_unexport(x);
out:
	rtnl_unlock();
	return err;
}

/*
 * The pool of the fabric manager's request @info, with NIC @nic and host
 * @host in its tables (drack_pools_lock held), or an ERR_PTR, the extack
 * set.
 */
static struct drack_pool *drack_nl_fm_pair(struct genl_info *info,
					   const struct nlattr *na, u32 nic,
					   const struct nlattr *ha, u32 host)
{
	struct drack_pool *pool = drack_nl_fm_pool(info);

	if (IS_ERR(pool))
		return pool;
	if (nic >= pool->geo.max_nics) {
		NL_SET_ERR_MSG_ATTR(info->extack, na,
				    "NIC id beyond the pool's NIC table");
		return ERR_PTR(-ERANGE);
	}
	if (host >= pool->geo.max_hosts) {
		NL_SET_ERR_MSG_ATTR(info->extack, ha,
				    "host id beyond the pool's host table");
		return ERR_PTR(-ERANGE);
	}
	return pool;
}

int drack_nl_nic_assign_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *na, *ha, *ma;
	struct drack_nic_entry *e;
	struct drack_pool *pool;
	u32 nic, host, on;
	u8 mac[ETH_ALEN];
	u64 assigned;
	int err = 0;

	na = DRACK_NL_NEED(info, DRACK_A_NIC, DRACK_A_NIC_ID, "missing NIC id");
	ha = na ? DRACK_NL_NEED(info, DRACK_A_HOST, DRACK_A_HOST_ID,
				"missing host id") : NULL;
	if (!ha)
		return -EINVAL;
	if (!info->attrs[DRACK_A_ASSIGN]) {
		NL_SET_ERR_MSG(info->extack, "missing assign flag");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, DRACK_A_ASSIGN);
		return -EINVAL;
	}
	nic = nla_get_u32(na);
	host = nla_get_u32(ha);
	on = nla_get_u32(info->attrs[DRACK_A_ASSIGN]);

	mutex_lock(&drack_pools_lock);
	pool = drack_nl_fm_pair(info, na, nic, ha, host);
	if (IS_ERR(pool)) {
		err = PTR_ERR(pool);
		goto out;
	}
	if (on && drack_nic_state(pool, nic) == DRACK_NIC_FREE) {
		NL_SET_ERR_MSG_ATTR(info->extack, na,
				    "no NIC exported in that slot");
		err = -ENOENT;
		goto out;
	}
	/* The vNIC's MAC: the FM's, or the default; one of the host's. */
	drack_vnic_mac(mac, pool->id, host, nic);
	ma = DRACK_NL_ATTR(info, DRACK_A_VNIC, DRACK_A_VNIC_MAC);
	if (ma)
		memcpy(mac, nla_data(ma), ETH_ALEN);
	if (on && !drack_vnic_mac_ok(mac, host)) {
		NL_SET_ERR_MSG_ATTR(info->extack, ma,
				    "a vNIC MAC is 02:44:4e, any byte, the host id, any byte");
		err = -EINVAL;
		goto out;
	}
	e = drack_nic_entry(pool, nic);
	mutex_lock(&pool->lock);
	if (on) {
		memcpy(drack_vq_ctl(pool, nic, host)->mac, mac, ETH_ALEN);
		smp_wmb();	/* the MAC before the bit the host acts on */
	}
	assigned = le64_to_cpu(READ_ONCE(e->assigned));
	if (on)
		assigned |= BIT_ULL(host);
	else
		assigned &= ~BIT_ULL(host);
	WRITE_ONCE(e->assigned, cpu_to_le64(assigned));
	mutex_unlock(&pool->lock);
	drack_pool_nics_changed(pool);
	drack_pool_kick(pool, host);
out:
	mutex_unlock(&drack_pools_lock);
	return err;
}

int drack_nl_nic_steer_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *na, *ha, *sa;
	u32 nic, host, steer = 0, pool_id = 0;
	struct drack_vq_ctl *ctl;
	struct drack_pool *pool;
	bool changed = false;
	int err = 0;

	na = DRACK_NL_NEED(info, DRACK_A_NIC, DRACK_A_NIC_ID, "missing NIC id");
	ha = na ? DRACK_NL_NEED(info, DRACK_A_HOST, DRACK_A_HOST_ID,
				"missing host id") : NULL;
	if (!ha)
		return -EINVAL;
	nic = nla_get_u32(na);
	host = nla_get_u32(ha);
	sa = DRACK_NL_ATTR(info, DRACK_A_VNIC, DRACK_A_VNIC_STEER);

	mutex_lock(&drack_pools_lock);
	pool = drack_nl_fm_pair(info, na, nic, ha, host);
	if (IS_ERR(pool)) {
		err = PTR_ERR(pool);
		goto out;
	}
	if (sa) {
		steer = nla_get_u32(sa);
		if (steer >= pool->geo.max_nics) {
			NL_SET_ERR_MSG_ATTR(info->extack, sa,
					    "steer: NIC id beyond the pool's NIC table");
			err = -ERANGE;
			goto out;
		}
		steer++;
	}
	ctl = drack_vq_ctl(pool, nic, host);
	if (le16_to_cpu(READ_ONCE(ctl->steer)) == steer)
		goto out;	/* as it is: no event, no reroute */
	WRITE_ONCE(ctl->steer, cpu_to_le16(steer));
	drack_pool_nics_changed(pool);
	drack_pool_kick(pool, host);
	pool_id = pool->id;
	changed = true;
out:
	mutex_unlock(&drack_pools_lock);
	if (changed)
		drack_nl_nic_steer_notify(pool_id, nic, host, (int)steer - 1);
	return err;
}

/* This netns' view of @nic: the exported device, if it is here. */
static int drack_nl_fill_nic_local(struct sk_buff *skb, struct net *net,
				   struct drack_pool *pool, u32 nic)
{
	struct drack_xnic *x;
	struct drack_dev *dd;
	int err = 0;
	u32 h;

	rcu_read_lock();
	for (h = 0; h < pool->geo.max_hosts && !err; h++) {
		dd = drack_dev_of(rcu_dereference(pool->local[h]));
		if (!dd)
			continue;
		x = rcu_dereference(dd->nic.xnic[nic]);
		if (x && net_eq(dev_net(x->lower), net) &&
		    (nla_put_u32(skb, DRACK_A_NIC_IFINDEX, x->lower->ifindex) ||
		     nla_put_string(skb, DRACK_A_NIC_IFNAME, x->lower->name)))
			err = -EMSGSIZE;
	}
	rcu_read_unlock();
	return err;
}

/* This netns' vNIC of @nic, if any: a vnic nest after the nic one. */
static int drack_nl_fill_vnic(struct sk_buff *skb, struct net *net,
			      struct drack_pool *pool, u32 nic)
{
	u32 drops[DRACK_VQ_DROP_NR];
	u8 mac[ETH_ALEN];
	struct drack_vnic *vn;
	struct drack_dev *dd;
	struct nlattr *nest;
	int err = 0, steer;
	u32 h;

	rcu_read_lock();
	for (h = 0; h < pool->geo.max_hosts && !err; h++) {
		dd = drack_dev_of(rcu_dereference(pool->local[h]));
		if (!dd)
			continue;
		vn = rcu_dereference(dd->nic.vnic[nic]);
		if (!vn || !net_eq(dev_net(vn->ndev), net))
			continue;
		nest = nla_nest_start(skb, DRACK_A_VNIC);
		if (!nest ||
		    nla_put_u32(skb, DRACK_A_VNIC_HOST, h) ||
		    nla_put_u32(skb, DRACK_A_VNIC_IFINDEX, vn->ndev->ifindex) ||
		    nla_put_string(skb, DRACK_A_VNIC_IFNAME, vn->ndev->name) ||
		    nla_put_u32(skb, DRACK_A_VNIC_VIA, READ_ONCE(vn->via)) ||
		    nla_put_u32(skb, DRACK_A_VNIC_FAILOVERS,
				READ_ONCE(vn->st.failovers)))
			err = -EMSGSIZE;
		steer = drack_vnic_steer(pool, nic, h);
		if (!err && steer >= 0 &&
		    nla_put_u32(skb, DRACK_A_VNIC_STEER, steer))
			err = -EMSGSIZE;
		if (!err) {
			/* What the FM assigned, as owners serve it. */
			drack_vnic_assigned_mac(pool, nic, h, mac);
			drack_vnic_drops(vn, drops);
			if (nla_put(skb, DRACK_A_VNIC_MAC, ETH_ALEN, mac) ||
			    nla_put_u32(skb, DRACK_A_VNIC_DROPS_SPOOFED,
					drops[DRACK_VQ_DROP_SPOOFED]) ||
			    nla_put_u32(skb, DRACK_A_VNIC_DROPS_OVERSIZE,
					drops[DRACK_VQ_DROP_OVERSIZE]) ||
			    nla_put_u32(skb, DRACK_A_VNIC_DROPS_LINK_LOCAL,
					drops[DRACK_VQ_DROP_LINK_LOCAL]) ||
			    nla_put_u32(skb, DRACK_A_VNIC_DROPS_FILTERED,
					drops[DRACK_VQ_DROP_FILTERED]))
				err = -EMSGSIZE;
		}
		if (!err)
			nla_nest_end(skb, nest);
	}
	rcu_read_unlock();
	return err;
}

/*
 * What each host the NIC is assigned to posts to it (the FM's demand
 * view): the bytes its TX ring's producer published and the frames
 * waiting there. Telemetry from the pool: reported, not trusted; the
 * frames count is capped at the ring size.
 */
static int drack_nl_fill_demand(struct sk_buff *skb, struct drack_pool *pool,
				u32 nic, u64 assigned)
{
	const struct drack_geometry *g = &pool->geo;
	struct drack_ring_hdr *hdr;
	struct nlattr *nest;
	u32 h, queued;

	for (h = 0; h < g->max_hosts && h < 64; h++) {
		if (!(assigned & BIT_ULL(h)))
			continue;
		hdr = drack_pool_ptr(pool, drack_vq_tx_off(g, nic, h));
		queued = le32_to_cpu(READ_ONCE(hdr->prod)) -
			 le32_to_cpu(READ_ONCE(hdr->cons));
		nest = nla_nest_start(skb, DRACK_A_NIC_DEMAND);
		if (!nest ||
		    nla_put_u32(skb, DRACK_A_DEMAND_HOST, h) ||
		    nla_put_u64_64bit(skb, DRACK_A_DEMAND_TX_BYTES,
				      le64_to_cpu(READ_ONCE(hdr->bytes)),
				      DRACK_A_DEMAND_PAD) ||
		    nla_put_u32(skb, DRACK_A_DEMAND_QUEUED,
				min(queued, g->vq_ring_entries)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int drack_nl_fill_nic(struct sk_buff *skb, struct netlink_callback *cb,
			     struct drack_pool *pool, u32 nic)
{
	struct drack_nic_entry *e = drack_nic_entry(pool, nic);
	u32 state = drack_nic_state(pool, nic);
	struct net *net = sock_net(cb->skb->sk);
	struct nlattr *nest;
	u8 mac[ETH_ALEN];
	void *hdr;

	if (state == DRACK_NIC_FREE)
		return 0;
	memcpy(mac, e->mac, ETH_ALEN);
	hdr = drack_nl_put_dump(skb, cb, DRACK_CMD_NIC_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (drack_nl_put_id(skb, DRACK_A_POOL, DRACK_A_POOL_ID, pool->id))
		goto cancel;
	nest = nla_nest_start(skb, DRACK_A_NIC);
	if (!nest ||
	    nla_put_u32(skb, DRACK_A_NIC_ID, nic) ||
	    nla_put_u32(skb, DRACK_A_NIC_STATE, state) ||
	    nla_put_u32(skb, DRACK_A_NIC_OWNER,
			le16_to_cpu(READ_ONCE(e->owner))) ||
	    nla_put(skb, DRACK_A_NIC_MAC, ETH_ALEN, mac) ||
	    nla_put_u32(skb, DRACK_A_NIC_GENERATION,
			le32_to_cpu(READ_ONCE(e->generation))) ||
	    nla_put_u32(skb, DRACK_A_NIC_RATE,
			le32_to_cpu(READ_ONCE(e->rate_mbps))) ||
	    nla_put_u64_64bit(skb, DRACK_A_NIC_ASSIGNED,
			      le64_to_cpu(READ_ONCE(e->assigned)),
			      DRACK_A_NIC_PAD) ||
	    nla_put_u64_64bit(skb, DRACK_A_NIC_TX_BYTES,
			      le64_to_cpu(READ_ONCE(e->tx_bytes)),
			      DRACK_A_NIC_PAD) ||
	    nla_put_u64_64bit(skb, DRACK_A_NIC_RX_BYTES,
			      le64_to_cpu(READ_ONCE(e->rx_bytes)),
			      DRACK_A_NIC_PAD) ||
	    nla_put_u32(skb, DRACK_A_NIC_QUEUE_DEPTH,
			le32_to_cpu(READ_ONCE(e->queue_depth))) ||
	    nla_put_u64_64bit(skb, DRACK_A_NIC_DROPS,
			      le64_to_cpu(READ_ONCE(e->drops)),
			      DRACK_A_NIC_PAD) ||
	    nla_put_u64_64bit(skb, DRACK_A_NIC_WIRE_TX_BYTES,
			      le64_to_cpu(READ_ONCE(e->wire_tx_bytes)),
			      DRACK_A_NIC_PAD) ||
	    drack_nl_fill_nic_local(skb, net, pool, nic))
		goto cancel;
	/* Per-host traffic: the fabric manager's business, not a tenant's. */
	if (netlink_capable(cb->skb, CAP_NET_ADMIN) &&
	    drack_nl_fill_demand(skb, pool, nic,
				 le64_to_cpu(READ_ONCE(e->assigned))))
		goto cancel;
	nla_nest_end(skb, nest);
	if (drack_nl_fill_vnic(skb, net, pool, nic))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int drack_nl_nic_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return drack_nl_pool_table_dump(skb, cb, drack_nl_fill_nic,
					DRACK_NL_NICS);
}
