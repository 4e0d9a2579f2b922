// SPDX-License-Identifier: GPL-2.0-only
/*
 * The periodic jobs of a local host, one delayed work each, named for
 * what it does: the heartbeat (and noticing a fence), peer liveness
 * (presence, carrier and its reason, dead peers, lost doorbells), Section
 * refill (retried requests, grants and revokes), and the NIC pool's
 * failover.
 * A host stalled by fault injection runs none of them, like a hung
 * kernel; a fenced one only watches for its slot to come free.
 */
#include <linux/moduleparam.h>
#include "device.h"

#define DRACK_TIMER_MS		100
#define DRACK_REQUEST_RETRY	HZ

/*
 * heartbeat_ms: how often a host beats and watches the NIC owners' beats
 * (at most 100 ms: drack-fmd may fence after 300 ms of silence).
 * Shorter finds a dead NIC owner sooner (failover after nic_failover_ms,
 * never less than two beats) at the price of a work item per period.
 */
static unsigned int drack_heartbeat_ms = DRACK_TIMER_MS;

static int drack_heartbeat_set(const char *val, const struct kernel_param *kp)
{
	return drack_param_set_range(val, kp, DRACK_HEARTBEAT_MIN_MS,
				     DRACK_HEARTBEAT_MAX_MS);
}

static const struct kernel_param_ops drack_heartbeat_ops = {
	.set = drack_heartbeat_set,
	.get = param_get_uint,
};

module_param_cb(heartbeat_ms, &drack_heartbeat_ops, &drack_heartbeat_ms, 0644);
MODULE_PARM_DESC(heartbeat_ms,
		 "Period of the heartbeat and of the NIC owners' liveness check (ms, 5-100, default 100: the most, under the fabric manager's shortest dead timeout)");

unsigned int drack_heartbeat_period_ms(void)
{
	return READ_ONCE(drack_heartbeat_ms);
}

/* A module parameter write of an unsigned in [min, max]; else unchanged. */
int drack_param_set_range(const char *val, const struct kernel_param *kp,
			  unsigned int min, unsigned int max)
{
	unsigned int v;
	int err = kstrtouint(val, 0, &v);

	if (err)
		return err;
	if (v < min || v > max)
		return -ERANGE;
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static void drack_timer_again(struct delayed_work *w)
{
	schedule_delayed_work(w, msecs_to_jiffies(DRACK_TIMER_MS));
}

/*
 * The heartbeat and the NIC owners' liveness check run on a workqueue of
 * their own with high priority: on a loaded host a late beat is a NIC
 * owner that looks dead (a needless failover).
 */
static struct workqueue_struct *drack_beat_wq;

static void drack_beat_again(struct delayed_work *w)
{
	queue_delayed_work(drack_beat_wq, w,
			   msecs_to_jiffies(drack_heartbeat_period_ms()));
}

int drack_timers_module_init(void)
{
	drack_beat_wq = alloc_workqueue("drack_beat", WQ_HIGHPRI, 0);
	return drack_beat_wq ? 0 : -ENOMEM;
}

void drack_timers_module_exit(void)
{
	destroy_workqueue(drack_beat_wq);
}

/* May a job touch the pool now? Up (or leaving), not fenced nor hung. */
static bool drack_timer_may_run(struct drack_dev *dd)
{
	return drack_dev_active(dd) &&
	       (READ_ONCE(dd->leaving) ||
		drack_host_state(dd->pool, dd->host) == DRACK_HOST_UP);
}

static void drack_heartbeat_work(struct work_struct *work)
{
	struct drack_dev *dd = container_of(to_delayed_work(work),
					    struct drack_dev, heartbeat_work);
	struct drack_host_entry *e = drack_dev_entry(dd);
	u32 c;

	drack_beat_again(&dd->heartbeat_work);
	if (READ_ONCE(dd->stalled))
		return;		/* a hung host: no heartbeat */
	if (READ_ONCE(dd->fenced)) {
		if (drack_host_state(dd->pool, dd->host) == DRACK_HOST_FREE)
			schedule_work(&dd->fence_work);	/* rejoin */
		return;
	}
	if (!drack_timer_may_run(dd)) {
		schedule_work(&dd->fence_work);
		return;
	}
	WRITE_ONCE(e->heartbeat, cpu_to_le64(le64_to_cpu(e->heartbeat) + 1));
	for (c = 0; c < DRACK_NR_CLASSES; c++)
		WRITE_ONCE(e->buffers_free[c],
			   cpu_to_le32(READ_ONCE(dd->alloc.cls[c].nfree)));
}

/* Per-peer isolation: apply the Buffer cap, find stalled peers. */
static void drack_isolation(struct drack_dev *dd)
{
	u32 cap_mb = READ_ONCE(drack_peer_max_lent_mb);
	struct drack_host_entry *e = drack_dev_entry(dd);
	bool stalled;
	u64 hold;
	int p;

	drack_alloc_set_peer_cap(&dd->alloc, (u64)cap_mb << 20);
	/* Peers holding our Buffers by reference keep well below it. */
	WRITE_ONCE(e->lend_cap_kb,
		   cpu_to_le32(min_t(u64, (u64)cap_mb << 10, U32_MAX)));
	/*
	 * ... and below half of each class (rxref.c), so we ask for more
	 * once one of them holds half, as long as that is less than it may
	 * hold by reference (by our own limits: the module's, for all).
	 */
	drack_dev_publish_sections(dd);
	hold = drack_rxref_max_bytes();
	if (cap_mb)
		hold = min(hold, (u64)cap_mb << 19);
	drack_alloc_set_ref_hold(&dd->alloc, hold, DRACK_HELD_MAX);
	stalled = drack_tx_check_stall(dd, &p);
	if (p < 0)
		return;
	if (stalled) {
		drack_stat_ctl_inc(&dd->stats, DRACK_S_PEER_STALLS);
		netdev_warn(dd->ndev, "peer %d stalled: no room on its ref_queue or our Buffers not handed back for %u ms; dropping frames to it\n",
			    p, READ_ONCE(drack_stall_timeout_ms));
	} else {
		netdev_info(dd->ndev, "peer %d consumes again, no longer stalled\n",
			    p);
	}
	drack_pool_notify_peer(dd->pool, dd->host, p, stalled);
}

static void drack_liveness_work(struct work_struct *work)
{
	struct drack_dev *dd = container_of(to_delayed_work(work),
					    struct drack_dev, liveness_work);

	drack_timer_again(&dd->liveness_work);
	if (!drack_timer_may_run(dd))
		return;
	drack_dev_update_carrier(dd);
	drack_dev_release_dead(dd);
	if (READ_ONCE(dd->leaving))
		return;
	drack_isolation(dd);
	/*
	 * Doorbells can be lost or suppressed wrongly by a peer: poll too.
	 * Returns not yet due come home here at the latest.
	 */
	if (netif_running(dd->ndev)) {
		if (drack_rx_pending(dd) || drack_tx_any_stopped(dd)) {
			drack_dev_schedule_napi(dd);
		} else if (drack_rx_returns_pending(dd)) {
			local_bh_disable();
			napi_schedule(drack_dev_napi(dd));
			local_bh_enable();
		} else if (drack_rxref_holding(dd, READ_ONCE(dd->watch)) &&
			   !timer_pending(&dd->held_timer)) {
			/* A poll that ran as their peer left did not look. */
			mod_timer(&dd->held_timer, jiffies + 1);
		}
	} else {
		spin_lock_bh(&dd->rx_lock);
		drack_rx_drop_all(dd);
		drack_rx_drain_returns(dd, drack_all_peers(dd));
		spin_unlock_bh(&dd->rx_lock);
	}
}

static void drack_refill_work(struct work_struct *work)
{
	struct drack_dev *dd = container_of(to_delayed_work(work),
					    struct drack_dev, refill_work);
	struct drack_alloc *a = &dd->alloc;
	bool retry = false;
	int starved = -1;
	u32 c;

	drack_timer_again(&dd->refill_work);
	if (!drack_timer_may_run(dd) || READ_ONCE(dd->leaving))
		return;
	if (drack_dev_revoke_pending(dd))
		schedule_work(&dd->revoke_work);
	if (drack_dev_grants_pending(dd))
		schedule_work(&dd->grant_work);

	spin_lock_irq(&a->lock);
	for (c = 0; c < DRACK_NR_CLASSES; c++) {
		struct drack_class_alloc *ca = &a->cls[c];

		if (!ca->requested)
			continue;
		/*
		 * Unanswered (a quota reached), and no longer short: withdraw,
		 * or the FM would never reclaim a Section of the class.
		 */
		if (time_after(jiffies, ca->requested_at + DRACK_SECTION_WAIT) &&
		    !drack_alloc_low(a, c) && !ca->half_lent) {
			WRITE_ONCE(ca->requested, false);
			retry = true;	/* the work clears sections_wanted */
			continue;
		}
		if (time_after(jiffies, ca->asked_at + DRACK_REQUEST_RETRY)) {
			ca->asked_at = jiffies;
			retry = true;
		}
		/* Without 2 KB Buffers there is no carrier, and it says why. */
		if (c != DRACK_CLASS_2K && !ca->nfree &&
		    time_after(jiffies, ca->requested_at + DRACK_SECTION_WAIT))
			starved = c;
	}
	spin_unlock_irq(&a->lock);
	if (retry)
		schedule_work(&dd->request_work);
	if (starved >= 0 && !dd->warned_no_sections) {
		dd->warned_no_sections = true;
		netdev_warn(dd->ndev, "no %u KB Section granted in pool %u: frames that need one wait for Buffers\n",
			    DRACK_CLASS_SIZE(starved) >> 10, dd->pool->id);
	}
}

static void drack_nic_failover_work(struct work_struct *work)
{
	struct drack_dev *dd = container_of(to_delayed_work(work),
					    struct drack_dev, nic_work);

	drack_beat_again(&dd->nic_work);
	if (!drack_timer_may_run(dd) || READ_ONCE(dd->leaving))
		return;
	rcu_read_lock();
	local_bh_disable();	/* NAPIs it schedules run on bh enable */
	drack_nic_tick(dd);
	local_bh_enable();
	rcu_read_unlock();
}

void drack_timers_init(struct drack_dev *dd)
{
	INIT_DELAYED_WORK(&dd->heartbeat_work, drack_heartbeat_work);
	INIT_DELAYED_WORK(&dd->liveness_work, drack_liveness_work);
	INIT_DELAYED_WORK(&dd->refill_work, drack_refill_work);
	INIT_DELAYED_WORK(&dd->nic_work, drack_nic_failover_work);
}

void drack_timers_start(struct drack_dev *dd)
{
	drack_beat_again(&dd->heartbeat_work);
	drack_timer_again(&dd->liveness_work);
	drack_timer_again(&dd->refill_work);
	drack_beat_again(&dd->nic_work);
}

/* Leaving: what a leaving host no longer does. */
void drack_timers_stop_work(struct drack_dev *dd)
{
	cancel_delayed_work_sync(&dd->refill_work);
	cancel_delayed_work_sync(&dd->nic_work);
}

/* Gone from the pool: the heartbeat and liveness too. */
void drack_timers_stop(struct drack_dev *dd)
{
	drack_timers_stop_work(dd);
	cancel_delayed_work_sync(&dd->heartbeat_work);
	cancel_delayed_work_sync(&dd->liveness_work);
}
