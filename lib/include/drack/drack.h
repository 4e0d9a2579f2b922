/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libdrack: a small client of the drack generic netlink family.
 *
 * Every function returning int returns 0 (or a count) on success and a
 * negative errno on failure. A missing "drack" family (drack.ko not
 * loaded) is -ENOENT. Structures hold native-endian copies; list
 * callbacks get a pointer valid only during the call and stop the walk
 * by returning non-zero, which the list function then returns. Do not
 * call into the same struct drack_nl from inside a callback.
 *
 * Host and NIC states, Buffer classes and DRACK_SECTION_FREE/META are in
 * the pool format header, installed as <drack/uapi/drack.h>.
 */
#ifndef _DRACK_DRACK_H
#define _DRACK_DRACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DRACK_ERRMSG_MAX	128	/* a useful size for errbuf */

struct drack_nl;
struct drack_events;

struct drack_pool_info {
	uint32_t id;
	char backend[16];
	uint64_t size;			/* bytes */
	uint32_t section_size;		/* bytes */
	uint32_t section_count;
	uint32_t meta_sections;		/* Sections [0, meta) hold metadata */
	uint32_t free_sections;
	uint32_t max_hosts;
	uint32_t regions;		/* memory devices interleaved */
	uint32_t fm_pid;		/* registered fabric manager, 0: none */
	uint64_t fm_epoch;		/* FM registrations so far */
	uint32_t max_nics;		/* NIC table entries, 0: no NIC pool */
};

struct drack_host_info {
	uint32_t pool;
	uint32_t id;
	uint32_t state;			/* enum drack_host_state */
	uint32_t flags;			/* DRACK_HOST_F_* */
	uint8_t mac[6];
	uint64_t heartbeat;
	uint32_t sections;		/* Sections owned */
	uint32_t ifindex;		/* 0: not a netdev of this kernel */
	uint32_t generation;		/* joins of this host id */
	uint32_t buffers_free[2];	/* per class, as published by the host */
	uint32_t wanted[2];		/* per class, 1: Section request pending */
	uint64_t released;		/* bit p: holds nothing of DEAD host p */
};

struct drack_section_info {
	uint32_t pool;
	uint32_t id;
	uint32_t owner;			/* host id, DRACK_SECTION_FREE/META */
	uint32_t buf_class;		/* enum drack_buf_class */
	uint32_t generation;
	uint32_t region;		/* memory device it lives on */
	uint32_t flags;			/* DRACK_SECTION_F_* */
	int page_order;			/* of its pages here; -1: none */
};

/* A local drack netdev (one host of a pool) the caller can see. */
struct drack_local {
	uint32_t pool;
	uint32_t host;
	uint32_t ifindex;
	char ifname[16];
};

/* A peer as one local host sees it. */
struct drack_peer_info {
	struct drack_local local;
	uint32_t peer;
	uint32_t state;			/* enum drack_host_state */
	uint32_t reachable;		/* 1: frames are sent to it */
	uint64_t tx_packets, tx_bytes;
	uint64_t rx_packets, rx_bytes;
	uint64_t rx_bad;		/* its references that failed checks */
	uint32_t stalled;		/* 1: frames to it are dropped */
};

/* One Buffer class of a local host. */
struct drack_class_info {
	struct drack_local local;
	uint32_t buf_class;
	uint32_t sections;
	uint32_t total;			/* Buffers */
	uint32_t free;
	uint32_t inflight;
	uint32_t requested;		/* 1: a Section request is pending */
	uint32_t draining;		/* revoked Sections not yet given back */
};

#define DRACK_NR_STATS	64		/* >= DRACK_STAT_MAX + 1 */

/* Counters of a local host, indexed by enum drack_stat. */
struct drack_stats_info {
	struct drack_local local;
	uint64_t stat[DRACK_NR_STATS];
	uint32_t nstats;		/* highest index reported + 1 */
};

/*
 * An exported NIC, one entry of a pool's NIC table that is not
 * DRACK_NIC_FREE. The physical NIC's ifindex and name are there only if
 * it is in the caller's network namespace, the vNIC's (and its host) only
 * if the caller's network namespace has a vNIC of it.
 */
struct drack_nic_info {
	uint32_t pool;
	uint32_t id;
	uint32_t state;			/* enum drack_nic_state */
	uint32_t owner;			/* host id of the exporting host */
	uint8_t mac[6];			/* of the physical NIC */
	uint32_t generation;		/* bumped at every export */
	uint32_t rate;			/* Mbit/s, 0: unknown */
	uint64_t assigned;		/* bit h: host h has a vNIC of it */
	uint64_t tx_bytes, rx_bytes;	/* vNIC frames sent, received */
	uint32_t queue_depth;		/* TX entries waiting, all hosts */
	uint64_t drops;			/* frames the owner dropped */
	uint32_t ifindex;		/* the physical NIC, 0: not here */
	char ifname[16];
	uint32_t vnic_ifindex;		/* this netns' vNIC of it, 0: none */
	char vnic_ifname[16];
	uint32_t vnic_host;		/* the local host the vNIC belongs to */
	uint32_t vnic_via;		/* NIC id carrying the vNIC now */
	uint32_t vnic_failovers;	/* times the vNIC moved */
	uint8_t vnic_mac[6];		/* the vNIC's MAC, as the FM assigned it */
	uint32_t vnic_drops[4];		/* the owner's: enum drack_vq_drop */
	int32_t vnic_steer;		/* NIC the FM steers it to, -1: none */
	/* With CAP_NET_ADMIN: what each assigned host posts to the NIC. */
	uint32_t ndemand;
	struct drack_nic_demand {
		uint32_t host;
		uint32_t queued;	/* frames waiting in its TX ring */
		uint64_t tx_bytes;	/* posted since it attached */
	} demand[64];
	/* All the physical NIC sent (owner's own = this - tx_bytes). */
	uint64_t wire_tx_bytes;
};

enum drack_event_type {
	DRACK_EVENT_SECTION_REQUEST,	/* pool, host, buf_class, count */
	DRACK_EVENT_HOST_NOTIFY,	/* pool, host, state */
	DRACK_EVENT_SECTION_NOTIFY,	/* pool, section, owner, buf_class */
	DRACK_EVENT_NIC_NOTIFY,		/* pool, nic, state (of the NIC), owner */
	DRACK_EVENT_PEER_NOTIFY,	/* pool, host, peer, stalled */
	DRACK_EVENT_NIC_STEER,		/* pool, nic, host, steer (-1: home) */
};

struct drack_event {
	enum drack_event_type type;
	uint32_t pool;
	uint32_t host;
	uint32_t buf_class;
	uint32_t count;
	uint32_t state;
	uint32_t section;
	uint32_t owner;
	uint32_t nic;
	uint32_t peer;
	uint32_t stalled;
	int32_t steer;			/* NIC_STEER: the NIC, -1: its own */
};

typedef int (*drack_pool_cb)(const struct drack_pool_info *pool, void *arg);
typedef int (*drack_host_cb)(const struct drack_host_info *host, void *arg);
typedef int (*drack_section_cb)(const struct drack_section_info *section,
				void *arg);
typedef int (*drack_peer_cb)(const struct drack_peer_info *peer, void *arg);
typedef int (*drack_class_cb)(const struct drack_class_info *cls, void *arg);
typedef int (*drack_stats_cb)(const struct drack_stats_info *st, void *arg);
typedef int (*drack_nic_cb)(const struct drack_nic_info *nic, void *arg);
typedef void (*drack_event_cb)(const struct drack_event *event, void *arg);

/* Requests. drack_nl_open() returns NULL and sets errno on failure. */
struct drack_nl *drack_nl_open(void);
void drack_nl_close(struct drack_nl *nl);
/*
 * Check that the family is still the one resolved at open: 0 if so,
 * 1 if drack.ko was reloaded meanwhile (the handle now uses the new
 * family; reopen event handles), -ENOENT if it is gone.
 */
int drack_nl_check(struct drack_nl *nl);

int drack_pool_list(struct drack_nl *nl, drack_pool_cb cb, void *arg);
int drack_pool_get(struct drack_nl *nl, uint32_t pool,
		   struct drack_pool_info *info);
/* Hosts whose slot is in use, in host id order. */
int drack_host_list(struct drack_nl *nl, uint32_t pool, drack_host_cb cb,
		    void *arg);
int drack_section_list(struct drack_nl *nl, uint32_t pool,
		       drack_section_cb cb, void *arg);
/*
 * Fabric manager: give free Section @section of @pool to @host for
 * Buffers of @buf_class. Needs CAP_NET_ADMIN. On failure the kernel's
 * message, if any, goes to @errbuf (may be NULL), else it is emptied.
 */
int drack_section_grant(struct drack_nl *nl, uint32_t pool, uint32_t host,
			uint32_t section, uint32_t buf_class, char *errbuf,
			size_t errlen);

/*
 * Fabric manager operations, all needing CAP_NET_ADMIN, with the kernel's
 * message in @errbuf on failure. While a fabric manager is registered for
 * a pool, only its handle may grant, revoke, fence, reclaim or format
 * (-EBUSY for anyone else); the registration ends with
 * drack_fm_unregister() or when the handle is closed.
 */
int drack_fm_register(struct drack_nl *nl, uint32_t pool, char *errbuf,
		      size_t errlen);
int drack_fm_unregister(struct drack_nl *nl, uint32_t pool, char *errbuf,
			size_t errlen);
/*
 * Tell @host why its request for Sections is not granted: @why is
 * DRACK_REFUSED_QUOTA or DRACK_REFUSED_POOL_FULL. The host shows it as
 * the reason it has no carrier until the next grant.
 */
int drack_section_refuse(struct drack_nl *nl, uint32_t pool, uint32_t host,
			 uint32_t why, char *errbuf, size_t errlen);
/* Ask the owner of @section to give it back once its Buffers are home. */
int drack_section_revoke(struct drack_nl *nl, uint32_t pool,
			 uint32_t section, char *errbuf, size_t errlen);
/* Declare @host dead: peers stop talking to it and let go of its Buffers. */
int drack_host_fence(struct drack_nl *nl, uint32_t pool, uint32_t host,
		     char *errbuf, size_t errlen);
/*
 * Free the Sections and the slot of fenced @host; -EBUSY while a live
 * host may still reference its Buffers.
 */
int drack_host_reclaim(struct drack_nl *nl, uint32_t pool, uint32_t host,
		       char *errbuf, size_t errlen);
/* Wipe and format a pool no host uses; 0 keeps the current value. */
int drack_pool_format(struct drack_nl *nl, uint32_t pool, uint32_t max_hosts,
		      uint32_t regions, char *errbuf, size_t errlen);

/*
 * The NIC pool. Export physical NIC @nic_ifindex (same network namespace)
 * through the local drack netdev @ifindex, whose pool and host it joins:
 * the NIC's pool and id go to @pool and @nic when not NULL (UINT32_MAX
 * if the kernel did not say). Unexport takes the NIC back. Both need
 * CAP_NET_ADMIN; the kernel's message, if any, goes to @errbuf.
 */
int drack_nic_export(struct drack_nl *nl, uint32_t ifindex,
		     uint32_t nic_ifindex, uint32_t *pool, uint32_t *nic,
		     char *errbuf, size_t errlen);
int drack_nic_unexport(struct drack_nl *nl, uint32_t nic_ifindex,
		       char *errbuf, size_t errlen);
/* The exported NICs of @pool, in NIC id order. */
int drack_nic_list(struct drack_nl *nl, uint32_t pool, drack_nic_cb cb,
		   void *arg);
/*
 * Fabric manager: give @host a vNIC of NIC @nic (@assign non-zero), or
 * take it back (0). Registration rules as for drack_section_grant().
 */
int drack_nic_assign(struct drack_nl *nl, uint32_t pool, uint32_t nic,
		     uint32_t host, int assign, char *errbuf, size_t errlen);
/*
 * As drack_nic_assign(), giving the vNIC MAC @mac (NULL: the kernel's
 * default, drack_vnic_mac()); it must pass drack_vnic_mac_ok().
 */
int drack_nic_assign_mac(struct drack_nl *nl, uint32_t pool, uint32_t nic,
			 uint32_t host, int assign, const uint8_t *mac,
			 char *errbuf, size_t errlen);

/*
 * Fabric manager: carry @host's vNIC of NIC @nic through NIC @via while
 * that one is usable (-1: through its own again). Registration rules as
 * for drack_section_grant().
 */
int drack_nic_steer(struct drack_nl *nl, uint32_t pool, uint32_t nic,
		    uint32_t host, int via, char *errbuf, size_t errlen);

/*
 * State of the local hosts (drack netdevs in the caller's network
 * namespace), or of the one with @ifindex if it is not 0.
 */
int drack_peer_list(struct drack_nl *nl, uint32_t ifindex, drack_peer_cb cb,
		    void *arg);
int drack_class_list(struct drack_nl *nl, uint32_t ifindex,
		     drack_class_cb cb, void *arg);
int drack_stats_list(struct drack_nl *nl, uint32_t ifindex,
		     drack_stats_cb cb, void *arg);

/*
 * Events: a non-blocking socket subscribed to the "events" group. Poll
 * drack_events_fd() for POLLIN, then drack_events_read() hands every
 * queued event to @cb and returns how many there were, or -ENOBUFS when
 * the socket overflowed and events were lost (the handle stays usable;
 * re-read the tables to catch up).
 */
struct drack_events *drack_events_open(void);
void drack_events_close(struct drack_events *ev);
int drack_events_fd(const struct drack_events *ev);
int drack_events_read(struct drack_events *ev, drack_event_cb cb, void *arg);

/*
 * Links: the drack interfaces (one per host) of the caller's network
 * namespace, over rtnetlink. drack.ko need not be loaded for
 * drack_link_add(): the kernel loads it for the link kind. These
 * functions open their own socket and need no struct drack_nl.
 */
#define DRACK_LINK_ANY		UINT32_MAX	/* pool 0 / lowest free host */

struct drack_link_info {
	uint32_t ifindex;
	char name[16];			/* IFNAMSIZ */
	uint32_t pool;			/* DRACK_LINK_ANY if not reported */
	uint32_t host;			/* DRACK_LINK_ANY if not reported */
	uint32_t flags;			/* IFF_* */
	uint32_t mtu;
	uint8_t operstate;		/* IF_OPER_* */
	uint8_t mac[6];
	/* enum drack_carrier_reason, DRACK_LINK_ANY if not reported */
	uint32_t carrier_reason;
};

typedef int (*drack_link_cb)(const struct drack_link_info *link, void *arg);

/*
 * Create drack link @name as host @host of pool @pool (DRACK_LINK_ANY:
 * the kernel's default), in the network namespace of @netns_fd if it is
 * not negative. Needs CAP_NET_ADMIN. The kernel's message, if any, goes
 * to @errbuf. -EINVAL for a name that is empty or too long.
 */
int drack_link_add(const char *name, uint32_t pool, uint32_t host,
		   int netns_fd, char *errbuf, size_t errlen);
/* Delete drack link @name: -ENODEV if none, -EOPNOTSUPP if not drack. */
int drack_link_del(const char *name, char *errbuf, size_t errlen);
/* Every drack link, in ifindex order. */
int drack_link_list(drack_link_cb cb, void *arg);
/* One link by name: -ENODEV if none, -EOPNOTSUPP if not a drack link. */
int drack_link_get(const char *name, struct drack_link_info *info);

/* Names for printing; "?" for values out of range. */
const char *drack_host_state_name(uint32_t state);
const char *drack_class_name(uint32_t buf_class);
const char *drack_nic_state_name(uint32_t state);	/* "up", ... */
const char *drack_carrier_reason_name(uint32_t why);	/* "no_fm", ... */
/* e.g. "tx_packets"; NULL for an unknown counter. */
const char *drack_stat_name(uint32_t stat);

#ifdef __cplusplus
}
#endif

#endif /* _DRACK_DRACK_H */
