// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of drack-fmd's NIC scheduling policies (fmd-sched.c) on a
 * simulated 2 x 2 NIC pool: host h owns NIC h, both NICs assigned to both
 * hosts. Each step advances the clock by one poll, publishes what the
 * flows sent (the hosts' per-vNIC demand, the NICs' vNIC and wire bytes)
 * and a queue depth per NIC, runs one scheduling pass and applies the
 * steers it wrote, as the kernel would. drack_nic_steer() is the only
 * stand-in: it records the choice instead of sending it to a kernel.
 *
 * The cases are the lab's (make bench-sched): two hosts on one vNIC, a
 * NIC busy with its owner's own traffic, one flow alone on a NIC.
 */
#include <stdarg.h>
#include <string.h>
#include "fmd.h"
#include "kselftest_harness.h"

#define POLL_MS		500
#define BUSY_DEPTH	10	/* a saturated tbf's queue, averaged */

static uint64_t now_ms = 1000;
static int steered[DRACK_MAX_NICS][DRACK_MAX_HOSTS];
static unsigned int nsteers;	/* calls that changed something */

uint64_t fmd_now_ms(void)
{
	return now_ms;
}

void fmd_log(enum fmd_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > FMD_WARN && !getenv("SCHED_VERBOSE"))
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int drack_nic_steer(struct drack_nl *nl, uint32_t pool, uint32_t nic,
		    uint32_t host, int via, char *errbuf, size_t errlen)
{
	(void)nl;
	(void)pool;
	if (errbuf && errlen)
		errbuf[0] = 0;
	if (nic >= 2 || host >= 2 || via < -1 || via >= 2)
		return -EINVAL;
	if (steered[nic][host] != via)
		nsteers++;
	steered[nic][host] = via;
	return 0;
}

struct sim {
	struct fmd_pool fp;
	struct drack_nic_info nic[2];
	bool present[DRACK_MAX_NICS];
	double vnic_rate[2][2];		/* [v][h] bytes/s the vNIC sends */
	double own_rate[2];		/* bytes/s the owner sends itself */
	double wire_overhead;		/* the driver's count of a vNIC byte - 1 */
	int depth[2];			/* >= 0: the queue published, whatever */
};

static void sim_init(struct sim *s, uint32_t policy)
{
	uint32_t n, h;

	memset(s, 0, sizeof(*s));
	fmd_conf_defaults(&fmd_conf);
	fmd_conf.nic_schedule = policy;
	fmd_conf.nic_hold_ms = 2000;
	fmd_conf.queue_depth_high = 8;	/* the rules, whatever the default */
	s->fp.max_nics = 2;
	s->fp.max_hosts = 2;
	s->fp.hosts_ok = true;
	for (h = 0; h < 2; h++)
		s->fp.host[h].state = DRACK_HOST_UP;
	for (n = 0; n < 2; n++) {
		s->present[n] = true;
		s->nic[n].id = n;
		s->nic[n].state = DRACK_NIC_UP;
		s->nic[n].generation = 1;
		s->depth[n] = -1;
		s->nic[n].owner = n;
		s->nic[n].assigned = 3;
		s->nic[n].ndemand = 2;
		for (h = 0; h < 2; h++) {
			s->nic[n].demand[h].host = h;
			steered[n][h] = -1;
		}
	}
	nsteers = 0;
}

/* The NIC carrying host @h's vNIC @v, as the kernel applies steers. */
static uint32_t carrier(uint32_t v, uint32_t h)
{
	return steered[v][h] < 0 ? v : (uint32_t)steered[v][h];
}

/* One poll: the flows send for POLL_MS, then one scheduling pass. */
static void sim_step(struct sim *s)
{
	double dt = POLL_MS / 1000.0;
	bool busy[2] = { false, false };
	uint32_t v, h, c;

	now_ms += POLL_MS;
	for (v = 0; v < 2; v++)
		for (h = 0; h < 2; h++) {
			uint64_t b = (uint64_t)(s->vnic_rate[v][h] * dt);

			if (!b)
				continue;
			c = carrier(v, h);
			s->nic[v].demand[h].tx_bytes += b;
			s->nic[c].tx_bytes += b;
			s->nic[c].wire_tx_bytes += b + (uint64_t)(b * s->wire_overhead);
			busy[c] = true;
		}
	for (c = 0; c < 2; c++) {
		s->nic[c].wire_tx_bytes += (uint64_t)(s->own_rate[c] * dt);
		busy[c] |= s->own_rate[c] > 0;
		s->nic[c].queue_depth = s->depth[c] >= 0 ? (uint32_t)s->depth[c] :
					busy[c] ? BUSY_DEPTH : 0;
	}
	fmd_sched_pass(NULL, &s->fp, s->nic, s->present);
}

static void sim_run(struct sim *s, unsigned int steps)
{
	while (steps--)
		sim_step(s);
}

#define MBIT(x)	((x) * 1e6 / 8)

/* Both hosts send through their vNIC 0 (NIC 0): they get a NIC each. */
static void two_on_vnic0(struct __test_metadata *_metadata, uint32_t policy)
{
	struct sim s;
	unsigned int moves;

	sim_init(&s, policy);
	s.vnic_rate[0][0] = MBIT(2.3);
	s.vnic_rate[0][1] = MBIT(2.2);
	sim_run(&s, 12);
	EXPECT_NE(carrier(0, 0), carrier(0, 1));
	/* and they stay apart: no more moves of the senders */
	moves = nsteers;
	sim_run(&s, 40);
	EXPECT_NE(carrier(0, 0), carrier(0, 1));
	EXPECT_LE(nsteers - moves, policy == FMD_SCHED_QUEUE_DEPTH ? 2 : 0);
}

/*
 * Host 1 fills NIC 1 with its own traffic (not through the pool) while
 * host 0 sends through its vNIC 1: that vNIC goes to the idle NIC 0.
 */
static void owner_busy(struct __test_metadata *_metadata, uint32_t policy)
{
	struct sim s;

	sim_init(&s, policy);
	s.own_rate[1] = MBIT(1.2);
	s.vnic_rate[1][0] = MBIT(3.3);
	sim_run(&s, 12);
	EXPECT_EQ(0, carrier(1, 0));
	sim_run(&s, 40);
	EXPECT_EQ(0, carrier(1, 0));	/* and stays there */
}

/*
 * On a 10 Gbit/s NIC (speed known) the owner's 1.2 Mbit/s counts only
 * while the NIC's queue is deep: a shaped link, as in the lab.
 */
static void owner_busy_fast_nic(struct __test_metadata *_metadata,
				uint32_t policy)
{
	struct sim s;

	sim_init(&s, policy);
	s.nic[0].rate = s.nic[1].rate = 10000;
	s.own_rate[1] = MBIT(1.2);
	s.vnic_rate[1][0] = MBIT(3.3);
	sim_run(&s, 12);
	EXPECT_EQ(0, carrier(1, 0));
}

/* The same on an idle 10 Gbit/s NIC (short queue): nothing to flee. */
static void owner_light_fast_nic(struct __test_metadata *_metadata,
				 uint32_t policy)
{
	struct sim s;

	sim_init(&s, policy);
	s.nic[0].rate = s.nic[1].rate = 10000;
	s.depth[0] = s.depth[1] = 0;
	s.own_rate[1] = MBIT(1.2);
	s.vnic_rate[1][0] = MBIT(3.3);
	sim_run(&s, 30);
	EXPECT_EQ(1, carrier(1, 0));
	EXPECT_EQ(0, nsteers);
}

/* One flow alone fills NIC 0: moving it would only move the queue. */
static void lone_flow(struct __test_metadata *_metadata, uint32_t policy)
{
	struct sim s;
	unsigned int i;

	sim_init(&s, policy);
	s.vnic_rate[0][0] = MBIT(4.5);
	for (i = 0; i < 60; i++) {
		sim_step(&s);
		ASSERT_EQ(0, carrier(0, 0)) TH_LOG("step %u", i);
	}
}

/*
 * A driver counting headers per GSO segment sends 4.4% more bytes than
 * the pool counted: that is no owner traffic, and the lone flow stays.
 */
static void gso_overhead(struct __test_metadata *_metadata, uint32_t policy)
{
	struct sim s;
	unsigned int i;

	sim_init(&s, policy);
	s.wire_overhead = 0.044;
	s.vnic_rate[0][0] = MBIT(100);
	for (i = 0; i < 60; i++) {
		sim_step(&s);
		ASSERT_EQ(0, carrier(0, 0)) TH_LOG("step %u", i);
	}
	/* queue-depth may move the idle vNIC of NIC 0 (host 1's) */
	EXPECT_LE(nsteers, policy == FMD_SCHED_QUEUE_DEPTH ? 1U : 0U);
}

TEST(static_moves_nothing)
{
	struct sim s;

	sim_init(&s, FMD_SCHED_STATIC);
	s.vnic_rate[0][0] = s.vnic_rate[0][1] = MBIT(2);
	s.own_rate[1] = MBIT(1);
	sim_run(&s, 30);
	EXPECT_EQ(0, nsteers);
}

TEST(queue_depth_two_on_vnic0) { two_on_vnic0(_metadata, FMD_SCHED_QUEUE_DEPTH); }
TEST(demand_two_on_vnic0) { two_on_vnic0(_metadata, FMD_SCHED_DEMAND); }
TEST(matching_two_on_vnic0) { two_on_vnic0(_metadata, FMD_SCHED_MATCHING); }
TEST(queue_depth_owner_busy) { owner_busy(_metadata, FMD_SCHED_QUEUE_DEPTH); }
TEST(demand_owner_busy) { owner_busy(_metadata, FMD_SCHED_DEMAND); }
TEST(matching_owner_busy) { owner_busy(_metadata, FMD_SCHED_MATCHING); }
TEST(demand_owner_busy_fast_nic) { owner_busy_fast_nic(_metadata, FMD_SCHED_DEMAND); }
TEST(matching_owner_busy_fast_nic) { owner_busy_fast_nic(_metadata, FMD_SCHED_MATCHING); }
TEST(demand_owner_light_fast_nic) { owner_light_fast_nic(_metadata, FMD_SCHED_DEMAND); }
TEST(matching_owner_light_fast_nic) { owner_light_fast_nic(_metadata, FMD_SCHED_MATCHING); }
TEST(queue_depth_lone_flow) { lone_flow(_metadata, FMD_SCHED_QUEUE_DEPTH); }
TEST(demand_lone_flow) { lone_flow(_metadata, FMD_SCHED_DEMAND); }
TEST(matching_lone_flow) { lone_flow(_metadata, FMD_SCHED_MATCHING); }

TEST(queue_depth_gso_overhead) { gso_overhead(_metadata, FMD_SCHED_QUEUE_DEPTH); }
TEST(demand_gso_overhead) { gso_overhead(_metadata, FMD_SCHED_DEMAND); }
TEST(matching_gso_overhead) { gso_overhead(_metadata, FMD_SCHED_MATCHING); }

/* The default threshold sees the lab's saturated queue (about 10). */
TEST(queue_depth_default_threshold)
{
	struct fmd_conf c;

	fmd_conf_defaults(&c);
	EXPECT_LE(c.queue_depth_high, BUSY_DEPTH);
}

/*
 * A new export (generation + 1) counts from 0 again, and a NIC that was
 * gone may come back with any counter: no owner traffic appears, under
 * matching (which would hand a busy owner its NIC) nothing moves.
 */
TEST(counters_restart)
{
	struct sim s;

	sim_init(&s, FMD_SCHED_MATCHING);
	s.vnic_rate[1][0] = MBIT(3);
	sim_run(&s, 3);
	s.nic[1].tx_bytes = s.nic[1].wire_tx_bytes = 0;
	s.nic[1].generation++;
	sim_run(&s, 1);
	s.nic[1].wire_tx_bytes += 100000000000ULL;	/* an old counter */
	s.nic[1].generation++;
	sim_run(&s, 1);
	s.present[1] = false;
	sim_run(&s, 2);
	s.present[1] = true;
	s.nic[1].wire_tx_bytes += 200000000000ULL;
	sim_run(&s, 12);
	EXPECT_EQ(1, carrier(1, 0));
	EXPECT_EQ(0, nsteers);
}

TEST_HARNESS_MAIN
