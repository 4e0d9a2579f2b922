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

static const struct genl_multicast_group drack_nl_mcgrps[] = {
	[DRACK_NLGRP_EVENTS] = { .name = DRACK_GENL_MCGRP_EVENTS },
};

void drack_nl_miss(struct netlink_ext_ack *extack, const struct nlattr *nest,
		   int nest_type, int type)
{
	if (nest)
		NL_SET_ERR_ATTR_MISS(extack, nest, type);
	else
		NL_SET_ERR_ATTR_MISS(extack, NULL, nest_type);
}

const struct nlattr *drack_nl_dump_attr(struct netlink_callback *cb, int type)
{
	return nlmsg_find_attr(cb->nlh, GENL_HDRLEN, type);
}

struct drack_pool *drack_nl_pool(const struct nlattr *nest,
				 struct netlink_ext_ack *extack)
{
	const struct nlattr *attr;
	struct drack_pool *pool;

	attr = drack_nl_nested(nest, DRACK_A_POOL_ID);
	if (!attr) {
		NL_SET_ERR_MSG(extack, "missing pool id");
		drack_nl_miss(extack, nest, DRACK_A_POOL, DRACK_A_POOL_ID);
		return ERR_PTR(-EINVAL);
	}
	pool = drack_pool_find(nla_get_u32(attr));
	if (!pool) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "unknown pool");
		return ERR_PTR(-ENOENT);
	}
	return pool;
}

int drack_nl_put_id(struct sk_buff *skb, int nest, int type, u32 val)
{
	struct nlattr *n = nla_nest_start(skb, nest);

	if (!n)
		return -EMSGSIZE;
	if (nla_put_u32(skb, type, val)) {
		nla_nest_cancel(skb, n);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, n);
	return 0;
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
	struct nlattr *nest = nla_nest_start(skb, DRACK_A_POOL);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, DRACK_A_POOL_ID, pool->id) ||
	    nla_put_string(skb, DRACK_A_POOL_BACKEND, pool->ops->name) ||
	    nla_put_u64_64bit(skb, DRACK_A_POOL_SIZE, g->pool_size,
			      DRACK_A_POOL_PAD) ||
	    nla_put_u32(skb, DRACK_A_POOL_SECTION_SIZE, DRACK_SECTION_SIZE) ||
	    nla_put_u32(skb, DRACK_A_POOL_SECTION_COUNT, g->section_count) ||
	    nla_put_u32(skb, DRACK_A_POOL_META_SECTIONS, g->meta_sections) ||
	    nla_put_u32(skb, DRACK_A_POOL_FREE_SECTIONS,
			drack_pool_free_sections(pool)) ||
	    nla_put_u32(skb, DRACK_A_POOL_MAX_HOSTS, g->max_hosts) ||
	    nla_put_u32(skb, DRACK_A_POOL_REGIONS, pool->regions) ||
	    nla_put_u32(skb, DRACK_A_POOL_FM_PID, pool->fm_pid) ||
	    nla_put_u64_64bit(skb, DRACK_A_POOL_FM_EPOCH,
			      drack_pool_fm_epoch(pool), DRACK_A_POOL_PAD) ||
	    nla_put_u32(skb, DRACK_A_POOL_MAX_NICS, g->max_nics)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

int drack_nl_pool_get_doit(struct sk_buff *skb, struct genl_info *info)
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
	pool = drack_nl_pool(info->attrs[DRACK_A_POOL], info->extack);
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
int drack_nl_pool_get_dumpit(struct sk_buff *skb,
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
		pool = drack_nl_pool(drack_nl_dump_attr(cb, DRACK_A_POOL),
				     cb->extack);
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
	struct nlattr *nest;
	u8 mac[ETH_ALEN];
	void *hdr;

	if (state == DRACK_HOST_FREE)
		return 0;
	memcpy(mac, he->mac, ETH_ALEN);

	hdr = drack_nl_put_dump(skb, cb, DRACK_CMD_HOST_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (drack_nl_put_id(skb, DRACK_A_POOL, DRACK_A_POOL_ID, pool->id))
		goto cancel;
	nest = nla_nest_start(skb, DRACK_A_HOST);
	if (!nest ||
	    nla_put_u32(skb, DRACK_A_HOST_ID, host) ||
	    nla_put_u32(skb, DRACK_A_HOST_STATE, state) ||
	    nla_put_u32(skb, DRACK_A_HOST_FLAGS,
			drack_host_flags(pool, host)) ||
	    nla_put(skb, DRACK_A_HOST_MAC, ETH_ALEN, mac) ||
	    nla_put_u64_64bit(skb, DRACK_A_HOST_HEARTBEAT,
			      le64_to_cpu(READ_ONCE(he->heartbeat)),
			      DRACK_A_HOST_PAD) ||
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
			      DRACK_A_HOST_PAD))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int drack_nl_host_get_dumpit(struct sk_buff *skb,
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
	int order = drack_pool_page_order(pool, section);
	struct nlattr *nest;
	void *hdr;

	hdr = drack_nl_put_dump(skb, cb, DRACK_CMD_SECTION_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (drack_nl_put_id(skb, DRACK_A_POOL, DRACK_A_POOL_ID, pool->id))
		goto cancel;
	nest = nla_nest_start(skb, DRACK_A_SECTION);
	if (!nest ||
	    nla_put_u32(skb, DRACK_A_SECTION_ID, section) ||
	    nla_put_u32(skb, DRACK_A_SECTION_OWNER,
			drack_section_owner(pool, section)) ||
	    nla_put_u32(skb, DRACK_A_SECTION_CLASS, READ_ONCE(se->buf_class)) ||
	    nla_put_u32(skb, DRACK_A_SECTION_GENERATION,
			le32_to_cpu(READ_ONCE(se->generation))) ||
	    nla_put_u32(skb, DRACK_A_SECTION_REGION,
			drack_section_region(&pool->geo, pool->regions,
					     section)) ||
	    nla_put_u32(skb, DRACK_A_SECTION_FLAGS, READ_ONCE(se->flags)) ||
	    (order >= 0 &&
	     nla_put_u32(skb, DRACK_A_SECTION_PAGE_ORDER, order)))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int drack_nl_section_get_dumpit(struct sk_buff *skb,
				       struct netlink_callback *cb)
{
	return drack_nl_pool_table_dump(skb, cb, drack_nl_fill_section,
					DRACK_NL_SECTIONS);
}

/* ---------------------------------------------------------------- */
/* The family                                                        */
/* ---------------------------------------------------------------- */

/*
 * The request policy and the op table are generated from the family's
 * spec (netlink_gen.c, tools/ynl/regen.sh; a global policy, as 6.1 has no
 * split ops). Its nests point to the request subsets of the objects'
 * attribute sets, so reply-only attributes, at the top level or nested,
 * are NLA_UNSPEC or beyond a policy's end, which strict validation
 * (nested attributes included) rejects in requests. The spec's checks
 * use the format's limits:
 */
static_assert(DRACK_MAX_HOSTS == 64 && DRACK_MAX_NICS == 16);
static_assert(DRACK_MAX_REGIONS == 16 && DRACK_NR_CLASSES == 2);

struct genl_family drack_genl_family __ro_after_init = {
	.name		= DRACK_GENL_NAME,
	.version	= DRACK_GENL_VERSION,
	.maxattr	= ARRAY_SIZE(drack_nl_policy) - 1,
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

/* One u32 of an event: @nest 0 puts it at the top level. */
struct drack_nl_kv {
	u16 nest, type;
	u32 val;
};

/* Put @kv in order, consecutive ones of the same nest in one nest. */
static int drack_nl_put_kv(struct sk_buff *msg, const struct drack_nl_kv *kv,
			   int n)
{
	struct nlattr *nest = NULL;
	int i;

	for (i = 0; i < n; i++) {
		if (nest && kv[i].nest != kv[i - 1].nest) {
			nla_nest_end(msg, nest);
			nest = NULL;
		}
		if (kv[i].nest && !nest) {
			nest = nla_nest_start(msg, kv[i].nest);
			if (!nest)
				return -EMSGSIZE;
		}
		if (nla_put_u32(msg, kv[i].type, kv[i].val))
			return -EMSGSIZE;
	}
	if (nest)
		nla_nest_end(msg, nest);
	return 0;
}

/*
 * Pools are global, so events go to listeners in every netns. Nobody
 * listening (-ESRCH) is the normal case. Every event names its pool.
 */
static void drack_nl_event(u8 cmd, u32 pool_id, const struct drack_nl_kv *kv,
			   int n)
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
	if (drack_nl_put_id(msg, DRACK_A_POOL, DRACK_A_POOL_ID, pool_id) ||
	    drack_nl_put_kv(msg, kv, n))
		goto err_free;
	genlmsg_end(msg, hdr);
	genlmsg_multicast_allns(&drack_genl_family, msg, 0,
				DRACK_NLGRP_EVENTS);
	goto out;

err_free:
	nlmsg_free(msg);
out:
	mutex_unlock(&drack_nl_lock);
}

void drack_nl_section_request(struct drack_pool *pool, u32 host,
			      u32 buf_class, u32 count)
{
	const struct drack_nl_kv kv[] = {
		{ DRACK_A_HOST, DRACK_A_HOST_ID, host },
		{ DRACK_A_CLASS, DRACK_A_CLASS_ID, buf_class },
		{ 0, DRACK_A_COUNT, count },
	};

	drack_nl_event(DRACK_CMD_SECTION_REQUEST, pool->id, kv,
		       ARRAY_SIZE(kv));
}

void drack_nl_host_notify(struct drack_pool *pool, u32 host, u32 state)
{
	const struct drack_nl_kv kv[] = {
		{ DRACK_A_HOST, DRACK_A_HOST_ID, host },
		{ DRACK_A_HOST, DRACK_A_HOST_STATE, state },
	};

	drack_nl_event(DRACK_CMD_HOST_NOTIFY, pool->id, kv, ARRAY_SIZE(kv));
}

void drack_nl_section_notify(struct drack_pool *pool, u32 section, u32 owner,
			     u32 buf_class)
{
	const struct drack_nl_kv kv[] = {
		{ DRACK_A_SECTION, DRACK_A_SECTION_ID, section },
		{ DRACK_A_SECTION, DRACK_A_SECTION_OWNER, owner },
		{ DRACK_A_SECTION, DRACK_A_SECTION_CLASS, buf_class },
	};

	drack_nl_event(DRACK_CMD_SECTION_NOTIFY, pool->id, kv,
		       ARRAY_SIZE(kv));
}

void drack_nl_nic_notify(struct drack_pool *pool, u32 nic)
{
	struct drack_nic_entry *e = drack_nic_entry(pool, nic);
	const struct drack_nl_kv kv[] = {
		{ DRACK_A_NIC, DRACK_A_NIC_ID, nic },
		{ DRACK_A_NIC, DRACK_A_NIC_STATE,
		  le32_to_cpu(READ_ONCE(e->state)) },
		{ DRACK_A_NIC, DRACK_A_NIC_OWNER,
		  le16_to_cpu(READ_ONCE(e->owner)) },
	};

	drack_nl_event(DRACK_CMD_NIC_NOTIFY, pool->id, kv, ARRAY_SIZE(kv));
}

/* The FM steered @host's vNIC of @nic to NIC @steer (-1: its own). */
void drack_nl_nic_steer_notify(u32 pool_id, u32 nic, u32 host, int steer)
{
	const struct drack_nl_kv kv[] = {
		{ DRACK_A_NIC, DRACK_A_NIC_ID, nic },
		{ DRACK_A_HOST, DRACK_A_HOST_ID, host },
		{ DRACK_A_VNIC, DRACK_A_VNIC_STEER, steer },
	};

	drack_nl_event(DRACK_CMD_NIC_STEER, pool_id, kv,
		       steer < 0 ? ARRAY_SIZE(kv) - 1 : ARRAY_SIZE(kv));
}

void drack_nl_peer_notify(struct drack_pool *pool, u32 host, u32 peer,
			  bool stalled)
{
	const struct drack_nl_kv kv[] = {
		{ DRACK_A_HOST, DRACK_A_HOST_ID, host },
		{ DRACK_A_PEER, DRACK_A_PEER_ID, peer },
		{ DRACK_A_PEER, DRACK_A_PEER_STALLED, stalled },
	};

	drack_nl_event(DRACK_CMD_PEER_NOTIFY, pool->id, kv, ARRAY_SIZE(kv));
}

static const struct drack_pool_events drack_nl_events = {
	.section_request = drack_nl_section_request,
	.host = drack_nl_host_notify,
	.section = drack_nl_section_notify,
	.nic = drack_nl_nic_notify,
	.peer = drack_nl_peer_notify,
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
