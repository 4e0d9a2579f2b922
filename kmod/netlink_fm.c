// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fabric manager's commands: Section grant, refusal and revoke, host
 * fence and reclaim, pool format, and the registration that makes one
 * netlink socket the single writer of a pool's allocation state.
 * Mechanism only: when to do any of this is drack-fmd's business.
 */
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/sched.h>
#include "device.h"
#include "netlink.h"

static bool drack_nl_is_fm(struct drack_pool *pool, struct genl_info *info)
{
	return pool->fm_portid == info->snd_portid &&
	       net_eq(read_pnet(&pool->fm_net), genl_info_net(info));
}

/*
 * Look up the request's pool for an FM command. While an FM is
 * registered, nobody else changes the pool's allocation state.
 * drack_pools_lock held.
 */
struct drack_pool *drack_nl_fm_pool(struct genl_info *info)
{
	struct drack_pool *pool;

	pool = drack_nl_pool(info->attrs[DRACK_A_POOL], info->extack);
	if (IS_ERR(pool))
		return pool;
	if (pool->fm_portid && !drack_nl_is_fm(pool, info)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    DRACK_NL_ATTR(info, DRACK_A_POOL,
						  DRACK_A_POOL_ID),
				    "pool is managed by the fabric manager");
		return ERR_PTR(-EBUSY);
	}
	return pool;
}

int drack_nl_section_grant_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *ha, *sa, *ca;
	struct drack_pool *pool;
	u32 host, section, buf_class;
	int err;

	ha = DRACK_NL_NEED(info, DRACK_A_HOST, DRACK_A_HOST_ID,
			   "missing host id");
	sa = ha ? DRACK_NL_NEED(info, DRACK_A_SECTION, DRACK_A_SECTION_ID,
				"missing Section id") : NULL;
	ca = sa ? DRACK_NL_NEED(info, DRACK_A_SECTION, DRACK_A_SECTION_CLASS,
				"missing Buffer class") : NULL;
	if (!ca)
		return -EINVAL;
	host = nla_get_u32(ha);
	section = nla_get_u32(sa);
	buf_class = nla_get_u32(ca);

	mutex_lock(&drack_pools_lock);
	pool = drack_nl_fm_pool(info);
	if (IS_ERR(pool)) {
		err = PTR_ERR(pool);
		goto out;
	}
	err = -EINVAL;
	if (host >= pool->geo.max_hosts) {
		NL_SET_ERR_MSG_ATTR(info->extack, ha, "host id out of range");
		goto out;
	}
	if (section >= pool->geo.section_count) {
		NL_SET_ERR_MSG_ATTR(info->extack, sa,
				    "section id out of range");
		goto out;
	}
	err = drack_pool_grant(pool, host, section, buf_class, info->extack);
	if (!err)
		drack_nl_section_notify(pool, section, host, buf_class);
out:
	mutex_unlock(&drack_pools_lock);
	return err;
}

int drack_nl_section_refuse_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *ha;
	struct drack_pool *pool;
	int err;

	ha = DRACK_NL_NEED(info, DRACK_A_HOST, DRACK_A_HOST_ID,
			   "missing host id");
	if (!ha)
		return -EINVAL;
	if (!info->attrs[DRACK_A_REFUSAL]) {
		NL_SET_ERR_MSG(info->extack, "missing refusal reason");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, DRACK_A_REFUSAL);
		return -EINVAL;
	}
	mutex_lock(&drack_pools_lock);
	pool = drack_nl_fm_pool(info);
	err = IS_ERR(pool) ? PTR_ERR(pool) :
	      drack_pool_refuse(pool, nla_get_u32(ha),
				nla_get_u32(info->attrs[DRACK_A_REFUSAL]),
				info->extack);
	mutex_unlock(&drack_pools_lock);
	return err;
}

typedef int (*drack_nl_pool_op_t)(struct drack_pool *pool, u32 id,
				  struct netlink_ext_ack *extack);

/* An FM command on one Section or host id of the request's pool. */
static int drack_nl_fm_op(struct genl_info *info, const struct nlattr *id,
			  drack_nl_pool_op_t op)
{
	struct drack_pool *pool;
	int err;

	if (!id)
		return -EINVAL;
	mutex_lock(&drack_pools_lock);
	pool = drack_nl_fm_pool(info);
	err = IS_ERR(pool) ? PTR_ERR(pool) :
	      op(pool, nla_get_u32(id), info->extack);
	mutex_unlock(&drack_pools_lock);
	return err;
}

int drack_nl_section_revoke_doit(struct sk_buff *skb, struct genl_info *info)
{
	return drack_nl_fm_op(info, DRACK_NL_NEED(info, DRACK_A_SECTION,
						  DRACK_A_SECTION_ID,
						  "missing Section id"),
			      drack_pool_revoke);
}

static const struct nlattr *drack_nl_need_host(struct genl_info *info)
{
	return DRACK_NL_NEED(info, DRACK_A_HOST, DRACK_A_HOST_ID,
			     "missing host id");
}

int drack_nl_host_fence_doit(struct sk_buff *skb, struct genl_info *info)
{
	return drack_nl_fm_op(info, drack_nl_need_host(info),
			      drack_pool_fence);
}

int drack_nl_host_reclaim_doit(struct sk_buff *skb, struct genl_info *info)
{
	return drack_nl_fm_op(info, drack_nl_need_host(info),
			      drack_pool_reclaim);
}

int drack_nl_pool_format_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct nlattr *ha, *ra;
	struct drack_pool *pool;
	u32 max_hosts, regions;
	int err;

	mutex_lock(&drack_pools_lock);
	pool = drack_nl_fm_pool(info);
	if (IS_ERR(pool)) {
		err = PTR_ERR(pool);
	} else {
		ha = DRACK_NL_ATTR(info, DRACK_A_POOL, DRACK_A_POOL_MAX_HOSTS);
		ra = DRACK_NL_ATTR(info, DRACK_A_POOL, DRACK_A_POOL_REGIONS);
		max_hosts = ha ? nla_get_u32(ha) : pool->geo.max_hosts;
		regions = ra ? nla_get_u32(ra) : pool->regions;
		err = drack_pool_reformat(pool, max_hosts, regions,
					  info->extack);
	}
	mutex_unlock(&drack_pools_lock);
	return err;
}

int drack_nl_fm_register_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct drack_pool *pool;
	int err = 0;
	u64 epoch;

	mutex_lock(&drack_pools_lock);
	pool = drack_nl_pool(info->attrs[DRACK_A_POOL], info->extack);
	if (IS_ERR(pool)) {
		err = PTR_ERR(pool);
	} else if (pool->fm_portid && !drack_nl_is_fm(pool, info)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    DRACK_NL_ATTR(info, DRACK_A_POOL,
						  DRACK_A_POOL_ID),
				    "pool is managed by another fabric manager");
		err = -EBUSY;
	} else if (!pool->fm_portid) {
		pool->fm_portid = info->snd_portid;
		write_pnet(&pool->fm_net, genl_info_net(info));
		pool->fm_pid = task_tgid_nr(current);
		epoch = drack_pool_new_fm_epoch(pool);
		pr_info("drack: pool %u: fabric manager registered (pid %u, epoch %llu)\n",
			pool->id, pool->fm_pid, epoch);
	}
	mutex_unlock(&drack_pools_lock);
	return err;
}

static void drack_nl_fm_drop(struct drack_pool *pool, const char *why)
{
	pr_info("drack: pool %u: fabric manager (pid %u) %s\n", pool->id,
		pool->fm_pid, why);
	pool->fm_portid = 0;
	pool->fm_pid = 0;
	write_pnet(&pool->fm_net, NULL);
}

int drack_nl_fm_unregister_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct drack_pool *pool;
	int err = 0;

	mutex_lock(&drack_pools_lock);
	pool = drack_nl_pool(info->attrs[DRACK_A_POOL], info->extack);
	if (IS_ERR(pool)) {
		err = PTR_ERR(pool);
	} else if (!pool->fm_portid || !drack_nl_is_fm(pool, info)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    DRACK_NL_ATTR(info, DRACK_A_POOL,
						  DRACK_A_POOL_ID),
				    "not the registered fabric manager of this pool");
		err = -ENOENT;
	} else {
		drack_nl_fm_drop(pool, "unregistered");
	}
	mutex_unlock(&drack_pools_lock);
	return err;
}

/* A closed socket ends its registrations. */
static int drack_nl_fm_release(struct notifier_block *nb, unsigned long state,
			       void *ptr)
{
	struct netlink_notify *n = ptr;
	struct drack_pool *pool;

	if (state != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !n->portid)
		return NOTIFY_DONE;
	mutex_lock(&drack_pools_lock);
	list_for_each_entry(pool, &drack_pools, node)
		if (pool->fm_portid == n->portid &&
		    net_eq(read_pnet(&pool->fm_net), n->net))
			drack_nl_fm_drop(pool, "went away");
	mutex_unlock(&drack_pools_lock);
	return NOTIFY_OK;
}

static struct notifier_block drack_nl_fm_notifier = {
	.notifier_call = drack_nl_fm_release,
};

int drack_nl_fm_init(void)
{
	return netlink_register_notifier(&drack_nl_fm_notifier);
}

void drack_nl_fm_exit(void)
{
	netlink_unregister_notifier(&drack_nl_fm_notifier);
}
