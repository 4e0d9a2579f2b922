// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queue pairs (ethtool -l/-L): TX queue q posts on ref_queue q of each
 * peer; RX queue i is a NAPI polling the peers' ref_queues q with
 * q % channels == i. At most as many pairs as the pool has ref_queues
 * per pair of hosts, so two TX queues never share a ring. Also the
 * netdev netlink family's view of them (6.9 and later): which NAPI
 * serves a queue (queue-get, napi-get) and its statistics (qstats-get),
 * read from the same counters as ip -s link so the two always agree.
 */
#include "device.h"

static void drack_queue_set_napi(struct drack_dev *dd, u32 i, bool on);
static void drack_queue_kick_ipi(void *arg);

/* Newlink, the pool known: every NAPI added, channels as online CPUs. */
void drack_queues_init(struct drack_dev *dd)
{
	struct net_device *ndev = dd->ndev;
	u32 i;

	dd->max_channels = min_t(u32, dd->pool->geo.ref_queues,
				 DRACK_MAX_QUEUES);
	dd->channels = clamp_t(u32, num_online_cpus(), 1, dd->max_channels);
	/* ethtool -C tx-frames is at most a ring (32 entries at 8 queues). */
	dd->tx_max_frames = min(dd->tx_max_frames,
				dd->pool->geo.ref_ring_entries);
	for (i = 0; i < DRACK_MAX_QUEUES; i++) {
		struct drack_rxq *rq = &dd->rxq[i];

		rq->dd = dd;
		rq->index = i;
		INIT_CSD(&rq->kick_csd, drack_queue_kick_ipi, rq);
		__skb_queue_head_init(&rq->deliver);
		u64_stats_init(&rq->stats.syncp);
		u64_stats_init(&dd->txq[i].stats.syncp);
		dd->txq[i].blocked_peer = DRACK_NO_BLOCK;
		dd->txq[i].blocked_class = DRACK_NO_BLOCK;
		if (i < dd->max_channels)
			netif_napi_add(ndev, &rq->napi, drack_napi_poll);
	}
	/* Not registered yet: these only set the counts. */
	netif_set_real_num_tx_queues(ndev, dd->channels);
	netif_set_real_num_rx_queues(ndev, dd->channels);
}

void drack_queues_del(struct drack_dev *dd)
{
	u32 i;

	for (i = 0; i < dd->max_channels; i++)
		netif_napi_del(&dd->rxq[i].napi);
}

static void drack_queue_start(struct drack_dev *dd, u32 i)
{
	/* Spread as a NIC's queue interrupts are; hotplug: see the kick. */
	WRITE_ONCE(dd->rxq[i].home_cpu, cpumask_local_spread(i, NUMA_NO_NODE));
	napi_enable(&dd->rxq[i].napi);
	drack_queue_set_napi(dd, i, true);
}

static void drack_queue_stop(struct drack_dev *dd, u32 i)
{
	drack_queue_set_napi(dd, i, false);
	napi_disable(&dd->rxq[i].napi);
	/* A poll may have built skbs it had no time to pass up: none left. */
	__skb_queue_purge(&dd->rxq[i].deliver);
}

void drack_queues_start(struct drack_dev *dd)
{
	u32 i;

	for (i = 0; i < dd->channels; i++)
		drack_queue_start(dd, i);
}

void drack_queues_stop(struct drack_dev *dd)
{
	u32 i;

	for (i = 0; i < dd->channels; i++)
		drack_queue_stop(dd, i);
}

/* Has a peer posted on a ring RX queue @i polls? */
static bool drack_queue_pending(struct drack_dev *dd, u32 i, u32 channels)
{
	u32 peer, q;
	u64 m;

	drack_for_each_peer(dd, peer, m)
		for (q = i; q < dd->peers[peer].nq; q += channels)
			if (drack_ring_pending(&dd->peers[peer].ref_in[q]))
				return true;
	return false;
}

static void drack_queue_kick_ipi(void *arg)
{
	struct drack_rxq *rq = arg;

	__napi_schedule_irqoff(&rq->napi);	/* scheduled by the kicker */
}

/*
 * A peer in this kernel rings us from the CPU it sends on (bh off). A
 * separate host would poll on its own CPUs: run our NAPI on the queue's
 * home CPU, or on the next one when the sender is there, so that the
 * sender's CPU does not also carry our receive work (Documentation/
 * performance.rst, "Doorbells on another CPU"). An interrupt or a poller
 * stays where it is, as does a NAPI in a kernel thread.
 */
static void drack_queue_kick_peer(struct drack_dev *dd, struct drack_rxq *rq)
{
	int here = smp_processor_id(), cpu = READ_ONCE(rq->home_cpu);

	/* RT warns of softirqs raised from an idle CPU's IPI flush. */
	if (IS_ENABLED(CONFIG_PREEMPT_RT) || !READ_ONCE(dd->kick_other_cpu) ||
	    test_bit(NAPI_STATE_THREADED, &rq->napi.state))
		goto local;
	if (cpu == here) {
		cpu = cpumask_next(here, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		if (cpu == here)
			goto local;
	}
	/* Owning the schedule keeps kick_csd free until the poll ends. */
	if (!napi_schedule_prep(&rq->napi))
		return;
	if (!smp_call_function_single_async(cpu, &rq->kick_csd)) {
		drack_stat_inc(&dd->stats, DRACK_S_RX_KICKS_OTHER_CPU);
		return;
	}
	/* Gone offline: poll here, and find a home among the CPUs left. */
	__napi_schedule(&rq->napi);
	WRITE_ONCE(rq->home_cpu, cpumask_local_spread(rq->index, NUMA_NO_NODE));
	return;
local:
	napi_schedule(&rq->napi);
}

/* A doorbell: poll each queue with something to do. */
void drack_queues_kick(struct drack_dev *dd, bool from_peer)
{
	u32 channels = READ_ONCE(dd->channels) ?: 1, i;

	for (i = 0; i < channels; i++) {
		if (!drack_queue_pending(dd, i, channels) &&
		    (i || !drack_rx_returns_due(dd)))
			continue;
		if (from_peer)
			drack_queue_kick_peer(dd, &dd->rxq[i]);
		else
			napi_schedule(&dd->rxq[i].napi);
	}
}

/*
 * ethtool -L, RTNL held. Rings do not move: a ring whose queue goes away
 * is polled by another from the next poll on, and TX queues past the new
 * count are never picked again. NAPIs are added or stopped at the edge.
 */
int drack_queues_set_channels(struct drack_dev *dd, u32 n,
			      struct netlink_ext_ack *extack)
{
	struct net_device *ndev = dd->ndev;
	bool running = netif_running(ndev);
	u32 old = dd->channels, i;
	int err;

	if (!n || n > dd->max_channels) {
		NL_SET_ERR_MSG_MOD(extack,
				   "combined must be 1 to the pool's ref_queues per pair of hosts (ethtool -l: maximum)");
		return -EINVAL;
	}
	if (n == old)
		return 0;
	err = netif_set_real_num_tx_queues(ndev, n);
	if (!err)
		err = netif_set_real_num_rx_queues(ndev, n);
	if (err) {
		netif_set_real_num_tx_queues(ndev, old);
		NL_SET_ERR_MSG_MOD(extack, "the stack refused the queue count");
		return err;
	}
	if (running)
		for (i = old; i < n; i++)
			drack_queue_start(dd, i);
	WRITE_ONCE(dd->channels, n);
	/*
	 * TX queues past the count are never picked again: forget what
	 * stopped them, or a later grow would find an old block and call
	 * its peer stalled.
	 */
	for (i = n; i < old; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(ndev, i);

		__netif_tx_lock_bh(txq);
		dd->txq[i].blocked_peer = DRACK_NO_BLOCK;
		dd->txq[i].blocked_class = DRACK_NO_BLOCK;
		if (running)
			netif_tx_wake_queue(txq);
		__netif_tx_unlock_bh(txq);
	}
	if (running) {
		for (i = n; i < old; i++)
			drack_queue_stop(dd, i);
		/* Their rings now belong to the queues left: look at them. */
		local_bh_disable();
		for (i = 0; i < n; i++)
			napi_schedule(&dd->rxq[i].napi);
		local_bh_enable();
	}
	return 0;
}

#ifdef DRACK_HAVE_QSTATS	/* Kbuild: the headers have netdev_stat_ops */
#include <net/netdev_queues.h>

/* Under RTNL: a queue points at its NAPI while it runs. */
static void drack_queue_set_napi(struct drack_dev *dd, u32 i, bool on)
{
	struct napi_struct *napi = on ? &dd->rxq[i].napi : NULL;

	netif_queue_set_napi(dd->ndev, i, NETDEV_QUEUE_TYPE_RX, napi);
	netif_queue_set_napi(dd->ndev, i, NETDEV_QUEUE_TYPE_TX, napi);
}

static void drack_qstats_rx(struct net_device *ndev, int idx,
			    struct netdev_queue_stats_rx *rx)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u64 bad;

	drack_peer_stats_read(&dd->rxq[idx].stats, &rx->packets, &rx->bytes,
			      &bad);
}

static void drack_qstats_tx(struct net_device *ndev, int idx,
			    struct netdev_queue_stats_tx *tx)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u64 bad;

	drack_peer_stats_read(&dd->txq[idx].stats, &tx->packets, &tx->bytes,
			      &bad);
}

/*
 * What no live queue shows: the packets and bytes of queues since taken
 * away by ethtool -L, and the stop, wake and allocation counters, kept
 * per device. (What rtnl does not count, XDP_TX or each broadcast copy,
 * no queue counts either.)
 */
static void drack_qstats_base(struct net_device *ndev,
			      struct netdev_queue_stats_rx *rx,
			      struct netdev_queue_stats_tx *tx)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u64 v[DRACK_S_NR], p, b, bad;
	u32 i;

	drack_stats_fold(&dd->stats, v);
	rx->packets = v[DRACK_S_RX_PACKETS];
	rx->bytes = v[DRACK_S_RX_BYTES];
	tx->packets = v[DRACK_S_TX_PACKETS];
	tx->bytes = v[DRACK_S_TX_BYTES];
	for (i = 0; i < ndev->real_num_rx_queues; i++) {
		drack_peer_stats_read(&dd->rxq[i].stats, &p, &b, &bad);
		rx->packets -= min(p, rx->packets);
		rx->bytes -= min(b, rx->bytes);
	}
	for (i = 0; i < ndev->real_num_tx_queues; i++) {
		drack_peer_stats_read(&dd->txq[i].stats, &p, &b, &bad);
		tx->packets -= min(p, tx->packets);
		tx->bytes -= min(b, tx->bytes);
	}
	rx->alloc_fail = v[DRACK_S_RX_ALLOC_FAIL];
	tx->stop = v[DRACK_S_TX_STOPS];
	tx->wake = v[DRACK_S_TX_WAKES];
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

static void drack_queue_set_napi(struct drack_dev *dd, u32 i, bool on)
{
}

void drack_queues_setup(struct net_device *ndev)
{
}

#endif
