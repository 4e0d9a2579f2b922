// SPDX-License-Identifier: GPL-2.0-only
/*
 * ethtool: driver info and counters (global, per Buffer class, per peer).
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include "device.h"

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
	return drack_stats_ethtool_count() +
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
	data = drack_stats_ethtool_strings(data);
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
	u64 v[DRACK_S_NR], txp, txb, rxp, rxb, bad;
	u32 i;

	drack_stats_fold(&dd->stats, v);
	data = drack_stats_ethtool_values(v, data);
	for (i = 0; i < DRACK_NR_CLASSES; i++) {
		drack_alloc_counters(&dd->alloc, i, &c);
		*data++ = c.sections;
		*data++ = c.total;
		*data++ = c.free;
		*data++ = c.inflight;
	}
	for (i = 0; i < dd->nhosts; i++) {
		drack_peer_stats_read(&dd->peers[i].tx, &txp, &txb, &bad);
		drack_peer_stats_read(&dd->peers[i].rx, &rxp, &rxb, &bad);
		*data++ = txp;
		*data++ = txb;
		*data++ = rxp;
		*data++ = rxb;
		*data++ = bad;
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
