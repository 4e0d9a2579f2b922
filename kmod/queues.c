// SPDX-License-Identifier: GPL-2.0-only
/*
 * rack0's one queue pair as the netdev netlink family shows it (6.9 and
 * later): which NAPI serves it (queue-get, napi-get) and its statistics
 * (qstats-get), read from the same counters as ip -s link so the two
 * always agree.
 */
#include "device.h"

#ifdef DRACK_HAVE_QSTATS	/* Kbuild: the headers have netdev_stat_ops */
#include <net/netdev_queues.h>

/* Under RTNL (open and stop): the queues point at our NAPI while it runs. */
void drack_queues_set_napi(struct drack_dev *dd, bool on)
{
	struct napi_struct *napi = on ? &dd->napi : NULL;

	netif_queue_set_napi(dd->ndev, 0, NETDEV_QUEUE_TYPE_RX, napi);
	netif_queue_set_napi(dd->ndev, 0, NETDEV_QUEUE_TYPE_TX, napi);
}

static void drack_qstats_rx(struct net_device *ndev, int idx,
			    struct netdev_queue_stats_rx *rx)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u64 v[DRACK_S_NR];

	drack_stats_fold(&dd->stats, v);
	rx->packets = v[DRACK_S_RX_PACKETS];
	rx->bytes = v[DRACK_S_RX_BYTES];
	rx->alloc_fail = v[DRACK_S_RX_ALLOC_FAIL];
}

static void drack_qstats_tx(struct net_device *ndev, int idx,
			    struct netdev_queue_stats_tx *tx)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u64 v[DRACK_S_NR];

	drack_stats_fold(&dd->stats, v);
	tx->packets = v[DRACK_S_TX_PACKETS];
	tx->bytes = v[DRACK_S_TX_BYTES];
	tx->stop = v[DRACK_S_TX_STOPS];
	tx->wake = v[DRACK_S_TX_WAKES];
}

/* Everything is counted on the one live queue: nothing outside it. */
static void drack_qstats_base(struct net_device *ndev,
			      struct netdev_queue_stats_rx *rx,
			      struct netdev_queue_stats_tx *tx)
{
	rx->packets = 0;
	rx->bytes = 0;
	rx->alloc_fail = 0;
	tx->packets = 0;
	tx->bytes = 0;
	tx->stop = 0;
	tx->wake = 0;
}

static const struct netdev_stat_ops drack_stat_ops = {
	.get_queue_stats_rx = drack_qstats_rx,
	.get_queue_stats_tx = drack_qstats_tx,
	.get_base_stats = drack_qstats_base,
};

void drack_queues_setup(struct net_device *ndev)
{
	ndev->stat_ops = &drack_stat_ops;
}

#else	/* no queue objects in the netdev family before 6.9 */

void drack_queues_set_napi(struct drack_dev *dd, bool on)
{
}

void drack_queues_setup(struct net_device *ndev)
{
}

#endif
