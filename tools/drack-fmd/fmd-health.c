// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host health. Every live host (joining, up, leaving) bumps its heartbeat
 * in the pool every 100 ms. A host whose heartbeat has not moved for
 * dead-timeout-ms is fenced (HOST_FENCE: state DEAD); the live hosts then
 * drop its references and take back what they lent it, and once every
 * one of them has said so (its `released` bit), HOST_RECLAIM gives the
 * dead host's Sections and slot back to the pool. Hosts found DEAD (a
 * previous drack-fmd fenced them) are reclaimed the same way.
 *
 * Only changes of the heartbeat count, measured on our clock: a host is
 * never fenced because drack-fmd itself was stopped for a while, since
 * the first poll after that sees a new value.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "fmd.h"

static bool fmd_live(uint32_t state)
{
	return state == DRACK_HOST_JOINING || state == DRACK_HOST_UP ||
	       state == DRACK_HOST_LEAVING;
}

void fmd_host_state(struct fmd_pool *fp, uint32_t host, uint32_t state)
{
	struct fmd_host_mem *hm;

	if (host >= DRACK_MAX_HOSTS)
		return;
	hm = &fp->host[host];
	if (hm->state == state)
		return;
	fmd_dbg("pool %u host %u: %s -> %s", fp->id, host,
		drack_host_state_name(hm->state),
		drack_host_state_name(state));
	if (state == DRACK_HOST_FREE) {
		memset(hm, 0, sizeof(*hm));	/* forget everything */
	} else if (state == DRACK_HOST_DEAD) {
		hm->hb_when = 0;
		hm->last_refusal_log = 0;
		memset(hm->last_grant, 0, sizeof(hm->last_grant));
		memset(hm->revoking, 0, sizeof(hm->revoking));
	} else {
		hm->hb_when = 0;	/* a state change is a sign of life */
	}
	hm->state = state;
}

struct fmd_hosts {
	struct drack_host_info h[DRACK_MAX_HOSTS];
	bool present[DRACK_MAX_HOSTS];
};

static int fmd_hosts_cb(const struct drack_host_info *h, void *arg)
{
	struct fmd_hosts *s = arg;

	if (h->id < DRACK_MAX_HOSTS) {
		s->h[h->id] = *h;
		s->present[h->id] = true;
	}
	return 0;
}

static const char *fmd_colon(const char *msg)
{
	return msg[0] ? ": " : "";
}

static void fmd_fence(struct drack_nl *nl, struct fmd_pool *fp,
		      const struct drack_host_info *h, uint64_t silent)
{
	struct fmd_host_mem *hm = &fp->host[h->id];
	char errbuf[DRACK_ERRMSG_MAX];
	int err;

	err = drack_host_fence(nl, fp->id, h->id, errbuf, sizeof(errbuf));
	if (err == -ENOENT) {		/* left meanwhile */
		fmd_host_state(fp, h->id, DRACK_HOST_FREE);
		return;
	}
	if (err && err != -EALREADY) {
		if (!hm->error_logged)
			fmd_err("pool %u host %u: no heartbeat for %llu ms, cannot fence it: %s%s%s",
				fp->id, h->id, (unsigned long long)silent,
				strerror(-err), fmd_colon(errbuf), errbuf);
		hm->error_logged = true;
		return;
	}
	fmd_warn("pool %u host %u: no heartbeat for %llu ms (state %s, heartbeat %llu): fenced, reclaiming its %u Sections",
		 fp->id, h->id, (unsigned long long)silent,
		 drack_host_state_name(h->state),
		 (unsigned long long)h->heartbeat, h->sections);
	fmd_host_state(fp, h->id, DRACK_HOST_DEAD);
	hm->dead_since = fmd_now_ms();
	hm->dead_sections = h->sections;
	hm->error_logged = false;
	hm->reclaim_busy_logged = false;
}

/* Live hosts that still hold something of dead host @dead, for the log. */
static void fmd_holders(const struct fmd_hosts *s, uint32_t dead, char *buf,
			size_t len)
{
	size_t o = 0;
	uint32_t p;
	int n;

	buf[0] = '\0';
	for (p = 0; p < DRACK_MAX_HOSTS && o < len; p++) {
		if (p == dead || !s->present[p] || !fmd_live(s->h[p].state) ||
		    (s->h[p].released >> dead) & 1)
			continue;
		n = snprintf(buf + o, len - o, "%s%u", o ? "," : "", p);
		if (n < 0)
			break;
		o += (size_t)n;
	}
}

/* Returns true while the reclaim has to be retried. */
static bool fmd_reclaim_host(struct drack_nl *nl, struct fmd_pool *fp,
			     const struct fmd_hosts *s,
			     const struct drack_host_info *h, uint64_t now)
{
	struct fmd_host_mem *hm = &fp->host[h->id];
	char errbuf[DRACK_ERRMSG_MAX], holders[DRACK_MAX_HOSTS * 3 + 1];
	uint32_t sections;
	int err;

	if (!hm->dead_since) {
		/* fenced before we knew it: by an earlier drack-fmd */
		fmd_warn("pool %u host %u: found fenced, reclaiming its %u Sections",
			 fp->id, h->id, h->sections);
		hm->dead_since = now;
		hm->dead_sections = h->sections;
	}
	sections = h->sections > hm->dead_sections ? h->sections :
		   hm->dead_sections;
	err = drack_host_reclaim(nl, fp->id, h->id, errbuf, sizeof(errbuf));
	if (!err) {
		fmd_info("pool %u host %u: reclaimed after %llu ms: %u Sections back in the pool, host slot free",
			 fp->id, h->id,
			 (unsigned long long)(now - hm->dead_since), sections);
		fmd_host_state(fp, h->id, DRACK_HOST_FREE);
		return false;
	}
	if (err == -EBUSY) {
		fmd_holders(s, h->id, holders, sizeof(holders));
		if (!hm->reclaim_busy_logged &&
		    now - hm->dead_since >= FMD_RECLAIM_WARN_MS) {
			fmd_warn("pool %u host %u: still referenced by live hosts after %llu ms (hosts %s), retrying",
				 fp->id, h->id,
				 (unsigned long long)(now - hm->dead_since),
				 holders[0] ? holders : "?");
			hm->reclaim_busy_logged = true;
		} else {
			fmd_dbg("pool %u host %u: reclaim waits for hosts %s",
				fp->id, h->id, holders[0] ? holders : "?");
		}
		return true;
	}
	if (err == -ENOENT || err == -EINVAL) {
		/* gone, or no longer DEAD: the next poll tells */
		fmd_dbg("pool %u host %u: not reclaimed: %s%s%s", fp->id,
			h->id, strerror(-err), fmd_colon(errbuf), errbuf);
		return false;
	}
	if (!hm->error_logged)
		fmd_err("pool %u host %u: cannot reclaim it: %s%s%s, retrying",
			fp->id, h->id, strerror(-err), fmd_colon(errbuf),
			errbuf);
	hm->error_logged = true;
	return true;
}

bool fmd_health_poll(struct drack_nl *nl, struct fmd_pool *fp)
{
	static struct fmd_hosts s;	/* 64 host entries: not on the stack */
	uint64_t now, timeout = fmd_conf.dead_timeout_ms;
	bool pending = false;
	uint32_t i, c;
	int err;

	memset(&s, 0, sizeof(s));
	err = drack_host_list(nl, fp->id, fmd_hosts_cb, &s);
	if (err) {
		fmd_dbg("pool %u: cannot list hosts: %s", fp->id,
			strerror(-err));
		fp->hosts_ok = false;
		return false;
	}
	fp->hosts_ok = true;
	now = fmd_now_ms();
	for (i = 0; i < DRACK_MAX_HOSTS; i++) {
		const struct drack_host_info *h = &s.h[i];
		struct fmd_host_mem *hm = &fp->host[i];

		if (!s.present[i]) {
			fmd_host_state(fp, i, DRACK_HOST_FREE);
			continue;
		}
		if (hm->generation_known &&
		    hm->generation != h->generation) {
			/* left and joined again between two polls */
			fmd_host_state(fp, i, DRACK_HOST_FREE);
		}
		fmd_host_state(fp, i, h->state);
		hm->generation = h->generation;
		hm->generation_known = true;

		if (h->state == DRACK_HOST_DEAD) {
			pending |= fmd_reclaim_host(nl, fp, &s, h, now);
			continue;
		}
		/*
		 * Requests of hosts in other kernels reach us only through
		 * the pool: the host table's wanted flags.
		 */
		if (h->state == DRACK_HOST_UP)
			for (c = 0; c < DRACK_NR_CLASSES; c++)
				if (h->wanted[c])
					fmd_handle_request(nl, fp, i, c, 1);
		if (!fmd_live(h->state) || !timeout) {
			hm->hb_when = 0;
			continue;
		}
		if (!hm->hb_when || hm->heartbeat != h->heartbeat) {
			hm->heartbeat = h->heartbeat;
			hm->hb_when = now;
			continue;
		}
		if (now - hm->hb_when >= timeout)
			fmd_fence(nl, fp, h, now - hm->hb_when);
	}
	return pending;
}
