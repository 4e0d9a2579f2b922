/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * corrupt-fixture.h: the corrupt test's raw view of a drack pool -- the
 * fixture that maps /dev/drack_poolN and plays the rogue host F, its
 * heartbeat thread, and accessors for host/Section entries and rings.
 * Included once, by corrupt.c.
 */

static unsigned long env_ul(const char *name, unsigned long def)
{
	const char *s = getenv(name);

	return s && *s ? strtoul(s, NULL, 0) : def;
}

static void report(const char *key, unsigned long val)
{
	const char *path = getenv("DRACK_CORRUPT_OUT");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%s=%lu\n", key, val);
	fclose(f);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static uint32_t ld32(const __le32 *p)
{
	return le32toh(__atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE));
}

static void st32(__le32 *p, uint32_t v)
{
	__atomic_store_n((uint32_t *)p, htole32(v), __ATOMIC_RELEASE);
}

struct hb_arg {
	struct drack_host_entry *he;
	volatile bool stop;
};

/* Keep the rogue host looking alive so no one fences it mid-test. */
static void *heartbeat_fn(void *p)
{
	struct hb_arg *a = p;

	while (!a->stop) {
		uint64_t hb = le64toh(a->he->heartbeat);

		__atomic_store_n((uint64_t *)&a->he->heartbeat, htole64(hb + 1),
				 __ATOMIC_RELEASE);
		sleep_ms(20);
	}
	return NULL;
}

FIXTURE(pool)
{
	int fd;
	uint8_t *base;
	uint64_t size;
	struct drack_superblock sb;
	struct drack_geometry g;	/* from the superblock */
	uint32_t victim, other, rogue;
	struct drack_host_entry rogue_saved;
	bool rogue_up;
	pthread_t hb;
	struct hb_arg hb_arg;
	uint32_t hijacked;		/* Section given to the rogue, or NO_HOST */
	struct drack_section_entry hijacked_saved;
	unsigned int settle_ms;
};

static void *at(FIXTURE_DATA(pool) *self, uint64_t off)
{
	return self->base + off;
}

static struct drack_host_entry *host(FIXTURE_DATA(pool) *self, uint32_t h)
{
	return at(self, drack_host_entry_off(&self->g, h));
}

static struct drack_section_entry *sect(FIXTURE_DATA(pool) *self, uint32_t s)
{
	return at(self, drack_section_entry_off(&self->g, s));
}

static uint16_t sect_owner(FIXTURE_DATA(pool) *self, uint32_t s)
{
	return le16toh(__atomic_load_n((uint16_t *)&sect(self, s)->owner,
				       __ATOMIC_ACQUIRE));
}

/* First data Section owned by @owner (skipping @skip), or NO_HOST. */
static uint32_t find_section(FIXTURE_DATA(pool) *self, uint16_t owner,
			     uint32_t skip)
{
	uint32_t s;

	for (s = self->g.meta_sections; s < self->g.section_count; s++)
		if (s != skip && sect_owner(self, s) == owner)
			return s;
	return NO_HOST;
}

static uint64_t sect_off(uint32_t s)
{
	return (uint64_t)s << DRACK_SECTION_SHIFT;
}

static uint32_t sect_class_size(FIXTURE_DATA(pool) *self, uint32_t s)
{
	uint8_t c = sect(self, s)->buf_class;

	return c < DRACK_NR_CLASSES ? DRACK_CLASS_SIZE(c) : 0;
}

struct ring {
	struct drack_ring_hdr *hdr;
	uint8_t *ent;
	uint32_t size, esize;
};

static struct ring ring_at(FIXTURE_DATA(pool) *self, uint64_t off,
			   uint32_t size, uint32_t esize)
{
	struct ring r = {
		.hdr = at(self, off),
		.ent = (uint8_t *)at(self, off) + sizeof(struct drack_ring_hdr),
		.size = size,
		.esize = esize,
	};
	return r;
}

static struct ring ref_ring(FIXTURE_DATA(pool) *self)
{
	return ring_at(self, drack_ref_ring_off(&self->g, self->victim,
						self->rogue, 0),
		       self->g.ref_ring_entries, sizeof(struct drack_ref));
}

static struct ring ret_ring(FIXTURE_DATA(pool) *self, uint32_t owner,
			    uint32_t from)
{
	return ring_at(self, drack_ret_ring_off(&self->g, owner, from),
		       self->g.ret_ring_entries, sizeof(struct drack_ret));
}

static void *slot(struct ring *r, uint32_t idx)
{
	return r->ent + (size_t)(idx & (r->size - 1)) * r->esize;
}

/* Wait until the consumer caught up with the producer. */
static bool wait_consumed(FIXTURE_DATA(pool) *self, struct ring *r)
{
	unsigned int waited;

	for (waited = 0; waited <= self->settle_ms; waited += 10) {
		if (ld32(&r->hdr->cons) == ld32(&r->hdr->prod))
			return true;
		sleep_ms(10);
	}
	return false;
}

FIXTURE_SETUP(pool)
{
	const char *dev = getenv("DRACK_POOL_DEV") ?: "/dev/drack_pool0";
	struct drack_superblock *sb;
	uint32_t h;

	self->rogue = NO_HOST;
	self->hijacked = NO_HOST;
	self->rogue_up = false;
	self->victim = env_ul("DRACK_VICTIM", 0);
	self->other = env_ul("DRACK_OTHER", 1);
	self->settle_ms = env_ul("DRACK_SETTLE_MS", 3000);

	self->fd = open(dev, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", dev, strerror(errno));
	sb = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, sb) TH_LOG("mmap superblock: %s", strerror(errno));
	memcpy(&self->sb, sb, sizeof(self->sb));
	munmap(sb, 4096);
	ASSERT_EQ(DRACK_POOL_MAGIC, le64toh(self->sb.magic));
	self->size = le64toh(self->sb.pool_size);
	ASSERT_LE(DRACK_MIN_POOL_SIZE, self->size);
	self->base = mmap(NULL, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			  self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->base)
		TH_LOG("mmap %llu bytes: %s", (unsigned long long)self->size,
		       strerror(errno));

	self->g.pool_size = self->size;
	self->g.section_count = le32toh(self->sb.section_count);
	self->g.meta_sections = le32toh(self->sb.meta_sections);
	self->g.max_hosts = le32toh(self->sb.max_hosts);
	self->g.ref_queues = le32toh(self->sb.version) >= 3 ?
			     le32toh(self->sb.ref_queues) : 1;
	self->g.ref_ring_entries = le32toh(self->sb.ref_ring_entries);
	self->g.ret_ring_entries = le32toh(self->sb.ret_ring_entries);
	self->g.grant_ring_entries = le32toh(self->sb.grant_ring_entries);
	self->g.host_table_off = le64toh(self->sb.host_table_off);
	self->g.section_table_off = le64toh(self->sb.section_table_off);
	self->g.host_area_off = le64toh(self->sb.host_area_off);
	self->g.host_area_size = le64toh(self->sb.host_area_size);
	ASSERT_GE((uint32_t)DRACK_MAX_HOSTS, self->g.max_hosts);
	ASSERT_GT(self->g.max_hosts, self->victim);
	ASSERT_GT(self->g.max_hosts, self->other);
	ASSERT_GE(self->g.section_count, self->g.meta_sections);
	ASSERT_EQ(self->size, (uint64_t)self->g.section_count << DRACK_SECTION_SHIFT);
	/* ring offsets are computed from these: refuse nonsense early */
	ASSERT_GE(self->size, self->g.host_area_off +
		  (uint64_t)self->g.max_hosts * self->g.host_area_size);

	/* The rogue: the first unused host id. */
	for (h = 0; h < self->g.max_hosts; h++) {
		if (h == self->victim || h == self->other)
			continue;
		if (ld32(&host(self, h)->state) == DRACK_HOST_FREE) {
			self->rogue = h;
			break;
		}
	}
}

FIXTURE_TEARDOWN(pool)
{
	if (self->rogue_up) {
		struct drack_host_entry *he = host(self, self->rogue);

		self->hb_arg.stop = true;
		pthread_join(self->hb, NULL);
		memcpy(he, &self->rogue_saved, sizeof(*he));
		st32(&he->state, DRACK_HOST_FREE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		self->rogue_up = false;
	}
	if (self->hijacked != NO_HOST) {
		struct drack_section_entry *se = sect(self, self->hijacked);

		if (sect_owner(self, self->hijacked) == self->rogue) {
			memcpy(se, &self->hijacked_saved, sizeof(*se));
			__atomic_store_n((uint16_t *)&se->owner,
					 htole16(DRACK_SECTION_FREE),
					 __ATOMIC_RELEASE);
		}
		self->hijacked = NO_HOST;
	}
	if (self->base && self->base != MAP_FAILED)
		munmap(self->base, self->size);
	if (self->fd >= 0)
		close(self->fd);
}
