/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * genl.c's tests of pool, host and Section dumps: POOL_GET, HOST_GET, SECTION_GET, malformed requests.
 * Included by genl.c only, after its fixture and helpers.
 */
/* ---------------------------------------------------------------- */
/* POOL_GET                                                          */
/* ---------------------------------------------------------------- */

static const struct want pool_attrs[] = {
	{ AP(ID), 4 }, { AP(BACKEND), -1 },
	{ AP(SIZE), 8 }, { AP(SECTION_SIZE), 4 },
	{ AP(SECTION_COUNT), 4 }, { AP(META_SECTIONS), 4 },
	{ AP(FREE_SECTIONS), 4 }, { AP(MAX_HOSTS), 4 },
	{ AP(REGIONS), 4 }, { AP(FM_PID), 4 },
	{ AP(FM_EPOCH), 8 }, W_END
};

static void check_pool_msg(struct __test_metadata *_metadata,
			   struct nlmsghdr *m, const struct tables *t)
{
	uint32_t count = mu32(m, AP(SECTION_COUNT));
	const char *be = mstr(m, AP(BACKEND));

	EXPECT_EQ(DRACK_CMD_POOL_GET, mcmd(m));
	expect_attrs(_metadata, m, "POOL_GET", pool_attrs);
	EXPECT_EQ(POOL, mu32(m, AP(ID)));
	EXPECT_TRUE(be && !strcmp(be, "ram")) TH_LOG("backend '%s'", be ?: "(none)");
	EXPECT_EQ(DRACK_SECTION_SIZE, mu32(m, AP(SECTION_SIZE)));
	EXPECT_EQ((uint64_t)count << DRACK_SECTION_SHIFT,
		  mu64(m, AP(SIZE)));
	EXPECT_LE(4U, count);
	EXPECT_LT(0U, mu32(m, AP(META_SECTIONS)));
	EXPECT_GT(count, mu32(m, AP(META_SECTIONS)));
	EXPECT_LE(2U, mu32(m, AP(MAX_HOSTS)));
	EXPECT_GE((uint32_t)DRACK_MAX_HOSTS, mu32(m, AP(MAX_HOSTS)));
	EXPECT_LE(1U, mu32(m, AP(REGIONS)));
	EXPECT_GE(16U, mu32(m, AP(REGIONS)));
	if (t) {
		uint32_t s, n = 0;

		for (s = 0; s < t->count; s++)
			n += t->owner[s] == DRACK_SECTION_FREE;
		EXPECT_EQ(n, mu32(m, AP(FREE_SECTIONS)))
			TH_LOG("FREE_SECTIONS disagrees with the Section table");
	}
}

TEST_F_TIMEOUT(genl, pool_get_do, 120)
{
	struct reply r;

	PHASE("live");
	ASSERT_EQ(0, request(_metadata, self->nl, DRACK_CMD_POOL_GET, 0,
			     ATTRS(A_POOL), NULL, &r)) TH_LOG("%s", r.msg);
	ASSERT_EQ(1, r.n);
	check_pool_msg(_metadata, r.m[0], self->t);
	EXPECT_EQ((uint32_t)atoi(env_or("DRACK_GENL_REGIONS", "2")),
		  mu32(r.m[0], AP(REGIONS)));
	EXPECT_EQ(0U, mu32(r.m[0], AP(FM_PID)))
		TH_LOG("a fabric manager is registered (no drack-fmd in this phase)");
	reply_free(&r);
}

TEST_F_TIMEOUT(genl, pool_get_dump, 120)
{
	struct reply r, d;
	bool found = false;
	int i;

	PHASE("live");
	ASSERT_EQ(0, request(_metadata, self->nl, DRACK_CMD_POOL_GET, 0,
			     ATTRS(A_POOL), NULL, &d));
	ASSERT_EQ(0, request(_metadata, self->nl, DRACK_CMD_POOL_GET,
			     NLM_F_DUMP, NOATTRS, NULL, &r)) TH_LOG("%s", r.msg);
	ASSERT_LE(1, r.n);
	for (i = 0; i < r.n; i++) {
		if (mu32(r.m[i], AP(ID)) != POOL)
			continue;
		EXPECT_FALSE(found) TH_LOG("pool 0 dumped twice");
		found = true;
		check_pool_msg(_metadata, r.m[i], self->t);
		/* the dump says what the doit says */
		EXPECT_EQ(d.m[0]->nlmsg_len, r.m[i]->nlmsg_len);
		EXPECT_EQ(0, memcmp(nlmsg_data(d.m[0]), nlmsg_data(r.m[i]),
				    d.m[0]->nlmsg_len - NLMSG_HDRLEN))
			TH_LOG("POOL_GET dump and doit differ for pool 0");
	}
	EXPECT_TRUE(found) TH_LOG("pool 0 not in the dump");
	reply_free(&r);
	reply_free(&d);
}

TEST_F_TIMEOUT(genl, pool_get_invalid, 120)
{
	struct nl *nl = self->nl;
	const uint8_t C = DRACK_CMD_POOL_GET;

	PHASE("live");
	REJECT_MISS(nl, C, 0, AP(ID), A_U32(AH(ID), 0));
	reject(_metadata, nl, __LINE__, C, 0, NULL, -EINVAL, 0,
	       AP(ID), NULL, NOATTRS);
	/* wrong lengths */
	REJECT(nl, C, 0, -EINVAL, A_U8(AP(ID), 0));
	REJECT(nl, C, 0, -EINVAL, A_U16(AP(ID), 0));
	REJECT(nl, C, 0, -EINVAL, A_U64(AP(ID), 0));
	REJECT(nl, C, 0, -EINVAL, A_EMPTY(AP(ID)));
	REJECT(nl, C, 0, -EINVAL, A_STR(AP(ID), "0"));
	/* unknown pools */
	REJECT(nl, C, 0, -ENOENT, A_U32(AP(ID), NO_POOL));
	REJECT(nl, C, 0, -ENOENT, A_U32(AP(ID), 0xffffffff));
	/* out of range in a known attribute */
	REJECT(nl, C, 0, -ERANGE, A_POOL, A_U32(AH(ID), DRACK_MAX_HOSTS));
	REJECT(nl, C, 0, -ERANGE, A_POOL, A_U32(AS(CLASS), DRACK_NR_CLASSES));
	/* every reply-only attribute, unknown types: doit and dump */
	reject_extra_attrs(_metadata, nl, __LINE__, C, 0, ATTRS(A_POOL), true);
	reject_extra_attrs(_metadata, nl, __LINE__, C, NLM_F_DUMP, NOATTRS, false);
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U8(AP(ID), 0));
	REJECT(nl, C, NLM_F_DUMP, -ERANGE, A_U32(AH(ID), 64));
}

/*
 * Nests: what the kernel's generated nested policies and strict
 * validation refuse, with the missing attribute named inside its nest.
 */
TEST_F_TIMEOUT(genl, nesting, 120)
{
	static const uint8_t id0[8] = { 8, 0, DRACK_A_POOL_ID, 0, 0, 0, 0, 0 };
	static const uint8_t junk[3] = { 1, 2, 3 };
	struct nl *nl = self->nl;
	const uint8_t C = DRACK_CMD_POOL_GET;
	int f;

	PHASE("live");
	for (f = 0; f <= NLM_F_DUMP; f += NLM_F_DUMP) {
		/* a nest without NLA_F_NESTED, or as a u32 */
		REJECT(nl, C, f, -EINVAL, A_BIN(DRACK_A_POOL, id0, 8));
		REJECT(nl, C, f, -EINVAL, A_U32(DRACK_A_POOL, POOL));
		/* garbage in a nest (shorter than an attribute header: the
		 * core's validate_nla says ERANGE), a nest in a nest
		 */
		REJECT(nl, C, f, -ERANGE, A_BIN(DRACK_A_POOL | NLA_F_NESTED, junk, 3));
		REJECT(nl, C, f, -EINVAL,
		       A_BIN(AP(ID) | NLA_F_NESTED, id0, 8));
		/* a reply-only attribute in the nest, an unknown one */
		REJECT(nl, C, f, -EINVAL, A_POOL, A_U32(AP(BACKEND), 0));
		REJECT(nl, C, f, -EINVAL, A_POOL, A_U32(P(DRACK_A_POOL, 0x3fff), 0));
		/* a good nest, then a bad one of the same type */
		REJECT(nl, C, f, -ERANGE, A_POOL,
		       A_BIN(DRACK_A_POOL | NLA_F_NESTED, junk, 3));
	}
	/* doit: an empty nest names the id inside it */
	reject(_metadata, nl, __LINE__, C, 0, NULL, -EINVAL, 0, AP(ID),
	       "missing pool id", ATTRS(A_EMPTY(DRACK_A_POOL | NLA_F_NESTED)));
	reject(_metadata, nl, __LINE__, C, 0, NULL, -EINVAL, 0, DRACK_A_POOL,
	       "missing pool id", NOATTRS);
	/* the pool's id in the wrong nest */
	reject(_metadata, nl, __LINE__, C, 0, NULL, -EINVAL, 0, DRACK_A_POOL,
	       "missing pool id", ATTRS(A_U32(AH(ID), POOL)));
	/* a grant's class belongs to the section nest: the class nest is
	 * reply-only
	 */
	REJECT(nl, DRACK_CMD_SECTION_GRANT, 0, -EINVAL, A_POOL, G_HOST(H0),
	       G_SECT(free_section(self->t)), A_U32(AC(ID), 0));
}

/* Broken headers and attribute framing, on POOL_GET and SECTION_GRANT. */
TEST_F_TIMEOUT(genl, malformed, 120)
{
	static const struct tweak reserved = { .reserved = 1 };
	static const struct tweak atomic = { .add_flags = NLM_F_ATOMIC };
	static const struct tweak multi = { .add_flags = NLM_F_MULTI };
	static const struct tweak replace = { .add_flags = NLM_F_REPLACE };
	static const struct tweak short_hdr = { .cut = GENL_HDRLEN - 2 };
	uint32_t s = free_section(self->t);
	struct nl *nl = self->nl;
	uint8_t cmds[2] = { DRACK_CMD_POOL_GET, DRACK_CMD_SECTION_GRANT };
	unsigned int i;

	PHASE("live");
	ASSERT_NE(NONE, s);
	for (i = 0; i < 2; i++) {
		const struct attr *ok = ATTRS(A_POOL, A_U32(AH(ID), H0),
					      A_U32(AS(ID), s),
					      A_U32(AS(CLASS), 0));
		uint8_t C = cmds[i];

		reject(_metadata, nl, __LINE__, C, 0, &reserved, -EINVAL, 0,
		       -1, NULL, ok);
		reject(_metadata, nl, __LINE__, C, 0, &atomic, -EINVAL, 0, -1,
		       NULL, ok);
		reject(_metadata, nl, __LINE__, C, 0, &multi, -EINVAL, 0, -1,
		       NULL, ok);
		reject(_metadata, nl, __LINE__, C, 0, &replace, -EINVAL, 0, -1,
		       NULL, ok);
		/* message shorter than the genetlink header: core, no extack */
		REJECT_TW(nl, C, 0, &short_hdr, -EINVAL, R_CORE, A_END);
		/* NLA_F_NESTED on a u32 */
		REJECT(nl, C, 0, -EINVAL, A_U32(AP(ID) | NLA_F_NESTED, 0),
		       A_U32(AH(ID), H0), A_U32(AS(ID), s),
		       A_U32(AS(CLASS), 0));
		/* an attribute header claiming more bytes than are left */
		REJECT(nl, C, 0, -EINVAL, A_POOL, A_U32(AH(ID), H0),
		       A_U32(AS(ID), s), A_U32(AS(CLASS), 0),
		       A_RAW("\x08\x00\x02\x00\x00\x00"));
		/* nla_len below the attribute header size */
		REJECT(nl, C, 0, -EINVAL, A_POOL, A_U32(AH(ID), H0),
		       A_U32(AS(ID), s), A_U32(AS(CLASS), 0),
		       A_RAW("\x02\x00\x02\x00"));
		/* trailing garbage shorter than an attribute header */
		REJECT(nl, C, 0, -EINVAL, A_POOL, A_U32(AH(ID), H0),
		       A_U32(AS(ID), s), A_U32(AS(CLASS), 0),
		       A_RAW("\x01\x02"));
		/* the same attribute twice, the second one bad */
		REJECT(nl, C, 0, -EINVAL, A_POOL, A_U16(AP(ID), 0),
		       A_U32(AH(ID), H0), A_U32(AS(ID), s),
		       A_U32(AS(CLASS), 0));
	}
}

/* ---------------------------------------------------------------- */
/* HOST_GET, SECTION_GET                                             */
/* ---------------------------------------------------------------- */

static const struct want host_attrs[] = {
	{ AP(ID), 4 }, { AH(ID), 4 },
	{ AH(STATE), 4 }, { AH(FLAGS), 4 },
	{ AH(MAC), 6 }, { AH(IFINDEX), 4 },
	{ AH(SECTIONS), 4 }, { AH(HEARTBEAT), 8 },
	{ AH(GENERATION), 4 }, { AH(FREE_2K), 4 },
	{ AH(FREE_64K), 4 }, { AH(WANTED_2K), 4 },
	{ AH(WANTED_64K), 4 }, { AH(RELEASED), 8 }, W_END
};

TEST_F_TIMEOUT(genl, host_get, 120)
{
	struct tables *t = self->t, t2;
	struct nl *nl = self->nl;
	const uint8_t C = DRACK_CMD_HOST_GET;
	struct reply r;
	uint8_t mac[6];
	uint32_t h;
	int i;

	PHASE("live");
	ASSERT_EQ(0, request(_metadata, nl, C, NLM_F_DUMP, ATTRS(A_POOL), NULL,
			     &r)) TH_LOG("%s", r.msg);
	EXPECT_EQ(2, r.n) TH_LOG("hosts in the dump: %d", r.n);
	for (i = 0; i < r.n; i++) {
		struct nlmsghdr *m = r.m[i];

		h = mu32(m, AH(ID));
		EXPECT_EQ(C, mcmd(m));
		expect_attrs(_metadata, m, "HOST_GET", host_attrs);
		EXPECT_EQ(POOL, mu32(m, AP(ID)));
		EXPECT_TRUE(h == H0 || h == H1) TH_LOG("host %u in the dump", h);
		EXPECT_EQ((uint32_t)DRACK_HOST_UP, mu32(m, AH(STATE)));
		EXPECT_EQ(DRACK_HOST_F_RUNNING, mu32(m, AH(FLAGS)));
		drack_host_mac(mac, POOL, h);
		EXPECT_TRUE(mhas(m, AH(MAC), 6) &&
			    !memcmp(mac, nla_data(mattr(m, AH(MAC))), 6))
			TH_LOG("host %u MAC", h);
		EXPECT_EQ(owned_count(t, h, NONE), mu32(m, AH(SECTIONS)))
			TH_LOG("host %u: HOST_SECTIONS disagrees with the Section table", h);
		EXPECT_LE(1U, mu32(m, AH(GENERATION)));
		EXPECT_EQ(0ULL, mu64(m, AH(RELEASED)));
		EXPECT_GE(1U, mu32(m, AH(WANTED_2K)));
		EXPECT_GE(1U, mu32(m, AH(WANTED_64K)));
		EXPECT_LE(mu32(m, AH(FREE_2K)),
			  owned_count(t, h, DRACK_CLASS_2K) *
			  (DRACK_SECTION_SIZE / DRACK_CLASS_SIZE(DRACK_CLASS_2K)));
		EXPECT_LE(mu32(m, AH(FREE_64K)),
			  owned_count(t, h, DRACK_CLASS_64K) *
			  (DRACK_SECTION_SIZE / DRACK_CLASS_SIZE(DRACK_CLASS_64K)));
	}
	reply_free(&r);
	/* live hosts heartbeat */
	sleep_ms(500);
	read_tables(_metadata, nl, &t2);
	EXPECT_LT(t->hbeat[H0], t2.hbeat[H0]);
	EXPECT_LT(t->hbeat[H1], t2.hbeat[H1]);

	/* missing or unknown pool: the dump itself fails (NLMSG_DONE) */
	REJECT_MISS(nl, C, NLM_F_DUMP, AP(ID), A_U32(AH(ID), 0));
	reject(_metadata, nl, __LINE__, C, NLM_F_DUMP, NULL, -EINVAL, 0,
	       AP(ID), NULL, NOATTRS);
	REJECT(nl, C, NLM_F_DUMP, -ENOENT, A_U32(AP(ID), NO_POOL));
	REJECT(nl, C, NLM_F_DUMP, -ENOENT, A_U32(AP(ID), 0xffffffff));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U8(AP(ID), 0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U16(AP(ID), 0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U64(AP(ID), 0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_POOL, A_U8(AH(ID), 0));
	REJECT(nl, C, NLM_F_DUMP, -ERANGE, A_POOL, A_U32(AH(ID), 64));
	reject_extra_attrs(_metadata, nl, __LINE__, C, NLM_F_DUMP,
			   ATTRS(A_POOL), false);
	/* dump only */
	REJECT_CORE(nl, C, 0, -EOPNOTSUPP, A_POOL);
}

static const struct want section_attrs[] = {
	{ AP(ID), 4 }, { AS(ID), 4 },
	{ AS(OWNER), 4 }, { AS(CLASS), 4 },
	{ AS(GENERATION), 4 }, { AS(REGION), 4 },
	{ AS(FLAGS), 4 }, W_END
};

TEST_F_TIMEOUT(genl, section_get, 120)
{
	struct tables *t = self->t;
	struct nl *nl = self->nl;
	const uint8_t C = DRACK_CMD_SECTION_GET;
	struct drack_geometry g = { .section_count = t->count };
	struct reply r;
	uint32_t s, o, n = 0;

	PHASE("live");
	ASSERT_EQ(0, request(_metadata, nl, C, NLM_F_DUMP, ATTRS(A_POOL), NULL,
			     &r)) TH_LOG("%s", r.msg);
	ASSERT_EQ((int)t->count, r.n);
	for (s = 0; s < t->count; s++) {
		struct nlmsghdr *m = r.m[s];

		EXPECT_EQ(C, mcmd(m));
		expect_attrs(_metadata, m, "SECTION_GET", section_attrs);
		EXPECT_EQ(POOL, mu32(m, AP(ID)));
		EXPECT_EQ(s, mu32(m, AS(ID)));
		o = mu32(m, AS(OWNER));
		if (s < t->meta) {
			EXPECT_EQ((uint32_t)DRACK_SECTION_META, o) TH_LOG("Section %u", s);
		} else if (o != DRACK_SECTION_FREE) {
			EXPECT_TRUE(o == H0 || o == H1) TH_LOG("Section %u owner %u", s, o);
			EXPECT_GT((uint32_t)DRACK_NR_CLASSES, mu32(m, AS(CLASS)));
			EXPECT_LE(1U, mu32(m, AS(GENERATION)));
			n++;
		}
		EXPECT_EQ(0U, mu32(m, AS(FLAGS))) TH_LOG("Section %u", s);
		EXPECT_EQ(drack_section_region(&g, t->regions, s),
			  mu32(m, AS(REGION))) TH_LOG("Section %u", s);
	}
	EXPECT_LE(4U, n) TH_LOG("hosts 0 and 1 own %u Sections", n);
	EXPECT_EQ(t->count - t->meta - n, t->free);
	reply_free(&r);

	REJECT_MISS(nl, C, NLM_F_DUMP, AP(ID), A_U32(AS(ID), 0));
	reject(_metadata, nl, __LINE__, C, NLM_F_DUMP, NULL, -EINVAL, 0,
	       AP(ID), NULL, NOATTRS);
	REJECT(nl, C, NLM_F_DUMP, -ENOENT, A_U32(AP(ID), NO_POOL));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U8(AP(ID), 0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U16(AP(ID), 0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_POOL, A_U16(AS(ID), 0));
	REJECT(nl, C, NLM_F_DUMP, -ERANGE, A_POOL, A_U32(AS(CLASS), 2));
	reject_extra_attrs(_metadata, nl, __LINE__, C, NLM_F_DUMP,
			   ATTRS(A_POOL), false);
	REJECT_CORE(nl, C, 0, -EOPNOTSUPP, A_POOL);
}
