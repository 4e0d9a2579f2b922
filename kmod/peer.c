// SPDX-License-Identifier: GPL-2.0-only
/*
 * Peers: the rings a local host shares with one remote host, and the
 * checks on everything read from them.
 */
#include <linux/if_ether.h>
#include "peer.h"
#include "trace.h"

void drack_peer_init(struct drack_peer *p, struct drack_pool *pool, u32 self,
		     u32 id)
{
	const struct drack_geometry *g = &pool->geo;
	u32 q;

	p->pool = pool;
	p->id = id;
	p->self = self;
	p->state = DRACK_HOST_FREE;	/* unseen: the first sight is traced */
	/* Validated at register: 1 to DRACK_MAX_QUEUES. */
	p->nq = g->ref_queues;
	for (q = 0; q < p->nq; q++) {
		drack_ring_init(&p->ref_in[q],
				drack_pool_ptr(pool,
					       drack_ref_ring_off(g, self, id, q)),
				g->ref_ring_entries, sizeof(struct drack_ref));
		drack_ring_init(&p->ref_out[q],
				drack_pool_ptr(pool,
					       drack_ref_ring_off(g, id, self, q)),
				g->ref_ring_entries, sizeof(struct drack_ref));
	}
	drack_ring_init(&p->ret_in,
			drack_pool_ptr(pool, drack_ret_ring_off(g, self, id)),
			g->ret_ring_entries, sizeof(struct drack_ret));
	drack_ring_init(&p->ret_out,
			drack_pool_ptr(pool, drack_ret_ring_off(g, id, self)),
			g->ret_ring_entries, sizeof(struct drack_ret));
	for (q = 0; q < DRACK_MAX_QUEUES; q++)
		u64_stats_init(&p->tx[q].syncp);
	u64_stats_init(&p->rx.syncp);
}

void drack_peer_rejoin(struct drack_peer *p, bool after_fence)
{
	u32 q;

	for (q = 0; q < p->nq; q++)
		drack_ring_reset(&p->ref_in[q]);
	drack_ring_reset(&p->ret_in);
	if (p->id == p->self)
		return;
	for (q = 0; q < p->nq; q++)
		drack_ring_adopt_producer(&p->ref_out[q], false);
	drack_ring_adopt_producer(&p->ret_out, !after_fence);
}

bool drack_peer_alive(const struct drack_peer *p)
{
	u32 state = drack_host_state(p->pool, p->id);

	return state == DRACK_HOST_UP || state == DRACK_HOST_LEAVING;
}

bool drack_peer_ref_valid(const struct drack_peer *p,
			  const struct drack_ref *ref, u32 *buf_size)
{
	const struct drack_geometry *g = &p->pool->geo;
	u64 off = le64_to_cpu(ref->off);
	u32 len = le32_to_cpu(ref->len);
	u64 section = off >> DRACK_SECTION_SHIFT;
	struct drack_section_entry *e;
	u32 buf_class;

	*buf_size = 0;
	if (le16_to_cpu(ref->src) != p->id || off >= g->pool_size ||
	    section < g->meta_sections)
		return false;
	e = drack_section_entry(p->pool, section);
	buf_class = READ_ONCE(e->buf_class);
	if (le16_to_cpu(READ_ONCE(e->owner)) != p->id ||
	    buf_class >= DRACK_NR_CLASSES ||
	    off & (DRACK_CLASS_SIZE(buf_class) - 1))
		return false;
	*buf_size = DRACK_CLASS_SIZE(buf_class);
	return len >= ETH_HLEN && len <= DRACK_CLASS_SIZE(buf_class);
}

bool drack_peer_backoff(struct drack_peer *p, u32 bad, u32 n)
{
	if (bad < DRACK_PEER_BAD_BURST || bad * 2 < n)
		return false;
	p->quiet_ms = p->quiet_ms ?
		      min_t(u32, p->quiet_ms * 2, DRACK_PEER_QUIET_MAX_MS) : 1;
	WRITE_ONCE(p->quiet_until, jiffies + msecs_to_jiffies(p->quiet_ms));
	return true;
}

int drack_peer_take_returns(struct drack_peer *p, struct drack_alloc *a,
			    u64 *ok, u64 *bad)
{
	struct drack_ring *r = &p->ret_in;
	struct drack_ret *ret;
	int i, n, nbad = 0;

	n = drack_ring_avail(r);
	if (n < 0) {
		drack_peer_count_bad(&p->rx);
		return -1;
	}
	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		ret = drack_ring_peek(r, i);
		if (drack_buf_return(a, le64_to_cpu(READ_ONCE(ret->off)), p->id))
			nbad++;
	}
	drack_ring_consume(r, n);
	*ok += n - nbad;
	*bad += nbad;
	trace_drack_buf_return(p->pool->id, p->self, p->id, n - nbad, nbad);
	return 0;
}

bool drack_peer_flush(struct drack_peer *p, u32 q)
{
	bool kick;

	kick = drack_ring_flush(&p->ref_out[q]);
	if (kick)
		drack_pool_kick(p->pool, p->id);
	return kick;
}

void drack_peer_forget(struct drack_peer *p)
{
	u32 q;

	for (q = 0; q < p->nq; q++)
		drack_ring_skip(&p->ref_in[q]);
}

bool drack_peer_rx_pending(const struct drack_peer *p)
{
	u32 q;

	for (q = 0; q < p->nq; q++)
		if (drack_ring_pending(&p->ref_in[q]))
			return true;
	return false;
}

void drack_peer_stats_read(const struct drack_peer_stats *s, u64 *packets,
			   u64 *bytes, u64 *bad)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		*packets = u64_stats_read(&s->packets);
		*bytes = u64_stats_read(&s->bytes);
		*bad = u64_stats_read(&s->bad);
	} while (u64_stats_fetch_retry(&s->syncp, start));
}

void drack_peer_tx_read(const struct drack_peer *p, u64 *packets, u64 *bytes)
{
	u64 pk, by, bad;
	u32 q;

	*packets = 0;
	*bytes = 0;
	for (q = 0; q < DRACK_MAX_QUEUES; q++) {
		drack_peer_stats_read(&p->tx[q], &pk, &by, &bad);
		*packets += pk;
		*bytes += by;
	}
}
