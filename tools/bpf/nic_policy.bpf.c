// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NIC pool's spreading policies (drackctl nic policy ecmp|spray): tc
 * clsact egress programs on the vNICs of a network namespace. A packet an
 * application sends through one vNIC leaves through the vNIC the policy
 * picks from map drack_vnics:
 *
 *	drack_ecmp	hash of the flow (addresses and ports) % n
 *	drack_spray	per packet, round robin (a counter per CPU)
 *
 * The picked vNIC is the one the packet is on: it passes. Another one:
 * its Ethernet source becomes that vNIC's MAC (the NIC's owner drops
 * frames with the source of a vNIC it does not serve) and the packet is
 * redirected to that vNIC's egress, where the program runs again. That
 * run must let it pass: bpf_redirect() hands the packet to the target's
 * dev_queue_xmit() synchronously, on this CPU, before anything else can
 * be sent here, so the CPU notes the target's ifindex ("pending") and the
 * target's run that finds its own ifindex there passes the packet and
 * clears the note. skb->mark stays the application's.
 *
 * Only IPv4 and IPv6 unicast is spread; ARP, neighbour discovery,
 * broadcast and multicast pass unchanged.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in6.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include "nic_policy.h"

/* the IPv6 next header and ICMPv6 type, behind the Ethernet header */
#define IP6_NEXTHDR_OFF		(ETH_HLEN + 6)
#define ICMP6_TYPE_OFF		(ETH_HLEN + 40)
/* router solicitation .. redirect (RFC 4861) */
#define ND_FIRST		133
#define ND_LAST			137

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct drack_policy_conf);
} drack_vnics SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct drack_policy_cpu);
} drack_cpu SEC(".maps");

/* IPv4 or IPv6 unicast, and not neighbour discovery? */
static __always_inline int spreadable(struct __sk_buff *skb)
{
	struct ethhdr eth;
	__u8 b;

	if (bpf_skb_load_bytes(skb, 0, &eth, sizeof(eth)))
		return 0;
	if (eth.h_dest[0] & 1)		/* broadcast, multicast */
		return 0;
	if (eth.h_proto == bpf_htons(ETH_P_IP))
		return 1;
	if (eth.h_proto != bpf_htons(ETH_P_IPV6))
		return 0;
	if (bpf_skb_load_bytes(skb, IP6_NEXTHDR_OFF, &b, 1))
		return 0;
	if (b != IPPROTO_ICMPV6)
		return 1;
	if (bpf_skb_load_bytes(skb, ICMP6_TYPE_OFF, &b, 1))
		return 0;
	return b < ND_FIRST || b > ND_LAST;
}

static __always_inline int steer(struct __sk_buff *skb, int spray)
{
	const struct drack_policy_conf *c;
	const struct drack_policy_vnic *v;
	struct drack_policy_cpu *cpu;
	__u32 zero = 0, i;

	cpu = bpf_map_lookup_elem(&drack_cpu, &zero);
	c = bpf_map_lookup_elem(&drack_vnics, &zero);
	if (!cpu || !c)
		return TC_ACT_OK;
	if (cpu->pending) {
		i = cpu->pending;
		cpu->pending = 0;
		if (i == skb->ifindex)
			return TC_ACT_OK;	/* redirected here by us */
	}
	if (c->nr < 2 || c->nr > DRACK_POLICY_MAX || !spreadable(skb))
		return TC_ACT_OK;
	if (spray) {
		i = cpu->next++ % c->nr;
	} else {
		/*
		 * Not the socket's random txhash, which TCP changes after
		 * a timeout: the flow dissector's hash of the addresses and
		 * ports (IPv6: addresses and flow label).
		 */
		bpf_set_hash_invalid(skb);
		i = bpf_get_hash_recalc(skb) % c->nr;
	}
	v = &c->vnic[i & (DRACK_POLICY_MAX - 1)];
	if (!v->ifindex || v->ifindex == skb->ifindex)
		return TC_ACT_OK;
	if (bpf_skb_store_bytes(skb, ETH_ALEN, v->mac, ETH_ALEN, 0))
		return TC_ACT_OK;
	cpu->pending = v->ifindex;
	return bpf_redirect(v->ifindex, 0);
}

SEC("tc")
int drack_ecmp(struct __sk_buff *skb)
{
	return steer(skb, 0);
}

SEC("tc")
int drack_spray(struct __sk_buff *skb)
{
	return steer(skb, 1);
}

char LICENSE[] SEC("license") = "GPL";
