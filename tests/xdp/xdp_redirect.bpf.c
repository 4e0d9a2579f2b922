// SPDX-License-Identifier: GPL-2.0-only
/*
 * Redirect UDP to the test port to the netdev in xdp_port[0] (a devmap
 * the test fills with bpftool); pass the rest.
 */
#include "xdp_common.h"

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} xdp_port SEC(".maps");

SEC("xdp")
int xdp_redirect_port(struct xdp_md *ctx)
{
	struct xdp_udp4 f;

	xdp_count_inc(0);
	if (!xdp_udp4_parse(ctx, &f))
		return XDP_PASS;
	xdp_count_inc(1);
	return bpf_redirect_map(&xdp_port, 0, XDP_DROP);
}

char LICENSE[] SEC("license") = "GPL";
