/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nlfuzz's sweep: every command, systematically, at every level of
 * nesting. Per command and per flag set (NLM_F_ACK, NLM_F_ACK |
 * NLM_F_DUMP), in this order:
 *   R  no attributes; the request's attributes (in their nests), with
 *      valid-looking values; each of them missing; each doubled (the
 *      second one ~0, in the same nest)
 *   T  every top-level type 0 .. DRACK_A_MAX + 1 alone: empty, a u32
 *      ~0, an empty nest, a nest of garbage (not attributes)
 *   N  the request plus, inside each nest of the top level (the request
 *      nests and the reply-only ones), every type 0 .. its set's max + 1:
 *      empty, a u32 ~0, a nest (NLA_F_NESTED) holding a u32
 *   W  the request with one attribute in the wrong nest: each request
 *      attribute moved into each top-level type 0 .. DRACK_A_MAX + 1 (0:
 *      out of its nest, to the top level), or its nest sent without
 *      NLA_F_NESTED
 * Included by nlfuzz.c only, after nlfuzz-build.h.
 */
#define SW_REQ		8	/* request attributes swept at most */
#define SW_TOP		(DRACK_A_MAX + 2)
#define SW_R		(2 + 2 * SW_REQ)
#define SW_T		(4 * SW_TOP)
#define SW_W		(SW_REQ * (SW_TOP + 1))

static const uint16_t sweep_nests[] = {
	DRACK_A_POOL, DRACK_A_HOST, DRACK_A_SECTION, DRACK_A_CLASS,
	DRACK_A_PEER, DRACK_A_NIC, DRACK_A_VNIC, DRACK_A_STATS,
};
#define N_SWEEP_NESTS	(int)(sizeof(sweep_nests) / sizeof(*sweep_nests))

/* Cases of part N: 3 per type 0 .. max + 1 of each nest. */
static long sweep_n_cases(void)
{
	long n = 0;
	int i;

	for (i = 0; i < N_SWEEP_NESTS; i++)
		n += 3 * (nest_max[sweep_nests[i]] + 2);
	return n;
}

/* A value the kernel's policy takes for the attribute of @key. */
static uint32_t valid32(uint32_t key)
{
	switch (key) {
	case AP(ID):
		return npools ? pools[0].id : 0;
	case AH(IFINDEX):	/* one past the last: no such device */
		return nifindexes ? ifindexes[nifindexes - 1] : 1;
	case AP(MAX_HOSTS):
		return 2;
	case DRACK_A_ASSIGN:
		return 0;
	default:		/* nic ifindex 1: lo, never exportable */
		return 1;
	}
}

/* How one sweep case changes the command's request. */
struct sweep_req {
	int skip, twice;	/* request attribute left out, doubled */
	int move;		/* request attribute moved ... */
	uint16_t move_to;	/* ... into this top-level nest (0: top) */
	int noflag;		/* request attribute whose nest lacks the flag */
	uint32_t extra;		/* key of one more attribute, 0: none */
	int extra_kind;		/* 0: empty, 1: u32 ~0, 2: nest of a u32 */
};

static void put_extra(struct msg *m, const struct sweep_req *s)
{
	static const uint8_t inner[8] = { 8, 0, 1, 0, 0xff, 0xff, 0xff, 0xff };
	uint16_t t = KTYPE(s->extra);

	if (!nest_for(m, s->extra, NLA_F_NESTED))
		return;
	if (s->extra_kind == 0)
		put_attr(m, t, NULL, 0);
	else if (s->extra_kind == 1)
		put_attr(m, t, &(uint32_t){ ~0U }, 4);
	else
		put_attr(m, (uint16_t)(t | NLA_F_NESTED), inner, sizeof(inner));
}

/*
 * The request of @c as @s says. The extra attribute goes right after the
 * request's attributes of its nest, so that it shares their nest.
 */
static void put_request(struct msg *m, const struct cmd *c,
			const struct sweep_req *s)
{
	bool extra_done = !s->extra;
	int j, n = nreq(c);

	for (j = 0; j < n; j++) {
		uint32_t k = c->req[j], put = k;

		if (j == s->skip)
			continue;
		if (j == s->move)
			put = P(s->move_to, KTYPE(k));
		if (!nest_for(m, put, j == s->noflag ? 0 : NLA_F_NESTED))
			return;
		put_attr(m, KTYPE(put), &(uint32_t){ valid32(k) }, 4);
		if (j == s->twice)
			put_attr(m, KTYPE(put), &(uint32_t){ ~0U }, 4);
		if (!extra_done && KNEST(s->extra) && KNEST(s->extra) == KNEST(put) &&
		    (j + 1 >= n || KNEST(c->req[j + 1]) != KNEST(put))) {
			put_extra(m, s);
			extra_done = true;
		}
	}
	if (!extra_done)
		put_extra(m, s);
}

/* Part T, case @k: top-level type k / 4 alone, as variant k % 4. */
static void sweep_top(struct msg *m, long k)
{
	static const uint8_t junk[3] = { 1, 2, 3 };
	uint16_t t = (uint16_t)(k / 4);
	static const char *const how[] = {
		"empty", "u32 ~0", "empty nest", "garbage nest",
	};

	switch (k % 4) {
	case 0: put_attr(m, t, NULL, 0); break;
	case 1: put_attr(m, t, &(uint32_t){ ~0U }, 4); break;
	case 2: put_attr(m, (uint16_t)(t | NLA_F_NESTED), NULL, 0); break;
	default: put_attr(m, (uint16_t)(t | NLA_F_NESTED), junk, 3); break;
	}
	snprintf(m->what, sizeof(m->what), "sweep: type %u %s", t, how[k % 4]);
}

/* Part N, case @k: which nest, type and variant. */
static void sweep_nested(struct msg *m, const struct cmd *c, long k)
{
	static const char *const how[] = { "empty", "u32 ~0", "a nest" };
	struct sweep_req s = { -1, -1, -1, 0, -1, 0, 0 };
	int i;

	for (i = 0; i < N_SWEEP_NESTS; i++) {
		long cases = 3 * (nest_max[sweep_nests[i]] + 2);

		if (k < cases)
			break;
		k -= cases;
	}
	s.extra = P(sweep_nests[i], (uint16_t)(k / 3));
	s.extra_kind = (int)(k % 3);
	put_request(m, c, &s);
	snprintf(m->what, sizeof(m->what), "sweep: request + %u.%u %s",
		 KNEST(s.extra), KTYPE(s.extra), how[s.extra_kind]);
}

/* Part W, case @k: request attribute k / (SW_TOP + 1) misplaced. */
static void sweep_wrong(struct msg *m, const struct cmd *c, long k)
{
	struct sweep_req s = { -1, -1, -1, 0, -1, 0, 0 };
	int j = (int)(k / (SW_TOP + 1)), to = (int)(k % (SW_TOP + 1));

	if (j >= nreq(c)) {
		put_request(m, c, &s);
		snprintf(m->what, sizeof(m->what), "sweep: request attrs");
		return;
	}
	if (to == SW_TOP) {
		s.noflag = j;
		snprintf(m->what, sizeof(m->what),
			 "sweep: request, #%d's nest without NLA_F_NESTED", j);
	} else {
		s.move = j;
		s.move_to = (uint16_t)to;
		snprintf(m->what, sizeof(m->what),
			 "sweep: request, #%d in nest %d", j, to);
	}
	put_request(m, c, &s);
}

/* Sweep case @index, or false past the last. */
static bool gen_sweep(struct msg *m, int fam, long index)
{
	const long per_flags = SW_R + SW_T + sweep_n_cases() + SW_W;
	const long per_cmd = 2 * per_flags;
	struct sweep_req s = { -1, -1, -1, 0, -1, 0, 0 };
	const struct cmd *c;
	long k;
	int cmd, n;

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

	if (k == 0) {
		snprintf(m->what, sizeof(m->what), "sweep: no attrs");
	} else if (k < SW_R) {
		if (k >= 2 && k < 2 + SW_REQ && k - 2 < n)
			s.skip = (int)k - 2;
		else if (k >= 2 + SW_REQ && k - 2 - SW_REQ < n)
			s.twice = (int)(k - 2 - SW_REQ);
		put_request(m, c, &s);
		if (s.skip >= 0)
			snprintf(m->what, sizeof(m->what), "sweep: request attrs, #%d missing", s.skip);
		else if (s.twice >= 0)
			snprintf(m->what, sizeof(m->what), "sweep: request attrs, #%d doubled", s.twice);
		else
			snprintf(m->what, sizeof(m->what), "sweep: request attrs");
	} else if ((k -= SW_R) < SW_T) {
		sweep_top(m, k);
	} else if ((k -= SW_T) < sweep_n_cases()) {
		sweep_nested(m, c, k);
	} else {
		sweep_wrong(m, c, k - sweep_n_cases());
	}
	msg_end(m);
	return true;
}
