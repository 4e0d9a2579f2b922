// SPDX-License-Identifier: GPL-2.0-only
/*
 * ethtool: driver info and counters (global, per Buffer class, per peer).
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include "device.h"

struct drack_stat_desc {
	char name[ETH_GSTRING_LEN];
	size_t offset;
};

#define DRACK_STAT(name, member) { name, offsetof(struct drack_dev, member) }

static const struct drack_stat_desc drack_stats[] = {
	DRACK_STAT("tx_refs", tx.refs),
	DRACK_STAT("tx_bcast", tx.bcast),
	DRACK_STAT("tx_ring_full", tx.ring_full),
	DRACK_STAT("tx_no_buffer", tx.no_buffer),
	DRACK_STAT("tx_no_peer", tx.no_peer),
	DRACK_STAT("tx_dropped", tx.dropped),
	DRACK_STAT("tx_doorbells", tx.doorbells),
	DRACK_STAT("tx_doorbells_suppressed", tx.doorbells_suppressed),
	DRACK_STAT("rx_refs", rx.refs),
	DRACK_STAT("rx_bad_desc", rx.bad_desc),
	DRACK_STAT("rx_bad_ring", rx.bad_ring),
	DRACK_STAT("rx_alloc_fail", rx.alloc_fail),
	DRACK_STAT("rx_dropped", rx.dropped),
	DRACK_STAT("ret_ok", rx.ret_ok),
	DRACK_STAT("ret_bad", rx.ret_bad),
	DRACK_STAT("ret_doorbells", rx.ret_doorbells),
	DRACK_STAT("section_requests", ctl.section_requests),
	DRACK_STAT("grants", ctl.grants),
	DRACK_STAT("grant_bad", ctl.grant_bad),
	DRACK_STAT("revokes", ctl.revokes),
	DRACK_STAT("peers_released", ctl.peers_released),
	DRACK_STAT("fenced", ctl.fenced),
};

/*
 * Private flags. "stall" is fault injection for tests: the host behaves
 * like a hung kernel (no heartbeat, no transmit, no receive) until it is
 * cleared, so the fabric manager's dead-host handling can be exercised
 * with every emulated host in one kernel.
 */
#define DRACK_PRIV_STALL	BIT(0)

static const char drack_priv_flags[][ETH_GSTRING_LEN] = {
	"stall",
};

static const char * const drack_class_names[DRACK_NR_CLASSES] = {
	"buf2k", "buf64k",
};

static const char * const drack_class_stats[] = {
	"sections", "total", "free", "inflight",
};

static const char * const drack_peer_stats[] = {
	"tx_packets", "tx_bytes", "rx_packets", "rx_bytes", "rx_bad",
};

#define DRACK_NR_CLASS_STATS ARRAY_SIZE(drack_class_stats)
#define DRACK_NR_PEER_STATS ARRAY_SIZE(drack_peer_stats)

static int drack_get_sset_count(struct net_device *ndev, int sset)
{
	struct drack_dev *dd = netdev_priv(ndev);

	if (sset == ETH_SS_PRIV_FLAGS)
		return ARRAY_SIZE(drack_priv_flags);
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return ARRAY_SIZE(drack_stats) +
	       DRACK_NR_CLASSES * DRACK_NR_CLASS_STATS +
	       dd->nhosts * DRACK_NR_PEER_STATS;
}

static void drack_get_strings(struct net_device *ndev, u32 sset, u8 *data)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u32 i, j;

	if (sset == ETH_SS_PRIV_FLAGS) {
		memcpy(data, drack_priv_flags, sizeof(drack_priv_flags));
		return;
	}
	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ARRAY_SIZE(drack_stats); i++)
		ethtool_sprintf(&data, "%s", drack_stats[i].name);
	for (i = 0; i < DRACK_NR_CLASSES; i++)
		for (j = 0; j < DRACK_NR_CLASS_STATS; j++)
			ethtool_sprintf(&data, "%s_%s", drack_class_names[i],
					drack_class_stats[j]);
	for (i = 0; i < dd->nhosts; i++)
		for (j = 0; j < DRACK_NR_PEER_STATS; j++)
			ethtool_sprintf(&data, "peer%u_%s", i,
					drack_peer_stats[j]);
}

static void drack_get_ethtool_stats(struct net_device *ndev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct drack_dev *dd = netdev_priv(ndev);
	struct drack_class_counters c;
	struct drack_peer_stats *p;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(drack_stats); i++)
		*data++ = READ_ONCE(*(u64 *)((u8 *)dd + drack_stats[i].offset));
	for (i = 0; i < DRACK_NR_CLASSES; i++) {
		drack_alloc_counters(&dd->alloc, i, &c);
		*data++ = c.sections;
		*data++ = c.total;
		*data++ = c.free;
		*data++ = c.inflight;
	}
	for (i = 0; i < dd->nhosts; i++) {
		p = &dd->peer[i];
		*data++ = READ_ONCE(p->tx_packets);
		*data++ = READ_ONCE(p->tx_bytes);
		*data++ = READ_ONCE(p->rx_packets);
		*data++ = READ_ONCE(p->rx_bytes);
		*data++ = READ_ONCE(p->rx_bad);
	}
}

static void drack_get_drvinfo(struct net_device *ndev,
			      struct ethtool_drvinfo *info)
{
	struct drack_dev *dd = netdev_priv(ndev);

	strscpy(info->driver, "drack", sizeof(info->driver));
	strscpy(info->version, "1", sizeof(info->version));
	snprintf(info->bus_info, sizeof(info->bus_info), "%s:pool%u:host%u",
		 dd->pool->ops->name, dd->pool->id, dd->host);
}

static u32 drack_get_priv_flags(struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);

	return READ_ONCE(dd->stalled) ? DRACK_PRIV_STALL : 0;
}

static int drack_set_priv_flags(struct net_device *ndev, u32 flags)
{
	struct drack_dev *dd = netdev_priv(ndev);
	bool stall = flags & DRACK_PRIV_STALL;

	if (stall == READ_ONCE(dd->stalled))
		return 0;
	netdev_warn(ndev, "fault injection: host %u %s\n", dd->host,
		    stall ? "stalls like a hung kernel" : "resumes");
	if (stall)
		WRITE_ONCE(dd->stalled, true);
	else
		drack_dev_resume(dd);
	return 0;
}

const struct ethtool_ops drack_ethtool_ops = {
	.get_priv_flags = drack_get_priv_flags,
	.set_priv_flags = drack_set_priv_flags,
	.get_drvinfo = drack_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = drack_get_sset_count,
	.get_strings = drack_get_strings,
	.get_ethtool_stats = drack_get_ethtool_stats,
};
