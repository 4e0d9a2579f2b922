// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The NIC pool: DRACK_CMD_NIC_EXPORT and DRACK_CMD_NIC_UNEXPORT (a local
 * host lends a physical NIC to its pool, and takes it back),
 * DRACK_CMD_NIC_GET (the exported NICs of a pool) and the fabric
 * manager's DRACK_CMD_NIC_ASSIGN (give a host a vNIC of a NIC).
 */
#include <errno.h>
#include <string.h>
#include "internal.h"

struct dl_nic_walk {
	uint32_t pool;
	drack_nic_cb cb;
	void *arg;
};

/* The nic nest's demand nests (several of the same type). */
static void dl_nic_demand(const struct nlattr *nest, struct drack_nic_info *n)
{
	struct nlattr *dt[DRACK_A_DEMAND_MAX + 1], *a;
	int rem;

	if (!nest)
		return;
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != DRACK_A_NIC_DEMAND ||
		    n->ndemand >= sizeof(n->demand) / sizeof(n->demand[0]) ||
		    nla_parse_nested(dt, DRACK_A_DEMAND_MAX, a, NULL) < 0 ||
		    !dt[DRACK_A_DEMAND_HOST])
			continue;
		n->demand[n->ndemand].host = nla_get_u32(dt[DRACK_A_DEMAND_HOST]);
		n->demand[n->ndemand].tx_bytes = dt[DRACK_A_DEMAND_TX_BYTES] ?
			nla_get_u64(dt[DRACK_A_DEMAND_TX_BYTES]) : 0;
		n->demand[n->ndemand].queued = dt[DRACK_A_DEMAND_QUEUED] ?
			nla_get_u32(dt[DRACK_A_DEMAND_QUEUED]) : 0;
		n->ndemand++;
	}
}

static int dl_nic_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *top[DRACK_A_MAX + 1], *pt[DRACK_A_POOL_MAX + 1];
	struct nlattr *tb[DRACK_A_NIC_MAX + 1], *vt[DRACK_A_VNIC_MAX + 1];
	struct dl_nic_walk *w = arg;
	struct drack_nic_info n;

	if (dl_attrs(nlh, top) || dl_nest(top, DRACK_A_POOL, pt) ||
	    dl_nest(top, DRACK_A_NIC, tb) || dl_nest(top, DRACK_A_VNIC, vt))
		return -EPROTO;
	memset(&n, 0, sizeof(n));
	n.pool = pt[DRACK_A_POOL_ID] ? dl_u32(pt, DRACK_A_POOL_ID) : w->pool;
	n.id = dl_u32(tb, DRACK_A_NIC_ID);
	n.state = dl_u32(tb, DRACK_A_NIC_STATE);
	n.owner = dl_u32(tb, DRACK_A_NIC_OWNER);
	if (tb[DRACK_A_NIC_MAC])
		memcpy(n.mac, nla_data(tb[DRACK_A_NIC_MAC]), sizeof(n.mac));
	n.generation = dl_u32(tb, DRACK_A_NIC_GENERATION);
	n.rate = dl_u32(tb, DRACK_A_NIC_RATE);
	n.assigned = dl_u64(tb, DRACK_A_NIC_ASSIGNED);
	n.tx_bytes = dl_u64(tb, DRACK_A_NIC_TX_BYTES);
	n.rx_bytes = dl_u64(tb, DRACK_A_NIC_RX_BYTES);
	n.queue_depth = dl_u32(tb, DRACK_A_NIC_QUEUE_DEPTH);
	n.drops = dl_u64(tb, DRACK_A_NIC_DROPS);
	n.wire_tx_bytes = dl_u64(tb, DRACK_A_NIC_WIRE_TX_BYTES);
	n.ifindex = dl_u32(tb, DRACK_A_NIC_IFINDEX);
	dl_string(tb, DRACK_A_NIC_IFNAME, n.ifname, sizeof(n.ifname));
	n.vnic_ifindex = dl_u32(vt, DRACK_A_VNIC_IFINDEX);
	dl_string(vt, DRACK_A_VNIC_IFNAME, n.vnic_ifname,
		  sizeof(n.vnic_ifname));
	if (n.vnic_ifindex)
		n.vnic_host = dl_u32(vt, DRACK_A_VNIC_HOST);
	n.vnic_via = dl_u32(vt, DRACK_A_VNIC_VIA);
	n.vnic_failovers = dl_u32(vt, DRACK_A_VNIC_FAILOVERS);
	n.vnic_steer = vt[DRACK_A_VNIC_STEER] ?
		       (int32_t)dl_u32(vt, DRACK_A_VNIC_STEER) : -1;
	dl_nic_demand(top[DRACK_A_NIC], &n);
	if (vt[DRACK_A_VNIC_MAC])
		memcpy(n.vnic_mac, nla_data(vt[DRACK_A_VNIC_MAC]),
		       sizeof(n.vnic_mac));
	n.vnic_drops[DRACK_VQ_DROP_SPOOFED] =
		dl_u32(vt, DRACK_A_VNIC_DROPS_SPOOFED);
	n.vnic_drops[DRACK_VQ_DROP_OVERSIZE] =
		dl_u32(vt, DRACK_A_VNIC_DROPS_OVERSIZE);
	n.vnic_drops[DRACK_VQ_DROP_LINK_LOCAL] =
		dl_u32(vt, DRACK_A_VNIC_DROPS_LINK_LOCAL);
	n.vnic_drops[DRACK_VQ_DROP_FILTERED] =
		dl_u32(vt, DRACK_A_VNIC_DROPS_FILTERED);
	return w->cb(&n, w->arg);
}

int drack_nic_list(struct drack_nl *nl, uint32_t pool, drack_nic_cb cb,
		   void *arg)
{
	struct dl_nic_walk w = { .pool = pool, .cb = cb, .arg = arg };
	struct nl_msg *msg = dl_msg(nl, DRACK_CMD_NIC_GET, NLM_F_DUMP);

	if (!msg)
		return -ENOMEM;
	if (dl_put_id(msg, DRACK_A_POOL, DRACK_A_POOL_ID, pool) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return dl_txn(nl->sk, msg, dl_nic_parse, &w, NULL, 0);
}

struct dl_nic_export {
	uint32_t *pool, *nic;
};

static int dl_nic_export_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *top[DRACK_A_MAX + 1], *pt[DRACK_A_POOL_MAX + 1];
	struct nlattr *nt[DRACK_A_NIC_MAX + 1];
	struct dl_nic_export *x = arg;

	if (dl_attrs(nlh, top) || dl_nest(top, DRACK_A_POOL, pt) ||
	    dl_nest(top, DRACK_A_NIC, nt))
		return -EPROTO;
	if (x->pool && pt[DRACK_A_POOL_ID])
		*x->pool = dl_u32(pt, DRACK_A_POOL_ID);
	if (x->nic && nt[DRACK_A_NIC_ID])
		*x->nic = dl_u32(nt, DRACK_A_NIC_ID);
	return 0;
}

int drack_nic_export(struct drack_nl *nl, uint32_t ifindex,
		     uint32_t nic_ifindex, uint32_t *pool, uint32_t *nic,
		     char *errbuf, size_t errlen)
{
	struct dl_nic_export x = { .pool = pool, .nic = nic };
	struct nl_msg *msg;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (pool)
		*pool = UINT32_MAX;
	if (nic)
		*nic = UINT32_MAX;
	msg = dl_msg(nl, DRACK_CMD_NIC_EXPORT, 0);
	if (!msg)
		return -ENOMEM;
	if (dl_put_id(msg, DRACK_A_HOST, DRACK_A_HOST_IFINDEX, ifindex) < 0 ||
	    dl_put_id(msg, DRACK_A_NIC, DRACK_A_NIC_IFINDEX, nic_ifindex) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return dl_txn(nl->sk, msg, dl_nic_export_parse, &x, errbuf, errlen);
}

int drack_nic_unexport(struct drack_nl *nl, uint32_t nic_ifindex,
		       char *errbuf, size_t errlen)
{
	struct nl_msg *msg;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	msg = dl_msg(nl, DRACK_CMD_NIC_UNEXPORT, 0);
	if (!msg)
		return -ENOMEM;
	if (dl_put_id(msg, DRACK_A_NIC, DRACK_A_NIC_IFINDEX, nic_ifindex) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return dl_txn(nl->sk, msg, NULL, NULL, errbuf, errlen);
}

/* vnic { mac }: the MAC the fabric manager gives the vNIC. */
static int dl_put_vnic_mac(struct nl_msg *msg, const uint8_t *mac)
{
	struct nlattr *nest = nla_nest_start(msg, DRACK_A_VNIC | NLA_F_NESTED);

	if (!nest || nla_put(msg, DRACK_A_VNIC_MAC, 6, mac) < 0)
		return -ENOMEM;
	nla_nest_end(msg, nest);
	return 0;
}

int drack_nic_assign(struct drack_nl *nl, uint32_t pool, uint32_t nic,
		     uint32_t host, int assign, char *errbuf, size_t errlen)
{
	return drack_nic_assign_mac(nl, pool, nic, host, assign, NULL, errbuf,
				    errlen);
}

int drack_nic_assign_mac(struct drack_nl *nl, uint32_t pool, uint32_t nic,
			 uint32_t host, int assign, const uint8_t *mac,
			 char *errbuf, size_t errlen)
{
	struct nl_msg *msg;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	msg = dl_msg(nl, DRACK_CMD_NIC_ASSIGN, 0);
	if (!msg)
		return -ENOMEM;
	if (dl_put_id(msg, DRACK_A_POOL, DRACK_A_POOL_ID, pool) < 0 ||
	    dl_put_id(msg, DRACK_A_NIC, DRACK_A_NIC_ID, nic) < 0 ||
	    dl_put_id(msg, DRACK_A_HOST, DRACK_A_HOST_ID, host) < 0 ||
	    nla_put_u32(msg, DRACK_A_ASSIGN, assign ? 1 : 0) < 0 ||
	    (mac && dl_put_vnic_mac(msg, mac) < 0)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return dl_txn(nl->sk, msg, NULL, NULL, errbuf, errlen);
}

int drack_nic_steer(struct drack_nl *nl, uint32_t pool, uint32_t nic,
		    uint32_t host, int via, char *errbuf, size_t errlen)
{
	struct nlattr *nest;
	struct nl_msg *msg;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	msg = dl_msg(nl, DRACK_CMD_NIC_STEER, 0);
	if (!msg)
		return -ENOMEM;
	if (dl_put_id(msg, DRACK_A_POOL, DRACK_A_POOL_ID, pool) < 0 ||
	    dl_put_id(msg, DRACK_A_NIC, DRACK_A_NIC_ID, nic) < 0 ||
	    dl_put_id(msg, DRACK_A_HOST, DRACK_A_HOST_ID, host) < 0)
		goto nomem;
	if (via >= 0) {
		nest = nla_nest_start(msg, DRACK_A_VNIC | NLA_F_NESTED);
		if (!nest || nla_put_u32(msg, DRACK_A_VNIC_STEER, via) < 0)
			goto nomem;
		nla_nest_end(msg, nest);
	}
	return dl_txn(nl->sk, msg, NULL, NULL, errbuf, errlen);
nomem:
	nlmsg_free(msg);
	return -ENOMEM;
}
