// SPDX-License-Identifier: GPL-2.0-only
/*
 * drack-fmd's session with the kernel: connecting to (and following) the
 * drack family, finding the pools to serve and registering for them, and
 * the periodic poll of their hosts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmd-daemon.h"

struct fmd_pool *fmd_pool_lookup(struct fmd *f, uint32_t id,
					bool create)
{
	struct fmd_pool *p;
	size_t i;

	for (i = 0; i < f->npools; i++)
		if (f->pools[i].id == id)
			return &f->pools[i];
	if (!create)
		return NULL;
	p = realloc(f->pools, (f->npools + 1) * sizeof(*p));
	if (!p)
		return NULL;
	f->pools = p;
	p = &f->pools[f->npools++];
	memset(p, 0, sizeof(*p));
	p->id = id;
	return p;
}

/* Closing the request socket ends our registrations too. */
void fmd_disconnect(struct fmd *f)
{
	size_t i;

	drack_events_close(f->ev);
	drack_nl_close(f->nl);
	f->ev = NULL;
	f->nl = NULL;
	for (i = 0; i < f->npools; i++)
		fmd_pool_release(&f->pools[i]);
	free(f->pools);
	f->pools = NULL;
	f->npools = 0;
	f->reclaim_pending = false;
}

/* Log why we cannot talk to drack.ko, once per outage. */
static void fmd_waiting(struct fmd *f, int err)
{
	if (f->waiting_logged)
		return;
	f->waiting_logged = true;
	if (err == ENOENT)
		fmd_info("generic netlink family \"%s\" not found (drack.ko not loaded?), retrying every second",
			 DRACK_GENL_NAME);
	else
		fmd_warn("cannot open the \"%s\" family: %s, retrying every second",
			 DRACK_GENL_NAME, strerror(err));
}

bool fmd_connect(struct fmd *f)
{
	f->nl = drack_nl_open();
	if (!f->nl) {
		fmd_waiting(f, errno);
		return false;
	}
	f->ev = drack_events_open();
	if (!f->ev) {
		int err = errno;

		drack_nl_close(f->nl);
		f->nl = NULL;
		fmd_waiting(f, err);
		return false;
	}
	fmd_dbg("connected to the \"%s\" family", DRACK_GENL_NAME);
	f->waiting_logged = false;
	return true;
}

/* The pool dump, copied out: registering needs the handle. */

static int fmd_pool_dump_cb(const struct drack_pool_info *pi, void *arg)
{
	struct fmd_pool_dump *d = arg;
	struct drack_pool_info *p;

	p = realloc(d->pi, (d->n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	d->pi = p;
	d->pi[d->n++] = *pi;
	return 0;
}

int fmd_pool_dump(struct drack_nl *nl, struct fmd_pool_dump *d)
{
	int err;

	memset(d, 0, sizeof(*d));
	err = drack_pool_list(nl, fmd_pool_dump_cb, d);
	if (err) {
		free(d->pi);
		d->pi = NULL;
		d->n = 0;
	}
	return err;
}

static void fmd_check_conf_pools(const struct fmd_pool_dump *d)
{
	uint32_t i;
	size_t j;

	for (i = 0; i < fmd_conf.npools; i++) {
		for (j = 0; j < d->n && d->pi[j].id != fmd_conf.pools[i]; j++)
			;
		if (j == d->n)
			fmd_info("pool %u (configured in pools) does not exist yet",
				 fmd_conf.pools[i]);
	}
}

/*
 * Pools appearing (register, take on) and going (or no longer
 * configured: unregister). At the first dump, if there are pools to
 * manage and we could register for none, there is nothing for us to do.
 */
static void fmd_scan_pools(struct fmd *f)
{
	struct fmd_pool_dump d;
	size_t i, j, managed = 0, registered = 0;
	struct fmd_pool *fp;
	int err;

	for (i = 0; i < f->npools; i++)
		f->pools[i].seen = false;
	err = fmd_pool_dump(f->nl, &d);
	if (err) {
		fmd_warn("cannot list pools: %s", strerror(-err));
		return;
	}
	if (f->check_pools) {
		f->check_pools = false;
		fmd_check_conf_pools(&d);
	}
	for (i = 0; i < d.n; i++) {
		if (!fmd_conf_manages(&fmd_conf, d.pi[i].id))
			continue;
		managed++;
		fp = fmd_pool_lookup(f, d.pi[i].id, true);
		if (!fp) {
			fmd_err("out of memory");
			continue;
		}
		fp->seen = true;
		fp->max_nics = d.pi[i].max_nics;
		fp->max_hosts = d.pi[i].max_hosts;
		if (fmd_pool_lost(fp, &d.pi[i])) {
			fmd_warn("pool %u: no longer its fabric manager (now pid %u, epoch %llu), registering again",
				 fp->id, d.pi[i].fm_pid,
				 (unsigned long long)d.pi[i].fm_epoch);
			fp->registered = false;
			memset(fp->host, 0, sizeof(fp->host));
			fp->hosts_ok = false;
		}
		if (!fp->registered)
			fmd_pool_register(f->nl, fp, &d.pi[i]);
		if (fp->registered)
			registered++;
	}
	free(d.pi);

	for (i = j = 0; i < f->npools; i++) {
		fp = &f->pools[i];
		if (!fp->seen) {
			if (fmd_conf_manages(&fmd_conf, fp->id)) {
				fmd_info("pool %u gone", fp->id);
			} else {
				fmd_pool_unregister(f->nl, fp);
				fmd_info("pool %u: no longer managed (not in pools)",
					 fp->id);
			}
			fmd_pool_release(fp);
			continue;
		}
		f->pools[j++] = *fp;
	}
	f->npools = j;

	if (!f->started) {
		f->started = true;
		if (managed && !registered) {
			fmd_err("no pool to manage: %zu pool(s) configured, none could be registered, exiting",
				managed);
			f->fatal = true;
		}
	}
}

/*
 * Periodic: the family still there, pools appearing or going, host
 * states and heartbeats. Section requests come as events, re-sent by
 * the kernel while outstanding, so missing one only delays it.
 */
void fmd_poll(struct fmd *f)
{
	bool pending = false;
	size_t i;
	int err;

	err = drack_nl_check(f->nl);
	if (err < 0) {
		fmd_disconnect(f);
		fmd_waiting(f, -err);
		return;
	}
	if (err > 0) {
		fmd_info("drack.ko was reloaded, reconnecting");
		fmd_disconnect(f);
		if (!fmd_connect(f))
			return;
	}

	fmd_scan_pools(f);
	if (f->fatal)
		return;
	for (i = 0; i < f->npools; i++) {
		if (!f->pools[i].registered)
			continue;
		pending |= fmd_health_poll(f->nl, &f->pools[i]);
		fmd_nic_poll(f->nl, &f->pools[i]);
	}
	f->reclaim_pending = pending;
}
