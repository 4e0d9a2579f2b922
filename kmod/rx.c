// SPDX-License-Identifier: GPL-2.0-only
/*
 * Receive: NAPI polls our ref_queue[peer] rings, validates every reference
 * read from the pool, builds an skb around the Buffer (rxref.c) or copies
 * the frame, hands the Buffer back to its owner on the return ring once
 * the stack is done with it, and takes back our own Buffers.
 */
#include <linux/etherdevice.h>
#include <linux/virtio_net.h>
#include <net/busy_poll.h>
#include "cxl_delay.h"
#include "device.h"
#include "trace.h"

#define DRACK_RX_LINEAR	256

struct sk_buff *drack_skb_from_buf(struct napi_struct *napi, const void *buf,
				   u32 len)
{
	u32 linear = min_t(u32, len, DRACK_RX_LINEAR);
	struct sk_buff *skb;
	int err;

	if (len <= DRACK_RX_LINEAR * 8) {
		skb = napi_alloc_skb(napi, len);
		if (skb)
			skb_put_data(skb, buf, len);
		return skb;
	}
	skb = alloc_skb_with_frags(NET_SKB_PAD + NET_IP_ALIGN + linear,
				   len - linear, PAGE_ALLOC_COSTLY_ORDER, &err,
				   GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, NET_SKB_PAD + NET_IP_ALIGN);
	skb_put(skb, linear);
	skb->data_len = len - linear;
	skb->len += len - linear;
	if (skb_store_bits(skb, 0, buf, len)) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/*
 * Hand the frame to the stack, by reference if @size (the Buffer may be
 * held: a live owner, a real Buffer of its). True if the skb holds the
 * Buffer, to be handed back once the stack lets go of it (rxref.c).
 */
static bool drack_rx_deliver(struct drack_rxq *rq, struct drack_peer *p,
			     const struct drack_ref *ref, u32 size)
{
	struct drack_dev *dd = rq->dd;
	u32 len = le32_to_cpu(ref->len);
	struct sk_buff *skb;
	bool held;

	skb = drack_rxref_skb(dd, &rq->napi, p, le64_to_cpu(ref->off), len,
			      size, le16_to_cpu(ref->flags), &held);
	if (!skb) {
		drack_stat_inc(&dd->stats, DRACK_S_RX_ALLOC_FAIL);
		return false;
	}
	if (virtio_net_hdr_to_skb(skb, &ref->vnet, true)) {
		drack_stat_inc(&dd->stats, DRACK_S_RX_BAD_DESC);
		drack_peer_count_bad(&p->rx);
		kfree_skb(skb);
		return held;
	}
	if (ref->vnet.flags & VIRTIO_NET_HDR_F_DATA_VALID)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb->protocol = eth_type_trans(skb, dd->ndev);
	drack_stat_inc(&dd->stats, DRACK_S_RX_PACKETS);
	drack_stat_add(&dd->stats, DRACK_S_RX_BYTES, len);
	drack_peer_count(&p->rx, len);
	drack_peer_count(&rq->stats, len);
	skb_record_rx_queue(skb, rq->index);
	/* Up the stack once rx_lock is dropped: queues run it in parallel. */
	__skb_queue_tail(&rq->deliver, skb);
	return held;
}

/* Room to hand @p's Buffers back; a reset of the ring is not garbage. */
static int drack_rx_ret_space(struct drack_peer *p)
{
	int space = drack_ring_space(&p->ret_out);

	return space < 0 ? drack_ring_space(&p->ret_out) : space;
}

/* What one poll of a peer's rings shares: room to hand Buffers back. */
struct drack_rx_peer_poll {
	bool alive, blocked;
	int space;
	u32 nbad;
};

/*
 * Consume up to @budget references from ring @r of @p; deliver them
 * through @rq when it is set (through @prog if one is attached), else
 * drop them. Returns how many were consumed. rx_lock held.
 */
static int drack_rx_ring(struct drack_dev *dd, struct drack_rxq *rq,
			 struct drack_peer *p, struct drack_ring *r,
			 struct drack_rx_peer_poll *pp, int budget,
			 struct bpf_prog *prog)
{
	bool deliver = rq, valid, held;
	struct drack_ref ref;
	int n, done = 0;
	u32 size;

	n = drack_ring_avail(r);
	if (n < 0) {
		drack_stat_inc(&dd->stats, DRACK_S_RX_BAD_RING);
		drack_peer_count_bad(&p->rx);
		pp->nbad += DRACK_PEER_BAD_BURST;
		return 0;
	}

	for (; done < n && done < budget; done++) {
		/* Never take a reference we could not hand back. */
		if (pp->alive && pp->space <= 0) {
			pp->blocked = true;
			break;
		}
		/* One copy out of shared memory: validate what we use. */
		memcpy(&ref, drack_ring_peek(r, done), sizeof(ref));
		valid = drack_peer_ref_valid(p, &ref, &size);
		if (valid)
			trace_drack_receive(dd->ndev, dd->pool->id, dd->host,
					    p->id, le32_to_cpu(ref.len),
					    le64_to_cpu(ref.off), !deliver);
		held = false;
		if (!valid) {
			drack_stat_inc(&dd->stats, DRACK_S_RX_BAD_DESC);
			drack_peer_count_bad(&p->rx);
			pp->nbad++;
		} else if (deliver && prog) {
			/* A copy is judged: the Buffer goes back at once. */
			drack_stat_inc(&dd->stats, DRACK_S_RX_REFS);
			drack_xdp_rx(rq, p, &ref, prog);
		} else if (deliver) {
			drack_stat_inc(&dd->stats, DRACK_S_RX_REFS);
			/* Held only if it can be handed back later. */
			held = drack_rx_deliver(rq, p, &ref,
						pp->alive &&
						!READ_ONCE(dd->hoarding) ?
						size : 0);
		} else {
			drack_stat_inc(&dd->stats, DRACK_S_RX_DROPPED);
		}
		/* Fault injection: a peer that never hands Buffers back. */
		if (held || !size || !pp->alive || READ_ONCE(dd->hoarding))
			continue;
		drack_peer_return(p, ref.off);
		pp->space--;
	}
	if (done)
		drack_ring_consume(r, done);
	return done;
}

/*
 * Poll @peer's rings @q, @q + @step, ... within @budget (see
 * drack_rx_ring()). What concerns the peer, not one ring, is done once:
 * taking back what the stack let go of, judging its garbage, flushing
 * its return ring. Returns how many references were consumed.
 */
static int drack_rx_peer(struct drack_dev *dd, struct drack_rxq *rq,
			 u32 peer, u32 q, u32 step, int budget,
			 struct bpf_prog *prog)
{
	struct drack_peer *p = &dd->peers[peer];
	struct drack_rx_peer_poll pp = {};
	int done = 0;

	if (drack_peer_quiet(p))
		return 0;
	pp.alive = drack_peer_alive(p);
	pp.space = pp.alive ? drack_rx_ret_space(p) : 0;
	/* Buffers the stack let go of first: they free the ring's room too. */
	drack_rxref_reclaim(dd, p, pp.alive, &pp.space);

	for (; q < p->nq && done < budget && !pp.blocked; q += step)
		done += drack_rx_ring(dd, rq, p, &p->ref_in[q], &pp,
				      budget - done, prog);
	if (drack_peer_judge(p, pp.nbad, max_t(u32, done, pp.nbad)))
		drack_stat_inc(&dd->stats, DRACK_S_RX_PEER_BACKOFFS);
	/* The owner takes returns back lazily: wake it when we are stuck. */
	if (drack_ring_flush(&p->ret_out) || pp.blocked) {
		drack_stat_inc(&dd->stats, DRACK_S_RET_DOORBELLS);
		drack_pool_kick(dd->pool, peer);
	}
	return done;
}

void drack_rx_drain_returns(struct drack_dev *dd, u64 peers)
{
	u64 ok = 0, bad = 0, pok, pbad, m;
	struct drack_peer *p;
	int garbage;
	u32 peer;

	/* Not just present peers: one that left returned ours. */
	drack_for_each_in(peers, peer, m) {
		p = &dd->peers[peer];
		/* Held Buffers of an owner gone: it took them back already. */
		if (p->held.live && !drack_peer_alive(p))
			drack_rxref_reclaim(dd, p, false, NULL);
		/* Most rings are empty: one load, no call (a poll visits all). */
		if (!drack_ring_pending(&p->ret_in) || drack_peer_quiet(p))
			continue;
		pok = 0;
		pbad = 0;
		garbage = drack_peer_take_returns(p, &dd->alloc, &pok, &pbad);
		if (garbage)
			drack_stat_inc(&dd->stats, DRACK_S_RX_BAD_RING);
		if (garbage ? drack_peer_judge(p, DRACK_PEER_BAD_BURST,
					       DRACK_PEER_BAD_BURST) :
			      drack_peer_judge(p, pbad, pok + pbad))
			drack_stat_inc(&dd->stats, DRACK_S_RX_PEER_BACKOFFS);
		ok += pok;
		bad += pbad;
	}
	if (ok)
		drack_stat_add(&dd->stats, DRACK_S_RET_OK, ok);
	if (bad)
		drack_stat_add(&dd->stats, DRACK_S_RET_BAD, bad);
}

/* Interface down or leaving: hand back whatever peers queued to us. */
void drack_rx_drop_all(struct drack_dev *dd)
{
	u32 peer;
	u64 m;

	drack_for_each_peer(dd, peer, m)
		drack_rx_peer(dd, NULL, peer, 0, 1, INT_MAX, NULL);
}

/* Do we still hold references to Buffers of live owners? */
bool drack_rx_holds_buffers(struct drack_dev *dd)
{
	u32 peer;
	u64 m;

	if (drack_rxref_holding(dd, drack_all_peers(dd)))
		return true;
	drack_for_each_peer(dd, peer, m)
		if (drack_peer_rx_pending(&dd->peers[peer]) &&
		    drack_peer_alive(&dd->peers[peer]))
			return true;
	return false;
}

/* Returns need a doorbell only when something waits for them. */
bool drack_rx_want_returns(struct drack_dev *dd)
{
	u32 c;

	if (drack_tx_any_stopped(dd))
		return true;
	/* Only a class with Sections gets anything from returns. */
	for (c = 0; c < DRACK_NR_CLASSES; c++)
		if (READ_ONCE(dd->alloc.cls[c].total) &&
		    drack_alloc_low(&dd->alloc, c))
			return true;
	return false;
}

/*
 * Are Buffers coming home that queue 0 should take back now? Returns are
 * taken lazily: at once when something waits for them, else once a
 * quarter of a return ring has built up, and at the latest by the
 * liveness poll. A doorbell for another queue's frames does not cost
 * queue 0 a poll of its own.
 */
bool drack_rx_returns_due(struct drack_dev *dd)
{
	bool want = false, asked = false;
	struct drack_ring *r;
	u32 peer, n;
	u64 m;

	drack_for_each_in(READ_ONCE(dd->watch), peer, m) {
		if (drack_peer_quiet(&dd->peers[peer]))
			continue;
		r = &dd->peers[peer].ret_in;
		/* Not trusted: a bad index only makes the poll come sooner. */
		n = drack_ring_prod(r) - READ_ONCE(r->idx);
		if (!n)
			continue;
		if (n >= r->size / 4)
			return true;
		if (!asked) {
			want = drack_rx_want_returns(dd);
			asked = true;
		}
		if (want)
			return true;
	}
	return false;
}

/* Any of our Buffers on a return ring, due or not? */
bool drack_rx_returns_pending(struct drack_dev *dd)
{
	u32 peer;
	u64 m;

	drack_for_each_in(READ_ONCE(dd->watch), peer, m)
		if (!drack_peer_quiet(&dd->peers[peer]) &&
		    drack_ring_pending(&dd->peers[peer].ret_in))
			return true;
	return false;
}

/* References to take, or returns due: what a doorbell or poller is for. */
bool drack_rx_pending(struct drack_dev *dd)
{
	u32 peer;
	u64 m;

	drack_for_each_peer(dd, peer, m)
		if (drack_peer_rx_pending(&dd->peers[peer]))
			return true;
	return drack_rx_returns_due(dd);
}

/*
 * Ask peers for a doorbell on their next entry to @rq; true if one came.
 * A peer whose return ring is full is left to the heartbeat poll, so one
 * that stops draining cannot keep us spinning. Queue 0 also asks for
 * returns: at once when something waits for them, else once a quarter
 * of a return ring waits.
 */
static bool drack_rx_arm(struct drack_rxq *rq)
{
	struct drack_dev *dd = rq->dd;
	u32 channels = READ_ONCE(dd->channels), peer, q;
	bool pending = false, want;
	struct drack_peer *p;
	struct drack_ring *r;
	u64 m;

	/*
	 * Arm only the rings this queue owns now: during a change of
	 * channels a ring's old poller could write an older event index
	 * over its new one's and silence its doorbells.
	 */
	if (rq->index >= channels)
		return false;
	drack_for_each_peer(dd, peer, m) {
		p = &dd->peers[peer];
		if (drack_peer_quiet(p))
			continue;
		for (q = rq->index; q < p->nq; q += channels)
			if (drack_ring_arm(&p->ref_in[q]) &&
			    (drack_ring_used(&p->ret_out) < p->ret_out.size ||
			     !drack_peer_alive(p)))
				pending = true;
	}
	if (rq->index)
		return pending;
	/* Returns at once when something waits, else by the quarter ring. */
	want = drack_rx_want_returns(dd);
	drack_for_each_in(READ_ONCE(dd->watch), peer, m) {
		if (drack_peer_quiet(&dd->peers[peer]))
			continue;
		r = &dd->peers[peer].ret_in;
		pending |= want ? drack_ring_arm(r) :
				  drack_ring_arm_after(r, r->size / 4);
	}
	return pending;
}

/*
 * GRO holds no packet and has none waiting for the list receive. Its
 * state is in struct gro_node from 6.15 (Kbuild); only 6.1 and 6.12 are
 * built and tested here.
 */
static bool drack_rx_gro_idle(const struct napi_struct *napi)
{
#ifdef DRACK_HAVE_GRO_NODE
	return !napi->gro.bitmask && !napi->gro.rx_count;
#else
	return !napi->gro_bitmask && !napi->rx_count;
#endif
}

/*
 * GRO has nothing to merge @skb with: a small frame (a short request, a
 * pure ACK), or a GSO frame, which GRO flushes at once when it is not TCP
 * or, as every frame virtio_net_hdr_to_skb() built, DODGY
 * (dev_gro_receive()).
 */
static bool drack_rx_no_gro(const struct sk_buff *skb)
{
	if (skb->len <= DRACK_RX_SMALL && !skb->data_len)
		return true;
	return skb_is_gso(skb) &&
	       (!skb_is_gso_tcp(skb) ||
		(skb_shinfo(skb)->gso_type & SKB_GSO_DODGY));
}

/*
 * Pass what this poll built up the stack, rx_lock dropped. While GRO
 * holds nothing, a frame it could not merge goes up at once, without
 * GRO's flow lookup and the list receive after it. Once GRO holds a
 * frame, all that follow go there too, so a flow stays in order.
 */
static void drack_rx_up(struct drack_rxq *rq)
{
	struct napi_struct *napi = &rq->napi;
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(&rq->deliver))) {
		if (drack_rx_no_gro(skb) && drack_rx_gro_idle(napi)) {
			skb_mark_napi_id(skb, napi);
			netif_receive_skb(skb);
		} else {
			napi_gro_receive(napi, skb);
		}
	}
}

int drack_napi_poll(struct napi_struct *napi, int budget)
{
	struct drack_rxq *rq = container_of(napi, struct drack_rxq, napi);
	struct drack_dev *dd = rq->dd;
	u64 peers = READ_ONCE(dd->present), before, m;
	u32 channels = READ_ONCE(dd->channels) ?: 1;
	bool first = !rq->index;
	struct bpf_prog *prog;
	int done = 0, i;

	/*
	 * netpoll polls with budget 0, with interrupts off, maybe from hard
	 * irq: only TX may be cleaned then, and ours is cleaned under
	 * rx_lock (returns). Nothing to do.
	 */
	if (unlikely(!budget))
		return 0;
	/* A fenced or hung host leaves the pool alone. */
	if (unlikely(!drack_dev_active(dd))) {
		napi_complete_done(napi, 0);
		return 0;
	}

	if (first) {
		spin_lock(&dd->rx_lock);
		drack_rx_drain_returns(dd, READ_ONCE(dd->watch));
		spin_unlock(&dd->rx_lock);
		drack_nic_port_bufs_back(dd);	/* vNICs waiting for them */
		/* Only now, with returns taken back, is a class really short. */
		drack_dev_request_sections(dd);
	}
	/* Fault injection: alive, but its ref_queues only fill up. */
	if (unlikely(READ_ONCE(dd->deaf))) {
		drack_tx_maybe_wake(dd);
		napi_complete_done(napi, 0);
		return 0;
	}

	drack_cxl_delay();
	/* Round robin: peers from rx_next on first, then those before it. */
	before = peers & (BIT_ULL(rq->rx_next) - 1);
	rcu_read_lock();
	prog = rcu_dereference(dd->xdp.prog);
	spin_lock(&dd->rx_lock);
	for (i = 0; i < 2; i++)
		for (m = i ? before : peers & ~before; m && done < budget;
		     m &= m - 1)
			done += drack_rx_peer(dd, rq, __ffs64(m), rq->index,
					      channels, budget - done, prog);
	rq->rx_next = (rq->rx_next + 1) % dd->nhosts;
	spin_unlock(&dd->rx_lock);
	drack_rx_up(rq);
	/* XDP_TX frames are posted under a TX lock, rx_lock dropped. */
	if (prog)
		drack_xdp_poll_end(rq);
	rcu_read_unlock();

	drack_tx_maybe_wake(dd);
	if (done < budget && napi_complete_done(napi, done)) {
		if (drack_rx_arm(rq))
			napi_schedule(napi);
		/*
		 * Nothing tells us when the stack lets go of a page: look,
		 * at once while Buffers come back, every 50 ms while none do.
		 */
		else if (drack_rxref_holding(dd, READ_ONCE(dd->watch)) &&
			 !timer_pending(&dd->held_timer))
			mod_timer(&dd->held_timer, jiffies +
				  (READ_ONCE(dd->held_progress) ? 1 : HZ / 20));
		WRITE_ONCE(dd->held_progress, false);
	}
	return done;
}

void drack_rx_held_timer(struct timer_list *t)
{
	struct drack_dev *dd = from_timer(dd, t, held_timer);

	napi_schedule(drack_dev_napi(dd));
}
