/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * genl.c's raw generic netlink: building requests (malformed ones too),
 * reading replies with their extack, attribute accessors. Included by
 * genl.c only, after its includes and constants: static functions, as in
 * the rest of a kselftest_harness program.
 */
/* ---------------------------------------------------------------- */
/* Small utilities                                                   */
/* ---------------------------------------------------------------- */

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static const char *env_or(const char *name, const char *def)
{
	const char *s = getenv(name);

	return s && *s ? s : def;
}

static const char *phase(void)
{
	return env_or("DRACK_GENL_PHASE", "live");
}

#define PHASE(p) do {							\
		if (strcmp(phase(), (p)))				\
			SKIP(return, "phase %s only (this is %s)", (p), phase()); \
	} while (0)

/* ---------------------------------------------------------------- */
/* Requests: a command and a little table of attributes               */
/* ---------------------------------------------------------------- */

/* Attribute keys and nest_max: nl-keys.h. */
#include "nl-keys.h"

/*
 * A request's attributes: consecutive ones of the same nest go into one
 * nest attribute (with NLA_F_NESTED), in the order given.
 */
struct attr {
	bool end;		/* the table ends here */
	bool raw;		/* append @data verbatim, not as an attribute */
	uint32_t type;		/* key: P(nest, type) or a top-level type */
	uint16_t len;		/* payload bytes */
	uint64_t val;		/* payload if !data: len 1, 2, 4 or 8 bytes */
	const void *data;
};

#define A_U8(t, v)	{ .type = (t), .len = 1, .val = (v) }
#define A_U16(t, v)	{ .type = (t), .len = 2, .val = (v) }
#define A_U32(t, v)	{ .type = (t), .len = 4, .val = (v) }
#define A_U64(t, v)	{ .type = (t), .len = 8, .val = (v) }
#define A_EMPTY(t)	{ .type = (t), .len = 0, .data = "" }
#define A_STR(t, s)	{ .type = (t), .len = sizeof(s), .data = (s) }
#define A_BIN(t, p, n)	{ .type = (t), .len = (n), .data = (p) }
#define A_RAW(s)	{ .raw = true, .len = sizeof(s) - 1, .data = (s) }
#define A_END		{ .end = true }
#define ATTRS(...)	((const struct attr[]){ __VA_ARGS__, A_END })
#define NOATTRS		((const struct attr[]){ A_END })
#define A_POOL		A_U32(AP(ID), POOL)
#define G_HOST(h)	A_U32(AH(ID), (h))
#define G_SECT(x)	A_U32(AS(ID), (x))
#define G_CLASS(c)	A_U32(AS(CLASS), (c))	/* after G_SECT: its nest */
#define F_HOSTS(n)	A_U32(AP(MAX_HOSTS), (n))
#define F_REGIONS(n)	A_U32(AP(REGIONS), (n))

/* Header damage for the malformed-message cases. */
struct tweak {
	uint8_t reserved;	/* genlmsghdr.reserved */
	uint16_t add_flags;	/* ORed into nlmsg_flags */
	int cut;		/* bytes cut off nlmsg_len */
};

struct nl {
	struct nl_sock *sk;
	int fd;
	int fam;
};

/* What came back: replies, then the ack (NLMSG_ERROR) or NLMSG_DONE. */
struct reply {
	int err;		/* 0 or -errno */
	char msg[256];		/* NLMSGERR_ATTR_MSG */
	int miss_type;		/* key of NLMSGERR_ATTR_MISS_TYPE (and _NEST), or -1 */
	int n;
	struct nlmsghdr **m;
};

static void reply_free(struct reply *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		free(r->m[i]);
	free(r->m);
	memset(r, 0, sizeof(*r));
}

/*
 * A generic netlink socket for the family, with extended acks; @mcgrp:
 * also join the events group. (libnl resolves names before the socket
 * options change its acks.)
 */
static struct nl *sk_open_grp(struct __test_metadata *_metadata, bool mcgrp)
{
	struct timeval tv = { 5, 0 };
	struct nl *nl = calloc(1, sizeof(*nl));
	int one = 1, grp = 0;

	ASSERT_NE(NULL, nl);
	nl->sk = nl_socket_alloc();
	ASSERT_NE(NULL, nl->sk);
	ASSERT_EQ(0, genl_connect(nl->sk));
	nl->fd = nl_socket_get_fd(nl->sk);
	nl->fam = genl_ctrl_resolve(nl->sk, DRACK_GENL_NAME);
	ASSERT_LT(0, nl->fam) TH_LOG("genl family %s: is drack.ko loaded?",
				     DRACK_GENL_NAME);
	if (mcgrp) {
		grp = genl_ctrl_resolve_grp(nl->sk, DRACK_GENL_NAME,
					    DRACK_GENL_MCGRP_EVENTS);
		ASSERT_LT(0, grp) TH_LOG("no multicast group %s",
					 DRACK_GENL_MCGRP_EVENTS);
		ASSERT_EQ(0, nl_socket_set_buffer_size(nl->sk, 1 << 20, 0));
		ASSERT_EQ(0, nl_socket_add_membership(nl->sk, grp));
	}
	ASSERT_EQ(0, setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one,
				sizeof(one)));
	ASSERT_EQ(0, setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one,
				sizeof(one)));
	ASSERT_EQ(0, setsockopt(nl->fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				sizeof(tv)));
	return nl;
}

static struct nl *sk_open(struct __test_metadata *_metadata)
{
	return sk_open_grp(_metadata, false);
}

static void sk_close(struct nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl);
}

/* One line per attribute table, for the logs: "type/len=value ...". */
static const char *attrs_str(const struct attr *a)
{
	static char buf[512];
	size_t o = 0;

	buf[0] = 0;
	for (; !a->end && o < sizeof(buf) - 64; a++) {
		if (a->raw)
			o += snprintf(buf + o, sizeof(buf) - o, " raw/%u", a->len);
		else if (a->data)
			o += snprintf(buf + o, sizeof(buf) - o, " %u.%u/%u=<data>",
				      KNEST(a->type), KTYPE(a->type), a->len);
		else
			o += snprintf(buf + o, sizeof(buf) - o, " %u.%u/%u=%llu",
				      KNEST(a->type), KTYPE(a->type), a->len,
				      (unsigned long long)a->val);
	}
	return buf;
}

/* The last request sent, for the offsets in its extack. */
static uint8_t last_req[1 << 16];
static uint32_t last_len;

static uint32_t nl_send_req(struct __test_metadata *_metadata, struct nl *nl,
			    uint8_t cmd, int flags, const struct attr *a,
			    const struct tweak *tw)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *nest = NULL;
	struct nlmsghdr *nlh;
	uint32_t seq, cur = 0;
	int ret;

	ASSERT_NE(NULL, m);
	ASSERT_NE(NULL, genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, nl->fam, 0,
				    flags, cmd, DRACK_GENL_VERSION));
	for (; !a->end; a++) {
		uint32_t want = a->raw ? 0 : KNEST(a->type);

		if (nest && want != cur) {
			nla_nest_end(m, nest);
			nest = NULL;
		}
		if (want && !nest) {
			nest = nla_nest_start(m, want | NLA_F_NESTED);
			ASSERT_NE(NULL, nest);
		}
		cur = want;
		uint8_t v8 = a->val;
		uint16_t v16 = a->val;
		uint32_t v32 = a->val;
		uint64_t v64 = a->val;
		const void *p = a->data;

		if (!p)
			p = a->len == 1 ? (void *)&v8 : a->len == 2 ? (void *)&v16 :
			    a->len == 4 ? (void *)&v32 : (void *)&v64;
		if (a->raw) {
			ASSERT_EQ(0, nlmsg_append(m, (void *)p, a->len, 0));
		} else {
			ASSERT_EQ(0, nla_put(m, KTYPE(a->type), a->len, p));
		}
	}
	if (nest)
		nla_nest_end(m, nest);
	nl_complete_msg(nl->sk, m);	/* port, seq, NLM_F_REQUEST | NLM_F_ACK */
	nlh = nlmsg_hdr(m);
	if (tw) {
		((struct genlmsghdr *)nlmsg_data(nlh))->reserved = tw->reserved;
		nlh->nlmsg_flags |= tw->add_flags;
		nlh->nlmsg_len -= tw->cut;
	}
	seq = nlh->nlmsg_seq;
	last_len = nlh->nlmsg_len < sizeof(last_req) ? nlh->nlmsg_len : 0;
	memcpy(last_req, nlh, last_len);
	ret = nl_send(nl->sk, m);
	nlmsg_free(m);
	ASSERT_LE(0, ret) TH_LOG("nl_send: %s", nl_geterror(ret));
	return seq;
}

static void parse_extack(struct reply *r, void *tlv, int len)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

	if (len <= 0 || nla_parse(tb, NLMSGERR_ATTR_MAX, tlv, len, NULL))
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(r->msg, sizeof(r->msg), "%.*s",
			 nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_MISS_TYPE])
		r->miss_type = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
	/* in a nest: the nest's offset in the request names it */
	if (r->miss_type >= 0 && tb[NLMSGERR_ATTR_MISS_NEST]) {
		uint32_t off = nla_get_u32(tb[NLMSGERR_ATTR_MISS_NEST]);

		if (off + NLA_HDRLEN <= last_len)
			r->miss_type = P(((struct nlattr *)(last_req + off))->nla_type &
					 NLA_TYPE_MASK, r->miss_type);
		else
			r->miss_type = P(0xffff, r->miss_type);
	}
}

/* Read until the ack or NLMSG_DONE of @seq; keep our family's messages. */
static void nl_recv_reply(struct __test_metadata *_metadata, struct nl *nl,
			  uint32_t seq, struct reply *r)
{
	static uint8_t buf[1 << 16];
	bool done = false;

	memset(r, 0, sizeof(*r));
	r->miss_type = -1;
	while (!done) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
		int n = recv(nl->fd, buf, sizeof(buf), MSG_TRUNC);

		ASSERT_LT(0, n) TH_LOG("recv: %s (no ack for seq %u)",
				       strerror(errno), seq);
		ASSERT_GE((int)sizeof(buf), n) TH_LOG("reply truncated");
		for (; nlmsg_ok(nlh, n); nlh = nlmsg_next(nlh, &n)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = nlmsg_data(nlh);
				int off = sizeof(*e);

				if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - NLMSG_HDRLEN;
				r->err = e->error;
				if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
					parse_extack(r, (uint8_t *)e + off,
						     (int)nlh->nlmsg_len - NLMSG_HDRLEN - off);
				done = true;
			} else if (nlh->nlmsg_type == NLMSG_DONE) {
				int *e = nlmsg_data(nlh);

				r->err = *e;
				if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
					parse_extack(r, e + 1, (int)nlh->nlmsg_len -
						     NLMSG_HDRLEN - (int)sizeof(*e));
				done = true;
			} else if (nlh->nlmsg_type == nl->fam) {
				r->m = realloc(r->m, (r->n + 1) * sizeof(*r->m));
				ASSERT_NE(NULL, r->m);
				r->m[r->n] = malloc(nlh->nlmsg_len);
				ASSERT_NE(NULL, r->m[r->n]);
				memcpy(r->m[r->n++], nlh, nlh->nlmsg_len);
			}
		}
	}
}

/* Send one request and collect its answer into @r; returns r->err. */
static int request(struct __test_metadata *_metadata, struct nl *nl,
		   uint8_t cmd, int flags, const struct attr *a,
		   const struct tweak *tw, struct reply *r)
{
	uint32_t seq = nl_send_req(_metadata, nl, cmd, flags, a, tw);

	nl_recv_reply(_metadata, nl, seq, r);
	return r->err;
}

/* A request whose replies do not matter: returns the errno. */
static int simple(struct __test_metadata *_metadata, struct nl *nl,
		  uint8_t cmd, int flags, const struct attr *a, char *msg)
{
	struct reply r;
	int err = request(_metadata, nl, cmd, flags, a, NULL, &r);

	if (msg)
		strcpy(msg, r.msg);
	reply_free(&r);
	return err;
}

/* ---------------------------------------------------------------- */
/* Reading replies                                                   */
/* ---------------------------------------------------------------- */

static uint8_t mcmd(const struct nlmsghdr *nlh)
{
	return ((struct genlmsghdr *)nlmsg_data(nlh))->cmd;
}

/* The attribute of key @type (a top-level type or P(nest, type)). */
static struct nlattr *mattr(struct nlmsghdr *nlh, uint32_t type)
{
	struct nlattr *n;

	if (!KNEST(type))
		return nlmsg_find_attr(nlh, GENL_HDRLEN, type);
	n = nlmsg_find_attr(nlh, GENL_HDRLEN, KNEST(type));
	return n ? nla_find(nla_data(n), nla_len(n), KTYPE(type)) : NULL;
}

/* Present with exactly @len payload bytes (len < 0: any length > 0). */
static bool mhas(struct nlmsghdr *nlh, uint32_t type, int len)
{
	struct nlattr *a = mattr(nlh, type);

	return a && (len < 0 ? nla_len(a) > 0 : nla_len(a) == len);
}

static uint32_t mu32(struct nlmsghdr *nlh, uint32_t type)
{
	struct nlattr *a = mattr(nlh, type);

	return a && nla_len(a) == 4 ? nla_get_u32(a) : NONE;
}

static uint64_t mu64(struct nlmsghdr *nlh, uint32_t type)
{
	struct nlattr *a = mattr(nlh, type);

	return a && nla_len(a) == 8 ? nla_get_u64(a) : ~0ULL;
}

static const char *mstr(struct nlmsghdr *nlh, uint32_t type)
{
	struct nlattr *a = mattr(nlh, type);

	if (!a || !nla_len(a) || ((char *)nla_data(a))[nla_len(a) - 1])
		return NULL;
	return nla_data(a);
}

/*
 * Every attribute of @nlh has a known type, the nests (with NLA_F_NESTED)
 * too, and what they hold fills them exactly.
 */
static bool mtypes_known(struct nlmsghdr *nlh)
{
	struct nlattr *a, *b;
	int rem, rem2, t;

	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		t = nla_type(a);
		if (t == DRACK_A_UNSPEC || t > DRACK_A_MAX)
			return false;
		if (!nest_max[t])
			continue;
		if (!(a->nla_type & NLA_F_NESTED))
			return false;
		nla_for_each_nested(b, a, rem2)
			if (nla_type(b) > nest_max[t] ||
			    (!nla_type(b) && t != DRACK_A_STATS))
				return false;
		if (rem2)
			return false;
	}
	return true;
}

/* Attributes every message of a kind must carry: key and length. */
struct want {
	uint32_t type;
	int len;		/* len -1: a non-empty string or blob */
};
#define W_END { 0, 0 }

static void expect_attrs(struct __test_metadata *_metadata,
			 struct nlmsghdr *nlh, const char *what,
			 const struct want *w)
{
	for (; w->type; w++) {
		EXPECT_TRUE(mhas(nlh, w->type, w->len))
			TH_LOG("%s: attribute %d missing or not %d bytes", what,
			       w->type, w->len);
	}
	EXPECT_TRUE(mtypes_known(nlh)) TH_LOG("%s: unknown attribute type", what);
}
