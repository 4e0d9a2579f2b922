// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rtnetlink: drack links (one per host) of the caller's network namespace,
 * created with IFLA_DRACK_POOL/HOST in IFLA_INFO_DATA, listed from a link
 * dump, deleted by name. Plain libnl-3 messages on a NETLINK_ROUTE socket,
 * through the same transaction code as the generic netlink requests, so
 * the kernel's extack message reaches the caller.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "internal.h"

/* nl.c: dl_socket() for another netlink protocol. */
struct nl_sock *dl_socket_proto(int protocol);

#define DL_LINK_KIND	"drack"

/* One rtnetlink transaction on a fresh socket; @msg is consumed. */
static int dl_route_txn(struct nl_msg *msg, dl_parse_fn parse, void *arg,
			char *errbuf, size_t errlen)
{
	struct nl_sock *sk;
	int err;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!msg)
		return -ENOMEM;
	sk = dl_socket_proto(NETLINK_ROUTE);
	if (!sk) {
		err = -errno;
		nlmsg_free(msg);
		return err;
	}
	err = dl_txn(sk, msg, parse, arg, errbuf, errlen);
	nl_socket_free(sk);
	return err;
}

static struct nl_msg *dl_link_msg(int type, int flags, int ifindex)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	struct nl_msg *msg = nlmsg_alloc_simple(type, flags);

	if (!msg)
		return NULL;
	if (nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int dl_link_name_ok(const char *name)
{
	size_t n = name ? strnlen(name, IFNAMSIZ) : 0;

	return n > 0 && n < IFNAMSIZ;
}

int drack_link_add(const char *name, uint32_t pool, uint32_t host,
		   int netns_fd, char *errbuf, size_t errlen)
{
	struct nlattr *linkinfo, *data;
	struct nl_msg *msg;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	if (!dl_link_name_ok(name))
		return -EINVAL;
	msg = dl_link_msg(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, IFLA_IFNAME, name) < 0 ||
	    (netns_fd >= 0 &&
	     nla_put_u32(msg, IFLA_NET_NS_FD, (uint32_t)netns_fd) < 0))
		goto nomem;
	linkinfo = nla_nest_start(msg, IFLA_LINKINFO);
	if (!linkinfo || nla_put_string(msg, IFLA_INFO_KIND, DL_LINK_KIND) < 0)
		goto nomem;
	if (pool != DRACK_LINK_ANY || host != DRACK_LINK_ANY) {
		data = nla_nest_start(msg, IFLA_INFO_DATA);
		if (!data ||
		    (pool != DRACK_LINK_ANY &&
		     nla_put_u32(msg, IFLA_DRACK_POOL, pool) < 0) ||
		    (host != DRACK_LINK_ANY &&
		     nla_put_u32(msg, IFLA_DRACK_HOST, host) < 0))
			goto nomem;
		nla_nest_end(msg, data);
	}
	nla_nest_end(msg, linkinfo);
	return dl_route_txn(msg, NULL, NULL, errbuf, errlen);

nomem:
	nlmsg_free(msg);
	return -ENOMEM;
}

/*
 * Fill @l from a RTM_NEWLINK message: 1 if it is a drack link, 0 if it is
 * another kind, -EPROTO if it does not parse.
 */
static int dl_link_parse_msg(struct nlmsghdr *nlh, struct drack_link_info *l)
{
	struct nlattr *tb[IFLA_MAX + 1], *li[IFLA_INFO_MAX + 1];
	struct nlattr *dt[IFLA_DRACK_MAX + 1];
	struct ifinfomsg *ifi;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 0;
	if (nlmsg_parse(nlh, sizeof(*ifi), tb, IFLA_MAX, NULL) < 0)
		return -EPROTO;
	if (!tb[IFLA_LINKINFO] ||
	    nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL) < 0 ||
	    !li[IFLA_INFO_KIND] ||
	    nla_len(li[IFLA_INFO_KIND]) < (int)sizeof(DL_LINK_KIND) - 1 ||
	    strncmp(nla_data(li[IFLA_INFO_KIND]), DL_LINK_KIND,
		    (size_t)nla_len(li[IFLA_INFO_KIND])))
		return 0;

	ifi = nlmsg_data(nlh);
	memset(l, 0, sizeof(*l));
	l->ifindex = (uint32_t)ifi->ifi_index;
	l->flags = ifi->ifi_flags;
	if (tb[IFLA_IFNAME])
		nla_strlcpy(l->name, tb[IFLA_IFNAME], sizeof(l->name));
	if (tb[IFLA_MTU] && nla_len(tb[IFLA_MTU]) >= 4)
		l->mtu = nla_get_u32(tb[IFLA_MTU]);
	if (tb[IFLA_OPERSTATE] && nla_len(tb[IFLA_OPERSTATE]) >= 1)
		l->operstate = nla_get_u8(tb[IFLA_OPERSTATE]);
	if (tb[IFLA_ADDRESS] && nla_len(tb[IFLA_ADDRESS]) >= 6)
		memcpy(l->mac, nla_data(tb[IFLA_ADDRESS]), sizeof(l->mac));
	l->pool = DRACK_LINK_ANY;
	l->host = DRACK_LINK_ANY;
	l->carrier_reason = DRACK_LINK_ANY;
	if (li[IFLA_INFO_DATA] &&
	    !nla_parse_nested(dt, IFLA_DRACK_MAX, li[IFLA_INFO_DATA], NULL)) {
		if (dt[IFLA_DRACK_POOL] && nla_len(dt[IFLA_DRACK_POOL]) >= 4)
			l->pool = nla_get_u32(dt[IFLA_DRACK_POOL]);
		if (dt[IFLA_DRACK_HOST] && nla_len(dt[IFLA_DRACK_HOST]) >= 4)
			l->host = nla_get_u32(dt[IFLA_DRACK_HOST]);
		if (dt[IFLA_DRACK_CARRIER_REASON] &&
		    nla_len(dt[IFLA_DRACK_CARRIER_REASON]) >= 4)
			l->carrier_reason =
				nla_get_u32(dt[IFLA_DRACK_CARRIER_REASON]);
	}
	return 1;
}

struct dl_link_walk {
	drack_link_cb cb;
	void *arg;
};

static int dl_link_walk_parse(struct nlmsghdr *nlh, void *arg)
{
	struct dl_link_walk *w = arg;
	struct drack_link_info l;
	int ret = dl_link_parse_msg(nlh, &l);

	if (ret <= 0)
		return ret;
	return w->cb(&l, w->arg);
}

int drack_link_list(drack_link_cb cb, void *arg)
{
	struct dl_link_walk w = { .cb = cb, .arg = arg };

	return dl_route_txn(dl_link_msg(RTM_GETLINK, NLM_F_DUMP, 0),
			    dl_link_walk_parse, &w, NULL, 0);
}

struct dl_link_get {
	struct drack_link_info *info;
	int found;		/* 1: drack, 0: another kind */
};

static int dl_link_get_parse(struct nlmsghdr *nlh, void *arg)
{
	struct dl_link_get *g = arg;
	int ret = dl_link_parse_msg(nlh, g->info);

	if (ret < 0)
		return ret;
	if (nlh->nlmsg_type == RTM_NEWLINK)
		g->found = ret ? 1 : 0;
	return 0;
}

int drack_link_get(const char *name, struct drack_link_info *info)
{
	struct dl_link_get g = { .info = info, .found = -1 };
	struct nl_msg *msg;
	int err;

	if (!dl_link_name_ok(name))
		return -EINVAL;
	msg = dl_link_msg(RTM_GETLINK, 0, 0);
	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, IFLA_IFNAME, name) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = dl_route_txn(msg, dl_link_get_parse, &g, NULL, 0);
	if (err)
		return err;
	if (g.found < 0)
		return -ENODEV;
	return g.found ? 0 : -EOPNOTSUPP;
}

int drack_link_del(const char *name, char *errbuf, size_t errlen)
{
	struct drack_link_info l;
	struct nl_msg *msg;
	int err;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	err = drack_link_get(name, &l);
	if (err)
		return err;
	msg = dl_link_msg(RTM_DELLINK, 0, (int)l.ifindex);
	return dl_route_txn(msg, NULL, NULL, errbuf, errlen);
}
