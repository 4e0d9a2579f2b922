// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one table of a host's counters, and how they are summed.
 */
#include <linux/ethtool.h>
#include <linux/slab.h>
#include "stats.h"
#include "uapi/drack.h"

#define DRACK_STAT_ROW(id, ethtool) \
	[DRACK_S_##id] = { .name = ethtool, .nl_attr = DRACK_STAT_##id }

const struct drack_stat_desc drack_stat_table[DRACK_S_NR] = {
	DRACK_STAT_ROW(TX_PACKETS, NULL),
	DRACK_STAT_ROW(TX_BYTES, NULL),
	DRACK_STAT_ROW(TX_REFS, "tx_refs"),
	DRACK_STAT_ROW(TX_BCAST, "tx_bcast"),
	DRACK_STAT_ROW(TX_RING_FULL, "tx_ring_full"),
	DRACK_STAT_ROW(TX_NO_BUFFER, "tx_no_buffer"),
	DRACK_STAT_ROW(TX_NO_PEER, "tx_no_peer"),
	DRACK_STAT_ROW(TX_DROPPED, "tx_dropped"),
	DRACK_STAT_ROW(TX_DOORBELLS, "tx_doorbells"),
	DRACK_STAT_ROW(TX_DOORBELLS_SUPPRESSED, "tx_doorbells_suppressed"),
	DRACK_STAT_ROW(RX_PACKETS, NULL),
	DRACK_STAT_ROW(RX_BYTES, NULL),
	DRACK_STAT_ROW(RX_REFS, "rx_refs"),
	DRACK_STAT_ROW(RX_BAD_DESC, "rx_bad_desc"),
	DRACK_STAT_ROW(RX_BAD_RING, "rx_bad_ring"),
	DRACK_STAT_ROW(RX_ALLOC_FAIL, "rx_alloc_fail"),
	DRACK_STAT_ROW(RX_DROPPED, "rx_dropped"),
	[DRACK_S_RET_OK] = { "ret_ok", DRACK_STAT_RX_RET_OK },
	[DRACK_S_RET_BAD] = { "ret_bad", DRACK_STAT_RX_RET_BAD },
	[DRACK_S_RET_DOORBELLS] = { "ret_doorbells", DRACK_STAT_RX_RET_DOORBELLS },
	DRACK_STAT_ROW(SECTION_REQUESTS, "section_requests"),
	DRACK_STAT_ROW(GRANTS, "grants"),
	DRACK_STAT_ROW(GRANT_BAD, "grant_bad"),
	DRACK_STAT_ROW(REVOKES, "revokes"),
	DRACK_STAT_ROW(PEERS_RELEASED, "peers_released"),
	DRACK_STAT_ROW(FENCED, "fenced"),
	DRACK_STAT_ROW(TX_PEER_STALLED, "tx_peer_stalled"),
	DRACK_STAT_ROW(TX_PEER_CAPPED, "tx_peer_capped"),
	DRACK_STAT_ROW(PEER_STALLS, "peer_stalls"),
	DRACK_STAT_ROW(RX_BYREF, "rx_byref"),
	DRACK_STAT_ROW(RX_COPIED, "rx_copied"),
	DRACK_STAT_ROW(RX_COPYBREAK, "rx_copybreak"),
	DRACK_STAT_ROW(RX_HELD, "rx_held"),
	DRACK_STAT_ROW(TX_STOPS, "tx_stops"),
	DRACK_STAT_ROW(TX_WAKES, "tx_wakes"),
	DRACK_STAT_ROW(RX_PEER_BACKOFFS, "rx_peer_backoffs"),
	[DRACK_S_RX_BYREF_FRAGS] = { "rx_byref_frags", 0 },
	[DRACK_S_RX_KICKS_OTHER_CPU] = { "rx_kicks_other_cpu", 0 },
	[DRACK_S_RX_COPIED_HELD_MAX] = { "rx_copied_held_max", 0 },
	[DRACK_S_RX_COPIED_LEND_CAP] = { "rx_copied_lend_cap", 0 },
	[DRACK_S_RX_COPIED_REVOKE] = { "rx_copied_revoke", 0 },
	[DRACK_S_RX_COPIED_SCARCE] = { "rx_copied_scarce", 0 },
	[DRACK_S_TX_SCARCE] = { "tx_scarce", 0 },
	DRACK_STAT_ROW(XDP_PASS, "xdp_pass"),
	DRACK_STAT_ROW(XDP_DROP, "xdp_drop"),
	DRACK_STAT_ROW(XDP_TX, "xdp_tx"),
	DRACK_STAT_ROW(XDP_TX_ERR, "xdp_tx_err"),
	DRACK_STAT_ROW(XDP_REDIRECT, "xdp_redirect"),
	DRACK_STAT_ROW(XDP_REDIRECT_ERR, "xdp_redirect_err"),
	DRACK_STAT_ROW(XDP_ABORTED, "xdp_aborted"),
	DRACK_STAT_ROW(XDP_UNFIT, "xdp_unfit"),
	DRACK_STAT_ROW(XDP_XMIT, "xdp_xmit"),
	DRACK_STAT_ROW(XDP_XMIT_ERR, "xdp_xmit_err"),
};

int drack_counters_init(struct drack_counters *c, unsigned int n)
{
	int cpu;

	c->n = n;
	c->pcpu = __alloc_percpu(struct_size_t(struct drack_pcpu_counters, v,
					       n),
				 __alignof__(struct drack_pcpu_counters));
	if (!c->pcpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(c->pcpu, cpu)->syncp);
	return 0;
}

void drack_counters_free(struct drack_counters *c)
{
	free_percpu(c->pcpu);
	c->pcpu = NULL;
}

void drack_counters_fold(const struct drack_counters *c, u64 *vals)
{
	const struct drack_pcpu_counters *p;
	unsigned int start, i;
	u64 v;
	int cpu;

	memset(vals, 0, sizeof(u64) * c->n);
	for_each_possible_cpu(cpu) {
		p = per_cpu_ptr(c->pcpu, cpu);
		for (i = 0; i < c->n; i++) {
			do {
				start = u64_stats_fetch_begin(&p->syncp);
				v = u64_stats_read(&p->v[i]);
			} while (u64_stats_fetch_retry(&p->syncp, start));
			vals[i] += v;
		}
	}
}

int drack_stats_init(struct drack_stats *s)
{
	memset(s->ctl, 0, sizeof(s->ctl));
	return drack_counters_init(&s->pcpu, DRACK_S_PCPU_NR);
}

void drack_stats_free(struct drack_stats *s)
{
	drack_counters_free(&s->pcpu);
}

void drack_stats_fold(const struct drack_stats *s, u64 vals[DRACK_S_NR])
{
	unsigned int i;

	drack_counters_fold(&s->pcpu, vals);
	/* A gauge raised on one CPU and lowered on another: never below 0. */
	if ((s64)vals[DRACK_S_RX_HELD] < 0)
		vals[DRACK_S_RX_HELD] = 0;
	for (i = DRACK_S_PCPU_NR; i < DRACK_S_NR; i++)
		vals[i] = READ_ONCE(s->ctl[i - DRACK_S_PCPU_NR]);
}

unsigned int drack_stats_ethtool_count(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < DRACK_S_NR; i++)
		n += !!drack_stat_table[i].name;
	return n;
}

u8 *drack_stats_ethtool_strings(u8 *data)
{
	unsigned int i;

	for (i = 0; i < DRACK_S_NR; i++)
		if (drack_stat_table[i].name)
			ethtool_sprintf(&data, "%s", drack_stat_table[i].name);
	return data;
}

u64 *drack_stats_ethtool_values(const u64 vals[DRACK_S_NR], u64 *data)
{
	unsigned int i;

	for (i = 0; i < DRACK_S_NR; i++)
		if (drack_stat_table[i].name)
			*data++ = vals[i];
	return data;
}
