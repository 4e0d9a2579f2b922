/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * genl.c's view of the pool: host and Section tables, before/after
 * snapshots, and the check that a rejected request changed nothing.
 * Included by genl.c only, after genl-nl.h.
 */
/* ---------------------------------------------------------------- */
/* State: the pool, host and Section tables                          */
/* ---------------------------------------------------------------- */

struct tables {
	uint64_t size, epoch;
	uint32_t count, meta, max_hosts, regions, free, fm_pid;
	bool up[DRACK_MAX_HOSTS];	/* in the host dump (not FREE) */
	uint32_t hstate[DRACK_MAX_HOSTS], hgen[DRACK_MAX_HOSTS];
	uint32_t hsections[DRACK_MAX_HOSTS], hwanted[DRACK_MAX_HOSTS][2];
	uint64_t hreleased[DRACK_MAX_HOSTS], hbeat[DRACK_MAX_HOSTS];
	uint32_t owner[MAX_SECTIONS], cls[MAX_SECTIONS], gen[MAX_SECTIONS];
	uint32_t sflags[MAX_SECTIONS], region[MAX_SECTIONS];
};

static void read_tables(struct __test_metadata *_metadata, struct nl *nl,
			struct tables *t)
{
	struct reply r;
	uint32_t id;
	int i;

	memset(t, 0, sizeof(*t));
	ASSERT_EQ(0, request(_metadata, nl, DRACK_CMD_POOL_GET, 0,
			     ATTRS(A_POOL), NULL, &r)) TH_LOG("POOL_GET: %s", r.msg);
	ASSERT_EQ(1, r.n);
	t->size = mu64(r.m[0], AP(SIZE));
	t->count = mu32(r.m[0], AP(SECTION_COUNT));
	t->meta = mu32(r.m[0], AP(META_SECTIONS));
	t->max_hosts = mu32(r.m[0], AP(MAX_HOSTS));
	t->free = mu32(r.m[0], AP(FREE_SECTIONS));
	t->regions = mu32(r.m[0], AP(REGIONS));
	t->fm_pid = mu32(r.m[0], AP(FM_PID));
	t->epoch = mu64(r.m[0], AP(FM_EPOCH));
	reply_free(&r);
	ASSERT_GE(MAX_SECTIONS, t->count);
	ASSERT_GE((uint32_t)DRACK_MAX_HOSTS, t->max_hosts);

	ASSERT_EQ(0, request(_metadata, nl, DRACK_CMD_HOST_GET, NLM_F_DUMP,
			     ATTRS(A_POOL), NULL, &r)) TH_LOG("HOST_GET: %s", r.msg);
	for (i = 0; i < r.n; i++) {
		id = mu32(r.m[i], AH(ID));
		ASSERT_GT(t->max_hosts, id);
		t->up[id] = true;
		t->hstate[id] = mu32(r.m[i], AH(STATE));
		t->hgen[id] = mu32(r.m[i], AH(GENERATION));
		t->hsections[id] = mu32(r.m[i], AH(SECTIONS));
		t->hwanted[id][0] = mu32(r.m[i], AH(WANTED_2K));
		t->hwanted[id][1] = mu32(r.m[i], AH(WANTED_64K));
		t->hreleased[id] = mu64(r.m[i], AH(RELEASED));
		t->hbeat[id] = mu64(r.m[i], AH(HEARTBEAT));
	}
	reply_free(&r);

	ASSERT_EQ(0, request(_metadata, nl, DRACK_CMD_SECTION_GET, NLM_F_DUMP,
			     ATTRS(A_POOL), NULL, &r)) TH_LOG("SECTION_GET: %s", r.msg);
	ASSERT_EQ((int)t->count, r.n);
	for (i = 0; i < r.n; i++) {
		id = mu32(r.m[i], AS(ID));
		ASSERT_EQ((uint32_t)i, id);
		t->owner[i] = mu32(r.m[i], AS(OWNER));
		t->cls[i] = mu32(r.m[i], AS(CLASS));
		t->gen[i] = mu32(r.m[i], AS(GENERATION));
		t->sflags[i] = mu32(r.m[i], AS(FLAGS));
		t->region[i] = mu32(r.m[i], AS(REGION));
	}
	reply_free(&r);
}

/* Lowest FREE data Section, or NONE. */
static uint32_t free_section(const struct tables *t)
{
	uint32_t s;

	for (s = t->meta; s < t->count; s++)
		if (t->owner[s] == DRACK_SECTION_FREE)
			return s;
	return NONE;
}

/* Lowest Section owned by @host (of class @c, or any class if NONE). */
static uint32_t owned_section(const struct tables *t, uint32_t host, uint32_t c)
{
	uint32_t s;

	for (s = t->meta; s < t->count; s++)
		if (t->owner[s] == host && (c == NONE || t->cls[s] == c))
			return s;
	return NONE;
}

static uint32_t owned_count(const struct tables *t, uint32_t host, uint32_t c)
{
	uint32_t s, n = 0;

	for (s = t->meta; s < t->count; s++)
		n += t->owner[s] == host && (c == NONE || t->cls[s] == c);
	return n;
}

/* Lowest host slot not in the host dump, or NONE. */
static uint32_t free_slot(const struct tables *t)
{
	uint32_t h;

	for (h = 0; h < t->max_hosts; h++)
		if (!t->up[h])
			return h;
	return NONE;
}

/* Attributes that move by themselves: left out of snapshots. */
static bool volatile_attr(uint32_t key)
{
	return key == AH(HEARTBEAT) || key == AH(FREE_2K) ||
	       key == AH(FREE_64K);
}

/* The attributes in [a, a + len) of nest @nest (0: the top level). */
static void render_attrs(FILE *f, struct nlattr *head, int len, uint16_t nest)
{
	struct nlattr *a;
	int rem, i;

	nla_for_each_attr(a, head, len, rem) {
		if (volatile_attr(P(nest, nla_type(a))))
			continue;
		fprintf(f, " %d=", nla_type(a));
		if (!nest && nla_type(a) <= DRACK_A_MAX && nest_max[nla_type(a)]) {
			fputc('{', f);
			render_attrs(f, nla_data(a), nla_len(a), nla_type(a));
			fputs(" }", f);
		} else if (nla_len(a) == 4) {
			fprintf(f, "%u", nla_get_u32(a));
		} else if (nla_len(a) == 8) {
			fprintf(f, "%llu", (unsigned long long)nla_get_u64(a));
		} else {
			for (i = 0; i < nla_len(a); i++)
				fprintf(f, "%02x", ((uint8_t *)nla_data(a))[i]);
		}
	}
}

static void render(FILE *f, struct nlmsghdr *nlh)
{
	fprintf(f, "cmd %u:", mcmd(nlh));
	render_attrs(f, genlmsg_attrdata(nlmsg_data(nlh), 0),
		     genlmsg_attrlen(nlmsg_data(nlh), 0), 0);
	fputc('\n', f);
}

/* Pool dump, host dump, Section dump of pool 0, as text. */
static char *snapshot(struct __test_metadata *_metadata, struct nl *nl)
{
	static const uint8_t cmds[] = { DRACK_CMD_POOL_GET, DRACK_CMD_HOST_GET,
					DRACK_CMD_SECTION_GET };
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	struct reply r;
	unsigned int c;
	int i;

	ASSERT_NE(NULL, f);
	for (c = 0; c < sizeof(cmds); c++) {
		ASSERT_EQ(0, request(_metadata, nl, cmds[c], NLM_F_DUMP,
				     c ? ATTRS(A_POOL) : NOATTRS, NULL, &r))
			TH_LOG("snapshot dump %u: %s", cmds[c], r.msg);
		fprintf(f, "dump %u: %d messages\n", cmds[c], r.n);
		for (i = 0; i < r.n; i++)
			render(f, r.m[i]);
		reply_free(&r);
	}
	fclose(f);
	return s;
}

/* Log the first line that differs. */
static void log_diff(struct __test_metadata *_metadata, const char *a,
		     const char *b)
{
	while (*a && *b) {
		const char *ea = strchrnul(a, '\n'), *eb = strchrnul(b, '\n');

		if (ea - a != eb - b || memcmp(a, b, ea - a)) {
			TH_LOG("before: %.*s", (int)(ea - a), a);
			TH_LOG("after:  %.*s", (int)(eb - b), b);
			return;
		}
		a = *ea ? ea + 1 : ea;
		b = *eb ? eb + 1 : eb;
	}
	TH_LOG("before/after differ in length");
}

static bool same_state(struct __test_metadata *_metadata, const char *before,
		       const char *after)
{
	if (!strcmp(before, after))
		return true;
	log_diff(_metadata, before, after);
	return false;
}

/* ---------------------------------------------------------------- */
/* Rejections                                                        */
/* ---------------------------------------------------------------- */

#define R_CORE		(1U << 0)	/* genetlink core: no extack expected */
#define R_NOSNAP	(1U << 1)	/* state moves by itself (live FM) */

/*
 * The missing attribute the kernel names for @miss: @miss itself, or its
 * nest if the request has no such nest at all.
 */
static int miss_key(const struct attr *a, int miss)
{
	if (miss < 0 || !KNEST((uint32_t)miss))
		return miss;
	for (; !a->end; a++)
		if (!a->raw && (KNEST(a->type) == KNEST((uint32_t)miss) ||
				(!KNEST(a->type) &&
				 (a->type & NLA_TYPE_MASK) == KNEST((uint32_t)miss))))
			return miss;
	return KNEST((uint32_t)miss);
}

/*
 * Send a request that must fail with @want: the errno, an extack message
 * (unless R_CORE), NLMSGERR_ATTR_MISS_TYPE (and _NEST) naming @miss if
 * @miss >= 0 and the kernel sent one, @msg in the message if given, and
 * no state change.
 */
static void reject(struct __test_metadata *_metadata, struct nl *nl, int line,
		   uint8_t cmd, int flags, const struct tweak *tw, int want,
		   unsigned int opts, int miss, const char *msg,
		   const struct attr *a)
{
	char *before = NULL, *after;
	struct reply r;
	int err;

	if (!(opts & R_NOSNAP))
		before = snapshot(_metadata, nl);
	err = request(_metadata, nl, cmd, flags, a, tw, &r);
	EXPECT_EQ(want, err)
		TH_LOG("line %d: cmd %u%s [%s]: %s (%d) instead of %s, extack '%s'",
		       line, cmd, flags & NLM_F_DUMP ? " dump" : "", attrs_str(a),
		       strerror(-err), err, strerror(-want), r.msg);
	if (!(opts & R_CORE)) {
		EXPECT_NE(0, r.msg[0])
			TH_LOG("line %d: cmd %u%s [%s]: %s without an extack message%s",
			       line, cmd, flags & NLM_F_DUMP ? " dump" : "",
			       attrs_str(a), strerror(-err),
			       r.miss_type >= 0 ? " (only NLMSGERR_ATTR_MISS_TYPE)" : "");
	} else if (r.msg[0]) {
		TH_LOG("line %d: cmd %u: %s, extack '%s'", line, cmd,
		       strerror(-err), r.msg);
	}
	miss = miss_key(a, miss);
	if (miss >= 0 && r.miss_type >= 0) {
		EXPECT_EQ(miss, r.miss_type)
			TH_LOG("line %d: cmd %u: missing %#x named, not %#x",
			       line, cmd, r.miss_type, miss);
	}
	if (msg) {
		EXPECT_NE(NULL, strstr(r.msg, msg))
			TH_LOG("line %d: cmd %u: extack '%s' does not say '%s'",
			       line, cmd, r.msg, msg);
	}
	EXPECT_EQ(0, r.n) TH_LOG("line %d: cmd %u: %d replies to a rejected request",
				 line, cmd, r.n);
	reply_free(&r);
	if (!(opts & R_NOSNAP)) {
		after = snapshot(_metadata, nl);
		EXPECT_TRUE(same_state(_metadata, before, after))
			TH_LOG("line %d: cmd %u [%s] was rejected (%s) but changed the state",
			       line, cmd, attrs_str(a), strerror(-err));
		free(after);
	}
	free(before);
}

#define REJECT(nl, cmd, flags, want, ...)				\
	reject(_metadata, (nl), __LINE__, (cmd), (flags), NULL, (want), 0, -1, \
	       NULL, ATTRS(__VA_ARGS__))
#define REJECT0(nl, cmd, flags, want)					\
	reject(_metadata, (nl), __LINE__, (cmd), (flags), NULL, (want), 0, -1, \
	       NULL, NOATTRS)
/* A required attribute (@miss) left out. */
#define REJECT_MISS(nl, cmd, flags, miss, ...)				\
	reject(_metadata, (nl), __LINE__, (cmd), (flags), NULL, -EINVAL, 0, \
	       (miss), NULL, ATTRS(__VA_ARGS__))
#define REJECT_MSG(nl, cmd, flags, want, msg, ...)			\
	reject(_metadata, (nl), __LINE__, (cmd), (flags), NULL, (want), 0, -1, \
	       (msg), ATTRS(__VA_ARGS__))
#define REJECT_CORE(nl, cmd, flags, want, ...)				\
	reject(_metadata, (nl), __LINE__, (cmd), (flags), NULL, (want),	\
	       R_CORE, -1, NULL, ATTRS(__VA_ARGS__))
#define REJECT_TW(nl, cmd, flags, tw, want, opts, ...)			\
	reject(_metadata, (nl), __LINE__, (cmd), (flags), (tw), (want),	\
	       (opts), -1, NULL, ATTRS(__VA_ARGS__))

/*
 * Attributes only replies and events carry, each with a plausible
 * payload: nested in the request nests (beyond what their request
 * subsets hold), the reply-only nests whole, and top-level ones.
 */
static const uint8_t some_mac[6] = { 0x02, 0x44, 0x52, 0, 0, 1 };
static const uint8_t some_nest[12] = { 12, 0, DRACK_STAT_TX_PACKETS, 0 };
static const uint8_t some_peer[8] = { 8, 0, DRACK_A_PEER_ID, 0, 1, 0, 0, 0 };

static const struct attr reply_only[] = {
	A_STR(AP(BACKEND), "ram"),
	A_U64(AP(SIZE), 64 << 20),
	A_U32(AP(SECTION_SIZE), DRACK_SECTION_SIZE),
	A_U32(AP(SECTION_COUNT), 32),
	A_U32(AP(META_SECTIONS), 1),
	A_U32(AP(FREE_SECTIONS), 1),
	A_U32(AP(FM_PID), 1),
	A_U64(AP(FM_EPOCH), 1),
	A_U32(AP(MAX_NICS), 1),
	A_U64(AP(PAD), 0),
	A_STR(AH(IFNAME), "rack0"),
	A_U32(AH(STATE), DRACK_HOST_DEAD),
	A_U32(AH(FLAGS), 0),
	A_BIN(AH(MAC), some_mac, 6),
	A_U32(AH(SECTIONS), 0),
	A_U64(AH(HEARTBEAT), 0),
	A_U32(AH(GENERATION), 1),
	A_U32(AH(FREE_2K), 0),
	A_U32(AH(FREE_64K), 0),
	A_U32(AH(WANTED_2K), 1),
	A_U32(AH(WANTED_64K), 1),
	A_U64(AH(RELEASED), 2),
	A_U64(AH(PAD), 0),
	A_U32(AS(OWNER), 0),
	A_U32(AS(GENERATION), 1),
	A_U32(AS(REGION), 0),
	A_U32(AS(FLAGS), DRACK_SECTION_F_REVOKE),
	A_STR(AN(IFNAME), "eth0"),
	A_U32(AN(STATE), DRACK_NIC_UP),
	A_U32(AN(OWNER), 0),
	A_BIN(AN(MAC), some_mac, 6),
	A_U64(AN(ASSIGNED), 1),
	A_U64(AN(DROPS), 0),
	A_U32(DRACK_A_COUNT, 1),
	A_U32(AC(ID), 0),
	A_U32(AC(SECTIONS), 1),
	A_U32(AR(ID), 1),
	A_U32(AR(STALLED), 1),
	A_U64(AR(TX_PACKETS), 0),
	A_U32(AV(HOST), 0),
	A_STR(AV(IFNAME), "rack0v0"),
	A_U32(AV(DROPS_SPOOFED), 0),
	A_BIN(DRACK_A_PEER | NLA_F_NESTED, some_peer, 8),
	A_BIN(DRACK_A_STATS | NLA_F_NESTED, some_nest, 12),
};
#define N_REPLY_ONLY (sizeof(reply_only) / sizeof(reply_only[0]))

/*
 * @base (a request that would otherwise be accepted, up to 6 attributes)
 * plus, one at a time, every reply-only attribute (all: every, else a
 * few) and unknown attribute types: -EINVAL each time, nothing changes.
 */
static void reject_extra_attrs(struct __test_metadata *_metadata,
			       struct nl *nl, int line, uint8_t cmd, int flags,
			       const struct attr *base, bool all)
{
	static const uint32_t unknown[] = {
		DRACK_A_MAX + 1, DRACK_A_MAX + 2, 0x3fff, DRACK_A_UNSPEC,
		P(DRACK_A_POOL, DRACK_A_POOL_MAX + 1), AP(UNSPEC),
		P(DRACK_A_HOST, DRACK_A_HOST_MAX + 1), AH(UNSPEC),
		P(DRACK_A_SECTION, 0x3fff), P(DRACK_A_NIC, DRACK_A_NIC_MAX + 1),
	};
	struct attr a[8];
	unsigned int n = 0, i;

	while (!base[n].end && n < 6) {
		a[n] = base[n];
		n++;
	}
	a[n + 1] = (struct attr)A_END;
	for (i = 0; i < N_REPLY_ONLY; i++) {
		if (!all && i % 8 != 3)
			continue;
		a[n] = reply_only[i];
		reject(_metadata, nl, line, cmd, flags, NULL, -EINVAL, 0, -1,
		       NULL, a);
	}
	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		a[n] = (struct attr)A_U32(unknown[i], 0);
		reject(_metadata, nl, line, cmd, flags, NULL, -EINVAL, 0, -1,
		       NULL, a);
	}
}
