// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pool's FM mechanism: what the fabric manager's commands do to the
 * pool (Section grants and refusals, revokes, fencing and reclaiming a
 * host, reformatting, the FM epoch). Policy lives in drack-fmd.
 */
#include <linux/module.h>
#include <net/netlink.h>
#include "pool.h"
#include "ring.h"
#include "trace.h"
/* An FM command's target host: in range and up. pool->lock held. */
static int drack_pool_host_up(struct drack_pool *pool, u32 host,
			      struct netlink_ext_ack *extack)
{
	if (host >= pool->geo.max_hosts) {
		NL_SET_ERR_MSG(extack, "host id out of range for this pool");
		return -EINVAL;
	}
	if (drack_host_state(pool, host) != DRACK_HOST_UP) {
		NL_SET_ERR_MSG(extack, "host is not up");
		return -ENOENT;
	}
	return 0;
}

int drack_pool_grant(struct drack_pool *pool, u32 host, u32 section,
		     u32 buf_class, struct netlink_ext_ack *extack)
{
	struct drack_section_entry *e;
	struct drack_grant *g;
	struct drack_ring ring;
	u32 gen;
	int err = 0;

	mutex_lock(&pool->lock);
	err = drack_pool_host_up(pool, host, extack);
	if (err)
		goto out;
	if (section >= pool->geo.section_count) {
		NL_SET_ERR_MSG(extack, "Section id out of range");
		err = -EINVAL;
	} else if (section < pool->geo.meta_sections) {
		NL_SET_ERR_MSG(extack, "Section holds pool metadata");
		err = -EINVAL;
	} else if (drack_section_owner(pool, section) != DRACK_SECTION_FREE) {
		NL_SET_ERR_MSG(extack, "Section is not free");
		err = -EBUSY;
	} else if (buf_class >= DRACK_NR_CLASSES) {
		NL_SET_ERR_MSG(extack, "unknown Buffer class");
		err = -EINVAL;
	}
	if (err)
		goto out;

	/* The FM may have moved kernels: adopt what the pool shows. */
	drack_ring_init(&ring,
			drack_pool_ptr(pool,
				       drack_grant_ring_off(&pool->geo, host)),
			pool->geo.grant_ring_entries, sizeof(*g));
	drack_ring_adopt_producer(&ring, true);
	if (drack_ring_space(&ring) <= 0) {
		NL_SET_ERR_MSG(extack, "host's grant ring is full");
		err = -ENOBUFS;
		goto out;
	}

	e = drack_section_entry(pool, section);
	gen = le32_to_cpu(e->generation) + 1;
	e->buf_class = buf_class;
	e->flags = 0;
	e->generation = cpu_to_le32(gen);
	smp_wmb(); /* class and generation before ownership */
	WRITE_ONCE(e->owner, cpu_to_le16(host));

	g = drack_ring_next(&ring);
	g->section = cpu_to_le32(section);
	g->generation = cpu_to_le32(gen);
	drack_ring_push(&ring);
	drack_ring_flush(&ring);
	WRITE_ONCE(drack_host_entry(pool, host)->refused,
		   cpu_to_le32(DRACK_REFUSED_NONE));
	drack_pool_kick(pool, host);
out:
	mutex_unlock(&pool->lock);
	return err;
}

int drack_pool_refuse(struct drack_pool *pool, u32 host, u32 why,
		      struct netlink_ext_ack *extack)
{
	int err;

	mutex_lock(&pool->lock);
	err = drack_pool_host_up(pool, host, extack);
	if (!err)
		WRITE_ONCE(drack_host_entry(pool, host)->refused,
			   cpu_to_le32(why));
	mutex_unlock(&pool->lock);
	return err;
}

static bool drack_pool_idle(struct drack_pool *pool)
{
	u32 h;

	for (h = 0; h < pool->geo.max_hosts; h++)
		if (drack_host_state(pool, h) != DRACK_HOST_FREE ||
		    rcu_access_pointer(pool->local[h]))
			return false;
	return true;
}

int drack_pool_reformat(struct drack_pool *pool, u32 max_hosts, u32 regions,
			struct netlink_ext_ack *extack)
{
	struct drack_superblock *sb = pool->base;
	struct drack_geometry g;
	u32 id, r;
	u64 epoch;
	int err;

	mutex_lock(&pool->lock);
	if (!drack_pool_idle(pool)) {
		NL_SET_ERR_MSG(extack, "pool is in use: every host must leave first");
		err = -EBUSY;
		goto out;
	}
	epoch = le64_to_cpu(sb->fm_epoch);
	err = drack_pool_format(pool->base, pool->size, pool->id, max_hosts,
				regions);
	if (err) {
		NL_SET_ERR_MSG(extack, "pool too small for that many hosts or regions");
		err = -EINVAL;
		goto out;
	}
	sb->fm_epoch = cpu_to_le64(epoch);
	err = drack_format_validate(pool->base, pool->size, &g, &id, &r);
	if (WARN_ON_ONCE(err))
		goto out;
	pool->geo = g;
	pool->regions = r;
	pr_info("drack: pool %u formatted: %u Sections (%u metadata), %u hosts, %u regions\n",
		pool->id, g.section_count, g.meta_sections, g.max_hosts, r);
out:
	mutex_unlock(&pool->lock);
	return err;
}

/* The owner of a granted Section, or -1 with the reason in @extack. */
static int drack_pool_granted(struct drack_pool *pool, u32 section,
			      struct netlink_ext_ack *extack)
{
	u32 owner;

	if (section >= pool->geo.section_count) {
		NL_SET_ERR_MSG(extack, "Section id out of range");
		return -1;
	}
	owner = drack_section_owner(pool, section);
	if (owner >= pool->geo.max_hosts) {
		NL_SET_ERR_MSG(extack, "Section is not granted");
		return -1;
	}
	return owner;
}

int drack_pool_revoke(struct drack_pool *pool, u32 section,
		      struct netlink_ext_ack *extack)
{
	struct drack_section_entry *e;
	int owner, err = 0;

	mutex_lock(&pool->lock);
	owner = drack_pool_granted(pool, section, extack);
	if (owner < 0) {
		err = -EINVAL;
		goto out;
	}
	if (drack_host_state(pool, owner) != DRACK_HOST_UP) {
		NL_SET_ERR_MSG(extack, "Section owner is not up");
		err = -EINVAL;
		goto out;
	}
	e = drack_section_entry(pool, section);
	WRITE_ONCE(e->flags, READ_ONCE(e->flags) | DRACK_SECTION_F_REVOKE);
	trace_drack_section_revoke(pool->id, section, owner,
				   READ_ONCE(e->buf_class));
	drack_pool_kick(pool, owner);
out:
	mutex_unlock(&pool->lock);
	return err;
}

int drack_pool_fence(struct drack_pool *pool, u32 host,
		     struct netlink_ext_ack *extack)
{
	struct drack_host_entry *e;
	int err = 0;
	u32 state;

	mutex_lock(&pool->lock);
again:
	state = host < pool->geo.max_hosts ? drack_host_state(pool, host) :
					     DRACK_HOST_NR_STATES;
	switch (state) {
	case DRACK_HOST_JOINING:
	case DRACK_HOST_UP:
	case DRACK_HOST_LEAVING:
		/* The host (in another kernel) may be changing it too. */
		if (!drack_host_cmpxchg(pool, host, state, DRACK_HOST_DEAD))
			goto again;
		e = drack_host_entry(pool, host);
		WRITE_ONCE(e->flags, 0);
		break;
	case DRACK_HOST_FREE:
		NL_SET_ERR_MSG(extack, "host slot is free");
		err = -ENOENT;
		break;
	case DRACK_HOST_DEAD:
		NL_SET_ERR_MSG(extack, "host is already fenced");
		err = -EALREADY;
		break;
	default:
		NL_SET_ERR_MSG(extack, "host id out of range for this pool");
		err = -EINVAL;
	}
	mutex_unlock(&pool->lock);
	if (err)
		return err;
	pr_info("drack: pool %u: host %u fenced\n", pool->id, host);
	drack_pool_peers_changed(pool);
	drack_pool_notify_host(pool, host, DRACK_HOST_DEAD);
	return 0;
}

u32 drack_pool_free_host_sections(struct drack_pool *pool, u32 host)
{
	enum drack_trace_free why = DRACK_TRACE_LEFT;
	struct drack_section_entry *se;
	u32 s, n = 0;

	lockdep_assert_held(&pool->lock);
	/* Leaving hosts free their own; the FM frees a fenced host's. */
	if (drack_host_state(pool, host) == DRACK_HOST_DEAD)
		why = DRACK_TRACE_RECLAIMED;
	for (s = pool->geo.meta_sections; s < pool->geo.section_count; s++) {
		if (drack_section_owner(pool, s) != host)
			continue;
		se = drack_section_entry(pool, s);
		se->generation = cpu_to_le32(le32_to_cpu(se->generation) + 1);
		se->flags = 0;
		smp_wmb(); /* a new owner sees a clean entry */
		WRITE_ONCE(se->owner, cpu_to_le16(DRACK_SECTION_FREE));
		drack_pool_notify_section(pool, s, DRACK_SECTION_FREE,
					READ_ONCE(se->buf_class));
		trace_drack_section_free(pool->id, s, host,
					 READ_ONCE(se->buf_class), why);
		n++;
	}
	return n;
}

int drack_pool_reclaim(struct drack_pool *pool, u32 host,
		       struct netlink_ext_ack *extack)
{
	u32 h, state, n = 0;
	int err = 0;

	mutex_lock(&pool->lock);
	if (host >= pool->geo.max_hosts) {
		NL_SET_ERR_MSG(extack, "host id out of range for this pool");
		err = -EINVAL;
		goto out;
	}
	if (drack_host_state(pool, host) != DRACK_HOST_DEAD) {
		NL_SET_ERR_MSG(extack, "host is not fenced");
		err = -EINVAL;
		goto out;
	}
	for (h = 0; h < pool->geo.max_hosts; h++) {
		state = drack_host_state(pool, h);
		if (h == host || state == DRACK_HOST_FREE ||
		    state == DRACK_HOST_DEAD)
			continue;
		if (!(le64_to_cpu(READ_ONCE(drack_host_entry(pool, h)->released)) &
		      BIT_ULL(host))) {
			NL_SET_ERR_MSG(extack, "a live host still references its Buffers");
			err = -EBUSY;
			goto out;
		}
	}
	n = drack_pool_free_host_sections(pool, host);
	drack_host_set_state(pool, host, DRACK_HOST_FREE);
out:
	mutex_unlock(&pool->lock);
	if (err)
		return err;
	pr_info("drack: pool %u: fenced host %u reclaimed, %u Sections free again\n",
		pool->id, host, n);
	drack_pool_notify_host(pool, host, DRACK_HOST_FREE);
	return 0;
}

u64 drack_pool_new_fm_epoch(struct drack_pool *pool)
{
	struct drack_superblock *sb = pool->base;
	u64 epoch;

	mutex_lock(&pool->lock);
	epoch = le64_to_cpu(sb->fm_epoch) + 1;
	WRITE_ONCE(sb->fm_epoch, cpu_to_le64(epoch));
	mutex_unlock(&pool->lock);
	return epoch;
}

u64 drack_pool_fm_epoch(struct drack_pool *pool)
{
	struct drack_superblock *sb = pool->base;

	return le64_to_cpu(READ_ONCE(sb->fm_epoch));
}
