// SPDX-License-Identifier: GPL-2.0-only
/*
 * vNIC netdevs: "<rackdev>v<N>", one per pooled NIC N in every host the
 * fabric manager assigned. A vNIC keeps its MAC (the one the fabric
 * manager gave it, not a host's choice) and addresses for life; which
 * virt_queue pair carries it (its own NIC's, or another's after a
 * failover) is the reconcile work's choice (nic.c). Its multicast groups
 * go into the pool for the owners to filter with.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <net/rtnetlink.h>
#include "device.h"

#define DRACK_VNIC_FEATURES (NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA | \
			     NETIF_F_FRAGLIST | NETIF_F_GSO_SOFTWARE)

static netdev_tx_t drack_vnic_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct drack_vnic *vn = netdev_priv(ndev);
	struct drack_nic_port *vp = rcu_dereference_bh(vn->vp);
	u32 len = skb->len;
	int err;

	if (unlikely(!vp || len < ETH_HLEN || len > DRACK_MAX_FRAME ||
		     !drack_dev_active(vn->dd)))
		goto drop;
	err = drack_nic_port_xmit(vp, skb);
	if (err == -ENOSPC || err == -ENOBUFS) {
		/* What it waits for: room, or a Buffer of this class. */
		WRITE_ONCE(vn->buf_wait,
			   err == -ENOBUFS ? BIT(drack_buf_class(len)) : 0);
		netif_stop_queue(ndev);
		/*
		 * The vport's NAPI wakes us; it may have run already. Rerouted
		 * meanwhile, the old port's NAPI will not: drack_vnic_route()
		 * may have looked before we stopped (pairs with its smp_mb()).
		 * Out of Buffers, the poll wakes us only once some are back.
		 */
		napi_schedule(&vp->napi);
		smp_mb();	/* stopped before the look at vn->vp */
		if (unlikely(rcu_access_pointer(vn->vp) != vp))
			netif_wake_queue(ndev);
		return NETDEV_TX_BUSY;
	}
	if (err)
		goto drop;
	u64_stats_update_begin(&vn->syncp);
	vn->st.tx_packets++;
	vn->st.tx_bytes += len;
	u64_stats_update_end(&vn->syncp);
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
drop:
	u64_stats_update_begin(&vn->syncp);
	vn->st.tx_dropped++;
	u64_stats_update_end(&vn->syncp);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

void drack_vnic_rx(struct drack_vnic *vn, struct napi_struct *napi,
		   struct sk_buff *skb)
{
	u32 len = skb->len;

	skb->protocol = eth_type_trans(skb, vn->ndev);
	u64_stats_update_begin(&vn->syncp);
	vn->st.rx_packets++;
	vn->st.rx_bytes += len;
	u64_stats_update_end(&vn->syncp);
	napi_gro_receive(napi, skb);
}

/*
 * Heartbeat: what this vNIC sent so far, whichever NIC carried it, into
 * the TX ring header of its own (NIC, host) block: the fabric manager's
 * demand figure for it. Ours alone to write; telemetry, not trusted.
 */
void drack_vnic_publish_demand(struct drack_vnic *vn)
{
	struct drack_pool *pool = vn->dd->pool;
	struct drack_ring_hdr *hdr;
	unsigned int start;
	u64 bytes;

	do {
		start = u64_stats_fetch_begin(&vn->syncp);
		bytes = vn->st.tx_bytes;
	} while (u64_stats_fetch_retry(&vn->syncp, start));
	hdr = drack_pool_ptr(pool, drack_vq_tx_off(&pool->geo, vn->id,
						   vn->dd->host));
	WRITE_ONCE(hdr->bytes, cpu_to_le64(bytes));
}

static void drack_vnic_get_stats64(struct net_device *ndev,
				   struct rtnl_link_stats64 *s)
{
	struct drack_vnic *vn = netdev_priv(ndev);
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&vn->syncp);
		s->tx_packets = vn->st.tx_packets;
		s->tx_bytes = vn->st.tx_bytes;
		s->tx_dropped = vn->st.tx_dropped;
		s->rx_packets = vn->st.rx_packets;
		s->rx_bytes = vn->st.rx_bytes;
	} while (u64_stats_fetch_retry(&vn->syncp, start));
}

/*
 * The owners serve the MAC the fabric manager assigned and nothing else:
 * another one would only get the vNIC's frames dropped, so it is refused
 * (the notifier gives the reason, drack_vnic_pre_changeaddr()).
 */
static bool drack_vnic_mac_is_assigned(struct drack_vnic *vn, const u8 *addr)
{
	u8 mac[ETH_ALEN];

	drack_vnic_assigned_mac(vn->dd->pool, vn->id, vn->dd->host, mac);
	return ether_addr_equal(mac, addr);
}

int drack_vnic_pre_changeaddr(struct net_device *ndev, const u8 *addr,
			      struct netlink_ext_ack *extack)
{
	if (drack_vnic_mac_is_assigned(netdev_priv(ndev), addr))
		return 0;
	NL_SET_ERR_MSG(extack, "a vNIC has the MAC address the fabric manager assigned to it");
	return -EPERM;
}

static int drack_vnic_set_mac(struct net_device *ndev, void *p)
{
	struct sockaddr *sa = p;

	if (!drack_vnic_mac_is_assigned(netdev_priv(ndev), sa->sa_data))
		return -EPERM;
	return eth_mac_addr(ndev, p);
}

/* The fabric manager assigned another MAC: take it (RTNL). */
void drack_vnic_sync_mac(struct drack_vnic *vn)
{
	u8 mac[ETH_ALEN];

	ASSERT_RTNL();
	drack_vnic_assigned_mac(vn->dd->pool, vn->id, vn->dd->host, mac);
	if (ether_addr_equal(mac, vn->ndev->dev_addr))
		return;
	netdev_info(vn->ndev, "the fabric manager assigned MAC %pM\n", mac);
	eth_hw_addr_set(vn->ndev, mac);
	call_netdevice_notifiers(NETDEV_CHANGEADDR, vn->ndev);
}

/*
 * Publish the multicast groups for the owners (addr lock held): all ones
 * for allmulti. Promiscuous means allmulti too; never the unicast of
 * other vNICs, which the owner delivers to them alone.
 */
static void drack_vnic_set_rx_mode(struct net_device *ndev)
{
	struct drack_vnic *vn = netdev_priv(ndev);
	struct drack_dev *dd = vn->dd;
	struct netdev_hw_addr *ha;
	struct drack_nic_port *vp;
	struct drack_vq_ctl *ctl;
	u64 f[2] = { 0, 0 };
	u32 bit;

	if (!drack_dev_active(dd))
		return;
	if (ndev->flags & (IFF_ALLMULTI | IFF_PROMISC)) {
		f[0] = f[1] = U64_MAX;
	} else {
		netdev_for_each_mc_addr(ha, ndev) {
			bit = drack_mc_hash(ha->addr);
			f[bit / 64] |= BIT_ULL(bit % 64);
		}
	}
	ctl = drack_vq_ctl(dd->pool, vn->id, dd->host);
	WRITE_ONCE(ctl->mc_filter[0], cpu_to_le64(f[0]));
	WRITE_ONCE(ctl->mc_filter[1], cpu_to_le64(f[1]));
	rcu_read_lock();
	vp = rcu_dereference(vn->vp);
	if (vp)
		drack_pool_kick(dd->pool, vp->owner);	/* refresh its map */
	rcu_read_unlock();
}

void drack_vnic_drops(struct drack_vnic *vn, u32 *drops)
{
	struct drack_dev *dd = vn->dd;
	int via = READ_ONCE(vn->via);
	struct drack_vq_ctl *ctl;
	u32 i;

	ctl = drack_vq_ctl(dd->pool, via >= 0 ? via : vn->id, dd->host);
	for (i = 0; i < DRACK_VQ_DROP_NR; i++)
		drops[i] = le32_to_cpu(READ_ONCE(ctl->drops[i]));
}

static int drack_vnic_open(struct net_device *ndev)
{
	netif_start_queue(ndev);
	return 0;
}

static int drack_vnic_stop(struct net_device *ndev)
{
	netif_stop_queue(ndev);
	return 0;
}

static const struct net_device_ops drack_vnic_ops = {
	.ndo_open = drack_vnic_open,
	.ndo_stop = drack_vnic_stop,
	.ndo_start_xmit = drack_vnic_xmit,
	.ndo_get_stats64 = drack_vnic_get_stats64,
	.ndo_set_mac_address = drack_vnic_set_mac,
	.ndo_set_rx_mode = drack_vnic_set_rx_mode,
	.ndo_validate_addr = eth_validate_addr,
};

bool drack_is_vnic(const struct net_device *ndev)
{
	return ndev->netdev_ops == &drack_vnic_ops;
}

static void drack_vnic_setup(struct net_device *ndev)
{
	ether_setup(ndev);
	ndev->netdev_ops = &drack_vnic_ops;
	ndev->ethtool_ops = &drack_vnic_ethtool_ops;
	ndev->needs_free_netdev = true;
	ndev->priv_flags &= ~IFF_TX_SKB_SHARING;
	ndev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	ndev->features |= DRACK_VNIC_FEATURES;
	ndev->hw_features |= DRACK_VNIC_FEATURES;
	ndev->vlan_features |= DRACK_VNIC_FEATURES;
	/* Frames leave on a physical NIC: its usual MTU, not rack0's. */
	ndev->min_mtu = ETH_MIN_MTU;
	ndev->max_mtu = ETH_DATA_LEN;
}

struct drack_vnic *drack_vnic_create(struct drack_dev *dd, u32 id)
{
	char name[IFNAMSIZ];
	struct net_device *ndev;
	struct drack_vnic *vn;
	u8 mac[ETH_ALEN];
	int err;

	ASSERT_RTNL();
	if (snprintf(name, sizeof(name), "%sv%u", dd->ndev->name, id) >=
	    IFNAMSIZ)
		snprintf(name, sizeof(name), "drackv%%d");
	ndev = alloc_netdev(sizeof(*vn), name, NET_NAME_ENUM,
			    drack_vnic_setup);
	if (!ndev)
		return NULL;
	vn = netdev_priv(ndev);
	vn->ndev = ndev;
	vn->dd = dd;
	vn->id = id;
	vn->via = -1;
	u64_stats_init(&vn->syncp);
	dev_net_set(ndev, dev_net(dd->ndev));
	drack_vnic_assigned_mac(dd->pool, id, dd->host, mac);
	eth_hw_addr_set(ndev, mac);
	/* No group joined until it is up: none of a former vNIC's either. */
	memset(drack_vq_ctl(dd->pool, id, dd->host)->mc_filter, 0,
	       sizeof_field(struct drack_vq_ctl, mc_filter));
	netif_carrier_off(ndev);
	err = register_netdevice(ndev);
	if (err) {
		netdev_warn(dd->ndev, "cannot create the vNIC of NIC %u: %d\n",
			    id, err);
		free_netdev(ndev);
		return NULL;
	}
	rcu_assign_pointer(dd->nic.vnic[id], vn);
	netdev_info(ndev, "vNIC of NIC %u of pool %u, MAC %pM\n", id,
		    dd->pool->id, mac);
	return vn;
}

/* Queue @vn for unregistration on @kill (RTNL); it is unrouted first. */
void drack_vnic_destroy(struct drack_vnic *vn, struct list_head *kill)
{
	ASSERT_RTNL();
	drack_vnic_route(vn, NULL);
	RCU_INIT_POINTER(vn->dd->nic.vnic[vn->id], NULL);
	unregister_netdevice_queue(vn->ndev, kill);
}

/*
 * Carry @vn through @vp (NULL: nowhere, carrier off). The old vport stops
 * accepting its MAC and the new one starts; a gratuitous ARP and an
 * unsolicited NA tell the switch where the MAC is now.
 */
void drack_vnic_route(struct drack_vnic *vn, struct drack_nic_port *vp)
{
	struct drack_nic_port *old = rtnl_dereference(vn->vp);
	int via = vp ? (int)vp->nic : -1;

	ASSERT_RTNL();
	if (old == vp)
		return;
	if (old && drack_dev_active(vn->dd))
		drack_nic_port_set_vnics(old, drack_nic_port_vnics(old) &
					   ~BIT_ULL(vn->id));
	rcu_assign_pointer(vn->vp, vp);
	if (!vp) {
		netif_carrier_off(vn->ndev);
		vn->via = -1;
		return;
	}
	drack_nic_port_set_vnics(vp, drack_nic_port_vnics(vp) | BIT_ULL(vn->id));
	if (vn->via >= 0 || via != (int)vn->id) {
		vn->st.failovers++;
		netdev_info(vn->ndev, "now through NIC %d (was %d)\n", via,
			    vn->via);
	}
	vn->via = via;
	if (!netif_carrier_ok(vn->ndev))
		netif_carrier_on(vn->ndev);
	else
		__netdev_notify_peers(vn->ndev);
	smp_mb();	/* vn->vp before the look: pairs with drack_vnic_xmit() */
	if (netif_queue_stopped(vn->ndev))
		netif_wake_queue(vn->ndev);
}

static const char drack_vnic_stat_names[][ETH_GSTRING_LEN] = {
	"via_nic", "failovers", "tx_dropped",
	"port_tx_packets", "port_tx_full", "port_tx_no_buf", "port_tx_bad_ring",
	"port_rx_packets", "port_rx_bad", "port_rx_no_vnic", "port_rx_filtered",
	/* What the owner carrying the vNIC dropped (enum drack_vq_drop) */
	"drop_spoofed", "drop_oversize", "drop_link_local", "drop_filtered",
};

static void drack_vnic_get_drvinfo(struct net_device *ndev,
				   struct ethtool_drvinfo *info)
{
	strscpy(info->driver, "drack-vnic", sizeof(info->driver));
	strscpy(info->bus_info, "pool", sizeof(info->bus_info));
}

static int drack_vnic_get_sset_count(struct net_device *ndev, int sset)
{
	return sset == ETH_SS_STATS ? ARRAY_SIZE(drack_vnic_stat_names) :
				      -EOPNOTSUPP;
}

static void drack_vnic_get_strings(struct net_device *ndev, u32 sset, u8 *buf)
{
	if (sset == ETH_SS_STATS)
		memcpy(buf, drack_vnic_stat_names,
		       sizeof(drack_vnic_stat_names));
}

/* The port counters are those of the vport carrying the vNIC now. */
static void drack_vnic_get_stats(struct net_device *ndev,
				 struct ethtool_stats *stats, u64 *data)
{
	struct drack_vnic *vn = netdev_priv(ndev);
	struct drack_nic_port *vp;
	u64 v[DRACK_PS_NR];
	u32 drops[DRACK_VQ_DROP_NR], i;

	memset(data, 0, sizeof(u64) * ARRAY_SIZE(drack_vnic_stat_names));
	data[0] = (u64)(s64)READ_ONCE(vn->via);
	data[1] = READ_ONCE(vn->st.failovers);
	data[2] = READ_ONCE(vn->st.tx_dropped);
	rcu_read_lock();
	vp = rcu_dereference(vn->vp);
	if (vp) {
		drack_counters_fold(&vp->st, v);
		data[3] = v[DRACK_PS_TX_PACKETS];
		data[4] = v[DRACK_PS_TX_FULL];
		data[5] = v[DRACK_PS_TX_NO_BUF];
		data[6] = v[DRACK_PS_TX_BAD_RING];
		data[7] = v[DRACK_PS_RX_PACKETS];
		data[8] = v[DRACK_PS_RX_BAD];
		data[9] = v[DRACK_PS_RX_NO_VNIC];
		data[10] = v[DRACK_PS_RX_FILTERED];
	}
	rcu_read_unlock();
	drack_vnic_drops(vn, drops);
	BUILD_BUG_ON(ARRAY_SIZE(drack_vnic_stat_names) != 11 + DRACK_VQ_DROP_NR);
	for (i = 0; i < DRACK_VQ_DROP_NR; i++)
		data[11 + i] = drops[i];
}

const struct ethtool_ops drack_vnic_ethtool_ops = {
	.get_drvinfo = drack_vnic_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = drack_vnic_get_sset_count,
	.get_strings = drack_vnic_get_strings,
	.get_ethtool_stats = drack_vnic_get_stats,
};
