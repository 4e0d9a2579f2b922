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
 *     FM_UNREGISTER, POOL_FORMAT, NIC_EXPORT, NIC_UNEXPORT, NIC_ASSIGN,
 *     NIC_STEER)
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
 * Attributes nest by object (pool, host, section, nic...): the messages
 * are made at every level, nested attributes inside their nests, in the
 * wrong nests, nests without NLA_F_NESTED, empty and garbage nests.
 *
 * Before the random messages come the fixed regression cases (seed,
 * index pairs in nlfuzz-spec.h) and a sweep (nlfuzz-sweep.h): every
 * command with no attributes, with its request attributes, each of them
 * missing, doubled and in the wrong nest, every top-level type alone in
 * four shapes, and every type of every nest, inside the request.
 *
 * Files: nlfuzz-spec.h (the family: nests, kinds, commands),
 * nlfuzz-build.h (random numbers, messages, values, payloads),
 * nlfuzz-random.h (random mode), nlfuzz-sweep.h (the sweep),
 * nlfuzz-io.h (socket, answers, verdicts), this file (set-up, main).
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

struct pool_info {
	uint32_t id, count, meta, max_hosts, max_nics, regions, fm_pid;
};

/* What we know of the live system: pools, interfaces (set-up, below). */
static struct pool_info pools[MAX_POOLS];
static int npools;
static uint32_t ifindexes[16];
static int nifindexes;

static const char *mode = "";
static long timeout_ms = 3000;
static bool verbose, quiet;

#include "nlfuzz-spec.h"
#include "nlfuzz-build.h"
#include "nlfuzz-random.h"
#include "nlfuzz-sweep.h"
#include "nlfuzz-io.h"

/* ---------------------------------------------------------------- */
/* Set-up: what the pools look like, who we are                        */
/* ---------------------------------------------------------------- */

/* The attribute of @type in [a, a + rem), or NULL. */
static const struct nlattr *find_attr(const struct nlattr *a, int rem,
				      uint16_t type)
{
	for (; rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
	     rem -= NLA_ALIGN(a->nla_len),
	     a = (const void *)((const uint8_t *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

/* The u32 of @key in a reply, 0 if absent. */
static uint32_t attr_u32(const struct nlmsghdr *nlh, uint32_t key)
{
	const struct nlattr *a = (const void *)((const uint8_t *)nlh + NLMSG_HDRLEN + GENL_HDRLEN);
	int rem = (int)nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

	if (KNEST(key)) {
		a = find_attr(a, rem, KNEST(key));
		if (!a)
			return 0;
		rem = a->nla_len - NLA_HDRLEN;
		a = (const void *)((const uint8_t *)a + NLA_HDRLEN);
	}
	a = find_attr(a, rem, KTYPE(key));
	return a && a->nla_len == NLA_HDRLEN + 4 ? *(const uint32_t *)(a + 1) : 0;
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

				p->id = attr_u32(nlh, AP(ID));
				p->count = attr_u32(nlh, AP(SECTION_COUNT));
				p->meta = attr_u32(nlh, AP(META_SECTIONS));
				p->max_hosts = attr_u32(nlh, AP(MAX_HOSTS));
				p->max_nics = attr_u32(nlh, AP(MAX_NICS));
				p->regions = attr_u32(nlh, AP(REGIONS));
				p->fm_pid = attr_u32(nlh, AP(FM_PID));
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
