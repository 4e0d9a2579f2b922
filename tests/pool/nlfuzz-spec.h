/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nlfuzz's view of the family, as its spec
 * (Documentation/netlink/specs/drack.yaml) describes it: the nests of the
 * top level and their sets, each attribute's kind, the commands and what
 * their requests carry. Included by nlfuzz.c only.
 *
 * An attribute is named by a key: its type at the top level, or
 * P(nest, type) for @type inside the top-level nest @nest.
 */
#include "nl-keys.h"

static bool is_nest(uint16_t type)
{
	return type <= DRACK_A_MAX && nest_max[type];
}

enum akind { K_UNUSED, K_PAD, K_U32, K_U64, K_STR, K_MAC, K_NEST };

/* The kind of the attribute of @key (type flags ignored). */
static enum akind akind(uint32_t key)
{
	uint16_t n = KNEST(key), t = KTYPE(key) & NLA_TYPE_MASK;

	if (!n)
		return !t || t > DRACK_A_MAX ? K_UNUSED :
		       is_nest(t) ? K_NEST : K_U32;
	if (n > DRACK_A_MAX || !nest_max[n] || t > nest_max[n])
		return K_UNUSED;
	if (n == DRACK_A_STATS)
		return t ? K_U64 : K_PAD;
	if (!t)
		return K_UNUSED;
	switch (key & ~(uint32_t)(NLA_F_NESTED | NLA_F_NET_BYTEORDER)) {
	case AP(PAD): case AH(PAD): case AN(PAD):
	case P(DRACK_A_PEER, DRACK_A_PEER_PAD):
		return K_PAD;
	case AP(SIZE): case AP(FM_EPOCH): case AH(HEARTBEAT): case AH(RELEASED):
	case AN(ASSIGNED): case AN(TX_BYTES): case AN(RX_BYTES): case AN(DROPS):
	case P(DRACK_A_PEER, DRACK_A_PEER_TX_PACKETS):
	case P(DRACK_A_PEER, DRACK_A_PEER_TX_BYTES):
	case P(DRACK_A_PEER, DRACK_A_PEER_RX_PACKETS):
	case P(DRACK_A_PEER, DRACK_A_PEER_RX_BYTES):
	case P(DRACK_A_PEER, DRACK_A_PEER_RX_BAD):
		return K_U64;
	case AP(BACKEND): case AH(IFNAME): case AN(IFNAME):
	case P(DRACK_A_VNIC, DRACK_A_VNIC_IFNAME):
		return K_STR;
	case AH(MAC): case AN(MAC): case P(DRACK_A_VNIC, DRACK_A_VNIC_MAC):
		return K_MAC;
	default:
		return K_U32;
	}
}

#define L(...)	((const uint32_t[]){ __VA_ARGS__, 0 })

struct cmd {
	const char *name;
	bool doit, dumpit;	/* what the op table has */
	bool write;		/* changes state when valid */
	const uint32_t *req;	/* request (or event) keys, 0-ended */
};

static const struct cmd cmds[NCMDS] = {
	[DRACK_CMD_UNSPEC] = { "unspec", .req = L(0) },
	[DRACK_CMD_POOL_GET] = { "pool-get", true, true, false, L(AP(ID)) },
	[DRACK_CMD_HOST_GET] = { "host-get", false, true, false, L(AP(ID)) },
	[DRACK_CMD_SECTION_GET] = { "section-get", false, true, false,
		L(AP(ID)) },
	[DRACK_CMD_SECTION_GRANT] = { "section-grant", true, false, true,
		L(AP(ID), AH(ID), AS(ID), AS(CLASS)) },
	[DRACK_CMD_SECTION_REQUEST] = { "section-request(event)", .req =
		L(AP(ID), AH(ID), P(DRACK_A_CLASS, DRACK_A_CLASS_ID),
		  DRACK_A_COUNT) },
	[DRACK_CMD_HOST_NOTIFY] = { "host-notify(event)", .req =
		L(AP(ID), AH(ID), AH(STATE)) },
	[DRACK_CMD_SECTION_REVOKE] = { "section-revoke", true, false, true,
		L(AP(ID), AS(ID)) },
	[DRACK_CMD_HOST_FENCE] = { "host-fence", true, false, true,
		L(AP(ID), AH(ID)) },
	[DRACK_CMD_HOST_RECLAIM] = { "host-reclaim", true, false, true,
		L(AP(ID), AH(ID)) },
	[DRACK_CMD_FM_REGISTER] = { "fm-register", true, false, true,
		L(AP(ID)) },
	[DRACK_CMD_FM_UNREGISTER] = { "fm-unregister", true, false, true,
		L(AP(ID)) },
	[DRACK_CMD_POOL_FORMAT] = { "pool-format", true, false, true,
		L(AP(ID), AP(MAX_HOSTS), AP(REGIONS)) },
	[DRACK_CMD_PEER_GET] = { "peer-get", false, true, false,
		L(AH(IFINDEX)) },
	[DRACK_CMD_CLASS_GET] = { "class-get", false, true, false,
		L(AH(IFINDEX)) },
	[DRACK_CMD_STATS_GET] = { "stats-get", false, true, false,
		L(AH(IFINDEX)) },
	[DRACK_CMD_SECTION_NOTIFY] = { "section-notify(event)", .req =
		L(AP(ID), AS(ID), AS(OWNER), AS(CLASS)) },
	[DRACK_CMD_NIC_EXPORT] = { "nic-export", true, false, true,
		L(AH(IFINDEX), AN(IFINDEX)) },
	[DRACK_CMD_NIC_UNEXPORT] = { "nic-unexport", true, false, true,
		L(AN(IFINDEX)) },
	[DRACK_CMD_NIC_GET] = { "nic-get", false, true, false, L(AP(ID)) },
	[DRACK_CMD_NIC_ASSIGN] = { "nic-assign", true, false, true,
		L(AP(ID), AN(ID), AH(ID), DRACK_A_ASSIGN,
		  P(DRACK_A_VNIC, DRACK_A_VNIC_MAC)) },
	[DRACK_CMD_NIC_NOTIFY] = { "nic-notify(event)", .req =
		L(AP(ID), AN(ID), AN(STATE), AN(OWNER)) },
	[DRACK_CMD_PEER_NOTIFY] = { "peer-notify(event)", .req =
		L(AP(ID), AH(ID), P(DRACK_A_PEER, DRACK_A_PEER_ID),
		  P(DRACK_A_PEER, DRACK_A_PEER_STALLED)) },
	[DRACK_CMD_SECTION_REFUSE] = { "section-refuse", true, false, true,
		L(AP(ID), AH(ID), DRACK_A_REFUSAL) },
	[DRACK_CMD_NIC_STEER] = { "nic-steer", true, false, true,
		L(AP(ID), AN(ID), AH(ID), P(DRACK_A_VNIC, DRACK_A_VNIC_STEER)) },
	[DRACK_CMD_MAX + 1] = { "max+1", .req = L(AP(ID)) },
	[DRACK_CMD_MAX + 2] = { "max+2", .req = L(AP(ID)) },
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
