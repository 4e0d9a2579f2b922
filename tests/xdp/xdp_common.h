/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the XDP test programs share: the UDP port they act on and a
 * parser for Ethernet / IPv4 (no options) / UDP frames.
 */
#ifndef DRACK_XDP_COMMON_H
#define DRACK_XDP_COMMON_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

/* The port the programs drop, echo or redirect; others pass. */
#define DRACK_XDP_PORT	7777

/* xdp_count[0]: frames seen, [1]: the ones to DRACK_XDP_PORT */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} xdp_count SEC(".maps");

static __always_inline void xdp_count_inc(__u32 i)
{
	__u64 *v = bpf_map_lookup_elem(&xdp_count, &i);

	if (v)
		__sync_fetch_and_add(v, 1);
}

struct xdp_udp4 {
	struct ethhdr *eth;
	struct iphdr *ip;
	struct udphdr *udp;
};

/* True if the frame is IPv4/UDP to DRACK_XDP_PORT; fills @f. */
static __always_inline int xdp_udp4_parse(struct xdp_md *ctx,
					  struct xdp_udp4 *f)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	f->eth = data;
	if ((void *)(f->eth + 1) > end ||
	    f->eth->h_proto != bpf_htons(ETH_P_IP))
		return 0;
	f->ip = (void *)(f->eth + 1);
	if ((void *)(f->ip + 1) > end || f->ip->ihl != 5 ||
	    f->ip->protocol != IPPROTO_UDP)
		return 0;
	f->udp = (void *)(f->ip + 1);
	if ((void *)(f->udp + 1) > end)
		return 0;
	return f->udp->dest == bpf_htons(DRACK_XDP_PORT);
}

#endif
