/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A pool: one mapped shared region, its validated geometry and the backend
 * that maps it and rings doorbells. Knows nothing of netdevs.
 */
#ifndef _DRACK_POOL_H
#define _DRACK_POOL_H

#ifdef __KERNEL__
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#endif
#include "format.h"

struct drack_pool;
struct drack_pool_client;
struct netlink_ext_ack;
struct vm_area_struct;

/*
 * What a host living in this kernel (the netdev layer) lets the pool call:
 * the pool knows its hosts only through these.
 */
struct drack_pool_client_ops {
	/* Doorbell: references, returns or grants are waiting. */
	void (*kick)(struct drack_pool_client *c);
	/* The same from hard irq context (doorbell interrupt, poll timer). */
	void (*kick_irq)(struct drack_pool_client *c);
	/* Anything waiting in the pool for this host? (polling backends) */
	bool (*pending)(struct drack_pool_client *c);
	/* The host table, or the NIC table, changed: read it again. */
	void (*peers_changed)(struct drack_pool_client *c);
	void (*nics_changed)(struct drack_pool_client *c);
	/* The pool's device goes away: leave it (RTNL held). */
	void (*remove)(struct drack_pool_client *c);
};

struct drack_pool_client {
	const struct drack_pool_client_ops *ops;
};

/* What user space hears of: the control layer's events. */
struct drack_pool_events {
	void (*section_request)(struct drack_pool *pool, u32 host,
				u32 buf_class, u32 count);
	void (*host)(struct drack_pool *pool, u32 host, u32 state);
	void (*section)(struct drack_pool *pool, u32 section, u32 owner,
			u32 buf_class);
	void (*nic)(struct drack_pool *pool, u32 nic);
	/* local host @host found @peer stalled (or recovered) */
	void (*peer)(struct drack_pool *pool, u32 host, u32 peer, bool stalled);
};

/* The control layer registers its events once, at module load. */
void drack_pool_set_events(const struct drack_pool_events *ev);
void drack_pool_notify_section_request(struct drack_pool *pool, u32 host,
				       u32 buf_class, u32 count);
void drack_pool_notify_host(struct drack_pool *pool, u32 host, u32 state);
void drack_pool_notify_section(struct drack_pool *pool, u32 section,
			       u32 owner, u32 buf_class);
void drack_pool_notify_nic(struct drack_pool *pool, u32 nic);
void drack_pool_notify_peer(struct drack_pool *pool, u32 host, u32 peer,
			    bool stalled);

struct drack_backend_ops {
	const char *name;
	/* Ring host @host's doorbell: it has new refs, returns or grants. */
	void (*kick)(struct drack_pool *pool, u32 host);
	int (*mmap)(struct drack_pool *pool, struct vm_area_struct *vma);
	void (*release)(struct drack_pool *pool);
	/* Doorbell id peers use to reach this kernel (optional). */
	u16 (*notify_id)(struct drack_pool *pool);
};

/*
 * Only the pool's memory and geometry outside the kernel: the unit tests
 * (tests/unit/) run the Buffer allocator on a pool in user memory.
 */
struct drack_pool {
	u32 id;
	void *base;
	struct drack_geometry geo;		/* validated, never re-read */
	u64 size;				/* mapped bytes */
	u32 regions;				/* memory devices interleaved */
	const struct drack_backend_ops *ops;
	void *backend_priv;
#ifdef __KERNEL__
	/*
	 * The pool's pages, by page index, when they are refcounted pages
	 * the network stack may hold (receive by reference, rxref.c); NULL:
	 * frames are copied out. Nothing but the backend maps them, and it
	 * maps them for user space without page references, so a page's
	 * count is 1 unless an skb (or a pipe it was spliced to) holds it.
	 */
	struct page **pages;
	struct list_head node;			/* in drack_pools */

	struct mutex lock;			/* joins, leaves, grants */
	/* Hosts living in this kernel, by host id. */
	struct drack_pool_client __rcu *local[DRACK_MAX_HOSTS];

	/* The registered fabric manager, under drack_pools_lock. */
	u32 fm_portid;				/* 0: none */
	u32 fm_pid;
	possible_net_t fm_net;

	struct miscdevice misc;
	char misc_name[24];
#endif
};

extern struct list_head drack_pools;		/* under drack_pools_lock */
extern struct mutex drack_pools_lock;

/* Format @base (fresh memory) as pool @id. */
int drack_pool_format(void *base, u64 size, u32 id, u32 max_hosts,
		      u32 regions);
/* Format a registered pool again; no host may use it. */
int drack_pool_reformat(struct drack_pool *pool, u32 max_hosts, u32 regions,
			struct netlink_ext_ack *extack);
/* Validate the superblock at @base and register the pool. */
int drack_pool_register(struct drack_pool *pool, void *base, u64 size,
			const struct drack_backend_ops *ops);
void drack_pool_unregister(struct drack_pool *pool);
struct drack_pool *drack_pool_find(u32 id);	/* drack_pools_lock held */
#ifdef __KERNEL__
/*
 * The pages a backend puts under Sections for 64 KB Buffers
 * (drack_section_large_pages()): 64 KB compound pages, so that such a
 * Buffer received by reference is one page fragment, not sixteen.
 */
#define DRACK_LARGE_PAGE_ORDER	(DRACK_CLASS_SHIFT(DRACK_CLASS_64K) - PAGE_SHIFT)
/*
 * Order of the pages under @section in this kernel, the smallest if they
 * differ; -1: no struct pages.
 */
int drack_pool_page_order(struct drack_pool *pool, u32 section);
/*
 * How long a backend waits, at removal, for sockets to let go of the
 * pool pages they received by reference, before it keeps them for good.
 */
#define DRACK_POOL_DRAIN_MS	5000
/*
 * Wait up to @ms for no skb to hold any of @pages (each page, or its
 * compound head, back to the one reference it has idle); false: some
 * still are. With @ms 0: are they idle now?
 */
bool drack_pool_pages_wait(struct page **pages, unsigned long n,
			   unsigned int ms);
#endif

static inline void *drack_pool_ptr(struct drack_pool *pool, u64 off)
{
	return (u8 *)pool->base + off;
}

static inline struct drack_host_entry *
drack_host_entry(struct drack_pool *pool, u32 host)
{
	return drack_pool_ptr(pool, drack_host_entry_off(&pool->geo, host));
}

static inline struct drack_section_entry *
drack_section_entry(struct drack_pool *pool, u32 section)
{
	return drack_pool_ptr(pool, drack_section_entry_off(&pool->geo,
							    section));
}

static inline u32 drack_host_state(struct drack_pool *pool, u32 host)
{
	return le32_to_cpu(READ_ONCE(drack_host_entry(pool, host)->state));
}

/*
 * Move host @host's slot from @old to @new state. Other kernels share the
 * host table, so a slot is claimed (and a host fenced) by compare and
 * exchange, never by a check followed by a store.
 */
bool drack_host_cmpxchg(struct drack_pool *pool, u32 host, u32 old, u32 new);
/* Store @host's state where no other kernel races for the slot. */
void drack_host_set_state(struct drack_pool *pool, u32 host, u32 state);

/* Claim a free slot for a join. */
static inline bool drack_host_claim(struct drack_pool *pool, u32 host)
{
	return drack_host_cmpxchg(pool, host, DRACK_HOST_FREE,
				  DRACK_HOST_JOINING);
}

static inline u32 drack_host_flags(struct drack_pool *pool, u32 host)
{
	return le32_to_cpu(READ_ONCE(drack_host_entry(pool, host)->flags));
}

/* A host others may send to: up and with its interface running. */
static inline bool drack_host_reachable(struct drack_pool *pool, u32 host)
{
	return drack_host_state(pool, host) == DRACK_HOST_UP &&
	       (drack_host_flags(pool, host) & DRACK_HOST_F_RUNNING);
}

static inline u16 drack_section_owner(struct drack_pool *pool, u32 section)
{
	return le16_to_cpu(READ_ONCE(drack_section_entry(pool,
							 section)->owner));
}

u32 drack_pool_free_sections(struct drack_pool *pool);
u32 drack_pool_host_sections(struct drack_pool *pool, u32 host);

/*
 * The fabric manager's grant: mark @section owned by @host with @buf_class
 * in the Section table and post it on the host's grant ring.
 */
int drack_pool_grant(struct drack_pool *pool, u32 host, u32 section,
		     u32 buf_class, struct netlink_ext_ack *extack);

/*
 * The fabric manager will not grant @host's request, for reason @why
 * (enum drack_refusal): noted in its host entry until the next grant.
 */
int drack_pool_refuse(struct drack_pool *pool, u32 host, u32 why,
		      struct netlink_ext_ack *extack);

/* Ask the owner of @section to give it back once its Buffers are home. */
int drack_pool_revoke(struct drack_pool *pool, u32 section,
		      struct netlink_ext_ack *extack);
/* Declare @host dead; live hosts then let go of its Buffers. */
int drack_pool_fence(struct drack_pool *pool, u32 host,
		     struct netlink_ext_ack *extack);
/* Every Section of @host back to free (pool->lock held); how many. */
u32 drack_pool_free_host_sections(struct drack_pool *pool, u32 host);
/* Free a fenced host's Sections and slot once no live host needs them. */
int drack_pool_reclaim(struct drack_pool *pool, u32 host,
		       struct netlink_ext_ack *extack);
/* Bump the superblock's FM epoch; returns the new value. */
u64 drack_pool_new_fm_epoch(struct drack_pool *pool);
u64 drack_pool_fm_epoch(struct drack_pool *pool);

/* Hosts of this kernel on @pool go away (device removal). */
void drack_pool_detach_devices(struct drack_pool *pool);

/* Doorbell for @host if it lives in this kernel; false if it does not. */
bool drack_pool_kick_here(struct drack_pool *pool, u32 host);

/*
 * Kick the local hosts of @pool (doorbell interrupt or poll, hard irq
 * context); with @only_pending just those with work. True if any had.
 */
bool drack_pool_kick_local(struct drack_pool *pool, bool only_pending);

#ifdef __KERNEL__
/* Polling for backends without doorbells: fast while busy, slow idle. */
struct drack_poller {
	struct hrtimer timer;
	struct drack_pool *pool;
	u64 ns;
};

void drack_poller_init(struct drack_poller *p, struct drack_pool *pool);
void drack_poller_start(struct drack_poller *p);
void drack_poller_stop(struct drack_poller *p);
#endif

/* Every local device re-evaluates its peers (carrier). */
void drack_pool_peers_changed(struct drack_pool *pool);
/* Every local device re-reads the NIC table (vNICs, failover). */
void drack_pool_nics_changed(struct drack_pool *pool);

static inline void drack_pool_kick(struct drack_pool *pool, u32 host)
{
	pool->ops->kick(pool, host);
}

int drack_chardev_register(struct drack_pool *pool);
void drack_chardev_unregister(struct drack_pool *pool);

int drack_ram_init(void);
void drack_ram_exit(void);
int drack_ivshmem_init(void);
void drack_ivshmem_exit(void);
int drack_phys_init(void);
void drack_phys_exit(void);

extern unsigned int drack_max_hosts;	/* for pools this kernel formats */
extern unsigned int drack_max_nics;	/* NIC table entries, likewise */
extern bool drack_pool_format_blank;	/* format blank shared pools */

/*
 * Shared pools (ivshmem, phys): register @pool once its superblock is
 * valid, formatting it first if it is blank and this kernel formats
 * blank pools. -EAGAIN: not formatted yet, try again later.
 */
int drack_pool_attach(struct drack_pool *pool, void *base, u64 size,
		      const struct drack_backend_ops *ops, const char *what);

#endif /* _DRACK_POOL_H */
