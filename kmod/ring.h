/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Single-producer single-consumer rings in pool memory: one discipline
 * for every ring of the pool (ref_queues, return rings, grant rings,
 * virt_queues).
 *
 * Producer and consumer may sit in different kernels. Each side keeps its
 * own index in kernel memory (r->idx) and only publishes it to the pool;
 * the other side's index is read, checked, and never trusted: an index
 * that makes no sense is garbage, and drack_ring_resync() is the one way
 * back from it. The consumer asks for a doorbell through the event index,
 * as virtio's vring does, and the producer batches its doorbells
 * (drack_ring_flush()).
 *
 * Pure logic on a piece of memory: no pool, no netdev, so the same source
 * builds in user space for the unit tests (tests/unit/).
 */
#ifndef _DRACK_RING_H
#define _DRACK_RING_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/byteorder.h>
#endif
#include "uapi/drack_pool.h"

struct drack_ring {
	struct drack_ring_hdr *hdr;	/* in the pool */
	u8 *entries;
	u32 size;			/* entries, a power of two */
	u32 esize;			/* bytes per entry */
	u32 idx;			/* our side's index, kernel memory */
	u32 pub;			/* producer: idx as last published */
	u32 kicked;			/* producer: idx at the last doorbell */
};

/* @hdr: the ring in the pool, header then @size entries of @esize bytes. */
static inline void drack_ring_init(struct drack_ring *r, void *hdr, u32 size,
				   u32 esize)
{
	r->hdr = hdr;
	r->entries = (u8 *)hdr + sizeof(struct drack_ring_hdr);
	r->size = size;
	r->esize = esize;
	r->idx = 0;
	r->pub = 0;
	r->kicked = 0;
}

static inline void *drack_ring_slot(const struct drack_ring *r, u32 idx)
{
	return r->entries + (size_t)(idx & (r->size - 1)) * r->esize;
}

/* The indexes as published in the pool: the other side's, or ours. */
static inline u32 drack_ring_prod(const struct drack_ring *r)
{
	return le32_to_cpu(READ_ONCE(r->hdr->prod));
}

static inline u32 drack_ring_cons(const struct drack_ring *r)
{
	return le32_to_cpu(READ_ONCE(r->hdr->cons));
}

/*
 * The producer's view of the consumer's index: what it has finished
 * reading. Pairs with drack_ring_release(): slots up to it may be reused.
 */
static inline u32 drack_ring_consumed(const struct drack_ring *r)
{
	/* Pairs with drack_ring_release(). */
	return le32_to_cpu(smp_load_acquire(&r->hdr->cons));
}

/* Only the owner of the ring's area may do this, before anyone uses it. */
static inline void drack_ring_reset(struct drack_ring *r)
{
	WRITE_ONCE(r->hdr->prod, 0);
	WRITE_ONCE(r->hdr->cons, 0);
	WRITE_ONCE(r->hdr->event, 0);
	r->idx = 0;
	r->pub = 0;
	r->kicked = 0;
}

/* ---- producer ---- */

/*
 * Make entries up to r->idx visible, without a doorbell. r->pub keeps
 * what the pool should show, so that drack_ring_space() notices a ring
 * reset under it.
 */
static inline void drack_ring_publish(struct drack_ring *r)
{
	/* Pairs with drack_ring_avail(): entries are written first. */
	smp_store_release(&r->hdr->prod, cpu_to_le32(r->idx));
	r->pub = r->idx;
}

/*
 * The consumer's index, checked against ours: the producer's way back
 * from garbage is to go on from wherever the consumer says it is.
 */
static inline void drack_ring_resync_producer(struct drack_ring *r, u32 cons)
{
	r->idx = cons;
	r->kicked = cons;
	drack_ring_publish(r);
}

/*
 * Free slots. The published producer index must be the one we published
 * last (the ring's owner resets it when it joins again), and the consumer
 * index must lie within what we produced: anything else is a reset or
 * garbage. Returns -1 after resynchronising to the consumer; the caller
 * counts it and may ask again.
 */
static inline int drack_ring_space(struct drack_ring *r)
{
	u32 cons = drack_ring_consumed(r);
	u32 used = r->idx - cons;

	if (used > r->size || drack_ring_prod(r) != r->pub) {
		drack_ring_resync_producer(r, cons);
		return -1;
	}
	return r->size - used;
}

/* Entries produced and not yet consumed, for queue depths (no checks). */
static inline u32 drack_ring_used(const struct drack_ring *r)
{
	u32 used = r->idx - drack_ring_cons(r);

	return used > r->size ? r->size : used;
}

/* The slot to fill next; drack_ring_push() then counts it in. */
static inline void *drack_ring_next(const struct drack_ring *r)
{
	return drack_ring_slot(r, r->idx);
}

static inline void drack_ring_push(struct drack_ring *r)
{
	r->idx++;
}

/* Push and make visible at once; the doorbell waits for the flush. */
static inline void drack_ring_post(struct drack_ring *r)
{
	drack_ring_push(r);
	drack_ring_publish(r);
}

/*
 * Publish what was pushed and tell whether the consumer asked for a
 * doorbell on one of the entries produced since the last flush: the one
 * batching and event-index rule of every ring.
 */
static inline bool drack_ring_flush(struct drack_ring *r)
{
	u32 old = r->kicked, event;

	if (r->idx == old)
		return false;
	if (r->idx != r->pub)
		drack_ring_publish(r);
	r->kicked = r->idx;
	/* Pairs with drack_ring_arm(): prod is visible before the wish read. */
	smp_mb();
	event = le32_to_cpu(READ_ONCE(r->hdr->event));
	return (u32)(r->idx - event - 1) < (u32)(r->idx - old);
}

/*
 * Take the producer side over from a previous user of the ring: keep what
 * was produced and not consumed (@keep), or withdraw it.
 */
static inline void drack_ring_adopt_producer(struct drack_ring *r, bool keep)
{
	u32 cons = drack_ring_cons(r), prod = drack_ring_prod(r);

	if (!keep || prod - cons > r->size)
		prod = cons;
	r->idx = prod;
	r->kicked = prod;
	drack_ring_publish(r);
}

/* ---- consumer ---- */

/* Release entries up to r->idx to the producer. */
static inline void drack_ring_release(struct drack_ring *r)
{
	/* Pairs with drack_ring_space(): entries are read before release. */
	smp_store_release(&r->hdr->cons, cpu_to_le32(r->idx));
}

/* Skip everything the producer published (garbage, a dead producer). */
static inline void drack_ring_skip(struct drack_ring *r)
{
	r->idx = drack_ring_prod(r);
	drack_ring_release(r);
}

/*
 * Entries ready from r->idx on. A producer index that makes no sense
 * (more entries than the ring holds) is garbage: returns -1 after
 * skipping it all, and the caller counts it.
 */
static inline int drack_ring_avail(struct drack_ring *r)
{
	/* Pairs with drack_ring_publish(): entries are read after prod. */
	u32 prod = le32_to_cpu(smp_load_acquire(&r->hdr->prod));
	u32 n = prod - r->idx;

	if (n > r->size) {
		r->idx = prod;
		drack_ring_release(r);
		return -1;
	}
	return n;
}

/* The @i-th ready entry; copy it to local memory before checking it. */
static inline void *drack_ring_peek(const struct drack_ring *r, u32 i)
{
	return drack_ring_slot(r, r->idx + i);
}

/* Consume @n entries and release them to the producer. */
static inline void drack_ring_consume(struct drack_ring *r, u32 n)
{
	r->idx += n;
	drack_ring_release(r);
}

/* Anything published we have not consumed? (any context, no checks) */
static inline bool drack_ring_pending(const struct drack_ring *r)
{
	return drack_ring_prod(r) != READ_ONCE(r->idx);
}

/*
 * Going idle: ask for a doorbell on the next entry. Returns true if
 * entries arrived meanwhile (the caller must poll again).
 */
static inline bool drack_ring_arm(struct drack_ring *r)
{
	WRITE_ONCE(r->hdr->event, cpu_to_le32(r->idx));
	/* Pairs with drack_ring_flush(): wish visible before prod re-read. */
	smp_mb();
	return drack_ring_prod(r) != r->idx;
}

/*
 * Going idle on a ring drained lazily: a doorbell only once @n entries
 * wait. Returns true if that many are there already.
 */
static inline bool drack_ring_arm_after(struct drack_ring *r, u32 n)
{
	WRITE_ONCE(r->hdr->event, cpu_to_le32(r->idx + n - 1));
	/* Pairs with drack_ring_flush(): wish visible before prod re-read. */
	smp_mb();
	return drack_ring_prod(r) - r->idx >= n;
}

/* Take the consumer side over: skip what a previous user left. */
static inline void drack_ring_adopt_consumer(struct drack_ring *r)
{
	drack_ring_skip(r);
}

#endif /* _DRACK_RING_H */
