// SPDX-License-Identifier: GPL-2.0-only
/*
 * corrupt: a malicious peer with raw access to a drack pool.
 *
 * Maps /dev/drack_pool0, checks the superblock against drack_layout(), then
 * plays host F, a host id nobody uses: marks it UP in the host table (as a
 * rogue kernel could) and writes references into the victim's
 * ref_queue[F] -- one good one as a control, then one per kind of bad
 * reference -- a garbage producer index, and bogus Buffer returns. The
 * victim must drop and count them all without crashing; the shell wrapper
 * (tests/net/corrupt.sh) compares the victim's ethtool counters with what
 * this program reports in $DRACK_CORRUPT_OUT ("key=value" lines, summed).
 *
 * Environment: DRACK_POOL_DEV (/dev/drack_pool0), DRACK_VICTIM (0),
 * DRACK_OTHER (1: a live host owning Sections), DRACK_CORRUPT_OUT,
 * DRACK_SETTLE_MS (3000: how long the victim may take to poll a ring).
 *
 * What breaks it: a receiver that accepts any of the bad references,
 * ignores rings of hosts without a netdev, never resyncs a ring with a
 * garbage producer index, or a superblock that disagrees with drack.h.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "uapi/drack.h"
#include "kselftest_harness.h"

#define NO_HOST 0xffffffffU

#include "corrupt-fixture.h"

/* Become host F: UP (not RUNNING, so no one sends to us), heartbeating. */
static int rogue_join(FIXTURE_DATA(pool) *self)
{
	struct drack_host_entry *he;

	if (self->rogue == NO_HOST)
		return -1;
	he = host(self, self->rogue);
	memcpy(&self->rogue_saved, he, sizeof(*he));
	drack_host_mac(he->mac, le32toh(self->sb.pool_id), self->rogue);
	he->flags = 0;
	he->generation = htole32(le32toh(he->generation) + 1);
	st32(&he->state, DRACK_HOST_UP);
	self->hb_arg.he = he;
	self->hb_arg.stop = false;
	if (pthread_create(&self->hb, NULL, heartbeat_fn, &self->hb_arg))
		return -1;
	self->rogue_up = true;
	report("rogue", self->rogue);
	return 0;
}

/*
 * Take a free Section for the rogue, as if the FM had granted it (2K).
 * The FM grants lowest ids first: take the highest to stay out of its way.
 */
static int rogue_hijack(FIXTURE_DATA(pool) *self)
{
	struct drack_section_entry *se;
	uint32_t s;

	for (s = self->g.section_count - 1; s >= self->g.meta_sections; s--)
		if (sect_owner(self, s) == DRACK_SECTION_FREE)
			break;
	if (s < self->g.meta_sections)
		return -1;
	se = sect(self, s);
	memcpy(&self->hijacked_saved, se, sizeof(*se));
	se->buf_class = DRACK_CLASS_2K;
	se->generation = htole32(le32toh(se->generation) + 1);
	__atomic_store_n((uint16_t *)&se->owner, htole16(self->rogue),
			 __ATOMIC_RELEASE);
	self->hijacked = s;
	return 0;
}

/* A sane 60-byte Ethernet frame to the victim in the rogue's Buffer @off. */
static void write_frame(FIXTURE_DATA(pool) *self, uint64_t off, uint32_t src)
{
	uint8_t *f = at(self, off);

	memset(f, 0, 60);
	memcpy(f, host(self, self->victim)->mac, 6);
	drack_host_mac(f + 6, le32toh(self->sb.pool_id), src);
	f[12] = 0x88;	/* local experimental ethertype: the stack drops it */
	f[13] = 0xb5;
	memcpy(f + 14, "drack corrupt.c control frame", 29);
}

static void set_ref(struct drack_ref *r, uint64_t off, uint32_t len,
		    uint32_t src)
{
	memset(r, 0, sizeof(*r));
	r->off = htole64(off);
	r->len = htole32(len);
	r->src = htole16(src);
}

/* Post one good reference and check the victim returns the Buffer to us. */
static bool post_good(FIXTURE_DATA(pool) *self,
		      struct __test_metadata *_metadata, unsigned int buf)
{
	struct ring r = ref_ring(self);
	struct ring ret = ret_ring(self, self->rogue, self->victim);
	uint64_t off = sect_off(self->hijacked) +
		       (uint64_t)buf * DRACK_CLASS_SIZE(DRACK_CLASS_2K);
	uint32_t prod = ld32(&r.hdr->prod);
	uint32_t ret_prod = ld32(&ret.hdr->prod);
	unsigned int waited;

	write_frame(self, off, self->rogue);
	set_ref(slot(&r, prod), off, 60, self->rogue);
	st32(&r.hdr->prod, prod + 1);
	if (!wait_consumed(self, &r)) {
		TH_LOG("victim never consumed a good ref (cons %u prod %u)",
		       ld32(&r.hdr->cons), ld32(&r.hdr->prod));
		return false;
	}
	report("good_refs", 1);
	/* The victim hands the Buffer back on ret_ring[victim] of the rogue. */
	for (waited = 0; waited <= self->settle_ms; waited += 10) {
		if (ld32(&ret.hdr->prod) != ret_prod)
			break;
		sleep_ms(10);
	}
	if (ld32(&ret.hdr->prod) - ret_prod != 1) {
		TH_LOG("good ref: %u returns instead of 1",
		       ld32(&ret.hdr->prod) - ret_prod);
		return false;
	}
	if (le64toh(((struct drack_ret *)slot(&ret, ret_prod))->off) != off) {
		TH_LOG("good ref: returned the wrong Buffer");
		return false;
	}
	/* consume it as the rogue would, so the ring never fills */
	st32(&ret.hdr->cons, ld32(&ret.hdr->prod));
	return true;
}

TEST_F(pool, superblock)
{
	struct drack_geometry calc;
	uint32_t s, h, n;

	EXPECT_EQ((uint32_t)DRACK_POOL_VERSION, le32toh(self->sb.version));
	EXPECT_EQ(sizeof(struct drack_superblock), le32toh(self->sb.sb_size));
	EXPECT_EQ((uint32_t)DRACK_SECTION_SHIFT, le32toh(self->sb.section_shift));
	EXPECT_EQ((uint64_t)0, self->size % DRACK_SECTION_SIZE);
	EXPECT_EQ(self->size >> DRACK_SECTION_SHIFT, self->g.section_count);
	EXPECT_LE(2U, self->g.max_hosts);
	for (n = 0; n < 3; n++) {
		uint32_t e = n == 0 ? self->g.ref_ring_entries :
			     n == 1 ? self->g.ret_ring_entries :
				      self->g.grant_ring_entries;
		EXPECT_NE(0U, e);
		EXPECT_EQ(0U, e & (e - 1)) TH_LOG("ring size %u not a power of two", e);
	}

	ASSERT_EQ(0, drack_layout(&calc, self->size, self->g.max_hosts,
				  self->g.ref_queues, self->g.ref_ring_entries,
				  self->g.ret_ring_entries,
				  self->g.grant_ring_entries));
	ASSERT_EQ(0, drack_layout_nics(&calc, le32toh(self->sb.max_nics),
				       le32toh(self->sb.vq_ring_entries)));
	EXPECT_EQ(calc.pool_size, self->g.pool_size);
	EXPECT_EQ(calc.section_count, self->g.section_count);
	EXPECT_EQ(calc.meta_sections, self->g.meta_sections);
	EXPECT_EQ(calc.host_table_off, self->g.host_table_off);
	EXPECT_EQ(calc.section_table_off, self->g.section_table_off);
	EXPECT_EQ(calc.host_area_off, self->g.host_area_off);
	EXPECT_EQ(calc.host_area_size, self->g.host_area_size);

	for (s = 0; s < self->g.section_count; s++) {
		uint16_t o = sect_owner(self, s);

		if (s < self->g.meta_sections) {
			EXPECT_EQ(DRACK_SECTION_META, o) TH_LOG("Section %u", s);
		} else if (o != DRACK_SECTION_FREE) {
			EXPECT_GT(self->g.max_hosts, o) TH_LOG("Section %u owner %u", s, o);
			EXPECT_GT(DRACK_NR_CLASSES, sect(self, s)->buf_class)
				TH_LOG("Section %u", s);
		}
	}
	for (h = 0; h < self->g.max_hosts; h++)
		EXPECT_GT((uint32_t)DRACK_HOST_NR_STATES, ld32(&host(self, h)->state))
			TH_LOG("host %u", h);
}

TEST_F(pool, host_table)
{
	uint32_t ids[2] = { self->victim, self->other }, i;
	uint8_t mac[6];

	for (i = 0; i < 2; i++) {
		struct drack_host_entry *he = host(self, ids[i]);

		EXPECT_EQ((uint32_t)DRACK_HOST_UP, ld32(&he->state)) TH_LOG("host %u", ids[i]);
		EXPECT_NE(0U, ld32(&he->flags) & DRACK_HOST_F_RUNNING)
			TH_LOG("host %u not RUNNING", ids[i]);
		drack_host_mac(mac, le32toh(self->sb.pool_id), ids[i]);
		EXPECT_EQ(0, memcmp(mac, he->mac, 6)) TH_LOG("host %u MAC", ids[i]);
	}
	/* A live host heartbeats (DRACK_HEARTBEAT_MS is 100). */
	{
		uint64_t hb = le64toh(host(self, self->victim)->heartbeat);

		sleep_ms(500);
		EXPECT_NE(hb, le64toh(host(self, self->victim)->heartbeat))
			TH_LOG("victim heartbeat does not move");
	}
	ASSERT_NE(NO_HOST, self->rogue) TH_LOG("no free host id to play the rogue");
}

/* Control: a correct reference from the rogue is delivered and returned. */
TEST_F(pool, good_ref)
{
	ASSERT_EQ(0, rogue_join(self));
	ASSERT_EQ(0, rogue_hijack(self)) TH_LOG("no free Section to hijack");
	EXPECT_TRUE(post_good(self, _metadata, 0));
}

TEST_F(pool, bad_refs)
{
	struct ring r, ret;
	struct drack_ref *ref;
	uint32_t prod, start, ret_prod, s_other, s_free, other_cls, n;
	uint64_t mine;

	ASSERT_EQ(0, rogue_join(self));
	ASSERT_EQ(0, rogue_hijack(self)) TH_LOG("no free Section to hijack");
	mine = sect_off(self->hijacked);
	s_other = find_section(self, self->other, NO_HOST);
	ASSERT_NE(NO_HOST, s_other) TH_LOG("host %u owns no Section", self->other);
	other_cls = sect_class_size(self, s_other);
	ASSERT_NE(0U, other_cls);
	s_free = find_section(self, DRACK_SECTION_FREE, self->hijacked);

	r = ref_ring(self);
	ret = ret_ring(self, self->rogue, self->victim);
	ret_prod = ld32(&ret.hdr->prod);
	ASSERT_TRUE(wait_consumed(self, &r));
	start = prod = ld32(&r.hdr->prod);
	/* Buffers 1.. of the hijacked Section hold sane frames. */
	for (n = 1; n < 16; n++)
		write_frame(self, mine + n * 2048ULL, self->rogue);

#define BAD(what, off_, len_, src_) do {				\
		ref = slot(&r, prod++);					\
		set_ref(ref, (off_), (len_), (src_));			\
		TH_LOG("bad ref %u: %s", prod - start, what);		\
	} while (0)

	BAD("offset beyond the pool", self->size + 2048, 60, self->rogue);
	BAD("offset at the last byte of u64", ~0ULL & ~2047ULL, 60, self->rogue);
	BAD("frame running past the pool end", self->size - 2048, 4096, self->rogue);
	BAD("offset in a metadata Section", self->g.host_table_off, 60, self->rogue);
	if (s_free != NO_HOST)
		BAD("offset in a FREE Section", sect_off(s_free), 60, self->rogue);
	BAD("offset in a Section of another host", sect_off(s_other), 60,
	    self->rogue);
	BAD("misaligned offset", mine + 2048 + 100, 60, self->rogue);
	BAD("len 0", mine + 2 * 2048, 0, self->rogue);
	BAD("len 13", mine + 3 * 2048, 13, self->rogue);
	BAD("len 70000", mine + 4 * 2048, 70000, self->rogue);
	BAD("len larger than the 2K class", mine + 5 * 2048, 3000, self->rogue);
	BAD("src field is not the ring's sender", sect_off(s_other) + other_cls,
	    60, self->other);
	BAD("virtio_net_hdr gso_type 0x7f", mine + 6 * 2048, 60, self->rogue);
	ref->vnet.gso_type = 0x7f;
	BAD("virtio_net_hdr csum_start past the frame", mine + 7 * 2048, 60,
	    self->rogue);
	ref->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	ref->vnet.csum_start = htole16(1000);
	ref->vnet.csum_offset = htole16(16);
#undef BAD
	st32(&r.hdr->prod, prod);
	report("bad_refs", prod - start);
	EXPECT_TRUE(wait_consumed(self, &r))
		TH_LOG("victim did not consume: cons %u prod %u",
		       ld32(&r.hdr->cons), prod);
	/*
	 * The victim may hand back a Buffer that really is the rogue's (a bad
	 * frame in a good Buffer), but nothing else: no foreign or misaligned
	 * offset may come back.
	 */
	sleep_ms(300);
	n = ld32(&ret.hdr->prod) - ret_prod;
	TH_LOG("victim handed back %u of the bad refs' Buffers", n);
	EXPECT_GE(prod - start, n);
	for (; n && n <= prod - start; n--, ret_prod++) {
		uint64_t off = le64toh(((struct drack_ret *)slot(&ret, ret_prod))->off);

		EXPECT_EQ(mine, off & ~((uint64_t)DRACK_SECTION_SIZE - 1))
			TH_LOG("returned 0x%llx: not the rogue's", (unsigned long long)off);
		EXPECT_EQ(0U, off & 2047) TH_LOG("returned misaligned 0x%llx",
						 (unsigned long long)off);
	}
	st32(&ret.hdr->cons, ld32(&ret.hdr->prod));
	/* ... and the ring still works afterwards. */
	EXPECT_TRUE(post_good(self, _metadata, 8));
}

TEST_F(pool, bad_prod)
{
	struct ring r;
	uint32_t cons;

	ASSERT_EQ(0, rogue_join(self));
	ASSERT_EQ(0, rogue_hijack(self)) TH_LOG("no free Section to hijack");
	r = ref_ring(self);
	ASSERT_TRUE(wait_consumed(self, &r));
	cons = ld32(&r.hdr->cons);
	st32(&r.hdr->prod, cons + 100000);
	report("bad_rings", 1);
	EXPECT_TRUE(wait_consumed(self, &r))
		TH_LOG("ring not resynced: cons %u prod %u", ld32(&r.hdr->cons),
		       ld32(&r.hdr->prod));
	/* the resynced ring carries traffic again */
	EXPECT_TRUE(post_good(self, _metadata, 9));
}

TEST_F(pool, bogus_return)
{
	struct ring r;
	uint32_t prod, start, s_victim;

	ASSERT_EQ(0, rogue_join(self));
	s_victim = find_section(self, self->victim, NO_HOST);
	ASSERT_NE(NO_HOST, s_victim) TH_LOG("victim owns no Section");
	r = ret_ring(self, self->victim, self->rogue);
	ASSERT_TRUE(wait_consumed(self, &r));
	start = prod = ld32(&r.hdr->prod);
	/* a real Buffer of the victim, never lent to the rogue */
	((struct drack_ret *)slot(&r, prod++))->off =
		htole64(sect_off(s_victim) + sect_class_size(self, s_victim));
	((struct drack_ret *)slot(&r, prod++))->off = htole64(self->size + 4096);
	((struct drack_ret *)slot(&r, prod++))->off = htole64(self->g.host_table_off);
	((struct drack_ret *)slot(&r, prod++))->off = htole64(sect_off(s_victim) + 1);
	st32(&r.hdr->prod, prod);
	report("bad_rets", prod - start);
	EXPECT_TRUE(wait_consumed(self, &r))
		TH_LOG("returns not consumed: cons %u prod %u",
		       ld32(&r.hdr->cons), prod);
}

TEST_HARNESS_MAIN
