/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The NIC pool. A host exports a physical NIC (its owner side, struct
 * drack_xnic); every host of the rack reaches each exported NIC through a
 * pair of virt_queues in the pool (struct drack_nic_port) and shows it to
 * applications as a vNIC netdev (struct drack_vnic). A vNIC normally goes
 * through its own NIC; when that NIC or its owner fails, it moves to
 * another vport (failover) without changing MAC or addresses.
 *
 * Configuration (export, attach, vNIC creation, failover) runs under RTNL;
 * the data path finds the objects through RCU pointers.
 */
#ifndef _DRACK_NIC_H
#define _DRACK_NIC_H

#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include "pool.h"
#include "ring.h"
#include "stats.h"

struct drack_dev;

/*
 * A vNIC the owner serves: the MAC the fabric manager gave it (frames to
 * it go to @host, frames from @host must come from it) and the multicast
 * groups it subscribed to (bit drack_mc_hash()).
 */
struct drack_xnic_mac {
	u8 mac[ETH_ALEN];
	u8 host;
	u8 vnic;
	u64 mc_filter[2];
};

/* Owner-side counters (per CPU: the rx handler and the TX NAPI). */
enum drack_xnic_stat {
	DRACK_XS_TX_PACKETS, DRACK_XS_TX_BYTES,	/* to the wire for vNICs */
	DRACK_XS_RX_PACKETS, DRACK_XS_RX_BYTES,	/* from the wire, into Buffers */
	DRACK_XS_TX_BAD,		/* TX entries failing validation */
	DRACK_XS_TX_SPOOFED,		/* source MAC not the host's vNIC */
	DRACK_XS_TX_DROPPED,		/* the wire refused */
	DRACK_XS_RX_NO_BUFFER,		/* no Buffer posted: dropped */
	DRACK_XS_RX_BAD_POST,		/* posted offsets failing validation */
	DRACK_XS_RX_TOO_BIG,
	DRACK_XS_TX_LINK_LOCAL,		/* pause, STP, LLDP... not for vNICs */
	DRACK_XS_MAC_REFUSED,		/* vNIC MAC claims not served */
	DRACK_XS_TX_OVERSIZE,		/* longer than the NIC's MTU */
	DRACK_XS_RX_FILTERED,		/* multicast copies nobody wanted */
	DRACK_XS_NR,
};

/* Owner side: what it shares with one host of the rack. */
struct drack_xnic_host {
	struct drack_vq_ctl *ctl;
	struct drack_ring tx;			/* it sends, we consume */
	struct drack_ring post;			/* its empty Buffers */
	struct drack_ring done;			/* we fill them */
	u64 vnics;				/* its ctl->vnics, cached */
	u32 seq;				/* its ctl->seq when attached */
};

/* Owner side: a physical NIC this host exported. */
struct drack_xnic {
	struct drack_dev *dd;			/* the owner */
	struct net_device *lower;
	netdevice_tracker lower_tracker;
	u32 id;
	u32 gen;
	bool gro_was_on;
	struct napi_struct napi;		/* TX: virt_queues to the wire */

	struct drack_xnic_host hosts[DRACK_MAX_HOSTS];
	u64 serving;				/* hosts attached to gen */
	bool scan_all;		/* next refresh: every slot (the tick asks) */
	u32 next;				/* round robin over hosts */

	spinlock_t rx_lock;			/* post and done rings, map */
	struct drack_xnic_mac map[DRACK_MAX_HOSTS * DRACK_MAX_NICS];
	u32 nmap;
	u32 refused_claims;		/* MACs not served at the last refresh */
	/* Per host: frames dropped, enum drack_vq_drop, published with ticks */
	u32 drops[DRACK_MAX_HOSTS][DRACK_VQ_DROP_NR];

	struct drack_counters st;		/* enum drack_xnic_stat */
	/* wire_tx_bytes: the lower's tx_bytes since export, read every */
	u64 wire_base;				/* its tx_bytes at export */
	unsigned long wire_next;		/* jiffies of the next read */
};

/* Host-side counters of a pooled NIC (per CPU). */
enum drack_nic_port_stat {
	DRACK_PS_TX_PACKETS, DRACK_PS_TX_BYTES,
	DRACK_PS_TX_FULL,		/* TX ring full */
	DRACK_PS_TX_NO_BUF,		/* no Buffer to lend the owner */
	DRACK_PS_TX_BAD_RING,		/* owner's index made no sense */
	DRACK_PS_RX_PACKETS, DRACK_PS_RX_BYTES,
	DRACK_PS_RX_BAD,		/* completions failing validation */
	DRACK_PS_RX_ALLOC_FAIL,
	DRACK_PS_RX_NO_VNIC,		/* for no vNIC of ours */
	DRACK_PS_RX_FILTERED,		/* multicast no vNIC subscribed to */
	DRACK_PS_NR,
};

/* A pooled NIC as this host sees it: the virt_queue pair (NIC, host). */
struct drack_nic_port {
	struct drack_dev *dd;
	u32 nic;
	u32 owner;
	u32 gen;				/* NIC generation attached to */
	struct drack_vq_ctl *ctl;
	struct drack_ring tx, post, done;
	struct napi_struct napi;		/* RX completions, TX cleanup */

	spinlock_t tx_lock;	/* TX ring and tx_off; IRQ-safe: netpoll */
	u32 tx_clean;				/* oldest entry not cleaned */
	bool tx_wait;				/* a vNIC waits for room */
	u8 buf_wait;		/* classes a vNIC waits for a Buffer of */
	u64 *tx_off;				/* Buffer per TX slot */

	spinlock_t rx_lock;			/* post/done rings, posted */
	u32 posted_head;			/* next completion expected */
	u64 *posted;				/* Buffer per post slot */
	u32 refill_short;			/* posts missing: no Buffers */

	struct drack_counters st;		/* enum drack_nic_port_stat */

	/* Detached, waiting for the owner to let go (drack_nic_port_reap) */
	struct list_head detach_node;
	u32 detach_seq;
	unsigned long detach_deadline;
};

struct drack_vnic_stats {
	u64 tx_packets, tx_bytes, tx_dropped;
	u64 rx_packets, rx_bytes;
	u32 failovers;
	u64 last_failover_ns;			/* reroute time, last one */
};

/* A vNIC netdev: host @dd's interface to NIC @id, via vport @via. */
struct drack_vnic {
	struct net_device *ndev;
	struct drack_dev *dd;
	u32 id;
	int via;				/* vport NIC id, -1: none */
	struct drack_nic_port __rcu *vp;
	u8 buf_wait;		/* stopped for a Buffer of this class (bit) */
	struct u64_stats_sync syncp;		/* tx and rx counters */
	struct drack_vnic_stats st;
};

/* Per drack_dev state of the NIC pool, under RTNL. */
struct drack_nic_host {
	struct drack_xnic __rcu *xnic[DRACK_MAX_NICS];
	struct drack_nic_port __rcu *vport[DRACK_MAX_NICS];
	struct drack_vnic __rcu *vnic[DRACK_MAX_NICS];
	/* xnic[] and vport[] slots in use (RTNL): doorbells skip none */
	u32 busy_slots;
	atomic_t buf_waiters;		/* vports with buf_wait set */
	struct work_struct work;		/* reconcile with the pool */
	/* Detached ports whose owner has not let go yet, outside RTNL. */
	spinlock_t detach_lock;
	struct list_head detaching;
	struct delayed_work reap_work;
	u64 owner_beat[DRACK_MAX_NICS];		/* last owner heartbeat seen */
	unsigned long owner_beat_at[DRACK_MAX_NICS];
	/* Our liveness checks in a row that saw the owner's beat stand. */
	u16 owner_quiet[DRACK_MAX_NICS];
	u32 seen_state[DRACK_MAX_NICS];		/* to notice changes fast */
	s8 seen_steer[DRACK_MAX_NICS];		/* drack_vnic_steer() seen */
	u32 seen_gen[DRACK_MAX_NICS];
	/*
	 * A NIC entry that keeps changing (a hostile or broken owner) is
	 * held down: its vNIC and port are neither made nor unmade until
	 * @hold_until, so flapping costs no netdev churn (nic.c).
	 */
	unsigned long changed_at[DRACK_MAX_NICS];
	unsigned long hold_until[DRACK_MAX_NICS];
	u8 flaps[DRACK_MAX_NICS];
	bool hold_missed[DRACK_MAX_NICS];	/* changes seen while held */
	bool dying;
	bool moving;			/* between a netns move's two events */
};

#define DRACK_NIC_FAILOVER_MIN_MS	10
#define DRACK_NIC_FAILOVER_MAX_MS	60000
extern unsigned int drack_nic_failover_ms;
extern bool drack_nic_allow_link_local;

static inline struct drack_nic_entry *drack_nic_entry(struct drack_pool *pool,
						      u32 nic)
{
	return drack_pool_ptr(pool, drack_nic_entry_off(&pool->geo, nic));
}

static inline u32 drack_nic_state(struct drack_pool *pool, u32 nic)
{
	return le32_to_cpu(READ_ONCE(drack_nic_entry(pool, nic)->state));
}

static inline struct drack_vq_ctl *drack_vq_ctl(struct drack_pool *pool,
						u32 nic, u32 host)
{
	return drack_pool_ptr(pool, drack_vq_off(&pool->geo, nic, host));
}

/*
 * The MAC of @host's vNIC @nic: the one the fabric manager wrote, if it
 * is one of @host's (drack_vnic_mac_ok()), else the default. Owner and
 * host compute it alike; nothing a host writes can make it another's.
 */
static inline void drack_vnic_assigned_mac(struct drack_pool *pool, u32 nic,
					   u32 host, u8 *mac)
{
	memcpy(mac, drack_vq_ctl(pool, nic, host)->mac, ETH_ALEN);
	if (!drack_vnic_mac_ok(mac, host))
		drack_vnic_mac(mac, pool->id, host, nic);
}

/*
 * The NIC the fabric manager steers @host's vNIC @nic to, or -1 (its own,
 * no choice). A value beyond the NIC table is no choice.
 */
static inline int drack_vnic_steer(struct drack_pool *pool, u32 nic, u32 host)
{
	u32 s = le16_to_cpu(READ_ONCE(drack_vq_ctl(pool, nic, host)->steer));

	return s && s <= pool->geo.max_nics ? (int)s - 1 : -1;
}

/* nic.c: per-device setup, the reconcile work, the tick, notifiers */
void drack_nic_dev_init(struct drack_dev *dd);
/* Leaving, not under RTNL: free every detached port, waiting for owners. */
void drack_nic_dev_reap_all(struct drack_dev *dd);
void drack_nic_dev_teardown(struct drack_dev *dd);
void drack_nic_tick(struct drack_dev *dd);
void drack_nic_kick(struct drack_dev *dd);
/* Something changed: run the reconcile work soon (any context). */
void drack_nic_changed(struct drack_dev *dd);
bool drack_nic_pending(struct drack_dev *dd);
int drack_nic_init(void);
void drack_nic_exit(void);
/* A usable NIC: up, owner alive and beating. */
bool drack_nic_usable(struct drack_dev *dd, u32 nic);
/* A Buffer of @host per the Section table: its class, or -1. */
int drack_nic_buf_class(struct drack_pool *pool, u32 host, u64 off);

/* xnic.c, xnic_filter.c: the owner side */
int drack_xnic_export(struct drack_dev *dd, struct net_device *lower,
		      struct netlink_ext_ack *extack);
void drack_xnic_unexport(struct drack_xnic *x);
void drack_xnic_tick(struct drack_xnic *x);
void drack_xnic_link_changed(struct drack_xnic *x);
struct drack_xnic *drack_xnic_of(const struct net_device *lower);
bool drack_xnic_pending(struct drack_xnic *x);
/* xnic_filter.c: which vNICs the owner serves, what they may send */
void drack_xnic_refresh_map(struct drack_xnic *x);
const struct drack_xnic_mac *drack_xnic_lookup(struct drack_xnic *x,
					       const u8 *mac);
u64 drack_xnic_mc_hosts(struct drack_xnic *x, const u8 *dest);
bool drack_xnic_tx_allowed(struct drack_xnic *x, u32 h, struct sk_buff *skb);
void drack_xnic_publish_drops(struct drack_xnic *x);

/* nic_port.c: the host side of a virt_queue pair */
struct drack_nic_port *drack_nic_port_attach(struct drack_dev *dd, u32 nic);
void drack_nic_port_detach(struct drack_nic_port *vp, bool owner_gone);
/*
 * Free detached ports whose owner let go, or waited for too long; with
 * @all, every one, waiting for them (not under RTNL). True if some are
 * left.
 */
bool drack_nic_port_reap(struct drack_dev *dd, bool all);
int drack_nic_port_xmit(struct drack_nic_port *vp, struct sk_buff *skb);
u64 drack_nic_port_vnics(struct drack_nic_port *vp);
void drack_nic_port_set_vnics(struct drack_nic_port *vp, u64 vnics);
/* nic_port_wait.c: what stopped vNICs wait for, who wakes them */
void drack_nic_port_set_buf_wait(struct drack_nic_port *vp, u8 mask);
void drack_nic_port_wake(struct drack_nic_port *vp, bool room);
void drack_nic_port_bufs_back(struct drack_dev *dd);
bool drack_nic_port_pending(struct drack_nic_port *vp);
bool drack_nic_port_retry(struct drack_nic_port *vp);

/* vnic.c: the netdevs */
struct drack_vnic *drack_vnic_create(struct drack_dev *dd, u32 id);
void drack_vnic_destroy(struct drack_vnic *vn, struct list_head *kill);
void drack_vnic_route(struct drack_vnic *vn, struct drack_nic_port *vp);
void drack_vnic_rx(struct drack_vnic *vn, struct napi_struct *napi,
		   struct sk_buff *skb);
extern const struct ethtool_ops drack_vnic_ethtool_ops;
bool drack_is_vnic(const struct net_device *ndev);
/* A MAC change the fabric manager did not make is refused (notifier). */
int drack_vnic_pre_changeaddr(struct net_device *ndev, const u8 *addr,
			      struct netlink_ext_ack *extack);
void drack_vnic_sync_mac(struct drack_vnic *vn);
/* What the owner carrying @vn dropped of our frames (enum drack_vq_drop). */
void drack_vnic_drops(struct drack_vnic *vn, u32 *drops);
void drack_vnic_publish_demand(struct drack_vnic *vn);

#endif /* _DRACK_NIC_H */
