// SPDX-License-Identifier: GPL-2.0-only
/*
 * The drack netdev: rtnl_link_ops, open/stop, stats, and the doorbells
 * the pool rings through the client ops it was given.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/module.h>
#include <net/rtnetlink.h>
#include "device.h"

#define DRACK_FEATURES (NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA | \
			NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_TSO_ECN | \
			NETIF_F_RXCSUM)

int drack_dev_ifindex(struct drack_pool *pool, u32 host)
{
	struct drack_dev *dd;
	int ifindex = 0;

	if (host >= pool->geo.max_hosts)
		return 0;
	rcu_read_lock();
	dd = drack_dev_of(rcu_dereference(pool->local[host]));
	if (dd)
		ifindex = dd->ndev->ifindex;
	rcu_read_unlock();
	return ifindex;
}

/* From a doorbell interrupt or the polling timer: hard irq context. */
void drack_dev_kick_irq(struct drack_dev *dd)
{
	if (netif_running(dd->ndev))
		drack_queues_kick(dd, false);
	drack_nic_kick(dd);
	if (drack_dev_grants_pending(dd))
		schedule_work(&dd->grant_work);
}

/* Is anything waiting for us in the pool? For polling backends. */
bool drack_dev_pending(struct drack_dev *dd)
{
	/* Down, the liveness job hands back what peers queue to us. */
	return drack_dev_active(dd) &&
	       ((netif_running(dd->ndev) && drack_rx_pending(dd)) ||
		drack_dev_grants_pending(dd) || drack_nic_pending(dd));
}

/* @from_peer: a host in this kernel rang us from its CPU (queues.c). */
static void __drack_dev_kick(struct drack_dev *dd, bool from_peer)
{
	/*
	 * A netpoll sender (netconsole) transmits with interrupts off: raise
	 * NET_RX, never run softirqs from under it.
	 */
	if (irqs_disabled()) {
		drack_dev_kick_irq(dd);
		return;
	}
	local_bh_disable();
	if (netif_running(dd->ndev))
		drack_queues_kick(dd, from_peer);
	drack_nic_kick(dd);
	local_bh_enable();
	if (drack_dev_grants_pending(dd))
		schedule_work(&dd->grant_work);
}

void drack_dev_kick(struct drack_dev *dd)
{
	__drack_dev_kick(dd, false);
}

static struct drack_dev *drack_client_dev(struct drack_pool_client *c)
{
	return container_of(c, struct drack_dev, client);
}

static void drack_client_kick(struct drack_pool_client *c)
{
	__drack_dev_kick(drack_client_dev(c), true);
}

static void drack_client_kick_irq(struct drack_pool_client *c)
{
	drack_dev_kick_irq(drack_client_dev(c));
}

static bool drack_client_pending(struct drack_pool_client *c)
{
	return drack_dev_pending(drack_client_dev(c));
}

static void drack_client_peers_changed(struct drack_pool_client *c)
{
	drack_dev_update_carrier(drack_client_dev(c));
}

static void drack_client_nics_changed(struct drack_pool_client *c)
{
	drack_nic_changed(drack_client_dev(c));
}

static void drack_client_remove(struct drack_pool_client *c)
{
	unregister_netdevice(drack_client_dev(c)->ndev);
}

static const struct drack_pool_client_ops drack_client_ops = {
	.kick = drack_client_kick,
	.kick_irq = drack_client_kick_irq,
	.pending = drack_client_pending,
	.peers_changed = drack_client_peers_changed,
	.nics_changed = drack_client_nics_changed,
	.remove = drack_client_remove,
};

static int drack_open(struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);

	drack_queues_start(dd);
	drack_dev_set_flags(dd, DRACK_HOST_F_RUNNING, 0);
	netif_tx_start_all_queues(ndev);
	drack_pool_peers_changed(dd->pool);
	drack_dev_schedule_napi(dd);
	return 0;
}

static int drack_stop(struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);

	drack_dev_set_flags(dd, 0, DRACK_HOST_F_RUNNING);
	drack_pool_peers_changed(dd->pool);
	synchronize_net();	/* local senders have seen us stop */
	drack_queues_stop(dd);
	del_timer_sync(&dd->held_timer);
	netif_tx_stop_all_queues(ndev);

	if (!drack_dev_active(dd))
		return 0;
	spin_lock_bh(&dd->rx_lock);
	drack_rx_drop_all(dd);
	drack_rx_drain_returns(dd, drack_all_peers(dd));
	spin_unlock_bh(&dd->rx_lock);
	return 0;
}

static void drack_free_priv(struct drack_dev *dd)
{
	drack_rxref_free(dd);
	kfree(dd->peers);
	dd->peers = NULL;
	drack_stats_free(&dd->stats);
}

/*
 * Also run by register_netdevice() when it fails: may run twice. Runs
 * after RTNL is dropped: the waiting half of leaving is done here.
 */
static void drack_destructor(struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);

	drack_dev_leave_finish(dd);
	drack_free_priv(dd);
}

static void drack_uninit(struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);

	if (dd->joined && !dd->leaving)
		drack_dev_leave(dd);
	del_timer_sync(&dd->held_timer);
	drack_queues_del(dd);
	/* unregister detached any program before ndo_uninit */
	drack_xdp_free(dd);
}

static void drack_get_stats64(struct net_device *ndev,
			      struct rtnl_link_stats64 *s)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u64 v[DRACK_S_NR];

	drack_stats_fold(&dd->stats, v);
	s->tx_packets = v[DRACK_S_TX_PACKETS];
	s->tx_bytes = v[DRACK_S_TX_BYTES];
	s->tx_dropped = v[DRACK_S_TX_DROPPED] + v[DRACK_S_TX_NO_PEER] +
			 v[DRACK_S_TX_PEER_STALLED];
	s->rx_packets = v[DRACK_S_RX_PACKETS];
	s->rx_bytes = v[DRACK_S_RX_BYTES];
	s->rx_dropped = v[DRACK_S_RX_DROPPED] + v[DRACK_S_RX_ALLOC_FAIL];
	s->rx_errors = v[DRACK_S_RX_BAD_DESC] + v[DRACK_S_RX_BAD_RING];
}

static const struct net_device_ops drack_netdev_ops = {
	.ndo_uninit = drack_uninit,
	.ndo_open = drack_open,
	.ndo_stop = drack_stop,
	.ndo_start_xmit = drack_xmit,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_get_stats64 = drack_get_stats64,
	.ndo_change_mtu = drack_xdp_change_mtu,
	.ndo_bpf = drack_xdp_bpf,
	.ndo_xdp_xmit = drack_xdp_xmit,
};

static void drack_setup(struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);

	ether_setup(ndev);
	ndev->netdev_ops = &drack_netdev_ops;
	ndev->ethtool_ops = &drack_ethtool_ops;
	drack_queues_setup(ndev);
	drack_xdp_setup(ndev);
	ndev->sysfs_groups[0] = &drack_sysfs_group;
	ndev->needs_free_netdev = true;
	ndev->priv_destructor = drack_destructor;
	ndev->priv_flags &= ~IFF_TX_SKB_SHARING;
	ndev->features |= DRACK_FEATURES;
	ndev->hw_features |= DRACK_FEATURES;
	ndev->vlan_features |= DRACK_FEATURES;
	ndev->min_mtu = ETH_MIN_MTU;
	ndev->max_mtu = DRACK_MAX_FRAME - ETH_HLEN;

	memset(dd, 0, sizeof(*dd));
	dd->ndev = ndev;
	dd->tx_max_frames = DRACK_TX_FRAMES;
	/* Opt-in: Documentation/admin-guide.rst, doorbell-other-cpu. */
	dd->kick_other_cpu = false;
	dd->speed = SPEED_UNKNOWN;
	dd->duplex = DUPLEX_FULL;
	dd->carrier_reason = DRACK_CARRIER_WAITING;
	dd->client.ops = &drack_client_ops;
	spin_lock_init(&dd->rx_lock);
	timer_setup(&dd->held_timer, drack_rx_held_timer, 0);
	drack_host_init(dd);
	drack_sections_init(dd);
	drack_timers_init(dd);
	drack_nic_dev_init(dd);
}

static int drack_validate(struct nlattr *tb[], struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS]) {
		NL_SET_ERR_MSG_MOD(extack, "the MAC address follows from pool and host id");
		return -EINVAL;
	}
	return 0;
}

static int drack_newlink(struct net *src_net, struct net_device *ndev,
			 struct nlattr *tb[], struct nlattr *data[],
			 struct netlink_ext_ack *extack)
{
	struct drack_dev *dd = netdev_priv(ndev);
	u32 pool_id = 0, host = DRACK_ANY_HOST;
	struct drack_pool *pool;
	int err;

	if (data && data[IFLA_DRACK_POOL])
		pool_id = nla_get_u32(data[IFLA_DRACK_POOL]);
	if (data && data[IFLA_DRACK_HOST])
		host = nla_get_u32(data[IFLA_DRACK_HOST]);

	/*
	 * rtnetlink asked for CAP_NET_ADMIN over the target netns only; a
	 * pool is shared with the whole rack, so joining one takes it in
	 * the initial user namespace.
	 */
	if (!capable(CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG_MOD(extack, "joining a pool needs CAP_NET_ADMIN in the initial user namespace");
		return -EPERM;
	}
	err = drack_stats_init(&dd->stats);
	if (err)
		return err;
	mutex_lock(&drack_pools_lock);
	pool = drack_pool_find(pool_id);
	if (!pool) {
		NL_SET_ERR_MSG_ATTR(extack, data ? data[IFLA_DRACK_POOL] : NULL,
				    "no such pool");
		err = -ENODEV;
	} else {
		err = drack_dev_join(dd, pool, host, extack);
	}
	mutex_unlock(&drack_pools_lock);
	if (err) {
		drack_free_priv(dd);
		return err;
	}

	drack_queues_init(dd);
	netif_carrier_off(ndev);
	err = drack_xdp_init(dd);
	if (!err)
		err = register_netdevice(ndev);
	if (err) {
		drack_dev_unjoin(dd);
		drack_queues_del(dd);
		drack_xdp_free(dd);
		drack_free_priv(dd);
		return err;
	}
	drack_dev_publish(dd);
	drack_timers_start(dd);
	drack_dev_request_sections(dd);
	drack_pool_peers_changed(pool);
	drack_pool_notify_host(pool, dd->host, DRACK_HOST_UP);
	return 0;
}

static const struct nla_policy drack_policy[IFLA_DRACK_MAX + 1] = {
	[IFLA_DRACK_POOL] = NLA_POLICY_MAX(NLA_U32, U8_MAX),
	[IFLA_DRACK_HOST] = NLA_POLICY_MAX(NLA_U32, DRACK_MAX_HOSTS - 1),
	[IFLA_DRACK_STATE] = { .type = NLA_REJECT,
			       .reject_message = "the host state is read only" },
	[IFLA_DRACK_PEERS] = { .type = NLA_REJECT,
			       .reject_message = "the peer count is read only" },
	[IFLA_DRACK_SECTIONS] = { .type = NLA_REJECT,
				  .reject_message = "the Section count is read only" },
	[IFLA_DRACK_CARRIER_REASON] = { .type = NLA_REJECT,
					.reject_message = "the carrier reason is read only" },
};

static size_t drack_get_size(const struct net_device *ndev)
{
	/* POOL, HOST, STATE, PEERS, SECTIONS, CARRIER_REASON */
	return nla_total_size(sizeof(u32)) * 6;
}

/* Peers this host may send to now, as sysfs drack/peers lists them. */
static u32 drack_dev_reachable_peers(struct drack_dev *dd)
{
	u32 h, n = 0;

	for (h = 0; h < dd->nhosts; h++)
		n += h != dd->host && drack_host_reachable(dd->pool, h);
	return n;
}

static int drack_fill_info(struct sk_buff *skb, const struct net_device *ndev)
{
	struct drack_dev *dd = netdev_priv(ndev);
	struct drack_pool *pool = dd->pool;

	if (nla_put_u32(skb, IFLA_DRACK_POOL, pool->id) ||
	    nla_put_u32(skb, IFLA_DRACK_HOST, dd->host) ||
	    nla_put_u32(skb, IFLA_DRACK_STATE,
			drack_host_state(pool, dd->host)) ||
	    nla_put_u32(skb, IFLA_DRACK_PEERS, drack_dev_reachable_peers(dd)) ||
	    nla_put_u32(skb, IFLA_DRACK_SECTIONS,
			drack_pool_host_sections(pool, dd->host)) ||
	    nla_put_u32(skb, IFLA_DRACK_CARRIER_REASON,
			READ_ONCE(dd->carrier_reason)))
		return -EMSGSIZE;
	return 0;
}

/* Allocated for the most a pool can have; channels set how many run. */
static unsigned int drack_get_num_queues(void)
{
	return DRACK_MAX_QUEUES;
}

struct rtnl_link_ops drack_link_ops __read_mostly = {
	.kind = "drack",
	.priv_size = sizeof(struct drack_dev),
	.setup = drack_setup,
	.validate = drack_validate,
	.newlink = drack_newlink,
	.get_num_tx_queues = drack_get_num_queues,
	.get_num_rx_queues = drack_get_num_queues,
	.maxtype = IFLA_DRACK_MAX,
	.policy = drack_policy,
	.get_size = drack_get_size,
	.fill_info = drack_fill_info,
};
