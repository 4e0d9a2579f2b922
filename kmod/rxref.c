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
 * Two 2 KB Buffers share a page: one is handed back only when both are
 * let go of. A peer's Buffers held at once are capped (rx_ref_max_mb):
 * past the cap frames are copied and their Buffers handed back at once,
 * so an application that never reads cannot drain the sender's Sections.
 */
#include <linux/etherdevice.h>
#include <linux/mm.h>
#include "device.h"

#define DRACK_RX_HDR_MAX	256	/* header bytes copied, at most */
#define DRACK_HELD_MAX		1024	/* Buffers of one peer held, at most */
#define DRACK_HELD_SCAN		128	/* held Buffers checked per poll */

static unsigned int drack_rx_ref_max_mb = 4;
module_param_named(rx_ref_max_mb, drack_rx_ref_max_mb, uint, 0644);
MODULE_PARM_DESC(rx_ref_max_mb,
		 "Buffers of one peer that sockets may hold by reference, in MB; past it frames are copied; 0: always copy (default 4)");

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

/* May the peer's Buffer of @size bytes be held? */
static bool drack_rxref_room(const struct drack_held *h, u32 size)
{
	u64 max = (u64)READ_ONCE(drack_rx_ref_max_mb) << 20;

	return h->buf && h->n < h->cap && h->bytes + size <= max;
}

static struct sk_buff *drack_rxref_build(struct drack_dev *dd, u64 off,
					 u32 len, u32 size)
{
	struct page **pages = dd->pool->pages;
	const u8 *buf = drack_pool_ptr(dd->pool, off);
	u32 truesize = min_t(u32, size, PAGE_SIZE);
	u64 pos, end = off + len;
	struct sk_buff *skb;
	u32 hlen, n;
	int i = 0;

	/* Read from shared memory: a wrong answer only moves the split. */
	hlen = eth_get_headlen(dd->ndev, buf, min_t(u32, len,
						    DRACK_RX_HDR_MAX));
	hlen = clamp_t(u32, hlen, ETH_HLEN, min_t(u32, len, DRACK_RX_HDR_MAX));
	skb = napi_alloc_skb(&dd->napi, hlen);
	if (!skb)
		return NULL;
	skb_put_data(skb, buf, hlen);
	/* A Buffer is at most 64 KB, aligned to its size: 16 pages. */
	for (pos = off + hlen; pos < end; pos += n, i++) {
		struct page *page = pages[pos >> PAGE_SHIFT];
		u32 pgoff = offset_in_page(pos);

		n = min_t(u64, end - pos, PAGE_SIZE - pgoff);
		get_page(page);
		skb_add_rx_frag(skb, i, page, pgoff, n, truesize);
	}
	return skb;
}

struct sk_buff *drack_rxref_skb(struct drack_dev *dd, struct drack_peer *p,
				u64 off, u32 len, u32 size, bool *held)
{
	const void *buf = drack_pool_ptr(dd->pool, off);
	struct drack_held *h = &p->held;
	struct drack_held_buf *b;
	struct sk_buff *skb;

	*held = false;
	if (len <= READ_ONCE(dd->rx_copybreak)) {
		drack_stat_inc(&dd->stats, DRACK_S_RX_COPYBREAK);
		return drack_skb_from_buf(&dd->napi, buf, len);
	}
	if (!size || !drack_rxref_room(h, size)) {
		drack_stat_inc(&dd->stats, DRACK_S_RX_COPIED);
		return drack_skb_from_buf(&dd->napi, buf, len);
	}
	skb = drack_rxref_build(dd, off, len, size);
	if (!skb)
		return NULL;
	b = &h->buf[h->n++];
	b->off = off;
	b->len = len;
	b->size = size;
	h->bytes += size;
	*held = true;
	drack_stat_inc(&dd->stats, DRACK_S_RX_BYREF);
	drack_stat_inc(&dd->stats, DRACK_S_RX_HELD);
	return skb;
}

/* Every page of the Buffer is down to the pool's own reference. */
static bool drack_rxref_let_go(struct page **pages,
			       const struct drack_held_buf *b)
{
	unsigned long pg = b->off >> PAGE_SHIFT;
	unsigned long last = (b->off + b->len - 1) >> PAGE_SHIFT;

	for (; pg <= last; pg++)
		if (page_ref_count(pages[pg]) != 1)
			return false;
	return true;
}

u32 drack_rxref_reclaim(struct drack_dev *dd, struct drack_peer *p,
			bool alive, int *space)
{
	struct page **pages = dd->pool->pages;
	struct drack_held *h = &p->held;
	u32 scanned, i, done = 0;
	bool fenced = false;

	if (!h->n)
		return 0;
	if (h->next >= h->n)
		h->next = 0;
	i = h->next;
	for (scanned = 0; scanned < DRACK_HELD_SCAN && h->n; scanned++) {
		struct drack_held_buf *b = &h->buf[i];

		if (alive && *space <= 0)
			break;
		if (!drack_rxref_let_go(pages, b)) {
			if (++i >= h->n)
				i = 0;
			continue;
		}
		if (!fenced) {
			/* The stack's reads of the pages before the owner's writes. */
			smp_mb();
			fenced = true;
		}
		/* A departed owner took its Buffers back when it went. */
		if (alive) {
			drack_peer_return(p, cpu_to_le64(b->off));
			(*space)--;
		}
		h->bytes -= b->size;
		*b = h->buf[--h->n];
		done++;
		if (i >= h->n)
			i = 0;
	}
	h->next = i;
	if (done)
		drack_stat_add(&dd->stats, DRACK_S_RX_HELD, -(u64)done);
	return done;
}

bool drack_rxref_holding(struct drack_dev *dd)
{
	u32 p;

	for (p = 0; p < dd->nhosts; p++)
		if (dd->peers[p].held.n)
			return true;
	return false;
}

u32 drack_rxref_forget(struct drack_dev *dd)
{
	u32 p, n = 0;

	for (p = 0; p < dd->nhosts; p++) {
		struct drack_held *h = &dd->peers[p].held;

		n += h->n;
		if (h->n)
			drack_stat_add(&dd->stats, DRACK_S_RX_HELD, -(u64)h->n);
		h->n = 0;
		h->bytes = 0;
	}
	return n;
}
