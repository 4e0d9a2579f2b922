/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nlfuzz's random mode: message @index of @seed, made from (seed, index)
 * alone, and the verdict genetlink's header checks give it. Included by
 * nlfuzz.c only, after nlfuzz-build.h.
 */
/* A nested key of top-level nest @n: its set's types, 0, or past the end. */
static uint32_t rnd_nested_key(uint16_t n)
{
	uint16_t max = nest_max[n];

	switch (rnd(10)) {
	case 0:
		return P(n, 0);
	case 1:
		return P(n, max + 1 + rnd(3));
	case 2:
		return P(n, rnd(NLA_TYPE_MASK + 1));
	default:
		return P(n, 1 + rnd(max));
	}
}

/* A random key: mostly the command's own ones, any level of nesting. */
static uint32_t rnd_key(const struct cmd *c)
{
	static const uint16_t nests[] = {
		DRACK_A_POOL, DRACK_A_HOST, DRACK_A_SECTION, DRACK_A_CLASS,
		DRACK_A_PEER, DRACK_A_NIC, DRACK_A_VNIC, DRACK_A_STATS,
	};
	int n = nreq(c);
	uint32_t k;

	switch (rnd(20)) {
	case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7:
		k = n ? c->req[rnd((uint32_t)n)] : (uint32_t)(1 + rnd(DRACK_A_MAX));
		break;
	case 8: case 9: case 10: case 11: case 12:
		/* in one of the nests: its own types, and junk */
		k = rnd_nested_key(nests[rnd(sizeof(nests) / sizeof(*nests))]);
		break;
	case 13: case 14:
		k = 1 + rnd(DRACK_A_MAX);		/* any top-level type */
		break;
	case 15:
		k = 0;
		break;
	case 16: case 17:
		k = DRACK_A_MAX + 1 + rnd(4);		/* just past the end */
		break;
	default:
		k = rnd(NLA_TYPE_MASK + 1);
		break;
	}
	if (chance(4))
		k |= NLA_F_NESTED;
	if (chance(2))
		k |= NLA_F_NET_BYTEORDER;
	return k;
}

/* Copy the attribute at @off of @m to its end (a duplicate). */
static void dup_attr(struct msg *m, size_t off)
{
	const struct nlattr *a = (const struct nlattr *)(m->buf + off);
	size_t len = NLA_ALIGN(a->nla_len);

	if (len <= room(m) && off + len <= m->len) {
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

static void what_add(struct msg *m, const char *s)
{
	strncat(m->what, s, sizeof(m->what) - strlen(m->what) - 1);
}

/*
 * Message @index of @seed: command, flags, header damage, attributes.
 * Almost half are well formed requests (the command's attributes with
 * values near the limits, in their nests), then maybe one dropped,
 * doubled or resized, a nest or a nested attribute included.
 */
static void gen_random(struct msg *m, int fam, uint64_t seed, long index)
{
	const struct cmd *c;
	struct genlmsghdr *g;
	int i, n, cut = 0;
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
		for (i = 0; i < n; i++) {
			uint32_t k = c->req[chance(80) ? (uint32_t)i : rnd((uint32_t)n)];

			if (akind(k) == K_U32 && chance(90))
				put_u32(m, k, value32(k));
			else
				put_payload(m, k, 0);
		}
		snprintf(m->what, sizeof(m->what), "request attrs");
	} else {
		switch (rnd(10)) {
		case 0: n = 0; break;
		case 1: case 2: case 3: case 4: case 5: n = 1 + (int)rnd(4); break;
		case 6: case 7: case 8: n = 5 + (int)rnd(12); break;
		default: n = 17 + (int)rnd(48); break;
		}
		for (i = 0; i < n && room(m) > 64; i++) {
			uint32_t k = rnd_key(c);

			if (!KNEST(k) && (k & NLA_F_NESTED) && chance(70))
				put_nested(m, (uint16_t)k, 0);
			else
				put_payload(m, k, 0);
		}
		snprintf(m->what, sizeof(m->what), "%d random attrs", m->nattrs);
	}
	nest_close(m);
	/* duplicates of some of them: nested ones land at the top level */
	if (m->nattrs && chance(20)) {
		n = 1 + (int)rnd(3);
		for (i = 0; i < n; i++)
			dup_attr(m, m->offs[rnd((uint32_t)m->nattrs)]);
		what_add(m, ", duplicates");
	}
	/* one attribute's length made wrong in place, maybe a nest's */
	if (m->nattrs && chance(5)) {
		struct nlattr *a = (struct nlattr *)(m->buf + m->offs[rnd((uint32_t)m->nattrs)]);

		a->nla_len = (uint16_t)PICK(0, 1, 3, 4, a->nla_len - 1u,
					    a->nla_len + 1u, a->nla_len + 4u,
					    0xffff);
		what_add(m, ", bad nla_len");
	}
	/* trailing bytes that are not a whole attribute */
	if (chance(3) && room(m) >= 8) {
		size_t k = 1 + rnd(7);

		rnd_bytes(m->buf + m->len, k);
		m->len += k;
		what_add(m, ", trailing junk");
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
		what_add(m, ", nlmsg_len cut");
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
