// SPDX-License-Identifier: GPL-2.0-only
/*
 * Taking a pool on: register as its fabric manager (one per pool; the
 * kernel ties the registration to our netlink socket, so it ends when we
 * exit, even on SIGKILL), format it if asked to and nobody uses it, and
 * adopt what it holds. All allocation state is in the pool's Section
 * table, so a new drack-fmd simply reads it; what this daemon remembers
 * (grant order, rate limits, heartbeats) is only a hint.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmd.h"

void fmd_pool_release(struct fmd_pool *fp)
{
	free(fp->grant_seq);
	fp->grant_seq = NULL;
	fp->grant_nsec = 0;
}

void fmd_pool_note_grant(struct fmd_pool *fp, uint32_t nsec, uint32_t id)
{
	if (nsec != fp->grant_nsec) {	/* first grant, or reformatted */
		fmd_pool_release(fp);
		fp->grant_seq = calloc(nsec ? nsec : 1, sizeof(*fp->grant_seq));
		if (!fp->grant_seq)
			return;		/* only a hint */
		fp->grant_nsec = nsec;
	}
	if (id < fp->grant_nsec)
		fp->grant_seq[id] = ++fp->next_seq;
}

void fmd_pool_note_free(struct fmd_pool *fp, uint32_t id)
{
	if (id < fp->grant_nsec)
		fp->grant_seq[id] = 0;
}

static const char *fmd_colon(const char *msg)
{
	return msg[0] ? ": " : "";
}

static void fmd_pool_format(struct drack_nl *nl, struct fmd_pool *fp)
{
	char errbuf[DRACK_ERRMSG_MAX];
	struct drack_pool_info pi;
	int err;

	err = drack_pool_format(nl, fp->id, fmd_conf.max_hosts,
				fmd_conf.regions, errbuf, sizeof(errbuf));
	if (err == -EBUSY) {
		fmd_info("pool %u: in use, not formatted%s%s", fp->id,
			 fmd_colon(errbuf), errbuf);
		return;
	}
	if (err) {
		fmd_err("pool %u: cannot format it (max-hosts %u, regions %u): %s%s%s",
			fp->id, fmd_conf.max_hosts, fmd_conf.regions,
			strerror(-err), fmd_colon(errbuf), errbuf);
		return;
	}
	fmd_pool_release(fp);
	memset(fp->host, 0, sizeof(fp->host));
	fp->hosts_ok = false;
	memset(&fp->nic, 0, sizeof(fp->nic));
	if (drack_pool_get(nl, fp->id, &pi))
		fmd_info("pool %u: formatted", fp->id);
	else
		fmd_info("pool %u: formatted: %u Sections (%u metadata), %u hosts max, %u regions",
			 fp->id, pi.section_count, pi.meta_sections,
			 pi.max_hosts, pi.regions);
}

/* One line: which host owns how many Sections, how many are free. */
static void fmd_pool_adopt(struct drack_nl *nl, struct fmd_pool *fp)
{
	char hosts[DRACK_MAX_HOSTS * 40] = "", *p = hosts;
	size_t room = sizeof(hosts);
	uint32_t h;
	struct fmd_view v;
	int err, n;

	err = fmd_view_load(nl, fp->id, &v);
	if (err) {
		fmd_warn("pool %u: cannot read its tables: %s", fp->id,
			 strerror(-err));
		return;
	}
	fmd_info("managing pool %u: %s, %u Sections (%u metadata, %u free), %u hosts max, %u regions, fabric manager epoch %llu",
		 fp->id, v.pool.backend, v.pool.section_count,
		 v.pool.meta_sections, v.nfree, v.pool.max_hosts, v.regions,
		 (unsigned long long)v.pool.fm_epoch);
	fp->fm_pid = v.pool.fm_pid;
	fp->fm_epoch = v.pool.fm_epoch;
	for (h = 0; h < DRACK_MAX_HOSTS; h++) {
		if (!v.owned[h])
			continue;
		n = snprintf(p, room, "%shost %u owns %u%s (2k %u, 64k %u)",
			     p == hosts ? "" : ", ", h, v.owned[h],
			     p == hosts ? " Sections" : "",
			     v.owned_cls[h][DRACK_CLASS_2K],
			     v.owned_cls[h][DRACK_CLASS_64K]);
		if (n < 0 || (size_t)n >= room)
			break;
		p += n;
		room -= (size_t)n;
	}
	fmd_info("pool %u: adopted: %s; %u free, %u hosts present", fp->id,
		 hosts[0] ? hosts : "no Section granted", v.nfree, v.hosts);
	fmd_view_free(&v);
}

int fmd_pool_register(struct drack_nl *nl, struct fmd_pool *fp,
		      const struct drack_pool_info *pi)
{
	char errbuf[DRACK_ERRMSG_MAX];
	struct drack_pool_info cur;
	uint32_t pid;
	int err;

	err = drack_fm_register(nl, fp->id, errbuf, sizeof(errbuf));
	if (err == -EOPNOTSUPP) {
		/* a drack.ko from before FM registration */
		if (fp->reg_err != err)
			fmd_warn("pool %u: drack.ko has no fabric manager registration; managing the pool unregistered",
				 fp->id);
		fp->reg_err = err;
		err = 0;
	}
	if (err == -EBUSY) {
		if (!fp->busy_logged) {
			pid = pi->fm_pid;
			if (!drack_pool_get(nl, fp->id, &cur) && cur.fm_pid)
				pid = cur.fm_pid;
			if (pid)
				fmd_err("pool %u is already managed by another drack-fmd (pid %u)",
					fp->id, pid);
			else
				fmd_err("pool %u is already managed by another drack-fmd%s%s",
					fp->id, fmd_colon(errbuf), errbuf);
			fp->busy_logged = true;
		}
		fp->reg_err = err;
		return err;
	}
	if (err) {
		if (fp->reg_err != err)
			fmd_err("pool %u: cannot register as its fabric manager: %s%s%s%s",
				fp->id, strerror(-err), fmd_colon(errbuf),
				errbuf, err == -EPERM ?
				" (drack-fmd needs CAP_NET_ADMIN)" : "");
		fp->reg_err = err;
		return err;
	}
	if (fp->busy_logged)
		fmd_info("pool %u: the other fabric manager is gone, taking over",
			 fp->id);
	fp->busy_logged = false;
	if (fp->reg_err != -EOPNOTSUPP)
		fp->reg_err = 0;
	fp->registered = true;
	fp->nic.sched.synced = false;	/* steering set afresh */
	fmd_dbg("pool %u: registered as its fabric manager", fp->id);

	if (fmd_conf.format)
		fmd_pool_format(nl, fp);
	fmd_pool_adopt(nl, fp);
	return 0;
}

void fmd_pool_unregister(struct drack_nl *nl, struct fmd_pool *fp)
{
	char errbuf[DRACK_ERRMSG_MAX];
	int err;

	if (!fp->registered)
		return;
	fp->registered = false;
	if (fp->reg_err == -EOPNOTSUPP)
		return;
	err = drack_fm_unregister(nl, fp->id, errbuf, sizeof(errbuf));
	if (err && err != -ENOENT && err != -ENODEV)
		fmd_warn("pool %u: cannot unregister: %s%s%s", fp->id,
			 strerror(-err), fmd_colon(errbuf), errbuf);
	else
		fmd_info("pool %u: unregistered as its fabric manager", fp->id);
}

/*
 * Our registration ends with our socket; a drack.ko reloaded between two
 * polls under the same family id would end it unnoticed. Values the
 * kernel did not report (0) are not compared.
 */
bool fmd_pool_lost(const struct fmd_pool *fp, const struct drack_pool_info *pi)
{
	if (!fp->registered || fp->reg_err == -EOPNOTSUPP)
		return false;
	return (fp->fm_pid && pi->fm_pid != fp->fm_pid) ||
	       (fp->fm_epoch && pi->fm_epoch != fp->fm_epoch);
}
