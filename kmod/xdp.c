// SPDX-License-Identifier: GPL-2.0-only
/*
 * Native XDP. A program never sees the pool: each frame is copied once
 * out of the peer's Buffer into a page of rack0's page_pool, with
 * XDP_PACKET_HEADROOM in front, and the Buffer goes back to its owner at
 * once. A peer rewriting its Buffer cannot change what the program
 * judged, and nothing the program writes (headroom, metadata, tail) can
 * reach the pool. Copies per verdict (Documentation/xdp.rst): PASS 1 (the
 * skb is built around the page), DROP 1, REDIRECT 1 (the page is handed
 * on), TX 2 (the page into one of our Buffers, posted back to the
 * sending peer by reference). Frames redirected into rack0 are copied
 * once into our Buffers and sent as xmit sends.
 */
#include <linux/bpf_trace.h>
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <linux/if_vlan.h>
#include <linux/virtio_net.h>
#ifdef DRACK_HAVE_PP_HELPERS
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif
#include "device.h"

/* The largest frame a program sees: one page, no frags. */
#define DRACK_XDP_MAX_FRAME	(PAGE_SIZE - XDP_PACKET_HEADROOM - \
				 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))
#define DRACK_XDP_MAX_MTU	(DRACK_XDP_MAX_FRAME - VLAN_ETH_HLEN)

/* Undo drack_xdp_queue_init() of @rq, as far as it got. */
static void drack_xdp_queue_free(struct drack_rxq *rq)
{
	if (xdp_rxq_info_is_reg(&rq->xdp_rxq))
		xdp_rxq_info_unreg(&rq->xdp_rxq);
	/* Pages still out (in skbs, redirected) keep it until they return. */
	page_pool_destroy(rq->pp);
	rq->pp = NULL;
}

/*
 * A page_pool and an xdp_rxq_info per RX queue: a program sees the queue
 * a frame came in on (rx_queue_index) and its NAPI, and each pool's
 * lockless cache is used by its queue's NAPI only (redirected frames a
 * target hands back at xdp_do_flush() are recycled into it there).
 */
static int drack_xdp_queue_init(struct drack_dev *dd, struct drack_rxq *rq)
{
	struct page_pool_params pp = {
		.order = 0,
		.pool_size = 256,
		.nid = NUMA_NO_NODE,
	};
	int err;

	rq->pp = page_pool_create(&pp);
	if (IS_ERR(rq->pp)) {
		err = PTR_ERR(rq->pp);
		rq->pp = NULL;
		return err;
	}
	err = xdp_rxq_info_reg(&rq->xdp_rxq, dd->ndev, rq->index,
			       rq->napi.napi_id);
	if (!err)
		err = xdp_rxq_info_reg_mem_model(&rq->xdp_rxq,
						 MEM_TYPE_PAGE_POOL, rq->pp);
	if (err)
		drack_xdp_queue_free(rq);
	return err;
}

/* After drack_queues_init(): every queue that can ever run. */
int drack_xdp_init(struct drack_dev *dd)
{
	int err;
	u32 i;

	for (i = 0; i < dd->max_channels; i++) {
		err = drack_xdp_queue_init(dd, &dd->rxq[i]);
		if (err) {
			while (i--)
				drack_xdp_queue_free(&dd->rxq[i]);
			return err;
		}
	}
	return 0;
}

void drack_xdp_free(struct drack_dev *dd)
{
	u32 i;

	WARN_ON_ONCE(rcu_access_pointer(dd->xdp.prog));
	for (i = 0; i < dd->max_channels; i++)
		if (dd->rxq[i].pp)
			drack_xdp_queue_free(&dd->rxq[i]);
}

void drack_xdp_setup(struct net_device *ndev)
{
#ifdef DRACK_HAVE_XDP_FEATURES
	ndev->xdp_features = NETDEV_XDP_ACT_BASIC | NETDEV_XDP_ACT_REDIRECT |
			     NETDEV_XDP_ACT_NDO_XMIT;
#endif
}

static int drack_xdp_set(struct net_device *ndev, struct bpf_prog *prog,
			 struct netlink_ext_ack *extack)
{
	struct drack_dev *dd = netdev_priv(ndev);
	struct bpf_prog *old;

	if (prog && prog->aux->xdp_has_frags) {
		NL_SET_ERR_MSG_MOD(extack, "rack0 gives XDP one page per frame: no frags programs");
		return -EOPNOTSUPP;
	}
	if (prog && ndev->mtu > DRACK_XDP_MAX_MTU) {
		/* 6.1 has no NL_SET_ERR_MSG_FMT: the limit goes to the log. */
		NL_SET_ERR_MSG_MOD(extack, "MTU too large for XDP (one page per frame): see dmesg for the limit");
		netdev_info(ndev, "XDP needs an MTU of at most %lu, not %u\n",
			    (unsigned long)DRACK_XDP_MAX_MTU, ndev->mtu);
		return -EINVAL;
	}
	if (!dd->rxq[0].pp) {
		NL_SET_ERR_MSG_MOD(extack, "no XDP page pool");
		return -ENOMEM;
	}
	/* NAPI reads the pointer once per poll; the old one is freed after RCU. */
	old = rcu_replace_pointer(dd->xdp.prog, prog, lockdep_rtnl_is_held());
	if (old)
		bpf_prog_put(old);
	return 0;
}

int drack_xdp_bpf(struct net_device *ndev, struct netdev_bpf *bpf)
{
	switch (bpf->command) {
	case XDP_SETUP_PROG:
		return drack_xdp_set(ndev, bpf->prog, bpf->extack);
	default:
		return -EINVAL;
	}
}

int drack_xdp_change_mtu(struct net_device *ndev, int mtu)
{
	struct drack_dev *dd = netdev_priv(ndev);

	if (rtnl_dereference(dd->xdp.prog) && mtu > DRACK_XDP_MAX_MTU) {
		netdev_warn(ndev, "MTU %d too large with an XDP program: at most %lu\n",
			    mtu, (unsigned long)DRACK_XDP_MAX_MTU);
		return -EINVAL;
	}
	WRITE_ONCE(ndev->mtu, mtu);
	return 0;
}

/*
 * A sender that left the checksum to us (VIRTIO_NET_HDR_F_NEEDS_CSUM):
 * fill it in, as a NIC would have, so the program sees a wire frame.
 * @vnet is our copy of the reference, @data our copy of the frame.
 */
static bool drack_xdp_csum(u8 *data, u32 len, const struct virtio_net_hdr *vnet)
{
	u32 start = __virtio16_to_cpu(true, vnet->csum_start);
	u32 off = start + __virtio16_to_cpu(true, vnet->csum_offset);
	__wsum csum;

	if (!(vnet->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return true;
	if (start < ETH_HLEN || off + sizeof(__sum16) > len)
		return false;
	csum = csum_partial(data + start, len - start, 0);
	*(__sum16 *)(data + off) = csum_fold(csum) ?: CSUM_MANGLED_0;
	return true;
}

static void drack_xdp_pass(struct drack_rxq *rq, struct drack_peer *p,
			   struct page *page, const struct xdp_buff *xdp)
{
	struct drack_dev *dd = rq->dd;
	void *va = page_address(page);
	u32 len = xdp->data_end - xdp->data;
	u32 meta = xdp->data - xdp->data_meta;
	struct sk_buff *skb;

	skb = napi_build_skb(va, PAGE_SIZE);
	if (!skb) {
		page_pool_recycle_direct(rq->pp, page);
		drack_stat_inc(&dd->stats, DRACK_S_RX_ALLOC_FAIL);
		return;
	}
	skb_mark_for_recycle(skb);
	skb_reserve(skb, xdp->data - va);
	skb_put(skb, len);
	if (meta && meta <= 255)
		skb_metadata_set(skb, meta);
	/* What the program passed may differ from what was sent: check it. */
	skb->protocol = eth_type_trans(skb, dd->ndev);
	drack_stat_inc(&dd->stats, DRACK_S_XDP_PASS);
	drack_stat_inc(&dd->stats, DRACK_S_RX_PACKETS);
	drack_stat_add(&dd->stats, DRACK_S_RX_BYTES, len);
	drack_peer_count(&p->rx, len);
	drack_peer_count(&rq->stats, len);
	skb_record_rx_queue(skb, rq->index);
	__skb_queue_tail(&rq->deliver, skb);
}

/* Keep an XDP_TX frame for drack_xdp_poll_end(); false: no room. */
static bool drack_xdp_queue_tx(struct drack_rxq *rq, struct drack_peer *p,
			       struct page *page, const struct xdp_buff *xdp)
{
	struct drack_xdp_tx *t;

	if (rq->ntx >= ARRAY_SIZE(rq->tx))
		return false;
	t = &rq->tx[rq->ntx++];
	t->page = page;
	t->off = xdp->data - page_address(page);
	t->len = xdp->data_end - xdp->data;
	t->peer = p->id;
	return true;
}

void drack_xdp_rx(struct drack_rxq *rq, struct drack_peer *p,
		  const struct drack_ref *ref, struct bpf_prog *prog)
{
	struct drack_dev *dd = rq->dd;
	u32 len = le32_to_cpu(ref->len), act;
	struct xdp_buff xdp;
	struct page *page;
	u8 *data;

	/* A program judges whole wire frames in one page, never GSO. */
	if (ref->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE ||
	    len > DRACK_XDP_MAX_FRAME) {
		drack_stat_inc(&dd->stats, DRACK_S_XDP_UNFIT);
		return;
	}
	page = page_pool_dev_alloc_pages(rq->pp);
	if (!page) {
		drack_stat_inc(&dd->stats, DRACK_S_RX_ALLOC_FAIL);
		return;
	}
	/* The one copy out of the pool: the program never sees a Buffer. */
	data = page_address(page) + XDP_PACKET_HEADROOM;
	memcpy(data, drack_pool_ptr(dd->pool, le64_to_cpu(ref->off)), len);
	if (!drack_xdp_csum(data, len, &ref->vnet)) {
		drack_stat_inc(&dd->stats, DRACK_S_RX_BAD_DESC);
		drack_peer_count_bad(&p->rx);
		page_pool_recycle_direct(rq->pp, page);
		return;
	}

	xdp_init_buff(&xdp, PAGE_SIZE, &rq->xdp_rxq);
	xdp_prepare_buff(&xdp, page_address(page), XDP_PACKET_HEADROOM, len,
			 true);
	act = bpf_prog_run_xdp(prog, &xdp);
	switch (act) {
	case XDP_PASS:
		drack_xdp_pass(rq, p, page, &xdp);
		return;
	case XDP_DROP:
		drack_stat_inc(&dd->stats, DRACK_S_XDP_DROP);
		break;
	case XDP_TX:
		if (drack_xdp_queue_tx(rq, p, page, &xdp))
			return;
		drack_stat_inc(&dd->stats, DRACK_S_XDP_TX_ERR);
		trace_xdp_exception(dd->ndev, prog, act);
		break;
	case XDP_REDIRECT:
		if (!xdp_do_redirect(dd->ndev, &xdp, prog)) {
			rq->redirected = true;
			drack_stat_inc(&dd->stats, DRACK_S_XDP_REDIRECT);
			return;
		}
		drack_stat_inc(&dd->stats, DRACK_S_XDP_REDIRECT_ERR);
		trace_xdp_exception(dd->ndev, prog, act);
		break;
	default:
		bpf_warn_invalid_xdp_action(dd->ndev, prog, act);
		fallthrough;
	case XDP_ABORTED:
		trace_xdp_exception(dd->ndev, prog, act);
		drack_stat_inc(&dd->stats, DRACK_S_XDP_ABORTED);
		break;
	}
	page_pool_recycle_direct(rq->pp, page);
}

/*
 * The TX queue this CPU uses for frames no skb chose one for: XDP_TX
 * and frames redirected into rack0.
 */
static u32 drack_xdp_txq(struct drack_dev *dd)
{
	return smp_processor_id() % dd->ndev->real_num_tx_queues;
}

void drack_xdp_poll_end(struct drack_rxq *rq)
{
	struct drack_dev *dd = rq->dd;
	u32 q = drack_xdp_txq(dd);
	struct netdev_queue *txq = netdev_get_tx_queue(dd->ndev, q);
	struct drack_xdp_tx *t;
	u32 i;

	if (rq->ntx) {
		/* The queue lock xmit holds: XDP_TX shares its rings. */
		__netif_tx_lock(txq, smp_processor_id());
		for (i = 0; i < rq->ntx; i++) {
			t = &rq->tx[i];
			if (drack_dev_active(dd) &&
			    !drack_tx_frame(dd, q, page_address(t->page) + t->off,
					    t->len, t->peer)) {
				drack_stat_inc(&dd->stats, DRACK_S_XDP_TX);
			} else {
				drack_stat_inc(&dd->stats, DRACK_S_XDP_TX_ERR);
			}
			/* Our NAPI, rx_lock dropped: the queue's own cache. */
			page_pool_put_full_page(rq->pp, t->page, true);
		}
		drack_tx_flush(dd, q);
		__netif_tx_unlock(txq);
		rq->ntx = 0;
	}
	if (rq->redirected) {
		rq->redirected = false;
		xdp_do_flush();
	}
}

/* Frames other netdevs redirect to rack0: sent as xmit sends them. */
int drack_xdp_xmit(struct net_device *ndev, int n, struct xdp_frame **frames,
		   u32 flags)
{
	struct drack_dev *dd = netdev_priv(ndev);
	struct netdev_queue *txq;
	int i, err = 0;
	u32 q;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;
	if (unlikely(!netif_running(ndev) || !netif_carrier_ok(ndev) ||
		     !drack_dev_active(dd)))
		return -ENETDOWN;

	q = drack_xdp_txq(dd);
	txq = netdev_get_tx_queue(ndev, q);
	__netif_tx_lock(txq, smp_processor_id());
	for (i = 0; i < n; i++) {
		struct xdp_frame *f = frames[i];

		/* One frame we cannot send must not hold up the rest. */
		if (xdp_frame_has_frags(f) ||
		    drack_tx_frame(dd, q, f->data, f->len, -1))
			err++;
		xdp_return_frame(f);
	}
	if (flags & XDP_XMIT_FLUSH)
		drack_tx_flush(dd, q);
	__netif_tx_unlock(txq);
	drack_stat_add(&dd->stats, DRACK_S_XDP_XMIT, n - err);
	if (err)
		drack_stat_add(&dd->stats, DRACK_S_XDP_XMIT_ERR, err);
	/* All consumed: the ones not sent are counted, and freed here. */
	return n;
}
