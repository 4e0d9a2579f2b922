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

#define DRACK_GENL_NAME		"drack"
#define DRACK_GENL_VERSION	1
#define DRACK_GENL_MCGRP_EVENTS	"events"

enum drack_cmd {
	DRACK_CMD_UNSPEC,
	DRACK_CMD_POOL_GET,		/* doit (DRACK_A_POOL_ID) or dump */
	DRACK_CMD_HOST_GET,		/* dump of one pool's host table */
	DRACK_CMD_SECTION_GET,		/* dump of one pool's Section table */
	DRACK_CMD_SECTION_GRANT,	/* FM: give a free Section to a host */
	DRACK_CMD_SECTION_REQUEST,	/* event: a host wants Sections */
	DRACK_CMD_HOST_NOTIFY,		/* event: a host's state changed */
	DRACK_CMD_SECTION_REVOKE,	/* FM: ask the owner to give it back */
	DRACK_CMD_HOST_FENCE,		/* FM: declare a host dead */
	DRACK_CMD_HOST_RECLAIM,		/* FM: free a fenced host's Sections */
	DRACK_CMD_FM_REGISTER,		/* become the pool's fabric manager */
	DRACK_CMD_FM_UNREGISTER,
	DRACK_CMD_POOL_FORMAT,		/* FM: wipe and format an idle pool */
	DRACK_CMD_PEER_GET,		/* dump: peers seen by local hosts */
	DRACK_CMD_CLASS_GET,		/* dump: Buffer classes of local hosts */
	DRACK_CMD_STATS_GET,		/* dump: counters of local hosts */
	DRACK_CMD_SECTION_NOTIFY,	/* event: a Section changed owner */
	DRACK_CMD_NIC_EXPORT,		/* a local host exports a NIC */
	DRACK_CMD_NIC_UNEXPORT,		/* and takes it back */
	DRACK_CMD_NIC_GET,		/* dump of one pool's NIC table */
	DRACK_CMD_NIC_ASSIGN,		/* FM: give (or take) a host a vNIC */
	DRACK_CMD_NIC_NOTIFY,		/* event: a NIC changed state */
	DRACK_CMD_SECTION_REFUSE,	/* FM: a host's request is refused */
	__DRACK_CMD_MAX,
};
#define DRACK_CMD_MAX (__DRACK_CMD_MAX - 1)

enum drack_attr {
	DRACK_A_UNSPEC,
	DRACK_A_PAD,
	DRACK_A_POOL_ID,		/* u32 */
	DRACK_A_POOL_BACKEND,		/* string: "ram", ... */
	DRACK_A_POOL_SIZE,		/* u64, bytes */
	DRACK_A_POOL_SECTION_SIZE,	/* u32, bytes */
	DRACK_A_POOL_SECTION_COUNT,	/* u32 */
	DRACK_A_POOL_META_SECTIONS,	/* u32 */
	DRACK_A_POOL_FREE_SECTIONS,	/* u32 */
	DRACK_A_POOL_MAX_HOSTS,		/* u32 */
	DRACK_A_HOST_ID,		/* u32 */
	DRACK_A_HOST_STATE,		/* u32, enum drack_host_state */
	DRACK_A_HOST_FLAGS,		/* u32, DRACK_HOST_F_* */
	DRACK_A_HOST_MAC,		/* binary, 6 bytes */
	DRACK_A_HOST_IFINDEX,		/* u32, 0 if not in this kernel */
	DRACK_A_HOST_SECTIONS,		/* u32, Sections owned */
	DRACK_A_HOST_HEARTBEAT,		/* u64 */
	DRACK_A_SECTION_ID,		/* u32 */
	DRACK_A_SECTION_OWNER,		/* u32: host id or DRACK_SECTION_* */
	DRACK_A_SECTION_GENERATION,	/* u32 */
	DRACK_A_CLASS,			/* u32, enum drack_buf_class */
	DRACK_A_COUNT,			/* u32: Sections wanted */
	DRACK_A_POOL_REGIONS,		/* u32, memory devices interleaved */
	DRACK_A_POOL_FM_PID,		/* u32, registered FM, 0: none */
	DRACK_A_POOL_FM_EPOCH,		/* u64 */
	DRACK_A_SECTION_REGION,		/* u32 */
	DRACK_A_SECTION_FLAGS,		/* u32, DRACK_SECTION_F_* */
	DRACK_A_HOST_GENERATION,	/* u32 */
	DRACK_A_HOST_FREE_2K,		/* u32, free Buffers it published */
	DRACK_A_HOST_FREE_64K,		/* u32 */
	DRACK_A_HOST_WANTED_2K,		/* u32, 1: Section request pending */
	DRACK_A_HOST_WANTED_64K,	/* u32 */
	DRACK_A_HOST_RELEASED,		/* u64, bit p: released DEAD host p */
	DRACK_A_IFINDEX,		/* u32, a local drack netdev */
	DRACK_A_IFNAME,			/* string */
	DRACK_A_PEER_ID,		/* u32 */
	DRACK_A_PEER_STATE,		/* u32, enum drack_host_state */
	DRACK_A_PEER_REACHABLE,		/* u32, 1: frames go to it */
	DRACK_A_PEER_TX_PACKETS,	/* u64 */
	DRACK_A_PEER_TX_BYTES,		/* u64 */
	DRACK_A_PEER_RX_PACKETS,	/* u64 */
	DRACK_A_PEER_RX_BYTES,		/* u64 */
	DRACK_A_PEER_RX_BAD,		/* u64 */
	DRACK_A_CLASS_SECTIONS,		/* u32 */
	DRACK_A_CLASS_TOTAL,		/* u32, Buffers */
	DRACK_A_CLASS_FREE,		/* u32 */
	DRACK_A_CLASS_INFLIGHT,		/* u32 */
	DRACK_A_CLASS_REQUESTED,	/* u32, 1: asked the FM */
	DRACK_A_CLASS_DRAINING,		/* u32, revoked Sections not yet home */
	DRACK_A_STATS,			/* nest of u64, types enum drack_stat */
	DRACK_A_POOL_MAX_NICS,		/* u32, NIC table entries */
	DRACK_A_NIC_ID,			/* u32 */
	DRACK_A_NIC_STATE,		/* u32, enum drack_nic_state */
	DRACK_A_NIC_OWNER,		/* u32, host id */
	DRACK_A_NIC_MAC,		/* binary, 6 bytes */
	DRACK_A_NIC_GENERATION,		/* u32 */
	DRACK_A_NIC_RATE,		/* u32, Mbit/s, 0: unknown */
	DRACK_A_NIC_ASSIGNED,		/* u64, bit h: host h has a vNIC */
	DRACK_A_NIC_TX_BYTES,		/* u64 */
	DRACK_A_NIC_RX_BYTES,		/* u64 */
	DRACK_A_NIC_QUEUE_DEPTH,	/* u32 */
	DRACK_A_NIC_DROPS,		/* u64 */
	DRACK_A_NIC_IFINDEX,		/* u32, the physical NIC (owner only) */
	DRACK_A_NIC_IFNAME,		/* string, the physical NIC */
	DRACK_A_NIC_ASSIGN,		/* u32, 1: assign, 0: take back */
	DRACK_A_VNIC_IFINDEX,		/* u32, this kernel's vNIC of the NIC */
	DRACK_A_VNIC_IFNAME,		/* string */
	DRACK_A_VNIC_VIA,		/* u32, NIC id serving it now */
	DRACK_A_VNIC_FAILOVERS,		/* u32, times it moved */
	DRACK_A_REFUSAL,		/* u32, enum drack_refusal */
	__DRACK_A_MAX,
};
#define DRACK_A_MAX (__DRACK_A_MAX - 1)

/* Counters of one local host, nested in DRACK_A_STATS. */
enum drack_stat {
	DRACK_STAT_UNSPEC,
	DRACK_STAT_TX_PACKETS,
	DRACK_STAT_TX_BYTES,
	DRACK_STAT_TX_REFS,
	DRACK_STAT_TX_BCAST,
	DRACK_STAT_TX_RING_FULL,
	DRACK_STAT_TX_NO_BUFFER,
	DRACK_STAT_TX_NO_PEER,
	DRACK_STAT_TX_DROPPED,
	DRACK_STAT_TX_DOORBELLS,
	DRACK_STAT_TX_DOORBELLS_SUPPRESSED,
	DRACK_STAT_RX_PACKETS,
	DRACK_STAT_RX_BYTES,
	DRACK_STAT_RX_REFS,
	DRACK_STAT_RX_BAD_DESC,
	DRACK_STAT_RX_BAD_RING,
	DRACK_STAT_RX_ALLOC_FAIL,
	DRACK_STAT_RX_DROPPED,
	DRACK_STAT_RX_RET_OK,
	DRACK_STAT_RX_RET_BAD,
	DRACK_STAT_RX_RET_DOORBELLS,
	DRACK_STAT_SECTION_REQUESTS,
	DRACK_STAT_GRANTS,
	DRACK_STAT_GRANT_BAD,
	DRACK_STAT_REVOKES,		/* revoked Sections given back */
	DRACK_STAT_PEERS_RELEASED,	/* dead peers let go of */
	DRACK_STAT_FENCED,		/* times this host found itself fenced */
	__DRACK_STAT_MAX,
};
#define DRACK_STAT_MAX (__DRACK_STAT_MAX - 1)

#endif /* _UAPI_DRACK_H */
