// SPDX-License-Identifier: GPL-2.0-only
/*
 * Receive by reference: an skb built around the peer's Buffer. The
 * headers the stack parses are copied into the linear area, so nothing
 * it validates can change under it; the payload stays in the pool as
 * page frags, each with its own page reference. Whatever becomes of the
 * skb (read by a socket, freed, merged by GRO, cloned, spliced to a pipe,
 * forwarded) ends in put_page(), so the Buffer goes back to its owner
 * once every page it spans is down to the pool's own reference.
 *
 * Buffers that share a page (2 KB ones: two in a single page, 32 in one
 * of the ram pool's 64 KB compound pages) go back only once all are let
 * go of. A peer's Buffers held at once are capped (rx_ref_max_mb):
 * past the cap frames are copied and their Buffers handed back at once,
 * so an application that never reads cannot drain the sender's Sections.
 * Only an UP owner's Buffers are held, not those of a Section it is asked
 * to give back; a held Buffer goes back only to the incarnation of its
 * owner that lent it (the host table's generation).
 */
#include <linux/etherdevice.h>
#include <linux/mm.h>
#include "device.h"

/*
 * Bytes copied into the linear area: every header the stack parses, as
 * long as they fit. Not eth_get_headlen() on shared memory: a peer could
 * make it return ETH_HLEN, and GRO would then parse the headers in place
 * (frag0), in memory the peer can still change.
 */
#define DRACK_RX_HDR_MAX	256
#define DRACK_HELD_SCAN		128	/* held Buffers checked per part of a poll */
#define DRACK_HELD_MISSES	4	/* behind the head: still held, then stop */
#define DRACK_HELD_OLD		(HZ / 10) /* held longer at the head: to the tail */
#define DRACK_HELD_ROTATE	4	/* further on, checked per poll in turn */

static_assert(!(DRACK_HELD_MAX & (DRACK_HELD_MAX - 1)));

static unsigned int drack_rx_ref_max_mb = 4;
module_param_named(rx_ref_max_mb, drack_rx_ref_max_mb, uint, 0644);
MODULE_PARM_DESC(rx_ref_max_mb,
		 "Buffers of one peer that sockets may hold by reference, in MB; past it frames are copied; 0: always copy (default 4)");

u64 drack_rxref_max_bytes(void)
{
	return (u64)READ_ONCE(drack_rx_ref_max_mb) << 20;
}

int drack_rxref_init(struct drack_dev *dd)
{
	u32 p;

	dd->rx_copybreak = DRACK_RX_COPYBREAK;
	if (!dd->pool->pages)
		return 0;
	for (p = 0; p < dd->nhosts; p++) {
		struct drack_held *h = &dd->peers[p].held;

		if (p == dd->host)
			continue;
		h->buf = kvcalloc(DRACK_HELD_MAX, sizeof(*h->buf), GFP_KERNEL);
		if (!h->buf) {
			drack_rxref_free(dd);
			return -ENOMEM;
		}
		h->cap = DRACK_HELD_MAX;
	}
	return 0;
}

void drack_rxref_free(struct drack_dev *dd)
{
	u32 p;

	for (p = 0; dd->peers && p < dd->nhosts; p++) {
		kvfree(dd->peers[p].held.buf);
		memset(&dd->peers[p].held, 0, sizeof(dd->peers[p].held));
	}
}

static struct drack_held_buf *drack_held_at(const struct drack_held *h, u32 i)
{
	return &h->buf[(h->head + i) & (h->cap - 1)];
}

/*
 * Close the gaps: a Buffer at the head that a socket never lets go of
 * must not keep the ring full of gaps behind it. Rare, as it needs a
 * full ring: O(cap) then.
 */
static void drack_held_compact(struct drack_held *h)
{
	u32 i, j = 0;

	for (i = 0; i < h->n; i++) {
		struct drack_held_buf *b = drack_held_at(h, i);

		if (b->size)
			*drack_held_at(h, j++) = *b;
	}
	h->n = j;
	h->next = 0;
}

/* May the peer's Buffer of @size bytes be held, within our own cap? */
static bool drack_rxref_room(struct drack_held *h, u32 size)
{
	if (h->bytes + size > drack_rxref_max_bytes())
		return false;
	if (h->n == h->cap && h->live < h->cap)
		drack_held_compact(h);
	return h->n < h->cap;
}

static struct sk_buff *drack_rxref_build(struct drack_dev *dd,
					 struct napi_struct *napi, u64 off,
					 u32 len, u32 size)
{
	struct page **pages = dd->pool->pages;
	const u8 *buf = drack_pool_ptr(dd->pool, off);
	u32 hlen = min_t(u32, len, DRACK_RX_HDR_MAX);
	u64 pos, end = off + len;
	struct sk_buff *skb;
	int i = 0;
	u32 n;

	skb = napi_alloc_skb(napi, hlen);
	if (!skb)
		return NULL;
	skb_put_data(skb, buf, hlen);
	/*
	 * A frag per page the Buffer spans: one in a 64 KB compound page (a
	 * frag may run past a page only inside one: a pipe the socket was
	 * spliced into reads it so), sixteen in single pages. A 2 KB Buffer
	 * on a compound page (an FM short of single pages) counts its own
	 * size, though it holds the whole page back: the caps bound that.
	 */
	for (pos = off + hlen; pos < end; pos += n, i++) {
		struct page *page = pages[pos >> PAGE_SHIFT];
		struct page *head = compound_head(page);
		u32 pgoff = ((page_to_pfn(page) - page_to_pfn(head)) << PAGE_SHIFT) +
			    offset_in_page(pos);

		n = min_t(u64, end - pos, page_size(head) - pgoff);
		get_page(head);
		skb_add_rx_frag(skb, i, head, pgoff, n,
				min_t(u32, size, page_size(head)));
	}
	/* Others can read the pages: never decrypt (ESP) into them in place. */
	skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
	return skb;
}

/*
 * May @p's Buffer at @off of @size bytes be held: an UP owner below half
 * its lending cap, the Section not revoked? DRACK_S_RX_BYREF if so, else
 * the counter of why it is copied.
 */
static enum drack_dev_stat drack_rxref_holdable(struct drack_dev *dd,
						struct drack_peer *p, u64 off,
						u32 size, u32 *gen)
{
	struct drack_pool *pool = dd->pool;
	const struct drack_host_entry *e = drack_host_entry(pool, p->id);
	const struct drack_section_entry *s;
	u32 cap_kb, c, secs;

	if (drack_host_state(pool, p->id) != DRACK_HOST_UP)
		return DRACK_S_RX_COPIED;
	/*
	 * Half of what the owner lends one peer at most (0: it sets no
	 * cap): holding more would stop its queue, as if we were stalled.
	 */
	cap_kb = le32_to_cpu(READ_ONCE(e->lend_cap_kb));
	if (cap_kb && p->held.bytes + size > (u64)cap_kb << 9)
		return DRACK_S_RX_COPIED_LEND_CAP;
	/*
	 * And half of what it owns of the class: a socket that never reads
	 * must not hold all of a small owner's Buffers either.
	 */
	c = drack_buf_class(size);
	secs = le16_to_cpu(READ_ONCE(e->lend_sections[c]));
	if (secs && p->held.class_bytes[c] + size >
		    (u64)secs << (DRACK_SECTION_SHIFT - 1))
		return DRACK_S_RX_COPIED_LEND_CAP;
	s = drack_section_entry(pool, off >> DRACK_SECTION_SHIFT);
	if (READ_ONCE(s->flags) & DRACK_SECTION_F_REVOKE)
		return DRACK_S_RX_COPIED_REVOKE;
	*gen = le32_to_cpu(READ_ONCE(e->generation));
	return DRACK_S_RX_BYREF;
}

struct sk_buff *drack_rxref_skb(struct drack_dev *dd, struct napi_struct *napi,
				struct drack_peer *p, u64 off, u32 len, u32 size,
				u16 ref_flags, bool *held)
{
	const void *buf = drack_pool_ptr(dd->pool, off);
	struct drack_held *h = &p->held;
	enum drack_dev_stat how;
	struct drack_held_buf *b;
	struct sk_buff *skb;
	u32 gen;

	*held = false;
	if (len <= READ_ONCE(dd->rx_copybreak))
		how = DRACK_S_RX_COPYBREAK;
	else if (!size || !h->buf)	/* no pages, or the owner is gone */
		how = DRACK_S_RX_COPIED;
	else if (ref_flags & DRACK_REF_F_SCARCE)	/* it needs it back */
		how = DRACK_S_RX_COPIED_SCARCE;
	else if (!drack_rxref_room(h, size))
		how = DRACK_S_RX_COPIED_HELD_MAX;
	else
		how = drack_rxref_holdable(dd, p, off, size, &gen);
	if (how == DRACK_S_RX_BYREF) {
		skb = drack_rxref_build(dd, napi, off, len, size);
		if (!skb)
			return NULL;
		b = drack_held_at(h, h->n++);
		WRITE_ONCE(h->live, h->live + 1);
		b->off = off;
		b->len = len;
		b->size = size;
		b->gen = gen;
		b->since = (u32)jiffies;
		h->bytes += size;
		h->class_bytes[drack_buf_class(size)] += size;
		*held = true;
		drack_stat_inc(&dd->stats, DRACK_S_RX_BYREF);
		drack_stat_add(&dd->stats, DRACK_S_RX_BYREF_FRAGS,
			       skb_shinfo(skb)->nr_frags);
		drack_stat_inc(&dd->stats, DRACK_S_RX_HELD);
		return skb;
	}
	skb = drack_skb_from_buf(napi, buf, len);
	if (!skb)
		return NULL;
	drack_stat_inc(&dd->stats, how);
	/* rx_copied counts every copy; the others say why */
	if (how != DRACK_S_RX_COPYBREAK && how != DRACK_S_RX_COPIED)
		drack_stat_inc(&dd->stats, DRACK_S_RX_COPIED);
	return skb;
}

/*
 * Every page of the Buffer is down to the pool's own reference. A
 * compound page counts references on its head only, for all its Buffers.
 */
static bool drack_rxref_let_go(struct page **pages,
			       const struct drack_held_buf *b)
{
	unsigned long pg = b->off >> PAGE_SHIFT;
	unsigned long last = (b->off + b->len - 1) >> PAGE_SHIFT;
	struct page *head;

	for (; pg <= last; pg++) {
		head = compound_head(pages[pg]);
		if (page_ref_count(head) != 1)
			return false;
		/* Past the compound page: the rest of the Buffer is in it. */
		pg += compound_nr(head) - 1 -
		      (page_to_pfn(pages[pg]) - page_to_pfn(head));
	}
	return true;
}

/* Stop tracking every Buffer of @p held (rx_lock held); how many. */
static u32 drack_rxref_drop(struct drack_dev *dd, struct drack_peer *p)
{
	struct drack_held *h = &p->held;
	u32 n = h->live;

	if (n)
		drack_stat_add(&dd->stats, DRACK_S_RX_HELD, -(u64)n);
	h->head = 0;
	h->n = 0;
	WRITE_ONCE(h->live, 0);
	h->next = 0;
	h->bytes = 0;
	memset(h->class_bytes, 0, sizeof(h->class_bytes));
	return n;
}

/*
 * Hand @b back if the stack let go of it, or forget it if its owner's
 * incarnation changed. Returns 1 if it is gone, 0 if still held, -1 if
 * the return ring has no room.
 */
static int drack_rxref_check(struct drack_dev *dd, struct drack_peer *p,
			     struct drack_held_buf *b, u32 gen, int *space,
			     bool *fenced)
{
	struct drack_held *h = &p->held;
	bool stale = b->gen != gen;

	if (!stale) {
		if (*space <= 0)
			return -1;
		if (!drack_rxref_let_go(dd->pool->pages, b))
			return 0;
		if (!*fenced) {
			/* The stack's reads of the pages before the owner's writes. */
			smp_mb();
			*fenced = true;
		}
		drack_peer_return(p, cpu_to_le64(b->off));
		(*space)--;
	}
	h->bytes -= b->size;
	h->class_bytes[drack_buf_class(b->size)] -= b->size;
	WRITE_ONCE(h->live, h->live - 1);
	b->size = 0;
	return 1;
}

/* Drop the head slot, a gap now. */
static void drack_held_pop(struct drack_held *h)
{
	h->head = (h->head + 1) & (h->cap - 1);
	h->n--;
	if (h->next)
		h->next--;
}

static bool drack_held_recent(const struct drack_held_buf *b)
{
	return (u32)jiffies - b->since < DRACK_HELD_OLD;
}

u32 drack_rxref_reclaim(struct drack_dev *dd, struct drack_peer *p,
			bool alive, int *space)
{
	struct drack_held *h = &p->held;
	u32 i, seen, limit, misses = 0, visits = 0, gen, done = 0;
	struct drack_held_buf *b, moved;
	bool fenced = false;
	int r = 0;

	if (!h->live) {
		h->n = 0;
		return 0;
	}
	/* Gone: it took its Buffers back when it went, none goes back. */
	if (!alive) {
		drack_rxref_drop(dd, p);
		return 0;
	}
	gen = le32_to_cpu(READ_ONCE(drack_host_entry(dd->pool, p->id)->generation));
	/*
	 * The head, oldest first: gaps go, what the stack let go of goes
	 * back, and one held over 100 ms moves to the tail, so that a
	 * socket that never reads holds back no Buffer behind its own. A
	 * recent one still held ends this part: sockets read in order.
	 */
	limit = h->n;
	for (seen = 0; seen < limit && visits < DRACK_HELD_SCAN; seen++) {
		b = drack_held_at(h, 0);
		if (b->size) {
			visits++;
			r = drack_rxref_check(dd, p, b, gen, space, &fenced);
			if (r < 0)
				break;
			if (!r && drack_held_recent(b))
				break;
			if (r) {
				done++;
			} else {
				moved = *b;
				b->size = 0;
				drack_held_pop(h);
				*drack_held_at(h, h->n++) = moved;
				continue;
			}
		}
		drack_held_pop(h);
	}
	/* Behind it, until a few more are still held. */
	for (i = 1; r >= 0 && i < h->n && misses < DRACK_HELD_MISSES &&
	     visits < DRACK_HELD_SCAN; i++) {
		b = drack_held_at(h, i);
		if (!b->size)
			continue;
		visits++;
		r = drack_rxref_check(dd, p, b, gen, space, &fenced);
		if (r > 0)
			done++;
		else if (!r)
			misses++;
	}
	/* Then a few further on, in turn: sockets read at their own pace. */
	for (i = 0, visits = 0; r >= 0 && i < DRACK_HELD_ROTATE && h->live &&
	     visits < DRACK_HELD_SCAN; visits++) {
		if (h->next >= h->n)
			h->next = 0;
		b = drack_held_at(h, h->next);
		if (b->size) {
			i++;
			r = drack_rxref_check(dd, p, b, gen, space, &fenced);
			if (r < 0)
				break;
			if (r)
				done++;
		}
		h->next++;
	}
	/* The head moves past what went back behind it. */
	while (h->n && !drack_held_at(h, 0)->size)
		drack_held_pop(h);
	if (done) {
		drack_stat_add(&dd->stats, DRACK_S_RX_HELD, -(u64)done);
		dd->held_progress = true;
	}
	return done;
}

bool drack_rxref_holding(struct drack_dev *dd, u64 peers)
{
	u32 p;
	u64 m;

	drack_for_each_in(peers, p, m)
		if (READ_ONCE(dd->peers[p].held.live))
			return true;
	return false;
}

u32 drack_rxref_forget(struct drack_dev *dd)
{
	u32 p, n = 0;

	for (p = 0; p < dd->nhosts; p++)
		n += drack_rxref_drop(dd, &dd->peers[p]);
	return n;
}
