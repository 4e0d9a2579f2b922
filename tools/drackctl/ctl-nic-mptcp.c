// SPDX-License-Identifier: GPL-2.0-only
/*
 * drackctl nic mptcp: spread flows over the vNICs with MPTCP. "on" adds
 * an endpoint with the subflow flag for every IPv4 and IPv6 address (not
 * link-local) of every vNIC of this network namespace and raises the
 * limits to 8 subflows and 8 accepted ADD_ADDRs, as
 *
 *	ip mptcp endpoint add ADDR dev VNIC subflow
 *	ip mptcp limits set subflows 8 add_addr_accepted 8
 *
 * would; "off" deletes the endpoints of the vNICs (the limits stay);
 * "show" lists them. It talks to the kernel's MPTCP path manager, the
 * generic netlink family "mptcp_pm", directly rather than through ip(8).
 * "nic policy" (ctl-nic-policy.c) turns the endpoints on and off and
 * counts them with ctl_nic_mptcp_set() and ctl_nic_mptcp_count().
 */
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/mptcp.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include "ctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define MP_LIMIT	8	/* the kernel's maximum (MPTCP_PM_ADDR_MAX) */

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: drackctl nic mptcp { on | off | show }\n"
		"on:   an MPTCP endpoint (subflow) for every address of every vNIC of this\n"
		"      network namespace, limits subflows 8 add_addr_accepted 8;\n"
		"off:  delete the endpoints of the vNICs (the limits stay);\n"
		"show: the MPTCP endpoints of the vNICs.\n");
}

/* ---- MPTCP path manager requests ------------------------------------ */

struct mp_addr {
	int family;			/* AF_INET, AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} a;
	uint8_t id;
	uint32_t flags;			/* MPTCP_PM_ADDR_FLAG_* */
	int ifindex;
};

struct mp {
	struct nl_sock *sk;
	int family;
	struct mp_addr *ep;		/* the endpoints, after mp_dump() */
	int nep;
};

struct mp_txn {
	int err;			/* -errno from the kernel */
	bool done;
	char msg[DRACK_ERRMSG_MAX];	/* its extack message */
	int (*parse)(struct nlmsghdr *nlh, void *arg);
	void *arg;
	int stop;
};

static int mp_valid_cb(struct nl_msg *msg, void *arg)
{
	struct mp_txn *t = arg;

	if (t->parse && !t->stop)
		t->stop = t->parse(nlmsg_hdr(msg), t->arg);
	return NL_OK;
}

static int mp_done_cb(struct nl_msg *msg, void *arg)
{
	struct mp_txn *t = arg;

	(void)msg;
	t->done = true;
	return NL_STOP;
}

static int mp_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	const struct nlmsghdr *nlh = (const void *)((char *)e - NLMSG_HDRLEN);
	struct mp_txn *t = arg;
	const char *tlv, *end = (const char *)nlh + nlh->nlmsg_len;
	struct nlattr *a;
	int rem;

	(void)nla;
	t->done = true;
	t->err = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	tlv = (const char *)&e->msg;
	tlv += (nlh->nlmsg_flags & NLM_F_CAPPED) ? sizeof(e->msg) :
		NLMSG_ALIGN(e->msg.nlmsg_len);
	if (tlv >= end)
		return NL_STOP;
	nla_for_each_attr(a, (struct nlattr *)tlv, (int)(end - tlv), rem) {
		if (nla_type(a) == NLMSGERR_ATTR_MSG && nla_len(a) > 0) {
			snprintf(t->msg, sizeof(t->msg), "%.*s", nla_len(a),
				 (const char *)nla_data(a));
			break;
		}
	}
	return NL_STOP;
}

/* Send @msg (consumed) and read the replies: 0 or -errno, t->msg. */
static int mp_txn(struct mp *m, struct nl_msg *msg, struct mp_txn *t)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int err;

	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = nl_send_auto(m->sk, msg);
	nlmsg_free(msg);
	if (err < 0) {
		nl_cb_put(cb);
		return -EIO;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, mp_valid_cb, t);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, mp_done_cb, t);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, mp_done_cb, t);
	nl_cb_err(cb, NL_CB_CUSTOM, mp_err_cb, t);
	while (!t->done) {
		err = nl_recvmsgs(m->sk, cb);
		if (err < 0 && !t->done) {
			t->err = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	return t->err ? t->err : t->stop;
}

static struct nl_msg *mp_msg(struct mp *m, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, m->family, 0,
				flags, cmd, MPTCP_PM_VER)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

/* "Error: MSG." or "Error: WHAT: strerror." */
static int mp_err(int err, const struct mp_txn *t, const char *what)
{
	if (err == -EPERM && !t->msg[0])
		fprintf(stderr, "Error: %s: %s (needs CAP_NET_ADMIN).\n", what,
			strerror(-err));
	else if (t->msg[0])
		fprintf(stderr, "Error: %s: %s.\n", what, t->msg);
	else
		fprintf(stderr, "Error: %s: %s.\n", what, strerror(-err));
	return CTL_EKERNEL;
}

/* Without MPTCP in the kernel: an error if @need, else m->family < 0. */
static int mp_open(struct mp *m, bool need)
{
	int one = 1;

	memset(m, 0, sizeof(*m));
	m->sk = nl_socket_alloc();
	if (!m->sk || genl_connect(m->sk)) {
		fprintf(stderr, "Error: cannot open a generic netlink socket.\n");
		return CTL_EKERNEL;
	}
	setsockopt(nl_socket_get_fd(m->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(m->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	m->family = genl_ctrl_resolve(m->sk, MPTCP_PM_NAME);
	if (m->family < 0 && need) {
		fprintf(stderr, "Error: the kernel has no MPTCP path manager (generic netlink family \"%s\" not found): is it built with CONFIG_MPTCP?\n",
			MPTCP_PM_NAME);
		return CTL_EKERNEL;
	}
	return CTL_OK;
}

static void mp_close(struct mp *m)
{
	nl_socket_free(m->sk);
	free(m->ep);
	memset(m, 0, sizeof(*m));
}

static struct nla_policy mp_addr_policy[MPTCP_PM_ADDR_ATTR_MAX + 1] = {
	[MPTCP_PM_ADDR_ATTR_FAMILY]	= { .type = NLA_U16 },
	[MPTCP_PM_ADDR_ATTR_ID]		= { .type = NLA_U8 },
	[MPTCP_PM_ADDR_ATTR_ADDR4]	= { .minlen = 4 },
	[MPTCP_PM_ADDR_ATTR_ADDR6]	= { .minlen = 16 },
	[MPTCP_PM_ADDR_ATTR_FLAGS]	= { .type = NLA_U32 },
	[MPTCP_PM_ADDR_ATTR_IF_IDX]	= { .type = NLA_U32 },
};

static int mp_dump_parse(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[MPTCP_PM_ATTR_MAX + 1];
	struct nlattr *at[MPTCP_PM_ADDR_ATTR_MAX + 1];
	struct mp *m = arg;
	struct mp_addr a, *ep;

	if (genlmsg_parse(nlh, 0, tb, MPTCP_PM_ATTR_MAX, NULL) < 0 ||
	    !tb[MPTCP_PM_ATTR_ADDR] ||
	    nla_parse_nested(at, MPTCP_PM_ADDR_ATTR_MAX, tb[MPTCP_PM_ATTR_ADDR],
			     mp_addr_policy) < 0 || !at[MPTCP_PM_ADDR_ATTR_FAMILY])
		return 0;
	memset(&a, 0, sizeof(a));
	a.family = nla_get_u16(at[MPTCP_PM_ADDR_ATTR_FAMILY]);
	if (a.family == AF_INET && at[MPTCP_PM_ADDR_ATTR_ADDR4])
		memcpy(&a.a.v4, nla_data(at[MPTCP_PM_ADDR_ATTR_ADDR4]), 4);
	else if (a.family == AF_INET6 && at[MPTCP_PM_ADDR_ATTR_ADDR6])
		memcpy(&a.a.v6, nla_data(at[MPTCP_PM_ADDR_ATTR_ADDR6]), 16);
	else
		return 0;
	if (at[MPTCP_PM_ADDR_ATTR_ID])
		a.id = nla_get_u8(at[MPTCP_PM_ADDR_ATTR_ID]);
	if (at[MPTCP_PM_ADDR_ATTR_FLAGS])
		a.flags = nla_get_u32(at[MPTCP_PM_ADDR_ATTR_FLAGS]);
	if (at[MPTCP_PM_ADDR_ATTR_IF_IDX])
		a.ifindex = (int)nla_get_u32(at[MPTCP_PM_ADDR_ATTR_IF_IDX]);
	ep = realloc(m->ep, (m->nep + 1) * sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	m->ep = ep;
	m->ep[m->nep++] = a;
	return 0;
}

/* Every MPTCP endpoint of this network namespace into m->ep. */
static int mp_dump(struct mp *m)
{
	struct mp_txn t = { .parse = mp_dump_parse, .arg = m };
	struct nl_msg *msg = mp_msg(m, MPTCP_PM_CMD_GET_ADDR, NLM_F_DUMP);
	int err;

	free(m->ep);
	m->ep = NULL;
	m->nep = 0;
	if (!msg)
		return mp_err(-ENOMEM, &t, "listing MPTCP endpoints");
	err = mp_txn(m, msg, &t);
	return err ? mp_err(err, &t, "listing MPTCP endpoints") : CTL_OK;
}

static bool mp_same_addr(const struct mp_addr *x, const struct mp_addr *y)
{
	if (x->family != y->family)
		return false;
	if (x->family == AF_INET)
		return x->a.v4.s_addr == y->a.v4.s_addr;
	return !memcmp(&x->a.v6, &y->a.v6, sizeof(x->a.v6));
}

static const char *mp_ntop(const struct mp_addr *a, char *buf, size_t len)
{
	if (!inet_ntop(a->family, &a->a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

static int mp_add(struct mp *m, const struct mp_addr *a, const char *dev)
{
	struct mp_txn t = { 0 };
	struct nl_msg *msg = mp_msg(m, MPTCP_PM_CMD_ADD_ADDR, 0);
	struct nlattr *nest;
	char what[INET6_ADDRSTRLEN + 64], addr[INET6_ADDRSTRLEN];
	int err;

	snprintf(what, sizeof(what), "adding endpoint %s dev %s",
		 mp_ntop(a, addr, sizeof(addr)), dev);
	if (!msg)
		return mp_err(-ENOMEM, &t, what);
	nest = nla_nest_start(msg, MPTCP_PM_ATTR_ADDR | NLA_F_NESTED);
	if (!nest ||
	    nla_put_u16(msg, MPTCP_PM_ADDR_ATTR_FAMILY, (uint16_t)a->family) ||
	    (a->family == AF_INET ?
	     nla_put(msg, MPTCP_PM_ADDR_ATTR_ADDR4, 4, &a->a.v4) :
	     nla_put(msg, MPTCP_PM_ADDR_ATTR_ADDR6, 16, &a->a.v6)) ||
	    nla_put_u32(msg, MPTCP_PM_ADDR_ATTR_FLAGS, a->flags) ||
	    nla_put_s32(msg, MPTCP_PM_ADDR_ATTR_IF_IDX, a->ifindex)) {
		nlmsg_free(msg);
		return mp_err(-ENOMEM, &t, what);
	}
	nla_nest_end(msg, nest);
	err = mp_txn(m, msg, &t);
	return err ? mp_err(err, &t, what) : CTL_OK;
}

static int mp_del(struct mp *m, const struct mp_addr *a)
{
	struct mp_txn t = { 0 };
	struct nl_msg *msg = mp_msg(m, MPTCP_PM_CMD_DEL_ADDR, 0);
	struct nlattr *nest;
	char what[INET6_ADDRSTRLEN + 64], addr[INET6_ADDRSTRLEN];
	int err;

	snprintf(what, sizeof(what), "deleting endpoint %s id %u",
		 mp_ntop(a, addr, sizeof(addr)), a->id);
	if (!msg)
		return mp_err(-ENOMEM, &t, what);
	nest = nla_nest_start(msg, MPTCP_PM_ATTR_ADDR | NLA_F_NESTED);
	if (!nest || nla_put_u8(msg, MPTCP_PM_ADDR_ATTR_ID, a->id)) {
		nlmsg_free(msg);
		return mp_err(-ENOMEM, &t, what);
	}
	nla_nest_end(msg, nest);
	err = mp_txn(m, msg, &t);
	return err ? mp_err(err, &t, what) : CTL_OK;
}

static int mp_limits(struct mp *m)
{
	struct mp_txn t = { 0 };
	struct nl_msg *msg = mp_msg(m, MPTCP_PM_CMD_SET_LIMITS, 0);
	int err;

	if (!msg || nla_put_u32(msg, MPTCP_PM_ATTR_SUBFLOWS, MP_LIMIT) ||
	    nla_put_u32(msg, MPTCP_PM_ATTR_RCV_ADD_ADDRS, MP_LIMIT)) {
		nlmsg_free(msg);
		return mp_err(-ENOMEM, &t, "setting MPTCP limits");
	}
	err = mp_txn(m, msg, &t);
	return err ? mp_err(err, &t, "setting MPTCP limits") : CTL_OK;
}

/* ---- on, off, show --------------------------------------------------- */

static bool mp_usable(const struct sockaddr *sa)
{
	const struct sockaddr_in6 *s6 = (const void *)sa;
	const struct sockaddr_in *s4 = (const void *)sa;

	if (sa->sa_family == AF_INET)	/* not 169.254.0.0/16 */
		return (ntohl(s4->sin_addr.s_addr) >> 16) != 0xa9fe;
	if (sa->sa_family == AF_INET6)
		return !IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr) &&
		       !IN6_IS_ADDR_MULTICAST(&s6->sin6_addr);
	return false;
}

static void mp_warn_disabled(void)
{
	FILE *f = fopen("/proc/sys/net/mptcp/enabled", "r");
	int c;

	if (!f)
		return;
	c = fgetc(f);
	fclose(f);
	if (c == '0')
		fprintf(stderr, "Warning: MPTCP is disabled in this network namespace (sysctl net.mptcp.enabled = 0).\n");
}

static int mp_on(struct mp *m, const struct ctl_vnics *vs)
{
	struct ifaddrs *ifa, *i;
	const struct ctl_vnic *v;
	struct mp_addr a;
	int j, ret, usable = 0;
	bool exists;

	mp_warn_disabled();
	ret = mp_limits(m);
	if (ret)
		return ret;
	if (getifaddrs(&ifa))
		return ctl_err(-errno, NULL, "listing addresses");
	for (i = ifa; i && !ret; i = i->ifa_next) {
		if (!i->ifa_addr || !mp_usable(i->ifa_addr))
			continue;
		for (v = NULL, j = 0; j < vs->n && !v; j++)
			if (!strcmp(vs->v[j].name, i->ifa_name))
				v = &vs->v[j];
		if (!v)
			continue;
		usable++;
		memset(&a, 0, sizeof(a));
		a.family = i->ifa_addr->sa_family;
		if (a.family == AF_INET)
			a.a.v4 = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
		else
			a.a.v6 = ((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr;
		a.flags = MPTCP_PM_ADDR_FLAG_SUBFLOW;
		a.ifindex = (int)v->ifindex;
		for (exists = false, j = 0; j < m->nep && !exists; j++)
			exists = mp_same_addr(&m->ep[j], &a);
		if (exists)
			continue;
		ret = mp_add(m, &a, v->name);
	}
	freeifaddrs(ifa);
	if (!vs->n)
		fprintf(stderr, "Warning: no vNIC in this network namespace (see \"drackctl nic show\"): no endpoint added.\n");
	else if (!usable)
		fprintf(stderr, "Warning: the vNICs have no address besides link-local ones: no endpoint added.\n");
	return ret;
}

/* Is endpoint @a on a vNIC: its device, or one of a vNIC's addresses? */
static const struct ctl_vnic *mp_ep_vnic(const struct ctl_vnics *vs,
					const struct mp_addr *a,
					struct ifaddrs *ifa)
{
	const struct ctl_vnic *v = ctl_vnic_by_index(vs, a->ifindex);
	struct mp_addr b;
	struct ifaddrs *i;
	int j;

	if (v || a->ifindex)
		return v;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != a->family)
			continue;
		memset(&b, 0, sizeof(b));
		b.family = a->family;
		if (b.family == AF_INET)
			b.a.v4 = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
		else if (b.family == AF_INET6)
			b.a.v6 = ((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr;
		if (!mp_same_addr(a, &b))
			continue;
		for (j = 0; j < vs->n; j++)
			if (!strcmp(vs->v[j].name, i->ifa_name))
				return &vs->v[j];
	}
	return NULL;
}

static int mp_off(struct mp *m, const struct ctl_vnics *vs)
{
	struct ifaddrs *ifa = NULL;
	int j, ret = CTL_OK;

	if (getifaddrs(&ifa))
		ifa = NULL;
	for (j = 0; j < m->nep; j++)
		if (mp_ep_vnic(vs, &m->ep[j], ifa))
			ret |= mp_del(m, &m->ep[j]);
	if (ifa)
		freeifaddrs(ifa);
	return ret;
}

static void mp_print_flags(uint32_t flags)
{
	static const struct {
		uint32_t flag;
		const char *name;
	} names[] = {
		{ MPTCP_PM_ADDR_FLAG_SIGNAL, "signal" },
		{ MPTCP_PM_ADDR_FLAG_SUBFLOW, "subflow" },
		{ MPTCP_PM_ADDR_FLAG_BACKUP, "backup" },
		{ MPTCP_PM_ADDR_FLAG_FULLMESH, "fullmesh" },
	};
	size_t i;

	open_json_array(PRINT_JSON, "flags");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].flag)
			print_string(PRINT_ANY, NULL, " %s", names[i].name);
	close_json_array(PRINT_JSON, NULL);
}

static int mp_show(struct mp *m, const struct ctl_vnics *vs)
{
	const struct ctl_vnic *v;
	struct ifaddrs *ifa = NULL;
	char addr[INET6_ADDRSTRLEN];
	int j;

	if (getifaddrs(&ifa))
		ifa = NULL;
	new_json_obj();
	for (j = 0; j < m->nep; j++) {
		v = mp_ep_vnic(vs, &m->ep[j], ifa);
		if (!v)
			continue;
		open_json_object(NULL);
		print_string(PRINT_ANY, "address", "%s",
			     mp_ntop(&m->ep[j], addr, sizeof(addr)));
		print_uint(PRINT_ANY, "id", " id %u", m->ep[j].id);
		mp_print_flags(m->ep[j].flags);
		print_string(PRINT_ANY, "dev", " dev %s", v->name);
		print_uint(PRINT_ANY, "pool", " pool %u", v->pool);
		print_uint(PRINT_ANY, "nic", " nic %u", v->nic);
		close_json_object();
		print_nl();
	}
	delete_json_obj();
	if (ifa)
		freeifaddrs(ifa);
	return CTL_OK;
}

/*
 * @op on the endpoints of this network namespace. A kernel without MPTCP:
 * an error if @need, else CTL_OK and nothing done.
 */
static int mp_run(const struct ctl_vnics *vs,
		  int (*op)(struct mp *m, const struct ctl_vnics *vs), bool need)
{
	struct mp m;
	int ret = mp_open(&m, need);

	if (!ret && m.family >= 0)
		ret = mp_dump(&m);
	if (!ret && m.family >= 0)
		ret = op(&m, vs);
	mp_close(&m);
	return ret;
}

int do_nic_mptcp(int argc, char **argv)
{
	int (*op)(struct mp *m, const struct ctl_vnics *vs);
	struct ctl_vnics vs;
	int ret;

	if (argc < 1) {
		usage(stderr);
		return CTL_EUSAGE;
	}
	if (!strcmp(*argv, "on"))
		op = mp_on;
	else if (!strcmp(*argv, "off"))
		op = mp_off;
	else if (matches(*argv, "show") || matches(*argv, "list"))
		op = mp_show;
	else if (matches(*argv, "help")) {
		usage(stdout);
		return CTL_OK;
	} else {
		fprintf(stderr, "Command \"%s\" is unknown, try \"drackctl nic mptcp help\".\n",
			*argv);
		return CTL_EUSAGE;
	}
	if (argc > 1) {
		if (matches(argv[1], "help")) {
			usage(stdout);
			return CTL_OK;
		}
		return garbage("nic mptcp", argv[1]);
	}
	ret = ctl_vnics(&vs);
	if (ret)
		return ret;
	ret = mp_run(&vs, op, true);
	free(vs.v);
	return ret;
}

int ctl_nic_mptcp_set(const struct ctl_vnics *vs, bool on)
{
	return mp_run(vs, on ? mp_on : mp_off, on);
}

int ctl_nic_mptcp_count(const struct ctl_vnics *vs, unsigned int *count)
{
	struct ifaddrs *ifa = NULL;
	const struct ctl_vnic *v;
	struct mp m;
	int j, ret;

	memset(count, 0, vs->n * sizeof(*count));
	ret = mp_open(&m, false);
	if (!ret && m.family >= 0)
		ret = mp_dump(&m);
	if (!ret && m.family >= 0) {
		if (getifaddrs(&ifa))
			ifa = NULL;
		for (j = 0; j < m.nep; j++) {
			v = mp_ep_vnic(vs, &m.ep[j], ifa);
			if (v)
				count[v - vs->v]++;
		}
		if (ifa)
			freeifaddrs(ifa);
	}
	mp_close(&m);
	return ret;
}
