// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile: a host that plays by none of the pool's rules.
 *
 * Maps /dev/drack_poolN (a ram pool shared by every emulated host of the
 * kernel, the way a rogue kernel sees a CXL pool), takes the first free
 * host id F and attacks the live hosts while they carry traffic:
 *
 *   refs      random descriptors into every victim's ref_queue[F]
 *   returns   garbage Buffer offsets into every victim's return ring from F
 *   grants    forged grants (no such Section, meta, others', wrong
 *             generation) into every victim's grant ring
 *   sections  garbage owners, classes and flags on free Section entries
 *   states    F's host entry flipped through every state and garbage
 *   nics      fake NIC entries flipping in the free NIC slots, and F's
 *             virt_queue control lines claiming victims' vNIC and host
 *             MACs and broadcast, with garbage multicast filters
 *   stall     F up and running (peers send to it) but never consuming
 *   hoard     F consuming its ref_queues but never handing a Buffer back
 *   oversize  references longer than their Buffer, and than any frame,
 *             in a Section F takes for itself
 *
 *   hostile [-d DEV] [-n COUNT] [-t SECONDS] [-r RATE] [-x HOSTS] ATTACK...
 *
 * -n: descriptors for refs/returns/grants/oversize (default 1000000);
 * -t: seconds for the flipping attacks and stall/hoard (default 5);
 * -r: at most RATE descriptors a second (default 200000), so the attack
 *     costs the victims' CPUs what a hostile peer could, not what this
 *     process could; -x: host ids never touched (default none).
 * Prints key=value lines (rogue, refs, returns, grants, ...): what was
 * written, which tests/net/hostile.sh compares with the victims'
 * counters. Everything F took is put back on exit (host entry, Sections,
 * NIC entries). Exit 0 once done, 2 on usage or mapping errors.
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
#include <time.h>
#include <unistd.h>

#include "uapi/drack.h"

#define NO_HOST	0xffffffffU

struct ring {
	struct drack_ring_hdr *hdr;
	uint8_t *ent;
	uint32_t size, esize;
};

static struct {
	uint8_t *base;
	uint64_t size;
	struct drack_geometry g;
	uint32_t pool_id, rogue;
	uint64_t spare;			/* hosts never touched (-x) */
	unsigned long count, seconds, rate;
	struct drack_host_entry saved_host;
	volatile bool stop_hb;
	uint32_t taken;			/* Section F took, or NO_HOST */
	struct drack_section_entry saved_taken;
	uint64_t seed;
} P = { .count = 1000000, .seconds = 5, .rate = 200000, .taken = NO_HOST };

static uint64_t rnd(void)	/* xorshift64*: fast, reproducible */
{
	P.seed ^= P.seed >> 12;
	P.seed ^= P.seed << 25;
	P.seed ^= P.seed >> 27;
	return P.seed * 0x2545f4914f6cdd1dULL;
}

static void sleep_us(unsigned long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t ld32(const __le32 *p)
{
	return le32toh(__atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE));
}

static void st32(__le32 *p, uint32_t v)
{
	__atomic_store_n((uint32_t *)p, htole32(v), __ATOMIC_RELEASE);
}

static void *at(uint64_t off)
{
	return P.base + off;
}

static struct drack_host_entry *host(uint32_t h)
{
	return at(drack_host_entry_off(&P.g, h));
}

static struct drack_section_entry *sect(uint32_t s)
{
	return at(drack_section_entry_off(&P.g, s));
}

static struct ring ring_at(uint64_t off, uint32_t size, uint32_t esize)
{
	struct ring r = { at(off), (uint8_t *)at(off) + sizeof(*r.hdr),
			  size, esize };
	return r;
}

static void *slot(struct ring *r, uint32_t idx)
{
	return r->ent + (size_t)(idx & (r->size - 1)) * r->esize;
}

/* Victims: live hosts other than F and the spared ones. */
static bool victim(uint32_t h)
{
	uint32_t s;

	if (h == P.rogue || (P.spare & (1ULL << h)))
		return false;
	s = ld32(&host(h)->state);
	return s == DRACK_HOST_UP;
}

/*
 * Pace the attack: at most P.rate items a second since @t0, and give the
 * victims a chance to consume what is queued.
 */
static void pace(unsigned long done, double t0)
{
	double ahead = done / (double)P.rate - (now() - t0);

	if (ahead > 0)
		sleep_us((unsigned long)(ahead * 1e6));
}

/*
 * Post up to @n entries from @fill on @r, as room allows, until
 * @deadline. Returns how many were posted.
 */
static unsigned long post(struct ring *r, unsigned long n,
			  void (*fill)(void *ent, uint32_t h), uint32_t h,
			  unsigned long *done, double t0, double deadline)
{
	unsigned long posted = 0;
	uint32_t prod, cons, room;

	while (posted < n && now() < deadline) {
		prod = ld32(&r->hdr->prod);
		cons = ld32(&r->hdr->cons);
		room = r->size - (prod - cons);
		if (prod - cons > r->size || !room) {
			sleep_us(1000);	/* the victim is not reading */
			continue;
		}
		if (room > n - posted)
			room = n - posted;
		if (room > 64)
			room = 64;
		for (uint32_t i = 0; i < room; i++)
			fill(slot(r, prod + i), h);
		st32(&r->hdr->prod, prod + room);
		posted += room;
		*done += room;
		pace(*done, t0);
	}
	return posted;
}

/* Anything but a Buffer of F: F owns no Section (refs, returns). */
static uint64_t bad_off(void)
{
	switch (rnd() % 4) {
	case 0:
		return rnd();				/* anywhere */
	case 1:
		return rnd() % P.size;			/* in the pool */
	case 2:
		return rnd() % ((uint64_t)P.g.meta_sections <<
				DRACK_SECTION_SHIFT);	/* metadata */
	default:
		return P.size - (rnd() % 4096);		/* straddling the end */
	}
}

static void fill_ref(void *ent, uint32_t h)
{
	struct drack_ref *r = ent;
	uint8_t *b = ent;

	(void)h;
	for (size_t i = 0; i < sizeof(*r); i++)
		b[i] = (uint8_t)rnd();
	r->off = htole64(bad_off());
	if (rnd() & 1)
		r->src = htole16(P.rogue);
	if (rnd() & 1)
		r->len = htole32(rnd() % 2000);
}

static void fill_ret(void *ent, uint32_t h)
{
	(void)h;
	((struct drack_ret *)ent)->off = htole64(bad_off());
}

/* A grant no victim may take: no such Section, metadata, or not its own. */
static void fill_grant(void *ent, uint32_t h)
{
	struct drack_grant *g = ent;
	uint32_t s;

	switch (rnd() % 3) {
	case 0:
		s = P.g.section_count + (uint32_t)(rnd() % 1000);
		break;
	case 1:
		s = (uint32_t)(rnd() % P.g.meta_sections);
		break;
	default:
		do {
			s = P.g.meta_sections + (uint32_t)(rnd() %
				(P.g.section_count - P.g.meta_sections));
		} while (le16toh(sect(s)->owner) == h);
	}
	g->section = htole32(s);
	g->generation = htole32((uint32_t)rnd());
}

/* Entries a victim has not consumed yet, on every ring @what uses. */
static unsigned long unread(const char *what)
{
	unsigned long left = 0;
	uint64_t off;
	uint32_t h, q;

	for (h = 0; h < P.g.max_hosts; h++) {
		if (!victim(h))
			continue;
		for (q = 0; q < P.g.ref_queues; q++) {
			off = !strcmp(what, "refs") ?
			      drack_ref_ring_off(&P.g, h, P.rogue, q) :
			      !strcmp(what, "returns") ?
			      drack_ret_ring_off(&P.g, h, P.rogue) :
			      drack_grant_ring_off(&P.g, h);
			struct ring r = ring_at(off, 1, 1);

			left += ld32(&r.hdr->prod) - ld32(&r.hdr->cons);
			if (strcmp(what, "refs"))
				break;	/* one ring of those per host */
		}
	}
	return left;
}

/*
 * One kind of descriptor into every victim's ring of that kind: -n in
 * all, for at most -t seconds (a victim may decline to read them).
 */
static unsigned long flood(const char *what)
{
	unsigned long done = 0, per, n = 0;
	double t0 = now();
	uint32_t h, nv = 0, i = 0;
	struct ring r;

	for (h = 0; h < P.g.max_hosts; h++)
		nv += victim(h);
	if (!nv)
		return 0;
	per = P.count / nv;
	for (h = 0; h < P.g.max_hosts; h++) {
		if (!victim(h))
			continue;
		if (!strcmp(what, "refs")) {
			r = ring_at(drack_ref_ring_off(&P.g, h, P.rogue, 0),
				    P.g.ref_ring_entries, sizeof(struct drack_ref));
			n += post(&r, per, fill_ref, h, &done, t0,
				  t0 + (double)P.seconds * ++i / nv);
		} else if (!strcmp(what, "returns")) {
			r = ring_at(drack_ret_ring_off(&P.g, h, P.rogue),
				    P.g.ret_ring_entries, sizeof(struct drack_ret));
			n += post(&r, per, fill_ret, h, &done, t0,
				  t0 + (double)P.seconds * ++i / nv);
		} else {
			r = ring_at(drack_grant_ring_off(&P.g, h),
				    P.g.grant_ring_entries,
				    sizeof(struct drack_grant));
			n += post(&r, per, fill_grant, h, &done, t0,
				  t0 + (double)P.seconds * ++i / nv);
		}
	}
	return n;
}

#include "hostile-tables.h"

/*
 * stall: never consume. hoard: consume, never return. Either way F is
 * running, so peers send it their broadcasts.
 */
static unsigned long misbehave(bool consume)
{
	struct drack_host_entry *he = host(P.rogue);
	unsigned long taken = 0;
	double t0 = now();
	struct ring r;
	uint32_t h, p, q;

	st32(&he->flags, DRACK_HOST_F_RUNNING);
	while (now() - t0 < P.seconds) {
		for (h = 0; consume && h < P.g.max_hosts; h++) {
			if (h == P.rogue)
				continue;
			for (q = 0; q < P.g.ref_queues; q++) {
				r = ring_at(drack_ref_ring_off(&P.g, P.rogue,
							       h, q),
					    P.g.ref_ring_entries,
					    sizeof(struct drack_ref));
				p = ld32(&r.hdr->prod);
				taken += p - ld32(&r.hdr->cons);
				st32(&r.hdr->cons, p);
			}
		}
		sleep_us(10000);
	}
	st32(&he->flags, 0);
	return taken;
}

/* Frames longer than their Buffer, or than any frame, in F's own Section. */
static unsigned long oversize(void)
{
	unsigned long done = 0, n = 0, left;
	double t0 = now();
	uint32_t s, h;
	struct ring r;

	for (s = P.g.section_count - 1; s >= P.g.meta_sections; s--)
		if (le16toh(sect(s)->owner) == DRACK_SECTION_FREE)
			break;
	if (s < P.g.meta_sections)
		return 0;
	P.taken = s;
	P.saved_taken = *sect(s);
	sect(s)->buf_class = DRACK_CLASS_2K;
	sect(s)->generation = htole32(le32toh(sect(s)->generation) + 1);
	__atomic_store_n((uint16_t *)&sect(s)->owner, htole16(P.rogue),
			 __ATOMIC_RELEASE);
	for (h = 0; h < P.g.max_hosts; h++) {
		struct drack_ref ref;

		if (!victim(h))
			continue;
		r = ring_at(drack_ref_ring_off(&P.g, h, P.rogue, 0),
			    P.g.ref_ring_entries, sizeof(struct drack_ref));
		for (unsigned long i = 0; i < P.count / 100; i++) {
			uint32_t prod = ld32(&r.hdr->prod);
			static const uint32_t lens[] = {
				DRACK_CLASS_SIZE(DRACK_CLASS_2K) + 1,
				DRACK_MAX_FRAME + 1, 0xffffffffU, 1U << 31,
			};

			if (prod - ld32(&r.hdr->cons) >= r.size) {
				sleep_us(1000);
				if (prod - ld32(&r.hdr->cons) >= r.size)
					break;
			}
			memset(&ref, 0, sizeof(ref));
			ref.off = htole64(((uint64_t)s << DRACK_SECTION_SHIFT) +
					  (rnd() % 1024) *
					  DRACK_CLASS_SIZE(DRACK_CLASS_2K));
			ref.len = htole32(lens[rnd() % 4]);
			ref.src = htole16(P.rogue);
			memcpy(slot(&r, prod), &ref, sizeof(ref));
			st32(&r.hdr->prod, prod + 1);
			n++;
			pace(++done, t0);
		}
	}
	/* Give the victims time to look before the Section goes back. */
	sleep_us(1000000);
	left = 0;
	for (h = 0; h < P.g.max_hosts; h++) {
		if (!victim(h))
			continue;
		r = ring_at(drack_ref_ring_off(&P.g, h, P.rogue, 0), 1, 1);
		left += ld32(&r.hdr->prod) - ld32(&r.hdr->cons);
	}
	printf("oversize_unread=%lu\n", left);
	return n;
}

static void *heartbeat(void *arg)
{
	struct drack_host_entry *he = arg;

	while (!P.stop_hb) {
		uint64_t hb = le64toh(he->heartbeat);

		__atomic_store_n((uint64_t *)&he->heartbeat, htole64(hb + 1),
				 __ATOMIC_RELEASE);
		sleep_us(20000);
	}
	return NULL;
}

static int map_pool(const char *dev)
{
	struct drack_superblock sb;
	int fd = open(dev, O_RDWR | O_CLOEXEC);

	if (fd < 0 || pread(fd, &sb, sizeof(sb), 0) != sizeof(sb)) {
		/* /dev/drack_pool has no read(): map the first page */
		void *p = fd < 0 ? MAP_FAILED :
			  mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

		if (p == MAP_FAILED) {
			fprintf(stderr, "hostile: %s: %s\n", dev, strerror(errno));
			return -1;
		}
		memcpy(&sb, p, sizeof(sb));
		munmap(p, 4096);
	}
	if (le64toh(sb.magic) != DRACK_POOL_MAGIC) {
		fprintf(stderr, "hostile: %s: not a drack pool\n", dev);
		return -1;
	}
	P.size = le64toh(sb.pool_size);
	P.pool_id = le32toh(sb.pool_id);
	P.g.pool_size = P.size;
	P.g.section_count = le32toh(sb.section_count);
	P.g.meta_sections = le32toh(sb.meta_sections);
	P.g.max_hosts = le32toh(sb.max_hosts);
	P.g.ref_queues = le32toh(sb.version) >= 3 ? le32toh(sb.ref_queues) : 1;
	P.g.ref_ring_entries = le32toh(sb.ref_ring_entries);
	P.g.ret_ring_entries = le32toh(sb.ret_ring_entries);
	P.g.grant_ring_entries = le32toh(sb.grant_ring_entries);
	P.g.host_table_off = le64toh(sb.host_table_off);
	P.g.section_table_off = le64toh(sb.section_table_off);
	P.g.host_area_off = le64toh(sb.host_area_off);
	P.g.host_area_size = le64toh(sb.host_area_size);
	P.g.max_nics = le32toh(sb.max_nics);
	P.g.vq_ring_entries = le32toh(sb.vq_ring_entries);
	P.g.nic_table_off = le64toh(sb.nic_table_off);
	P.g.nic_area_off = le64toh(sb.nic_area_off);
	P.g.nic_area_size = le64toh(sb.nic_area_size);
	if (P.g.max_hosts > DRACK_MAX_HOSTS || P.g.max_nics > DRACK_MAX_NICS ||
	    P.g.meta_sections >= P.g.section_count ||
	    P.size != (uint64_t)P.g.section_count << DRACK_SECTION_SHIFT) {
		fprintf(stderr, "hostile: %s: a geometry this tool will not use\n",
			dev);
		return -1;
	}
	P.base = mmap(NULL, P.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (P.base == MAP_FAILED) {
		fprintf(stderr, "hostile: mmap %s: %s\n", dev, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hostile [-d DEV] [-n COUNT] [-t SECONDS] [-r RATE] [-x HOST,...] ATTACK...\n"
		"attacks: refs returns grants sections states nics stall hoard oversize\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/drack_pool0";
	struct drack_host_entry *he;
	pthread_t hb;
	uint32_t h;
	char *tok;
	int opt;

	P.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((opt = getopt(argc, argv, "d:n:t:r:x:s:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'n': P.count = strtoul(optarg, NULL, 0); break;
		case 't': P.seconds = strtoul(optarg, NULL, 0); break;
		case 'r': P.rate = strtoul(optarg, NULL, 0); break;
		case 's': P.seed = strtoull(optarg, NULL, 0); break;
		case 'x':
			for (tok = strtok(optarg, ","); tok; tok = strtok(NULL, ","))
				if (strtoul(tok, NULL, 0) < 64)
					P.spare |= 1ULL << strtoul(tok, NULL, 0);
			break;
		default: usage();
		}
	}
	if (optind >= argc || !P.rate || !P.seed)
		usage();
	if (map_pool(dev))
		return 2;
	printf("seed=%llu\n", (unsigned long long)P.seed);

	P.rogue = NO_HOST;
	for (h = 0; h < P.g.max_hosts && P.rogue == NO_HOST; h++)
		if (!(P.spare & (1ULL << h)) &&
		    ld32(&host(h)->state) == DRACK_HOST_FREE)
			P.rogue = h;
	if (P.rogue == NO_HOST) {
		fprintf(stderr, "hostile: no free host id to play\n");
		return 2;
	}
	he = host(P.rogue);
	P.saved_host = *he;
	drack_host_mac(he->mac, P.pool_id, P.rogue);
	he->flags = 0;
	he->generation = htole32(le32toh(he->generation) + 1);
	st32(&he->state, DRACK_HOST_UP);
	if (pthread_create(&hb, NULL, heartbeat, he))
		return 2;
	printf("rogue=%u\n", P.rogue);
	fflush(stdout);		/* hostile.sh reads it while we attack */
	sleep_us(300000);	/* the victims see F up */

	for (int i = optind; i < argc; i++) {
		const char *a = argv[i];
		unsigned long n;

		if (!strcmp(a, "refs") || !strcmp(a, "returns") ||
		    !strcmp(a, "grants"))
			n = flood(a);
		else if (!strcmp(a, "sections"))
			n = forge_sections();
		else if (!strcmp(a, "states"))
			n = flip_states();
		else if (!strcmp(a, "nics"))
			n = fake_nics();
		else if (!strcmp(a, "stall"))
			n = misbehave(false);
		else if (!strcmp(a, "hoard"))
			n = misbehave(true);
		else if (!strcmp(a, "oversize"))
			n = oversize();
		else
			usage();
		printf("%s=%lu\n", a, n);
		if (!strcmp(a, "refs") || !strcmp(a, "returns") ||
		    !strcmp(a, "grants"))
			printf("%s_unread=%lu\n", a, unread(a));
		fflush(stdout);
	}

	/* Put back what F took: it leaves as a dead host would. */
	P.stop_hb = true;
	pthread_join(hb, NULL);
	if (P.taken != NO_HOST) {
		*sect(P.taken) = P.saved_taken;
		__atomic_store_n((uint16_t *)&sect(P.taken)->owner,
				 htole16(DRACK_SECTION_FREE), __ATOMIC_RELEASE);
	}
	memcpy(he, &P.saved_host, sizeof(*he));
	st32(&he->state, DRACK_HOST_FREE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}
