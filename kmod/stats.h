/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counters. Data paths count per CPU (struct drack_counters, u64_stats),
 * control paths in plain words with one writer each. A host's counters
 * have one table (stats.c) that ethtool -S, the genl STATS dump and
 * ndo_get_stats64 all read; the NIC pool's objects use the same per-CPU
 * counters for theirs.
 */
#ifndef _DRACK_STATS_H
#define _DRACK_STATS_H

#include <linux/percpu.h>
#include <linux/u64_stats_sync.h>

enum drack_dev_stat {
	/* data path, per CPU */
	DRACK_S_TX_PACKETS,
	DRACK_S_TX_BYTES,
	DRACK_S_TX_REFS,		/* references posted, broadcast copies too */
	DRACK_S_TX_BCAST,		/* broadcast/multicast frames replicated */
	DRACK_S_TX_RING_FULL,		/* queue stopped: a ref_queue was full */
	DRACK_S_TX_NO_BUFFER,		/* queue stopped: no free Buffer */
	DRACK_S_TX_NO_PEER,		/* unknown or unreachable destination */
	DRACK_S_TX_DROPPED,
	DRACK_S_TX_DOORBELLS,
	DRACK_S_TX_DOORBELLS_SUPPRESSED,
	DRACK_S_RX_PACKETS,
	DRACK_S_RX_BYTES,
	DRACK_S_RX_REFS,
	DRACK_S_RX_BAD_DESC,		/* references failing validation */
	DRACK_S_RX_BAD_RING,		/* ring indexes that made no sense */
	DRACK_S_RX_ALLOC_FAIL,
	DRACK_S_RX_DROPPED,		/* arrived while the interface was down */
	DRACK_S_RET_OK,			/* our Buffers handed back */
	DRACK_S_RET_BAD,		/* bogus returns */
	DRACK_S_RET_DOORBELLS,
	DRACK_S_TX_PEER_STALLED,	/* dropped: their peer is stalled */
	DRACK_S_TX_PEER_CAPPED,		/* queue stopped: peer holds its cap */
	DRACK_S_RX_BYREF,		/* frames received by reference */
	DRACK_S_RX_COPIED,		/* copied: no pages, or a peer's cap */
	DRACK_S_RX_COPYBREAK,		/* copied: under rx-copybreak */
	DRACK_S_RX_HELD,		/* a gauge: Buffers skbs hold now */
	DRACK_S_TX_STOPS,		/* the queue stopped, for any reason */
	DRACK_S_TX_WAKES,
	DRACK_S_RX_PEER_BACKOFFS,	/* a peer's garbage left alone a while */
	DRACK_S_RX_BYREF_FRAGS,		/* their page frags; not in genl */
	DRACK_S_RX_KICKS_OTHER_CPU,	/* doorbells sent to our home CPU */
	/* of rx_copied, why (not in genl): */
	DRACK_S_RX_COPIED_HELD_MAX,	/* we hold rx_ref_max_mb of the peer's */
	DRACK_S_RX_COPIED_LEND_CAP,	/* half what the peer lends one peer */
	DRACK_S_RX_COPIED_REVOKE,	/* its Section is being revoked */
	DRACK_S_RX_COPIED_SCARCE,	/* the sender flagged itself short */
	/* not in genl either: frames we sent flagged short */
	DRACK_S_TX_SCARCE,
	/* XDP verdicts (Documentation/xdp.rst); not in the genl dump */
	DRACK_S_XDP_PASS,
	DRACK_S_XDP_DROP,
	DRACK_S_XDP_TX,			/* posted back to the sending peer */
	DRACK_S_XDP_TX_ERR,		/* XDP_TX the peer could not take */
	DRACK_S_XDP_REDIRECT,
	DRACK_S_XDP_REDIRECT_ERR,
	DRACK_S_XDP_ABORTED,		/* XDP_ABORTED or an unknown verdict */
	DRACK_S_XDP_UNFIT,		/* GSO or too big for one page: dropped */
	DRACK_S_XDP_XMIT,		/* frames redirected into rack0, posted */
	DRACK_S_XDP_XMIT_ERR,
	DRACK_S_PCPU_NR,
	/* control path */
	DRACK_S_SECTION_REQUESTS = DRACK_S_PCPU_NR,
	DRACK_S_GRANTS,
	DRACK_S_GRANT_BAD,
	DRACK_S_REVOKES,		/* revoked Sections given back */
	DRACK_S_PEERS_RELEASED,		/* fenced peers let go of */
	DRACK_S_FENCED,			/* times we found ourselves fenced */
	DRACK_S_PEER_STALLS,		/* times a peer was found stalled */
	DRACK_S_NR,
};

/* @n counters per CPU; bh off while counting. */
struct drack_pcpu_counters {
	struct u64_stats_sync syncp;
	u64_stats_t v[];
};

struct drack_counters {
	struct drack_pcpu_counters __percpu *pcpu;
	unsigned int n;
};

int drack_counters_init(struct drack_counters *c, unsigned int n);
void drack_counters_free(struct drack_counters *c);
/* All @c->n counters, summed over CPUs, into @vals. */
void drack_counters_fold(const struct drack_counters *c, u64 *vals);

static inline void drack_counter_add(struct drack_counters *c,
				     unsigned int i, u64 n)
{
	struct drack_pcpu_counters *p = this_cpu_ptr(c->pcpu);

	u64_stats_update_begin(&p->syncp);
	u64_stats_add(&p->v[i], n);
	u64_stats_update_end(&p->syncp);
}

static inline void drack_counter_inc(struct drack_counters *c, unsigned int i)
{
	drack_counter_add(c, i, 1);
}

struct drack_stats {
	struct drack_counters pcpu;
	u64 ctl[DRACK_S_NR - DRACK_S_PCPU_NR];	/* one writer each (works) */
};

/* One row of the table: how ethtool and genl name a counter. */
struct drack_stat_desc {
	const char *name;	/* ethtool -S, or NULL: not shown there */
	u16 nl_attr;		/* enum drack_stat, 0: not in the genl dump */
};

extern const struct drack_stat_desc drack_stat_table[DRACK_S_NR];

int drack_stats_init(struct drack_stats *s);
void drack_stats_free(struct drack_stats *s);
/* Every counter, summed over CPUs, in table order. */
void drack_stats_fold(const struct drack_stats *s, u64 vals[DRACK_S_NR]);
/* ethtool -S rows: how many, and their values in table order. */
unsigned int drack_stats_ethtool_count(void);
u8 *drack_stats_ethtool_strings(u8 *data);
u64 *drack_stats_ethtool_values(const u64 vals[DRACK_S_NR], u64 *data);

/* Data path, bh off (xmit, NAPI, or under a _bh lock). */
static inline void drack_stat_add(struct drack_stats *s,
				  enum drack_dev_stat i, u64 n)
{
	drack_counter_add(&s->pcpu, i, n);
}

static inline void drack_stat_inc(struct drack_stats *s,
				  enum drack_dev_stat i)
{
	drack_stat_add(s, i, 1);
}

/* Control path: one work item writes each. */
static inline void drack_stat_ctl_inc(struct drack_stats *s,
				      enum drack_dev_stat i)
{
	u64 *c = &s->ctl[i - DRACK_S_PCPU_NR];

	WRITE_ONCE(*c, *c + 1);
}

#endif /* _DRACK_STATS_H */
