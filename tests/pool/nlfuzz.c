// SPDX-License-Identifier: GPL-2.0-only
/*
 * nlfuzz: a fuzzer for the generic netlink family "drack".
 *
 * It sends every command value of the family (0 .. DRACK_CMD_MAX + 2:
 * requests, event-only and unknown commands) with and without NLM_F_DUMP
 * and NLM_F_ACK, with random, missing, duplicated, out-of-range (type 0,
 * types past DRACK_A_MAX), mis-sized (0, short, exact, oversize up to a
 * few KB), nested-garbage and valid-looking attributes (pool, host,
 * Section, NIC ids and ifindexes at and past the limits of the live
 * pool), and damaged headers, then reads every reply. After each message
 * a NLMSG_NOOP with NLM_F_ACK follows: its ack ends the message's answer
 * (a message without NLM_F_ACK that succeeds gets no ack), and a dump is
 * read to its NLMSG_DONE, so a missing reply never hangs the program
 * (receive timeout: NLFUZZ_TIMEOUT_MS, a timeout is a failure).
 *
 * Every message is made from (seed, index) alone: a failure prints the
 * command to replay that one message (-i INDEX -v shows its bytes).
 *
 * What it checks, per message:
 *   - event-only and unknown commands are refused (never a success);
 *   - mode "user" (no CAP_NET_ADMIN in the initial user namespace: e.g.
 *     setpriv --reuid=nobody, or root of unshare -Urn): every
 *     state-changing command (SECTION_GRANT, SECTION_REFUSE,
 *     SECTION_REVOKE, HOST_FENCE, HOST_RECLAIM, FM_REGISTER,
 *     FM_UNREGISTER, POOL_FORMAT, NIC_EXPORT, NIC_UNEXPORT, NIC_ASSIGN)
 *     is refused, with EPERM when the header is well formed (or
 *     EOPNOTSUPP for NLM_F_DUMP: kernels 6.2 and later look up the dump
 *     op, which write commands lack, before checking the permission);
 *   - mode "fm" (root while another process, drack-fmd, is the fabric
 *     manager of every pool, in a netns with no exportable NIC): every
 *     state-changing command is refused too, by the FM check (EBUSY) or
 *     earlier, so no message changes state, valid-looking or not;
 *   - mode "any": no check of write commands (root fuzzing that may
 *     change the pool: for manual runs only);
 *   - every reply of the family is well formed (attributes fill it
 *     exactly) and every dump ends.
 * The state before and after (pool, host, Section, NIC tables, links,
 * counters) is compared by the caller, tests/net/nlfuzz.sh.
 *
 * Before the random messages come the fixed regression cases (seed,
 * index pairs below) and a sweep: every command with no attributes, with
 * its request attributes, each of them missing and doubled, and every
 * attribute type 0 .. DRACK_A_MAX + 1 empty and as a u32 0xffffffff.
 *
 * Usage: nlfuzz [-n N] [-s SEED] [-m user|fm|any] [-i INDEX [-v]] [-q]
 * Env: NLFUZZ_N (100000), NLFUZZ_SEED (from the clock), NLFUZZ_MODE
 * (user without CAP_NET_ADMIN, else fm), NLFUZZ_TIMEOUT_MS (3000).
 * Exit: 0 clean, 1 a check failed or a reply timed out, 2 bad set-up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>

#include "uapi/drack.h"

#define MAX_MSG		8192	/* bytes of one fuzz message at most */
#define RX_BUF		(1 << 17)
#define MAX_POOLS	8
#define NCMDS		(DRACK_CMD_MAX + 3)	/* 0 .. MAX + 2 */
#define SYNC_SEQ(s)	((s) + 1)
#define MAX_PRINTED	50	/* violations printed in full */

/* ---------------------------------------------------------------- */
/* The family as its spec (Documentation/netlink/specs/drack.yaml)    */
/* describes it                                                       */
/* ---------------------------------------------------------------- */

enum akind { K_UNUSED, K_PAD, K_U32, K_U64, K_STR, K_MAC, K_NEST };

static enum akind akind(unsigned int type)
{
	switch (type) {
	case DRACK_A_UNSPEC:
		return K_UNUSED;
	case DRACK_A_PAD:
		return K_PAD;
	case DRACK_A_POOL_SIZE: case DRACK_A_HOST_HEARTBEAT:
	case DRACK_A_POOL_FM_EPOCH: case DRACK_A_HOST_RELEASED:
	case DRACK_A_PEER_TX_PACKETS: case DRACK_A_PEER_TX_BYTES:
	case DRACK_A_PEER_RX_PACKETS: case DRACK_A_PEER_RX_BYTES:
	case DRACK_A_PEER_RX_BAD: case DRACK_A_NIC_ASSIGNED:
	case DRACK_A_NIC_TX_BYTES: case DRACK_A_NIC_RX_BYTES:
	case DRACK_A_NIC_DROPS:
		return K_U64;
	case DRACK_A_POOL_BACKEND: case DRACK_A_IFNAME:
	case DRACK_A_NIC_IFNAME: case DRACK_A_VNIC_IFNAME:
		return K_STR;
	case DRACK_A_HOST_MAC: case DRACK_A_NIC_MAC:
		return K_MAC;
	case DRACK_A_STATS:
		return K_NEST;
	default:
		return type <= DRACK_A_MAX ? K_U32 : K_UNUSED;
	}
}

#define L(...)	((const uint16_t[]){ __VA_ARGS__, 0 })

struct cmd {
	const char *name;
	bool doit, dumpit;	/* what the op table has */
	bool write;		/* changes state when valid */
	const uint16_t *req;	/* request (or event) attributes, 0-ended */
};

static const struct cmd cmds[NCMDS] = {
	[DRACK_CMD_UNSPEC] = { "unspec", .req = L(0) },
	[DRACK_CMD_POOL_GET] = { "pool-get", true, true, false,
		L(DRACK_A_POOL_ID) },
	[DRACK_CMD_HOST_GET] = { "host-get", false, true, false,
		L(DRACK_A_POOL_ID) },
	[DRACK_CMD_SECTION_GET] = { "section-get", false, true, false,
		L(DRACK_A_POOL_ID) },
	[DRACK_CMD_SECTION_GRANT] = { "section-grant", true, false, true,
		L(DRACK_A_POOL_ID, DRACK_A_HOST_ID, DRACK_A_SECTION_ID,
		  DRACK_A_CLASS) },
	[DRACK_CMD_SECTION_REQUEST] = { "section-request(event)", .req =
		L(DRACK_A_POOL_ID, DRACK_A_HOST_ID, DRACK_A_CLASS,
		  DRACK_A_COUNT) },
	[DRACK_CMD_HOST_NOTIFY] = { "host-notify(event)", .req =
		L(DRACK_A_POOL_ID, DRACK_A_HOST_ID, DRACK_A_HOST_STATE) },
	[DRACK_CMD_SECTION_REVOKE] = { "section-revoke", true, false, true,
		L(DRACK_A_POOL_ID, DRACK_A_SECTION_ID) },
	[DRACK_CMD_HOST_FENCE] = { "host-fence", true, false, true,
		L(DRACK_A_POOL_ID, DRACK_A_HOST_ID) },
	[DRACK_CMD_HOST_RECLAIM] = { "host-reclaim", true, false, true,
		L(DRACK_A_POOL_ID, DRACK_A_HOST_ID) },
	[DRACK_CMD_FM_REGISTER] = { "fm-register", true, false, true,
		L(DRACK_A_POOL_ID) },
	[DRACK_CMD_FM_UNREGISTER] = { "fm-unregister", true, false, true,
		L(DRACK_A_POOL_ID) },
	[DRACK_CMD_POOL_FORMAT] = { "pool-format", true, false, true,
		L(DRACK_A_POOL_ID, DRACK_A_POOL_MAX_HOSTS,
		  DRACK_A_POOL_REGIONS) },
	[DRACK_CMD_PEER_GET] = { "peer-get", false, true, false,
		L(DRACK_A_IFINDEX) },
	[DRACK_CMD_CLASS_GET] = { "class-get", false, true, false,
		L(DRACK_A_IFINDEX) },
	[DRACK_CMD_STATS_GET] = { "stats-get", false, true, false,
		L(DRACK_A_IFINDEX) },
	[DRACK_CMD_SECTION_NOTIFY] = { "section-notify(event)", .req =
		L(DRACK_A_POOL_ID, DRACK_A_SECTION_ID, DRACK_A_SECTION_OWNER,
		  DRACK_A_CLASS) },
	[DRACK_CMD_NIC_EXPORT] = { "nic-export", true, false, true,
		L(DRACK_A_IFINDEX, DRACK_A_NIC_IFINDEX) },
	[DRACK_CMD_NIC_UNEXPORT] = { "nic-unexport", true, false, true,
		L(DRACK_A_NIC_IFINDEX) },
	[DRACK_CMD_NIC_GET] = { "nic-get", false, true, false,
		L(DRACK_A_POOL_ID) },
	[DRACK_CMD_NIC_ASSIGN] = { "nic-assign", true, false, true,
		L(DRACK_A_POOL_ID, DRACK_A_NIC_ID, DRACK_A_HOST_ID,
		  DRACK_A_NIC_ASSIGN) },
	[DRACK_CMD_NIC_NOTIFY] = { "nic-notify(event)", .req =
		L(DRACK_A_POOL_ID, DRACK_A_NIC_ID, DRACK_A_NIC_STATE,
		  DRACK_A_NIC_OWNER) },
	[DRACK_CMD_PEER_NOTIFY] = { "peer-notify(event)", .req =
		L(DRACK_A_POOL_ID, DRACK_A_HOST_ID, DRACK_A_PEER_ID,
		  DRACK_A_PEER_STALLED) },
	[DRACK_CMD_SECTION_REFUSE] = { "section-refuse", true, false, true,
		L(DRACK_A_POOL_ID, DRACK_A_HOST_ID, DRACK_A_REFUSAL) },
	[DRACK_CMD_MAX + 1] = { "max+1", .req = L(DRACK_A_POOL_ID) },
	[DRACK_CMD_MAX + 2] = { "max+2", .req = L(DRACK_A_POOL_ID) },
};

static int nreq(const struct cmd *c)
{
	int n = 0;

	while (c->req[n])
		n++;
	return n;
}

/* ---------------------------------------------------------------- */
/* Fixed cases: (seed, index) of random messages worth replaying every  */
/* run, e.g. ones that once found a bug. Index -1 ends the list.        */
/* ---------------------------------------------------------------- */

static const struct {
	uint64_t seed;
	long index;
	const char *why;
} regressions[] = {
	{ 1, 0, "the first message of seed 1 (a smoke test of replay)" },
	{ 0, -1, NULL }
};

/* ---------------------------------------------------------------- */
/* Random numbers: splitmix64, one stream per message                 */
/* ---------------------------------------------------------------- */

static uint64_t rng;

static uint64_t rnd64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static uint32_t rnd(uint32_t n)
{
	return (uint32_t)(rnd64() % n);
}

/* True with probability pct / 100. */
static bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

static void rng_for(uint64_t seed, uint64_t index)
{
	rng = seed ^ (index * 0xd1342543de82ef95ULL) ^ 0x5851f42d4c957f2dULL;
	rnd64();
}

/* ---------------------------------------------------------------- */
/* What we know of the live system: pools, interfaces                  */
/* ---------------------------------------------------------------- */

struct pool_info {
	uint32_t id, count, meta, max_hosts, max_nics, regions, fm_pid;
};

static struct pool_info pools[MAX_POOLS];
static int npools;
static uint32_t ifindexes[16];
static int nifindexes;

static const char *mode = "";
static long timeout_ms = 3000;
static bool verbose, quiet;

/* ---------------------------------------------------------------- */
/* Building messages                                                  */
/* ---------------------------------------------------------------- */

struct msg {
	uint8_t buf[MAX_MSG];
	size_t len;		/* bytes sent */
	uint8_t cmd;
	uint16_t flags;
	bool processed;		/* the kernel hands it to genetlink */
	bool hdr_ok;		/* ... and genetlink's header checks pass */
	char what[96];		/* how it was made, for the logs */
};

static struct nlmsghdr *msg_nlh(struct msg *m)
{
	return (struct nlmsghdr *)m->buf;
}

static void msg_start(struct msg *m, uint8_t cmd, uint16_t flags, int fam)
{
	struct nlmsghdr *nlh = msg_nlh(m);
	struct genlmsghdr *g;

	memset(m->buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlh->nlmsg_type = (uint16_t)fam;
	nlh->nlmsg_flags = flags;
	g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = DRACK_GENL_VERSION;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
	m->cmd = cmd;
	m->flags = flags;
	m->what[0] = 0;
}

static size_t room(const struct msg *m)
{
	return MAX_MSG - m->len;
}

/* Append an attribute (header + payload, padded); false if no room. */
static bool put_attr(struct msg *m, uint16_t type, const void *data,
		     size_t len)
{
	struct nlattr *a;

	if (NLA_ALIGN(NLA_HDRLEN + len) > room(m) || NLA_HDRLEN + len > 0xffff)
		return false;
	a = (struct nlattr *)(m->buf + m->len);
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy(a + 1, data, len);
	memset((uint8_t *)(a + 1) + len, 0, NLA_ALIGN(len) - len);
	m->len += NLA_ALIGN(NLA_HDRLEN + len);
	return true;
}

static bool put_u32(struct msg *m, uint16_t type, uint32_t v)
{
	return put_attr(m, type, &v, sizeof(v));
}

static void rnd_bytes(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rnd64();
}

static const uint32_t edge32[] = {
	0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 63, 64, 65, 127, 128, 255, 256,
	0xfffe, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe,
	0xffffffff,
};

static uint32_t pick(const uint32_t *v, size_t n)
{
	return v[rnd((uint32_t)n)];
}
#define PICK(...) pick((const uint32_t[]){ __VA_ARGS__ },		\
		       sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

static const struct pool_info *rnd_pool(void)
{
	static const struct pool_info none = { .id = 0, .count = 16,
		.meta = 1, .max_hosts = 8, .max_nics = 16, .regions = 1 };

	return npools ? &pools[rnd((uint32_t)npools)] : &none;
}

/* A u32 that might mean something for attribute @type. */
static uint32_t value32(uint16_t type)
{
	const struct pool_info *p = rnd_pool();

	if (chance(15))
		return chance(50) ? pick(edge32, sizeof(edge32) / sizeof(*edge32)) :
				    (uint32_t)rnd64();
	switch (type) {
	case DRACK_A_POOL_ID:
		return chance(70) ? p->id :
		       PICK(p->id + 1, npools, 7, 255, 0xffffffff);
	case DRACK_A_HOST_ID: case DRACK_A_PEER_ID: case DRACK_A_SECTION_OWNER:
	case DRACK_A_NIC_OWNER:
		return PICK(0, 1, 2, p->max_hosts - 1, p->max_hosts,
			    p->max_hosts + 1, 63, 64, 65, 0xfffe, 0xffff);
	case DRACK_A_SECTION_ID:
		return PICK(0, p->meta - 1, p->meta, p->meta + 1, p->count / 2,
			    p->count - 1, p->count, p->count + 1, 0xfffe, 0xffff,
			    0xffffffff);
	case DRACK_A_CLASS:
		return PICK(0, 1, 2, 3, 0xffffffff);
	case DRACK_A_POOL_MAX_HOSTS:
		return PICK(0, 1, 2, 3, p->max_hosts, 63, 64, 65, 0xffffffff);
	case DRACK_A_POOL_REGIONS:
		return PICK(0, 1, 2, p->regions, 15, 16, 17, 0xffffffff);
	case DRACK_A_NIC_ID:
		return PICK(0, 1, p->max_nics - 1, p->max_nics, 15, 16, 17);
	case DRACK_A_NIC_ASSIGN: case DRACK_A_PEER_STALLED:
	case DRACK_A_PEER_REACHABLE:
		return PICK(0, 1, 2, 0xffffffff);
	case DRACK_A_REFUSAL:
		return PICK(0, 1, 2, 3, 0xffffffff);
	case DRACK_A_HOST_STATE: case DRACK_A_PEER_STATE: case DRACK_A_NIC_STATE:
		return rnd(8);
	case DRACK_A_IFINDEX: case DRACK_A_NIC_IFINDEX: case DRACK_A_HOST_IFINDEX:
	case DRACK_A_VNIC_IFINDEX:
		if (nifindexes && chance(70))
			return ifindexes[rnd((uint32_t)nifindexes)];
		return PICK(0, 1, 2, 3, 1000, 0x7fffffff, 0xffffffff);
	case DRACK_A_COUNT:
		return PICK(0, 1, 2, 1000, 0xffffffff);
	default:
		return chance(50) ? rnd(4) : pick(edge32, sizeof(edge32) / sizeof(*edge32));
	}
}

static const char *const names[] = {
	"rack0", "lo", "", "ram", "ivshmem", "phys", "rack0v0", "h0",
	"0123456789abcde", "0123456789abcdef", "0123456789abcdefg", "%s%n",
};

/*
 * Payload of attribute @type: mostly the right size with a value that
 * might mean something, else any size, random bytes.
 */
static void put_payload(struct msg *m, uint16_t type, int depth);

static void put_nested(struct msg *m, uint16_t type, int depth)
{
	size_t start = m->len;
	struct nlattr *a;
	int i, n = (int)rnd(6);

	if (!put_attr(m, type, NULL, 0))
		return;
	for (i = 0; i < n; i++) {
		/* inner types: stats counters, their pad, junk past the end */
		uint16_t t = chance(70) ? (uint16_t)rnd(DRACK_STAT_MAX + 3) :
					  (uint16_t)rnd64();

		if (depth < 2 && chance(15))
			put_nested(m, (uint16_t)(t | NLA_F_NESTED), depth + 1);
		else
			put_payload(m, t, depth + 1);
	}
	a = (struct nlattr *)(m->buf + start);
	a->nla_len = (uint16_t)(m->len - start);
}

static void put_payload(struct msg *m, uint16_t type, int depth)
{
	uint8_t data[4096];
	enum akind k = depth ? K_U64 : akind(type & NLA_TYPE_MASK);
	uint64_t v64;
	uint32_t v32;
	size_t len;

	if (chance(60)) {
		switch (k) {
		case K_U32:
			put_u32(m, type, value32(type & NLA_TYPE_MASK));
			return;
		case K_U64:
			v64 = chance(50) ? value32(type & NLA_TYPE_MASK) : rnd64();
			if (chance(20))
				v64 = ~0ULL;
			put_attr(m, type, &v64, sizeof(v64));
			return;
		case K_STR: {
			const char *s = names[rnd(sizeof(names) / sizeof(*names))];

			/* with its NUL mostly, else without */
			put_attr(m, type, s, strlen(s) + (chance(80) ? 1 : 0));
			return;
		}
		case K_MAC:
			rnd_bytes(data, 6);
			put_attr(m, type, data, 6);
			return;
		case K_NEST:
			if (depth < 2) {
				put_nested(m, (uint16_t)(type | (chance(80) ? NLA_F_NESTED : 0)),
					   depth);
				return;
			}
			break;
		case K_PAD: case K_UNUSED:
			break;
		}
	}
	switch (rnd(10)) {
	case 0: len = 0; break;
	case 1: len = 1 + rnd(3); break;		/* short of a u32 */
	case 2: len = 4; break;
	case 3: len = 5 + rnd(3); break;		/* between u32 and u64 */
	case 4: len = 8; break;
	case 5: len = 9 + rnd(8); break;
	case 6: len = 6; break;
	case 7: len = rnd(64); break;
	case 8: len = 256 + rnd(768); break;
	default: len = chance(50) ? 1024 + rnd(3072) : 4000 + rnd(96); break;
	}
	if (len > sizeof(data))
		len = sizeof(data);
	rnd_bytes(data, len);
	if (len == 4 && chance(50)) {
		v32 = value32(type & NLA_TYPE_MASK);
		memcpy(data, &v32, 4);
	}
	put_attr(m, type, data, len);
}

/* A random attribute type: mostly the command's own ones. */
static uint16_t rnd_type(const struct cmd *c)
{
	int n = nreq(c);
	uint16_t t;

	switch (rnd(20)) {
	case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8:
		t = n ? c->req[rnd((uint32_t)n)] : (uint16_t)(1 + rnd(DRACK_A_MAX));
		break;
	case 9: case 10: case 11: case 12: case 13:
		t = (uint16_t)(1 + rnd(DRACK_A_MAX));	/* any known type */
		break;
	case 14: case 15:
		t = 0;
		break;
	case 16: case 17:
		t = (uint16_t)(DRACK_A_MAX + 1 + rnd(4));	/* just past the end */
		break;
	default:
		t = (uint16_t)rnd(NLA_TYPE_MASK + 1);
		break;
	}
	if (chance(4))
		t |= NLA_F_NESTED;
	if (chance(2))
		t |= NLA_F_NET_BYTEORDER;
	return t;
}

/* Copy the attribute at @off of @m to its end (a duplicate). */
static void dup_attr(struct msg *m, size_t off)
{
	const struct nlattr *a = (const struct nlattr *)(m->buf + off);
	size_t len = NLA_ALIGN(a->nla_len);

	if (len <= room(m)) {
		memmove(m->buf + m->len, a, len);
		m->len += len;
	}
}

static int rnd_flags(const struct cmd *c)
{
	int f = 0;

	if (!chance(3))
		f |= NLM_F_REQUEST;
	if (chance(50))
		f |= NLM_F_ACK;
	if (chance(c->dumpit ? 60 : 15))
		f |= NLM_F_DUMP;
	else if (chance(4))
		f |= chance(50) ? NLM_F_ROOT : NLM_F_MATCH;	/* half a dump */
	if (chance(4))
		f |= NLM_F_ECHO;
	if (chance(3))
		f |= (int)PICK(NLM_F_MULTI, NLM_F_ATOMIC, NLM_F_REPLACE,
			       NLM_F_EXCL, NLM_F_CREATE, NLM_F_APPEND,
			       NLM_F_CAPPED, NLM_F_ACK_TLVS, 0x8000);
	return f;
}

/*
 * Message @index of @seed: command, flags, header damage, attributes.
 * Almost half are well formed requests (the command's attributes with
 * values near the limits), then maybe one dropped, doubled or resized.
 */
static void gen_random(struct msg *m, int fam, uint64_t seed, long index)
{
	const struct cmd *c;
	struct genlmsghdr *g;
	size_t offs[64];
	int i, n, nattrs = 0, cut = 0;
	uint8_t cmd;

	rng_for(seed, (uint64_t)index);
	cmd = chance(97) ? (uint8_t)rnd(NCMDS) : (uint8_t)rnd(256);
	c = cmd < NCMDS ? &cmds[cmd] : &cmds[DRACK_CMD_MAX + 1];
	msg_start(m, cmd, (uint16_t)rnd_flags(c), fam);

	g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	if (chance(3))
		g->version = (uint8_t)PICK(0, 2, 255);
	if (chance(3))
		g->reserved = (uint16_t)(1 + rnd(0xffff));
	if (chance(2))
		msg_nlh(m)->nlmsg_pid = (uint32_t)rnd64();

	if (chance(45)) {
		/* the command's attributes, in order or not */
		n = nreq(c);
		for (i = 0; i < n && nattrs < 64; i++) {
			uint16_t t = c->req[chance(80) ? (uint32_t)i : rnd((uint32_t)n)];

			offs[nattrs++] = m->len;
			if (akind(t) == K_U32)
				put_u32(m, t, value32(t));
			else
				put_payload(m, t, 0);
		}
		snprintf(m->what, sizeof(m->what), "request attrs");
	} else {
		switch (rnd(10)) {
		case 0: n = 0; break;
		case 1: case 2: case 3: case 4: case 5: n = 1 + (int)rnd(4); break;
		case 6: case 7: case 8: n = 5 + (int)rnd(12); break;
		default: n = 17 + (int)rnd(48); break;
		}
		for (i = 0; i < n && nattrs < 64 && room(m) > 64; i++) {
			uint16_t t = rnd_type(c);

			offs[nattrs++] = m->len;
			if (t & NLA_F_NESTED && chance(70))
				put_nested(m, t, 0);
			else
				put_payload(m, t, 0);
		}
		snprintf(m->what, sizeof(m->what), "%d random attrs", nattrs);
	}
	/* duplicates of some of them */
	if (nattrs && chance(20)) {
		n = 1 + (int)rnd(3);
		for (i = 0; i < n; i++)
			dup_attr(m, offs[rnd((uint32_t)nattrs)]);
		strncat(m->what, ", duplicates", sizeof(m->what) - strlen(m->what) - 1);
	}
	/* one attribute's length made wrong in place */
	if (nattrs && chance(5)) {
		struct nlattr *a = (struct nlattr *)(m->buf + offs[rnd((uint32_t)nattrs)]);

		a->nla_len = (uint16_t)PICK(0, 1, 3, 4, a->nla_len - 1u,
					    a->nla_len + 1u, a->nla_len + 4u,
					    0xffff);
		strncat(m->what, ", bad nla_len", sizeof(m->what) - strlen(m->what) - 1);
	}
	/* trailing bytes that are not a whole attribute */
	if (chance(3) && room(m) >= 8) {
		size_t k = 1 + rnd(7);

		rnd_bytes(m->buf + m->len, k);
		m->len += k;
		strncat(m->what, ", trailing junk", sizeof(m->what) - strlen(m->what) - 1);
	}

	msg_nlh(m)->nlmsg_len = (uint32_t)m->len;
	/*
	 * Header length damage. A cut leaves fewer than NLMSG_HDRLEN bytes
	 * behind, so they never parse as a second message (whose type we
	 * would not control).
	 */
	switch (rnd(100)) {
	case 0: case 1: case 2:
		cut = 1 + (int)rnd(NLMSG_HDRLEN - 1);
		if ((size_t)cut > m->len - NLMSG_HDRLEN)
			cut = (int)(m->len - NLMSG_HDRLEN);
		msg_nlh(m)->nlmsg_len -= (uint32_t)cut;
		strncat(m->what, ", nlmsg_len cut", sizeof(m->what) - strlen(m->what) - 1);
		break;
	case 3:
		msg_nlh(m)->nlmsg_len += 1 + rnd(64);	/* longer than sent */
		break;
	case 4:
		/* no room for the genl header; nothing sent after it */
		msg_nlh(m)->nlmsg_len = NLMSG_HDRLEN + rnd(GENL_HDRLEN);
		m->len = msg_nlh(m)->nlmsg_len;
		break;
	case 5:
		msg_nlh(m)->nlmsg_len = rnd(NLMSG_HDRLEN);
		break;
	}
}

/* Whether the kernel passes it on, and genetlink's header verdict. */
static void classify(struct msg *m)
{
	const struct nlmsghdr *nlh = msg_nlh(m);
	const struct genlmsghdr *g = (const void *)(m->buf + NLMSG_HDRLEN);
	uint16_t f = nlh->nlmsg_flags;

	m->processed = nlh->nlmsg_len >= NLMSG_HDRLEN &&
		       nlh->nlmsg_len <= m->len && (f & NLM_F_REQUEST);
	if ((f & NLM_F_DUMP) == NLM_F_DUMP)
		f &= (uint16_t)~NLM_F_DUMP;
	m->hdr_ok = m->processed &&
		    nlh->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN &&
		    (m->cmd < DRACK_CMD_POOL_GET ||	/* resv_start_op */
		     (!g->reserved &&
		      !(f & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO))));
}

/* ---------------------------------------------------------------- */
/* The sweep: every command, systematically                            */
/* ---------------------------------------------------------------- */

/*
 * Sweep case @index, or false past the last. Per command and per flag
 * set (NLM_F_ACK, NLM_F_ACK | NLM_F_DUMP): no attributes; its request
 * attributes; each of them missing; each doubled; every attribute type
 * 0 .. DRACK_A_MAX + 1 alone, empty and as u32 0xffffffff.
 */
static bool gen_sweep(struct msg *m, int fam, long index)
{
	const long per_cmd = 2 * (2 + 2 * 8 + 2 * (DRACK_A_MAX + 2));
	const struct cmd *c;
	const struct pool_info *p = npools ? &pools[0] : NULL;
	long k;
	int cmd, j, n;
	uint16_t t;

	if (index >= per_cmd * NCMDS)
		return false;
	cmd = (int)(index / per_cmd);
	k = index % per_cmd;
	c = &cmds[cmd];
	n = nreq(c);
	msg_start(m, (uint8_t)cmd, (uint16_t)(NLM_F_REQUEST | NLM_F_ACK |
					      (k & 1 ? NLM_F_DUMP : 0)), fam);
	k /= 2;
	rng_for(0, (uint64_t)index);

#define VALID(t) ((t) == DRACK_A_POOL_ID && p ? p->id :			\
		  (t) == DRACK_A_IFINDEX && nifindexes ? ifindexes[nifindexes - 1] : \
		  (t) == DRACK_A_NIC_IFINDEX ? 1 : (t) == DRACK_A_POOL_MAX_HOSTS ? 2 : \
		  (t) == DRACK_A_POOL_REGIONS || (t) == DRACK_A_REFUSAL ? 1 : \
		  (t) == DRACK_A_NIC_ASSIGN ? 0 : 1)
	if (k == 0) {
		snprintf(m->what, sizeof(m->what), "sweep: no attrs");
	} else if (k == 1 || (k >= 2 && k < 2 + 2 * 8)) {
		int skip = -1, twice = -1;

		if (k >= 2 && k < 10)
			skip = (int)k - 2;
		else if (k >= 10)
			twice = (int)k - 10;
		if ((skip >= n) || (twice >= n))
			skip = twice = -1;	/* a plain request again */
		for (j = 0; j < n; j++) {
			if (j == skip)
				continue;
			put_u32(m, c->req[j], VALID(c->req[j]));
			if (j == twice)
				put_u32(m, c->req[j], ~0U);
		}
		if (skip >= 0)
			snprintf(m->what, sizeof(m->what), "sweep: request attrs, #%d missing", skip);
		else if (twice >= 0)
			snprintf(m->what, sizeof(m->what), "sweep: request attrs, #%d doubled", twice);
		else
			snprintf(m->what, sizeof(m->what), "sweep: request attrs");
	} else {
		k -= 2 + 2 * 8;
		t = (uint16_t)(k / 2);
		if (k & 1)
			put_u32(m, t, ~0U);
		else
			put_attr(m, t, NULL, 0);
		snprintf(m->what, sizeof(m->what), "sweep: type %u %s", t,
			 k & 1 ? "u32 ~0" : "empty");
	}
#undef VALID
	msg_nlh(m)->nlmsg_len = (uint32_t)m->len;
	return true;
}

/* ---------------------------------------------------------------- */
/* Socket, sending, reading the answer                                */
/* ---------------------------------------------------------------- */

struct nl {
	struct nl_sock *sk;
	int fd, fam;
	uint32_t seq;
};

static int nl_open(struct nl *nl)
{
	int one = 1, sz = 1 << 20;

	nl->sk = nl_socket_alloc();
	if (!nl->sk || genl_connect(nl->sk))
		return -1;
	nl->fd = nl_socket_get_fd(nl->sk);
	nl->fam = genl_ctrl_resolve(nl->sk, DRACK_GENL_NAME);
	if (nl->fam < 0) {
		fprintf(stderr, "nlfuzz: genl family %s not found: is drack.ko loaded? (%s)\n",
			DRACK_GENL_NAME, nl_geterror(nl->fam));
		return -1;
	}
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	nl->seq = 1000;
	return 0;
}

static int send_raw(struct nl *nl, const void *buf, size_t len)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;

	do {
		n = sendto(nl->fd, buf, len, 0, (struct sockaddr *)&kernel,
			   sizeof(kernel));
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -errno;
}

struct answer {
	bool err_seen;		/* NLMSG_ERROR or NLMSG_DONE for the message */
	bool dump;		/* NLM_F_MULTI replies came */
	bool done;		/* NLMSG_DONE came */
	bool sync;		/* the NOOP's ack came */
	bool timeout;
	int err;		/* 0 or -errno of the ack / NLMSG_DONE */
	int replies;		/* family messages for the message */
	int bad_replies;	/* of them, not well formed */
	int stray;		/* messages of other sequence numbers */
	int overruns;		/* ENOBUFS on receive */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A reply of the family: genl header, then attributes filling it exactly. */
static bool reply_ok(const struct nlmsghdr *nlh)
{
	const struct nlattr *a;
	int rem;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return false;
	rem = (int)(nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
	a = (const struct nlattr *)((const uint8_t *)nlh + NLMSG_HDRLEN + GENL_HDRLEN);
	while (rem >= NLA_HDRLEN) {
		if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
			return false;
		rem -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const uint8_t *)a + NLA_ALIGN(a->nla_len));
	}
	return rem == 0 || rem < 0;	/* the last one unpadded at the end */
}

/* Read until the NOOP's ack and, for a dump, its NLMSG_DONE. */
static void read_answer(struct nl *nl, uint32_t seq, struct answer *an)
{
	static uint8_t buf[RX_BUF];
	long long end = now_ms() + timeout_ms;

	memset(an, 0, sizeof(*an));
	while (!an->sync || (an->dump && !an->done)) {
		struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
		long long left = end - now_ms();
		int n;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0) {
			if (left <= 0 || errno != EINTR) {
				an->timeout = true;
				return;
			}
			continue;
		}
		n = (int)recv(nl->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS)
				an->overruns++;
			continue;
		}
		for (; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq == SYNC_SEQ(seq)) {
				an->sync = true;
				continue;
			}
			if (nlh->nlmsg_seq != seq) {
				an->stray++;
				continue;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);

				an->err_seen = true;
				an->err = e->error;
			} else if (nlh->nlmsg_type == NLMSG_DONE) {
				const int *e = NLMSG_DATA(nlh);

				an->err_seen = an->done = true;
				an->err = nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int) ?
					  *e : 0;
			} else if (nlh->nlmsg_type == nl->fam) {
				an->replies++;
				if (nlh->nlmsg_flags & NLM_F_MULTI)
					an->dump = true;
				if (!reply_ok(nlh))
					an->bad_replies++;
			} else {
				an->stray++;
			}
		}
	}
}

/* Send @m and its NOOP, read the answer. */
static int exchange(struct nl *nl, struct msg *m, struct answer *an)
{
	struct nlmsghdr noop = {
		.nlmsg_len = NLMSG_HDRLEN,
		.nlmsg_type = NLMSG_NOOP,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
	};
	int err;

	nl->seq += 2;
	msg_nlh(m)->nlmsg_seq = nl->seq;
	noop.nlmsg_seq = SYNC_SEQ(nl->seq);
	classify(m);
	err = send_raw(nl, m->buf, m->len);
	if (err)
		return err;
	err = send_raw(nl, &noop, sizeof(noop));
	if (err)
		return err;
	read_answer(nl, nl->seq, an);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Counting and checking                                              */
/* ---------------------------------------------------------------- */

enum outcome {
	O_ACK,		/* error 0 in an ack */
	O_DATA,		/* a do reply, no ack asked */
	O_DUMP,		/* a dump to its NLMSG_DONE 0 */
	O_SILENT,	/* processed, no error, nothing said (no NLM_F_ACK) */
	O_IGNORED,	/* not a request or a bad nlmsg_len: never processed */
	O_ERRNO,	/* refused: by errno below */
	O_TIMEOUT,
	O_NR
};

static const char *const outcome_name[O_NR] = {
	"ok, ack", "ok, reply", "ok, dump", "ok, no answer (no NLM_F_ACK)",
	"not processed (no NLM_F_REQUEST or bad nlmsg_len)", "refused",
	"TIMEOUT",
};

static struct {
	long outcome[O_NR];
	long by_errno[512];
	long sent[256], ok[256];
	long violations, replies, bad_replies, stray, overruns;
} st;

static const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	case ERANGE: return "ERANGE";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EMSGSIZE: return "EMSGSIZE";
	case ENOBUFS: return "ENOBUFS";
	case EALREADY: return "EALREADY";
	case ENETDOWN: return "ENETDOWN";
	case ENOMEM: return "ENOMEM";
	case E2BIG: return "E2BIG";
	case EEXIST: return "EEXIST";
	case EFAULT: return "EFAULT";
	case ENOSPC: return "ENOSPC";
	case EINTR: return "EINTR";
	default: return "E?";
	}
}

static void hexdump(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%s%02x%s", i % 16 ? "" : "#   ", p[i],
		       i % 16 == 15 || i + 1 == n ? "\n" : " ");
}

static const char *cmd_name(uint8_t cmd)
{
	return cmd < NCMDS ? cmds[cmd].name : "unknown";
}

/* One message's verdict; prints and counts a violation. */
static void judge(const char *src, uint64_t seed, long index, struct msg *m,
		  const struct answer *an)
{
	const struct cmd *c = m->cmd < NCMDS ? &cmds[m->cmd] : NULL;
	bool known = c && (c->doit || c->dumpit);
	bool success, bad = false;
	enum outcome o;
	char why[160] = "";

	if (an->timeout)
		o = O_TIMEOUT;
	else if (!m->processed)
		o = O_IGNORED;
	else if (an->err_seen && an->err)
		o = O_ERRNO;
	else if (an->err_seen && an->done)
		o = O_DUMP;
	else if (an->err_seen)
		o = O_ACK;
	else if (an->replies)
		o = O_DATA;
	else
		o = O_SILENT;
	st.outcome[o]++;
	if (o == O_ERRNO && -an->err > 0 && -an->err < 512)
		st.by_errno[-an->err]++;
	st.sent[m->cmd]++;
	success = o == O_ACK || o == O_DATA || o == O_DUMP || o == O_SILENT;
	if (success)
		st.ok[m->cmd]++;
	st.replies += an->replies;
	st.bad_replies += an->bad_replies;
	st.stray += an->stray;
	st.overruns += an->overruns;

	if (o == O_TIMEOUT) {
		snprintf(why, sizeof(why), "no answer within %ld ms%s", timeout_ms,
			 an->dump ? " (a dump that does not end)" : "");
		bad = true;
	} else if (an->bad_replies) {
		snprintf(why, sizeof(why), "%d malformed replies", an->bad_replies);
		bad = true;
	} else if (o == O_IGNORED && (an->err || an->replies)) {
		/* (a non-request with NLM_F_ACK gets an ack 0) */
		snprintf(why, sizeof(why), "a message the kernel should ignore was answered");
		bad = true;
	} else if (!known && success) {
		snprintf(why, sizeof(why), "an event-only or unknown command succeeded");
		bad = true;
	} else if (c && c->write && success && strcmp(mode, "any")) {
		snprintf(why, sizeof(why), "state-changing command succeeded (mode %s)", mode);
		bad = true;
	} else if (c && c->write && !strcmp(mode, "user") && m->hdr_ok &&
		   o == O_ERRNO && an->err != -EPERM &&
		   /* 6.2+ look a dump op up before the permission check */
		   !(an->err == -EOPNOTSUPP &&
		     (m->flags & NLM_F_DUMP) == NLM_F_DUMP)) {
		snprintf(why, sizeof(why), "refused with %s, not EPERM, without CAP_NET_ADMIN",
			 errname(-an->err));
		bad = true;
	}
	if (!bad && !verbose)
		return;
	if (bad && ++st.violations > MAX_PRINTED && !verbose) {
		if (st.violations == MAX_PRINTED + 1)
			printf("# (more violations: not printed)\n");
		return;
	}
	printf("# %s %s index %ld: cmd %u (%s) flags 0x%x len %zu/%u (%s): %s",
	       bad ? "VIOLATION" : "message", src, index, m->cmd,
	       cmd_name(m->cmd), msg_nlh(m)->nlmsg_flags, m->len,
	       msg_nlh(m)->nlmsg_len, m->what, outcome_name[o]);
	if (o == O_ERRNO)
		printf(" %s (%d)", errname(-an->err), an->err);
	printf(", %d replies%s%s\n", an->replies, bad ? ": " : "", why);
	if (bad)
		printf("#   replay: nlfuzz -m %s %s %ld -v%s%" PRIu64 "\n", mode,
		       !strcmp(src, "sweep") ? "-w" : "-i", index,
		       !strcmp(src, "sweep") ? "  # seed " : " -s ", seed);
	if (verbose)
		hexdump(m->buf, m->len);
}

/* ---------------------------------------------------------------- */
/* Set-up: what the pools look like, who we are                        */
/* ---------------------------------------------------------------- */

static uint32_t attr_u32(const struct nlmsghdr *nlh, int type)
{
	const struct nlattr *a = (const void *)((const uint8_t *)nlh + NLMSG_HDRLEN + GENL_HDRLEN);
	int rem = (int)nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

	for (; rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
	     rem -= NLA_ALIGN(a->nla_len),
	     a = (const void *)((const uint8_t *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == type && a->nla_len == NLA_HDRLEN + 4)
			return *(const uint32_t *)(a + 1);
	return 0;
}

/* A POOL_GET dump, read plainly. */
static int read_pools(struct nl *nl)
{
	static uint8_t buf[RX_BUF];
	struct msg *m = calloc(1, sizeof(*m));
	bool done = false;

	if (!m)
		return -1;
	msg_start(m, DRACK_CMD_POOL_GET, NLM_F_REQUEST | NLM_F_DUMP, nl->fam);
	msg_nlh(m)->nlmsg_len = (uint32_t)m->len;
	msg_nlh(m)->nlmsg_seq = ++nl->seq;
	if (send_raw(nl, m->buf, m->len)) {
		free(m);
		return -1;
	}
	free(m);
	npools = 0;
	while (!done) {
		struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
		int n;

		if (poll(&pfd, 1, (int)timeout_ms) <= 0)
			return -1;
		n = (int)recv(nl->fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -1;
		for (; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != nl->seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR) {
				done = true;
			} else if (nlh->nlmsg_type == nl->fam && npools < MAX_POOLS) {
				struct pool_info *p = &pools[npools++];

				p->id = attr_u32(nlh, DRACK_A_POOL_ID);
				p->count = attr_u32(nlh, DRACK_A_POOL_SECTION_COUNT);
				p->meta = attr_u32(nlh, DRACK_A_POOL_META_SECTIONS);
				p->max_hosts = attr_u32(nlh, DRACK_A_POOL_MAX_HOSTS);
				p->max_nics = attr_u32(nlh, DRACK_A_POOL_MAX_NICS);
				p->regions = attr_u32(nlh, DRACK_A_POOL_REGIONS);
				p->fm_pid = attr_u32(nlh, DRACK_A_POOL_FM_PID);
			}
		}
	}
	return 0;
}

static void read_ifindexes(void)
{
	struct if_nameindex *ifs = if_nameindex(), *i;

	nifindexes = 0;
	for (i = ifs; i && i->if_index && nifindexes < 15; i++)
		ifindexes[nifindexes++] = i->if_index;
	if (ifs)
		if_freenameindex(ifs);
	/* one past the last: no such device */
	ifindexes[nifindexes] = nifindexes ? ifindexes[nifindexes - 1] + 1 : 1;
	nifindexes++;
}

static bool has_net_admin(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return false;
	return d[CAP_TO_INDEX(CAP_NET_ADMIN)].effective & CAP_TO_MASK(CAP_NET_ADMIN);
}

/* The initial user namespace maps every uid to itself. */
static bool in_init_userns(void)
{
	unsigned long a = 0, b = 0, n = 0;
	FILE *f = fopen("/proc/self/uid_map", "r");
	bool init;

	if (!f)
		return true;
	init = fscanf(f, "%lu %lu %lu", &a, &b, &n) == 3 && !a && !b &&
	       n == 4294967295UL;
	fclose(f);
	return init;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nlfuzz [-n N] [-s SEED] [-m user|fm|any] [-i INDEX | -w SWEEP] [-v] [-q]\n"
		"  -n N      random messages (NLFUZZ_N, default 100000)\n"
		"  -s SEED   (NLFUZZ_SEED, default from the clock; printed)\n"
		"  -m MODE   user: no CAP_NET_ADMIN, every write refused with EPERM\n"
		"            fm: root, another process is every pool's fabric manager:\n"
		"                every write refused; any: writes not checked\n"
		"            (NLFUZZ_MODE; default user or fm as our capabilities say)\n"
		"  -i INDEX  send only random message INDEX of SEED; -w: sweep case\n"
		"  -v        print every message and its answer; -q: only the summary\n");
	exit(2);
}

static uint64_t parse_u64(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (!*s || *end)
		usage();
	return v;
}

/* ---------------------------------------------------------------- */
/* main                                                               */
/* ---------------------------------------------------------------- */

static int run_one(struct nl *nl, struct msg *m, const char *src,
		   uint64_t seed, long index)
{
	struct answer an;
	int err = exchange(nl, m, &an);

	if (err) {
		printf("# %s index %ld: send failed: %s\n", src, index, strerror(-err));
		st.violations++;
		return -1;
	}
	judge(src, seed, index, m, &an);
	return 0;
}

int main(int argc, char **argv)
{
	const char *env;
	uint64_t seed;
	long n = 100000, i, one = -1, sweep_one = -1, nsweep = 0, nfixed = 0;
	long long t0, t1;
	struct msg *m;
	struct nl nl;
	bool admin;
	int opt, p;

	env = getenv("NLFUZZ_N");
	if (env && *env)
		n = (long)parse_u64(env);
	env = getenv("NLFUZZ_SEED");
	seed = env && *env ? parse_u64(env) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	env = getenv("NLFUZZ_MODE");
	if (env && *env)
		mode = env;
	env = getenv("NLFUZZ_TIMEOUT_MS");
	if (env && *env)
		timeout_ms = (long)parse_u64(env);
	while ((opt = getopt(argc, argv, "n:s:m:i:w:vqh")) != -1) {
		switch (opt) {
		case 'n': n = (long)parse_u64(optarg); break;
		case 's': seed = parse_u64(optarg); break;
		case 'm': mode = optarg; break;
		case 'i': one = (long)parse_u64(optarg); break;
		case 'w': sweep_one = (long)parse_u64(optarg); break;
		case 'v': verbose = true; break;
		case 'q': quiet = true; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* what counts is CAP_NET_ADMIN in the initial user namespace */
	admin = has_net_admin() && in_init_userns();
	if (!*mode)
		mode = admin ? "fm" : "user";
	if (strcmp(mode, "user") && strcmp(mode, "fm") && strcmp(mode, "any"))
		usage();
	if (!strcmp(mode, "user") && admin) {
		fprintf(stderr, "nlfuzz: mode user but we have CAP_NET_ADMIN in the initial user namespace (run it as nobody)\n");
		return 2;
	}
	if (nl_open(&nl))
		return 2;
	if (read_pools(&nl)) {
		fprintf(stderr, "nlfuzz: cannot dump the pools\n");
		return 2;
	}
	read_ifindexes();
	m = calloc(1, sizeof(*m));
	if (!m)
		return 2;

	if (one >= 0 || sweep_one >= 0)
		n = 1;
	printf("# nlfuzz: seed %" PRIu64 ", %ld random messages, mode %s (%sCAP_NET_ADMIN), family %s id %d, uid %u\n",
	       seed, n, mode, admin ? "" : "no ", DRACK_GENL_NAME, nl.fam, getuid());
	for (p = 0; p < npools; p++) {
		printf("# pool %u: %u Sections (%u metadata), %u hosts, %u NICs, %u regions, fabric manager pid %u\n",
		       pools[p].id, pools[p].count, pools[p].meta, pools[p].max_hosts,
		       pools[p].max_nics, pools[p].regions, pools[p].fm_pid);
		if (!strcmp(mode, "fm") && (!pools[p].fm_pid ||
					     pools[p].fm_pid == (uint32_t)getpid())) {
			fprintf(stderr, "nlfuzz: mode fm, but no other process is the fabric manager of pool %u: writes could succeed (start drack-fmd, or -m any)\n",
				pools[p].id);
			return 2;
		}
	}

	if (one >= 0 || sweep_one >= 0) {
		verbose = true;
		if (one >= 0)
			gen_random(m, nl.fam, seed, one);
		else if (!gen_sweep(m, nl.fam, sweep_one))
			usage();
		run_one(&nl, m, one >= 0 ? "random" : "sweep", seed, one >= 0 ? one : sweep_one);
		return st.violations ? 1 : 0;
	}

	t0 = now_ms();
	for (i = 0; regressions[i].index >= 0; i++, nfixed++) {
		gen_random(m, nl.fam, regressions[i].seed, regressions[i].index);
		run_one(&nl, m, "fixed", regressions[i].seed, regressions[i].index);
	}
	for (i = 0; gen_sweep(m, nl.fam, i); i++, nsweep++)
		run_one(&nl, m, "sweep", 0, i);
	t1 = now_ms();
	for (i = 0; i < n; i++) {
		gen_random(m, nl.fam, seed, i);
		run_one(&nl, m, "random", seed, i);
		if (!quiet && i && i % 20000 == 0)
			printf("# %ld messages, %.1f s, %ld violations\n", i,
			       (now_ms() - t1) / 1000.0, st.violations);
	}

	printf("# %ld fixed, %ld sweep (%.1f s), %ld random messages (%.1f s)\n",
	       nfixed, nsweep, (t1 - t0) / 1000.0, n, (now_ms() - t1) / 1000.0);
	printf("# answers:\n");
	for (i = 0; i < O_NR; i++) {
		if (i == O_ERRNO) {
			for (p = 1; p < 512; p++)
				if (st.by_errno[p])
					printf("#   refused %-10s (%3d) %8ld\n", errname(p), p,
					       st.by_errno[p]);
		} else if (st.outcome[i] || i == O_TIMEOUT) {
			printf("#   %-50s %8ld\n", outcome_name[i], st.outcome[i]);
		}
	}
	printf("#   replies %ld (malformed %ld), stray messages %ld, receive overruns %ld\n",
	       st.replies, st.bad_replies, st.stray, st.overruns);
	if (!quiet) {
		printf("# by command: sent / succeeded\n");
		long other = 0, other_ok = 0;

		for (p = 0; p < 256; p++) {
			if (p >= NCMDS) {
				other += st.sent[p];
				other_ok += st.ok[p];
			} else if (st.sent[p]) {
				printf("#   %3d %-24s %8ld %8ld\n", p, cmd_name((uint8_t)p),
				       st.sent[p], st.ok[p]);
			}
		}
		printf("#   %d-255 %-22s %8ld %8ld\n", NCMDS, "unknown", other, other_ok);
	}
	printf("nlfuzz: %s: seed %" PRIu64 ", mode %s, %ld messages, %ld violations\n",
	       st.violations ? "FAIL" : "ok", seed, mode, nfixed + nsweep + n,
	       st.violations);
	nl_socket_free(nl.sk);
	free(m);
	return st.violations ? 1 : 0;
}
