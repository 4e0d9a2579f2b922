/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A host's Buffers: the Sections the fabric manager granted it, carved
 * into Buffers of one size class each, and which peer holds which Buffer.
 * The bookkeeping lives in kernel memory, never in the pool, so a peer
 * cannot return a Buffer it was not lent.
 */
#ifndef _DRACK_BUFFER_H
#define _DRACK_BUFFER_H

#ifdef __KERNEL__
#include <linux/spinlock.h>
#endif
#include "pool.h"

#define DRACK_NOT_LENT	0xff

struct drack_section_state {
	u32 section;
	u32 buf_class;
	u32 nbufs;
	u32 nlent;
	bool draining;		/* revoked: Buffers coming home stay home */
	struct drack_section_state *next;	/* drack_alloc_release() */
	u8 lent_to[];		/* per Buffer: peer host id or DRACK_NOT_LENT */
};

struct drack_class_alloc {
	u32 *free;		/* stack of Buffer offsets >> DRACK_BUF_SHIFT */
	u32 nfree;
	u32 cap;
	u32 total;		/* Buffers in owned Sections */
	u32 sections;
	u32 draining;		/* Sections revoked, not yet given back */
	u32 parked;		/* free Buffers of those Sections */
	bool requested;		/* a Section request is outstanding */
	bool half_lent;		/* a peer holds half of the class: ask for more */
	u32 half_at;		/* Buffers lent to one peer that are half */
	u32 half_peers;		/* peers lent half_at or more */
	unsigned long requested_at;	/* since when */
	unsigned long asked_at;		/* last event sent to the FM */
};

/* Buffer offsets are multiples of the smallest class. */
#define DRACK_BUF_SHIFT DRACK_CLASS_SHIFT(DRACK_CLASS_2K)

/*
 * The free stacks hold Buffer offsets >> DRACK_BUF_SHIFT in a u32: the
 * allocator serves pools of up to 2^(32 + 11) bytes, 8 TB, and refuses
 * larger ones (drack_alloc_init()).
 */
#define DRACK_BUF_MAX_POOL	(1ULL << (32 + DRACK_BUF_SHIFT))

static inline u32 drack_buf_pack(u64 off)
{
	return (u32)(off >> DRACK_BUF_SHIFT);
}

static inline u64 drack_buf_unpack(u32 v)
{
	return (u64)v << DRACK_BUF_SHIFT;
}

struct drack_alloc {
	/* Free stacks and lent-to records; IRQ-safe: netpoll transmits. */
	spinlock_t lock;
	struct drack_pool *pool;
	u32 host;
	struct drack_class_alloc cls[DRACK_NR_CLASSES];
	/*
	 * Buffers one peer may hold (0: no cap) and how many each holds: a
	 * peer that never hands them back cannot drain our Sections.
	 */
	u32 peer_cap[DRACK_NR_CLASSES];
	u32 peer_lent[DRACK_NR_CLASSES][DRACK_MAX_HOSTS];
	/*
	 * A peer that receives by reference holds at most half of a class
	 * (rxref.c): below this many Buffers a class grows once one peer
	 * has half of it. Above it the peer's own cap (rx_ref_max_mb) binds.
	 */
	u32 half_grow[DRACK_NR_CLASSES];
	struct drack_section_state **sec;	/* by Section id */
};

/* -EINVAL for a pool larger than DRACK_BUF_MAX_POOL. */
int drack_alloc_init(struct drack_alloc *a, struct drack_pool *pool, u32 host);
/* Give every owned Section back to the pool; returns Buffers still lent. */
u32 drack_alloc_release(struct drack_alloc *a);
void drack_alloc_free(struct drack_alloc *a);

/* At most @bytes of Buffers of each class lent to one peer (0: no cap). */
void drack_alloc_set_peer_cap(struct drack_alloc *a, u64 bytes);
/*
 * A peer may hold @bytes, and at most @bufs Buffers, by reference (our
 * own module's limits, taken for the peers'): grow a class below twice
 * that.
 */
void drack_alloc_set_ref_hold(struct drack_alloc *a, u64 bytes, u32 bufs);

/* @peer holds its cap of @buf_class: drack_buf_get() lends it no more. */
static inline bool drack_buf_peer_capped(const struct drack_alloc *a,
					 u32 buf_class, u32 peer)
{
	u32 cap = READ_ONCE(a->peer_cap[buf_class]);

	return cap && READ_ONCE(a->peer_lent[buf_class][peer]) >= cap;
}

/* Would drack_buf_get() lend @peer a Buffer of @buf_class now? (lockless) */
static inline bool drack_buf_available(const struct drack_alloc *a,
				       u32 buf_class, u32 peer)
{
	return peer < DRACK_MAX_HOSTS && READ_ONCE(a->cls[buf_class].nfree) &&
	       !drack_buf_peer_capped(a, buf_class, peer);
}

/* Buffers of every class lent to @peer now. */
static inline u32 drack_alloc_peer_lent(const struct drack_alloc *a, u32 peer)
{
	u32 c, n = 0;

	for (c = 0; c < DRACK_NR_CLASSES; c++)
		n += READ_ONCE(a->peer_lent[c][peer]);
	return n;
}

/* Take a Buffer of @buf_class lent to @peer; 0 if none is free or capped. */
u64 drack_buf_get(struct drack_alloc *a, u32 buf_class, u32 peer);
/*
 * drack_buf_get(), and *@scarce if so few of the class are left free
 * that the receiver should copy the frame and hand the Buffer back at
 * once rather than hold it: sockets that never read, on several hosts,
 * could otherwise hold them all (each receiver only caps itself).
 */
u64 drack_buf_get_scarce(struct drack_alloc *a, u32 buf_class, u32 peer,
			 bool *scarce);
/* Undo drack_buf_get() for a Buffer that never left this host. */
void drack_buf_unget(struct drack_alloc *a, u64 off);
/* @peer hands @off back: 0, or -EINVAL if it was not lent to @peer. */
int drack_buf_return(struct drack_alloc *a, u64 off, u32 peer);

/* Add a Section the FM granted; -EINVAL if the grant does not check out. */
int drack_alloc_add_section(struct drack_alloc *a, u32 section, u32 buf_class);
/*
 * A grant from the grant ring: add @section if the pool's Section table
 * says it is ours at @generation, with the class it shows there (in
 * *@buf_class). -EINVAL if the grant does not check out.
 */
int drack_alloc_grant(struct drack_alloc *a, u32 section, u32 generation,
		      u32 *buf_class);

/*
 * Revoke: stop lending Buffers of @section; true if it is ours. Once
 * drack_alloc_take_drained() says every Buffer is home, the Section is
 * forgotten and its owner may write it back to the pool as free.
 */
bool drack_alloc_drain_section(struct drack_alloc *a, u32 section);
bool drack_alloc_take_drained(struct drack_alloc *a, u32 section);
/* Sections being drained: a bitmap-free check for the tick. */
u32 drack_alloc_draining(struct drack_alloc *a);

/* @peer is dead: take back every Buffer lent to it; returns how many. */
u32 drack_alloc_forget_peer(struct drack_alloc *a, u32 peer);

/* Class for a frame of @len bytes. */
static inline u32 drack_buf_class(u32 len)
{
	return len <= DRACK_CLASS_SIZE(DRACK_CLASS_2K) ? DRACK_CLASS_2K :
							 DRACK_CLASS_64K;
}

/* Is the class short of free Buffers (returns are wanted now)? */
bool drack_alloc_low(struct drack_alloc *a, u32 buf_class);

/*
 * Time to ask the FM for a Section of the class: short of free Buffers,
 * or one peer holds half of them, as much as a reader by reference may
 * hold (so it may hold more, and others still find some). Asked once:
 * the tick repeats an unanswered request.
 */
static inline bool drack_alloc_wants_section(struct drack_alloc *a,
					     u32 buf_class)
{
	const struct drack_class_alloc *ca = &a->cls[buf_class];

	return drack_alloc_low(a, buf_class) ||
	       (READ_ONCE(ca->half_lent) && !READ_ONCE(ca->requested));
}

struct drack_class_counters {
	u32 sections, total, free, inflight, draining;
	bool requested;
};

void drack_alloc_counters(struct drack_alloc *a, u32 buf_class,
			  struct drack_class_counters *c);

#endif /* _DRACK_BUFFER_H */
