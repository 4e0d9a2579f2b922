/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * drack: the user-space API of drack.ko: link attributes (rtnetlink) and
 * the generic netlink family. The pool's on-media format is in
 * drack_pool.h; its enums (host states, Buffer classes) are part of this
 * API too, so it is included here.
 */
#ifndef _UAPI_DRACK_H
#define _UAPI_DRACK_H

#include <linux/types.h>
#include "drack_pool.h"

/* ---------------------------------------------------------------- */
/* rtnetlink: IFLA_INFO_DATA of link kind "drack"                   */
/* ---------------------------------------------------------------- */

enum {
	IFLA_DRACK_UNSPEC,
	IFLA_DRACK_POOL,	/* u32: pool id, default 0 */
	IFLA_DRACK_HOST,	/* u32: host id, default: the next free one */
	/* Read only (ip -d link show); newlink refuses them: */
	IFLA_DRACK_STATE,	/* u32: enum drack_host_state of this host */
	IFLA_DRACK_PEERS,	/* u32: peers reachable now (UP, running) */
	IFLA_DRACK_SECTIONS,	/* u32: Sections it owns in the pool */
	IFLA_DRACK_CARRIER_REASON, /* u32: enum drack_carrier_reason */
	__IFLA_DRACK_MAX,
};
#define IFLA_DRACK_MAX (__IFLA_DRACK_MAX - 1)

/*
 * Why a link has no carrier. It needs a peer that is up and running, and
 * a Section of the 2 KB class (the class of every frame up to 2 KB:
 * ARP, neighbour discovery, ACKs) it can lend Buffers from.
 */
enum drack_carrier_reason {
	DRACK_CARRIER_OK,		/* carrier on */
	DRACK_CARRIER_NO_PEER,		/* no other host up and running */
	DRACK_CARRIER_WAITING,		/* asked for a Section just now */
	DRACK_CARRIER_NO_FM,		/* asked for 2 s, no answer */
	DRACK_CARRIER_QUOTA,		/* the FM refused: quota reached */
	DRACK_CARRIER_POOL_FULL,	/* no free Section in the pool */
	DRACK_CARRIER_FENCED,		/* fenced by the FM, rejoining */
	__DRACK_CARRIER_MAX,
};
#define DRACK_CARRIER_MAX (__DRACK_CARRIER_MAX - 1)

/* ---------------------------------------------------------------- */
/* Generic netlink family "drack"                                    */
/* ---------------------------------------------------------------- */

/* Generated from Documentation/netlink/specs/drack.yaml: */
#include "drack_genl.h"

#endif /* _UAPI_DRACK_H */
