// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic netlink family "drack": pool, host and Section tables for
 * user space and the events that tell the fabric manager what hosts want.
 * The FM's commands are in netlink_fm.c, local hosts' state in
 * netlink_local.c.
 *
 * Locking: handlers take drack_pools_lock to look a pool up and keep it
 * while they use the pool, so it cannot be unregistered under them. The
 * grant takes pool->lock itself (order: drack_pools_lock, pool->lock).
 * The family uses parallel_ops: genl_mutex is not held in handlers.
 */
#include <linux/etherdevice.h>
#include <linux/mutex.h>
#include <net/genetlink.h>
#include "device.h"
#include "netlink.h"

/* Events go out only between register and unregister. */
static DEFINE_MUTEX(drack_nl_lock);
static bool drack_nl_registered;

enum drack_nl_mcgrp {
	DRACK_NL_MCGRP_EVENTS,
};

static const struct genl_multicast_group drack_nl_mcgrps[] = {
	[DRACK_NL_MCGRP_EVENTS] = { .name = DRACK_GENL_MCGRP_EVENTS },
};

/*
 * Request attributes only. Reply-only attributes stay NLA_UNSPEC, which
 * strict validation rejects in requests, as it rejects types > max.
 */
static const struct nla_policy drack_nl_policy[DRACK_A_MAX + 1] = {
	[DRACK_A_POOL_ID]	= { .type = NLA_U32 },
	[DRACK_A_HOST_ID]	= NLA_POLICY_MAX(NLA_U32, DRACK_MAX_HOSTS - 1),
	[DRACK_A_SECTION_ID]	= { .type = NLA_U32 },
	[DRACK_A_CLASS]		= NLA_POLICY_MAX(NLA_U32, DRACK_NR_CLASSES - 1),
	[DRACK_A_POOL_MAX_HOSTS] = NLA_POLICY_RANGE(NLA_U32, 2, DRACK_MAX_HOSTS),
	[DRACK_A_POOL_REGIONS]	= NLA_POLICY_RANGE(NLA_U32, 1, DRACK_MAX_REGIONS),
	[DRACK_A_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[DRACK_A_NIC_ID]	= NLA_POLICY_MAX(NLA_U32, DRACK_MAX_NICS - 1),
	[DRACK_A_NIC_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
	[DRACK_A_NIC_ASSIGN]	= NLA_POLICY_MAX(NLA_U32, 1),
	[DRACK_A_REFUSAL]	= NLA_POLICY_RANGE(NLA_U32, DRACK_REFUSED_QUOTA,
						   DRACK_REFUSED_NR - 1),
};

struct drack_pool *drack_nl_pool(const struct nlattr *attr,
				 struct netlink_ext_ack *extack)
{
	struct drack_pool *pool;

	if (!attr) {
		NL_SET_ERR_MSG(extack, "missing pool id");
		NL_SET_ERR_ATTR_MISS(extack, NULL, DRACK_A_POOL_ID);
		return ERR_PTR(-EINVAL);
	}
	pool = drack_pool_find(nla_get_u32(attr));
	if (!pool) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "unknown pool");
		return ERR_PTR(-ENOENT);
	}
	return pool;
}

/* The request's DRACK_A_POOL_ID of a dump; genl validated it already. */
static const struct nlattr *drack_nl_dump_pool_attr(struct netlink_callback *cb)
{
	return nlmsg_find_attr(cb->nlh, GENL_HDRLEN, DRACK_A_POOL_ID);
}

void *drack_nl_put_dump(struct sk_buff *skb, struct netlink_callback *cb,
			u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &drack_genl_family, NLM_F_MULTI, cmd);
}

/* ---------------------------------------------------------------- */
/* DRACK_CMD_POOL_GET                                                */
/* ---------------------------------------------------------------- */

static int drack_nl_fill_pool(struct sk_buff *skb, struct drack_pool *pool)
{
	const struct drack_geometry *g = &pool->geo;

	if (nla_put_u32(skb, DRACK_A_POOL_ID, pool->id) ||
	    nla_put_string(skb, DRACK_A_POOL_BACKEND, pool->ops->name) ||
	    nla_put_u64_64bit(skb, DRACK_A_POOL_SIZE, g->pool_size,
			      DRACK_A_PAD) ||
	    nla_put_u32(skb, DRACK_A_POOL_SECTION_SIZE, DRACK_SECTION_SIZE) ||
	    nla_put_u32(skb, DRACK_A_POOL_SECTION_COUNT, g->section_count) ||
	    nla_put_u32(skb, DRACK_A_POOL_META_SECTIONS, g->meta_sections) ||
	    nla_put_u32(skb, DRACK_A_POOL_FREE_SECTIONS,
			drack_pool_free_sections(pool)) ||
	    nla_put_u32(skb, DRACK_A_POOL_MAX_HOSTS, g->max_hosts) ||
	    nla_put_u32(skb, DRACK_A_POOL_REGIONS, pool->regions) ||
	    nla_put_u32(skb, DRACK_A_POOL_FM_PID, pool->fm_pid) ||
	    nla_put_u64_64bit(skb, DRACK_A_POOL_FM_EPOCH,
			      drack_pool_fm_epoch(pool), DRACK_A_PAD) ||
	    nla_put_u32(skb, DRACK_A_POOL_MAX_NICS, g->max_nics))
		return -EMSGSIZE;
	return 0;
}

static int drack_nl_pool_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct drack_pool *pool;
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &drack_genl_family, 0,
				DRACK_CMD_POOL_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}

	mutex_lock(&drack_pools_lock);
	pool = drack_nl_pool(info->attrs[DRACK_A_POOL_ID], info->extack);
	if (IS_ERR(pool))
		err = PTR_ERR(pool);
	else
		err = drack_nl_fill_pool(msg, pool);
	mutex_unlock(&drack_pools_lock);
	if (err)
		goto err_free;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

/* cb->args[0]: pools already dumped */
static int drack_nl_pool_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct drack_pool *pool;
	long idx = 0;
	void *hdr;

	mutex_lock(&drack_pools_lock);
	list_for_each_entry(pool, &drack_pools, node) {
		if (idx++ < cb->args[0])
			continue;
		hdr = drack_nl_put_dump(skb, cb, DRACK_CMD_POOL_GET);
		if (!hdr)
			break;
		if (drack_nl_fill_pool(skb, pool)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = idx;
	}
	mutex_unlock(&drack_pools_lock);
	return skb->len;
}

/* ---------------------------------------------------------------- */
/* Dumps of one pool's tables                                        */
/* ---------------------------------------------------------------- */

/*
 * cb->args[0]: next table index, cb->args[1]: 1 once started,
 * cb->args[2]: the pool id. The pool is looked up again for every part
 * of the dump; if it went away meanwhile the dump ends early.
 */
int drack_nl_pool_table_dump(struct sk_buff *skb, struct netlink_callback *cb,
			     drack_nl_dump_fill_t fill,
			     enum drack_nl_table table)
{
	struct drack_pool *pool;
	u32 idx, end;
	int err = 0;

	mutex_lock(&drack_pools_lock);
	if (!cb->args[1]) {
		pool = drack_nl_pool(drack_nl_dump_pool_attr(cb), cb->extack);
		if (IS_ERR(pool)) {
			err = PTR_ERR(pool);
			goto out;
		}
		cb->args[1] = 1;
		cb->args[2] = pool->id;
	} else {
		pool = drack_pool_find(cb->args[2]);
		if (!pool)
			goto out;
	}

	end = table == DRACK_NL_HOSTS ? pool->geo.max_hosts :
	      table == DRACK_NL_NICS ? pool->geo.max_nics :
				       pool->geo.section_count;
	for (idx = cb->args[0]; idx < end; idx++) {
		err = fill(skb, cb, pool, idx);
		if (err)
			break;
	}
	cb->args[0] = idx;
	err = 0;
out:
	mutex_unlock(&drack_pools_lock);
	return err ?: skb->len;
}

static int drack_nl_fill_host(struct sk_buff *skb, struct netlink_callback *cb,
			      struct drack_pool *pool, u32 host)
{
	struct drack_host_entry *he = drack_host_entry(pool, host);
	u32 state = drack_host_state(pool, host);
	u8 mac[ETH_ALEN];
	void *hdr;

	if (state == DRACK_HOST_FREE)
		return 0;
	memcpy(mac, he->mac, ETH_ALEN);

	hdr = drack_nl_put_dump(skb, cb, DRACK_CMD_HOST_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, DRACK_A_POOL_ID, pool->id) ||
	    nla_put_u32(skb, DRACK_A_HOST_ID, host) ||
	    nla_put_u32(skb, DRACK_A_HOST_STATE, state) ||
	    nla_put_u32(skb, DRACK_A_HOST_FLAGS,
			drack_host_flags(pool, host)) ||
	    nla_put(skb, DRACK_A_HOST_MAC, ETH_ALEN, mac) ||
	    nla_put_u64_64bit(skb, DRACK_A_HOST_HEARTBEAT,
			      le64_to_cpu(READ_ONCE(he->heartbeat)),
			      DRACK_A_PAD) ||
	    nla_put_u32(skb, DRACK_A_HOST_SECTIONS,
			drack_pool_host_sections(pool, host)) ||
	    nla_put_u32(skb, DRACK_A_HOST_IFINDEX,
			drack_dev_ifindex(pool, host)) ||
	    nla_put_u32(skb, DRACK_A_HOST_GENERATION,
			le32_to_cpu(READ_ONCE(he->generation))) ||
	    nla_put_u32(skb, DRACK_A_HOST_FREE_2K,
			le32_to_cpu(READ_ONCE(he->buffers_free[0]))) ||
	    nla_put_u32(skb, DRACK_A_HOST_FREE_64K,
			le32_to_cpu(READ_ONCE(he->buffers_free[1]))) ||
	    nla_put_u32(skb, DRACK_A_HOST_WANTED_2K,
			!!READ_ONCE(he->sections_wanted[0])) ||
	    nla_put_u32(skb, DRACK_A_HOST_WANTED_64K,
			!!READ_ONCE(he->sections_wanted[1])) ||
	    nla_put_u64_64bit(skb, DRACK_A_HOST_RELEASED,
			      le64_to_cpu(READ_ONCE(he->released)),
			      DRACK_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int drack_nl_host_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	return drack_nl_pool_table_dump(skb, cb, drack_nl_fill_host,
					DRACK_NL_HOSTS);
}

static int drack_nl_fill_section(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 struct drack_pool *pool, u32 section)
{
	struct drack_section_entry *se = drack_section_entry(pool, section);
	void *hdr;

	hdr = drack_nl_put_dump(skb, cb, DRACK_CMD_SECTION_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, DRACK_A_POOL_ID, pool->id) ||
	    nla_put_u32(skb, DRACK_A_SECTION_ID, section) ||
	    nla_put_u32(skb, DRACK_A_SECTION_OWNER,
			drack_section_owner(pool, section)) ||
	    nla_put_u32(skb, DRACK_A_CLASS, READ_ONCE(se->buf_class)) ||
	    nla_put_u32(skb, DRACK_A_SECTION_GENERATION,
			le32_to_cpu(READ_ONCE(se->generation))) ||
	    nla_put_u32(skb, DRACK_A_SECTION_REGION,
			drack_section_region(&pool->geo, pool->regions,
					     section)) ||
	    nla_put_u32(skb, DRACK_A_SECTION_FLAGS, READ_ONCE(se->flags))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int drack_nl_section_get_dumpit(struct sk_buff *skb,
				       struct netlink_callback *cb)
{
	return drack_nl_pool_table_dump(skb, cb, drack_nl_fill_section,
					DRACK_NL_SECTIONS);
}

/* ---------------------------------------------------------------- */
/* The family                                                        */
/* ---------------------------------------------------------------- */

static const struct genl_small_ops drack_nl_ops[] = {
	{
		.cmd	= DRACK_CMD_POOL_GET,
		.doit	= drack_nl_pool_get_doit,
		.dumpit	= drack_nl_pool_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_HOST_GET,
		.dumpit	= drack_nl_host_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_SECTION_GET,
		.dumpit	= drack_nl_section_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_SECTION_GRANT,
		.doit	= drack_nl_section_grant_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_SECTION_REFUSE,
		.doit	= drack_nl_section_refuse_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_SECTION_REVOKE,
		.doit	= drack_nl_section_revoke_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_HOST_FENCE,
		.doit	= drack_nl_host_fence_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_HOST_RECLAIM,
		.doit	= drack_nl_host_reclaim_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_FM_REGISTER,
		.doit	= drack_nl_fm_register_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_FM_UNREGISTER,
		.doit	= drack_nl_fm_unregister_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_POOL_FORMAT,
		.doit	= drack_nl_pool_format_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_PEER_GET,
		.dumpit	= drack_nl_peer_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_CLASS_GET,
		.dumpit	= drack_nl_class_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_STATS_GET,
		.dumpit	= drack_nl_stats_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_NIC_EXPORT,
		.doit	= drack_nl_nic_export_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_NIC_UNEXPORT,
		.doit	= drack_nl_nic_unexport_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= DRACK_CMD_NIC_GET,
		.dumpit	= drack_nl_nic_get_dumpit,
	},
	{
		.cmd	= DRACK_CMD_NIC_ASSIGN,
		.doit	= drack_nl_nic_assign_doit,
		.flags	= GENL_ADMIN_PERM,
	},
};

struct genl_family drack_genl_family __ro_after_init = {
	.name		= DRACK_GENL_NAME,
	.version	= DRACK_GENL_VERSION,
	.maxattr	= DRACK_A_MAX,
	.policy		= drack_nl_policy,
	.netnsok	= true,
	.parallel_ops	= true,
	/* every command is new: strict header and attribute validation */
	.resv_start_op	= DRACK_CMD_POOL_GET,
	.module		= THIS_MODULE,
	.small_ops	= drack_nl_ops,
	.n_small_ops	= ARRAY_SIZE(drack_nl_ops),
	.mcgrps		= drack_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(drack_nl_mcgrps),
};

/* ---------------------------------------------------------------- */
/* Events, process context only                                      */
/* ---------------------------------------------------------------- */

/*
 * Pools are global, so events go to listeners in every netns. Nobody
 * listening (-ESRCH) is the normal case.
 */
static void drack_nl_event(u8 cmd, u32 pool_id, u32 host, u32 a1, u32 v1,
			   u32 a2, u32 v2, u32 a3, u32 v3)
{
	struct sk_buff *msg;
	void *hdr;

	might_sleep();
	mutex_lock(&drack_nl_lock);
	if (!drack_nl_registered)
		goto out;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto out;
	hdr = genlmsg_put(msg, 0, 0, &drack_genl_family, 0, cmd);
	if (!hdr)
		goto err_free;
	if (nla_put_u32(msg, DRACK_A_POOL_ID, pool_id) ||
	    (host != U32_MAX && nla_put_u32(msg, DRACK_A_HOST_ID, host)) ||
	    nla_put_u32(msg, a1, v1) ||
	    (a2 && nla_put_u32(msg, a2, v2)) ||
	    (a3 && nla_put_u32(msg, a3, v3)))
		goto err_free;
	genlmsg_end(msg, hdr);
	genlmsg_multicast_allns(&drack_genl_family, msg, 0,
				DRACK_NL_MCGRP_EVENTS);
	goto out;

err_free:
	nlmsg_free(msg);
out:
	mutex_unlock(&drack_nl_lock);
}

void drack_nl_section_request(struct drack_pool *pool, u32 host,
			      u32 buf_class, u32 count)
{
	drack_nl_event(DRACK_CMD_SECTION_REQUEST, pool->id, host,
		       DRACK_A_CLASS, buf_class, DRACK_A_COUNT, count, 0, 0);
}

void drack_nl_host_notify(struct drack_pool *pool, u32 host, u32 state)
{
	drack_nl_event(DRACK_CMD_HOST_NOTIFY, pool->id, host,
		       DRACK_A_HOST_STATE, state, 0, 0, 0, 0);
}

void drack_nl_section_notify(struct drack_pool *pool, u32 section, u32 owner,
			     u32 buf_class)
{
	drack_nl_event(DRACK_CMD_SECTION_NOTIFY, pool->id, U32_MAX,
		       DRACK_A_SECTION_ID, section, DRACK_A_SECTION_OWNER, owner,
		       DRACK_A_CLASS, buf_class);
}

void drack_nl_nic_notify(struct drack_pool *pool, u32 nic)
{
	struct drack_nic_entry *e = drack_nic_entry(pool, nic);

	drack_nl_event(DRACK_CMD_NIC_NOTIFY, pool->id, U32_MAX,
		       DRACK_A_NIC_ID, nic,
		       DRACK_A_NIC_STATE, le32_to_cpu(READ_ONCE(e->state)),
		       DRACK_A_NIC_OWNER, le16_to_cpu(READ_ONCE(e->owner)));
}

static const struct drack_pool_events drack_nl_events = {
	.section_request = drack_nl_section_request,
	.host = drack_nl_host_notify,
	.section = drack_nl_section_notify,
	.nic = drack_nl_nic_notify,
};

int drack_nl_init(void)
{
	int err;

	err = drack_nl_fm_init();
	if (err)
		return err;
	err = genl_register_family(&drack_genl_family);
	if (err) {
		drack_nl_fm_exit();
		return err;
	}
	mutex_lock(&drack_nl_lock);
	drack_nl_registered = true;
	mutex_unlock(&drack_nl_lock);
	drack_pool_set_events(&drack_nl_events);
	return 0;
}

void drack_nl_exit(void)
{
	drack_pool_set_events(NULL);
	mutex_lock(&drack_nl_lock);
	drack_nl_registered = false;
	mutex_unlock(&drack_nl_lock);
	genl_unregister_family(&drack_genl_family);
	drack_nl_fm_exit();
}
