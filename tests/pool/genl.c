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
		      ATTRS(A_POOL, A_U32(AH(ID), host),
			    A_U32(AS(ID), section),
			    A_U32(AS(CLASS), c)), msg);
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

#include "genl-dumps.h"
#include "genl-fm.h"
#include "genl-local.h"

TEST_HARNESS_MAIN
