// SPDX-License-Identifier: GPL-2.0-only
/*
 * The identity of the vNICs an exported NIC serves, on the owner's side:
 * the MAC the fabric manager gave each one (never the host's choice),
 * what a vNIC may put on the wire (its own source MAC, no link-level
 * control, no more than the NIC's MTU) and which multicast frames it
 * gets (the groups it subscribed to). Drops are counted per host and
 * published in its control line of the NIC (enum drack_vq_drop).
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#ifdef DRACK_HAVE_NET_GSO_H
#include <net/gso.h>		/* skb_gso_validate_mac_len() */
#endif
#include "device.h"

static void drack_xnic_drop(struct drack_xnic *x, u32 h, int why, int stat)
{
	x->drops[h][why]++;
	drack_counter_inc(&x->st, stat);
}

/*
 * The NIC's own MAC, or one that two vNICs have, would take someone
 * else's traffic, so neither is served (their frames count as spoofed,
 * none are delivered to them).
 */
static void drack_xnic_refuse_claims(struct drack_xnic *x)
{
	DECLARE_BITMAP(refused, DRACK_MAX_HOSTS * DRACK_MAX_NICS);
	u32 i, j, n = 0, nref;

	bitmap_zero(refused, DRACK_MAX_HOSTS * DRACK_MAX_NICS);
	for (i = 0; i < x->nmap; i++) {
		if (ether_addr_equal(x->map[i].mac, x->lower->dev_addr))
			__set_bit(i, refused);
		for (j = i + 1; j < x->nmap; j++)
			if (ether_addr_equal(x->map[i].mac, x->map[j].mac)) {
				__set_bit(i, refused);
				__set_bit(j, refused);
			}
	}
	nref = bitmap_weight(refused, x->nmap);
	/* Counted once per claim, not at every refresh. */
	if (nref > x->refused_claims)
		drack_counter_add(&x->st, DRACK_XS_MAC_REFUSED,
				  nref - x->refused_claims);
	x->refused_claims = nref;
	if (!nref)
		return;
	for (i = 0; i < x->nmap; i++)
		if (!test_bit(i, refused))
			x->map[n++] = x->map[i];
	x->nmap = n;
}

/*
 * The map of served vNICs from the hosts' control lines (NAPI, rx_lock
 * held): for each vNIC of an attached host, its assigned MAC and its
 * multicast filter, copied out of the pool once.
 */
void drack_xnic_refresh_map(struct drack_xnic *x)
{
	struct drack_pool *pool = x->dd->pool;
	struct drack_xnic_mac *m;
	struct drack_vq_ctl *ctl;
	u64 vn, hm;
	u32 h, v;

	x->nmap = 0;
	drack_for_each_in(x->serving, h, hm) {	/* only they have vnics */
		for (vn = x->hosts[h].vnics; vn; vn &= vn - 1) {
			v = __ffs64(vn);
			ctl = drack_vq_ctl(pool, v, h);
			m = &x->map[x->nmap++];
			drack_vnic_assigned_mac(pool, v, h, m->mac);
			m->host = h;
			m->vnic = v;
			m->mc_filter[0] = le64_to_cpu(READ_ONCE(ctl->mc_filter[0]));
			m->mc_filter[1] = le64_to_cpu(READ_ONCE(ctl->mc_filter[1]));
		}
	}
	drack_xnic_refuse_claims(x);
}

const struct drack_xnic_mac *drack_xnic_lookup(struct drack_xnic *x,
					       const u8 *mac)
{
	u32 i;

	for (i = 0; i < x->nmap; i++)
		if (ether_addr_equal(x->map[i].mac, mac))
			return &x->map[i];
	return NULL;
}

/*
 * The hosts a multicast frame from the wire goes to (rx_lock held):
 * broadcast to every served host, a group to those with a vNIC that
 * subscribed to it. The others count it as filtered.
 */
u64 drack_xnic_mc_hosts(struct drack_xnic *x, const u8 *dest)
{
	bool bcast = is_broadcast_ether_addr(dest);
	u32 bit = drack_mc_hash(dest), i;
	u64 all = 0, want = 0;

	for (i = 0; i < x->nmap; i++) {
		all |= BIT_ULL(x->map[i].host);
		if (bcast || (x->map[i].mc_filter[bit / 64] & BIT_ULL(bit % 64)))
			want |= BIT_ULL(x->map[i].host);
	}
	for (all &= ~want; all; all &= all - 1)
		drack_xnic_drop(x, __ffs64(all), DRACK_VQ_DROP_FILTERED,
				DRACK_XS_RX_FILTERED);
	return want;
}

/*
 * May this frame of host @h go to the wire (TX NAPI)? It is checked on
 * the skb's copy, not in the Buffer @h could still rewrite; the GSO state
 * is set, so a GSO frame is judged by its segments.
 */
bool drack_xnic_tx_allowed(struct drack_xnic *x, u32 h, struct sk_buff *skb)
{
	const struct ethhdr *eth = (struct ethhdr *)skb->data;
	const struct drack_xnic_mac *m = drack_xnic_lookup(x, eth->h_source);
	u32 max = READ_ONCE(x->lower->mtu) + ETH_HLEN;

	if (!m || m->host != h) {
		drack_xnic_drop(x, h, DRACK_VQ_DROP_SPOOFED,
				DRACK_XS_TX_SPOOFED);
		return false;
	}
	/* Link-level control (pause, STP, LLDP) is the owner's, not a tenant's. */
	if (!READ_ONCE(drack_nic_allow_link_local) &&
	    (is_link_local_ether_addr(eth->h_dest) ||
	     eth->h_proto == htons(ETH_P_PAUSE))) {
		drack_xnic_drop(x, h, DRACK_VQ_DROP_LINK_LOCAL,
				DRACK_XS_TX_LINK_LOCAL);
		return false;
	}
	if (eth_type_vlan(eth->h_proto))
		max += VLAN_HLEN;
	if (skb_is_gso(skb) ? !skb_gso_validate_mac_len(skb, max) :
			      skb->len > max) {
		drack_xnic_drop(x, h, DRACK_VQ_DROP_OVERSIZE,
				DRACK_XS_TX_OVERSIZE);
		return false;
	}
	return true;
}

/* Heartbeat: what we dropped of each served host, into its control line. */
void drack_xnic_publish_drops(struct drack_xnic *x)
{
	u64 m;
	u32 h, i;

	for (m = READ_ONCE(x->serving); m; m &= m - 1) {
		h = __ffs64(m);
		for (i = 0; i < DRACK_VQ_DROP_NR; i++)
			WRITE_ONCE(x->hosts[h].ctl->drops[i],
				   cpu_to_le32(READ_ONCE(x->drops[h][i])));
	}
}
