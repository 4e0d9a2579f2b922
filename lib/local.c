// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The state of the local hosts, the drack netdevs of the caller's network
 * namespace: DRACK_CMD_PEER_GET, DRACK_CMD_CLASS_GET and
 * DRACK_CMD_STATS_GET, dumps of every local host or, with
 * DRACK_A_HOST { ifindex }, of one.
 */
#include <errno.h>
#include <string.h>
#include "internal.h"

/* Which local host a reply is about: its pool and host nests. */
static int dl_local(struct nlattr **top, struct drack_local *l)
{
	struct nlattr *pt[DRACK_A_POOL_MAX + 1], *ht[DRACK_A_HOST_MAX + 1];

	if (dl_nest(top, DRACK_A_POOL, pt) || dl_nest(top, DRACK_A_HOST, ht))
		return -EPROTO;
	l->pool = dl_u32(pt, DRACK_A_POOL_ID);
	l->host = dl_u32(ht, DRACK_A_HOST_ID);
	l->ifindex = dl_u32(ht, DRACK_A_HOST_IFINDEX);
	dl_string(ht, DRACK_A_HOST_IFNAME, l->ifname, sizeof(l->ifname));
	return 0;
}

/* A dump request of @cmd, for the netdev @ifindex if it is not 0. */
static struct nl_msg *dl_local_msg(struct drack_nl *nl, uint8_t cmd,
				   uint32_t ifindex)
{
	struct nl_msg *msg = dl_msg(nl, cmd, NLM_F_DUMP);

	if (msg && ifindex &&
	    dl_put_id(msg, DRACK_A_HOST, DRACK_A_HOST_IFINDEX, ifindex) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct dl_peer_walk {
	drack_peer_cb cb;
	void *arg;
};

static int dl_peer_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *top[DRACK_A_MAX + 1], *tb[DRACK_A_PEER_MAX + 1];
	struct dl_peer_walk *w = arg;
	struct drack_peer_info p;

	memset(&p, 0, sizeof(p));
	if (dl_attrs(nlh, top) || dl_local(top, &p.local) ||
	    dl_nest(top, DRACK_A_PEER, tb))
		return -EPROTO;
	p.peer = dl_u32(tb, DRACK_A_PEER_ID);
	p.state = dl_u32(tb, DRACK_A_PEER_STATE);
	p.reachable = dl_u32(tb, DRACK_A_PEER_REACHABLE);
	p.tx_packets = dl_u64(tb, DRACK_A_PEER_TX_PACKETS);
	p.tx_bytes = dl_u64(tb, DRACK_A_PEER_TX_BYTES);
	p.rx_packets = dl_u64(tb, DRACK_A_PEER_RX_PACKETS);
	p.rx_bytes = dl_u64(tb, DRACK_A_PEER_RX_BYTES);
	p.rx_bad = dl_u64(tb, DRACK_A_PEER_RX_BAD);
	p.stalled = dl_u32(tb, DRACK_A_PEER_STALLED);
	return w->cb(&p, w->arg);
}

int drack_peer_list(struct drack_nl *nl, uint32_t ifindex, drack_peer_cb cb,
		    void *arg)
{
	struct dl_peer_walk w = { .cb = cb, .arg = arg };
	struct nl_msg *msg = dl_local_msg(nl, DRACK_CMD_PEER_GET, ifindex);

	if (!msg)
		return -ENOMEM;
	return dl_txn(nl->sk, msg, dl_peer_parse, &w, NULL, 0);
}

struct dl_class_walk {
	drack_class_cb cb;
	void *arg;
};

static int dl_class_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *top[DRACK_A_MAX + 1], *tb[DRACK_A_CLASS_MAX + 1];
	struct dl_class_walk *w = arg;
	struct drack_class_info c;

	memset(&c, 0, sizeof(c));
	if (dl_attrs(nlh, top) || dl_local(top, &c.local) ||
	    dl_nest(top, DRACK_A_CLASS, tb))
		return -EPROTO;
	c.buf_class = dl_u32(tb, DRACK_A_CLASS_ID);
	c.sections = dl_u32(tb, DRACK_A_CLASS_SECTIONS);
	c.total = dl_u32(tb, DRACK_A_CLASS_TOTAL);
	c.free = dl_u32(tb, DRACK_A_CLASS_FREE);
	c.inflight = dl_u32(tb, DRACK_A_CLASS_INFLIGHT);
	c.requested = dl_u32(tb, DRACK_A_CLASS_REQUESTED);
	c.draining = dl_u32(tb, DRACK_A_CLASS_DRAINING);
	return w->cb(&c, w->arg);
}

int drack_class_list(struct drack_nl *nl, uint32_t ifindex,
		     drack_class_cb cb, void *arg)
{
	struct dl_class_walk w = { .cb = cb, .arg = arg };
	struct nl_msg *msg = dl_local_msg(nl, DRACK_CMD_CLASS_GET, ifindex);

	if (!msg)
		return -ENOMEM;
	return dl_txn(nl->sk, msg, dl_class_parse, &w, NULL, 0);
}

struct dl_stats_walk {
	drack_stats_cb cb;
	void *arg;
};

/*
 * DRACK_A_STATS: u64 attributes typed by enum drack_stat. Type 0 is the
 * padding of the kernel's nla_put_u64_64bit(); counters beyond what the
 * structure holds, or of another size, are skipped.
 */
static void dl_stats_nest(struct nlattr *nest, struct drack_stats_info *st)
{
	struct nlattr *nla;
	int rem, type;

	nla_for_each_nested(nla, nest, rem) {
		type = nla_type(nla);
		if (type <= DRACK_STAT_UNSPEC || type >= DRACK_NR_STATS ||
		    nla_len(nla) != (int)sizeof(uint64_t))
			continue;
		st->stat[type] = nla_get_u64(nla);
		if ((uint32_t)type >= st->nstats)
			st->nstats = (uint32_t)type + 1;
	}
}

static int dl_stats_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[DRACK_A_MAX + 1];
	struct dl_stats_walk *w = arg;
	struct drack_stats_info st;

	memset(&st, 0, sizeof(st));
	if (dl_attrs(nlh, tb) || dl_local(tb, &st.local))
		return -EPROTO;
	if (tb[DRACK_A_STATS])
		dl_stats_nest(tb[DRACK_A_STATS], &st);
	return w->cb(&st, w->arg);
}

int drack_stats_list(struct drack_nl *nl, uint32_t ifindex,
		     drack_stats_cb cb, void *arg)
{
	struct dl_stats_walk w = { .cb = cb, .arg = arg };
	struct nl_msg *msg = dl_local_msg(nl, DRACK_CMD_STATS_GET, ifindex);

	if (!msg)
		return -ENOMEM;
	return dl_txn(nl->sk, msg, dl_stats_parse, &w, NULL, 0);
}
