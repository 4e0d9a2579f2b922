/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drackctl nic policy: what the tc programs (nic_policy.bpf.c) and
 * drackctl (ctl-nic-policy.c) share.
 */
#ifndef _DRACK_NIC_POLICY_H
#define _DRACK_NIC_POLICY_H

#include <linux/types.h>

/* vNICs one policy spreads over (a power of 2: the program masks) */
#define DRACK_POLICY_MAX	32
/* tc filter handle and priority of the programs on a vNIC's egress */
#define DRACK_POLICY_HANDLE	0xd7ac
#define DRACK_POLICY_PRIO	0xd7ac

struct drack_policy_vnic {
	__u32 ifindex;
	__u8 mac[6];
	__u8 pad[2];
};

/* The only entry of map "drack_vnics": the vNICs to spread over. */
struct drack_policy_conf {
	__u32 nr;
	__u32 pad;
	struct drack_policy_vnic vnic[DRACK_POLICY_MAX];
};

/* Map "drack_cpu", one entry per CPU. */
struct drack_policy_cpu {
	__u32 next;		/* spray: index of the next vNIC */
	__u32 pending;		/* ifindex this CPU is redirecting a packet to */
};

#endif /* _DRACK_NIC_POLICY_H */
