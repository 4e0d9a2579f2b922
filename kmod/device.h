/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The drack netdev: one host of a pool. Turns xmit into references on the
 * destination's ref_queue and ref_queue entries into NAPI receive.
 */
#ifndef _DRACK_DEVICE_H
#define _DRACK_DEVICE_H

#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include "buffer.h"
#include "ring.h"
#include "nic.h"
#include "uapi/drack.h"

#define DRACK_NO_BLOCK	(-1)

/* Counters shown by ethtool -S; keep in sync with ethtool.c. */
struct drack_tx_stats {
	u64 packets, bytes;
	u64 refs;		/* references posted, broadcast copies included */
	u64 bcast;		/* broadcast/multicast frames replicated */
	u64 ring_full;		/* queue stopped: a ref_queue was full */
	u64 no_buffer;		/* queue stopped: no free Buffer */
	u64 no_peer;		/* unknown or unreachable destination */
	u64 dropped;
	u64 doorbells;
	u64 doorbells_suppressed;
};

struct drack_rx_stats {
	u64 packets, bytes;
	u64 refs;
	u64 bad_desc;		/* references failing validation */
	u64 bad_ring;		/* ring indexes that made no sense */
	u64 alloc_fail;
	u64 dropped;		/* arrived while the interface was down */
	u64 ret_ok;		/* our Buffers handed back */
	u64 ret_bad;		/* bogus returns */
	u64 ret_doorbells;
};

struct drack_ctl_stats {
	u64 section_requests;
	u64 grants;
	u64 grant_bad;
	u64 revokes;		/* revoked Sections given back */
	u64 peers_released;	/* fenced peers let go of */
	u64 fenced;		/* times we found ourselves fenced */
};

struct drack_peer_stats {
	u64 tx_packets, tx_bytes;
	u64 rx_packets, rx_bytes;
	u64 rx_bad;
};

struct drack_dev {
	struct net_device *ndev;
	struct drack_pool *pool;
	u32 host;
	u32 nhosts;			/* pool->geo.max_hosts */
	u64 peers;			/* present peers: UP or LEAVING */
	struct napi_struct napi;
	struct drack_alloc alloc;

	/* Rings, indexed by peer host id. */
	struct drack_ring ref_in[DRACK_MAX_HOSTS];	/* ref_queue[peer] here */
	struct drack_ring ret_in[DRACK_MAX_HOSTS];	/* peer returns to us */
	struct drack_ring ref_out[DRACK_MAX_HOSTS];	/* our ref_queue at peer */
	struct drack_ring ret_out[DRACK_MAX_HOSTS];	/* we return to peer */
	struct drack_ring grant_in;

	/* TX side, under the netdev tx lock. */
	u64 kick_pending;			/* peers owed a doorbell check */
	u32 kick_base[DRACK_MAX_HOSTS];		/* prod at last doorbell */
	int blocked_peer;			/* ref_queue that stopped us */
	int blocked_class;			/* Buffer class that stopped us */

	/* RX side: NAPI, or process context while the interface is down. */
	spinlock_t rx_lock;
	u32 rx_next;				/* round robin over peers */
	u64 ret_kick_pending;

	struct work_struct request_work;
	struct work_struct grant_work;
	struct work_struct revoke_work;
	struct work_struct fence_work;
	bool warned_no_sections;
	bool leaving;
	bool stalled;			/* fault injection: a hung host */
	bool fenced;			/* the FM declared us dead */
	bool forgot;			/* and our Buffers are forgotten */
	u64 released;			/* fenced peers we let go of */

	struct drack_tx_stats tx;
	struct drack_rx_stats rx;
	struct drack_ctl_stats ctl;
	struct drack_peer_stats peer[DRACK_MAX_HOSTS];

	struct drack_nic_host nic;		/* the NIC pool, nic.c */
};

extern struct rtnl_link_ops drack_link_ops;
extern const struct ethtool_ops drack_ethtool_ops;
extern const struct attribute_group drack_sysfs_group;

netdev_tx_t drack_xmit(struct sk_buff *skb, struct net_device *ndev);
int drack_napi_poll(struct napi_struct *napi, int budget);

/* Doorbell from the backend: refs, returns or grants are waiting. */
void drack_dev_kick(struct drack_dev *dd);
void drack_dev_kick_irq(struct drack_dev *dd);
bool drack_dev_pending(struct drack_dev *dd);
/* Periodic: heartbeat, polling fallback, retries. */
void drack_dev_tick(struct drack_dev *dd);
/* Iterate over the present peers, as last seen by the tick. */
#define drack_for_each_peer(dd, peer, m)				\
	for ((m) = READ_ONCE((dd)->peers);				\
	     (m) && ((peer) = __ffs64(m), 1); (m) &= (m) - 1)

/* Re-evaluate peer presence and carrier. */
void drack_dev_update_carrier(struct drack_dev *dd);

/* A local host is usable: not fenced, not stalled by fault injection. */
static inline bool drack_dev_active(const struct drack_dev *dd)
{
	return !READ_ONCE(dd->fenced) && !READ_ONCE(dd->stalled);
}

/* Stall cleared: a host fenced meanwhile must not touch the pool again. */
void drack_dev_resume(struct drack_dev *dd);

/* rx.c helpers used while the interface is down or leaving */
void drack_rx_drain_returns(struct drack_dev *dd);
void drack_rx_drop_all(struct drack_dev *dd);
bool drack_rx_pending(struct drack_dev *dd);
bool drack_rx_holds_buffers(struct drack_dev *dd);
/* A fenced peer: drop its references without handing them back. */
void drack_rx_forget_peer(struct drack_dev *dd, u32 peer);
/* A new skb holding a copy of @len bytes at @buf. */
struct sk_buff *drack_skb_from_buf(struct napi_struct *napi, const void *buf,
				   u32 len);
/* tx.c: wake the queue if what stopped it is gone */
void drack_tx_maybe_wake(struct drack_dev *dd);

/* buffer requests and grants (device.c) */
void drack_dev_request_sections(struct drack_dev *dd);
void drack_dev_grant_work(struct work_struct *work);

int drack_dev_ifindex(struct drack_pool *pool, u32 host);

#endif /* _DRACK_DEVICE_H */
