/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drackctl nic policy: the tc programs of bpf/nic_policy.bpf.c, embedded
 * in drackctl, loaded and attached with libbpf (ctl-nic-bpf.c).
 */
#ifndef _DRACKCTL_NIC_BPF_H
#define _DRACKCTL_NIC_BPF_H

#include <stdint.h>
#include "bpf/nic_policy.h"

enum ctl_policy {
	CTL_POLICY_NONE,
	CTL_POLICY_MPTCP,
	CTL_POLICY_ECMP,
	CTL_POLICY_SPRAY,
	CTL_POLICY_OTHER,	/* a program not ours at our handle */
};

/* "none", "mptcp", "ecmp", "spray", "other" */
const char *ctl_policy_name(enum ctl_policy p);

struct ctl_bpf;

/*
 * Load the program of @policy (ECMP or SPRAY) with @conf in its map: NULL
 * and -errno in *@err after libbpf's warnings, if any.
 */
struct ctl_bpf *ctl_bpf_load(enum ctl_policy policy,
			     const struct drack_policy_conf *conf, int *err);
/* Close our references: attached programs stay. */
void ctl_bpf_close(struct ctl_bpf *b);
/* Attach @b to @ifindex's egress (clsact made if needed): 0 or -errno. */
int ctl_bpf_attach(struct ctl_bpf *b, int ifindex);
/* Take ours off @ifindex's egress: 1 if there was one, 0 if not, -errno. */
int ctl_bpf_detach(int ifindex);
/* Delete @ifindex's clsact qdisc if no filter is left on it: 0 or -errno. */
int ctl_bpf_tidy(int ifindex);

struct ctl_bpf_info {
	uint32_t prog_id;
	enum ctl_policy policy;		/* ECMP, SPRAY or OTHER */
	char name[16];			/* the program's */
	bool have_conf;
	struct drack_policy_conf conf;	/* its map, if have_conf */
};

/* The program at our handle on @ifindex's egress: 1, 0 if none, -errno. */
int ctl_bpf_query(int ifindex, struct ctl_bpf_info *info);

#endif /* _DRACKCTL_NIC_BPF_H */
