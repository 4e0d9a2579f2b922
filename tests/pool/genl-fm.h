/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * genl.c's tests of the fabric manager's commands: SECTION_GRANT/REVOKE, HOST_FENCE/RECLAIM, FM_REGISTER/UNREGISTER, POOL_FORMAT.
 * Included by genl.c only, after its fixture and helpers.
 */
/* ---------------------------------------------------------------- */
/* SECTION_GRANT, SECTION_REVOKE                                     */
/* ---------------------------------------------------------------- */

TEST_F_TIMEOUT(genl, section_grant, 120)
{
	struct tables *t = self->t, t2;
	struct nl *nl = self->nl, *ev;
	const uint8_t C = DRACK_CMD_SECTION_GRANT;
	uint32_t s = free_section(t), mine = owned_section(t, H0, NONE);
	uint32_t slot = free_slot(t), mh = t->max_hosts;
	char msg[256];

	PHASE("live");
	ASSERT_NE(NONE, s);
	ASSERT_NE(NONE, mine);
	ASSERT_NE(NONE, slot);
	/* missing attributes */
	REJECT_MISS(nl, C, 0, AP(ID), G_HOST(H0), G_SECT(s), G_CLASS(0));
	REJECT_MISS(nl, C, 0, AH(ID), A_POOL, G_SECT(s), G_CLASS(0));
	REJECT_MISS(nl, C, 0, AS(ID), A_POOL, G_HOST(H0), G_CLASS(0));
	REJECT_MISS(nl, C, 0, AS(CLASS), A_POOL, G_HOST(H0), G_SECT(s));
	reject(_metadata, nl, __LINE__, C, 0, NULL, -EINVAL, 0, -1, NULL, NOATTRS);
	/* wrong lengths */
	REJECT(nl, C, 0, -EINVAL, A_U8(AP(ID), 0), G_HOST(H0), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U8(AH(ID), H0), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U16(AH(ID), H0), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U64(AH(ID), H0), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), A_U16(AS(ID), s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), A_U64(AS(ID), s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), G_SECT(s), A_U8(AS(CLASS), 0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), G_SECT(s), A_EMPTY(AS(CLASS)));
	/* out of range: the policy, then the pool's geometry */
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_HOST(DRACK_MAX_HOSTS), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_HOST(0xffffffff), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_HOST(H0), G_SECT(s), G_CLASS(DRACK_NR_CLASSES));
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_HOST(H0), G_SECT(s), G_CLASS(0xffffffff));
	if (mh < DRACK_MAX_HOSTS) {
		REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(mh), G_SECT(s), G_CLASS(0));
		REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(DRACK_MAX_HOSTS - 1), G_SECT(s), G_CLASS(0));
	}
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), G_SECT(t->count), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), G_SECT(0xffffffff), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), G_SECT(0), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), G_SECT(t->meta - 1), G_CLASS(0));
	/* unknown pool, a free host slot, a Section that is not free */
	REJECT(nl, C, 0, -ENOENT, A_U32(AP(ID), NO_POOL), G_HOST(H0), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -ENOENT, A_POOL, G_HOST(slot), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -EBUSY, A_POOL, G_HOST(H0), G_SECT(mine), G_CLASS(t->cls[mine]));
	REJECT(nl, C, 0, -EBUSY, A_POOL, G_HOST(H1), G_SECT(mine), G_CLASS(0));
	/* otherwise valid, plus reply-only or unknown attributes */
	reject_extra_attrs(_metadata, nl, __LINE__, C, 0,
			   ATTRS(A_POOL, G_HOST(H0), G_SECT(s), G_CLASS(1)), false);
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), G_SECT(s), G_CLASS(1),
	       A_U32(AS(OWNER), H1));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), G_SECT(s), G_CLASS(1),
	       A_U32(DRACK_A_COUNT, 1));
	/* no dump */
	REJECT_CORE(nl, C, NLM_F_DUMP, -EOPNOTSUPP, A_POOL, G_HOST(H0), G_SECT(s), G_CLASS(1));

	/* The real thing: a 64K Section for host 0. */
	ev = events_open(_metadata);
	ASSERT_EQ(0, grant(_metadata, nl, H0, s, DRACK_CLASS_64K, msg)) TH_LOG("%s", msg);
	read_tables(_metadata, nl, &t2);
	EXPECT_EQ(H0, t2.owner[s]);
	EXPECT_EQ((uint32_t)DRACK_CLASS_64K, t2.cls[s]);
	EXPECT_EQ(t->gen[s] + 1, t2.gen[s]);
	EXPECT_EQ(0U, t2.sflags[s]);
	EXPECT_EQ(t->free - 1, t2.free);
	EXPECT_EQ(t->hsections[H0] + 1, t2.hsections[H0]);
	EXPECT_TRUE(wait_event(ev, DRACK_CMD_SECTION_NOTIFY, AS(ID), s,
			       AS(OWNER), H0, 5000))
		TH_LOG("no SECTION_NOTIFY for the grant of Section %u", s);
	/* granted once: again is -EBUSY */
	REJECT(nl, C, 0, -EBUSY, A_POOL, G_HOST(H0), G_SECT(s), G_CLASS(1));
	/* give it back */
	EXPECT_EQ(0, simple(_metadata, nl, DRACK_CMD_SECTION_REVOKE, 0,
			    ATTRS(A_POOL, G_SECT(s)), msg)) TH_LOG("%s", msg);
	EXPECT_TRUE(WAIT_TABLES(nl, &t2, 5000, t2.owner[s] == DRACK_SECTION_FREE))
		TH_LOG("revoked Section %u never came back", s);
	sk_close(ev);
}

TEST_F_TIMEOUT(genl, section_revoke, 120)
{
	struct tables *t = self->t, t2;
	struct nl *nl = self->nl, *ev;
	const uint8_t C = DRACK_CMD_SECTION_REVOKE;
	uint32_t s = free_section(t), mine = owned_section(t, H0, NONE), gen;
	char msg[256];
	char *before, *after;

	PHASE("live");
	ASSERT_NE(NONE, s);
	ASSERT_NE(NONE, mine);
	REJECT_MISS(nl, C, 0, AP(ID), G_SECT(mine));
	REJECT_MISS(nl, C, 0, AS(ID), A_POOL);
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U8(AS(ID), mine));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U16(AS(ID), mine));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U64(AS(ID), mine));
	REJECT(nl, C, 0, -EINVAL, A_U16(AP(ID), 0), G_SECT(mine));
	REJECT(nl, C, 0, -ENOENT, A_U32(AP(ID), NO_POOL), G_SECT(mine));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_SECT(t->count));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_SECT(0xffffffff));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_SECT(0));		/* metadata */
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_SECT(s));		/* free */
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_SECT(mine), A_U32(AH(ID), 64));
	reject_extra_attrs(_metadata, nl, __LINE__, C, 0,
			   ATTRS(A_POOL, G_SECT(mine)), false);
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_SECT(mine),
	       A_U32(AS(FLAGS), DRACK_SECTION_F_REVOKE));
	REJECT_CORE(nl, C, NLM_F_DUMP, -EOPNOTSUPP, A_POOL, G_SECT(mine));

	/* A Section host 0 has taken (a few heartbeats later)... */
	ev = events_open(_metadata);
	ASSERT_EQ(0, grant(_metadata, nl, H0, s, DRACK_CLASS_2K, msg)) TH_LOG("%s", msg);
	EXPECT_TRUE(wait_event(ev, DRACK_CMD_SECTION_NOTIFY, AS(ID), s,
			       AS(OWNER), H0, 5000))
		TH_LOG("no SECTION_NOTIFY for the grant of Section %u", s);
	EXPECT_TRUE(WAIT_TABLES(nl, &t2, 5000, t2.hbeat[H0] >= t->hbeat[H0] + 4));
	gen = t2.gen[s];
	EXPECT_EQ(t->gen[s] + 1, gen);
	/* ... is revoked while host 0 hangs: it stays, flagged. */
	ASSERT_EQ(0, stall(self, H0, true)) TH_LOG("ethtool stall on failed");
	ASSERT_EQ(0, simple(_metadata, nl, C, 0, ATTRS(A_POOL, G_SECT(s)), msg))
		TH_LOG("%s", msg);
	before = snapshot(_metadata, nl);
	read_tables(_metadata, nl, &t2);
	EXPECT_EQ(H0, t2.owner[s]) TH_LOG("a hung host gave Section %u back", s);
	EXPECT_EQ(DRACK_SECTION_F_REVOKE, t2.sflags[s]);
	EXPECT_EQ(gen, t2.gen[s]);
	/* idempotent */
	EXPECT_EQ(0, simple(_metadata, nl, C, 0, ATTRS(A_POOL, G_SECT(s)), msg))
		TH_LOG("%s", msg);
	after = snapshot(_metadata, nl);
	EXPECT_TRUE(same_state(_metadata, before, after))
		TH_LOG("a second revoke changed the state");
	free(before);
	free(after);
	/* Resumed, host 0 gives it back: FREE, generation + 1, flags 0. */
	ASSERT_EQ(0, stall(self, H0, false));
	EXPECT_TRUE(wait_event(ev, DRACK_CMD_SECTION_NOTIFY, AS(ID), s,
			       AS(OWNER), DRACK_SECTION_FREE, 5000))
		TH_LOG("no SECTION_NOTIFY for the release of Section %u", s);
	EXPECT_TRUE(WAIT_TABLES(nl, &t2, 5000, t2.owner[s] == DRACK_SECTION_FREE))
		TH_LOG("revoked Section %u never came back", s);
	EXPECT_EQ(gen + 1, t2.gen[s]);
	EXPECT_EQ(0U, t2.sflags[s]);
	/* now it is free: -EINVAL */
	REJECT_MSG(nl, C, 0, -EINVAL, NULL, A_POOL, G_SECT(s));
	sk_close(ev);
}

/*
 * SECTION_REFUSE: the FM tells a host why it grants nothing. Nothing in
 * the dumps shows it (the host's link does: tests/net/no_fm.sh), so a
 * valid refusal changes no table either.
 */
TEST_F_TIMEOUT(genl, section_refuse, 120)
{
	struct tables *t = self->t;
	struct nl *nl = self->nl;
	const uint8_t C = DRACK_CMD_SECTION_REFUSE;
	uint32_t slot = free_slot(t);
	char msg[256];
	char *before, *after;

#define G_WHY(w)	A_U32(DRACK_A_REFUSAL, (w))
	PHASE("live");
	ASSERT_NE(NONE, slot);
	REJECT_MISS(nl, C, 0, AP(ID), G_HOST(H1), G_WHY(DRACK_REFUSED_QUOTA));
	REJECT_MISS(nl, C, 0, AH(ID), A_POOL, G_WHY(DRACK_REFUSED_QUOTA));
	REJECT_MISS(nl, C, 0, DRACK_A_REFUSAL, A_POOL, G_HOST(H1));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H1), A_U16(DRACK_A_REFUSAL, 1));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H1), A_U64(DRACK_A_REFUSAL, 1));
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_HOST(H1), G_WHY(DRACK_REFUSED_NONE));
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_HOST(H1), G_WHY(DRACK_REFUSED_NR));
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_HOST(64), G_WHY(DRACK_REFUSED_QUOTA));
	REJECT(nl, C, 0, -ENOENT, A_U32(AP(ID), NO_POOL), G_HOST(H1),
	       G_WHY(DRACK_REFUSED_QUOTA));
	REJECT_MSG(nl, C, 0, -ENOENT, "host is not up", A_POOL, G_HOST(slot),
		   G_WHY(DRACK_REFUSED_POOL_FULL));
	if (t->max_hosts < DRACK_MAX_HOSTS)
		REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(t->max_hosts),
		       G_WHY(DRACK_REFUSED_QUOTA));
	reject_extra_attrs(_metadata, nl, __LINE__, C, 0,
			   ATTRS(A_POOL, G_HOST(H1), G_WHY(DRACK_REFUSED_QUOTA)),
			   false);
	REJECT_CORE(nl, C, NLM_F_DUMP, -EOPNOTSUPP, A_POOL, G_HOST(H1),
		    G_WHY(DRACK_REFUSED_QUOTA));

	/* host 1 owns Sections of both classes: its carrier stays on */
	before = snapshot(_metadata, nl);
	EXPECT_EQ(0, simple(_metadata, nl, C, 0,
			    ATTRS(A_POOL, G_HOST(H1), G_WHY(DRACK_REFUSED_QUOTA)),
			    msg)) TH_LOG("%s", msg);
	EXPECT_EQ(0, simple(_metadata, nl, C, 0,
			    ATTRS(A_POOL, G_HOST(H1),
				  G_WHY(DRACK_REFUSED_POOL_FULL)), msg))
		TH_LOG("%s", msg);
	after = snapshot(_metadata, nl);
	EXPECT_TRUE(same_state(_metadata, before, after))
		TH_LOG("a refusal changed the tables");
	free(before);
	free(after);
#undef G_WHY
}

/* ---------------------------------------------------------------- */
/* HOST_FENCE, HOST_RECLAIM                                          */
/* ---------------------------------------------------------------- */

TEST_F_TIMEOUT(genl, host_fence_reclaim, 180)
{
	struct tables *t = self->t, t2, t3;
	struct nl *nl = self->nl, *ev;
	const uint8_t F = DRACK_CMD_HOST_FENCE, R = DRACK_CMD_HOST_RECLAIM;
	uint32_t slot = free_slot(t), mh = t->max_hosts, s, n1;
	char msg[256];

	PHASE("live");
	ASSERT_NE(NONE, slot);
	/* HOST_FENCE: bad requests */
	REJECT_MISS(nl, F, 0, AP(ID), G_HOST(H1));
	REJECT_MISS(nl, F, 0, AH(ID), A_POOL);
	REJECT(nl, F, 0, -EINVAL, A_POOL, A_U8(AH(ID), H1));
	REJECT(nl, F, 0, -EINVAL, A_POOL, A_U16(AH(ID), H1));
	REJECT(nl, F, 0, -EINVAL, A_POOL, A_U64(AH(ID), H1));
	REJECT(nl, F, 0, -EINVAL, A_U8(AP(ID), 0), G_HOST(H1));
	REJECT(nl, F, 0, -ERANGE, A_POOL, G_HOST(DRACK_MAX_HOSTS));
	REJECT(nl, F, 0, -ERANGE, A_POOL, G_HOST(0xffffffff));
	if (mh < DRACK_MAX_HOSTS)
		REJECT(nl, F, 0, -EINVAL, A_POOL, G_HOST(mh));
	REJECT(nl, F, 0, -ENOENT, A_U32(AP(ID), NO_POOL), G_HOST(H1));
	REJECT_MSG(nl, F, 0, -ENOENT, "free", A_POOL, G_HOST(slot));
	reject_extra_attrs(_metadata, nl, __LINE__, F, 0,
			   ATTRS(A_POOL, G_HOST(H1)), false);
	REJECT(nl, F, 0, -EINVAL, A_POOL, G_HOST(H1),
	       A_U32(AH(STATE), DRACK_HOST_DEAD));
	REJECT_CORE(nl, F, NLM_F_DUMP, -EOPNOTSUPP, A_POOL, G_HOST(H1));
	/* HOST_RECLAIM: bad requests */
	REJECT_MISS(nl, R, 0, AP(ID), G_HOST(H1));
	REJECT_MISS(nl, R, 0, AH(ID), A_POOL);
	REJECT(nl, R, 0, -EINVAL, A_POOL, A_U16(AH(ID), H1));
	REJECT(nl, R, 0, -EINVAL, A_POOL, A_U64(AH(ID), H1));
	REJECT(nl, R, 0, -ERANGE, A_POOL, G_HOST(DRACK_MAX_HOSTS));
	if (mh < DRACK_MAX_HOSTS)
		REJECT(nl, R, 0, -EINVAL, A_POOL, G_HOST(mh));
	REJECT(nl, R, 0, -ENOENT, A_U32(AP(ID), NO_POOL), G_HOST(H1));
	REJECT_MSG(nl, R, 0, -EINVAL, "not fenced", A_POOL, G_HOST(H1));
	REJECT_MSG(nl, R, 0, -EINVAL, "not fenced", A_POOL, G_HOST(slot));
	reject_extra_attrs(_metadata, nl, __LINE__, R, 0,
			   ATTRS(A_POOL, G_HOST(H1)), false);
	REJECT_CORE(nl, R, NLM_F_DUMP, -EOPNOTSUPP, A_POOL, G_HOST(H1));

	/* Host 1 hangs and is fenced; host 0 hangs too, so keeps its refs. */
	ev = events_open(_metadata);
	n1 = owned_count(t, H1, NONE);
	ASSERT_LT(0U, n1);
	ASSERT_EQ(0, stall(self, H1, true)) TH_LOG("ethtool stall on failed");
	ASSERT_EQ(0, stall(self, H0, true)) TH_LOG("ethtool stall on failed");
	ASSERT_EQ(0, simple(_metadata, nl, F, 0, ATTRS(A_POOL, G_HOST(H1)), msg))
		TH_LOG("fence host 1: %s", msg);
	read_tables(_metadata, nl, &t2);
	EXPECT_TRUE(t2.up[H1]);
	EXPECT_EQ((uint32_t)DRACK_HOST_DEAD, t2.hstate[H1]);
	EXPECT_EQ((uint32_t)DRACK_HOST_UP, t2.hstate[H0]);
	EXPECT_EQ(n1, owned_count(&t2, H1, NONE)) TH_LOG("fencing moved Sections");
	EXPECT_TRUE(wait_event(ev, DRACK_CMD_HOST_NOTIFY, AH(ID), H1,
			       AH(STATE), DRACK_HOST_DEAD, 3000))
		TH_LOG("no HOST_NOTIFY(DEAD) for host 1");
	REJECT_MSG(nl, F, 0, -EALREADY, "already", A_POOL, G_HOST(H1));
	/* host 0 has not released host 1 yet */
	REJECT_MSG(nl, R, 0, -EBUSY, "references", A_POOL, G_HOST(H1));
	/* resumed, host 0 lets go of host 1 and says so in its entry */
	ASSERT_EQ(0, stall(self, H0, false));
	EXPECT_TRUE(WAIT_TABLES(nl, &t2, 5000, t2.hreleased[H0] & (1ULL << H1)))
		TH_LOG("host 0 never released host 1: released 0x%llx",
		       (unsigned long long)t2.hreleased[H0]);
	EXPECT_EQ((uint32_t)DRACK_HOST_DEAD, t2.hstate[H1]);
	/* reclaim: host 1's Sections FREE (generation + 1), slot FREE */
	ASSERT_EQ(0, simple(_metadata, nl, R, 0, ATTRS(A_POOL, G_HOST(H1)), msg))
		TH_LOG("reclaim host 1: %s", msg);
	read_tables(_metadata, nl, &t3);
	EXPECT_FALSE(t3.up[H1]) TH_LOG("host 1 state %u after the reclaim", t3.hstate[H1]);
	EXPECT_EQ(0U, owned_count(&t3, H1, NONE));
	for (s = t->meta; s < t->count; s++) {
		if (t2.owner[s] != H1)
			continue;
		EXPECT_EQ((uint32_t)DRACK_SECTION_FREE, t3.owner[s]) TH_LOG("Section %u", s);
		EXPECT_EQ(t2.gen[s] + 1, t3.gen[s]) TH_LOG("Section %u", s);
		EXPECT_EQ(0U, t3.sflags[s]) TH_LOG("Section %u", s);
	}
	EXPECT_EQ(t2.free + n1, t3.free);
	EXPECT_EQ((uint32_t)DRACK_HOST_UP, t3.hstate[H0]);
	EXPECT_TRUE(wait_event(ev, DRACK_CMD_HOST_NOTIFY, AH(ID), H1,
			       AH(STATE), DRACK_HOST_FREE, 3000))
		TH_LOG("no HOST_NOTIFY(FREE) for host 1");
	/* the slot is free now */
	REJECT_MSG(nl, R, 0, -EINVAL, "not fenced", A_POOL, G_HOST(H1));
	REJECT_MSG(nl, F, 0, -ENOENT, "free", A_POOL, G_HOST(H1));
	/* host 1 resumes, finds itself fenced and rejoins as host 1 */
	ASSERT_EQ(0, stall(self, H1, false));
	EXPECT_TRUE(WAIT_TABLES(nl, &t3, 15000, t3.up[H1] &&
				t3.hstate[H1] == DRACK_HOST_UP))
		TH_LOG("host 1 did not rejoin");
	EXPECT_LT(t->hgen[H1], t3.hgen[H1]);
	EXPECT_TRUE(WAIT_TABLES(nl, &t3, 3000, !(t3.hreleased[H0] & (1ULL << H1))))
		TH_LOG("host 0 still marks the new host 1 released");
	sk_close(ev);
}

/* ---------------------------------------------------------------- */
/* FM_REGISTER, FM_UNREGISTER                                        */
/* ---------------------------------------------------------------- */

TEST_F_TIMEOUT(genl, fm_register, 120)
{
	struct tables *t = self->t, t2;
	struct nl *a = self->nl, *b = sk_open(_metadata);
	const uint8_t REG = DRACK_CMD_FM_REGISTER, UNREG = DRACK_CMD_FM_UNREGISTER;
	uint32_t s = free_section(t), mine = owned_section(t, H0, NONE);
	uint32_t port_a = nl_socket_get_local_port(a->sk);
	uint32_t port_b = nl_socket_get_local_port(b->sk);
	const char *fm = "fabric manager";
	char msg[256];

	PHASE("live");
	ASSERT_NE(NONE, s);
	ASSERT_NE(NONE, mine);
	ASSERT_EQ(0U, t->fm_pid);
	/* bad requests, nobody registered */
	REJECT_MISS(b, REG, 0, AP(ID), G_HOST(0));
	reject(_metadata, b, __LINE__, REG, 0, NULL, -EINVAL, 0,
	       AP(ID), NULL, NOATTRS);
	REJECT(b, REG, 0, -EINVAL, A_U8(AP(ID), 0));
	REJECT(b, REG, 0, -EINVAL, A_U64(AP(ID), 0));
	REJECT(b, REG, 0, -ENOENT, A_U32(AP(ID), NO_POOL));
	reject_extra_attrs(_metadata, b, __LINE__, REG, 0, ATTRS(A_POOL), false);
	REJECT(b, REG, 0, -EINVAL, A_POOL, A_U32(AP(FM_PID), getpid()));
	REJECT_CORE(b, REG, NLM_F_DUMP, -EOPNOTSUPP, A_POOL);
	REJECT_MISS(b, UNREG, 0, AP(ID), G_HOST(0));
	REJECT(b, UNREG, 0, -EINVAL, A_U16(AP(ID), 0));
	REJECT(b, UNREG, 0, -ENOENT, A_U32(AP(ID), NO_POOL));
	REJECT(b, UNREG, 0, -ENOENT, A_POOL);			/* not the FM */
	reject_extra_attrs(_metadata, b, __LINE__, UNREG, 0, ATTRS(A_POOL), false);
	REJECT_CORE(b, UNREG, NLM_F_DUMP, -EOPNOTSUPP, A_POOL);

	/* A registers: FM_PID set, epoch + 1 */
	ASSERT_EQ(0, simple(_metadata, a, REG, 0, ATTRS(A_POOL), msg)) TH_LOG("%s", msg);
	read_tables(_metadata, b, &t2);
	EXPECT_NE(0U, t2.fm_pid);
	EXPECT_TRUE(t2.fm_pid == (uint32_t)getpid() || t2.fm_pid == port_a)
		TH_LOG("FM_PID %u: neither our pid %d nor A's port %u",
		       t2.fm_pid, getpid(), port_a);
	EXPECT_EQ(t->epoch + 1, t2.epoch);
	/* again from A: fine */
	EXPECT_EQ(0, simple(_metadata, a, REG, 0, ATTRS(A_POOL), msg)) TH_LOG("%s", msg);
	/* B: -EBUSY for registering and for every FM command */
	REJECT_MSG(b, REG, 0, -EBUSY, fm, A_POOL);
	REJECT_MSG(b, DRACK_CMD_SECTION_GRANT, 0, -EBUSY, fm, A_POOL,
		   G_HOST(H0), G_SECT(s), G_CLASS(0));
	REJECT_MSG(b, DRACK_CMD_SECTION_REVOKE, 0, -EBUSY, fm, A_POOL, G_SECT(mine));
	REJECT_MSG(b, DRACK_CMD_SECTION_REFUSE, 0, -EBUSY, fm, A_POOL,
		   G_HOST(H1), A_U32(DRACK_A_REFUSAL, DRACK_REFUSED_QUOTA));
	REJECT_MSG(b, DRACK_CMD_HOST_FENCE, 0, -EBUSY, fm, A_POOL, G_HOST(H1));
	REJECT_MSG(b, DRACK_CMD_HOST_RECLAIM, 0, -EBUSY, fm, A_POOL, G_HOST(H1));
	REJECT_MSG(b, DRACK_CMD_POOL_FORMAT, 0, -EBUSY, fm, A_POOL);
	REJECT_MSG(b, DRACK_CMD_NIC_STEER, 0, -EBUSY, fm, A_POOL,
		   A_U32(AN(ID), 0), G_HOST(H1));
	REJECT(b, UNREG, 0, -ENOENT, A_POOL);
	/* nic-steer from the FM: what is missing or out of range, refused */
	REJECT_MISS(a, DRACK_CMD_NIC_STEER, 0, AN(ID), A_POOL, G_HOST(H1));
	REJECT_MISS(a, DRACK_CMD_NIC_STEER, 0, AH(ID), A_POOL, A_U32(AN(ID), 0));
	REJECT(a, DRACK_CMD_NIC_STEER, 0, -ERANGE, A_POOL, A_U32(AN(ID), 0),
	       G_HOST(H1), A_U32(P(DRACK_A_VNIC, DRACK_A_VNIC_STEER), 16));
	REJECT(a, DRACK_CMD_NIC_STEER, 0, -ERANGE, A_POOL, A_U32(AN(ID), 9999),
	       G_HOST(H1));
	/* B still reads everything */
	read_tables(_metadata, b, &t2);
	/* the FM grants */
	ASSERT_EQ(0, grant(_metadata, a, H0, s, DRACK_CLASS_2K, msg)) TH_LOG("%s", msg);
	read_tables(_metadata, b, &t2);
	EXPECT_EQ(H0, t2.owner[s]);
	/* A goes away: its registration with it */
	sk_close(a);
	self->nl = NULL;
	EXPECT_TRUE(WAIT_TABLES(b, &t2, 2000, t2.fm_pid == 0))
		TH_LOG("FM_PID %u after the FM socket closed", t2.fm_pid);
	/* B registers, unregisters */
	ASSERT_EQ(0, simple(_metadata, b, REG, 0, ATTRS(A_POOL), msg)) TH_LOG("%s", msg);
	read_tables(_metadata, b, &t2);
	EXPECT_TRUE(t2.fm_pid == (uint32_t)getpid() || t2.fm_pid == port_b)
		TH_LOG("FM_PID %u: neither our pid %d nor B's port %u",
		       t2.fm_pid, getpid(), port_b);
	EXPECT_LE(t->epoch + 2, t2.epoch);
	EXPECT_EQ(0, simple(_metadata, b, DRACK_CMD_SECTION_REVOKE, 0,
			    ATTRS(A_POOL, G_SECT(s)), msg)) TH_LOG("%s", msg);
	EXPECT_EQ(0, simple(_metadata, b, UNREG, 0, ATTRS(A_POOL), msg)) TH_LOG("%s", msg);
	read_tables(_metadata, b, &t2);
	EXPECT_EQ(0U, t2.fm_pid);
	/* the revoke completes when host 0 gives s back: then nothing moves */
	EXPECT_TRUE(WAIT_TABLES(b, &t2, 5000, t2.owner[s] == DRACK_SECTION_FREE));
	REJECT(b, UNREG, 0, -ENOENT, A_POOL);
	self->nl = b;		/* closed by the teardown */
}

/* ---------------------------------------------------------------- */
/* POOL_FORMAT                                                       */
/* ---------------------------------------------------------------- */

/* Requests FORMAT refuses whatever the pool's state. */
static void format_bad_requests(struct __test_metadata *_metadata,
				struct nl *nl)
{
	const uint8_t C = DRACK_CMD_POOL_FORMAT;

	REJECT_MISS(nl, C, 0, AP(ID), F_HOSTS(8));
	reject(_metadata, nl, __LINE__, C, 0, NULL, -EINVAL, 0,
	       AP(ID), NULL, NOATTRS);
	REJECT(nl, C, 0, -EINVAL, A_U8(AP(ID), 0));
	REJECT(nl, C, 0, -ENOENT, A_U32(AP(ID), NO_POOL));
	REJECT(nl, C, 0, -ENOENT, A_U32(AP(ID), NO_POOL), F_HOSTS(8), F_REGIONS(2));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U8(AP(MAX_HOSTS), 8));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U16(AP(MAX_HOSTS), 8));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U64(AP(MAX_HOSTS), 8));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U8(AP(REGIONS), 2));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U64(AP(REGIONS), 2));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_HOSTS(0));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_HOSTS(1));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_HOSTS(DRACK_MAX_HOSTS + 1));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_HOSTS(0xffffffff));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_REGIONS(0));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_REGIONS(17));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_HOSTS(8), F_REGIONS(0xffffffff));
	reject_extra_attrs(_metadata, nl, __LINE__, C, 0,
			   ATTRS(A_POOL, F_HOSTS(8), F_REGIONS(2)), false);
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U32(AP(SECTION_COUNT), 16));
	REJECT_CORE(nl, C, NLM_F_DUMP, -EOPNOTSUPP, A_POOL);
}

TEST_F_TIMEOUT(genl, pool_format_busy, 120)
{
	struct nl *nl = self->nl;
	const uint8_t C = DRACK_CMD_POOL_FORMAT;

	PHASE("live");
	format_bad_requests(_metadata, nl);
	/* hosts are up */
	REJECT(nl, C, 0, -EBUSY, A_POOL);
	REJECT(nl, C, 0, -EBUSY, A_POOL, F_HOSTS(self->t->max_hosts),
	       F_REGIONS(self->t->regions));
	REJECT(nl, C, 0, -EBUSY, A_POOL, F_HOSTS(4), F_REGIONS(4));
}

/* Ring sizes from the superblock (not in netlink), for drack_layout(). */
static void read_rings(struct __test_metadata *_metadata, uint32_t ring[4])
{
	const char *dev = env_or("DRACK_POOL_DEV", "/dev/drack_pool0");
	struct drack_superblock *sb;
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", dev, strerror(errno));
	sb = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, sb) TH_LOG("mmap %s: %s", dev, strerror(errno));
	ring[0] = le32toh(sb->ref_ring_entries);
	ring[1] = le32toh(sb->ret_ring_entries);
	ring[2] = le32toh(sb->grant_ring_entries);
	ring[3] = le32toh(sb->version) >= 3 ? le32toh(sb->ref_queues) : 1;
	munmap(sb, 4096);
	close(fd);
}

/* NIC table size and virt_queue ring size of the pool as formatted now. */
static void read_nics(struct __test_metadata *_metadata, uint32_t *nics,
		      uint32_t *vq)
{
	const char *dev = env_or("DRACK_POOL_DEV", "/dev/drack_pool0");
	struct drack_superblock *sb;
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", dev, strerror(errno));
	sb = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, sb) TH_LOG("mmap %s: %s", dev, strerror(errno));
	*nics = le32toh(sb->max_nics);
	*vq = le32toh(sb->vq_ring_entries);
	munmap(sb, 4096);
	close(fd);
}

/* Check a freshly formatted pool: geometry, all Sections FREE, no host. */
static void check_formatted(struct __test_metadata *_metadata, struct nl *nl,
			    const struct tables *orig, const uint32_t ring[4],
			    uint32_t hosts, uint32_t regions)
{
	struct drack_geometry g;
	struct tables *t = calloc(1, sizeof(*t));
	uint32_t s, h, nics, vq;

	ASSERT_NE(NULL, t);
	read_tables(_metadata, nl, t);
	ASSERT_EQ(0, drack_layout(&g, orig->size, hosts, ring[3], ring[0], ring[1], ring[2]));
	read_nics(_metadata, &nics, &vq);
	EXPECT_LT(0U, nics) TH_LOG("a fresh pool without a NIC table");
	ASSERT_EQ(0, drack_layout_nics(&g, nics, vq));
	EXPECT_EQ(orig->size, t->size);
	EXPECT_EQ(orig->count, t->count);
	EXPECT_EQ(hosts, t->max_hosts);
	EXPECT_EQ(regions, t->regions);
	EXPECT_EQ(g.meta_sections, t->meta);
	EXPECT_EQ(t->count - t->meta, t->free);
	for (h = 0; h < DRACK_MAX_HOSTS; h++) {
		EXPECT_FALSE(t->up[h]) TH_LOG("host %u in a fresh pool", h);
	}
	for (s = 0; s < t->count; s++) {
		EXPECT_EQ(s < t->meta ? (uint32_t)DRACK_SECTION_META :
			  (uint32_t)DRACK_SECTION_FREE, t->owner[s])
			TH_LOG("Section %u", s);
		EXPECT_EQ(0U, t->sflags[s]) TH_LOG("Section %u", s);
		EXPECT_EQ(drack_section_region(&g, regions, s), t->region[s])
			TH_LOG("Section %u", s);
	}
	free(t);
}

TEST_F_TIMEOUT(genl, pool_format_idle, 120)
{
	struct tables *t = self->t;
	struct nl *nl = self->nl, *b;
	const uint8_t C = DRACK_CMD_POOL_FORMAT;
	struct drack_geometry g;
	uint32_t ring[4], h, big = NONE;
	char msg[256];

	PHASE("idle");
	for (h = 0; h < DRACK_MAX_HOSTS; h++) {
		ASSERT_FALSE(t->up[h]) TH_LOG("host %u still in the pool", h);
	}
	read_rings(_metadata, ring);
	format_bad_requests(_metadata, nl);

	/* 4 hosts, 4 regions */
	ASSERT_EQ(0, simple(_metadata, nl, C, 0,
			    ATTRS(A_POOL, F_HOSTS(4), F_REGIONS(4)), msg))
		TH_LOG("format 4 hosts 4 regions: %s", msg);
	check_formatted(_metadata, nl, t, ring, 4, 4);

	/* geometry that does not fit: too many hosts, or regions > data */
	for (h = 2; h <= DRACK_MAX_HOSTS && big == NONE; h++)
		if (drack_layout(&g, t->size, h, ring[3], ring[0], ring[1], ring[2]))
			big = h;
	if (big != NONE)
		REJECT(nl, C, 0, -EINVAL, A_POOL, F_HOSTS(big));
	else
		TH_LOG("64 hosts fit a %llu-byte pool: no too-many-hosts case",
		       (unsigned long long)t->size);
	for (h = DRACK_MAX_HOSTS; h >= 2; h--)
		if (!drack_layout(&g, t->size, h, ring[3], ring[0], ring[1], ring[2]) &&
		    g.section_count - g.meta_sections < 16)
			break;
	if (h >= 2)
		REJECT(nl, C, 0, -EINVAL, A_POOL, F_HOSTS(h), F_REGIONS(16));

	/* while someone else is the fabric manager: -EBUSY */
	b = sk_open(_metadata);
	ASSERT_EQ(0, simple(_metadata, b, DRACK_CMD_FM_REGISTER, 0,
			    ATTRS(A_POOL), msg)) TH_LOG("%s", msg);
	REJECT_MSG(nl, C, 0, -EBUSY, "fabric manager", A_POOL, F_HOSTS(2));
	/* the fabric manager itself may */
	EXPECT_EQ(0, simple(_metadata, b, C, 0,
			    ATTRS(A_POOL, F_HOSTS(2), F_REGIONS(1)), msg))
		TH_LOG("format by the FM: %s", msg);
	check_formatted(_metadata, nl, t, ring, 2, 1);
	sk_close(b);

	/* without the optional attributes */
	EXPECT_EQ(0, simple(_metadata, nl, C, 0, ATTRS(A_POOL), msg)) TH_LOG("%s", msg);

	/* back to what the module made */
	ASSERT_EQ(0, simple(_metadata, nl, C, 0,
			    ATTRS(A_POOL, F_HOSTS(t->max_hosts),
				  F_REGIONS(t->regions)), msg))
		TH_LOG("format %u hosts %u regions: %s", t->max_hosts, t->regions, msg);
	check_formatted(_metadata, nl, t, ring, t->max_hosts, t->regions);
}
