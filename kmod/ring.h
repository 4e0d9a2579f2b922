/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Single-producer single-consumer rings in pool memory. Producer and
 * consumer may sit in different kernels, so indexes read from the ring
 * are sanity-checked by the caller (drack_ring_avail() reports garbage).
 */
#ifndef _DRACK_RING_H
#define _DRACK_RING_H

#include <linux/types.h>
#include <asm/barrier.h>
#include "pool.h"

struct drack_ring {
	struct drack_ring_hdr *hdr;
	u8 *entries;
	u32 size;		/* entries, a power of two */
	u32 esize;		/* bytes per entry */
};

static inline void drack_ring_init(struct drack_ring *r,
				   struct drack_pool *pool, u64 off,
				   u32 size, u32 esize)
{
	r->hdr = drack_pool_ptr(pool, off);
	r->entries = (u8 *)r->hdr + sizeof(struct drack_ring_hdr);
	r->size = size;
	r->esize = esize;
}

/* Only the owner of the ring's area may do this, before anyone uses it. */
static inline void drack_ring_reset(struct drack_ring *r)
{
	WRITE_ONCE(r->hdr->prod, 0);
	WRITE_ONCE(r->hdr->cons, 0);
	WRITE_ONCE(r->hdr->event, 0);
}

static inline void *drack_ring_slot(const struct drack_ring *r, u32 idx)
{
	return r->entries + (size_t)(idx & (r->size - 1)) * r->esize;
}

static inline u32 drack_ring_prod(const struct drack_ring *r)
{
	return le32_to_cpu(READ_ONCE(r->hdr->prod));
}

static inline u32 drack_ring_cons(const struct drack_ring *r)
{
	return le32_to_cpu(READ_ONCE(r->hdr->cons));
}

/* Producer: free slots; 0 also when the consumer index is garbage. */
static inline u32 drack_ring_space(const struct drack_ring *r)
{
	u32 used;

	/* Pairs with drack_ring_consume(): the slot is no longer read. */
	used = drack_ring_prod(r) -
	       le32_to_cpu(smp_load_acquire(&r->hdr->cons));

	return used > r->size ? 0 : r->size - used;
}

/* Producer: make entries up to @prod visible, without a doorbell. */
static inline void drack_ring_produce(struct drack_ring *r, u32 prod)
{
	/* Pairs with drack_ring_avail(): entries are written first. */
	smp_store_release(&r->hdr->prod, cpu_to_le32(prod));
}

/*
 * Producer: make entries up to @prod visible. Returns true if the consumer
 * asked for a doorbell somewhere in (@old, @prod].
 */
static inline bool drack_ring_publish(struct drack_ring *r, u32 old, u32 prod)
{
	u32 event;

	drack_ring_produce(r, prod);
	/* Pairs with drack_ring_arm(): prod is visible before the wish read. */
	smp_mb();
	event = le32_to_cpu(READ_ONCE(r->hdr->event));
	return (u32)(prod - event - 1) < (u32)(prod - old);
}

/*
 * Consumer: entries ready from *@cons on. Returns -1 if the producer index
 * is garbage (more entries than the ring holds).
 */
static inline int drack_ring_avail(const struct drack_ring *r, u32 *cons)
{
	u32 n;

	*cons = drack_ring_cons(r);
	/* Pairs with drack_ring_produce(): entries are read after prod. */
	n = le32_to_cpu(smp_load_acquire(&r->hdr->prod)) - *cons;
	return n > r->size ? -1 : (int)n;
}

/*
 * The same two with our own index, kept in kernel memory: a peer that
 * scribbles over the ring header cannot move our side of the ring.
 */
static inline u32 drack_ring_space_at(const struct drack_ring *r, u32 prod)
{
	u32 used;

	/* Pairs with drack_ring_consume(): the slot is no longer read. */
	used = prod - le32_to_cpu(smp_load_acquire(&r->hdr->cons));
	return used > r->size ? 0 : r->size - used;
}

static inline int drack_ring_avail_at(const struct drack_ring *r, u32 cons)
{
	u32 n;

	/* Pairs with drack_ring_produce(): entries are read after prod. */
	n = le32_to_cpu(smp_load_acquire(&r->hdr->prod)) - cons;
	return n > r->size ? -1 : (int)n;
}

/* Consumer: release entries up to @cons to the producer. */
static inline void drack_ring_consume(struct drack_ring *r, u32 cons)
{
	/* Pairs with drack_ring_space(): entries are read before release. */
	smp_store_release(&r->hdr->cons, cpu_to_le32(cons));
}

/* Consumer: skip everything, after garbage was seen. */
static inline void drack_ring_resync(struct drack_ring *r)
{
	drack_ring_consume(r, drack_ring_prod(r));
}

/*
 * Consumer going idle: ask for a doorbell on the next entry. Returns true
 * if entries arrived meanwhile (the caller must poll again).
 */
static inline bool drack_ring_arm(struct drack_ring *r)
{
	u32 cons = drack_ring_cons(r);

	WRITE_ONCE(r->hdr->event, cpu_to_le32(cons));
	/* Pairs with drack_ring_publish(): wish visible before prod re-read. */
	smp_mb();
	return drack_ring_prod(r) != cons;
}

#endif /* _DRACK_RING_H */
