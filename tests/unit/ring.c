// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of kmod/ring.h, the one discipline of every pool ring: round
 * trips, u32 index wrap-around, a full ring, the event-index doorbell
 * decisions, recovery from garbage indexes and from a ring reset under an
 * active producer, adopting either side, and a two-thread stress.
 *
 * Producer and consumer each have their own struct drack_ring (their
 * shadow indexes) on one piece of memory, as two kernels would.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <semaphore.h>
#include <time.h>
#include "ring.h"
#include "kselftest_harness.h"

#define ESIZE	sizeof(u64)

struct pair {
	void *mem;
	struct drack_ring p, c;	/* producer's and consumer's view */
};

static void pair_init(struct pair *r, u32 size)
{
	size_t bytes = sizeof(struct drack_ring_hdr) + (size_t)size * ESIZE;

	r->mem = aligned_alloc(DRACK_CACHELINE, bytes);
	memset(r->mem, 0, bytes);
	drack_ring_init(&r->p, r->mem, size, ESIZE);
	drack_ring_init(&r->c, r->mem, size, ESIZE);
}

/* Both sides start at @idx, as after a long life of the ring. */
static void pair_start_at(struct pair *r, u32 idx)
{
	struct drack_ring_hdr *h = r->mem;

	h->prod = cpu_to_le32(idx);
	h->cons = cpu_to_le32(idx);
	h->event = cpu_to_le32(idx);
	drack_ring_adopt_producer(&r->p, true);
	drack_ring_adopt_consumer(&r->c);
}

static void produce(struct drack_ring *p, u64 v)
{
	memcpy(drack_ring_next(p), &v, sizeof(v));
	drack_ring_push(p);
}

static u64 peek(struct drack_ring *c, u32 i)
{
	u64 v;

	memcpy(&v, drack_ring_peek(c, i), sizeof(v));
	return v;
}

static struct drack_ring_hdr *hdr(struct pair *r)
{
	return r->mem;
}

TEST(round_trip)
{
	struct pair r;
	u32 i;

	pair_init(&r, 8);
	ASSERT_EQ(8, drack_ring_space(&r.p));
	ASSERT_EQ(0, drack_ring_avail(&r.c));
	for (i = 0; i < 5; i++)
		produce(&r.p, 100 + i);
	/* Nothing is visible before the flush. */
	ASSERT_EQ(0, drack_ring_avail(&r.c));
	ASSERT_FALSE(drack_ring_pending(&r.c));
	drack_ring_flush(&r.p);
	ASSERT_TRUE(drack_ring_pending(&r.c));
	ASSERT_EQ(5U, drack_ring_used(&r.p));
	ASSERT_EQ(3, drack_ring_space(&r.p));
	ASSERT_EQ(5, drack_ring_avail(&r.c));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(100 + i, peek(&r.c, i));
	drack_ring_consume(&r.c, 2);
	ASSERT_EQ(5, drack_ring_space(&r.p));
	ASSERT_EQ(3, drack_ring_avail(&r.c));
	ASSERT_EQ(102U, peek(&r.c, 0));
	drack_ring_consume(&r.c, 3);
	ASSERT_EQ(8, drack_ring_space(&r.p));
	ASSERT_EQ(0, drack_ring_avail(&r.c));
	ASSERT_FALSE(drack_ring_pending(&r.c));
	ASSERT_EQ(0U, drack_ring_used(&r.p));
	free(r.mem);
}

/* The u32 indexes run through 2^32: nothing changes there. */
TEST(wrap_around)
{
	u64 next = 0, expect = 0;
	struct pair r;
	u32 round, i, n;
	int avail;

	pair_init(&r, 16);
	pair_start_at(&r, 0xffffff00U);
	ASSERT_EQ(0xffffff00U, r.p.idx);
	ASSERT_EQ(16, drack_ring_space(&r.p));
	/* 600 entries in batches of 1..16: through 0xffffffff and on. */
	for (round = 0; next < 600; round++) {
		n = 1 + round % 16;
		ASSERT_EQ(16, drack_ring_space(&r.p));
		for (i = 0; i < n; i++)
			produce(&r.p, next++);
		drack_ring_flush(&r.p);
		avail = drack_ring_avail(&r.c);
		ASSERT_EQ((int)n, avail);
		for (i = 0; i < n; i++)
			ASSERT_EQ(expect + i, peek(&r.c, i));
		/* The slot of index i is i mod 16, across the wrap too. */
		ASSERT_EQ(drack_ring_slot(&r.c, r.c.idx),
			  r.c.entries + (r.c.idx & 15) * ESIZE);
		expect += n;
		drack_ring_consume(&r.c, n);
	}
	ASSERT_LT(r.p.idx, 0x1000U);	/* it did wrap */
	ASSERT_EQ(r.p.idx, r.c.idx);
	ASSERT_EQ((u32)(0xffffff00U + expect), r.c.idx);
	ASSERT_GE(expect, 600U);
	free(r.mem);
}

TEST(full_ring)
{
	struct pair r;
	u32 i;

	pair_init(&r, 8);
	pair_start_at(&r, 0xfffffffcU);	/* full across the wrap */
	for (i = 0; i < 8; i++)
		produce(&r.p, i);
	drack_ring_flush(&r.p);
	ASSERT_EQ(0, drack_ring_space(&r.p));
	ASSERT_EQ(8U, drack_ring_used(&r.p));
	ASSERT_EQ(8, drack_ring_avail(&r.c));
	ASSERT_EQ(0U, peek(&r.c, 0));
	ASSERT_EQ(7U, peek(&r.c, 7));
	drack_ring_consume(&r.c, 1);
	ASSERT_EQ(1, drack_ring_space(&r.p));
	produce(&r.p, 8);
	drack_ring_flush(&r.p);
	ASSERT_EQ(0, drack_ring_space(&r.p));
	ASSERT_EQ(8, drack_ring_avail(&r.c));
	ASSERT_EQ(1U, peek(&r.c, 0));
	ASSERT_EQ(8U, peek(&r.c, 7));	/* went into slot 0 again */
	free(r.mem);
}

/*
 * drack_ring_flush(): one doorbell per flushed batch, and only when the
 * consumer armed for an entry of that batch.
 */
TEST(flush_event_index)
{
	struct pair r;

	pair_init(&r, 16);
	pair_start_at(&r, 0xfffffffeU);
	/* Nothing pushed: nothing to say. */
	ASSERT_FALSE(drack_ring_flush(&r.p));
	/* The consumer is idle and armed for the next entry. */
	ASSERT_FALSE(drack_ring_arm(&r.c));
	produce(&r.p, 1);
	produce(&r.p, 2);
	produce(&r.p, 3);		/* index 0 after the wrap */
	ASSERT_TRUE(drack_ring_flush(&r.p));	/* one doorbell for three */
	ASSERT_FALSE(drack_ring_flush(&r.p));	/* nothing new */
	/* The consumer has not re-armed: no doorbell for more. */
	produce(&r.p, 4);
	ASSERT_FALSE(drack_ring_flush(&r.p));
	/* Entries arrived since it last looked: arm says poll again. */
	ASSERT_TRUE(drack_ring_arm(&r.c));
	ASSERT_EQ(4, drack_ring_avail(&r.c));
	drack_ring_consume(&r.c, 4);
	ASSERT_FALSE(drack_ring_arm(&r.c));	/* idle, armed for index 2 */
	/* A batch containing the armed entry, not as its first: one bell. */
	produce(&r.p, 5);
	produce(&r.p, 6);
	ASSERT_TRUE(drack_ring_flush(&r.p));
	/* The armed entry is in the past now: later batches stay quiet. */
	produce(&r.p, 7);
	ASSERT_FALSE(drack_ring_flush(&r.p));
	/* Armed for exactly the next entry: a bell for it, none after. */
	ASSERT_EQ(3, drack_ring_avail(&r.c));
	drack_ring_consume(&r.c, 3);
	ASSERT_FALSE(drack_ring_arm(&r.c));
	produce(&r.p, 71);
	ASSERT_TRUE(drack_ring_flush(&r.p));
	produce(&r.p, 72);
	ASSERT_FALSE(drack_ring_flush(&r.p));
	/* Armed further ahead than the batch reaches: quiet. */
	hdr(&r)->event = cpu_to_le32(r.p.idx + 2);
	produce(&r.p, 8);
	ASSERT_FALSE(drack_ring_flush(&r.p));
	produce(&r.p, 9);
	produce(&r.p, 10);
	ASSERT_TRUE(drack_ring_flush(&r.p));	/* the batch reaches it */
	free(r.mem);
}

/* A consumer index outside what we produced: resync, then go on. */
TEST(garbage_consumer_index)
{
	struct pair r;
	u32 i;

	pair_init(&r, 8);
	pair_start_at(&r, 0xfffffff0U);
	for (i = 0; i < 3; i++)
		produce(&r.p, i);
	drack_ring_flush(&r.p);
	/* Beyond the producer. */
	hdr(&r)->cons = cpu_to_le32(r.p.idx + 5);
	ASSERT_EQ(-1, drack_ring_space(&r.p));
	ASSERT_EQ(0xfffffff3U + 5, r.p.idx);
	ASSERT_EQ(r.p.idx, le32_to_cpu(hdr(&r)->prod));
	ASSERT_EQ(8, drack_ring_space(&r.p));
	/* Far behind: more in flight than the ring holds. */
	hdr(&r)->cons = cpu_to_le32(r.p.idx - 9);
	ASSERT_EQ(-1, drack_ring_space(&r.p));
	ASSERT_EQ(8, drack_ring_space(&r.p));
	/* Exactly full is no garbage. */
	hdr(&r)->cons = cpu_to_le32(r.p.idx - 8);
	ASSERT_EQ(0, drack_ring_space(&r.p));
	free(r.mem);
}

/* A producer index more than the ring ahead: skip it all. */
TEST(garbage_producer_index)
{
	struct pair r;

	pair_init(&r, 8);
	pair_start_at(&r, 0xfffffffaU);
	hdr(&r)->prod = cpu_to_le32(r.c.idx + 9);
	ASSERT_EQ(-1, drack_ring_avail(&r.c));
	ASSERT_EQ(0xfffffffaU + 9, r.c.idx);
	ASSERT_EQ(r.c.idx, le32_to_cpu(hdr(&r)->cons));
	ASSERT_EQ(0, drack_ring_avail(&r.c));
	/* Behind the consumer is garbage too (a huge u32 distance). */
	hdr(&r)->prod = cpu_to_le32(r.c.idx - 1);
	ASSERT_EQ(-1, drack_ring_avail(&r.c));
	ASSERT_EQ(0, drack_ring_avail(&r.c));
	/* Exactly a ring's worth is not. */
	hdr(&r)->prod = cpu_to_le32(r.c.idx + 8);
	ASSERT_EQ(8, drack_ring_avail(&r.c));
	free(r.mem);
}

/*
 * The ring's owner resets it (it joined again) while a producer is
 * active: the consumer index alone looks sane (5 in flight), but prod is
 * no longer what the producer published.
 */
TEST(reset_under_producer)
{
	struct drack_ring owner;
	struct pair r;
	u32 i;

	pair_init(&r, 8);
	for (i = 0; i < 5; i++)
		produce(&r.p, i);
	drack_ring_flush(&r.p);
	ASSERT_EQ(3, drack_ring_space(&r.p));
	drack_ring_init(&owner, r.mem, 8, ESIZE);
	drack_ring_reset(&owner);
	ASSERT_EQ(-1, drack_ring_space(&r.p));
	ASSERT_EQ(0U, r.p.idx);
	ASSERT_EQ(0U, r.p.kicked);
	ASSERT_EQ(8, drack_ring_space(&r.p));
	produce(&r.p, 42);
	drack_ring_flush(&r.p);
	ASSERT_EQ(1, drack_ring_avail(&owner));
	ASSERT_EQ(42U, peek(&owner, 0));
	free(r.mem);
}

TEST(adopt_producer)
{
	struct drack_ring next;
	struct pair r;
	u32 i;

	pair_init(&r, 8);
	pair_start_at(&r, 0xfffffffeU);
	for (i = 0; i < 3; i++)
		produce(&r.p, i);
	drack_ring_flush(&r.p);
	/* Keep: what the previous producer published stays queued. */
	drack_ring_init(&next, r.mem, 8, ESIZE);
	drack_ring_adopt_producer(&next, true);
	ASSERT_EQ(r.p.idx, next.idx);
	ASSERT_EQ(5, drack_ring_space(&next));
	produce(&next, 3);
	drack_ring_flush(&next);
	ASSERT_EQ(4, drack_ring_avail(&r.c));
	ASSERT_EQ(3U, peek(&r.c, 3));
	/* Withdraw: the consumer sees nothing of it. */
	drack_ring_init(&next, r.mem, 8, ESIZE);
	drack_ring_adopt_producer(&next, false);
	ASSERT_EQ(r.c.idx, next.idx);
	ASSERT_EQ(0, drack_ring_avail(&r.c));
	ASSERT_EQ(8, drack_ring_space(&next));
	/* Keep, but garbage queued: withdrawn as well. */
	hdr(&r)->prod = cpu_to_le32(r.c.idx + 9);
	drack_ring_init(&next, r.mem, 8, ESIZE);
	drack_ring_adopt_producer(&next, true);
	ASSERT_EQ(r.c.idx, next.idx);
	ASSERT_EQ(0, drack_ring_avail(&r.c));
	free(r.mem);
}

TEST(adopt_consumer)
{
	struct drack_ring next;
	struct pair r;
	u32 i;

	pair_init(&r, 8);
	pair_start_at(&r, 0x7ffffffeU);
	for (i = 0; i < 6; i++)
		produce(&r.p, i);
	drack_ring_flush(&r.p);
	ASSERT_EQ(2, drack_ring_space(&r.p));
	drack_ring_init(&next, r.mem, 8, ESIZE);
	drack_ring_adopt_consumer(&next);
	ASSERT_EQ(r.p.idx, next.idx);
	ASSERT_EQ(0, drack_ring_avail(&next));
	/* What the previous consumer left is released to the producer. */
	ASSERT_EQ(8, drack_ring_space(&r.p));
	free(r.mem);
}

/* ---- two threads: order, no loss, no lost doorbell ---- */

#define STRESS_N	1000000U
#define STRESS_SIZE	256U

struct stress {
	struct pair r;
	sem_t bell;		/* the producer's doorbells */
	u64 got, doorbells, waits;
	int err;		/* 1: out of order, 2: garbage, 3: lost bell */
};

static void *stress_producer(void *arg)
{
	struct stress *s = arg;
	u64 next = 0;
	int space, i;

	while (next < STRESS_N && !__atomic_load_n(&s->err, __ATOMIC_RELAXED)) {
		space = drack_ring_space(&s->r.p);
		if (space < 0) {
			__atomic_store_n(&s->err, 2, __ATOMIC_RELAXED);
			break;
		}
		if (!space) {
			sched_yield();
			continue;
		}
		/* Batches of 1..32 entries, one flush each. */
		space = space < (int)(1 + next % 32) ? space : (int)(1 + next % 32);
		for (i = 0; i < space && next < STRESS_N; i++)
			produce(&s->r.p, next++);
		if (drack_ring_flush(&s->r.p)) {
			s->doorbells++;
			sem_post(&s->bell);
		}
	}
	return NULL;
}

static void *stress_consumer(void *arg)
{
	struct stress *s = arg;
	struct timespec ts;
	int n, i;

	while (s->got < STRESS_N) {
		n = drack_ring_avail(&s->r.c);
		if (n < 0) {
			__atomic_store_n(&s->err, 2, __ATOMIC_RELAXED);
			break;
		}
		if (!n) {
			/* Going idle: entries that came meanwhile, or a bell. */
			if (drack_ring_arm(&s->r.c))
				continue;
			s->waits++;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 2;
			if (sem_timedwait(&s->bell, &ts)) {
				__atomic_store_n(&s->err, 3, __ATOMIC_RELAXED);
				break;
			}
			continue;
		}
		for (i = 0; i < n; i++) {
			if (peek(&s->r.c, i) != s->got + i) {
				__atomic_store_n(&s->err, 1, __ATOMIC_RELAXED);
				return NULL;
			}
		}
		s->got += n;
		drack_ring_consume(&s->r.c, n);
	}
	return NULL;
}

TEST(spsc_stress)
{
	struct timespec t0, t1;
	pthread_t prod, cons;
	struct stress s = { 0 };
	double secs;

	pair_init(&s.r, STRESS_SIZE);
	pair_start_at(&s.r, 0xfff80000U);	/* wraps halfway */
	sem_init(&s.bell, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, pthread_create(&cons, NULL, stress_consumer, &s));
	ASSERT_EQ(0, pthread_create(&prod, NULL, stress_producer, &s));
	pthread_join(prod, NULL);
	pthread_join(cons, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	TH_LOG("%u entries in %.2f s, %llu doorbells, %llu waits",
	       STRESS_N, secs, (unsigned long long)s.doorbells,
	       (unsigned long long)s.waits);
	ASSERT_EQ(0, s.err);
	ASSERT_EQ((u64)STRESS_N, s.got);
	ASSERT_EQ(s.r.p.idx, s.r.c.idx);
	ASSERT_LT(secs, 5.0);
	sem_destroy(&s.bell);
	free(s.r.mem);
}

TEST_HARNESS_MAIN
