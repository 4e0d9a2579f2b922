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
#include "uapi/drack.h"

extern struct genl_family drack_genl_family;

int drack_nl_init(void);
void drack_nl_exit(void);
void drack_nl_section_request(struct drack_pool *pool, u32 host,
			      u32 buf_class, u32 count);
void drack_nl_host_notify(struct drack_pool *pool, u32 host, u32 state);
void drack_nl_section_notify(struct drack_pool *pool, u32 section, u32 owner,
			     u32 buf_class);
void drack_nl_nic_notify(struct drack_pool *pool, u32 nic);

/* Look the pool of @attr up, extack on failure. drack_pools_lock held. */
struct drack_pool *drack_nl_pool(const struct nlattr *attr,
				 struct netlink_ext_ack *extack);
void *drack_nl_put_dump(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd);

/* Dump one pool's table, entry by entry, resuming where the last ended. */
typedef int (*drack_nl_dump_fill_t)(struct sk_buff *skb,
				    struct netlink_callback *cb,
				    struct drack_pool *pool, u32 idx);
enum drack_nl_table { DRACK_NL_HOSTS, DRACK_NL_SECTIONS, DRACK_NL_NICS };
int drack_nl_pool_table_dump(struct sk_buff *skb, struct netlink_callback *cb,
			     drack_nl_dump_fill_t fill,
			     enum drack_nl_table table);

/* A required attribute: missing type and a message in the extack. */
#define DRACK_NL_NEED(info, type, msg) ({				\
	bool __miss = !(info)->attrs[type];				\
	if (__miss) {							\
		NL_SET_ERR_MSG((info)->extack, msg);			\
		NL_SET_ERR_ATTR_MISS((info)->extack, NULL, type);	\
	}								\
	__miss;								\
})
#define DRACK_NL_NEED_HOST(info) \
	DRACK_NL_NEED(info, DRACK_A_HOST_ID, "missing host id")
#define DRACK_NL_NEED_SECTION(info) \
	DRACK_NL_NEED(info, DRACK_A_SECTION_ID, "missing Section id")
#define DRACK_NL_NEED_CLASS(info) \
	DRACK_NL_NEED(info, DRACK_A_CLASS, "missing Buffer class")

/* netlink_fm.c */
/* The pool of an FM command; -EBUSY if another socket is its FM. */
struct drack_pool *drack_nl_fm_pool(struct genl_info *info);
int drack_nl_section_grant_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_section_refuse_doit(struct sk_buff *skb, struct genl_info *info);
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

/* netlink_nic.c */
int drack_nl_nic_export_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_nic_unexport_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_nic_assign_doit(struct sk_buff *skb, struct genl_info *info);
int drack_nl_nic_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _DRACK_NETLINK_H */
