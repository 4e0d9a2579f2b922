// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NIC pool per host: follow the pool's NIC table (attach to the
 * virt_queues of every NIC the fabric manager assigned us, create the
 * vNICs), route each vNIC through its own NIC or, when that NIC or its
 * owner fails, through the usable NIC with the shortest queue (DFabric's
 * queue-depth choice), and react to the physical NICs we export.
 */
#include <linux/module.h>
#include <net/rtnetlink.h>
#include "device.h"

/* Reconcile works run here, so that module unload can wait for them. */
static struct workqueue_struct *drack_nic_wq;

unsigned int drack_nic_failover_ms = 500;

static int drack_nic_failover_set(const char *val, const struct kernel_param *kp)
{
	return drack_param_set_range(val, kp, DRACK_NIC_FAILOVER_MIN_MS,
				     DRACK_NIC_FAILOVER_MAX_MS);
}

static const struct kernel_param_ops drack_nic_failover_ops = {
	.set = drack_nic_failover_set,
	.get = param_get_uint,
};

module_param_cb(nic_failover_ms, &drack_nic_failover_ops,
		&drack_nic_failover_ms, 0644);

bool drack_nic_allow_link_local;
module_param_named(nic_allow_link_local, drack_nic_allow_link_local, bool, 0644);
MODULE_PARM_DESC(nic_allow_link_local,
		 "let vNICs send link-local control frames (pause, STP, LLDP) to the wire");
MODULE_PARM_DESC(nic_failover_ms,
		 "Silence of a NIC owner's heartbeat after which vNICs move away (ms, 10-60000, default 500; at least two heartbeat_ms)");

int drack_nic_buf_class(struct drack_pool *pool, u32 host, u64 off)
{
	const struct drack_geometry *g = &pool->geo;
	u64 section = off >> DRACK_SECTION_SHIFT;
	struct drack_section_entry *e;
	u32 cls;

	if (off >= g->pool_size || section < g->meta_sections)
		return -1;
	e = drack_section_entry(pool, section);
	cls = READ_ONCE(e->buf_class);
	if (le16_to_cpu(READ_ONCE(e->owner)) != host ||
	    cls >= DRACK_NR_CLASSES || off & (DRACK_CLASS_SIZE(cls) - 1))
		return -1;
	return cls;
}

/*
 * How long an owner's heartbeat may stand still: nic_failover_ms, but
 * never under two beats, or a live owner would look dead between them.
 */
static unsigned int drack_nic_silence_ms(void)
{
	return max(READ_ONCE(drack_nic_failover_ms),
		   2 * drack_heartbeat_period_ms());
}

/* Is @nic's owner alive: UP and its heartbeat moving? */
static bool drack_nic_owner_alive(struct drack_dev *dd, u32 nic, u32 owner)
{
	unsigned long at = READ_ONCE(dd->nic.owner_beat_at[nic]);

	if (owner >= dd->nhosts ||
	    drack_host_state(dd->pool, owner) != DRACK_HOST_UP)
		return false;
	if (owner == dd->host)
		return true;
	/*
	 * Dead only if the silence lasted that long and our own checks, as
	 * many as fit in it, ran meanwhile: when this kernel itself was held
	 * up (a loaded or preempted VM), the owner's beat was too, and a
	 * long gap in wall time alone is no sign of death.
	 */
	return time_before(jiffies, at + msecs_to_jiffies(drack_nic_silence_ms())) ||
	       READ_ONCE(dd->nic.owner_quiet[nic]) <
	       DIV_ROUND_UP(drack_nic_silence_ms(), drack_heartbeat_period_ms());
}

bool drack_nic_usable(struct drack_dev *dd, u32 nic)
{
	struct drack_nic_entry *e = drack_nic_entry(dd->pool, nic);

	return drack_nic_state(dd->pool, nic) == DRACK_NIC_UP &&
	       drack_nic_owner_alive(dd, nic,
				     le16_to_cpu(READ_ONCE(e->owner)));
}

void drack_nic_changed(struct drack_dev *dd)
{
	/* The work holds the netdev until it has run. */
	if (!READ_ONCE(dd->nic.dying) && queue_work(drack_nic_wq, &dd->nic.work))
		dev_hold(dd->ndev);
}

void drack_nic_kick(struct drack_dev *dd)
{
	struct drack_nic_host *nh = &dd->nic;
	struct drack_xnic *x;
	struct drack_nic_port *vp;
	u32 n;

	/* Every doorbell comes here: a host with no NIC work stops here. */
	if (!READ_ONCE(nh->busy_slots))
		return;
	rcu_read_lock();
	for (n = 0; n < dd->pool->geo.max_nics; n++) {
		x = rcu_dereference(nh->xnic[n]);
		if (x)
			napi_schedule(&x->napi);
		vp = rcu_dereference(nh->vport[n]);
		if (vp)
			napi_schedule(&vp->napi);
	}
	rcu_read_unlock();
}

bool drack_nic_pending(struct drack_dev *dd)
{
	struct drack_nic_host *nh = &dd->nic;
	struct drack_xnic *x;
	struct drack_nic_port *vp;
	bool pending = false;
	u32 n;

	if (!READ_ONCE(nh->busy_slots))
		return false;
	rcu_read_lock();
	for (n = 0; n < dd->pool->geo.max_nics && !pending; n++) {
		x = rcu_dereference(nh->xnic[n]);
		vp = rcu_dereference(nh->vport[n]);
		pending = (x && drack_xnic_pending(x)) ||
			  (vp && drack_nic_port_pending(vp));
	}
	rcu_read_unlock();
	return pending;
}

/* Changes less than this apart are flaps; DRACK_NIC_FLAPS of them hold. */
#define DRACK_NIC_FLAP_GAP	HZ
#define DRACK_NIC_FLAPS		8
#define DRACK_NIC_HOLD_MAX	(64 * HZ)

static bool drack_nic_held(struct drack_nic_host *nh, u32 n)
{
	return nh->flaps[n] >= DRACK_NIC_FLAPS &&
	       time_before(jiffies, nh->hold_until[n]);
}

/* Does this host want the virt_queues of @nic? */
static bool drack_nic_want_port(struct drack_dev *dd, u32 nic)
{
	struct drack_nic_entry *e = drack_nic_entry(dd->pool, nic);
	u32 state = drack_nic_state(dd->pool, nic);
	u32 owner = le16_to_cpu(READ_ONCE(e->owner));

	return state != DRACK_NIC_FREE && state < DRACK_NIC_NR_STATES &&
	       (le64_to_cpu(READ_ONCE(e->assigned)) & BIT_ULL(dd->host)) &&
	       owner < dd->nhosts &&
	       drack_host_state(dd->pool, owner) == DRACK_HOST_UP &&
	       le32_to_cpu(READ_ONCE(e->generation));
}

/*
 * Where vNIC @vn goes: the NIC the fabric manager steers it to while that
 * one is usable (and not being let go of), else its own, else the usable
 * one with the shortest queue.
 */
static struct drack_nic_port *drack_nic_best_port(struct drack_dev *dd,
					       struct drack_vnic *vn,
					       u64 dropping)
{
	int steer = drack_vnic_steer(dd->pool, vn->id, dd->host);
	struct drack_nic_host *nh = &dd->nic;
	struct drack_nic_port *vp, *best = NULL;
	u32 n, depth, best_depth = U32_MAX;

	if (steer >= 0 && !(dropping & BIT_ULL(steer))) {
		vp = rtnl_dereference(nh->vport[steer]);
		if (vp && drack_nic_usable(dd, steer))
			return vp;
	}
	vp = rtnl_dereference(nh->vport[vn->id]);
	if (vp && drack_nic_usable(dd, vn->id))
		return vp;
	for (n = 0; n < dd->pool->geo.max_nics; n++) {
		vp = rtnl_dereference(nh->vport[n]);
		if (!vp || !drack_nic_usable(dd, n))
			continue;
		depth = le32_to_cpu(READ_ONCE(drack_nic_entry(dd->pool,
							      n)->queue_depth));
		if (depth < best_depth) {
			best = vp;
			best_depth = depth;
		}
	}
	return best;
}

static void drack_nic_route_all(struct drack_dev *dd, u64 dropping)
{
	struct drack_nic_host *nh = &dd->nic;
	struct drack_nic_port *vp;
	struct drack_vnic *vn;
	u32 n;

	for (n = 0; n < DRACK_MAX_NICS; n++) {
		vn = rtnl_dereference(nh->vnic[n]);
		if (!vn)
			continue;
		vp = drack_dev_active(dd) ?
		     drack_nic_best_port(dd, vn, dropping) : NULL;
		if (vp && (dropping & BIT_ULL(vp->nic)))
			vp = NULL;
		drack_vnic_route(vn, vp);
	}
}

/* Bring ports and vNICs in line with the NIC table (RTNL held). */
static void drack_nic_reconcile(struct drack_dev *dd)
{
	struct drack_nic_host *nh = &dd->nic;
	struct drack_pool *pool = dd->pool;
	bool active = drack_dev_active(dd) && !dd->leaving && !nh->dying;
	u32 n, max = pool->geo.max_nics;
	u64 dropping = 0, gone = 0;
	struct drack_nic_port *vp;
	bool moved;
	struct drack_vnic *vn;
	LIST_HEAD(kill);

	for (n = 0; n < max; n++) {
		struct drack_nic_entry *e = drack_nic_entry(pool, n);

		vp = rtnl_dereference(nh->vport[n]);
		if (!vp)
			continue;
		if (active && drack_nic_want_port(dd, n) &&
		    vp->gen == le32_to_cpu(READ_ONCE(e->generation)) &&
		    le16_to_cpu(READ_ONCE(e->owner)) == vp->owner)
			continue;
		dropping |= BIT_ULL(n);
		/* A new export or a dead owner: nobody will let go for it. */
		if (!active || vp->gen != le32_to_cpu(READ_ONCE(e->generation)) ||
		    drack_host_state(pool, vp->owner) != DRACK_HOST_UP)
			gone |= BIT_ULL(n);
	}
	drack_nic_route_all(dd, dropping);
	for (n = 0; n < max; n++) {
		vp = rtnl_dereference(nh->vport[n]);
		if (vp && (dropping & BIT_ULL(n)))
			drack_nic_port_detach(vp, gone & BIT_ULL(n));
	}

	for (n = 0; n < max; n++) {
		struct drack_nic_entry *e = drack_nic_entry(pool, n);
		bool assigned = le64_to_cpu(READ_ONCE(e->assigned)) &
				BIT_ULL(dd->host);
		u32 state = drack_nic_state(pool, n);

		/* Flapping: leave its vNIC and port as they are for now. */
		if (active && drack_nic_held(nh, n))
			continue;
		if (active && !rtnl_dereference(nh->vport[n]) &&
		    drack_nic_want_port(dd, n) && state == DRACK_NIC_UP)
			drack_nic_port_attach(dd, n);
		vn = rtnl_dereference(nh->vnic[n]);
		/* rack0 moved to another netns: its vNICs follow it. */
		moved = vn && !net_eq(dev_net(vn->ndev), dev_net(dd->ndev));
		/* A vNIC outlives failures of its NIC; not an unexport. */
		if (vn && !moved &&
		    (!nh->dying && state != DRACK_NIC_FREE && assigned)) {
			drack_vnic_sync_mac(vn);
			continue;
		}
		if (vn)
			drack_vnic_destroy(vn, &kill);
		if ((!vn || moved) && active && assigned &&
		    state != DRACK_NIC_FREE)
			drack_vnic_create(dd, n);
	}
	drack_nic_route_all(dd, 0);
	unregister_netdevice_many(&kill);
}

static void drack_nic_work(struct work_struct *work)
{
	struct drack_dev *dd = container_of(work, struct drack_dev, nic.work);

	rtnl_lock();
	if (!dd->nic.dying)
		drack_nic_reconcile(dd);
	rtnl_unlock();
	dev_put(dd->ndev);
}

/*
 * Heartbeat (RCU, no sleeping): publish our exported NICs' load, watch
 * the owners' heartbeats and run the reconcile work on any change.
 */
/*
 * Entry @n changed: does the reconcile work need to hear of it now? Not
 * while it is held down; a hold grows (1 s to 64 s) while it flaps.
 */
static bool drack_nic_note_change(struct drack_nic_host *nh, u32 n)
{
	unsigned long hold;

	if (time_before(jiffies, nh->changed_at[n] + DRACK_NIC_FLAP_GAP)) {
		if (nh->flaps[n] < U8_MAX)
			nh->flaps[n]++;
	} else if (!drack_nic_held(nh, n)) {
		nh->flaps[n] = 0;
	}
	nh->changed_at[n] = jiffies;
	if (nh->flaps[n] < DRACK_NIC_FLAPS)
		return true;
	if (!drack_nic_held(nh, n)) {
		hold = min_t(unsigned long, HZ << min(nh->flaps[n] -
						      DRACK_NIC_FLAPS, 6),
			     DRACK_NIC_HOLD_MAX);
		nh->hold_until[n] = jiffies + hold;
	}
	nh->hold_missed[n] = true;
	return false;
}

void drack_nic_tick(struct drack_dev *dd)
{
	struct drack_nic_host *nh = &dd->nic;
	struct drack_pool *pool = dd->pool;
	u32 n, max = pool->geo.max_nics;
	bool changed = false;

	for (n = 0; n < max; n++) {
		struct drack_nic_entry *e = drack_nic_entry(pool, n);
		u32 owner = le16_to_cpu(READ_ONCE(e->owner));
		u32 state = drack_nic_state(pool, n);
		struct drack_xnic *x = rcu_dereference(nh->xnic[n]);
		struct drack_nic_port *vp = rcu_dereference(nh->vport[n]);
		struct drack_vnic *vn;
		int steer;
		u64 beat;
		u32 fp;

		if (x)
			drack_xnic_tick(x);
		if (vp && drack_nic_port_retry(vp))
			napi_schedule(&vp->napi);
		vn = rcu_dereference(nh->vnic[n]);
		if (vn)
			drack_vnic_publish_demand(vn);
		if (owner < dd->nhosts) {
			struct drack_host_entry *he = drack_host_entry(pool,
								       owner);

			beat = le64_to_cpu(READ_ONCE(he->heartbeat));
			if (beat != nh->owner_beat[n]) {
				nh->owner_beat[n] = beat;
				nh->owner_beat_at[n] = jiffies;
				WRITE_ONCE(nh->owner_quiet[n], 0);
			} else if (nh->owner_quiet[n] < U16_MAX) {
				WRITE_ONCE(nh->owner_quiet[n],
					   nh->owner_quiet[n] + 1);
			}
		}
		/* The FM's steering is rate-limited by the FM: not a flap. */
		steer = drack_vnic_steer(pool, n, dd->host);
		if (steer != nh->seen_steer[n]) {
			nh->seen_steer[n] = steer;
			changed = true;
		}
		/* What routing depends on, folded into one word. */
		fp = (state & 0xf) | drack_nic_usable(dd, n) << 4 |
		     !!(le64_to_cpu(READ_ONCE(e->assigned)) &
			BIT_ULL(dd->host)) << 5 |
		     (drack_nic_want_port(dd, n) << 6) | (owner & 0xff) << 8;
		if (fp != nh->seen_state[n] ||
		    le32_to_cpu(READ_ONCE(e->generation)) != nh->seen_gen[n]) {
			nh->seen_state[n] = fp;
			nh->seen_gen[n] = le32_to_cpu(READ_ONCE(e->generation));
			changed |= drack_nic_note_change(nh, n);
		} else if (nh->hold_missed[n] && !drack_nic_held(nh, n)) {
			/* Quiet again: act on where it settled. */
			nh->hold_missed[n] = false;
			changed = true;
		}
	}
	if (changed)
		drack_nic_changed(dd);
}

static void drack_nic_reap_work(struct work_struct *work)
{
	struct drack_dev *dd = container_of(to_delayed_work(work),
					    struct drack_dev, nic.reap_work);

	if (drack_nic_port_reap(dd, false))
		schedule_delayed_work(&dd->nic.reap_work, msecs_to_jiffies(5));
}

void drack_nic_dev_init(struct drack_dev *dd)
{
	INIT_WORK(&dd->nic.work, drack_nic_work);
	spin_lock_init(&dd->nic.detach_lock);
	INIT_LIST_HEAD(&dd->nic.detaching);
	INIT_DELAYED_WORK(&dd->nic.reap_work, drack_nic_reap_work);
}

void drack_nic_dev_reap_all(struct drack_dev *dd)
{
	cancel_delayed_work_sync(&dd->nic.reap_work);
	drack_nic_port_reap(dd, true);
}

/* The drack device goes away (RTNL, from its NETDEV_UNREGISTER). */
void drack_nic_dev_teardown(struct drack_dev *dd)
{
	struct drack_nic_host *nh = &dd->nic;
	struct drack_xnic *x;
	u32 n;

	ASSERT_RTNL();
	if (!dd->pool || nh->dying)
		return;
	for (n = 0; n < DRACK_MAX_NICS; n++) {
		x = rtnl_dereference(nh->xnic[n]);
		if (x)
			drack_xnic_unexport(x);
	}
	nh->dying = true;
	drack_nic_reconcile(dd);	/* detaches ports, deletes vNICs */
}

static int drack_nic_netdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct drack_xnic *x;

	if (dev->rtnl_link_ops == &drack_link_ops) {
		/*
		 * A netns move unregisters and registers it again: keep its
		 * exports, and recreate its vNICs where it went.
		 */
		struct drack_dev *dd = netdev_priv(dev);

		if (event == NETDEV_UNREGISTER &&
		    dev->reg_state == NETREG_UNREGISTERING) {
			drack_nic_dev_teardown(dd);
		} else if (event == NETDEV_UNREGISTER) {
			dd->nic.moving = true;
		} else if (event == NETDEV_REGISTER && dd->nic.moving) {
			dd->nic.moving = false;
			drack_nic_changed(dd);
		}
		return NOTIFY_DONE;
	}
	if (event == NETDEV_PRE_CHANGEADDR && drack_is_vnic(dev)) {
		struct netdev_notifier_pre_changeaddr_info *ci = ptr;

		return notifier_from_errno(drack_vnic_pre_changeaddr(dev,
				ci->dev_addr,
				netdev_notifier_info_to_extack(&ci->info)));
	}
	x = drack_xnic_of(dev);
	if (!x)
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_UNREGISTER:
		drack_xnic_unexport(x);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		drack_xnic_link_changed(x);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block drack_nic_notifier = {
	.notifier_call = drack_nic_netdev_event,
};

int drack_nic_init(void)
{
	int err;

	drack_nic_wq = alloc_workqueue("drack_nic", 0, 0);
	if (!drack_nic_wq)
		return -ENOMEM;
	err = register_netdevice_notifier(&drack_nic_notifier);
	if (err)
		destroy_workqueue(drack_nic_wq);
	return err;
}

void drack_nic_exit(void)
{
	unregister_netdevice_notifier(&drack_nic_notifier);
	destroy_workqueue(drack_nic_wq);	/* waits for queued works */
}
