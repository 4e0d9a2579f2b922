// SPDX-License-Identifier: GPL-2.0-only
/*
 * A host's Buffer allocator: one LIFO free stack per size class, fed by
 * the Sections the fabric manager grants, and a lent-to record per Buffer.
 */
#ifdef __KERNEL__
#include <linux/slab.h>
#endif
#include "buffer.h"

/* Ask for another Section when a class falls below this many Buffers. */
static const u32 drack_low_water[DRACK_NR_CLASSES] = { 256, 16 };

int drack_alloc_init(struct drack_alloc *a, struct drack_pool *pool, u32 host)
{
	u32 data = pool->geo.section_count - pool->geo.meta_sections;
	u32 c;

	if (pool->geo.pool_size > DRACK_BUF_MAX_POOL)
		return -EINVAL;
	spin_lock_init(&a->lock);
	a->pool = pool;
	a->host = host;
	memset(a->peer_cap, 0, sizeof(a->peer_cap));
	memset(a->peer_lent, 0, sizeof(a->peer_lent));
	a->sec = kvcalloc(pool->geo.section_count, sizeof(*a->sec),
			  GFP_KERNEL);
	if (!a->sec)
		return -ENOMEM;
	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		struct drack_class_alloc *ca = &a->cls[c];

		ca->half_at = U32_MAX;	/* until drack_alloc_set_ref_hold() */
		ca->cap = data * (DRACK_SECTION_SIZE >> DRACK_CLASS_SHIFT(c));
		ca->free = kvmalloc_array(ca->cap, sizeof(*ca->free),
					  GFP_KERNEL);
		if (!ca->free) {
			drack_alloc_free(a);
			return -ENOMEM;
		}
	}
	return 0;
}

void drack_alloc_free(struct drack_alloc *a)
{
	u32 c, s;

	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		kvfree(a->cls[c].free);
		a->cls[c].free = NULL;
	}
	if (a->sec) {
		for (s = 0; s < a->pool->geo.section_count; s++)
			kvfree(a->sec[s]);
		kvfree(a->sec);
		a->sec = NULL;
	}
}

static struct drack_section_state *drack_buf_section(struct drack_alloc *a,
						     u64 off, u32 *index)
{
	struct drack_section_state *s;
	u64 section = off >> DRACK_SECTION_SHIFT;
	u32 shift;

	if (section >= a->pool->geo.section_count)
		return NULL;
	s = a->sec[section];
	if (!s)
		return NULL;
	shift = DRACK_CLASS_SHIFT(s->buf_class);
	if (off & ((1ULL << shift) - 1))
		return NULL;
	*index = (off & (DRACK_SECTION_SIZE - 1)) >> shift;
	return s;
}

/*
 * One peer lent this many of the class holds half of the Buffers in
 * Sections not being drained (what lend_sections tells the peers), while
 * the class is below half_grow; never, above it. Recounts the peers at
 * or past it: rare, at grants, drains, release and the tick. a->lock held.
 */
static void drack_class_set_half(struct drack_alloc *a, u32 c)
{
	struct drack_class_alloc *ca = &a->cls[c];
	u32 usable = ca->total - ca->draining *
				 (DRACK_SECTION_SIZE >> DRACK_CLASS_SHIFT(c));
	u32 p, n = 0;

	ca->half_at = usable && usable < a->half_grow[c] ? (usable + 1) / 2 :
							      U32_MAX;
	if (ca->half_at != U32_MAX)
		for (p = 0; p < DRACK_MAX_HOSTS; p++)
			n += a->peer_lent[c][p] >= ca->half_at;
	ca->half_peers = n;
	WRITE_ONCE(ca->half_lent, n > 0);
}

static void drack_buf_push(struct drack_alloc *a, struct drack_section_state *s,
			   u32 index, u64 off)
{
	struct drack_class_alloc *ca = &a->cls[s->buf_class];
	u32 peer = s->lent_to[index];

	/* Below half again; the class is half lent while any other is. */
	if (peer < DRACK_MAX_HOSTS &&
	    a->peer_lent[s->buf_class][peer]-- == ca->half_at &&
	    !--ca->half_peers)
		WRITE_ONCE(ca->half_lent, false);
	s->lent_to[index] = DRACK_NOT_LENT;
	s->nlent--;
	if (s->draining)
		ca->parked++;
	else
		ca->free[ca->nfree++] = drack_buf_pack(off);
}

void drack_alloc_set_peer_cap(struct drack_alloc *a, u64 bytes)
{
	u64 n;
	u32 c;

	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		n = bytes >> DRACK_CLASS_SHIFT(c);
		if (bytes && !n)
			n = 1;		/* a cap below one Buffer still lends one */
		if (n > 0xffffffffULL)
			n = 0xffffffffULL;
		WRITE_ONCE(a->peer_cap[c], (u32)n);
	}
}

void drack_alloc_set_ref_hold(struct drack_alloc *a, u64 bytes, u32 bufs)
{
	unsigned long flags;
	u64 n;
	u32 c;

	spin_lock_irqsave(&a->lock, flags);
	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		n = min_t(u64, (bytes >> DRACK_CLASS_SHIFT(c)) * 2, bufs * 2ULL);
		n = min_t(u64, n, U32_MAX);
		if (a->half_grow[c] == n)	/* every tick: mostly so */
			continue;
		a->half_grow[c] = n;
		drack_class_set_half(a, c);
	}
	spin_unlock_irqrestore(&a->lock, flags);
}

u64 drack_buf_get_scarce(struct drack_alloc *a, u32 buf_class, u32 peer,
			 bool *scarce)
{
	unsigned long flags;
	struct drack_class_alloc *ca = &a->cls[buf_class];
	struct drack_section_state *s;
	u32 index;
	u64 off = 0;

	*scarce = false;
	if (peer >= DRACK_MAX_HOSTS)
		return 0;
	spin_lock_irqsave(&a->lock, flags);
	if (ca->nfree && !drack_buf_peer_capped(a, buf_class, peer)) {
		off = drack_buf_unpack(ca->free[--ca->nfree]);
		s = drack_buf_section(a, off, &index);
		s->lent_to[index] = peer;
		s->nlent++;
		if (++a->peer_lent[buf_class][peer] == ca->half_at &&
		    !ca->half_peers++)
			WRITE_ONCE(ca->half_lent, true);
		/*
		 * Under half the low water (a quarter of one Section of
		 * 64 KB Buffers, an eighth of 2 KB ones), where a Section is
		 * asked for already. Under the lock: no return slips in.
		 */
		*scarce = ca->nfree < drack_low_water[buf_class] / 2;
	}
	spin_unlock_irqrestore(&a->lock, flags);
	return off;
}

u64 drack_buf_get(struct drack_alloc *a, u32 buf_class, u32 peer)
{
	bool scarce;

	return drack_buf_get_scarce(a, buf_class, peer, &scarce);
}

void drack_buf_unget(struct drack_alloc *a, u64 off)
{
	unsigned long flags;
	struct drack_section_state *s;
	u32 index;

	spin_lock_irqsave(&a->lock, flags);
	s = drack_buf_section(a, off, &index);
	if (s)
		drack_buf_push(a, s, index, off);
	spin_unlock_irqrestore(&a->lock, flags);
}

int drack_buf_return(struct drack_alloc *a, u64 off, u32 peer)
{
	unsigned long flags;
	struct drack_section_state *s;
	u32 index;
	int err = -EINVAL;

	spin_lock_irqsave(&a->lock, flags);
	s = drack_buf_section(a, off, &index);
	if (s && s->lent_to[index] == peer) {
		drack_buf_push(a, s, index, off);
		err = 0;
	}
	spin_unlock_irqrestore(&a->lock, flags);
	return err;
}

int drack_alloc_add_section(struct drack_alloc *a, u32 section, u32 buf_class)
{
	unsigned long flags;
	struct drack_section_state *s;
	struct drack_class_alloc *ca;
	u32 i, shift, nbufs;
	u64 base;

	if (section < a->pool->geo.meta_sections ||
	    section >= a->pool->geo.section_count ||
	    buf_class >= DRACK_NR_CLASSES || a->sec[section])
		return -EINVAL;
	shift = DRACK_CLASS_SHIFT(buf_class);
	nbufs = DRACK_SECTION_SIZE >> shift;
	s = kvzalloc(struct_size(s, lent_to, nbufs), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->section = section;
	s->buf_class = buf_class;
	s->nbufs = nbufs;
	memset(s->lent_to, DRACK_NOT_LENT, nbufs);

	base = (u64)section << DRACK_SECTION_SHIFT;
	ca = &a->cls[buf_class];
	spin_lock_irqsave(&a->lock, flags);
	a->sec[section] = s;
	/* Push in reverse so Buffers go out in address order. */
	for (i = nbufs; i-- > 0;)
		ca->free[ca->nfree++] = drack_buf_pack(base +
						       ((u64)i << shift));
	ca->total += nbufs;
	ca->sections++;
	WRITE_ONCE(ca->requested, false);
	drack_class_set_half(a, buf_class);
	spin_unlock_irqrestore(&a->lock, flags);
	return 0;
}

int drack_alloc_grant(struct drack_alloc *a, u32 section, u32 generation,
		      u32 *buf_class)
{
	struct drack_section_entry *e;

	if (section >= a->pool->geo.section_count)
		return -EINVAL;
	e = drack_section_entry(a->pool, section);
	*buf_class = READ_ONCE(e->buf_class);
	if (drack_section_owner(a->pool, section) != a->host ||
	    le32_to_cpu(READ_ONCE(e->generation)) != generation)
		return -EINVAL;
	return drack_alloc_add_section(a, section, *buf_class);
}

u32 drack_alloc_release(struct drack_alloc *a)
{
	struct drack_section_state *s, *gone = NULL;
	unsigned long flags;
	u32 sec, lent = 0;

	spin_lock_irqsave(&a->lock, flags);
	for (sec = 0; sec < a->pool->geo.section_count; sec++) {
		s = a->sec[sec];
		if (!s)
			continue;
		lent += s->nlent;
		a->sec[sec] = NULL;
		s->next = gone;
		gone = s;
	}
	for (sec = 0; sec < DRACK_NR_CLASSES; sec++) {
		a->cls[sec].nfree = 0;
		a->cls[sec].total = 0;
		a->cls[sec].sections = 0;
		a->cls[sec].draining = 0;
		a->cls[sec].parked = 0;
		WRITE_ONCE(a->cls[sec].requested, false);
		drack_class_set_half(a, sec);
	}
	/* Nothing is lent any more: no peer is at its cap after a rejoin. */
	memset(a->peer_lent, 0, sizeof(a->peer_lent));
	spin_unlock_irqrestore(&a->lock, flags);
	/* Freed with interrupts on: kvfree() may need them. */
	while ((s = gone)) {
		gone = s->next;
		kvfree(s);
	}
	return lent;
}

bool drack_alloc_low(struct drack_alloc *a, u32 buf_class)
{
	return READ_ONCE(a->cls[buf_class].nfree) < drack_low_water[buf_class];
}

void drack_alloc_counters(struct drack_alloc *a, u32 buf_class,
			  struct drack_class_counters *c)
{
	unsigned long flags;
	struct drack_class_alloc *ca = &a->cls[buf_class];

	spin_lock_irqsave(&a->lock, flags);
	c->sections = ca->sections;
	c->total = ca->total;
	c->free = ca->nfree;
	c->inflight = ca->total - ca->nfree - ca->parked;
	c->draining = ca->draining;
	c->requested = ca->requested;
	spin_unlock_irqrestore(&a->lock, flags);
}

bool drack_alloc_drain_section(struct drack_alloc *a, u32 section)
{
	unsigned long flags;
	struct drack_section_state *s;
	struct drack_class_alloc *ca;
	u64 first, last;
	u32 i, j, v;

	if (section >= a->pool->geo.section_count)
		return false;
	spin_lock_irqsave(&a->lock, flags);
	s = a->sec[section];
	if (!s || s->draining) {
		spin_unlock_irqrestore(&a->lock, flags);
		return s;
	}
	s->draining = true;
	ca = &a->cls[s->buf_class];
	ca->draining++;
	ca->parked += s->nbufs - s->nlent;
	drack_class_set_half(a, s->buf_class);
	/* Take its free Buffers off the stack, keeping the others' order. */
	first = drack_buf_pack((u64)section << DRACK_SECTION_SHIFT);
	last = first + (DRACK_SECTION_SIZE >> DRACK_BUF_SHIFT);
	for (i = 0, j = 0; i < ca->nfree; i++) {
		v = ca->free[i];
		if (v < first || v >= last)
			ca->free[j++] = v;
	}
	ca->nfree = j;
	spin_unlock_irqrestore(&a->lock, flags);
	return true;
}

bool drack_alloc_take_drained(struct drack_alloc *a, u32 section)
{
	unsigned long flags;
	struct drack_section_state *s;
	struct drack_class_alloc *ca;

	if (section >= a->pool->geo.section_count)
		return false;
	spin_lock_irqsave(&a->lock, flags);
	s = a->sec[section];
	if (!s || !s->draining || s->nlent) {
		spin_unlock_irqrestore(&a->lock, flags);
		return false;
	}
	ca = &a->cls[s->buf_class];
	ca->draining--;
	ca->parked -= s->nbufs;
	ca->total -= s->nbufs;
	ca->sections--;
	a->sec[section] = NULL;
	spin_unlock_irqrestore(&a->lock, flags);
	kvfree(s);
	return true;
}

u32 drack_alloc_draining(struct drack_alloc *a)
{
	u32 c, n = 0;

	for (c = 0; c < DRACK_NR_CLASSES; c++)
		n += READ_ONCE(a->cls[c].draining);
	return n;
}

u32 drack_alloc_forget_peer(struct drack_alloc *a, u32 peer)
{
	struct drack_section_state *s;
	unsigned long flags;
	u32 sec, i, n = 0;
	u64 base;

	/* A Section per hold: interrupts are off only briefly. */
	for (sec = 0; sec < a->pool->geo.section_count; sec++) {
		spin_lock_irqsave(&a->lock, flags);
		s = a->sec[sec];
		base = (u64)sec << DRACK_SECTION_SHIFT;
		for (i = 0; s && s->nlent && i < s->nbufs; i++) {
			if (s->lent_to[i] != peer)
				continue;
			drack_buf_push(a, s, i, base +
				       ((u64)i << DRACK_CLASS_SHIFT(s->buf_class)));
			n++;
		}
		spin_unlock_irqrestore(&a->lock, flags);
	}
	return n;
}
