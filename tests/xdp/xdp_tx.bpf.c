// SPDX-License-Identifier: GPL-2.0-only
/*
 * UDP echo in XDP: a datagram to the test port goes back to its sender
 * with MACs, addresses and ports swapped (XDP_TX). Swapping leaves the IP
 * and UDP checksums valid: both are sums over the swapped fields.
 */
#include "xdp_common.h"

SEC("xdp")
int xdp_udp_echo(struct xdp_md *ctx)
{
	unsigned char mac[ETH_ALEN];
	struct xdp_udp4 f;
	__be32 addr;
	__be16 port;

	xdp_count_inc(0);
	if (!xdp_udp4_parse(ctx, &f))
		return XDP_PASS;
	xdp_count_inc(1);
	__builtin_memcpy(mac, f.eth->h_source, ETH_ALEN);
	__builtin_memcpy(f.eth->h_source, f.eth->h_dest, ETH_ALEN);
	__builtin_memcpy(f.eth->h_dest, mac, ETH_ALEN);
	addr = f.ip->saddr;
	f.ip->saddr = f.ip->daddr;
	f.ip->daddr = addr;
	port = f.udp->source;
	f.udp->source = f.udp->dest;
	f.udp->dest = port;
	return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
