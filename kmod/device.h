/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The drack netdev: one host of a pool. Turns xmit into references on the
 * destination's ref_queue and ref_queue entries into NAPI receive.
 */
#ifndef _DRACK_DEVICE_H
#define _DRACK_DEVICE_H

#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <net/xdp.h>
#include "buffer.h"
#include "nic.h"
#include "peer.h"
#include "ring.h"
#include "stats.h"
#include "uapi/drack.h"

#define DRACK_NO_BLOCK	(-1)
#define DRACK_ANY_HOST	U32_MAX		/* newlink: the next free host id */

/* XDP_TX verdicts of one poll, posted once rx_lock is dropped. */
struct drack_xdp_tx {
	struct page *page;
	u16 off;
	u16 len;
	u32 peer;
};

struct drack_xdp {
	struct bpf_prog __rcu *prog;		/* RTNL writes, NAPI reads */
};

/*
 * TX queue q: posts on ref_out[q] of every peer. Under the lock of the
 * netdev's TX queue q.
 */
struct drack_txq {
	u64 kick_pending;			/* peers owed a doorbell check */
	u32 tx_batched;				/* refs posted since the last one */
	int blocked_peer;			/* ref_queue that stopped it */
	int blocked_class;			/* Buffer class that stopped it */
	unsigned long blocked_since;		/* jiffies, blocked_peer's stop */
	struct drack_peer_stats stats;	/* packets, bytes; one writer */
};

/*
 * RX queue i: a NAPI polling ref_in[q] of every peer for each q with
 * q % channels == i. Queue 0's NAPI also takes our Buffers back and asks
 * for Sections. The rings themselves are shared under rx_lock, so a
 * change of channels under traffic loses nothing.
 */
struct drack_rxq {
	struct napi_struct napi;
	struct drack_dev *dd;
	u32 index;
	u32 rx_next;				/* round robin over peers */
	struct sk_buff_head deliver;		/* built under rx_lock, then up */
	/* XDP of the current poll: XDP_TX posted once rx_lock is dropped. */
	bool redirected;			/* xdp_do_flush() owed */
	u32 ntx;
	struct drack_xdp_tx tx[NAPI_POLL_WEIGHT];
	struct drack_peer_stats stats;	/* packets, bytes; one writer */
	/* A peer in this kernel rings us from its CPU: poll on ours. */
	int home_cpu;
	call_single_data_t kick_csd;
	/* XDP: the pages programs see, this queue for them (xdp.c). */
	struct page_pool *pp;
	struct xdp_rxq_info xdp_rxq;
};

struct drack_dev {
	struct net_device *ndev;
	struct drack_pool *pool;
	struct drack_pool_client client;	/* what the pool calls */
	u32 host;
	u32 nhosts;			/* pool->geo.max_hosts */
	u64 present;			/* peers UP or LEAVING */
	/*
	 * Peers whose return rings and held Buffers each poll looks at:
	 * the present ones, and any still holding Buffers of ours or we of
	 * theirs, as last seen by the tick. A poll's cost follows the
	 * peers there are, not the pool's max_hosts.
	 */
	u64 watch;
	u32 channels;			/* queue pairs in use, RTNL */
	u32 max_channels;		/* the pool's ref_queues per pair */
	struct drack_alloc alloc;

	struct drack_peer *peers;		/* by host id, nhosts of them */
	struct drack_ring grant_in;		/* the FM's grants to us */

	/* TX side, each queue under its netdev queue lock. */
	u32 tx_max_frames;			/* ethtool -C tx-frames */
	/* ethtool -s speed/duplex: only told to upper devices (bonding). */
	u32 speed;
	u8 duplex;
	struct drack_txq txq[DRACK_MAX_QUEUES];

	/* RX side: NAPI, or process context while the interface is down. */
	struct drack_rxq rxq[DRACK_MAX_QUEUES];
	spinlock_t rx_lock;
	u32 rx_copybreak;			/* frames up to this are copied */
	struct timer_list held_timer;		/* polls Buffers skbs hold */
	bool held_progress;			/* some came back this poll */

	/* One-shot jobs (sections.c, host.c). */
	struct work_struct request_work;
	struct work_struct grant_work;
	struct work_struct revoke_work;
	struct work_struct fence_work;
	/* Periodic jobs, one each (timers.c). */
	struct delayed_work heartbeat_work;
	struct delayed_work liveness_work;
	struct delayed_work refill_work;
	struct delayed_work nic_work;
	bool warned_no_sections;	/* of a class but 2 KB (carrier) */
	u32 carrier_reason;		/* enum drack_carrier_reason */
	u32 carrier_said;		/* the reason logged, until a grant */
	bool joined;			/* published in the pool */
	bool leaving;
	bool leave_pending;		/* uninit done, the destructor finishes */
	bool leave_fenced;		/* the slot was not ours when we left */
	bool stalled;			/* fault injection: a hung host */
	bool hoarding;			/* fault injection: returns nothing */
	bool deaf;			/* fault injection: consumes nothing */
	bool kick_other_cpu;		/* ethtool priv flag doorbell-other-cpu */
	bool fenced;			/* the FM declared us dead */
	bool forgot;			/* and our Buffers are forgotten */
	u64 released;			/* fenced peers we let go of */

	struct drack_stats stats;

	struct drack_xdp xdp;			/* xdp.c */

	struct drack_nic_host nic;		/* the NIC pool, nic.c */
};

/* The local host behind a pool client, or NULL. */
static inline struct drack_dev *drack_dev_of(struct drack_pool_client *c)
{
	return c ? container_of(c, struct drack_dev, client) : NULL;
}

extern struct rtnl_link_ops drack_link_ops;
extern const struct ethtool_ops drack_ethtool_ops;
extern const struct attribute_group drack_sysfs_group;

netdev_tx_t drack_xmit(struct sk_buff *skb, struct net_device *ndev);
int drack_napi_poll(struct napi_struct *napi, int budget);

/* Doorbell from the backend: refs, returns or grants are waiting. */
void drack_dev_kick(struct drack_dev *dd);
void drack_dev_kick_irq(struct drack_dev *dd);
bool drack_dev_pending(struct drack_dev *dd);
/* Iterate over the peers in @mask (host ids, below dd->nhosts). */
#define drack_for_each_in(mask, peer, m)				\
	for ((m) = (mask); (m) && ((peer) = __ffs64(m), 1); (m) &= (m) - 1)
/* Iterate over the present peers, as last seen by the tick. */
#define drack_for_each_peer(dd, peer, m)				\
	drack_for_each_in(READ_ONCE((dd)->present), peer, m)

/* Every peer slot but ours: for the paths that must not miss one. */
static inline u64 drack_all_peers(const struct drack_dev *dd)
{
	return GENMASK_ULL(dd->nhosts - 1, 0) & ~BIT_ULL(dd->host);
}

/* A Section request unanswered this long: no fabric manager, say so. */
#define DRACK_SECTION_WAIT	(2 * HZ)

/*
 * Re-evaluate peer presence and carrier: on with a reachable peer and a
 * 2 KB Section, else off, and the reason in dd->carrier_reason.
 */
void drack_dev_update_carrier(struct drack_dev *dd);

/* A local host is usable: not fenced, not stalled by fault injection. */
static inline bool drack_dev_active(const struct drack_dev *dd)
{
	return !READ_ONCE(dd->fenced) && !READ_ONCE(dd->stalled);
}

/* Stall cleared: a host fenced meanwhile must not touch the pool again. */
void drack_dev_resume(struct drack_dev *dd);

/* rx.c helpers used while the interface is down or leaving */
void drack_rx_drain_returns(struct drack_dev *dd, u64 peers);
void drack_rx_drop_all(struct drack_dev *dd);
bool drack_rx_pending(struct drack_dev *dd);
bool drack_rx_want_returns(struct drack_dev *dd);
bool drack_rx_returns_due(struct drack_dev *dd);
bool drack_rx_returns_pending(struct drack_dev *dd);
bool drack_rx_holds_buffers(struct drack_dev *dd);
/* A new skb holding a copy of @len bytes at @buf. */
struct sk_buff *drack_skb_from_buf(struct napi_struct *napi, const void *buf,
				   u32 len);
void drack_rx_held_timer(struct timer_list *t);

/* rxref.c: receive by reference */
#define DRACK_RX_COPYBREAK	256		/* default rx-copybreak */
#define DRACK_RX_SMALL		256		/* up past GRO (rx.c) */
int drack_rxref_init(struct drack_dev *dd);
void drack_rxref_free(struct drack_dev *dd);
/* Bytes of one peer's Buffers held by reference at most (rx_ref_max_mb). */
u64 drack_rxref_max_bytes(void);
#define DRACK_HELD_MAX	1024	/* Buffers of one peer held, at most */
/*
 * An skb for @len bytes at Buffer @off of @p: around the Buffer if @size
 * (its class size; 0: it may not be held), @p's cap and @ref_flags (not
 * DRACK_REF_F_SCARCE) allow, *@held then; else a copy.
 */
struct sk_buff *drack_rxref_skb(struct drack_dev *dd, struct napi_struct *napi,
				struct drack_peer *p, u64 off, u32 len, u32 size,
				u16 ref_flags, bool *held);
/*
 * Hand back (if @alive, as *@space allows) or forget @p's held Buffers
 * the stack let go of; returns how many. rx_lock held.
 */
u32 drack_rxref_reclaim(struct drack_dev *dd, struct drack_peer *p,
			bool alive, int *space);
bool drack_rxref_holding(struct drack_dev *dd, u64 peers);
/* Leaving: stop tracking what is still held; returns how many. */
u32 drack_rxref_forget(struct drack_dev *dd);

/*
 * ethtool -C tx-frames: at most this many references wait for one
 * doorbell decision while the stack says more frames follow.
 */
#define DRACK_TX_FRAMES		64

/* queues.c: queue pairs, their NAPIs, and the netdev family's view */
void drack_queues_setup(struct net_device *ndev);
void drack_queues_init(struct drack_dev *dd);	/* newlink, pool known */
void drack_queues_del(struct drack_dev *dd);
void drack_queues_start(struct drack_dev *dd);	/* open, RTNL */
void drack_queues_stop(struct drack_dev *dd);	/* stop, RTNL */
int drack_queues_set_channels(struct drack_dev *dd, u32 n,
			      struct netlink_ext_ack *extack);	/* RTNL */
/* Schedule queue 0, and every other queue whose rings hold entries. */
void drack_queues_kick(struct drack_dev *dd, bool from_peer);

/*
 * tx.c, for XDP (TX queue @q's lock held): post a linear frame to @peer,
 * or if @peer < 0 to the host its destination MAC names (all of them for
 * a broadcast). 0 or -errno; never stops the queue.
 */
int drack_tx_frame(struct drack_dev *dd, u32 q, const void *data, u32 len,
		   int peer);
int drack_tx_lookup(struct drack_dev *dd, const u8 *dest);
void drack_tx_flush(struct drack_dev *dd, u32 q);
/* Any TX queue in use stopped? */
bool drack_tx_any_stopped(struct drack_dev *dd);

/* xdp.c: native XDP */
int drack_xdp_init(struct drack_dev *dd);	/* newlink, after napi add */
void drack_xdp_free(struct drack_dev *dd);	/* NAPI gone, program gone */
void drack_xdp_setup(struct net_device *ndev);
int drack_xdp_bpf(struct net_device *ndev, struct netdev_bpf *bpf);
int drack_xdp_xmit(struct net_device *ndev, int n, struct xdp_frame **frames,
		   u32 flags);
int drack_xdp_change_mtu(struct net_device *ndev, int mtu);
/* NAPI, rx_lock held: run @prog on the frame @ref describes. */
void drack_xdp_rx(struct drack_rxq *rq, struct drack_peer *p,
		  const struct drack_ref *ref, struct bpf_prog *prog);
/* NAPI, rx_lock dropped: post XDP_TX frames, flush redirects. */
void drack_xdp_poll_end(struct drack_rxq *rq);

/* tx.c: wake the queue if what stopped it is gone */
void drack_tx_maybe_wake(struct drack_dev *dd);
bool drack_tx_check_stall(struct drack_dev *dd, int *changed);
extern unsigned int drack_stall_timeout_ms, drack_peer_max_lent_mb;

static inline struct drack_host_entry *drack_dev_entry(struct drack_dev *dd)
{
	return drack_host_entry(dd->pool, dd->host);
}

/* Queue 0's NAPI: receives, and keeps the host's Buffers going. */
static inline struct napi_struct *drack_dev_napi(struct drack_dev *dd)
{
	return &dd->rxq[0].napi;
}

/*
 * Poll everything: every queue in use. A queue that stopped for a full
 * return ring waits for this (the heartbeat), not for a doorbell.
 */
static inline void drack_dev_schedule_napi(struct drack_dev *dd)
{
	u32 i, n = READ_ONCE(dd->channels);

	local_bh_disable();
	/* A disabled NAPI (stopped, or past the channels) ignores this. */
	for (i = 0; i < n; i++)
		napi_schedule(&dd->rxq[i].napi);
	local_bh_enable();
}

static inline bool drack_dev_grants_pending(struct drack_dev *dd)
{
	return drack_ring_pending(&dd->grant_in);
}

/* host.c: membership */
void drack_host_init(struct drack_dev *dd);
int drack_dev_join(struct drack_dev *dd, struct drack_pool *pool, u32 host,
		   struct netlink_ext_ack *extack);
void drack_dev_publish(struct drack_dev *dd);
void drack_dev_unjoin(struct drack_dev *dd);
void drack_dev_leave(struct drack_dev *dd);		/* RTNL */
void drack_dev_leave_finish(struct drack_dev *dd);	/* no RTNL */
void drack_dev_set_flags(struct drack_dev *dd, u32 set, u32 clear);
/* Let go of fenced peers: drop their references, take back our Buffers. */
void drack_dev_release_dead(struct drack_dev *dd);

/* sections.c: requests, grants, revokes */
void drack_sections_init(struct drack_dev *dd);
void drack_dev_request_sections(struct drack_dev *dd);
void drack_dev_publish_sections(struct drack_dev *dd);
bool drack_dev_revoke_pending(struct drack_dev *dd);

/* timers.c: the periodic jobs */
#define DRACK_HEARTBEAT_MIN_MS	5
#define DRACK_HEARTBEAT_MAX_MS	100
struct kernel_param;
unsigned int drack_heartbeat_period_ms(void);
int drack_timers_module_init(void);
void drack_timers_module_exit(void);
int drack_param_set_range(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max);
void drack_timers_init(struct drack_dev *dd);
void drack_timers_start(struct drack_dev *dd);
void drack_timers_stop_work(struct drack_dev *dd);
void drack_timers_stop(struct drack_dev *dd);

int drack_dev_ifindex(struct drack_pool *pool, u32 host);

#endif /* _DRACK_DEVICE_H */
