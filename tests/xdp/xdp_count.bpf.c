// SPDX-License-Identifier: GPL-2.0-only
/* Count every frame and those to the test port; pass them all. */
#include "xdp_common.h"

SEC("xdp")
int xdp_count_pass(struct xdp_md *ctx)
{
	struct xdp_udp4 f;

	xdp_count_inc(0);
	if (xdp_udp4_parse(ctx, &f))
		xdp_count_inc(1);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
