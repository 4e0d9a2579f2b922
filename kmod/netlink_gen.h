/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/drack.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_DRACK_GEN_H
#define _LINUX_DRACK_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/drack_genl.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>
#include <uapi/drack_pool.h>

/* Common nested types */
extern const struct nla_policy drack_host_req_nl_policy[DRACK_A_HOST_IFINDEX + 1];
extern const struct nla_policy drack_nic_req_nl_policy[DRACK_A_NIC_IFINDEX + 1];
extern const struct nla_policy drack_pool_req_nl_policy[DRACK_A_POOL_REGIONS + 1];
extern const struct nla_policy drack_section_req_nl_policy[DRACK_A_SECTION_CLASS + 1];
extern const struct nla_policy drack_vnic_req_nl_policy[DRACK_A_VNIC_STEER + 1];

/* Global operation policy for drack */
extern const struct nla_policy drack_nl_policy[DRACK_A_REFUSAL + 1];

/* Ops table for drack */
extern const struct genl_small_ops drack_nl_ops[19];

int drack_nl_pool_get_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_pool_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int drack_nl_host_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int drack_nl_section_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int drack_nl_section_grant_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_section_revoke_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_host_fence_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_host_reclaim_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_fm_register_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_fm_unregister_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_pool_format_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_peer_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int drack_nl_class_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int drack_nl_stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int drack_nl_nic_export_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_nic_unexport_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_nic_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int drack_nl_nic_assign_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_section_refuse_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_nic_steer_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	DRACK_NLGRP_EVENTS,
};

#endif /* _LINUX_DRACK_GEN_H */
