/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internals of the "drack" generic netlink family, shared by netlink.c
 * (family, pool tables, events), netlink_fm.c (fabric manager commands)
 * and netlink_local.c (state of the hosts in this kernel).
 */
#ifndef _DRACK_NETLINK_H
#define _DRACK_NETLINK_H

#include <net/genetlink.h>
#include "pool.h"

extern struct genl_family drack_genl_family;

/* Look the pool of @attr up, extack on failure. drack_pools_lock held. */
struct drack_pool *drack_nl_pool(const struct nlattr *attr,
				 struct netlink_ext_ack *extack);
void *drack_nl_put_dump(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd);

/* netlink_fm.c */
int drack_nl_section_grant_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_section_revoke_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_host_fence_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_host_reclaim_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_fm_register_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_fm_unregister_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_pool_format_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_fm_init(void);
void drack_nl_fm_exit(void);

/* netlink_local.c */
int drack_nl_peer_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int drack_nl_class_get_dumpit(struct sk_buff *skb,
			      struct netlink_callback *cb);
int drack_nl_stats_get_dumpit(struct sk_buff *skb,
			      struct netlink_callback *cb);

#endif /* _DRACK_NETLINK_H */
