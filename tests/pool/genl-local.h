/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * genl.c's tests of dumps of the local hosts: PEER_GET, CLASS_GET, STATS_GET.
 * Included by genl.c only, after its fixture and helpers.
 */
/* ---------------------------------------------------------------- */
/* PEER_GET, CLASS_GET, STATS_GET: dumps of local hosts               */
/* ---------------------------------------------------------------- */

static struct nl *sk_open_in(struct __test_metadata *_metadata,
			     const char *ns)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", path, strerror(errno));
	ASSERT_EQ(0, setns(fd, CLONE_NEWNET)) TH_LOG("setns %s: %s", ns,
						     strerror(errno));
	close(fd);
	return sk_open(_metadata);
}

/* Common checks of a per-local-host dump, from netns h0. */
static void local_dump_checks(struct __test_metadata *_metadata,
			      FIXTURE_DATA(genl) *self, uint8_t C,
			      uint64_t (*check)(struct __test_metadata *,
						struct tables *, struct reply *))
{
	struct nl *root = self->nl, *nl;
	uint32_t rack0;
	struct reply r;
	uint64_t n;

	/* the root netns has no drack interface: nothing */
	ASSERT_EQ(0, request(_metadata, root, C, NLM_F_DUMP, NOATTRS, NULL, &r))
		TH_LOG("%s", r.msg);
	EXPECT_EQ(0, r.n) TH_LOG("%d messages from a netns without drack", r.n);
	reply_free(&r);
	REJECT(root, C, NLM_F_DUMP, -ENODEV, A_U32(AH(IFINDEX), 1));

	nl = sk_open_in(_metadata, self->ns[0]);
	rack0 = if_nametoindex("rack0");
	ASSERT_NE(0U, rack0);
	ASSERT_EQ(0, request(_metadata, nl, C, NLM_F_DUMP, NOATTRS, NULL, &r))
		TH_LOG("%s", r.msg);
	n = check(_metadata, self->t, &r);
	reply_free(&r);
	ASSERT_EQ(0, request(_metadata, nl, C, NLM_F_DUMP,
			     ATTRS(A_U32(AH(IFINDEX), rack0)), NULL, &r))
		TH_LOG("%s", r.msg);
	EXPECT_EQ(n, check(_metadata, self->t, &r))
		TH_LOG("with and without IFINDEX differ");
	reply_free(&r);

	/* bad requests, from h0 */
	REJECT_MSG(nl, C, NLM_F_DUMP, -ENODEV, NULL, A_U32(AH(IFINDEX), 1)); /* lo */
	REJECT(nl, C, NLM_F_DUMP, -ERANGE, A_U32(AH(IFINDEX), 0));	/* never an ifindex */
	REJECT(nl, C, NLM_F_DUMP, -ENODEV, A_U32(AH(IFINDEX), 999999));
	/* a host nest names a local host by ifindex only */
	REJECT_MISS(nl, C, NLM_F_DUMP, AH(IFINDEX), A_U32(AH(ID), 0));
	REJECT_MISS(nl, C, NLM_F_DUMP, AH(IFINDEX),
		    A_EMPTY(DRACK_A_HOST | NLA_F_NESTED));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U8(AH(IFINDEX), rack0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U16(AH(IFINDEX), rack0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U64(AH(IFINDEX), rack0));
	reject_extra_attrs(_metadata, nl, __LINE__, C, NLM_F_DUMP,
			   ATTRS(A_U32(AH(IFINDEX), rack0)), false);
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U32(AH(IFINDEX), rack0),
	       A_STR(AH(IFNAME), "rack0"));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_STR(AH(IFNAME), "rack0"));
	REJECT(nl, C, NLM_F_DUMP, -ERANGE, A_U32(AH(ID), 64));
	REJECT_CORE(nl, C, 0, -EOPNOTSUPP, A_U32(AH(IFINDEX), rack0));
	REJECT_CORE(nl, C, 0, -EOPNOTSUPP, A_END);
	sk_close(nl);
}

/* Attributes identifying the local host: pool, host, rack0. */
static void expect_local(struct __test_metadata *_metadata,
			 struct nlmsghdr *m, uint8_t cmd)
{
	const char *name = mstr(m, AH(IFNAME));

	EXPECT_EQ(cmd, mcmd(m));
	EXPECT_EQ(POOL, mu32(m, AP(ID)));
	EXPECT_EQ(H0, mu32(m, AH(ID)));
	EXPECT_EQ(if_nametoindex("rack0"), mu32(m, AH(IFINDEX)));
	EXPECT_TRUE(name && !strcmp(name, "rack0")) TH_LOG("IFNAME '%s'",
							   name ?: "(none)");
}

static const struct want peer_attrs[] = {
	{ AP(ID), 4 }, { AH(ID), 4 }, { AH(IFINDEX), 4 },
	{ AH(IFNAME), -1 }, { AR(ID), 4 }, { AR(STATE), 4 },
	{ AR(REACHABLE), 4 }, { AR(TX_PACKETS), 8 },
	{ AR(TX_BYTES), 8 }, { AR(RX_PACKETS), 8 },
	{ AR(RX_BYTES), 8 }, { AR(RX_BAD), 8 }, W_END
};

/* Returns a fingerprint of the peers seen (bit per peer id). */
static uint64_t check_peers(struct __test_metadata *_metadata,
			    struct tables *t, struct reply *r)
{
	uint64_t seen = 0;
	int i;
	uint32_t p;

	for (i = 0; i < r->n; i++) {
		struct nlmsghdr *m = r->m[i];

		expect_attrs(_metadata, m, "PEER_GET", peer_attrs);
		expect_local(_metadata, m, DRACK_CMD_PEER_GET);
		p = mu32(m, AR(ID));
		ASSERT_GT(t->max_hosts, p);
		EXPECT_FALSE(seen & (1ULL << p)) TH_LOG("peer %u twice", p);
		seen |= 1ULL << p;
		EXPECT_GT((uint32_t)DRACK_HOST_NR_STATES, mu32(m, AR(STATE)));
		EXPECT_GE(1U, mu32(m, AR(REACHABLE)));
		EXPECT_LE(mu64(m, AR(TX_PACKETS)) * 14,
			  mu64(m, AR(TX_BYTES)));
		if (p == H1) {
			EXPECT_EQ((uint32_t)DRACK_HOST_UP, mu32(m, AR(STATE)));
			EXPECT_EQ(1U, mu32(m, AR(REACHABLE)));
		}
	}
	EXPECT_TRUE(seen & (1ULL << H1)) TH_LOG("peer 1 not in host 0's peer dump");
	return seen;
}

TEST_F_TIMEOUT(genl, peer_get, 120)
{
	PHASE("live");
	local_dump_checks(_metadata, self, DRACK_CMD_PEER_GET, check_peers);
}

static const struct want class_attrs[] = {
	{ AP(ID), 4 }, { AH(ID), 4 }, { AH(IFINDEX), 4 },
	{ AH(IFNAME), -1 }, { AC(ID), 4 }, { AC(SECTIONS), 4 },
	{ AC(TOTAL), 4 }, { AC(FREE), 4 },
	{ AC(INFLIGHT), 4 }, { AC(REQUESTED), 4 },
	{ AC(DRAINING), 4 }, W_END
};

static uint64_t check_classes(struct __test_metadata *_metadata,
			      struct tables *t, struct reply *r)
{
	uint32_t c, secs, total;
	uint64_t seen = 0;
	int i;

	EXPECT_EQ(DRACK_NR_CLASSES, r->n);
	for (i = 0; i < r->n; i++) {
		struct nlmsghdr *m = r->m[i];

		expect_attrs(_metadata, m, "CLASS_GET", class_attrs);
		expect_local(_metadata, m, DRACK_CMD_CLASS_GET);
		c = mu32(m, AC(ID));
		ASSERT_GT((uint32_t)DRACK_NR_CLASSES, c);
		seen |= 1ULL << c;
		secs = mu32(m, AC(SECTIONS));
		total = mu32(m, AC(TOTAL));
		EXPECT_EQ(owned_count(t, H0, c), secs)
			TH_LOG("class %u: host 0 uses %u Sections, the table gives it %u",
			       c, secs, owned_count(t, H0, c));
		EXPECT_EQ(secs * (DRACK_SECTION_SIZE / DRACK_CLASS_SIZE(c)), total);
		EXPECT_GE(total, mu32(m, AC(FREE)));
		EXPECT_GE(total, mu32(m, AC(INFLIGHT)));
		EXPECT_GE(1U, mu32(m, AC(REQUESTED)));
		EXPECT_EQ(0U, mu32(m, AC(DRAINING)));
	}
	EXPECT_EQ((1ULL << DRACK_NR_CLASSES) - 1, seen);
	return seen;
}

TEST_F_TIMEOUT(genl, class_get, 120)
{
	PHASE("live");
	local_dump_checks(_metadata, self, DRACK_CMD_CLASS_GET, check_classes);
}

static const struct want stats_attrs[] = {
	{ AP(ID), 4 }, { AH(ID), 4 }, { AH(IFINDEX), 4 },
	{ AH(IFNAME), -1 }, { DRACK_A_STATS, -1 }, W_END
};

static uint64_t check_stats(struct __test_metadata *_metadata,
			    struct tables *t, struct reply *r)
{
	uint64_t seen = 0, grants = 0;
	struct nlattr *a, *st;
	int rem;

	EXPECT_EQ(1, r->n);
	if (r->n < 1)
		return 0;
	expect_attrs(_metadata, r->m[0], "STATS_GET", stats_attrs);
	expect_local(_metadata, r->m[0], DRACK_CMD_STATS_GET);
	st = mattr(r->m[0], DRACK_A_STATS);
	ASSERT_NE(NULL, st);
	if (!(st->nla_type & NLA_F_NESTED))
		TH_LOG("note: DRACK_A_STATS without NLA_F_NESTED");
	nla_for_each_nested(a, st, rem) {
		int type = nla_type(a);

		EXPECT_EQ(8, nla_len(a)) TH_LOG("stat %d: %d bytes", type, nla_len(a));
		EXPECT_TRUE(type > DRACK_STAT_UNSPEC && type <= DRACK_STAT_MAX)
			TH_LOG("stat type %d", type);
		if (type <= DRACK_STAT_UNSPEC || type > DRACK_STAT_MAX)
			continue;
		EXPECT_FALSE(seen & (1ULL << type)) TH_LOG("stat %d twice", type);
		seen |= 1ULL << type;
		if (type == DRACK_STAT_GRANTS)
			grants = nla_get_u64(a);
	}
	EXPECT_EQ(((1ULL << (DRACK_STAT_MAX + 1)) - 1) & ~1ULL, seen)
		TH_LOG("stats present: 0x%llx", (unsigned long long)seen);
	EXPECT_LE((uint64_t)owned_count(t, H0, NONE), grants);
	return 1;
}

TEST_F_TIMEOUT(genl, stats_get, 120)
{
	PHASE("live");
	local_dump_checks(_metadata, self, DRACK_CMD_STATS_GET, check_stats);
}

/* ---------------------------------------------------------------- */
/* Commands user space may not send, and CAP_NET_ADMIN                */
/* ---------------------------------------------------------------- */

TEST_F_TIMEOUT(genl, event_and_unknown_cmds, 120)
{
	static const uint8_t events[] = { DRACK_CMD_SECTION_REQUEST,
					  DRACK_CMD_HOST_NOTIFY,
					  DRACK_CMD_SECTION_NOTIFY };
	static const uint8_t unknown[] = { DRACK_CMD_UNSPEC, DRACK_CMD_MAX + 1,
					   100, 255 };
	struct nl *nl = self->nl;
	unsigned int i;

	PHASE("live");
	for (i = 0; i < sizeof(events); i++) {
		REJECT_CORE(nl, events[i], 0, -EOPNOTSUPP, A_POOL,
			    A_U32(AH(ID), H0), A_U32(AC(ID), 0));
		REJECT_CORE(nl, events[i], 0, -EOPNOTSUPP, A_POOL,
			    A_U32(AH(ID), H0),
			    A_U32(AH(STATE), DRACK_HOST_DEAD));
		REJECT_CORE(nl, events[i], NLM_F_DUMP, -EOPNOTSUPP, A_POOL);
		REJECT_CORE(nl, events[i], 0, -EOPNOTSUPP, A_END);
	}
	for (i = 0; i < sizeof(unknown); i++) {
		REJECT_CORE(nl, unknown[i], 0, -EOPNOTSUPP, A_POOL);
		REJECT_CORE(nl, unknown[i], NLM_F_DUMP, -EOPNOTSUPP, A_POOL);
	}
}

TEST_F_TIMEOUT(genl, admin_perm, 120)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct cap[2];
	struct tables *t = self->t;
	uint32_t s = free_section(t), mine = owned_section(t, H0, NONE);
	struct nl *u;
	struct reply r;
	int i;
	const struct {
		uint8_t cmd;
		const struct attr *a;
	} ops[] = {
		{ DRACK_CMD_SECTION_GRANT, ATTRS(A_POOL, G_HOST(H0), G_SECT(s), G_CLASS(0)) },
		{ DRACK_CMD_SECTION_REVOKE, ATTRS(A_POOL, G_SECT(mine)) },
		{ DRACK_CMD_SECTION_REFUSE, ATTRS(A_POOL, G_HOST(H1),
			A_U32(DRACK_A_REFUSAL, DRACK_REFUSED_QUOTA)) },
		{ DRACK_CMD_HOST_FENCE, ATTRS(A_POOL, G_HOST(H1)) },
		{ DRACK_CMD_HOST_RECLAIM, ATTRS(A_POOL, G_HOST(H1)) },
		{ DRACK_CMD_FM_REGISTER, ATTRS(A_POOL) },
		{ DRACK_CMD_FM_UNREGISTER, ATTRS(A_POOL) },
		{ DRACK_CMD_POOL_FORMAT, ATTRS(A_POOL) },
		{ DRACK_CMD_NIC_STEER, ATTRS(A_POOL, A_U32(AN(ID), 0),
					     G_HOST(H1)) },
	};

	PHASE("live");
	ASSERT_NE(NONE, s);
	ASSERT_NE(NONE, mine);
	/* drop CAP_NET_ADMIN; the socket opened now is unprivileged */
	ASSERT_EQ(0, syscall(SYS_capget, &hdr, cap));
	cap[CAP_NET_ADMIN / 32].effective &= ~(1U << (CAP_NET_ADMIN % 32));
	cap[CAP_NET_ADMIN / 32].permitted &= ~(1U << (CAP_NET_ADMIN % 32));
	cap[CAP_NET_ADMIN / 32].inheritable &= ~(1U << (CAP_NET_ADMIN % 32));
	ASSERT_EQ(0, syscall(SYS_capset, &hdr, cap)) TH_LOG("capset: %s",
							   strerror(errno));
	u = sk_open(_metadata);
	for (i = 0; i < (int)(sizeof(ops) / sizeof(ops[0])); i++)
		reject(_metadata, u, __LINE__, ops[i].cmd, 0, NULL, -EPERM,
		       R_CORE, -1, NULL, ops[i].a);
	/* reading needs no privilege */
	EXPECT_EQ(0, request(_metadata, u, DRACK_CMD_POOL_GET, 0,
			     ATTRS(A_POOL), NULL, &r));
	EXPECT_EQ(1, r.n);
	reply_free(&r);
	EXPECT_EQ(0, request(_metadata, u, DRACK_CMD_HOST_GET, NLM_F_DUMP,
			     ATTRS(A_POOL), NULL, &r));
	EXPECT_EQ(2, r.n);
	reply_free(&r);
	sk_close(u);
}

/* ---------------------------------------------------------------- */
/* Phase fmd: drack-fmd is the fabric manager                        */
/* ---------------------------------------------------------------- */

TEST_F_TIMEOUT(genl, fm_external, 120)
{
	struct tables *t = self->t;
	struct nl *nl = self->nl;
	uint32_t s = free_section(t);

	PHASE("fmd");
	if (!t->fm_pid)
		SKIP(return, "drack-fmd did not register as the fabric manager");
	TH_LOG("fabric manager: FM_PID %u, epoch %llu", t->fm_pid,
	       (unsigned long long)t->epoch);
	EXPECT_LE(1ULL, t->epoch);
	reject(_metadata, nl, __LINE__, DRACK_CMD_FM_REGISTER, 0, NULL, -EBUSY,
	       R_NOSNAP, -1, "fabric manager", ATTRS(A_POOL));
	reject(_metadata, nl, __LINE__, DRACK_CMD_FM_UNREGISTER, 0, NULL,
	       -ENOENT, R_NOSNAP, -1, NULL, ATTRS(A_POOL));
	if (s != NONE)
		reject(_metadata, nl, __LINE__, DRACK_CMD_SECTION_GRANT, 0, NULL,
		       -EBUSY, R_NOSNAP, -1, "fabric manager",
		       ATTRS(A_POOL, G_HOST(H0), G_SECT(s), G_CLASS(0)));
	reject(_metadata, nl, __LINE__, DRACK_CMD_HOST_FENCE, 0, NULL, -EBUSY,
	       R_NOSNAP, -1, "fabric manager", ATTRS(A_POOL, G_HOST(H1)));
	reject(_metadata, nl, __LINE__, DRACK_CMD_POOL_FORMAT, 0, NULL, -EBUSY,
	       R_NOSNAP, -1, "fabric manager", ATTRS(A_POOL));
	read_tables(_metadata, nl, t);
	EXPECT_NE(0U, t->fm_pid);
}
