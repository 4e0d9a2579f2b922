// SPDX-License-Identifier: GPL-2.0-only
/*
 * ethtool: driver info, counters (global, per Buffer class, per peer),
 * rings and channels (read only), doorbell batching (ethtool -C
 * tx-frames), rx-copybreak, private flags.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include "device.h"

/*
 * Private flags, fault injection for tests. "stall": the host behaves
 * like a hung kernel (no heartbeat, no transmit, no receive) until it is
 * cleared, so the fabric manager's dead-host handling can be exercised
 * with every emulated host in one kernel. "hoard": it receives but never
 * hands a Buffer back (they stay lent until it leaves or is fenced), as a
 * hostile peer would, to exercise the per-peer Buffer cap. "deaf": it
 * keeps its heartbeat but consumes none of its ref_queues, so peers'
 * Buffers pile up there without the fabric manager declaring it dead,
 * and, as a NIC's owner, reads none of the hosts' TX rings.
 *
 * Not a fault: "doorbell-other-cpu" (off by default) runs the NAPI a peer
 * in this kernel rings on another CPU than the sender's (queues.c).
 */
#define DRACK_PRIV_STALL	BIT(0)
#define DRACK_PRIV_HOARD	BIT(1)
#define DRACK_PRIV_DEAF		BIT(2)
#define DRACK_PRIV_KICK_OTHER	BIT(3)

static const char drack_priv_flags[][ETH_GSTRING_LEN] = {
	"stall",
	"hoard",
	"deaf",
	"doorbell-other-cpu",
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
	       dd->nhosts * DRACK_NR_PEER_STATS + dd->max_channels * 4;
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
	/* Every queue the pool allows, in use or not: a fixed set. */
	for (i = 0; i < dd->max_channels; i++) {
		ethtool_sprintf(&data, "tx_queue_%u_packets", i);
		ethtool_sprintf(&data, "tx_queue_%u_bytes", i);
		ethtool_sprintf(&data, "rx_queue_%u_packets", i);
		ethtool_sprintf(&data, "rx_queue_%u_bytes", i);
	}
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
		drack_peer_tx_read(&dd->peers[i], &txp, &txb);
		drack_peer_stats_read(&dd->peers[i].rx, &rxp, &rxb, &bad);
		*data++ = txp;
		*data++ = txb;
		*data++ = rxp;
		*data++ = rxb;
		*data++ = bad;
	}
	for (i = 0; i < dd->max_channels; i++) {
		drack_peer_stats_read(&dd->txq[i].stats, &txp, &txb, &bad);
		drack_peer_stats_read(&dd->rxq[i].stats, &rxp, &rxb, &bad);
		*data++ = txp;
		*data++ = txb;
		*data++ = rxp;
		*data++ = rxb;
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

	return (READ_ONCE(dd->stalled) ? DRACK_PRIV_STALL : 0) |
	       (READ_ONCE(dd->hoarding) ? DRACK_PRIV_HOARD : 0) |
	       (READ_ONCE(dd->deaf) ? DRACK_PRIV_DEAF : 0) |
	       (READ_ONCE(dd->kick_other_cpu) ? DRACK_PRIV_KICK_OTHER : 0);
}

static int drack_set_priv_flags(struct net_device *ndev, u32 flags)
{
	struct drack_dev *dd = netdev_priv(ndev);
	bool stall = flags & DRACK_PRIV_STALL;
	bool hoard = flags & DRACK_PRIV_HOARD;
	bool deaf = flags & DRACK_PRIV_DEAF;

	WRITE_ONCE(dd->kick_other_cpu, flags & DRACK_PRIV_KICK_OTHER);
	if (hoard != READ_ONCE(dd->hoarding)) {
		netdev_warn(ndev, "fault injection: host %u %s\n", dd->host,
			    hoard ? "hands no Buffer back" : "hands Buffers back again");
		WRITE_ONCE(dd->hoarding, hoard);
	}
	if (deaf != READ_ONCE(dd->deaf)) {
		netdev_warn(ndev, "fault injection: host %u %s\n", dd->host,
			    deaf ? "consumes no reference" : "consumes again");
		WRITE_ONCE(dd->deaf, deaf);
		if (!deaf)	/* its queues and the NICs it owns */
			drack_dev_kick(dd);
	}
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

/* rx-copybreak: frames up to this long are copied, not held (rxref.c). */
static int drack_get_tunable(struct net_device *ndev,
			     const struct ethtool_tunable *tuna, void *data)
{
	struct drack_dev *dd = netdev_priv(ndev);

	if (tuna->id != ETHTOOL_RX_COPYBREAK)
		return -EOPNOTSUPP;
	*(u32 *)data = READ_ONCE(dd->rx_copybreak);
	return 0;
}

static int drack_set_tunable(struct net_device *ndev,
			     const struct ethtool_tunable *tuna,
			     const void *data)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u32 v = *(const u32 *)data;

	if (tuna->id != ETHTOOL_RX_COPYBREAK)
		return -EOPNOTSUPP;
	if (v > DRACK_MAX_FRAME)
		return -EINVAL;
	WRITE_ONCE(dd->rx_copybreak, v);
	return 0;
}

/*
 * Rings: a peer's ref_queue to us (rx) and ours at it (tx), sized by the
 * pool's format, not by this host: read only.
 */
static void drack_get_ringparam(struct net_device *ndev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u32 n = dd->pool ? dd->pool->geo.ref_ring_entries : 0;

	ring->rx_max_pending = n;
	ring->rx_pending = n;
	ring->tx_max_pending = n;
	ring->tx_pending = n;
}

/*
 * Coalescing means doorbells here: tx-frames caps how many references
 * wait for one doorbell decision within a burst (xmit_more). 1 decides
 * on every frame; the event index still suppresses doorbells a peer
 * did not ask for.
 */
static int drack_get_coalesce(struct net_device *ndev,
			      struct ethtool_coalesce *ec,
			      struct kernel_ethtool_coalesce *kec,
			      struct netlink_ext_ack *extack)
{
	struct drack_dev *dd = netdev_priv(ndev);

	ec->tx_max_coalesced_frames = READ_ONCE(dd->tx_max_frames);
	return 0;
}

static int drack_set_coalesce(struct net_device *ndev,
			      struct ethtool_coalesce *ec,
			      struct kernel_ethtool_coalesce *kec,
			      struct netlink_ext_ack *extack)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u32 n = ec->tx_max_coalesced_frames;
	u32 max = dd->pool ? dd->pool->geo.ref_ring_entries : 0;

	if (!n || n > max) {
		NL_SET_ERR_MSG_MOD(extack,
				   "tx-frames must be 1 to the ref_queue size (ethtool -g)");
		return -EINVAL;
	}
	WRITE_ONCE(dd->tx_max_frames, n);
	return 0;
}

/*
 * Queue pairs, each with its NAPI and its ref_queue at every peer: at
 * most the pool's ref_queues per pair of hosts (queues.c).
 */
static void drack_get_channels(struct net_device *ndev,
			       struct ethtool_channels *ch)
{
	struct drack_dev *dd = netdev_priv(ndev);

	ch->max_combined = dd->max_channels;
	ch->combined_count = dd->channels;
}

static int drack_set_channels(struct net_device *ndev,
			      struct ethtool_channels *ch)
{
	struct drack_dev *dd = netdev_priv(ndev);

	/* The core refused rx/tx/other counts above their maximum, 0. */
	return drack_queues_set_channels(dd, ch->combined_count, NULL);
}

/*
 * No link to negotiate: the speed is unknown unless an admin sets one for
 * upper devices that want it (a bond in 802.3ad mode, as on virtio_net);
 * references go both ways at once.
 */
static int drack_get_link_ksettings(struct net_device *ndev,
				    struct ethtool_link_ksettings *cmd)
{
	struct drack_dev *dd = netdev_priv(ndev);

	/* Both under RTNL, as the set. */
	cmd->base.speed = dd->speed;
	cmd->base.duplex = dd->duplex;
	cmd->base.port = PORT_OTHER;
	cmd->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static int drack_set_link_ksettings(struct net_device *ndev,
				    const struct ethtool_link_ksettings *cmd)
{
	struct drack_dev *dd = netdev_priv(ndev);

	return ethtool_virtdev_set_link_ksettings(ndev, cmd, &dd->speed,
						  &dd->duplex);
}

const struct ethtool_ops drack_ethtool_ops = {
	.get_link_ksettings = drack_get_link_ksettings,
	.set_link_ksettings = drack_set_link_ksettings,
	.supported_coalesce_params = ETHTOOL_COALESCE_TX_MAX_FRAMES,
	.get_coalesce = drack_get_coalesce,
	.set_coalesce = drack_set_coalesce,
	.get_ringparam = drack_get_ringparam,
	.get_channels = drack_get_channels,
	.set_channels = drack_set_channels,
	.get_ts_info = ethtool_op_get_ts_info,
	.get_tunable = drack_get_tunable,
	.set_tunable = drack_set_tunable,
	.get_priv_flags = drack_get_priv_flags,
	.set_priv_flags = drack_set_priv_flags,
	.get_drvinfo = drack_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = drack_get_sset_count,
	.get_strings = drack_get_strings,
	.get_ethtool_stats = drack_get_ethtool_stats,
};
