// SPDX-License-Identifier: GPL-2.0-only
/*
 * genl: the generic netlink family "drack", spoken raw with libnl (not
 * libdrack), so that requests can be malformed on purpose.
 *
 * Every command user space may send gets a valid request (success and a
 * sane reply) and a set of bad ones: required attributes missing, wrong
 * attribute lengths, out-of-range values, unknown pools/Sections/hosts/
 * interfaces, unknown attribute types, reply-only attributes in a request,
 * event-only commands as requests, broken headers. A rejection must carry
 * the expected errno, an extack message (NETLINK_EXT_ACK) unless the
 * genetlink core itself rejected it (unknown command, no doit/dumpit,
 * CAP_NET_ADMIN, short header), and must change nothing: the pool, host
 * and Section dumps (every attribute but the heartbeat and the published
 * free counts) are compared before and after each rejected request.
 *
 * Run as root by tests/net/genl.sh, in three phases (DRACK_GENL_PHASE):
 *   live  hosts 0 (netns h0) and 1 (netns h1) up, no drack-fmd: this
 *         program grants Sections itself and plays the fabric manager;
 *         `ethtool --set-priv-flags rack0 stall on|off` in h0/h1 hangs and
 *         resumes a host (fence, reclaim and revoke need that)
 *   idle  no host in the pool: POOL_FORMAT for real
 *   fmd   drack-fmd runs and is the pool's fabric manager
 * Tests of the other phases are skipped.
 *
 * Environment: DRACK_GENL_PHASE (live), DRACK_GENL_NS0/NS1 (h0/h1),
 * DRACK_GENL_REGIONS (2: ram_regions of the module), DRACK_POOL_DEV
 * (/dev/drack_pool0: the superblock, for the ring sizes).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>

#include "uapi/drack.h"
#include "kselftest_harness.h"

#define POOL		0U	/* the ram pool */
#define NO_POOL		7U
#define H0		0U	/* rack0 in netns h0 */
#define H1		1U	/* rack0 in netns h1 */
#define MAX_SECTIONS	1024U
#define NONE		0xffffffffU

#include "genl-nl.h"
#include "genl-tables.h"

/* ---------------------------------------------------------------- */
/* Hosts: stall (ethtool), wait, Sections for a stable table          */
/* ---------------------------------------------------------------- */

FIXTURE(genl)
{
	struct nl *nl;
	struct tables *t;		/* read at setup */
	const char *ns[2];		/* netns of hosts 0 and 1 */
	bool stalled[2];
};

static int stall(FIXTURE_DATA(genl) *self, unsigned int host, bool on)
{
	char cmd[256];
	int rc;

	snprintf(cmd, sizeof(cmd),
		 "ip netns exec %s ethtool --set-priv-flags rack0 stall %s",
		 self->ns[host], on ? "on" : "off");
	rc = system(cmd);
	if (rc == 0)
		self->stalled[host] = on;
	return rc;
}

/* Poll the tables until @cond (an expression over t) holds or @ms pass. */
#define WAIT_TABLES(nl, t, ms, cond) ({					\
		long long __end = now_ms() + (ms);			\
		bool __ok;						\
		for (;;) {						\
			read_tables(_metadata, (nl), (t));		\
			__ok = (cond);					\
			if (__ok || now_ms() > __end)			\
				break;					\
			sleep_ms(50);					\
		}							\
		__ok;							\
	})

static int grant(struct __test_metadata *_metadata, struct nl *nl,
		 uint32_t host, uint32_t section, uint32_t c, char *msg)
{
	return simple(_metadata, nl, DRACK_CMD_SECTION_GRANT, 0,
		      ATTRS(A_POOL, A_U32(DRACK_A_HOST_ID, host),
			    A_U32(DRACK_A_SECTION_ID, section),
			    A_U32(DRACK_A_CLASS, c)), msg);
}

/*
 * Hosts 0 and 1 up, each with a Section of each class and no request
 * pending, so that nothing moves in the tables while we test.
 */
static void ensure_stable(struct __test_metadata *_metadata,
			  FIXTURE_DATA(genl) *self)
{
	struct tables *t = self->t;
	uint32_t h, c, s, round;
	bool granted, wanted;
	char msg[256];

	ASSERT_TRUE(WAIT_TABLES(self->nl, t, 15000,
				t->up[H0] && t->hstate[H0] == DRACK_HOST_UP &&
				t->up[H1] && t->hstate[H1] == DRACK_HOST_UP))
		TH_LOG("hosts 0 and 1 are not both UP");
	for (round = 0; round < 16; round++) {
		granted = wanted = false;
		for (h = H0; h <= H1; h++) {
			for (c = 0; c < DRACK_NR_CLASSES; c++) {
				/* a host still asking 2 s after a grant: one more */
				if (owned_section(t, h, c) != NONE &&
				    (!t->hwanted[h][c] || round % 8 != 7)) {
					wanted |= t->hwanted[h][c];
					continue;
				}
				s = free_section(t);
				ASSERT_NE(NONE, s) TH_LOG("no free Section left");
				ASSERT_EQ(0, grant(_metadata, self->nl, h, s, c, msg))
					TH_LOG("grant %u to host %u: %s", s, h, msg);
				t->owner[s] = h;
				t->cls[s] = c;
				granted = true;
			}
		}
		if (!granted && !wanted)
			return;
		sleep_ms(250);
		read_tables(_metadata, self->nl, t);
	}
	TH_LOG("hosts still want Sections: %u %u / %u %u",
	       t->hwanted[H0][0], t->hwanted[H0][1],
	       t->hwanted[H1][0], t->hwanted[H1][1]);
}

FIXTURE_SETUP(genl)
{
	self->ns[0] = env_or("DRACK_GENL_NS0", "h0");
	self->ns[1] = env_or("DRACK_GENL_NS1", "h1");
	self->nl = sk_open(_metadata);
	self->t = calloc(1, sizeof(*self->t));
	ASSERT_NE(NULL, self->t);
	if (!strcmp(phase(), "live"))
		ensure_stable(_metadata, self);
	read_tables(_metadata, self->nl, self->t);
}

FIXTURE_TEARDOWN(genl)
{
	unsigned int h;

	for (h = 0; h < 2; h++)
		if (self->stalled[h] && stall(self, h, false))
			TH_LOG("cannot resume host %u", h);
	sk_close(self->nl);
	free(self->t);
}

/* ---------------------------------------------------------------- */
/* Events                                                            */
/* ---------------------------------------------------------------- */

static struct nl *events_open(struct __test_metadata *_metadata)
{
	return sk_open_grp(_metadata, true);
}

/* An event @cmd whose attributes a1 == v1 and a2 == v2 (a 0: any). */
static bool wait_event(struct nl *ev, uint8_t cmd, int a1, uint32_t v1,
		       int a2, uint32_t v2, unsigned int ms)
{
	static uint8_t buf[1 << 16];
	long long end = now_ms() + ms;

	while (now_ms() < end) {
		struct pollfd p = { .fd = ev->fd, .events = POLLIN };
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
		int n;

		if (poll(&p, 1, (int)(end - now_ms())) <= 0)
			continue;
		n = recv(ev->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n <= 0)
			continue;	/* ENOBUFS: events lost, go on */
		for (; nlmsg_ok(nlh, n); nlh = nlmsg_next(nlh, &n)) {
			if (nlh->nlmsg_type != ev->fam || mcmd(nlh) != cmd)
				continue;
			if ((!a1 || mu32(nlh, a1) == v1) &&
			    (!a2 || mu32(nlh, a2) == v2))
				return true;
		}
	}
	return false;
}

/* ---------------------------------------------------------------- */
/* POOL_GET                                                          */
/* ---------------------------------------------------------------- */

static const struct want pool_attrs[] = {
	{ DRACK_A_POOL_ID, 4 }, { DRACK_A_POOL_BACKEND, -1 },
	{ DRACK_A_POOL_SIZE, 8 }, { DRACK_A_POOL_SECTION_SIZE, 4 },
	{ DRACK_A_POOL_SECTION_COUNT, 4 }, { DRACK_A_POOL_META_SECTIONS, 4 },
	{ DRACK_A_POOL_FREE_SECTIONS, 4 }, { DRACK_A_POOL_MAX_HOSTS, 4 },
	{ DRACK_A_POOL_REGIONS, 4 }, { DRACK_A_POOL_FM_PID, 4 },
	{ DRACK_A_POOL_FM_EPOCH, 8 }, W_END
};

static void check_pool_msg(struct __test_metadata *_metadata,
			   struct nlmsghdr *m, const struct tables *t)
{
	uint32_t count = mu32(m, DRACK_A_POOL_SECTION_COUNT);
	const char *be = mstr(m, DRACK_A_POOL_BACKEND);

	EXPECT_EQ(DRACK_CMD_POOL_GET, mcmd(m));
	expect_attrs(_metadata, m, "POOL_GET", pool_attrs);
	EXPECT_EQ(POOL, mu32(m, DRACK_A_POOL_ID));
	EXPECT_TRUE(be && !strcmp(be, "ram")) TH_LOG("backend '%s'", be ?: "(none)");
	EXPECT_EQ(DRACK_SECTION_SIZE, mu32(m, DRACK_A_POOL_SECTION_SIZE));
	EXPECT_EQ((uint64_t)count << DRACK_SECTION_SHIFT,
		  mu64(m, DRACK_A_POOL_SIZE));
	EXPECT_LE(4U, count);
	EXPECT_LT(0U, mu32(m, DRACK_A_POOL_META_SECTIONS));
	EXPECT_GT(count, mu32(m, DRACK_A_POOL_META_SECTIONS));
	EXPECT_LE(2U, mu32(m, DRACK_A_POOL_MAX_HOSTS));
	EXPECT_GE((uint32_t)DRACK_MAX_HOSTS, mu32(m, DRACK_A_POOL_MAX_HOSTS));
	EXPECT_LE(1U, mu32(m, DRACK_A_POOL_REGIONS));
	EXPECT_GE(16U, mu32(m, DRACK_A_POOL_REGIONS));
	if (t) {
		uint32_t s, n = 0;

		for (s = 0; s < t->count; s++)
			n += t->owner[s] == DRACK_SECTION_FREE;
		EXPECT_EQ(n, mu32(m, DRACK_A_POOL_FREE_SECTIONS))
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
		  mu32(r.m[0], DRACK_A_POOL_REGIONS));
	EXPECT_EQ(0U, mu32(r.m[0], DRACK_A_POOL_FM_PID))
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
		if (mu32(r.m[i], DRACK_A_POOL_ID) != POOL)
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
	REJECT_MISS(nl, C, 0, DRACK_A_POOL_ID, A_U32(DRACK_A_HOST_ID, 0));
	reject(_metadata, nl, __LINE__, C, 0, NULL, -EINVAL, 0,
	       DRACK_A_POOL_ID, NULL, NOATTRS);
	/* wrong lengths */
	REJECT(nl, C, 0, -EINVAL, A_U8(DRACK_A_POOL_ID, 0));
	REJECT(nl, C, 0, -EINVAL, A_U16(DRACK_A_POOL_ID, 0));
	REJECT(nl, C, 0, -EINVAL, A_U64(DRACK_A_POOL_ID, 0));
	REJECT(nl, C, 0, -EINVAL, A_EMPTY(DRACK_A_POOL_ID));
	REJECT(nl, C, 0, -EINVAL, A_STR(DRACK_A_POOL_ID, "0"));
	/* unknown pools */
	REJECT(nl, C, 0, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL));
	REJECT(nl, C, 0, -ENOENT, A_U32(DRACK_A_POOL_ID, 0xffffffff));
	/* out of range in a known attribute */
	REJECT(nl, C, 0, -ERANGE, A_POOL, A_U32(DRACK_A_HOST_ID, DRACK_MAX_HOSTS));
	REJECT(nl, C, 0, -ERANGE, A_POOL, A_U32(DRACK_A_CLASS, DRACK_NR_CLASSES));
	/* every reply-only attribute, unknown types: doit and dump */
	reject_extra_attrs(_metadata, nl, __LINE__, C, 0, ATTRS(A_POOL), true);
	reject_extra_attrs(_metadata, nl, __LINE__, C, NLM_F_DUMP, NOATTRS, false);
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U8(DRACK_A_POOL_ID, 0));
	REJECT(nl, C, NLM_F_DUMP, -ERANGE, A_U32(DRACK_A_HOST_ID, 64));
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
		const struct attr *ok = ATTRS(A_POOL, A_U32(DRACK_A_HOST_ID, H0),
					      A_U32(DRACK_A_SECTION_ID, s),
					      A_U32(DRACK_A_CLASS, 0));
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
		REJECT(nl, C, 0, -EINVAL, A_U32(DRACK_A_POOL_ID | NLA_F_NESTED, 0),
		       A_U32(DRACK_A_HOST_ID, H0), A_U32(DRACK_A_SECTION_ID, s),
		       A_U32(DRACK_A_CLASS, 0));
		/* an attribute header claiming more bytes than are left */
		REJECT(nl, C, 0, -EINVAL, A_POOL, A_U32(DRACK_A_HOST_ID, H0),
		       A_U32(DRACK_A_SECTION_ID, s), A_U32(DRACK_A_CLASS, 0),
		       A_RAW("\x08\x00\x02\x00\x00\x00"));
		/* nla_len below the attribute header size */
		REJECT(nl, C, 0, -EINVAL, A_POOL, A_U32(DRACK_A_HOST_ID, H0),
		       A_U32(DRACK_A_SECTION_ID, s), A_U32(DRACK_A_CLASS, 0),
		       A_RAW("\x02\x00\x02\x00"));
		/* trailing garbage shorter than an attribute header */
		REJECT(nl, C, 0, -EINVAL, A_POOL, A_U32(DRACK_A_HOST_ID, H0),
		       A_U32(DRACK_A_SECTION_ID, s), A_U32(DRACK_A_CLASS, 0),
		       A_RAW("\x01\x02"));
		/* the same attribute twice, the second one bad */
		REJECT(nl, C, 0, -EINVAL, A_POOL, A_U16(DRACK_A_POOL_ID, 0),
		       A_U32(DRACK_A_HOST_ID, H0), A_U32(DRACK_A_SECTION_ID, s),
		       A_U32(DRACK_A_CLASS, 0));
	}
}

/* ---------------------------------------------------------------- */
/* HOST_GET, SECTION_GET                                             */
/* ---------------------------------------------------------------- */

static const struct want host_attrs[] = {
	{ DRACK_A_POOL_ID, 4 }, { DRACK_A_HOST_ID, 4 },
	{ DRACK_A_HOST_STATE, 4 }, { DRACK_A_HOST_FLAGS, 4 },
	{ DRACK_A_HOST_MAC, 6 }, { DRACK_A_HOST_IFINDEX, 4 },
	{ DRACK_A_HOST_SECTIONS, 4 }, { DRACK_A_HOST_HEARTBEAT, 8 },
	{ DRACK_A_HOST_GENERATION, 4 }, { DRACK_A_HOST_FREE_2K, 4 },
	{ DRACK_A_HOST_FREE_64K, 4 }, { DRACK_A_HOST_WANTED_2K, 4 },
	{ DRACK_A_HOST_WANTED_64K, 4 }, { DRACK_A_HOST_RELEASED, 8 }, W_END
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

		h = mu32(m, DRACK_A_HOST_ID);
		EXPECT_EQ(C, mcmd(m));
		expect_attrs(_metadata, m, "HOST_GET", host_attrs);
		EXPECT_EQ(POOL, mu32(m, DRACK_A_POOL_ID));
		EXPECT_TRUE(h == H0 || h == H1) TH_LOG("host %u in the dump", h);
		EXPECT_EQ((uint32_t)DRACK_HOST_UP, mu32(m, DRACK_A_HOST_STATE));
		EXPECT_EQ(DRACK_HOST_F_RUNNING, mu32(m, DRACK_A_HOST_FLAGS));
		drack_host_mac(mac, POOL, h);
		EXPECT_TRUE(mhas(m, DRACK_A_HOST_MAC, 6) &&
			    !memcmp(mac, nla_data(mattr(m, DRACK_A_HOST_MAC)), 6))
			TH_LOG("host %u MAC", h);
		EXPECT_EQ(owned_count(t, h, NONE), mu32(m, DRACK_A_HOST_SECTIONS))
			TH_LOG("host %u: HOST_SECTIONS disagrees with the Section table", h);
		EXPECT_LE(1U, mu32(m, DRACK_A_HOST_GENERATION));
		EXPECT_EQ(0ULL, mu64(m, DRACK_A_HOST_RELEASED));
		EXPECT_GE(1U, mu32(m, DRACK_A_HOST_WANTED_2K));
		EXPECT_GE(1U, mu32(m, DRACK_A_HOST_WANTED_64K));
		EXPECT_LE(mu32(m, DRACK_A_HOST_FREE_2K),
			  owned_count(t, h, DRACK_CLASS_2K) *
			  (DRACK_SECTION_SIZE / DRACK_CLASS_SIZE(DRACK_CLASS_2K)));
		EXPECT_LE(mu32(m, DRACK_A_HOST_FREE_64K),
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
	REJECT_MISS(nl, C, NLM_F_DUMP, DRACK_A_POOL_ID, A_U32(DRACK_A_HOST_ID, 0));
	reject(_metadata, nl, __LINE__, C, NLM_F_DUMP, NULL, -EINVAL, 0,
	       DRACK_A_POOL_ID, NULL, NOATTRS);
	REJECT(nl, C, NLM_F_DUMP, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL));
	REJECT(nl, C, NLM_F_DUMP, -ENOENT, A_U32(DRACK_A_POOL_ID, 0xffffffff));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U8(DRACK_A_POOL_ID, 0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U16(DRACK_A_POOL_ID, 0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U64(DRACK_A_POOL_ID, 0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_POOL, A_U8(DRACK_A_HOST_ID, 0));
	REJECT(nl, C, NLM_F_DUMP, -ERANGE, A_POOL, A_U32(DRACK_A_HOST_ID, 64));
	reject_extra_attrs(_metadata, nl, __LINE__, C, NLM_F_DUMP,
			   ATTRS(A_POOL), false);
	/* dump only */
	REJECT_CORE(nl, C, 0, -EOPNOTSUPP, A_POOL);
}

static const struct want section_attrs[] = {
	{ DRACK_A_POOL_ID, 4 }, { DRACK_A_SECTION_ID, 4 },
	{ DRACK_A_SECTION_OWNER, 4 }, { DRACK_A_CLASS, 4 },
	{ DRACK_A_SECTION_GENERATION, 4 }, { DRACK_A_SECTION_REGION, 4 },
	{ DRACK_A_SECTION_FLAGS, 4 }, W_END
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
		EXPECT_EQ(POOL, mu32(m, DRACK_A_POOL_ID));
		EXPECT_EQ(s, mu32(m, DRACK_A_SECTION_ID));
		o = mu32(m, DRACK_A_SECTION_OWNER);
		if (s < t->meta) {
			EXPECT_EQ((uint32_t)DRACK_SECTION_META, o) TH_LOG("Section %u", s);
		} else if (o != DRACK_SECTION_FREE) {
			EXPECT_TRUE(o == H0 || o == H1) TH_LOG("Section %u owner %u", s, o);
			EXPECT_GT((uint32_t)DRACK_NR_CLASSES, mu32(m, DRACK_A_CLASS));
			EXPECT_LE(1U, mu32(m, DRACK_A_SECTION_GENERATION));
			n++;
		}
		EXPECT_EQ(0U, mu32(m, DRACK_A_SECTION_FLAGS)) TH_LOG("Section %u", s);
		EXPECT_EQ(drack_section_region(&g, t->regions, s),
			  mu32(m, DRACK_A_SECTION_REGION)) TH_LOG("Section %u", s);
	}
	EXPECT_LE(4U, n) TH_LOG("hosts 0 and 1 own %u Sections", n);
	EXPECT_EQ(t->count - t->meta - n, t->free);
	reply_free(&r);

	REJECT_MISS(nl, C, NLM_F_DUMP, DRACK_A_POOL_ID, A_U32(DRACK_A_SECTION_ID, 0));
	reject(_metadata, nl, __LINE__, C, NLM_F_DUMP, NULL, -EINVAL, 0,
	       DRACK_A_POOL_ID, NULL, NOATTRS);
	REJECT(nl, C, NLM_F_DUMP, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U8(DRACK_A_POOL_ID, 0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U16(DRACK_A_POOL_ID, 0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_POOL, A_U16(DRACK_A_SECTION_ID, 0));
	REJECT(nl, C, NLM_F_DUMP, -ERANGE, A_POOL, A_U32(DRACK_A_CLASS, 2));
	reject_extra_attrs(_metadata, nl, __LINE__, C, NLM_F_DUMP,
			   ATTRS(A_POOL), false);
	REJECT_CORE(nl, C, 0, -EOPNOTSUPP, A_POOL);
}

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
	REJECT_MISS(nl, C, 0, DRACK_A_POOL_ID, G_HOST(H0), G_SECT(s), G_CLASS(0));
	REJECT_MISS(nl, C, 0, DRACK_A_HOST_ID, A_POOL, G_SECT(s), G_CLASS(0));
	REJECT_MISS(nl, C, 0, DRACK_A_SECTION_ID, A_POOL, G_HOST(H0), G_CLASS(0));
	REJECT_MISS(nl, C, 0, DRACK_A_CLASS, A_POOL, G_HOST(H0), G_SECT(s));
	reject(_metadata, nl, __LINE__, C, 0, NULL, -EINVAL, 0, -1, NULL, NOATTRS);
	/* wrong lengths */
	REJECT(nl, C, 0, -EINVAL, A_U8(DRACK_A_POOL_ID, 0), G_HOST(H0), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U8(DRACK_A_HOST_ID, H0), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U16(DRACK_A_HOST_ID, H0), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U64(DRACK_A_HOST_ID, H0), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), A_U16(DRACK_A_SECTION_ID, s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), A_U64(DRACK_A_SECTION_ID, s), G_CLASS(0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), G_SECT(s), A_U8(DRACK_A_CLASS, 0));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), G_SECT(s), A_EMPTY(DRACK_A_CLASS));
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
	REJECT(nl, C, 0, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL), G_HOST(H0), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -ENOENT, A_POOL, G_HOST(slot), G_SECT(s), G_CLASS(0));
	REJECT(nl, C, 0, -EBUSY, A_POOL, G_HOST(H0), G_SECT(mine), G_CLASS(t->cls[mine]));
	REJECT(nl, C, 0, -EBUSY, A_POOL, G_HOST(H1), G_SECT(mine), G_CLASS(0));
	/* otherwise valid, plus reply-only or unknown attributes */
	reject_extra_attrs(_metadata, nl, __LINE__, C, 0,
			   ATTRS(A_POOL, G_HOST(H0), G_SECT(s), G_CLASS(1)), false);
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H0), G_SECT(s), G_CLASS(1),
	       A_U32(DRACK_A_SECTION_OWNER, H1));
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
	EXPECT_TRUE(wait_event(ev, DRACK_CMD_SECTION_NOTIFY, DRACK_A_SECTION_ID, s,
			       DRACK_A_SECTION_OWNER, H0, 5000))
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
	REJECT_MISS(nl, C, 0, DRACK_A_POOL_ID, G_SECT(mine));
	REJECT_MISS(nl, C, 0, DRACK_A_SECTION_ID, A_POOL);
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U8(DRACK_A_SECTION_ID, mine));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U16(DRACK_A_SECTION_ID, mine));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U64(DRACK_A_SECTION_ID, mine));
	REJECT(nl, C, 0, -EINVAL, A_U16(DRACK_A_POOL_ID, 0), G_SECT(mine));
	REJECT(nl, C, 0, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL), G_SECT(mine));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_SECT(t->count));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_SECT(0xffffffff));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_SECT(0));		/* metadata */
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_SECT(s));		/* free */
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_SECT(mine), A_U32(DRACK_A_HOST_ID, 64));
	reject_extra_attrs(_metadata, nl, __LINE__, C, 0,
			   ATTRS(A_POOL, G_SECT(mine)), false);
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_SECT(mine),
	       A_U32(DRACK_A_SECTION_FLAGS, DRACK_SECTION_F_REVOKE));
	REJECT_CORE(nl, C, NLM_F_DUMP, -EOPNOTSUPP, A_POOL, G_SECT(mine));

	/* A Section host 0 has taken (a few heartbeats later)... */
	ev = events_open(_metadata);
	ASSERT_EQ(0, grant(_metadata, nl, H0, s, DRACK_CLASS_2K, msg)) TH_LOG("%s", msg);
	EXPECT_TRUE(wait_event(ev, DRACK_CMD_SECTION_NOTIFY, DRACK_A_SECTION_ID, s,
			       DRACK_A_SECTION_OWNER, H0, 5000))
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
	EXPECT_TRUE(wait_event(ev, DRACK_CMD_SECTION_NOTIFY, DRACK_A_SECTION_ID, s,
			       DRACK_A_SECTION_OWNER, DRACK_SECTION_FREE, 5000))
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
	REJECT_MISS(nl, C, 0, DRACK_A_POOL_ID, G_HOST(H1), G_WHY(DRACK_REFUSED_QUOTA));
	REJECT_MISS(nl, C, 0, DRACK_A_HOST_ID, A_POOL, G_WHY(DRACK_REFUSED_QUOTA));
	REJECT_MISS(nl, C, 0, DRACK_A_REFUSAL, A_POOL, G_HOST(H1));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H1), A_U16(DRACK_A_REFUSAL, 1));
	REJECT(nl, C, 0, -EINVAL, A_POOL, G_HOST(H1), A_U64(DRACK_A_REFUSAL, 1));
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_HOST(H1), G_WHY(DRACK_REFUSED_NONE));
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_HOST(H1), G_WHY(DRACK_REFUSED_NR));
	REJECT(nl, C, 0, -ERANGE, A_POOL, G_HOST(64), G_WHY(DRACK_REFUSED_QUOTA));
	REJECT(nl, C, 0, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL), G_HOST(H1),
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
	REJECT_MISS(nl, F, 0, DRACK_A_POOL_ID, G_HOST(H1));
	REJECT_MISS(nl, F, 0, DRACK_A_HOST_ID, A_POOL);
	REJECT(nl, F, 0, -EINVAL, A_POOL, A_U8(DRACK_A_HOST_ID, H1));
	REJECT(nl, F, 0, -EINVAL, A_POOL, A_U16(DRACK_A_HOST_ID, H1));
	REJECT(nl, F, 0, -EINVAL, A_POOL, A_U64(DRACK_A_HOST_ID, H1));
	REJECT(nl, F, 0, -EINVAL, A_U8(DRACK_A_POOL_ID, 0), G_HOST(H1));
	REJECT(nl, F, 0, -ERANGE, A_POOL, G_HOST(DRACK_MAX_HOSTS));
	REJECT(nl, F, 0, -ERANGE, A_POOL, G_HOST(0xffffffff));
	if (mh < DRACK_MAX_HOSTS)
		REJECT(nl, F, 0, -EINVAL, A_POOL, G_HOST(mh));
	REJECT(nl, F, 0, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL), G_HOST(H1));
	REJECT_MSG(nl, F, 0, -ENOENT, "free", A_POOL, G_HOST(slot));
	reject_extra_attrs(_metadata, nl, __LINE__, F, 0,
			   ATTRS(A_POOL, G_HOST(H1)), false);
	REJECT(nl, F, 0, -EINVAL, A_POOL, G_HOST(H1),
	       A_U32(DRACK_A_HOST_STATE, DRACK_HOST_DEAD));
	REJECT_CORE(nl, F, NLM_F_DUMP, -EOPNOTSUPP, A_POOL, G_HOST(H1));
	/* HOST_RECLAIM: bad requests */
	REJECT_MISS(nl, R, 0, DRACK_A_POOL_ID, G_HOST(H1));
	REJECT_MISS(nl, R, 0, DRACK_A_HOST_ID, A_POOL);
	REJECT(nl, R, 0, -EINVAL, A_POOL, A_U16(DRACK_A_HOST_ID, H1));
	REJECT(nl, R, 0, -EINVAL, A_POOL, A_U64(DRACK_A_HOST_ID, H1));
	REJECT(nl, R, 0, -ERANGE, A_POOL, G_HOST(DRACK_MAX_HOSTS));
	if (mh < DRACK_MAX_HOSTS)
		REJECT(nl, R, 0, -EINVAL, A_POOL, G_HOST(mh));
	REJECT(nl, R, 0, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL), G_HOST(H1));
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
	EXPECT_TRUE(wait_event(ev, DRACK_CMD_HOST_NOTIFY, DRACK_A_HOST_ID, H1,
			       DRACK_A_HOST_STATE, DRACK_HOST_DEAD, 3000))
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
	EXPECT_TRUE(wait_event(ev, DRACK_CMD_HOST_NOTIFY, DRACK_A_HOST_ID, H1,
			       DRACK_A_HOST_STATE, DRACK_HOST_FREE, 3000))
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
	REJECT_MISS(b, REG, 0, DRACK_A_POOL_ID, G_HOST(0));
	reject(_metadata, b, __LINE__, REG, 0, NULL, -EINVAL, 0,
	       DRACK_A_POOL_ID, NULL, NOATTRS);
	REJECT(b, REG, 0, -EINVAL, A_U8(DRACK_A_POOL_ID, 0));
	REJECT(b, REG, 0, -EINVAL, A_U64(DRACK_A_POOL_ID, 0));
	REJECT(b, REG, 0, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL));
	reject_extra_attrs(_metadata, b, __LINE__, REG, 0, ATTRS(A_POOL), false);
	REJECT(b, REG, 0, -EINVAL, A_POOL, A_U32(DRACK_A_POOL_FM_PID, getpid()));
	REJECT_CORE(b, REG, NLM_F_DUMP, -EOPNOTSUPP, A_POOL);
	REJECT_MISS(b, UNREG, 0, DRACK_A_POOL_ID, G_HOST(0));
	REJECT(b, UNREG, 0, -EINVAL, A_U16(DRACK_A_POOL_ID, 0));
	REJECT(b, UNREG, 0, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL));
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
	REJECT(b, UNREG, 0, -ENOENT, A_POOL);
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
	REJECT(b, UNREG, 0, -ENOENT, A_POOL);
	EXPECT_TRUE(WAIT_TABLES(b, &t2, 5000, t2.owner[s] == DRACK_SECTION_FREE));
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

	REJECT_MISS(nl, C, 0, DRACK_A_POOL_ID, F_HOSTS(8));
	reject(_metadata, nl, __LINE__, C, 0, NULL, -EINVAL, 0,
	       DRACK_A_POOL_ID, NULL, NOATTRS);
	REJECT(nl, C, 0, -EINVAL, A_U8(DRACK_A_POOL_ID, 0));
	REJECT(nl, C, 0, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL));
	REJECT(nl, C, 0, -ENOENT, A_U32(DRACK_A_POOL_ID, NO_POOL), F_HOSTS(8), F_REGIONS(2));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U8(DRACK_A_POOL_MAX_HOSTS, 8));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U16(DRACK_A_POOL_MAX_HOSTS, 8));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U64(DRACK_A_POOL_MAX_HOSTS, 8));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U8(DRACK_A_POOL_REGIONS, 2));
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U64(DRACK_A_POOL_REGIONS, 2));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_HOSTS(0));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_HOSTS(1));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_HOSTS(DRACK_MAX_HOSTS + 1));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_HOSTS(0xffffffff));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_REGIONS(0));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_REGIONS(17));
	REJECT(nl, C, 0, -ERANGE, A_POOL, F_HOSTS(8), F_REGIONS(0xffffffff));
	reject_extra_attrs(_metadata, nl, __LINE__, C, 0,
			   ATTRS(A_POOL, F_HOSTS(8), F_REGIONS(2)), false);
	REJECT(nl, C, 0, -EINVAL, A_POOL, A_U32(DRACK_A_POOL_SECTION_COUNT, 16));
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
static void read_rings(struct __test_metadata *_metadata, uint32_t ring[3])
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
			    const struct tables *orig, const uint32_t ring[3],
			    uint32_t hosts, uint32_t regions)
{
	struct drack_geometry g;
	struct tables *t = calloc(1, sizeof(*t));
	uint32_t s, h, nics, vq;

	ASSERT_NE(NULL, t);
	read_tables(_metadata, nl, t);
	ASSERT_EQ(0, drack_layout(&g, orig->size, hosts, ring[0], ring[1], ring[2]));
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
	uint32_t ring[3], h, big = NONE;
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
		if (drack_layout(&g, t->size, h, ring[0], ring[1], ring[2]))
			big = h;
	if (big != NONE)
		REJECT(nl, C, 0, -EINVAL, A_POOL, F_HOSTS(big));
	else
		TH_LOG("64 hosts fit a %llu-byte pool: no too-many-hosts case",
		       (unsigned long long)t->size);
	for (h = DRACK_MAX_HOSTS; h >= 2; h--)
		if (!drack_layout(&g, t->size, h, ring[0], ring[1], ring[2]) &&
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
	REJECT(root, C, NLM_F_DUMP, -ENODEV, A_U32(DRACK_A_IFINDEX, 1));

	nl = sk_open_in(_metadata, self->ns[0]);
	rack0 = if_nametoindex("rack0");
	ASSERT_NE(0U, rack0);
	ASSERT_EQ(0, request(_metadata, nl, C, NLM_F_DUMP, NOATTRS, NULL, &r))
		TH_LOG("%s", r.msg);
	n = check(_metadata, self->t, &r);
	reply_free(&r);
	ASSERT_EQ(0, request(_metadata, nl, C, NLM_F_DUMP,
			     ATTRS(A_U32(DRACK_A_IFINDEX, rack0)), NULL, &r))
		TH_LOG("%s", r.msg);
	EXPECT_EQ(n, check(_metadata, self->t, &r))
		TH_LOG("with and without IFINDEX differ");
	reply_free(&r);

	/* bad requests, from h0 */
	REJECT_MSG(nl, C, NLM_F_DUMP, -ENODEV, NULL, A_U32(DRACK_A_IFINDEX, 1)); /* lo */
	REJECT(nl, C, NLM_F_DUMP, -ERANGE, A_U32(DRACK_A_IFINDEX, 0));	/* never an ifindex */
	REJECT(nl, C, NLM_F_DUMP, -ENODEV, A_U32(DRACK_A_IFINDEX, 999999));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U8(DRACK_A_IFINDEX, rack0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U16(DRACK_A_IFINDEX, rack0));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U64(DRACK_A_IFINDEX, rack0));
	reject_extra_attrs(_metadata, nl, __LINE__, C, NLM_F_DUMP,
			   ATTRS(A_U32(DRACK_A_IFINDEX, rack0)), false);
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_U32(DRACK_A_IFINDEX, rack0),
	       A_STR(DRACK_A_IFNAME, "rack0"));
	REJECT(nl, C, NLM_F_DUMP, -EINVAL, A_STR(DRACK_A_IFNAME, "rack0"));
	REJECT(nl, C, NLM_F_DUMP, -ERANGE, A_U32(DRACK_A_HOST_ID, 64));
	REJECT_CORE(nl, C, 0, -EOPNOTSUPP, A_U32(DRACK_A_IFINDEX, rack0));
	REJECT_CORE(nl, C, 0, -EOPNOTSUPP, A_END);
	sk_close(nl);
}

/* Attributes identifying the local host: pool, host, rack0. */
static void expect_local(struct __test_metadata *_metadata,
			 struct nlmsghdr *m, uint8_t cmd)
{
	const char *name = mstr(m, DRACK_A_IFNAME);

	EXPECT_EQ(cmd, mcmd(m));
	EXPECT_EQ(POOL, mu32(m, DRACK_A_POOL_ID));
	EXPECT_EQ(H0, mu32(m, DRACK_A_HOST_ID));
	EXPECT_EQ(if_nametoindex("rack0"), mu32(m, DRACK_A_IFINDEX));
	EXPECT_TRUE(name && !strcmp(name, "rack0")) TH_LOG("IFNAME '%s'",
							   name ?: "(none)");
}

static const struct want peer_attrs[] = {
	{ DRACK_A_POOL_ID, 4 }, { DRACK_A_HOST_ID, 4 }, { DRACK_A_IFINDEX, 4 },
	{ DRACK_A_IFNAME, -1 }, { DRACK_A_PEER_ID, 4 }, { DRACK_A_PEER_STATE, 4 },
	{ DRACK_A_PEER_REACHABLE, 4 }, { DRACK_A_PEER_TX_PACKETS, 8 },
	{ DRACK_A_PEER_TX_BYTES, 8 }, { DRACK_A_PEER_RX_PACKETS, 8 },
	{ DRACK_A_PEER_RX_BYTES, 8 }, { DRACK_A_PEER_RX_BAD, 8 }, W_END
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
		p = mu32(m, DRACK_A_PEER_ID);
		ASSERT_GT(t->max_hosts, p);
		EXPECT_FALSE(seen & (1ULL << p)) TH_LOG("peer %u twice", p);
		seen |= 1ULL << p;
		EXPECT_GT((uint32_t)DRACK_HOST_NR_STATES, mu32(m, DRACK_A_PEER_STATE));
		EXPECT_GE(1U, mu32(m, DRACK_A_PEER_REACHABLE));
		EXPECT_LE(mu64(m, DRACK_A_PEER_TX_PACKETS) * 14,
			  mu64(m, DRACK_A_PEER_TX_BYTES));
		if (p == H1) {
			EXPECT_EQ((uint32_t)DRACK_HOST_UP, mu32(m, DRACK_A_PEER_STATE));
			EXPECT_EQ(1U, mu32(m, DRACK_A_PEER_REACHABLE));
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
	{ DRACK_A_POOL_ID, 4 }, { DRACK_A_HOST_ID, 4 }, { DRACK_A_IFINDEX, 4 },
	{ DRACK_A_IFNAME, -1 }, { DRACK_A_CLASS, 4 }, { DRACK_A_CLASS_SECTIONS, 4 },
	{ DRACK_A_CLASS_TOTAL, 4 }, { DRACK_A_CLASS_FREE, 4 },
	{ DRACK_A_CLASS_INFLIGHT, 4 }, { DRACK_A_CLASS_REQUESTED, 4 },
	{ DRACK_A_CLASS_DRAINING, 4 }, W_END
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
		c = mu32(m, DRACK_A_CLASS);
		ASSERT_GT((uint32_t)DRACK_NR_CLASSES, c);
		seen |= 1ULL << c;
		secs = mu32(m, DRACK_A_CLASS_SECTIONS);
		total = mu32(m, DRACK_A_CLASS_TOTAL);
		EXPECT_EQ(owned_count(t, H0, c), secs)
			TH_LOG("class %u: host 0 uses %u Sections, the table gives it %u",
			       c, secs, owned_count(t, H0, c));
		EXPECT_EQ(secs * (DRACK_SECTION_SIZE / DRACK_CLASS_SIZE(c)), total);
		EXPECT_GE(total, mu32(m, DRACK_A_CLASS_FREE));
		EXPECT_GE(total, mu32(m, DRACK_A_CLASS_INFLIGHT));
		EXPECT_GE(1U, mu32(m, DRACK_A_CLASS_REQUESTED));
		EXPECT_EQ(0U, mu32(m, DRACK_A_CLASS_DRAINING));
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
	{ DRACK_A_POOL_ID, 4 }, { DRACK_A_HOST_ID, 4 }, { DRACK_A_IFINDEX, 4 },
	{ DRACK_A_IFNAME, -1 }, { DRACK_A_STATS, -1 }, W_END
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
			    A_U32(DRACK_A_HOST_ID, H0), A_U32(DRACK_A_CLASS, 0));
		REJECT_CORE(nl, events[i], 0, -EOPNOTSUPP, A_POOL,
			    A_U32(DRACK_A_HOST_ID, H0),
			    A_U32(DRACK_A_HOST_STATE, DRACK_HOST_DEAD));
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

TEST_HARNESS_MAIN
