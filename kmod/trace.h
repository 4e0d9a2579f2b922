/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of drack.ko, system "drack" (Documentation/tracing.rst).
 * Pool layer: arguments are scalars and the net_device, never a drack
 * struct of an upper layer, so that pool.c and peer.c may include it.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM drack

#if !defined(_DRACK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _DRACK_TRACE_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>
#include "uapi/drack_pool.h"

#ifndef _DRACK_TRACE_ONCE
#define _DRACK_TRACE_ONCE
/* Why a Section went back to free: drack_section_free's reason. */
enum drack_trace_free {
	DRACK_TRACE_REVOKED,	/* the owner gave it back after a revoke */
	DRACK_TRACE_LEFT,	/* its owner left the pool */
	DRACK_TRACE_RECLAIMED,	/* the FM reclaimed a fenced owner's */
};
#endif

/* Enum names in print formats become numbers for perf and trace-cmd. */
TRACE_DEFINE_ENUM(DRACK_CLASS_2K);
TRACE_DEFINE_ENUM(DRACK_CLASS_64K);
TRACE_DEFINE_ENUM(DRACK_HOST_FREE);
TRACE_DEFINE_ENUM(DRACK_HOST_JOINING);
TRACE_DEFINE_ENUM(DRACK_HOST_UP);
TRACE_DEFINE_ENUM(DRACK_HOST_LEAVING);
TRACE_DEFINE_ENUM(DRACK_HOST_DEAD);
TRACE_DEFINE_ENUM(DRACK_TRACE_REVOKED);
TRACE_DEFINE_ENUM(DRACK_TRACE_LEFT);
TRACE_DEFINE_ENUM(DRACK_TRACE_RECLAIMED);

#define drack_show_class(c)						\
	__print_symbolic(c, { DRACK_CLASS_2K, "2k" },			\
			 { DRACK_CLASS_64K, "64k" })
#define drack_show_state(s)						\
	__print_symbolic(s, { DRACK_HOST_FREE, "FREE" },		\
			 { DRACK_HOST_JOINING, "JOINING" },		\
			 { DRACK_HOST_UP, "UP" },			\
			 { DRACK_HOST_LEAVING, "LEAVING" },		\
			 { DRACK_HOST_DEAD, "DEAD" })

/* A reference posted on @dst's ref_queue[@host]: the frame is in the pool. */
TRACE_EVENT(drack_xmit,
	TP_PROTO(const struct net_device *ndev, u32 pool, u32 host, u32 dst,
		 u32 len, u32 buf_class, u64 off, bool bcast),
	TP_ARGS(ndev, pool, host, dst, len, buf_class, off, bcast),
	TP_STRUCT__entry(
		__array(char, dev, IFNAMSIZ)
		__field(int, ifindex)
		__field(u32, pool)
		__field(u32, host)
		__field(u32, dst)
		__field(u32, len)
		__field(u32, buf_class)
		__field(u64, off)
		__field(bool, bcast)
	),
	TP_fast_assign(
		memcpy(__entry->dev, ndev->name, IFNAMSIZ);
		__entry->ifindex = ndev->ifindex;
		__entry->pool = pool;
		__entry->host = host;
		__entry->dst = dst;
		__entry->len = len;
		__entry->buf_class = buf_class;
		__entry->off = off;
		__entry->bcast = bcast;
	),
	TP_printk("dev=%s ifindex=%d pool=%u host=%u dst=%u len=%u class=%s off=0x%llx bcast=%d",
		  __entry->dev, __entry->ifindex, __entry->pool, __entry->host,
		  __entry->dst, __entry->len,
		  drack_show_class(__entry->buf_class), __entry->off,
		  __entry->bcast)
);

/* A valid reference from @src consumed: passed up the stack, or dropped. */
TRACE_EVENT(drack_receive,
	TP_PROTO(const struct net_device *ndev, u32 pool, u32 host, u32 src,
		 u32 len, u64 off, bool dropped),
	TP_ARGS(ndev, pool, host, src, len, off, dropped),
	TP_STRUCT__entry(
		__array(char, dev, IFNAMSIZ)
		__field(int, ifindex)
		__field(u32, pool)
		__field(u32, host)
		__field(u32, src)
		__field(u32, len)
		__field(u64, off)
		__field(bool, dropped)
	),
	TP_fast_assign(
		memcpy(__entry->dev, ndev->name, IFNAMSIZ);
		__entry->ifindex = ndev->ifindex;
		__entry->pool = pool;
		__entry->host = host;
		__entry->src = src;
		__entry->len = len;
		__entry->off = off;
		__entry->dropped = dropped;
	),
	TP_printk("dev=%s ifindex=%d pool=%u host=%u src=%u len=%u off=0x%llx dropped=%d",
		  __entry->dev, __entry->ifindex, __entry->pool, __entry->host,
		  __entry->src, __entry->len, __entry->off, __entry->dropped)
);

/* @owner took back Buffers @peer returned: @count good, @bad refused. */
TRACE_EVENT(drack_buf_return,
	TP_PROTO(u32 pool, u32 owner, u32 peer, u32 count, u32 bad),
	TP_ARGS(pool, owner, peer, count, bad),
	TP_STRUCT__entry(
		__field(u32, pool)
		__field(u32, owner)
		__field(u32, peer)
		__field(u32, count)
		__field(u32, bad)
	),
	TP_fast_assign(
		__entry->pool = pool;
		__entry->owner = owner;
		__entry->peer = peer;
		__entry->count = count;
		__entry->bad = bad;
	),
	TP_printk("pool=%u owner=%u peer=%u count=%u bad=%u",
		  __entry->pool, __entry->owner, __entry->peer, __entry->count,
		  __entry->bad)
);

DECLARE_EVENT_CLASS(drack_section_class,
	TP_PROTO(u32 pool, u32 section, u32 host, u32 buf_class),
	TP_ARGS(pool, section, host, buf_class),
	TP_STRUCT__entry(
		__field(u32, pool)
		__field(u32, section)
		__field(u32, host)
		__field(u32, buf_class)
	),
	TP_fast_assign(
		__entry->pool = pool;
		__entry->section = section;
		__entry->host = host;
		__entry->buf_class = buf_class;
	),
	TP_printk("pool=%u section=%u host=%u class=%s",
		  __entry->pool, __entry->section, __entry->host,
		  drack_show_class(__entry->buf_class))
);

/* @host took a grant: the Section's Buffers are its to lend. */
DEFINE_EVENT(drack_section_class, drack_section_grant,
	TP_PROTO(u32 pool, u32 section, u32 host, u32 buf_class),
	TP_ARGS(pool, section, host, buf_class)
);

/* The FM asked @host to give the Section back once its Buffers are home. */
DEFINE_EVENT(drack_section_class, drack_section_revoke,
	TP_PROTO(u32 pool, u32 section, u32 host, u32 buf_class),
	TP_ARGS(pool, section, host, buf_class)
);

/* A Section of @host went back to free in the Section table. */
TRACE_EVENT(drack_section_free,
	TP_PROTO(u32 pool, u32 section, u32 host, u32 buf_class,
		 enum drack_trace_free reason),
	TP_ARGS(pool, section, host, buf_class, reason),
	TP_STRUCT__entry(
		__field(u32, pool)
		__field(u32, section)
		__field(u32, host)
		__field(u32, buf_class)
		__field(u32, reason)
	),
	TP_fast_assign(
		__entry->pool = pool;
		__entry->section = section;
		__entry->host = host;
		__entry->buf_class = buf_class;
		__entry->reason = reason;
	),
	TP_printk("pool=%u section=%u host=%u class=%s reason=%s",
		  __entry->pool, __entry->section, __entry->host,
		  drack_show_class(__entry->buf_class),
		  __print_symbolic(__entry->reason,
				   { DRACK_TRACE_REVOKED, "revoked" },
				   { DRACK_TRACE_LEFT, "left" },
				   { DRACK_TRACE_RECLAIMED, "reclaimed" }))
);

/* This kernel wrote @host's state in the host table. */
TRACE_EVENT(drack_host_state,
	TP_PROTO(u32 pool, u32 host, u32 old, u32 new),
	TP_ARGS(pool, host, old, new),
	TP_STRUCT__entry(
		__field(u32, pool)
		__field(u32, host)
		__field(u32, old)
		__field(u32, new)
	),
	TP_fast_assign(
		__entry->pool = pool;
		__entry->host = host;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("pool=%u host=%u old=%s new=%s",
		  __entry->pool, __entry->host, drack_show_state(__entry->old),
		  drack_show_state(__entry->new))
);

/* Local @host saw @peer's state change (any kernel may have written it). */
TRACE_EVENT(drack_peer_state,
	TP_PROTO(const struct net_device *ndev, u32 pool, u32 host, u32 peer,
		 u32 old, u32 new),
	TP_ARGS(ndev, pool, host, peer, old, new),
	TP_STRUCT__entry(
		__array(char, dev, IFNAMSIZ)
		__field(int, ifindex)
		__field(u32, pool)
		__field(u32, host)
		__field(u32, peer)
		__field(u32, old)
		__field(u32, new)
	),
	TP_fast_assign(
		memcpy(__entry->dev, ndev->name, IFNAMSIZ);
		__entry->ifindex = ndev->ifindex;
		__entry->pool = pool;
		__entry->host = host;
		__entry->peer = peer;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("dev=%s ifindex=%d pool=%u host=%u peer=%u old=%s new=%s",
		  __entry->dev, __entry->ifindex, __entry->pool, __entry->host,
		  __entry->peer, drack_show_state(__entry->old),
		  drack_show_state(__entry->new))
);

#endif /* _DRACK_TRACE_H */

/* define_trace.h includes this file again, from here (-I$(src)). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
