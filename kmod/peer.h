/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A peer: one remote host of the pool as a local host sees it. Its
 * ref_queues and return rings in both directions, whether we let go of
 * it after a fence, and its counters. Knows rings, Buffers and the pool;
 * knows no netdev (skbs are the netdev layer's: tx.c, rx.c).
 *
 * Locking: ref_out[q] and tx[q] under the lock of the netdev's TX queue
 * q; ref_in, ret_out, ret_in and the rx counters under the host's rx_lock.
 */
#ifndef _DRACK_PEER_H
#define _DRACK_PEER_H

#include <linux/u64_stats_sync.h>
#include "buffer.h"
#include "pool.h"
#include "ring.h"

struct drack_peer_stats {
	u64_stats_t packets, bytes;
	u64_stats_t bad;		/* rx: references or indexes refused */
	struct u64_stats_sync syncp;
};

/* A Buffer of the peer that skbs hold by reference (rxref.c). */
struct drack_held_buf {
	u64 off;
	u32 len;
	u32 size;			/* its class size, for the cap */
	u32 gen;			/* the owner's incarnation that lent it */
	u32 since;			/* jiffies when it came */
};

/*
 * Held Buffers, a ring in arrival order (but for those held long, moved
 * from the head to the tail): sockets let go of their data in order, so
 * the oldest come back first. One let go of out of order is handed back
 * at once and leaves a gap (size 0) until the head passes.
 */
struct drack_held {
	struct drack_held_buf *buf;	/* NULL: this pool is copied out */
	u32 cap;			/* slots, a power of 2 */
	u32 head;			/* the oldest slot */
	u32 n;				/* slots used from head, gaps too */
	u32 live;			/* Buffers held */
	u32 next;			/* the rotating check, from head */
	u64 bytes;
	u64 class_bytes[DRACK_NR_CLASSES];
};

struct drack_peer {
	struct drack_pool *pool;
	u32 id;				/* its host id */
	u32 self;			/* ours */
	u32 state;			/* its state as last seen, for the trace */
	/*
	 * Its ref_queue stayed full, or it held its cap of our Buffers,
	 * past stall_timeout_ms: frames to it are dropped until it
	 * consumes and returns again (tx.c, the liveness job).
	 */
	bool stalled;
	/*
	 * It sent us garbage (drack_peer_judge): its rings here are left
	 * alone until @quiet_until, for @quiet_ms that double while it goes
	 * on. rx_lock.
	 */
	unsigned long quiet_until;
	u32 quiet_ms;
	u32 nq;				/* ref_queues per direction */
	struct drack_ring ref_out[DRACK_MAX_QUEUES];	/* ours at the peer */
	struct drack_ring ref_in[DRACK_MAX_QUEUES];	/* its, here */
	struct drack_ring ret_out;	/* its Buffers we hand back */
	struct drack_ring ret_in;	/* our Buffers it hands back */
	struct drack_held held;		/* its Buffers skbs hold, rx_lock */
	struct drack_peer_stats tx[DRACK_MAX_QUEUES];	/* by TX queue */
	struct drack_peer_stats rx;
};

void drack_peer_init(struct drack_peer *p, struct drack_pool *pool, u32 self,
		     u32 id);
/*
 * A new incarnation of ours: reset the rings we consume, withdraw what a
 * previous one left on the peer's rings (returns too after a fence, as
 * the peer forgot what it had lent us). pool->lock held.
 */
void drack_peer_rejoin(struct drack_peer *p, bool after_fence);

/* Its Buffers may still be handed back: it is up or leaving. */
bool drack_peer_alive(const struct drack_peer *p);

/*
 * Check a reference read (once) from its ref_queue against the Section
 * table. *@buf_size: the size of the Buffer at the offset, a real Buffer
 * of the peer to hand back even if the frame itself is bad; 0 if not.
 */
bool drack_peer_ref_valid(const struct drack_peer *p,
			  const struct drack_ref *ref, u32 *buf_size);

/*
 * A poll of its rings refused @bad of @n entries. A burst of garbage
 * (DRACK_PEER_BAD_BURST or more, and most of what it sent) starts or
 * doubles a backoff, 1 ms to 1 s, during which its rings are not read: a
 * hostile peer costs us one burst per backoff, not a CPU. A healthy peer
 * never sends a burst of garbage; a clean poll ends the backoff. Returns
 * true if a backoff starts. rx_lock held.
 */
#define DRACK_PEER_BAD_BURST	16
#define DRACK_PEER_QUIET_MAX_MS	1000
bool drack_peer_backoff(struct drack_peer *p, u32 bad, u32 n);

static inline bool drack_peer_judge(struct drack_peer *p, u32 bad, u32 n)
{
	/* Every poll judges every peer it read: the clean case inline. */
	if (likely(!bad)) {
		if (n && p->quiet_ms)
			p->quiet_ms = 0;
		return false;
	}
	return drack_peer_backoff(p, bad, n);
}

static inline bool drack_peer_quiet(const struct drack_peer *p)
{
	return p->quiet_ms && time_before(jiffies, READ_ONCE(p->quiet_until));
}

/* Hand Buffer @off back (rx_lock held): push on ret_out, no flush. */
static inline void drack_peer_return(struct drack_peer *p, __le64 off)
{
	((struct drack_ret *)drack_ring_next(&p->ret_out))->off = off;
	drack_ring_push(&p->ret_out);
}

/*
 * Take back the Buffers it returned, counting into *@ok and *@bad;
 * -1 if its ring index was garbage.
 */
int drack_peer_take_returns(struct drack_peer *p, struct drack_alloc *a,
			    u64 *ok, u64 *bad);
/* Post what was pushed on ref_out[@q], and ring its doorbell if it asked. */
bool drack_peer_flush(struct drack_peer *p, u32 q);
/* Fenced: drop its references without handing them back. */
void drack_peer_forget(struct drack_peer *p);
/* Its ref_queues here hold entries we have not consumed. */
bool drack_peer_rx_pending(const struct drack_peer *p);

static inline void drack_peer_count(struct drack_peer_stats *s, u32 len)
{
	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->packets);
	u64_stats_add(&s->bytes, len);
	u64_stats_update_end(&s->syncp);
}

static inline void drack_peer_count_bad(struct drack_peer_stats *s)
{
	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->bad);
	u64_stats_update_end(&s->syncp);
}

/* A consistent snapshot of @s. */
void drack_peer_stats_read(const struct drack_peer_stats *s, u64 *packets,
			   u64 *bytes, u64 *bad);
/* What we sent @p, summed over the TX queues. */
void drack_peer_tx_read(const struct drack_peer *p, u64 *packets, u64 *bytes);

#endif /* _DRACK_PEER_H */
