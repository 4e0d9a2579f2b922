// SPDX-License-Identifier: GPL-2.0-only
/*
 * Count the frames to the test port by the RX queue they came in on
 * (xdp_md.rx_queue_index); pass every frame.
 */
#include "xdp_common.h"

#define XDP_QUEUES	8

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XDP_QUEUES);
	__type(key, __u32);
	__type(value, __u64);
} xdp_queue SEC(".maps");

SEC("xdp")
int xdp_queue_pass(struct xdp_md *ctx)
{
	__u32 q = ctx->rx_queue_index;
	struct xdp_udp4 f;
	__u64 *v;

	if (!xdp_udp4_parse(ctx, &f))
		return XDP_PASS;
	v = bpf_map_lookup_elem(&xdp_queue, &q);
	if (v)
		__sync_fetch_and_add(v, 1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
