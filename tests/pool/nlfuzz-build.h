/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nlfuzz's message builder: a splitmix64 stream per message, attributes
 * by key (consecutive keys of one nest share one nest attribute), values
 * that might mean something for the live pools, payloads of the right
 * kind or of any size. Included by nlfuzz.c only.
 */
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

static void rnd_bytes(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rnd64();
}

/* ---------------------------------------------------------------- */
/* Messages                                                           */
/* ---------------------------------------------------------------- */

struct msg {
	uint8_t buf[MAX_MSG];
	size_t len;		/* bytes sent */
	uint8_t cmd;
	uint16_t flags;
	bool processed;		/* the kernel hands it to genetlink */
	bool hdr_ok;		/* ... and genetlink's header checks pass */
	uint16_t nest;		/* the open nest's type (with flags), 0: none */
	size_t nest_off;	/* ... and where it starts */
	size_t offs[64];	/* where attributes start, nested ones too */
	int nattrs;
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
	m->nest = 0;
	m->nattrs = 0;
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
	if (m->nattrs < 64)
		m->offs[m->nattrs++] = m->len;
	a = (struct nlattr *)(m->buf + m->len);
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy(a + 1, data, len);
	memset((uint8_t *)(a + 1) + len, 0, NLA_ALIGN(len) - len);
	m->len += NLA_ALIGN(NLA_HDRLEN + len);
	return true;
}

/* Close the open nest: its length is what was put since it opened. */
static void nest_close(struct msg *m)
{
	struct nlattr *a;

	if (!m->nest)
		return;
	a = (struct nlattr *)(m->buf + m->nest_off);
	a->nla_len = (uint16_t)(m->len - m->nest_off);
	m->nest = 0;
}

/* Open a nest of @type (flags included: NLA_F_NESTED or not). */
static bool nest_open(struct msg *m, uint16_t type)
{
	size_t off = m->len;

	nest_close(m);
	if (!put_attr(m, type, NULL, 0))
		return false;
	m->nest = type ? type : NLA_F_NET_BYTEORDER;	/* never 0 when open */
	m->nest_off = off;
	return true;
}

/*
 * Make @key's nest the open one (none for a top-level key). @flag is the
 * nest's NLA_F_NESTED: a nest opened without it is one the kernel must
 * refuse.
 */
static bool nest_for(struct msg *m, uint32_t key, uint16_t flag)
{
	uint16_t n = KNEST(key);

	if (!n) {
		nest_close(m);
		return true;
	}
	if (m->nest && (m->nest & NLA_TYPE_MASK) == n)
		return true;
	return nest_open(m, (uint16_t)(n | flag));
}

static bool put_key(struct msg *m, uint32_t key, const void *data, size_t len)
{
	return nest_for(m, key, NLA_F_NESTED) &&
	       put_attr(m, KTYPE(key), data, len);
}

static bool put_u32(struct msg *m, uint32_t key, uint32_t v)
{
	return put_key(m, key, &v, sizeof(v));
}

/* Close the nests, set nlmsg_len. */
static void msg_end(struct msg *m)
{
	nest_close(m);
	msg_nlh(m)->nlmsg_len = (uint32_t)m->len;
}

/* ---------------------------------------------------------------- */
/* Values                                                             */
/* ---------------------------------------------------------------- */

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

static uint32_t rnd_ifindex(void)
{
	if (nifindexes && chance(70))
		return ifindexes[rnd((uint32_t)nifindexes)];
	return PICK(0, 1, 2, 3, 1000, 0x7fffffff, 0xffffffff);
}

/* A u32 that might mean something for the attribute of @key. */
static uint32_t value32(uint32_t key)
{
	const struct pool_info *p = rnd_pool();

	if (chance(15))
		return chance(50) ? pick(edge32, sizeof(edge32) / sizeof(*edge32)) :
				    (uint32_t)rnd64();
	switch (key & ~(uint32_t)(NLA_F_NESTED | NLA_F_NET_BYTEORDER)) {
	case AP(ID):
		return chance(70) ? p->id :
		       PICK(p->id + 1, npools, 7, 255, 0xffffffff);
	case AH(ID): case AS(OWNER): case AN(OWNER):
	case P(DRACK_A_PEER, DRACK_A_PEER_ID):
	case P(DRACK_A_VNIC, DRACK_A_VNIC_HOST):
		return PICK(0, 1, 2, p->max_hosts - 1, p->max_hosts,
			    p->max_hosts + 1, 63, 64, 65, 0xfffe, 0xffff);
	case AS(ID):
		return PICK(0, p->meta - 1, p->meta, p->meta + 1, p->count / 2,
			    p->count - 1, p->count, p->count + 1, 0xfffe, 0xffff,
			    0xffffffff);
	case AS(CLASS): case P(DRACK_A_CLASS, DRACK_A_CLASS_ID):
		return PICK(0, 1, 2, 3, 0xffffffff);
	case AP(MAX_HOSTS):
		return PICK(0, 1, 2, 3, p->max_hosts, 63, 64, 65, 0xffffffff);
	case AP(REGIONS):
		return PICK(0, 1, 2, p->regions, 15, 16, 17, 0xffffffff);
	case AN(ID):
		return PICK(0, 1, p->max_nics - 1, p->max_nics, 15, 16, 17);
	case DRACK_A_ASSIGN: case P(DRACK_A_PEER, DRACK_A_PEER_STALLED):
	case P(DRACK_A_PEER, DRACK_A_PEER_REACHABLE):
		return PICK(0, 1, 2, 0xffffffff);
	case DRACK_A_REFUSAL:
		return PICK(0, 1, 2, 3, 0xffffffff);
	case AH(STATE): case AN(STATE): case P(DRACK_A_PEER, DRACK_A_PEER_STATE):
		return rnd(8);
	case AH(IFINDEX): case AN(IFINDEX):
	case P(DRACK_A_VNIC, DRACK_A_VNIC_IFINDEX):
		return rnd_ifindex();
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

/* ---------------------------------------------------------------- */
/* Payloads                                                           */
/* ---------------------------------------------------------------- */

static void put_payload(struct msg *m, uint32_t key, int depth);

/*
 * A nest of top-level type @type (flags included) with up to five random
 * attributes: of its set mostly, else junk types; at depth < 2 maybe a
 * nest in the nest. Closes any open nest first; leaves none open.
 */
static void put_nested(struct msg *m, uint16_t type, int depth)
{
	uint16_t set = type & NLA_TYPE_MASK, max = is_nest(set) ? nest_max[set] : 0;
	size_t start;
	struct nlattr *a;
	int i, n = (int)rnd(6);

	nest_close(m);
	start = m->len;
	if (!put_attr(m, type, NULL, 0))
		return;
	for (i = 0; i < n; i++) {
		uint16_t t = chance(70) ? (uint16_t)rnd(max + 3u) :
					  (uint16_t)rnd64();

		if (depth < 2 && chance(10))
			put_nested(m, (uint16_t)(t | NLA_F_NESTED), depth + 1);
		else
			put_payload(m, max ? P(set, t) : P(0xffff, t), depth + 1);
	}
	a = (struct nlattr *)(m->buf + start);
	a->nla_len = (uint16_t)(m->len - start);
}

/*
 * Payload of the attribute of @key, put where @key says (depth 0) or
 * where we are (inside put_nested): mostly the right size with a value
 * that might mean something, else any size, random bytes.
 */
static void put_payload(struct msg *m, uint32_t key, int depth)
{
	uint8_t data[4096];
	enum akind k = akind(key);
	uint16_t type = KTYPE(key);
	uint64_t v64;
	uint32_t v32;
	size_t len;

	if (!depth) {
		if (k == K_NEST && chance(70)) {
			put_nested(m, (uint16_t)(type | (chance(90) ? NLA_F_NESTED : 0)), 0);
			return;
		}
		if (!nest_for(m, key, chance(95) ? NLA_F_NESTED : 0))
			return;
	}
	if (chance(60)) {
		switch (k) {
		case K_U32:
			put_attr(m, type, &(uint32_t){ value32(key) }, 4);
			return;
		case K_U64:
			v64 = chance(50) ? value32(key) : rnd64();
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
		case K_NEST: case K_PAD: case K_UNUSED:
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
		v32 = value32(key);
		memcpy(data, &v32, 4);
	}
	put_attr(m, type, data, len);
}
