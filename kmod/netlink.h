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
/* generated: the request policy, the op table, the handlers' prototypes */
#include "netlink_gen.h"

extern struct genl_family drack_genl_family;

int drack_nl_init(void);
void drack_nl_exit(void);
void drack_nl_section_request(struct drack_pool *pool, u32 host,
			      u32 buf_class, u32 count);
void drack_nl_host_notify(struct drack_pool *pool, u32 host, u32 state);
void drack_nl_section_notify(struct drack_pool *pool, u32 section, u32 owner,
			     u32 buf_class);
void drack_nl_nic_notify(struct drack_pool *pool, u32 nic);
void drack_nl_nic_steer_notify(u32 pool_id, u32 nic, u32 host, int steer);
void drack_nl_peer_notify(struct drack_pool *pool, u32 host, u32 peer,
			  bool stalled);

/*
 * Attribute @type inside nest @nest of a request (DRACK_A_HOST ...), which
 * genl validated already with the nest's generated policy; NULL if absent.
 */
static inline const struct nlattr *drack_nl_nested(const struct nlattr *nest,
						   int type)
{
	return nest ? nla_find_nested(nest, type) : NULL;
}

/* Name the missing attribute: nest @nest_type, or @type within @nest. */
void drack_nl_miss(struct netlink_ext_ack *extack, const struct nlattr *nest,
		   int nest_type, int type);

#define DRACK_NL_ATTR(info, nest, type) \
	drack_nl_nested((info)->attrs[nest], type)
/* A required nested attribute: NULL if missing, with @msg in the extack. */
#define DRACK_NL_NEED(info, nest, type, msg) ({				\
	const struct nlattr *__a = DRACK_NL_ATTR(info, nest, type);	\
	if (!__a) {							\
		NL_SET_ERR_MSG((info)->extack, msg);			\
		drack_nl_miss((info)->extack, (info)->attrs[nest],	\
			      nest, type);				\
	}								\
	__a;								\
})
/* The top-level attribute @type of a dump request, validated by genl. */
const struct nlattr *drack_nl_dump_attr(struct netlink_callback *cb, int type);

/* Look up the pool of @nest (a DRACK_A_POOL), extack on failure.
 * drack_pools_lock held.
 */
struct drack_pool *drack_nl_pool(const struct nlattr *nest,
				 struct netlink_ext_ack *extack);
void *drack_nl_put_dump(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd);
/* A nest @nest holding the one u32 @type = @val (pool { id } ...). */
int drack_nl_put_id(struct sk_buff *skb, int nest, int type, u32 val);

/* Dump one pool's table, entry by entry, resuming where the last ended. */
typedef int (*drack_nl_dump_fill_t)(struct sk_buff *skb,
				    struct netlink_callback *cb,
				    struct drack_pool *pool, u32 idx);
enum drack_nl_table { DRACK_NL_HOSTS, DRACK_NL_SECTIONS, DRACK_NL_NICS };
int drack_nl_pool_table_dump(struct sk_buff *skb, struct netlink_callback *cb,
			     drack_nl_dump_fill_t fill,
			     enum drack_nl_table table);

/* netlink_fm.c */
/* The pool of an FM command; -EBUSY if another socket is its FM. */
struct drack_pool *drack_nl_fm_pool(struct genl_info *info);
int drack_nl_fm_init(void);
void drack_nl_fm_exit(void);

#endif /* _DRACK_NETLINK_H */
