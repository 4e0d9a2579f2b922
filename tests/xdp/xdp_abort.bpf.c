// SPDX-License-Identifier: GPL-2.0-only
/* XDP_ABORTED for UDP to the test port: dropped, traced; others pass. */
#include "xdp_common.h"

SEC("xdp")
int xdp_abort_port(struct xdp_md *ctx)
{
	struct xdp_udp4 f;

	xdp_count_inc(0);
	if (!xdp_udp4_parse(ctx, &f))
		return XDP_PASS;
	xdp_count_inc(1);
	return XDP_ABORTED;
}

char LICENSE[] SEC("license") = "GPL";
