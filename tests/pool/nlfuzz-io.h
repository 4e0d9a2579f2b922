/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nlfuzz's exchange with the kernel: the socket, a message and its NOOP
 * sent, the answer read to its end, and the verdict on it (counted, and
 * printed with the command line that replays it). Included by nlfuzz.c
 * only, after nlfuzz-random.h.
 */
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

/* Attributes filling [a, a + rem) exactly; nests (depth 0) likewise. */
static bool attrs_ok(const struct nlattr *a, int rem, int depth)
{
	while (rem >= NLA_HDRLEN) {
		if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
			return false;
		if (!depth && is_nest(a->nla_type & NLA_TYPE_MASK) &&
		    (!(a->nla_type & NLA_F_NESTED) ||
		     !attrs_ok((const struct nlattr *)((const uint8_t *)a + NLA_HDRLEN),
			       a->nla_len - NLA_HDRLEN, 1)))
			return false;
		rem -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const uint8_t *)a + NLA_ALIGN(a->nla_len));
	}
	return rem == 0 || rem < 0;	/* the last one unpadded at the end */
}

/* A reply of the family: genl header, then attributes filling it exactly. */
static bool reply_ok(const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return false;
	return attrs_ok((const struct nlattr *)((const uint8_t *)nlh + NLMSG_HDRLEN +
						 GENL_HDRLEN),
			(int)(nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN), 0);
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
